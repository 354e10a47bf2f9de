//! `toolwire parse`: stdin (v1, legacy envelope, anything) → the v1 form on stdout.

use super::{Failure, read_stdin};

/// Runs the command.
pub fn run() -> Result<(), Failure> {
    let _input = read_stdin()?;
    Err(Failure::input("parse is not built yet"))
}
