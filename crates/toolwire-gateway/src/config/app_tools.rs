//! `[[tools]]`: the app tools, each an HTTP endpoint toolwire POSTs calls to; secrets come from
//! the environment and CA files are read here, so a tool is ready to call once loaded.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use toolwire_core::Shape;

use super::{ConfigError, Refuse, read_ca};

/// The default app endpoint timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// The default cap on an app answer: 16 MiB − 64 KiB.
pub const DEFAULT_RESPONSE_CAP: u64 = 16 * 1024 * 1024 - 64 * 1024;

/// The keys of `[[tools]]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "input_schema",
    "outputs",
    "annotations",
    "shape",
    "privileges",
    "endpoint",
    "timeout_ms",
    "headers",
    "response_cap",
    "ca_file",
    "proxy",
    "max_result_chars",
    "task",
];

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
    /// Claude Code's size opt-in for this tool, in characters (4096 to 500 000): published to
    /// Claude Code alone and then its cap for this tool.
    pub max_result_chars: Option<usize>,
    /// Whether calls may become tasks: `forbidden` (default), `optional` or `required`.
    pub task: Option<String>,
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
    pub ca_certs: Option<Vec<rustls::pki_types::CertificateDer<'static>>>,
    /// The proxy, when one is configured.
    pub proxy: Option<String>,
    /// Claude Code's size opt-in, in characters, when one is configured.
    pub max_result_chars: Option<usize>,
    /// Whether calls may become tasks.
    pub task: toolwire_mcp::TaskSupport,
}

/// One `[[tools]]` entry (`key` is `tools[i]`): defaults applied, secrets read, files loaded.
pub(super) fn resolve_tool(
    key: &str,
    t: AppToolConfig,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<AppTool, ConfigError> {
    let description = t.description.filter(|d| !d.trim().is_empty()).ok_or_else(|| {
        error(&format!("{key}.description"), "every tool needs a description".into())
    })?;
    let client = HttpClientConfig {
        url: (&format!("{key}.endpoint"), &t.endpoint),
        headers: &t.headers,
        ca_file: t.ca_file.as_deref(),
        proxy: t.proxy.as_deref(),
    };
    let (headers, ca_certs) = client.resolve(key, env, error)?;
    let timeout_ms = t.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 {
        return Err(error(&format!("{key}.timeout_ms"), "must be at least 1".into()));
    }
    if let Some(chars) = t.max_result_chars {
        toolwire_mcp::check_max_result_chars(chars)
            .map_err(|e| error(&format!("{key}.max_result_chars"), e.to_string()))?;
    }
    let task = super::tasks::support(&format!("{key}.task"), t.task.as_deref(), error)?;
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
        max_result_chars: t.max_result_chars,
        task,
    })
}

/// What an HTTP client of the configuration is given (`[[tools]]`, `[[upstreams]]` with a url):
/// its URL (with its key), headers, CA file and proxy.
pub(super) struct HttpClientConfig<'a> {
    pub(super) url: (&'a str, &'a str),
    pub(super) headers: &'a BTreeMap<String, HeaderConfig>,
    pub(super) ca_file: Option<&'a std::path::Path>,
    pub(super) proxy: Option<&'a str>,
}

impl HttpClientConfig<'_> {
    /// Checks the URL and proxy, reads the headers' secrets and the CA file (`key` is the
    /// entry's, `tools[i]` say): the headers and the CA certificates, when a file is given.
    pub(super) fn resolve(
        &self,
        key: &str,
        env: &dyn Fn(&str) -> Option<String>,
        error: Refuse,
    ) -> Result<HttpClientParts, ConfigError> {
        let (url_key, url) = self.url;
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(error(url_key, format!("`{url}` is not an http:// or https:// URL")));
        }
        let headers = self
            .headers
            .iter()
            .map(|(name, h)| {
                let value = resolve_header(&format!("{key}.headers.{name}"), h, env, error)?;
                Ok((name.clone(), value))
            })
            .collect::<Result<_, ConfigError>>()?;
        let ca_certs = match self.ca_file {
            Some(path) => Some(read_ca(path).map_err(|m| error(&format!("{key}.ca_file"), m))?.1),
            None => None,
        };
        if let Some(proxy) = self.proxy
            && let Err(e) = reqwest::Proxy::all(proxy)
        {
            return Err(error(
                &format!("{key}.proxy"),
                format!("`{proxy}` is not a proxy URL: {e}"),
            ));
        }
        Ok((headers, ca_certs))
    }
}

/// The resolved headers and CA certificates of an [`HttpClientConfig`].
pub(super) type HttpClientParts =
    (Vec<(String, String)>, Option<Vec<rustls::pki_types::CertificateDer<'static>>>);

/// One header of a tool (`key` is `tools[i].headers.NAME`): the literal value, or the prefix
/// and the variable's value. Also the secrets of `[[openapi]] credentials`.
pub(super) fn resolve_header(
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
