//! Fuzzes what `toolwire schema` prints against registration: for every shape and target, the
//! published form read from the declaration's text (`ToolOutput::publish_declaration_text`,
//! which checks without compiling and reads the root's arrays and properties one piece at a
//! time) must be byte for byte what registering the parsed declaration publishes, and a refusal
//! must carry the same message. Text that is not JSON must give serde_json's own error.
//!
//! Input: a declaration as UTF-8 text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire_core::{McpRevision, Shape, ToolOutput};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let revisions = McpRevision::ALL.into_iter().map(Some).chain([None]);
    let tree = match serde_json::from_str::<Value>(text) {
        Ok(tree) => tree,
        Err(err) => {
            for revision in revisions {
                let printed = ToolOutput::publish_declaration_text(text, Shape::Data, revision);
                let printed = printed.map(|_| ()).map_err(|err| err.to_string());
                assert_eq!(printed, Err(err.to_string()), "{text:?} is not JSON");
            }
            return;
        }
    };
    for shape in [Shape::Data, Shape::Envelope] {
        let registered = ToolOutput::from_declaration(&tree, shape);
        for revision in revisions.clone() {
            let expected = registered.as_ref().map_err(ToString::to_string).map(|output| {
                let form = match revision {
                    Some(revision) => output.published(revision),
                    None => output.declared().cloned(),
                };
                form.unwrap_or(Value::Null).to_string()
            });
            let printed = match ToolOutput::publish_declaration_text(text, shape, revision) {
                Ok(printed) => printed.map_err(|err| err.to_string()),
                Err(err) => panic!("{text:?} is JSON but printing says: {err}"),
            };
            assert_eq!(printed, expected, "{text:?} ({shape:?}, {revision:?})");
        }
    }
});
