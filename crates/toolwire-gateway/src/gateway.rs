//! The gateway as a Rust user embeds it: a [`GatewayBuilder`] takes the settings (the sections of
//! `toolwire.toml`) and any number of the user's own [`ToolSource`]s, and builds a [`Gateway`]
//! whose [`Gateway::router`] is mounted in the user's axum app, or which serves on its own
//! ([`Gateway::serve`], what `toolwire serve` does).
//!
//! ```no_run
//! use toolwire_gateway::{GatewayBuilder, Overrides, Settings};
//! use toolwire_mcp::{Registry, ToolSpec};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let settings = Settings::load(&Overrides::default(), &|name| std::env::var(name).ok())?;
//! let mut mine = Registry::named("mine");
//! # let _ = &mut mine;
//! let gateway = GatewayBuilder::from_settings(settings).source(mine).build().await?;
//! let app = axum::Router::new()
//!     .route("/hello", axum::routing::get(|| async { "hello" }))
//!     .merge(gateway.router());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! axum::serve(listener, app).await?;
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use toolwire_core::{MapperConfig, OutputMapper};
use toolwire_mcp::work::Work;
use toolwire_mcp::{Catalog, GatewayConfig, McpServer, Principal, SourceHealth, ToolSource};
use toolwire_store::{KeySet, OpenError, StoreConfig, StoredResults};

use crate::config::{Settings, StoreKind};
use crate::conformance::Conformance;
use crate::console::{self, Console};
use crate::error::Failure;
use crate::{app_tools, auth, demo, listener, metrics, ops, sessions};
use crate::{openapi, upstreams};

/// How long a stopping stdio gateway waits for rmcp's last lines to reach stdout.
const STDOUT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Builds a [`Gateway`] from settings and tool sources. The sources the settings name come
/// first (the demo catalog when `demo_tools` is on, the app tools of `[[tools]]`), then the
/// sources given here, in order; tool names are unique across all of them.
#[must_use = "a builder does nothing until `build` is called"]
pub struct GatewayBuilder {
    settings: Settings,
    sources: Vec<Arc<dyn ToolSource>>,
    conformance: bool,
}

impl std::fmt::Debug for GatewayBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sources: Vec<&str> = self.sources.iter().map(|s| s.name()).collect();
        f.debug_struct("GatewayBuilder")
            .field("settings", &self.settings)
            .field("sources", &sources)
            .field("conformance", &self.conformance)
            .finish()
    }
}

impl GatewayBuilder {
    /// A gateway configured by `settings` ([`Settings::load`], [`Settings::from_text`]).
    pub fn from_settings(settings: Settings) -> Self {
        Self { settings, sources: Vec::new(), conformance: false }
    }

    /// Also serves the tools (and resources and prompts) of `source`.
    pub fn source(mut self, source: impl ToolSource) -> Self {
        self.sources.push(Arc::new(source));
        self
    }

    /// Also serves the fixtures the official MCP conformance suite calls (for testing
    /// toolwire itself).
    pub fn conformance_fixtures(mut self, on: bool) -> Self {
        self.conformance = on;
        self
    }

    /// The settings it builds from.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Loads the sources and opens the result store (and, with OAuth, fetches the issuer's keys
    /// when it is up). A configuration that cannot serve is exit code 2, a store that does not
    /// open exit code 1 ([`Failure`]).
    pub async fn build(self) -> Result<Gateway, Failure> {
        // This gateway's own limits and counters: shared by its tools, its calls and its ops.
        let metrics = Arc::new(metrics::Metrics::new());
        let work = Work::default();
        let (catalog, fixtures) = self.catalog(&work, &metrics)?;
        self.join_upstreams(&catalog, &metrics).await?;
        self.join_openapi(&catalog, &work, &metrics).await?;
        let settings = self.settings;
        let stored = open_store(&settings).await?;
        let config = GatewayConfig::builder(stored.clone())
            .work(work)
            .phase(settings.phase)
            .mapper(mapper(&settings)?)
            .link_ttl(settings.link_ttl)
            .offload_fallback(settings.offload_fallback)
            .default_principal(if settings.stdio {
                Principal::local()
            } else {
                Principal::anonymous()
            })
            .observer(metrics.clone())
            .hosts(settings.hosts.clone())
            .tasks(settings.tasks)
            .build();
        let server = McpServer::new(toolwire_mcp::Gateway::new(catalog, config));
        let server = match &fixtures {
            Some(fixtures) => fixtures.extend(server),
            None => server,
        };
        let auth = Arc::new(auth::Auth::from_settings(&settings));
        if let Some(oauth) = auth.oauth() {
            // Keys are fetched now when the issuer is up, else on the first token (and /readyz).
            match oauth.refresh().await {
                Ok(keys) => {
                    tracing::info!(keys, issuer = %oauth.settings().issuer, "OAuth keys loaded")
                }
                Err(error) => tracing::warn!(%error, "OAuth keys not loaded yet"),
            }
        }
        // 2025-11-25's task status notifications go out on the peer each session initialized.
        let experimental = Arc::new(crate::experimental::http::Sessions::default());
        let server = server.with_handshakes(crate::experimental::http::Peers(experimental.clone()));
        let sessions = Arc::new(sessions::CappedSessions::new(
            &settings.transport,
            server.clone(),
            experimental,
        ));
        Ok(Gateway {
            settings,
            server,
            stored,
            metrics,
            auth,
            sessions,
            drain: CancellationToken::new(),
            stop: CancellationToken::new(),
        })
    }

    /// What `toolwire serve --check` prints: everything [`GatewayBuilder::build`] would load,
    /// checked, and a summary of what would be served; whatever would stop the gateway is exit
    /// code 2.
    pub async fn check(self) -> Result<String, Failure> {
        // Nothing is called, so the limits and counters are only what building the tools needs.
        let (work, metrics) = (Work::default(), Arc::new(metrics::Metrics::new()));
        let (catalog, _) = self.catalog(&work, &metrics).map_err(|e| Failure::input(e.message))?;
        let mut sources: Vec<String> = self
            .join_upstreams(&catalog, &metrics)
            .await?
            .iter()
            .map(|(name, revision, health)| match health {
                SourceHealth::Ready => format!(
                    "upstream {name}: connected at {}",
                    revision.as_deref().unwrap_or("an unknown revision")
                ),
                SourceHealth::Unavailable(why) => {
                    format!("upstream {name}: not connected ({why}); serve would keep trying")
                }
                _ => format!("upstream {name}: {health:?}"),
            })
            .collect();
        for report in self.join_openapi(&catalog, &work, &metrics).await? {
            sources.push(format!(
                "openapi {}: {} tool(s) from {} calling {}; {} operation(s) skipped, {} left out by writes or operations",
                report.0,
                report.1.tools.len(),
                report.1.spec,
                report.1.base_url,
                report.1.skipped.len(),
                report.1.left_out
            ));
            sources.extend(report.1.skipped.iter().map(|s| format!("  skipped {s}")));
        }
        mapper(&self.settings)?;
        let stored = open_store(&self.settings).await.map_err(|e| Failure::input(e.message))?;
        let names = catalog.names();
        let tools: Vec<&str> = names.iter().map(String::as_str).collect();
        ops::check(&self.settings, &tools, &sources, &stored).await.map_err(Failure::input)
    }

    /// Starts a source for each `[[upstreams]]` and adds it to `catalog` once its first attempt
    /// to connect ended (all are tried at the same time). An upstream that cannot be reached
    /// does not stop the gateway (DESIGN §15): it joins without tools and keeps being tried.
    /// Hands back each upstream's revision and health after that first attempt.
    async fn join_upstreams(
        &self,
        catalog: &Catalog,
        metrics: &Arc<metrics::Metrics>,
    ) -> Result<Vec<(String, Option<String>, SourceHealth)>, Failure> {
        let started: Vec<_> = self
            .settings
            .upstreams
            .iter()
            .map(|upstream| upstreams::UpstreamSource::start(upstream.clone(), Arc::clone(metrics)))
            .collect();
        let mut health = Vec::with_capacity(started.len());
        for upstream in started {
            upstream.first_attempt().await;
            health.push((upstream.name().to_owned(), upstream.revision(), upstream.health()));
            catalog.add(upstream).map_err(|e| Failure::input(format!("upstreams: {e}")))?;
        }
        Ok(health)
    }

    /// Loads each `[[openapi]]` document (all at the same time) and adds its tools to
    /// `catalog`. A document that cannot be read or used stops the gateway (DESIGN §16); its
    /// operations that cannot become tools do not. Hands back each entry's load report.
    async fn join_openapi(
        &self,
        catalog: &Catalog,
        work: &Work,
        metrics: &Arc<metrics::Metrics>,
    ) -> Result<Vec<(String, Arc<openapi::LoadReport>)>, Failure> {
        let file =
            self.settings.file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default();
        let loads = self
            .settings
            .openapi
            .iter()
            .map(|entry| openapi::OpenApiSource::load(entry, work, metrics));
        let mut reports = Vec::new();
        for loaded in futures::future::join_all(loads).await {
            let source = loaded.map_err(|e| Failure::input(format!("{file}{e}")))?;
            reports.push((source.name().to_owned(), source.report_arc()));
            catalog.add(source).map_err(|e| Failure::input(format!("{file}{e}")))?;
        }
        Ok(reports)
    }

    /// The catalog of every source: the demo tools (when on), the app tools, the conformance
    /// fixtures (when asked for), then the sources given to the builder.
    fn catalog(
        &self,
        work: &Work,
        metrics: &Arc<metrics::Metrics>,
    ) -> Result<(Catalog, Option<Conformance>), Failure> {
        let settings = &self.settings;
        let catalog = Catalog::new();
        let file = settings.file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default();
        let refused = |e: toolwire_mcp::CatalogError| Failure::input(format!("{file}{e}"));
        if settings.demo_tools {
            let demo = demo::Demo::new().map_err(|e| Failure::check(format!("demo tools: {e}")))?;
            catalog.add(demo).map_err(refused)?;
        }
        let apps = app_tools::AppTools::new(&settings.tools, work, metrics)
            .map_err(|e| Failure::input(format!("{file}{e}")))?;
        catalog.add(apps).map_err(refused)?;
        let fixtures = if self.conformance {
            let fixtures = Conformance::new()
                .map_err(|e| Failure::check(format!("conformance fixtures: {e}")))?;
            catalog
                .add(fixtures.clone())
                .map_err(|e| Failure::check(format!("conformance fixtures: {e}")))?;
            Some(fixtures)
        } else {
            None
        };
        for source in &self.sources {
            catalog.add(Arc::clone(source)).map_err(refused)?;
        }
        Ok((catalog, fixtures))
    }
}

/// A built gateway: mount [`Gateway::router`] in an axum app, or let it serve on its own.
pub struct Gateway {
    settings: Settings,
    server: McpServer,
    stored: StoredResults,
    metrics: Arc<metrics::Metrics>,
    auth: Arc<auth::Auth>,
    sessions: Arc<sessions::CappedSessions>,
    /// Cancelled when the drain begins: open `GET` streams end.
    drain: CancellationToken,
    /// Cancelled when serving ends: rmcp's sessions and streams stop.
    stop: CancellationToken,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("catalog", self.catalog())
            .field("listen", &self.settings.listen)
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// The tools of every source.
    pub fn catalog(&self) -> &Catalog {
        self.server.gateway().catalog()
    }

    /// The rmcp handler (for a transport of the user's own: stdio, an in-memory stream).
    pub fn mcp_server(&self) -> McpServer {
        self.server.clone()
    }

    /// The routes: `/mcp` (and below it) behind authentication, the OAuth discovery document
    /// when OAuth is configured, `/console` when the settings serve it, and `/healthz`, `/readyz` and the metrics path unless the
    /// settings serve them on their own address (`ops.listen`, see [`Gateway::ops_router`]).
    pub fn router(&self) -> axum::Router {
        let router = self.mcp_router();
        match self.settings.ops.listen {
            None => router.merge(self.ops_router()),
            Some(_) => router,
        }
    }

    /// `/healthz`, `/readyz` and the metrics path, behind authentication when the settings ask
    /// for it (`ops.require_auth`).
    pub fn ops_router(&self) -> axum::Router {
        let ops = ops::router(
            &self.settings.ops.metrics_path,
            ops::Ops {
                stored: self.stored.clone(),
                auth: self.auth.clone(),
                sessions: self.sessions.clone(),
                metrics: self.metrics.clone(),
                catalog: self.catalog().clone(),
            },
        );
        if self.settings.ops.require_auth {
            ops.layer(axum::middleware::from_fn_with_state(self.auth.clone(), auth::middleware))
        } else {
            ops
        }
    }

    /// Begins the drain (open `GET` streams end) and stops rmcp's sessions: for an app that
    /// mounted [`Gateway::router`] and is shutting down.
    pub fn shutdown(&self) {
        self.drain.cancel();
        self.stop.cancel();
    }

    /// `/mcp`, the OAuth discovery document and, when enabled, `/console`.
    fn mcp_router(&self) -> axum::Router {
        let settings = &self.settings;
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(settings.allowed_hosts.iter().cloned())
            .with_allowed_origins(settings.allowed_origins.iter().cloned())
            .with_cancellation_token(self.stop.child_token());
        let server = self.server.clone();
        let rmcp = Arc::new(StreamableHttpService::new(
            move || Ok(server.clone()),
            self.sessions.clone(),
            config,
        ));
        let endpoint = Arc::new(Endpoint {
            auth: self.auth.clone(),
            sessions: self.sessions.clone(),
            drain: self.drain.clone(),
            rmcp,
        });
        let router = axum::Router::new()
            .route("/mcp", axum::routing::any(mcp))
            .route("/mcp/", axum::routing::any(mcp))
            .route("/mcp/{*rest}", axum::routing::any(mcp))
            .with_state(endpoint)
            .merge(auth::discovery(self.auth.clone()));
        if settings.console {
            let console = Console::new(self.server.clone(), self.auth.clone(), settings);
            router.merge(console::router(console))
        } else {
            router
        }
    }

    /// Serves as the settings say — Streamable HTTP on `listen` (the ops routes on their own
    /// address when `ops.listen` is set), or stdio — until Ctrl-C or SIGTERM, then drains.
    /// `on_serving` runs once the gateway serves (`toolwire serve` starts buffering its logs
    /// then).
    pub async fn serve(self, on_serving: impl FnOnce()) -> Result<(), Failure> {
        let tools = self.catalog().len();
        let legacy = self.server.gateway().clone();
        let server = self.server.clone();
        let outcome = if self.settings.stdio {
            self.serve_stdio(on_serving).await
        } else {
            self.serve_http(on_serving).await
        };
        // Tasks still running after the drain end `failed`, saying why, rather than expire.
        server.abandon_tasks().await;
        tracing::info!(tools, legacy_results = legacy.legacy_results(), "toolwire stopped");
        outcome
    }

    async fn serve_stdio(self, on_serving: impl FnOnce()) -> Result<(), Failure> {
        let mut signals = listener::Signals::new();
        tracing::info!("toolwire serving MCP on stdio");
        on_serving();
        // rmcp serves the pump's end of a pipe; the pump reads stdin and writes stdout
        // (2025-11-25's experimental tasks, `crate::experimental`).
        let (stdin, stdout) = rmcp::transport::stdio();
        let pump = crate::experimental::stdio::pump(self.server.clone(), stdin, stdout);
        let running = self
            .server
            .serve(pump.rmcp)
            .await
            .map_err(|e| Failure::check(format!("stdio: {e}")))?;
        let token = running.cancellation_token();
        let quit = tokio::select! {
            quit = running.waiting() => quit.map(drop),
            () = signals.recv() => {
                token.cancel();
                Ok(())
            }
        };
        // What rmcp wrote last reaches stdout before the process ends.
        let _ = tokio::time::timeout(STDOUT_GRACE, pump.written).await;
        quit.map_err(|e| Failure::check(format!("stdio: {e}")))
    }

    async fn serve_http(self, on_serving: impl FnOnce()) -> Result<(), Failure> {
        let settings = &self.settings;
        let listener = tokio::net::TcpListener::bind(settings.listen)
            .await
            .map_err(|e| Failure::check(format!("cannot listen on {}: {e}", settings.listen)))?;
        let address = listener
            .local_addr()
            .map_err(|e| Failure::check(format!("cannot listen on {}: {e}", settings.listen)))?;
        let signals = listener::Signals::new();
        let app = self.mcp_router();
        let app = match settings.ops.listen {
            None => app.merge(self.ops_router()),
            Some(at) => {
                serve_ops(at, self.ops_router(), self.stop.clone()).await?;
                app
            }
        };
        if let Some(warning) = exposure_warning(settings, address) {
            tracing::warn!("{warning}");
        }
        tracing::info!("toolwire serving MCP on http://{address}/mcp");
        on_serving();
        let control = listener::Control {
            signals,
            drain: self.drain.clone(),
            stop: self.stop.clone(),
            metrics: self.metrics.clone(),
        };
        listener::serve(listener, app, &settings.transport, control).await;
        Ok(())
    }
}

async fn open_store(settings: &Settings) -> Result<StoredResults, Failure> {
    let config = match &settings.store {
        StoreKind::Redb => match StoreConfig::redb(&settings.data_dir) {
            StoreConfig::Redb { data_dir, options } => {
                StoreConfig::Redb { data_dir, options: options.cache_size(settings.cache_size) }
            }
            other => other,
        },
        StoreKind::Memory => StoreConfig::Memory,
        StoreKind::Redis(url) => match &settings.store_ca_pem {
            Some(pem) => StoreConfig::redis_with_ca(url, pem.clone()),
            None => StoreConfig::redis(url),
        },
    };
    let keys = match &settings.signing_keys_env {
        Some(var) => {
            let json = std::env::var(var).map_err(|_| {
                Failure::input(format!("store.signing_keys_env: the variable {var} is not set"))
            })?;
            Some(KeySet::from_json(&json, var).map_err(|e| Failure::input(e.to_string()))?)
        }
        None => None,
    };
    StoredResults::open_with_quota(&config, keys, settings.quota).await.map_err(|e| match e {
        OpenError::Keys(keys) => Failure::input(format!("signing keys: {keys}")),
        other => Failure::check(format!("cannot open the result store: {other}")),
    })
}

pub(crate) fn mapper(settings: &Settings) -> Result<OutputMapper, Failure> {
    let mut config = MapperConfig::default()
        .with_prefix(&settings.prefix)
        .map_err(|e| Failure::input(format!("prefix: {e}")))?
        .with_server_info(&settings.server_name, env!("CARGO_PKG_VERSION"))
        .with_validation(settings.validation);
    for (target, limit) in &settings.limits {
        config = config.with_limit(*target, usize::try_from(*limit).ok());
    }
    Ok(OutputMapper::new(config))
}

/// The warning due when requests without a token are served on an address other hosts can
/// reach: anyone there can call every tool open to `anonymous`.
fn exposure_warning(settings: &Settings, address: std::net::SocketAddr) -> Option<String> {
    let anonymous = !settings.auth_configured || settings.anonymous;
    (anonymous && !address.ip().is_loopback()).then(|| {
        format!(
            "anonymous access is served on {address}, which is not a loopback address: anyone who can reach it may call the tools open to anonymous; configure [[auth.tokens]] without [auth] anonymous, or listen on 127.0.0.1"
        )
    })
}

/// `/healthz`, `/readyz` and the metrics on their own address, until `stop`.
async fn serve_ops(
    at: std::net::SocketAddr,
    ops: axum::Router,
    stop: CancellationToken,
) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(at)
        .await
        .map_err(|e| Failure::check(format!("ops.listen: cannot listen on {at}: {e}")))?;
    let address = listener.local_addr().map_err(|e| Failure::check(format!("ops.listen: {e}")))?;
    tracing::info!("toolwire serving health and metrics on http://{address}");
    tokio::spawn(async move {
        let served = axum::serve(listener, ops)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await;
        if let Err(error) = served {
            tracing::error!(%error, "the health and metrics listener stopped");
        }
    });
    Ok(())
}

/// `/mcp` (and, as before, any path below it): what stands in front of rmcp's Streamable HTTP
/// service, and that service, shared. One handler instead of a middleware layer and a nested
/// service: a layer costs every request a boxed future and a clone of the service behind it,
/// and rmcp's own `Service::call` clones the service, its configuration included.
struct Endpoint {
    auth: Arc<auth::Auth>,
    sessions: Arc<sessions::CappedSessions>,
    drain: CancellationToken,
    rmcp: Arc<StreamableHttpService<McpServer, sessions::CappedSessions>>,
}

impl Endpoint {
    /// rmcp's answer to `request`. Boxed as rmcp boxes it behind its own `Service::call`: the
    /// box is made holding only the service and the request, where an unboxed future (about
    /// 7 KiB) would be copied whole into every future that awaits it, and into axum's box.
    fn serve(
        &self,
        request: axum::extract::Request,
    ) -> futures::future::BoxFuture<'static, axum::response::Response> {
        let rmcp = Arc::clone(&self.rmcp);
        Box::pin(async move { rmcp.handle(request).await.map(axum::body::Body::new) })
    }
}

/// Authentication, then a session `DELETE` answered as clients expect ([`sessions::delete`]),
/// `GET` streams that end when the drain begins, and everything else straight to rmcp.
async fn mcp(
    axum::extract::State(endpoint): axum::extract::State<Arc<Endpoint>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let request = match auth::admit(&endpoint.auth, request).await {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    match *request.method() {
        http::Method::GET => end_on_drain(endpoint.serve(request).await, &endpoint.drain),
        http::Method::DELETE => {
            sessions::delete(&endpoint.sessions, request, |r| endpoint.serve(r)).await
        }
        _ => match crate::experimental::http::answer(
            &endpoint.sessions.experimental,
            endpoint.sessions.server(),
            request,
        )
        .await
        {
            Ok(answered) => answered,
            Err(request) => endpoint.serve(request).await,
        },
    }
}

/// A `GET` stream (the standalone SSE stream of a session) never ends by itself: it ends when
/// the drain begins, so it does not hold shutdown for the whole grace period. Answers to calls
/// (`POST`) are left to finish.
fn end_on_drain(
    response: axum::response::Response,
    drain: &CancellationToken,
) -> axum::response::Response {
    use futures::StreamExt as _;
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().take_until(drain.clone().cancelled_owned());
    axum::response::Response::from_parts(parts, axum::body::Body::from_stream(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;

    fn settings(config: bool, anonymous: bool) -> Settings {
        let overrides = Overrides::default();
        let Ok(mut s) = Settings::load(&overrides, &|_| None) else { panic!("defaults refused") };
        s.auth_configured = config;
        s.anonymous = anonymous;
        s
    }

    #[test]
    fn anonymous_access_on_a_non_loopback_address_is_warned_about() {
        let open = "0.0.0.0:8080".parse().unwrap_or_else(|e| panic!("{e}"));
        let lan = "192.168.1.5:8080".parse().unwrap_or_else(|e| panic!("{e}"));
        let loopback = "127.0.0.1:8080".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            exposure_warning(&settings(false, false), open).as_deref(),
            Some(
                "anonymous access is served on 0.0.0.0:8080, which is not a loopback address: anyone who can reach it may call the tools open to anonymous; configure [[auth.tokens]] without [auth] anonymous, or listen on 127.0.0.1"
            )
        );
        assert!(exposure_warning(&settings(true, true), lan).is_some());
        assert_eq!(exposure_warning(&settings(true, false), open), None);
        assert_eq!(exposure_warning(&settings(false, false), loopback), None);
        assert_eq!(
            exposure_warning(&settings(true, true), "[::1]:9".parse().unwrap_or(loopback)),
            None
        );
    }
}
