//! Tool sources through the catalog: names unique across sources (the refusal names both), a
//! source whose list changes (the new list served, `notifications/tools/list_changed` sent to
//! the connected client), and tower layers around a source's calls.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use support::Peer;
use toolwire_core::ToolResult;
use toolwire_mcp::layered::Layered;
use toolwire_mcp::{
    Catalog, CatalogError, ChangeSignal, Gateway, GatewayConfig, McpServer, Registry, SourceHealth,
    ToolSource, ToolSpec,
};

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

/// A registry named `source` with tools of these names, each answering its own name.
fn registry(source: &str, names: &[&str]) -> Registry {
    let mut tools = Registry::named(source);
    for name in names {
        let answer = (*name).to_owned();
        tools
            .register(ToolSpec::new(*name, "Says its name."), move |_: Nothing| {
                let answer = answer.clone();
                async move { ToolResult::success(json!({"name": answer})) }
            })
            .unwrap();
    }
    tools
}

#[test]
fn a_name_offered_by_two_sources_is_refused_naming_both() {
    let catalog = Catalog::new().with(registry("demo", &["catalog_get", "echo"])).unwrap();
    let refused = catalog.add(registry("shop", &["ping", "echo"])).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "tool `echo` is offered by two sources, `demo` and `shop`: rename one, or give one source a tool prefix"
    );
    assert_eq!(
        refused,
        CatalogError::Collision {
            tool: "echo".into(),
            first: "demo".into(),
            second: "shop".into()
        }
    );
    // Nothing of the refused source joined.
    assert_eq!(catalog.names(), ["catalog_get", "echo"]);
    let twice = catalog.add(registry("demo", &["other"])).unwrap_err();
    assert_eq!(twice.to_string(), "two tool sources are named `demo`; source names must be unique");
    catalog.add(registry("shop", &["ping"])).unwrap();
    assert_eq!(catalog.names(), ["catalog_get", "echo", "ping"]);
    assert_eq!(
        catalog.health(),
        [("demo".to_owned(), SourceHealth::Ready), ("shop".to_owned(), SourceHealth::Ready)]
    );
}

/// A source whose tool list is whatever `names` holds, announcing each change.
struct Changing {
    names: Mutex<Vec<&'static str>>,
    signal: ChangeSignal,
}

impl ToolSource for Changing {
    fn name(&self) -> &str {
        "changing"
    }

    fn tools(&self) -> Registry {
        registry("changing", &self.names.lock().unwrap())
    }

    fn changes(&self) -> Option<ChangeSignal> {
        Some(self.signal.clone())
    }
}

fn names(list: &Value) -> Vec<&str> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_changed_list_is_served_and_announced_to_the_session() {
    let changing =
        Arc::new(Changing { names: Mutex::new(vec!["first"]), signal: ChangeSignal::new() });
    let catalog = Catalog::new().with(registry("tools", &["fixed"])).unwrap();
    catalog.add(Arc::clone(&changing)).unwrap();
    let gateway = Gateway::new(catalog.clone(), GatewayConfig::in_memory().unwrap());
    let mut peer = Peer::connect(McpServer::new(gateway));
    let init = peer.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"], json!({"resources": {}, "tools": {"listChanged": true}}));
    assert_eq!(names(&peer.request("tools/list", json!({})).await), ["fixed", "first"]);

    // The handshake's end reaches the server before the change does.
    peer.request("ping", json!({})).await;
    changing.names.lock().unwrap().push("second");
    changing.signal.fire();
    assert_eq!(
        peer.next_message().await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    assert_eq!(names(&peer.request("tools/list", json!({})).await), ["fixed", "first", "second"]);
    let called = peer.request("tools/call", json!({"name": "second", "arguments": {}})).await;
    assert_eq!(called["result"]["structuredContent"], json!({"name": "second"}), "{called}");

    // A change that collides is refused: the list stays as it was.
    changing.names.lock().unwrap().push("fixed");
    assert_eq!(
        catalog.refresh("changing").unwrap_err().to_string(),
        "tool `fixed` is offered by two sources, `tools` and `changing`: rename one, or give one source a tool prefix"
    );
    assert_eq!(catalog.names(), ["fixed", "first", "second"]);
}

#[tokio::test]
async fn a_fixed_catalog_announces_no_list_changes() {
    let catalog = Catalog::new()
        .with(registry("a", &["one"]))
        .unwrap()
        .with(registry("b", &["two"]))
        .unwrap();
    let mut peer =
        Peer::connect(McpServer::new(Gateway::new(catalog, GatewayConfig::in_memory().unwrap())));
    let init = peer.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"], json!({"resources": {}, "tools": {}}));
    assert_eq!(names(&peer.request("tools/list", json!({})).await), ["one", "two"]);
}

#[tokio::test]
async fn a_layered_source_times_calls_out_and_limits_concurrency() {
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let mut tools = Registry::named("slow");
    let (now, top) = (Arc::clone(&running), Arc::clone(&most));
    tools
        .register(ToolSpec::new("nap", "Sleeps a while."), move |input: Nap| {
            let (now, top) = (Arc::clone(&now), Arc::clone(&top));
            async move {
                let here = now.fetch_add(1, Ordering::SeqCst) + 1;
                top.fetch_max(here, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(input.ms)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                ToolResult::success(json!({"slept": input.ms}))
            }
        })
        .unwrap();
    let layers =
        tower::ServiceBuilder::new().timeout(Duration::from_millis(300)).concurrency_limit(1);
    let catalog = Catalog::new().with(Layered::new(tools, layers)).unwrap();
    let mut peer =
        Peer::connect(McpServer::new(Gateway::new(catalog, GatewayConfig::in_memory().unwrap())));
    peer.initialize("2025-06-18").await;

    let late = peer.request("tools/call", json!({"name": "nap", "arguments": {"ms": 5000}})).await;
    assert_eq!(
        late["result"]["structuredContent"],
        json!({"error": {
            "code": "upstream_unavailable",
            "message": "Tool nap did not answer in time. Try again later; if this keeps happening, the operator should check what the tool depends on.",
        }}),
        "{late}"
    );

    // Two calls at once run one after the other (each well within the timeout). The call that
    // ran out of time was dropped while it slept: it never counted itself out.
    running.store(0, Ordering::SeqCst);
    most.store(0, Ordering::SeqCst);
    for id in [101, 102] {
        peer.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "nap", "arguments": {"ms": 60}}}))
            .await;
    }
    let mut answered = Vec::new();
    while answered.len() < 2 {
        let message = peer.next_message().await;
        if message["id"].is_number() {
            assert_eq!(message["result"]["structuredContent"], json!({"slept": 60}), "{message}");
            answered.push(message["id"].as_u64().unwrap());
        }
    }
    answered.sort_unstable();
    assert_eq!(answered, [101, 102]);
    assert_eq!(most.load(Ordering::SeqCst), 1, "the limit let one call run at a time");
}

#[derive(Deserialize, JsonSchema)]
struct Nap {
    ms: u64,
}

/// A source of one tool, one resource and one prompt, all named after it.
struct Offering(&'static str);

impl Offering {
    fn uri(&self) -> String {
        format!("test://{}", self.0)
    }
}

impl ToolSource for Offering {
    fn name(&self) -> &str {
        self.0
    }

    fn tools(&self) -> Registry {
        registry(self.0, &[&format!("{}_tool", self.0)])
    }

    fn resources(&self) -> Option<Arc<dyn toolwire_mcp::extend::Resources>> {
        Some(Arc::new(Offering(self.0)))
    }

    fn prompts(&self) -> Option<Arc<dyn toolwire_mcp::extend::Prompts>> {
        Some(Arc::new(Offering(self.0)))
    }
}

impl toolwire_mcp::extend::Resources for Offering {
    fn list(&self) -> Vec<rmcp::model::Resource> {
        vec![rmcp::model::Resource::new(self.uri(), self.0)]
    }

    fn read<'a>(
        &'a self,
        uri: &'a str,
        _request: &'a rmcp::service::RequestContext<rmcp::service::RoleServer>,
    ) -> toolwire_mcp::extend::ExtensionFuture<
        'a,
        Option<Result<rmcp::model::ReadResourceResult, rmcp::ErrorData>>,
    > {
        let read = (uri == self.uri()).then(|| {
            let contents = rmcp::model::ResourceContents::text(format!("from {}", self.0), uri);
            Ok(rmcp::model::ReadResourceResult::new(vec![contents]))
        });
        Box::pin(async move { read })
    }
}

impl toolwire_mcp::extend::Prompts for Offering {
    fn list(&self) -> Vec<rmcp::model::Prompt> {
        vec![rmcp::model::Prompt::new(format!("{}_prompt", self.0), Some("A prompt."), None)]
    }

    fn get<'a>(
        &'a self,
        request: rmcp::model::GetPromptRequestParams,
        _context: &'a rmcp::service::RequestContext<rmcp::service::RoleServer>,
    ) -> toolwire_mcp::extend::ExtensionFuture<
        'a,
        Result<rmcp::model::GetPromptResponse, rmcp::ErrorData>,
    > {
        let answer = if request.name == format!("{}_prompt", self.0) {
            let text = format!("{} answers", self.0);
            Ok(rmcp::model::GetPromptResponse::Complete(rmcp::model::GetPromptResult::new(vec![
                rmcp::model::PromptMessage::new_text(rmcp::model::Role::User, text),
            ])))
        } else {
            Err(rmcp::ErrorData::invalid_params(format!("Unknown prompt: {}", request.name), None))
        };
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn resources_and_prompts_of_every_source_are_served() {
    let catalog = Catalog::new().with(Offering("north")).unwrap().with(Offering("south")).unwrap();
    let mut peer =
        Peer::connect(McpServer::new(Gateway::new(catalog, GatewayConfig::in_memory().unwrap())));
    let init = peer.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"], json!({"prompts": {}, "resources": {}, "tools": {}}));
    let resources = peer.request("resources/list", json!({})).await;
    assert_eq!(
        resources["result"]["resources"],
        json!([{"uri": "test://north", "name": "north"}, {"uri": "test://south", "name": "south"}])
    );
    let read = peer.request("resources/read", json!({"uri": "test://south"})).await;
    assert_eq!(read["result"]["contents"][0]["text"], "from south", "{read}");
    let prompts = peer.request("prompts/list", json!({})).await;
    let names: Vec<&str> = prompts["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["north_prompt", "south_prompt"]);
    let south = peer.request("prompts/get", json!({"name": "south_prompt"})).await;
    assert_eq!(south["result"]["messages"][0]["content"]["text"], "south answers", "{south}");
    let unknown = peer.request("prompts/get", json!({"name": "west_prompt"})).await;
    assert_eq!(unknown["error"]["message"], "Unknown prompt: west_prompt", "{unknown}");
}

#[tokio::test]
async fn a_changed_list_reaches_a_2026_listen_stream() {
    let changing =
        Arc::new(Changing { names: Mutex::new(vec!["first"]), signal: ChangeSignal::new() });
    let catalog = Catalog::new().with(Arc::clone(&changing)).unwrap();
    let mut peer =
        Peer::connect(McpServer::new(Gateway::new(catalog, GatewayConfig::in_memory().unwrap())));
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    peer.send(json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
                     "params": {"notifications": {"toolsListChanged": true}, "_meta": meta}}))
        .await;
    let acknowledged = peer.next_message().await;
    assert_eq!(
        acknowledged["method"], "notifications/subscriptions/acknowledged",
        "{acknowledged}"
    );
    assert_eq!(acknowledged["params"]["notifications"], json!({"toolsListChanged": true}));
    changing.names.lock().unwrap().push("second");
    changing.signal.fire();
    let changed = peer.next_message().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed", "{changed}");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9,
        "{changed}"
    );
}
