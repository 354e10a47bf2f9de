//! The fast local app of `scripts/bench-gateway`: an HTTP app answering toolwire's app-tool
//! POSTs with answers written beforehand, so that a load on an app tool measures what the
//! gateway spends on an outside answer (the request, reading and parsing the answer,
//! validating and rendering it) against a native tool answering the same bytes.
//!
//! It is also the REST API of the OpenAPI loads: a key `GET /path` of the answers file is
//! answered to a GET of that path (`GET /openapi.json` the document, `GET /products/42` the
//! product), so that a load on a bridged operation measures the gateway, not the API.
//!
//! Usage: `bench_app ADDR ANSWERS.json`, where the file maps a tool name (or `GET /path`) to the
//! JSON document answered for it (`{"app_get": {"format": "toolwire.result.v1", "data": …}, …}`).
//! Prints `serving on http://ADDR` once listening; stops on Ctrl-C.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;

#[path = "support/serve.rs"]
mod serve;

/// The answers, each already written out.
type Answers = Arc<HashMap<String, Bytes>>;

/// The one member of toolwire's request the app looks at.
#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    tool: std::borrow::Cow<'a, str>,
}

async fn answer(State(answers): State<Answers>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Request<'_>>(&body) else {
        return (StatusCode::BAD_REQUEST, "not a toolwire app-tool request").into_response();
    };
    match answers.get(request.tool.as_ref()) {
        Some(answer) => {
            ([(header::CONTENT_TYPE, "application/json")], answer.clone()).into_response()
        }
        None => (StatusCode::NOT_FOUND, format!("no answer for {}", request.tool)).into_response(),
    }
}

/// A request of the REST API: the answer written for `GET /path`, else 404.
async fn rest(State(answers): State<Answers>, method: Method, uri: Uri) -> Response {
    match answers.get(&format!("{method} {}", uri.path())) {
        Some(answer) => {
            ([(header::CONTENT_TYPE, "application/json")], answer.clone()).into_response()
        }
        None => (StatusCode::NOT_FOUND, format!("no answer for {method} {uri}")).into_response(),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(addr), Some(path)) = (args.next(), args.next()) else {
        return Err("usage: bench_app ADDR ANSWERS.json".into());
    };
    let documents: HashMap<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&path)?)?;
    let answers: HashMap<String, Bytes> = documents
        .into_iter()
        .map(|(tool, document)| Ok((tool, Bytes::from(serde_json::to_vec(&document)?))))
        .collect::<Result<_, serde_json::Error>>()?;
    let app = Router::new().route("/", post(answer)).fallback(rest).with_state(Arc::new(answers));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("serving on http://{}", listener.local_addr()?);
    serve::until_ctrl_c(listener, app).await?;
    Ok(())
}
