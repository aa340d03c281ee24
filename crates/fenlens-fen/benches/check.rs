//! Read, validate and write 10,000 FENs from random games, beside shakmaty's own `Fen` parse and
//! `Chess` setup on the same corpus in the same run. The target: our full check costs at most
//! twice shakmaty's parse and setup.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fenlens_fen::shakmaty::fen::Fen;
use fenlens_fen::shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use fenlens_fen::{CheckOptions, check};

/// 10,000 FENs from random legal games of 0-150 plies (fixed seed).
fn corpus() -> Vec<String> {
    let mut state: u64 = 0x5eed_f3e1;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..10_000)
        .map(|_| {
            let plies = next() % 150;
            let mut pos = Chess::default();
            for _ in 0..plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[next() % moves.len()];
                pos.play_unchecked(m);
            }
            Fen::from_position(&pos, EnPassantMode::Always).to_string()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let fens = corpus();
    let options = CheckOptions::default();
    let mut group = c.benchmark_group("10k-fens");
    group.throughput(Throughput::Elements(fens.len() as u64));
    group.sample_size(20);
    group.bench_function("fenlens-check", |b| {
        b.iter(|| {
            for fen in &fens {
                let report = check(black_box(fen.as_bytes()), &options);
                black_box(report.is_valid());
                black_box(report.fen);
            }
        })
    });
    group.bench_function("fenlens-read-only", |b| {
        b.iter(|| {
            for fen in &fens {
                black_box(fenlens_fen::read(black_box(fen.as_bytes())));
            }
        })
    });
    let setups: Vec<_> = fens
        .iter()
        .filter_map(|f| fenlens_fen::read(f.as_bytes()).setup)
        .collect();
    group.bench_function("fenlens-write-only", |b| {
        b.iter(|| {
            for setup in &setups {
                black_box(fenlens_fen::write_fen(
                    black_box(setup),
                    fenlens_fen::CastlingNotation::Standard,
                    fenlens_fen::EnPassantWrite::Always,
                ));
            }
        })
    });
    group.bench_function("shakmaty-parse-setup", |b| {
        b.iter(|| {
            for fen in &fens {
                let parsed = Fen::from_ascii(black_box(fen.as_bytes())).ok();
                let pos =
                    parsed.and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok());
                black_box(pos);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
