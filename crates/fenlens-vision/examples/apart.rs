//! Measures what `fenlens_vision::distinct` relies on: two pieces of different kinds look
//! plainly different, two copies of one piece do not. For pairs of squares holding pieces, per
//! category, prints the share of pairs holding the same piece and of pairs holding different
//! pieces (white and black count as different) that are further apart than each threshold:
//! squares of one colour by `piece_distance`, squares of two colours by the less of
//! `cross_distance` and `tolerant_cross_distance`.
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example apart /tmp/fonts-dataset
//! ```
//!
//! The ground-truth corners and pieces are used, so this measures the drawings, not the
//! classifier or the locator.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fenlens_vision::alike::{cross_distance, piece_distance, same_colour, tolerant_cross_distance};
use fenlens_vision::silhouette::silhouettes;

mod common;

const THRESHOLDS: [f32; 9] = [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0];

/// Pairs counted for one category, [one colour of square, two colours].
#[derive(Default)]
struct Tally {
    same: [u32; 2],
    same_over: [[u32; THRESHOLDS.len()]; 2],
    different: [u32; 2],
    different_over: [[u32; THRESHOLDS.len()]; 2],
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: apart DATASET")?);
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    common::for_each_truth_board(&dir, |truth| {
        let outlines = silhouettes(&truth.rectified);
        let tally = tallies.entry(truth.category).or_default();
        let pieces: Vec<(usize, &_)> = (0..64)
            .filter(|&cell| truth.classes[cell] != 0)
            .filter_map(|cell| outlines[cell].as_ref().map(|shape| (cell, shape)))
            .collect();
        for (i, &a) in pieces.iter().enumerate() {
            for &b in &pieces[i + 1..] {
                let board = &truth.rectified;
                let (kind, d) = if same_colour(a.0, b.0) {
                    (0, piece_distance(board, a, b))
                } else {
                    let cross = cross_distance(board, a, b);
                    (1, cross.min(tolerant_cross_distance(board, a, b)))
                };
                let (count, over) = if truth.classes[a.0] == truth.classes[b.0] {
                    (&mut tally.same[kind], &mut tally.same_over[kind])
                } else {
                    (&mut tally.different[kind], &mut tally.different_over[kind])
                };
                *count += 1;
                for (n, &t) in over.iter_mut().zip(&THRESHOLDS) {
                    *n += u32::from(d > t);
                }
            }
        }
    })?;
    println!("% of pairs over {THRESHOLDS:?}: same piece (want 0) | different pieces (want 100)");
    let percents = |over: &[u32; THRESHOLDS.len()], of: u32| {
        over.iter()
            .map(|&n| format!("{:5.1}", 100.0 * n as f32 / of.max(1) as f32))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (category, t) in &tallies {
        for (kind, colours) in ["one colour", "two colours"].iter().enumerate() {
            println!(
                "{category:<11} {colours:<11} same {:>5}: {} | different {:>6}: {}",
                t.same[kind],
                percents(&t.same_over[kind], t.same[kind]),
                t.different[kind],
                percents(&t.different_over[kind], t.different[kind]),
            );
        }
    }
    Ok(())
}
