//! `fenlens train`: train the square classifier from rendered boards and write its weights.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use fenlens_vision::classify::NetShape;
use fenlens_vision::train::{DataRecipe, TrainOptions, train};

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
    /// Channels of the three convolutions (the weights file records them; recognition reads
    /// them back).
    #[arg(
        long,
        value_delimiter = ',',
        num_args = 1,
        value_name = "C1,C2,C3",
        default_value = "16,32,64"
    )]
    channels: Vec<usize>,
    /// Units of the hidden layer.
    #[arg(long, default_value_t = 64)]
    hidden: usize,
    /// Largest change of the pieces' dark strokes in the training pictures, in pixels: 1 (the
    /// shipped recipe) or 2 (also thicker by two on large drawings; an experiment, see
    /// models/README.md).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i8).range(1..=2))]
    max_stroke: i8,
    /// Change the roles' proportions against each other on a quarter of the training boards
    /// (pawns down to half as wide, other roles 75-110% as wide), so that a pawn is told by its
    /// head rather than by lichess's squat proportions (the shipped recipe; see
    /// models/README.md).
    #[arg(long)]
    role_stretch: bool,
    /// With --role-stretch, on half of its boards draw pawns in proportions no lichess design
    /// has: tall and thin like the pawns of classic book fonts (Leipzig's stand as tall as
    /// their kings), or broad; bishops a little shorter (the shipped recipe since the
    /// sixteenth session; see models/README.md).
    #[arg(long, requires = "role_stretch")]
    pawn_shapes: bool,
    /// Patterned piece fills on a sixth of the training boards: stripes across the fills
    /// (hatched font designs) and fills shaded from top to bottom (glossy and metal designs);
    /// see models/README.md.
    #[arg(long)]
    fill_patterns: bool,
    /// Bend the piece drawings smoothly on a sixth of the training boards (by 2-6% of their
    /// size, along two sine waves), so that parts of a piece grow or shrink against the rest as
    /// between designs; see models/README.md.
    #[arg(long)]
    warp: bool,
    /// Draw the pieces coarse on a sixth of the training boards: 1.5-3.5 times smaller with
    /// hard edges, enlarged back by repeating pixels, as old programs' and chess fonts' small
    /// bitmaps look on a large board; see models/README.md.
    #[arg(long)]
    pixelate: bool,
    /// Reduce the pieces to their outline on a sixth of the training boards (white pieces a
    /// light fill inside a dark rim, black pieces solid dark), so that a piece is told by its
    /// outline where a design's insides are unlike any known one's; see models/README.md.
    #[arg(long)]
    silhouettes: bool,
    /// Make a quarter of the training boards thumbnails, squares of 7-18 pixels (boards of
    /// 56-144 pixels); see models/README.md.
    #[arg(long)]
    small_boards: bool,
    /// Draw the pieces small (55-80% of the square) on a quarter of the training boards, as
    /// designs with wide margins stand in their squares; see models/README.md.
    #[arg(long)]
    small_pieces: bool,
    /// Filter the crops of half of the training boards whose squares are drawn 20 pixels or
    /// more with a random 3x3 or 5x5 kernel that keeps flat greys (random convolutions), so
    /// that strokes and fills take textures no design has; see models/README.md.
    #[arg(long)]
    random_filters: bool,
    /// Hide part of the square on a quarter of the training crops (random erasing: a flat
    /// grey rectangle over 3-25% of it), so that no single part of a piece has to carry its
    /// reading alone; see models/README.md.
    #[arg(long)]
    erase: bool,
    /// Draw move hints on a fifth of the screen boards: dots on empty squares and rings or
    /// shaded corners around pieces, as lichess and chess.com show them while a piece is
    /// picked up, so that a dot is read as an empty square; see models/README.md.
    #[arg(long)]
    move_hints: bool,
    /// Catch 1-3 pieces mid-drag on half of the screen boards: a faint ghost (20-50%
    /// opacity) on each one's square, read as the piece (the position before the move), and
    /// the piece itself whole 0.3-1.2 squares away, over squares read as what stands under it;
    /// see models/README.md.
    #[arg(long)]
    dragged: bool,
    /// Give 30% of the training boards a photographed screen's light: moiré, a glare spot,
    /// light falling off across the board and motion blur, as the renderer's photographs
    /// have them; see models/README.md.
    #[arg(long)]
    photo_effects: bool,
    /// Share of the steps (0-1) on which the first two layers' feature statistics (each
    /// channel's mean and spread) are mixed between squares holding the same piece on
    /// different boards (MixStyle), so that the network leans less on one design's strokes and
    /// shading; see models/README.md.
    #[arg(long, default_value_t = 0.0, value_name = "SHARE", value_parser = share)]
    mix_style: f64,
    /// Share of the steps not mixed (0-1) on which the same statistics are instead moved at
    /// random, each by a normal draw times its spread across the batch (DSU), so that the
    /// network meets styles beyond the training designs' blends; see models/README.md.
    #[arg(long, default_value_t = 0.0, value_name = "SHARE", value_parser = share)]
    style_noise: f64,
    /// Dropout (0-1): the share of the last convolution's features and of the hidden units
    /// zeroed at random in each training step, so that no single cue of a piece decides alone;
    /// see models/README.md.
    #[arg(long, default_value_t = 0.0, value_name = "SHARE", value_parser = share)]
    dropout: f64,
    /// Threads rendering training boards. 1 (the default) gives the data stream of the shipped
    /// recipe; on a machine with many cores, 2-3 keep the network from waiting on the renderer
    /// (another stream, as deterministic: a seed and a thread count give the same data).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    render_threads: u16,
    /// Also write the weights to the output file every N steps while training, so that a run
    /// stopped early leaves its latest weights (0: only at the end).
    #[arg(long, default_value_t = 0, value_name = "N")]
    save_every: usize,
    /// Go on from these weights (a run stopped early, see --save-every) instead of starting
    /// afresh; needs --from-step. The optimizer's moments start afresh.
    #[arg(long, value_name = "WEIGHTS", requires = "from_step")]
    resume: Option<PathBuf>,
    /// The step the --resume weights were saved at: training runs from there to --steps, on
    /// the same learning-rate schedule.
    #[arg(long, value_name = "STEP", requires = "resume")]
    from_step: Option<usize>,
    /// Also write the average of the weights from --average-from on (every 10 steps) to this
    /// file: stochastic weight averaging. The output file keeps the last step's weights.
    #[arg(long, value_name = "WEIGHTS", requires = "average_from")]
    average_out: Option<PathBuf>,
    /// The step from which --average-out averages the weights.
    #[arg(long, value_name = "STEP", requires = "average_out")]
    average_from: Option<usize>,
    /// From this step on keep the learning rate at its value there instead of letting it
    /// decay further (for --average-out, which averages best over a flat rate).
    #[arg(long, value_name = "STEP")]
    flat_from: Option<usize>,
}

/// Parses a share, a number from 0 to 1.
fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!(
            "expected a share from 0 to 1, such as 0.5 (got {text})"
        )),
    }
}

/// Runs `fenlens train`.
pub fn run(args: TrainArgs) -> Result<ExitCode> {
    count_threads_once();
    let shape = match args.channels[..] {
        [c1, c2, c3]
            if [c1, c2, c3, args.hidden]
                .iter()
                .all(|&w| (1..=512).contains(&w)) =>
        {
            NetShape {
                channels: [c1, c2, c3],
                hidden: args.hidden,
            }
        }
        _ => anyhow::bail!(
            "--channels takes three widths and --hidden one, each 1-512 (got {:?} and {})",
            args.channels,
            args.hidden
        ),
    };
    eprintln!(
        "network: {}/{}/{} channels, {} hidden units, {} multiply-adds a square",
        shape.channels[0],
        shape.channels[1],
        shape.channels[2],
        shape.hidden,
        shape.multiply_adds()
    );
    if let Some(from) = args.average_from.filter(|&from| from > args.steps) {
        anyhow::bail!(
            "--average-from {from} is after the last step (--steps {}): nothing would be averaged",
            args.steps
        );
    }
    let library = load_library(
        args.pieces_root.as_deref(),
        &[],
        &args.exclude_sets,
        args.boards_dir.as_deref(),
    )?;
    let sets: Vec<&str> = library.piece_sets.iter().map(|s| s.name()).collect();
    eprintln!("training on {} piece sets: {}", sets.len(), sets.join(", "));
    let options = TrainOptions {
        shape,
        recipe: DataRecipe {
            max_stroke: args.max_stroke,
            role_stretch: args.role_stretch,
            pawn_shapes: args.pawn_shapes,
            fill_patterns: args.fill_patterns,
            warp: args.warp,
            pixelate: args.pixelate,
            silhouettes: args.silhouettes,
            small_boards: args.small_boards,
            small_pieces: args.small_pieces,
            random_filters: args.random_filters,
            erase: args.erase,
            move_hints: args.move_hints,
            dragged: args.dragged,
            photo_effects: args.photo_effects,
        },
        steps: args.steps,
        boards_per_step: args.boards_per_step,
        learning_rate: args.learning_rate,
        seed: args.seed,
        library,
        render_threads: usize::from(args.render_threads),
        checkpoint: (args.save_every > 0).then(|| (args.output.clone(), args.save_every)),
        resume: args.resume.clone().zip(args.from_step),
        mix_style: args.mix_style,
        style_noise: args.style_noise,
        dropout: args.dropout as f32,
        average: args.average_from.zip(args.average_out.clone()),
        flat_from: args.flat_from,
    };
    if let Some(parent) = args.output.parent() {
        std::fs::create_dir_all(parent).ok();
    }
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
    std::fs::write(&args.output, weights)
        .with_context(|| format!("writing {}", args.output.display()))?;
    eprintln!(
        "wrote {} after {:.0} s",
        args.output.display(),
        started.elapsed().as_secs_f32()
    );
    Ok(ExitCode::SUCCESS)
}

/// Sets `RAYON_NUM_THREADS` to the number of cores this process may use, unless the user set
/// it. Rayon's pool gets the same size as without it, but candle, which only training runs,
/// asks for its thread count on every matrix product, and without the variable it answers by
/// reading `/proc/cpuinfo` each time (265 reads for one picture when recognition still ran in
/// candle: 4-5 ms of a 33 ms run on 2 cores). Candle's own workers, which spin while they
/// wait, are left to the user's `CANDLE_NUM_THREADS`: the committed weights were trained with
/// them.
fn count_threads_once() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        // SAFETY: called first thing in `run`, which `main` calls before any other thread
        // exists, so nothing reads the environment concurrently.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", threads.to_string()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_a_number_from_0_to_1() {
        assert_eq!(share("0.5"), Ok(0.5));
        assert_eq!(share("0"), Ok(0.0));
        assert_eq!(share("1"), Ok(1.0));
        for bad in ["2", "-0.1", "half", "NaN", ""] {
            assert!(share(bad).is_err(), "{bad}");
        }
    }
}
