//! A preview of one result (DESIGN §18): the wire as every target receives it (each MCP
//! revision, the legacy envelope, both A2A versions) and, side by side, what each host
//! profile's model reads of it, each fact marked seen or lost. The console and
//! `toolwire render --html` show it; it is serializable as the console API's JSON.
//!
//! Sans-IO like the mapper: a result over a limit needs storing, which is the caller's. The
//! first [`Previewer::preview`] without a link answers [`PreviewError::NeedsOffload`] with the
//! first render that needs it; the caller stores it once and asks again with the link, which
//! then finishes every render that needs one.

use base64::Engine as _;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::facts::{facts, stub_facts};
use crate::host::{HostProfile, HostProfiles, Reads, model_view};
use crate::{
    McpRevision, NeedsOffload, Output, OutputMapper, Part, Phase, RenderContext, RenderError,
    Rendered, StoredLink, Target, ToolResult, v1,
};

/// How a call ended, as the preview says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewOutcome {
    /// A success.
    Success,
    /// A failure (an error code and message).
    Error,
    /// The tool asks for input before it answers.
    InputRequired,
}

/// The output-schema verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaVerdict {
    /// Whether the tool declares an output schema.
    pub declared: bool,
    /// Whether the result holds to it (true without a schema).
    pub valid: bool,
    /// Where and why it does not.
    pub message: Option<String>,
}

/// An image of the result, for showing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewImage {
    /// The MIME type.
    pub mime_type: String,
    /// The bytes, base64.
    pub data: String,
}

/// A stored result a render links to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewLink {
    /// The signed link.
    pub uri: String,
    /// The stored size in bytes, when known.
    pub size: Option<u64>,
    /// The stored MIME type.
    pub mime_type: String,
}

/// The result as one target receives it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WireView {
    /// The target's name (`mcp-2025-06-18`, `legacy`, `a2a-1.0`).
    pub id: &'static str,
    /// For people: `MCP 2025-06-18`, `Legacy envelope`, `A2A 1.0`.
    pub label: String,
    /// The rendered JSON, as rendered (the legacy envelope's text is JSON too).
    pub json: Box<RawValue>,
    /// Its size in bytes.
    pub bytes: usize,
    /// The target's size limit, if any.
    pub limit: Option<usize>,
    /// Whether the result went behind a link.
    pub offloaded: bool,
    /// Whether the render is an error result.
    pub is_error: bool,
    /// What the mapper warned about.
    pub warnings: Vec<String>,
}

/// One fact, seen or lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactView {
    /// What the fact is.
    pub what: String,
    /// Whether the model's view shows it.
    pub seen: bool,
}

/// What one host's model reads of the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostView {
    /// The profile's name.
    pub name: String,
    /// Which part of a result it gives the model.
    pub reads: Reads,
    /// Its cap on one result in bytes (for this tool), if any.
    pub cap: Option<usize>,
    /// Whether its model can follow links.
    pub reads_links: bool,
    /// Whether its client fails a call that breaks an `outputSchema`'s promise.
    pub strict_structured: bool,
    /// The text the model reads.
    pub view: String,
    /// The bytes of the channel the host reads (what the cap is measured against).
    pub bytes: usize,
    /// Whether that is within the cap.
    pub within_cap: bool,
    /// Whether the result went behind a link for this host.
    pub offloaded: bool,
    /// Whether this revision's client asks the user for input instead of handing the model a
    /// result (an `InputRequiredResult`): the model reads the result of the call that follows,
    /// so nothing is expected of it here.
    pub input_required: bool,
    /// Every fact, seen or lost.
    pub facts: Vec<FactView>,
}

/// The preview of one result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// The tool's name.
    pub tool: String,
    /// How the call ended.
    pub outcome: PreviewOutcome,
    /// The result in its versioned form (`toolwire.result.v1`, or v2 when it asks for input).
    pub document: Box<RawValue>,
    /// The output-schema verdict.
    pub schema: SchemaVerdict,
    /// The result's images.
    pub images: Vec<PreviewImage>,
    /// The stored results the renders link to (the result's own links and its offload).
    pub links: Vec<PreviewLink>,
    /// Every target, MCP revisions first.
    pub wires: Vec<WireView>,
    /// The revision the host views are rendered for.
    #[serde(serialize_with = "revision_name")]
    pub host_revision: McpRevision,
    /// Every host profile's view.
    pub hosts: Vec<HostView>,
}

/// Why a preview could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// A render is over its limit: store it and ask again with the link.
    #[error("the result of {} bytes is over the limit of {} bytes and must be stored first", .0.size(), .0.limit())]
    NeedsOffload(Box<NeedsOffload>),
    /// A render failed.
    #[error(transparent)]
    Render(#[from] RenderError),
}

/// Makes previews of one tool's results.
#[derive(Debug, Clone)]
pub struct Previewer<'a> {
    mapper: &'a OutputMapper,
    phase: Phase,
    context: RenderContext<'a>,
    max_result_chars: Option<usize>,
}

impl<'a> Previewer<'a> {
    /// Previews through `mapper` in `phase` of the results of the call `context` describes (the
    /// tool, its declared output and input schema, the call echoed by a stub, the render time);
    /// each host view adds its host to it.
    pub fn new(mapper: &'a OutputMapper, phase: Phase, context: RenderContext<'a>) -> Self {
        Self { mapper, phase, context, max_result_chars: None }
    }

    /// The size the tool opted in to (`_meta["anthropic/maxResultSizeChars"]`).
    pub fn max_result_chars(mut self, chars: Option<usize>) -> Self {
        self.max_result_chars = chars;
        self
    }

    fn context(&self, host: Option<&'a HostProfile>) -> RenderContext<'a> {
        let cx = self.context.clone();
        match host {
            Some(host) => cx.host(host),
            None => cx,
        }
    }

    /// One render, finished with `link` when it needs storing.
    fn render(
        &self,
        result: &ToolResult,
        target: Target,
        host: Option<&'a HostProfile>,
        link: Option<&StoredLink>,
    ) -> Result<Output, PreviewError> {
        let cx = self.context(host);
        match self.mapper.render(result, target, self.phase, &cx)? {
            Rendered::Complete(output) => Ok(output),
            Rendered::NeedsOffload(needs) => match link {
                Some(link) => Ok(needs.finish(link.clone())?),
                None => Err(PreviewError::NeedsOffload(Box::new(needs))),
            },
        }
    }

    /// The preview of `result`, the host views rendered for `host_revision` and every profile
    /// of `hosts`; `link` is where the result is stored when a render is over its limit.
    pub fn preview(
        &self,
        result: &ToolResult,
        hosts: &HostProfiles,
        host_revision: McpRevision,
        link: Option<&StoredLink>,
    ) -> Result<Preview, PreviewError> {
        let mut wires = Vec::new();
        let targets = Target::ALL.into_iter().filter(|t| matches!(t, Target::Mcp(_)));
        let others = Target::ALL.into_iter().filter(|t| !matches!(t, Target::Mcp(_)));
        for target in targets.chain(others) {
            let output = self.render(result, target, None, link)?;
            wires.push(WireView {
                id: target.name(),
                label: label(target),
                json: raw(output.json()),
                bytes: output.size(),
                limit: self.mapper.config().limit(target),
                offloaded: output.offloaded(),
                is_error: output.is_error(),
                warnings: output.warnings().to_vec(),
            });
        }
        let mut views = Vec::new();
        for profile in hosts.iter() {
            let host = profile.for_tool(self.max_result_chars);
            let output = self.render(result, Target::Mcp(host_revision), Some(&host), link)?;
            views.push(host_view(result, &host, &output, link));
        }
        Ok(Preview {
            tool: self.context.tool_name.to_owned(),
            outcome: outcome(result),
            document: raw(&v1::to_string(result)),
            schema: self.verdict(result),
            images: images(result),
            links: links(result, link),
            wires,
            host_revision,
            hosts: views,
        })
    }

    fn verdict(&self, result: &ToolResult) -> SchemaVerdict {
        let output = self.context.output;
        let declared = output.is_some_and(|o| o.declared().is_some());
        let check = output.map_or(Ok(()), |o| o.check(result));
        SchemaVerdict {
            declared,
            valid: check.is_ok(),
            message: check.err().map(|violation| violation.to_string()),
        }
    }
}

fn host_view(
    result: &ToolResult,
    host: &HostProfile,
    output: &Output,
    link: Option<&StoredLink>,
) -> HostView {
    let wire: Value = serde_json::from_str(output.json()).unwrap_or(Value::Null);
    HostView::read(host, &wire, output.offloaded(), |view, input_required| {
        // Where the revision cannot ask, the result went out as the failure `input_required`.
        let shown = result.down_levelled();
        let expected = match link {
            _ if input_required => Vec::new(),
            Some(link) if output.offloaded() => stub_facts(&shown, &link.uri, host),
            _ => facts(&shown),
        };
        expected
            .iter()
            .map(|f| FactView { what: f.what.to_owned(), seen: f.seen_in(view) })
            .collect()
    })
}

impl HostView {
    /// What `host`'s model reads of `wire` (the `CallToolResult` it was sent, `offloaded` when
    /// its data went behind a link): the view, its bytes against the cap, and the facts that
    /// `facts` marks seen or lost in the view (told whether `wire` asks the user for input).
    pub fn read(
        host: &HostProfile,
        wire: &Value,
        offloaded: bool,
        facts: impl FnOnce(&str, bool) -> Vec<FactView>,
    ) -> HostView {
        let view = model_view(wire, host.reads);
        let input_required =
            wire.get("resultType").and_then(Value::as_str) == Some("input_required");
        let bytes = read_bytes(wire, host.reads);
        HostView {
            name: host.name.clone(),
            reads: host.reads,
            cap: host.max_result_bytes,
            reads_links: host.reads_links,
            strict_structured: host.strict_structured,
            facts: facts(&view, input_required),
            within_cap: host.max_result_bytes.is_none_or(|cap| bytes <= cap),
            offloaded,
            input_required,
            view,
            bytes,
        }
    }
}

/// The bytes of the channel a host that `reads` so reads of the `CallToolResult` `wire` (what
/// its cap is measured against): `structuredContent` for a structured reader that gets it, else
/// the content blocks, both for a `both` reader.
fn read_bytes(wire: &Value, reads: Reads) -> usize {
    let size = |key: &str| wire.get(key).map_or(0, |value| value.to_string().len());
    match reads {
        Reads::Structured if wire.get("structuredContent").is_some() => size("structuredContent"),
        Reads::Structured | Reads::Content => size("content"),
        Reads::Both => size("content") + size("structuredContent"),
    }
}

fn revision_name<S: serde::Serializer>(
    revision: &McpRevision,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(revision.as_str())
}

fn label(target: Target) -> String {
    match target {
        Target::Legacy => "Legacy envelope".to_owned(),
        Target::Mcp(revision) => format!("MCP {}", revision.as_str()),
        Target::A2a(_) => format!("A2A {}", target.name().trim_start_matches("a2a-")),
    }
}

/// A render's JSON text, kept as it is; anything that is not JSON (a tool's own text passed
/// through on the legacy target) as a JSON string.
fn raw(text: &str) -> Box<RawValue> {
    serde_json::from_str(text)
        .or_else(|_| serde_json::value::to_raw_value(text))
        .unwrap_or_default()
}

fn outcome(result: &ToolResult) -> PreviewOutcome {
    if result.is_input_required() {
        PreviewOutcome::InputRequired
    } else if result.is_failure() {
        PreviewOutcome::Error
    } else {
        PreviewOutcome::Success
    }
}

fn images(result: &ToolResult) -> Vec<PreviewImage> {
    let engine = base64::engine::general_purpose::STANDARD;
    result
        .parts()
        .iter()
        .filter_map(|part| match part {
            Part::Binary(binary) if binary.mime_type.starts_with("image/") => Some(PreviewImage {
                mime_type: binary.mime_type.clone(),
                data: engine.encode(&binary.data),
            }),
            _ => None,
        })
        .collect()
}

fn links(result: &ToolResult, offload: Option<&StoredLink>) -> Vec<PreviewLink> {
    result
        .stored_links()
        .iter()
        .chain(offload)
        .map(|link| PreviewLink {
            uri: link.uri.clone(),
            size: link.size,
            mime_type: link.mime_type.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{MapperConfig, Pagination, Timestamp};

    fn now() -> Timestamp {
        Timestamp::parse("2026-12-04T12:00:00Z").unwrap_or_else(|e| panic!("{e}"))
    }

    fn preview(result: &ToolResult, mapper: &OutputMapper, link: Option<&StoredLink>) -> Preview {
        let hosts = HostProfiles::builtin();
        match Previewer::new(mapper, Phase::Compat, RenderContext::new("catalog_search", now()))
            .preview(result, &hosts, McpRevision::V2026_07_28, link)
        {
            Ok(preview) => preview,
            Err(err) => panic!("{err}"),
        }
    }

    #[test]
    fn every_target_and_every_host_is_previewed_with_its_facts() {
        let result = ToolResult::success(json!([{"name": "Mug"}]))
            .with_summary("Found 1 product")
            .with_pagination(Pagination::new(9, 1, 1).next_cursor("page-2"));
        let preview = preview(&result, &OutputMapper::default(), None);
        let ids: Vec<&str> = preview.wires.iter().map(|w| w.id).collect();
        assert_eq!(
            ids,
            [
                "mcp-2024-11-05",
                "mcp-2025-03-26",
                "mcp-2025-06-18",
                "mcp-2025-11-25",
                "mcp-2026-07-28",
                "legacy",
                "a2a-0.3",
                "a2a-1.0"
            ]
        );
        assert_eq!(preview.wires[0].label, "MCP 2024-11-05");
        assert_eq!(preview.wires[7].label, "A2A 1.0");
        assert_eq!(preview.hosts.len(), HostProfiles::builtin().iter().count());
        for host in &preview.hosts {
            let lost: Vec<&str> =
                host.facts.iter().filter(|f| !f.seen).map(|f| f.what.as_str()).collect();
            assert!(lost.is_empty(), "{}: lost {lost:?} in {}", host.name, host.view);
            assert_eq!(host.facts.len(), 4, "{}", host.name);
        }
        assert_eq!(preview.outcome, PreviewOutcome::Success);
        assert!(preview.document.get().starts_with(r#"{"format":"toolwire.result.v1""#));
        assert!(preview.schema.valid && !preview.schema.declared);
    }

    #[test]
    fn a_lost_fact_is_marked_lost() {
        let host = HostProfile { reads: Reads::Structured, ..HostProfile::generic() };
        let result = ToolResult::success(json!({"id": 1})).with_summary("One product");
        let output = match OutputMapper::default().render(
            &result,
            Target::Mcp(McpRevision::V2025_06_18),
            Phase::Spec,
            &RenderContext::new("t", now()),
        ) {
            Ok(Rendered::Complete(output)) => output,
            other => panic!("{other:?}"),
        };
        let view = host_view(&result, &host, &output, None);
        let marks: Vec<(&str, bool)> =
            view.facts.iter().map(|f| (f.what.as_str(), f.seen)).collect();
        assert_eq!(marks, [("data", true), ("summary", false)], "{}", view.view);
        assert_eq!(view.bytes, r#"{"id":1}"#.len());
    }

    #[test]
    fn a_result_over_the_limit_asks_for_a_link_then_every_render_carries_it() {
        let big = ToolResult::success(json!({"pad": "x".repeat(5000)}));
        let limited = Target::ALL
            .into_iter()
            .fold(MapperConfig::default(), |config, target| config.with_limit(target, Some(4096)));
        let mapper = OutputMapper::new(limited);
        let hosts = HostProfiles::builtin();
        let previewer = Previewer::new(&mapper, Phase::Spec, RenderContext::new("export", now()));
        let first = previewer.preview(&big, &hosts, McpRevision::V2025_11_25, None);
        assert!(matches!(first, Err(PreviewError::NeedsOffload(_))), "{first:?}");
        let link = StoredLink::new("toolwire://results/abc.1.sig").size(5012);
        let preview = match previewer.preview(&big, &hosts, McpRevision::V2025_11_25, Some(&link)) {
            Ok(preview) => preview,
            Err(err) => panic!("{err}"),
        };
        assert!(preview.wires.iter().all(|w| w.offloaded), "{:?}", preview.wires);
        assert_eq!(preview.links.len(), 1);
        assert_eq!(preview.links[0].uri, "toolwire://results/abc.1.sig");
        for host in &preview.hosts {
            assert!(host.offloaded, "{}", host.name);
            let link_seen = host.facts.iter().any(|f| f.what == "link URI" && f.seen);
            assert!(link_seen, "{}: {}", host.name, host.view);
        }
    }

    #[test]
    fn a_result_asking_for_input_expects_nothing_where_the_client_asks_the_user() {
        let asks = crate::input::InputRequired::new().request(
            "confirm",
            crate::input::InputRequest::elicit("Change the price?", serde_json::Map::new()),
        );
        let result = ToolResult::input_required(asks);
        let hosts = HostProfiles::builtin();
        let mapper = OutputMapper::default();
        let previewer = Previewer::new(&mapper, Phase::Spec, RenderContext::new("confirm", now()));
        for (revision, asks_user) in
            [(McpRevision::V2026_07_28, true), (McpRevision::V2025_06_18, false)]
        {
            let preview = match previewer.preview(&result, &hosts, revision, None) {
                Ok(preview) => preview,
                Err(err) => panic!("{err}"),
            };
            assert_eq!(preview.outcome, PreviewOutcome::InputRequired);
            for host in &preview.hosts {
                assert_eq!(host.input_required, asks_user, "{revision:?} {}", host.name);
                let marks: Vec<(&str, bool)> =
                    host.facts.iter().map(|f| (f.what.as_str(), f.seen)).collect();
                let expected: &[(&str, bool)] =
                    if asks_user { &[] } else { &[("error code", true), ("error message", true)] };
                assert_eq!(marks, expected, "{revision:?} {}: {}", host.name, host.view);
            }
        }
    }

    #[test]
    fn a_render_that_is_not_json_is_kept_as_a_json_string() {
        assert_eq!(raw(r#"{"a": 1}"#).get(), r#"{"a": 1}"#);
        assert_eq!(raw("plain <text>").get(), r#""plain <text>""#);
    }

    #[test]
    fn images_go_out_as_base64_for_showing() {
        let result = ToolResult::success(json!({}))
            .with_part(Part::binary(vec![0x89, b'P', b'N', b'G'], "image/png"));
        let preview = preview(&result, &OutputMapper::default(), None);
        assert_eq!(
            preview.images,
            [PreviewImage { mime_type: "image/png".into(), data: "iVBORw==".into() }]
        );
        assert!(preview.hosts.iter().all(|h| h.facts.iter().any(|f| f.what == "image" && f.seen)));
    }
}
