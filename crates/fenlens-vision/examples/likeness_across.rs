//! Measures [`fenlens_vision::alike::cross_distance`] (or, with `TOLERANT=1` set,
//! [`fenlens_vision::alike::tolerant_cross_distance`]) on pairs of squares of different colours
//! holding the same piece and different pieces (ground-truth corners and pieces): prints the
//! distances' percentiles for both, per category, and how many pairs fall under three
//! thresholds (`THRESHOLDS=a,b,c`; 0.1, 0.15 and 0.2 unless set). `SAME_COLOUR=1` measures
//! pairs of squares of one colour instead.
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example likeness_across /tmp/held2
//! TOLERANT=1 THRESHOLDS=0.02,0.03,0.05 cargo run --release -p fenlens-vision --example likeness_across /tmp/held2
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use fenlens_vision::alike::{cross_distance, same_colour, tolerant_cross_distance};
use fenlens_vision::silhouette::silhouettes;

mod common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: likeness_across DATASET")?,
    );
    let mut same: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    let mut different: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    common::for_each_truth_board(&dir, |truth| {
        let outlines = silhouettes(&truth.rectified);
        let pieces: Vec<usize> = (0..64)
            .filter(|&cell| truth.classes[cell] != 0 && outlines[cell].is_some())
            .collect();
        for (i, &a) in pieces.iter().enumerate() {
            for &b in &pieces[i + 1..] {
                if same_colour(a, b) != std::env::var("SAME_COLOUR").is_ok() {
                    continue;
                }
                let (Some(sa), Some(sb)) = (&outlines[a], &outlines[b]) else {
                    continue;
                };
                let d = if std::env::var("TOLERANT").is_ok() {
                    tolerant_cross_distance(&truth.rectified, (a, sa), (b, sb))
                } else {
                    cross_distance(&truth.rectified, (a, sa), (b, sb))
                };
                let into = if truth.classes[a] == truth.classes[b] {
                    &mut same
                } else {
                    &mut different
                };
                into.entry(truth.category.clone()).or_default().push(d);
            }
        }
    })?;
    let pct = |v: &mut Vec<f32>, q: f32| {
        v.sort_by(f32::total_cmp);
        v.get(((v.len() as f32 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(f32::NAN)
    };
    let t: Vec<f32> = std::env::var("THRESHOLDS")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .filter(|t: &Vec<f32>| t.len() == 3)
        .unwrap_or(vec![0.1, 0.15, 0.2]);
    for (category, s) in same.iter_mut() {
        let d = different.entry(category.clone()).or_default();
        let under = |v: &Vec<f32>, t: f32| v.iter().filter(|&&x| x < t).count();
        println!(
            "{category:<12} same {:>6}: p10 {:.3} p50 {:.3} p90 {:.3} | different {:>6}: p0.1 {:.3} p1 {:.3} p10 {:.3} | under t: same {}/{}/{} diff {}/{}/{}",
            s.len(),
            pct(s, 0.1),
            pct(s, 0.5),
            pct(s, 0.9),
            d.len(),
            pct(d, 0.001),
            pct(d, 0.01),
            pct(d, 0.1),
            under(s, t[0]),
            under(s, t[1]),
            under(s, t[2]),
            under(d, t[0]),
            under(d, t[1]),
            under(d, t[2])
        );
    }
    Ok(())
}
