//! Drawing one board: squares, coordinates, highlights, pieces, arrows, circles and frame.
//!
//! The result records exactly where the 8x8 playing area is, so every later transformation can
//! carry the corners along as ground truth.

use fenlens_fen::shakmaty::{Board, File, Piece, Rank, Role, Square};
use image::imageops::FilterType;
use resvg::tiny_skia::{
    self, Color as SkColor, FillRule, GradientStop, Paint, PathBuilder, Pixmap, PixmapPaint, Point,
    RadialGradient, Rect, SpreadMode, Stroke, Transform,
};

#[cfg(test)]
use crate::pieces::PieceSet;
use crate::pieces::{PieceDrawings, piece_index};
use crate::style::{
    BoardLook, BoardStyle, Coords, Hatch, HintShape, MoveHint, PieceVariation, Rgb, Tint, Warp,
};
use crate::text::{self, Face, Pen};

/// A drawn board and where its playing area is.
pub struct DrawnBoard {
    /// The picture (premultiplied RGBA).
    pub pixmap: Pixmap,
    /// Left edge of the playing area, in pixels.
    pub x: f32,
    /// Top edge of the playing area.
    pub y: f32,
    /// Side of the playing area (8 squares).
    pub side: f32,
}

impl DrawnBoard {
    /// The playing area's corners: top-left, top-right, bottom-right, bottom-left.
    pub fn corners(&self) -> [[f32; 2]; 4] {
        let (x, y, s) = (self.x, self.y, self.side);
        [[x, y], [x + s, y], [x + s, y + s], [x, y + s]]
    }
}

fn paint(rgb: Rgb, alpha: f32) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(SkColor::from_rgba8(
        rgb[0],
        rgb[1],
        rgb[2],
        (alpha.clamp(0.0, 1.0) * 255.0) as u8,
    ));
    paint.anti_alias = true;
    paint
}

/// Column and row (0-7, from the top-left as displayed) of a square.
pub fn display_cell(square: Square, flipped: bool) -> (u32, u32) {
    let file = square.file() as u32;
    let rank = square.rank() as u32;
    if flipped {
        (7 - file, rank)
    } else {
        (file, 7 - rank)
    }
}

/// Draws `board` with squares of `square` pixels.
pub fn draw_board(
    board: &Board,
    style: &BoardStyle,
    pieces: &(impl PieceDrawings + ?Sized),
    square: u32,
) -> DrawnBoard {
    let square = square.max(4);
    let s = square as f32;
    let side = 8.0 * s;
    let frame = (style.frame * s).round();
    let margin = if style.coords == Coords::Outside {
        (0.45 * s).round().max(8.0)
    } else {
        0.0
    };
    // Printed diagrams have a black line around the playing area.
    let book_line = if style.look.is_book() {
        (s * 0.06).round().max(2.0)
    } else {
        0.0
    };
    let offset = frame + margin + book_line;
    let total = (side + 2.0 * offset) as u32;
    // Sizes are bounded by `square`, which callers keep far below tiny-skia's limits.
    let mut pixmap = Pixmap::new(total, total).expect("board fits in a pixmap");
    if margin > 0.0 {
        let background = if style.look.is_book() {
            [255, 255, 255]
        } else {
            [0x30, 0x2e, 0x2b]
        };
        pixmap.fill(SkColor::from_rgba8(
            background[0],
            background[1],
            background[2],
            255,
        ));
    }

    draw_squares(&mut pixmap, &style.look, offset, s);
    let cell_rect = |sq: Square| {
        let (col, row) = display_cell(sq, style.flipped);
        Rect::from_xywh(offset + col as f32 * s, offset + row as f32 * s, s, s)
    };
    for (sq, tint) in &style.highlights {
        if let Some(rect) = cell_rect(*sq) {
            pixmap.fill_rect(
                rect,
                &paint(tint.rgb, tint.alpha),
                Transform::identity(),
                None,
            );
        }
    }
    if let Some(king) = style.check {
        if let Some(rect) = cell_rect(king) {
            draw_check_glow(&mut pixmap, rect);
        }
    }
    if style.coords == Coords::Inside {
        draw_inside_coords(&mut pixmap, &style.look, style.flipped, offset, s);
    }
    for hint in &style.hints {
        if let Some(rect) = cell_rect(hint.square) {
            draw_hint(&mut pixmap, rect, hint);
        }
    }

    let piece_px = ((s * style.piece_scale.clamp(0.3, 1.2)).round() as u32).max(1);
    let sprites = pieces.sprites(piece_px);
    let variation = &style.piece_variation;
    let varied: Option<Vec<Pixmap>> = (!variation.is_identity()).then(|| {
        sprites
            .iter()
            .enumerate()
            .map(|(i, sprite)| vary_sprite(sprite, i < 6, variation))
            .collect()
    });
    let inset = (s - piece_px as f32) / 2.0;
    // Draws a piece with its square's top-left corner at display cell (col, row), which may
    // lie between cells (a dragged piece).
    let draw_piece = |pixmap: &mut Pixmap, piece: Piece, col: f32, row: f32, opacity: f32| {
        let role = variation.role_stretch[piece.role as usize - 1];
        let [sx, sy] = [0, 1].map(|i| (variation.stretch[i] * role[i]).clamp(0.4, 1.5));
        let index = piece_index(piece);
        let sprite = match &varied {
            Some(varied) => varied[index].as_ref(),
            None => sprites[index].as_ref(),
        };
        if sx == 1.0 && sy == 1.0 {
            let x = offset + col * s + inset;
            let y = offset + row * s + inset;
            pixmap.draw_pixmap(
                x.round() as i32,
                y.round() as i32,
                sprite,
                &PixmapPaint {
                    opacity,
                    ..PixmapPaint::default()
                },
                Transform::identity(),
                None,
            );
        } else {
            // Stretched about the square's centre, keeping the base on the same line.
            let cx = offset + (col + 0.5) * s;
            let bottom = offset + row * s + inset + piece_px as f32;
            let x = cx - piece_px as f32 * sx / 2.0;
            let y = bottom - piece_px as f32 * sy;
            pixmap.draw_pixmap(
                0,
                0,
                sprite,
                &PixmapPaint {
                    opacity,
                    quality: tiny_skia::FilterQuality::Bilinear,
                    ..PixmapPaint::default()
                },
                Transform::from_row(sx, 0.0, 0.0, sy, x, y),
                None,
            );
        }
    };
    for (sq, piece) in board {
        let (col, row) = display_cell(sq, style.flipped);
        draw_piece(
            &mut pixmap,
            piece,
            col as f32,
            row as f32,
            style.piece_opacity(sq),
        );
    }

    let center = |sq: Square| {
        let (col, row) = display_cell(sq, style.flipped);
        Point::from_xy(
            offset + (col as f32 + 0.5) * s,
            offset + (row as f32 + 0.5) * s,
        )
    };
    for (sq, tint) in &style.circles {
        let c = center(*sq);
        if let Some(path) = PathBuilder::from_circle(c.x, c.y, s * 0.45) {
            let stroke = Stroke {
                width: s * 0.07,
                ..Stroke::default()
            };
            pixmap.stroke_path(
                &path,
                &paint(tint.rgb, tint.alpha),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    }
    for (from, to, tint) in &style.arrows {
        draw_arrow(&mut pixmap, center(*from), center(*to), s, *tint);
    }
    for dragged in &style.dragged {
        if let Some(piece) = board.piece_at(dragged.from) {
            let (col, row) = display_cell(dragged.from, style.flipped);
            let [dx, dy] = dragged.offset;
            draw_piece(&mut pixmap, piece, col as f32 + dx, row as f32 + dy, 1.0);
        }
    }
    if style.coords == Coords::Outside {
        draw_outside_coords(&mut pixmap, &style.look, style.flipped, offset, s, margin);
    }
    if frame > 0.0 {
        let rgb = style.frame_rgb;
        let t = frame;
        for rect in [
            Rect::from_xywh(0.0, 0.0, total as f32, t),
            Rect::from_xywh(0.0, total as f32 - t, total as f32, t),
            Rect::from_xywh(0.0, 0.0, t, total as f32),
            Rect::from_xywh(total as f32 - t, 0.0, t, total as f32),
        ]
        .into_iter()
        .flatten()
        {
            pixmap.fill_rect(rect, &paint(rgb, 1.0), Transform::identity(), None);
        }
    }
    if book_line > 0.0 {
        let (x, width) = (offset - book_line, side + 2.0 * book_line);
        for rect in [
            Rect::from_xywh(x, x, width, book_line),
            Rect::from_xywh(x, offset + side, width, book_line),
            Rect::from_xywh(x, x, book_line, width),
            Rect::from_xywh(offset + side, x, book_line, width),
        ]
        .into_iter()
        .flatten()
        {
            pixmap.fill_rect(rect, &paint([0, 0, 0], 1.0), Transform::identity(), None);
        }
    }
    DrawnBoard {
        pixmap,
        x: offset,
        y: offset,
        side,
    }
}

fn is_light(col: u32, row: u32) -> bool {
    (col + row) % 2 == 0
}

fn draw_squares(pixmap: &mut Pixmap, look: &BoardLook, offset: f32, s: f32) {
    match look {
        BoardLook::Flat { light, dark, .. } => {
            for row in 0..8 {
                for col in 0..8 {
                    let rgb = if is_light(col, row) { *light } else { *dark };
                    if let Some(rect) =
                        Rect::from_xywh(offset + col as f32 * s, offset + row as f32 * s, s, s)
                    {
                        let mut p = paint(rgb, 1.0);
                        p.anti_alias = false;
                        pixmap.fill_rect(rect, &p, Transform::identity(), None);
                    }
                }
            }
        }
        BoardLook::Texture { image, .. } => {
            let side = (8.0 * s).round() as u32;
            let resized = image::imageops::resize(image.as_ref(), side, side, FilterType::Triangle);
            if let Some(layer) = rgba_to_pixmap(&resized) {
                pixmap.draw_pixmap(
                    offset.round() as i32,
                    offset.round() as i32,
                    layer.as_ref(),
                    &PixmapPaint::default(),
                    Transform::identity(),
                    None,
                );
            }
        }
        BoardLook::Book { hatch } => {
            if let Some(rect) = Rect::from_xywh(offset, offset, 8.0 * s, 8.0 * s) {
                pixmap.fill_rect(
                    rect,
                    &paint([255, 255, 255], 1.0),
                    Transform::identity(),
                    None,
                );
            }
            for row in 0..8 {
                for col in 0..8 {
                    if !is_light(col, row) {
                        draw_hatched(
                            pixmap,
                            *hatch,
                            offset + col as f32 * s,
                            offset + row as f32 * s,
                            s,
                        );
                    }
                }
            }
        }
    }
}

/// Diagonal lines, dots or grey over one dark square of a printed diagram.
fn draw_hatched(pixmap: &mut Pixmap, hatch: Hatch, x: f32, y: f32, s: f32) {
    match hatch {
        Hatch::Grey => {
            if let Some(rect) = Rect::from_xywh(x, y, s, s) {
                pixmap.fill_rect(
                    rect,
                    &paint([150, 150, 150], 1.0),
                    Transform::identity(),
                    None,
                );
            }
        }
        Hatch::Diagonal => {
            let step = (s / 7.0).max(2.0);
            let mut pb = PathBuilder::new();
            // Lines x' + y' = c inside the square (x', y' local), c from step/2 to 2s.
            let mut c = step / 2.0;
            while c < 2.0 * s {
                let (x0, y0) = if c <= s { (0.0, c) } else { (c - s, s) };
                let (x1, y1) = if c <= s { (c, 0.0) } else { (s, c - s) };
                pb.move_to(x + x0, y + y0);
                pb.line_to(x + x1, y + y1);
                c += step;
            }
            if let Some(path) = pb.finish() {
                let stroke = Stroke {
                    width: (step * 0.35).max(0.8),
                    ..Stroke::default()
                };
                pixmap.stroke_path(
                    &path,
                    &paint([0, 0, 0], 1.0),
                    &stroke,
                    Transform::identity(),
                    None,
                );
            }
        }
        Hatch::Stipple => {
            let step = (s / 8.0).max(2.0);
            let mut pb = PathBuilder::new();
            let mut row = 0;
            let mut yy = step / 2.0;
            while yy < s {
                let shift = if row % 2 == 0 { 0.0 } else { step / 2.0 };
                let mut xx = step / 2.0 + shift;
                while xx < s {
                    pb.push_circle(x + xx, y + yy, step * 0.22);
                    xx += step;
                }
                yy += step;
                row += 1;
            }
            if let Some(path) = pb.finish() {
                pixmap.fill_path(
                    &path,
                    &paint([0, 0, 0], 1.0),
                    FillRule::Winding,
                    Transform::identity(),
                    None,
                );
            }
        }
    }
}

fn draw_check_glow(pixmap: &mut Pixmap, rect: Rect) {
    let center = Point::from_xy(
        rect.x() + rect.width() / 2.0,
        rect.y() + rect.height() / 2.0,
    );
    let shader = RadialGradient::new(
        center,
        0.0,
        center,
        rect.width() * 0.6,
        vec![
            GradientStop::new(0.0, SkColor::from_rgba8(255, 0, 0, 255)),
            GradientStop::new(0.25, SkColor::from_rgba8(231, 0, 0, 255)),
            GradientStop::new(0.9, SkColor::from_rgba8(169, 0, 0, 0)),
            GradientStop::new(1.0, SkColor::from_rgba8(158, 0, 0, 0)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let Some(shader) = shader {
        let p = Paint {
            shader,
            anti_alias: true,
            ..Paint::default()
        };
        pixmap.fill_rect(rect, &p, Transform::identity(), None);
    }
}

fn draw_hint(pixmap: &mut Pixmap, rect: Rect, hint: &MoveHint) {
    let s = rect.width();
    let (cx, cy) = (rect.x() + s / 2.0, rect.y() + s / 2.0);
    let ink = paint(hint.tint.rgb, hint.tint.alpha);
    let mut pb = PathBuilder::new();
    let fill_rule = match hint.shape {
        HintShape::Dot { radius } => {
            pb.push_circle(cx, cy, (radius * s).max(0.5));
            FillRule::Winding
        }
        HintShape::Ring { radius, width } => {
            pb.push_circle(cx, cy, (radius * s).max(1.0));
            pb.push_circle(cx, cy, ((radius - width) * s).max(0.5));
            FillRule::EvenOdd
        }
        HintShape::Corners { radius } => {
            pb.push_rect(rect);
            pb.push_circle(cx, cy, (radius * s).max(0.5));
            FillRule::EvenOdd
        }
    };
    // Kept inside the square: the shaded corners' circle can reach past its edges.
    let mut inside = matches!(hint.shape, HintShape::Corners { .. })
        .then(|| tiny_skia::Mask::new(pixmap.width(), pixmap.height()))
        .flatten();
    if let Some(mask) = inside.as_mut() {
        mask.fill_path(
            &PathBuilder::from_rect(rect),
            FillRule::Winding,
            false,
            Transform::identity(),
        );
    }
    if let Some(path) = pb.finish() {
        pixmap.fill_path(
            &path,
            &ink,
            fill_rule,
            Transform::identity(),
            inside.as_ref(),
        );
    }
}

fn draw_arrow(pixmap: &mut Pixmap, from: Point, to: Point, s: f32, tint: Tint) {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let length = (dx * dx + dy * dy).sqrt();
    if length < 1.0 {
        return;
    }
    let (ux, uy) = (dx / length, dy / length);
    let (nx, ny) = (-uy, ux);
    let shaft = s * 0.15 / 2.0;
    let head_len = s * 0.55;
    let head_half = s * 0.3;
    // Start a little off the centre and stop the head short of the target centre, like lichess.
    let start = Point::from_xy(from.x + ux * s * 0.15, from.y + uy * s * 0.15);
    let tip = Point::from_xy(to.x - ux * s * 0.1, to.y - uy * s * 0.1);
    let base = Point::from_xy(tip.x - ux * head_len, tip.y - uy * head_len);
    let mut pb = PathBuilder::new();
    pb.move_to(start.x + nx * shaft, start.y + ny * shaft);
    pb.line_to(base.x + nx * shaft, base.y + ny * shaft);
    pb.line_to(base.x + nx * head_half, base.y + ny * head_half);
    pb.line_to(tip.x, tip.y);
    pb.line_to(base.x - nx * head_half, base.y - ny * head_half);
    pb.line_to(base.x - nx * shaft, base.y - ny * shaft);
    pb.line_to(start.x - nx * shaft, start.y - ny * shaft);
    pb.close();
    if let Some(path) = pb.finish() {
        pixmap.fill_path(
            &path,
            &paint(tint.rgb, tint.alpha),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

fn coord_colors(look: &BoardLook, on_light: bool) -> Rgb {
    match look {
        BoardLook::Flat { light, dark, .. } => {
            if on_light {
                *dark
            } else {
                *light
            }
        }
        BoardLook::Texture { .. } => {
            if on_light {
                [0x60, 0x40, 0x20]
            } else {
                [0xf0, 0xe0, 0xc0]
            }
        }
        BoardLook::Book { .. } => [0, 0, 0],
    }
}

/// Files along the bottom edge, ranks along the left edge, inside the squares (lichess style).
fn draw_inside_coords(pixmap: &mut Pixmap, look: &BoardLook, flipped: bool, offset: f32, s: f32) {
    let size = (s * 0.24).max(6.0);
    for col in 0..8u32 {
        let file = if flipped { 7 - col } else { col };
        let label = File::new(file).char().to_string();
        let rgb = coord_colors(look, is_light(col, 7));
        let x = offset + (col as f32 + 1.0) * s - text::width(&label, Face::Sans, size) - s * 0.05;
        let baseline = offset + 8.0 * s - s * 0.06;
        text::draw(pixmap, &label, Pen::new(Face::Sans, size, rgb), x, baseline);
    }
    for row in 0..8u32 {
        let rank = if flipped { row } else { 7 - row };
        let label = Rank::new(rank).char().to_string();
        let rgb = coord_colors(look, is_light(0, row));
        let x = offset + s * 0.05;
        let baseline = offset + row as f32 * s + size * 1.0;
        text::draw(pixmap, &label, Pen::new(Face::Sans, size, rgb), x, baseline);
    }
}

/// Files below the board and ranks to its left, in the margin.
fn draw_outside_coords(
    pixmap: &mut Pixmap,
    look: &BoardLook,
    flipped: bool,
    offset: f32,
    s: f32,
    margin: f32,
) {
    let size = (margin * 0.7).max(6.0);
    let rgb = if look.is_book() {
        [0, 0, 0]
    } else {
        [0xd0, 0xd0, 0xd0]
    };
    for col in 0..8u32 {
        let file = if flipped { 7 - col } else { col };
        let label = File::new(file).char().to_string();
        let x = offset + (col as f32 + 0.5) * s - text::width(&label, Face::Sans, size) / 2.0;
        let baseline = offset + 8.0 * s + margin * 0.8;
        text::draw(pixmap, &label, Pen::new(Face::Sans, size, rgb), x, baseline);
    }
    for row in 0..8u32 {
        let rank = if flipped { row } else { 7 - row };
        let label = Rank::new(rank).char().to_string();
        let x = offset - margin / 2.0 - text::width(&label, Face::Sans, size) / 2.0;
        let baseline = offset + (row as f32 + 0.5) * s + size * 0.36;
        text::draw(pixmap, &label, Pen::new(Face::Sans, size, rgb), x, baseline);
    }
}

/// An `RgbaImage` (straight alpha) as a tiny-skia pixmap (premultiplied).
pub fn rgba_to_pixmap(image: &image::RgbaImage) -> Option<Pixmap> {
    let mut pixmap = Pixmap::new(image.width(), image.height())?;
    for (dst, src) in pixmap.pixels_mut().iter_mut().zip(image.pixels()) {
        let [r, g, b, a] = src.0;
        *dst = tiny_skia::ColorU8::from_rgba(r, g, b, a).premultiply();
    }
    Some(pixmap)
}

/// A tiny-skia pixmap as an `RgbaImage` with straight alpha.
pub fn pixmap_to_rgba(pixmap: &Pixmap) -> image::RgbaImage {
    let mut out = image::RgbaImage::new(pixmap.width(), pixmap.height());
    for (dst, src) in out.pixels_mut().zip(pixmap.pixels()) {
        let c = src.demultiply();
        dst.0 = [c.red(), c.green(), c.blue(), c.alpha()];
    }
    out
}

/// Whether any king of the side in `board` is attacked, for the check glow: the king's square.
pub fn king_square(board: &Board, white: bool) -> Option<Square> {
    let color = fenlens_fen::shakmaty::Color::from_white(white);
    (board.by_role(Role::King) & board.by_color(color)).first()
}

/// Dark strokes one pixel thicker (`thicker`) or thinner: each pixel takes the darkest (or
/// lightest) opaque colour of its 3x3 neighbourhood.
fn shift_strokes(sprite: &Pixmap, w: usize, h: usize, thicker: bool) -> Pixmap {
    let mut out = sprite.clone();
    let src = sprite.data();
    let dst = out.data_mut();
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) * 4;
            let mut best: Option<[f32; 3]> = None;
            let mut alpha = src[i + 3];
            for ny in y.saturating_sub(1)..(y + 2).min(h) {
                for nx in x.saturating_sub(1)..(x + 2).min(w) {
                    let j = (ny * w + nx) * 4;
                    let a = src[j + 3];
                    if a < 128 {
                        continue;
                    }
                    alpha = if thicker { alpha.max(a) } else { alpha };
                    let rgb = [0, 1, 2].map(|c| src[j + c] as f32 * 255.0 / a as f32);
                    let luma = |c: &[f32; 3]| c[0] + c[1] + c[2];
                    best = match best {
                        Some(b) if (luma(&rgb) < luma(&b)) != thicker => Some(b),
                        _ => Some(rgb),
                    };
                }
            }
            if src[i + 3] == 0 && !thicker {
                continue;
            }
            if let Some(rgb) = best {
                for c in 0..3 {
                    dst[i + c] = (rgb[c].min(255.0) * alpha as f32 / 255.0).round() as u8;
                }
                dst[i + 3] = alpha;
            }
        }
    }
    out
}

/// One piece drawing altered by `variation`: dark strokes thickened or thinned by a pixel (by
/// two on sprites of 40 pixels and more when `stroke` is 2 or -2), fills striped, light parts
/// of white pieces and dark parts of black pieces recoloured and shaded.
fn vary_sprite(sprite: &Pixmap, white: bool, variation: &PieceVariation) -> Pixmap {
    let (w, h) = (sprite.width() as usize, sprite.height() as usize);
    let mut out = if variation.warp.amplitude > 0.0 {
        warp_sprite(sprite, w, h, &variation.warp)
    } else {
        sprite.clone()
    };
    if variation.pixelate > 1.0 {
        out = pixelate_sprite(&out, w, h, variation.pixelate);
    }
    let passes = match variation.stroke.unsigned_abs() {
        0 => 0,
        _ if w < 24 => 0,
        1 => 1,
        _ if w < 40 => 1,
        _ => 2,
    };
    for _ in 0..passes {
        out = shift_strokes(&out, w, h, variation.stroke > 0);
    }
    if variation.silhouette {
        outline_only(&mut out, w, h, white);
    }
    if variation.stripe_period > 0 && variation.stripes_on[usize::from(!white)] {
        stripe_fills(&mut out, w, h, white, variation.stripe_period);
    }
    let data = out.data_mut();
    for (i, px) in data.chunks_exact_mut(4).enumerate() {
        let a = px[3] as f32;
        let fill = if white {
            variation.white_fill
        } else {
            variation.black_fill
        };
        // How far down the drawing this pixel is, 0-1, counted from the shaded end.
        let down = (i / w) as f32 / (h.max(2) - 1) as f32;
        let from_shaded_end = if variation.shade < 0.0 {
            1.0 - down
        } else {
            down
        };
        let depth = variation.shade.abs() * from_shaded_end;
        for (channel, fill) in px[..3].iter_mut().zip(fill) {
            let v = *channel as f32;
            // Premultiplied: white parts scale toward the fill; black parts lift toward it.
            let mapped = if white {
                v * fill as f32 / 255.0 * (1.0 - depth)
            } else {
                v + (fill as f32 + (255.0 - fill as f32) * depth * 0.6) * (a - v).max(0.0) / 255.0
            };
            *channel = mapped.round().clamp(0.0, a) as u8;
        }
    }
    out
}

/// A drawing reduced to its outline: the pixels within a rim of about a twenty-fourth of its
/// width (at least one pixel) of its edge turn black, the rest white on a white piece and black
/// on a black one; the coverage (alpha) stays as drawn.
fn outline_only(sprite: &mut Pixmap, w: usize, h: usize, white: bool) {
    let rim = (w / 24).max(1) as isize;
    let alpha: Vec<u8> = sprite.data().chunks_exact(4).map(|px| px[3]).collect();
    let solid = |x: isize, y: isize| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && alpha[y as usize * w + x as usize] >= 128
    };
    let dst = sprite.data_mut();
    for y in 0..h as isize {
        for x in 0..w as isize {
            let i = (y as usize * w + x as usize) * 4;
            let a = dst[i + 3];
            let inside =
                white && (-rim..=rim).all(|dy| (-rim..=rim).all(|dx| solid(x + dx, y + dy)));
            let grey = if inside { a } else { 0 };
            dst[i..i + 3].fill(grey);
        }
    }
}

/// A drawing bent by `warp`: each pixel takes the (premultiplied) colour at a point moved by
/// the warp's two waves, read bilinearly; points outside the drawing are transparent.
fn warp_sprite(sprite: &Pixmap, w: usize, h: usize, warp: &Warp) -> Pixmap {
    let mut out = sprite.clone();
    let src = sprite.data();
    let at = |x: i64, y: i64, c: usize| -> f32 {
        if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
            0.0
        } else {
            src[(y as usize * w + x as usize) * 4 + c] as f32
        }
    };
    let wave = |[across, down, phase]: [f32; 3], u: f32, v: f32| {
        (std::f32::consts::TAU * (across * u + down * v) + phase).sin()
    };
    let dst = out.data_mut();
    for y in 0..h {
        for x in 0..w {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let sx = x as f32 + warp.amplitude * w as f32 * wave(warp.waves[0], u, v);
            let sy = y as f32 + warp.amplitude * h as f32 * wave(warp.waves[1], u, v);
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let i = (y * w + x) * 4;
            for c in 0..4 {
                let top = at(x0, y0, c) * (1.0 - fx) + at(x0 + 1, y0, c) * fx;
                let bottom = at(x0, y0 + 1, c) * (1.0 - fx) + at(x0 + 1, y0 + 1, c) * fx;
                dst[i + c] = (top * (1.0 - fy) + bottom * fy).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    out
}

/// A drawing made coarse: averaged down to blocks of about `factor` pixels, each block made
/// wholly opaque or wholly transparent (pixel art has hard edges), then enlarged back to the
/// drawing's size by repeating the blocks.
fn pixelate_sprite(sprite: &Pixmap, w: usize, h: usize, factor: f32) -> Pixmap {
    let (small_w, small_h) = (
        ((w as f32 / factor).round() as usize).clamp(1, w),
        ((h as f32 / factor).round() as usize).clamp(1, h),
    );
    let src = sprite.data();
    // The source pixels block (bx, by) covers, in one axis: [start, end).
    let span = |b: usize, small: usize, full: usize| {
        (
            b * full / small,
            ((b + 1) * full / small).max(b * full / small + 1),
        )
    };
    let mut blocks = vec![[0u8; 4]; small_w * small_h];
    for by in 0..small_h {
        let (y0, y1) = span(by, small_h, h);
        for bx in 0..small_w {
            let (x0, x1) = span(bx, small_w, w);
            let mut sum = [0u32; 4];
            for y in y0..y1 {
                for x in x0..x1 {
                    let i = (y * w + x) * 4;
                    for c in 0..4 {
                        sum[c] += u32::from(src[i + c]);
                    }
                }
            }
            let n = ((y1 - y0) * (x1 - x0)) as u32;
            let alpha = sum[3] / n;
            if alpha >= 128 {
                // Premultiplied sums: the colour of the covered part, made opaque.
                let [r, g, b] = [0, 1, 2].map(|c| (sum[c] * 255 / sum[3]).min(255) as u8);
                blocks[by * small_w + bx] = [r, g, b, 255];
            }
        }
    }
    let mut out = sprite.clone();
    let dst = out.data_mut();
    for y in 0..h {
        let by = (y * small_h / h).min(small_h - 1);
        for x in 0..w {
            let bx = (x * small_w / w).min(small_w - 1);
            let i = (y * w + x) * 4;
            dst[i..i + 4].copy_from_slice(&blocks[by * small_w + bx]);
        }
    }
    out
}

/// Draws stripes across a drawing's fills, one row in `period`: on a white piece, its light
/// parts turn dark on those rows; on a black piece, its dark parts turn light. Only pixels two
/// pixels inside the drawing change, so the outline stays whole.
fn stripe_fills(sprite: &mut Pixmap, w: usize, h: usize, white: bool, period: u8) {
    let period = usize::from(period.max(2));
    let src = sprite.data().to_vec();
    let opaque = |x: usize, y: usize| src[(y * w + x) * 4 + 3] == 255;
    let dst = sprite.data_mut();
    for y in 2..h.saturating_sub(2) {
        if y % period != 0 && !(period >= 6 && y % period == 1) {
            continue;
        }
        for x in 2..w.saturating_sub(2) {
            if !(opaque(x, y)
                && opaque(x - 2, y)
                && opaque(x + 2, y)
                && opaque(x, y - 2)
                && opaque(x, y + 2))
            {
                continue;
            }
            let i = (y * w + x) * 4;
            let luma = (src[i] as u32 + src[i + 1] as u32 + src[i + 2] as u32) / 3;
            match (white, luma) {
                (true, 128..) => dst[i..i + 3].fill(40),
                (false, ..128) => dst[i..i + 3].fill(230),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::{BoardLook, Dragged};

    #[test]
    fn piece_variation_recolours_and_reshapes_the_drawings() {
        let set = PieceSet::builtin();
        let sprite = set.sprites(64)[piece_index(Piece::from_char('q').unwrap())].clone();
        let darkest = |p: &Pixmap| {
            p.pixels()
                .iter()
                .filter(|px| px.alpha() == 255)
                .map(|px| px.red() as u32 + px.green() as u32 + px.blue() as u32)
                .min()
                .unwrap()
        };
        assert!(darkest(&sprite) < 30, "cburnett's black queen is black");
        let brown = PieceVariation {
            black_fill: [120, 70, 30],
            ..PieceVariation::default()
        };
        let recoloured = vary_sprite(&sprite, false, &brown);
        assert!(darkest(&recoloured) > 150, "black parts became brown");
        let ink = |p: &Pixmap| p.pixels().iter().filter(|px| px.alpha() > 128).count();
        let thicker = PieceVariation {
            stroke: 1,
            ..PieceVariation::default()
        };
        let once = ink(&vary_sprite(&sprite, false, &thicker));
        assert!(once > ink(&sprite));
        let twice = PieceVariation {
            stroke: 2,
            ..PieceVariation::default()
        };
        // 64 pixels: two passes.
        assert!(ink(&vary_sprite(&sprite, false, &twice)) > once);
        assert!(PieceVariation::default().is_identity());
    }

    #[test]
    fn stripes_and_shade_pattern_the_fills_inside_the_outline() {
        let set = PieceSet::builtin();
        let sprites = set.sprites(64);
        let black_rook = &sprites[piece_index(Piece::from_char('r').unwrap())];
        let white_rook = &sprites[piece_index(Piece::from_char('R').unwrap())];
        // Opaque pixels that are light (sum of channels over 600) or dark (under 150).
        let count = |p: &Pixmap, light: bool| {
            p.pixels()
                .iter()
                .filter(|px| px.alpha() == 255)
                .filter(|px| {
                    let sum = px.red() as u32 + px.green() as u32 + px.blue() as u32;
                    if light { sum > 600 } else { sum < 150 }
                })
                .count()
        };
        let striped = |on| PieceVariation {
            stripe_period: 4,
            stripes_on: on,
            ..PieceVariation::default()
        };
        let black_striped = vary_sprite(black_rook, false, &striped([false, true]));
        assert!(
            count(&black_striped, true) > count(black_rook, true) + 40,
            "light stripes across the black rook"
        );
        let opaque = |p: &Pixmap| p.pixels().iter().filter(|px| px.alpha() > 0).count();
        assert_eq!(opaque(&black_striped), opaque(black_rook), "outline kept");
        let white_striped = vary_sprite(white_rook, true, &striped([true, false]));
        assert!(count(&white_striped, false) > count(white_rook, false) + 40);
        // Stripes only on the colours asked for.
        assert!(vary_sprite(white_rook, true, &striped([false, true])).data() == white_rook.data());
        // Shaded toward the bottom: a white piece's lower light parts darken, its upper ones less.
        let shaded = PieceVariation {
            shade: 0.4,
            ..PieceVariation::default()
        };
        let white_shaded = vary_sprite(white_rook, true, &shaded);
        let mean_in_rows = |p: &Pixmap, rows: std::ops::Range<u32>| {
            let values: Vec<u32> = rows
                .flat_map(|y| (0..64).map(move |x| (x, y)))
                .filter_map(|(x, y)| p.pixel(x, y))
                .filter(|px| px.alpha() == 255)
                .map(|px| px.red() as u32)
                .collect();
            values.iter().sum::<u32>() as f32 / values.len().max(1) as f32
        };
        let (top, bottom) = (0..32, 32..64);
        let top_loss = mean_in_rows(white_rook, top.clone()) - mean_in_rows(&white_shaded, top);
        let bottom_loss =
            mean_in_rows(white_rook, bottom.clone()) - mean_in_rows(&white_shaded, bottom);
        assert!(bottom_loss > top_loss + 10.0, "{top_loss} {bottom_loss}");
        let black_shaded = vary_sprite(black_rook, false, &shaded);
        assert!(count(&black_shaded, false) < count(black_rook, false));
    }

    #[test]
    fn warp_bends_the_drawing_and_keeps_its_ink() {
        let set = PieceSet::builtin();
        let sprites = set.sprites(64);
        let pawn = &sprites[piece_index(Piece::from_char('p').unwrap())];
        let warp = |amplitude| PieceVariation {
            warp: Warp {
                amplitude,
                waves: [[1.0, 0.5, 0.3], [0.5, 1.0, 1.1]],
            },
            ..PieceVariation::default()
        };
        let ink = |p: &Pixmap| p.pixels().iter().filter(|px| px.alpha() > 128).count();
        let bent = vary_sprite(pawn, false, &warp(0.05));
        let changed = bent
            .pixels()
            .iter()
            .zip(pawn.pixels())
            .filter(|(a, b)| (a.alpha() > 128) != (b.alpha() > 128))
            .count();
        assert!(
            changed > ink(pawn) / 20,
            "{changed} of {} pixels",
            ink(pawn)
        );
        let (before, after) = (ink(pawn) as f32, ink(&bent) as f32);
        assert!((after / before - 1.0).abs() < 0.25, "{before} -> {after}");
        let none = vary_sprite(pawn, false, &warp(0.0));
        assert!(none.data() == pawn.data());
    }

    #[test]
    fn silhouettes_keep_the_outline_and_lose_the_insides() {
        let set = PieceSet::builtin();
        let sprites = set.sprites(48);
        let outline = PieceVariation {
            silhouette: true,
            ..PieceVariation::default()
        };
        for piece in ['Q', 'q'] {
            let drawn = &sprites[piece_index(Piece::from_char(piece).unwrap())];
            let white = piece == 'Q';
            let flat = vary_sprite(drawn, white, &outline);
            // The coverage stays as drawn.
            assert!(
                drawn
                    .pixels()
                    .iter()
                    .zip(flat.pixels())
                    .all(|(a, b)| a.alpha() == b.alpha())
            );
            let opaque: Vec<_> = flat.pixels().iter().filter(|p| p.alpha() == 255).collect();
            let light = opaque.iter().filter(|p| p.red() == 255).count();
            let dark = opaque.iter().filter(|p| p.red() == 0).count();
            // Only two greys, black and white, where the drawing is opaque.
            assert_eq!(light + dark, opaque.len());
            if white {
                // A light fill inside a dark rim: more light than dark, and the drawing's
                // inner lines gone (the queen as drawn has dark pixels well inside it).
                assert!(light > dark && dark > 0, "{light} light, {dark} dark");
                let inner_dark = |p: &Pixmap| {
                    (8..40)
                        .flat_map(|y| (8..40).map(move |x| (x, y)))
                        .filter(|&(x, y)| {
                            (-2..=2).all(|d: i32| {
                                [(x as i32 + d, y as i32), (x as i32, y as i32 + d)]
                                    .iter()
                                    .all(|&(u, v)| {
                                        p.pixel(u as u32, v as u32).unwrap().alpha() == 255
                                    })
                            }) && p.pixel(x, y).unwrap().red() < 128
                        })
                        .count()
                };
                assert!(inner_dark(drawn) > 0);
                assert!(inner_dark(&flat) < inner_dark(drawn));
            } else {
                assert_eq!(light, 0);
            }
        }
    }

    #[test]
    fn pixelate_makes_hard_edged_blocks() {
        let set = PieceSet::builtin();
        let sprites = set.sprites(48);
        let knight = &sprites[piece_index(Piece::from_char('N').unwrap())];
        let coarse = vary_sprite(
            knight,
            true,
            &PieceVariation {
                pixelate: 3.0,
                ..PieceVariation::default()
            },
        );
        // Hard edges: every pixel wholly opaque or wholly transparent.
        assert!(
            coarse
                .pixels()
                .iter()
                .all(|px| matches!(px.alpha(), 0 | 255))
        );
        assert!(
            knight
                .pixels()
                .iter()
                .any(|px| !matches!(px.alpha(), 0 | 255))
        );
        // Blocks of 3 by 3 pixels (48 / 16): each row repeats in the next two.
        let row = |y: u32| {
            (0..48)
                .map(|x| coarse.pixel(x, y).unwrap())
                .collect::<Vec<_>>()
        };
        assert!(row(0) == row(1) && row(1) == row(2));
        let ink = |p: &Pixmap| p.pixels().iter().filter(|px| px.alpha() > 128).count() as f32;
        assert!((ink(&coarse) / ink(knight) - 1.0).abs() < 0.15);
    }

    #[test]
    fn role_stretch_narrows_one_role_only() {
        // On a plain white board, the columns of a square holding any non-white pixel.
        let style = |role_stretch| BoardStyle {
            look: BoardLook::Flat {
                light: [255, 255, 255],
                dark: [255, 255, 255],
                name: "white".into(),
            },
            piece_variation: PieceVariation {
                role_stretch,
                ..PieceVariation::default()
            },
            ..BoardStyle::default()
        };
        // A white pawn on a1 and a white bishop on b1.
        let mut board = Board::empty();
        board.set_piece_at(Square::A1, Piece::from_char('P').unwrap());
        board.set_piece_at(Square::B1, Piece::from_char('B').unwrap());
        let width = |role_stretch, col: u32| {
            let drawn = draw_board(&board, &style(role_stretch), &PieceSet::builtin(), 64);
            (col * 64..col * 64 + 64)
                .filter(|&x| {
                    (448..512).any(|y| {
                        let p = drawn.pixmap.pixel(x, y).unwrap().demultiply();
                        p.red() < 200
                    })
                })
                .count()
        };
        let mut narrow_pawns = [[1.0, 1.0]; 6];
        narrow_pawns[0] = [0.5, 1.0];
        let (pawn, bishop) = (width([[1.0, 1.0]; 6], 0), width([[1.0, 1.0]; 6], 1));
        let (narrow_pawn, same_bishop) = (width(narrow_pawns, 0), width(narrow_pawns, 1));
        assert!(pawn > 20, "the pawn is drawn: {pawn} columns");
        assert!(
            narrow_pawn * 10 <= pawn * 6 && narrow_pawn * 10 >= pawn * 4,
            "{pawn} -> {narrow_pawn} columns"
        );
        assert_eq!(bishop, same_bishop);
    }

    fn start() -> Board {
        Board::new()
    }

    #[test]
    fn a_dragged_piece_leaves_a_ghost_and_stands_off_its_square() {
        let mut board = Board::empty();
        board.set_piece_at(Square::D5, Piece::from_char('q').unwrap());
        let dragged = |offset| BoardStyle {
            dragged: vec![Dragged {
                from: Square::D5,
                offset,
                ghost: 0.3,
            }],
            ..BoardStyle::default()
        };
        // The darkest grey (sum of channels) over a square's pixels; d5 is x 120-160, y 120-160
        // on squares of 40, e5 the next to the right, d4 the next below.
        let darkest = |drawn: &DrawnBoard, col: u32, row: u32| {
            (col * 40..col * 40 + 40)
                .flat_map(|x| (row * 40..row * 40 + 40).map(move |y| (x, y)))
                .map(|(x, y)| {
                    let p = drawn.pixmap.pixel(x, y).unwrap().demultiply();
                    p.red() as u32 + p.green() as u32 + p.blue() as u32
                })
                .min()
                .unwrap()
        };
        let empty = draw_board(
            &Board::empty(),
            &BoardStyle::default(),
            &PieceSet::builtin(),
            40,
        );
        let light = darkest(&empty, 3, 3);
        let still = draw_board(&board, &BoardStyle::default(), &PieceSet::builtin(), 40);
        assert!(darkest(&still, 3, 3) < light / 4, "the queen is black");
        let moved = draw_board(&board, &dragged([1.0, 0.0]), &PieceSet::builtin(), 40);
        assert!(
            darkest(&moved, 3, 3) > darkest(&still, 3, 3) + light / 2,
            "only a faint ghost stays on d5"
        );
        assert!(darkest(&moved, 3, 3) < light, "but it shows");
        assert_eq!(
            darkest(&moved, 4, 3),
            darkest(&still, 3, 3),
            "the queen stands whole on e5"
        );
        let down = draw_board(&board, &dragged([0.0, 0.5]), &PieceSet::builtin(), 40);
        assert!(
            darkest(&down, 3, 4) < light / 4,
            "half a square down, the queen reaches into d4"
        );
    }

    #[test]
    fn move_hints_mark_a_dot_a_ring_and_shaded_corners() {
        let tint = Tint {
            rgb: [0, 0, 0],
            alpha: 0.5,
        };
        let hint = |square, shape| MoveHint {
            square,
            shape,
            tint,
        };
        let style = BoardStyle {
            hints: vec![
                hint(Square::A8, HintShape::Dot { radius: 0.15 }),
                hint(
                    Square::C8,
                    HintShape::Ring {
                        radius: 0.5,
                        width: 0.1,
                    },
                ),
                hint(Square::E8, HintShape::Corners { radius: 0.55 }),
            ],
            ..BoardStyle::default()
        };
        let drawn = draw_board(&Board::empty(), &style, &PieceSet::builtin(), 40);
        let BoardLook::Flat { light, .. } = style.look else {
            panic!()
        };
        let marked = |x, y| {
            let p = drawn.pixmap.pixel(x, y).unwrap().demultiply();
            [p.red(), p.green(), p.blue()] != light
        };
        // a8 (x 0-40), c8 (80-120), e8 (160-200) are light squares of the top row.
        assert!(
            marked(20, 20) && marked(24, 20),
            "the dot covers a8's centre"
        );
        assert!(
            !marked(30, 20) && !marked(3, 3),
            "and no more than its radius"
        );
        assert!(
            !marked(100, 20) && !marked(83, 3),
            "the ring leaves c8's centre and corner"
        );
        assert!(marked(100, 2) && marked(82, 20), "and marks near its edges");
        assert!(
            !marked(180, 20) && !marked(180, 4),
            "the corners leave e8's middle and edges"
        );
        assert!(marked(162, 2) && marked(198, 38), "and shade its corners");
        let style = BoardStyle {
            hints: vec![hint(Square::E8, HintShape::Corners { radius: 0.6 })],
            ..BoardStyle::default()
        };
        let drawn = draw_board(&Board::empty(), &style, &PieceSet::builtin(), 40);
        let at = |x, y| {
            let p = drawn.pixmap.pixel(x, y).unwrap().demultiply();
            [p.red(), p.green(), p.blue()]
        };
        assert_ne!(at(161, 1), at(180, 20), "e8's corner is shaded");
        assert_eq!(
            at(180, 41),
            at(180, 60),
            "its neighbour e7 is not, next to it"
        );
    }

    #[test]
    fn squares_have_their_theme_colours() {
        let style = BoardStyle::default();
        let drawn = draw_board(&Board::empty(), &style, &PieceSet::builtin(), 20);
        assert_eq!(drawn.side, 160.0);
        let BoardLook::Flat { light, dark, .. } = style.look else {
            panic!()
        };
        let at = |x, y| {
            let p = drawn.pixmap.pixel(x, y).unwrap().demultiply();
            [p.red(), p.green(), p.blue()]
        };
        assert_eq!(at(10, 10), light, "a8 is light");
        assert_eq!(at(30, 10), dark, "b8 is dark");
        assert_eq!(at(150, 150), light, "h1 is light");
    }

    #[test]
    fn outside_coordinates_add_a_margin_and_keep_the_grid_exact() {
        let style = BoardStyle {
            coords: Coords::Outside,
            ..BoardStyle::default()
        };
        let drawn = draw_board(&start(), &style, &PieceSet::builtin(), 30);
        assert!(drawn.x > 0.0);
        assert_eq!(drawn.pixmap.width() as f32, drawn.side + 2.0 * drawn.x);
    }

    #[test]
    fn display_cells_follow_orientation() {
        assert_eq!(display_cell(Square::A8, false), (0, 0));
        assert_eq!(display_cell(Square::H1, false), (7, 7));
        assert_eq!(display_cell(Square::A8, true), (7, 7));
        assert_eq!(display_cell(Square::H1, true), (0, 0));
    }
}
