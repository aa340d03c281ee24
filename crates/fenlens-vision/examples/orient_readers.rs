//! Prints what each orientation reader says on pictures: the file letters, the rank digits and
//! the position (read as displayed), each as `Some(Orientation)` or `None` where it found
//! nothing, and how game-like the reading is either way up (`prior::game_likeness`). For
//! finding out why a board was turned the wrong way:
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example orient_readers -- PICTURE...
//! ```

use fenlens_vision::orient::{orient_from_labels, orient_from_ranks, orient_placement};
use fenlens_vision::pipeline::{Flipped, Options, Recognizer};
use fenlens_vision::prior::game_likeness;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let recognizer = Recognizer::new()?;
    let as_displayed = Options {
        flipped: Flipped::No,
        ..Options::default()
    };
    for path in std::env::args().skip(1) {
        match readers(&recognizer, &as_displayed, &path) {
            Ok(line) => println!("{path}: {line}"),
            Err(e) => println!("{path}: {e}"),
        }
    }
    Ok(())
}

/// How game-like the placement is ([`game_likeness`]) as displayed or turned, whichever is more.
fn likeness_either_way_up(placement: &fenlens_fen::shakmaty::Board) -> f32 {
    let mut turned = placement.clone();
    turned.rotate_180();
    game_likeness(placement).max(game_likeness(&turned))
}

/// What the three readers say on one picture.
fn readers(
    recognizer: &Recognizer,
    as_displayed: &Options,
    path: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let image = fenlens_vision::decode::decode(&std::fs::read(path)?)?;
    let corners = fenlens_vision::locate::locate(&image)?.corners;
    let read = recognizer.recognize_at(&image, corners, as_displayed, Default::default())?;
    Ok(format!(
        "letters {:?}, ranks {:?}, position {:?}, game-likeness {:.2}",
        orient_from_labels(&image, corners),
        orient_from_ranks(&image, corners),
        orient_placement(&read.placement),
        likeness_either_way_up(&read.placement),
    ))
}
