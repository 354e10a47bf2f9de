//! The core's typed `resources/read` and `resources/templates/list` results as rmcp's types,
//! field by field: nothing rendered is parsed back, and a value rmcp has no form for is an
//! error, never a default. Also the JSON-RPC error of a read that failed on toolwire's side.

use rmcp::ErrorData;
use rmcp::model::{
    CacheScope, ListResourceTemplatesResult, ReadResourceResult, ResourceContents,
    ResourceTemplate, ResultType,
};
use toolwire_core::resource::{self as core, ResourceEntry, ResourceTemplatesList};
use toolwire_store::ReadError;

/// A stored result's `resources/read` result as rmcp sends it.
pub(crate) fn read_result(read: core::ReadResourceResult) -> Result<ReadResourceResult, String> {
    let contents = read.contents.into_iter().map(contents).collect::<Result<Vec<_>, _>>()?;
    let mut result = ReadResourceResult::new(contents);
    result.result_type = result_type(read.result_type)?;
    result.ttl_ms = read.ttl_ms;
    result.cache_scope = cache_scope(read.cache_scope)?;
    Ok(result)
}

/// The JSON-RPC error of a `resources/read` that failed other than by not finding the link:
/// `-32603` with a message saying what happened, and `data: {"retryable": true}` while the
/// store is unavailable, so a caller retries a link that is still good instead of dropping it.
pub(crate) fn read_failure(error: &ReadError) -> ErrorData {
    ErrorData::internal_error(error.internal_message(), error.internal_data())
}

/// A `resources/templates/list` result as rmcp sends it.
pub(crate) fn templates_list(
    list: ResourceTemplatesList,
) -> Result<ListResourceTemplatesResult, String> {
    let templates = list.resource_templates.into_iter().map(template).collect();
    let mut result = ListResourceTemplatesResult::with_all_items(templates);
    result.result_type = result_type(list.result_type)?;
    result.ttl_ms = list.ttl_ms;
    result.cache_scope = cache_scope(list.cache_scope)?;
    Ok(result)
}

fn contents(entry: ResourceEntry) -> Result<ResourceContents, String> {
    let ResourceEntry { uri, mime_type, text, blob, .. } = entry;
    match (text, blob) {
        (Some(text), None) => {
            Ok(ResourceContents::TextResourceContents { uri, mime_type, text, meta: None })
        }
        (None, Some(blob)) => {
            Ok(ResourceContents::BlobResourceContents { uri, mime_type, blob, meta: None })
        }
        _ => Err(format!("the contents entry {uri} must carry exactly one of text and blob")),
    }
}

fn template(template: core::ResourceTemplate) -> ResourceTemplate {
    let mut typed = ResourceTemplate::new(template.uri_template, template.name)
        .with_description(template.description);
    typed.title = template.title;
    typed
}

fn result_type(result_type: Option<&str>) -> Result<Option<ResultType>, String> {
    match result_type {
        None => Ok(None),
        Some("complete") => Ok(Some(ResultType::COMPLETE)),
        Some(other) => Err(format!("resultType `{other}` has no rmcp form here")),
    }
}

fn cache_scope(scope: Option<&str>) -> Result<Option<CacheScope>, String> {
    match scope {
        None => Ok(None),
        Some("private") => Ok(Some(CacheScope::Private)),
        Some("public") => Ok(Some(CacheScope::Public)),
        Some(other) => Err(format!("cacheScope `{other}` has no rmcp form")),
    }
}

#[cfg(test)]
mod tests {
    use toolwire_core::McpRevision;

    use super::*;

    #[test]
    fn scopes_and_result_types_outside_rmcp_are_refused() {
        assert_eq!(cache_scope(Some("shared")), Err("cacheScope `shared` has no rmcp form".into()));
        assert_eq!(
            result_type(Some("task")),
            Err("resultType `task` has no rmcp form here".into())
        );
        assert_eq!(result_type(None), Ok(None));
    }

    #[test]
    fn the_templates_list_keeps_every_field() {
        let template = core::stored_result_template("x://{id}", McpRevision::V2026_07_28);
        let list = core::templates_list(vec![template.clone()], McpRevision::V2026_07_28);
        let typed = templates_list(list.clone()).map(|t| serde_json::to_value(t).ok());
        assert_eq!(typed, Ok(Some(list.to_value())));
    }
}
