//! `[[openapi]]`: REST APIs served as tools from their OpenAPI description (DESIGN §16). The
//! document itself is read when the gateway starts (it may be a URL); here the entry is checked,
//! its secrets read from the environment and its CA file loaded.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::app_tools::{
    DEFAULT_RESPONSE_CAP, DEFAULT_TIMEOUT_MS, HeaderConfig, HttpClientConfig, resolve_header,
};
use super::upstreams::{Glob, globs, valid_prefix, valid_source_name};
use super::{ConfigError, Refuse};

/// The keys of `[[openapi]]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &[
    "name",
    "spec",
    "base_url",
    "tool_prefix",
    "operations",
    "writes",
    "credentials",
    "headers",
    "timeout_ms",
    "response_cap",
    "ca_file",
    "proxy",
    "privileges",
];

/// `[[openapi]]`: one REST API, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenApiConfig {
    /// Its name: `^[A-Za-z0-9_-]{1,32}$`, unique among the gateway's sources.
    pub name: String,
    /// The OpenAPI document: a file, or an `http(s)://` URL; JSON or YAML.
    pub spec: String,
    /// The API's base URL (default: the document's first `servers` URL).
    pub base_url: Option<String>,
    /// Put before every tool name.
    #[serde(default)]
    pub tool_prefix: String,
    /// Which operations become tools (globs over operationIds); all when absent.
    pub operations: Option<Vec<String>>,
    /// Whether operations other than GET and HEAD become tools (default false).
    #[serde(default)]
    pub writes: bool,
    /// The secret of each security scheme of the document, by scheme name: `{ env = "VAR" }`
    /// or `{ value = "…" }` (for `http` `basic`, `user:password`).
    #[serde(default)]
    pub credentials: BTreeMap<String, HeaderConfig>,
    /// Headers sent with every request, as `[[tools]]` headers.
    #[serde(default)]
    pub headers: BTreeMap<String, HeaderConfig>,
    /// A call's limit, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// The largest answer accepted, in bytes.
    pub response_cap: Option<u64>,
    /// CA certificates for `https://` (the API and the document), instead of the system roots.
    pub ca_file: Option<PathBuf>,
    /// A proxy for the API (and the document); none unless set.
    pub proxy: Option<String>,
    /// Privileges every caller of its tools must hold.
    #[serde(default)]
    pub privileges: Vec<String>,
}

/// Where the document is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecLocation {
    /// A file.
    File(PathBuf),
    /// An `http(s)://` URL.
    Url(String),
}

impl std::fmt::Display for SpecLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Url(url) => f.write_str(url),
        }
    }
}

/// One `[[openapi]]` entry, resolved.
#[derive(Debug, Clone)]
pub struct OpenApi {
    /// Its name.
    pub name: String,
    /// Where the document is.
    pub spec: SpecLocation,
    /// The API's base URL, when configured.
    pub base_url: Option<String>,
    /// Put before every tool name.
    pub tool_prefix: String,
    /// Which operations become tools; all when `None`.
    pub operations: Option<Vec<Glob>>,
    /// Whether operations other than GET and HEAD become tools.
    pub writes: bool,
    /// The secret of each security scheme, by scheme name.
    pub credentials: BTreeMap<String, String>,
    /// Header name and value pairs sent with every request.
    pub headers: Vec<(String, String)>,
    /// A call's limit.
    pub timeout: Duration,
    /// The largest answer accepted, in bytes.
    pub response_cap: u64,
    /// The CA certificates of `ca_file`, when set.
    pub ca_certs: Option<Vec<rustls::pki_types::CertificateDer<'static>>>,
    /// The proxy, when one is configured.
    pub proxy: Option<String>,
    /// Privileges every caller of its tools must hold.
    pub privileges: Vec<String>,
}

/// One `[[openapi]]` entry (`key` is `openapi[i]`).
pub(super) fn resolve_one(
    key: &str,
    o: OpenApiConfig,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<OpenApi, ConfigError> {
    valid_source_name(&o.name).map_err(|m| error(&format!("{key}.name"), m))?;
    valid_prefix(&o.tool_prefix).map_err(|m| error(&format!("{key}.tool_prefix"), m))?;
    if o.spec.trim().is_empty() {
        return Err(error(
            &format!("{key}.spec"),
            "give the OpenAPI document's file or URL".into(),
        ));
    }
    let spec = if o.spec.starts_with("http://") || o.spec.starts_with("https://") {
        SpecLocation::Url(o.spec.clone())
    } else {
        SpecLocation::File(PathBuf::from(&o.spec))
    };
    // The base URL is checked with the client's other settings; the spec URL stands in for it
    // when the document's servers are to be used.
    let url_key = format!("{key}.base_url");
    let url = match (&o.base_url, &spec) {
        (Some(base), _) => base.clone(),
        (None, SpecLocation::Url(url)) => url.clone(),
        (None, SpecLocation::File(_)) => "http://localhost".to_owned(),
    };
    let client = HttpClientConfig {
        url: (&url_key, &url),
        headers: &o.headers,
        ca_file: o.ca_file.as_deref(),
        proxy: o.proxy.as_deref(),
    };
    let (headers, ca_certs) = client.resolve(key, env, error)?;
    let credentials = o
        .credentials
        .iter()
        .map(|(scheme, secret)| {
            let value = resolve_header(&format!("{key}.credentials.{scheme}"), secret, env, error)?;
            Ok((scheme.clone(), value))
        })
        .collect::<Result<_, ConfigError>>()?;
    let operations = globs(&format!("{key}.operations"), o.operations, error)?;
    let timeout_ms = o.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 {
        return Err(error(&format!("{key}.timeout_ms"), "must be at least 1".into()));
    }
    Ok(OpenApi {
        name: o.name,
        spec,
        base_url: o.base_url,
        tool_prefix: o.tool_prefix,
        operations,
        writes: o.writes,
        credentials,
        headers,
        timeout: Duration::from_millis(timeout_ms),
        response_cap: o.response_cap.unwrap_or(DEFAULT_RESPONSE_CAP),
        ca_certs,
        proxy: o.proxy,
        privileges: o.privileges,
    })
}
