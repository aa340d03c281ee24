//! Counts, over many positions of the renderer's samplers, how often each square holds each of
//! the 13 classes, and prints the tables `fenlens_vision::prior::GAME_COUNTS`,
//! `SPARSE_GAME_COUNTS` and `SCATTERED_COUNTS` in Rust.
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example fit_prior
//! ```

use fenlens_vision::classify::CLASSES;
use fenlens_vision::prior::{
    SAMPLED_GAMES, SAMPLED_SPARSE, SEED, count_classes, count_scattered_classes,
    count_sparse_game_classes,
};

fn main() {
    print_table(
        "GAME_COUNTS",
        &[
            "How often each square (a1 first) holds each class (empty, P N B R Q K, p n b r q k) over",
            "[`SAMPLED_GAMES`] positions of the renderer's game sampler with seed [`SEED`]; printed by",
            "`cargo run --release -p fenlens-vision --example fit_prior`.",
        ],
        &count_classes(SAMPLED_GAMES, SEED),
    );
    print_table(
        "SPARSE_GAME_COUNTS",
        &[
            "How often each square (a1 first) holds each class over the first [`SAMPLED_SPARSE`]",
            "positions of the renderer's game sampler with seed [`SEED`] that hold fewer than",
            "[`SPARSE_BELOW`] pieces; printed by `cargo run --release -p fenlens-vision --example",
            "fit_prior`.",
        ],
        &count_sparse_game_classes(SAMPLED_SPARSE, SEED),
    );
    print_table(
        "SCATTERED_COUNTS",
        &[
            "How often each square (a1 first) holds each class over [`SAMPLED_SPARSE`] positions of",
            "the renderer's endgame sampler (two kings and one to six pieces set anywhere) with seed",
            "[`SEED`]; printed by `cargo run --release -p fenlens-vision --example fit_prior`.",
        ],
        &count_scattered_classes(SAMPLED_SPARSE, SEED),
    );
}

/// Prints one table as a Rust constant with its doc comment.
fn print_table(name: &str, doc: &[&str], counts: &[[u16; CLASSES]; 64]) {
    for line in doc {
        println!("/// {line}");
    }
    println!("#[rustfmt::skip]");
    println!("pub const {name}: [[u16; CLASSES]; 64] = [");
    for row in counts {
        let cells: Vec<String> = row.iter().map(|c| c.to_string()).collect();
        println!("    [{}],", cells.join(", "));
    }
    println!("];");
}
