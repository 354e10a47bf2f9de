//! Fuzzes the gateway's configuration loader on `toolwire.toml` text: parsed (TOML into typed
//! sections) and resolved as `toolwire serve --config` does (every key checked, defaults applied,
//! secrets looked up). Nothing panics, and every refusal names the file and a key.
//!
//! Input: the file's text. Environment variables are a fixed function of their name, so
//! `token_env` and header `env` keys resolve for some names and are unset for others.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolwire::ServeConfig;

/// `*_TOKEN` and `*_KEY` variables are set (to a value derived from the name, so two names give
/// two distinct tokens), `EMPTY` is set to nothing, every other variable is unset.
fn env(name: &str) -> Option<String> {
    if name == "EMPTY" {
        return Some(String::new());
    }
    (name.ends_with("_TOKEN") || name.ends_with("_KEY")).then(|| format!("value-of-{name}"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let file = Path::new("fuzz.toml");
    match ServeConfig::from_toml(text, file, &env) {
        Ok(config) => {
            let _ = config.tool_names().count();
        }
        Err(error) => {
            assert_eq!(error.file.as_deref(), Some(file), "{error}");
            assert!(!error.key.is_empty(), "no key in {error}");
            assert!(error.to_string().starts_with("fuzz.toml: "), "{error}");
        }
    }
});
