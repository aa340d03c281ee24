//! How completely [`fenlens_vision::alike::groups`] joins the copies of one piece (ground-truth
//! corners and pieces): per category, the share of same-piece pairs in one group and the
//! different-piece pairs put in one group. With `SHOW=CATEGORY` it also prints, for each board
//! of that category whose copies are not all joined, the first pairs left apart and their
//! distances.
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example group_recall /tmp/fx3
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use fenlens_vision::alike::groups;
use fenlens_vision::silhouette::silhouettes;

mod common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: group_recall DATASET")?,
    );
    // category -> (same pairs, same joined, different joined, boards, boards whole)
    let mut tally: BTreeMap<String, [usize; 5]> = BTreeMap::new();
    common::for_each_truth_board(&dir, |truth| {
        let outlines = silhouettes(&truth.rectified);
        let found = groups(&truth.rectified, &outlines);
        let mut group_of = [usize::MAX; 64];
        for (g, cells) in found.iter().enumerate() {
            for &c in cells {
                group_of[c] = g;
            }
        }
        let t = tally.entry(truth.category.clone()).or_default();
        let mut whole = true;
        for a in 0..64 {
            for b in a + 1..64 {
                let (ca, cb) = (truth.classes[a], truth.classes[b]);
                if ca == 0 || cb == 0 {
                    continue;
                }
                let joined = group_of[a] != usize::MAX && group_of[a] == group_of[b];
                if ca == cb {
                    t[0] += 1;
                    t[1] += joined as usize;
                    whole &= joined;
                } else {
                    t[2] += joined as usize;
                }
            }
        }
        t[3] += 1;
        t[4] += whole as usize;
        if std::env::var("SHOW").is_ok_and(|c| c == truth.category) && !whole {
            let mut lines = Vec::new();
            for a in 0..64 {
                for b in a + 1..64 {
                    let (ca, cb) = (truth.classes[a], truth.classes[b]);
                    if ca == 0
                        || ca != cb
                        || (group_of[a] != usize::MAX && group_of[a] == group_of[b])
                    {
                        continue;
                    }
                    let (Some(sa), Some(sb)) = (&outlines[a], &outlines[b]) else {
                        continue;
                    };
                    let d = if fenlens_vision::alike::same_colour(a, b) {
                        format!(
                            "same-colour distance {:.3}",
                            fenlens_vision::alike::distance(&truth.rectified, a, b)
                        )
                    } else {
                        format!(
                            "cross {:.3} tolerant {:.3}",
                            fenlens_vision::alike::cross_distance(
                                &truth.rectified,
                                (a, sa),
                                (b, sb)
                            ),
                            fenlens_vision::alike::tolerant_cross_distance(
                                &truth.rectified,
                                (a, sa),
                                (b, sb)
                            )
                        )
                    };
                    lines.push(format!("  class {ca} cells {a} {b}: {d}"));
                }
            }
            eprintln!(
                "board: {} unjoined pairs\n{}",
                lines.len(),
                lines.iter().take(6).cloned().collect::<Vec<_>>().join("\n")
            );
        }
    })?;
    for (category, [same, joined, wrong, boards, whole]) in tally {
        println!(
            "{category:<12} same-piece pairs joined {joined}/{same} ({:.1}%), different joined {wrong}, boards with every copy joined {whole}/{boards}",
            100.0 * joined as f32 / same.max(1) as f32
        );
    }
    Ok(())
}
