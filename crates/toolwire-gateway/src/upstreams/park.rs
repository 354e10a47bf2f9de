//! An upstream's questions to a stateless client (DESIGN §10, §15): a 2026-07-28 client has no
//! connection to be asked over, so a call whose upstream asks it something (`elicitation/create`,
//! `sampling/createMessage`) runs on in a task of its own, waiting at the upstream for the
//! answer, and is parked here under a random token while the client gets the question as input
//! required. The retry, whose sealed state carries the token, takes the call back, hands the
//! answer to the upstream and waits for what comes next. A parked call lives on this node only,
//! for its caller and tool only, until its deadline.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

#[allow(
    deprecated,
    reason = "rmcp marks sampling deprecated (SEP-2577), but the revisions an upstream speaks still have it"
)]
use rmcp::model::CreateMessageResult;
use rmcp::model::{ClientResult, ElicitResult, ErrorData, ServerRequest};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use toolwire_core::ToolResult;
use toolwire_core::input::{InputRequest, InputRequired};

/// The key of the one request a parked call asks in a round.
const KEY: &str = "upstream";

/// A request of the upstream, waiting for the client's answer.
pub(super) struct Question {
    /// What the upstream asks.
    pub(super) request: ServerRequest,
    /// Where the answer (or why there is none) goes.
    pub(super) answer: oneshot::Sender<Result<ClientResult, ErrorData>>,
}

/// A channel for the questions of one call: the sending end goes into the call's `Asker`.
pub(super) fn questions() -> (mpsc::Sender<Question>, mpsc::Receiver<Question>) {
    // The upstream waits for each answer before it asks again.
    mpsc::channel(1)
}

/// An upstream call running in a task of its own; dropped, it stops the task (which cancels
/// the call at the upstream, as any call the gateway stops waiting for).
pub(super) struct Running {
    questions: mpsc::Receiver<Question>,
    outcome: oneshot::Receiver<ToolResult>,
    task: tokio::task::AbortHandle,
}

/// What a running call came to next.
pub(super) enum Next {
    /// Its result.
    Done(Box<ToolResult>),
    /// The upstream asks the client something first.
    Asks(Running, Box<Question>),
    /// The task ended without a result (it panicked).
    Lost,
}

impl Running {
    /// Runs `call` (its questions coming through `questions`) in a task of its own.
    pub(super) fn spawn(
        questions: mpsc::Receiver<Question>,
        call: impl Future<Output = ToolResult> + Send + 'static,
    ) -> Self {
        let (sender, outcome) = oneshot::channel();
        let task = tokio::spawn(async move {
            let _ = sender.send(call.await);
        });
        Self { questions, outcome, task: task.abort_handle() }
    }

    /// Waits for the call's result or its upstream's next question.
    pub(super) async fn next(mut self) -> Next {
        tokio::select! {
            // A question first: while the upstream waits for an answer the call cannot end.
            biased;
            Some(question) = self.questions.recv() => Next::Asks(self, Box::new(question)),
            outcome = &mut self.outcome => match outcome {
                Ok(result) => Next::Done(Box::new(result)),
                Err(_) => Next::Lost,
            },
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A call waiting for its client's answer.
pub(super) struct Held {
    /// The call.
    pub(super) running: Running,
    /// The question it waits on.
    pub(super) question: Question,
    /// The question as the client is asked it.
    pub(super) asked: InputRequired,
    /// Until when the call may wait for the answer (its limit, from its start).
    pub(super) deadline: Instant,
}

impl Held {
    /// The client's answer in `response` goes to the upstream; the call runs on.
    pub(super) fn answer(self, response: &Value) -> Running {
        let read = |e: serde_json::Error| {
            ErrorData::invalid_params(format!("the client's answer could not be read: {e}"), None)
        };
        let answer = match &self.question.request {
            ServerRequest::ElicitRequest(_) => {
                serde_json::from_value::<ElicitResult>(response.clone())
                    .map(ClientResult::ElicitResult)
                    .map_err(read)
            }
            #[allow(
                deprecated,
                reason = "rmcp marks sampling deprecated (SEP-2577), but the revisions an upstream speaks still have it"
            )]
            ServerRequest::CreateMessageRequest(_) => {
                serde_json::from_value::<CreateMessageResult>(response.clone())
                    .map(|result| ClientResult::CreateMessageResult(Box::new(result)))
                    .map_err(read)
            }
            // Only elicitation and sampling are relayed (`connect::Handler`).
            _ => Err(ErrorData::internal_error("the gateway relays no such request", None)),
        };
        // The upstream may have given up meanwhile; the call's outcome says so.
        let _ = self.question.answer.send(answer);
        self.running
    }
}

/// The question `request` as input the client is asked for, or why it cannot be.
pub(super) fn asked(request: &ServerRequest) -> Result<InputRequired, String> {
    let value = serde_json::to_value(request).map_err(|e| e.to_string())?;
    let request = InputRequest::from_value(&value)?;
    Ok(InputRequired::new().request(KEY, request))
}

/// The client's answer to the question of a parked call, from its retry.
pub(super) fn response(round: &toolwire_core::input::InputRound) -> Option<&Value> {
    round.response(KEY)
}

/// The token of the parked call a retry's `state` names.
pub(super) fn token(state: Option<&Value>) -> Option<&str> {
    state?.get("parked")?.as_str()
}

/// The calls of one upstream waiting for their clients' answers, by token.
#[derive(Default)]
pub(super) struct Parked {
    calls: Mutex<HashMap<String, Call>>,
}

/// One parked call, bound to its caller and tool.
struct Call {
    principal: String,
    tool: String,
    deadline: Instant,
    held: Held,
}

/// Why a call could not be parked.
#[derive(Debug, thiserror::Error)]
#[error("no random token: {0}")]
pub(super) struct ParkError(getrandom::Error);

impl Parked {
    /// Parks `held` for `principal` and `tool` until its deadline, and says the result asking
    /// its question, whose state names it; calls past their deadline are dropped meanwhile
    /// (which stops them).
    pub(super) fn park(
        &self,
        principal: &str,
        tool: &str,
        held: Held,
    ) -> Result<ToolResult, ParkError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(ParkError)?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let asks = held.asked.clone().state(json!({ "parked": token }));
        let (principal, tool) = (principal.to_owned(), tool.to_owned());
        let call = Call { principal, tool, deadline: held.deadline, held };
        let now = Instant::now();
        let mut calls = self.lock();
        calls.retain(|_, call| call.deadline > now);
        calls.insert(token, call);
        Ok(ToolResult::input_required(asks))
    }

    /// Takes back the call parked under `token`, if it is `principal`'s call of `tool` and not
    /// past its deadline; any other is `None` (another caller's token reveals nothing).
    pub(super) fn take(&self, token: &str, principal: &str, tool: &str) -> Option<Held> {
        let mut calls = self.lock();
        let call = calls.get(token)?;
        if call.deadline <= Instant::now() {
            calls.remove(token);
            return None;
        }
        if call.principal != principal || call.tool != tool {
            return None;
        }
        calls.remove(token).map(|call| call.held)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Call>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn elicitation() -> ServerRequest {
        let request = json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
        serde_json::from_value(request).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A call that never ends, held on an elicitation until `deadline`, and the receiver of its
    /// answer.
    fn held(deadline: Instant) -> (Held, oneshot::Receiver<Result<ClientResult, ErrorData>>) {
        let (_, questions) = questions();
        let running = Running::spawn(questions, std::future::pending());
        let (answer, answered) = oneshot::channel();
        let request = elicitation();
        let asked = asked(&request).unwrap_or_else(|e| panic!("{e}"));
        (Held { running, question: Question { request, answer }, asked, deadline }, answered)
    }

    /// Parks a call and says its token.
    fn park(
        parked: &Parked,
        deadline: Instant,
    ) -> (String, oneshot::Receiver<Result<ClientResult, ErrorData>>) {
        let (held, answered) = held(deadline);
        let asks = parked.park("ada", "shop_buy", held).unwrap_or_else(|e| panic!("{e}"));
        let state = asks.input_required_requests().and_then(|input| input.state.clone());
        let token = token(state.as_ref()).unwrap_or_else(|| panic!("{state:?}")).to_owned();
        (token, answered)
    }

    #[tokio::test]
    async fn a_parked_call_is_its_caller_s_and_its_tool_s_until_its_deadline() {
        let parked = Parked::default();
        let (token, _) = park(&parked, Instant::now() + Duration::from_secs(60));
        assert_eq!(token.len(), 32);
        assert!(parked.take(&token, "bob", "shop_buy").is_none(), "another caller");
        assert!(parked.take(&token, "ada", "shop_sell").is_none(), "another tool");
        assert!(parked.take("0000", "ada", "shop_buy").is_none(), "another token");
        let held = parked.take(&token, "ada", "shop_buy");
        assert!(held.is_some(), "its caller");
        assert!(parked.take(&token, "ada", "shop_buy").is_none(), "taken once");
    }

    #[tokio::test]
    async fn a_call_past_its_deadline_is_dropped_and_stopped() {
        let parked = Parked::default();
        let (token, answered) = park(&parked, Instant::now());
        assert!(parked.take(&token, "ada", "shop_buy").is_none());
        // Dropped: its question goes unanswered, which the upstream hears as an error.
        assert!(answered.await.is_err());
        assert!(parked.lock().is_empty());
    }

    #[tokio::test]
    async fn the_answer_goes_to_the_upstream_as_the_result_it_asked_for() {
        let (held, answered) = held(Instant::now());
        assert_eq!(
            Value::Object(held.asked.requests_value()),
            json!({"upstream": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}})
        );
        let _running = held.answer(&json!({"action": "accept", "content": {"name": "Ada"}}));
        let answer = answered.await.unwrap_or_else(|e| panic!("{e}"));
        let Ok(ClientResult::ElicitResult(result)) = answer else { panic!("{answer:?}") };
        assert_eq!(
            serde_json::to_value(result).unwrap_or_else(|e| panic!("{e}")),
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
    }
}
