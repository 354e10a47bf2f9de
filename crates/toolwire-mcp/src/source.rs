//! The one way in for every tool source (DESIGN §14): a [`ToolSource`] says which tools it offers
//! (and, optionally, resources and prompts), whether it is healthy, and when its tool list
//! changes. Each tool it offers is a [`DynTool`](crate::DynTool) behind a
//! [`ToolSpec`](crate::ToolSpec), collected in a [`Registry`]: the registry of Rust tools is
//! itself a source, and any other source (app webhooks, upstream MCP servers, OpenAPI
//! operations) hands its tools over in one.
//!
//! A [`Catalog`](crate::Catalog) merges the sources of a gateway; nothing after it asks which
//! source a tool came from.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::extend::{Prompts, Resources};
use crate::registry::Registry;

/// A source of tools: what the gateway discovers from it. Calls go to the handlers of the tools
/// it offers, never through the source itself.
pub trait ToolSource: Send + Sync + 'static {
    /// The source's name, as errors, logs and metrics name it (`demo`, `tools`, an upstream's
    /// configured name). Unique within a catalog.
    fn name(&self) -> &str;

    /// The tools the source offers now, each compiled and published for every revision (what
    /// [`Registry::register_dyn`] does). Asked when the source joins a catalog and again each
    /// time its [`ChangeSignal`] fires.
    fn tools(&self) -> Registry;

    /// Resources the source serves beside the stored results, if any.
    fn resources(&self) -> Option<Arc<dyn Resources>> {
        None
    }

    /// Prompts the source serves, if any.
    fn prompts(&self) -> Option<Arc<dyn Prompts>> {
        None
    }

    /// The signal the source fires when its tool list changed, for a source whose tools can
    /// change; `None` (the default) for a fixed list. A gateway with a changing source announces
    /// `tools.listChanged` and tells connected clients when a list changes.
    fn changes(&self) -> Option<ChangeSignal> {
        None
    }

    /// Whether the source can serve now (readiness probes name a source that cannot).
    fn health(&self) -> SourceHealth {
        SourceHealth::Ready
    }
}

/// Whether a source can serve its tools.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceHealth {
    /// It serves.
    Ready,
    /// It cannot serve now, and why (an upstream that is down, say).
    Unavailable(String),
}

type Listener = dyn Fn() + Send + Sync;

/// What a source fires when its tool list changed. Cheap to clone; the source keeps one and
/// returns a clone from [`ToolSource::changes`]. Firing it makes every catalog holding the
/// source ask [`ToolSource::tools`] again.
#[derive(Clone, Default)]
pub struct ChangeSignal {
    // Weak: a catalog holds its sources, and a source holds its signal; a strong reference
    // back to the catalog would keep both alive forever.
    listeners: Arc<Mutex<Vec<Weak<Listener>>>>,
}

impl std::fmt::Debug for ChangeSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeSignal").field("listeners", &self.live().len()).finish()
    }
}

impl ChangeSignal {
    /// A signal nobody listens to yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tells every catalog holding the source that its tool list changed. Each catalog asks
    /// [`ToolSource::tools`] again before this returns, so fire it after releasing any lock
    /// that `tools` takes.
    pub fn fire(&self) {
        for listener in self.live() {
            listener();
        }
    }

    /// The listeners still alive, dropping the others.
    fn live(&self) -> Vec<Arc<Listener>> {
        let mut listeners = self.listeners.lock().unwrap_or_else(PoisonError::into_inner);
        listeners.retain(|listener| listener.strong_count() > 0);
        listeners.iter().filter_map(Weak::upgrade).collect()
    }

    /// Calls `listener` on every [`ChangeSignal::fire`] for as long as the caller keeps it.
    pub(crate) fn listen(&self, listener: &Arc<Listener>) {
        let mut listeners = self.listeners.lock().unwrap_or_else(PoisonError::into_inner);
        listeners.push(Arc::downgrade(listener));
    }
}

impl ToolSource for Registry {
    fn name(&self) -> &str {
        self.source_name()
    }

    fn tools(&self) -> Registry {
        self.clone()
    }
}

/// A shared source: the caller keeps a handle to it (to change its list, say) while the catalog
/// holds it.
impl<S: ToolSource + ?Sized> ToolSource for Arc<S> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn tools(&self) -> Registry {
        (**self).tools()
    }

    fn resources(&self) -> Option<Arc<dyn Resources>> {
        (**self).resources()
    }

    fn prompts(&self) -> Option<Arc<dyn Prompts>> {
        (**self).prompts()
    }

    fn changes(&self) -> Option<ChangeSignal> {
        (**self).changes()
    }

    fn health(&self) -> SourceHealth {
        (**self).health()
    }
}
