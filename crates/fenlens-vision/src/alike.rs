//! Alike: one design draws the same piece the same way on every square.
//!
//! Within one picture, two white pawns on light squares are the same drawing on the same
//! background, so their pixels agree nearly exactly, while a pawn and a bishop, or a white and a
//! black pawn, differ somewhere. A classifier that has not seen the design reads some copies of a
//! piece surely and others with doubt (a pawn half taken for a bishop); the sure copies can speak
//! for the doubtful ones.
//!
//! Two squares of the same colour, both holding a silhouette ([`crate::silhouette`]), are alike
//! when their pixels differ by less than [`ALIKE_BELOW`] of the pieces' contrast against the
//! squares (best of nine alignments a pixel apart, since the grid can fall between pixels).
//! Squares of the two colours are compared by their silhouettes ([`cross_distance`]): the
//! share of the two outlines' union that only one covers, plus how far the pixels both cover
//! differ (an opaque drawing's pixels are the same on any background). Under
//! [`CROSS_ALIKE_BELOW`] they join the same group (twenty-first session). With the true corners
//! and pieces (`cargo run --release -p fenlens-vision --example likeness_across DIR`), pairs of
//! squares of two colours holding the same piece fall under it 42% of the time on clean
//! screenshots of the held-out lichess sets (seed 2026), 57% on the foreign designs, 37% on the
//! chess fonts, 3-16% in photographs and small pictures; of about 230,000 pairs holding different
//! pieces none did on the lichess sets or the foreign designs, 12 on the fonts (8 in small
//! pictures). Before, measuring a drawing's pixels against two backgrounds (allowing for its
//! see-through rim) had linked fewer pairs and read no more boards.
//! Since the thirty-first session squares of two colours are also linked under
//! [`TOLERANT_ALIKE_BELOW`] of [`tolerant_cross_distance`], which forgives outlines a pixel
//! apart and leaves the anti-aliased rim out of the pixels compared (a drawing's rim takes the
//! colour of the square it stands on). With the true corners and pieces (`cargo run --release
//! -p fenlens-vision --example group_recall DIR`), the share of same-piece pairs that end in one
//! group on clean screenshots rose from 66% to 94% on the chess fonts, 77% to 86% on the foreign
//! designs and 70% to 91% on the held-out lichess designs (screenshots 55 / 71 / 62% to 83 / 80 /
//! 82%, photographs and small pictures 2-10 points), while pairs of different pieces put in one
//! group went from 58 to 100 on the fonts' clean screenshots (of about 12,000), 20 to 22 on the
//! foreign designs', none to none on the lichess designs'. Squares whose readings overlap
//! ([`READINGS_OVERLAP`]) are linked up to [`LOOSE_ALIKE_BELOW`] ([`groups_read`]): pairs just
//! over the tighter threshold are mostly copies of one drawing, and where the network half
//! agrees with itself about them a wrong link costs little, while two squares it reads surely
//! as different pieces stay apart.
//! Since the forty-fifth session two squares are also linked, whatever their pixels, where the
//! networks see them alike: the cosine of the leading members' hidden units on them (what the
//! networks see in a square before they name its class,
//! [`crate::classify::BoardReading::units`]) is at least [`UNITS_ALIKE_FROM`]. The networks
//! were trained to see a piece past hatching, highlights, arrows, uneven light and a
//! neighbour's edge in the crop, which keep copies' pixels apart; a piece whose nearest other
//! piece lies that close holds the same piece as it 98.9-100% of the time. Boards exact,
//! shipped four (`fenlens eval --no-unit-links` against the default): fonts 40.9 -> 42.7%,
//! foreign designs 61.7 -> 63.2%, held-out lichess designs 87.5 -> 88.7% (models/README.md).
//! Alike squares are joined into groups, and every member of a group gets the group's pooled
//! reading: the product of the members' probabilities, its log-odds divided by the square root
//! of the group's size ([`pool`]), because copies drawn by one design share their misleading
//! features and are not independent witnesses (the plain product and the plain geometric mean
//! read as many boards within 0.3 points; the product flags 3% fewer squares, the mean 6%
//! more).
//!
//! On pictures of designs never trained on (600 each, seeds 2026 and 777), with the true corners
//! and pieces, 6 of about 100,000 pairs of same-coloured squares holding different pieces fell
//! under [`ALIKE_BELOW`] (4 in book diagrams, 2 in small pictures), while of the pairs holding
//! the same piece 92% did on clean screenshots, 70-80% with overlays and in screenshots, 50% in
//! book diagrams, 31-40% in small pictures and 16-24% in photographs (`cargo run --release -p
//! fenlens-vision --example likeness DIR`).
//!
//! A group is one drawing, so it also holds one piece as many times: [`cap_groups`] then keeps
//! it from classes a side has fewer of in games, on one colour of squares or on the whole board
//! (a pair of alike "bishops" on one colour is more likely a pair of pawns of a design never
//! seen).
//!
//! Measured with the held-out models (boards exactly right, seeds 2026 / 777 / calibration set
//! 77): 78.8% → 79.0%, 73.8% → 74.3%, 78.0% → 79.0%; flags a board 3.49 → 3.18, 3.64 → 3.34,
//! 3.30 → 3.08. `fenlens eval --no-alike` measures the pipeline without it.
//!
//! Assumes the rectified board of [`crate::rectify`] and probabilities in display order.

use fenlens_fen::shakmaty::Role;
use rayon::prelude::*;

use crate::classify::{CLASSES, best_class, class_piece, renormalize};
use crate::compose::without_promotion;
use crate::rectify::{BOARD, Rectified, SQUARE};
use crate::silhouette::{EDGE, Silhouette, cell_origin};

// The nine alignments read one pixel beyond the compared area on each side, which must stay
// inside the square.
const _: () = assert!(EDGE >= 1);

/// Two squares of the same colour are alike below this [`distance`].
pub const ALIKE_BELOW: f32 = 0.05;

/// Two squares of different colours are alike below this [`cross_distance`].
pub const CROSS_ALIKE_BELOW: f32 = 0.1;

/// Two squares of different colours are also alike below this [`tolerant_cross_distance`],
/// where their silhouettes' areas are within [`TOLERANT_AREAS_WITHIN`] of each other.
pub const TOLERANT_ALIKE_BELOW: f32 = 0.03;

/// Two squares of different colours whose readings overlap ([`READINGS_OVERLAP`]) are also
/// alike below this [`tolerant_cross_distance`] ([`groups_read`]). Thirty-first session, shipped
/// four, boards exactly right, tighter threshold only / this: chess fonts (seeds 6161 / 4242)
/// 30.6 / 29.2 -> 31.1 / 29.7%, foreign designs (5150 / 31337) 55.1 / 56.1 -> 55.8 / 56.4%,
/// held-out lichess designs (2026 / 5353) 85.7 / 82.5 -> 85.8 / 82.8%; the held-out four
/// (honest estimate) 29.1 -> 29.4%, 55.2 -> 56.2%, 80.2 -> 79.8% and (777) 77.0 -> 77.3%.
/// 0.08 read the fonts and foreign designs better still with the shipped models, but the
/// held-out four lost more of the held-out lichess designs (80.2 -> 79.0%, 77.0 -> 76.5%).
pub const LOOSE_ALIKE_BELOW: f32 = 0.05;

/// How much two squares' readings must overlap (the sum over classes of the square roots of
/// the products of their probabilities) for [`LOOSE_ALIKE_BELOW`] to link them.
pub const READINGS_OVERLAP: f32 = 0.5;

/// How far apart (a share of the larger) two silhouettes' areas may be for
/// [`TOLERANT_ALIKE_BELOW`] to link them.
pub const TOLERANT_AREAS_WITHIN: f32 = 0.3;

/// The grey of a square's background: the median of the ring of pixels along its border.
fn background(board: &Rectified, cell: usize) -> f32 {
    let (x0, y0) = cell_origin(cell);
    let mut ring: Vec<f32> = (0..SQUARE)
        .flat_map(|i| [(i, 0), (i, SQUARE - 1), (0, i), (SQUARE - 1, i)])
        .map(|(x, y)| board.gray[(y0 + y) * BOARD + x0 + x])
        .collect();
    crate::cover::median(&mut ring)
}

/// How unlike two squares (display order) look: the summed absolute difference of their pixels
/// inside the squares' [`EDGE`] over the summed contrast of both against their backgrounds, at
/// the best of nine alignments a pixel apart. 0 for the same drawing on the same background,
/// near 1 or above for unrelated ones.
pub fn distance(board: &Rectified, a: usize, b: usize) -> f32 {
    distance_on(board, (a, background(board, a)), (b, background(board, b)))
}

/// [`distance`] with the two squares' backgrounds already measured: (cell, background).
fn distance_on(board: &Rectified, a: (usize, f32), b: (usize, f32)) -> f32 {
    distance_over(board, a, b, |_, _, _| INNER_COLUMNS)
}

/// [`distance_on`] over the columns of each row that `columns(y, dx, dy)` gives as bits (of
/// [`INNER_COLUMNS`]) for alignment (dx, dy).
fn distance_over(
    board: &Rectified,
    (a, a_back): (usize, f32),
    (b, b_back): (usize, f32),
    columns: impl Fn(usize, usize, usize) -> u32,
) -> f32 {
    let (ax, ay) = cell_origin(a);
    let (bx, by) = cell_origin(b);
    let at = |x: usize, y: usize| board.gray[y * BOARD + x];
    let mut best = f32::INFINITY;
    for dy in 0..3 {
        for dx in 0..3 {
            let (mut unlike, mut contrast) = (0.0f32, 0.0f32);
            for y in EDGE..SQUARE - EDGE {
                let row = columns(y, dx, dy);
                for x in (EDGE..SQUARE - EDGE).filter(|&x| row >> x & 1 == 1) {
                    let ga = at(ax + x, ay + y);
                    // Shifted by -1, 0 or +1; EDGE >= 1 (asserted above) keeps it inside the square.
                    let gb = at(bx + x + dx - 1, by + y + dy - 1);
                    unlike += (ga - gb).abs();
                    contrast += (ga - a_back).abs() + (gb - b_back).abs();
                }
            }
            best = best.min(unlike / contrast.max(1e-3));
        }
    }
    best
}

/// How unlike two squares' pieces look when the squares may be of different colours: at the
/// best of nine alignments a pixel apart, the share of the two silhouettes' union that only one
/// covers, plus the summed absolute difference of the pixels both cover over their summed
/// contrast against their own backgrounds. 0 for one opaque drawing on any two backgrounds.
pub fn cross_distance(board: &Rectified, a: (usize, &Silhouette), b: (usize, &Silhouette)) -> f32 {
    cross_distance_on(
        board,
        (a.0, background(board, a.0), &mask_rows(a.1)),
        (b.0, background(board, b.0), &mask_rows(b.1)),
    )
}

/// A silhouette as one bit a pixel, a row a word (bit x for column x).
type MaskRows = [u32; SQUARE];

const _: () = assert!(SQUARE <= 32);

/// The columns of a [`MaskRows`] row inside the square's [`EDGE`].
const INNER_COLUMNS: u32 = ((1u32 << (SQUARE - EDGE)) - 1) & !((1u32 << EDGE) - 1);

/// A mask row moved for alignment `dx` (0-2): bit x of the result is bit x + dx - 1 of `row`.
fn shifted(row: u32, dx: usize) -> u32 {
    match dx {
        0 => row << 1,
        1 => row,
        _ => row >> 1,
    }
}

fn mask_rows(shape: &Silhouette) -> MaskRows {
    shape.inside.map(|row| {
        (0..SQUARE)
            .filter(|&x| row[x])
            .fold(0, |bits, x| bits | 1 << x)
    })
}

/// [`cross_distance`] with the squares' backgrounds and masks already worked out: (cell,
/// background, mask). The masks' part is counted first for all nine alignments (a few bit
/// operations a row); the pixels are compared only where that part alone could still beat the
/// best alignment so far.
fn cross_distance_on(
    board: &Rectified,
    (a, a_back, a_mask): (usize, f32, &MaskRows),
    (b, b_back, b_mask): (usize, f32, &MaskRows),
) -> f32 {
    let (ax, ay) = cell_origin(a);
    let (bx, by) = cell_origin(b);
    let at = |x: usize, y: usize| board.gray[y * BOARD + x];
    let mut best = f32::INFINITY;
    for (apart, dx, dy) in outline_alignments(a_mask, b_mask) {
        if apart >= best {
            break;
        }
        let (mut unlike, mut contrast) = (0.0f32, 0.0f32);
        for (y, &row_a) in a_mask.iter().enumerate().take(SQUARE - EDGE).skip(EDGE) {
            let sy = y + dy - 1;
            let row_b = b_mask[sy];
            for x in EDGE..SQUARE - EDGE {
                let sx = x + dx - 1;
                if row_a >> x & 1 == 1 && row_b >> sx & 1 == 1 {
                    let ga = at(ax + x, ay + y);
                    let gb = at(bx + sx, by + sy);
                    unlike += (ga - gb).abs();
                    contrast += (ga - a_back).abs() + (gb - b_back).abs();
                }
            }
        }
        best = best.min(apart + unlike / contrast.max(1e-3));
    }
    best
}

/// For each of the nine alignments a pixel apart (b read at (x + dx - 1, y + dy - 1)), the share
/// of the two masks' union inside the square's [`EDGE`] that only one covers, as (share, dx,
/// dy), likest first; alignments where neither covers anything are left out.
fn outline_alignments(a_mask: &MaskRows, b_mask: &MaskRows) -> Vec<(f32, usize, usize)> {
    let mut alignments: Vec<(f32, usize, usize)> = Vec::with_capacity(9);
    for dy in 0..3 {
        for dx in 0..3 {
            let (mut union, mut inter) = (0u32, 0u32);
            for y in EDGE..SQUARE - EDGE {
                let row_a = a_mask[y] & INNER_COLUMNS;
                let row_b = shifted(b_mask[y + dy - 1], dx) & INNER_COLUMNS;
                union += (row_a | row_b).count_ones();
                inter += (row_a & row_b).count_ones();
            }
            if union > 0 {
                alignments.push(((union - inter) as f32 / union as f32, dx, dy));
            }
        }
    }
    alignments.sort_by(|p, q| p.0.total_cmp(&q.0));
    alignments
}

/// How far apart two pieces' outlines lie, whatever their colours and their squares': at the
/// best of nine alignments a pixel apart, the share of the two silhouettes' union that only one
/// covers. A design that draws a white and a black piece of one role with one outline gives
/// them nearly 0; 1 where neither silhouette has a pixel inside the square's [`EDGE`].
pub fn outline_distance(a: &Silhouette, b: &Silhouette) -> f32 {
    Outline::of(a).distance(&Outline::of(b))
}

/// A silhouette's pixels as bit rows, made once for the many [`Outline::distance`]s one piece
/// is measured by.
#[derive(Clone, Copy, Debug)]
pub struct Outline(MaskRows);

impl Outline {
    /// The outline of a silhouette.
    pub fn of(shape: &Silhouette) -> Outline {
        Outline(mask_rows(shape))
    }

    /// [`outline_distance`] between the two silhouettes these outlines were made of.
    pub fn distance(&self, other: &Outline) -> f32 {
        outline_alignments(&self.0, &other.0)
            .first()
            .map_or(1.0, |best| best.0)
    }
}

/// How unlike two squares' pieces look when the squares may be of different colours, forgiving
/// outlines a pixel apart: at the best of nine alignments a pixel apart, the share of the two
/// silhouettes' union that one covers and the other, grown by a pixel, does not, plus the
/// summed absolute difference of the pixels a pixel inside both outlines over their summed
/// contrast against their own backgrounds. A drawing's anti-aliased rim takes the colour of
/// each square it stands on and the flood that finds the silhouette stops a pixel earlier or
/// later on the two, which [`cross_distance`] counts in full; the same piece on squares of two
/// colours then often falls well under [`TOLERANT_ALIKE_BELOW`] where it does not under
/// [`CROSS_ALIKE_BELOW`], while different pieces, whose outlines part by more than a pixel
/// somewhere, do not.
pub fn tolerant_cross_distance(
    board: &Rectified,
    a: (usize, &Silhouette),
    b: (usize, &Silhouette),
) -> f32 {
    tolerant_cross_distance_on(
        board,
        (a.0, background(board, a.0), &Masks::of(&mask_rows(a.1))),
        (b.0, background(board, b.0), &Masks::of(&mask_rows(b.1))),
    )
}

/// [`distance`] counted only where either piece stands: over the pixels of the two silhouettes
/// grown by a pixel, so that a textured square's grain around the pieces counts for nothing.
pub fn piece_distance(board: &Rectified, a: (usize, &Silhouette), b: (usize, &Silhouette)) -> f32 {
    let (a_masks, b_masks) = (Masks::of(&mask_rows(a.1)), Masks::of(&mask_rows(b.1)));
    distance_over(
        board,
        (a.0, background(board, a.0)),
        (b.0, background(board, b.0)),
        |y, dx, dy| (a_masks.grown[y] | shifted(b_masks.grown[y + dy - 1], dx)) & INNER_COLUMNS,
    )
}

/// A silhouette's mask as it is, grown by a pixel and shrunk by a pixel (4-neighbours).
struct Masks {
    exact: MaskRows,
    grown: MaskRows,
    core: MaskRows,
}

impl Masks {
    fn of(mask: &MaskRows) -> Masks {
        let neighbours = |y: usize| {
            let above = if y > 0 { mask[y - 1] } else { 0 };
            let below = mask.get(y + 1).copied().unwrap_or(0);
            (mask[y] << 1, mask[y] >> 1, above, below)
        };
        Masks {
            exact: *mask,
            grown: std::array::from_fn(|y| {
                let (left, right, above, below) = neighbours(y);
                mask[y] | left | right | above | below
            }),
            core: std::array::from_fn(|y| {
                let (left, right, above, below) = neighbours(y);
                mask[y] & left & right & above & below
            }),
        }
    }
}

/// [`tolerant_cross_distance`] with the squares' backgrounds and masks already worked out:
/// (cell, background, masks).
fn tolerant_cross_distance_on(
    board: &Rectified,
    (a, a_back, a_masks): (usize, f32, &Masks),
    (b, b_back, b_masks): (usize, f32, &Masks),
) -> f32 {
    let (ax, ay) = cell_origin(a);
    let (bx, by) = cell_origin(b);
    let at = |x: usize, y: usize| board.gray[y * BOARD + x];
    let mut best = f32::INFINITY;
    for dy in 0..3 {
        for dx in 0..3 {
            let (mut union, mut only) = (0u32, 0u32);
            for y in EDGE..SQUARE - EDGE {
                let sy = y + dy - 1;
                let row_a = a_masks.exact[y] & INNER_COLUMNS;
                let row_b = shifted(b_masks.exact[sy], dx) & INNER_COLUMNS;
                union += (row_a | row_b).count_ones();
                only += (row_a & !shifted(b_masks.grown[sy], dx)).count_ones()
                    + (row_b & !a_masks.grown[y]).count_ones();
            }
            if union == 0 {
                continue;
            }
            let apart = only as f32 / union as f32;
            if apart >= best {
                continue;
            }
            let (mut unlike, mut contrast) = (0.0f32, 0.0f32);
            for y in EDGE..SQUARE - EDGE {
                let sy = y + dy - 1;
                let both = a_masks.core[y] & shifted(b_masks.core[sy], dx) & INNER_COLUMNS;
                for x in (EDGE..SQUARE - EDGE).filter(|&x| both >> x & 1 == 1) {
                    let ga = at(ax + x, ay + y);
                    let gb = at(bx + x + dx - 1, by + sy);
                    unlike += (ga - gb).abs();
                    contrast += (ga - a_back).abs() + (gb - b_back).abs();
                }
            }
            best = best.min(apart + unlike / contrast.max(1e-3));
        }
    }
    best
}

/// The least cosine between two squares' hidden units ([`units_alike`]) that links them as
/// copies of one drawing. The pixels link copies only where they repeat closely: on one colour
/// of square, or on two where the silhouettes overlap; a hatched dark square, a highlight, an
/// arrow, a photograph's uneven light or a neighbour reaching into the crop keep copies apart
/// that the networks, trained to see a piece past all of these, see alike. With the true
/// corners, the two leading members' units (`cargo run --release -p fenlens-vision --example
/// units_alike DIR`): a piece whose nearest other piece on the board lies at 0.93 or more (68%
/// of the fonts' pieces, 69% of the foreign designs') holds the same piece as it in 98.9% of
/// cases on 11 chess fonts (seed 6161), 99.1% on 14 foreign designs (5150) and 100% on the
/// held-out lichess designs (2026); at 0.85, 96.5 / 95.9 / 98.6%. Boards exact, shipped four
/// (45th session), 0.95 / 0.93 / 0.91: fonts 42.6 / 42.7 / 42.4%, foreign 63.0 / 63.2 / 62.8%,
/// held-out lichess 87.8 / 88.7 / 88.8% (40.9, 61.7 and 87.5% without); all four members'
/// units at 0.97 / 0.95 / 0.93 / 0.9 / 0.85 read 41.7 / 42.4 / 43.2 / 42.7 / 39.5%, 62.6 / 63.2
/// / 63.2 / 62.7 / 59.5%, 87.7 / 88.3 / 88.7 / 88.2 / 83.0%, but the other two read only the
/// unsure squares, so theirs would cost a second pass.
pub const UNITS_ALIKE_FROM: f32 = 0.93;

/// Whether two squares' hidden units (see [`crate::classify::BoardReading::units`]) show one
/// drawing: their cosine is at least [`UNITS_ALIKE_FROM`]. Squares without units (blank squares,
/// which are not read) or whose units are all zero are alike to none.
pub fn units_alike(a: &[f32], b: &[f32]) -> bool {
    units_cosine(a, b).is_some_and(|cosine| cosine >= UNITS_ALIKE_FROM)
}

/// The cosine between two squares' hidden units; `None` where either has none (a blank
/// square), they are all zero or their lengths differ.
pub fn units_cosine(a: &[f32], b: &[f32]) -> Option<f32> {
    let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
    let (ab, aa, bb) = (dot(a, b), dot(a, a), dot(b, b));
    (a.len() == b.len() && aa > 0.0 && bb > 0.0).then(|| ab / (aa * bb).sqrt())
}

/// Whether two squares (display order) are of the same colour, light or dark.
pub fn same_colour(a: usize, b: usize) -> bool {
    (a / 8 + a % 8) % 2 == (b / 8 + b % 8) % 2
}

/// Whether two squares (display order) show the same drawing: they are of the same colour and
/// their [`distance`] is under [`ALIKE_BELOW`].
pub fn alike(board: &Rectified, a: usize, b: usize) -> bool {
    same_colour(a, b) && distance(board, a, b) < ALIKE_BELOW
}

/// Groups of [`alike`] squares (display order), each of two or more, each sorted: squares with a
/// silhouette, joined transitively, squares of two colours where their [`cross_distance`] is
/// under [`CROSS_ALIKE_BELOW`] or their [`tolerant_cross_distance`] under
/// [`TOLERANT_ALIKE_BELOW`]. Pairs whose contrasts against their backgrounds differ by
/// more than twice [`ALIKE_BELOW`] of their sum are not measured (nearly all such pairs are
/// unlike anyway).
pub fn groups(board: &Rectified, outlines: &[Option<Silhouette>; 64]) -> Vec<Vec<usize>> {
    groups_read(board, outlines, None, None)
}

/// [`groups`], where squares of two colours are also linked under
/// [`LOOSE_ALIKE_BELOW`] of [`tolerant_cross_distance`] when the classifier's readings of them
/// (`probabilities`, display order) overlap by at least [`READINGS_OVERLAP`], and any two
/// squares are linked where the networks' hidden units on them (`units`, display order; see
/// [`crate::classify::BoardReading::units`]) are [`units_alike`].
pub fn groups_read(
    board: &Rectified,
    outlines: &[Option<Silhouette>; 64],
    probabilities: Option<&[[f32; CLASSES]]>,
    units: Option<&[Vec<f32>]>,
) -> Vec<Vec<usize>> {
    let overlap = |a: usize, b: usize| {
        probabilities
            .and_then(|p| p.get(a).zip(p.get(b)))
            .is_some_and(|(pa, pb)| {
                pa.iter().zip(pb).map(|(x, y)| (x * y).sqrt()).sum::<f32>() >= READINGS_OVERLAP
            })
    };
    let seen_alike = |a: usize, b: usize| {
        units
            .and_then(|u| u.get(a).zip(u.get(b)))
            .is_some_and(|(ua, ub)| units_alike(ua, ub))
    };
    let mut parent: [usize; 64] = std::array::from_fn(|cell| cell);
    fn root(parent: &mut [usize; 64], mut cell: usize) -> usize {
        while parent[cell] != cell {
            parent[cell] = parent[parent[cell]];
            cell = parent[cell];
        }
        cell
    }
    let masks: Vec<MaskRows> = outlines
        .iter()
        .map(|shape| shape.as_ref().map_or([0; SQUARE], mask_rows))
        .collect();
    let tolerant: Vec<Masks> = masks.iter().map(Masks::of).collect();
    // The silhouettes' pixels inside the EDGE, counted from the masks' bits.
    let areas: Vec<u32> = masks
        .iter()
        .map(|rows| {
            rows[EDGE..SQUARE - EDGE]
                .iter()
                .map(|row| (row & INNER_COLUMNS).count_ones())
                .sum()
        })
        .collect();
    // (cell, background, contrast against it inside the EDGE).
    let occupied: Vec<(usize, f32, f32)> = (0..64)
        .filter(|&c| outlines[c].is_some())
        .map(|c| {
            let back = background(board, c);
            let (x0, y0) = cell_origin(c);
            let contrast: f32 = (EDGE..SQUARE - EDGE)
                .flat_map(|y| (EDGE..SQUARE - EDGE).map(move |x| (x, y)))
                .map(|(x, y)| (board.gray[(y0 + y) * BOARD + x0 + x] - back).abs())
                .sum();
            (c, back, contrast)
        })
        .collect();
    let pairs: Vec<(usize, usize)> = (0..occupied.len())
        .flat_map(|i| (i + 1..occupied.len()).map(move |j| (i, j)))
        .collect();
    // Each pair is measured on its own (in parallel: this is most of the stage's time), then
    // joined in order; the groups are the linked pairs' connected parts whatever the order.
    let linked: Vec<bool> = pairs
        .par_iter()
        .map(|&(i, j)| {
            let (a, a_back, a_contrast) = occupied[i];
            let (b, b_back, b_contrast) = occupied[j];
            // On one background the pixels differ by at least the difference of the two
            // contrasts (a pixel's shift changes b's a little, hence the factor 2): most pairs
            // of different pieces end here.
            let apart = (a_contrast - b_contrast).abs() / (a_contrast + b_contrast).max(1e-3);
            let linked = if same_colour(a, b) {
                apart < 2.0 * ALIKE_BELOW
                    && distance_on(board, (a, a_back), (b, b_back)) < ALIKE_BELOW
            } else {
                // Silhouettes whose areas differ by a tenth cannot overlap that closely.
                let (na, nb) = (areas[a], areas[b]);
                let (small, large) = (na.min(nb) as f32, na.max(nb) as f32);
                (small >= (1.0 - CROSS_ALIKE_BELOW) * large
                    && cross_distance_on(board, (a, a_back, &masks[a]), (b, b_back, &masks[b]))
                        < CROSS_ALIKE_BELOW)
                    || (small >= (1.0 - TOLERANT_AREAS_WITHIN) * large && {
                        let d = tolerant_cross_distance_on(
                            board,
                            (a, a_back, &tolerant[a]),
                            (b, b_back, &tolerant[b]),
                        );
                        d < TOLERANT_ALIKE_BELOW || (d < LOOSE_ALIKE_BELOW && overlap(a, b))
                    })
            };
            linked || seen_alike(a, b)
        })
        .collect();
    for (&(i, j), _) in pairs.iter().zip(&linked).filter(|(_, linked)| **linked) {
        let (a, b) = (occupied[i].0, occupied[j].0);
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); 64];
    for &(cell, _, _) in &occupied {
        let r = root(&mut parent, cell);
        members[r].push(cell);
    }
    members.retain(|group| group.len() > 1);
    members
}

/// Gives every member of each group the group's pooled reading: the members' log-probabilities
/// summed, divided by the square root of the group's size, and turned back into probabilities.
/// `probabilities` are in display order.
pub fn pool(probabilities: &mut [[f32; CLASSES]], groups: &[Vec<usize>]) {
    for group in groups {
        let pooled = pooled(probabilities, group);
        for &cell in group {
            probabilities[cell] = pooled;
        }
    }
}

/// The reading [`pool`] gives every member of `group`.
fn pooled(probabilities: &[[f32; CLASSES]], group: &[usize]) -> [f32; CLASSES] {
    let scale = 1.0 / (group.len() as f32).sqrt();
    let mut logs = [0.0f32; CLASSES];
    for &cell in group {
        for (log, p) in logs.iter_mut().zip(probabilities[cell]) {
            *log += p.max(1e-6).ln() * scale;
        }
    }
    let top = logs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut pooled = logs.map(|log| (log - top).exp());
    renormalize(&mut pooled);
    pooled
}

/// Whether a display-order cell lies on the board's top or bottom row: rank 8 or rank 1
/// whichever way the board is turned, where no pawn stands.
fn on_back_row(cell: usize) -> bool {
    !(8..56).contains(&cell)
}

/// Splits every group whose pooled reading is a pawn and which holds more than eight squares,
/// a side's most pawns (`total_allowed`): its squares on the top and bottom rows, where no pawn stands, and then
/// those whose own readings give the pawn least leave it, until eight or fewer remain. They
/// keep their own readings, pooled among themselves where two or more leave.
///
/// A chess font may draw its bishop as a pawn with a slit (marroquin): the links join the two
/// bishops to the eight pawns, and the ten copies pool into a pawn so sure that neither the
/// composer's back-rank rule nor its eight-pawn rule can move a bishop
/// ([`crate::compose::compose_grouped`], which moves a square only within a bounded cost). Out
/// of the group, the bishops on c1 and f1 are moved by the back-rank rule. Forty-seventh
/// session, shipped four, `fenlens eval DIR --verbose`: fonts 6161 / 4242 42.7 / 41.8 -> 43.5
/// / 42.6% (ten marroquin game positions mended), every other set read the same boards. Taking
/// back-row squares out of every pawn group, whatever its size, lost more than it mended:
/// pawns set out at will on a back rank, and maya's knight on h6 linked to its twin on g8
/// (which the back-rank rule had read right for both).
///
/// Since the fifty-first session a group of eight or fewer gives up its back-row squares too
/// where its side is read with more pawns than eight over all its groups and lone squares
/// (`read_more_than_allowed`), and where two or more of its squares stay: on small pictures
/// the light squares' pawns link to the bishop on f1 and the dark squares' to the one on c1,
/// and the composer then read all four light-square copies as bishops. A pair (a bishop on f1
/// linked to its copy on g5) stays whole, since its other square may be the same piece.
pub fn split_overfull_pawn_groups(
    probabilities: &[[f32; CLASSES]],
    groups: Vec<Vec<usize>>,
) -> Vec<Vec<usize>> {
    let classes: Vec<usize> = groups
        .iter()
        .map(|group| best_class(&pooled(probabilities, group)))
        .collect();
    let over = read_more_than_allowed(probabilities, &groups, &classes);
    let mut kept = Vec::with_capacity(groups.len());
    for (group, class) in groups.into_iter().zip(classes) {
        let pawn_read = class_piece(class).is_some_and(|piece| piece.role == Role::Pawn);
        let most = total_allowed(class);
        let overfull = group.len() > most;
        if !pawn_read || !(overfull || over[class]) {
            kept.push(group);
            continue;
        }
        // Back-row squares first, then the least pawn-like.
        let mut leaving = group;
        leaving.sort_by(|&a, &b| {
            (on_back_row(b).cmp(&on_back_row(a)))
                .then(probabilities[a][class].total_cmp(&probabilities[b][class]))
        });
        let back = leaving.iter().filter(|&&cell| on_back_row(cell)).count();
        let leave = back.max(leaving.len().saturating_sub(most));
        if !overfull && leaving.len() - leave < 2 {
            kept.push(leaving);
            continue;
        }
        let staying = leaving.split_off(leave);
        kept.extend([leaving, staying].into_iter().filter(|part| part.len() > 1));
    }
    kept
}

/// For each class, whether more squares are read as it than a side holds without a promotion
/// (`total_allowed`): the squares of the `groups` whose pooled reading it is (`classes`, one
/// for each group) and the squares in no group whose own best class it is.
fn read_more_than_allowed(
    probabilities: &[[f32; CLASSES]],
    groups: &[Vec<usize>],
    classes: &[usize],
) -> [bool; CLASSES] {
    let mut read_as = [0usize; CLASSES];
    let mut grouped = [false; 64];
    for (group, &class) in groups.iter().zip(classes) {
        read_as[class] += group.len();
        for &cell in group {
            grouped[cell] = true;
        }
    }
    for (cell, p) in probabilities.iter().enumerate() {
        if !grouped.get(cell).copied().unwrap_or(true) {
            read_as[best_class(p)] += 1;
        }
    }
    std::array::from_fn(|class| read_as[class] > total_allowed(class))
}

/// What [`cap_groups`] leaves of a class's probability where the group has more copies than
/// the class allows without a promotion. On pictures of designs the shipped pair never saw
/// (`fenlens eval`, against `--no-group-caps`), boards exact: 14 foreign designs 46.9 ->
/// 47.5% (game positions 51.6 -> 52.5%), 11 chess fonts 18.5 -> 19.7% (21.4 -> 23.1%); held-out
/// pair on held-out lichess sets, seeds 2026 / 777: 80.5 / 76.0 -> 80.5 / 75.8%. Ruling such
/// classes out (0) read game positions better still (53.7%, 24.1%) but random placements,
/// which often hold same-coloured bishops on squares of one colour, far worse (foreign
/// 19.8 -> 11.2%, lichess seed 2026 19.5 -> 11.5%); 0.1 gained about half as much, 0.001 lost
/// 0.2-0.5 points on the lichess sets.
pub const OVER_COUNT_KEEP: f32 = 0.01;

/// The most copies of a class one side holds on squares of one colour in a game without a
/// promotion: [`without_promotion`] (one bishop per colour of square, one queen, two knights
/// or rooks), one king, eight pawns.
fn copies_allowed(class: usize) -> usize {
    match class_piece(class).map(|p| p.role) {
        None => 64,
        Some(Role::King) => 1,
        Some(role) => without_promotion(role).map_or(8, |n| n as usize),
    }
}

/// The most copies of a class one side holds on the whole board in a game without a promotion:
/// [`copies_allowed`] but two bishops.
fn total_allowed(class: usize) -> usize {
    match class_piece(class).map(|p| p.role) {
        Some(Role::Bishop) => 2,
        _ => copies_allowed(class),
    }
}

/// A group of alike squares holds copies of one drawing, so its class must allow that many
/// copies on the group's commoner colour of square (`copies_allowed`) and on the whole board
/// (`total_allowed`): the probability of every class that does not is multiplied by `keep` (0
/// rules it out). Returns the squares whose best class changed
/// (display order). Run after [`pool`], whose groups all read alike.
pub fn cap_groups(
    probabilities: &mut [[f32; CLASSES]],
    groups: &[Vec<usize>],
    keep: f32,
) -> Vec<usize> {
    let mut changed = Vec::new();
    for group in groups {
        for &cell in group {
            let before = best_class(&probabilities[cell]);
            let row = &mut probabilities[cell];
            let mut any = false;
            let light = group.iter().filter(|&&c| same_colour(c, 0)).count();
            let on_one_colour = light.max(group.len() - light);
            for (class, p) in row.iter_mut().enumerate() {
                if copies_allowed(class) < on_one_colour || total_allowed(class) < group.len() {
                    *p *= keep;
                    any = true;
                }
            }
            if any {
                renormalize(row);
                if best_class(row) != before {
                    changed.push(cell);
                }
            }
        }
    }
    changed
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::classify::two_way;
    use crate::silhouette::silhouettes;
    use fenlens_fen::shakmaty::Square;

    /// A board of plain squares (light 0.8, dark 0.4) with `draw` giving the pieces' pixels.
    pub(crate) fn board_with(draw: impl Fn(usize, usize, usize) -> Option<f32>) -> Rectified {
        let mut gray = vec![0.6; BOARD * BOARD];
        for cell in 0..64 {
            let (x0, y0) = cell_origin(cell);
            let back = if same_colour(cell, 0) { 0.8 } else { 0.4 };
            for y in 0..SQUARE {
                for x in 0..SQUARE {
                    gray[(y0 + y) * BOARD + x0 + x] = draw(cell, x, y).unwrap_or(back);
                }
            }
        }
        Rectified::from_grey(gray)
    }

    /// A pawn: a disc on a base.
    pub(crate) fn pawn(x: usize, y: usize) -> bool {
        let (dx, dy) = (x as f32 - 11.5, y as f32 - 9.0);
        dx * dx + dy * dy < 16.0 || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    /// A bishop: a taller, narrower body on the same base.
    fn bishop(x: usize, y: usize) -> bool {
        ((4..16).contains(&y) && (9..15).contains(&x))
            || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    #[test]
    fn copies_of_a_drawing_group_other_pieces_and_colours_do_not() {
        // Black pawns on light squares 9 and 11 and on dark squares 8 (a pixel further right)
        // and 10; a black bishop and a white pawn on light squares 13 and 15.
        let board = board_with(|cell, x, y| match cell {
            9..=11 => pawn(x, y).then_some(0.1),
            8 => (x > 0 && pawn(x - 1, y)).then_some(0.1),
            13 => bishop(x, y).then_some(0.1),
            15 => pawn(x, y).then_some(0.95),
            _ => None,
        });
        let outlines = silhouettes(&board);
        assert_eq!(distance(&board, 9, 11), 0.0);
        assert_eq!(distance(&board, 8, 10), 0.0, "a pixel's shift is aligned");
        assert!(distance(&board, 9, 13) > ALIKE_BELOW);
        assert!(distance(&board, 9, 15) > ALIKE_BELOW);
        assert!(
            !alike(&board, 9, 10),
            "alike compares squares of one colour"
        );
        let shape = |cell: usize| outlines[cell].as_ref().expect("a piece stands there");
        assert!(cross_distance(&board, (9, shape(9)), (10, shape(10))) < 0.02);
        assert!(cross_distance(&board, (8, shape(8)), (9, shape(9))) < 0.02);
        assert!(cross_distance(&board, (10, shape(10)), (13, shape(13))) > CROSS_ALIKE_BELOW);
        assert!(cross_distance(&board, (10, shape(10)), (15, shape(15))) > CROSS_ALIKE_BELOW);
        // The pawns on both colours of square make one group; the bishop and the white pawn
        // stand alone.
        assert_eq!(groups(&board, &outlines), vec![vec![8, 9, 10, 11]]);
    }

    /// A rook: a broad block on the same base.
    fn rook(x: usize, y: usize) -> bool {
        ((4..16).contains(&y) && (5..19).contains(&x))
            || ((16..20).contains(&y) && (6..18).contains(&x))
    }

    /// Whether pixel (x, y) is outside `shape` but next to it (4-neighbours).
    fn rim_of(shape: fn(usize, usize) -> bool, x: usize, y: usize) -> bool {
        !shape(x, y)
            && [(1, 0), (-1, 0), (0, 1), (0, -1)].iter().any(|&(dx, dy)| {
                let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                nx >= 0 && ny >= 0 && shape(nx as usize, ny as usize)
            })
    }

    /// A white piece's pixel (0.95), its rim half the square's colour `back`, as anti-aliasing
    /// draws it; `None` elsewhere.
    fn rimmed(shape: fn(usize, usize) -> bool, x: usize, y: usize, back: f32) -> Option<f32> {
        if shape(x, y) {
            Some(0.95)
        } else if rim_of(shape, x, y) {
            Some((0.95 + back) / 2.0)
        } else {
            None
        }
    }

    #[test]
    fn a_drawings_soft_rim_on_two_colours_of_square_is_forgiven_and_other_pieces_are_not() {
        // A white pawn (0.95) whose rim is half the square's colour, as anti-aliasing draws it,
        // on light square 9 (0.8), dark square 10 (0.4) and, a pixel lower, dark square 12; a
        // white rook with the same rim on dark square 14. (This bishop's outline lies within
        // two pixels of the pawn's everywhere, which the forgiving distance cannot tell apart
        // in a uniform fill, rim included; real designs differ more, or inside.)
        let board = board_with(|cell, x, y| match cell {
            9 => rimmed(pawn, x, y, 0.8),
            10 => rimmed(pawn, x, y, 0.4),
            12 => (y > 0).then(|| rimmed(pawn, x, y - 1, 0.4)).flatten(),
            14 => rimmed(rook, x, y, 0.4),
            _ => None,
        });
        let outlines = silhouettes(&board);
        let shape = |cell: usize| outlines[cell].as_ref().expect("a piece stands there");
        let strict = cross_distance(&board, (9, shape(9)), (10, shape(10)));
        let tolerant = tolerant_cross_distance(&board, (9, shape(9)), (10, shape(10)));
        assert!(tolerant < TOLERANT_ALIKE_BELOW, "{tolerant}");
        assert!(
            strict > CROSS_ALIKE_BELOW,
            "the rim counts in full in cross_distance: {strict}"
        );
        let shifted = tolerant_cross_distance(&board, (9, shape(9)), (12, shape(12)));
        assert!(shifted < TOLERANT_ALIKE_BELOW, "{shifted}");
        let other = tolerant_cross_distance(&board, (9, shape(9)), (14, shape(14)));
        assert!(other > TOLERANT_ALIKE_BELOW, "{other}");
        assert_eq!(groups(&board, &outlines), vec![vec![9, 10, 12]]);
    }

    #[test]
    fn drawings_nearly_alike_on_two_colours_link_only_where_their_readings_agree() {
        // A white pawn with a soft rim (as in the test above) on light square 9 and, with a knob
        // of a few pixels more on its right, on dark square 10: a little too far apart to be
        // linked by their pixels alone.
        fn knobbed_pawn(x: usize, y: usize) -> bool {
            pawn(x, y) || ((8..11).contains(&y) && (17..19).contains(&x))
        }
        let board = board_with(|cell, x, y| match cell {
            9 => rimmed(pawn, x, y, 0.8),
            10 => rimmed(knobbed_pawn, x, y, 0.4),
            _ => None,
        });
        let outlines = silhouettes(&board);
        let shape = |cell: usize| outlines[cell].as_ref().expect("a piece stands there");
        let d = tolerant_cross_distance(&board, (9, shape(9)), (10, shape(10)));
        assert!(
            (TOLERANT_ALIKE_BELOW..LOOSE_ALIKE_BELOW).contains(&d),
            "the pair must fall between the two thresholds: {d}"
        );
        assert!(groups(&board, &outlines).is_empty());
        let mut probabilities = vec![[0.0f32; CLASSES]; 64];
        probabilities.iter_mut().for_each(|p| p[0] = 1.0);
        // Both read as white pawns, one unsure: linked.
        probabilities[9] = two_way(1, 0.9, 3);
        probabilities[10] = two_way(1, 0.6, 3);
        assert_eq!(
            groups_read(&board, &outlines, Some(&probabilities), None),
            vec![vec![9, 10]]
        );
        // One surely a pawn, the other surely a rook: not linked.
        probabilities[10] = two_way(4, 0.99, 1);
        assert!(groups_read(&board, &outlines, Some(&probabilities), None).is_empty());
    }

    #[test]
    fn hidden_units_alike_by_their_cosine() {
        let units = [1.0, 2.0, 0.0, 3.0];
        let twice: Vec<f32> = units.iter().map(|u| 2.0 * u).collect();
        assert!(units_alike(&units, &twice), "the cosine ignores the scale");
        // Cosine 0.9 and 0.95 on either side of the threshold.
        let at = |cosine: f32| [cosine, (1.0 - cosine * cosine).sqrt()];
        assert!(!units_alike(&[1.0, 0.0], &at(0.9)));
        assert!(units_alike(&[1.0, 0.0], &at(0.95)));
        assert!(!units_alike(&[], &[]), "a blank square is alike to none");
        assert!(!units_alike(&[0.0, 0.0], &[0.0, 0.0]));
        assert!(!units_alike(&[1.0, 0.0], &[1.0, 0.0, 0.0]));
    }

    #[test]
    fn drawings_the_networks_see_alike_are_linked_whatever_their_pixels() {
        // A white pawn on a light square and a white rook on a dark one: far apart in pixels.
        let board = board_with(|cell, x, y| match cell {
            9 => rimmed(pawn, x, y, 0.8),
            10 => rimmed(rook, x, y, 0.4),
            _ => None,
        });
        let outlines = silhouettes(&board);
        assert!(groups(&board, &outlines).is_empty());
        let mut units = vec![Vec::new(); 64];
        units[9] = vec![1.0, 0.2, 0.0];
        units[10] = vec![0.0, 0.3, 1.0];
        assert!(groups_read(&board, &outlines, None, Some(&units)).is_empty());
        units[10] = vec![0.9, 0.25, 0.05];
        assert_eq!(
            groups_read(&board, &outlines, None, Some(&units)),
            vec![vec![9, 10]]
        );
        // An empty square is never linked, however its units read.
        units[20] = units[9].clone();
        assert_eq!(
            groups_read(&board, &outlines, None, Some(&units)),
            vec![vec![9, 10]]
        );
    }

    #[test]
    fn a_group_is_kept_from_classes_with_fewer_copies() {
        // Classes: 1 white pawn, 2 white knight, 3 white bishop, 4 white rook.
        let mut probabilities = vec![[0.0f32; CLASSES]; 64];
        for cell in [1, 3, 5] {
            (probabilities[cell][3], probabilities[cell][1]) = (0.9, 0.1);
        }
        for cell in [10, 12] {
            (probabilities[cell][2], probabilities[cell][4]) = (0.9, 0.1);
        }
        for cell in [20, 22] {
            (probabilities[cell][3], probabilities[cell][1]) = (0.999, 0.001);
        }
        probabilities[30][3] = 1.0;
        // A white bishop on each colour of square (cells 40 and 41): a game's pair.
        for cell in [40, 41] {
            (probabilities[cell][3], probabilities[cell][1]) = (0.9, 0.1);
        }
        let groups = [vec![1, 3, 5], vec![10, 12], vec![20, 22], vec![40, 41]];
        let mut capped = probabilities.clone();
        let changed = cap_groups(&mut capped, &groups, 0.01);
        assert_eq!(changed, vec![1, 3, 5], "three bishops become pawns");
        assert!(capped[1][1] > 0.9, "{:?}", capped[1]);
        assert_eq!(best_class(&capped[10]), 2, "two knights are allowed");
        assert_eq!(capped[10], probabilities[10]);
        assert_eq!(best_class(&capped[20]), 3, "a sure pair of bishops stays");
        assert!(capped[20][3] < 0.95, "but less sure: {:?}", capped[20]);
        assert_eq!(capped[30], probabilities[30], "a square alone is left");
        assert_eq!(
            capped[40], probabilities[40],
            "a bishop on each colour is allowed"
        );
        let mut ruled_out = probabilities.clone();
        let changed = cap_groups(&mut ruled_out, &groups, 0.0);
        assert_eq!(changed, vec![1, 3, 5, 20, 22]);
        assert_eq!(best_class(&ruled_out[20]), 1);
    }

    /// White pawns (class 1) on the second row from the bottom, read surely, and the two
    /// squares of White's bishops (c1 and f1, class 3) on the bottom row read more as pawns.
    fn pawns_and_slit_bishops() -> (Vec<[f32; CLASSES]>, Vec<usize>) {
        let mut probabilities = vec![[0.0f32; CLASSES]; 64];
        probabilities[48..56].fill(two_way(1, 0.99, 3));
        for cell in [58, 61] {
            probabilities[cell] = two_way(1, 0.9, 3);
        }
        (probabilities, (48..56).chain([58, 61]).collect())
    }

    #[test]
    fn a_pawn_group_of_more_than_eight_lets_its_back_row_squares_go() {
        let (probabilities, group) = pawns_and_slit_bishops();
        let split = split_overfull_pawn_groups(&probabilities, vec![group.clone()]);
        assert_eq!(split, vec![vec![58, 61], (48..56).collect::<Vec<_>>()]);
        let white_bishop = |pooled: &[[f32; CLASSES]], groups: &[Vec<usize>]| {
            let squares = crate::compose::compose_grouped(pooled, false, groups);
            [Square::C1, Square::F1].map(|square| squares[square as usize].class == 3)
        };
        // Out of the pawns' group the composer's back-rank rule reads them as bishops; pooled
        // with the pawns they stay pawns.
        let mut pooled = probabilities.clone();
        pool(&mut pooled, &split);
        assert_eq!(white_bishop(&pooled, &split), [true, true]);
        let mut pooled = probabilities;
        pool(&mut pooled, std::slice::from_ref(&group));
        assert_eq!(white_bishop(&pooled, &[group]), [false, false]);
    }

    #[test]
    fn a_pawn_group_of_nine_off_the_back_rows_lets_its_least_pawn_like_square_go() {
        let (mut probabilities, _) = pawns_and_slit_bishops();
        probabilities[40] = two_way(1, 0.6, 3);
        probabilities[41] = two_way(1, 0.95, 3);
        let group: Vec<usize> = (40..42).chain(49..56).collect();
        let split = split_overfull_pawn_groups(&probabilities, vec![group]);
        assert_eq!(split, vec![(41..42).chain(49..56).collect::<Vec<_>>()]);
    }

    #[test]
    fn groups_of_eight_or_fewer_pawns_and_of_other_pieces_stay_whole() {
        let (mut probabilities, pawns_and_bishops) = pawns_and_slit_bishops();
        // Eight: six pawns and the two back-row squares (a knight on g8 linked to its twin on
        // h6 is a group of two such), with no other square read as White's pawn.
        probabilities[54..56].fill(two_way(0, 0.99, 1));
        let eight: Vec<usize> = (48..54).chain([58, 61]).collect();
        assert_eq!(
            split_overfull_pawn_groups(&probabilities, vec![eight.clone()]),
            vec![eight]
        );
        // Ten read as bishops.
        for cell in &pawns_and_bishops {
            probabilities[*cell] = two_way(3, 0.9, 1);
        }
        assert_eq!(
            split_overfull_pawn_groups(&probabilities, vec![pawns_and_bishops.clone()]),
            vec![pawns_and_bishops]
        );
    }

    #[test]
    fn a_side_read_with_more_than_eight_pawns_takes_the_back_rows_out_of_its_smaller_groups() {
        let (probabilities, _) = pawns_and_slit_bishops();
        // The light squares' pawns linked to the bishop on f1, the dark squares' to the one
        // on c1: ten of White's pawns over two groups of five.
        let light: Vec<usize> = [49, 51, 53, 55, 61].into();
        let dark: Vec<usize> = [48, 50, 52, 54, 58].into();
        let split = split_overfull_pawn_groups(&probabilities, vec![light, dark]);
        assert_eq!(
            split,
            vec![vec![49, 51, 53, 55], vec![48, 50, 52, 54]],
            "the bishops leave, each alone"
        );
        let squares = crate::compose::compose_grouped(
            &{
                let mut pooled = probabilities.clone();
                pool(&mut pooled, &split);
                pooled
            },
            false,
            &split,
        );
        assert_eq!(
            [Square::C1, Square::F1].map(|square| squares[square as usize].class),
            [3, 3],
            "out of the pawns' groups the back-rank rule reads them as bishops"
        );
        // A pair of the back row and one square more stays whole: the other may be the same
        // piece (a bishop on f1 and its copy on g5).
        let pair: Vec<usize> = vec![61, 30];
        let mut with_pair = probabilities.clone();
        with_pair[30] = two_way(1, 0.9, 3);
        assert_eq!(
            split_overfull_pawn_groups(&with_pair, vec![pair.clone()]),
            vec![pair]
        );
    }

    #[test]
    fn a_group_reads_as_its_sure_members_say() {
        let mut probabilities = vec![[0.0f32; CLASSES]; 64];
        // Three sure black pawns (class 7) and one taken more for a bishop (class 9).
        for cell in [1, 3, 5] {
            probabilities[cell][7] = 0.97;
            probabilities[cell][9] = 0.03;
        }
        probabilities[7][7] = 0.4;
        probabilities[7][9] = 0.6;
        // An unrelated square keeps its reading.
        probabilities[20][9] = 1.0;
        pool(&mut probabilities, &[vec![1, 3, 5, 7]]);
        for cell in [1, 3, 5, 7] {
            assert!(probabilities[cell][7] > 0.99, "{:?}", probabilities[cell]);
            assert!((probabilities[cell].iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        assert_eq!(probabilities[20][9], 1.0);
    }
}
