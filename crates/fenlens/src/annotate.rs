//! `--annotate`: the input with the detected grid drawn and uncertain squares marked, and the
//! recognized board rendered beside it in the same orientation, for comparison.

use std::path::Path;

use anyhow::{Context, Result};
use fenlens_render::PieceSet;
use fenlens_render::draw::{draw_board, pixmap_to_rgba};
use fenlens_render::style::{BoardStyle, Coords, Tint};
use fenlens_vision::Recognition;
use fenlens_vision::rectify::board_to_picture;
use image::{Rgba, RgbaImage};
use imageproc::drawing::draw_line_segment_mut;

/// Height of the output picture.
const HEIGHT: u32 = 512;

/// Writes the annotated comparison picture.
pub fn write(input: &image::RgbImage, recognition: &Recognition, target: &Path) -> Result<()> {
    let scale = HEIGHT as f32 / input.height().max(1) as f32;
    let width = ((input.width() as f32 * scale).round() as u32).max(1);
    let mut left = image::imageops::resize(
        &image::DynamicImage::ImageRgb8(input.clone()).to_rgba8(),
        width,
        HEIGHT,
        image::imageops::FilterType::Triangle,
    );
    let corners = recognition.corners.map(|c| [c[0] * scale, c[1] * scale]);
    let projection = board_to_picture(corners).context("degenerate board corners")?;
    let point = |u: f32, v: f32| projection.map(u / 8.0, v / 8.0);
    let grid = Rgba([255, 0, 255, 255]);
    for k in 0..=8 {
        let k = k as f32;
        draw_line_segment_mut(&mut left, point(k, 0.0), point(k, 8.0), grid);
        draw_line_segment_mut(&mut left, point(0.0, k), point(8.0, k), grid);
    }
    // Uncertain squares: a red cross in the picture.
    let red = Rgba([255, 30, 30, 255]);
    for square in recognition.uncertain() {
        let (file, rank) = (square.file() as u32 as f32, square.rank() as u32 as f32);
        let (col, row) = if recognition.flipped {
            (7.0 - file, rank)
        } else {
            (file, 7.0 - rank)
        };
        draw_line_segment_mut(
            &mut left,
            point(col + 0.2, row + 0.2),
            point(col + 0.8, row + 0.8),
            red,
        );
        draw_line_segment_mut(
            &mut left,
            point(col + 0.8, row + 0.2),
            point(col + 0.2, row + 0.8),
            red,
        );
    }
    let style = BoardStyle {
        flipped: recognition.flipped,
        coords: Coords::Inside,
        highlights: recognition
            .uncertain()
            .into_iter()
            .map(|sq| {
                (
                    sq,
                    Tint {
                        rgb: [255, 40, 40],
                        alpha: 0.55,
                    },
                )
            })
            .collect(),
        ..BoardStyle::default()
    };
    let right = pixmap_to_rgba(
        &draw_board(
            &recognition.placement,
            &style,
            &PieceSet::builtin(),
            HEIGHT / 8,
        )
        .pixmap,
    );
    let mut canvas = RgbaImage::from_pixel(
        width + 16 + right.width(),
        HEIGHT,
        Rgba([255, 255, 255, 255]),
    );
    image::imageops::overlay(&mut canvas, &left, 0, 0);
    image::imageops::overlay(&mut canvas, &right, (width + 16) as i64, 0);
    canvas
        .save(target)
        .with_context(|| format!("writing {}", target.display()))?;
    Ok(())
}
