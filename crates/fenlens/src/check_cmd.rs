//! `fenlens check`: read FENs from arguments, `.fen` files or standard input, and report.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use fenlens_fen::shakmaty::{Board, Color, File as BoardFile, Rank, Square};
use fenlens_fen::{
    CastlingNotation, CheckOptions, EnPassantWrite, Location, Report, Severity, WriteOptions,
    check, fix,
};

use crate::style::Style;

/// Arguments of `fenlens check`.
#[derive(Args, Debug)]
#[command(after_help = "Inputs:\n  \
    A FEN (quote it: it contains spaces), a file ending in .fen (one FEN a line), or - for one\n  \
    FEN a line on standard input. Blank lines in files are skipped.\n\n\
Exit status:\n  \
    0 every FEN is valid (with --fix: every FEN could be fixed), 1 some FEN is not, 2 usage error.")]
pub struct CheckArgs {
    /// FENs, `.fen` files, or `-` for standard input.
    #[arg(required = true, value_name = "FEN|FILE|-")]
    inputs: Vec<OsString>,

    /// Print one JSON object per input line: {input, fen, valid, diagnostics}.
    #[arg(long, conflicts_with = "fix")]
    json: bool,

    /// Print the corrected FEN, applying every error's clear fix; explain on stderr when an error
    /// has none. Warnings (board upside down, colours swapped) are not applied.
    #[arg(long)]
    fix: bool,

    /// Judge castling rights by Chess960 rules (automatic when rook files are used).
    #[arg(long)]
    chess960: bool,

    /// Castling notation to write: as the input wrote it, KQkq, Shredder-FEN (AHah) or X-FEN.
    #[arg(long, value_enum, default_value_t = NotationArg::Input)]
    castling_notation: NotationArg,

    /// When to write the en passant square: after every double pawn move (FEN standard), or
    /// only when an en passant capture is legal.
    #[arg(long, value_enum, default_value_t = EpArg::Always)]
    ep: EpArg,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum NotationArg {
    /// The notation the input used.
    Input,
    /// KQkq.
    Standard,
    /// Rook files: AHah.
    Shredder,
    /// KQkq, with a file letter only where needed.
    Xfen,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum EpArg {
    /// After every double pawn move.
    Always,
    /// Only when an en passant capture is legal.
    Legal,
}

impl CheckArgs {
    fn options(&self) -> CheckOptions {
        CheckOptions {
            chess960: self.chess960,
            write: WriteOptions {
                castling: match self.castling_notation {
                    NotationArg::Input => None,
                    NotationArg::Standard => Some(CastlingNotation::Standard),
                    NotationArg::Shredder => Some(CastlingNotation::Shredder),
                    NotationArg::Xfen => Some(CastlingNotation::XFen),
                },
                en_passant: match self.ep {
                    EpArg::Always => EnPassantWrite::Always,
                    EpArg::Legal => EnPassantWrite::Legal,
                },
            },
        }
    }
}

/// Runs `fenlens check`.
pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let options = args.options();
    let style = Style::for_stdout();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut all_ok = true;
    let mut first = true;
    let mut handle = |line: &[u8], out: &mut dyn Write| -> Result<()> {
        let ok = if args.fix {
            print_fix(line, &options, out)?
        } else if args.json {
            let report = check(line, &options);
            serde_json::to_writer(&mut *out, &report)?;
            writeln!(out)?;
            report.is_valid()
        } else {
            if !first {
                writeln!(out)?;
            }
            first = false;
            let report = check(line, &options);
            print_report(&report, style, out)?;
            report.is_valid()
        };
        all_ok &= ok;
        Ok(())
    };

    for input in &args.inputs {
        if input == "-" {
            for_each_line(io::stdin().lock(), &mut |line| handle(line, &mut out))
                .context("reading standard input")?;
        } else if is_fen_file(input) {
            let path = Path::new(input);
            let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
            for_each_line(BufReader::new(file), &mut |line| handle(line, &mut out))
                .with_context(|| format!("reading {}", path.display()))?;
        } else {
            handle(input.as_encoded_bytes(), &mut out)?;
        }
    }
    out.flush()?;
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn is_fen_file(input: &OsString) -> bool {
    let path = Path::new(input);
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fen"))
        && path.is_file()
}

/// Calls `f` on every non-blank line, without its line ending; any bytes are accepted.
fn for_each_line(mut reader: impl BufRead, f: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if !text.trim_ascii().is_empty() {
            f(text)?;
        }
    }
}

fn print_fix(line: &[u8], options: &CheckOptions, out: &mut dyn Write) -> Result<bool> {
    match fix(line, options) {
        Ok(fen) => {
            writeln!(out, "{fen}")?;
            // Warnings are not applied; say them, with the proposal made from the input.
            let original = check(line, options);
            for d in original
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Warning)
            {
                out.flush()?;
                eprintln!("fenlens: warning[{}] in {fen}: {}", d.code, d.message);
                if let Some(proposal) = &d.fix {
                    eprintln!("  not applied; if so, use: {proposal}");
                }
            }
            Ok(true)
        }
        Err(unfixable) => {
            out.flush()?;
            let input = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
            eprintln!("fenlens: cannot fix {input:?}: these errors have no clear fix:");
            for d in &unfixable.remaining {
                eprintln!("  error[{}] {}: {}", d.code, d.location, d.message);
            }
            Ok(false)
        }
    }
}

fn print_report(report: &Report, style: Style, out: &mut dyn Write) -> Result<()> {
    match (&report.fen, &report.setup) {
        (Some(fen), Some(setup)) => {
            writeln!(out, "{}", style.bold(fen))?;
            writeln!(out)?;
            write_board(&setup.board, &[], style, out)?;
            let side = if setup.turn.is_white() {
                "White"
            } else {
                "Black"
            };
            writeln!(
                out,
                "  {side} to move · halfmove clock {} · move {}",
                setup.halfmoves, setup.fullmoves
            )?;
        }
        _ => {
            let shown: String = report.input.chars().take(120).collect();
            writeln!(out, "{}", style.bold(&shown))?;
            writeln!(out)?;
            let broken: Vec<u8> = report
                .diagnostics
                .iter()
                .filter_map(|d| match d.location {
                    Location::Rank(rank) if d.is_error() => Some(rank),
                    _ => None,
                })
                .collect();
            write_board(&report.partial_board, &broken, style, out)?;
            writeln!(
                out,
                "  {}",
                style.dim("(as far as it could be read; broken ranks are marked with !)")
            )?;
        }
    }
    let count = |severity| {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    if !report.diagnostics.is_empty() {
        writeln!(out)?;
    }
    for d in &report.diagnostics {
        let label = format!("{}[{}]", d.severity.as_str(), d.code);
        let label = match d.severity {
            Severity::Error => style.error(&label),
            Severity::Warning => style.warning(&label),
            Severity::Note => style.note(&label),
        };
        writeln!(out, "{label} {}: {}", d.location, d.message)?;
        if let Some(fen) = &d.fix {
            writeln!(out, "  {} {fen}", style.good("fix:"))?;
        }
    }
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let verdict = if errors == 0 {
        style.good("valid")
    } else {
        style.error("invalid")
    };
    writeln!(
        out,
        "{verdict}: {errors} error{}, {warnings} warning{}",
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" }
    )?;
    Ok(())
}

/// The board as text, rank 8 on top, with coordinates; ranks in `broken` are marked with `!`.
fn write_board(board: &Board, broken: &[u8], style: Style, out: &mut dyn Write) -> Result<()> {
    for rank in Rank::ALL.into_iter().rev() {
        let number = rank as u8 + 1;
        let mark = if broken.contains(&number) {
            style.error("!")
        } else {
            " ".to_string()
        };
        let mut line = format!("{mark} {} ", rank.char());
        for file in BoardFile::ALL {
            line.push(' ');
            match board.piece_at(Square::from_coords(file, rank)) {
                Some(piece) if piece.color == Color::White => {
                    line.push_str(&style.bold(&piece.char().to_string()))
                }
                Some(piece) => line.push(piece.char()),
                None => line.push_str(&style.dim(".")),
            }
        }
        writeln!(out, "{line}")?;
    }
    writeln!(out, "     a b c d e f g h")?;
    Ok(())
}
