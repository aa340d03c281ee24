//! Distinct: two drawings that plainly differ are two different pieces.
//!
//! A design draws each of the twelve pieces one way. So where two squares of one colour hold
//! drawings that plainly differ, they cannot hold the same piece, however surely the classifier
//! reads both as one: a chess font's bishops and its pawns both read as pawns, its kings and its
//! bishops both as kings. One of the two readings is wrong; the cheaper one to change changes.
//!
//! Two pieces on squares of one colour are apart when their [`piece_distance`] (their pixels
//! compared where either piece stands, so a textured square's grain counts for nothing) is over
//! [`APART_FROM`]; on squares of two colours, when their [`cross_distance`] and
//! [`tolerant_cross_distance`] are both over [`CROSS_APART_FROM`]. Units are the copies of one
//! drawing ([`crate::alike`]'s groups, split by the class each square now holds and wherever two
//! of their squares are apart) and the pieces in no group; two units are apart when all their
//! pairs of squares of one colour are, or, where they have none, all their pairs of two colours.
//!
//! While two apart units hold one class, the unit moves whose move to another class of its
//! side gains most, as [`crate::relabel`] weighs a move: what the position gains in games
//! ([`crate::prior::log_frequency`], times [`relabel::WEIGHT`]), minus the broken facts it adds,
//! minus one copy's network cost (the classifier's own readings of the squares, before pooling).
//! A move is open only to a class no unit apart from it holds, so it makes no new conflict, and
//! only while it loses less than [`MOST_LOST`]. Each unit moves at most once, and the squares
//! moved are marked as changed, so they are reported uncertain.
//!
//! On readings that look like a game ([`prior::GAME_LIKE_FROM`]) two more kinds of move are
//! weighed alongside (forty-second session):
//!
//! - a unit may take a class held by one unit apart from it, while that one moves on to a class
//!   no unit apart from it holds: a font's bishops read as kings and its king as a queen like
//!   the queen beside it;
//! - the units cut from one group by the classes their squares hold (copies of one drawing
//!   that the composer's facts or prior read as two pieces: two rooks of a font read as the king
//!   and a rook) may all take one class of their side, the one unit apart from them that holds
//!   it moving on as above; since the fifty-fourth session also copies read as one role in two
//!   colours, which take one of the two classes they hold: leipzig's black rook on g7, read as
//!   White's under a doubted design's heavier prior while its copy on a8 was read as Black's
//!   (fresh foreign designs 8181, picture 109). Shipped four +2 / -0 over the foreign designs and
//!   fonts of six seeds, the held-out lichess designs of three, whole screens and thumbnails;
//!   held-out four +1 / -0. Since the fifty-fifth session such copies take a colour held by at
//!   least as many copies as the other, on any reading and wherever the squares are not small
//!   (not only where the copies repeat closely): merida_new's black queen on h5 read as White's
//!   beside its copy on c6, in a position no game reaches (foreign designs 5150, picture 984).
//!   Shipped four +8 / -0, held-out four +3 / -0; without the count, three black queens took
//!   the colour of a white queen the alike groups joined to them (held-out four, fresh foreign
//!   designs 8181, picture 37).
//!
//! Pieces set out at will are left to the single moves, since kings too many there are true.
//!
//! Most designs draw a role's white and black piece with one outline. So on a board drawn flat
//! (`drawn_flat`), two units of opposite sides whose outlines coincide (under
//! [`TWINS_BELOW`], [`crate::alike::outline_distance`]) but that hold different roles conflict
//! as well: either may take the other's role in its own colour, weighed as the moves above
//! (forty-third session). A font's black king read as a queen beside its white king read
//! rightly is read as a king; a black bishop read as a knight where the white bishops are read
//! as bishops, as a bishop. Since the forty-eighth session twins are also looked for on boards
//! not drawn flat whose squares span at least [`TWINS_UNFLAT_PIXELS_FROM`] picture pixels (a
//! textured board, a large photograph; below that, plainly nearest twins on a game-like
//! reading: since the fifty-first session a doubted design's, since the fifty-second any
//! design's where neither of the two holds a pawn), and they may move where the copies
//! repeat too loosely for anything else to (below): a silhouette's outline is told on a large
//! square past a texture's grain or a shaded drawing's, which part copies' pixels. Shipped
//! four, `fenlens eval` (boards exact, before -> after): foreign designs of seeds 5150 / 31337
//! 64.6 / 63.9 ->
//! 65.0 / 64.2%, fonts of seeds 6161 / 4242 43.8 / 43.5 -> 44.4 / 44.5%; fresh pictures
//! (seeds 8181 and 9292, rendered after the threshold was chosen) 60.3 -> 60.6% and 42.4 ->
//! 43.3%; held-out lichess designs of seed 777 87.5 -> 87.8%, of seeds 2026 and 202, clean
//! pictures, whole screens, thumbnails and the devset the same. On readings that look like a
//! game a piece is also the twin of its plainly nearest outline of the other side
//! ([`TWINS_NEAREST_BELOW`], [`TWINS_NEAREST_RATIO`]): foreign designs 65.0 / 64.2 -> 65.2 /
//! 64.1%, fonts 44.4 / 44.5 -> 44.8 / 44.7%, fresh pictures 60.6 -> 60.8% and 43.3 -> 43.8%,
//! held-out lichess designs of seed 777 87.8 -> 87.7%, the rest the same.
//!
//! A unit apart from a unit of its class whose twin holds another role takes that role, or
//! takes a third role together with its twin, or stays (fifty-third session): the outlines say
//! the two hold one role, where the network's next choice would leave them unlike. Condal's
//! black bishop on e7, read as a pawn under a doubted design's heavier prior, took the knight
//! the network put second rather than the bishop of its white twin on b2 (fonts 6161, picture
//! 186); mediaeval's bishops on c1 and c8, read as a knight and a queen, each other's twins,
//! now both take the bishop's role (fresh fonts 9292, picture 355). Shipped four, boards
//! gained / lost: +10 / -1 over the foreign designs and fonts of six seeds, the held-out
//! lichess designs of three, whole screens and thumbnails; held-out four +6 / -0. On a design
//! the classifier doubts, such a move, and a unit's move to the role of a twin with more copies
//! than it, may lose up to [`TOLD_MOST_LOST`] rather than [`MOST_LOST`] (fifty-fourth
//! session).
//!
//! Units apart move only where the drawings' pixels can be compared: boards whose squares span at
//! least [`SQUARE_PIXELS_FROM`] pixels of the picture, and where copies repeat closely (the lower
//! quartile over the pieces of the [`distance`] to the likest piece on a square of the same colour
//! at most [`COPIES_WITHIN`]). Photographs, small boards and textured squares give copies of one
//! drawing distances that different drawings have; there only twins move. On a board drawn flat
//! (`drawn_flat`: most squares read empty show one flat grey, as on a screen's or a page's
//! rendering) whose design the classifier doubts ([`design_doubted`]), where most of what is
//! misread is, the copies may repeat up to [`DOUBTED_COPIES_WITHIN`], and two pieces are then apart
//! only when they also differ by [`APART_OVER_COPIES`] times that board's spread of copies. Tried
//! on every doubted board in the forty-second session, this lost as many photographs with the
//! held-out four as it gained fonts; kept to boards drawn flat in the forty-third.
//!
//! With the true corners and pieces (`cargo run --release -p fenlens-vision --example apart
//! DIR` on the fonts of seed 6161 and the foreign designs of seed 5150), pairs of same-coloured
//! squares holding the same piece are over 0.2 of [`piece_distance`] in 0.1-0.2% of clean
//! screenshots, 1-2% of screenshots, 2-3% of book diagrams, 5% of boards with overlays and
//! 11-16% of photographs and small pictures, while 90-98% of pairs holding different pieces
//! are. Forty-first session, `fenlens eval` (boards exact, before -> after; `--no-separate`
//! measures without it), shipped four: 11 chess fonts 34.8 -> 37.0% (fresh pictures, seed 4242:
//! 32.6 -> 34.7%), 14 foreign designs 59.2 -> 59.8% (seed 31337: 57.9 -> 58.4%); the model card
//! has the rest ("Drawings that differ read as one piece"). The forty-second session's two moves:
//! fonts 37.0 -> 37.6% (34.7 -> 35.3%), foreign designs 59.8 -> 60.0% (58.4 -> 58.5%), the
//! held-out lichess designs, whole screens, thumbnails and the devset the same boards; with the
//! held-out four, fonts 36.1 -> 36.7% (33.6 -> 33.9%), foreign designs 58.2% (57.5 -> 57.6%),
//! held-out lichess the same ("Drawings read as each other's pieces"). The forty-third session's
//! wider gate on doubted designs drawn flat: fonts 37.6 -> 38.0% (35.5 -> 35.8%), foreign designs
//! 60.0 -> 60.1% (58.5 -> 58.6%); held-out four fonts 36.7 -> 37.4% (34.1 -> 34.4%), foreign
//! designs 58.2 -> 58.3% (57.6%), held-out lichess 80.2% for 80.3% (one photograph) and 78.8%;
//! the other sets the same boards ("A wider gate on doubted designs drawn flat").
//!
//! Assumes readings in standard orientation (a1 first) composed by [`crate::compose`], the
//! classifier's probabilities (display order) and the rectified board and silhouettes they were
//! read from.

use fenlens_fen::shakmaty::{Piece, Role};

use crate::alike::{
    Outline, cross_distance, distance, piece_distance, same_colour, tolerant_cross_distance,
};
use crate::classify::{CLASSES, class_piece, piece_class};
use crate::compose::{
    SquareReading, design_doubted, display_index, fact_cost, in_readings_order, make, placement,
};
use crate::prior;
use crate::rectify::Rectified;
use crate::relabel::{self, Move};
use crate::silhouette::Silhouette;

/// Two pieces on squares of one colour whose [`piece_distance`] is over this are different
/// drawings. Chosen on the fonts and foreign designs of seeds 6161 and 5150 (0.15 / 0.2 / 0.25:
/// fonts 37.0 / 36.7 / 36.5%, foreign designs 59.8 / 59.9 / 59.7%, before the other settings
/// were final).
pub const APART_FROM: f32 = 0.2;

/// Two pieces on squares of two colours whose [`cross_distance`] and
/// [`tolerant_cross_distance`] are both over this are different drawings.
pub const CROSS_APART_FROM: f32 = 0.3;

/// A move is made only while it loses less than this (natural log units): the prior and one
/// copy's network cost can outweigh what the drawings say, where an apart pair is one drawing
/// after all ([`TOLD_MOST_LOST`] where twins tell the move on a doubted design).
pub const MOST_LOST: f32 = 5.0;

/// On a design the classifier doubts ([`design_doubted`]), a unit apart from a unit of its class
/// may lose up to this taking the role its twin of the other side holds (fifty-fourth session):
/// two outlines say it, where the network's cost on a design it doubts says little. Adventurer's
/// white bishop on e3, read as a pawn at a cost of 3.3 and a prior that likes pawns there, lost
/// 5.5 taking the role of Black's two bishops, its twins (fonts 6161, picture 480). Shipped
/// four, boards gained / lost over the foreign designs and fonts of six seeds, the held-out
/// lichess designs of three, whole screens and thumbnails (8 / 10 / 14): +6 / -1, +7 / -1,
/// +7 / -2; held-out four at 10: +6 / -1. On every design at 8: +9 / -3, the three lost
/// designs the classifier reads surely (freestaunton's pawns).
///
/// So may a unit taking the role of a twin with more copies than it: leipzig's lone black pawn
/// on h3, read as a bishop at a cost of 6.6 beside White's four pawns, its twins (fresh foreign
/// designs 8181, picture 1044). On top of the above, shipped four +5 / -2, held-out four
/// +12 / -2; on every design +7 / -4; for twins of any size of at least two copies +6 / -3
/// (a motif opening lost: Black's eight pawns took the role of White's two bishops).
pub const TOLD_MOST_LOST: f32 = 10.0;

/// Boards whose copies of one drawing repeat less closely than this are left as they are.
pub const COPIES_WITHIN: f32 = 0.05;

/// On a board whose design the classifier doubts ([`design_doubted`]), the copies may repeat
/// this loosely, and two pieces are apart only when they differ by [`APART_OVER_COPIES`] times
/// the copies' spread as well. Chosen on fonts 6161 and foreign designs 5150 (0.08 / 0.12 /
/// 0.2, with 5: fonts 38.0 / 38.5 / 38.5%, foreign designs 60.0 / 60.1 / 60.2%).
pub const DOUBTED_COPIES_WITHIN: f32 = 0.12;

/// On a doubted design two pieces are apart only when they differ by this many times the
/// board's spread of copies (the lower quartile over its pieces of the [`distance`] to the likest
/// piece on a square of the same colour) as well (3 / 5 / 8:
/// fonts 38.5 / 38.5 / 37.9%, foreign designs 59.9 / 60.1 / 60.2%).
pub const APART_OVER_COPIES: f32 = 5.0;

/// A board counts as drawn flat (a screen's or a page's rendering, not a photograph or a
/// textured board) when at least this share of the squares read empty shows one flat grey
/// ([`crate::rectify::blank_cells`]). Of doubted fonts' boards (seed 6161), 77% of clean
/// renderings have half or more, 19% of photographs. Chosen on fonts 6161 and foreign designs
/// 5150, shipped and held-out four, with held-out lichess 2026 (0.3 / 0.5 / 0.7: boards exact
/// summed over the five 273.6 / 273.7 / 274.0).
pub const FLAT_SHARE_FROM: f32 = 0.7;

/// Two pieces of opposite sides whose outlines lie closer than this
/// ([`crate::alike::outline_distance`]: the share of the two silhouettes' union only one
/// covers) are one role drawn in two colours, as most designs draw them; on a board drawn flat
/// (`drawn_flat`) one may take the other's role. Chosen on fonts 6161, foreign designs 5150
/// and held-out lichess 2026, shipped and held-out four (0.03 / 0.05 / 0.08 / 0.12 / 0.16 /
/// 0.2 on every board; 0.08 / 0.12 on boards drawn flat).
pub const TWINS_BELOW: f32 = 0.1;

/// On boards whose squares span fewer picture pixels than this, copies' pixels are not compared.
/// Until the fifty-second session such boards were left as they are; since then their plainly
/// nearest twins ([`TWINS_NEAREST_BELOW`]) move on a game-like reading, as on small textured
/// squares (where neither holds a pawn, unless the classifier doubts the design): pirat's black
/// bishop read as a queen on a 164-pixel picture beside White's bishops (foreign designs 5150,
/// picture 383), a font's king and bishop read as each other's pieces in an opening (fonts 6161,
/// picture 341). Shipped four, boards gained / lost: +15 / -4 over the foreign designs and fonts of
/// six seeds, the held-out lichess designs of three, whole screens and thumbnails (lost: one
/// held-out lichess board, chessnut's knights read as bishops on a book page scanned at 326 pixels,
/// and one thumbnail); held-out four +12 / -4. Keeping pawns out on doubted designs too (a leipzig
/// opening lost its pawns to the bishops with the held-out four): +9 / -4 and +6 / -3. Asking the
/// network to give the twin's role at least 0.01 on every copy: +12 / -2 and +10 / -4.
pub const SQUARE_PIXELS_FROM: f32 = 30.0;

/// On a board not drawn flat (a photograph, a textured board), twins ([`TWINS_BELOW`]) are
/// looked for only where a square spans at least this many picture pixels: a silhouette cut
/// from a square of 30-50 pixels under a photograph's noise or a texture's grain is a pixel or
/// two off, which is a tenth of a small piece's outline. Where a board's copies repeat too
/// loosely for its drawings to be told apart by their pixels ([`COPIES_WITHIN`]), twins alone
/// may still move (forty-eighth session). Chosen on the foreign designs of seeds 5150 and
/// 31337, the fonts of seeds 6161 and 4242 and the held-out lichess designs of seeds 2026 and
/// 777, shipped four, boards exact (twins on every board / from 60 pixels): 65.0 / 65.0%,
/// 64.0 / 64.2%, 44.1 / 44.4%, 44.5 / 44.5%, 88.2 / 88.7%, 87.5 / 87.8%; of the boards that
/// changed, 13 of 18 read worse on squares under 60 pixels and 1 of 14 from 60.
///
/// Under it, since the fifty-first session, a doubted design's game-like reading
/// ([`design_doubted`], [`prior::GAME_LIKE_FROM`]) still takes each piece's plainly nearest
/// outline of the other side as its twin ([`TWINS_NEAREST_BELOW`]), which a pixel or two of
/// grain moves less than a distance under [`TWINS_BELOW`]: alfonso's black bishop on c5, read
/// as a pawn beside White's two bishops on a canvas texture of 40-pixel squares (fresh foreign
/// designs 8181, picture 806). Shipped four, boards gained / lost: +7 / -3 over the foreign
/// designs and fonts of six seeds, the held-out lichess designs the same; held-out four +6 /
/// -2. On every design, doubted or not: shipped four +16 / -9, of them 3 lost and none gained
/// on the held-out lichess designs.
///
/// Since the fifty-second session a design the classifier does not doubt takes them too, where
/// neither of the two pieces holds a pawn: pirat's black bishop read as a queen beside White's
/// two bishops on a wood texture of 39-pixel squares (fresh foreign designs 8181, picture 660).
/// Most of the boards the undoubted designs lost to every nearest twin were a pawn and a bishop
/// swapped, whose outlines a texture's grain and a small square blur together while a design
/// the classifier reads surely tells them apart. Shipped four, boards gained / lost: +6 / -1
/// over the foreign designs and fonts of six seeds and the held-out lichess designs of three
/// (the one lost a staunty bishop read as a knight on a book page photographed); held-out four
/// +3 / -0.
pub const TWINS_UNFLAT_PIXELS_FROM: f32 = 60.0;

/// On a reading that looks like a game ([`prior::GAME_LIKE_FROM`]), a piece is also the twin
/// of its nearest piece of the other side ([`crate::alike::outline_distance`]) where that one
/// lies under this and at most [`TWINS_NEAREST_RATIO`] times as far as the nearest piece of the
/// other side read in another role. A design's outlines of one role in two colours often part
/// by more than [`TWINS_BELOW`] (a white piece's hollow drawing and a black one's filled), yet
/// stay far nearer each other than either is to another role's.
pub const TWINS_NEAREST_BELOW: f32 = 0.2;

/// See [`TWINS_NEAREST_BELOW`]. With the true corners and pieces (`cargo run --release -p
/// fenlens-vision --example twin_outlines DIR`; clean pictures, screenshots, overlays and book
/// diagrams), a piece's nearest piece of the other side found this way holds its role 98.3% of
/// the time on the fonts of seed 6161 (4,156 pieces of 6,885; under [`TWINS_BELOW`]: 3,512 at
/// 96.0%), 98.4% on the foreign designs of seed 5150 (8,909 of 13,288; 8,037 at 95.5%) and
/// 98.0% on the held-out lichess designs of seed 2026 (4,610 of 6,381; 4,469 at 94.6%). Tried
/// on every reading, not only game-like ones, and with 0.6 and 0.25 (forty-eighth session,
/// shipped four, boards exact; model card).
pub const TWINS_NEAREST_RATIO: f32 = 0.5;

/// At most this many moves a board.
const MAX_MOVES: usize = 12;

/// What the pieces of one board are read from: the rectified board, the pieces' silhouettes,
/// its blank squares, the classifier's probabilities before pooling (display order), and how
/// many picture pixels a square spans.
pub struct Drawings<'a> {
    /// The rectified board.
    pub board: &'a Rectified,
    /// Each display-order square's silhouette.
    pub outlines: &'a [Option<Silhouette>; 64],
    /// Each display-order square's blankness ([`crate::rectify::blank_cells`], as the
    /// classifier found it: [`crate::classify::BoardReading::blank`]).
    pub blank: &'a [bool; 64],
    /// The classifier's probabilities, display order, before pooling.
    pub network: &'a [[f32; CLASSES]],
    /// The picture pixels a square spans (the board's mean side over 8).
    pub square_pixels: f32,
}

/// Gives different classes to units that hold one class but plainly differ (see the module
/// comment). `groups` holds the display-order cells of each drawing's copies, as
/// [`crate::alike`] gives them. Returns whether any square changed.
pub fn separate_drawings(
    readings: &mut [SquareReading],
    drawings: &Drawings,
    flipped: bool,
    groups: &[Vec<usize>],
) -> bool {
    let Drawings {
        board,
        outlines,
        blank,
        ..
    } = *drawings;
    // Too small a square for copies' pixels to be compared; plainly nearest twins' outlines
    // still are (below).
    let small = drawings.square_pixels < SQUARE_PIXELS_FROM;
    let cells: Vec<usize> = readings
        .iter()
        .map(|r| display_index(r.square, flipped))
        .collect();
    let pieces: Vec<usize> = (0..readings.len())
        .filter(|&i| class_piece(readings[i].class).is_some() && outlines[cells[i]].is_some())
        .collect();
    let flat = drawn_flat(blank, readings, &cells);
    // A doubted design's board drawn flat is measured against its own spread of copies.
    let design_in_doubt = design_doubted(readings);
    let doubted = design_in_doubt && flat;
    let spread = if doubted {
        copies_spread(board, &pieces, &cells)
    } else {
        None
    };
    let over_spread = APART_OVER_COPIES * spread.unwrap_or(0.0);
    let mut apart = Apart {
        apart_from: APART_FROM.max(over_spread),
        cross_apart_from: CROSS_APART_FROM.max(over_spread),
        board,
        outlines,
        cells: &cells,
        pairs: vec![None; readings.len() * readings.len()],
    };
    let mut units = Units::new(
        readings,
        &pieces,
        &in_readings_order(groups, flipped),
        &mut apart,
    );
    let m = units.members.len();
    let game_like = prior::game_likeness(&placement(readings)) >= prior::GAME_LIKE_FROM;
    // On small squares only twins move (below): the conflicts between units are not looked for.
    let conflicted = !small
        && (0..m).any(|u| {
            !units
                .holders(readings, u, units.class(readings, u), &[])
                .is_empty()
        });
    let split_parts = if small {
        Vec::new()
    } else {
        units.split_groups(readings, &vec![false; m])
    };
    let split = game_like && !split_parts.is_empty();
    // Copies of one drawing read in two colours take one of them on any reading, and wherever
    // the squares are not small.
    let two_colours = split_parts
        .iter()
        .any(|parts| !units.one_side(readings, parts));
    // Units of opposite sides drawn with one outline, on a board drawn flat or of large
    // squares (not small ones); elsewhere only plainly nearest ones, on a game-like reading,
    // and where the classifier does not doubt the design, only where neither holds a pawn.
    let twins = if !small && (flat || drawings.square_pixels >= TWINS_UNFLAT_PIXELS_FROM) {
        units.twins(readings, game_like, true)
    } else if game_like {
        let nearest = units.twins(readings, game_like, false);
        if design_in_doubt {
            nearest
        } else {
            let pawn = |u: usize| {
                class_piece(units.class(readings, u)).is_some_and(|p| p.role == Role::Pawn)
            };
            nearest
                .into_iter()
                .filter(|&(u, v)| !pawn(u) && !pawn(v))
                .collect()
        }
    } else {
        Vec::new()
    };
    let twinned = twins
        .iter()
        .any(|&(u, v)| in_role_of(units.class(readings, u), units.class(readings, v)).is_some());
    // Most boards hold none of these: they are left before the gate's work.
    if !(conflicted || split || twinned || two_colours) {
        return false;
    }
    let within = if doubted {
        DOUBTED_COPIES_WITHIN
    } else {
        COPIES_WITHIN
    };
    // Where the squares are small or the copies repeat too loosely for the pixels to tell
    // drawings apart, only twins, which the outlines tell, may move.
    let twins_only = small
        || spread
            .or_else(|| copies_spread(board, &pieces, &cells))
            .is_none_or(|q| q > within);
    if twins_only && !twinned && !two_colours {
        return false;
    }
    let logs = relabel::network_logs(readings, drawings.network, flipped);
    let told_most_lost = if design_in_doubt {
        TOLD_MOST_LOST
    } else {
        MOST_LOST
    };
    let mut moved = vec![false; m];
    let mut changed = false;
    for _ in 0..MAX_MOVES {
        let round = Round {
            readings,
            moved: &moved,
            logs: &logs,
            told_most_lost,
            two_colours_anywhere: !small,
        };
        let tries = units.tries(&round, &twins, game_like, twins_only);
        let facts = fact_cost(readings);
        let mut best: Option<(Vec<Move>, f32)> = None;
        for (chosen, most_lost) in tries {
            let gain = relabel::gain_of(readings, &units.members, &chosen, facts);
            if gain >= -most_lost && best.as_ref().is_none_or(|b| gain > b.1) {
                best = Some((chosen, gain));
            }
        }
        let Some((chosen, _)) = best else {
            break;
        };
        for m in chosen {
            make(readings, &units.members[m.unit], m.to);
            for &i in &units.members[m.unit] {
                readings[i].changed = true;
            }
            moved[m.unit] = true;
        }
        changed = true;
    }
    changed
}

/// Whether the board is drawn flat: at least [`FLAT_SHARE_FROM`] of the squares the `readings`
/// (at display-order `cells`) hold empty show one flat grey (are `blank`). A photograph's
/// noise, glare and moiré, or a wood texture, leave few such squares, and there copies of one
/// drawing differ as much as the copies' spread allows different drawings to.
fn drawn_flat(blank: &[bool; 64], readings: &[SquareReading], cells: &[usize]) -> bool {
    let (mut empty, mut flat) = (0usize, 0usize);
    for (reading, &cell) in readings.iter().zip(cells) {
        if class_piece(reading.class).is_none() {
            empty += 1;
            flat += usize::from(blank[cell]);
        }
    }
    empty > 0 && flat as f32 >= FLAT_SHARE_FROM * empty as f32
}

/// Which pieces (readings' indices) and which units are apart, each pair of pieces measured
/// when first asked.
struct Apart<'a> {
    /// Pieces on squares of one colour are apart over this [`piece_distance`].
    apart_from: f32,
    /// Pieces on squares of two colours are apart over this [`cross_distance`] and
    /// [`tolerant_cross_distance`].
    cross_apart_from: f32,
    board: &'a Rectified,
    outlines: &'a [Option<Silhouette>; 64],
    /// Each reading's display-order cell.
    cells: &'a [usize],
    /// `pairs[a * n + b]`, once measured.
    pairs: Vec<Option<bool>>,
}

impl Apart<'_> {
    /// Whether two pieces are apart (see the module comment); false where either square holds
    /// no silhouette.
    fn pieces(&mut self, a: usize, b: usize) -> bool {
        // The measures are not quite symmetric (the alignments move the second square): the
        // lower index goes first, whichever is asked about first.
        let (a, b) = (a.min(b), a.max(b));
        let n = self.cells.len();
        if let Some(known) = self.pairs[a * n + b] {
            return known;
        }
        let (ca, cb) = (self.cells[a], self.cells[b]);
        let board = self.board;
        let apart = match (&self.outlines[ca], &self.outlines[cb]) {
            (Some(sa), Some(sb)) if same_colour(ca, cb) => {
                piece_distance(board, (ca, sa), (cb, sb)) > self.apart_from
            }
            (Some(sa), Some(sb)) => {
                cross_distance(board, (ca, sa), (cb, sb)) > self.cross_apart_from
                    && tolerant_cross_distance(board, (ca, sa), (cb, sb)) > self.cross_apart_from
            }
            _ => false,
        };
        self.pairs[a * n + b] = Some(apart);
        apart
    }

    /// Whether two units are apart: all their pairs of squares of one colour are, or, where
    /// they have none, all their pairs of two colours.
    fn units(&mut self, u: &[usize], v: &[usize]) -> bool {
        let cells = self.cells;
        let pairs = || u.iter().flat_map(|&a| v.iter().map(move |&b| (a, b)));
        let one_colour = pairs().any(|(a, b)| same_colour(cells[a], cells[b]));
        pairs()
            .filter(|&(a, b)| !one_colour || same_colour(cells[a], cells[b]))
            .all(|(a, b)| self.pieces(a, b))
    }
}

/// What one round of [`separate_drawings`] weighs its moves against: the readings as they
/// stand, the units moved in earlier rounds, and the network's log-probabilities
/// ([`relabel::network_logs`]) that cost the moves.
#[derive(Clone, Copy)]
struct Round<'r> {
    readings: &'r [SquareReading],
    moved: &'r [bool],
    logs: &'r [[f32; CLASSES]],
    /// How much a move told by twins may lose ([`TOLD_MOST_LOST`] on a doubted design).
    told_most_lost: f32,
    /// Whether copies of one drawing read in two colours may take one of them off a game-like
    /// reading and where copies repeat loosely.
    two_colours_anywhere: bool,
}

/// The units of one board: each group (readings' indices) split by the class its squares hold
/// now and wherever two of its squares are apart, then the pieces in no group, each alone.
struct Units<'a, 'b> {
    /// Each unit's readings' indices.
    members: Vec<Vec<usize>>,
    /// The group each unit was cut from, where that group holds no two apart squares (one
    /// drawing, which should hold one class).
    group_of: Vec<Option<usize>>,
    apart: &'b mut Apart<'a>,
    /// `apart_units[u * m + v]`, once measured.
    apart_units: Vec<Option<bool>>,
}

impl<'a, 'b> Units<'a, 'b> {
    /// Cuts the `groups` (readings' indices) into units and adds the `pieces` in none.
    fn new(
        readings: &[SquareReading],
        pieces: &[usize],
        groups: &[Vec<usize>],
        apart: &'b mut Apart<'a>,
    ) -> Units<'a, 'b> {
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut group_of = Vec::new();
        let mut grouped = vec![false; readings.len()];
        for (g, group) in groups.iter().enumerate() {
            let mut parts: Vec<Vec<usize>> = Vec::new();
            let mut apart_within = false;
            for &i in group.iter().filter(|i| pieces.contains(i)) {
                grouped[i] = true;
                let mut fits = |part: &Vec<usize>| {
                    if part.iter().any(|&j| apart.pieces(i, j)) {
                        apart_within = true;
                        return false;
                    }
                    readings[part[0]].class == readings[i].class
                };
                match parts.iter_mut().find(|part| fits(part)) {
                    Some(part) => part.push(i),
                    None => parts.push(vec![i]),
                }
            }
            group_of.extend(std::iter::repeat_n(
                (!apart_within).then_some(g),
                parts.len(),
            ));
            members.extend(parts);
        }
        for &i in pieces.iter().filter(|&&i| !grouped[i]) {
            members.push(vec![i]);
            group_of.push(None);
        }
        let m = members.len();
        Units {
            members,
            group_of,
            apart,
            apart_units: vec![None; m * m],
        }
    }

    /// The class unit `u`'s squares hold.
    fn class(&self, readings: &[SquareReading], u: usize) -> usize {
        readings[self.members[u][0]].class
    }

    /// The pairs of units of opposite sides (u, v), both ways round, that hold a piece each
    /// whose outlines lie under [`TWINS_BELOW`] apart ([`crate::alike::outline_distance`]): one
    /// role drawn in two colours (only where `under_twins_below`). Where the reading is
    /// `game_like`, also each piece and its nearest piece of the other side, where that one is
    /// plainly nearer than any of another role ([`plainly_nearest_twin`]).
    fn twins(
        &self,
        readings: &[SquareReading],
        game_like: bool,
        under_twins_below: bool,
    ) -> Vec<(usize, usize)> {
        let (n, m) = (readings.len(), self.members.len());
        // Each reading's outline, made once for all the pairs it is in.
        let outlines: Vec<Option<Outline>> = self
            .apart
            .cells
            .iter()
            .map(|&cell| self.apart.outlines[cell].as_ref().map(Outline::of))
            .collect();
        let mut unit_of = vec![usize::MAX; n];
        for (u, members) in self.members.iter().enumerate() {
            for &i in members {
                unit_of[i] = u;
            }
        }
        let pieces: Vec<usize> = self.members.iter().flatten().copied().collect();
        // `distance[i * n + j]`: from piece i's outline to piece j's, for pieces of opposite
        // sides; each way round where the nearest twins are looked for, else only from the
        // lower unit's piece, the one way the pairs under TWINS_BELOW are measured.
        let mut distance = vec![None; n * n];
        for &i in &pieces {
            for &j in &pieces {
                let wanted = !same_side(readings[i].class, readings[j].class)
                    && (game_like || unit_of[i] < unit_of[j]);
                if let (true, Some(a), Some(b)) = (wanted, &outlines[i], &outlines[j]) {
                    distance[i * n + j] = Some(a.distance(b));
                }
            }
        }
        let mut twins = Vec::new();
        for u in 0..m {
            for v in u + 1..m {
                let close = under_twins_below
                    && self.members[u].iter().any(|&i| {
                        self.members[v]
                            .iter()
                            .any(|&j| distance[i * n + j].is_some_and(|d| d < TWINS_BELOW))
                    });
                if close {
                    twins.extend([(u, v), (v, u)]);
                }
            }
        }
        if game_like {
            let role = |i: usize| class_piece(readings[i].class).map(|p| p.role);
            for &i in &pieces {
                let mut others: Vec<(f32, usize)> = pieces
                    .iter()
                    .filter_map(|&j| Some((distance[i * n + j]?, j)))
                    .collect();
                others.sort_by(|a, b| a.0.total_cmp(&b.0));
                let Some(twin) = plainly_nearest_twin(&others, role) else {
                    continue;
                };
                let (u, v) = (unit_of[i], unit_of[twin]);
                if !twins.contains(&(u, v)) {
                    twins.extend([(u, v), (v, u)]);
                }
            }
        }
        twins
    }

    /// Unit `unit` taking class `to`, at one copy's network cost ([`relabel::copy_cost`] of
    /// the network's log-probabilities `logs`).
    fn step(
        &self,
        readings: &[SquareReading],
        unit: usize,
        to: usize,
        logs: &[[f32; CLASSES]],
    ) -> Move {
        let cost = relabel::copy_cost(readings, &self.members[unit], to, logs);
        Move { unit, to, cost }
    }

    /// Whether units `u` and `v` are apart, measured when first asked.
    fn apart(&mut self, u: usize, v: usize) -> bool {
        let m = self.members.len();
        if let Some(known) = self.apart_units[u * m + v] {
            return known;
        }
        let apart = self.apart.units(&self.members[u], &self.members[v]);
        self.apart_units[u * m + v] = Some(apart);
        apart
    }

    /// The units other than `u` and those in `besides` that hold `class` and are apart from
    /// `u`.
    fn holders(
        &mut self,
        readings: &[SquareReading],
        u: usize,
        class: usize,
        besides: &[usize],
    ) -> Vec<usize> {
        let holding: Vec<usize> = (0..self.members.len())
            .filter(|&v| v != u && !besides.contains(&v) && self.class(readings, v) == class)
            .collect();
        holding.into_iter().filter(|&v| self.apart(u, v)).collect()
    }

    /// The sets of moves worth weighing this `round`: each unit not yet moved that holds one
    /// class with a unit apart from it, taking each other class of its side; each unit taking
    /// the role its `twins` of the other side hold; and, where the board is `game_like`, the
    /// parts of a drawing that no longer hold one class taking one class together. Each with
    /// the unit it displaces moving on ([`Units::moves_to`]). With `twins_only`, the twins'
    /// moves alone. Each set comes with how much it may lose: [`MOST_LOST`], or the `round`'s
    /// `told_most_lost` where a unit apart from one of its class takes its twin's role, or a
    /// unit takes the role of a twin with more copies than it.
    fn tries(
        &mut self,
        round: &Round,
        twins: &[(usize, usize)],
        game_like: bool,
        twins_only: bool,
    ) -> Vec<(Vec<Move>, f32)> {
        let Round {
            readings,
            moved,
            logs,
            ..
        } = *round;
        let mut tries: Vec<(Vec<Move>, f32)> = Vec::new();
        // Each try with how much it may lose.
        let losing = |t: Vec<Vec<Move>>, most_lost: f32| t.into_iter().map(move |m| (m, most_lost));
        for u in (0..self.members.len()).filter(|&u| !moved[u] && !twins_only) {
            let now = self.class(readings, u);
            if self.holders(readings, u, now, &[]).is_empty() {
                continue;
            }
            // Where a twin of the other side holds another role, the outline says the two
            // hold one role: the unit takes its twin's, or both take a third together.
            let unlike = self.twins_in_other_roles(readings, u, twins);
            let told: Vec<usize> = unlike
                .iter()
                .filter_map(|&v| in_role_of(now, self.class(readings, v)))
                .collect();
            let lost = if told.is_empty() {
                MOST_LOST
            } else {
                round.told_most_lost
            };
            for to in (1..CLASSES).filter(|&to| to != now && same_side(to, now)) {
                if told.is_empty() || told.contains(&to) {
                    let first = vec![self.step(readings, u, to, logs)];
                    tries.extend(losing(
                        self.moves_to(round, first, &[u], to, game_like),
                        lost,
                    ));
                } else if let Some(together) = self.with_twins(round, u, to, &unlike) {
                    tries.extend(losing(
                        self.moves_to(round, together, &[u], to, false),
                        MOST_LOST,
                    ));
                }
            }
        }
        // A unit whose twin of the other side holds another role may take that role.
        for &(u, v) in twins.iter().filter(|&&(u, _)| !moved[u]) {
            let Some(to) = in_role_of(self.class(readings, u), self.class(readings, v)) else {
                continue;
            };
            let first = vec![self.step(readings, u, to, logs)];
            // A twin drawn more often than the unit tells its role as surely as a unit apart.
            let lost = if self.members[v].len() > self.members[u].len() {
                round.told_most_lost
            } else {
                MOST_LOST
            };
            tries.extend(losing(
                self.moves_to(round, first, &[u], to, game_like),
                lost,
            ));
        }
        for parts in self.split_groups(readings, moved) {
            let side = self.class(readings, parts[0]);
            let held: Vec<usize> = parts.iter().map(|&u| self.class(readings, u)).collect();
            let one_side = self.one_side(readings, &parts);
            // Groups are weighed on a game-like reading where copies repeat closely; those
            // read in two colours also elsewhere.
            let weighed = game_like && !twins_only;
            if !weighed && (one_side || !round.two_colours_anywhere) {
                continue;
            }
            let open: Vec<usize> = if one_side {
                (1..CLASSES).filter(|&to| same_side(to, side)).collect()
            } else {
                // Parts of one role read in two colours take one of the two, one held by at
                // least as many copies as the other.
                let copies = |class: usize| -> usize {
                    parts
                        .iter()
                        .filter(|&&u| self.class(readings, u) == class)
                        .map(|&u| self.members[u].len())
                        .sum()
                };
                let most = held.iter().map(|&class| copies(class)).max().unwrap_or(0);
                let mut open: Vec<usize> = held
                    .iter()
                    .copied()
                    .filter(|&class| copies(class) == most)
                    .collect();
                open.sort_unstable();
                open.dedup();
                open
            };
            for to in open {
                let unified: Vec<Move> = parts
                    .iter()
                    .filter(|&&u| self.class(readings, u) != to)
                    .map(|&u| self.step(readings, u, to, logs))
                    .collect();
                tries.extend(losing(
                    self.moves_to(round, unified, &parts, to, true),
                    MOST_LOST,
                ));
            }
        }
        tries
    }

    /// Unit `u`'s `twins` of the other side that hold another role than its own, each once.
    fn twins_in_other_roles(
        &self,
        readings: &[SquareReading],
        u: usize,
        twins: &[(usize, usize)],
    ) -> Vec<usize> {
        let own = self.class(readings, u);
        let mut unlike: Vec<usize> = twins
            .iter()
            .filter(|&&(a, v)| a == u && in_role_of(own, self.class(readings, v)).is_some())
            .map(|&(_, v)| v)
            .collect();
        unlike.sort_unstable();
        unlike.dedup();
        unlike
    }

    /// Unit `u` taking class `to` with its twins `unlike` ([`Units::twins_in_other_roles`]),
    /// each taking `to`'s role in its colour. None where one of them has moved this `round` or
    /// a unit apart from one of them holds its new class.
    fn with_twins(
        &mut self,
        round: &Round,
        u: usize,
        to: usize,
        unlike: &[usize],
    ) -> Option<Vec<Move>> {
        let readings = round.readings;
        if unlike.iter().any(|&v| round.moved[v]) {
            return None;
        }
        let mut members = vec![u];
        members.extend(unlike);
        let mut together = vec![self.step(readings, u, to, round.logs)];
        for &v in unlike {
            let class = in_role_of(self.class(readings, v), to)?;
            if !self.holders(readings, v, class, &members).is_empty() {
                return None;
            }
            together.push(self.step(readings, v, class, round.logs));
        }
        Some(together)
    }

    /// The ways to make the moves `base`, which give the `members` (units) class `to`: alone,
    /// where no unit apart from them holds `to`; where one unit not yet moved this `round`
    /// does and `move_on` allows, with that unit moving on to each class no unit apart from it
    /// holds once the members have left theirs (a drawing read as another's piece, and that
    /// one's read as a third's: a font's bishops as kings, its king as a queen).
    fn moves_to(
        &mut self,
        round: &Round,
        base: Vec<Move>,
        members: &[usize],
        to: usize,
        move_on: bool,
    ) -> Vec<Vec<Move>> {
        let readings = round.readings;
        let mut holders: Vec<usize> = members
            .iter()
            .flat_map(|&u| self.holders(readings, u, to, members))
            .collect();
        holders.sort_unstable();
        holders.dedup();
        match holders[..] {
            [] => vec![base],
            [v] if move_on && !round.moved[v] => self
                .free_classes(readings, v, to, members)
                .into_iter()
                .map(|next| {
                    let mut with = base.clone();
                    with.push(self.step(readings, v, next, round.logs));
                    with
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The classes of `from`'s side other than `from` that unit `v` (now holding `from`) could
    /// take with no unit apart from it holding them, those in `leaving` left out.
    fn free_classes(
        &mut self,
        readings: &[SquareReading],
        v: usize,
        from: usize,
        leaving: &[usize],
    ) -> Vec<usize> {
        (1..CLASSES)
            .filter(|&c| c != from && same_side(c, from))
            .filter(|&c| self.holders(readings, v, c, leaving).is_empty())
            .collect()
    }

    /// The units of each group (one drawing) that no longer hold one class, where none has
    /// moved and all hold pieces of one side, or one role in two colours (since the
    /// fifty-fourth session: leipzig's black rooks, drawn white with black joints, one read
    /// as White's).
    fn split_groups(&self, readings: &[SquareReading], moved: &[bool]) -> Vec<Vec<usize>> {
        let mut seen: Vec<usize> = self.group_of.iter().flatten().copied().collect();
        seen.sort_unstable();
        seen.dedup();
        seen.into_iter()
            .map(|g| {
                (0..self.members.len())
                    .filter(|&u| self.group_of[u] == Some(g))
                    .collect::<Vec<usize>>()
            })
            .filter(|parts| {
                let first = self.class(readings, parts[0]);
                let role = |class: usize| class_piece(class).map(|p| p.role);
                let one_role = parts
                    .iter()
                    .all(|&u| role(self.class(readings, u)) == role(first));
                parts.iter().all(|&u| !moved[u])
                    && (self.one_side(readings, parts) || one_role)
                    && parts.iter().any(|&u| self.class(readings, u) != first)
            })
            .collect()
    }

    /// Whether the units `parts` all hold classes of one side.
    fn one_side(&self, readings: &[SquareReading], parts: &[usize]) -> bool {
        let first = self.class(readings, parts[0]);
        parts
            .iter()
            .all(|&u| same_side(self.class(readings, u), first))
    }
}

/// Of one piece's pieces of the other side, given as (outline distance, index) nearest first,
/// the one that is plainly its twin: the nearest, where it lies under [`TWINS_NEAREST_BELOW`]
/// and at most [`TWINS_NEAREST_RATIO`] times as far as the nearest whose `role` differs from
/// it. None where every one holds the nearest's role.
pub fn plainly_nearest_twin<R: PartialEq>(
    others: &[(f32, usize)],
    role: impl Fn(usize) -> R,
) -> Option<usize> {
    let &(nearest, twin) = others.first()?;
    let &(other_role, _) = others.iter().find(|&&(_, j)| role(j) != role(twin))?;
    (nearest < TWINS_NEAREST_BELOW && nearest < TWINS_NEAREST_RATIO * other_role).then_some(twin)
}

/// The class of `class`'s side in `other`'s role, where the two are pieces of different roles.
fn in_role_of(class: usize, other: usize) -> Option<usize> {
    let (piece, other) = (class_piece(class)?, class_piece(other)?);
    (piece.role != other.role).then(|| {
        piece_class(Some(Piece {
            role: other.role,
            ..piece
        }))
    })
}

/// Whether two classes are pieces of one side.
fn same_side(a: usize, b: usize) -> bool {
    class_piece(a).map(|p| p.color) == class_piece(b).map(|p| p.color)
}

/// How closely the copies of one drawing repeat on this board: the lower quartile, over the
/// `pieces` (readings' indices, at display-order `cells`), of the [`distance`] to the likest
/// piece on a square of the same colour. None with fewer than four pieces that have such a
/// neighbour.
fn copies_spread(board: &Rectified, pieces: &[usize], cells: &[usize]) -> Option<f32> {
    let mut nearest: Vec<f32> = pieces
        .iter()
        .map(|&a| {
            pieces
                .iter()
                .filter(|&&b| b != a && same_colour(cells[a], cells[b]))
                .map(|&b| distance(board, cells[a], cells[b]))
                .fold(f32::INFINITY, f32::min)
        })
        .filter(|d| d.is_finite())
        .collect();
    if nearest.len() < 4 {
        return None;
    }
    nearest.sort_by(f32::total_cmp);
    Some(nearest[nearest.len() / 4])
}

#[cfg(test)]
pub(crate) mod tests {
    use fenlens_fen::shakmaty::Square;

    use super::*;
    use crate::alike::outline_distance;
    use crate::alike::tests::{board_with, pawn};
    use crate::compose::compose;
    use crate::rectify::blank_cells;
    use crate::silhouette::silhouettes;

    const WHITE_PAWN: usize = 1;
    const WHITE_BISHOP: usize = 3;
    const WHITE_QUEEN: usize = 5;

    /// Display-order probabilities: on each given cell `first`, with `share` left to `second`;
    /// every other cell surely empty.
    pub(crate) fn network(read: &[(usize, usize, usize, f32)]) -> Vec<[f32; CLASSES]> {
        let mut empty = [1e-7; CLASSES];
        empty[0] = 1.0;
        let mut p = vec![empty; 64];
        for &(cell, first, second, share) in read {
            p[cell] = [1e-7; CLASSES];
            p[cell][first] = 1.0 - share;
            p[cell][second] = share;
        }
        p
    }

    /// A bishop unlike [`pawn`] everywhere but in its base: a tall block.
    pub(crate) fn bishop(x: usize, y: usize) -> bool {
        ((3..16).contains(&y) && (8..16).contains(&x))
            || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    /// White pawns drawn on a2, c2 and g2 and a white bishop on d3 (display cells 48, 50, 54
    /// and 43, all light squares), every square's grey moved by up to `grain` from pixel to
    /// pixel; all four read as pawns, the bishop's second reading a bishop or a queen.
    fn bishop_among_pawns(grain: f32, second: usize) -> (Rectified, Vec<[f32; CLASSES]>) {
        let board = board_with(|cell, x, y| {
            let back = if same_colour(cell, 0) { 0.8 } else { 0.4 };
            let shade = grain * speck(cell, x, y);
            let piece = match cell {
                48 | 50 | 54 => pawn(x, y),
                43 => bishop(x, y),
                _ => false,
            };
            Some(if piece { 0.1 } else { back } + shade)
        });
        let read = network(&[
            (48, WHITE_PAWN, WHITE_BISHOP, 1e-3),
            (50, WHITE_PAWN, WHITE_BISHOP, 1e-3),
            (54, WHITE_PAWN, WHITE_BISHOP, 1e-3),
            (43, WHITE_PAWN, second, 0.2),
        ]);
        (board, read)
    }

    /// The readings composed from `read` after [`separate_drawings`], and whether it changed
    /// any.
    fn composed_and_separated(
        board: &Rectified,
        read: &[[f32; CLASSES]],
        groups: &[Vec<usize>],
        square_pixels: f32,
    ) -> (Vec<SquareReading>, bool) {
        let outlines = silhouettes(board);
        let blank = blank_cells(board);
        let mut readings = compose(read, false);
        let drawings = Drawings {
            board,
            outlines: &outlines,
            blank: &blank,
            network: read,
            square_pixels,
        };
        let changed = separate_drawings(&mut readings, &drawings, false, groups);
        (readings, changed)
    }

    fn separated(board: &Rectified, read: &[[f32; CLASSES]], square_pixels: f32) -> Vec<usize> {
        let (readings, changed) =
            composed_and_separated(board, read, &[vec![48, 50, 54]], square_pixels);
        let classes: Vec<usize> = readings.iter().map(|r| r.class).collect();
        assert_eq!(
            changed,
            classes
                != compose(read, false)
                    .iter()
                    .map(|r| r.class)
                    .collect::<Vec<_>>()
        );
        for r in &readings {
            assert_eq!(
                r.changed,
                r.class != WHITE_PAWN && r.square == Square::D3,
                "{}",
                r.square
            );
        }
        classes
    }

    #[test]
    fn a_drawing_unlike_the_others_read_as_their_piece_is_read_again() {
        for second in [WHITE_BISHOP, WHITE_QUEEN] {
            let (board, read) = bishop_among_pawns(0.0, second);
            let before = compose(&read, false);
            assert_eq!(before[Square::D3 as usize].class, WHITE_PAWN);
            let classes = separated(&board, &read, 50.0);
            assert_eq!(classes[Square::D3 as usize], second);
            for square in [Square::A2, Square::C2, Square::G2] {
                assert_eq!(classes[square as usize], WHITE_PAWN, "{square}");
            }
        }
    }

    #[test]
    fn drawings_that_cannot_be_compared_are_left_as_they_are() {
        // Squares of 20 picture pixels (under SQUARE_PIXELS_FROM: only plainly nearest twins,
        // and a bishop among pawns of its own side has none), and a grain that makes copies of
        // one drawing differ.
        let (board, read) = bishop_among_pawns(0.0, WHITE_BISHOP);
        assert_eq!(
            separated(&board, &read, 20.0)[Square::D3 as usize],
            WHITE_PAWN
        );
        let (board, read) = bishop_among_pawns(0.6, WHITE_BISHOP);
        assert_eq!(
            separated(&board, &read, 50.0)[Square::D3 as usize],
            WHITE_PAWN
        );
    }

    /// A king: a broad bar on a thin stem on the base.
    pub(crate) fn king(x: usize, y: usize) -> bool {
        ((2..6).contains(&y) && (3..21).contains(&x))
            || ((6..16).contains(&y) && (11..13).contains(&x))
            || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    /// A queen: a broad block on the base.
    pub(crate) fn queen(x: usize, y: usize) -> bool {
        ((6..16).contains(&y) && (5..19).contains(&x))
            || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    /// A first-rank drawing: its file, its shape, and what the network reads on it (first
    /// class, second class, the second's share).
    type FirstRank = (usize, Shape, (usize, usize, f32));

    /// The display cell of a square given by file and rank (both from 0).
    pub(crate) fn cell(file: usize, rank: usize) -> usize {
        (7 - rank) * 8 + file
    }

    /// A game's opening look: white pawns on the second rank from a2 to `last_pawn_file` (each
    /// read as `white_pawn_read` says for its file), black pawns on the seventh, the black king
    /// on e8, and the white `first_rank` drawings. Returns
    /// the board, the readings composed from the network, the drawings' groups (each side's
    /// pawns) and the network's probabilities.
    fn opening(
        last_pawn_file: usize,
        first_rank: &[FirstRank],
        white_pawn_read: &dyn Fn(usize) -> (usize, usize, f32),
    ) -> (Rectified, Vec<Vec<usize>>, Vec<[f32; CLASSES]>) {
        const BLACK_PAWN: usize = 7;
        const BLACK_KING: usize = 12;
        let white_pawns: Vec<usize> = (0..=last_pawn_file).map(|f| cell(f, 1)).collect();
        let black_pawns: Vec<usize> = (0..8).map(|f| cell(f, 6)).collect();
        let board = board_with(|c, x, y| {
            if white_pawns.contains(&c) {
                return pawn(x, y).then_some(0.95);
            }
            if black_pawns.contains(&c) {
                return pawn(x, y).then_some(0.1);
            }
            if c == cell(4, 7) {
                return king(x, y).then_some(0.1);
            }
            first_rank
                .iter()
                .find(|(file, ..)| cell(*file, 0) == c)
                .and_then(|(_, shape, _)| shape(x, y).then_some(0.95))
        });
        let mut read: Vec<(usize, usize, usize, f32)> = Vec::new();
        for (f, &c) in white_pawns.iter().enumerate() {
            let (first, second, share) = white_pawn_read(f);
            read.push((c, first, second, share));
        }
        read.extend(
            black_pawns
                .iter()
                .map(|&c| (c, BLACK_PAWN, BLACK_KING, 1e-3)),
        );
        read.push((cell(4, 7), BLACK_KING, BLACK_PAWN, 1e-3));
        for &(file, _, (first, second, share)) in first_rank {
            read.push((cell(file, 0), first, second, share));
        }
        (board, vec![white_pawns, black_pawns], network(&read))
    }

    /// The classes after [`separate_drawings`] (readings' order), and the squares it marked
    /// changed.
    fn after_separation(
        board: &Rectified,
        groups: &[Vec<usize>],
        read: &[[f32; CLASSES]],
    ) -> (Vec<usize>, Vec<Square>) {
        let (readings, _) = composed_and_separated(board, read, groups, 50.0);
        let changed = readings
            .iter()
            .filter(|r| r.changed)
            .map(|r| r.square)
            .collect();
        (readings.iter().map(|r| r.class).collect(), changed)
    }

    const WHITE_KING: usize = 6;

    #[test]
    fn a_drawing_read_as_another_s_piece_takes_it_while_that_one_moves_on() {
        // A font's bishop on c1 read as the king, its king on e1 as a queen like the one on d1.
        let first_rank: [FirstRank; 3] = [
            (2, bishop, (WHITE_KING, WHITE_BISHOP, 0.05)),
            (3, queen, (WHITE_QUEEN, WHITE_KING, 1e-3)),
            (4, king, (WHITE_QUEEN, WHITE_KING, 0.05)),
        ];
        let (board, groups, read) = opening(5, &first_rank, &|_| (WHITE_PAWN, WHITE_BISHOP, 1e-3));
        let before: Vec<usize> = compose(&read, false).iter().map(|r| r.class).collect();
        assert_eq!(before[Square::C1 as usize], WHITE_KING);
        assert_eq!(before[Square::E1 as usize], WHITE_QUEEN);
        let (classes, changed) = after_separation(&board, &groups, &read);
        assert_eq!(classes[Square::C1 as usize], WHITE_BISHOP);
        assert_eq!(classes[Square::D1 as usize], WHITE_QUEEN);
        assert_eq!(classes[Square::E1 as usize], WHITE_KING);
        assert_eq!(changed, [Square::C1, Square::E1]);
    }

    #[test]
    fn copies_of_one_drawing_read_as_two_pieces_take_one_again() {
        // The pawn on a2 read as a bishop, the same drawing on c2 to g2 as pawns.
        let first_rank: [FirstRank; 1] = [(4, king, (WHITE_KING, WHITE_QUEEN, 1e-3))];
        let a2_as_bishop = |file: usize| match file {
            0 => (WHITE_BISHOP, WHITE_PAWN, 0.3),
            _ => (WHITE_PAWN, WHITE_BISHOP, 1e-3),
        };
        let (board, groups, read) = opening(7, &first_rank, &a2_as_bishop);
        assert_eq!(
            compose(&read, false)[Square::A2 as usize].class,
            WHITE_BISHOP
        );
        let (classes, changed) = after_separation(&board, &groups, &read);
        assert_eq!(classes[Square::A2 as usize], WHITE_PAWN);
        assert_eq!(changed, [Square::A2]);
    }

    #[test]
    fn copies_of_one_drawing_read_in_two_colours_take_one() {
        // White's rooks on a1 and h1, one drawing (the queen's shape stands in for a rook),
        // h1 read as Black's (White's at 0.3): both are White's again.
        const WHITE_ROOK: usize = 4;
        const BLACK_ROOK: usize = 10;
        let first_rank: [FirstRank; 3] = [
            (0, queen, (WHITE_ROOK, BLACK_ROOK, 1e-3)),
            (4, king, (WHITE_KING, WHITE_QUEEN, 1e-3)),
            (7, queen, (BLACK_ROOK, WHITE_ROOK, 0.3)),
        ];
        let pawns = |_: usize| (WHITE_PAWN, WHITE_BISHOP, 1e-3);
        let (board, mut groups, read) = opening(7, &first_rank, &pawns);
        groups.push(vec![cell(0, 0), cell(7, 0)]);
        assert_eq!(compose(&read, false)[Square::H1 as usize].class, BLACK_ROOK);
        let (classes, changed) = after_separation(&board, &groups, &read);
        assert_eq!(classes[Square::H1 as usize], WHITE_ROOK);
        assert_eq!(classes[Square::A1 as usize], WHITE_ROOK);
        assert_eq!(changed, [Square::H1]);
    }

    #[test]
    fn copies_read_in_two_colours_off_a_game_take_the_colour_most_of_them_hold() {
        // Kings on b6 and g3; one drawing of Black's queen on c6, h5 and b3, squares of one
        // colour, in a position no game reaches.
        let (white_king, black_king) = (cell(1, 5), cell(6, 2));
        let copies = [cell(2, 5), cell(7, 4), cell(1, 2)];
        let kings = [(white_king, WHITE_KING), (black_king, BLACK_KING)];
        let drawn = |extra: &[usize]| {
            let mut pieces = vec![
                (white_king, (king as Shape, 0.95)),
                (black_king, (king as Shape, 0.1)),
            ];
            pieces.extend(
                copies
                    .iter()
                    .chain(extra)
                    .map(|&c| (c, (queen as Shape, 0.1))),
            );
            flat_board(&pieces)
        };
        let not_game_like = |read: &[[f32; CLASSES]]| {
            prior::game_likeness(&placement(&compose(read, false))) < prior::GAME_LIKE_FROM
        };
        // Two read as Black's surely, h5 as White's with Black's at 0.3: h5 is Black's again.
        let mut read: Vec<(usize, usize, usize, f32)> = kings
            .iter()
            .map(|&(c, k)| (c, k, WHITE_QUEEN, 1e-3))
            .collect();
        read.push((copies[0], BLACK_QUEEN, WHITE_QUEEN, 1e-3));
        read.push((copies[1], WHITE_QUEEN, BLACK_QUEEN, 0.3));
        read.push((copies[2], BLACK_QUEEN, WHITE_QUEEN, 1e-3));
        let read = network(&read);
        assert!(not_game_like(&read));
        assert_eq!(
            compose(&read, false)[Square::H5 as usize].class,
            WHITE_QUEEN
        );
        let groups = vec![copies.to_vec()];
        let (classes, changed) = after_separation(&drawn(&[]), &groups, &read);
        for square in [Square::C6, Square::H5, Square::B3] {
            assert_eq!(classes[square as usize], BLACK_QUEEN, "{square}");
        }
        assert_eq!(changed, [Square::H5]);
        // All three read as Black's with White's at 0.3, a fourth copy on g2 as White's surely:
        // the three, cheaper to change, do not take the colour of the one.
        let g2 = cell(6, 1);
        let mut read: Vec<(usize, usize, usize, f32)> = kings
            .iter()
            .map(|&(c, k)| (c, k, WHITE_QUEEN, 1e-3))
            .collect();
        read.extend(copies.iter().map(|&c| (c, BLACK_QUEEN, WHITE_QUEEN, 0.3)));
        read.push((g2, WHITE_QUEEN, BLACK_QUEEN, 1e-3));
        let read = network(&read);
        assert!(not_game_like(&read));
        let groups = vec![copies.iter().copied().chain([g2]).collect::<Vec<usize>>()];
        let (classes, changed) = after_separation(&drawn(&[g2]), &groups, &read);
        for square in [Square::C6, Square::H5, Square::B3] {
            assert_eq!(classes[square as usize], BLACK_QUEEN, "{square}");
        }
        assert!(changed.is_empty(), "{changed:?}");
    }

    /// A flat board with the given pieces drawn ([`grained_board`] without grain), each at
    /// its display cell.
    fn flat_board(pieces: &[(usize, Drawn)]) -> Rectified {
        grained_board(0.0, |c| {
            pieces
                .iter()
                .find(|&&(cell, _)| cell == c)
                .map(|&(_, drawing)| drawing)
        })
    }

    #[test]
    fn a_piece_drawn_like_a_piece_of_the_other_side_takes_its_role() {
        const BLACK_KNIGHT: usize = 8;
        const BLACK_BISHOP: usize = 9;
        // White pawns on a2, c2, e2 and g2 and a white bishop on c1, read surely; on f5 a black
        // piece read as a knight (a bishop at 0.3), drawn with the white bishop's outline or
        // with a queen's.
        let white_pawns = [cell(0, 1), cell(2, 1), cell(4, 1), cell(6, 1)];
        let (c1, f5) = (cell(2, 0), cell(5, 4));
        let shapes: [(Shape, usize); 2] = [(bishop, BLACK_BISHOP), (queen, BLACK_KNIGHT)];
        for (f5_shape, f5_after) in shapes {
            let mut pieces: Vec<(usize, Drawn)> = white_pawns
                .iter()
                .map(|&c| (c, (pawn as Shape, 0.95)))
                .collect();
            pieces.extend([(c1, (bishop as Shape, 0.95)), (f5, (f5_shape, 0.1))]);
            let board = flat_board(&pieces);
            let mut read: Vec<(usize, usize, usize, f32)> = white_pawns
                .iter()
                .map(|&c| (c, WHITE_PAWN, WHITE_BISHOP, 1e-3))
                .collect();
            read.push((c1, WHITE_BISHOP, WHITE_PAWN, 1e-3));
            read.push((f5, BLACK_KNIGHT, BLACK_BISHOP, 0.3));
            let read = network(&read);
            assert_eq!(
                compose(&read, false)[Square::F5 as usize].class,
                BLACK_KNIGHT
            );
            let (classes, changed) = after_separation(&board, &[white_pawns.to_vec()], &read);
            assert_eq!(classes[Square::F5 as usize], f5_after);
            let moved: &[Square] = if f5_after == BLACK_BISHOP {
                &[Square::F5]
            } else {
                &[]
            };
            assert_eq!(changed, moved);
        }
    }

    /// Black pawns on b7, d7, f7 and h7 read surely; on f5 (a square of their colour) a black
    /// bishop read as a pawn, the network's next choice the knight (0.35, the bishop 0.05); on
    /// c1 a white piece of `c1_shape` read as `c1_read` says (first class, second class, the
    /// second's share). Returns the board, the pawns' group and the network's probabilities.
    fn bishop_among_black_pawns(
        c1_shape: Shape,
        c1_read: (usize, usize, f32),
    ) -> (Rectified, Vec<Vec<usize>>, Vec<[f32; CLASSES]>) {
        let black_pawns = [cell(1, 6), cell(3, 6), cell(5, 6), cell(7, 6)];
        let (c1, f5) = (cell(2, 0), cell(5, 4));
        let mut pieces: Vec<(usize, Drawn)> = black_pawns
            .iter()
            .map(|&c| (c, (pawn as Shape, 0.1)))
            .collect();
        pieces.extend([(f5, (bishop as Shape, 0.1)), (c1, (c1_shape, 0.95))]);
        let mut read: Vec<(usize, usize, usize, f32)> = black_pawns
            .iter()
            .map(|&c| (c, BLACK_PAWN, BLACK_KNIGHT, 1e-3))
            .collect();
        let (first, second, share) = c1_read;
        read.push((c1, first, second, share));
        let mut read = network(&read);
        read[f5] = [1e-7; CLASSES];
        read[f5][BLACK_PAWN] = 0.6;
        read[f5][BLACK_KNIGHT] = 0.35;
        read[f5][BLACK_BISHOP] = 0.05;
        assert_eq!(compose(&read, false)[Square::F5 as usize].class, BLACK_PAWN);
        (flat_board(&pieces), vec![black_pawns.to_vec()], read)
    }

    #[test]
    fn a_piece_apart_from_its_copies_takes_its_twin_s_role_over_the_network_s_next_choice() {
        // Beside a white bishop of its outline f5 takes the bishop; beside a white piece of
        // another outline, the knight the network puts second.
        let shapes: [(Shape, usize); 2] = [(bishop, BLACK_BISHOP), (queen, BLACK_KNIGHT)];
        for (c1_shape, f5_after) in shapes {
            let c1_read = (WHITE_BISHOP, WHITE_PAWN, 1e-3);
            let (board, groups, read) = bishop_among_black_pawns(c1_shape, c1_read);
            let (classes, changed) = after_separation(&board, &groups, &read);
            assert_eq!(classes[Square::F5 as usize], f5_after);
            assert_eq!(classes[Square::C1 as usize], WHITE_BISHOP);
            assert_eq!(changed, [Square::F5]);
        }
    }

    #[test]
    fn on_a_doubted_design_a_piece_takes_its_twin_s_role_at_a_greater_network_cost() {
        // f5's bishop at 1e-3 (pawn 0.649, knight 0.35): its white twin's role costs the
        // network ln(0.649 / 1e-3) = 6.5, and a black bishop stands on f5 in fewer games than
        // a pawn. More than a move may lose where the black pawns are read surely, less than
        // where they are doubted (a knight at 0.2 on each: with f5, five uncertain pieces).
        let black_pawns = [cell(1, 6), cell(3, 6), cell(5, 6), cell(7, 6)];
        let pawn_squares = [Square::B7, Square::D7, Square::F7, Square::H7];
        let f5 = cell(5, 4);
        for (pawns_doubt, f5_after) in [(1e-3, BLACK_PAWN), (0.2, BLACK_BISHOP)] {
            let c1_read = (WHITE_BISHOP, WHITE_PAWN, 1e-3);
            let (board, groups, mut read) = bishop_among_black_pawns(bishop, c1_read);
            for &c in &black_pawns {
                read[c][BLACK_PAWN] = 1.0 - pawns_doubt;
                read[c][BLACK_KNIGHT] = pawns_doubt;
            }
            read[f5][BLACK_PAWN] = 0.649;
            read[f5][BLACK_BISHOP] = 1e-3;
            let composed = compose(&read, false);
            assert_eq!(composed[Square::F5 as usize].class, BLACK_PAWN);
            assert_eq!(design_doubted(&composed), pawns_doubt > 0.1);
            assert_alone_taken(
                after_separation(&board, &groups, &read),
                (Square::F5, BLACK_PAWN, f5_after),
                (&pawn_squares, BLACK_PAWN),
            );
        }
    }

    /// Asserts that, of the separated `(classes, changed)`, the `square` read `before` holds
    /// `after` and is marked changed only where the two differ, while the `kept` squares
    /// still hold their class and no other square is marked.
    fn assert_alone_taken(
        (classes, changed): (Vec<usize>, Vec<Square>),
        (square, before, after): (Square, usize, usize),
        (kept, kept_class): (&[Square], usize),
    ) {
        assert_eq!(classes[square as usize], after, "{square}");
        for &k in kept {
            assert_eq!(classes[k as usize], kept_class, "{k}");
        }
        let moved: &[Square] = if after == before { &[] } else { &[square] };
        assert_eq!(changed, moved);
    }

    #[test]
    fn on_a_doubted_design_a_lone_piece_takes_the_role_of_its_twins_copies() {
        // White pawns on a2, c2, e2 and g2; on h3 a black pawn of their outline read as a
        // bishop (a pawn at 1e-3): taking the pawns' role costs the network ln(0.999 / 1e-3)
        // = 6.9, more than a move may lose where the white pawns are read surely, less than
        // where they are doubted (a bishop at 0.2 on each: with h3, five uncertain pieces).
        let white_pawns = [cell(0, 1), cell(2, 1), cell(4, 1), cell(6, 1)];
        let h3 = cell(7, 2);
        let mut pieces: Vec<(usize, Drawn)> = white_pawns
            .iter()
            .map(|&c| (c, (pawn as Shape, 0.95)))
            .collect();
        pieces.push((h3, (pawn as Shape, 0.1)));
        let board = flat_board(&pieces);
        for (pawns_doubt, h3_after) in [(1e-3, BLACK_BISHOP), (0.2, BLACK_PAWN)] {
            let mut read: Vec<(usize, usize, usize, f32)> = white_pawns
                .iter()
                .map(|&c| (c, WHITE_PAWN, WHITE_BISHOP, pawns_doubt))
                .collect();
            read.push((h3, BLACK_BISHOP, BLACK_PAWN, 1e-3));
            let read = network(&read);
            let composed = compose(&read, false);
            assert_eq!(composed[Square::H3 as usize].class, BLACK_BISHOP);
            assert_eq!(design_doubted(&composed), pawns_doubt > 0.1);
            assert_alone_taken(
                after_separation(&board, &[white_pawns.to_vec()], &read),
                (Square::H3, BLACK_BISHOP, h3_after),
                (
                    &[Square::A2, Square::C2, Square::E2, Square::G2],
                    WHITE_PAWN,
                ),
            );
        }
    }

    #[test]
    fn a_piece_and_its_twin_read_in_two_wrong_roles_take_a_third_together() {
        // The white bishop on c1, f5's twin, read as a queen (a bishop at 0.3): neither the
        // pawn's role nor the queen's fits both, the bishop's does.
        let (board, groups, read) =
            bishop_among_black_pawns(bishop, (WHITE_QUEEN, WHITE_BISHOP, 0.3));
        assert_eq!(
            compose(&read, false)[Square::C1 as usize].class,
            WHITE_QUEEN
        );
        let (classes, changed) = after_separation(&board, &groups, &read);
        assert_eq!(classes[Square::F5 as usize], BLACK_BISHOP);
        assert_eq!(classes[Square::C1 as usize], WHITE_BISHOP);
        assert_eq!(changed, [Square::C1, Square::F5]);
    }

    #[test]
    fn a_doubted_design_drawn_flat_is_measured_against_its_own_spread_of_copies() {
        // Pawns on a2, c2 and g2 whose grain puts them 0.07 apart (over COPIES_WITHIN, under
        // DOUBTED_COPIES_WITHIN), and a king on d3 0.47 from them, all read as pawns. The grain
        // lies on the pieces' squares alone (a flat drawing whose pieces are shaded) or on
        // every square (a photograph's noise).
        let grain = 0.15;
        let board = |grain_everywhere: bool| {
            board_with(|cell, x, y| {
                let back = if same_colour(cell, 0) { 0.8 } else { 0.4 };
                let piece = match cell {
                    48 | 50 | 54 => pawn(x, y),
                    43 => king(x, y),
                    _ => false,
                };
                let grained = grain_everywhere || matches!(cell, 43 | 48 | 50 | 54);
                let shade = if grained {
                    grain * speck(cell, x, y)
                } else {
                    0.0
                };
                Some(if piece { 0.1 } else { back } + shade)
            })
        };
        // Pawns read at 0.8 make the design doubted; pawns read surely do not. Only a doubted
        // design drawn flat is measured against its own spread.
        for (pawn_share, grain_everywhere, d3) in [
            (0.2, false, WHITE_QUEEN),
            (1e-3, false, WHITE_PAWN),
            (0.2, true, WHITE_PAWN),
        ] {
            let board = board(grain_everywhere);
            let outlines = silhouettes(&board);
            let read = network(&[
                (48, WHITE_PAWN, WHITE_BISHOP, pawn_share),
                (50, WHITE_PAWN, WHITE_BISHOP, pawn_share),
                (54, WHITE_PAWN, WHITE_BISHOP, pawn_share),
                (43, WHITE_PAWN, WHITE_QUEEN, 0.2),
            ]);
            let mut readings = compose(&read, false);
            assert_eq!(readings[Square::D3 as usize].class, WHITE_PAWN);
            let blank = blank_cells(&board);
            let drawings = Drawings {
                board: &board,
                outlines: &outlines,
                blank: &blank,
                network: &read,
                square_pixels: 50.0,
            };
            separate_drawings(&mut readings, &drawings, false, &[vec![48, 50, 54]]);
            assert_eq!(
                readings[Square::D3 as usize].class,
                d3,
                "pawns at {pawn_share}, grain everywhere: {grain_everywhere}"
            );
        }
    }

    /// White pawns on a2, c2, e2 and g2 and a white bishop on c1, read surely; on f5 a black
    /// piece drawn with the bishop's outline, read as a knight (a bishop at 0.3); and, where
    /// `king_on_d3`, a white king's drawing on d3 read as a pawn (a queen at 0.2). The empty
    /// squares are grained by `square_grain` (a texture) and the pieces by `piece_grain` (a
    /// shaded drawing). Returns the board, the network's probabilities and the groups (the
    /// pawns').
    fn bishop_twins(
        square_grain: f32,
        piece_grain: f32,
        king_on_d3: bool,
    ) -> (Rectified, Vec<[f32; CLASSES]>, Vec<Vec<usize>>) {
        let white_pawns = vec![cell(0, 1), cell(2, 1), cell(4, 1), cell(6, 1)];
        let (c1, d3, f5) = (cell(2, 0), cell(3, 2), cell(5, 4));
        let board = board_with(|c, x, y| {
            let back = if same_colour(c, 0) { 0.8 } else { 0.4 };
            let grain = speck(c, x, y);
            let piece = if white_pawns.contains(&c) {
                pawn(x, y).then_some(0.9)
            } else if c == c1 {
                bishop(x, y).then_some(0.9)
            } else if c == d3 && king_on_d3 {
                king(x, y).then_some(0.9)
            } else if c == f5 {
                bishop(x, y).then_some(0.15)
            } else {
                return Some(back + square_grain * grain);
            };
            Some(piece.map_or(back, |p| p + piece_grain * grain))
        });
        let mut read: Vec<(usize, usize, usize, f32)> = white_pawns
            .iter()
            .map(|&c| (c, WHITE_PAWN, WHITE_BISHOP, 1e-3))
            .collect();
        read.push((c1, WHITE_BISHOP, WHITE_PAWN, 1e-3));
        if king_on_d3 {
            read.push((d3, WHITE_PAWN, WHITE_QUEEN, 0.2));
        }
        read.push((f5, BLACK_KNIGHT, BLACK_BISHOP, 0.3));
        (board, network(&read), vec![white_pawns])
    }

    const BLACK_PAWN: usize = 7;
    const BLACK_KNIGHT: usize = 8;
    const BLACK_BISHOP: usize = 9;
    const BLACK_KING: usize = 12;
    const BLACK_QUEEN: usize = 11;

    /// Whether a board is drawn flat as [`separate_drawings`] finds it.
    fn flat(board: &Rectified, read: &[[f32; CLASSES]]) -> bool {
        let cells: Vec<usize> = Square::ALL
            .iter()
            .map(|&s| display_index(s, false))
            .collect();
        drawn_flat(&blank_cells(board), &compose(read, false), &cells)
    }

    #[test]
    fn on_large_squares_of_a_board_not_drawn_flat_twins_are_told_by_their_outlines() {
        // A textured board: no empty square shows one flat grey. From
        // TWINS_UNFLAT_PIXELS_FROM the knight drawn as c1's bishop takes its twin's role.
        let (board, read, groups) = bishop_twins(0.15, 0.0, false);
        assert!(!flat(&board, &read));
        let (readings, changed) = composed_and_separated(&board, &read, &groups, 80.0);
        assert_eq!(readings[Square::F5 as usize].class, BLACK_BISHOP);
        assert!(changed);
        for r in &readings {
            assert_eq!(r.changed, r.square == Square::F5, "{}", r.square);
        }
        // Under it, on a design the classifier reads surely, only plainly nearest twins of
        // which neither holds a pawn count: the piece on d5 drawn as the pawns are takes their
        // role on large squares only.
        let (board, read, groups) = pawn_twin_look(1e-3);
        assert!(!flat(&board, &read));
        for (square_pixels, d5_after) in [(50.0, BLACK_BISHOP), (80.0, BLACK_PAWN)] {
            let (readings, changed) = composed_and_separated(&board, &read, &groups, square_pixels);
            assert_eq!(
                readings[Square::D5 as usize].class,
                d5_after,
                "{square_pixels}"
            );
            assert_eq!(changed, d5_after == BLACK_PAWN);
        }
    }

    #[test]
    fn where_copies_repeat_too_loosely_twins_alone_move() {
        // A flat board whose pieces are shaded: copies of one drawing differ by more than
        // COPIES_WITHIN, so the king on d3, read as a pawn, cannot be told from the pawns by its
        // pixels and keeps its reading; the outlines still tell the knight on f5 its role.
        let (board, read, groups) = bishop_twins(0.0, 0.15, true);
        assert!(flat(&board, &read));
        let (readings, changed) = composed_and_separated(&board, &read, &groups, 50.0);
        assert_eq!(readings[Square::F5 as usize].class, BLACK_BISHOP);
        assert_eq!(readings[Square::D3 as usize].class, WHITE_PAWN);
        assert!(changed);
        // With the drawings unshaded, the pixels tell the king from the pawns.
        let (board, read, groups) = bishop_twins(0.0, 0.0, true);
        let (readings, _) = composed_and_separated(&board, &read, &groups, 50.0);
        assert_eq!(readings[Square::F5 as usize].class, BLACK_BISHOP);
        assert_eq!(readings[Square::D3 as usize].class, WHITE_QUEEN);
    }

    /// A bishop a pixel wider on each side than [`bishop`]: the same role drawn a little
    /// otherwise, as a design's hollow white piece and its filled black one.
    fn broad_bishop(x: usize, y: usize) -> bool {
        ((3..16).contains(&y) && (7..17).contains(&x))
            || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    /// A game's look: both sides' pawns on their second ranks, the kings on e1 and e8, White's
    /// bishop on c1, and on c8 a black piece drawn as `c8_shape`; the empty squares carry a
    /// texture's grain of `grain` (0: flat).
    fn game_look(c8_shape: Shape, grain: f32) -> Rectified {
        grained_board(grain, |c| match (c % 8, 7 - c / 8) {
            (2, 0) => Some((bishop, 0.9)),
            (2, 7) => Some((c8_shape, 0.15)),
            (4, 0) => Some((king, 0.9)),
            (4, 7) => Some((king, 0.15)),
            (_, 1) => Some((pawn, 0.9)),
            (_, 6) => Some((pawn, 0.15)),
            _ => None,
        })
    }

    /// A piece's shape in a cell (column, row).
    type Shape = fn(usize, usize) -> bool;

    /// A piece's drawing: its shape and its grey.
    type Drawn = (Shape, f32);

    /// A board whose cells `drawn` gives a piece show it on a flat square; the other squares
    /// carry a texture's grain of `grain` (0: flat).
    fn grained_board(grain: f32, drawn: impl Fn(usize) -> Option<Drawn>) -> Rectified {
        board_with(|c, x, y| {
            let back = if same_colour(c, 0) { 0.8 } else { 0.4 };
            Some(match drawn(c) {
                Some((shape, grey)) if shape(x, y) => grey,
                Some(_) => back,
                None => back + grain * speck(c, x, y),
            })
        })
    }

    /// A texture's grain at pixel (x, y) of display cell `cell`: a fixed pattern in -0.5..0.5.
    fn speck(cell: usize, x: usize, y: usize) -> f32 {
        ((cell * 31 + x * 7 + y * 13) % 11) as f32 / 10.0 - 0.5
    }

    /// [`game_look`]'s readings: every piece read surely, but White's pawns on a2, c2 and e2
    /// with a bishop at `pawn_doubt`, and the piece on c8 as a knight with a bishop at 0.3;
    /// and the pawns' two groups.
    fn game_look_read(pawn_doubt: f32) -> (Vec<[f32; CLASSES]>, Vec<Vec<usize>>) {
        let mut read: Vec<(usize, usize, usize, f32)> = (0..8)
            .flat_map(|f| {
                let white = if [0, 2, 4].contains(&f) {
                    pawn_doubt
                } else {
                    1e-3
                };
                [
                    (cell(f, 1), WHITE_PAWN, WHITE_BISHOP, white),
                    (cell(f, 6), BLACK_PAWN, BLACK_BISHOP, 1e-3),
                ]
            })
            .collect();
        read.extend([
            (cell(2, 0), WHITE_BISHOP, WHITE_PAWN, 1e-3),
            (cell(4, 0), WHITE_KING, WHITE_QUEEN, 1e-3),
            (cell(4, 7), BLACK_KING, BLACK_BISHOP, 1e-3),
            (cell(2, 7), BLACK_KNIGHT, BLACK_BISHOP, 0.3),
        ]);
        let groups = vec![
            (0..8).map(|f| cell(f, 1)).collect(),
            (0..8).map(|f| cell(f, 6)).collect(),
        ];
        (network(&read), groups)
    }

    /// The class c8 holds and whether the separation changed anything, on squares too small
    /// for the copies' pixels to be compared and on squares of 50 pixels: (square pixels, class,
    /// changed) for each.
    fn c8_small_and_large(
        board: &Rectified,
        read: &[[f32; CLASSES]],
        groups: &[Vec<usize>],
    ) -> [(f32, usize, bool); 2] {
        [SQUARE_PIXELS_FROM - 10.0, 50.0].map(|square_pixels| {
            let (readings, changed) = composed_and_separated(board, read, groups, square_pixels);
            (square_pixels, readings[Square::C8 as usize].class, changed)
        })
    }

    #[test]
    fn on_small_squares_of_a_board_not_drawn_flat_a_piece_takes_its_plainly_nearest_twin() {
        // On a textured board of 50-pixel squares (and of squares too small for the copies'
        // pixels to be compared) the piece on c8, drawn as a broad bishop, takes its role from
        // c1's bishop, where White's pawns on a2, c2 and e2 read unsurely (four unsure pieces: a
        // doubted design) and where they read surely.
        let board = game_look(broad_bishop, 0.15);
        for doubted in [true, false] {
            let (read, groups) = game_look_read(if doubted { 0.3 } else { 1e-3 });
            assert!(!flat(&board, &read));
            assert_eq!(design_doubted(&compose(&read, false)), doubted);
            for (square_pixels, c8, changed) in c8_small_and_large(&board, &read, &groups) {
                assert_eq!(c8, BLACK_BISHOP, "{doubted} {square_pixels}");
                assert!(changed);
            }
        }
    }

    /// A sparse game on a textured board: the kings on e1 and e8, White's pawns on a2, b2 and
    /// c2, Black's on a7 and b7, and on d5 a black piece drawn as a pawn, read as a bishop (a
    /// pawn at 0.3); White's pawns read with a bishop at `pawn_doubt`. Returns the board, the
    /// network's readings and the two sides' pawns as groups.
    fn pawn_twin_look(pawn_doubt: f32) -> (Rectified, Vec<[f32; CLASSES]>, Vec<Vec<usize>>) {
        let white_pawns: Vec<usize> = (0..3).map(|f| cell(f, 1)).collect();
        let black_pawns: Vec<usize> = (0..2).map(|f| cell(f, 6)).collect();
        let d5 = cell(3, 4);
        let board = grained_board(0.15, |c| {
            if white_pawns.contains(&c) {
                Some((pawn, 0.9))
            } else if black_pawns.contains(&c) || c == d5 {
                Some((pawn, 0.15))
            } else if c == cell(4, 0) {
                Some((king, 0.9))
            } else if c == cell(4, 7) {
                Some((king, 0.15))
            } else {
                None
            }
        });
        let mut read: Vec<(usize, usize, usize, f32)> = white_pawns
            .iter()
            .map(|&c| (c, WHITE_PAWN, WHITE_BISHOP, pawn_doubt))
            .collect();
        read.extend(
            black_pawns
                .iter()
                .map(|&c| (c, BLACK_PAWN, BLACK_BISHOP, 1e-3)),
        );
        read.extend([
            (d5, BLACK_BISHOP, BLACK_PAWN, 0.3),
            (cell(4, 0), WHITE_KING, WHITE_QUEEN, 1e-3),
            (cell(4, 7), BLACK_KING, BLACK_QUEEN, 1e-3),
        ]);
        (board, network(&read), vec![white_pawns, black_pawns])
    }

    #[test]
    fn on_small_squares_of_a_board_not_drawn_flat_a_pawn_s_twin_counts_only_on_a_doubted_design() {
        // The piece on d5, drawn as the pawns are and read as a bishop, has White's pawns for
        // its plainly nearest outlines. It takes their role where the design is doubted, and
        // keeps its reading where it is not: on small textured squares a design the classifier
        // reads surely tells its pawns from its bishops better than their outlines do.
        for doubted in [true, false] {
            let (board, read, groups) = pawn_twin_look(if doubted { 0.3 } else { 1e-3 });
            let readings = compose(&read, false);
            assert!(!flat(&board, &read));
            assert_eq!(design_doubted(&readings), doubted);
            assert!(prior::game_likeness(&placement(&readings)) >= prior::GAME_LIKE_FROM);
            let (readings, changed) = composed_and_separated(&board, &read, &groups, 50.0);
            let d5_after = if doubted { BLACK_PAWN } else { BLACK_BISHOP };
            assert_eq!(readings[Square::D5 as usize].class, d5_after, "{doubted}");
            assert_eq!(changed, doubted);
        }
    }

    #[test]
    fn a_piece_takes_the_role_of_its_plainly_nearest_outline_of_the_other_side() {
        // On a flat board the piece on c8 read as a knight (a bishop at 0.3), drawn as a broad
        // bishop (its outline over TWINS_BELOW from c1's, far nearer it than any other piece)
        // or as a queen (near none).
        let (c1, c8) = (cell(2, 0), cell(2, 7));
        let (read, groups) = game_look_read(1e-3);
        for (c8_shape, c8_after) in [(broad_bishop as Shape, BLACK_BISHOP), (queen, BLACK_KNIGHT)] {
            let board = game_look(c8_shape, 0.0);
            let outlines = silhouettes(&board);
            let apart = |a: usize, b: usize| match (&outlines[a], &outlines[b]) {
                (Some(a), Some(b)) => outline_distance(a, b),
                _ => f32::INFINITY,
            };
            assert!(apart(c8, c1) > TWINS_BELOW, "{}", apart(c8, c1));
            // Also on squares too small for the copies' pixels to be compared.
            for (square_pixels, c8, changed) in c8_small_and_large(&board, &read, &groups) {
                assert_eq!(c8, c8_after, "{square_pixels}");
                assert_eq!(changed, c8_after == BLACK_BISHOP);
            }
        }
    }
}
