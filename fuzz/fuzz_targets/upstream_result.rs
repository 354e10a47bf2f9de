//! Fuzzes how the gateway reads an upstream MCP server's `tools/call` result (DESIGN §15): the
//! JSON the server sent, read as a `ToolResult` with and without a declared output schema (the
//! `[]`→`{}` repair follows its `properties`), then rendered for every target and phase. Nothing
//! panics, and every rendering that fits its limit is valid wire output for its target.
//!
//! Input: the `CallToolResult` JSON. The JSON-RPC framing is rmcp's; the result is what the
//! upstream controls.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolwire_core::{Shape, ToolOutput};
use toolwire_gateway::convert_upstream_result;

#[path = "support/renders.rs"]
mod renders;

fuzz_target!(|data: &[u8]| {
    let Ok(answer) = serde_json::from_slice::<Value>(data) else { return };
    let declared = json!({
        "type": "object",
        "properties": {"data": {"type": "object"}, "items": {"type": ["object", "null"]}}
    });
    let none = ToolOutput::none(Shape::Data);
    for output in [None, Some(&declared)] {
        let converted = convert_upstream_result(&answer, "fuzz", output);
        renders::assert_every_rendering_is_valid(&converted.result, &[&none]);
    }
});
