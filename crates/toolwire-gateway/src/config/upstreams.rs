//! `[[upstreams]]`: MCP servers toolwire connects to as a client and re-serves (DESIGN §15),
//! each a command started on stdio or a Streamable HTTP URL. Secrets come from the environment
//! and CA files are read here, so an upstream is ready to connect once loaded.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::app_tools::{DEFAULT_TIMEOUT_MS, HeaderConfig, HttpClientConfig};
use super::{ConfigError, Refuse};

/// The keys of `[[upstreams]]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &[
    "name",
    "command",
    "url",
    "env",
    "headers",
    "tool_prefix",
    "tools",
    "outputs",
    "privileges",
    "timeout_ms",
    "ca_file",
    "proxy",
];

/// Source names the gateway's own sources take: an upstream cannot share them.
const RESERVED_NAMES: &[&str] = &["demo", "app_tools", "conformance"];

/// `[[upstreams]]`: one upstream MCP server, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamConfig {
    /// Its name: `^[A-Za-z0-9_-]{1,32}$`, unique among the gateway's sources.
    pub name: String,
    /// A stdio upstream: the program and its arguments.
    pub command: Option<Vec<String>>,
    /// A Streamable HTTP upstream: its MCP endpoint.
    pub url: Option<String>,
    /// Environment variables for the command (stdio only).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Headers sent with every request (HTTP only), as `[[tools]]` headers.
    #[serde(default)]
    pub headers: BTreeMap<String, HeaderConfig>,
    /// Prepended to its tool and prompt names.
    #[serde(default)]
    pub tool_prefix: String,
    /// Which of its tools are served (globs over the upstream's own names); all when absent.
    pub tools: Option<Vec<String>>,
    /// Output declarations for tools that publish no `outputSchema`, by the upstream's name.
    #[serde(default)]
    pub outputs: BTreeMap<String, Value>,
    /// Privileges every caller of its tools must hold.
    #[serde(default)]
    pub privileges: Vec<String>,
    /// A call's limit, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// CA certificates for an `https://` upstream, instead of the system roots.
    pub ca_file: Option<PathBuf>,
    /// A proxy for an HTTP upstream.
    pub proxy: Option<String>,
}

/// One upstream, resolved.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// Its name.
    pub name: String,
    /// How toolwire reaches it.
    pub transport: UpstreamTransport,
    /// Prepended to its tool and prompt names.
    pub tool_prefix: String,
    /// Which of its tools are served; `None` for all.
    pub tools: Option<Vec<Glob>>,
    /// Output declarations for tools that publish none, by the upstream's name.
    pub outputs: BTreeMap<String, Value>,
    /// Privileges every caller of its tools must hold.
    pub privileges: Vec<String>,
    /// A call's limit.
    pub timeout: Duration,
}

/// How toolwire reaches an upstream.
#[derive(Debug, Clone)]
pub enum UpstreamTransport {
    /// A child process speaking newline-delimited JSON-RPC on stdio.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The MCP endpoint.
        url: String,
        /// Header name and value pairs sent with every request.
        headers: Vec<(String, String)>,
        /// The CA certificates of `ca_file`, when set.
        ca_certs: Option<Vec<rustls::pki_types::CertificateDer<'static>>>,
        /// The proxy, when one is configured.
        proxy: Option<String>,
    },
}

/// A tool-name pattern of `tools`: `*` stands for any run of characters, `?` for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob(String);

impl Glob {
    /// The pattern, refused when it is empty or uses a character toolwire's globs do not have.
    pub fn new(pattern: &str) -> Result<Self, String> {
        if pattern.is_empty() {
            return Err("an empty pattern matches no tool".into());
        }
        if let Some(c) = pattern.chars().find(|c| matches!(c, '[' | ']' | '{' | '}' | '\\' | '!')) {
            return Err(format!(
                "`{pattern}` uses `{c}`: a pattern has only `*` (any run of characters) and `?` (one character)"
            ));
        }
        Ok(Self(pattern.to_owned()))
    }

    /// Whether `name` matches the whole pattern.
    pub fn matches(&self, name: &str) -> bool {
        let pattern: Vec<char> = self.0.chars().collect();
        let name: Vec<char> = name.chars().collect();
        // The last `*` seen and where in `name` it resumes: the classic linear matcher.
        let (mut p, mut n, mut star, mut resume) = (0, 0, None, 0);
        while n < name.len() {
            match pattern.get(p) {
                Some('*') => {
                    star = Some(p);
                    resume = n;
                    p += 1;
                }
                Some(&c) if c == '?' || c == name[n] => {
                    p += 1;
                    n += 1;
                }
                _ => match star {
                    Some(s) => {
                        p = s + 1;
                        resume += 1;
                        n = resume;
                    }
                    None => return false,
                },
            }
        }
        pattern[p..].iter().all(|&c| c == '*')
    }
}

/// Every `[[upstreams]]` entry, resolved; names checked against each other and the gateway's
/// own sources.
pub(super) fn resolve(
    upstreams: Vec<UpstreamConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<Vec<Upstream>, ConfigError> {
    let mut names = BTreeSet::new();
    upstreams
        .into_iter()
        .enumerate()
        .map(|(i, u)| {
            let key = format!("upstreams[{i}]");
            let upstream = resolve_one(&key, u, env, error)?;
            if !names.insert(upstream.name.clone()) {
                return Err(error(
                    &format!("{key}.name"),
                    format!("another upstream is named `{}` already", upstream.name),
                ));
            }
            Ok(upstream)
        })
        .collect()
}

/// The name of an upstream or OpenAPI source: 1 to 32 letters, digits, `_` or `-`, and not the
/// name of one of toolwire's own sources.
pub(super) fn valid_source_name(name: &str) -> Result<(), String> {
    let valid = (1..=32).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(format!("`{name}` is not 1 to 32 letters, digits, `_` or `-`"));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(format!("`{name}` is the name of one of toolwire's own tool sources"));
    }
    Ok(())
}

/// The globs of an allow-list (`key` names it, `upstreams[0].tools` say); `None` when absent.
pub(super) fn globs(
    key: &str,
    patterns: Option<Vec<String>>,
    error: Refuse,
) -> Result<Option<Vec<Glob>>, ConfigError> {
    patterns
        .map(|patterns| {
            patterns
                .iter()
                .enumerate()
                .map(|(j, p)| Glob::new(p).map_err(|m| error(&format!("{key}[{j}]"), m)))
                .collect()
        })
        .transpose()
}

/// A `tool_prefix`: letters, digits, `_`, `-` and `.` (what a tool name may hold).
pub(super) fn valid_prefix(prefix: &str) -> Result<(), String> {
    if prefix.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        Ok(())
    } else {
        Err(format!("`{prefix}` may hold only letters, digits, `_`, `-` and `.`"))
    }
}

/// One `[[upstreams]]` entry (`key` is `upstreams[i]`).
fn resolve_one(
    key: &str,
    u: UpstreamConfig,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<Upstream, ConfigError> {
    valid_source_name(&u.name).map_err(|m| error(&format!("{key}.name"), m))?;
    let transport = match (u.command, u.url) {
        (Some(_), Some(_)) => {
            return Err(error(key, "give command (a stdio upstream) or url, not both".into()));
        }
        (None, None) => {
            return Err(error(
                key,
                "give command (a stdio upstream) or url (Streamable HTTP)".into(),
            ));
        }
        (Some(command), None) => {
            let http_only = [
                ("headers", !u.headers.is_empty()),
                ("ca_file", u.ca_file.is_some()),
                ("proxy", u.proxy.is_some()),
            ];
            if let Some((name, _)) = http_only.iter().find(|(_, set)| *set) {
                return Err(error(
                    &format!("{key}.{name}"),
                    "only an upstream with a url has it".into(),
                ));
            }
            let mut command = command.into_iter();
            let program = command.next().filter(|p| !p.is_empty()).ok_or_else(|| {
                error(&format!("{key}.command"), "the program to start is missing".into())
            })?;
            UpstreamTransport::Stdio { program, args: command.collect(), env: u.env }
        }
        (None, Some(url)) => {
            if !u.env.is_empty() {
                return Err(error(
                    &format!("{key}.env"),
                    "only an upstream started with a command has an environment".into(),
                ));
            }
            let client = HttpClientConfig {
                url: (&format!("{key}.url"), &url),
                headers: &u.headers,
                ca_file: u.ca_file.as_deref(),
                proxy: u.proxy.as_deref(),
            };
            let (headers, ca_certs) = client.resolve(key, env, error)?;
            UpstreamTransport::Http { url, headers, ca_certs, proxy: u.proxy }
        }
    };
    let tools = globs(&format!("{key}.tools"), u.tools, error)?;
    valid_prefix(&u.tool_prefix).map_err(|m| error(&format!("{key}.tool_prefix"), m))?;
    let timeout_ms = u.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 {
        return Err(error(&format!("{key}.timeout_ms"), "must be at least 1".into()));
    }
    Ok(Upstream {
        name: u.name,
        transport,
        tool_prefix: u.tool_prefix,
        tools,
        outputs: u.outputs,
        privileges: u.privileges,
        timeout: Duration::from_millis(timeout_ms),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names() {
        let glob = |p: &str| Glob::new(p).unwrap_or_else(|e| panic!("{e}"));
        assert!(glob("product_*").matches("product_get"));
        assert!(glob("product_*").matches("product_"));
        assert!(!glob("product_*").matches("get_product"));
        assert!(glob("*_get").matches("product_get"));
        assert!(glob("p?oduct*get").matches("product_get"));
        assert!(glob("*a*b*").matches("xxaxxbxx"));
        assert!(!glob("*a*b").matches("xxaxxbxx"));
        assert!(glob("echo").matches("echo"));
        assert!(!glob("echo").matches("echoes"));
        assert!(glob("*").matches(""));
        assert_eq!(
            Glob::new("[ab]*").err().as_deref(),
            Some(
                "`[ab]*` uses `[`: a pattern has only `*` (any run of characters) and `?` (one character)"
            )
        );
        assert_eq!(Glob::new("").err().as_deref(), Some("an empty pattern matches no tool"));
    }
}
