//! An OpenAPI document as toolwire reads it: JSON or YAML, bounded in size, depth and alias
//! expansion, OpenAPI 3.0.x or 3.1.x (Swagger 2.0 refused by name), and local `$ref`s resolved by
//! JSON pointer. The document stays a `serde_json::Value`: no OpenAPI model crate reads both 3.0
//! and 3.1, and schemas must stay raw JSON anyway to be rewritten into each tool's `$defs`.

use serde_json::Value;

/// The largest document toolwire reads: 64 MiB (GitHub's REST description is about 12 MiB).
pub const SPEC_LIMIT: usize = 64 * 1024 * 1024;

/// The deepest nesting a document may have: real documents stay under 30 levels, and the
/// conversion of schemas recurses this deep at most.
const MAX_DEPTH: usize = 64;

/// The most `$ref` hops followed to reach one value (a chain longer than this is a cycle or
/// an attack).
const MAX_HOPS: usize = 32;

/// Which OpenAPI version a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// 3.0.x: schemas are OpenAPI's own dialect (`nullable`, boolean `exclusiveMinimum`).
    V30,
    /// 3.1.x: schemas are JSON Schema 2020-12.
    V31,
}

/// Why a document cannot be used: where in it (a JSON pointer, empty for the whole) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", if pointer.is_empty() { "the document".to_owned() } else { format!("at {pointer}") })]
pub struct SpecError {
    /// The JSON pointer of the offending value (`/paths/~1items/get`), empty for the whole.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl SpecError {
    /// An error at `pointer`.
    pub fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self { pointer: pointer.into(), message: message.into() }
    }
}

/// A parsed OpenAPI document.
#[derive(Debug, Clone)]
pub struct Document {
    root: Value,
    version: Version,
}

impl Document {
    /// Parses `bytes`: JSON when the first non-blank byte is `{`, else YAML. Refused: more than
    /// [`SPEC_LIMIT`] bytes, nesting deeper than 128, YAML alias bombs, Swagger 2.0, anything
    /// that is not OpenAPI 3.0.x or 3.1.x with a `paths` object.
    pub fn parse(bytes: &[u8]) -> Result<Self, SpecError> {
        if bytes.len() > SPEC_LIMIT {
            return Err(SpecError::at(
                "",
                format!("it is {} bytes, over the limit of {SPEC_LIMIT} bytes", bytes.len()),
            ));
        }
        let json = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        let root: Value = if json {
            serde_json::from_slice(bytes)
                .map_err(|e| SpecError::at("", format!("not valid JSON: {e}")))?
        } else {
            parse_yaml(bytes)?
        };
        if depth_over(&root, MAX_DEPTH) {
            return Err(SpecError::at("", format!("it nests deeper than {MAX_DEPTH} levels")));
        }
        let Some(object) = root.as_object() else {
            return Err(SpecError::at("", "it is not an object".to_owned()));
        };
        if let Some(swagger) = object.get("swagger") {
            return Err(SpecError::at(
                "/swagger",
                format!(
                    "this is a Swagger {} document; toolwire reads OpenAPI 3.0 and 3.1 (convert it first, e.g. with swagger2openapi)",
                    swagger.as_str().unwrap_or("2.0")
                ),
            ));
        }
        let version = match object.get("openapi").and_then(Value::as_str) {
            Some(v) if v.starts_with("3.0.") || v == "3.0" => Version::V30,
            Some(v) if v.starts_with("3.1.") || v == "3.1" => Version::V31,
            Some(v) => {
                return Err(SpecError::at(
                    "/openapi",
                    format!("OpenAPI `{v}` is not supported; toolwire reads 3.0.x and 3.1.x"),
                ));
            }
            None => {
                return Err(SpecError::at(
                    "/openapi",
                    "no `openapi` version: this is not an OpenAPI document".to_owned(),
                ));
            }
        };
        match object.get("paths") {
            Some(Value::Object(_)) => {}
            // 3.1 allows a document of webhooks or components only: it has no operations.
            None if version == Version::V31 => {}
            _ => return Err(SpecError::at("/paths", "`paths` is not an object".to_owned())),
        }
        Ok(Self { root, version })
    }

    /// The whole document.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// Its OpenAPI version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The value at a local reference (`#/components/schemas/Pet`), or why not.
    pub fn lookup(&self, reference: &str) -> Result<&Value, String> {
        let pointer = local_pointer(reference)?;
        self.root.pointer(&pointer).ok_or_else(|| format!("`{reference}` points at nothing"))
    }

    /// `value` with its `$ref` followed (and the target's, up to 32 hops): for parameters,
    /// request bodies and responses, which OpenAPI lets stand behind a reference.
    pub fn follow<'a>(&'a self, value: &'a Value) -> Result<&'a Value, String> {
        let mut current = value;
        for _ in 0..MAX_HOPS {
            match current.get("$ref").and_then(Value::as_str) {
                Some(reference) => current = self.lookup(reference)?,
                None => return Ok(current),
            }
        }
        Err(format!("more than {MAX_HOPS} `$ref`s in a row (a cycle?)"))
    }
}

/// The JSON pointer of a local reference (`#/a/b` → `/a/b`, percent-decoded), or why it is not
/// one toolwire follows (another document, a URL).
pub fn local_pointer(reference: &str) -> Result<String, String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(format!(
            "`{reference}` refers to another document; toolwire follows only references inside the document (#/…)"
        ));
    };
    if !fragment.is_empty() && !fragment.starts_with('/') {
        return Err(format!("`{reference}` is not a JSON pointer"));
    }
    percent_decode(fragment).ok_or_else(|| format!("`{reference}` has a broken %-escape"))
}

/// `text` with `%XX` escapes decoded; `None` when an escape is broken or the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A JSON pointer token for `key` (`~` → `~0`, `/` → `~1`).
pub fn escape_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// YAML into JSON values, within budgets that stop alias bombs and runaway documents.
fn parse_yaml(bytes: &[u8]) -> Result<Value, SpecError> {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_reader_input_bytes = Some(SPEC_LIMIT);
    budget.max_events = 20_000_000;
    budget.max_nodes = 10_000_000;
    budget.max_depth = MAX_DEPTH;
    budget.max_total_scalar_bytes = SPEC_LIMIT;
    // Anchors are rare in OpenAPI documents; an alias bomb is stopped early and cheaply.
    budget.max_recorded_anchor_events = 100_000;
    // OpenAPI documents are YAML 1.2: `n`, `no` and `off` are strings, `0755` and `1_000` too.
    let options = serde_saphyr::options! {
        budget: Some(budget),
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
    };
    serde_saphyr::from_slice_with_options(bytes, options)
        .map_err(|e| SpecError::at("", format!("not valid YAML (nor JSON): {}", first_line(&e))))
}

/// The first line of an error's text: YAML errors add a rendered snippet of the document.
fn first_line(error: &impl std::fmt::Display) -> String {
    error.to_string().lines().next().unwrap_or_default().to_owned()
}

/// Whether `value` nests deeper than `limit` (iterative: a hostile depth cannot overflow the
/// stack here).
fn depth_over(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        match Document::parse(text.as_bytes()) {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn versions_and_formats() {
        let json = Document::parse(br#"{"openapi":"3.0.3","info":{},"paths":{}}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(json.version(), Version::V30);
        let yaml = Document::parse(b"openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(yaml.version(), Version::V31);
        // An unquoted status code is a YAML integer; as a key it is read as its text.
        assert!(yaml.root().pointer("/paths/~1a/get/responses/200").is_some());
        // YAML 1.2: `n` and `no` are strings, not YAML 1.1's booleans.
        let plain =
            Document::parse(b"openapi: 3.1.0\npaths: {}\nx: [n, no, off, 0755, 1_000, true]\n")
                .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            plain.root().get("x"),
            Some(&serde_json::json!(["n", "no", "off", "0755", "1_000", true]))
        );
    }

    #[test]
    fn what_is_refused_says_why_and_where() {
        assert_eq!(
            refused(r#"{"swagger":"2.0","paths":{}}"#),
            "at /swagger: this is a Swagger 2.0 document; toolwire reads OpenAPI 3.0 and 3.1 (convert it first, e.g. with swagger2openapi)"
        );
        assert_eq!(
            refused(r#"{"openapi":"4.0.0","paths":{}}"#),
            "at /openapi: OpenAPI `4.0.0` is not supported; toolwire reads 3.0.x and 3.1.x"
        );
        assert_eq!(
            refused(r#"{"info":{}}"#),
            "at /openapi: no `openapi` version: this is not an OpenAPI document"
        );
        assert_eq!(
            refused(r#"{"openapi":"3.0.0","paths":[]}"#),
            "at /paths: `paths` is not an object"
        );
        assert_eq!(refused("[1]"), "the document: it is not an object");
        assert!(refused(r#"{"openapi":"3.0.0""#).starts_with("the document: not valid JSON: "));
        assert!(refused("a: [b\nc: d").starts_with("the document: not valid YAML (nor JSON): "));
    }

    #[test]
    fn hostile_documents_are_refused_not_followed() {
        let deep = format!(r#"{{"openapi":"3.1.0","x":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        assert!(refused(&deep).starts_with("the document: not valid JSON: recursion limit"));
        let nested = format!(r#"{{"openapi":"3.1.0","x":{}1{}}}"#, "[".repeat(70), "]".repeat(70));
        assert_eq!(refused(&nested), "the document: it nests deeper than 64 levels");
        let deep_yaml = format!("openapi: 3.1.0\nx: {}1{}\n", "[".repeat(200), "]".repeat(200));
        assert!(refused(&deep_yaml).starts_with("the document: not valid YAML"));
        let mut bomb = String::from("openapi: 3.1.0\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let p = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        assert!(refused(&bomb).starts_with("the document: not valid YAML"));
    }

    #[test]
    fn references_are_local_json_pointers() {
        let doc = Document::parse(
            br##"{"openapi":"3.0.0","paths":{},"components":{"schemas":{"a/b":{"type":"string"},"L":{"$ref":"#/components/schemas/M"},"M":{"$ref":"#/components/schemas/L"}}}}"##,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            doc.lookup("#/components/schemas/a~1b").ok(),
            Some(&serde_json::json!({"type": "string"}))
        );
        assert_eq!(
            doc.lookup("#/components/schemas/a%7E1b").ok(),
            Some(&serde_json::json!({"type": "string"}))
        );
        assert_eq!(
            doc.lookup("other.yaml#/Foo").err().as_deref(),
            Some(
                "`other.yaml#/Foo` refers to another document; toolwire follows only references inside the document (#/…)"
            )
        );
        assert_eq!(
            doc.lookup("#/components/schemas/Nope").err().as_deref(),
            Some("`#/components/schemas/Nope` points at nothing")
        );
        let cycle = serde_json::json!({"$ref": "#/components/schemas/L"});
        assert_eq!(
            doc.follow(&cycle).err().as_deref(),
            Some("more than 32 `$ref`s in a row (a cycle?)")
        );
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
    }
}
