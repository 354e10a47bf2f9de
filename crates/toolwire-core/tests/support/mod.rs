//! Shared test support: a proptest generator of arbitrary valid native results.
//!
//! "Valid" means what the strict constructors accept and what the v1 form can carry without
//! loss: never a success with an error, never `null` data, failures without data, extension
//! namespaces that are well formed and not reserved, timestamps inside years 1970–2199 with 0, 3
//! or 9 fractional digits. Numbers come from their text so that big integers and long decimals
//! stay exact under `arbitrary_precision`.

use chrono::DateTime;
use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use toolwire_core::check_namespace;
use toolwire_core::{
    ErrorCode, Pagination, Part, Query, ResourceLinkPart, StoredLink, Timestamp, ToolError,
    ToolResult,
};

/// Arbitrary valid native results: every part type, stored links, every metadata field and
/// extensions; successes with or without data, failures without data.
pub(crate) fn arb_result() -> impl Strategy<Value = ToolResult> {
    let content = (
        option::of(arb_text()),
        vec(arb_part(), 0..4),
        vec(arb_stored_link(), 0..3),
        option::of(arb_pagination()),
        option::of(any::<bool>()),
        option::of(any::<u64>()),
        option::of(arb_query()),
        option::of(arb_timestamp()),
        option::of(arb_timestamp()),
        vec((arb_namespace(), arb_key(), arb_value()), 0..4),
    );
    let outcome = prop_oneof![
        option::of(arb_data()).prop_map(Outcome::Success),
        arb_error().prop_map(Outcome::Failure),
    ];
    (outcome, content).prop_filter_map(
        "the builder refused a generated result",
        |(
            outcome,
            (
                summary,
                parts,
                links,
                pagination,
                dry_run,
                size,
                query,
                generated,
                expires,
                extensions,
            ),
        )| {
            let mut builder = ToolResult::builder();
            builder = match outcome {
                Outcome::Success(Some(data)) => builder.data(data),
                Outcome::Success(None) => builder,
                Outcome::Failure(error) => builder.error(error),
            };
            if let Some(summary) = summary {
                builder = builder.summary(summary);
            }
            for part in parts {
                builder = builder.part(part);
            }
            for link in links {
                builder = builder.stored_link(link);
            }
            if let Some(pagination) = pagination {
                builder = builder.pagination(pagination);
            }
            if let Some(dry_run) = dry_run {
                builder = builder.dry_run(dry_run);
            }
            if let Some(size) = size {
                builder = builder.response_size(size);
            }
            if let Some(query) = query {
                builder = builder.query(query);
            }
            if let Some(at) = generated {
                builder = builder.generated_at(at);
            }
            if let Some(at) = expires {
                builder = builder.expires_at(at);
            }
            for (namespace, key, value) in extensions {
                builder = builder.extension(&namespace, &key, value);
            }
            builder.build().ok()
        },
    )
}

#[derive(Debug, Clone)]
enum Outcome {
    Success(Option<Value>),
    Failure(ToolError),
}

/// Text of any Unicode, control characters and quotes included.
fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<String>(),
        1 => Just(String::new()),
        1 => "[a-z ]{1,12}",
        1 => Just("Grüße, 世界 🎉 \"quoted\" \\ \u{0007}".to_owned()),
    ]
}

/// Numbers as text: machine-sized, big integers, long decimals, exponents.
fn arb_number() -> impl Strategy<Value = Number> {
    let text = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        "-?[1-9][0-9]{19,40}",
        "-?(0|[1-9][0-9]{0,6})\\.[0-9]{1,30}",
        "-?[1-9]\\.[0-9]{1,5}e-?[1-9][0-9]{0,2}",
        Just("123456789012345678901234567890".to_owned()),
        Just("0.1000000000000000000000000001".to_owned()),
        Just("-9223372036854775809".to_owned()),
    ];
    text.prop_filter_map("not a JSON number", |t| serde_json::from_str::<Number>(&t).ok())
}

/// Any JSON value, `null` included (inside data it is a real value).
fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        arb_number().prop_map(Value::Number),
        arb_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            vec((arb_text(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Data: any value but `null` (which means "no data").
fn arb_data() -> impl Strategy<Value = Value> {
    arb_value().prop_filter("null data means no data", |v| !v.is_null())
}

fn arb_object() -> impl Strategy<Value = Map<String, Value>> {
    btree_map("[a-zA-Z_][a-zA-Z0-9_]{0,8}", arb_value(), 0..4)
        .prop_map(|entries| entries.into_iter().collect())
}

fn arb_error() -> impl Strategy<Value = ToolError> {
    let known = proptest::sample::select(ErrorCode::KNOWN.to_vec());
    let unknown =
        "[a-z][a-z_]{0,14}".prop_filter_map("a known code", |code| match ErrorCode::parse(&code) {
            ErrorCode::Other(_) => Some(ErrorCode::Other(code)),
            _ => None,
        });
    let code = prop_oneof![4 => known, 1 => unknown];
    // A failure always says something: an empty message would read back from a legacy
    // envelope as the fallback message.
    let message = arb_text().prop_filter("an empty message", |m| !m.is_empty());
    (code, message, option::of(arb_object())).prop_map(|(code, message, details)| {
        let error = ToolError::new(code, message);
        match details {
            Some(details) => error.with_details(details),
            None => error,
        }
    })
}

fn arb_mime() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("image/png".to_owned()),
        Just("audio/wav".to_owned()),
        Just("application/octet-stream".to_owned()),
        Just("text/csv".to_owned()),
        "[a-z]{1,8}/[a-z0-9.+-]{1,12}",
    ]
}

fn arb_uri() -> impl Strategy<Value = String> {
    prop_oneof![
        "https://example\\.com/[a-z0-9/]{0,16}",
        "file:///[a-z]{1,8}\\.(txt|bin)",
        "toolwire://results/[a-f0-9]{8}\\?exp=[0-9]{10}&kid=k1&sig=[A-Za-z0-9_-]{8}",
    ]
}

fn arb_part() -> impl Strategy<Value = Part> {
    let bytes = || vec(any::<u8>(), 0..48);
    prop_oneof![
        arb_text().prop_map(Part::text),
        (bytes(), arb_mime(), option::of(arb_text())).prop_map(|(data, mime, name)| match name {
            Some(name) => Part::named_binary(data, mime, name),
            None => Part::binary(data, mime),
        }),
        (
            arb_uri(),
            arb_text(),
            option::of(arb_text()),
            option::of(arb_text()),
            option::of(arb_mime()),
            option::of(any::<u64>()),
        )
            .prop_map(|(uri, name, title, description, mime, size)| {
                let mut link = ResourceLinkPart::new(uri, name);
                link.title = title;
                link.description = description;
                link.mime_type = mime;
                link.size = size;
                Part::resource_link_with(link)
            }),
        (arb_uri(), option::of(arb_mime()), arb_text())
            .prop_map(|(uri, mime, text)| Part::embedded_text(uri, mime, text)),
        (arb_uri(), option::of(arb_mime()), bytes())
            .prop_map(|(uri, mime, blob)| Part::embedded_blob(uri, mime, blob)),
    ]
}

fn arb_stored_link() -> impl Strategy<Value = StoredLink> {
    (
        arb_uri(),
        option::of(any::<u64>()),
        arb_mime(),
        option::of(arb_timestamp()),
        option::of(arb_text()),
    )
        .prop_map(|(uri, size, mime, expires, description)| {
            let mut link = StoredLink::new(uri).mime_type(mime);
            link.size = size;
            link.expires_at = expires;
            link.description = description;
            link
        })
}

fn arb_pagination() -> impl Strategy<Value = Pagination> {
    (
        option::of(any::<u64>()),
        option::of(any::<u64>()),
        option::of(any::<u64>()),
        option::of(arb_text()),
    )
        .prop_map(|(total, page, limit, next_cursor)| {
            let mut pagination = Pagination::default();
            pagination.total = total;
            pagination.page = page;
            pagination.limit = limit;
            pagination.next_cursor = next_cursor;
            pagination
        })
}

fn arb_query() -> impl Strategy<Value = Query> {
    ("[a-z_]{1,16}", arb_value()).prop_map(|(tool, arguments)| Query::new(tool, arguments))
}

/// Timestamps between 1970 and 2199 with 0, 3 or 9 fractional digits.
fn arb_timestamp() -> impl Strategy<Value = Timestamp> {
    (0i64..7_258_118_400, 0u32..1_000_000_000, proptest::sample::select(vec![0u8, 3, 9]))
        .prop_filter_map("out of range", |(seconds, nanos, digits)| {
            DateTime::from_timestamp(seconds, nanos)
                .map(|at| Timestamp::with_fraction_digits(at, digits))
        })
}

/// Namespaces a strict constructor accepts.
fn arb_namespace() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,5}[a-z0-9](\\.[a-z][a-z0-9]{0,5}){0,2}"
        .prop_filter("reserved or malformed", |ns| check_namespace(ns, &[]).is_ok())
}

/// Keys in the `_meta` name grammar.
fn arb_key() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9]([a-zA-Z0-9._-]{0,8}[a-zA-Z0-9])?"
}
