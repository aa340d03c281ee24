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

use fenlens_fen::shakmaty::Color;
use fenlens_vision::classify::class_piece;
use fenlens_vision::colour::mean_greys;
use fenlens_vision::silhouette::silhouettes;

mod common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: colour_split DATASET")?,
    );
    // Category -> (boards with both colours, boards split without a mistake).
    let mut tally: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    common::for_each_truth_board(&dir, |truth| {
        let greys = mean_greys(&truth.rectified, &silhouettes(&truth.rectified));
        let (mut whites, mut blacks) = (Vec::new(), Vec::new());
        for (class, grey) in truth.classes.into_iter().zip(greys) {
            match (class_piece(class).map(|piece| piece.color), grey) {
                (Some(Color::White), Some(grey)) => whites.push(grey),
                (Some(Color::Black), Some(grey)) => blacks.push(grey),
                _ => {}
            }
        }
        if whites.is_empty() || blacks.is_empty() {
            return;
        }
        let darkest_white = whites.iter().copied().fold(f32::INFINITY, f32::min);
        let lightest_black = blacks.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let counts = tally.entry(truth.category).or_default();
        counts.0 += 1;
        counts.1 += u32::from(lightest_black < darkest_white);
    })?;
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
