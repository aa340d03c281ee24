//! Shared by the measuring examples: the single-board pictures of a rendered dataset, each
//! rectified at its ground-truth corners, with the truth in display order.

use std::error::Error;
use std::path::Path;

use fenlens_fen::shakmaty::Square;
use fenlens_render::draw::display_cell;
use fenlens_vision::classify::piece_class;
use fenlens_vision::rectify::{Rectified, rectify};

/// One picture of the dataset, as drawn.
#[allow(dead_code)] // Each example builds its own copy of this module; not all read this.
pub struct TruthBoard {
    /// The manifest's category (clean, photo, ...).
    pub category: String,
    /// The class of each square in display order (as the classifier sees them).
    pub classes: [usize; 64],
    /// The board rectified at the true corners.
    pub rectified: Rectified,
}

/// One picture of the dataset that shows one board, decoded, with the board's truth.
pub struct BoardPicture {
    /// The picture's file, as the manifest names it.
    #[allow(dead_code)] // Each example builds its own copy of this module; not all read this.
    pub file: String,
    /// The manifest's category (clean, photo, ...).
    pub category: String,
    /// The board's corners in the picture (top-left, top-right, bottom-right, bottom-left).
    pub corners: [[f32; 2]; 4],
    /// The board's placement as drawn.
    pub placement: String,
    /// Whether the board is drawn with Black at the bottom.
    pub flipped: bool,
    /// The decoded picture.
    pub image: image::RgbImage,
}

/// Calls `each` for every picture of `dir`'s manifest that shows one board (pages with several
/// diagrams are left out).
pub fn for_each_board_picture(
    dir: &Path,
    mut each: impl FnMut(BoardPicture) -> Result<(), Box<dyn Error>>,
) -> Result<(), Box<dyn Error>> {
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl"))?;
    for line in manifest.lines() {
        let entry: serde_json::Value = serde_json::from_str(line)?;
        let boards = entry["boards"].as_array().ok_or("no boards")?;
        let [board] = boards.as_slice() else {
            continue;
        };
        let file = entry["file"].as_str().ok_or("no file")?;
        each(BoardPicture {
            file: file.to_string(),
            category: entry["category"].as_str().unwrap_or("?").to_string(),
            corners: serde_json::from_value(board["corners"].clone())?,
            placement: board["placement"]
                .as_str()
                .ok_or("no placement")?
                .to_string(),
            flipped: board["flipped"].as_bool().unwrap_or(false),
            image: fenlens_vision::decode::decode(&std::fs::read(dir.join(file))?)?,
        })?;
    }
    Ok(())
}

/// Calls `each` for every picture of `dir`'s manifest that shows one board with a readable
/// placement (pages with several diagrams are left out).
#[allow(dead_code)] // Each example builds its own copy of this module; not all call this.
pub fn for_each_truth_board(
    dir: &Path,
    mut each: impl FnMut(TruthBoard),
) -> Result<(), Box<dyn Error>> {
    for_each_board_picture(dir, |picture| {
        let Some(setup) = fenlens_fen::read(picture.placement.as_bytes()).setup else {
            return Ok(());
        };
        let mut classes = [0; 64];
        for square in Square::ALL {
            let (col, row) = display_cell(square, picture.flipped);
            classes[row as usize * 8 + col as usize] = piece_class(setup.board.piece_at(square));
        }
        let Some(rectified) = rectify(&picture.image, picture.corners) else {
            return Ok(());
        };
        each(TruthBoard {
            category: picture.category,
            classes,
            rectified,
        });
        Ok(())
    })
}
