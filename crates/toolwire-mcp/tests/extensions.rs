//! The extension points of `McpServer` as a library user meets them: a resource, a resource
//! template, a prompt, completion and a call guard registered through the public API, then read
//! by a client over the wire (exact JSON).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, Role,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use support::Peer;
use toolwire_core::ToolResult;
use toolwire_mcp::extend::{CallGuard, Completion, ExtensionFuture, Prompts, Resources};
use toolwire_mcp::{CallContext, Gateway, GatewayConfig, McpServer, Registry, ToolSpec};

/// Notes by day: one listed resource, a template for the others, a prompt and completion of
/// its `day` argument. Shared (an `Arc`) like any state a server keeps.
#[derive(Clone)]
struct Notes(Arc<Vec<(&'static str, &'static str)>>);

impl Notes {
    fn new() -> Self {
        Self(Arc::new(vec![("monday", "Water the plants."), ("tuesday", "Call the bank.")]))
    }

    fn note(&self, day: &str) -> Option<&'static str> {
        self.0.iter().find(|(d, _)| *d == day).map(|(_, note)| *note)
    }
}

impl Resources for Notes {
    fn list(&self) -> Vec<Resource> {
        vec![Resource::new("notes://monday", "monday").with_mime_type("text/plain")]
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        vec![ResourceTemplate::new("notes://{day}", "note").with_title("The note of a day")]
    }

    fn read<'a>(
        &'a self,
        uri: &'a str,
        _request: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Option<Result<ReadResourceResult, ErrorData>>> {
        Box::pin(async move {
            let day = uri.strip_prefix("notes://")?;
            let read = match self.note(day) {
                Some(note) => Ok(ReadResourceResult::new(vec![ResourceContents::text(note, uri)])),
                None => Err(ErrorData::resource_not_found(format!("no note for {day}"), None)),
            };
            Some(read)
        })
    }
}

impl Prompts for Notes {
    fn list(&self) -> Vec<Prompt> {
        vec![Prompt::new(
            "plan",
            Some("Plans a day from its note"),
            Some(vec![PromptArgument::new("day").with_required(true)]),
        )]
    }

    fn get<'a>(
        &'a self,
        request: GetPromptRequestParams,
        _context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<GetPromptResponse, ErrorData>> {
        Box::pin(async move {
            let day = request.arguments.as_ref().and_then(|a| a.get("day")).and_then(Value::as_str);
            let note = day.and_then(|day| self.note(day));
            match (request.name.as_str(), note) {
                ("plan", Some(note)) => {
                    Ok(GetPromptResponse::Complete(GetPromptResult::new(vec![
                        PromptMessage::new_text(Role::User, format!("Plan around: {note}")),
                    ])))
                }
                _ => Err(ErrorData::invalid_params("unknown prompt or day", None)),
            }
        })
    }
}

impl Completion for Notes {
    fn complete<'a>(
        &'a self,
        request: CompleteRequestParams,
        _context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<CompleteResult, ErrorData>> {
        Box::pin(async move {
            let typed = request.argument.value.as_str();
            let days = self.0.iter().map(|(d, _)| (*d).to_owned()).filter(|d| d.starts_with(typed));
            let info = CompletionInfo::with_all_values(days.collect())
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            Ok(CompleteResult::new(info))
        })
    }
}

/// Refuses `locked` before it runs.
struct Lock;

impl CallGuard for Lock {
    fn check(&self, tool: &str, _request: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
        match tool {
            "locked" => Err(ErrorData::invalid_request("locked is closed today", None)),
            _ => Ok(()),
        }
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

fn gateway() -> Arc<Gateway> {
    let mut tools = Registry::new();
    tools
        .register(ToolSpec::new("locked", "Never runs."), |_: Nothing, _: CallContext| async move {
            ToolResult::empty()
        })
        .unwrap();
    Gateway::new(tools, GatewayConfig::in_memory().unwrap())
}

async fn extended() -> Peer {
    let notes = Notes::new();
    let server = McpServer::new(gateway())
        .with_resources(notes.clone())
        .with_prompts(notes.clone())
        .with_completion(notes)
        .with_call_guard(Lock);
    let mut peer = Peer::connect(server);
    let init = peer.initialize("2025-11-25").await;
    assert_eq!(
        init["capabilities"],
        json!({"completions": {}, "prompts": {}, "resources": {}, "tools": {}})
    );
    peer
}

#[tokio::test]
async fn extension_resources_are_listed_and_read_beside_stored_results() {
    let mut peer = extended().await;
    let list = peer.request("resources/list", json!({})).await;
    assert_eq!(
        list["result"],
        json!({"resources": [{"uri": "notes://monday", "name": "monday", "mimeType": "text/plain"}]})
    );
    let templates = peer.request("resources/templates/list", json!({})).await;
    let templates = &templates["result"]["resourceTemplates"];
    assert_eq!(templates.as_array().map(Vec::len), Some(2), "{templates}");
    assert_eq!(templates[0]["name"], "stored-result");
    assert_eq!(
        templates[1],
        json!({"uriTemplate": "notes://{day}", "name": "note", "title": "The note of a day"})
    );
    let read = peer.request("resources/read", json!({"uri": "notes://tuesday"})).await;
    assert_eq!(
        read["result"],
        json!({"contents": [{"uri": "notes://tuesday", "mimeType": "text/plain", "text": "Call the bank."}]})
    );
    let missing = peer.request("resources/read", json!({"uri": "notes://sunday"})).await;
    assert_eq!(
        missing["error"],
        json!({"code": -32002, "message": "no note for sunday"}),
        "{missing}"
    );
    // Not a note: the stored results answer, and know nothing of it.
    let other = peer.request("resources/read", json!({"uri": "toolwire://results/nope"})).await;
    assert_eq!(other["error"]["code"], -32002, "{other}");
    assert_eq!(other["error"]["message"], "Resource not found");
}

#[tokio::test]
async fn extension_prompts_and_completion_answer() {
    let mut peer = extended().await;
    let list = peer.request("prompts/list", json!({})).await;
    assert_eq!(
        list["result"],
        json!({"prompts": [{"name": "plan", "description": "Plans a day from its note",
                            "arguments": [{"name": "day", "required": true}]}]})
    );
    let get =
        peer.request("prompts/get", json!({"name": "plan", "arguments": {"day": "monday"}})).await;
    assert_eq!(
        get["result"],
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Plan around: Water the plants."}}]})
    );
    let unknown = peer.request("prompts/get", json!({"name": "nap"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let complete = peer
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "plan"},
                   "argument": {"name": "day", "value": "tu"}}),
        )
        .await;
    assert_eq!(
        complete["result"],
        json!({"completion": {"values": ["tuesday"], "total": 1, "hasMore": false}})
    );
}

#[tokio::test]
async fn a_call_guard_refuses_before_the_tool_runs() {
    let mut peer = extended().await;
    let call = peer.request("tools/call", json!({"name": "locked", "arguments": {}})).await;
    assert_eq!(call["error"], json!({"code": -32600, "message": "locked is closed today"}));
}

#[tokio::test]
async fn without_extensions_prompts_and_completion_are_not_served() {
    let mut peer = Peer::connect(McpServer::new(gateway()));
    let init = peer.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"], json!({"resources": {}, "tools": {}}));
    let prompts = peer.request("prompts/list", json!({})).await;
    assert_eq!(prompts["error"]["code"], -32601, "{prompts}");
    let complete = peer
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "plan"},
                   "argument": {"name": "day", "value": ""}}),
        )
        .await;
    assert_eq!(complete["error"]["code"], -32601, "{complete}");
    let list = peer.request("resources/list", json!({})).await;
    assert_eq!(list["result"], json!({"resources": []}));
}
