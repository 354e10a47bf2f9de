//! The command-line tests: the built `toolwire` binary run as a user runs it, one module per
//! command (and one for the limits every command shares), checked on stdout, stderr and the
//! exit code. One test crate, so one test binary is compiled and linked for all of them.

#[path = "../support/cli.rs"]
mod support;

mod hosts;
mod input_limit;
mod parse;
mod read;
mod render;
mod schema;
mod validate;
mod values;
