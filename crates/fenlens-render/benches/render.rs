//! Rendering speed: plain 256x256 boards (flat theme, built-in pieces, positions from random
//! games), one at a time on one thread. Target: at least 300 boards per second on one core.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fenlens_render::dataset::{DatasetOptions, render_indexed};
use fenlens_render::positions;
use fenlens_render::scene::{Category, Library};
use fenlens_render::style::BoardStyle;
use fenlens_render::{PieceSet, draw_board};
use rand::SeedableRng;

fn bench(c: &mut Criterion) {
    let pieces = PieceSet::builtin();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let boards: Vec<_> = (0..64).map(|_| positions::game(&mut rng).board).collect();
    let style = BoardStyle::default();
    // Warm the sprite cache as a dataset run would.
    let _ = pieces.sprites(32);
    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Elements(boards.len() as u64));
    group.bench_function("plain-256px-boards", |b| {
        b.iter(|| {
            for board in &boards {
                black_box(draw_board(black_box(board), &style, &pieces, 32));
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("dataset-picture");
    group.sample_size(10);
    for category in Category::ALL {
        let options = DatasetOptions {
            count: 1,
            seed: 3,
            mix: vec![category],
            library: Library::builtin(),
        };
        group.bench_function(category.name(), |b| {
            let mut index = 0;
            b.iter(|| {
                index += 1;
                black_box(render_indexed(&options, index))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
