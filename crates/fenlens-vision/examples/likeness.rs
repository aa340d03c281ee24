//! Measures what `fenlens_vision::alike` relies on: two squares of the same colour holding the
//! same piece look alike, two holding different pieces do not. Prints, per category, the pairs
//! of same-coloured squares holding the same piece and those holding different pieces (white
//! and black count as different), and how many of each fall under
//! `fenlens_vision::alike::ALIKE_BELOW`.
//!
//! ```sh
//! fenlens render --dataset /tmp/held2 --count 600 --seed 2026 \
//!     --pieces-root ../shared/pieces/lichess --boards-dir ../shared/boards/lichess \
//!     --only-sets merida,chessnut,fantasy,governor,staunty
//! cargo run --release -p fenlens-vision --example likeness /tmp/held2
//! ```
//!
//! The ground-truth corners and pieces are used, so this measures the likeness, not the
//! classifier or the locator.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fenlens_vision::alike::{ALIKE_BELOW, alike, distance, same_colour};
use fenlens_vision::silhouette::silhouettes;

mod common;

/// Pairs counted for one category.
#[derive(Default)]
struct Tally {
    same: u32,
    same_alike: u32,
    different: u32,
    different_alike: u32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: likeness DATASET")?);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    common::for_each_truth_board(&dir, |truth| {
        let outlines = silhouettes(&truth.rectified);
        let tally = tallies.entry(truth.category).or_default();
        let pieces: Vec<usize> = (0..64)
            .filter(|&cell| truth.classes[cell] != 0 && outlines[cell].is_some())
            .collect();
        for (i, &a) in pieces.iter().enumerate() {
            for &b in &pieces[i + 1..] {
                if !same_colour(a, b) {
                    continue;
                }
                let is_alike = alike(&truth.rectified, a, b);
                debug_assert_eq!(is_alike, distance(&truth.rectified, a, b) < ALIKE_BELOW);
                if truth.classes[a] == truth.classes[b] {
                    tally.same += 1;
                    tally.same_alike += u32::from(is_alike);
                } else {
                    tally.different += 1;
                    tally.different_alike += u32::from(is_alike);
                }
            }
        }
    })?;
    println!("pairs of same-coloured squares; alike = distance under {ALIKE_BELOW}");
    for (category, t) in &tallies {
        println!(
            "{category:<12} same piece {:>5} pairs, {:>5.1}% alike   different pieces {:>6} pairs, {:>3} alike",
            t.same,
            100.0 * t.same_alike as f32 / t.same.max(1) as f32,
            t.different,
            t.different_alike
        );
    }
    Ok(())
}
