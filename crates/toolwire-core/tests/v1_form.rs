//! The v1 serialized form: exact wire JSON, round trips, and every refusal of the parser.

use serde_json::{Value, json};
use toolwire_core::parse::MAX_DEPTH;
use toolwire_core::v1::{self, V1Error};
use toolwire_core::{
    ErrorCode, Pagination, ParseError, Part, Provenance, Query, ResourceLinkPart, StoredLink,
    Timestamp, ToolError, ToolResult, parse_any,
};

fn ts(text: &str) -> Timestamp {
    Timestamp::parse(text).unwrap_or_else(|err| panic!("{err}"))
}

fn details(value: Value) -> serde_json::Map<String, Value> {
    let Value::Object(map) = value else { panic!("not an object: {value}") };
    map
}

/// A failure with every field the form has (a failure carries no data).
fn full_failure() -> ToolResult {
    ToolResult::builder()
        .summary("1 product found")
        .error(
            ToolError::new(ErrorCode::NotFound, "No product 7")
                .with_details(details(json!({"id": 7}))),
        )
        .part(Part::text("…"))
        .part(Part::named_binary(b"\x89PNG".to_vec(), "image/png", "chart.png"))
        .part(Part::resource_link_with(
            ResourceLinkPart::new("https://example.com/r.csv", "report")
                .title("Report")
                .description("All rows")
                .mime_type("text/csv")
                .size(1234),
        ))
        .part(Part::embedded_text("file:///a.txt", Some("text/plain".into()), "hello"))
        .part(Part::embedded_blob(
            "file:///a.bin",
            Some("application/octet-stream".into()),
            vec![0u8, 1, 2],
        ))
        .stored_link(
            StoredLink::new("toolwire://results/abc?exp=1&kid=k1&sig=s")
                .size(1_048_576)
                .expires_at(ts("2026-12-01T10:00:00Z"))
                .description("Full result"),
        )
        .pagination(Pagination::new(120, 2, 20).next_cursor("c3"))
        .dry_run(true)
        .response_size(24000)
        .query(Query::new("search", json!({"q": "chair"})))
        .generated_at(ts("2026-11-29T10:00:00Z"))
        .expires_at(ts("2026-11-29T11:00:00.123Z"))
        .extension("com.acme.payments", "ledger", json!("eu-1"))
        .build()
        .unwrap_or_else(|err| panic!("refused: {err}"))
}

const FULL_FAILURE: &str = concat!(
    r#"{"format":"toolwire.result.v1","summary":"1 product found","#,
    r#""error":{"code":"not_found","message":"No product 7","details":{"id":7}},"#,
    r#""parts":[{"type":"text","text":"…"},"#,
    r#"{"type":"binary","mimeType":"image/png","data":"iVBORw==","name":"chart.png"},"#,
    r#"{"type":"resource_link","uri":"https://example.com/r.csv","name":"report","title":"Report","description":"All rows","mimeType":"text/csv","size":1234},"#,
    r#"{"type":"embedded_resource","uri":"file:///a.txt","mimeType":"text/plain","text":"hello"},"#,
    r#"{"type":"embedded_resource","uri":"file:///a.bin","mimeType":"application/octet-stream","blob":"AAEC"}],"#,
    r#""storedLinks":[{"uri":"toolwire://results/abc?exp=1&kid=k1&sig=s","size":1048576,"mimeType":"application/json","expiresAt":"2026-12-01T10:00:00Z","description":"Full result"}],"#,
    r#""meta":{"pagination":{"total":120,"page":2,"limit":20,"nextCursor":"c3"},"dryRun":true,"responseSize":24000,"#,
    r#""query":{"tool":"search","arguments":{"q":"chair"}},"generatedAt":"2026-11-29T10:00:00Z","#,
    r#""expiresAt":"2026-11-29T11:00:00.123Z","extensions":{"com.acme.payments":{"ledger":"eu-1"}}}}"#
);

#[test]
fn writes_every_field_in_design_order() {
    assert_eq!(v1::to_string(&full_failure()), FULL_FAILURE);
    assert_eq!(v1::to_vec(&full_failure()), FULL_FAILURE.as_bytes());
}

#[test]
fn writes_data_between_format_and_summary() {
    let result = ToolResult::builder()
        .data(json!({"id": 7, "name": "Chair"}))
        .summary("1 product found")
        .build()
        .unwrap();
    assert_eq!(
        v1::to_string(&result),
        r#"{"format":"toolwire.result.v1","data":{"id":7,"name":"Chair"},"summary":"1 product found"}"#
    );
}

#[test]
fn leaves_out_absent_and_empty_fields() {
    assert_eq!(v1::to_string(&ToolResult::empty()), r#"{"format":"toolwire.result.v1"}"#);
    assert_eq!(
        v1::to_string(&ToolResult::success(Value::Null)),
        r#"{"format":"toolwire.result.v1"}"#
    );
    let failure = ToolResult::failure(ToolError::new(ErrorCode::ToolError, "boom"));
    assert_eq!(
        v1::to_string(&failure),
        r#"{"format":"toolwire.result.v1","error":{"code":"tool_error","message":"boom"}}"#
    );
}

#[test]
fn keeps_empty_data_objects_and_lists() {
    assert_eq!(
        v1::to_string(&ToolResult::success(json!({}))),
        r#"{"format":"toolwire.result.v1","data":{}}"#
    );
    assert_eq!(
        v1::to_string(&ToolResult::success(json!([]))),
        r#"{"format":"toolwire.result.v1","data":[]}"#
    );
}

#[test]
fn pieces_keep_their_key_order() {
    let mut pagination = Pagination::default();
    pagination.limit = Some(5);
    pagination.next_cursor = Some("n".into());
    let result = ToolResult::builder()
        .stored_link(StoredLink::new("toolwire://results/x").description("note"))
        .pagination(pagination)
        .query(Query::new("t", json!({"b": 1, "a": 2})))
        .build()
        .unwrap();
    assert_eq!(
        v1::to_string(&result),
        concat!(
            r#"{"format":"toolwire.result.v1","#,
            r#""storedLinks":[{"uri":"toolwire://results/x","mimeType":"application/json","description":"note"}],"#,
            r#""meta":{"pagination":{"limit":5,"nextCursor":"n"},"query":{"tool":"t","arguments":{"b":1,"a":2}}}}"#
        )
    );
}

#[test]
fn round_trips_v1_to_object_to_v1() {
    let parsed = v1::parse(FULL_FAILURE.as_bytes()).unwrap();
    assert_eq!(parsed, full_failure());
    assert_eq!(parsed.provenance(), &Provenance::Native);
    assert_eq!(v1::to_string(&parsed), FULL_FAILURE);
}

#[test]
fn round_trips_lossless_numbers_and_key_order() {
    let doc = r#"{"format":"toolwire.result.v1","data":{"z":123456789012345678901234567890,"a":0.1000000000000000000000000001,"m":-9223372036854775809,"e":1.5e-300,"f":1.50,"g":-0.0,"u":"ü😀","n":{"y":[],"x":{}}}}"#;
    let parsed = v1::parse(doc.as_bytes()).unwrap();
    assert_eq!(v1::to_string(&parsed), doc);
    assert_eq!(v1::to_string(&parse_any(doc.as_bytes()).unwrap()), doc);
}

/// serde_json writes an exponent with its sign and a lower-case `e`: the value is the same, the
/// spelling is normalised (digits and fractions are never touched).
#[test]
fn normalises_only_the_spelling_of_exponents() {
    let parsed = v1::parse(br#"{"format":"toolwire.result.v1","data":[1.5E300,1e0,2.50e-7]}"#);
    assert_eq!(
        v1::to_string(&parsed.unwrap()),
        r#"{"format":"toolwire.result.v1","data":[1.5e+300,1e+0,2.50e-7]}"#
    );
}

#[test]
fn null_means_absent() {
    let doc = json!({"format": v1::FORMAT, "data": null, "summary": null, "error": {"code": "x", "message": "m", "details": null}, "parts": null, "meta": {"dryRun": null}});
    let parsed = v1::parse_value(&doc).unwrap();
    assert_eq!(
        v1::to_string(&parsed),
        r#"{"format":"toolwire.result.v1","error":{"code":"x","message":"m"}}"#
    );
    assert_eq!(parsed.error().map(|e| &e.code), Some(&ErrorCode::Other("x".into())));
}

#[test]
fn a_taken_document_parses_as_a_borrowed_one() {
    let docs = [
        json!({"format": v1::FORMAT, "data": {"items": [1, 2.50, "x"]}, "summary": "s"}),
        json!({"format": v1::FORMAT, "data": null, "summary": "only"}),
        json!({"format": v1::FORMAT, "data": 1, "error": {"code": "x", "message": "m"}}),
        json!({"format": v1::FORMAT, "data": [], "surprise": 1}),
        json!([1]),
    ];
    for doc in docs {
        let borrowed = v1::parse_value(&doc).map(|r| v1::to_string(&r)).map_err(|e| e.to_string());
        let taken = v1::parse_owned(doc).map(|r| v1::to_string(&r)).map_err(|e| e.to_string());
        assert_eq!(taken, borrowed);
    }
}

#[test]
fn keeps_any_extension_namespace_as_written() {
    let doc = json!({"format": v1::FORMAT, "meta": {"extensions": {"legacy": {"preview": true, "extra": {"bad key": 1}}, "io.modelcontextprotocol": {"k": 2}}}});
    let parsed = v1::parse_value(&doc).unwrap();
    assert_eq!(parsed.meta().extensions.get("legacy", "preview"), Some(&json!(true)));
    assert_eq!(parsed.meta().extensions.get("io.modelcontextprotocol", "k"), Some(&json!(2)));
    assert_eq!(serde_json::from_str::<Value>(&v1::to_string(&parsed)).unwrap(), doc);
}

fn refusal(doc: &str) -> String {
    match v1::parse(doc.as_bytes()) {
        Ok(result) => panic!("accepted {doc}: {result:?}"),
        Err(err) => err.to_string(),
    }
}

#[test]
fn refuses_an_unknown_format_version() {
    assert_eq!(
        v1::parse(br#"{"format":"toolwire.result.v3","data":1}"#),
        Err(V1Error::UnknownFormat("toolwire.result.v3".into()))
    );
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v3"}"#),
        "unknown format version `toolwire.result.v3`"
    );
}

#[test]
fn refuses_a_missing_or_non_string_format() {
    assert_eq!(refusal(r#"{"data":1}"#), "format: missing");
    assert_eq!(refusal(r#"{"format":1}"#), "format: expected a string");
}

#[test]
fn refuses_error_with_non_null_data() {
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","data":{},"error":{"code":"x","message":"y"}}"#),
        "error and a non-null data together"
    );
    assert!(
        v1::parse(
            br#"{"format":"toolwire.result.v1","data":null,"error":{"code":"x","message":"y"}}"#
        )
        .is_ok()
    );
}

#[test]
fn refuses_an_unknown_top_level_key() {
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","foo":1}"#),
        "unknown top-level key `foo`"
    );
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","success":true}"#),
        "unknown top-level key `success`"
    );
}

#[test]
fn refuses_unknown_keys_inside() {
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"a","x":1}]}"#),
        "parts[0]: unknown key `x`"
    );
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","meta":{"pagination":{"pages":1}}}"#),
        "meta.pagination: unknown key `pages`"
    );
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","error":{"code":"c","message":"m","hint":1}}"#),
        "error: unknown key `hint`"
    );
}

#[test]
fn refuses_malformed_base64() {
    let doc = r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"binary","mimeType":"image/png","data":"iVBORw="}]}"#;
    assert_eq!(v1::parse(doc.as_bytes()), Err(V1Error::Base64 { path: "parts[2].data".into() }));
    assert_eq!(refusal(doc), "parts[2].data: malformed base64");
    assert_eq!(
        refusal(
            r#"{"format":"toolwire.result.v1","parts":[{"type":"embedded_resource","uri":"u","blob":"a b"}]}"#
        ),
        "parts[0].blob: malformed base64"
    );
}

#[test]
fn refuses_missing_required_fields() {
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","parts":[{"type":"binary","data":""}]}"#),
        "parts[0].mimeType: missing"
    );
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","error":{"message":"m"}}"#),
        "error.code: missing"
    );
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","storedLinks":[{"size":1}]}"#),
        "storedLinks[0].uri: missing"
    );
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","parts":[{}]}"#),
        "parts[0].type: missing"
    );
}

#[test]
fn refuses_wrong_types_with_their_path() {
    let cases = [
        (r#""summary":1"#, "summary: expected a string"),
        (r#""parts":{}"#, "parts: expected a list of parts"),
        (r#""parts":[1]"#, "parts[0]: expected a part object"),
        (
            r#""storedLinks":[{"uri":"u","size":-1}]"#,
            "storedLinks[0].size: expected an unsigned integer",
        ),
        (r#""storedLinks":"x""#, "storedLinks: expected a list of stored links"),
        (r#""error":"boom""#, "error: expected an object"),
        (r#""error":{"code":"c","message":"m","details":[]}"#, "error.details: expected an object"),
        (r#""meta":[]"#, "meta: expected an object"),
        (r#""meta":{"dryRun":"yes"}"#, "meta.dryRun: expected a boolean"),
        (r#""meta":{"responseSize":1.5}"#, "meta.responseSize: expected an unsigned integer"),
        (
            r#""meta":{"pagination":{"total":18446744073709551616}}"#,
            "meta.pagination.total: expected an unsigned integer",
        ),
        (r#""meta":{"query":{"arguments":{}}}"#, "meta.query.tool: missing"),
        (r#""meta":{"generatedAt":5}"#, "meta.generatedAt: expected an RFC 3339 timestamp string"),
        (r#""meta":{"extensions":[]}"#, "meta.extensions: expected an object of namespaces"),
        (
            r#""meta":{"extensions":{"com.acme":1}}"#,
            "meta.extensions.com.acme: expected an object of keys",
        ),
    ];
    for (field, message) in cases {
        assert_eq!(refusal(&format!(r#"{{"format":"toolwire.result.v1",{field}}}"#)), message);
    }
}

#[test]
fn refuses_an_unknown_part_type() {
    assert_eq!(
        refusal(r#"{"format":"toolwire.result.v1","parts":[{"type":"video","uri":"u"}]}"#),
        "parts[0].type: unknown part type `video`"
    );
}

#[test]
fn refuses_a_bad_timestamp() {
    assert_eq!(
        refusal(
            r#"{"format":"toolwire.result.v1","storedLinks":[{"uri":"u","expiresAt":"tomorrow"}]}"#
        ),
        "storedLinks[0].expiresAt: `tomorrow` is not an RFC 3339 timestamp"
    );
}

#[test]
fn refuses_a_timestamp_that_leaves_the_four_digit_years_in_utc() {
    for text in ["0000-01-01T00:00:00+01:00", "9999-12-31T23:00:00-02:00"] {
        assert_eq!(
            v1::parse(
                format!(r#"{{"format":"toolwire.result.v1","meta":{{"generatedAt":"{text}"}}}}"#)
                    .as_bytes()
            ),
            Err(V1Error::Timestamp { path: "meta.generatedAt".into(), text: text.into() })
        );
    }
    let edge = v1::parse(
        br#"{"format":"toolwire.result.v1","meta":{"generatedAt":"0000-01-01T00:00:00-01:00"}}"#,
    );
    assert_eq!(
        edge.map(|r| v1::to_string(&r)),
        Ok(r#"{"format":"toolwire.result.v1","meta":{"generatedAt":"0000-01-01T01:00:00Z"}}"#
            .to_owned())
    );
}

#[test]
fn refuses_an_embedded_resource_without_exactly_one_content() {
    for contents in [r#""text":"a","blob":"AA==""#, r#""mimeType":"text/plain""#] {
        assert_eq!(
            refusal(&format!(
                r#"{{"format":"toolwire.result.v1","parts":[{{"type":"embedded_resource","uri":"u",{contents}}}]}}"#
            )),
            "parts[0]: an embedded resource needs exactly one of `text` and `blob`"
        );
    }
}

#[test]
fn refuses_non_objects_and_non_json() {
    assert_eq!(v1::parse(b"[]"), Err(V1Error::NotAnObject));
    assert_eq!(refusal("[]"), "a v1 document must be a JSON object");
    assert_eq!(refusal("{"), "not JSON: EOF while parsing an object at line 1 column 1");
}

#[test]
fn stored_link_mime_type_defaults_to_json() {
    let parsed =
        v1::parse(br#"{"format":"toolwire.result.v1","storedLinks":[{"uri":"u"}]}"#).unwrap();
    assert_eq!(parsed.stored_links(), &[StoredLink::new("u")]);
}

// parse_any: the any-input entry point.

#[test]
fn parse_any_routes_v1_documents_to_the_v1_parser() {
    let parsed = parse_any(FULL_FAILURE.as_bytes()).unwrap();
    assert_eq!(parsed, full_failure());
    assert_eq!(
        parse_any(br#"{"format":"toolwire.result.v9","success":true}"#),
        Err(ParseError::V1(V1Error::UnknownFormat("toolwire.result.v9".into())))
    );
    assert_eq!(
        parse_any(br#" {"format":"toolwire.result.v1","foo":1}"#).unwrap_err().to_string(),
        "invalid toolwire result document: unknown top-level key `foo`"
    );
}

#[test]
fn parse_any_treats_other_formats_by_the_legacy_rules() {
    let raw = r#"{"format":"other.v1","success":true,"data":1}"#;
    let parsed = parse_any(raw.as_bytes()).unwrap();
    assert_eq!(parsed.provenance(), &Provenance::LegacyEnvelope(raw.into()));
    assert_eq!(parsed.meta().extensions.get("legacy", "format"), Some(&json!("other.v1")));
    let raw = r#"{"format":5}"#;
    assert_eq!(
        parse_any(raw.as_bytes()).unwrap().provenance(),
        &Provenance::Passthrough(raw.into())
    );
}

#[test]
fn parse_any_refuses_invalid_utf8_with_its_offset() {
    assert_eq!(parse_any(b"ok \xff"), Err(ParseError::InvalidUtf8 { offset: 3 }));
    assert_eq!(
        parse_any(b"\xc3").unwrap_err().to_string(),
        "input is not valid UTF-8: invalid byte at offset 0"
    );
}

#[test]
fn parse_any_refuses_too_deep_nesting_before_decoding() {
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert_eq!(parse_any(deep.as_bytes()), Err(ParseError::TooDeep { offset: MAX_DEPTH - 1 }));
    let deep_object =
        format!(r#"{{"success":true,"data":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
    assert_eq!(
        parse_any(deep_object.as_bytes()).unwrap_err().to_string(),
        "JSON nesting reaches 128 levels at byte offset 149; at most 127 levels are allowed"
    );
}

#[test]
fn parse_any_accepts_the_deepest_allowed_nesting() {
    let inner = format!("{}{}", "[".repeat(MAX_DEPTH - 2), "]".repeat(MAX_DEPTH - 2));
    let raw = format!(r#"{{"success":true,"data":{inner}}}"#);
    let parsed = parse_any(raw.as_bytes()).unwrap();
    assert_eq!(parsed.provenance(), &Provenance::LegacyEnvelope(raw.clone()));
    assert!(parsed.data().is_some());
}

#[test]
fn parse_any_ignores_brackets_inside_strings() {
    let raw = format!(r#"{{"success":true,"data":"{}\"{}"}}"#, "[".repeat(300), "{".repeat(300));
    assert!(parse_any(raw.as_bytes()).unwrap().data().is_some());
}

#[test]
fn parse_any_passes_through_everything_else_unchanged() {
    for raw in ["", "plain text", "[1,2]", "42", r#"{"data":[]}"#, "{not json", "  \n"] {
        let parsed = parse_any(raw.as_bytes()).unwrap();
        assert_eq!(parsed.provenance(), &Provenance::Passthrough(raw.into()), "{raw:?}");
        assert_eq!(parsed.parts(), &[Part::text(raw)]);
        assert!(parsed.is_success());
    }
}

#[test]
fn a_part_carries_its_audience_only_when_set() {
    use toolwire_core::Audience;
    let result = ToolResult::builder()
        .part(Part::text("for you").for_audience(Audience::User))
        .part(Part::text("plain"))
        .part(Part::resource_link("https://x/r", "r").for_audience(Audience::Both))
        .build()
        .unwrap_or_else(|err| panic!("{err}"));
    let text = v1::to_string(&result);
    assert_eq!(
        text,
        r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"for you","audience":["user"]},{"type":"text","text":"plain"},{"type":"resource_link","uri":"https://x/r","name":"r","audience":["user","assistant"]}]}"#
    );
    let parsed = v1::parse(text.as_bytes()).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(parsed.parts(), result.parts());
    let read = |audience: &str| {
        let doc = format!(
            r#"{{"format":"toolwire.result.v1","parts":[{{"type":"text","text":"t","audience":{audience}}}]}}"#
        );
        v1::parse(doc.as_bytes()).map(|r| r.parts()[0].audience()).map_err(|e| e.to_string())
    };
    assert_eq!(read(r#"["assistant","user"]"#), Ok(Some(Audience::Both)));
    assert_eq!(read("null"), Ok(None));
    let refused = r#"parts[0].audience: expected a non-empty list of "user" and "assistant""#;
    for bad in [r#"[]"#, r#"["model"]"#, r#""user""#, "[1]"] {
        assert_eq!(read(bad), Err(refused.to_owned()), "{bad}");
    }
}
