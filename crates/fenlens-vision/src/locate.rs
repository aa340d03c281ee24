//! Locate: find the board's four corners.
//!
//! Method: a chessboard's inner corners are X-junctions: of the four squares that meet there, the
//! two on each diagonal look alike and differ from the other two. Pieces rarely cover the corners
//! of their squares, so most of the 49 inner junctions stay visible under pieces, highlights and
//! coordinates. The locator
//! 1. finds X-junctions at several scales with box means on an integral image (so hatched book
//!    squares and textures are averaged), keeping the junction's polarity (which diagonal is
//!    lighter);
//! 2. votes on the lattice direction and spacing from each junction's nearest neighbour of the
//!    opposite polarity;
//! 3. for each voted lattice, indexes the junctions, finds the 7x7 window of inner corners that
//!    holds the most junctions and the fewest outside it, and fits a homography to them, growing
//!    the match in a few rounds (so perspective and rotation are followed); where no lattice of
//!    square-looking squares matches 40 inner corners, the same lattices stretched across
//!    (squares 0.6-0.75 as tall as wide, or as wide as tall) are tried too, for a board
//!    photographed at a slant, whose junctions the square lattice indexes a row or a column off
//!    (twenty-sixth session: `scripts/measuring-copies.py tilted` on 200 clean pictures of
//!    held-out designs, squashed to 0.5-0.85 of their height with the top edge 0.7-0.95 as
//!    long: boards found 97.0 -> 100%, exact 69.5 -> 82.5%, mean corner error 4.12 -> 0.19% of
//!    the board's side; on the other measuring sets a few photographs' corners moved, boards
//!    exact unchanged but for one more of 600 held-out pictures and one more of 660 fonts).
//! 4. keeps the best lattice (many junctions, larger boards before thumbnails) and extends it by
//!    one square on each side to the board's outer corners;
//! 5. checks the fit's edge lines: where the first line of squares does not alternate light and
//!    dark like the board (a bar, a margin) while the line beyond the opposite edge does (in
//!    the board's greys, but for up to two squares of a last move's highlight), the fit has
//!    slid a square off the board and is moved back (`shift_onto_board`). A line of
//!    the fit that leaves the picture counts as off the board. Where the first line is plain
//!    (one grey) and the line beyond the opposite edge leaves the picture, the picture cuts
//!    through the board there and the fit is moved toward that edge. Where both edge lines of
//!    one direction lie in the picture and neither alternates like the board, the fit is in
//!    doubt;
//! 6. where two lines beyond the fit's edges in one direction still alternate like the board
//!    (a draughts board of 10x10 squares, any 8x8 part of which fits), there is no chessboard;
//! 7. where a lattice has light and dark squares of one background, there is no chessboard
//!    either: lines of text give junctions enough for a lattice between their letters, and the
//!    line grids of go boards, crosswords and graph paper, turned 45 degrees, for one between
//!    their lines, but its squares are all paper or wood (`one_background`); nor where bands of
//!    the other colour cut through its squares (stripes, which a lattice whose corners sit on
//!    the bands' edges fits surely: `crossed_by_bands`); nor where an unsure lattice (under 40
//!    inner corners) has more than two lines of squares outside the picture
//!    (`UNSURE_SQUARES_INSIDE`), nor where a lattice turned 25 degrees or more from the
//!    picture's axes has any square outside it (a grid of blobs, such as a phone's icons, is a
//!    checkerboard turned 45 degrees: `TURNED_DEGREES`).
//!
//! Steps 1-4 run first with the large boxes only (a quarter of the work); when they give a sure
//! board with large squares that is the answer, otherwise they run again with every box size.
//! When that finds no board, the large boxes' board (if any) is taken: the small boxes add the
//! junctions inside ornate or crowded pieces, which can outvote the lattice. On held-out designs
//! (seeds 2026 / 777 / 77) boards found 99.2 / 99.5 / 99.7% → 100 / 99.8 / 100%, boards exact
//! 79.3 / 75.3 / 81.0% → 79.8 / 75.5 / 81.0%.
//!
//! All of this runs on the picture's grey levels. Where they give no sure board (none, or a
//! small one that may be a thumbnail beside the real board), it runs again on each colour
//! channel: two square colours of one brightness (cream and yellow-green) or a pale board
//! under glare are told apart there. A channel's board replaces the grey one only when it is
//! another, larger board that scores higher.
//!
//! Where neither gives a sure board (none, or under 40 matched inner corners), the picture
//! itself, or what lies inside plain margins of any width (a frame, a page, a plain
//! background), is tried as the board (`whole_picture_fit`):
//! pieces crowding every square of a cropped screenshot hide most of its inner corners, or give
//! the junction detector more corners inside their drawings than between the squares, while
//! the backgrounds along the squares' borders still alternate. It is taken where 90% of its
//! squares stand on their parity's side of the board's middle grey, 15 points more than the
//! lattice's (`checkered`, on the picture averaged over boxes so that hatched squares show
//! their mean). Fortieth session: of 200 boards with pieces on 58-64 squares drawn to the
//! picture's edges (31 lichess designs, 16 themes, 160-800 pixels, 30% JPEG), 189 -> 199 were
//! found within 2% of their side. On the measuring sets (about 6,000 pictures) four pictures
//! moved, all for the better: a font's clean start position (its lattice fitted askew, 44
//! squares wrong, now exact) and three crowded random placements (one fitted to the wrong
//! lattice, two found nowhere before). Margins are trimmed however wide they are: of 200
//! boards with pieces on about 95% of their squares, set in larger pictures on a plain ground
//! (half of them with bars of colour around, as in a page), 181 were found within 2% of their
//! side before, as many with margins up to an eighth of the picture trimmed, 191 with any.
//!
//! Assumes the board shows at least about a third of its inner corners, or fills the picture
//! or what plain margins leave of it. Pictures are shrunk to
//! at most 1024 pixels for the search. When nothing fits, the grey picture is searched again
//! turned by 15, 30 and 45 degrees (a board photographed crooked: the junction detector's boxes
//! stand upright); when that finds no sure board either: [`VisionError::NoBoard`]. A board found
//! but unsure is searched for turned too, and replaced where turned back it fits much better.

use image::RgbImage;
use image::imageops::FilterType;
use rayon::prelude::*;

use crate::VisionError;

/// The located board.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    /// Corners of the playing area in picture pixels: top-left, top-right, bottom-right,
    /// bottom-left as displayed.
    pub corners: [[f32; 2]; 4],
    /// Inner corners (of 49) that matched the fitted grid; 0 for a board taken as the whole
    /// picture, or what its plain margins leave (no lattice fitted; see the module comment).
    pub matched: usize,
    /// The fit's edge looks off the board but could not be moved back (step 5): the corners
    /// may be a square off, so every reading is in doubt.
    pub edge_in_doubt: bool,
}

/// Largest side of the picture the search runs on.
const WORK_SIZE: u32 = 1024;
/// Box half-sizes for the X-junction detector, in working pixels.
const SCALES: [usize; 8] = [2, 3, 4, 6, 9, 13, 18, 26];
/// Minimum junction response, in grey levels.
const MIN_RESPONSE: f32 = 7.0;
/// Fewest matched inner corners for a board.
const MIN_MATCHED: usize = 16;
/// How many of `SCALES`, from the smallest, are searched only when the larger ones find no
/// sure board.
const SMALL_SCALES: usize = 3;
/// A board found with the large boxes alone is taken when it matches this many inner corners
/// and its squares are at least `SURE_SPACING` working pixels (so the fit, which keeps only
/// boxes of at least an eighth of a square, would not have used the small boxes anyway and a
/// smaller board could not outscore it).
const SURE_MATCHED: usize = 40;
const SURE_SPACING: f32 = 36.0;
/// A colour channel's board replaces the grey picture's only when its squares are this many
/// times as large (another board, not the same one fitted a little differently).
const DIFFERENT_BOARD: f32 = 2.0;

/// An X-junction.
#[derive(Clone, Copy, Debug)]
struct Junction {
    x: f32,
    y: f32,
    response: f32,
    /// +1 when the top-left/bottom-right diagonal is lighter.
    polarity: i8,
    /// The largest box half-size that found it: board corners are found up to about a square's
    /// size, junctions inside piece drawings only at small sizes.
    scale: usize,
}

struct Integral {
    width: usize,
    height: usize,
    sums: Vec<u32>,
}

impl Integral {
    fn new(gray: &[u8], width: usize, height: usize) -> Integral {
        let mut sums = vec![0u32; (width + 1) * (height + 1)];
        for y in 0..height {
            let mut row = 0u32;
            for x in 0..width {
                row += gray[y * width + x] as u32;
                sums[(y + 1) * (width + 1) + x + 1] = sums[y * (width + 1) + x + 1] + row;
            }
        }
        Integral {
            width,
            height,
            sums,
        }
    }

    /// Sum over x in [x0, x1), y in [y0, y1).
    #[inline]
    fn sum(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> u32 {
        let w = self.width + 1;
        self.sums[y1 * w + x1] + self.sums[y0 * w + x0]
            - self.sums[y0 * w + x1]
            - self.sums[y1 * w + x0]
    }
}

/// X-junction responses at one box half-size, evaluated every `stride` pixels; returns local
/// maxima (positions refined to a fraction of the stride).
fn junctions_at(integral: &Integral, h: usize) -> Vec<Junction> {
    let (w, hgt) = (integral.width, integral.height);
    if w < 2 * h + 3 || hgt < 2 * h + 3 {
        return Vec::new();
    }
    // Large boxes find corners of large squares: a coarser grid is precise enough there.
    let stride = (h / 3).max(1);
    let area = (h * h) as f32;
    let (gw, gh) = ((w - 2 * h) / stride + 1, (hgt - 2 * h) / stride + 1);
    let mut response = vec![0f32; gw * gh];
    let mut polarity = vec![0i8; gw * gh];
    for gy in 0..gh {
        let y = h + gy * stride;
        for gx in 0..gw {
            let x = h + gx * stride;
            // The response is at most |a - b| and at most |a - c|: most places (inside
            // squares) are ruled out after two or three boxes.
            let a = integral.sum(x - h, y - h, x, y) as f32 / area;
            let b = integral.sum(x, y - h, x + h, y) as f32 / area;
            if (a - b).abs() <= MIN_RESPONSE {
                continue;
            }
            let c = integral.sum(x - h, y, x, y + h) as f32 / area;
            if (a - c).abs() <= MIN_RESPONSE {
                continue;
            }
            let d = integral.sum(x, y, x + h, y + h) as f32 / area;
            let across = (a - b)
                .abs()
                .min((a - c).abs())
                .min((d - b).abs())
                .min((d - c).abs());
            let r = across - (a - d).abs() - (b - c).abs();
            if r > MIN_RESPONSE {
                let i = gy * gw + gx;
                response[i] = r;
                polarity[i] = if a + d > b + c { 1 } else { -1 };
            }
        }
    }
    // Local maxima within about h pixels, with a sub-cell peak.
    let radius = (h / stride).max(2);
    let mut out = Vec::new();
    for gy in 1..gh.saturating_sub(1) {
        for gx in 1..gw.saturating_sub(1) {
            let r = response[gy * gw + gx];
            if r <= 0.0 {
                continue;
            }
            let mut is_max = true;
            'window: for yy in gy.saturating_sub(radius)..=(gy + radius).min(gh - 1) {
                for xx in gx.saturating_sub(radius)..=(gx + radius).min(gw - 1) {
                    let other = response[yy * gw + xx];
                    if other > r || (other == r && (yy, xx) < (gy, gx)) {
                        is_max = false;
                        break 'window;
                    }
                }
            }
            if !is_max {
                continue;
            }
            let peak = |l: f32, c: f32, r: f32| {
                let denom = l - 2.0 * c + r;
                if denom.abs() < 1e-6 {
                    0.0
                } else {
                    (0.5 * (l - r) / denom).clamp(-0.5, 0.5)
                }
            };
            let dx = peak(response[gy * gw + gx - 1], r, response[gy * gw + gx + 1]);
            let dy = peak(
                response[(gy - 1) * gw + gx],
                r,
                response[(gy + 1) * gw + gx],
            );
            out.push(Junction {
                x: (h + gx * stride) as f32 + dx * stride as f32,
                y: (h + gy * stride) as f32 + dy * stride as f32,
                response: r,
                polarity: polarity[gy * gw + gx],
                scale: h,
            });
        }
    }
    out
}

/// A correspondence: lattice point (u, v) to picture point (x, y).
type Pair = ((f64, f64), (f64, f64));

/// A homography as a 3x3 row-major matrix (f64).
#[derive(Clone, Copy, Debug)]
struct Homography([f64; 9]);

impl Homography {
    /// The upright lattice whose board spans the rectangle from (`left`, `top`) to (`right`,
    /// `bottom`): outer corners (-1, -1) and (7, 7) there, squares an eighth of each side.
    fn spanning(left: f64, top: f64, right: f64, bottom: f64) -> Homography {
        let (across, down) = ((right - left) / 8.0, (bottom - top) / 8.0);
        Homography([
            across,
            0.0,
            left + across,
            0.0,
            down,
            top + down,
            0.0,
            0.0,
            1.0,
        ])
    }

    fn apply(&self, u: f64, v: f64) -> (f64, f64) {
        let m = &self.0;
        let w = m[6] * u + m[7] * v + m[8];
        (
            (m[0] * u + m[1] * v + m[2]) / w,
            (m[3] * u + m[4] * v + m[5]) / w,
        )
    }

    /// Least-squares fit from (u, v) → (x, y) pairs (at least 4), with h33 = 1.
    fn fit(pairs: &[Pair]) -> Option<Homography> {
        if pairs.len() < 4 {
            return None;
        }
        // Normalize both point sets for conditioning.
        let norm = |pts: Vec<(f64, f64)>| {
            let n = pts.len() as f64;
            let (mx, my) = pts
                .iter()
                .fold((0.0, 0.0), |(a, b), p| (a + p.0 / n, b + p.1 / n));
            let d = pts
                .iter()
                .map(|p| ((p.0 - mx).powi(2) + (p.1 - my).powi(2)).sqrt())
                .sum::<f64>()
                / n;
            let s = if d > 1e-9 {
                std::f64::consts::SQRT_2 / d
            } else {
                1.0
            };
            (mx, my, s)
        };
        let (umx, umy, us) = norm(pairs.iter().map(|p| p.0).collect());
        let (xmx, xmy, xs) = norm(pairs.iter().map(|p| p.1).collect());
        let mut ata = [[0f64; 8]; 8];
        let mut atb = [0f64; 8];
        for &((u, v), (x, y)) in pairs {
            let (u, v) = ((u - umx) * us, (v - umy) * us);
            let (x, y) = ((x - xmx) * xs, (y - xmy) * xs);
            let rows = [
                ([u, v, 1.0, 0.0, 0.0, 0.0, -u * x, -v * x], x),
                ([0.0, 0.0, 0.0, u, v, 1.0, -u * y, -v * y], y),
            ];
            for (row, rhs) in rows {
                for i in 0..8 {
                    atb[i] += row[i] * rhs;
                    for j in 0..8 {
                        ata[i][j] += row[i] * row[j];
                    }
                }
            }
        }
        let h = solve(ata, atb)?;
        // Undo the normalizations: H = Tx^-1 * Hn * Tu.
        let hn = [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0];
        let tu = [us, 0.0, -us * umx, 0.0, us, -us * umy, 0.0, 0.0, 1.0];
        let tx_inv = [1.0 / xs, 0.0, xmx, 0.0, 1.0 / xs, xmy, 0.0, 0.0, 1.0];
        let m = mul3(&mul3(&tx_inv, &hn), &tu);
        if m.iter().any(|v| !v.is_finite()) || m[8].abs() < 1e-12 {
            return None;
        }
        Some(Homography(m.map(|v| v / m[8])))
    }
}

fn mul3(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut out = [0.0; 9];
    for r in 0..3 {
        for c in 0..3 {
            out[r * 3 + c] = (0..3).map(|k| a[r * 3 + k] * b[k * 3 + c]).sum();
        }
    }
    out
}

/// Solves an NxN system by Gaussian elimination with partial pivoting; `None` where a pivot
/// is under 1e-12 (the system does not tell the unknowns apart).
pub(crate) fn solve<const N: usize>(mut a: [[f64; N]; N], mut b: [f64; N]) -> Option<[f64; N]> {
    for col in 0..N {
        let pivot = (col..N).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..N {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (value, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *value -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0f64; N];
    for row in (0..N).rev() {
        let s: f64 = (row + 1..N).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// In the axis votes, a pair of junctions counts when they are at least this many times the
/// smaller one's box half-size apart. A box of half-size h answers at a junction only when the
/// squares are about h or larger, so the lattice's own neighbours can be as near as h; at 2h
/// (until the twelfth session) a flat, sparsely filled board whose squares were 1-2 times the
/// largest box that answered lost its neighbours' votes and was not found (16 of 54 empty
/// lichess-green boards of 96-408 pixels; none now). On the held-out sets boards exact 79.8 /
/// 75.5 / 81.0 / 80.0% → 80.3 / 75.5 / 81.0 / 80.2% (seeds 2026 / 777 / 77 / 4711).
const AXIS_PAIR_MIN: f32 = 1.0;

/// A lattice hypothesis: direction and spacing.
#[derive(Clone, Copy, Debug)]
struct Hypothesis {
    angle: f32,
    /// Square size along `angle`, in working pixels.
    spacing: f32,
    /// Square size across `angle` over `spacing`: 1 for squares that look square, less or
    /// more for a board seen at a slant (see [`STRETCHES`]).
    stretch: f32,
}

/// The stretches tried when no lattice of square-looking squares gives a sure board: a camera
/// looking at a book or a screen from below its top edge sees the squares 0.5-0.85 as tall as
/// wide. The vote's spacing is the nearer neighbour's, so it may be either side of the square;
/// the first indexing of the junctions must be near the truth for the homography to take over
/// (`fit_hypothesis`).
const STRETCHES: [f32; 4] = [0.6, 0.75, 1.0 / 0.75, 1.0 / 0.6];

/// A fitted board: homography from lattice indices (inner corner (0,0) .. (6,6)) to pixels.
#[derive(Clone, Copy, Debug)]
struct Fit {
    homography: Homography,
    matched: usize,
    score: f32,
    /// Square size in working pixels.
    spacing: f32,
}

fn vote(junctions: &[Junction]) -> Vec<Hypothesis> {
    // For each junction, its nearest neighbour of the opposite polarity.
    const ANGLE_BINS: usize = 90;
    const SPACING_BINS: usize = 64;
    let mut votes = vec![0f32; ANGLE_BINS * SPACING_BINS];
    let spacing_bin = |s: f32| {
        ((s.max(4.0).ln() - 4f32.ln()) / (300f32.ln() - 4f32.ln()) * SPACING_BINS as f32) as usize
    };
    let mut samples: Vec<(usize, usize, f32, f32)> = Vec::new();
    for (i, a) in junctions.iter().enumerate() {
        let mut best: Option<(f32, &Junction)> = None;
        let min_distance = (1.6 * a.scale as f32).max(4.0);
        for (j, b) in junctions.iter().enumerate() {
            if i == j || a.polarity == b.polarity || 2 * b.scale < a.scale || b.scale > 2 * a.scale
            {
                continue;
            }
            let d2 = (a.x - b.x).powi(2) + (a.y - b.y).powi(2);
            if d2 < min_distance * min_distance {
                continue;
            }
            if best.is_none_or(|(bd, _)| d2 < bd) {
                best = Some((d2, b));
            }
        }
        if let Some((d2, b)) = best {
            let spacing = d2.sqrt();
            let angle = (b.y - a.y).atan2(b.x - a.x).to_degrees().rem_euclid(90.0);
            let (ab, sb) = (
                (angle as usize) % ANGLE_BINS,
                spacing_bin(spacing).min(SPACING_BINS - 1),
            );
            votes[ab * SPACING_BINS + sb] += a.scale as f32;
            samples.push((ab, sb, angle, spacing));
        }
    }
    // Peaks with their neighbours' votes, then the mean angle and spacing of their samples.
    let mut peaks: Vec<(f32, usize, usize)> = Vec::new();
    for ab in 0..ANGLE_BINS {
        for sb in 0..SPACING_BINS {
            let mut total = 0.0;
            for da in [ANGLE_BINS - 1, 0, 1] {
                for ds in [-1i32, 0, 1] {
                    let s = sb as i32 + ds;
                    if (0..SPACING_BINS as i32).contains(&s) {
                        total += votes[((ab + da) % ANGLE_BINS) * SPACING_BINS + s as usize];
                    }
                }
            }
            if total >= 12.0 {
                peaks.push((total, ab, sb));
            }
        }
    }
    peaks.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut hypotheses: Vec<Hypothesis> = Vec::new();
    for (_, ab, sb) in peaks.into_iter().take(40) {
        let near = |a: usize| {
            let d = (a as i32 - ab as i32).rem_euclid(ANGLE_BINS as i32);
            d <= 1 || d >= ANGLE_BINS as i32 - 1
        };
        let members: Vec<&(usize, usize, f32, f32)> = samples
            .iter()
            .filter(|s| near(s.0) && (s.1 as i32 - sb as i32).abs() <= 1)
            .collect();
        if members.is_empty() {
            continue;
        }
        // Circular mean of angles (period 90 degrees).
        let (sx, sy) = members.iter().fold((0.0f32, 0.0f32), |(x, y), s| {
            let t = (s.2 * 4.0).to_radians();
            (x + t.cos(), y + t.sin())
        });
        let angle = (sy.atan2(sx).to_degrees() / 4.0).rem_euclid(90.0);
        let mut spacings: Vec<f32> = members.iter().map(|s| s.3).collect();
        spacings.sort_by(f32::total_cmp);
        let spacing = spacings[spacings.len() / 2];
        let duplicate = hypotheses.iter().any(|h| {
            let da = (h.angle - angle).rem_euclid(90.0);
            !(3.0..=87.0).contains(&da) && (h.spacing / spacing - 1.0).abs() < 0.08
        });
        if !duplicate {
            hypotheses.push(Hypothesis {
                angle,
                spacing,
                stretch: 1.0,
            });
        }
        if hypotheses.len() >= 8 {
            break;
        }
    }
    hypotheses.extend(axis_votes(junctions));
    hypotheses
}

/// Spacing hypotheses for boards that are not rotated: every pair of opposite-polarity junctions
/// on one row or column votes for its distance; a lattice votes most for its spacing (pairs of
/// opposite polarity are an odd number of squares apart, and neighbours are the most common).
fn axis_votes(junctions: &[Junction]) -> Vec<Hypothesis> {
    const MAX_SPACING: usize = 400;
    let mut votes = vec![0f32; MAX_SPACING + 2];
    for (i, a) in junctions.iter().enumerate() {
        for b in &junctions[i + 1..] {
            if a.polarity == b.polarity {
                continue;
            }
            let (dx, dy) = ((a.x - b.x).abs(), (a.y - b.y).abs());
            let (along, across) = if dx > dy { (dx, dy) } else { (dy, dx) };
            let min_scale = a.scale.min(b.scale) as f32;
            if across > 1.5
                || along < (AXIS_PAIR_MIN * min_scale).max(5.0)
                || along >= MAX_SPACING as f32
            {
                continue;
            }
            let weight = min_scale.sqrt();
            let bin = along.round() as usize;
            votes[bin] += weight;
        }
    }
    // Smooth over neighbouring pixels, then take the strongest separated peaks.
    let smooth: Vec<f32> = (0..votes.len())
        .map(|i| {
            let lo = i.saturating_sub(1);
            let hi = (i + 1).min(votes.len() - 1);
            votes[lo..=hi].iter().sum()
        })
        .collect();
    let mut peaks: Vec<(f32, usize)> = (5..MAX_SPACING)
        .filter(|&i| smooth[i] > 0.0 && smooth[i] >= smooth[i - 1] && smooth[i] >= smooth[i + 1])
        .map(|i| (smooth[i], i))
        .collect();
    peaks.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out: Vec<Hypothesis> = Vec::new();
    for (_, i) in peaks {
        let spacing = i as f32;
        if out.iter().all(|h| (h.spacing / spacing - 1.0).abs() > 0.06) {
            out.push(Hypothesis {
                angle: 0.0,
                spacing,
                stretch: 1.0,
            });
        }
        if out.len() >= 5 {
            break;
        }
    }
    out
}

/// The largest lattice index a junction may take: no picture holds ten thousand squares across.
const MAX_LATTICE_INDEX: f32 = 10_000.0;

/// Indexes junctions on the lattice given by `to_lattice` (pixel → fractional index); returns
/// (index, junction) pairs within `tolerance` of a lattice point with consistent polarity.
fn index_junctions(
    junctions: &[Junction],
    to_lattice: impl Fn(f32, f32) -> (f32, f32),
    tolerance: f32,
) -> Vec<((i32, i32), Junction)> {
    let mut indexed: Vec<((i32, i32), Junction)> = junctions
        .iter()
        .filter_map(|j| {
            let (u, v) = to_lattice(j.x, j.y);
            let (i, k) = (u.round(), v.round());
            // A degenerate mapping throws junctions far off (or to infinity and NaN), where
            // rounding says nothing and the indices would not fit the sums below.
            let near = i.abs() <= MAX_LATTICE_INDEX && k.abs() <= MAX_LATTICE_INDEX;
            (near && (u - i).abs() < tolerance && (v - k).abs() < tolerance)
                .then_some(((i as i32, k as i32), *j))
        })
        .collect();
    // Polarity alternates like the squares: keep the majority parity.
    let parity = |((i, k), j): &((i32, i32), Junction)| {
        j.polarity as i32 * if (i + k).rem_euclid(2) == 0 { 1 } else { -1 }
    };
    let positive: f32 = indexed
        .iter()
        .filter(|p| parity(p) > 0)
        .map(|p| p.1.response)
        .sum();
    let negative: f32 = indexed
        .iter()
        .filter(|p| parity(p) < 0)
        .map(|p| p.1.response)
        .sum();
    let keep = if positive >= negative { 1 } else { -1 };
    indexed.retain(|p| parity(p) == keep);
    // One junction per lattice point: the strongest.
    indexed.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.response.total_cmp(&a.1.response)));
    indexed.dedup_by(|a, b| a.0 == b.0);
    indexed
}

/// The 7x7 window of lattice indices with the most junctions inside and the fewest just outside
/// (a board has exactly 7x7 inner corners). Returns the window's first index, score and count.
fn best_window(indexed: &[((i32, i32), Junction)]) -> Option<((i32, i32), f32, usize)> {
    if indexed.is_empty() {
        return None;
    }
    let (mut imin, mut imax, mut kmin, mut kmax) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for ((i, k), _) in indexed {
        imin = imin.min(*i);
        imax = imax.max(*i);
        kmin = kmin.min(*k);
        kmax = kmax.max(*k);
    }
    // In i64: indices of a degenerate fit can lie near i32's ends, where the difference wraps.
    if i64::from(imax) - i64::from(imin) > 300 || i64::from(kmax) - i64::from(kmin) > 300 {
        return None;
    }
    // Prefix sums over a padded grid of weights and counts.
    let pad = 8;
    let (w, h) = (
        (imax - imin + 1 + 2 * pad) as usize,
        (kmax - kmin + 1 + 2 * pad) as usize,
    );
    let mut weight = vec![0f32; (w + 1) * (h + 1)];
    let mut count = vec![0u32; (w + 1) * (h + 1)];
    for ((i, k), j) in indexed {
        let (x, y) = ((i - imin + pad) as usize + 1, (k - kmin + pad) as usize + 1);
        weight[y * (w + 1) + x] += j.response.sqrt();
        count[y * (w + 1) + x] += 1;
    }
    for y in 1..=h {
        for x in 1..=w {
            let i = y * (w + 1) + x;
            weight[i] += weight[i - 1] + weight[i - (w + 1)] - weight[i - (w + 1) - 1];
            count[i] += count[i - 1] + count[i - (w + 1)] - count[i - (w + 1) - 1];
        }
    }
    let rect = |table: &[f32], x0: usize, y0: usize, x1: usize, y1: usize| {
        table[y1 * (w + 1) + x1] - table[y0 * (w + 1) + x1] - table[y1 * (w + 1) + x0]
            + table[y0 * (w + 1) + x0]
    };
    let rect_count = |x0: usize, y0: usize, x1: usize, y1: usize| {
        count[y1 * (w + 1) + x1] + count[y0 * (w + 1) + x0]
            - count[y0 * (w + 1) + x1]
            - count[y1 * (w + 1) + x0]
    };
    let mut best: Option<((i32, i32), f32, usize)> = None;
    // Window origins (grid coordinates) such that the 9x9 ring fits in the padded grid.
    for y0 in 1..=h.saturating_sub(8) {
        for x0 in 1..=w.saturating_sub(8) {
            let inside = rect(&weight, x0, y0, x0 + 7, y0 + 7);
            if inside <= 0.0 {
                continue;
            }
            let ring = rect(&weight, x0 - 1, y0 - 1, x0 + 8, y0 + 8) - inside;
            let score = inside - 1.5 * ring;
            if best.is_none_or(|b| score > b.1) {
                let n = rect_count(x0, y0, x0 + 7, y0 + 7) as usize;
                let origin = (x0 as i32 - pad + imin, y0 as i32 - pad + kmin);
                best = Some((origin, score, n));
            }
        }
    }
    best
}

/// Largest distance (in squares) from the grid of a junction used in the final fit.
const REFIT_TOLERANCE: f64 = 0.1;

/// Fits `h` again to the pairs (lattice point, picture point) that it maps within
/// [`REFIT_TOLERANCE`] of their lattice points. Junctions that far off are not the board's
/// corners (a piece's edge, a letter next to a corner); left in, they tilt the far side of the
/// board, since its outer corners lie a square beyond the last inner ones. Measured on held-out
/// pictures: mean corner error 0.35% -> 0.25% of the side, boards exactly right 69.5% -> 71.8%
/// (0.06 squares: 71.7%).
fn refit_without_outliers(h: Homography, pairs: &[Pair]) -> Homography {
    let Some(inverse) = invert(&h) else {
        return h;
    };
    let kept: Vec<Pair> = pairs
        .iter()
        .filter(|((u, v), (x, y))| {
            let (fu, fv) = inverse.apply(*x, *y);
            ((fu - u).powi(2) + (fv - v).powi(2)).sqrt() < REFIT_TOLERANCE
        })
        .copied()
        .collect();
    if kept.len() < MIN_MATCHED.max(8) || kept.len() == pairs.len() {
        return h;
    }
    Homography::fit(&kept).unwrap_or(h)
}

/// The indexed junctions of the 7x7 window of inner corners starting at `origin`, as pairs of
/// (lattice point from the window's first corner, picture point).
fn window_pairs(indexed: &[((i32, i32), Junction)], origin: (i32, i32)) -> Vec<Pair> {
    indexed
        .iter()
        .filter(|((i, k), _)| (0..7).contains(&(i - origin.0)) && (0..7).contains(&(k - origin.1)))
        .map(|((i, k), j)| {
            let lattice = ((i - origin.0) as f64, (k - origin.1) as f64);
            (lattice, (j.x as f64, j.y as f64))
        })
        .collect()
}

fn fit_hypothesis(all: &[Junction], hypothesis: Hypothesis) -> Option<Fit> {
    // Board corners are found with boxes up to a square's size; keep junctions found with boxes
    // of at least an eighth of the spacing (or the largest box we use).
    let largest = SCALES[SCALES.len() - 1] as f32;
    let (along, across) = (hypothesis.spacing, hypothesis.spacing * hypothesis.stretch);
    let min_scale = (along.min(across) / 8.0).min(largest) * 0.9;
    let junctions: Vec<Junction> = all
        .iter()
        .filter(|j| j.scale as f32 >= min_scale && (j.scale as f32) <= along.max(across) * 1.2)
        .copied()
        .collect();
    let junctions = &junctions[..];
    let (c, s) = (
        hypothesis.angle.to_radians().cos(),
        hypothesis.angle.to_radians().sin(),
    );
    let spacing = (along * across).sqrt();
    // Rotate into lattice axes, then find the phase with a histogram of fractional positions.
    let rotated = |x: f32, y: f32| ((x * c + y * s) / along, (-x * s + y * c) / across);
    const PHASE_BINS: usize = 20;
    let mut hist = vec![0f32; PHASE_BINS * PHASE_BINS];
    for j in junctions {
        let (u, v) = rotated(j.x, j.y);
        let (bu, bv) = (
            (u.rem_euclid(1.0) * PHASE_BINS as f32) as usize % PHASE_BINS,
            (v.rem_euclid(1.0) * PHASE_BINS as f32) as usize % PHASE_BINS,
        );
        hist[bu * PHASE_BINS + bv] += j.response.sqrt();
    }
    let mut best_bin = (0, 0, f32::MIN);
    for bu in 0..PHASE_BINS {
        for bv in 0..PHASE_BINS {
            let mut total = 0.0;
            for du in [PHASE_BINS - 1, 0, 1] {
                for dv in [PHASE_BINS - 1, 0, 1] {
                    total += hist[((bu + du) % PHASE_BINS) * PHASE_BINS + (bv + dv) % PHASE_BINS];
                }
            }
            if total > best_bin.2 {
                best_bin = (bu, bv, total);
            }
        }
    }
    let (pu, pv) = (
        (best_bin.0 as f32 + 0.5) / PHASE_BINS as f32,
        (best_bin.1 as f32 + 0.5) / PHASE_BINS as f32,
    );
    let mut indexed = index_junctions(
        junctions,
        |x, y| {
            let (u, v) = rotated(x, y);
            (u - pu, v - pv)
        },
        0.22,
    );
    let ((i0, k0), _, _) = best_window(&indexed)?;
    // Fit a homography to the window's junctions, then grow: re-index everything through it.
    let mut homography: Option<Homography> = None;
    let mut origin = (i0, k0);
    for round in 0..4 {
        let pairs = window_pairs(&indexed, origin);
        if pairs.len() < MIN_MATCHED.min(8) {
            return None;
        }
        let h = Homography::fit(&pairs)?;
        homography = Some(h);
        if round == 3 {
            break;
        }
        let inverse = invert(&h)?;
        let tolerance = if round == 0 { 0.3 } else { 0.25 };
        indexed = index_junctions(
            junctions,
            |x, y| {
                let (u, v) = inverse.apply(x as f64, y as f64);
                (u as f32, v as f32)
            },
            tolerance,
        );
        let ((ni, nk), _, _) = best_window(&indexed)?;
        origin = (ni, nk);
    }
    let h = homography?;
    let window = window_pairs(&indexed, origin);
    let refined = refit_without_outliers(h, &window);
    let inside: Vec<&Junction> = indexed
        .iter()
        .filter(|((i, k), _)| (0..7).contains(&(i - origin.0)) && (0..7).contains(&(k - origin.1)))
        .map(|(_, j)| j)
        .collect();
    // The pairs were indexed from the window's first inner corner, so (0, 0) is that corner.
    // The checks below use the first fit, as they did before the refit existed; the corners
    // come from the refit.
    let homography = refined;
    let matched = inside.len();
    // In a real board the junctions found at the board's scale inside it are nearly all its
    // corners; in clutter (noise, photos, text) most are not.
    let inverse = invert(&h)?;
    let within = junctions
        .iter()
        .filter(|j| {
            let (u, v) = inverse.apply(j.x as f64, j.y as f64);
            (-0.5..6.5).contains(&u) && (-0.5..6.5).contains(&v)
        })
        .count();
    if (matched as f32) < 0.2 * within as f32 {
        return None;
    }
    // A real grid fits its corners closely; chance alignments in clutter do not.
    let residual = (inside
        .iter()
        .map(|j| {
            let (u, v) = inverse.apply(j.x as f64, j.y as f64);
            (u - u.round()).powi(2) + (v - v.round()).powi(2)
        })
        .sum::<f64>()
        / matched.max(1) as f64)
        .sqrt();
    if residual > 0.13 {
        return None;
    }
    let strength: f32 = inside.iter().map(|j| j.response.sqrt()).sum();
    // Larger boards win over thumbnails with as many junctions.
    let score = matched as f32 * (1.0 + 0.5 * spacing.max(1.0).log2()) + 0.01 * strength;
    Some(Fit {
        homography,
        matched,
        score,
        spacing,
    })
}

fn invert(h: &Homography) -> Option<Homography> {
    let m = &h.0;
    let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
        + m[2] * (m[3] * m[7] - m[4] * m[6]);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = [
        (m[4] * m[8] - m[5] * m[7]) / det,
        (m[2] * m[7] - m[1] * m[8]) / det,
        (m[1] * m[5] - m[2] * m[4]) / det,
        (m[5] * m[6] - m[3] * m[8]) / det,
        (m[0] * m[8] - m[2] * m[6]) / det,
        (m[2] * m[3] - m[0] * m[5]) / det,
        (m[3] * m[7] - m[4] * m[6]) / det,
        (m[1] * m[6] - m[0] * m[7]) / det,
        (m[0] * m[4] - m[1] * m[3]) / det,
    ];
    Some(Homography(inv))
}

/// Orders four points as top-left, top-right, bottom-right, bottom-left.
fn order_corners(points: [[f32; 2]; 4]) -> [[f32; 2]; 4] {
    let cx = points.iter().map(|p| p[0]).sum::<f32>() / 4.0;
    let cy = points.iter().map(|p| p[1]).sum::<f32>() / 4.0;
    let mut sorted = points;
    // By angle around the centre, starting from the top-left quadrant, clockwise on screen.
    sorted.sort_by(|a, b| {
        let ta = (a[1] - cy).atan2(a[0] - cx);
        let tb = (b[1] - cy).atan2(b[0] - cx);
        ta.total_cmp(&tb)
    });
    // atan2 order: from -pi (left) going clockwise on screen (y down): left, top, right, bottom.
    // Rotate so that the first is the point with the smallest x + y (top-left).
    let start = (0..4)
        .min_by(|&i, &j| (sorted[i][0] + sorted[i][1]).total_cmp(&(sorted[j][0] + sorted[j][1])))
        .unwrap_or(0);
    [0, 1, 2, 3].map(|k| sorted[(start + k) % 4])
}

/// Junctions found with the large boxes (`SCALES` after the first `SMALL_SCALES`), per scale.
fn large_box_junctions(integral: &Integral) -> Vec<Vec<Junction>> {
    SCALES[SMALL_SCALES..]
        .par_iter()
        .map(|&scale| junctions_at(integral, scale))
        .collect()
}

/// Whether a board the large boxes alone found is sure enough to skip the small boxes.
fn is_sure(fit: &Fit) -> bool {
    fit.matched >= SURE_MATCHED && fit.spacing >= SURE_SPACING
}

/// Merges junctions found at several scales (in the order given): one junction per place and
/// polarity, with the strongest response and largest box; the most telling 1,500 are kept.
fn merge_junctions<'a>(per_scale: impl Iterator<Item = &'a Vec<Junction>>) -> Vec<Junction> {
    // A grid of 2-pixel cells finds neighbours fast.
    let mut junctions: Vec<Junction> = Vec::new();
    let mut cells: std::collections::HashMap<(i32, i32), Vec<usize>> = Default::default();
    let cell = |x: f32, y: f32| ((x / 2.0).floor() as i32, (y / 2.0).floor() as i32);
    for found in per_scale {
        for &j in found {
            let (cx, cy) = cell(j.x, j.y);
            let existing = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (cx + dx, cy + dy)))
                .filter_map(|key| cells.get(&key))
                .flatten()
                .copied()
                .find(|&i| {
                    let o = &junctions[i];
                    (o.x - j.x).abs() < 2.0 && (o.y - j.y).abs() < 2.0 && o.polarity == j.polarity
                });
            match existing {
                Some(i) => {
                    let o = &mut junctions[i];
                    o.response = o.response.max(j.response);
                    o.scale = o.scale.max(j.scale);
                }
                None => {
                    cells.entry((cx, cy)).or_default().push(junctions.len());
                    junctions.push(j);
                }
            }
        }
    }
    // Keep the most telling junctions: strong ones found with large boxes first (piece drawings
    // give many strong junctions, but only at small box sizes).
    let weight = |j: &Junction| j.response * (j.scale as f32).sqrt();
    junctions.sort_by(|a, b| weight(b).total_cmp(&weight(a)));
    junctions.truncate(1500);
    junctions
}

/// The best-scoring board among the lattices the junctions vote for; where none of them
/// matches [`SURE_MATCHED`] inner corners, also among the same lattices stretched across
/// ([`STRETCHES`]: a board seen at a slant), of which only a fit matching that many counts (a
/// stretched lattice fits clutter more easily, and an unsure board found here would keep the
/// colour channels from being searched in full).
fn best_fit(junctions: Vec<Junction>) -> Option<Fit> {
    let best_of = |hypotheses: &mut dyn Iterator<Item = Hypothesis>| {
        hypotheses
            .filter_map(|hypothesis| fit_hypothesis(&junctions, hypothesis))
            .filter(|fit| fit.matched >= MIN_MATCHED)
            .max_by(|a, b| a.score.total_cmp(&b.score))
    };
    let hypotheses = vote(&junctions);
    let square = best_of(&mut hypotheses.iter().copied());
    if square.is_some_and(|fit| fit.matched >= SURE_MATCHED) {
        return square;
    }
    let stretched = best_of(&mut hypotheses.iter().flat_map(|&hypothesis| {
        STRETCHES.map(|stretch| Hypothesis {
            stretch,
            ..hypothesis
        })
    }))
    .filter(|fit| fit.matched >= SURE_MATCHED);
    [square, stretched]
        .into_iter()
        .flatten()
        .max_by(|a, b| a.score.total_cmp(&b.score))
}

/// An edge line of the fitted board whose squares alternate less than this share of the board's
/// own light-dark difference is taken for something beside the board (a bar, a margin) ...
const EDGE_OFF_BOARD: f32 = 0.5;
/// ... when the line beyond the opposite edge alternates, with the board's parity, more than
/// this share: then the fit is one square off and is moved toward that line.
const BEYOND_ON_BOARD: f32 = 0.6;
/// No square of that line, but up to [`MARKED_IN_A_LINE`], may differ from the board's middle
/// grey by more than this many times half the board's light-dark difference: squares much
/// lighter or darker than the board's are not the board's (text beside a low-contrast board
/// alternates by chance). 3 until the fortieth session, when a photographed low-contrast board
/// fitted a row low was not moved back: its top rank, holding black pieces, differed from the
/// middle grey by 3.3 at most. At 3.5 it is, and no other picture of the measuring sets moved.
const BEYOND_MOST: f32 = 3.5;
/// How many squares of a line may be far lighter or darker than the board's ([`BEYOND_MOST`])
/// and the line still continue the board: a last move's two squares, highlighted in a colour
/// of their own, may both lie in one line. Until the sixty-sixth session none could: one
/// highlighted square in the line beyond kept a fit a row off a grey board (a screenshot of
/// the foreign designs, seed 8181: 42 squares wrong, all 64 flagged; now exact, one flagged)
/// and off a photographed one (held-out lichess designs, seed 2026: 31 squares wrong, now 8).
/// Leaving such squares out of how much the line alternates too was tried: it moved one more
/// photograph's fit onto its board, moved the seed-2026 one back off, and put three
/// photographs' right fits in doubt.
const MARKED_IN_A_LINE: usize = 2;
/// Fewest of the fit's 64 squares inside the picture for the edge check to act.
const MIN_SQUARES_INSIDE: usize = 48;
/// Fewest grey levels between the board's light and dark squares for the edge check to act.
const EDGE_MIN_CONTRAST: f32 = 6.0;

/// The greys of points just inside the border of square (`column`, `row`) of the lattice
/// (columns and rows -1 ..= 8; 0 ..= 7 are the board's), where pieces rarely reach: 12 along
/// each side. `None` when a point falls outside the picture.
fn border_greys(
    h: &Homography,
    gray: &[u8],
    width: usize,
    height: usize,
    column: i32,
    row: i32,
) -> Option<Vec<f32>> {
    const ALONG: [f64; 6] = [0.15, 0.29, 0.43, 0.57, 0.71, 0.85];
    const IN: [f64; 2] = [0.06, 0.14];
    // Lattice point (0, 0) is the first inner corner, so square (0, 0) spans -1 ..= 0.
    let (u0, v0) = (column as f64 - 1.0, row as f64 - 1.0);
    let mut values = Vec::with_capacity(ALONG.len() * IN.len() * 4);
    for &a in &ALONG {
        for &d in &IN {
            for (u, v) in [(a, d), (a, 1.0 - d), (d, a), (1.0 - d, a)] {
                let (x, y) = h.apply(u0 + u, v0 + v);
                if !(x >= 0.0 && y >= 0.0 && x < width as f64 && y < height as f64) {
                    return None;
                }
                values.push(gray[y as usize * width + x as usize] as f32);
            }
        }
    }
    Some(values)
}

/// The grey behind square (`column`, `row`) of the lattice: the median of its
/// [`border_greys`]. `None` when a point falls outside the picture.
fn square_background(
    h: &Homography,
    gray: &[u8],
    width: usize,
    height: usize,
    column: i32,
    row: i32,
) -> Option<f32> {
    border_greys(h, gray, width, height, column, row)
        .map(|mut values| crate::cover::median(&mut values))
}

/// The median backgrounds ([`square_background`]) of the fit's light and dark squares; `None`
/// when fewer than `least` of its squares lie in the picture ([`MIN_SQUARES_INSIDE`] for the
/// edge checks).
fn square_greys(
    h: &Homography,
    gray: &[u8],
    width: usize,
    height: usize,
    least: usize,
) -> Option<(f32, f32)> {
    let mut light = Vec::with_capacity(32);
    let mut dark = Vec::with_capacity(32);
    for row in 0..8 {
        for column in 0..8 {
            // A square outside the picture tells nothing about the board's greys (the lines
            // it is on count as off the board in `shift_onto_board`).
            let Some(g) = square_background(h, gray, width, height, column, row) else {
                continue;
            };
            if (column + row) % 2 == 0 {
                light.push(g);
            } else {
                dark.push(g);
            }
        }
    }
    if light.len() + dark.len() < least || light.is_empty() || dark.is_empty() {
        return None;
    }
    Some((
        crate::cover::median(&mut light),
        crate::cover::median(&mut dark),
    ))
}

/// How the lines of squares of a fit, and the lines beyond it, alternate light and dark like
/// the board's own squares.
struct Lines<'a> {
    h: &'a Homography,
    gray: &'a [u8],
    width: usize,
    height: usize,
    /// The middle grey between the board's light and dark squares, and half their difference.
    mid: f32,
    half: f32,
}

impl<'a> Lines<'a> {
    /// Measures the board's light and dark greys under the fit; `None` when too few of its
    /// squares lie in the picture or they barely differ (then the edges tell nothing).
    fn measure(h: &'a Homography, gray: &'a [u8], width: usize, height: usize) -> Option<Self> {
        let (l, d) = square_greys(h, gray, width, height, MIN_SQUARES_INSIDE)?;
        if (l - d).abs() < EDGE_MIN_CONTRAST {
            return None;
        }
        Some(Lines {
            h,
            gray,
            width,
            height,
            mid: (l + d) / 2.0,
            half: (l - d) / 2.0,
        })
    }

    /// How a line of squares looks against the board ([`LineLook`]); `None` when the line
    /// leaves the picture.
    fn look(&self, squares: &mut dyn Iterator<Item = (i32, i32)>) -> Option<LineLook> {
        let mut total = 0.0;
        // The largest departures from the middle grey, largest first: the last is `most`.
        let mut largest = [0.0f32; MARKED_IN_A_LINE + 1];
        let mut lowest = f32::MAX;
        let mut highest = f32::MIN;
        for (column, row) in squares {
            let sign = if (column + row).rem_euclid(2) == 0 {
                1.0
            } else {
                -1.0
            };
            let grey = square_background(self.h, self.gray, self.width, self.height, column, row)?;
            let score = (grey - self.mid) * sign / self.half;
            total += score;
            let departure = score.abs();
            if let Some(i) = largest.iter().position(|&d| departure > d) {
                largest[i..].rotate_right(1);
                largest[i] = departure;
            }
            lowest = lowest.min(grey);
            highest = highest.max(grey);
        }
        Some(LineLook {
            alternates: total / 8.0,
            most: largest[MARKED_IN_A_LINE],
            spread: (highest - lowest) / (2.0 * self.half.abs()),
        })
    }

    /// Column `c` of the lattice's squares (-1 ..= 8; 0 ..= 7 are the fit's own).
    fn column(&self, c: i32) -> Option<LineLook> {
        self.look(&mut (0..8).map(move |r| (c, r)))
    }

    /// Row `r` of the lattice's squares.
    fn row(&self, r: i32) -> Option<LineLook> {
        self.look(&mut (0..8).map(move |c| (c, r)))
    }
}

/// How a line of squares (a column or row of the lattice) looks against the board's own light
/// and dark squares.
#[derive(Clone, Copy, Debug)]
struct LineLook {
    /// How much it alternates like the board: 1 for the board's own lines, about 0 for a plain
    /// margin.
    alternates: f32,
    /// The largest departure of one of its squares from the board's middle grey, in half
    /// light-dark differences, leaving out the [`MARKED_IN_A_LINE`] squares that depart most.
    most: f32,
    /// How far apart its squares' backgrounds lie, in light-dark differences: about 1 for the
    /// board's own lines, near 0 for a plain margin or bar.
    spread: f32,
}

/// Whether a line beyond the fit continues the board: it alternates with the board's parity
/// ([`BEYOND_ON_BOARD`]) in greys like the board's ([`BEYOND_MOST`]).
fn continues_board(found: Option<LineLook>) -> bool {
    found.is_some_and(|line| line.alternates > BEYOND_ON_BOARD && line.most <= BEYOND_MOST)
}

/// Whether the checkered area the fit lies on is larger than 8 squares in a direction: two
/// lines beyond its edges (one beyond each, or two beyond one) continue the board. A draughts
/// board (10x10) is so; a chessboard, once the fit is on it, is not.
fn more_than_eight_lines(h: &Homography, gray: &[u8], width: usize, height: usize) -> bool {
    let Some(lines) = Lines::measure(h, gray, width, height) else {
        return false;
    };
    let beyond = |line: &dyn Fn(i32) -> Option<LineLook>| {
        let count = |first: i32, second: i32| {
            if continues_board(line(first)) {
                1 + usize::from(continues_board(line(second)))
            } else {
                0
            }
        };
        count(-1, -2) + count(8, 9) >= 2
    };
    beyond(&|c| lines.column(c)) || beyond(&|r| lines.row(r))
}

/// A line of squares whose backgrounds lie within this share of the board's light-dark
/// difference of each other is plain (a margin, a bar), not the board's. Sixty-third session:
/// a fit whose plain first line lies in the picture while the line beyond its last leaves it is
/// moved toward that edge ([`shift_once`]). On seed 2026's 600 pictures cropped through the
/// board (`scripts/measuring-copies.py cut`, 538 copies; boards among bars and panels, so a
/// margin shows on the side not cut) squares read right 87.5 -> 89.7%, corner error 3.03 ->
/// 2.30% of the board's side, boards exact 41.3 -> 42.0% (those cut 0.2-0.6 squares deep the
/// same); on book pages (`--all-boards`, 820 pages of six measuring sets) six diagrams cut by the
/// page's edge were placed right instead of a square off (2,139 -> 2,145 of 2,178 found where
/// drawn). Taking a first line that alternates less than [`EDGE_OFF_BOARD`] for plain instead
/// moved correct fits of boards cut 0.6 squares deep whose first line held highlights (boards
/// exact there 61.0 -> 58.4%). Every other measuring picture reads the same.
const PLAIN_SPREAD: f32 = 0.25;

/// Most squares [`shift_onto_board`] moves a fit in each direction.
const MOST_SHIFTS: usize = 2;

/// Moves the fit back onto the board where it has slid off it, a square at a time and at most
/// [`MOST_SHIFTS`] times ([`shift_once`]): a fit to the 7x7 inner corners can slide so on
/// photographs whose outer junctions are faint, by two squares where two lines of a frame or a
/// margin alternate faintly too (fortieth session: one photograph of the foreign designs, seed
/// 31337, 34 squares wrong -> exact; nothing else moved on the measuring sets). Returns the
/// homography and whether the fit is in doubt (see [`shift_once`]).
fn shift_onto_board(h: Homography, gray: &[u8], width: usize, height: usize) -> (Homography, bool) {
    let mut fit = h;
    for _ in 0..MOST_SHIFTS {
        let (moved, in_doubt, did_move) = shift_once(fit, gray, width, height);
        fit = moved;
        if in_doubt || !did_move {
            return (fit, in_doubt);
        }
    }
    (fit, false)
}

/// Moves the fit by one square where it has slid off the board: the board's first line is
/// outside it (a bar or margin, not alternating light and dark) while the line beyond its last
/// line alternates like the board, or leaves the picture where the first line is plain (the
/// picture cuts through the board there, as a screenshot cropped through it). Returns the
/// homography unchanged otherwise, whether the fit is in doubt: an edge looked off the board
/// while the line beyond the other edge alternated only with squares far lighter or darker than
/// the board's (so the fit was not moved), or both edge lines of one direction looked off the
/// board; and whether it moved.
fn shift_once(h: Homography, gray: &[u8], width: usize, height: usize) -> (Homography, bool, bool) {
    let Some(lines) = Lines::measure(&h, gray, width, height) else {
        return (h, false, false);
    };
    // The fit's own lines (0 and 7) that leave the picture are off the board; a line beyond
    // them that leaves the picture is not a place to move to (`None`).
    let own = |found: Option<LineLook>| {
        found.or(Some(LineLook {
            alternates: 0.0,
            most: 0.0,
            spread: 0.0,
        }))
    };
    let off = |found: Option<LineLook>| found.is_some_and(|line| line.alternates < EDGE_OFF_BOARD);
    // Whether the fit looks slid toward the line beyond its last one: `Some(true)` when it
    // should move, `Some(false)` when it looks so but the squares beyond are too stark to be
    // the board's, `None` when it does not look slid.
    let slide = |first: Option<LineLook>, beyond_last: Option<LineLook>| match (first, beyond_last)
    {
        (Some(first), Some(beyond))
            if first.alternates < EDGE_OFF_BOARD && beyond.alternates > BEYOND_ON_BOARD =>
        {
            Some(beyond.most <= BEYOND_MOST)
        }
        _ => None,
    };
    // Whether the fit looks slid off a board the picture cuts through: its first line lies in
    // the picture and is plain (a margin or bar before the board, `PLAIN_SPREAD`) while the
    // line beyond its last leaves the picture, where the board goes on (`Some(true)`).
    let cut = |first: Option<LineLook>, beyond_last: Option<LineLook>| {
        (first.is_some_and(|line| line.spread < PLAIN_SPREAD) && beyond_last.is_none())
            .then_some(true)
    };
    let mut in_doubt = false;
    // For the columns (`true`) or the rows: +1 to move toward higher indices, -1 toward lower.
    let mut step = |columns: bool| -> f64 {
        let [before, first, last, after] = [-1, 0, 7, 8].map(|i| {
            if columns {
                lines.column(i)
            } else {
                lines.row(i)
            }
        });
        // Both edge lines inside the picture and neither alternating like the board: the fit
        // is not on the board's squares at all (a grid a square or more off in a glary
        // photograph), whatever the lines beyond say.
        in_doubt |= off(first) && off(last);
        let forward = slide(own(first), after).or_else(|| cut(first, after));
        let backward = slide(own(last), before).or_else(|| cut(last, before));
        match (forward, backward) {
            (Some(true), None) => 1.0,
            (None, Some(true)) => -1.0,
            (None, None) => 0.0,
            _ => {
                in_doubt = true;
                0.0
            }
        }
    };
    let (du, dv) = (step(true), step(false));
    if du == 0.0 && dv == 0.0 {
        return (h, in_doubt, false);
    }
    let translate = [1.0, 0.0, du, 0.0, 1.0, dv, 0.0, 0.0, 1.0];
    (Homography(mul3(&h.0, &translate)), in_doubt, true)
}

/// How surely a fit lies on a board's squares: the share of its 64 squares whose background
/// ([`square_background`]) stands on the side of the board's middle grey their parity gives
/// them, by at least [`SQUARE_AGREES_FROM`] of half the light-dark difference (a plain area or
/// a lattice a row off: about half). `None` where its squares barely differ or leave the
/// picture.
fn checkered(h: &Homography, gray: &[u8], width: usize, height: usize) -> Option<f32> {
    let lines = Lines::measure(h, gray, width, height)?;
    let mut agreeing = 0;
    for row in 0..8 {
        for column in 0..8 {
            let sign = if (column + row) % 2 == 0 { 1.0 } else { -1.0 };
            let grey = square_background(h, gray, width, height, column, row)?;
            if (grey - lines.mid) * sign / lines.half >= SQUARE_AGREES_FROM {
                agreeing += 1;
            }
        }
    }
    Some(agreeing as f32 / 64.0)
}

/// See [`checkered`].
const SQUARE_AGREES_FROM: f32 = 0.5;

/// A board filling the picture is taken where at least this share of its squares agree with
/// their parity ([`checkered`]) and the lattice found gave no sure board.
const WHOLE_PICTURE_FROM: f32 = 0.9;

/// The box that averages hatched squares before [`checkered`] measures a board filling the
/// picture spans the picture's shorter side over this (a 24th of a square, reaching 4% into a
/// square from the points sampled 6% in).
const BLUR_PER_SIDE: usize = 192;

/// ... and where that share is at least this much more than the lattice's (a lattice fitted to
/// the board's own corners agrees as well, and fits a board not quite filling the picture
/// better).
const WHOLE_PICTURE_BETTER_BY: f32 = 0.15;

/// Sides of a picture (width over height) that a board filling it may have.
const WHOLE_PICTURE_ASPECT: std::ops::RangeInclusive<f32> = 0.9..=1.11;

/// Outer lines of pixels that vary by at most this many grey levels are plain margins (a frame,
/// a page, a plain background) around a board filling the rest of the picture.
const FRAME_VARIES_UNDER: u8 = 8;

/// The picture less the plain lines of pixels around it, however many: left, top, right,
/// bottom edges, exclusive at the right and bottom.
fn inside_frame(gray: &[u8], width: usize, height: usize) -> (usize, usize, usize, usize) {
    let plain = |pixels: &mut dyn Iterator<Item = u8>| {
        let (low, high) = pixels.fold((u8::MAX, u8::MIN), |(l, h), g| (l.min(g), h.max(g)));
        high.saturating_sub(low) <= FRAME_VARIES_UNDER
    };
    let (mut left, mut top, mut right, mut bottom) = (0, 0, width, height);
    // A board keeps at least 24 pixels a side.
    const LEAST: usize = 24;
    while right > left + LEAST && plain(&mut (top..bottom).map(|y| gray[y * width + left])) {
        left += 1;
    }
    while right > left + LEAST && plain(&mut (top..bottom).map(|y| gray[y * width + right - 1])) {
        right -= 1;
    }
    while bottom > top + LEAST && plain(&mut (left..right).map(|x| gray[top * width + x])) {
        top += 1;
    }
    while bottom > top + LEAST && plain(&mut (left..right).map(|x| gray[(bottom - 1) * width + x]))
    {
        bottom -= 1;
    }
    (left, top, right, bottom)
}

/// The grey picture averaged over boxes of `2 * radius + 1` pixels (fewer at its edges), so
/// that hatched or stippled squares show their mean grey.
fn box_blurred(gray: &[u8], width: usize, height: usize, radius: usize) -> Vec<u8> {
    let integral = Integral::new(gray, width, height);
    let mut out = Vec::with_capacity(gray.len());
    for y in 0..height {
        let (y0, y1) = (y.saturating_sub(radius), (y + radius + 1).min(height));
        for x in 0..width {
            let (x0, x1) = (x.saturating_sub(radius), (x + radius + 1).min(width));
            let area = ((x1 - x0) * (y1 - y0)) as u32;
            out.push((integral.sum(x0, y0, x1, y1) / area) as u8);
        }
    }
    out
}

/// The board that fills the picture, or what lies inside its plain margins: the lattice whose
/// outer corners are that area's, and how surely it lies on a board's squares ([`checkered`],
/// measured on `blurred`). A cropped screenshot of a board crowded with pieces hides most of
/// its inner corners from the junction detector, while the backgrounds along its squares'
/// borders still alternate.
fn whole_picture_fit(
    gray: &[u8],
    blurred: &[u8],
    width: usize,
    height: usize,
) -> Option<(Homography, f32)> {
    let framed = inside_frame(gray, width, height);
    [(0, 0, width, height), framed]
        .into_iter()
        .filter(|&(left, top, right, bottom)| {
            let (w, h) = (right.saturating_sub(left), bottom.saturating_sub(top));
            h >= 24 && WHOLE_PICTURE_ASPECT.contains(&(w as f32 / h as f32))
        })
        .filter_map(|(left, top, right, bottom)| {
            let h = Homography::spanning(left as f64, top as f64, right as f64, bottom as f64);
            Some((h, checkered(&h, blurred, width, height)?))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|&(_, surely)| surely >= WHOLE_PICTURE_FROM)
}

/// The grey level of a colour (the weights of ITU-R BT.601, in integers).
fn luma([r, g, b]: [u8; 3]) -> u8 {
    ((u32::from(r) * 77 + u32::from(g) * 150 + u32::from(b) * 29) >> 8) as u8
}

/// Steps 1-4 on one grey plane: the best board, or `None`. With `large_only` the small boxes
/// are never searched.
fn search(gray: &[u8], width: usize, height: usize, large_only: bool) -> Option<Fit> {
    let integral = Integral::new(gray, width, height);
    // Large boxes first: they are cheap (coarse steps) and enough for a board whose squares
    // are large, since the fit keeps only junctions found with boxes of at least an eighth of
    // a square. Small boxes, three quarters of the work, are searched only when that fails.
    // When every box size together finds nothing (the small boxes add the many junctions of
    // ornate pieces crowding a board), the large boxes' board, if any, is the answer.
    let large = large_box_junctions(&integral);
    let by_large = best_fit(merge_junctions(large.iter()));
    match by_large {
        Some(fit) if is_sure(&fit) => Some(fit),
        found if large_only => found,
        _ => {
            let small: Vec<Vec<Junction>> = SCALES[..SMALL_SCALES]
                .par_iter()
                .map(|&scale| junctions_at(&integral, scale))
                .collect();
            best_fit(merge_junctions(small.iter().chain(&large))).or(by_large)
        }
    }
}

/// The turns (degrees) at which the grey picture is searched again when it and its colour
/// channels give no board: the junction detector's boxes stand upright, so a board turned far
/// loses most of its junctions (a plain board from about 40 degrees, a crowded one from 8).
/// Turned back by one of these, a board turned any way stands within 7.5 degrees of upright
/// or of a quarter turn (which looks the same to the locator).
const RETRY_TURNS: [f64; 5] = [15.0, -15.0, 30.0, -30.0, 45.0];

/// A board found turned back ([`search_turned`]) replaces an unsure board found upright when
/// it matches this many more inner corners. Twenty-sixth session: on the crooked copies
/// (below) at 30 degrees, two boards fitted a row or a column off upright were fitted right
/// (corner error over all 120 pictures 0.79 -> 0.17%, boards exact 82.5 -> 84.2%); on the
/// measuring sets two photographs of the fonts got their grid right (corners 50% and 18% of the
/// board's side off before) and nothing else moved but one foreign photograph's squares, better;
/// pictures with an unsure board take about 10% longer (`fenlens eval` over a set: 26-33 ->
/// 29-36 ms a picture).
const TURNED_BETTER_BY: usize = 8;

/// Searches the grey picture turned by each of [`RETRY_TURNS`] (about its centre, on a canvas
/// that holds all of it) and gives the first board found that matches [`SURE_MATCHED`] inner
/// corners, its homography mapped back to the picture as it is. Twenty-sixth session: 120
/// clean pictures of held-out designs turned by 3-30 degrees on a wider dark ground, 20 at each
/// angle: boards found at 15 / 20 / 30 degrees 95 / 95 / 60% -> 100%, boards exact over all
/// 75.0 -> 82.5%. Only pictures in which nothing else found a board pay for it: a 1000x800
/// picture without one takes 0.25 s instead of 0.06 s (0.32 s before the turns were searched
/// in parallel, twenty-seventh session).
fn search_turned(gray: &[u8], width: usize, height: usize, turns: &[f64]) -> Option<Fit> {
    let side = ((width * width + height * height) as f64).sqrt().ceil() as usize;
    let mean = gray.iter().map(|&g| g as f64).sum::<f64>() / gray.len().max(1) as f64;
    let (cx, cy) = (width as f64 / 2.0, height as f64 / 2.0);
    let centre = side as f64 / 2.0;
    // The turns in parallel, the first in order that fits kept (the same fits as one by one):
    // one picture alone gets both cores; in a batch rayon keeps them busy with other pictures.
    turns.par_iter().find_map_first(|&degrees| {
        let (sin, cos) = degrees.to_radians().sin_cos();
        // Canvas pixel -> picture pixel: turn back about the centres.
        let to_picture = |x: f64, y: f64| {
            let (dx, dy) = (x - centre, y - centre);
            (cx + cos * dx + sin * dy, cy - sin * dx + cos * dy)
        };
        let mut turned = vec![mean as u8; side * side];
        for y in 0..side {
            for x in 0..side {
                let (px, py) = to_picture(x as f64 + 0.5, y as f64 + 0.5);
                let (px, py) = (px - 0.5, py - 0.5);
                if px < 0.0 || py < 0.0 || px >= (width - 1) as f64 || py >= (height - 1) as f64 {
                    continue;
                }
                let (x0, y0) = (px as usize, py as usize);
                let (fx, fy) = (px - x0 as f64, py - y0 as f64);
                let at = |xx: usize, yy: usize| gray[yy * width + xx] as f64;
                let top = at(x0, y0) * (1.0 - fx) + at(x0 + 1, y0) * fx;
                let bottom = at(x0, y0 + 1) * (1.0 - fx) + at(x0 + 1, y0 + 1) * fx;
                turned[y * side + x] = (top * (1.0 - fy) + bottom * fy).round() as u8;
            }
        }
        // A lattice on one background is no board here either (the line grid of a go board
        // or a crossword turned by 45 degrees fits surely between its lines). One crossed by
        // bands is left to the checks after the search: passed over here, another turn's fit to
        // a corner of the stripes was taken instead of the one found first, which those checks
        // turn down (`crossed_by_bands`).
        let fit = search(&turned, side, side, false).filter(|fit| {
            fit.matched >= SURE_MATCHED && !one_background(&fit.homography, &turned, side, side)
        })?;
        // The same map as `to_picture`, as a matrix, after the fit's lattice -> canvas map.
        let back = [
            cos,
            sin,
            cx - cos * centre - sin * centre,
            -sin,
            cos,
            cy + sin * centre - cos * centre,
            0.0,
            0.0,
            1.0,
        ];
        Some(Fit {
            homography: Homography(mul3(&back, &fit.homography.0)),
            ..fit
        })
    })
}

/// The picture shrunk `block` times: each pixel the mean of a `block`x`block` block (fewer
/// pixels at the right and bottom edges, where the picture's side is not a multiple of it).
fn box_shrink(image: &RgbImage, block: u32) -> RgbImage {
    let (w, h) = image.dimensions();
    let (out_w, out_h) = (w.div_ceil(block), h.div_ceil(block));
    let mut out = RgbImage::new(out_w, out_h);
    let mut sums = vec![0u32; out_w as usize * 3];
    let stride = w as usize * 3;
    for out_y in 0..out_h {
        sums.fill(0);
        let rows = out_y * block..((out_y + 1) * block).min(h);
        let height = rows.len() as u32;
        for y in rows {
            let row = &image.as_raw()[y as usize * stride..(y as usize + 1) * stride];
            for (x, pixel) in row.chunks_exact(3).enumerate() {
                let at = (x / block as usize) * 3;
                for (sum, &value) in sums[at..at + 3].iter_mut().zip(pixel) {
                    *sum += u32::from(value);
                }
            }
        }
        for out_x in 0..out_w {
            let width = block.min(w - out_x * block);
            let count = width * height;
            let at = out_x as usize * 3;
            let mean = |c: usize| ((sums[at + c] + count / 2) / count) as u8;
            out.put_pixel(out_x, out_y, image::Rgb([mean(0), mean(1), mean(2)]));
        }
    }
    out
}

/// Finds the board in a picture.
pub fn locate(image: &RgbImage) -> Result<Located, VisionError> {
    locate_with(image, &RETRY_TURNS)
}

/// The turns searched for a further board of a page whose first board was found
/// ([`locate_all`]): the first two of [`RETRY_TURNS`], 15 degrees either way.
const FURTHER_BOARD_TURNS: &[f64] = RETRY_TURNS.as_slice().split_at(2).0;

/// [`locate`], searching the picture turned by `turns` ([`search_turned`]) where nothing
/// upright fits.
fn locate_with(image: &RgbImage, turns: &[f64]) -> Result<Located, VisionError> {
    let (work, factor) = working_picture(image)?;
    locate_in_work(work.as_ref().unwrap_or(image), factor, turns)
}

/// The picture the search runs on: shrunk to at most [`WORK_SIZE`] pixels a side (`None`
/// where it is that small already), and the factor it was shrunk by. [`VisionError::NoBoard`]
/// for a picture under 24 pixels a side.
fn working_picture(image: &RgbImage) -> Result<(Option<RgbImage>, f32), VisionError> {
    let (w, h) = image.dimensions();
    if w < 24 || h < 24 {
        return Err(VisionError::NoBoard);
    }
    let factor = (WORK_SIZE as f32 / w.max(h) as f32).min(1.0);
    if factor >= 1.0 {
        return Ok((None, factor));
    }
    // A picture twice the working size or more is first averaged over blocks of pixels, which
    // needs no buffer beyond the result; the resize's own buffer of floats for a 4000-pixel
    // picture (50 MB) was most of its peak memory.
    let block = w.max(h) / WORK_SIZE;
    let shrunk = (block >= 2).then(|| box_shrink(image, block));
    let resized = image::imageops::resize(
        shrunk.as_ref().unwrap_or(image),
        ((w as f32 * factor).round() as u32).max(1),
        ((h as f32 * factor).round() as u32).max(1),
        FilterType::Triangle,
    );
    Ok((Some(resized), factor))
}

/// Steps 1-7 on the working picture ([`working_picture`]), shrunk from the picture by
/// `factor`; the corners are the picture's.
fn locate_in_work(work: &RgbImage, factor: f32, turns: &[f64]) -> Result<Located, VisionError> {
    let (ww, wh) = (work.width() as usize, work.height() as usize);
    let luma: Vec<u8> = work.pixels().map(|p| luma(p.0)).collect();
    // Two square colours of almost one brightness (cream and yellow-green, pink and green, a
    // pale board under glare) leave few junctions in the grey picture; one of the colour
    // channels still tells them apart. The channels are searched only when the grey picture
    // gives no sure board: none, or a small one, which may be a thumbnail beside the real
    // board. A channel's board replaces the grey one's only when it is another, larger board
    // (squares over `DIFFERENT_BOARD` times as large) and scores higher: where both planes
    // find the same board, their scores do not tell which fit is better. Such a larger board
    // is found with the large boxes, so only they are searched in the channels then (a
    // quarter of the work).
    let by_luma = search(&luma, ww, wh, false);
    // The board found and the channel plane it was found on (`None`: the grey picture).
    let mut found: Option<(Fit, Option<Vec<u8>>)> = match by_luma {
        Some(fit) if is_sure(&fit) => Some((fit, None)),
        _ => {
            // In a grey picture every channel is the grey plane (`luma` of equal channels is
            // that value): where it gave no board, neither would they.
            let grey =
                by_luma.is_none() && work.pixels().all(|p| p.0[0] == p.0[1] && p.0[1] == p.0[2]);
            let by_channel = (0..3)
                .filter(|_| !grey)
                .filter_map(|channel| {
                    let plane: Vec<u8> = work.pixels().map(|p| p.0[channel]).collect();
                    search(&plane, ww, wh, by_luma.is_some()).map(|fit| (fit, plane))
                })
                .max_by(|(a, _), (b, _)| a.score.total_cmp(&b.score));
            match (by_luma, by_channel) {
                (Some(fit), Some((other, plane)))
                    if other.spacing > DIFFERENT_BOARD * fit.spacing && other.score > fit.score =>
                {
                    Some((other, Some(plane)))
                }
                (Some(fit), _) => Some((fit, None)),
                (None, Some((fit, plane))) => Some((fit, Some(plane))),
                (None, None) => None,
            }
        }
    };
    // No board, or an unsure one: a board filling the picture whose squares alternate more
    // surely than the fit's is taken (a crowded board hides most of its inner corners).
    let unsure = found
        .as_ref()
        .is_none_or(|(fit, _)| fit.matched < SURE_MATCHED);
    let blurred = unsure.then(|| box_blurred(&luma, ww, wh, (ww.min(wh) / BLUR_PER_SIDE).max(1)));
    let whole = blurred.as_deref().and_then(|blurred| {
        let (whole, surely) = whole_picture_fit(&luma, blurred, ww, wh)?;
        // The fit is measured on the same grey picture as the board filling it, even where a
        // colour channel found it: the two are weighed by one measure.
        let fitted = found
            .as_ref()
            .and_then(|(fit, _)| checkered(&fit.homography, blurred, ww, wh));
        fitted
            .is_none_or(|fitted| surely >= fitted + WHOLE_PICTURE_BETTER_BY)
            .then_some(whole)
    });
    if let Some(homography) = whole {
        found = Some((
            Fit {
                homography,
                matched: 0,
                score: 0.0,
                spacing: (ww.min(wh) / 8) as f32,
            },
            None,
        ));
    }
    // No board, or an unsure one (a crooked board fitted a row off): turned back, it may fit
    // surely.
    let turned = match &found {
        _ if whole.is_some() => None,
        Some((fit, _)) if fit.matched >= SURE_MATCHED => None,
        _ => search_turned(&luma, ww, wh, turns),
    };
    let (best, plane) = match (found, turned) {
        (Some((fit, _)), Some(turned)) if turned.matched >= fit.matched + TURNED_BETTER_BY => {
            (turned, None)
        }
        (Some(found), _) => found,
        (None, Some(turned)) => (turned, None),
        (None, None) => return Err(VisionError::NoBoard),
    };
    let gray: &[u8] = plane.as_deref().unwrap_or(&luma);
    let (homography, edge_in_doubt) = shift_onto_board(best.homography, gray, ww, wh);
    // A larger checkered board (draughts' 10x10) is no chessboard, though any 8x8 part of it
    // fits like one.
    if more_than_eight_lines(&homography, gray, ww, wh) {
        return Err(VisionError::NoBoard);
    }
    if whole.is_none() && lattice_is_no_board(&homography, best.matched, gray, ww, wh) {
        return Err(VisionError::NoBoard);
    }
    let corner = |u: f64, v: f64| {
        let (x, y) = homography.apply(u, v);
        [x as f32 / factor, y as f32 / factor]
    };
    let raw = [
        corner(-1.0, -1.0),
        corner(7.0, -1.0),
        corner(7.0, 7.0),
        corner(-1.0, 7.0),
    ];
    if raw.iter().any(|p| !p[0].is_finite() || !p[1].is_finite()) {
        return Err(VisionError::NoBoard);
    }
    Ok(Located {
        corners: order_corners(raw),
        matched: best.matched,
        edge_in_doubt,
    })
}

/// Whether a fitted lattice (`matched` inner corners) is no board, though it fits:
/// - its squares are all one background (lines of text; the line grids of go boards,
///   crosswords and graph paper: [`one_background`]), or bands of the other colour cross them
///   (stripes: [`crossed_by_bands`]);
/// - it is unsure and more than two lines of its squares lie outside the picture (a
///   checkerboard of 5 squares a side in the picture's corner: [`UNSURE_SQUARES_INSIDE`]);
/// - it is turned far from the picture's axes and runs out of the picture (a grid of blobs,
///   such as a phone's icons or graph paper's crossings, is a checkerboard turned 45 degrees
///   and fits one as far as the picture goes: [`TURNED_DEGREES`]).
fn lattice_is_no_board(
    h: &Homography,
    matched: usize,
    gray: &[u8],
    width: usize,
    height: usize,
) -> bool {
    if one_background(h, gray, width, height) || crossed_by_bands(h, gray, width, height) {
        return true;
    }
    let inside = squares_inside(h, width, height);
    (matched < SURE_MATCHED && inside < UNSURE_SQUARES_INSIDE)
        || (inside < 64 && least_edge_turn(h) >= TURNED_DEGREES)
}

/// How many of the fit's 64 squares have their centre in the picture.
fn squares_inside(h: &Homography, width: usize, height: usize) -> usize {
    (0..8)
        .flat_map(|row| (0..8).map(move |column| (column, row)))
        .filter(|&(column, row)| {
            // Lattice point (0, 0) is the first inner corner: square (0, 0) spans -1 ..= 0.
            let (x, y) = h.apply(column as f64 - 0.5, row as f64 - 0.5);
            x >= 0.0 && y >= 0.0 && x < width as f64 && y < height as f64
        })
        .count()
}

/// How far the fit's board is turned from the picture's axes, in degrees (0-45): the least
/// of its four edges' turns, each from the nearer axis. A board seen in perspective keeps
/// two edges near an axis however its sides converge; a board turned keeps none.
fn least_edge_turn(h: &Homography) -> f64 {
    let corners = [(-1.0, -1.0), (7.0, -1.0), (7.0, 7.0), (-1.0, 7.0)].map(|(u, v)| h.apply(u, v));
    (0..4)
        .map(|k| {
            let ((x0, y0), (x1, y1)) = (corners[k], corners[(k + 1) % 4]);
            let degrees = (y1 - y0).atan2(x1 - x0).to_degrees().abs() % 90.0;
            degrees.min(90.0 - degrees)
        })
        .fold(f64::INFINITY, f64::min)
}

/// A lattice turned this far or further ([`least_edge_turn`]) must have all its squares in the
/// picture ([`squares_inside`]) to be taken for a board. Grids of blobs (icon screens, graph
/// paper) are fitted turned 42-45 degrees with 48-58 squares inside; of the 6,555 boards found
/// on the measuring pictures, the only ones turned 20 degrees or more are photographs turned
/// 30 degrees, whole in the picture.
const TURNED_DEGREES: f64 = 25.0;

/// An unsure lattice (under [`SURE_MATCHED`] inner corners) with fewer than this many of its
/// squares in the picture ([`squares_inside`]) is no board: more than two lines of it lie
/// outside, as where a checkerboard of 5 squares a side stands in the picture's corner
/// and the fit takes in squares beyond it. A board the picture cuts through is read with up to
/// two lines of it outside (a photographed page's last diagram, cut at the page's foot); a
/// checkerboard of 6 or 7 squares a side by the edge is then read as such a board too.
const UNSURE_SQUARES_INSIDE: usize = 48;

/// Whether the fit's light and dark squares stand on one background: their medians
/// ([`square_greys`]) differ by less than [`EDGE_MIN_CONTRAST`] grey levels. A lattice that does
/// so is no board: lines of text give junctions enough for a lattice between their letters, and
/// a go board's, a crossword's or graph paper's lines, seen turned 45 degrees, for a sure one
/// between their lines, but all its squares are paper or wood. `false` where too few squares
/// lie in the picture to tell.
///
/// Sixty-second session, on pages of made-up words in 9-24 pixel type (DejaVu's 22 fonts, light
/// and dark pages, 600-1920 pixels): of 120 pages, 18 were taken for a board, 16 of them with
/// squares differing by 0 grey levels and two by 8 and 9; this rule leaves those 2. Of 200 pages
/// drawn afterwards with another seed, 21 were taken for a board before and 1 after. On the
/// measuring sets, the 40 unsure lattices among 6,459 pictures differ by 10 grey levels or more,
/// and `fenlens recognize --json` gives the same bytes on all 9,762 pictures.
///
/// Sixty-third session: the rule holds for sure lattices too, and for those found turned
/// (`search_turned`). Of 330 pictures of `scripts/grid-pictures.py` (spreadsheets, calendars,
/// graph paper, stripes, small checkerboards, sudoku, go boards, tiles, crosswords, icons,
/// keyboards; seeds 7 and 99) 21 go boards, crosswords, sheets of graph paper, a sudoku and a
/// tiled wall were taken for a board (the eight of seed 7: sure lattices found turned, their
/// squares differing by 0 grey levels); none are now, and 1 of 23 on seed 5, drawn
/// afterwards. The 3,888 sure lattices among 3,915 pictures of nine measuring sets (seeds 2026,
/// 777, 5150, 6161 and copies of seed 2026) differ by 14 grey levels or more.
fn one_background(h: &Homography, gray: &[u8], width: usize, height: usize) -> bool {
    square_greys(h, gray, width, height, MIN_SQUARES_INSIDE)
        .is_some_and(|(light, dark)| (light - dark).abs() < EDGE_MIN_CONTRAST)
}

/// Whether the fit's squares are crossed by bands of the other colour: on a median square of
/// each colour at least [`CROSSED_SHARE`] of the [`border_greys`] lie on the other colour's side
/// of the middle grey (by [`SQUARE_AGREES_FROM`] of half the light-dark difference). A board's
/// square is one colour out to its border, where pieces rarely reach; a lattice fitted to
/// slanted or upright stripes, whose corners sit where the bands' edges cross the lattice's
/// lines, has those edges cutting through every square. `false` where fewer than
/// [`CROSSED_SQUARES_INSIDE`] squares lie in the picture or light and dark barely differ.
///
/// Sixty-fourth session, with `scripts/grid-pictures.py` (seeds 5, 7 and 99): the fits of the
/// 19 pictures of stripes taken for a board had 0.25-0.42 of a median square's border points
/// in the other colour (the lower of the two colours' medians), 17 of them 0.375 or more; the
/// fits of every measuring picture (seeds 2026, 777, 5150, 6161, 8181, 9292, their copies and
/// the devset, 6,355 pictures) 0.21 at most, nearly all 0. Those 17 are no board now, and on
/// seed 11, drawn afterwards, 6 of 6.
fn crossed_by_bands(h: &Homography, gray: &[u8], width: usize, height: usize) -> bool {
    let Some((light, dark)) = square_greys(h, gray, width, height, CROSSED_SQUARES_INSIDE) else {
        return false;
    };
    if (light - dark).abs() < EDGE_MIN_CONTRAST {
        return false;
    }
    let (mid, half) = ((light + dark) / 2.0, (light - dark) / 2.0);
    // The share of each square's border greys on the other colour's side: dark squares', then
    // light squares'.
    let mut shares: [Vec<f32>; 2] = [Vec::with_capacity(32), Vec::with_capacity(32)];
    for row in 0..8 {
        for column in 0..8 {
            let Some(greys) = border_greys(h, gray, width, height, column, row) else {
                continue;
            };
            let is_light = (column + row) % 2 == 0;
            let sign = if is_light { 1.0 } else { -1.0 };
            let other = greys
                .iter()
                .filter(|&&g| (g - mid) * sign / half <= -SQUARE_AGREES_FROM)
                .count();
            shares[usize::from(is_light)].push(other as f32 / greys.len() as f32);
        }
    }
    let [dark_share, light_share] = shares.map(|mut s| crate::cover::median(&mut s));
    dark_share.min(light_share) >= CROSSED_SHARE
}

/// See [`crossed_by_bands`]: a third of a square's border, where real boards' fits have a fifth
/// at most.
const CROSSED_SHARE: f32 = 0.3;

/// Fewest squares in the picture for [`crossed_by_bands`] to tell: half the board (a sure
/// lattice on stripes filling the picture may reach beyond it).
const CROSSED_SQUARES_INSIDE: usize = 32;

/// How far beyond a found board's edges [`locate_all`] paints over it, in squares: enough to
/// cover a frame and coordinates drawn in a margin, so that no edge of it is found again.
const PAINTED_BEYOND: f32 = 0.6;

/// Inner corners (of 49) a board after the first must match to count in [`locate_all`]. On the
/// book pages of five measuring sets (620 pictures, 1,655 diagrams, two to six on most pages),
/// boards found in the right place / found a square or so off: 40 (the locator's sure
/// lattice) 1,619 / 4, 30 1,633 / 8, 20 1,635 / 13. The boards found off
/// are real diagrams on photographed, curled pages; no text or figure was taken for a board.
const ANOTHER_BOARD_MATCHED: usize = 30;

/// Every board in the picture, in reading order (by rows of boards from the top, each row from
/// the left), at most `most`: a page of a book with several diagrams, a screen with two boards.
/// The first board is found as [`locate`] finds it, then painted over with the picture's
/// typical colour and the picture searched again, until no board is found, a board found is
/// unsure ([`ANOTHER_BOARD_MATCHED`]) or lies inside one found before. The searches after the
/// first turn the picture only 15 degrees either way ([`FURTHER_BOARD_TURNS`]): the last
/// search, which finds nothing, was most of a page's time, and no further board of the
/// measuring sets needed more (sixty-first session: 0.37 -> 0.28 s a book page, the same
/// boards found). The boards are painted over on the picture the search works on, shrunk to
/// [`WORK_SIZE`] (sixty-fourth session; before, on a copy of the whole picture, shrunk again
/// for each search): on 820 book pages of six measuring sets 119 -> 102 s and 105 -> 94 MB at
/// most, 2,145 -> 2,143 diagrams found where drawn (three pages changed, by a board each); on 400
/// pages drawn afterwards 53 -> 48 s, the same boards found. Errors as [`locate`] where no
/// board is found at all.
pub fn locate_all(image: &RgbImage, most: usize) -> Result<Vec<Located>, VisionError> {
    let (work, factor) = working_picture(image)?;
    let first = locate_in_work(work.as_ref().unwrap_or(image), factor, &RETRY_TURNS)?;
    let background = typical_colour(image);
    // The boards found are painted over on the working picture, not on a copy of the picture
    // itself: a 4000-pixel photograph's copy was 48 MB, and each search shrank it again.
    let mut page = work.unwrap_or_else(|| image.clone());
    let on_page = |corners: [[f32; 2]; 4]| corners.map(|[x, y]| [x * factor, y * factor]);
    paint_over(&mut page, on_page(first.corners), background);
    let mut found = vec![first];
    while found.len() < most {
        let Ok(board) = locate_in_work(&page, factor, FURTHER_BOARD_TURNS) else {
            break;
        };
        let centre = quad_centre(board.corners);
        let again = found.iter().any(|f| inside_quad(f.corners, centre));
        if again || board.matched < ANOTHER_BOARD_MATCHED {
            break;
        }
        paint_over(&mut page, on_page(board.corners), background);
        found.push(board);
    }
    Ok(in_reading_order(found))
}

/// The boards in reading order: rows of boards from the top (a board whose centre lies above
/// another's top edge comes before it), each row from the left.
fn in_reading_order(mut boards: Vec<Located>) -> Vec<Located> {
    let top = |b: &Located| b.corners[0][1].min(b.corners[1][1]);
    let bottom = |b: &Located| b.corners[2][1].max(b.corners[3][1]);
    boards.sort_by(|a, b| top(a).total_cmp(&top(b)));
    let mut rows: Vec<Vec<Located>> = Vec::new();
    for board in boards {
        let centre_y = quad_centre(board.corners)[1];
        match rows.last_mut() {
            Some(row) if row.iter().any(|r| centre_y < bottom(r)) => row.push(board),
            _ => rows.push(vec![board]),
        }
    }
    rows.into_iter()
        .flat_map(|mut row| {
            row.sort_by(|a, b| quad_centre(a.corners)[0].total_cmp(&quad_centre(b.corners)[0]));
            row
        })
        .collect()
}

/// The middle of a quad's four corners.
fn quad_centre(corners: [[f32; 2]; 4]) -> [f32; 2] {
    let sum = corners
        .iter()
        .fold([0.0, 0.0], |s, c| [s[0] + c[0], s[1] + c[1]]);
    [sum[0] / 4.0, sum[1] / 4.0]
}

/// The quad `corners` grown by `grow` times its size about its centre.
fn grown_quad(corners: [[f32; 2]; 4], grow: f32) -> [[f32; 2]; 4] {
    let centre = quad_centre(corners);
    corners.map(|c| {
        [
            centre[0] + (c[0] - centre[0]) * (1.0 + grow),
            centre[1] + (c[1] - centre[1]) * (1.0 + grow),
        ]
    })
}

/// Whether `point` lies inside the convex quad `corners` (in order around it).
fn inside_quad(corners: [[f32; 2]; 4], point: [f32; 2]) -> bool {
    let side = |a: [f32; 2], b: [f32; 2]| {
        (b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0])
    };
    let sides: [f32; 4] = std::array::from_fn(|i| side(corners[i], corners[(i + 1) % 4]));
    sides.iter().all(|&s| s >= 0.0) || sides.iter().all(|&s| s <= 0.0)
}

/// The picture's typical colour: each channel's median, over a sparse grid of its pixels (on a
/// page, the paper).
fn typical_colour(image: &RgbImage) -> image::Rgb<u8> {
    let (w, h) = image.dimensions();
    let step = ((w as u64 * h as u64 / 40_000) as f64).sqrt().max(1.0) as u32;
    let mut channels: [Vec<u8>; 3] = Default::default();
    for y in (0..h).step_by(step as usize) {
        for x in (0..w).step_by(step as usize) {
            let p = image.get_pixel(x, y).0;
            for (channel, value) in channels.iter_mut().zip(p) {
                channel.push(value);
            }
        }
    }
    image::Rgb(channels.map(|mut values| {
        let middle = values.len() / 2;
        values.select_nth_unstable(middle);
        values[middle]
    }))
}

/// Paints the board at `corners` over with `colour`, [`PAINTED_BEYOND`] squares beyond its
/// edges.
fn paint_over(image: &mut RgbImage, corners: [[f32; 2]; 4], colour: image::Rgb<u8>) {
    // Half the board is four squares from its centre.
    let painted = grown_quad(corners, PAINTED_BEYOND / 4.0);
    let centre = quad_centre(corners);
    let reach = painted
        .iter()
        .map(|c| (c[0] - centre[0]).abs().max((c[1] - centre[1]).abs()))
        .fold(0.0f32, f32::max);
    let (w, h) = image.dimensions();
    let span = |middle: f32, limit: u32| {
        let low = (middle - reach).floor().max(0.0) as u32;
        let high = ((middle + reach).ceil().max(0.0) as u32).min(limit.saturating_sub(1));
        low..=high
    };
    for y in span(centre[1], h) {
        for x in span(centre[0], w) {
            if inside_quad(painted, [x as f32 + 0.5, y as f32 + 0.5]) {
                image.put_pixel(x, y, colour);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkerboard(size: u32, x0: u32, y0: u32, side: u32) -> RgbImage {
        let mut image = RgbImage::from_pixel(size, size, image::Rgb([90, 90, 90]));
        coloured_board(&mut image, (x0, y0, side), [220, 200, 180], [120, 100, 80]);
        image
    }

    #[test]
    fn junctions_a_degenerate_mapping_throws_far_off_are_not_indexed() {
        // A 112-pixel thumbnail once panicked here: a nearly singular homography's inverse sent
        // junctions to lattice indices near i32's ends, and the window's span wrapped around.
        let junction = |x: f32, y: f32, polarity: i8| Junction {
            x,
            y,
            response: 1.0,
            polarity,
            scale: 2,
        };
        let junctions: Vec<Junction> = (0..9)
            .flat_map(|i| (0..9).map(move |k| (i, k)))
            .map(|(i, k)| junction(i as f32, k as f32, if (i + k) % 2 == 0 { 1 } else { -1 }))
            .collect();
        let plain = index_junctions(&junctions, |x, y| (x, y), 0.2);
        assert_eq!(plain.len(), 81);
        assert!(best_window(&plain).is_some());
        // Four columns thrown beyond i32's range (to 1e12 and more), one to infinity and NaN,
        // four kept where they are.
        let thrown = |x: f32, y: f32| {
            if x < 4.0 {
                (x * 1e12, y - 3e12)
            } else if x < 5.0 {
                (f32::INFINITY, f32::NAN)
            } else {
                (x, y)
            }
        };
        let indexed = index_junctions(&junctions, thrown, 0.2);
        assert_eq!(indexed.len(), 36);
        assert!(indexed.iter().all(|((i, _), _)| (5..9).contains(i)));
        // Indices at i32's ends, however they arise, make no window rather than a panic.
        let far = vec![((i32::MAX, 0), junctions[0]), ((-5, 0), junctions[1])];
        assert!(best_window(&far).is_none());
    }

    fn assert_corners_near(corners: [[f32; 2]; 4], expected: [[f32; 2]; 4]) {
        for (got, want) in corners.iter().zip(expected) {
            assert!(
                (got[0] - want[0]).abs() < 1.5 && (got[1] - want[1]).abs() < 1.5,
                "{got:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn junctions_off_the_grid_do_not_tilt_the_refit() {
        // The 49 inner corners of a board with 50-pixel squares at (100, 80); two of them near
        // the top-right are found 0.3 squares off, as a piece's edge would make them.
        let mut pairs: Vec<Pair> = (0..7)
            .flat_map(|i| (0..7).map(move |k| (i as f64, k as f64)))
            .map(|(u, v)| ((u, v), (150.0 + 50.0 * u, 130.0 + 50.0 * v)))
            .collect();
        for (lattice, picture) in pairs.iter_mut() {
            if lattice.0 >= 5.0 && lattice.1 <= 1.0 && lattice.0 + lattice.1 != 6.0 {
                picture.0 += 15.0;
                picture.1 -= 15.0;
            }
        }
        let first = Homography::fit(&pairs).unwrap();
        let refit = refit_without_outliers(first, &pairs);
        let top_right = |h: &Homography| h.apply(7.0, -1.0);
        let (x, y) = top_right(&refit);
        assert!(
            (x - 500.0).abs() < 0.01 && (y - 80.0).abs() < 0.01,
            "{x} {y}"
        );
        let (x, y) = top_right(&first);
        assert!(
            (x - 500.0).abs() + (y - 80.0).abs() > 2.0,
            "the plain fit is tilted"
        );
    }

    #[test]
    fn finds_a_plain_board_inside_a_picture() {
        let image = checkerboard(400, 37, 61, 240);
        let located = locate(&image).unwrap();
        let expected = [[37.0, 61.0], [277.0, 61.0], [277.0, 301.0], [37.0, 301.0]];
        assert_corners_near(located.corners, expected);
        assert_eq!(located.matched, 49);
    }

    /// Draws a board of `side` pixels (a multiple of 8) at (`x0`, `y0`) into `image`, its light
    /// and dark squares `light` and `dark`.
    fn coloured_board(
        image: &mut RgbImage,
        (x0, y0, side): (u32, u32, u32),
        light: [u8; 3],
        dark: [u8; 3],
    ) {
        checker(image, (x0, y0), 8, side / 8, [light, dark]);
    }

    /// Draws `squares` x `squares` squares of `side` pixels at (`x0`, `y0`) into `image`, light
    /// and dark in turn from a light one at the top left, as far as the picture reaches.
    fn checker(
        image: &mut RgbImage,
        (x0, y0): (u32, u32),
        squares: u32,
        side: u32,
        [light, dark]: [[u8; 3]; 2],
    ) {
        for (x, y, pixel) in image.enumerate_pixels_mut() {
            let (Some(dx), Some(dy)) = (x.checked_sub(x0), y.checked_sub(y0)) else {
                continue;
            };
            let (column, row) = (dx / side, dy / side);
            if column < squares && row < squares {
                let light_square = (column + row) % 2 == 0;
                *pixel = image::Rgb(if light_square { light } else { dark });
            }
        }
    }

    /// A page of lines of made-up words, `size`-pixel type in a built-in font, dark on light
    /// paper or (`dark`) light on a dark page, as a document or an editor shows them.
    fn text_page(seed: u64, size: f32, dark: bool) -> RgbImage {
        use fenlens_render::resvg::tiny_skia::{Color, Pixmap};
        use fenlens_render::text::{Face, Pen, draw, width};
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let (w, h) = (900u32, 1000u32);
        let (paper, ink) = if dark {
            ([40, 44, 52], [220, 220, 220])
        } else {
            ([250, 250, 245], [20, 20, 20])
        };
        let mut pixmap = Pixmap::new(w, h).expect("a page");
        pixmap.fill(Color::from_rgba8(paper[0], paper[1], paper[2], 255));
        let face = if seed % 2 == 0 {
            Face::Serif
        } else {
            Face::Sans
        };
        let pen = Pen::new(face, size, ink);
        let margin = 40.0;
        let mut baseline = margin + size;
        while baseline < h as f32 - margin {
            let mut line = String::new();
            loop {
                let letters = rng.random_range(1..=9);
                let word: String = (0..letters)
                    .map(|_| char::from(b'a' + rng.random_range(0..26u8)))
                    .collect();
                let longer = if line.is_empty() {
                    word
                } else {
                    format!("{line} {word}")
                };
                if width(&longer, face, size) > w as f32 - 2.0 * margin {
                    break;
                }
                line = longer;
            }
            draw(&mut pixmap, &line, pen, margin, baseline);
            baseline += size * 1.4;
        }
        let rgba = fenlens_render::draw::pixmap_to_rgba(&pixmap);
        image::DynamicImage::ImageRgba8(rgba).to_rgb8()
    }

    #[test]
    fn pages_of_text_are_no_board() {
        // Lines of text give the junction detector corners enough for a lattice between
        // their letters; its squares are all paper (`one_background`).
        for (page, size) in [10.0, 11.0, 12.0, 13.0, 14.0, 16.0, 18.0, 20.0]
            .into_iter()
            .enumerate()
        {
            let image = text_page(page as u64, size, page % 3 == 2);
            let found = locate(&image);
            assert!(
                matches!(found, Err(VisionError::NoBoard)),
                "page {page} ({size}-pixel type) taken for a board: {found:?}"
            );
        }
    }

    /// A go board in a 900x900 picture of white paper: `lines` black lines each way every
    /// `step` pixels from (`origin`, `origin`) on its wood colour, with `stones` on every
    /// seventh crossing.
    fn go_board(origin: u32, step: u32, lines: u32, stones: bool) -> RgbImage {
        let mut image = RgbImage::from_pixel(900, 900, image::Rgb([255, 255, 255]));
        let (step, span) = (i64::from(step), i64::from(step * (lines - 1)));
        for (x, y, pixel) in image.enumerate_pixels_mut() {
            let (dx, dy) = (
                i64::from(x) - i64::from(origin),
                i64::from(y) - i64::from(origin),
            );
            if !(-step..=span + step).contains(&dx) || !(-step..=span + step).contains(&dy) {
                continue;
            }
            let on_line = |along: i64, across: i64| {
                (0..=span).contains(&along) && (0..=span).contains(&across) && along % step == 0
            };
            *pixel = if on_line(dx, dy) || on_line(dy, dx) {
                image::Rgb([0, 0, 0])
            } else {
                image::Rgb([220, 179, 92])
            };
            let (i, k) = (
                (dx + step / 2).div_euclid(step),
                (dy + step / 2).div_euclid(step),
            );
            let (ex, ey) = (dx - i * step, dy - k * step);
            let crossing = (0..i64::from(lines)).contains(&i) && (0..i64::from(lines)).contains(&k);
            if stones
                && crossing
                && (i * 3 + k * 5) % 7 == 0
                && (ex * ex + ey * ey) * 100 < step * step * 22
            {
                *pixel = image::Rgb(if (i + k) % 2 == 0 {
                    [15, 15, 15]
                } else {
                    [245, 245, 245]
                });
            }
        }
        image
    }

    #[test]
    fn go_boards_are_no_board() {
        // The crossings of a go board's lines, turned 45 degrees, give X-junctions enough for a
        // sure lattice between them, but all its squares stand on the wood (`one_background`).
        // Each was taken for a board before that rule.
        let cases = [
            (60, 20, 19, true),
            (300, 16, 13, false),
            (400, 24, 9, true),
            (60, 14, 19, false),
            (300, 28, 13, false),
            (400, 18, 9, true),
        ];
        assert_none_taken(cases.into_iter().map(|(origin, step, lines, stones)| {
            (
                format!("{lines} lines every {step} pixels, stones {stones}"),
                go_board(origin, step, lines, stones),
            )
        }));
    }

    /// Bands `band` pixels wide of two colours filling a `width` x `height` picture, across
    /// (`slant` 0), or slanted 45 degrees either way (`slant` 1 or -1), as
    /// `scripts/grid-pictures.py` draws its stripes.
    fn stripes(width: u32, height: u32, band: i64, slant: i64, [a, b]: [[u8; 3]; 2]) -> RgbImage {
        RgbImage::from_fn(width, height, |x, y| {
            let along = i64::from(y) + slant * i64::from(x);
            image::Rgb(if along.div_euclid(band) % 2 == 0 {
                a
            } else {
                b
            })
        })
    }

    #[test]
    fn stripes_are_no_board() {
        // A lattice whose corners sit where the bands' edges cross its lines fits them surely,
        // and its squares alternate, but the bands' edges cut through every square
        // (`crossed_by_bands`). Each was taken for a board before that rule; the upright ones
        // are the same turned a quarter, which the locator cannot tell from these.
        let wood = [[240, 217, 181], [181, 136, 99]];
        let ink = [[255, 255, 255], [0, 0, 0]];
        let slate = [[222, 227, 230], [140, 162, 173]];
        let cases = [
            (640, 640, 40, 0, wood),
            (800, 600, 50, 0, slate),
            (640, 640, 50, 1, ink),
            (800, 600, 70, 1, wood),
            (640, 640, 60, -1, slate),
            (800, 600, 50, -1, ink),
        ];
        assert_none_taken(
            cases
                .into_iter()
                .map(|(width, height, band, slant, colours)| {
                    (
                        format!("bands of {band} pixels, slant {slant}"),
                        stripes(width, height, band, slant, colours),
                    )
                }),
        );
    }

    /// Asserts that no picture of `cases` (each told by its description) is taken for a board;
    /// the pictures are made one at a time.
    fn assert_none_taken(cases: impl Iterator<Item = (String, RgbImage)>) {
        let taken: Vec<String> = cases
            .filter_map(|(what, picture)| Some(format!("{what}: {:?}", locate(&picture).ok()?)))
            .collect();
        assert!(taken.is_empty(), "taken for a board: {taken:#?}");
    }

    /// A phone's home screen: rounded squares of `columns` a row, each of its own colour (from
    /// `seed`), on a plain `background`, as `scripts/grid-pictures.py` draws them.
    fn icon_screen(side: u32, columns: u32, background: [u8; 3], seed: u32) -> RgbImage {
        let pitch = side / (columns + 1);
        let gap = (side - columns * pitch) / (columns + 1);
        let (icon, radius) = (pitch * 4 / 5, pitch / 5);
        RgbImage::from_fn(side, side, |x, y| {
            let (column, row) = (
                (x - gap.min(x)) / (pitch + gap),
                (y - gap.min(y)) / (pitch + gap),
            );
            let (dx, dy) = (
                x as i64 - i64::from(gap + column * (pitch + gap)),
                y as i64 - i64::from(gap + row * (pitch + gap)),
            );
            let inside = |d: i64| (0..=i64::from(icon)).contains(&d);
            // Distance past the rounded corner's centre, along each axis.
            let beyond = |d: i64| {
                (i64::from(radius) - d)
                    .max(d - i64::from(icon - radius))
                    .max(0)
            };
            let (bx, by) = (beyond(dx), beyond(dy));
            if x < gap
                || y < gap
                || column >= columns
                || !inside(dx)
                || !inside(dy)
                || bx * bx + by * by > i64::from(radius * radius)
            {
                return image::Rgb(background);
            }
            let hash = (seed ^ (row * 16 + column)).wrapping_mul(2_654_435_761);
            image::Rgb([(hash >> 8) as u8, (hash >> 16) as u8, (hash >> 24) as u8])
        })
    }

    #[test]
    fn icon_screens_are_no_board() {
        // A grid of blobs is a checkerboard turned 45 degrees: a lattice so turned fits it
        // surely, as far as the picture goes (`TURNED_DEGREES`). Each was taken for a board
        // before that rule.
        let cases = [
            (1000, 6, [240, 240, 245], 2),
            (800, 6, [20, 20, 20], 5),
            (700, 6, [240, 240, 245], 9),
            (900, 6, [240, 240, 245], 11),
        ];
        assert_none_taken(cases.into_iter().map(|(side, columns, background, seed)| {
            (
                format!("{side} pixels, {columns} columns, seed {seed}"),
                icon_screen(side, columns, background, seed),
            )
        }));
    }

    #[test]
    fn a_checkerboard_of_five_squares_in_a_corner_is_no_board() {
        // In a corner of the picture, any 8x8 lattice on it takes in more than two lines of
        // squares beyond the picture's edges, and matches at most 16 inner corners: no board
        // (`UNSURE_SQUARES_INSIDE`). Each was taken for a board before that rule (a smaller
        // one has too few inner corners to be).
        let cases = [
            ((1000, 1000), 5, 120, (0, 0)),
            ((1000, 800), 5, 140, (0, 100)),
            ((1000, 1000), 5, 160, (200, 0)),
            ((1000, 1000), 5, 110, (450, 0)),
            ((800, 800), 5, 130, (150, 150)),
        ];
        assert_none_taken(
            cases
                .into_iter()
                .map(|((width, height), squares, side, (x0, y0))| {
                    let mut image =
                        RgbImage::from_pixel(width, height, image::Rgb([255, 255, 255]));
                    let colours = [[238, 238, 210], [118, 150, 86]];
                    checker(&mut image, (x0, y0), squares, side, colours);
                    (format!("{squares}x{squares} at ({x0}, {y0})"), image)
                }),
        );
    }

    #[test]
    fn a_board_the_picture_cuts_through_is_fitted_on_its_squares() {
        // Below a plain margin, its lowest two ranks below the picture's foot: the lattice
        // between the visible inner corners could as well stand a row higher, over the margin.
        // The margin's line is plain and the line beyond the fit's last leaves the picture,
        // so the fit is moved onto the board (`shift_once`); with two lines outside it is
        // still a board (`UNSURE_SQUARES_INSIDE`).
        let mut cut = RgbImage::from_pixel(800, 700, image::Rgb([255, 255, 255]));
        checker(
            &mut cut,
            (0, 100),
            8,
            100,
            [[238, 238, 210], [118, 150, 86]],
        );
        let found = locate(&cut).expect("the board cut through");
        assert_corners_near(
            found.corners,
            [[0.0, 100.0], [800.0, 100.0], [800.0, 900.0], [0.0, 900.0]],
        );
    }

    #[test]
    fn a_board_among_text_is_found() {
        // A board set in a page of text is still found where it is, the text beside it
        // taking no part in the fit.
        let mut image = text_page(3, 13.0, false);
        coloured_board(&mut image, (300, 400, 240), [238, 238, 210], [118, 150, 86]);
        let found = locate(&image).expect("the board");
        assert_corners_near(
            found.corners,
            [
                [300.0, 400.0],
                [540.0, 400.0],
                [540.0, 640.0],
                [300.0, 640.0],
            ],
        );
    }

    #[test]
    fn every_board_of_a_page_is_found_in_reading_order() {
        // Three boards of different sizes on a page: two side by side, one below. The page
        // photographed larger (2,250 pixels) is searched shrunk, the boards found painted over
        // there, and every board's corners given on the page as it is.
        let boards = [(60, 50, 320), (520, 80, 256), (200, 520, 320)];
        let page_of = |scale: u32| {
            let mut page = RgbImage::from_pixel(900 * scale / 2, 900 * scale / 2, PAPER);
            for &(x0, y0, side) in &boards {
                let board = (x0 * scale / 2, y0 * scale / 2, side * scale / 2);
                coloured_board(&mut page, board, [230, 220, 200], [110, 90, 70]);
            }
            page
        };
        const PAPER: image::Rgb<u8> = image::Rgb([245, 245, 240]);
        for scale in [2, 5] {
            let found = locate_all(&page_of(scale), 16).unwrap();
            assert_eq!(found.len(), 3, "{found:?}");
            for (located, &(x0, y0, side)) in found.iter().zip(&boards) {
                let [x, y] = located.corners[0].map(|c| c * 2.0 / scale as f32);
                assert!(
                    (x - x0 as f32).abs() < 2.0 && (y - y0 as f32).abs() < 2.0,
                    "{located:?} against the board at ({x0}, {y0}), {side} pixels, scale {scale}/2"
                );
            }
        }
        // At most `most`, and a page of one board gives that one.
        let page = page_of(2);
        assert_eq!(locate_all(&page, 2).unwrap().len(), 2);
        let one = checkerboard(500, 40, 60, 400);
        assert_eq!(locate_all(&one, 16).unwrap(), vec![locate(&one).unwrap()]);
        let blank = RgbImage::from_pixel(300, 300, image::Rgb([200, 200, 200]));
        assert!(matches!(locate_all(&blank, 16), Err(VisionError::NoBoard)));
    }

    #[test]
    fn boards_are_ordered_by_rows_then_from_the_left() {
        let board = |x: f32, y: f32, side: f32| Located {
            corners: [[x, y], [x + side, y], [x + side, y + side], [x, y + side]],
            matched: 49,
            edge_in_doubt: false,
        };
        // The right board of the first row stands a little higher than the left one.
        let order = in_reading_order(vec![
            board(100.0, 600.0, 300.0),
            board(500.0, 80.0, 300.0),
            board(100.0, 120.0, 300.0),
            board(500.0, 610.0, 300.0),
        ]);
        let corners: Vec<[f32; 2]> = order.iter().map(|b| b.corners[0]).collect();
        assert_eq!(
            corners,
            [
                [100.0, 120.0],
                [500.0, 80.0],
                [100.0, 600.0],
                [500.0, 610.0]
            ]
        );
    }

    /// A board seen by a camera below its top edge: its 480-pixel bottom edge at (60, 40 +
    /// `height`), its top edge `top` of that long, `height` pixels above, on a 600x400 desk.
    fn slanted_board(top: f64, height: f64) -> (RgbImage, [[f32; 2]; 4]) {
        let inset = 480.0 * (1.0 - top) / 2.0;
        board_at(
            (600, 400),
            [
                (60.0 + inset, 40.0),
                (540.0 - inset, 40.0),
                (540.0, 40.0 + height),
                (60.0, 40.0 + height),
            ],
        )
    }

    /// A flat board whose outer corners (top-left, top-right, bottom-right, bottom-left) stand
    /// at `corners`, on a desk of `size`.
    fn board_at(size: (u32, u32), corners: [(f64, f64); 4]) -> (RgbImage, [[f32; 2]; 4]) {
        let board = [(0.0, 0.0), (8.0, 0.0), (8.0, 8.0), (0.0, 8.0)];
        let pairs: Vec<Pair> = board.into_iter().zip(corners).collect();
        let to_board = invert(&Homography::fit(&pairs).unwrap()).unwrap();
        let image = RgbImage::from_fn(size.0, size.1, |x, y| {
            let (u, v) = to_board.apply(x as f64 + 0.5, y as f64 + 0.5);
            if !(0.0..8.0).contains(&u) || !(0.0..8.0).contains(&v) {
                image::Rgb([50, 45, 40])
            } else if (u as u32 + v as u32) % 2 == 0 {
                image::Rgb([236, 236, 215])
            } else {
                image::Rgb([120, 150, 90])
            }
        });
        (image, corners.map(|(x, y)| [x as f32, y as f32]))
    }

    #[test]
    fn a_board_turned_far_is_found_turned_back() {
        // Turned by 40 degrees either way, the upright boxes of the junction detector find too
        // few of the board's junctions (it was "no chessboard found"); the search on the
        // picture turned back finds them.
        for degrees in [40.0f64, -40.0] {
            let (sin, cos) = degrees.to_radians().sin_cos();
            let turn = |(x, y): (f64, f64)| {
                let (dx, dy) = (x - 350.0, y - 300.0);
                (350.0 + cos * dx - sin * dy, 300.0 + sin * dx + cos * dy)
            };
            let square = [
                (190.0, 140.0),
                (510.0, 140.0),
                (510.0, 460.0),
                (190.0, 460.0),
            ];
            let (image, expected) = board_at((700, 600), square.map(turn));
            let located = locate(&image).unwrap_or_else(|e| panic!("{degrees}: {e}"));
            // Which corner is the top-left one of a board turned this far is the locator's
            // choice; each corner must be one of the board's.
            for got in located.corners {
                assert!(
                    expected.iter().any(
                        |want| (got[0] - want[0]).abs() < 2.5 && (got[1] - want[1]).abs() < 2.5
                    ),
                    "{degrees}: {got:?} not among {expected:?}"
                );
            }
        }
    }

    #[test]
    fn a_board_photographed_at_a_slant_is_found() {
        // Squares 0.4-0.5 as tall as wide: each of these was lost, or fitted a row or a column
        // off, by the lattice of square-looking squares alone.
        for (top, height) in [(1.0, 240.0), (0.9, 240.0), (0.8, 220.0), (0.7, 200.0)] {
            let (image, expected) = slanted_board(top, height);
            let located = locate(&image).unwrap_or_else(|e| panic!("{top} {height}: {e}"));
            for (got, want) in located.corners.iter().zip(expected) {
                assert!(
                    (got[0] - want[0]).abs() < 2.5 && (got[1] - want[1]).abs() < 2.5,
                    "{top} {height}: {got:?} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn flat_empty_boards_of_every_size_are_found() {
        // Square sizes 1-2 times the largest box that answers at their corners were lost
        // before `AXIS_PAIR_MIN` (for example 192-224 pixels here).
        for side in (96..=408).step_by(24) {
            let mut image = RgbImage::from_pixel(1000, 700, image::Rgb([60, 60, 70]));
            coloured_board(&mut image, (20, 30, side), [238, 238, 210], [118, 150, 86]);
            let located = locate(&image).unwrap_or_else(|e| panic!("{side} pixels: {e}"));
            let (x1, y1) = ((20 + side) as f32, (30 + side) as f32);
            assert_corners_near(
                located.corners,
                [[20.0, 30.0], [x1, 30.0], [x1, y1], [20.0, y1]],
            );
        }
    }

    #[test]
    fn squares_of_one_brightness_and_two_colours_are_found() {
        // Cream and yellow-green, as one lichess-like theme draws them: 6.6 grey levels apart,
        // under the junction detector's least response, but 55 apart in the blue channel.
        let (light, dark) = ([219, 212, 174], [212, 215, 119]);
        assert!(f32::from(luma(light).abs_diff(luma(dark))) < MIN_RESPONSE);
        let mut image = RgbImage::from_pixel(420, 420, image::Rgb([190, 180, 200]));
        coloured_board(&mut image, (16, 20, 384), light, dark);
        let located = locate(&image).expect("the board");
        assert_corners_near(
            located.corners,
            [[16.0, 20.0], [400.0, 20.0], [400.0, 404.0], [16.0, 404.0]],
        );
    }

    #[test]
    fn a_stark_thumbnail_does_not_hide_a_pale_board() {
        // A pale board, its squares 4 grey levels apart but 28 apart in the red channel (as
        // under glare), beside a small black-and-white board-like thumbnail.
        let mut image = RgbImage::from_pixel(900, 600, image::Rgb([245, 245, 245]));
        coloured_board(
            &mut image,
            (400, 100, 400),
            [240, 244, 242],
            [212, 250, 250],
        );
        coloured_board(&mut image, (40, 400, 128), [255, 255, 255], [40, 40, 40]);
        let located = locate(&image).expect("a board");
        assert_corners_near(
            located.corners,
            [
                [400.0, 100.0],
                [800.0, 100.0],
                [800.0, 500.0],
                [400.0, 500.0],
            ],
        );
    }

    #[test]
    fn a_large_board_is_found_with_the_large_boxes_alone_as_precisely() {
        // 80-pixel squares: the large boxes find a sure board, the small ones are not searched.
        let image = checkerboard(800, 50, 70, 640);
        let (ww, wh) = (image.width() as usize, image.height() as usize);
        let gray: Vec<u8> = image.pixels().map(|p| p.0[1]).collect();
        let integral = Integral::new(&gray, ww, wh);
        let large = large_box_junctions(&integral);
        assert!(best_fit(merge_junctions(large.iter())).is_some_and(|fit| is_sure(&fit)));
        let located = locate(&image).unwrap();
        let expected = [[50.0, 70.0], [690.0, 70.0], [690.0, 710.0], [50.0, 710.0]];
        assert_corners_near(located.corners, expected);
    }

    #[test]
    fn a_picture_over_twice_the_working_size_is_shrunk_by_blocks_and_its_board_found() {
        // Means of whole blocks, and of the narrower blocks at the right and bottom edges.
        let picture = RgbImage::from_fn(5, 3, |x, y| image::Rgb([(10 * x + y) as u8, 0, 255]));
        let shrunk = box_shrink(&picture, 2);
        assert_eq!(shrunk.dimensions(), (3, 2));
        assert_eq!(shrunk.get_pixel(0, 0).0, [6, 0, 255]); // (0 + 1 + 10 + 11) / 4, rounded
        assert_eq!(shrunk.get_pixel(2, 0).0, [41, 0, 255]); // (40 + 41) / 2, rounded
        assert_eq!(shrunk.get_pixel(1, 1).0, [27, 0, 255]); // (22 + 32) / 2
        // A 2,600-pixel picture (shrunk by blocks of 2, then resized): the board is found
        // where it is drawn.
        let image = checkerboard(2600, 300, 410, 1920);
        let located = locate(&image).unwrap();
        let expected = [
            [300.0, 410.0],
            [2220.0, 410.0],
            [2220.0, 2330.0],
            [300.0, 2330.0],
        ];
        // Within the other tests' 1.5 pixels of the working picture (1,024 of 2,600).
        for (got, want) in located.corners.iter().zip(expected) {
            assert!(
                (got[0] - want[0]).abs() < 4.0 && (got[1] - want[1]).abs() < 4.0,
                "{got:?} vs {want:?}"
            );
        }
    }

    /// A board of `side` pixels at (`frame`, `frame`) in a picture `2 * frame` larger, on a
    /// plain margin, every square crowded by a striped "piece" as wide as the square, which
    /// leaves the junction detector more corners inside the pieces than between the squares.
    fn crowded_board(side: u32, frame: u32) -> RgbImage {
        let size = side + 2 * frame;
        let mut image = RgbImage::from_pixel(size, size, image::Rgb([40, 40, 40]));
        coloured_board(
            &mut image,
            (frame, frame, side),
            [230, 230, 230],
            [150, 150, 150],
        );
        let s = side / 8;
        for row in 0..8 {
            for column in 0..8 {
                let (x0, y0) = (frame + column * s, frame + row * s);
                for y in y0 + s / 5..y0 + s - s / 10 {
                    for x in x0 + s / 10..x0 + s - s / 10 {
                        let stripe = ((x - x0) / 3 + (y - y0) / 3) % 2 == 0;
                        let grey = if stripe { 10 } else { 250 };
                        image.put_pixel(x, y, image::Rgb([grey, grey, grey]));
                    }
                }
            }
        }
        image
    }

    fn grey_of(image: &RgbImage) -> Vec<u8> {
        image.pixels().map(|p| luma(p.0)).collect()
    }

    #[test]
    fn a_crowded_board_filling_the_picture_or_its_plain_margins_is_fitted_by_its_squares() {
        for frame in [0u32, 9, 150] {
            let image = crowded_board(400, frame);
            let (w, h) = (image.width() as usize, image.height() as usize);
            let grey = grey_of(&image);
            let blurred = box_blurred(&grey, w, h, 2);
            let (fit, surely) = whole_picture_fit(&grey, &blurred, w, h).expect("a board");
            assert!(surely >= 0.95, "{surely}");
            let (near, far) = (frame as f64, (400 + frame) as f64);
            for ((u, v), (x, y)) in [
                ((-1.0, -1.0), (near, near)),
                ((7.0, -1.0), (far, near)),
                ((7.0, 7.0), (far, far)),
                ((-1.0, 7.0), (near, far)),
            ] {
                let (fx, fy) = fit.apply(u, v);
                assert!((fx - x).abs() < 0.5 && (fy - y).abs() < 0.5, "{fx},{fy}");
            }
            // The same lattice half a square off agrees with its parity on few squares.
            let off = fit_at(near + 75.0, near + 50.0, 50.0);
            assert!(checkered(&off, &blurred, w, h).is_none_or(|share| share < 0.6));
        }
    }

    #[test]
    fn a_board_not_filling_the_picture_is_not_taken_for_one() {
        // A 240-pixel board at (60, 40) in a 320x320 picture whose margin is textured (no plain
        // frame): the picture's squares do not alternate like a board's.
        let mut image = RgbImage::new(320, 320);
        for (x, y, p) in image.enumerate_pixels_mut() {
            let v = ((x * 7 + y * 13) % 97) as u8 + 60;
            p.0 = [v, v, v];
        }
        coloured_board(&mut image, (60, 40, 240), [230, 230, 230], [150, 150, 150]);
        let grey = grey_of(&image);
        let blurred = box_blurred(&grey, 320, 320, 2);
        assert!(whole_picture_fit(&grey, &blurred, 320, 320).is_none());
        let located = locate(&image).expect("a board");
        assert_corners_near(
            located.corners,
            [[60.0, 40.0], [300.0, 40.0], [300.0, 280.0], [60.0, 280.0]],
        );
    }

    #[test]
    fn no_board_in_noise() {
        // A square picture of noise is no board filling it either.
        for (width, height, seed) in [(200, 150, 12345u32), (240, 240, 777)] {
            let mut image = RgbImage::new(width, height);
            let mut state = seed;
            for p in image.pixels_mut() {
                state = state.wrapping_mul(1664525).wrapping_add(1013904223);
                let v = (state >> 24) as u8;
                p.0 = [v, v, v];
            }
            assert!(matches!(locate(&image), Err(VisionError::NoBoard)));
        }
        assert!(matches!(
            locate(&RgbImage::new(10, 10)),
            Err(VisionError::NoBoard)
        ));
    }

    /// Grey pixels of a picture holding a board of 8 x `square` pixels at (`x0`, `y0`) on a
    /// plain margin of grey `margin`.
    fn grey_board(size: usize, x0: usize, y0: usize, square: usize, margin: u8) -> Vec<u8> {
        let mut gray = vec![margin; size * size];
        for y in 0..8 * square {
            for x in 0..8 * square {
                let light = (x / square + y / square) % 2 == 0;
                gray[(y0 + y) * size + x0 + x] = if light { 200 } else { 120 };
            }
        }
        gray
    }

    #[test]
    fn a_draughts_board_is_no_chessboard() {
        // Checkered boards of 10 and 12 squares a side (draughts), with discs on some dark
        // squares: any 8x8 part of them fits like a chessboard, but the squares go on beyond it.
        for (lines, square, margin) in [(10u32, 40u32, 20u32), (12, 32, 24), (10, 24, 0)] {
            let size = lines * square + 2 * margin;
            let mut image = RgbImage::from_pixel(size + 60, size, image::Rgb([48, 46, 43]));
            for y in 0..lines * square {
                for x in 0..lines * square {
                    let (column, row) = (x / square, y / square);
                    let (dx, dy) = (
                        (x % square) as i32 - square as i32 / 2,
                        (y % square) as i32 - square as i32 / 2,
                    );
                    let disc = (dx * dx + dy * dy) as u32 * 25 < square * square * 4;
                    let colour = if (column + row) % 2 == 0 {
                        [240, 217, 181]
                    } else if disc && row < 3 {
                        [30, 30, 30]
                    } else if disc && row >= lines - 3 {
                        [250, 250, 250]
                    } else {
                        [181, 136, 99]
                    };
                    image.put_pixel(margin + x, margin + y, image::Rgb(colour));
                }
            }
            assert!(
                matches!(locate(&image), Err(VisionError::NoBoard)),
                "{lines}x{lines} board"
            );
        }
        // The same drawing with 8 squares a side is a chessboard.
        let mut image = RgbImage::from_pixel(400, 400, image::Rgb([48, 46, 43]));
        coloured_board(&mut image, (20, 20, 320), [240, 217, 181], [181, 136, 99]);
        let located = locate(&image).unwrap();
        assert_corners_near(
            located.corners,
            [[20.0, 20.0], [340.0, 20.0], [340.0, 340.0], [20.0, 340.0]],
        );
    }

    /// The homography of a fit whose first inner corner is at (`x`, `y`), squares of `square`
    /// pixels.
    fn fit_at(x: f64, y: f64, square: f64) -> Homography {
        Homography::spanning(x - square, y - square, x + 7.0 * square, y + 7.0 * square)
    }

    /// Asserts that `h` puts the board's top-left outer corner at (`x`, `y`).
    fn assert_outer_corner(h: &Homography, x: f64, y: f64) {
        let (gx, gy) = h.apply(-1.0, -1.0);
        assert!((gx - x).abs() < 1e-6 && (gy - y).abs() < 1e-6, "{gx} {gy}");
    }

    #[test]
    fn a_fit_slid_off_the_board_is_moved_back() {
        // (picture width and height, board's top-left outer corner, fit's first inner corner,
        // what it shows), the board of 40-pixel squares on a plain margin.
        let cases = [
            // The board's first inner corner is at (140, 140); the fit has slid one square
            // left, so its first column lies on the plain margin and the h-file is beyond it.
            ((480, 480), (100, 100), (100.0, 140.0), "slid a square left"),
            ((480, 480), (100, 100), (140.0, 100.0), "slid a square up"),
            // A board filling the picture but a margin column on the left (at x 40), the fit
            // slid a square right: its last column lies outside the picture, which counts as
            // off the board.
            (
                (360, 320),
                (40, 0),
                (120.0, 40.0),
                "slid right, out of the picture",
            ),
            // Its first two columns (rows) on the margin: moved back twice.
            (
                (560, 560),
                (140, 100),
                (100.0, 140.0),
                "slid two squares left",
            ),
            ((560, 560), (140, 100), (180.0, 60.0), "slid two squares up"),
        ];
        for ((width, height), (x0, y0), (x, y), what) in cases {
            let gray = grey_board(width, x0, y0, 40, 60);
            let (moved, in_doubt) = shift_onto_board(fit_at(x, y, 40.0), &gray, width, height);
            assert!(!in_doubt, "{what}");
            assert_outer_corner(&moved, x0 as f64, y0 as f64);
        }
    }

    #[test]
    fn a_fit_whose_two_edges_are_both_off_the_board_is_in_doubt() {
        // The fit's first and last rows lie on plain grey (a board of six rows under a fit of
        // eight): not a square off, so nothing to move, but not the board either.
        let mut gray = grey_board(480, 100, 100, 40, 60);
        for y in (100..140).chain(380..420) {
            gray[y * 480..(y + 1) * 480].fill(60);
        }
        let fit = fit_at(140.0, 140.0, 40.0);
        let (moved, in_doubt) = shift_onto_board(fit, &gray, 480, 480);
        assert!(in_doubt);
        assert_outer_corner(&moved, 100.0, 100.0);
    }

    #[test]
    fn a_fit_on_the_board_stays() {
        let gray = grey_board(480, 100, 100, 40, 60);
        let fit = fit_at(140.0, 140.0, 40.0);
        let (moved, in_doubt) = shift_onto_board(fit, &gray, 480, 480);
        assert!(!in_doubt);
        assert_outer_corner(&moved, 100.0, 100.0);
        // A board that fills the picture: the lines beyond it are not in the picture.
        let gray = grey_board(320, 0, 0, 40, 60);
        let (moved, _) = shift_onto_board(fit_at(40.0, 40.0, 40.0), &gray, 320, 320);
        assert_outer_corner(&moved, 0.0, 0.0);
    }

    #[test]
    fn stark_squares_beyond_the_board_are_not_taken_for_its_own() {
        // Beyond the h-file, a column of black and white blocks in the board's parity (text, a
        // panel): they alternate but far more than the board does, so the slid fit stays.
        let mut gray = grey_board(480, 100, 100, 40, 60);
        for y in 100..420 {
            for x in 340..380 {
                let row = (y - 100) / 40;
                gray[y * 480 + x] = if row % 2 == 0 { 255 } else { 0 };
            }
        }
        // Board squares 150 and 170 grey; the blocks beyond are 0 and 255.
        for y in 100..420 {
            for x in 100..340 {
                let v = gray[y * 480 + x];
                gray[y * 480 + x] = if v == 200 { 170 } else { 150 };
            }
        }
        let slid = fit_at(100.0, 140.0, 40.0);
        let (held, in_doubt) = shift_onto_board(slid, &gray, 480, 480);
        assert_outer_corner(&held, 60.0, 100.0);
        assert!(in_doubt, "the fit still looks slid");
    }

    #[test]
    fn a_last_move_highlighted_beyond_the_board_does_not_hold_a_slid_fit() {
        // A low-contrast board (squares 150 and 170 grey) fitted a square left, so its first
        // column lies on the margin and the h-file beyond it, where one or two of its dark
        // squares are a last move's, highlighted darker still (7 half light-dark differences
        // from the board's middle grey).
        for highlighted in [&[2][..], &[0, 6]] {
            let mut gray = grey_board(480, 100, 100, 40, 60);
            for v in gray.iter_mut() {
                *v = match *v {
                    200 => 170,
                    120 => 150,
                    margin => margin,
                };
            }
            for &row in highlighted {
                for y in 100 + 40 * row..140 + 40 * row {
                    gray[y * 480 + 380..y * 480 + 420].fill(90);
                }
            }
            let slid = fit_at(100.0, 140.0, 40.0);
            let (moved, in_doubt) = shift_onto_board(slid, &gray, 480, 480);
            assert!(!in_doubt, "{} highlighted", highlighted.len());
            assert_outer_corner(&moved, 100.0, 100.0);
        }
    }

    #[test]
    fn homography_fit_recovers_a_projection() {
        let truth = Homography([1.2, 0.1, 30.0, -0.05, 0.9, 12.0, 0.001, 0.0005, 1.0]);
        let pairs: Vec<_> = (0..7)
            .flat_map(|i| (0..7).map(move |k| (i as f64, k as f64)))
            .map(|(u, v)| ((u, v), truth.apply(u * 10.0, v * 10.0)))
            .map(|((u, v), xy)| ((u * 10.0, v * 10.0), xy))
            .collect();
        let fit = Homography::fit(&pairs).unwrap();
        let (x, y) = fit.apply(33.0, 47.0);
        let (tx, ty) = truth.apply(33.0, 47.0);
        assert!((x - tx).abs() < 1e-6 && (y - ty).abs() < 1e-6);
    }
}
