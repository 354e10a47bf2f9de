//! An API's HTTP answer as a `ToolResult` (DESIGN §16), sans-IO. A 2xx JSON body is the data
//! (`Link: <…>; rel="next"` its next page); 204 or an empty body a success without data; text a
//! text part; an image an image part; other bytes a binary part. Every other status is a
//! failure result, never a protocol error: 400/422 `invalid_arguments`, 401/403
//! `missing_privilege`, 404/410 `not_found`, 429/503 `upstream_unavailable` with `retryAfter`,
//! other 4xx `tool_error`, other 5xx and redirects `upstream_unavailable`. The message is the
//! API's own (`detail`/`title` of problem+json, `message`, `error`, FastAPI's `detail` list, or
//! short text) and the status.

use serde_json::{Map, Value, json};
use toolwire_core::{ErrorCode, Pagination, Part, ToolError, ToolResult};

use crate::outbound::is_json_media;

/// The most characters of an API's error message a result carries.
const MESSAGE_LIMIT: usize = 2000;

/// What came back: the status, the headers a result reads, and the body.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The HTTP status.
    pub status: http::StatusCode,
    /// `Content-Type`, when sent.
    pub content_type: Option<String>,
    /// `Link`, when sent.
    pub link: Option<String>,
    /// `Retry-After`, when sent.
    pub retry_after: Option<String>,
    /// The body.
    pub body: Vec<u8>,
}

impl Answer {
    /// The result a caller receives.
    pub fn into_result(self) -> ToolResult {
        let status = self.status;
        if status.is_success() {
            return self.success();
        }
        let (code, advice) = match status.as_u16() {
            400 | 422 => (ErrorCode::InvalidArguments, None),
            401 | 403 => (ErrorCode::MissingPrivilege, None),
            404 | 410 => (ErrorCode::NotFound, None),
            429 | 503 => (ErrorCode::UpstreamUnavailable, Some("Try again later.")),
            300..=399 => (
                ErrorCode::UpstreamUnavailable,
                Some(
                    "The API answered with a redirect, which toolwire does not follow; the operator should check base_url in toolwire.toml.",
                ),
            ),
            400..=499 => (ErrorCode::ToolError, None),
            _ => (ErrorCode::UpstreamUnavailable, Some("Try again later.")),
        };
        let said = if status.is_redirection() { None } else { self.message() };
        let status_text = match status.canonical_reason() {
            Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
            None => format!("HTTP {}", status.as_u16()),
        };
        let mut message = match said {
            Some(said) => format!("{said} ({status_text})"),
            None => format!("The API answered {status_text}."),
        };
        let mut details = Map::new();
        details.insert("status".into(), status.as_u16().into());
        if let Some(after) = self.retry_after.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
            let value = after.parse::<u64>().map_or_else(|_| json!(after), |s| json!(s));
            message.push_str(&match value.as_u64() {
                Some(seconds) => format!(" Retry after {seconds} s."),
                None => format!(" Retry after {after}."),
            });
            details.insert("retryAfter".into(), value);
        } else if let Some(advice) = advice {
            message.push(' ');
            message.push_str(advice);
        }
        ToolResult::failure(ToolError::new(code, message).with_details(details))
    }

    fn success(self) -> ToolResult {
        let media = self.content_type.clone().unwrap_or_default();
        let essence = media.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        if self.body.is_empty() || self.status == http::StatusCode::NO_CONTENT {
            return ToolResult::empty();
        }
        if is_json_media(&essence) {
            return match serde_json::from_slice::<Value>(&self.body) {
                Ok(data) => {
                    let result = ToolResult::success(data);
                    match self.next_page() {
                        Some(next) => {
                            result.with_pagination(Pagination::default().next_cursor(next))
                        }
                        None => result,
                    }
                }
                Err(e) => ToolResult::failure(ToolError::new(
                    ErrorCode::UpstreamUnavailable,
                    format!(
                        "The API answered {essence} that is not valid JSON ({e}); the operator should check the API."
                    ),
                )),
            };
        }
        let textual = essence.starts_with("text/")
            || essence.is_empty()
            || matches!(
                essence.as_str(),
                "application/xml"
                    | "application/yaml"
                    | "application/x-yaml"
                    | "application/javascript"
            )
            || essence.ends_with("+xml");
        let mime = if essence.is_empty() { "application/octet-stream".to_owned() } else { essence };
        let part = match String::from_utf8(self.body) {
            Ok(text) if textual => Part::text(text),
            Ok(text) => Part::binary(text.into_bytes(), mime),
            Err(e) => Part::binary(e.into_bytes(), mime),
        };
        ToolResult::empty().with_part(part)
    }

    /// The target of `Link: <…>; rel="next"`, when the answer has one.
    fn next_page(&self) -> Option<String> {
        let link = self.link.as_deref()?;
        link.split(',').find_map(|entry| {
            let (target, params) = entry.trim().split_once('>')?;
            let target = target.trim().strip_prefix('<')?;
            let next = params.split(';').any(|p| {
                let p = p.trim();
                p.strip_prefix("rel=").is_some_and(|rel| {
                    rel.trim_matches('"')
                        .split_ascii_whitespace()
                        .any(|r| r.eq_ignore_ascii_case("next"))
                })
            });
            next.then(|| target.to_owned())
        })
    }

    /// What the API said about its failure, cut to [`MESSAGE_LIMIT`] characters.
    fn message(&self) -> Option<String> {
        let text = std::str::from_utf8(&self.body).ok()?.trim();
        if text.is_empty() {
            return None;
        }
        let said = match serde_json::from_str::<Value>(text) {
            Ok(json) => said_in_json(&json)?,
            // A short plain-text or HTML-free body is the message; a page of HTML is not.
            Err(_) if !text.starts_with('<') => text.to_owned(),
            Err(_) => return None,
        };
        let said = said.trim();
        Some(match said.char_indices().nth(MESSAGE_LIMIT) {
            Some((cut, _)) => format!("{}…", &said[..cut]),
            None => said.to_owned(),
        })
    }
}

/// The message of a JSON error body: problem+json's `detail` (else `title`), `message`,
/// `error` (a string, or an object with `message`), or FastAPI's list of validation errors.
fn said_in_json(json: &Value) -> Option<String> {
    let object = json.as_object()?;
    let string = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    if let Some(Value::Array(items)) = object.get("detail") {
        let lines: Vec<String> = items
            .iter()
            .filter_map(|item| {
                let msg = item.get("msg").or_else(|| item.get("message"))?.as_str()?;
                let at = item.get("loc").and_then(Value::as_array).map(|loc| {
                    loc.iter()
                        .map(|l| l.as_str().map_or_else(|| l.to_string(), str::to_owned))
                        .collect::<Vec<_>>()
                        .join(".")
                });
                Some(match at {
                    Some(at) if !at.is_empty() => format!("{at}: {msg}"),
                    _ => msg.to_owned(),
                })
            })
            .collect();
        if !lines.is_empty() {
            return Some(lines.join("; "));
        }
    }
    string("detail")
        .or_else(|| string("title"))
        .or_else(|| string("message"))
        .or_else(|| string("error_description"))
        .or_else(|| string("error"))
        .or_else(|| {
            object
                .get("error")
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, content_type: &str, body: &str) -> Answer {
        Answer {
            status: http::StatusCode::from_u16(status).unwrap_or_else(|e| panic!("{e}")),
            content_type: Some(content_type.to_owned()),
            link: None,
            retry_after: None,
            body: body.as_bytes().to_vec(),
        }
    }

    fn failure(answer: Answer) -> (String, String, Value) {
        let result = answer.into_result();
        let error = result.error().unwrap_or_else(|| panic!("not a failure: {result:?}"));
        (
            error.code.as_str().to_owned(),
            error.message.clone(),
            Value::Object(error.details.clone().unwrap_or_default()),
        )
    }

    #[test]
    fn json_is_data_and_link_next_is_the_next_page() {
        let mut ok = answer(200, "application/json; charset=utf-8", r#"[{"id":1}]"#);
        ok.link = Some(r#"<https://api.test/items?page=1>; rel="prev", <https://api.test/items?page=3>; rel="next""#.into());
        let result = ok.into_result();
        assert_eq!(result.data_json(), Some(r#"[{"id":1}]"#));
        assert_eq!(
            result.meta().pagination.as_ref().and_then(|p| p.next_cursor.as_deref()),
            Some("https://api.test/items?page=3")
        );
        assert!(answer(204, "", "").into_result().is_success());
        assert_eq!(answer(204, "", "").into_result().data(), None);
    }

    #[test]
    fn other_bodies_are_parts() {
        let text = answer(200, "text/plain", "hello").into_result();
        assert_eq!(text.parts(), &[Part::text("hello")]);
        let png = answer(200, "image/png", "\u{89}PNG").into_result();
        assert!(matches!(&png.parts()[0], Part::Binary(b) if b.mime_type == "image/png"));
        let broken = answer(200, "application/json", "{").into_result();
        assert_eq!(
            broken.error().map(|e| e.message.as_str()),
            Some(
                "The API answered application/json that is not valid JSON (EOF while parsing an object at line 1 column 1); the operator should check the API."
            )
        );
    }

    #[test]
    fn statuses_become_codes_with_the_apis_message() {
        assert_eq!(
            failure(answer(404, "application/json", r#"{"detail":"Node 7 not found"}"#)),
            (
                "not_found".into(),
                "Node 7 not found (HTTP 404 Not Found)".into(),
                json!({"status": 404})
            )
        );
        assert_eq!(
            failure(answer(
                422,
                "application/json",
                r#"{"detail":[{"loc":["query","q"],"msg":"too short"}]}"#
            ))
            .1,
            "query.q: too short (HTTP 422 Unprocessable Entity)"
        );
        assert_eq!(
            failure(answer(
                403,
                "application/problem+json",
                r#"{"title":"Forbidden","detail":"admins only"}"#
            ))
            .0,
            "missing_privilege"
        );
        assert_eq!(
            failure(answer(409, "application/json", r#"{"error":{"message":"exists"}}"#)),
            ("tool_error".into(), "exists (HTTP 409 Conflict)".into(), json!({"status": 409}))
        );
        assert_eq!(
            failure(answer(500, "text/html", "<html>boom</html>")),
            (
                "upstream_unavailable".into(),
                "The API answered HTTP 500 Internal Server Error. Try again later.".into(),
                json!({"status": 500})
            )
        );
        let mut limited = answer(
            429,
            "application/problem+json",
            r#"{"title":"Slow down","detail":"10 calls a minute"}"#,
        );
        limited.retry_after = Some("7".into());
        assert_eq!(
            failure(limited),
            (
                "upstream_unavailable".into(),
                "10 calls a minute (HTTP 429 Too Many Requests) Retry after 7 s.".into(),
                json!({"status": 429, "retryAfter": 7})
            )
        );
        assert_eq!(
            failure(answer(302, "text/plain", "moved")).1,
            "The API answered HTTP 302 Found. The API answered with a redirect, which toolwire does not follow; the operator should check base_url in toolwire.toml."
        );
    }
}
