//! Shared by the measuring examples: the single-board pictures of a rendered dataset, each
//! rectified at its ground-truth corners, with the truth in display order.

use std::error::Error;
use std::path::Path;

use fenlens_fen::shakmaty::Square;
use fenlens_render::draw::display_cell;
use fenlens_vision::classify::piece_class;
use fenlens_vision::rectify::{Rectified, rectify};

/// One picture of the dataset, as drawn.
pub struct TruthBoard {
    /// The manifest's category (clean, photo, ...).
    #[allow(dead_code)] // Each example builds its own copy of this module; not all read this.
    pub category: String,
    /// The class of each square in display order (as the classifier sees them).
    pub classes: [usize; 64],
    /// The board rectified at the true corners.
    pub rectified: Rectified,
}

/// Calls `each` for every picture of `dir`'s manifest that shows one board with a readable
/// placement (pages with several diagrams are left out).
pub fn for_each_truth_board(
    dir: &Path,
    mut each: impl FnMut(TruthBoard),
) -> Result<(), Box<dyn Error>> {
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl"))?;
    for line in manifest.lines() {
        let entry: serde_json::Value = serde_json::from_str(line)?;
        let boards = entry["boards"].as_array().ok_or("no boards")?;
        let [board] = boards.as_slice() else {
            continue;
        };
        let corners: [[f32; 2]; 4] = serde_json::from_value(board["corners"].clone())?;
        let placement = board["placement"].as_str().ok_or("no placement")?;
        let flipped = board["flipped"].as_bool().unwrap_or(false);
        let Some(setup) = fenlens_fen::read(placement.as_bytes()).setup else {
            continue;
        };
        let mut classes = [0; 64];
        for square in Square::ALL {
            let (col, row) = display_cell(square, flipped);
            classes[row as usize * 8 + col as usize] = piece_class(setup.board.piece_at(square));
        }
        let file = entry["file"].as_str().ok_or("no file")?;
        let image = fenlens_vision::decode::decode(&std::fs::read(dir.join(file))?)?;
        let Some(rectified) = rectify(&image, corners) else {
            continue;
        };
        each(TruthBoard {
            category: entry["category"].as_str().unwrap_or("?").to_string(),
            classes,
            rectified,
        });
    }
    Ok(())
}
