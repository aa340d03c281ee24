//! Lines drawn between the squares, painted over in the rectified board.
//!
//! Some boards draw a line of a pixel or two between every two squares (old web diagrams,
//! some book fonts and generators); no training board has them, and a piece beside such a line
//! was now and then misread (seventieth session: 91.0% of boards exact without, 85.0% with).
//! A line shows in the rectified board as a column (or row) near a boundary between squares
//! that is darker (or lighter) than the pixels two away on *both* sides, along most of the
//! board's length; the edge between a light and a dark square differs from one side only.
//! Where most boundaries show such a line, each line pixel takes the grey of the nearest pixel
//! beside the line on its own side of the boundary, so the crops see squares meeting edge to
//! edge as in training.
//!
//! The lines also show where the grid lies, better than the locator, which they mislead by a
//! pixel or two (seventy-first session: corners 0.66% of the side off, median, against 0.19%
//! without lines). Their middles, measured on four stretches of each line, are fitted as two
//! families of straight lines, and [`crate::rectify::rectify_on_lines`] rectifies the board
//! again from the corners where the families' edge lines meet.
//!
//! Assumes the rectified layout of [`crate::rectify`]: `BOARD`×`BOARD` greys, square
//! boundaries at `MARGIN + k * SQUARE`, a locator error of a pixel or two.

use crate::rectify::{BOARD, MARGIN, SQUARE};
use std::ops::Range;

/// How far from a boundary (in rectified pixels, either way) a line is looked for: the
/// locator's corners are off by a pixel or two.
const REACH: isize = 3;

/// The least difference in grey (0-1) from the pixels two away on both sides for a pixel to be
/// part of a line.
const LINE_CONTRAST: f32 = 0.03;

/// The least share of a boundary's length that must be line-like (pieces cover the rest).
const LINE_SHARE: f32 = 0.35;

/// How many of the 14 inner boundaries (7 across, 7 down) must show a line for the board to
/// be taken as ruled.
const RULED_BOUNDARIES: usize = 12;

/// One inner boundary's line: the pixel columns (or rows) it covers.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Line {
    /// First and last pixel across the boundary (both included).
    first: usize,
    last: usize,
    /// Its middle, in pixels from the board's first edge.
    middle: f32,
    /// The share of the stretch looked along where it shows ([`line_share`]).
    share: f32,
}

/// One direction of the boundaries in a rectified board.
trait Axis {
    /// The index in the greys of the pixel `along` pixels along a boundary of this direction
    /// and `across` pixels across the board from its edge.
    fn index(along: usize, across: usize) -> usize;
}

/// Lines running down the board (between files): `across` is the column.
struct Down;
impl Axis for Down {
    fn index(along: usize, across: usize) -> usize {
        along * BOARD + across
    }
}

/// Lines running across the board (between ranks): `across` is the row.
struct Across;
impl Axis for Across {
    fn index(along: usize, across: usize) -> usize {
        across * BOARD + along
    }
}

/// How line-like pixel `across` is at `along`: its difference from the pixels two away on both
/// sides when both have the same sign (the smaller in size), 0 otherwise.
fn line_likeness<A: Axis>(gray: &[f32], along: usize, across: usize) -> f32 {
    let here = gray[A::index(along, across)];
    let before = here - gray[A::index(along, across - 2)];
    let after = here - gray[A::index(along, across + 2)];
    if before > 0.0 && after > 0.0 {
        before.min(after)
    } else if before < 0.0 && after < 0.0 {
        before.max(after)
    } else {
        0.0
    }
}

/// The stretch of a boundary's length looked along: the board's inside, less the ends where the
/// crossing lines run.
fn along_range() -> Range<usize> {
    MARGIN + REACH as usize + 2..MARGIN + 8 * SQUARE - REACH as usize - 2
}

/// The share of the stretch `along` of a boundary where pixel `across` is line-like, darker
/// (`dark`) or lighter, by at least [`LINE_CONTRAST`].
fn line_share<A: Axis>(gray: &[f32], along: Range<usize>, across: usize, dark: bool) -> f32 {
    let length = along.len() as f32;
    let count = along
        .filter(|&along| {
            let likeness = line_likeness::<A>(gray, along, across);
            if dark {
                likeness <= -LINE_CONTRAST
            } else {
                likeness >= LINE_CONTRAST
            }
        })
        .count();
    count as f32 / length
}

/// The line at inner boundary `k` (1-7) along the stretch `along`, if one is drawn there.
fn find_line<A: Axis>(gray: &[f32], k: usize, along: Range<usize>) -> Option<Line> {
    let boundary = (MARGIN + k * SQUARE) as isize;
    let candidates = boundary - REACH - 1..=boundary + REACH;
    let (mut best, mut best_share) = (None, 0.0f32);
    for across in candidates.clone() {
        for dark in [true, false] {
            let share = line_share::<A>(gray, along.clone(), across as usize, dark);
            if share > best_share {
                (best, best_share) = (Some((across as usize, dark)), share);
            }
        }
    }
    let (centre, dark) = best?;
    if best_share < LINE_SHARE {
        return None;
    }
    // A line two pixels wide: its neighbour is line-like along about as much of the length.
    let wide = |across: usize| {
        candidates.contains(&(across as isize))
            && line_share::<A>(gray, along.clone(), across, dark)
                >= 0.5 * best_share.max(LINE_SHARE)
    };
    let first = if wide(centre - 1) { centre - 1 } else { centre };
    let last = if wide(centre + 1) { centre + 1 } else { centre };
    // The middle: the pixels' centres from one beside the line to one beside it on the other
    // side, weighed by how much each stands out the line's way (a line of a pixel or less
    // stands out on two pixels in the share it covers of each).
    let sign = if dark { -1.0 } else { 1.0 };
    let (mut weights, mut moments) = (0.0f32, 0.0f32);
    for across in first - 1..=last + 1 {
        let weight: f32 = along
            .clone()
            .map(|along| (sign * line_likeness::<A>(gray, along, across)).max(0.0))
            .sum();
        weights += weight;
        moments += weight * (across as f32 + 0.5);
    }
    let middle = if weights > 0.0 {
        moments / weights
    } else {
        (first + last + 1) as f32 / 2.0
    } - MARGIN as f32;
    Some(Line {
        first,
        last,
        middle,
        share: best_share,
    })
}

/// Paints over one line: each of its pixels takes the grey of the nearest pixel beside the line
/// on its own side of the boundary (under a piece too: the line may be drawn over it, and a
/// pixel or two of the piece stretched over the line is what a board without lines shows).
fn paint_over<A: Axis>(gray: &mut [f32], k: usize, line: Line) {
    let boundary = MARGIN + k * SQUARE;
    for along in MARGIN..MARGIN + 8 * SQUARE {
        for across in line.first..=line.last {
            let source = if across < boundary {
                line.first - 1
            } else {
                line.last + 1
            };
            gray[A::index(along, across)] = gray[A::index(along, source)];
        }
    }
}

/// The lines found between the squares of a rectified board: for each inner boundary between
/// files (`down`, k = 1-7) and between ranks (`across`), the line drawn there if any.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ruling {
    down: [Option<Line>; 7],
    across: [Option<Line>; 7],
    /// The board's corners (top-left, top-right, bottom-right, bottom-left; rectified pixels
    /// from the board's first edges) with the grid laid on the lines, where they fall in a
    /// regular grid ([`fit_family`]) and show along [`REFIT_SHARE`] of their length or more.
    grid: Option<[(f32, f32); 4]>,
}

impl Ruling {
    /// The lines between the squares of a rectified board (`BOARD * BOARD` greys), where at
    /// least [`RULED_BOUNDARIES`] of the 14 inner boundaries show one.
    pub fn find(gray: &[f32]) -> Option<Ruling> {
        debug_assert_eq!(gray.len(), BOARD * BOARD);
        let down = std::array::from_fn(|i| find_line::<Down>(gray, i + 1, along_range()));
        let across = std::array::from_fn(|i| find_line::<Across>(gray, i + 1, along_range()));
        let found: Vec<&Line> = down.iter().chain(&across).flatten().collect();
        if found.len() < RULED_BOUNDARIES {
            return None;
        }
        let share = found.iter().map(|line| line.share).sum::<f32>() / found.len() as f32;
        let grid = (share >= REFIT_SHARE)
            .then(|| fit_family::<Down>(gray, &down).zip(fit_family::<Across>(gray, &across)))
            .flatten()
            .map(|(down, across)| {
                // A corner where the edge line of one family (k = 0 or 8) meets the other's.
                let corner = |k_down: f32, k_across: f32| {
                    let [a, b, c, d] = down;
                    let (p, q) = (a + b * k_down, c + d * k_down); // x = p + q y
                    let [a, b, c, d] = across;
                    let (r, w) = (a + b * k_across, c + d * k_across); // y = r + w x
                    let x = (p + q * r) / (1.0 - q * w);
                    (x, r + w * x)
                };
                [(0.0, 0.0), (8.0, 0.0), (8.0, 8.0), (0.0, 8.0)].map(|(kd, ka)| corner(kd, ka))
            });
        Some(Ruling { down, across, grid })
    }

    /// Paints the lines over: each line pixel takes the grey of the nearest pixel beside the line
    /// on its own side of the boundary.
    pub fn erase(&self, gray: &mut [f32]) {
        // Rows first, then columns: the crossings are painted from pixels already painted.
        for (k, line) in (1..8).zip(&self.across) {
            if let Some(line) = line {
                paint_over::<Across>(gray, k, *line);
            }
        }
        for (k, line) in (1..8).zip(&self.down) {
            if let Some(line) = line {
                paint_over::<Down>(gray, k, *line);
            }
        }
    }

    /// The board's corners in the picture with the grid laid on the lines, where a corner of
    /// the grid that `corners` give (the corners the board was rectified from) stands
    /// [`REFIT_FROM`] pixels or more off them (the locator, misled by the lines, fitted a quad a
    /// little askew); `None` where the corners fit the lines already, the lines do not fall
    /// in a regular grid, or they show along less than [`REFIT_SHARE`] of their length.
    pub fn fitted_corners(&self, corners: [[f32; 2]; 4]) -> Option<[[f32; 2]; 4]> {
        let fitted = self.grid?;
        let span = (8 * SQUARE) as f32;
        let given = [(0.0, 0.0), (span, 0.0), (span, span), (0.0, span)];
        let worst = fitted
            .iter()
            .zip(&given)
            .map(|(f, g)| (f.0 - g.0).hypot(f.1 - g.1))
            .fold(0.0f32, f32::max);
        if !(REFIT_FROM..=MOVE_AT_MOST).contains(&worst) {
            return None;
        }
        let projection = crate::rectify::board_to_picture(corners)?;
        let fitted = fitted.map(|(x, y)| {
            let (x, y) = projection.map(x / span, y / span);
            [x, y]
        });
        fitted
            .iter()
            .all(|p| p[0].is_finite() && p[1].is_finite())
            .then_some(fitted)
    }
}

/// The least share of their length (on average) along which the lines must show for the grid
/// to be laid on them. Textures whose squares are shaded or bevelled towards their edges
/// (lichess's metal and blue3) show lines beside the boundaries along 0.43-0.49 of it (on the
/// light squares), and the grid laid on them stood 0.5-3.4 pixels further off than the
/// locator's (31 boards of the measuring sets); lines drawn between the squares show along
/// 0.5-0.95 of it, and laying the grid on those under 0.5 moved the corners as often away as
/// nearer (seventy-first session).
const REFIT_SHARE: f32 = 0.5;

/// The least move of a corner, in rectified pixels, for which the grid is laid again on the
/// lines.
const REFIT_FROM: f32 = 0.75;

/// The most a corner is moved, in rectified pixels (a fifth of a square): lines further off
/// are not the grid's.
const MOVE_AT_MOST: f32 = 0.2 * SQUARE as f32;

/// Stretches of a line's length, each two squares long, on which its place is measured.
const STRETCHES: usize = 4;

/// A family of lines (`lines[k - 1]` at inner boundary k) fitted as x = a + b k + c t + d k t
/// (x across, t along, in pixels from the board's first edges; each line straight, the lines'
/// tilt changing evenly from one to the next, as a board seen a little askew shows them), from
/// the lines' middles measured on [`STRETCHES`] stretches of their length, those more than a
/// pixel off a first fit left out. `None` where fewer than 12 middles (or two thirds of those
/// measured) are left, or the lines' spacing is off a square's by more than a tenth.
fn fit_family<A: Axis>(gray: &[f32], lines: &[Option<Line>; 7]) -> Option<[f32; 4]> {
    let stretch = 8 * SQUARE / STRETCHES;
    let mut points = Vec::new();
    for (k, _) in (1..8).zip(lines).filter(|(_, line)| line.is_some()) {
        for j in 0..STRETCHES {
            let start = MARGIN + j * stretch;
            if let Some(line) = find_line::<A>(gray, k, start + 2..start + stretch - 2) {
                let t = (j * stretch + stretch / 2) as f32;
                points.push((k as f32, t, line.middle));
            }
        }
    }
    let measured = points.len();
    let mut fit = least_squares(&points)?;
    // Middles more than a pixel off the first fit (a piece or an arrow beside the line on that
    // stretch) are left out of the second.
    points.retain(|&(k, t, x)| (fit.at(k, t) - x).abs() <= 1.0);
    if points.len() < 12 || 3 * points.len() < 2 * measured {
        return None;
    }
    fit = least_squares(&points)?;
    let even = points
        .iter()
        .all(|&(k, t, x)| (fit.at(k, t) - x).abs() <= 1.0);
    let square = SQUARE as f32;
    let spacing_ok = [0.0, 8.0 * square]
        .iter()
        .all(|&t| (fit.b + fit.d * t - square).abs() <= 0.1 * square);
    (even && spacing_ok).then_some([fit.a, fit.b, fit.c, fit.d])
}

/// A family of lines' places across, x = a + b k + c t + d k t ([`fit_family`]).
struct FamilyFit {
    a: f32,
    b: f32,
    c: f32,
    d: f32,
}

impl FamilyFit {
    fn at(&self, k: f32, t: f32) -> f32 {
        self.a + self.b * k + self.c * t + self.d * k * t
    }
}

/// The least-squares [`FamilyFit`] of middles (k, t, x); `None` where they do not fix one.
fn least_squares(points: &[(f32, f32, f32)]) -> Option<FamilyFit> {
    // The normal equations of the four terms (t in squares, to keep the equations' sizes
    // alike).
    let unit = SQUARE as f64;
    let (mut normal, mut right) = ([[0.0f64; 4]; 4], [0.0f64; 4]);
    for &(k, t, x) in points {
        let (k, t) = (f64::from(k), f64::from(t) / unit);
        let terms = [1.0, k, t, k * t];
        for (row, term) in normal.iter_mut().zip(terms) {
            for (entry, other) in row.iter_mut().zip(terms) {
                *entry += term * other;
            }
        }
        for (entry, term) in right.iter_mut().zip(terms) {
            *entry += term * f64::from(x);
        }
    }
    let [a, b, c, d] = crate::locate::solve(normal, right)?;
    let [a, b, c, d] = [a, b, c / unit, d / unit].map(|v| v as f32);
    Some(FamilyFit { a, b, c, d })
}

/// Finds lines drawn between the squares of a rectified board (`BOARD * BOARD` greys) and, where
/// at least [`RULED_BOUNDARIES`] of the 14 inner boundaries show one, paints them over.
/// Returns the lines found.
pub fn erase_grid_lines(gray: &mut [f32]) -> Option<Ruling> {
    let ruling = Ruling::find(gray)?;
    ruling.erase(gray);
    Some(ruling)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rectify::{rectify, rectify_on_lines};
    use image::{Rgb, RgbImage};

    /// Greys of a rectified board: a checkerboard (0.8 and 0.45) with a dark blob, a piece, on
    /// every third square, reaching to within four pixels of its square's edges (a line a pixel or two off the
    /// boundary then has the square's own grey beside it).
    fn board_with_pieces() -> Vec<f32> {
        (0..BOARD * BOARD)
            .map(|i| {
                let (x, y) = (i % BOARD, i / BOARD);
                let at = |v: usize| (v.saturating_sub(MARGIN) / SQUARE).min(7);
                let (col, row) = (at(x), at(y));
                let (inside_x, inside_y) = (
                    x.saturating_sub(MARGIN) % SQUARE,
                    y.saturating_sub(MARGIN) % SQUARE,
                );
                let piece = (row * 8 + col) % 3 == 0
                    && (4..SQUARE - 4).contains(&inside_x)
                    && (4..SQUARE - 4).contains(&inside_y);
                if piece {
                    0.1
                } else if (col + row) % 2 == 0 {
                    0.8
                } else {
                    0.45
                }
            })
            .collect()
    }

    /// Draws a line of `grey` over every inner boundary, `width` pixels wide, its first pixel
    /// `offset` pixels from the boundary (negative: before it).
    fn rule(gray: &mut [f32], grey: f32, width: usize, offset: isize) {
        for k in 1..8 {
            let first = (MARGIN + k * SQUARE) as isize + offset;
            for across in first..first + width as isize {
                for along in MARGIN..MARGIN + 8 * SQUARE {
                    gray[Down::index(along, across as usize)] = grey;
                    gray[Across::index(along, across as usize)] = grey;
                }
            }
        }
    }

    fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
        a.iter()
            .zip(b)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn lines_between_the_squares_are_painted_over() {
        let clean = board_with_pieces();
        // Dark and light lines, one or two pixels wide, on the boundary or a pixel or two off
        // it (the locator's error).
        for (grey, width, offset) in [
            (0.0, 1, 0),
            (0.0, 2, -1),
            (1.0, 1, -2),
            (0.2, 2, 1),
            (0.0, 1, -1),
        ] {
            let mut ruled = clean.clone();
            rule(&mut ruled, grey, width, offset);
            let drawn = largest_difference(&ruled, &clean);
            assert!(drawn > 0.3, "the lines show before");
            assert!(
                erase_grid_lines(&mut ruled).is_some(),
                "lines {grey} {width} {offset}"
            );
            let left = largest_difference(&ruled, &clean);
            assert!(
                left < 0.01,
                "lines of grey {grey}, {width} wide at {offset}: {left} left"
            );
        }
    }

    #[test]
    fn a_board_without_lines_is_left_as_it_is() {
        let clean = board_with_pieces();
        let mut gray = clean.clone();
        assert!(erase_grid_lines(&mut gray).is_none());
        assert_eq!(gray, clean);
        // Lines between the ranks alone (stripes), not between the files: left alone too.
        let mut striped = clean.clone();
        for k in 1..8 {
            for along in MARGIN..MARGIN + 8 * SQUARE {
                striped[Across::index(along, MARGIN + k * SQUARE)] = 0.0;
            }
        }
        let before = striped.clone();
        assert!(erase_grid_lines(&mut striped).is_none());
        assert_eq!(striped, before);
    }

    /// A picture of a board of 8 squares of 50 pixels with pieces (dark discs) on every third
    /// square, with black lines 2 pixels wide between the squares where `ruled`.
    fn picture(ruled: bool) -> RgbImage {
        drawn(|x, y| {
            ruled
                && ((x % 50 < 1 || x % 50 > 48) && x > 2 && x < 397
                    || (y % 50 < 1 || y % 50 > 48) && y > 2 && y < 397)
        })
    }

    /// [`picture`]'s board with black wherever `line` holds.
    fn drawn(line: impl Fn(u32, u32) -> bool) -> RgbImage {
        RgbImage::from_fn(400, 400, |x, y| {
            let (col, row) = (x / 50, y / 50);
            let (dx, dy) = (x as f32 % 50.0 - 25.0, y as f32 % 50.0 - 25.0);
            if line(x, y) {
                Rgb([0, 0, 0])
            } else if (col + row * 8) % 3 == 0 && dx * dx + dy * dy < 300.0 {
                Rgb([30, 30, 30])
            } else if (col + row) % 2 == 0 {
                Rgb([235, 235, 210])
            } else {
                Rgb([120, 150, 90])
            }
        })
    }

    /// The picture's board corners.
    const TRUE_CORNERS: [[f32; 2]; 4] = [[0.0, 0.0], [400.0, 0.0], [400.0, 400.0], [0.0, 400.0]];

    #[test]
    fn a_ruled_picture_rectifies_as_the_same_picture_unruled() {
        let plain = rectify(&picture(false), TRUE_CORNERS).expect("a board");
        let ruled = rectify(&picture(true), TRUE_CORNERS).expect("a board");
        assert!(plain.ruling.is_none());
        assert!(ruled.ruling.is_some());
        // Only the board's inside: the lines stop short of its frame.
        let inside = |gray: &[f32]| -> Vec<f32> {
            (MARGIN + 2..MARGIN + 8 * SQUARE - 2)
                .flat_map(|y| {
                    gray[y * BOARD + MARGIN + 2..y * BOARD + MARGIN + 8 * SQUARE - 2].to_vec()
                })
                .collect()
        };
        let left = largest_difference(&inside(&plain.gray), &inside(&ruled.gray));
        assert!(left < 0.08, "the lines left {left} of grey");
    }

    #[test]
    fn the_grid_is_laid_on_the_lines_where_the_corners_stand_askew() {
        let ruled = picture(true);
        // The farthest corner from its true place, in picture pixels.
        let off = |corners: [[f32; 2]; 4]| {
            corners
                .iter()
                .zip(&TRUE_CORNERS)
                .map(|(c, t)| (c[0] - t[0]).hypot(c[1] - t[1]))
                .fold(0.0f32, f32::max)
        };
        // Each corner a few pixels off in its own way (a quad a little askew), and the whole
        // grid moved and shrunk.
        for askew in [
            [[3.0, -2.0], [398.0, 3.0], [403.0, 402.0], [-2.0, 397.0]],
            [[4.0, 4.0], [396.0, 4.0], [396.0, 396.0], [4.0, 396.0]],
        ] {
            let board = rectify(&ruled, askew).expect("a board");
            let ruling = board.ruling.expect("the lines are found");
            let once = ruling
                .fitted_corners(askew)
                .expect("the grid is laid again");
            assert!(off(once) < off(askew), "{askew:?}: fitted {once:?}");
            let (board, fitted) = rectify_on_lines(&ruled, askew).expect("a board");
            assert!(board.ruling.is_some());
            assert!(
                off(fitted) < 1.0 && off(fitted) < off(askew) / 3.0,
                "{askew:?}: fitted {fitted:?}"
            );
        }
        // Corners on the grid already are left as they are; so are a board's without lines.
        let on_grid = rectify(&ruled, TRUE_CORNERS).expect("a board");
        assert_eq!(
            on_grid.ruling.expect("lines").fitted_corners(TRUE_CORNERS),
            None
        );
        let askew = [[3.0, -2.0], [398.0, 3.0], [403.0, 402.0], [-2.0, 397.0]];
        assert!(
            rectify(&picture(false), askew)
                .expect("a board")
                .ruling
                .is_none()
        );
    }

    #[test]
    fn squares_shaded_towards_their_edges_do_not_move_the_grid() {
        // A texture's look: each light square darkened in a band two pixels wide, four in from
        // its right and bottom edges; the dark squares plain. Lines show beside most
        // boundaries, but along half their length only (without `REFIT_SHARE`, the grid is
        // laid on them, 5 pixels off).
        let shaded = drawn(|x, y| {
            let light = (x / 50 + y / 50) % 2 == 0;
            let edge = |v: u32| (44..46).contains(&(v % 50));
            light && (edge(x) || edge(y)) && (x % 50 < 44 || y % 50 < 44 || edge(x) && edge(y))
        });
        let askew = [[4.0, 4.0], [396.0, 4.0], [396.0, 396.0], [4.0, 396.0]];
        let (_, corners) = rectify_on_lines(&shaded, askew).expect("a board");
        assert_eq!(
            corners, askew,
            "the corners are left as the locator gave them"
        );
        // Lines drawn along the whole length of the boundaries move it.
        let (_, corners) = rectify_on_lines(&picture(true), askew).expect("a board");
        assert_ne!(corners, askew);
    }
}
