//! Training the square classifier from rendered boards.
//!
//! A prefetch thread renders boards with the renderer (random piece sets, looks, overlays,
//! sizes, blur, JPEG, noise), jitters the corners as an imperfect locator would, and cuts the
//! squares with the same [`crate::rectify`] code that inference uses. The main thread trains
//! [`SquareNet`] with AdamW. Same seed, same data.

use std::sync::mpsc::{Receiver, sync_channel};

use candle_core::{DType, Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW, VarBuilder, VarMap, loss};
use fenlens_fen::shakmaty::Square;
use fenlens_render::GraftedSet;
use fenlens_render::degrade;
use fenlens_render::draw::{display_cell, draw_board, pixmap_to_rgba};
use fenlens_render::positions::{self, Sampled};
use fenlens_render::scene::{Library, screen_style};
use fenlens_render::style::{BoardLook, BoardStyle, Coords, Hatch, PieceVariation, hsl};
use image::RgbImage;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::VisionError;
use crate::classify::{NetShape, SquareNet, piece_class};
use crate::rectify::{CROP, cut_squares, mirror_crop, rectify};

/// Training settings.
#[derive(Clone)]
pub struct TrainOptions {
    /// Optimizer steps.
    pub steps: usize,
    /// Boards per step (64 squares each).
    pub boards_per_step: usize,
    /// Learning rate at the start (cosine decay to 5% of it).
    pub learning_rate: f64,
    /// Random seed.
    pub seed: u64,
    /// The network's widths.
    pub shape: NetShape,
    /// Largest change of the pieces' dark strokes, in pixels: 1 (the shipped recipe: thicker
    /// or thinner by one) or 2 (also thicker by two on large drawings).
    pub max_stroke: i8,
    /// Piece sets and textures to render with.
    pub library: Library,
}

/// One training board: 64 crops and their classes.
pub struct TrainingBoard {
    /// `64 * CROP * CROP` values.
    pub crops: Vec<f32>,
    /// 64 classes in display order.
    pub labels: Vec<u32>,
}

fn to_rgb(pixmap: &fenlens_render::resvg::tiny_skia::Pixmap) -> RgbImage {
    image::DynamicImage::ImageRgba8(pixmap_to_rgba(pixmap)).to_rgb8()
}

/// Renders one training board; `max_stroke` as in [`TrainOptions`].
pub fn training_board(rng: &mut impl RngExt, library: &Library, max_stroke: i8) -> TrainingBoard {
    let sampled: Sampled = if rng.random_bool(0.5) {
        positions::random_placement(rng)
    } else {
        positions::sample(rng)
    };
    let book = rng.random_bool(0.15);
    let overlays = rng.random_bool(0.35);
    let mut style: BoardStyle = screen_style(rng, library, &sampled, overlays);
    if book {
        style.look = BoardLook::Book {
            hatch: [Hatch::Diagonal, Hatch::Stipple, Hatch::Grey][rng.random_range(0..3)],
        };
        style.highlights.clear();
        style.arrows.clear();
        style.circles.clear();
        style.check = None;
        if style.coords == Coords::Inside {
            style.coords = Coords::Outside;
        }
    }
    if rng.random_bool(0.5) {
        style.piece_variation = piece_variation(rng, max_stroke);
    }
    let sets = &library.piece_sets;
    let pieces = &sets[rng.random_range(0..sets.len())];
    let square = rng.random_range(14..64u32);
    let drawn = if rng.random_bool(0.35) {
        // New designs joined from two known ones (see `GraftedSet`).
        let grafted = GraftedSet {
            base: pieces.clone(),
            donor: sets[rng.random_range(0..sets.len())].clone(),
            cuts: std::array::from_fn(|_| match rng.random_range(0..10) {
                0..3 => 1.0,
                3..5 => 0.0,
                _ => rng.random_range(0.4..0.75),
            }),
        };
        draw_board(&sampled.board, &style, &grafted, square)
    } else {
        draw_board(&sampled.board, &style, pieces, square)
    };
    let mut image = to_rgb(&drawn.pixmap);
    // Context around the board: a background band like real pictures have.
    let pad = (square / 2).max(4);
    let bg = hsl(
        rng.random_range(0.0..360.0),
        rng.random_range(0.0..0.4),
        rng.random_range(0.05..0.95),
    );
    let mut corners: degrade::Points = drawn.corners().to_vec();
    image = degrade::surround(&image, &mut corners, pad, bg);
    if book {
        image = image::DynamicImage::ImageRgb8(image).grayscale().to_rgb8();
        degrade::paper_tone(&mut image, rng);
    }
    if rng.random_bool(0.3) {
        // Small pictures: shrink, maybe enlarge again.
        let factor = rng.random_range(0.35..0.9f32);
        image = degrade::scale(
            &image,
            &mut corners,
            factor,
            image::imageops::FilterType::Triangle,
        );
        if rng.random_bool(0.4) {
            image = degrade::scale(
                &image,
                &mut corners,
                1.0 / factor,
                image::imageops::FilterType::Triangle,
            );
        }
    }
    if rng.random_bool(0.3) {
        image = degrade::blur(&image, rng.random_range(0.3..1.3));
    }
    if rng.random_bool(0.3) {
        degrade::noise(&mut image, rng.random_range(1.0..7.0), rng);
    }
    if rng.random_bool(0.3) {
        gamma(&mut image, rng.random_range(0.6..1.6));
    }
    if rng.random_bool(0.4) {
        image = degrade::jpeg(&image, rng.random_range(30..=95));
    }
    // An imperfect locator: each corner off by up to 6% of a square.
    let side = corners[1][0] - corners[0][0];
    let jitter = side / 8.0 * 0.06;
    let quad = [0, 1, 2, 3].map(|i| {
        [
            corners[i][0] + rng.random_range(-jitter..=jitter),
            corners[i][1] + rng.random_range(-jitter..=jitter),
        ]
    });
    let labels = (0..64)
        .map(|cell| {
            let (col, row) = (cell % 8, cell / 8);
            let square = Square::ALL
                .into_iter()
                .find(|sq| display_cell(*sq, style.flipped) == (col, row))
                .unwrap_or(Square::A1);
            piece_class(sampled.board.piece_at(square)) as u32
        })
        .collect();
    let mut crops = rectify(&image, quad)
        .map(|r| cut_squares(&r))
        .unwrap_or_else(|| vec![0.0; 64 * CROP * CROP]);
    // Mirrored pieces are still the same pieces (knights face either way across designs).
    for crop in crops.chunks_exact_mut(CROP * CROP) {
        if rng.random_bool(0.5) {
            mirror_crop(crop);
        }
    }
    TrainingBoard { crops, labels }
}

/// A random change of the piece drawings: fill colours, stroke weight, proportions.
fn piece_variation(rng: &mut impl RngExt, max_stroke: i8) -> PieceVariation {
    let mut variation = PieceVariation::default();
    if rng.random_bool(0.6) {
        variation.white_fill = hsl(
            rng.random_range(0.0..360.0),
            rng.random_range(0.0..0.6),
            rng.random_range(0.65..1.0),
        );
    }
    if rng.random_bool(0.6) {
        variation.black_fill = hsl(
            rng.random_range(0.0..360.0),
            rng.random_range(0.0..0.6),
            rng.random_range(0.0..0.4),
        );
    }
    if rng.random_bool(0.4) {
        variation.stroke = if max_stroke >= 2 {
            [-1, 1, 2][rng.random_range(0..3)]
        } else if rng.random_bool(0.5) {
            1
        } else {
            -1
        };
    }
    if rng.random_bool(0.5) {
        variation.stretch = [rng.random_range(0.8..1.12), rng.random_range(0.88..1.08)];
    }
    variation
}

/// Applies a gamma curve to every channel.
fn gamma(image: &mut RgbImage, gamma: f32) {
    let table: Vec<u8> = (0..256)
        .map(|v| ((v as f32 / 255.0).powf(gamma) * 255.0).round() as u8)
        .collect();
    for v in image.iter_mut() {
        *v = table[*v as usize];
    }
}

/// Starts the prefetch thread: batches of `boards` boards, forever (until the receiver drops).
fn prefetch(
    library: Library,
    seed: u64,
    boards: usize,
    max_stroke: i8,
) -> Receiver<(Vec<f32>, Vec<u32>)> {
    let (sender, receiver) = sync_channel(8);
    std::thread::spawn(move || {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        loop {
            let mut crops = Vec::with_capacity(boards * 64 * CROP * CROP);
            let mut labels = Vec::with_capacity(boards * 64);
            for _ in 0..boards {
                let board = training_board(&mut rng, &library, max_stroke);
                crops.extend(board.crops);
                labels.extend(board.labels);
            }
            if sender.send((crops, labels)).is_err() {
                return;
            }
        }
    });
    receiver
}

/// Progress of training, reported every few steps.
pub struct Progress {
    /// Steps done.
    pub step: usize,
    /// Mean loss over the last report interval.
    pub loss: f32,
    /// Square accuracy over the last report interval.
    pub accuracy: f32,
}

/// Trains from scratch and returns the weights as safetensors bytes.
pub fn train(
    options: &TrainOptions,
    mut report: impl FnMut(&Progress),
) -> Result<Vec<u8>, VisionError> {
    let err = |e: candle_core::Error| VisionError::Model(e.to_string());
    let device = Device::Cpu;
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
    let net = SquareNet::new(vb, options.shape).map_err(err)?;
    let mut optimizer = AdamW::new(
        varmap.all_vars(),
        ParamsAdamW {
            lr: options.learning_rate,
            weight_decay: 1e-4,
            ..ParamsAdamW::default()
        },
    )
    .map_err(err)?;
    let batches = prefetch(
        options.library.clone(),
        options.seed,
        options.boards_per_step,
        options.max_stroke,
    );
    let (mut loss_sum, mut correct, mut seen, mut interval) = (0.0f32, 0usize, 0usize, 0usize);
    for step in 0..options.steps {
        let progress = step as f64 / options.steps.max(1) as f64;
        let lr = options.learning_rate
            * (0.05 + 0.95 * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos()));
        optimizer.set_learning_rate(lr);
        let (crops, labels) = batches
            .recv()
            .map_err(|_| VisionError::Model("the data thread stopped".into()))?;
        let n = labels.len();
        let input = Tensor::from_vec(crops, (n, 1, CROP, CROP), &device).map_err(err)?;
        let target = Tensor::from_vec(labels.clone(), n, &device).map_err(err)?;
        let logits = net.forward(&input).map_err(err)?;
        let loss = loss::cross_entropy(&logits, &target).map_err(err)?;
        optimizer.backward_step(&loss).map_err(err)?;
        loss_sum += loss.to_scalar::<f32>().map_err(err)?;
        let predicted = logits
            .argmax(1)
            .map_err(err)?
            .to_vec1::<u32>()
            .map_err(err)?;
        correct += predicted
            .iter()
            .zip(&labels)
            .filter(|(p, l)| p == l)
            .count();
        seen += n;
        interval += 1;
        if (step + 1) % 50 == 0 || step + 1 == options.steps {
            report(&Progress {
                step: step + 1,
                loss: loss_sum / interval as f32,
                accuracy: correct as f32 / seen.max(1) as f32,
            });
            (loss_sum, correct, seen, interval) = (0.0, 0, 0, 0);
        }
    }
    let path = std::env::temp_dir().join(format!(
        "fenlens-weights-{}.safetensors",
        std::process::id()
    ));
    varmap.save(&path).map_err(err)?;
    let bytes = std::fs::read(&path).map_err(|e| VisionError::Model(e.to_string()))?;
    let _ = std::fs::remove_file(&path);
    Ok(bytes)
}
