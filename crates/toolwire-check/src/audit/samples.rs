//! Samples of the calls the audit made, for `toolwire check --format html` (DESIGN §18): per tool
//! and revision the first call, its answer as received, and what each checked host profile's
//! model reads of it, each fact of the result marked seen or lost.
//!
//! Each host's view and its facts come from the answer its own connection received: a server
//! such as toolwire renders per host, and each call answers anew (a new stored link, a new
//! timestamp), so another connection's answer would mark facts lost that were never sent.

use serde::Serialize;
use serde_json::Value;
use toolwire_core::STORED_RESULT_PREFIX;
use toolwire_core::host::HostProfile;
use toolwire_core::preview::{FactView, HostView};

use super::cases::Case;
use super::definitions::ToolDef;
use super::results::{content_facts, escaped, leaves, shows};
use super::transport::{Answer, TransportError};
use toolwire_core::McpRevision;

/// The most facts one host view lists: enough to show what is lost, bounded for big results.
pub const MAX_FACTS: usize = 40;
/// The most characters of a fact's label.
const LABEL_CHARS: usize = 60;

/// One call the audit made and what each host's model reads of its answer.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// The tool called.
    pub tool: String,
    /// The revision spoken.
    pub revision: &'static str,
    /// The case's label (`minimal`, a file case's name).
    pub case: String,
    /// The call's arguments, when it sent any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The `CallToolResult` as received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The JSON-RPC error answered instead, or why no answer came (a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// What each checked host profile's model reads, in the order the profiles were given.
    pub hosts: Vec<HostView>,
}

impl Sample {
    /// Whether the call failed: an `isError` result, a JSON-RPC error or no answer.
    pub fn failed(&self) -> bool {
        self.result.as_ref().is_none_or(|result| result.get("isError") == Some(&Value::Bool(true)))
    }
}

/// Whether `result` went behind one of toolwire's stored-result links.
pub fn offloaded(result: &Value) -> bool {
    result.get("content").and_then(Value::as_array).into_iter().flatten().any(|block| {
        block.get("type").and_then(Value::as_str) == Some("resource_link")
            && block
                .get("uri")
                .and_then(Value::as_str)
                .is_some_and(|uri| uri.starts_with(STORED_RESULT_PREFIX))
    })
}

/// How a fact is looked for in a model's view.
#[derive(Debug, Clone, PartialEq)]
enum Needle {
    /// Content text (prose, a link URI, an image's line), raw or JSON-escaped.
    Text(String),
    /// A scalar of the structured data, under its member's name.
    Leaf { key: Option<String>, value: Value },
}

/// One thing a model must be able to read of a result.
#[derive(Debug, Clone, PartialEq)]
struct Fact {
    what: String,
    needle: Needle,
}

impl Fact {
    fn seen_in(&self, view: &str) -> bool {
        match &self.needle {
            Needle::Text(text) => view.contains(text.as_str()) || view.contains(&escaped(text)),
            Needle::Leaf { key, value } => shows(view, key.as_deref(), value),
        }
    }
}

/// The facts of a `CallToolResult`: what the content blocks tell (prose, links, images), then
/// the values of `structuredContent` — or, without it, of JSON text blocks, where older
/// revisions carry the data — at most [`MAX_FACTS`].
fn facts(result: &Value) -> Vec<Fact> {
    let mut out: Vec<Fact> = content_facts(result)
        .into_iter()
        .map(|(kind, text)| {
            let what = match kind {
                "text" => format!("text: \"{}\"", cut(&text, LABEL_CHARS - 8)),
                "link" => format!("link: {}", cut(&text, LABEL_CHARS - 6)),
                _ => format!("{kind}: {}", cut(mime_of(&text), LABEL_CHARS - 8)),
            };
            Fact { what, needle: Needle::Text(text) }
        })
        .collect();
    let mut push_leaves = |value: &Value, path: &str| {
        leaves(value, path, None, &mut |path, key, leaf| {
            out.push(Fact {
                what: cut(path.trim_start_matches('/'), LABEL_CHARS),
                needle: Needle::Leaf { key: key.map(str::to_owned), value: leaf.clone() },
            });
        });
    };
    match result.get("structuredContent") {
        Some(structured) => push_leaves(structured, "/structuredContent"),
        None => {
            let blocks = result.get("content").and_then(Value::as_array);
            for (i, block) in blocks.into_iter().flatten().enumerate() {
                let text = block.get("text").and_then(Value::as_str).unwrap_or_default();
                if let Ok(data @ (Value::Object(_) | Value::Array(_))) =
                    serde_json::from_str::<Value>(text.trim())
                {
                    push_leaves(&data, &format!("/content/{i}/text"));
                }
            }
        }
    }
    out.truncate(MAX_FACTS);
    out
}

/// The MIME type of an `[image image/png]` line.
fn mime_of(line: &str) -> &str {
    line.trim_matches(['[', ']']).split_once(' ').map_or(line, |(_, mime)| mime)
}

/// `text` cut to `chars` characters, marked when cut.
fn cut(text: &str, chars: usize) -> String {
    let mut shown: String = text.chars().take(chars).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// What `profile`'s model reads of `received` (the `CallToolResult` its connection got to a
/// call of `tool`), each fact of it seen or lost.
pub fn host_view(profile: &HostProfile, tool: &ToolDef, received: &Value) -> HostView {
    let host = profile.for_tool(tool.max_result_size_chars());
    HostView::read(&host, received, offloaded(received), |view, _| {
        facts(received)
            .into_iter()
            .map(|fact| FactView { seen: fact.seen_in(view), what: fact.what })
            .collect()
    })
}

/// Keeps the answer to one call in `samples`: the first answer for the tool at the revision
/// makes the sample; every connection's answer adds the views of the host profiles `members`
/// it stands for (a profile already viewed is kept).
pub(super) fn record(
    samples: &mut Vec<Sample>,
    revision: McpRevision,
    tool: &ToolDef,
    case: &Case,
    answer: &Result<Answer, TransportError>,
    members: &[HostProfile],
) {
    let received = answer.as_ref().ok().and_then(Answer::result);
    let index =
        match samples.iter().position(|s| s.tool == tool.name && s.revision == revision.as_str()) {
            Some(index) => index,
            None => {
                let error = match answer {
                    Ok(answer) if received.is_none() => {
                        Some(answer.error().cloned().unwrap_or_else(|| answer.message.clone()))
                    }
                    Ok(_) => None,
                    Err(err) => Some(Value::String(format!("no answer: {err}"))),
                };
                samples.push(Sample {
                    tool: tool.name.clone(),
                    revision: revision.as_str(),
                    case: case.label.clone(),
                    arguments: case.arguments.clone(),
                    result: received.cloned(),
                    error,
                    hosts: Vec::new(),
                });
                samples.len() - 1
            }
        };
    let (Some(sample), Some(received)) = (samples.get_mut(index), received) else {
        return;
    };
    for profile in members {
        if !sample.hosts.iter().any(|h| h.name == profile.name) {
            sample.hosts.push(host_view(profile, tool, received));
        }
    }
}

/// Orders `samples` as the report lists its tools (`tools`, listing order), each by revision,
/// and each sample's host views as the profiles `hosts` were given.
pub(super) fn order(samples: &mut [Sample], tools: &[String], hosts: &[HostProfile]) {
    let tool_at = |name: &str| tools.iter().position(|t| t == name).unwrap_or(usize::MAX);
    samples.sort_by(|a, b| (tool_at(&a.tool), a.revision).cmp(&(tool_at(&b.tool), b.revision)));
    let host_at = |name: &str| hosts.iter().position(|h| h.name == name).unwrap_or(usize::MAX);
    for sample in samples {
        sample.hosts.sort_by_key(|view| host_at(&view.name));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwire_core::host::{HostProfiles, Reads};

    use super::*;

    fn tool() -> ToolDef {
        ToolDef {
            name: "t".to_owned(),
            raw: json!({"name": "t", "inputSchema": {"type": "object"}}),
        }
    }

    fn marks(view: &HostView) -> Vec<(&str, bool)> {
        view.facts.iter().map(|f| (f.what.as_str(), f.seen)).collect()
    }

    #[test]
    fn a_structured_reader_loses_prose_only_the_text_block_has_and_a_content_reader_sees_it() {
        let result = json!({
            "content": [{"type": "text", "text": "{\"items\":[{\"name\":\"Mug\"}],\"total\":1}"},
                        {"type": "text", "text": "Dry run: nothing changed"}],
            "structuredContent": {"items": [{"name": "Mug"}], "total": 1}
        });
        let hosts = HostProfiles::builtin();
        let structured = hosts.iter().find(|h| h.reads == Reads::Structured);
        let content = hosts.iter().find(|h| h.reads == Reads::Content);
        let (Some(structured), Some(content)) = (structured, content) else {
            panic!("the built-in profiles have a structured and a content reader");
        };
        let seen_by_structured = host_view(structured, &tool(), &result);
        assert_eq!(
            marks(&seen_by_structured),
            [
                ("text: \"Dry run: nothing changed\"", false),
                ("structuredContent/items/0/name", true),
                ("structuredContent/total", true),
            ],
            "{}",
            seen_by_structured.view
        );
        assert_eq!(seen_by_structured.bytes, result["structuredContent"].to_string().len());
        assert!(!seen_by_structured.offloaded);
        let seen_by_content = host_view(content, &tool(), &result);
        assert!(seen_by_content.facts.iter().all(|f| f.seen), "{:?}", seen_by_content.facts);
        assert_eq!(seen_by_content.bytes, result["content"].to_string().len());
        assert_eq!(seen_by_content.name, content.name);
    }

    #[test]
    fn a_host_s_own_answer_is_what_its_model_reads() {
        // toolwire leaves `structuredContent` out for a structured reader when the result
        // carries more than data: the prose and the data then reach it as text.
        let received = json!({
            "content": [{"type": "text", "text": "{\"n\":3}"}, {"type": "text", "text": "3 found"}]
        });
        let hosts = HostProfiles::builtin();
        let Some(claude_code) = hosts.by_name("claude-code") else {
            panic!("claude-code is built in");
        };
        let view = host_view(claude_code, &tool(), &received);
        assert_eq!(marks(&view), [("text: \"3 found\"", true), ("content/0/text/n", true)]);
        assert_eq!(view.cap, claude_code.max_result_bytes);
        assert_eq!(view.view, "{\"n\":3}\n3 found");
    }

    #[test]
    fn links_images_and_json_text_of_older_revisions_are_facts_and_they_are_bounded() {
        let rows: Vec<Value> = (0..100).map(|i| json!({"id": i})).collect();
        let result = json!({"content": [
            {"type": "text", "text": json!({"rows": rows}).to_string()},
            {"type": "resource_link", "uri": "toolwire://results/abc.1.sig", "name": "r"},
            {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}
        ]});
        let facts = facts(&result);
        assert_eq!(facts.len(), MAX_FACTS);
        let labels: Vec<&str> = facts.iter().take(3).map(|f| f.what.as_str()).collect();
        assert_eq!(
            labels,
            ["link: toolwire://results/abc.1.sig", "image: image/png", "content/0/text/rows/0/id"]
        );
        assert!(offloaded(&result));
        let generic = HostProfile::generic();
        let view = host_view(&generic, &tool(), &result);
        let lost: Vec<&str> =
            view.facts.iter().filter(|f| !f.seen).map(|f| f.what.as_str()).collect();
        // The model view never shows a resource_link block itself.
        assert_eq!(lost, ["link: toolwire://results/abc.1.sig"]);
        assert!(view.offloaded);
    }

    #[test]
    fn long_prose_is_labelled_short_and_looked_for_whole() {
        let prose = format!("Found {} products", "many ".repeat(40));
        let result = json!({"content": [{"type": "text", "text": prose}]});
        let facts = facts(&result);
        assert_eq!(facts.len(), 1);
        assert!(facts[0].what.chars().count() <= LABEL_CHARS + 2, "{}", facts[0].what);
        assert!(facts[0].what.ends_with("…\""), "{}", facts[0].what);
        assert!(facts[0].seen_in(&prose));
        assert!(!facts[0].seen_in("Found many"));
    }

    #[test]
    fn the_first_answer_makes_the_sample_and_each_connection_adds_its_hosts() {
        let hosts = HostProfiles::builtin();
        let generic: Vec<HostProfile> =
            hosts.iter().filter(|h| h.is_generic_policy()).cloned().collect();
        let structured: Vec<HostProfile> =
            hosts.iter().filter(|h| h.reads == Reads::Structured).take(2).cloned().collect();
        let case = Case {
            label: "minimal".to_owned(),
            arguments: Some(json!({"q": "mug"})),
            expect: super::super::cases::Expect::Any,
        };
        let result = json!({"content": [{"type": "text", "text": "ok"}], "isError": false});
        let answer = |result: &Value| {
            Ok(Answer { message: json!({"jsonrpc": "2.0", "id": 1, "result": result}) })
        };
        let mut samples = Vec::new();
        let revision = McpRevision::V2025_11_25;
        record(&mut samples, revision, &tool(), &case, &answer(&result), &generic);
        let other = json!({"content": [{"type": "text", "text": "other"}]});
        record(&mut samples, revision, &tool(), &case, &answer(&other), &structured);
        assert_eq!(samples.len(), 1);
        let sample = &samples[0];
        assert_eq!((sample.tool.as_str(), sample.revision), ("t", "2025-11-25"));
        assert_eq!(sample.result.as_ref(), Some(&result));
        assert_eq!(sample.arguments, Some(json!({"q": "mug"})));
        assert!(!sample.failed());
        assert_eq!(sample.hosts.len(), generic.len() + structured.len());
        // The structured readers are viewed through the answer their own connection got.
        let last = &sample.hosts[sample.hosts.len() - 1];
        assert_eq!(marks(last), [("text: \"other\"", true)]);
        assert_eq!(last.view, "other");
        let error = Err(TransportError::Closed { stderr: String::new() });
        record(&mut samples, McpRevision::V2024_11_05, &tool(), &case, &error, &generic);
        assert!(samples[1].failed() && samples[1].hosts.is_empty());
        let names: Vec<String> = vec!["t".to_owned()];
        order(&mut samples, &names, &[]);
        assert_eq!(samples[0].revision, "2024-11-05");
    }
}
