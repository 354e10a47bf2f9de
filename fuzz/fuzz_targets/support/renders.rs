//! What the targets that feed a result from outside assert of it: rendered for every target and
//! phase under each given output declaration, every rendering that fits its limit is valid wire
//! output for its target (a passthrough on the legacy target is the text as its author wrote
//! it, which the checker's envelope grammar may flag, so it is not checked there).

use toolwire_check::wire;
use toolwire_core::{
    OutputMapper, Phase, RenderContext, Rendered, Target, Timestamp, ToolOutput, ToolResult,
};

/// Renders `result` for every target and phase under each of `outputs` and asserts the wire.
pub fn assert_every_rendering_is_valid(result: &ToolResult, outputs: &[&ToolOutput]) {
    let mapper = OutputMapper::default();
    let Some(now) = Timestamp::from_unix_seconds(1_767_225_600) else { return };
    for output in outputs {
        let cx = RenderContext::new("fuzz", now).output(output);
        for target in Target::ALL {
            for phase in [Phase::Compat, Phase::Spec] {
                let Ok(Rendered::Complete(rendered)) = mapper.render(result, target, phase, &cx)
                else {
                    continue;
                };
                if target == Target::Legacy && result.is_passthrough() {
                    continue;
                }
                let violations = wire::check(target, rendered.json());
                assert!(violations.is_empty(), "{target:?}: {violations:?} in {}", rendered.json());
            }
        }
    }
}
