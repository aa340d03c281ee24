//! The square network's forward pass for inference, laid out for speed.
//!
//! candle's general convolution cuts every picture of a batch into tiles and runs a small
//! matrix product per tile, which for this tiny network costs more than the arithmetic (about
//! 4 ms of a board's 8). Here each layer is one matrix product over the whole batch: the
//! activations stay channels-last (`[n, height, width, channels]`), a 3x3 stride-2 convolution
//! gathers its patches into rows (`im2col`) and multiplies them by the kernel laid out as
//! `[3 * 3 * in, out]`, and bias and ReLU are added in the same pass that copies the result.
//! The weights are rearranged once, when the model is loaded, from the [`SquareNet`] a
//! training run saved; a test checks the two forward passes agree.

use candle_core::{Device, Tensor};

use super::{CLASSES, SquareNet};
use crate::rectify::CROP;

/// One layer as a matrix product: `[rows, inputs] x [inputs, outputs]` plus a bias.
struct Dense {
    /// `[inputs, outputs]`, row-major.
    weight: Tensor,
    bias: Vec<f32>,
    inputs: usize,
}

impl Dense {
    /// `rows x inputs` values in, `rows x outputs` out, with the bias added and, when `relu`,
    /// negatives set to zero.
    fn apply(&self, input: Vec<f32>, relu: bool) -> candle_core::Result<Vec<f32>> {
        let rows = input.len() / self.inputs;
        let input = Tensor::from_vec(input, (rows, self.inputs), &Device::Cpu)?;
        let mut out = input
            .matmul(&self.weight)?
            .flatten_all()?
            .to_vec1::<f32>()?;
        for row in out.chunks_exact_mut(self.bias.len()) {
            for (v, b) in row.iter_mut().zip(&self.bias) {
                *v += b;
                if relu && *v < 0.0 {
                    *v = 0.0;
                }
            }
        }
        Ok(out)
    }
}

/// A 3x3 convolution with stride 2 and padding 1, channels-last.
struct Conv {
    dense: Dense,
    channels_in: usize,
}

impl Conv {
    /// From candle's `[out, in, 3, 3]` kernel and its bias.
    fn from_candle(conv: &candle_nn::Conv2d) -> candle_core::Result<Conv> {
        let (out, channels_in, _, _) = conv.weight().dims4()?;
        // Rows of the gathered patches run (ky, kx, channel): the same layout as training's
        // `conv_stride2` uses.
        let inputs = 9 * channels_in;
        let weight = conv
            .weight()
            .permute((2, 3, 1, 0))?
            .reshape((inputs, out))?
            .contiguous()?;
        let bias = match conv.bias() {
            Some(b) => b.to_vec1::<f32>()?,
            None => vec![0.0; out],
        };
        Ok(Conv {
            dense: Dense {
                weight,
                bias,
                inputs,
            },
            channels_in,
        })
    }

    /// `n` channels-last pictures of `side`x`side` in, `n` of `side/2`x`side/2` out.
    fn apply(&self, input: &[f32], n: usize, side: usize) -> candle_core::Result<Vec<f32>> {
        let c = self.channels_in;
        let half = side / 2;
        let row_len = 9 * c;
        let mut patches = vec![0.0f32; n * half * half * row_len];
        // One row per output pixel, pictures one after another.
        for (i, row) in patches.chunks_exact_mut(row_len).enumerate() {
            let (b, oy, ox) = (i / (half * half), (i / half) % half, i % half);
            let picture = &input[b * side * side * c..(b + 1) * side * side * c];
            for ky in 0..3 {
                let y = (2 * oy + ky).wrapping_sub(1);
                if y >= side {
                    continue; // padding: the row keeps its zeros
                }
                for kx in 0..3 {
                    let x = (2 * ox + kx).wrapping_sub(1);
                    if x >= side {
                        continue;
                    }
                    let from = (y * side + x) * c;
                    let to = (ky * 3 + kx) * c;
                    row[to..to + c].copy_from_slice(&picture[from..from + c]);
                }
            }
        }
        self.dense.apply(patches, true)
    }
}

/// [`SquareNet`] for inference on the CPU.
pub(super) struct FastSquareNet {
    convs: [Conv; 3],
    hidden: Dense,
    output: Dense,
}

impl FastSquareNet {
    /// Rearranges a loaded network's weights.
    pub(super) fn new(net: &SquareNet) -> candle_core::Result<FastSquareNet> {
        let convs = [
            Conv::from_candle(&net.conv1)?,
            Conv::from_candle(&net.conv2)?,
            Conv::from_candle(&net.conv3)?,
        ];
        // candle flattens the last convolution's output channels-first (c, y, x); here it is
        // channels-last (y, x, c), so the hidden layer's inputs are reordered to match.
        let channels = net.conv3.weight().dims4()?.0;
        let cells = SIDE_AFTER_CONVS * SIDE_AFTER_CONVS;
        let out = net.hidden.weight().dim(0)?;
        let inputs = channels * cells;
        let weight = net
            .hidden
            .weight()
            .reshape((out, channels, cells))?
            .permute((2, 1, 0))?
            .reshape((inputs, out))?
            .contiguous()?;
        let hidden = Dense {
            weight,
            bias: bias_of(&net.hidden, out)?,
            inputs,
        };
        let output = Dense {
            weight: net.output.weight().t()?.contiguous()?,
            bias: bias_of(&net.output, CLASSES)?,
            inputs: out,
        };
        Ok(FastSquareNet {
            convs,
            hidden,
            output,
        })
    }

    /// Class probabilities for `n` crops of `CROP`x`CROP`, one row of `CLASSES` each.
    pub(super) fn probabilities(&self, crops: &[f32]) -> candle_core::Result<Vec<[f32; CLASSES]>> {
        self.probabilities_of_units(self.hidden_units(crops)?)
    }

    /// The hidden layer's units for `n` crops of `CROP`x`CROP`, [`FastSquareNet::hidden_width`]
    /// values a crop, the crops one after another: what the network sees in a square before it
    /// names the class.
    pub(super) fn hidden_units(&self, crops: &[f32]) -> candle_core::Result<Vec<f32>> {
        let n = crops.len() / (CROP * CROP);
        let mut x = self.convs[0].apply(crops, n, CROP)?;
        x = self.convs[1].apply(&x, n, CROP / 2)?;
        x = self.convs[2].apply(&x, n, CROP / 4)?;
        self.hidden.apply(x, true)
    }

    /// How many hidden units a crop has.
    pub(super) fn hidden_width(&self) -> usize {
        self.output.inputs
    }

    /// Class probabilities from the hidden units [`FastSquareNet::hidden_units`] gave.
    pub(super) fn probabilities_of_units(
        &self,
        units: Vec<f32>,
    ) -> candle_core::Result<Vec<[f32; CLASSES]>> {
        let logits = self.output.apply(units, false)?;
        Ok(logits.chunks_exact(CLASSES).map(softmax).collect())
    }
}

/// Side of the last convolution's output: three halvings of a crop.
const SIDE_AFTER_CONVS: usize = CROP / 8;

fn bias_of(linear: &candle_nn::Linear, len: usize) -> candle_core::Result<Vec<f32>> {
    match linear.bias() {
        Some(b) => b.to_vec1::<f32>(),
        None => Ok(vec![0.0; len]),
    }
}

fn softmax(logits: &[f32]) -> [f32; CLASSES] {
    let max = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let mut out = [0.0f32; CLASSES];
    for (o, &l) in out.iter_mut().zip(logits) {
        *o = (l - max).exp();
    }
    let sum: f32 = out.iter().sum();
    out.iter_mut().for_each(|o| *o /= sum);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::DType;
    use candle_nn::{VarBuilder, VarMap};

    #[test]
    fn agrees_with_the_candle_network() {
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let net = SquareNet::new(
            vb,
            super::super::NetShape {
                channels: [8, 12, 20],
                hidden: 24,
            },
        )
        .unwrap();
        let fast = FastSquareNet::new(&net).unwrap();
        let n = 5;
        // A varied, deterministic input: gradients and a checkerboard.
        let crops: Vec<f32> = (0..n * CROP * CROP)
            .map(|i| {
                let (b, y, x) = (i / (CROP * CROP), (i / CROP) % CROP, i % CROP);
                ((x * 7 + y * 3 + b * 11) % 17) as f32 / 17.0 + ((x / 4 + y / 4) % 2) as f32 * 0.3
            })
            .collect();
        let input = Tensor::from_vec(crops.clone(), (n, 1, CROP, CROP), &Device::Cpu).unwrap();
        let logits = net.forward(&input).unwrap();
        let expected = candle_nn::ops::softmax_last_dim(&logits)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let got = fast.probabilities(&crops).unwrap();
        assert_eq!(got.len(), n);
        let mut spread = 0.0f32;
        for (g, e) in got.iter().zip(&expected) {
            for (a, b) in g.iter().zip(e) {
                assert!((a - b).abs() < 1e-5, "{g:?} vs {e:?}");
            }
            spread +=
                g.iter().fold(0.0f32, |m, &v| m.max(v)) - g.iter().fold(1.0f32, |m, &v| m.min(v));
        }
        // The random network must not give flat outputs, or the comparison proves little.
        assert!(spread > 1e-3, "outputs barely vary: {spread}");
    }
}
