//! Legacy input (version 0): one named test per rule of DESIGN §2 "Legacy input".

use serde_json::json;
use toolwire_core::legacy::{self, FALLBACK_MESSAGE};
use toolwire_core::{
    ErrorCode, Part, Provenance, StoredLink, Timestamp, ToolResult, parse_any, v1,
};

/// The v1 form of a parsed legacy string: the exact wire JSON of everything the parser kept.
fn v1_of(raw: &str) -> String {
    v1::to_string(&legacy::parse(raw))
}

fn assert_passthrough(raw: &str) {
    let parsed = legacy::parse(raw);
    assert_eq!(parsed.provenance(), &Provenance::Passthrough(raw.to_owned()), "{raw:?}");
    assert_eq!(parsed.parts(), &[Part::text(raw)], "{raw:?}");
    assert!(parsed.is_success() && parsed.data().is_none() && parsed.meta().is_empty());
    assert_eq!(parse_any(raw.as_bytes()).as_ref(), Ok(&parsed));
}

// The envelope test.

#[test]
fn an_object_with_boolean_success_is_an_envelope() {
    for raw in [r#"{"success":true}"#, r#" {"success":false} "#] {
        let parsed = legacy::parse(raw);
        assert_eq!(parsed.provenance(), &Provenance::LegacyEnvelope(raw.to_owned()));
        assert!(parsed.parts().is_empty());
    }
}

#[test]
fn success_as_a_string_is_passthrough() {
    assert_passthrough(r#"{"success":"yes","data":1}"#);
    assert_passthrough(r#"{"success":1}"#);
    assert_passthrough(r#"{"success":null}"#);
}

#[test]
fn a_json_list_is_passthrough() {
    assert_passthrough(r#"[{"success":true}]"#);
    assert_passthrough("[]");
}

#[test]
fn an_object_without_success_is_passthrough() {
    assert_passthrough(r#"{"data":[]}"#);
    assert_passthrough("{}");
}

#[test]
fn plain_text_is_passthrough() {
    assert_passthrough("3 products updated");
    assert_passthrough("  {\"success\":true,  broken");
    assert_passthrough("\"a JSON string\"");
}

#[test]
fn empty_input_is_passthrough() {
    assert_passthrough("");
    assert_passthrough("\n");
}

#[test]
fn from_legacy_json_is_the_legacy_parser() {
    #[allow(deprecated)]
    let parsed = ToolResult::from_legacy_json(r#"{"success":true,"data":7}"#);
    assert_eq!(parsed, legacy::parse(r#"{"success":true,"data":7}"#));
    assert_eq!(parsed.data(), Some(&json!(7)));
}

// success: true.

#[test]
fn success_takes_data_from_data() {
    assert_eq!(
        v1_of(r#"{"success":true,"data":{"id":7,"name":"Chair"}}"#),
        r#"{"format":"toolwire.result.v1","data":{"id":7,"name":"Chair"}}"#
    );
    assert_eq!(
        v1_of(r#"{"success":true,"data":"ok"}"#),
        r#"{"format":"toolwire.result.v1","data":"ok"}"#
    );
}

#[test]
fn success_with_null_or_absent_data_has_no_data() {
    assert_eq!(legacy::parse(r#"{"success":true,"data":null}"#).data(), None);
    assert_eq!(legacy::parse(r#"{"success":true}"#).data(), None);
    assert!(legacy::parse(r#"{"success":true}"#).is_success());
}

#[test]
fn empty_objects_and_lists_stay_as_they_are() {
    assert_eq!(legacy::parse(r#"{"success":true,"data":{}}"#).data(), Some(&json!({})));
    assert_eq!(legacy::parse(r#"{"success":true,"data":[]}"#).data(), Some(&json!([])));
    assert_eq!(
        v1_of(r#"{"success":true,"data":{"a":{},"b":[],"c":[{}]}}"#),
        r#"{"format":"toolwire.result.v1","data":{"a":{},"b":[],"c":[{}]}}"#
    );
}

// success: false.

#[test]
fn failure_with_a_string_error_takes_code_and_details_from_the_top_level() {
    assert_eq!(
        v1_of(r#"{"success":false,"error":"No product 7","code":"not_found","details":{"id":7}}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"not_found","message":"No product 7","details":{"id":7}}}"#
    );
}

#[test]
fn failure_with_string_error_keeps_non_object_details_under_legacy() {
    assert_eq!(
        v1_of(r#"{"success":false,"error":"bad","details":["x"],"code":7}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"tool_error","message":"bad"},"meta":{"extensions":{"legacy":{"code":7,"details":["x"]}}}}"#
    );
}

#[test]
fn failure_message_falls_back_when_error_is_missing_empty_or_not_a_string_or_object() {
    for raw in [
        r#"{"success":false}"#,
        r#"{"success":false,"error":""}"#,
        r#"{"success":false,"error":null}"#,
        r#"{"success":false,"error":{}}"#,
        r#"{"success":false,"error":{"message":""}}"#,
    ] {
        assert_eq!(
            v1_of(raw),
            r#"{"format":"toolwire.result.v1","error":{"code":"tool_error","message":"The tool call failed."}}"#,
            "{raw}"
        );
    }
    assert_eq!(FALLBACK_MESSAGE, "The tool call failed.");
    // A value that is neither a string nor an object is not lost.
    assert_eq!(
        v1_of(r#"{"success":false,"error":42}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"tool_error","message":"The tool call failed."},"meta":{"extensions":{"legacy":{"error":42}}}}"#
    );
}

#[test]
fn failure_with_an_object_error_takes_message_and_code_and_the_rest_as_details() {
    assert_eq!(
        v1_of(
            r#"{"success":false,"error":{"message":"Price must be positive","code":"rule_violation","field":"price","min":0.01}}"#
        ),
        r#"{"format":"toolwire.result.v1","error":{"code":"rule_violation","message":"Price must be positive","details":{"field":"price","min":0.01}}}"#
    );
}

#[test]
fn failure_with_an_object_error_without_code_uses_the_top_level_code() {
    assert_eq!(
        v1_of(r#"{"success":false,"error":{"message":"gone"},"code":"not_found"}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"not_found","message":"gone"}}"#
    );
}

#[test]
fn failure_with_an_object_error_keeps_shadowed_top_level_code_and_details_under_legacy() {
    assert_eq!(
        v1_of(
            r#"{"success":false,"error":{"message":"m","code":"conflict","id":1},"code":"not_found","details":{"x":2}}"#
        ),
        r#"{"format":"toolwire.result.v1","error":{"code":"conflict","message":"m","details":{"id":1}},"meta":{"extensions":{"legacy":{"code":"not_found","details":{"x":2}}}}}"#
    );
}

#[test]
fn failure_code_defaults_to_tool_error() {
    let parsed = legacy::parse(r#"{"success":false,"error":"Something broke"}"#);
    assert_eq!(parsed.error().map(|e| &e.code), Some(&ErrorCode::ToolError));
    assert_eq!(parsed.error().map(|e| e.message.as_str()), Some("Something broke"));
    assert!(parsed.is_failure() && parsed.data().is_none());
}

#[test]
fn failure_keeps_an_unknown_code_verbatim() {
    let parsed = legacy::parse(r#"{"success":false,"error":"x","code":"quota_exceeded"}"#);
    assert_eq!(parsed.error().map(|e| &e.code), Some(&ErrorCode::Other("quota_exceeded".into())));
}

#[test]
fn missing_privilege_message_without_code_lists_the_privileges() {
    assert_eq!(
        v1_of(r#"{"success":false,"error":"Missing privilege: a, b"}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"missing_privilege","message":"Missing privilege: a, b","details":{"missing":["a","b"]}}}"#
    );
    assert_eq!(
        v1_of(r#"{"success":false,"error":"Missing privilege: product:read"}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"missing_privilege","message":"Missing privilege: product:read","details":{"missing":["product:read"]}}}"#
    );
}

#[test]
fn missing_privilege_code_without_a_list_has_no_missing_details() {
    assert_eq!(
        v1_of(r#"{"success":false,"error":"You may not","code":"missing_privilege"}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"missing_privilege","message":"You may not"}}"#
    );
    // A given code is taken as it is: the message is not read for a list.
    assert_eq!(
        v1_of(r#"{"success":false,"error":"Missing privilege: a","code":"missing_privilege"}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"missing_privilege","message":"Missing privilege: a"}}"#
    );
    assert_eq!(
        v1_of(r#"{"success":false,"error":"Missing privilege: "}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"missing_privilege","message":"Missing privilege: "}}"#
    );
}

#[test]
fn failure_data_is_kept_under_legacy_and_null_data_dropped() {
    assert_eq!(
        v1_of(r#"{"success":false,"error":"x","data":null}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"tool_error","message":"x"}}"#
    );
    assert_eq!(
        v1_of(r#"{"success":false,"error":"x","data":{"partial":1}}"#),
        r#"{"format":"toolwire.result.v1","error":{"code":"tool_error","message":"x"},"meta":{"extensions":{"legacy":{"data":{"partial":1}}}}}"#
    );
}

// _meta.

#[test]
fn meta_summary_is_the_summary() {
    assert_eq!(
        legacy::parse(r#"{"success":true,"_meta":{"summary":"3 products"}}"#).summary(),
        Some("3 products")
    );
}

#[test]
fn meta_parts_are_v1_parts() {
    let raw = r#"{"success":true,"_meta":{"parts":[{"type":"text","text":"hi"},{"type":"binary","mimeType":"image/png","data":"AQI=","name":"a.png"}]}}"#;
    assert_eq!(
        legacy::parse(raw).parts(),
        &[Part::text("hi"), Part::named_binary(vec![1u8, 2], "image/png", "a.png")]
    );
}

#[test]
fn meta_parts_that_fail_to_parse_are_kept_whole_under_legacy() {
    // The compat envelope leaves binary payloads out: such parts are not lost, only untyped.
    let raw = r#"{"success":true,"_meta":{"parts":[{"type":"text","text":"hi"},{"type":"binary","mimeType":"image/png"}]}}"#;
    let parsed = legacy::parse(raw);
    assert!(parsed.parts().is_empty());
    assert_eq!(
        parsed.meta().extensions.get("legacy", "parts"),
        Some(&json!([{"type": "text", "text": "hi"}, {"type": "binary", "mimeType": "image/png"}]))
    );
}

#[test]
fn meta_well_known_names_fill_the_typed_fields() {
    let raw = r#"{"success":true,"_meta":{"pagination":{"total":120,"page":2,"limit":20,"nextCursor":"c"},"dryRun":true,"responseSize":24000,"query":{"tool":"search","arguments":{"q":"x"}},"generatedAt":"2026-11-29T10:00:00Z","expiresAt":"2026-11-29T12:00:00.5+01:00"}}"#;
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","meta":{"pagination":{"total":120,"page":2,"limit":20,"nextCursor":"c"},"dryRun":true,"responseSize":24000,"query":{"tool":"search","arguments":{"q":"x"}},"generatedAt":"2026-11-29T10:00:00Z","expiresAt":"2026-11-29T11:00:00.5Z"}}"#
    );
}

#[test]
fn meta_well_known_names_of_the_wrong_type_go_to_legacy() {
    let raw = r#"{"success":true,"_meta":{"summary":1,"pagination":{"pages":1},"dryRun":"yes","responseSize":-1,"query":"q","generatedAt":"yesterday","expiresAt":0,"storedLinks":[1]}}"#;
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","meta":{"extensions":{"legacy":{"summary":1,"pagination":{"pages":1},"dryRun":"yes","responseSize":-1,"query":"q","generatedAt":"yesterday","expiresAt":0,"storedLinks":[1]}}}}"#
    );
}

#[test]
fn meta_namespaced_keys_are_extensions() {
    let parsed = legacy::parse(
        r#"{"success":true,"_meta":{"com.acme.payments/ledger":"eu-1","com.acme/x.y":2}}"#,
    );
    assert_eq!(parsed.meta().extensions.get("com.acme.payments", "ledger"), Some(&json!("eu-1")));
    assert_eq!(parsed.meta().extensions.get("com.acme", "x.y"), Some(&json!(2)));
}

#[test]
fn meta_reserved_or_malformed_namespaced_keys_go_to_legacy_extra() {
    let raw = r#"{"success":true,"_meta":{"io.modelcontextprotocol/x":1,"mcp.dev/y":2,"dev.toolwire/generatedAt":3,"1bad/k":4,"com.acme/_k":5,"/k":6}}"#;
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","meta":{"extensions":{"legacy":{"extra":{"io.modelcontextprotocol/x":1,"mcp.dev/y":2,"dev.toolwire/generatedAt":3,"1bad/k":4,"com.acme/_k":5,"/k":6}}}}}"#
    );
}

#[test]
fn meta_resource_uri_of_this_server_is_a_stored_link() {
    let raw = r#"{"success":true,"data":null,"_meta":{"resourceUri":"toolwire://results/abc?exp=1&kid=k&sig=s","responseSize":240000,"note":"Too large; read it with resources/read.","expiresAt":"2026-11-29T11:00:00Z"}}"#;
    let parsed = legacy::parse(raw);
    let expected = StoredLink::new("toolwire://results/abc?exp=1&kid=k&sig=s")
        .size(240000)
        .description("Too large; read it with resources/read.")
        .expires_at(Timestamp::parse("2026-11-29T11:00:00Z").unwrap());
    assert_eq!(parsed.stored_links(), &[expected]);
    assert_eq!(parsed.stored_links()[0].mime_type, "application/json");
    assert_eq!(parsed.meta().response_size, Some(240000));
    assert!(parsed.meta().extensions.is_empty());
}

#[test]
fn meta_other_resource_uris_and_their_note_stay_legacy() {
    let raw = r#"{"success":true,"_meta":{"resourceUri":"shopware://tool-result/0a1b","note":"Read it","responseSize":5}}"#;
    let parsed = legacy::parse(raw);
    assert!(parsed.stored_links().is_empty());
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","meta":{"responseSize":5,"extensions":{"legacy":{"resourceUri":"shopware://tool-result/0a1b","note":"Read it"}}}}"#
    );
}

#[test]
fn meta_stored_links_list_is_read_back() {
    let raw = r#"{"success":true,"_meta":{"resourceUri":"toolwire://results/a","note":"first","storedLinks":[{"uri":"toolwire://results/a","size":10,"mimeType":"application/json","description":"first"},{"uri":"toolwire://results/b","mimeType":"text/csv"}]}}"#;
    let parsed = legacy::parse(raw);
    assert_eq!(
        parsed.stored_links(),
        &[
            StoredLink::new("toolwire://results/a").size(10).description("first"),
            StoredLink::new("toolwire://results/b").mime_type("text/csv"),
        ]
    );
    assert!(parsed.meta().extensions.is_empty());
}

#[test]
fn meta_resource_uri_repeating_the_first_listed_link_is_consumed_whatever_its_scheme() {
    let raw = r#"{"success":true,"_meta":{"resourceUri":"https://example.com/r","note":"n","storedLinks":[{"uri":"https://example.com/r","mimeType":"text/csv","description":"n"}]}}"#;
    let parsed = legacy::parse(raw);
    assert_eq!(
        parsed.stored_links(),
        &[StoredLink::new("https://example.com/r").mime_type("text/csv").description("n")]
    );
    assert!(parsed.meta().extensions.is_empty());
    // One that does not repeat the first link is kept, with its note.
    let raw = r#"{"success":true,"_meta":{"storedLinks":[{"uri":"toolwire://results/a"}],"resourceUri":"toolwire://results/b","note":"n"}}"#;
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","storedLinks":[{"uri":"toolwire://results/a","mimeType":"application/json"}],"meta":{"extensions":{"legacy":{"resourceUri":"toolwire://results/b","note":"n"}}}}"#
    );
}

#[test]
fn meta_resource_uri_that_is_not_a_string_stays_legacy() {
    assert_eq!(
        v1_of(r#"{"success":true,"_meta":{"resourceUri":7,"note":"n"}}"#),
        r#"{"format":"toolwire.result.v1","meta":{"extensions":{"legacy":{"resourceUri":7,"note":"n"}}}}"#
    );
}

#[test]
fn meta_other_keys_go_to_legacy_and_keys_outside_the_grammar_to_legacy_extra() {
    let raw =
        r#"{"success":true,"_meta":{"usageHint":"narrow it","_private":1,"bad key":2,"extra":3}}"#;
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","meta":{"extensions":{"legacy":{"usageHint":"narrow it","extra":{"_private":1,"bad key":2,"extra":3}}}}}"#
    );
}

#[test]
fn meta_that_is_not_an_object_is_kept_under_legacy_extra() {
    assert_eq!(
        v1_of(r#"{"success":true,"_meta":[1]}"#),
        r#"{"format":"toolwire.result.v1","meta":{"extensions":{"legacy":{"extra":{"_meta":[1]}}}}}"#
    );
}

#[test]
fn meta_legacy_namespace_is_read_back_as_written() {
    let raw = r#"{"success":true,"_meta":{"legacy/preview":true,"legacy/extra":{"bad key":1}}}"#;
    let parsed = legacy::parse(raw);
    assert_eq!(parsed.meta().extensions.get("legacy", "preview"), Some(&json!(true)));
    assert_eq!(parsed.meta().extensions.get("legacy", "extra"), Some(&json!({"bad key": 1})));
}

// Top-level extra keys.

#[test]
fn top_level_extra_keys_follow_the_meta_mapping() {
    let raw = r#"{"success":true,"data":{"price":10},"dryRun":true,"preview":{"price":12},"summary":"Preview only","com.acme/x":1}"#;
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","data":{"price":10},"summary":"Preview only","meta":{"dryRun":true,"extensions":{"legacy":{"preview":{"price":12}},"com.acme":{"x":1}}}}"#
    );
}

#[test]
fn meta_wins_over_a_top_level_key_of_the_same_name() {
    let parsed = legacy::parse(
        r#"{"success":true,"dryRun":false,"preview":1,"_meta":{"dryRun":true,"preview":2}}"#,
    );
    assert_eq!(parsed.meta().dry_run, Some(true));
    assert_eq!(parsed.meta().extensions.get("legacy", "preview"), Some(&json!(2)));
}

#[test]
fn success_envelope_keeps_error_code_and_details_keys_under_legacy() {
    assert_eq!(
        v1_of(r#"{"success":true,"data":1,"error":"ignored","code":"c"}"#),
        r#"{"format":"toolwire.result.v1","data":1,"meta":{"extensions":{"legacy":{"error":"ignored","code":"c"}}}}"#
    );
}

// Numbers and key order.

#[test]
fn numbers_and_key_order_pass_through_legacy_to_v1_exactly() {
    let raw = r#"{"success":true,"data":{"z":123456789012345678901234567890,"a":0.1000000000000000000000000001,"m":-9223372036854775809,"list":[3,2,1],"price":19.90}}"#;
    assert_eq!(
        v1_of(raw),
        r#"{"format":"toolwire.result.v1","data":{"z":123456789012345678901234567890,"a":0.1000000000000000000000000001,"m":-9223372036854775809,"list":[3,2,1],"price":19.90}}"#
    );
    let v1_text = v1_of(raw);
    assert_eq!(v1::to_string(&v1::parse(v1_text.as_bytes()).unwrap()), v1_text);
}

#[test]
fn provenance_holds_the_raw_string_byte_for_byte() {
    let raw = "{ \"success\" : true ,\n \"data\" : 1.50 }";
    assert_eq!(legacy::parse(raw).provenance(), &Provenance::LegacyEnvelope(raw.to_owned()));
    assert_eq!(
        parse_any(raw.as_bytes()).unwrap().provenance(),
        &Provenance::LegacyEnvelope(raw.to_owned())
    );
}

#[test]
fn too_deep_nesting_is_passthrough_for_the_never_failing_parser() {
    let raw = format!(r#"{{"success":true,"data":{}{}}}"#, "[".repeat(300), "]".repeat(300));
    let parsed = legacy::parse(&raw);
    assert_eq!(parsed.provenance(), &Provenance::Passthrough(raw.clone()));
}
