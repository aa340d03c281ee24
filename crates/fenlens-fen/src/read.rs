//! Tolerant reading of FEN text.
//!
//! The reader accepts what people actually paste: surrounding or repeated whitespace, `_` between
//! fields (lichess URLs), a placement alone or the four fields of an EPD line, upper-case `W`/`B`,
//! fullmove number 0. Everything it assumes is reported as a note. Syntax it cannot read is
//! reported with its exact place, and every broken rank is reported, not only the first.
//!
//! The reader only checks syntax. Whether the position can exist is decided by
//! [`crate::check()`].

use std::num::NonZeroU32;

use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, File, Setup, Square};

use crate::diagnostic::{Code, Diagnostic, Location, Severity};
use crate::write::CastlingNotation;

/// At most this many characters of user text are quoted back in a message.
const QUOTE_LIMIT: usize = 24;

/// What the reader made of one FEN line.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The position as read; `None` when the placement or the side to move cannot be read.
    /// Unreadable later fields are replaced by their defaults (castling `-`, en passant `-`,
    /// clocks `0 1`) and reported as errors.
    pub setup: Option<Setup>,
    /// The pieces as far as the placement could be read, even when it is broken: the first 8
    /// squares of each of the first 8 ranks. Equal to the setup's board when that exists.
    pub partial_board: Board,
    /// The castling notation the input used.
    pub castling_notation: CastlingNotation,
    /// Field 3 as written (at most its first 16 bytes), to re-read it on a corrected board.
    pub(crate) castling_field: Vec<u8>,
    /// Syntax errors and notes about what was assumed, in field order.
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics whose fix is "the FEN with this field's default": the checker fills in the
    /// corrected FEN once the position is known.
    pub(crate) fixed_by_defaults: Vec<usize>,
}

/// Quotes user text safely: lossy UTF-8, control characters escaped, shortened.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(QUOTE_LIMIT * 4)]);
    let mut out: String = text
        .chars()
        .take(QUOTE_LIMIT)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().count() > QUOTE_LIMIT || bytes.len() > QUOTE_LIMIT * 4 {
        out.push('…');
    }
    format!("\"{out}\"")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Reads one FEN (or EPD, or bare placement) line. Never fails: problems become diagnostics.
pub fn read(input: &[u8]) -> Reading {
    let mut reader = Reader {
        diagnostics: Vec::new(),
        fixed_by_defaults: Vec::new(),
    };
    let (setup, partial_board, castling_notation, castling_field) = reader.read(input);
    Reading {
        setup,
        partial_board,
        castling_notation,
        castling_field,
        diagnostics: reader.diagnostics,
        fixed_by_defaults: reader.fixed_by_defaults,
    }
}

struct Reader {
    diagnostics: Vec<Diagnostic>,
    fixed_by_defaults: Vec<usize>,
}

fn is_separator(byte: u8) -> bool {
    matches!(byte, b' ' | b'_' | b'\t')
}

impl Reader {
    fn push(&mut self, code: Code, severity: Severity, location: Location, message: String) {
        self.diagnostics
            .push(Diagnostic::new(code, severity, location, message));
    }

    /// Pushes an error whose fix is the FEN with the field's default value.
    fn push_defaulted(&mut self, code: Code, field: u8, message: String) {
        self.fixed_by_defaults.push(self.diagnostics.len());
        self.push(code, Severity::Error, Location::Field(field), message);
    }

    fn read(&mut self, input: &[u8]) -> (Option<Setup>, Board, CastlingNotation, Vec<u8>) {
        let trimmed = input.trim_ascii();
        // The first 8 fields are kept; more only matter as "extra" or as EPD operations.
        let mut kept: [&[u8]; 8] = [&[]; 8];
        let mut field_count = 0usize;
        let mut semicolon_after_four = false;
        let mut separator_runs = false;
        let mut underscores = false;
        for field in trimmed.split(|b| {
            underscores |= *b == b'_';
            is_separator(*b)
        }) {
            if field.is_empty() {
                // Two separators in a row.
                separator_runs = true;
                continue;
            }
            if field_count < kept.len() {
                kept[field_count] = field;
            }
            semicolon_after_four |= field_count >= 4 && field.contains(&b';');
            field_count += 1;
        }
        let fields = &kept[..field_count.min(kept.len())];
        let Some(placement) = fields.first() else {
            self.push(
                Code::EmptyInput,
                Severity::Error,
                Location::Field(1),
                "There is no FEN here: the line is empty.".into(),
            );
            return (None, Board::empty(), CastlingNotation::Standard, Vec::new());
        };
        if trimmed.len() != input.len() || separator_runs {
            self.push(
                Code::ExtraWhitespace,
                Severity::Note,
                Location::Field(1),
                "Extra spaces around or between the fields were ignored.".into(),
            );
        }
        if underscores {
            self.push(
                Code::UnderscoreSeparators,
                Severity::Note,
                Location::Field(1),
                "Fields separated by \"_\" (as in a lichess address) were read as spaces.".into(),
            );
        }

        let (board, partial_board) = self.read_placement(placement);
        let mut fields = &fields[1..];

        // EPD operations (`bm Nf3; id "x";`) after the four EPD fields are not a FEN's clocks.
        if semicolon_after_four {
            self.push(
                Code::EpdOperations,
                Severity::Note,
                Location::Field(5),
                "This is an EPD line: its operations were ignored and the clocks read as 0 1."
                    .into(),
            );
            fields = &fields[..3];
        } else if fields.len() < 5 {
            let assumed = ["w", "-", "-", "0", "1"][fields.len()..].join(" ");
            self.push(
                Code::MissingFields,
                Severity::Note,
                Location::Field(fields.len() as u8 + 2),
                format!(
                    "The FEN has {} of 6 fields; the missing ones were read as \"{assumed}\".",
                    fields.len() + 1
                ),
            );
        }

        let turn = self.read_turn(fields.first().copied());
        let (castling_rights, notation) = match &board {
            Some(board) => self.read_castling(fields.get(1).copied(), board),
            None => (Bitboard::EMPTY, CastlingNotation::Standard),
        };
        let ep_square = self.read_en_passant(fields.get(2).copied());
        let halfmoves = self.read_halfmoves(fields.get(3).copied());
        let fullmoves = self.read_fullmoves(fields.get(4).copied());
        if fields.len() > 5 {
            self.push_defaulted(
                Code::ExtraFields,
                7,
                format!(
                    "The FEN has {field_count} fields instead of 6; the extra text {} does not belong to it.",
                    quote(fields[5])
                ),
            );
        }

        let setup = match (board, turn) {
            (Some(board), Some(turn)) => Some(Setup {
                board,
                turn,
                castling_rights,
                ep_square,
                halfmoves,
                fullmoves,
                ..Setup::empty()
            }),
            _ => None,
        };
        let castling_field = fields
            .get(1)
            .map(|f| f[..f.len().min(16)].to_vec())
            .unwrap_or_default();
        (setup, partial_board, notation, castling_field)
    }

    /// Reads field 1. Reports every broken rank; returns the board only when all are fine.
    /// Returns the board when the placement is fine, and in any case the board as far as it
    /// could be read (the first 8 squares of the first 8 ranks).
    fn read_placement(&mut self, placement: &[u8]) -> (Option<Board>, Board) {
        let rank_count = placement.iter().filter(|b| **b == b'/').count() + 1;
        // Bitboards by role (pawn, knight, bishop, rook, queen, king) and by colour (black, white).
        let mut roles = [0u64; 6];
        let mut colors = [0u64; 2];
        let mut ok = true;

        if rank_count != 8 {
            ok = false;
            let hint = if rank_count == 1 {
                " (ranks are separated by \"/\")"
            } else {
                ""
            };
            self.push(
                Code::RankCount,
                Severity::Error,
                Location::Field(1),
                format!(
                    "The placement has {} instead of 8{hint}.",
                    plural(rank_count, "rank", "ranks")
                ),
            );
        }

        // Only the first eight parts have chess rank numbers; more are covered by rank-count.
        for (index, text) in placement.split(|b| *b == b'/').take(8).enumerate() {
            let rank_number = 8 - index as u8;
            let rank_index = usize::from(rank_number - 1);
            let mut squares = 0usize;
            let mut bad_chars: Vec<char> = Vec::new();
            let mut bad_count = 0usize;
            let mut previous_was_digit = false;
            let mut split_run = false;

            for &byte in text.iter() {
                let class = PLACEMENT_CLASS[usize::from(byte)];
                if class == BAD {
                    // Rare: '0' and '9' still count as runs, so the rank's length is right.
                    if matches!(byte, b'0' | b'9') {
                        split_run |= previous_was_digit;
                        previous_was_digit = true;
                        squares += usize::from(byte - b'0');
                    } else {
                        previous_was_digit = false;
                    }
                    bad_count += 1;
                    let shown = if byte.is_ascii() {
                        char::from(byte)
                    } else {
                        char::REPLACEMENT_CHARACTER
                    };
                    if bad_chars.len() < 5 && !bad_chars.contains(&shown) {
                        bad_chars.push(shown);
                    }
                    continue;
                }
                // Branch-free on the common path: a piece sets its bit, a digit sets none.
                let is_piece = class >= PIECE;
                if squares < 8 {
                    let bit = u64::from(is_piece) << (rank_index * 8 + squares);
                    let piece = usize::from(class.saturating_sub(PIECE));
                    roles[piece % 6] |= bit;
                    colors[piece / 6] |= bit;
                }
                split_run |= previous_was_digit & !is_piece;
                previous_was_digit = !is_piece;
                squares += if is_piece { 1 } else { usize::from(class) };
            }

            if bad_count > 0 {
                ok = false;
                let listed: Vec<String> = bad_chars
                    .iter()
                    .map(|c| format!("\"{}\"", c.escape_debug()))
                    .collect();
                let hint = if bad_chars.iter().any(|c| *c == '0' || *c == '9') {
                    " (a run of empty squares is a digit from 1 to 8)"
                } else {
                    " (pieces are K Q R B N P for White, k q r b n p for Black)"
                };
                self.push(
                    Code::BadCharacter,
                    Severity::Error,
                    Location::Rank(rank_number),
                    format!(
                        "Rank {rank_number} contains {} that cannot be in a placement: {}{hint}.",
                        plural(bad_count, "character", "characters"),
                        listed.join(", ")
                    ),
                );
            }
            if squares != 8 {
                ok = false;
                let mut message = format!(
                    "Rank {rank_number} ({}) has {} instead of 8.",
                    quote(text),
                    plural(squares, "square", "squares")
                );
                if bad_chars.iter().any(|c| !c.is_ascii_digit()) {
                    message.pop();
                    message.push_str(", not counting the unreadable characters.");
                }
                self.push(
                    Code::RankLength,
                    Severity::Error,
                    Location::Rank(rank_number),
                    message,
                );
            } else if split_run {
                self.push(
                    Code::SplitEmptyRun,
                    Severity::Note,
                    Location::Rank(rank_number),
                    format!(
                        "Rank {rank_number} ({}) writes one run of empty squares as several digits; it is read as their sum.",
                        quote(text)
                    ),
                );
            }
        }
        let [pawn, knight, bishop, rook, queen, king] = roles.map(Bitboard);
        let [black, white] = colors.map(Bitboard);
        // Each square is set at most once, so the bitboards are always consistent.
        let board = Board::try_from_bitboards(
            ByRole {
                pawn,
                knight,
                bishop,
                rook,
                queen,
                king,
            },
            ByColor { white, black },
        )
        .unwrap_or_default();
        (ok.then(|| board.clone()), board)
    }

    fn read_turn(&mut self, field: Option<&[u8]>) -> Option<Color> {
        match field {
            None | Some(b"w") => Some(Color::White),
            Some(b"b") => Some(Color::Black),
            Some(b"W") | Some(b"B") => {
                let turn = if field == Some(b"W") {
                    Color::White
                } else {
                    Color::Black
                };
                self.push(
                    Code::UppercaseSideToMove,
                    Severity::Note,
                    Location::Field(2),
                    format!(
                        "The side to move is written in upper case; it was read as \"{}\".",
                        turn.char()
                    ),
                );
                Some(turn)
            }
            Some(other) => {
                self.push(
                    Code::BadSideToMove,
                    Severity::Error,
                    Location::Field(2),
                    format!(
                        "The side to move is {}, but it must be \"w\" (White) or \"b\" (Black).",
                        quote(other)
                    ),
                );
                None
            }
        }
    }

    /// Reads field 3 (see [`parse_castling`]) and reports what cannot be read.
    fn read_castling(
        &mut self,
        field: Option<&[u8]>,
        board: &Board,
    ) -> (Bitboard, CastlingNotation) {
        let Some(field) = field else {
            return (Bitboard::EMPTY, CastlingNotation::Standard);
        };
        let parsed = parse_castling(field, board);
        let too_many = Color::ALL
            .iter()
            .any(|c| (parsed.rights & c.backrank()).count() > 2);
        if !parsed.bad.is_empty() || too_many {
            let why = if parsed.bad.is_empty() {
                "one side has more than two castling rights".to_string()
            } else {
                format!("it contains {}", quote(&parsed.bad))
            };
            self.push_defaulted(
                Code::BadCastling,
                3,
                format!(
                    "The castling field {} cannot be read: {why}; it must be \"-\" or letters from K, Q, k, q (or rook files a-h, A-H in Chess960).",
                    quote(field)
                ),
            );
            if too_many {
                return (Bitboard::EMPTY, CastlingNotation::Standard);
            }
        }
        if parsed.duplicate {
            self.push(
                Code::DuplicateCastling,
                Severity::Note,
                Location::Field(3),
                format!(
                    "The castling field {} names a right twice; it was read once.",
                    quote(field)
                ),
            );
        }
        (parsed.rights, parsed.notation)
    }

    fn read_en_passant(&mut self, field: Option<&[u8]>) -> Option<Square> {
        match field {
            None | Some(b"-") => None,
            Some(text) => match Square::from_ascii(text) {
                Ok(square) => Some(square),
                Err(_) => {
                    self.push_defaulted(
                        Code::BadEnPassant,
                        4,
                        format!(
                            "The en passant field {} is not a square; it must be \"-\" or a square such as \"e3\".",
                            quote(text)
                        ),
                    );
                    None
                }
            },
        }
    }

    fn read_halfmoves(&mut self, field: Option<&[u8]>) -> u32 {
        let Some(text) = field else { return 0 };
        match parse_number(text) {
            Some(n) => n,
            None => {
                self.push_defaulted(
                    Code::BadHalfmoveClock,
                    5,
                    format!(
                        "The halfmove clock {} is not a whole number of halfmoves (0 or more).",
                        quote(text)
                    ),
                );
                0
            }
        }
    }

    fn read_fullmoves(&mut self, field: Option<&[u8]>) -> NonZeroU32 {
        let Some(text) = field else {
            return NonZeroU32::MIN;
        };
        match parse_number(text) {
            Some(0) => {
                self.push(
                    Code::FullmoveZero,
                    Severity::Note,
                    Location::Field(6),
                    "The fullmove number is 0; moves are counted from 1, so it was read as 1."
                        .into(),
                );
                NonZeroU32::MIN
            }
            Some(n) => NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN),
            None => {
                self.push_defaulted(
                    Code::BadFullmoveNumber,
                    6,
                    format!(
                        "The fullmove number {} is not a whole number of moves (1 or more).",
                        quote(text)
                    ),
                );
                NonZeroU32::MIN
            }
        }
    }
}

/// The square a `K`/`Q` letter (`k`/`q` for Black) names: the outermost of the side's rooks and
/// king on its back rank if that is a rook, else the h (a) corner. Same rule as shakmaty.
pub(crate) fn side_rook(board: &Board, color: Color, king_side: bool) -> Square {
    let backrank = color.backrank();
    let rooks_and_king = board.by_color(color) & (board.rooks() | board.kings()) & backrank;
    let (outermost, corner) = if king_side {
        (rooks_and_king.last(), File::H)
    } else {
        (rooks_and_king.first(), File::A)
    };
    outermost
        .filter(|sq| board.rooks().contains(*sq))
        .unwrap_or(Square::from_coords(corner, backrank))
}

/// Field 3 as read against a board.
pub(crate) struct ParsedCastling {
    /// The rook squares the letters name.
    pub rights: Bitboard,
    /// The notation the letters use.
    pub notation: CastlingNotation,
    /// Bytes that are not castling letters.
    pub bad: Vec<u8>,
    /// Whether a right was named twice.
    pub duplicate: bool,
}

/// Reads castling letters as rook squares, like shakmaty: `K`/`Q` name the outermost rook on that
/// side of the king (or the h/a file when there is none), file letters name the rook's file
/// (Shredder-FEN and X-FEN).
pub(crate) fn parse_castling(field: &[u8], board: &Board) -> ParsedCastling {
    let mut parsed = ParsedCastling {
        rights: Bitboard::EMPTY,
        notation: CastlingNotation::Standard,
        bad: Vec::new(),
        duplicate: false,
    };
    if field == b"-" {
        return parsed;
    }
    let (mut has_kq, mut has_files) = (false, false);
    for &byte in field {
        let color = Color::from_white(byte.is_ascii_uppercase());
        let backrank = color.backrank();
        let square = match byte.to_ascii_lowercase() {
            b'k' => {
                has_kq = true;
                side_rook(board, color, true)
            }
            b'q' => {
                has_kq = true;
                side_rook(board, color, false)
            }
            file @ b'a'..=b'h' => {
                has_files = true;
                Square::from_coords(File::new(u32::from(file - b'a')), backrank)
            }
            _ => {
                if parsed.bad.len() < 16 {
                    parsed.bad.push(byte);
                }
                continue;
            }
        };
        parsed.duplicate |= parsed.rights.contains(square);
        parsed.rights.add(square);
    }
    parsed.notation = match (has_kq, has_files) {
        (_, false) => CastlingNotation::Standard,
        (false, true) => CastlingNotation::Shredder,
        (true, true) => CastlingNotation::XFen,
    };
    parsed
}

/// [`PLACEMENT_CLASS`] of a byte that cannot be in a placement.
const BAD: u8 = 0;
/// [`PLACEMENT_CLASS`] of the first piece; piece `PIECE + i` has role `i % 6` (pawn, knight,
/// bishop, rook, queen, king) and colour `i / 6` (0 Black, 1 White).
const PIECE: u8 = 16;

/// What each byte is in a placement: [`BAD`], a run of 1-8 empty squares, or a piece.
static PLACEMENT_CLASS: [u8; 256] = {
    let mut table = [BAD; 256];
    let mut digit = 1;
    while digit <= 8 {
        table[(b'0' + digit) as usize] = digit;
        digit += 1;
    }
    let letters = *b"pnbrqkPNBRQK";
    let mut i = 0;
    while i < letters.len() {
        table[letters[i] as usize] = PIECE + i as u8;
        i += 1;
    }
    table
};

/// Parses a decimal number that fits in a `u32`; a leading `+` or sign is not accepted.
fn parse_number(text: &[u8]) -> Option<u32> {
    if text.is_empty() || text.len() > 10 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(input: &str) -> Vec<&'static str> {
        read(input.as_bytes())
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect()
    }

    #[test]
    fn reads_the_start_position_without_diagnostics() {
        let reading = read(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(reading.diagnostics.is_empty());
        assert_eq!(reading.setup, Some(Setup::initial()));
    }

    #[test]
    fn reports_every_broken_rank_with_its_square_count() {
        let reading = read(b"rnbqkbnr/ppppppp/8/8/8/9/PPPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(reading.setup.is_none());
        let ranks: Vec<(Code, Location)> = reading
            .diagnostics
            .iter()
            .map(|d| (d.code, d.location))
            .collect();
        assert!(ranks.contains(&(Code::RankLength, Location::Rank(7))));
        assert!(ranks.contains(&(Code::BadCharacter, Location::Rank(3))));
        assert!(ranks.contains(&(Code::RankLength, Location::Rank(2))));
        let rank7 = reading
            .diagnostics
            .iter()
            .find(|d| d.location == Location::Rank(7))
            .unwrap();
        assert!(rank7.message.contains("7 squares"), "{}", rank7.message);
    }

    #[test]
    fn tolerates_spaces_underscores_and_missing_fields() {
        assert_eq!(
            codes("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq - 0 1 "),
            ["extra-whitespace"]
        );
        assert_eq!(
            codes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1"),
            ["underscore-separators"]
        );
        assert_eq!(
            codes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            ["missing-fields"]
        );
        assert_eq!(
            codes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0"),
            ["fullmove-zero"]
        );
    }

    #[test]
    fn reads_shredder_and_x_fen_castling() {
        let shredder = read(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
        assert_eq!(shredder.castling_notation, CastlingNotation::Shredder);
        assert_eq!(shredder.setup.unwrap().castling_rights, Bitboard::CORNERS);
        let xfen = read(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KAkq - 0 1");
        assert_eq!(xfen.castling_notation, CastlingNotation::XFen);
    }

    #[test]
    fn quotes_hostile_text_briefly() {
        let long = vec![0xffu8; 10_000];
        let q = quote(&long);
        assert!(q.chars().count() < 40, "{q}");
        assert!(quote(b"a\nb").contains("\\n"));
    }

    #[test]
    fn rejects_signed_and_huge_numbers() {
        assert_eq!(parse_number(b"+1"), None);
        assert_eq!(parse_number(b"99999999999"), None);
        assert_eq!(parse_number(b"4294967295"), Some(u32::MAX));
        assert_eq!(parse_number(b"4294967296"), None);
    }
}
