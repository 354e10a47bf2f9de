//! toolwire-gateway: the gateway as a library. Every MCP revision on one endpoint, over
//! Streamable HTTP (default `127.0.0.1:8080/mcp`) or stdio, with the demo tools and the app tools
//! of `toolwire.toml`, auth and OAuth, transport limits and drain, sessions, metrics and probes.
//!
//! The `toolwire serve` command is a thin shell over [`run`].

mod app_tools;
mod auth;
pub mod config;
mod conformance;
mod demo;
mod error;
mod listener;
mod logging;
mod metrics;
mod oauth;
mod ops;
mod png;
mod sessions;
pub mod tls;

use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use toolwire_core::{MapperConfig, OutputMapper};
use toolwire_mcp::{Catalog, Gateway, GatewayConfig, McpServer, Principal};
use toolwire_store::{KeySet, OpenError, StoreConfig, StoredResults};

use config::StoreKind;
pub use config::{ConfigError, MAX_LINK_TTL_SECS, Overrides, Settings};
use conformance::Conformance;
pub use error::Failure;

/// How `toolwire serve` was asked to run, beside the configuration overrides.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// Flags over the configuration file.
    pub overrides: Overrides,
    /// Also serve the fixtures the official MCP conformance suite calls (for testing toolwire).
    pub conformance: bool,
    /// Load and check the configuration, print what would be served, and return.
    pub check: bool,
}

/// Runs the gateway until Ctrl-C or SIGTERM.
pub fn run(options: RunOptions) -> Result<(), Failure> {
    let RunOptions { overrides, conformance, check: check_only } = options;
    let fixtures = conformance
        .then(Conformance::new)
        .transpose()
        .map_err(|e| Failure::check(format!("conformance fixtures: {e}")))?;
    let settings = Settings::load(&overrides, &|name| std::env::var(name).ok())
        .map_err(|e| Failure::input(e.to_string()))?;
    let json_logs = match std::env::var("TOOLWIRE_LOG_FORMAT").ok().as_deref() {
        None | Some("" | "text") => false,
        Some("json") => true,
        Some(other) => {
            return Err(Failure::input(format!(
                "TOOLWIRE_LOG_FORMAT: `{other}` is not a log format; expected text or json"
            )));
        }
    };
    let logs = logging::init(json_logs);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::check(format!("cannot start the runtime: {e}")))?;
    if check_only {
        return runtime.block_on(check(settings, fixtures));
    }
    let outcome = runtime.block_on(serve(settings, fixtures, &logs));
    // A blocking task still running (a slow store write) must not hold the exit.
    runtime.shutdown_background();
    outcome
}

/// `serve --check`: everything `serve` would load, then a summary instead of serving.
async fn check(settings: Settings, fixtures: Option<Conformance>) -> Result<(), Failure> {
    // Whatever would stop `serve` is a configuration that does not pass: exit 2.
    let catalog = catalog(&settings, fixtures.as_ref()).map_err(|e| Failure::input(e.message))?;
    mapper(&settings)?;
    let stored = open_store(&settings).await.map_err(|e| Failure::input(e.message))?;
    let names = catalog.names();
    let tools: Vec<&str> = names.iter().map(String::as_str).collect();
    let summary = ops::check(&settings, &tools, &stored).await.map_err(Failure::input)?;
    print!("{summary}");
    println!("ok: the configuration would serve");
    Ok(())
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

fn mapper(settings: &Settings) -> Result<OutputMapper, Failure> {
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

/// The demo tools (when on), the app tools, and the conformance fixtures (when asked for).
fn catalog(settings: &Settings, fixtures: Option<&Conformance>) -> Result<Catalog, Failure> {
    let catalog = Catalog::new();
    let file = settings.file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default();
    if settings.demo_tools {
        let demo = demo::Demo::new().map_err(|e| Failure::check(format!("demo tools: {e}")))?;
        catalog.add(demo).map_err(|e| Failure::input(format!("{file}{e}")))?;
    }
    let apps = app_tools::AppTools::new(&settings.tools)
        .map_err(|e| Failure::input(format!("{file}{e}")))?;
    catalog.add(apps).map_err(|e| Failure::input(format!("{file}{e}")))?;
    if let Some(fixtures) = fixtures {
        catalog
            .add(fixtures.clone())
            .map_err(|e| Failure::check(format!("conformance fixtures: {e}")))?;
    }
    Ok(catalog)
}

async fn serve(
    settings: Settings,
    fixtures: Option<Conformance>,
    logs: &logging::FlushGuard,
) -> Result<(), Failure> {
    let catalog = catalog(&settings, fixtures.as_ref())?;
    let stored = open_store(&settings).await?;
    let mut config = GatewayConfig::new(stored);
    config.phase = settings.phase;
    config.mapper = mapper(&settings)?;
    config.link_ttl = settings.link_ttl;
    config.offload_fallback = settings.offload_fallback;
    config.default_principal =
        if settings.stdio { Principal::local() } else { Principal::anonymous() };
    let metrics = metrics::global().clone();
    config.observer = Some(metrics.clone());
    let stored = config.stored.clone();
    config.hosts = settings.hosts.clone();
    let tools = catalog.len();
    let gateway = Gateway::new(catalog, config);
    let server = McpServer::new(gateway.clone());
    let server = match &fixtures {
        Some(fixtures) => fixtures.extend(server),
        None => server,
    };
    let outcome = if settings.stdio {
        serve_stdio(server, logs).await
    } else {
        serve_http(server, &settings, stored, metrics, logs).await
    };
    tracing::info!(tools, legacy_results = gateway.legacy_results(), "toolwire stopped");
    outcome
}

async fn serve_stdio(server: McpServer, logs: &logging::FlushGuard) -> Result<(), Failure> {
    let mut signals = listener::Signals::new();
    tracing::info!("toolwire serving MCP on stdio");
    logs.gather();
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Failure::check(format!("stdio: {e}")))?;
    let token = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => {
            quit.map_err(|e| Failure::check(format!("stdio: {e}")))?;
        }
        () = signals.recv() => token.cancel(),
    }
    Ok(())
}

async fn serve_http(
    server: McpServer,
    settings: &Settings,
    stored: StoredResults,
    metrics: Arc<metrics::Metrics>,
    logs: &logging::FlushGuard,
) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .map_err(|e| Failure::check(format!("cannot listen on {}: {e}", settings.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|e| Failure::check(format!("cannot listen on {}: {e}", settings.listen)))?;
    let signals = listener::Signals::new();
    let stop = CancellationToken::new();
    let drain = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(settings.allowed_hosts.iter().cloned())
        .with_allowed_origins(settings.allowed_origins.iter().cloned())
        .with_cancellation_token(stop.child_token());
    let sessions = Arc::new(sessions::CappedSessions::new(&settings.transport));
    let rmcp =
        Arc::new(StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config));
    let auth = Arc::new(auth::Auth::from_settings(settings));
    if let Some(oauth) = auth.oauth() {
        // Keys are fetched now when the issuer is up, else on the first token (and /readyz).
        match oauth.refresh().await {
            Ok(keys) => {
                tracing::info!(keys, issuer = %oauth.settings().issuer, "OAuth keys loaded")
            }
            Err(error) => tracing::warn!(%error, "OAuth keys not loaded yet"),
        }
    }
    let ops = ops::router(
        &settings.ops.metrics_path,
        ops::Ops { stored, auth: auth.clone(), sessions: sessions.clone(), metrics },
    );
    let ops = if settings.ops.require_auth {
        ops.layer(axum::middleware::from_fn_with_state(auth.clone(), auth::middleware))
    } else {
        ops
    };
    let endpoint = Arc::new(Endpoint { auth: auth.clone(), sessions, drain: drain.clone(), rmcp });
    let mut app = axum::Router::new()
        .route("/mcp", axum::routing::any(mcp))
        .route("/mcp/", axum::routing::any(mcp))
        .route("/mcp/{*rest}", axum::routing::any(mcp))
        .with_state(endpoint)
        .merge(auth::discovery(auth));
    match settings.ops.listen {
        None => app = app.merge(ops),
        Some(at) => serve_ops(at, ops, stop.clone()).await?,
    }
    if let Some(warning) = exposure_warning(settings, address) {
        tracing::warn!("{warning}");
    }
    tracing::info!("toolwire serving MCP on http://{address}/mcp");
    logs.gather();
    let control = listener::Control { signals, drain, stop };
    listener::serve(listener, app, &settings.transport, control).await;
    Ok(())
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
        _ => endpoint.serve(request).await,
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
