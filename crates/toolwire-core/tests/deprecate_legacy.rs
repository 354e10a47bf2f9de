//! The cargo feature `deprecate-legacy` makes every call of `ToolResult::from_legacy_json` a
//! deprecation warning, so that `-D deprecated` fails the build of a crate that still builds
//! legacy strings by hand (the Rust counterpart of the ADR's static-analysis rule).
//!
//! The fixture crate under `tests/fixtures/legacy-caller` is copied under the target directory
//! with the workspace lockfile (so it resolves to the versions already built, offline) and
//! built twice with `RUSTFLAGS=-D deprecated`: with the feature it must fail, naming the
//! function; without it, it must build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::{env, fs};

const CORE_DIR: &str = env!("CARGO_MANIFEST_DIR");

fn or_fail<T, E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> T + '_ {
    move |err| panic!("{what}: {err}")
}

fn prepare_fixture() -> PathBuf {
    let core = Path::new(CORE_DIR);
    let source = core.join("tests/fixtures/legacy-caller");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("legacy-caller");
    fs::create_dir_all(work.join("src")).unwrap_or_else(or_fail("create the fixture"));
    let manifest = fs::read_to_string(source.join("Cargo.toml"))
        .unwrap_or_else(or_fail("read the fixture manifest"));
    let core_path = core.display().to_string().replace('\\', "/");
    let manifest = manifest.replace(r#"path = "../../..""#, &format!("path = {core_path:?}"));
    assert!(manifest.contains(&core_path), "the fixture manifest no longer names its path");
    fs::write(work.join("Cargo.toml"), manifest).unwrap_or_else(or_fail("write the manifest"));
    fs::copy(source.join("src/lib.rs"), work.join("src/lib.rs"))
        .unwrap_or_else(or_fail("copy the fixture source"));
    fs::copy(core.join("../../Cargo.lock"), work.join("Cargo.lock"))
        .unwrap_or_else(or_fail("copy the workspace lockfile"));
    work
}

fn build(fixture: &Path, features: &[&str]) -> Output {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    Command::new(cargo)
        .current_dir(fixture)
        .args(["build", "--offline", "--quiet", "--lib"])
        .args(features.iter().flat_map(|feature| ["--features", feature]))
        .env("CARGO_TARGET_DIR", fixture.join("target"))
        .env("CARGO_INCREMENTAL", "0")
        .env("RUSTFLAGS", "-D deprecated")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .output()
        .unwrap_or_else(or_fail("run cargo"))
}

/// One test, so the two builds share the fixture's target directory one after the other.
#[test]
fn deprecate_legacy_fails_a_deny_deprecated_build_and_only_then() {
    let fixture = prepare_fixture();

    let without = build(&fixture, &[]);
    let stderr = String::from_utf8_lossy(&without.stderr);
    assert!(without.status.success(), "the fixture must build without the feature:\n{stderr}");

    let with = build(&fixture, &["deprecate"]);
    let stderr = String::from_utf8_lossy(&with.stderr);
    assert!(!with.status.success(), "the build must fail with the feature:\n{stderr}");
    assert!(
        stderr.contains("use of deprecated associated function")
            && stderr.contains("from_legacy_json")
            && stderr.contains("instead of a hand-built legacy JSON string"),
        "the failure must be the deprecation of from_legacy_json:\n{stderr}"
    );
}
