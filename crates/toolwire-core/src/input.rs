//! The third outcome of a result (DESIGN §10): "input required". A tool that needs an answer
//! from the client's user, the client's model or the client's roots before it can finish says
//! so with an [`InputRequired`]: ordered, keyed requests from a closed set, an optional state the
//! tool wants back on the next call, and (on the result) an optional summary. The next call
//! hands the tool an [`InputRound`]: the client's answers by key and the state.
//!
//! Every request has one wire shape, the 2026-07-28 `InputRequest` (`{"method", "params"}`): it
//! is what `inputRequests` carries on MCP, what the v2 form stores, what the down-levelled
//! failure lists in `details.inputRequests` and what A2A's `status.message` carries as data.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ToolError};

/// An `InputRequest` on the wire: `{"method", "params"}`, keys in this order.
#[derive(Serialize)]
struct RequestWire<'a> {
    method: &'static str,
    params: ParamsWire<'a>,
}

/// The parameters of each request, as MCP writes them.
#[derive(Serialize)]
#[serde(untagged)]
enum ParamsWire<'a> {
    Form {
        mode: &'static str,
        message: &'a str,
        #[serde(rename = "requestedSchema")]
        requested_schema: &'a Map<String, Value>,
    },
    Url {
        mode: &'static str,
        message: &'a str,
        url: &'a str,
    },
    Sample(&'a Map<String, Value>),
    None {},
}

/// The value of a shape that always serializes: string keys, numbers kept as their text.
fn to_json_value(shape: &impl Serialize) -> Value {
    serde_json::to_value(shape).unwrap_or(Value::Null)
}

/// One thing a tool asks the client for.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// Ask the user to fill in a form (`elicitation/create`, form mode).
    ElicitForm {
        /// What the user reads.
        message: String,
        /// The requested schema: an object schema with flat primitive properties.
        requested_schema: Map<String, Value>,
    },
    /// Send the user to a URL (`elicitation/create`, URL mode).
    ElicitUrl {
        /// Why the user should go there.
        message: String,
        /// Where to go.
        url: String,
    },
    /// Ask the client's model (`sampling/createMessage`); the parameters as MCP defines them
    /// (`messages`, `maxTokens`, …).
    Sample(Map<String, Value>),
    /// Ask for the client's roots (`roots/list`).
    ListRoots,
}

/// The client capability a request needs.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capability {
    /// `elicitation` (form mode).
    ElicitationForm,
    /// `elicitation.url`.
    ElicitationUrl,
    /// `sampling`.
    Sampling,
    /// `roots`.
    Roots,
}

impl InputRequest {
    /// A form-mode elicitation.
    pub fn elicit(message: impl Into<String>, requested_schema: Map<String, Value>) -> Self {
        Self::ElicitForm { message: message.into(), requested_schema }
    }

    /// A URL-mode elicitation.
    pub fn elicit_url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::ElicitUrl { message: message.into(), url: url.into() }
    }

    /// A sampling request with one user text message and a token budget.
    pub fn sample_text(prompt: impl Into<String>, max_tokens: u64) -> Self {
        let mut content = Map::new();
        content.insert("type".into(), Value::String("text".into()));
        content.insert("text".into(), Value::String(prompt.into()));
        let mut message = Map::new();
        message.insert("role".into(), Value::String("user".into()));
        message.insert("content".into(), Value::Object(content));
        let mut params = Map::new();
        params.insert("messages".into(), Value::Array(vec![Value::Object(message)]));
        params.insert("maxTokens".into(), Value::from(max_tokens));
        Self::Sample(params)
    }

    /// The JSON-RPC method that asks it.
    pub fn method(&self) -> &'static str {
        match self {
            Self::ElicitForm { .. } | Self::ElicitUrl { .. } => "elicitation/create",
            Self::Sample(_) => "sampling/createMessage",
            Self::ListRoots => "roots/list",
        }
    }

    /// The client capability it needs.
    pub fn capability(&self) -> Capability {
        match self {
            Self::ElicitForm { .. } => Capability::ElicitationForm,
            Self::ElicitUrl { .. } => Capability::ElicitationUrl,
            Self::Sample(_) => Capability::Sampling,
            Self::ListRoots => Capability::Roots,
        }
    }

    /// The request's parameters as MCP writes them.
    pub fn params(&self) -> Map<String, Value> {
        match to_json_value(&self.wire().params) {
            Value::Object(params) => params,
            _ => Map::new(),
        }
    }

    /// The 2026-07-28 `InputRequest` JSON: `{"method", "params"}`.
    pub fn to_value(&self) -> Value {
        to_json_value(&self.wire())
    }

    /// The wire shape, borrowing the request.
    fn wire(&self) -> RequestWire<'_> {
        let params = match self {
            Self::ElicitForm { message, requested_schema } => {
                ParamsWire::Form { mode: "form", message, requested_schema }
            }
            Self::ElicitUrl { message, url } => ParamsWire::Url { mode: "url", message, url },
            Self::Sample(sample) => ParamsWire::Sample(sample),
            Self::ListRoots => ParamsWire::None {},
        };
        RequestWire { method: self.method(), params }
    }

    /// Reads an `InputRequest` JSON back; the error says what is wrong, relative to the request.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let Value::Object(request) = value else {
            return Err("expected an object with `method` and `params`".into());
        };
        if let Some(key) = request.keys().find(|key| *key != "method" && *key != "params") {
            return Err(format!("unknown key `{key}`"));
        }
        let params = match request.get("params") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(params)) => params.clone(),
            Some(_) => return Err("params: expected an object".into()),
        };
        let text = |key: &str| match params.get(key) {
            Some(Value::String(text)) => Ok(text.clone()),
            _ => Err(format!("params.{key}: expected a string")),
        };
        match request.get("method").and_then(Value::as_str) {
            Some("elicitation/create") => match params.get("mode").and_then(Value::as_str) {
                Some("url") => Ok(Self::ElicitUrl { message: text("message")?, url: text("url")? }),
                None | Some("form") => match params.get("requestedSchema") {
                    Some(Value::Object(schema)) => Ok(Self::ElicitForm {
                        message: text("message")?,
                        requested_schema: schema.clone(),
                    }),
                    _ => Err("params.requestedSchema: expected an object".into()),
                },
                Some(other) => Err(format!("params.mode: unknown elicitation mode `{other}`")),
            },
            Some("sampling/createMessage") => match params.get("messages") {
                Some(Value::Array(_)) => Ok(Self::Sample(params)),
                _ => Err("params.messages: expected a list".into()),
            },
            Some("roots/list") => Ok(Self::ListRoots),
            Some(other) => Err(format!("method: `{other}` is not an input request")),
            None => Err("method: expected a string".into()),
        }
    }
}

/// The requests of an [`InputRequired`] as the 2026-07-28 `inputRequests` map (key →
/// `{"method", "params"}`), in order, borrowed: what every target writes (MCP `inputRequests`,
/// the v2 form, A2A's status message) without building a map first.
#[derive(Debug, Clone, Copy)]
pub struct InputRequests<'a>(pub &'a InputRequired);

impl Serialize for InputRequests<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.requests.iter().map(|(key, request)| (key, request.wire())))
    }
}

/// The outcome "input required": keyed requests in order and an optional state.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputRequired {
    /// The requests, in order; keys are unique.
    pub requests: Vec<(String, InputRequest)>,
    /// Any JSON the tool wants back on the next call.
    pub state: Option<Value>,
}

impl InputRequired {
    /// No requests yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the request under `key`.
    pub fn request(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        let key = key.into();
        match self.requests.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = request,
            None => self.requests.push((key, request)),
        }
        self
    }

    /// Sets the state handed back on the next call (`null` means none).
    pub fn state(mut self, state: Value) -> Self {
        self.state = match state {
            Value::Null => None,
            other => Some(other),
        };
        self
    }

    /// The request under `key`.
    pub fn get(&self, key: &str) -> Option<&InputRequest> {
        self.requests.iter().find(|(k, _)| k == key).map(|(_, request)| request)
    }

    /// The requests as the 2026-07-28 `inputRequests` map.
    pub fn requests_value(&self) -> Map<String, Value> {
        self.requests.iter().map(|(key, request)| (key.clone(), request.to_value())).collect()
    }

    /// Only the requests whose capability `allowed` accepts (the others cannot be asked).
    pub fn retain(&self, mut allowed: impl FnMut(Capability) -> bool) -> Self {
        Self {
            requests: self
                .requests
                .iter()
                .filter(|(_, request)| allowed(request.capability()))
                .cloned()
                .collect(),
            state: self.state.clone(),
        }
    }

    /// A sentence naming what is asked: "The tool needs input first (elicitation/create)."
    pub fn describe(&self) -> String {
        format!("The tool needs input first ({}).", self.method_list())
    }

    fn method_list(&self) -> String {
        let mut methods: Vec<&str> = Vec::new();
        for (_, request) in &self.requests {
            if !methods.contains(&request.method()) {
                methods.push(request.method());
            }
        }
        if methods.is_empty() { "a retry".to_owned() } else { methods.join(", ") }
    }

    /// The failure `input_required` that stands for this outcome where the requests cannot be
    /// asked: a sentence naming the methods as the message (the result's summary stays its
    /// summary), the requests in `details.inputRequests`.
    pub fn to_failure(&self) -> ToolError {
        let message = format!(
            "The tool needs input first ({}), which this client cannot provide.",
            self.method_list()
        );
        let mut details = Map::new();
        details.insert("inputRequests".into(), Value::Object(self.requests_value()));
        ToolError::new(ErrorCode::InputRequired, message).with_details(details)
    }
}

/// What a tool receives on the call after it asked for input: the client's answers by key and
/// the state it asked to get back. Empty on a first call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputRound {
    responses: Map<String, Value>,
    state: Option<Value>,
}

/// The user's answer to an elicitation.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited {
    /// The user submitted the form (its content; empty for URL mode).
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the request.
    Cancel,
}

impl InputRound {
    /// A round with these answers and state.
    pub fn new(responses: Map<String, Value>, state: Option<Value>) -> Self {
        Self { responses, state }
    }

    /// True on a first call (no answers, no state).
    pub fn is_empty(&self) -> bool {
        self.responses.is_empty() && self.state.is_none()
    }

    /// Every answer, by key (answers to requests the tool never made included: ignore them).
    pub fn responses(&self) -> &Map<String, Value> {
        &self.responses
    }

    /// The answer under `key`.
    pub fn response(&self, key: &str) -> Option<&Value> {
        self.responses.get(key)
    }

    /// The state the tool asked to get back.
    pub fn state(&self) -> Option<&Value> {
        self.state.as_ref()
    }

    /// The elicitation answer under `key`, when it is one (`{"action", "content"?}`).
    pub fn elicited(&self, key: &str) -> Option<Elicited> {
        let Value::Object(answer) = self.responses.get(key)? else {
            return None;
        };
        match answer.get("action").and_then(Value::as_str)? {
            "accept" => Some(Elicited::Accept(match answer.get("content") {
                Some(Value::Object(content)) => content.clone(),
                _ => Map::new(),
            })),
            "decline" => Some(Elicited::Decline),
            "cancel" => Some(Elicited::Cancel),
            _ => None,
        }
    }

    /// The value of `field` in the submitted form under `key` (see [`ask_value`]); `None` when
    /// the user did not accept or the field is missing.
    pub fn value(&self, key: &str, field: &str) -> Option<Value> {
        match self.elicited(key)? {
            Elicited::Accept(mut content) => content.remove(field),
            _ => None,
        }
    }

    /// The text of a sampling answer under `key` (`content` a text block or a list holding one).
    pub fn sampled_text(&self, key: &str) -> Option<String> {
        let content = self.responses.get(key)?.get("content")?;
        let text_of = |block: &Value| match block.get("type").and_then(Value::as_str) {
            Some("text") => block.get("text").and_then(Value::as_str).map(str::to_owned),
            _ => None,
        };
        match content {
            Value::Array(blocks) => blocks.iter().find_map(text_of),
            block => text_of(block),
        }
    }

    /// The root URIs of a `roots/list` answer under `key`.
    pub fn roots(&self, key: &str) -> Option<Vec<String>> {
        let Value::Array(roots) = self.responses.get(key)?.get("roots")? else {
            return None;
        };
        Some(
            roots
                .iter()
                .filter_map(|root| root.get("uri").and_then(Value::as_str).map(str::to_owned))
                .collect(),
        )
    }
}

/// A confirmation request: a form with one required boolean `confirm` (read back with
/// [`confirmation`]).
pub fn confirm_request(message: impl Into<String>) -> InputRequest {
    let mut field = Map::new();
    field.insert("type".into(), Value::String("boolean".into()));
    field.insert("title".into(), Value::String("Confirm".into()));
    let mut properties = Map::new();
    properties.insert("confirm".into(), Value::Object(field));
    InputRequest::elicit(message, object_schema(properties, &["confirm"]))
}

/// A form asking the user for one value: `field`, described by `schema` (a primitive JSON
/// Schema such as `{"type": "integer", "minimum": 1}`), required. Read the answer with
/// [`InputRound::value`].
pub fn ask_value(message: impl Into<String>, field: &str, schema: Value) -> InputRequest {
    let mut properties = Map::new();
    properties.insert(field.to_owned(), schema);
    InputRequest::elicit(message, object_schema(properties, &[field]))
}

/// A flat object schema for a form: `{"type":"object","properties":…,"required":[…]}`.
pub fn object_schema(properties: Map<String, Value>, required: &[&str]) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert(
            "required".into(),
            Value::Array(required.iter().map(|name| Value::String((*name).into())).collect()),
        );
    }
    schema
}

/// What a confirmation round says.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// Not answered yet: ask (again).
    Ask,
    /// The user confirmed.
    Confirmed,
    /// The user declined, cancelled or did not tick the box.
    Refused,
}

/// Reads the answer to [`confirm_request`] under `key`.
pub fn confirmation(round: &InputRound, key: &str) -> Confirmation {
    match round.elicited(key) {
        None => Confirmation::Ask,
        Some(Elicited::Accept(content)) => match content.get("confirm") {
            Some(Value::Bool(true)) => Confirmation::Confirmed,
            _ => Confirmation::Refused,
        },
        Some(Elicited::Decline | Elicited::Cancel) => Confirmation::Refused,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_round_trip_through_their_wire_json() {
        let requests = [
            confirm_request("Change the price?"),
            InputRequest::elicit_url("Sign in", "https://example.com/login"),
            InputRequest::sample_text("Capital of France?", 100),
            InputRequest::ListRoots,
        ];
        for request in requests {
            assert_eq!(InputRequest::from_value(&request.to_value()), Ok(request));
        }
        assert_eq!(
            InputRequest::ListRoots.to_value(),
            json!({"method": "roots/list", "params": {}})
        );
    }

    #[test]
    fn the_borrowed_requests_write_the_same_text_as_their_values() {
        let input = InputRequired::new()
            .request("url", InputRequest::elicit_url("Sign in", "https://example.com/login"))
            .request("form", confirm_request("Sure?"))
            .request("llm", InputRequest::sample_text("Capital of France?", 100))
            .request("roots", InputRequest::ListRoots);
        let text = serde_json::to_string(&InputRequests(&input)).unwrap_or_default();
        assert_eq!(
            Ok(text.clone()),
            serde_json::to_string(&input.requests_value()).map_err(|e| e.to_string())
        );
        assert!(
            text.starts_with(
                r#"{"url":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}},"form":{"method":"elicitation/create","params":{"mode":"form","#
            ),
            "{text}"
        );
    }

    #[test]
    fn unknown_methods_and_shapes_are_refused() {
        assert_eq!(
            InputRequest::from_value(&json!({"method": "tools/call", "params": {}})),
            Err("method: `tools/call` is not an input request".into())
        );
        assert_eq!(
            InputRequest::from_value(
                &json!({"method": "elicitation/create", "params": {"message": "x"}})
            ),
            Err("params.requestedSchema: expected an object".into())
        );
        assert_eq!(
            InputRequest::from_value(&json!({"method": "roots/list", "x": 1})),
            Err("unknown key `x`".into())
        );
    }

    #[test]
    fn answers_are_read_by_key() {
        let responses = json!({
            "ok": {"action": "accept", "content": {"confirm": true}},
            "no": {"action": "decline"},
            "llm": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
            "roots": {"roots": [{"uri": "file:///a"}]}
        });
        let responses = responses.as_object().cloned().unwrap_or_default();
        let round = InputRound::new(responses, None);
        assert_eq!(confirmation(&round, "ok"), Confirmation::Confirmed);
        assert_eq!(confirmation(&round, "no"), Confirmation::Refused);
        assert_eq!(confirmation(&round, "missing"), Confirmation::Ask);
        assert_eq!(round.sampled_text("llm").as_deref(), Some("Paris"));
        assert_eq!(round.roots("roots"), Some(vec!["file:///a".to_owned()]));
        assert_eq!(round.value("ok", "confirm"), Some(json!(true)));
        assert_eq!(round.value("no", "confirm"), None);
        let InputRequest::ElicitForm { requested_schema, .. } =
            ask_value("How many?", "count", json!({"type": "integer"}))
        else {
            panic!("not a form")
        };
        assert_eq!(
            Value::Object(requested_schema),
            json!({"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]})
        );
    }

    #[test]
    fn the_failure_lists_the_requests() {
        let input = InputRequired::new().request("ok", confirm_request("Sure?"));
        let error = input.to_failure();
        assert_eq!(error.code, ErrorCode::InputRequired);
        assert_eq!(
            error.message,
            "The tool needs input first (elicitation/create), which this client cannot provide."
        );
        assert_eq!(
            error.details.and_then(|d| d.get("inputRequests").cloned()),
            Some(json!({"ok": confirm_request("Sure?").to_value()}))
        );
    }
}
