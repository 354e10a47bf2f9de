//! Sealed `requestState` (DESIGN §10): what a 2026-07-28 client carries between the rounds of
//! an input-required call, encrypted and authenticated so that it can neither read nor alter it,
//! and bound to one tool, one caller, one argument set and an expiry.
//!
//! Format: `tw1.<kid>.<base64url(nonce ‖ ciphertext ‖ tag)>`. The cipher is ChaCha20-Poly1305
//! with a key derived from the signing key `kid` as HMAC-SHA256(secret, [`SEAL_CONTEXT`]), so
//! it never equals a link MAC key; the associated data is `tw1.<kid>`. The plaintext is the
//! JSON of `{tool, principal, args, state, exp}` where `args` is the hex SHA-256 of the
//! canonical arguments (object keys sorted, compact, numbers as written).
//!
//! Checks when opening, in this order: syntax, key id, authentication, expiry, then the binding
//! (tool, caller, arguments). Each refusal names its reason; all mean "start the call again".

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{ChaCha20Poly1305, KeyInit, Nonce};
use hmac::Mac;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::keys::{KeySet, SigningKey};

/// The domain label the sealing key is derived under (and the format's version).
pub(crate) const SEAL_CONTEXT: &str = "toolwire-request-state-v1";

/// The prefix of every sealed state.
const VERSION: &str = "tw1";

/// How long a sealed state stays valid unless the caller says otherwise: ten minutes, long
/// enough for a person to answer a form.
pub const DEFAULT_STATE_TTL: i64 = 600;

const NONCE_BYTES: usize = 12;
const TAG_BYTES: usize = 16;

/// Why a sealed state was refused.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Not a sealed state at all.
    #[error("requestState is malformed")]
    Malformed,
    /// Sealed with a key this server does not have (removed, or another deployment's).
    #[error("requestState was sealed with an unknown key")]
    UnknownKey,
    /// Altered, truncated or forged: authentication failed.
    #[error("requestState failed its integrity check")]
    Tampered,
    /// Past its expiry.
    #[error("requestState has expired")]
    Expired,
    /// Made for another tool.
    #[error("requestState was made for another tool")]
    OtherTool,
    /// Made for another caller.
    #[error("requestState was made for another caller")]
    OtherPrincipal,
    /// Made for other arguments.
    #[error("requestState was made for other arguments")]
    OtherArguments,
    /// The operating system gave no random nonce.
    #[error("no randomness available to seal requestState")]
    Random,
}

/// The call a state belongs to.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The caller's principal name.
    pub principal: &'a str,
    /// The call's arguments.
    pub arguments: &'a Value,
}

#[derive(Serialize, Deserialize)]
struct Sealed {
    tool: String,
    principal: String,
    args: String,
    state: Value,
    exp: i64,
}

/// Seals and opens `requestState` with a key set: the newest key seals, all open.
#[derive(Debug, Clone)]
pub struct StateSealer {
    keys: KeySet,
}

impl StateSealer {
    /// A sealer over `keys`.
    pub fn new(keys: KeySet) -> Self {
        Self { keys }
    }

    /// Seals `state` (`null` for none) for `binding`, valid until `expires` (Unix seconds).
    pub fn seal(
        &self,
        binding: Binding<'_>,
        state: &Value,
        expires: i64,
    ) -> Result<String, StateError> {
        let key = self.keys.signing_key();
        let plain = Sealed {
            tool: binding.tool.to_owned(),
            principal: binding.principal.to_owned(),
            args: arguments_digest(binding.arguments),
            state: state.clone(),
            exp: expires,
        };
        let plain = serde_json::to_vec(&plain).map_err(|_| StateError::Malformed)?;
        let mut nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut nonce).map_err(|_| StateError::Random)?;
        let header = format!("{VERSION}.{}", key.kid());
        let sealed = cipher(key)?
            .encrypt(&Nonce::from(nonce), Payload { msg: &plain, aad: header.as_bytes() })
            .map_err(|_| StateError::Malformed)?;
        let mut body = Vec::with_capacity(NONCE_BYTES + sealed.len());
        body.extend_from_slice(&nonce);
        body.extend_from_slice(&sealed);
        Ok(format!("{header}.{}", URL_SAFE_NO_PAD.encode(body)))
    }

    /// Opens `sealed` for `binding` at `now` (Unix seconds): the state it carries (`null` when
    /// the tool kept none), or why it was refused.
    pub fn open(&self, sealed: &str, binding: Binding<'_>, now: i64) -> Result<Value, StateError> {
        let mut pieces = sealed.splitn(3, '.');
        let (Some(VERSION), Some(kid), Some(body)) = (pieces.next(), pieces.next(), pieces.next())
        else {
            return Err(StateError::Malformed);
        };
        let body = URL_SAFE_NO_PAD.decode(body).map_err(|_| StateError::Malformed)?;
        if body.len() < NONCE_BYTES + TAG_BYTES {
            return Err(StateError::Malformed);
        }
        let key = self.keys.get(kid).ok_or(StateError::UnknownKey)?;
        let (nonce, ciphertext) = body.split_at(NONCE_BYTES);
        let nonce = Nonce::try_from(nonce).map_err(|_| StateError::Malformed)?;
        let header = format!("{VERSION}.{kid}");
        let plain = cipher(key)?
            .decrypt(&nonce, Payload { msg: ciphertext, aad: header.as_bytes() })
            .map_err(|_| StateError::Tampered)?;
        let plain: Sealed = serde_json::from_slice(&plain).map_err(|_| StateError::Tampered)?;
        if plain.exp <= now {
            return Err(StateError::Expired);
        }
        if plain.tool != binding.tool {
            return Err(StateError::OtherTool);
        }
        if plain.principal != binding.principal {
            return Err(StateError::OtherPrincipal);
        }
        if plain.args != arguments_digest(binding.arguments) {
            return Err(StateError::OtherArguments);
        }
        Ok(plain.state)
    }
}

/// The AEAD keyed for sealing with `key`: HMAC-SHA256(secret, [`SEAL_CONTEXT`]).
fn cipher(key: &SigningKey) -> Result<ChaCha20Poly1305, StateError> {
    let mut mac = key.mac();
    mac.update(SEAL_CONTEXT.as_bytes());
    let derived = mac.finalize().into_bytes();
    ChaCha20Poly1305::new_from_slice(&derived).map_err(|_| StateError::Malformed)
}

/// The hex SHA-256 of the canonical JSON of `arguments` (keys sorted at every level).
pub(crate) fn arguments_digest(arguments: &Value) -> String {
    let canonical = serde_json::to_string(&canonical(arguments)).unwrap_or_default();
    Sha256::digest(canonical.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let sorted: Map<String, Value> =
                keys.into_iter().map(|key| (key.clone(), canonical(&map[key]))).collect();
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sealer(kid: &str, byte: u8) -> StateSealer {
        let key = SigningKey::new(kid, vec![byte; 32]);
        let keys = key.and_then(|key| KeySet::new(vec![key]));
        match keys {
            Ok(keys) => StateSealer::new(keys),
            Err(err) => panic!("{err}"),
        }
    }

    fn binding<'a>(tool: &'a str, arguments: &'a Value) -> Binding<'a> {
        Binding { tool, principal: "writer", arguments }
    }

    #[test]
    fn a_state_opens_for_its_own_call_only() {
        let s = sealer("k1", 1);
        let args = json!({"id": 7, "price": 12.5});
        let sealed = s.seal(binding("update", &args), &json!({"step": 2}), 1000);
        let Ok(sealed) = sealed else { panic!("{sealed:?}") };
        assert!(sealed.starts_with("tw1.k1."), "{sealed}");
        assert!(!sealed.contains("step"));
        // Key order of the arguments does not matter.
        let reordered = json!({"price": 12.5, "id": 7});
        assert_eq!(s.open(&sealed, binding("update", &reordered), 999), Ok(json!({"step": 2})));
        assert_eq!(s.open(&sealed, binding("update", &args), 1000), Err(StateError::Expired));
        assert_eq!(s.open(&sealed, binding("delete", &args), 10), Err(StateError::OtherTool));
        let other = json!({"id": 8, "price": 12.5});
        assert_eq!(s.open(&sealed, binding("update", &other), 10), Err(StateError::OtherArguments));
        let someone = Binding { tool: "update", principal: "reader", arguments: &args };
        assert_eq!(s.open(&sealed, someone, 10), Err(StateError::OtherPrincipal));
    }

    #[test]
    fn tampered_foreign_and_malformed_states_are_refused() {
        let s = sealer("k1", 1);
        let args = json!({});
        let Ok(sealed) = s.seal(binding("t", &args), &Value::Null, 1000) else { panic!() };
        let open = |text: &str| s.open(text, binding("t", &args), 10);
        assert_eq!(open(&sealed), Ok(Value::Null));
        // The conformance suite's tampering: a suffix (`-` is in the base64url alphabet).
        assert!(matches!(
            open(&format!("{sealed}-TAMPERED")),
            Err(StateError::Malformed | StateError::Tampered)
        ));
        let mut flipped = sealed.clone().into_bytes();
        let last = flipped.len() - 2;
        flipped[last] = if flipped[last] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(flipped).unwrap_or_default();
        assert_eq!(open(&flipped), Err(StateError::Tampered));
        // Another kid in the header breaks the associated data even with the same secret.
        let renamed = sealed.replacen("tw1.k1.", "tw1.k2.", 1);
        assert_eq!(open(&renamed), Err(StateError::UnknownKey));
        let foreign = sealer("k1", 2);
        assert_eq!(foreign.open(&sealed, binding("t", &args), 10), Err(StateError::Tampered));
        for junk in ["", "tw1", "tw1.k1", "tw1.k1.", "tw2.k1.AAAA", "tw1.k1.!!"] {
            assert_eq!(open(junk), Err(StateError::Malformed), "{junk}");
        }
    }

    #[test]
    fn the_digest_is_canonical() {
        assert_eq!(
            arguments_digest(&json!({"b": [1, {"y": 1, "x": 2}], "a": null})),
            arguments_digest(&json!({"a": null, "b": [1, {"x": 2, "y": 1}]}))
        );
        assert_ne!(arguments_digest(&json!({"a": 1})), arguments_digest(&json!({"a": 1.0})));
    }
}
