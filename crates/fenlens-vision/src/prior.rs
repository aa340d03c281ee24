//! Prior: where pieces stand in games.
//!
//! A classifier unsure between a pawn and a bishop on the seventh rank, or between a rook and a
//! knight in a corner, can be helped by what a square usually holds in a game: pawns fill the
//! second and seventh ranks, kings sit on their castled squares, rooks in the corners. Each
//! square's class probabilities are multiplied by the frequency of the class on that square
//! ([`GAME_COUNTS`], counted over positions of the renderer's game sampler, with one added to
//! every count) raised to the small power [`WEIGHT`], so that only close calls turn: the widest
//! ratio between two classes' weights is about 4.4 (a class seen on every one of the 20,000
//! positions against one never seen: 20,000^0.15), so a reading turns only where the other class
//! already has more than a quarter of the best one's probability.
//!
//! Measured on held-out designs (boards exactly right, seeds 2026 / 777 and the calibration set,
//! seed 77): 77.7% → 78.8%, 72.3% → 73.7% and 76.7% → 77.3%; game positions 90.0% → 91.6%,
//! 84.4% → 86.1% and 89.0% → 90.4%; random placements (any piece anywhere) 19.5% → 19.5%,
//! 18.9% → 18.9% and 24.4% → 22.2%. Flags a board fall (4.24 → 3.49, seed 2026), as close
//! calls become clear. Weights 0.05-0.35 were tried; 0.1-0.2 read the most boards.
//!
//! Where the network reads a piece ([`OCCUPIED_FROM`]), only the piece classes are weighed and
//! their share is kept: the prior says which piece stands on a square, not whether one does
//! (forty-fourth session; before, the heavier prior of doubted designs weighed a font's rooks
//! on a1, read as queens or pawns, into empty squares).
//!
//! The orientation ([`crate::orient`]) counts by these habits too ([`log_likelihood`]), and on
//! sparse readings also by those of late endgames ([`SPARSE_GAME_COUNTS`]) and of pieces set
//! anywhere ([`SCATTERED_COUNTS`]) ([`log_likelihood_by`]).
//!
//! Assumes probabilities in standard orientation (a1 first), as [`crate::compose`] turns them.

use fenlens_fen::shakmaty::{Board, Square};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::classify::{CLASSES, piece_class, piece_share, renormalize};
use crate::compose::shown_at;

/// How strongly the prior weighs: the power the class frequency is raised to.
pub const WEIGHT: f32 = 0.15;
/// The power on a board whose design the classifier doubts
/// ([`crate::compose::design_doubted`]: four or more pieces uncertain) and whose first reading
/// looks like a game ([`GAME_LIKE_FROM`]), which is composed again with it: there the network's
/// readings say little, and games say more about what a square holds. Shipped four, boards
/// exactly right, without it / 0.6 (twenty-ninth session, on every doubted board) / 1.0 on
/// game-like readings (thirtieth session): 14 foreign designs (seed 5150) 52.2 / 54.0 / 54.8%,
/// 11 chess fonts (seed 6161) 23.2 / 26.5 / 29.8%, held-out lichess designs (seeds 2026 / 777)
/// 85.8 / 84.8 / 85.7% and 83.8 / 83.0 / 83.7%; random placements, which no game holds, lost
/// (41.4 / 37.9 -> 35.6 / 32.6%) until only game-like readings were weighed. 0.3 gained half as
/// much as 0.6, 1.5 no more than 1.0. The figures are in the model card ("The heavier prior
/// only on game-like readings, at power 1.0").
pub const DOUBTED_WEIGHT: f32 = 1.0;
/// How game-like ([`game_likeness`]) a doubted board's first composition must be for
/// [`DOUBTED_WEIGHT`] to weigh on it: pieces scattered as no game leaves them are better read
/// by the pixels alone. Of the truths of seven rendered sets (5,520 pictures), 89.7% of game
/// positions score at least this, 0.8% of random placements and 14.8% of sparse endgames
/// (which the renderer scatters too). Thirtieth session, shipped four, power 0.6, boards
/// exactly right: random placements keep what they read without the heavier prior (14 foreign
/// designs, seed 5150, 15.5 -> 19.3%; held-out lichess designs, seeds 2026 / 777, 35.6 / 32.6
/// -> 41.4 / 37.9%) and game positions nearly all they gained (foreign designs 62.1 -> 61.8%,
/// chess fonts 31.2 -> 31.0%). -1.0 and 0.0 were tried (model card, "The heavier prior only on
/// game-like readings, at power 1.0").
pub const GAME_LIKE_FROM: f32 = -0.5;
/// A square whose piece classes together hold more than this share keeps it when weighed: the
/// prior says which piece stands there, not whether one does, which the pixels say far more
/// surely. Before (forty-fourth session), the heavier prior weighed pieces of designs never
/// seen into empty squares: a font's rook on a1 read as a queen, a pawn or a king, each rare
/// there, became an empty square, which games often leave a1. Shipped four, boards exactly right
/// (0.2 / 0.5 / 0.8): chess fonts (seed 6161) 40.6 / 40.6 / 40.3%, foreign designs (seed 5150)
/// 61.4 / 61.4 / 61.5%, held-out lichess designs (seed 2026) 86.8% each; flags a board on clean
/// screenshots 0.53 / 0.47 / 0.47. Keeping every square's share (empty squares' too) took away
/// the prior's support of empty squares read with doubt: 0.55 flags a board there.
pub const OCCUPIED_FROM: f32 = 0.5;
/// How many game positions [`GAME_COUNTS`] counts.
pub const SAMPLED_GAMES: usize = 20_000;
/// A placement of fewer pieces than this (kings included) is sparse: a late endgame, whose
/// squares games fill otherwise than the whole game's ([`SPARSE_GAME_COUNTS`]). Of the
/// sampler's game positions, about one in five.
pub const SPARSE_BELOW: usize = 10;
/// How many positions [`SPARSE_GAME_COUNTS`] and [`SCATTERED_COUNTS`] each count.
pub const SAMPLED_SPARSE: usize = 20_000;
/// The sampler's seed for [`GAME_COUNTS`].
pub const SEED: u64 = 99;

/// Counts each class on each square (a1 first) over `games` positions of
/// [`fenlens_render::positions::game`] drawn with `seed`.
pub fn count_classes(games: usize, seed: u64) -> [[u16; CLASSES]; 64] {
    count_sampled(games, seed, |rng| {
        Some(fenlens_render::positions::game(rng).board)
    })
}

/// Counts each class on each square (a1 first) over the first `positions` positions of
/// [`fenlens_render::positions::game`] drawn with `seed` that hold fewer than [`SPARSE_BELOW`]
/// pieces.
pub fn count_sparse_game_classes(positions: usize, seed: u64) -> [[u16; CLASSES]; 64] {
    count_sampled(positions, seed, |rng| {
        let board = fenlens_render::positions::game(rng).board;
        (board.occupied().count() < SPARSE_BELOW).then_some(board)
    })
}

/// Counts each class on each square (a1 first) over `positions` positions of
/// [`fenlens_render::positions::endgame`] (two kings and one to six pieces set anywhere) drawn
/// with `seed`.
pub fn count_scattered_classes(positions: usize, seed: u64) -> [[u16; CLASSES]; 64] {
    count_sampled(positions, seed, |rng| {
        Some(fenlens_render::positions::endgame(rng).board)
    })
}

/// Counts each class on each square (a1 first) over the first `positions` boards `sample`
/// gives (it gives `None` for a position it passes over), drawn with `seed`.
fn count_sampled(
    positions: usize,
    seed: u64,
    mut sample: impl FnMut(&mut ChaCha8Rng) -> Option<Board>,
) -> [[u16; CLASSES]; 64] {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut counts = [[0u16; CLASSES]; 64];
    let mut counted = 0;
    while counted < positions {
        let Some(board) = sample(&mut rng) else {
            continue;
        };
        for square in Square::ALL {
            let count = &mut counts[square as usize][piece_class(board.piece_at(square))];
            *count = count.saturating_add(1);
        }
        counted += 1;
    }
    counts
}

/// Multiplies a square's class probabilities by the prior's weights and renormalizes them;
/// where the pieces' share is over [`OCCUPIED_FROM`], only the piece classes are weighed and
/// their share is kept.
pub fn weigh(probabilities: &mut [f32; CLASSES], square: Square) {
    weigh_by(probabilities, square, WEIGHT);
}

/// [`weigh`] with the class frequencies raised to `weight` instead of [`WEIGHT`].
pub fn weigh_by(probabilities: &mut [f32; CLASSES], square: Square, weight: f32) {
    let occupied = piece_share(probabilities);
    let keep = occupied > OCCUPIED_FROM;
    for (class, p) in probabilities.iter_mut().enumerate().skip(usize::from(keep)) {
        *p *= frequency(square, class).powf(weight);
    }
    if keep {
        let weighed = piece_share(probabilities);
        if weighed > 0.0 {
            for p in probabilities[1..].iter_mut() {
                *p *= occupied / weighed;
            }
        }
    }
    renormalize(probabilities);
}

/// How much a placement looks like a game: the mean, over its occupied squares, of the natural
/// logarithm of how much more often games hold that piece on that square than on the average
/// square ([`GAME_COUNTS`], one added to every count). Game positions score well above 0 (the
/// devset's 29 placements, made by other programs from random games: 0.23 to 2.0); pieces
/// scattered anywhere score below it (random placements of the renderer: 95% under -0.6). An
/// empty board scores 0.
pub fn game_likeness(board: &Board) -> f32 {
    let mut sum = 0.0f32;
    let mut pieces = 0u32;
    for (square, piece) in board {
        let class = piece_class(Some(piece));
        sum += (frequency(square, class) / AVERAGE_FREQUENCY[class]).ln();
        pieces += 1;
    }
    if pieces == 0 {
        0.0
    } else {
        sum / pieces as f32
    }
}

/// The natural logarithm of how likely games make a board's readings, its squares counted as
/// independent: the sum over the 64 squares of the log of how often games hold there what the
/// square may hold, each class weighed by its probability. `readings` are the 13 class
/// probabilities of the squares as displayed (top row first, left to right); `flipped` takes
/// the board as shown with Black at the bottom. A sure reading counts the log of how often
/// games hold its piece there; an unsure one counts less, so that a piece misread with little
/// certainty on a square no game would put it on says little about the board.
pub fn log_likelihood(readings: &[[f32; CLASSES]], flipped: bool) -> f32 {
    log_likelihood_by(Habits::Games, readings, flipped)
}

/// Whose habits a likelihood counts by: which positions' class counts on each square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Habits {
    /// Game positions of every phase ([`GAME_COUNTS`]).
    Games,
    /// Game positions of fewer than [`SPARSE_BELOW`] pieces ([`SPARSE_GAME_COUNTS`]): late
    /// endgames, whose kings have left their corners but mostly not their own half.
    SparseGames,
    /// Two kings and a few pieces set anywhere, as the renderer scatters its sparse endgames
    /// ([`SCATTERED_COUNTS`]): what says nothing about which way a board stands.
    Scattered,
}

/// [`log_likelihood`] by the class frequencies of `habits` instead of every game's.
pub fn log_likelihood_by(habits: Habits, readings: &[[f32; CLASSES]], flipped: bool) -> f32 {
    let table: &[[f32; CLASSES]; 64] = match habits {
        Habits::Games => &FREQUENCY,
        Habits::SparseGames => &SPARSE_FREQUENCY,
        Habits::Scattered => &SCATTERED_FREQUENCY,
    };
    readings
        .iter()
        .enumerate()
        .filter_map(|(cell, probabilities)| Some((shown_at(cell, flipped)?, probabilities)))
        .map(|(square, probabilities)| {
            probabilities
                .iter()
                .zip(&table[square as usize])
                .map(|(p, frequency)| p * frequency)
                .sum::<f32>()
                // Every frequency is above 0; only a row of zeros, no reading, gets here.
                .max(f32::MIN_POSITIVE)
                .ln()
        })
        .sum()
}

/// The natural logarithm of the share of games holding `class` on `square` ([`GAME_COUNTS`],
/// one added to every count): one square's term of [`log_likelihood`], which
/// [`crate::relabel`] adds up over the squares a move changes.
pub fn log_frequency(square: Square, class: usize) -> f32 {
    frequency(square, class).ln()
}

/// The share of games holding `class` on `square` ([`GAME_COUNTS`], one added to every count).
fn frequency(square: Square, class: usize) -> f32 {
    FREQUENCY[square as usize][class]
}

/// [`frequency`] for every square (a1 first) and class, worked out once from [`GAME_COUNTS`].
static FREQUENCY: std::sync::LazyLock<[[f32; CLASSES]; 64]> =
    std::sync::LazyLock::new(|| frequencies(&GAME_COUNTS));

/// [`frequency`]'s table for [`SPARSE_GAME_COUNTS`].
static SPARSE_FREQUENCY: std::sync::LazyLock<[[f32; CLASSES]; 64]> =
    std::sync::LazyLock::new(|| frequencies(&SPARSE_GAME_COUNTS));

/// [`frequency`]'s table for [`SCATTERED_COUNTS`].
static SCATTERED_FREQUENCY: std::sync::LazyLock<[[f32; CLASSES]; 64]> =
    std::sync::LazyLock::new(|| frequencies(&SCATTERED_COUNTS));

/// Each square's class counts as shares of the square's positions, one added to every count
/// so that no class is impossible.
fn frequencies(counts: &[[u16; CLASSES]; 64]) -> [[f32; CLASSES]; 64] {
    counts.map(|counts| {
        let total = counts.iter().map(|&c| f32::from(c) + 1.0).sum::<f32>();
        counts.map(|count| (f32::from(count) + 1.0) / total)
    })
}

/// Each class's [`frequency`] averaged over the 64 squares.
static AVERAGE_FREQUENCY: std::sync::LazyLock<[f32; CLASSES]> = std::sync::LazyLock::new(|| {
    let mut average = [0.0f32; CLASSES];
    for square in FREQUENCY.iter() {
        for (a, f) in average.iter_mut().zip(square) {
            *a += f / 64.0;
        }
    }
    average
});

/// How often each square (a1 first) holds each class (empty, P N B R Q K, p n b r q k) over
/// [`SAMPLED_GAMES`] positions of the renderer's game sampler with seed [`SEED`]; printed by
/// `cargo run --release -p fenlens-vision --example fit_prior`.
#[rustfmt::skip]
pub const GAME_COUNTS: [[u16; CLASSES]; 64] = [
    [10624, 0, 32, 84, 8819, 33, 108, 0, 86, 109, 66, 29, 10],
    [13592, 0, 4837, 36, 996, 115, 228, 0, 47, 66, 46, 29, 8],
    [10994, 0, 75, 7486, 376, 214, 622, 0, 67, 64, 62, 34, 6],
    [11819, 0, 115, 58, 495, 6577, 706, 0, 88, 82, 34, 18, 8],
    [9349, 0, 66, 52, 298, 102, 9998, 0, 25, 38, 45, 14, 13],
    [10607, 0, 64, 7425, 943, 32, 674, 0, 89, 92, 45, 22, 7],
    [12830, 0, 4724, 36, 993, 27, 1223, 0, 45, 48, 48, 17, 9],
    [10773, 0, 49, 100, 8383, 12, 333, 0, 136, 106, 71, 29, 8],
    [11002, 7779, 135, 27, 612, 22, 112, 29, 110, 75, 76, 14, 7],
    [11940, 6721, 59, 582, 170, 45, 213, 29, 43, 104, 54, 19, 21],
    [11856, 7054, 179, 56, 96, 239, 278, 33, 71, 63, 40, 20, 15],
    [11294, 6764, 385, 425, 115, 197, 595, 31, 61, 62, 31, 21, 19],
    [11371, 6689, 408, 425, 90, 157, 656, 45, 37, 70, 21, 21, 10],
    [11343, 7203, 169, 57, 158, 25, 772, 36, 108, 50, 38, 22, 19],
    [11777, 6797, 54, 561, 143, 23, 400, 35, 26, 102, 37, 23, 22],
    [11033, 7611, 135, 36, 589, 13, 287, 36, 105, 49, 58, 29, 19],
    [14730, 2446, 1328, 412, 262, 25, 77, 342, 49, 199, 73, 43, 14],
    [16481, 2468, 115, 54, 107, 131, 108, 301, 84, 62, 47, 24, 18],
    [15699, 2261, 1025, 144, 67, 56, 163, 327, 81, 83, 48, 22, 24],
    [16330, 2421, 95, 285, 80, 106, 198, 280, 53, 73, 38, 22, 19],
    [16181, 2515, 102, 300, 69, 41, 235, 303, 99, 66, 40, 24, 25],
    [15759, 2176, 1015, 124, 88, 100, 225, 296, 51, 85, 42, 15, 24],
    [16471, 2505, 107, 67, 95, 25, 215, 294, 75, 57, 45, 22, 22],
    [14677, 2404, 1325, 414, 276, 17, 152, 350, 42, 206, 74, 30, 33],
    [15329, 2900, 224, 53, 119, 91, 53, 926, 77, 91, 81, 26, 30],
    [16121, 2078, 81, 112, 72, 47, 67, 739, 355, 211, 52, 30, 35],
    [16025, 2358, 239, 196, 50, 38, 78, 732, 77, 90, 44, 27, 46],
    [16107, 2302, 223, 101, 58, 21, 82, 689, 188, 114, 32, 35, 48],
    [15992, 2283, 222, 107, 39, 40, 95, 806, 191, 108, 39, 31, 47],
    [16047, 2229, 243, 208, 60, 41, 101, 790, 81, 77, 32, 35, 56],
    [16078, 2065, 66, 87, 66, 74, 88, 746, 362, 236, 48, 30, 54],
    [15443, 2795, 214, 57, 121, 21, 96, 910, 53, 87, 77, 86, 40],
    [15426, 916, 70, 99, 82, 21, 19, 2873, 189, 44, 128, 87, 46],
    [16125, 790, 382, 165, 61, 39, 37, 2030, 82, 122, 57, 32, 78],
    [16135, 833, 91, 88, 44, 23, 39, 2174, 208, 197, 46, 32, 90],
    [16112, 763, 170, 108, 54, 48, 55, 2150, 242, 102, 48, 52, 96],
    [16103, 724, 182, 106, 33, 23, 53, 2261, 236, 107, 44, 33, 95],
    [16019, 836, 93, 86, 45, 29, 48, 2184, 264, 199, 66, 28, 103],
    [16058, 779, 412, 205, 48, 34, 50, 2002, 51, 115, 67, 79, 100],
    [15502, 920, 59, 76, 88, 79, 49, 2762, 177, 58, 130, 21, 79],
    [14874, 381, 49, 205, 65, 30, 18, 2273, 1296, 415, 278, 33, 83],
    [16499, 283, 73, 69, 50, 19, 25, 2490, 106, 46, 82, 135, 123],
    [15856, 315, 77, 94, 53, 21, 24, 2135, 982, 157, 76, 46, 164],
    [16204, 308, 81, 67, 44, 28, 33, 2485, 90, 275, 73, 111, 201],
    [16373, 282, 97, 75, 38, 23, 32, 2350, 90, 289, 66, 52, 233],
    [15743, 308, 48, 88, 51, 20, 28, 2148, 1012, 135, 91, 98, 230],
    [16614, 268, 79, 58, 34, 39, 27, 2395, 102, 62, 97, 18, 207],
    [14906, 381, 53, 200, 69, 35, 23, 2267, 1238, 404, 253, 21, 150],
    [10835, 51, 92, 67, 56, 25, 9, 7958, 116, 26, 624, 28, 113],
    [11797, 36, 54, 91, 40, 22, 19, 6901, 63, 585, 142, 45, 205],
    [11639, 39, 69, 78, 50, 19, 14, 7218, 162, 64, 101, 245, 302],
    [11081, 46, 58, 62, 39, 28, 15, 6923, 428, 413, 113, 196, 598],
    [11322, 35, 52, 86, 29, 18, 19, 6831, 356, 397, 83, 142, 630],
    [11278, 34, 103, 44, 37, 28, 16, 7313, 176, 51, 137, 27, 756],
    [11613, 32, 24, 93, 40, 21, 21, 6943, 79, 579, 154, 13, 388],
    [10788, 39, 106, 54, 60, 30, 16, 7883, 137, 29, 557, 10, 291],
    [10491, 0, 88, 111, 78, 27, 8, 0, 39, 90, 8909, 39, 120],
    [13386, 0, 44, 65, 47, 39, 4, 0, 5087, 44, 976, 102, 206],
    [10930, 0, 51, 78, 41, 32, 8, 0, 66, 7618, 377, 215, 584],
    [11700, 0, 94, 78, 51, 32, 8, 0, 103, 57, 509, 6658, 710],
    [9267, 0, 34, 33, 34, 12, 16, 0, 66, 40, 282, 88, 10128],
    [10519, 0, 76, 84, 37, 18, 15, 0, 62, 7594, 893, 39, 663],
    [12595, 0, 44, 52, 54, 26, 7, 0, 5014, 39, 988, 12, 1169],
    [10742, 0, 123, 127, 52, 20, 7, 0, 48, 88, 8450, 20, 323],
];

/// How often each square (a1 first) holds each class over the first [`SAMPLED_SPARSE`]
/// positions of the renderer's game sampler with seed [`SEED`] that hold fewer than
/// [`SPARSE_BELOW`] pieces; printed by `cargo run --release -p fenlens-vision --example
/// fit_prior`.
#[rustfmt::skip]
pub const SPARSE_GAME_COUNTS: [[u16; CLASSES]; 64] = [
    [19024, 0, 44, 67, 118, 15, 319, 0, 114, 93, 121, 42, 43],
    [18859, 0, 126, 48, 82, 11, 540, 0, 86, 82, 75, 40, 51],
    [18764, 0, 56, 115, 100, 14, 607, 0, 81, 87, 87, 39, 50],
    [18818, 0, 63, 71, 77, 6, 670, 0, 63, 90, 69, 26, 47],
    [18747, 0, 51, 59, 72, 12, 758, 0, 54, 78, 87, 35, 47],
    [18671, 0, 57, 99, 79, 12, 781, 0, 70, 83, 77, 23, 48],
    [18662, 0, 108, 62, 105, 11, 750, 0, 66, 65, 84, 39, 48],
    [18791, 0, 54, 89, 116, 11, 603, 0, 92, 93, 97, 19, 35],
    [18610, 471, 52, 40, 69, 7, 392, 85, 59, 68, 69, 15, 63],
    [18647, 169, 59, 100, 89, 8, 571, 88, 42, 70, 53, 19, 85],
    [18642, 214, 57, 49, 54, 12, 646, 50, 58, 69, 52, 14, 83],
    [18563, 159, 77, 73, 54, 17, 741, 60, 49, 66, 48, 13, 80],
    [18527, 162, 82, 76, 64, 14, 782, 74, 45, 66, 46, 12, 50],
    [18388, 225, 52, 66, 74, 8, 826, 72, 52, 62, 54, 16, 105],
    [18414, 165, 49, 90, 83, 11, 830, 70, 40, 76, 59, 23, 90],
    [18381, 460, 47, 53, 74, 11, 655, 85, 57, 43, 52, 10, 72],
    [17364, 947, 86, 93, 73, 12, 289, 843, 56, 71, 68, 11, 87],
    [17976, 548, 45, 49, 72, 13, 389, 605, 60, 72, 51, 17, 103],
    [17911, 517, 83, 90, 77, 15, 456, 521, 66, 77, 61, 24, 102],
    [17997, 507, 57, 90, 57, 14, 490, 478, 37, 86, 64, 13, 110],
    [17928, 511, 50, 93, 57, 11, 537, 474, 60, 73, 71, 18, 117],
    [17866, 522, 72, 77, 57, 11, 570, 541, 41, 76, 37, 12, 118],
    [17780, 564, 46, 83, 65, 15, 552, 572, 62, 62, 61, 18, 120],
    [17236, 976, 104, 65, 76, 11, 459, 773, 40, 64, 65, 17, 114],
    [15991, 1980, 54, 58, 68, 8, 213, 1294, 50, 60, 66, 19, 139],
    [17475, 858, 45, 77, 69, 19, 268, 811, 59, 82, 59, 12, 166],
    [17325, 910, 76, 81, 62, 8, 314, 811, 54, 65, 59, 14, 221],
    [17596, 789, 63, 89, 57, 15, 291, 722, 51, 84, 55, 12, 176],
    [17460, 815, 57, 84, 49, 17, 338, 771, 55, 86, 70, 19, 179],
    [17335, 942, 50, 73, 56, 7, 361, 772, 57, 66, 51, 13, 217],
    [17417, 838, 60, 60, 47, 8, 315, 824, 50, 78, 58, 12, 233],
    [16032, 1810, 53, 72, 69, 19, 295, 1258, 40, 65, 83, 19, 185],
    [16039, 1334, 55, 63, 82, 13, 125, 1893, 47, 64, 73, 11, 201],
    [17539, 835, 66, 56, 43, 13, 159, 822, 53, 83, 58, 10, 263],
    [17454, 795, 57, 60, 61, 12, 175, 880, 66, 68, 65, 13, 294],
    [17406, 757, 61, 96, 64, 17, 205, 845, 70, 86, 59, 14, 320],
    [17471, 740, 61, 75, 61, 11, 185, 826, 67, 71, 59, 17, 356],
    [17356, 750, 68, 54, 66, 9, 201, 905, 54, 91, 63, 12, 371],
    [17436, 808, 67, 71, 62, 15, 210, 818, 52, 49, 54, 10, 348],
    [16075, 1254, 49, 56, 78, 10, 197, 1810, 55, 64, 59, 7, 286],
    [17314, 829, 56, 59, 59, 11, 87, 1056, 87, 81, 71, 14, 276],
    [17973, 590, 79, 55, 56, 6, 109, 581, 62, 47, 45, 11, 386],
    [17875, 585, 64, 87, 55, 13, 116, 537, 84, 91, 65, 14, 414],
    [17935, 523, 72, 76, 44, 11, 114, 515, 76, 74, 53, 16, 491],
    [17941, 481, 56, 59, 51, 13, 136, 504, 55, 83, 60, 12, 549],
    [17815, 505, 64, 83, 63, 14, 133, 549, 79, 72, 57, 5, 561],
    [17716, 561, 69, 68, 50, 14, 117, 615, 44, 67, 72, 11, 596],
    [17182, 807, 54, 58, 71, 10, 128, 977, 72, 76, 74, 10, 481],
    [18522, 102, 53, 66, 50, 11, 52, 490, 45, 58, 105, 11, 435],
    [18666, 89, 37, 85, 45, 9, 93, 196, 53, 99, 58, 14, 556],
    [18544, 76, 65, 77, 54, 9, 75, 238, 71, 53, 60, 18, 660],
    [18555, 58, 68, 58, 46, 11, 72, 195, 80, 64, 67, 8, 718],
    [18501, 66, 58, 72, 64, 10, 88, 160, 68, 80, 57, 16, 760],
    [18399, 76, 51, 64, 67, 18, 78, 208, 52, 68, 72, 8, 839],
    [18438, 69, 38, 61, 51, 12, 89, 202, 43, 99, 69, 11, 818],
    [18387, 80, 40, 60, 58, 13, 70, 472, 39, 52, 73, 7, 649],
    [19010, 0, 106, 99, 109, 40, 41, 0, 49, 71, 117, 7, 351],
    [18852, 0, 85, 85, 96, 39, 44, 0, 114, 64, 96, 10, 515],
    [18814, 0, 62, 84, 83, 34, 57, 0, 61, 137, 87, 16, 565],
    [18788, 0, 66, 79, 81, 43, 42, 0, 60, 70, 96, 12, 663],
    [18700, 0, 66, 80, 75, 28, 54, 0, 47, 57, 96, 15, 782],
    [18684, 0, 64, 70, 93, 28, 53, 0, 57, 112, 85, 10, 744],
    [18659, 0, 79, 65, 80, 30, 43, 0, 128, 46, 79, 11, 780],
    [18842, 0, 85, 85, 83, 30, 44, 0, 48, 80, 105, 10, 588],
];
/// How often each square (a1 first) holds each class over [`SAMPLED_SPARSE`] positions of
/// the renderer's endgame sampler (two kings and one to six pieces set anywhere) with seed
/// [`SEED`]; printed by `cargo run --release -p fenlens-vision --example fit_prior`.
#[rustfmt::skip]
pub const SCATTERED_COUNTS: [[u16; CLASSES]; 64] = [
    [18664, 0, 91, 69, 60, 66, 324, 0, 98, 86, 82, 83, 377],
    [18703, 0, 72, 89, 76, 60, 330, 0, 85, 77, 86, 75, 347],
    [18752, 0, 74, 66, 53, 51, 353, 0, 69, 68, 92, 62, 360],
    [18773, 0, 70, 67, 68, 64, 313, 0, 80, 70, 69, 87, 339],
    [18730, 0, 65, 67, 66, 61, 321, 0, 75, 86, 92, 84, 353],
    [18799, 0, 80, 69, 70, 70, 309, 0, 84, 83, 94, 50, 292],
    [18747, 0, 78, 92, 46, 51, 334, 0, 90, 65, 67, 87, 343],
    [18686, 0, 83, 82, 63, 60, 340, 0, 82, 85, 83, 82, 354],
    [18193, 304, 68, 66, 52, 46, 313, 327, 77, 89, 71, 74, 320],
    [18240, 300, 75, 73, 64, 47, 317, 294, 84, 68, 64, 61, 313],
    [18205, 289, 71, 67, 63, 60, 308, 320, 76, 77, 77, 78, 309],
    [18187, 298, 92, 76, 62, 63, 303, 328, 72, 70, 90, 78, 281],
    [18161, 320, 68, 78, 75, 50, 275, 298, 91, 85, 91, 77, 331],
    [18173, 296, 74, 59, 59, 74, 320, 305, 84, 83, 80, 73, 320],
    [18211, 286, 68, 67, 59, 49, 321, 320, 76, 84, 92, 72, 295],
    [18204, 295, 81, 78, 62, 54, 301, 302, 78, 63, 71, 79, 332],
    [18110, 300, 81, 70, 63, 58, 314, 316, 87, 71, 92, 79, 359],
    [18261, 315, 78, 68, 61, 48, 295, 280, 75, 70, 76, 90, 283],
    [18230, 294, 77, 73, 64, 50, 282, 339, 76, 81, 79, 77, 278],
    [18168, 301, 75, 82, 63, 58, 331, 275, 74, 79, 91, 88, 315],
    [18251, 298, 75, 75, 54, 48, 275, 314, 71, 89, 76, 74, 300],
    [18173, 325, 61, 69, 70, 55, 294, 318, 53, 75, 87, 88, 332],
    [18229, 302, 73, 65, 79, 43, 309, 290, 94, 80, 73, 65, 298],
    [18144, 301, 78, 57, 61, 57, 342, 308, 71, 90, 91, 84, 316],
    [18166, 286, 83, 67, 65, 48, 292, 317, 85, 88, 69, 84, 350],
    [18191, 294, 74, 92, 66, 48, 337, 306, 78, 66, 70, 77, 301],
    [18242, 304, 65, 71, 47, 42, 306, 298, 82, 73, 67, 97, 306],
    [18200, 321, 69, 53, 63, 47, 312, 342, 86, 78, 82, 81, 266],
    [18232, 314, 72, 49, 58, 44, 296, 326, 84, 72, 73, 98, 282],
    [18258, 288, 62, 67, 69, 56, 303, 309, 71, 66, 86, 85, 280],
    [18240, 314, 65, 67, 59, 66, 314, 291, 62, 96, 77, 80, 269],
    [18067, 337, 64, 74, 62, 43, 350, 324, 95, 81, 73, 88, 342],
    [18149, 315, 74, 69, 63, 44, 306, 305, 88, 78, 83, 86, 340],
    [18160, 305, 80, 71, 71, 46, 300, 303, 77, 82, 72, 90, 343],
    [18197, 339, 72, 64, 61, 53, 302, 323, 79, 85, 83, 68, 274],
    [18183, 326, 65, 69, 58, 55, 318, 320, 68, 89, 90, 96, 263],
    [18265, 294, 59, 71, 59, 44, 304, 295, 68, 83, 87, 95, 276],
    [18260, 267, 59, 62, 78, 47, 326, 311, 87, 74, 79, 72, 278],
    [18231, 313, 72, 82, 64, 56, 301, 291, 63, 84, 88, 80, 275],
    [18194, 310, 88, 73, 55, 54, 323, 289, 74, 85, 75, 79, 301],
    [18193, 324, 67, 64, 55, 54, 307, 283, 73, 85, 77, 79, 339],
    [18192, 307, 61, 68, 56, 47, 304, 299, 65, 90, 91, 84, 336],
    [18253, 301, 84, 63, 68, 47, 289, 305, 74, 75, 82, 83, 276],
    [18162, 319, 66, 71, 62, 56, 331, 343, 75, 81, 85, 77, 272],
    [18198, 299, 65, 60, 70, 55, 306, 328, 98, 73, 85, 59, 304],
    [18178, 307, 79, 72, 63, 56, 294, 334, 88, 78, 83, 77, 291],
    [18133, 334, 67, 67, 62, 47, 314, 338, 77, 76, 73, 81, 331],
    [18172, 324, 80, 77, 59, 59, 313, 323, 72, 76, 57, 78, 310],
    [18096, 313, 76, 84, 58, 51, 324, 331, 75, 91, 73, 103, 325],
    [18212, 319, 75, 66, 52, 61, 296, 304, 86, 70, 86, 95, 278],
    [18189, 317, 59, 75, 71, 48, 303, 333, 69, 82, 65, 85, 304],
    [18093, 336, 78, 71, 62, 69, 319, 347, 84, 77, 66, 76, 322],
    [18142, 313, 71, 81, 68, 49, 324, 351, 69, 74, 69, 89, 300],
    [18196, 307, 65, 69, 58, 52, 306, 346, 75, 77, 88, 89, 272],
    [18200, 305, 77, 63, 64, 58, 290, 347, 81, 64, 77, 73, 301],
    [18078, 283, 69, 84, 71, 57, 356, 318, 87, 81, 88, 86, 342],
    [18725, 0, 98, 80, 67, 50, 306, 0, 87, 75, 78, 75, 359],
    [18778, 0, 75, 78, 63, 56, 311, 0, 97, 78, 79, 57, 328],
    [18748, 0, 77, 75, 60, 52, 318, 0, 71, 79, 73, 82, 365],
    [18799, 0, 66, 86, 72, 49, 301, 0, 87, 73, 80, 74, 313],
    [18795, 0, 93, 75, 62, 55, 315, 0, 86, 85, 75, 76, 283],
    [18794, 0, 77, 64, 51, 55, 322, 0, 76, 93, 72, 79, 317],
    [18772, 0, 67, 73, 61, 60, 305, 0, 94, 93, 93, 73, 309],
    [18746, 0, 80, 80, 64, 57, 332, 0, 72, 79, 74, 86, 330],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_what_the_sampler_gives() {
        // The first 500 of the table's games, counted again, are a share of the table's counts.
        let few = count_classes(500, SEED);
        for (square, (few, all)) in few.iter().zip(&GAME_COUNTS).enumerate() {
            for class in 0..CLASSES {
                assert!(few[class] <= all[class], "square {square} class {class}");
            }
            assert_eq!(few.iter().map(|&c| u32::from(c)).sum::<u32>(), 500);
            assert_eq!(
                all.iter().map(|&c| u32::from(c)).sum::<u32>(),
                SAMPLED_GAMES as u32
            );
        }
    }

    #[test]
    fn the_sparse_tables_are_what_the_samplers_give() {
        // The first 300 positions each table counts, counted again, are a share of its counts.
        for (few, all) in [
            (count_sparse_game_classes(300, SEED), &SPARSE_GAME_COUNTS),
            (count_scattered_classes(300, SEED), &SCATTERED_COUNTS),
        ] {
            for (square, (few, all)) in few.iter().zip(all).enumerate() {
                for class in 0..CLASSES {
                    assert!(few[class] <= all[class], "square {square} class {class}");
                }
                assert_eq!(few.iter().map(|&c| u32::from(c)).sum::<u32>(), 300);
                assert_eq!(
                    all.iter().map(|&c| u32::from(c)).sum::<u32>(),
                    SAMPLED_SPARSE as u32
                );
            }
        }
        // The late endgames counted hold fewer than SPARSE_BELOW pieces: a board's squares
        // hold that many pieces at most on average.
        let pieces: u32 = SPARSE_GAME_COUNTS
            .iter()
            .map(|square| square[1..].iter().map(|&c| u32::from(c)).sum::<u32>())
            .sum();
        assert!(pieces < (SPARSE_BELOW * SAMPLED_SPARSE) as u32);
        // Late endgames' kings keep to their own half more often than not; in the whole game
        // they stand on their first two ranks far more often still.
        let white_king_share = |counts: &[[u16; CLASSES]; 64], ranks: std::ops::Range<usize>| {
            let king = piece_class(Some(fenlens_fen::shakmaty::Color::White.king()));
            let on: u32 = ranks
                .flat_map(|rank| (0..8).map(move |file| rank * 8 + file))
                .map(|square| u32::from(counts[square][king]))
                .sum();
            let all: u32 = counts.iter().map(|square| u32::from(square[king])).sum();
            on as f32 / all as f32
        };
        assert!(white_king_share(&SPARSE_GAME_COUNTS, 0..4) > 0.6);
        assert!(white_king_share(&SPARSE_GAME_COUNTS, 0..2) < white_king_share(&GAME_COUNTS, 0..2));
    }

    #[test]
    fn games_look_like_games_and_scattered_pieces_do_not() {
        // Positions of the renderer's samplers, drawn with a seed other than the table's.
        let mut rng = ChaCha8Rng::seed_from_u64(SEED + 1);
        let share_game_like = |positions: &[Board]| {
            positions
                .iter()
                .filter(|board| game_likeness(board) >= GAME_LIKE_FROM)
                .count() as f32
                / positions.len() as f32
        };
        let games: Vec<Board> = (0..400)
            .map(|_| fenlens_render::positions::game(&mut rng).board)
            .collect();
        let scattered: Vec<Board> = (0..400)
            .map(|_| fenlens_render::positions::random_placement(&mut rng).board)
            .collect();
        assert!(
            share_game_like(&games) > 0.85,
            "{}",
            share_game_like(&games)
        );
        assert!(
            share_game_like(&scattered) < 0.05,
            "{}",
            share_game_like(&scattered)
        );
        // The starting position is as game-like as any; an empty board says nothing.
        assert!(game_likeness(&Board::default()) > 1.0);
        assert_eq!(game_likeness(&Board::empty()), 0.0);
        // White pawns on the eighth rank, where no game holds them, score far below.
        let mut impossible = Board::empty();
        for file in fenlens_fen::shakmaty::File::ALL {
            impossible.set_piece_at(
                Square::from_coords(file, fenlens_fen::shakmaty::Rank::Eighth),
                fenlens_fen::shakmaty::Color::White.pawn(),
            );
        }
        assert!(game_likeness(&impossible) < GAME_LIKE_FROM - 1.0);
    }

    #[test]
    fn the_devsets_positions_all_look_like_games() {
        // Positions other programs drew from random games (../shared/devset), each at least
        // as game-like as the threshold, so that the heavier prior may weigh on all of them.
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/devset/manifest.jsonl");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            eprintln!("../shared/devset is missing: skipped");
            return;
        };
        let mut read = 0;
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let entry: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let placement = entry["placement"].as_str().expect("a placement");
            let board: Board = placement.parse().expect("a placement FEN");
            let likeness = game_likeness(&board);
            assert!(likeness >= GAME_LIKE_FROM, "{placement}: {likeness}");
            read += 1;
        }
        assert!(read >= 40, "{read} placements");
    }

    #[test]
    fn a_piece_is_never_weighed_into_an_empty_square() {
        // A rook of a design never seen on a1, read as a queen, a pawn or a king (all rare on
        // a1, the pawn impossible) and a little as a rook; one in a hundred for an empty
        // square, which games often leave a1. Weighed heavily, the square still holds a piece
        // (a rook, the class games put there), and the empty square keeps its one in a hundred.
        let mut reading = [0.0; CLASSES];
        reading[0] = 0.01; // empty
        reading[5] = 0.56; // Q
        reading[1] = 0.25; // P
        reading[6] = 0.17; // K
        reading[4] = 0.01; // R
        let mut heavier = reading;
        weigh_by(&mut heavier, Square::A1, DOUBTED_WEIGHT);
        assert!((heavier[0] - 0.01).abs() < 1e-6, "{heavier:?}");
        assert_eq!(crate::classify::best_class(&heavier), 4, "{heavier:?}");
        assert!((heavier.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        // Which piece it is still turns with the games: the rook gains on the queen.
        assert!(heavier[4] / heavier[5] > 10.0 * reading[4] / reading[5]);
        // A square read as empty with doubt is weighed whole, as before: games leave e4 empty
        // more often than they put a white pawn there, so the empty square is read more surely.
        let mut doubtful = [0.0; CLASSES];
        doubtful[0] = 0.8;
        doubtful[1] = 0.2;
        weigh(&mut doubtful, Square::E4);
        assert!(doubtful[0] > 0.8, "{doubtful:?}");
    }

    #[test]
    fn a_heavier_weight_turns_a_clearer_call() {
        // Black pawn or black bishop on e7 (pawns' home), the bishop ahead 0.3 to 0.7: the
        // usual weight leaves the bishop, the doubted designs' weight turns it.
        let mut reading = [0.0; CLASSES];
        reading[7] = 0.3; // p
        reading[9] = 0.7; // b
        let (mut usual, mut heavier) = (reading, reading);
        weigh(&mut usual, Square::E7);
        weigh_by(&mut heavier, Square::E7, DOUBTED_WEIGHT);
        assert!(usual[9] > usual[7], "{usual:?}");
        assert!(heavier[7] > heavier[9], "{heavier:?}");
        assert!((heavier.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn a_close_call_turns_toward_what_the_square_usually_holds() {
        // Black pawn or black bishop, nearly even, on e7 (pawns' home) and on e4.
        let mut reading = [0.0; CLASSES];
        reading[7] = 0.45; // p
        reading[9] = 0.55; // b
        let mut on_e7 = reading;
        weigh(&mut on_e7, Square::E7);
        assert!(on_e7[7] > on_e7[9], "{on_e7:?}");
        // A clear reading stays: a white king read surely on a8, where kings rarely stand.
        let mut sure = [0.0; CLASSES];
        sure[6] = 0.95; // K
        sure[0] = 0.05;
        weigh(&mut sure, Square::A8);
        assert!(sure[6] > 0.5, "{sure:?}");
        assert!((sure.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
