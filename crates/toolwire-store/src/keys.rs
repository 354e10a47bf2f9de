//! Link signing keys: loaded from `signing-keys.json` in the data directory or from the
//! `TOOLWIRE_SIGNING_KEYS` environment variable (the same JSON), generated only for the embedded
//! default. The newest key (the last one listed) signs new links; older ones still verify until
//! they are removed from the list.
//!
//! The JSON form: `{"keys": [{"kid": "2026-11", "secret": "<base64url, at least 32 bytes>"}]}`,
//! oldest first. To rotate, append a key; to retire one, remove it (its links stop working).

use std::fmt;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// The file name of the key file inside the data directory.
pub const KEYS_FILE: &str = "signing-keys.json";
/// The environment variable that may hold the keys (same JSON as the file).
pub const KEYS_ENV: &str = "TOOLWIRE_SIGNING_KEYS";
/// The fewest secret bytes a key may have (the HMAC-SHA256 output size).
pub const MIN_SECRET_BYTES: usize = 32;

/// HMAC-SHA256, the link MAC.
pub(crate) type HmacSha256 = Hmac<Sha256>;

/// One signing key.
#[derive(Clone)]
pub struct SigningKey {
    kid: String,
    secret: Vec<u8>,
    /// The MAC keyed once, cloned for each link.
    mac: HmacSha256,
}

impl PartialEq for SigningKey {
    fn eq(&self, other: &Self) -> bool {
        self.kid == other.kid && self.secret == other.secret
    }
}

impl Eq for SigningKey {}

impl SigningKey {
    /// A key; refused when the id is outside `[A-Za-z0-9._-]{1,64}` or the secret is shorter
    /// than [`MIN_SECRET_BYTES`].
    pub fn new(kid: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Self, KeyError> {
        let kid = kid.into();
        let secret = secret.into();
        if kid.is_empty()
            || kid.len() > 64
            || !kid.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        {
            return Err(KeyError::BadKid(kid));
        }
        if secret.len() < MIN_SECRET_BYTES {
            return Err(KeyError::ShortSecret { kid, len: secret.len() });
        }
        // HMAC accepts keys of every length, so this cannot fail; map it anyway.
        let mac = HmacSha256::new_from_slice(&secret)
            .map_err(|_| KeyError::ShortSecret { kid: kid.clone(), len: secret.len() })?;
        Ok(Self { kid, secret, mac })
    }

    /// A new key with a random id and a random 32-byte secret from the operating system.
    pub fn generate() -> Result<Self, KeyError> {
        let mut secret = vec![0u8; MIN_SECRET_BYTES];
        getrandom::fill(&mut secret).map_err(KeyError::Random)?;
        let mut kid = [0u8; 6];
        getrandom::fill(&mut kid).map_err(KeyError::Random)?;
        let kid: String = kid.iter().map(|b| format!("{b:02x}")).collect();
        Self::new(format!("k{kid}"), secret)
    }

    /// The key id (the `kid` of links it signs).
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// A MAC keyed with the secret.
    pub(crate) fn mac(&self) -> HmacSha256 {
        self.mac.clone()
    }
}

impl fmt::Debug for SigningKey {
    // Never print a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey").field("kid", &self.kid).finish_non_exhaustive()
    }
}

/// The keys of one deployment, oldest first; the last one signs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySet {
    keys: Vec<SigningKey>,
}

/// Why keys could not be had.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// A key id outside the grammar.
    #[error("signing key id `{0}` must be 1 to 64 characters of A-Z a-z 0-9 . _ -")]
    BadKid(String),
    /// A secret too short to be safe.
    #[error("signing key `{kid}` has a {len}-byte secret; at least 32 bytes are needed")]
    ShortSecret {
        /// The key id.
        kid: String,
        /// The secret's length.
        len: usize,
    },
    /// A secret that is not base64url.
    #[error("signing key `{0}`: the secret is not base64url")]
    BadSecret(String),
    /// Two keys with one id.
    #[error("signing key id `{0}` appears twice")]
    DuplicateKid(String),
    /// No key at all.
    #[error("{origin}: no signing key (the list `keys` is empty)")]
    Empty {
        /// Where the keys came from.
        origin: String,
    },
    /// JSON that is not a key list.
    #[error(
        "{origin}: not a signing key list ({reason}); expected {{\"keys\": [{{\"kid\": …, \"secret\": …}}]}}"
    )]
    Json {
        /// Where the keys came from.
        origin: String,
        /// What was wrong.
        reason: String,
    },
    /// A key in the list was refused.
    #[error("{origin}: {source}")]
    Key {
        /// Where the keys came from.
        origin: String,
        /// Which key and why.
        source: Box<KeyError>,
    },
    /// The key file could not be read or written.
    #[error("signing key file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The Redis store was chosen without keys.
    #[error(
        "the Redis store needs signing keys shared by every node: set {KEYS_ENV} (or configure a \
         key file) with the same keys on each node"
    )]
    RedisWithoutKeys,
    /// The operating system's random number generator failed.
    #[error("cannot generate a signing key: {0}")]
    Random(getrandom::Error),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyFile {
    keys: Vec<KeyEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyEntry {
    kid: String,
    secret: String,
}

impl KeySet {
    /// A set from keys, oldest first; refused when empty or when two keys share an id.
    pub fn new(keys: Vec<SigningKey>) -> Result<Self, KeyError> {
        if keys.is_empty() {
            return Err(KeyError::Empty { origin: "key set".into() });
        }
        for (i, key) in keys.iter().enumerate() {
            if keys[..i].iter().any(|other| other.kid == key.kid) {
                return Err(KeyError::DuplicateKid(key.kid.clone()));
            }
        }
        Ok(Self { keys })
    }

    /// A set of one new random key (kept nowhere: for memory stores and tests).
    pub fn generate() -> Result<Self, KeyError> {
        Self::new(vec![SigningKey::generate()?])
    }

    /// Parses the JSON form; `origin` names where it came from in errors.
    pub fn from_json(json: &str, origin: &str) -> Result<Self, KeyError> {
        let file: KeyFile = serde_json::from_str(json)
            .map_err(|err| KeyError::Json { origin: origin.to_owned(), reason: err.to_string() })?;
        if file.keys.is_empty() {
            return Err(KeyError::Empty { origin: origin.to_owned() });
        }
        let wrap = |source| KeyError::Key { origin: origin.to_owned(), source: Box::new(source) };
        let keys = file
            .keys
            .into_iter()
            .map(|entry| {
                let secret = URL_SAFE_NO_PAD
                    .decode(entry.secret.trim_end_matches('='))
                    .map_err(|_| KeyError::BadSecret(entry.kid.clone()))?;
                SigningKey::new(entry.kid, secret)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(wrap)?;
        Self::new(keys).map_err(wrap)
    }

    /// The JSON form (secrets included: write it only where secrets belong).
    pub fn to_json(&self) -> String {
        let file = KeyFile {
            keys: self
                .keys
                .iter()
                .map(|key| KeyEntry {
                    kid: key.kid.clone(),
                    secret: URL_SAFE_NO_PAD.encode(&key.secret),
                })
                .collect(),
        };
        // Serializing two strings per key cannot fail.
        serde_json::to_string_pretty(&file).unwrap_or_default()
    }

    /// Reads a key file; one that is empty (whitespace only) or lists no key is
    /// [`KeyError::Empty`].
    pub fn from_file(path: &Path) -> Result<Self, KeyError> {
        parse_key_file(path)
    }

    /// The keys in `TOOLWIRE_SIGNING_KEYS`, or `None` when it is unset or empty.
    pub fn from_env() -> Result<Option<Self>, KeyError> {
        match std::env::var(KEYS_ENV) {
            Ok(json) if !json.trim().is_empty() => Self::from_json(&json, KEYS_ENV).map(Some),
            _ => Ok(None),
        }
    }

    /// The keys of the embedded default: `signing-keys.json` in `dir`, created when missing
    /// (with O_EXCL, so two processes starting at once agree on one key, and mode 0600; the
    /// directory 0700 when created).
    ///
    /// A file left empty (or with an empty key list) by a crash between creating and writing
    /// it holds no key, so no link can depend on it: it is replaced by a new key, written to
    /// a temporary file and renamed over it. A file with anything else that does not parse is
    /// refused: it may hold the only copy of a key that signed live links.
    pub fn load_or_generate(dir: &Path) -> Result<Self, KeyError> {
        let path = dir.join(KEYS_FILE);
        crate::private_dir::create(dir)
            .map_err(|source| KeyError::Io { path: dir.to_owned(), source })?;
        let created =
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path);
        match created {
            Ok(mut file) => {
                let keys = Self::generate()?;
                file.write_all(keys.to_json().as_bytes())
                    .and_then(|()| file.write_all(b"\n"))
                    .and_then(|()| file.sync_all())
                    .map_err(|source| KeyError::Io { path: path.clone(), source })?;
                Ok(keys)
            }
            Err(err) if err.kind() == ErrorKind::AlreadyExists => match read_settled(&path) {
                Err(KeyError::Empty { .. }) => replace_empty(&path),
                other => other,
            },
            Err(source) => Err(KeyError::Io { path, source }),
        }
    }

    /// The key that signs new links (the newest).
    pub fn signing_key(&self) -> &SigningKey {
        // `new` refuses an empty list, so there is always a last key.
        &self.keys[self.keys.len() - 1]
    }

    /// The key with this id.
    pub fn get(&self, kid: &str) -> Option<&SigningKey> {
        self.keys.iter().find(|key| key.kid == kid)
    }

    /// The keys, oldest first.
    pub fn keys(&self) -> &[SigningKey] {
        &self.keys
    }

    /// This set with `key` added as the newest (it signs from now on).
    pub fn rotated(&self, key: SigningKey) -> Result<Self, KeyError> {
        let mut keys = self.keys.clone();
        keys.push(key);
        Self::new(keys)
    }

    /// This set without the key `kid` (its links stop verifying); refused when it is the last.
    pub fn without(&self, kid: &str) -> Result<Self, KeyError> {
        Self::new(self.keys.iter().filter(|key| key.kid != kid).cloned().collect())
    }
}

/// The most bytes read from a signing-key file: a key is about a hundred bytes, and the file is
/// read before the gateway serves anything.
const KEYS_FILE_LIMIT: u64 = 1024 * 1024;

/// Reads a key file another process may be writing at this moment: an empty or partial file is
/// read again for up to a second before its error is reported.
fn parse_key_file(path: &Path) -> Result<KeySet, KeyError> {
    let io = |source| KeyError::Io { path: path.to_owned(), source };
    let bytes = crate::file::read_limited(path, KEYS_FILE_LIMIT).map_err(io)?;
    let json = String::from_utf8(bytes)
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    let origin = path.display().to_string();
    if json.trim().is_empty() {
        return Err(KeyError::Empty { origin });
    }
    KeySet::from_json(&json, &origin)
}

/// Writes a new key set over a key file that holds none, through a temporary file renamed into
/// place (so a crash now leaves either the empty file or the whole new one).
fn replace_empty(path: &Path) -> Result<KeySet, KeyError> {
    let keys = KeySet::generate()?;
    let temporary = path.with_extension("json.new");
    let io = |source| KeyError::Io { path: temporary.clone(), source };
    let _ = std::fs::remove_file(&temporary);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .map_err(io)?;
    file.write_all(keys.to_json().as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.sync_all())
        .map_err(io)?;
    std::fs::rename(&temporary, path).map_err(io)?;
    Ok(keys)
}

/// Reads a key file another process may still be writing: an empty file or one that does not
/// parse yet is read again for up to a second.
fn read_settled(path: &Path) -> Result<KeySet, KeyError> {
    let mut attempts = 0;
    loop {
        match parse_key_file(path) {
            Err(KeyError::Json { .. } | KeyError::Empty { .. }) if attempts < 20 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_json_form_round_trips() {
        let keys = KeySet::generate().unwrap().rotated(SigningKey::generate().unwrap()).unwrap();
        assert_eq!(KeySet::from_json(&keys.to_json(), "test").unwrap(), keys);
        assert_eq!(keys.signing_key(), &keys.keys()[1]);
    }

    #[test]
    fn bad_key_lists_are_refused_with_their_origin() {
        let cases = [
            (
                "{}",
                "src: not a signing key list (missing field `keys` at line 1 column 2); expected {\"keys\": [{\"kid\": …, \"secret\": …}]}",
            ),
            (r#"{"keys":[]}"#, "src: no signing key (the list `keys` is empty)"),
            (
                r#"{"keys":[{"kid":"a","secret":"c2hvcnQ"}]}"#,
                "src: signing key `a` has a 5-byte secret; at least 32 bytes are needed",
            ),
            (
                r#"{"keys":[{"kid":"a b","secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]}"#,
                "src: signing key id `a b` must be 1 to 64 characters of A-Z a-z 0-9 . _ -",
            ),
            (
                r#"{"keys":[{"kid":"a","secret":"!!"}]}"#,
                "src: signing key `a`: the secret is not base64url",
            ),
            (
                r#"{"keys":[{"kid":"a","secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},{"kid":"a","secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]}"#,
                "src: signing key id `a` appears twice",
            ),
        ];
        for (json, message) in cases {
            assert_eq!(KeySet::from_json(json, "src").unwrap_err().to_string(), message, "{json}");
        }
    }

    #[test]
    fn the_key_file_is_created_once_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let first = KeySet::load_or_generate(dir.path()).unwrap();
        let mode = std::fs::metadata(dir.path().join(KEYS_FILE)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = KeySet::load_or_generate(dir.path()).unwrap();
        assert_eq!(again, first);
    }

    #[test]
    fn processes_starting_at_once_agree_on_one_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_owned();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || KeySet::load_or_generate(&path).unwrap())
            })
            .collect();
        let sets: Vec<KeySet> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(sets.iter().all(|set| set == &sets[0]));
        assert_eq!(KeySet::from_file(&path.join(KEYS_FILE)).unwrap(), sets[0]);
    }

    #[test]
    fn a_key_file_is_read_within_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEYS_FILE);
        std::fs::write(&path, vec![b' '; KEYS_FILE_LIMIT as usize + 1]).unwrap();
        let error = KeySet::from_file(&path).unwrap_err().to_string();
        assert!(error.ends_with(": over the limit of 1048576 bytes (1 MiB)"), "{error}");
        let error = KeySet::from_file(Path::new("/dev/zero")).unwrap_err().to_string();
        assert_eq!(error, "signing key file /dev/zero: not a regular file");
    }

    #[test]
    fn debug_never_shows_secrets() {
        let key = SigningKey::new("k1", vec![7u8; 32]).unwrap();
        assert_eq!(format!("{key:?}"), "SigningKey { kid: \"k1\", .. }");
    }
}
