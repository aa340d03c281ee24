//! A single board as an SVG document: squares, coordinates, highlights, pieces (embedded SVG),
//! arrows and circles. Textured looks embed the texture as PNG.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use fenlens_fen::shakmaty::{Board, File, Rank, Square};

use crate::RenderError;
use crate::draw::display_cell;
use crate::pieces::PieceSet;
use crate::style::{BoardLook, BoardStyle, Coords, Hatch, HintShape, Rgb, Tint};

fn hex(rgb: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

/// Writes `board` as SVG with squares of `square` user units.
pub fn board_svg(
    board: &Board,
    style: &BoardStyle,
    pieces: &PieceSet,
    square: u32,
) -> Result<String, RenderError> {
    let s = square.max(4) as f32;
    let margin = if style.coords == Coords::Outside {
        (0.45 * s).round().max(8.0)
    } else {
        0.0
    };
    let frame = (style.frame * s).round();
    let offset = margin + frame;
    let total = 8.0 * s + 2.0 * offset;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{total}" viewBox="0 0 {total} {total}">"#
    );
    if frame > 0.0 {
        let _ = writeln!(
            out,
            r#"<rect width="{total}" height="{total}" fill="{}"/>"#,
            hex(style.frame_rgb)
        );
    }
    if margin > 0.0 {
        let bg = if style.look.is_book() {
            "#ffffff"
        } else {
            "#302e2b"
        };
        let _ = writeln!(
            out,
            r#"<rect x="{frame}" y="{frame}" width="{}" height="{}" fill="{bg}"/>"#,
            total - 2.0 * frame,
            total - 2.0 * frame
        );
    }
    let cell = |sq: Square| {
        let (col, row) = display_cell(sq, style.flipped);
        (offset + col as f32 * s, offset + row as f32 * s)
    };
    match &style.look {
        BoardLook::Flat { light, dark, .. } => {
            for row in 0..8 {
                for col in 0..8 {
                    let rgb = if (row + col) % 2 == 0 { light } else { dark };
                    let _ = writeln!(
                        out,
                        r#"<rect x="{}" y="{}" width="{s}" height="{s}" fill="{}"/>"#,
                        offset + col as f32 * s,
                        offset + row as f32 * s,
                        hex(*rgb)
                    );
                }
            }
        }
        BoardLook::Texture { image, .. } => {
            let mut png = Vec::new();
            image
                .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                .map_err(|e| RenderError::Invalid(format!("cannot embed texture: {e}")))?;
            let _ = writeln!(
                out,
                r#"<image x="{offset}" y="{offset}" width="{}" height="{}" preserveAspectRatio="none" href="data:image/png;base64,{}"/>"#,
                8.0 * s,
                8.0 * s,
                STANDARD.encode(png)
            );
        }
        BoardLook::Book { hatch } => {
            let step = (s / 7.0).max(2.0);
            let _ = writeln!(
                out,
                r#"<defs><pattern id="hatch" width="{step}" height="{step}" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="{step}" stroke="black" stroke-width="{}"/></pattern><pattern id="dots" width="{step}" height="{step}" patternUnits="userSpaceOnUse"><circle cx="{h}" cy="{h}" r="{r}" fill="black"/></pattern></defs>"#,
                step * 0.35,
                h = step / 2.0,
                r = step * 0.22
            );
            let fill = match hatch {
                Hatch::Diagonal => "url(#hatch)".to_string(),
                Hatch::Stipple => "url(#dots)".to_string(),
                Hatch::Grey => "#969696".to_string(),
            };
            let _ = writeln!(
                out,
                r##"<rect x="{offset}" y="{offset}" width="{}" height="{}" fill="#ffffff" stroke="black" stroke-width="{}"/>"##,
                8.0 * s,
                8.0 * s,
                (s * 0.08).max(1.0)
            );
            for row in 0..8 {
                for col in 0..8 {
                    if (row + col) % 2 == 1 {
                        let _ = writeln!(
                            out,
                            r#"<rect x="{}" y="{}" width="{s}" height="{s}" fill="{fill}"/>"#,
                            offset + col as f32 * s,
                            offset + row as f32 * s
                        );
                    }
                }
            }
        }
    }
    let tint_rect = |out: &mut String, sq: Square, tint: &Tint| {
        let (x, y) = cell(sq);
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{y}" width="{s}" height="{s}" fill="{}" fill-opacity="{}"/>"#,
            hex(tint.rgb),
            tint.alpha
        );
    };
    for (sq, tint) in &style.highlights {
        tint_rect(&mut out, *sq, tint);
    }
    for (i, hint) in style.hints.iter().enumerate() {
        let (x, y) = cell(hint.square);
        let (cx, cy) = (x + s / 2.0, y + s / 2.0);
        let (fill, opacity) = (hex(hint.tint.rgb), hint.tint.alpha);
        let _ = match hint.shape {
            HintShape::Dot { radius } => writeln!(
                out,
                r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="{fill}" fill-opacity="{opacity}"/>"#,
                radius * s
            ),
            HintShape::Ring { radius, width } => writeln!(
                out,
                r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="none" stroke="{fill}" stroke-opacity="{opacity}" stroke-width="{}"/>"#,
                (radius - width / 2.0) * s,
                width * s
            ),
            HintShape::Corners { radius } => {
                let r = radius * s;
                // Clipped to the square: the circle can reach past its edges.
                writeln!(
                    out,
                    r#"<clipPath id="hint{i}"><rect x="{x}" y="{y}" width="{s}" height="{s}"/></clipPath><path clip-path="url(#hint{i})" d="M{x} {y}h{s}v{s}h-{s}Z M{} {cy}a{r} {r} 0 1 0 {} 0a{r} {r} 0 1 0 -{} 0Z" fill-rule="evenodd" fill="{fill}" fill-opacity="{opacity}"/>"#,
                    cx - r,
                    2.0 * r,
                    2.0 * r
                )
            }
        };
    }
    if let Some(king) = style.check {
        let (x, y) = cell(king);
        let _ = writeln!(
            out,
            r##"<defs><radialGradient id="check"><stop offset="0%" stop-color="red"/><stop offset="25%" stop-color="#e70000"/><stop offset="90%" stop-color="#a90000" stop-opacity="0"/></radialGradient></defs><rect x="{x}" y="{y}" width="{s}" height="{s}" fill="url(#check)"/>"##
        );
    }
    let font = r#"font-family="DejaVu Sans, Verdana, sans-serif" font-weight="bold""#;
    match style.coords {
        Coords::Inside => {
            let size = (s * 0.24).max(6.0);
            for col in 0..8u32 {
                let file = File::new(if style.flipped { 7 - col } else { col }).char();
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{}" font-size="{size}" {font} text-anchor="end">{file}</text>"#,
                    offset + (col as f32 + 1.0) * s - s * 0.05,
                    offset + 8.0 * s - s * 0.06
                );
            }
            for row in 0..8u32 {
                let rank = Rank::new(if style.flipped { row } else { 7 - row }).char();
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{}" font-size="{size}" {font}>{rank}</text>"#,
                    offset + s * 0.05,
                    offset + row as f32 * s + size
                );
            }
        }
        Coords::Outside => {
            let size = (margin * 0.7).max(6.0);
            let fill = if style.look.is_book() {
                "#000000"
            } else {
                "#d0d0d0"
            };
            for col in 0..8u32 {
                let file = File::new(if style.flipped { 7 - col } else { col }).char();
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{}" font-size="{size}" {font} fill="{fill}" text-anchor="middle">{file}</text>"#,
                    offset + (col as f32 + 0.5) * s,
                    offset + 8.0 * s + margin * 0.8
                );
            }
            for row in 0..8u32 {
                let rank = Rank::new(if style.flipped { row } else { 7 - row }).char();
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{}" font-size="{size}" {font} fill="{fill}" text-anchor="middle">{rank}</text>"#,
                    offset - margin / 2.0,
                    offset + (row as f32 + 0.5) * s + size * 0.36
                );
            }
        }
        Coords::None => {}
    }
    let piece_size = s * style.piece_scale.clamp(0.3, 1.2);
    let inset = (s - piece_size) / 2.0;
    let image = |out: &mut String, piece, x: f32, y: f32, opacity: f32| {
        let data = STANDARD.encode(pieces.svg_source(piece));
        let faint = if opacity < 1.0 {
            format!(r#" opacity="{opacity}""#)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            r#"<image x="{}" y="{}" width="{piece_size}" height="{piece_size}"{faint} href="data:image/svg+xml;base64,{data}"/>"#,
            x + inset,
            y + inset
        );
    };
    for (sq, piece) in board {
        let (x, y) = cell(sq);
        image(&mut out, piece, x, y, style.piece_opacity(sq));
    }
    for (sq, tint) in &style.circles {
        let (x, y) = cell(*sq);
        let _ = writeln!(
            out,
            r#"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="{}" stroke-opacity="{}" stroke-width="{}"/>"#,
            x + s / 2.0,
            y + s / 2.0,
            s * 0.45,
            hex(tint.rgb),
            tint.alpha,
            s * 0.07
        );
    }
    for (from, to, tint) in &style.arrows {
        let (fx, fy) = cell(*from);
        let (tx, ty) = cell(*to);
        let (fx, fy, tx, ty) = (fx + s / 2.0, fy + s / 2.0, tx + s / 2.0, ty + s / 2.0);
        let (dx, dy) = (tx - fx, ty - fy);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        let (nx, ny) = (-uy, ux);
        let (sh, hl, hh) = (s * 0.075, s * 0.55, s * 0.3);
        let (sx, sy) = (fx + ux * s * 0.15, fy + uy * s * 0.15);
        let (px, py) = (tx - ux * s * 0.1, ty - uy * s * 0.1);
        let (bx, by) = (px - ux * hl, py - uy * hl);
        let points = [
            (sx + nx * sh, sy + ny * sh),
            (bx + nx * sh, by + ny * sh),
            (bx + nx * hh, by + ny * hh),
            (px, py),
            (bx - nx * hh, by - ny * hh),
            (bx - nx * sh, by - ny * sh),
            (sx - nx * sh, sy - ny * sh),
        ];
        let list: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.2},{y:.2}"))
            .collect();
        let _ = writeln!(
            out,
            r#"<polygon points="{}" fill="{}" fill-opacity="{}"/>"#,
            list.join(" "),
            hex(tint.rgb),
            tint.alpha
        );
    }
    for dragged in &style.dragged {
        if let Some(piece) = board.piece_at(dragged.from) {
            let (x, y) = cell(dragged.from);
            let [dx, dy] = dragged.offset;
            image(&mut out, piece, x + dx * s, y + dy * s, 1.0);
        }
    }
    out.push_str("</svg>\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_renders_back_with_resvg() {
        let style = BoardStyle {
            coords: Coords::Inside,
            arrows: vec![(Square::E2, Square::E4, crate::style::ARROW_GREEN)],
            ..BoardStyle::default()
        };
        let svg = board_svg(&Board::new(), &style, &PieceSet::builtin(), 40).unwrap();
        assert_eq!(svg.matches("<image").count(), 32);
        let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).unwrap();
        assert_eq!(tree.size().width(), 320.0);
    }

    #[test]
    fn a_dragged_piece_in_svg_is_a_ghost_and_a_copy_off_its_square() {
        let style = BoardStyle {
            dragged: vec![crate::style::Dragged {
                from: Square::E2,
                offset: [0.5, -1.0],
                ghost: 0.3,
            }],
            ..BoardStyle::default()
        };
        let svg = board_svg(&Board::new(), &style, &PieceSet::builtin(), 40).unwrap();
        assert_eq!(
            svg.matches("<image").count(),
            33,
            "32 pieces and the dragged one"
        );
        assert_eq!(svg.matches(r#"opacity="0.3""#).count(), 1, "one ghost");
        // e2 is at x 160, y 240 on squares of 40; the copy half a square right, one up.
        assert!(svg.contains(r#"<image x="180" y="200""#), "{svg}");
        resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).unwrap();
    }

    #[test]
    fn move_hints_in_svg_look_as_drawn_in_png() {
        use crate::style::{HintShape, LICHESS_HINT, MoveHint};
        let hint = |square, shape| MoveHint {
            square,
            shape,
            tint: LICHESS_HINT,
        };
        let style = BoardStyle {
            hints: vec![
                hint(Square::E4, HintShape::Dot { radius: 0.134 }),
                hint(Square::E7, HintShape::Corners { radius: 0.566 }),
                hint(
                    Square::D7,
                    HintShape::Ring {
                        radius: 0.5,
                        width: 0.1,
                    },
                ),
            ],
            ..BoardStyle::default()
        };
        let board = Board::new();
        let svg = board_svg(&board, &style, &PieceSet::builtin(), 40).unwrap();
        let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default()).unwrap();
        let mut from_svg = resvg::tiny_skia::Pixmap::new(320, 320).unwrap();
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::identity(),
            &mut from_svg.as_mut(),
        );
        let from_png = crate::draw::draw_board(&board, &style, &PieceSet::builtin(), 40).pixmap;
        let at = |p: &resvg::tiny_skia::Pixmap, x, y| {
            let c = p.pixel(x, y).unwrap().demultiply();
            [c.red(), c.green(), c.blue()]
        };
        // e4's dot, e7's shaded corner, d7's ring, and e6 (not marked) beside e7's edge.
        for (x, y) in [(180, 180), (161, 41), (140, 41), (180, 81), (180, 100)] {
            let (a, b) = (at(&from_svg, x, y), at(&from_png, x, y));
            assert!(
                (0..3).all(|k| a[k].abs_diff(b[k]) <= 3),
                "({x}, {y}): svg {a:?} png {b:?}"
            );
        }
        assert_ne!(
            at(&from_png, 180, 180),
            at(&from_png, 180, 170),
            "e4's dot is drawn"
        );
        assert_ne!(
            at(&from_png, 161, 41),
            at(&from_png, 161, 60),
            "e7's corner is shaded"
        );
    }
}
