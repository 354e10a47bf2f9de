//! An existing axum app that mounts the toolwire gateway on `/mcp`: its own route (`/hello`)
//! stays as it was; beside it the gateway serves the app's own tool source (a greeter written
//! in Rust), the demo catalog and the app tools of the configuration, with whatever the
//! configuration turns on (OAuth, metrics on `/metrics`, probes).
//!
//! Usage: `embed LISTEN_ADDRESS CONFIG_FILE` (for example `embed 127.0.0.1:8080 toolwire.toml`);
//! it serves until Ctrl-C or SIGTERM.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwire_gateway::{GatewayBuilder, Overrides, Settings};
use toolwire_mcp::rmcp::model::ToolAnnotations;
use toolwire_mcp::{Registry, RegistryError, ToolError, ToolSource, ToolSpec};

/// `greet` arguments.
#[derive(Deserialize, JsonSchema)]
struct GreetInput {
    /// Who to greet.
    name: String,
}

/// What `greet` returns.
#[derive(Serialize, JsonSchema)]
struct Greeting {
    /// The greeting.
    greeting: String,
}

/// The app's own tool source: one typed Rust tool.
struct Greeter {
    tools: Registry,
}

impl Greeter {
    fn new() -> Result<Self, RegistryError> {
        let mut tools = Registry::named("greeter");
        tools.register_typed(
            ToolSpec::new("greet", "Greets someone by name.")
                .title("Greet")
                .annotations(ToolAnnotations::new().read_only(true)),
            |input: GreetInput| async move {
                if input.name.trim().is_empty() {
                    return Err(ToolError::invalid_arguments(
                        "Say who to greet.",
                        [("/name", "is empty")],
                    ));
                }
                Ok(Greeting { greeting: format!("Hello, {}!", input.name) })
            },
        )?;
        Ok(Self { tools })
    }
}

impl ToolSource for Greeter {
    fn name(&self) -> &str {
        "greeter"
    }

    fn tools(&self) -> Registry {
        self.tools.clone()
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(listen), Some(config)) = (args.next(), args.next()) else {
        return Err("usage: embed LISTEN_ADDRESS CONFIG_FILE".into());
    };
    let overrides = Overrides { config: Some(PathBuf::from(config)), ..Overrides::default() };
    let settings = Settings::load(&overrides, &|name| std::env::var(name).ok())?;
    let gateway = GatewayBuilder::from_settings(settings).source(Greeter::new()?).build().await?;

    // The app as it was, with the gateway's routes merged in.
    let app = axum::Router::new()
        .route("/hello", axum::routing::get(|| async { "hello from the host app" }))
        .merge(gateway.router());
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    println!("serving on http://{}", listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            gateway.shutdown();
        })
        .await?;
    Ok(())
}
