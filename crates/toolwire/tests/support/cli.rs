//! Runs the built `toolwire` binary for the command-line tests.
#![allow(dead_code, reason = "each test file uses the helpers it needs")]

use std::io::{ErrorKind, Write};
use std::process::{Command, Output, Stdio};

/// Runs `toolwire <args>` with `stdin` and the extra environment `env`. The variables toolwire
/// reads itself are cleared first, so a test sees only what it sets.
pub(crate) fn run(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolwire"));
    command.args(args);
    for var in ["TOOLWIRE_PHASE", "TOOLWIRE_SIGNING_KEYS", "TOOLWIRE_LOG"] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start toolwire: {err}"));
    if let Some(mut input) = child.stdin.take() {
        // A command refusing its flags exits before reading its input; that is not a failure.
        if let Err(err) = input.write_all(stdin) {
            assert_eq!(err.kind(), ErrorKind::BrokenPipe, "cannot write stdin: {err}");
        }
    }
    child.wait_with_output().unwrap_or_else(|err| panic!("toolwire did not finish: {err}"))
}

/// Standard output as text.
pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Standard error as text.
pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
