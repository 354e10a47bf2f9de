//! A2A tasks without a result (issue #28): `working`, with and without a status message, and
//! `canceled`, one reviewed snapshot per A2A version; every task accepted by the official schema
//! and by the wire checker.

mod golden_support;

use golden_support::*;
use toolwire_check::wire;
use toolwire_core::{A2aTaskState, A2aVersion, RenderContext, Target};

/// The states of the snapshot: name, state, status message.
const STATES: [(&str, A2aTaskState, Option<&str>); 4] = [
    ("working_with_message", A2aTaskState::Working, Some("exported 300 of 1000 rows")),
    ("working_without_message", A2aTaskState::Working, None),
    ("canceled", A2aTaskState::Canceled, None),
    ("canceled_with_message", A2aTaskState::Canceled, Some("canceled by the caller")),
];

const VERSIONS: [A2aVersion; 2] = [A2aVersion::V0_3, A2aVersion::V1_0];

fn ctx() -> RenderContext<'static> {
    RenderContext::new("export_orders", now()).task_id("task-42").context_id("context-7")
}

#[test]
fn golden_a2a_states() {
    for version in VERSIONS {
        let target = Target::A2a(version);
        let mut snapshot = String::new();
        for (name, state, message) in STATES {
            let json = golden_mapper().render_a2a_state(version, state, message, &ctx());
            assert_eq!(wire::official_a2a_task_violations(version, &value(&json)), vec![]);
            assert_wire_clean(target, &json);
            snapshot.push_str(&format!("## {name}\n{}\n\n", snapshot_entry(target, &json)));
        }
        insta::assert_snapshot!(snapshot_name(target, toolwire_core::Phase::Compat), snapshot);
    }
}

/// The status message's text is what the caller gave, character for character: markup is not
/// escaped or stripped, control characters are not dropped (JSON escapes them on the wire).
#[test]
fn the_status_message_is_carried_as_text_exactly() {
    let message = "<b>300</b> of 1000 rows & \"quoted\"\n\t\u{0}\u{1b}[31mred\u{7f}\u{2028}é";
    for version in VERSIONS {
        let json =
            golden_mapper().render_a2a_state(version, A2aTaskState::Working, Some(message), &ctx());
        let task = value(&json);
        assert_eq!(wire::official_a2a_task_violations(version, &task), vec![]);
        let parts = &task["status"]["message"]["parts"];
        assert_eq!(parts.as_array().map(Vec::len), Some(1), "{json}");
        assert_eq!(parts[0]["text"], message, "{json}");
    }
}

/// The ids, the time and the message id follow the caller's context, as a result's task does.
#[test]
fn the_task_carries_the_callers_ids_and_time() {
    let ctx = RenderContext::new("export_orders", ts("2026-11-29T10:00:00.250Z"));
    for version in VERSIONS {
        let task = value(&golden_mapper().render_a2a_state(
            version,
            A2aTaskState::Canceled,
            Some("stopped"),
            &ctx,
        ));
        assert_eq!(task["id"], "task-1");
        assert_eq!(task["contextId"], "context-1");
        assert_eq!(task["status"]["timestamp"], "2026-11-29T10:00:00.250Z");
        assert_eq!(task["status"]["message"]["messageId"], "task-1-status");
        assert!(task.get("artifacts").is_none() && task.get("metadata").is_none(), "{task}");
    }
}
