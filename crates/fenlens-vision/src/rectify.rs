//! Rectify and cut: warp the board's quad to a square of 8x8 cells and cut one crop per square,
//! with a little context around it.
//!
//! Assumes the four corners are the 8x8 playing area's corners in picture order (top-left,
//! top-right, bottom-right, bottom-left as displayed). Large boards are supersampled so that
//! shrinking them does not alias; small ones are interpolated bilinearly. The greys lose the
//! colours, so the squares under nothing but a coloured arrow are told from the picture here
//! too ([`Rectified::tinted`], [`crate::tint`]). Lines drawn between the squares are painted
//! over, and [`rectify_on_lines`] lays the grid on them ([`crate::gridlines`]).

use crate::gridlines::Ruling;
use image::RgbImage;
use rayon::prelude::*;

/// Pixels per square in the rectified board.
pub const SQUARE: usize = 24;
/// Context around the board, in pixels, so edge squares get the same context as inner ones.
pub const MARGIN: usize = 4;
/// Side of the rectified board: 8 squares plus the margin on both sides.
pub const BOARD: usize = 8 * SQUARE + 2 * MARGIN;
/// Side of one square's crop: the square plus `MARGIN` of context on each side.
pub const CROP: usize = SQUARE + 2 * MARGIN;

/// A board warped to a square, in grey levels 0-1.
#[derive(Clone)]
pub struct Rectified {
    /// `BOARD * BOARD` grey values, row-major.
    pub gray: Vec<f32>,
    /// The squares (display order) that show nothing but a coloured arrow's tint, told from the
    /// picture's colours, which the greys have lost ([`crate::tint::tinted_cells`]).
    pub tinted: [bool; 64],
    /// The lines drawn between the squares, painted over in `gray` ([`crate::gridlines`]).
    pub ruling: Option<Ruling>,
}

impl Rectified {
    /// A board known by its greys alone: no square is taken for a tint.
    pub fn from_grey(gray: Vec<f32>) -> Rectified {
        Rectified {
            gray,
            tinted: [false; 64],
            ruling: None,
        }
    }
}

/// The projective map from board coordinates to picture points: (0, 0) is the top-left corner
/// of the playing area, (1, 1) the bottom-right.
#[derive(Clone, Copy, Debug)]
pub struct BoardToPicture {
    /// Row-major 3x3 matrix in homogeneous coordinates, its last entry 1.
    m: [f32; 9],
}

impl BoardToPicture {
    /// The picture point of board point (`u`, `v`).
    #[inline(always)]
    pub fn map(&self, u: f32, v: f32) -> (f32, f32) {
        let m = &self.m;
        let d = m[6] * u + m[7] * v + m[8];
        (
            (m[0] * u + m[1] * v + m[2]) / d,
            (m[3] * u + m[4] * v + m[5]) / d,
        )
    }
}

/// How much of a square must lie inside the picture for what stands on it to count as seen.
/// A piece fills the middle of its square, so a quarter cut off along one side still leaves
/// most of it in view.
pub const SEEN_FROM: f32 = 0.75;

/// Which squares, in display order (top row first, left to right), lie less than
/// [`SEEN_FROM`] inside a `width` x `height` picture. A board cut off by the picture's edge is
/// still located (its grid goes on to the cut) and its corners lie beyond the edge; sampling
/// there repeats the edge's pixels, so the missing squares read as empty, surely. Measured on
/// 8 x 8 points a square.
pub fn cut_off_squares(corners: [[f32; 2]; 4], width: u32, height: u32) -> [bool; 64] {
    const POINTS: usize = 8;
    let mut cut_off = [false; 64];
    let Some(projection) = board_to_picture(corners) else {
        return cut_off;
    };
    let (w, h) = (width as f32, height as f32);
    for (cell, cut) in cut_off.iter_mut().enumerate() {
        let (col, row) = ((cell % 8) as f32, (cell / 8) as f32);
        let inside = (0..POINTS * POINTS)
            .filter(|i| {
                let u = (col + ((i % POINTS) as f32 + 0.5) / POINTS as f32) / 8.0;
                let v = (row + ((i / POINTS) as f32 + 0.5) / POINTS as f32) / 8.0;
                let (x, y) = projection.map(u, v);
                (0.0..=w).contains(&x) && (0.0..=h).contains(&y)
            })
            .count();
        *cut = (inside as f32) < SEEN_FROM * (POINTS * POINTS) as f32;
    }
    cut_off
}

/// The picture pixels a square of the board with `corners` spans: the quad's mean side over 8.
pub fn square_pixels(corners: [[f32; 2]; 4]) -> f32 {
    (0..4)
        .map(|k| {
            let (a, b) = (corners[k], corners[(k + 1) % 4]);
            (a[0] - b[0]).hypot(a[1] - b[1])
        })
        .sum::<f32>()
        / 32.0
}

/// The map from board coordinates to the picture quad `corners` (top-left, top-right,
/// bottom-right, bottom-left), or `None` for a quad with no such map (corners on one line).
/// The unit square's map in closed form (Heckbert, "Fundamentals of Texture Mapping", 1989),
/// computed in double precision.
pub fn board_to_picture(corners: [[f32; 2]; 4]) -> Option<BoardToPicture> {
    let [p0, p1, p2, p3] = corners.map(|c| [f64::from(c[0]), f64::from(c[1])]);
    let (sx, sy) = (p0[0] - p1[0] + p2[0] - p3[0], p0[1] - p1[1] + p2[1] - p3[1]);
    let (g, h) = if sx == 0.0 && sy == 0.0 {
        (0.0, 0.0)
    } else {
        let (dx1, dx2) = (p1[0] - p2[0], p3[0] - p2[0]);
        let (dy1, dy2) = (p1[1] - p2[1], p3[1] - p2[1]);
        // A zero determinant gives no finite map, refused below.
        let det = dx1 * dy2 - dx2 * dy1;
        ((sx * dy2 - dx2 * sy) / det, (dx1 * sy - sx * dy1) / det)
    };
    let m = [
        p1[0] - p0[0] + g * p1[0],
        p3[0] - p0[0] + h * p3[0],
        p0[0],
        p1[1] - p0[1] + g * p1[1],
        p3[1] - p0[1] + h * p3[1],
        p0[1],
        g,
        h,
        1.0,
    ];
    // The matrix must be invertible: a quad squashed onto a line or a point has no map.
    let det = m[0] * (m[4] - m[5] * m[7]) - m[1] * (m[3] - m[5] * m[6])
        + m[2] * (m[3] * m[7] - m[4] * m[6]);
    (det.is_finite() && det.abs() > 1e-9 && m.iter().all(|x| x.is_finite())).then(|| {
        BoardToPicture {
            m: m.map(|x| x as f32),
        }
    })
}

/// The weights of red, green and blue in a grey level (ITU-R BT.601).
const GREY_WEIGHTS: [f32; 3] = [0.299, 0.587, 0.114];

/// The grey level (0-1) of an RGB pixel.
pub(crate) fn grey_level(p: [u8; 3]) -> f32 {
    let [r, g, b] = GREY_WEIGHTS;
    (r * p[0] as f32 + g * p[1] as f32 + b * p[2] as f32) / 255.0
}

/// Mirrors one `CROP`×`CROP` crop left to right, in place.
pub fn mirror_crop(crop: &mut [f32]) {
    for row in crop.chunks_exact_mut(CROP) {
        row.reverse();
    }
}

/// The bilinear blend of four neighbouring grey levels (top-left, top-right, bottom-left,
/// bottom-right), `fx` and `fy` (0-1) of the way from the top-left one across and down.
fn blend([g00, g10, g01, g11]: [f32; 4], fx: f32, fy: f32) -> f32 {
    let top = g00 * (1.0 - fx) + g10 * fx;
    let bottom = g01 * (1.0 - fx) + g11 * fx;
    top * (1.0 - fy) + bottom * fy
}

/// Where a [`GreyWindow`]'s grey levels come from.
trait GreyLevels: Sync {
    /// The grey level (0-1) of the window's pixel `x` across and `y` down.
    fn level(&self, x: u32, y: u32) -> f32;
}

/// Each channel's share of [`grey_level`] for every byte value: the same products, added and
/// divided in the same order, so the same grey levels, for a fraction of the work.
struct GreyTables([[f32; 256]; 3]);

impl GreyTables {
    fn new() -> GreyTables {
        let share = |weight: f32| -> [f32; 256] { std::array::from_fn(|v| weight * v as f32) };
        GreyTables(GREY_WEIGHTS.map(share))
    }

    fn grey(&self, p: &[u8]) -> f32 {
        let [red, green, blue] = &self.0;
        (red[usize::from(p[0])] + green[usize::from(p[1])] + blue[usize::from(p[2])]) / 255.0
    }
}

/// The window converted to grey once, row by row: for boards whose every picture pixel is
/// sampled a few times.
struct Converted {
    width: u32,
    grey: Vec<f32>,
}

impl GreyLevels for Converted {
    fn level(&self, x: u32, y: u32) -> f32 {
        self.grey[(y * self.width + x) as usize]
    }
}

/// The window's grey levels computed from the picture's bytes where sampled: for boards much
/// larger than the rectified one, whose samples touch a small share of their pixels (a
/// 4000-pixel board: 360,000 samples among 16 million pixels, which took 64 MB converted).
struct FromPicture<'a> {
    image: &'a RgbImage,
    x0: u32,
    y0: u32,
    tables: GreyTables,
}

impl GreyLevels for FromPicture<'_> {
    fn level(&self, x: u32, y: u32) -> f32 {
        let at =
            ((self.y0 + y) as usize * self.image.width() as usize + (self.x0 + x) as usize) * 3;
        self.tables.grey(&self.image.as_raw()[at..at + 3])
    }
}

/// Grey levels (0-1) of the part of a picture that sampling can reach: a window of the picture,
/// clamped sampling at the picture's edges exactly as if the whole picture were there.
struct GreyWindow<L> {
    x0: u32,
    y0: u32,
    width: u32,
    height: u32,
    /// Picture size, for clamping.
    picture: (u32, u32),
    levels: L,
}

impl<L> GreyWindow<L> {
    /// The window of `image` from (`x0`, `y0`) to (`x1`, `y1`), both included, its grey
    /// levels from `levels`.
    fn over(image: &RgbImage, (x0, y0, x1, y1): (u32, u32, u32, u32), levels: L) -> Self {
        GreyWindow {
            x0,
            y0,
            width: x1 - x0 + 1,
            height: y1 - y0 + 1,
            picture: image.dimensions(),
            levels,
        }
    }
}

/// The window of `image` from (`x0`, `y0`) to (`x1`, `y1`), both included, converted to grey.
fn converted_window(image: &RgbImage, x0: u32, y0: u32, x1: u32, y1: u32) -> GreyWindow<Converted> {
    let width = x1 - x0 + 1;
    let mut grey = Vec::with_capacity((width * (y1 - y0 + 1)) as usize);
    let stride = image.width() as usize * 3;
    let tables = GreyTables::new();
    for y in y0..=y1 {
        let row_start = y as usize * stride + x0 as usize * 3;
        let row = &image.as_raw()[row_start..row_start + width as usize * 3];
        grey.extend(row.chunks_exact(3).map(|p| tables.grey(p)));
    }
    GreyWindow::over(image, (x0, y0, x1, y1), Converted { width, grey })
}

/// The same window, its grey levels computed where sampled.
fn picture_window(
    image: &RgbImage,
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
) -> GreyWindow<FromPicture<'_>> {
    let levels = FromPicture {
        image,
        x0,
        y0,
        tables: GreyTables::new(),
    };
    GreyWindow::over(image, (x0, y0, x1, y1), levels)
}

impl<L: GreyLevels> GreyWindow<L> {
    /// Bilinear grey level at picture coordinates, clamped to the picture (and the window).
    fn sample(&self, x: f32, y: f32) -> f32 {
        let (w, h) = self.picture;
        let x = x.clamp(0.0, w as f32 - 1.0);
        let y = y.clamp(0.0, h as f32 - 1.0);
        // Non-negative: truncation is the floor.
        let (px0, py0) = (x as u32, y as u32);
        let (fx, fy) = (x - px0 as f32, y - py0 as f32);
        let (px1, py1) = ((px0 + 1).min(w - 1), (py0 + 1).min(h - 1));
        // The four neighbours, clamped to the picture and the window.
        let level = |px: u32, py: u32| {
            let lx = px.clamp(self.x0, self.x0 + self.width - 1) - self.x0;
            let ly = py.clamp(self.y0, self.y0 + self.height - 1) - self.y0;
            self.levels.level(lx, ly)
        };
        blend(
            [
                level(px0, py0),
                level(px1, py0),
                level(px0, py1),
                level(px1, py1),
            ],
            fx,
            fy,
        )
    }

    /// Adds the bilinear grey levels at the points (`xs`, `ys`) to `out`, `per_pixel`
    /// consecutive points to each of its values, in order. At points inside the window, away
    /// from its last row and column (nearly all), the clamping of [`Self::sample`] changes
    /// nothing and is skipped; the arithmetic is the same.
    fn add_samples(&self, xs: &[f32], ys: &[f32], per_pixel: usize, out: &mut [f32]) {
        let (left, top) = (self.x0 as f32, self.y0 as f32);
        let right = (self.x0 + self.width - 1) as f32;
        let bottom = (self.y0 + self.height - 1) as f32;
        let points = xs.chunks_exact(per_pixel).zip(ys.chunks_exact(per_pixel));
        for (pixel, (xs, ys)) in out.iter_mut().zip(points) {
            // Added in a register, in the same order as one at a time.
            let mut sum = *pixel;
            for (&x, &y) in xs.iter().zip(ys) {
                // NaN fails the comparisons and takes the clamped path.
                if !(x >= left && y >= top && x < right && y < bottom) {
                    sum += self.sample(x, y);
                    continue;
                }
                // In the window, so non-negative: truncation is the floor.
                let (px0, py0) = (x as u32, y as u32);
                let (fx, fy) = (x - px0 as f32, y - py0 as f32);
                let (lx, ly) = (px0 - self.x0, py0 - self.y0);
                let g = &self.levels;
                sum += blend(
                    [
                        g.level(lx, ly),
                        g.level(lx + 1, ly),
                        g.level(lx, ly + 1),
                        g.level(lx + 1, ly + 1),
                    ],
                    fx,
                    fy,
                );
            }
            *pixel = sum;
        }
    }

    /// The rectified board's grey levels: each output pixel the mean of `samples`x`samples`
    /// bilinear samples at `offsets` (board coordinates, the same across and down).
    fn rectified(&self, projection: &BoardToPicture, offsets: &[f32], samples: usize) -> Vec<f32> {
        let mut gray = vec![0.0f32; BOARD * BOARD];
        // Rows in parallel: one picture alone gets both cores (in a batch, rayon keeps them
        // busy with other pictures anyway). Each row is computed exactly as in sequence.
        gray.par_chunks_mut(BOARD).enumerate().for_each_init(
            || (vec![0.0f32; offsets.len()], vec![0.0f32; offsets.len()]),
            |(xs, ys), (row, out)| {
                for &v in &offsets[row * samples..(row + 1) * samples] {
                    // First every sample point of this line (a loop the compiler vectorizes),
                    // then the picture at them, each output pixel adding its own samples.
                    for ((x, y), &u) in xs.iter_mut().zip(ys.iter_mut()).zip(offsets) {
                        let (px, py) = projection.map(u, v);
                        (*x, *y) = (px - 0.5, py - 0.5);
                    }
                    self.add_samples(xs, ys, samples, out);
                }
                let count = (samples * samples) as f32;
                out.iter_mut().for_each(|pixel| *pixel /= count);
            },
        );
        gray
    }
}

/// Windows with more pixels than this many times the samples taken from them are sampled
/// from the picture's bytes instead of converted to grey first ([`FromPicture`]): boards over
/// about 1,200 pixels a side.
const CONVERT_UP_TO: usize = 4;

/// Board coordinates of the samples along one row of the rectified board (the same for every
/// row and down a column): `samples` evenly spaced inside each output pixel.
fn sample_offsets(samples: usize) -> Vec<f32> {
    let inv = 1.0 / (8 * SQUARE) as f32;
    (0..BOARD * samples)
        .map(|k| {
            let (pixel, sub) = (k / samples, k % samples);
            (pixel as f32 - MARGIN as f32 + (sub as f32 + 0.5) / samples as f32) * inv
        })
        .collect()
}

/// Warps the quad to a `BOARD`×`BOARD` grey square. Returns `None` for a degenerate quad.
pub fn rectify(image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Rectified> {
    if image.width() == 0 || image.height() == 0 {
        return None;
    }
    let projection = board_to_picture(corners)?;
    let side = |a: [f32; 2], b: [f32; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    let picture_side = (side(corners[0], corners[1]) + side(corners[1], corners[2]))
        .max(side(corners[2], corners[3]) + side(corners[3], corners[0]))
        / 2.0;
    // Supersample when the board is larger than its rectified size.
    let factor = picture_side / (8 * SQUARE) as f32;
    let samples = (factor.ceil() as usize).clamp(1, 3);
    let inv = 1.0 / (8 * SQUARE) as f32;
    // Only the board and its margin are ever sampled: convert just that window to grey. A
    // quad whose outer corners do not map to finite points gets the whole picture.
    let reach = MARGIN as f32 * inv;
    let outer = [
        (-reach, -reach),
        (1.0 + reach, -reach),
        (1.0 + reach, 1.0 + reach),
        (-reach, 1.0 + reach),
    ]
    .map(|(u, v)| projection.map(u, v));
    let (w, h) = image.dimensions();
    let (x0, y0, x1, y1) = if outer.iter().all(|(x, y)| x.is_finite() && y.is_finite()) {
        let bound = |values: [f32; 4], limit: u32| {
            let lo = values.iter().fold(f32::INFINITY, |a, &b| a.min(b)) - 2.0;
            let hi = values.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) + 2.0;
            let clamp = |v: f32| v.clamp(0.0, limit as f32 - 1.0) as u32;
            (clamp(lo), clamp(hi))
        };
        let (x0, x1) = bound(outer.map(|p| p.0), w);
        let (y0, y1) = bound(outer.map(|p| p.1), h);
        (x0, y0, x1, y1)
    } else {
        (0, 0, w - 1, h - 1)
    };
    let offsets = sample_offsets(samples);
    let window_pixels = (x1 - x0 + 1) as usize * (y1 - y0 + 1) as usize;
    let mut gray = if window_pixels > CONVERT_UP_TO * offsets.len() * offsets.len() {
        picture_window(image, x0, y0, x1, y1).rectified(&projection, &offsets, samples)
    } else {
        converted_window(image, x0, y0, x1, y1).rectified(&projection, &offsets, samples)
    };
    let ruling = crate::gridlines::erase_grid_lines(&mut gray);
    let tinted = crate::tint::tinted_cells(image, &projection);
    Some(Rectified {
        gray,
        tinted,
        ruling,
    })
}

/// How many times at most [`rectify_on_lines`] lays the grid again on the lines drawn between
/// the squares.
const GRID_REFITS: usize = 3;

/// [`rectify`], and where lines drawn between the squares stand off the grid that `corners`
/// give, the grid laid on them ([`Ruling::fitted_corners`]) and the board rectified again, up
/// to [`GRID_REFITS`] times (each look from nearer the grid measures the lines better; a refit
/// that loses the lines is not taken). Returns the board and the corners it was rectified
/// from. `None` for a degenerate quad.
pub fn rectify_on_lines(
    image: &RgbImage,
    corners: [[f32; 2]; 4],
) -> Option<(Rectified, [[f32; 2]; 4])> {
    let (mut board, mut corners) = (rectify(image, corners)?, corners);
    for _ in 0..GRID_REFITS {
        let Some(fitted) = board
            .ruling
            .and_then(|ruling| ruling.fitted_corners(corners))
        else {
            break;
        };
        match rectify(image, fitted) {
            Some(refitted) if refitted.ruling.is_some() => (board, corners) = (refitted, fitted),
            _ => break,
        }
    }
    Some((board, corners))
}

/// The 64 crops, normalized by the board's mean and spread, in display order (row 0 is the top
/// row as displayed, column 0 the left): `64 * CROP * CROP` values.
pub fn cut_squares(board: &Rectified) -> Vec<f32> {
    let all: Vec<usize> = (0..64).collect();
    cut_cells(board, &all, 0)
}

/// The crops of some squares (display order: cell = row * 8 + column), cut `dy` pixels lower
/// (higher when negative; clamped to the board's margin), normalized like [`cut_squares`]:
/// `cells.len() * CROP * CROP` values.
pub fn cut_cells(board: &Rectified, cells: &[usize], dy: isize) -> Vec<f32> {
    let (mean, scale) = normalization(board);
    let mut out = Vec::with_capacity(cells.len() * CROP * CROP);
    for &cell in cells {
        let x0 = (cell % 8) * SQUARE;
        let y0 = ((cell / 8 * SQUARE) as isize + dy).clamp(0, (BOARD - CROP) as isize) as usize;
        for y in 0..CROP {
            let start = (y0 + y) * BOARD + x0;
            out.extend(
                board.gray[start..start + CROP]
                    .iter()
                    .map(|g| (g - mean) * scale),
            );
        }
    }
    out
}

/// Pixels along each side of a square left out when [`blank_cells`] looks for anything on it:
/// the grid line and the locator's error fall there, and a neighbour's piece may reach over.
const BLANK_INSET: usize = 2;

/// The widest range of grey, in the crops' normalized units (the board's spread), that the
/// inside of a square may show and still be blank. Thirty-seventh session, rectified at the true
/// corners: of about 45,000 pieces on 14 foreign designs, 11 chess fonts and the held-out
/// lichess designs (photographs, book diagrams, thumbnails of 64-128 pixels included), none
/// showed under 0.50 (`cargo run --release -p fenlens-vision --example blank_squares DIR`), while 55% of the
/// empty squares show under 0.15 (44% of the thumbnails').
pub const BLANK_RANGE: f32 = 0.15;

/// For each square (display order), the range of grey inside it (less `BLANK_INSET` pixels
/// along each side), scaled as [`cut_squares`] scales the crops.
pub fn blank_ranges(board: &Rectified) -> [f32; 64] {
    let (_, scale) = normalization(board);
    std::array::from_fn(|cell| {
        let (x0, y0) = (MARGIN + (cell % 8) * SQUARE, MARGIN + (cell / 8) * SQUARE);
        let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
        for y in y0 + BLANK_INSET..y0 + SQUARE - BLANK_INSET {
            let row = y * BOARD + x0;
            for &g in &board.gray[row + BLANK_INSET..row + SQUARE - BLANK_INSET] {
                low = low.min(g);
                high = high.max(g);
            }
        }
        (high - low) * scale
    })
}

/// For each square (display order), whether nothing stands on it: its inside is one flat grey
/// (its [`blank_ranges`] is under [`BLANK_RANGE`]) or one flat grey crossed by an X and
/// nothing else ([`crossed`]). The classifier need not read such a square.
pub fn blank_cells(board: &Rectified) -> [bool; 64] {
    let ranges = blank_ranges(board);
    let (_, scale) = normalization(board);
    std::array::from_fn(|cell| ranges[cell] < BLANK_RANGE || crossed(board, cell, scale))
}

/// How far from a square's diagonal, in rectified pixels, an X's stroke may reach.
const CROSS_REACH: f32 = 2.5;

/// The least share of what is drawn on a square (greys further from its own than a fifth of
/// the furthest) that must lie along its diagonals for an X.
const CROSS_INK_ALONG: f32 = 0.9;

/// The least share of a crossed square's inside that shows the square's own grey (within a
/// fifth of the furthest grey from it).
const CROSS_BARE: f32 = 0.7;

/// How far along each diagonal, in rectified pixels either side of the square's middle, an X
/// must show, and the least share of the points there that its ink must cover.
const CROSS_ARM: i32 = 8;
const CROSS_COVER: f32 = 0.8;

/// Whether the inside of square `cell` (display order) is one flat grey crossed by an X and
/// nothing else (`scale`: the crops' normalization, as [`blank_ranges`] measures).
/// python-chess's `chess.svg` marks squares so (`squares=`), and an X on an empty square read
/// as a piece (10 of 60 boards with 2-6 such marks read exactly; `models/HISTORY.md`, "Labels
/// and X marks drawn by other programs"). Most of the square must show its own grey
/// ([`CROSS_BARE`]), what is drawn on it must lie along the two diagonals ([`CROSS_INK_ALONG`]
/// of it within [`CROSS_REACH`]), and its ink (greys further from the square's than half the
/// furthest) must cover both for [`CROSS_ARM`] pixels either side of the middle
/// ([`CROSS_COVER`]). A piece, a letter in a corner, a hatched book square or a single arrow's
/// shaft puts ink elsewhere or on one diagonal only; an X over a piece is left to the
/// classifier, which reads the piece (an X over a white piece on a light square, whose outline
/// is faint, still has that outline off the diagonals).
fn crossed(board: &Rectified, cell: usize, scale: f32) -> bool {
    let (x0, y0) = (MARGIN + (cell % 8) * SQUARE, MARGIN + (cell / 8) * SQUARE);
    let inside = BLANK_INSET..SQUARE - BLANK_INSET;
    let grey = |x: usize, y: usize| board.gray[(y0 + y) * BOARD + x0 + x];
    let mut greys: Vec<f32> = inside
        .clone()
        .flat_map(|y| inside.clone().map(move |x| (x, y)))
        .map(|(x, y)| grey(x, y))
        .collect();
    let half = greys.len() / 2;
    let middle = *greys.select_nth_unstable_by(half, f32::total_cmp).1;
    let furthest = greys
        .iter()
        .map(|g| (g - middle).abs())
        .fold(0.0f32, f32::max);
    if furthest * scale < BLANK_RANGE {
        return false;
    }
    let is_ink = |x: usize, y: usize| (grey(x, y) - middle).abs() > 0.5 * furthest;
    let centre = SQUARE as f32 / 2.0;
    // Everything not bare must lie along the diagonals, faint traces of a piece's outline too.
    let (mut ink, mut marked, mut along) = (0usize, 0usize, 0usize);
    for y in inside.clone() {
        for x in inside.clone() {
            let away = (grey(x, y) - middle).abs();
            if away <= 0.2 * furthest {
                continue;
            }
            marked += 1;
            ink += usize::from(is_ink(x, y));
            let (dx, dy) = (x as f32 + 0.5 - centre, y as f32 + 0.5 - centre);
            let off = (dx - dy).abs().min((dx + dy).abs()) / std::f32::consts::SQRT_2;
            along += usize::from(off <= CROSS_REACH);
        }
    }
    // Most of the square shows its own grey (what is not marked is bare): an X leaves four
    // fifths of it bare, a piece not.
    let bare = greys.len() - marked;
    if (bare as f32) < CROSS_BARE * greys.len() as f32
        || ink < SQUARE
        || (along as f32) < CROSS_INK_ALONG * marked as f32
    {
        return false;
    }
    // Each diagonal's points within CROSS_ARM pixels of the middle, ink within a pixel.
    let covered = |sign: i32| {
        let points = -CROSS_ARM..=CROSS_ARM;
        let hits = points
            .clone()
            .filter(|&t| {
                let (x, y) = (SQUARE as i32 / 2 + t, SQUARE as i32 / 2 + sign * t);
                (-1..=1).any(|oy| {
                    (-1..=1).any(|ox| {
                        let (x, y) = (x + ox, y + oy);
                        (0..SQUARE as i32).contains(&x)
                            && (0..SQUARE as i32).contains(&y)
                            && is_ink(x as usize, y as usize)
                    })
                })
            })
            .count();
        hits as f32 >= CROSS_COVER * points.count() as f32
    };
    covered(1) && covered(-1)
}

/// Where [`cut_cells_zoomed`] zooms about, down a crop: three quarters of the way down the
/// square, where a piece's body stands (across, the middle). Thirty-second session, held-out
/// four, boards exactly right against zooming about the crop's centre: chess fonts 31.4 ->
/// 32.1%, foreign designs 57.5 -> 57.0%, held-out lichess designs 80.5 -> 80.8% and 76.8 ->
/// 77.7%; about the square's bottom edge 31.5%, 57.2%, 80.0%, 77.2%.
pub const ZOOM_ABOUT_Y: f32 = MARGIN as f32 + 0.75 * SQUARE as f32;

/// The crops of some squares seen from further away: each crop's `CROP` pixels span `zoom`
/// times as much of the rectified board as [`cut_cells`]'s, about the same point
/// ([`ZOOM_ABOUT_Y`]; bilinear, clamped at the board's edge), so a `zoom` above 1 shows the
/// piece smaller with more of its surroundings; normalized like [`cut_squares`]. A `zoom` of 1
/// gives [`cut_cells`]'s crops.
pub fn cut_cells_zoomed(board: &Rectified, cells: &[usize], zoom: f32) -> Vec<f32> {
    let (mean, scale) = normalization(board);
    // The index of the board pixel at column `x` and row `y` (whole numbers), clamped to the board.
    let index = |x: f32, y: f32| {
        let x = (x.max(0.0) as usize).min(BOARD - 1);
        let y = (y.max(0.0) as usize).min(BOARD - 1);
        y * BOARD + x
    };
    let half = CROP as f32 / 2.0;
    let mut out = Vec::with_capacity(cells.len() * CROP * CROP);
    for &cell in cells {
        let centre_x = ((cell % 8) * SQUARE) as f32 + half;
        let top = ((cell / 8) * SQUARE) as f32;
        for y in 0..CROP {
            // Pixel centres are at +0.5: the sample point in pixel-index coordinates.
            let sy = top + ZOOM_ABOUT_Y + (y as f32 + 0.5 - ZOOM_ABOUT_Y) * zoom - 0.5;
            let (row, down) = (sy.floor(), sy - sy.floor());
            for x in 0..CROP {
                let sx = centre_x + (x as f32 + 0.5 - half) * zoom - 0.5;
                let (left, across) = (sx.floor(), sx - sx.floor());
                let neighbours = [
                    board.gray[index(left, row)],
                    board.gray[index(left + 1.0, row)],
                    board.gray[index(left, row + 1.0)],
                    board.gray[index(left + 1.0, row + 1.0)],
                ];
                let grey = blend(neighbours, across, down);
                out.push((grey - mean) * scale);
            }
        }
    }
    out
}

/// The whole board's mean grey and the factor that scales its spread to about 1, which every
/// crop is normalized by.
fn normalization(board: &Rectified) -> (f32, f32) {
    let n = board.gray.len() as f32;
    let mean = board.gray.iter().sum::<f32>() / n;
    let var = board.gray.iter().map(|g| (g - mean).powi(2)).sum::<f32>() / n;
    (mean, 1.0 / (var.sqrt() + 0.05))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rectified board's greys: two flat greys in a checkerboard (0.75 where a8 is).
    fn checkerboard() -> Vec<f32> {
        (0..BOARD * BOARD)
            .map(|i| {
                let at = |v: usize| (v.saturating_sub(MARGIN) / SQUARE).min(7);
                let (col, row) = (at(i % BOARD), at(i / BOARD));
                if (col + row) % 2 == 0 { 0.75 } else { 0.35 }
            })
            .collect()
    }

    #[test]
    fn a_square_is_blank_unless_something_shows_inside_its_edge() {
        let mut gray = checkerboard();
        assert_eq!(blank_cells(&Rectified::from_grey(gray.clone())), [true; 64]);
        // b8 (cell 1): a faint stroke in the middle, a tenth of the board's grey range.
        let (x0, y0) = (MARGIN + SQUARE, MARGIN);
        for x in x0 + 8..x0 + 16 {
            gray[(y0 + 12) * BOARD + x] += 0.04;
        }
        // c8 (cell 2): a dark line along the square's top edge only (a grid line).
        for x in MARGIN + 2 * SQUARE..MARGIN + 3 * SQUARE {
            gray[MARGIN * BOARD + x] = 0.0;
        }
        let blank = blank_cells(&Rectified::from_grey(gray));
        assert!(!blank[1], "a stroke inside the square is something drawn");
        assert!(blank[2], "a line along the edge is left out");
        assert_eq!(blank.iter().filter(|&&b| b).count(), 63);
    }

    #[test]
    fn a_square_crossed_by_an_x_and_nothing_else_is_blank() {
        let mut gray = checkerboard();
        // In square `cell`, paint `grey` where `inside` holds (square-local pixel coordinates,
        // 0-23).
        let mut paint = |cell: usize, grey: f32, inside: &dyn Fn(f32, f32) -> bool| {
            let (x0, y0) = (MARGIN + (cell % 8) * SQUARE, MARGIN + (cell / 8) * SQUARE);
            for y in 0..SQUARE {
                for x in 0..SQUARE {
                    if inside(x as f32 + 0.5, y as f32 + 0.5) {
                        gray[(y0 + y) * BOARD + x0 + x] = grey;
                    }
                }
            }
        };
        // python-chess's X: strokes a twelfth of a square wide from a quarter of the square
        // to five sixths along both diagonals.
        let on_diagonal = |x: f32, y: f32, sign: f32| {
            let (dx, dy) = (x - 12.0, y - 12.0);
            (dx - sign * dy).abs() / std::f32::consts::SQRT_2 <= 1.0 && dx.abs() <= 7.0
        };
        let x_mark = |x: f32, y: f32| on_diagonal(x, y, 1.0) || on_diagonal(x, y, -1.0);
        // A piece: a broad blob in the square's lower middle.
        let piece = |x: f32, y: f32| (x - 12.0).abs() <= 6.0 && (6.0..=21.0).contains(&y);
        paint(0, 0.0, &x_mark); // a8: an X alone
        paint(2, 1.0, &piece); // c8: a piece
        paint(2, 0.0, &x_mark); // c8: the X over it
        paint(4, 0.0, &|x, y| on_diagonal(x, y, 1.0)); // e8: one diagonal stroke (an arrow)
        // g8: hatching, thin lines every four pixels along one diagonal direction and across.
        paint(6, 0.0, &|x, y| {
            ((x + y) as i32) % 4 == 0 || ((x - y + 24.0) as i32) % 4 == 0
        });
        // b7: a disc.
        paint(9, 0.0, &|x, y| {
            (x - 12.0).powi(2) + (y - 12.0).powi(2) <= 36.0
        });
        // d7: an X over a piece drawn only as a faint outline (a white piece on a light
        // square): a ring a third as far from the square's grey as the X.
        let ring = |x: f32, y: f32| ((x - 12.0).powi(2) + (y - 12.0).powi(2)).sqrt().round() == 8.0;
        paint(11, 0.5, &ring);
        paint(11, 0.0, &x_mark);
        let blank = blank_cells(&Rectified::from_grey(gray));
        assert!(
            blank[0],
            "an X alone on an empty square is nothing standing there"
        );
        for (cell, what) in [
            (2, "an X over a piece"),
            (4, "a single diagonal stroke"),
            (6, "cross-hatching"),
            (9, "a disc"),
            (11, "an X over a faint outline"),
        ] {
            assert!(!blank[cell], "{what} is something drawn");
        }
        assert_eq!(blank.iter().filter(|&&b| b).count(), 59);
    }

    /// A board of a smooth grey ramp with one black dot of 2x2 pixels from (x, y).
    fn ramp_with_dot(dot: (usize, usize)) -> Rectified {
        let mut gray: Vec<f32> = (0..BOARD * BOARD)
            .map(|i| 0.3 + 0.4 * ((i % BOARD) + i / BOARD) as f32 / (2 * BOARD) as f32)
            .collect();
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            gray[(dot.1 + y) * BOARD + dot.0 + x] = 0.0;
        }
        Rectified::from_grey(gray)
    }

    #[test]
    fn a_zoom_of_one_cuts_the_plain_crops() {
        let board = ramp_with_dot((60, 70));
        let cells = [0, 9, 27, 63];
        let plain = cut_cells(&board, &cells, 0);
        let zoomed = cut_cells_zoomed(&board, &cells, 1.0);
        assert_eq!(plain.len(), zoomed.len());
        let worst = plain
            .iter()
            .zip(&zoomed)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "largest difference {worst}");
    }

    #[test]
    fn a_zoom_above_one_shows_what_lies_beyond_the_crop() {
        // Cell 9's crop spans x and y 24..56; a dot two pixels outside it at (58, 40) is missing
        // from the plain crop and, at a zoom of 1.15 (about 36.8 pixels across, about the
        // middle 40), inside the zoomed one, near its right edge, at row 16 or 17.
        let board = ramp_with_dot((58, 40));
        let darkest = |crop: &[f32]| {
            crop.iter()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(b.1))
                .map(|(i, &v)| (i % CROP, i / CROP, v))
        };
        let plain = cut_cells(&board, &[9], 0);
        let zoomed = cut_cells_zoomed(&board, &[9], 1.15);
        let (.., plain_min) = darkest(&plain).expect("a crop");
        let (x, y, zoomed_min) = darkest(&zoomed).expect("a crop");
        assert!(
            zoomed_min < plain_min - 0.3,
            "{zoomed_min} against {plain_min}"
        );
        assert!(
            x >= CROP - 2 && (15..=17).contains(&y),
            "dot seen at ({x}, {y})"
        );
    }

    #[test]
    fn squares_past_the_pictures_edge_are_cut_off() {
        // A board of 800 pixels in a picture 700 high: the bottom row is gone, the next one
        // whole.
        let corners = [[0.0, 0.0], [800.0, 0.0], [800.0, 800.0], [0.0, 800.0]];
        let cut = cut_off_squares(corners, 800, 700);
        assert!(cut[56..].iter().all(|&c| c), "bottom row");
        assert!(cut[..56].iter().all(|&c| !c), "the rest");
        // Half of the left column outside (corners at -50 of a 100-pixel square): cut off;
        // a tenth outside, as a located edge a little off gives: seen.
        let left_half = [[-50.0, 0.0], [750.0, 0.0], [750.0, 800.0], [-50.0, 800.0]];
        let cut = cut_off_squares(left_half, 750, 800);
        assert!((0..64).all(|cell| cut[cell] == (cell % 8 == 0)));
        let a_little = [
            [-10.0, -10.0],
            [790.0, -10.0],
            [790.0, 790.0],
            [-10.0, 790.0],
        ];
        assert!(cut_off_squares(a_little, 800, 800).iter().all(|&c| !c));
    }

    #[test]
    fn rectify_maps_corners_to_the_grid() {
        // A 160x160 checkerboard placed at (20, 30) in a 220x220 picture.
        let mut image = RgbImage::from_pixel(220, 220, image::Rgb([128, 128, 128]));
        for y in 0..160 {
            for x in 0..160 {
                let light = ((x / 20) + (y / 20)) % 2 == 0;
                let v = if light { 230 } else { 40 };
                image.put_pixel(x + 20, y + 30, image::Rgb([v, v, v]));
            }
        }
        let corners = [[20.0, 30.0], [180.0, 30.0], [180.0, 190.0], [20.0, 190.0]];
        let board = rectify(&image, corners).unwrap();
        let at = |x: usize, y: usize| board.gray[y * BOARD + x];
        // Centre of a8 (light) and b8 (dark).
        assert!(at(MARGIN + SQUARE / 2, MARGIN + SQUARE / 2) > 0.8);
        assert!(at(MARGIN + SQUARE + SQUARE / 2, MARGIN + SQUARE / 2) < 0.25);
        let crops = cut_squares(&board);
        assert_eq!(crops.len(), 64 * CROP * CROP);
        // The a8 crop's centre is brighter than b8's.
        let centre = (CROP / 2) * CROP + CROP / 2;
        assert!(crops[centre] > crops[CROP * CROP + centre]);
        // b8 cut one pixel lower: its rows are b8's rows moved up by one; at the top edge the
        // cut cannot go higher.
        let lower = cut_cells(&board, &[1], 1);
        assert_eq!(
            lower[..CROP * (CROP - 1)],
            crops[CROP * CROP + CROP..2 * CROP * CROP]
        );
        assert_eq!(
            cut_cells(&board, &[1], -1),
            crops[CROP * CROP..2 * CROP * CROP]
        );
    }

    #[test]
    fn degenerate_quads_are_refused() {
        let image = RgbImage::new(10, 10);
        assert!(rectify(&image, [[1.0, 1.0]; 4]).is_none());
        // Four corners on one line.
        let line = [[0.0, 0.0], [4.0, 4.0], [8.0, 8.0], [2.0, 2.0]];
        assert!(board_to_picture(line).is_none());
    }

    #[test]
    fn the_board_map_takes_the_unit_square_to_the_quad() {
        let quads = [
            // A square, a parallelogram (affine), and a perspective quad.
            [[20.0, 30.0], [180.0, 30.0], [180.0, 190.0], [20.0, 190.0]],
            [[10.0, 10.0], [110.0, 30.0], [130.0, 130.0], [30.0, 110.0]],
            [[12.5, 40.0], [300.0, 20.0], [340.0, 410.0], [-8.0, 380.0]],
        ];
        for quad in quads {
            let map = board_to_picture(quad).expect("a quad");
            for ((u, v), corner) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
                .into_iter()
                .zip(quad)
            {
                let (x, y) = map.map(u, v);
                assert!((x - corner[0]).abs() < 1e-3 && (y - corner[1]).abs() < 1e-3);
            }
            // Straight lines stay straight: the board's centre is where its diagonals cross,
            // the same point whichever diagonal it is reached along.
            let (cx, cy) = map.map(0.5, 0.5);
            let along = |a: [f32; 2], b: [f32; 2]| {
                // The centre's distance from the line through a and b, in pixels.
                let length = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
                ((b[0] - a[0]) * (cy - a[1]) - (b[1] - a[1]) * (cx - a[0])) / length
            };
            assert!(along(quad[0], quad[2]).abs() < 1e-3);
            assert!(along(quad[1], quad[3]).abs() < 1e-3);
        }
    }

    #[test]
    fn the_window_reads_the_same_grey_levels_with_and_without_clamping() {
        // A picture of arbitrary colours, a window inside it, and points inside, on the edge
        // of, and outside the window and the picture (and one not a number).
        let image = RgbImage::from_fn(40, 30, |x, y| {
            let v = (x * 37 + y * 101) as u8;
            image::Rgb([v, v.wrapping_mul(7), v.wrapping_add(91)])
        });
        let window = converted_window(&image, 5, 4, 30, 25);
        for (x, y, pixel) in image.enumerate_pixels() {
            if (5..=30).contains(&x) && (4..=25).contains(&y) {
                assert_eq!(window.levels.level(x - 5, y - 4), grey_level(pixel.0));
            }
        }
        let xs: Vec<f32> = (0..60).map(|k| -3.0 + k as f32 * 0.61).collect();
        let ys: Vec<f32> = (0..60).map(|k| 31.0 - k as f32 * 0.57).collect();
        assert_samples_as_one_by_one(&window, &xs, &ys);
        // The same window read from the picture's bytes: the same levels, the same samples.
        let from_picture = picture_window(&image, 5, 4, 30, 25);
        for y in 0..22 {
            for x in 0..26 {
                assert_eq!(from_picture.levels.level(x, y), window.levels.level(x, y));
            }
        }
        assert_samples_as_one_by_one(&from_picture, &xs, &ys);
    }

    fn assert_samples_as_one_by_one<L: GreyLevels>(window: &GreyWindow<L>, xs: &[f32], ys: &[f32]) {
        for per_pixel in 1..=3 {
            let mut out = vec![0.25; 60 / per_pixel];
            window.add_samples(xs, ys, per_pixel, &mut out);
            for (k, value) in out.iter().enumerate() {
                let one_by_one = (k * per_pixel..(k + 1) * per_pixel)
                    .fold(0.25, |sum, i| sum + window.sample(xs[i], ys[i]));
                assert_eq!(*value, one_by_one, "pixel {k} of {per_pixel} samples");
            }
        }
        // Not a number: the clamped path, which reads no pixel outside and gives no number.
        let mut out = [0.0f32];
        window.add_samples(&[f32::NAN], &[10.0], 1, &mut out);
        assert!(out[0].is_nan() && window.sample(f32::NAN, 10.0).is_nan());
    }

    #[test]
    fn a_large_board_read_from_the_picture_is_rectified_as_if_converted() {
        // A 1,500-pixel board of arbitrary colours: over `CONVERT_UP_TO` times the samples.
        let image = RgbImage::from_fn(1600, 1550, |x, y| {
            let v = (x * 37 + y * 101) as u8;
            image::Rgb([v, v.wrapping_mul(7), v.wrapping_add(91)])
        });
        let corners = [
            [40.0, 30.0],
            [1540.0, 50.0],
            [1530.0, 1520.0],
            [60.0, 1510.0],
        ];
        let projection = board_to_picture(corners).expect("a quad");
        let samples = 3;
        let offsets = sample_offsets(samples);
        assert!(1600 * 1550 > CONVERT_UP_TO * offsets.len() * offsets.len());
        let converted = converted_window(&image, 0, 0, 1599, 1549);
        let from_picture = picture_window(&image, 0, 0, 1599, 1549);
        let expected = converted.rectified(&projection, &offsets, samples);
        let read = from_picture.rectified(&projection, &offsets, samples);
        assert!(read == expected, "the two windows differ");
        // What `rectify` gives: the window it reads is only the board's, from the picture.
        let rectified = rectify(&image, corners).expect("rectifies").gray;
        assert!(rectified == expected, "rectify reads another grey");
    }
}
