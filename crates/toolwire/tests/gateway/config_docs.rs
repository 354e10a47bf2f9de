//! The configuration examples of the README and of `docs/deploying.md` load as written, the
//! README's example serves the app tools it declares, and the README's table of keys has a row
//! for every key the gateway's configuration accepts. The documents are read when the test runs
//! (from the repository, through `CARGO_MANIFEST_DIR`): no crate includes a file outside its own
//! directory when it is built, so every crate still packages.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use toolwire_core::{McpRevision, Shape, Target};
use toolwire_gateway::{Overrides, Settings};

/// A document of the repository, by its path from the repository's root.
fn document(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first ```toml block of a document.
fn first_toml(doc: &str) -> &str {
    let start = doc.find("```toml\n").map(|i| i + "```toml\n".len()).unwrap_or(0);
    let end = doc[start..].find("```").map(|i| start + i).unwrap_or(start);
    &doc[start..end]
}

/// The settings an example gives, as if read from `toolwire.toml` with `env` as the environment.
fn load(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Settings {
    Settings::from_text(text, Path::new("toolwire.toml"), &Overrides::default(), env)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn mcp(date: &str) -> Target {
    Target::Mcp(McpRevision::exact(date).unwrap())
}

#[test]
fn the_documented_example_is_valid() {
    let readme = document("README.md");
    let text = first_toml(&readme);
    assert!(text.contains("[[tools]]"), "the example was not found");
    let env = |k: &str| {
        k.ends_with("_TOKEN")
            .then(|| format!("secret-{k}"))
            .or_else(|| (k == "ORDERS_API_KEY").then(|| "k".to_owned()))
    };
    let s = load(text, &env);
    assert_eq!(s.tools.len(), 2);
    assert_eq!(s.tools[0].headers, vec![("Authorization".to_owned(), "Bearer k".to_owned())]);
    assert_eq!(s.tools[0].timeout, Duration::from_secs(10));
    assert_eq!(s.tools[1].shape, Shape::Envelope);
    assert_eq!(s.limits[&mcp("2024-11-05")], 131_072);
    assert_eq!(s.limits[&mcp("2026-07-28")], 262_144);
    assert_eq!(s.tokens.len(), 2);
    assert!(!s.anonymous && s.auth_configured && !s.demo_tools);
    assert!(s.allowed_hosts.contains(&"tools.acme.internal".to_owned()));
    assert_eq!(s.prefix, "com.acme");

    // `serve --check` loads it as `serve` would, app tools registered (the data directory moved
    // to a temporary one, the secrets given).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwire.toml");
    std::fs::write(&path, text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--check", "--config"])
        .arg(&path)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .env_remove("TOOLWIRE_PHASE")
        .envs([("ACME_AGENT_TOKEN", "a"), ("ACME_ADMIN_TOKEN", "b"), ("ORDERS_API_KEY", "k")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("\ntools (2): orders_find, orders_cancel\n"), "{stdout}");
}

#[test]
fn the_deploying_example_is_valid() {
    let deploying = document("docs/deploying.md");
    let env = |k: &str| (k == "NIGHTLY_JOB_TOKEN").then(|| "n".to_owned());
    let s = load(first_toml(&deploying), &env);
    let Some(o) = s.oauth else { panic!("the example has no [auth.oauth]") };
    assert_eq!(o.issuer, "https://id.acme.example/realms/tools");
    assert_eq!(o.principal_claim, "preferred_username");
    assert_eq!(o.algorithms.iter().map(|a| a.name()).collect::<Vec<_>>(), ["RS256", "ES256"]);
    assert_eq!(o.scopes["orders.admin"], ["orders:cancel"]);
    assert_eq!(s.ops.listen.map(|a| a.to_string()).as_deref(), Some("127.0.0.1:9090"));
    assert_eq!(s.tokens.len(), 1);
    assert_eq!(s.tools[0].privileges, ["orders:cancel"]);
}

#[test]
fn the_readme_has_a_row_for_every_key() {
    let readme = document("README.md");
    let missing: Vec<String> = toolwire_gateway::config::keys()
        .into_iter()
        .filter(|key| !readme.contains(&format!("| `{key}` |")))
        .collect();
    assert!(missing.is_empty(), "README.md's table of keys has no row for {missing:?}");
}
