//! `toolwire check` against small raw JSON-RPC servers, each with one deliberate defect: every
//! defect is found, named (the check), graded (error or warning) and located (revision, tool,
//! request and path), and nothing else is reported. A server without a defect is clean; one
//! whose findings are all warnings exits 0 unless `--strict`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// The one thing a fixture server gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Defect {
    None,
    /// `structuredContent` is an array on 2025-06-18.
    ArrayStructured,
    /// `structuredContent` breaks the published outputSchema (`price` a string).
    OutputSchemaMismatch,
    /// No text block mirrors `structuredContent`.
    NoTextMirror,
    /// No `resultType` on 2026-07-28 results.
    NoResultType,
    /// An outputSchema and `structuredContent` at every revision, also 2024-11-05 and 2025-03-26,
    /// which do not define them (what the official SDKs send).
    UndefinedFields,
    /// A success with text only from a tool that publishes an outputSchema.
    TextOnlySuccess,
    /// A call missing a required argument is answered with JSON-RPC `-32602`.
    RpcArgumentError,
    /// A boolean sub-schema in the input schema.
    BooleanSubSchema,
    /// A result over the 262 144-byte limit.
    OverLimit,
    /// A summary only in a text block, which hosts that read `structuredContent` never show.
    SummaryOnlyInText,
}

const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const STATELESS: &str = "2026-07-28";
const REVISIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", STATELESS];

/// The revision a request is spoken in: the `_meta` of a stateless request, else the session
/// (this fixture names each session after the revision its `initialize` agreed).
fn revision_of(headers: &axum::http::HeaderMap, params: &Value) -> String {
    if let Some(version) = params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion") {
        return version.as_str().unwrap_or_default().to_owned();
    }
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
}

fn has_structured(revision: &str) -> bool {
    revision >= "2025-06-18"
}

fn tool(defect: Defect, revision: &str) -> Value {
    let mut properties = json!({"id": {"type": "string", "description": "Product id"}});
    if defect == Defect::BooleanSubSchema {
        properties["tags"] = json!({"type": "array", "items": true});
    }
    let mut tool = json!({
        "name": "lookup",
        "description": "Looks a product up by id.",
        "inputSchema": {"type": "object", "properties": properties, "required": ["id"]},
    });
    if revision >= "2025-03-26" {
        tool["annotations"] = json!({"readOnlyHint": true});
    }
    if has_structured(revision) || defect == Defect::UndefinedFields {
        tool["outputSchema"] = json!({
            "type": "object",
            "properties": {"id": {"type": "string"}, "price": {"type": "number"}, "notes": {"type": "string"}},
            "required": ["id", "price"]
        });
    }
    tool
}

fn call_result(defect: Defect, revision: &str, arguments: &Value) -> Result<Value, Value> {
    let Some(id) = arguments.get("id").and_then(Value::as_str) else {
        if defect == Defect::RpcArgumentError {
            return Err(json!({"code": -32602, "message": "missing required argument: id"}));
        }
        let mut failed =
            json!({"content": [{"type": "text", "text": "`id` is required"}], "isError": true});
        if revision == STATELESS && defect != Defect::NoResultType {
            failed["resultType"] = json!("complete");
        }
        return Ok(failed);
    };
    let mut data = json!({"id": id, "price": 10});
    if defect == Defect::OutputSchemaMismatch {
        data["price"] = json!("ten");
    }
    if defect == Defect::OverLimit {
        data["notes"] = json!("n".repeat(300_000));
    }
    let mut result = json!({"content": [{"type": "text", "text": data.to_string()}]});
    if (has_structured(revision) || defect == Defect::UndefinedFields)
        && defect != Defect::TextOnlySuccess
    {
        result["structuredContent"] =
            if defect == Defect::ArrayStructured && revision == "2025-06-18" {
                json!([data])
            } else {
                data
            };
        if defect == Defect::NoTextMirror {
            result["content"] = json!([]);
        }
        if defect == Defect::SummaryOnlyInText {
            let summary = json!({"type": "text", "text": "Found 1 product; it is on sale."});
            result["content"].as_array_mut().unwrap().push(summary);
        }
    }
    if revision == STATELESS && defect != Defect::NoResultType {
        result["resultType"] = json!("complete");
    }
    Ok(result)
}

async fn handle(
    State(defect): State<Arc<Defect>>,
    headers: axum::http::HeaderMap,
    body: String,
) -> Response {
    let defect = *defect;
    let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let Some(id) = message.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let params = message.get("params").cloned().unwrap_or(json!({}));
    let revision = revision_of(&headers, &params);
    let info = json!({"name": "fixture", "version": "1"});
    let outcome: Result<Value, Value> = match message["method"].as_str().unwrap_or_default() {
        "initialize" => {
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let version = if HANDSHAKE.contains(&asked) { asked } else { "2025-11-25" };
            let result = json!({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info});
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
            return (
                [("content-type", "application/json"), ("mcp-session-id", version)],
                answer.to_string(),
            )
                .into_response();
        }
        "server/discover" => Ok(json!({
            "resultType": "complete", "supportedVersions": [STATELESS],
            "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": info}
        })),
        "tools/list" => {
            let mut page = json!({"tools": [tool(defect, &revision)]});
            if revision == STATELESS {
                page["resultType"] = json!("complete");
                page["ttlMs"] = json!(0);
                page["cacheScope"] = json!("public");
            }
            Ok(page)
        }
        "tools/call" => call_result(defect, &revision, &params["arguments"]),
        other => Err(json!({"code": -32601, "message": format!("no method {other}")})),
    };
    let answer = match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    };
    ([("content-type", "application/json")], answer.to_string()).into_response()
}

/// Starts the fixture on a free loopback port in a background thread; returns its URL.
fn serve(defect: Defect) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let app = Router::new().route("/mcp", post(handle)).with_state(Arc::new(defect));
            axum::serve(listener, app).await.unwrap();
        });
    });
    format!("http://{}/mcp", rx.recv().unwrap())
}

/// Runs `toolwire check --format json` on the fixture: exit code and report.
fn check(defect: Defect) -> (i32, Value) {
    let url = serve(defect);
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["check", &url, "--format", "json"])
        .output()
        .expect("run toolwire check");
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code().unwrap_or(-1), report)
}

/// Runs `toolwire check` on the fixture with `flags` and the text report: exit code and stdout.
fn check_text(defect: Defect, flags: &[&str]) -> (i32, String) {
    let url = serve(defect);
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["check", &url])
        .args(flags)
        .output()
        .expect("run toolwire check");
    (output.status.code().unwrap_or(-1), String::from_utf8(output.stdout).unwrap())
}

/// `(revision, severity, check, at)` of every finding, each about the tool `lookup`; the exit
/// code is 1 exactly when one is an error.
fn found(defect: Defect) -> Vec<(String, String, String, String)> {
    let (code, report) = check(defect);
    let findings = report["findings"].as_array().unwrap();
    let errors = findings.iter().any(|f| f["severity"] == "error");
    assert_eq!(code, i32::from(errors), "{report:#}");
    assert_eq!(report["summary"]["revisions"], 5, "{report:#}");
    findings
        .iter()
        .map(|f| {
            assert_eq!(f["tool"], "lookup", "{f}");
            let s = |k: &str| f[k].as_str().unwrap().to_owned();
            (s("revision"), s("severity"), s("check"), s("at"))
        })
        .collect()
}

/// `(revision, check, at)` of errors.
fn errors(list: &[(&str, &str, &str)]) -> Vec<(String, String, String, String)> {
    graded("error", list)
}

fn graded(severity: &str, list: &[(&str, &str, &str)]) -> Vec<(String, String, String, String)> {
    list.iter()
        .map(|(r, c, a)| ((*r).to_owned(), severity.to_owned(), (*c).to_owned(), (*a).to_owned()))
        .collect()
}

#[test]
fn a_server_without_a_defect_is_clean() {
    let (code, report) = check(Defect::None);
    assert_eq!(report["findings"], json!([]), "{report:#}");
    assert_eq!(code, 0);
    assert_eq!(report["summary"]["cells"], 5);
    // Two calls per revision (minimal, missing `id`) for the generic client and each host group.
    let calls = report["summary"]["calls"].as_u64().unwrap();
    assert_eq!(calls % 10, 0, "{calls}");
    assert!(calls >= 20, "{calls}");
    assert_eq!(report["tools"][0]["revisions"][0]["called"], json!(["minimal", "missing `id`"]));
}

#[test]
fn array_structured_content_on_2025_06_18() {
    let at = "tools/call minimal /structuredContent";
    assert_eq!(
        found(Defect::ArrayStructured),
        errors(&[
            ("2025-06-18", "official-schema", at),
            ("2025-06-18", "wire-contract", at),
            ("2025-06-18", "strict-client", at),
        ])
    );
}

#[test]
fn structured_content_that_breaks_its_output_schema_is_one_strict_client_error() {
    let at = "tools/call minimal /structuredContent/price";
    assert_eq!(
        found(Defect::OutputSchemaMismatch),
        errors(&[
            ("2025-06-18", "strict-client", at),
            ("2025-11-25", "strict-client", at),
            ("2026-07-28", "strict-client", at),
        ])
    );
    let (code, text) = check_text(Defect::OutputSchemaMismatch, &["--host", "none"]);
    assert_eq!(code, 1, "{text}");
    let lines: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(
        lines,
        [
            "tool    2024-11-05  2025-03-26  2025-06-18  2025-11-25  2026-07-28",
            "lookup  ✓           ✓           ✗ 1         ✗ 1         ✗ 1",
            "",
            "✗ error [strict-client] tools/call minimal /structuredContent/price: `structuredContent` breaks the published outputSchema: value is not of type \"number\"; strict clients (Cursor, Gemini CLI, ChatGPT, the official SDKs' clients) would fail this call (tools: lookup; revisions: 2025-06-18, 2025-11-25, 2026-07-28)",
            "",
            "3 errors, 0 warnings: 1 tool × 5 revisions, 3 of 5 cells failing, 10 calls",
        ]
    );
}

#[test]
fn a_success_with_text_only_from_a_tool_with_an_output_schema_fails_strict_clients() {
    let at = "tools/call minimal /structuredContent";
    assert_eq!(
        found(Defect::TextOnlySuccess),
        errors(&[
            ("2025-06-18", "strict-client", at),
            ("2025-11-25", "strict-client", at),
            ("2026-07-28", "strict-client", at),
        ])
    );
    let (code, text) = check_text(Defect::TextOnlySuccess, &["--host", "none"]);
    assert_eq!(code, 1, "{text}");
    let findings: Vec<&str> = text.lines().filter(|l| l.starts_with('✗')).collect();
    assert_eq!(
        findings,
        [
            "✗ error [strict-client] tools/call minimal /structuredContent: a success without `structuredContent` from a tool that publishes an outputSchema: strict clients (Cursor, Gemini CLI, ChatGPT, the official SDKs' clients) would fail this call (tools: lookup; revisions: 2025-06-18, 2025-11-25, 2026-07-28)"
        ]
    );
}

#[test]
fn a_missing_text_mirror() {
    let at = "tools/call minimal /structuredContent/id";
    assert_eq!(
        found(Defect::NoTextMirror),
        errors(&[
            ("2025-06-18", "text-mirror", at),
            ("2025-11-25", "text-mirror", at),
            ("2026-07-28", "text-mirror", at),
        ])
    );
}

#[test]
fn no_result_type_on_2026_07_28() {
    let (r, minimal, missing) = (STATELESS, "tools/call minimal", "tools/call missing `id`");
    assert_eq!(
        found(Defect::NoResultType),
        errors(&[
            (r, "official-schema", &format!("{minimal} /resultType")),
            (r, "wire-contract", &format!("{minimal} /resultType")),
            (r, "official-schema", &format!("{missing} /resultType")),
            (r, "wire-contract", &format!("{missing} /resultType")),
        ])
    );
}

#[test]
fn fields_older_revisions_do_not_define_are_grouped_warnings_and_exit_0() {
    let (listing, call) =
        ("tools/list /tools/0/outputSchema", "tools/call minimal /structuredContent");
    assert_eq!(
        found(Defect::UndefinedFields),
        graded(
            "warning",
            &[
                ("2024-11-05", "output-schema", listing),
                ("2024-11-05", "wire-contract", call),
                ("2025-03-26", "output-schema", listing),
                ("2025-03-26", "wire-contract", call),
            ]
        )
    );
    let (code, text) = check_text(Defect::UndefinedFields, &["--host", "none"]);
    assert_eq!(code, 0, "{text}");
    let lines: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(
        lines,
        [
            "tool    2024-11-05  2025-03-26  2025-06-18  2025-11-25  2026-07-28",
            "lookup  ⚠ 2         ⚠ 2         ✓           ✓           ✓",
            "",
            "⚠ warning [output-schema] tools/list /tools/*/outputSchema: `outputSchema` does not exist in 2024-11-05, 2025-03-26 (it arrives in 2025-06-18); clients ignore a field their revision does not define (tools: lookup; revisions: 2024-11-05, 2025-03-26)",
            "⚠ warning [wire-contract] tools/call minimal /structuredContent: `structuredContent` of a CallToolResult does not exist in 2024-11-05, 2025-03-26 (it arrives in 2025-06-18) (tools: lookup; revisions: 2024-11-05, 2025-03-26)",
            "",
            "0 errors, 4 warnings: 1 tool × 5 revisions, 0 of 5 cells failing, 10 calls",
        ]
    );
    let (code, report) = check(Defect::UndefinedFields);
    assert_eq!(code, 0);
    assert_eq!(report["summary"]["errors"], 0);
    assert_eq!(report["summary"]["warnings"], 4);
    assert_eq!(
        report["groups"][1],
        json!({
            "severity": "warning",
            "kind": "wire-contract",
            "message": "`structuredContent` of a CallToolResult does not exist in 2024-11-05, 2025-03-26 (it arrives in 2025-06-18)",
            "at": "tools/call minimal /structuredContent",
            "tools": ["lookup"],
            "revisions": ["2024-11-05", "2025-03-26"],
            "hosts": [],
            "count": 2,
        })
    );
}

#[test]
fn strict_makes_warnings_exit_1() {
    let (code, text) = check_text(Defect::UndefinedFields, &["--strict", "--host", "none"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.ends_with(
            "0 errors, 4 warnings: 1 tool × 5 revisions, 0 of 5 cells failing, 10 calls\n"
        ),
        "{text}"
    );
    let (code, text) = check_text(Defect::None, &["--strict", "--host", "none"]);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn an_argument_error_as_json_rpc_error_from_2025_11_25_is_a_warning() {
    let at = "tools/call missing `id`";
    assert_eq!(
        found(Defect::RpcArgumentError),
        graded(
            "warning",
            &[("2025-11-25", "argument-error", at), ("2026-07-28", "argument-error", at)]
        )
    );
}

#[test]
fn a_boolean_sub_schema() {
    let at = "tools/list /tools/0/inputSchema/properties/tags/items";
    let want: Vec<(&str, &str, &str)> = REVISIONS.iter().map(|r| (*r, "portability", at)).collect();
    assert_eq!(found(Defect::BooleanSubSchema), errors(&want));
}

#[test]
fn a_result_over_the_limit_is_a_warning_and_an_error_for_hosts_that_cut_it() {
    let (code, report) = check(Defect::OverLimit);
    assert_eq!(code, 1, "{report:#}");
    let findings = report["findings"].as_array().unwrap();
    let mut seen: Vec<(&str, &str, &str)> = findings
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap();
            (s("check"), s("severity"), s("revision"))
        })
        .collect();
    seen.sort_unstable();
    // One host-cap error per group of capped hosts that render alike (the check connects once
    // per group), one size warning, per revision.
    let capped: std::collections::BTreeSet<_> = toolwire_core::host::HostProfiles::builtin()
        .iter()
        .filter_map(|p| p.max_result_bytes.map(|cap| (p.reads.as_str(), cap, p.reads_links)))
        .collect();
    let mut want: Vec<(&str, &str, &str)> = REVISIONS
        .iter()
        .flat_map(|r| {
            std::iter::repeat_n(("host-cap", "error", *r), capped.len())
                .chain([("size", "warning", *r)])
        })
        .collect();
    want.sort_unstable();
    assert_eq!(seen, want);
    // Claude Code is among the hosts that cut it.
    assert!(
        findings
            .iter()
            .any(|f| f["hosts"].as_array().is_some_and(|h| h.contains(&json!("claude-code"))))
    );
    for finding in findings {
        let message = finding["message"].as_str().unwrap();
        if finding["check"] == "size" {
            assert_eq!(finding["hosts"], Value::Null, "{finding}");
            assert!(message.contains(" bytes, over toolwire's 262144-byte limit for a result; store it and send a resource_link"), "{message}");
        } else {
            let hosts = finding["hosts"].as_array().unwrap();
            assert!(!hosts.is_empty() && !hosts.contains(&json!("vscode")), "{hosts:?}");
            assert!(message.starts_with("the model would be given "), "{message}");
        }
    }
}

#[test]
fn cases_from_a_file_replace_the_generated_ones_and_their_outcome_is_checked() {
    let url = serve(Defect::None);
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.json");
    std::fs::write(
        &cases,
        r#"[{"tool": "lookup", "name": "known id", "arguments": {"id": "p-1"}},
            {"tool": "lookup", "name": "expects a failure", "arguments": {"id": "p-2"}, "expect": "error"}]"#,
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["check", &url, "--host", "none", "--format", "json", "--cases"])
        .arg(&cases)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["tools"][0]["revisions"][0]["called"],
        json!(["known id", "expects a failure"])
    );
    assert_eq!(report["summary"]["calls"], 10);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 5, "{findings:?}");
    for finding in findings {
        assert_eq!(finding["check"], "outcome");
        assert_eq!(finding["at"], "tools/call expects a failure /isError");
        assert_eq!(finding["message"], "expected an `isError` result, got a success");
    }
}

#[test]
fn a_summary_only_in_text_is_lost_to_structured_readers_and_names_them() {
    let (code, report) = check(Defect::SummaryOnlyInText);
    assert_eq!(code, 1);
    let findings = report["findings"].as_array().unwrap();
    let revisions: Vec<&str> = findings.iter().map(|f| f["revision"].as_str().unwrap()).collect();
    assert_eq!(revisions, ["2025-06-18", "2025-11-25", "2026-07-28"]);
    for finding in findings {
        assert_eq!(finding["check"], "host-completeness");
        assert_eq!(finding["at"], "tools/call minimal /structuredContent");
        assert_eq!(
            finding["message"],
            "a host that reads only `structuredContent` would not show the model 1 fact of the content blocks (\"Found 1 product; it is on sale.\")"
        );
        let hosts: Vec<&str> =
            finding["hosts"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
        assert!(hosts.contains(&"claude-code") && hosts.contains(&"vscode"), "{hosts:?}");
        assert!(!hosts.contains(&"claude-desktop") && !hosts.contains(&"generic"), "{hosts:?}");
    }
}

#[test]
fn the_html_report_marks_the_summary_lost_to_structured_readers_and_still_exits_1() {
    let url = serve(Defect::SummaryOnlyInText);
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["check", &url, "--format", "html"])
        .output()
        .expect("run toolwire check");
    assert_eq!(output.status.code(), Some(1));
    let page = String::from_utf8(output.stdout).unwrap();
    let open = r#"<script type="application/json" id="toolwire-data">"#;
    let start = page.find(open).unwrap() + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end].replace("<\\/", "</")).unwrap();
    let previews = data["previews"].as_array().unwrap();
    let labels: Vec<&str> = previews.iter().map(|p| p["label"].as_str().unwrap()).collect();
    assert_eq!(labels, REVISIONS.map(|r| format!("lookup · MCP {r}")));
    let summary = "text: \"Found 1 product; it is on sale.\"";
    let seen = |preview: &Value, host: &str| {
        let hosts = preview["hosts"].as_array().unwrap();
        let view = hosts.iter().find(|h| h["name"] == host).unwrap();
        let facts = view["facts"].as_array().unwrap();
        facts.iter().find(|f| f["what"] == summary).map(|f| f["seen"] == true)
    };
    // Before 2025-06-18 the fixture sends the data as text alone, without the summary.
    assert_eq!(seen(&previews[0], "claude-code"), None);
    assert_eq!(previews[0]["hosts"][0]["facts"][0]["what"], "content/0/text/id");
    for preview in &previews[2..] {
        assert_eq!(seen(preview, "claude-code"), Some(false), "{preview:#}");
        assert_eq!(seen(preview, "vscode"), Some(false));
        assert_eq!(seen(preview, "claude-desktop"), Some(true));
        assert_eq!(seen(preview, "generic"), Some(true));
        let kinds: Vec<&str> = preview["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["host-completeness"]);
    }
}
