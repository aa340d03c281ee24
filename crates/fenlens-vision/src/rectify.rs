//! Rectify and cut: warp the board's quad to a square of 8x8 cells and cut one crop per square,
//! with a little context around it.
//!
//! Assumes the four corners are the 8x8 playing area's corners in picture order (top-left,
//! top-right, bottom-right, bottom-left as displayed). Large boards are supersampled so that
//! shrinking them does not alias; small ones are interpolated bilinearly.

use image::RgbImage;
use imageproc::geometric_transformations::Projection;

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
}

/// A picture point from board coordinates: (0, 0) is the top-left corner of the playing area,
/// (1, 1) the bottom-right.
pub fn board_to_picture(corners: [[f32; 2]; 4]) -> Option<Projection> {
    Projection::from_control_points(
        [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
        corners.map(|c| (c[0], c[1])),
    )
}

fn luminance(image: &RgbImage, x: f32, y: f32) -> f32 {
    let (w, h) = image.dimensions();
    let x = x.clamp(0.0, w as f32 - 1.0);
    let y = y.clamp(0.0, h as f32 - 1.0);
    let (x0, y0) = (x.floor() as u32, y.floor() as u32);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let lum = |px: u32, py: u32| {
        let p = image.get_pixel(px, py).0;
        (0.299 * p[0] as f32 + 0.587 * p[1] as f32 + 0.114 * p[2] as f32) / 255.0
    };
    let top = lum(x0, y0) * (1.0 - fx) + lum(x1, y0) * fx;
    let bottom = lum(x0, y1) * (1.0 - fx) + lum(x1, y1) * fx;
    top * (1.0 - fy) + bottom * fy
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
    let mut gray = vec![0.0f32; BOARD * BOARD];
    for row in 0..BOARD {
        for col in 0..BOARD {
            let mut sum = 0.0;
            for sy in 0..samples {
                for sx in 0..samples {
                    let u = (col as f32 - MARGIN as f32 + (sx as f32 + 0.5) / samples as f32) * inv;
                    let v = (row as f32 - MARGIN as f32 + (sy as f32 + 0.5) / samples as f32) * inv;
                    let (x, y) = projection * (u, v);
                    sum += luminance(image, x - 0.5, y - 0.5);
                }
            }
            gray[row * BOARD + col] = sum / (samples * samples) as f32;
        }
    }
    Some(Rectified { gray })
}

/// The 64 crops, normalized by the board's mean and spread, in display order (row 0 is the top
/// row as displayed, column 0 the left): `64 * CROP * CROP` values.
pub fn cut_squares(board: &Rectified) -> Vec<f32> {
    let n = board.gray.len() as f32;
    let mean = board.gray.iter().sum::<f32>() / n;
    let var = board.gray.iter().map(|g| (g - mean).powi(2)).sum::<f32>() / n;
    let scale = 1.0 / (var.sqrt() + 0.05);
    let mut out = Vec::with_capacity(64 * CROP * CROP);
    for row in 0..8 {
        for col in 0..8 {
            let (x0, y0) = (col * SQUARE, row * SQUARE);
            for y in 0..CROP {
                let start = (y0 + y) * BOARD + x0;
                out.extend(
                    board.gray[start..start + CROP]
                        .iter()
                        .map(|g| (g - mean) * scale),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn degenerate_quads_are_refused() {
        let image = RgbImage::new(10, 10);
        assert!(rectify(&image, [[1.0, 1.0]; 4]).is_none());
    }
}
