//! `toolwire.toml`: the gateway's configuration file, and the settings that result from it, the
//! command line and the environment (flags over the file, `TOOLWIRE_PHASE` over the file).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use toolwire_core::{McpRevision, Phase, Shape, ValidationMode};

use super::oauth::Algorithm;

/// The default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// The default data directory.
pub const DEFAULT_DATA_DIR: &str = "./toolwire-data";
/// The default app endpoint timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The default cap on an app answer: 16 MiB − 64 KiB.
pub const DEFAULT_RESPONSE_CAP: u64 = 16 * 1024 * 1024 - 64 * 1024;
/// The longest `store.link_ttl`: 30 days. A stored result is a cache of one answer, not an
/// archive; longer lifetimes only grow the store (and far larger ones overflow expiry times).
pub const MAX_LINK_TTL_SECS: u64 = 30 * 24 * 3600;

/// The file as written (every key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `compat` or `spec`.
    pub phase: Option<String>,
    /// The `_meta` prefix.
    pub prefix: Option<String>,
    /// `enforce`, `warn` or `off`.
    pub validation: Option<String>,
    /// `host:port` for Streamable HTTP.
    pub listen: Option<String>,
    /// The server name in `initialize` and 2026 results.
    pub server_name: Option<String>,
    /// Extra `Host` values accepted (the loopback names and the listen host always are).
    pub allowed_hosts: Option<Vec<String>>,
    /// Browser origins accepted; empty means Origin is not checked.
    pub allowed_origins: Option<Vec<String>>,
    /// Whether the built-in demo tools are served (default true).
    pub demo_tools: Option<bool>,
    /// Size limits per target.
    pub limits: Option<LimitsConfig>,
    /// Where stored results live.
    pub store: Option<StoreConfig>,
    /// Who may call.
    pub auth: Option<AuthConfig>,
    /// Health, readiness and metrics endpoints.
    pub ops: Option<OpsConfig>,
    /// App tools.
    #[serde(default)]
    pub tools: Vec<AppToolConfig>,
}

/// `[limits]`: bytes per target.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Every MCP revision at once.
    pub mcp: Option<u64>,
    /// Per revision, overriding `mcp`.
    #[serde(rename = "mcp-2024-11-05")]
    pub mcp_2024_11_05: Option<u64>,
    /// Per revision.
    #[serde(rename = "mcp-2025-03-26")]
    pub mcp_2025_03_26: Option<u64>,
    /// Per revision.
    #[serde(rename = "mcp-2025-06-18")]
    pub mcp_2025_06_18: Option<u64>,
    /// Per revision.
    #[serde(rename = "mcp-2025-11-25")]
    pub mcp_2025_11_25: Option<u64>,
    /// Per revision.
    #[serde(rename = "mcp-2026-07-28")]
    pub mcp_2026_07_28: Option<u64>,
}

/// `[store]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// `redb` (default), `memory` or `redis://…`.
    pub url: Option<String>,
    /// The data directory of the embedded store and its keys.
    pub data_dir: Option<PathBuf>,
    /// Seconds a stored result stays readable.
    pub link_ttl: Option<u64>,
    /// The environment variable holding the signing keys (required with Redis).
    pub signing_keys_env: Option<String>,
    /// `fail` (default) or `inline` when the store fails.
    pub offload_fallback: Option<String>,
    /// A PEM file of CA certificates trusted for `rediss://` instead of the system roots.
    pub ca_file: Option<PathBuf>,
}

/// `[auth]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Whether requests without a token are served as `anonymous` (default false).
    #[serde(default)]
    pub anonymous: bool,
    /// Bearer tokens.
    #[serde(default)]
    pub tokens: Vec<TokenConfig>,
    /// Access tokens from an OAuth 2.1 authorization server.
    pub oauth: Option<OAuthConfig>,
}

/// `[auth.oauth]`: toolwire as an OAuth 2.1 resource server (the MCP authorization spec).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthConfig {
    /// The authorization server's issuer identifier (the `iss` of its tokens).
    pub issuer: String,
    /// This server's canonical URL (RFC 8707), e.g. `https://tools.example.com/mcp`.
    pub audience: String,
    /// Where the signing keys are; default: the `jwks_uri` of the issuer's metadata.
    pub jwks_url: Option<String>,
    /// Accepted algorithms (default RS256, ES256, EdDSA).
    pub algorithms: Option<Vec<String>>,
    /// Seconds of clock skew allowed on `exp` and `nbf` (default 60).
    pub leeway_secs: Option<u64>,
    /// The claim naming the principal (default `sub`).
    pub principal_claim: Option<String>,
    /// A claim listing privileges directly (array or space-separated string).
    pub privileges_claim: Option<String>,
    /// Scope → the privileges it grants.
    #[serde(default)]
    pub scopes: BTreeMap<String, Vec<String>>,
    /// Fewest seconds between two key refreshes caused by an unknown `kid` (default 30).
    pub jwks_refresh_secs: Option<u64>,
}

/// `[ops]`: `/healthz`, `/readyz` and `/metrics`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpsConfig {
    /// The metrics path (default `/metrics`).
    pub metrics_path: Option<String>,
    /// A separate `host:port` for the three endpoints (default: the MCP listener).
    pub listen: Option<String>,
    /// Whether the three endpoints need the same credentials as MCP (default false).
    pub require_auth: Option<bool>,
}

/// `[[auth.tokens]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    /// The environment variable holding the token.
    pub token_env: Option<String>,
    /// The token itself (for local testing; prefer `token_env`).
    pub token: Option<String>,
    /// The principal the token stands for.
    pub principal: String,
    /// Its privileges.
    #[serde(default)]
    pub privileges: Vec<String>,
}

/// `[[tools]]`: one app tool.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppToolConfig {
    /// Its name.
    pub name: String,
    /// Its display title.
    pub title: Option<String>,
    /// What it does (required).
    pub description: Option<String>,
    /// The JSON Schema of its arguments (default: an object with any keys).
    pub input_schema: Option<Value>,
    /// Typed outputs or a JSON Schema of its data.
    pub outputs: Option<Value>,
    /// Tool annotations.
    pub annotations: Option<serde_json::Map<String, Value>>,
    /// `data` (default) or `envelope`.
    pub shape: Option<String>,
    /// Privileges the caller must hold.
    #[serde(default)]
    pub privileges: Vec<String>,
    /// The URL toolwire POSTs to.
    pub endpoint: String,
    /// Milliseconds to wait for the answer.
    pub timeout_ms: Option<u64>,
    /// Request headers: `{ value = "…" }` or `{ env = "VAR", prefix = "Bearer " }`.
    #[serde(default)]
    pub headers: BTreeMap<String, HeaderConfig>,
    /// The largest answer accepted, in bytes.
    pub response_cap: Option<u64>,
    /// A PEM file of CA certificates trusted for an `https://` endpoint instead of the system
    /// roots.
    pub ca_file: Option<PathBuf>,
    /// The proxy URL for this endpoint (none unless set; proxy environment variables are
    /// ignored).
    pub proxy: Option<String>,
}

/// One header value, literal or from the environment.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderConfig {
    /// A literal value.
    pub value: Option<String>,
    /// The environment variable holding the value (secrets).
    pub env: Option<String>,
    /// Text put before the variable's value (e.g. `Bearer `).
    #[serde(default)]
    pub prefix: String,
}

/// A configuration problem: the file (when there is one), the key and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}{key}: {message}", file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
pub struct ConfigError {
    /// The file.
    pub file: Option<PathBuf>,
    /// The key, dotted (`tools[2].timeout_ms`).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

/// Which store backs stored results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreKind {
    /// The embedded default in the data directory.
    Redb,
    /// In memory (lost on restart).
    Memory,
    /// Redis at this URL.
    Redis(String),
}

/// A resolved app tool (secrets read, defaults applied).
#[derive(Debug, Clone)]
pub struct AppTool {
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: Option<String>,
    /// Its description.
    pub description: String,
    /// Its input schema.
    pub input_schema: Value,
    /// Its declared outputs.
    pub outputs: Option<Value>,
    /// Its annotations.
    pub annotations: Option<serde_json::Map<String, Value>>,
    /// Its shape.
    pub shape: Shape,
    /// Required privileges.
    pub privileges: Vec<String>,
    /// Where to POST.
    pub endpoint: String,
    /// How long to wait.
    pub timeout: Duration,
    /// Headers (values resolved).
    pub headers: Vec<(String, String)>,
    /// The answer cap.
    pub response_cap: u64,
    /// CA certificates trusted instead of the system roots.
    pub ca_certs: Option<Vec<reqwest::Certificate>>,
    /// The proxy, when one is configured.
    pub proxy: Option<String>,
}

/// A resolved bearer token.
#[derive(Debug, Clone)]
pub struct Token {
    /// The secret.
    pub secret: String,
    /// The principal.
    pub principal: String,
    /// Its privileges.
    pub privileges: Vec<String>,
}

/// The resolved `[auth.oauth]`.
#[derive(Debug, Clone)]
pub struct OAuthSettings {
    /// The issuer.
    pub issuer: String,
    /// This server's canonical URL.
    pub audience: String,
    /// An explicit JWKS URL.
    pub jwks_url: Option<String>,
    /// Accepted algorithms.
    pub algorithms: Vec<Algorithm>,
    /// Clock skew allowed.
    pub leeway: Duration,
    /// The principal claim.
    pub principal_claim: String,
    /// The privileges claim.
    pub privileges_claim: Option<String>,
    /// Scope → privileges.
    pub scopes: BTreeMap<String, Vec<String>>,
    /// Fewest time between refreshes on an unknown `kid`.
    pub refresh_interval: Duration,
}

/// The resolved `[ops]`.
#[derive(Debug, Clone)]
pub struct OpsSettings {
    /// The metrics path.
    pub metrics_path: String,
    /// A separate listen address.
    pub listen: Option<SocketAddr>,
    /// Whether the endpoints need MCP credentials.
    pub require_auth: bool,
}

/// Principals no configured token may claim: they name callers without credentials.
pub const RESERVED_PRINCIPALS: [&str; 2] = ["anonymous", "local"];

/// Every setting of `toolwire serve`, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file, when one was given.
    pub file: Option<PathBuf>,
    /// The phase.
    pub phase: Phase,
    /// The `_meta` prefix.
    pub prefix: String,
    /// The validation mode.
    pub validation: ValidationMode,
    /// The listen address.
    pub listen: SocketAddr,
    /// Serve stdio instead of HTTP.
    pub stdio: bool,
    /// The server name.
    pub server_name: String,
    /// Accepted `Host` values.
    pub allowed_hosts: Vec<String>,
    /// Accepted origins.
    pub allowed_origins: Vec<String>,
    /// Serve the demo tools.
    pub demo_tools: bool,
    /// Limits per revision.
    pub limits: BTreeMap<McpRevision, u64>,
    /// The store.
    pub store: StoreKind,
    /// The data directory.
    pub data_dir: PathBuf,
    /// Link lifetime.
    pub link_ttl: Duration,
    /// The variable holding signing keys.
    pub signing_keys_env: Option<String>,
    /// PEM CA certificates trusted for `rediss://` instead of the system roots.
    pub store_ca_pem: Option<Vec<u8>>,
    /// Send inline when the store fails.
    pub offload_fallback_inline: bool,
    /// Whether a config file governs access (then tokens, and anonymous only if enabled).
    pub auth_configured: bool,
    /// Anonymous access allowed.
    pub anonymous: bool,
    /// Tokens.
    pub tokens: Vec<Token>,
    /// OAuth access tokens.
    pub oauth: Option<OAuthSettings>,
    /// Health, readiness and metrics.
    pub ops: OpsSettings,
    /// App tools.
    pub tools: Vec<AppTool>,
}

/// What the command line says (each `None` leaves the file's value).
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--listen`.
    pub listen: Option<String>,
    /// `--stdio`.
    pub stdio: bool,
    /// `--data-dir`.
    pub data_dir: Option<PathBuf>,
    /// `--phase`.
    pub phase: Option<String>,
}

impl Settings {
    /// Reads the file (when given) and applies flags and environment over it. `env` looks up an
    /// environment variable (injected so tests need not touch the process environment).
    pub fn load(
        overrides: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let file = overrides.config.clone();
        let parsed = match &file {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        resolve(parsed, file, overrides, env)
    }
}

fn read_file(path: &Path) -> Result<FileConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: Some(path.to_owned()),
        key: "(file)".into(),
        message: format!("cannot read it: {e}"),
    })?;
    toml::from_str(&text).map_err(|e| ConfigError {
        file: Some(path.to_owned()),
        key: e.span().map(|span| key_at(&text, span.start)).unwrap_or_else(|| "(file)".into()),
        message: e.message().to_owned(),
    })
}

/// The `line N` a byte offset falls on, and the text of that line's key, for an error message.
fn key_at(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[start..];
    let line_text = rest.lines().next().unwrap_or_default();
    let key = line_text.split('=').next().unwrap_or_default().trim();
    format!("line {line} (`{key}`)")
}

/// A PEM file of CA certificates: its bytes and its certificates, at least one.
fn read_ca(path: &Path) -> Result<(Vec<u8>, Vec<reqwest::Certificate>), String> {
    let pem = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|e| format!("{} is not a PEM certificate file: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    Ok((pem, certs))
}

fn resolve(
    parsed: FileConfig,
    file: Option<PathBuf>,
    overrides: &Overrides,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Settings, ConfigError> {
    let error = |key: &str, message: String| ConfigError {
        file: file.clone(),
        key: key.to_owned(),
        message,
    };
    // Phase: --phase, else TOOLWIRE_PHASE, else the file, else compat (DESIGN §3).
    let (phase_key, phase_text) = match (&overrides.phase, env("TOOLWIRE_PHASE"), &parsed.phase) {
        (Some(flag), _, _) => ("--phase", Some(flag.clone())),
        (None, Some(var), _) => ("TOOLWIRE_PHASE", Some(var)),
        (None, None, from_file) => ("phase", from_file.clone()),
    };
    let phase = match phase_text {
        Some(text) => Phase::parse(&text).ok_or_else(|| ConfigError {
            file: if phase_key == "phase" { file.clone() } else { None },
            key: phase_key.into(),
            message: format!("`{text}` is not a phase; expected compat or spec"),
        })?,
        None => Phase::Compat,
    };
    let prefix = parsed.prefix.unwrap_or_else(|| "dev.toolwire".into());
    if !toolwire_core::grammar::is_prefix(&prefix)
        || toolwire_core::grammar::is_mcp_reserved(&prefix)
    {
        return Err(error(
            "prefix",
            format!("`{prefix}` is not a usable _meta prefix (dot-separated labels, not reserved)"),
        ));
    }
    let validation = match parsed.validation {
        Some(text) => ValidationMode::parse(&text).ok_or_else(|| {
            error("validation", format!("`{text}` is not a mode; expected enforce, warn or off"))
        })?,
        None => ValidationMode::Enforce,
    };
    let (listen_key, listen_text) = match (&overrides.listen, &parsed.listen) {
        (Some(flag), _) => ("--listen", flag.clone()),
        (None, Some(text)) => ("listen", text.clone()),
        (None, None) => ("listen", DEFAULT_LISTEN.to_owned()),
    };
    let listen: SocketAddr = listen_text.parse().map_err(|_| ConfigError {
        file: if listen_key == "listen" { file.clone() } else { None },
        key: listen_key.into(),
        message: format!("`{listen_text}` is not an address like 127.0.0.1:8080"),
    })?;
    let mut limits: BTreeMap<McpRevision, u64> = McpRevision::ALL
        .into_iter()
        .map(|r| (r, toolwire_core::mapper::DEFAULT_LIMIT as u64))
        .collect();
    if let Some(l) = parsed.limits {
        let all = l.mcp;
        let each = [
            (McpRevision::V2024_11_05, l.mcp_2024_11_05),
            (McpRevision::V2025_03_26, l.mcp_2025_03_26),
            (McpRevision::V2025_06_18, l.mcp_2025_06_18),
            (McpRevision::V2025_11_25, l.mcp_2025_11_25),
            (McpRevision::V2026_07_28, l.mcp_2026_07_28),
        ];
        for (revision, value) in each {
            if let Some(limit) = value.or(all) {
                if limit < 4096 {
                    return Err(error(
                        &format!("limits.mcp-{}", revision.as_str()),
                        format!("{limit} is below the smallest limit, 4096 bytes"),
                    ));
                }
                limits.insert(revision, limit);
            }
        }
    }
    let store_cfg = parsed.store.unwrap_or_default();
    let store = match store_cfg.url.as_deref() {
        None | Some("redb") => StoreKind::Redb,
        Some("memory") => StoreKind::Memory,
        Some(url) if url.starts_with("redis://") || url.starts_with("rediss://") => {
            StoreKind::Redis(url.to_owned())
        }
        Some(other) => {
            return Err(error(
                "store.url",
                format!("`{other}` is not a store; expected redb, memory or redis://…"),
            ));
        }
    };
    let data_dir = overrides
        .data_dir
        .clone()
        .or(store_cfg.data_dir)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR));
    let store_ca_pem = match &store_cfg.ca_file {
        Some(path) if matches!(&store, StoreKind::Redis(url) if url.starts_with("rediss://")) => {
            Some(read_ca(path).map_err(|m| error("store.ca_file", m))?.0)
        }
        Some(_) => {
            return Err(error("store.ca_file", "is only for a rediss:// store url".into()));
        }
        None => None,
    };
    let link_ttl = Duration::from_secs(match store_cfg.link_ttl {
        Some(0) => return Err(error("store.link_ttl", "must be at least 1 second".into())),
        Some(seconds) if seconds > MAX_LINK_TTL_SECS => {
            return Err(error(
                "store.link_ttl",
                format!(
                    "{seconds} seconds is over the longest link lifetime, {MAX_LINK_TTL_SECS} (30 days)"
                ),
            ));
        }
        Some(seconds) => seconds,
        None => 3600,
    });
    let offload_fallback_inline = match store_cfg.offload_fallback.as_deref() {
        None | Some("fail") => false,
        Some("inline") => true,
        Some(other) => {
            return Err(error(
                "store.offload_fallback",
                format!("`{other}` is not a fallback; expected fail or inline"),
            ));
        }
    };
    let mut allowed_hosts: Vec<String> =
        ["localhost", "127.0.0.1", "::1"].into_iter().map(str::to_owned).collect();
    let listen_host = listen.ip().to_string();
    if !listen.ip().is_unspecified() && !allowed_hosts.contains(&listen_host) {
        allowed_hosts.push(listen_host);
    }
    for host in parsed.allowed_hosts.unwrap_or_default() {
        if host.trim().is_empty() {
            return Err(error("allowed_hosts", "an entry is empty".into()));
        }
        if !allowed_hosts.contains(&host) {
            allowed_hosts.push(host);
        }
    }
    let allowed_origins = parsed.allowed_origins.unwrap_or_default();
    for origin in &allowed_origins {
        if origin != "null" && !origin.contains("://") {
            return Err(error(
                "allowed_origins",
                format!("`{origin}` needs a scheme, like http://localhost:3000"),
            ));
        }
    }
    let auth_configured = file.is_some();
    let auth = parsed.auth.unwrap_or_default();
    let mut tokens = Vec::new();
    for (i, t) in auth.tokens.into_iter().enumerate() {
        let key = format!("auth.tokens[{i}]");
        let secret = match (&t.token_env, &t.token) {
            (Some(var), None) => env(var).filter(|s| !s.is_empty()).ok_or_else(|| {
                error(&format!("{key}.token_env"), format!("the variable {var} is not set"))
            })?,
            (None, Some(token)) if !token.is_empty() => token.clone(),
            _ => {
                return Err(error(&key, "give exactly one of token_env or token".into()));
            }
        };
        if t.principal.trim().is_empty() {
            return Err(error(&format!("{key}.principal"), "must not be empty".into()));
        }
        if RESERVED_PRINCIPALS.contains(&t.principal.as_str()) {
            return Err(error(
                &format!("{key}.principal"),
                format!("`{}` is reserved for callers without a token", t.principal),
            ));
        }
        if let Some(first) = tokens.iter().position(|known: &Token| known.secret == secret) {
            let field = if t.token_env.is_some() { "token_env" } else { "token" };
            return Err(error(
                &format!("{key}.{field}"),
                format!("the same token as auth.tokens[{first}]; every token must be distinct"),
            ));
        }
        tokens.push(Token { secret, principal: t.principal, privileges: t.privileges });
    }
    let oauth = auth.oauth.map(|o| resolve_oauth(o, &error)).transpose()?;
    let ops = resolve_ops(parsed.ops.unwrap_or_default(), &error)?;
    let mut tools = Vec::new();
    for (i, t) in parsed.tools.into_iter().enumerate() {
        let key = format!("tools[{i}]");
        let description = t.description.filter(|d| !d.trim().is_empty()).ok_or_else(|| {
            error(&format!("{key}.description"), "every tool needs a description".into())
        })?;
        if !t.endpoint.starts_with("http://") && !t.endpoint.starts_with("https://") {
            return Err(error(
                &format!("{key}.endpoint"),
                format!("`{}` is not an http:// or https:// URL", t.endpoint),
            ));
        }
        let shape = match t.shape.as_deref() {
            None => Shape::Data,
            Some(text) => Shape::parse(text).ok_or_else(|| {
                error(
                    &format!("{key}.shape"),
                    format!("`{text}` is not a shape; expected data or envelope"),
                )
            })?,
        };
        let mut headers = Vec::new();
        for (name, h) in t.headers {
            let value = match (&h.value, &h.env) {
                (Some(value), None) => value.clone(),
                (None, Some(var)) => {
                    let found = env(var).ok_or_else(|| {
                        error(
                            &format!("{key}.headers.{name}.env"),
                            format!("the variable {var} is not set"),
                        )
                    })?;
                    format!("{}{found}", h.prefix)
                }
                _ => {
                    return Err(error(
                        &format!("{key}.headers.{name}"),
                        "give exactly one of value or env".into(),
                    ));
                }
            };
            headers.push((name, value));
        }
        let timeout_ms = t.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
        if timeout_ms == 0 {
            return Err(error(&format!("{key}.timeout_ms"), "must be at least 1".into()));
        }
        let ca_certs = match &t.ca_file {
            Some(path) => Some(read_ca(path).map_err(|m| error(&format!("{key}.ca_file"), m))?.1),
            None => None,
        };
        if let Some(proxy) = &t.proxy
            && let Err(e) = reqwest::Proxy::all(proxy)
        {
            return Err(error(
                &format!("{key}.proxy"),
                format!("`{proxy}` is not a proxy URL: {e}"),
            ));
        }
        tools.push(AppTool {
            name: t.name,
            title: t.title,
            description,
            input_schema: t.input_schema.unwrap_or_else(|| serde_json::json!({"type": "object"})),
            outputs: t.outputs,
            annotations: t.annotations,
            shape,
            privileges: t.privileges,
            endpoint: t.endpoint,
            timeout: Duration::from_millis(timeout_ms),
            headers,
            response_cap: t.response_cap.unwrap_or(DEFAULT_RESPONSE_CAP),
            ca_certs,
            proxy: t.proxy,
        });
    }
    Ok(Settings {
        file,
        phase,
        prefix,
        validation,
        listen,
        stdio: overrides.stdio,
        server_name: parsed.server_name.unwrap_or_else(|| "toolwire".into()),
        allowed_hosts,
        allowed_origins,
        demo_tools: parsed.demo_tools.unwrap_or(true),
        limits,
        store,
        data_dir,
        link_ttl,
        signing_keys_env: store_cfg.signing_keys_env,
        store_ca_pem,
        offload_fallback_inline,
        auth_configured,
        anonymous: auth.anonymous,
        tokens,
        oauth,
        ops,
        tools,
    })
}

fn resolve_oauth(
    o: OAuthConfig,
    error: &dyn Fn(&str, String) -> ConfigError,
) -> Result<OAuthSettings, ConfigError> {
    for (key, url) in [("auth.oauth.issuer", &o.issuer), ("auth.oauth.audience", &o.audience)] {
        if !is_http_url(url) {
            return Err(error(key, format!("`{url}` is not an http:// or https:// URL")));
        }
    }
    if o.audience.contains(['?', '#']) {
        return Err(error(
            "auth.oauth.audience",
            format!("`{}` must be a canonical URL, without query or fragment", o.audience),
        ));
    }
    if let Some(url) = o.jwks_url.as_ref().filter(|u| !is_http_url(u)) {
        return Err(error(
            "auth.oauth.jwks_url",
            format!("`{url}` is not an http:// or https:// URL"),
        ));
    }
    let algorithms = match o.algorithms {
        None => Algorithm::ALL.to_vec(),
        Some(names) if names.is_empty() => {
            return Err(error("auth.oauth.algorithms", "name at least one algorithm".into()));
        }
        Some(names) => names
            .iter()
            .map(|name| {
                Algorithm::parse(name).ok_or_else(|| {
                    error(
                        "auth.oauth.algorithms",
                        format!("`{name}` is not accepted; expected RS256, ES256 or EdDSA"),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let principal_claim = o.principal_claim.unwrap_or_else(|| "sub".into());
    if principal_claim.is_empty() {
        return Err(error("auth.oauth.principal_claim", "must not be empty".into()));
    }
    for (scope, privileges) in &o.scopes {
        if scope.is_empty() || scope.contains(' ') || privileges.is_empty() {
            return Err(error(
                &format!("auth.oauth.scopes.{scope}"),
                "a scope is one word and grants at least one privilege".into(),
            ));
        }
    }
    Ok(OAuthSettings {
        issuer: o.issuer,
        audience: o.audience,
        jwks_url: o.jwks_url,
        algorithms,
        leeway: Duration::from_secs(o.leeway_secs.unwrap_or(60)),
        principal_claim,
        privileges_claim: o.privileges_claim.filter(|c| !c.is_empty()),
        scopes: o.scopes,
        refresh_interval: Duration::from_secs(o.jwks_refresh_secs.unwrap_or(30)),
    })
}

fn resolve_ops(
    o: OpsConfig,
    error: &dyn Fn(&str, String) -> ConfigError,
) -> Result<OpsSettings, ConfigError> {
    let metrics_path = o.metrics_path.unwrap_or_else(|| "/metrics".into());
    let reserved = ["/mcp", "/healthz", "/readyz", "/.well-known"];
    if !metrics_path.starts_with('/')
        || metrics_path.len() < 2
        || reserved.iter().any(|r| metrics_path.starts_with(r))
    {
        return Err(error(
            "ops.metrics_path",
            format!("`{metrics_path}` must be a path like /metrics, apart from toolwire's own"),
        ));
    }
    let listen = match o.listen {
        None => None,
        Some(text) => Some(text.parse::<SocketAddr>().map_err(|_| {
            error("ops.listen", format!("`{text}` is not an address like 127.0.0.1:9090"))
        })?),
    };
    Ok(OpsSettings { metrics_path, listen, require_auth: o.require_auth.unwrap_or(false) })
}

fn is_http_url(url: &str) -> bool {
    ["http://", "https://"]
        .iter()
        .any(|scheme| url.strip_prefix(scheme).is_some_and(|rest| !rest.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn from_text(text: &str) -> Result<Settings, ConfigError> {
        let parsed: FileConfig = toml::from_str(text).map_err(|e| ConfigError {
            file: Some("t.toml".into()),
            key: e.span().map(|s| key_at(text, s.start)).unwrap_or_default(),
            message: e.message().to_owned(),
        })?;
        resolve(parsed, Some("t.toml".into()), &Overrides::default(), &no_env)
    }

    #[test]
    fn defaults_without_a_file() {
        let settings = Settings::load(&Overrides::default(), &no_env);
        let Ok(s) = settings else { panic!("{settings:?}") };
        assert_eq!(s.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(s.phase, Phase::Compat);
        assert_eq!(s.store, StoreKind::Redb);
        assert_eq!(s.data_dir, PathBuf::from("./toolwire-data"));
        assert!(!s.auth_configured);
        assert!(s.demo_tools);
        assert_eq!(s.allowed_hosts, vec!["localhost", "127.0.0.1", "::1"]);
    }

    #[test]
    fn flags_and_environment_win_over_the_file() {
        let parsed: FileConfig = match toml::from_str("phase = \"spec\"\nlisten = \"127.0.0.1:9\"")
        {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let overrides = Overrides { listen: Some("10.0.0.1:7".into()), ..Overrides::default() };
        let env = |k: &str| (k == "TOOLWIRE_PHASE").then(|| "compat".to_owned());
        let Ok(s) = resolve(parsed, None, &overrides, &env) else { panic!("refused") };
        assert_eq!(s.phase, Phase::Compat);
        assert_eq!(s.listen.to_string(), "10.0.0.1:7");
        assert!(s.allowed_hosts.contains(&"10.0.0.1".to_owned()));
    }

    #[test]
    fn bad_values_name_the_file_and_key() {
        let cases = [
            ("phase = \"loud\"", "t.toml: phase: `loud` is not a phase; expected compat or spec"),
            (
                "validation = \"x\"",
                "t.toml: validation: `x` is not a mode; expected enforce, warn or off",
            ),
            (
                "[store]\nurl = \"ftp://x\"",
                "t.toml: store.url: `ftp://x` is not a store; expected redb, memory or redis://…",
            ),
            (
                "[[tools]]\nname = \"a\"\nendpoint = \"http://x\"",
                "t.toml: tools[0].description: every tool needs a description",
            ),
            ("colour = 1", "t.toml: line 1 (`colour`): unknown field `colour`"),
            (
                "[store]\nlink_ttl = 2592001",
                "t.toml: store.link_ttl: 2592001 seconds is over the longest link lifetime, 2592000 (30 days)",
            ),
            (
                "[store]\nlink_ttl = 9223372036854775807",
                "t.toml: store.link_ttl: 9223372036854775807 seconds is over the longest link lifetime",
            ),
            (
                "[store]\nurl = \"redis://127.0.0.1/\"\nca_file = \"ca.pem\"",
                "t.toml: store.ca_file: is only for a rediss:// store url",
            ),
            (
                "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"/nonexistent/ca.pem\"",
                "t.toml: tools[0].ca_file: cannot read /nonexistent/ca.pem: ",
            ),
            (
                "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"Cargo.toml\"",
                "t.toml: tools[0].ca_file: Cargo.toml holds no PEM certificate",
            ),
            (
                "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"http://x\"\nproxy = \"::\"",
                "t.toml: tools[0].proxy: `::` is not a proxy URL",
            ),
            (
                "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"ann\"\n[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"bob\"",
                "t.toml: auth.tokens[1].token: the same token as auth.tokens[0]; every token must be distinct",
            ),
            (
                "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"anonymous\"",
                "t.toml: auth.tokens[0].principal: `anonymous` is reserved for callers without a token",
            ),
            (
                "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"local\"",
                "t.toml: auth.tokens[0].principal: `local` is reserved for callers without a token",
            ),
            (
                "[auth.oauth]\nissuer = \"idp\"\naudience = \"https://t/mcp\"",
                "t.toml: auth.oauth.issuer: `idp` is not an http:// or https:// URL",
            ),
            (
                "[auth.oauth]\nissuer = \"https://idp\"\naudience = \"https://t/mcp#x\"",
                "t.toml: auth.oauth.audience: `https://t/mcp#x` must be a canonical URL",
            ),
            (
                "[auth.oauth]\nissuer = \"https://idp\"\naudience = \"https://t/mcp\"\nalgorithms = [\"HS256\"]",
                "t.toml: auth.oauth.algorithms: `HS256` is not accepted; expected RS256, ES256 or EdDSA",
            ),
            (
                "[ops]\nmetrics_path = \"/mcp/metrics\"",
                "t.toml: ops.metrics_path: `/mcp/metrics` must be a path like /metrics",
            ),
            ("[ops]\nlisten = \"nowhere\"", "t.toml: ops.listen: `nowhere` is not an address"),
        ];
        for (text, expected) in cases {
            match from_text(text) {
                Ok(_) => panic!("accepted {text}"),
                Err(e) => assert!(e.to_string().starts_with(expected), "{e} vs {expected}"),
            }
        }
    }

    #[test]
    fn the_documented_example_is_valid() {
        let doc = include_str!("../../../../README.md");
        let start = doc.find("```toml\n").map(|i| i + "```toml\n".len()).unwrap_or(0);
        let end = doc[start..].find("```").map(|i| start + i).unwrap_or(start);
        let text = &doc[start..end];
        assert!(text.contains("[[tools]]"), "the example was not found");
        let parsed: FileConfig = match toml::from_str(text) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let env = |k: &str| {
            k.ends_with("_TOKEN")
                .then(|| format!("secret-{k}"))
                .or_else(|| (k == "ORDERS_API_KEY").then(|| "k".to_owned()))
        };
        let s = match resolve(parsed, Some("toolwire.toml".into()), &Overrides::default(), &env) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(s.tools.len(), 2);
        assert_eq!(s.tools[0].headers, vec![("Authorization".to_owned(), "Bearer k".to_owned())]);
        assert_eq!(s.tools[0].timeout, Duration::from_secs(10));
        assert_eq!(s.tools[1].shape, Shape::Envelope);
        assert_eq!(s.limits[&McpRevision::V2024_11_05], 131_072);
        assert_eq!(s.limits[&McpRevision::V2026_07_28], 262_144);
        assert_eq!(s.tokens.len(), 2);
        assert!(!s.anonymous && s.auth_configured && !s.demo_tools);
        assert!(s.allowed_hosts.contains(&"tools.acme.internal".to_owned()));
        assert_eq!(s.prefix, "com.acme");
        let mut registry = toolwire_mcp::Registry::new();
        if let Err(e) = super::super::app_tools::register(&mut registry, &s.tools) {
            panic!("{e}");
        }
        assert_eq!(registry.names().collect::<Vec<_>>(), ["orders_find", "orders_cancel"]);
    }

    #[test]
    fn duplicate_tokens_from_the_environment_name_the_variable() {
        let text = "[[auth.tokens]]\ntoken = \"same\"\nprincipal = \"ann\"\n[[auth.tokens]]\ntoken_env = \"T\"\nprincipal = \"bob\"";
        let parsed: FileConfig = toml::from_str(text).unwrap_or_else(|e| panic!("{e}"));
        let env = |k: &str| (k == "T").then(|| "same".to_owned());
        let refused = resolve(parsed, Some("t.toml".into()), &Overrides::default(), &env);
        let message = refused.map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(
            message,
            Err("t.toml: auth.tokens[1].token_env: the same token as auth.tokens[0]; every token must be distinct".into())
        );
    }

    #[test]
    fn oauth_and_ops_defaults() {
        let s = from_text("[auth.oauth]\nissuer = \"https://idp.test\"\naudience = \"https://t.test/mcp\"\nscopes = { \"catalog.write\" = [\"catalog:write\"] }")
            .unwrap_or_else(|e| panic!("{e}"));
        let Some(o) = s.oauth else { panic!("no oauth") };
        assert_eq!(o.algorithms, Algorithm::ALL);
        assert_eq!(o.leeway, Duration::from_secs(60));
        assert_eq!(o.principal_claim, "sub");
        assert_eq!(o.refresh_interval, Duration::from_secs(30));
        assert_eq!(o.scopes["catalog.write"], ["catalog:write"]);
        assert_eq!(s.ops.metrics_path, "/metrics");
        assert!(s.ops.listen.is_none() && !s.ops.require_auth);
    }

    #[test]
    fn the_deploying_example_is_valid() {
        let doc = include_str!("../../../../docs/deploying.md");
        let start = doc.find("```toml\n").map(|i| i + "```toml\n".len()).unwrap_or(0);
        let end = doc[start..].find("```").map(|i| start + i).unwrap_or(start);
        let parsed: FileConfig = toml::from_str(&doc[start..end]).unwrap_or_else(|e| panic!("{e}"));
        let env = |k: &str| (k == "NIGHTLY_JOB_TOKEN").then(|| "n".to_owned());
        let s = resolve(parsed, Some("toolwire.toml".into()), &Overrides::default(), &env)
            .unwrap_or_else(|e| panic!("{e}"));
        let Some(o) = s.oauth else { panic!("the example has no [auth.oauth]") };
        assert_eq!(o.issuer, "https://id.acme.example/realms/tools");
        assert_eq!(o.principal_claim, "preferred_username");
        assert_eq!(o.algorithms, [Algorithm::Rs256, Algorithm::Es256]);
        assert_eq!(o.scopes["orders.admin"], ["orders:cancel"]);
        assert_eq!(s.ops.listen.map(|a| a.to_string()).as_deref(), Some("127.0.0.1:9090"));
        assert_eq!(s.tokens.len(), 1);
        assert_eq!(s.tools[0].privileges, ["orders:cancel"]);
    }

    #[test]
    fn header_secrets_come_from_the_environment() {
        let parsed: FileConfig = match toml::from_str(
            "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"http://x\"\nheaders = { Authorization = { env = \"K\", prefix = \"Bearer \" } }",
        ) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let env = |k: &str| (k == "K").then(|| "s3cret".to_owned());
        let Ok(s) = resolve(parsed, None, &Overrides::default(), &env) else { panic!("refused") };
        assert_eq!(
            s.tools[0].headers,
            vec![("Authorization".to_owned(), "Bearer s3cret".to_owned())]
        );
        assert_eq!(s.tools[0].timeout, Duration::from_secs(30));
        assert_eq!(s.tools[0].response_cap, 16 * 1024 * 1024 - 64 * 1024);
    }
}
