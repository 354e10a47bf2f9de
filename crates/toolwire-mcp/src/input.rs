//! Input required in the adapter (DESIGN §10): what the gateway does when a tool answers
//! [`ToolResult::input_required`].
//!
//! - **2026-07-28**: the result goes back as an `InputRequiredResult` whose `requestState` is
//!   sealed ([`StateSealer`]) to the tool, the caller and the arguments; the retry's
//!   `requestState` is opened (a refused one is JSON-RPC `-32602`) and, with `inputResponses`,
//!   handed to the tool as its [`InputRound`]. Answers the tool did not ask for are handed over
//!   too and ignored by it; a missing answer makes the tool ask again.
//! - **Handshake revisions**: each request is sent to the client over the connection
//!   (`elicitation/create`, `sampling/createMessage`, `roots/list`), the answers gathered and
//!   the tool called again, at most [`MAX_ROUNDS`] times.
//! - A request the revision lacks (elicitation before 2025-06-18) or whose capability the client
//!   did not declare is never sent: the result becomes the failure `input_required`, so a client
//!   that cannot answer gets an answer, never a hang.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, InputRequests, ServerRequest};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::{Map, Value};
use toolwire_core::input::{Capability, InputRequest, InputRequired, InputRound};
use toolwire_core::revision::McpCaps;
use toolwire_core::{McpRevision, ToolResult};
use toolwire_store::{Binding, DEFAULT_STATE_TTL, StateSealer};

use crate::registry::{CallContext, Principal, RegisteredTool};
use crate::server::McpServer;

/// The input-required side of one `tools/call`: what the client can be asked, the round its
/// retry carries (2026-07-28) and the sealer of the next `requestState`.
pub(crate) struct Rounds<'a> {
    asks: Asks,
    round: InputRound,
    /// 2026-07-28 only, where the result itself goes back (below, requests go over the
    /// connection): what seals and opens its `requestState`.
    sealing: Option<Sealing<'a>>,
}

/// The sealer of a 2026-07-28 call's `requestState` and the call the state is bound to,
/// borrowed from the call.
struct Sealing<'a> {
    sealer: StateSealer,
    binding: Binding<'a>,
}

impl<'a> Rounds<'a> {
    /// Reads what the client declared and, on 2026-07-28, opens the retry's `requestState`
    /// (refused with `-32602` when it does not open for this call).
    pub(crate) fn open(
        server: &McpServer,
        ctx: &RequestContext<RoleServer>,
        request: &'a CallToolRequestParams,
        revision: McpRevision,
        principal: &'a Principal,
        arguments: &'a Value,
    ) -> Result<Self, ErrorData> {
        let asks = declared_by(ctx).within(revision_asks(revision));
        let mut rounds = Self { asks, round: InputRound::default(), sealing: None };
        if McpCaps::of(revision).input_required_result {
            let keys = server.gateway().config().stored.signer().keys().clone();
            let binding = Binding { tool: &request.name, principal: principal.name(), arguments };
            let sealing = Sealing { sealer: StateSealer::new(keys), binding };
            rounds.round = round_of(
                &sealing.sealer,
                request.input_responses.as_ref(),
                request.request_state.as_deref(),
                sealing.binding,
                unix_now(),
            )?;
            rounds.sealing = Some(sealing);
        }
        Ok(rounds)
    }

    /// What the client can be asked.
    pub(crate) fn asks(&self) -> Asks {
        self.asks
    }

    /// The answers and state of this call's round.
    pub(crate) fn round(&self) -> InputRound {
        self.round.clone()
    }

    /// Runs the tool; on a handshake revision, asks the client over the connection and runs
    /// it again until it stops asking (at most [`MAX_ROUNDS`] rounds). A request the client
    /// cannot be asked leaves the result asking, which renders as the failure `input_required`.
    pub(crate) async fn run(
        &self,
        server: &McpServer,
        tool: &RegisteredTool,
        arguments: &Value,
        context: CallContext,
    ) -> Result<ToolResult, ErrorData> {
        // Only a client that declared something to be asked can get a second round; for any
        // other the context goes to the tool without being copied.
        let peer = context.request().map(|request| request.peer.clone());
        let places = context.places().clone();
        let (false, Some(peer), false) = (self.sealing.is_some(), peer, self.asks.is_empty())
        else {
            let result = server.run_tool(tool, arguments, context).await?;
            return Ok(checked(result, self.asks));
        };
        let mut result = server.run_tool(tool, arguments, context.clone()).await?;
        for _ in 0..MAX_ROUNDS {
            let Some(input) = result.input_required_requests() else {
                return Ok(result);
            };
            if !askable(input, self.asks) {
                return Ok(result);
            }
            // Nobody waits on a person with a place among the large calls.
            places.give_back();
            // Boxed: asking is rare, and would make every call's future the size of its own.
            let responses = match Box::pin(ask_on_connection(&peer, input)).await {
                Ok(responses) => responses,
                Err(why) => {
                    let name = &tool.spec.name;
                    tracing::warn!(tool = %name, reason = %why, "the client did not answer");
                    return Ok(result);
                }
            };
            let round = InputRound::new(responses, input.state.clone());
            result = server.run_tool(tool, arguments, context.clone().with_input(round)).await?;
        }
        Ok(result)
    }

    /// On 2026-07-28, the sealed `requestState` of a result that asks for input.
    pub(crate) fn seal(&self, result: &ToolResult) -> Result<Option<String>, ErrorData> {
        match (&self.sealing, result.input_required_requests()) {
            (Some(sealing), Some(input)) => {
                let expires = unix_now() + DEFAULT_STATE_TTL;
                seal(&sealing.sealer, input, sealing.binding, expires).map(Some)
            }
            _ => Ok(None),
        }
    }
}

fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The most rounds a handshake-revision call asks the client before it gives up with the
/// failure `input_required` (rmcp's client uses the same bound).
pub const MAX_ROUNDS: usize = 10;

/// How long one request on the connection may wait for the client (a person may be filling a
/// form).
const ASK_TIMEOUT: Duration = Duration::from_secs(600);

/// What a server may ask on `revision` at all.
pub(crate) fn revision_asks(revision: McpRevision) -> Asks {
    let asks = Asks::of([Capability::Sampling, Capability::Roots]);
    if McpCaps::of(revision).elicitation {
        asks.with(Capability::ElicitationForm).with(Capability::ElicitationUrl)
    } else {
        asks
    }
}

/// A set of the [`Capability`]s a client can be asked: a call builds and reads it several times,
/// so it is a few bits rather than a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Asks(u8);

impl Asks {
    /// The set of `capabilities`.
    pub(crate) fn of(capabilities: impl IntoIterator<Item = Capability>) -> Self {
        capabilities.into_iter().fold(Self::default(), Self::with)
    }

    /// This set and `capability`.
    pub(crate) fn with(self, capability: Capability) -> Self {
        Self(self.0 | Self::bit(capability))
    }

    /// What this set and `other` have in common.
    pub(crate) fn within(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    /// Whether `capability` is in the set.
    pub(crate) fn contains(self, capability: Capability) -> bool {
        self.0 & Self::bit(capability) != 0
    }

    /// Whether the set is empty.
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    fn bit(capability: Capability) -> u8 {
        match capability {
            Capability::ElicitationForm => 1,
            Capability::ElicitationUrl => 2,
            Capability::Sampling => 4,
            Capability::Roots => 8,
            // A capability this build does not know is never asked.
            _ => 0,
        }
    }
}

/// What the client of `ctx` declared it can be asked, read as rmcp's `client_capabilities()`
/// reads it (the request's `_meta` first, then the handshake, which only an `initialize` sets)
/// without copying the handshake's capabilities.
pub(crate) fn declared_by(ctx: &RequestContext<RoleServer>) -> Asks {
    if let Some(capabilities) = ctx.meta.client_capabilities() {
        return declared(Some(&capabilities));
    }
    let handshake = ctx.peer.peer_info();
    declared(handshake.as_ref().map(|info| &info.capabilities))
}

/// What a client declared it can be asked. An empty `elicitation: {}` means form mode.
pub(crate) fn declared(capabilities: Option<&ClientCapabilities>) -> Asks {
    let Some(capabilities) = capabilities else {
        return Asks::default();
    };
    let mut asks = Asks::default();
    if let Some(elicitation) = &capabilities.elicitation {
        if elicitation.form.is_some() || elicitation.url.is_none() {
            asks = asks.with(Capability::ElicitationForm);
        }
        if elicitation.url.is_some() {
            asks = asks.with(Capability::ElicitationUrl);
        }
    }
    if capabilities.sampling.is_some() {
        asks = asks.with(Capability::Sampling);
    }
    if capabilities.roots.is_some() {
        asks = asks.with(Capability::Roots);
    }
    asks
}

/// True when every request of `input` needs only capabilities in `asks`.
pub(crate) fn askable(input: &InputRequired, asks: Asks) -> bool {
    input.requests.iter().all(|(_, request)| asks.contains(request.capability()))
}

/// The round a 2026-07-28 retry carries: its `inputResponses` and the state its `requestState`
/// seals. A state that does not open for this call is refused with `-32602`.
pub(crate) fn round_of(
    sealer: &StateSealer,
    responses: Option<&std::collections::BTreeMap<String, Value>>,
    request_state: Option<&str>,
    binding: Binding<'_>,
    now: i64,
) -> Result<InputRound, ErrorData> {
    let state = match request_state {
        None => None,
        Some(sealed) => match sealer.open(sealed, binding, now) {
            Ok(Value::Null) => None,
            Ok(state) => Some(state),
            Err(refused) => {
                tracing::info!(tool = %binding.tool, %refused, "refused a requestState");
                return Err(ErrorData::invalid_params(
                    format!("{refused}; call the tool again without requestState"),
                    None,
                ));
            }
        },
    };
    let responses: Map<String, Value> =
        responses.into_iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect();
    Ok(InputRound::new(responses, state))
}

/// The sealed `requestState` of an input-required result for the next round.
pub(crate) fn seal(
    sealer: &StateSealer,
    input: &InputRequired,
    binding: Binding<'_>,
    expires: i64,
) -> Result<String, ErrorData> {
    sealer.seal(binding, input.state.as_ref().unwrap_or(&Value::Null), expires).map_err(|e| {
        tracing::error!(tool = %binding.tool, error = %e, "could not seal a requestState");
        ErrorData::internal_error(
            format!("tool {} failed with an internal error", binding.tool),
            None,
        )
    })
}

/// The requests of `input` as rmcp's `inputRequests` of an `InputRequiredResult`, each built
/// as rmcp's typed request (the same conversion as [`ask_on_connection`]).
pub(crate) fn rmcp_requests(input: &InputRequired) -> Result<InputRequests, String> {
    use rmcp::model::InputRequest as Typed;
    input
        .requests
        .iter()
        .map(|(key, request)| {
            let typed = match typed_request(request)? {
                ServerRequest::CreateMessageRequest(r) => Typed::CreateMessage(r),
                ServerRequest::ElicitRequest(r) => Typed::Elicitation(r),
                ServerRequest::ListRootsRequest(r) => Typed::ListRoots(r),
                _ => return Err(format!("{}: not an input request", request.method())),
            };
            Ok((key.clone(), typed))
        })
        .collect()
}

/// One request of a tool as rmcp's typed request. Only what the tool wrote as JSON (a form's
/// requested schema, the sampling parameters) is read into rmcp's types; the rest is built.
#[expect(
    deprecated,
    reason = "rmcp marks sampling and roots deprecated (SEP-2577), but every revision toolwire serves still has them"
)]
fn typed_request(request: &InputRequest) -> Result<ServerRequest, String> {
    use rmcp::model::{
        CreateMessageRequest, CreateMessageRequestParams, ElicitRequest, ElicitRequestParams,
        ElicitationSchema, ListRootsRequest,
    };
    let method = request.method();
    let tool_json = |what: &str, e: serde_json::Error| format!("{method}: {what}: {e}");
    Ok(match request {
        InputRequest::ElicitForm { message, requested_schema } => {
            let requested_schema: ElicitationSchema =
                serde_json::from_value(Value::Object(requested_schema.clone()))
                    .map_err(|e| tool_json("requestedSchema", e))?;
            ServerRequest::ElicitRequest(ElicitRequest::new(
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: message.clone(),
                    requested_schema,
                },
            ))
        }
        InputRequest::ElicitUrl { message, url } => ServerRequest::ElicitRequest(
            ElicitRequest::new(ElicitRequestParams::UrlElicitationParams {
                meta: None,
                message: message.clone(),
                url: url.clone(),
                elicitation_id: String::new(),
            }),
        ),
        InputRequest::Sample(params) => {
            let params: CreateMessageRequestParams =
                serde_json::from_value(Value::Object(params.clone()))
                    .map_err(|e| tool_json("params", e))?;
            ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params))
        }
        InputRequest::ListRoots => ServerRequest::ListRootsRequest(ListRootsRequest {
            method: Default::default(),
            extensions: Default::default(),
        }),
        _ => return Err(format!("{method}: a request toolwire-mcp cannot send")),
    })
}

/// Sends every request of `input` to the client over the connection and gathers the answers by
/// key; the first request the client refuses or does not answer in time ends the round.
pub(crate) async fn ask_on_connection(
    peer: &Peer<RoleServer>,
    input: &InputRequired,
) -> Result<Map<String, Value>, String> {
    let mut responses = Map::new();
    for (key, request) in &input.requests {
        let request = typed_request(request)?;
        let answer = tokio::time::timeout(ASK_TIMEOUT, peer.send_request(request))
            .await
            .map_err(|_| format!("the client did not answer within {} s", ASK_TIMEOUT.as_secs()))?
            .map_err(|e| e.to_string())?;
        let answer = serde_json::to_value(answer).map_err(|e| e.to_string())?;
        responses.insert(key.clone(), answer);
    }
    Ok(responses)
}

/// The result itself, or the failure `input_required` when it asks for something the client
/// cannot be asked.
pub(crate) fn checked(result: ToolResult, asks: Asks) -> ToolResult {
    match result.input_required_requests() {
        Some(input) if !askable(input, asks) => result.down_levelled().into_owned(),
        _ => result,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwire_core::input::{InputRequest, confirm_request};

    use super::*;

    #[test]
    fn elicitation_is_asked_only_where_the_revision_has_it() {
        assert!(!revision_asks(McpRevision::V2025_03_26).contains(Capability::ElicitationForm));
        assert!(revision_asks(McpRevision::V2025_06_18).contains(Capability::ElicitationForm));
        assert!(revision_asks(McpRevision::V2025_06_18).contains(Capability::ElicitationUrl));
        assert!(revision_asks(McpRevision::V2024_11_05).contains(Capability::Sampling));
        assert!(revision_asks(McpRevision::V2024_11_05).contains(Capability::Roots));
        assert!(!revision_asks(McpRevision::V2024_11_05).contains(Capability::ElicitationUrl));
    }

    #[test]
    fn declared_capabilities_are_read_as_the_spec_says() {
        let parse = |value: Value| serde_json::from_value::<ClientCapabilities>(value).ok();
        let form = parse(json!({"elicitation": {}}));
        assert_eq!(declared(form.as_ref()), Asks::of([Capability::ElicitationForm]));
        let url = parse(json!({"elicitation": {"url": {}}, "sampling": {}}));
        let both = Asks::of([Capability::ElicitationUrl, Capability::Sampling]);
        assert_eq!(declared(url.as_ref()), both);
        assert!(!both.contains(Capability::ElicitationForm) && !both.contains(Capability::Roots));
        let roots = parse(json!({"roots": {}}));
        assert_eq!(declared(roots.as_ref()), Asks::of([Capability::Roots]));
        assert!(declared(None).is_empty());
        // Kept to a revision without elicitation, only sampling is left.
        assert_eq!(
            both.within(revision_asks(McpRevision::V2025_03_26)),
            Asks::of([Capability::Sampling])
        );
    }

    #[test]
    fn tampered_expired_and_cross_tool_states_are_refused_with_32602() {
        let keys = toolwire_store::SigningKey::new("k1", vec![3u8; 32])
            .and_then(|key| toolwire_store::KeySet::new(vec![key]));
        let Ok(keys) = keys else { panic!("{keys:?}") };
        let sealer = StateSealer::new(keys);
        let args = json!({"id": 1});
        let binding = |tool| Binding { tool, principal: "p", arguments: &args };
        let input = InputRequired::new().state(json!({"step": 1}));
        let Ok(sealed) = seal(&sealer, &input, binding("t"), 100) else { panic!() };
        let open = |state: &str, tool, now| {
            round_of(&sealer, None, Some(state), binding(tool), now).map_err(|e| e.to_string())
        };
        assert_eq!(
            open(&sealed, "t", 99).map(|round| round.state().cloned()),
            Ok(Some(json!({"step": 1})))
        );
        for (state, tool, now, why) in [
            (format!("{sealed}A"), "t", 99, "requestState"),
            (sealed.clone(), "t", 100, "requestState has expired"),
            (sealed.clone(), "u", 99, "requestState was made for another tool"),
        ] {
            let refused = open(&state, tool, now);
            let Err(message) = refused else { panic!("{state} opened for {tool}") };
            assert!(message.contains("-32602") && message.contains(why), "{message}");
        }
    }

    #[test]
    fn a_request_the_client_cannot_answer_becomes_the_failure() {
        let input = InputRequired::new()
            .request("ok", confirm_request("Sure?"))
            .request("llm", InputRequest::sample_text("Hi", 10));
        let result =
            checked(ToolResult::input_required(input.clone()), Asks::of([Capability::Sampling]));
        assert_eq!(result.error().map(|e| e.code.as_str()), Some("input_required"));
        let asks = Asks::of([Capability::Sampling, Capability::ElicitationForm]);
        assert!(checked(ToolResult::input_required(input), asks).is_input_required());
    }
}
