//! fenlens-render: draws chess positions as pictures with exact ground truth.
//!
//! The recognizer can only be as good as the pictures it learns from, so this crate imitates what
//! people really screenshot and photograph: flat and textured boards, printed diagrams, piece sets
//! read from SVG folders, last-move highlights, arrows, coordinates, browser windows around the
//! board, book pages, and photo degradations. Every picture records where each board's corners
//! are after every warp.
//!
//! Stages, in the order a picture is made:
//! [`positions`] (what to draw) → [`style`] (how the board looks) → [`draw`] (one board, with
//! [`pieces`] and [`text`]) → [`scene`] (the whole picture) → [`degrade`] (photo effects) →
//! [`dataset`] (many pictures and `manifest.jsonl`). [`svg`] writes a single board as SVG.

pub mod dataset;
pub mod degrade;
pub mod draw;
pub mod pieces;
pub mod positions;
pub mod scene;
pub mod style;
pub mod svg;
pub mod text;

use std::path::{Path, PathBuf};

pub use dataset::{DatasetOptions, ManifestEntry, generate};
pub use draw::{DrawnBoard, draw_board};
pub use pieces::{GraftedSet, PieceDrawings, PieceSet};
pub use scene::{Category, Library, Sample, render_sample};
pub use style::{BoardLook, BoardStyle, Coords};

/// What can go wrong while rendering.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why (in the message, not as a source, so that a chain of errors names it once).
        cause: std::io::Error,
    },
    /// An SVG drawing could not be parsed.
    #[error("{what}: not a usable SVG drawing: {message}")]
    Svg {
        /// Which drawing.
        what: String,
        /// The parser's message.
        message: String,
    },
    /// An image could not be decoded or encoded.
    #[error("{path}: {message}")]
    Image {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A request that cannot be drawn.
    #[error("{0}")]
    Invalid(String),
}

/// The SVG renderer, re-exported for callers that handle its pixmaps.
pub use resvg;

/// The entries of a folder that `keep` accepts, sorted by path.
pub(crate) fn sorted_entries(
    dir: &Path,
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, RenderError> {
    let entries = std::fs::read_dir(dir).map_err(|cause| RenderError::Io {
        path: dir.to_path_buf(),
        cause,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| keep(p))
        .collect();
    paths.sort();
    Ok(paths)
}
