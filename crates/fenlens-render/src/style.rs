//! How a board looks: square colours or texture, coordinates, overlays, orientation.

use std::path::Path;
use std::sync::Arc;

use fenlens_fen::shakmaty::Square;
use image::RgbaImage;
use rand::RngExt;
use serde::Serialize;

use crate::RenderError;

/// An sRGB colour.
pub type Rgb = [u8; 3];

/// Named flat two-colour themes: (name, light square, dark square). The common real palettes.
pub const FLAT_THEMES: &[(&str, Rgb, Rgb)] = &[
    ("brown", [0xf0, 0xd9, 0xb5], [0xb5, 0x88, 0x63]),
    ("green", [0xee, 0xee, 0xd2], [0x76, 0x96, 0x56]),
    ("blue", [0xde, 0xe3, 0xe6], [0x8c, 0xa2, 0xad]),
    ("blue2", [0xea, 0xe9, 0xd2], [0x4b, 0x73, 0x99]),
    ("grey", [0xe8, 0xe8, 0xe8], [0xa9, 0xa9, 0xa9]),
    ("light-grey", [0xf2, 0xf2, 0xf2], [0xd0, 0xd0, 0xd0]),
    ("purple", [0xe8, 0xe0, 0xf0], [0x9f, 0x90, 0xb0]),
    ("purple2", [0xf0, 0xf1, 0xf0], [0x84, 0x76, 0xba]),
    ("wood", [0xe8, 0xc8, 0x9c], [0xa5, 0x69, 0x3c]),
    ("tan", [0xed, 0xd6, 0xb0], [0xb8, 0x87, 0x62]),
    ("olive", [0xe4, 0xe4, 0xc4], [0x8f, 0x9b, 0x6a]),
    ("ic", [0xec, 0xec, 0xec], [0xc1, 0xc1, 0x8e]),
    ("coral", [0xb1, 0xe4, 0xb9], [0x70, 0xa2, 0xa3]),
    ("wikipedia", [0xff, 0xce, 0x9e], [0xd1, 0x8b, 0x47]),
    ("dark", [0x77, 0x77, 0x77], [0x44, 0x44, 0x44]),
];

/// How the squares are drawn.
#[derive(Clone)]
pub enum BoardLook {
    /// Two flat colours.
    Flat {
        /// The theme's name, or `random` for a generated palette.
        name: String,
        /// Light squares.
        light: Rgb,
        /// Dark squares.
        dark: Rgb,
    },
    /// A whole-board texture (lichess's wood, marble ...), scaled to the board.
    Texture {
        /// The texture's file stem.
        name: String,
        /// The texture; square boards, light square in the top-left corner.
        image: Arc<RgbaImage>,
    },
    /// A printed diagram: white light squares, dark squares hatched or stippled, black frame.
    Book {
        /// How the dark squares are drawn.
        hatch: Hatch,
    },
}

impl std::fmt::Debug for BoardLook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// Dark-square patterns of printed diagrams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hatch {
    /// Diagonal lines, as in most books.
    Diagonal,
    /// Dots.
    Stipple,
    /// Flat grey.
    Grey,
}

impl BoardLook {
    /// A named flat theme.
    pub fn flat(name: &str) -> Option<BoardLook> {
        FLAT_THEMES
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(n, light, dark)| BoardLook::Flat {
                name: n.to_string(),
                light: *light,
                dark: *dark,
            })
    }

    /// A texture from an image file.
    pub fn texture(path: &Path) -> Result<BoardLook, RenderError> {
        let image = image::open(path)
            .map_err(|e| RenderError::Image {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?
            .to_rgba8();
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(BoardLook::Texture {
            name,
            image: Arc::new(image),
        })
    }

    /// A random palette with sensible contrast, from strong to low-contrast and light grey.
    pub fn random_flat(rng: &mut impl RngExt) -> BoardLook {
        let hue = rng.random_range(0.0..360.0f32);
        let saturation = if rng.random_bool(0.2) {
            rng.random_range(0.0..0.06)
        } else {
            rng.random_range(0.1..0.6)
        };
        let light_l = rng.random_range(0.72..0.96f32);
        // Low-contrast boards (difference 0.1) are included on purpose.
        let dark_l = (light_l - rng.random_range(0.1..0.45f32)).max(0.15);
        let dark_hue = hue + rng.random_range(-20.0..20.0f32);
        BoardLook::Flat {
            name: "random".into(),
            light: hsl(hue, saturation * 0.7, light_l),
            dark: hsl(dark_hue, saturation, dark_l),
        }
    }

    /// A short name for ground truth and file names.
    pub fn name(&self) -> String {
        match self {
            BoardLook::Flat { name, .. } => format!("flat:{name}"),
            BoardLook::Texture { name, .. } => format!("texture:{name}"),
            BoardLook::Book { hatch } => format!("book:{}", hatch_name(*hatch)),
        }
    }

    /// Whether this is a printed-diagram look.
    pub fn is_book(&self) -> bool {
        matches!(self, BoardLook::Book { .. })
    }
}

fn hatch_name(hatch: Hatch) -> &'static str {
    match hatch {
        Hatch::Diagonal => "diagonal",
        Hatch::Stipple => "stipple",
        Hatch::Grey => "grey",
    }
}

/// HSL (hue in degrees, saturation and lightness 0-1) to sRGB.
pub fn hsl(hue: f32, saturation: f32, lightness: f32) -> Rgb {
    let c = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let h = hue.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = lightness - c / 2.0;
    [r, g, b].map(|v| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

/// Where coordinates are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Coords {
    /// No coordinates.
    #[default]
    None,
    /// Inside the edge squares, as lichess and chess.com draw them.
    Inside,
    /// In a margin outside the board, as books and many programs draw them.
    Outside,
}

impl std::str::FromStr for Coords {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Coords::None),
            "inside" => Ok(Coords::Inside),
            "outside" => Ok(Coords::Outside),
            other => Err(format!(
                "unknown coordinates style {other:?} (inside, outside, none)"
            )),
        }
    }
}

/// A semi-transparent colour over a square.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tint {
    /// Colour.
    pub rgb: Rgb,
    /// Opacity 0-1.
    pub alpha: f32,
}

/// Last-move highlight as lichess draws it.
pub const LICHESS_MOVE: Tint = Tint {
    rgb: [155, 199, 0],
    alpha: 0.41,
};
/// Last-move highlight as chess.com draws it.
pub const CHESSCOM_MOVE: Tint = Tint {
    rgb: [255, 255, 51],
    alpha: 0.5,
};
/// lichess's move hints: the dots on the squares a picked-up piece can go to and the shade
/// around a piece it can take.
pub const LICHESS_HINT: Tint = Tint {
    rgb: [20, 85, 30],
    alpha: 0.5,
};
/// chess.com's move hints: faint grey dots and rings.
pub const CHESSCOM_HINT: Tint = Tint {
    rgb: [0, 0, 0],
    alpha: 0.14,
};
/// lichess's arrow green.
pub const ARROW_GREEN: Tint = Tint {
    rgb: [21, 120, 27],
    alpha: 0.8,
};

/// The mark a site draws on a square the selected piece can move to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HintShape {
    /// A filled disc at the square's centre, on an empty square; radius as a share of the square.
    Dot {
        /// Radius, as a share of the square's side.
        radius: f32,
    },
    /// A ring about the square's centre, around a piece that can be taken (chess.com).
    Ring {
        /// Outer radius, as a share of the square's side.
        radius: f32,
        /// Width, as a share of the square's side.
        width: f32,
    },
    /// The square shaded outside a circle about its centre, around a piece that can be taken
    /// (lichess).
    Corners {
        /// The clear circle's radius, as a share of the square's side.
        radius: f32,
    },
}

impl HintShape {
    /// lichess's marks: a dot of radius 0.134 of the square (19% of the half diagonal) on an
    /// empty square; around a piece, the square shaded outside 0.566 (80% of the half diagonal).
    pub fn lichess(on_piece: bool) -> HintShape {
        if on_piece {
            HintShape::Corners { radius: 0.566 }
        } else {
            HintShape::Dot { radius: 0.134 }
        }
    }

    /// chess.com's marks: a dot a third of the square across on an empty square; around a
    /// piece, a ring a tenth of the square wide along its edge.
    pub fn chesscom(on_piece: bool) -> HintShape {
        if on_piece {
            HintShape::Ring {
                radius: 0.5,
                width: 0.1,
            }
        } else {
            HintShape::Dot { radius: 0.16 }
        }
    }

    /// The mark `factor` times as large: a dot's radius, a ring's width (its outer edge stays
    /// at the square's edge), the shaded corners' clear circle (up to 0.7 of the square).
    pub fn scaled(self, factor: f32) -> HintShape {
        match self {
            HintShape::Dot { radius } => HintShape::Dot {
                radius: radius * factor,
            },
            HintShape::Ring { radius, width } => HintShape::Ring {
                radius,
                width: width * factor,
            },
            HintShape::Corners { radius } => HintShape::Corners {
                radius: (radius * factor).min(0.7),
            },
        }
    }
}

/// A move hint: where the selected piece can go, as sites mark it while a piece is picked up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveHint {
    /// The square marked.
    pub square: Square,
    /// How it is marked.
    pub shape: HintShape,
    /// In which colour.
    pub tint: Tint,
}

/// A piece caught while the user drags it: its square keeps a faint ghost of it and the piece
/// itself, whole, stands off its square over whatever is there (as lichess and chess.com draw
/// it until the mouse is let go). The position is still the one before the move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dragged {
    /// The square the piece was picked up from.
    pub from: Square,
    /// Where the piece stands now, from its square, in squares (x right, y down as displayed).
    pub offset: [f32; 2],
    /// The ghost's opacity on its square (lichess: 0.3).
    pub ghost: f32,
}

/// Everything that decides how one board is drawn.
#[derive(Clone, Debug)]
pub struct BoardStyle {
    /// Squares.
    pub look: BoardLook,
    /// Coordinates.
    pub coords: Coords,
    /// Black at the bottom.
    pub flipped: bool,
    /// Squares tinted under the pieces (last move, selection).
    pub highlights: Vec<(Square, Tint)>,
    /// A red glow under this square's king.
    pub check: Option<Square>,
    /// Arrows over the pieces (from, to, colour).
    pub arrows: Vec<(Square, Square, Tint)>,
    /// Rings over the pieces.
    pub circles: Vec<(Square, Tint)>,
    /// Move hints under the pieces: dots on empty squares, rings or shaded corners around
    /// pieces that can be taken.
    pub hints: Vec<MoveHint>,
    /// Pieces being dragged, drawn over everything else (a screen shows one; training
    /// draws up to three to see more of them).
    pub dragged: Vec<Dragged>,
    /// Piece size relative to the square (0.7-1.0).
    pub piece_scale: f32,
    /// A frame around the board, in fractions of a square (0 for none).
    pub frame: f32,
    /// Frame colour.
    pub frame_rgb: Rgb,
    /// Changes to the piece drawings (colours, stroke, proportions), to make new designs
    /// out of known ones when training.
    pub piece_variation: PieceVariation,
}

/// How to alter a piece set's drawings when drawing them; the default leaves them unchanged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieceVariation {
    /// White pieces' light parts become this colour (white leaves them as drawn).
    pub white_fill: Rgb,
    /// Black pieces' dark parts become this colour (black leaves them as drawn).
    pub black_fill: Rgb,
    /// Dark strokes: +1 thicker by a pixel, -1 thinner, 0 as drawn; +2 and -2 by two pixels on
    /// drawings of 40 pixels and more (one below that).
    pub stroke: i8,
    /// Horizontal and vertical stretch of the drawings (1.0 as drawn).
    pub stretch: [f32; 2],
    /// A further horizontal and vertical stretch per role (pawn first, king last), so that one
    /// role's proportions change against the others' (a narrow pawn, a squat rook).
    pub role_stretch: [[f32; 2]; 6],
    /// Stripes across the fills, one row in this many of the drawing (0: none): light lines
    /// across black pieces' dark parts, dark lines across white pieces' light parts, as some
    /// chess fonts hatch their pieces (Alfonso's black pieces, Line's white ones).
    pub stripe_period: u8,
    /// Which colours get the stripes: white pieces, black pieces.
    pub stripes_on: [bool; 2],
    /// Shading of the fills from the drawing's top to its bottom, as glossy or metal designs
    /// have: white pieces' light parts darken and black pieces' dark parts lighten by up to
    /// this share toward the bottom (toward the top when negative); 0 leaves them flat.
    pub shade: f32,
    /// A smooth bending of the drawings, the same for every piece of the board.
    pub warp: Warp,
    /// Drawings made coarse, as pixel art enlarged: drawn this many times smaller with hard
    /// edges, then enlarged back by repeating pixels (1 or less: as drawn), like the small
    /// bitmaps of old chess programs and fonts shown on a large board.
    pub pixelate: f32,
    /// Drawings reduced to their outline: every inner line and shade gone, white pieces a
    /// light fill inside a dark rim, black pieces solid dark; so that a piece is told by its
    /// outline where a design's insides (hatching, gloss, ornaments) are like no other's.
    pub silhouette: bool,
}

/// A smooth bending of a drawing: each pixel is taken from a point moved along two sine waves,
/// so that parts of a piece grow or shrink against the rest (a larger head, a narrower
/// collar), as they differ between designs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Warp {
    /// Largest move, as a share of the drawing's size (0: no bending).
    pub amplitude: f32,
    /// For the horizontal move, then the vertical one: cycles across the drawing, cycles down
    /// it, and the phase in radians.
    pub waves: [[f32; 3]; 2],
}

impl Default for PieceVariation {
    fn default() -> Self {
        PieceVariation {
            white_fill: [255, 255, 255],
            black_fill: [0, 0, 0],
            stroke: 0,
            stretch: [1.0, 1.0],
            role_stretch: [[1.0, 1.0]; 6],
            stripe_period: 0,
            stripes_on: [false; 2],
            shade: 0.0,
            warp: Warp::default(),
            pixelate: 0.0,
            silhouette: false,
        }
    }
}

impl PieceVariation {
    /// Whether drawing with this variation changes anything.
    pub fn is_identity(&self) -> bool {
        *self == PieceVariation::default()
    }
}

impl BoardStyle {
    /// The opacity of the piece on `square` where it stands: the ghost's where the piece is
    /// being dragged ([`BoardStyle::dragged`]), else 1.
    pub fn piece_opacity(&self, square: Square) -> f32 {
        self.dragged
            .iter()
            .find(|dragged| dragged.from == square)
            .map_or(1.0, |dragged| dragged.ghost.clamp(0.0, 1.0))
    }
}

impl Default for BoardStyle {
    fn default() -> Self {
        BoardStyle {
            look: BoardLook::flat("brown").unwrap_or(BoardLook::Book {
                hatch: Hatch::Diagonal,
            }),
            coords: Coords::None,
            flipped: false,
            highlights: Vec::new(),
            check: None,
            arrows: Vec::new(),
            circles: Vec::new(),
            hints: Vec::new(),
            dragged: Vec::new(),
            piece_scale: 1.0,
            frame: 0.0,
            frame_rgb: [0, 0, 0],
            piece_variation: PieceVariation::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsl_primaries() {
        assert_eq!(hsl(0.0, 1.0, 0.5), [255, 0, 0]);
        assert_eq!(hsl(120.0, 1.0, 0.5), [0, 255, 0]);
        assert_eq!(hsl(240.0, 0.0, 1.0), [255, 255, 255]);
    }

    #[test]
    fn random_palettes_keep_dark_darker() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200 {
            let BoardLook::Flat { light, dark, .. } = BoardLook::random_flat(&mut rng) else {
                panic!("flat")
            };
            let lum = |c: Rgb| c.iter().map(|&v| v as u32).sum::<u32>();
            assert!(lum(light) > lum(dark), "{light:?} {dark:?}");
        }
    }
}
