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
use fenlens_render::scene::{Library, dragged_pieces, move_hints, screen_style};
use fenlens_render::style::{BoardLook, BoardStyle, Coords, Hatch, PieceVariation, Warp, hsl};
use image::RgbImage;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::VisionError;
use crate::classify::{NetShape, SquareNet, StyleChange, StyleMix, StyleNoise, piece_class};
use crate::rectify::{CROP, MARGIN, SQUARE, cut_squares, mirror_crop, rectify};

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
    /// How the training pictures vary beyond the library's sets and textures.
    pub recipe: DataRecipe,
    /// Piece sets and textures to render with.
    pub library: Library,
    /// Threads rendering training boards (1: the shipped recipe's data stream; more keep a
    /// many-core machine's training from waiting on the renderer, with another stream).
    pub render_threads: usize,
    /// Where to write the weights every `save_every` steps while training (`None`: only the
    /// returned bytes at the end), so that a run stopped early leaves its latest weights.
    pub checkpoint: Option<(std::path::PathBuf, usize)>,
    /// Go on from saved weights at this step (`None`: start from scratch at step 0). The
    /// learning rate follows the schedule from that step; the optimizer's moments start afresh,
    /// and the data stream is another one (its seed mixes in the step), so a resumed run does
    /// not repeat the boards its first part saw.
    pub resume: Option<(std::path::PathBuf, usize)>,
    /// Share of the steps on which the first two layers' feature statistics are mixed between
    /// squares holding the same piece on different boards ([`StyleMix`]; 0: never).
    pub mix_style: f64,
    /// Share of the steps not mixed on which the same statistics are instead moved at random
    /// ([`StyleNoise`]; 0: never).
    pub style_noise: f64,
    /// Also write the average of the weights from this step on (every
    /// [`AVERAGE_EVERY`] steps, the last step's included) to this file: stochastic weight
    /// averaging, which settles in a flatter part of the loss than the last step's weights
    /// (`None`: no average). The returned weights stay the last step's.
    pub average: Option<(usize, std::path::PathBuf)>,
    /// Dropout while training ([`SquareNet::forward_training`]; 0: none).
    pub dropout: f32,
    /// From this step on the learning rate stays at the schedule's value there instead of
    /// decaying further (`None`: the cosine schedule to the end), as weight averaging wants.
    pub flat_from: Option<usize>,
}

/// How many steps apart the weights [`TrainOptions::average`] averages are taken.
pub const AVERAGE_EVERY: usize = 10;

/// The running mean of a network's weights, one tensor per named variable.
struct WeightAverage {
    sums: std::collections::HashMap<String, Tensor>,
    count: usize,
}

impl WeightAverage {
    fn new() -> WeightAverage {
        WeightAverage {
            sums: Default::default(),
            count: 0,
        }
    }

    /// Adds the weights as they are now.
    fn add(&mut self, varmap: &VarMap) -> candle_core::Result<()> {
        let vars = varmap
            .data()
            .lock()
            .expect("the weights' lock is not poisoned");
        for (name, var) in vars.iter() {
            let now = var.as_tensor().detach();
            let sum = match self.sums.remove(name) {
                Some(sum) => (sum + now)?,
                None => now.copy()?,
            };
            self.sums.insert(name.clone(), sum);
        }
        self.count += 1;
        Ok(())
    }

    /// Writes the mean to `path` (safetensors, as [`train`] returns weights).
    fn save(&self, path: &std::path::Path) -> Result<(), VisionError> {
        let error = |e: &dyn std::fmt::Display| file_error(path, e);
        if self.count == 0 {
            return Err(error(
                &"no weights to average: the average starts after the last step",
            ));
        }
        let scale = 1.0 / self.count as f64;
        let mean = self
            .sums
            .iter()
            .map(|(name, sum)| Ok((name.clone(), sum.affine(scale, 0.0)?)))
            .collect::<candle_core::Result<std::collections::HashMap<String, Tensor>>>()
            .map_err(|e| error(&e))?;
        candle_core::safetensors::save(&mean, path).map_err(|e| error(&e))
    }
}

/// How the training pictures vary beyond the library's sets and textures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataRecipe {
    /// Largest change of the pieces' dark strokes, in pixels: 1 (the shipped recipe: thicker
    /// or thinner by one) or 2 (also thicker by two on large drawings).
    pub max_stroke: i8,
    /// Change the roles' proportions against each other on a quarter of the boards: pawns
    /// 50-100% as wide (classic book fonts draw them half as wide as lichess's designs),
    /// 85-115% as tall, the other roles 75-110% as wide and 90-110% as tall.
    pub role_stretch: bool,
    /// With `role_stretch`, on half of its boards (an eighth of all), pawns in proportions no
    /// lichess design has: tall and thin (45-90% as wide, 110-140% as tall, like Leipzig's and
    /// other book fonts' pawns, as tall as their kings) or broad (110-145% as wide, 85-110% as
    /// tall), with bishops 85-100% as tall; so that a pawn is told from a bishop by its head
    /// rather than its proportions.
    pub pawn_shapes: bool,
    /// Patterned fills on a third of the varied boards each (a sixth of all): stripes across
    /// the fills of black pieces, white pieces or both, one row in 4-7 (hatched font designs),
    /// and fills shaded from top to bottom by 15-45% (glossy and metal designs).
    pub fill_patterns: bool,
    /// Drawings bent smoothly on a third of the varied boards (a sixth of all): every piece of
    /// the board moved along two sine waves by up to 2-6% of its size, so that a head, a collar
    /// or a base grows or shrinks against the rest as between designs (`Warp`).
    pub warp: bool,
    /// Coarse drawings on a third of the varied boards (a sixth of all): pieces drawn 1.5-3.5
    /// times smaller with hard edges and enlarged back by repeating pixels, as the small
    /// bitmaps of old programs and chess fonts look on a large board.
    pub pixelate: bool,
    /// Drawings reduced to their outline on a third of the varied boards (a sixth of all):
    /// white pieces a light fill inside a dark rim, black pieces solid dark, every inner line,
    /// hatching and shade gone (`PieceVariation::silhouette`), so that a piece is told by its
    /// outline where an unseen design's insides are like no known design's.
    pub silhouettes: bool,
    /// Thumbnails on [`SMALL_BOARD_SHARE`] of the boards: shrunk until their squares are 7-18
    /// pixels (boards of 56-144 pixels), 40% of them enlarged back, where the plain recipe's
    /// shrinking rarely goes below squares of 14.
    pub small_boards: bool,
    /// Small pieces on [`SMALL_PIECE_SHARE`] of the boards: drawn 55-80% of the square's
    /// size instead of 78-100%, as designs with wide margins (metal and photographic sets,
    /// some sites' themes) stand in their squares.
    pub small_pieces: bool,
    /// A random filter on [`FILTERED_SHARE`] of the boards whose squares are drawn at least
    /// [`FILTERED_FROM_SQUARE`] pixels wide (`random_filter`, after Xu et al.,
    /// "Robust and generalizable visual representation learning via random convolutions",
    /// 2021): every crop of the board convolved with one random 3x3 or 5x5 kernel that keeps
    /// the grey level of flat areas (so light stays light and a piece keeps its side) while
    /// edges, strokes and fills take a texture no design has.
    pub random_filters: bool,
    /// Part of a square hidden on a quarter of the crops (`erase_patch`): a rectangle of
    /// one random grey covering 3-25% of the square, so that no single part of a piece (a
    /// pawn's head, a bishop's slit, a knight's ear) has to carry its reading alone.
    pub erase: bool,
    /// Move hints on [`HINTED_SHARE`] of the screen boards ([`move_hints`]): dots on empty
    /// squares and marks around pieces, as lichess and chess.com draw them while a piece is
    /// picked up, so that a dot reads as an empty square and not as a pawn.
    pub move_hints: bool,
    /// Pieces caught mid-drag on [`DRAGGED_SHARE`] of the screen boards, one to three a board
    /// ([`dragged_pieces`]; a screen shows one, more give the network more to learn from): a
    /// faint ghost on its square, which keeps its piece's class (the position is the one before
    /// the move), and the piece itself whole 0.3-1.2 squares away, where the squares keep the
    /// classes of what stands under it.
    pub dragged: bool,
    /// A photographed screen's light on [`PHOTO_SHARE`] of the boards ([`photo_effects`]):
    /// moiré, a glare spot, light falling off across the board and motion blur, as the
    /// renderer's photographs of screens have them (`fenlens_render::scene`), so that a black
    /// piece under glare, or a square darkened at the board's far side, keeps its reading.
    pub photo_effects: bool,
}

/// The share of boards given a photographed screen's light with
/// [`DataRecipe::photo_effects`].
pub const PHOTO_SHARE: f64 = 0.3;

/// The share of boards drawn with small pieces with [`DataRecipe::small_pieces`].
pub const SMALL_PIECE_SHARE: f64 = 0.25;

/// The share of boards whose crops are filtered with [`DataRecipe::random_filters`].
pub const FILTERED_SHARE: f64 = 0.5;

/// The smallest squares (in the picture's pixels) whose boards [`DataRecipe::random_filters`]
/// filters: a kernel a few of the crop's pixels wide would add to a smaller board's blurred
/// crops detail finer than its own pixels.
pub const FILTERED_FROM_SQUARE: f32 = 20.0;

/// The share of boards made thumbnails with [`DataRecipe::small_boards`].
pub const SMALL_BOARD_SHARE: f64 = 0.25;

/// The share of screen boards that get move hints with [`DataRecipe::move_hints`].
pub const HINTED_SHARE: f64 = 0.2;

/// The share of screen boards with a piece caught mid-drag with [`DataRecipe::dragged`].
pub const DRAGGED_SHARE: f64 = 0.5;

impl Default for DataRecipe {
    /// The first recipe: strokes changed by a pixel, roles kept in proportion.
    fn default() -> DataRecipe {
        DataRecipe {
            max_stroke: 1,
            role_stretch: false,
            pawn_shapes: false,
            fill_patterns: false,
            warp: false,
            pixelate: false,
            silhouettes: false,
            small_boards: false,
            small_pieces: false,
            random_filters: false,
            erase: false,
            move_hints: false,
            dragged: false,
            photo_effects: false,
        }
    }
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

/// Renders one training board.
pub fn training_board(
    rng: &mut impl RngExt,
    library: &Library,
    recipe: &DataRecipe,
) -> TrainingBoard {
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
        style.piece_variation = piece_variation(rng, recipe);
    }
    if let Some(scale) = small_piece_scale(rng, recipe) {
        style.piece_scale = scale;
    }
    // Drawn only with the option, so that a seed's boards without it stay as they were.
    if recipe.move_hints && !book && rng.random_bool(HINTED_SHARE) {
        style.hints = move_hints(rng, &sampled.board);
    }
    if recipe.dragged && !book && rng.random_bool(DRAGGED_SHARE) {
        let count = rng.random_range(1..=3);
        style.dragged = dragged_pieces(rng, &sampled.board, count);
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
    let shrunk = shrinking(rng, recipe, square);
    // The squares' size in the picture's own pixels, before any enlarging back.
    let drawn_square = square as f32 * shrunk.unwrap_or(1.0);
    if let Some(factor) = shrunk {
        // Small pictures: shrink, maybe enlarge again.
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
    // Drawn only with the option, so that a seed's boards without it stay as they were.
    if recipe.photo_effects && rng.random_bool(PHOTO_SHARE) {
        photo_effects(&mut image, rng);
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
    if recipe.random_filters
        && drawn_square >= FILTERED_FROM_SQUARE
        && rng.random_bool(FILTERED_SHARE)
    {
        random_filter(&mut crops, rng);
    }
    if recipe.erase {
        for crop in crops.chunks_exact_mut(CROP * CROP) {
            if rng.random_bool(ERASED_SHARE) {
                erase_patch(crop, rng);
            }
        }
    }
    TrainingBoard { crops, labels }
}

/// What a phone photographing a screen adds to a board ([`DataRecipe::photo_effects`]): the
/// renderer's photographs' light ([`degrade::screen_light`]: moiré, a glare spot, light falling
/// off across the board) and, on 30% of them, motion blur. The blur, noise and JPEG that follow
/// in [`training_board`] do the rest.
fn photo_effects(image: &mut RgbImage, rng: &mut impl RngExt) {
    degrade::screen_light(image, rng);
    if rng.random_bool(0.3) {
        *image = degrade::motion_blur(
            image,
            rng.random_range(2.0..7.0),
            rng.random_range(0.0..std::f32::consts::PI),
        );
    }
}

/// How much a training board drawn with squares of `square` pixels is shrunk, if at all: with
/// [`DataRecipe::small_boards`], [`SMALL_BOARD_SHARE`] of the boards until their squares are
/// 7-18 pixels (thumbnails); otherwise 30% of them by 0.35-0.9.
fn shrinking(rng: &mut impl RngExt, recipe: &DataRecipe, square: u32) -> Option<f32> {
    // Drawn only with the option, so that a seed's boards without it stay as they were.
    if recipe.small_boards && rng.random_bool(SMALL_BOARD_SHARE) {
        let target = rng.random_range(7.0..18.0f32);
        Some((target / square as f32).min(1.0))
    } else if rng.random_bool(0.3) {
        Some(rng.random_range(0.35..0.9f32))
    } else {
        None
    }
}

/// The pieces' size on a board drawn with [`DataRecipe::small_pieces`]: 55-80% of the square
/// on [`SMALL_PIECE_SHARE`] of the boards, `None` (the style's own) otherwise.
fn small_piece_scale(rng: &mut impl RngExt, recipe: &DataRecipe) -> Option<f32> {
    // Drawn only with the option, so that a seed's boards without it stay as they were.
    (recipe.small_pieces && rng.random_bool(SMALL_PIECE_SHARE)).then(|| rng.random_range(0.55..0.8))
}

/// Convolves every crop of a board with one random kernel, 3x3 or 5x5: the identity plus a
/// random zero-sum part (normal draws less their mean, times up to 2.5 over the kernel's side),
/// so that flat areas keep their grey while edges and strokes are sharpened, blurred or
/// streaked at random. Crops are padded by their edge pixels. The board's values are then
/// scaled about their mean back to their spread before the filter, so the network's inputs
/// stay in the range it reads.
fn random_filter(crops: &mut [f32], rng: &mut impl RngExt) {
    let side: usize = if rng.random_bool(0.5) { 3 } else { 5 };
    let strength = rng.random_range(0.0..2.5f32) / side as f32;
    let draws: Vec<f32> = (0..side * side).map(|_| standard_normal(rng)).collect();
    let mean = draws.iter().sum::<f32>() / draws.len() as f32;
    let reach = (side / 2) as isize;
    // Each tap as its offset from the centre and its weight, the centre's plus the identity.
    let taps: Vec<(isize, isize, f32)> = draws
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let (dy, dx) = ((k / side) as isize - reach, (k % side) as isize - reach);
            let identity = if (dy, dx) == (0, 0) { 1.0 } else { 0.0 };
            (dy, dx, (d - mean) * strength + identity)
        })
        .collect();
    let (_, before) = mean_and_spread(crops);
    let clamped = |v: isize| v.clamp(0, CROP as isize - 1) as usize;
    let mut filtered = vec![0.0f32; CROP * CROP];
    for crop in crops.chunks_exact_mut(CROP * CROP) {
        for y in 0..CROP {
            for x in 0..CROP {
                filtered[y * CROP + x] = taps
                    .iter()
                    .map(|&(dy, dx, weight)| {
                        weight * crop[clamped(y as isize + dy) * CROP + clamped(x as isize + dx)]
                    })
                    .sum();
            }
        }
        crop.copy_from_slice(&filtered);
    }
    let (mean, after) = mean_and_spread(crops);
    if after > 1e-6 && before > 0.0 {
        let scale = before / after;
        for v in crops.iter_mut() {
            *v = mean + (*v - mean) * scale;
        }
    }
}

/// The mean of `values` and their spread (standard deviation) about it.
fn mean_and_spread(values: &[f32]) -> (f32, f32) {
    let n = values.len().max(1) as f32;
    let mean = values.iter().sum::<f32>() / n;
    let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    (mean, variance.sqrt())
}

/// The share of crops [`erase_patch`] hides part of, with [`DataRecipe::erase`].
const ERASED_SHARE: f64 = 0.25;

/// Hides a rectangle of the square in one crop (random erasing): 5-14 pixels by 5-14 of the
/// 24-pixel square (3-25% of it) anywhere inside the square, filled with one grey drawn between
/// the crop's darkest and lightest values.
fn erase_patch(crop: &mut [f32], rng: &mut impl RngExt) {
    let (width, height) = (rng.random_range(5..=14), rng.random_range(5..=14));
    let left = MARGIN + rng.random_range(0..=SQUARE - width);
    let top = MARGIN + rng.random_range(0..=SQUARE - height);
    let (low, high) = crop
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let grey = if high > low {
        rng.random_range(low..=high)
    } else {
        low
    };
    for row in crop.chunks_exact_mut(CROP).skip(top).take(height) {
        row[left..left + width].fill(grey);
    }
}

/// A random change of the piece drawings: fill colours, stroke weight, proportions.
fn piece_variation(rng: &mut impl RngExt, recipe: &DataRecipe) -> PieceVariation {
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
        variation.stroke = if recipe.max_stroke >= 2 {
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
    if recipe.role_stretch && rng.random_bool(0.5) {
        // Roles' proportions against each other (see `DataRecipe::role_stretch`).
        // Half of those boards, with `pawn_shapes`, draw pawns as no lichess design does.
        let pawn_shape = (recipe.pawn_shapes && rng.random_bool(0.5)).then(|| rng.random_bool(0.5));
        variation.role_stretch = std::array::from_fn(|role| match (pawn_shape, role) {
            (Some(true), 0) => [rng.random_range(0.45..0.9), rng.random_range(1.1..1.4)],
            (Some(false), 0) => [rng.random_range(1.1..1.45), rng.random_range(0.85..1.1)],
            (Some(_), 2) => [rng.random_range(0.75..1.1), rng.random_range(0.85..1.0)],
            (None, 0) => [rng.random_range(0.5..1.0), rng.random_range(0.85..1.15)],
            _ => [rng.random_range(0.75..1.1), rng.random_range(0.9..1.1)],
        });
    }
    if recipe.fill_patterns {
        if rng.random_bool(1.0 / 3.0) {
            variation.stripe_period = rng.random_range(4..=7);
            variation.stripes_on = match rng.random_range(0..4) {
                0 | 1 => [false, true],
                2 => [true, false],
                _ => [true, true],
            };
        }
        if rng.random_bool(1.0 / 3.0) {
            let shade = rng.random_range(0.15..0.45f32);
            variation.shade = if rng.random_bool(0.5) { shade } else { -shade };
        }
    }
    if recipe.warp && rng.random_bool(1.0 / 3.0) {
        variation.warp = Warp {
            amplitude: rng.random_range(0.02..0.06),
            waves: std::array::from_fn(|_| {
                [
                    rng.random_range(0.0..1.2),
                    rng.random_range(0.0..1.2),
                    rng.random_range(0.0..std::f32::consts::TAU),
                ]
            }),
        };
    }
    if recipe.pixelate && rng.random_bool(1.0 / 3.0) {
        variation.pixelate = rng.random_range(1.5..3.5);
    }
    if recipe.silhouettes && rng.random_bool(1.0 / 3.0) {
        variation.silhouette = true;
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

/// Seeds of the prefetch threads after the first lie this far apart.
const THREAD_SEED_STRIDE: u64 = 7919;

/// Starts `threads` prefetch threads: batches of `boards` boards, forever (until the receiver
/// drops). Thread `k` renders batches `k`, `k + threads`, `k + 2 * threads`, ... from its own
/// random stream (seed `seed + k * THREAD_SEED_STRIDE`), and the batches are handed out in that
/// order, so a seed and a thread count give the same data however the threads are scheduled.
/// One thread gives the stream of the shipped recipe.
fn prefetch(
    library: Library,
    seed: u64,
    boards: usize,
    recipe: DataRecipe,
    threads: usize,
) -> impl FnMut() -> Option<(Vec<f32>, Vec<u32>)> {
    let threads = threads.max(1);
    let receivers: Vec<Receiver<(Vec<f32>, Vec<u32>)>> = (0..threads)
        .map(|k| {
            let (sender, receiver) = sync_channel(8usize.div_ceil(threads).max(2));
            let library = library.clone();
            std::thread::spawn(move || {
                let mut rng =
                    ChaCha8Rng::seed_from_u64(seed.wrapping_add(k as u64 * THREAD_SEED_STRIDE));
                loop {
                    let mut crops = Vec::with_capacity(boards * 64 * CROP * CROP);
                    let mut labels = Vec::with_capacity(boards * 64);
                    for _ in 0..boards {
                        let board = training_board(&mut rng, &library, &recipe);
                        crops.extend(board.crops);
                        labels.extend(board.labels);
                    }
                    if sender.send((crops, labels)).is_err() {
                        return;
                    }
                }
            });
            receiver
        })
        .collect();
    let mut next = 0;
    move || {
        let batch = receivers[next].recv().ok();
        next = (next + 1) % receivers.len();
        batch
    }
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
    let mut varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
    let net = SquareNet::new(vb, options.shape).map_err(err)?;
    let first_step = match &options.resume {
        Some((path, step)) => {
            varmap.load(path).map_err(|e| file_error(path, &e))?;
            (*step).min(options.steps)
        }
        None => 0,
    };
    let mut optimizer = AdamW::new(
        varmap.all_vars(),
        ParamsAdamW {
            lr: options.learning_rate,
            weight_decay: 1e-4,
            ..ParamsAdamW::default()
        },
    )
    .map_err(err)?;
    let mut next_batch = prefetch(
        options.library.clone(),
        options
            .seed
            .wrapping_add((first_step as u64).wrapping_mul(1_000_003)),
        options.boards_per_step,
        options.recipe,
        options.render_threads,
    );
    let mut mix_rng = ChaCha8Rng::seed_from_u64(
        options
            .seed
            .wrapping_mul(0x9e37_79b9)
            .wrapping_add(first_step as u64),
    );
    let (mut loss_sum, mut correct, mut seen, mut interval) = (0.0f32, 0usize, 0usize, 0usize);
    let mut average = WeightAverage::new();
    for step in first_step..options.steps {
        optimizer.set_learning_rate(learning_rate_at(options, step));
        let (crops, labels) =
            next_batch().ok_or_else(|| VisionError::Model("a data thread stopped".into()))?;
        let n = labels.len();
        let input = Tensor::from_vec(crops, (n, 1, CROP, CROP), &device).map_err(err)?;
        let target = Tensor::from_vec(labels.clone(), n, &device).map_err(err)?;
        let mix = if options.mix_style > 0.0 && mix_rng.random_bool(options.mix_style.min(1.0)) {
            Some(StyleChange::Mix(
                style_mix(&labels, &mut mix_rng, &device).map_err(err)?,
            ))
        } else if options.style_noise > 0.0 && mix_rng.random_bool(options.style_noise.min(1.0)) {
            Some(StyleChange::Noise(
                style_noise(n, &mut mix_rng, &device).map_err(err)?,
            ))
        } else {
            None
        };
        let logits = net
            .forward_training(&input, mix.as_ref(), options.dropout)
            .map_err(err)?;
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
        if let Some((path, every)) = &options.checkpoint
            && *every > 0
            && (step + 1) % every == 0
            && step + 1 < options.steps
        {
            save_checkpoint(&varmap, path)?;
        }
        if let Some((from, _)) = &options.average
            && step + 1 >= *from
            && ((step + 1) % AVERAGE_EVERY == 0 || step + 1 == options.steps)
        {
            average.add(&varmap).map_err(err)?;
        }
    }
    if let Some((_, path)) = &options.average {
        average.save(path)?;
    }
    weights_bytes(&varmap)
}

/// The learning rate of a step: cosine decay from `options.learning_rate` to 5% of it over
/// `options.steps`, held from [`TrainOptions::flat_from`] on.
fn learning_rate_at(options: &TrainOptions, step: usize) -> f64 {
    let scheduled = options.flat_from.map_or(step, |flat| step.min(flat));
    let progress = scheduled as f64 / options.steps.max(1) as f64;
    options.learning_rate * (0.05 + 0.95 * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos()))
}

/// Pairs every square of a batch with a square holding the same class on another board where
/// there is one (on its own board otherwise, itself at worst), and draws each one's share of
/// its own statistics from Beta(0.1, 0.1), which mostly takes one side's whole.
fn style_mix(
    labels: &[u32],
    rng: &mut impl RngExt,
    device: &Device,
) -> candle_core::Result<StyleMix> {
    let board_of = |i: usize| i / 64;
    let mut by_class: std::collections::HashMap<u32, Vec<usize>> = Default::default();
    for (i, &label) in labels.iter().enumerate() {
        by_class.entry(label).or_default().push(i);
    }
    let partner: Vec<u32> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let same = &by_class[label];
            let elsewhere: Vec<usize> = same
                .iter()
                .copied()
                .filter(|&j| board_of(j) != board_of(i))
                .collect();
            let pool = if elsewhere.is_empty() {
                same.as_slice()
            } else {
                elsewhere.as_slice()
            };
            pool[rng.random_range(0..pool.len())] as u32
        })
        .collect();
    let lambda: Vec<f32> = (0..labels.len())
        .map(|_| symmetric_beta(0.1, rng))
        .collect();
    let n = labels.len();
    Ok(StyleMix {
        partner: Tensor::from_vec(partner, n, device)?,
        lambda: Tensor::from_vec(lambda, (n, 1, 1, 1), device)?,
    })
}

/// The widest layer whose statistics [`StyleNoise`] moves (the second convolution's, 32
/// channels by default; wider networks are trained with draws for this many and more).
const MOVED_CHANNELS: usize = 256;

/// Standard normal draws for [`StyleNoise`]: one per sample and channel for the means, and as
/// many for the spreads.
fn style_noise(
    samples: usize,
    rng: &mut impl RngExt,
    device: &Device,
) -> candle_core::Result<StyleNoise> {
    let mut draws = || -> candle_core::Result<Tensor> {
        let values: Vec<f32> = (0..samples * MOVED_CHANNELS)
            .map(|_| standard_normal(rng))
            .collect();
        Tensor::from_vec(values, (samples, 1, 1, MOVED_CHANNELS), device)
    };
    Ok(StyleNoise {
        mean_draws: draws()?,
        spread_draws: draws()?,
    })
}

/// A standard normal draw (Box-Muller).
fn standard_normal(rng: &mut impl RngExt) -> f32 {
    let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
    let v: f64 = rng.random();
    ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
}

/// A draw from Beta(a, a) by Johnk's method, in logarithms so that a small `a` cannot
/// underflow.
fn symmetric_beta(a: f64, rng: &mut impl RngExt) -> f32 {
    loop {
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        let v: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        let (x, y) = (u.ln() / a, v.ln() / a);
        let top = x.max(y);
        if top + ((x - top).exp() + (y - top).exp()).ln() <= 0.0 {
            return (1.0 / (1.0 + (y - x).exp())) as f32;
        }
    }
}

/// The variables' current values as safetensors bytes.
fn weights_bytes(varmap: &VarMap) -> Result<Vec<u8>, VisionError> {
    let path = std::env::temp_dir().join(format!(
        "fenlens-weights-{}-{:?}.safetensors",
        std::process::id(),
        std::thread::current().id()
    ));
    varmap
        .save(&path)
        .map_err(|e| VisionError::Model(e.to_string()))?;
    let bytes = std::fs::read(&path).map_err(|e| VisionError::Model(e.to_string()))?;
    let _ = std::fs::remove_file(&path);
    Ok(bytes)
}

/// An error reading or writing the weights file `path`, named in the message.
fn file_error(path: &std::path::Path, e: &dyn std::fmt::Display) -> VisionError {
    VisionError::Model(format!("{}: {e}", path.display()))
}

/// Writes the current weights to `path` through a temporary file beside it, so that a reader
/// never sees half a file.
fn save_checkpoint(varmap: &VarMap, path: &std::path::Path) -> Result<(), VisionError> {
    let partial = path.with_extension("partial");
    let error = |e: &dyn std::fmt::Display| file_error(path, e);
    varmap.save(&partial).map_err(|e| error(&e))?;
    std::fs::rename(&partial, path).map_err(|e| error(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_options(steps: usize) -> TrainOptions {
        TrainOptions {
            steps,
            boards_per_step: 1,
            learning_rate: 0.002,
            seed: 11,
            shape: NetShape {
                channels: [2, 2, 2],
                hidden: 4,
            },
            recipe: DataRecipe::default(),
            library: Library::builtin(),
            render_threads: 1,
            checkpoint: None,
            resume: None,
            average: None,
            flat_from: None,
            mix_style: 0.0,
            style_noise: 0.0,
            dropout: 0.0,
        }
    }

    /// Every tensor of safetensors bytes by name (the header's order varies between saves).
    fn tensors(bytes: &[u8]) -> std::collections::BTreeMap<String, Vec<f32>> {
        candle_core::safetensors::load_buffer(bytes, &Device::Cpu)
            .expect("safetensors")
            .into_iter()
            .map(|(name, t)| {
                let values = t.flatten_all().and_then(|t| t.to_vec1::<f32>());
                (name, values.expect("f32 values"))
            })
            .collect()
    }

    #[test]
    fn style_partners_hold_the_same_piece_on_another_board() {
        // Two boards: the first holds classes 0-12 over and over, the second only empty
        // squares and, on its last square, a white pawn.
        let mut labels: Vec<u32> = (0..64).map(|i| i % 13).collect();
        labels.extend(std::iter::repeat_n(0, 63));
        labels.push(1);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mix = style_mix(&labels, &mut rng, &Device::Cpu).unwrap();
        let partner = mix.partner.to_vec1::<u32>().unwrap();
        for (i, &j) in partner.iter().enumerate() {
            let j = j as usize;
            assert_eq!(labels[i], labels[j], "square {i} paired with {j}");
            let elsewhere = (0..labels.len()).any(|k| k / 64 != i / 64 && labels[k] == labels[i]);
            assert_eq!(elsewhere, j / 64 != i / 64, "square {i} paired with {j}");
        }
        // A knight (class 2) stands only on the first board: paired there.
        assert!(partner[2] < 64);
        let lambda = mix.lambda.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert!(lambda.iter().all(|l| (0.0..=1.0).contains(l)));
    }

    #[test]
    fn beta_of_a_tenth_mostly_takes_one_side_whole() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let draws: Vec<f32> = (0..4000).map(|_| symmetric_beta(0.1, &mut rng)).collect();
        assert!(draws.iter().all(|d| (0.0..=1.0).contains(d)));
        let near_an_end = draws
            .iter()
            .filter(|&&d| !(0.05..=0.95).contains(&d))
            .count();
        // Beta(0.1, 0.1) puts about 75% of its mass within 0.05 of 0 or 1, symmetrically.
        assert!((2700..3200).contains(&near_an_end), "{near_an_end}");
        let low = draws.iter().filter(|&&d| d < 0.5).count();
        assert!((1800..2200).contains(&low), "{low}");
    }

    #[test]
    fn normal_draws_have_mean_0_and_spread_1() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let draws: Vec<f32> = (0..20_000).map(|_| standard_normal(&mut rng)).collect();
        let mean = draws.iter().sum::<f32>() / draws.len() as f32;
        let variance = draws.iter().map(|d| (d - mean).powi(2)).sum::<f32>() / draws.len() as f32;
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((variance - 1.0).abs() < 0.05, "{variance}");
        // About 4.6% of a normal's draws lie beyond two spreads.
        let far = draws.iter().filter(|d| d.abs() > 2.0).count();
        assert!((700..1150).contains(&far), "{far}");
        let noise = style_noise(3, &mut rng, &Device::Cpu).unwrap();
        assert_eq!(noise.mean_draws.dims(), &[3, 1, 1, MOVED_CHANNELS]);
        assert_eq!(noise.spread_draws.dims(), &[3, 1, 1, MOVED_CHANNELS]);
    }

    #[test]
    fn role_stretch_narrows_pawns_on_a_share_of_the_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let stretched = DataRecipe {
            role_stretch: true,
            ..DataRecipe::default()
        };
        let pawn_widths: Vec<f32> = (0..400)
            .map(|_| piece_variation(&mut rng, &stretched).role_stretch[0][0])
            .collect();
        let narrowed = pawn_widths.iter().filter(|&&w| w < 1.0).count();
        assert!((150..=250).contains(&narrowed), "{narrowed} of 400");
        assert!(pawn_widths.iter().all(|&w| (0.5..=1.0).contains(&w)));
        assert!(pawn_widths.iter().any(|&w| w < 0.6));
        let plain = (0..100).all(|_| {
            piece_variation(&mut rng, &DataRecipe::default()).role_stretch == [[1.0, 1.0]; 6]
        });
        assert!(plain, "the default recipe keeps the roles in proportion");
    }

    /// Draws 900 variations from `seed` with the default recipe changed by `option`, checks
    /// that `applied` holds for about a third of them (a third of the varied half of the
    /// boards), and returns those.
    fn about_a_third(
        option: fn(&mut DataRecipe),
        seed: u64,
        applied: impl Fn(&PieceVariation) -> bool,
    ) -> Vec<PieceVariation> {
        let mut recipe = DataRecipe::default();
        option(&mut recipe);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let chosen: Vec<PieceVariation> = (0..900)
            .map(|_| piece_variation(&mut rng, &recipe))
            .filter(|v| applied(v))
            .collect();
        assert!(
            (240..=360).contains(&chosen.len()),
            "{} of 900",
            chosen.len()
        );
        chosen
    }

    #[test]
    fn fill_patterns_stripe_and_shade_a_share_of_the_designs() {
        let fill_patterns = |r: &mut DataRecipe| r.fill_patterns = true;
        let striped = about_a_third(fill_patterns, 6, |v| v.stripe_period > 0);
        assert!(striped.iter().all(|v| (4..=7).contains(&v.stripe_period)));
        assert!(striped.iter().all(|v| v.stripes_on != [false, false]));
        assert!(striped.iter().any(|v| v.stripes_on == [true, false]));
        assert!(striped.iter().any(|v| v.stripes_on == [false, true]));
        let shaded = about_a_third(fill_patterns, 6, |v| v.shade != 0.0);
        assert!(shaded.iter().all(|v| (0.15..0.45).contains(&v.shade.abs())));
    }

    #[test]
    fn warp_bends_a_share_of_the_designs() {
        let bent = about_a_third(|r| r.warp = true, 7, |v| v.warp.amplitude > 0.0);
        assert!(
            bent.iter()
                .all(|v| (0.02..0.06).contains(&v.warp.amplitude))
        );
    }

    #[test]
    fn pixelate_coarsens_a_share_of_the_designs() {
        let coarse = about_a_third(|r| r.pixelate = true, 8, |v| v.pixelate > 1.0);
        assert!(coarse.iter().all(|v| (1.5..3.5).contains(&v.pixelate)));
    }

    #[test]
    fn silhouettes_reduce_a_share_of_the_designs_to_their_outline() {
        about_a_third(|r| r.silhouettes = true, 10, |v| v.silhouette);
    }

    #[test]
    fn small_boards_make_a_quarter_of_the_boards_thumbnails() {
        // Squares of 60 pixels: the plain recipe shrinks them to 21 pixels at least.
        let squares_after = |recipe: &DataRecipe| {
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            (0..2000)
                .map(|_| shrinking(&mut rng, recipe, 60).map_or(60.0, |f| 60.0 * f))
                .collect::<Vec<f32>>()
        };
        let plain = squares_after(&DataRecipe::default());
        assert!(plain.iter().all(|&s| s >= 21.0 - 1e-3));
        assert!(plain.iter().filter(|&&s| s < 60.0).count() > 500);
        let small = squares_after(&DataRecipe {
            small_boards: true,
            ..DataRecipe::default()
        });
        let thumbnails = small.iter().filter(|&&s| s < 18.0).count();
        assert!((400..=600).contains(&thumbnails), "{thumbnails} of 2000");
        assert!(small.iter().all(|&s| s >= 7.0 - 1e-3));
    }

    #[test]
    fn small_pieces_shrink_a_quarter_of_the_boards_pieces() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let plain: Vec<Option<f32>> = (0..2000)
            .map(|_| small_piece_scale(&mut rng, &DataRecipe::default()))
            .collect();
        assert!(plain.iter().all(Option::is_none));
        let recipe = DataRecipe {
            small_pieces: true,
            ..DataRecipe::default()
        };
        let scales: Vec<f32> = (0..2000)
            .filter_map(|_| small_piece_scale(&mut rng, &recipe))
            .collect();
        assert!(
            (400..=600).contains(&scales.len()),
            "{} of 2000",
            scales.len()
        );
        assert!(scales.iter().all(|s| (0.55..0.8).contains(s)));
    }

    #[test]
    fn random_filters_keep_flat_squares_and_the_spread_and_change_drawings() {
        // Crops 0-31 flat at greys from -1 to 1; crops 32-63 a dark square on a light one.
        let board: Vec<f32> = (0..64)
            .flat_map(|i| {
                (0..CROP * CROP).map(move |p| {
                    let (x, y) = (p % CROP, p / CROP);
                    if i < 32 {
                        i as f32 / 16.0 - 1.0
                    } else if (10..22).contains(&x) && (8..24).contains(&y) {
                        -1.0
                    } else {
                        1.0
                    }
                })
            })
            .collect();
        let spread = |values: &[f32]| mean_and_spread(values).1;
        let mut changed = 0;
        for seed in 0..20 {
            let mut crops = board.clone();
            random_filter(&mut crops, &mut ChaCha8Rng::seed_from_u64(seed));
            assert!((spread(&crops) - spread(&board)).abs() < 1e-3);
            let flat_moved = crops[..32 * CROP * CROP]
                .iter()
                .zip(&board)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            let drawn = &crops[32 * CROP * CROP..];
            let across = drawn.iter().fold(f32::MIN, |m, &v| m.max(v))
                - drawn.iter().fold(f32::MAX, |m, &v| m.min(v));
            // The drawing's edges change the board's spread, so flat squares move only by the
            // rescaling about the mean, which keeps their order and near their greys.
            assert!(
                flat_moved < 0.5,
                "seed {seed}: a flat square moved by {flat_moved}"
            );
            assert!(across > 1.0, "seed {seed}: the drawing faded to {across}");
            let first_flat = &crops[..CROP * CROP];
            assert!(first_flat.iter().all(|v| (v - first_flat[0]).abs() < 1e-4));
            if drawn
                .iter()
                .zip(&board[32 * CROP * CROP..])
                .any(|(a, b)| (a - b).abs() > 0.2)
            {
                changed += 1;
            }
        }
        assert!(changed >= 15, "{changed} of 20 filters changed the drawing");
    }

    /// The training board drawn with `seed` by the plain recipe and by `recipe`.
    fn drawn_without_and_with(
        library: &Library,
        recipe: &DataRecipe,
        seed: u64,
    ) -> (TrainingBoard, TrainingBoard) {
        let plain = training_board(
            &mut ChaCha8Rng::seed_from_u64(seed),
            library,
            &DataRecipe::default(),
        );
        let other = training_board(&mut ChaCha8Rng::seed_from_u64(seed), library, recipe);
        (plain, other)
    }

    #[test]
    fn photo_effects_light_a_board_unevenly_and_keep_its_classes() {
        // A flat grey picture comes back lit unevenly: its corners part by a few grey levels
        // at least (light falling off by 5% or more across it).
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..6 {
            let mut image = RgbImage::from_pixel(120, 120, image::Rgb([128, 128, 128]));
            photo_effects(&mut image, &mut rng);
            // The mean green of a 12-pixel patch in each corner (moiré's stripes average out).
            let patch = |x0: u32, y0: u32| {
                let sum: u32 = (y0..y0 + 12)
                    .flat_map(|y| (x0..x0 + 12).map(move |x| (x, y)))
                    .map(|(x, y)| u32::from(image.get_pixel(x, y).0[1]))
                    .sum();
                sum as f32 / 144.0
            };
            let corners = [patch(0, 0), patch(108, 0), patch(0, 108), patch(108, 108)];
            let spread = corners.iter().copied().fold(f32::MIN, f32::max)
                - corners.iter().copied().fold(f32::MAX, f32::min);
            assert!(spread >= 3.0, "corners {corners:?}");
        }
        // The boards are the same positions with the option as without it.
        let library = Library::builtin();
        let recipe = DataRecipe {
            photo_effects: true,
            ..DataRecipe::default()
        };
        for seed in 0..4 {
            let (plain, lit) = drawn_without_and_with(&library, &recipe, seed);
            assert_eq!(plain.labels, lit.labels);
        }
    }

    #[test]
    fn random_filters_change_whole_boards_and_keep_their_classes() {
        let library = Library::builtin();
        let recipe = DataRecipe {
            random_filters: true,
            ..DataRecipe::default()
        };
        // The same seed with and without the option draws the same boards up to the filter.
        let (mut filtered, mut kept) = (0, 0);
        for seed in 0..8 {
            let (plain, other) = drawn_without_and_with(&library, &recipe, seed);
            assert_eq!(plain.labels, other.labels);
            let changed_crops = plain
                .crops
                .chunks_exact(CROP * CROP)
                .zip(other.crops.chunks_exact(CROP * CROP))
                .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| (x - y).abs() > 1e-4))
                .count();
            match changed_crops {
                0 => kept += 1,
                // One kernel for the whole board: every crop holding an edge changes.
                n => {
                    assert!(n >= 32, "seed {seed}: {n} crops changed");
                    filtered += 1;
                }
            }
        }
        assert!(
            filtered >= 1 && kept >= 1,
            "{filtered} filtered, {kept} kept"
        );
    }

    #[test]
    fn erase_hides_one_flat_rectangle_inside_the_square_of_a_quarter_of_the_crops() {
        let library = Library::builtin();
        let recipe = DataRecipe {
            erase: true,
            ..DataRecipe::default()
        };
        // The same seed with and without erasing draws the same boards up to the erasing.
        let (mut plain_rng, mut erased_rng) =
            (ChaCha8Rng::seed_from_u64(12), ChaCha8Rng::seed_from_u64(12));
        let plain = training_board(&mut plain_rng, &library, &DataRecipe::default());
        let erased = training_board(&mut erased_rng, &library, &recipe);
        assert_eq!(plain.labels, erased.labels);
        let mut changed = 0;
        for (before, after) in plain
            .crops
            .chunks_exact(CROP * CROP)
            .zip(erased.crops.chunks_exact(CROP * CROP))
        {
            let differ: Vec<usize> = (0..CROP * CROP)
                .filter(|&i| before[i] != after[i])
                .collect();
            if differ.is_empty() {
                continue;
            }
            changed += 1;
            // Every changed pixel lies inside the square and holds one grey.
            assert!(differ.iter().all(|&i| {
                let (row, col) = (i / CROP, i % CROP);
                (MARGIN..MARGIN + SQUARE).contains(&row) && (MARGIN..MARGIN + SQUARE).contains(&col)
            }));
            assert!(differ.iter().all(|&i| after[i] == after[differ[0]]));
            assert!(differ.len() <= 14 * 14, "{} pixels", differ.len());
        }
        assert!((6..=28).contains(&changed), "{changed} of 64 crops erased");
    }

    #[test]
    fn the_default_recipe_draws_fills_shapes_and_edges_as_they_are() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let plain = (0..400).all(|_| {
            let v = piece_variation(&mut rng, &DataRecipe::default());
            v.stripe_period == 0
                && v.shade == 0.0
                && v.warp == Warp::default()
                && v.pixelate == 0.0
                && !v.silhouette
        });
        assert!(plain);
    }

    #[test]
    fn pawn_shapes_draw_tall_and_broad_pawns_beside_shorter_bishops() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let recipe = DataRecipe {
            role_stretch: true,
            pawn_shapes: true,
            ..DataRecipe::default()
        };
        let stretches: Vec<[[f32; 2]; 6]> = (0..800)
            .map(|_| piece_variation(&mut rng, &recipe).role_stretch)
            .collect();
        let pawn = |s: &[[f32; 2]; 6]| s[0];
        let tall = stretches.iter().filter(|s| pawn(s)[1] > 1.15).count();
        let broad = stretches.iter().filter(|s| pawn(s)[0] > 1.05).count();
        // Half of the varied designs are role-stretched, half of those get a pawn shape, split
        // between tall and broad: about 100 of each in 800.
        assert!((60..=140).contains(&tall), "{tall} tall of 800");
        assert!((60..=140).contains(&broad), "{broad} broad of 800");
        for s in stretches.iter().filter(|s| pawn(s)[1] > 1.15) {
            assert!(pawn(s)[0] < 0.9, "a tall pawn is thin: {:?}", pawn(s));
            assert!(s[2][1] <= 1.0, "its bishop is not taller: {:?}", s[2]);
        }
        for s in stretches.iter().filter(|s| pawn(s)[0] > 1.05) {
            assert!((0.85..1.1).contains(&pawn(s)[1]), "{:?}", pawn(s));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let without = DataRecipe {
            role_stretch: true,
            ..DataRecipe::default()
        };
        let plain = (0..800).all(|_| {
            let p = piece_variation(&mut rng, &without).role_stretch[0];
            (0.5..=1.0).contains(&p[0]) && (0.85..=1.15).contains(&p[1])
        });
        assert!(
            plain,
            "without pawn_shapes the pawns stay within the role stretch"
        );
    }

    #[test]
    fn one_render_thread_gives_the_seeds_own_stream() {
        let library = Library::builtin();
        let mut next = prefetch(library.clone(), 5, 1, DataRecipe::default(), 1);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..2 {
            let (crops, labels) = next().expect("a batch");
            let board = training_board(&mut rng, &library, &DataRecipe::default());
            assert_eq!(labels, board.labels);
            assert_eq!(crops, board.crops);
        }
    }

    #[test]
    fn several_render_threads_hand_out_batches_in_a_fixed_order() {
        let library = Library::builtin();
        let mut first = prefetch(library.clone(), 5, 1, DataRecipe::default(), 3);
        let mut second = prefetch(library.clone(), 5, 1, DataRecipe::default(), 3);
        let batches: Vec<_> = (0..4).map(|_| first().expect("a batch")).collect();
        for batch in &batches {
            assert_eq!(&second().expect("a batch"), batch);
        }
        // Thread 1's stream comes second, and it is not thread 0's.
        let mut rng = ChaCha8Rng::seed_from_u64(5 + THREAD_SEED_STRIDE);
        assert_eq!(
            batches[1].1,
            training_board(&mut rng, &library, &DataRecipe::default()).labels
        );
        assert_ne!(batches[0].0, batches[1].0);
    }

    #[test]
    fn a_checkpoint_is_written_and_training_goes_on_from_it() {
        let dir = std::env::temp_dir().join(format!("fenlens-train-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let path = dir.join("net.safetensors");
        let mut options = tiny_options(3);
        options.checkpoint = Some((path.clone(), 2));
        let mut reported = Vec::new();
        let finished = train(&options, |p| reported.push(p.step)).expect("training");
        assert_eq!(reported, vec![3]);
        let checkpoint = std::fs::read(&path).expect("the checkpoint after step 2");
        assert_ne!(
            tensors(&checkpoint),
            tensors(&finished),
            "the checkpoint is step 2's, not the end's"
        );

        // Nothing left to do: the resumed run returns the saved weights unchanged.
        let mut resumed = tiny_options(2);
        resumed.resume = Some((path.clone(), 2));
        let again = tensors(&train(&resumed, |_| {}).expect("resumed"));
        let saved = tensors(&checkpoint);
        assert_eq!(again, saved);

        // One more step from the checkpoint changes them.
        let mut resumed = tiny_options(3);
        resumed.resume = Some((path.clone(), 2));
        let stepped = tensors(&train(&resumed, |_| {}).expect("resumed"));
        assert_ne!(stepped, saved);

        // Weights of another shape are refused with the file's name.
        let mut other = tiny_options(3);
        other.shape.hidden = 5;
        other.resume = Some((path.clone(), 2));
        let error = train(&other, |_| {}).expect_err("a shape mismatch");
        assert!(error.to_string().contains("net.safetensors"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_learning_rate_decays_to_a_twentieth_or_stays_from_the_flat_step() {
        let mut options = tiny_options(100);
        let rates: Vec<f64> = (0..100).map(|s| learning_rate_at(&options, s)).collect();
        assert!((rates[0] - 0.002).abs() < 1e-12);
        assert!(rates.windows(2).all(|w| w[1] < w[0]), "falling all the way");
        assert!((learning_rate_at(&options, 100) - 0.0001).abs() < 1e-12);
        options.flat_from = Some(40);
        for step in 0..100 {
            let expected = rates[step.min(40)];
            assert_eq!(learning_rate_at(&options, step), expected, "step {step}");
        }
    }

    #[test]
    fn the_average_is_the_mean_of_the_weights_every_tenth_step() {
        let dir = std::env::temp_dir().join(format!("fenlens-average-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let (step_10, mean) = (
            dir.join("step-10.safetensors"),
            dir.join("mean.safetensors"),
        );
        // Steps 10 and 20 are averaged (step 5 is before the first taken), the checkpoint
        // keeps step 10's weights and the run returns step 20's.
        let mut options = tiny_options(20);
        options.checkpoint = Some((step_10.clone(), 10));
        options.average = Some((5, mean.clone()));
        let last = tensors(&train(&options, |_| {}).expect("training"));
        let first = tensors(&std::fs::read(&step_10).expect("step 10's weights"));
        let averaged = tensors(&std::fs::read(&mean).expect("the average"));
        assert_eq!(
            averaged.keys().collect::<Vec<_>>(),
            last.keys().collect::<Vec<_>>()
        );
        let mut moved = false;
        for (name, values) in &averaged {
            for ((a, f), l) in values.iter().zip(&first[name]).zip(&last[name]) {
                assert!((a - (f + l) / 2.0).abs() < 1e-6, "{name}: {a} {f} {l}");
                moved |= f != l;
            }
        }
        assert!(moved, "ten steps change the weights");

        // An average that would start after the last step is refused, with the file's name.
        let mut late = tiny_options(2);
        late.average = Some((3, mean.clone()));
        let error = train(&late, |_| {}).expect_err("nothing to average");
        assert!(error.to_string().contains("mean.safetensors"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
