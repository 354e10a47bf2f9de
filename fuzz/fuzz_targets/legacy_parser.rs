//! Fuzzes the legacy (version 0) parser and the any-input entry point.
//!
//! Beyond "never panics": whatever a string parses to, its v1 form parses back to a result
//! with the same v1 form, so nothing the legacy parser keeps is lost on the way to storage.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::{legacy, parse_any, v1};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let result = legacy::parse(text);
        let bytes = v1::to_vec(&result);
        match v1::parse(&bytes) {
            Ok(again) => assert_eq!(v1::to_vec(&again), bytes),
            Err(err) => panic!("the v1 form of a legacy result does not parse: {err}"),
        }
    }
    if let Ok(result) = parse_any(data) {
        let bytes = v1::to_vec(&result);
        assert!(v1::parse(&bytes).is_ok());
    }
});
