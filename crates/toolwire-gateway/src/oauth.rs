//! toolwire as an OAuth 2.1 resource server: access tokens (JWTs) from one authorization server
//! are checked for signature, `iss`, `aud`, `exp` and `nbf`; their scopes map to privileges. The
//! signing keys (JWKS) come from the issuer's metadata (RFC 8414, else OIDC discovery) or an
//! explicit URL, are cached, and are fetched again when a token names an unknown `kid` (at most
//! once per refresh interval), so a key rotation at the issuer needs no restart.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
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
}

/// Why an access token was refused (said in the 401 and the log; never the token itself).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not three base64url parts with JSON header and claims.
    #[error("the token is not a well-formed JWT")]
    Malformed,
    /// `alg` is not one of the accepted algorithms (this includes `none`).
    #[error("the token's algorithm `{0}` is not accepted")]
    Algorithm(String),
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
pub struct FetchError {
    /// What was fetched.
    pub url: String,
    /// What went wrong.
    pub message: String,
}

/// One public key of the issuer.
#[derive(Debug, Clone)]
enum Key {
    Rsa { n: Vec<u8>, e: Vec<u8> },
    P256 { point: Vec<u8> },
    Ed25519 { x: Vec<u8> },
}

#[derive(Debug, Clone)]
struct Jwk {
    kid: Option<String>,
    alg: Option<String>,
    key: Key,
}

impl Jwk {
    fn fits(&self, alg: Algorithm) -> bool {
        let kind = matches!(
            (&self.key, alg),
            (Key::Rsa { .. }, Algorithm::Rs256)
                | (Key::P256 { .. }, Algorithm::Es256)
                | (Key::Ed25519 { .. }, Algorithm::EdDsa)
        );
        kind && self.alg.as_deref().is_none_or(|a| a == alg.name())
    }

    fn verify(&self, message: &[u8], sig: &[u8]) -> bool {
        match &self.key {
            Key::Rsa { n, e } => RsaPublicKeyComponents { n, e }
                .verify(&signature::RSA_PKCS1_2048_8192_SHA256, message, sig)
                .is_ok(),
            Key::P256 { point } => {
                UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point)
                    .verify(message, sig)
                    .is_ok()
            }
            Key::Ed25519 { x } => {
                UnparsedPublicKey::new(&signature::ED25519, x).verify(message, sig).is_ok()
            }
        }
    }
}

/// The keys of a JWKS document that toolwire can use (others, e.g. encryption keys, skipped).
fn parse_jwks(doc: &Value) -> Option<Vec<Jwk>> {
    let keys = doc.get("keys")?.as_array()?;
    let text = |k: &Value, name: &str| k.get(name).and_then(Value::as_str).map(str::to_owned);
    let bytes = |k: &Value, name: &str| {
        k.get(name).and_then(Value::as_str).and_then(|v| URL_SAFE_NO_PAD.decode(v).ok())
    };
    let parsed = keys
        .iter()
        .filter(|k| text(k, "use").is_none_or(|u| u == "sig"))
        .filter_map(|k| {
            let key = match (text(k, "kty")?.as_str(), text(k, "crv").as_deref()) {
                ("RSA", _) => Key::Rsa { n: bytes(k, "n")?, e: bytes(k, "e")? },
                ("EC", Some("P-256")) => {
                    let (x, y) = (bytes(k, "x")?, bytes(k, "y")?);
                    if x.len() != 32 || y.len() != 32 {
                        return None;
                    }
                    Key::P256 { point: [&[4u8][..], &x, &y].concat() }
                }
                ("OKP", Some("Ed25519")) => Key::Ed25519 { x: bytes(k, "x")? },
                _ => return None,
            };
            Some(Jwk { kid: text(k, "kid"), alg: text(k, "alg"), key })
        })
        .collect();
    Some(parsed)
}

/// The resource server: settings, the cached keys and the client that fetches them.
#[derive(Debug)]
pub struct OAuth {
    settings: OAuthSettings,
    http: reqwest::Client,
    keys: RwLock<Vec<Jwk>>,
    /// When keys were last fetched; held while fetching so one caller fetches at a time.
    fetched: Mutex<Option<Instant>>,
}

impl OAuth {
    /// A resource server for `settings`; keys are fetched on first use (or by [`OAuth::refresh`]).
    pub fn new(settings: OAuthSettings) -> Self {
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
    pub fn settings(&self) -> &OAuthSettings {
        &self.settings
    }

    /// How many usable keys are cached.
    pub async fn key_count(&self) -> usize {
        self.keys.read().await.len()
    }

    /// Fetches the keys now (at start, and for `serve --check`).
    pub async fn refresh(&self) -> Result<usize, FetchError> {
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
        let mut last = None;
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
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(FetchError { url: issuer.into(), message: "no metadata".into() }))
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
    pub async fn verify(&self, token: &str, now: i64) -> Result<Principal, TokenError> {
        let mut parts = token.split('.');
        let (Some(header), Some(claims), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed);
        };
        let decode = |part: &str| URL_SAFE_NO_PAD.decode(part).map_err(|_| TokenError::Malformed);
        let header_json: Value =
            serde_json::from_slice(&decode(header)?).map_err(|_| TokenError::Malformed)?;
        let alg_name = header_json.get("alg").and_then(Value::as_str).unwrap_or("none");
        let alg = Algorithm::parse(alg_name)
            .filter(|a| self.settings.algorithms.contains(a))
            .ok_or_else(|| {
                // Shown in the 401 and the log: the caller wrote it, so keep it short and plain.
                TokenError::Algorithm(
                    alg_name.chars().filter(char::is_ascii_graphic).take(32).collect(),
                )
            })?;
        let kid = header_json.get("kid").and_then(Value::as_str);
        let signature = decode(sig)?;
        let message = &token[..header.len() + 1 + claims.len()];
        self.check_signature(alg, kid, message.as_bytes(), &signature).await?;
        let claims: Value =
            serde_json::from_slice(&decode(claims)?).map_err(|_| TokenError::Malformed)?;
        self.grant(&claims, now)
    }

    async fn check_signature(
        &self,
        alg: Algorithm,
        kid: Option<&str>,
        message: &[u8],
        sig: &[u8],
    ) -> Result<(), TokenError> {
        let found = self.find(alg, kid).await;
        let key = match found {
            Some(key) => key,
            None => {
                let mut fetched = self.fetched.lock().await;
                // Another caller may have fetched while this one waited.
                match self.find(alg, kid).await {
                    Some(key) => key,
                    None => {
                        let due =
                            fetched.is_none_or(|at| at.elapsed() >= self.settings.refresh_interval);
                        if !due {
                            return Err(TokenError::UnknownKey);
                        }
                        if let Err(error) = self.fetch_into(&mut fetched).await {
                            tracing::error!(%error, "could not fetch the issuer's keys");
                            return Err(TokenError::Keys);
                        }
                        self.find(alg, kid).await.ok_or(TokenError::UnknownKey)?
                    }
                }
            }
        };
        if key.verify(message, sig) { Ok(()) } else { Err(TokenError::Signature) }
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

    fn grant(&self, claims: &Value, now: i64) -> Result<Principal, TokenError> {
        let s = &self.settings;
        if claims.get("iss").and_then(Value::as_str) != Some(&s.issuer) {
            return Err(TokenError::Issuer);
        }
        let audience_ok = match claims.get("aud") {
            Some(Value::String(aud)) => aud == &s.audience,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(&s.audience)),
            _ => false,
        };
        if !audience_ok {
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
    pub fn scopes_for(&self, missing: &[String]) -> Option<Vec<String>> {
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
pub fn split_url(url: &str) -> (&str, &str) {
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
}
