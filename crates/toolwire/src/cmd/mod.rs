//! One module per command; each returns `Ok(())` or a [`Failure`] with its exit code.

pub mod check;
pub mod parse;
pub mod read;
pub mod render;
pub mod schema;
pub mod validate;

use std::io::{self, Read, Write};

/// A command that did not succeed: the exit code and the one line for standard error.
#[derive(Debug)]
pub struct Failure {
    /// 1 a check said no, 2 bad input or flags or config, 3 over the limit without a store.
    pub code: u8,
    /// One line saying what is wrong and where.
    pub message: String,
}

impl Failure {
    /// Exit 1: a check said no.
    #[allow(dead_code, reason = "exit 1 belongs to validate and read, which arrive later")]
    pub fn check(message: impl Into<String>) -> Self {
        Self { code: 1, message: message.into() }
    }

    /// Exit 2: bad input, a refused declaration, a bad flag or a bad config.
    pub fn input(message: impl Into<String>) -> Self {
        Self { code: 2, message: message.into() }
    }
}

/// Reads all of standard input as bytes.
pub fn read_stdin() -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|err| Failure::input(format!("cannot read standard input: {err}")))?;
    Ok(bytes)
}

/// Prints one result line (compact JSON plus a newline) on standard output.
pub fn print_line(line: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|err| Failure { code: 1, message: format!("cannot write standard output: {err}") })
}
