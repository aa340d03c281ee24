//! Relabel: a drawing misread on every copy, read again from where its copies stand.
//!
//! A design the classifier has never seen can be misread the same way on every copy, and surely:
//! a chess font's broad pawns all read as bishops at 0.9999, its bishops as knights. No single
//! square's probabilities show it, and the composer's rules, which change a square only where
//! the next class keeps a fair share of its probability, leave it. But the copies stand where
//! the true piece stands in games: eight "bishops" along the second rank are pawns.
//!
//! The copies of one drawing ([`crate::alike`]'s groups) are one witness for the network,
//! however many there are, while each copy's square is a witness of its own for what games
//! hold. So a unit (a group, or a square in none) may take another piece class when what the
//! position gains outweighs what one copy's probabilities lose:
//!
//! `gain = WEIGHT * Δ (log-likelihood of the placement in games) - Δ (broken facts) - cost`
//!
//! The log-likelihood is [`crate::prior::log_likelihood`]'s, squares counted as independent.
//! The broken facts are the composer's: promoted pieces, kings too many or missing, pawns beyond
//! what 8 can be or on a back rank. The cost is one copy's log ratio, `ln p(now) - ln p(new)` of
//! the network's pooled probabilities, scaled back by the square root of the group's size (as
//! [`crate::alike::pool`] scaled it up), averaged over the copies and capped at `ln 10^6`. Moves
//! are made greedily, the best first, while one gains more than [`MARGIN`]; where none does, the
//! best pair may (pawns read as bishops and bishops as pawns); a square moves at most once.
//!
//! It acts only on boards whose design is doubted ([`design_doubted`]) or whose reading breaks
//! the facts, and whose reading looks enough like a game, before ([`FIRST_READING_FROM`]) and
//! after ([`crate::prior::GAME_LIKE_FROM`]): pieces set out at will are read by the pixels
//! alone. The squares it changes are marked as changed, so they are reported uncertain.
//!
//! Thirty-ninth session, `fenlens eval` (boards exact, before -> after; `--no-relabel`
//! measures without it). Shipped four: 11 chess fonts 33.9 -> 34.7% (fresh pictures, seed
//! 4242: 32.1 -> 32.6%), 14 foreign designs 58.6 -> 59.2% (seed 31337: 57.2 -> 57.8%); the
//! held-out lichess designs (seeds 2026 / 777), their clean pictures, whole screens,
//! thumbnails and the devset read the same boards. Held-out four: fonts 34.2 -> 34.4% (31.2 ->
//! 32.0%), foreign designs 57.0 -> 57.6% (55.4 -> 57.0%), held-out lichess 80.5 -> 80.5%
//! (78.3 -> 78.5%). About 1 ms a picture on the fonts, nothing where the design is not doubted
//! and the facts hold. The weights were chosen on the fonts and foreign designs of seeds 6161
//! and 5150 (`WEIGHT` 0.5 / 1 / 1.5: fonts 34.7 / 34.8 / 32.9%; `MARGIN` 0 / 2 / 5: 32.6 /
//! 34.1 / 34.8%) and checked on the other seeds; the model card has the rest ("Drawings misread
//! on every copy, read again from where they stand").
//!
//! Assumes readings in standard orientation (a1 first) composed by [`crate::compose`], and the
//! network's probabilities (pooled over the groups, before the position prior) in display
//! order.

use crate::classify::{CLASSES, class_piece};
use crate::compose::{
    SquareReading, design_doubted, display_index, fact_cost, in_readings_order, make, placement,
    unmake,
};
use crate::prior;

/// How much the position's log-likelihood in games weighs against the network's log ratios.
pub const WEIGHT: f32 = 1.0;

/// A move is made only when it gains more than this (natural log units).
pub const MARGIN: f32 = 5.0;

/// A board whose composed reading is less game-like than this ([`prior::game_likeness`]) is
/// left as it is: its pieces stand as no game leaves them, and moving a few drawings could make
/// it look like one (a random placement's two white kings read as Black's pawns). A reading
/// between this and [`prior::GAME_LIKE_FROM`] may still change, where the moves leave it at
/// least that game-like.
pub const FIRST_READING_FROM: f32 = -1.5;

/// One copy's log ratio is capped at `-ln FLOOR`, as [`crate::alike::pool`] floors each
/// probability.
const FLOOR: f32 = 1e-6;

/// At most this many moves a board.
const MAX_MOVES: usize = 8;

/// How many of the best single moves are tried as the first of a pair.
const FIRST_OF_PAIR: usize = 12;

/// How many of the best single moves are tried as the second of a pair.
const SECOND_OF_PAIR: usize = 48;

/// A unit (the squares of one drawing, or one square) taking one class, at its network cost.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    /// The unit's index.
    pub(crate) unit: usize,
    /// The class it takes.
    pub(crate) to: usize,
    /// One copy's network cost ([`copy_cost`]).
    pub(crate) cost: f32,
}

/// Reads the copies of each drawing again from where they stand (see the module comment), on a
/// board whose design the classifier doubts ([`design_doubted`]) or whose reading breaks the
/// composer's facts; other boards are left as they are. `network` holds the display-order
/// probabilities the readings were composed from (pooled over `groups`, before the position
/// prior); `groups` the display-order cells of each drawing's copies, as [`crate::alike`] gives
/// them. Squares of no group are units of their own. Returns whether any square changed.
pub fn relabel_drawings(
    readings: &mut [SquareReading],
    network: &[[f32; CLASSES]],
    flipped: bool,
    groups: &[Vec<usize>],
) -> bool {
    if !design_doubted(readings) && fact_cost(readings) <= 0.0 {
        return false;
    }
    if prior::game_likeness(&placement(readings)) < FIRST_READING_FROM {
        return false;
    }
    let mut units: Vec<Vec<usize>> = in_readings_order(groups, flipped)
        .into_iter()
        .filter(|g| g.len() > 1)
        .collect();
    let grouped: Vec<usize> = units.iter().flatten().copied().collect();
    units.extend(
        (0..readings.len())
            .filter(|i| !grouped.contains(i) && class_piece(readings[*i].class).is_some())
            .map(|i| vec![i]),
    );
    let logs = network_logs(readings, network, flipped);
    let before: Vec<usize> = readings.iter().map(|r| r.class).collect();
    let mut moved = vec![false; readings.len()];
    for _ in 0..MAX_MOVES {
        let candidates = moves(readings, &units, &logs, &moved);
        let facts = fact_cost(readings);
        let mut ranked: Vec<(Move, f32)> = candidates
            .iter()
            .map(|&m| (m, gain_of(readings, &units, &[m], facts)))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let chosen = match ranked.first() {
            Some(&(m, gain)) if gain > MARGIN => vec![m],
            _ => {
                let mut best: Option<(Move, Move, f32)> = None;
                for &(first, _) in ranked.iter().take(FIRST_OF_PAIR) {
                    for &(second, _) in ranked.iter().take(SECOND_OF_PAIR) {
                        let overlaps = units[second.unit]
                            .iter()
                            .any(|i| units[first.unit].contains(i));
                        if overlaps {
                            continue;
                        }
                        let gain = gain_of(readings, &units, &[first, second], facts);
                        if gain > MARGIN && best.is_none_or(|b| gain > b.2) {
                            best = Some((first, second, gain));
                        }
                    }
                }
                match best {
                    Some((first, second, _)) => vec![first, second],
                    None => break,
                }
            }
        };
        for m in chosen {
            for &i in &units[m.unit] {
                moved[i] = true;
            }
            make(readings, &units[m.unit], m.to);
        }
    }
    let changed = readings.iter().zip(&before).any(|(r, &b)| r.class != b);
    if changed && prior::game_likeness(&placement(readings)) < prior::GAME_LIKE_FROM {
        for (r, &b) in readings.iter_mut().zip(&before) {
            r.class = b;
        }
        return false;
    }
    for (r, &b) in readings.iter_mut().zip(&before) {
        r.changed |= r.class != b;
    }
    changed
}

/// The moves open to the units not yet moved: every unit whose squares all hold pieces, to
/// every piece class not all of them hold already, at one copy's network cost (the mean of its
/// members' `ln p(now) - ln p(new)`, the pooling undone by the square root of the unit's size,
/// each at most `-ln FLOOR`).
fn moves(
    readings: &[SquareReading],
    units: &[Vec<usize>],
    logs: &[[f32; CLASSES]],
    moved: &[bool],
) -> Vec<Move> {
    let mut out = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        // A drawing is never an empty square, and a square changes at most once.
        let open = unit
            .iter()
            .all(|&i| !moved[i] && class_piece(readings[i].class).is_some());
        if !open {
            continue;
        }
        for to in 1..CLASSES {
            if unit.iter().all(|&i| readings[i].class == to) {
                continue;
            }
            let cost = copy_cost(readings, unit, to, logs);
            out.push(Move { unit: u, to, cost });
        }
    }
    out
}

/// Each square's network log-probabilities (`network` in display order), in the readings'
/// order.
pub(crate) fn network_logs(
    readings: &[SquareReading],
    network: &[[f32; CLASSES]],
    flipped: bool,
) -> Vec<[f32; CLASSES]> {
    readings
        .iter()
        .map(|r| {
            network
                .get(display_index(r.square, flipped))
                .map_or([0.0; CLASSES], |p| p.map(|p| p.max(f32::MIN_POSITIVE).ln()))
        })
        .collect()
}

/// One copy's network cost of `unit` (readings' indices) taking `to`: the mean of its members'
/// `ln p(now) - ln p(to)` ([`network_logs`]), the pooling undone by the square root of the
/// unit's size, each at most `-ln FLOOR`.
pub(crate) fn copy_cost(
    readings: &[SquareReading],
    unit: &[usize],
    to: usize,
    logs: &[[f32; CLASSES]],
) -> f32 {
    let scale = 1.0 / (unit.len() as f32).sqrt();
    unit.iter()
        .map(|&i| ((logs[i][readings[i].class] - logs[i][to]) * scale).min(-FLOOR.ln()))
        .sum::<f32>()
        / unit.len() as f32
}

/// What a set of moves on disjoint `units` gains (see the module comment), `facts` being the
/// readings' [`fact_cost`] before them; the readings are left as they were.
pub(crate) fn gain_of(
    readings: &mut [SquareReading],
    units: &[Vec<usize>],
    chosen: &[Move],
    facts: f32,
) -> f32 {
    let mut gain = 0.0;
    let mut was = Vec::with_capacity(chosen.len());
    for m in chosen {
        let unit = &units[m.unit];
        gain += unit
            .iter()
            .map(|&i| {
                let square = readings[i].square;
                prior::log_frequency(square, m.to) - prior::log_frequency(square, readings[i].class)
            })
            .sum::<f32>()
            * WEIGHT
            - m.cost;
        was.push(make(readings, unit, m.to));
    }
    gain += facts - fact_cost(readings);
    for (m, was) in chosen.iter().zip(&was).rev() {
        unmake(readings, &units[m.unit], was);
    }
    gain
}

#[cfg(test)]
mod tests {
    use fenlens_fen::shakmaty::{Board, Color, Piece, Square};

    use super::*;
    use crate::classify::piece_class;
    use crate::compose::{compose_grouped, shown_at};

    /// Probabilities sure of `class`: every other class at one in ten million.
    fn sure(class: usize) -> [f32; CLASSES] {
        let mut p = [1e-7; CLASSES];
        p[class] = 1.0 - 12.0 * 1e-7;
        p
    }

    /// Display-order probabilities (White at the bottom) that read `board_fen` surely.
    fn read_surely(board_fen: &str) -> Vec<[f32; CLASSES]> {
        let board: Board = board_fen.parse().expect("a placement");
        (0..64)
            .map(|cell| {
                let square = shown_at(cell, false).expect("a square");
                sure(piece_class(board.piece_at(square)))
            })
            .collect()
    }

    /// Display-order probabilities (White at the bottom) that read `board_fen` surely, but
    /// every piece of `misread` as `read_as`; and the groups of `misread`'s copies, one a
    /// colour of square.
    fn misread(
        board_fen: &str,
        misread: Piece,
        read_as: Piece,
    ) -> (Vec<[f32; CLASSES]>, Vec<Vec<usize>>) {
        let board: Board = board_fen.parse().expect("a placement");
        let mut network = vec![sure(0); 64];
        let mut groups = vec![Vec::new(), Vec::new()];
        for square in Square::ALL {
            let piece = board.piece_at(square);
            let cell = display_index(square, false);
            network[cell] = if piece == Some(misread) {
                groups[square.is_light() as usize].push(cell);
                sure(piece_class(Some(read_as)))
            } else {
                sure(piece_class(piece))
            };
        }
        (network, groups)
    }

    fn relabelled(board_fen: &str, was: Piece, read_as: Piece) -> (String, Vec<SquareReading>) {
        let (network, groups) = misread(board_fen, was, read_as);
        let mut readings = compose_grouped(&network, false, &groups);
        relabel_drawings(&mut readings, &network, false, &groups);
        (placement(&readings).board_fen().to_string(), readings)
    }

    #[test]
    fn a_game_whose_pawns_all_read_surely_as_bishops_gets_its_pawns_back() {
        // After 1. e4 e5 2. Nf3: White's eight pawns read as bishops at 0.999999, which no
        // square's probabilities doubt and the composer's rules leave.
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R";
        let (network, groups) = misread(fen, Color::White.pawn(), Color::White.bishop());
        let composed = compose_grouped(&network, false, &groups);
        assert!(
            placement(&composed)
                .board_fen()
                .to_string()
                .starts_with("rnbqkbnr/pppp1ppp/8/4p3/4B3")
        );
        let (read, readings) = relabelled(fen, Color::White.pawn(), Color::White.bishop());
        assert_eq!(read, fen);
        for r in &readings {
            let pawn = class_piece(r.class) == Some(Color::White.pawn());
            assert_eq!(r.changed, pawn, "{} changed: {}", r.square, r.changed);
            assert_eq!(r.uncertain(), pawn, "{}", r.square);
        }
    }

    #[test]
    fn a_lone_copy_read_surely_is_not_overturned_by_where_it_stands() {
        // Black's knights at home read surely as rooks, each the only copy on its colour of
        // square: knights are likelier on b8 and g8 and four rooks break the counts, but one
        // copy's sure reading is worth more than its square and a promotion together.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let (read, readings) = relabelled(fen, Color::Black.knight(), Color::Black.rook());
        assert_eq!(read, "rrbqkbrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
        assert!(readings.iter().all(|r| !r.changed));
    }

    #[test]
    fn pieces_set_out_at_will_are_read_by_the_pixels_alone() {
        // Eight white bishops in a diamond, four on each colour of square, with the kings in
        // the far corners: a second bishop on one colour breaks the counts, but whatever class
        // either group of copies took, the board would look like no game.
        let fen = "1K6/8/8/3BB3/2BBBB2/3BB3/8/6k1";
        let board: Board = fen.parse().expect("a placement");
        let (network, groups) = misread(fen, Color::White.bishop(), Color::White.bishop());
        for dark in 1..CLASSES {
            for light in 1..CLASSES {
                let mut other = board.clone();
                for square in board.bishops() {
                    let class = if square.is_light() { light } else { dark };
                    other.set_piece_at(square, class_piece(class).expect("a piece"));
                }
                if other != board {
                    assert!(prior::game_likeness(&other) < prior::GAME_LIKE_FROM);
                }
            }
        }
        let mut readings = compose_grouped(&network, false, &groups);
        assert!(fact_cost(&readings) > 0.0);
        assert!(!relabel_drawings(&mut readings, &network, false, &groups));
        assert_eq!(placement(&readings).board_fen().to_string(), fen);
        assert!(readings.iter().all(|r| !r.changed));
    }

    #[test]
    fn a_familiar_design_read_surely_is_left_as_it_is() {
        // Nothing doubted and no fact broken: not even looked at.
        let fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1";
        let network = read_surely(fen);
        let mut readings = compose_grouped(&network, false, &[]);
        assert!(!relabel_drawings(&mut readings, &network, false, &[]));
        assert_eq!(placement(&readings).board_fen().to_string(), fen);
        // A promoted queen read surely stays a queen: one copy's sure reading outweighs what
        // a queen on d6 costs.
        let fen = "4k3/8/3Q4/8/8/8/8/3QK3";
        let network = read_surely(fen);
        let mut readings = compose_grouped(&network, false, &[]);
        relabel_drawings(&mut readings, &network, false, &[]);
        assert_eq!(placement(&readings).board_fen().to_string(), fen);
    }
}
