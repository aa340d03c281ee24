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

use fenlens_fen::shakmaty::{Role, Square};
use fenlens_render::draw::display_cell;
use fenlens_vision::classify::{class_piece, piece_class};
use fenlens_vision::rectify::rectify;
use fenlens_vision::silhouette::silhouettes;
use fenlens_vision::symmetry::{BIN_EDGES, asymmetries, bin};

/// The cap on the log ratios.
const CAP: f32 = 2.0;

/// The classes of the 64 squares in display order (as the classifier sees them).
fn display_classes(placement: &str, flipped: bool) -> Option<[usize; 64]> {
    let board = fenlens_fen::read(placement.as_bytes()).setup?.board;
    let mut classes = [0; 64];
    for square in Square::ALL {
        let (col, row) = display_cell(square, flipped);
        classes[row as usize * 8 + col as usize] = piece_class(board.piece_at(square));
    }
    Some(classes)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: fit_symmetry DATASET")?,
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl"))?;
    let bins = BIN_EDGES.len() + 1;
    // Counts per bin: knights, rooks, queens.
    let mut counts = vec![vec![0u32; bins]; 3];
    for line in manifest.lines() {
        let entry: serde_json::Value = serde_json::from_str(line)?;
        let boards = entry["boards"].as_array().ok_or("no boards")?;
        if boards.len() != 1 {
            continue;
        }
        let board = &boards[0];
        let corners: [[f32; 2]; 4] = serde_json::from_value(board["corners"].clone())?;
        let placement = board["placement"].as_str().ok_or("no placement")?;
        let flipped = board["flipped"].as_bool().unwrap_or(false);
        let Some(classes) = display_classes(placement, flipped) else {
            continue;
        };
        let file = entry["file"].as_str().ok_or("no file")?;
        let image = fenlens_vision::decode::decode(&std::fs::read(dir.join(file))?)?;
        let Some(rectified) = rectify(&image, corners) else {
            continue;
        };
        let found = asymmetries(&silhouettes(&rectified));
        for (class, asymmetry) in classes.into_iter().zip(found) {
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
    }
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
