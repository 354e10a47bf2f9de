//! `toolwire parse`: stdin (v1, legacy envelope, anything) → the v1 form on stdout.

use toolwire_core::{parse_any, v1};

use super::{Failure, InputArgs, print_line, read_stdin};

/// Runs the command: reads standard input, drops one trailing `\n` or `\r\n` (what a shell or
/// an editor adds), parses it and prints the v1 form. Bad input exits 2 with one line saying
/// what is wrong and where.
pub(crate) fn run(input: InputArgs) -> Result<(), Failure> {
    let input = read_stdin(input.max_input)?;
    let result = parse_any(strip_one_newline(&input))
        .map_err(|err| Failure::input(format!("parse: {err}")))?;
    print_line(&v1::to_string(&result))
}

/// The input minus one trailing `\r\n` or `\n`.
fn strip_one_newline(input: &[u8]) -> &[u8] {
    input.strip_suffix(b"\r\n").or_else(|| input.strip_suffix(b"\n")).unwrap_or(input)
}

#[cfg(test)]
mod tests {
    use super::strip_one_newline;

    #[test]
    fn strips_exactly_one_line_ending() {
        assert_eq!(strip_one_newline(b"x\n"), b"x");
        assert_eq!(strip_one_newline(b"x\r\n"), b"x");
        assert_eq!(strip_one_newline(b"x\n\n"), b"x\n");
        assert_eq!(strip_one_newline(b"x\r"), b"x\r");
        assert_eq!(strip_one_newline(b""), b"");
    }
}
