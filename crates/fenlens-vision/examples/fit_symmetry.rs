//! Measures the tables of `fenlens_vision::symmetry`: how the outline's asymmetry is spread
//! for knights, rooks and queens on a rendered dataset (use the training designs, never the
//! held-out ones), and prints the capped log ratios in Rust.
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
    common::for_each_truth_board(&dir, |truth| {
        let found = asymmetries(&silhouettes(&truth.rectified));
        for (class, asymmetry) in truth.classes.into_iter().zip(found) {
            let kind = match class_piece(class).map(|piece| piece.role) {
                Some(Role::Knight) => 0,
                Some(Role::Rook) => 1,
                Some(Role::Queen) => 2,
                _ => continue,
            };
            if let Some(a) = asymmetry {
                counts[kind][bin(a)] += 1;
            }
        }
    })?;
    let share = |kind: usize| -> Vec<f32> {
        // One added to every bin, so that an empty bin does not give an infinite ratio.
        let total: u32 = counts[kind].iter().map(|c| c + 1).sum();
        counts[kind]
            .iter()
            .map(|&c| (c + 1) as f32 / total as f32)
            .collect()
    };
    let knight = share(0);
    for (kind, name) in [(1, "ROOK"), (2, "QUEEN")] {
        let other = share(kind);
        let ratios: Vec<String> = knight
            .iter()
            .zip(&other)
            .map(|(k, o)| format!("{:.2}", (k / o).ln().clamp(-CAP, CAP)))
            .collect();
        println!(
            "// knights {:?}, {} {:?}",
            counts[0],
            name.to_lowercase(),
            counts[kind]
        );
        println!(
            "pub const LOG_RATIO_{name}: [f32; {bins}] = [{}];",
            ratios.join(", ")
        );
    }
    Ok(())
}
