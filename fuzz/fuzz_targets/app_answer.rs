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
use toolwire_check::wire;
use toolwire_core::{
    OutputMapper, Phase, RenderContext, Rendered, Shape, Target, Timestamp, ToolOutput, legacy,
    parse_any,
};

fn declared() -> &'static ToolOutput {
    static OUTPUT: OnceLock<ToolOutput> = OnceLock::new();
    OUTPUT.get_or_init(|| {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 100}}});
        ToolOutput::from_declaration(&schema, Shape::Data)
            .unwrap_or_else(|err| panic!("fixed schema refused: {err}"))
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // A JSON content type goes through the parser; any other is passed through as text.
    let results = [parse_any(data).ok(), Some(legacy::passthrough(text))];
    let mapper = OutputMapper::default();
    let Some(now) = Timestamp::from_unix_seconds(1_767_225_600) else { return };
    let none = ToolOutput::none(Shape::Data);
    for result in results.iter().flatten() {
        for output in [&none, declared()] {
            let cx = RenderContext::new("fuzz", now).output(output);
            for target in Target::ALL {
                for phase in [Phase::Compat, Phase::Spec] {
                    let Ok(Rendered::Complete(rendered)) = mapper.render(result, target, phase, &cx)
                    else {
                        continue;
                    };
                    // A passthrough that looks like an envelope goes out on the legacy target as
                    // the app wrote it (DESIGN §7), which the checker's envelope grammar flags.
                    if target == Target::Legacy && result.is_passthrough() {
                        continue;
                    }
                    let violations = wire::check(target, rendered.json());
                    assert!(violations.is_empty(), "{target:?}: {violations:?} in {}", rendered.json());
                }
            }
        }
    }
});
