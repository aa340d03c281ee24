//! Piece sets: twelve SVG drawings, rasterized with resvg at any size and cached per size.
//!
//! A set is a folder of `wK.svg … bP.svg` (the layout of lichess's `public/piece/<set>/`). The
//! repository ships one set, cburnett (GPLv2+), built into the binary.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use fenlens_fen::shakmaty::{Color, Piece, Role};
use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg;

use crate::RenderError;

/// The twelve pieces in a fixed order: White pawn, knight, bishop, rook, queen, king, then Black.
pub const PIECES: [Piece; 12] = {
    let roles = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    let mut out = [Piece {
        color: Color::White,
        role: Role::Pawn,
    }; 12];
    let mut i = 0;
    while i < 12 {
        out[i] = Piece {
            color: if i < 6 { Color::White } else { Color::Black },
            role: roles[i % 6],
        };
        i += 1;
    }
    out
};

/// The index of a piece in [`PIECES`].
pub fn piece_index(piece: Piece) -> usize {
    let role = piece.role as usize - 1;
    role + if piece.color.is_white() { 0 } else { 6 }
}

/// The file name of a piece's drawing, e.g. `wK.svg`.
pub fn file_name(piece: Piece) -> String {
    format!(
        "{}{}.svg",
        piece.color.char(),
        piece.role.char().to_ascii_uppercase()
    )
}

/// The built-in set's drawings, in [`PIECES`] order.
const CBURNETT: [&str; 12] = [
    include_str!("../assets/pieces/cburnett/wP.svg"),
    include_str!("../assets/pieces/cburnett/wN.svg"),
    include_str!("../assets/pieces/cburnett/wB.svg"),
    include_str!("../assets/pieces/cburnett/wR.svg"),
    include_str!("../assets/pieces/cburnett/wQ.svg"),
    include_str!("../assets/pieces/cburnett/wK.svg"),
    include_str!("../assets/pieces/cburnett/bP.svg"),
    include_str!("../assets/pieces/cburnett/bN.svg"),
    include_str!("../assets/pieces/cburnett/bB.svg"),
    include_str!("../assets/pieces/cburnett/bR.svg"),
    include_str!("../assets/pieces/cburnett/bQ.svg"),
    include_str!("../assets/pieces/cburnett/bK.svg"),
];

/// Rasterized pieces of one set at one size (square pixmaps, premultiplied RGBA).
pub type Sprites = [Pixmap; 12];

/// A piece set: parsed drawings plus a cache of rasterized sizes.
pub struct PieceSet {
    name: String,
    sources: Vec<String>,
    trees: Vec<usvg::Tree>,
    cache: Mutex<HashMap<u32, Arc<Sprites>>>,
}

impl std::fmt::Debug for PieceSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PieceSet")
            .field("name", &self.name)
            .finish()
    }
}

impl PieceSet {
    /// The built-in cburnett set.
    pub fn builtin() -> PieceSet {
        let sources: Vec<String> = CBURNETT.iter().map(|s| s.to_string()).collect();
        // The built-in drawings are known to parse; a failure here is a build defect.
        Self::from_sources("cburnett".into(), sources).expect("built-in cburnett set parses")
    }

    /// Loads a set from a folder of `wK.svg … bP.svg`; the set is named after the folder.
    pub fn load(dir: &Path) -> Result<PieceSet, RenderError> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "pieces".into());
        let mut sources = Vec::with_capacity(12);
        for piece in PIECES {
            let path = dir.join(file_name(piece));
            let text = std::fs::read_to_string(&path).map_err(|cause| RenderError::Io {
                path: path.clone(),
                cause,
            })?;
            sources.push(text);
        }
        Self::from_sources(name, sources)
    }

    fn from_sources(name: String, sources: Vec<String>) -> Result<PieceSet, RenderError> {
        let options = usvg::Options::default();
        let trees = sources
            .iter()
            .zip(PIECES)
            .map(|(text, piece)| {
                usvg::Tree::from_str(text, &options).map_err(|e| RenderError::Svg {
                    what: format!("{name}/{}", file_name(piece)),
                    message: e.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PieceSet {
            name,
            sources,
            trees,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The set's name (its folder name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The SVG text of a piece, for SVG output.
    pub fn svg_source(&self, piece: Piece) -> &str {
        &self.sources[piece_index(piece)]
    }

    /// All twelve pieces rasterized into `size`×`size` pixmaps (cached).
    pub fn sprites(&self, size: u32) -> Arc<Sprites> {
        let size = size.clamp(1, 4096);
        if let Some(hit) = self.cache.lock().ok().and_then(|c| c.get(&size).cloned()) {
            return hit;
        }
        let sprites: Sprites = std::array::from_fn(|i| self.rasterize(i, size));
        let sprites = Arc::new(sprites);
        if let Ok(mut cache) = self.cache.lock() {
            // Keep the cache bounded: datasets use many sizes.
            if cache.len() > 64 {
                cache.clear();
            }
            cache.insert(size, sprites.clone());
        }
        sprites
    }

    fn rasterize(&self, index: usize, size: u32) -> Pixmap {
        let tree = &self.trees[index];
        // Pixmap::new fails only for zero sizes, which `sprites` rules out.
        let mut pixmap = Pixmap::new(size, size).expect("non-zero sprite size");
        let tree_size = tree.size();
        let scale = size as f32 / tree_size.width().max(tree_size.height());
        let dx = (size as f32 - tree_size.width() * scale) / 2.0;
        let dy = (size as f32 - tree_size.height() * scale) / 2.0;
        resvg::render(
            tree,
            Transform::from_row(scale, 0.0, 0.0, scale, dx, dy),
            &mut pixmap.as_mut(),
        );
        pixmap
    }
}

/// Anything that can hand [`crate::draw_board`] the twelve piece drawings at a size.
pub trait PieceDrawings {
    /// All twelve pieces rasterized into `size`×`size` pixmaps, in [`PIECES`] order.
    fn sprites(&self, size: u32) -> Arc<Sprites>;
}

impl PieceDrawings for PieceSet {
    fn sprites(&self, size: u32) -> Arc<Sprites> {
        PieceSet::sprites(self, size)
    }
}

impl<T: PieceDrawings + ?Sized> PieceDrawings for Arc<T> {
    fn sprites(&self, size: u32) -> Arc<Sprites> {
        (**self).sprites(size)
    }
}

/// A new design made of two known ones: each piece's drawing is the `base` set's above its cut
/// line and the `donor` set's below it (a cut of 0 takes the donor's whole piece, 1 the base's).
///
/// Training uses it so that the classifier learns pieces by the parts that tell them apart
/// (a knight's head, a bishop's mitre) rather than by a base or a collar one set happens to draw.
pub struct GraftedSet {
    /// The set drawing the tops.
    pub base: Arc<PieceSet>,
    /// The set drawing the bottoms.
    pub donor: Arc<PieceSet>,
    /// Per piece ([`PIECES`] order), the cut line as a fraction of the drawing's height.
    pub cuts: [f32; 12],
}

impl PieceDrawings for GraftedSet {
    fn sprites(&self, size: u32) -> Arc<Sprites> {
        let base = self.base.sprites(size);
        let donor = self.donor.sprites(size);
        Arc::new(std::array::from_fn(|i| {
            graft(&base[i], &donor[i], self.cuts[i])
        }))
    }
}

/// `top` above the line at `cut` of the height, `bottom` below it (same-sized pixmaps).
fn graft(top: &Pixmap, bottom: &Pixmap, cut: f32) -> Pixmap {
    let mut out = top.clone();
    let row = top.width() as usize * 4;
    let line = ((cut.clamp(0.0, 1.0) * top.height() as f32).round() as usize) * row;
    let line = line.min(out.data().len()).min(bottom.data().len());
    let end = out.data().len().min(bottom.data().len());
    out.data_mut()[line..end].copy_from_slice(&bottom.data()[line..end]);
    out
}

/// Lists the piece-set folders under `root` (folders holding all twelve drawings), sorted.
pub fn list_sets(root: &Path) -> Result<Vec<std::path::PathBuf>, RenderError> {
    crate::sorted_entries(root, |p| {
        p.is_dir() && PIECES.iter().all(|&pc| p.join(file_name(pc)).is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grafted_pieces_join_two_sets_at_the_cut() {
        let base = Arc::new(PieceSet::builtin());
        let donor_sources = CBURNETT
            .iter()
            .map(|s| s.replace("fill=\"#fff\"", "fill=\"#f00\""))
            .collect();
        let donor = Arc::new(PieceSet::from_sources("red".into(), donor_sources).unwrap());
        let mut cuts = [1.0; 12];
        cuts[0] = 0.5; // white pawn: cburnett's top, the red set's bottom
        cuts[1] = 0.0; // white knight: all the red set's
        let grafted = GraftedSet {
            base: base.clone(),
            donor: donor.clone(),
            cuts,
        };
        let sprites = grafted.sprites(40);
        let (plain, red) = (base.sprites(40), donor.sprites(40));
        let rows = |p: &Pixmap, from: usize, to: usize| p.data()[from * 160..to * 160].to_vec();
        assert_ne!(
            rows(&plain[0], 0, 40),
            rows(&red[0], 0, 40),
            "the sets differ"
        );
        assert_eq!(rows(&sprites[0], 0, 20), rows(&plain[0], 0, 20));
        assert_eq!(rows(&sprites[0], 20, 40), rows(&red[0], 20, 40));
        assert_eq!(sprites[1].data(), red[1].data());
        assert_eq!(sprites[5].data(), plain[5].data());
    }

    #[test]
    fn piece_order_and_names() {
        for (i, piece) in PIECES.iter().enumerate() {
            assert_eq!(piece_index(*piece), i);
        }
        assert_eq!(file_name(PIECES[5]), "wK.svg");
        assert_eq!(file_name(PIECES[6]), "bP.svg");
    }

    #[test]
    fn builtin_set_rasterizes_with_ink_and_is_cached() {
        let set = PieceSet::builtin();
        let a = set.sprites(40);
        let b = set.sprites(40);
        assert!(Arc::ptr_eq(&a, &b));
        for sprite in a.iter() {
            let opaque = sprite.pixels().iter().filter(|p| p.alpha() > 128).count();
            assert!(opaque > 100, "every piece covers part of its square");
        }
        // The white king is mostly light, the black king mostly dark.
        let mean = |p: &Pixmap| {
            let px: Vec<_> = p.pixels().iter().filter(|p| p.alpha() == 255).collect();
            px.iter().map(|p| p.red() as f32).sum::<f32>() / px.len() as f32
        };
        assert!(mean(&a[5]) > mean(&a[11]) + 60.0);
    }
}
