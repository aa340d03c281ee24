//! Distinct: two drawings that plainly differ are two different pieces.
//!
//! A design draws each of the twelve pieces one way. So where two squares of one colour hold
//! drawings that plainly differ, they cannot hold the same piece, however surely the classifier
//! reads both as one: a chess font's bishops and its pawns both read as pawns, its kings and its
//! bishops both as kings. One of the two readings is wrong; the cheaper one to change changes.
//!
//! Two pieces on squares of one colour are apart when their [`piece_distance`] (their pixels
//! compared where either piece stands, so a textured square's grain counts for nothing) is over
//! [`APART_FROM`]; on squares of two colours, when their [`cross_distance`] and
//! [`tolerant_cross_distance`] are both over [`CROSS_APART_FROM`]. Units are the copies of one
//! drawing ([`crate::alike`]'s groups, split by the class each square now holds and wherever two
//! of their squares are apart) and the pieces in no group; two units are apart when all their
//! pairs of squares of one colour are, or, where they have none, all their pairs of two colours.
//!
//! While two apart units hold one class, the unit moves whose move to another class of its
//! side gains most, as [`crate::relabel`] weighs a move: what the position gains in games
//! ([`crate::prior::log_frequency`], times [`relabel::WEIGHT`]), minus the broken facts it adds,
//! minus one copy's network cost (the classifier's own readings of the squares, before pooling).
//! A move is open only to a class no unit apart from it holds, so it makes no new conflict, and
//! only while it loses less than [`MOST_LOST`]. Each unit moves at most once, and the squares
//! moved are marked as changed, so they are reported uncertain.
//!
//! It acts only where the drawings can be compared: boards whose squares span at least
//! [`SQUARE_PIXELS_FROM`] pixels of the picture, and where copies repeat closely (the lower
//! quartile over the pieces of the [`distance`] to the likest piece on a square of the same
//! colour at most [`COPIES_WITHIN`]). Photographs, small boards and textured squares give copies of
//! one drawing distances that different drawings have.
//!
//! With the true corners and pieces (`cargo run --release -p fenlens-vision --example apart
//! DIR` on the fonts of seed 6161 and the foreign designs of seed 5150), pairs of same-coloured
//! squares holding the same piece are over 0.2 of [`piece_distance`] in 0.1-0.2% of clean
//! screenshots, 1-2% of screenshots, 2-3% of book diagrams, 5% of boards with overlays and
//! 11-16% of photographs and small pictures, while 90-98% of pairs holding different pieces
//! are. Forty-first session, `fenlens eval` (boards exact, before -> after; `--no-separate`
//! measures without it), shipped four: 11 chess fonts 34.8 -> 37.0% (fresh pictures, seed 4242:
//! 32.6 -> 34.7%), 14 foreign designs 59.2 -> 59.8% (seed 31337: 57.9 -> 58.4%); the model card
//! has the rest ("Drawings that differ read as one piece").
//!
//! Assumes readings in standard orientation (a1 first) composed by [`crate::compose`], the
//! classifier's probabilities (display order) and the rectified board and silhouettes they were
//! read from.

use crate::alike::{
    cross_distance, distance, piece_distance, same_colour, tolerant_cross_distance,
};
use crate::classify::{CLASSES, class_piece};
use crate::compose::{SquareReading, display_index, fact_cost, in_readings_order, make};
use crate::rectify::Rectified;
use crate::relabel::{self, Move};
use crate::silhouette::Silhouette;

/// Two pieces on squares of one colour whose [`piece_distance`] is over this are different
/// drawings. Chosen on the fonts and foreign designs of seeds 6161 and 5150 (0.15 / 0.2 / 0.25:
/// fonts 37.0 / 36.7 / 36.5%, foreign designs 59.8 / 59.9 / 59.7%, before the other settings
/// were final).
pub const APART_FROM: f32 = 0.2;

/// Two pieces on squares of two colours whose [`cross_distance`] and
/// [`tolerant_cross_distance`] are both over this are different drawings.
pub const CROSS_APART_FROM: f32 = 0.3;

/// A move is made only while it loses less than this (natural log units): the prior and one
/// copy's network cost can outweigh what the drawings say, where an apart pair is one drawing
/// after all.
pub const MOST_LOST: f32 = 5.0;

/// Boards whose copies of one drawing repeat less closely than this are left as they are.
pub const COPIES_WITHIN: f32 = 0.05;

/// Boards whose squares span fewer picture pixels than this are left as they are.
pub const SQUARE_PIXELS_FROM: f32 = 30.0;

/// At most this many moves a board.
const MAX_MOVES: usize = 12;

/// What the pieces of one board are read from: the rectified board, the pieces' silhouettes,
/// the classifier's probabilities before pooling (display order), and how many picture pixels a
/// square spans.
pub struct Drawings<'a> {
    /// The rectified board.
    pub board: &'a Rectified,
    /// Each display-order square's silhouette.
    pub outlines: &'a [Option<Silhouette>; 64],
    /// The classifier's probabilities, display order, before pooling.
    pub network: &'a [[f32; CLASSES]],
    /// The picture pixels a square spans (the board's mean side over 8).
    pub square_pixels: f32,
}

/// Gives different classes to units that hold one class but plainly differ (see the module
/// comment). `groups` holds the display-order cells of each drawing's copies, as
/// [`crate::alike`] gives them. Returns whether any square changed.
pub fn separate_drawings(
    readings: &mut [SquareReading],
    drawings: &Drawings,
    flipped: bool,
    groups: &[Vec<usize>],
) -> bool {
    let Drawings {
        board, outlines, ..
    } = *drawings;
    if drawings.square_pixels < SQUARE_PIXELS_FROM {
        return false;
    }
    let cells: Vec<usize> = readings
        .iter()
        .map(|r| display_index(r.square, flipped))
        .collect();
    let pieces: Vec<usize> = (0..readings.len())
        .filter(|&i| class_piece(readings[i].class).is_some() && outlines[cells[i]].is_some())
        .collect();
    let mut apart = Apart {
        board,
        outlines,
        cells: &cells,
        pairs: vec![None; readings.len() * readings.len()],
    };
    let units = units(
        readings,
        &pieces,
        &in_readings_order(groups, flipped),
        &mut apart,
    );
    let m = units.len();
    let mut units_apart = vec![None; m * m];
    let mut held_apart = |readings: &[SquareReading], u: usize, class: usize| {
        (0..m).any(|v| {
            v != u
                && readings[units[v][0]].class == class
                && *units_apart[u * m + v].get_or_insert_with(|| apart.units(&units[u], &units[v]))
        })
    };
    let class_of = |readings: &[SquareReading], u: usize| readings[units[u][0]].class;
    // Most boards hold no two apart units of one class: they are left before the gate's work.
    if !(0..m).any(|u| held_apart(readings, u, class_of(readings, u)))
        || !copies_repeat(board, &pieces, &cells)
    {
        return false;
    }
    let logs = relabel::network_logs(readings, drawings.network, flipped);
    let mut moved = vec![false; m];
    let mut changed = false;
    for _ in 0..MAX_MOVES {
        let facts = fact_cost(readings);
        let mut best: Option<(usize, usize, f32)> = None;
        for u in 0..m {
            let now = class_of(readings, u);
            if moved[u] || !held_apart(readings, u, now) {
                continue;
            }
            for to in (1..CLASSES).filter(|&to| to != now && same_side(to, now)) {
                if held_apart(readings, u, to) {
                    continue;
                }
                let cost = relabel::copy_cost(readings, &units[u], to, &logs);
                let gain = relabel::gain_of(readings, &units, &[Move { unit: u, to, cost }], facts);
                if best.is_none_or(|b| gain > b.2) {
                    best = Some((u, to, gain));
                }
            }
        }
        let Some((u, to, gain)) = best else {
            break;
        };
        if gain < -MOST_LOST {
            break;
        }
        make(readings, &units[u], to);
        for &i in &units[u] {
            readings[i].changed = true;
        }
        moved[u] = true;
        changed = true;
    }
    changed
}

/// Which pieces (readings' indices) and which units are apart, each pair of pieces measured
/// when first asked.
struct Apart<'a> {
    board: &'a Rectified,
    outlines: &'a [Option<Silhouette>; 64],
    /// Each reading's display-order cell.
    cells: &'a [usize],
    /// `pairs[a * n + b]`, once measured.
    pairs: Vec<Option<bool>>,
}

impl Apart<'_> {
    /// Whether two pieces are apart (see the module comment); false where either square holds
    /// no silhouette.
    fn pieces(&mut self, a: usize, b: usize) -> bool {
        // The measures are not quite symmetric (the alignments move the second square): the
        // lower index goes first, whichever is asked about first.
        let (a, b) = (a.min(b), a.max(b));
        let n = self.cells.len();
        if let Some(known) = self.pairs[a * n + b] {
            return known;
        }
        let (ca, cb) = (self.cells[a], self.cells[b]);
        let board = self.board;
        let apart = match (&self.outlines[ca], &self.outlines[cb]) {
            (Some(sa), Some(sb)) if same_colour(ca, cb) => {
                piece_distance(board, (ca, sa), (cb, sb)) > APART_FROM
            }
            (Some(sa), Some(sb)) => {
                cross_distance(board, (ca, sa), (cb, sb)) > CROSS_APART_FROM
                    && tolerant_cross_distance(board, (ca, sa), (cb, sb)) > CROSS_APART_FROM
            }
            _ => false,
        };
        self.pairs[a * n + b] = Some(apart);
        self.pairs[b * n + a] = Some(apart);
        apart
    }

    /// Whether two units are apart: all their pairs of squares of one colour are, or, where
    /// they have none, all their pairs of two colours.
    fn units(&mut self, u: &[usize], v: &[usize]) -> bool {
        let cells = self.cells;
        let pairs = || u.iter().flat_map(|&a| v.iter().map(move |&b| (a, b)));
        let one_colour = pairs().any(|(a, b)| same_colour(cells[a], cells[b]));
        pairs()
            .filter(|&(a, b)| !one_colour || same_colour(cells[a], cells[b]))
            .all(|(a, b)| self.pieces(a, b))
    }
}

/// Whether two classes are pieces of one side.
fn same_side(a: usize, b: usize) -> bool {
    class_piece(a).map(|p| p.color) == class_piece(b).map(|p| p.color)
}

/// Whether the copies of one drawing repeat closely on this board: the lower quartile, over the
/// `pieces` (readings' indices, at display-order `cells`), of the [`distance`] to the likest
/// piece on a square of the same colour is under [`COPIES_WITHIN`]. False with fewer than four
/// pieces that have such a neighbour.
fn copies_repeat(board: &Rectified, pieces: &[usize], cells: &[usize]) -> bool {
    let mut nearest: Vec<f32> = pieces
        .iter()
        .map(|&a| {
            pieces
                .iter()
                .filter(|&&b| b != a && same_colour(cells[a], cells[b]))
                .map(|&b| distance(board, cells[a], cells[b]))
                .fold(f32::INFINITY, f32::min)
        })
        .filter(|d| d.is_finite())
        .collect();
    if nearest.len() < 4 {
        return false;
    }
    nearest.sort_by(f32::total_cmp);
    nearest[nearest.len() / 4] <= COPIES_WITHIN
}

/// The units: each group (readings' indices) split by the class its squares hold now and
/// wherever two of its squares are apart, then the `pieces` in no group, each alone.
fn units(
    readings: &[SquareReading],
    pieces: &[usize],
    groups: &[Vec<usize>],
    apart: &mut Apart,
) -> Vec<Vec<usize>> {
    let mut units: Vec<Vec<usize>> = Vec::new();
    let mut grouped = vec![false; readings.len()];
    for group in groups {
        let mut parts: Vec<Vec<usize>> = Vec::new();
        for &i in group.iter().filter(|i| pieces.contains(i)) {
            grouped[i] = true;
            let mut fits = |part: &Vec<usize>| {
                readings[part[0]].class == readings[i].class
                    && part.iter().all(|&j| !apart.pieces(i, j))
            };
            match parts.iter_mut().find(|part| fits(part)) {
                Some(part) => part.push(i),
                None => parts.push(vec![i]),
            }
        }
        units.extend(parts);
    }
    units.extend(pieces.iter().filter(|&&i| !grouped[i]).map(|&i| vec![i]));
    units
}

#[cfg(test)]
mod tests {
    use fenlens_fen::shakmaty::Square;

    use super::*;
    use crate::alike::tests::{board_with, pawn};
    use crate::compose::compose;
    use crate::silhouette::silhouettes;

    const WHITE_PAWN: usize = 1;
    const WHITE_BISHOP: usize = 3;
    const WHITE_QUEEN: usize = 5;

    /// Display-order probabilities: on each given cell `first`, with `share` left to `second`;
    /// every other cell surely empty.
    fn network(read: &[(usize, usize, usize, f32)]) -> Vec<[f32; CLASSES]> {
        let mut empty = [1e-7; CLASSES];
        empty[0] = 1.0;
        let mut p = vec![empty; 64];
        for &(cell, first, second, share) in read {
            p[cell] = [1e-7; CLASSES];
            p[cell][first] = 1.0 - share;
            p[cell][second] = share;
        }
        p
    }

    /// A bishop unlike [`pawn`] everywhere but in its base: a tall block.
    fn bishop(x: usize, y: usize) -> bool {
        ((3..16).contains(&y) && (8..16).contains(&x))
            || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    /// White pawns drawn on a2, c2 and g2 and a white bishop on d3 (display cells 48, 50, 54
    /// and 43, all light squares), every square's grey moved by up to `grain` from pixel to
    /// pixel; all four read as pawns, the bishop's second reading a bishop or a queen.
    fn bishop_among_pawns(grain: f32, second: usize) -> (Rectified, Vec<[f32; CLASSES]>) {
        let board = board_with(|cell, x, y| {
            let back = if same_colour(cell, 0) { 0.8 } else { 0.4 };
            let shade = grain * (((cell * 31 + x * 7 + y * 13) % 11) as f32 / 10.0 - 0.5);
            let piece = match cell {
                48 | 50 | 54 => pawn(x, y),
                43 => bishop(x, y),
                _ => false,
            };
            Some(if piece { 0.1 } else { back } + shade)
        });
        let read = network(&[
            (48, WHITE_PAWN, WHITE_BISHOP, 1e-3),
            (50, WHITE_PAWN, WHITE_BISHOP, 1e-3),
            (54, WHITE_PAWN, WHITE_BISHOP, 1e-3),
            (43, WHITE_PAWN, second, 0.2),
        ]);
        (board, read)
    }

    fn separated(board: &Rectified, read: &[[f32; CLASSES]], square_pixels: f32) -> Vec<usize> {
        let outlines = silhouettes(board);
        let mut readings = compose(read, false);
        let drawings = Drawings {
            board,
            outlines: &outlines,
            network: read,
            square_pixels,
        };
        let changed = separate_drawings(&mut readings, &drawings, false, &[vec![48, 50, 54]]);
        let classes: Vec<usize> = readings.iter().map(|r| r.class).collect();
        assert_eq!(
            changed,
            classes
                != compose(read, false)
                    .iter()
                    .map(|r| r.class)
                    .collect::<Vec<_>>()
        );
        for r in &readings {
            assert_eq!(
                r.changed,
                r.class != WHITE_PAWN && r.square == Square::D3,
                "{}",
                r.square
            );
        }
        classes
    }

    #[test]
    fn a_drawing_unlike_the_others_read_as_their_piece_is_read_again() {
        for second in [WHITE_BISHOP, WHITE_QUEEN] {
            let (board, read) = bishop_among_pawns(0.0, second);
            let before = compose(&read, false);
            assert_eq!(before[Square::D3 as usize].class, WHITE_PAWN);
            let classes = separated(&board, &read, 50.0);
            assert_eq!(classes[Square::D3 as usize], second);
            for square in [Square::A2, Square::C2, Square::G2] {
                assert_eq!(classes[square as usize], WHITE_PAWN, "{square}");
            }
        }
    }

    #[test]
    fn drawings_that_cannot_be_compared_are_left_as_they_are() {
        // Squares of 20 picture pixels, and a grain that makes copies of one drawing differ.
        let (board, read) = bishop_among_pawns(0.0, WHITE_BISHOP);
        assert_eq!(
            separated(&board, &read, 20.0)[Square::D3 as usize],
            WHITE_PAWN
        );
        let (board, read) = bishop_among_pawns(0.6, WHITE_BISHOP);
        assert_eq!(
            separated(&board, &read, 50.0)[Square::D3 as usize],
            WHITE_PAWN
        );
    }
}
