//! FEN for fenlens: tolerant reading, canonical writing, and diagnoses in plain words.
//!
//! ```
//! use fenlens_fen::{check, CheckOptions};
//!
//! let report = check(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", &CheckOptions::default());
//! assert!(!report.is_valid());
//! let castling = &report.diagnostics[0];
//! assert_eq!(castling.code.as_str(), "impossible-castling");
//! assert_eq!(castling.fix.as_deref(), Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1"));
//! ```
//!
//! The rules of chess (attacks, castling, en passant) come from [`shakmaty`]; this crate adds
//! what it does not give: reading what people paste, the exact place of each error, the
//! explanation, and the fix.

pub mod check;
pub mod diagnostic;
pub mod read;
pub mod write;

pub use check::{CheckOptions, Report, Unfixable, check, fix, orientation_score};
pub use diagnostic::{Code, Diagnostic, Location, Severity};
pub use read::{Reading, read};
pub use write::{CastlingNotation, EnPassantWrite, WriteOptions, write_fen};

/// The shakmaty version this crate builds on, re-exported for callers that need its types.
pub use shakmaty;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
mod readme {}
