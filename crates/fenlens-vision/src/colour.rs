//! Colour: a board-level check of the classifier's white-or-black decisions.
//!
//! A classifier that has not seen a piece design sometimes reads a white piece as black (a white
//! bishop drawn with heavy black outlines, black pieces drawn in mid grey on a dark theme) or
//! the other way round, while the pixels say plainly which side it belongs to once the whole
//! board is looked at together: within one picture, every white piece is lighter on average than
//! every black one. Where that line falls depends on the design and the picture, so it is found
//! per board.
//!
//! For each square read as holding a piece, the mean grey of the piece's silhouette is taken
//! (see [`crate::silhouette`]); the pieces are sorted by it and split at the widest gap between
//! neighbours. When that gap is wide ([`MIN_SPLIT_GAP`]) and most readings ([`MIN_AGREEING`])
//! already agree with the split (darker group black, lighter group white), every piece has the
//! probabilities of the colour the split does not give it multiplied by [`CONTRADICTED`]: a
//! reading that agrees becomes surer of its colour, and a nearly even reading on the wrong side
//! turns. Readings on the wrong side sure of their colour ([`SURE_OF_COLOUR`]) are left alone,
//! because photographs with uneven light and designs with large white details mislead the grey.
//!
//! Where the gap is very wide ([`OVERRULING_GAP`], a third of the grey range), the two groups
//! are plainly two colours of piece, and the split is trusted when half the readings
//! ([`OVERRULING_AGREEING`]) agree with it; then the readings on the wrong side are weighed
//! against it however sure they are: up to about 0.95 they turn, surer ones keep their colour
//! less surely. On a dark theme a design never seen can have half its black pieces read as
//! white, some of them surely, while the greys part by 0.3. Forty-sixth session, shipped four,
//! `fenlens eval`: boards exactly right on held-out lichess designs, seeds 777 / 202, 87.3 /
//! 84.5% -> 87.5 / 84.7%, fonts of seed 4242 41.5 -> 41.8%; the foreign designs of seeds 5150
//! and 31337, held-out lichess seed 2026, its clean pictures, whole screens, thumbnails and
//! the devset read the same boards, the fonts of seed 6161 as many (one more right, and one
//! photograph's black pawn turned white, flagged). Held-out four: fonts 40.6 / 38.5 -> 40.8 /
//! 38.8%, the rest the same. A gap of 0.25 read one board more on the fonts of seed 6161 but
//! one fewer on held-out lichess seed 2026 and on the thumbnails and two fewer on the foreign
//! designs of seed 31337. In the fifteenth session, with the models then, sure readings
//! overruled at gaps of 0.2 or 0.3 under the usual agreement read no more boards.
//!
//! Each side has one king, so where exactly two squares read as kings of one side and their
//! greys part by [`MIN_SPLIT_GAP`] or more, the darker is Black's and the lighter White's,
//! whatever the network says ([`kings_by_grey`], run after the split). Forty-seventh session,
//! shipped four, `fenlens eval --verbose`, boards exact: foreign designs of seeds 5150 / 31337
//! 63.2 / 62.8 -> 64.6 / 63.9% (29 boards of magnetic, whose black king, drawn dark with
//! light windows, is read surely as White's, and 2 of leipzig), fonts of seeds 6161 / 4242
//! 43.5 / 42.6 -> 43.8 / 43.5% (kingdom 5, mediaeval 3); no board read worse on any set;
//! held-out lichess designs, clean pictures, whole screens, thumbnails and the devset read the
//! same boards. Held-out four: foreign 62.7 / 62.8%, fonts 41.8 / 39.7% with the pawn groups'
//! split ([`crate::alike::split_overfull_pawn_groups`]), against 61.2 / 61.7% and 40.8 / 38.8%
//! before both.
//!
//! Confirming the agreeing readings too (tenth session) read more boards exactly on held-out
//! designs (79.0% → 79.3%, 74.5% → 75.0%, 79.0% → 80.7% on seeds 2026, 777 and 77) with fewer
//! flags (3.18 → 2.81, 3.34 → 2.89, 3.08 → 2.67 a board); factors 0.5 and 0.2 gained less, 0.01
//! no more.
//!
//! Measured on held-out designs (600 pictures each, seeds 2026 and 777, and the 300 of the
//! calibration set): boards exactly right 76.5% → 76.8%, 70.3% → 71.7% and 73.3% → 75.0%
//! against the check this one replaced, which split the pieces by the share of their pixels
//! lighter than the local middle grey and needed five readings in six to agree. Within one
//! picture, the mean grey alone puts every white piece above every black one on 82% of boards
//! (99% of clean ones, 38% of book diagrams, whose black pieces have white details), measured by
//! `cargo run --release -p fenlens-vision --example colour_split DIR`.
//!
//! The greys are taken in even light ([`greys_in_even_light`]): a photographed screen is
//! brighter on one side, and its far white pieces can be as grey as its near black ones. Each
//! square's background is its square colour's grey times the light falling on it, so a plane
//! fitted to the log of the backgrounds ([`light_field`]) gives the light, and each piece's
//! grey is divided by it. Fifty-seventh session, shipped four, `fenlens eval --verbose`, over
//! held-out lichess designs (seeds 2026 / 777 / 202), foreign designs and fonts (six seeds):
//! boards exact +10 / -3 (six photographs gained, two lost, and a wood-textured screenshot
//! lost), squares wrong on boards turned right 9,345 -> 9,318. On the held-out lichess
//! designs' photographs every white piece is lighter than every black one on 71.6% of boards
//! instead of 65.2% (clean pictures 99.3 -> 99.7%). A quadratic light field read +12 / -6
//! (9,306): a wood texture's grain bends it.
//!
//! Assumes the rectified board of [`crate::rectify`] and the silhouettes of
//! [`crate::silhouette`].

use fenlens_fen::shakmaty::Color;

use crate::classify::{CLASSES, best_class, piece_class, renormalize};
use crate::cover::median;
use crate::locate::solve;
use crate::rectify::{BOARD, Rectified, SQUARE};
use crate::silhouette::{EDGE, Silhouette, cell_origin};

/// The factor the probabilities of the colour the split does not give a piece are multiplied by.
pub const CONTRADICTED: f32 = 0.05;
/// Readings whose colour the classifier gives more than this share of the square's piece
/// probability are left alone, unless the split is [`OVERRULING_GAP`] wide: a sure colour is
/// more often right than the grey.
pub const SURE_OF_COLOUR: f32 = 0.8;
/// The narrowest gap (in grey levels, 0-1) between the darker and the lighter group of pieces
/// that is taken for the line between black and white.
pub const MIN_SPLIT_GAP: f32 = 0.12;
/// The share of readings that must agree with the split before it is trusted.
pub const MIN_AGREEING: f32 = 0.75;
/// A gap between the darker and the lighter group of pieces this wide is trusted with
/// [`OVERRULING_AGREEING`] of the readings agreeing, and overrules sure readings too.
pub const OVERRULING_GAP: f32 = 0.3;
/// The share of readings that must agree with a split of [`OVERRULING_GAP`] or more.
pub const OVERRULING_AGREEING: f32 = 0.5;

/// For each of the 64 squares (display order), the mean grey level of its silhouette's pixels;
/// `None` where there is no silhouette (empty squares, mostly).
pub fn mean_greys(board: &Rectified, outlines: &[Option<Silhouette>; 64]) -> [Option<f32>; 64] {
    std::array::from_fn(|cell| {
        let outline = outlines[cell].as_ref()?;
        let (x0, y0) = cell_origin(cell);
        let (mut pixels, mut sum) = (0usize, 0.0f32);
        for (x, y) in outline.inner_pixels() {
            pixels += 1;
            sum += board.gray[(y0 + y) * BOARD + x0 + x];
        }
        Some(sum / pixels.max(1) as f32)
    })
}

/// The greys [`reconcile`] and [`kings_by_grey`] split the pieces by: [`mean_greys`] divided by
/// the light falling on each square ([`light_field`]). On a photographed screen lit from one
/// side the far white pieces can be as grey as the near black ones.
pub fn greys_in_even_light(
    board: &Rectified,
    outlines: &[Option<Silhouette>; 64],
) -> [Option<f32>; 64] {
    let light = light_field(board, outlines);
    let greys = mean_greys(board, outlines);
    std::array::from_fn(|cell| greys[cell].map(|grey| grey / light[cell]))
}

/// Terms of the light field's fit, in the log of each square's background grey: one level
/// for light squares, one for dark ones, then x and y of the square's centre (-1 to 1 across
/// the board). A quadratic (x², y², xy) read more squares but fewer boards: a wood texture's
/// grain bends it (model card, "Pieces' greys taken in even light").
const FIT_TERMS: usize = 4;

/// The fit's terms for a square (display order).
fn fit_terms(cell: usize) -> [f64; FIT_TERMS] {
    let (row, col) = ((cell / 8) as f64, (cell % 8) as f64);
    let dark = ((cell / 8 + cell % 8) % 2) as f64;
    [1.0 - dark, dark, (col - 3.5) / 3.5, (row - 3.5) / 3.5]
}

/// How much light falls on each square (display order) against the board's mean, 1 where the
/// light is even: a photographed screen is brighter on one side than the other. Each square's
/// background (the median grey of its pixels outside the piece) is the square colour's grey
/// times the light; the log of the light is fitted as a plane across the board
/// ([`fit_terms`]), twice more with the squares that stray from the fit (highlights, arrows,
/// letters) left out.
pub fn light_field(board: &Rectified, outlines: &[Option<Silhouette>; 64]) -> [f32; 64] {
    let backgrounds: Vec<(usize, f64)> = (0..64)
        .filter_map(|cell| {
            let (x0, y0) = cell_origin(cell);
            let mut greys: Vec<f32> = (EDGE..SQUARE - EDGE)
                .flat_map(|y| (EDGE..SQUARE - EDGE).map(move |x| (x, y)))
                .filter(|&(x, y)| !outlines[cell].as_ref().is_some_and(|o| o.inside[y][x]))
                .map(|(x, y)| board.gray[(y0 + y) * BOARD + x0 + x])
                .collect();
            if greys.len() < SQUARE {
                return None;
            }
            let background = median(&mut greys);
            (background > 0.02).then(|| (cell, f64::from(background).ln()))
        })
        .collect();
    let mut kept = vec![true; backgrounds.len()];
    let mut weights = None;
    for _ in 0..3 {
        if kept.iter().filter(|&&k| k).count() < 2 * FIT_TERMS {
            break;
        }
        let Some(w) = least_squares(
            backgrounds
                .iter()
                .zip(&kept)
                .filter(|(_, k)| **k)
                .map(|(&(cell, log_grey), _)| (fit_terms(cell), log_grey)),
        ) else {
            break;
        };
        let residuals: Vec<f64> = backgrounds
            .iter()
            .map(|&(cell, log_grey)| (log_grey - dot(&fit_terms(cell), &w)).abs())
            .collect();
        let mut among: Vec<f64> = residuals
            .iter()
            .zip(&kept)
            .filter(|(_, k)| **k)
            .map(|(r, _)| *r)
            .collect();
        among.sort_by(|a, b| a.total_cmp(b));
        let limit = (3.0 * among[among.len() / 2]).max(0.05);
        kept = residuals.iter().map(|&r| r < limit).collect();
        weights = Some(w);
    }
    let Some(w) = weights else {
        return [1.0; 64];
    };
    std::array::from_fn(|cell| {
        let mut terms = fit_terms(cell);
        terms[0] = 0.0;
        terms[1] = 0.0;
        dot(&terms, &w).exp() as f32
    })
}

/// The sum of the products of two rows of terms.
fn dot(a: &[f64; FIT_TERMS], b: &[f64; FIT_TERMS]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The weights that fit `rows` (terms, value) best in least squares, by the normal equations
/// ([`crate::locate::solve`]); `None` where they do not tell the weights apart.
fn least_squares(rows: impl Iterator<Item = ([f64; FIT_TERMS], f64)>) -> Option<[f64; FIT_TERMS]> {
    let mut products = [[0.0f64; FIT_TERMS]; FIT_TERMS];
    let mut with_values = [0.0f64; FIT_TERMS];
    for (terms, value) in rows {
        for i in 0..FIT_TERMS {
            for j in 0..FIT_TERMS {
                products[i][j] += terms[i] * terms[j];
            }
            with_values[i] += terms[i] * value;
        }
    }
    solve(products, with_values)
}

/// Lowers the probability of the colour the board's split by grey does not give each piece
/// (but for sure readings it contradicts, unless the split is very wide), when the split is
/// clear and most readings agree with it (see the module comment). `probabilities` are in
/// display order, as [`mean_greys`] gives the greys.
pub fn reconcile(probabilities: &mut [[f32; CLASSES]], greys: &[Option<f32>; 64]) {
    let white = |p: &[f32; CLASSES]| p[1..7].iter().sum::<f32>();
    let black = |p: &[f32; CLASSES]| p[7..13].iter().sum::<f32>();
    // (grey, cell) for squares read as holding a piece, darkest first.
    let mut pieces: Vec<(f32, usize)> = greys
        .iter()
        .enumerate()
        .filter_map(|(cell, grey)| {
            grey.filter(|_| probabilities[cell][0] < 0.5)
                .map(|g| (g, cell))
        })
        .collect();
    pieces.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The widest gap between neighbours: below it black, from it on white.
    let Some((gap, split)) = (1..pieces.len())
        .map(|i| (pieces[i].0 - pieces[i - 1].0, i))
        .max_by(|a, b| a.0.total_cmp(&b.0))
    else {
        return;
    };
    if pieces.len() < 3 || gap < MIN_SPLIT_GAP {
        return;
    }
    let read_white = |cell: usize| white(&probabilities[cell]) > black(&probabilities[cell]);
    let agreeing = pieces
        .iter()
        .enumerate()
        .filter(|&(index, &(_, cell))| read_white(cell) == (index >= split))
        .count();
    let share = |of: f32| of * pieces.len() as f32;
    let overruling = gap >= OVERRULING_GAP && agreeing as f32 >= share(OVERRULING_AGREEING);
    if !overruling && (agreeing as f32) < share(MIN_AGREEING) {
        return;
    }
    for (index, &(_, cell)) in pieces.iter().enumerate() {
        let p = &mut probabilities[cell];
        let (w, b) = (white(p), black(p));
        let lighter = index >= split;
        let agrees = lighter == (w > b);
        if !agrees && !overruling && w.max(b) / (w + b) > SURE_OF_COLOUR {
            continue;
        }
        // The colour the split does not give this piece: confirmed where the reading agrees,
        // turned where an unsure reading disagrees.
        let other_side = if lighter { 7..13 } else { 1..7 };
        for v in &mut p[other_side] {
            *v *= CONTRADICTED;
        }
        renormalize(p);
    }
}

/// Where exactly two squares read as kings, both of one side, and their silhouettes' mean
/// greys lie [`MIN_SPLIT_GAP`] or more apart, the darker is read as Black's king (or the lighter
/// as White's), however surely the network read its colour: its probabilities of White's and
/// Black's classes change places. Each side has one king, and the pixels tell the two apart.
/// A design never seen may draw Black's king dark with light windows in its crown, which the
/// network reads surely as White's (magnetic); the composer then kept the surer of two white
/// kings and turned the other black, and the two kings traded colours. Forty-seventh session,
/// see the module comment. Display order, as [`mean_greys`] gives the greys.
pub fn kings_by_grey(probabilities: &mut [[f32; CLASSES]], greys: &[Option<f32>; 64]) {
    let white_king = piece_class(Some(Color::White.king()));
    let black_king = piece_class(Some(Color::Black.king()));
    let kings: Vec<(usize, usize)> = probabilities
        .iter()
        .enumerate()
        .map(|(cell, p)| (cell, best_class(p)))
        .filter(|&(_, class)| class == white_king || class == black_king)
        .collect();
    let [(a, class_a), (b, class_b)] = kings[..] else {
        return;
    };
    let (Some(grey_a), Some(grey_b)) = (greys[a], greys[b]) else {
        return;
    };
    if class_a != class_b || (grey_a - grey_b).abs() < MIN_SPLIT_GAP {
        return;
    }
    let (darker, lighter) = if grey_a < grey_b { (a, b) } else { (b, a) };
    let turned = if class_a == white_king {
        darker
    } else {
        lighter
    };
    let p = &mut probabilities[turned];
    // Classes 1-6 are White's pieces, 7-12 Black's in the same order.
    for class in 1..7 {
        p.swap(class, class + 6);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rectify::{MARGIN, SQUARE};
    use crate::silhouette::silhouettes;

    /// A board of light (0.8) and dark (0.45) squares with pieces drawn into some cells:
    /// `white` cells get a dark outline filled with near white, `black` cells a dark blob.
    fn board(white: &[usize], black: &[usize]) -> Rectified {
        let mut gray = vec![0.6; BOARD * BOARD];
        for y in 0..8 * SQUARE {
            for x in 0..8 * SQUARE {
                let (col, row) = (x / SQUARE, y / SQUARE);
                let cell = row * 8 + col;
                let (dx, dy) = ((x % SQUARE) as f32 - 11.5, (y % SQUARE) as f32 - 11.5);
                let r = (dx * dx + dy * dy).sqrt();
                let square = if (col + row) % 2 == 0 { 0.8 } else { 0.45 };
                let v = if white.contains(&cell) && r < 8.0 {
                    if r > 6.5 { 0.05 } else { 0.97 }
                } else if black.contains(&cell) && r < 8.0 {
                    0.08
                } else {
                    square
                };
                gray[(y + MARGIN) * BOARD + x + MARGIN] = v;
            }
        }
        Rectified::from_grey(gray)
    }

    #[test]
    fn white_pieces_are_lighter_on_average_than_black_ones() {
        let board = board(&[10, 11], &[20, 21]);
        let greys = mean_greys(&board, &silhouettes(&board));
        for cell in [10, 11] {
            assert!(greys[cell].is_some_and(|g| g > 0.5), "{:?}", greys[cell]);
        }
        for cell in [20, 21] {
            assert!(greys[cell].is_some_and(|g| g < 0.15), "{:?}", greys[cell]);
        }
        assert_eq!(greys[0], None);
        assert_eq!(greys[63], None);
    }

    use crate::classify::{best_class, two_way as reading};

    #[test]
    fn an_unsure_colour_the_pixels_contradict_turns_a_sure_one_stays() {
        // Cells 10-12 and 30 hold white pieces, 20-22 and 40 black ones.
        let board = board(&[10, 11, 12, 30], &[20, 21, 22, 40]);
        let greys = mean_greys(&board, &silhouettes(&board));
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in [10, 11, 12] {
            probabilities[cell] = reading(3, 0.99, 0); // B
        }
        for cell in [20, 21, 22] {
            probabilities[cell] = reading(9, 0.99, 0); // b
        }
        probabilities[30] = reading(9, 0.55, 3); // read b, nearly B
        probabilities[40] = reading(3, 0.99, 9); // read B surely
        reconcile(&mut probabilities, &greys);
        assert!(probabilities[30][3] > 0.9, "{:?}", probabilities[30]);
        // The greys part by far more than OVERRULING_GAP here, so the sure reading is weighed
        // against the split too: it keeps its class, no longer surely.
        assert_eq!(best_class(&probabilities[40]), 3, "{:?}", probabilities[40]);
        assert!(probabilities[40][3] < 0.85, "{:?}", probabilities[40]);
        assert!(probabilities[10][3] > 0.98 && probabilities[20][9] > 0.98);
        // With the greys nearer (a gap under OVERRULING_GAP), the sure reading is left alone.
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in [10, 11, 12] {
            probabilities[cell] = reading(3, 0.99, 0);
        }
        for cell in [20, 21, 22] {
            probabilities[cell] = reading(9, 0.99, 0);
        }
        probabilities[40] = reading(3, 0.97, 9);
        let near: [Option<f32>; 64] = std::array::from_fn(|cell| match cell {
            10 | 11 | 12 | 30 => Some(0.6),
            20 | 21 | 22 | 40 => Some(0.6 - OVERRULING_GAP * 0.8),
            _ => None,
        });
        reconcile(&mut probabilities, &near);
        assert_eq!(probabilities[40], reading(3, 0.97, 9));
    }

    /// Greys for cells 10-12 and 30 (white pieces, `light`) and 20-22 and 40 (black, `dark`).
    fn greys(light: f32, dark: f32) -> [Option<f32>; 64] {
        let mut greys = [None; 64];
        for cell in [10, 11, 12, 30] {
            greys[cell] = Some(light);
        }
        for cell in [20, 21, 22, 40] {
            greys[cell] = Some(dark);
        }
        greys
    }

    #[test]
    fn a_black_piece_read_white_turns_when_the_greys_split_clearly() {
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in [10, 11, 12, 30] {
            probabilities[cell] = reading(1, 0.99, 0); // P
        }
        for cell in [20, 21] {
            probabilities[cell] = reading(7, 0.99, 0); // p
        }
        probabilities[22] = reading(1, 0.6, 7); // read P, dark like the black pawns
        probabilities[40] = reading(7, 0.9, 0);
        reconcile(&mut probabilities, &greys(0.75, 0.3));
        assert!(probabilities[22][7] > 0.9, "{:?}", probabilities[22]);
        assert!(probabilities[10][1] > 0.98 && probabilities[20][7] > 0.98);
    }

    #[test]
    fn an_unsure_colour_the_greys_confirm_becomes_sure() {
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in [10, 11, 12] {
            probabilities[cell] = reading(1, 0.99, 0); // P
        }
        for cell in [20, 21, 22] {
            probabilities[cell] = reading(7, 0.99, 0); // p
        }
        probabilities[30] = reading(3, 0.6, 9); // read B, nearly b, light like the white pieces
        probabilities[40] = reading(9, 0.7, 3); // read b, nearly B, dark like the black ones
        reconcile(&mut probabilities, &greys(0.75, 0.3));
        assert!(probabilities[30][3] > 0.95, "{:?}", probabilities[30]);
        assert!(probabilities[40][9] > 0.95, "{:?}", probabilities[40]);
        // Another piece of the confirmed colour keeps its share.
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in [10, 11, 12] {
            probabilities[cell] = reading(1, 0.99, 0);
        }
        for cell in [20, 21, 22, 40] {
            probabilities[cell] = reading(7, 0.99, 0);
        }
        probabilities[30] = reading(5, 0.5, 2); // read Q, nearly N: both white
        reconcile(&mut probabilities, &greys(0.75, 0.3));
        assert_eq!(probabilities[30][5], 0.5);
        assert_eq!(probabilities[30][2], 0.5);
    }

    #[test]
    fn a_narrow_gap_or_a_split_the_readings_deny_changes_nothing() {
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in [10, 11, 12, 30] {
            probabilities[cell] = reading(1, 0.99, 0);
        }
        for cell in [20, 21, 40] {
            probabilities[cell] = reading(7, 0.99, 0);
        }
        probabilities[22] = reading(1, 0.6, 7);
        let before = probabilities.clone();
        // White and black pieces nearly as grey as each other: no line between them.
        reconcile(&mut probabilities, &greys(0.5, 0.5 - MIN_SPLIT_GAP * 0.8));
        assert_eq!(probabilities, before);
        // A clear split, but half the dark pieces read white: the split is not trusted.
        for cell in [20, 21] {
            probabilities[cell] = reading(1, 0.7, 7);
        }
        let before = probabilities.clone();
        reconcile(&mut probabilities, &greys(0.6, 0.6 - OVERRULING_GAP * 0.8));
        assert_eq!(probabilities, before);
    }
    #[test]
    fn a_very_wide_split_half_the_readings_agree_with_turns_sure_readings_too() {
        // Of the four dark pieces, two read white surely (0.9), one unsure; the greys part
        // widely.
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in [10, 11, 12, 30] {
            probabilities[cell] = reading(1, 0.99, 0); // P
        }
        probabilities[20] = reading(7, 0.99, 0); // p
        for cell in [21, 40] {
            probabilities[cell] = reading(1, 0.9, 7); // read P surely, dark
        }
        probabilities[22] = reading(1, 0.6, 7); // read P, nearly p, dark
        let wide = greys(0.75, 0.75 - OVERRULING_GAP * 1.1);
        let mut turned = probabilities.clone();
        reconcile(&mut turned, &wide);
        for cell in [20, 21, 22, 40] {
            assert!(turned[cell][7] > 0.5, "{cell}: {:?}", turned[cell]);
        }
        assert!(turned[10][1] > 0.98);
        // Under that gap, the same readings are not trusted (5 of 8 agree): nothing changes.
        let narrower = greys(0.75, 0.75 - OVERRULING_GAP * 0.9);
        let mut kept = probabilities.clone();
        reconcile(&mut kept, &narrower);
        assert_eq!(kept, probabilities);
        // And where fewer than half agree (3 of 8), not even a very wide split is.
        probabilities[20] = reading(1, 0.99, 7);
        probabilities[30] = reading(7, 0.99, 1);
        let mut kept = probabilities.clone();
        reconcile(&mut kept, &wide);
        assert_eq!(kept, probabilities);
    }

    #[test]
    fn two_kings_of_one_side_take_their_colours_from_their_greys() {
        // A white piece on cell 10, a black one on 20, both read surely as White's king.
        let board = board(&[10, 11], &[20, 21]);
        let greys = mean_greys(&board, &silhouettes(&board));
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        probabilities[10] = reading(6, 0.99, 5); // K, else Q
        probabilities[20] = reading(6, 1.0, 12); // K
        let mut turned = probabilities.clone();
        kings_by_grey(&mut turned, &greys);
        assert_eq!(turned[10], probabilities[10]);
        assert_eq!(best_class(&turned[20]), 12, "{:?}", turned[20]);
        // Both read as Black's: the lighter becomes White's.
        let mut both_black = probabilities.clone();
        both_black[10] = reading(12, 0.9, 11); // k, else q
        both_black[20] = reading(12, 0.99, 0);
        kings_by_grey(&mut both_black, &greys);
        assert_eq!(best_class(&both_black[10]), 6);
        assert!(
            (both_black[10][5] - 0.1).abs() < 1e-6,
            "the queen turns with the king"
        );
        assert_eq!(best_class(&both_black[20]), 12);
        // Two kings drawn alike (two white pieces), or a third king: left as read.
        let mut alike = probabilities.clone();
        alike[20] = reading(0, 1.0, 1);
        alike[11] = reading(6, 1.0, 12);
        let before = alike.clone();
        kings_by_grey(&mut alike, &greys);
        assert_eq!(alike, before);
        let mut three = probabilities.clone();
        three[21] = reading(12, 1.0, 6);
        let before = three.clone();
        kings_by_grey(&mut three, &greys);
        assert_eq!(three, before);
    }

    /// A board lit from the left: light and dark squares (0.8, 0.45), white pieces as in
    /// [`board`], black pieces a blob of `black_grey`, every pixel times a light falling
    /// linearly from 1 at the left edge to `1 - dim` at the right.
    fn lit_board(white: &[usize], black: &[usize], black_grey: f32, dim: f32) -> Rectified {
        let mut lit = board(white, &[]);
        for y in 0..8 * SQUARE {
            for x in 0..8 * SQUARE {
                let cell = (y / SQUARE) * 8 + x / SQUARE;
                let (dx, dy) = ((x % SQUARE) as f32 - 11.5, (y % SQUARE) as f32 - 11.5);
                let pixel = &mut lit.gray[(y + MARGIN) * BOARD + x + MARGIN];
                if black.contains(&cell) && (dx * dx + dy * dy).sqrt() < 8.0 {
                    *pixel = black_grey;
                }
                *pixel *= 1.0 - dim * x as f32 / (8 * SQUARE) as f32;
            }
        }
        lit
    }

    #[test]
    fn the_light_on_each_square_is_measured_from_the_squares_around_the_pieces() {
        let lit = lit_board(&[9, 27], &[0, 18], 0.1, 0.5);
        let light = light_field(&lit, &silhouettes(&lit));
        // At the squares' centres the light falls from 1 - 0.5 / 16 to 1 - 0.5 * 15 / 16.
        let (left, right) = (1.0 - 0.5 / 16.0, 1.0 - 0.5 * 15.0 / 16.0);
        for row in 0..8 {
            let ratio = light[row * 8 + 7] / light[row * 8];
            assert!((ratio - right / left).abs() < 0.05, "row {row}: {ratio}");
        }
        // Evenly lit, the field is flat.
        let even = board(&[9, 27], &[0, 18]);
        let flat = light_field(&even, &silhouettes(&even));
        assert!(flat.iter().all(|l| (l - 1.0).abs() < 0.01), "{flat:?}");
    }

    #[test]
    fn pieces_lit_from_one_side_are_split_by_the_light_on_their_squares() {
        // Mid-grey black pieces on the light squares of the bright left half, white pieces on
        // the dim right half: as they are, the far white pieces are as dark as the black ones.
        let (white, black) = ([5, 7, 14, 21, 23], [0, 2, 9, 16, 18]);
        let lit = lit_board(&white, &black, 0.35, 0.6);
        let outlines = silhouettes(&lit);
        let mut probabilities = vec![reading(0, 1.0, 1); 64];
        for cell in white {
            probabilities[cell] = reading(3, 0.6, 9); // B, nearly b
        }
        for cell in black {
            probabilities[cell] = reading(9, 0.6, 3); // b, nearly B
        }
        let parted = |greys: &[Option<f32>; 64]| {
            let lightest_black = black.iter().filter_map(|&c| greys[c]).fold(0.0, f32::max);
            let darkest_white = white.iter().filter_map(|&c| greys[c]).fold(1.0, f32::min);
            darkest_white - lightest_black
        };
        let raw = mean_greys(&lit, &outlines);
        assert!(
            parted(&raw) < MIN_SPLIT_GAP,
            "as they are: {}",
            parted(&raw)
        );
        let evened = greys_in_even_light(&lit, &outlines);
        assert!(
            parted(&evened) > MIN_SPLIT_GAP,
            "in even light: {}",
            parted(&evened)
        );
        // ... and the split turns the unsure readings on the wrong side.
        reconcile(&mut probabilities, &evened);
        for cell in white {
            assert_eq!(
                best_class(&probabilities[cell]),
                3,
                "{:?}",
                probabilities[cell]
            );
        }
        for cell in black {
            assert_eq!(
                best_class(&probabilities[cell]),
                9,
                "{:?}",
                probabilities[cell]
            );
        }
        // Evenly lit, the greys are taken as they are.
        let even = board(&white, &[]);
        let outlines = silhouettes(&even);
        let (as_they_are, evened) = (
            mean_greys(&even, &outlines),
            greys_in_even_light(&even, &outlines),
        );
        for cell in white {
            let (a, b) = (
                as_they_are[cell].unwrap_or(0.0),
                evened[cell].unwrap_or(1.0),
            );
            assert!((a - b).abs() < 1e-4, "{cell}: {a} against {b}");
        }
    }
}
