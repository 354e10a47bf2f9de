//! A minimal PNG encoder for the demo chart: a palette of up to four colours at two bits per
//! pixel, no filtering, zlib stored blocks. A bar chart needs a handful of colours, and two bits
//! per pixel keep it small without a compressor or a dependency.

/// Encodes `pixels` (`width * height` palette indices 0–3, rows top to bottom) with `palette`
/// (1–4 RGB colours) as a PNG file.
pub(crate) fn encode_indexed(
    width: u32,
    height: u32,
    palette: &[[u8; 3]],
    pixels: &[u8],
) -> Vec<u8> {
    let width_px = width as usize;
    let row = width_px.div_ceil(4);
    let mut raw = Vec::with_capacity((row + 1) * height as usize);
    for line in pixels.chunks(width_px).take(height as usize) {
        raw.push(0); // filter type 0: the row as it is
        for four in line.chunks(4) {
            let mut byte = 0u8;
            for (i, index) in four.iter().enumerate() {
                byte |= (index & 3) << (6 - 2 * i);
            }
            raw.push(byte);
        }
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[2, 3, 0, 0, 0]); // 2-bit depth, palette, no interlace
    chunk(&mut png, b"IHDR", &header);
    let colours: Vec<u8> = palette.iter().take(4).flatten().copied().collect();
    chunk(&mut png, b"PLTE", &colours);
    chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    chunk(&mut png, b"IEND", &[]);
    png
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut blocks = data.chunks(65_535).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xedb8_8320 & mask);
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_known_values() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn the_png_crate_decodes_every_pixel() {
        // 601 × 500: rows of 151 bytes (the last one partly filled), 75 500 bytes of image data,
        // so the zlib stream needs two stored blocks.
        let (width, height) = (601usize, 500usize);
        let palette = [[255, 255, 255], [66, 133, 244], [0, 0, 0], [200, 10, 20]];
        let pixels: Vec<u8> =
            (0..width * height).map(|i| ((i % width + i / width) % 4) as u8).collect();
        let encoded = encode_indexed(width as u32, height as u32, &palette, &pixels);
        let mut decoder = ::png::Decoder::new(std::io::Cursor::new(encoded));
        decoder.set_transformations(::png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap_or_else(|e| panic!("{e}"));
        let mut rgb = vec![0; reader.output_buffer_size().unwrap_or(0)];
        let frame = reader.next_frame(&mut rgb).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((frame.width, frame.height), (601, 500));
        assert_eq!(frame.color_type, ::png::ColorType::Rgb);
        let expected: Vec<u8> =
            pixels.iter().flat_map(|&index| palette[usize::from(index)]).collect();
        assert!(rgb[..frame.buffer_size()] == expected[..], "decoded pixels differ");
    }

    #[test]
    fn a_small_image_is_a_wellformed_png() {
        // Five pixels in one row: indices 1, 0, 2, 3, 1 → bytes 0b01_00_10_11, 0b01_00_00_00.
        let png = encode_indexed(5, 1, &[[255, 255, 255], [255, 0, 0]], &[1, 0, 2, 3, 1]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(&png[16..29], &[0, 0, 0, 5, 0, 0, 0, 1, 2, 3, 0, 0, 0]);
        // PLTE: length 6, two colours.
        assert_eq!(&png[33..41], &[0, 0, 0, 6, b'P', b'L', b'T', b'E']);
        assert_eq!(&png[41..47], &[255, 255, 255, 255, 0, 0]);
        // IDAT after PLTE's CRC: zlib header, one final stored block of 3 bytes, adler32.
        let idat = &png[51 + 8..51 + 8 + 2 + 5 + 3 + 4];
        assert_eq!(idat, &[0x78, 0x01, 1, 3, 0, 0xfc, 0xff, 0, 0x4b, 0x40, 0x00, 0xd9, 0x00, 0x8c]);
        assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
    }
}
