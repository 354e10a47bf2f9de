//! An upstream as a tool source: toolwire connects as an MCP client (a child process on stdio
//! for now), lists the upstream's tools (every page) and registers each under the upstream's
//! prefix; a call goes to the upstream and its answer becomes a `ToolResult` (`super::result`).
//! Still to come (DESIGN §15): Streamable HTTP upstreams, restarts with backoff, `list_changed`,
//! resources and prompts, relayed elicitation and sampling.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService, ServiceError};
use serde_json::Value;
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::{CallContext, DynTool, Registry, ToolFuture, ToolSource, ToolSpec};

use crate::config::{Upstream, UpstreamTransport};

/// A connected client of one upstream.
type Client = RunningService<RoleClient, ()>;

/// Why an upstream could not be served.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The command could not be started.
    #[error("upstream `{upstream}`: cannot start `{program}`: {reason}")]
    Spawn {
        /// The upstream.
        upstream: String,
        /// The program.
        program: String,
        /// What the system said.
        reason: String,
    },
    /// The MCP handshake or listing failed.
    #[error("upstream `{upstream}`: {reason}")]
    Protocol {
        /// The upstream.
        upstream: String,
        /// What failed.
        reason: String,
    },
    /// Not built yet.
    #[error("upstream `{0}`: Streamable HTTP upstreams are not served yet")]
    NotYet(String),
    /// A listed tool could not be registered.
    #[error("upstream `{upstream}`: {reason}")]
    Tool {
        /// The upstream.
        upstream: String,
        /// What was refused.
        reason: String,
    },
}

/// An upstream MCP server's tools, re-served.
pub struct UpstreamSource {
    name: String,
    tools: Registry,
    /// Kept so that the connection (and the child process) lives as long as the source.
    _client: Arc<Client>,
}

impl std::fmt::Debug for UpstreamSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamSource").field("name", &self.name).finish_non_exhaustive()
    }
}

impl UpstreamSource {
    /// Starts the upstream, does the MCP handshake and lists its tools.
    pub async fn connect(upstream: &Upstream) -> Result<Self, UpstreamError> {
        let protocol =
            |reason: String| UpstreamError::Protocol { upstream: upstream.name.clone(), reason };
        let UpstreamTransport::Stdio { program, args, env } = &upstream.transport else {
            return Err(UpstreamError::NotYet(upstream.name.clone()));
        };
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| UpstreamError::Spawn {
                upstream: upstream.name.clone(),
                program: program.clone(),
                reason: e.to_string(),
            })?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(protocol("its standard streams could not be opened".into()));
        };
        // What the upstream writes to stderr goes to the gateway's log, line by line, named.
        if let Some(stderr) = child.stderr.take() {
            let name = upstream.name.clone();
            tokio::spawn(async move {
                use tokio::io::AsyncBufReadExt as _;
                let mut lines = tokio::io::BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::info!(upstream = %name, %line, "upstream stderr");
                }
            });
        }
        // The child is killed when the connection's task ends and drops it.
        let client =
            ().serve((stdout, stdin))
                .await
                .map_err(|e| protocol(format!("handshake failed: {e}")))?;
        tokio::spawn(async move {
            let _ = child.wait().await;
        });
        let client = Arc::new(client);
        let listed = client
            .list_all_tools()
            .await
            .map_err(|e| protocol(format!("tools/list failed: {e}")))?;
        let mut tools = Registry::named(upstream.name.clone());
        for tool in listed {
            let remote = tool.name.to_string();
            if upstream
                .tools
                .as_ref()
                .is_some_and(|globs| !globs.iter().any(|g| g.matches(&remote)))
            {
                continue;
            }
            let output = tool
                .output_schema
                .as_ref()
                .map(|schema| Value::Object((**schema).clone()))
                .or_else(|| upstream.outputs.get(&remote).cloned());
            let wants_object = output
                .as_ref()
                .is_some_and(|schema| schema.get("type").and_then(Value::as_str) == Some("object"));
            let description = tool.description.as_deref().unwrap_or(&remote).to_owned();
            let mut spec = ToolSpec::new(format!("{}{remote}", upstream.tool_prefix), description)
                .input_schema(Value::Object((*tool.input_schema).clone()))
                .privileges(upstream.privileges.iter().cloned());
            if let Some(title) = &tool.title {
                spec = spec.title(title);
            }
            if let Some(annotations) = tool.annotations.clone() {
                spec = spec.annotations(annotations);
            }
            if let Some(output) = output {
                spec = spec.output_schema(output);
            }
            let handler = UpstreamTool {
                client: Arc::clone(&client),
                upstream: upstream.name.clone(),
                remote,
                wants_object,
                timeout: upstream.timeout,
            };
            tools.register_dyn(spec, Arc::new(handler)).map_err(|e| UpstreamError::Tool {
                upstream: upstream.name.clone(),
                reason: e.to_string(),
            })?;
        }
        Ok(Self { name: upstream.name.clone(), tools, _client: client })
    }
}

impl ToolSource for UpstreamSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn tools(&self) -> Registry {
        self.tools.clone()
    }
}

/// One upstream tool.
struct UpstreamTool {
    client: Arc<Client>,
    upstream: String,
    remote: String,
    wants_object: bool,
    timeout: Duration,
}

impl DynTool for UpstreamTool {
    fn call(&self, arguments: &Value, _context: CallContext) -> ToolFuture {
        let client = Arc::clone(&self.client);
        let (upstream, remote, wants_object, timeout) =
            (self.upstream.clone(), self.remote.clone(), self.wants_object, self.timeout);
        let mut params = CallToolRequestParams::new(remote.clone());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments.clone());
        }
        Box::pin(async move {
            let answer = tokio::time::timeout(timeout, client.call_tool(params)).await;
            Ok(match answer {
                Ok(Ok(result)) => match serde_json::to_value(&result) {
                    Ok(json) => {
                        let converted = super::result::convert(&json, &upstream, wants_object);
                        if converted.repaired {
                            tracing::info!(
                                upstream,
                                tool = remote,
                                "read an empty array as the empty object the tool declares"
                            );
                        }
                        converted.result
                    }
                    Err(e) => unavailable(
                        &upstream,
                        &remote,
                        &format!("its answer could not be read ({e})"),
                        false,
                    ),
                },
                Ok(Err(ServiceError::McpError(error))) if error.code.0 == -32602 => {
                    ToolResult::failure(ToolError::new(
                        ErrorCode::InvalidArguments,
                        error.message.to_string(),
                    ))
                }
                Ok(Err(e)) => {
                    tracing::warn!(upstream, tool = remote, error = %e, "upstream call failed");
                    unavailable(&upstream, &remote, "the upstream server did not answer", true)
                }
                Err(_) => unavailable(
                    &upstream,
                    &remote,
                    &format!(
                        "the upstream server did not answer within {} ms",
                        timeout.as_millis()
                    ),
                    true,
                ),
            })
        })
    }
}

/// An `upstream_unavailable` failure saying whether to retry (never the command line or URL).
fn unavailable(upstream: &str, tool: &str, why: &str, retry: bool) -> ToolResult {
    let advice =
        if retry { "Try again later." } else { "The operator should check the upstream server." };
    ToolResult::failure(ToolError::new(
        ErrorCode::UpstreamUnavailable,
        format!("Tool {tool} of {upstream} is unavailable: {why}. {advice}"),
    ))
}
