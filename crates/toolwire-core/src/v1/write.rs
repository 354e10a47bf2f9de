//! Writing the v1 form: v1 whenever v1 can hold the result, v2 for a result that asks for input.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{FORMAT, FORMAT_V2};
use crate::data::Data;
use crate::error::ToolError;
use crate::form::{PaginationJson, Parts, QueryJson, StoredLinks};
use crate::input::InputRequests;
use crate::json_text::{to_json_string, to_json_vec_exact};
use crate::meta::{Extensions, Metadata};
use crate::result::ToolResult;
use crate::timestamp::Timestamp;

/// The v1 form of `result` as compact JSON.
pub fn to_string(result: &ToolResult) -> String {
    to_json_string(&Doc::new(result, result.meta()))
}

/// The v1 bytes of `result` as generated at `at`: what an offload stores. Only the metadata is
/// copied to set the time, never the data.
pub(crate) fn to_vec_generated_at(result: &ToolResult, at: Timestamp) -> Vec<u8> {
    let mut meta = result.meta().clone();
    meta.generated_at = Some(at);
    to_json_vec_exact(&Doc::new(result, &meta))
}

/// The v1 form of `result` as compact JSON bytes (UTF-8).
pub fn to_vec(result: &ToolResult) -> Vec<u8> {
    to_string(result).into_bytes()
}

/// A v1 (or v2) document, keys in the order DESIGN §2 shows; absent and empty members left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Doc<'a> {
    format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorForm<'a>>,
    #[serde(skip_serializing_if = "Parts::is_empty")]
    parts: Parts<'a>,
    #[serde(skip_serializing_if = "StoredLinks::is_empty")]
    stored_links: StoredLinks<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    meta: Option<MetaForm<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_required: Option<InputForm<'a>>,
}

impl<'a> Doc<'a> {
    fn new(result: &'a ToolResult, meta: &'a Metadata) -> Self {
        let input = result.input_required_requests();
        Self {
            format: if input.is_some() { FORMAT_V2 } else { FORMAT },
            data: result.data.as_ref().map(Data::raw),
            // A v2 document keeps its summary inside `inputRequired`.
            summary: result.summary().filter(|_| input.is_none()),
            error: result.error().map(ErrorForm::from),
            parts: Parts::new(result.parts(), true),
            stored_links: StoredLinks(result.stored_links()),
            meta: (!meta.is_empty()).then(|| MetaForm::from(meta)),
            input_required: input.map(|input| InputForm {
                requests: InputRequests(input),
                state: input.state.as_ref(),
                summary: result.summary(),
            }),
        }
    }
}

/// A v1 error: `{code, message, details?}`.
#[derive(Serialize)]
pub(crate) struct ErrorForm<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a Map<String, Value>>,
}

impl<'a> From<&'a ToolError> for ErrorForm<'a> {
    fn from(error: &'a ToolError) -> Self {
        Self { code: error.code.as_str(), message: &error.message, details: error.details.as_ref() }
    }
}

/// A v2 `inputRequired`: `{requests, state?, summary?}`.
#[derive(Serialize)]
struct InputForm<'a> {
    requests: InputRequests<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
}

/// Metadata in the v1 form: `pagination`, `dryRun`, `responseSize`, `query`, `generatedAt`,
/// `expiresAt`, `extensions` (namespace → key → value), absent ones left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetaForm<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pagination: Option<PaginationJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_run: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<QueryJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Extensions::is_empty", serialize_with = "namespaces")]
    extensions: &'a Extensions,
}

impl<'a> From<&'a Metadata> for MetaForm<'a> {
    fn from(meta: &'a Metadata) -> Self {
        Self {
            pagination: meta.pagination.as_ref().map(PaginationJson::from),
            dry_run: meta.dry_run,
            response_size: meta.response_size,
            query: meta.query.as_ref().map(QueryJson::from),
            generated_at: meta.generated_at,
            expires_at: meta.expires_at,
            extensions: &meta.extensions,
        }
    }
}

fn namespaces<S: Serializer>(extensions: &&Extensions, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(extensions.namespaces())
}
