//! Input asked for across the hop (DESIGN §10, §15): an upstream's `InputRequiredResult`
//! (2026-07-28) becomes a `ToolResult` that asks for the same input, with the upstream's
//! `requestState` as its state; the client's answers come back in the next call's
//! [`InputRound`], which goes to the upstream as `inputResponses` with that state. Everything
//! between — asking a 2026-07-28 client with `InputRequiredResult`, a client in a session over
//! its connection, or the failure `input_required` where nobody can be asked — is what toolwire
//! does for any tool that asks.

use rmcp::model::{CallToolRequestParams, InputRequiredResult};
use serde_json::Value;
use toolwire_core::ToolResult;
use toolwire_core::input::{InputRequest, InputRequired, InputRound};

/// The result asking for what `asked` asks, or why it cannot be read (a request toolwire does
/// not know; callers read the reason).
pub(super) fn asked(asked: &InputRequiredResult) -> Result<ToolResult, String> {
    let requests = asked.input_requests.as_ref().filter(|requests| !requests.is_empty());
    let Some(requests) = requests else {
        return Err("it asked for input without saying what".to_owned());
    };
    let mut input = InputRequired::new();
    for (key, request) in requests {
        let value = serde_json::to_value(request).map_err(|e| e.to_string())?;
        let request = InputRequest::from_value(&value)
            .map_err(|why| format!("it asked for input toolwire cannot relay ({key}: {why})"))?;
        input = input.request(key.clone(), request);
    }
    if let Some(state) = &asked.request_state {
        input = input.state(Value::String(state.clone()));
    }
    Ok(ToolResult::input_required(input))
}

/// `params` carrying the answers of `round`, when it has any, and the upstream's state.
pub(super) fn answered(
    mut params: CallToolRequestParams,
    round: &InputRound,
) -> CallToolRequestParams {
    if round.is_empty() {
        return params;
    }
    let responses = round.responses().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    params.input_responses = Some(responses);
    params.request_state = round.state().and_then(Value::as_str).map(str::to_owned);
    params
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn input_required(value: Value) -> InputRequiredResult {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn what_an_upstream_asks_is_asked_again_with_its_state() {
        let asked = input_required(json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Delete a.txt?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}},
            "requestState": "opaque-1"
        }));
        let result = asked_ok(&asked);
        let input = result.input_required_requests().unwrap_or_else(|| panic!("asks nothing"));
        assert_eq!(input.state, Some(json!("opaque-1")));
        assert_eq!(
            Value::Object(input.requests_value()),
            json!({"confirm": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Delete a.txt?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}})
        );
    }

    fn asked_ok(asked: &InputRequiredResult) -> ToolResult {
        super::asked(asked).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn asking_for_nothing_is_not_read() {
        let asked = input_required(json!({"resultType": "input_required", "inputRequests": {}}));
        assert_eq!(
            super::asked(&asked).err().as_deref(),
            Some("it asked for input without saying what")
        );
    }

    #[test]
    fn the_answers_go_back_with_the_upstream_s_state() {
        let round = InputRound::new(
            serde_json::Map::from_iter([(
                "confirm".to_owned(),
                json!({"action": "accept", "content": {"ok": true}}),
            )]),
            Some(json!("opaque-1")),
        );
        let params = answered(CallToolRequestParams::new("delete"), &round);
        let wire = serde_json::to_value(&params).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            wire,
            json!({"name": "delete",
                   "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
                   "requestState": "opaque-1"})
        );
        let first = answered(CallToolRequestParams::new("delete"), &InputRound::default());
        let wire = serde_json::to_value(&first).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(wire, json!({"name": "delete"}));
    }
}
