//! toolwire-gateway: the gateway as a library. Every MCP revision on one endpoint, over
//! Streamable HTTP (default `127.0.0.1:8080/mcp`) or stdio, with the demo tools and the app tools
//! of `toolwire.toml`, auth and OAuth, transport limits and drain, sessions, metrics and probes.
//!
//! A Rust user embeds it with a [`GatewayBuilder`]: the settings, the demo catalog and app
//! tools they name, and the user's own [`ToolSource`](toolwire_mcp::ToolSource)s, built into a
//! [`Gateway`] whose router goes into the user's axum app (`examples/embed.rs`). The
//! `toolwire serve` command is a thin shell over [`run`], which goes through the same builder.
//!
//! Nothing here is process-wide: each gateway has its own metrics and work limits, and its HTTP
//! clients name their rustls provider (ring). A `rediss://` result store takes the process's
//! default rustls provider, which the application installs once at start (the `toolwire` binary
//! does); the library never installs one.

mod app_tools;
mod auth;
pub mod config;
mod conformance;
pub mod console;
mod demo;
mod error;
mod experimental;
mod gateway;
mod listener;
mod logging;
mod metrics;
mod oauth;
pub mod openapi;
mod ops;
mod outbound;
mod png;
mod sessions;
mod tls;
mod upstreams;

pub use app_tools::{AppToolError, AppTools};
pub use config::{ConfigError, MAX_LINK_TTL_SECS, Overrides, Settings};
pub use demo::Demo;
pub use error::Failure;
pub use gateway::{Gateway, GatewayBuilder};
pub use metrics::{ConnectionGuard, Metrics};
pub use openapi::{OpenApiError, OpenApiSource};
pub use upstreams::{Converted, UpstreamError, UpstreamSource, convert as convert_upstream_result};

/// How long a call of a tool that waits on another server (an upstream, an API) may still be
/// answered in its request, for a client that could hold it as a task, before it becomes one —
/// unless that server says first that it works on in the background (DESIGN §17).
pub(crate) const TASK_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

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
    let builder = GatewayBuilder::from_settings(settings).conformance_fixtures(conformance);
    if check_only {
        let summary = runtime.block_on(builder.check())?;
        print!("{summary}");
        println!("ok: the configuration would serve");
        return Ok(());
    }
    let outcome = runtime.block_on(async {
        let gateway = builder.build().await?;
        gateway.serve(|| logs.gather()).await
    });
    // A blocking task still running (a slow store write) must not hold the exit.
    runtime.shutdown_background();
    outcome
}
