//! Text for coordinates, captions and UI chrome, drawn with fonts built into the binary
//! (DejaVu Sans Bold and DejaVu Serif; licence in `assets/fonts/LICENSE-DejaVu.txt`), so output
//! never depends on the machine's fonts.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use resvg::tiny_skia::{Pixmap, PixmapPaint, Transform};

use crate::style::Rgb;

/// Which built-in font.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    /// DejaVu Sans Bold: coordinates and UI.
    Sans,
    /// DejaVu Serif: book text and captions.
    Serif,
}

fn font(face: Face) -> &'static FontRef<'static> {
    static SANS: OnceLock<FontRef<'static>> = OnceLock::new();
    static SERIF: OnceLock<FontRef<'static>> = OnceLock::new();
    let (cell, bytes): (_, &'static [u8]) = match face {
        Face::Sans => (&SANS, include_bytes!("../assets/fonts/DejaVuSans-Bold.ttf")),
        Face::Serif => (&SERIF, include_bytes!("../assets/fonts/DejaVuSerif.ttf")),
    };
    // The fonts are part of the build; failing to parse them is a build defect.
    cell.get_or_init(|| FontRef::try_from_slice(bytes).expect("built-in font parses"))
}

/// The width in pixels of `text` at `size` pixels.
pub fn width(text: &str, face: Face, size: f32) -> f32 {
    let font = font(face).as_scaled(PxScale::from(size));
    text.chars().map(|c| font.h_advance(font.glyph_id(c))).sum()
}

/// How text is drawn: font, size in pixels, colour.
#[derive(Clone, Copy, Debug)]
pub struct Pen {
    /// Font.
    pub face: Face,
    /// Size in pixels.
    pub size: f32,
    /// Colour.
    pub rgb: Rgb,
}

impl Pen {
    /// A pen.
    pub fn new(face: Face, size: f32, rgb: Rgb) -> Pen {
        Pen { face, size, rgb }
    }
}

/// Draws `text` with its baseline's left end at (`x`, `baseline`).
pub fn draw(target: &mut Pixmap, text: &str, pen: Pen, x: f32, baseline: f32) {
    let Pen { face, size, rgb } = pen;
    let alpha = 1.0f32;
    let font = font(face);
    let scaled = font.as_scaled(PxScale::from(size));
    let ascent = scaled.ascent();
    let descent = scaled.descent();
    let total_width = width(text, face, size).ceil() as u32 + 2;
    let height = (ascent - descent).ceil() as u32 + 2;
    let Some(mut layer) = Pixmap::new(total_width.max(1), height.max(1)) else {
        return;
    };
    let mut pen = 0.0f32;
    let pixels = layer.pixels_mut();
    for c in text.chars() {
        let glyph = scaled.scaled_glyph(c);
        let advance = scaled.h_advance(glyph.id);
        let mut glyph = glyph;
        glyph.position = ab_glyph::point(pen, ascent);
        if let Some(outlined) = font.outline_glyph(glyph) {
            let bounds = outlined.px_bounds();
            outlined.draw(|gx, gy, coverage| {
                let px = bounds.min.x as i32 + gx as i32;
                let py = bounds.min.y as i32 + gy as i32;
                if px < 0 || py < 0 || px >= total_width as i32 || py >= height as i32 {
                    return;
                }
                let a = (coverage.clamp(0.0, 1.0) * alpha * 255.0) as u8;
                let index = py as usize * total_width as usize + px as usize;
                let premultiply = |v: u8| ((v as u16 * a as u16) / 255) as u8;
                if let Some(color) = resvg::tiny_skia::PremultipliedColorU8::from_rgba(
                    premultiply(rgb[0]),
                    premultiply(rgb[1]),
                    premultiply(rgb[2]),
                    a,
                ) {
                    if a > pixels[index].alpha() {
                        pixels[index] = color;
                    }
                }
            });
        }
        pen += advance;
    }
    target.draw_pixmap(
        x.round() as i32,
        (baseline - ascent).round() as i32,
        layer.as_ref(),
        &PixmapPaint::default(),
        Transform::identity(),
        None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_ink_where_asked() {
        let mut pixmap = Pixmap::new(60, 30).unwrap();
        draw(
            &mut pixmap,
            "e4",
            Pen::new(Face::Sans, 20.0, [0, 0, 0]),
            5.0,
            22.0,
        );
        let inked: Vec<(u32, u32)> = (0..30)
            .flat_map(|y| (0..60).map(move |x| (x, y)))
            .filter(|&(x, y)| pixmap.pixel(x, y).is_some_and(|p| p.alpha() > 128))
            .collect();
        assert!(inked.len() > 40);
        assert!(inked.iter().all(|&(x, y)| (4..40).contains(&x) && y < 26));
        assert!(width("e4", Face::Sans, 20.0) > 15.0);
    }
}
