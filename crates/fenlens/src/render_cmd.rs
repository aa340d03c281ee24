//! `fenlens render`: draw one position as PNG or SVG, or a whole synthetic dataset.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use fenlens_fen::shakmaty::Square;
use fenlens_render::scene::{Category, Library};
use fenlens_render::style::{
    ARROW_GREEN, BoardLook, BoardStyle, Coords, Hatch, HintShape, LICHESS_HINT, LICHESS_MOVE,
    MoveHint,
};
use fenlens_render::{DatasetOptions, PieceSet, draw_board, pieces, svg};

/// Arguments of `fenlens render`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    fenlens render 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1' -o board.png --highlight e2,e4 --coords inside\n  \
    fenlens render 8/8/8/4k3/8/8/4K3/8 -o board.svg --theme green --flip\n  \
    fenlens render r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R -o picked.png --highlight f3 --hint g1,d4,e5,h4,g5\n  \
    fenlens render --dataset data/dev --count 200 --seed 1 --pieces-root ../shared/pieces/lichess --boards-dir ../shared/boards/lichess\n\n\
Dataset pictures come with data/dev/manifest.jsonl: the ground truth of every picture (see docs/manifest.md).")]
pub struct RenderArgs {
    /// The position: a FEN or just its placement field.
    #[arg(required_unless_present = "dataset", conflicts_with = "dataset")]
    fen: Option<String>,

    /// Output file: .png or .svg.
    #[arg(short, long, required_unless_present = "dataset")]
    output: Option<PathBuf>,

    /// Board size in pixels (the 8x8 playing area).
    #[arg(long, default_value_t = 512)]
    size: u32,

    /// Draw Black at the bottom.
    #[arg(long)]
    flip: bool,

    /// Board theme: brown, green, blue, blue2, grey, light-grey, purple, purple2, wood, tan, olive,
    /// ic, coral, wikipedia, dark; book (printed diagram); or an image file used as a texture.
    #[arg(long, default_value = "brown")]
    theme: String,

    /// A folder of wK.svg ... bP.svg to draw the pieces with (default: the built-in cburnett set).
    #[arg(long, value_name = "DIR")]
    pieces: Option<PathBuf>,

    /// Coordinates: inside the edge squares, in a margin outside, or none.
    #[arg(long, default_value = "none")]
    coords: Coords,

    /// Squares to highlight, e.g. e2,e4 (a last move).
    #[arg(long, value_delimiter = ',', value_name = "SQUARES")]
    highlight: Vec<String>,

    /// Arrows, e.g. e2e4 (repeat or separate with commas).
    #[arg(long, value_delimiter = ',', value_name = "FROMTO")]
    arrow: Vec<String>,

    /// Circles around squares, e.g. d5.
    #[arg(long, value_delimiter = ',', value_name = "SQUARES")]
    circle: Vec<String>,

    /// Move hints as lichess draws them while a piece is picked up, e.g. e3,e4: a dot on an
    /// empty square, shaded corners around a piece.
    #[arg(long, value_delimiter = ',', value_name = "SQUARES")]
    hint: Vec<String>,

    /// A red check glow under this square (a king's square).
    #[arg(long, value_name = "SQUARE")]
    check: Option<String>,

    /// Write a dataset into this folder instead: pictures plus manifest.jsonl.
    #[arg(long, value_name = "DIR")]
    dataset: Option<PathBuf>,

    /// Number of dataset pictures.
    #[arg(long, default_value_t = 100)]
    count: usize,

    /// Random seed: the same seed gives the same pictures, byte for byte.
    #[arg(long, default_value_t = 1)]
    seed: u64,

    /// A folder of piece-set folders (like ../shared/pieces/lichess) to draw datasets with.
    #[arg(long, value_name = "DIR")]
    pieces_root: Option<PathBuf>,

    /// Piece sets under --pieces-root to leave out (held out for evaluation).
    #[arg(long, value_delimiter = ',', value_name = "SETS")]
    exclude_sets: Vec<String>,

    /// Use only these piece sets under --pieces-root.
    #[arg(long, value_delimiter = ',', value_name = "SETS")]
    only_sets: Vec<String>,

    /// A folder of whole-board textures (like ../shared/boards/lichess) for datasets.
    #[arg(long, value_name = "DIR")]
    boards_dir: Option<PathBuf>,

    /// Picture kinds to mix, in turn.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "clean,overlay,screenshot,photo,book,small"
    )]
    mix: Vec<Category>,
}

fn parse_square(text: &str) -> Result<Square> {
    text.trim()
        .parse::<Square>()
        .map_err(|_| anyhow::anyhow!("{text:?} is not a square (like e4)"))
}

/// Runs `fenlens render`.
pub fn run(args: RenderArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.dataset {
        return dataset(&args, dir);
    }
    let (Some(fen), Some(output)) = (&args.fen, &args.output) else {
        bail!("give a FEN and -o FILE, or --dataset DIR");
    };
    let reading = fenlens_fen::read(fen.as_bytes());
    let Some(setup) = reading.setup else {
        let problems: Vec<String> = reading
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| format!("  {}: {}", d.location, d.message))
            .collect();
        bail!("cannot read the FEN:\n{}", problems.join("\n"));
    };
    let pieces = match &args.pieces {
        Some(dir) => PieceSet::load(dir)?,
        None => PieceSet::builtin(),
    };
    let look = match args.theme.as_str() {
        "book" => BoardLook::Book {
            hatch: Hatch::Diagonal,
        },
        name => match BoardLook::flat(name) {
            Some(look) => look,
            None if Path::new(name).is_file() => BoardLook::texture(Path::new(name))?,
            None => bail!(
                "unknown theme {name:?}: use a theme name (see --help), \"book\", or an image file"
            ),
        },
    };
    let style = BoardStyle {
        look,
        coords: args.coords,
        flipped: args.flip,
        highlights: args
            .highlight
            .iter()
            .map(|s| Ok((parse_square(s)?, LICHESS_MOVE)))
            .collect::<Result<_>>()?,
        arrows: args
            .arrow
            .iter()
            .map(|s| {
                let s = s.trim();
                if s.len() != 4 {
                    bail!("{s:?} is not an arrow like e2e4");
                }
                Ok((parse_square(&s[..2])?, parse_square(&s[2..])?, ARROW_GREEN))
            })
            .collect::<Result<_>>()?,
        circles: args
            .circle
            .iter()
            .map(|s| Ok((parse_square(s)?, ARROW_GREEN)))
            .collect::<Result<_>>()?,
        hints: args
            .hint
            .iter()
            .map(|s| {
                let square = parse_square(s)?;
                Ok(MoveHint {
                    square,
                    shape: HintShape::lichess(setup.board.piece_at(square).is_some()),
                    tint: LICHESS_HINT,
                })
            })
            .collect::<Result<_>>()?,
        check: args.check.as_deref().map(parse_square).transpose()?,
        ..BoardStyle::default()
    };
    if !(16..=4096).contains(&args.size) {
        bail!("--size must be between 16 and 4096 pixels");
    }
    let square = args.size / 8;
    let extension = output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "svg" => {
            let text = svg::board_svg(&setup.board, &style, &pieces, square)?;
            std::fs::write(output, text)
                .with_context(|| format!("writing {}", output.display()))?;
        }
        "png" => {
            let drawn = draw_board(&setup.board, &style, &pieces, square);
            drawn
                .pixmap
                .save_png(output)
                .with_context(|| format!("writing {}", output.display()))?;
        }
        _ => bail!("{}: the output must end in .png or .svg", output.display()),
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads the piece sets for a dataset.
pub fn load_library(
    pieces_root: Option<&Path>,
    only: &[String],
    exclude: &[String],
    boards_dir: Option<&Path>,
) -> Result<Library> {
    let mut library = Library::builtin();
    if let Some(root) = pieces_root {
        let mut sets = Vec::new();
        for dir in pieces::list_sets(root)? {
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if exclude.contains(&name) || (!only.is_empty() && !only.contains(&name)) {
                continue;
            }
            sets.push(Arc::new(PieceSet::load(&dir)?));
        }
        if sets.is_empty() {
            bail!("no piece sets left under {}", root.display());
        }
        library.piece_sets = sets;
    }
    if let Some(dir) = boards_dir {
        library.add_textures(dir)?;
    }
    Ok(library)
}

fn dataset(args: &RenderArgs, dir: &Path) -> Result<ExitCode> {
    if args.mix.is_empty() {
        bail!("--mix needs at least one category");
    }
    let library = load_library(
        args.pieces_root.as_deref(),
        &args.only_sets,
        &args.exclude_sets,
        args.boards_dir.as_deref(),
    )?;
    let options = DatasetOptions {
        count: args.count,
        seed: args.seed,
        mix: args.mix.clone(),
        library,
    };
    let bar = progress_bar(args.count as u64, "rendering");
    let entries = fenlens_render::generate(dir, &options, &|| bar.inc(1))?;
    bar.finish_and_clear();
    eprintln!(
        "wrote {} pictures and manifest.jsonl to {}",
        entries.len(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// A progress bar on stderr when it is a terminal; hidden otherwise.
pub fn progress_bar(total: u64, what: &str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:40}] {pos}/{len} ({per_sec}, {eta} left)",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}
