//! The whole path from a picture to a FEN, stage by stage.

use std::time::{Duration, Instant};

use fenlens_fen::shakmaty::{Board, Color, Piece, Role, Square};
use fenlens_fen::{CheckOptions, Report, check};
use image::RgbImage;
use serde::Serialize;

use crate::VisionError;
use crate::alike::{OVER_COUNT_KEEP, cap_groups, groups_read, pool, split_overfull_pawn_groups};
use crate::classify::{BoardReading, Classifier};
use crate::colour::{greys_in_even_light, kings_by_grey, reconcile};
use crate::compose::{
    SquareReading, UNCERTAIN_BELOW, as_displayed, compose_grouped, design_doubted, display_index,
    flag_borrowed, flag_doubted_design, flag_implausible, flag_impossible_checks,
    implausible_worth_flagging, keep_doubts, placement, settle_facts_again, weigh_by_facts,
};
use crate::cover::covered_squares;
use crate::decode::decode;
use crate::distinct::{Drawings, separate_drawings};
use crate::kings::kings_by_twins;
use crate::locate::{Located, locate, locate_all};
use crate::orient::{
    Orientation, join_labels, orient, orient_from_labels, orient_from_ranks, with_labels,
};
use crate::prior;
use crate::rectify::{cut_off_squares, rectify_on_lines};
use crate::relabel::relabel_drawings;
use crate::silhouette::silhouettes;
use crate::symmetry::{asymmetries, weigh_knights};
use crate::turn::{quarter_turns, turn_corners, turn_picture, turn_point, turn_point_back};

/// A square the classifier's members are at odds about
/// ([`crate::classify::BoardReading::contested`]) is not reported uncertain when the reading
/// the checks and the composer arrive at gives its class at least this probability (most often
/// a copy of a drawing whose group reads surely). Measured against reporting every contested
/// square (twenty-second session): flags a board on 14 foreign designs 6.39 -> 6.19 (game
/// positions 5.06 -> 4.78), on 11 chess fonts 9.79 -> 9.75, with the same share of misread
/// squares flagged on those and on two seeds of the held-out lichess sets; 0.95 flagged fewer
/// misread squares (86.3 -> 86.1% on the foreign designs).
pub const CONTESTED_SURE_FROM: f32 = 0.99;

/// Which side is at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Flipped {
    /// Decide from the coordinates drawn (file letters, rank digits) and the position.
    #[default]
    Auto,
    /// Black at the bottom.
    Yes,
    /// White at the bottom.
    No,
}

/// Castling rights to write.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Castling {
    /// Every right whose king and rook stand on their home squares.
    #[default]
    Auto,
    /// No rights.
    None,
    /// Exactly these letters (`KQkq` or a subset).
    Given(String),
}

/// What the user tells the recognizer (the fields a picture cannot show).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Side to move (default White).
    pub black_to_move: bool,
    /// Castling rights.
    pub castling: Castling,
    /// En passant square.
    pub en_passant: Option<Square>,
    /// Orientation.
    pub flipped: Flipped,
}

/// The most boards [`Recognizer::recognize_all`] reads in one picture: a book page holds up to
/// about a dozen diagrams.
pub const MOST_BOARDS: usize = 16;

/// Time spent in each stage.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Timings {
    /// Decoding.
    pub decode: Duration,
    /// Locating.
    pub locate: Duration,
    /// Rectifying.
    pub rectify: Duration,
    /// Cutting and classifying.
    pub classify: Duration,
}

/// Everything read from one picture.
#[derive(Clone, Debug)]
pub struct Recognition {
    /// The board's corners in the picture (top-left, top-right, bottom-right, bottom-left).
    pub corners: [[f32; 2]; 4],
    /// Per-square readings in standard orientation (a1 first).
    pub squares: Vec<SquareReading>,
    /// The placement.
    pub placement: Board,
    /// Black at the bottom.
    pub flipped: bool,
    /// Confidence in `flipped` (1 when the user said).
    pub orientation_confidence: f32,
    /// The full FEN.
    pub fen: String,
    /// The checker's verdict on it.
    pub report: Report,
    /// The located grid's edge looks off the board (see [`crate::locate::Located`]): every
    /// square is reported uncertain.
    pub grid_in_doubt: bool,
    /// Time per stage.
    pub timings: Timings,
}

impl Recognition {
    /// Squares the user should look at, in FEN order (a8 ... h1): all of them when the grid is
    /// in doubt.
    pub fn uncertain(&self) -> Vec<Square> {
        self.uncertain_below(UNCERTAIN_BELOW)
    }

    /// [`Recognition::uncertain`] with another probability threshold (to choose one).
    pub fn uncertain_below(&self, threshold: f32) -> Vec<Square> {
        let mut squares: Vec<Square> = self
            .squares
            .iter()
            .filter(|r| self.grid_in_doubt || r.uncertain_below(threshold))
            .map(|r| r.square)
            .collect();
        squares.sort_by_key(|sq| (7 - sq.rank() as u32, sq.file() as u32));
        squares
    }
}

/// Castling rights whose king and rook stand on their home squares.
fn auto_castling(board: &Board) -> String {
    let mut out = String::new();
    let has = |sq: Square, piece: Piece| board.piece_at(sq) == Some(piece);
    for (color, king_sq, rook_h, rook_a, letters) in [
        (Color::White, Square::E1, Square::H1, Square::A1, ['K', 'Q']),
        (Color::Black, Square::E8, Square::H8, Square::A8, ['k', 'q']),
    ] {
        let rook = Piece {
            color,
            role: Role::Rook,
        };
        if has(king_sq, color.king()) {
            if has(rook_h, rook) {
                out.push(letters[0]);
            }
            if has(rook_a, rook) {
                out.push(letters[1]);
            }
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

/// The recognizer: a loaded classifier, reused for many pictures.
pub struct Recognizer {
    classifier: Classifier,
    weigh_knights: bool,
    pool_alike: bool,
    position_prior: bool,
    weigh_facts: bool,
    read_rank_digits: bool,
    flag_contested: bool,
    cap_groups: bool,
    flag_checks: bool,
    flag_doubted_designs: bool,
    weigh_doubted_by_games: bool,
    doubted_prior_game_like_from: f32,
    flag_scattered: bool,
    relabel: bool,
    separate: bool,
    king_twins: bool,
    settle_facts: bool,
    link_by_units: bool,
    flag_borrowed: bool,
    turn_boards: bool,
}

impl Recognizer {
    /// With the classifier built into the binary.
    pub fn new() -> Result<Recognizer, VisionError> {
        Ok(Recognizer::with_classifier(Classifier::embedded()?))
    }

    /// With a given classifier.
    pub fn with_classifier(classifier: Classifier) -> Recognizer {
        Recognizer {
            classifier,
            weigh_knights: true,
            pool_alike: true,
            position_prior: true,
            weigh_facts: true,
            read_rank_digits: true,
            flag_contested: false,
            cap_groups: true,
            flag_checks: true,
            flag_doubted_designs: true,
            weigh_doubted_by_games: true,
            doubted_prior_game_like_from: prior::GAME_LIKE_FROM,
            flag_scattered: false,
            relabel: true,
            separate: true,
            king_twins: true,
            settle_facts: true,
            link_by_units: true,
            flag_borrowed: true,
            turn_boards: true,
        }
    }

    /// Whether to weigh knights against rooks, queens and pawns by the outline's symmetry (on by
    /// default; see [`crate::symmetry`]). Off measures the pipeline without it.
    pub fn with_symmetry_check(mut self, on: bool) -> Recognizer {
        self.weigh_knights = on;
        self
    }

    /// Whether a board whose pieces lie on their sides or stand on their heads is read again
    /// turned upright (on by default; see [`crate::turn`]). Off measures the pipeline without
    /// it.
    pub fn with_turn_check(mut self, on: bool) -> Recognizer {
        self.turn_boards = on;
        self
    }

    /// Whether squares that look alike share one pooled reading (on by default; see
    /// [`crate::alike`]). Off measures the pipeline without it.
    pub fn with_alike_pooling(mut self, on: bool) -> Recognizer {
        self.pool_alike = on;
        self
    }

    /// Whether to weigh each square's readings by what the square holds in games (on by
    /// default; see [`crate::prior`]). Off measures the pipeline without it.
    pub fn with_position_prior(mut self, on: bool) -> Recognizer {
        self.position_prior = on;
        self
    }

    /// Whether the confidences are weighed by what the rest of the board allows (on by default;
    /// see [`crate::compose::weigh_by_facts`]). Off measures the pipeline without it.
    pub fn with_fact_weighing(mut self, on: bool) -> Recognizer {
        self.weigh_facts = on;
        self
    }

    /// Whether the orientation also reads the rank digits drawn inside an edge column or in a
    /// margin beside the board (on by default; see [`crate::orient::orient_from_ranks`]). Off
    /// measures the pipeline without them.
    pub fn with_rank_digits(mut self, on: bool) -> Recognizer {
        self.read_rank_digits = on;
        self
    }

    /// Whether squares on which the classifier's members disagree are reported uncertain (off
    /// by default since the twenty-sixth session; see
    /// [`crate::classify::BoardReading::contested`]). The doubted-design flags
    /// ([`crate::compose::flag_doubted_design`]) catch nearly all the misread squares these
    /// caught on designs never seen (held-out models: foreign designs 96.1 -> 94.9%, fonts
    /// 92.9 -> 91.8% flagged without them), while on clean game positions of the held-out
    /// lichess designs they were most of the flags (0.56 / 0.92 / 0.74 -> 0.33 / 0.67 / 0.40
    /// a board, seeds 2026 / 777 / 5353). On measures the flags with them.
    pub fn with_contested_flags(mut self, on: bool) -> Recognizer {
        self.flag_contested = on;
        self
    }

    /// Whether a group of alike squares is kept from a class that allows fewer copies on
    /// squares of one colour (on by default, with the pooling of alike squares; see
    /// [`crate::alike::cap_groups`]). Off measures the pipeline without it.
    pub fn with_group_caps(mut self, on: bool) -> Recognizer {
        self.cap_groups = on;
        self
    }

    /// Whether the kings and checkers of a check no game can reach are listed as uncertain
    /// (on by default; see [`crate::compose::flag_impossible_checks`]). Off measures the
    /// pipeline without it.
    pub fn with_check_flags(mut self, on: bool) -> Recognizer {
        self.flag_checks = on;
        self
    }

    /// Whether the pieces read short of sure are listed as uncertain on a board where several
    /// pieces are uncertain already (on by default; see
    /// [`crate::compose::flag_doubted_design`]). Off measures the flags without it.
    pub fn with_doubted_design_flags(mut self, on: bool) -> Recognizer {
        self.flag_doubted_designs = on;
        self
    }

    /// Whether the pieces that break the counts (a second king, a third rook) are listed as
    /// uncertain on every board, also on pieces set out as no game leaves them and read surely
    /// (off by default; [`crate::compose::implausible_worth_flagging`] says which boards those
    /// are). On measures the flags as they were before the thirty-eighth session.
    pub fn with_scattered_flags(mut self, on: bool) -> Recognizer {
        self.flag_scattered = on;
        self
    }

    /// Whether a board whose design the classifier doubts, and whose first reading looks like a
    /// game, is composed again with the position prior weighing more (on by default; see
    /// [`crate::prior::DOUBTED_WEIGHT`] and [`crate::prior::GAME_LIKE_FROM`]). Off measures the
    /// pipeline without it.
    pub fn with_doubted_prior(mut self, on: bool) -> Recognizer {
        self.weigh_doubted_by_games = on;
        self
    }

    /// How game-like ([`crate::prior::game_likeness`]) a doubted board's first composition must
    /// be for the heavier prior to weigh on it (default [`crate::prior::GAME_LIKE_FROM`];
    /// `f32::NEG_INFINITY` weighs on every doubted board).
    pub fn with_doubted_prior_from(mut self, game_likeness: f32) -> Recognizer {
        self.doubted_prior_game_like_from = game_likeness;
        self
    }

    /// Whether the copies of a drawing misread on every copy are read again from where they
    /// stand, on boards whose design the classifier doubts or whose reading breaks the facts (on
    /// by default; see [`crate::relabel`]). Off measures the pipeline without it.
    pub fn with_relabel(mut self, on: bool) -> Recognizer {
        self.relabel = on;
        self
    }

    /// Whether two units that plainly differ but read as one class are given different classes
    /// (on by default; see [`crate::distinct`]). Off measures the pipeline without it.
    pub fn with_separation(mut self, on: bool) -> Recognizer {
        self.separate = on;
        self
    }

    /// Whether a side's king is given to the piece drawn like the other side's king (on by
    /// default; see [`crate::kings`]). Off measures the pipeline without it.
    pub fn with_king_twins(mut self, on: bool) -> Recognizer {
        self.king_twins = on;
        self
    }

    /// Whether game-like readings have their facts settled again after the drawings are read
    /// again (a pawn on a back rank, nine pawns, pieces no promotion explains, a side with no
    /// king or two; on by default; see [`crate::compose::settle_facts_again`]). Off measures
    /// the pipeline without it.
    pub fn with_facts_settled_again(mut self, on: bool) -> Recognizer {
        self.settle_facts = on;
        self
    }

    /// Whether squares whose hidden units the networks see alike are taken for copies of one
    /// drawing as well as those whose pixels repeat (on by default; see
    /// [`crate::alike::UNITS_ALIKE_FROM`]). Off measures the pipeline without it.
    pub fn with_unit_links(mut self, on: bool) -> Recognizer {
        self.link_by_units = on;
        self
    }

    /// Whether a square read as a piece its own crop gave under half is reported uncertain (on
    /// by default; see [`crate::compose::flag_borrowed`]). Off measures the pipeline without it.
    pub fn with_borrowed_flags(mut self, on: bool) -> Recognizer {
        self.flag_borrowed = on;
        self
    }

    /// Reads a picture file's bytes.
    pub fn recognize_bytes(
        &self,
        bytes: &[u8],
        options: &Options,
    ) -> Result<Recognition, VisionError> {
        let started = Instant::now();
        let image = decode(bytes)?;
        let decode_time = started.elapsed();
        let mut recognition = self.recognize_image(&image, options)?;
        recognition.timings.decode = decode_time;
        Ok(recognition)
    }

    /// Reads decoded pixels.
    pub fn recognize_image(
        &self,
        image: &RgbImage,
        options: &Options,
    ) -> Result<Recognition, VisionError> {
        let t0 = Instant::now();
        let located = locate(image)?;
        let t1 = Instant::now();
        self.recognize_located(
            image,
            &located,
            options,
            Timings {
                locate: t1 - t0,
                ..Timings::default()
            },
        )
    }

    /// Reads every board of the picture ([`crate::locate::locate_all`]: a page with several
    /// diagrams), in reading order, at most [`MOST_BOARDS`]. An error where no board is found.
    pub fn recognize_all(
        &self,
        image: &RgbImage,
        options: &Options,
    ) -> Result<Vec<Recognition>, VisionError> {
        locate_all(image, MOST_BOARDS)?
            .iter()
            .map(|located| self.recognize_located(image, located, options, Timings::default()))
            .collect()
    }

    /// Reads a board the locator found: [`Recognizer::recognize_at`] its corners, with the
    /// locator's doubt about its grid.
    fn recognize_located(
        &self,
        image: &RgbImage,
        located: &Located,
        options: &Options,
        timings: Timings,
    ) -> Result<Recognition, VisionError> {
        let mut recognition = self.recognize_at(image, located.corners, options, timings)?;
        recognition.grid_in_doubt = located.edge_in_doubt;
        Ok(recognition)
    }

    /// What the coordinate labels say of the orientation: the file letters' and the rank
    /// digits' decisions joined, either alone where only one is read, `None` where neither is.
    fn read_labels(&self, image: &RgbImage, corners: [[f32; 2]; 4]) -> Option<Orientation> {
        let by_ranks = self
            .read_rank_digits
            .then(|| orient_from_ranks(image, corners))
            .flatten();
        match (orient_from_labels(image, corners), by_ranks) {
            (Some(letters), Some(ranks)) => Some(join_labels(letters, ranks)),
            (letters, ranks) => letters.or(ranks),
        }
    }

    /// Reads the board at known corners (skipping the locator). Where its pieces lie on their
    /// sides or stand on their heads ([`crate::turn`]), the board is read in the picture turned
    /// so that it stands upright, its corners named in its own order (the reported corners are
    /// the picture's as given, top-left the board's top-left as displayed).
    pub fn recognize_at(
        &self,
        image: &RgbImage,
        corners: [[f32; 2]; 4],
        options: &Options,
        timings: Timings,
    ) -> Result<Recognition, VisionError> {
        self.read_at(image, corners, options, timings, self.turn_boards)
    }

    /// [`Recognizer::recognize_at`], looking for a turned board only where `may_turn`.
    fn read_at(
        &self,
        image: &RgbImage,
        corners: [[f32; 2]; 4],
        options: &Options,
        mut timings: Timings,
        may_turn: bool,
    ) -> Result<Recognition, VisionError> {
        let t1 = Instant::now();
        // Where lines are drawn between the squares, the grid is laid on them: the corners
        // may move a little.
        let (rectified, corners) = rectify_on_lines(image, corners).ok_or(VisionError::NoBoard)?;
        let t2 = Instant::now();
        // The networks' reading and what the pixels say without them (the pieces' outlines and
        // greys, the coordinate labels) run side by side: one picture alone gets both cores.
        let (reading, (outlines, greys, labels)) = rayon::join(
            || self.classifier.read_board(&rectified),
            || {
                let outlines = silhouettes(&rectified);
                let greys = greys_in_even_light(&rectified, &outlines);
                let labels = matches!(options.flipped, Flipped::Auto)
                    .then(|| self.read_labels(image, corners))
                    .flatten();
                (outlines, greys, labels)
            },
        );
        let reading = reading?;
        if may_turn {
            let turns = quarter_turns(&self.classifier, &rectified, &reading)?;
            if turns != 0 {
                let (width, height) = image.dimensions();
                let upright = turn_picture(image, turns);
                let turned = corners.map(|point| turn_point(point, width, height, turns));
                let corners = turn_corners(turned, turns);
                // The look at the board as it stood counts as classifying.
                let first_look = t1.elapsed();
                let mut recognition = self.read_at(&upright, corners, options, timings, false)?;
                recognition.corners = recognition
                    .corners
                    .map(|point| turn_point_back(point, width, height, turns));
                recognition.timings.classify += first_look;
                return Ok(recognition);
            }
        }
        let BoardReading {
            mut probabilities,
            contested,
            units,
            blank,
        } = reading;
        reconcile(&mut probabilities, &greys);
        kings_by_grey(&mut probabilities, &greys);
        if self.weigh_knights {
            weigh_knights(&mut probabilities, &asymmetries(&outlines));
        }
        // The classifier's own readings, before the copies of a drawing share theirs.
        let read_alone = probabilities.clone();
        let mut capped = Vec::new();
        let mut alike_groups = Vec::new();
        if self.pool_alike {
            let seen = self.link_by_units.then_some(units.as_slice());
            let groups = groups_read(&rectified, &outlines, Some(&probabilities), seen);
            let groups = split_overfull_pawn_groups(&probabilities, groups);
            pool(&mut probabilities, &groups);
            if self.cap_groups {
                capped = cap_groups(&mut probabilities, &groups, OVER_COUNT_KEEP);
            }
            alike_groups = groups;
        }
        let t3 = Instant::now();
        timings.rectify = t2 - t1;
        timings.classify = t3 - t2;

        let (flipped, orientation_confidence) = match options.flipped {
            Flipped::Yes => (true, 1.0),
            Flipped::No => (false, 1.0),
            Flipped::Auto => {
                let displayed = as_displayed(&probabilities, &alike_groups);
                let by_position = orient(&probabilities);
                let o = match labels {
                    Some(by_labels) => with_labels(by_labels, &displayed, by_position),
                    None => by_position,
                };
                (o.flipped, o.confidence)
            }
        };
        let unweighed = probabilities.clone();
        let square_pixels = crate::rectify::square_pixels(corners);
        let cut_off = cut_off_squares(corners, image.width(), image.height());
        let covered = covered_squares(&rectified);
        let compose_weighing = |weight: f32| {
            let mut probabilities = unweighed.clone();
            if self.position_prior {
                for square in Square::ALL {
                    prior::weigh_by(
                        &mut probabilities[display_index(square, flipped)],
                        square,
                        weight,
                    );
                }
            }
            let mut squares = compose_grouped(&probabilities, flipped, &alike_groups);
            if self.relabel {
                relabel_drawings(&mut squares, &unweighed, flipped, &alike_groups);
            }
            if self.separate {
                let drawings = Drawings {
                    board: &rectified,
                    outlines: &outlines,
                    blank: &blank,
                    network: &read_alone,
                    square_pixels,
                };
                separate_drawings(&mut squares, &drawings, flipped, &alike_groups);
            }
            if self.king_twins {
                kings_by_twins(&mut squares, &outlines, flipped);
            }
            // What those stages moved may break what no game breaks; random placements
            // break it by design.
            if self.settle_facts
                && prior::game_likeness(&placement(&squares)) >= prior::GAME_LIKE_FROM
            {
                settle_facts_again(&mut squares, flipped, &alike_groups);
            }
            for r in squares.iter_mut() {
                let cell = display_index(r.square, flipped);
                r.hidden = cut_off[cell] || covered[cell];
                r.contested = self.flag_contested
                    && contested.get(cell).copied().unwrap_or(false)
                    && r.confidence() < CONTESTED_SURE_FROM;
                r.changed |= capped.contains(&cell);
            }
            if self.weigh_facts {
                weigh_by_facts(&mut squares);
                if self.flag_scattered || implausible_worth_flagging(&squares) {
                    flag_implausible(&mut squares);
                }
            }
            squares
        };
        let mut squares = compose_weighing(prior::WEIGHT);
        if self.weigh_doubted_by_games
            && design_doubted(&squares)
            && prior::game_likeness(&placement(&squares)) >= self.doubted_prior_game_like_from
        {
            let mut weighed = compose_weighing(prior::DOUBTED_WEIGHT);
            keep_doubts(&mut weighed, &squares);
            squares = weighed;
        }
        let board = placement(&squares);
        let castling = match &options.castling {
            Castling::Auto => auto_castling(&board),
            Castling::None => "-".to_string(),
            Castling::Given(letters) => letters.clone(),
        };
        let ep = options
            .en_passant
            .map(|sq| sq.to_string())
            .unwrap_or_else(|| "-".into());
        let side = if options.black_to_move { 'b' } else { 'w' };
        let fen = format!("{} {side} {castling} {ep} 0 1", board.board_fen());
        let report = check(fen.as_bytes(), &CheckOptions::default());
        if self.flag_checks {
            flag_impossible_checks(&mut squares, &board, &report.diagnostics);
        }
        if self.flag_doubted_designs {
            flag_doubted_design(&mut squares);
        }
        if self.flag_borrowed {
            flag_borrowed(&mut squares, &read_alone, flipped);
        }
        let fen = report.fen.clone().unwrap_or(fen);
        Ok(Recognition {
            corners,
            squares,
            placement: board,
            flipped,
            orientation_confidence,
            fen,
            report,
            grid_in_doubt: false,
            timings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_in_doubt_makes_every_square_uncertain() {
        // Every square sure: the starting position read with probability 0.99 a square.
        let start = Board::new();
        let probabilities: Vec<[f32; crate::classify::CLASSES]> = (0..64)
            .map(|cell| {
                let square =
                    crate::compose::shown_at(cell, false).expect("every cell shows a square");
                let mut p = [0.01 / 12.0; crate::classify::CLASSES];
                p[crate::classify::piece_class(start.piece_at(square))] = 0.99;
                p
            })
            .collect();
        let squares = crate::compose::compose(&probabilities, false);
        let fen = format!("{} w KQkq - 0 1", placement(&squares).board_fen());
        let mut recognition = Recognition {
            corners: [[0.0; 2]; 4],
            report: check(fen.as_bytes(), &CheckOptions::default()),
            placement: placement(&squares),
            squares,
            flipped: false,
            orientation_confidence: 1.0,
            fen,
            grid_in_doubt: false,
            timings: Timings::default(),
        };
        assert!(recognition.uncertain().is_empty());
        assert!(recognition.uncertain_below(0.995).len() == 64);
        recognition.grid_in_doubt = true;
        assert_eq!(recognition.uncertain().len(), 64);
        assert_eq!(recognition.uncertain_below(0.5).len(), 64);
    }

    #[test]
    fn auto_castling_needs_king_and_rook_at_home() {
        assert_eq!(auto_castling(&Board::new()), "KQkq");
        assert_eq!(auto_castling(&Board::empty()), "-");
        let mut board = Board::new();
        board.discard_piece_at(Square::H1);
        board.discard_piece_at(Square::E8);
        assert_eq!(auto_castling(&board), "Q");
    }
}
