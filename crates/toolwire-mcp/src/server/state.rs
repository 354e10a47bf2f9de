//! The gateway's state: how it renders, stores and names itself ([`GatewayConfig`]), its tools
//! ([`Catalog`](crate::Catalog)) and its counters, shared by every handler clone.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use toolwire_core::host::HostProfiles;
use toolwire_core::{MapperConfig, McpRevision, OutputMapper, Phase};
use toolwire_store::{
    KeyError, KeySet, LinkSigner, MemoryStore, OffloadFallback, ReadError, StoredResults,
};

use crate::catalog::Catalog;
use crate::observe::CallObserver;
use crate::registry::Principal;
use crate::work::Work;

/// The template of stored-result links (`resources/templates/list`).
pub const STORED_RESULT_TEMPLATE: &str = toolwire_store::URI_TEMPLATE;

/// How the gateway renders, stores and names itself.
#[non_exhaustive]
#[derive(Clone)]
pub struct GatewayConfig {
    /// `compat` (envelope first, default) or `spec`.
    pub phase: Phase,
    /// The mapper: `_meta` prefix, limits per target, validation mode, and the server's name
    /// and version, for results and for `initialize` and `server/discover` alike.
    pub mapper: OutputMapper,
    /// How long stored results stay readable.
    pub link_ttl: Duration,
    /// What an over-limit result becomes when the store fails: a `tool_error` failure
    /// (`Fail`, default) or sent inline with a warning (`Inline`).
    pub offload_fallback: OffloadFallback,
    /// The principal of a request that carries none (stdio, or HTTP without authentication).
    pub default_principal: Principal,
    /// Where results over the limit are stored, and the signer of their links.
    pub stored: StoredResults,
    /// Told about every finished `tools/call` (metrics).
    pub observer: Option<Arc<dyn CallObserver>>,
    /// The host profiles requests are rendered for, picked by `clientInfo.name` (DESIGN §11).
    pub hosts: HostProfiles,
    /// This gateway's work limits (DESIGN §12): large renders and large answers wait for one of
    /// its places. Tools that read large answers themselves (app tools) take a clone of it.
    pub work: Work,
    /// How long tasks are kept and how often clients are asked to poll (DESIGN §17).
    pub tasks: crate::TaskSettings,
}

impl GatewayConfig {
    /// Compat phase, the default mapper, one-hour links, anonymous callers, one place per core
    /// for large work, and `stored`.
    pub fn new(stored: StoredResults) -> Self {
        Self {
            phase: Phase::Compat,
            mapper: OutputMapper::new(MapperConfig::default()),
            link_ttl: Duration::from_secs(3600),
            offload_fallback: OffloadFallback::Fail,
            default_principal: Principal::anonymous(),
            stored,
            observer: None,
            hosts: HostProfiles::builtin(),
            work: Work::default(),
            tasks: crate::TaskSettings::default(),
        }
    }

    /// Like [`GatewayConfig::new`] with results kept in process memory under a fresh random key
    /// (examples and tests; links die with the process).
    pub fn in_memory() -> Result<Self, KeyError> {
        let signer = LinkSigner::new(KeySet::generate()?);
        Ok(Self::new(StoredResults::new(Arc::new(MemoryStore::new()), signer)))
    }

    /// With the server's name and version: the one setting behind `serverInfo` everywhere.
    pub fn server_info(mut self, name: &str, version: &str) -> Self {
        let mapper = self.mapper.config().clone().with_server_info(name, version);
        self.mapper = OutputMapper::new(mapper);
        self
    }
}

impl GatewayConfig {
    /// A builder starting from [`GatewayConfig::new`]`(stored)`.
    pub fn builder(stored: StoredResults) -> GatewayConfigBuilder {
        GatewayConfigBuilder { config: Self::new(stored) }
    }
}

/// Builds a [`GatewayConfig`] setting by setting ([`GatewayConfig::builder`]); each setting not
/// given keeps the default of [`GatewayConfig::new`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct GatewayConfigBuilder {
    config: GatewayConfig,
}

impl GatewayConfigBuilder {
    /// `compat` (envelope first, default) or `spec`.
    pub fn phase(mut self, phase: Phase) -> Self {
        self.config.phase = phase;
        self
    }

    /// The mapper: `_meta` prefix, limits, validation mode, the server's name and version.
    pub fn mapper(mut self, mapper: OutputMapper) -> Self {
        self.config.mapper = mapper;
        self
    }

    /// The server's name and version, kept in the mapper ([`GatewayConfig::server_info`]):
    /// give it after [`GatewayConfigBuilder::mapper`].
    pub fn server_info(mut self, name: &str, version: &str) -> Self {
        self.config = self.config.server_info(name, version);
        self
    }

    /// How long stored results stay readable.
    pub fn link_ttl(mut self, ttl: Duration) -> Self {
        self.config.link_ttl = ttl;
        self
    }

    /// What an over-limit result becomes when the store fails.
    pub fn offload_fallback(mut self, fallback: OffloadFallback) -> Self {
        self.config.offload_fallback = fallback;
        self
    }

    /// The principal of a request that carries none.
    pub fn default_principal(mut self, principal: Principal) -> Self {
        self.config.default_principal = principal;
        self
    }

    /// Told about every finished `tools/call` and every offload.
    pub fn observer(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.config.observer = Some(observer);
        self
    }

    /// The host profiles requests are rendered for.
    pub fn hosts(mut self, hosts: HostProfiles) -> Self {
        self.config.hosts = hosts;
        self
    }

    /// The work limits (default: one place per core).
    pub fn work(mut self, work: Work) -> Self {
        self.config.work = work;
        self
    }

    /// How long tasks are kept and how often clients are asked to poll.
    pub fn tasks(mut self, tasks: crate::TaskSettings) -> Self {
        self.config.tasks = tasks;
        self
    }

    /// The configuration.
    pub fn build(self) -> GatewayConfig {
        self.config
    }
}

impl GatewayConfig {
    /// The `resources/read` result of a stored result's `uri`, read now by `principal`.
    pub(crate) async fn read_stored(
        &self,
        uri: &str,
        principal: &str,
        revision: McpRevision,
    ) -> Result<toolwire_store::ReadResourceResult, ReadError> {
        toolwire_store::read_resource(&self.stored, uri, principal, revision, chrono::Utc::now())
            .await
    }
}

impl std::fmt::Debug for GatewayConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayConfig")
            .field("phase", &self.phase)
            .field("mapper", &self.mapper)
            .field("link_ttl", &self.link_ttl)
            .field("offload_fallback", &self.offload_fallback)
            .field("default_principal", &self.default_principal)
            .field("stored", &self.stored)
            .field("observer", &self.observer)
            .field("hosts", &self.hosts)
            .field("work", &self.work)
            .field("tasks", &self.tasks)
            .finish()
    }
}

/// Counts results that came from hand-built legacy strings, so a team sees how many remain.
#[derive(Debug, Default)]
pub struct LegacyCounter(AtomicU64);

impl LegacyCounter {
    /// The count so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn bump(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// Tools, configuration and counters, shared by every handler clone.
#[derive(Debug)]
pub struct Gateway {
    pub(crate) catalog: Catalog,
    pub(crate) config: GatewayConfig,
    pub(crate) info: ServerConfig,
    pub(crate) legacy: LegacyCounter,
    pub(crate) running: crate::tasks::Running,
}

impl Gateway {
    /// A gateway serving the tools of `tools`: a [`Catalog`] of sources, or one [`Registry`](crate::Registry).
    pub fn new(tools: impl Into<Catalog>, config: GatewayConfig) -> Arc<Self> {
        let named = config.mapper.config();
        // The capabilities follow the server's extensions and sources, per `initialize`.
        let info = ServerConfig::new(ServerCapabilities::default())
            .with_server_info(Implementation::new(named.server_name(), named.server_version()));
        Arc::new(Self {
            catalog: tools.into(),
            config,
            info,
            legacy: LegacyCounter::default(),
            running: crate::tasks::Running::default(),
        })
    }

    /// The tools of every source.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The configuration.
    pub fn config(&self) -> &GatewayConfig {
        &self.config
    }

    /// How many hand-built legacy results were served.
    pub fn legacy_results(&self) -> u64 {
        self.legacy.get()
    }
}
