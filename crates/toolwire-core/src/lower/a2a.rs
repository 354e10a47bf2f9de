//! The one A2A lowering: a `Task` for A2A 0.3 (`kind` discriminators, `mimeType`, file parts)
//! and 1.0 (ProtoJSON: member-typed parts, `mediaType`, enum names), chosen by a small table of
//! differences.
//!
//! Success: a completed task with one artifact (`<task>-result`, named after the tool) holding D
//! (a data part; 0.3 wraps a non-object as `{"result": D}`), S, P and L, with M as artifact
//! metadata. Failure: a failed task whose `status.message` (`<task>-status`) carries E.message as
//! text and `{code, details}` as data; S, P and L go into the artifact (none when there are
//! none) and M into `Task.metadata`. A success with nothing to put in an artifact has none and
//! its M goes into `Task.metadata` (0.3 and 1.0 artifacts must hold at least one part). A
//! passthrough result is one text part. Metadata keys are the MCP `_meta` keys
//! (`<p>/generatedAt`, …); part metadata uses `<p>/title`, `<p>/description`, `<p>/size`,
//! `<p>/expiresAt`, `<p>/uri` and (0.3 text parts) `<p>/mimeType`. Codes are written verbatim (a free string).

use super::{Obj, stored_link_name, write_base64, write_map, write_prefixed_meta, write_str};
use crate::layout::Layout;
use crate::link::StoredLink;
use crate::part::{Part, ResourceContents};
use crate::target::A2aVersion;

/// The ids and names the caller gives a task.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskIds<'c> {
    /// The task id.
    pub(crate) task_id: &'c str,
    /// The context id.
    pub(crate) context_id: &'c str,
    /// The artifact name (the tool name).
    pub(crate) tool_name: &'c str,
    /// The `_meta` prefix for metadata keys.
    pub(crate) prefix: &'c str,
}

/// What differs between the two versions.
#[derive(Debug, Clone, Copy)]
struct Dialect {
    /// 0.3 writes `kind` discriminators and wraps file contents in `file`.
    kinds: bool,
    completed: &'static str,
    failed: &'static str,
    input_required: &'static str,
    agent: &'static str,
}

const fn dialect(version: A2aVersion) -> Dialect {
    match version {
        A2aVersion::V0_3 => Dialect {
            kinds: true,
            completed: "completed",
            failed: "failed",
            input_required: "input-required",
            agent: "agent",
        },
        A2aVersion::V1_0 => Dialect {
            kinds: false,
            completed: "TASK_STATE_COMPLETED",
            failed: "TASK_STATE_FAILED",
            input_required: "TASK_STATE_INPUT_REQUIRED",
            agent: "ROLE_AGENT",
        },
    }
}

/// Appends the `Task` of `layout` for `version` to `out`.
pub(crate) fn render(
    out: &mut String,
    layout: &Layout<'_>,
    version: A2aVersion,
    ids: &TaskIds<'_>,
) {
    let d = dialect(version);
    let result = layout.result();
    let failure = result.error();
    let mut parts = String::new();
    let count = write_artifact_parts(&mut parts, layout, d, ids.prefix);

    let mut task = Obj::open(out);
    if d.kinds {
        task.str("kind", "task");
    }
    task.str("id", ids.task_id);
    task.str("contextId", ids.context_id);
    let mut status = Obj::open(task.key("status"));
    let input = result.input_required_requests();
    // The status message: text, then data (`{code, details}` or `{"inputRequests"}`).
    let message_parts = match (failure, input) {
        (Some(error), _) => {
            let mut data = String::new();
            let mut inner = Obj::open(&mut data);
            inner.str("code", error.code.as_str());
            if let Some(details) = &error.details {
                write_map(inner.key("details"), details);
            }
            inner.close();
            status.str("state", d.failed);
            Some((error.message.clone(), data))
        }
        (None, Some(input)) => {
            let mut data = String::new();
            let mut inner = Obj::open(&mut data);
            write_map(inner.key("inputRequests"), &input.requests_value());
            inner.close();
            status.str("state", d.input_required);
            Some((result.summary().map_or_else(|| input.describe(), str::to_owned), data))
        }
        (None, None) => {
            status.str("state", d.completed);
            None
        }
    };
    if let Some((text, data)) = message_parts {
        let mut message = Obj::open(status.key("message"));
        if d.kinds {
            message.str("kind", "message");
        }
        let message_id = format!("{}-status", ids.task_id);
        message.str("messageId", &message_id);
        message.str("taskId", ids.task_id);
        message.str("contextId", ids.context_id);
        message.str("role", d.agent);
        let list = message.key("parts");
        list.push('[');
        text_part(list, d, &text);
        list.push(',');
        data_part(list, d, &data);
        list.push(']');
        message.close();
    }
    write_str(status.key("timestamp"), &layout.generated_at().to_string());
    status.close();
    let artifact_meta = count > 0 && result.is_success();
    if count > 0 {
        let list = task.key("artifacts");
        list.push('[');
        let mut artifact = Obj::open(list);
        artifact.str("artifactId", &format!("{}-result", ids.task_id));
        artifact.str("name", ids.tool_name);
        let out = artifact.key("parts");
        out.push('[');
        out.push_str(&parts);
        out.push(']');
        if artifact_meta {
            let mut meta = Obj::open(artifact.key("metadata"));
            write_prefixed_meta(&mut meta, layout, ids.prefix, true);
            meta.close();
        }
        artifact.close();
        list.push(']');
    }
    if !artifact_meta {
        let mut meta = Obj::open(task.key("metadata"));
        write_prefixed_meta(&mut meta, layout, ids.prefix, true);
        meta.close();
    }
    task.close();
}

/// Writes the artifact's parts (comma-separated, no brackets); returns how many.
fn write_artifact_parts(out: &mut String, layout: &Layout<'_>, d: Dialect, prefix: &str) -> usize {
    let result = layout.result();
    let mut count = 0;
    let mut next = |out: &mut String| {
        if count > 0 {
            out.push(',');
        }
        count += 1;
    };
    if let Some(raw) = layout.passthrough() {
        next(out);
        text_part(out, d, raw);
        return count;
    }
    if let Some(data) = layout.data_json() {
        next(out);
        let is_object = result.data().is_some_and(serde_json::Value::is_object);
        if d.kinds && !is_object {
            data_part(out, d, &format!("{{\"result\":{data}}}"));
        } else {
            data_part(out, d, data);
        }
    }
    // An input-required result's summary is its status message.
    if let Some(summary) = result.summary().filter(|_| !result.is_input_required()) {
        next(out);
        text_part(out, d, summary);
    }
    for part in result.parts() {
        next(out);
        write_part(out, d, part, prefix);
    }
    for link in result.stored_links() {
        next(out);
        write_stored_link(out, d, link, result.summary(), prefix);
    }
    count
}

fn text_part(out: &mut String, d: Dialect, text: &str) {
    let mut obj = Obj::open(out);
    if d.kinds {
        obj.str("kind", "text");
    }
    obj.str("text", text);
    obj.close();
}

fn data_part(out: &mut String, d: Dialect, json: &str) {
    let mut obj = Obj::open(out);
    if d.kinds {
        obj.str("kind", "data");
    }
    obj.raw("data", json);
    if !d.kinds {
        obj.str("mediaType", "application/json");
    }
    obj.close();
}

/// What a file part holds: bytes or a URI.
enum FileContent<'a> {
    Bytes(&'a [u8]),
    Uri(&'a str),
}

/// Writes a file part: 0.3 `{"kind":"file","file":{bytes|uri, name, mimeType}}`, 1.0
/// `{raw|url, filename, mediaType}`; then the part metadata (already written members).
fn file_part(
    out: &mut String,
    d: Dialect,
    content: FileContent<'_>,
    name: Option<&str>,
    mime: Option<&str>,
    metadata: &str,
) {
    let mut obj = Obj::open(out);
    if d.kinds {
        obj.str("kind", "file");
        let mut file = Obj::open(obj.key("file"));
        match content {
            FileContent::Bytes(bytes) => write_base64(file.key("bytes"), bytes),
            FileContent::Uri(uri) => file.str("uri", uri),
        }
        if let Some(name) = name {
            file.str("name", name);
        }
        if let Some(mime) = mime {
            file.str("mimeType", mime);
        }
        file.close();
    } else {
        match content {
            FileContent::Bytes(bytes) => write_base64(obj.key("raw"), bytes),
            FileContent::Uri(uri) => obj.str("url", uri),
        }
        if let Some(name) = name {
            obj.str("filename", name);
        }
        if let Some(mime) = mime {
            obj.str("mediaType", mime);
        }
    }
    if !metadata.is_empty() {
        obj.raw("metadata", metadata);
    }
    obj.close();
}

/// Part metadata as JSON object text, or empty when there is none.
struct PartMeta<'p> {
    text: String,
    prefix: &'p str,
}

impl<'p> PartMeta<'p> {
    fn new(prefix: &'p str) -> Self {
        Self { text: String::new(), prefix }
    }

    fn str(&mut self, key: &str, value: &str) {
        self.open_member(key);
        write_str(&mut self.text, value);
    }

    fn uint(&mut self, key: &str, value: u64) {
        self.open_member(key);
        self.text.push_str(&value.to_string());
    }

    fn open_member(&mut self, key: &str) {
        self.text.push(if self.text.is_empty() { '{' } else { ',' });
        write_str(&mut self.text, &format!("{}/{key}", self.prefix));
        self.text.push(':');
    }

    fn finish(mut self) -> String {
        if !self.text.is_empty() {
            self.text.push('}');
        }
        self.text
    }
}

fn write_part(out: &mut String, d: Dialect, part: &Part, prefix: &str) {
    match part {
        Part::Text(text) => text_part(out, d, &text.text),
        Part::Binary(binary) => file_part(
            out,
            d,
            FileContent::Bytes(&binary.data),
            binary.name.as_deref(),
            Some(&binary.mime_type),
            "",
        ),
        Part::ResourceLink(link) => {
            let mut meta = PartMeta::new(prefix);
            if let Some(title) = &link.title {
                meta.str("title", title);
            }
            if let Some(description) = &link.description {
                meta.str("description", description);
            }
            if let Some(size) = link.size {
                meta.uint("size", size);
            }
            file_part(
                out,
                d,
                FileContent::Uri(&link.uri),
                Some(&link.name),
                link.mime_type.as_deref(),
                &meta.finish(),
            );
        }
        Part::EmbeddedResource(resource) => {
            let mut meta = PartMeta::new(prefix);
            meta.str("uri", &resource.uri);
            match &resource.contents {
                ResourceContents::Text(text) => {
                    // 0.3 text parts have no MIME type slot; 1.0 has `mediaType`.
                    if d.kinds
                        && let Some(mime) = &resource.mime_type
                    {
                        meta.str("mimeType", mime);
                    }
                    let mut obj = Obj::open(out);
                    if d.kinds {
                        obj.str("kind", "text");
                    }
                    obj.str("text", text);
                    if !d.kinds
                        && let Some(mime) = &resource.mime_type
                    {
                        obj.str("mediaType", mime);
                    }
                    obj.raw("metadata", &meta.finish());
                    obj.close();
                }
                ResourceContents::Blob(blob) => file_part(
                    out,
                    d,
                    FileContent::Bytes(blob),
                    None,
                    resource.mime_type.as_deref(),
                    &meta.finish(),
                ),
            }
        }
    }
}

fn write_stored_link(
    out: &mut String,
    d: Dialect,
    link: &StoredLink,
    summary: Option<&str>,
    prefix: &str,
) {
    let mut meta = PartMeta::new(prefix);
    meta.str("title", "Full result");
    if let Some(description) = summary.or(link.description.as_deref()) {
        meta.str("description", description);
    }
    if let Some(size) = link.size {
        meta.uint("size", size);
    }
    if let Some(at) = &link.expires_at {
        meta.str("expiresAt", &at.to_string());
    }
    file_part(
        out,
        d,
        FileContent::Uri(&link.uri),
        Some(&stored_link_name(link)),
        Some(&link.mime_type),
        &meta.finish(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_metadata_is_empty_or_an_object() {
        assert_eq!(PartMeta::new("p").finish(), "");
        let mut meta = PartMeta::new("dev.toolwire");
        meta.str("title", "T");
        meta.uint("size", 3);
        assert_eq!(meta.finish(), r#"{"dev.toolwire/title":"T","dev.toolwire/size":3}"#);
    }
}
