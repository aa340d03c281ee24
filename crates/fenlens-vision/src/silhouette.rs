//! Silhouettes: which pixels of a square belong to the piece standing on it.
//!
//! A piece is everything the square's background does not reach from the square's edge: the
//! background is the grey of the square's two top corners (within a tenth of the local grey
//! range), flooded in from the border. What is left is the piece's outline and everything it
//! encloses, whatever its colours. The colour check ([`crate::colour`]) measures how light a
//! silhouette is, the symmetry check ([`crate::symmetry`]) how far it is from its mirror image.
//!
//! Assumes the rectified board of [`crate::rectify`]: squares of [`SQUARE`] pixels after a
//! margin of [`MARGIN`], grey levels 0-1.

use crate::rectify::{BOARD, MARGIN, Rectified, SQUARE};

/// Pixels along each side of a square left out of the measures: the grid line and the
/// locator's error fall there.
pub const EDGE: usize = 2;
/// Fewest silhouette pixels (inside the square's [`EDGE`]) worth measuring.
const FEWEST_PIXELS: usize = 12;

/// The piece on one square: its pixels and the grey range around it.
#[derive(Clone, Debug)]
pub struct Silhouette {
    /// `inside[y][x]`: the pixel belongs to the piece (square coordinates).
    pub inside: [[bool; SQUARE]; SQUARE],
    /// The dark end of the grey range around the square (2nd percentile of the 3x3 squares).
    pub dark: f32,
    /// The light end (98th percentile).
    pub light: f32,
}

impl Silhouette {
    /// The piece's pixels inside the square's [`EDGE`], as (x, y) in square coordinates.
    pub fn inner_pixels(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (EDGE..SQUARE - EDGE).flat_map(move |y| {
            (EDGE..SQUARE - EDGE)
                .filter(move |&x| self.inside[y][x])
                .map(move |x| (x, y))
        })
    }

    /// The largest 4-connected part of the pixels inside the square's [`EDGE`]: the piece
    /// without a coordinate letter in the square's corner or a stray stroke of an arrow.
    pub fn largest_part(&self) -> Silhouette {
        let inner = EDGE..SQUARE - EDGE;
        let mut part = [[0u16; SQUARE]; SQUARE];
        let (mut best, mut best_size, mut label) = (0u16, 0usize, 0u16);
        for (x, y) in self.inner_pixels() {
            if part[y][x] != 0 {
                continue;
            }
            label += 1;
            let mut size = 0;
            let mut stack = vec![(x, y)];
            part[y][x] = label;
            while let Some((x, y)) = stack.pop() {
                size += 1;
                let neighbours = [
                    (x.wrapping_sub(1), y),
                    (x + 1, y),
                    (x, y.wrapping_sub(1)),
                    (x, y + 1),
                ];
                for (nx, ny) in neighbours {
                    if inner.contains(&nx)
                        && inner.contains(&ny)
                        && self.inside[ny][nx]
                        && part[ny][nx] == 0
                    {
                        part[ny][nx] = label;
                        stack.push((nx, ny));
                    }
                }
            }
            if size > best_size {
                (best, best_size) = (label, size);
            }
        }
        Silhouette {
            inside: part.map(|row| row.map(|l| l != 0 && l == best)),
            dark: self.dark,
            light: self.light,
        }
    }
}

/// The top-left pixel of a square (display order) in the rectified board.
pub fn cell_origin(cell: usize) -> (usize, usize) {
    (MARGIN + (cell % 8) * SQUARE, MARGIN + (cell / 8) * SQUARE)
}

/// The dark and light ends around a square: grey levels at the 2nd and 98th percentiles of the
/// 3x3 block of squares centred on it (moved inward at the board's edge), so that light falling
/// unevenly across a photographed screen does not move them.
fn grey_range(board: &Rectified, cell: usize) -> (f32, f32) {
    let (col, row) = ((cell % 8).clamp(1, 6), (cell / 8).clamp(1, 6));
    let mut histogram = [0u32; 256];
    let xs = MARGIN + (col - 1) * SQUARE..MARGIN + (col + 2) * SQUARE;
    for y in MARGIN + (row - 1) * SQUARE..MARGIN + (row + 2) * SQUARE {
        for &g in &board.gray[y * BOARD + xs.start..y * BOARD + xs.end] {
            histogram[(g.clamp(0.0, 1.0) * 255.0) as usize] += 1;
        }
    }
    let total: u32 = histogram.iter().sum();
    let at = |fraction: f32| {
        let goal = (total as f32 * fraction) as u32;
        let mut seen = 0;
        for (level, &count) in histogram.iter().enumerate() {
            seen += count;
            if seen > goal {
                return level as f32 / 255.0;
            }
        }
        1.0
    };
    (at(0.02), at(0.98))
}

fn median9(values: &mut [f32; 9]) -> f32 {
    values.sort_by(f32::total_cmp);
    values[4]
}

/// The silhouette of one square (display order); `None` where it is too small to measure
/// (empty squares, mostly).
pub fn silhouette(board: &Rectified, cell: usize) -> Option<Silhouette> {
    let (dark, light) = grey_range(board, cell);
    let tolerance = 0.1 * (light - dark).max(0.05);
    let (x0, y0) = cell_origin(cell);
    let at = |x: usize, y: usize| board.gray[(y0 + y) * BOARD + x0 + x];
    let corner = |cx: usize| {
        let mut values = [0.0; 9];
        for (i, v) in values.iter_mut().enumerate() {
            *v = at(cx + i % 3, i / 3);
        }
        median9(&mut values)
    };
    let backgrounds = [corner(0), corner(SQUARE - 3)];
    let background = |v: f32| backgrounds.iter().any(|b| (v - b).abs() <= tolerance);
    // Flood the background in from the square's edge.
    let mut outside = [[false; SQUARE]; SQUARE];
    let mut stack: Vec<(usize, usize)> = (0..SQUARE)
        .flat_map(|i| [(i, 0), (i, SQUARE - 1), (0, i), (SQUARE - 1, i)])
        .collect();
    while let Some((x, y)) = stack.pop() {
        if outside[y][x] || !background(at(x, y)) {
            continue;
        }
        outside[y][x] = true;
        if x > 0 {
            stack.push((x - 1, y));
        }
        if x + 1 < SQUARE {
            stack.push((x + 1, y));
        }
        if y > 0 {
            stack.push((x, y - 1));
        }
        if y + 1 < SQUARE {
            stack.push((x, y + 1));
        }
    }
    let silhouette = Silhouette {
        inside: outside.map(|row| row.map(|out| !out)),
        dark,
        light,
    };
    (silhouette.inner_pixels().count() >= FEWEST_PIXELS).then_some(silhouette)
}

/// The silhouettes of all 64 squares (display order).
pub fn silhouettes(board: &Rectified) -> [Option<Silhouette>; 64] {
    std::array::from_fn(|cell| silhouette(board, cell))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_on_a_plain_square_is_the_silhouette_an_empty_square_has_none() {
        let mut gray = vec![0.7; BOARD * BOARD];
        let (x0, y0) = cell_origin(9);
        for y in 8..16 {
            for x in 10..14 {
                gray[(y0 + y) * BOARD + x0 + x] = 0.1;
            }
        }
        let board = Rectified::from_grey(gray);
        let outlines = silhouettes(&board);
        let piece = outlines[9].as_ref().expect("a piece on b7");
        assert_eq!(piece.inner_pixels().count(), 32);
        assert!(piece.inside[8][10] && !piece.inside[7][10] && !piece.inside[8][9]);
        assert!(outlines[8].is_none() && outlines[10].is_none());
    }

    #[test]
    fn the_largest_part_leaves_a_corner_letter_out() {
        let mut inside = [[false; SQUARE]; SQUARE];
        for row in inside.iter_mut().take(20).skip(5) {
            row[8..16].fill(true); // the piece: 120 pixels
        }
        for row in inside.iter_mut().take(21).skip(18) {
            row[18..21].fill(true); // a letter in the corner: 9 pixels
        }
        let whole = Silhouette {
            inside,
            dark: 0.0,
            light: 1.0,
        };
        let part = whole.largest_part();
        assert_eq!(whole.inner_pixels().count(), 129);
        assert_eq!(part.inner_pixels().count(), 120);
        assert!(part.inside[10][8] && !part.inside[19][19]);
    }
}
