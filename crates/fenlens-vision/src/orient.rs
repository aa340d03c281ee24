//! Orient: is White at the bottom?
//!
//! The recognized placement is read as displayed; if the picture shows Black at the bottom, the
//! real placement is that one turned by 180 degrees.
//!
//! First the file letters, when they are drawn along the bottom edge (inside the bottom row's
//! squares or below the board): of a-h, b, d, f and h have ascenders and a, c, e, g do not, so
//! the taller letters stand in the 2nd, 4th, 6th and 8th columns when White is at the bottom and
//! in the 1st, 3rd, 5th and 7th when Black is. That holds in any Latin typeface, so no glyphs
//! need to be recognized. Inside a square the letter is the patch of ink in its corner that is
//! not joined to the piece (`letter_box`), and letters stand on one line. Every pair of an
//! even and an odd column votes, after letters whose top is far from the others' (a piece's
//! edge, a mark) are left out, so a few columns spoiled by pieces do not hide the answer. Where
//! only one colour of square shows its letters, no pair can vote, and a "g" hanging below the
//! others' line says which column it stands in; on a small board, many pairs that all differ by
//! a sampled row decide (`letter_votes`). Rank digits drawn in the top corners of an edge
//! column add their own vote ([`orient_from_ranks`]): a "1" has less ink than an "8", a "7"
//! less than a "2". On held-out designs (seeds 2026 / 777 / 77, boards with labels inside) they turned
//! 95.7 / 93.2 / 96.0% of the boards right → 95.7 / 95.4 / 96.8%, and on 900 pictures of the
//! training designs 94.3 → 94.9%, changing no board without labels (`fenlens eval --no-ranks`).
//! Where pieces hide a digit of both pairs, the digits that show are fitted against each
//! digit's typical ink both ways up (forty-third session): boards with labels inside turned
//! right, fonts 97.3 → 98.1%, held-out lichess designs (seed 202) 95.3 → 96.6%.
//! Digits drawn in a margin beside the board, centred on each row, are read too (fiftieth
//! session): no piece hides them, so most of the eight must show and their pairs and fit must
//! agree; they turn boards whose letters below are cut off or unread. And letters on a bottom
//! edge located a little askew are read once the line's tilt is taken out (`without_tilt`).
//! Sixty-seventh session: the places beside the board are read as far as the picture goes
//! (`within_picture`; python's `chessboard-image` leaves 20 pixels for its labels beside a board
//! of 600-800, less than the places reach), and letters below the board whose short ones (a,
//! c, e) end higher than the rest tell the way up by that (`short_letters_end_higher`): that
//! program hangs each letter from its top, so their tops stand level and say nothing, or, blurred,
//! the wrong thing. On its pictures (`scripts/other-programs` in its first form, without X
//! marks, seeds 69 and 70) boards with coordinates turned right 97.0 / 97.3% -> 98.9 / 98.9%.
//! The position's own evidence is then added at half weight
//! ([`combine`]), so that letters misread on a tiny board do not turn a plain opening upside
//! down, but not where the placement read could not be a game's ([`with_labels`]): there the
//! games' evidence is as sure as it is meaningless. Without letters the position decides
//! alone: how much more likely games make the readings turned than as displayed
//! ([`crate::prior::log_likelihood`]: pawns on their side's second rank, kings castled, White's
//! pieces below Black's, and every other square's habits, empty squares included), each square
//! weighed by how often games hold what it may hold there, each class by its probability (since
//! the fifty-ninth session; before, by the placement read alone, however unsure). Until the
//! thirtieth session a coarser score decided (pawns advancing, kings at
//! home, pieces on their starting squares: the one the FEN checker uses for its "board upside
//! down" warning), which reads pawns misread as bishops as nothing. The difference is weighed
//! against a prior for White at the bottom ([`UPRIGHT_PRIOR_LOG_ODDS`]), so that a sparse
//! position whose few pieces happen to stand high does not turn a board over; the confidence
//! is a logistic function of the result. Since the seventieth session a sparse reading (fewer
//! than [`crate::prior::SPARSE_BELOW`] pieces) also weighs how late endgames stand, kings
//! out of their corners, against pieces set anywhere, which leave the board upright
//! ([`orient_sparse`]).

use fenlens_fen::shakmaty::{Board, Color};
use image::RgbImage;

use crate::classify::{CLASSES, piece_class, piece_share};
use crate::compose::shown_at;
use crate::prior::{Habits, SPARSE_BELOW, log_likelihood, log_likelihood_by};
use crate::rectify::{BoardToPicture, board_to_picture, grey_level, square_pixels};

/// The orientation decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orientation {
    /// Black at the bottom.
    pub flipped: bool,
    /// Probability that `flipped` is right, 0.5-1.
    pub confidence: f32,
}

impl Orientation {
    /// The decision whose log-odds for a turned board are `log_odds`.
    fn from_log_odds(log_odds: f32) -> Orientation {
        Orientation {
            flipped: log_odds > 0.0,
            confidence: 1.0 / (1.0 + (-log_odds.abs()).exp()),
        }
    }
}

/// Decides the orientation from what the position says: `readings` are the 13 class
/// probabilities of the squares as displayed (top row first, left to right), and each square
/// counts by how often games hold what it may hold there, each class weighed by its probability
/// ([`log_likelihood`]). Until the fifty-ninth session only the placement read counted, so
/// that a piece read with little certainty on a square no game would put it on (a pawn on a
/// rank it never reaches, a bishop that is a misread pawn) weighed as much as a sure one.
/// Game positions drawn without coordinates turned wrong, over nine measuring sets (7,380
/// pictures: held-out lichess designs, 14 foreign designs, 11 chess fonts; 1,789 such boards):
/// 100 -> 89, 57 -> 55 of those shown from Black's side and 43 -> 34 of those from White's;
/// three fresh sets (seeds 5959-5961, 430 such boards) 24 -> 22.
pub fn orient(readings: &[[f32; CLASSES]]) -> Orientation {
    let pieces: f32 = readings.iter().map(piece_share).sum();
    if pieces < SPARSE_BELOW as f32 {
        orient_sparse(readings)
    } else {
        Orientation::from_log_odds(games_log_odds(readings))
    }
}

/// Log-odds that the readings stand turned by every game's habits ([`log_likelihood`]): the
/// games' difference, tempered, less the prior's.
fn games_log_odds(readings: &[[f32; CLASSES]]) -> f32 {
    let difference = log_likelihood(readings, true) - log_likelihood(readings, false);
    difference * LIKELIHOOD_LOG_ODDS - UPRIGHT_PRIOR_LOG_ODDS
}

/// [`orient`] for readings of fewer than [`SPARSE_BELOW`] pieces (their probabilities summed):
/// a late endgame, or a few pieces set anywhere, which say nothing. Every game's habits
/// ([`games_log_odds`]) are dominated by kings at home and pawns on their first ranks, which
/// late endgames have left; so their log-odds are blended ([`SPARSE_BLEND`]) with those of
/// two accounts of the readings ([`late_endgame_log_odds`]): a late endgame of a game
/// ([`Habits::SparseGames`]) shown as displayed or turned, or pieces set anywhere
/// ([`Habits::Scattered`]), which fits both ways alike and leaves the board upright.
///
/// Seventieth session, on the truths of positions drawn with seeds the tables did not count,
/// sparse ones only (fewer than 10 pieces), shown turned as often as the measuring sets show
/// them (about a quarter): the renderer's late game positions (8,000) turned right 73.4% ->
/// 77.3% of the time, its scattered endgames 49.9% -> 49.8% (they say nothing, and more of them
/// stay upright: 78.8% -> 84.0% of those shown so); the measuring sets' game positions without
/// coordinates (235) 200 -> 209, their sparse endgames 151 -> 150; positions of random legal
/// play drawn by `scripts/other-programs` (seeds 69-71, 608) 563 -> 565. The late endgames'
/// account alone turned more of the renderer's late games right (79.3%) but fewer of those of
/// random legal play (551), whose kings wander less: the blend keeps both.
fn orient_sparse(readings: &[[f32; CLASSES]]) -> Orientation {
    Orientation::from_log_odds(
        (1.0 - SPARSE_BLEND) * games_log_odds(readings)
            + SPARSE_BLEND * late_endgame_log_odds(readings),
    )
}

/// How much [`late_endgame_log_odds`] counts in [`orient_sparse`] against every game's
/// habits. On the positions of [`orient_sparse`]'s comment, 0.5 / 0.7 / 0.8 / 0.9 turned 76.0 /
/// 77.3 / 78.1 / 79.0% of the renderer's late games right and 564 / 565 / 564 / 564 of the 608
/// positions of random legal play; 0.7 leaves 0.3 of the weight on every game's habits,
/// which read random legal play best.
const SPARSE_BLEND: f32 = 0.7;

/// Log-odds that sparse readings stand turned, from two accounts of them: a late endgame of a
/// game shown as displayed or turned ([`Habits::SparseGames`]: the kings have left their
/// corners but mostly not their own half), or pieces scattered anywhere ([`Habits::Scattered`]),
/// which fits both ways alike. Where the scattered account explains the readings better than
/// a game either way, the evidence for a turn melts away; where a game explains them, its
/// difference counts. Each likelihood is tempered by [`SPARSE_LIKELIHOOD_LOG_ODDS`], and
/// [`SPARSE_UPRIGHT_PRIOR_LOG_ODDS`] is taken off.
fn late_endgame_log_odds(readings: &[[f32; CLASSES]]) -> f32 {
    let likelihood =
        |habits, flipped| SPARSE_LIKELIHOOD_LOG_ODDS * log_likelihood_by(habits, readings, flipped);
    let scattered = (1.0 - SPARSE_GAME_SHARE).ln()
        + (likelihood(Habits::Scattered, true) + likelihood(Habits::Scattered, false)) / 2.0;
    let either = |flipped| {
        log_add_exp(
            SPARSE_GAME_SHARE.ln() + likelihood(Habits::SparseGames, flipped),
            scattered,
        )
    };
    either(true) - either(false) - SPARSE_UPRIGHT_PRIOR_LOG_ODDS
}

/// `ln(e^a + e^b)`, without overflow or underflow.
fn log_add_exp(a: f32, b: f32) -> f32 {
    let high = a.max(b);
    if high == f32::NEG_INFINITY {
        return high;
    }
    high + ((a - high).exp() + (b - high).exp()).ln()
}

/// Log-odds for each unit of log-likelihood in [`orient_sparse`], as [`LIKELIHOOD_LOG_ODDS`]
/// is for fuller boards. Chosen with [`SPARSE_UPRIGHT_PRIOR_LOG_ODDS`] and
/// [`SPARSE_GAME_SHARE`] on the sampler's positions (seed 5, not the tables' seed), late games
/// and scattered endgames alike, weighing boards shown upright three to one: of 180 settings
/// (0.2-0.6, priors 0-1.5, shares 0.2-0.9), the best fifteen, within 1.6 points of each other,
/// all lie in 0.4-0.6, priors 0.25-1.0 and shares 0.2-0.65.
const SPARSE_LIKELIHOOD_LOG_ODDS: f32 = 0.6;

/// How much more likely a sparse board is shown with White at the bottom, as log-odds, in
/// [`orient_sparse`]: less than [`UPRIGHT_PRIOR_LOG_ODDS`], since the scattered account
/// already keeps a board that says nothing upright.
const SPARSE_UPRIGHT_PRIOR_LOG_ODDS: f32 = 0.5;

/// The share of sparse boards taken to come from games in [`orient_sparse`], the rest being
/// pieces set anywhere.
const SPARSE_GAME_SHARE: f32 = 0.35;

/// [`orient`] for a placement read surely as displayed (top row = rank 8): each square's
/// reading is its piece, or empty, with probability 1.
pub fn orient_placement(as_displayed: &Board) -> Orientation {
    orient(&sure_readings(as_displayed))
}

/// The readings of a placement read surely as displayed (top row = rank 8), in display order:
/// each square's piece, or empty, with probability 1.
fn sure_readings(as_displayed: &Board) -> Vec<[f32; CLASSES]> {
    (0..64)
        .map(|cell| {
            let mut sure = [0.0; CLASSES];
            sure[piece_class(shown_at(cell, false).and_then(|s| as_displayed.piece_at(s)))] = 1.0;
            sure
        })
        .collect()
}

/// Log-odds of a turned board for each unit of [`log_likelihood`] difference: well under 1,
/// since the squares of a position are not independent as the sum counts them. Game positions
/// drawn without coordinates (one board a picture), turned right with the checker's score and
/// with this: 14 foreign designs (seeds 5150 / 31337) 93.4 / 94.8% -> 93.8 / 95.2%, 11 chess
/// fonts (6161 / 4242) 88.6 / 93.2% -> 91.4 / 95.5%, held-out lichess designs (2026 / 777 /
/// 5353) 98.5 / 96.6 / 97.6% -> 98.5 / 98.3 / 98.4%. 0.1-1.0 were tried (model card, "The
/// orientation read from where games hold pieces").
const LIKELIHOOD_LOG_ODDS: f32 = 0.4;

/// How much more likely a board is shown with White at the bottom, as log-odds (2: about 7 to
/// 1), where the position alone decides: book diagrams nearly always are, and a position that
/// says little must not turn one over. On held-out designs without coordinates (seeds 2026,
/// 777, 77 and 4711, 588 boards) the score alone turned 413 of 422 game positions right, 40 of 84
/// sparse endgames and 38 of 82 random placements (both of which say nothing: the renderer
/// places their kings and pawns anywhere); with this prior 413, 46 and 46. A prior of 2.5
/// turned 5 game positions the wrong way.
pub const UPRIGHT_PRIOR_LOG_ODDS: f32 = 2.0;

/// How much the position's evidence counts against the letters' when both speak, as a factor on
/// its log-odds (see [`combine`]).
pub const POSITION_WEIGHT: f32 = 0.5;

/// Joins the letters' decision with the position's: their log-odds add, the position's times
/// [`POSITION_WEIGHT`]. Letters misread on a small or photographed board can be confident and
/// wrong, while an opening says plainly which way it stands; a sparse position says little and
/// leaves the letters in charge. On held-out designs (seeds 2026 / 777 / 77) the letters alone
/// turned 92.3% / 90.6% / 93.3% of the boards right, this 92.3% / 91.1% / 94.0% (game positions
/// 98.6% / 96.6% / 99.1%, from 98.6% / 95.9% / 98.2%); weights 0.3-0.7 read the same, 1 lost two
/// boards with letters inside on seed 2026.
pub fn combine(by_letters: Orientation, by_position: Orientation) -> Orientation {
    add_log_odds(by_letters, by_position, POSITION_WEIGHT)
}

/// Labels whose decision is surer than this decide alone where the placement read cannot come
/// from a game ([`with_labels`]): the file letters' votes give 0.875 and more, one pair of rank
/// digits alone 0.75, which is too little to overrule a position that, though no game,
/// may be a game's misread (a king read as a rook).
pub const LABELS_ALONE_ABOVE: f32 = 0.8;

/// Whether a placement could stand in a game as far as counts go: one king a side, at most 16
/// pieces and 8 pawns a side. A random placement (five white kings, eighteen pieces) fails,
/// and [`orient`]'s comparison with games says nothing about which way it stands.
pub fn could_be_a_game(board: &Board) -> bool {
    Color::ALL.into_iter().all(|colour| {
        let side = board.by_color(colour);
        (board.kings() & side).count() == 1
            && side.count() <= 16
            && (board.pawns() & side).count() <= 8
    })
}

/// The decision where labels were read: the labels' and the position's (`by_position`, from
/// [`orient`]) joined ([`combine`]),
/// or the labels' alone where the placement read as displayed could not come from a game
/// ([`could_be_a_game`]) and the labels are surer than [`LABELS_ALONE_ABOVE`]. On such a
/// placement the games' evidence can be as sure as it is meaningless: a random placement with
/// five white kings read "upright" at 1.000 and turned over a small board whose letters and
/// digits both read "turned". Boards with labels inside turned wrong, over the held-out
/// lichess designs (seeds 2026 / 777), the foreign designs (5150 / 31337) and the fonts (6161 /
/// 4242): 6 / 5 / 11 / 8 / 7 / 12 -> 5 / 5 / 10 / 7 / 7 / 12 (models/README.md).
pub fn with_labels(
    by_labels: Orientation,
    as_displayed: &Board,
    by_position: Orientation,
) -> Orientation {
    if by_labels.confidence > LABELS_ALONE_ABOVE && !could_be_a_game(as_displayed) {
        by_labels
    } else {
        combine(by_labels, by_position)
    }
}

/// Joins two independent readings of the labels (file letters and rank digits): their
/// log-odds add.
pub fn join_labels(first: Orientation, second: Orientation) -> Orientation {
    add_log_odds(first, second, 1.0)
}

/// The decision whose log-odds (for flipped) are `a`'s plus `weight` times `b`'s.
fn add_log_odds(a: Orientation, b: Orientation, weight: f32) -> Orientation {
    let log_odds = |o: Orientation| {
        let c = o.confidence.clamp(0.5, 0.999_999);
        let l = (c / (1.0 - c)).ln();
        if o.flipped { l } else { -l }
    };
    Orientation::from_log_odds(log_odds(a) + weight * log_odds(b))
}

/// Rows and columns sampled in one label region.
const LABEL_ROWS: usize = 32;
const LABEL_COLS: usize = 32;

/// Where file letters may be drawn, in board units of one square (0-8 across, 0-8 down):
/// (left, right) within a column, (top, bottom) rows.
const LABEL_PLACES: [((f32, f32), (f32, f32)); 4] = [
    // Inside the bottom row, right corner (lichess, chess.com and many others).
    ((0.62, 0.99), (7.45, 7.99)),
    // Inside the bottom row, left corner.
    ((0.01, 0.38), (7.45, 7.99)),
    // Below the board, centred under each column, in a narrow or a wider margin.
    ((0.15, 0.85), (8.03, 8.44)),
    ((0.15, 0.85), (8.03, 8.75)),
];

/// The background grey of a label region: its median sample.
fn median_grey(samples: &[f32]) -> f32 {
    let mut values = samples.to_vec();
    crate::cover::median(&mut values)
}

/// How far from the background a sample must be to count as ink: half the region's contrast
/// (the 97th percentile of the `deviations` from the background), or `None` when that contrast
/// is too faint for a label.
fn ink_threshold(mut deviations: Vec<f32>) -> Option<f32> {
    let at = deviations.len() * 97 / 100;
    let contrast = *deviations.select_nth_unstable_by(at, f32::total_cmp).1;
    (contrast >= 0.06).then_some(contrast * 0.5)
}

/// Which samples of a `LABEL_ROWS` by `LABEL_COLS` region are ink: those farther from the
/// background (the median sample) than [`ink_threshold`] allows, or `None` where the region's
/// contrast is too faint for a label.
fn ink_mask(samples: &[f32]) -> Option<Vec<bool>> {
    let background = median_grey(samples);
    let deviations: Vec<f32> = samples.iter().map(|g| (g - background).abs()).collect();
    let threshold = ink_threshold(deviations.clone())?;
    Some(deviations.iter().map(|&d| d > threshold).collect())
}

/// The top of the ink in one label region below the board, in sampled rows, and the last row
/// of the run of inked rows it begins (`None` where that runs to the region's end), or `None`
/// when nothing that looks like a label is there. Below the board nothing but labels and lines is
/// drawn: rows inked at the region's top (the board's edge line) are skipped up to the first
/// empty row. Letters inside the bottom row's squares are found by [`letter_box`] instead.
fn ink_extent(samples: &[f32]) -> Option<(f32, Option<f32>)> {
    let mask = ink_mask(samples)?;
    let is_ink = |r: usize, c: usize| mask[r * LABEL_COLS + c];
    let inked = mask.iter().filter(|&&i| i).count();
    let fraction = inked as f32 / samples.len() as f32;
    if !(0.01..=0.35).contains(&fraction) {
        return None;
    }
    let row_ink = |r: usize| (0..LABEL_COLS).any(|c| is_ink(r, c));
    let first_searched = (0..LABEL_ROWS / 3).find(|&r| !row_ink(r))?;
    // The first of two rows with ink (an ascender is a thin stroke; a lone row may be noise).
    let top = (first_searched..LABEL_ROWS - 1).find(|&r| row_ink(r) && row_ink(r + 1))?;
    // A label is a few rows tall: ink only in the last rows is an edge or noise.
    if top + 5 > LABEL_ROWS {
        return None;
    }
    let bottom = (top + 1..LABEL_ROWS)
        .find(|&r| !row_ink(r))
        .map(|r| (r - 1) as f32);
    Some((top as f32, bottom))
}

/// Which columns hold the short letters a, c and e when White is at the bottom (a-h from the
/// left) and when Black is (h-a).
const SHORT_LETTERS: [[usize; 3]; 2] = [[0, 2, 4], [3, 5, 7]];

/// How sure a reading by [`short_letters_end_higher`] is: as sure as six pair votes.
const SHORT_LETTERS_CONFIDENCE: f32 = 0.984;

/// How many times the bottoms' spread around the fitted line the short letters must end
/// higher by ([`short_letters_end_higher`]).
const SHORT_LETTERS_OVER_SPREAD: f32 = 4.0;

/// The orientation told by which letters below the board end higher, where seven or all eight
/// bottoms are known. Type set on a baseline ends every letter on one line but a "g", and is
/// read by its tops; but a program that anchors each letter at its own top (python's
/// `chessboard-image` draws its coordinates so) ends the short letters a, c and e higher, and
/// the tops, which then stand on one line, turned such boards over where a JPEG's blur set a
/// round letter's top a row higher or a small picture lost the tall letters' thin ascenders.
/// For each way up the bottoms are fitted by least squares as a line (a located edge a little
/// askew tilts it) plus a step for the short letters' columns ([`SHORT_LETTERS`]); the way up
/// whose short letters end higher by [`CLEAR_DIFFERENCE`] or more, and by
/// [`SHORT_LETTERS_OVER_SPREAD`] times what the fit leaves, decides. Baseline type (the "g"
/// hangs in neither way's short columns), noise and a book page's specks fit neither.
fn short_letters_end_higher(bottoms: &[Option<f32>; 8]) -> Option<Orientation> {
    let known: Vec<(usize, f32)> = (0..8).filter_map(|c| Some((c, bottoms[c]?))).collect();
    if known.len() < 7 {
        return None;
    }
    let decides = |short: &[usize; 3]| {
        let rows: Vec<([f64; 3], f64)> = known
            .iter()
            .map(|&(c, b)| {
                let step = if short.contains(&c) { 1.0 } else { 0.0 };
                ([1.0, c as f64, step], f64::from(b))
            })
            .collect();
        let fit = least_squares(&rows)?;
        let misfit: f64 = rows
            .iter()
            .map(|(x, y)| (y - (0..3).map(|i| x[i] * fit[i]).sum::<f64>()).powi(2))
            .sum();
        let spread = (misfit / (rows.len() - 3) as f64).sqrt() as f32;
        let higher_by = -fit[2] as f32;
        Some(higher_by >= CLEAR_DIFFERENCE && higher_by >= SHORT_LETTERS_OVER_SPREAD * spread)
    };
    let (upright, turned) = (decides(&SHORT_LETTERS[0])?, decides(&SHORT_LETTERS[1])?);
    (upright != turned).then_some(Orientation {
        flipped: turned,
        confidence: SHORT_LETTERS_CONFIDENCE,
    })
}

/// The least-squares coefficients of three unknowns from `rows` of (x, y), by the normal
/// equations, or `None` where they do not determine them.
fn least_squares(rows: &[([f64; 3], f64)]) -> Option<[f64; 3]> {
    // The normal equations' augmented matrix [XᵀX | Xᵀy], solved by elimination.
    let mut m = [[0.0f64; 4]; 3];
    for (x, y) in rows {
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += x[i] * x[j];
            }
            m[i][3] += x[i] * y;
        }
    }
    for col in 0..3 {
        let pivot = (col..3).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-9 {
            return None;
        }
        m.swap(col, pivot);
        let pivot_row = m[col];
        for (row, values) in m.iter_mut().enumerate() {
            if row != col {
                let factor = values[col] / pivot_row[col];
                for (value, pivot_value) in values.iter_mut().zip(pivot_row).skip(col) {
                    *value -= factor * pivot_value;
                }
            }
        }
    }
    Some(std::array::from_fn(|i| m[i][3] / m[i][i]))
}

/// How far above the region's typical deviation from its background a sample must lie to count
/// as ink inside a square, as a factor on that typical deviation (the median): a wood, canvas
/// or marble texture's grain stays below it, while a flat square's letters are untouched.
const TEXTURE_NOISE_FACTOR: f32 = 2.0;

/// The letter in one region inside a bottom-row square: its top and bottom, in sampled rows,
/// or `None` when no letter stands there apart from the piece.
///
/// The letter is a patch of ink of its own: ink joined to the region's top row or to its side
/// towards the square's middle (`inner_left`: the middle lies to the left) belongs to a piece
/// and is left out, with everything joined to it, so a piece's base reaching into the corner
/// beside the letter does not count as the letter's top. Of what is left, the largest patch
/// that sits in the region's lower two thirds is the letter. The contrast that makes ink is
/// measured on the columns no piece reaches down into from the top, and kept above a textured
/// square's grain ([`TEXTURE_NOISE_FACTOR`]).
fn letter_box(samples: &[f32], inner_left: bool) -> Option<(f32, f32)> {
    let background = median_grey(samples);
    let deviations: Vec<f32> = samples.iter().map(|g| (g - background).abs()).collect();
    let grain = TEXTURE_NOISE_FACTOR * median_grey(&deviations);
    let quiet = grain.max(0.06);
    let free: Vec<usize> = (0..LABEL_COLS)
        .filter(|&c| (0..LABEL_ROWS / 4).all(|r| deviations[r * LABEL_COLS + c] < quiet))
        .collect();
    if free.len() < LABEL_COLS / 4 {
        return None;
    }
    let threshold = ink_threshold(
        free.iter()
            .flat_map(|&c| deviations.iter().skip(c).step_by(LABEL_COLS).copied())
            .collect(),
    )?
    .max(grain);
    let ink: Vec<bool> = deviations.iter().map(|&d| d > threshold).collect();
    let inner_col = if inner_left { 0 } else { LABEL_COLS - 1 };
    let mut seen = vec![false; ink.len()];
    // The largest patch not joined to the piece: (size, top row, bottom row).
    let mut best: Option<(usize, usize, usize)> = None;
    let mut stack = Vec::new();
    for start in 0..ink.len() {
        if !ink[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut size, mut top, mut bottom, mut piece) = (0, LABEL_ROWS, 0, false);
        while let Some(i) = stack.pop() {
            let (r, c) = (i / LABEL_COLS, i % LABEL_COLS);
            size += 1;
            top = top.min(r);
            bottom = bottom.max(r);
            piece |= r == 0 || c == inner_col;
            for nr in r.saturating_sub(1)..=(r + 1).min(LABEL_ROWS - 1) {
                for nc in c.saturating_sub(1)..=(c + 1).min(LABEL_COLS - 1) {
                    let n = nr * LABEL_COLS + nc;
                    if ink[n] && !seen[n] {
                        seen[n] = true;
                        stack.push(n);
                    }
                }
            }
        }
        // A letter sits low in the square, is a few rows tall and more than a speck.
        if piece || top < LABEL_ROWS / 3 || bottom < top + 3 || size < 6 {
            continue;
        }
        if best.is_none_or(|(largest, _, _)| size > largest) {
            best = Some((size, top, bottom));
        }
    }
    let (size, top, bottom) = best?;
    (size <= LABEL_ROWS * LABEL_COLS / 4).then_some((top as f32, bottom as f32))
}

/// How far (in sampled rows) a letter's bottom may lie from the others' middle one: letters
/// stand on one line, so a patch that does not is texture, a mark or a "g"'s descender.
const BASELINE_TOLERANCE: f32 = 3.0;

/// How many sampled rows a pair's letter tops must differ by for the pair to vote.
const CLEAR_DIFFERENCE: f32 = 2.0;

/// A smaller difference in letter tops, counted only where the clear votes do not decide (see
/// [`letter_votes`]), and how many pairs must show it.
const SLIGHT_DIFFERENCE: f32 = 1.0;
const SLIGHT_VOTES: i32 = 8;

/// The letters' `tops` with the slope of the line they stand on taken out, or `None` where
/// there is no clear slope to take out. Located corners a little off (one of them a sixth of a
/// square too high) tilt the bottom edge against the letters, and every far pair then votes
/// for the tilt rather than for the letters' heights. The slope is fitted by least squares
/// together with the offset between the odd and the even columns (which is what the votes
/// read), from at least two letters of each and five in all. It counts only where it spans
/// [`CLEAR_DIFFERENCE`] or more from the first column to the last and the letters lie within
/// [`TILT_FIT_SPREAD`] of the fitted line: a texture's specks found as letters lie anywhere.
fn without_tilt(tops: [Option<f32>; 8]) -> Option<[Option<f32>; 8]> {
    let known: Vec<[f32; 3]> = (0..8)
        .filter_map(|c| tops[c].map(|t| [c as f32, (c % 2) as f32, t]))
        .collect();
    let odd = known.iter().filter(|k| k[1] > 0.5).count();
    if known.len() < 5 || odd < 2 || known.len() - odd < 2 {
        return None;
    }
    // Least squares for top = a + slope * column + offset * odd, about the means.
    let n = known.len() as f32;
    let mean: [f32; 3] = std::array::from_fn(|i| known.iter().map(|k| k[i]).sum::<f32>() / n);
    let moment = |i: usize, j: usize| {
        known
            .iter()
            .map(|k| (k[i] - mean[i]) * (k[j] - mean[j]))
            .sum::<f32>()
    };
    let determinant = moment(0, 0) * moment(1, 1) - moment(0, 1) * moment(0, 1);
    if determinant.abs() < 1e-6 {
        return None;
    }
    let slope = (moment(0, 2) * moment(1, 1) - moment(1, 2) * moment(0, 1)) / determinant;
    let offset = (moment(1, 2) * moment(0, 0) - moment(0, 2) * moment(0, 1)) / determinant;
    let misfit = known
        .iter()
        .map(|k| {
            let fitted = mean[2] + slope * (k[0] - mean[0]) + offset * (k[1] - mean[1]);
            (k[2] - fitted).powi(2)
        })
        .sum::<f32>()
        / n;
    (slope.abs() * 7.0 >= CLEAR_DIFFERENCE && misfit.sqrt() <= TILT_FIT_SPREAD)
        .then(|| std::array::from_fn(|c| tops[c].map(|t| t - slope * (c as f32 - 3.5))))
}

/// How far (root mean square, in sampled rows) letters may lie from the tilted line fitted to
/// them for the tilt to be taken out ([`without_tilt`]).
const TILT_FIT_SPREAD: f32 = 1.0;

/// The votes of every pair of an even and an odd column (upright, turned): upright, the odd
/// columns' letters (b, d, f, h) reach higher than the even ones' (a, c, e, g); flipped, the
/// other way round. A pair votes where its tops differ by at least `difference` sampled rows.
fn pair_votes(tops: &[Option<f32>; 8], difference: f32) -> (i32, i32) {
    let (mut upright, mut turned) = (0, 0);
    for (even, odd) in (0..8)
        .step_by(2)
        .flat_map(|e| (1..8).step_by(2).map(move |o| (e, o)))
    {
        if let (Some(even_top), Some(odd_top)) = (tops[even], tops[odd]) {
            if odd_top + difference <= even_top {
                upright += 1;
            } else if even_top + difference <= odd_top {
                turned += 1;
            }
        }
    }
    (upright, turned)
}

/// The letters' votes (upright, turned) where they decide, from the letters' `tops` and the
/// column of a "g" found hanging below the line (`descender_column`), which counts for
/// `DESCENDER_VOTES` pairs. Where that does not decide, pairs that differ slightly
/// (`SLIGHT_DIFFERENCE`: a small board's letters differ by a sampled row or so) decide when at
/// least `SLIGHT_VOTES` of them all lean one way, counted as three clear votes.
fn letter_votes(tops: &[Option<f32>; 8], hanging: Option<usize>) -> Option<(i32, i32)> {
    let (mut upright, mut turned) = pair_votes(tops, CLEAR_DIFFERENCE);
    match hanging {
        Some(6) => upright += DESCENDER_VOTES,
        Some(1) => turned += DESCENDER_VOTES,
        _ => {}
    }
    if is_decided(upright, turned) {
        return Some((upright, turned));
    }
    let (slight_upright, slight_turned) = pair_votes(tops, SLIGHT_DIFFERENCE);
    if slight_upright.min(slight_turned) > 0 || slight_upright.max(slight_turned) < SLIGHT_VOTES {
        return None;
    }
    Some(if slight_turned > slight_upright {
        (0, 3)
    } else {
        (3, 0)
    })
}

/// Whether pair votes decide: four, or three with none against (a board whose letters on one
/// colour of square are hard to see leaves few pairs), and a clear majority.
fn is_decided(upright: i32, turned: i32) -> bool {
    let (majority, minority) = (upright.max(turned), upright.min(turned));
    (majority >= 4 || (majority >= 3 && minority == 0)) && minority * 3 <= majority
}

/// The middle of the known values (the upper one of the two middles of an even count): the
/// line the letters found stand on, or the height their tops reach.
fn middle_of(values: &[Option<f32>; 8]) -> Option<f32> {
    let mut known: Vec<f32> = values.iter().flatten().copied().collect();
    known.sort_by(f32::total_cmp);
    known.get(known.len() / 2).copied()
}

/// How far (in sampled rows) below the other letters' line a "g"'s bottom hangs, at least.
const DESCENDER_DEPTH: f32 = 2.0;

/// How many pair votes a "g" found hanging below the line counts for.
const DESCENDER_VOTES: i32 = 3;

/// The column of the one letter whose bottom hangs below the others' line: of a-h only "g"
/// has a descender, and it stands in the 7th column when White is at the bottom and in the 2nd
/// when Black is. Looked for only where every letter found stands on one colour of square
/// (columns of one parity; the other colour's letters too faint to read), so that no pair of
/// columns can vote, and at least two others stand on the line. Counted wherever letters were
/// found, a hanging patch (texture, a piece's edge) turned boards without coordinates over.
fn descender_column(bottoms: &[Option<f32>; 8]) -> Option<usize> {
    let line = middle_of(bottoms)?;
    let on_line = bottoms
        .iter()
        .flatten()
        .filter(|&&b| (b - line).abs() <= 1.0)
        .count();
    let mut hanging = (0..8).filter(|&c| bottoms[c].is_some_and(|b| b >= line + DESCENDER_DEPTH));
    let column = hanging.next()?;
    let one_parity = (0..8).all(|c| bottoms[c].is_none() || c % 2 == column % 2);
    (one_parity && on_line >= 2 && hanging.next().is_none()).then_some(column)
}

/// The side of a label place beside the board that lies away from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FarSide {
    /// Left of the board: the place's left edge.
    Left,
    /// Right of the board: the place's right edge.
    Right,
    /// Below the board: the place's bottom edge.
    Bottom,
}

/// The least part of a label place beside the board, in squares across its depth away from the
/// board, that must lie in the picture for the place to be read ([`within_picture`]).
const LEAST_MARGIN_DEPTH: f32 = 0.15;

/// A label place beside the board (`across`, `down`, in squares) as far as it lies in the
/// picture: its side away from the board (`far`) moved in, a hundredth of a square at a time,
/// until the place ends within the two pixels [`region_samples`] forgives on that side, or
/// `None` where less than [`LEAST_MARGIN_DEPTH`] of its depth would be left. The picture's
/// other edges are left to [`region_samples`], label by label: a board cut off on the left
/// still has the letters under its columns in view read. Programs that draw their
/// labels in a margin of a fixed few pixels (python's `chessboard-image`: 20 pixels beside a
/// board of 600) leave less room than the place allows for, and the labels were not read.
fn within_picture(
    image: &RgbImage,
    projection: &BoardToPicture,
    (mut left, mut right): (f32, f32),
    (top, mut bottom): (f32, f32),
    far: FarSide,
) -> Option<((f32, f32), (f32, f32))> {
    const STEP: f32 = 0.01;
    let (w, h) = image.dimensions();
    let (far_right, far_bottom) = ((w - 1) as f32 + 2.0, (h - 1) as f32 + 2.0);
    loop {
        let inside = [(left, top), (right, top), (right, bottom), (left, bottom)]
            .iter()
            .all(|&(u, v)| {
                let (x, y) = projection.map(u / 8.0, v / 8.0);
                let (x, y) = (x - 0.5, y - 0.5);
                match far {
                    FarSide::Left => x >= -2.0,
                    FarSide::Right => x <= far_right,
                    FarSide::Bottom => y <= far_bottom,
                }
            });
        if inside {
            return Some(((left, right), (top, bottom)));
        }
        let depth = match far {
            FarSide::Left => {
                left += STEP;
                right - left
            }
            FarSide::Right => {
                right -= STEP;
                right - left
            }
            FarSide::Bottom => {
                bottom -= STEP;
                bottom - top
            }
        };
        if depth < LEAST_MARGIN_DEPTH {
            return None;
        }
    }
}

/// The grey levels of one region of the board, `LABEL_ROWS` by `LABEL_COLS` samples, between
/// `left`-`right` across and `top`-`bottom` down in board units of one square (0-8); `None`
/// where part of it lies outside the picture (points up to two pixels outside take the edge,
/// for a located edge a little off).
fn region_samples(
    image: &RgbImage,
    projection: &BoardToPicture,
    (left, right): (f32, f32),
    (top, bottom): (f32, f32),
) -> Option<Vec<f32>> {
    let (w, h) = image.dimensions();
    let (far_right, far_bottom) = ((w - 1) as f32, (h - 1) as f32);
    let mut samples = Vec::with_capacity(LABEL_ROWS * LABEL_COLS);
    for r in 0..LABEL_ROWS {
        for c in 0..LABEL_COLS {
            let u = (left + (right - left) * (c as f32 + 0.5) / LABEL_COLS as f32) / 8.0;
            let v = (top + (bottom - top) * (r as f32 + 0.5) / LABEL_ROWS as f32) / 8.0;
            let (x, y) = projection.map(u, v);
            let (x, y) = (x - 0.5, y - 0.5);
            if !(x >= -2.0 && y >= -2.0 && x <= far_right + 2.0 && y <= far_bottom + 2.0) {
                return None;
            }
            let (x, y) = (x.clamp(0.0, far_right), y.clamp(0.0, far_bottom));
            samples.push(grey_level(
                image.get_pixel(x.round() as u32, y.round() as u32).0,
            ));
        }
    }
    Some(samples)
}

/// Reads the orientation from file letters along the bottom edge, if they are drawn.
pub fn orient_from_labels(image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Orientation> {
    let projection = board_to_picture(corners)?;
    let mut best: Option<Orientation> = None;
    for ((left, right), (top, bottom)) in LABEL_PLACES {
        // Places starting above row 8 are inside the bottom row's squares; below the board a
        // place is read as far as the picture goes, to one depth for all eight letters.
        let below = top >= 8.0;
        let bottom = if below {
            match within_picture(
                image,
                &projection,
                (left, 7.0 + right),
                (top, bottom),
                FarSide::Bottom,
            ) {
                Some((_, (_, bottom))) => bottom,
                None => continue,
            }
        } else {
            bottom
        };
        let mut tops = [None; 8];
        let mut bottoms = [None; 8];
        let mut ink_bottoms = [None; 8];
        for column in 0..8 {
            let across = (column as f32 + left, column as f32 + right);
            let Some(samples) = region_samples(image, &projection, across, (top, bottom)) else {
                continue;
            };
            if below {
                if let Some((ink_top, ink_bottom)) = ink_extent(&samples) {
                    tops[column] = Some(ink_top);
                    ink_bottoms[column] = ink_bottom;
                }
            } else if let Some((letter_top, letter_bottom)) = letter_box(&samples, left > 0.5) {
                tops[column] = Some(letter_top);
                bottoms[column] = Some(letter_bottom);
            }
        }
        // Below the board, where nothing hides them, letters whose bottoms do not stand on one
        // line tell by which of them end higher: a, c and e (`short_letters_end_higher`).
        if below && let Some(found) = short_letters_end_higher(&ink_bottoms) {
            if best.is_none_or(|b| found.confidence > b.confidence) {
                best = Some(found);
            }
            continue;
        }
        let hanging = descender_column(&bottoms);
        // Letters inside the squares stand on one line: a patch off it is not a letter.
        if let Some(baseline) = middle_of(&bottoms) {
            for (top, bottom) in tops.iter_mut().zip(bottoms) {
                if bottom.is_some_and(|b| (b - baseline).abs() > BASELINE_TOLERANCE) {
                    *top = None;
                }
            }
        }
        // Every pair of an even and an odd column votes (`pair_votes`); a piece or a highlight
        // spoiling one column is outvoted, a tie or a split is no answer. Letters of one
        // typeface stand on one line and reach about one height: a top far from the others' is
        // a piece's edge or a mark, not a letter.
        let Some(middle) = middle_of(&tops) else {
            continue;
        };
        let tops = tops.map(|t| t.filter(|t| (t - middle).abs() <= LABEL_ROWS as f32 / 5.0));
        // Where the letters do not decide as found, they may stand on a tilted line.
        let votes = letter_votes(&tops, hanging)
            .or_else(|| without_tilt(tops).and_then(|level| letter_votes(&level, hanging)));
        let Some((upright, turned)) = votes else {
            continue;
        };
        let (majority, minority) = (upright.max(turned), upright.min(turned));
        let found = Orientation {
            flipped: turned > upright,
            confidence: 1.0 - 0.5f32.powi(majority - minority),
        };
        if best.is_none_or(|b| found.confidence > b.confidence) {
            best = Some(found);
        }
    }
    best
}

/// One place where rank digits may be drawn, in board units of one square (0-8 across).
#[derive(Clone, Copy, Debug)]
struct RankPlace {
    /// The region's left and right edges across the board.
    across: (f32, f32),
    /// Its top and bottom within each row.
    down: (f32, f32),
    /// Whether the board's middle lies to the region's left (inside the board, ink along
    /// that side is a piece reaching into the corner).
    inner_left: bool,
    /// Whether the place lies in a margin beside the board, where no piece hides a digit.
    outside: bool,
}

/// Where rank digits may be drawn: inside an edge column, in the square's top corner (top 2-30%),
/// or in a margin beside the board, centred on each row (as books and many programs draw them).
const RANK_PLACES: [RankPlace; 4] = [
    // The left column's top-left corner (chess.com and others).
    RankPlace {
        across: (0.02, 0.32),
        down: (0.02, 0.30),
        inner_left: false,
        outside: false,
    },
    // The right column's top-right corner (lichess).
    RankPlace {
        across: (7.68, 7.98),
        down: (0.02, 0.30),
        inner_left: true,
        outside: false,
    },
    // A margin left of the board, clear of a frame line along its edge.
    RankPlace {
        across: (-0.45, -0.09),
        down: (0.2, 0.8),
        inner_left: false,
        outside: true,
    },
    // A margin right of the board.
    RankPlace {
        across: (8.09, 8.45),
        down: (0.2, 0.8),
        inner_left: true,
        outside: true,
    },
];

/// How many of the eight digits a margin beside the board must show to be read: none is hidden
/// there, so a margin that shows fewer holds a frame's grain or other marks, not digits.
const OUTSIDE_DIGITS_SHOWN: usize = 6;

/// How much ink a digit in one region has, in samples, or `None` when the region holds no
/// label-like mark or a piece reaches into it (ink along the region's side towards the square's
/// middle, or along its bottom). `inner_left`: the square's middle lies to the region's left.
fn label_ink(samples: &[f32], inner_left: bool) -> Option<usize> {
    let mask = ink_mask(samples)?;
    let is_ink = |r: usize, c: usize| mask[r * LABEL_COLS + c];
    let border = LABEL_COLS / 8;
    let inner_cols = if inner_left {
        0..border
    } else {
        LABEL_COLS - border..LABEL_COLS
    };
    let spoiled = (0..LABEL_ROWS).any(|r| inner_cols.clone().any(|c| is_ink(r, c)))
        || (LABEL_ROWS - LABEL_ROWS / 8..LABEL_ROWS).any(|r| (0..LABEL_COLS).any(|c| is_ink(r, c)));
    if spoiled {
        return None;
    }
    let ink = mask.iter().filter(|&&i| i).count();
    let fraction = ink as f32 / (LABEL_ROWS * LABEL_COLS) as f32;
    (0.01..=0.4).contains(&fraction).then_some(ink)
}

/// How much ink a digit in a margin beside the board has, in samples, or `None` when the region
/// holds no digit-like mark. The margin's own edges (a frame's line, where the page begins)
/// cross the region from top to bottom: columns inked in most rows are left out. A digit stands
/// in the middle of its row, so ink in the region's top or bottom rows is something else.
fn margin_ink(samples: &[f32]) -> Option<usize> {
    let mask = ink_mask(samples)?;
    let is_ink = |r: usize, c: usize| mask[r * LABEL_COLS + c];
    let columns: Vec<usize> = (0..LABEL_COLS)
        .filter(|&c| (0..LABEL_ROWS).filter(|&r| is_ink(r, c)).count() * 4 < LABEL_ROWS * 3)
        .collect();
    if columns.len() < LABEL_COLS / 2 {
        return None;
    }
    let edge_rows = LABEL_ROWS / 8;
    let spoiled = (0..edge_rows)
        .chain(LABEL_ROWS - edge_rows..LABEL_ROWS)
        .any(|r| columns.iter().any(|&c| is_ink(r, c)));
    if spoiled {
        return None;
    }
    let ink = (0..LABEL_ROWS)
        .flat_map(|r| columns.iter().map(move |&c| (r, c)))
        .filter(|&(r, c)| is_ink(r, c))
        .count();
    let fraction = ink as f32 / (LABEL_ROWS * columns.len()) as f32;
    (0.01..=0.4).contains(&fraction).then_some(ink)
}

/// One digit must have this much more ink than the other for their pair to vote. On held-out
/// designs any ratio from 1.0 to 1.15 turned the same boards right; 1.25 two fewer (seed 777),
/// 1.5 five fewer.
const INK_RATIO: f32 = 1.15;

/// How much ink each digit 1-8 has against an "8": a "1" and a "7" least, the middle digits
/// more, a "6" nearly as much as an "8". Measured on the 22 DejaVu faces (serif, sans and mono;
/// plain, bold and italic), each within about 0.06 of these.
const DIGIT_INK: [f32; 8] = [0.63, 0.76, 0.77, 0.82, 0.80, 0.93, 0.59, 1.0];

/// The least spread of a digit's measured ink around [`DIGIT_INK`], in natural log units: the
/// typeface's own proportions and the sampling of a label a few pixels tall. Chosen on the
/// held-out lichess designs (seed 2026), the foreign designs (5150) and the fonts (6161): 0.15
/// and 0.2 turned a board or two more right there and one wrong on seed 777; 0.25 none wrong.
const DIGIT_INK_SPREAD: f32 = 0.25;

/// How much the spread the digits themselves show around the better order weighs, against
/// [`DIGIT_INK_SPREAD`]: blurred, enlarged or photographed digits fit either order loosely, and
/// their reading is made as unsure.
const SHOWN_SPREAD_WEIGHT: f32 = 2.0;

/// Squares spanning fewer picture pixels than this have digits of two or three pixels, whose
/// ink a fit over the middle digits cannot weigh: there only the pairs decide.
const FIT_FROM_SQUARE_PIXELS: f32 = 20.0;

/// Reads the orientation from rank digits in the top corners of an edge column or in a margin
/// beside the board ([`RANK_PLACES`]), if they are drawn. No digit is recognized: in any typeface a "1" has less ink than an "8" and a "7" less
/// than a "2", so upright the top square's digit (8) outweighs the bottom one's (1) and the
/// second from the bottom (2) the second from the top (7); flipped, the other way round
/// (`pair_votes_of_digits`). Where pieces hide a digit of both pairs, every digit that shows
/// is fitted against the inks typefaces give each digit, in both orders (`fit_of_digits`).
/// Beside the board both must agree (`digits_beside_the_board`).
pub fn orient_from_ranks(image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Orientation> {
    let projection = board_to_picture(corners)?;
    let fit = square_pixels(corners) >= FIT_FROM_SQUARE_PIXELS;
    let mut best: Option<Orientation> = None;
    for place in RANK_PLACES {
        let inks = digit_inks(image, &projection, place);
        let found = if place.outside {
            digits_beside_the_board(&inks)
        } else {
            pair_votes_of_digits(&inks).or_else(|| fit.then(|| fit_of_digits(&inks)).flatten())
        };
        let Some(found) = found else {
            continue;
        };
        if best.is_none_or(|b| found.confidence > b.confidence) {
            best = Some(found);
        }
    }
    best
}

/// The reading of digits in a margin beside the board: at least [`OUTSIDE_DIGITS_SHOWN`] of
/// them, whose pairs and fit over all of them agree (a frame's grain makes inks that agree by
/// chance with one of the two at most), as sure as the surer of the two: with six digits or
/// more the fit weighs the middle digits too, which the pairs leave out.
fn digits_beside_the_board(inks: &[Option<usize>; 8]) -> Option<Orientation> {
    if inks.iter().flatten().count() < OUTSIDE_DIGITS_SHOWN {
        return None;
    }
    let pairs = pair_votes_of_digits(inks)?;
    let fitted = fit_of_digits(inks)?;
    (pairs.flipped == fitted.flipped).then_some(Orientation {
        confidence: pairs.confidence.max(fitted.confidence),
        ..pairs
    })
}

/// The ink of the digit in each row (from the top) at one [`RankPlace`], where one shows,
/// measured by `label_ink` inside the board and by `margin_ink` beside it.
fn digit_inks(
    image: &RgbImage,
    projection: &BoardToPicture,
    place: RankPlace,
) -> [Option<usize>; 8] {
    // Beside the board the margin is read as far as the picture goes, to one width for all
    // eight digits.
    let across = if place.outside {
        let far = if place.inner_left {
            FarSide::Right
        } else {
            FarSide::Left
        };
        let down = (place.down.0, 7.0 + place.down.1);
        match within_picture(image, projection, place.across, down, far) {
            Some((across, _)) => across,
            None => return [None; 8],
        }
    } else {
        place.across
    };
    std::array::from_fn(|row| {
        let down = (row as f32 + place.down.0, row as f32 + place.down.1);
        let samples = region_samples(image, projection, across, down)?;
        if place.outside {
            margin_ink(&samples)
        } else {
            label_ink(&samples, place.inner_left)
        }
    })
}

/// The two pairs' decision from the digits' `inks` (row from the top): the "8" against the "1"
/// and the "2" against the "7", each voting where both digits show and one has clearly more
/// ink ([`INK_RATIO`]); `None` where no pair votes or the two disagree.
fn pair_votes_of_digits(inks: &[Option<usize>; 8]) -> Option<Orientation> {
    // (the row that upright holds the inkier digit, the row that holds the lighter one)
    let (mut upright, mut turned) = (0i32, 0i32);
    for (heavy, light) in [(0, 7), (6, 1)] {
        if let (Some(h), Some(l)) = (inks[heavy], inks[light]) {
            let (h, l) = (h as f32, l as f32);
            if h > l * INK_RATIO {
                upright += 1;
            } else if l > h * INK_RATIO {
                turned += 1;
            }
        }
    }
    if upright.min(turned) > 0 || upright.max(turned) == 0 {
        return None;
    }
    Some(Orientation {
        flipped: turned > upright,
        confidence: if upright.max(turned) == 2 { 0.9 } else { 0.75 },
    })
}

/// The order the digits' `inks` (row from the top) fit better, or `None` for fewer than two
/// digits. Each order's misfit is the squared distance of the inks' logarithms from
/// [`DIGIT_INK`]'s, after the common scale (the typeface's size and weight) that fits best;
/// the difference of the two misfits is a log likelihood ratio under a spread of
/// [`DIGIT_INK_SPREAD`], or of what the better fit leaves where that is more.
///
/// On boards with labels inside whose pairs do not decide and whose squares span 20 pixels or
/// more, over the held-out lichess designs (seed 2026), the foreign designs (5150) and the fonts
/// (6161), this reading was right 212 times and wrong 29, and of those surer than 0.75, right
/// 105 times and wrong twice.
fn fit_of_digits(inks: &[Option<usize>; 8]) -> Option<Orientation> {
    let inks: Vec<(usize, f32)> = (0..8)
        .filter_map(|row| inks[row].map(|ink| (row, (ink as f32).ln())))
        .collect();
    if inks.len() < 2 {
        return None;
    }
    let misfit = |digit_of: fn(usize) -> usize| {
        let residuals: Vec<f32> = inks
            .iter()
            .map(|&(row, ink)| ink - DIGIT_INK[digit_of(row) - 1].ln())
            .collect();
        let mean = residuals.iter().sum::<f32>() / residuals.len() as f32;
        residuals.iter().map(|r| (r - mean).powi(2)).sum::<f32>()
    };
    // Upright, the top row shows the "8"; turned, the "1".
    let upright = misfit(|row| 8 - row);
    let turned = misfit(|row| row + 1);
    let shown = SHOWN_SPREAD_WEIGHT * upright.min(turned) / (inks.len() - 1) as f32;
    let variance = shown.max(DIGIT_INK_SPREAD * DIGIT_INK_SPREAD);
    Some(Orientation::from_log_odds(
        (upright - turned) / (2.0 * variance),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fenlens_fen::shakmaty::{Piece, Role};

    #[test]
    fn counts_no_game_allows_rule_a_placement_out_of_games() {
        let board = |placement: &str| fenlens_fen::read(placement.as_bytes()).setup.unwrap().board;
        assert!(could_be_a_game(&Board::new()));
        for (placement, why) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/2K2K2/PPPPPPPP/RNBQKBNR",
                "three white kings",
            ),
            (
                "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
                "no black king",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR",
                "nine white pawns",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/N7/PPPPPPPP/RNBQKBNR",
                "seventeen white pieces",
            ),
        ] {
            assert!(!could_be_a_game(&board(placement)), "{why}");
        }
    }

    #[test]
    fn sure_labels_alone_turn_a_placement_no_game_holds_and_a_lone_digit_pair_does_not() {
        let labels = |confidence| Orientation {
            flipped: true,
            confidence,
        };
        // The opening with two more white kings: the games' evidence says "upright", surely.
        let no_game = fenlens_fen::read(b"rnbqkbnr/pppppppp/8/8/8/2K2K2/PPPPPPPP/RNBQKBNR")
            .setup
            .unwrap()
            .board;
        let by_position = orient_placement(&no_game);
        assert!(!by_position.flipped && by_position.confidence > 0.999);
        // Joined, the position would overrule the letters; on no game, the letters decide.
        assert!(!combine(labels(0.875), by_position).flipped);
        assert_eq!(
            with_labels(labels(0.875), &no_game, by_position),
            labels(0.875)
        );
        // One pair of rank digits is too little to leave the position out.
        assert!(!with_labels(labels(0.75), &no_game, by_position).flipped);
        // On the opening itself the position still outweighs the letters.
        let opening = Board::new();
        assert!(!with_labels(labels(0.9375), &opening, orient_placement(&opening)).flipped);
    }

    #[test]
    fn a_plain_position_outweighs_unsure_letters_and_a_silent_one_leaves_them() {
        let letters = |confidence| Orientation {
            flipped: true,
            confidence,
        };
        let opening = orient_placement(&Board::new());
        assert!(
            !opening.flipped && opening.confidence > 0.999,
            "{opening:?}"
        );
        // Letters 15 to 1 for flipped lose to the starting position's plain answer.
        assert!(!combine(letters(0.9375), opening).flipped);
        // A sparse position with no opinion leaves the letters' decision as it was.
        let nothing = Orientation {
            flipped: false,
            confidence: 0.5,
        };
        let joined = combine(letters(0.9375), nothing);
        assert!(joined.flipped && (joined.confidence - 0.9375).abs() < 1e-4);
        // Letters agreeing with a mild position end up surer than either.
        let mild = Orientation {
            flipped: true,
            confidence: 0.8,
        };
        assert!(combine(letters(0.9375), mild).confidence > 0.9375);
    }

    #[test]
    fn start_position_is_upright_and_its_rotation_is_flipped() {
        let start = Board::new();
        let upright = orient_placement(&start);
        assert!(!upright.flipped);
        assert!(upright.confidence > 0.99);
        let mut turned = start.clone();
        turned.rotate_180();
        assert!(orient_placement(&turned).flipped);
    }

    #[test]
    fn each_sides_pieces_on_its_own_half_say_which_way_up_without_pawns_or_kings() {
        // A design whose pawns and kings were misread (no pawns, queens where the kings
        // stand), pieces off their starting squares: only which half holds which colour tells,
        // and the checker's coarse score said nothing here.
        let upright: Board = "8/3q4/2nbbn2/8/8/2NBBN2/3Q4/8"
            .parse()
            .expect("a placement");
        assert_eq!(
            fenlens_fen::orientation_score(&upright),
            fenlens_fen::orientation_score(&{
                let mut t = upright.clone();
                t.rotate_180();
                t
            })
        );
        let read = orient_placement(&upright);
        assert!(!read.flipped);
        let mut turned = upright.clone();
        turned.rotate_180();
        let read_turned = orient_placement(&turned);
        assert!(read_turned.flipped);
        assert!(read_turned.confidence > 0.9, "{read_turned:?}");
    }

    #[test]
    fn a_position_that_says_little_leaves_white_at_the_bottom() {
        let board = |placement: &str| {
            fenlens_fen::read(placement.as_bytes())
                .setup
                .expect("placement")
                .board
        };
        // Nothing at all: the priors alone (an empty board is a sparse one).
        let empty = orient_placement(&Board::empty());
        assert!(!empty.flipped);
        let priors = (1.0 - SPARSE_BLEND) * UPRIGHT_PRIOR_LOG_ODDS
            + SPARSE_BLEND * SPARSE_UPRIGHT_PRIOR_LOG_ODDS;
        assert!((empty.confidence - 1.0 / (1.0 + (-priors).exp())).abs() < 1e-6);
        // One white pawn near the top is weak evidence of a turned board: not enough.
        assert!(!orient_placement(&board("8/P7/8/8/8/8/8/8")).flipped);
        // Three of them, and a white king on the top edge, are plenty.
        assert!(orient_placement(&board("3K4/PPP5/8/8/8/8/8/8")).flipped);
    }

    #[test]
    fn late_endgames_turn_by_late_endgames_habits_and_scattered_pieces_stay_upright() {
        use rand::SeedableRng;
        // Positions of the renderer's samplers, drawn with a seed the tables did not count.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(crate::prior::SEED + 2);
        let mut late_endgames = Vec::new();
        while late_endgames.len() < 400 {
            let board = fenlens_render::positions::game(&mut rng).board;
            if board.occupied().count() < SPARSE_BELOW {
                late_endgames.push(board);
            }
        }
        let scattered: Vec<Board> = (0..400)
            .map(|_| fenlens_render::positions::endgame(&mut rng).board)
            .collect();
        // The share of `boards` read the right way up by `rule`, each shown turned or not.
        let share_right =
            |boards: &[Board], turned: bool, rule: fn(&[[f32; CLASSES]]) -> Orientation| {
                let right = boards
                    .iter()
                    .filter(|board| {
                        let mut shown = (*board).clone();
                        if turned {
                            shown.rotate_180();
                        }
                        rule(&sure_readings(&shown)).flipped == turned
                    })
                    .count();
                right as f32 / boards.len() as f32
            };
        let late_turned = share_right(&late_endgames, true, orient);
        let late_upright = share_right(&late_endgames, false, orient);
        let scattered_upright = share_right(&scattered, false, orient);
        let by_games = |boards: &[Board], turned| {
            share_right(boards, turned, |readings| {
                Orientation::from_log_odds(games_log_odds(readings))
            })
        };
        eprintln!(
            "late endgames turned {late_turned} (every game's habits {}), upright {late_upright} ({}); \
             scattered upright {scattered_upright} ({})",
            by_games(&late_endgames, true),
            by_games(&late_endgames, false),
            by_games(&scattered, false),
        );
        // Late endgames shown turned are turned right more often than every game's habits
        // turn them (0.58 against 0.54 when written), and those shown upright stay so at
        // least as often.
        assert!(late_turned >= by_games(&late_endgames, true) + 0.03);
        assert!(late_upright >= by_games(&late_endgames, false));
        assert!(late_upright > 0.95);
        // Scattered pieces say nothing, and stay upright more often than every game's habits
        // leave them (0.82 against 0.76).
        assert!(scattered_upright > 0.8);
        assert!(scattered_upright >= by_games(&scattered, false) + 0.03);
    }

    #[test]
    fn unsure_readings_say_less_than_sure_ones() {
        // Display order, top row first: five white pawns on the second row from the top, which
        // a turned board explains (they stand on White's second rank).
        let readings = |pawn: f32| -> Vec<[f32; CLASSES]> {
            let white = |role| {
                piece_class(Some(Piece {
                    color: Color::White,
                    role,
                }))
            };
            let mut readings = vec![[0.0; CLASSES]; 64];
            for (cell, reading) in readings.iter_mut().enumerate() {
                match cell {
                    8..=12 => {
                        reading[white(Role::Pawn)] = pawn;
                        reading[0] = 1.0 - pawn;
                    }
                    _ => reading[0] = 1.0,
                }
            }
            readings
        };
        // Read surely, the pawns turn the board, as the placement alone does.
        let sure = orient(&readings(1.0));
        assert!(sure.flipped, "{sure:?}");
        let placement: Board = "8/PPPPP3/8/8/8/8/8/8".parse().expect("a placement");
        let by_placement = orient_placement(&placement);
        assert_eq!(by_placement.flipped, sure.flipped);
        assert!((by_placement.confidence - sure.confidence).abs() < 1e-4);
        // Read as likelier empty than pawns, or barely likelier pawns, they do not: the board
        // stays upright.
        for pawn in [0.3, 0.6] {
            let unsure = orient(&readings(pawn));
            assert!(!unsure.flipped, "{pawn}: {unsure:?}");
        }
        // And a row of zeros (no reading) gives a decision, not NaN.
        let mut silent = readings(1.0);
        silent[20] = [0.0; CLASSES];
        assert!(orient(&silent).confidence.is_finite());
    }

    /// Two kings in the middle: the position says nothing about orientation.
    const KINGS: &str = "8/8/8/3k4/4K3/8/8/8";

    fn drawn(
        flipped: bool,
        coords: fenlens_render::Coords,
        theme: &str,
    ) -> (RgbImage, [[f32; 2]; 4]) {
        drawn_placement(KINGS, flipped, coords, theme)
    }

    fn drawn_placement(
        placement: &str,
        flipped: bool,
        coords: fenlens_render::Coords,
        theme: &str,
    ) -> (RgbImage, [[f32; 2]; 4]) {
        use fenlens_render::{BoardLook, BoardStyle, PieceSet, draw_board};
        let board = fenlens_fen::read(placement.as_bytes()).setup.unwrap().board;
        let style = BoardStyle {
            look: match theme {
                "book" => BoardLook::Book {
                    hatch: fenlens_render::style::Hatch::Diagonal,
                },
                _ => BoardLook::flat(theme).unwrap(),
            },
            coords,
            flipped,
            ..BoardStyle::default()
        };
        let drawn = draw_board(&board, &style, &PieceSet::builtin(), 64);
        let rgba = fenlens_render::draw::pixmap_to_rgba(&drawn.pixmap);
        (
            image::DynamicImage::ImageRgba8(rgba).to_rgb8(),
            drawn.corners(),
        )
    }

    #[test]
    fn file_letters_inside_or_below_the_board_give_the_orientation() {
        use fenlens_render::Coords;
        for theme in ["brown", "green", "light-grey"] {
            for coords in [Coords::Inside, Coords::Outside] {
                for flipped in [false, true] {
                    let (image, corners) = drawn(flipped, coords, theme);
                    let read = orient_from_labels(&image, corners)
                        .unwrap_or_else(|| panic!("{theme} {coords:?} {flipped}: no labels read"));
                    assert_eq!(read.flipped, flipped, "{theme} {coords:?}");
                    assert!(read.confidence > 0.9);
                }
            }
        }
    }

    #[test]
    fn letters_beside_pieces_in_the_bottom_row_still_count() {
        use fenlens_render::Coords;
        // Pieces stand on most bottom squares; some letters are hidden or crowded by them.
        for (placement, theme) in [
            ("r3k2r/8/8/8/8/8/8/RN1QKB1R", "brown"),
            ("8/8/8/3k4/4K3/8/8/R1B1QB1R", "blue"),
        ] {
            for flipped in [false, true] {
                let (image, corners) = drawn_placement(placement, flipped, Coords::Inside, theme);
                let read = orient_from_labels(&image, corners)
                    .unwrap_or_else(|| panic!("{placement} {flipped}: no labels read"));
                assert_eq!(read.flipped, flipped, "{placement}");
            }
        }
    }

    #[test]
    fn a_piece_base_reaching_into_a_letters_corner_is_not_taken_for_the_letter() {
        use fenlens_render::Coords;
        // A wide base (a dark bar from the square's middle towards its lower right corner, a
        // little above the letter's top and apart from it) in three of the four columns of one
        // parity: that ink starts higher than the letters', and voted for the wrong
        // orientation while the top of all ink in the corner was taken for the letter's.
        for theme in ["brown", "blue"] {
            for flipped in [false, true] {
                let (mut image, corners) = drawn(flipped, Coords::Inside, theme);
                let [[x0, y0], [x1, _], _, [_, y3]] = corners;
                let square = ((x1 - x0) / 8.0, (y3 - y0) / 8.0);
                for column in [0, 2, 4] {
                    let left = x0 + (column as f32 + 0.3) * square.0;
                    let right = x0 + (column as f32 + 0.72) * square.0;
                    let (top, bottom) = (y0 + 7.72 * square.1, y0 + 7.77 * square.1);
                    for y in top as u32..bottom as u32 {
                        for x in left as u32..right as u32 {
                            image.put_pixel(x, y, image::Rgb([20, 20, 20]));
                        }
                    }
                }
                let read = orient_from_labels(&image, corners)
                    .unwrap_or_else(|| panic!("{theme} {flipped}: no labels read"));
                assert_eq!(read.flipped, flipped, "{theme}");
            }
        }
    }

    #[test]
    fn a_g_hanging_below_the_line_decides_where_letters_of_one_colour_are_read() {
        let some = |bottoms: [f32; 8], read: &[usize]| {
            let mut known = [None; 8];
            for &c in read {
                known[c] = Some(bottoms[c]);
            }
            known
        };
        // Flipped, the light squares hold g, e, c, a: the g (2nd column) hangs below.
        let flipped = [28.0, 31.0, 28.0, 28.0, 28.0, 28.0, 28.0, 28.0];
        assert_eq!(descender_column(&some(flipped, &[1, 3, 5, 7])), Some(1));
        assert_eq!(descender_column(&some(flipped, &[1, 3, 5])), Some(1));
        // One other letter is not a line; letters of both colours leave it to the pairs.
        assert_eq!(descender_column(&some(flipped, &[1, 3])), None);
        assert_eq!(descender_column(&some(flipped, &[0, 1, 3, 5])), None);
        // Two patches hanging: no answer.
        let two = [28.0, 31.0, 28.0, 31.0, 28.0, 28.0, 28.0, 28.0];
        assert_eq!(descender_column(&some(two, &[1, 3, 5, 7])), None);
        // A single parity of letters gives no clear pair, so the g decides alone.
        let tops = [
            None,
            Some(23.0),
            None,
            Some(23.0),
            None,
            Some(22.0),
            None,
            None,
        ];
        assert_eq!(pair_votes(&tops, CLEAR_DIFFERENCE), (0, 0));
        assert_eq!(letter_votes(&tops, None), None);
        assert_eq!(letter_votes(&tops, Some(1)), Some((0, DESCENDER_VOTES)));
        assert_eq!(letter_votes(&tops, Some(6)), Some((DESCENDER_VOTES, 0)));
    }

    #[test]
    fn slight_differences_decide_only_when_many_pairs_agree() {
        // A small flipped board: the even columns' letters (h, f, d, b) a row higher.
        let small = [20.0, 21.0, 20.0, 21.0, 20.0, 21.0, 21.0, 21.0].map(Some);
        assert_eq!(pair_votes(&small, CLEAR_DIFFERENCE), (0, 0));
        assert_eq!(pair_votes(&small, SLIGHT_DIFFERENCE), (0, 12));
        assert_eq!(letter_votes(&small, None), Some((0, 3)));
        // One pair against: no answer.
        let split = [20.0, 21.0, 20.0, 21.0, 20.0, 21.0, 21.0, 19.0].map(Some);
        assert_eq!(letter_votes(&split, None), None);
        // Too few pairs: no answer.
        let few = [
            Some(20.0),
            Some(21.0),
            Some(20.0),
            Some(21.0),
            None,
            None,
            None,
            None,
        ];
        assert_eq!(letter_votes(&few, None), None);
        // Clear votes are taken as they are.
        let clear = [24.0, 20.0, 24.0, 20.0, 24.0, 20.0, 24.0, 20.0].map(Some);
        assert_eq!(letter_votes(&clear, None), Some((16, 0)));
    }

    #[test]
    fn letters_below_a_printed_diagram_give_the_orientation() {
        use fenlens_render::Coords;
        // Printed diagrams: a black line around the board, the letters right under it.
        for placement in [KINGS, "r3k2r/8/8/8/8/8/8/RN1QKB1R"] {
            for flipped in [false, true] {
                let (image, corners) = drawn_placement(placement, flipped, Coords::Outside, "book");
                let read = orient_from_labels(&image, corners)
                    .unwrap_or_else(|| panic!("{placement} {flipped}: no labels read"));
                assert_eq!(read.flipped, flipped, "{placement}");
            }
        }
    }

    /// Two kings on a brown board of 64-pixel squares in a white picture whose margins on the
    /// left and below are 0.28 squares (18 pixels) deep, narrower than the label places; black
    /// digits centred in the left margin and letters in the bottom one, set on a baseline or
    /// each hung from one line by its own top (`from_tops`, as python's `chessboard-image`
    /// anchors them). The picture and its board's corners.
    fn labels_in_narrow_margins(flipped: bool, from_tops: bool) -> (RgbImage, [[f32; 2]; 4]) {
        use fenlens_render::resvg::tiny_skia::{Color, Pixmap, PixmapPaint, Transform};
        use fenlens_render::text::{self, Face, Pen};
        use fenlens_render::{BoardLook, BoardStyle, PieceSet, draw_board};
        const SQUARE: f32 = 64.0;
        const MARGIN: u32 = 18;
        let board = fenlens_fen::read(KINGS.as_bytes()).setup.unwrap().board;
        let style = BoardStyle {
            look: BoardLook::flat("brown").unwrap(),
            flipped,
            ..BoardStyle::default()
        };
        let drawn = draw_board(&board, &style, &PieceSet::builtin(), SQUARE as u32);
        let side = drawn.pixmap.width();
        let mut picture = Pixmap::new(MARGIN + side, side + MARGIN).unwrap();
        picture.fill(Color::WHITE);
        let paint = PixmapPaint::default();
        picture.draw_pixmap(
            MARGIN as i32,
            0,
            drawn.pixmap.as_ref(),
            &paint,
            Transform::identity(),
            None,
        );
        let pen = Pen::new(Face::Sans, 0.2 * SQUARE, [0, 0, 0]);
        // How far below its baseline's height a letter drawn alone shows its first ink.
        let ink_top = |label: &str| {
            let mut alone = Pixmap::new(32, 32).unwrap();
            text::draw(&mut alone, label, pen, 0.0, 24.0);
            let first = (0..32).find(|&y| (0..32).any(|x| alone.pixel(x, y).unwrap().alpha() > 0));
            first.unwrap() as f32 - 24.0
        };
        let bottom = side as f32;
        for col in 0..8u32 {
            let file = if flipped { 7 - col } else { col };
            let label = char::from(b'a' + file as u8).to_string();
            let x = MARGIN as f32 + (col as f32 + 0.5) * SQUARE
                - text::width(&label, Face::Sans, pen.size) / 2.0;
            let baseline = if from_tops {
                bottom + 3.0 - ink_top(&label)
            } else {
                bottom + 0.8 * MARGIN as f32
            };
            text::draw(&mut picture, &label, pen, x, baseline);
        }
        for row in 0..8u32 {
            let rank = if flipped { row + 1 } else { 8 - row };
            let label = rank.to_string();
            let x = MARGIN as f32 / 2.0 - text::width(&label, Face::Sans, pen.size) / 2.0;
            let baseline = (row as f32 + 0.5) * SQUARE + pen.size * 0.36;
            text::draw(&mut picture, &label, pen, x, baseline);
        }
        let rgba = fenlens_render::draw::pixmap_to_rgba(&picture);
        let (left, right) = (MARGIN as f32, (MARGIN + side) as f32);
        (
            image::DynamicImage::ImageRgba8(rgba).to_rgb8(),
            [[left, 0.0], [right, 0.0], [right, bottom], [left, bottom]],
        )
    }

    /// Asserts that the file letters are read, the right way up (`flipped`), surer than 0.9.
    fn assert_letters_read_surely(image: &RgbImage, corners: [[f32; 2]; 4], flipped: bool) {
        let letters = orient_from_labels(image, corners)
            .unwrap_or_else(|| panic!("{flipped}: no letters read"));
        assert_eq!(letters.flipped, flipped, "letters {letters:?}");
        assert!(letters.confidence > 0.9, "{letters:?}");
    }

    #[test]
    fn labels_in_margins_narrower_than_their_places_are_read() {
        // The places beside the board reach 0.44 squares below it and 0.45 to its left; the
        // picture ends 0.28 squares from the board. Read as far as it goes, both label rows
        // give the orientation.
        for flipped in [false, true] {
            let (image, corners) = labels_in_narrow_margins(flipped, false);
            assert_letters_read_surely(&image, corners, flipped);
            let digits = orient_from_ranks(&image, corners)
                .unwrap_or_else(|| panic!("{flipped}: no digits read"));
            assert_eq!(digits.flipped, flipped, "digits {digits:?}");
            // The board cut off on the left, a file and a half gone with the digits: the
            // letters under the files in view are still read.
            let gone = 18 + 96;
            let cut =
                image::imageops::crop_imm(&image, gone, 0, image.width() - gone, image.height())
                    .to_image();
            let shifted = corners.map(|[x, y]| [x - gone as f32, y]);
            let letters = orient_from_labels(&cut, shifted)
                .unwrap_or_else(|| panic!("{flipped}: no letters read on the cut board"));
            assert_eq!(letters.flipped, flipped, "cut {letters:?}");
        }
        // With the margins cut off, there is nothing to read.
        let (image, corners) = labels_in_narrow_margins(false, false);
        let board_only = image::imageops::crop_imm(&image, 18, 0, 512, 512).to_image();
        let at_origin = corners.map(|[x, y]| [x - 18.0, y]);
        assert_eq!(orient_from_labels(&board_only, at_origin), None);
        assert_eq!(orient_from_ranks(&board_only, at_origin), None);
    }

    #[test]
    fn letters_hung_from_their_tops_are_read_by_which_end_higher() {
        // Their tops stand on one line, so the ascenders tell nothing; a, c and e end higher.
        for flipped in [false, true] {
            let (image, corners) = labels_in_narrow_margins(flipped, true);
            assert_letters_read_surely(&image, corners, flipped);
        }
    }

    #[test]
    fn only_the_short_letters_ending_higher_tell_the_way_up() {
        // Upright, a, c and e (columns 0, 2, 4) end four rows higher; turned, e, c and a
        // (columns 3, 5, 7); one column unread; a line tilted a row across the eight.
        let upright = [20.0, 24.0, 20.0, 24.0, 20.0, 24.0, 24.0, 24.0].map(Some);
        assert!(!short_letters_end_higher(&upright).unwrap().flipped);
        let mut turned = [24.0, 24.0, 24.0, 20.0, 24.0, 20.0, 24.0, 20.0].map(Some);
        turned[1] = None;
        assert!(short_letters_end_higher(&turned).unwrap().flipped);
        let tilted: [Option<f32>; 8] =
            std::array::from_fn(|c| upright[c].map(|b| b + c as f32 / 7.0));
        assert!(!short_letters_end_higher(&tilted).unwrap().flipped);
        // Type on a baseline, a "g" hanging below it: no reading.
        let baseline = [20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 24.0, 20.0].map(Some);
        assert_eq!(short_letters_end_higher(&baseline), None);
        // Bottoms scattered as much as the step: no reading.
        let scattered = [22.0, 28.0, 19.0, 24.0, 22.0, 20.0, 22.0, 24.0].map(Some);
        assert_eq!(short_letters_end_higher(&scattered), None);
        // Two columns unread: too few to tell.
        let mut few = upright;
        few[1] = None;
        few[6] = None;
        assert_eq!(short_letters_end_higher(&few), None);
    }

    #[test]
    fn no_labels_no_reading() {
        let (image, corners) = drawn(false, fenlens_render::Coords::None, "brown");
        assert_eq!(orient_from_labels(&image, corners), None);
        assert_eq!(orient_from_ranks(&image, corners), None);
    }

    #[test]
    fn rank_digits_inside_the_left_column_give_the_orientation() {
        use fenlens_render::Coords;
        // Pieces on the a-file stand beside some digits; the pairs they do not spoil still vote.
        for (placement, theme) in [
            (KINGS, "brown"),
            (KINGS, "green"),
            (KINGS, "light-grey"),
            ("r3k3/p7/8/8/8/8/P7/R3K3", "blue"),
        ] {
            for flipped in [false, true] {
                let (image, corners) = drawn_placement(placement, flipped, Coords::Inside, theme);
                let read = orient_from_ranks(&image, corners)
                    .unwrap_or_else(|| panic!("{placement} {theme} {flipped}: no digits read"));
                assert_eq!(read.flipped, flipped, "{placement} {theme}");
            }
        }
    }

    #[test]
    fn rank_digits_beside_the_board_give_the_orientation_where_the_letters_are_cut_off() {
        use fenlens_render::Coords;
        // A screenshot cut just below the board: the letters under it are gone, the digits in
        // the margin on its left remain.
        for theme in ["brown", "green", "book"] {
            for flipped in [false, true] {
                let (image, corners) = drawn_placement(KINGS, flipped, Coords::Outside, theme);
                let bottom = corners[2][1].round() as u32;
                let cut = image::imageops::crop_imm(&image, 0, 0, image.width(), bottom).to_image();
                assert_eq!(orient_from_labels(&cut, corners), None, "{theme} {flipped}");
                let read = orient_from_ranks(&cut, corners)
                    .unwrap_or_else(|| panic!("{theme} {flipped}: no digits read beside"));
                assert_eq!(read.flipped, flipped, "{theme}");
                assert!(read.confidence > LABELS_ALONE_ABOVE, "{theme} {read:?}");
            }
        }
    }

    #[test]
    fn digits_beside_the_board_are_read_only_where_most_show_and_pairs_and_fit_agree() {
        // Upright, top to bottom: 8 7 6 5 4 3 2 1, inks as DejaVu Sans draws them.
        let ink = |digit: usize| Some((DIGIT_INK[digit - 1] * 100.0) as usize);
        let upright: [Option<usize>; 8] = std::array::from_fn(|row| ink(8 - row));
        let read = digits_beside_the_board(&upright).unwrap();
        assert!(!read.flipped && read.confidence > 0.9, "{read:?}");
        let mut turned = upright;
        turned.reverse();
        assert!(digits_beside_the_board(&turned).unwrap().flipped);
        // Five shown: a margin hides no digit, so this is not a row of digits.
        let mut few = upright;
        few[1] = None;
        few[2] = None;
        few[3] = None;
        assert_eq!(digits_beside_the_board(&few), None);
        // The one voting pair says upright (70 against 60), the middle digits turned (62 where
        // a "6" would stand, 99 where a "3" would): no reading.
        let mixed = [70, 66, 62, 82, 80, 99, 66, 60].map(Some);
        assert!(!pair_votes_of_digits(&mixed).unwrap().flipped);
        assert!(fit_of_digits(&mixed).unwrap().flipped);
        assert_eq!(digits_beside_the_board(&mixed), None);
    }

    #[test]
    fn letters_on_a_tilted_line_vote_once_the_tilt_is_taken_out() {
        // Upright letters (b, d, f a row or two higher than a, c, e) on an edge located a sixth
        // of a square off at one end: the far pairs vote for the tilt, and nothing decides.
        let tilted = [
            Some(12.0),
            Some(11.0),
            Some(16.0),
            Some(16.0),
            Some(22.0),
            Some(20.0),
            None,
            None,
        ];
        assert_eq!(letter_votes(&tilted, None), None);
        let level = without_tilt(tilted).unwrap();
        let (upright, turned) = letter_votes(&level, None).unwrap();
        assert!(upright > turned, "{level:?}");
        // No tilt: nothing to take out.
        let flat = [20.0, 18.0, 20.0, 18.0, 20.0, 18.0, 20.0, 18.0].map(Some);
        assert_eq!(without_tilt(flat), None);
        // Specks scattered about a slope, as a texture gives: not letters on a line.
        let scattered = [
            Some(10.0),
            Some(19.0),
            Some(12.0),
            Some(22.0),
            Some(13.0),
            Some(15.0),
            Some(24.0),
            Some(18.0),
        ];
        assert_eq!(without_tilt(scattered), None);
    }

    #[test]
    fn rank_digits_hidden_from_both_pairs_are_fitted_from_the_others() {
        use fenlens_render::Coords;
        // Rooks on a8 and a2 and, for Black's side, on h1 and h7: the left column's first and
        // seventh squares from the top either way up, so the "8" (or "1") and the "2" (or "7")
        // are hidden and the pairs cannot vote.
        let placement = "r7/7R/8/8/8/8/r7/7R";
        for theme in ["brown", "green", "light-grey"] {
            for flipped in [false, true] {
                let (image, corners) = drawn_placement(placement, flipped, Coords::Inside, theme);
                let projection = board_to_picture(corners).unwrap();
                let inks = digit_inks(&image, &projection, RANK_PLACES[0]);
                assert_eq!(
                    pair_votes_of_digits(&inks),
                    None,
                    "{theme} {flipped}: {inks:?}"
                );
                let read = orient_from_ranks(&image, corners)
                    .unwrap_or_else(|| panic!("{theme} {flipped}: no digits read"));
                assert_eq!(read.flipped, flipped, "{theme}: {inks:?}");
            }
        }
    }

    #[test]
    fn digits_fit_the_order_their_inks_follow() {
        // The inks of DejaVu Sans Bold's digits (against its "8": 1 0.66, 2 0.76, 3 0.79,
        // 6 0.93, 7 0.61), as 100 samples for the "8".
        let ink = |digit: usize| [66, 76, 79, 81, 83, 93, 61, 100][digit - 1];
        // The top row and the seventh hidden, as by pieces: upright the 8 and the 2.
        let shown = |flipped: bool| -> [Option<usize>; 8] {
            std::array::from_fn(|row| {
                let digit = if flipped { row + 1 } else { 8 - row };
                (row != 0 && row != 6).then(|| ink(digit))
            })
        };
        for flipped in [false, true] {
            let inks = shown(flipped);
            assert_eq!(pair_votes_of_digits(&inks), None);
            let read = fit_of_digits(&inks).unwrap();
            assert_eq!(read.flipped, flipped);
            assert!(read.confidence > 0.75, "{read:?}");
        }
        // Digits that all show one ink say nothing either way; one digit alone is no fit.
        let flat = [Some(80); 8];
        assert!(fit_of_digits(&flat).unwrap().confidence < 0.51);
        let mut one = [None; 8];
        one[3] = Some(80);
        assert_eq!(fit_of_digits(&one), None);
        // Digits that fit both orders loosely are read less surely than the same contrast
        // fitted tightly.
        let mut noisy = shown(false);
        noisy[3] = Some(40);
        noisy[6] = Some(130);
        let loose = fit_of_digits(&noisy).unwrap();
        let tight = fit_of_digits(&shown(false)).unwrap();
        assert!(loose.confidence < tight.confidence, "{loose:?} {tight:?}");
    }

    #[test]
    fn rank_digits_inside_the_right_column_give_the_orientation() {
        use fenlens_render::Coords;
        // Mirrored left to right, the digits stand in the right column's top-right corners (as
        // lichess draws them), each in its row as before; a digit's ink does not change.
        for flipped in [false, true] {
            let (image, corners) = drawn(flipped, Coords::Inside, "brown");
            let mirrored = image::imageops::flip_horizontal(&image);
            let read = orient_from_ranks(&mirrored, corners)
                .unwrap_or_else(|| panic!("{flipped}: no digits read on the right"));
            assert_eq!(read.flipped, flipped);
        }
    }

    #[test]
    fn letters_and_digits_that_agree_are_surer_than_either() {
        let upright = |confidence| Orientation {
            flipped: false,
            confidence,
        };
        let joined = join_labels(upright(0.9), upright(0.75));
        assert!(!joined.flipped && joined.confidence > 0.95, "{joined:?}");
        let split = join_labels(
            upright(0.9),
            Orientation {
                flipped: true,
                confidence: 0.75,
            },
        );
        assert!(!split.flipped && split.confidence < 0.9, "{split:?}");
    }
}
