//! Small JSON helpers: the compact writer every wire format and the v1 form are written with
//! (escaping exactly as serde_json does, numbers from their own text), and helpers shared by the
//! parsers, the schema declarations and the wire checker.

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;

/// A short name of a JSON value's kind, for messages ("a string", "an object", …).
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The bytes of JSON text that lie outside string literals, with their offsets (the quotes
/// themselves are inside). Trusts nothing but quotes and backslashes, so it is safe on any input.
pub(crate) fn outside_strings(input: &[u8]) -> impl Iterator<Item = (usize, u8)> + '_ {
    let mut in_string = false;
    let mut escaped = false;
    input.iter().enumerate().filter_map(move |(offset, &byte)| {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            None
        } else if byte == b'"' {
            in_string = true;
            None
        } else {
            Some((offset, byte))
        }
    })
}

/// Shorthand for the escape kinds of [`ESCAPE`]: `U` = `\u00XX`, `0` = no escape.
const U: u8 = b'u';
const Z: u8 = 0;

/// How serde_json escapes each byte of a string (so that both writers agree byte for byte).
static ESCAPE: [u8; 256] = {
    let mut table = [Z; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = U;
        i += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Appends `text` as a JSON string literal, escaped exactly as serde_json escapes it.
pub(crate) fn write_str(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(byte)];
        if escape == Z {
            continue;
        }
        // Escaped bytes are ASCII, so `i` is always a char boundary.
        out.push_str(&text[start..i]);
        if escape == U {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push('\\');
            out.push(char::from(escape));
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

/// Appends any JSON value in compact form, keys in their stored order, numbers exactly as they
/// came in (the workspace enables `arbitrary_precision`).
pub(crate) fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        // The workspace enables `arbitrary_precision`: the number's own text, exactly.
        Value::Number(number) => out.push_str(number.as_str()),
        Value::String(text) => write_str(out, text),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Appends a JSON object held as a map (error details), keys in their stored order.
pub(crate) fn write_map(out: &mut String, map: &serde_json::Map<String, Value>) {
    let mut obj = Obj::open(out);
    for (key, value) in map {
        obj.value(key, value);
    }
    obj.close();
}

/// Writes an object member by member; tracks the commas.
pub(crate) struct Obj<'w> {
    out: &'w mut String,
    empty: bool,
}

impl<'w> Obj<'w> {
    /// Opens an object.
    pub(crate) fn open(out: &'w mut String) -> Self {
        out.push('{');
        Self { out, empty: true }
    }

    /// Writes `"name":` and hands back the buffer for the value.
    pub(crate) fn key(&mut self, name: &str) -> &mut String {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        write_str(self.out, name);
        self.out.push(':');
        self.out
    }

    /// Writes `"<prefix>/<name>":` and hands back the buffer for the value.
    pub(crate) fn prefixed_key(&mut self, prefix: &str, name: &str) -> &mut String {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        // Prefixes and names follow the `_meta` grammar, but extension keys come from outside:
        // escape anyway.
        let mut key = String::with_capacity(prefix.len() + name.len() + 1);
        key.push_str(prefix);
        key.push('/');
        key.push_str(name);
        write_str(self.out, &key);
        self.out.push(':');
        self.out
    }

    /// A string member.
    pub(crate) fn str(&mut self, name: &str, value: &str) {
        let out = self.key(name);
        write_str(out, value);
    }

    /// A member whose value is already compact JSON text.
    pub(crate) fn raw(&mut self, name: &str, json: &str) {
        self.key(name).push_str(json);
    }

    /// An unsigned integer member.
    pub(crate) fn uint(&mut self, name: &str, value: u64) {
        let out = self.key(name);
        let _ = write!(out, "{value}");
    }

    /// A boolean member.
    pub(crate) fn bool(&mut self, name: &str, value: bool) {
        self.key(name).push_str(if value { "true" } else { "false" });
    }

    /// A JSON value member.
    pub(crate) fn value(&mut self, name: &str, value: &Value) {
        let out = self.key(name);
        write_value(out, value);
    }

    /// Appends the members of `object`, the compact text of a JSON object written by serde.
    pub(crate) fn members(&mut self, object: &str) {
        let inner = object.strip_prefix('{').and_then(|o| o.strip_suffix('}')).unwrap_or_default();
        if inner.is_empty() {
            return;
        }
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        self.out.push_str(inner);
    }

    /// Closes the object.
    pub(crate) fn close(self) {
        self.out.push('}');
    }
}

/// Appends bytes as standard base64 (with padding), the form every wire format uses.
pub(crate) fn write_base64(out: &mut String, bytes: &[u8]) {
    out.push('"');
    base64::engine::general_purpose::STANDARD.encode_string(bytes, out);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_string_contents_and_escaped_quotes() {
        let text = br#"{"a\"[": [1, "}"]}"#;
        let seen: String = outside_strings(text).map(|(_, b)| char::from(b)).collect();
        assert_eq!(seen, "{: [1, ]}");
    }

    #[test]
    fn strings_escape_like_serde_json() {
        let samples = [
            "plain",
            "quote \" back \\ slash",
            "\u{0}\u{1f}\u{7f}\n\r\t\u{8}\u{c}",
            "ünïcødé 🚀 /",
        ];
        for sample in samples {
            let mut out = String::new();
            write_str(&mut out, sample);
            assert_eq!(Ok(out), serde_json::to_string(sample).map_err(|e| e.to_string()));
        }
    }

    #[test]
    fn values_serialize_like_serde_json() {
        let text = r#"{"b":[1,2.50,-0.0,1e400,"x"],"a":{"n":null,"t":true,"f":false}}"#;
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        let mut out = String::new();
        write_value(&mut out, &value);
        assert_eq!(out, text.replace("1e400", "1e+400"));
        assert_eq!(Ok(out), serde_json::to_string(&value).map_err(|e| e.to_string()));
    }
}
