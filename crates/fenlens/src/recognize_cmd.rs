//! `fenlens recognize`: pictures in, one FEN line (or JSON object) per picture out.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use fenlens_fen::shakmaty::Square;
use fenlens_vision::classify::{Classifier, class_char};
use fenlens_vision::{Castling, Flipped, Options, Recognition, Recognizer, VisionError};
use rayon::prelude::*;
use serde::Deserialize;
use serde_json::json;

use crate::render_cmd::progress_bar;

/// One picture read: its name, the reading, and the error of its annotation where that could
/// not be written.
type PictureRead = (String, Vec<Recognition>, Option<String>);

/// Arguments of `fenlens recognize`.
#[derive(Args, Debug)]
#[command(
    after_help = "Output: exactly one line per picture on stdout, in input order: the six-field FEN\n\
(or, with --json, one JSON object); with --all-boards, one line per board. A picture that\n\
cannot be read prints \"FILE: message\" on stderr and the others go on.\n\n\
Exit status: 0 when every picture was read (and, with --annotate, its annotation written),\n\
1 when any failed, 2 on usage errors.\n\n\
Examples:\n  \
    fenlens recognize examples/example.png\n  \
    fenlens recognize --side b --json screenshot.png\n  \
    fenlens recognize --annotate checked/ pictures/\n  \
    fenlens recognize --all-boards --json book-page.jpg\n  \
    fenlens recognize --all-boards --annotate page-checked.png book-page.jpg"
)]
pub struct RecognizeArgs {
    /// Pictures (PNG, JPEG, WebP, GIF, BMP), folders of pictures, or - for one picture on stdin.
    #[arg(required = true, value_name = "IMAGE")]
    images: Vec<PathBuf>,

    /// Side to move.
    #[arg(long, value_enum, default_value_t = Side::W)]
    side: Side,

    /// Castling rights: auto (every right whose king and rook stand on their home squares),
    /// none, or letters such as KQkq.
    #[arg(long, default_value = "auto")]
    castling: String,

    /// En passant square, e.g. e3.
    #[arg(long, value_name = "SQUARE")]
    ep: Option<String>,

    /// Black at the bottom: decide from the coordinates drawn and the position (auto), or say so.
    #[arg(long, value_enum, default_value_t = FlippedArg::Auto)]
    flipped: FlippedArg,

    /// Print one JSON object per picture with corners, per-square confidences, uncertain squares
    /// and the checker's diagnostics.
    #[arg(long)]
    json: bool,

    /// Write the picture with the detected grid and uncertain squares marked, and the recognized
    /// board beside it (a .png file for one picture, a folder for several, holding
    /// NAME.annotated.png per picture; pictures sharing a name get longer, distinct ones). With
    /// --all-boards every board's grid is drawn in a colour of its own and numbered from 1 in
    /// reading order ("board_index" + 1), and every board is rendered beside the picture.
    #[arg(long, value_name = "OUT")]
    annotate: Option<PathBuf>,

    /// Read every board in each picture (a book page with several diagrams), in reading order:
    /// rows of boards from the top, each row from the left. One line per board (with --json one
    /// object per board, with its "board_index" from 0); with several pictures, --json tells
    /// which picture each board comes from ("file").
    #[arg(long)]
    all_boards: bool,

    /// Read with these weights (a safetensors file from `fenlens train`, such as
    /// models/square-net-heldout.safetensors) instead of the four built-in ones; several,
    /// separated by commas, are averaged (beyond the first two, only on the squares those
    /// leave unsure).
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    model: Vec<PathBuf>,
}

/// The square classifier: the weights in `models` when given (several are averaged), else the
/// built-in ones.
pub fn load_classifier(models: &[PathBuf]) -> Result<Classifier> {
    let mut members = Vec::with_capacity(models.len());
    for path in models {
        members.push(
            Classifier::from_bytes(
                &std::fs::read(path).with_context(|| format!("reading {}", path.display()))?,
            )
            .with_context(|| format!("loading the model {}", path.display()))?,
        );
    }
    Ok(match Classifier::averaging(members) {
        Some(classifier) => classifier,
        None => Classifier::embedded()?,
    })
}

/// Side to move, as the CLI and the API spell it.
#[derive(ValueEnum, Deserialize, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White to move.
    W,
    /// Black to move.
    B,
}

/// Orientation, as the CLI and the API spell it.
#[derive(ValueEnum, Deserialize, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
pub enum FlippedArg {
    /// Decide from the coordinates drawn (file letters, rank digits) and the position.
    Auto,
    /// Black at the bottom.
    Yes,
    /// White at the bottom.
    No,
}

const EXTENSIONS: [&str; 6] = ["png", "jpg", "jpeg", "webp", "gif", "bmp"];

/// Whether a path looks like a picture file by its extension.
fn is_picture(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(input)
                .with_context(|| format!("reading {}", input.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_picture(p))
                .collect();
            files.sort();
            out.extend(files);
        } else {
            out.push(input.clone());
        }
    }
    Ok(out)
}

impl From<FlippedArg> for Flipped {
    fn from(arg: FlippedArg) -> Flipped {
        match arg {
            FlippedArg::Auto => Flipped::Auto,
            FlippedArg::Yes => Flipped::Yes,
            FlippedArg::No => Flipped::No,
        }
    }
}

fn options(args: &RecognizeArgs) -> Result<Options> {
    parse_options(
        matches!(args.side, Side::B),
        &args.castling,
        args.ep.as_deref(),
        args.flipped.into(),
    )
}

/// Recognition options from the CLI's (and the HTTP API's) words: castling `auto`, `none` or
/// letters from KQkq; en passant a square such as `e3`.
pub fn parse_options(
    black_to_move: bool,
    castling: &str,
    en_passant: Option<&str>,
    flipped: Flipped,
) -> Result<Options> {
    let castling = match castling {
        "auto" => Castling::Auto,
        "none" | "-" => Castling::None,
        letters if !letters.is_empty() && letters.chars().all(|c| "KQkq".contains(c)) => {
            Castling::Given(letters.to_string())
        }
        other => bail!("castling must be auto, none or letters from KQkq, not {other:?}"),
    };
    let en_passant = en_passant
        .map(|s| {
            s.parse::<Square>()
                .map_err(|_| anyhow::anyhow!("the en passant square must be like e3, not {s:?}"))
        })
        .transpose()?;
    Ok(Options {
        black_to_move,
        castling,
        en_passant,
        flipped,
    })
}

/// The boards read in a decoded picture: every board with `all_boards` (in reading order), else
/// the one the locator finds first. For the command and the server's `all_boards`.
pub fn read_boards(
    recognizer: &Recognizer,
    image: &image::RgbImage,
    options: &Options,
    all_boards: bool,
) -> Result<Vec<Recognition>, VisionError> {
    if all_boards {
        recognizer.recognize_all(image, options)
    } else {
        recognizer.recognize_image(image, options).map(|r| vec![r])
    }
}

/// Every board's object for `--all-boards --json`, in the boards' order: [`recognition_json`]
/// with its `board_index` (0, 1, ...).
pub fn all_boards_json(file: &str, boards: &[Recognition]) -> Vec<serde_json::Value> {
    boards
        .iter()
        .enumerate()
        .map(|(index, r)| {
            let mut object = recognition_json(file, r);
            object["board_index"] = json!(index);
            object
        })
        .collect()
}

/// The `--json` object for one picture.
pub fn recognition_json(file: &str, r: &Recognition) -> serde_json::Value {
    let uncertain: Vec<String> = r.uncertain().iter().map(|s| s.to_string()).collect();
    let mut squares: Vec<_> = r.squares.iter().collect();
    squares.sort_by_key(|s| (7 - s.square.rank() as u32, s.square.file() as u32));
    let squares: Vec<serde_json::Value> = squares
        .iter()
        .map(|s| {
            let piece = (s.class != 0).then(|| class_char(s.class).to_string());
            let alternatives: Vec<serde_json::Value> = s
                .alternatives()
                .into_iter()
                .take(3)
                .map(|(c, p)| {
                    let name = (c != 0).then(|| class_char(c).to_string());
                    json!([name, round(p)])
                })
                .collect();
            json!({
                "square": s.square.to_string(),
                "piece": piece,
                "confidence": round(s.confidence()),
                "alternatives": alternatives,
            })
        })
        .collect();
    json!({
        "file": file,
        "fen": r.fen,
        "placement": r.placement.board_fen().to_string(),
        "flipped": r.flipped,
        "orientation_confidence": round(r.orientation_confidence),
        "board": {"corners": r.corners.map(|c| [round(c[0]), round(c[1])])},
        "squares": squares,
        "uncertain": uncertain,
        "diagnostics": r.report.diagnostics,
    })
}

fn round(v: f32) -> f64 {
    // Adding 0.0 turns -0.0 into 0.0.
    (v as f64 * 1000.0).round() / 1000.0 + 0.0
}

/// The annotation's file name for each picture in an --annotate folder: `NAME.annotated.png`
/// from the picture's name without its extension, or with it where two pictures share that
/// (`x.png` and `x.jpg`), or after the picture's place in the list where they still do (`a/x.png`
/// and `b/x.png`), so no annotation overwrites another.
fn annotation_names(files: &[PathBuf]) -> Vec<String> {
    use std::collections::HashMap;
    let part = |file: &PathBuf, of: fn(&Path) -> Option<&std::ffi::OsStr>| {
        if file.as_os_str() == "-" {
            return "stdin".to_string();
        }
        of(file).map_or_else(|| "picture".into(), |s| s.to_string_lossy().into_owned())
    };
    let stems: Vec<String> = files.iter().map(|f| part(f, Path::file_stem)).collect();
    let names: Vec<String> = files.iter().map(|f| part(f, Path::file_name)).collect();
    let tally = |keys: &[String]| {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for key in keys {
            *counts.entry(key.clone()).or_default() += 1;
        }
        counts
    };
    let (stem_counts, name_counts) = (tally(&stems), tally(&names));
    (0..files.len())
        .map(|i| {
            let base = if stem_counts[&stems[i]] == 1 {
                stems[i].clone()
            } else if name_counts[&names[i]] == 1 {
                names[i].clone()
            } else {
                format!("{}-{}", i + 1, names[i])
            };
            format!("{base}.annotated.png")
        })
        .collect()
}

/// Runs `fenlens recognize`.
pub fn run(args: RecognizeArgs) -> Result<ExitCode> {
    let options = options(&args)?;
    let recognizer = Recognizer::with_classifier(load_classifier(&args.model)?);
    let files = expand(&args.images)?;
    if files.is_empty() {
        bail!("no pictures found in the given folders");
    }
    let annotate_dir = match &args.annotate {
        Some(path) if files.len() > 1 || path.is_dir() => {
            std::fs::create_dir_all(path)
                .with_context(|| format!("creating {}", path.display()))?;
            Some(path.clone())
        }
        _ => None,
    };
    let bar = if files.len() > 1 && std::io::stderr().is_terminal() {
        progress_bar(files.len() as u64, "recognizing")
    } else {
        indicatif::ProgressBar::hidden()
    };
    let annotation_names = annotation_names(&files);
    let results: Vec<Result<PictureRead, String>> = files
        .par_iter()
        .enumerate()
        .map(|(index, file)| {
            let name = file.display().to_string();
            let bytes = if file.as_os_str() == "-" {
                let mut buffer = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut buffer)
                    .map_err(|e| format!("{name}: {e}"))?;
                buffer
            } else {
                std::fs::read(file).map_err(|e| format!("{name}: {e}"))?
            };
            // Decode once: the annotation draws on the same pixels.
            let image =
                fenlens_vision::decode::decode(&bytes).map_err(|e| format!("{name}: {e}"))?;
            let result = read_boards(&recognizer, &image, &options, args.all_boards)
                .map_err(|e| format!("{name}: {e}"));
            let mut annotation_error = None;
            if let (Ok(boards), Some(out)) = (&result, &args.annotate) {
                let target = match &annotate_dir {
                    Some(dir) => dir.join(&annotation_names[index]),
                    None => out.clone(),
                };
                if let Err(e) = crate::annotate::write(&image, boards, &target) {
                    annotation_error =
                        Some(format!("{name}: cannot write {}: {e:#}", target.display()));
                }
            }
            bar.inc(1);
            result.map(|r| (name, r, annotation_error))
        })
        .collect();
    bar.finish_and_clear();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut all_ok = true;
    for result in results {
        match result {
            Ok((name, boards, annotation_error)) => {
                if !args.json {
                    for r in &boards {
                        writeln!(out, "{}", r.fen)?;
                    }
                } else if args.all_boards {
                    for object in all_boards_json(&name, &boards) {
                        writeln!(out, "{object}")?;
                    }
                } else {
                    for r in &boards {
                        writeln!(out, "{}", recognition_json(&name, r))?;
                    }
                }
                // The picture was read, so its line stands; the missing annotation still fails.
                if let Some(message) = annotation_error {
                    all_ok = false;
                    out.flush()?;
                    eprintln!("{message}");
                }
            }
            Err(message) => {
                all_ok = false;
                out.flush()?;
                eprintln!("{message}");
            }
        }
    }
    out.flush()?;
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_names_never_collide() {
        let files: Vec<PathBuf> = ["a/x.png", "b/x.png", "a/y.png", "a/y.jpg", "a/z.png", "-"]
            .into_iter()
            .map(PathBuf::from)
            .collect();
        let names = annotation_names(&files);
        assert_eq!(
            names,
            [
                "1-x.png.annotated.png",
                "2-x.png.annotated.png",
                "y.png.annotated.png",
                "y.jpg.annotated.png",
                "z.annotated.png",
                "stdin.annotated.png",
            ]
        );
    }
}
