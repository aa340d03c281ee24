//! Measures what `fenlens_vision::distinct`'s twins rely on: a design draws one role's white
//! and black piece with one outline. For every piece on the clean pictures, screenshots,
//! overlays and book diagrams of a dataset, takes its nearest piece of the other side by
//! `outline_distance`, and counts how often that one holds the same role: where it lies under
//! `TWINS_BELOW`, and where `plainly_nearest_twin` takes it (under `TWINS_NEAREST_BELOW`, and
//! at most `TWINS_NEAREST_RATIO` times as far as the nearest piece of the other side in another
//! role).
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example twin_outlines /tmp/fonts-dataset
//! ```
//!
//! The ground-truth corners and pieces are used, so this measures the drawings, not the
//! classifier or the locator.

use std::path::PathBuf;

use fenlens_vision::alike::Outline;
use fenlens_vision::distinct::{TWINS_BELOW, plainly_nearest_twin};
use fenlens_vision::silhouette::silhouettes;

mod common;

/// Pieces whose nearest piece of the other side a rule takes as a twin: [same role, another].
#[derive(Default)]
struct Found {
    under_twins_below: [u32; 2],
    plainly_nearest: [u32; 2],
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: twin_outlines DATASET")?,
    );
    let mut found = Found::default();
    let mut pieces_seen = 0u32;
    common::for_each_truth_board(&dir, |truth| {
        if !["clean", "screenshot", "overlay", "book"].contains(&truth.category.as_str()) {
            return;
        }
        let outlines = silhouettes(&truth.rectified);
        let pieces: Vec<(usize, Outline)> = (0..64)
            .filter(|&cell| truth.classes[cell] != 0)
            .filter_map(|cell| outlines[cell].as_ref().map(|s| (cell, Outline::of(s))))
            .collect();
        // Classes 1-6 are White's pawn to king, 7-12 Black's.
        let side = |cell: usize| (truth.classes[cell] - 1) / 6;
        let role = |cell: usize| (truth.classes[cell] - 1) % 6;
        for (cell, outline) in &pieces {
            pieces_seen += 1;
            let mut others: Vec<(f32, usize)> = pieces
                .iter()
                .filter(|(other, _)| side(*other) != side(*cell))
                .map(|(other, o)| (outline.distance(o), *other))
                .collect();
            others.sort_by(|a, b| a.0.total_cmp(&b.0));
            let Some(&(nearest, twin)) = others.first() else {
                continue;
            };
            let kind = usize::from(role(twin) != role(*cell));
            if nearest < TWINS_BELOW {
                found.under_twins_below[kind] += 1;
            }
            if let Some(twin) = plainly_nearest_twin(&others, role) {
                found.plainly_nearest[usize::from(role(twin) != role(*cell))] += 1;
            }
        }
    })?;
    let line = |name: &str, [same, other]: [u32; 2]| {
        let share = 100.0 * same as f32 / (same + other).max(1) as f32;
        println!("{name:<16} {same:>6} same role, {other:>5} another ({share:.1}% right)");
    };
    println!("{pieces_seen} pieces; their nearest piece of the other side taken as a twin:");
    line("under TWINS_BELOW", found.under_twins_below);
    line("plainly nearest", found.plainly_nearest);
    Ok(())
}
