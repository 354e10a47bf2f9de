//! Flags whose values are names (`--target`, `--phase`, `--shape`, `--format`): `--help` lists
//! the values, and a bad value exits 2 with one line naming the flag, the value and the choices.

use crate::support::{run, stderr, stdout};

const TARGETS: &str = "[possible values: legacy, mcp-2024-11-05, mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25, mcp-2026-07-28, a2a-0.3, a2a-1.0]";
const PHASES: &str = "[possible values: compat, spec]";
const SHAPES: &str = "[possible values: data, envelope]";

/// The `--help` line of `flag`.
fn help_line(command: &str, flag: &str) -> String {
    let out = run(&[command, "--help"], b"", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let help = stdout(&out);
    let prefix = format!("--{flag} <");
    match help.lines().find(|line| line.trim_start().starts_with(&prefix)) {
        Some(line) => line.to_owned(),
        None => panic!("no --{flag} in `{command} --help`:\n{help}"),
    }
}

#[test]
fn help_lists_the_names_each_flag_accepts() {
    for (command, flag, values) in [
        ("render", "target", TARGETS),
        ("render", "phase", PHASES),
        ("render", "shape", SHAPES),
        ("validate", "target", TARGETS),
        ("validate", "shape", SHAPES),
        ("schema", "target", TARGETS),
        ("schema", "shape", SHAPES),
        ("serve", "phase", PHASES),
        ("check", "format", "[possible values: text, json, html]"),
    ] {
        let line = help_line(command, flag);
        assert!(line.ends_with(values), "{command} --{flag}: {line}");
    }
    assert!(help_line("render", "phase").contains("[env: TOOLWIRE_PHASE=] [default: compat]"));
    assert!(help_line("render", "shape").contains("[default: data]"));
}

/// Runs `args`, expecting exit 2, nothing on stdout and exactly `message` on stderr.
fn refused(args: &[&str], env: &[(&str, &str)], message: &str) {
    let out = run(args, b"{\"success\":true}", env);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert_eq!(stdout(&out), "", "{args:?}");
    assert_eq!(stderr(&out), format!("toolwire: {message}\n"), "{args:?}");
}

/// Arguments, environment, the expected line.
type Case = (&'static [&'static str], &'static [(&'static str, &'static str)], &'static str);

#[test]
fn bad_names_exit_2_with_the_flag_the_value_and_the_choices() {
    let cases: [Case; 5] = [
        (
            &["render", "--target", "legacy", "--phase", "both"],
            &[],
            "--phase: unknown phase `both`; expected compat or spec",
        ),
        (
            &["render", "--target", "legacy"],
            &[("TOOLWIRE_PHASE", "Spec")],
            "--phase: unknown phase `Spec`; expected compat or spec",
        ),
        (
            &["render", "--target", "legacy", "--shape", "table"],
            &[],
            "--shape: unknown shape `table`; expected data or envelope",
        ),
        (
            &["schema", "--target", "mcp"],
            &[],
            "--target: unknown target `mcp`; expected legacy, mcp-<YYYY-MM-DD>, a2a-0.3 or a2a-1.0",
        ),
        (
            &["serve", "--phase", "loud", "--check"],
            &[],
            "--phase: unknown phase `loud`; expected compat or spec",
        ),
    ];
    for (args, env, message) in cases {
        refused(args, env, message);
    }
}

#[test]
fn impossible_dates_are_refused() {
    for (date, days) in [("2025-02-31", 28), ("2025-04-31", 30), ("2023-02-29", 28)] {
        let target = format!("mcp-{date}");
        let message = format!("--target: `{date}` is not a date: its month has {days} days");
        refused(&["render", "--target", &target], &[], &message);
        refused(&["validate", "--target", &target], &[], &message);
    }
    // 2024-02-29 is a date, only older than every revision; 2028-02-29 maps to the newest.
    refused(
        &["render", "--target", "mcp-2024-02-29"],
        &[],
        "--target: `2024-02-29` is older than the oldest MCP revision (2024-11-05)",
    );
    let leap = run(
        &["render", "--target", "mcp-2028-02-29", "--now", "2026-11-29T10:00:00Z"],
        b"{\"success\":true}",
        &[],
    );
    assert_eq!(leap.status.code(), Some(0), "{}", stderr(&leap));
    assert!(stdout(&leap).contains("\"resultType\":\"complete\""), "{}", stdout(&leap));
}
