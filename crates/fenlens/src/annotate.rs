//! `--annotate`: the input with the detected grid drawn and uncertain squares marked, and the
//! recognized board rendered beside it in the same orientation, for comparison.
//!
//! With several boards (`--all-boards`, a book page with several diagrams) every grid is drawn
//! in a colour of its own with its number (1 for the first board in reading order, the JSON's
//! `board_index` 0), and each recognized board is rendered beside the picture, framed in its
//! grid's colour and numbered alike.

use std::path::Path;

use anyhow::{Context, Result};
use fenlens_render::PieceSet;
use fenlens_render::draw::{draw_board, pixmap_to_rgba};
use fenlens_render::resvg::tiny_skia::{Color, Pixmap};
use fenlens_render::style::{BoardStyle, Coords, Tint};
use fenlens_render::text::{self, Face, Pen};
use fenlens_vision::Recognition;
use fenlens_vision::rectify::board_to_picture;
use image::{Rgba, RgbaImage};
use imageproc::drawing::{draw_hollow_rect_mut, draw_line_segment_mut};
use imageproc::rect::Rect;

/// Height of the output picture with one board.
const HEIGHT: u32 = 512;

/// Height of the picture's copy with several boards: room for [`BOARDS_PER_COLUMN`] boards of
/// [`SMALL_BOARD`] pixels and the gaps between them beside it.
const HEIGHT_SEVERAL: u32 = 768;
/// Side of each recognized board rendered beside a picture with several boards.
const SMALL_BOARD: u32 = 240;
/// Most boards rendered in each column beside a picture with several boards.
const BOARDS_PER_COLUMN: u32 = 3;
/// Space between the picture and the boards, and between boards.
const GAP: u32 = 16;

/// The grid's colour for a single board.
const GRID: Rgba<u8> = Rgba([255, 0, 255, 255]);
/// Uncertain squares' crosses.
const UNCERTAIN: Rgba<u8> = Rgba([255, 30, 30, 255]);
/// The grids' colours with several boards, in turn: none of them the crosses' red.
const PALETTE: [[u8; 3]; 6] = [
    [255, 0, 255],
    [0, 110, 255],
    [255, 140, 0],
    [0, 160, 60],
    [0, 180, 200],
    [130, 60, 220],
];

/// Writes the annotated comparison picture for the boards read in `input` (one, or every board
/// of the picture in reading order).
pub fn write(input: &image::RgbImage, boards: &[Recognition], target: &Path) -> Result<()> {
    let canvas = match boards {
        [one] => one_board(input, one)?,
        several => several_boards(input, several)?,
    };
    canvas
        .save(target)
        .with_context(|| format!("writing {}", target.display()))?;
    Ok(())
}

/// The input scaled to `height` pixels, as RGBA, and the scale.
fn scaled_input(input: &image::RgbImage, height: u32) -> (RgbaImage, f32) {
    let scale = height as f32 / input.height().max(1) as f32;
    let width = ((input.width() as f32 * scale).round() as u32).max(1);
    let scaled = image::imageops::resize(
        &image::DynamicImage::ImageRgb8(input.clone()).to_rgba8(),
        width,
        height,
        image::imageops::FilterType::Triangle,
    );
    (scaled, scale)
}

/// One board: the picture with its grid, the board rendered beside it at the same height.
fn one_board(input: &image::RgbImage, recognition: &Recognition) -> Result<RgbaImage> {
    let (mut left, scale) = scaled_input(input, HEIGHT);
    draw_grid(&mut left, recognition, scale, GRID)?;
    let right = rendered_board(recognition, HEIGHT);
    Ok(side_by_side(&left, &[(right, 0, 0)]))
}

/// Several boards: the picture with every grid numbered, the boards rendered in columns beside
/// it, each framed in its grid's colour and numbered.
fn several_boards(input: &image::RgbImage, boards: &[Recognition]) -> Result<RgbaImage> {
    let (mut left, scale) = scaled_input(input, HEIGHT_SEVERAL);
    let mut beside = Vec::with_capacity(boards.len());
    // In rows as the page's diagrams usually stand: 1 2 / 3 4 / 5 6 for six.
    let columns = (boards.len() as u32).div_ceil(BOARDS_PER_COLUMN);
    for (index, recognition) in boards.iter().enumerate() {
        let [r, g, b] = PALETTE[index % PALETTE.len()];
        let colour = Rgba([r, g, b, 255]);
        draw_grid(&mut left, recognition, scale, colour)?;
        let label = (index + 1).to_string();
        // Outside the board's top-left corner, so that no square is hidden.
        let [x, y] = recognition.corners[0].map(|c| c * scale);
        let (width, height) = number_size(&label);
        stamp_number(
            &mut left,
            &label,
            colour,
            [x - width as f32, y - height as f32],
        );
        let mut board = rendered_board(recognition, SMALL_BOARD);
        let (w, h) = board.dimensions();
        for inset in 0..3 {
            draw_hollow_rect_mut(
                &mut board,
                Rect::at(inset, inset).of_size(w - 2 * inset as u32, h - 2 * inset as u32),
                colour,
            );
        }
        stamp_number(&mut board, &label, colour, [0.0, 0.0]);
        let (column, row) = (index as u32 % columns, index as u32 / columns);
        beside.push((
            board,
            column * (SMALL_BOARD + GAP),
            row * (SMALL_BOARD + GAP),
        ));
    }
    Ok(side_by_side(&left, &beside))
}

/// The picture on the left, then each board at its offset right of it, on white.
fn side_by_side(left: &RgbaImage, boards: &[(RgbaImage, u32, u32)]) -> RgbaImage {
    let right_width = boards
        .iter()
        .map(|(b, x, _)| x + b.width())
        .max()
        .unwrap_or(0);
    let height = boards
        .iter()
        .map(|(b, _, y)| y + b.height())
        .chain([left.height()])
        .max()
        .unwrap_or(0);
    let mut canvas = RgbaImage::from_pixel(
        left.width() + GAP + right_width,
        height,
        Rgba([255, 255, 255, 255]),
    );
    image::imageops::overlay(&mut canvas, left, 0, 0);
    for (board, x, y) in boards {
        image::imageops::overlay(
            &mut canvas,
            board,
            i64::from(left.width() + GAP + x),
            i64::from(*y),
        );
    }
    canvas
}

/// Draws the board's grid on the scaled picture in `colour`, and a red cross on each uncertain
/// square.
fn draw_grid(
    picture: &mut RgbaImage,
    recognition: &Recognition,
    scale: f32,
    colour: Rgba<u8>,
) -> Result<()> {
    let corners = recognition.corners.map(|c| [c[0] * scale, c[1] * scale]);
    let projection = board_to_picture(corners).context("degenerate board corners")?;
    let point = |u: f32, v: f32| projection.map(u / 8.0, v / 8.0);
    for k in 0..=8 {
        let k = k as f32;
        draw_line_segment_mut(picture, point(k, 0.0), point(k, 8.0), colour);
        draw_line_segment_mut(picture, point(0.0, k), point(8.0, k), colour);
    }
    for square in recognition.uncertain() {
        let (file, rank) = (square.file() as u32 as f32, square.rank() as u32 as f32);
        let (col, row) = if recognition.flipped {
            (7.0 - file, rank)
        } else {
            (file, 7.0 - rank)
        };
        draw_line_segment_mut(
            picture,
            point(col + 0.2, row + 0.2),
            point(col + 0.8, row + 0.8),
            UNCERTAIN,
        );
        draw_line_segment_mut(
            picture,
            point(col + 0.8, row + 0.2),
            point(col + 0.2, row + 0.8),
            UNCERTAIN,
        );
    }
    Ok(())
}

/// The recognized board rendered `side` pixels square, in the picture's orientation, with the
/// uncertain squares tinted red.
fn rendered_board(recognition: &Recognition, side: u32) -> RgbaImage {
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
    pixmap_to_rgba(
        &draw_board(
            &recognition.placement,
            &style,
            &PieceSet::builtin(),
            side / 8,
        )
        .pixmap,
    )
}

/// Size of a board's number, in pixels.
const NUMBER_SIZE: f32 = 20.0;

/// The size of [`stamp_number`]'s tab.
fn number_size(label: &str) -> (u32, u32) {
    (
        text::width(label, Face::Sans, NUMBER_SIZE).ceil() as u32 + 10,
        NUMBER_SIZE as u32 + 6,
    )
}

/// A white number on a tab of `colour` whose top-left corner is at `at` (kept inside the
/// picture).
fn stamp_number(picture: &mut RgbaImage, label: &str, colour: Rgba<u8>, at: [f32; 2]) {
    let (width, height) = number_size(label);
    let Some(mut tab) = Pixmap::new(width, height) else {
        return;
    };
    let [r, g, b, _] = colour.0;
    tab.fill(Color::from_rgba8(r, g, b, 255));
    text::draw(
        &mut tab,
        label,
        Pen::new(Face::Sans, NUMBER_SIZE, [255, 255, 255]),
        5.0,
        NUMBER_SIZE - 1.0,
    );
    let x = (at[0].max(0.0) as u32).min(picture.width().saturating_sub(width));
    let y = (at[1].max(0.0) as u32).min(picture.height().saturating_sub(height));
    image::imageops::overlay(picture, &pixmap_to_rgba(&tab), i64::from(x), i64::from(y));
}
