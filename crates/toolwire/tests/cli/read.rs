//! `toolwire read`: what one process stored, another reads; every refusal is `not found`; a
//! data directory held by a running server is "in use".
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use serde_json::json;
use toolwire_core::{ToolResult, v1};
use toolwire_store::{Record, StoreConfig, StoredResults};

use crate::support;

fn toolwire(args: &[&str]) -> Output {
    support::run(args, b"", &[])
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

/// Runs toolwire with `stdin`.
fn toolwire_with_input(args: &[&str], stdin: &str) -> Output {
    support::run(args, stdin.as_bytes(), &[])
}

/// The stored-result link in a rendered MCP result.
fn link_in(stub: &str) -> String {
    let wire: serde_json::Value = serde_json::from_str(stub).unwrap();
    wire["content"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|block| {
            block["uri"].as_str().filter(|uri| uri.starts_with("toolwire://results/"))
        })
        .unwrap_or_else(|| panic!("no stored link in {stub}"))
        .to_owned()
}

#[test]
fn render_offloads_into_the_data_directory_and_another_process_reads_it() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    let rows: Vec<String> = (0..300).map(|n| format!("{{\"id\":{n},\"price\":1.50}}")).collect();
    let data = format!("{{\"rows\":[{}]}}", rows.join(","));
    let input = format!("{{\"success\":true,\"data\":{data}}}\n");
    let render = ["render", "--target", "mcp-2025-11-25", "--phase", "spec", "--limit", "4096"];

    // Without a data directory: exit 3.
    let out = toolwire_with_input(&render, &input);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));

    let mut args = render.to_vec();
    args.extend(["--data-dir", dir_arg]);
    let before = chrono::Utc::now().timestamp();
    let out = toolwire_with_input(&args, &input);
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(0), ""));
    let stub = text(&out.stdout);
    assert!(stub.len() <= 4096 + 1 && stub.ends_with('\n'));
    let link = link_in(stub);
    let exp: i64 = link.split("exp=").nth(1).unwrap().split('&').next().unwrap().parse().unwrap();
    assert!((before + 3600..=before + 3601).contains(&exp), "default TTL: {link}");
    let mode =
        std::fs::metadata(dir.path().join("signing-keys.json")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // Another process reads exactly the data.
    let out = toolwire(&["read", &link, "--data-dir", dir_arg]);
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), format!("{data}\n").as_str()));
    let out = toolwire(&["read", &link, "--data-dir", dir_arg, "--principal", "bob"]);
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(1), "toolwire: not found\n"));

    // Principal and TTL flags.
    args.extend(["--principal", "bob", "--link-ttl", "60"]);
    let out = toolwire_with_input(&args, &input);
    let link = link_in(text(&out.stdout));
    let exp: i64 = link.split("exp=").nth(1).unwrap().split('&').next().unwrap().parse().unwrap();
    assert!((before + 60..=before + 62).contains(&exp), "{link}");
    let out = toolwire(&["read", &link, "--data-dir", dir_arg, "--principal", "bob"]);
    assert_eq!(out.status.code(), Some(0));
    let out = toolwire(&["read", &link, "--data-dir", dir_arg]);
    assert_eq!(out.status.code(), Some(1));

    let mut zero = render.to_vec();
    zero.extend(["--data-dir", dir_arg, "--link-ttl", "0"]);
    assert_eq!(toolwire_with_input(&zero, &input).status.code(), Some(2));

    // A running server holds the directory.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let holder = runtime.block_on(toolwire_store::RedbStore::open(dir.path())).unwrap();
    let out = toolwire_with_input(
        &render[..].iter().copied().chain(["--data-dir", dir_arg]).collect::<Vec<_>>(),
        &input,
    );
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr).to_owned()),
        (Some(1), "", format!("toolwire: data directory in use: {}\n", dir.path().display()))
    );
    drop(holder);
}

#[test]
fn keys_from_the_environment_are_used_and_no_key_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    let keys = toolwire_store::KeySet::generate().unwrap().to_json();
    let input = format!("{{\"success\":true,\"data\":\"{}\"}}", "x".repeat(10_000));
    let run = |args: &[&str], stdin: &str, keys: Option<&str>| {
        let env: Vec<(&str, &str)> =
            keys.map(|k| ("TOOLWIRE_SIGNING_KEYS", k)).into_iter().collect();
        support::run(args, stdin.as_bytes(), &env)
    };
    let render = ["render", "--target", "mcp-2026-07-28", "--limit", "4096", "--data-dir", dir_arg];
    let out = run(&render, &input, Some(&keys));
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(0), ""));
    assert!(!dir.path().join("signing-keys.json").exists());
    let link = link_in(text(&out.stdout));
    let out = run(&["read", &link, "--data-dir", dir_arg], "", Some(&keys));
    assert_eq!(text(&out.stdout), format!("\"{}\"\n", "x".repeat(10_000)));
    // Without the keys the link cannot be checked: not found.
    let out = run(&["read", &link, "--data-dir", dir_arg], "", None);
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(1), "toolwire: not found\n"));
    // Keys that are not a key list are a configuration error.
    let out = run(&["read", &link, "--data-dir", dir_arg], "", Some("{}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("toolwire: TOOLWIRE_SIGNING_KEYS: not a signing key list")
    );
}
