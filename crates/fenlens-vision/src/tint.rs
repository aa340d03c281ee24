//! Tint: empty squares under a coloured arrow and nothing else.
//!
//! Arrows are drawn over the board half-transparent in one colour (python-chess's `chess.svg`:
//! green, red and blue at opacity 0.5, yellow at 0.7). Over an empty square a shaft or a head is a
//! band or a wedge of one tone, and in the grey crops the networks read it looks like the edge
//! of a piece: such squares read as pawns or rooks, flagged (sixty-eighth session: 5 of 60
//! `chess.svg` boards with 1-3 arrows, and 7 of 1,000 pictures of `scripts/other-programs`).
//! In colour it is plain: every pixel of the square is either the square's own colour or that
//! colour moved towards one other colour, which is not a grey. A piece is drawn in several
//! tones (outline, body, shine) and, under an arrow, in tones that move towards black or white
//! from the square; so a square is [`tinted_cells`] when all of these hold:
//!
//! - what differs from the square's colour (by more than [`MARKED_FROM`]) makes at least
//!   [`LEAST_MARKED`] of the square and is that colour blended with one other, the tint (all
//!   but [`STRAY_SHARE`] of it within [`SEGMENT_REACH`] of the segment between the two);
//! - the tint brings a hue the square's colour has not ([`LEAST_NEW_HUE`]): a piece, black,
//!   white or grey, on a square of any colour, in a photograph's cast light or printed on toned
//!   paper, shows the square's hue or none, only lighter or darker;
//! - some colour laid over the square's at most [`MOST_OPACITY`] opaque gives the tint: an
//!   arrow is half-transparent, while a design's dark red or blue piece is painted;
//! - what is marked goes on across the square's edge into a neighbour ([`goes_on`]), as an
//!   arrow that comes from or goes on to a neighbour does; a piece of one colour, however
//!   blurred (a design's dark red or blue pieces on a thumbnail), ends at its square's edge.
//!
//! A square under a whole-square highlight with nothing on it passes too, rightly. The square's
//! own colour is the median, over the squares of its colour, of their samples: most of a
//! square of each colour is bare on any board. The tests can still pass a design's coloured
//! pieces in a blurred photograph, blurred into one another along a crowded rank, so the
//! classifier takes a tinted square as blank only where its networks doubt what they read
//! there ([`crate::classify::TINT_OVERRULES_BELOW`]). The renderer's lichess arrows, at opacity
//! 0.8, fail [`MOST_OPACITY`] on their heads and are left to the networks, as before.
//!
//! Assumes the picture's colours as drawn (no grey picture: there the test never passes) and
//! the four corners of [`crate::rectify`].

use image::RgbImage;

use crate::rectify::BoardToPicture;

/// Samples across and down a square, evenly spaced from its edge inwards ([`EDGE_INSET`]).
const SAMPLES: usize = 12;

/// How far inside a square's edge, as a share of its side, the outermost samples stand: inside
/// the grid line and the locator's error.
const EDGE_INSET: f32 = 0.08;

/// How far (Euclidean, channels 0-1) a sample must lie from the square's colour to be marked.
pub const MARKED_FROM: f32 = 0.1;

/// The least share of a square's samples that must be marked: fewer is a speck, which the
/// blank test and the networks judge.
pub const LEAST_MARKED: f32 = 0.05;

/// The samples whose difference reaches this share of the furthest along the median direction
/// give the tint's colour (their median).
pub const STRONGEST: f32 = 0.8;

/// How far (Euclidean, channels 0-1) a marked sample may lie from the segment between the
/// square's colour and the tint's.
pub const SEGMENT_REACH: f32 = 0.08;

/// The share of marked samples that may stray from the segment (a JPEG's ringing, a blend at
/// the band's edge with the grid line).
pub const STRAY_SHARE: f32 = 0.04;

/// How much hue the tint must bring that the square's colour has not ([`new_hue`], Euclidean,
/// channels 0-1): `chess.svg`'s half-transparent green over light grey brings 0.16, its red
/// over its orange squares 0.08; a black pawn or a piece printed on toned paper about 0.01.
pub const LEAST_NEW_HUE: f32 = 0.05;

/// For each square (display order), whether it holds nothing but a tint of one colour reaching
/// its edge (the module's test). `image` is the picture, `projection` the board's map into it.
pub fn tinted_cells(image: &RgbImage, projection: &BoardToPicture) -> [bool; 64] {
    if image.width() == 0 || image.height() == 0 {
        return [false; 64];
    }
    let squares: Vec<Vec<[f32; 3]>> = (0..64)
        .map(|cell| square_samples(image, projection, cell))
        .collect();
    let parity = |cell: usize| (cell % 8 + cell / 8) % 2;
    let own = [0, 1].map(|colour| {
        let of_colour: Vec<&[f32; 3]> = (0..64)
            .filter(|&cell| parity(cell) == colour)
            .flat_map(|cell| squares[cell].iter())
            .collect();
        median_colour(&of_colour)
    });
    let own_of = |cell: usize| own[parity(cell)];
    let away: Vec<Vec<f32>> = (0..64)
        .map(|cell| {
            let own = own_of(cell);
            squares[cell]
                .iter()
                .map(|s| length(std::array::from_fn(|k| s[k] - own[k])))
                .collect()
        })
        .collect();
    std::array::from_fn(|cell| {
        tinted_only(&squares[cell], &away[cell], own_of(cell))
            .is_some_and(|span| goes_on(cell, &away, span))
    })
}

/// Whether the tint on square `cell`'s edge goes on across it: the neighbour's sample just
/// across (or one beside it; across a corner, the diagonal neighbour's corner) lies at least
/// [`GOES_ON_SHARE`] of the tint's `span` from its own colour too (and is marked). An arrow
/// comes from a neighbour or goes on to one, as strong there; a piece ends at its square's edge,
/// where a blurred one leaves its neighbour a faint trace. `away` holds each square's samples'
/// distances from its colour, row by row.
fn goes_on(cell: usize, away: &[Vec<f32>], span: f32) -> bool {
    let strong = (GOES_ON_SHARE * span).max(MARKED_FROM);
    let (col, row) = ((cell % 8) as i32, (cell / 8) as i32);
    let last = SAMPLES as i32 - 1;
    let is_marked = |col: i32, row: i32, i: i32, j: i32| {
        (0..8).contains(&col)
            && (0..8).contains(&row)
            && (0..=last).contains(&i)
            && (0..=last).contains(&j)
            && away[(row * 8 + col) as usize][(j * SAMPLES as i32 + i) as usize] > strong
    };
    // Which way a sample at `at` (0 or last) leaves its square along one axis: -1, 0 or 1.
    let side = |at: i32| match at {
        0 => -1,
        a if a == last => 1,
        _ => 0,
    };
    (0..SAMPLES as i32).any(|j| {
        (0..SAMPLES as i32).any(|i| {
            let (dx, dy) = (side(i), side(j));
            let marked = away[cell][(j * SAMPLES as i32 + i) as usize] > MARKED_FROM;
            if (dx, dy) == (0, 0) || !marked {
                return false;
            }
            // Where the sample's position falls in the neighbour across each edge it touches.
            let wrap = |at: i32, d: i32| if d == 0 { at } else { last - at };
            let across = |cx: i32, cy: i32| {
                (-1..=1).any(|shift| {
                    let (i, j) = (wrap(i, cx), wrap(j, cy));
                    let (i, j) = if cx == 0 {
                        (i + shift, j)
                    } else {
                        (i, j + shift)
                    };
                    is_marked(col + cx, row + cy, i, j)
                })
            };
            (dx != 0 && across(dx, 0))
                || (dy != 0 && across(0, dy))
                || (dx != 0 && dy != 0 && across(dx, dy))
        })
    })
}

/// The square's samples, row by row, the picture's channels scaled to 0-1.
fn square_samples(image: &RgbImage, projection: &BoardToPicture, cell: usize) -> Vec<[f32; 3]> {
    let (col, row) = ((cell % 8) as f32, (cell / 8) as f32);
    let step = (1.0 - 2.0 * EDGE_INSET) / (SAMPLES - 1) as f32;
    let mut samples = Vec::with_capacity(SAMPLES * SAMPLES);
    for j in 0..SAMPLES {
        for i in 0..SAMPLES {
            let u = (col + EDGE_INSET + i as f32 * step) / 8.0;
            let v = (row + EDGE_INSET + j as f32 * step) / 8.0;
            let (x, y) = projection.map(u, v);
            samples.push(bilinear(image, x - 0.5, y - 0.5));
        }
    }
    samples
}

/// The picture's colour at (`x`, `y`) in pixel-index coordinates, bilinear, clamped to the
/// picture; channels 0-1.
fn bilinear(image: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = image.dimensions();
    let x = if x.is_finite() {
        x.clamp(0.0, (w - 1) as f32)
    } else {
        0.0
    };
    let y = if y.is_finite() {
        y.clamp(0.0, (h - 1) as f32)
    } else {
        0.0
    };
    let (x0, y0) = (x as u32, y as u32);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let at = |px: u32, py: u32| image.get_pixel(px, py).0.map(|c| f32::from(c) / 255.0);
    let (a, b, c, d) = (at(x0, y0), at(x1, y0), at(x0, y1), at(x1, y1));
    std::array::from_fn(|k| {
        let top = a[k] * (1.0 - fx) + b[k] * fx;
        let bottom = c[k] * (1.0 - fx) + d[k] * fx;
        top * (1.0 - fy) + bottom * fy
    })
}

/// Each channel's median over `colours` ([`crate::cover::median`]).
fn median_colour(colours: &[&[f32; 3]]) -> [f32; 3] {
    std::array::from_fn(|k| {
        let mut channel: Vec<f32> = colours.iter().map(|c| c[k]).collect();
        crate::cover::median(&mut channel)
    })
}

/// Whether `samples` (one square's, row by row) are `own` colour and one tint of it, a hue of
/// its own laid over it (the module's test, less where the tint goes): the tint's distance
/// from `own` where they are, `None` where not. `away` holds each sample's distance from
/// `own`.
fn tinted_only(samples: &[[f32; 3]], away: &[f32], own: [f32; 3]) -> Option<f32> {
    let differences: Vec<(usize, [f32; 3])> = samples
        .iter()
        .zip(away)
        .enumerate()
        .filter(|(_, (_, away))| **away > MARKED_FROM)
        .map(|(at, (s, _))| (at, std::array::from_fn(|k| s[k] - own[k])))
        .collect();
    if (differences.len() as f32) < LEAST_MARKED * samples.len() as f32 {
        return None;
    }
    // The tint's colour: the median of the samples furthest from the square's colour along
    // the differences' median direction.
    let directions: Vec<[f32; 3]> = differences.iter().map(|(_, d)| unit(*d)).collect();
    let direction = unit(median_colour(&directions.iter().collect::<Vec<_>>()));
    let reach = |d: &[f32; 3]| dot(*d, direction);
    let furthest = differences
        .iter()
        .map(|(_, d)| reach(d))
        .fold(0.0, f32::max);
    let strongest: Vec<&[f32; 3]> = differences
        .iter()
        .filter(|(_, d)| reach(d) >= STRONGEST * furthest)
        .map(|(at, _)| &samples[*at])
        .collect();
    let tint = median_colour(&strongest);
    let towards: [f32; 3] = std::array::from_fn(|k| tint[k] - own[k]);
    let span = length(towards);
    if span <= MARKED_FROM {
        return None;
    }
    // Every marked sample is the square's colour blended with the tint: on the segment
    // between them.
    let strays = differences
        .iter()
        .filter(|(_, d)| {
            let share = (dot(*d, towards) / (span * span)).clamp(0.0, 1.0);
            length(std::array::from_fn(|k| d[k] - share * towards[k])) > SEGMENT_REACH
        })
        .count();
    if strays as f32 > STRAY_SHARE * differences.len() as f32 {
        return None;
    }
    // The tint brings a colour of its own: its hue is not the square's. A piece on a square
    // of any colour, in a photograph's cast light or on toned paper, shows the square's hue or
    // none (black, white, grey), only lighter or darker.
    if new_hue(own, tint) < LEAST_NEW_HUE {
        return None;
    }
    // And it is laid over the square, not painted: some colour at most MOST_OPACITY opaque over
    // the square's gives it. A design's dark red piece on a light square needs 0.9 and more.
    (least_opacity(own, tint) <= MOST_OPACITY).then_some(span)
}

/// The least opacity at which some colour laid over `own` gives `tint`: each channel's
/// distance towards 0 or 1, as a share of how far that end is.
fn least_opacity(own: [f32; 3], tint: [f32; 3]) -> f32 {
    (0..3)
        .map(|k| {
            if tint[k] < own[k] {
                (own[k] - tint[k]) / own[k].max(1e-6)
            } else {
                (tint[k] - own[k]) / (1.0 - own[k]).max(1e-6)
            }
        })
        .fold(0.0, f32::max)
}

/// How strong, as a share of the tint's distance from its square's colour, the neighbour's
/// sample across the edge must be ([`goes_on`]): an arrow over the other colour of square is
/// 0.57-0.65 as far from it (`chess.svg`'s red over its orange squares, its green over grey).
pub const GOES_ON_SHARE: f32 = 0.4;

/// The most opacity an arrow is drawn with that the test takes (`chess.svg` 0.5 and 0.7). A
/// foreign design's dark red pieces (pychess's freestaunton) on light squares need 0.9 and
/// more; blurred in a photograph, 0.55-0.65.
pub const MOST_OPACITY: f32 = 0.7;

/// A colour less its grey: what is left of it once its channels' mean is taken away.
fn hue_part(c: [f32; 3]) -> [f32; 3] {
    let mean = c.iter().sum::<f32>() / 3.0;
    c.map(|v| v - mean)
}

/// How much of `tint`'s [`hue_part`] the square's own (`own`'s) cannot give, however scaled:
/// its length across the line of `own`'s (all of it where `own` is a grey).
fn new_hue(own: [f32; 3], tint: [f32; 3]) -> f32 {
    let (own, tint) = (hue_part(own), hue_part(tint));
    let across = if length(own) < GREY_BELOW {
        tint
    } else {
        let line = unit(own);
        let along = dot(tint, line);
        std::array::from_fn(|k| tint[k] - along * line[k])
    };
    length(across)
}

/// A colour whose [`hue_part`] is shorter than this counts as a grey.
const GREY_BELOW: f32 = 0.02;

fn length(v: [f32; 3]) -> f32 {
    dot(v, v).sqrt()
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `v` scaled to length 1 (the zero vector stays zero).
fn unit(v: [f32; 3]) -> [f32; 3] {
    let l = length(v);
    if l > 0.0 { v.map(|c| c / l) } else { v }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rectify::board_to_picture;
    use image::Rgb;

    const SIDE: u32 = 40;

    /// A 320-pixel board of two greys (light where a8 is), each pixel drawn by `draw` over it
    /// (picture x, y and the square's colour; `None` keeps the square's).
    fn board(draw: impl Fn(u32, u32, [f32; 3]) -> Option<[f32; 3]>) -> RgbImage {
        RgbImage::from_fn(8 * SIDE, 8 * SIDE, |x, y| {
            let light = ((x / SIDE) + (y / SIDE)) % 2 == 0;
            let own = if light { [0.91; 3] } else { [0.63; 3] };
            let colour = draw(x, y, own).unwrap_or(own);
            Rgb(colour.map(|c| (c * 255.0).round() as u8))
        })
    }

    fn over(under: [f32; 3], colour: [f32; 3], alpha: f32) -> [f32; 3] {
        std::array::from_fn(|k| under[k] * (1.0 - alpha) + colour[k] * alpha)
    }

    fn cells(image: &RgbImage) -> [bool; 64] {
        let side = (8 * SIDE) as f32;
        let corners = [[0.0, 0.0], [side, 0.0], [side, side], [0.0, side]];
        tinted_cells(image, &board_to_picture(corners).expect("a square"))
    }

    const GREEN: [f32; 3] = [0.08, 0.47, 0.11];

    #[test]
    fn a_coloured_band_over_empty_squares_is_a_tint_and_pieces_under_it_are_not() {
        // A half-transparent green band down the c-file (x 90-110), over a black disc on c6
        // (cell 18) and nothing else. Not tints: a disc of that same green on f4 (cell 37),
        // standing inside its square; a grey band across a2 and b2 (cells 48 and 49); an
        // opaque dark red band down the h-file (x 290-310). A second green band down the
        // e-file (x 170-190) is a tint, but not on e4 (cell 36), where a blue patch lies beside it.
        let image = board(|x, y, own| {
            let disc = |cx: f32, cy: f32| {
                (x as f32 + 0.5 - cx).hypot(y as f32 + 0.5 - cy) < 0.3 * SIDE as f32
            };
            let mut colour = own;
            if disc(100.0, 100.0) {
                colour = [0.05; 3];
            }
            if disc(220.0, 180.0) {
                colour = over(colour, GREEN, 0.5);
            }
            if (90..110).contains(&x) {
                colour = over(colour, GREEN, 0.5);
            }
            if x < 80 && (250..265).contains(&y) {
                colour = over(colour, [0.2; 3], 0.5);
            }
            if (290..310).contains(&x) {
                colour = [0.5, 0.05, 0.05];
            }
            if (170..190).contains(&x) {
                colour = over(colour, GREEN, 0.5);
            }
            if (190..200).contains(&x) && (170..180).contains(&y) {
                colour = over(colour, [0.0, 0.19, 0.53], 0.5);
            }
            Some(colour)
        });
        let tinted = cells(&image);
        let files: Vec<usize> = (0..8)
            .flat_map(|row| [row * 8 + 2, row * 8 + 4])
            .filter(|&c| c != 18 && c != 36)
            .collect();
        for (cell, tinted) in tinted.iter().enumerate() {
            assert_eq!(*tinted, files.contains(&cell), "cell {cell}");
        }
    }

    #[test]
    fn a_plain_board_and_a_grey_picture_have_no_tint() {
        assert_eq!(cells(&board(|_, _, _| None)), [false; 64]);
        // The same band, but grey: a darker stroke is what a piece's outline looks like.
        let grey = board(|x, _, own| (90..110).contains(&x).then(|| over(own, [0.3; 3], 0.5)));
        assert_eq!(cells(&grey), [false; 64]);
    }

    #[test]
    fn squares_under_a_rendered_arrow_are_tinted_where_empty() {
        use fenlens_fen::shakmaty::{Board, Square};
        use fenlens_render::draw::{draw_board, pixmap_to_rgba};
        use fenlens_render::pieces::PieceSet;
        use fenlens_render::style::{ARROW_GREEN, BoardStyle, Tint};
        // Half-transparent, as `chess.svg` draws its arrows.
        let green = Tint {
            alpha: 0.5,
            ..ARROW_GREEN
        };
        let style = BoardStyle {
            arrows: vec![(Square::E2, Square::E4, green)],
            ..BoardStyle::default()
        };
        let drawn = draw_board(&Board::default(), &style, &PieceSet::builtin(), 48);
        let picture = image::DynamicImage::ImageRgba8(pixmap_to_rgba(&drawn.pixmap)).to_rgb8();
        let projection = board_to_picture(drawn.corners()).expect("a square");
        let tinted = tinted_cells(&picture, &projection);
        // e3 and e4 (display cells 44 and 36) are empty under the shaft and the head; e2's
        // pawn (cell 52) stands under the tail.
        for (cell, tinted) in tinted.iter().enumerate() {
            assert_eq!(*tinted, cell == 36 || cell == 44, "cell {cell}");
        }
    }
}
