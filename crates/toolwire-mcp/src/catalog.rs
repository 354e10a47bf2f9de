//! The catalog: the tools of every [`ToolSource`] of a gateway merged into one list, names unique
//! across sources. When a source's list changes, the catalog asks it again, merges anew (the
//! tools of the other sources stay as they were compiled) and tells the connected clients that
//! can hear it with `notifications/tools/list_changed`.
//!
//! A call looks its tool up in the current merge: one read lock and one `Arc` clone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::Peer;
use rmcp::service::{RoleServer, SubscriptionSink};

use crate::extend::{Prompts, Resources};
use crate::registry::{RegisteredTool, Registry};
use crate::source::{ChangeSignal, SourceHealth, ToolSource};

/// Why a source could not join a catalog (or a changed list was refused).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// Two sources offer a tool of the same name.
    #[error(
        "tool `{tool}` is offered by two sources, `{first}` and `{second}`: rename one, or give one source a tool prefix"
    )]
    Collision {
        /// The tool name.
        tool: String,
        /// The source that offered it first.
        first: String,
        /// The source that offered it again.
        second: String,
    },
    /// Two sources have the same name.
    #[error("two tool sources are named `{0}`; source names must be unique")]
    DuplicateSource(String),
}

/// One tool of the merge, with the source it came from.
#[derive(Clone)]
pub(crate) struct Entry {
    pub(crate) tool: Arc<RegisteredTool>,
    /// The source's name: the `source` label of logs and metrics, and nothing else.
    pub(crate) source: Arc<str>,
}

/// The merged tools at one moment, in source order, then each source's order.
#[derive(Default)]
pub(crate) struct Merged {
    tools: Vec<Entry>,
    by_name: HashMap<String, usize>,
    /// Whether a tool's calls may become tasks (then the tasks extension is advertised).
    tasks: bool,
}

impl Merged {
    /// The tools of `snapshots` (one per source, in source order), or the first collision.
    fn of(snapshots: &[(Arc<str>, Registry)]) -> Result<Self, CatalogError> {
        let mut merged = Self::default();
        for (source, registry) in snapshots {
            for tool in registry.iter() {
                let name = &tool.spec.name;
                if let Some(&at) = merged.by_name.get(name) {
                    return Err(CatalogError::Collision {
                        tool: name.clone(),
                        first: merged.tools[at].source.to_string(),
                        second: source.to_string(),
                    });
                }
                merged.tasks |= tool.spec.task_support != crate::TaskSupport::Forbidden;
                merged.by_name.insert(name.clone(), merged.tools.len());
                merged.tools.push(Entry { tool: Arc::clone(tool), source: Arc::clone(source) });
            }
        }
        Ok(merged)
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Entry> {
        self.by_name.get(name).and_then(|&i| self.tools.get(i))
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.tools.iter()
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Whether any tool's calls may become tasks.
    pub(crate) fn has_tasks(&self) -> bool {
        self.tasks
    }
}

/// One source of the catalog and what the catalog knows of it.
struct Joined {
    source: Arc<dyn ToolSource>,
    name: Arc<str>,
    tools: Registry,
}

/// Who hears that the tool list changed: the sessions of clients on a handshake revision and
/// the `subscriptions/listen` streams of 2026-07-28 clients.
#[derive(Default)]
struct Listeners {
    peers: Vec<Peer<RoleServer>>,
    sinks: Vec<(u64, SubscriptionSink)>,
    next_sink: u64,
}

struct Inner {
    /// The sources, their last lists, and the resources and prompts they serve.
    joined: Mutex<Vec<Joined>>,
    current: RwLock<Arc<Merged>>,
    resources: RwLock<Vec<Arc<dyn Resources>>>,
    prompts: RwLock<Vec<Arc<dyn Prompts>>>,
    listeners: Mutex<Listeners>,
    /// Kept alive here, called by the sources' change signals (which hold them weakly).
    on_change: Mutex<Vec<Arc<dyn Fn() + Send + Sync>>>,
    changing: std::sync::atomic::AtomicBool,
}

/// The tools of all sources of a gateway, merged. Cheap to clone: clones share the catalog.
#[derive(Clone)]
pub struct Catalog {
    inner: Arc<Inner>,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let joined = lock(&self.inner.joined);
        let sources: Vec<(&str, usize)> =
            joined.iter().map(|j| (&*j.name, j.tools.len())).collect();
        f.debug_struct("Catalog").field("sources", &sources).finish()
    }
}

impl From<Registry> for Catalog {
    /// A catalog of one registry (one source cannot collide with itself).
    fn from(registry: Registry) -> Self {
        let catalog = Self::new();
        // A registry's names are unique and it is the only source: joining cannot fail.
        let _ = catalog.add(registry);
        catalog
    }
}

impl Catalog {
    /// A catalog with no sources.
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                joined: Mutex::new(Vec::new()),
                current: RwLock::new(Arc::default()),
                resources: RwLock::new(Vec::new()),
                prompts: RwLock::new(Vec::new()),
                listeners: Mutex::new(Listeners::default()),
                on_change: Mutex::new(Vec::new()),
                changing: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// The same catalog with `source` added ([`Catalog::add`]).
    pub fn with(self, source: impl ToolSource) -> Result<Self, CatalogError> {
        self.add(source)?;
        Ok(self)
    }

    /// Adds `source`: its tools join the list after those of the sources before it. Refused,
    /// and nothing changes, when one of its tool names is taken by another source or its name
    /// by another source. Connected clients that can hear it are told the list changed.
    pub fn add(&self, source: impl ToolSource) -> Result<(), CatalogError> {
        let source: Arc<dyn ToolSource> = Arc::new(source);
        let name: Arc<str> = Arc::from(source.name());
        let tools = source.tools();
        let mut joined = lock(&self.inner.joined);
        if joined.iter().any(|j| j.name == name) {
            return Err(CatalogError::DuplicateSource(name.to_string()));
        }
        let mut snapshots: Vec<(Arc<str>, Registry)> =
            joined.iter().map(|j| (Arc::clone(&j.name), j.tools.clone())).collect();
        snapshots.push((Arc::clone(&name), tools.clone()));
        let merged = Merged::of(&snapshots)?;
        if let Some(resources) = source.resources() {
            write(&self.inner.resources).push(resources);
        }
        if let Some(prompts) = source.prompts() {
            write(&self.inner.prompts).push(prompts);
        }
        if let Some(signal) = source.changes() {
            self.follow(&signal, Arc::clone(&name));
        }
        joined.push(Joined { source, name, tools });
        *write(&self.inner.current) = Arc::new(merged);
        drop(joined);
        self.tell_listeners();
        Ok(())
    }

    /// Calls [`Catalog::refresh`] of the source `name` whenever `signal` fires, for as long as
    /// the catalog lives.
    fn follow(&self, signal: &ChangeSignal, name: Arc<str>) {
        self.inner.changing.store(true, std::sync::atomic::Ordering::Relaxed);
        let weak = Arc::downgrade(&self.inner);
        let listener: Arc<dyn Fn() + Send + Sync> = Arc::new(move || {
            if let Some(inner) = weak.upgrade() {
                let catalog = Catalog { inner };
                if let Err(error) = catalog.refresh(&name) {
                    tracing::error!(source = %name, %error, "a changed tool list was refused; the previous list stays");
                }
            }
        });
        signal.listen(&listener);
        lock(&self.inner.on_change).push(listener);
    }

    /// Asks the source `name` for its tools again and merges them: on a collision the previous
    /// list stays and the error says which. Clients that can hear it are told the list changed.
    /// What a [`ChangeSignal`] firing does; an unknown name changes nothing.
    pub fn refresh(&self, name: &str) -> Result<(), CatalogError> {
        let mut joined = lock(&self.inner.joined);
        let Some(at) = joined.iter().position(|j| &*j.name == name) else { return Ok(()) };
        let tools = joined[at].source.tools();
        let snapshots: Vec<(Arc<str>, Registry)> = joined
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let tools = if i == at { tools.clone() } else { j.tools.clone() };
                (Arc::clone(&j.name), tools)
            })
            .collect();
        let merged = Merged::of(&snapshots)?;
        joined[at].tools = tools;
        *write(&self.inner.current) = Arc::new(merged);
        drop(joined);
        self.tell_listeners();
        Ok(())
    }

    /// The tool list now.
    pub(crate) fn current(&self) -> Arc<Merged> {
        Arc::clone(&read(&self.inner.current))
    }

    /// The tool `name` now, with its source.
    pub(crate) fn get(&self, name: &str) -> Option<Entry> {
        read(&self.inner.current).get(name).cloned()
    }

    /// Whether a tool of this name is offered now.
    pub fn contains(&self, name: &str) -> bool {
        read(&self.inner.current).contains(name)
    }

    /// The tool names now, in order.
    pub fn names(&self) -> Vec<String> {
        read(&self.inner.current).iter().map(|e| e.tool.spec.name.clone()).collect()
    }

    /// The number of tools now.
    pub fn len(&self) -> usize {
        read(&self.inner.current).tools.len()
    }

    /// True when no source offers a tool.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The health of every source, in order, by name.
    pub fn health(&self) -> Vec<(String, SourceHealth)> {
        lock(&self.inner.joined).iter().map(|j| (j.name.to_string(), j.source.health())).collect()
    }

    /// Whether a source's list can change (then `tools.listChanged` is announced).
    pub(crate) fn can_change(&self) -> bool {
        self.inner.changing.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The resources the sources serve, in source order.
    pub(crate) fn resources(&self) -> Vec<Arc<dyn Resources>> {
        read(&self.inner.resources).clone()
    }

    /// The prompts the sources serve, in source order.
    pub(crate) fn prompts(&self) -> Vec<Arc<dyn Prompts>> {
        read(&self.inner.prompts).clone()
    }

    /// Whether some source serves prompts.
    pub(crate) fn has_prompts(&self) -> bool {
        !read(&self.inner.prompts).is_empty()
    }

    /// Remembers the session of a client that finished its handshake, to tell it when the list
    /// changes (only while a source's list can change).
    pub(crate) fn hear_session(&self, peer: Peer<RoleServer>) {
        if self.can_change() {
            let mut listeners = lock(&self.inner.listeners);
            listeners.peers.retain(|p| !p.is_transport_closed());
            listeners.peers.push(peer);
        }
    }

    /// Tells `sink` (a `subscriptions/listen` stream) of every change until the returned guard
    /// is dropped.
    pub(crate) fn hear_stream(&self, sink: SubscriptionSink) -> StreamGuard {
        let mut listeners = lock(&self.inner.listeners);
        let id = listeners.next_sink;
        listeners.next_sink += 1;
        listeners.sinks.push((id, sink));
        StreamGuard { catalog: self.clone(), id }
    }

    /// Sends `notifications/tools/list_changed` to every session and listening stream.
    fn tell_listeners(&self) {
        let (peers, sinks) = {
            let mut listeners = lock(&self.inner.listeners);
            listeners.peers.retain(|p| !p.is_transport_closed());
            let sinks: Vec<SubscriptionSink> =
                listeners.sinks.iter().map(|(_, s)| s.clone()).collect();
            (listeners.peers.clone(), sinks)
        };
        if peers.is_empty() && sinks.is_empty() {
            return;
        }
        // Sending is async and a change may be signalled from sync code: a task sends. Without
        // a runtime there is no connection to tell.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        runtime.spawn(async move {
            for peer in peers {
                if let Err(error) = peer.notify_tool_list_changed().await {
                    tracing::debug!(%error, "a session did not take tools/list_changed");
                }
            }
            for sink in sinks {
                if let Err(error) = sink.notify_tool_list_changed().await {
                    tracing::debug!(%error, "a stream did not take tools/list_changed");
                }
            }
        });
    }
}

/// Keeps a `subscriptions/listen` stream among the listeners of a catalog until dropped.
pub(crate) struct StreamGuard {
    catalog: Catalog,
    id: u64,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        lock(&self.catalog.inner.listeners).sinks.retain(|(id, _)| *id != self.id);
    }
}

// A poisoned lock means a panic elsewhere while it was held; the lists in it stay whole (every
// update is one assignment or push), so they are used as they are.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}
