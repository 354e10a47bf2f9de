//! The revision table is the only place MCP revisions are compared: this test reads every
//! source file of the workspace's crates (`src/`, `examples/`, `benches/`) and fails, naming
//! file and line, where an ordering comparison (`<`, `<=`, `>`, `>=`) has a revision on either
//! side: an `McpRevision::V…` constant or an expression ending in `revision` / `revision()`.
//! Behaviour that differs per revision reads a column of `toolwire_core::revision::McpCaps`.
//! Tests under `tests/` are not scanned: they state expectations independently of the table
//! (the gateway tests compare the negotiated date strings of their clients).

mod source_scan;

use std::fs;
use std::path::Path;

use source_scan::{rust_files, strip_strings_and_comments};

/// Where comparisons are the point.
const TABLE: &str = "toolwire-core/src/revision.rs";

#[test]
fn no_revision_comparison_outside_the_table() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in fs::read_dir(&crates).expect("the crates directory") {
        let dir = entry.expect("a crate directory").path();
        for sub in ["src", "examples", "benches"] {
            rust_files(&dir.join(sub), &mut files);
        }
    }
    assert!(files.len() > 50, "found only {} source files under {}", files.len(), crates.display());
    let mut found = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&crates).unwrap_or(file).to_string_lossy().replace('\\', "/");
        if name == TABLE {
            continue;
        }
        let text = fs::read_to_string(file).expect("a readable source file");
        for (n, line) in text.lines().enumerate() {
            if let Some(comparison) = revision_comparison(line) {
                found.push(format!("crates/{name}:{}: `{comparison}`", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "MCP revisions compared outside the revision table (crates/{TABLE}); read a column of \
         `McpCaps::of(revision)` instead (add one if none fits):\n{}",
        found.join("\n")
    );
}

/// The guard's own patterns: what it must catch and what it must leave alone.
#[test]
fn the_patterns_catch_comparisons_and_nothing_else() {
    for line in [
        "if revision >= McpRevision::V2025_06_18 {",
        "    && revision < McpRevision::V2025_11_25",
        "(revision >= McpRevision::V2026_07_28).then_some(x)",
        "if context.revision() >= McpRevision::V2026_07_28 {",
        "self >= McpRevision::V2026_07_28",
        "McpRevision::V2025_03_26 <= self.revision",
        "Some((_, since)) if *since > revision => {",
    ] {
        assert!(revision_comparison(line).is_some(), "missed: {line}");
    }
    for line in [
        "fn of(revision: McpRevision) -> Self {",
        "let limits: HashMap<McpRevision, usize> = HashMap::new();",
        "Target::Mcp(revision) => McpCaps::of(revision).input_required_result,",
        "if revision == McpRevision::V2025_03_26 { // equality is a row lookup, not an order",
        "// revision >= McpRevision::V2025_06_18 in a comment",
        "let x: Option<McpRevision> = None; a >= b;",
        "fn f<T>(revision: T) -> Vec<McpRevision> {",
        "r#\"revision >= McpRevision::V2025_06_18\"#",
    ] {
        assert_eq!(revision_comparison(line), None, "flagged: {line}");
    }
}

/// The comparison on `line` with a revision operand, if any (comments and string literals
/// are left out).
fn revision_comparison(line: &str) -> Option<String> {
    let code = strip_strings_and_comments(line);
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c != b'<' && c != b'>' {
            i += 1;
            continue;
        }
        let prev = if i > 0 { bytes[i - 1] } else { b' ' };
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        // `->`, `=>`, `<<`, `>>`, `<-`: not comparisons.
        if prev == b'-' || prev == b'=' || prev == c || next == c || (c == b'<' && next == b'-') {
            i += 1;
            continue;
        }
        let end = if next == b'=' { i + 2 } else { i + 1 };
        let left = left_operand(&code[..i]);
        let right = right_operand(&code[end..]);
        if is_revision(left) || is_revision(right) {
            return Some(format!("{left} {} {right}", &code[i..end]));
        }
        i = end;
    }
    None
}

fn is_operand_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '*' | '&' | '(' | ')')
}

fn left_operand(before: &str) -> &str {
    let trimmed = before.trim_end();
    let start = trimmed
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_operand_char(*c))
        .last()
        .map_or(trimmed.len(), |(i, _)| i);
    trimmed[start..].trim_start_matches(['(', '*', '&'])
}

fn right_operand(after: &str) -> &str {
    let trimmed = after.trim_start().trim_start_matches(['*', '&']);
    // An operand starts with a name: `>(revision` is a generic list closing, not a comparison.
    if !trimmed.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return "";
    }
    let end = trimmed.find(|c: char| !is_operand_char(c)).unwrap_or(trimmed.len());
    trimmed[..end].trim_end_matches(['(', ')'])
}

fn is_revision(operand: &str) -> bool {
    let operand = operand.trim_end_matches(')').trim_end_matches('(');
    operand.starts_with("McpRevision::V")
        || operand == "revision"
        || operand.ends_with(".revision")
        || operand.ends_with("_revision")
        || operand == "since"
}
