//! `toolwire validate`: stdin wire result → every violation of the target's official schema and
//! toolwire's wire contract, one `path: message` line each on stdout.
//!
//! Exit 0 and no output when the result is valid; 1 when it has violations; 2 for a bad flag,
//! unreadable input or an `--output-schema` file that is not a usable declaration.

use std::path::Path;

use toolwire_check::wire;
use toolwire_core::{Shape, Target, ToolOutput};

use super::{Failure, InputArgs, read_stdin};

/// Runs the command.
pub(crate) fn run(
    target: Target,
    output_schema: Option<&Path>,
    shape: Shape,
    input: InputArgs,
) -> Result<(), Failure> {
    let published = match output_schema {
        Some(path) => published_schema(path, shape, target)?,
        None => None,
    };
    let input = read_stdin(input.max_input)?;
    let text = String::from_utf8(input)
        .map_err(|err| Failure::input(format!("standard input is not UTF-8: {err}")))?;
    // `render` ends its output with one newline; it is not part of the wire result.
    let wire_text = text.strip_suffix("\r\n").or_else(|| text.strip_suffix('\n')).unwrap_or(&text);
    let violations = wire::check_with_schema(target, wire_text, published.as_ref());
    if violations.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = violations.iter().map(ToString::to_string).collect();
    super::print_line(&lines.join("\n"))?;
    Err(Failure::check(format!(
        "{} violation{} of {target}",
        violations.len(),
        if violations.len() == 1 { "" } else { "s" }
    )))
}

/// The outputSchema the tool publishes on `target`, from its declaration in `path`.
fn published_schema(
    path: &Path,
    shape: Shape,
    target: Target,
) -> Result<Option<serde_json::Value>, Failure> {
    let shown = path.display();
    let text = super::read_named_file("--output-schema", path)?;
    let declaration = serde_json::from_str(&text)
        .map_err(|err| Failure::input(format!("--output-schema {shown}: not JSON: {err}")))?;
    let output = ToolOutput::from_declaration(&declaration, shape)
        .map_err(|err| Failure::input(format!("--output-schema {shown}: {err}")))?;
    Ok(match target {
        Target::Mcp(revision) => output.published(revision),
        // Only MCP results carry `structuredContent`; the declaration is still checked above.
        _ => None,
    })
}
