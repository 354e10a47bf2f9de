//! What each `tools/call` answer is checked against: the expected outcome, the official
//! `CallToolResult` schema of the revision, toolwire's wire contract, the tool's outputSchema
//! (all three through `crate::wire`), the text-mirror rule, the size limit of the
//! revision, and for host profiles their cap and what a structured reader would show the model
//! (`toolwire_core::host::model_view`).

use crate::wire::{self, WireViolation};
use serde_json::Value;
use toolwire_core::DEFAULT_LIMIT;
use toolwire_core::host::{HostProfile, Reads, model_view};
use toolwire_core::revision::{McpCaps, StructuredCap};
use toolwire_core::{McpRevision, Target};

use super::cases::{Case, Expect};
use super::client::location;
use super::definitions::ToolDef;
use super::transport::Answer;
use super::{Finding, rules};

/// The most facts quoted in one finding.
const QUOTED: usize = 3;
/// The most characters of one quoted fact.
const QUOTE_CHARS: usize = 60;

/// One call being checked.
pub struct Context<'a> {
    /// The revision spoken.
    pub revision: McpRevision,
    /// The tool called, as this connection listed it.
    pub tool: &'a ToolDef,
    /// The case.
    pub case: &'a Case,
    /// The host profile the connection presented, `None` for the generic client.
    pub host: Option<&'a HostProfile>,
}

impl Context<'_> {
    fn finding(&self, check: &'static str, path: &str, message: impl Into<String>) -> Finding {
        let at = if path.is_empty() {
            format!("tools/call {}", self.case.label)
        } else {
            format!("tools/call {} {path}", self.case.label)
        };
        Finding::tool(self.revision, &self.tool.name, check, at, message)
    }
}

/// Every finding about the answer to one call.
pub fn check(context: &Context<'_>, answer: &Answer) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(result) = answer.result() else {
        rpc_error(context, answer, &mut out);
        return out;
    };
    outcome(context, result, &mut out);
    let target = Target::Mcp(context.revision);
    let text = result.to_string();
    let official = wire::official_call_tool_result_violations(context.revision, result);
    let valid = wire::check(target, &text);
    // Where the revision has no `structuredContent`, a listed outputSchema is a definition
    // finding; results are not held to it.
    let schema = match McpCaps::of(context.revision).structured_content {
        StructuredCap::Never => None,
        _ => context.tool.output_schema(),
    };
    let with_schema = wire::check_with_schema(target, &text, schema);
    // `check` appends the contract to the official violations, and `check_with_schema` the
    // outputSchema ones to both, so the tails are each part's own.
    for violation in &official {
        let finding =
            context.finding("official-schema", &location(violation), violation.message.clone());
        out.push(finding.weighed(violation));
    }
    for violation in valid.get(official.len()..).unwrap_or_default() {
        let finding =
            context.finding("wire-contract", &location(violation), violation.message.clone());
        out.push(if wire::contract_tolerated(violation) { finding.warning() } else { finding });
    }
    strict_client(context, result, with_schema.get(valid.len()..).unwrap_or_default(), &mut out);
    text_mirror(context, result, &mut out);
    if text.len() > DEFAULT_LIMIT {
        out.push(context.finding(
            "size",
            "",
            format!(
                "{} bytes, over toolwire's {DEFAULT_LIMIT}-byte limit for a result; store it and send a resource_link",
                text.len(),
            ),
        ));
    }
    if let Some(host) = context.host {
        host_view(context, host, result, &mut out);
    }
    out
}

/// Who fails a call whose `structuredContent` is missing or breaks the published outputSchema:
/// their client-side check throws, and the whole call is lost.
const STRICT_CLIENTS: &str =
    "strict clients (Cursor, Gemini CLI, ChatGPT, the official SDKs' clients) would fail this call";

/// The result against the tool's published outputSchema (`violations`, from
/// `wire::check_with_schema`), as one finding per call: what strict clients do with it.
fn strict_client(
    context: &Context<'_>,
    result: &Value,
    violations: &[WireViolation],
    out: &mut Vec<Finding>,
) {
    let Some(first) = violations.first() else {
        return;
    };
    // A schema that does not compile says nothing about the result: it stays an outputSchema
    // finding, and no strict client gets as far as checking.
    if first.path.is_empty() {
        out.push(context.finding("output-schema", "", first.message.clone()));
        return;
    }
    let failed = result.get("isError") == Some(&Value::Bool(true));
    let message = if result.get("structuredContent").is_none() {
        format!(
            "a success without `structuredContent` from a tool that publishes an outputSchema: {STRICT_CLIENTS}"
        )
    } else {
        let reason = first.message.trim_end_matches(" (published outputSchema)");
        let more = match violations.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let who = if failed {
            "the official TypeScript SDK 1.x client checks it on failures too and would fail this call"
        } else {
            STRICT_CLIENTS
        };
        format!("`structuredContent` breaks the published outputSchema: {reason}{more}; {who}")
    };
    out.push(context.finding("strict-client", &location(first), message));
}

/// A JSON-RPC error where a result was due.
fn rpc_error(context: &Context<'_>, answer: &Answer, out: &mut Vec<Finding>) {
    let error = answer.error_text();
    match &context.case.expect {
        Expect::ArgumentError { missing } if rules(context.revision).argument_errors_as_results => {
            out.push(context.finding(
                "argument-error",
                "",
                format!(
                    "a call without the required argument `{missing}` was answered with JSON-RPC error {error}; this revision wants an `isError` result the model can read and correct"
                ),
            ));
        }
        Expect::ArgumentError { .. } => {}
        _ if answer.error().is_some() => out.push(context.finding(
            "call",
            "",
            format!(
                "answered with JSON-RPC error {error}; a tool's failure is an `isError` result"
            ),
        )),
        _ => {
            out.push(context.finding("call", "", "the answer carries neither `result` nor `error`"))
        }
    }
}

/// The result against the case's expected outcome.
fn outcome(context: &Context<'_>, result: &Value, out: &mut Vec<Finding>) {
    let failed = result.get("isError") == Some(&Value::Bool(true));
    let finding = match (&context.case.expect, failed) {
        (Expect::Success, true) => context.finding(
            "outcome",
            "/isError",
            format!("expected a success, got an `isError` result: {}", quote(&first_text(result))),
        ),
        (Expect::Error, false) => context.finding(
            "outcome",
            "/isError",
            "expected an `isError` result, got a success",
        ),
        // No client fails on it: the tool trusts its input, which a generated case only hints at.
        (Expect::ArgumentError { missing }, false) => context
            .finding(
                "outcome",
                "/isError",
                format!(
                    "a call without the required argument `{missing}` succeeded; the tool does not check its input"
                ),
            )
            .warning(),
        _ => return,
    };
    out.push(finding);
}

fn first_text(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find_map(|block| block.get("text").and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
}

/// Everything in `structuredContent` must also reach a reader of the text blocks — except on a
/// connection presenting a host that reads both channels and is given the data once (DESIGN §11,
/// "each fact once"): there the text copy is left out on purpose.
fn text_mirror(context: &Context<'_>, result: &Value, out: &mut Vec<Finding>) {
    if context.host.is_some_and(HostProfile::reads_each_fact_once) {
        return;
    }
    let Some(structured) = result.get("structuredContent") else {
        return;
    };
    let view = model_view(result, Reads::Content);
    let mut missing = Vec::new();
    leaves(structured, "/structuredContent", None, &mut |path, key, leaf| {
        if !shows(&view, key, leaf) {
            missing.push(path.to_owned());
        }
    });
    if let Some(first) = missing.first() {
        out.push(context.finding(
            "text-mirror",
            first,
            format!(
                "no text block carries {} of `structuredContent` ({}); a host that reads only the content blocks never shows it",
                plural(missing.len(), "value"),
                shown_list(&missing)
            ),
        ));
    }
}

/// The host's cap (for this tool: Claude Code reads a tool's own size opt-in), and what a
/// structured reader would not show the model.
fn host_view(context: &Context<'_>, host: &HostProfile, result: &Value, out: &mut Vec<Finding>) {
    let host = host.for_tool(context.tool.max_result_size_chars());
    let view = model_view(result, host.reads);
    if let Some(cap) = host.max_result_bytes
        && view.len() > cap
    {
        out.push(context.finding(
            "host-cap",
            "",
            format!(
                "the model would be given {} bytes; this host shows at most {cap} and cuts the rest",
                view.len()
            ),
        ));
    }
    if host.reads != Reads::Structured || result.get("structuredContent").is_none() {
        return;
    }
    let lost: Vec<String> = content_facts(result)
        .into_iter()
        .map(|(_, fact)| fact)
        .filter(|fact| !view.contains(fact.as_str()) && !view.contains(&escaped(fact)))
        .map(|fact| quote(&fact))
        .collect();
    if !lost.is_empty() {
        out.push(context.finding(
            "host-completeness",
            "/structuredContent",
            format!(
                "a host that reads only `structuredContent` would not show the model {} of the content blocks ({})",
                plural(lost.len(), "fact"),
                shown_list(&lost)
            ),
        ));
    }
}

/// What the content blocks tell the model that a structured reader could lose: prose (text
/// blocks that are not JSON: JSON text is the mirror of the structured data), link URIs, and
/// the line a host shows for an image or audio block; each with its kind (`text`, `link`,
/// `image`, `audio`) for labelling.
pub(super) fn content_facts(result: &Value) -> Vec<(&'static str, String)> {
    let mut facts = Vec::new();
    for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let field = |key: &str| block.get(key).and_then(Value::as_str);
        match field("type") {
            Some("text") => {
                let text = field("text").unwrap_or_default().trim();
                let json = serde_json::from_str::<Value>(text)
                    .is_ok_and(|v| v.is_object() || v.is_array());
                if !json && !text.is_empty() {
                    facts.push(("text", text.to_owned()));
                }
            }
            Some("resource_link") => {
                facts.push(("link", field("uri").unwrap_or_default().to_owned()));
            }
            Some(kind @ ("image" | "audio")) => {
                let line = format!("[{kind} {}]", field("mimeType").unwrap_or_default());
                facts.push((if kind == "image" { "image" } else { "audio" }, line));
            }
            _ => {}
        }
    }
    facts
}

/// Calls `visit(path, key, leaf)` for every scalar below `value`, skipping `_meta` members
/// (metadata such as timestamps, not the result).
pub(super) fn leaves(
    value: &Value,
    path: &str,
    key: Option<&str>,
    visit: &mut dyn FnMut(&str, Option<&str>, &Value),
) {
    match value {
        Value::Object(fields) => {
            for (name, inner) in fields {
                if name == "_meta" {
                    continue;
                }
                let here = toolwire_core::pointer::push(path, name);
                leaves(inner, &here, Some(name), visit);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                leaves(inner, &toolwire_core::pointer::push_index(path, i), key, visit);
            }
        }
        Value::String(text) if text.is_empty() => {}
        _ => visit(path, key, value),
    }
}

/// Whether `view` shows the scalar `leaf` (sitting under `key`): a string or number by its text,
/// a boolean or null by its key (the value alone says nothing).
pub(super) fn shows(view: &str, key: Option<&str>, leaf: &Value) -> bool {
    match leaf {
        Value::String(text) => view.contains(text.as_str()) || view.contains(&escaped(text)),
        Value::Number(number) => view.contains(&number.to_string()),
        _ => match key {
            Some(key) => view.contains(key),
            None => view.contains(&leaf.to_string()),
        },
    }
}

/// `text` as it appears inside a JSON string.
pub(super) fn escaped(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

fn quote(text: &str) -> String {
    let cut: String = text.chars().take(QUOTE_CHARS).collect();
    if cut.len() < text.len() { format!("\"{cut}…\"") } else { format!("\"{cut}\"") }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

fn shown_list(items: &[String]) -> String {
    let mut shown: Vec<&str> = items.iter().take(QUOTED).map(String::as_str).collect();
    let more = items.len().saturating_sub(QUOTED);
    let tail = format!("and {more} more");
    if more > 0 {
        shown.push(&tail);
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::Severity;
    use super::*;

    fn tool(output_schema: Option<Value>) -> ToolDef {
        let mut raw = json!({"name": "t", "inputSchema": {"type": "object"}});
        if let (Some(schema), Some(fields)) = (output_schema, raw.as_object_mut()) {
            fields.insert("outputSchema".to_owned(), schema);
        }
        ToolDef { name: "t".to_owned(), raw }
    }

    fn found(
        revision: McpRevision,
        tool: &ToolDef,
        host: Option<&HostProfile>,
        result: Value,
    ) -> Vec<(&'static str, String)> {
        let case = Case { label: "minimal".to_owned(), arguments: None, expect: Expect::Any };
        let context = Context { revision, tool, case: &case, host };
        let answer = Answer { message: json!({"jsonrpc": "2.0", "id": 1, "result": result}) };
        check(&context, &answer).into_iter().map(|f| (f.check, f.at)).collect()
    }

    #[test]
    fn what_a_client_reads_past_is_a_warning_and_what_it_cannot_read_an_error() {
        let case = Case { label: "minimal".to_owned(), arguments: None, expect: Expect::Any };
        let tool = tool(None);
        let context =
            Context { revision: McpRevision::V2024_11_05, tool: &tool, case: &case, host: None };
        let result = json!({"content": [{"type": "text", "text": "{\"n\":3}", "extra": 1},
                                        {"type": "resource_link", "uri": "file:///a", "name": "a"}],
                            "structuredContent": {"n": 3}, "isError": false});
        let answer = Answer { message: json!({"jsonrpc": "2.0", "id": 1, "result": result}) };
        let graded: Vec<(Severity, &str, String)> =
            check(&context, &answer).into_iter().map(|f| (f.severity, f.check, f.at)).collect();
        let at = |path: &str| format!("tools/call minimal {path}");
        assert_eq!(
            graded,
            vec![
                (Severity::Error, "official-schema", at("/content/1")),
                (Severity::Warning, "wire-contract", at("/structuredContent")),
                (Severity::Warning, "wire-contract", at("/isError")),
                (Severity::Warning, "wire-contract", at("/content/0/extra")),
                (Severity::Error, "wire-contract", at("/content/1/type")),
            ]
        );
    }

    #[test]
    fn a_uri_that_is_no_uri_is_a_warning_and_data_that_is_no_base64_an_error() {
        let case = Case { label: "minimal".to_owned(), arguments: None, expect: Expect::Any };
        let tool = tool(None);
        let context =
            Context { revision: McpRevision::V2025_06_18, tool: &tool, case: &case, host: None };
        let result = json!({"content": [
            {"type": "resource_link", "uri": "./report.csv", "name": "report"},
            {"type": "image", "data": "not base64!", "mimeType": "image/png"}]});
        let answer = Answer { message: json!({"jsonrpc": "2.0", "id": 1, "result": result}) };
        let graded: Vec<(Severity, String, String)> =
            check(&context, &answer).into_iter().map(|f| (f.severity, f.at, f.message)).collect();
        let at = |path: &str| format!("tools/call minimal {path}");
        assert_eq!(
            graded,
            vec![
                (
                    Severity::Warning,
                    at("/content/0/uri"),
                    r#"value is not a "uri" (official 2025-06-18 CallToolResult); SDK clients read it as any string"#.to_owned()
                ),
                (
                    Severity::Error,
                    at("/content/1/data"),
                    r#"value is not a "byte" (official 2025-06-18 CallToolResult)"#.to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_mirrored_result_is_clean_for_every_reader() {
        let result = json!({"content": [{"type": "text", "text": "{\"n\":3,\"ok\":true}"}], "structuredContent": {"n": 3, "ok": true}});
        let tool = tool(Some(json!({"type": "object"})));
        assert_eq!(found(McpRevision::V2025_06_18, &tool, None, result.clone()), vec![]);
        let hosts = toolwire_core::host::HostProfiles::builtin();
        for host in hosts.iter() {
            assert_eq!(
                found(McpRevision::V2025_06_18, &tool, Some(host), result.clone()),
                vec![],
                "{}",
                host.name
            );
        }
    }

    #[test]
    fn a_value_only_in_structured_content_breaks_the_mirror() {
        let result = json!({"content": [{"type": "text", "text": "3 items"}], "structuredContent": {"n": 3, "next": "c2"}});
        assert_eq!(
            found(McpRevision::V2025_11_25, &tool(None), None, result),
            vec![("text-mirror", "tools/call minimal /structuredContent/next".to_owned())]
        );
    }

    #[test]
    fn claude_code_s_cap_for_a_tool_is_the_size_the_tool_opted_in_to() {
        let rows: Vec<Value> =
            (0..2000).map(|i| json!({"id": i, "label": "a row of data"})).collect();
        let data = json!({"rows": rows});
        let text = data.to_string();
        assert!((50_000..200_000).contains(&text.len()), "{}", text.len());
        let result =
            json!({"content": [{"type": "text", "text": text}], "structuredContent": data});
        let hosts = toolwire_core::host::HostProfiles::builtin();
        let claude_code = hosts.by_name("claude-code");
        let plain = tool(Some(json!({"type": "object"})));
        assert_eq!(
            found(McpRevision::V2025_06_18, &plain, claude_code, result.clone()),
            vec![("host-cap", "tools/call minimal".to_owned())]
        );
        let mut opted_in = plain.clone();
        opted_in.raw["_meta"] = json!({"anthropic/maxResultSizeChars": 200_000});
        assert_eq!(opted_in.max_result_size_chars(), Some(200_000));
        assert_eq!(found(McpRevision::V2025_06_18, &opted_in, claude_code, result.clone()), vec![]);
        // Another host does not read Claude Code's key.
        let codex = hosts.by_name("codex");
        assert_eq!(
            found(McpRevision::V2025_06_18, &opted_in, codex, result),
            vec![("host-cap", "tools/call minimal".to_owned())]
        );
    }

    #[test]
    fn a_structured_reader_loses_the_prose() {
        let result = json!({"content": [{"type": "text", "text": "{\"n\":3}"}, {"type": "text", "text": "Dry run: nothing changed"}],
                            "structuredContent": {"n": 3}});
        let hosts = toolwire_core::host::HostProfiles::builtin();
        let vscode = hosts.by_name("vscode");
        assert_eq!(
            found(McpRevision::V2025_06_18, &tool(None), vscode, result),
            vec![("host-completeness", "tools/call minimal /structuredContent".to_owned())]
        );
    }
}
