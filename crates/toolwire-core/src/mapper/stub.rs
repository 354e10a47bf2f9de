//! The offload stub (DESIGN §4): what replaces a result that was stored, cut in up to three
//! levels until it fits the limit.

use serde_json::Value;

use super::{Body, Ids, lower_owned};
use crate::error::{ErrorCode, ToolError};
use crate::form::QueryJson;
use crate::host;
use crate::json_text::{json_len, to_json_string};
use crate::layout::{Declared, Plan};
use crate::link::StoredLink;
use crate::mapper::MapperConfig;
use crate::meta::Query;
use crate::result::ToolResult;
use crate::target::{Phase, Target};
use crate::timestamp::Timestamp;

/// How far the stub's summary and query are cut first.
const STUB_CUT: usize = 1024;

/// Everything a stub render needs, owned, so that the caller may store asynchronously.
#[derive(Debug)]
pub(super) struct StubPlan {
    pub(super) target: Target,
    pub(super) phase: Phase,
    /// The render kept its result, typed: so do the stubs.
    pub(super) typed: bool,
    pub(super) config: MapperConfig,
    pub(super) declared: Declared,
    pub(super) publishes_schema: bool,
    pub(super) tool_name: String,
    pub(super) task_id: String,
    pub(super) context_id: String,
    pub(super) error: Option<ToolError>,
    pub(super) summary: Option<String>,
    pub(super) query: Option<Query>,
    pub(super) generated_at: Timestamp,
    pub(super) expires_at: Option<Timestamp>,
    pub(super) reads_links: bool,
    /// The data's JSON, for the preview a capped host's stub carries.
    pub(super) preview: Option<String>,
}

impl StubPlan {
    /// The wire form of `result` (a stub or a failure), with its size.
    pub(super) fn render(&self, result: ToolResult) -> (Body, usize) {
        let generated_at = result.meta().generated_at.unwrap_or(self.generated_at);
        let plan = Plan::new(&result, self.phase, self.declared, generated_at, None);
        lower_owned(
            result,
            plan,
            self.target,
            self.typed,
            &self.config,
            &Ids {
                tool_name: &self.tool_name,
                task_id: &self.task_id,
                context_id: &self.context_id,
                request_state: None,
                reads_links: self.reads_links,
            },
        )
    }

    /// The stub at cutting `level` (0: 1 KiB cuts; 1: 256-byte cuts, no details; 2: the note,
    /// no query, a 128-byte message).
    pub(super) fn stub(
        &self,
        link: &StoredLink,
        size: usize,
        limit: usize,
        level: usize,
    ) -> ToolResult {
        let (summary_cut, query_cut, message_cut) = match level {
            0 => (Some(STUB_CUT), Some(STUB_CUT), None),
            1 => (Some(256), Some(256), Some(256)),
            _ => (None, None, Some(128)),
        };
        let how = host::read_instruction(&link.uri, self.reads_links);
        let mut error = self.error.clone();
        if error.is_none() && self.publishes_schema {
            let until = link.expires_at.map(|at| format!(" until {at}")).unwrap_or_default();
            error = Some(ToolError::new(
                ErrorCode::ResultTooLarge,
                format!(
                    "The result of {size} bytes exceeds the limit of {limit} bytes. It is stored at {}{until}; {how}.",
                    link.uri
                ),
            ));
        }
        if let (Some(error), Some(cut)) = (error.as_mut(), message_cut) {
            error.message = cut_str(&error.message, cut);
            error.details = None;
        }
        let mut stub = ToolResult::from_parts(None, error);
        stub.summary = Some(match (&self.summary, summary_cut) {
            (Some(summary), Some(cut)) => cut_str(summary, cut),
            _ => format!("The full result is stored at {}; {how}.", link.uri),
        });
        // The preview shrinks with the other cuts: 2 KiB, then 512 bytes, then none.
        let preview_cut = [Some(host::PREVIEW_BYTES), Some(512), None][level.min(2)];
        if let (Some(data_json), Some(cut)) = (&self.preview, preview_cut) {
            stub.parts.push(crate::part::Part::text(host::data_preview(data_json, cut)));
        }
        stub.stored_links.push(link.clone());
        stub.meta.response_size = Some(size as u64);
        stub.meta.query = match query_cut {
            Some(cut) => self.query.as_ref().map(|query| cut_query(query, cut)),
            None => None,
        };
        stub.meta.generated_at = Some(self.generated_at);
        stub.meta.expires_at = self.expires_at;
        stub
    }
}

/// `text` cut on a char boundary to at most `max` bytes, ending in `…` when cut.
fn cut_str(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The query whose compact JSON fits `max` bytes: the tool name cut to a quarter of it, the
/// arguments replaced by a string holding the start of their JSON text when too long.
fn cut_query(query: &Query, max: usize) -> Query {
    let json_len = |q: &Query| json_len(&QueryJson::from(q));
    if json_len(query) <= max {
        return query.clone();
    }
    let tool = cut_str(&query.tool, max / 4);
    let arguments = to_json_string(&query.arguments);
    let mut budget =
        max.saturating_sub(json_len(&Query::new(tool.clone(), Value::String(String::new()))));
    loop {
        let candidate = Query::new(tool.clone(), Value::String(cut_str(&arguments, budget)));
        let len = json_len(&candidate);
        if len <= max || budget == 0 {
            return candidate;
        }
        // Escaping made it longer than the raw cut: shrink by the overflow.
        budget = budget.saturating_sub(len - max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_keep_char_boundaries() {
        assert_eq!(cut_str("abc", 3), "abc");
        assert_eq!(cut_str("ééééé", 6), "é…");
        assert!(cut_str(&"x".repeat(2000), 1024).len() <= 1024);
    }

    #[test]
    fn long_queries_are_cut_to_the_budget() {
        let query = Query::new("search", serde_json::json!({"q": "\"".repeat(3000)}));
        let cut = cut_query(&query, 1024);
        let len = json_len(&QueryJson::from(&cut));
        assert!(len <= 1024, "{len}");
        assert!(
            matches!(cut.arguments, Value::String(ref s) if s.starts_with("{\\\"q") || s.starts_with("{\"q"))
        );
    }
}
