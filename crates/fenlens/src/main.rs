//! `fenlens`: the command-line face of the fenlens library.
//!
//! A thin layer: it parses arguments, reads inputs, calls the library, and prints. Exit codes:
//! 0 when every input is fine, 1 when any is not, 2 on usage errors.

mod annotate;
mod check_cmd;
mod eval_cmd;
mod recognize_cmd;
mod render_cmd;
mod serve;
mod style;
#[cfg(feature = "train")]
mod train_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Read chess positions out of pictures as FEN, and check any FEN.
#[derive(Parser, Debug)]
#[command(name = "fenlens", version, about, long_about = None)]
#[command(after_help = "Examples:\n  \
    fenlens check 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'\n  \
    fenlens check --json positions.fen\n  \
    fenlens render 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1' -o board.png\n  \
    cat positions.fen | fenlens check --fix -")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Read chess positions out of pictures: one FEN line per picture.
    Recognize(recognize_cmd::RecognizeArgs),
    /// Check FENs: show the board and explain, in plain words, what is wrong and how to fix it.
    Check(check_cmd::CheckArgs),
    /// Draw a position as PNG or SVG, or write a synthetic dataset with ground truth.
    Render(Box<render_cmd::RenderArgs>),
    /// Train the square classifier from rendered boards (outside CI; see models/README.md).
    #[cfg(feature = "train")]
    Train(train_cmd::TrainArgs),
    /// Train the square classifier (this build has no trainer: build fenlens with `--features
    /// train`; see models/README.md).
    #[cfg(not(feature = "train"))]
    Train(NoTrainer),
    /// Measure recognition on a dataset's manifest.jsonl, per category.
    Eval(eval_cmd::EvalArgs),
    /// Serve the browser page and the HTTP API (check, correct, recognize pictures).
    Serve(serve::ServeArgs),
}

/// `fenlens train`'s arguments in a build without the trainer: taken as they come, since the
/// command only says how to build one that has it.
#[cfg(not(feature = "train"))]
#[derive(clap::Args, Debug)]
struct NoTrainer {
    #[arg(hide = true, trailing_var_arg = true, allow_hyphen_values = true)]
    ignored: Vec<String>,
}

/// The message of `fenlens train` in a build without the trainer (recognition does not need
/// candle, which training runs on, so the trainer is a cargo feature).
#[cfg(not(feature = "train"))]
fn no_trainer() -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "this fenlens was built without the trainer; build one with it: \
         cargo build --release -p fenlens --features train (see models/README.md)"
    )
}

/// Keeps freed memory in the process for reuse instead of handing large blocks back to the
/// kernel on every free (glibc's default above 128 KiB, growing to 32 MiB): a batch of crops
/// and each layer's activations are allocated again for every picture and every training
/// step, and each time the pages were faulted in afresh. Measured on 2 cores: 300 training
/// steps 38 s -> 27 s, one 800 px picture 27.5 -> 26.4 ms. (mimalloc was tried: 30 s and 28.7
/// ms, and three times the memory in a batch.)
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes the allocator's thresholds; it is called first thing in
    // `main`, before any other thread allocates.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

/// Whether an error comes from writing to a pipe whose reader has gone.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Recognize(args) => recognize_cmd::run(args),
        Command::Check(args) => check_cmd::run(args),
        Command::Render(args) => render_cmd::run(*args),
        #[cfg(feature = "train")]
        Command::Train(args) => train_cmd::run(args),
        #[cfg(not(feature = "train"))]
        Command::Train(_) => no_trainer(),
        Command::Eval(args) => eval_cmd::run(args),
        Command::Serve(args) => serve::run(args),
    };
    match result {
        Ok(code) => code,
        // A reader that stops early (`| head`) is not a failure: stop quietly, as other
        // Unix tools do.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fenlens: {error:#}");
            ExitCode::from(2)
        }
    }
}
