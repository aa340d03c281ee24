//! Per-stage speed on one 800x800 rendered board (PNG): decode, locate, rectify and cut,
//! classify (64 squares), the checks on the readings (colour, symmetry, alike squares, the
//! position prior) and compose, the alike squares' grouping alone, and the whole pipeline. Run with `RAYON_NUM_THREADS=1`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use fenlens_fen::shakmaty::Square;
use fenlens_render::style::{BoardStyle, Coords};
use fenlens_render::{PieceSet, draw_board};
use fenlens_vision::alike::{groups, pool};
use fenlens_vision::classify::Classifier;
use fenlens_vision::colour::{mean_greys, reconcile};
use fenlens_vision::compose::{compose, display_index, weigh_by_facts};
use fenlens_vision::decode::decode;
use fenlens_vision::locate::locate;
use fenlens_vision::prior;
use fenlens_vision::rectify::{cut_squares, rectify};
use fenlens_vision::silhouette::silhouettes;
use fenlens_vision::symmetry::{asymmetries, weigh_knights};
use fenlens_vision::{Options, Recognizer};

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
    group.bench_function("decode", |b| b.iter(|| decode(black_box(&png))));
    group.bench_function("locate", |b| b.iter(|| locate(black_box(&image))));
    group.bench_function("rectify-and-cut", |b| {
        b.iter(|| rectify(black_box(&image), corners).map(|r| cut_squares(&r)))
    });
    group.bench_function("classify-64", |b| {
        b.iter(|| classifier.probabilities(black_box(&crops)))
    });
    let probabilities = classifier.probabilities(&crops).expect("classifies");
    group.bench_function("checks-and-compose", |b| {
        b.iter(|| {
            let mut p = probabilities.clone();
            let outlines = silhouettes(black_box(&rectified));
            reconcile(&mut p, &mean_greys(&rectified, &outlines));
            weigh_knights(&mut p, &asymmetries(&outlines));
            pool(&mut p, &groups(&rectified, &outlines));
            for square in Square::ALL {
                prior::weigh(&mut p[display_index(square, false)], square);
            }
            let mut squares = compose(&p, false);
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
}

criterion_group!(benches, bench);
criterion_main!(benches);
