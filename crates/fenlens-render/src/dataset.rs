//! Datasets: many rendered pictures plus `manifest.jsonl`, their ground truth.
//!
//! The manifest has one JSON object a line, in file order (documented in `docs/manifest.md`).
//! Picture `i` is drawn from its own random stream (the seed, stream `i`), so the same seed gives
//! the same bytes whatever the number of threads.

use std::io::Write;
use std::path::Path;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::RenderError;
use crate::scene::{BoardTruth, Category, Library, Sample, render_sample};

/// What to generate.
#[derive(Clone)]
pub struct DatasetOptions {
    /// Number of pictures.
    pub count: usize,
    /// Random seed.
    pub seed: u64,
    /// Categories, used in turn (picture `i` gets `mix[i % mix.len()]`).
    pub mix: Vec<Category>,
    /// Piece sets and textures.
    pub library: Library,
}

/// One line of `manifest.jsonl`.
#[derive(Debug, Serialize)]
pub struct ManifestEntry {
    /// Path of the picture, relative to the dataset folder.
    pub file: String,
    /// Picture kind.
    pub category: Category,
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
    /// The main board's placement (standard orientation, rank 8 first).
    pub placement: String,
    /// Whether the main board shows Black at the bottom.
    pub flipped: bool,
    /// The main board's corners (top-left, top-right, bottom-right, bottom-left as displayed).
    pub corners: [[f32; 2]; 4],
    /// Every board in the picture, the main one first, with its full style.
    pub boards: Vec<BoardTruth>,
    /// Board-like things that are not boards to read (thumbnails), as corner quads.
    pub decoys: Vec<[[f32; 2]; 4]>,
    /// Degradations applied, in order.
    pub degradations: Vec<String>,
    /// The seed and the picture's index: together they reproduce it.
    pub seed: u64,
    /// Index of the picture.
    pub index: usize,
}

/// Renders picture `index` of a dataset.
pub fn render_indexed(options: &DatasetOptions, index: usize) -> Sample {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    rng.set_stream(index as u64);
    let category = options.mix[index % options.mix.len().max(1)];
    render_sample(&mut rng, category, &options.library)
}

/// Encodes a sample as PNG, or JPEG when it asks for it. Returns the bytes and the extension.
pub fn encode(sample: &Sample) -> Result<(Vec<u8>, &'static str), RenderError> {
    let mut bytes = Vec::new();
    let err = |e: image::ImageError| RenderError::Image {
        path: "<memory>".into(),
        message: e.to_string(),
    };
    match sample.jpeg_quality {
        Some(quality) => {
            let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality);
            sample.image.write_with_encoder(encoder).map_err(err)?;
            Ok((bytes, "jpg"))
        }
        None => {
            let encoder = image::codecs::png::PngEncoder::new(&mut bytes);
            sample.image.write_with_encoder(encoder).map_err(err)?;
            Ok((bytes, "png"))
        }
    }
}

/// Writes `options.count` pictures under `dir/images/` and `dir/manifest.jsonl`. `progress` is
/// called once per finished picture (from worker threads).
pub fn generate(
    dir: &Path,
    options: &DatasetOptions,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<ManifestEntry>, RenderError> {
    if options.mix.is_empty() {
        return Err(RenderError::Invalid("the mix names no category".into()));
    }
    let images = dir.join("images");
    std::fs::create_dir_all(&images).map_err(|cause| RenderError::Io {
        path: images.clone(),
        cause,
    })?;
    let entries = (0..options.count)
        .into_par_iter()
        .map(|index| {
            let sample = render_indexed(options, index);
            let (bytes, extension) = encode(&sample)?;
            let file = format!("images/{index:06}.{extension}");
            let path = dir.join(&file);
            std::fs::write(&path, bytes).map_err(|cause| RenderError::Io { path, cause })?;
            progress();
            let main = &sample.boards[0];
            Ok(ManifestEntry {
                file,
                category: sample.category,
                width: sample.image.width(),
                height: sample.image.height(),
                placement: main.placement.clone(),
                flipped: main.flipped,
                corners: main.corners,
                boards: sample.boards.clone(),
                decoys: sample.decoys.clone(),
                degradations: sample.degradations.clone(),
                seed: options.seed,
                index,
            })
        })
        .collect::<Result<Vec<_>, RenderError>>()?;
    let manifest = dir.join("manifest.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&manifest).map_err(|cause| {
        RenderError::Io {
            path: manifest.clone(),
            cause,
        }
    })?);
    for entry in &entries {
        let line = serde_json::to_string(entry).map_err(|e| RenderError::Invalid(e.to_string()))?;
        writeln!(out, "{line}").map_err(|cause| RenderError::Io {
            path: manifest.clone(),
            cause,
        })?;
    }
    out.flush().map_err(|cause| RenderError::Io {
        path: manifest,
        cause,
    })?;
    Ok(entries)
}
