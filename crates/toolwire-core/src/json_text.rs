//! Compact JSON text of wire shapes: written into a buffer of exactly its length, or only
//! counted (its length, or its length once escaped inside a JSON string) so that a size is known
//! without writing the text; and short JSON strings joined on the stack.

use std::fmt;

use serde::{Serialize, Serializer};

/// Writes a JSON string: what `write` puts on the stack, when it fits, handed over as one
/// string, which the serializer escapes in one pass and a `Value` serializer copies once;
/// otherwise `whole`, piece by piece.
pub(crate) fn serialize_short<S: Serializer>(
    serializer: S,
    write: impl FnOnce(&mut StackText) -> fmt::Result,
    whole: &dyn fmt::Display,
) -> Result<S::Ok, S::Error> {
    let mut text = StackText { bytes: [0; 128], len: 0 };
    if write(&mut text).is_ok()
        && let Ok(text) = std::str::from_utf8(&text.bytes[..text.len])
    {
        return serializer.serialize_str(text);
    }
    serializer.collect_str(whole)
}

/// A text of at most 128 bytes on the stack; writing more fails.
pub(crate) struct StackText {
    bytes: [u8; 128],
    len: usize,
}

impl fmt::Write for StackText {
    fn write_str(&mut self, piece: &str) -> fmt::Result {
        let end = self.len + piece.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(piece.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Compact JSON text of a wire shape. serde_json fails only on map keys that are not strings,
/// which no wire shape has.
pub(crate) fn to_json_string<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A wire shape's compact JSON text as bytes, written into a buffer of exactly its length
/// (counted first), so that a large text is never copied while its buffer grows.
pub(crate) fn to_json_vec_exact<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(json_len(value));
    // Writing into memory cannot fail (the same rule as `to_json_string`).
    if serde_json::to_writer(&mut out, value).is_err() {
        out.clear();
    }
    out
}

/// The length of a wire shape's compact JSON text, counted without writing it.
pub(crate) fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    measured(value, <[u8]>::len)
}

/// The length of a wire shape's compact JSON text once that text is itself escaped as the
/// contents of a JSON string (without the quotes), counted without writing either.
pub(crate) fn json_escaped_len<T: Serialize + ?Sized>(value: &T) -> usize {
    measured(value, escaped_len)
}

/// The sum of `measure` over the pieces serde_json writes for `value` (generic, so that the
/// measure of each of the many small pieces is inlined rather than called through a pointer).
fn measured<T: Serialize + ?Sized, M: Fn(&[u8]) -> usize>(value: &T, measure: M) -> usize {
    struct Count<M>(usize, M);
    impl<M: Fn(&[u8]) -> usize> std::io::Write for Count<M> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += (self.1)(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0, measure);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// The length of `text` escaped as the contents of a JSON string the way serde_json escapes:
/// `"` and `\` and the control characters with a short escape take two bytes, the other
/// control characters six (`\u00XX`), every other byte one.
pub(crate) fn escaped_len(text: &[u8]) -> usize {
    // Counted in chunks of at most 255 bytes into byte-sized counters, which the compiler turns
    // into vector code (a plain count runs a byte at a time, ten times slower); the control
    // characters, rare in practice, are sorted into short and long escapes only when present.
    let (mut escaped, mut controls) = (0usize, 0usize);
    for chunk in text.chunks(255) {
        let (mut e, mut c) = (0u8, 0u8);
        for &b in chunk {
            let control = b < 0x20;
            e += u8::from((b == b'"') | (b == b'\\') | control);
            c += u8::from(control);
        }
        escaped += usize::from(e);
        controls += usize::from(c);
    }
    let mut len = text.len() + escaped;
    if controls > 0 {
        let short = |b: u8| matches!(b, 0x08 | 0x0c | b'\n' | b'\r' | b'\t');
        len += 4 * text.iter().filter(|&&b| b < 0x20 && !short(b)).count();
    }
    len
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_lengths_are_serde_jsons() {
        let mut every_byte: String = (0u8..0x80).map(char::from).collect();
        every_byte.push_str("\"\\é\u{2028}💡 plain");
        for text in ["", "plain", "\"quoted\"", "a\\b", "\n\t\u{1}\u{1f}\u{7f}", &every_byte] {
            let quoted = to_json_string(text);
            assert_eq!(escaped_len(text.as_bytes()), quoted.len() - 2, "{quoted}");
            assert_eq!(json_escaped_len(text), to_json_string(&quoted).len() - 2, "{quoted}");
        }
    }
}
