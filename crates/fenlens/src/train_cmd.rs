//! `fenlens train`: train the square classifier from rendered boards and write its weights.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use fenlens_vision::train::{TrainOptions, train};

use crate::render_cmd::{load_library, progress_bar};

/// Arguments of `fenlens train`.
#[derive(Args, Debug)]
#[command(after_help = "Examples (models/README.md has the measurements):\n  \
    # the shipped model, all piece sets:\n  \
    RAYON_NUM_THREADS=2 fenlens train --pieces-root ../shared/pieces/lichess --boards-dir ../shared/boards/lichess \\\n      \
    --steps 9000 --seed 1 -o models/square-net.safetensors\n  \
    # the same recipe with five sets held out, to measure it honestly on them:\n  \
    RAYON_NUM_THREADS=2 fenlens train --pieces-root ../shared/pieces/lichess --boards-dir ../shared/boards/lichess \\\n      \
    --exclude-sets merida,chessnut,fantasy,governor,staunty --steps 9000 --seed 1 -o models/square-net-heldout.safetensors")]
pub struct TrainArgs {
    /// Where to write the weights (safetensors).
    #[arg(short, long, default_value = "models/square-net.safetensors")]
    output: PathBuf,
    /// A folder of piece-set folders to train on.
    #[arg(long, value_name = "DIR")]
    pieces_root: Option<PathBuf>,
    /// Piece sets to hold out (not trained on), for an honest estimate.
    #[arg(long, value_delimiter = ',', value_name = "SETS")]
    exclude_sets: Vec<String>,
    /// A folder of whole-board textures.
    #[arg(long, value_name = "DIR")]
    boards_dir: Option<PathBuf>,
    /// Optimizer steps.
    #[arg(long, default_value_t = 9000)]
    steps: usize,
    /// Boards per step (64 squares each).
    #[arg(long, default_value_t = 4)]
    boards_per_step: usize,
    /// Initial learning rate.
    #[arg(long, default_value_t = 0.002)]
    learning_rate: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `fenlens train`.
pub fn run(args: TrainArgs) -> Result<ExitCode> {
    let library = load_library(
        args.pieces_root.as_deref(),
        &[],
        &args.exclude_sets,
        args.boards_dir.as_deref(),
    )?;
    let sets: Vec<&str> = library.piece_sets.iter().map(|s| s.name()).collect();
    eprintln!("training on {} piece sets: {}", sets.len(), sets.join(", "));
    let options = TrainOptions {
        steps: args.steps,
        boards_per_step: args.boards_per_step,
        learning_rate: args.learning_rate,
        seed: args.seed,
        library,
    };
    let bar = progress_bar(args.steps as u64, "training");
    let started = Instant::now();
    let weights = train(&options, |p| {
        bar.set_position(p.step as u64);
        let line = format!(
            "step {:>6}  loss {:.4}  square accuracy {:.4}  ({:.0} s)",
            p.step,
            p.loss,
            p.accuracy,
            started.elapsed().as_secs_f32()
        );
        if bar.is_hidden() {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
    })?;
    bar.finish_and_clear();
    if let Some(parent) = args.output.parent() {
        std::fs::create_dir_all(parent).ok();
    }
    std::fs::write(&args.output, weights)
        .with_context(|| format!("writing {}", args.output.display()))?;
    eprintln!(
        "wrote {} after {:.0} s",
        args.output.display(),
        started.elapsed().as_secs_f32()
    );
    Ok(ExitCode::SUCCESS)
}
