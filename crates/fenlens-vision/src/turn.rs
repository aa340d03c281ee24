//! Turn: a board whose pieces lie on their sides or stand on their heads.
//!
//! The locator gives a board's corners in the picture's order: the top-left corner is the one
//! nearest the picture's top-left ([`crate::locate`]). A board turned more than 45 degrees in
//! the picture (a book page photographed sideways, a screenshot turned over) then comes out of
//! the rectifier turned a quarter or a half turn, every piece on its side or on its head, and
//! the placement read from it is the position turned. Which side is at the bottom
//! ([`crate::orient`]) only ever undoes a half turn of the squares, never of the drawings.
//!
//! The networks were trained on upright pieces only. So the crops of the squares read as
//! pieces are read again turned by one, two and three quarter turns ([`turn_crop`]); where one
//! turn reads them much more surely than the crops as they are ([`sureness`]: at least
//! [`GAIN_FROM`] more, and at least [`SURE_FROM`] itself), the board stands turned that way.
//! The picture is then turned so that the board stands upright in it ([`turn_picture`],
//! [`turn_point`]; the coordinate labels beside it are read upright too) and
//! [`turn_corners`] names the board's corners in its own order. Nothing is done where the
//! first reading is already sure ([`CHECK_BELOW`]), so an upright board of a design the
//! networks know costs nothing, and the first member alone reads the turned crops before the
//! whole classifier does ([`PROMISING_FROM`]), so that a design never seen, unsure every way,
//! costs little more.
//!
//! Measured (sixty-ninth session, `cargo run --release -p fenlens-vision --example
//! turn_sureness DIR [--turned]`, at the true corners): of 6,513 upright boards of the
//! measuring sets (14 foreign designs, 11 chess fonts, the held-out lichess designs;
//! photographs, book diagrams and thumbnails among them) none reads surely enough turned,
//! though 276 read more surely turned some way than upright (chess fonts on their heads, one
//! font on its side); the closest came within 0.043 of the bounds. Of boards turned each way,
//! three in four of the lichess designs' are found turned, a quarter of the foreign designs'
//! and few of the fonts': a turned board the networks cannot read surely either way is left
//! as it is.
//!
//! Assumes the crops of [`crate::rectify::cut_cells`] (square, so a quarter turn keeps their
//! shape) and a classifier trained on upright pieces.

use image::RgbImage;
use image::imageops::{rotate90, rotate180, rotate270};

use crate::VisionError;
use crate::classify::{BoardReading, CLASSES, Classifier, best_class};
use crate::rectify::{CROP, Rectified, cut_cells};

/// A board whose pieces the first reading gives at least this [`sureness`] is not looked at
/// turned. Every turn that could be taken needs the crops as they are read at least
/// [`GAIN_FROM`] less surely than [`SURE_FROM`]; the first reading (with its second looks) is
/// close to that reading. Sixty-ninth session: of the turned boards found with no bound, 2 in
/// 507 were read surer than this; of the upright boards, half as many as under -0.1 are looked
/// at turned (1,379 of 6,513, nearly all of designs never seen).
pub const CHECK_BELOW: f32 = -0.3;

/// Where the first member alone ([`Classifier::first_member_probabilities`]) reads the pieces
/// turned less surely than this, every turn, the board is taken as upright without asking the
/// whole classifier. Sixty-ninth session: every turned board found read at least -0.1 there;
/// a third of the upright boards looked at turned read -0.3 or more.
pub const PROMISING_FROM: f32 = -0.2;

/// The [`sureness`] the pieces must be read with, turned, for the board to be taken as turned.
pub const SURE_FROM: f32 = -0.03;

/// How much surer the pieces must be read turned than as they are.
pub const GAIN_FROM: f32 = 0.3;

/// Fewest squares read as pieces for the turn to be judged: one piece is too few to tell a
/// design that reads surely on its side from a board that stands turned.
pub const FEWEST_PIECES: usize = 2;

/// How surely the networks read a set of squares as pieces: the mean, over the squares, of
/// the natural log of the likeliest piece's probability (0 where every square is surely some
/// piece; an empty slice gives 0).
pub fn sureness(rows: &[[f32; CLASSES]]) -> f32 {
    if rows.is_empty() {
        return 0.0;
    }
    let total: f32 = rows
        .iter()
        .map(|row| {
            row[1..]
                .iter()
                .fold(0.0f32, |a, &b| a.max(b))
                .max(1e-6)
                .ln()
        })
        .sum();
    total / rows.len() as f32
}

/// One `CROP`×`CROP` crop turned a quarter turn clockwise.
pub fn turn_crop(crop: &[f32]) -> Vec<f32> {
    let mut turned = vec![0.0; CROP * CROP];
    for y in 0..CROP {
        for x in 0..CROP {
            turned[y * CROP + x] = crop[(CROP - 1 - x) * CROP + y];
        }
    }
    turned
}

/// Every crop of a batch (`CROP`×`CROP` values each, one after another) turned a quarter turn
/// clockwise ([`turn_crop`]).
pub fn turn_crops(crops: &[f32]) -> Vec<f32> {
    crops
        .chunks_exact(CROP * CROP)
        .flat_map(turn_crop)
        .collect()
}

/// The squares (display order) the board's first `reading` gives a piece: not blank, and a
/// piece its best class. These are the squares whose drawings tell which way up they stand.
pub fn piece_cells(reading: &BoardReading) -> Vec<usize> {
    (0..64)
        .filter(|&cell| !reading.blank[cell] && best_class(&reading.probabilities[cell]) != 0)
        .collect()
}

/// How many quarter turns clockwise the squares' drawings must be turned to stand upright
/// (0-3; 0 where the board stands upright or cannot be told), from the board's first
/// `reading`.
pub fn quarter_turns(
    classifier: &Classifier,
    board: &Rectified,
    reading: &BoardReading,
) -> Result<usize, VisionError> {
    let pieces = piece_cells(reading);
    if pieces.len() < FEWEST_PIECES {
        return Ok(0);
    }
    let first: Vec<[f32; CLASSES]> = pieces
        .iter()
        .map(|&cell| reading.probabilities[cell])
        .collect();
    if sureness(&first) >= CHECK_BELOW {
        return Ok(0);
    }
    let as_they_are = cut_cells(board, &pieces, 0);
    // The crops turned once, twice and three times, one after another.
    let mut turned = Vec::with_capacity(3 * as_they_are.len());
    let mut last = as_they_are.clone();
    for _ in 1..4 {
        last = turn_crops(&last);
        turned.extend_from_slice(&last);
    }
    let per_turn = |rows: &[[f32; CLASSES]]| -> Vec<f32> {
        rows.chunks_exact(pieces.len()).map(sureness).collect()
    };
    let quick = per_turn(&classifier.first_member_probabilities(&turned)?);
    if quick.iter().all(|&s| s < PROMISING_FROM) {
        return Ok(0);
    }
    let full = per_turn(&classifier.probabilities(&turned)?);
    let Some((best, &surest)) = full.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) else {
        return Ok(0);
    };
    if surest < SURE_FROM {
        return Ok(0);
    }
    let unturned = sureness(&classifier.probabilities(&as_they_are)?);
    Ok(if surest - unturned >= GAIN_FROM {
        best + 1
    } else {
        0
    })
}

/// The corners (top-left, top-right, bottom-right, bottom-left) of the board whose squares'
/// drawings stand upright after `turns` quarter turns clockwise: the same four points, named
/// from another one.
pub fn turn_corners(corners: [[f32; 2]; 4], turns: usize) -> [[f32; 2]; 4] {
    std::array::from_fn(|i| corners[(i + 4 - turns % 4) % 4])
}

/// The picture turned `turns` quarter turns clockwise.
pub fn turn_picture(image: &RgbImage, turns: usize) -> RgbImage {
    match turns % 4 {
        1 => rotate90(image),
        2 => rotate180(image),
        3 => rotate270(image),
        _ => image.clone(),
    }
}

/// Where a point of a `width`×`height` picture (pixel units, the picture's top-left corner at
/// (0, 0)) lies once the picture is turned `turns` quarter turns clockwise ([`turn_picture`]).
pub fn turn_point([x, y]: [f32; 2], width: u32, height: u32, turns: usize) -> [f32; 2] {
    let (mut point, mut size) = ([x, y], [width as f32, height as f32]);
    for _ in 0..turns % 4 {
        // A quarter turn clockwise: the left edge becomes the top, the bottom the left.
        point = [size[1] - point[1], point[0]];
        size = [size[1], size[0]];
    }
    point
}

/// Where a point of the picture turned `turns` quarter turns clockwise lies in the picture as
/// it was, `width`×`height` (the inverse of [`turn_point`]).
pub fn turn_point_back(point: [f32; 2], width: u32, height: u32, turns: usize) -> [f32; 2] {
    let turned = turns % 4;
    let (width, height) = if turned % 2 == 1 {
        (height, width)
    } else {
        (width, height)
    };
    turn_point(point, width, height, (4 - turned) % 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_quarter_turns_give_the_crop_back_and_one_turns_it_clockwise() {
        let crop: Vec<f32> = (0..CROP * CROP).map(|i| i as f32).collect();
        let once = turn_crop(&crop);
        // Clockwise: the top-left pixel goes to the top-right, the bottom-left to the top-left.
        assert_eq!(once[CROP - 1], crop[0]);
        assert_eq!(once[0], crop[(CROP - 1) * CROP]);
        assert_ne!(once, crop);
        let four = (0..3).fold(once, |c, _| turn_crop(&c));
        assert_eq!(four, crop);
    }

    #[test]
    fn turned_corners_are_the_same_points_named_from_another() {
        let corners = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        assert_eq!(turn_corners(corners, 0), corners);
        assert_eq!(turn_corners(corners, 4), corners);
        assert_eq!(
            turn_corners(corners, 1),
            [[0.0, 10.0], [0.0, 0.0], [10.0, 0.0], [10.0, 10.0]]
        );
        assert_eq!(turn_corners(turn_corners(corners, 1), 3), corners);
    }

    #[test]
    fn points_turn_with_the_picture_and_back() {
        // A 4x2 picture whose top-left pixel is marked: turned a quarter clockwise it is 2x4,
        // the mark in its top-right pixel, whose centre the mark's centre maps to.
        let mut image = RgbImage::new(4, 2);
        image.put_pixel(0, 0, image::Rgb([255, 0, 0]));
        let turned = turn_picture(&image, 1);
        assert_eq!(turned.dimensions(), (2, 4));
        assert_eq!(turned.get_pixel(1, 0)[0], 255);
        assert_eq!(turn_point([0.5, 0.5], 4, 2, 1), [1.5, 0.5]);
        for turns in 0..4 {
            let marked = turn_point([0.5, 0.5], 4, 2, turns);
            let (x, y) = (marked[0] as u32, marked[1] as u32);
            assert_eq!(
                turn_picture(&image, turns).get_pixel(x, y)[0],
                255,
                "{turns}"
            );
            let back = turn_point_back(turn_point([3.0, 1.25], 4, 2, turns), 4, 2, turns);
            assert_eq!(back, [3.0, 1.25], "{turns}");
        }
    }

    #[test]
    fn sureness_is_the_mean_log_of_the_likeliest_piece() {
        let mut sure = [0.0; CLASSES];
        sure[3] = 1.0;
        let mut split = [0.0; CLASSES];
        split[1] = 0.5;
        split[2] = 0.5;
        assert_eq!(sureness(&[sure]), 0.0);
        assert!((sureness(&[sure, split]) - 0.5f32.ln() / 2.0).abs() < 1e-6);
        // The empty class does not count: a square read as surely empty is unsure as a piece.
        let mut empty = [0.0; CLASSES];
        empty[0] = 1.0;
        assert!(sureness(&[empty]) < -10.0);
        assert_eq!(sureness(&[]), 0.0);
    }
}
