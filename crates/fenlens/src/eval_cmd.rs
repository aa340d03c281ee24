//! `fenlens eval DIR`: run the whole pipeline over a dataset's `manifest.jsonl` and report, per
//! category, how often boards come out exactly right and where the errors are.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use fenlens_fen::shakmaty::{Board, Square};
use fenlens_vision::classify::{class_char, piece_class};
use fenlens_vision::compose::UNCERTAIN_BELOW;
use fenlens_vision::{Options, Recognizer};
use rayon::prelude::*;
use serde::Deserialize;

use crate::recognize_cmd::load_classifier;
use crate::render_cmd::progress_bar;

/// Arguments of `fenlens eval`.
#[derive(Args, Debug)]
#[command(
    after_help = "The manifest format is the renderer's (docs/manifest.md); the devset's subset\n\
(file, category, placement, flipped) works too. Example:\n  \
    fenlens render --dataset data/heldout --count 600 --seed 99 --pieces-root ../shared/pieces/lichess --only-sets merida,chessnut,fantasy,governor,staunty\n  \
    fenlens eval data/heldout\n\n\
Columns: found (a board was located), exact (every square right, orientation included),\n\
squares, orient, corner% (mean corner error, % of the board's side), flags/b (uncertain\n\
squares a board), flagged (of the squares read wrong on boards turned the right way, the\n\
share listed as uncertain), or.unsure (of the boards turned the wrong way, the share whose\n\
orientation confidence is under 0.9), ms/pic, and the commonest confusions."
)]
pub struct EvalArgs {
    /// A dataset folder holding manifest.jsonl.
    dir: PathBuf,
    /// Evaluate at most this many pictures.
    #[arg(long)]
    limit: Option<usize>,
    /// Print one line per wrong board: its first six wrong squares as `e4:P->B`, with a `?`
    /// after those the recognizer listed as uncertain.
    #[arg(long)]
    verbose: bool,
    /// Use the ground-truth corners instead of the locator (to measure the classifier alone).
    #[arg(long)]
    true_corners: bool,
    /// Evaluate these weights (a safetensors file from `fenlens train`) instead of the four
    /// built-in ones; several, separated by commas, are averaged (beyond the first two, only on
    /// the squares those leave unsure).
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    model: Vec<PathBuf>,
    /// Do not average each square with its mirror image (the default does; this measures the
    /// network alone).
    #[arg(long)]
    no_mirror: bool,
    /// Do not weigh knights against rooks, queens and pawns by their outline's symmetry (the
    /// default does; this measures the pipeline without that check).
    #[arg(long)]
    no_symmetry: bool,
    /// Do not pool the readings of squares that look alike (the default does; this measures
    /// the pipeline without it).
    #[arg(long)]
    no_alike: bool,
    /// Do not keep a group of alike squares from classes that allow fewer copies on squares
    /// of one colour, such as two bishops (the default does; this measures the pipeline
    /// without it).
    #[arg(long)]
    no_group_caps: bool,
    /// Do not flag the kings and checkers of a check no game can reach, such as both kings in
    /// check (the default does; this measures the pipeline without those flags).
    #[arg(long)]
    no_check_flags: bool,
    /// Do not look again at unsure squares cut a pixel higher and lower (the default does;
    /// this measures the pipeline without those looks).
    #[arg(long)]
    no_shift: bool,
    /// Do not look again at unsure squares from further away (the default does where that look
    /// reads them more surely; this measures the pipeline without it).
    #[arg(long)]
    no_zoom: bool,
    /// Run the network on blank squares too, those whose inside is one flat grey (the default
    /// gives them "empty" unread; this measures the network on every square).
    #[arg(long)]
    no_blank_skip: bool,
    /// Do not weigh readings by what each square holds in games (the default does; this
    /// measures the pipeline without that prior).
    #[arg(long)]
    no_prior: bool,
    /// Do not weigh the confidences by what the rest of the board allows (a second king, a
    /// third rook; the default does; this measures the flags without it).
    #[arg(long)]
    no_facts: bool,
    /// Also flag the squares on which the models of an ensemble disagree (the default has not
    /// since the twenty-sixth session; this measures the flags with them).
    #[arg(long)]
    contested: bool,
    /// Do not flag the pieces read short of sure (under 0.9999) on boards where four or more
    /// pieces are uncertain already (the default does; this measures the flags without it).
    #[arg(long)]
    no_design_doubt: bool,
    /// Also flag the pieces that break the counts (a second king, a third rook) on boards whose
    /// pieces stand as no game leaves them, whose design is not doubted and which break what a
    /// misread game keeps (one king a side, at most 16 pieces a side), such as random
    /// placements read surely (the default has not since the thirty-eighth session; this
    /// measures the flags with them).
    #[arg(long)]
    scattered_flags: bool,
    /// Do not compose such boards again with the position prior weighing more (the default
    /// does; this measures the pipeline without it).
    #[arg(long)]
    no_doubted_prior: bool,
    /// Do not read the copies of a drawing misread on every copy again from where they stand
    /// (eight "bishops" along the second rank read as pawns; the default does on boards whose
    /// design is doubted or whose reading breaks the counts; this measures the pipeline without
    /// it).
    #[arg(long)]
    no_relabel: bool,
    /// Leave drawings that plainly differ but read as one piece as they are (by default one of
    /// them is read again as another piece; this measures the pipeline without it).
    #[arg(long)]
    no_separate: bool,
    /// Leave what the drawings read again left on boards that look like a game as it is: a
    /// pawn on a back rank, nine pawns of a side, pieces no promotion explains, a side with no
    /// king or two (by default those are settled once more; this measures the pipeline without
    /// it).
    #[arg(long)]
    no_settle_again: bool,
    /// Leave each side's king where the composer read it (by default a king read on one drawing
    /// while the other side's king is drawn like another of that side moves to that one; this
    /// measures the pipeline without it).
    #[arg(long)]
    no_king_twins: bool,
    /// Take only squares whose pixels repeat for copies of one drawing (by default, also those
    /// the networks' hidden units see alike; this measures the pipeline without it).
    #[arg(long)]
    no_unit_links: bool,
    /// Do not report as uncertain the squares read as a piece their own crop gave under half
    /// (by default they are; this measures the pipeline without it).
    #[arg(long)]
    no_borrowed_flags: bool,
    /// Weigh the position prior more on a doubted board only when its first reading is at least
    /// this game-like (the mean log ratio of how often games hold each piece on its square;
    /// default: the built-in threshold; a large negative number weighs on every doubted board).
    #[arg(long, allow_hyphen_values = true)]
    doubted_prior_from: Option<f32>,
    /// Do not read the orientation from rank digits inside an edge column or beside the board
    /// (the default does; this measures the orientation without them).
    #[arg(long)]
    no_ranks: bool,
    /// Do not look for boards whose pieces lie on their sides or stand on their heads (a board
    /// turned more than 45 degrees in the picture; the default reads such a board again turned
    /// upright; this measures the pipeline without it).
    #[arg(long)]
    no_turn: bool,
    /// Count a square as flagged below this probability instead of the built-in threshold (to
    /// choose the threshold).
    #[arg(long, value_name = "P")]
    uncertain_below: Option<f32>,
}

#[derive(Deserialize)]
struct Entry {
    file: String,
    category: String,
    placement: String,
    #[serde(default)]
    flipped: bool,
    #[serde(default)]
    corners: Option<[[f32; 2]; 4]>,
    #[serde(default)]
    boards: Vec<TruthBoard>,
}

#[derive(Deserialize, Clone)]
struct TruthBoard {
    placement: String,
    flipped: bool,
    corners: [[f32; 2]; 4],
    #[serde(default)]
    position: Option<String>,
    #[serde(default)]
    coords: Option<String>,
    #[serde(default)]
    pieces: Option<String>,
}

/// A board's orientation counts as unsure (for the `or.unsure` column) under this confidence.
const ORIENTATION_UNSURE_BELOW: f32 = 0.9;

#[derive(Default)]
struct Tally {
    pictures: usize,
    found: usize,
    exact: usize,
    squares: usize,
    squares_right: usize,
    oriented_right: usize,
    corner_error: f32,
    corner_count: usize,
    flags: usize,
    /// Squares read wrong on boards turned the right way.
    wrong_squares: usize,
    wrong_flagged: usize,
    /// Boards turned the wrong way, and those of them whose orientation was unsure.
    misoriented: usize,
    misoriented_unsure: usize,
    seconds: f64,
    confusions: BTreeMap<(char, char), usize>,
}

impl Tally {
    /// Counts one board that was found.
    fn add(&mut self, result: &Scored) {
        self.found += 1;
        self.exact += usize::from(result.exact);
        self.squares += 64;
        self.squares_right += 64 - result.wrong.len();
        self.oriented_right += usize::from(result.oriented_right);
        if let Some(e) = result.corner_error {
            self.corner_error += e;
            self.corner_count += 1;
        }
        self.flags += result.flags;
        // A board turned the wrong way has most squares wrong without any being misread: it
        // counts against the orientation confidence, not the squares'.
        if result.oriented_right {
            self.wrong_squares += result.wrong.len();
            self.wrong_flagged += result.wrong.iter().filter(|w| w.flagged).count();
        } else {
            self.misoriented += 1;
            self.misoriented_unsure +=
                usize::from(result.orientation_confidence < ORIENTATION_UNSURE_BELOW);
        }
        for w in &result.wrong {
            *self.confusions.entry((w.truth, w.read)).or_default() += 1;
        }
    }
}

fn parse_board(placement: &str) -> Option<Board> {
    let reading = fenlens_fen::read(placement.as_bytes());
    reading.setup.map(|s| s.board)
}

/// Runs `fenlens eval`.
pub fn run(args: EvalArgs) -> Result<ExitCode> {
    let manifest = args.dir.join("manifest.jsonl");
    let file = std::fs::File::open(&manifest)
        .with_context(|| format!("opening {}", manifest.display()))?;
    let mut entries = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = serde_json::from_str(&line)
            .with_context(|| format!("{} line {}", manifest.display(), number + 1))?;
        entries.push(entry);
    }
    if let Some(limit) = args.limit {
        entries.truncate(limit);
    }
    if entries.is_empty() {
        bail!("{} lists no pictures", manifest.display());
    }
    let classifier = load_classifier(&args.model)?;
    let classifier = classifier
        .with_mirror_averaging(!args.no_mirror)
        .with_shifted_looks(!args.no_shift)
        .with_zoomed_look(!args.no_zoom)
        .with_blank_skip(!args.no_blank_skip);
    let recognizer = Recognizer::with_classifier(classifier)
        .with_symmetry_check(!args.no_symmetry)
        .with_alike_pooling(!args.no_alike)
        .with_group_caps(!args.no_group_caps)
        .with_check_flags(!args.no_check_flags)
        .with_position_prior(!args.no_prior)
        .with_fact_weighing(!args.no_facts)
        .with_contested_flags(args.contested)
        .with_doubted_design_flags(!args.no_design_doubt)
        .with_scattered_flags(args.scattered_flags)
        .with_doubted_prior(!args.no_doubted_prior)
        .with_relabel(!args.no_relabel)
        .with_separation(!args.no_separate)
        .with_king_twins(!args.no_king_twins)
        .with_facts_settled_again(!args.no_settle_again)
        .with_unit_links(!args.no_unit_links)
        .with_borrowed_flags(!args.no_borrowed_flags)
        .with_doubted_prior_from(
            args.doubted_prior_from
                .unwrap_or(fenlens_vision::prior::GAME_LIKE_FROM),
        )
        .with_rank_digits(!args.no_ranks)
        .with_turn_check(!args.no_turn);
    let bar = progress_bar(entries.len() as u64, "evaluating");
    let started = Instant::now();
    let outcomes: Vec<(Vec<String>, Outcome)> = entries
        .par_iter()
        .map(|entry| {
            let outcome = evaluate(&recognizer, &args, entry);
            bar.inc(1);
            // Rows: the category, the position sampler, the coordinates (orientation depends on
            // them), the piece set, and all.
            let mut keys = vec![entry.category.clone(), "all".to_string()];
            if let Some(kind) = entry.boards.first().and_then(|b| b.position.clone()) {
                keys.push(format!("pos:{kind}"));
            }
            // Coordinates drawn or not (orientation can be read from them).
            if let Some(coords) = entry.boards.first().and_then(|b| b.coords.clone()) {
                keys.push(format!("coords:{coords}"));
            }
            // The piece set, to see which designs are hard.
            if let Some(pieces) = entry.boards.first().and_then(|b| b.pieces.clone()) {
                keys.push(format!("set:{pieces}"));
            }
            (keys, outcome)
        })
        .collect();
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();

    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for (keys, outcome) in &outcomes {
        for key in keys {
            let t = tallies.entry(key.clone()).or_default();
            t.pictures += 1;
            t.seconds += outcome.seconds;
            let Some(result) = &outcome.result else {
                continue;
            };
            t.add(result);
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.verbose {
        for ((keys, outcome), entry) in outcomes.iter().zip(&entries) {
            let category = &keys[0];
            match &outcome.result {
                None => writeln!(
                    out,
                    "{category} {}: {}",
                    entry.file,
                    outcome.error.as_deref().unwrap_or("failed")
                )?,
                Some(r) if !r.exact || r.corner_error.is_some_and(|e| e > 2.0) => writeln!(
                    out,
                    "{category} {}: {} wrong, corners off by {:.1}%{}{}",
                    entry.file,
                    r.wrong.len(),
                    r.corner_error.unwrap_or(0.0),
                    if r.oriented_right {
                        ""
                    } else {
                        ", orientation wrong"
                    },
                    r.wrong
                        .iter()
                        .take(6)
                        .map(|w| format!(
                            " {}:{}->{}{}",
                            w.square,
                            w.truth,
                            w.read,
                            if w.flagged { "?" } else { "" }
                        ))
                        .collect::<String>()
                )?,
                _ => {}
            }
        }
    }
    writeln!(
        out,
        "{:<12} {:>6} {:>7} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>10} {:>8}  confusions (truth->read)",
        "category",
        "boards",
        "found",
        "exact",
        "squares",
        "orient",
        "corner%",
        "flags/b",
        "flagged",
        "or.unsure",
        "ms/pic"
    )?;
    for (category, t) in &tallies {
        let pct = |a: usize, b: usize| {
            if b == 0 {
                0.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        let mut confusions: Vec<_> = t.confusions.iter().collect();
        confusions.sort_by(|a, b| b.1.cmp(a.1));
        let top: Vec<String> = confusions
            .iter()
            .take(4)
            .map(|((a, b), n)| format!("{a}->{b}:{n}"))
            .collect();
        writeln!(
            out,
            "{:<12} {:>6} {:>6.1}% {:>7.1}% {:>7.2}% {:>7.1}% {:>9} {:>8.2} {:>8.1}% {:>10} {:>8.1}  {}",
            category,
            t.pictures,
            pct(t.found, t.pictures),
            pct(t.exact, t.pictures),
            pct(t.squares_right, t.squares),
            pct(t.oriented_right, t.found),
            if t.corner_count > 0 {
                format!("{:.2}", t.corner_error / t.corner_count as f32)
            } else {
                "-".into()
            },
            if t.found > 0 {
                t.flags as f64 / t.found as f64
            } else {
                0.0
            },
            pct(t.wrong_flagged, t.wrong_squares),
            if t.misoriented > 0 {
                format!("{}/{}", t.misoriented_unsure, t.misoriented)
            } else {
                "-".into()
            },
            1000.0 * t.seconds / t.pictures.max(1) as f64,
            top.join(" ")
        )?;
    }
    writeln!(
        out,
        "{} pictures in {:.1} s ({:.1} pictures/s on {} threads)",
        outcomes.len(),
        wall,
        outcomes.len() as f64 / wall.max(1e-9),
        rayon::current_num_threads()
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

struct Wrong {
    square: Square,
    truth: char,
    read: char,
    flagged: bool,
}

struct Scored {
    exact: bool,
    oriented_right: bool,
    orientation_confidence: f32,
    corner_error: Option<f32>,
    flags: usize,
    wrong: Vec<Wrong>,
}

struct Outcome {
    result: Option<Scored>,
    error: Option<String>,
    seconds: f64,
}

fn evaluate(recognizer: &Recognizer, args: &EvalArgs, entry: &Entry) -> Outcome {
    let started = Instant::now();
    let run = || -> Result<Scored, String> {
        let bytes = std::fs::read(args.dir.join(&entry.file)).map_err(|e| e.to_string())?;
        let options = Options::default();
        let recognition = match (args.true_corners, entry.corners) {
            (true, Some(corners)) => {
                let image = fenlens_vision::decode::decode(&bytes).map_err(|e| e.to_string())?;
                recognizer
                    .recognize_at(&image, corners, &options, Default::default())
                    .map_err(|e| e.to_string())?
            }
            _ => recognizer
                .recognize_bytes(&bytes, &options)
                .map_err(|e| e.to_string())?,
        };
        // Pictures with several boards (book pages): compare with the board that was found.
        let centre = |c: &[[f32; 2]; 4]| {
            (
                c.iter().map(|p| p[0]).sum::<f32>() / 4.0,
                c.iter().map(|p| p[1]).sum::<f32>() / 4.0,
            )
        };
        let (fx, fy) = centre(&recognition.corners);
        let nearest = entry.boards.iter().min_by(|a, b| {
            let (ax, ay) = centre(&a.corners);
            let (bx, by) = centre(&b.corners);
            ((ax - fx).powi(2) + (ay - fy).powi(2))
                .total_cmp(&((bx - fx).powi(2) + (by - fy).powi(2)))
        });
        let (placement, flipped, truth_corners) = match nearest {
            Some(b) => (b.placement.as_str(), b.flipped, Some(b.corners)),
            None => (entry.placement.as_str(), entry.flipped, entry.corners),
        };
        let truth = parse_board(placement).ok_or("bad placement in manifest")?;
        let uncertain: Vec<Square> =
            recognition.uncertain_below(args.uncertain_below.unwrap_or(UNCERTAIN_BELOW));
        let wrong: Vec<Wrong> = Square::ALL
            .into_iter()
            .filter_map(|sq| {
                let t = piece_class(truth.piece_at(sq));
                let r = piece_class(recognition.placement.piece_at(sq));
                (t != r).then(|| Wrong {
                    square: sq,
                    truth: class_char(t),
                    read: class_char(r),
                    flagged: uncertain.contains(&sq),
                })
            })
            .collect();
        let corner_error = truth_corners.map(|truth_corners| {
            let side = ((truth_corners[1][0] - truth_corners[0][0]).powi(2)
                + (truth_corners[1][1] - truth_corners[0][1]).powi(2))
            .sqrt()
            .max(1.0);
            let mean = truth_corners
                .iter()
                .zip(recognition.corners.iter())
                .map(|(a, b)| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt())
                .sum::<f32>()
                / 4.0;
            100.0 * mean / side
        });
        Ok(Scored {
            exact: wrong.is_empty(),
            oriented_right: recognition.flipped == flipped,
            orientation_confidence: recognition.orientation_confidence,
            corner_error,
            flags: uncertain.len(),
            wrong,
        })
    };
    let result = run();
    Outcome {
        seconds: started.elapsed().as_secs_f64(),
        error: result.as_ref().err().cloned(),
        result: result.ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrong(square: Square, flagged: bool) -> Wrong {
        Wrong {
            square,
            truth: 'N',
            read: 'R',
            flagged,
        }
    }

    fn board(oriented_right: bool, confidence: f32, wrong: Vec<Wrong>) -> Scored {
        Scored {
            exact: wrong.is_empty(),
            oriented_right,
            orientation_confidence: confidence,
            corner_error: Some(0.1),
            flags: wrong.iter().filter(|w| w.flagged).count(),
            wrong,
        }
    }

    #[test]
    fn misread_squares_and_wrong_orientations_are_counted_apart() {
        let mut tally = Tally::default();
        // Turned the right way, two squares misread, one of them flagged.
        tally.add(&board(
            true,
            0.99,
            vec![wrong(Square::B1, true), wrong(Square::G1, false)],
        ));
        // Turned the wrong way (every square "wrong", none misread), unsure of it.
        tally.add(&board(
            false,
            0.6,
            Square::ALL
                .iter()
                .take(30)
                .map(|&sq| wrong(sq, false))
                .collect(),
        ));
        // Turned the wrong way and sure of it.
        tally.add(&board(false, 0.97, vec![wrong(Square::A1, false)]));
        tally.add(&board(true, 0.99, Vec::new()));
        assert_eq!(tally.found, 4);
        assert_eq!(tally.exact, 1);
        assert_eq!(tally.oriented_right, 2);
        assert_eq!((tally.wrong_squares, tally.wrong_flagged), (2, 1));
        assert_eq!((tally.misoriented, tally.misoriented_unsure), (2, 1));
        // Every wrong square still shows in the squares' accuracy and the confusions.
        assert_eq!(tally.squares_right, 4 * 64 - 33);
        assert_eq!(tally.confusions[&('N', 'R')], 33);
    }
}
