//! `[[tools]] annotations` are rmcp's typed tool annotations: a hint that is not a boolean is
//! refused at start, naming the tool and the problem.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

#[test]
fn annotations_that_are_not_hints_are_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("toolwire.toml");
    std::fs::write(
        &config,
        r#"
[[tools]]
name = "orders_find"
description = "Find orders."
endpoint = "http://127.0.0.1:9/tools"
annotations = { readOnlyHint = "yes" }
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--stdio", "--config"])
        .arg(&config)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "toolwire: {}: tools `orders_find`: annotations are refused: invalid type: string \"yes\", expected a boolean\n",
            config.display()
        )
    );
}
