//! End-to-end checks of the renderer: the grid is where the ground truth says, flipping is a
//! rotation of the squares, datasets cover every class, and a seed fixes the bytes.

use std::collections::HashSet;

use fenlens_fen::shakmaty::{Board, Square};
use fenlens_render::dataset::{DatasetOptions, encode, render_indexed};
use fenlens_render::draw::{display_cell, pixmap_to_rgba};
use fenlens_render::scene::{Category, Library};
use fenlens_render::style::{BoardLook, BoardStyle};
use fenlens_render::{PieceSet, draw_board};
use image::RgbImage;

fn options(count: usize, seed: u64, mix: Vec<Category>) -> DatasetOptions {
    DatasetOptions {
        count,
        seed,
        mix,
        library: Library::builtin(),
    }
}

/// Colour distance between two pixels.
fn distance(a: &image::Rgb<u8>, b: &image::Rgb<u8>) -> u32 {
    a.0.iter()
        .zip(b.0.iter())
        .map(|(x, y)| (*x as i32 - *y as i32).unsigned_abs())
        .sum()
}

#[test]
fn drawn_grid_matches_ground_truth_corners() {
    // Clean and screenshot pictures of an empty-ish flat board: find the colour edges along a
    // row and a column of squares and compare them with the grid the corners predict.
    let mut checked = 0;
    for index in 0..40 {
        let opts = options(40, 11, vec![Category::Clean, Category::Screenshot]);
        let sample = render_indexed(&opts, index);
        let truth = &sample.boards[0];
        if !truth.look.starts_with("flat:") || truth.arrows > 0 {
            continue;
        }
        let [tl, tr, _, bl] = truth.corners;
        let side = tr[0] - tl[0];
        assert!((bl[1] - tl[1] - side).abs() < 0.01, "square board");
        let image: &RgbImage = &sample.image;
        // Scan each row of squares just inside its top edge, where pieces rarely reach, and
        // collect the x positions where the colour jumps.
        let mut edges_found = 0;
        for row in 0..8 {
            let y = (tl[1] + (row as f32 + 0.06) * side / 8.0) as u32;
            for col in 1..8 {
                let expected = tl[0] + col as f32 * side / 8.0;
                let window = (expected - 3.0) as u32..=(expected + 3.0) as u32;
                let jump = window
                    .clone()
                    .find(|&x| distance(image.get_pixel(x - 1, y), image.get_pixel(x, y)) > 30);
                if let Some(x) = jump {
                    assert!(
                        (x as f32 - expected).abs() <= 1.5,
                        "picture {index}: edge at {x}, ground truth says {expected}"
                    );
                    edges_found += 1;
                }
            }
        }
        // Coordinates, highlights or pieces may hide a few edges, never most of them.
        assert!(
            edges_found >= 40,
            "picture {index}: only {edges_found} edges seen"
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} flat boards checked");
}

#[test]
fn flipped_board_shows_each_square_rotated_by_180_degrees() {
    let pieces = PieceSet::builtin();
    let board: Board = "r1bk3r/p2pBpNp/n4n2/1p1NP2P/6P1/3P4/P1P1K3/q5b1"
        .parse::<fenlens_fen::shakmaty::fen::Fen>()
        .unwrap()
        .into_setup()
        .board;
    let s = 32u32;
    let normal = pixmap_to_rgba(&draw_board(&board, &BoardStyle::default(), &pieces, s).pixmap);
    let flipped_style = BoardStyle {
        flipped: true,
        ..BoardStyle::default()
    };
    let flipped = pixmap_to_rgba(&draw_board(&board, &flipped_style, &pieces, s).pixmap);
    assert_ne!(normal, flipped);
    for sq in Square::ALL {
        let (c1, r1) = display_cell(sq, false);
        let (c2, r2) = display_cell(sq, true);
        assert_eq!((c2, r2), (7 - c1, 7 - r1));
        for dy in 0..s {
            for dx in 0..s {
                assert_eq!(
                    normal.get_pixel(c1 * s + dx, r1 * s + dy),
                    flipped.get_pixel(c2 * s + dx, r2 * s + dy),
                    "square {sq}"
                );
            }
        }
    }
}

#[test]
fn generated_set_contains_all_thirteen_classes() {
    let opts = options(24, 5, Category::ALL.to_vec());
    let mut seen = HashSet::new();
    for index in 0..opts.count {
        let sample = render_indexed(&opts, index);
        for truth in &sample.boards {
            let board = truth
                .placement
                .parse::<fenlens_fen::shakmaty::fen::Fen>()
                .expect("ground truth placement parses")
                .into_setup()
                .board;
            for sq in Square::ALL {
                seen.insert(board.piece_at(sq).map(|p| p.char()).unwrap_or('.'));
            }
        }
    }
    assert_eq!(seen.len(), 13, "{seen:?}");
}

#[test]
fn same_seed_gives_identical_bytes() {
    let opts = options(6, 42, Category::ALL.to_vec());
    for index in 0..6 {
        let a = encode(&render_indexed(&opts, index)).unwrap();
        let b = encode(&render_indexed(&opts, index)).unwrap();
        assert_eq!(a, b, "picture {index}");
    }
    let other = options(6, 43, Category::ALL.to_vec());
    assert_ne!(
        encode(&render_indexed(&opts, 0)).unwrap(),
        encode(&render_indexed(&other, 0)).unwrap()
    );
}

#[test]
fn textures_and_piece_sets_load_from_shared_when_present() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let pieces_root = root.join("pieces/lichess");
    if !pieces_root.is_dir() {
        eprintln!("skipping: {} not found", pieces_root.display());
        return;
    }
    let sets = fenlens_render::pieces::list_sets(&pieces_root).unwrap();
    assert!(sets.len() >= 20);
    for dir in &sets {
        let set = PieceSet::load(dir).unwrap();
        let sprites = set.sprites(24);
        assert!(
            sprites
                .iter()
                .all(|p| p.pixels().iter().any(|px| px.alpha() > 0)),
            "{}",
            set.name()
        );
    }
    let texture = BoardLook::texture(&root.join("boards/lichess/wood.jpg"));
    if let Ok(BoardLook::Texture { image, .. }) = texture {
        assert!(image.width() >= 512);
    }
}
