//! `wire::check` for the legacy target: the envelope grammar of DESIGN §3.

use toolwire_check::wire::{self, WireViolation};
use toolwire_core::Target;

fn check(text: &str) -> Vec<WireViolation> {
    wire::check(Target::Legacy, text)
}

#[test]
fn valid_envelopes_pass() {
    for text in [
        r#"{"success":true,"data":{"a":1}}"#,
        r#"{"success":true,"data":null}"#,
        r#"{"success":true,"data":[],"_meta":{"summary":"No rows.","generatedAt":"2026-01-01T00:00:00Z"}}"#,
        r#"{"success":true,"data":"a b","_meta":{"dryRun":true,"pagination":{"total":3},"responseSize":12,"query":{"tool":"t"},"expiresAt":"2026-01-01T00:00:00.5Z","resourceUri":"toolwire://results/1","note":"stored","storedLinks":[],"parts":[],"com.acme/ledger":{"x":1},"legacy/extra":{}}}"#,
        r#"{"success":false,"error":"Not found.","code":"not_found"}"#,
        r#"{"success":false,"error":"Bad.","code":"invalid_arguments","details":{"field":"a"},"_meta":{"generatedAt":"2026-01-01T00:00:00Z"}}"#,
    ] {
        assert_eq!(check(text), vec![], "{text}");
    }
}

#[test]
fn passthrough_strings_are_valid_as_they_are() {
    for text in [
        "plain text",
        "",
        "[1, 2]",
        r#"{"data": 1}"#,
        r#"{"success": "yes"}"#,
        r#"{"success":true"#,
        "42",
    ] {
        assert_eq!(check(text), vec![], "{text}");
    }
}

#[test]
fn an_envelope_must_be_compact() {
    assert_eq!(
        check(r#"{"success": true,"data":"a b"}"#),
        vec![WireViolation::new("", "the envelope is not compact JSON: whitespace at byte 11")]
    );
    assert_eq!(
        check("{\"success\":true,\"data\":\"x \\\" y\"}\n"),
        vec![WireViolation::new("", "the envelope is not compact JSON: whitespace at byte 32")]
    );
}

#[test]
fn keys_come_in_the_fixed_order() {
    assert_eq!(
        check(r#"{"data":1,"success":true}"#),
        vec![WireViolation::new(
            "",
            "the keys of a success envelope come in the order success, data, _meta; found data, success"
        )]
    );
    assert_eq!(
        check(r#"{"success":false,"code":"x","error":"y"}"#),
        vec![WireViolation::new(
            "",
            "the keys of a failure envelope come in the order success, error, code, details, _meta; found success, code, error"
        )]
    );
}

#[test]
fn required_and_unknown_keys() {
    assert_eq!(check(r#"{"success":true}"#), vec![WireViolation::new("/data", "missing")]);
    assert_eq!(
        check(r#"{"success":false,"error":"x"}"#),
        vec![WireViolation::new("/code", "missing")]
    );
    assert_eq!(
        check(r#"{"success":true,"data":1,"message":"hi"}"#),
        vec![WireViolation::new(
            "/message",
            "`message` is not a key of a success envelope (success, data, _meta)"
        )]
    );
    assert_eq!(
        check(r#"{"success":true,"data":1,"details":{}}"#),
        vec![WireViolation::new(
            "/details",
            "`details` is not a key of a success envelope (success, data, _meta)"
        )]
    );
}

#[test]
fn failure_fields_have_their_types() {
    assert_eq!(
        check(r#"{"success":false,"error":{"message":"x"},"code":1,"details":[]}"#),
        vec![
            WireViolation::new("/error", "a string, found an object"),
            WireViolation::new("/code", "a string, found a number"),
            WireViolation::new("/details", "an object when present, found an array"),
        ]
    );
}

#[test]
fn meta_is_present_only_when_non_empty() {
    assert_eq!(
        check(r#"{"success":true,"data":1,"_meta":{}}"#),
        vec![WireViolation::new("/_meta", "present only when non-empty")]
    );
}

#[test]
fn meta_keys_are_well_known_names_or_extensions() {
    assert_eq!(
        check(r#"{"success":true,"data":1,"_meta":{"trace":"x","dev.mcp/a":1,"com.acme/_b":2}}"#),
        vec![
            WireViolation::new(
                "/_meta/trace",
                "`trace` is neither a well-known legacy `_meta` name nor a `<namespace>/<key>` extension"
            ),
            WireViolation::new(
                "/_meta/dev.mcp~1a",
                "`_meta` key `dev.mcp/a`: prefix `dev.mcp/` is reserved for MCP"
            ),
            WireViolation::new(
                "/_meta/com.acme~1_b",
                "`_meta` key `com.acme/_b`: name `_b` breaks the `_meta` name grammar"
            ),
        ]
    );
}

#[test]
fn well_known_meta_values_have_their_types() {
    assert_eq!(
        check(
            r#"{"success":true,"data":1,"_meta":{"dryRun":"yes","responseSize":-1,"generatedAt":"yesterday","parts":{}}}"#
        ),
        vec![
            WireViolation::new("/_meta/dryRun", "`dryRun` is a boolean, found a string"),
            WireViolation::new(
                "/_meta/responseSize",
                "`responseSize` is a non-negative integer, found a number"
            ),
            WireViolation::new(
                "/_meta/generatedAt",
                "`generatedAt` is an RFC 3339 timestamp string, found a string"
            ),
            WireViolation::new("/_meta/parts", "`parts` is an array, found an object"),
        ]
    );
}
