//! Classify: a small convolutional network gives 13 class probabilities per square.
//!
//! Input: the crops of [`crate::rectify::cut_cells`] (grey, board-normalized, `CROP`×`CROP`
//! each) of the squares that are not blank ([`crate::rectify::blank_cells`]: one flat grey,
//! nothing drawn; those are given [`BLANK_READING`] unread). Network: three 3x3 convolutions with stride 2 (32→16→8→4 pixels), a
//! hidden layer and 13 outputs; the widths ([`NetShape`]) are chosen when training and read
//! back from the weights' shapes. Weights are built into the binary
//! (`models/square-net.safetensors`). Recognition runs the network without candle
//! (`inference.rs`); the candle network that training builds is in `network.rs` (feature
//! `train`).

use fenlens_fen::shakmaty::Piece;
use fenlens_render::pieces::{PIECES, piece_index};
use rayon::prelude::*;

use crate::VisionError;
use crate::rectify::{CROP, Rectified, blank_cells, cut_cells, cut_cells_zoomed, mirror_crop};

mod inference;
#[cfg(feature = "train")]
mod network;
#[cfg(test)]
mod random_weights;

#[cfg(feature = "train")]
pub use network::{SquareNet, StyleChange, StyleMix, StyleNoise};

/// Number of classes: empty, then White P N B R Q K, then Black P N B R Q K.
pub const CLASSES: usize = 13;

/// The piece of a class (`None` for empty). Classes 1-12 follow the renderer's piece order.
pub fn class_piece(class: usize) -> Option<Piece> {
    class.checked_sub(1).and_then(|i| PIECES.get(i).copied())
}

/// The class of a piece (0 for empty).
pub fn piece_class(piece: Option<Piece>) -> usize {
    piece.map_or(0, |p| piece_index(p) + 1)
}

/// The most probable class of a row of probabilities (0 for an empty row).
pub fn best_class(probabilities: &[f32; CLASSES]) -> usize {
    (0..CLASSES)
        .max_by(|&a, &b| probabilities[a].total_cmp(&probabilities[b]))
        .unwrap_or(0)
}

/// A reading split between two classes, `p` on `first` and the rest on `second` (for the
/// checks' tests).
#[cfg(test)]
pub(crate) fn two_way(first: usize, p: f32, second: usize) -> [f32; CLASSES] {
    let mut out = [0.0; CLASSES];
    out[first] = p;
    out[second] = 1.0 - p;
    out
}

/// The share of a row of probabilities on the piece classes (every class but the empty square):
/// how surely something stands on the square, whichever piece it is.
pub fn piece_share(probabilities: &[f32; CLASSES]) -> f32 {
    probabilities[1..].iter().sum()
}

/// Scales a row of probabilities back to a sum of 1 after some were changed (left alone when
/// they sum to nothing).
pub fn renormalize(probabilities: &mut [f32; CLASSES]) {
    let sum: f32 = probabilities.iter().sum();
    if sum > 0.0 {
        for v in probabilities.iter_mut() {
            *v /= sum;
        }
    }
}

/// The FEN letter of a class (`.` for empty).
pub fn class_char(class: usize) -> char {
    class_piece(class).map(|p| p.char()).unwrap_or('.')
}

/// The widths of the square network's layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetShape {
    /// Channels of the three convolutions.
    pub channels: [usize; 3],
    /// Units of the hidden layer.
    pub hidden: usize,
}

impl Default for NetShape {
    /// The first shipped shape: 16, 32 and 64 channels, 64 hidden units (0.7 million
    /// multiply-adds a square).
    fn default() -> NetShape {
        NetShape {
            channels: [16, 32, 64],
            hidden: 64,
        }
    }
}

impl NetShape {
    /// Multiply-adds of one square through the network.
    pub fn multiply_adds(&self) -> usize {
        let [c1, c2, c3] = self.channels;
        let cells = |side: usize| side * side;
        cells(CROP / 2) * c1 * 9
            + cells(CROP / 4) * c2 * c1 * 9
            + cells(CROP / 8) * c3 * c2 * 9
            + cells(CROP / 8) * c3 * self.hidden
            + self.hidden * CLASSES
    }
}

/// A built-in model's weights from `models/`, or none where `build.rs` did not find the file
/// (and so did not set the cfg).
macro_rules! built_in_weights {
    ($name:ident, $cfg:ident, $file:literal) => {
        #[cfg($cfg)]
        const $name: &[u8] = include_bytes!(concat!("../../../models/", $file));
        #[cfg(not($cfg))]
        const $name: &[u8] = &[];
    };
}
built_in_weights!(FIRST_WEIGHTS, fenlens_has_model, "square-net.safetensors");
built_in_weights!(
    SECOND_WEIGHTS,
    fenlens_has_second_model,
    "square-net-2.safetensors"
);
built_in_weights!(
    THIRD_WEIGHTS,
    fenlens_has_third_model,
    "square-net-3.safetensors"
);
built_in_weights!(
    FOURTH_WEIGHTS,
    fenlens_has_fourth_model,
    "square-net-4.safetensors"
);
/// The built-in models, averaged: two trainings of the shipped recipe with different seeds,
/// and two of that recipe with striped and shaded fills (`--fill-patterns`; see
/// models/README.md). Missing files are left out.
const WEIGHTS: [&[u8]; 4] = [FIRST_WEIGHTS, SECOND_WEIGHTS, THIRD_WEIGHTS, FOURTH_WEIGHTS];

/// The trained classifier, ready to run on the CPU.
pub struct Classifier {
    /// One network, or several whose probabilities are averaged.
    nets: Vec<inference::FastSquareNet>,
    mirror: bool,
    shifted: bool,
    zoomed: bool,
    skip_blank: bool,
}

impl Classifier {
    /// The classifier built into the binary: the built-in models, averaged.
    pub fn embedded() -> Result<Classifier, VisionError> {
        // The members load side by side (about 0.4 ms each, a quarter of a fresh process's
        // start), kept in their order.
        let members = WEIGHTS
            .par_iter()
            .filter(|bytes| !bytes.is_empty())
            .map(|bytes| Self::from_bytes(bytes))
            .collect::<Result<Vec<_>, _>>()?;
        Self::averaging(members).ok_or(VisionError::NoModel)
    }

    /// A classifier from safetensors bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Classifier, VisionError> {
        let net = inference::FastSquareNet::from_safetensors(bytes).map_err(VisionError::Model)?;
        Ok(Classifier {
            nets: vec![net],
            mirror: true,
            shifted: true,
            zoomed: true,
            skip_blank: true,
        })
    }

    /// One classifier averaging the probabilities of several (an ensemble). `None` when
    /// `members` is empty.
    pub fn averaging(members: Vec<Classifier>) -> Option<Classifier> {
        let first = members.first()?;
        let (mirror, shifted, zoomed, skip_blank) =
            (first.mirror, first.shifted, first.zoomed, first.skip_blank);
        Some(Classifier {
            nets: members.into_iter().flat_map(|m| m.nets).collect(),
            mirror,
            shifted,
            zoomed,
            skip_blank,
        })
    }

    /// Whether to average each square's probabilities with those of its mirror image, for the
    /// squares whose best class is not already sure (on by default: on piece designs
    /// never seen in training 56% of held-out boards come out exactly right instead of 48%, for
    /// about 1.3x the work on a game position; see models/README.md).
    pub fn with_mirror_averaging(mut self, on: bool) -> Classifier {
        self.mirror = on;
        self
    }

    /// Whether [`Classifier::read_board`] looks again at the unsure squares cut a pixel higher
    /// and a pixel lower (on by default; see [`SHIFT_BELOW`]).
    pub fn with_shifted_looks(mut self, on: bool) -> Classifier {
        self.shifted = on;
        self
    }

    /// Whether [`Classifier::read_board`] also looks at the unsure squares from further away
    /// ([`ZOOM`]) and keeps that look where it reads them more surely (on by default; see
    /// [`ZOOM_BELOW`]).
    pub fn with_zoomed_look(mut self, on: bool) -> Classifier {
        self.zoomed = on;
        self
    }

    /// Whether [`Classifier::read_board`] leaves the blank squares ([`blank_cells`]) unread and
    /// gives them [`BLANK_READING`] (on by default). Off measures the network on every square.
    pub fn with_blank_skip(mut self, on: bool) -> Classifier {
        self.skip_blank = on;
        self
    }

    /// Class probabilities for the 64 squares of a rectified board (display order):
    /// [`BLANK_READING`] for the blank squares ([`blank_cells`]), the crops of the others
    /// ([`cut_cells`]) through [`Classifier::probabilities`], then, for each square whose best
    /// class has less than [`SHIFT_BELOW`], the average with two more looks at it cut one pixel
    /// higher and one lower; then, for the squares whose best class has less than
    /// [`ZOOM_BELOW`], a look from further away ([`ZOOM`]), averaged in where, over those
    /// squares together, it reads them more surely ([`reads_more_surely`]). With several
    /// members, also the squares on whose plain crop they are at odds ([`CONTESTED_BELOW`]).
    /// Last, a square that shows nothing but a coloured arrow's tint ([`Rectified::tinted`])
    /// and is read with less than [`TINT_OVERRULES_BELOW`] becomes blank.
    pub fn read_board(&self, board: &Rectified) -> Result<BoardReading, VisionError> {
        let mut blank = blank_cells(board);
        let drawn: Vec<usize> = (0..64)
            .filter(|&cell| !(self.skip_blank && blank[cell]))
            .collect();
        let mut rows = vec![BLANK_READING; 64];
        let mut contested = vec![false; 64];
        let mut units = vec![Vec::new(); 64];
        if !drawn.is_empty() {
            let looked = self.looks(&cut_cells(board, &drawn, 0), true)?;
            let each = looked
                .rows
                .into_iter()
                .zip(looked.contested)
                .zip(looked.units);
            for (&cell, ((row, odds), seen)) in drawn.iter().zip(each) {
                rows[cell] = row;
                contested[cell] = odds;
                units[cell] = seen;
            }
        }
        let unsure = if self.shifted {
            cells_under(&rows, SHIFT_BELOW)
        } else {
            Vec::new()
        };
        if !unsure.is_empty() {
            let mut crops = cut_cells(board, &unsure, -1);
            crops.extend(cut_cells(board, &unsure, 1));
            let looks = self.probabilities(&crops)?;
            let (higher, lower) = looks.split_at(unsure.len());
            for ((&cell, up), down) in unsure.iter().zip(higher).zip(lower) {
                for ((p, u), d) in rows[cell].iter_mut().zip(up).zip(down) {
                    *p = (*p + u + d) / 3.0;
                }
            }
        }
        let still_unsure = if self.zoomed {
            cells_under(&rows, ZOOM_BELOW)
        } else {
            Vec::new()
        };
        if !still_unsure.is_empty() {
            let looks = self.probabilities(&cut_cells_zoomed(board, &still_unsure, ZOOM))?;
            let plain: Vec<[f32; CLASSES]> = still_unsure.iter().map(|&cell| rows[cell]).collect();
            if reads_more_surely(&looks, &plain) {
                for (&cell, look) in still_unsure.iter().zip(looks) {
                    for (p, q) in rows[cell].iter_mut().zip(look) {
                        *p = (*p + q) / 2.0;
                    }
                }
            }
        }
        blank_where_tinted(&mut rows, &mut blank, &board.tinted);
        Ok(BoardReading {
            probabilities: rows,
            contested,
            units,
            blank,
        })
    }

    /// Class probabilities for the 64 crops (display order): 64 rows of 13.
    pub fn probabilities(&self, crops: &[f32]) -> Result<Vec<[f32; CLASSES]>, VisionError> {
        self.looks(crops, false).map(|looked| looked.rows)
    }

    /// Class probabilities for crops from the first member alone, each crop looked at once (no
    /// mirrored look, no second opinion): a quick reading for comparing crops with each other,
    /// such as a board's pieces turned and not ([`crate::turn`]).
    pub fn first_member_probabilities(
        &self,
        crops: &[f32],
    ) -> Result<Vec<[f32; CLASSES]>, VisionError> {
        let net = self.nets.first().ok_or(VisionError::NoModel)?;
        Ok(net.probabilities(crops))
    }

    /// [`Classifier::probabilities`], and for each crop whether the members are at odds on it
    /// and, where `keep_units` asks for them, the leading members' hidden units (the mirrored
    /// look aside; empty otherwise).
    fn looks(&self, crops: &[f32], keep_units: bool) -> Result<Looked, VisionError> {
        let Looked {
            mut rows,
            contested,
            units,
        } = self.forward(crops, keep_units)?;
        if self.mirror {
            // A second look, mirrored, at every square not already sure of its class (most empty
            // squares are certain at once; the pieces are where designs mislead).
            let second: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i].iter().fold(0.0f32, |a, &b| a.max(b)) < SURE_ENOUGH)
                .collect();
            let mut mirrored = Vec::with_capacity(second.len() * CROP * CROP);
            for &i in &second {
                mirrored.extend_from_slice(&crops[i * CROP * CROP..(i + 1) * CROP * CROP]);
            }
            mirrored.chunks_exact_mut(CROP * CROP).for_each(mirror_crop);
            if !second.is_empty() {
                let looks = self.forward(&mirrored, false)?.rows;
                for (&i, look) in second.iter().zip(looks) {
                    for (p, q) in rows[i].iter_mut().zip(look) {
                        *p = (*p + q) / 2.0;
                    }
                }
            }
        }
        Ok(Looked {
            rows,
            contested,
            units,
        })
    }

    /// The members' probabilities averaged, and for each crop whether the first member and
    /// another are at odds: each one's best class is one the other gives less than
    /// [`CONTESTED_BELOW`]. The first [`LEADING_MEMBERS`] read every crop (their hidden units
    /// kept where `keep_units` asks for them, each crop's empty otherwise); the others only the
    /// crops whose leading average has a best class under [`SECOND_OPINION_BELOW`].
    fn forward(&self, crops: &[f32], keep_units: bool) -> Result<Looked, VisionError> {
        let count = crops.len() / (CROP * CROP);
        let mut units = vec![Vec::new(); count];
        let mut tally = Tally {
            sums: vec![[0.0; CLASSES]; count],
            members: vec![0; count],
            contested: vec![false; count],
            first: Vec::new(),
        };
        let (leading, others) = self.nets.split_at(self.nets.len().min(LEADING_MEMBERS));
        // The members read the crops side by side (one picture alone gets both cores; in a
        // batch, rayon runs them in turn on a busy thread) and are tallied in their order.
        let read: Vec<(Vec<f32>, Vec<[f32; CLASSES]>)> = leading
            .par_iter()
            .map(|net| {
                let hidden = net.hidden_units(crops);
                let rows = net.probabilities_of_units(&hidden);
                (hidden, rows)
            })
            .collect();
        for (net, (hidden, rows)) in leading.iter().zip(read) {
            if keep_units {
                for (kept, crop_units) in units
                    .iter_mut()
                    .zip(hidden.chunks_exact(net.hidden_width()))
                {
                    kept.extend_from_slice(crop_units);
                }
            }
            for (cell, row) in rows.iter().enumerate() {
                tally.add(cell, *row);
            }
            if tally.first.is_empty() {
                tally.first = rows;
            }
        }
        if others.is_empty() {
            return Ok(tally.into_looked(units));
        }
        let unsure: Vec<usize> = (0..count)
            .filter(|&cell| {
                let best = tally.sums[cell].iter().fold(0.0f32, |a, &b| a.max(b));
                best < SECOND_OPINION_BELOW * tally.members[cell] as f32
            })
            .collect();
        if !unsure.is_empty() {
            let mut gathered = Vec::with_capacity(unsure.len() * CROP * CROP);
            for &cell in &unsure {
                gathered.extend_from_slice(&crops[cell * CROP * CROP..(cell + 1) * CROP * CROP]);
            }
            let read: Vec<Vec<[f32; CLASSES]>> = others
                .par_iter()
                .map(|net| net.probabilities(&gathered))
                .collect();
            for rows in read {
                for (&cell, row) in unsure.iter().zip(rows) {
                    tally.add(cell, row);
                }
            }
        }
        Ok(tally.into_looked(units))
    }
}

/// The members' readings of a batch of crops, summed as they come.
struct Tally {
    /// Per crop, the sum of the members' probabilities.
    sums: Vec<[f32; CLASSES]>,
    /// Per crop, how many members read it.
    members: Vec<u32>,
    /// Per crop, whether another member is at odds with the first.
    contested: Vec<bool>,
    /// The first member's readings of every crop (empty until it has read them).
    first: Vec<[f32; CLASSES]>,
}

impl Tally {
    /// Adds one member's reading of crop `cell`.
    fn add(&mut self, cell: usize, row: [f32; CLASSES]) {
        if let Some(first) = self.first.get(cell) {
            let (b, f) = (best_class(&row), best_class(first));
            self.contested[cell] |=
                b != f && row[f] < CONTESTED_BELOW && first[b] < CONTESTED_BELOW;
        }
        self.sums[cell]
            .iter_mut()
            .zip(row)
            .for_each(|(s, r)| *s += r);
        self.members[cell] += 1;
    }

    /// Each crop's mean over the members that read it, and the contested marks.
    fn into_looked(mut self, units: Vec<Vec<f32>>) -> Looked {
        for (sum, &n) in self.sums.iter_mut().zip(&self.members) {
            let scale = 1.0 / n.max(1) as f32;
            sum.iter_mut().for_each(|p| *p *= scale);
        }
        Looked {
            rows: self.sums,
            contested: self.contested,
            units,
        }
    }
}

/// One look at a batch of crops: per crop the members' averaged probabilities, whether they are
/// at odds, and the leading members' hidden units one after another.
struct Looked {
    rows: Vec<[f32; CLASSES]>,
    contested: Vec<bool>,
    units: Vec<Vec<f32>>,
}

/// A square under nothing but a coloured arrow's tint ([`Rectified::tinted`]) whose best
/// class is read less surely than this is taken as blank. A shaft or head over an empty square
/// reads as a pawn or a rook, with doubt; a design's coloured pieces in a blurred photograph
/// can pass the tint's test (the dark red pieces of a crowded rank, blurred into one another),
/// and the networks read them more surely. Sixty-eighth session: without this bound, 2 such
/// pieces of 1,200 foreign boards (seed 8181) became empty, one photographed board lost; at 0.9
/// one of them still did; at 0.6 neither, and the 60 `chess.svg` boards with arrows read the
/// same.
pub const TINT_OVERRULES_BELOW: f32 = 0.6;

/// Takes as blank ([`BLANK_READING`]) each square that shows nothing but a coloured arrow's
/// tint (`tinted`) and whose reading in `rows` gives its best class less than
/// [`TINT_OVERRULES_BELOW`]; `blank` says so of it too.
fn blank_where_tinted(rows: &mut [[f32; CLASSES]], blank: &mut [bool; 64], tinted: &[bool; 64]) {
    for ((row, blank), &tinted) in rows.iter_mut().zip(blank.iter_mut()).zip(tinted) {
        if tinted && !*blank && row[best_class(row)] < TINT_OVERRULES_BELOW {
            *row = BLANK_READING;
            *blank = true;
        }
    }
}

/// What [`Classifier::read_board`] gives a blank square ([`blank_cells`]) without reading it:
/// empty at 0.99999, about the network's median on such squares (thirty-seventh session: 0.99997
/// on the 14 foreign designs, its lowest 0.76, where a neighbour's piece reached into the crop's
/// margin).
pub const BLANK_READING: [f32; CLASSES] = {
    let mut row = [0.00001 / 12.0; CLASSES];
    row[0] = 0.99999;
    row
};

/// How many of an ensemble's members read every square; the others read only the squares these
/// leave unsure ([`SECOND_OPINION_BELOW`]).
pub const LEADING_MEMBERS: usize = 2;

/// Squares whose leading members' average gives its best class less than this are read by the
/// other members too.
pub const SECOND_OPINION_BELOW: f32 = 0.99;

/// What [`Classifier::read_board`] gives for one board (display order).
pub struct BoardReading {
    /// Probabilities of the 13 classes for each of the 64 squares.
    pub probabilities: Vec<[f32; CLASSES]>,
    /// Squares on which the classifier's members (its averaged models) are at odds, each
    /// giving the other's best class less than [`CONTESTED_BELOW`]: a design unlike every
    /// trained one often shows itself so, even where the average is sure (see
    /// [`crate::compose::SquareReading::contested`]).
    pub contested: Vec<bool>,
    /// For each square, the hidden units of the leading members ([`LEADING_MEMBERS`]) on its
    /// plain crop, one member's after another: what the networks see in the square before they
    /// name its class. Copies of one drawing lie close together here wherever they stand
    /// ([`crate::alike::units_alike`]). Empty for blank squares, which are not read.
    pub units: Vec<Vec<f32>>,
    /// The blank squares ([`blank_cells`]: one flat grey, nothing drawn), whether or not they
    /// were left unread ([`Classifier::with_blank_skip`]); the later stages ask it too.
    pub blank: [bool; 64],
}

/// Two members are at odds on a square when each gives the other's best class less than this.
/// Flagging such squares as uncertain (models/README.md): of the squares the built-in pair
/// reads wrong, 81.5% -> 84.8% are flagged on 1,200 pictures of 14 foreign designs and
/// 80.4% -> 82.3% on 660 of 11 chess fonts, while the held-out pair flags clean game positions
/// of the held-out lichess sets 0.09-0.12 more a board (0.34 -> 0.46 and 0.49 -> 0.58). Any
/// disagreement (a bound of 1) flagged 89.0% / 85.8% but added 0.57-0.67 flags a board;
/// 0.05 added 0.05-0.06 for 83.8% / 81.7%.
pub const CONTESTED_BELOW: f32 = 0.1;

/// Squares whose best class is at least this likely skip the mirrored second look. This covers
/// the empty squares the network is sure of (the rule was "empty at least 0.995" before); on
/// held-out designs (two models averaged) boards exact 75.5% / 68.5% with every other square
/// looked at again, 75.5% / 68.7% with this, for a tenth less time in a batch of 800-pixel
/// pictures.
const SURE_ENOUGH: f32 = 0.99;

/// Squares whose best class is less likely than this get two more looks, cut one pixel higher
/// and one lower, averaged with the first ([`Classifier::read_board`]). A piece design never
/// seen is read more steadily when its baseline is not exactly where training put it: on
/// held-out designs boards exact 76.8% → 77.7%, 71.7% → 72.3% and 75.0% → 76.7% on the
/// calibration set, for about 3 ms more a picture where many squares are unsure and nothing
/// where none is. Shifting sideways as well read no more boards (77.8%, 72.0%, 76.7%) for twice
/// the work; sideways alone, or two pixels, read fewer.
pub const SHIFT_BELOW: f32 = 0.95;

/// The squares whose best class has less than `below`.
fn cells_under(rows: &[[f32; CLASSES]], below: f32) -> Vec<usize> {
    (0..rows.len())
        .filter(|&cell| rows[cell][best_class(&rows[cell])] < below)
        .collect()
}

/// Squares whose best class is less likely than this are looked at once more from further away
/// ([`ZOOM`], [`Classifier::read_board`]).
pub const ZOOM_BELOW: f32 = 0.999;

/// How much more of the board a zoomed look's crop spans than a plain crop (the piece shown
/// smaller, with more of its surroundings; about [`crate::rectify::ZOOM_ABOUT_Y`]).
/// Thirty-second session (models/HISTORY.md, "A look from further away"): the held-out four on
/// designs they never saw, boards exactly right, without the zoomed look / with it: chess fonts
/// 29.4 -> 32.1%, foreign designs 56.2 -> 57.0%, held-out lichess designs 79.8 -> 80.8% and
/// 77.3 -> 77.7%. Averaged in always instead of where it reads more surely (zooming about the
/// centre): 33.3%, 57.3%, 77.7%, 75.7% (the lichess designs lose); zooms of 1.1 and 1.2 read
/// the fonts less well, 0.9 worse than none.
pub const ZOOM: f32 = 1.15;

/// Whether `zoomed` reads its squares more surely than `plain`: the sum over the squares of the
/// log of each reading's best probability is higher.
pub fn reads_more_surely(zoomed: &[[f32; CLASSES]], plain: &[[f32; CLASSES]]) -> bool {
    let sureness = |rows: &[[f32; CLASSES]]| -> f32 {
        rows.iter()
            .map(|row| row[best_class(row)].max(1e-6).ln())
            .sum()
    };
    sureness(zoomed) > sureness(plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rectify::cut_squares;

    #[test]
    fn classes_and_pieces_round_trip() {
        for class in 0..CLASSES {
            assert_eq!(piece_class(class_piece(class)), class);
        }
        assert_eq!(class_char(1), 'P');
        assert_eq!(class_char(12), 'k');
        assert_eq!(class_char(0), '.');
    }

    #[test]
    fn multiply_adds_of_the_default_shape() {
        assert_eq!(NetShape::default().multiply_adds(), 693_056);
    }

    /// Asserts that every probability in `mean` is the mean of those in `a` and `b`; returns the
    /// largest difference between `a` and `b`.
    fn assert_mean_of(mean: &[[f32; CLASSES]], a: &[[f32; CLASSES]], b: &[[f32; CLASSES]]) -> f32 {
        assert_eq!((mean.len(), a.len()), (b.len(), b.len()));
        let mut apart = 0.0f32;
        for ((ra, rb), rm) in a.iter().zip(b).zip(mean) {
            for ((x, y), m) in ra.iter().zip(rb).zip(rm) {
                assert!((m - (x + y) / 2.0).abs() < 1e-6);
                apart = apart.max((x - y).abs());
            }
        }
        apart
    }

    /// A classifier with new random weights (see [`super::random_weights`]), through the same
    /// loading path as a trained one.
    fn random_classifier(shape: NetShape, seed: u64) -> Classifier {
        let bytes = super::random_weights::saved(&super::random_weights::random(shape, seed));
        Classifier::from_bytes(&bytes)
            .unwrap()
            .with_mirror_averaging(false)
    }

    #[test]
    fn only_doubtful_readings_under_a_tint_become_blank() {
        let mut sure_pawn = [0.0; CLASSES];
        sure_pawn[1] = 0.95;
        sure_pawn[0] = 0.05;
        let mut doubtful_pawn = [0.05; CLASSES];
        doubtful_pawn[1] = 0.4;
        doubtful_pawn[4] = 0.2;
        // Cells 0-1 tinted: a sure pawn and a doubtful one; cell 2 a doubtful pawn untinted.
        let mut rows = vec![sure_pawn, doubtful_pawn, doubtful_pawn];
        rows.resize(64, BLANK_READING);
        let mut blank = [false; 64];
        blank[3..].iter_mut().for_each(|b| *b = true);
        let mut tinted = [false; 64];
        tinted[..2].iter_mut().for_each(|t| *t = true);
        blank_where_tinted(&mut rows, &mut blank, &tinted);
        assert_eq!(rows[0], sure_pawn);
        assert_eq!(rows[1], BLANK_READING);
        assert_eq!(rows[2], doubtful_pawn);
        assert_eq!(&blank[..3], &[false, true, false]);
        assert!(blank[3..].iter().all(|&b| b));
    }

    #[test]
    fn an_ensemble_averages_its_members() {
        let a = random_classifier(NetShape::default(), 1);
        let b = random_classifier(
            NetShape {
                channels: [8, 16, 24],
                hidden: 32,
            },
            2,
        );
        let crops: Vec<f32> = (0..2 * CROP * CROP)
            .map(|i| ((i * 37) % 101) as f32 / 101.0)
            .collect();
        let (pa, pb) = (
            a.probabilities(&crops).unwrap(),
            b.probabilities(&crops).unwrap(),
        );
        let both = Classifier::averaging(vec![a, b]).unwrap();
        let pm = both.probabilities(&crops).unwrap();
        let apart = assert_mean_of(&pm, &pa, &pb);
        assert!(apart > 1e-4, "the two members should differ");
        assert!(Classifier::averaging(Vec::new()).is_none());
    }

    #[test]
    fn squares_are_contested_where_the_members_are_at_odds() {
        let gray = (0..crate::rectify::BOARD * crate::rectify::BOARD)
            .map(|i| ((i * 7919) % 1009) as f32 / 1009.0)
            .collect();
        let board = Rectified::from_grey(gray);
        let crops = cut_squares(&board);
        let a = random_classifier(NetShape::default(), 1).with_shifted_looks(false);
        let b = random_classifier(NetShape::default(), 2).with_shifted_looks(false);
        let (pa, pb) = (
            a.probabilities(&crops).unwrap(),
            b.probabilities(&crops).unwrap(),
        );
        assert!(a.read_board(&board).unwrap().contested.iter().all(|c| !c));
        let (units_a, units_b) = (
            a.read_board(&board).unwrap().units,
            b.read_board(&board).unwrap().units,
        );
        let both = Classifier::averaging(vec![a, b]).unwrap();
        let reading = both.read_board(&board).unwrap();
        assert_eq!(reading.contested.len(), 64);
        // Both members lead: the first one's hidden units, then the second one's.
        for cell in 0..64 {
            assert_eq!(
                reading.units[cell],
                [&units_a[cell][..], &units_b[cell][..]].concat()
            );
        }
        let (mut at_odds, mut differ_only) = (0, 0);
        for cell in 0..64 {
            let (ba, bb) = (best_class(&pa[cell]), best_class(&pb[cell]));
            let odds = ba != bb && pa[cell][bb] < CONTESTED_BELOW && pb[cell][ba] < CONTESTED_BELOW;
            assert_eq!(reading.contested[cell], odds, "square {cell}");
            at_odds += usize::from(odds);
            differ_only += usize::from(ba != bb && !odds);
        }
        assert!(
            at_odds > 0,
            "two untrained networks should be at odds somewhere"
        );
        assert!(
            differ_only > 0,
            "and merely differ elsewhere (the bound matters)"
        );
    }

    #[cfg(all(
        fenlens_has_model,
        fenlens_has_second_model,
        fenlens_has_third_model,
        fenlens_has_fourth_model
    ))]
    #[test]
    fn the_built_in_classifier_averages_all_four_models() {
        let built_in = Classifier::embedded().unwrap().with_mirror_averaging(false);
        assert_eq!(built_in.nets.len(), 4);
        let pair = |a: &[u8], b: &[u8]| {
            let members = vec![
                Classifier::from_bytes(a).unwrap(),
                Classifier::from_bytes(b).unwrap(),
            ];
            Classifier::averaging(members)
                .unwrap()
                .with_mirror_averaging(false)
        };
        // A drawn board's 64 squares (the leading pair reads most of them surely) and three
        // patterned crops (which it does not).
        use fenlens_render::{BoardStyle, PieceSet, draw_board};
        let board = fenlens_fen::read(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
            .setup
            .expect("placement")
            .board;
        let drawn = draw_board(&board, &BoardStyle::default(), &PieceSet::builtin(), 40);
        let rgba = fenlens_render::draw::pixmap_to_rgba(&drawn.pixmap);
        let image = image::DynamicImage::ImageRgba8(rgba).to_rgb8();
        let mut crops = cut_squares(&crate::rectify::rectify(&image, drawn.corners()).unwrap());
        crops.extend((0..3 * CROP * CROP).map(|i| ((i * 53) % 97) as f32 / 97.0 - 0.5));
        let (leading, others) = (
            pair(FIRST_WEIGHTS, SECOND_WEIGHTS)
                .probabilities(&crops)
                .unwrap(),
            pair(THIRD_WEIGHTS, FOURTH_WEIGHTS)
                .probabilities(&crops)
                .unwrap(),
        );
        let all = built_in.probabilities(&crops).unwrap();
        let mut read_by_four = 0;
        for ((all, leading), others) in all.iter().zip(&leading).zip(&others) {
            let sure = leading[best_class(leading)] >= SECOND_OPINION_BELOW;
            // The mean of four is the mean of the two pairs' means.
            let expected: Vec<f32> = if sure {
                leading.to_vec()
            } else {
                read_by_four += 1;
                leading
                    .iter()
                    .zip(others)
                    .map(|(a, b)| (a + b) / 2.0)
                    .collect()
            };
            for (got, want) in all.iter().zip(expected) {
                assert!((got - want).abs() < 1e-6, "{got} against {want}");
            }
        }
        assert!(
            read_by_four > 0 && read_by_four < 4,
            "{read_by_four} of 4 read by all"
        );
        assert_ne!(leading, others, "four trainings should differ");
    }

    #[test]
    fn blank_squares_are_given_the_blank_reading_and_the_rest_are_read_as_before() {
        use crate::rectify::{BOARD, MARGIN, SQUARE};
        // A checkerboard of two flat greys, with noise drawn on every third square.
        let noisy = |cell: usize| cell % 3 == 0;
        let gray = (0..BOARD * BOARD)
            .map(|i| {
                let (x, y) = (i % BOARD, i / BOARD);
                let (col, row) = (
                    x.saturating_sub(MARGIN) / SQUARE,
                    y.saturating_sub(MARGIN) / SQUARE,
                );
                let cell = row.min(7) * 8 + col.min(7);
                let base = if (col + row) % 2 == 0 { 0.8 } else { 0.4 };
                if noisy(cell) {
                    base + ((i * 7919) % 101) as f32 / 500.0
                } else {
                    base
                }
            })
            .collect();
        let board = Rectified::from_grey(gray);
        let every = random_classifier(NetShape::default(), 4)
            .with_shifted_looks(false)
            .with_zoomed_look(false)
            .with_blank_skip(false);
        let read_all = every.read_board(&board).unwrap();
        let all_read = read_all.probabilities;
        let skipping = every.with_blank_skip(true);
        let read = skipping.read_board(&board).unwrap();
        let hidden = NetShape::default().hidden;
        // The blank squares are reported whether they were skipped or read.
        let flat: [bool; 64] = std::array::from_fn(|cell| !noisy(cell));
        assert_eq!(read.blank, flat);
        assert_eq!(read_all.blank, flat);
        for (cell, (row, contested)) in read.probabilities.iter().zip(&read.contested).enumerate() {
            if noisy(cell) {
                assert_eq!(*row, all_read[cell], "square {cell}");
                // One member: its hidden units.
                assert_eq!(read.units[cell].len(), hidden);
            } else {
                assert_eq!(*row, BLANK_READING, "square {cell}");
                assert!(!contested);
                assert!(read.units[cell].is_empty(), "a blank square is not read");
            }
        }
        assert!((BLANK_READING.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn unsure_squares_are_averaged_with_looks_a_pixel_higher_and_lower() {
        let classifier = random_classifier(NetShape::default(), 3);
        let gray = (0..crate::rectify::BOARD * crate::rectify::BOARD)
            .map(|i| ((i * 7919) % 1009) as f32 / 1009.0)
            .collect();
        let board = Rectified::from_grey(gray);
        let first = classifier.probabilities(&cut_squares(&board)).unwrap();
        let steady = classifier.with_shifted_looks(false).with_zoomed_look(false);
        assert_eq!(steady.read_board(&board).unwrap().probabilities, first);
        let classifier = steady.with_shifted_looks(true);
        let read = classifier.read_board(&board).unwrap().probabilities;
        let mut averaged = 0;
        for cell in 0..64 {
            if first[cell][best_class(&first[cell])] >= SHIFT_BELOW {
                assert_eq!(read[cell], first[cell]);
                continue;
            }
            averaged += 1;
            let up = classifier
                .probabilities(&cut_cells(&board, &[cell], -1))
                .unwrap();
            let down = classifier
                .probabilities(&cut_cells(&board, &[cell], 1))
                .unwrap();
            for class in 0..CLASSES {
                let mean = (first[cell][class] + up[0][class] + down[0][class]) / 3.0;
                assert!((read[cell][class] - mean).abs() < 1e-5);
            }
        }
        assert!(
            averaged > 0,
            "an untrained network is unsure of some squares"
        );
    }

    #[test]
    fn a_look_from_further_away_is_kept_only_where_it_reads_more_surely() {
        // Stripes whose width changes across the board: the zoomed crops show them finer.
        let gray = (0..crate::rectify::BOARD * crate::rectify::BOARD)
            .map(|i| {
                let (x, y) = (
                    (i % crate::rectify::BOARD) as f32,
                    (i / crate::rectify::BOARD) as f32,
                );
                0.5 + 0.5 * (x * x / 400.0 + y / 3.0).sin()
            })
            .collect();
        let board = Rectified::from_grey(gray);
        let mut kept_on = 0;
        for seed in 5..21 {
            let classifier = random_classifier(NetShape::default(), seed)
                .with_shifted_looks(false)
                .with_zoomed_look(false);
            let first = classifier.read_board(&board).unwrap().probabilities;
            let classifier = classifier.with_zoomed_look(true);
            let read = classifier.read_board(&board).unwrap().probabilities;
            let unsure: Vec<usize> = (0..64)
                .filter(|&cell| first[cell][best_class(&first[cell])] < ZOOM_BELOW)
                .collect();
            assert!(
                !unsure.is_empty(),
                "an untrained network is unsure of some squares"
            );
            let looks = classifier
                .probabilities(&cut_cells_zoomed(&board, &unsure, ZOOM))
                .unwrap();
            let plain: Vec<[f32; CLASSES]> = unsure.iter().map(|&cell| first[cell]).collect();
            let kept = reads_more_surely(&looks, &plain);
            kept_on += usize::from(kept);
            for cell in 0..64 {
                match unsure.iter().position(|&c| c == cell) {
                    Some(i) if kept => {
                        for class in 0..CLASSES {
                            let mean = (first[cell][class] + looks[i][class]) / 2.0;
                            assert!((read[cell][class] - mean).abs() < 1e-5);
                        }
                    }
                    _ => assert_eq!(read[cell], first[cell]),
                }
            }
        }
        assert!(
            (1..16).contains(&kept_on),
            "the zoomed look kept on {kept_on} of 16 untrained networks: both cases are checked"
        );
    }

    #[test]
    fn surer_readings_are_told_from_less_sure_ones() {
        let sure = [two_way(1, 0.99, 3), two_way(0, 0.95, 2)];
        let unsure = [two_way(1, 0.6, 3), two_way(0, 0.9, 2)];
        assert!(reads_more_surely(&sure, &unsure));
        assert!(!reads_more_surely(&unsure, &sure));
        // One square read far more surely outweighs another read a little less surely.
        let mixed = [two_way(1, 0.999, 3), two_way(0, 0.85, 2)];
        assert!(reads_more_surely(&mixed, &unsure));
        assert!(
            !reads_more_surely(&sure, &sure),
            "a tie keeps the plain look"
        );
    }
}
