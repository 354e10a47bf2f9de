//! Fuzzes signed links and key files: any text is a link that verifies or the one "not found",
//! never a panic; a link signed for any principal verifies for it and not for another; a key
//! file parses or is refused with an error.
//!
//! Input: a link to check (also tried as a `signing-keys.json` document).

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolwire_store::{KeySet, LinkSigner, RecordId};

fn signer() -> &'static LinkSigner {
    static SIGNER: OnceLock<LinkSigner> = OnceLock::new();
    SIGNER.get_or_init(|| {
        let keys = KeySet::from_json(
            r#"{"keys": [{"kid": "k1", "secret": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"}]}"#,
            "fuzz",
        )
        .unwrap_or_else(|err| panic!("fixed key refused: {err}"));
        LinkSigner::new(keys)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = KeySet::from_json(text, "fuzz");
    let signer = signer();
    let _ = signer.verify(text, "alice", 0);
    // Whatever the principal, a link made for it verifies for it alone.
    let Some(id) = RecordId::parse(&format!("{:032x}", data.len())) else { return };
    let link = signer.sign(id, 4_000_000_000, text);
    assert!(signer.verify(&link, text, 0).is_ok(), "own link refused: {link}");
    if !text.is_empty() {
        assert!(signer.verify(&link, "", 0).is_err());
    }
});
