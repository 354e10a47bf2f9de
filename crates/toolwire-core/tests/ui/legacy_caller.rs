// A crate that denies deprecated items and still builds a tool result from a hand-written
// legacy string.
#![deny(deprecated)]

use toolwire_core::ToolResult;

fn main() {
    let result = ToolResult::from_legacy_json(r#"{"success":true,"data":{"id":7}}"#);
    assert!(result.is_success());
}
