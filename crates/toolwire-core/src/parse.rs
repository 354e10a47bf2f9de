//! Scanning JSON text without decoding it: a document's top-level members as raw text, its
//! nesting depth, the bytes outside string literals. The parsers read documents with these (so
//! that the data is never turned into a tree), and the wire checks scan text with them.

use std::fmt;

use serde::Deserializer;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

/// serde_json's recursion limit: a document whose arrays and objects nest this many levels
/// deep (or deeper) is refused; at most `MAX_DEPTH - 1` levels parse.
pub const MAX_DEPTH: usize = 128;

/// More top-level members than any v1 document or ordinary envelope has.
const MAX_MEMBERS: usize = 64;

/// The members of one top-level JSON object, in order, each value as its raw text; `None` when
/// `text` is not exactly one valid JSON object, nests [`MAX_DEPTH`] levels deep, repeats a key
/// or has over 64 members (the tree path decides those).
pub fn raw_members(text: &str) -> Option<Vec<(String, &RawValue)>> {
    // Nesting is judged on the whole document, as the tree path judges it.
    if nesting_overflow(text.as_bytes()).is_some() {
        return None;
    }
    shallow_members(text)
}

/// [`raw_members`] of a `text` already known to nest less than [`MAX_DEPTH`] levels.
pub(crate) fn shallow_members(text: &str) -> Option<Vec<(String, &RawValue)>> {
    struct Members;

    impl<'de> Visitor<'de> for Members {
        type Value = Option<Vec<(String, &'de RawValue)>>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut members: Vec<(String, &'de RawValue)> = Vec::new();
            let mut unique = true;
            while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                // A document has a handful of members; a crowd of them goes to the tree path
                // (returning early leaves the object unread, which fails the read).
                if members.len() == MAX_MEMBERS {
                    return Ok(None);
                }
                unique &= !members.iter().any(|(seen, _)| *seen == key);
                members.push((key, value));
            }
            Ok(unique.then_some(members))
        }
    }

    let mut de = serde_json::Deserializer::from_str(text);
    let members = de.deserialize_map(Members).ok()?;
    de.end().ok()?;
    members
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
pub fn outside_strings(input: &[u8]) -> impl Iterator<Item = (usize, u8)> + '_ {
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
