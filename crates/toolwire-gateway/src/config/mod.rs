//! `toolwire.toml`: the gateway's configuration file, and the settings that result from it, the
//! command line and the environment (flags over the file, `TOOLWIRE_PHASE` over the file).
//!
//! This module reads the file and puts the sections together; each section (what it accepts,
//! its defaults, its checks) has its own module, named after the component it configures.

mod app_tools;
mod auth;
mod console;
mod hosts;
mod limits;
mod listen;
mod oauth;
mod openapi;
mod ops;
mod store;
mod tasks;
mod transport;
mod upstreams;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toolwire_core::host::{HostProfile, HostProfiles};
use toolwire_core::{Phase, Target, ValidationMode};
use toolwire_store::OffloadFallback;

pub use app_tools::{
    AppTool, AppToolConfig, DEFAULT_RESPONSE_CAP, DEFAULT_TIMEOUT_MS, HeaderConfig,
};
pub use auth::{AuthConfig, RESERVED_PRINCIPALS, Token, TokenConfig};
pub use console::ConsoleConfig;
pub use limits::LimitsConfig;
pub use listen::DEFAULT_LISTEN;
pub use oauth::{OAuthConfig, OAuthSettings};
pub use openapi::{OpenApi, OpenApiConfig, SpecLocation};
pub use ops::{OpsConfig, OpsSettings};
pub use store::{DEFAULT_DATA_DIR, MAX_LINK_TTL_SECS, StoreConfig, StoreKind};
pub use tasks::TasksConfig;
pub use transport::{Transport, TransportConfig};
pub use upstreams::{Glob, Upstream, UpstreamConfig, UpstreamTransport};

/// The top-level keys that are neither tables nor read by a section's module.
const TOP_KEYS: &[&str] = &["phase", "prefix", "validation", "server_name", "demo_tools"];

/// Every table of the file with the keys it accepts (its own tables aside): `""` is the top.
const TABLES: [(&str, &[&str]); 15] = [
    ("", TOP_KEYS),
    ("", listen::KEYS),
    ("[limits]", limits::KEYS),
    ("[store]", store::KEYS),
    ("[transport]", transport::KEYS),
    ("[auth]", auth::KEYS),
    ("[[auth.tokens]]", auth::TOKEN_KEYS),
    ("[auth.oauth]", oauth::KEYS),
    ("[ops]", ops::KEYS),
    ("[console]", console::KEYS),
    ("[tasks]", tasks::KEYS),
    ("[[tools]]", app_tools::KEYS),
    ("[[upstreams]]", upstreams::KEYS),
    ("[[openapi]]", openapi::KEYS),
    ("[[hosts]]", hosts::KEYS),
];

/// Every key `toolwire.toml` accepts, spelled as the README's reference table spells it: `phase`
/// at the top, `[store] url` in a table, `[[tools]] endpoint` in an array of tables (and
/// `[limits] "<target>"` for the key of each MCP target). A test keeps the list equal to what the
/// loader accepts, so a documentation check can ask for every key.
pub fn keys() -> Vec<String> {
    TABLES
        .iter()
        .flat_map(|(table, keys)| {
            keys.iter().map(move |key| match *table {
                "" => (*key).to_owned(),
                table => format!("{table} {key}"),
            })
        })
        .collect()
}

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
    /// The console (DESIGN §18).
    pub console: Option<ConsoleConfig>,
    /// How long tasks are kept (DESIGN §17).
    pub tasks: Option<TasksConfig>,
    /// App tools.
    #[serde(default)]
    pub tools: Vec<AppToolConfig>,
    /// `[[upstreams]]`: MCP servers re-served (DESIGN §15).
    #[serde(default)]
    pub upstreams: Vec<UpstreamConfig>,
    /// `[[openapi]]`: REST APIs served from their OpenAPI description (DESIGN §16).
    #[serde(default)]
    pub openapi: Vec<OpenApiConfig>,
    /// `[[hosts]]`: host profiles added to, or replacing, the built-in ones (DESIGN §11).
    #[serde(default)]
    pub hosts: Vec<HostProfile>,
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
    /// Whether `/console` is served.
    pub console: bool,
    /// How long tasks are kept and how often clients poll them.
    pub tasks: toolwire_mcp::TaskSettings,
    /// App tools.
    pub tools: Vec<AppTool>,
    /// Upstream MCP servers.
    pub upstreams: Vec<Upstream>,
    /// REST APIs from their OpenAPI description.
    pub openapi: Vec<OpenApi>,
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

/// The bytes of a regular file of at most [`FILE_LIMIT`] bytes, or why not (without the path;
/// `toolwire_store::read_limited`).
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    toolwire_store::read_limited(path, FILE_LIMIT).map_err(|e| e.to_string())
}

/// A PEM file of CA certificates: its bytes and its certificates, at least one.
pub(super) fn read_ca(
    path: &Path,
) -> Result<(Vec<u8>, Vec<rustls::pki_types::CertificateDer<'static>>), String> {
    use rustls::pki_types::pem::PemObject as _;
    let pem = read_bounded(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let certs = rustls::pki_types::CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{} is not a PEM certificate file: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{} holds no PEM certificate", path.display()));
    }
    Ok((pem, certs))
}

/// Builds a [`ConfigError`] for a key of the file.
pub(super) type Refuse<'a> = &'a dyn Fn(&str, String) -> ConfigError;

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
    let listen = listen::resolve_listen(overrides.listen.as_deref(), parsed.listen, &error)?;
    let limits = limits::resolve(&parsed.limits, &error)?;
    let store = store::resolve(parsed.store.unwrap_or_default(), overrides, &error)?;
    let transport = transport::resolve(parsed.transport.unwrap_or_default(), &error)?;
    let allowed_hosts = listen::resolve_allowed_hosts(listen, parsed.allowed_hosts, &error)?;
    let allowed_origins = listen::resolve_allowed_origins(parsed.allowed_origins, &error)?;
    let auth = parsed.auth.unwrap_or_default();
    let tokens = auth::resolve_tokens(auth.tokens, env, &error)?;
    let oauth = auth.oauth.map(|o| oauth::resolve(o, &error)).transpose()?;
    let ops = ops::resolve(parsed.ops.unwrap_or_default(), &error)?;
    let credentials = !tokens.is_empty() || oauth.is_some();
    let console = console::resolve(
        parsed.console.unwrap_or_default(),
        listen.ip().is_loopback(),
        credentials,
        &error,
    )?;
    let tasks = tasks::resolve(parsed.tasks.unwrap_or_default(), &error)?;
    let tools = parsed
        .tools
        .into_iter()
        .enumerate()
        .map(|(i, t)| app_tools::resolve_tool(&format!("tools[{i}]"), t, env, &error))
        .collect::<Result<_, _>>()?;
    let upstreams = upstreams::resolve(parsed.upstreams, env, &error)?;
    let mut names: std::collections::BTreeSet<String> =
        upstreams.iter().map(|u| u.name.clone()).collect();
    let openapi = parsed
        .openapi
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            let key = format!("openapi[{i}]");
            let entry = openapi::resolve_one(&key, o, env, &error)?;
            if !names.insert(entry.name.clone()) {
                return Err(error(
                    &format!("{key}.name"),
                    format!("another upstream or openapi entry is named `{}` already", entry.name),
                ));
            }
            Ok(entry)
        })
        .collect::<Result<_, _>>()?;
    let hosts = hosts::resolve(parsed.hosts, file.as_deref())?;
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
        console,
        tasks,
        tools,
        upstreams,
        openapi,
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
        Some(text) => text.parse().map_err(|e: toolwire_core::names::UnknownName| ConfigError {
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

/// Whether `url` is `http://` or `https://` with something after the scheme.
pub(super) fn is_http_url(url: &str) -> bool {
    ["http://", "https://"]
        .iter()
        .any(|scheme| url.strip_prefix(scheme).is_some_and(|rest| !rest.is_empty()))
}
