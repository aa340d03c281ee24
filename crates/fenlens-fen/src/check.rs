//! Checking a FEN: can the position it describes exist, and if not, why and how to fix it.
//!
//! [`check()`] reads a line with [`crate::read()`], then looks at the position the way
//! python-chess's `Board.status()` and shakmaty's `PositionError` do (kings, pawns, material,
//! castling rights, en passant square, checks) but reports each problem separately, with its
//! square and a corrected FEN where the correction is clear. It also warns about the two typical
//! transcription mistakes: a board written upside down and colours swapped. Warnings are never
//! applied silently; only errors make a FEN invalid.

use serde::Serialize;
use serde::ser::SerializeStruct;
use shakmaty::{
    Bitboard, Board, Castles, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Piece,
    Position, Rank, Role, Setup, Square, attacks,
};

use crate::diagnostic::{Code, Diagnostic, Location, Severity};
use crate::read::{Reading, parse_castling, read};
use crate::write::{CastlingNotation, EnPassantWrite, WriteOptions, write_fen};

/// Choices for checking and writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CheckOptions {
    /// Judge castling rights by Chess960 rules (king anywhere between its rooks). Also used
    /// automatically when the castling field names rook files (Shredder-FEN, X-FEN).
    pub chess960: bool,
    /// How the canonical FEN and fixes are written.
    pub write: WriteOptions,
}

/// The checker's verdict on one FEN line.
#[derive(Debug, Clone)]
pub struct Report {
    /// The input as given (invalid UTF-8 replaced).
    pub input: String,
    /// The position as read, when the placement and side to move could be read.
    pub setup: Option<Setup>,
    /// The canonical FEN of what was read; `None` when it could not be read.
    pub fen: Option<String>,
    /// The pieces as far as the placement could be read (all of them when it is fine), so that a
    /// broken FEN can still be shown.
    pub partial_board: Board,
    /// Every problem found, errors first.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// True when no diagnosis is an error.
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The errors, in order.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Report", 5)?;
        s.serialize_field("input", &self.input)?;
        s.serialize_field("fen", &self.fen)?;
        s.serialize_field("valid", &self.is_valid())?;
        s.serialize_field("board", &self.partial_board.board_fen().to_string())?;
        s.serialize_field("diagnostics", &self.diagnostics)?;
        s.end()
    }
}

/// Why [`fix`] could not produce a valid FEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfixable {
    /// The errors that have no clear fix (after applying the fixes that exist).
    pub remaining: Vec<Diagnostic>,
}

/// Reads and checks one FEN line. Never panics, whatever the bytes.
pub fn check(input: &[u8], options: &CheckOptions) -> Report {
    let reading = read(input);
    let input = String::from_utf8_lossy(input).into_owned();
    check_reading(input, reading, options)
}

/// Applies every error's fix until the FEN is valid. Warnings (upside down, colours swapped)
/// are not applied. Fails when an error has no clear fix.
pub fn fix(input: &[u8], options: &CheckOptions) -> Result<String, Unfixable> {
    let mut current = input.to_vec();
    let mut report = check(input, options);
    // Each round applies one fix; a position has few errors, so a handful of rounds suffice.
    for _ in 0..16 {
        if report.is_valid() {
            if let Some(fen) = report.fen.clone() {
                return Ok(fen);
            }
        }
        if report.errors().any(|d| d.fix.is_none()) {
            break;
        }
        // Syntax fixes are the canonical FEN itself: re-reading it is the fix.
        let next = report
            .errors()
            .filter_map(|d| d.fix.as_deref())
            .find(|fix| Some(*fix) != report.fen.as_deref())
            .or(report.fen.as_deref())
            .map(|fen| fen.as_bytes().to_vec());
        match next {
            Some(next) if next != current => current = next,
            _ => break,
        }
        report = check(&current, options);
    }
    Err(Unfixable {
        remaining: report.errors().cloned().collect(),
    })
}

fn check_reading(input: String, reading: Reading, options: &CheckOptions) -> Report {
    let Reading {
        setup,
        partial_board,
        castling_notation,
        castling_field,
        mut diagnostics,
        fixed_by_defaults,
    } = reading;
    let notation = options.write.castling.unwrap_or(castling_notation);
    let writer = Writer {
        notation,
        en_passant: options.write.en_passant,
    };
    let Some(setup) = setup else {
        sort(&mut diagnostics);
        return Report {
            input,
            setup: None,
            fen: None,
            partial_board,
            diagnostics,
        };
    };
    let fen = writer.write(&setup);
    for index in fixed_by_defaults {
        diagnostics[index].fix = Some(fen.clone());
    }
    let mode = if options.chess960 || castling_notation != CastlingNotation::Standard {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let syntax_ok = !diagnostics.iter().any(Diagnostic::is_error);
    let position = Checker {
        setup: &setup,
        writer,
        mode,
        castling_field: &castling_field,
    };
    position.diagnose(&mut diagnostics, syntax_ok);
    sort(&mut diagnostics);
    Report {
        input,
        setup: Some(setup),
        fen: Some(fen),
        partial_board,
        diagnostics,
    }
}

/// Errors first, then warnings, then notes; otherwise in the order found.
fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| std::cmp::Reverse(d.severity));
}

#[derive(Clone, Copy)]
struct Writer {
    notation: CastlingNotation,
    en_passant: EnPassantWrite,
}

impl Writer {
    fn write(&self, setup: &Setup) -> String {
        write_fen(setup, self.notation, self.en_passant)
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Promoted pieces of one side from which [`Code::ManyPromotions`] is noted (and from which
/// recognition flags those pieces as uncertain). Two (a second queen) occur in games.
pub const MANY_PROMOTIONS: u32 = 3;

fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

fn piece_name(piece: Piece) -> String {
    format!("{} {}", color_name(piece.color), role_name(piece.role))
}

fn count_phrase(n: u32, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn squares_list(squares: Bitboard) -> String {
    squares
        .into_iter()
        .map(|sq| sq.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

struct Checker<'a> {
    setup: &'a Setup,
    writer: Writer,
    mode: CastlingMode,
    castling_field: &'a [u8],
}

impl Checker<'_> {
    fn board(&self) -> &Board {
        &self.setup.board
    }

    fn fixed(&self, change: impl FnOnce(&mut Setup)) -> Option<String> {
        let mut setup = self.setup.clone();
        change(&mut setup);
        Some(self.writer.write(&setup))
    }

    fn diagnose(&self, out: &mut Vec<Diagnostic>, syntax_ok: bool) {
        let board = self.board();
        if board.occupied().is_empty() {
            out.push(Diagnostic::new(
                Code::EmptyBoard,
                Severity::Error,
                Location::Field(1),
                "The board is empty: a position needs at least the two kings.",
            ));
            return;
        }
        let mut one_king_each = true;
        for color in Color::ALL {
            one_king_each &= self.check_kings(color, out);
            self.check_material(color, out);
        }
        for square in board.pawns() & Bitboard::BACKRANKS {
            let piece = board.piece_at(square).map(piece_name).unwrap_or_default();
            out.push(Diagnostic::new(
                Code::PawnOnBackRank,
                Severity::Error,
                Location::Square(square),
                format!(
                    "The {piece} on {square} stands on rank {}: a pawn that reaches the last rank is promoted, and none can stand on its own first rank.",
                    square.rank().char()
                ),
            ));
        }
        self.check_castling(out);
        let ep_valid = self.check_en_passant(out);
        self.check_clocks(out, ep_valid);
        if one_king_each {
            self.check_checks(out, ep_valid);
        }
        if syntax_ok {
            self.check_orientation(out);
        }
        if ep_valid
            && self.writer.en_passant == EnPassantWrite::Legal
            && !out.iter().any(Diagnostic::is_error)
        {
            self.note_uncapturable_en_passant(out);
        }
    }

    /// Reports a missing or extra king; true when the side has exactly one.
    fn check_kings(&self, color: Color, out: &mut Vec<Diagnostic>) -> bool {
        let kings = self.board().kings() & self.board().by_color(color);
        match kings.count() {
            1 => true,
            0 => {
                out.push(Diagnostic::new(
                    Code::MissingKing,
                    Severity::Error,
                    Location::Field(1),
                    format!(
                        "{} has no king: each side needs exactly one ({}).",
                        side_name(color),
                        if color.is_white() {
                            "\"K\" for White"
                        } else {
                            "\"k\" for Black"
                        }
                    ),
                ));
                false
            }
            n => {
                let extra = kings.into_iter().nth(1).unwrap_or(Square::A1);
                out.push(Diagnostic::new(
                    Code::TooManyKings,
                    Severity::Error,
                    Location::Square(extra),
                    format!(
                        "{} has {n} kings ({}), but each side has exactly one.",
                        side_name(color),
                        squares_list(kings)
                    ),
                ));
                false
            }
        }
    }

    /// Notes a side with this many promoted pieces or more ([`Code::ManyPromotions`]): games
    /// rarely hold them, while a picture read with a piece design the classifier has not seen
    /// can show them when every copy of one piece is misread.
    fn check_material(&self, color: Color, out: &mut Vec<Diagnostic>) {
        let board = self.board();
        let ours = board.by_color(color);
        let count = |role: Role| (board.by_role(role) & ours).count() as u32;
        let pawns = count(Role::Pawn);
        if pawns > 8 {
            out.push(Diagnostic::new(
                Code::TooManyPawns,
                Severity::Error,
                Location::Field(1),
                format!(
                    "{} has {pawns} pawns, but a side starts with 8 and can never have more.",
                    side_name(color)
                ),
            ));
        }
        let pieces = ours.count();
        if pieces > 16 {
            out.push(Diagnostic::new(
                Code::TooManyPieces,
                Severity::Error,
                Location::Field(1),
                format!(
                    "{} has {pieces} pieces and pawns, but a side starts with 16 and can never have more.",
                    side_name(color)
                ),
            ));
        }
        if pawns > 8 {
            return;
        }
        let bishops = board.bishops() & ours;
        let surplus = [
            (count(Role::Queen).saturating_sub(1), "queen"),
            (count(Role::Rook).saturating_sub(2), "rook"),
            (count(Role::Knight).saturating_sub(2), "knight"),
            (
                (bishops & Bitboard::LIGHT_SQUARES)
                    .count()
                    .saturating_sub(1) as u32,
                "light-squared bishop",
            ),
            (
                (bishops & Bitboard::DARK_SQUARES).count().saturating_sub(1) as u32,
                "dark-squared bishop",
            ),
        ];
        let promoted: u32 = surplus.iter().map(|(n, _)| n).sum();
        // The surplus in words, built only where a diagnosis names it.
        let extra = || {
            let parts: Vec<String> = surplus
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, what)| format!("{} extra", count_phrase(*n, what)))
                .collect();
            parts.join(" and ")
        };
        if pawns + promoted <= 8 && promoted >= MANY_PROMOTIONS {
            out.push(Diagnostic::new(
                Code::ManyPromotions,
                Severity::Note,
                Location::Field(1),
                format!(
                    "{} has {}, which take {} promotions: possible, but rare in games; if the position was read from a picture, check those pieces.",
                    side_name(color),
                    extra(),
                    promoted
                ),
            ));
        }
        if pawns + promoted > 8 {
            out.push(Diagnostic::new(
                Code::TooMuchMaterial,
                Severity::Error,
                Location::Field(1),
                format!(
                    "{} has {}, which take {} promotions, but with {} on the board only {} of its pawns can have promoted.",
                    side_name(color),
                    extra(),
                    promoted,
                    count_phrase(pawns, "pawn"),
                    8 - pawns
                ),
            ));
        }
    }

    fn check_castling(&self, out: &mut Vec<Diagnostic>) {
        let setup = self.setup;
        if setup.castling_rights.is_empty() {
            return;
        }
        let castles = Castles::from_setup(setup, self.mode).unwrap_or_else(|c| c);
        let valid = castles.castling_rights();
        let impossible = setup.castling_rights & !valid;
        if impossible.is_empty() {
            return;
        }
        let fix = self.fixed(|s| s.castling_rights = valid);
        let standard_only = self.mode == CastlingMode::Standard && {
            let in_960 = Castles::from_setup(setup, CastlingMode::Chess960).unwrap_or_else(|c| c);
            (impossible & !in_960.castling_rights()).is_empty()
        };
        for rook_square in impossible {
            let message = self.explain_castling(rook_square, standard_only);
            out.push(
                Diagnostic::new(
                    Code::ImpossibleCastling,
                    Severity::Error,
                    Location::Field(3),
                    message,
                )
                .with_fix(fix.clone()),
            );
        }
    }

    fn explain_castling(&self, rook_square: Square, standard_only: bool) -> String {
        let board = self.board();
        let color = if rook_square.rank() == Rank::First {
            Color::White
        } else {
            Color::Black
        };
        let backrank = color.backrank();
        let king = board.king_of(color);
        let king_on_backrank = king.filter(|k| k.rank() == backrank);
        let king_side = match king_on_backrank {
            Some(k) => rook_square.file() > k.file(),
            None => rook_square.file() >= File::E,
        };
        let letter = match (king_side, color) {
            (true, Color::White) => 'K',
            (false, Color::White) => 'Q',
            (true, Color::Black) => 'k',
            (false, Color::Black) => 'q',
        };
        let right = format!(
            "The castling right \"{letter}\" ({}'s {}-side castling)",
            side_name(color),
            if king_side { "king" } else { "queen" }
        );
        let rook = Piece {
            color,
            role: Role::Rook,
        };
        let mut problems = Vec::new();
        if self.mode == CastlingMode::Standard {
            let king_home = Square::from_coords(File::E, backrank);
            let needs = format!(
                "needs the {} king on {king_home} and a {} rook on {rook_square}",
                color_name(color),
                color_name(color)
            );
            if board.piece_at(king_home)
                != Some(Piece {
                    color,
                    role: Role::King,
                })
            {
                problems.push(match king {
                    Some(k) => format!("the king is on {k}"),
                    None => "there is no king".to_string(),
                });
            }
            if board.piece_at(rook_square) != Some(rook) {
                problems.push(occupant(board, rook_square));
            }
            if problems.is_empty() {
                problems.push("the rook is not in a corner".to_string());
            }
            let hint = if standard_only {
                " (in Chess960 it would be possible: check it with the Chess960 option)"
            } else {
                ""
            };
            return format!("{right} {needs}, but {}{hint}.", problems.join(" and "));
        }
        match king_on_backrank {
            None => problems.push(format!(
                "the {} king is not on rank {}",
                color_name(color),
                backrank.char()
            )),
            Some(_) if board.piece_at(rook_square) != Some(rook) => {
                problems.push(occupant(board, rook_square));
            }
            Some(_) => problems.push(format!(
                "another {} rook stands further out on that side, and only the outermost can keep this right",
                color_name(color)
            )),
        }
        format!(
            "{right} needs the king on rank {} and a {} rook on {rook_square}, but {}.",
            backrank.char(),
            color_name(color),
            problems.join(" and ")
        )
    }

    /// Reports an en passant square no double pawn move could have left; true when one is set
    /// and valid.
    fn check_en_passant(&self, out: &mut Vec<Diagnostic>) -> bool {
        let setup = self.setup;
        let Some(ep) = setup.ep_square else {
            return false;
        };
        let board = self.board();
        let mover = setup.turn;
        let pusher = !mover;
        let expected_rank = match mover {
            Color::White => Rank::Sixth,
            Color::Black => Rank::Third,
        };
        let mut problem = None;
        if ep.rank() != expected_rank {
            problem = Some(format!(
                "with {} to move it must be on rank {}, right behind a {} pawn that has just advanced two squares",
                side_name(mover),
                expected_rank.char(),
                color_name(pusher)
            ));
        } else {
            let (pushed_to, pushed_from) = match mover {
                Color::White => (ep.offset(-8), ep.offset(8)),
                Color::Black => (ep.offset(8), ep.offset(-8)),
            };
            let pawn = Piece {
                color: pusher,
                role: Role::Pawn,
            };
            if let Some(piece) = board.piece_at(ep) {
                problem = Some(format!(
                    "{ep} holds a {}, and the square a pawn skipped must be empty",
                    piece_name(piece)
                ));
            } else if let Some(to) = pushed_to.filter(|to| board.piece_at(*to) != Some(pawn)) {
                problem = Some(format!(
                    "there is no {} pawn on {to} that could have just advanced two squares",
                    color_name(pusher)
                ));
            } else if let Some(from) = pushed_from.filter(|from| board.occupied().contains(*from)) {
                problem = Some(format!(
                    "{from} is occupied, so no pawn can have just left it"
                ));
            }
        }
        match problem {
            Some(why) => {
                out.push(
                    Diagnostic::new(
                        Code::InvalidEnPassant,
                        Severity::Error,
                        Location::Square(ep),
                        format!("The en passant square {ep} is impossible: {why}."),
                    )
                    .with_fix(self.fixed(|s| s.ep_square = None)),
                );
                false
            }
            None => true,
        }
    }

    /// With the "legal" writing convention, says when a valid en passant square is dropped.
    fn note_uncapturable_en_passant(&self, out: &mut Vec<Diagnostic>) {
        let Some(ep) = self.setup.ep_square else {
            return;
        };
        let capturable = Chess::from_setup(self.setup.clone(), self.mode)
            .ok()
            .and_then(|pos| pos.ep_square(EnPassantMode::Legal))
            .is_some();
        if !capturable {
            out.push(Diagnostic::new(
                Code::EnPassantNotCapturable,
                Severity::Note,
                Location::Square(ep),
                format!(
                    "No pawn can capture en passant on {ep}, so the square is written as \"-\" (only squares where a capture is legal are written)."
                ),
            ));
        }
    }

    fn check_clocks(&self, out: &mut Vec<Diagnostic>, ep_valid: bool) {
        let setup = self.setup;
        if ep_valid && setup.halfmoves != 0 {
            out.push(
                Diagnostic::new(
                    Code::HalfmoveAfterPawnMove,
                    Severity::Warning,
                    Location::Field(5),
                    format!(
                        "The halfmove clock is {}, but the en passant square says a pawn has just moved, which resets it to 0.",
                        setup.halfmoves
                    ),
                )
                .with_fix(self.fixed(|s| s.halfmoves = 0)),
            );
        }
        let played = 2 * (u64::from(setup.fullmoves.get()) - 1) + u64::from(setup.turn.is_black());
        if u64::from(setup.halfmoves) > played && setup.fullmoves.get() > 1 {
            out.push(Diagnostic::new(
                Code::HalfmoveTooLarge,
                Severity::Note,
                Location::Field(5),
                format!(
                    "The halfmove clock ({}) counts more halfmoves than the {} played so far; fine for a set-up position, wrong in a game.",
                    setup.halfmoves,
                    count_phrase(played as u32, "halfmove")
                ),
            ));
        }
    }

    fn check_checks(&self, out: &mut Vec<Diagnostic>, ep_valid: bool) {
        let setup = self.setup;
        let board = self.board();
        let turn = setup.turn;
        let (Some(our_king), Some(their_king)) = (board.king_of(turn), board.king_of(!turn)) else {
            return;
        };
        let occupied = board.occupied();
        let attackers_of_theirs = board.attacks_to(their_king, turn, occupied);
        let checkers = board.attacks_to(our_king, !turn, occupied);
        if let Some(attacker) = attackers_of_theirs.first() {
            let by = board
                .piece_at(attacker)
                .map(|p| format!(" by the {} on {attacker}", piece_name(p)))
                .unwrap_or_default();
            let (message, fix) = if checkers.is_empty() {
                (
                    format!(
                        "The {} king on {their_king} is in check{by}, but it is {}'s turn: the side not to move cannot be in check. Probably {} is to move.",
                        color_name(!turn),
                        side_name(turn),
                        side_name(!turn)
                    ),
                    self.fixed(|s| {
                        s.turn = !s.turn;
                        s.ep_square = None;
                    }),
                )
            } else {
                (
                    format!(
                        "Both kings are in check (the {} king on {their_king}{by}), which no move can bring about.",
                        color_name(!turn)
                    ),
                    None,
                )
            };
            out.push(
                Diagnostic::new(
                    Code::OppositeCheck,
                    Severity::Error,
                    Location::Square(their_king),
                    message,
                )
                .with_fix(fix),
            );
        }
        let (Some(a), Some(b)) = (checkers.first(), checkers.last()) else {
            return;
        };
        let king_name = format!("{} king on {our_king}", color_name(turn));
        let describe = |squares: Bitboard| {
            squares
                .into_iter()
                .filter_map(|sq| {
                    board
                        .piece_at(sq)
                        .map(|p| format!("the {} on {sq}", role_name(p.role)))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        if checkers.count() > 2 {
            out.push(Diagnostic::new(
                Code::TooManyCheckers,
                Severity::Error,
                Location::Square(our_king),
                format!(
                    "The {king_name} is attacked by {} pieces ({}); one move can give check with at most two.",
                    checkers.count(),
                    describe(checkers)
                ),
            ));
            return;
        }
        let ep = if ep_valid { setup.ep_square } else { None };
        let impossible = if let Some(ep) = ep {
            let (pushed_to, pushed_from) = match turn {
                Color::White => (ep.offset(-8), ep.offset(8)),
                Color::Black => (ep.offset(8), ep.offset(-8)),
            };
            match (pushed_to, pushed_from) {
                (Some(to), Some(from)) => {
                    a != b
                        || (a != to
                            && board
                                .attacks_to(our_king, !turn, occupied.without(to).with(from))
                                .any())
                }
                _ => false,
            }
            .then(|| {
                format!(
                    "The {king_name} is in check from {}, but the en passant square {ep} says the last move was a double pawn move, which cannot have given this check.",
                    describe(checkers)
                )
            })
        } else if a != b && attacks::aligned(a, our_king, b) {
            Some(format!(
                "The {king_name} is in check from {}, which stand on one line with it: no single move uncovers both.",
                describe(checkers)
            ))
        } else if (checkers & board.steppers()).more_than_one() {
            Some(format!(
                "The {king_name} is in check from {}, two pieces that do not slide: no single move gives both checks.",
                describe(checkers)
            ))
        } else {
            None
        };
        if let Some(message) = impossible {
            out.push(Diagnostic::new(
                Code::ImpossibleCheck,
                Severity::Error,
                Location::Square(our_king),
                message,
            ));
        }
    }

    /// Warns when the placement looks upside down or colour-swapped, proposing the corrected FEN.
    fn check_orientation(&self, out: &mut Vec<Diagnostic>) {
        /// How much more typical a transformed placement must look before we say so.
        const MIN_GAIN: i32 = 10;
        /// Within this margin both explanations are offered.
        const CLEAR_MARGIN: i32 = 3;
        let board = self.board();
        let mut mirrored = board.clone();
        mirrored.flip_vertical();
        let mut rotated = board.clone();
        rotated.rotate_180();
        let swapped = board.clone().into_swapped_colors();
        let here = orientation_score(board);
        let (mirror_score, rotate_score, swap_score) = (
            orientation_score(&mirrored),
            orientation_score(&rotated),
            orientation_score(&swapped),
        );
        // The placement alone must make the case; castling letters only tell the candidates apart.
        if mirror_score.max(rotate_score).max(swap_score) - here < MIN_GAIN {
            return;
        }
        let castling = |b: &Board| 3 * self.possible_castling(b).count() as i32;
        let here = here + castling(board);
        let (mirror_score, rotate_score, swap_score) = (
            mirror_score + castling(&mirrored),
            rotate_score + castling(&rotated),
            swap_score + castling(&swapped),
        );
        let (flip_score, flipped, how) = if rotate_score > mirror_score {
            (
                rotate_score,
                rotated,
                "seen from Black's side (turned by 180 degrees)",
            )
        } else {
            (
                mirror_score,
                mirrored,
                "written starting with rank 1 instead of rank 8",
            )
        };
        let flip_gain = flip_score - here;
        let swap_gain = swap_score - here;
        if flip_gain >= MIN_GAIN && flip_gain + CLEAR_MARGIN > swap_gain {
            out.push(
                Diagnostic::new(
                    Code::BoardUpsideDown,
                    Severity::Warning,
                    Location::Field(1),
                    format!(
                        "The board looks upside down, as if {how}: White's pawns and pieces stand where Black's normally do. If so, use the proposed FEN."
                    ),
                )
                .with_fix(self.with_board(flipped)),
            );
        }
        if swap_gain >= MIN_GAIN && swap_gain + CLEAR_MARGIN > flip_gain {
            out.push(
                Diagnostic::new(
                    Code::ColorsSwapped,
                    Severity::Warning,
                    Location::Field(1),
                    "The colours look swapped: upper-case (White) pieces stand where Black's normally do and lower-case where White's do. If so, use the proposed FEN with the cases exchanged.",
                )
                .with_fix(self.with_board(swapped)),
            );
        }
    }

    /// The castling letters as written, re-read on `board`, keeping only the possible rights.
    fn possible_castling(&self, board: &Board) -> Bitboard {
        if self.castling_field.is_empty() || self.castling_field == b"-" {
            return Bitboard::EMPTY;
        }
        let setup = Setup {
            board: board.clone(),
            castling_rights: parse_castling(self.castling_field, board).rights,
            ..Setup::empty()
        };
        Castles::from_setup(&setup, self.mode)
            .unwrap_or_else(|c| c)
            .castling_rights()
    }

    /// The FEN with another board, the castling letters re-read on it (keeping only the possible
    /// rights) and the en passant square dropped.
    fn with_board(&self, board: Board) -> Option<String> {
        self.fixed(|s| {
            s.castling_rights = self.possible_castling(&board);
            s.board = board;
            s.ep_square = None;
        })
    }
}

/// "a white knight stands on h1" / "h1 is empty", for castling messages.
fn occupant(board: &Board, square: Square) -> String {
    match board.piece_at(square) {
        Some(piece) => format!("{square} holds a {}", piece_name(piece)),
        None => format!("{square} is empty"),
    }
}

/// How much a placement looks like White plays up the board: pawns near their own side, kings
/// at home, pieces on their starting squares. Higher is more typical.
pub fn orientation_score(board: &Board) -> i32 {
    let white = board.white();
    let black = board.black();
    let pawns = board.pawns();
    let near = |ranks: [Rank; 2]| Bitboard::from_rank(ranks[0]) | Bitboard::from_rank(ranks[1]);
    let low = near([Rank::Second, Rank::Third]);
    let high = near([Rank::Sixth, Rank::Seventh]);
    let count = |bb: Bitboard| bb.count() as i32;
    let pawn_balance = count(pawns & white & low) - count(pawns & white & high)
        + count(pawns & black & high)
        - count(pawns & black & low);
    let first = Bitboard::from_rank(Rank::First);
    let eighth = Bitboard::from_rank(Rank::Eighth);
    let kings = board.kings();
    let king_balance = count(kings & white & first) - count(kings & white & eighth)
        + count(kings & black & eighth)
        - count(kings & black & first);
    let start = Board::new();
    let at_home = Color::ALL
        .iter()
        .flat_map(|&color| {
            [
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen,
                Role::King,
            ]
            .map(|role| Piece { color, role })
        })
        .map(|piece| count(board.by_piece(piece) & start.by_piece(piece)))
        .sum::<i32>();
    pawn_balance + 2 * king_balance + at_home
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(fen: &str) -> Vec<&'static str> {
        check(fen.as_bytes(), &CheckOptions::default())
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect()
    }

    #[test]
    fn brief_examples_are_clean() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
            "rnbqkbnr/ppp2ppp/4p3/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
            "r1bk3r/p2pBpNp/n4n2/1p1NP2P/6P1/3P4/P1P1K3/q5b1 b - - 1 23",
        ] {
            let report = check(fen.as_bytes(), &CheckOptions::default());
            assert!(
                report.diagnostics.is_empty(),
                "{fen}: {:?}",
                report.diagnostics
            );
            assert_eq!(report.fen.as_deref(), Some(fen));
        }
    }

    #[test]
    fn upside_down_start_is_flagged_with_the_start_position_as_fix() {
        let report = check(
            b"RNBQKBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbqkbnr w KQkq - 0 1",
            &CheckOptions::default(),
        );
        let flip = report
            .diagnostics
            .iter()
            .find(|d| d.code == Code::BoardUpsideDown)
            .expect("upside-down warning");
        assert_eq!(
            flip.fix.as_deref(),
            Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        );
    }

    #[test]
    fn rotated_board_proposes_rotation() {
        // The start position after 1.e4 seen from Black's side.
        let codes = codes("RNBKQBNR/PPP1PPPP/8/3P4/8/8/pppppppp/rnbkqbnr b - - 0 1");
        assert!(codes.contains(&"board-upside-down"), "{codes:?}");
    }

    #[test]
    fn opposite_check_proposes_the_other_side() {
        let report = check(b"4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", &CheckOptions::default());
        let d = &report.diagnostics[0];
        assert_eq!(d.code, Code::OppositeCheck);
        assert_eq!(d.location, Location::Square(Square::E8));
        assert_eq!(d.fix.as_deref(), Some("4k3/4Q3/8/8/8/8/8/4K3 b - - 0 1"));
    }

    #[test]
    fn fix_applies_every_clear_fix() {
        let fixed = fix(
            b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq e3 0 1",
            &CheckOptions::default(),
        );
        assert_eq!(
            fixed.as_deref(),
            Ok("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1")
        );
        let unfixable = fix(b"8/8/8/8/8/8/8/8 w - - 0 1", &CheckOptions::default());
        assert_eq!(unfixable.unwrap_err().remaining[0].code, Code::EmptyBoard);
    }

    #[test]
    fn score_prefers_the_start_position() {
        let start = Board::new();
        let mut flipped = start.clone();
        flipped.flip_vertical();
        assert!(orientation_score(&start) > orientation_score(&flipped) + 20);
    }
}
