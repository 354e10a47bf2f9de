//! The any-input entry point: v1 documents, legacy envelopes and everything else.
//!
//! Bytes are checked to be UTF-8 and, before serde_json sees them, scanned for nesting depth,
//! so that a too-deep document is refused with a clear error and an offset rather than
//! mistaken for text. A JSON object whose `format` claims a toolwire format goes to the
//! parser of that version (v1 today; an unknown version is an error); everything else follows
//! the legacy rules: an envelope, or `Passthrough` of the exact input.
//!
//! A document under [`TREE_BELOW`] bytes is decoded whole into a `serde_json::Value` in one
//! pass (the tree path): its data is small enough to be sent inline, and `structuredContent`
//! and output-schema validation need that tree anyway, so the result keeps it. A larger
//! document is read as its top-level members, each kept as raw text, so that its data is never
//! turned into a JSON tree (see [`crate::data`]); only the small members are. Text the members
//! path does not take (a repeated top-level key, data it leaves to the tree) goes to the tree
//! path. Both paths give the same result for the same document (tests below).

use serde_json::Value;

use crate::legacy;
use crate::parse::{MAX_DEPTH, nesting_overflow, shallow_members};
use crate::result::ToolResult;
use crate::v1::{self, V1Error};

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

/// Documents shorter than this many bytes take the tree path. The tree of a document this
/// size is a few hundred KiB at most; the members path costs about as much CPU as decoding the
/// tree, and a small result's tree is built later anyway.
pub(crate) const TREE_BELOW: usize = 64 * 1024;

/// Parses any input: a v1 document, a legacy envelope, or anything else (passed through).
pub fn parse_any(input: &[u8]) -> Result<ToolResult, ParseError> {
    let text = std::str::from_utf8(input)
        .map_err(|err| ParseError::InvalidUtf8 { offset: err.valid_up_to() })?;
    if input.len() < TREE_BELOW && legacy::starts_like_object(text) {
        return match serde_json::from_str::<Value>(text) {
            Ok(value) => read_tree(value, text),
            // serde_json refuses the same nesting the scan does; the scan says where.
            Err(_) => match nesting_overflow(input) {
                Some(offset) => Err(ParseError::TooDeep { offset }),
                None => Ok(legacy::passthrough(text)),
            },
        };
    }
    parse_members(text)
}

/// The members path: the top-level members of `text` (UTF-8) read as raw text.
fn parse_members(text: &str) -> Result<ToolResult, ParseError> {
    if let Some(offset) = nesting_overflow(text.as_bytes()) {
        return Err(ParseError::TooDeep { offset });
    }
    // Only an object can be a v1 document or an envelope: nothing else needs decoding.
    if !legacy::starts_like_object(text) {
        return Ok(legacy::passthrough(text));
    }
    if let Some(members) = shallow_members(text) {
        let claims_format = members.iter().any(|(key, value)| {
            key == "format"
                && serde_json::from_str::<String>(value.get())
                    .is_ok_and(|format| format.starts_with(v1::FORMAT_PREFIX))
        });
        let parsed = if claims_format {
            v1::parse_members(&members).map(|parsed| parsed.map_err(ParseError::from))
        } else {
            legacy::from_members(&members, text).map(Ok)
        };
        if let Some(parsed) = parsed {
            return parsed;
        }
    }
    parse_tree(text)
}

/// The tree path: `text` (UTF-8, not too deep) decoded whole into one `Value`, then read as a
/// v1 document, a legacy envelope or a passthrough.
fn parse_tree(text: &str) -> Result<ToolResult, ParseError> {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => read_tree(value, text),
        Err(_) => Ok(legacy::passthrough(text)),
    }
}

/// A decoded document read as a v1 document, a legacy envelope or a passthrough (`text` is
/// what it was decoded from).
fn read_tree(value: Value, text: &str) -> Result<ToolResult, ParseError> {
    if let Value::Object(doc) = &value
        && let Some(Value::String(format)) = doc.get("format")
        && format.starts_with(v1::FORMAT_PREFIX)
    {
        return Ok(v1::parse_owned(value)?);
    }
    Ok(legacy::from_value(value, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::tests::json_text;
    use crate::parse::raw_members;
    use proptest::prelude::*;

    #[test]
    fn repeated_members_are_decided_by_the_tree() {
        for text in [
            r#"{"success":true,"data":1,"data":{"b":2}}"#,
            r#"{"format":"toolwire.result.v1","data":[1],"data":[ 2 ]}"#,
            r#"{"success":true,"data":{"k":1,"k":2}}"#,
            r#"{"format":"toolwire\u002eresult.v1","data":"\ud800"}"#,
        ] {
            assert_eq!(parse_members(text), parse_tree(text), "{text}");
            assert_eq!(parse_any(text.as_bytes()), parse_tree(text), "{text}");
        }
        assert!(raw_members(r#"{"a":1,"a":2}"#).is_none());
        assert!(raw_members(r#"{"a":1} x"#).is_none());
        assert_eq!(
            raw_members(r#"{"a": [1] }"#).map(|m| m[0].1.get().to_owned()),
            Some("[1]".into())
        );
        let deep_meta = format!(
            r#"{{"format":"toolwire.result.v1","meta":{}1{}}}"#,
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(raw_members(&deep_meta).is_none());
        assert!(matches!(v1::parse(deep_meta.as_bytes()), Err(V1Error::Json(_))));
        let parsed = parse_any(br#"{"success":true,"data":1,"data":{"b":2}}"#).ok();
        assert_eq!(parsed.as_ref().and_then(ToolResult::data_json), Some(r#"{"b":2}"#));
    }

    /// `{"success":true,"data":[[…]]}` nesting `depth` levels in all, padded with spaces to
    /// `len` bytes at least.
    fn nested(depth: usize, len: usize) -> String {
        let arrays = depth - 1;
        let doc =
            format!(r#"{{"success":true,"data":{}1{}}}"#, "[".repeat(arrays), "]".repeat(arrays));
        let pad = len.saturating_sub(doc.len());
        format!("{}{doc}", " ".repeat(pad))
    }

    #[test]
    fn both_paths_refuse_the_same_nesting_at_the_same_offset() {
        for len in [0, TREE_BELOW] {
            let deepest = nested(MAX_DEPTH - 1, len);
            let parsed = parse_any(deepest.as_bytes());
            assert!(parsed.as_ref().is_ok_and(ToolResult::is_success), "{len}: {parsed:?}");
            let too_deep = nested(MAX_DEPTH, len);
            let offset = too_deep.rfind('[').unwrap_or_default();
            assert_eq!(parse_any(too_deep.as_bytes()), Err(ParseError::TooDeep { offset }));
            // Too deep and broken as well: still the nesting that is reported.
            let broken = format!("{}x", &too_deep[..too_deep.len() - 1]);
            assert_eq!(parse_any(broken.as_bytes()), Err(ParseError::TooDeep { offset }));
        }
    }

    #[test]
    fn a_small_result_keeps_the_tree_it_was_read_from() {
        let small = br#"{"format":"toolwire.result.v1","data":{"id":1,"tags":["a"]}}"#;
        let parsed = parse_any(small).unwrap_or_else(|_| ToolResult::empty());
        assert!(parsed.data.as_ref().is_some_and(crate::data::Data::has_tree));
        let large = format!(
            r#"{{"format":"toolwire.result.v1","data":{{"id":1,"text":"{}"}}}}"#,
            "x".repeat(TREE_BELOW)
        );
        let parsed = parse_any(large.as_bytes()).unwrap_or_else(|_| ToolResult::empty());
        assert!(parsed.data.as_ref().is_some_and(|data| !data.has_tree()));
        assert_eq!(parsed.data_json().map(str::len), Some(TREE_BELOW + 18));
    }

    proptest! {
        #[test]
        fn members_read_raw_parse_as_the_whole_tree(
            data in json_text(),
            other in json_text(),
            success in any::<bool>(),
            v1_form in any::<bool>(),
        ) {
            let text = if v1_form {
                format!("{{ \"format\" : \"toolwire.result.v1\", \"data\" :\n{data}, \"summary\": \"s\" }}")
            } else {
                format!("{{\"success\": {success}, \"data\": {data},\n \"note\": {other}, \"_meta\": {{\"x\": {other}}} }}")
            };
            let parsed = parse_members(&text);
            prop_assert_eq!(&parsed, &parse_tree(&text));
            prop_assert_eq!(&parsed, &parse_any(text.as_bytes()));
            if let Ok(result) = &parsed {
                prop_assert_eq!(v1::to_string(result), v1::to_string(&parse_tree(&text).unwrap_or_else(|_| ToolResult::empty())));
            }
            if v1_form {
                let direct = v1::parse(text.as_bytes());
                let tree = serde_json::from_str::<Value>(&text).map_err(|e| e.to_string());
                prop_assert_eq!(direct.ok(), tree.ok().and_then(|doc| v1::parse_owned(doc).ok()));
            }
        }
    }
}
