//! `toolwire schema`: an output declaration on stdin → the `outputSchema` a target publishes.

use serde_json::Value;
use toolwire_core::{Shape, Target, ToolOutput};

use super::{Failure, InputArgs, print_line, read_stdin};

/// Runs the command: prints the published schema for an MCP target (or `null` when that target
/// publishes none), the declared data schema for A2A and legacy targets (which have no
/// `outputSchema` of their own), and refuses a declaration toolwire would refuse at
/// registration with exit code 2.
pub fn run(target: Target, shape: Shape, input: InputArgs) -> Result<(), Failure> {
    let input = read_stdin(input.max_input)?;
    let declaration: Value = serde_json::from_slice(&input).map_err(|err| {
        Failure::input(format!("the declaration on standard input is not JSON: {err}"))
    })?;
    let output = ToolOutput::from_declaration(&declaration, shape)
        .map_err(|err| Failure::input(format!("declaration refused: {err}")))?;
    let schema = match target {
        Target::Mcp(revision) => output.published(revision),
        _ => output.declared().cloned(),
    };
    print_line(&schema.unwrap_or(Value::Null).to_string())
}
