//! Long-running tools as tasks (DESIGN §17): which calls become tasks, a task's state in the
//! result store, running it to its end, and `tasks/get`, `tasks/update` and `tasks/cancel`.
//!
//! - **Which calls**: a tool declares [`TaskSupport`]. On a revision with the tasks extension
//!   (2026-07-28, negotiated per request) a call of an `optional` or `required` tool from a
//!   client that declared the extension becomes a task; a `required` tool called without it is
//!   `-32021` with the capability it needs. What the tool answers before it first waits is
//!   answered in the request: a tool that asks for input at once gets its answers before any
//!   task exists (SEP-2663: input before creation is resolved synchronously).
//! - **State**: one record of the result store under a random id (the `taskId`), bound to the
//!   principal that created it and living for the task's TTL, replaced as the task moves on.
//!   Any node sharing the store answers for it; another principal's, a forged and an expired
//!   id are alike "unknown". The task is created durably before `CreateTaskResult` goes out.
//! - **The result** is kept in its versioned form and rendered when it is fetched, for the
//!   fetching request's revision and host, through the same render (and offload) as any call.
//! - **Running**: the node that created the task (or the one that took the last answer of
//!   `tasks/update`) runs the tool in the background. Every [`CHECK_EVERY`] it writes the
//!   tool's status message and reads the record back: a task cancelled on another node, or
//!   gone, stops its work there (the tool's future is dropped); a task past its TTL stops too.
//!   Cancelled on this node, the work stops at once.

mod experimental;
mod stored;

pub use experimental::{ExperimentalAnswer, ExperimentalRequest, is_experimental_task_request};

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CancelTaskParams, ClientCapabilities, CreateTaskResult, DetailedTask, GetTaskParams,
    GetTaskResult, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use tokio::sync::watch;
use toolwire_core::revision::{McpCaps, Tasks};
use toolwire_core::{McpRevision, Query, Timestamp, ToolResult};
use toolwire_store::RecordId;

use self::stored::{Loaded, StoredTask};
use crate::catalog::Entry;
use crate::observe::{TaskEvent, TaskRecord};
use crate::registry::{CallContext, Principal, RegisteredTool};
use crate::server::{McpServer, principal_of, revision_of};

/// Whether a tool's calls may, must or must not become tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Every call is answered in its request (the default).
    #[default]
    Forbidden,
    /// A call becomes a task when the client can hold one, else it is answered in its request.
    Optional,
    /// Every call is a task; a client that cannot hold one is refused.
    Required,
}

impl TaskSupport {
    /// The name as configuration and `execution.taskSupport` write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }

    /// The support named `name` (`forbidden`, `optional`, `required`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "forbidden" => Some(Self::Forbidden),
            "optional" => Some(Self::Optional),
            "required" => Some(Self::Required),
            _ => None,
        }
    }
}

/// How long tasks are kept and how often clients are asked to poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskSettings {
    /// How long a task is kept from its creation when the client asks for no TTL.
    pub ttl: Duration,
    /// The longest TTL a client may ask for.
    pub max_ttl: Duration,
    /// The poll interval suggested to clients.
    pub poll_interval: Duration,
}

impl Default for TaskSettings {
    /// One hour, at most a day, polled every half second.
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            max_ttl: Duration::from_secs(86_400),
            poll_interval: Duration::from_millis(500),
        }
    }
}

impl TaskSettings {
    /// The TTL of a task whose client asked for `requested` (none on 2026-07-28, where the
    /// server decides): the default, never above the maximum.
    pub fn ttl_for(&self, requested: Option<Duration>) -> Duration {
        requested.unwrap_or(self.ttl).min(self.max_ttl)
    }
}

/// How often a running task writes its status message and looks for a cancellation made on
/// another node.
pub const CHECK_EVERY: Duration = Duration::from_millis(500);

/// The longest wait between two attempts to store how a task ended while the store is down.
const STORE_RETRY_MAX: Duration = Duration::from_secs(5);

/// The tasks this node is running, by id, with their principal: cancelling one here stops its
/// work at once.
#[derive(Debug, Default)]
pub(crate) struct Running(Mutex<HashMap<RecordId, (tokio::task::AbortHandle, Principal)>>);

impl Running {
    /// Runs `work` as task `id`'s background run. The map is held while it is spawned, so
    /// that a run ending at once cannot leave before it is entered.
    fn spawn(
        &self,
        id: RecordId,
        principal: Principal,
        work: impl Future<Output = ()> + Send + 'static,
    ) {
        let mut running = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let handle = tokio::spawn(work);
        running.insert(id, (handle.abort_handle(), principal));
    }

    fn remove(&self, id: RecordId) -> Option<tokio::task::AbortHandle> {
        let mut running = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        running.remove(&id).map(|(handle, _)| handle)
    }

    /// Every run, taken out of the map.
    fn take_all(&self) -> Vec<(RecordId, tokio::task::AbortHandle, Principal)> {
        let mut running = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        running.drain().map(|(id, (handle, principal))| (id, handle, principal)).collect()
    }

    /// How many tasks this node is running.
    pub(crate) fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

/// Whether this call of `support` is run as a task on `revision` for the client of `ctx`:
/// `-32021` for a tool that requires a task called by a client that did not declare the
/// extension (2026-07-28), `-32601` for one called without `params.task` (2025-11-25).
pub(crate) fn as_task(
    support: TaskSupport,
    revision: McpRevision,
    ctx: &RequestContext<RoleServer>,
) -> Result<bool, ErrorData> {
    match McpCaps::of(revision).tasks {
        _ if support == TaskSupport::Forbidden => return Ok(false),
        Tasks::Extension => {}
        // 2025-11-25: a task is asked for with `params.task`, which the front end reads
        // (`experimental`); a call without it of a tool that needs one is refused.
        Tasks::Experimental if support == TaskSupport::Required => {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "this tool runs only as a task: call it with params.task",
                None,
            ));
        }
        _ => return Ok(false),
    }
    let declared = ctx.meta.client_capabilities().is_some_and(|caps| caps.supports_tasks());
    match (support, declared) {
        (_, true) => Ok(true),
        (TaskSupport::Required, false) => Err(missing_extension()),
        _ => Ok(false),
    }
}

/// `-32021` naming the tasks extension as the capability the call needs.
fn missing_extension() -> ErrorData {
    ErrorData::missing_required_client_capability(
        ClientCapabilities::builder().enable_tasks().build(),
    )
}

/// What a call that may become a task came to.
pub(crate) enum Started {
    /// The task, created and stored.
    Created(Box<CreateTaskResult>),
    /// Answered in the request: the tool asked for input before it first waited, or answered
    /// within its task grace.
    Answered(Box<ToolResult>),
}

/// Why a task's background run stopped.
enum End {
    /// The tool answered (or failed).
    Ran(Box<Result<ToolResult, ErrorData>>),
    /// The task's TTL ran out first.
    Expired,
    /// The task was cancelled on another node, or is gone.
    Stopped,
}

/// A tool's run, owned so that it can move into the background.
type Run = Pin<Box<dyn Future<Output = Result<ToolResult, ErrorData>> + Send>>;

/// The same "unknown task" for a missing, expired, forged and another principal's id.
/// Why an update of a task was not written: the task is gone, or another request changed it
/// first (it ended, or another update came in): the client reads it again.
fn changed(task_id: &str) -> ErrorData {
    let shown: String = task_id.chars().take(64).collect();
    ErrorData::invalid_params(
        format!(
            "Task {} changed while this update was applied; read it with tasks/get and send the update again if it still asks",
            shown.escape_debug()
        ),
        None,
    )
}

fn unknown(task_id: &str) -> ErrorData {
    let shown: String = task_id.chars().take(64).collect();
    ErrorData::invalid_params(format!("Unknown task: {}", shown.escape_debug()), None)
}

fn now() -> Timestamp {
    Timestamp::with_fraction_digits(chrono::Utc::now(), 3)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The JSON-RPC error of a task request the store failed (`what` did not happen): a quota
/// refusal says so; an outage says to retry, with `data: {"retryable": true}` as a stored
/// result's read does.
fn store_failure(what: &str, error: toolwire_store::StoreError) -> ErrorData {
    tracing::error!(%error, "{what}");
    if error.kind() == "unavailable" {
        let message =
            format!("The result store is temporarily unavailable, so {what}; retry later");
        return ErrorData::internal_error(message, Some(serde_json::json!({"retryable": true})));
    }
    ErrorData::internal_error(format!("{what}: {error}"), None)
}

impl McpServer {
    /// Runs a call of `tool` that may become a task: answered in the request when the tool has
    /// a task grace and answers within it without saying first that it works on in the
    /// background; else created and stored (already finished when the tool answered before it
    /// first waited), the rest run in the background.
    pub(crate) async fn start_task(
        &self,
        tool: Arc<RegisteredTool>,
        arguments: Value,
        context: CallContext,
    ) -> Result<Started, ErrorData> {
        let principal = context.principal.clone();
        let (status, mut heard) = watch::channel(None);
        let mut run = self.run(Arc::clone(&tool), arguments.clone(), context.with_status(status));
        let grace =
            tool.spec.task_grace.filter(|_| tool.spec.task_support == TaskSupport::Optional);
        let answered = match grace {
            None => match futures::poll!(run.as_mut()) {
                Poll::Ready(outcome) => Some(outcome),
                Poll::Pending => None,
            },
            Some(grace) => tokio::select! {
                biased;
                outcome = run.as_mut() => Some(outcome),
                _ = heard.changed() => None,
                () = tokio::time::sleep(grace) => None,
            },
        };
        let finished = match answered {
            Some(Ok(result)) if result.is_input_required() || grace.is_some() => {
                return Ok(Started::Answered(Box::new(result)));
            }
            Some(Err(error)) if grace.is_some() => return Err(error),
            other => other,
        };
        let (id, task) =
            self.create(&tool, arguments, principal, None, finished, run, heard).await?;
        Ok(Started::Created(Box::new(CreateTaskResult::new(task.wire(id)))))
    }

    /// Stores a new task of `tool` (its client asked for `ttl`, if any): already ended with
    /// `finished` when its run answered before it first waited, else working, its `run` driven
    /// in the background. Stored before anything is answered: the task is durable once created.
    #[allow(clippy::too_many_arguments)]
    async fn create(
        &self,
        tool: &RegisteredTool,
        arguments: Value,
        principal: Principal,
        ttl: Option<Duration>,
        finished: Option<Result<ToolResult, ErrorData>>,
        run: Run,
        heard: watch::Receiver<Option<String>>,
    ) -> Result<(RecordId, StoredTask), ErrorData> {
        let settings = &self.gateway.config.tasks;
        let ttl = settings.ttl_for(ttl);
        let created = now();
        let expires = Timestamp::with_fraction_digits(
            created.datetime() + chrono::Duration::milliseconds(millis(ttl) as i64),
            3,
        );
        let name = tool.spec.name.clone();
        let mut task = StoredTask::working(
            &name,
            arguments,
            &created,
            millis(ttl),
            millis(settings.poll_interval),
        );
        if let Some(outcome) = &finished {
            task = task.finished(outcome.as_ref(), &created);
        }
        let record = task.record(principal.name(), created, expires);
        let store = self.gateway.config.stored.store();
        // A running task's record, small, is what its first write replaces.
        let read = finished.is_none().then(|| record.clone());
        let id = store
            .put(record)
            .await
            .map_err(|e| store_failure("the task could not be created", e))?;
        if let Some(read) = read {
            let loaded = Loaded { id, task: task.clone(), created, expires, read };
            self.drive(loaded, principal, run, heard);
        }
        self.observe_task(&name, TaskEvent::Created);
        if finished.is_some() {
            self.observe_task(&name, TaskEvent::Finished(task.status));
        }
        Ok((id, task))
    }

    /// The run of `tool` with `arguments`, owned.
    fn run(&self, tool: Arc<RegisteredTool>, arguments: Value, context: CallContext) -> Run {
        let server = self.clone();
        Box::pin(async move { server.run_tool(&tool, &arguments, context).await })
    }

    /// Runs the rest of a task in the background until it ends, is cancelled, goes or expires.
    fn drive(
        &self,
        loaded: Loaded,
        principal: Principal,
        mut run: Run,
        mut heard: watch::Receiver<Option<String>>,
    ) {
        let server = self.clone();
        let id = loaded.id;
        let tool = loaded.task.tool.clone();
        let left = (loaded.expires.datetime() - chrono::Utc::now()).to_std().unwrap_or_default();
        let deadline = tokio::time::Instant::now() + left;
        self.gateway.running.spawn(id, principal.clone(), async move {
            let expiry = tokio::time::sleep_until(deadline);
            tokio::pin!(expiry);
            let mut checks = tokio::time::interval(CHECK_EVERY);
            checks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            checks.tick().await;
            let mut message: Option<String> = None;
            let end = loop {
                tokio::select! {
                    outcome = &mut run => break End::Ran(Box::new(outcome)),
                    _ = &mut expiry => break End::Expired,
                    _ = checks.tick() => {
                        let said = heard.borrow_and_update().clone();
                        let news = (said != message).then(|| said.clone()).flatten();
                        message = said;
                        if !server.still_running(id, &principal, news).await {
                            break End::Stopped;
                        }
                    }
                }
            };
            // Out of the running ones first, so that the observer counts it gone.
            server.gateway.running.remove(id);
            match end {
                End::Ran(outcome) => server.finish(id, &principal, *outcome, deadline).await,
                End::Expired => server.observe_task(&tool, TaskEvent::Expired),
                End::Stopped => {}
            }
        });
    }

    /// Whether task `id` should go on: it is still in the store and not cancelled. Writes the
    /// tool's new status message, if any.
    async fn still_running(
        &self,
        id: RecordId,
        principal: &Principal,
        news: Option<String>,
    ) -> bool {
        let loaded = match self.load_id(id, principal).await {
            Ok(Some(loaded)) => loaded,
            // Gone: expired or deleted.
            Ok(None) => return false,
            Err(error) => {
                // The next check tries again; the work goes on meanwhile.
                tracing::warn!(%error, task = %id, "could not read a running task");
                return true;
            }
        };
        if loaded.task.status.is_terminal() {
            return false;
        }
        if let Some(message) = news {
            let mut task = loaded.task.clone();
            task.status_message = Some(message);
            task.last_updated_at = now().to_string();
            let record = task.record(principal.name(), loaded.created, loaded.expires);
            // Not written when the task changed meanwhile (a cancel): the next check reads it.
            let store = self.gateway.config.stored.store();
            if let Err(error) = store.replace(id, &loaded.read, record).await {
                tracing::warn!(%error, task = %id, "could not write a task's status message");
            }
        }
        true
    }

    /// Stores how the run of task `id` ended, unless the task ended otherwise meanwhile. While
    /// the store is unavailable the outcome is kept here and written once it is back (retried
    /// with backoff until `deadline`, the task's expiry): a store outage loses no result.
    async fn finish(
        &self,
        id: RecordId,
        principal: &Principal,
        outcome: Result<ToolResult, ErrorData>,
        deadline: tokio::time::Instant,
    ) {
        let mut wait = Duration::from_millis(250);
        loop {
            let error = match self.write_outcome(id, principal, outcome.as_ref()).await {
                Ok(()) => return,
                Err(error) => error,
            };
            if tokio::time::Instant::now() + wait >= deadline {
                tracing::error!(%error, task = %id, "could not store how a task ended before it expired");
                return;
            }
            tracing::warn!(%error, task = %id, retry_in_ms = wait.as_millis() as u64, "could not store how a task ended");
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(STORE_RETRY_MAX);
        }
    }

    /// One attempt of [`McpServer::finish`]: the outcome is written unless the task ended
    /// otherwise first (a cancel, here or on another node, wins if it was stored first).
    async fn write_outcome(
        &self,
        id: RecordId,
        principal: &Principal,
        outcome: Result<&ToolResult, &ErrorData>,
    ) -> Result<(), toolwire_store::StoreError> {
        let at = now();
        let ended = |task: &StoredTask| task.clone().finished(outcome, &at);
        let Some(task) = self.end_task(id, principal, &ended).await? else { return Ok(()) };
        self.observe_task(&task.tool, TaskEvent::Finished(task.status));
        Ok(())
    }

    /// Ends task `id` as `ended` makes it, unless it has ended (or gone) already: the task as
    /// stored by this call, `None` when it was not. Each write replaces the task as it was just
    /// read; when another writer came first (a status message, a cancel on another node) it is
    /// read again, so no two endings ever overwrite each other. A result over the quota ends
    /// the task `failed`, saying why, rather than leave it working.
    async fn end_task(
        &self,
        id: RecordId,
        principal: &Principal,
        ended: &(dyn Fn(&StoredTask) -> StoredTask + Sync),
    ) -> Result<Option<StoredTask>, toolwire_store::StoreError> {
        let store = self.gateway.config.stored.store();
        loop {
            let Some(loaded) = self.load_id(id, principal).await? else { return Ok(None) };
            if loaded.task.status.is_terminal() {
                return Ok(None);
            }
            let mut task = ended(&loaded.task);
            let record = task.record(principal.name(), loaded.created, loaded.expires);
            let written = match store.replace(id, &loaded.read, record).await {
                Err(error) if error.is_quota() => {
                    let why = ErrorData::internal_error(
                        format!("the task's result could not be kept: {error}"),
                        None,
                    );
                    task = loaded.task.finished(Err(&why), &now());
                    let record = task.record(principal.name(), loaded.created, loaded.expires);
                    store.replace(id, &loaded.read, record).await?
                }
                other => other?,
            };
            if written {
                return Ok(Some(task));
            }
        }
    }

    /// The error for an update of `loaded` that was not written: unknown when the task is gone,
    /// else changed by another writer.
    async fn lost_update(&self, loaded: &Loaded, principal: &Principal) -> ErrorData {
        let task_id = loaded.id.to_string();
        match self.load_id(loaded.id, principal).await {
            Ok(Some(_)) => changed(&task_id),
            _ => unknown(&task_id),
        }
    }

    /// Task `task_id` of `principal`, if there is one.
    async fn load(&self, task_id: &str, principal: &Principal) -> Result<Loaded, ErrorData> {
        let id = RecordId::parse(task_id).ok_or_else(|| unknown(task_id))?;
        match self.load_id(id, principal).await {
            Ok(Some(loaded)) => Ok(loaded),
            Ok(None) => Err(unknown(task_id)),
            Err(error) => Err(store_failure("the task could not be read", error)),
        }
    }

    async fn load_id(
        &self,
        id: RecordId,
        principal: &Principal,
    ) -> Result<Option<Loaded>, toolwire_store::StoreError> {
        let Some(record) = self.gateway.config.stored.store().get(id).await? else {
            return Ok(None);
        };
        if record.principal != principal.name() {
            return Ok(None);
        }
        let task = StoredTask::decode(&record).map_err(|error| {
            // A task record another node or version wrote that this one cannot read is a store
            // fault, not an unknown task: the client is told so and the log says why.
            tracing::error!(%error, task = %id, "a stored task does not decode");
            toolwire_store::StoreError::Corrupt { id }
        })?;
        Ok(task.map(|task| Loaded {
            id,
            task,
            created: record.created,
            expires: record.expires,
            read: record,
        }))
    }

    /// `tasks/get`: the task, with its result rendered now for this request.
    pub(crate) async fn get_task(
        &self,
        params: GetTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let revision = revision_of(&ctx)?;
        let principal = principal_of(&ctx, &self.gateway);
        let loaded = self.load(&params.task_id, &principal).await?;
        let host = crate::hosts::host_of(&ctx, &self.gateway.config.hosts);
        let task = &loaded.task;
        let payload = match task.status {
            TaskStatus::Completed => match self.render_task(task, revision, host, &principal).await
            {
                Ok(result) => TaskPayload::Completed { result },
                Err(error) => TaskPayload::Failed { error: error_object(&error) },
            },
            TaskStatus::Failed => {
                let error = task
                    .error
                    .clone()
                    .unwrap_or_else(|| ErrorData::internal_error("the task failed", None));
                TaskPayload::Failed { error: error_object(&error) }
            }
            TaskStatus::InputRequired => {
                let pending = task.pending().unwrap_or_default();
                let input_requests = crate::input::rmcp_requests(&pending)
                    .map_err(|why| crate::server::internal(&task.tool, &why))?;
                TaskPayload::InputRequired { input_requests }
            }
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            _ => TaskPayload::Working,
        };
        Ok(GetTaskResult::new(DetailedTask::new(task.wire(loaded.id), payload)))
    }

    /// The final result of `task` as a client on `revision` that `host` profiles reads it.
    async fn render_task(
        &self,
        task: &StoredTask,
        revision: McpRevision,
        host: &toolwire_core::host::HostProfile,
        principal: &Principal,
    ) -> Result<rmcp::model::JsonObject, ErrorData> {
        let Some(Entry { tool, .. }) = self.gateway.catalog.get(&task.tool) else {
            return Err(ErrorData::internal_error(
                format!("tool {} is no longer served", task.tool),
                None,
            ));
        };
        let result = task.tool_result().ok_or_else(|| {
            crate::server::internal(&task.tool, "the stored task result is unreadable")
        })?;
        let query = Query::new(&task.tool, task.arguments.clone());
        let output = self.render_for(&tool, result, revision, host, principal, query).await?;
        let response = crate::server::call_tool_response(output)
            .map_err(|why| crate::server::internal(&task.tool, &why))?;
        match serde_json::to_value(rmcp::model::ServerResult::from(response)) {
            Ok(Value::Object(result)) => Ok(result),
            _ => Err(crate::server::internal(&task.tool, "the rendered result is not an object")),
        }
    }

    /// `tasks/update`: answers for an `input_required` task; once every request has one, the
    /// tool runs again with them.
    pub(crate) async fn update_task(
        &self,
        params: UpdateTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let principal = principal_of(&ctx, &self.gateway);
        let mut loaded = self.load(&params.task_id, &principal).await?;
        if loaded.task.status != TaskStatus::InputRequired {
            return Ok(());
        }
        let Some(pending) = loaded.task.pending() else { return Ok(()) };
        for (key, answer) in params.input_responses {
            // Answers to nothing asked are tolerated and dropped.
            if pending.get(&key).is_some() {
                loaded.task.answers.insert(key, answer);
            }
        }
        let at = now();
        let store = self.gateway.config.stored.store();
        let still_asking =
            pending.requests.iter().any(|(key, _)| !loaded.task.answers.contains_key(key));
        if still_asking {
            loaded.task.last_updated_at = at.to_string();
            let record = loaded.task.record(principal.name(), loaded.created, loaded.expires);
            let written = store
                .replace(loaded.id, &loaded.read, record)
                .await
                .map_err(|e| store_failure("the task could not be updated", e))?;
            return if written { Ok(()) } else { Err(self.lost_update(&loaded, &principal).await) };
        }
        let Some(tool) = self.gateway.catalog.get(&loaded.task.tool).map(|entry| entry.tool) else {
            return Err(ErrorData::internal_error(
                format!("tool {} is no longer served", loaded.task.tool),
                None,
            ));
        };
        let revision = revision_of(&ctx)?;
        let answers = std::mem::take(&mut loaded.task.answers);
        let round = toolwire_core::input::InputRound::new(answers, pending.state.clone());
        let arguments = loaded.task.arguments.clone();
        let context =
            CallContext::new(&loaded.task.tool, principal.clone(), revision, ctx.id.to_string())
                .with_asks(
                    crate::input::declared_by(&ctx).within(crate::input::revision_asks(revision)),
                )
                .with_input(round);
        loaded.task = loaded.task.moved(TaskStatus::Working, &at);
        let record = loaded.task.record(principal.name(), loaded.created, loaded.expires);
        if !store
            .replace(loaded.id, &loaded.read, record)
            .await
            .map_err(|e| store_failure("the task could not be updated", e))?
        {
            return Err(self.lost_update(&loaded, &principal).await);
        }
        let (status, heard) = watch::channel(None);
        let run = self.run(tool, arguments, context.with_status(status));
        self.drive(loaded, principal, run, heard);
        Ok(())
    }

    /// `tasks/cancel`: a task not yet ended ends `cancelled`, and its work stops (at once on
    /// this node, within [`CHECK_EVERY`] on another); an ended task is left as it is.
    pub(crate) async fn cancel_task(
        &self,
        params: CancelTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let principal = principal_of(&ctx, &self.gateway);
        let loaded = self.load(&params.task_id, &principal).await?;
        if loaded.task.status.is_terminal() {
            return Ok(());
        }
        self.cancel_loaded(loaded, &principal).await.map(|_| ())
    }

    /// Cancels a task not yet ended: its run stops here at once (elsewhere within
    /// [`CHECK_EVERY`]) and it is stored `cancelled`, unless it ended first (its result was
    /// stored on another node before the cancel was); the task as it now is.
    async fn cancel_loaded(
        &self,
        loaded: Loaded,
        principal: &Principal,
    ) -> Result<StoredTask, ErrorData> {
        if let Some(handle) = self.gateway.running.remove(loaded.id) {
            handle.abort();
        }
        let at = now();
        let cancelled = |task: &StoredTask| task.clone().moved(TaskStatus::Cancelled, &at);
        let failure = |e| store_failure("the task could not be cancelled", e);
        match self.end_task(loaded.id, principal, &cancelled).await.map_err(failure)? {
            Some(task) => {
                self.observe_task(&task.tool, TaskEvent::Finished(TaskStatus::Cancelled));
                Ok(task)
            }
            // It ended otherwise first, or is gone: as it is now (or as it was read).
            None => match self.load_id(loaded.id, principal).await {
                Ok(Some(now)) => Ok(now.task),
                Ok(None) => Ok(loaded.task),
                Err(e) => Err(failure(e)),
            },
        }
    }

    /// Stops every task this node still runs and ends it `failed` ("the gateway running this
    /// task stopped before it ended; call the tool again"), for a gateway that is stopping: a
    /// task left `working` would only expire. Runs that end within the drain are not touched.
    pub async fn abandon_tasks(&self) {
        let why = ErrorData::internal_error(
            "the gateway running this task stopped before it ended; call the tool again",
            None,
        );
        for (id, handle, principal) in self.gateway.running.take_all() {
            handle.abort();
            if let Err(error) = self.write_outcome(id, &principal, Err(&why)).await {
                tracing::warn!(%error, task = %id, "could not end a task the gateway left");
            }
        }
    }

    fn observe_task(&self, tool: &str, event: TaskEvent) {
        if let Some(observer) = &self.gateway.config.observer {
            observer.task(&TaskRecord { tool, event, running: self.gateway.running.len() });
        }
    }
}

/// A JSON-RPC error as the `error` object of a failed task.
fn error_object(error: &ErrorData) -> rmcp::model::JsonObject {
    match serde_json::to_value(error) {
        Ok(Value::Object(object)) => object,
        _ => rmcp::model::JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwire_store::{
        KeySet, LinkSigner, MemoryStore, Record, ResultStore, StoreFuture, StoredResults,
    };

    use super::*;
    use crate::catalog::Catalog;
    use crate::server::{Gateway, GatewayConfig};

    /// A store in which another node writes first: its first `replace` lets that write through
    /// between the caller's read and its own write.
    struct Racing {
        inner: MemoryStore,
        first: Mutex<Option<Record>>,
    }

    impl ResultStore for Racing {
        fn put(&self, record: Record) -> StoreFuture<'_, RecordId> {
            self.inner.put(record)
        }
        fn get(&self, id: RecordId) -> StoreFuture<'_, Option<Record>> {
            self.inner.get(id)
        }
        fn replace<'a>(
            &'a self,
            id: RecordId,
            current: &'a Record,
            record: Record,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let first = self.first.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let (Some(other), Some(live)) = (first, self.inner.get(id).await?) {
                    assert!(self.inner.replace(id, &live, other).await?);
                }
                self.inner.replace(id, current, record).await
            })
        }
        fn delete(&self, id: RecordId) -> StoreFuture<'_, bool> {
            self.inner.delete(id)
        }
        fn sweep(&self) -> StoreFuture<'_, usize> {
            self.inner.sweep()
        }
        fn backend(&self) -> &'static str {
            "racing"
        }
    }

    /// A server over a [`Racing`] store holding one working task, the other node's write of it
    /// made by `other`.
    async fn racing(other: impl Fn(StoredTask) -> StoredTask) -> (McpServer, RecordId) {
        let principal = Principal::anonymous();
        let created = now();
        let expires =
            Timestamp::with_fraction_digits(created.datetime() + chrono::Duration::seconds(60), 3);
        let task = StoredTask::working("slow", json!({}), &created, 60_000, 500);
        let theirs = other(task.clone()).record(principal.name(), created, expires);
        let store = Racing { inner: MemoryStore::new(), first: Mutex::new(Some(theirs)) };
        let id = store.put(task.record(principal.name(), created, expires)).await.unwrap();
        let signer = LinkSigner::new(KeySet::generate().unwrap());
        let config = GatewayConfig::new(StoredResults::new(Arc::new(store), signer));
        (McpServer::new(Gateway::new(Catalog::new(), config)), id)
    }

    #[tokio::test]
    async fn a_damaged_task_record_is_a_store_fault_not_an_unknown_task() {
        let principal = Principal::anonymous();
        let created = now();
        let expires =
            Timestamp::with_fraction_digits(created.datetime() + chrono::Duration::seconds(60), 3);
        let store = MemoryStore::new();
        let damaged = Record::new(
            b"{\"status\":".to_vec(),
            stored::MIME_TYPE,
            principal.name(),
            created,
            expires,
        );
        let id = store.put(damaged).await.unwrap();
        let signer = LinkSigner::new(KeySet::generate().unwrap());
        let config = GatewayConfig::new(StoredResults::new(Arc::new(store), signer));
        let server = McpServer::new(Gateway::new(Catalog::new(), config));
        let Err(error) = server.load(&id.to_string(), &principal).await else {
            panic!("a damaged task loaded")
        };
        assert_eq!(error.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
        assert_eq!(
            error.message,
            format!("the task could not be read: stored record {id} is corrupt")
        );
    }

    async fn status(server: &McpServer, id: RecordId) -> TaskStatus {
        let loaded = server.load_id(id, &Principal::anonymous()).await.unwrap().unwrap();
        loaded.task.status
    }

    /// A tool answering after `answer_after`; with `status`, it says at once that it works on in
    /// the background.
    struct Waits {
        answer_after: Duration,
        status: bool,
    }

    impl crate::registry::DynTool for Waits {
        fn call(&self, _: &Value, context: CallContext) -> crate::registry::ToolFuture {
            let (wait, status) = (self.answer_after, self.status);
            Box::pin(async move {
                if status {
                    context.set_status("accepted elsewhere");
                }
                tokio::time::sleep(wait).await;
                Ok(ToolResult::success(json!({"done": true})))
            })
        }
    }

    /// Whether a call of an optional tool with a 1 s grace that answers after `answer_after`
    /// (saying first that it works on in the background when `status`) becomes a task.
    async fn becomes_a_task(answer_after: Duration, status: bool) -> bool {
        let mut registry = crate::Registry::new();
        let spec = crate::ToolSpec::new("waits", "Waits.")
            .task_support(TaskSupport::Optional)
            .task_grace(Duration::from_secs(1));
        registry.register_dyn(spec, Arc::new(Waits { answer_after, status })).unwrap();
        let config = GatewayConfig::in_memory().unwrap();
        let server = McpServer::new(Gateway::new(registry, config));
        let tool = server.gateway.catalog.get("waits").unwrap().tool;
        let context =
            CallContext::new("waits", Principal::anonymous(), McpRevision::V2026_07_28, "1");
        match server.start_task(tool, json!({}), context).await.unwrap() {
            Started::Created(created) => {
                assert_eq!(created.task.status, TaskStatus::Working);
                true
            }
            Started::Answered(result) => {
                assert_eq!(result.data(), Some(&json!({"done": true})));
                false
            }
        }
    }

    #[tokio::test]
    async fn an_optional_tool_with_a_grace_becomes_a_task_only_when_slow_or_when_it_says_so() {
        assert!(!becomes_a_task(Duration::from_millis(20), false).await);
        assert!(becomes_a_task(Duration::from_millis(20), true).await);
        assert!(becomes_a_task(Duration::from_secs(3), false).await);
    }

    #[tokio::test]
    async fn a_result_never_overwrites_a_cancel_stored_first_elsewhere() {
        let (server, id) = racing(|task| task.moved(TaskStatus::Cancelled, &now())).await;
        let result = ToolResult::success(json!({"done": true}));
        server.write_outcome(id, &Principal::anonymous(), Ok(&result)).await.unwrap();
        assert_eq!(status(&server, id).await, TaskStatus::Cancelled);
    }

    #[tokio::test]
    async fn a_cancel_never_overwrites_a_result_stored_first_elsewhere() {
        let result = ToolResult::success(json!({"done": true}));
        let (server, id) = racing(|task| task.finished(Ok(&result), &now())).await;
        let principal = Principal::anonymous();
        let loaded = server.load_id(id, &principal).await.unwrap().unwrap();
        let task = server.cancel_loaded(loaded, &principal).await.unwrap();
        assert_eq!(task.status, TaskStatus::Completed);
        assert_eq!(status(&server, id).await, TaskStatus::Completed);
    }

    #[tokio::test]
    async fn a_status_message_written_first_elsewhere_is_read_again_not_lost_to_a_cancel() {
        let (server, id) = racing(|mut task| {
            task.status_message = Some("half way".to_owned());
            task
        })
        .await;
        let principal = Principal::anonymous();
        let loaded = server.load_id(id, &principal).await.unwrap().unwrap();
        let task = server.cancel_loaded(loaded, &principal).await.unwrap();
        assert_eq!(task.status, TaskStatus::Cancelled);
        assert_eq!(status(&server, id).await, TaskStatus::Cancelled);
    }
}
