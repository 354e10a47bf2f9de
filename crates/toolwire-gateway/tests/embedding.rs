//! The gateway as a library: a builder from settings and the user's own sources, names unique
//! across every source (the refusal names both), and a router that merges into the user's app.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use axum::body::Body;
use http::{Request, StatusCode};
use schemars::JsonSchema;
use serde::Deserialize;
use toolwire_core::ToolResult;
use toolwire_gateway::{GatewayBuilder, Overrides, Settings};
use toolwire_mcp::{Registry, ToolSpec};
use tower::ServiceExt as _;

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

fn settings(text: &str) -> Settings {
    // Top-level keys first: a TOML table runs to the next one.
    let text = format!("{text}\n[store]\nurl = \"memory\"\n");
    Settings::from_text(&text, Path::new("toolwire.toml"), &Overrides::default(), &|_| None)
        .unwrap()
}

fn mine(names: &[&str]) -> Registry {
    let mut tools = Registry::named("mine");
    for name in names {
        tools
            .register(ToolSpec::new(*name, "A tool of the embedding app."), |_: Nothing| async {
                ToolResult::empty()
            })
            .unwrap();
    }
    tools
}

#[tokio::test]
async fn a_tool_name_taken_by_another_source_is_refused_naming_both() {
    let app_tool = settings(
        "[[tools]]\nname = \"catalog_get\"\ndescription = \"Shadows the demo.\"\nendpoint = \"http://127.0.0.1:9/x\"\n",
    );
    let refused = GatewayBuilder::from_settings(app_tool).build().await.unwrap_err();
    assert_eq!(refused.code, 2);
    assert_eq!(
        refused.message,
        "toolwire.toml: tool `catalog_get` is offered by two sources, `demo` and `app_tools`: rename one, or give one source a tool prefix"
    );
    let builder =
        GatewayBuilder::from_settings(settings("")).source(mine(&["ping", "catalog_count"]));
    let refused = builder.build().await.unwrap_err();
    assert_eq!(
        refused.message,
        "toolwire.toml: tool `catalog_count` is offered by two sources, `demo` and `mine`: rename one, or give one source a tool prefix"
    );
}

#[tokio::test]
async fn the_router_merges_into_the_users_app_beside_its_own_routes() {
    let gateway = GatewayBuilder::from_settings(settings("demo_tools = false\n"))
        .source(mine(&["ping"]))
        .build()
        .await
        .unwrap();
    assert_eq!(gateway.catalog().names(), ["ping"]);
    let app = axum::Router::new()
        .route("/hello", axum::routing::get(|| async { "hello" }))
        .merge(gateway.router());
    let get = |path: &str| Request::get(path).body(Body::empty()).unwrap();
    let hello = app.clone().oneshot(get("/hello")).await.unwrap();
    assert_eq!(hello.status(), StatusCode::OK);
    let health = app.clone().oneshot(get("/healthz")).await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let body = axum::body::to_bytes(health.into_body(), 1 << 16).await.unwrap();
    assert_eq!(&body[..], br#"{"status":"alive"}"#);
    let unknown = app.oneshot(get("/nowhere")).await.unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}
