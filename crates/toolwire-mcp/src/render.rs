//! Rendering a [`ToolResult`] as the `CallToolResult` of one MCP revision (DESIGN §3), and the
//! `resources/read` contents of a stored result (DESIGN §6).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};
use toolwire_core::{
    McpRevision, Metadata, Part, Phase, Provenance, ResourceContents, Shape, StoredLink, Timestamp,
    ToolResult,
};

/// What a render needs besides the result.
pub(crate) struct RenderContext<'a> {
    pub(crate) revision: McpRevision,
    pub(crate) phase: Phase,
    pub(crate) prefix: &'a str,
    pub(crate) server_name: &'a str,
    pub(crate) now: Timestamp,
    /// The declared output schema (data shape), when the tool declares one.
    pub(crate) output_schema: Option<&'a Value>,
    pub(crate) shape: Shape,
    /// The tool's input schema (added to envelope-shape `invalid_arguments` failures).
    pub(crate) input_schema: &'a Value,
}

/// The `CallToolResult` JSON for the revision.
pub(crate) fn call_tool_result(result: &ToolResult, cx: &RenderContext<'_>) -> Value {
    let mut out = Map::new();
    if cx.revision >= McpRevision::V2026_07_28 {
        out.insert("resultType".into(), json!("complete"));
    }
    let mut content = Vec::new();
    if let Provenance::Passthrough(raw) = result.provenance() {
        content.push(text_block(raw.clone()));
    } else {
        match cx.phase {
            Phase::Spec => spec_blocks(result, cx, &mut content),
            _ => content.push(text_block(legacy_envelope(result, cx))),
        }
        for (index, part) in result.parts().iter().enumerate() {
            content.push(part_block(part, index, cx));
        }
        for link in result.stored_links() {
            content.push(stored_link_block(link, result, cx));
        }
    }
    out.insert("content".into(), Value::Array(content));
    if cx.revision >= McpRevision::V2025_06_18
        && !result.is_passthrough()
        && let Some(structured) = structured_content(result, cx)
    {
        out.insert("structuredContent".into(), structured);
    }
    if result.is_failure() {
        out.insert("isError".into(), Value::Bool(true));
    }
    let mut meta = result_meta(result.meta(), cx, true);
    if cx.revision >= McpRevision::V2026_07_28 {
        meta.insert(
            "io.modelcontextprotocol/serverInfo".into(),
            json!({"name": cx.server_name, "version": env!("CARGO_PKG_VERSION")}),
        );
    }
    if !meta.is_empty() {
        out.insert("_meta".into(), Value::Object(meta));
    }
    Value::Object(out)
}

fn text_block(text: String) -> Value {
    json!({"type": "text", "text": text})
}

fn compact(value: &Value) -> String {
    // Serializing a `Value` cannot fail: every key is a string.
    serde_json::to_string(value).unwrap_or_default()
}

/// The result `_meta` under the prefix (timestamps only when `with_times`).
fn result_meta(meta: &Metadata, cx: &RenderContext<'_>, with_times: bool) -> Map<String, Value> {
    let p = cx.prefix;
    let mut out = Map::new();
    if with_times {
        let generated = meta.generated_at.unwrap_or(cx.now);
        out.insert(format!("{p}/generatedAt"), json!(generated.to_string()));
        if let Some(expires) = meta.expires_at {
            out.insert(format!("{p}/expiresAt"), json!(expires.to_string()));
        }
    }
    for (key, value) in well_known(meta) {
        out.insert(format!("{p}/{key}"), value);
    }
    for (namespace, key, value) in meta.extensions.iter() {
        out.insert(format!("{namespace}/{key}"), value.clone());
    }
    out
}

/// `dryRun`, `pagination`, `responseSize`, `query`, in that order, unprefixed.
fn well_known(meta: &Metadata) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    if let Some(dry_run) = meta.dry_run {
        out.push(("dryRun", json!(dry_run)));
    }
    if let Some(p) = &meta.pagination {
        let mut page = Map::new();
        if let Some(total) = p.total {
            page.insert("total".into(), json!(total));
        }
        if let Some(n) = p.page {
            page.insert("page".into(), json!(n));
        }
        if let Some(limit) = p.limit {
            page.insert("limit".into(), json!(limit));
        }
        if let Some(cursor) = &p.next_cursor {
            page.insert("nextCursor".into(), json!(cursor));
        }
        out.push(("pagination", Value::Object(page)));
    }
    if let Some(size) = meta.response_size {
        out.push(("responseSize", json!(size)));
    }
    if let Some(query) = &meta.query {
        out.push(("query", json!({"tool": query.tool, "arguments": query.arguments})));
    }
    out
}

/// The legacy envelope text (DESIGN §3 "Legacy target").
fn legacy_envelope(result: &ToolResult, cx: &RenderContext<'_>) -> String {
    if let Provenance::LegacyEnvelope(raw) = result.provenance() {
        return raw.clone();
    }
    let mut envelope = Map::new();
    match result.error() {
        None => {
            envelope.insert("success".into(), json!(true));
            envelope.insert("data".into(), result.data().cloned().unwrap_or(Value::Null));
        }
        Some(error) => {
            envelope.insert("success".into(), json!(false));
            envelope.insert("error".into(), json!(error.message));
            envelope.insert("code".into(), json!(error.code.as_str()));
            if let Some(details) = &error.details {
                envelope.insert("details".into(), Value::Object(details.clone()));
            }
        }
    }
    let meta = result.meta();
    let mut legacy_meta = Map::new();
    for (key, value) in well_known(meta) {
        legacy_meta.insert(key.into(), value);
    }
    legacy_meta
        .insert("generatedAt".into(), json!(meta.generated_at.unwrap_or(cx.now).to_string()));
    if let Some(expires) = meta.expires_at {
        legacy_meta.insert("expiresAt".into(), json!(expires.to_string()));
    }
    if let Some(summary) = result.summary() {
        legacy_meta.insert("summary".into(), json!(summary));
    }
    if let Some(first) = result.stored_links().first() {
        legacy_meta.insert("resourceUri".into(), json!(first.uri));
        legacy_meta.insert("note".into(), json!(stored_note(first)));
    }
    if !result.parts().is_empty() {
        let parts: Vec<Value> = result.parts().iter().map(part_without_payload).collect();
        legacy_meta.insert("parts".into(), Value::Array(parts));
    }
    for (namespace, key, value) in meta.extensions.iter() {
        legacy_meta.insert(format!("{namespace}/{key}"), value.clone());
    }
    envelope.insert("_meta".into(), Value::Object(legacy_meta));
    compact(&Value::Object(envelope))
}

/// The v1 JSON of a part without its `data`/`blob` payload (that travels as a block).
fn part_without_payload(part: &Part) -> Value {
    match part {
        Part::Text(t) => json!({"type": "text", "text": t.text}),
        Part::Binary(b) => {
            let mut v = json!({"type": "binary", "mimeType": b.mime_type});
            if let (Some(name), Value::Object(map)) = (&b.name, &mut v) {
                map.insert("name".into(), json!(name));
            }
            v
        }
        Part::ResourceLink(l) => resource_link_fields("resource_link", l),
        Part::EmbeddedResource(e) => {
            let mut v = json!({"type": "embedded_resource", "uri": e.uri});
            if let (Some(mime), Value::Object(map)) = (&e.mime_type, &mut v) {
                map.insert("mimeType".into(), json!(mime));
            }
            v
        }
        _ => json!({"type": "unknown"}),
    }
}

fn resource_link_fields(kind: &str, l: &toolwire_core::ResourceLinkPart) -> Value {
    let mut map = Map::new();
    map.insert("type".into(), json!(kind));
    map.insert("uri".into(), json!(l.uri));
    map.insert("name".into(), json!(l.name));
    if let Some(title) = &l.title {
        map.insert("title".into(), json!(title));
    }
    if let Some(description) = &l.description {
        map.insert("description".into(), json!(description));
    }
    if let Some(mime) = &l.mime_type {
        map.insert("mimeType".into(), json!(mime));
    }
    if let Some(size) = l.size {
        map.insert("size".into(), json!(size));
    }
    Value::Object(map)
}

/// Phase `spec`: data, summary, error, metadata as separate text blocks.
fn spec_blocks(result: &ToolResult, cx: &RenderContext<'_>, content: &mut Vec<Value>) {
    let start = content.len();
    if let Some(data) = result.data() {
        content.push(text_block(compact(data)));
    }
    if let Some(summary) = result.summary() {
        content.push(text_block(summary.to_owned()));
    }
    if let Some(error) = result.error() {
        content.push(text_block(error.message.clone()));
        let mut inner = Map::new();
        inner.insert("code".into(), json!(error.code.as_str()));
        if let Some(details) = &error.details {
            inner.insert("details".into(), Value::Object(details.clone()));
        }
        content.push(text_block(compact(&json!({"error": inner}))));
    }
    let meta = result_meta(result.meta(), cx, false);
    if !meta.is_empty() {
        content.push(text_block(compact(&json!({"_meta": meta}))));
    }
    if content.len() == start && result.parts().is_empty() && result.stored_links().is_empty() {
        content.push(text_block("null".into()));
    }
}

fn part_block(part: &Part, index: usize, cx: &RenderContext<'_>) -> Value {
    let block_meta = cx.revision >= McpRevision::V2025_06_18;
    match part {
        Part::Text(t) => text_block(t.text.clone()),
        Part::Binary(b) => {
            let data = STANDARD.encode(&b.data);
            let is_image = b.mime_type.starts_with("image/");
            let is_audio = b.mime_type.starts_with("audio/");
            let mut block = if is_image || (is_audio && cx.revision >= McpRevision::V2025_03_26) {
                let kind = if is_image { "image" } else { "audio" };
                json!({"type": kind, "data": data, "mimeType": b.mime_type})
            } else {
                let uri = match &b.name {
                    Some(name) => format!("toolwire://part/{index}/{name}"),
                    None => format!("toolwire://part/{index}"),
                };
                json!({"type": "resource", "resource": {"uri": uri, "mimeType": b.mime_type, "blob": data}})
            };
            if block_meta && let (Some(name), Value::Object(map)) = (&b.name, &mut block) {
                map.insert("_meta".into(), json!({format!("{}/name", cx.prefix): name}));
            }
            block
        }
        Part::ResourceLink(l) => {
            if cx.revision >= McpRevision::V2025_06_18 {
                resource_link_fields("resource_link", l)
            } else {
                let mut text =
                    format!("Resource {}: {}", l.title.as_ref().unwrap_or(&l.name), l.uri);
                let facts: Vec<String> = l
                    .mime_type
                    .iter()
                    .cloned()
                    .chain(l.size.map(|s| format!("{s} bytes")))
                    .collect();
                if !facts.is_empty() {
                    text.push_str(&format!(" ({})", facts.join(", ")));
                }
                if let Some(description) = &l.description {
                    text.push_str(&format!(" — {description}"));
                }
                text_block(text)
            }
        }
        Part::EmbeddedResource(e) => {
            let mut resource = Map::new();
            resource.insert("uri".into(), json!(e.uri));
            if let Some(mime) = &e.mime_type {
                resource.insert("mimeType".into(), json!(mime));
            }
            match &e.contents {
                ResourceContents::Text(text) => resource.insert("text".into(), json!(text)),
                ResourceContents::Blob(bytes) => {
                    resource.insert("blob".into(), json!(STANDARD.encode(bytes)))
                }
                _ => resource.insert("text".into(), json!("")),
            };
            json!({"type": "resource", "resource": resource})
        }
        _ => text_block(String::new()),
    }
}

fn stored_note(link: &StoredLink) -> String {
    let size = link.size.map(|s| format!("{s} bytes, ")).unwrap_or_default();
    format!(
        "Full result stored at {} ({size}{}); read it with resources/read.",
        link.uri, link.mime_type
    )
}

fn stored_link_block(link: &StoredLink, result: &ToolResult, cx: &RenderContext<'_>) -> Value {
    if cx.revision < McpRevision::V2025_06_18 {
        return text_block(stored_note(link));
    }
    let id = link.toolwire_id().unwrap_or("stored");
    let mut map = Map::new();
    map.insert("type".into(), json!("resource_link"));
    map.insert("uri".into(), json!(link.uri));
    map.insert("name".into(), json!(format!("result-{id}.json")));
    map.insert("title".into(), json!("Full result"));
    let description = result
        .summary()
        .map(str::to_owned)
        .or(link.description.clone())
        .unwrap_or_else(|| stored_note(link));
    map.insert("description".into(), json!(description));
    map.insert("mimeType".into(), json!(link.mime_type));
    if let Some(size) = link.size {
        map.insert("size".into(), json!(size));
    }
    if let Some(expires) = link.expires_at {
        map.insert(
            "_meta".into(),
            json!({format!("{}/expiresAt", cx.prefix): expires.to_string()}),
        );
    }
    Value::Object(map)
}

fn structured_content(result: &ToolResult, cx: &RenderContext<'_>) -> Option<Value> {
    if cx.shape == Shape::Envelope {
        let mut envelope = Map::new();
        envelope.insert("success".into(), json!(result.is_success()));
        let message = match result.error() {
            Some(error) => error.message.clone(),
            None => result.summary().unwrap_or_default().to_owned(),
        };
        envelope.insert("message".into(), json!(message));
        let data = match (result.error(), result.data()) {
            (None, Some(data)) => data.clone(),
            _ => json!({}),
        };
        envelope.insert("data".into(), data);
        if result.error().is_some_and(|e| e.code == toolwire_core::ErrorCode::InvalidArguments) {
            envelope.insert("input_schema".into(), cx.input_schema.clone());
        }
        return Some(Value::Object(envelope));
    }
    let any_json = cx.revision >= McpRevision::V2026_07_28;
    match (result.error(), result.data()) {
        (None, Some(data)) => {
            let object_root = match cx.output_schema {
                Some(schema) => schema.get("type").and_then(Value::as_str) == Some("object"),
                None => data.is_object(),
            };
            Some(if any_json || object_root { data.clone() } else { json!({"result": data}) })
        }
        (None, None) => None,
        (Some(error), _) if cx.output_schema.is_none() => {
            let mut inner = Map::new();
            inner.insert("code".into(), json!(error.code.as_str()));
            inner.insert("message".into(), json!(error.message));
            if let Some(details) = &error.details {
                inner.insert("details".into(), Value::Object(details.clone()));
            }
            Some(json!({"error": inner}))
        }
        (Some(_), _) => None,
    }
}

/// The `contents` of a stored result: the data first, then one entry per part.
pub(crate) fn read_contents(uri: &str, result: &ToolResult) -> Vec<Value> {
    let mut contents = Vec::new();
    if let Some(data) = result.data() {
        contents.push(json!({"uri": uri, "mimeType": "application/json", "text": compact(data)}));
    }
    for (n, part) in result.parts().iter().enumerate() {
        let part_uri = format!("{uri}#part-{n}");
        let entry = match part {
            Part::Text(t) => json!({"uri": part_uri, "mimeType": "text/plain", "text": t.text}),
            Part::Binary(b) => {
                json!({"uri": part_uri, "mimeType": b.mime_type, "blob": STANDARD.encode(&b.data)})
            }
            Part::EmbeddedResource(e) => {
                let mut map = Map::new();
                map.insert("uri".into(), json!(part_uri));
                if let Some(mime) = &e.mime_type {
                    map.insert("mimeType".into(), json!(mime));
                }
                match &e.contents {
                    ResourceContents::Blob(bytes) => {
                        map.insert("blob".into(), json!(STANDARD.encode(bytes)))
                    }
                    ResourceContents::Text(text) => map.insert("text".into(), json!(text)),
                    _ => map.insert("text".into(), json!("")),
                };
                Value::Object(map)
            }
            Part::ResourceLink(l) => {
                json!({"uri": part_uri, "mimeType": "text/plain", "text": l.uri})
            }
            _ => continue,
        };
        contents.push(entry);
    }
    contents
}

#[cfg(test)]
mod tests {
    use toolwire_core::{ErrorCode, ToolError};

    use super::*;

    fn cx(revision: McpRevision, schema: Option<&Value>) -> RenderContext<'_> {
        RenderContext {
            revision,
            phase: Phase::Compat,
            prefix: "dev.toolwire",
            server_name: "toolwire",
            now: Timestamp::from_unix_seconds(0).unwrap_or_else(|| panic!("time")),
            output_schema: schema,
            shape: Shape::Data,
            input_schema: &Value::Null,
        }
    }

    #[test]
    fn compat_success_on_2025_06_18() {
        let result = ToolResult::success(json!({"id": 7}));
        assert_eq!(
            call_tool_result(&result, &cx(McpRevision::V2025_06_18, None)),
            json!({
                "content": [{"type": "text", "text": "{\"success\":true,\"data\":{\"id\":7},\"_meta\":{\"generatedAt\":\"1970-01-01T00:00:00Z\"}}"}],
                "structuredContent": {"id": 7},
                "_meta": {"dev.toolwire/generatedAt": "1970-01-01T00:00:00Z"}
            })
        );
    }

    #[test]
    fn failures_of_tools_with_a_schema_carry_no_structured_content() {
        let schema = json!({"type": "object"});
        let result = ToolResult::failure(ToolError::new(ErrorCode::NotFound, "No product 9"));
        let rendered = call_tool_result(&result, &cx(McpRevision::V2026_07_28, Some(&schema)));
        assert_eq!(rendered.get("structuredContent"), None);
        assert_eq!(rendered.get("isError"), Some(&json!(true)));
        assert_eq!(rendered.get("resultType"), Some(&json!("complete")));
        let without = call_tool_result(&result, &cx(McpRevision::V2025_11_25, None));
        assert_eq!(
            without.get("structuredContent"),
            Some(&json!({"error": {"code": "not_found", "message": "No product 9"}}))
        );
    }

    #[test]
    fn scalars_are_wrapped_before_2026() {
        let result = ToolResult::success(json!(42));
        let schema = json!({"type": "integer"});
        let old = call_tool_result(&result, &cx(McpRevision::V2025_06_18, Some(&schema)));
        assert_eq!(old.get("structuredContent"), Some(&json!({"result": 42})));
        let new = call_tool_result(&result, &cx(McpRevision::V2026_07_28, Some(&schema)));
        assert_eq!(new.get("structuredContent"), Some(&json!(42)));
        let oldest = call_tool_result(&result, &cx(McpRevision::V2025_03_26, Some(&schema)));
        assert_eq!(oldest.get("structuredContent"), None);
    }
}
