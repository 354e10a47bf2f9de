//! Signed links to stored results:
//! `toolwire://results/<id>?exp=<unix seconds>&kid=<key id>&sig=<base64url, no padding>`.
//!
//! The signature is HMAC-SHA256 over `toolwire-link-v1`, the id, the expiry (decimal), the
//! principal and the key id, each preceded by its length as a 4-byte big-endian integer, so no
//! two different field lists ever give the same input ("ab" + "c" is not "a" + "bc"). The
//! principal is not in the URI: a link verifies only for the principal it was made for.
//!
//! Verification checks, in order: the URI parses, the key id is known, the MAC matches (in
//! constant time), the link has not expired. The reader then checks the record's principal and
//! that the record exists. Every refusal is the same [`NotFound`], so a caller learns nothing
//! about why.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;

use crate::keys::{HmacSha256, KeySet, SigningKey};
use crate::record::RecordId;

/// The start of every stored-result link.
pub(crate) const LINK_PREFIX: &str = toolwire_core::STORED_RESULT_PREFIX;
/// The domain separator that starts every MAC input (and names the link format's version).
pub(crate) const MAC_CONTEXT: &str = "toolwire-link-v1";
/// The URI template of stored results (RFC 6570), for `resources/templates/list`.
pub const URI_TEMPLATE: &str = "toolwire://results/{id}{?exp,kid,sig}";

/// The one answer for every link that does not lead to a record the caller may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("not found")]
pub struct NotFound;

/// A link whose signature and expiry checked out.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedLink {
    /// The record id.
    pub id: RecordId,
    /// The expiry, in Unix seconds.
    pub expires: i64,
    /// The key that signed it.
    pub kid: String,
}

/// Makes and checks signed links with a key set.
#[derive(Debug, Clone)]
pub struct LinkSigner {
    keys: KeySet,
}

impl LinkSigner {
    /// A signer over `keys`: the newest signs, all verify.
    pub fn new(keys: KeySet) -> Self {
        Self { keys }
    }

    /// The keys.
    pub fn keys(&self) -> &KeySet {
        &self.keys
    }

    /// The link to record `id`, readable by `principal` until `expires` (Unix seconds).
    pub fn sign(&self, id: RecordId, expires: i64, principal: &str) -> String {
        let key = self.keys.signing_key();
        let id = id.to_string();
        let exp = expires.to_string();
        let tag = mac(key, &id, &exp, principal).finalize().into_bytes();
        format!(
            "{LINK_PREFIX}{id}?exp={exp}&kid={kid}&sig={sig}",
            kid = key.kid(),
            sig = URL_SAFE_NO_PAD.encode(tag)
        )
    }

    /// Checks a link for `principal` at `now` (Unix seconds): parse, key id, MAC, expiry.
    pub fn verify(&self, uri: &str, principal: &str, now: i64) -> Result<VerifiedLink, NotFound> {
        let parsed = ParsedLink::parse(uri).ok_or(NotFound)?;
        let key = self.keys.get(parsed.kid).ok_or(NotFound)?;
        mac(key, parsed.id_text, parsed.exp_text, principal)
            .verify_slice(&parsed.sig)
            .map_err(|_| NotFound)?;
        if parsed.exp <= now {
            return Err(NotFound);
        }
        Ok(VerifiedLink { id: parsed.id, expires: parsed.exp, kid: parsed.kid.to_owned() })
    }
}

/// The MAC over the length-prefixed fields.
fn mac(key: &SigningKey, id: &str, exp: &str, principal: &str) -> HmacSha256 {
    let mut mac = key.mac();
    for field in [MAC_CONTEXT, id, exp, principal, key.kid()] {
        // Fields longer than 4 GiB cannot reach here (URIs and principals are far shorter); the
        // length saturates rather than wraps, which could only make a MAC fail.
        let len = u32::try_from(field.len()).unwrap_or(u32::MAX);
        mac.update(&len.to_be_bytes());
        mac.update(field.as_bytes());
    }
    mac
}

/// The pieces of a link, before any check but the syntax.
struct ParsedLink<'a> {
    id: RecordId,
    id_text: &'a str,
    exp: i64,
    exp_text: &'a str,
    kid: &'a str,
    sig: Vec<u8>,
}

impl<'a> ParsedLink<'a> {
    /// Accepts only the canonical form toolwire writes (any order of the three parameters, each
    /// exactly once, nothing else), so one record has one link per key and expiry.
    fn parse(uri: &'a str) -> Option<Self> {
        let (id_text, query) = uri.strip_prefix(LINK_PREFIX)?.split_once('?')?;
        let id = RecordId::parse(id_text)?;
        let (mut exp_text, mut kid, mut sig) = (None, None, None);
        for pair in query.split('&') {
            let (name, value) = pair.split_once('=')?;
            let slot = match name {
                "exp" => &mut exp_text,
                "kid" => &mut kid,
                "sig" => &mut sig,
                _ => return None,
            };
            if slot.replace(value).is_some() {
                return None;
            }
        }
        let exp_text = exp_text?;
        let canonical = !exp_text.is_empty()
            && exp_text.len() <= 18
            && exp_text.bytes().all(|b| b.is_ascii_digit())
            && (exp_text == "0" || !exp_text.starts_with('0'));
        if !canonical {
            return None;
        }
        let exp = exp_text.parse().ok()?;
        let sig = URL_SAFE_NO_PAD.decode(sig?).ok()?;
        Some(Self { id, id_text, exp, exp_text, kid: kid?, sig })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer() -> LinkSigner {
        LinkSigner::new(KeySet::new(vec![SigningKey::new("k1", vec![1u8; 32]).unwrap()]).unwrap())
    }

    #[test]
    fn links_have_the_documented_form() {
        let id = RecordId::parse("0123456789abcdef0123456789abcdef").unwrap();
        let link = signer().sign(id, 1_800_000_000, "alice");
        let (head, sig) = link.split_once("&sig=").unwrap();
        assert_eq!(
            head,
            "toolwire://results/0123456789abcdef0123456789abcdef?exp=1800000000&kid=k1"
        );
        assert_eq!(sig.len(), 43);
        assert!(sig.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    }

    #[test]
    fn the_mac_input_is_length_prefixed() {
        // Recomputed by hand from the documented input, so the format cannot drift silently.
        let mut input = Vec::new();
        for field in
            ["toolwire-link-v1", "0123456789abcdef0123456789abcdef", "1800000000", "alice", "k1"]
        {
            input.extend_from_slice(&(field.len() as u32).to_be_bytes());
            input.extend_from_slice(field.as_bytes());
        }
        let expected = <HmacSha256 as hmac::KeyInit>::new_from_slice(&[1u8; 32])
            .unwrap()
            .chain_update(&input)
            .finalize()
            .into_bytes();
        let id = RecordId::parse("0123456789abcdef0123456789abcdef").unwrap();
        let link = signer().sign(id, 1_800_000_000, "alice");
        assert!(link.ends_with(&format!("&sig={}", URL_SAFE_NO_PAD.encode(expected))));
    }

    #[test]
    fn only_the_canonical_form_parses() {
        let id = RecordId::parse("0123456789abcdef0123456789abcdef").unwrap();
        let link = signer().sign(id, 1_800_000_000, "p");
        let s = signer();
        assert!(s.verify(&link, "p", 0).is_ok());
        let sig = link.split_once("&sig=").unwrap().1;
        let reordered = format!("{LINK_PREFIX}{id}?sig={sig}&kid=k1&exp=1800000000");
        assert!(s.verify(&reordered, "p", 0).is_ok());
        for bad in [
            link.replace("exp=1800000000", "exp=01800000000"),
            link.replace("exp=1800000000", "exp=+1800000000"),
            format!("{link}&exp=1800000000"),
            format!("{link}&x=1"),
            link.replace("toolwire://", "Toolwire://"),
            link.replace("?", "/?"),
            link.to_uppercase(),
            format!("{link}="),
            String::new(),
        ] {
            assert_eq!(s.verify(&bad, "p", 0), Err(NotFound), "{bad}");
        }
    }
}
