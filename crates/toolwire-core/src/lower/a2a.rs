//! The one A2A lowering: a `Task` for A2A 0.3 (`kind` discriminators, `mimeType`, file parts)
//! and 1.0 (ProtoJSON: member-typed parts, `mediaType`, enum names), chosen by a small table of
//! differences.
//!
//! Success: a completed task with one artifact (`<task>-result`, named after the tool) holding D
//! (a data part; 0.3 wraps a non-object as `{"value": D}` with part metadata
//! `data_part_compat: true`, the convention both official A2A SDKs convert to and from a 1.0
//! non-object data part; 1.0 data parts carry no `mediaType`), S, P and L, with M as artifact
//! metadata. Failure: a failed task whose `status.message` (`<task>-status`) carries E.message as
//! text and `{code, details}` as data; S, P and L go into the artifact (none when there are
//! none) and M into `Task.metadata`. A success with nothing to put in an artifact has none and
//! its M goes into `Task.metadata` (0.3 and 1.0 artifacts must hold at least one part). A
//! passthrough result is one text part. Metadata keys are the MCP `_meta` keys
//! (`<p>/generatedAt`, …); part metadata uses `<p>/title`, `<p>/description`, `<p>/size`,
//! `<p>/expiresAt`, `<p>/uri` and (0.3 text parts) `<p>/mimeType`. Codes are written verbatim (a free string).
//!
//! A task without a result ([`A2aTaskState`]: still working, or canceled) has a status alone:
//! its state, its time and, when the caller gives one, a status message of one text part (the
//! same `<task>-status` message id); no artifacts, no metadata.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{PrefixedMeta, stored_link_name};
use crate::form::{Base64, PrefixedKey};
use crate::input::InputRequests;
use crate::json_text::to_json_string;
use crate::layout::Layout;
use crate::link::StoredLink;
use crate::part::{Part, ResourceContents};
use crate::target::A2aVersion;
use crate::timestamp::Timestamp;

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
    working: &'static str,
    canceled: &'static str,
    agent: &'static str,
}

impl Dialect {
    /// The wire name of a state without a result.
    const fn state(self, state: A2aTaskState) -> &'static str {
        match state {
            A2aTaskState::Working => self.working,
            A2aTaskState::Canceled => self.canceled,
        }
    }
}

const fn dialect(version: A2aVersion) -> Dialect {
    match version {
        A2aVersion::V0_3 => Dialect {
            kinds: true,
            completed: "completed",
            failed: "failed",
            input_required: "input-required",
            working: "working",
            canceled: "canceled",
            agent: "agent",
        },
        A2aVersion::V1_0 => Dialect {
            kinds: false,
            completed: "TASK_STATE_COMPLETED",
            failed: "TASK_STATE_FAILED",
            input_required: "TASK_STATE_INPUT_REQUIRED",
            working: "TASK_STATE_WORKING",
            canceled: "TASK_STATE_CANCELED",
            agent: "ROLE_AGENT",
        },
    }
}
/// The `Task` of `layout` for `version`.
pub(crate) fn render(layout: &Layout<'_>, version: A2aVersion, ids: &TaskIds<'_>) -> String {
    to_json_string(&Task::new(layout, dialect(version), ids))
}

/// The state of an A2A task that has no result: one still running, or one that will never
/// have one.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum A2aTaskState {
    /// The call was accepted and is running: `working` (0.3), `TASK_STATE_WORKING` (1.0).
    Working,
    /// The call was canceled before it finished: `canceled` (0.3), `TASK_STATE_CANCELED` (1.0).
    Canceled,
}

/// The `Task` in `state` at `at` for `version`: no artifacts, no metadata, and `message` (when
/// given) as the one text part of the status message.
pub(crate) fn render_state(
    version: A2aVersion,
    state: A2aTaskState,
    ids: &TaskIds<'_>,
    at: Timestamp,
    message: Option<&str>,
) -> String {
    let d = dialect(version);
    let message = message.map(|text| Message::new(d, ids, Text::Borrowed(text), None));
    to_json_string(&Task::of_status(
        d,
        ids,
        Status { state: d.state(state), message, timestamp: at },
    ))
}

/// A `Task`: `kind` (0.3), `id`, `contextId`, `status`, `artifacts` (at most one), `metadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Task<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    id: &'a str,
    context_id: &'a str,
    status: Status<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    artifacts: Option<[Artifact<'a>; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<PrefixedMeta<'a>>,
}

impl<'a> Task<'a> {
    fn new(layout: &'a Layout<'_>, d: Dialect, ids: &TaskIds<'a>) -> Self {
        let parts = artifact_parts(layout, d, ids.prefix);
        // M goes with the artifact of a success, else on the task.
        let artifact_meta = !parts.is_empty() && layout.result().is_success();
        let metadata = || PrefixedMeta::new(*layout, ids.prefix, true);
        let artifacts = (!parts.is_empty()).then(|| {
            [Artifact {
                artifact_id: format!("{}-result", ids.task_id),
                name: ids.tool_name,
                parts,
                metadata: artifact_meta.then(metadata),
            }]
        });
        Self {
            artifacts,
            metadata: (!artifact_meta).then(metadata),
            ..Self::of_status(d, ids, Status::new(layout, d, ids))
        }
    }

    /// A task with its status alone.
    fn of_status(d: Dialect, ids: &TaskIds<'a>, status: Status<'a>) -> Self {
        Self {
            kind: d.kinds.then_some("task"),
            id: ids.task_id,
            context_id: ids.context_id,
            status,
            artifacts: None,
            metadata: None,
        }
    }
}

/// `status`: `state`, the `message` of a failure, an input request or a task without a result,
/// `timestamp`.
#[derive(Serialize)]
struct Status<'a> {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message<'a>>,
    timestamp: Timestamp,
}

impl<'a> Status<'a> {
    fn new(layout: &'a Layout<'_>, d: Dialect, ids: &TaskIds<'a>) -> Self {
        let result = layout.result();
        let (state, text, data) = match (result.error(), result.input_required_requests()) {
            (Some(error), _) => (
                d.failed,
                Text::Borrowed(error.message.as_str()),
                StatusData::Error { code: error.code.as_str(), details: error.details.as_ref() },
            ),
            (None, Some(input)) => (
                d.input_required,
                result.summary().map_or_else(|| Text::Owned(input.describe()), Text::Borrowed),
                StatusData::Input { input_requests: InputRequests(input) },
            ),
            (None, None) => {
                return Self {
                    state: d.completed,
                    message: None,
                    timestamp: layout.generated_at(),
                };
            }
        };
        let message = Message::new(d, ids, text, Some(data));
        Self { state, message: Some(message), timestamp: layout.generated_at() }
    }
}

/// `status.message`: the agent's, with id `<task>-status`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Message<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    message_id: String,
    task_id: &'a str,
    context_id: &'a str,
    role: &'static str,
    parts: StatusParts<'a>,
}

impl<'a> Message<'a> {
    fn new(d: Dialect, ids: &TaskIds<'a>, text: Text<'a>, data: Option<StatusData<'a>>) -> Self {
        Self {
            kind: d.kinds.then_some("message"),
            message_id: format!("{}-status", ids.task_id),
            task_id: ids.task_id,
            context_id: ids.context_id,
            role: d.agent,
            parts: StatusParts {
                text: TextPart::new(d, text),
                data: data.map(|data| DataPart::new(d, data)),
            },
        }
    }
}

/// The parts of a status message: text, then (a failure, an input request) data:
/// `{code, details}` or `{"inputRequests"}`.
struct StatusParts<'a> {
    text: TextPart<'a>,
    data: Option<DataPart<StatusData<'a>>>,
}

impl Serialize for StatusParts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let mut parts = serializer.serialize_seq(Some(1 + usize::from(self.data.is_some())))?;
        parts.serialize_element(&self.text)?;
        if let Some(data) = &self.data {
            parts.serialize_element(data)?;
        }
        parts.end()
    }
}

/// The data of a status message.
#[derive(Serialize)]
#[serde(untagged)]
enum StatusData<'a> {
    Error {
        code: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<&'a Map<String, Value>>,
    },
    Input {
        #[serde(rename = "inputRequests")]
        input_requests: InputRequests<'a>,
    },
}

/// The one artifact: `<task>-result`, named after the tool.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Artifact<'a> {
    artifact_id: String,
    name: &'a str,
    parts: Vec<A2aPart<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<PrefixedMeta<'a>>,
}

/// A part of the artifact.
#[derive(Serialize)]
#[serde(untagged)]
enum A2aPart<'a> {
    Text(TextPart<'a>),
    Data(DataPart<Data<'a>>),
    File(FilePart<'a>),
}

/// The artifact's parts: D, S, P, L (a passthrough result: its text alone).
fn artifact_parts<'a>(layout: &'a Layout<'_>, d: Dialect, prefix: &'a str) -> Vec<A2aPart<'a>> {
    let result = layout.result();
    if let Some(raw) = layout.passthrough() {
        return vec![A2aPart::Text(TextPart::new(d, Text::Borrowed(raw)))];
    }
    let mut parts = Vec::with_capacity(2 + result.parts().len() + result.stored_links().len());
    if let Some(data) = layout.data_raw() {
        let is_object = result.data.as_ref().is_some_and(crate::data::Data::is_object);
        parts.push(A2aPart::Data(if d.kinds && !is_object {
            DataPart {
                kind: Some("data"),
                data: Data::Wrapped { value: data },
                metadata: Some(DataCompat { data_part_compat: true }),
            }
        } else {
            DataPart::new(d, Data::Raw(data))
        }));
    }
    // An input-required result's summary is its status message.
    if let Some(summary) = result.summary().filter(|_| !result.is_input_required()) {
        parts.push(A2aPart::Text(TextPart::new(d, Text::Borrowed(summary))));
    }
    parts.extend(result.parts().iter().map(|part| lower_part(d, part, prefix)));
    parts.extend(
        result
            .stored_links()
            .iter()
            .map(|link| stored_link_part(d, link, result.summary(), prefix)),
    );
    parts
}

/// The text of a text part: borrowed, or made for it (an input request's description).
#[derive(Serialize)]
#[serde(untagged)]
enum Text<'a> {
    Borrowed(&'a str),
    Owned(String),
}

/// A text part: `kind` (0.3), `text`, `mediaType` (1.0), `metadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TextPart<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    text: Text<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    media_type: Option<&'a str>,
    #[serde(skip_serializing_if = "PartMeta::is_empty")]
    metadata: PartMeta<'a>,
}

impl<'a> TextPart<'a> {
    fn new(d: Dialect, text: Text<'a>) -> Self {
        Self { kind: d.kinds.then_some("text"), text, media_type: None, metadata: PartMeta::NONE }
    }
}

/// A data part: `kind` (0.3), `data`, `metadata`.
#[derive(Serialize)]
struct DataPart<D> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    data: D,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<DataCompat>,
}

impl<D> DataPart<D> {
    fn new(d: Dialect, data: D) -> Self {
        Self { kind: d.kinds.then_some("data"), data, metadata: None }
    }
}

/// The data of an artifact's data part: D, or (0.3, non-object D) `{"value": D}`.
#[derive(Serialize)]
#[serde(untagged)]
enum Data<'a> {
    Raw(&'a RawValue),
    Wrapped { value: &'a RawValue },
}

/// The part metadata of a wrapped 0.3 data part.
#[derive(Serialize)]
struct DataCompat {
    data_part_compat: bool,
}

/// What a file part holds: bytes or a URI.
enum FileContent<'a> {
    Bytes(&'a [u8]),
    Uri(&'a str),
}

/// A file part: 0.3 `{"kind":"file","file":{bytes|uri, name, mimeType},"metadata"}`, 1.0
/// `{raw|url, filename, mediaType, metadata}`.
#[derive(Serialize)]
#[serde(untagged)]
enum FilePart<'a> {
    V0_3 {
        kind: &'static str,
        file: File0_3<'a>,
        #[serde(skip_serializing_if = "PartMeta::is_empty")]
        metadata: PartMeta<'a>,
    },
    V1_0 {
        #[serde(skip_serializing_if = "Option::is_none")]
        raw: Option<Base64<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        filename: Option<Text<'a>>,
        #[serde(rename = "mediaType", skip_serializing_if = "Option::is_none")]
        media_type: Option<&'a str>,
        #[serde(skip_serializing_if = "PartMeta::is_empty")]
        metadata: PartMeta<'a>,
    },
}

/// The `file` of a 0.3 file part.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct File0_3<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<Base64<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
}

fn file_part<'a>(
    d: Dialect,
    content: FileContent<'a>,
    name: Option<Text<'a>>,
    mime: Option<&'a str>,
    metadata: PartMeta<'a>,
) -> A2aPart<'a> {
    let (bytes, uri) = match content {
        FileContent::Bytes(bytes) => (Some(Base64(bytes)), None),
        FileContent::Uri(uri) => (None, Some(uri)),
    };
    A2aPart::File(if d.kinds {
        FilePart::V0_3 {
            kind: "file",
            file: File0_3 { bytes, uri, name, mime_type: mime },
            metadata,
        }
    } else {
        FilePart::V1_0 { raw: bytes, url: uri, filename: name, media_type: mime, metadata }
    })
}

/// Part metadata: `<p>/uri`, `<p>/title`, `<p>/description`, `<p>/mimeType`, `<p>/size`,
/// `<p>/expiresAt`, absent ones left out; no `metadata` at all when all are absent.
#[derive(Debug, Clone, Copy)]
struct PartMeta<'a> {
    prefix: &'a str,
    uri: Option<&'a str>,
    title: Option<&'a str>,
    description: Option<&'a str>,
    mime_type: Option<&'a str>,
    size: Option<u64>,
    expires_at: Option<Timestamp>,
}

impl PartMeta<'_> {
    const NONE: Self = Self {
        prefix: "",
        uri: None,
        title: None,
        description: None,
        mime_type: None,
        size: None,
        expires_at: None,
    };

    fn is_empty(&self) -> bool {
        self.uri.is_none()
            && self.title.is_none()
            && self.description.is_none()
            && self.mime_type.is_none()
            && self.size.is_none()
            && self.expires_at.is_none()
    }
}

impl Serialize for PartMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let key = |name| PrefixedKey(self.prefix, name);
        let mut map = serializer.serialize_map(None)?;
        let strings = [
            ("uri", self.uri),
            ("title", self.title),
            ("description", self.description),
            ("mimeType", self.mime_type),
        ];
        for (name, value) in strings {
            if let Some(value) = value {
                map.serialize_entry(&key(name), value)?;
            }
        }
        if let Some(size) = self.size {
            map.serialize_entry(&key("size"), &size)?;
        }
        if let Some(at) = self.expires_at {
            map.serialize_entry(&key("expiresAt"), &at)?;
        }
        map.end()
    }
}

fn lower_part<'a>(d: Dialect, part: &'a Part, prefix: &'a str) -> A2aPart<'a> {
    match part {
        Part::Text(text) => A2aPart::Text(TextPart::new(d, Text::Borrowed(&text.text))),
        Part::Binary(binary) => file_part(
            d,
            FileContent::Bytes(&binary.data),
            binary.name.as_deref().map(Text::Borrowed),
            Some(&binary.mime_type),
            PartMeta::NONE,
        ),
        Part::ResourceLink(link) => file_part(
            d,
            FileContent::Uri(&link.uri),
            Some(Text::Borrowed(&link.name)),
            link.mime_type.as_deref(),
            PartMeta {
                prefix,
                title: link.title.as_deref(),
                description: link.description.as_deref(),
                size: link.size,
                ..PartMeta::NONE
            },
        ),
        Part::EmbeddedResource(resource) => {
            let metadata = PartMeta { prefix, uri: Some(&resource.uri), ..PartMeta::NONE };
            let mime = resource.mime_type.as_deref();
            match &resource.contents {
                // 0.3 text parts have no MIME type slot (it goes in the metadata); 1.0 has
                // `mediaType`.
                ResourceContents::Text(text) => A2aPart::Text(TextPart {
                    kind: d.kinds.then_some("text"),
                    text: Text::Borrowed(text),
                    media_type: mime.filter(|_| !d.kinds),
                    metadata: PartMeta { mime_type: mime.filter(|_| d.kinds), ..metadata },
                }),
                ResourceContents::Blob(blob) => {
                    file_part(d, FileContent::Bytes(blob), None, mime, metadata)
                }
            }
        }
    }
}

fn stored_link_part<'a>(
    d: Dialect,
    link: &'a StoredLink,
    summary: Option<&'a str>,
    prefix: &'a str,
) -> A2aPart<'a> {
    let metadata = PartMeta {
        prefix,
        title: Some("Full result"),
        description: summary.or(link.description.as_deref()),
        size: link.size,
        expires_at: link.expires_at,
        ..PartMeta::NONE
    };
    let name = Text::Owned(stored_link_name(link));
    file_part(d, FileContent::Uri(&link.uri), Some(name), Some(&link.mime_type), metadata)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_metadata_is_left_out_or_an_object() {
        assert!(PartMeta::NONE.is_empty());
        let meta =
            PartMeta { prefix: "dev.toolwire", title: Some("T"), size: Some(3), ..PartMeta::NONE };
        assert!(!meta.is_empty());
        assert_eq!(to_json_string(&meta), r#"{"dev.toolwire/title":"T","dev.toolwire/size":3}"#);
    }
}
