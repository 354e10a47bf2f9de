//! The failure part of a result: a stable code, a message and optional details.

use std::fmt;

use serde_json::{Map, Value};

/// A stable error code. Codes an app invents are kept verbatim as [`ErrorCode::Other`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// Input the tool can't use; details `invalid: [{path, message}]`.
    InvalidArguments,
    /// The caller lacks a privilege; details `missing: [..]` when known.
    MissingPrivilege,
    /// The thing asked for does not exist.
    NotFound,
    /// Well-formed input that breaks a business rule.
    RuleViolation,
    /// The change conflicts with the current state.
    Conflict,
    /// Too many calls; try later.
    RateLimited,
    /// An app endpoint failed, timed out or answered garbage.
    UpstreamUnavailable,
    /// The result exceeded the size limit and is stored behind a link.
    ResultTooLarge,
    /// Anything else.
    ToolError,
    /// The tool needs input (DESIGN §10) that this client or revision cannot provide; details
    /// `inputRequests` list what was asked.
    InputRequired,
    /// A code toolwire does not know, kept verbatim.
    Other(String),
}

impl ErrorCode {
    /// Every code toolwire knows, in documentation order.
    pub const KNOWN: [ErrorCode; 10] = [
        ErrorCode::InvalidArguments,
        ErrorCode::MissingPrivilege,
        ErrorCode::NotFound,
        ErrorCode::RuleViolation,
        ErrorCode::Conflict,
        ErrorCode::RateLimited,
        ErrorCode::UpstreamUnavailable,
        ErrorCode::ResultTooLarge,
        ErrorCode::ToolError,
        ErrorCode::InputRequired,
    ];

    /// The code for a wire string: a known code, else [`ErrorCode::Other`] holding it verbatim.
    pub fn parse(code: &str) -> Self {
        Self::KNOWN
            .into_iter()
            .find(|known| known.as_str() == code)
            .unwrap_or_else(|| ErrorCode::Other(code.to_owned()))
    }

    /// The code as written on the wire (an unknown code verbatim).
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::MissingPrivilege => "missing_privilege",
            ErrorCode::NotFound => "not_found",
            ErrorCode::RuleViolation => "rule_violation",
            ErrorCode::Conflict => "conflict",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::UpstreamUnavailable => "upstream_unavailable",
            ErrorCode::ResultTooLarge => "result_too_large",
            ErrorCode::ToolError => "tool_error",
            ErrorCode::InputRequired => "input_required",
            ErrorCode::Other(code) => code,
        }
    }

    /// The code a format that needs a known code uses: unknown codes count as `tool_error`.
    pub fn known_or_tool_error(&self) -> &str {
        match self {
            ErrorCode::Other(_) => ErrorCode::ToolError.as_str(),
            known => known.as_str(),
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool failure: what went wrong, for a model and for a program.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// The stable code.
    pub code: ErrorCode,
    /// What a person or a model reads.
    pub message: String,
    /// Structured details (a JSON object), when there are any.
    pub details: Option<Map<String, Value>>,
}

impl ToolError {
    /// An error with a code and a message and no details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: None }
    }

    /// The same error with details.
    pub fn with_details(mut self, details: Map<String, Value>) -> Self {
        self.details = Some(details);
        self
    }

    /// `invalid_arguments` with `details.invalid = [{path, message}]`.
    pub fn invalid_arguments<P, M>(
        message: impl Into<String>,
        invalid: impl IntoIterator<Item = (P, M)>,
    ) -> Self
    where
        P: Into<String>,
        M: Into<String>,
    {
        let list = invalid
            .into_iter()
            .map(|(path, msg)| {
                let mut entry = Map::new();
                entry.insert("path".into(), Value::String(path.into()));
                entry.insert("message".into(), Value::String(msg.into()));
                Value::Object(entry)
            })
            .collect();
        let mut details = Map::new();
        details.insert("invalid".into(), Value::Array(list));
        Self::new(ErrorCode::InvalidArguments, message).with_details(details)
    }

    /// `missing_privilege` with `details.missing` and the message `Missing privilege: a, b`.
    pub fn missing_privilege<S: Into<String>>(missing: impl IntoIterator<Item = S>) -> Self {
        let missing: Vec<String> = missing.into_iter().map(Into::into).collect();
        let message = format!("Missing privilege: {}", missing.join(", "));
        let mut details = Map::new();
        details.insert(
            "missing".into(),
            Value::Array(missing.into_iter().map(Value::String).collect()),
        );
        Self::new(ErrorCode::MissingPrivilege, message).with_details(details)
    }
}
