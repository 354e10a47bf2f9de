//! `toolwire schema`: an output declaration on stdin → the `outputSchema` a target publishes.

use toolwire_core::{Shape, Target, ToolOutput};

use super::{Failure, InputArgs, print_line, read_stdin};

/// Runs the command: prints the published schema for an MCP target (or `null` when that target
/// publishes none), the declared data schema for A2A and legacy targets (which have no
/// `outputSchema` of their own), and refuses a declaration toolwire would refuse at
/// registration with exit code 2.
///
/// The declaration is checked as registration checks it but not compiled into a validator, so
/// memory stays within a few times the declaration (see
/// [`ToolOutput::publish_declaration_text`]).
pub(crate) fn run(target: Target, shape: Shape, input: InputArgs) -> Result<(), Failure> {
    let input = read_stdin(input.max_input)?;
    let not_json =
        |err| Failure::input(format!("the declaration on standard input is not JSON: {err}"));
    let text = match std::str::from_utf8(&input) {
        Ok(text) => text,
        // serde_json names where the bytes stop being JSON.
        Err(_) => {
            return Err(serde_json::from_slice::<serde_json::Value>(&input).err().map_or_else(
                || Failure::input("the declaration on standard input is not UTF-8".to_owned()),
                not_json,
            ));
        }
    };
    let revision = match target {
        Target::Mcp(revision) => Some(revision),
        _ => None,
    };
    let printed = ToolOutput::publish_declaration_text(text, shape, revision)
        .map_err(not_json)?
        .map_err(|err| Failure::input(format!("declaration refused: {err}")))?;
    print_line(&printed)
}
