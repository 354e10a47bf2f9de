//! toolwire as an OAuth 2.1 resource server against a local issuer started inside the test: keys
//! generated here, metadata and JWKS served on loopback, tokens minted here. Every refusal is a
//! 401 whose `WWW-Authenticate` names the Protected Resource Metadata; a missing scope is a 403;
//! a key rotation at the issuer is picked up without a restart. Also the static-token edges.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};

use crate::gateway::{self, HttpClient, Server};

const AUDIENCE: &str = "https://tools.test/mcp";
const PRM: &str = "https://tools.test/.well-known/oauth-protected-resource/mcp";

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A signing key of the issuer.
enum Signer {
    Es256(EcdsaKeyPair),
    EdDsa(Ed25519KeyPair),
}

impl Signer {
    fn es256() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        Self::Es256(
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
                .unwrap(),
        )
    }

    fn eddsa() -> Self {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        Self::EdDsa(Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap())
    }

    fn jwk(&self, kid: &str) -> Value {
        match self {
            Self::Es256(k) => {
                let p = k.public_key().as_ref();
                json!({"kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "alg": "ES256",
                       "x": b64(&p[1..33]), "y": b64(&p[33..])})
            }
            Self::EdDsa(k) => {
                json!({"kty": "OKP", "crv": "Ed25519", "kid": kid, "x": b64(k.public_key().as_ref())})
            }
        }
    }

    fn mint(&self, kid: &str, claims: &Value) -> String {
        let alg = match self {
            Self::Es256(_) => "ES256",
            Self::EdDsa(_) => "EdDSA",
        };
        let header = json!({"alg": alg, "typ": "at+jwt", "kid": kid});
        let message = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let sig = match self {
            Self::Es256(k) => {
                k.sign(&SystemRandom::new(), message.as_bytes()).unwrap().as_ref().to_vec()
            }
            Self::EdDsa(k) => k.sign(message.as_bytes()).as_ref().to_vec(),
        };
        format!("{message}.{}", b64(&sig))
    }
}

#[derive(Clone)]
struct Issuer {
    base: String,
    jwks: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
}

async fn metadata(State(issuer): State<Issuer>) -> impl IntoResponse {
    let doc = json!({"issuer": issuer.base, "jwks_uri": format!("{}/jwks", issuer.base)});
    ([(header::CONTENT_TYPE, "application/json")], doc.to_string())
}

async fn jwks(State(issuer): State<Issuer>) -> impl IntoResponse {
    issuer.fetches.fetch_add(1, Ordering::SeqCst);
    let doc = issuer.jwks.lock().unwrap().clone();
    ([(header::CONTENT_TYPE, "application/json")], doc.to_string())
}

/// The app behind tool `whoami`: answers the context toolwire sent.
async fn app(body: axum::body::Bytes) -> impl IntoResponse {
    let received: Value = serde_json::from_slice(&body).unwrap();
    let doc =
        json!({"format": "toolwire.result.v1", "data": received["context"], "summary": "who"});
    ([(header::CONTENT_TYPE, "application/json")], doc.to_string())
}

struct Fixture {
    _runtime: tokio::runtime::Runtime,
    issuer: Issuer,
}

fn issuer() -> Fixture {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let issuer =
        Issuer { base, jwks: Arc::new(Mutex::new(json!({"keys": []}))), fetches: Arc::default() };
    let router = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", axum::routing::get(metadata))
        .route("/jwks", axum::routing::get(jwks))
        .route("/app", axum::routing::post(app))
        .with_state(issuer.clone());
    runtime.spawn(async move { axum::serve(listener, router).await });
    Fixture { _runtime: runtime, issuer }
}

fn config(issuer: &Issuer, refresh_secs: u64) -> String {
    format!(
        r#"demo_tools = true

[[auth.tokens]]
token = "static-secret"
principal = "robot"

[auth.oauth]
issuer = "{base}"
audience = "{AUDIENCE}"
leeway_secs = 5
jwks_refresh_secs = {refresh_secs}
privileges_claim = "roles"
scopes = {{ "catalog.write" = ["catalog:write"], "apps.run" = ["apps:run"] }}

[[tools]]
name = "whoami"
description = "Answers who called."
endpoint = "{base}/app"
privileges = ["apps:run"]
"#,
        base = issuer.base
    )
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn claims(issuer: &Issuer, scope: &str) -> Value {
    json!({"iss": issuer.base, "aud": AUDIENCE, "sub": "ann", "scope": scope,
           "roles": ["audit"], "iat": now(), "nbf": now() - 5, "exp": now() + 300})
}

/// A raw `tools/call` on 2026-07-28 (stateless) with an `Authorization` header value.
fn raw_call(
    server: &Server,
    authorization: Option<&[u8]>,
    tool: &str,
) -> reqwest::blocking::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": gateway::meta_2026()}});
    let mut request = reqwest::blocking::Client::new()
        .post(&server.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
        .body(body.to_string());
    if let Some(value) = authorization {
        request = request
            .header("Authorization", reqwest::header::HeaderValue::from_bytes(value).unwrap());
    }
    request.send().unwrap()
}

fn challenge(response: &reqwest::blocking::Response) -> String {
    response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

fn json_of(response: reqwest::blocking::Response) -> Value {
    serde_json::from_str(&response.text().unwrap()).unwrap()
}

fn structured(answer: &Value) -> Value {
    answer["result"]["structuredContent"].clone()
}

#[test]
fn tokens_from_the_issuer_are_checked_and_mapped() {
    let fixture = issuer();
    let issuer = &fixture.issuer;
    let (es, ed) = (Signer::es256(), Signer::eddsa());
    *issuer.jwks.lock().unwrap() = json!({"keys": [es.jwk("k1"), ed.jwk("k2")]});
    let server = Server::start(Some(&config(issuer, 0)), &[]);

    // A valid token: served, with the principal and the privileges its scopes and roles grant.
    for (signer, kid) in [(&es, "k1"), (&ed, "k2")] {
        let token = signer.mint(kid, &claims(issuer, "apps.run catalog.write"));
        let mut client = HttpClient::connect(&server.url, "2026-07-28", Some(&token));
        let answer = client.call("whoami", json!({}));
        let context = structured(&answer);
        assert_eq!(context["principal"], "ann", "{answer}");
        assert_eq!(context["privileges"], json!(["apps:run", "audit", "catalog:write"]));
        let update = client.call("catalog_update_price", json!({"id": 1, "price": 9.5}));
        assert_eq!(structured(&update)["newPrice"], 9.5, "{update}");
    }

    // Every bad token is a 401 naming the metadata, with error="invalid_token".
    let with = |key: &str, value: Value| {
        let mut c = claims(issuer, "apps.run");
        c[key] = value;
        es.mint("k1", &c)
    };
    let other = Signer::es256();
    let good = es.mint("k1", &claims(issuer, "apps.run"));
    let (signed, _) = good.rsplit_once('.').unwrap();
    let unsigned = format!(
        "{}.{}.",
        b64(json!({"alg": "none", "kid": "k1"}).to_string().as_bytes()),
        b64(claims(issuer, "apps.run").to_string().as_bytes())
    );
    let cases = [
        ("expired", with("exp", json!(now() - 60)), "has expired"),
        ("not yet valid", with("nbf", json!(now() + 60)), "not valid yet"),
        ("wrong issuer", with("iss", json!("http://127.0.0.1:1")), "another authorization server"),
        ("wrong audience", with("aud", json!("https://elsewhere.test/mcp")), "another resource"),
        ("bad signature", format!("{signed}.{}", b64(&[7u8; 64])), "signature is not valid"),
        (
            "another key, same kid",
            other.mint("k1", &claims(issuer, "apps.run")),
            "signature is not valid",
        ),
        (
            "unknown kid",
            other.mint("k9", &claims(issuer, "apps.run")),
            "a key the issuer does not publish",
        ),
        ("alg none", unsigned, "algorithm `none` is not accepted"),
        ("not a JWT", "garbage".to_owned(), "not a well-formed JWT"),
    ];
    for (case, token, reason) in cases {
        let response = raw_call(&server, Some(format!("Bearer {token}").as_bytes()), "whoami");
        assert_eq!(response.status(), 401, "{case}");
        let value = challenge(&response);
        assert!(
            value.starts_with(&format!(
                "Bearer resource_metadata=\"{PRM}\", error=\"invalid_token\""
            )),
            "{case}: {value}"
        );
        assert!(value.contains(reason), "{case}: {value}");
        let body: Value = json_of(response);
        assert_eq!(body["error"], "invalid_token", "{case}");
    }

    // No token at all: 401 that tells the client where to authenticate (no error code).
    let response = raw_call(&server, None, "whoami");
    assert_eq!(response.status(), 401);
    assert_eq!(challenge(&response), format!("Bearer resource_metadata=\"{PRM}\""));

    // Probes and metrics are not behind the MCP auth unless configured.
    for path in ["/healthz", "/readyz", "/metrics"] {
        let url = server.url.replace("/mcp", path);
        assert_eq!(reqwest::blocking::get(&url).unwrap().status(), 200, "{path}");
    }

    // The metadata itself, at both forms, without credentials.
    for path in
        ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
    {
        let url = server.url.replace("/mcp", path);
        let doc: Value = json_of(reqwest::blocking::get(&url).unwrap());
        assert_eq!(doc["resource"], AUDIENCE);
        assert_eq!(doc["authorization_servers"], json!([issuer.base]));
        assert_eq!(doc["scopes_supported"], json!(["apps.run", "catalog.write"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }

    // A token without the scope the tool needs: 403 insufficient_scope naming it.
    let narrow = es.mint("k1", &claims(issuer, "catalog.write"));
    let response = raw_call(&server, Some(format!("Bearer {narrow}").as_bytes()), "whoami");
    assert_eq!(response.status(), 403);
    let value = challenge(&response);
    assert!(
        value.starts_with(&format!(
            "Bearer error=\"insufficient_scope\", scope=\"apps.run\", resource_metadata=\"{PRM}\""
        )),
        "{value}"
    );
    let body: Value = json_of(response);
    assert_eq!(body["scope"], "apps.run");
    // The same token still calls what it may.
    let response = raw_call(&server, Some(format!("Bearer {narrow}").as_bytes()), "catalog_count");
    assert_eq!(response.status(), 200);

    // Static tokens keep working beside OAuth.
    let mut robot = HttpClient::connect(&server.url, "2026-07-28", Some("static-secret"));
    let count = robot.call("catalog_count", json!({}));
    assert!(count["result"]["structuredContent"].is_number(), "{count}");

    // Rotation: the issuer drops k1 and publishes k3; a k3 token is served without a restart,
    // and a k1 token is refused once the keys were fetched again.
    let rotated = Signer::eddsa();
    *issuer.jwks.lock().unwrap() = json!({"keys": [rotated.jwk("k3")]});
    let fresh = rotated.mint("k3", &claims(issuer, "apps.run"));
    let mut client = HttpClient::connect(&server.url, "2026-07-28", Some(&fresh));
    assert_eq!(structured(&client.call("whoami", json!({})))["principal"], "ann");
    let response = raw_call(&server, Some(format!("Bearer {good}").as_bytes()), "whoami");
    assert_eq!(response.status(), 401);
    assert!(
        challenge(&response).contains("a key the issuer does not publish"),
        "{}",
        challenge(&response)
    );
}

#[test]
fn unknown_kids_refresh_the_keys_at_most_once_per_interval() {
    let fixture = issuer();
    let issuer = &fixture.issuer;
    let es = Signer::es256();
    *issuer.jwks.lock().unwrap() = json!({"keys": [es.jwk("k1")]});
    let server = Server::start(Some(&config(issuer, 3600)), &[]);
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1, "fetched once at start");
    let stranger = Signer::es256();
    for i in 0..5 {
        let token = stranger.mint(&format!("x{i}"), &claims(issuer, "apps.run"));
        let response = raw_call(&server, Some(format!("Bearer {token}").as_bytes()), "whoami");
        assert_eq!(response.status(), 401);
    }
    assert_eq!(issuer.fetches.load(Ordering::SeqCst), 1, "no refetch within the interval");
    let token = es.mint("k1", &claims(issuer, "apps.run"));
    let mut client = HttpClient::connect(&server.url, "2026-07-28", Some(&token));
    assert_eq!(structured(&client.call("whoami", json!({})))["principal"], "ann");
}

#[test]
fn the_authorization_header_is_read_strictly() {
    let server = Server::start(
        Some(
            "[auth]\nanonymous = true\n\n[[auth.tokens]]\ntoken = \"s3cret\"\nprincipal = \"ann\"\n",
        ),
        &[],
    );
    // The scheme is case-insensitive.
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let response =
            raw_call(&server, Some(format!("{scheme} s3cret").as_bytes()), "catalog_count");
        assert_eq!(response.status(), 200, "{scheme}");
    }
    // A header that is not UTF-8 is a 401, even though anonymous access is on.
    let response = raw_call(&server, Some(b"Bearer s3cret\xff"), "catalog_count");
    assert_eq!(response.status(), 401);
    assert!(
        challenge(&response).starts_with("Bearer error=\"invalid_request\""),
        "{}",
        challenge(&response)
    );
    // So is another scheme, and an unknown token.
    let response = raw_call(&server, Some(b"Basic czNjcmV0"), "catalog_count");
    assert_eq!(response.status(), 401);
    let response = raw_call(&server, Some(b"Bearer s3cre"), "catalog_count");
    assert_eq!(response.status(), 401);
    assert!(challenge(&response).starts_with("Bearer error=\"invalid_token\""));
    // Without a header, anonymous access is what the config says.
    assert_eq!(raw_call(&server, None, "catalog_count").status(), 200);
}

#[test]
fn duplicate_and_reserved_tokens_stop_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"ann\"\n[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"bob\"\n",
            "auth.tokens[1].token: the same token as auth.tokens[0]",
        ),
        (
            "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"anonymous\"\n",
            "auth.tokens[0].principal: `anonymous` is reserved",
        ),
        (
            "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"local\"\n",
            "auth.tokens[0].principal: `local` is reserved",
        ),
    ];
    for (text, expected) in cases {
        let path = dir.path().join("toolwire.toml");
        std::fs::write(&path, text).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolwire"))
            .args(["serve", "--listen", "127.0.0.1:0", "--config"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&format!("{}: {expected}", path.display())), "{stderr}");
    }
}

#[test]
fn the_issuer_being_down_at_start_does_not_stop_the_server() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    // An audience behind a path-routing proxy.
    let audience = "https://tools.test/team-a/mcp";
    let config = format!("[auth.oauth]\nissuer = \"{base}\"\naudience = \"{audience}\"\n");
    let server = Server::start(Some(&config), &[]);
    let ready = reqwest::blocking::get(server.url.replace("/mcp", "/readyz")).unwrap();
    assert_eq!(ready.status(), 503);
    let body: Value = json_of(ready);
    let reason = body["reasons"][0].as_str().unwrap();
    assert!(reason.contains("signing keys could not be fetched"), "{body}");
    // Both metadata URLs tried are named.
    for tried in [
        format!("{base}/.well-known/oauth-authorization-server:"),
        format!("{base}/.well-known/openid-configuration:"),
    ] {
        assert!(reason.contains(&tried), "{tried} not in {reason}");
    }
    // The metadata is served at the audience's own RFC 9728 path, keys or not, and the challenge
    // points there.
    let prm = server.url.replace("/mcp", "/.well-known/oauth-protected-resource/team-a/mcp");
    let doc: Value = json_of(reqwest::blocking::get(&prm).unwrap());
    assert_eq!(doc["resource"], audience);
    let response = raw_call(&server, None, "whoami");
    assert_eq!(response.status(), 401);
    assert!(
        challenge(&response).contains(
            "resource_metadata=\"https://tools.test/.well-known/oauth-protected-resource/team-a/mcp\""
        ),
        "{}",
        challenge(&response)
    );
    // Logged before the listening line, so it is already read.
    assert!(server.stderr().contains("OAuth keys not loaded yet"), "{}", server.stderr());
}
