//! Canonical writing of a position as FEN.
//!
//! The placement, side to move and clocks have one canonical form. Castling rights and the en
//! passant square each have several conventions; [`WriteOptions`] chooses which one is written.

use std::fmt::Write as _;

use crate::read::side_rook;

use shakmaty::{
    Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role, Setup,
};

/// How castling rights are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CastlingNotation {
    /// `KQkq`: a letter for the side of the king. A Chess960 right to a rook that is not the
    /// outermost on its side (so `K`/`Q` would be ambiguous) is written with its file, as in X-FEN.
    #[default]
    Standard,
    /// Shredder-FEN: always the rook's file, upper case for White (`AHah` for the standard set-up).
    Shredder,
    /// X-FEN: `KQkq` where unambiguous, the rook's file only when needed. Writes the same text as
    /// [`CastlingNotation::Standard`]; kept as its own name so that callers can say what they mean.
    XFen,
}

/// When the en passant square is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EnPassantWrite {
    /// After every double pawn move, as the original FEN standard says (the default: it keeps
    /// what the user wrote and matches PGN's FEN tags).
    #[default]
    Always,
    /// Only when an en passant capture is legal (as python-chess, lichess and Stockfish write it).
    Legal,
}

/// Choices for writing a FEN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteOptions {
    /// Castling notation; `None` writes the notation the input used.
    pub castling: Option<CastlingNotation>,
    /// En passant convention.
    pub en_passant: EnPassantWrite,
}

/// Writes a full six-field FEN.
///
/// `notation` is the castling notation to use. Invalid positions are written as they are (the
/// en passant square is kept whatever the mode, as there is no legal position to ask).
pub fn write_fen(setup: &Setup, notation: CastlingNotation, en_passant: EnPassantWrite) -> String {
    let mut out = String::with_capacity(90);
    write_placement(&mut out, &setup.board);
    out.push(' ');
    out.push(setup.turn.char());
    out.push(' ');
    write_castling(&mut out, setup, notation);
    out.push(' ');
    let ep_square = match (en_passant, setup.ep_square) {
        (EnPassantWrite::Legal, Some(square)) => {
            match Chess::from_setup(setup.clone(), CastlingMode::Chess960) {
                Ok(position) => position.ep_square(EnPassantMode::Legal),
                // Keep the square of an invalid position: the checker reports it.
                Err(_) => Some(square),
            }
        }
        (_, ep) => ep,
    };
    match ep_square {
        Some(square) => {
            out.push(square.file().char());
            out.push(square.rank().char());
        }
        None => out.push('-'),
    }
    // Writing to a String cannot fail.
    let _ = write!(out, " {} {}", setup.halfmoves, setup.fullmoves);
    out
}

/// Appends field 1: ranks 8 to 1, runs of empty squares as digits.
fn write_placement(out: &mut String, board: &Board) {
    let mut letters = [0u8; 64];
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            let letter = piece.char() as u8;
            for square in board.by_piece(piece) {
                letters[square as usize] = letter;
            }
        }
    }
    // At most 64 letters and 7 slashes: build the bytes on the stack, then append once.
    let occupied = board.occupied().0;
    let mut text = [0u8; 71];
    let mut len = 0;
    for rank in (0..8).rev() {
        // Visit the occupied squares of the rank only, writing the gaps between them as digits.
        let mut row = (occupied >> (rank * 8)) & 0xff;
        let mut next_file = 0;
        while row != 0 {
            let file = row.trailing_zeros() as usize;
            row &= row - 1;
            if file > next_file {
                text[len] = b'0' + (file - next_file) as u8;
                len += 1;
            }
            text[len] = letters[rank * 8 + file];
            len += 1;
            next_file = file + 1;
        }
        if next_file < 8 {
            text[len] = b'0' + (8 - next_file) as u8;
            len += 1;
        }
        if rank > 0 {
            text[len] = b'/';
            len += 1;
        }
    }
    // Only ASCII letters, digits and slashes were written.
    out.push_str(std::str::from_utf8(&text[..len]).unwrap_or_default());
}

/// Appends field 3.
fn write_castling(out: &mut String, setup: &Setup, notation: CastlingNotation) {
    let start = out.len();
    for color in Color::ALL {
        let rights = setup.castling_rights & color.backrank();
        let mut letters = [(0u8, ' '); 8];
        let mut count = 0;
        for rook in rights {
            let file_letter = rook.file().char();
            // A side letter only where reading it back names this very rook (X-FEN's rule).
            let letter = match notation {
                CastlingNotation::Shredder => file_letter,
                CastlingNotation::Standard | CastlingNotation::XFen => {
                    if side_rook(&setup.board, color, true) == rook {
                        'k'
                    } else if side_rook(&setup.board, color, false) == rook {
                        'q'
                    } else {
                        file_letter
                    }
                }
            };
            let letter = if color.is_white() {
                letter.to_ascii_uppercase()
            } else {
                letter
            };
            // K before Q, then file letters in file order.
            let order = match letter.to_ascii_lowercase() {
                'k' => 0,
                'q' => 1,
                _ => 2 + rook.file() as u8,
            };
            letters[count] = (order, letter);
            count += 1;
        }
        let letters = &mut letters[..count];
        letters.sort_unstable();
        out.extend(letters.iter().map(|(_, letter)| letter));
    }
    if out.len() == start {
        out.push('-');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read;

    fn rewrite(fen: &str, notation: CastlingNotation) -> String {
        let setup = read(fen.as_bytes()).setup.unwrap();
        write_fen(&setup, notation, EnPassantWrite::Always)
    }

    #[test]
    fn writes_the_three_castling_notations() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(rewrite(start, CastlingNotation::Standard), start);
        assert_eq!(
            rewrite(start, CastlingNotation::Shredder),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1"
        );
        // Two white rooks on the king side: the inner one needs its file in X-FEN.
        let inner = "4k3/8/8/8/8/8/8/4KRR1 w F - 0 1";
        assert_eq!(rewrite(inner, CastlingNotation::XFen), inner);
        assert_eq!(
            rewrite("4k3/8/8/8/8/8/8/4KRR1 w G - 0 1", CastlingNotation::XFen),
            "4k3/8/8/8/8/8/8/4KRR1 w K - 0 1"
        );
    }

    #[test]
    fn castling_letters_read_back_to_the_same_rooks() {
        // Found by the fuzzer: a right on h8 (a knight there) beside the outer rook on g8 was
        // written "k" twice. The h8 right must keep its file letter.
        let fen = "bqrnbkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w Kkh - 0 1";
        assert_eq!(rewrite(fen, CastlingNotation::XFen), fen);
        assert_eq!(
            rewrite(
                "bqrnbkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w Khk - 0 1",
                CastlingNotation::Standard
            ),
            fen
        );
    }

    #[test]
    fn en_passant_square_written_per_mode() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        let setup = read(fen.as_bytes()).setup.unwrap();
        assert_eq!(
            write_fen(&setup, CastlingNotation::Standard, EnPassantWrite::Always),
            fen
        );
        assert_eq!(
            write_fen(&setup, CastlingNotation::Standard, EnPassantWrite::Legal),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        let capturable = "rnbqkbnr/ppp2ppp/4p3/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
        let setup = read(capturable.as_bytes()).setup.unwrap();
        assert_eq!(
            write_fen(&setup, CastlingNotation::Standard, EnPassantWrite::Legal),
            capturable
        );
    }
}
