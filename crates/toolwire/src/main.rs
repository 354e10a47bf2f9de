//! The `toolwire` command line: parse, render, validate and publish tool results, read stored
//! results, and run the gateway.

mod check;
mod cmd;
mod serve;
mod tls;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolwire_core::{Shape, Target};

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
    Serve(serve::ServeArgs),
    /// Audit any MCP server (a URL, or a command after `--`) at every revision it offers and
    /// for every host profile; prints a table tool × revision, exit 1 on any violation.
    Check(cmd::check::CheckArgs),
}

fn main() -> ExitCode {
    // Before anything builds an HTTP client or connects to Redis over TLS.
    tls::install_crypto_provider();
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
        Command::Serve(args) => serve::run(args),
        Command::Check(args) => cmd::check::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("toolwire: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
