//! Decode: bytes to pixels, for PNG, JPEG, WebP, GIF (first frame) and BMP.
//!
//! Hostile files cannot exhaust memory: the dimensions are checked before any pixel is decoded
//! (at most 40 megapixels) and the decoder may allocate at most 512 MB. A file cut short is an
//! error, a JPEG included (its decoder would fill the missing rows with grey).

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits, RgbImage};

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
    if reader.format() == Some(ImageFormat::Jpeg) && !jpeg_is_whole(bytes) {
        return Err(VisionError::Decode(
            "the JPEG file is cut short (its last scan has no end-of-image marker)".into(),
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

/// Whether a JPEG file ends its last scan with the end-of-image marker (FF D9). The JPEG
/// decoder reads a file cut short without complaint and fills the missing rows with grey, which
/// would give a board whose lower rows are read as whatever that grey looks like. Inside a scan's
/// data every FF byte is followed by 00 or a restart marker, so an end marker after the last
/// start-of-scan marker (FF DA) is the file's own; one only before it belongs to an embedded
/// thumbnail.
fn jpeg_is_whole(bytes: &[u8]) -> bool {
    let Some(end) = bytes.windows(2).rposition(|pair| pair == [0xFF, 0xD9]) else {
        return false;
    };
    !bytes[end..].windows(2).any(|pair| pair == [0xFF, 0xDA])
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
    fn a_jpeg_cut_short_is_refused() {
        let mut picture = RgbImage::new(64, 64);
        for (x, y, pixel) in picture.enumerate_pixels_mut() {
            *pixel = image::Rgb([(x * 4) as u8, (y * 4) as u8, ((x + y) * 2) as u8]);
        }
        let mut bytes = Vec::new();
        picture
            .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Jpeg)
            .unwrap();
        assert_eq!(decode(&bytes).unwrap().dimensions(), (64, 64));
        for keep in [bytes.len() * 2 / 3, bytes.len() - 2] {
            match decode(&bytes[..keep]) {
                Err(VisionError::Decode(message)) => assert!(message.contains("cut short")),
                other => panic!("{keep} of {} bytes: {other:?}", bytes.len()),
            }
        }
        // Bytes after the end marker (some cameras pad their files) are no harm.
        let mut padded = bytes.clone();
        padded.extend_from_slice(&[0; 100]);
        assert!(decode(&padded).is_ok());
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
