//! Positions to draw: realistic games, sparse endgames, and random placements that need not be
//! legal (so a model cannot lean on legality). Same seed, same positions.

use fenlens_fen::shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Move, Piece, Position, Role, Setup,
    Square,
};
use rand::RngExt;
use serde::Serialize;

/// Which sampler made a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PositionKind {
    /// From a random game biased toward plausible moves: opening, middlegame or endgame.
    Game,
    /// Kings and a few pieces.
    Endgame,
    /// Any piece on any square (not necessarily legal).
    Random,
}

/// A sampled position and, for game positions, whether the side to move is in check.
#[derive(Clone, Debug)]
pub struct Sampled {
    /// The placement.
    pub board: Board,
    /// Which sampler.
    pub kind: PositionKind,
    /// The king in check, if any (for the check glow).
    pub king_in_check: Option<Square>,
    /// The last move played, if any (for last-move highlights and arrows).
    pub last_move: Option<(Square, Square)>,
}

/// Samples a position: 70% games, 15% sparse endgames, 15% random placements.
pub fn sample(rng: &mut impl RngExt) -> Sampled {
    let roll = rng.random_range(0.0..1.0f32);
    if roll < 0.7 {
        game(rng)
    } else if roll < 0.85 {
        endgame(rng)
    } else {
        random_placement(rng)
    }
}

fn role_value(role: Role) -> u32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
    }
}

/// Weight of a move: captures (more for valuable ones), castling, development, checks.
fn move_weight(pos: &Chess, m: &Move) -> u32 {
    let mut weight = 4;
    if let Some(captured) = m.capture() {
        weight += 6 * role_value(captured) + 4;
    }
    if m.is_castle() {
        weight += 20;
    }
    if m.is_promotion() {
        weight += 30;
    }
    if m.role() == Role::King && !m.is_castle() && pos.fullmoves().get() < 25 {
        weight = 1;
    }
    if matches!(m.role(), Role::Knight | Role::Bishop) && pos.fullmoves().get() < 12 {
        weight += 6;
    }
    weight
}

/// A position from a random game: ply count spread over opening, middlegame and endgame.
pub fn game(rng: &mut impl RngExt) -> Sampled {
    let plies = match rng.random_range(0..10) {
        0..=2 => rng.random_range(0..20),
        3..=6 => rng.random_range(20..70),
        _ => rng.random_range(70..160),
    };
    let mut pos = Chess::default();
    let mut last_move = None;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let weights: Vec<u32> = moves.iter().map(|m| move_weight(&pos, m)).collect();
        let total: u32 = weights.iter().sum();
        let mut pick = rng.random_range(0..total.max(1));
        let mut chosen = moves[0];
        for (m, w) in moves.iter().zip(&weights) {
            if pick < *w {
                chosen = *m;
                break;
            }
            pick -= w;
        }
        last_move = Some((chosen.from().unwrap_or(chosen.to()), chosen.to()));
        pos.play_unchecked(chosen);
    }
    let king_in_check = pos
        .is_check()
        .then(|| pos.board().king_of(pos.turn()))
        .flatten();
    Sampled {
        board: pos.board().clone(),
        kind: PositionKind::Game,
        king_in_check,
        last_move,
    }
}

/// Two kings and one to six other pieces, legal.
pub fn endgame(rng: &mut impl RngExt) -> Sampled {
    loop {
        let mut board = Board::empty();
        let mut occupied = Bitboard::EMPTY;
        let mut place = |board: &mut Board, piece: Piece, rng: &mut dyn FnMut() -> u32| loop {
            let sq = Square::new(rng());
            let back_rank = matches!(sq.rank() as u32, 0 | 7);
            if occupied.contains(sq) || (piece.role == Role::Pawn && back_rank) {
                continue;
            }
            occupied.add(sq);
            board.set_piece_at(sq, piece);
            break;
        };
        let mut next = || rng.random_range(0..64u32);
        place(&mut board, Color::White.king(), &mut next);
        place(&mut board, Color::Black.king(), &mut next);
        let extra = rng.random_range(1..=6);
        for _ in 0..extra {
            let color = if rng.random_bool(0.5) {
                Color::White
            } else {
                Color::Black
            };
            let role = [
                Role::Pawn,
                Role::Pawn,
                Role::Pawn,
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen,
            ][rng.random_range(0..7)];
            let mut next = || rng.random_range(0..64u32);
            place(&mut board, Piece { color, role }, &mut next);
        }
        let setup = Setup {
            board: board.clone(),
            ..Setup::empty()
        };
        if let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard) {
            let king_in_check = pos
                .is_check()
                .then(|| pos.board().king_of(pos.turn()))
                .flatten();
            return Sampled {
                board,
                kind: PositionKind::Endgame,
                king_in_check,
                last_move: None,
            };
        }
    }
}

/// Every square independently empty or holding any of the 12 pieces.
pub fn random_placement(rng: &mut impl RngExt) -> Sampled {
    let empty = rng.random_range(0.3..0.9f32);
    let mut board = Board::empty();
    for sq in Square::ALL {
        if rng.random_range(0.0..1.0f32) >= empty {
            let piece = crate::pieces::PIECES[rng.random_range(0..12)];
            board.set_piece_at(sq, piece);
        }
    }
    Sampled {
        board,
        kind: PositionKind::Random,
        king_in_check: None,
        last_move: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn same_seed_same_positions() {
        let a: Vec<Board> = {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            (0..20).map(|_| sample(&mut rng).board).collect()
        };
        let b: Vec<Board> = {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            (0..20).map(|_| sample(&mut rng).board).collect()
        };
        assert_eq!(a, b);
    }

    #[test]
    fn samplers_cover_phases_and_all_kinds() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let samples: Vec<Sampled> = (0..300).map(|_| sample(&mut rng)).collect();
        for kind in [
            PositionKind::Game,
            PositionKind::Endgame,
            PositionKind::Random,
        ] {
            assert!(
                samples.iter().filter(|s| s.kind == kind).count() > 20,
                "{kind:?}"
            );
        }
        let counts: Vec<u32> = samples
            .iter()
            .filter(|s| s.kind == PositionKind::Game)
            .map(|s| s.board.occupied().count() as u32)
            .collect();
        assert!(counts.iter().any(|&c| c >= 28), "openings");
        assert!(counts.iter().any(|&c| c <= 16), "endgames");
        for s in samples.iter().filter(|s| s.kind == PositionKind::Endgame) {
            assert_eq!(s.board.kings().count(), 2);
            assert!(s.board.occupied().count() <= 8);
        }
    }
}
