//! Per-stage speed on one 800x800 rendered board (PNG): decode, locate, rectify and cut,
//! classify (64 squares), the checks on the readings (colour, symmetry, alike squares and their
//! caps, the position prior) and compose, the alike squares' grouping alone, and the whole
//! pipeline; and the composer alone on boards of 64 unsure readings, where its promotion rule
//! searches longest (pairs of changes). Run with `RAYON_NUM_THREADS=1`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use fenlens_fen::shakmaty::Square;
use fenlens_render::style::{BoardStyle, Coords};
use fenlens_render::{PieceSet, draw_board};
use fenlens_vision::alike::{OVER_COUNT_KEEP, cap_groups, groups, pool};
use fenlens_vision::classify::{CLASSES, Classifier};
use fenlens_vision::colour::{mean_greys, reconcile};
use fenlens_vision::compose::{compose_grouped, display_index, weigh_by_facts};
use fenlens_vision::decode::decode;
use fenlens_vision::locate::locate;
use fenlens_vision::prior;
use fenlens_vision::rectify::{cut_squares, rectify};
use fenlens_vision::silhouette::silhouettes;
use fenlens_vision::symmetry::{asymmetries, weigh_knights};
use fenlens_vision::{Options, Recognizer};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn bench(c: &mut Criterion) {
    let board = fenlens_fen::read(b"r1bk3r/p2pBpNp/n4n2/1p1NP2P/6P1/3P4/P1P1K3/q5b1")
        .setup
        .expect("placement")
        .board;
    let style = BoardStyle {
        coords: Coords::Inside,
        ..BoardStyle::default()
    };
    let png = draw_board(&board, &style, &PieceSet::builtin(), 100)
        .pixmap
        .encode_png()
        .expect("png");
    let image = decode(&png).expect("decodes");
    let corners = locate(&image).expect("board").corners;
    let rectified = rectify(&image, corners).expect("rectifies");
    let crops = cut_squares(&rectified);
    let classifier = Classifier::embedded().expect("model");
    let recognizer = Recognizer::new().expect("model");

    let mut group = c.benchmark_group("stage-800px");
    group.sample_size(20);
    // Once a process: the four built-in networks read from the bytes in the binary.
    group.bench_function("load-models", |b| b.iter(Classifier::embedded));
    group.bench_function("decode", |b| b.iter(|| decode(black_box(&png))));
    group.bench_function("locate", |b| b.iter(|| locate(black_box(&image))));
    group.bench_function("rectify-and-cut", |b| {
        b.iter(|| rectify(black_box(&image), corners).map(|r| cut_squares(&r)))
    });
    group.bench_function("classify-64", |b| {
        b.iter(|| classifier.probabilities(black_box(&crops)))
    });
    // What the pipeline runs: the blank squares left unread, the second looks at unsure ones.
    group.bench_function("read-board", |b| {
        b.iter(|| classifier.read_board(black_box(&rectified)))
    });
    let probabilities = classifier.probabilities(&crops).expect("classifies");
    group.bench_function("checks-and-compose", |b| {
        b.iter(|| {
            let mut p = probabilities.clone();
            let outlines = silhouettes(black_box(&rectified));
            reconcile(&mut p, &mean_greys(&rectified, &outlines));
            weigh_knights(&mut p, &asymmetries(&outlines));
            let alike = groups(&rectified, &outlines);
            pool(&mut p, &alike);
            cap_groups(&mut p, &alike, OVER_COUNT_KEEP);
            for square in Square::ALL {
                prior::weigh(&mut p[display_index(square, false)], square);
            }
            let mut squares = compose_grouped(&p, false, &alike);
            weigh_by_facts(&mut squares);
            squares
        })
    });
    let outlines = silhouettes(&rectified);
    group.bench_function("alike-groups", |b| {
        b.iter(|| groups(black_box(&rectified), &outlines))
    });
    group.bench_function("whole", |b| {
        b.iter(|| recognizer.recognize_bytes(black_box(&png), &Options::default()))
    });
    group.finish();

    // Boards of 64 unsure readings (every piece class drawn at random, cubed so that one or two
    // lead), with groups of alike squares: many promotions to undo, few cheap single changes.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let boards: Vec<Vec<[f32; CLASSES]>> = (0..20)
        .map(|_| {
            (0..64)
                .map(|_| {
                    let mut p = [0.0; CLASSES];
                    for v in p.iter_mut().skip(1) {
                        *v = rng.random::<f32>().powi(3) + 1e-4;
                    }
                    let sum: f32 = p.iter().sum();
                    p.map(|v| v / sum)
                })
                .collect()
        })
        .collect();
    let alike: Vec<Vec<usize>> = (0..8)
        .map(|row| {
            (0..8)
                .map(|col| row * 8 + col)
                .filter(|c| c % 3 == 0)
                .collect()
        })
        .collect();
    c.bench_function("compose-20-unsure-boards", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|p| compose_grouped(black_box(p), false, &alike).len())
                .sum::<usize>()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
