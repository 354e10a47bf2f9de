//! One audited connection per revision: the handshake (`initialize`, or `server/discover` on the
//! stateless revision), `tools/list` with its pages, and `tools/call`, each carrying what its
//! revision requires (`MCP-Protocol-Version`, `Mcp-Method`/`Mcp-Name`, the per-request `_meta`).

use std::time::Duration;

use crate::wire::{self, WireViolation};
use serde_json::{Value, json};
use toolwire_core::McpRevision;

use super::transport::{Answer, Channel, Endpoint, TransportError};
use super::{Finding, rules};

/// The most `tools/list` pages followed before the listing is reported as endless.
const MAX_PAGES: usize = 100;

/// A connection at one revision the server accepted.
pub struct Session {
    /// The revision spoken.
    pub revision: McpRevision,
    channel: Channel,
    client_name: String,
    /// What the handshake itself broke (its result against the official schema).
    pub findings: Vec<Finding>,
}

/// The outcome of offering one revision.
pub enum Opened {
    /// The server speaks the revision.
    Offered(Session),
    /// It does not; why (what it answered instead).
    NotOffered(String),
}

impl Session {
    /// Connects at `revision`, presenting itself as `client_name`.
    pub async fn open(
        endpoint: &Endpoint,
        revision: McpRevision,
        timeout: Duration,
        client_name: &str,
    ) -> Result<Opened, TransportError> {
        let channel = Channel::open(endpoint, timeout)?;
        let mut session = Session {
            revision,
            channel,
            client_name: client_name.to_owned(),
            findings: Vec::new(),
        };
        let outcome = if revision.is_stateless() {
            session.discover().await?
        } else {
            session.initialize().await?
        };
        Ok(match outcome {
            None => Opened::Offered(session),
            Some(reason) => Opened::NotOffered(reason),
        })
    }

    fn client_info(&self) -> Value {
        json!({"name": self.client_name, "version": env!("CARGO_PKG_VERSION")})
    }

    /// `initialize` + `notifications/initialized`; `Some(reason)` when the server does not
    /// speak the revision.
    async fn initialize(&mut self) -> Result<Option<String>, TransportError> {
        let params = json!({
            "protocolVersion": self.revision.as_str(),
            "capabilities": {},
            "clientInfo": self.client_info(),
        });
        let answer = self.request("initialize", params).await?;
        let Some(result) = answer.result() else {
            return Ok(Some(format!("initialize answered with error {}", answer.error_text())));
        };
        match result.get("protocolVersion").and_then(Value::as_str) {
            Some(version) if version == self.revision.as_str() => {}
            Some(version) => {
                return Ok(Some(format!("the server answered initialize with {version}")));
            }
            None => return Ok(Some("the initialize result has no protocolVersion".to_owned())),
        }
        self.official("initialize", "InitializeResult", result);
        let headers = self.headers("notifications/initialized", None);
        self.channel.notify("notifications/initialized", &headers).await?;
        Ok(None)
    }

    /// `server/discover`; `Some(reason)` when the server does not offer the revision.
    async fn discover(&mut self) -> Result<Option<String>, TransportError> {
        let answer = self.request("server/discover", json!({})).await?;
        let Some(result) = answer.result() else {
            return Ok(Some(format!(
                "server/discover answered with error {}",
                answer.error_text()
            )));
        };
        let offered =
            result.get("supportedVersions").and_then(Value::as_array).is_some_and(|versions| {
                versions.iter().any(|v| v.as_str() == Some(self.revision.as_str()))
            });
        if !offered {
            return Ok(Some(format!(
                "server/discover does not list {} in supportedVersions",
                self.revision.as_str()
            )));
        }
        self.official("server/discover", "DiscoverResult", result);
        Ok(None)
    }

    fn official(&mut self, method: &str, definition: &str, result: &Value) {
        for violation in wire::official_mcp_violations(self.revision, definition, result) {
            let finding = Finding::revision(
                self.revision,
                "official-schema",
                format!("{method} {}", location(&violation)),
                &violation.message,
            );
            self.findings.push(finding.weighed(&violation));
        }
    }

    /// The HTTP headers a request of the revision carries besides the fixed ones.
    fn headers(&self, method: &str, name: Option<&str>) -> Vec<(String, String)> {
        let mut headers = Vec::new();
        if rules(self.revision).protocol_version_header && method != "initialize" {
            headers.push(("MCP-Protocol-Version".to_owned(), self.revision.as_str().to_owned()));
        }
        if self.revision.is_stateless() {
            headers.push(("Mcp-Method".to_owned(), method.to_owned()));
            if let Some(name) = name {
                headers.push(("Mcp-Name".to_owned(), name.to_owned()));
            }
        }
        headers
    }

    /// Sends a request with what the revision requires around it.
    pub async fn request(
        &mut self,
        method: &str,
        mut params: Value,
    ) -> Result<Answer, TransportError> {
        if self.revision.is_stateless()
            && let Some(fields) = params.as_object_mut()
        {
            fields.insert(
                "_meta".to_owned(),
                json!({
                    "io.modelcontextprotocol/protocolVersion": self.revision.as_str(),
                    "io.modelcontextprotocol/clientInfo": self.client_info(),
                    "io.modelcontextprotocol/clientCapabilities": {},
                }),
            );
        }
        let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
        let headers = self.headers(method, name.as_deref());
        self.channel.request(method, params, &headers).await
    }

    /// Every page of `tools/list`, as sent; a JSON-RPC error ends the listing with a finding.
    pub async fn list_tools(&mut self) -> Result<Vec<Value>, TransportError> {
        let mut pages = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let answer = self.request("tools/list", params).await?;
            let Some(page) = answer.result() else {
                self.findings.push(Finding::revision(
                    self.revision,
                    "tools-list",
                    "tools/list",
                    format!("answered with JSON-RPC error {}", answer.error_text()),
                ));
                return Ok(pages);
            };
            cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
            pages.push(page.clone());
            if cursor.is_none() {
                return Ok(pages);
            }
            if pages.len() >= MAX_PAGES {
                self.findings.push(Finding::revision(
                    self.revision,
                    "tools-list",
                    "tools/list",
                    format!(
                        "still a nextCursor after {MAX_PAGES} pages; the listing was cut there"
                    ),
                ));
                return Ok(pages);
            }
        }
    }

    /// `tools/call` of `tool` with `arguments` (left out when `None`).
    pub async fn call(
        &mut self,
        tool: &str,
        arguments: Option<&Value>,
    ) -> Result<Answer, TransportError> {
        let mut params = json!({"name": tool});
        if let (Some(fields), Some(arguments)) = (params.as_object_mut(), arguments) {
            fields.insert("arguments".to_owned(), arguments.clone());
        }
        self.request("tools/call", params).await
    }

    /// Ends the connection (a child process is waited for).
    pub async fn close(self) {
        self.channel.close().await;
    }

    /// Lines on stdout that were not JSON-RPC, as revision-level findings.
    pub fn stray_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.channel.stray_lines)
            .into_iter()
            .map(|line| {
                Finding::revision(
                    self.revision,
                    "stdio",
                    "stdout",
                    format!("a line that is not a JSON-RPC message: {line}"),
                )
            })
            .collect()
    }
}

/// Where a violation is, as shown: its JSON pointer (`(root)` for the document itself), pointing
/// at the member itself when the violation is a missing required member.
pub fn location(violation: &WireViolation) -> String {
    let missing = violation
        .message
        .strip_prefix('"')
        .and_then(|rest| rest.split_once("\" is a required property"))
        .map(|(name, _)| name);
    match missing {
        Some(name) => toolwire_core::pointer::push(&violation.path, name),
        None if violation.path.is_empty() => "(root)".to_owned(),
        None => violation.path.clone(),
    }
}
