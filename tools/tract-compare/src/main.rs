//! Runs the shipped square classifier in candle and in tract on the same 64 crops, checks that
//! both give the same probabilities, and times both on one thread.
//!
//! ```sh
//! cd tools/tract-compare && RAYON_NUM_THREADS=1 cargo run --release -- ../../examples/example.png
//! ```
//!
//! The network is written as NNEF (a text graph plus one `.dat` file per tensor) from the
//! safetensors weights, then loaded and optimized by tract.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use candle_core::{Device, safetensors};
use fenlens_vision::classify::{CLASSES, Classifier};
use fenlens_vision::rectify::{CROP, cut_squares, rectify};
use tract_nnef::prelude::*;

const GRAPH: &str = "version 1.0;

graph square_net(input) -> (output)
{
    input = external<scalar>(shape = [64, 1, 32, 32]);
    w1 = variable<scalar>(label = 'conv1_w', shape = [16, 1, 3, 3]);
    b1 = variable<scalar>(label = 'conv1_b', shape = [1, 16]);
    w2 = variable<scalar>(label = 'conv2_w', shape = [32, 16, 3, 3]);
    b2 = variable<scalar>(label = 'conv2_b', shape = [1, 32]);
    w3 = variable<scalar>(label = 'conv3_w', shape = [64, 32, 3, 3]);
    b3 = variable<scalar>(label = 'conv3_b', shape = [1, 64]);
    w4 = variable<scalar>(label = 'hidden_w', shape = [64, 1024]);
    b4 = variable<scalar>(label = 'hidden_b', shape = [1, 64]);
    w5 = variable<scalar>(label = 'output_w', shape = [13, 64]);
    b5 = variable<scalar>(label = 'output_b', shape = [1, 13]);
    c1 = relu(conv(input, w1, b1, border = 'constant', padding = [(1, 1), (1, 1)], stride = [2, 2]));
    c2 = relu(conv(c1, w2, b2, border = 'constant', padding = [(1, 1), (1, 1)], stride = [2, 2]));
    c3 = relu(conv(c2, w3, b3, border = 'constant', padding = [(1, 1), (1, 1)], stride = [2, 2]));
    flat = reshape(c3, shape = [64, 1024]);
    h = relu(linear(flat, w4, b4));
    logits = linear(h, w5, b5);
    output = softmax(logits, axes = [1]);
}
";

/// Writes the NNEF graph and its tensors into `dir`.
fn write_nnef(weights: &Path, dir: &Path) -> Result<()> {
    let tensors = safetensors::load(weights, &Device::Cpu)?;
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("graph.nnef"), GRAPH)?;
    for layer in ["conv1", "conv2", "conv3", "hidden", "output"] {
        for (part, suffix) in [("weight", "w"), ("bias", "b")] {
            let t = tensors
                .get(&format!("{layer}.{part}"))
                .with_context(|| format!("{layer}.{part} missing"))?;
            let mut shape = t.dims().to_vec();
            if part == "bias" {
                shape.insert(0, 1);
            }
            let values = t.flatten_all()?.to_vec1::<f32>()?;
            let tensor = tract_nnef::prelude::Tensor::from_shape(&shape, &values)?;
            let mut file = std::fs::File::create(dir.join(format!("{layer}_{suffix}.dat")))?;
            tract_nnef::tensors::write_tensor(&mut file, &tensor)?;
        }
    }
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<()> {
    let picture = std::env::args().nth(1).context("usage: tract-compare PICTURE")?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let weights = root.join("models/square-net.safetensors");
    let image = image_rgb(&picture)?;
    let located = fenlens_vision::locate::locate(&image)?;
    let crops = cut_squares(&rectify(&image, located.corners).context("degenerate board")?);

    let classifier = Classifier::from_bytes(&std::fs::read(&weights)?)?.with_mirror_averaging(false);
    let dir = std::env::temp_dir().join(format!("fenlens-nnef-{}", std::process::id()));
    write_nnef(&weights, &dir)?;
    let loading = Instant::now();
    let model = tract_nnef::nnef()
        .model_for_path(&dir)?
        .into_optimized()?
        .into_runnable()?;
    let tract_load_ms = loading.elapsed().as_secs_f64() * 1e3;
    let loading = Instant::now();
    let reloaded = Classifier::from_bytes(&std::fs::read(&weights)?)?;
    let candle_load_ms = loading.elapsed().as_secs_f64() * 1e3;
    drop(reloaded);
    println!(
        "loading the network: candle {candle_load_ms:.2} ms, tract {tract_load_ms:.2} ms (NNEF parse and optimization)"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let input: tract_nnef::prelude::Tensor =
        tract_ndarray::Array4::from_shape_vec((64, 1, CROP, CROP), crops.clone())?.into();

    let from_candle = classifier.probabilities(&crops)?;
    let from_tract = model.run(tvec!(input.clone().into()))?;
    let from_tract = from_tract[0].to_array_view::<f32>()?;
    let mut largest = 0f32;
    for (square, row) in from_candle.iter().enumerate() {
        for class in 0..CLASSES {
            largest = largest.max((row[class] - from_tract[[square, class]]).abs());
        }
    }
    println!("largest difference between the two runtimes' probabilities: {largest:.2e}");
    if largest > 1e-3 {
        bail!("the runtimes disagree");
    }

    let runs = 300;
    let mut candle_ms = Vec::new();
    let mut tract_ms = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(classifier.probabilities(&crops)?);
        candle_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        std::hint::black_box(model.run(tvec!(input.clone().into()))?);
        tract_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "64 squares, median of {runs}: candle {:.2} ms, tract {:.2} ms",
        median(candle_ms),
        median(tract_ms)
    );
    Ok(())
}

fn image_rgb(path: &str) -> Result<image::RgbImage> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {path}"))?;
    Ok(fenlens_vision::decode::decode(&bytes)?)
}
