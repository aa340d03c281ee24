//! Degradations that imitate real pictures: scaling, blur, JPEG, noise, perspective, rotation,
//! uneven light, glare, moiré, paper tone, shadows and page curl.
//!
//! Every geometric change also moves the ground-truth points it is given, so corners stay exact.

use image::imageops::FilterType;
use image::{Rgb, RgbImage};
use imageproc::geometric_transformations::{Border, Interpolation, Projection, warp, warp_with};
use rand::RngExt;

/// Points in picture coordinates that follow every geometric change.
pub type Points = Vec<[f32; 2]>;

/// Scales the picture by `factor` (resampling), and the points with it.
pub fn scale(image: &RgbImage, points: &mut Points, factor: f32, filter: FilterType) -> RgbImage {
    let w = ((image.width() as f32 * factor).round() as u32).max(1);
    let h = ((image.height() as f32 * factor).round() as u32).max(1);
    let fx = w as f32 / image.width() as f32;
    let fy = h as f32 / image.height() as f32;
    for p in points.iter_mut() {
        p[0] *= fx;
        p[1] *= fy;
    }
    image::imageops::resize(image, w, h, filter)
}

/// Puts the picture on a larger `rgb` canvas with `pad` pixels on every side, moving the points.
pub fn surround(image: &RgbImage, points: &mut Points, pad: u32, rgb: [u8; 3]) -> RgbImage {
    let mut canvas =
        RgbImage::from_pixel(image.width() + 2 * pad, image.height() + 2 * pad, Rgb(rgb));
    image::imageops::overlay(&mut canvas, image, pad as i64, pad as i64);
    for p in points.iter_mut() {
        p[0] += pad as f32;
        p[1] += pad as f32;
    }
    canvas
}

/// Encodes as JPEG at `quality` (1-100) and decodes again.
pub fn jpeg(image: &RgbImage, quality: u8) -> RgbImage {
    let mut bytes = Vec::new();
    let encoder =
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality.clamp(1, 100));
    if image.write_with_encoder(encoder).is_err() {
        return image.clone();
    }
    image::load_from_memory(&bytes)
        .map(|i| i.to_rgb8())
        .unwrap_or_else(|_| image.clone())
}

/// Adds Gaussian-like noise of standard deviation `sigma` (in 0-255 units).
pub fn noise(image: &mut RgbImage, sigma: f32, rng: &mut impl RngExt) {
    for pixel in image.pixels_mut() {
        // Sum of uniforms: cheap, deterministic, close enough to Gaussian.
        let n: f32 = (0..3).map(|_| rng.random_range(-1.0..1.0f32)).sum::<f32>() * sigma * 0.58;
        for c in pixel.0.iter_mut() {
            *c = (*c as f32 + n).clamp(0.0, 255.0) as u8;
        }
    }
}

/// Gaussian defocus blur.
pub fn blur(image: &RgbImage, sigma: f32) -> RgbImage {
    if sigma < 0.1 {
        return image.clone();
    }
    imageproc::filter::gaussian_blur_f32(image, sigma)
}

/// Motion blur: the mean of copies shifted along a direction over `length` pixels.
pub fn motion_blur(image: &RgbImage, length: f32, angle: f32) -> RgbImage {
    let steps = (length.round() as i32).max(1);
    let (dx, dy) = (angle.cos(), angle.sin());
    let (w, h) = image.dimensions();
    let mut out = RgbImage::new(w, h);
    for (x, y, pixel) in out.enumerate_pixels_mut() {
        let mut sum = [0f32; 3];
        for i in 0..steps {
            let t = i as f32 - steps as f32 / 2.0;
            let sx = (x as f32 + dx * t).round().clamp(0.0, w as f32 - 1.0) as u32;
            let sy = (y as f32 + dy * t).round().clamp(0.0, h as f32 - 1.0) as u32;
            let p = image.get_pixel(sx, sy);
            for (total, value) in sum.iter_mut().zip(p.0) {
                *total += value as f32;
            }
        }
        pixel.0 = sum.map(|v| (v / steps as f32) as u8);
    }
    out
}

/// Applies a projection (input to output coordinates) to the picture and the points; the canvas
/// keeps its size and uncovered parts get `background`.
pub fn project(
    image: &RgbImage,
    points: &mut Points,
    projection: Projection,
    background: [u8; 3],
) -> RgbImage {
    for p in points.iter_mut() {
        let (x, y) = projection * (p[0], p[1]);
        *p = [x, y];
    }
    warp(
        image,
        projection,
        Interpolation::Bilinear,
        Border::Constant(Rgb(background)),
    )
}

/// Moves the four corners of `quad` (a board) by up to `amount` of its size in random
/// directions: a camera looking at an angle.
pub fn perspective(
    image: &RgbImage,
    points: &mut Points,
    quad: [[f32; 2]; 4],
    amount: f32,
    background: [u8; 3],
    rng: &mut impl RngExt,
) -> RgbImage {
    let size = ((quad[1][0] - quad[0][0]).abs() + (quad[3][1] - quad[0][1]).abs()) / 2.0;
    let from = quad.map(|p| (p[0], p[1]));
    let to = quad.map(|p| {
        (
            p[0] + rng.random_range(-amount..=amount) * size,
            p[1] + rng.random_range(-amount..=amount) * size,
        )
    });
    match Projection::from_control_points(from, to) {
        Some(projection) => project(image, points, projection, background),
        None => image.clone(),
    }
}

/// Rotates about the centre by `degrees`.
pub fn rotate(
    image: &RgbImage,
    points: &mut Points,
    degrees: f32,
    background: [u8; 3],
) -> RgbImage {
    let (cx, cy) = (image.width() as f32 / 2.0, image.height() as f32 / 2.0);
    let projection = Projection::translate(cx, cy)
        * Projection::rotate(degrees.to_radians())
        * Projection::translate(-cx, -cy);
    project(image, points, projection, background)
}

/// Multiplies brightness by a smooth field: a linear ramp and a soft dark corner.
pub fn uneven_light(image: &mut RgbImage, strength: f32, rng: &mut impl RngExt) {
    let (w, h) = image.dimensions();
    let angle = rng.random_range(0.0..std::f32::consts::TAU);
    let (ax, ay) = (angle.cos(), angle.sin());
    let diag = ((w * w + h * h) as f32).sqrt().max(1.0);
    for (x, y, pixel) in image.enumerate_pixels_mut() {
        let t = ((x as f32 - w as f32 / 2.0) * ax + (y as f32 - h as f32 / 2.0) * ay) / diag;
        let factor = 1.0 + strength * t * 2.0;
        for c in pixel.0.iter_mut() {
            *c = (*c as f32 * factor).clamp(0.0, 255.0) as u8;
        }
    }
}

/// A bright soft spot: light reflected on a screen or glossy paper.
pub fn glare(image: &mut RgbImage, strength: f32, rng: &mut impl RngExt) {
    let (w, h) = image.dimensions();
    let cx = rng.random_range(0.0..w as f32);
    let cy = rng.random_range(0.0..h as f32);
    let radius = rng.random_range(0.15..0.5) * w.max(h) as f32;
    for (x, y, pixel) in image.enumerate_pixels_mut() {
        let d2 = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)) / (radius * radius);
        let add = strength * 255.0 * (-d2).exp();
        for c in pixel.0.iter_mut() {
            *c = (*c as f32 + add).clamp(0.0, 255.0) as u8;
        }
    }
}

/// Interference stripes of a photographed screen.
pub fn moire(image: &mut RgbImage, strength: f32, rng: &mut impl RngExt) {
    let period = rng.random_range(3.0..9.0f32);
    let angle = rng.random_range(0.0..std::f32::consts::PI);
    let beat = rng.random_range(40.0..160.0f32);
    let (ax, ay) = (angle.cos(), angle.sin());
    for (x, y, pixel) in image.enumerate_pixels_mut() {
        let u = x as f32 * ax + y as f32 * ay;
        let v = -(x as f32) * ay + y as f32 * ax;
        let wave = (u / period * std::f32::consts::TAU).sin() * (v / beat).sin();
        let factor = 1.0 + strength * wave;
        for (i, c) in pixel.0.iter_mut().enumerate() {
            // Slight colour fringes: each channel a little out of phase.
            let f = factor + strength * 0.3 * ((u / period + i as f32) * 2.1).sin();
            *c = (*c as f32 * f).clamp(0.0, 255.0) as u8;
        }
    }
}

/// The light of a phone's photograph of a screen: moiré on 60% of pictures (strength
/// 0.03-0.12), a glare spot on half (0.1-0.45) and uneven light on all (0.05-0.35). Returns the
/// steps taken, as `name:strength`, for a manifest's degradations.
pub fn screen_light(image: &mut RgbImage, rng: &mut impl RngExt) -> Vec<String> {
    let mut steps = Vec::new();
    if rng.random_bool(0.6) {
        let s = rng.random_range(0.03..0.12);
        moire(image, s, rng);
        steps.push(format!("moire:{s:.2}"));
    }
    if rng.random_bool(0.5) {
        let s = rng.random_range(0.1..0.45);
        glare(image, s, rng);
        steps.push(format!("glare:{s:.2}"));
    }
    let light = rng.random_range(0.05..0.35);
    uneven_light(image, light, rng);
    steps.push(format!("light:{light:.2}"));
    steps
}

/// Tints white towards yellowish paper and lifts the blacks a little.
pub fn paper_tone(image: &mut RgbImage, rng: &mut impl RngExt) {
    let paper = [
        rng.random_range(225..=250) as f32,
        rng.random_range(215..=243) as f32,
        rng.random_range(190..=230) as f32,
    ];
    let ink = rng.random_range(15..=50) as f32;
    for pixel in image.pixels_mut() {
        for (i, c) in pixel.0.iter_mut().enumerate() {
            let t = *c as f32 / 255.0;
            *c = (ink + t * (paper[i] - ink)).clamp(0.0, 255.0) as u8;
        }
    }
}

/// A soft shadow over one side (a hand or the phone over a page).
pub fn shadow(image: &mut RgbImage, strength: f32, rng: &mut impl RngExt) {
    let (w, h) = image.dimensions();
    let angle = rng.random_range(0.0..std::f32::consts::TAU);
    let (ax, ay) = (angle.cos(), angle.sin());
    let edge = rng.random_range(0.2..0.45) * w.max(h) as f32;
    let softness = rng.random_range(0.03..0.15) * w.max(h) as f32;
    for (x, y, pixel) in image.enumerate_pixels_mut() {
        let d = (x as f32 - w as f32 / 2.0) * ax + (y as f32 - h as f32 / 2.0) * ay;
        let t = 1.0 / (1.0 + (-(d - edge) / softness).exp());
        let factor = 1.0 - strength * t;
        for c in pixel.0.iter_mut() {
            *c = (*c as f32 * factor) as u8;
        }
    }
}

/// A page that bends near one edge: rows shift vertically with the square of the distance from
/// the spine.
pub fn page_curl(
    image: &RgbImage,
    points: &mut Points,
    amount: f32,
    background: [u8; 3],
) -> RgbImage {
    let (w, h) = image.dimensions();
    let (w, h) = (w as f32, h as f32);
    let bend = move |x: f32| amount * h * (x / w).powi(2);
    for p in points.iter_mut() {
        p[1] -= bend(p[0]);
    }
    // warp_with maps output coordinates to input coordinates.
    warp_with(
        image,
        move |x, y| (x, y + bend(x)),
        Interpolation::Bilinear,
        Border::Constant(Rgb(background)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn scaling_moves_points() {
        let image = RgbImage::new(100, 50);
        let mut points = vec![[50.0, 25.0]];
        let out = scale(&image, &mut points, 0.5, FilterType::Triangle);
        assert_eq!(out.dimensions(), (50, 25));
        assert_eq!(points[0], [25.0, 12.5]);
    }

    #[test]
    fn rotation_moves_a_marked_pixel_with_its_point() {
        let mut image = RgbImage::from_pixel(101, 101, Rgb([0, 0, 0]));
        for y in 18..23 {
            for x in 78..83 {
                image.put_pixel(x, y, Rgb([255, 255, 255]));
            }
        }
        let mut points = vec![[80.5, 20.5]];
        let out = rotate(&image, &mut points, 30.0, [0, 0, 0]);
        let [x, y] = points[0];
        assert!(out.get_pixel(x as u32, y as u32).0[0] > 200, "{x},{y}");
    }

    #[test]
    fn jpeg_round_trip_keeps_size() {
        let image = RgbImage::from_pixel(32, 16, Rgb([200, 100, 50]));
        let out = jpeg(&image, 30);
        assert_eq!(out.dimensions(), (32, 16));
        assert!((out.get_pixel(5, 5).0[0] as i32 - 200).abs() < 12);
    }

    #[test]
    fn page_curl_moves_points_like_pixels() {
        let mut image = RgbImage::from_pixel(100, 100, Rgb([0, 0, 0]));
        for y in 38..43 {
            for x in 88..93 {
                image.put_pixel(x, y, Rgb([255, 255, 255]));
            }
        }
        let mut points = vec![[90.5, 40.5]];
        let out = page_curl(&image, &mut points, 0.05, [0, 0, 0]);
        let [x, y] = points[0];
        assert!(y < 40.0);
        assert!(out.get_pixel(x as u32, y as u32).0[0] > 200, "{x},{y}");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut img = out.clone();
        noise(&mut img, 5.0, &mut rng);
        assert_ne!(img, out);
    }
}
