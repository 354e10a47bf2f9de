//! Fuzzes the v2 part of the result parser: arbitrary bytes as the `inputRequired` member of a
//! `toolwire.result.v2` document. Never a panic, and every accepted document round-trips
//! exactly (parse → serialize → parse gives the same result).

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::v1;

fuzz_target!(|data: &[u8]| {
    let mut doc = br#"{"format":"toolwire.result.v2","inputRequired":"#.to_vec();
    doc.extend_from_slice(data);
    doc.push(b'}');
    if let Ok(result) = v1::parse(&doc) {
        let bytes = v1::to_vec(&result);
        assert_eq!(v1::parse(&bytes).as_ref(), Ok(&result));
    }
});
