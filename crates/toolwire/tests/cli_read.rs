//! `toolwire read`: what one process stored, another reads; every refusal is `not found`; a
//! data directory held by a running server is "in use".
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::json;
use toolwire_core::{ToolResult, v1};
use toolwire_store::{Record, StoreConfig, StoredResults};

fn toolwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(args)
        .env_remove("TOOLWIRE_SIGNING_KEYS")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// Stores `result` for `principal` in the redb store of `dir` (closed again on return) and
/// returns its link.
fn store(dir: &Path, result: &ToolResult, principal: &str) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let results = StoredResults::open(&StoreConfig::redb(dir), None).await.unwrap();
        let now = chrono::Utc::now();
        let record = Record::new(
            v1::to_vec(result),
            "application/json",
            principal,
            toolwire_core::Timestamp::from_datetime(now),
            toolwire_core::Timestamp::from_unix_seconds(now.timestamp() + 600).unwrap(),
        );
        let id = results.store().put(record).await.unwrap();
        results.signer().sign(id, now.timestamp() + 600, principal)
    })
}

#[test]
fn another_process_reads_exactly_the_stored_data() {
    let dir = tempfile::tempdir().unwrap();
    let data = serde_json::from_str(
        r#"{"b": 1.10, "a": [123456789012345678901234567890.50, "ü"], "c": {}}"#,
    )
    .unwrap();
    let link = store(dir.path(), &ToolResult::success(data), "local");
    let dir_arg = dir.path().to_str().unwrap();
    let out = toolwire(&["read", &link, "--data-dir", dir_arg]);
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    // Numbers and key order exactly as stored, compact, one newline.
    assert_eq!(
        text(&out.stdout),
        "{\"b\":1.10,\"a\":[123456789012345678901234567890.50,\"ü\"],\"c\":{}}\n"
    );

    let link = store(dir.path(), &ToolResult::empty(), "bob");
    let out = toolwire(&["read", &link, "--data-dir", dir_arg, "--principal", "bob"]);
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), "null\n"));
}

#[test]
fn every_refusal_exits_1_with_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let link = store(dir.path(), &ToolResult::success(json!(1)), "alice");
    let dir_arg = dir.path().to_str().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let tampered = link.replace("exp=", "exp=1");
    let cases: Vec<Vec<&str>> = vec![
        vec!["read", &link, "--data-dir", dir_arg],
        vec!["read", &link, "--data-dir", dir_arg, "--principal", "bob"],
        vec!["read", &tampered, "--data-dir", dir_arg, "--principal", "alice"],
        vec!["read", "toolwire://results/x", "--data-dir", dir_arg, "--principal", "alice"],
        vec!["read", &link, "--data-dir", empty.path().to_str().unwrap(), "--principal", "alice"],
    ];
    for args in cases {
        let out = toolwire(&args);
        assert_eq!(
            (out.status.code(), text(&out.stdout), text(&out.stderr)),
            (Some(1), "", "toolwire: not found\n"),
            "{args:?}"
        );
    }
    // Reading an empty directory created nothing there.
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    let ok = toolwire(&["read", &link, "--data-dir", dir_arg, "--principal", "alice"]);
    assert_eq!((ok.status.code(), text(&ok.stdout)), (Some(0), "1\n"));
}

#[test]
fn a_directory_held_by_a_server_is_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let link = store(dir.path(), &ToolResult::success(json!(1)), "local");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let holder = runtime.block_on(toolwire_store::RedbStore::open(dir.path())).unwrap();
    let out = toolwire(&["read", &link, "--data-dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("toolwire: data directory in use: {}\n", dir.path().display())
    );
    drop(holder);
    // Once the server is gone the same read works.
    std::thread::sleep(Duration::from_millis(50));
    let out = toolwire(&["read", &link, "--data-dir", dir.path().to_str().unwrap()]);
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), "1\n"));
}
