//! An upstream as a tool source. A supervisor task owns the connection: it connects
//! (`super::connect`), lists the upstream's tools (every page) and publishes each under the
//! upstream's prefix, re-lists when the upstream says a list changed, and when the connection is
//! lost (a process that exited, a transport that closed) or cannot be opened it tries again with
//! backoff — the gateway keeps serving meanwhile. Calls to the upstream's tools while it is down
//! are `upstream_unavailable` results; an upstream down at start has no tools until it comes up.
//! The catalog hears every change of the list through the source's [`ChangeSignal`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;
use tokio::sync::{Notify, watch};
use toolwire_mcp::extend::{Prompts, Resources};
use toolwire_mcp::{ChangeSignal, Registry, SourceHealth, TaskSupport, ToolSource, ToolSpec};

use super::connect::{Connection, Handler};
use super::extend::{Extras, Listed};
use super::paging::{self, Bounds};
use super::tool::{Link, UpstreamTool};
use crate::config::Upstream;
use crate::metrics::Metrics;

/// The wait before the first retry; it doubles up to [`BACKOFF_MAX`].
const BACKOFF_FIRST: Duration = Duration::from_millis(250);
/// The longest wait between two attempts.
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A connection that lasted this long was healthy: the next loss starts the backoff anew.
const STABLE: Duration = Duration::from_secs(60);
/// The shortest time between two re-listings: an upstream that says its list changed thousands
/// of times a second is listed at most once per interval (the change that arrives meanwhile is
/// kept by the `Notify` and read after the wait, so the last one is never missed).
const RELIST_INTERVAL: Duration = Duration::from_secs(1);
/// The most tools one upstream may publish (after its allow-list): a tools list beyond it would
/// cost every client's `tools/list` and the model's context for no use; the first ones are
/// served and a warning says so.
const MAX_TOOLS: usize = 1000;
/// The most JSON the published tools of one upstream may take, all definitions together: a
/// thousand tools of 16 MiB descriptions or schemas each would otherwise all be held.
const MAX_LISTING_BYTES: usize = 16 * 1024 * 1024;

/// Why an upstream could not be connected (it is tried again; this is what the log and
/// `/readyz` say meanwhile).
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The command could not be started.
    #[error("upstream `{upstream}`: cannot start `{program}`: {reason}")]
    Spawn {
        /// The upstream.
        upstream: String,
        /// The program.
        program: String,
        /// What the system said.
        reason: String,
    },
    /// The MCP handshake or listing failed.
    #[error("upstream `{upstream}`: {reason}")]
    Protocol {
        /// The upstream.
        upstream: String,
        /// What failed.
        reason: String,
    },
}

/// An upstream MCP server's tools, re-served. Dropping it stops its supervisor, which closes
/// the connection (and kills a stdio upstream's process).
pub struct UpstreamSource {
    shared: Arc<Shared>,
    supervisor: tokio::task::AbortHandle,
    attempts: watch::Receiver<u64>,
}

impl std::fmt::Debug for UpstreamSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamSource").field("name", &self.shared.upstream.name).finish()
    }
}

impl Drop for UpstreamSource {
    fn drop(&mut self) {
        self.supervisor.abort();
    }
}

/// What the supervisor and the source share.
struct Shared {
    upstream: Upstream,
    metrics: Arc<Metrics>,
    /// What the tools call through.
    link: Arc<Link>,
    /// The tools published now, and the listing they came from (to tell a change).
    tools: Mutex<(Registry, Option<Value>)>,
    /// Its resources, templates and prompts.
    extras: Arc<Extras>,
    health: Mutex<SourceHealth>,
    /// The revision of the current connection.
    revision: Mutex<Option<String>>,
    signal: ChangeSignal,
    /// Notified by the client handler when the upstream says a list changed.
    changed: Arc<Notify>,
}

impl UpstreamSource {
    /// Starts the supervisor of `upstream` (on the current tokio runtime), which connects in the
    /// background; calls and failures are counted in `metrics`. [`UpstreamSource::first_attempt`]
    /// waits for the first connection attempt to end.
    pub fn start(upstream: Upstream, metrics: Arc<Metrics>) -> Self {
        let name = upstream.name.clone();
        let link = Arc::new(Link::new(&upstream, Arc::clone(&metrics)));
        let shared = Arc::new(Shared {
            tools: Mutex::new((Registry::named(name.clone()), None)),
            extras: Arc::new(Extras::new(&upstream, Arc::clone(&link))),
            health: Mutex::new(SourceHealth::Unavailable("connecting".into())),
            revision: Mutex::new(None),
            signal: ChangeSignal::new(),
            changed: Arc::new(Notify::new()),
            upstream,
            metrics,
            link,
        });
        let (sender, attempts) = watch::channel(0);
        let supervisor = tokio::spawn(supervise(Arc::clone(&shared), sender)).abort_handle();
        Self { shared, supervisor, attempts }
    }

    /// Waits until the first attempt to connect has succeeded or failed (at most the connect
    /// limit and a listing's): a gateway starts with the tools of the upstreams that are up.
    pub async fn first_attempt(&self) {
        let mut attempts = self.attempts.clone();
        let _ = attempts.wait_for(|n| *n > 0).await;
    }

    /// The revision the upstream accepted on the current connection; `None` while it is down.
    pub fn revision(&self) -> Option<String> {
        lock(&self.shared.revision).clone()
    }
}

impl ToolSource for UpstreamSource {
    fn name(&self) -> &str {
        &self.shared.upstream.name
    }

    fn tools(&self) -> Registry {
        lock(&self.shared.tools).0.clone()
    }

    fn resources(&self) -> Option<Arc<dyn Resources>> {
        Some(Arc::clone(&self.shared.extras) as Arc<dyn Resources>)
    }

    fn prompts(&self) -> Option<Arc<dyn Prompts>> {
        Some(Arc::clone(&self.shared.extras) as Arc<dyn Prompts>)
    }

    fn changes(&self) -> Option<ChangeSignal> {
        Some(self.shared.signal.clone())
    }

    fn health(&self) -> SourceHealth {
        lock(&self.shared.health).clone()
    }
}

/// Connects, serves until the connection is lost, and starts again, for as long as the source
/// lives (its drop aborts this task).
async fn supervise(shared: Arc<Shared>, attempts: watch::Sender<u64>) {
    let name = shared.upstream.name.clone();
    let mut backoff = BACKOFF_FIRST;
    let mut attempt = 0u64;
    loop {
        if attempt > 0 {
            shared.metrics.upstream_restart(&name);
        }
        attempt += 1;
        let opened = Instant::now();
        let handler =
            Handler { changed: Arc::clone(&shared.changed), relays: shared.link.relays() };
        let why = match Connection::open(&shared.upstream, handler).await {
            Ok(connection) => match shared.list(&connection.peer()).await {
                Ok(()) => {
                    shared.up(&connection);
                    attempts.send_replace(attempt);
                    shared.serve(connection).await
                }
                Err(why) => why,
            },
            Err(e) => e.to_string(),
        };
        shared.down(&why, backoff);
        attempts.send_replace(attempt);
        if opened.elapsed() >= STABLE {
            backoff = BACKOFF_FIRST;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

impl Shared {
    /// Serves over `connection` until it ends, re-listing whenever the upstream says a list
    /// changed; returns why it ended.
    async fn serve(&self, connection: Connection) -> String {
        let peer = connection.peer();
        let closed = connection.closed();
        tokio::pin!(closed);
        loop {
            tokio::select! {
                why = &mut closed => return why,
                () = self.changed.notified() => {
                    if let Err(why) = self.list(&peer).await {
                        tracing::warn!(upstream = %self.upstream.name, why = %why.escape_debug(), "the changed tool list could not be read; the previous list stays");
                    }
                    // A flood of `list_changed` is one listing per interval, not one per note.
                    tokio::select! {
                        why = &mut closed => return why,
                        () = tokio::time::sleep(RELIST_INTERVAL) => {}
                    }
                }
            }
        }
    }

    /// Lists the upstream's resources, templates and prompts, and its tools, publishing the
    /// tools when they differ from what is published.
    async fn list(&self, peer: &Peer<RoleClient>) -> Result<(), String> {
        self.extras
            .replace(Listed::of(peer, &self.upstream.name, &self.upstream.tool_prefix).await?);
        let listed = self.list_tools(peer).await?;
        let tasks = peer.peer_info().is_some_and(|info| info.capabilities.supports_tasks());
        let fingerprint = serde_json::to_value((&listed, tasks)).ok();
        {
            let mut tools = lock(&self.tools);
            if fingerprint.is_some() && tools.1 == fingerprint {
                return Ok(());
            }
            *tools = (registry(&self.upstream, &listed, tasks, &self.link), fingerprint);
        }
        // Fired after the lock is released: the catalog asks `tools()` again right away.
        self.signal.fire();
        Ok(())
    }

    /// The upstream's tools that its allow-list admits, at most [`MAX_TOOLS`] of them in at
    /// most [`MAX_LISTING_BYTES`] (`super::paging`): what an upstream declares is kept within a
    /// bound, not held whole first.
    async fn list_tools(&self, peer: &Peer<RoleClient>) -> Result<Vec<Tool>, String> {
        let bounds = Bounds { items: MAX_TOOLS, bytes: MAX_LISTING_BYTES };
        let page = |cursor| async move {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let page = peer.list_tools(Some(params)).await?;
            Ok((page.tools, page.next_cursor))
        };
        paging::read(&self.upstream.name, "tools/list", bounds, page, |tool: &Tool| {
            self.admits(&tool.name)
        })
        .await
    }

    /// Whether the upstream's allow-list (none: every tool) admits the tool `remote`.
    fn admits(&self, remote: &str) -> bool {
        self.upstream.tools.as_ref().is_none_or(|globs| globs.iter().any(|g| g.matches(remote)))
    }

    /// The connection is up: calls go through it.
    fn up(&self, connection: &Connection) {
        let name = &self.upstream.name;
        let revision = connection.revision().unwrap_or_else(|| "unknown".into());
        tracing::info!(upstream = %name, revision = %revision.escape_debug(), tools = lock(&self.tools).0.len(), "upstream connected");
        *lock(&self.revision) = Some(revision);
        self.link.connect(connection.peer(), connection.lean());
        *lock(&self.health) = SourceHealth::Ready;
        self.metrics.upstream_up(name, true);
    }

    /// The connection is lost or could not be opened: calls fail fast until the next one.
    fn down(&self, why: &str, retry_in: Duration) {
        let name = &self.upstream.name;
        tracing::warn!(upstream = %name, why = %why.escape_debug(), retry_in_ms = retry_in.as_millis() as u64, "upstream not connected; trying again");
        self.link.disconnect();
        *lock(&self.revision) = None;
        *lock(&self.health) = SourceHealth::Unavailable(why.to_owned());
        self.metrics.upstream_up(name, false);
    }
}

/// The tools of `listed` that `upstream` serves, each under its prefix; a tool whose definition
/// toolwire cannot publish (a name outside MCP's `[A-Za-z0-9_.-]`, a schema that does not
/// compile) is skipped with a warning naming it, and the others are served. The upstream's
/// words reach the log escaped (`escape_debug`): a name may hold a newline or a terminal escape.
/// When the upstream has the tasks extension (`tasks`), any of its calls may become a task
/// there, which the gateway follows (`super::task`): its tools may run as gateway tasks too.
fn registry(upstream: &Upstream, listed: &[Tool], tasks: bool, link: &Arc<Link>) -> Registry {
    let mut tools = Registry::named(upstream.name.clone());
    for tool in listed {
        // `listed` holds only what the allow-list admits (`Shared::list_tools`).
        let remote = tool.name.to_string();
        let output = tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone()))
            .or_else(|| upstream.outputs.get(&remote).cloned());
        let description = printable(tool.description.as_deref().unwrap_or(&remote));
        let mut spec = ToolSpec::new(format!("{}{remote}", upstream.tool_prefix), description)
            .input_schema(Value::Object((*tool.input_schema).clone()))
            .privileges(upstream.privileges.iter().cloned());
        if let Some(title) = &tool.title {
            spec = spec.title(printable(title).trim());
        }
        if let Some(mut annotations) = tool.annotations.clone() {
            annotations.title = annotations.title.map(|title| printable(&title).trim().to_owned());
            spec = spec.annotations(annotations);
        }
        if let Some(output) = &output {
            spec = spec.output_schema(output.clone());
        }
        if tasks {
            // A call becomes a gateway task when the upstream makes it a task of its own (or is
            // slow), not merely because it waits on the network.
            spec = spec.task_support(TaskSupport::Optional).task_grace(crate::TASK_GRACE);
        }
        let handler =
            UpstreamTool::new(Arc::clone(link), remote.clone(), &tool.input_schema, output);
        if let Err(error) = tools.register_dyn(spec, Arc::new(handler)) {
            tracing::warn!(upstream = %upstream.name, tool = %remote.escape_debug(), error = %error.to_string().escape_debug(), "upstream tool not served");
        }
    }
    tools
}

/// `text` without its control characters, newlines and tabs aside: a description is prose that
/// may have lines, but a terminal escape, a bell or a NUL has no place in what a client shows
/// or a model reads.
pub(super) fn printable(text: &str) -> String {
    text.chars().filter(|&c| c == '\n' || c == '\t' || !c.is_control()).collect()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
