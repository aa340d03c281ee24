//! Cover: squares hidden under something that is not the board.
//!
//! A screenshot taken when a game ends often has a dialog over the middle of the board ("White
//! wins", a rematch button); a banner or a pop-up may cover a corner. Under such a panel every
//! square shows the panel's flat colour, so the classifier reads the pieces there as empty,
//! surely, and nothing would tell the user to look.
//!
//! On the board, any two squares side by side differ: one light, one dark. A last-move
//! highlight or a selection tints a square but keeps most of that difference, since it is laid
//! over the square half-transparent; a check glow or an arrow covers one square or a thin band.
//! A panel instead gives neighbouring squares of both colours one grey. So two neighbouring
//! squares are [`covered_squares`] when their backgrounds (the median grey of a ring just inside
//! a square's edges, where pieces rarely reach) are nearly the same ([`SAME_GREY`] of the
//! light-dark difference) and at least one of them is far from its own colour's background on
//! this board ([`UNLIKE_BOARD`]; a white panel over a board whose light squares are nearly
//! white leaves those alike), and both rings are flat ([`FLAT`]): a large piece reaching into
//! the ring, as dark as its neighbour, is not a panel. Joined squares form patches, and a
//! patch is a cover when at least [`MIN_UNLIKE`] of its squares are unlike the board (an opaque
//! highlight makes one or two). A panel's edge rarely follows the squares' edges, and its text
//! makes its rings uneven, so the squares around a cover that show the cover's grey (unlike their
//! own colour) over at least [`EDGE_SHARE`] of their pixels are covered too: a piece half hidden
//! under the panel is misread as surely as a whole one (twenty-fifth session: on
//! `scripts/measuring-copies.py dialog`, misread squares flagged 83.0 → 93.5%, white panels'
//! unflagged misreads 41 → 21; no other set's flags changed).
//!
//! Assumes the rectified board of [`crate::rectify`]: squares of [`SQUARE`] pixels after a
//! margin of [`crate::rectify::MARGIN`], grey levels 0-1, display order (top-left square first).

use crate::rectify::{BOARD, Rectified, SQUARE};
use crate::silhouette::cell_origin;

/// How far a square's background must lie from its colour's (the median over the board's
/// squares of that colour), as a share of the difference between the light and the dark
/// squares, to be unlike the board. A half-transparent highlight moves it less.
pub const UNLIKE_BOARD: f32 = 0.5;

/// How close two neighbours' backgrounds must be, as a share of the light-dark difference, to
/// be one panel.
pub const SAME_GREY: f32 = 0.15;

/// How far apart the lightest and darkest tenths of a square's ring may lie, as a share of the
/// light-dark difference, for the square to be flat like a panel.
pub const FLAT: f32 = 0.25;

/// How many squares unlike the board a patch of joined squares must hold to be a cover: one
/// square under an opaque highlight joins its neighbours of the other colour, and a pawn's
/// one-square move highlights two.
pub const MIN_UNLIKE: usize = 3;

/// A square beside a cover is under its edge when this share of its pixels shows the cover's
/// grey (and that grey is unlike the square's own colour).
pub const EDGE_SHARE: f32 = 0.25;

/// Boards whose light and dark squares differ by less than this grey are not checked (the
/// shares above would be within noise).
const MIN_CONTRAST: f32 = 0.08;

/// The ring's inner and outer distance from the square's edge, in pixels: inside the grid line
/// and the locator's error, outside most pieces.
const RING: (usize, usize) = (2, 5);

/// The median grey of the ring just inside one square's edges, and how far apart its lightest
/// and darkest tenths lie (a flat panel's ring is one grey; a piece reaching into it or a
/// textured square spreads it).
fn ring_background(board: &Rectified, cell: usize) -> (f32, f32) {
    let (x0, y0) = cell_origin(cell);
    let mut greys = Vec::with_capacity(SQUARE * SQUARE);
    for y in RING.0..SQUARE - RING.0 {
        for x in RING.0..SQUARE - RING.0 {
            let depth = x.min(y).min(SQUARE - 1 - x).min(SQUARE - 1 - y);
            if depth < RING.1 {
                greys.push(board.gray[(y0 + y) * BOARD + x0 + x]);
            }
        }
    }
    // Sorted whole: the spread reads two deciles beside the middle.
    greys.sort_by(f32::total_cmp);
    let middle = greys[greys.len() / 2];
    let spread = greys[greys.len() * 9 / 10] - greys[greys.len() / 10];
    (middle, spread)
}

/// The middle value (the upper of the two middles of an even count); 0 for none. The values
/// are left reordered (partly: selected, not sorted, which is what makes it quick).
pub(crate) fn median(values: &mut [f32]) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let middle = values.len() / 2;
    *values.select_nth_unstable_by(middle, f32::total_cmp).1
}

/// Which squares, in display order, lie under something flat that is not the board.
pub fn covered_squares(board: &Rectified) -> [bool; 64] {
    let rings: [(f32, f32); 64] = std::array::from_fn(|cell| ring_background(board, cell));
    let backgrounds = rings.map(|(middle, _)| middle);
    let is_light = |cell: usize| (cell % 8 + cell / 8) % 2 == 0;
    let of_colour = |light: bool| -> f32 {
        let mut greys: Vec<f32> = (0..64)
            .filter(|&c| is_light(c) == light)
            .map(|c| backgrounds[c])
            .collect();
        median(&mut greys)
    };
    let (light, dark) = (of_colour(true), of_colour(false));
    let contrast = (light - dark).abs();
    if contrast < MIN_CONTRAST {
        return [false; 64];
    }
    let unlike: [bool; 64] = std::array::from_fn(|cell| {
        let own = if is_light(cell) { light } else { dark };
        (backgrounds[cell] - own).abs() > UNLIKE_BOARD * contrast
    });
    let flat = |c: usize| rings[c].1 < FLAT * contrast;
    let joined = |a: usize, b: usize| {
        flat(a)
            && flat(b)
            && (unlike[a] || unlike[b])
            && (backgrounds[a] - backgrounds[b]).abs() < SAME_GREY * contrast
    };
    // Squares joined into one patch; a patch with enough squares unlike the board is a cover.
    let mut covered = [false; 64];
    // The grey of the cover each covered square belongs to.
    let mut panels: [Option<f32>; 64] = [None; 64];
    let mut seen = [false; 64];
    for start in 0..64 {
        if seen[start] || !adjacent(start, false).any(|other| joined(start, other)) {
            continue;
        }
        seen[start] = true;
        let mut patch = vec![start];
        let mut next = 0;
        while let Some(&cell) = patch.get(next) {
            next += 1;
            for other in adjacent(cell, false) {
                if !seen[other] && joined(cell, other) {
                    seen[other] = true;
                    patch.push(other);
                }
            }
        }
        if patch.iter().filter(|&&cell| unlike[cell]).count() >= MIN_UNLIKE {
            let mut greys: Vec<f32> = patch.iter().map(|&cell| backgrounds[cell]).collect();
            let panel = median(&mut greys);
            for cell in patch {
                covered[cell] = true;
                panels[cell] = Some(panel);
            }
        }
    }
    // The panel's edge: squares beside a cover that show its grey over a good part of them
    // (the text on a dialog, or a strip of the board along its edge, leaves their rings
    // uneven, and a piece half hidden under it is misread).
    let tolerance = SAME_GREY * contrast;
    let under_edge = |cell: usize| {
        let own = if is_light(cell) { light } else { dark };
        panels[cell].is_none()
            && adjacent(cell, true)
                .filter_map(|other| panels[other])
                .any(|panel| {
                    (panel - own).abs() > UNLIKE_BOARD * contrast
                        && share_near(board, cell, panel, tolerance) >= EDGE_SHARE
                })
    };
    std::array::from_fn(|cell| covered[cell] || under_edge(cell))
}

/// The squares beside `cell` (fewer at the board's edge), in display order: the four sharing
/// an edge with it, and with `diagonal` the four touching its corners too.
fn adjacent(cell: usize, diagonal: bool) -> impl Iterator<Item = usize> {
    let (col, row) = ((cell % 8) as i32, (cell / 8) as i32);
    (-1..=1)
        .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
        .filter(move |&(dx, dy)| (dx, dy) != (0, 0) && (diagonal || dx == 0 || dy == 0))
        .map(move |(dx, dy)| (col + dx, row + dy))
        .filter(|&(c, r)| (0..8).contains(&c) && (0..8).contains(&r))
        .map(|(c, r)| (r * 8 + c) as usize)
}

/// The share of a square's pixels (inside its grid line) within `tolerance` of `grey`.
fn share_near(board: &Rectified, cell: usize, grey: f32, tolerance: f32) -> f32 {
    let (x0, y0) = cell_origin(cell);
    let inner = RING.0..SQUARE - RING.0;
    let mut near = 0;
    for y in inner.clone() {
        for x in inner.clone() {
            near += usize::from((board.gray[(y0 + y) * BOARD + x0 + x] - grey).abs() < tolerance);
        }
    }
    near as f32 / (inner.len() * inner.len()) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain board: light squares 0.8, dark 0.4.
    fn board() -> Rectified {
        let mut gray = vec![0.6; BOARD * BOARD];
        for cell in 0..64 {
            let (x0, y0) = cell_origin(cell);
            let grey = if (cell % 8 + cell / 8) % 2 == 0 {
                0.8
            } else {
                0.4
            };
            for y in 0..SQUARE {
                for x in 0..SQUARE {
                    gray[(y0 + y) * BOARD + x0 + x] = grey;
                }
            }
        }
        Rectified::from_grey(gray)
    }

    /// Paints the squares `cells` with `grey` blended over them at `alpha`.
    fn paint(board: &mut Rectified, cells: &[usize], grey: f32, alpha: f32) {
        for &cell in cells {
            let (x0, y0) = cell_origin(cell);
            for y in 0..SQUARE {
                for x in 0..SQUARE {
                    let g = &mut board.gray[(y0 + y) * BOARD + x0 + x];
                    *g = *g * (1.0 - alpha) + grey * alpha;
                }
            }
        }
    }

    #[test]
    fn a_panel_over_the_middle_covers_its_squares_and_no_others() {
        let mut covered = board();
        // A white dialog over d5-f5 and d4-f4 (display rows 3 and 4, columns 3-5).
        let panel = [27, 28, 29, 35, 36, 37];
        paint(&mut covered, &panel, 1.0, 1.0);
        let found = covered_squares(&covered);
        assert!(
            (0..64).all(|cell| found[cell] == panel.contains(&cell)),
            "{found:?}"
        );
        // A dark one too.
        let mut dark = board();
        paint(&mut dark, &panel, 0.1, 1.0);
        let found = covered_squares(&dark);
        assert!((0..64).all(|cell| found[cell] == panel.contains(&cell)));
    }

    #[test]
    fn squares_under_the_panels_edge_are_covered_too() {
        let mut board = board();
        let panel = [27, 28, 29, 35, 36, 37];
        paint(&mut board, &panel, 1.0, 1.0);
        // c5 (cell 26) under the panel's left edge but for a strip of the board on its left
        // and a line of dark text: its ring is uneven. d6 (cell 19) hidden on its lower 40%.
        paint(&mut board, &[26], 1.0, 1.0);
        let (x0, y0) = cell_origin(26);
        for y in 0..SQUARE {
            for x in 0..4 {
                board.gray[(y0 + y) * BOARD + x0 + x] = 0.4;
            }
        }
        for x in 8..SQUARE {
            board.gray[(y0 + 10) * BOARD + x0 + x] = 0.3;
            board.gray[(y0 + 11) * BOARD + x0 + x] = 0.3;
        }
        let (x0, y0) = cell_origin(19);
        for y in SQUARE * 6 / 10..SQUARE {
            for x in 0..SQUARE {
                board.gray[(y0 + y) * BOARD + x0 + x] = 1.0;
            }
        }
        let found = covered_squares(&board);
        let expected = [19, 26, 27, 28, 29, 35, 36, 37];
        assert!(
            (0..64).all(|cell| found[cell] == expected.contains(&cell)),
            "{:?}",
            (0..64).filter(|&c| found[c]).collect::<Vec<_>>()
        );
    }

    #[test]
    fn highlights_pieces_and_a_plain_board_are_not_covers() {
        assert!(covered_squares(&board()).iter().all(|&c| !c));
        // A last move between two neighbours, tinted yellow-grey at 40%, and a selected square.
        let mut highlighted = board();
        paint(&mut highlighted, &[52, 44, 20], 0.7, 0.4);
        assert!(covered_squares(&highlighted).iter().all(|&c| !c));
        // A piece: a dark blob in the middle of a light square does not reach the ring.
        let mut piece = board();
        let (x0, y0) = cell_origin(0);
        for y in 6..20 {
            for x in 7..17 {
                piece.gray[(y0 + y) * BOARD + x0 + x] = 0.1;
            }
        }
        assert!(covered_squares(&piece).iter().all(|&c| !c));
        // One square under something (a check glow): no neighbour shares it.
        let mut glow = board();
        paint(&mut glow, &[60], 0.2, 0.9);
        assert!(covered_squares(&glow).iter().all(|&c| !c));
        // Opaque highlights as dark as the dark squares: a light square, then a pawn's
        // one-square move (two neighbours).
        for cells in [&[45usize][..], &[52, 44]] {
            let mut opaque = board();
            paint(&mut opaque, cells, 0.4, 1.0);
            assert!(covered_squares(&opaque).iter().all(|&c| !c), "{cells:?}");
        }
        // Large dark pieces reaching into the rings of a row of light and dark squares.
        let mut large = board();
        for cell in 56..64 {
            let (x0, y0) = cell_origin(cell);
            for y in 3..22 {
                for x in 3..21 {
                    large.gray[(y0 + y) * BOARD + x0 + x] = 0.15;
                }
            }
        }
        assert!(covered_squares(&large).iter().all(|&c| !c));
    }
}
