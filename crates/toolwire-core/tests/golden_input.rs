//! Input required (DESIGN §10), one reviewed snapshot per target and phase: the
//! 2026-07-28 `InputRequiredResult`, A2A `input-required`, and the failure `input_required`
//! everywhere else; every output accepted by the wire checker.

mod golden_support;

use golden_support::*;
use toolwire_core::{ErrorCode, McpRevision, Phase, Target, legacy, v1};
use toolwire_core::{RenderContext, asks_natively};

/// A stand-in for the sealed state the gateway passes in.
const SEALED: &str = "v1.k1.c2VhbGVkLXN0YXRl";

#[test]
fn golden_input_required() {
    let samples = input_samples();
    for (target, phase) in renders() {
        let mut snapshot = String::new();
        for (name, result) in &samples {
            let ctx = RenderContext::new("catalog_update_price", now()).request_state(SEALED);
            let output = render_with(&golden_mapper(), result, target, phase, &ctx);
            assert_wire_clean(target, output.json());
            assert_eq!(output.is_error(), !asks_natively(target), "{name} {target}");
            snapshot.push_str(&format!("## {name}\n{}\n\n", snapshot_entry(target, output.json())));
        }
        insta::assert_snapshot!(snapshot_name(target, phase), snapshot);
    }
}

#[test]
fn the_2026_result_carries_the_requests_and_the_sealed_state() {
    let (_, result) = &input_samples()[0];
    let output = render(result, Target::Mcp(McpRevision::V2026_07_28), Phase::Spec);
    let wire = value(output.json());
    assert_eq!(wire["resultType"], "input_required");
    assert_eq!(wire["inputRequests"]["confirm"]["method"], "elicitation/create");
    assert_eq!(wire["inputRequests"]["confirm"]["params"]["mode"], "form");
    // Without a sealed state from the caller there is none on the wire (never the raw state).
    assert!(wire.get("requestState").is_none());
    assert!(!output.json().contains("12.50\"}"), "{}", output.json());
}

#[test]
fn the_legacy_failure_parses_back_as_input_required() {
    for (name, result) in input_samples() {
        let output = render(&result, Target::Legacy, Phase::Compat);
        let parsed = legacy::parse(output.json());
        let error = parsed.error().cloned();
        assert_eq!(
            error.as_ref().map(|e| e.code.clone()),
            Some(ErrorCode::InputRequired),
            "{name}"
        );
        let requests = error.and_then(|e| e.details).and_then(|d| d.get("inputRequests").cloned());
        let expected = result.input_required_requests().map(|i| i.requests_value());
        assert_eq!(requests.as_ref().and_then(|r| r.as_object()), expected.as_ref(), "{name}");
    }
}

#[test]
fn v2_round_trips_and_v1_stays_v1() {
    for (name, result) in input_samples() {
        let text = v1::to_string(&result);
        assert!(text.starts_with("{\"format\":\"toolwire.result.v2\""), "{name}: {text}");
        assert_eq!(v1::parse(text.as_bytes()).as_ref(), Ok(&result), "{name}");
    }
    for (name, result) in samples() {
        assert!(v1::to_string(&result).starts_with("{\"format\":\"toolwire.result.v1\""), "{name}");
    }
}

#[test]
fn v2_documents_are_checked() {
    let cases = [
        (
            r#"{"format":"toolwire.result.v1","inputRequired":{"requests":{}}}"#,
            "invalid toolwire result document: unknown top-level key `inputRequired`",
        ),
        (
            r#"{"format":"toolwire.result.v2","data":1,"inputRequired":{"requests":{}}}"#,
            "invalid toolwire result document: inputRequired together with non-null data",
        ),
        (
            r#"{"format":"toolwire.result.v2","error":{"code":"x","message":"y"},"inputRequired":{}}"#,
            "invalid toolwire result document: inputRequired together with an error",
        ),
        (
            r#"{"format":"toolwire.result.v2","inputRequired":{"requests":{"a":{"method":"tools/call"}}}}"#,
            "invalid toolwire result document: inputRequired.requests.a: method: `tools/call` is not an input request",
        ),
        (
            r#"{"format":"toolwire.result.v2","inputRequired":{"asks":{}}}"#,
            "invalid toolwire result document: inputRequired: unknown key `asks`",
        ),
    ];
    for (input, message) in cases {
        let got = toolwire_core::parse_any(input.as_bytes()).map_err(|e| e.to_string());
        assert_eq!(got.err().as_deref(), Some(message), "{input}");
    }
    let plain = toolwire_core::parse_any(br#"{"format":"toolwire.result.v2","data":{"a":1}}"#);
    assert_eq!(plain.ok().and_then(|r| r.data().cloned()), Some(serde_json::json!({"a": 1})));
}
