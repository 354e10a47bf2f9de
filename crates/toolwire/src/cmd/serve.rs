//! `toolwire serve`: the flags, over the gateway library's [`toolwire_gateway::run`].

use std::path::PathBuf;

use clap::Args;
use toolwire_gateway::{Overrides, RunOptions};

use super::Failure;

/// `toolwire serve` flags (each over the config file).
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
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
    #[arg(long, value_name = "PHASE", value_parser = super::names::phase())]
    phase: Option<toolwire_core::Phase>,
    /// Also serve the fixtures the official MCP conformance suite calls (for testing toolwire).
    #[arg(long)]
    conformance: bool,
    /// Load and check the configuration (tools, schemas, auth, store), print what would be
    /// served, and exit: 0 when it would serve, 2 when not.
    #[arg(long)]
    check: bool,
}

/// Runs the gateway until Ctrl-C or SIGTERM.
pub(crate) fn run(args: ServeArgs) -> Result<(), Failure> {
    let mut options = RunOptions::default();
    options.overrides = Overrides {
        config: args.config,
        listen: args.listen,
        stdio: args.stdio,
        data_dir: args.data_dir,
        phase: args.phase,
    };
    options.conformance = args.conformance;
    options.check = args.check;
    toolwire_gateway::run(options).map_err(|e| Failure { code: e.code, message: e.message })
}
