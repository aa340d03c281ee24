//! Counts, over many positions of the renderer's game sampler, how often each square holds each
//! of the 13 classes, and prints the table `fenlens_vision::prior::GAME_COUNTS` in Rust.
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example fit_prior
//! ```

use fenlens_vision::prior::{SAMPLED_GAMES, count_classes};

fn main() {
    let counts = count_classes(SAMPLED_GAMES, fenlens_vision::prior::SEED);
    println!(
        "/// How often each square (a1 first) holds each class (empty, P N B R Q K, p n b r q k) over"
    );
    println!(
        "/// [`SAMPLED_GAMES`] positions of the renderer's game sampler with seed [`SEED`]; printed by"
    );
    println!("/// `cargo run --release -p fenlens-vision --example fit_prior`.");
    println!("#[rustfmt::skip]");
    println!("pub const GAME_COUNTS: [[u16; CLASSES]; 64] = [");
    for row in counts {
        let cells: Vec<String> = row.iter().map(|c| c.to_string()).collect();
        println!("    [{}],", cells.join(", "));
    }
    println!("];");
}
