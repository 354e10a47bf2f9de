//! Fuzzes the wire checker (`toolwire validate`): any text, for every target and with an
//! arbitrary published output schema, yields a list of violations and never a panic.
//!
//! Input: the wire text, optionally followed by a NUL byte and a JSON output schema.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire_check::wire;
use toolwire_core::Target;

fuzz_target!(|data: &[u8]| {
    let (text, schema) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], serde_json::from_slice::<Value>(&data[at + 1..]).ok()),
        None => (data, None),
    };
    let Ok(text) = std::str::from_utf8(text) else { return };
    for target in Target::ALL {
        let _ = wire::check_with_schema(target, text, schema.as_ref());
    }
});
