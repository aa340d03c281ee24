//! Prints how long each stage of the pipeline takes on one picture, the median of N runs in
//! this process (so without process start and model loading, which `perf stat fenlens
//! recognize` adds):
//!
//! ```sh
//! cargo run --release -p fenlens-vision --example stage_times -- PICTURE [RUNS]
//! ```

use std::time::{Duration, Instant};

use fenlens_vision::pipeline::{Options, Recognizer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: stage_times PICTURE [RUNS]")?;
    let runs: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(30);
    let started = Instant::now();
    let recognizer = Recognizer::new()?;
    println!("model load {:.2} ms", ms(started.elapsed()));
    let bytes = std::fs::read(&path)?;
    let options = Options::default();
    let mut rows: Vec<[Duration; 5]> = Vec::new();
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        let recognition = recognizer.recognize_bytes(&bytes, &options)?;
        let total = started.elapsed();
        let t = recognition.timings;
        let stages = t.decode + t.locate + t.rectify + t.classify;
        rows.push([
            t.decode,
            t.locate,
            t.rectify,
            t.classify,
            total.saturating_sub(stages),
        ]);
    }
    let names = ["decode", "locate", "rectify", "classify", "orient+compose"];
    for (i, name) in names.iter().enumerate() {
        let mut column: Vec<Duration> = rows.iter().map(|r| r[i]).collect();
        column.sort();
        println!("{name:>15} {:.2} ms", ms(column[column.len() / 2]));
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
