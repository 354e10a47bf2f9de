//! Every command reading standard input stops at `--max-input` bytes (default 64 MiB): an
//! input one byte longer exits 2 with one line saying so; an input of exactly the limit is read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

const OVER: &str = "toolwire: standard input is over the input limit of 16 bytes; raise it with --max-input BYTES\n";

#[test]
fn every_stdin_command_refuses_input_over_its_limit() {
    let commands: [&[&str]; 4] = [
        &["parse"],
        &["render", "--target", "mcp-2025-11-25"],
        &["validate", "--target", "mcp-2025-11-25"],
        &["schema", "--target", "mcp-2025-11-25"],
    ];
    // 17 bytes: one over the limit.
    let input = br#"{"type":"number"}"#;
    assert_eq!(input.len(), 17);
    for command in commands {
        let args = [command, &["--max-input", "16"]].concat();
        let out = support::run(&args, input, &[]);
        assert_eq!(
            (out.status.code(), support::stdout(&out), support::stderr(&out)),
            (Some(2), String::new(), OVER.to_owned()),
            "{command:?}"
        );
        // At the limit the input is read and handled as usual.
        let args = [command, &["--max-input", "17"]].concat();
        let out = support::run(&args, input, &[]);
        assert!(!support::stderr(&out).contains("input limit"), "{command:?}");
    }
    let out =
        support::run(&["schema", "--target", "mcp-2025-11-25", "--max-input", "17"], input, &[]);
    assert_eq!(
        (out.status.code(), support::stdout(&out)),
        (
            Some(0),
            r#"{"type":"object","properties":{"result":{"type":"number"}},"required":["result"],"x-fastmcp-wrap-result":true}"#
                .to_owned()
                + "\n"
        )
    );
}

#[test]
fn the_default_limit_is_64_mib() {
    let input = vec![b' '; 64 * 1024 * 1024 + 1];
    let out = support::run(&["parse"], &input, &[]);
    assert_eq!(
        (out.status.code(), support::stderr(&out)),
        (
            Some(2),
            "toolwire: standard input is over the input limit of 67108864 bytes; raise it with --max-input BYTES\n"
                .to_owned()
        )
    );
}
