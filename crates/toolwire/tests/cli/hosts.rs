//! `toolwire hosts`: the built-in host profiles, as scripts read them (`--format json`) and as a
//! table.

use serde_json::Value;
use toolwire_core::host::HostProfiles;

use crate::support::{self, stderr, stdout};

fn run(args: &[&str]) -> std::process::Output {
    support::run(&[&["hosts"], args].concat(), b"", &[])
}

#[test]
fn json_lists_every_built_in_profile_keyed_as_the_config_is() {
    let out = run(&["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed: Value =
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|err| panic!("{err}: {}", stdout(&out)));
    let builtin: Vec<_> = HostProfiles::builtin().iter().cloned().collect();
    let expected = serde_json::to_value(&builtin).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(listed, expected);
    let Some(profiles) = listed.as_array() else { panic!("not a list: {listed}") };
    assert!(profiles.len() >= 7, "{listed}");
    assert_eq!(profiles[0]["name"], "generic");
    assert_eq!(profiles[0]["client_names"], serde_json::json!([]));
    let claude = profiles.iter().find(|p| p["name"] == "claude-code");
    let Some(claude) = claude else { panic!("no claude-code in {listed}") };
    assert_eq!(claude["client_names"], serde_json::json!(["claude-code"]));
    assert_eq!(claude["reads"], "structured");
    assert_eq!(claude["reads_links"], true);
    assert!(claude["max_result_bytes"].is_u64(), "{claude}");
}

#[test]
fn text_is_a_table_one_line_per_profile() {
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "profile\treads\tmax_result_bytes\treads_links\tclient_names");
    assert_eq!(lines[1], "generic\tboth\t-\ttrue\t(any other)");
    assert!(lines.contains(&"codex\tstructured\t10000\tfalse\tcodex-mcp-client"), "{text}");
    assert_eq!(lines.len(), 1 + HostProfiles::builtin().iter().count());
}

#[test]
fn an_unknown_format_is_refused() {
    let out = run(&["--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--format"), "{}", stderr(&out));
}
