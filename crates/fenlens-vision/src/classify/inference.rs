//! The square network's forward pass for inference, laid out for speed.
//!
//! candle's general convolution cuts every picture of a batch into tiles and runs a small
//! matrix product per tile, which for this tiny network costs more than the arithmetic (about
//! 4 ms of a board's 8). Here each layer is one matrix product: the activations stay
//! channels-last (`[n, height, width, channels]`), a 3x3 stride-2 convolution gathers its
//! patches into rows (`im2col`) and multiplies them by the kernel laid out as
//! `[3 * 3 * in, out]`, and bias and ReLU are added in one pass over the result. The products
//! run in `gemm` (the kernel candle itself calls) on the calling thread, the convolutions a few
//! crops at a time so that their buffers stay small and in the cache. The ensemble's members
//! each run on a thread of their own (`Classifier::forward`): a whole network is work enough
//! to hand to another core, where a share of one product was not.
//!
//! The weights are read once, when the model is loaded, from the safetensors file a training
//! run saved for training's candle network (`network.rs`, feature `train`), straight into
//! this layout; a test checks the two forward passes agree.

use super::CLASSES;
use crate::rectify::CROP;

/// One layer as a matrix product: `[rows, inputs] x [inputs, outputs]` plus a bias.
struct Dense {
    /// `[inputs, outputs]`, row-major.
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
}

impl Dense {
    /// From a layer's stored weight, `outputs` rows of `inputs` little-endian f32 (candle's
    /// layout for linear layers and, with the kernel's positions as columns, for
    /// convolutions), and its bias. Column `c` of the stored weight becomes the product's input
    /// `(c % runs) * stride + c / runs`, where `runs = inputs / stride`: inputs that candle
    /// lays out as `stride` runs of `runs` values are interleaved, as this module's
    /// channels-last activations hold them.
    fn from_stored(
        stored: &[u8],
        outputs: usize,
        inputs: usize,
        bias: Vec<f32>,
        stride: usize,
    ) -> Result<Dense, String> {
        let runs = inputs / stride.max(1);
        if outputs == 0
            || runs * stride != inputs
            || bias.len() != outputs
            || stored.len() != 4 * inputs * outputs
        {
            return Err(format!(
                "a layer of {outputs} outputs and {inputs} inputs in runs of {stride} with {} \
                 biases and {} bytes of weights",
                bias.len(),
                stored.len()
            ));
        }
        let value = |i: usize| little_endian(&stored[4 * i..4 * i + 4]);
        // A few outputs at a time, so that the stored rows being read stay in the cache.
        let mut weight = vec![0.0f32; inputs * outputs];
        for first in (0..outputs).step_by(LOAD_OUTPUTS_AT_ONCE) {
            let block = first..(first + LOAD_OUTPUTS_AT_ONCE).min(outputs);
            for (input, row) in weight.chunks_exact_mut(outputs).enumerate() {
                let column = (input % stride) * runs + input / stride;
                for o in block.clone() {
                    row[o] = value(o * inputs + column);
                }
            }
        }
        Ok(Dense {
            weight,
            bias,
            inputs,
        })
    }

    /// `rows x inputs` values in, `rows x outputs` out, with the bias added and, when `relu`,
    /// negatives set to zero.
    ///
    /// The product runs in `gemm`, the kernel candle's own matrix product calls, on this
    /// thread: candle would copy both operands into tensors, copy the result out again, and
    /// split a board's few thousand rows across threads, which costs more than it saves.
    fn apply(&self, input: &[f32], relu: bool) -> Vec<f32> {
        let mut out = Vec::new();
        self.apply_into(input, relu, &mut out);
        out
    }

    /// [`Dense::apply`] into `out`, whose allocation is reused.
    fn apply_into(&self, input: &[f32], relu: bool, out: &mut Vec<f32>) {
        let outputs = self.bias.len();
        let rows = input.len() / self.inputs;
        assert_eq!(rows * self.inputs, input.len(), "a partial row");
        assert_eq!(
            self.weight.len(),
            self.inputs * outputs,
            "the weights' shape"
        );
        out.clear();
        out.resize(rows * outputs, 0.0);
        if rows == 0 {
            return;
        }
        // SAFETY: every operand is a contiguous row-major matrix of the dimensions and strides
        // given (checked above: `input` is rows x inputs, `weight` inputs x outputs, and `out`
        // rows x outputs), and `out` does not overlap either input.
        unsafe {
            gemm::gemm(
                rows,
                outputs,
                self.inputs,
                out.as_mut_ptr(),
                1,
                outputs as isize,
                false,
                input.as_ptr(),
                1,
                self.inputs as isize,
                self.weight.as_ptr(),
                1,
                outputs as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
        for row in out.chunks_exact_mut(outputs) {
            for (v, b) in row.iter_mut().zip(&self.bias) {
                *v += b;
                if relu && *v < 0.0 {
                    *v = 0.0;
                }
            }
        }
    }
}

/// A 3x3 convolution with stride 2 and padding 1, channels-last.
struct Conv {
    dense: Dense,
    channels_in: usize,
}

impl Conv {
    /// `n` channels-last pictures of `side`x`side` in, `n` of `side/2`x`side/2` into `out`;
    /// `patches` is scratch space. Both allocations are reused.
    fn apply_into(
        &self,
        input: &[f32],
        n: usize,
        side: usize,
        patches: &mut Vec<f32>,
        out: &mut Vec<f32>,
    ) {
        let c = self.channels_in;
        let half = side / 2;
        let row_len = 9 * c;
        patches.clear();
        patches.resize(n * half * half * row_len, 0.0);
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
        self.dense.apply_into(patches, true, out);
    }
}

/// The square network for inference on the CPU.
pub(super) struct FastSquareNet {
    convs: [Conv; 3],
    hidden: Dense,
    output: Dense,
}

impl FastSquareNet {
    /// Reads a network that training saved (safetensors: `conv1` to `conv3`, `hidden` and
    /// `output`, each a `weight` and a `bias` in f32) straight from the file's bytes into this
    /// module's layout, checking every shape against the others. Nothing is copied but the
    /// rearranged weights: going through candle's tensors copied each model three times,
    /// which is most of what loading cost a process (every fresh page of memory is paid for).
    pub(super) fn from_safetensors(bytes: &[u8]) -> Result<FastSquareNet, String> {
        let file = safetensors::SafeTensors::deserialize(bytes)
            .map_err(|e| format!("not a safetensors file: {e}"))?;
        let stored = |name: &str, rank: usize| -> Result<(Vec<usize>, &[u8]), String> {
            let view = file.tensor(name).map_err(|_| format!("no tensor {name}"))?;
            if view.dtype() != safetensors::Dtype::F32 || view.shape().len() != rank {
                return Err(format!(
                    "{name} is {:?} {:?}, not f32 of rank {rank}",
                    view.dtype(),
                    view.shape()
                ));
            }
            Ok((view.shape().to_vec(), view.data()))
        };
        let bias = |layer: &str, outputs: usize| -> Result<Vec<f32>, String> {
            let name = format!("{layer}.bias");
            let (shape, data) = stored(&name, 1)?;
            if shape[0] != outputs {
                return Err(format!(
                    "{name} has {} values for {outputs} outputs",
                    shape[0]
                ));
            }
            Ok(data.chunks_exact(4).map(little_endian).collect())
        };
        let mismatch = |name: &str, shape: &[usize], wanted: &[usize]| {
            format!("{name} is {shape:?}, expected {wanted:?}")
        };
        let mut channels_in = 1;
        let mut convs = Vec::with_capacity(3);
        for layer in ["conv1", "conv2", "conv3"] {
            let name = format!("{layer}.weight");
            let (shape, data) = stored(&name, 4)?;
            let outputs = shape[0];
            if shape[1..] != [channels_in, 3, 3] {
                return Err(mismatch(&name, &shape, &[outputs, channels_in, 3, 3]));
            }
            // Rows of the gathered patches run (ky, kx, channel), the same layout as
            // training's `conv_stride2` uses; candle's kernel runs (channel, ky, kx).
            let dense = Dense::from_stored(
                data,
                outputs,
                9 * channels_in,
                bias(layer, outputs)?,
                channels_in,
            )?;
            convs.push(Conv { dense, channels_in });
            channels_in = outputs;
        }
        // candle flattens the last convolution's output channels-first (c, y, x); here it is
        // channels-last (y, x, c), so the hidden layer's inputs are interleaved to match.
        let cells = (CROP / 8) * (CROP / 8);
        let (shape, data) = stored("hidden.weight", 2)?;
        let width = shape[0];
        if shape[1] != channels_in * cells {
            return Err(mismatch(
                "hidden.weight",
                &shape,
                &[width, channels_in * cells],
            ));
        }
        let hidden =
            Dense::from_stored(data, width, shape[1], bias("hidden", width)?, channels_in)?;
        let (shape, data) = stored("output.weight", 2)?;
        if shape != [CLASSES, width] {
            return Err(mismatch("output.weight", &shape, &[CLASSES, width]));
        }
        let output = Dense::from_stored(data, CLASSES, width, bias("output", CLASSES)?, 1)?;
        let convs: [Conv; 3] = convs
            .try_into()
            .map_err(|_| "three convolutions".to_string())?;
        Ok(FastSquareNet {
            convs,
            hidden,
            output,
        })
    }

    /// Class probabilities for `n` crops of `CROP`x`CROP`, one row of `CLASSES` each.
    pub(super) fn probabilities(&self, crops: &[f32]) -> Vec<[f32; CLASSES]> {
        self.probabilities_of_units(&self.hidden_units(crops))
    }

    /// The hidden layer's units for `n` crops of `CROP`x`CROP`, [`FastSquareNet::hidden_width`]
    /// values a crop, the crops one after another: what the network sees in a square before it
    /// names the class.
    pub(super) fn hidden_units(&self, crops: &[f32]) -> Vec<f32> {
        let mut features = Vec::with_capacity(crops.len() / (CROP * CROP) * self.hidden.inputs);
        let (mut patches, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
        // The convolutions run a few crops at a time, so that their gathered patches stay in
        // the cache and the same few buffers serve a whole board. Every output is one sum over
        // a patch whatever the batch, so the results do not depend on how the crops are split.
        for chunk in crops.chunks(CONV_CHUNK * CROP * CROP) {
            let n = chunk.len() / (CROP * CROP);
            self.convs[0].apply_into(chunk, n, CROP, &mut patches, &mut a);
            self.convs[1].apply_into(&a, n, CROP / 2, &mut patches, &mut b);
            self.convs[2].apply_into(&b, n, CROP / 4, &mut patches, &mut a);
            features.extend_from_slice(&a);
        }
        self.hidden.apply(&features, true)
    }

    /// How many hidden units a crop has.
    pub(super) fn hidden_width(&self) -> usize {
        self.output.inputs
    }

    /// Class probabilities from the hidden units [`FastSquareNet::hidden_units`] gave.
    pub(super) fn probabilities_of_units(&self, units: &[f32]) -> Vec<[f32; CLASSES]> {
        let logits = self.output.apply(units, false);
        logits.chunks_exact(CLASSES).map(softmax).collect()
    }
}

/// How many of a layer's outputs [`Dense::from_stored`] reads at a time.
const LOAD_OUTPUTS_AT_ONCE: usize = 8;

/// How many crops the convolutions take at a time (see [`FastSquareNet::hidden_units`]).
const CONV_CHUNK: usize = 8;

/// One f32 as safetensors stores it: four bytes, little-endian.
fn little_endian(bytes: &[u8]) -> f32 {
    f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
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
    use super::super::NetShape;
    use super::super::random_weights::{random, saved};
    use super::*;

    /// A small network's shape.
    const SMALL: NetShape = NetShape {
        channels: [8, 12, 20],
        hidden: 24,
    };

    #[test]
    fn a_saved_network_cut_short_or_of_the_wrong_shape_is_refused() {
        let tensors = random(SMALL, 1);
        let bytes = saved(&tensors);
        assert!(FastSquareNet::from_safetensors(&bytes).is_ok());
        let error = |bytes: &[u8]| FastSquareNet::from_safetensors(bytes).err().unwrap();

        assert!(error(&bytes[..bytes.len() / 2]).contains("not a safetensors file"));
        assert!(error(b"").contains("not a safetensors file"));

        let without_a_bias: Vec<_> = tensors
            .iter()
            .filter(|(name, _, _)| name != "output.bias")
            .cloned()
            .collect();
        assert_eq!(error(&saved(&without_a_bias)), "no tensor output.bias");

        // A hidden layer one input short of the last convolution's 20 x 4 x 4 features.
        let mut wrong = tensors.clone();
        for (name, dims, values) in wrong.iter_mut() {
            if name == "hidden.weight" {
                *dims = vec![24, 20 * 16 - 1];
                *values = vec![0.0; 24 * (20 * 16 - 1)];
            }
        }
        assert!(error(&saved(&wrong)).starts_with("hidden.weight is [24, 319]"));
    }

    #[test]
    fn no_crops_give_no_readings() {
        let fast = FastSquareNet::from_safetensors(&saved(&random(SMALL, 1))).unwrap();
        assert!(fast.probabilities(&[]).is_empty());
        assert!(fast.hidden_units(&[]).is_empty());
    }

    /// Training's candle network and this one, given the same saved weights, give the same
    /// probabilities.
    #[cfg(feature = "train")]
    #[test]
    fn agrees_with_the_candle_network() {
        use candle_core::{DType, Device, Tensor};
        let bytes = saved(&random(SMALL, 1));
        let vb = candle_nn::VarBuilder::from_slice_safetensors(&bytes, DType::F32, &Device::Cpu)
            .unwrap();
        let net = super::super::SquareNet::new(vb, SMALL).unwrap();
        let fast = FastSquareNet::from_safetensors(&bytes).unwrap();
        // Two whole chunks of crops for the convolutions and part of a third.
        let n = 2 * CONV_CHUNK + 3;
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
        let got = fast.probabilities(&crops);
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
