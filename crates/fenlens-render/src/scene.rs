//! Whole pictures: a board on its own, with overlays, inside a fake screenshot, photographed off
//! a screen, printed on a book page, or shrunk to a thumbnail. Each picture comes with exact
//! ground truth for every board in it.

use std::path::Path;
use std::sync::Arc;

use fenlens_fen::shakmaty::{Board, Square};
use image::RgbImage;
use image::imageops::FilterType;
use rand::RngExt;
use resvg::tiny_skia::{
    Color as SkColor, Paint, PathBuilder, Pixmap, PixmapPaint, Rect, Transform,
};
use serde::Serialize;

use crate::RenderError;
use crate::degrade::{self, Points};
use crate::draw::{DrawnBoard, draw_board, pixmap_to_rgba};
use crate::pieces::PieceSet;
use crate::positions::{self, PositionKind, Sampled};
use crate::style::{
    ARROW_GREEN, BoardLook, BoardStyle, CHESSCOM_HINT, CHESSCOM_MOVE, Coords, Dragged, FLAT_THEMES,
    Hatch, HintShape, LICHESS_HINT, LICHESS_MOVE, MoveHint, Rgb, Tint,
};
use crate::text::{self, Face, Pen};

/// The kinds of picture a dataset mixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// A board filling the picture, as a clean screenshot of it.
    Clean,
    /// A board with last-move highlights, a selected square, check glow, arrows, circles.
    Overlay,
    /// A board inside a fake browser window with panels, move list, clocks, chat.
    Screenshot,
    /// A phone photo of a screen: perspective, moiré, glare, blur, noise, JPEG.
    Photo,
    /// A printed page with one to four diagrams, scanned or photographed.
    Book,
    /// A thumbnail: a board of 100-200 pixels, maybe blurrily enlarged, maybe JPEG.
    Small,
}

impl Category {
    /// All categories.
    pub const ALL: [Category; 6] = [
        Category::Clean,
        Category::Overlay,
        Category::Screenshot,
        Category::Photo,
        Category::Book,
        Category::Small,
    ];

    /// The lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Category::Clean => "clean",
            Category::Overlay => "overlay",
            Category::Screenshot => "screenshot",
            Category::Photo => "photo",
            Category::Book => "book",
            Category::Small => "small",
        }
    }
}

impl std::str::FromStr for Category {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Category::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                format!("unknown category {s:?} (clean, overlay, screenshot, photo, book, small)")
            })
    }
}

/// What the renderer can draw with: piece sets and board textures.
#[derive(Clone)]
pub struct Library {
    /// Piece sets to choose from.
    pub piece_sets: Vec<Arc<PieceSet>>,
    /// Texture looks to choose from (may be empty).
    pub textures: Vec<BoardLook>,
}

impl Library {
    /// Only the built-in set and the flat themes.
    pub fn builtin() -> Library {
        Library {
            piece_sets: vec![Arc::new(PieceSet::builtin())],
            textures: Vec::new(),
        }
    }

    /// Adds the whole-board textures in `dir` (PNG and JPEG files, in name order; the
    /// single-square tiles, whose names contain "squares", are not boards), as `fenlens render
    /// --boards-dir` does.
    pub fn add_textures(&mut self, dir: &Path) -> Result<(), RenderError> {
        let files = crate::sorted_entries(dir, |p| {
            let whole_board = p
                .file_name()
                .is_some_and(|n| !n.to_string_lossy().contains("squares"));
            let picture = matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("png" | "jpg" | "jpeg")
            );
            whole_board && picture
        })?;
        for file in files {
            self.textures.push(BoardLook::texture(&file)?);
        }
        Ok(())
    }
}

/// Ground truth for one board in a picture.
#[derive(Clone, Debug, Serialize)]
pub struct BoardTruth {
    /// Piece placement (FEN field 1) in standard orientation, rank 8 first, also when flipped.
    pub placement: String,
    /// Black at the bottom.
    pub flipped: bool,
    /// Corners of the 8x8 playing area in picture coordinates after every warp: top-left,
    /// top-right, bottom-right, bottom-left of the board as displayed.
    pub corners: [[f32; 2]; 4],
    /// Coordinates style.
    pub coords: Coords,
    /// Piece set name.
    pub pieces: String,
    /// Board look, e.g. `flat:brown`, `texture:wood`, `book:diagonal`.
    pub look: String,
    /// Position sampler.
    pub position: PositionKind,
    /// Number of highlighted squares.
    pub highlights: usize,
    /// Number of arrows.
    pub arrows: usize,
    /// Number of circles.
    pub circles: usize,
    /// Whether a king has a check glow.
    pub check: bool,
    /// Caption under the diagram, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
}

/// One rendered picture with its ground truth.
pub struct Sample {
    /// The picture.
    pub image: RgbImage,
    /// What kind of picture.
    pub category: Category,
    /// Every board, the main one first.
    pub boards: Vec<BoardTruth>,
    /// Board-like things that are not chessboards to read (small thumbnails), as quads.
    pub decoys: Vec<[[f32; 2]; 4]>,
    /// Degradations applied, in order.
    pub degradations: Vec<String>,
    /// JPEG quality when the picture should be stored as JPEG.
    pub jpeg_quality: Option<u8>,
}

fn pick<'a, T>(rng: &mut impl RngExt, items: &'a [T]) -> &'a T {
    &items[rng.random_range(0..items.len())]
}

/// Picks a board look for screen boards: named themes, random palettes, textures.
pub fn screen_look(rng: &mut impl RngExt, library: &Library) -> BoardLook {
    let roll = rng.random_range(0.0..1.0f32);
    if roll < 0.3 && !library.textures.is_empty() {
        pick(rng, &library.textures).clone()
    } else if roll < 0.7 {
        let (name, light, dark) = pick(rng, FLAT_THEMES);
        BoardLook::Flat {
            name: name.to_string(),
            light: *light,
            dark: *dark,
        }
    } else {
        BoardLook::random_flat(rng)
    }
}

fn random_square(rng: &mut impl RngExt) -> Square {
    Square::new(rng.random_range(0..64))
}

/// Style for a screen board; `overlays` adds highlights, arrows and the rest.
pub fn screen_style(
    rng: &mut impl RngExt,
    library: &Library,
    sampled: &Sampled,
    overlays: bool,
) -> BoardStyle {
    let coords = match rng.random_range(0..10) {
        0..=3 => Coords::None,
        4..=7 => Coords::Inside,
        _ => Coords::Outside,
    };
    let mut style = BoardStyle {
        look: screen_look(rng, library),
        coords,
        flipped: rng.random_bool(0.3),
        piece_scale: if rng.random_bool(0.7) {
            1.0
        } else {
            rng.random_range(0.78..1.0)
        },
        ..BoardStyle::default()
    };
    if rng.random_bool(0.15) {
        style.frame = rng.random_range(0.05..0.3);
        style.frame_rgb = crate::style::hsl(rng.random_range(0.0..360.0), 0.3, 0.25);
    }
    if overlays {
        let tint = if rng.random_bool(0.5) {
            LICHESS_MOVE
        } else {
            CHESSCOM_MOVE
        };
        if rng.random_bool(0.8) {
            let (from, to) = sampled
                .last_move
                .unwrap_or_else(|| (random_square(rng), random_square(rng)));
            style.highlights.push((from, tint));
            style.highlights.push((to, tint));
        }
        if rng.random_bool(0.25) {
            style.highlights.push((
                random_square(rng),
                Tint {
                    rgb: [20, 85, 30],
                    alpha: 0.5,
                },
            ));
        }
        style.check = sampled.king_in_check.or_else(|| {
            rng.random_bool(0.2)
                .then(|| crate::draw::king_square(&sampled.board, rng.random_bool(0.5)))
                .flatten()
        });
        if rng.random_bool(0.6) {
            for _ in 0..rng.random_range(1..=3) {
                let color = match rng.random_range(0..4) {
                    0 => Tint {
                        rgb: [136, 32, 32],
                        alpha: 0.8,
                    },
                    1 => Tint {
                        rgb: [0, 48, 136],
                        alpha: 0.8,
                    },
                    2 => Tint {
                        rgb: [255, 170, 0],
                        alpha: 0.8,
                    },
                    _ => ARROW_GREEN,
                };
                let from = random_square(rng);
                let mut to = random_square(rng);
                if to == from {
                    to = Square::new((from as u32 + 9) % 64);
                }
                style.arrows.push((from, to, color));
            }
        }
        if rng.random_bool(0.3) {
            for _ in 0..rng.random_range(1..=2) {
                style.circles.push((random_square(rng), ARROW_GREEN));
            }
        }
        if style.coords == Coords::None && rng.random_bool(0.5) {
            style.coords = Coords::Inside;
        }
    }
    style
}

/// Move hints as a site draws them while a piece is picked up: dots on 1-10 empty squares and
/// a mark around 0-2 pieces, in lichess's manner (green dots, shaded corners), chess.com's
/// (faint grey dots and rings) or another colour; sizes vary by a quarter about each site's.
pub fn move_hints(rng: &mut impl RngExt, board: &Board) -> Vec<MoveHint> {
    let manner = rng.random_range(0..3);
    let tint = match manner {
        0 => LICHESS_HINT,
        1 => CHESSCOM_HINT,
        _ => Tint {
            rgb: crate::style::hsl(
                rng.random_range(0.0..360.0),
                rng.random_range(0.0..0.8),
                rng.random_range(0.1..0.9),
            ),
            alpha: rng.random_range(0.15..0.8),
        },
    };
    let size = rng.random_range(0.75..1.25f32);
    let (mut empty, mut taken): (Vec<Square>, Vec<Square>) = Square::ALL
        .into_iter()
        .partition(|sq| board.piece_at(*sq).is_none());
    let mut hints = Vec::new();
    for (squares, count, on_piece) in [
        (&mut empty, rng.random_range(1..=10usize), false),
        (&mut taken, rng.random_range(0..=2usize), true),
    ] {
        for _ in 0..count.min(squares.len()) {
            let square = squares.swap_remove(rng.random_range(0..squares.len()));
            let shape = match manner {
                0 => HintShape::lichess(on_piece),
                1 => HintShape::chesscom(on_piece),
                _ if on_piece && rng.random_bool(0.5) => HintShape::chesscom(on_piece),
                _ => HintShape::lichess(on_piece),
            };
            hints.push(MoveHint {
                square,
                shape: shape.scaled(size),
                tint,
            });
        }
    }
    hints
}

/// Up to `count` pieces caught mid-drag ([`Dragged`]), each a different piece of the board:
/// its ghost at 0.2-0.5 opacity on its square (lichess draws it at 0.3), the piece itself
/// 0.3-1.2 squares away in any direction. Fewer on a board with fewer pieces.
pub fn dragged_pieces(rng: &mut impl RngExt, board: &Board, count: usize) -> Vec<Dragged> {
    let mut taken: Vec<Square> = board.occupied().into_iter().collect();
    (0..count.min(taken.len()))
        .map(|_| {
            let from = taken.swap_remove(rng.random_range(0..taken.len()));
            let angle = rng.random_range(0.0..std::f32::consts::TAU);
            let reach = rng.random_range(0.3..1.2f32);
            Dragged {
                from,
                offset: [reach * angle.cos(), reach * angle.sin()],
                ghost: rng.random_range(0.2..0.5),
            }
        })
        .collect()
}

fn truth(
    board: &Board,
    style: &BoardStyle,
    pieces: &PieceSet,
    sampled: &Sampled,
    corners: [[f32; 2]; 4],
) -> BoardTruth {
    BoardTruth {
        placement: board.board_fen().to_string(),
        flipped: style.flipped,
        corners,
        coords: style.coords,
        pieces: pieces.name().to_string(),
        look: style.look.name(),
        position: sampled.kind,
        highlights: style.highlights.len(),
        arrows: style.arrows.len(),
        circles: style.circles.len(),
        check: style.check.is_some(),
        caption: None,
    }
}

fn pixmap_to_rgb(pixmap: &Pixmap) -> RgbImage {
    image::DynamicImage::ImageRgba8(pixmap_to_rgba(pixmap)).to_rgb8()
}

fn fill(pixmap: &mut Pixmap, x: f32, y: f32, w: f32, h: f32, rgb: Rgb) {
    if let Some(rect) = Rect::from_xywh(x, y, w, h) {
        let mut paint = Paint::default();
        paint.set_color(SkColor::from_rgba8(rgb[0], rgb[1], rgb[2], 255));
        pixmap.fill_rect(rect, &paint, Transform::identity(), None);
    }
}

/// Draws `layer` onto `canvas` with its top-left corner at (`x`, `y`).
fn paste(canvas: &mut Pixmap, layer: &Pixmap, x: i32, y: i32) {
    canvas.draw_pixmap(
        x,
        y,
        layer.as_ref(),
        &PixmapPaint::default(),
        Transform::identity(),
        None,
    );
}

fn rounded(pixmap: &mut Pixmap, x: f32, y: f32, w: f32, h: f32, r: f32, rgb: Rgb) {
    let r = r.min(w / 2.0).min(h / 2.0);
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.quad_to(x + w, y, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.quad_to(x + w, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.quad_to(x, y + h, x, y + h - r);
    pb.line_to(x, y + r);
    pb.quad_to(x, y, x + r, y);
    pb.close();
    if let Some(path) = pb.finish() {
        let mut paint = Paint::default();
        paint.set_color(SkColor::from_rgba8(rgb[0], rgb[1], rgb[2], 255));
        paint.anti_alias = true;
        pixmap.fill_path(
            &path,
            &paint,
            resvg::tiny_skia::FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

const WORDS: &[&str] = &[
    "the",
    "game",
    "white",
    "black",
    "move",
    "analysis",
    "opening",
    "sicilian",
    "defence",
    "rook",
    "endgame",
    "play",
    "puzzle",
    "rating",
    "blitz",
    "rapid",
    "draw",
    "win",
    "check",
    "mate",
    "study",
    "variation",
    "best",
    "engine",
    "depth",
    "knight",
    "bishop",
    "queen",
    "pawn",
    "attack",
    "tempo",
    "position",
    "after",
    "followed",
    "by",
    "with",
    "and",
    "is",
    "a",
    "strong",
    "idea",
    "here",
];

fn words(rng: &mut impl RngExt, count: usize) -> String {
    (0..count)
        .map(|_| *pick(rng, WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Draws a board of side `side` (playing area) and returns it with its truth.
fn drawn(
    rng: &mut impl RngExt,
    library: &Library,
    style: &BoardStyle,
    sampled: &Sampled,
    side: f32,
) -> (DrawnBoard, Arc<PieceSet>) {
    let pieces = pick(rng, &library.piece_sets).clone();
    let square = (side / 8.0).round().max(4.0) as u32;
    (draw_board(&sampled.board, style, &pieces, square), pieces)
}

/// Renders one picture of `category`.
pub fn render_sample(rng: &mut impl RngExt, category: Category, library: &Library) -> Sample {
    match category {
        Category::Clean | Category::Overlay => clean(rng, library, category),
        Category::Screenshot => screenshot(rng, library).0,
        Category::Photo => photo(rng, library),
        Category::Book => book(rng, library),
        Category::Small => small(rng, library),
    }
}

fn clean(rng: &mut impl RngExt, library: &Library, category: Category) -> Sample {
    let sampled = positions::sample(rng);
    let style = screen_style(rng, library, &sampled, category == Category::Overlay);
    let side = rng.random_range(200.0..800.0f32);
    let (board, pieces) = drawn(rng, library, &style, &sampled, side);
    let mut image = pixmap_to_rgb(&board.pixmap);
    let mut corners = board.corners().to_vec();
    // Screenshots are rarely cropped exactly: keep a few pixels of surroundings sometimes.
    if rng.random_bool(0.3) {
        let pad = rng.random_range(2..20u32);
        let bg = crate::style::hsl(
            rng.random_range(0.0..360.0),
            0.1,
            rng.random_range(0.1..0.95),
        );
        image = degrade::surround(&image, &mut corners, pad, bg);
    }
    Sample {
        image,
        category,
        boards: vec![truth(
            &sampled.board,
            &style,
            &pieces,
            &sampled,
            quad(&corners),
        )],
        decoys: Vec::new(),
        degradations: Vec::new(),
        jpeg_quality: None,
    }
}

fn quad(points: &[[f32; 2]]) -> [[f32; 2]; 4] {
    [points[0], points[1], points[2], points[3]]
}

/// A fake browser window around a board. Returns the sample and the window's pixel scale.
fn screenshot(rng: &mut impl RngExt, library: &Library) -> (Sample, f32) {
    let sampled = positions::sample(rng);
    let overlays = rng.random_bool(0.5);
    let style = screen_style(rng, library, &sampled, overlays);
    let width = rng.random_range(900..1920u32);
    let height = rng.random_range(600..1100u32).min(width);
    let dark_ui = rng.random_bool(0.6);
    let (bg, panel, ink, faint): (Rgb, Rgb, Rgb, Rgb) = if dark_ui {
        (
            [0x16, 0x15, 0x12],
            [0x26, 0x24, 0x21],
            [0xba, 0xba, 0xba],
            [0x4a, 0x48, 0x45],
        )
    } else {
        (
            [0xf2, 0xf2, 0xf2],
            [0xff, 0xff, 0xff],
            [0x30, 0x30, 0x30],
            [0xc8, 0xc8, 0xc8],
        )
    };
    let Some(mut canvas) = Pixmap::new(width, height) else {
        return (clean(rng, library, Category::Screenshot), 1.0);
    };
    canvas.fill(SkColor::from_rgba8(bg[0], bg[1], bg[2], 255));
    let (w, h) = (width as f32, height as f32);
    // Title bar with tabs, then the address bar.
    let chrome = rng.random_bool(0.8);
    let mut top = 0.0;
    if chrome {
        fill(&mut canvas, 0.0, 0.0, w, 36.0, [0xde, 0xe1, 0xe6]);
        let tabs = rng.random_range(1..5);
        for i in 0..tabs {
            let x = 8.0 + i as f32 * 190.0;
            rounded(
                &mut canvas,
                x,
                6.0,
                180.0,
                30.0,
                8.0,
                if i == 0 {
                    [0xff, 0xff, 0xff]
                } else {
                    [0xc8, 0xcc, 0xd2]
                },
            );
            text::draw(
                &mut canvas,
                &words(rng, 2),
                Pen::new(Face::Sans, 12.0, [0x30, 0x30, 0x30]),
                x + 12.0,
                26.0,
            );
        }
        fill(&mut canvas, 0.0, 36.0, w, 40.0, [0xff, 0xff, 0xff]);
        rounded(
            &mut canvas,
            90.0,
            42.0,
            w - 180.0,
            28.0,
            14.0,
            [0xf1, 0xf3, 0xf4],
        );
        let url = *pick(
            rng,
            &[
                "lichess.org/analysis",
                "www.chess.com/analysis",
                "lichess.org/training",
                "chess24.com/en/watch",
            ],
        );
        text::draw(
            &mut canvas,
            url,
            Pen::new(Face::Sans, 13.0, [0x20, 0x20, 0x20]),
            110.0,
            61.0,
        );
        top = 76.0;
    }
    // Site header.
    fill(&mut canvas, 0.0, top, w, 44.0, panel);
    text::draw(
        &mut canvas,
        &words(rng, 3),
        Pen::new(Face::Sans, 16.0, ink),
        20.0,
        top + 28.0,
    );
    top += 56.0;

    let available = (h - top - 20.0).max(120.0);
    let side = rng.random_range(0.55..0.98f32) * available.min(w * 0.6);
    let (board, pieces) = drawn(rng, library, &style, &sampled, side);
    let bw = board.pixmap.width() as f32;
    let bh = board.pixmap.height() as f32;
    let max_x = (w - bw - 10.0).max(10.0);
    let bx = rng.random_range(10.0..=max_x.max(10.5)).round();
    let max_y = (h - bh - 10.0).max(top + 1.0);
    let by = rng.random_range(top.min(max_y)..=max_y).round();
    // Player bars with clocks above and below the board.
    for (y, name) in [(by - 34.0, words(rng, 1)), (by + bh + 6.0, words(rng, 1))] {
        if y > top && y + 28.0 < h {
            rounded(&mut canvas, bx, y, bw, 28.0, 4.0, panel);
            text::draw(
                &mut canvas,
                &name,
                Pen::new(Face::Sans, 14.0, ink),
                bx + 8.0,
                y + 19.0,
            );
            let clock = format!("{}:{:02}", rng.random_range(0..60), rng.random_range(0..60));
            let cw = text::width(&clock, Face::Sans, 18.0);
            fill(
                &mut canvas,
                bx + bw - cw - 16.0,
                y + 2.0,
                cw + 12.0,
                24.0,
                if dark_ui {
                    [0x3a, 0x3a, 0x3a]
                } else {
                    [0xe0, 0xe0, 0xe0]
                },
            );
            text::draw(
                &mut canvas,
                &clock,
                Pen::new(Face::Sans, 18.0, ink),
                bx + bw - cw - 10.0,
                y + 21.0,
            );
        }
    }
    // Side panel: move list or chat, on whichever side has room.
    let right_room = w - (bx + bw) - 20.0;
    let left_room = bx - 20.0;
    let (px, pw) = if right_room > left_room {
        (bx + bw + 14.0, right_room - 4.0)
    } else {
        (10.0, left_room - 4.0)
    };
    let mut decoys = Vec::new();
    if pw > 120.0 {
        rounded(&mut canvas, px, top, pw, h - top - 10.0, 6.0, panel);
        let mut y = top + 24.0;
        let mut number = 1;
        while y < h - 30.0 {
            match rng.random_range(0..6) {
                0 if pw > 200.0 => {
                    // A chat bubble.
                    let bubble_w = rng.random_range(0.5..0.95) * pw;
                    rounded(
                        &mut canvas,
                        px + 8.0,
                        y - 14.0,
                        bubble_w - 16.0,
                        40.0,
                        12.0,
                        faint,
                    );
                    text::draw(
                        &mut canvas,
                        &words(rng, 4),
                        Pen::new(Face::Sans, 13.0, ink),
                        px + 18.0,
                        y + 10.0,
                    );
                    y += 50.0;
                }
                1 if decoys.is_empty() && pw > 140.0 && rng.random_bool(0.3) => {
                    // A small board-like thumbnail that is not the board to read.
                    let thumb = rng.random_range(56.0..(pw - 20.0).min(120.0));
                    let mini = positions::sample(rng);
                    let mini_style = BoardStyle {
                        look: screen_look(rng, library),
                        ..BoardStyle::default()
                    };
                    let mini_board = draw_board(
                        &mini.board,
                        &mini_style,
                        &pieces,
                        (thumb / 8.0).max(4.0) as u32,
                    );
                    paste(&mut canvas, &mini_board.pixmap, px as i32 + 10, y as i32);
                    let s = mini_board.side;
                    let (x0, y0) = ((px + 10.0).floor(), y.floor());
                    decoys.push([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]]);
                    y += s + 20.0;
                }
                _ => {
                    let text = format!(
                        "{number}. {} {}",
                        *pick(
                            rng,
                            &[
                                "e4", "d4", "Nf3", "c4", "Bb5", "O-O", "Qxd8+", "exd5", "Rfe1",
                                "h3"
                            ]
                        ),
                        *pick(
                            rng,
                            &[
                                "e5", "c5", "Nf6", "d5", "a6", "Nc6", "Kxd8", "Bg7", "O-O", "Re8"
                            ]
                        )
                    );
                    text::draw(
                        &mut canvas,
                        &text,
                        Pen::new(Face::Sans, 14.0, ink),
                        px + 12.0,
                        y,
                    );
                    number += 1;
                    y += 24.0;
                }
            }
        }
    }
    paste(&mut canvas, &board.pixmap, bx as i32, by as i32);
    let corners: Vec<[f32; 2]> = board
        .corners()
        .iter()
        .map(|c| [c[0] + bx, c[1] + by])
        .collect();
    let image = pixmap_to_rgb(&canvas);
    let sample = Sample {
        image,
        category: Category::Screenshot,
        boards: vec![truth(
            &sampled.board,
            &style,
            &pieces,
            &sampled,
            quad(&corners),
        )],
        decoys,
        degradations: Vec::new(),
        jpeg_quality: None,
    };
    (sample, 1.0)
}

/// Applies `f` to the picture and all truth points (boards, then decoys).
fn transform(sample: &mut Sample, f: impl FnOnce(&RgbImage, &mut Points) -> RgbImage) {
    let mut points: Points = sample
        .boards
        .iter()
        .flat_map(|b| b.corners)
        .chain(sample.decoys.iter().flatten().copied())
        .collect();
    sample.image = f(&sample.image, &mut points);
    let mut it = points.into_iter();
    for b in sample.boards.iter_mut() {
        for c in b.corners.iter_mut() {
            if let Some(p) = it.next() {
                *c = p;
            }
        }
    }
    for d in sample.decoys.iter_mut() {
        for c in d.iter_mut() {
            if let Some(p) = it.next() {
                *c = p;
            }
        }
    }
}

/// Puts the picture on a larger background so that warps keep the board in view.
fn pad(sample: &mut Sample, fraction: f32, rgb: Rgb, rng: &mut impl RngExt) {
    let (w, h) = sample.image.dimensions();
    let p = (fraction * w.max(h) as f32) as u32;
    transform(sample, |img, points| degrade::surround(img, points, p, rgb));
    // Desk-like texture around the picture.
    let mut desk =
        RgbImage::from_pixel(sample.image.width(), sample.image.height(), image::Rgb(rgb));
    degrade::noise(&mut desk, 6.0, rng);
    for (x, y, pixel) in sample.image.enumerate_pixels_mut() {
        let inside = x >= p && y >= p && x < p + w && y < p + h;
        if !inside {
            *pixel = *desk.get_pixel(x, y);
        }
    }
}

fn photo(rng: &mut impl RngExt, library: &Library) -> Sample {
    let mut sample = if rng.random_bool(0.5) {
        screenshot(rng, library).0
    } else {
        clean(rng, library, Category::Clean)
    };
    sample.category = Category::Photo;
    // Photos are taken at phone resolution of a part of the screen: bring to ~800-1400 px.
    let target = rng.random_range(700.0..1400.0f32);
    let factor = target / sample.image.width().max(sample.image.height()) as f32;
    transform(&mut sample, |img, pts| {
        degrade::scale(img, pts, factor.min(1.5), FilterType::Triangle)
    });
    let desk = crate::style::hsl(
        rng.random_range(0.0..360.0),
        0.15,
        rng.random_range(0.05..0.4),
    );
    pad(&mut sample, 0.12, desk, rng);
    let mut steps = Vec::new();
    let board_quad = sample.boards[0].corners;
    let amount = rng.random_range(0.02..0.15f32);
    transform(&mut sample, |img, pts| {
        degrade::perspective(img, pts, board_quad, amount, desk, rng)
    });
    steps.push(format!("perspective:{amount:.2}"));
    let degrees = rng.random_range(-8.0..8.0f32);
    transform(&mut sample, |img, pts| {
        degrade::rotate(img, pts, degrees, desk)
    });
    steps.push(format!("rotate:{degrees:.1}"));
    steps.extend(degrade::screen_light(&mut sample.image, rng));
    if rng.random_bool(0.7) {
        let sigma = rng.random_range(0.4..2.0);
        sample.image = degrade::blur(&sample.image, sigma);
        steps.push(format!("blur:{sigma:.1}"));
    } else {
        let length = rng.random_range(2.0..7.0);
        sample.image = degrade::motion_blur(
            &sample.image,
            length,
            rng.random_range(0.0..std::f32::consts::PI),
        );
        steps.push(format!("motion:{length:.1}"));
    }
    let sigma = rng.random_range(2.0..9.0);
    degrade::noise(&mut sample.image, sigma, rng);
    steps.push(format!("noise:{sigma:.1}"));
    let quality = rng.random_range(30..=95u8);
    steps.push(format!("jpeg:{quality}"));
    sample.degradations = steps;
    sample.jpeg_quality = Some(quality);
    sample
}

const CAPTIONS: &[&str] = &[
    "White to move",
    "Black to move",
    "White to play and win",
    "Black to play",
    "White mates in two",
    "Position after 23...Qe7",
];

fn book(rng: &mut impl RngExt, library: &Library) -> Sample {
    let (cols, rows) = *pick(rng, &[(1u32, 1u32), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]);
    let side = rng.random_range(160.0..360.0f32);
    let hatch = *pick(
        rng,
        &[
            Hatch::Diagonal,
            Hatch::Diagonal,
            Hatch::Stipple,
            Hatch::Grey,
        ],
    );
    let coords = if rng.random_bool(0.5) {
        Coords::Outside
    } else {
        Coords::None
    };
    let cell_w = side * 1.25;
    let cell_h = side * 1.45;
    let margin = 60.0;
    let width = (cols as f32 * cell_w + 2.0 * margin) as u32;
    let height = (rows as f32 * cell_h + 2.0 * margin + 120.0) as u32;
    let mut boards = Vec::new();
    let Some(mut page) = Pixmap::new(width, height) else {
        return clean(rng, library, Category::Book);
    };
    page.fill(SkColor::from_rgba8(255, 255, 255, 255));
    // Text lines above the diagrams.
    let mut y = margin;
    while y < margin + 90.0 {
        let count = rng.random_range(6..14);
        let mut line = words(rng, count);
        while text::width(&line, Face::Serif, 15.0) > width as f32 - 2.0 * margin {
            let cut = line.rfind(' ').unwrap_or(0);
            line.truncate(cut);
        }
        text::draw(
            &mut page,
            &line,
            Pen::new(Face::Serif, 15.0, [0, 0, 0]),
            margin,
            y,
        );
        y += 22.0;
    }
    let pieces = pick(rng, &library.piece_sets).clone();
    for row in 0..rows {
        for col in 0..cols {
            let sampled = positions::sample(rng);
            let style = BoardStyle {
                look: BoardLook::Book { hatch },
                coords,
                flipped: rng.random_bool(0.15),
                frame: if rng.random_bool(0.4) {
                    rng.random_range(0.04..0.12)
                } else {
                    0.0
                },
                ..BoardStyle::default()
            };
            let board = draw_board(&sampled.board, &style, &pieces, (side / 8.0) as u32);
            let x = margin + col as f32 * cell_w + (cell_w - board.pixmap.width() as f32) / 2.0;
            let top = margin + 110.0 + row as f32 * cell_h;
            paste(&mut page, &board.pixmap, x as i32, top as i32);
            let caption = pick(rng, CAPTIONS).to_string();
            let cw = text::width(&caption, Face::Serif, 15.0);
            text::draw(
                &mut page,
                &caption,
                Pen::new(Face::Serif, 15.0, [0, 0, 0]),
                x + board.pixmap.width() as f32 / 2.0 - cw / 2.0,
                top + board.pixmap.height() as f32 + 24.0,
            );
            let corners: Vec<[f32; 2]> = board
                .corners()
                .iter()
                .map(|c| [c[0] + x.floor(), c[1] + top.floor()])
                .collect();
            let mut t = truth(&sampled.board, &style, &pieces, &sampled, quad(&corners));
            t.caption = Some(caption);
            boards.push(t);
        }
    }
    // Printed in black and white.
    let gray = image::DynamicImage::ImageRgba8(pixmap_to_rgba(&page))
        .grayscale()
        .to_rgb8();
    let mut sample = Sample {
        image: gray,
        category: Category::Book,
        boards,
        decoys: Vec::new(),
        degradations: Vec::new(),
        jpeg_quality: None,
    };
    let mut steps = Vec::new();
    degrade::paper_tone(&mut sample.image, rng);
    steps.push("paper".to_string());
    let paper: Rgb = [200, 190, 170];
    if rng.random_bool(0.5) {
        // Scanned straight: tiny rotation, light blur and noise.
        let degrees = rng.random_range(-1.5..1.5f32);
        transform(&mut sample, |img, pts| {
            degrade::rotate(img, pts, degrees, [235, 230, 220])
        });
        sample.image = degrade::blur(&sample.image, rng.random_range(0.3..0.9));
        degrade::noise(&mut sample.image, rng.random_range(2.0..6.0), rng);
        steps.push(format!("scan:rotate:{degrees:.1}"));
    } else {
        // Photographed: perspective, curl, shadow, uneven light, JPEG.
        pad(&mut sample, 0.08, paper.map(|c| c / 3), rng);
        let board_quad = sample.boards[0].corners;
        let amount = rng.random_range(0.01..0.1f32);
        transform(&mut sample, |img, pts| {
            degrade::perspective(img, pts, board_quad, amount, [40, 40, 40], rng)
        });
        let curl = rng.random_range(0.0..0.04f32);
        transform(&mut sample, |img, pts| {
            degrade::page_curl(img, pts, curl, [40, 40, 40])
        });
        degrade::shadow(&mut sample.image, rng.random_range(0.1..0.4), rng);
        degrade::uneven_light(&mut sample.image, rng.random_range(0.05..0.3), rng);
        sample.image = degrade::blur(&sample.image, rng.random_range(0.3..1.4));
        degrade::noise(&mut sample.image, rng.random_range(2.0..7.0), rng);
        let quality = rng.random_range(40..=95u8);
        sample.jpeg_quality = Some(quality);
        steps.push(format!(
            "photo:perspective:{amount:.2}:curl:{curl:.2}:jpeg:{quality}"
        ));
    }
    sample.degradations = steps;
    sample
}

fn small(rng: &mut impl RngExt, library: &Library) -> Sample {
    let base = if rng.random_bool(0.4) {
        Category::Overlay
    } else {
        Category::Clean
    };
    let mut sample = clean(rng, library, base);
    sample.category = Category::Small;
    let board_px = rng.random_range(100.0..200.0f32);
    let side = sample.boards[0].corners[1][0] - sample.boards[0].corners[0][0];
    let factor = board_px / side.max(1.0);
    let filter = *pick(
        rng,
        &[
            FilterType::Triangle,
            FilterType::CatmullRom,
            FilterType::Nearest,
            FilterType::Lanczos3,
        ],
    );
    transform(&mut sample, |img, pts| {
        degrade::scale(img, pts, factor, filter)
    });
    let mut steps = vec![format!("downscale:{board_px:.0}px")];
    if rng.random_bool(0.3) {
        let up = rng.random_range(1.5..3.5f32);
        transform(&mut sample, |img, pts| {
            degrade::scale(img, pts, up, FilterType::Triangle)
        });
        steps.push(format!("upscale:{up:.1}"));
    }
    if rng.random_bool(0.5) {
        let quality = rng.random_range(30..=95u8);
        sample.jpeg_quality = Some(quality);
        steps.push(format!("jpeg:{quality}"));
    }
    sample.degradations = steps;
    sample
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn dragged_pieces_are_pieces_of_the_board_picked_up_once() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(27);
        let mut board = Board::empty();
        board.set_piece_at(
            Square::E1,
            fenlens_fen::shakmaty::Piece::from_char('K').unwrap(),
        );
        board.set_piece_at(
            Square::E8,
            fenlens_fen::shakmaty::Piece::from_char('k').unwrap(),
        );
        assert!(dragged_pieces(&mut rng, &Board::empty(), 2).is_empty());
        for _ in 0..100 {
            let dragged = dragged_pieces(&mut rng, &board, 3);
            assert_eq!(dragged.len(), 2, "no more than the board's pieces");
            assert_ne!(dragged[0].from, dragged[1].from);
            for d in &dragged {
                assert!(board.piece_at(d.from).is_some());
                let reach = d.offset[0].hypot(d.offset[1]);
                assert!((0.29..1.21).contains(&reach), "{reach}");
                assert!((0.2..0.5).contains(&d.ghost), "{}", d.ghost);
            }
        }
    }

    #[test]
    fn move_hints_put_dots_on_empty_squares_and_marks_around_pieces() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(25);
        let board = Board::new();
        let (mut dots, mut marks, mut faint) = (0, 0, 0);
        for _ in 0..200 {
            let hints = move_hints(&mut rng, &board);
            let mut squares: Vec<Square> = hints.iter().map(|h| h.square).collect();
            squares.sort();
            squares.dedup();
            assert_eq!(squares.len(), hints.len(), "no square marked twice");
            let on_empty = hints.iter().filter(|h| board.piece_at(h.square).is_none());
            let on_pieces = hints.iter().filter(|h| board.piece_at(h.square).is_some());
            assert!(
                on_empty
                    .clone()
                    .all(|h| matches!(h.shape, HintShape::Dot { .. }))
            );
            assert!(
                on_pieces
                    .clone()
                    .all(|h| !matches!(h.shape, HintShape::Dot { .. }))
            );
            let (empty, pieces) = (on_empty.count(), on_pieces.count());
            assert!(
                (1..=10).contains(&empty) && pieces <= 2,
                "{empty} dots, {pieces} marks"
            );
            dots += empty;
            marks += pieces;
            faint += usize::from(hints.iter().all(|h| h.tint.alpha < 0.2));
        }
        assert!(dots > 800 && marks > 100, "{dots} dots, {marks} marks");
        assert!(
            (40..=100).contains(&faint),
            "{faint} of 200 in chess.com's faint grey"
        );
    }

    #[test]
    fn textures_are_the_whole_board_pictures_of_a_folder() {
        let dir = std::env::temp_dir().join(format!("fenlens-textures-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let picture = image::RgbImage::from_pixel(8, 8, image::Rgb([200, 150, 100]));
        picture.save(dir.join("wood.png")).unwrap();
        picture.save(dir.join("wood-squares.png")).unwrap();
        std::fs::write(dir.join("LICENSE.txt"), "not a picture").unwrap();
        let mut library = Library::builtin();
        library.add_textures(&dir).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let names: Vec<String> = library
            .textures
            .iter()
            .map(|look| match look {
                BoardLook::Texture { name, .. } => name.clone(),
                _ => String::new(),
            })
            .collect();
        assert_eq!(names, ["wood"]);

        // A missing folder names itself and its reason once: the reason is in the message,
        // not repeated as the error's source.
        let missing = dir.join("missing");
        let error = library.add_textures(&missing).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with(&missing.display().to_string()),
            "{message}"
        );
        assert!(std::error::Error::source(&error).is_none());
    }

    #[test]
    fn every_category_renders_with_corners_inside_the_picture() {
        let library = Library::builtin();
        for (i, category) in Category::ALL.into_iter().enumerate() {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(100 + i as u64);
            let sample = render_sample(&mut rng, category, &library);
            let (w, h) = sample.image.dimensions();
            assert!(!sample.boards.is_empty());
            for b in &sample.boards {
                for [x, y] in b.corners {
                    assert!(
                        x > -1.0 && y > -1.0 && x < w as f32 + 1.0 && y < h as f32 + 1.0,
                        "{category:?}: {x},{y} in {w}x{h}"
                    );
                }
            }
        }
    }
}
