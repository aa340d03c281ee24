//! Measures the tables of `fenlens_vision::symmetry`: how the outline's asymmetry is spread
//! for knights, rooks and queens, and the head's asymmetry for knights and pawns, on a rendered
//! dataset (use the training designs, never the held-out ones), and prints the capped log
//! ratios in Rust.
//!
//! ```sh
//! fenlens render --dataset /tmp/symmetry --count 600 --seed 4242 \
//!     --pieces-root ../shared/pieces/lichess --boards-dir ../shared/boards/lichess \
//!     --exclude-sets merida,chessnut,fantasy,governor,staunty
//! cargo run --release -p fenlens-vision --example fit_symmetry /tmp/symmetry
//! ```
//!
//! The ground-truth corners are used, so the outlines are those of the squares as drawn.

use std::path::PathBuf;

use fenlens_fen::shakmaty::Role;
use fenlens_vision::classify::class_piece;
use fenlens_vision::silhouette::silhouettes;
use fenlens_vision::symmetry::{BIN_EDGES, asymmetries, bin};

mod common;

/// The cap on the log ratios.
const CAP: f32 = 2.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: fit_symmetry DATASET")?,
    );
    let bins = BIN_EDGES.len() + 1;
    // Counts per bin: knights, rooks, queens.
    let mut counts = vec![vec![0u32; bins]; 3];
    // Counts per bin of the head's asymmetry: knights, pawns.
    let mut head_counts = vec![vec![0u32; bins]; 2];
    common::for_each_truth_board(&dir, |truth| {
        let found = asymmetries(&silhouettes(&truth.rectified));
        for (class, asymmetry) in truth.classes.into_iter().zip(found) {
            let Some(asymmetry) = asymmetry else {
                continue;
            };
            match class_piece(class).map(|piece| piece.role) {
                Some(Role::Knight) => {
                    counts[0][bin(asymmetry.whole)] += 1;
                    head_counts[0][bin(asymmetry.head)] += 1;
                }
                Some(Role::Rook) => counts[1][bin(asymmetry.whole)] += 1,
                Some(Role::Queen) => counts[2][bin(asymmetry.whole)] += 1,
                Some(Role::Pawn) => head_counts[1][bin(asymmetry.head)] += 1,
                _ => {}
            }
        }
    })?;
    let share = |counts: &[u32]| -> Vec<f32> {
        // One added to every bin, so that an empty bin does not give an infinite ratio.
        let total: u32 = counts.iter().map(|c| c + 1).sum();
        counts
            .iter()
            .map(|&c| (c + 1) as f32 / total as f32)
            .collect()
    };
    let knight = share(&counts[0]);
    let head_knight = share(&head_counts[0]);
    for (name, knight, knights, others) in [
        ("ROOK", &knight, &counts[0], &counts[1]),
        ("QUEEN", &knight, &counts[0], &counts[2]),
        ("PAWN_HEAD", &head_knight, &head_counts[0], &head_counts[1]),
    ] {
        let other = share(others);
        let ratios: Vec<String> = knight
            .iter()
            .zip(&other)
            .map(|(k, o)| format!("{:.2}", (k / o).ln().clamp(-CAP, CAP)))
            .collect();
        println!(
            "// knights {:?}, {} {:?}",
            knights,
            name.to_lowercase(),
            others
        );
        println!(
            "pub const LOG_RATIO_{name}: [f32; {bins}] = [{}];",
            ratios.join(", ")
        );
    }
    Ok(())
}
