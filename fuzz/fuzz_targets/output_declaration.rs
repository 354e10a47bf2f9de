//! Fuzzes output declarations (typed `{"outputs": …}` documents and raw JSON Schemas): a
//! declaration is accepted or refused with an error, never a panic; an accepted one publishes a
//! schema for every revision, and checking arbitrary data against it never panics either.
//!
//! Input: a JSON declaration, optionally followed by a NUL byte and JSON data to check.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire_core::{McpRevision, Shape, ToolOutput, ToolResult};

fuzz_target!(|data: &[u8]| {
    let (declaration, instance) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], Some(&data[at + 1..])),
        None => (data, None),
    };
    let Ok(declaration) = serde_json::from_slice::<Value>(declaration) else { return };
    for shape in [Shape::Data, Shape::Envelope] {
        let Ok(output) = ToolOutput::from_declaration(&declaration, shape) else { continue };
        for revision in McpRevision::ALL {
            if let Some(published) = output.published(revision) {
                assert!(published.is_object(), "published schema is not an object: {published}");
            }
        }
        let data = instance.and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok());
        if let Some(data) = data {
            let _ = output.check(&ToolResult::success(data));
        }
    }
});
