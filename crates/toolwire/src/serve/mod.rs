//! `toolwire serve`: the gateway. Every MCP revision on one endpoint, over Streamable HTTP
//! (default `127.0.0.1:8080/mcp`) or stdio, with the demo tools and the app tools of
//! `toolwire.toml`.

mod app_tools;
mod auth;
mod config;
mod demo;
mod png;

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use toolwire_core::{MapperConfig, OutputMapper, Target};
use toolwire_mcp::conformance::Conformance;
use toolwire_mcp::{Gateway, GatewayConfig, McpServer, Principal, Registry};
use toolwire_store::{KeySet, OpenError, StoreConfig, StoredResults};

use crate::cmd::Failure;
use config::{Overrides, Settings, StoreKind};

/// `toolwire serve` flags (each over the config file).
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The configuration file (toolwire.toml).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address for Streamable HTTP (default 127.0.0.1:8080; port 0 picks a free one).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Serve MCP over standard input and output instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// Where the embedded store and its signing keys live (default ./toolwire-data).
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// compat (envelope first) or spec; else TOOLWIRE_PHASE, else the file, else compat.
    #[arg(long, value_name = "PHASE")]
    phase: Option<String>,
    /// Also serve the fixtures the official MCP conformance suite calls (for testing toolwire).
    #[arg(long)]
    conformance: bool,
}

/// Runs the gateway until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> Result<(), Failure> {
    let fixtures = args.conformance.then(Conformance::new);
    let overrides = Overrides {
        config: args.config,
        listen: args.listen,
        stdio: args.stdio,
        data_dir: args.data_dir,
        phase: args.phase,
    };
    let settings = Settings::load(&overrides, &|name| std::env::var(name).ok())
        .map_err(|e| Failure::input(e.to_string()))?;
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::check(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(serve(settings, fixtures))
}

/// Logs go to standard error only: over stdio, standard output carries nothing but JSON-RPC.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TOOLWIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(filter)
        .init();
}

async fn open_store(settings: &Settings) -> Result<StoredResults, Failure> {
    let config = match &settings.store {
        StoreKind::Redb => StoreConfig::redb(&settings.data_dir),
        StoreKind::Memory => StoreConfig::Memory,
        StoreKind::Redis(url) => StoreConfig::redis(url),
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
    for (revision, limit) in &settings.limits {
        config = config.with_limit(Target::Mcp(*revision), usize::try_from(*limit).ok());
    }
    Ok(OutputMapper::new(config))
}

fn registry(settings: &Settings) -> Result<Registry, Failure> {
    let mut registry = Registry::new();
    if settings.demo_tools {
        demo::register(&mut registry, &demo::catalog())
            .map_err(|e| Failure::check(format!("demo tools: {e}")))?;
    }
    let file = settings.file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default();
    app_tools::register(&mut registry, &settings.tools)
        .map_err(|e| Failure::input(format!("{file}{e}")))?;
    Ok(registry)
}

async fn serve(settings: Settings, fixtures: Option<Conformance>) -> Result<(), Failure> {
    let mut registry = registry(&settings)?;
    if let Some(fixtures) = &fixtures {
        fixtures
            .register_tools(&mut registry)
            .map_err(|e| Failure::check(format!("conformance fixtures: {e}")))?;
    }
    let stored = open_store(&settings).await?;
    let mut config = GatewayConfig::new(stored);
    config.phase = settings.phase;
    config.mapper = mapper(&settings)?;
    config.server_name = settings.server_name.clone();
    config.link_ttl = settings.link_ttl;
    config.offload_fallback_inline = settings.offload_fallback_inline;
    config.default_principal =
        if settings.stdio { Principal::local() } else { Principal::anonymous() };
    config.conformance = fixtures;
    let tools = registry.len();
    let gateway = Gateway::new(registry, config);
    let server = McpServer::new(gateway.clone());
    let outcome = if settings.stdio {
        serve_stdio(server).await
    } else {
        serve_http(server, &settings).await
    };
    tracing::info!(tools, legacy_results = gateway.legacy_results(), "toolwire stopped");
    outcome
}

async fn serve_stdio(server: McpServer) -> Result<(), Failure> {
    tracing::info!("toolwire serving MCP on stdio");
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Failure::check(format!("stdio: {e}")))?;
    let token = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => {
            quit.map_err(|e| Failure::check(format!("stdio: {e}")))?;
        }
        () = shutdown_signal() => token.cancel(),
    }
    Ok(())
}

async fn serve_http(server: McpServer, settings: &Settings) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .map_err(|e| Failure::check(format!("cannot listen on {}: {e}", settings.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|e| Failure::check(format!("cannot listen on {}: {e}", settings.listen)))?;
    let stop = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(settings.allowed_hosts.iter().cloned())
        .with_allowed_origins(settings.allowed_origins.iter().cloned())
        .with_cancellation_token(stop.child_token());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let auth = Arc::new(auth::Auth::from_settings(settings));
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(auth, auth::middleware));
    tracing::info!("toolwire serving MCP on http://{address}/mcp");
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            stop.cancel();
        })
        .await
        .map_err(|e| Failure::check(format!("http: {e}")))
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}
