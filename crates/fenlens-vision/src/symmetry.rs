//! Symmetry: a knight against the pieces that every design draws symmetric.
//!
//! A classifier that has not seen a piece design sometimes reads its knight as a rook or a
//! queen (a knight's head on a tall column looks like a rook at 24 pixels). Rooks and queens are
//! drawn left-right symmetric in nearly every design; knights never are. So for each square the
//! silhouette ([`crate::silhouette`]) is compared with its mirror image about its own centre:
//! the asymmetry is the share of its pixels without a partner on the other side (best of five
//! axes half a pixel apart around the centroid, so an off-centre piece is not penalized).
//!
//! Where the classifier's best class is a rook or a queen, the knight of the same colour has its
//! probability multiplied by how much likelier that asymmetry is for a knight than for a rook
//! (or queen): [`LOG_RATIO_ROOK`] and [`LOG_RATIO_QUEEN`], measured on pictures of the training
//! designs (`cargo run --release -p fenlens-vision --example fit_symmetry DATASET`; see
//! models/README.md) and capped at e^2 either way, because arrows, highlights and JPEG
//! blocks make a symmetric piece look lopsided now and then.
//!
//! Where the best class is the knight and the runner-up the rook or queen of its colour, the
//! same ratio confirms a lopsided knight but never lowers one (lowering knights whose outline is
//! symmetric lost the knights of symmetric designs). Measured on held-out designs (tenth
//! session): boards exact 79.3% / 75.0% / 80.7% → 79.3% / 75.0% / 81.0% (seeds 2026, 777, 77),
//! flags a board 2.81 / 2.89 / 2.67 → 2.72 / 2.79 / 2.54. Confirming knights whatever the
//! runner-up turned a pawn into a knight on one photograph.
//!
//! Pawns too are drawn symmetric, but a knight read as a pawn often stands on a wide round base
//! like the pawn's (maya, alfonso, metaltops), which outweighs its head in the whole outline's
//! asymmetry. So where the best class is a pawn, or the knight with the pawn as runner-up, the
//! knight is weighed by the asymmetry of the outline's upper half alone, mirrored about the
//! whole outline's axis ([`head_asymmetry`], [`LOG_RATIO_PAWN_HEAD`]), and only ever raised
//! (fifty-fifth session: lowering too lost as many boards as it gained on held-out models).
//!
//! Assumes the silhouettes of [`crate::silhouette`].

use fenlens_fen::shakmaty::{Piece, Role};

use crate::classify::{CLASSES, best_class, class_piece, piece_class, renormalize};
use crate::rectify::SQUARE;
use crate::silhouette::{EDGE, Silhouette};

/// Upper edges of the asymmetry bins of [`LOG_RATIO_ROOK`], [`LOG_RATIO_QUEEN`] and
/// [`LOG_RATIO_PAWN_HEAD`] (the last bin is open).
pub const BIN_EDGES: [f32; 9] = [0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.15, 0.2, 0.3];
/// Per bin, ln(P(asymmetry | knight) / P(asymmetry | rook)), capped at ±2.
pub const LOG_RATIO_ROOK: [f32; 10] = [
    -2.00, -2.00, -0.79, 0.35, 1.31, 1.29, 1.77, 2.00, 2.00, 1.54,
];
/// Per bin, ln(P(asymmetry | knight) / P(asymmetry | queen)), capped at ±2.
pub const LOG_RATIO_QUEEN: [f32; 10] = [
    -2.00, -2.00, -1.02, 0.08, 0.82, 1.60, 2.00, 2.00, 1.77, 2.00,
];
/// Per bin, ln(P(head asymmetry | knight) / P(head asymmetry | pawn)), capped at ±2.
pub const LOG_RATIO_PAWN_HEAD: [f32; 10] = [
    -1.88, -1.58, -1.03, 0.78, 1.90, 2.00, 1.89, 1.21, 0.63, 0.79,
];

/// The bin of an asymmetry in [`BIN_EDGES`].
pub fn bin(asymmetry: f32) -> usize {
    BIN_EDGES
        .iter()
        .position(|&edge| asymmetry < edge)
        .unwrap_or(BIN_EDGES.len())
}

/// How far a silhouette is from its mirror image: the share of the pixels of its largest part
/// (inside the square's edge; a coordinate letter in a corner is left out) whose mirror pixel
/// is not part of it, at the best of five axes around the centroid. 0 for a symmetric drawing.
pub fn asymmetry(silhouette: &Silhouette) -> f32 {
    mirror_mismatch(&silhouette.largest_part(), 1.0)
}

/// The [`asymmetry`] of the upper half of a silhouette's largest part (its rows from the top to
/// halfway down), mirrored about the whole part's axis: a knight's head turned aside over a
/// round base that outweighs it in [`asymmetry`], against a pawn's round head.
pub fn head_asymmetry(silhouette: &Silhouette) -> f32 {
    mirror_mismatch(&silhouette.largest_part(), 0.5)
}

/// The share of the pixels in the upper `share` of a part's rows whose mirror pixel is not part
/// of it, at the best of five axes around the whole part's centroid.
fn mirror_mismatch(silhouette: &Silhouette, share: f32) -> f32 {
    let pixels: Vec<(usize, usize)> = silhouette.inner_pixels().collect();
    if pixels.is_empty() {
        return 0.0;
    }
    let top = pixels.iter().map(|p| p.1).min().unwrap_or(0);
    let bottom = pixels.iter().map(|p| p.1).max().unwrap_or(0);
    let last_row = top as f32 + share * (bottom - top) as f32;
    let inner = EDGE..SQUARE - EDGE;
    // Twice the centroid's x: the mirror of x about the axis is `axis - x`.
    let twice_centre = 2.0 * pixels.iter().map(|p| p.0 as f32).sum::<f32>() / pixels.len() as f32;
    let centre = twice_centre.round() as i64;
    let counted: Vec<(usize, usize)> = pixels
        .into_iter()
        .filter(|&(_, y)| y as f32 <= last_row)
        .collect();
    if counted.is_empty() {
        return 0.0;
    }
    (centre - 2..=centre + 2)
        .map(|axis| {
            let unmatched = counted
                .iter()
                .filter(|&&(x, y)| {
                    let mirror = axis - x as i64;
                    !(mirror >= 0
                        && inner.contains(&(mirror as usize))
                        && silhouette.inside[y][mirror as usize])
                })
                .count();
            unmatched as f32 / counted.len() as f32
        })
        .fold(f32::INFINITY, f32::min)
}

/// How lopsided one square's silhouette is: the whole of it and its head.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Asymmetry {
    /// [`asymmetry`]: weighed against rooks and queens.
    pub whole: f32,
    /// [`head_asymmetry`]: weighed against pawns.
    pub head: f32,
}

/// The asymmetries of each square's silhouette (display order); `None` where there is none.
pub fn asymmetries(outlines: &[Option<Silhouette>; 64]) -> [Option<Asymmetry>; 64] {
    std::array::from_fn(|cell| {
        outlines[cell].as_ref().map(|outline| {
            let part = outline.largest_part();
            Asymmetry {
                whole: mirror_mismatch(&part, 1.0),
                head: mirror_mismatch(&part, 0.5),
            }
        })
    })
}

/// Raises or lowers the knight's probability on squares read as a rook or a queen, by how much
/// likelier the square's asymmetry is for a knight (see the module comment); on squares read as
/// a pawn, raises it only, by the head's asymmetry; on squares read as a knight whose runner-up
/// is the rook, queen or pawn of its colour, raises it only (a lopsided outline confirms a
/// knight, a symmetric one is left to the classifier). `probabilities` are in display order, as
/// [`asymmetries`] gives them.
pub fn weigh_knights(probabilities: &mut [[f32; CLASSES]], asymmetries: &[Option<Asymmetry>; 64]) {
    for (p, asymmetry) in probabilities.iter_mut().zip(asymmetries) {
        let Some(asymmetry) = asymmetry else {
            continue;
        };
        let best = best_class(p);
        let Some(read) = class_piece(best) else {
            continue;
        };
        let class_of = |role| {
            piece_class(Some(Piece {
                color: read.color,
                role,
            }))
        };
        // The role the knight is weighed against, and whether its probability may be lowered.
        let (against, may_lower) = match read.role {
            Role::Rook | Role::Queen => (read.role, true),
            Role::Pawn => (Role::Pawn, false),
            Role::Knight => {
                let runner_up = (0..CLASSES)
                    .filter(|&class| class != best)
                    .max_by(|&a, &b| p[a].total_cmp(&p[b]));
                match [Role::Rook, Role::Queen, Role::Pawn]
                    .into_iter()
                    .find(|&role| runner_up == Some(class_of(role)))
                {
                    Some(role) => (role, false),
                    None => continue,
                }
            }
            _ => continue,
        };
        let log_ratio = match against {
            Role::Rook => LOG_RATIO_ROOK[bin(asymmetry.whole)],
            Role::Queen => LOG_RATIO_QUEEN[bin(asymmetry.whole)],
            _ => LOG_RATIO_PAWN_HEAD[bin(asymmetry.head)],
        };
        let log_ratio = if may_lower {
            log_ratio
        } else {
            log_ratio.max(0.0)
        };
        p[class_of(Role::Knight)] *= log_ratio.exp();
        renormalize(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(pixels: impl Fn(usize, usize) -> bool) -> Silhouette {
        Silhouette {
            inside: std::array::from_fn(|y| std::array::from_fn(|x| pixels(x, y))),
            dark: 0.0,
            light: 1.0,
        }
    }

    fn measured(whole: f32, head: f32) -> Option<Asymmetry> {
        Some(Asymmetry { whole, head })
    }

    #[test]
    fn a_column_is_symmetric_a_head_turned_aside_is_not() {
        // A rook-like column, its axis between two pixels.
        let column = drawn(|x, y| (8..=15).contains(&x) && (5..20).contains(&y));
        assert!(asymmetry(&column) < 0.01, "{}", asymmetry(&column));
        // The same column with a head sticking out to the left at the top.
        let knight = drawn(|x, y| {
            (8..=15).contains(&x) && (5..20).contains(&y)
                || (3..8).contains(&x) && (5..9).contains(&y)
        });
        // The head's 20 pixels of 140 have no partner at the best axis.
        assert!(asymmetry(&knight) > 0.13, "{}", asymmetry(&knight));
    }

    #[test]
    fn drawn_knights_are_lopsided_rooks_and_queens_are_not() {
        use crate::rectify::rectify;
        use crate::silhouette::silhouettes;
        use fenlens_render::{BoardStyle, PieceSet, draw_board};
        let board = fenlens_fen::read(b"rnbqkbnr/8/8/8/8/8/8/RNBQKBNR")
            .setup
            .expect("placement")
            .board;
        for square in [40, 64] {
            let drawn = draw_board(&board, &BoardStyle::default(), &PieceSet::builtin(), square);
            let rgba = fenlens_render::draw::pixmap_to_rgba(&drawn.pixmap);
            let image = image::DynamicImage::ImageRgba8(rgba).to_rgb8();
            let rectified = rectify(&image, drawn.corners()).expect("a board");
            let found = asymmetries(&silhouettes(&rectified));
            // Top row: black r n b q k b n r; bottom row: the white ones.
            for row in [0, 7] {
                let at = |col: usize| found[row * 8 + col].expect("a piece").whole;
                for knight in [1, 6] {
                    assert!(
                        at(knight) > 0.1,
                        "{square}px row {row}: knight {}",
                        at(knight)
                    );
                }
                for symmetric in [0, 3, 7] {
                    assert!(
                        at(symmetric) < 0.06,
                        "{square}px row {row} col {symmetric}: {}",
                        at(symmetric)
                    );
                }
            }
        }
    }

    #[test]
    fn bins_follow_the_edges() {
        assert_eq!(bin(0.0), 0);
        assert_eq!(bin(0.03), 1);
        assert_eq!(bin(0.12), 6);
        assert_eq!(bin(0.5), 9);
    }

    #[test]
    fn a_lopsided_rook_turns_knight_a_symmetric_one_stays_a_rook() {
        let mut probabilities = vec![[0.0; CLASSES]; 64];
        for p in probabilities.iter_mut() {
            p[0] = 1.0;
        }
        // Square 0: read as a white rook 0.6, knight 0.3; lopsided.
        // Square 1: the same reading, symmetric. Square 2: a black queen, lopsided.
        for cell in [0, 1] {
            probabilities[cell] = [0.0; CLASSES];
            probabilities[cell][4] = 0.6;
            probabilities[cell][2] = 0.3;
            probabilities[cell][0] = 0.1;
        }
        probabilities[2] = [0.0; CLASSES];
        probabilities[2][11] = 0.7;
        probabilities[2][8] = 0.3;
        let mut asymmetries = [None; 64];
        asymmetries[0] = measured(0.16, 0.16);
        // The head does not count against a rook.
        asymmetries[1] = measured(0.01, 0.3);
        asymmetries[2] = measured(0.13, 0.13);
        weigh_knights(&mut probabilities, &asymmetries);
        assert!(
            probabilities[0][2] > probabilities[0][4],
            "{:?}",
            probabilities[0]
        );
        assert!(probabilities[1][4] > 0.8, "{:?}", probabilities[1]);
        assert!(
            probabilities[2][8] > probabilities[2][11],
            "{:?}",
            probabilities[2]
        );
        for p in &probabilities[..3] {
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        assert_eq!(probabilities[3][0], 1.0);
    }

    #[test]
    fn a_lopsided_knight_is_confirmed_a_symmetric_one_is_not_lowered() {
        // A black knight 0.6 against a rook 0.35: lopsided (cell 0), symmetric (cell 1). A white
        // knight 0.6 against a pawn 0.35 with a lopsided head (cell 2). A white knight 0.6
        // against a bishop 0.35, lopsided (cell 3): the bishop is not a symmetric rival.
        let mut probabilities = vec![[0.0; CLASSES]; 64];
        for cell in [0, 1] {
            probabilities[cell][8] = 0.6;
            probabilities[cell][10] = 0.35;
            probabilities[cell][0] = 0.05;
        }
        for (cell, rival) in [(2, 1), (3, 3)] {
            probabilities[cell][2] = 0.6;
            probabilities[cell][rival] = 0.35;
            probabilities[cell][0] = 0.05;
        }
        let mut asymmetries = [None; 64];
        asymmetries[0] = measured(0.16, 0.16);
        asymmetries[1] = measured(0.01, 0.01);
        asymmetries[2] = measured(0.01, 0.13);
        asymmetries[3] = measured(0.16, 0.16);
        let before = probabilities.clone();
        weigh_knights(&mut probabilities, &asymmetries);
        assert!(probabilities[0][8] > 0.9, "{:?}", probabilities[0]);
        assert_eq!(probabilities[1], before[1]);
        assert!(probabilities[2][2] > 0.85, "{:?}", probabilities[2]);
        assert_eq!(probabilities[3], before[3]);
    }

    #[test]
    fn a_pawn_with_a_lopsided_head_turns_knight_a_symmetric_one_is_not_lowered() {
        // Black pawns 0.6, knight 0.3: the head lopsided over a symmetric base (cell 0); the
        // head symmetric though the whole is lopsided (cell 1); a symmetric head (cell 2).
        let mut probabilities = vec![[0.0; CLASSES]; 64];
        for p in probabilities.iter_mut().take(3) {
            p[7] = 0.6;
            p[8] = 0.3;
            p[0] = 0.1;
        }
        let mut asymmetries = [None; 64];
        asymmetries[0] = measured(0.07, 0.13);
        asymmetries[1] = measured(0.3, 0.01);
        asymmetries[2] = measured(0.01, 0.01);
        let before = probabilities.clone();
        weigh_knights(&mut probabilities, &asymmetries);
        assert!(
            probabilities[0][8] > probabilities[0][7],
            "{:?}",
            probabilities[0]
        );
        assert!((probabilities[0].iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(probabilities[1], before[1]);
        assert_eq!(probabilities[2], before[2]);
    }

    #[test]
    fn a_knight_on_a_round_base_is_lopsided_in_its_head_a_pawn_is_not() {
        // A wide base (rows 14-19) under a neck; the knight's head juts out to the left at the
        // top, the pawn's is a block centred on the neck.
        let base = |x: usize, y: usize| (4..=19).contains(&x) && (14..20).contains(&y);
        let neck = |x: usize, y: usize| (10..=13).contains(&x) && (9..14).contains(&y);
        let knight =
            drawn(|x, y| base(x, y) || neck(x, y) || (5..=13).contains(&x) && (5..9).contains(&y));
        let pawn =
            drawn(|x, y| base(x, y) || neck(x, y) || (9..=14).contains(&x) && (5..9).contains(&y));
        // The whole knight is nearly symmetric: its base outweighs its head.
        assert!(asymmetry(&knight) < 0.2, "{}", asymmetry(&knight));
        assert!(
            head_asymmetry(&knight) > 2.0 * asymmetry(&knight),
            "{} {}",
            head_asymmetry(&knight),
            asymmetry(&knight)
        );
        assert!(head_asymmetry(&knight) > 0.2, "{}", head_asymmetry(&knight));
        assert!(head_asymmetry(&pawn) < 0.02, "{}", head_asymmetry(&pawn));
        let found = asymmetries(&std::array::from_fn(|cell| match cell {
            0 => Some(knight.clone()),
            _ => None,
        }));
        let first = found[0].expect("an outline");
        assert_eq!(first.whole, asymmetry(&knight));
        assert_eq!(first.head, head_asymmetry(&knight));
        assert!(found[1].is_none());
    }
}
