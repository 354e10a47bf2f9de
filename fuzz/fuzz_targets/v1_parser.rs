//! Fuzzes the v1 parser: never a panic, and every accepted document round-trips exactly
//! (parse → serialize → parse gives the same result).

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::v1;

fuzz_target!(|data: &[u8]| {
    if let Ok(result) = v1::parse(data) {
        let bytes = v1::to_vec(&result);
        assert_eq!(v1::parse(&bytes).as_ref(), Ok(&result));
    }
});
