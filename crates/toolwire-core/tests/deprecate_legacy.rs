//! The cargo feature `deprecate-legacy` makes every call of `ToolResult::from_legacy_json` a
//! deprecation warning, so that `deny(deprecated)` fails the build of a crate that still builds
//! legacy strings by hand (the Rust counterpart of the ADR's static-analysis rule).
//!
//! trybuild builds `tests/ui/legacy_caller.rs` against toolwire-core with the features of this
//! test run: without the feature it must build and run; with it (`cargo test -p toolwire-core
//! --features deprecate-legacy --test deprecate_legacy`, a step of scripts/test) it must fail
//! with exactly the deprecation in `tests/ui/legacy_caller.stderr`.

#[test]
fn deprecate_legacy_fails_a_deny_deprecated_build_and_only_then() {
    let cases = trybuild::TestCases::new();
    if cfg!(feature = "deprecate-legacy") {
        cases.compile_fail("tests/ui/legacy_caller.rs");
    } else {
        cases.pass("tests/ui/legacy_caller.rs");
    }
}
