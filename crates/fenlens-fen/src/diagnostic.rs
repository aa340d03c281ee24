//! Diagnoses: what is wrong with a FEN, where, in plain words, and how to fix it.
//!
//! Every problem the checker finds is a [`Diagnostic`] with a stable [`Code`], a [`Severity`], a
//! [`Location`] (a chess rank, a square or a FEN field), a one-sentence message and, when one is
//! clear, a corrected FEN.

use serde::Serialize;
use serde::ser::SerializeMap;
use shakmaty::Square;

/// How bad a diagnosis is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something the reader assumed or tolerated; the FEN is still usable.
    Note,
    /// Probably a mistake (board upside down, colours swapped), but a legal position.
    Warning,
    /// The FEN is unreadable or describes an impossible position.
    Error,
}

impl Severity {
    /// The lowercase name used in text and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// A stable, kebab-case identifier for each kind of diagnosis.
        ///
        /// Programs may match on these names; they never change meaning.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The kebab-case name, e.g. `rank-length`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// Looks a code up by its kebab-case name.
            pub fn from_name(name: &str) -> Option<Code> {
                match name {
                    $($name => Some(Code::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    /// The input holds no FEN at all (empty or only separators).
    EmptyInput => "empty-input",
    /// A character in the placement that is neither a piece letter nor a digit 1-8.
    BadCharacter => "bad-character",
    /// A rank that does not add up to exactly 8 squares.
    RankLength => "rank-length",
    /// The placement does not have exactly 8 ranks.
    RankCount => "rank-count",
    /// Two digits in a row in a rank (valid sum, but not canonical).
    SplitEmptyRun => "split-empty-run",
    /// Field 2 is not `w` or `b`.
    BadSideToMove => "bad-side-to-move",
    /// Field 3 is not `-` or castling letters.
    BadCastling => "bad-castling",
    /// Field 4 is not `-` or a square.
    BadEnPassant => "bad-en-passant",
    /// Field 5 is not a non-negative number.
    BadHalfmoveClock => "bad-halfmove-clock",
    /// Field 6 is not a positive number.
    BadFullmoveNumber => "bad-fullmove-number",
    /// More than six fields.
    ExtraFields => "extra-fields",
    /// Fewer than six fields: defaults were assumed.
    MissingFields => "missing-fields",
    /// Leading, trailing or repeated whitespace was ignored.
    ExtraWhitespace => "extra-whitespace",
    /// Fields separated by `_` (as in lichess URLs) were read as spaces.
    UnderscoreSeparators => "underscore-separators",
    /// Fullmove number 0 was read as 1.
    FullmoveZero => "fullmove-zero",
    /// An upper-case side to move (`W`, `B`) was read as lower case.
    UppercaseSideToMove => "uppercase-side-to-move",
    /// A castling right was written twice.
    DuplicateCastling => "duplicate-castling",
    /// EPD operations after the four EPD fields were ignored.
    EpdOperations => "epd-operations",
    /// No pieces on the board at all.
    EmptyBoard => "empty-board",
    /// A side has no king.
    MissingKing => "missing-king",
    /// A side has more than one king.
    TooManyKings => "too-many-kings",
    /// A side has more than 8 pawns.
    TooManyPawns => "too-many-pawns",
    /// A side has more than 16 pieces.
    TooManyPieces => "too-many-pieces",
    /// More promoted pieces than missing pawns allow.
    TooMuchMaterial => "too-much-material",
    /// Three or more promoted pieces of one side: possible, but rare in games.
    ManyPromotions => "many-promotions",
    /// A pawn on rank 1 or 8.
    PawnOnBackRank => "pawn-on-back-rank",
    /// A castling right whose king or rook is not where it must be.
    ImpossibleCastling => "impossible-castling",
    /// An en passant square that no double pawn move could have left.
    InvalidEnPassant => "invalid-en-passant",
    /// An en passant square where no capture is possible (kept or dropped by the write mode).
    EnPassantNotCapturable => "en-passant-not-capturable",
    /// The side that is not to move is in check.
    OppositeCheck => "opposite-check",
    /// The side to move is attacked by more than two pieces.
    TooManyCheckers => "too-many-checkers",
    /// A check that no legal last move could have given.
    ImpossibleCheck => "impossible-check",
    /// The halfmove clock is not 0 although the en passant square says a pawn just moved.
    HalfmoveAfterPawnMove => "halfmove-after-pawn-move",
    /// The halfmove clock counts more halfmoves than the game has had.
    HalfmoveTooLarge => "halfmove-too-large",
    /// The placement looks as if it was written starting with rank 1, or read from Black's side.
    BoardUpsideDown => "board-upside-down",
    /// The placement looks as if White and Black (upper and lower case) were exchanged.
    ColorsSwapped => "colors-swapped",
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a diagnosis points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    /// A chess rank, 1-8 (the first rank written in a FEN is rank 8).
    Rank(u8),
    /// A square of the board.
    Square(Square),
    /// A FEN field, 1-6.
    Field(u8),
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Rank(rank) => write!(f, "rank {rank}"),
            Location::Square(square) => write!(f, "{square}"),
            Location::Field(field) => write!(f, "field {field}"),
        }
    }
}

/// One problem found in a FEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem it is.
    pub code: Code,
    /// How bad it is.
    pub severity: Severity,
    /// Where it is.
    pub location: Location,
    /// One sentence in plain words.
    pub message: String,
    /// A corrected FEN, when the correction is clear.
    pub fix: Option<String>,
}

impl Diagnostic {
    /// A diagnosis without a fix.
    pub fn new(
        code: Code,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            code,
            severity,
            location,
            message: message.into(),
            fix: None,
        }
    }

    /// The same diagnosis with a proposed corrected FEN.
    pub fn with_fix(mut self, fix: Option<String>) -> Self {
        self.fix = fix;
        self
    }

    /// Whether this diagnosis makes the FEN invalid.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("severity", &self.severity)?;
        match self.location {
            Location::Rank(rank) => map.serialize_entry("rank", &rank)?,
            Location::Square(square) => map.serialize_entry("square", &square.to_string())?,
            Location::Field(field) => map.serialize_entry("field", &field)?,
        }
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("fix", &self.fix)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_round_trip_and_are_kebab_case() {
        for code in Code::ALL {
            let name = code.as_str();
            assert_eq!(Code::from_name(name), Some(*code));
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name}"
            );
        }
    }

    #[test]
    fn diagnostic_serializes_location_as_its_own_key() {
        let d = Diagnostic::new(
            Code::RankLength,
            Severity::Error,
            Location::Rank(7),
            "Rank 7 has 7 squares.",
        );
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["rank"], 7);
        assert_eq!(json["code"], "rank-length");
        assert_eq!(json["severity"], "error");
        assert!(json["fix"].is_null());
        assert!(json.get("square").is_none());
    }
}
