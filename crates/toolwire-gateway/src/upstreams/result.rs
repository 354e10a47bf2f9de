//! An upstream's `tools/call` result, read from its JSON as sent (so that nothing a typed model
//! does not know is lost), becomes a `ToolResult` (DESIGN §15 "Results"): one text block holding
//! a legacy envelope or a v1 document goes through the core's parser; `isError` is a failure;
//! `structuredContent` is the data (an empty array wherever the declared schema wants an object
//! becomes `{}`: the bridge that sends `[]` for `{}`, at the root or inside its envelope); other
//! blocks are parts (with the audience their `annotations.audience` names); the upstream's
//! `_meta` is kept under `upstream/meta`, keyed by the
//! upstream's name — but for the protocol's own keys, which describe the hop, not the result.

use base64::Engine as _;
use serde_json::{Map, Value, json};
use toolwire_core::{
    Audience, ErrorCode, Part, Provenance, ResourceLinkPart, ToolError, ToolResult,
};

/// A converted result, and whether the `[]`→`{}` repair was applied (to be counted and logged).
#[derive(Debug)]
pub struct Converted {
    /// The result.
    pub result: ToolResult,
    /// Whether an empty array was read as the empty object the declaration wants.
    pub repaired: bool,
}

/// Reads `answer`, an MCP server's `CallToolResult` as JSON, as the `ToolResult` toolwire renders
/// for its own clients (DESIGN §15 "Results"); `upstream` names the server (the key of its
/// `_meta` in the extension area) and `output` is the tool's declared output schema, if any.
/// Never fails: what cannot be read as a document, data or a part is kept as text.
pub fn convert(answer: &Value, upstream: &str, output: Option<&Value>) -> Converted {
    let empty = Vec::new();
    let blocks = answer.get("content").and_then(Value::as_array).unwrap_or(&empty);
    let is_error = answer.get("isError").and_then(Value::as_bool).unwrap_or(false);
    let structured = answer.get("structuredContent").filter(|v| !v.is_null());
    let text_blocks: Vec<(&Value, &str)> = blocks
        .iter()
        .filter(|b| is_text(b))
        .filter_map(|b| Some((b, b.get("text").and_then(Value::as_str)?)))
        .collect();
    let texts: Vec<&str> = text_blocks.iter().map(|(_, text)| *text).collect();

    // A legacy envelope or a v1 document in the first text block: the core reads it whole (with
    // its dry run, other keys and parts), also beside `structuredContent` that is the same data.
    // The blocks after it that repeat its parts are its copies for clients that read only
    // `content` (what a compat-phase server, toolwire among them, sends).
    let document = texts.first().and_then(|text| read_as_result(text)).filter(|document| {
        let same_data = match structured {
            None => true,
            Some(sent) => document.data() == Some(sent),
        };
        // A document that succeeds in a result flagged `isError` is read as the failure below.
        same_data && (!is_error || document.is_failure())
    });
    if let Some(document) = document {
        let copies = document.parts().to_vec();
        let mut result = document;
        for block in blocks.iter().skip_while(|b| !is_text(b)).skip(1) {
            let part = match block.get("text").and_then(Value::as_str).filter(|_| is_text(block)) {
                Some(text) => Some(annotated(block, Part::text(text))),
                None => other_part(block),
            };
            if let Some(part) = part.filter(|part| !copies.contains(part)) {
                result = result.with_part(part);
            }
        }
        return kept_meta(answer, upstream, Converted { result, repaired: false });
    }
    let mut repaired = false;
    let mut result = match structured {
        _ if is_error => ToolResult::failure(upstream_error(structured, &texts)),
        Some(sent) => {
            let mut data = sent.clone();
            if let Some(schema) = output {
                repaired = repair_empty_arrays(&mut data, schema);
            }
            let mut result = ToolResult::success(data);
            // A text block that is the data written out is the upstream's copy for old clients.
            // Most often it is the very text of the data as the result holds it (compact JSON,
            // numbers as the upstream wrote them), which needs no parse. The parts are gathered
            // before any is added, as `written` borrows the result.
            let written = result.data_json().filter(|_| !repaired);
            let kept: Vec<_> = text_blocks
                .iter()
                .filter(|(_, text)| {
                    written != Some(*text)
                        && serde_json::from_str::<Value>(text).ok().as_ref() != Some(sent)
                })
                .map(|(block, text)| annotated(block, Part::text(*text)))
                .collect();
            for part in kept {
                result = result.with_part(part);
            }
            result
        }
        None => text_blocks.iter().fold(ToolResult::empty(), |r, (block, text)| {
            r.with_part(annotated(block, Part::text(*text)))
        }),
    };
    for block in blocks {
        if let Some(part) = other_part(block) {
            result = result.with_part(part);
        }
    }
    kept_meta(answer, upstream, Converted { result, repaired })
}

/// Reads each `[]` in `value` where `schema` declares an object (`"type": "object"`) as `{}`,
/// following `properties` down; says whether it changed anything.
fn repair_empty_arrays(value: &mut Value, schema: &Value) -> bool {
    let wants_object = match schema.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => {
            kinds.iter().any(|k| k == "object") && !kinds.iter().any(|k| k == "array")
        }
        _ => false,
    };
    match value {
        Value::Array(items) if items.is_empty() && wants_object => {
            *value = Value::Object(Map::new());
            true
        }
        Value::Object(members) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return false;
            };
            let mut repaired = false;
            for (name, member) in members.iter_mut() {
                if let Some(schema) = properties.get(name) {
                    repaired |= repair_empty_arrays(member, schema);
                }
            }
            repaired
        }
        _ => false,
    }
}

/// Whether `block` is a text block.
fn is_text(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("text")
}

/// `converted` with the upstream's `_meta` kept in the extension area, under its name, but for
/// the keys the protocol reserves (the upstream's `serverInfo` on 2026-07-28, say) and those of
/// an upstream toolwire's own rendering: they describe the hop, which the gateway's own answer
/// describes anew, and kept they would show the upstream's identity to every client.
fn kept_meta(answer: &Value, upstream: &str, mut converted: Converted) -> Converted {
    let meta: Map<String, Value> = answer
        .get("_meta")
        .and_then(Value::as_object)
        .map(|meta| {
            meta.iter()
                .filter(|(key, _)| !describes_the_hop(key))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        })
        .unwrap_or_default();
    if !meta.is_empty() {
        // `upstream` is a well-formed, unreserved namespace and `meta` a name: nothing to refuse.
        let kept = json!({ upstream: Value::Object(meta) });
        if let Err(e) = converted.result.add_extension("upstream", "meta", kept) {
            tracing::warn!(upstream, error = %e, "the upstream's _meta could not be kept");
        }
    }
    converted
}

/// Whether the `_meta` key `key` is the protocol's (a prefix with a `modelcontextprotocol` or
/// `mcp` label: `modelcontextprotocol.io/` as the specification reserves it, and the
/// `io.modelcontextprotocol/` its 2026-07-28 revision writes) or toolwire's own.
fn describes_the_hop(key: &str) -> bool {
    let Some((prefix, _)) = key.rsplit_once('/') else { return false };
    prefix == "dev.toolwire"
        || prefix.split('.').any(|label| label == "modelcontextprotocol" || label == "mcp")
}

/// The text as a result when it is a legacy envelope or a toolwire document.
fn read_as_result(text: &str) -> Option<ToolResult> {
    // Either has a `success` or a `format` member, whose key is written out or escaped (only a
    // `\u` escape writes a letter): text with none of the three is neither, and is not parsed.
    if !["success", "format", "\\u"].iter().any(|word| text.contains(word)) {
        return None;
    }
    let parsed = toolwire_core::parse_any(text.as_bytes()).ok()?;
    (!matches!(parsed.provenance(), Provenance::Passthrough(_))).then_some(parsed)
}

/// The failure of an `isError` result: the code and details of a structured error when the
/// upstream sent one (`{"error": {"code", "message", "details"}}`), else `tool_error` with its
/// text.
fn upstream_error(structured: Option<&Value>, texts: &[&str]) -> ToolError {
    let error = structured.and_then(|s| s.get("error")).and_then(Value::as_object);
    let text = texts.join("\n");
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| if text.is_empty() { "the tool failed".to_owned() } else { text });
    let code = error
        .and_then(|e| e.get("code"))
        .and_then(Value::as_str)
        .map_or(ErrorCode::ToolError, ErrorCode::parse);
    let failure = ToolError::new(code, message);
    match error.and_then(|e| e.get("details")).and_then(Value::as_object) {
        Some(details) => failure.with_details(details.clone()),
        None => failure,
    }
}

/// A block other than text as a part; `None` for text and for what cannot be read. A link or an
/// embedded resource whose URI is not one (RFC 3986, as every revision's schema requires) keeps
/// what it says as text or bytes rather than go out as a block no client may accept.
fn other_part(block: &Value) -> Option<Part> {
    lifted_part(block).map(|part| annotated(block, part))
}

/// `part` with the audience `block` names in `annotations.audience`, when it names one.
fn annotated(block: &Value, part: Part) -> Part {
    let roles = block.pointer("/annotations/audience").and_then(Value::as_array);
    match roles.and_then(|roles| Audience::from_roles(roles.iter().filter_map(Value::as_str))) {
        Some(audience) => part.for_audience(audience),
        None => part,
    }
}

/// [`other_part`] before its audience.
fn lifted_part(block: &Value) -> Option<Part> {
    let field = |name: &str| block.get(name).and_then(Value::as_str);
    match field("type")? {
        "image" | "audio" => {
            let data = base64::engine::general_purpose::STANDARD.decode(field("data")?).ok()?;
            Some(Part::binary(data, field("mimeType")?))
        }
        "resource_link" if !is_uri(field("uri")?) => Some(Part::text(format!(
            "Resource {}: {}",
            field("name").unwrap_or_default(),
            field("uri")?
        ))),
        "resource_link" => {
            let mut link = ResourceLinkPart::new(field("uri")?, field("name").unwrap_or(""));
            link.title = field("title").map(str::to_owned);
            link.description = field("description").map(str::to_owned);
            link.mime_type = field("mimeType").map(str::to_owned);
            link.size = block.get("size").and_then(Value::as_u64);
            Some(Part::resource_link_with(link))
        }
        "resource" => {
            let resource = block.get("resource")?;
            let text = |name: &str| resource.get(name).and_then(Value::as_str);
            let uri = text("uri")?;
            let mime = text("mimeType").map(str::to_owned);
            if !is_uri(uri) {
                return match (text("text"), text("blob")) {
                    (Some(body), _) => Some(Part::text(body)),
                    (None, Some(blob)) => {
                        let bytes = base64::engine::general_purpose::STANDARD.decode(blob).ok()?;
                        let mime = mime.unwrap_or_else(|| "application/octet-stream".to_owned());
                        Some(Part::binary(bytes, mime))
                    }
                    (None, None) => None,
                };
            }
            match (text("text"), text("blob")) {
                (Some(body), _) => Some(Part::embedded_text(uri, mime, body)),
                (None, Some(blob)) => {
                    let bytes = base64::engine::general_purpose::STANDARD.decode(blob).ok()?;
                    Some(Part::embedded_blob(uri, mime, bytes))
                }
                (None, None) => None,
            }
        }
        _ => None,
    }
}

/// Whether `text` is a URI as RFC 3986 defines one (a scheme, then the rest).
fn is_uri(text: &str) -> bool {
    fluent_uri::Uri::parse(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converted(answer: Value, wants_object: bool) -> Converted {
        let schema = wants_object.then(|| json!({"type": "object"}));
        convert(&answer, "shop", schema.as_ref())
    }

    #[test]
    fn a_legacy_envelope_in_one_text_block_is_read_by_the_core() {
        let text = r#"{"success":true,"data":{"id":7,"name":"Mug"},"dryRun":true}"#;
        let c = converted(json!({"content": [{"type": "text", "text": text}]}), true);
        assert_eq!(c.result.data_json(), Some(r#"{"id":7,"name":"Mug"}"#));
        assert!(matches!(c.result.provenance(), Provenance::LegacyEnvelope(_)));
        let failed = r#"{"success":false,"error":{"code":"not_found","message":"No product 9"}}"#;
        let c = converted(json!({"content": [{"type": "text", "text": failed}]}), true);
        let error = c.result.error().map(|e| (e.code.as_str().to_owned(), e.message.clone()));
        assert_eq!(error, Some(("not_found".to_owned(), "No product 9".to_owned())));
    }

    #[test]
    fn a_text_copy_of_the_structured_data_is_dropped_however_it_is_written() {
        // Read, as an upstream's answer is: the price keeps the upstream's digits.
        let structured: Value = serde_json::from_str(r#"{"id":7,"price":12.50,"name":"Mug"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        for copy in [
            r#"{"id":7,"price":12.50,"name":"Mug"}"#,
            "{\n  \"id\": 7, \"price\": 12.50, \"name\": \"Mug\"\n}",
        ] {
            let answer = json!({"content": [{"type": "text", "text": copy}, {"type": "text", "text": "Found it."}], "structuredContent": structured});
            let c = converted(answer, true);
            assert_eq!(c.result.data_json(), Some(r#"{"id":7,"price":12.50,"name":"Mug"}"#));
            assert_eq!(c.result.parts(), [Part::text("Found it.")], "{copy}");
        }
    }

    #[test]
    fn only_text_that_can_be_a_document_is_read_as_one() {
        let read = |text: &str| read_as_result(text).map(|r| r.data_json().map(str::to_owned));
        assert_eq!(read(r#"{"id":7,"name":"Mug"}"#), None);
        assert_eq!(read(r#"{"success":"yes","data":1}"#), None, "success is not a boolean");
        assert_eq!(read(r#"{"success":true,"data":1}"#), Some(Some("1".to_owned())));
        assert_eq!(read(r#"{"succ\u0065ss":true,"data":2}"#), Some(Some("2".to_owned())));
        assert_eq!(
            read(r#"{"form\u0061t":"toolwire.result.v1","data":3}"#),
            Some(Some("3".to_owned()))
        );
    }

    #[test]
    fn is_error_is_a_failure_with_the_upstream_code_when_it_sent_one() {
        let c = converted(
            json!({"content": [{"type": "text", "text": "disk full"}], "isError": true}),
            false,
        );
        let error = c.result.error().map(|e| (e.code.as_str().to_owned(), e.message.clone()));
        assert_eq!(error, Some(("tool_error".to_owned(), "disk full".to_owned())));
        let structured =
            json!({"error": {"code": "conflict", "message": "taken", "details": {"id": 1}}});
        let c = converted(
            json!({"content": [], "structuredContent": structured, "isError": true}),
            false,
        );
        let error = c
            .result
            .error()
            .map(|e| (e.code.as_str().to_owned(), e.message.clone(), e.details.clone()));
        let details = json!({"id": 1}).as_object().cloned();
        assert_eq!(error, Some(("conflict".to_owned(), "taken".to_owned(), details)));
    }

    #[test]
    fn an_empty_array_where_an_object_is_declared_is_repaired_and_counted() {
        let c = converted(
            json!({"content": [{"type": "text", "text": "[]"}], "structuredContent": []}),
            true,
        );
        assert!(c.repaired);
        assert_eq!(c.result.data_json(), Some("{}"));
        assert!(c.result.parts().is_empty(), "the text copy of the data is dropped");
        let c = converted(json!({"content": [], "structuredContent": []}), false);
        assert!(!c.repaired);
        assert_eq!(c.result.data_json(), Some("[]"));
    }

    #[test]
    fn other_blocks_become_parts_and_meta_is_kept_under_the_upstream() {
        let answer = json!({
            "content": [
                {"type": "text", "text": "{\"n\":1}"},
                {"type": "text", "text": "see the chart"},
                {"type": "image", "data": "AAEC", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///r.csv", "name": "r.csv"},
                {"type": "resource", "resource": {"uri": "mem://a", "mimeType": "text/plain", "text": "hi"}}
            ],
            "structuredContent": {"n": 1},
            "_meta": {"trace": "abc"}
        });
        let c = converted(answer, true);
        assert_eq!(c.result.data_json(), Some(r#"{"n":1}"#));
        let parts = c.result.parts();
        assert_eq!(parts.len(), 4, "{parts:?}");
        assert_eq!(parts[0], Part::text("see the chart"));
        assert_eq!(parts[1], Part::binary(vec![0, 1, 2], "image/png"));
        assert_eq!(parts[2], Part::resource_link("file:///r.csv", "r.csv"));
        assert_eq!(parts[3], Part::embedded_text("mem://a", Some("text/plain".into()), "hi"));
        let kept = c.result.meta().extensions.get("upstream", "meta").cloned();
        assert_eq!(kept, Some(json!({"shop": {"trace": "abc"}})));
    }

    #[test]
    fn the_blocks_after_a_document_that_repeat_its_parts_are_dropped() {
        let envelope =
            r#"{"success":true,"data":null,"_meta":{"parts":[{"type":"text","text":"done"}]}}"#;
        let answer = json!({
            "content": [
                {"type": "text", "text": envelope},
                {"type": "text", "text": "done"},
                {"type": "text", "text": "and one more thing"}
            ]
        });
        let c = converted(answer, false);
        assert_eq!(c.result.parts(), [Part::text("done"), Part::text("and one more thing")]);
        assert!(matches!(c.result.provenance(), Provenance::LegacyEnvelope(_)));
    }

    #[test]
    fn an_empty_array_inside_an_envelope_is_repaired_where_the_schema_wants_an_object() {
        let schema = json!({
            "type": "object",
            "properties": {
                "success": {"type": "boolean"},
                "data": {"type": "object"},
                "tags": {"type": "array"}
            }
        });
        let answer = json!({
            "content": [{"type": "text", "text": "done"}],
            "structuredContent": {"success": true, "message": "done", "data": [], "tags": []}
        });
        let c = convert(&answer, "drupal", Some(&schema));
        assert!(c.repaired);
        assert_eq!(
            c.result.data_json(),
            Some(r#"{"success":true,"message":"done","data":{},"tags":[]}"#)
        );
        let untouched = json!({"content": [], "structuredContent": {"data": [1]}});
        assert!(!convert(&untouched, "drupal", Some(&schema)).repaired);
    }

    #[test]
    fn a_resource_link_keeps_what_describes_it() {
        let answer = json!({"content": [{
            "type": "resource_link", "uri": "demo://blob/1", "name": "Blob 1", "title": "One",
            "description": "Resource 1", "mimeType": "text/plain", "size": 12
        }]});
        let c = converted(answer, false);
        let mut link = ResourceLinkPart::new("demo://blob/1", "Blob 1");
        link.title = Some("One".into());
        link.description = Some("Resource 1".into());
        link.mime_type = Some("text/plain".into());
        link.size = Some(12);
        assert_eq!(c.result.parts(), [Part::resource_link_with(link)]);
    }

    #[test]
    fn the_protocol_s_own_meta_keys_are_not_kept() {
        let answer = json!({
            "content": [{"type": "text", "text": "hi"}],
            "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "shop", "version": "1.2"},
                "dev.mcp/trace": "x",
                "dev.toolwire/generatedAt": "2026-12-03T00:00:00Z",
                "com.example/trace": "abc",
                "mcp/plain": 1,
                "modelcontextprotocol.io/x": 2
            }
        });
        let c = converted(answer, false);
        let kept = c.result.meta().extensions.get("upstream", "meta").cloned();
        assert_eq!(kept, Some(json!({"shop": {"com.example/trace": "abc"}})));
        let only_hop = json!({
            "content": [{"type": "text", "text": "hi"}],
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "shop"}}
        });
        assert!(converted(only_hop, false).result.meta().extensions.is_empty());
    }

    #[test]
    fn a_link_or_resource_without_a_uri_keeps_what_it_says() {
        let answer = json!({"content": [
            {"type": "resource_link", "uri": "not a uri", "name": "r"},
            {"type": "resource", "resource": {"uri": "mem//:a", "text": "hello"}},
            {"type": "resource", "resource": {"uri": "mem//:b", "blob": "AAE="}}
        ]});
        let c = converted(answer, false);
        assert_eq!(
            c.result.parts(),
            [
                Part::text("Resource r: not a uri"),
                Part::text("hello"),
                Part::binary(vec![0, 1], "application/octet-stream"),
            ]
        );
    }

    #[test]
    fn a_block_s_audience_is_its_part_s() {
        let answer = json!({
            "content": [
                {"type": "text", "text": "for the person", "annotations": {"audience": ["user"]}},
                {"type": "text", "text": "for the model", "annotations": {"audience": ["assistant"], "priority": 1}},
                {"type": "text", "text": "for nobody known", "annotations": {"audience": ["robot"]}},
                {"type": "image", "data": "AAEC", "mimeType": "image/png", "annotations": {"audience": ["user", "assistant"]}}
            ]
        });
        let parts = converted(answer, false).result.parts().to_vec();
        assert_eq!(
            parts,
            [
                Part::text("for the person").for_audience(Audience::User),
                Part::text("for the model").for_audience(Audience::Assistant),
                Part::text("for nobody known"),
                Part::binary(vec![0, 1, 2], "image/png").for_audience(Audience::Both),
            ]
        );
    }
}
