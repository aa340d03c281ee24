//! Measures what `fenlens_vision::alike::units_alike` relies on: copies of one drawing lie
//! close together in the networks' hidden units. For every piece of a rendered dataset
//! (rectified at its true corners), its nearest other piece by the cosine of the leading
//! members' hidden units (`BoardReading::units`), and whether that piece is the same piece;
//! printed by how close the two are. Also how many misread pieces have a copy read right among
//! the pieces they are alike to.
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example units_alike -- DATASET
//! ```

use std::path::PathBuf;

use fenlens_vision::alike::{UNITS_ALIKE_FROM, units_cosine};
use fenlens_vision::classify::{Classifier, best_class};

mod common;

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    units_cosine(a, b).unwrap_or(-1.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: units_alike DATASET")?,
    );
    let classifier = Classifier::embedded()?;
    // (cosine to the nearest other piece, whether it is the same piece).
    let mut nearest: Vec<(f32, bool)> = Vec::new();
    let (mut misread, mut mendable) = (0u32, 0u32);
    let mut failed = None;
    common::for_each_truth_board(&dir, |truth| {
        let reading = match classifier.read_board(&truth.rectified) {
            Ok(reading) => reading,
            Err(e) => {
                failed = Some(e);
                return;
            }
        };
        let pieces: Vec<usize> = (0..64)
            .filter(|&c| truth.classes[c] != 0 && !reading.units[c].is_empty())
            .collect();
        for &i in &pieces {
            let others = pieces.iter().filter(|&&j| j != i);
            let closest = others
                .map(|&j| (cosine(&reading.units[i], &reading.units[j]), j))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((cos, j)) = closest {
                nearest.push((cos, truth.classes[j] == truth.classes[i]));
            }
            if best_class(&reading.probabilities[i]) != truth.classes[i] {
                misread += 1;
                mendable += u32::from(pieces.iter().any(|&j| {
                    j != i
                        && truth.classes[j] == truth.classes[i]
                        && best_class(&reading.probabilities[j]) == truth.classes[j]
                        && cosine(&reading.units[i], &reading.units[j]) >= UNITS_ALIKE_FROM
                }));
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    println!("{} pieces with another on their board", nearest.len());
    for from in [0.97f32, 0.95, 0.93, 0.9, 0.85, 0.8] {
        let above: Vec<_> = nearest.iter().filter(|n| n.0 >= from).collect();
        let same = above.iter().filter(|n| n.1).count();
        println!(
            "nearest at cosine {from} or more: {:>6} pieces, the same piece for {:.1}%",
            above.len(),
            100.0 * same as f32 / above.len().max(1) as f32
        );
    }
    println!(
        "{misread} pieces misread by the network; {mendable} of them alike ({UNITS_ALIKE_FROM}) to a copy read right"
    );
    Ok(())
}
