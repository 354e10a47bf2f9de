//! An upstream's resources, resource templates and prompts, re-served beside its tools (DESIGN
//! §15 "Resources and prompts"): listed when the upstream is connected (and again when it says a
//! list changed), prompt names under the upstream's prefix; `resources/read` of a URI the
//! upstream listed (or one of its templates matches) and `prompts/get` of one of its prompts go
//! to the upstream, after the caller's privileges are checked against the upstream's.

use std::sync::{Arc, PoisonError, RwLock};

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, PaginatedRequestParams, Prompt,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceTemplate,
};
use rmcp::service::{Peer, RoleClient, RoleServer, ServiceError};
use serde_json::json;
use toolwire_mcp::extend::{ExtensionFuture, Prompts, Resources};
use toolwire_mcp::{Principal, rmcp};

use super::paging::{self, Bounds};
use super::tool::Link;
use crate::config::Upstream;

/// How much of each of an upstream's lists beside its tools (resources, templates, prompts) is
/// kept: more than any client would page through, little enough that an upstream cannot make
/// the gateway hold gigabytes of them.
const LISTED: Bounds = Bounds { items: 10_000, bytes: 16 * 1024 * 1024 };

/// What an upstream lists beside its tools.
#[derive(Default)]
pub(super) struct Listed {
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    /// Under the upstream's prefix.
    prompts: Vec<Prompt>,
}

impl Listed {
    /// Lists whatever the upstream `upstream` announced it serves, every page within the
    /// bounds of [`LISTED`].
    pub(super) async fn of(
        peer: &Peer<RoleClient>,
        upstream: &str,
        prefix: &str,
    ) -> Result<Self, String> {
        let params = |cursor| PaginatedRequestParams::default().with_cursor(cursor);
        let capabilities = peer.peer_info().map(|info| info.capabilities.clone());
        let (resources, prompts) =
            capabilities.map_or((false, false), |c| (c.resources.is_some(), c.prompts.is_some()));
        let mut listed = Self::default();
        if resources {
            listed.resources = paging::read(
                upstream,
                "resources/list",
                LISTED,
                |cursor| async move {
                    let page = peer.list_resources(Some(params(cursor))).await?;
                    Ok((page.resources, page.next_cursor))
                },
                |r: &Resource| !is_stored_result(&r.uri),
            )
            .await?;
            // The stored results of an upstream toolwire are its own (their URIs are the
            // gateway's, and a read of one is the gateway's store's): not kept.
            listed.templates = paging::read(
                upstream,
                "resources/templates/list",
                LISTED,
                |cursor| async move {
                    let page = peer.list_resource_templates(Some(params(cursor))).await?;
                    Ok((page.resource_templates, page.next_cursor))
                },
                |t: &ResourceTemplate| !is_stored_result(&t.uri_template),
            )
            .await?;
        }
        if prompts {
            listed.prompts = paging::read(
                upstream,
                "prompts/list",
                LISTED,
                |cursor| async move {
                    let page = peer.list_prompts(Some(params(cursor))).await?;
                    Ok((page.prompts, page.next_cursor))
                },
                |_: &Prompt| true,
            )
            .await?;
            for prompt in &mut listed.prompts {
                prompt.name = format!("{prefix}{}", prompt.name);
            }
        }
        Ok(listed)
    }
}

/// The resources and prompts of one upstream, as the gateway's server asks for them.
pub(super) struct Extras {
    link: Arc<Link>,
    prefix: String,
    privileges: Vec<String>,
    listed: RwLock<Listed>,
}

impl Extras {
    /// Nothing listed yet.
    pub(super) fn new(upstream: &Upstream, link: Arc<Link>) -> Self {
        Self {
            link,
            prefix: upstream.tool_prefix.clone(),
            privileges: upstream.privileges.clone(),
            listed: RwLock::new(Listed::default()),
        }
    }

    /// Serves `listed` from now on.
    pub(super) fn replace(&self, listed: Listed) {
        *self.listed.write().unwrap_or_else(PoisonError::into_inner) = listed;
    }

    fn listed(&self) -> std::sync::RwLockReadGuard<'_, Listed> {
        self.listed.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `uri` is one of the upstream's: listed, or matched by one of its templates.
    fn owns(&self, uri: &str) -> bool {
        if is_stored_result(uri) {
            return false;
        }
        let listed = self.listed();
        listed.resources.iter().any(|r| r.uri == uri)
            || listed.templates.iter().any(|t| template_matches(&t.uri_template, uri))
    }

    /// The caller's missing privileges as the error a client reads, or the peer to ask.
    fn admit(
        &self,
        request: &rmcp::service::RequestContext<RoleServer>,
    ) -> Result<Peer<RoleClient>, ErrorData> {
        if !self.privileges.is_empty() {
            let principal = request
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Principal>());
            let missing = match principal {
                Some(principal) => principal.missing(self.privileges.iter().map(String::as_str)),
                None => self.privileges.clone(),
            };
            if !missing.is_empty() {
                return Err(ErrorData::invalid_request(
                    format!("this needs the privileges {}", missing.join(", ")),
                    None,
                ));
            }
        }
        self.link.peer().ok_or_else(|| {
            ErrorData::internal_error(
                format!(
                    "the upstream server {} is not connected; try again later",
                    self.link.name()
                ),
                None,
            )
        })
    }

    /// An error of the upstream, as a client reads it (its own JSON-RPC error as it was, else
    /// an unavailable upstream without its address).
    fn failed(&self, error: ServiceError) -> ErrorData {
        match error {
            ServiceError::McpError(error) => error,
            other => {
                tracing::warn!(upstream = %self.link.name(), error = %other.to_string().escape_debug(), "upstream request failed");
                ErrorData::internal_error(
                    format!(
                        "the upstream server {} did not answer; try again later",
                        self.link.name()
                    ),
                    None,
                )
            }
        }
    }

    /// The error of a request the upstream did not answer within its limit.
    fn late(&self) -> ErrorData {
        ErrorData::internal_error(
            format!(
                "the upstream server {} did not answer within {} ms; try again later",
                self.link.name(),
                self.link.timeout().as_millis()
            ),
            None,
        )
    }
}

impl Resources for Extras {
    fn list(&self) -> Vec<Resource> {
        self.listed().resources.clone()
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        self.listed().templates.clone()
    }

    fn read<'a>(
        &'a self,
        uri: &'a str,
        request: &'a rmcp::service::RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Option<Result<ReadResourceResult, ErrorData>>> {
        Box::pin(async move {
            if !self.owns(uri) {
                return None;
            }
            let peer = match self.admit(request) {
                Ok(peer) => peer,
                Err(error) => return Some(Err(error)),
            };
            let params = ReadResourceRequestParams::new(uri);
            Some(
                match tokio::time::timeout(self.link.timeout(), peer.read_resource(params)).await {
                    Ok(read) => read.map_err(|e| self.failed(e)),
                    Err(_) => Err(self.late()),
                },
            )
        })
    }
}

impl Prompts for Extras {
    fn list(&self) -> Vec<Prompt> {
        self.listed().prompts.clone()
    }

    fn get<'a>(
        &'a self,
        mut request: GetPromptRequestParams,
        context: &'a rmcp::service::RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<GetPromptResponse, ErrorData>> {
        Box::pin(async move {
            let listed = self.listed().prompts.iter().any(|p| p.name == request.name);
            let remote = request.name.strip_prefix(&self.prefix).filter(|_| listed);
            let Some(remote) = remote.map(str::to_owned) else {
                return Err(ErrorData::invalid_params(
                    format!("unknown prompt `{}`", request.name),
                    Some(json!({"name": request.name})),
                ));
            };
            let peer = self.admit(context)?;
            request.name = remote;
            request.meta = None;
            match tokio::time::timeout(self.link.timeout(), peer.get_prompt_once(request)).await {
                Ok(got) => got.map_err(|e| self.failed(e)),
                Err(_) => Err(self.late()),
            }
        })
    }
}

/// Whether `uri` names (or templates) a stored result of toolwire.
fn is_stored_result(uri: &str) -> bool {
    uri.starts_with(toolwire_core::STORED_RESULT_PREFIX)
}

/// Whether `uri` is an expansion of the RFC 6570 template `template`: its literal parts in
/// order, each `{…}` standing for a run of characters (a `/` only where the expression says so).
fn template_matches(template: &str, uri: &str) -> bool {
    let mut rest = uri;
    let mut parts = template.split('{');
    let Some(head) = parts.next() else { return false };
    let Some(after) = rest.strip_prefix(head) else { return false };
    rest = after;
    let mut pieces = parts.peekable();
    while let Some(piece) = pieces.next() {
        let Some((expression, literal)) = piece.split_once('}') else { return false };
        let slashes = expression.starts_with(['/', '+', '#']);
        let last = pieces.peek().is_none();
        let end = if literal.is_empty() {
            if last { Some(rest.len()) } else { Some(0) }
        } else {
            rest.find(literal)
        };
        let Some(end) = end else { return false };
        if !slashes && rest[..end].contains('/') {
            return false;
        }
        rest = &rest[end + literal.len()..];
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::template_matches;

    #[test]
    fn a_uri_matches_the_templates_it_expands() {
        for (template, uri, matches) in [
            ("test://static/resource/{id}", "test://static/resource/7", true),
            ("test://static/resource/{id}", "test://static/resource/7/x", false),
            ("test://static/resource/{id}", "test://other/7", false),
            ("file:///{+path}", "file:///a/b/c.txt", true),
            ("db://{table}/{id}.json", "db://orders/12.json", true),
            ("db://{table}/{id}.json", "db://orders/12.txt", false),
            ("memo://fixed", "memo://fixed", true),
            ("memo://fixed", "memo://fixed2", false),
            ("broken://{id", "broken://1", false),
        ] {
            assert_eq!(template_matches(template, uri), matches, "{template} {uri}");
        }
    }
}
