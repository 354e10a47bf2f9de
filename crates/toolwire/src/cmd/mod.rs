//! One module per command; each returns `Ok(())` or a [`Failure`] with its exit code.

pub(crate) mod check;
pub(crate) mod hosts;
pub(crate) mod names;
pub(crate) mod parse;
pub(crate) mod read;
pub(crate) mod render;
pub(crate) mod schema;
pub(crate) mod serve;
pub(crate) mod validate;

use std::io::{self, Read, Write};

/// A command that did not succeed: the exit code and the one line for standard error.
#[derive(Debug)]
pub(crate) struct Failure {
    /// 1 a check said no, 2 bad input or flags or config, 3 over the limit without a store.
    pub code: u8,
    /// One line saying what is wrong and where.
    pub message: String,
}

impl Failure {
    /// Exit 1: a check said no.
    #[allow(dead_code, reason = "exit 1 belongs to validate and read, which arrive later")]
    pub(crate) fn check(message: impl Into<String>) -> Self {
        Self { code: 1, message: message.into() }
    }

    /// Exit 2: bad input, a refused declaration, a bad flag or a bad config.
    pub(crate) fn input(message: impl Into<String>) -> Self {
        Self { code: 2, message: message.into() }
    }
}

/// The default bound on standard input: 64 MiB.
pub(crate) const DEFAULT_MAX_INPUT: u64 = 64 * 1024 * 1024;

/// The input bound every command reading standard input takes.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct InputArgs {
    /// The most bytes read from standard input; a longer input exits 2.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_INPUT)]
    pub max_input: u64,
}

/// Reads standard input as bytes into one buffer, refusing (exit 2) an input over `max` bytes
/// as soon as its byte `max + 1` arrives, so an unbounded input never costs more than the bound.
pub(crate) fn read_stdin(max: u64) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| Failure::input(format!("cannot read standard input: {err}")))?;
    if bytes.len() as u64 > max {
        return Err(Failure::input(format!(
            "standard input is over the input limit of {max} bytes; raise it with --max-input BYTES"
        )));
    }
    Ok(bytes)
}

/// The text of a file named by `flag` (`--output-schema`, `--cases`): a regular file of at most
/// the configuration's bound (`toolwire_gateway::config::FILE_LIMIT`, 4 MiB), in UTF-8; else exit 2
/// naming the flag, the file and what was wrong.
pub(crate) fn read_named_file(flag: &str, path: &std::path::Path) -> Result<String, Failure> {
    let fail =
        |why: String| Failure::input(format!("{flag} {}: cannot read: {why}", path.display()));
    let bytes = toolwire_store::read_limited(path, toolwire_gateway::config::FILE_LIMIT)
        .map_err(|e| fail(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| fail(e.to_string()))
}

/// Prints one result line (compact JSON plus a newline) on standard output.
pub(crate) fn print_line(line: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|err| Failure { code: 1, message: format!("cannot write standard output: {err}") })
}
