//! The `toolwire` command line as a library: [`run`] is the whole binary (parse, render,
//! validate and publish tool results, read stored results, audit servers, run the gateway), and
//! [`ServeConfig`] is the gateway's configuration loader on text, for callers that have no file
//! (the `config_file` fuzz target). The gateway itself is the `toolwire-gateway` crate and the
//! audit the `toolwire-check` crate; this crate only parses arguments and prints.

mod cmd;

use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolwire_core::{Shape, Target};

pub use toolwire_gateway::ConfigError;

/// A `toolwire.toml` that loads: the settings `toolwire serve --config FILE` starts from when
/// no flag overrides the file. Opaque apart from the app tools it names.
pub struct ServeConfig {
    settings: toolwire_gateway::Settings,
}

impl ServeConfig {
    /// Parses `text` as the configuration file `file` and resolves it as `toolwire serve` does:
    /// every key checked, defaults applied, secrets looked up through `env` (an environment
    /// variable's value by name), and the CA files that `ca_file` keys name read. The
    /// configuration file itself is not read: `file` only names it in errors. Nothing is
    /// started, no store opened, no endpoint contacted.
    pub fn from_toml(
        text: &str,
        file: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let overrides = toolwire_gateway::Overrides::default();
        toolwire_gateway::Settings::from_text(text, file, &overrides, env)
            .map(|settings| Self { settings })
    }

    /// The names of the app tools (`[[tools]]`), in file order.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.settings.tools.iter().map(|tool| tool.name.as_str())
    }
}

/// Names the file and the tools; the settings hold secrets (tokens, header values), which
/// stay out of debug output.
impl std::fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeConfig")
            .field("file", &self.settings.file)
            .field("tools", &self.tool_names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// toolwire: one tool result, every wire format.
#[derive(Debug, Parser)]
#[command(name = "toolwire", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Read a result (v1, legacy envelope or anything) on stdin and print its v1 form.
    Parse(cmd::InputArgs),
    /// Read a result on stdin and print it rendered for one target (MCP, legacy or A2A).
    Render(Box<cmd::render::RenderArgs>),
    /// Check a wire result on stdin against the target's official schema and toolwire's wire
    /// contract; prints one `path: message` line per violation.
    Validate {
        /// legacy, mcp-<YYYY-MM-DD> (an unknown date maps to the newest revision not later than
        /// it), a2a-0.3 or a2a-1.0.
        #[arg(long, value_parser = cmd::names::target())]
        target: Target,
        /// The tool's output declaration; `structuredContent` must match what it publishes.
        #[arg(long, value_name = "FILE")]
        output_schema: Option<std::path::PathBuf>,
        /// The tool's structured shape.
        #[arg(long, default_value = "data", value_parser = cmd::names::shape())]
        shape: Shape,
        #[command(flatten)]
        input: cmd::InputArgs,
    },
    /// Read an output declaration on stdin (a typed `{"outputs": …}` document or a JSON Schema)
    /// and print the outputSchema the target publishes in tools/list, or `null` when it
    /// publishes none (before mcp-2025-06-18, or nothing declared). For legacy and A2A targets,
    /// which have no outputSchema, print the declared data schema as it is checked.
    Schema {
        /// Target: legacy, mcp-<YYYY-MM-DD> (an unknown date maps to the newest revision not
        /// later than it), a2a-0.3 or a2a-1.0.
        #[arg(long, value_parser = cmd::names::target())]
        target: Target,
        /// Structured shape.
        #[arg(long, default_value = "data", value_parser = cmd::names::shape())]
        shape: Shape,
        #[command(flatten)]
        input: cmd::InputArgs,
    },
    /// Print the data of a stored result behind a link.
    Read(cmd::read::ReadArgs),
    /// Run the gateway: every MCP revision over Streamable HTTP (default) or stdio.
    Serve(cmd::serve::ServeArgs),
    /// Audit any MCP server (a URL, or a command after `--`) at every revision it offers and
    /// for every host profile; prints a table tool × revision, exit 1 on any violation.
    Check(cmd::check::CheckArgs),
    /// List the built-in host profiles: what each host's model reads, its cap, whether it
    /// follows links, and the `clientInfo.name` values that select it.
    Hosts(cmd::hosts::HostsArgs),
}

/// Runs the command line on the process's arguments and returns its exit code: 0 done, 1 a
/// check said no, 2 bad input, flags or configuration, 3 over the limit without a store.
pub fn run() -> ExitCode {
    // Once, before anything connects: the process's default rustls provider, which the Redis
    // store's `rediss://` connections and `check`'s client take (the gateway's own clients name
    // theirs). The binary installs it; a library never does. An error only says one is there.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            match cmd::names::refused_value(&err) {
                Some(line) => eprintln!("toolwire: {line}"),
                None => {
                    let _ = err.print();
                }
            }
            return if err.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let outcome = match cli.command {
        Command::Parse(input) => cmd::parse::run(input),
        Command::Render(args) => cmd::render::run(&args),
        Command::Validate { target, output_schema, shape, input } => {
            cmd::validate::run(target, output_schema.as_deref(), shape, input)
        }
        Command::Schema { target, shape, input } => cmd::schema::run(target, shape, input),
        Command::Read(args) => cmd::read::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Hosts(args) => cmd::hosts::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("toolwire: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
