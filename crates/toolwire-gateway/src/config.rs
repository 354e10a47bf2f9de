//! `toolwire.toml`: the gateway's configuration file, and the settings that result from it, the
//! command line and the environment (flags over the file, `TOOLWIRE_PHASE` over the file).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use toolwire_core::host::{HostProfile, HostProfiles};
use toolwire_core::{Phase, Shape, Target, ValidationMode};
use toolwire_store::OffloadFallback;

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
    pub phase: Option<Phase>,
    /// The `_meta` prefix.
    pub prefix: Option<String>,
    /// `enforce`, `warn` or `off`.
    pub validation: Option<ValidationMode>,
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
    #[serde(default)]
    pub limits: LimitsConfig,
    /// Where stored results live.
    pub store: Option<StoreConfig>,
    /// Timeouts and caps of the HTTP transport.
    pub transport: Option<TransportConfig>,
    /// Who may call.
    pub auth: Option<AuthConfig>,
    /// Health, readiness and metrics endpoints.
    pub ops: Option<OpsConfig>,
    /// App tools.
    #[serde(default)]
    pub tools: Vec<AppToolConfig>,
    /// `[[hosts]]`: host profiles added to, or replacing, the built-in ones (DESIGN §11).
    #[serde(default)]
    pub hosts: Vec<HostProfile>,
}

/// `[limits]`: bytes per target, keyed by the target name (`mcp-2025-06-18`), or `mcp` for
/// every MCP revision at once (a revision's own key wins).
pub type LimitsConfig = BTreeMap<String, u64>;

/// The `[limits]` key standing for every MCP revision.
const ALL_MCP_LIMIT: &str = "mcp";

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
    pub offload_fallback: Option<OffloadFallback>,
    /// Bytes all stored results may take together (default 1 GiB).
    pub quota_total: Option<u64>,
    /// Bytes one principal's stored results may take (default 256 MiB).
    pub quota_per_principal: Option<u64>,
    /// A PEM file of CA certificates trusted for `rediss://` instead of the system roots.
    pub ca_file: Option<PathBuf>,
    /// MiB of redb's page cache.
    pub cache_mib: Option<u64>,
}

/// `[transport]`: what keeps slow or many clients from taking the server down (DESIGN §12).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportConfig {
    /// Milliseconds a client has to send a request's headers.
    pub header_read_timeout_ms: Option<u64>,
    /// Open connections at most; more are closed at once.
    pub max_connections: Option<usize>,
    /// Sessions at most; more `initialize` requests are refused.
    pub max_sessions: Option<usize>,
    /// Milliseconds after which an idle session ends.
    pub session_idle_ms: Option<u64>,
    /// Milliseconds calls in flight get to finish after SIGTERM.
    pub shutdown_grace_ms: Option<u64>,
}

/// The transport's limits, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transport {
    /// Time to send a request's headers.
    pub header_read_timeout: Duration,
    /// Open connections at most.
    pub max_connections: usize,
    /// Sessions at most.
    pub max_sessions: usize,
    /// Idle time after which a session ends.
    pub session_idle: Duration,
    /// Time calls in flight get to finish on shutdown.
    pub shutdown_grace: Duration,
}

impl Default for Transport {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 1024,
            max_sessions: 10_000,
            session_idle: Duration::from_secs(300),
            shutdown_grace: Duration::from_secs(30),
        }
    }
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
    pub shape: Option<Shape>,
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
    /// Limits per target (every MCP revision has one).
    pub limits: BTreeMap<Target, u64>,
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
    /// What to do when the store fails.
    pub offload_fallback: OffloadFallback,
    /// Bytes of redb's page cache.
    pub cache_size: usize,
    /// Timeouts and caps of the HTTP transport.
    pub transport: Transport,
    /// Store quotas.
    pub quota: toolwire_store::Quota,
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
    /// The host profiles: the built-in ones with `[[hosts]]` applied.
    pub hosts: HostProfiles,
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
    pub phase: Option<Phase>,
}

impl Settings {
    /// Reads the file (when given) and applies flags and environment over it. `env` looks up an
    /// environment variable (injected so tests need not touch the process environment).
    pub fn load(
        overrides: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let Some(path) = &overrides.config else {
            return resolve(FileConfig::default(), None, overrides, env);
        };
        let refuse = |e: String| ConfigError {
            file: Some(path.to_owned()),
            key: "(file)".into(),
            message: format!("cannot read it: {e}"),
        };
        let bytes = read_bounded(path).map_err(refuse)?;
        let text = String::from_utf8(bytes).map_err(|e| refuse(e.to_string()))?;
        Self::from_text(&text, path, overrides, env)
    }

    /// What [`Settings::load`] does once the file at `path` is read as `text`.
    pub fn from_text(
        text: &str,
        path: &Path,
        overrides: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let parsed = toml::from_str(text).map_err(|e| ConfigError {
            file: Some(path.to_owned()),
            key: e.span().map(|span| key_at(text, span.start)).unwrap_or_else(|| "(file)".into()),
            message: e.message().to_owned(),
        })?;
        resolve(parsed, Some(path.to_owned()), overrides, env)
    }
}

/// `line N (`key`)` for a byte offset, for an error message: the key is dotted from the table
/// headers above it (`[[tools]]` counted, so `tools[1].shape`) and the text before `=` on its line.
fn key_at(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_text = text[start..].lines().next().unwrap_or_default().trim();
    let mut table = String::new();
    let mut arrays: BTreeMap<&str, usize> = BTreeMap::new();
    for header in text[..start].lines().chain([line_text]).map(str::trim) {
        if let Some(name) = header.strip_prefix("[[").and_then(|h| h.split("]]").next()) {
            let count = arrays.entry(name.trim()).and_modify(|n| *n += 1).or_insert(0);
            table = format!("{}[{count}]", name.trim());
        } else if let Some(name) = header.strip_prefix('[').and_then(|h| h.split(']').next()) {
            table = name.trim().to_owned();
        }
    }
    let key = match line_text.split('=').next().unwrap_or_default().trim() {
        _ if line_text.starts_with('[') => table,
        key if table.is_empty() => key.to_owned(),
        key => format!("{table}.{key}"),
    };
    format!("line {line} (`{key}`)")
}

/// The most bytes toolwire reads from the configuration file or a file it names (a CA bundle
/// is a few hundred KiB): 4 MiB.
pub const FILE_LIMIT: u64 = 4 * 1024 * 1024;

/// The bytes of a regular file of at most [`FILE_LIMIT`] bytes, or why not (without the path).
/// A device, a FIFO or a directory is refused before it is read (`/dev/zero` would never end, a
/// FIFO waits for a writer), and a file over the limit before any of it is held.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    const NOT_REGULAR: &str = "not a regular file";
    let over = || format!("over the limit of {FILE_LIMIT} bytes (4 MiB)");
    // Checked before opening: opening a FIFO blocks until something writes to it.
    let metadata = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err(NOT_REGULAR.to_owned());
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let metadata = file.metadata().map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err(NOT_REGULAR.to_owned());
    }
    if metadata.len() > FILE_LIMIT {
        return Err(over());
    }
    let mut bytes = Vec::new();
    file.take(FILE_LIMIT + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    // A file that grew while it was read.
    if bytes.len() as u64 > FILE_LIMIT {
        return Err(over());
    }
    Ok(bytes)
}

/// A PEM file of CA certificates: its bytes and its certificates, at least one.
fn read_ca(path: &Path) -> Result<(Vec<u8>, Vec<reqwest::Certificate>), String> {
    let pem = read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|e| format!("{} is not a PEM certificate file: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    Ok((pem, certs))
}

/// Builds a [`ConfigError`] for a key of the file.
type Refuse<'a> = &'a dyn Fn(&str, String) -> ConfigError;

/// The file over the defaults, with flags and environment over the file: one step per section.
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
    let phase = resolve_phase(overrides.phase, parsed.phase, env)?;
    let prefix = resolve_prefix(parsed.prefix, &error)?;
    let listen = resolve_listen(overrides.listen.as_deref(), parsed.listen, &error)?;
    let limits = resolve_limits(&parsed.limits, &error)?;
    let store = resolve_store(parsed.store.unwrap_or_default(), overrides, &error)?;
    let transport = transport(parsed.transport.unwrap_or_default(), &error)?;
    let allowed_hosts = resolve_allowed_hosts(listen, parsed.allowed_hosts, &error)?;
    let allowed_origins = resolve_allowed_origins(parsed.allowed_origins, &error)?;
    let auth = parsed.auth.unwrap_or_default();
    let tokens = resolve_tokens(auth.tokens, env, &error)?;
    let oauth = auth.oauth.map(|o| resolve_oauth(o, &error)).transpose()?;
    let ops = resolve_ops(parsed.ops.unwrap_or_default(), &error)?;
    let tools = parsed
        .tools
        .into_iter()
        .enumerate()
        .map(|(i, t)| resolve_tool(&format!("tools[{i}]"), t, env, &error))
        .collect::<Result<_, _>>()?;
    let hosts = host_profiles(parsed.hosts, file.as_deref())?;
    Ok(Settings {
        auth_configured: file.is_some(),
        file,
        phase,
        prefix,
        validation: parsed.validation.unwrap_or_default(),
        listen,
        stdio: overrides.stdio,
        server_name: parsed.server_name.unwrap_or_else(|| "toolwire".into()),
        allowed_hosts,
        allowed_origins,
        demo_tools: parsed.demo_tools.unwrap_or(true),
        limits,
        store: store.kind,
        data_dir: store.data_dir,
        link_ttl: store.link_ttl,
        signing_keys_env: store.signing_keys_env,
        store_ca_pem: store.ca_pem,
        offload_fallback: store.offload_fallback,
        cache_size: store.cache_size,
        transport,
        quota: store.quota,
        anonymous: auth.anonymous,
        tokens,
        oauth,
        ops,
        tools,
        hosts,
    })
}

/// `--phase`, else `TOOLWIRE_PHASE`, else the file, else compat (DESIGN §3). The flag and the
/// file were parsed already (by clap and serde); the variable is parsed here.
fn resolve_phase(
    flag: Option<Phase>,
    from_file: Option<Phase>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Phase, ConfigError> {
    if let Some(phase) = flag {
        return Ok(phase);
    }
    match env("TOOLWIRE_PHASE") {
        Some(text) => text.parse().map_err(|e: toolwire_core::UnknownName| ConfigError {
            file: None,
            key: "TOOLWIRE_PHASE".into(),
            message: e.to_string(),
        }),
        None => Ok(from_file.unwrap_or_default()),
    }
}

/// `prefix`: the `_meta` prefix, checked against the label grammar and the reserved names.
fn resolve_prefix(prefix: Option<String>, error: Refuse) -> Result<String, ConfigError> {
    let prefix = prefix.unwrap_or_else(|| "dev.toolwire".into());
    if !toolwire_core::grammar::is_prefix(&prefix)
        || toolwire_core::grammar::is_mcp_reserved(&prefix)
    {
        return Err(error(
            "prefix",
            format!("`{prefix}` is not a usable _meta prefix (dot-separated labels, not reserved)"),
        ));
    }
    Ok(prefix)
}

/// `--listen`, else `listen`, else the default address.
fn resolve_listen(
    flag: Option<&str>,
    from_file: Option<String>,
    error: Refuse,
) -> Result<SocketAddr, ConfigError> {
    let bad = |text: &str| format!("`{text}` is not an address like 127.0.0.1:8080");
    match (flag, from_file) {
        (Some(text), _) => text.parse().map_err(|_| ConfigError {
            file: None,
            key: "--listen".into(),
            message: bad(text),
        }),
        (None, Some(text)) => text.parse().map_err(|_| error("listen", bad(&text))),
        (None, None) => DEFAULT_LISTEN.parse().map_err(|_| error("listen", bad(DEFAULT_LISTEN))),
    }
}

/// `[limits]`: every MCP revision starts at the default; `mcp` sets them all, a revision's own
/// key (its target name) sets that one. The gateway serves MCP only, so other targets are refused.
fn resolve_limits(
    given: &LimitsConfig,
    error: Refuse,
) -> Result<BTreeMap<Target, u64>, ConfigError> {
    let mcp: Vec<Target> =
        Target::ALL.into_iter().filter(|t| matches!(t, Target::Mcp(_))).collect();
    let mut limits: BTreeMap<Target, u64> =
        mcp.iter().map(|t| (*t, DEFAULT_MAPPER_LIMIT)).collect();
    for (name, &limit) in given {
        let key = format!("limits.{name}");
        let targets: Vec<Target> = match mcp.iter().find(|t| t.name() == name) {
            Some(target) => vec![*target],
            None if name == ALL_MCP_LIMIT => {
                mcp.iter().filter(|t| !given.contains_key(t.name())).copied().collect()
            }
            None => {
                let names: Vec<&str> = mcp.iter().map(|t| t.name()).collect();
                return Err(error(
                    &key,
                    format!(
                        "`{name}` is not an MCP target; expected {ALL_MCP_LIMIT} (every revision) or one of {}",
                        names.join(", ")
                    ),
                ));
            }
        };
        if limit < MIN_LIMIT {
            return Err(error(
                &key,
                format!("{limit} is below the smallest limit, {MIN_LIMIT} bytes"),
            ));
        }
        for target in targets {
            limits.insert(target, limit);
        }
    }
    Ok(limits)
}

/// The default size limit of a target, as a config value.
const DEFAULT_MAPPER_LIMIT: u64 = toolwire_core::mapper::DEFAULT_LIMIT as u64;
/// The smallest `[limits]` value: what an offload stub needs.
const MIN_LIMIT: u64 = toolwire_core::mapper::MIN_OFFLOAD_LIMIT as u64;

/// The resolved `[store]` section (and `--data-dir`).
struct StoreSection {
    kind: StoreKind,
    data_dir: PathBuf,
    link_ttl: Duration,
    signing_keys_env: Option<String>,
    ca_pem: Option<Vec<u8>>,
    offload_fallback: OffloadFallback,
    cache_size: usize,
    quota: toolwire_store::Quota,
}

/// `[store]` over the defaults; `--data-dir` over `data_dir`.
fn resolve_store(
    given: StoreConfig,
    overrides: &Overrides,
    error: Refuse,
) -> Result<StoreSection, ConfigError> {
    let kind = match given.url.as_deref() {
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
    let ca_pem = match &given.ca_file {
        Some(path) if matches!(&kind, StoreKind::Redis(url) if url.starts_with("rediss://")) => {
            Some(read_ca(path).map_err(|m| error("store.ca_file", m))?.0)
        }
        Some(_) => {
            return Err(error("store.ca_file", "is only for a rediss:// store url".into()));
        }
        None => None,
    };
    let link_ttl = Duration::from_secs(match given.link_ttl {
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
    let cache_size = match given.cache_mib {
        None => 32 * 1024 * 1024,
        Some(mib) => usize::try_from(mib)
            .ok()
            .and_then(|mib| mib.checked_mul(1024 * 1024))
            .ok_or_else(|| error("store.cache_mib", format!("{mib} MiB is too large")))?,
    };
    Ok(StoreSection {
        kind,
        data_dir: overrides
            .data_dir
            .clone()
            .or(given.data_dir)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR)),
        link_ttl,
        signing_keys_env: given.signing_keys_env,
        ca_pem,
        offload_fallback: given.offload_fallback.unwrap_or_default(),
        cache_size,
        quota: toolwire_store::Quota::new(
            given.quota_total.unwrap_or(toolwire_store::DEFAULT_TOTAL_QUOTA),
            given.quota_per_principal.unwrap_or(toolwire_store::DEFAULT_PRINCIPAL_QUOTA),
        ),
    })
}

/// `allowed_hosts`: the loopback names and the listen host always, then the file's entries.
fn resolve_allowed_hosts(
    listen: SocketAddr,
    given: Option<Vec<String>>,
    error: Refuse,
) -> Result<Vec<String>, ConfigError> {
    let mut allowed: Vec<String> =
        ["localhost", "127.0.0.1", "::1"].into_iter().map(str::to_owned).collect();
    let listen_host = listen.ip().to_string();
    if !listen.ip().is_unspecified() && !allowed.contains(&listen_host) {
        allowed.push(listen_host);
    }
    for host in given.unwrap_or_default() {
        if host.trim().is_empty() {
            return Err(error("allowed_hosts", "an entry is empty".into()));
        }
        if !allowed.contains(&host) {
            allowed.push(host);
        }
    }
    Ok(allowed)
}

/// `allowed_origins`: each with a scheme (or `null`).
fn resolve_allowed_origins(
    given: Option<Vec<String>>,
    error: Refuse,
) -> Result<Vec<String>, ConfigError> {
    let origins = given.unwrap_or_default();
    if let Some(origin) = origins.iter().find(|o| *o != "null" && !o.contains("://")) {
        return Err(error(
            "allowed_origins",
            format!("`{origin}` needs a scheme, like http://localhost:3000"),
        ));
    }
    Ok(origins)
}

/// `[[auth.tokens]]`: secrets read, principals checked, every token distinct.
fn resolve_tokens(
    given: Vec<TokenConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<Vec<Token>, ConfigError> {
    let mut tokens = Vec::new();
    for (i, t) in given.into_iter().enumerate() {
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
    Ok(tokens)
}

/// One `[[tools]]` entry (`key` is `tools[i]`): defaults applied, secrets read, files loaded.
fn resolve_tool(
    key: &str,
    t: AppToolConfig,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<AppTool, ConfigError> {
    let description = t.description.filter(|d| !d.trim().is_empty()).ok_or_else(|| {
        error(&format!("{key}.description"), "every tool needs a description".into())
    })?;
    if !t.endpoint.starts_with("http://") && !t.endpoint.starts_with("https://") {
        return Err(error(
            &format!("{key}.endpoint"),
            format!("`{}` is not an http:// or https:// URL", t.endpoint),
        ));
    }
    let headers = t
        .headers
        .into_iter()
        .map(|(name, h)| {
            let value = resolve_header(&format!("{key}.headers.{name}"), &h, env, error)?;
            Ok((name, value))
        })
        .collect::<Result<_, ConfigError>>()?;
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
        return Err(error(&format!("{key}.proxy"), format!("`{proxy}` is not a proxy URL: {e}")));
    }
    Ok(AppTool {
        name: t.name,
        title: t.title,
        description,
        input_schema: t.input_schema.unwrap_or_else(|| serde_json::json!({"type": "object"})),
        outputs: t.outputs,
        annotations: t.annotations,
        shape: t.shape.unwrap_or_default(),
        privileges: t.privileges,
        endpoint: t.endpoint,
        timeout: Duration::from_millis(timeout_ms),
        headers,
        response_cap: t.response_cap.unwrap_or(DEFAULT_RESPONSE_CAP),
        ca_certs,
        proxy: t.proxy,
    })
}

/// One header of a tool (`key` is `tools[i].headers.NAME`): the literal value, or the prefix
/// and the variable's value.
fn resolve_header(
    key: &str,
    h: &HeaderConfig,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<String, ConfigError> {
    match (&h.value, &h.env) {
        (Some(value), None) => Ok(value.clone()),
        (None, Some(var)) => {
            let found = env(var).ok_or_else(|| {
                error(&format!("{key}.env"), format!("the variable {var} is not set"))
            })?;
            Ok(format!("{}{found}", h.prefix))
        }
        _ => Err(error(key, "give exactly one of value or env".into())),
    }
}

/// `[auth.oauth]`.
fn resolve_oauth(o: OAuthConfig, error: Refuse) -> Result<OAuthSettings, ConfigError> {
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

/// `[ops]`.
fn resolve_ops(o: OpsConfig, error: Refuse) -> Result<OpsSettings, ConfigError> {
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

/// The built-in host profiles with the `[[hosts]]` entries applied; a cap below what an
/// offload stub needs is refused.
fn host_profiles(
    entries: Vec<HostProfile>,
    file: Option<&Path>,
) -> Result<HostProfiles, ConfigError> {
    let mut hosts = HostProfiles::builtin();
    for (i, entry) in entries.into_iter().enumerate() {
        let error = |message: String| ConfigError {
            file: file.map(Path::to_owned),
            key: format!("hosts[{i}]"),
            message,
        };
        if entry.name.is_empty() {
            return Err(error("`name` must not be empty".into()));
        }
        if let Some(cap) = entry.max_result_bytes
            && cap < toolwire_core::mapper::MIN_OFFLOAD_LIMIT
        {
            return Err(error(format!(
                "`max_result_bytes` = {cap} is below {} bytes, the least an offload stub needs",
                toolwire_core::mapper::MIN_OFFLOAD_LIMIT
            )));
        }
        hosts.insert(entry);
    }
    Ok(hosts)
}

/// `[transport]` over the defaults; zero is refused where it would stop all serving.
fn transport(given: TransportConfig, error: Refuse) -> Result<Transport, ConfigError> {
    let defaults = Transport::default();
    let positive = |key: &str, value: Option<u64>, default: Duration| match value {
        Some(0) => Err(error(key, "must be at least 1 millisecond".into())),
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Ok(default),
    };
    let count = |key: &str, value: Option<usize>, default: usize| match value {
        Some(0) => Err(error(key, "must be at least 1".into())),
        Some(n) => Ok(n),
        None => Ok(default),
    };
    Ok(Transport {
        header_read_timeout: positive(
            "transport.header_read_timeout_ms",
            given.header_read_timeout_ms,
            defaults.header_read_timeout,
        )?,
        max_connections: count(
            "transport.max_connections",
            given.max_connections,
            defaults.max_connections,
        )?,
        max_sessions: count("transport.max_sessions", given.max_sessions, defaults.max_sessions)?,
        session_idle: positive(
            "transport.session_idle_ms",
            given.session_idle_ms,
            defaults.session_idle,
        )?,
        // Zero grace is allowed: stop at once.
        shutdown_grace: given
            .shutdown_grace_ms
            .map_or(defaults.shutdown_grace, Duration::from_millis),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn from_text(text: &str) -> Result<Settings, ConfigError> {
        Settings::from_text(text, Path::new("t.toml"), &Overrides::default(), &no_env)
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
    fn transport_limits_and_the_cache_have_defaults_and_keys() {
        let Ok(s) = from_text("") else { panic!("refused") };
        assert_eq!(s.transport.header_read_timeout, Duration::from_secs(10));
        assert_eq!(s.transport.max_connections, 1024);
        assert_eq!(s.transport.max_sessions, 10_000);
        assert_eq!(s.transport.session_idle, Duration::from_secs(300));
        assert_eq!(s.transport.shutdown_grace, Duration::from_secs(30));
        assert_eq!(s.cache_size, 32 * 1024 * 1024);
        let text = "[transport]\nheader_read_timeout_ms = 250\nmax_connections = 8\nmax_sessions = 2\nsession_idle_ms = 1000\nshutdown_grace_ms = 0\n[store]\ncache_mib = 4";
        let Ok(s) = from_text(text) else { panic!("refused") };
        let expected = Transport {
            header_read_timeout: Duration::from_millis(250),
            max_connections: 8,
            max_sessions: 2,
            session_idle: Duration::from_secs(1),
            shutdown_grace: Duration::ZERO,
        };
        assert_eq!(s.transport, expected);
        assert_eq!(s.cache_size, 4 * 1024 * 1024);
        let refused = from_text("[transport]\nmax_connections = 0").map(|_| ());
        assert_eq!(
            refused.map_err(|e| e.to_string()),
            Err("t.toml: transport.max_connections: must be at least 1".to_owned())
        );
    }

    #[test]
    fn store_quotas_default_and_are_configurable() {
        let Ok(s) = from_text("") else { panic!("refused") };
        assert_eq!(s.quota, toolwire_store::Quota::new(1 << 30, 256 << 20));
        let text = "[store]\nquota_total = 1000000\nquota_per_principal = 2000";
        let Ok(s) = from_text(text) else { panic!("refused") };
        assert_eq!(s.quota, toolwire_store::Quota::new(1_000_000, 2000));
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
            (
                "phase = \"loud\"",
                "t.toml: line 1 (`phase`): unknown phase `loud`; expected compat or spec",
            ),
            (
                "validation = \"x\"",
                "t.toml: line 1 (`validation`): unknown validation mode `x`; expected enforce, warn or off",
            ),
            (
                "[store]\nurl = \"memory\"\noffload_fallback = \"retry\"",
                "t.toml: line 3 (`store.offload_fallback`): unknown offload fallback `retry`; expected fail or inline",
            ),
            (
                "[[tools]]\nname = \"a\"\nendpoint = \"http://x\"\n[[tools]]\nname = \"b\"\nendpoint = \"http://x\"\nshape = \"table\"",
                "t.toml: line 7 (`tools[1].shape`): unknown shape `table`; expected data or envelope",
            ),
            (
                "[limits]\nmcp = 100",
                "t.toml: limits.mcp: 100 is below the smallest limit, 4096 bytes",
            ),
            (
                "[limits]\n\"mcp-2025-06-18\" = 4095",
                "t.toml: limits.mcp-2025-06-18: 4095 is below the smallest limit, 4096 bytes",
            ),
            (
                "[limits]\nlegacy = 8192",
                "t.toml: limits.legacy: `legacy` is not an MCP target; expected mcp (every revision) or one of mcp-2024-11-05, mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25, mcp-2026-07-28",
            ),
            (
                "[limits]\n\"mcp-2025-07-01\" = 8192",
                "t.toml: limits.mcp-2025-07-01: `mcp-2025-07-01` is not an MCP target; expected mcp",
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
                "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"/dev/zero\"",
                "t.toml: tools[0].ca_file: cannot read /dev/zero: not a regular file",
            ),
            (
                "[store]\nurl = \"rediss://127.0.0.1/\"\nca_file = \"/\"",
                "t.toml: store.ca_file: cannot read /: not a regular file",
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
            (
                "[[hosts]]\nname = \"h\"\nreads = \"content\"\nmax_result_bytes = 100",
                "t.toml: hosts[0]: `max_result_bytes` = 100 is below 4096 bytes",
            ),
            (
                "[[hosts]]\nname = \"\"\nreads = \"both\"",
                "t.toml: hosts[0]: `name` must not be empty",
            ),
            (
                "[[hosts]]\nname = \"h\"\nreads = \"all\"",
                "t.toml: line 3 (`hosts[0].reads`): unknown variant `all`",
            ),
        ];
        for (text, expected) in cases {
            match from_text(text) {
                Ok(_) => panic!("accepted {text}"),
                Err(e) => assert!(e.to_string().starts_with(expected), "{e} vs {expected}"),
            }
        }
    }

    #[test]
    fn files_are_read_only_when_regular_and_within_the_limit() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let sized = |name: &str, len: u64| {
            let path = dir.path().join(name);
            let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
            file.set_len(len).unwrap_or_else(|e| panic!("{e}"));
            path
        };
        let (at_limit, over) = (sized("at.pem", FILE_LIMIT), sized("over.pem", FILE_LIMIT + 1));
        let tool = |path: &Path| {
            format!(
                "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"{}\"",
                path.display()
            )
        };
        let refused = |text: String| match from_text(&text) {
            Ok(_) => panic!("accepted {text}"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            refused(tool(&over)),
            format!(
                "t.toml: tools[0].ca_file: cannot read {}: over the limit of 4194304 bytes (4 MiB)",
                over.display()
            )
        );
        // At the limit the file is read whole and then judged as PEM.
        assert_eq!(
            refused(tool(&at_limit)),
            format!("t.toml: tools[0].ca_file: {} holds no PEM certificate", at_limit.display())
        );
        // The configuration file itself: a FIFO nothing writes to, a device, an oversized file.
        let fifo = dir.path().join("fifo.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|status| status.success()), "mkfifo {}", fifo.display());
        let over_toml = sized("over.toml", FILE_LIMIT + 1);
        for (path, reason) in [
            (fifo, "not a regular file"),
            (PathBuf::from("/dev/zero"), "not a regular file"),
            (over_toml, "over the limit of 4194304 bytes (4 MiB)"),
        ] {
            let overrides = Overrides { config: Some(path.clone()), ..Overrides::default() };
            match Settings::load(&overrides, &no_env) {
                Ok(_) => panic!("loaded {}", path.display()),
                Err(e) => {
                    assert_eq!(
                        e.to_string(),
                        format!("{}: (file): cannot read it: {reason}", path.display())
                    )
                }
            }
        }
    }

    fn mcp(date: &str) -> Target {
        match toolwire_core::McpRevision::exact(date) {
            Some(revision) => Target::Mcp(revision),
            None => panic!("no revision {date}"),
        }
    }

    #[test]
    fn limits_are_keyed_by_target_name() {
        let Ok(s) = from_text("") else { panic!("refused") };
        let default = toolwire_core::mapper::DEFAULT_LIMIT as u64;
        let mcp_targets = Target::ALL.into_iter().filter(|t| matches!(t, Target::Mcp(_)));
        assert_eq!(s.limits, mcp_targets.clone().map(|t| (t, default)).collect());
        // `mcp` sets every revision but those with their own key, wherever it is written.
        let text = "[limits]\n\"mcp-2025-06-18\" = 5000\nmcp = 9000";
        let Ok(s) = from_text(text) else { panic!("refused {text}") };
        let expected: BTreeMap<Target, u64> =
            mcp_targets.map(|t| (t, if t == mcp("2025-06-18") { 5000 } else { 9000 })).collect();
        assert_eq!(s.limits, expected);
        // … and reach the mapper the gateway renders with.
        let Ok(mapper) = crate::gateway::mapper(&s) else { panic!("no mapper") };
        assert_eq!(mapper.config().limit(mcp("2025-06-18")), Some(5000));
        assert_eq!(mapper.config().limit(mcp("2026-07-28")), Some(9000));
    }

    #[test]
    fn a_bad_phase_in_the_environment_names_the_variable() {
        let env = |k: &str| (k == "TOOLWIRE_PHASE").then(|| "Spec".to_owned());
        let refused = resolve(FileConfig::default(), None, &Overrides::default(), &env);
        assert_eq!(
            refused.map(|_| ()).map_err(|e| e.to_string()),
            Err("TOOLWIRE_PHASE: unknown phase `Spec`; expected compat or spec".to_owned())
        );
        // The flag wins over a bad variable.
        let overrides = Overrides { phase: Some(Phase::Spec), ..Overrides::default() };
        let Ok(s) = resolve(FileConfig::default(), None, &overrides, &env) else { panic!() };
        assert_eq!(s.phase, Phase::Spec);
    }

    #[test]
    fn enums_read_from_the_file() {
        let text = "validation = \"warn\"\n[store]\noffload_fallback = \"inline\"\n[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"http://x\"\nshape = \"envelope\"";
        let Ok(s) = from_text(text) else { panic!("refused {text}") };
        assert_eq!(s.validation, ValidationMode::Warn);
        assert_eq!(s.offload_fallback, OffloadFallback::Inline);
        assert_eq!(s.tools[0].shape, Shape::Envelope);
        let refused =
            from_text("[[tools]]\nname = \"a\"\nendpoint = \"http://x\"\nshape = \"list\"");
        assert_eq!(
            refused.map(|_| ()).map_err(|e| e.to_string()),
            Err("t.toml: line 4 (`tools[0].shape`): unknown shape `list`; expected data or envelope"
                .to_owned())
        );
        let Ok(s) = from_text("phase = \"spec\"") else { panic!("refused") };
        assert_eq!(
            (s.phase, s.validation, s.offload_fallback),
            (Phase::Spec, ValidationMode::Enforce, OffloadFallback::Fail)
        );
    }

    #[test]
    fn error_keys_are_dotted_from_the_table_headers() {
        let text = "phase = \"spec\"\n[auth]\nanonymous = true\n[[auth.tokens]]\ntoken = \"a\"\n[[auth.tokens]]\nprincipal = \"b\"\n[colour]";
        let at = |needle: &str| key_at(text, text.find(needle).unwrap_or(0));
        assert_eq!(at("phase"), "line 1 (`phase`)");
        assert_eq!(at("anonymous"), "line 3 (`auth.anonymous`)");
        assert_eq!(at("token = "), "line 5 (`auth.tokens[0].token`)");
        assert_eq!(at("principal"), "line 7 (`auth.tokens[1].principal`)");
        assert_eq!(at("[colour]"), "line 8 (`colour`)");
    }

    #[test]
    fn hosts_add_and_override_the_built_in_profiles() {
        let text = "[[hosts]]\nname = \"codex\"\nclient_names = [\"codex-mcp-client\"]\nreads = \"both\"\n\n[[hosts]]\nname = \"mine\"\nclient_names = [\"mine\"]\nreads = \"content\"\nmax_result_bytes = 8192";
        let Ok(s) = from_text(text) else { panic!("refused {text}") };
        let codex = s.hosts.for_client(Some("codex-mcp-client"));
        assert_eq!((codex.name.as_str(), codex.reads_links), ("codex", true));
        let mine = s.hosts.for_client(Some("MINE"));
        assert_eq!((mine.name.as_str(), mine.max_result_bytes), ("mine", Some(8192)));
        assert_eq!(s.hosts.for_client(Some("claude-code")).name, "claude-code");
    }

    #[test]
    fn the_documented_example_is_valid() {
        let doc = include_str!("../../../README.md");
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
        assert_eq!(s.limits[&mcp("2024-11-05")], 131_072);
        assert_eq!(s.limits[&mcp("2026-07-28")], 262_144);
        assert_eq!(s.tokens.len(), 2);
        assert!(!s.anonymous && s.auth_configured && !s.demo_tools);
        assert!(s.allowed_hosts.contains(&"tools.acme.internal".to_owned()));
        assert_eq!(s.prefix, "com.acme");
        let registry = match crate::app_tools::AppTools::new(&s.tools) {
            Ok(source) => toolwire_mcp::ToolSource::tools(&source),
            Err(e) => panic!("{e}"),
        };
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
        let doc = include_str!("../../../docs/deploying.md");
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
