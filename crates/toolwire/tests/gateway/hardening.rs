//! The gateway against broken and hostile peers: app endpoints that redirect, answer errors in
//! their own envelope, sit behind TLS, or would be reached through a proxy from the
//! environment; a Redis store behind TLS; tool names that try to forge log lines. Callers are
//! told the tool, the kind of failure and what to do, never the endpoint.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};

use crate::gateway::{self, HttpClient, Server, texts};

const REVISION: &str = "2025-11-25";

fn tool(name: &str, endpoint: &str, extra: &str) -> String {
    format!(
        "[[tools]]\nname = \"{name}\"\ndescription = \"App tool {name}.\"\nendpoint = \"{endpoint}\"\n{extra}\n"
    )
}

fn failure(result: &Value) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    serde_json::from_str(&texts(result)[0]).unwrap()
}

/// A loopback HTTP server on its own runtime that counts the requests it receives and answers
/// each with a legacy success naming itself.
struct Counter {
    url: String,
    hits: Arc<AtomicUsize>,
    _runtime: tokio::runtime::Runtime,
}

impl Counter {
    fn start() -> Counter {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let seen = hits.clone();
        let router = axum::Router::new().fallback(move || {
            let seen = seen.clone();
            async move {
                seen.fetch_add(1, Ordering::SeqCst);
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"success":true,"data":"counter"}"#,
                )
            }
        });
        runtime.spawn(async move { axum::serve(listener, router).await });
        Counter { url, hits, _runtime: runtime }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// The app: redirects to `elsewhere`, failures in the app's own envelope with error statuses,
/// and other error bodies that must stay hidden.
fn app(runtime: &tokio::runtime::Runtime, elsewhere: String) -> String {
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handler = move |Path(name): Path<String>| {
        let elsewhere = elsewhere.clone();
        async move {
            let json = |status: StatusCode, text: &str| {
                (status, [(header::CONTENT_TYPE, "application/json")], text.to_owned())
                    .into_response()
            };
            let redirect = |status: StatusCode| -> Response {
                (status, [(header::LOCATION, format!("{elsewhere}/steal"))]).into_response()
            };
            match name.as_str() {
                "r302" => redirect(StatusCode::FOUND),
                "r307" => redirect(StatusCode::TEMPORARY_REDIRECT),
                "legacy-409" => json(
                    StatusCode::CONFLICT,
                    r#"{"success":false,"error":"Order 7 is already cancelled","code":"conflict"}"#,
                ),
                "v1-500" => json(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    r#"{"format":"toolwire.result.v1","error":{"code":"rate_limited","message":"Slow down: 10 calls a minute"}}"#,
                ),
                "success-500" => {
                    json(StatusCode::INTERNAL_SERVER_ERROR, r#"{"success":true,"data":"fine"}"#)
                }
                "text-500" => (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    [(header::CONTENT_TYPE, "text/plain")],
                    r#"{"success":false,"error":"db password is hunter2"}"#,
                )
                    .into_response(),
                "stack-502" => json(
                    StatusCode::BAD_GATEWAY,
                    r#"{"trace":"at db.connect(postgres://admin:hunter2@10.0.0.5)"}"#,
                ),
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    };
    let router = axum::Router::new().route("/{name}", axum::routing::post(handler));
    runtime.spawn(async move { axum::serve(listener, router).await });
    base
}

#[test]
fn redirects_are_never_followed() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let elsewhere = Counter::start();
    let base = app(&runtime, elsewhere.url.clone());
    let secret = "headers = { X-Api-Key = { value = \"app-secret\" } }";
    let config = [
        "[auth]\nanonymous = true\n\n".to_owned(),
        tool("r302", &format!("{base}/r302"), secret),
        tool("r307", &format!("{base}/r307"), secret),
    ]
    .concat();
    let server = Server::start(Some(&config), &[]);
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    for (name, status) in [("r302", "302 Found"), ("r307", "307 Temporary Redirect")] {
        let r = client.call(name, json!({"q": "chairs"}));
        let failure = failure(&r["result"]);
        assert_eq!(failure["code"], "upstream_unavailable");
        assert_eq!(
            failure["error"],
            format!(
                "Tool {name} is unavailable: its app answered with a redirect (HTTP {status}), and toolwire does not follow redirects. The operator should set the tool's endpoint in toolwire.toml to the URL the app redirects to."
            )
        );
    }
    assert_eq!(elsewhere.hits(), 0, "the other host received a request");
    let location = format!("location=\"{}/steal\"", elsewhere.url);
    assert!(server.logs_within(&location, Duration::from_secs(5)), "{}", server.stderr());
}

#[test]
fn error_statuses_keep_the_apps_own_failure_and_hide_anything_else() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let base = app(&runtime, "http://127.0.0.1:9".into());
    let mut config = String::from("[auth]\nanonymous = true\n\n");
    for name in ["legacy-409", "v1-500", "success-500", "text-500", "stack-502"] {
        config.push_str(&tool(name, &format!("{base}/{name}"), ""));
    }
    let server = Server::start(Some(&config), &[]);
    let mut client = HttpClient::connect(&server.url, REVISION, None);

    let r = client.call("legacy-409", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(result["structuredContent"]["error"]["code"], "conflict");
    assert_eq!(result["structuredContent"]["error"]["message"], "Order 7 is already cancelled");

    let r = client.call("v1-500", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    let kept = failure(result);
    assert_eq!(
        (&kept["code"], &kept["error"]),
        (&json!("rate_limited"), &json!("Slow down: 10 calls a minute"))
    );

    for (name, status) in [
        ("success-500", "500 Internal Server Error"),
        ("text-500", "500 Internal Server Error"),
        ("stack-502", "502 Bad Gateway"),
    ] {
        let r = client.call(name, json!({}));
        let result = gateway::checked_result(REVISION, &r, None);
        let failure = failure(result);
        assert_eq!(failure["code"], "upstream_unavailable", "{name}");
        assert_eq!(
            failure["error"],
            format!(
                "Tool {name} is unavailable: its app answered HTTP {status}. Try again later; if this keeps happening, the operator should check the app's logs."
            )
        );
        assert!(!result.to_string().contains("hunter2"), "{name}: {result}");
    }
}

#[test]
fn callers_never_see_the_endpoint_and_the_log_hides_its_password() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let endpoint = format!("http://ops:hunter2@127.0.0.1:{port}/internal/orders");
    let config =
        ["[auth]\nanonymous = true\n\n".to_owned(), tool("orders", &endpoint, "")].concat();
    let server = Server::start(Some(&config), &[]);
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let r = client.call("orders", json!({}));
    let failure = failure(&r["result"]);
    assert_eq!(
        failure["error"],
        "Tool orders is unavailable: its app could not be reached. Try again later; if this keeps happening, the operator should check that the app is running and that the tool's endpoint in toolwire.toml is right."
    );
    assert!(!r.to_string().contains("127.0.0.1") && !r.to_string().contains("hunter2"), "{r}");
    let endpoint = format!("endpoint=http://ops:***@127.0.0.1:{port}/internal/orders");
    assert!(server.logs_within(&endpoint, Duration::from_secs(5)), "{}", server.stderr());
    let log = server.stderr();
    assert!(!log.contains("hunter2"), "{log}");
}

#[test]
fn proxies_come_from_the_config_never_from_the_environment() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let base = app(&runtime, "http://127.0.0.1:9".into());
    let proxy = Counter::start();
    let config = [
        "[auth]\nanonymous = true\n\n".to_owned(),
        tool("direct", &format!("{base}/legacy-409"), ""),
        tool("proxied", &format!("{base}/legacy-409"), &format!("proxy = \"{}\"", proxy.url)),
    ]
    .concat();
    let env = [
        ("HTTP_PROXY", proxy.url.as_str()),
        ("http_proxy", proxy.url.as_str()),
        ("ALL_PROXY", proxy.url.as_str()),
        ("all_proxy", proxy.url.as_str()),
    ];
    let server = Server::start(Some(&config), &env);
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let r = client.call("direct", json!({}));
    assert_eq!(failure(&r["result"])["code"], "conflict", "{r}");
    assert_eq!(proxy.hits(), 0, "the proxy of the environment was used");
    let r = client.call("proxied", json!({}));
    assert_eq!(r["result"]["structuredContent"], json!({"result": "counter"}), "{r}");
    assert_eq!(proxy.hits(), 1);
}

#[test]
fn tool_names_cannot_forge_log_lines() {
    let server = Server::start(None, &[]);
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let forged = "nope\n2026-12-01T00:00:00.000000Z  INFO toolwire: forged\u{1b}[31m";
    let r = client.request("tools/call", json!({"name": forged, "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let escaped = r"tool=nope\n2026-12-01T00:00:00.000000Z  INFO toolwire: forged\u{1b}[31m";
    assert!(server.logs_within(escaped, Duration::from_secs(5)), "{}", server.stderr());
    let log = server.stderr();
    assert!(!log.lines().any(|line| line.starts_with("2026-12-01T00:00:00")), "{log}");
    assert!(!log.contains('\u{1b}'), "{log}");
}

/// A CA and a certificate it signed for `127.0.0.1` and `localhost`.
struct Pki {
    ca_pem: String,
    cert_pem: String,
    cert_der: Vec<u8>,
    key_pem: String,
    key_der: Vec<u8>,
}

fn pki() -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "toolwire test CA");
    ca_params.key_usages =
        vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let params =
        rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .unwrap();
    let cert = params.signed_by(&key, &ca).unwrap();
    Pki {
        ca_pem: ca.pem(),
        cert_pem: cert.pem(),
        cert_der: cert.der().to_vec(),
        key_pem: key.serialize_pem(),
        key_der: key.serialize_der(),
    }
}

/// Accepts TCP connections and completes the TLS handshake; failed handshakes are dropped.
struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, address)) = self.tcp.accept().await else { continue };
            if let Ok(tls) = self.acceptor.accept(tcp).await {
                return (tls, address);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

#[test]
fn https_endpoints_work_with_a_configured_ca_and_refuse_an_untrusted_certificate() {
    gateway::install_tls_provider();
    let pki = pki();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let tcp = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = tcp.local_addr().unwrap().port();
    let tls = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(pki.cert_der.clone())],
            PrivateKeyDer::try_from(pki.key_der.clone()).unwrap(),
        )
        .unwrap();
    let listener = TlsListener { tcp, acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(tls)) };
    let router = axum::Router::new().route(
        "/v1",
        axum::routing::post(|| async {
            (
                [(header::CONTENT_TYPE, "application/json")],
                r#"{"format":"toolwire.result.v1","data":{"over":"tls"}}"#,
            )
        }),
    );
    runtime.spawn(async move { axum::serve(listener, router).await });

    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &pki.ca_pem).unwrap();
    let endpoint = format!("https://127.0.0.1:{port}/v1");
    let config = [
        "[auth]\nanonymous = true\n\n".to_owned(),
        tool("secure", &endpoint, &format!("ca_file = {:?}", ca_file.to_str().unwrap())),
        tool("untrusted", &endpoint, ""),
    ]
    .concat();
    let server = Server::start(Some(&config), &[]);
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let r = client.call("secure", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(result["structuredContent"], json!({"over": "tls"}));

    let r = client.call("untrusted", json!({}));
    assert_eq!(
        failure(&r["result"])["error"],
        "Tool untrusted is unavailable: the TLS connection to its app failed (its certificate was not accepted). The operator should check the app's certificate, or set ca_file for this tool in toolwire.toml."
    );
}

/// `redis-server` serving TLS only, on a free loopback port; killed on drop.
struct TlsRedis {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl TlsRedis {
    fn start(pki: &Pki) -> TlsRedis {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("cert.pem"), &pki.cert_pem).unwrap();
        std::fs::write(dir.path().join("key.pem"), &pki.key_pem).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("redis-server")
            .args(["--port", "0", "--tls-port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--tls-auth-clients", "no"])
            .arg("--tls-cert-file")
            .arg(dir.path().join("cert.pem"))
            .arg("--tls-key-file")
            .arg(dir.path().join("key.pem"))
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => panic!(
                    "redis-server is not installed: this test needs a real Redis; install \
                     redis-server (apt install redis-server), as scripts/test does ({e})"
                ),
                _ => panic!("cannot start redis-server: {e}"),
            });
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        TlsRedis { child, port, _dir: dir }
    }
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_rediss_store_keeps_and_reads_back_offloaded_results() {
    let pki = pki();
    let redis = TlsRedis::start(&pki);
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &pki.ca_pem).unwrap();
    let config = format!(
        "[store]\nurl = \"rediss://127.0.0.1:{}/\"\nca_file = {:?}\nsigning_keys_env = \"TW_KEYS\"\n\n[auth]\nanonymous = true\n",
        redis.port,
        ca_file.to_str().unwrap()
    );
    let keys = toolwire_store::KeySet::generate().unwrap().to_json();
    let server = Server::start(Some(&config), &[("TW_KEYS", &keys)]);
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let response = client.call("catalog_export", json!({}));
    let link = gateway::stored_link(&response["result"]);
    let read = client.request("resources/read", json!({"uri": link}));
    let text = read["result"]["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{read}"));
    assert_eq!(serde_json::from_str::<Value>(text).unwrap().as_array().unwrap().len(), 2000);
}

#[test]
fn a_huge_link_ttl_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwire.toml");
    std::fs::write(&path, "[store]\nlink_ttl = 9223372036854775807\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(&path)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "toolwire: {}: store.link_ttl: 9223372036854775807 seconds is over the longest link lifetime, 2592000 (30 days)\n",
            path.display()
        )
    );
}
