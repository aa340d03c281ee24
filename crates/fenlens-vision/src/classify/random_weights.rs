//! Random weights for tests, saved as training saves them (safetensors), without candle.

use super::{CLASSES, NetShape};
use crate::rectify::CROP;

/// A tensor: its name, its shape and its values, row-major.
pub(crate) type NamedTensor = (String, Vec<usize>, Vec<f32>);

/// The tensors of a network of `shape` (the names and shapes training saves), with values
/// drawn from `seed`: uniform, scaled by each layer's fan-in (biases by 0.1), the tensors drawn
/// in the order of their names, so that a test sees the same network on every run.
pub(crate) fn random(shape: NetShape, seed: u64) -> Vec<NamedTensor> {
    use rand::{RngExt, SeedableRng};
    let [c1, c2, c3] = shape.channels;
    let features = c3 * (CROP / 8) * (CROP / 8);
    let layers = [
        ("conv1", vec![c1, 1, 3, 3]),
        ("conv2", vec![c2, c1, 3, 3]),
        ("conv3", vec![c3, c2, 3, 3]),
        ("hidden", vec![shape.hidden, features]),
        ("output", vec![CLASSES, shape.hidden]),
    ];
    let mut shapes: Vec<(String, Vec<usize>)> = layers
        .into_iter()
        .flat_map(|(layer, weight)| {
            let bias = vec![weight[0]];
            [
                (format!("{layer}.weight"), weight),
                (format!("{layer}.bias"), bias),
            ]
        })
        .collect();
    shapes.sort();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    shapes
        .into_iter()
        .map(|(name, dims)| {
            let fan_in: usize = dims.iter().skip(1).product::<usize>().max(1);
            let scale = if dims.len() == 1 {
                0.1
            } else {
                (3.0 / fan_in as f32).sqrt()
            };
            let count = dims.iter().product();
            let values = (0..count)
                .map(|_| scale * rng.random_range(-1.0f32..1.0))
                .collect();
            (name, dims, values)
        })
        .collect()
}

/// The safetensors bytes of `tensors`, as a training run saves them.
pub(crate) fn saved(tensors: &[NamedTensor]) -> Vec<u8> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(name, dims, values)| {
            let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            (name.clone(), dims.clone(), raw)
        })
        .collect();
    let views = bytes.iter().map(|(name, dims, raw)| {
        let view = safetensors::tensor::TensorView::new(safetensors::Dtype::F32, dims.clone(), raw)
            .expect("the values fill the shape");
        (name.as_str(), view)
    });
    safetensors::serialize(views, None).expect("tensors serialize")
}
