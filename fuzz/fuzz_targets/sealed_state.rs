//! Fuzzes the opening of a sealed `requestState`: whatever a client sends, opening never
//! panics and never succeeds for text this server did not seal; a state it sealed opens only
//! for its own call.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolwire_store::{Binding, KeySet, SigningKey, StateSealer};

fn sealer() -> &'static Option<StateSealer> {
    static SEALER: OnceLock<Option<StateSealer>> = OnceLock::new();
    SEALER.get_or_init(|| {
        let key = SigningKey::new("k1", vec![7u8; 32]).ok()?;
        Some(StateSealer::new(KeySet::new(vec![key]).ok()?))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(sealer) = sealer() else { return };
    let arguments = json!({"id": 7});
    let binding = Binding { tool: "t", principal: "p", arguments: &arguments };
    if let Ok(text) = std::str::from_utf8(data) {
        assert!(sealer.open(text, binding, 0).is_err(), "opened unsealed input {text:?}");
    }
    let state = serde_json::from_slice::<Value>(data).unwrap_or(Value::Null);
    if let Ok(sealed) = sealer.seal(binding, &state, 100) {
        assert_eq!(sealer.open(&sealed, binding, 99).ok(), Some(state));
        let other = Binding { tool: "u", ..binding };
        assert!(sealer.open(&sealed, other, 99).is_err());
    }
});
