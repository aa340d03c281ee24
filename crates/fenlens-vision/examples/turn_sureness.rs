//! Measures what `fenlens_vision::turn` relies on: the networks read a board's pieces more
//! surely standing upright than lying on their sides or standing on their heads. For every
//! picture of a rendered dataset that shows one board, rectified at its true corners (and with
//! `--turned`, also with those corners named from each other corner, so that the board stands
//! turned one, two and three quarter turns), prints one line: the file, the quarter turns the
//! board stands turned (clockwise), how many squares the first reading gives pieces, that
//! reading's [`sureness`] over them, then the crops' [`sureness`] turned 0-3 quarter turns
//! clockwise, read by the whole classifier and by its first member alone.
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example turn_sureness -- /tmp/foreign-designs --turned
//! ```
//!
//! Sixty-ninth session: the bounds in `turn` were chosen on these lines for the twelve
//! measuring sets upright (6,513 boards) and 150 boards of four of them turned each way.

use std::path::PathBuf;

use fenlens_vision::classify::{CLASSES, Classifier};
use fenlens_vision::rectify::{cut_cells, rectify};
use fenlens_vision::turn::{piece_cells, sureness, turn_corners, turn_crops};

mod common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or("usage: turn_sureness DATASET [--turned]")?,
    );
    let turnings = if args.next().as_deref() == Some("--turned") {
        4
    } else {
        1
    };
    let classifier = Classifier::embedded()?;
    common::for_each_board_picture(&dir, |picture| {
        for turned in 0..turnings {
            // Named from another corner, the board stands turned the other way.
            let corners = turn_corners(picture.corners, (4 - turned) % 4);
            let Some(rectified) = rectify(&picture.image, corners) else {
                continue;
            };
            let reading = classifier.read_board(&rectified)?;
            let pieces = piece_cells(&reading);
            let first: Vec<[f32; CLASSES]> =
                pieces.iter().map(|&c| reading.probabilities[c]).collect();
            let mut crops = cut_cells(&rectified, &pieces, 0);
            let (mut whole, mut quick) = ([0.0f32; 4], [0.0f32; 4]);
            for turns in 0..4 {
                if turns > 0 {
                    crops = turn_crops(&crops);
                }
                whole[turns] = sureness(&classifier.probabilities(&crops)?);
                quick[turns] = sureness(&classifier.first_member_probabilities(&crops)?);
            }
            let show = |values: [f32; 4]| values.map(|v| format!("{v:.3}")).join(" ");
            println!(
                "{} {turned} {} {:.3} {} {}",
                picture.file,
                pieces.len(),
                sureness(&first),
                show(whole),
                show(quick)
            );
        }
        Ok(())
    })
}
