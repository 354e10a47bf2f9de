//! A result's data, held as compact JSON text.
//!
//! Every wire format copies the data as text (a text block, a data part, the v1 form, a stored
//! record), so the text is what a result keeps. A JSON tree (`serde_json::Value`) costs many
//! times the text — with `preserve_order` and `arbitrary_precision` every object is an index map
//! and every number a heap string — so it is built only when something asks for it: schema
//! validation, `structuredContent` for rmcp, [`crate::ToolResult::data`]. Data that a tool built
//! as a tree keeps that tree as well.
//!
//! Data parsed from text is brought to the exact compact form serde_json writes for the same
//! value ([`canonical`]), so the wire is the same whichever way the data came in. Text this
//! module does not handle itself (a duplicate or escaped object key, an escape that is not a
//! valid UTF-16 sequence, deep nesting) is left to the tree path, which decides as before.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::parse::MAX_DEPTH;

/// A result's data (never `null`): its compact JSON text, and the tree when one was built.
#[derive(Clone)]
pub(crate) struct Data {
    text: Box<RawValue>,
    tree: OnceLock<Value>,
    /// For prepared data: the output schema it last passed, shared with the data it came from.
    passed: Option<Arc<Passed>>,
}

/// The output schema (its [`crate::schema`] id; 0 for none) that prepared data last passed,
/// shared by a [`PreparedData`] and every copy of it. The data cannot change, so a value sent
/// many times is validated once per schema, not on every call.
#[derive(Debug, Default)]
pub(crate) struct Passed(AtomicU64);

impl Data {
    /// The data of a tree (`None` for `null`).
    pub(crate) fn from_value(value: Value) -> Option<Self> {
        if value.is_null() {
            return None;
        }
        // Writing a `Value` into memory cannot fail: its keys are strings and its numbers valid.
        let text =
            serde_json::value::to_raw_value(&value).unwrap_or_else(|_| RawValue::NULL.to_owned());
        Some(Self { text, tree: OnceLock::from(value), passed: None })
    }

    /// The data of JSON text that serde_json has already checked (`Ok(None)` for `null`), or
    /// [`Unsupported`] when the text needs the tree path (see the module docs).
    pub(crate) fn from_raw(raw: &RawValue) -> Result<Option<Self>, Unsupported> {
        let text = canonical(raw.get())?;
        if text == "null" {
            return Ok(None);
        }
        let text = RawValue::from_string(text).map_err(|_| Unsupported)?;
        Ok(Some(Self { text, tree: OnceLock::new(), passed: None }))
    }

    /// The compact JSON text.
    pub(crate) fn raw(&self) -> &RawValue {
        &self.text
    }

    /// The compact JSON text, as a string.
    pub(crate) fn json(&self) -> &str {
        self.text.get()
    }

    /// True when the data is a JSON object.
    pub(crate) fn is_object(&self) -> bool {
        self.json().starts_with('{')
    }

    /// The tree, built (and kept) on first use.
    pub(crate) fn tree(&self) -> &Value {
        self.tree.get_or_init(|| self.parse())
    }

    /// The tree, without keeping one that had to be built: for a caller that looks once.
    pub(crate) fn tree_once(&self) -> std::borrow::Cow<'_, Value> {
        match self.tree.get() {
            Some(tree) => std::borrow::Cow::Borrowed(tree),
            None => std::borrow::Cow::Owned(self.parse()),
        }
    }

    /// The tree, owned: the kept one moved out, or one built from the text.
    pub(crate) fn into_tree(self) -> Value {
        let Self { text, tree, .. } = self;
        tree.into_inner().unwrap_or_else(|| parse_text(&text))
    }

    fn parse(&self) -> Value {
        parse_text(&self.text)
    }

    /// Whether the tree is built (and kept).
    #[cfg(test)]
    pub(crate) fn has_tree(&self) -> bool {
        self.tree.get().is_some()
    }

    /// Whether this is prepared data that already passed the output schema `schema`.
    pub(crate) fn has_passed(&self, schema: u64) -> bool {
        self.passed.as_ref().is_some_and(|passed| passed.0.load(Ordering::Relaxed) == schema)
    }

    /// Remembers, for prepared data, that it passed the output schema `schema`.
    pub(crate) fn remember_pass(&self, schema: u64) {
        if let Some(passed) = &self.passed {
            passed.0.store(schema, Ordering::Relaxed);
        }
    }
}

/// Data prepared once and sent many times: a JSON value together with its compact text, so that
/// a tool answering from values it keeps (a catalog, a cache) never writes them out again.
/// Arrays of prepared values are prepared by joining their texts ([`PreparedData::array`]).
///
/// The value cannot change, so a prepared value and its copies also remember the output schema
/// they last passed: sent again by a tool with that schema, it is not validated again (a value
/// that fails is checked, and fails, on every call).
///
/// ```
/// use serde_json::json;
/// use toolwire_core::{PreparedData, ToolResult};
///
/// let items = [PreparedData::new(json!({"id": 1})), PreparedData::new(json!({"id": 2}))];
/// let result = ToolResult::success_prepared(PreparedData::array(&items));
/// assert_eq!(result.data_json(), Some(r#"[{"id":1},{"id":2}]"#));
/// ```
#[derive(Clone)]
pub struct PreparedData {
    text: Box<RawValue>,
    tree: Value,
    passed: Arc<Passed>,
}

impl PreparedData {
    /// `value`, with its text written now.
    pub fn new(value: Value) -> Self {
        // Writing a `Value` into memory cannot fail: its keys are strings and its numbers valid.
        let text =
            serde_json::value::to_raw_value(&value).unwrap_or_else(|_| RawValue::NULL.to_owned());
        Self { text, tree: value, passed: Arc::default() }
    }

    /// The array of `items`: its text is theirs joined (the compact form of an array is `[`,
    /// the compact elements separated by `,`, then `]`), its value a copy of theirs.
    pub fn array<'a>(items: impl IntoIterator<Item = &'a PreparedData>) -> Self {
        let items: Vec<&PreparedData> = items.into_iter().collect();
        let texts: Vec<&RawValue> = items.iter().map(|item| &*item.text).collect();
        // Written by serde_json from the elements' raw texts, so the joined text is not parsed
        // again to be checked (which `RawValue::from_string` would do). Writing raw JSON into
        // memory cannot fail.
        let text =
            serde_json::value::to_raw_value(&texts).unwrap_or_else(|_| RawValue::NULL.to_owned());
        let tree = items.iter().map(|item| item.tree.clone()).collect();
        Self { text, tree: Value::Array(tree), passed: Arc::default() }
    }

    /// The value.
    pub fn value(&self) -> &Value {
        &self.tree
    }

    /// The compact JSON text.
    pub fn json(&self) -> &str {
        self.text.get()
    }

    /// The result data (`None` for `null`).
    pub(crate) fn into_data(self) -> Option<Data> {
        if self.tree.is_null() {
            return None;
        }
        Some(Data { text: self.text, tree: OnceLock::from(self.tree), passed: Some(self.passed) })
    }
}

impl std::fmt::Debug for PreparedData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.json())
    }
}

/// The text is serde_json's own output or passed [`canonical`], which refuses the nesting
/// serde_json cannot read back, so it always parses.
fn parse_text(text: &RawValue) -> Value {
    serde_json::from_str(text.get()).unwrap_or(Value::Null)
}

impl PartialEq for Data {
    /// Equal texts: both are compact and keep the order of object keys.
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.json())
    }
}

impl Serialize for Data {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(serializer)
    }
}

/// Text that [`canonical`] leaves to the tree path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unsupported;

/// Objects with more keys than this are left to the tree path, so that finding a duplicate key
/// stays a short linear scan.
const MAX_KEYS_SCANNED: usize = 64;

/// One open array or object, while [`canonical`] walks the text.
struct Frame {
    object: bool,
    /// Where this object's keys start in the shared key list.
    keys_from: usize,
}

/// The compact text serde_json writes for the value of `raw`, which must be valid JSON (as a
/// `RawValue` is): whitespace dropped, every string escape resolved and re-escaped as serde_json
/// escapes, `E` exponents written `e` with an explicit sign. [`Unsupported`] for what only the
/// tree path decides exactly: duplicate keys (the tree keeps the last value at the first
/// position), keys with escapes or in objects over [`MAX_KEYS_SCANNED`] keys, `\u` escapes that
/// are not valid UTF-16, nesting of [`MAX_DEPTH`] levels, or anything that is not valid JSON.
pub(crate) fn canonical(raw: &str) -> Result<String, Unsupported> {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut frames: Vec<Frame> = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    let mut expect_key = false;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' => at += 1,
            b'{' | b'[' => {
                if frames.len() + 1 >= MAX_DEPTH {
                    return Err(Unsupported);
                }
                frames.push(Frame { object: byte == b'{', keys_from: keys.len() });
                expect_key = byte == b'{';
                out.push(char::from(byte));
                at += 1;
            }
            b'}' | b']' => {
                let frame = frames.pop().ok_or(Unsupported)?;
                keys.truncate(frame.keys_from);
                expect_key = false;
                out.push(char::from(byte));
                at += 1;
            }
            b',' => {
                expect_key = frames.last().is_some_and(|frame| frame.object);
                out.push(',');
                at += 1;
            }
            b':' => {
                out.push(':');
                at += 1;
            }
            b'"' if expect_key => {
                let frame = frames.last().ok_or(Unsupported)?;
                let end = at + 1 + find_plain_end(&bytes[at + 1..])?;
                let key = raw.get(at + 1..end).ok_or(Unsupported)?;
                let seen = &keys[frame.keys_from..];
                if seen.len() >= MAX_KEYS_SCANNED || seen.contains(&key) {
                    return Err(Unsupported);
                }
                keys.push(key);
                out.push_str(raw.get(at..=end).ok_or(Unsupported)?);
                expect_key = false;
                at = end + 1;
            }
            b'"' => at = string(raw, at, &mut out)?,
            b'-' | b'0'..=b'9' => at = number(bytes, at, &mut out)?,
            b't' => at = literal(raw, at, "true", &mut out)?,
            b'f' => at = literal(raw, at, "false", &mut out)?,
            b'n' => at = literal(raw, at, "null", &mut out)?,
            _ => return Err(Unsupported),
        }
    }
    if frames.is_empty() { Ok(out) } else { Err(Unsupported) }
}

/// The offset of the closing quote of a string without escapes (`rest` starts after the
/// opening quote); [`Unsupported`] when it has an escape or a control character.
fn find_plain_end(rest: &[u8]) -> Result<usize, Unsupported> {
    for (offset, &byte) in rest.iter().enumerate() {
        match byte {
            b'"' => return Ok(offset),
            b'\\' | 0x00..=0x1f => return Err(Unsupported),
            _ => {}
        }
    }
    Err(Unsupported)
}

/// Copies the string literal at `at` (its opening quote) to `out` as serde_json writes it; the
/// offset after its closing quote.
fn string(raw: &str, at: usize, out: &mut String) -> Result<usize, Unsupported> {
    let bytes = raw.as_bytes();
    out.push('"');
    let mut at = at + 1;
    loop {
        // The run of bytes up to the next quote, backslash or control character is copied as is.
        let run = bytes
            .get(at..)
            .ok_or(Unsupported)?
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .ok_or(Unsupported)?;
        out.push_str(raw.get(at..at + run).ok_or(Unsupported)?);
        at += run;
        match bytes.get(at) {
            Some(b'"') => {
                out.push('"');
                return Ok(at + 1);
            }
            Some(b'\\') => {
                let (c, next) = escape(bytes, at)?;
                push_escaped(c, out);
                at = next;
            }
            _ => return Err(Unsupported),
        }
    }
}

/// The character of the escape at `at` (its backslash) and the offset after it.
fn escape(bytes: &[u8], at: usize) -> Result<(char, usize), Unsupported> {
    let c = match bytes.get(at + 1).ok_or(Unsupported)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4(bytes, at + 2)?;
            if (0xD800..0xDC00).contains(&unit) {
                // A high surrogate counts only with a low one right after it.
                if bytes.get(at + 6) != Some(&b'\\') || bytes.get(at + 7) != Some(&b'u') {
                    return Err(Unsupported);
                }
                let low = hex4(bytes, at + 8)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return Err(Unsupported);
                }
                let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return Ok((char::from_u32(code).ok_or(Unsupported)?, at + 12));
            }
            return Ok((char::from_u32(unit).ok_or(Unsupported)?, at + 6));
        }
        _ => return Err(Unsupported),
    };
    Ok((c, at + 2))
}

fn hex4(bytes: &[u8], at: usize) -> Result<u32, Unsupported> {
    let digits = bytes.get(at..at + 4).ok_or(Unsupported)?;
    let text = std::str::from_utf8(digits).map_err(|_| Unsupported)?;
    u32::from_str_radix(text, 16).map_err(|_| Unsupported)
}

/// Writes `c` inside a string as serde_json does: `"` and `\` escaped, control characters as
/// `\b \t \n \f \r` or `\u00xx`, everything else as itself.
fn push_escaped(c: char, out: &mut String) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{8}' => out.push_str("\\b"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\u{c}' => out.push_str("\\f"),
        '\r' => out.push_str("\\r"),
        '\u{0}'..='\u{1f}' => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let byte = c as u8;
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        _ => out.push(c),
    }
}

/// Copies the number at `at` as serde_json keeps it (`arbitrary_precision`: its digits as
/// written, the exponent marker as `e` followed by its sign); the offset after it.
fn number(bytes: &[u8], mut at: usize, out: &mut String) -> Result<usize, Unsupported> {
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'0'..=b'9' | b'-' | b'+' | b'.' => out.push(char::from(byte)),
            b'e' | b'E' => {
                out.push('e');
                if !matches!(bytes.get(at + 1), Some(b'+' | b'-')) {
                    out.push('+');
                }
            }
            _ => break,
        }
        at += 1;
    }
    Ok(at)
}

fn literal(raw: &str, at: usize, word: &str, out: &mut String) -> Result<usize, Unsupported> {
    if raw.get(at..at + word.len()) != Some(word) {
        return Err(Unsupported);
    }
    out.push_str(word);
    Ok(at + word.len())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the tree path writes for `text`.
    fn through_tree(text: &str) -> Option<String> {
        serde_json::from_str::<Value>(text).ok().map(|value| value.to_string())
    }

    #[test]
    fn writes_what_serde_json_writes() {
        for text in [
            r#"[ 1 , {"x" : null, "y":[true,false] } ]"#,
            "1.5E300",
            "1e5",
            "1E-5",
            "-0",
            "0.000",
            "12345678901234567890123",
            r#""\u00e9\/\u0001\u001F\u007f\ud83d\ude00\b\f\n\r\t\"\\""#,
            "\"\u{2028}é\"",
            " {\"a\":\"\\u0000\"} ",
        ] {
            assert_eq!(canonical(text).ok(), through_tree(text), "{text}");
        }
    }

    #[test]
    fn leaves_what_the_tree_decides_to_the_tree() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"\u0061":1}"#,
            r#""\ud800""#,
            r#""\udc00x""#,
            r#""\ud800\u0041""#,
            "[1,2",
            "]",
            "nul",
        ] {
            assert_eq!(canonical(text), Err(Unsupported), "{text}");
        }
        let deep = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert_eq!(canonical(&deep), Err(Unsupported));
        assert_eq!(through_tree(&deep), None);
        let shallow = "[".repeat(MAX_DEPTH - 1) + &"]".repeat(MAX_DEPTH - 1);
        assert_eq!(canonical(&shallow).ok(), through_tree(&shallow));
        let wide = (0..=MAX_KEYS_SCANNED).map(|n| format!("\"k{n}\":{n}")).collect::<Vec<_>>();
        assert_eq!(canonical(&format!("{{{}}}", wide.join(","))), Err(Unsupported));
        assert!(canonical(&format!("{{{}}}", wide[1..].join(","))).is_ok());
    }

    #[test]
    fn data_keeps_the_text_and_builds_the_tree_on_demand() {
        let raw = RawValue::from_string(r#"{ "b": 1E2, "a": [ "x" ] }"#.to_owned()).ok();
        let data = raw.as_deref().map(Data::from_raw);
        let Some(Ok(Some(data))) = data else { panic!("no data: {data:?}") };
        assert_eq!(data.json(), r#"{"b":1e+2,"a":["x"]}"#);
        assert!(data.is_object());
        assert!(data.tree.get().is_none());
        assert_eq!(data.tree_once().to_string(), data.json());
        assert!(data.tree.get().is_none(), "a one-time look keeps no tree");
        assert_eq!(data.tree()["a"][0], "x");
        assert!(data.tree.get().is_some());
        let null = RawValue::from_string(" null ".to_owned()).ok();
        assert!(matches!(null.as_deref().map(Data::from_raw), Some(Ok(None))));
        assert!(Data::from_value(Value::Null).is_none());
    }

    /// Any JSON value, with whitespace, escapes and number spellings serde_json rewrites.
    pub(crate) fn json_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just(" false ".to_owned()),
            "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
            prop::collection::vec(
                prop_oneof![
                    Just("a b".to_owned()),
                    Just("\u{e9}\u{1F600}\u{2028}\u{7f}".to_owned()),
                    Just(r#"\"\\\/\b\f\n\r\t"#.to_owned()),
                    Just(r"\uD83D\uDE00".to_owned()),
                    "\\\\u[0-9a-fA-F]{4}",
                ],
                0..5,
            )
            .prop_map(|fragments| format!("\"{}\"", fragments.concat())),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6)
                    .prop_map(|v| format!("[ {} ]", v.join(" , "))),
                prop::collection::vec(("[a-c]{1,2}", inner), 0..6).prop_map(|entries| {
                    // Unique keys, in the order generated (duplicates have their own test).
                    let mut seen = Vec::new();
                    let body: Vec<String> = entries
                        .iter()
                        .filter(|(k, _)| {
                            !seen.contains(k) && {
                                seen.push(k.clone());
                                true
                            }
                        })
                        .map(|(k, v)| format!("\"{k}\" :\n{v}"))
                        .collect();
                    format!("{{{}}}", body.join(","))
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn equals_the_tree_path_wherever_it_answers(text in json_text()) {
            if let Ok(compact) = canonical(&text) {
                prop_assert_eq!(Some(compact), through_tree(&text));
            }
        }

        #[test]
        fn answers_for_text_without_duplicate_or_escaped_keys(
            values in prop::collection::vec(json_text(), 0..8)
        ) {
            let body: Vec<String> =
                values.iter().enumerate().map(|(n, v)| format!("\"k{n}\": {v}")).collect();
            let text = format!("{{ {} }}", body.join(" , "));
            // Only text with a lone surrogate escape may be refused.
            if let Ok(compact) = canonical(&text) {
                prop_assert_eq!(Some(compact), through_tree(&text));
            } else {
                prop_assert!(text.contains("\\u"), "refused: {}", text);
            }
        }

        #[test]
        fn prepared_arrays_are_the_data_of_their_values(
            texts in prop::collection::vec(json_text(), 0..6)
        ) {
            let values: Vec<Value> =
                texts.iter().filter_map(|t| serde_json::from_str(t).ok()).collect();
            let items: Vec<PreparedData> = values.iter().cloned().map(PreparedData::new).collect();
            let prepared = crate::ToolResult::success_prepared(PreparedData::array(&items));
            let built = crate::ToolResult::success(Value::Array(values));
            prop_assert_eq!(prepared.data_json(), built.data_json());
            prop_assert_eq!(prepared.data(), built.data());
        }

        #[test]
        fn never_panics(text in "\\PC*") {
            let _ = canonical(&text);
        }
    }
}
