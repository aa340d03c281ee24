//! Measures what `fenlens_vision::colour` relies on: within one picture, how often the mean
//! grey of the pieces' silhouettes puts every white piece above every black one. Prints, per
//! category, the boards with pieces of both colours and those split without a mistake.
//!
//! ```sh
//! fenlens render --dataset /tmp/held2 --count 600 --seed 2026 \
//!     --pieces-root ../shared/pieces/lichess --boards-dir ../shared/boards/lichess \
//!     --only-sets merida,chessnut,fantasy,governor,staunty
//! cargo run --release -p fenlens-vision --example colour_split /tmp/held2
//! ```
//!
//! The ground-truth corners and pieces are used, so this measures the grey, not the classifier.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fenlens_fen::shakmaty::{Color, Square};
use fenlens_render::draw::display_cell;
use fenlens_vision::colour::mean_greys;
use fenlens_vision::rectify::rectify;
use fenlens_vision::silhouette::silhouettes;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: colour_split DATASET")?,
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl"))?;
    // Category -> (boards with both colours, boards split without a mistake).
    let mut tally: BTreeMap<String, (u32, u32)> = BTreeMap::new();
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
        let Some(setup) = fenlens_fen::read(placement.as_bytes()).setup else {
            continue;
        };
        let file = entry["file"].as_str().ok_or("no file")?;
        let image = fenlens_vision::decode::decode(&std::fs::read(dir.join(file))?)?;
        let Some(rectified) = rectify(&image, corners) else {
            continue;
        };
        let greys = mean_greys(&rectified, &silhouettes(&rectified));
        let (mut whites, mut blacks) = (Vec::new(), Vec::new());
        for square in Square::ALL {
            let Some(piece) = setup.board.piece_at(square) else {
                continue;
            };
            let (col, row) = display_cell(square, flipped);
            if let Some(grey) = greys[row as usize * 8 + col as usize] {
                match piece.color {
                    Color::White => whites.push(grey),
                    Color::Black => blacks.push(grey),
                }
            }
        }
        if whites.is_empty() || blacks.is_empty() {
            continue;
        }
        let darkest_white = whites.iter().copied().fold(f32::INFINITY, f32::min);
        let lightest_black = blacks.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let category = entry["category"].as_str().unwrap_or("?").to_string();
        let counts = tally.entry(category).or_default();
        counts.0 += 1;
        counts.1 += u32::from(lightest_black < darkest_white);
    }
    let (mut boards, mut split) = (0, 0);
    for (category, (n, s)) in &tally {
        println!("{category:<12} {s:>4} of {n:>4} boards split by grey");
        (boards, split) = (boards + n, split + s);
    }
    println!(
        "{:<12} {split:>4} of {boards:>4} boards split by grey",
        "all"
    );
    Ok(())
}
