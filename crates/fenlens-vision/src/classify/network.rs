//! The square network as training builds it in candle (feature `train`): the layers of
//! [`NetShape`]'s widths, a forward pass whose convolutions run as gathered matrix products
//! (the same function as candle's `Conv2d`, faster to train), and the feature-statistics
//! changes some recipes train with. Recognition reads the saved weights without candle
//! (`inference.rs`); a test there checks that the two give the same probabilities.

use candle_core::{Module, Tensor};
use candle_nn::{Conv2d, Conv2dConfig, Linear, VarBuilder, conv2d, linear};

use super::{CLASSES, NetShape};
use crate::rectify::CROP;

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
    pub fn new(vb: VarBuilder, shape: NetShape) -> candle_core::Result<SquareNet> {
        let [c1, c2, c3] = shape.channels;
        let stride2 = Conv2dConfig {
            padding: 1,
            stride: 2,
            ..Conv2dConfig::default()
        };
        Ok(SquareNet {
            conv1: conv2d(1, c1, 3, stride2, vb.pp("conv1"))?,
            conv2: conv2d(c1, c2, 3, stride2, vb.pp("conv2"))?,
            conv3: conv2d(c2, c3, 3, stride2, vb.pp("conv3"))?,
            hidden: linear(c3 * (CROP / 8) * (CROP / 8), shape.hidden, vb.pp("hidden"))?,
            output: linear(shape.hidden, CLASSES, vb.pp("output"))?,
        })
    }

    /// Logits for a batch `[n, 1, CROP, CROP]`.
    ///
    /// Each convolution runs as one matrix product over the batch (see `conv_stride2`): the
    /// same function as candle's `Conv2d::forward` (a test checks it), several times faster to
    /// train because candle's general convolution and its gradient work tile by tile.
    pub fn forward(&self, input: &Tensor) -> candle_core::Result<Tensor> {
        self.forward_mixing_styles(input, None)
    }

    /// Logits for a batch, with the first two layers' feature statistics changed by `mix`
    /// (training only; see [`StyleChange`]).
    pub fn forward_mixing_styles(
        &self,
        input: &Tensor,
        mix: Option<&StyleChange>,
    ) -> candle_core::Result<Tensor> {
        self.forward_training(input, mix, 0.0)
    }

    /// [`SquareNet::forward_mixing_styles`] with dropout (training only): each of the last
    /// convolution's features and each hidden unit is zeroed with probability `dropout` (the
    /// rest scaled up to keep their sum), so that no single cue of a piece decides alone.
    pub fn forward_training(
        &self,
        input: &Tensor,
        mix: Option<&StyleChange>,
        dropout: f32,
    ) -> candle_core::Result<Tensor> {
        let drop = |x: Tensor| {
            if dropout > 0.0 {
                candle_nn::ops::dropout(&x, dropout)
            } else {
                Ok(x)
            }
        };
        let (n, _, h, w) = input.dims4()?;
        // One channel: channels-first and channels-last are the same memory.
        let x = input.reshape((n, h, w, 1))?;
        let mut x = conv_stride2(&x, &self.conv1)?.relu()?;
        if let Some(mix) = mix {
            x = mix.apply(&x)?;
        }
        let mut x = conv_stride2(&x, &self.conv2)?.relu()?;
        if let Some(mix) = mix {
            x = mix.apply(&x)?;
        }
        let x = conv_stride2(&x, &self.conv3)?.relu()?;
        // The hidden layer's weights read the features channels-first, as candle lays them out.
        let x = drop(x.permute((0, 3, 1, 2))?.flatten_from(1)?)?;
        let x = drop(self.hidden.forward(&x)?.relu()?)?;
        self.output.forward(&x)
    }
}

/// Feature statistics mixed between samples while training (MixStyle, Zhou et al. 2021): each
/// sample's per-channel mean and spread over its feature map are replaced by a blend of its own
/// and its partner's, `lambda` of its own, so that the network learns what a piece is from
/// features whose overall level and contrast come from another design's drawing.
pub struct StyleMix {
    /// For each sample of the batch, the index of the sample whose statistics it borrows.
    pub partner: Tensor,
    /// For each sample, the share of its own statistics, shaped `[n, 1, 1, 1]`.
    pub lambda: Tensor,
}

/// How a training step changes the first two layers' feature statistics.
pub enum StyleChange {
    /// Blended with another sample's ([`StyleMix`]).
    Mix(StyleMix),
    /// Moved at random by their spread across the batch ([`StyleNoise`]).
    Noise(StyleNoise),
}

impl StyleChange {
    /// Changes the statistics of channels-last features `[n, h, w, c]`.
    pub fn apply(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            StyleChange::Mix(mix) => mix.apply(x),
            StyleChange::Noise(noise) => noise.apply(x),
        }
    }
}

/// Each sample's per-channel mean and spread over a channels-last feature map `[n, h, w, c]`
/// (shaped `[n, 1, 1, c]`, taken as constants: no gradient flows through them, as in the
/// papers) and the map normalized by them.
fn feature_statistics(x: &Tensor) -> candle_core::Result<(Tensor, Tensor, Tensor)> {
    let mean = x.mean_keepdim(1)?.mean_keepdim(2)?.detach();
    let centred = x.broadcast_sub(&mean)?;
    let spread = centred
        .sqr()?
        .mean_keepdim(1)?
        .mean_keepdim(2)?
        .affine(1.0, 1e-6)?
        .sqrt()?
        .detach();
    let normalized = centred.broadcast_div(&spread)?;
    Ok((mean, spread, normalized))
}

/// Feature statistics moved at random while training (DSU, Li et al., "Uncertainty modeling
/// for out-of-distribution generalization", 2022): each sample's per-channel mean and spread
/// move by a standard normal draw times how much that statistic varies across the batch, so
/// that the network meets styles beyond those of the training designs and their blends.
pub struct StyleNoise {
    /// Standard normal draws for the means, shaped `[n, 1, 1, c]` for at least the widest
    /// layer's `c` (a narrower layer takes the first channels' draws).
    pub mean_draws: Tensor,
    /// The same for the spreads.
    pub spread_draws: Tensor,
}

impl StyleNoise {
    /// Moves the statistics of channels-last features `[n, h, w, c]`.
    pub fn apply(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (mean, spread, normalized) = feature_statistics(x)?;
        let channels = x.dim(3)?;
        let moved = |own: &Tensor, draws: &Tensor| -> candle_core::Result<Tensor> {
            let centre = own.mean_keepdim(0)?;
            let scale = own
                .broadcast_sub(&centre)?
                .sqr()?
                .mean_keepdim(0)?
                .affine(1.0, 1e-6)?
                .sqrt()?;
            own.add(&draws.narrow(3, 0, channels)?.broadcast_mul(&scale)?)
        };
        normalized
            .broadcast_mul(&moved(&spread, &self.spread_draws)?)?
            .broadcast_add(&moved(&mean, &self.mean_draws)?)
    }
}

impl StyleMix {
    /// Mixes the statistics of channels-last features `[n, h, w, c]`. The statistics are taken
    /// as constants (no gradient flows through them), as in the paper.
    pub fn apply(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (mean, spread, normalized) = feature_statistics(x)?;
        let their_share = self.lambda.affine(-1.0, 1.0)?;
        let blend = |own: &Tensor| -> candle_core::Result<Tensor> {
            let theirs = own.index_select(&self.partner, 0)?;
            own.broadcast_mul(&self.lambda)?
                .add(&theirs.broadcast_mul(&their_share)?)
        };
        normalized
            .broadcast_mul(&blend(&spread)?)?
            .broadcast_add(&blend(&mean)?)
    }
}

/// A 3x3 convolution with stride 2 and padding 1 on channels-last pictures `[n, h, w, c]`,
/// giving `[n, h/2, w/2, out]`: the patches are gathered with one `index_select` (its gradient is
/// one scatter-add) and multiplied by the kernel laid out as `[3 * 3 * c, out]`.
fn conv_stride2(x: &Tensor, conv: &Conv2d) -> candle_core::Result<Tensor> {
    let (n, h, w, c) = x.dims4()?;
    let out = conv.weight().dim(0)?;
    let (oh, ow, pw) = (h / 2, w / 2, w + 2);
    let mut index = Vec::with_capacity(oh * ow * 9);
    for oy in 0..oh {
        for ox in 0..ow {
            for ky in 0..3 {
                for kx in 0..3 {
                    index.push(((2 * oy + ky) * pw + 2 * ox + kx) as u32);
                }
            }
        }
    }
    let index = Tensor::from_vec(index, oh * ow * 9, x.device())?;
    let padded = x
        .pad_with_zeros(1, 1, 1)?
        .pad_with_zeros(2, 1, 1)?
        .reshape((n, (h + 2) * pw, c))?;
    let patches = padded
        .index_select(&index, 1)?
        .reshape((n * oh * ow, 9 * c))?;
    let kernel = conv.weight().permute((2, 3, 1, 0))?.reshape((9 * c, out))?;
    let mut y = patches.matmul(&kernel)?;
    if let Some(bias) = conv.bias() {
        y = y.broadcast_add(bias)?;
    }
    y.reshape((n, oh, ow, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};

    /// A network of the default shape with candle's initial weights.
    fn untrained_net() -> SquareNet {
        let varmap = candle_nn::VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        SquareNet::new(vb, NetShape::default()).unwrap()
    }

    #[test]
    fn forward_matches_candle_convolutions() {
        let net = untrained_net();
        let input = Tensor::rand(0f32, 1.0, (3, 1, CROP, CROP), &Device::Cpu).unwrap();
        // The textbook path: candle's own convolutions, channels-first.
        let x = net.conv1.forward(&input).unwrap().relu().unwrap();
        let x = net.conv2.forward(&x).unwrap().relu().unwrap();
        let x = net.conv3.forward(&x).unwrap().relu().unwrap();
        let x = net.hidden.forward(&x.flatten_from(1).unwrap()).unwrap();
        let expected = net.output.forward(&x.relu().unwrap()).unwrap();
        let got = net.forward(&input).unwrap();
        // The largest absolute value of a tensor.
        let largest = |t: &Tensor| -> f32 {
            t.abs()
                .and_then(|a| a.max_all())
                .and_then(|m| m.to_scalar::<f32>())
                .unwrap()
        };
        let scale = largest(&expected);
        let difference = largest(&(&got - &expected).unwrap());
        assert!(scale > 1e-3, "outputs too small to compare: {scale}");
        assert!(
            difference < 1e-4 * scale.max(1.0),
            "differs by {difference}"
        );
        // Training follows the gradients: they must agree too, down to the first layer.
        let weight = net.conv1.weight();
        let gradient_of = |out: &Tensor| {
            let grads = out
                .sqr()
                .and_then(|x| x.sum_all())
                .unwrap()
                .backward()
                .unwrap();
            grads.get(weight).unwrap().clone()
        };
        let (e, g) = (gradient_of(&expected), gradient_of(&got));
        let grad_scale = largest(&e);
        let grad_difference = largest(&(&g - &e).unwrap());
        assert!(grad_scale > 1e-6, "no gradient reached the first layer");
        assert!(
            grad_difference < 1e-3 * grad_scale,
            "gradients differ by {grad_difference} (scale {grad_scale})"
        );
    }

    /// Per-channel mean and spread of one sample of channels-last features.
    fn channel_statistics(x: &Tensor, sample: usize) -> Vec<(f32, f32)> {
        let (_, h, w, c) = x.dims4().unwrap();
        let values = x
            .get(sample)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        (0..c)
            .map(|k| {
                let channel: Vec<f32> = (0..h * w).map(|p| values[p * c + k]).collect();
                let mean = channel.iter().sum::<f32>() / channel.len() as f32;
                let var =
                    channel.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / channel.len() as f32;
                (mean, var.sqrt())
            })
            .collect()
    }

    #[test]
    fn style_mix_lends_each_sample_its_partners_statistics() {
        let device = Device::Cpu;
        let values: Vec<f32> = (0..2 * 4 * 4 * 3)
            .map(|i| ((i * 37 % 23) as f32) * if i < 48 { 1.0 } else { 3.0 } + i as f32 * 0.1)
            .collect();
        let x = Tensor::from_vec(values, (2, 4, 4, 3), &device).unwrap();
        let swapped = StyleMix {
            partner: Tensor::new(&[1u32, 0], &device).unwrap(),
            lambda: Tensor::zeros((2, 1, 1, 1), DType::F32, &device).unwrap(),
        };
        let y = swapped.apply(&x).unwrap();
        for (own, other) in [(0, 1), (1, 0)] {
            for ((mean, spread), (want_mean, want_spread)) in channel_statistics(&y, own)
                .into_iter()
                .zip(channel_statistics(&x, other))
            {
                assert!(
                    (mean - want_mean).abs() < 1e-3,
                    "{mean} against {want_mean}"
                );
                assert!(
                    (spread - want_spread).abs() < 1e-3,
                    "{spread} against {want_spread}"
                );
            }
        }
        let kept = StyleMix {
            partner: Tensor::new(&[1u32, 0], &device).unwrap(),
            lambda: Tensor::ones((2, 1, 1, 1), DType::F32, &device).unwrap(),
        };
        let same = kept.apply(&x).unwrap();
        let difference = (same - &x).unwrap().abs().unwrap().max_all().unwrap();
        assert!(difference.to_scalar::<f32>().unwrap() < 1e-3);
    }

    #[test]
    fn style_noise_moves_each_statistic_by_its_draw_times_its_spread_across_the_batch() {
        let device = Device::Cpu;
        let (n, c) = (3, 2);
        let values: Vec<f32> = (0..n * 4 * 4 * c)
            .map(|i| ((i * 37 % 23) as f32) * (1.0 + (i / 32) as f32) + i as f32 * 0.1)
            .collect();
        let x = Tensor::from_vec(values, (n, 4, 4, c), &device).unwrap();
        // Draws for more channels than the layer has: it takes the first ones.
        let draws = |d: &[f32]| Tensor::from_vec(d.to_vec(), (n, 1, 1, 3), &device).unwrap();
        let mean_draws = [1.0, -0.5, 9.0, 0.0, 2.0, 9.0, -1.5, 0.25, 9.0];
        let spread_draws = [0.5, 0.0, 9.0, -0.25, 1.0, 9.0, 0.0, 0.5, 9.0];
        let noise = StyleNoise {
            mean_draws: draws(&mean_draws),
            spread_draws: draws(&spread_draws),
        };
        let y = noise.apply(&x).unwrap();
        let before: Vec<Vec<(f32, f32)>> = (0..n).map(|i| channel_statistics(&x, i)).collect();
        for k in 0..c {
            // Each statistic's spread across the batch: the population standard deviation.
            let across = |pick: &dyn Fn(&(f32, f32)) -> f32| {
                let values: Vec<f32> = before.iter().map(|b| pick(&b[k])).collect();
                let mean = values.iter().sum::<f32>() / n as f32;
                (values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n as f32).sqrt()
            };
            let (mean_scale, spread_scale) = (across(&|s| s.0), across(&|s| s.1));
            assert!(mean_scale > 0.1 && spread_scale > 0.1);
            for (i, after) in (0..n).map(|i| channel_statistics(&y, i)).enumerate() {
                let want_mean = before[i][k].0 + mean_draws[i * 3 + k] * mean_scale;
                let want_spread = before[i][k].1 + spread_draws[i * 3 + k] * spread_scale;
                assert!(
                    (after[k].0 - want_mean).abs() < 1e-3,
                    "{after:?} {want_mean}"
                );
                assert!(
                    (after[k].1 - want_spread).abs() < 1e-3,
                    "{after:?} {want_spread}"
                );
            }
        }
        let zeros = Tensor::zeros((n, 1, 1, 3), DType::F32, &device).unwrap();
        let still = StyleNoise {
            mean_draws: zeros.clone(),
            spread_draws: zeros,
        };
        let difference = (still.apply(&x).unwrap() - &x)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap();
        assert!(difference.to_scalar::<f32>().unwrap() < 1e-3);
    }

    #[test]
    fn dropout_changes_the_training_pass_only_when_asked() {
        let net = untrained_net();
        let input = Tensor::randn(0f32, 1.0, (8, 1, CROP, CROP), &Device::Cpu).unwrap();
        let values = |t: Tensor| t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let plain = values(net.forward(&input).unwrap());
        assert_eq!(
            values(net.forward_training(&input, None, 0.0).unwrap()),
            plain
        );
        let dropped = values(net.forward_training(&input, None, 0.5).unwrap());
        assert_eq!(dropped.len(), plain.len());
        assert!(dropped.iter().all(|v| v.is_finite()));
        assert!(
            dropped
                .iter()
                .zip(&plain)
                .any(|(a, b)| (a - b).abs() > 1e-4)
        );
    }

    #[test]
    fn network_shapes() {
        let net = untrained_net();
        let input = Tensor::zeros((3, 1, CROP, CROP), DType::F32, &Device::Cpu).unwrap();
        let out = net.forward(&input).unwrap();
        assert_eq!(out.dims(), &[3, CLASSES]);
    }
}
