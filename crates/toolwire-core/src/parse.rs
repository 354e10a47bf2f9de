//! The any-input entry point: v1 documents, legacy envelopes and everything else.
//!
//! Bytes are checked to be UTF-8 and, before serde_json sees them, scanned for nesting depth,
//! so that a too-deep document is refused with a clear error and an offset rather than
//! mistaken for text. A JSON object whose `format` claims a toolwire format goes to the
//! parser of that version (v1 today; an unknown version is an error); everything else follows
//! the legacy rules: an envelope, or `Passthrough` of the exact input.

use serde_json::Value;

use crate::legacy;
use crate::result::ToolResult;
use crate::v1::{self, V1Error};

/// serde_json's recursion limit: a document whose arrays and objects nest this many levels
/// deep (or deeper) is refused; at most `MAX_DEPTH - 1` levels parse.
pub const MAX_DEPTH: usize = 128;

/// Why input could not be parsed.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The input is not UTF-8.
    #[error("input is not valid UTF-8: invalid byte at offset {offset}")]
    InvalidUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// Arrays and objects nest too deeply.
    #[error(
        "JSON nesting reaches {MAX_DEPTH} levels at byte offset {offset}; at most {} levels are allowed",
        MAX_DEPTH - 1
    )]
    TooDeep {
        /// Byte offset of the bracket that reaches [`MAX_DEPTH`].
        offset: usize,
    },
    /// The input claims a toolwire format but is not a valid document of it.
    #[error("invalid toolwire result document: {0}")]
    V1(#[from] V1Error),
}

/// Parses any input: a v1 document, a legacy envelope, or anything else (passed through).
pub fn parse_any(input: &[u8]) -> Result<ToolResult, ParseError> {
    let text = std::str::from_utf8(input)
        .map_err(|err| ParseError::InvalidUtf8 { offset: err.valid_up_to() })?;
    if let Some(offset) = nesting_overflow(input) {
        return Err(ParseError::TooDeep { offset });
    }
    // Only an object can be a v1 document or an envelope: nothing else needs decoding.
    if !legacy::starts_like_object(text) {
        return Ok(legacy::passthrough(text));
    }
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return Ok(legacy::passthrough(text));
    };
    if let Value::Object(doc) = &value
        && let Some(Value::String(format)) = doc.get("format")
        && format.starts_with(v1::FORMAT_PREFIX)
    {
        return Ok(v1::parse_owned(value)?);
    }
    Ok(legacy::from_value(value, text))
}

/// The byte offset of the first `[` or `{` (outside strings) that reaches [`MAX_DEPTH`], if
/// any. A cheap scan: it trusts nothing but brackets and string quotes, which is all the depth
/// of valid JSON depends on; invalid JSON is refused later by serde_json anyway.
pub(crate) fn nesting_overflow(input: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (offset, byte) in outside_strings(input) {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                if depth >= MAX_DEPTH {
                    return Some(offset);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_string_contents_and_escaped_quotes() {
        let text = br#"{"a\"[": [1, "}"]}"#;
        let seen: String = outside_strings(text).map(|(_, b)| char::from(b)).collect();
        assert_eq!(seen, "{: [1, ]}");
    }
}
