//! Fuzzes how the gateway reads a REST API's answer to a bridged operation (DESIGN §16): the
//! status, content type, `Link` and `Retry-After` an API sends and its body, made into a
//! `ToolResult` and rendered for every target and phase, under the operation's declared output
//! schema too. Nothing panics, and every rendering that fits its limit is valid wire output.
//!
//! Input: byte 0 picks the status, byte 1 the content type and which headers are sent, the rest
//! is the body.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolwire_core::{Shape, ToolOutput};
use toolwire_gateway::openapi::answer::Answer;

#[path = "support/renders.rs"]
mod renders;

const STATUSES: [u16; 16] =
    [200, 201, 204, 206, 301, 304, 400, 401, 403, 404, 410, 422, 429, 500, 503, 599];
const TYPES: [&str; 8] = [
    "application/json",
    "application/problem+json",
    "text/plain; charset=utf-8",
    "image/png",
    "application/octet-stream",
    "application/json; charset=latin1",
    "",
    "text/html",
];

fn declared() -> &'static ToolOutput {
    static OUTPUT: OnceLock<ToolOutput> = OnceLock::new();
    OUTPUT.get_or_init(|| {
        let schema = json!({"type": "object", "properties": {"id": {"type": "integer"}}});
        ToolOutput::from_declaration(&schema, Shape::Data)
            .unwrap_or_else(|err| panic!("fixed schema refused: {err}"))
    })
}

fuzz_target!(|data: &[u8]| {
    let [status, kind, body @ ..] = data else { return };
    let Ok(status) = http::StatusCode::from_u16(STATUSES[usize::from(status % 16)]) else {
        return;
    };
    let content_type = TYPES[usize::from(kind % 8)];
    let answer = Answer {
        status,
        content_type: (!content_type.is_empty()).then(|| content_type.to_owned()),
        link: (kind & 0x08 != 0).then(|| r#"</v1/items?page=2>; rel="next""#.to_owned()),
        retry_after: (kind & 0x10 != 0).then(|| "120".to_owned()),
        body: body.to_vec(),
    };
    let none = ToolOutput::none(Shape::Data);
    renders::assert_every_rendering_is_valid(&answer.into_result(), &[&none, declared()]);
});
