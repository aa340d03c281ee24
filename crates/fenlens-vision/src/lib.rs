//! fenlens-vision: from a picture to a FEN.
//!
//! One module per stage, in the order a picture goes through them:
//! [`decode`] (bytes to pixels, with limits) → [`locate`] (the board's four corners) →
//! [`rectify`] (warp to a square; where [`gridlines`] are drawn between the squares, the grid
//! laid on them and the lines painted over; cut 64 crops) → [`classify`] (13 class
//! probabilities per square; where [`turn`] finds the pieces lying on their sides or standing on their heads, the
//! board is rectified again from its corners named in its own order and read again) → [`colour`] (a board-level check of white against black) → [`symmetry`] (knights
//! told from the symmetric rooks, queens and pawns by their outline) → [`alike`] (squares that
//! look alike, in their pixels or in the networks' hidden units, share one reading) → [`orient`]
//! (which side is at the bottom) → [`prior`] (close calls between pieces weighed by what each
//! square holds in games; whether a square holds a piece is left to the pixels) → [`compose`]
//! (the most probable placement that obeys simple facts, then the FEN), within which
//! [`relabel`] reads a drawing misread on every copy again from where its copies stand and
//! [`distinct`] reads two drawings that plainly differ as two pieces (and copies of one drawing
//! as one, and a white and a black piece drawn with one outline as one role), and [`kings`]
//! gives a side's king to the piece drawn like the other side's king. [`silhouette`]
//! finds the piece's pixels in a square for the two checks;
//! [`cover`] finds squares hidden under a dialog or banner, which are reported uncertain;
//! [`tint`] finds, in the picture's colours, empty squares under nothing but a coloured arrow,
//! which the classifier takes as blank where its networks doubt them.
//! [`pipeline`] runs them all; `train` (feature `train`, with candle) teaches the
//! classifier from rendered boards.

pub mod alike;
pub mod classify;
pub mod colour;
pub mod compose;
pub mod cover;
pub mod decode;
pub mod distinct;
pub mod gridlines;
pub mod kings;
pub mod locate;
pub mod orient;
pub mod pipeline;
pub mod prior;
pub mod rectify;
pub mod relabel;
pub mod silhouette;
pub mod symmetry;
pub mod tint;
#[cfg(feature = "train")]
pub mod train;
pub mod turn;

pub use pipeline::{Castling, Flipped, Options, Recognition, Recognizer};

/// What can go wrong while reading a picture.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    /// The bytes are not a picture we can read.
    #[error("not a readable picture: {0}")]
    Decode(String),
    /// The picture is larger than the limits allow.
    #[error("picture too large: {0}")]
    TooLarge(String),
    /// No chessboard could be found.
    #[error("no chessboard found")]
    NoBoard,
    /// The model could not be loaded or run.
    #[error("model error: {0}")]
    Model(String),
    /// This build has no trained model.
    #[error("this build has no trained model (models/square-net.safetensors was missing)")]
    NoModel,
}
