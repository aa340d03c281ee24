//! Measures what `fenlens_vision::rectify::blank_cells` relies on: a square with a piece on it
//! never shows one flat grey, while many empty squares do. Prints, for several bounds on a
//! square's grey range (in the crops' normalized units), how many empty squares and how many
//! pieces fall under it, the flattest pieces, and what the built-in classifier gives the empty
//! class on the squares under [`BLANK_RANGE`].
//!
//! ```sh
//! fenlens render --dataset /tmp/held2 --count 600 --seed 2026 \
//!     --pieces-root ../shared/pieces/lichess --boards-dir ../shared/boards/lichess \
//!     --only-sets merida,chessnut,fantasy,governor,staunty
//! cargo run --release -p fenlens-vision --example blank_squares /tmp/held2
//! ```
//!
//! The ground-truth corners and pieces are used, so this measures the squares, not the locator.

use std::path::PathBuf;

use fenlens_vision::classify::Classifier;
use fenlens_vision::rectify::{BLANK_RANGE, blank_ranges};

mod common;

/// The bounds tallied.
const BOUNDS: [f32; 6] = [0.03, 0.06, 0.1, 0.15, 0.2, 0.3];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: blank_squares DATASET")?,
    );
    let classifier = Classifier::embedded()?.with_blank_skip(false);
    let (mut empties, mut pieces) = (0usize, 0usize);
    let (mut empty_under, mut piece_under) = ([0usize; BOUNDS.len()], [0usize; BOUNDS.len()]);
    let mut piece_ranges: Vec<(f32, String)> = Vec::new();
    let mut empty_read: Vec<f32> = Vec::new();
    let mut failed = None;
    common::for_each_truth_board(&dir, |truth| {
        let read = match classifier.read_board(&truth.rectified) {
            Ok(read) => read.probabilities,
            Err(e) => {
                failed = Some(e);
                return;
            }
        };
        let ranges = blank_ranges(&truth.rectified);
        for (cell, (&class, &range)) in truth.classes.iter().zip(&ranges).enumerate() {
            let empty = class == 0;
            if empty {
                empties += 1;
            } else {
                pieces += 1;
                piece_ranges.push((range, truth.category.clone()));
            }
            for (i, bound) in BOUNDS.iter().enumerate() {
                if range < *bound {
                    if empty {
                        empty_under[i] += 1;
                    } else {
                        piece_under[i] += 1;
                    }
                }
            }
            if range < BLANK_RANGE {
                empty_read.push(read[cell][0]);
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    println!("{empties} empty squares, {pieces} pieces");
    for (i, bound) in BOUNDS.iter().enumerate() {
        println!(
            "range under {bound:.2}: {} empty squares ({:.1}%), {} pieces",
            empty_under[i],
            100.0 * empty_under[i] as f32 / empties.max(1) as f32,
            piece_under[i]
        );
    }
    piece_ranges.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!(
        "flattest pieces: {:?}",
        &piece_ranges[..piece_ranges.len().min(5)]
    );
    empty_read.sort_by(f32::total_cmp);
    if let Some(&lowest) = empty_read.first() {
        let at = |f: f32| empty_read[((empty_read.len() - 1) as f32 * f) as usize];
        println!(
            "the network's empty class on squares under {BLANK_RANGE}: lowest {lowest:.5}, 1% {:.5}, 10% {:.5}, median {:.5}",
            at(0.01),
            at(0.1),
            at(0.5)
        );
    }
    Ok(())
}
