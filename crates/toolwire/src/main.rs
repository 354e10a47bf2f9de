//! The `toolwire` command line: parse, render, validate and publish tool results, read stored
//! results, and run the gateway.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    Parse,
    /// Read a result on stdin and print it rendered for one target (MCP, legacy or A2A).
    Render(Box<cmd::render::RenderArgs>),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let outcome = match cli.command {
        Command::Parse => cmd::parse::run(),
        Command::Render(args) => cmd::render::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("toolwire: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
