//! Orient: is White at the bottom?
//!
//! The recognized placement is read as displayed; if the picture shows Black at the bottom, the
//! real placement is that one turned by 180 degrees.
//!
//! First the file letters, when they are drawn along the bottom edge (inside the bottom row's
//! squares or below the board): of a-h, b, d, f and h have ascenders and a, c, e, g do not, so
//! the taller letters stand in the 2nd, 4th, 6th and 8th columns when White is at the bottom and
//! in the 1st, 3rd, 5th and 7th when Black is. That holds in any Latin typeface, so no glyphs
//! need to be recognized. Otherwise the position decides: pawns advance up the board, kings
//! stay home, pieces start on their own side (the same score the FEN checker uses for its
//! "board upside down" warning); the confidence is a logistic function of the score difference.

use fenlens_fen::orientation_score;
use fenlens_fen::shakmaty::Board;
use image::RgbImage;

use crate::rectify::{board_to_picture, grey_level};

/// The orientation decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orientation {
    /// Black at the bottom.
    pub flipped: bool,
    /// Probability that `flipped` is right, 0.5-1.
    pub confidence: f32,
}

/// Decides the orientation of a placement read as displayed (top row = rank 8).
pub fn orient(as_displayed: &Board) -> Orientation {
    let mut turned = as_displayed.clone();
    turned.rotate_180();
    let difference = orientation_score(&turned) - orientation_score(as_displayed);
    let confidence = 1.0 / (1.0 + (-(difference.abs() as f32) * 0.6).exp());
    Orientation {
        flipped: difference > 0,
        confidence,
    }
}

/// Rows and columns sampled in one label region.
const LABEL_ROWS: usize = 32;
const LABEL_COLS: usize = 32;

/// Where file letters may be drawn, in board units of one square (0-8 across, 0-8 down):
/// (left, right) within a column, (top, bottom) rows.
const LABEL_PLACES: [((f32, f32), (f32, f32)); 4] = [
    // Inside the bottom row, right corner (lichess, chess.com and many others).
    ((0.62, 0.99), (7.45, 7.99)),
    // Inside the bottom row, left corner.
    ((0.01, 0.38), (7.45, 7.99)),
    // Below the board, centred under each column, in a narrow or a wider margin.
    ((0.15, 0.85), (8.03, 8.44)),
    ((0.15, 0.85), (8.03, 8.75)),
];

/// The top of the ink in one label region, in sampled rows, or `None` when nothing that looks
/// like a label is there. Columns whose ink reaches the region's top belong to a piece (pieces
/// are taller than labels) and are left out.
fn ink_top(samples: &[f32]) -> Option<f32> {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f32::total_cmp);
    let background = sorted[sorted.len() / 2];
    let at = |r: usize, c: usize| samples[r * LABEL_COLS + c];
    let free: Vec<usize> = (0..LABEL_COLS)
        .filter(|&c| (0..LABEL_ROWS / 4).all(|r| (at(r, c) - background).abs() < 0.06))
        .collect();
    if free.len() < LABEL_COLS / 4 {
        return None;
    }
    let mut deviations: Vec<f32> = free
        .iter()
        .flat_map(|&c| (0..LABEL_ROWS).map(move |r| (r, c)))
        .map(|(r, c)| (at(r, c) - background).abs())
        .collect();
    deviations.sort_by(f32::total_cmp);
    let contrast = deviations[deviations.len() * 97 / 100];
    if contrast < 0.06 {
        return None;
    }
    let is_ink = |r: usize, c: usize| (at(r, c) - background).abs() > contrast * 0.5;
    let inked = free
        .iter()
        .flat_map(|&c| (0..LABEL_ROWS).map(move |r| (r, c)))
        .filter(|&(r, c)| is_ink(r, c))
        .count();
    let fraction = inked as f32 / (free.len() * LABEL_ROWS) as f32;
    if !(0.01..=0.35).contains(&fraction) {
        return None;
    }
    // The first of two rows with ink (an ascender is a thin stroke; a lone row may be noise).
    let row_ink = |r: usize| free.iter().any(|&c| is_ink(r, c));
    let top = (0..LABEL_ROWS - 1).find(|&r| row_ink(r) && row_ink(r + 1))?;
    // A label sits low in its region, with empty rows above it.
    if top < LABEL_ROWS / 3 {
        return None;
    }
    Some(top as f32)
}

/// Reads the orientation from file letters along the bottom edge, if they are drawn.
pub fn orient_from_labels(image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Orientation> {
    let projection = board_to_picture(corners)?;
    let (w, h) = image.dimensions();
    // Points up to two pixels outside the picture (a located edge a little off) take the edge.
    let grey_at = |x: f32, y: f32| -> Option<f32> {
        let (right, bottom) = ((w - 1) as f32, (h - 1) as f32);
        if !(x >= -2.0 && y >= -2.0 && x <= right + 2.0 && y <= bottom + 2.0) {
            return None;
        }
        let (x, y) = (x.clamp(0.0, right), y.clamp(0.0, bottom));
        Some(grey_level(
            image.get_pixel(x.round() as u32, y.round() as u32).0,
        ))
    };
    let mut best: Option<Orientation> = None;
    for ((left, right), (top, bottom)) in LABEL_PLACES {
        let mut tops = [None; 8];
        for (column, slot) in tops.iter_mut().enumerate() {
            let mut samples = Vec::with_capacity(LABEL_ROWS * LABEL_COLS);
            for r in 0..LABEL_ROWS {
                for c in 0..LABEL_COLS {
                    let u = (column as f32
                        + left
                        + (right - left) * (c as f32 + 0.5) / LABEL_COLS as f32)
                        / 8.0;
                    let v = (top + (bottom - top) * (r as f32 + 0.5) / LABEL_ROWS as f32) / 8.0;
                    let (x, y) = projection * (u, v);
                    match grey_at(x - 0.5, y - 0.5) {
                        Some(g) => samples.push(g),
                        None => break,
                    }
                }
            }
            if samples.len() == LABEL_ROWS * LABEL_COLS {
                *slot = ink_top(&samples);
            }
        }
        // Upright, every odd column's letter (b, d, f, h) reaches higher than every even one's
        // (a, c, e, g); flipped, the other way round. Ask for a clean split with a margin.
        let column_tops = |parity: usize| -> Vec<f32> {
            (parity..8).step_by(2).filter_map(|c| tops[c]).collect()
        };
        let (even, odd) = (column_tops(0), column_tops(1));
        if even.len() < 2 || odd.len() < 2 || even.len() + odd.len() < 5 {
            continue;
        }
        let highest = |tops: &[f32]| tops.iter().fold(f32::INFINITY, |a, &b| a.min(b));
        let lowest = |tops: &[f32]| tops.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let flipped = if lowest(&odd) + 1.0 <= highest(&even) {
            false
        } else if lowest(&even) + 1.0 <= highest(&odd) {
            true
        } else {
            continue;
        };
        let found = Orientation {
            flipped,
            confidence: 1.0 - 0.5f32.powi((even.len() + odd.len()) as i32),
        };
        if best.is_none_or(|b| found.confidence > b.confidence) {
            best = Some(found);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_upright_and_its_rotation_is_flipped() {
        let start = Board::new();
        let upright = orient(&start);
        assert!(!upright.flipped);
        assert!(upright.confidence > 0.99);
        let mut turned = start.clone();
        turned.rotate_180();
        assert!(orient(&turned).flipped);
        assert_eq!(orient(&Board::empty()).confidence, 0.5);
    }

    fn drawn(
        flipped: bool,
        coords: fenlens_render::Coords,
        theme: &str,
    ) -> (RgbImage, [[f32; 2]; 4]) {
        use fenlens_render::{BoardLook, BoardStyle, PieceSet, draw_board};
        // Two kings in the middle: the position says nothing about orientation.
        let board = fenlens_fen::read(b"8/8/8/3k4/4K3/8/8/8")
            .setup
            .unwrap()
            .board;
        let style = BoardStyle {
            look: BoardLook::flat(theme).unwrap(),
            coords,
            flipped,
            ..BoardStyle::default()
        };
        let drawn = draw_board(&board, &style, &PieceSet::builtin(), 64);
        let rgba = fenlens_render::draw::pixmap_to_rgba(&drawn.pixmap);
        (
            image::DynamicImage::ImageRgba8(rgba).to_rgb8(),
            drawn.corners(),
        )
    }

    #[test]
    fn file_letters_inside_or_below_the_board_give_the_orientation() {
        use fenlens_render::Coords;
        for theme in ["brown", "green", "light-grey"] {
            for coords in [Coords::Inside, Coords::Outside] {
                for flipped in [false, true] {
                    let (image, corners) = drawn(flipped, coords, theme);
                    let read = orient_from_labels(&image, corners)
                        .unwrap_or_else(|| panic!("{theme} {coords:?} {flipped}: no labels read"));
                    assert_eq!(read.flipped, flipped, "{theme} {coords:?}");
                    assert!(read.confidence > 0.9);
                }
            }
        }
    }

    #[test]
    fn no_labels_no_reading() {
        let (image, corners) = drawn(false, fenlens_render::Coords::None, "brown");
        assert_eq!(orient_from_labels(&image, corners), None);
    }
}
