//! Host profiles: what the application between the server and the model passes on to the model
//! (DESIGN §11), and [`model_view`], the text such a host gives the model for a `CallToolResult`.
//!
//! Hosts disagree: some hand the model only the JSON of `structuredContent` when it is present,
//! others only the text blocks; some cap a result's size; few let the model follow a link; some
//! fail a whole call whose tool promised an `outputSchema` but sent no `structuredContent`. A
//! [`HostProfile`] records those facts for one host; [`HostProfiles`] holds the built-in
//! profiles (each fact cited in `docs/hosts.md`) plus any the configuration adds or overrides, and
//! picks one per request from `clientInfo.name`.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which part of a `CallToolResult` a host gives the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reads {
    /// The JSON of `structuredContent` when present, else the text blocks.
    Structured,
    /// The content blocks only; `structuredContent` never reaches the model.
    Content,
    /// Both the content blocks and `structuredContent`.
    Both,
}

impl Reads {
    /// Every value, in documentation order.
    pub const ALL: [Reads; 3] = [Reads::Structured, Reads::Content, Reads::Both];

    /// The name used in the configuration and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Reads::Structured => "structured",
            Reads::Content => "content",
            Reads::Both => "both",
        }
    }
}

impl fmt::Display for Reads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `reads` value that is none of `structured`, `content`, `both`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown reads value `{0}`; expected structured, content or both")]
pub struct UnknownReads(pub String);

impl FromStr for Reads {
    type Err = UnknownReads;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|reads| reads.as_str() == text)
            .ok_or_else(|| UnknownReads(text.to_owned()))
    }
}

/// What one host passes on to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostProfile {
    /// The profile's name (`generic`, `claude-code`, …), as `--host` and `[[hosts]]` spell it.
    pub name: String,
    /// The `clientInfo.name` values that select this profile (compared ignoring ASCII case).
    #[serde(default)]
    pub client_names: Vec<String>,
    /// Which part of a result the model is given.
    pub reads: Reads,
    /// The host's inline cap on one result, in bytes of the channel it reads, if any.
    #[serde(default)]
    pub max_result_bytes: Option<usize>,
    /// Whether the model can follow a link through `resources/read`.
    #[serde(default = "default_reads_links")]
    pub reads_links: bool,
    /// Whether the host's client fails the whole call when a tool that published an
    /// `outputSchema` returns a success without `structuredContent`. Rendering does not depend
    /// on it (toolwire keeps that promise for every host); it says what breaking the promise
    /// would cost with this host.
    #[serde(default)]
    pub strict_structured: bool,
}

fn default_reads_links() -> bool {
    true
}

/// The name of the default profile.
pub const GENERIC: &str = "generic";

impl HostProfile {
    /// The profile for clients toolwire does not know: both channels, no cap, links followed
    /// (the rendering before host profiles existed).
    pub fn generic() -> Self {
        Self {
            name: GENERIC.to_owned(),
            client_names: Vec::new(),
            reads: Reads::Both,
            max_result_bytes: None,
            reads_links: true,
            strict_structured: false,
        }
    }

    /// Whether `client_name` (a `clientInfo.name`) selects this profile.
    pub fn matches_client(&self, client_name: &str) -> bool {
        self.client_names.iter().any(|name| name.eq_ignore_ascii_case(client_name))
    }

    /// Whether this host reads a tool's own size opt-in, `_meta["anthropic/maxResultSizeChars"]`
    /// in `tools/list`: Claude Code's profile only (by name, so a `[[hosts]]` entry replacing it
    /// keeps it); other hosts would not know the key.
    pub fn reads_size_opt_in(&self) -> bool {
        self.name == CLAUDE_CODE
    }

    /// This profile for one tool that may declare `max_result_chars` (published to this host
    /// as its size opt-in): for a host that reads the opt-in, its cap for that tool is the
    /// declared value, so toolwire offloads exactly where the host would; any other host, or a
    /// tool that declares none, gets the profile as it is.
    pub fn for_tool(&self, max_result_chars: Option<usize>) -> Cow<'_, HostProfile> {
        match max_result_chars {
            Some(chars) if self.reads_size_opt_in() => {
                // Bytes are never fewer than the characters they encode, so a cap in bytes
                // equal to the character count is never above the host's own limit.
                Cow::Owned(HostProfile { max_result_bytes: Some(chars), ..self.clone() })
            }
            _ => Cow::Borrowed(self),
        }
    }

    /// Whether `tools/list` shows this host a tool's `outputSchema`: every host but a structured
    /// reader, which would read only `structuredContent` and so is sent none for a result that
    /// carries more than data (DESIGN §11). Where it is shown, every success of that tool carries
    /// a `structuredContent` that validates against it: strict clients fail the call otherwise.
    pub fn sees_output_schema(&self) -> bool {
        self.reads != Reads::Structured
    }

    /// Whether this host is given the data once (DESIGN §11, "each fact once"): a `both` reader
    /// that is not `generic` reads `structuredContent` and the text blocks, so the text copy of
    /// data that goes as `structuredContent` is left out for it ([`DATA_POINTER`], or the
    /// summary, stands in its place). `generic` keeps the copy: an unknown client may read the
    /// text alone, and the spec asks that structured data be mirrored in text for such clients.
    pub fn reads_each_fact_once(&self) -> bool {
        self.reads == Reads::Both && self.name != GENERIC
    }

    /// Whether the rendering for this host is the generic one (`strict_structured` plays no
    /// part: it changes no rendering).
    pub fn is_generic_policy(&self) -> bool {
        self.reads == Reads::Both
            && self.max_result_bytes.is_none()
            && self.reads_links
            && !self.reads_each_fact_once()
    }
}

/// One built-in profile. The facts and their sources are in `docs/hosts.md`.
struct Builtin {
    name: &'static str,
    client_names: &'static [&'static str],
    reads: Reads,
    max_result_bytes: Option<usize>,
    reads_links: bool,
    strict_structured: bool,
}

/// The name of Claude Code's profile, the one host that reads a tool's own size opt-in
/// (`_meta["anthropic/maxResultSizeChars"]`, [`MAX_RESULT_SIZE_CHARS_KEY`]).
pub const CLAUDE_CODE: &str = "claude-code";

/// Claude Code's inline cap: results above ~50 000 characters are persisted to a file behind a
/// 2 KB preview. Counted here in bytes, which are never fewer than the characters they encode.
pub const CLAUDE_CODE_CAP: usize = 50_000;

/// Codex's inline cap: its tool output is cut at 10 000 bytes (`TruncationPolicy::Bytes`).
const CODEX_CAP: usize = 10_000;

/// opencode's inline cap: tool output is cut at 50 KiB (`Truncate.MAX_BYTES`; its 2 000-line
/// limit never binds first on toolwire's compact JSON).
const OPENCODE_CAP: usize = 50 * 1024;

/// The `_meta` key of a tool definition by which Claude Code lets one tool raise its size
/// limit, in characters.
pub const MAX_RESULT_SIZE_CHARS_KEY: &str = "anthropic/maxResultSizeChars";

/// The highest value Claude Code accepts for [`MAX_RESULT_SIZE_CHARS_KEY`].
pub const MAX_RESULT_SIZE_CHARS_CEILING: usize = 500_000;

const BUILTINS: [Builtin; 15] = [
    Builtin {
        name: GENERIC,
        client_names: &[],
        reads: Reads::Both,
        max_result_bytes: None,
        reads_links: true,
        strict_structured: false,
    },
    Builtin {
        name: CLAUDE_CODE,
        client_names: &["claude-code"],
        reads: Reads::Structured,
        max_result_bytes: Some(CLAUDE_CODE_CAP),
        reads_links: true,
        strict_structured: false,
    },
    Builtin {
        name: "vscode",
        client_names: &["Visual Studio Code", "Visual Studio Code - Insiders", "vscode"],
        reads: Reads::Structured,
        max_result_bytes: None,
        reads_links: true,
        strict_structured: false,
    },
    Builtin {
        name: "codex",
        client_names: &["codex-mcp-client"],
        reads: Reads::Structured,
        max_result_bytes: Some(CODEX_CAP),
        reads_links: false,
        strict_structured: false,
    },
    Builtin {
        name: "claude-desktop",
        client_names: &["claude-ai"],
        reads: Reads::Content,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: false,
    },
    Builtin {
        name: "kimi-code",
        client_names: &["kimi-code", "kimi-cli"],
        reads: Reads::Content,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: false,
    },
    Builtin {
        name: "open-webui",
        client_names: &["open-webui"],
        reads: Reads::Content,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: false,
    },
    Builtin {
        name: "cursor",
        client_names: &["cursor-vscode"],
        reads: Reads::Structured,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: true,
    },
    Builtin {
        name: "gemini-cli",
        client_names: &["gemini-cli-mcp-client"],
        reads: Reads::Content,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: true,
    },
    Builtin {
        name: "chatgpt",
        client_names: &["openai-mcp"],
        reads: Reads::Structured,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: true,
    },
    Builtin {
        name: "goose",
        client_names: &["goose"],
        reads: Reads::Content,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: false,
    },
    Builtin {
        name: "librechat",
        client_names: &["@librechat/api-client"],
        reads: Reads::Content,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: false,
    },
    Builtin {
        name: "opencode",
        client_names: &["opencode"],
        reads: Reads::Structured,
        max_result_bytes: Some(OPENCODE_CAP),
        reads_links: true,
        strict_structured: true,
    },
    Builtin {
        name: "copilot-cli",
        client_names: &["github-copilot-developer"],
        reads: Reads::Both,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: false,
    },
    Builtin {
        name: "jetbrains",
        client_names: &["JetBrains-IU-copilot-intellij", "JetBrains-JBC-copilot-intellij"],
        reads: Reads::Both,
        max_result_bytes: None,
        reads_links: false,
        strict_structured: false,
    },
];

/// The profiles a server knows: the built-in ones, then those the configuration adds or
/// overrides. Always holds `generic`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostProfiles {
    profiles: Vec<HostProfile>,
}

impl Default for HostProfiles {
    fn default() -> Self {
        Self::builtin()
    }
}

impl HostProfiles {
    /// The built-in profiles.
    pub fn builtin() -> Self {
        let profiles = BUILTINS
            .iter()
            .map(|builtin| HostProfile {
                name: builtin.name.to_owned(),
                client_names: builtin.client_names.iter().map(|c| (*c).to_owned()).collect(),
                reads: builtin.reads,
                max_result_bytes: builtin.max_result_bytes,
                reads_links: builtin.reads_links,
                strict_structured: builtin.strict_structured,
            })
            .collect();
        Self { profiles }
    }

    /// Adds `profile`, replacing the one of the same name (a `[[hosts]]` entry).
    pub fn insert(&mut self, profile: HostProfile) {
        match self.profiles.iter_mut().find(|p| p.name == profile.name) {
            Some(existing) => *existing = profile,
            None => self.profiles.push(profile),
        }
    }

    /// Every profile, built-in ones first.
    pub fn iter(&self) -> impl Iterator<Item = &HostProfile> {
        self.profiles.iter()
    }

    /// The profile named `name`.
    pub fn by_name(&self, name: &str) -> Option<&HostProfile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// The profile for a client that sent `client_name` as `clientInfo.name` (none sent, or
    /// an unknown name, gives `generic`). A profile added by the configuration wins over a
    /// built-in one claiming the same client name.
    pub fn for_client(&self, client_name: Option<&str>) -> &HostProfile {
        client_name
            .and_then(|client| self.profiles.iter().rev().find(|p| p.matches_client(client)))
            .unwrap_or_else(|| self.generic())
    }

    /// The `generic` profile (as configured, if overridden).
    pub fn generic(&self) -> &HostProfile {
        // `builtin` puts `generic` first and `insert` only ever replaces it in place.
        &self.profiles[0]
    }
}

/// The preview of the data an offload stub carries for a host with a cap: at most this many
/// bytes of the data's JSON.
pub const PREVIEW_BYTES: usize = 2048;

/// The text block that stands for the data, for a host that reads it once from
/// `structuredContent` ([`HostProfile::reads_each_fact_once`]) when the result has no summary.
pub const DATA_POINTER: &str = "The data is in structuredContent.";

/// The name of the tool the gateway offers hosts that cannot follow links.
pub const READ_RESULT_TOOL: &str = "read_result";

/// How the model reads a stored result at `uri`: `resources/read`, or, for a host that cannot
/// follow links, the `read_result` tool (the arguments spelled out, so the model can copy them).
pub fn read_instruction(uri: &str, reads_links: bool) -> String {
    if reads_links {
        "read it with resources/read".to_owned()
    } else {
        let arguments = crate::json_text::to_json_string(&ReadResultArguments { uri });
        format!("read it by calling the tool {READ_RESULT_TOOL} with {arguments}")
    }
}

/// The arguments of the `read_result` tool: `{"uri"}`.
#[derive(Serialize)]
struct ReadResultArguments<'a> {
    uri: &'a str,
}

/// Whether `result` is a success that is data alone: nothing but the data (no summary, parts,
/// stored links, dry run, pagination or extension metadata). Only such a result keeps its
/// `structuredContent` for a structured reader, which would see nothing else.
pub(crate) fn is_data_alone(result: &crate::ToolResult) -> bool {
    let meta = result.meta();
    result.is_success()
        && result.data_json().is_some()
        && result.summary().is_none()
        && result.parts().is_empty()
        && result.stored_links().is_empty()
        && meta.dry_run.is_none()
        && meta.pagination.is_none()
        && meta.extensions.is_empty()
}

/// The text of the data preview: the data's compact JSON cut to `max` bytes (at most
/// [`PREVIEW_BYTES`]), saying whether it was cut.
pub(crate) fn data_preview(data_json: &str, max: usize) -> String {
    let max = max.min(PREVIEW_BYTES);
    if data_json.len() <= max {
        return format!("Data preview (complete): {data_json}");
    }
    let mut end = max;
    while !data_json.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "Data preview (cut: the first {end} of {} bytes of its JSON): {}…",
        data_json.len(),
        &data_json[..end]
    )
}

/// The text a host that reads `reads` gives the model for the `CallToolResult`
/// `call_tool_result`.
///
/// The content blocks become lines of text: a text block its text, an image or audio block
/// `[image <mime>]` / `[audio <mime>]`, an embedded text resource its text and an embedded blob
/// `[resource <uri> <mime>]`. `resource_link` blocks are left out: hosts range from dropping them
/// to flattening them to a bare URI, so whatever the model must know about a link has to be in a
/// text block. A block whose `annotations.audience` leaves out `assistant` (`["user"]`) is left
/// out too: hosts that honour it (VS Code) keep it from the model, so no fact may count on it. A structured reader gets the compact JSON of `structuredContent` when present
/// (nothing else), else the content lines; a content reader the content lines; `both` the
/// content lines followed by the structured JSON.
pub fn model_view(call_tool_result: &Value, reads: Reads) -> String {
    let structured = call_tool_result.get("structuredContent").map(Value::to_string);
    match (reads, structured) {
        (Reads::Structured, Some(json)) => json,
        (Reads::Structured | Reads::Content, _) | (Reads::Both, None) => {
            content_view(call_tool_result)
        }
        (Reads::Both, Some(json)) => {
            let mut text = content_view(call_tool_result);
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&json);
            text
        }
    }
}

fn content_view(call_tool_result: &Value) -> String {
    let blocks = call_tool_result.get("content").and_then(Value::as_array);
    let lines: Vec<String> = blocks.into_iter().flatten().filter_map(block_line).collect();
    lines.join("\n")
}

fn block_line(block: &Value) -> Option<String> {
    if let Some(audience) = block.pointer("/annotations/audience").and_then(Value::as_array)
        && !audience.iter().any(|role| role == "assistant")
    {
        return None;
    }
    let field = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
    match field("type") {
        "text" => Some(field("text").to_owned()),
        kind @ ("image" | "audio") => Some(format!("[{kind} {}]", field("mimeType"))),
        "resource" => {
            let resource = block.get("resource")?;
            let inner = |key: &str| resource.get(key).and_then(Value::as_str);
            match inner("text") {
                Some(text) => Some(text.to_owned()),
                None => Some(format!(
                    "[resource {} {}]",
                    inner("uri").unwrap_or_default(),
                    inner("mimeType").unwrap_or_default()
                )),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_round_trips_through_text_and_serde() {
        for reads in Reads::ALL {
            assert_eq!(reads.to_string().parse::<Reads>(), Ok(reads));
            let json = serde_json::to_string(&reads).unwrap_or_default();
            assert_eq!(json, format!("\"{reads}\""));
            assert_eq!(serde_json::from_str::<Reads>(&json).ok(), Some(reads));
        }
        assert_eq!(
            "Structured".parse::<Reads>().map_err(|e| e.to_string()),
            Err("unknown reads value `Structured`; expected structured, content or both".into())
        );
    }

    #[test]
    fn lookup_by_name_and_client() {
        let hosts = HostProfiles::builtin();
        assert_eq!(hosts.generic(), &HostProfile::generic());
        assert!(hosts.generic().is_generic_policy());
        let claude = hosts.for_client(Some("claude-code"));
        assert_eq!((claude.name.as_str(), claude.reads), ("claude-code", Reads::Structured));
        assert_eq!(claude.max_result_bytes, Some(CLAUDE_CODE_CAP));
        assert_eq!(hosts.for_client(Some("VISUAL STUDIO CODE")).name, "vscode");
        assert_eq!(hosts.for_client(Some("codex-mcp-client")).name, "codex");
        assert!(!hosts.for_client(Some("codex-mcp-client")).reads_links);
        assert_eq!(hosts.for_client(Some("claude-ai")).reads, Reads::Content);
        assert_eq!(hosts.for_client(Some("some-agent")).name, GENERIC);
        assert_eq!(hosts.for_client(None).name, GENERIC);
        assert_eq!(hosts.by_name("vscode").map(|p| p.reads), Some(Reads::Structured));
        assert_eq!(hosts.by_name("nope"), None);
        assert!(hosts.iter().filter(|p| p.name != GENERIC).all(|p| !p.is_generic_policy()));
    }

    #[test]
    fn the_second_round_of_hosts() {
        let hosts = HostProfiles::builtin();
        let names: Vec<&str> = hosts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "generic",
                "claude-code",
                "vscode",
                "codex",
                "claude-desktop",
                "kimi-code",
                "open-webui",
                "cursor",
                "gemini-cli",
                "chatgpt",
                "goose",
                "librechat",
                "opencode",
                "copilot-cli",
                "jetbrains"
            ]
        );
        // (client name, profile, reads, cap, reads_links, strict_structured)
        let expected = [
            ("cursor-vscode", "cursor", Reads::Structured, None, false, true),
            ("gemini-cli-mcp-client", "gemini-cli", Reads::Content, None, false, true),
            ("openai-mcp", "chatgpt", Reads::Structured, None, false, true),
            ("goose", "goose", Reads::Content, None, false, false),
            ("@librechat/api-client", "librechat", Reads::Content, None, false, false),
            ("opencode", "opencode", Reads::Structured, Some(51_200), true, true),
            ("github-copilot-developer", "copilot-cli", Reads::Both, None, false, false),
            ("jetbrains-iu-copilot-intellij", "jetbrains", Reads::Both, None, false, false),
            ("JetBrains-JBC-copilot-intellij", "jetbrains", Reads::Both, None, false, false),
            ("codex-mcp-client", "codex", Reads::Structured, Some(10_000), false, false),
            ("claude-code", "claude-code", Reads::Structured, Some(50_000), true, false),
        ];
        for (client, name, reads, cap, links, strict) in expected {
            let p = hosts.for_client(Some(client));
            assert_eq!(
                (p.name.as_str(), p.reads, p.max_result_bytes, p.reads_links, p.strict_structured),
                (name, reads, cap, links, strict),
                "{client}"
            );
        }
        let strict: Vec<&str> =
            hosts.iter().filter(|p| p.strict_structured).map(|p| p.name.as_str()).collect();
        assert_eq!(strict, ["cursor", "gemini-cli", "chatgpt", "opencode"]);
    }

    #[test]
    fn only_claude_code_takes_a_tools_size_opt_in() {
        let hosts = HostProfiles::builtin();
        let claude = hosts.for_client(Some("claude-code"));
        assert!(claude.reads_size_opt_in());
        assert_eq!(claude.for_tool(Some(120_000)).max_result_bytes, Some(120_000));
        assert_eq!(claude.for_tool(Some(8_000)).max_result_bytes, Some(8_000));
        assert_eq!(claude.for_tool(None).max_result_bytes, Some(CLAUDE_CODE_CAP));
        assert_eq!(claude.for_tool(Some(8_000)).reads, Reads::Structured);
        for other in hosts.iter().filter(|p| p.name != CLAUDE_CODE) {
            assert!(!other.reads_size_opt_in(), "{}", other.name);
            assert_eq!(other.for_tool(Some(120_000)).as_ref(), other, "{}", other.name);
        }
    }

    #[test]
    fn configured_profiles_add_and_override() {
        let mut hosts = HostProfiles::builtin();
        let before = hosts.iter().count();
        let profile: HostProfile = serde_json::from_value(json!({
            "name": "my-agent", "client_names": ["claude-code"], "reads": "content"
        }))
        .unwrap_or_else(|_| HostProfile::generic());
        assert_eq!(profile.max_result_bytes, None);
        assert!(profile.reads_links);
        assert!(!profile.strict_structured);
        let strict: Result<HostProfile, _> = serde_json::from_value(json!({
            "name": "s", "reads": "content", "strict_structured": true
        }));
        assert_eq!(strict.map(|p| p.strict_structured).ok(), Some(true));
        hosts.insert(profile);
        assert_eq!(hosts.iter().count(), before + 1);
        assert_eq!(hosts.for_client(Some("claude-code")).name, "my-agent");
        hosts.insert(HostProfile { reads: Reads::Content, ..HostProfile::generic() });
        assert_eq!(hosts.iter().count(), before + 1);
        assert_eq!(hosts.for_client(Some("x")).reads, Reads::Content);
        let unknown = serde_json::from_value::<HostProfile>(json!({
            "name": "x", "reads": "both", "cap": 3
        }));
        assert!(unknown.is_err());
    }

    fn sample() -> Value {
        json!({
            "content": [
                {"type": "text", "text": "Dry run: price would change"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "toolwire://r/1", "name": "r"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "inner"}},
                {"type": "resource", "resource": {"uri": "file:///b", "mimeType": "application/pdf", "blob": "AA=="}},
                {"type": "audio", "data": "AA==", "mimeType": "audio/wav"}
            ],
            "structuredContent": {"id": 5, "dryRun": true}
        })
    }

    #[test]
    fn views_per_reads() {
        let result = sample();
        let lines = "Dry run: price would change\n[image image/png]\ninner\n\
                     [resource file:///b application/pdf]\n[audio audio/wav]";
        assert_eq!(model_view(&result, Reads::Structured), r#"{"id":5,"dryRun":true}"#);
        assert_eq!(model_view(&result, Reads::Content), lines);
        assert_eq!(
            model_view(&result, Reads::Both),
            format!("{lines}\n{{\"id\":5,\"dryRun\":true}}")
        );
        let text_only =
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        for reads in Reads::ALL {
            assert_eq!(model_view(&text_only, reads), "a\nb");
        }
        let for_user = json!({"content": [
            {"type": "text", "text": "shown", "annotations": {"audience": ["user"]}},
            {"type": "text", "text": "read", "annotations": {"audience": ["assistant"]}},
            {"type": "text", "text": "both", "annotations": {"audience": ["user", "assistant"]}},
            {"type": "image", "data": "AA==", "mimeType": "image/png", "annotations": {"audience": ["user"]}}
        ]});
        for reads in Reads::ALL {
            assert_eq!(model_view(&for_user, reads), "read\nboth");
        }
        let structured_only = json!({"content": [], "structuredContent": [1, 2]});
        assert_eq!(model_view(&structured_only, Reads::Both), "[1,2]");
        assert_eq!(model_view(&structured_only, Reads::Content), "");
        assert_eq!(model_view(&json!("not a result"), Reads::Both), "");
    }
}
