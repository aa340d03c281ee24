//! Decode: bytes to pixels, for PNG, JPEG, WebP, GIF (first frame) and BMP.
//!
//! Hostile files cannot exhaust memory: the dimensions are checked before any pixel is decoded
//! (at most 40 megapixels) and the decoder may allocate at most 512 MB. A file cut short is an
//! error, a JPEG included (its decoder would fill the missing rows with grey). The decoders'
//! failures are told in plain words, naming the format: a file cut short, a damaged one (with
//! the decoder's detail), a format that is not read.
//!
//! The picture is returned as a viewer shows it: turned or mirrored as its EXIF orientation
//! tag says (phones store photos sideways and tag them, so a photo of a screen would otherwise
//! be read a quarter turn off, every piece on the wrong square), and see-through pixels laid
//! over white (a diagram exported with a transparent margin or board, as a page shows it; the
//! colour a fully transparent pixel happens to store, often black, means nothing).

use std::io::Cursor;

use image::error::{ImageError, UnsupportedErrorKind};
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits, RgbImage};

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
    let Some(format) = reader.format() else {
        return Err(VisionError::Decode(
            "unknown format (PNG, JPEG, WebP, GIF and BMP are read)".into(),
        ));
    };
    if format == ImageFormat::Jpeg && !jpeg_is_whole(bytes) {
        return Err(VisionError::Decode(
            "the JPEG file is cut short (its last scan has no end-of-image marker)".into(),
        ));
    }
    if format == ImageFormat::WebP && !riff_is_whole(bytes) {
        return Err(VisionError::Decode("the WebP file is cut short".into()));
    }
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_ALLOC);
    limits.max_image_width = Some(40_000);
    limits.max_image_height = Some(40_000);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| decode_failure(format, e))?;
    let (w, h) = decoder.dimensions();
    if w as u64 * h as u64 > MAX_PIXELS {
        return Err(VisionError::TooLarge(format!(
            "{w}x{h} is more than {} megapixels",
            MAX_PIXELS / 1_000_000
        )));
    }
    decoder
        .set_limits(limits)
        .map_err(|e| VisionError::TooLarge(e.to_string()))?;
    // A damaged or missing tag leaves the picture as stored.
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| decode_failure(format, e))?;
    image.apply_orientation(orientation);
    Ok(over_white(image))
}

/// A decoder's failure on a file of `format`, in plain words: "the PNG file is cut short",
/// "the GIF file is damaged (...)", "ICO pictures are not read (...)". A file cut short shows
/// as an early end of the input (PNG, BMP) or as a decoding error that says so (GIF).
fn decode_failure(format: ImageFormat, error: ImageError) -> VisionError {
    let name = format_name(format);
    match error {
        ImageError::Limits(limit) => VisionError::TooLarge(limit.to_string()),
        ImageError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            VisionError::Decode(format!("the {name} file is cut short"))
        }
        ImageError::Unsupported(unsupported)
            if matches!(unsupported.kind(), UnsupportedErrorKind::Format(_)) =>
        {
            VisionError::Decode(format!(
                "{name} pictures are not read (PNG, JPEG, WebP, GIF and BMP are)"
            ))
        }
        ImageError::Decoding(decoding) => {
            // The decoder's own words, without image's "Format error decoding X:" before them.
            let detail = std::error::Error::source(&decoding)
                .map_or_else(|| decoding.to_string(), |inner| inner.to_string());
            if detail.to_lowercase().contains("end of file") {
                VisionError::Decode(format!("the {name} file is cut short"))
            } else {
                VisionError::Decode(format!("the {name} file is damaged ({detail})"))
            }
        }
        other => VisionError::Decode(format!("the {name} file: {other}")),
    }
}

/// A format's usual name, as people write it.
fn format_name(format: ImageFormat) -> String {
    match format {
        ImageFormat::Png => "PNG".into(),
        ImageFormat::Jpeg => "JPEG".into(),
        ImageFormat::WebP => "WebP".into(),
        ImageFormat::Gif => "GIF".into(),
        ImageFormat::Bmp => "BMP".into(),
        other => format!("{other:?}").to_uppercase(),
    }
}

/// The picture's colours, with see-through pixels laid over white. The RGBA pixels are turned
/// into RGB in their own buffer, front to back (each RGB pixel is written where the RGBA
/// pixels before it lay), so a large picture with an alpha channel is not held twice: a
/// 4000x4000 PNG with alpha took 114 MB to decode with a second buffer, 67 MB this way.
fn over_white(image: DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.into_rgb8();
    }
    let rgba = image.into_rgba8();
    let (width, height) = rgba.dimensions();
    let mut raw = rgba.into_raw();
    let pixels = raw.len() / 4;
    for i in 0..pixels {
        let [r, g, b, a] = [raw[4 * i], raw[4 * i + 1], raw[4 * i + 2], raw[4 * i + 3]];
        let alpha = u32::from(a);
        let blend = |c: u8| ((u32::from(c) * alpha + 255 * (255 - alpha) + 127) / 255) as u8;
        raw[3 * i] = blend(r);
        raw[3 * i + 1] = blend(g);
        raw[3 * i + 2] = blend(b);
    }
    raw.truncate(3 * pixels);
    raw.shrink_to_fit();
    RgbImage::from_raw(width, height, raw)
        .expect("three bytes for each pixel of the picture's size")
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

/// Whether a RIFF file (WebP's container) holds all the bytes its header counts: the four
/// bytes after "RIFF" give the length of the rest, 8 bytes fewer than the whole file's. A
/// header too short to say is not whole either.
fn riff_is_whole(bytes: &[u8]) -> bool {
    let Some(size) = bytes.get(4..8) else {
        return false;
    };
    let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]);
    bytes.len() as u64 >= u64::from(size) + 8
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
    fn failures_name_the_format_in_plain_words() {
        let picture = RgbImage::from_fn(64, 64, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 4) as u8, ((x * y) % 256) as u8])
        });
        for (format, name) in [
            (ImageFormat::Png, "PNG"),
            (ImageFormat::Jpeg, "JPEG"),
            (ImageFormat::WebP, "WebP"),
            (ImageFormat::Gif, "GIF"),
            (ImageFormat::Bmp, "BMP"),
        ] {
            let mut bytes = Vec::new();
            picture
                .write_to(&mut Cursor::new(&mut bytes), format)
                .unwrap();
            assert!(decode(&bytes).is_ok(), "{name}");
            for keep in [40, bytes.len() / 2, bytes.len() * 9 / 10] {
                match decode(&bytes[..keep]).map(|picture| picture.dimensions()) {
                    Err(VisionError::Decode(message)) => assert!(
                        message.starts_with(&format!("the {name} file is cut short")),
                        "{name}, {keep} of {} bytes: {message}",
                        bytes.len()
                    ),
                    other => panic!("{name}, {keep} of {} bytes: {other:?}", bytes.len()),
                }
            }
        }
        // A PNG whose compressed pixels are scrambled is damaged, not cut short.
        let mut png = Vec::new();
        picture
            .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
            .unwrap();
        let data = png.windows(4).position(|w| w == b"IDAT").unwrap() + 8;
        for byte in &mut png[data..data + 200] {
            *byte ^= 0x5A;
        }
        match decode(&png).map(|picture| picture.dimensions()) {
            Err(VisionError::Decode(message)) => {
                assert!(
                    message.starts_with("the PNG file is damaged ("),
                    "{message}"
                )
            }
            other => panic!("{other:?}"),
        }
        // TIFF is recognized by its first bytes but not read.
        match decode(b"II*\0\x08\0\0\0\0\0\0\0\0\0\0\0").map(|picture| picture.dimensions()) {
            Err(VisionError::Decode(message)) => assert!(
                message.starts_with("TIFF pictures are not read"),
                "{message}"
            ),
            other => panic!("{other:?}"),
        }
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

    /// An EXIF block (TIFF data, little-endian) holding one entry: the orientation `tag`.
    fn exif_orientation(tag: u16) -> Vec<u8> {
        let mut tiff = b"II*\0".to_vec();
        tiff.extend_from_slice(&8u32.to_le_bytes()); // the first directory's offset
        tiff.extend_from_slice(&1u16.to_le_bytes()); // one entry
        tiff.extend_from_slice(&0x0112u16.to_le_bytes()); // Orientation
        tiff.extend_from_slice(&3u16.to_le_bytes()); // SHORT
        tiff.extend_from_slice(&1u32.to_le_bytes()); // one value
        tiff.extend_from_slice(&u32::from(tag).to_le_bytes()); // the value, padded
        tiff.extend_from_slice(&0u32.to_le_bytes()); // no further directory
        tiff
    }

    /// A 48x32 JPEG, white with a black 16x16 block in its top-left corner, tagged `exif`.
    fn tagged_jpeg(exif: Option<Vec<u8>>) -> Vec<u8> {
        let picture = RgbImage::from_fn(48, 32, |x, y| {
            image::Rgb(if x < 16 && y < 16 { [0; 3] } else { [255; 3] })
        });
        let mut bytes = Vec::new();
        let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 95);
        if let Some(exif) = exif {
            image::ImageEncoder::set_exif_metadata(&mut encoder, exif).unwrap();
        }
        encoder.encode_image(&picture).unwrap();
        bytes
    }

    /// Whether the pixel is black (within the JPEG's error).
    fn dark(picture: &RgbImage, x: u32, y: u32) -> bool {
        picture.get_pixel(x, y).0.iter().all(|&c| c < 60)
    }

    #[test]
    fn a_picture_is_turned_as_its_exif_orientation_says() {
        let plain = decode(&tagged_jpeg(None)).unwrap();
        assert_eq!(plain.dimensions(), (48, 32));
        assert!(dark(&plain, 4, 4) && !dark(&plain, 44, 4));
        // 6: the viewer turns the stored picture a quarter turn clockwise, so its top-left
        // corner goes to the top right.
        let turned = decode(&tagged_jpeg(Some(exif_orientation(6)))).unwrap();
        assert_eq!(turned.dimensions(), (32, 48));
        assert!(dark(&turned, 28, 4) && !dark(&turned, 4, 4) && !dark(&turned, 28, 44));
        // 3: half a turn, the block ends at the bottom right.
        let half = decode(&tagged_jpeg(Some(exif_orientation(3)))).unwrap();
        assert_eq!(half.dimensions(), (48, 32));
        assert!(dark(&half, 44, 28) && !dark(&half, 4, 4));
        // 2: mirrored left to right.
        let mirrored = decode(&tagged_jpeg(Some(exif_orientation(2)))).unwrap();
        assert!(dark(&mirrored, 44, 4) && !dark(&mirrored, 4, 4));
        // A value no orientation has leaves the picture as stored.
        let odd = decode(&tagged_jpeg(Some(exif_orientation(42)))).unwrap();
        assert_eq!(odd.dimensions(), (48, 32));
        assert!(dark(&odd, 4, 4));
    }

    #[test]
    fn see_through_pixels_are_laid_over_white() {
        // Opaque red, a transparent pixel that stores black, and half-transparent blue.
        let picture = image::RgbaImage::from_fn(3, 1, |x, _| {
            image::Rgba([[255, 0, 0, 255], [0, 0, 0, 0], [0, 0, 255, 128]][x as usize])
        });
        let mut bytes = Vec::new();
        picture
            .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
            .unwrap();
        let decoded = decode(&bytes).unwrap();
        assert_eq!(decoded.get_pixel(0, 0).0, [255, 0, 0]);
        assert_eq!(decoded.get_pixel(1, 0).0, [255, 255, 255]);
        assert_eq!(decoded.get_pixel(2, 0).0, [127, 127, 255]);
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
