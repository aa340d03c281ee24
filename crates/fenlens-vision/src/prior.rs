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
/// The sampler's seed for [`GAME_COUNTS`].
pub const SEED: u64 = 99;

/// Counts each class on each square (a1 first) over `games` positions of
/// [`fenlens_render::positions::game`] drawn with `seed`.
pub fn count_classes(games: usize, seed: u64) -> [[u16; CLASSES]; 64] {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut counts = [[0u16; CLASSES]; 64];
    for _ in 0..games {
        let board = fenlens_render::positions::game(&mut rng).board;
        for square in Square::ALL {
            let count = &mut counts[square as usize][piece_class(board.piece_at(square))];
            *count = count.saturating_add(1);
        }
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
    readings
        .iter()
        .enumerate()
        .filter_map(|(cell, probabilities)| Some((shown_at(cell, flipped)?, probabilities)))
        .map(|(square, probabilities)| {
            let games = &FREQUENCY[square as usize];
            probabilities
                .iter()
                .zip(games)
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
static FREQUENCY: std::sync::LazyLock<[[f32; CLASSES]; 64]> = std::sync::LazyLock::new(|| {
    GAME_COUNTS.map(|counts| {
        let total = counts.iter().map(|&c| f32::from(c) + 1.0).sum::<f32>();
        counts.map(|count| (f32::from(count) + 1.0) / total)
    })
});

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
