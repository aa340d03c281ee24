//! Classify: a small convolutional network gives 13 class probabilities per square.
//!
//! Input: the 64 crops of [`crate::rectify::cut_squares`] (grey, board-normalized,
//! `CROP`×`CROP` each). Network: three 3x3 convolutions with stride 2 (1→16→32→64 channels,
//! 32→16→8→4 pixels), a 64-unit hidden layer and 13 outputs; about 0.7 million multiply-adds a
//! square, 45 million a board. Weights are built into the binary (`models/square-net.safetensors`).

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Conv2d, Conv2dConfig, Linear, VarBuilder, conv2d, linear};
use fenlens_fen::shakmaty::Piece;
use fenlens_render::pieces::{PIECES, piece_index};

use crate::VisionError;
use crate::rectify::{CROP, mirror_crop};

mod inference;

/// Number of classes: empty, then White P N B R Q K, then Black P N B R Q K.
pub const CLASSES: usize = 13;

/// The piece of a class (`None` for empty). Classes 1-12 follow the renderer's piece order.
pub fn class_piece(class: usize) -> Option<Piece> {
    class.checked_sub(1).and_then(|i| PIECES.get(i).copied())
}

/// The class of a piece (0 for empty).
pub fn piece_class(piece: Option<Piece>) -> usize {
    piece.map_or(0, |p| piece_index(p) + 1)
}

/// The FEN letter of a class (`.` for empty).
pub fn class_char(class: usize) -> char {
    class_piece(class).map(|p| p.char()).unwrap_or('.')
}

/// The square network.
pub struct SquareNet {
    conv1: Conv2d,
    conv2: Conv2d,
    conv3: Conv2d,
    hidden: Linear,
    output: Linear,
}

impl SquareNet {
    /// Builds the network from a variable store (new random weights or loaded ones).
    pub fn new(vb: VarBuilder) -> candle_core::Result<SquareNet> {
        let stride2 = Conv2dConfig {
            padding: 1,
            stride: 2,
            ..Conv2dConfig::default()
        };
        Ok(SquareNet {
            conv1: conv2d(1, 16, 3, stride2, vb.pp("conv1"))?,
            conv2: conv2d(16, 32, 3, stride2, vb.pp("conv2"))?,
            conv3: conv2d(32, 64, 3, stride2, vb.pp("conv3"))?,
            hidden: linear(64 * 4 * 4, 64, vb.pp("hidden"))?,
            output: linear(64, CLASSES, vb.pp("output"))?,
        })
    }

    /// Logits for a batch `[n, 1, CROP, CROP]`.
    pub fn forward(&self, input: &Tensor) -> candle_core::Result<Tensor> {
        let x = self.conv1.forward(input)?.relu()?;
        let x = self.conv2.forward(&x)?.relu()?;
        let x = self.conv3.forward(&x)?.relu()?;
        let x = x.flatten_from(1)?;
        let x = self.hidden.forward(&x)?.relu()?;
        self.output.forward(&x)
    }
}

/// Multiply-adds of one square through [`SquareNet`].
pub const MULTIPLY_ADDS_PER_SQUARE: usize =
    16 * 16 * 16 * 9 + 8 * 8 * 32 * 16 * 9 + 4 * 4 * 64 * 32 * 9 + 1024 * 64 + 64 * CLASSES;

#[cfg(fenlens_has_model)]
const WEIGHTS: &[u8] = include_bytes!("../../../models/square-net.safetensors");
#[cfg(not(fenlens_has_model))]
const WEIGHTS: &[u8] = &[];

/// The trained classifier, ready to run on the CPU.
pub struct Classifier {
    net: inference::FastSquareNet,
    mirror: bool,
}

impl Classifier {
    /// The classifier built into the binary.
    pub fn embedded() -> Result<Classifier, VisionError> {
        if WEIGHTS.is_empty() {
            return Err(VisionError::NoModel);
        }
        Self::from_bytes(WEIGHTS)
    }

    /// A classifier from safetensors bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Classifier, VisionError> {
        let device = Device::Cpu;
        let vb = VarBuilder::from_slice_safetensors(bytes, DType::F32, &device)
            .map_err(|e| VisionError::Model(e.to_string()))?;
        let net = SquareNet::new(vb)
            .and_then(|net| inference::FastSquareNet::new(&net))
            .map_err(|e| VisionError::Model(e.to_string()))?;
        Ok(Classifier { net, mirror: true })
    }

    /// Whether to average each square's probabilities with those of its mirror image, for the
    /// squares that are not surely empty (on by default: on piece designs never seen in training
    /// 56% of held-out boards come out exactly right instead of 48%, for about 1.3x the work on
    /// a game position; see models/README.md).
    pub fn with_mirror_averaging(mut self, on: bool) -> Classifier {
        self.mirror = on;
        self
    }

    /// Class probabilities for the 64 crops (display order): 64 rows of 13.
    pub fn probabilities(&self, crops: &[f32]) -> Result<Vec<[f32; CLASSES]>, VisionError> {
        let mut rows = self.forward(crops)?;
        if self.mirror {
            // A second look, mirrored, at every square that is not plainly empty (most empty
            // squares are certain at once; the pieces are where designs mislead).
            let second: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i][0] < SURELY_EMPTY)
                .collect();
            let mut mirrored = Vec::with_capacity(second.len() * CROP * CROP);
            for &i in &second {
                mirrored.extend_from_slice(&crops[i * CROP * CROP..(i + 1) * CROP * CROP]);
            }
            mirrored.chunks_exact_mut(CROP * CROP).for_each(mirror_crop);
            if !second.is_empty() {
                let looks = self.forward(&mirrored)?;
                for (&i, look) in second.iter().zip(looks) {
                    for (p, q) in rows[i].iter_mut().zip(look) {
                        *p = (*p + q) / 2.0;
                    }
                }
            }
        }
        Ok(rows)
    }

    fn forward(&self, crops: &[f32]) -> Result<Vec<[f32; CLASSES]>, VisionError> {
        self.net
            .probabilities(crops)
            .map_err(|e| VisionError::Model(e.to_string()))
    }
}

/// Squares at least this likely empty skip the mirrored second look.
const SURELY_EMPTY: f32 = 0.995;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_pieces_round_trip() {
        for class in 0..CLASSES {
            assert_eq!(piece_class(class_piece(class)), class);
        }
        assert_eq!(class_char(1), 'P');
        assert_eq!(class_char(12), 'k');
        assert_eq!(class_char(0), '.');
    }

    #[test]
    fn network_shapes() {
        let varmap = candle_nn::VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let net = SquareNet::new(vb).unwrap();
        let input = Tensor::zeros((3, 1, CROP, CROP), DType::F32, &Device::Cpu).unwrap();
        let out = net.forward(&input).unwrap();
        assert_eq!(out.dims(), &[3, CLASSES]);
        const { assert!(MULTIPLY_ADDS_PER_SQUARE * 64 < 50_000_000) };
    }
}
