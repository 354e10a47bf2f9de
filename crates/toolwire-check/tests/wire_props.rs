//! Properties of `wire::check`: it never panics, whatever the text, and it accepts every
//! well-formed legacy envelope and MCP result built from arbitrary data.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolwire_check::wire;
use toolwire_core::{McpRevision, Target};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[ -~é☃]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z_/.]{0,8}", inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_panics_on_any_text(text in "\\PC{0,64}") {
        for target in Target::ALL {
            let _ = wire::check(target, &text);
        }
    }

    #[test]
    fn never_panics_on_any_json(value in json_value()) {
        let text = value.to_string();
        for target in Target::ALL {
            let _ = wire::check_with_schema(target, &text, Some(&json!({"type": "object"})));
        }
    }

    #[test]
    fn never_panics_on_results_with_arbitrary_members(
        content in prop::collection::vec(json_value(), 0..4),
        structured in json_value(),
        meta in json_value(),
    ) {
        let value = json!({"content": content, "structuredContent": structured, "_meta": meta});
        for revision in McpRevision::ALL {
            let _ = wire::check(Target::Mcp(revision), &value.to_string());
        }
    }

    #[test]
    fn every_compact_envelope_passes(data in json_value(), summary in "\\PC{0,20}") {
        let plain = format!(r#"{{"success":true,"data":{data}}}"#);
        prop_assert_eq!(wire::check(Target::Legacy, &plain), vec![]);
        let with_meta = json!({"success": true, "data": data, "_meta": {"summary": summary}}).to_string();
        prop_assert_eq!(wire::check(Target::Legacy, &with_meta), vec![]);
    }

    #[test]
    fn every_text_result_passes_on_every_revision(texts in prop::collection::vec("\\PC{0,40}", 0..4), data in json_value()) {
        for revision in McpRevision::ALL {
            let mut result = serde_json::Map::new();
            let stateless = revision == McpRevision::V2026_07_28;
            if stateless {
                result.insert("resultType".into(), json!("complete"));
            }
            let blocks: Vec<Value> = texts.iter().map(|t| json!({"type": "text", "text": t})).collect();
            result.insert("content".into(), Value::Array(blocks));
            let objects_only = matches!(revision, McpRevision::V2025_06_18 | McpRevision::V2025_11_25);
            if stateless || (objects_only && data.is_object()) {
                result.insert("structuredContent".into(), data.clone());
            }
            let violations = wire::check(Target::Mcp(revision), &Value::Object(result).to_string());
            prop_assert_eq!(violations, vec![], "{}", revision.as_str());
        }
    }
}
