//! Fuzzes what the gateway does with an app endpoint's answer body: read it as a result
//! (v1 form, v2 form, legacy envelope, or plain text passed through), then render it for every
//! target and phase, under a declared output schema too. Nothing panics, and every rendering
//! that fits its limit is valid wire output for its target (a passthrough on the legacy target
//! is the app's text as written, so it is not checked there).
//!
//! Input: the answer body. The HTTP framing (status, content type, size cap) is reqwest's and
//! the gateway's own branching; the body is what the app controls.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolwire_core::{Shape, ToolOutput, legacy, parse_any};

#[path = "support/renders.rs"]
mod renders;

fn declared() -> &'static ToolOutput {
    static OUTPUT: OnceLock<ToolOutput> = OnceLock::new();
    OUTPUT.get_or_init(|| {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 100}}});
        ToolOutput::from_declaration(&schema, Shape::Data)
            .unwrap_or_else(|err| panic!("fixed schema refused: {err}"))
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // A JSON content type goes through the parser; any other is passed through as text.
    let results = [parse_any(data).ok(), Some(legacy::passthrough(text))];
    let none = ToolOutput::none(Shape::Data);
    for result in results.iter().flatten() {
        renders::assert_every_rendering_is_valid(result, &[&none, declared()]);
    }
});
