//! The facts of a result that a model must be able to read (DESIGN §11) — data, summary, error
//! code and message, dry run, pagination, image, or for a stored result the link and how to
//! read it — and whether the text a host gives its model ([`crate::host::model_view`]) shows
//! each. The host simulator and the console mark every fact seen or lost with these.

use serde_json::Value;

use crate::host::HostProfile;
use crate::{Audience, Part, Provenance, ToolResult};

/// One fact of a result, and the spellings any of which shows it in a model's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// What the fact is (`data`, `summary`, `error code`, `next cursor`, …).
    pub what: &'static str,
    /// The strings that show it: the fact as it appears raw, or escaped inside a JSON string
    /// (the legacy envelope carries the result as a string).
    pub any_of: Vec<String>,
}

impl Fact {
    fn new(what: &'static str, any_of: Vec<String>) -> Self {
        Self { what, any_of }
    }

    /// Whether `view` shows the fact.
    pub fn seen_in(&self, view: &str) -> bool {
        self.any_of.iter().any(|spelling| view.contains(spelling.as_str()))
    }
}

/// `text` as it appears raw, and escaped inside a JSON string.
pub fn spellings(text: &str) -> Vec<String> {
    let escaped = Value::String(text.to_owned()).to_string();
    vec![text.to_owned(), escaped[1..escaped.len() - 1].to_owned()]
}

/// A JSON member `"key":value` as it appears raw or inside a JSON string.
fn member(key: &str, value: &str) -> Vec<String> {
    vec![format!("\"{key}\":{value}"), format!("\\\"{key}\\\":{value}")]
}

/// Every fact of `result` rendered inline. A part for the user alone is not a fact for the
/// model; a passthrough (text that is not a result) has one fact, its text.
pub fn facts(result: &ToolResult) -> Vec<Fact> {
    if let Provenance::Passthrough(raw) = result.provenance() {
        return vec![Fact::new("passthrough text", vec![raw.clone()])];
    }
    let mut facts = Vec::new();
    if let Some(data) = result.data() {
        facts.push(Fact::new("data", spellings(&data.to_string())));
    }
    if let Some(summary) = result.summary() {
        facts.push(Fact::new("summary", spellings(summary)));
    }
    if let Some(error) = result.error() {
        facts.push(Fact::new("error code", spellings(error.code.as_str())));
        facts.push(Fact::new("error message", spellings(&error.message)));
    }
    let meta = result.meta();
    if meta.dry_run == Some(true) {
        // The key may carry the `_meta` prefix (`dev.toolwire/dryRun`).
        facts.push(Fact::new("dry run", vec!["dryRun\":true".into(), "dryRun\\\":true".into()]));
    }
    if let Some(page) = &meta.pagination {
        if let Some(total) = page.total {
            facts.push(Fact::new("pagination total", member("total", &total.to_string())));
        }
        if let Some(cursor) = &page.next_cursor {
            facts.push(Fact::new("next cursor", spellings(cursor)));
        }
    }
    for part in result.parts().iter().filter(|p| p.audience().is_none_or(Audience::reaches_model)) {
        if let Part::Binary(binary) = part
            && binary.mime_type.starts_with("image/")
        {
            facts.push(Fact::new("image", vec![format!("[image {}]", binary.mime_type)]));
        }
    }
    facts
}

/// The facts of `result` stored behind `uri` and sent as a stub, for a host that does or does
/// not follow links: the link, how to read it (`resources/read`, or `read_result` for a host
/// that cannot follow links), a preview of the data where the host caps results, and every fact
/// of the result but its data and images, which the stub leaves behind the link.
pub fn stub_facts(result: &ToolResult, uri: &str, profile: &HostProfile) -> Vec<Fact> {
    let how = if profile.reads_links {
        "resources/read".to_owned()
    } else {
        format!("read_result with {{\"uri\":\"{uri}\"}}")
    };
    let mut facts =
        vec![Fact::new("link URI", vec![uri.to_owned()]), Fact::new("how to read it", vec![how])];
    if profile.max_result_bytes.is_some() && result.data().is_some() {
        facts.push(Fact::new("data preview", vec!["Data preview (cut: the first ".into()]));
    }
    facts.extend(self::facts(result).into_iter().filter(|f| f.what != "data" && f.what != "image"));
    facts
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ErrorCode, Pagination, ToolError};

    fn whats(facts: &[Fact]) -> Vec<&str> {
        facts.iter().map(|f| f.what).collect()
    }

    #[test]
    fn a_result_lists_each_fact_once_in_reading_order() {
        let result = ToolResult::success(json!({"id": 7}))
            .with_summary("Found 1")
            .with_dry_run(true)
            .with_pagination(Pagination::new(9, 1, 1).next_cursor("c2"))
            .with_part(Part::binary(vec![1, 2], "image/png"));
        assert_eq!(
            whats(&facts(&result)),
            ["data", "summary", "dry run", "pagination total", "next cursor", "image"]
        );
    }

    #[test]
    fn a_fact_is_seen_raw_or_escaped_inside_a_json_string() {
        let result = ToolResult::success(json!({"name": "Mug \"XL\""}));
        let data = &facts(&result)[0];
        assert!(data.seen_in(r#"{"name":"Mug \"XL\""}"#));
        assert!(data.seen_in(r#"{"data":"{\"name\":\"Mug \\\"XL\\\"\"}"}"#));
        assert!(!data.seen_in(r#"{"name":"Mug"}"#));
    }

    #[test]
    fn a_failure_has_its_code_and_message_and_no_data() {
        let result =
            ToolResult::failure(ToolError::new(ErrorCode::parse("not_found"), "no product 9"));
        assert_eq!(whats(&facts(&result)), ["error code", "error message"]);
        assert!(facts(&result)[0].seen_in("not_found"));
    }

    #[test]
    fn a_stub_replaces_the_data_with_the_link_and_how_to_read_it() {
        let result = ToolResult::success(json!([1, 2])).with_summary("Two");
        let uri = "toolwire://results/abc";
        let follows = stub_facts(&result, uri, &HostProfile::generic());
        assert_eq!(whats(&follows), ["link URI", "how to read it", "summary"]);
        assert_eq!(follows[1].any_of, ["resources/read"]);
        let capped = HostProfile {
            reads_links: false,
            max_result_bytes: Some(10),
            ..HostProfile::generic()
        };
        let stuck = stub_facts(&result, uri, &capped);
        assert_eq!(whats(&stuck), ["link URI", "how to read it", "data preview", "summary"]);
        assert_eq!(stuck[1].any_of, [format!("read_result with {{\"uri\":\"{uri}\"}}")]);
        let chart = ToolResult::empty()
            .with_summary("A chart")
            .with_part(Part::binary(vec![1, 2], "image/png"));
        let stub = stub_facts(&chart, uri, &capped);
        assert_eq!(whats(&stub), ["link URI", "how to read it", "summary"], "no data to preview");
    }
}
