//! toolwire as an OAuth 2.1 resource server: access tokens (JWTs) from one authorization server
//! are checked for signature, `iss`, `aud`, `exp` and `nbf`; their scopes map to privileges. The
//! signing keys (JWKS) come from the issuer's metadata (RFC 8414, else OIDC discovery) or an
//! explicit URL, are cached, and are fetched again when a token names an unknown `kid` (at most
//! once per refresh interval), so a key rotation at the issuer needs no restart.
//!
//! `jsonwebtoken` decodes the token, verifies its signature and checks `iss` and `aud`. Its
//! RustCrypto backend is chosen by the crate feature toolwire enables; toolwire installs no
//! provider (a program whose build also enables jsonwebtoken's `aws_lc_rs` feature must install
//! one itself, as jsonwebtoken's docs say). The times are checked here against the `now` the
//! caller passes, so the caller's clock decides `exp` and `nbf`.

use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{DecodingKey, DecodingKeyKind, Validation};
use serde_json::Value;
use tokio::sync::{Mutex, RwLock};
use toolwire_mcp::Principal;

use super::config::{OAuthSettings, RESERVED_PRINCIPALS};

/// A signature algorithm toolwire accepts (never `none`, never an HMAC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// Ed25519.
    EdDsa,
}

impl Algorithm {
    /// Every accepted algorithm.
    pub const ALL: [Self; 3] = [Self::Rs256, Self::Es256, Self::EdDsa];

    /// From its JOSE name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "RS256" => Some(Self::Rs256),
            "ES256" => Some(Self::Es256),
            "EdDSA" => Some(Self::EdDsa),
            _ => None,
        }
    }

    /// Its JOSE name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rs256 => "RS256",
            Self::Es256 => "ES256",
            Self::EdDsa => "EdDSA",
        }
    }

    /// The same algorithm as `jsonwebtoken` names it.
    fn jose(self) -> jsonwebtoken::Algorithm {
        match self {
            Self::Rs256 => jsonwebtoken::Algorithm::RS256,
            Self::Es256 => jsonwebtoken::Algorithm::ES256,
            Self::EdDsa => jsonwebtoken::Algorithm::EdDSA,
        }
    }
}

/// Why an access token was refused (said in the 401 and the log; never the token itself).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TokenError {
    /// Not three base64url parts with JSON header and claims.
    #[error("the token is not a well-formed JWT")]
    Malformed,
    /// `alg` is not one of the accepted algorithms (this includes `none`).
    #[error("the token's algorithm `{0}` is not accepted")]
    Algorithm(String),
    /// The header has a `crit` parameter: the token's meaning depends on extensions it names, and
    /// this server understands none.
    #[error(
        "the token's header has critical parameters (`crit`), which this server does not support"
    )]
    Critical,
    /// No key of the issuer has this `kid`, even after fetching the keys again.
    #[error("the token was signed with a key the issuer does not publish")]
    UnknownKey,
    /// The signature does not verify.
    #[error("the token's signature is not valid")]
    Signature,
    /// `iss` is not the configured issuer.
    #[error("the token was issued by another authorization server")]
    Issuer,
    /// `aud` does not name this server.
    #[error("the token is meant for another resource")]
    Audience,
    /// `exp` has passed (or is missing).
    #[error("the token has expired")]
    Expired,
    /// `nbf` is still ahead.
    #[error("the token is not valid yet")]
    NotYetValid,
    /// The principal claim is missing, empty or reserved.
    #[error("the token's `{0}` claim does not name a usable principal")]
    Principal(String),
    /// The keys could not be fetched.
    #[error("the issuer's keys could not be fetched")]
    Keys,
}

/// Why the issuer's keys could not be fetched (for the log and `serve --check`).
#[derive(Debug, thiserror::Error)]
#[error("{url}: {message}")]
pub(crate) struct FetchError {
    /// What was fetched.
    pub url: String,
    /// What went wrong.
    pub message: String,
}

/// RSA keys shorter than this are not used (`jsonwebtoken`'s RSA backend would take 1024).
const MIN_RSA_BITS: usize = 2048;

/// One public key of the issuer, ready to verify with.
#[derive(Debug, Clone)]
struct Jwk {
    kid: Option<String>,
    /// The algorithm the issuer pinned the key to, when it did.
    alg: Option<KeyAlgorithm>,
    /// The one accepted algorithm this kind of key verifies.
    verifies: Algorithm,
    key: DecodingKey,
}

impl Jwk {
    /// A key toolwire can use, or `None` (encryption keys, other key types and curves, short
    /// RSA moduli, malformed points).
    fn usable(jwk: jsonwebtoken::jwk::Jwk) -> Option<Self> {
        if jwk.common.public_key_use.as_ref().is_some_and(|u| *u != PublicKeyUse::Signature) {
            return None;
        }
        let (verifies, key) = match &jwk.algorithm {
            AlgorithmParameters::RSA(rsa) => {
                (Algorithm::Rs256, DecodingKey::from_rsa_components(&rsa.n, &rsa.e).ok()?)
            }
            AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
                (Algorithm::Es256, DecodingKey::from_ec_components(&ec.x, &ec.y).ok()?)
            }
            AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
                (Algorithm::EdDsa, DecodingKey::from_ed_components(&okp.x).ok()?)
            }
            _ => return None,
        };
        let sound = match (verifies, key.kind()) {
            (Algorithm::Rs256, DecodingKeyKind::RsaModulusExponent { n, .. }) => {
                modulus_bits(n) >= MIN_RSA_BITS
            }
            // An uncompressed P-256 point: 0x04, then x and y of 32 bytes each.
            (Algorithm::Es256, DecodingKeyKind::SecretOrDer(point)) => point.len() == 65,
            (Algorithm::EdDsa, DecodingKeyKind::SecretOrDer(_)) => true,
            _ => false,
        };
        sound.then(|| Self { kid: jwk.common.key_id, alg: jwk.common.key_algorithm, verifies, key })
    }

    fn fits(&self, alg: Algorithm) -> bool {
        self.verifies == alg && self.alg.is_none_or(|pinned| pinned == alg.jose().into())
    }
}

/// The length in bits of a big-endian unsigned integer.
fn modulus_bits(n: &[u8]) -> usize {
    let n = &n[n.iter().take_while(|b| **b == 0).count()..];
    n.first().map_or(0, |top| n.len() * 8 - top.leading_zeros() as usize)
}

/// The keys of a JWKS document that toolwire can use. Each key is read on its own, so a key
/// toolwire cannot read (another key type, an unknown curve) does not hide the others.
fn parse_jwks(doc: &Value) -> Option<Vec<Jwk>> {
    let keys = doc.get("keys")?.as_array()?;
    let parsed = keys
        .iter()
        .filter_map(|k| serde_json::from_value::<jsonwebtoken::jwk::Jwk>(k.clone()).ok())
        .filter_map(Jwk::usable)
        .collect();
    Some(parsed)
}

/// The token's header as JSON. Read before `jsonwebtoken` decodes the token because its reading
/// cannot name an `alg` it does not know (`none`), and the refusal names it.
fn protected_header(token: &str) -> Result<serde_json::Map<String, Value>, TokenError> {
    let mut parts = token.split('.');
    let (Some(header), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError::Malformed);
    };
    let bytes = URL_SAFE_NO_PAD.decode(header).map_err(|_| TokenError::Malformed)?;
    serde_json::from_slice(&bytes).map_err(|_| TokenError::Malformed)
}

/// The refusal for what `jsonwebtoken` found wrong.
fn refusal(kind: &ErrorKind) -> TokenError {
    match kind {
        ErrorKind::InvalidSignature
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidRsaKey(_)
        | ErrorKind::InvalidKeyFormat => TokenError::Signature,
        ErrorKind::InvalidIssuer => TokenError::Issuer,
        ErrorKind::MissingRequiredClaim(claim) | ErrorKind::InvalidClaimFormat(claim)
            if claim == "iss" =>
        {
            TokenError::Issuer
        }
        ErrorKind::InvalidAudience => TokenError::Audience,
        ErrorKind::InvalidClaimFormat(claim) if claim == "aud" => TokenError::Audience,
        _ => TokenError::Malformed,
    }
}

/// The resource server: settings, the cached keys and the client that fetches them.
#[derive(Debug)]
pub(crate) struct OAuth {
    settings: OAuthSettings,
    http: reqwest::Client,
    keys: RwLock<Vec<Jwk>>,
    /// When keys were last fetched; held while fetching so one caller fetches at a time.
    fetched: Mutex<Option<Instant>>,
}

impl OAuth {
    /// A resource server for `settings`; keys are fetched on first use (or by [`OAuth::refresh`]).
    pub(crate) fn new(settings: OAuthSettings) -> Self {
        // Like app endpoints: no redirects followed, no proxy from the environment, and a TLS
        // configuration that names its provider. A system without CA certificates trusts no
        // `https://` issuer (fetching the keys fails, in the log and `/readyz`) rather than
        // stopping the gateway.
        let tls = crate::tls::client_config(None).or_else(|error| {
            tracing::warn!(%error, "no system CA certificates: an https:// issuer is not trusted");
            crate::tls::client_config(Some(&[]))
        });
        let mut http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy();
        if let Ok(tls) = tls {
            http = http.tls_backend_preconfigured(tls);
        }
        let http = http.build().unwrap_or_default();
        Self { settings, http, keys: RwLock::new(Vec::new()), fetched: Mutex::new(None) }
    }

    /// The settings.
    pub(crate) fn settings(&self) -> &OAuthSettings {
        &self.settings
    }

    /// How many usable keys are cached.
    pub(crate) async fn key_count(&self) -> usize {
        self.keys.read().await.len()
    }

    /// Fetches the keys now (at start, and for `serve --check`).
    pub(crate) async fn refresh(&self) -> Result<usize, FetchError> {
        let mut fetched = self.fetched.lock().await;
        self.fetch_into(&mut fetched).await
    }

    async fn fetch_into(&self, fetched: &mut Option<Instant>) -> Result<usize, FetchError> {
        *fetched = Some(Instant::now());
        let url = match &self.settings.jwks_url {
            Some(url) => url.clone(),
            None => self.discover_jwks_url().await?,
        };
        let doc = self.get_json(&url).await?;
        let keys = parse_jwks(&doc).ok_or_else(|| FetchError {
            url: url.clone(),
            message: "not a JWKS document".into(),
        })?;
        let count = keys.len();
        *self.keys.write().await = keys;
        Ok(count)
    }

    /// The `jwks_uri` of the issuer's metadata: RFC 8414 first, then OIDC discovery.
    async fn discover_jwks_url(&self) -> Result<String, FetchError> {
        let issuer = self.settings.issuer.trim_end_matches('/');
        let (origin, path) = split_url(issuer);
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{issuer}/.well-known/openid-configuration"),
        ];
        let mut failures = Vec::with_capacity(candidates.len());
        for url in candidates {
            match self.get_json(&url).await {
                Ok(doc) => {
                    if doc.get("issuer").and_then(Value::as_str) != Some(&self.settings.issuer) {
                        return Err(FetchError {
                            url,
                            message: format!(
                                "the metadata names another issuer than {}",
                                self.settings.issuer
                            ),
                        });
                    }
                    return doc
                        .get("jwks_uri")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or(FetchError { url, message: "the metadata has no jwks_uri".into() });
                }
                Err(e) => failures.push(e.to_string()),
            }
        }
        Err(FetchError {
            url: issuer.into(),
            message: format!("no issuer metadata at either URL tried ({})", failures.join("; ")),
        })
    }

    async fn get_json(&self, url: &str) -> Result<Value, FetchError> {
        let failed = |message: String| FetchError { url: url.to_owned(), message };
        let response = self.http.get(url).send().await.map_err(|e| failed(e.to_string()))?;
        if !response.status().is_success() {
            return Err(failed(format!("answered HTTP {}", response.status().as_u16())));
        }
        let body = response.bytes().await.map_err(|e| failed(e.to_string()))?;
        serde_json::from_slice(&body).map_err(|e| failed(format!("not JSON: {e}")))
    }

    /// Checks `token` at `now` (Unix seconds) and returns the principal it stands for, with the
    /// privileges its scopes (and privileges claim) grant.
    pub(crate) async fn verify(&self, token: &str, now: i64) -> Result<Principal, TokenError> {
        let header = protected_header(token)?;
        let alg_name = header.get("alg").and_then(Value::as_str).unwrap_or("none");
        let alg = Algorithm::parse(alg_name)
            .filter(|a| self.settings.algorithms.contains(a))
            .ok_or_else(|| {
                // Shown in the 401 and the log: the caller wrote it, so keep it short and plain.
                TokenError::Algorithm(
                    alg_name.chars().filter(char::is_ascii_graphic).take(32).collect(),
                )
            })?;
        // RFC 7515 §4.1.11: a recipient must refuse a `crit` it does not understand; toolwire
        // implements no JWS extension, so any `crit` is refused.
        if header.contains_key("crit") {
            return Err(TokenError::Critical);
        }
        let kid = header.get("kid").and_then(Value::as_str);
        let key = self.key_for(alg, kid).await?;
        let decoded = jsonwebtoken::decode::<Value>(token, &key.key, &self.validation(alg))
            .map_err(|e| refusal(e.kind()))?;
        self.grant(&decoded.claims, now)
    }

    /// What `jsonwebtoken` checks beside the signature: the algorithm, `iss` and `aud`. Not the
    /// times: [`OAuth::grant`] checks them against the caller's clock.
    fn validation(&self, alg: Algorithm) -> Validation {
        let mut validation = Validation::new(alg.jose());
        validation.validate_exp = false;
        validation.validate_nbf = false;
        // `aud` is required too, but that is checked in `grant`: the required claims are an
        // unordered set, and a token lacking both is then refused for its issuer every time.
        validation.required_spec_claims = HashSet::from(["iss".to_owned()]);
        validation.set_issuer(&[&self.settings.issuer]);
        validation.set_audience(&[&self.settings.audience]);
        validation
    }

    /// The key that verifies a token signed with `alg` by `kid`, fetching the keys again when
    /// none fits and a refresh is due.
    async fn key_for(&self, alg: Algorithm, kid: Option<&str>) -> Result<Jwk, TokenError> {
        if let Some(key) = self.find(alg, kid).await {
            return Ok(key);
        }
        let mut fetched = self.fetched.lock().await;
        // Another caller may have fetched while this one waited.
        if let Some(key) = self.find(alg, kid).await {
            return Ok(key);
        }
        let due = fetched.is_none_or(|at| at.elapsed() >= self.settings.refresh_interval);
        if !due {
            return Err(TokenError::UnknownKey);
        }
        if let Err(error) = self.fetch_into(&mut fetched).await {
            tracing::error!(%error, "could not fetch the issuer's keys");
            return Err(TokenError::Keys);
        }
        self.find(alg, kid).await.ok_or(TokenError::UnknownKey)
    }

    /// The key for `kid` (or the only key for `alg` when the token names none).
    async fn find(&self, alg: Algorithm, kid: Option<&str>) -> Option<Jwk> {
        let keys = self.keys.read().await;
        let mut fitting = keys.iter().filter(|k| k.fits(alg));
        match kid {
            Some(kid) => fitting.find(|k| k.kid.as_deref() == Some(kid)).cloned(),
            None => {
                let first = fitting.next()?;
                fitting.next().is_none().then(|| first.clone())
            }
        }
    }

    /// The principal for claims whose signature, `iss` and `aud` `jsonwebtoken` checked, once
    /// `aud` is known to be there and the times hold at `now`.
    fn grant(&self, claims: &Value, now: i64) -> Result<Principal, TokenError> {
        let s = &self.settings;
        // `jsonwebtoken` checks `aud` only when the token has one.
        if !matches!(claims.get("aud"), Some(Value::String(_) | Value::Array(_))) {
            return Err(TokenError::Audience);
        }
        let leeway = i64::try_from(s.leeway.as_secs()).unwrap_or(i64::MAX);
        let time = |name: &str| claims.get(name).and_then(Value::as_f64).map(|t| t as i64);
        match time("exp") {
            Some(exp) if now < exp.saturating_add(leeway) => {}
            _ => return Err(TokenError::Expired),
        }
        if time("nbf").is_some_and(|nbf| now < nbf.saturating_sub(leeway)) {
            return Err(TokenError::NotYetValid);
        }
        let name = claims
            .get(&s.principal_claim)
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty() && !RESERVED_PRINCIPALS.contains(n))
            .ok_or_else(|| TokenError::Principal(s.principal_claim.clone()))?;
        let scopes: BTreeSet<String> = words(claims.get("scope").or_else(|| claims.get("scp")));
        let mut privileges: BTreeSet<String> =
            scopes.iter().filter_map(|scope| s.scopes.get(scope)).flatten().cloned().collect();
        if let Some(claim) = &s.privileges_claim {
            privileges.extend(words(claims.get(claim)));
        }
        Ok(Principal::new(name, privileges))
    }

    /// The scopes that would grant the privileges in `missing`, when each has one; `None` when a
    /// missing privilege comes from no scope (then a new token would not help: the gateway
    /// answers `missing_privilege` itself).
    pub(crate) fn scopes_for(&self, missing: &[String]) -> Option<Vec<String>> {
        let mut needed = BTreeSet::new();
        for privilege in missing {
            let scope = self
                .settings
                .scopes
                .iter()
                .find(|(_, grants)| grants.contains(privilege))
                .map(|(scope, _)| scope.clone())?;
            needed.insert(scope);
        }
        Some(needed.into_iter().collect())
    }
}

/// A claim that is a space-separated string or an array of strings, as a set of words.
fn words(value: Option<&Value>) -> BTreeSet<String> {
    match value {
        Some(Value::String(text)) => text.split_whitespace().map(str::to_owned).collect(),
        Some(Value::Array(items)) => {
            items.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        _ => BTreeSet::new(),
    }
}

/// `https://host:port/path` → (`https://host:port`, `/path`); the path is empty at the root.
pub(crate) fn split_url(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => {
            let (origin, path) = url.split_at(after_scheme + i);
            (origin, path.trim_end_matches('/'))
        }
        None => (url, ""),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use ring::rand::SystemRandom;
    use ring::signature::{
        ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _,
    };
    use serde_json::json;

    use super::*;

    const NOW: i64 = 1_800_000_000;

    fn settings() -> OAuthSettings {
        OAuthSettings {
            issuer: "https://idp.test".into(),
            audience: "https://tools.test/mcp".into(),
            jwks_url: None,
            algorithms: Algorithm::ALL.to_vec(),
            leeway: Duration::from_secs(30),
            principal_claim: "sub".into(),
            privileges_claim: Some("roles".into()),
            scopes: BTreeMap::from([("catalog.write".into(), vec!["catalog:write".into()])]),
            refresh_interval: Duration::from_secs(3600),
        }
    }

    fn b64(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// A resource server whose cache already holds an ES256 key `k1` and an EdDSA key `k2`.
    async fn server() -> (OAuth, EcdsaKeyPair, Ed25519KeyPair) {
        let rng = SystemRandom::new();
        let es = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .and_then(|pkcs8| {
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
                    .map_err(|_| ring::error::Unspecified)
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let ed = Ed25519KeyPair::generate_pkcs8(&rng)
            .and_then(|pkcs8| {
                Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).map_err(|_| ring::error::Unspecified)
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let point = es.public_key().as_ref();
        let jwks = json!({"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "k1", "x": b64(&point[1..33]), "y": b64(&point[33..])},
            {"kty": "OKP", "crv": "Ed25519", "kid": "k2", "x": b64(ed.public_key().as_ref())},
            {"kty": "EC", "crv": "P-256", "use": "enc", "kid": "k3", "x": "AA", "y": "AA"}
        ]});
        let oauth = OAuth::new(settings());
        let keys = parse_jwks(&jwks).unwrap_or_default();
        assert_eq!(keys.len(), 2, "the encryption key is skipped");
        *oauth.keys.write().await = keys;
        // No refresh is due: an unknown kid must not reach the network here.
        *oauth.fetched.lock().await = Some(Instant::now());
        (oauth, es, ed)
    }

    fn claims() -> Value {
        json!({"iss": "https://idp.test", "aud": "https://tools.test/mcp", "sub": "ann",
               "exp": NOW + 300, "nbf": NOW - 10, "scope": "catalog.write other", "roles": ["audit"]})
    }

    fn es256(key: &EcdsaKeyPair, header: &Value, claims: &Value) -> String {
        let message = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let sig =
            key.sign(&SystemRandom::new(), message.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        format!("{message}.{}", b64(sig.as_ref()))
    }

    fn eddsa(key: &Ed25519KeyPair, claims: &Value) -> String {
        let header = json!({"alg": "EdDSA", "kid": "k2"});
        let message = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        format!("{message}.{}", b64(key.sign(message.as_bytes()).as_ref()))
    }

    #[tokio::test]
    async fn a_valid_token_grants_mapped_privileges_and_its_principal() {
        let (oauth, es, ed) = server().await;
        for token in
            [es256(&es, &json!({"alg": "ES256", "kid": "k1"}), &claims()), eddsa(&ed, &claims())]
        {
            let principal = oauth.verify(&token, NOW).await.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(principal.name(), "ann");
            assert_eq!(principal.privileges().collect::<Vec<_>>(), ["audit", "catalog:write"]);
        }
    }

    #[tokio::test]
    async fn every_bad_token_is_refused_with_its_reason() {
        let (oauth, es, ed) = server().await;
        let header = json!({"alg": "ES256", "kid": "k1"});
        let with = |key: &str, value: Value| {
            let mut c = claims();
            c[key] = value;
            es256(&es, &header, &c)
        };
        let unsigned = format!(
            "{}.{}.",
            b64(json!({"alg": "none"}).to_string().as_bytes()),
            b64(claims().to_string().as_bytes())
        );
        let good = es256(&es, &header, &claims());
        let (head, rest) = good.split_once('.').unwrap_or_default();
        let mut tampered_claims = claims();
        tampered_claims["sub"] = json!("root");
        let tampered = format!(
            "{head}.{}.{}",
            b64(tampered_claims.to_string().as_bytes()),
            rest.rsplit('.').next().unwrap_or_default()
        );
        let cases = [
            (with("exp", json!(NOW - 31)), TokenError::Expired),
            (with("nbf", json!(NOW + 31)), TokenError::NotYetValid),
            (with("iss", json!("https://evil.test")), TokenError::Issuer),
            (with("aud", json!("https://other.test/mcp")), TokenError::Audience),
            (with("aud", json!(["https://other.test/mcp"])), TokenError::Audience),
            (with("sub", json!("anonymous")), TokenError::Principal("sub".into())),
            (tampered, TokenError::Signature),
            (
                es256(&es, &json!({"alg": "ES256", "kid": "nope"}), &claims()),
                TokenError::UnknownKey,
            ),
            (unsigned, TokenError::Algorithm("none".into())),
            (
                es256(&es, &json!({"alg": "HS256", "kid": "k1"}), &claims()),
                TokenError::Algorithm("HS256".into()),
            ),
            // An ES256 signature presented as EdDSA with the ES256 key's kid: no key fits.
            (es256(&es, &json!({"alg": "EdDSA", "kid": "k1"}), &claims()), TokenError::UnknownKey),
            (
                es256(&es, &json!({"alg": "X\n\"forged log line\"", "kid": "k1"}), &claims()),
                TokenError::Algorithm("X\"forgedlogline\"".into()),
            ),
            ("a.b".to_owned(), TokenError::Malformed),
            ("!!.??.**".to_owned(), TokenError::Malformed),
        ];
        for (token, expected) in cases {
            assert_eq!(oauth.verify(&token, NOW).await.err(), Some(expected.clone()), "{expected}");
        }
        // Within the leeway both bounds still pass.
        assert!(oauth.verify(&with("exp", json!(NOW - 29)), NOW).await.is_ok());
        assert!(oauth.verify(&eddsa(&ed, &claims()), NOW).await.is_ok());
    }

    #[test]
    fn scopes_are_named_for_missing_privileges() {
        let oauth = OAuth::new(settings());
        assert_eq!(oauth.scopes_for(&["catalog:write".into()]), Some(vec!["catalog.write".into()]));
        assert_eq!(oauth.scopes_for(&["admin".into()]), None);
        assert_eq!(split_url("https://a.test:8443/mcp/"), ("https://a.test:8443", "/mcp"));
        assert_eq!(split_url("http://a.test"), ("http://a.test", ""));
    }

    #[tokio::test]
    async fn a_header_with_crit_is_refused() {
        let (oauth, es, _) = server().await;
        let headers = [
            json!({"alg": "ES256", "kid": "k1", "crit": ["exp"], "exp": NOW + 300}),
            // `jsonwebtoken` alone accepts this one (it implements `b64`); toolwire implements
            // no extension.
            json!({"alg": "ES256", "kid": "k1", "crit": ["b64"], "b64": true}),
            json!({"alg": "ES256", "kid": "k1", "crit": []}),
        ];
        for header in headers {
            let token = es256(&es, &header, &claims());
            assert_eq!(
                oauth.verify(&token, NOW).await.err(),
                Some(TokenError::Critical),
                "{header}"
            );
        }
        assert_eq!(
            TokenError::Critical.to_string(),
            "the token's header has critical parameters (`crit`), which this server does not support"
        );
        // The same header without `crit` is served.
        let plain = es256(&es, &json!({"alg": "ES256", "kid": "k1", "b64": true}), &claims());
        assert!(oauth.verify(&plain, NOW).await.is_ok());
    }

    #[test]
    fn rsa_keys_under_2048_bits_are_not_used() {
        let modulus = |bytes: Vec<u8>| b64(&bytes);
        let jwks = json!({"keys": [
            {"kty": "RSA", "kid": "1024", "n": modulus(vec![0xff; 128]), "e": "AQAB"},
            {"kty": "RSA", "kid": "2047", "n": modulus([vec![0], vec![0x7f; 256]].concat()), "e": "AQAB"},
            {"kty": "RSA", "kid": "2048", "n": modulus(vec![0xc5; 256]), "e": "AQAB"},
        ]});
        let kids: Vec<Option<String>> =
            parse_jwks(&jwks).unwrap_or_default().into_iter().map(|k| k.kid).collect();
        assert_eq!(kids, [Some("2048".to_owned())]);
    }

    /// A 2048-bit RSA private key (PKCS #1 DER, base64) made for this test and used nowhere else.
    const RSA_KEY: &str = concat!(
        "MIIEowIBAAKCAQEA3ZQBPC1Uj5u6Qk1l+sHJLg4xcea2320XInq10NM+Xu4UzeAhGj9NbCwLLgMOxoFy/pYK2OGT",
        "xVErD+qHuio4chpn+PPFTtICnkbnIekp3J6vb+W5iOl48D2RU1+JdF9vPkJL8bmetv/+SEg2cTs5dDaewDOMAGKn",
        "Qbz+NOuQ497JNob9HyxyuAKtVf6hql0DhzWXDC0tBsELsN2R4h9t42cWAgjMqjoX7+p8hJD+owdB/TQe+7k3ocy8",
        "WnWY9pawYOhcKeNwO+hEVtKEYCxuqSE16b+XSsBxUqP0TM5tEn4opRuW2yO1FAdBwvGmzKro0xpVwrWHJ8y2EyuT",
        "jt1YswIDAQABAoIBAC5utQGMyEMd0Z7SRFQTZtqxW7gwLlNMs4PkrhQYKGJRRufLl3Q+HrXT1vXp6x87AkOKYrSH",
        "NOWs+DaqIY4oCdMTaIVZZBf711OerRHEoCKc2Eu9Gq+vqUnCxSDxDMdntlKYJvz9Nl7H71vrUglRbV1GkubZBnYQ",
        "NleGyMiDMsYlRjgXHnGH1EH7mKynhwzbN39w0HtVQNWLIFMRBs6va5AoY4kFfrVimRLFjC9h/lOHdPk9Mv2H+2nv",
        "OX203VNDIpb/pyT9427BZtK57Kb/c5OnGQTtVj/+m0YSU6+n1Sx6Wwj5nSMOLJbZhAf4qpi5J0S5GfqOyuSHOSJL",
        "jSGtdpECgYEA7zosA6YNNjBUQQnA6xSIiyxE7vq98OtdRJFrnabtYhUNfNAIwKctPr2sqHcGLTpGxzmL/vmXVCSi",
        "TT5lGA28u1JI1efFZu4V9kEi5OtY6V8rBA+jXbnY+xSqRXxdX7WbmaYDo1of+p3G2Q3+urX+VFz/fstiJfvlFJK8",
        "TufCsqMCgYEA7R0NzU+V9kleYwwkSwNIRJjImXN/gT+jFWZ1hqrd5eYnpcBbhWkl6VKgkXEzXKm6QOjg8kwiyM55",
        "J4pfY8gGsCGV202XCJfMs7qwBD9MSDYRqIuUjj5uhFmDzfaBWON4HuxdyTIyTvO84i2fyLrAv8jHMh/wOz3HaFvW",
        "/E30MrECgYBgs+cu4mTcztSAJe0yGe7IM3D6GanGRZ5CJXaXF+9FgrUdCws+tVV40zuELfj1N2V9CyooO8SMYvKo",
        "vtwmyQbNwglnTnVhkkSWcuYkG26ph6rfzWKAdKvdcxERXaBxG/x2M8GsurXKnRTQkPOzjfXtLFqrapOWPyjvFBHC",
        "47S0eQKBgFsXM0sxjOHd08XnTzYGH8hCjaXt6gjkQqmg//tpPu/oGEkj+cTp3Seil47oVxv9FFGFZY2P1DkioQag",
        "sP6rRG57qI9kYmZpsrlFOgOXsZ14MBZ48OwobdqobOs+DPjyAh6XHXyCrTMJjgGyF1VM8Wl8H5JRFMAdfrLHvXKW",
        "G/8xAoGBAMk3hbdU+j01z8wLxaiZuseL41KPcofFjMGT0eLkZdr2c4/3M0lvH9PglY/4eTZ4FvK3JTmgKh5VE5G9",
        "4mRzRqEfaVE9xGxTCXV3Q5Ufkdl5xBohPY2uKrc2hIxVeRT574e+9EKGSepkMH4GeOm/G2jdWKSisDv9lIJqCp91",
        "pUdD",
    );

    #[tokio::test]
    async fn rs256_tokens_verify_with_the_issuers_rsa_key() {
        let der = base64::engine::general_purpose::STANDARD
            .decode(RSA_KEY)
            .unwrap_or_else(|e| panic!("{e}"));
        let key = jsonwebtoken::EncodingKey::from_rsa_der(&der);
        let public =
            jsonwebtoken::jwk::Jwk::from_encoding_key(&key, jsonwebtoken::Algorithm::RS256)
                .unwrap_or_else(|e| panic!("{e}"));
        let mut jwk = serde_json::to_value(public).unwrap_or_else(|e| panic!("{e}"));
        jwk["kid"] = json!("r1");
        let oauth = OAuth::new(settings());
        *oauth.keys.write().await = parse_jwks(&json!({"keys": [jwk]})).unwrap_or_default();
        *oauth.fetched.lock().await = Some(Instant::now());
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
        header.kid = Some("r1".into());
        let token =
            jsonwebtoken::encode(&header, &claims(), &key).unwrap_or_else(|e| panic!("{e}"));
        let principal = oauth.verify(&token, NOW).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(principal.name(), "ann");
        // One bit of the signature flipped.
        let (signed, sig) = token.rsplit_once('.').unwrap_or_default();
        let mut sig = URL_SAFE_NO_PAD.decode(sig).unwrap_or_else(|e| panic!("{e}"));
        sig[0] ^= 1;
        let forged = format!("{signed}.{}", b64(&sig));
        assert_eq!(oauth.verify(&forged, NOW).await.err(), Some(TokenError::Signature));
    }
}
