//! Decode: bytes to pixels, for PNG, JPEG, WebP, GIF (first frame) and BMP.
//!
//! Hostile files cannot exhaust memory: the dimensions are checked before any pixel is decoded
//! (at most 40 megapixels) and the decoder may allocate at most 512 MB.

use std::io::Cursor;

use image::{ImageReader, Limits, RgbImage};

use crate::VisionError;

/// Largest picture accepted, in pixels.
pub const MAX_PIXELS: u64 = 40_000_000;
/// Most memory a decoder may allocate.
pub const MAX_ALLOC: u64 = 512 * 1024 * 1024;

/// Decodes a picture into RGB pixels.
pub fn decode(bytes: &[u8]) -> Result<RgbImage, VisionError> {
    if bytes.is_empty() {
        return Err(VisionError::Decode("the file is empty".into()));
    }
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| VisionError::Decode(e.to_string()))?;
    if reader.format().is_none() {
        return Err(VisionError::Decode(
            "unknown format (PNG, JPEG, WebP, GIF and BMP are read)".into(),
        ));
    }
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_ALLOC);
    limits.max_image_width = Some(40_000);
    limits.max_image_height = Some(40_000);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| VisionError::Decode(e.to_string()))?;
    let (w, h) = image::ImageDecoder::dimensions(&decoder);
    if w as u64 * h as u64 > MAX_PIXELS {
        return Err(VisionError::TooLarge(format!(
            "{w}x{h} is more than {} megapixels",
            MAX_PIXELS / 1_000_000
        )));
    }
    image::ImageDecoder::set_limits(&mut decoder, limits)
        .map_err(|e| VisionError::TooLarge(e.to_string()))?;
    let image = image::DynamicImage::from_decoder(decoder)
        .map_err(|e| VisionError::Decode(e.to_string()))?;
    Ok(image.into_rgb8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        RgbImage::new(width, height)
            .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
            .unwrap();
        bytes
    }

    #[test]
    fn decodes_png_and_refuses_junk() {
        assert_eq!(decode(&png(5, 3)).unwrap().dimensions(), (5, 3));
        assert!(matches!(decode(b""), Err(VisionError::Decode(_))));
        assert!(matches!(
            decode(b"hello, not a picture"),
            Err(VisionError::Decode(_))
        ));
        let bytes = png(64, 64);
        assert!(matches!(
            decode(&bytes[..bytes.len() / 2]),
            Err(VisionError::Decode(_))
        ));
    }

    #[test]
    fn refuses_huge_dimensions_before_decoding() {
        // A PNG header that claims 50000 x 50000 pixels.
        let mut bytes = png(1, 1);
        bytes[16..20].copy_from_slice(&50_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&50_000u32.to_be_bytes());
        assert!(decode(&bytes).is_err());
    }
}
