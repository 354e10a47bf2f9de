//! A valid app answer whose data nests 126 levels deep comes back whole on every revision. The
//! gateway hands rmcp the typed result (`structuredContent` is the parsed answer's own data)
//! instead of parsing the JSON it rendered: on 2025-06-18 and 2025-11-25 the list is wrapped as
//! `{"result": …}`, and that rendered text nested past serde_json's recursion limit (the call
//! failed with -32603). The answer is checked in the raw body, which nests deeper than
//! serde_json (and so this test's client) parses.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::http::header;
use axum::response::IntoResponse;
use serde_json::json;

use crate::gateway::{HttpClient, REVISIONS, Server};

/// Levels of the answer's data.
const DATA_LEVELS: usize = 126;

/// `[[…[1]…]]`, `levels` lists deep.
fn nested(levels: usize) -> String {
    format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn a_126_level_answer_comes_back_whole() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let endpoint = format!("http://{}/deep", listener.local_addr().unwrap());
    let answer = format!(r#"{{"format":"toolwire.result.v1","data":{}}}"#, nested(DATA_LEVELS));
    let router = axum::Router::new().route(
        "/deep",
        axum::routing::post(move || async move {
            ([(header::CONTENT_TYPE, "application/json")], answer).into_response()
        }),
    );
    runtime.spawn(async move { axum::serve(listener, router).await });
    let config = format!(
        "[auth]\nanonymous = true\n\n[[tools]]\nname = \"deep\"\ndescription = \"A deep answer.\"\nendpoint = \"{endpoint}\"\n"
    );
    let server = Server::start(Some(&config), &[]);
    let data = nested(DATA_LEVELS);
    for revision in REVISIONS {
        let mut client = HttpClient::connect(&server.url, revision, None);
        let body = client.call_text("deep", json!({}));
        assert!(!body.contains("\"error\":{"), "{revision}: {body}");
        assert!(body.contains("\"result\":{"), "{revision}: {body}");
        // The compat envelope (the first text block) carries the data whole.
        let envelope = format!(r#"{{"type":"text","text":"{{\"success\":true,\"data\":{data}"#);
        assert!(body.contains(&envelope), "{revision}: {body}");
        let structured = match revision {
            "2024-11-05" | "2025-03-26" => None,
            "2026-07-28" => Some(format!(r#""structuredContent":{data},"#)),
            _ => Some(format!(r#""structuredContent":{{"result":{data}}},"#)),
        };
        match structured {
            Some(structured) => assert!(body.contains(&structured), "{revision}: {body}"),
            None => assert!(!body.contains("structuredContent"), "{revision}: {body}"),
        }
    }
}
