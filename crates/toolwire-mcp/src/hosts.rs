//! What the gateway does per host (DESIGN §11): the profile of each request, picked from
//! `clientInfo.name` (the handshake's, or `io.modelcontextprotocol/clientInfo` in `_meta` on
//! 2026-07-28); the tool definitions such a host is shown (no `outputSchema` for a structured
//! reader, Claude Code's size opt-in for a tool that declares `max_result_chars`, `read_result`
//! added for a host that cannot follow links); and `read_result` itself,
//! which returns one page of a stored result within the host's limit.

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use toolwire_core::host::{HostProfile, HostProfiles, MAX_RESULT_SIZE_CHARS_KEY, READ_RESULT_TOOL};
use toolwire_core::revision::McpCaps;
use toolwire_core::{
    ErrorCode, McpRevision, Part, RenderContext, Rendered, Target, Timestamp, ToolError, ToolResult,
};
use toolwire_store::ReadError;

use crate::server::GatewayConfig;

/// The profile of the client behind `ctx` (unknown or anonymous clients: `generic`).
pub(crate) fn host_of<'h>(
    ctx: &RequestContext<RoleServer>,
    hosts: &'h HostProfiles,
) -> &'h HostProfile {
    // As rmcp's `client_info()` reads it (the request's `_meta` first, then the handshake; only
    // an `initialize` sets the handshake, so a stateless request has none), without copying the
    // whole handshake record for its name.
    if let Some(info) = ctx.meta.client_info() {
        return hosts.for_client(Some(&info.name));
    }
    let handshake = ctx.peer.peer_info();
    hosts.for_client(handshake.as_ref().map(|info| info.client_info.name.as_str()))
}

/// `definition` (of a tool declaring `max_result_chars`, if it does) as `host` is shown it on
/// `revision`: without `outputSchema` for a structured reader (it would read only
/// `structuredContent`, which toolwire then leaves out of richer results); with
/// `_meta["anthropic/maxResultSizeChars"]` for a host that reads that opt-in, where the
/// revision has `Tool._meta`.
pub(crate) fn definition_for(
    definition: &rmcp::model::Tool,
    max_result_chars: Option<usize>,
    host: &HostProfile,
    revision: McpRevision,
) -> rmcp::model::Tool {
    let mut tool = definition.clone();
    if !host.sees_output_schema() {
        tool.output_schema = None;
    }
    if let Some(chars) = max_result_chars
        && host.reads_size_opt_in()
        && McpCaps::of(revision).tool_meta
    {
        tool.meta.get_or_insert_default().0.insert(MAX_RESULT_SIZE_CHARS_KEY.into(), json!(chars));
    }
    tool
}

/// The `read_result` tool definition for `revision`.
pub(crate) fn read_result_definition(revision: McpRevision) -> Tool {
    let mut input_schema = JsonObject::new();
    input_schema.insert("type".into(), json!("object"));
    input_schema.insert(
        "properties".into(),
        json!({
            "uri": {"type": "string", "description": "The stored result's URI, as the earlier result gave it."},
            "offset": {"type": "integer", "minimum": 0, "description": "The byte offset to start at (default 0)."},
            "length": {"type": "integer", "minimum": 1, "description": "At most this many bytes (default and maximum: what fits the host's limit)."}
        }),
    );
    input_schema.insert("required".into(), json!(["uri"]));
    input_schema.insert("additionalProperties".into(), json!(false));
    let mut tool = Tool::new(
        READ_RESULT_TOOL,
        "Read a page of a stored result (a link a previous tool result pointed at). Without offset and length it returns the first page; the text says where the next page starts.",
        input_schema,
    );
    if McpCaps::of(revision).tool_annotations {
        tool.annotations = Some(ToolAnnotations::new().read_only(true));
    }
    tool
}

/// The arguments of one `read_result` call.
struct ReadArgs {
    uri: String,
    offset: usize,
    length: Option<usize>,
}

fn read_args(arguments: &Map<String, Value>) -> Result<ReadArgs, ToolError> {
    let mut invalid = Vec::new();
    let uri = match arguments.get("uri") {
        Some(Value::String(uri)) => uri.clone(),
        _ => {
            invalid.push(("/uri".to_owned(), "is required and must be a string".to_owned()));
            String::new()
        }
    };
    let mut count = |key: &str, min: u64| match arguments.get(key) {
        None => None,
        Some(value) => match value.as_u64().filter(|n| *n >= min) {
            Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            None => {
                invalid.push((format!("/{key}"), format!("must be an integer of at least {min}")));
                None
            }
        },
    };
    let offset = count("offset", 0).unwrap_or(0);
    let length = count("length", 1);
    if let Some(key) = arguments.keys().find(|k| !matches!(k.as_str(), "uri" | "offset" | "length"))
    {
        invalid.push((format!("/{key}"), "is not an argument of read_result".to_owned()));
    }
    if invalid.is_empty() {
        Ok(ReadArgs { uri, offset, length })
    } else {
        let listed: Vec<String> = invalid.iter().map(|(p, m)| format!("{p}: {m}")).collect();
        Err(ToolError::invalid_arguments(
            format!("Invalid arguments for {READ_RESULT_TOOL}: {}", listed.join("; ")),
            invalid,
        ))
    }
}

/// The bytes of `text` from `offset`, at most `length` of them, both moved back to char
/// boundaries.
fn page(text: &str, offset: usize, length: usize) -> (usize, &str) {
    let mut start = offset.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = start.saturating_add(length).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (start, &text[start..end])
}

/// What a `read_result` caller is told about a read that failed. Only an outage of the store's
/// backend is worth another call (`upstream_unavailable`, `details.retryable`); a link that is
/// unknown, expired or another caller's is `not_found`, and a damaged record is a
/// `tool_error`, both saying that calling again will not help.
fn read_failure(uri: &str, error: &ReadError) -> ToolError {
    let gone = match error {
        ReadError::NotFound { .. } => true,
        ReadError::Store(store) => store.kind() == "expired",
        _ => false,
    };
    if gone {
        ToolError::new(
            ErrorCode::NotFound,
            format!(
                "No stored result at {uri}: the link is unknown, expired or not yours; calling {READ_RESULT_TOOL} again will not help"
            ),
        )
    } else if error.is_retryable() {
        let mut details = Map::new();
        details.insert("retryable".into(), Value::Bool(true));
        ToolError::new(
            ErrorCode::UpstreamUnavailable,
            format!(
                "The result store is temporarily unavailable, so the stored result could not be read; the link is still valid: call {READ_RESULT_TOOL} again later"
            ),
        )
        .with_details(details)
    } else {
        ToolError::new(
            ErrorCode::ToolError,
            format!(
                "The stored result at {uri} is damaged and cannot be read; calling {READ_RESULT_TOOL} again will not help"
            ),
        )
    }
}

/// The result of one `read_result` call: the page and where the next one starts, as a
/// `ToolResult` for the host's render.
async fn read_page(
    config: &GatewayConfig,
    args: &ReadArgs,
    principal: &str,
    revision: McpRevision,
    budget: usize,
) -> ToolResult {
    let read = match config.read_stored(&args.uri, principal, revision).await {
        Ok(read) => read,
        Err(error) => {
            if !matches!(error, ReadError::NotFound { .. }) {
                tracing::error!(uri = %args.uri, %error, "could not read a stored result");
            }
            return ToolResult::failure(read_failure(&args.uri, &error));
        }
    };
    let texts: Vec<&str> = read.contents.iter().filter_map(|c| c.text.as_deref()).collect();
    let whole = texts.join("\n");
    let length = args.length.unwrap_or(budget).min(budget);
    let (start, text) = page(&whole, args.offset, length);
    let end = start + text.len();
    let next = if end < whole.len() {
        let mut arguments = Map::new();
        arguments.insert("uri".into(), Value::String(args.uri.clone()));
        arguments.insert("offset".into(), json!(end));
        format!(
            "; more follows: call {READ_RESULT_TOOL} with {} for the next page",
            Value::Object(arguments)
        )
    } else {
        "; this is the end".to_owned()
    };
    let summary = format!("Bytes {start}–{end} of {} of the stored result{next}.", whole.len());
    ToolResult::builder()
        .summary(summary)
        .part(Part::text(text))
        .build()
        .unwrap_or_else(|_| ToolResult::empty())
}

/// Runs `read_result` for `host` and renders the page; the page shrinks until the render fits
/// the host's limit.
pub(crate) async fn read_result(
    config: &GatewayConfig,
    arguments: &Map<String, Value>,
    principal: &str,
    revision: McpRevision,
    host: &HostProfile,
    now: Timestamp,
) -> Result<toolwire_core::Output, String> {
    let target = Target::Mcp(revision);
    let limit = [config.mapper.config().limit(target), host.max_result_bytes]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(toolwire_core::DEFAULT_LIMIT);
    let ctx = RenderContext::new(READ_RESULT_TOOL, now).host(host);
    let args = read_args(arguments);
    // JSON text is escaped once in the text block and again inside the compat envelope: a
    // quarter of the limit leaves room for both.
    let mut budget = (limit / 4).max(256);
    for _ in 0..4 {
        let result = match &args {
            Ok(args) => read_page(config, args, principal, revision, budget).await,
            Err(invalid) => ToolResult::failure(invalid.clone()),
        };
        match config.mapper.render_owned(result, target, config.phase, &ctx) {
            Ok(Rendered::Complete(output)) => return Ok(output),
            Ok(_) => budget /= 2,
            Err(error) => return Err(error.to_string()),
        }
    }
    Err(format!("no page of the stored result fits the limit of {limit} bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_outage_is_called_retryable() {
        use toolwire_store::{RecordId, StoreError};
        let uri = "toolwire://results/x";
        let id = RecordId::parse("0123456789abcdef0123456789abcdef").expect("a record id");
        let not_yours = ReadError::NotFound { uri: uri.to_owned() };
        let expired = ReadError::Store(StoreError::AlreadyExpired { expires: "then".into() });
        let outage = ReadError::Store(StoreError::Task("the runtime shut down".into()));
        let corrupt = ReadError::Store(StoreError::Corrupt { id });
        let not_a_result = ReadError::NotAResult { id, reason: "not v1".into() };
        let gone = "No stored result at toolwire://results/x: the link is unknown, expired or not yours; calling read_result again will not help";
        let damaged = "The stored result at toolwire://results/x is damaged and cannot be read; calling read_result again will not help";
        for (error, code, message) in [
            (not_yours, ErrorCode::NotFound, gone),
            (expired, ErrorCode::NotFound, gone),
            (corrupt, ErrorCode::ToolError, damaged),
            (not_a_result, ErrorCode::ToolError, damaged),
        ] {
            let told = read_failure(uri, &error);
            assert_eq!((&told.code, told.message.as_str()), (&code, message), "{error}");
            assert_eq!(told.details, None, "{error}");
            assert!(!told.message.contains("try again"), "{error}");
        }
        let told = read_failure(uri, &outage);
        assert_eq!(told.code, ErrorCode::UpstreamUnavailable);
        assert_eq!(
            told.message,
            "The result store is temporarily unavailable, so the stored result could not be read; the link is still valid: call read_result again later"
        );
        assert_eq!(told.details.and_then(|d| d.get("retryable").cloned()), Some(Value::Bool(true)));
    }

    #[test]
    fn pages_stay_on_char_boundaries() {
        assert_eq!(page("abcdef", 2, 3), (2, "cde"));
        assert_eq!(page("abc", 5, 3), (3, ""));
        assert_eq!(page("éé", 1, 2), (0, "é"));
        assert_eq!(page("aéb", 0, 2), (0, "a"));
    }

    #[test]
    fn arguments_are_checked() {
        let args = |v: Value| match v {
            Value::Object(map) => read_args(&map),
            _ => panic!("not an object"),
        };
        let ok = args(json!({"uri": "toolwire://results/x", "offset": 3, "length": 9}));
        assert!(matches!(ok, Ok(ReadArgs { offset: 3, length: Some(9), .. })));
        let Err(bad) = args(json!({"offset": -1, "length": 0, "extra": 1})) else {
            panic!("accepted bad arguments");
        };
        assert_eq!(
            bad.message,
            "Invalid arguments for read_result: /uri: is required and must be a string; /offset: must be an integer of at least 0; /length: must be an integer of at least 1; /extra: is not an argument of read_result"
        );
    }
}
