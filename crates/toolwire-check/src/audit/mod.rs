//! `toolwire check`: audit any MCP server as a client, at every revision it offers and for every
//! host profile (DESIGN §13).
//!
//! One piece per concern: [`transport`] (the raw JSON-RPC channel over HTTP or stdio, the
//! event streams of HTTP answers read by `toolwire_core::sse`),
//! [`client`] (handshake, listing, calls per revision), [`definitions`] (tool definitions),
//! [`cases`] (which calls to make), [`results`] (what each result is checked against),
//! [`report`] (the table and the JSON form) and [`samples`] (what each host's model reads of a
//! call, for `--format html`). The checks themselves are the core's: the official
//! schemas and wire contract of `crate::wire`, the output-schema compiler, the host
//! profiles and `model_view` of `toolwire_core::host`.

pub mod cases;
pub mod client;
pub mod definitions;
pub mod report;
pub mod results;
pub mod samples;
pub mod transport;

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;
use toolwire_core::McpRevision;
use toolwire_core::host::{HostProfile, HostProfiles};

use cases::{Case, FileCase};
use client::{Opened, Session};
use definitions::ToolDef;
use report::{Report, RevisionStatus};
use transport::{Endpoint, TransportError};

/// What the audit expects of a revision about the session (columns of the core's revision table).
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Arguments that break the input schema come back as an `isError` result, never a
    /// JSON-RPC error (SEP-1303, 2025-11-25 on).
    pub argument_errors_as_results: bool,
    /// Requests after `initialize` carry the `MCP-Protocol-Version` header on HTTP.
    pub protocol_version_header: bool,
}

/// The rules of `revision`: columns of the revision table.
pub const fn rules(revision: McpRevision) -> Rules {
    let caps = toolwire_core::revision::McpCaps::of(revision);
    Rules {
        argument_errors_as_results: caps.argument_errors_as_results,
        protocol_version_header: caps.protocol_version_header,
    }
}

/// What a finding weighs, by what it breaks (the grading table of `docs/check.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A real client fails the call (or the listing), or a host's model loses a fact.
    Error,
    /// Nothing fails and nothing is lost: a field the revision does not define (its clients
    /// ignore it), a rule of toolwire's own contract, advice.
    Warning,
}

impl Severity {
    /// The weight of a finding of `check`, where the check alone decides it; the checks whose
    /// findings differ (`wire-contract`, `output-schema`, `portability`, `outcome`) grade each
    /// one where it is made.
    pub fn of(check: &str) -> Self {
        match check {
            // A model without a description guesses; a refused argument as a JSON-RPC error
            // still fails the call (the revision only says it should be a result the model
            // reads); a result over toolwire's own limit is cut only by hosts with a cap, which
            // `host-cap` reports.
            "description" | "argument-error" | "size" => Self::Warning,
            _ => Self::Error,
        }
    }

    /// How it is written: `error` or `warning`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

/// One thing the server got wrong, where, and at which revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What it breaks.
    pub severity: Severity,
    /// The revision it was seen at.
    pub revision: &'static str,
    /// The tool, when it concerns one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Which check: `official-schema`, `wire-contract`, `output-schema`, `text-mirror`, …
    pub check: &'static str,
    /// Where: the request and a JSON pointer into what the server sent.
    pub at: String,
    /// What is wrong.
    pub message: String,
    /// The host profiles whose connections showed it; empty when every connection did (or it
    /// does not depend on the host).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

impl Finding {
    /// A finding about the connection or listing at `revision`, not about one tool.
    pub fn revision(
        revision: McpRevision,
        check: &'static str,
        at: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity: Severity::of(check),
            revision: revision.as_str(),
            tool: None,
            check,
            at: at.into(),
            message: message.into(),
            hosts: Vec::new(),
        }
    }

    /// A finding about `tool` at `revision`.
    pub fn tool(
        revision: McpRevision,
        tool: &str,
        check: &'static str,
        at: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self { tool: Some(tool.to_owned()), ..Self::revision(revision, check, at, message) }
    }

    /// The same finding graded a warning: nothing fails, nothing is lost.
    #[must_use]
    pub fn warning(self) -> Self {
        Self { severity: Severity::Warning, ..self }
    }

    /// The same finding, a warning when its official-schema `violation` is one clients read
    /// past (a `uri` member that is not a URI).
    #[must_use]
    pub(crate) fn weighed(self, violation: &crate::wire::WireViolation) -> Self {
        if crate::wire::official_read_as_text(violation) { self.warning() } else { self }
    }
}

/// What to audit and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server.
    pub endpoint: Endpoint,
    /// The longest wait for one answer.
    pub timeout: Duration,
    /// Cases from `--cases`; `None` to generate them from the input schemas.
    pub cases: Option<Vec<FileCase>>,
    /// Call tools not annotated `readOnlyHint: true` with generated cases too.
    pub allow_writes: bool,
    /// The host profiles to check results for (besides the generic client).
    pub hosts: Vec<HostProfile>,
}

/// Why the audit could not run at all (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The server could not be reached.
    #[error("{0}")]
    Transport(#[from] TransportError),
    /// The server speaks none of the revisions.
    #[error("the server speaks no MCP revision toolwire knows: {0}")]
    NothingOffered(String),
}

/// Progress of the calls, for a progress bar.
pub trait Progress {
    /// `total` more steps are planned.
    fn planned(&self, total: u64);
    /// One step done; `what` names it.
    fn step(&self, what: &str);
}

/// Host profiles that render alike, audited through one connection.
struct HostGroup {
    /// The `clientInfo.name` the connection presents.
    client_name: String,
    /// The profile whose policy the group shares.
    profile: HostProfile,
    /// The names of the profiles in the group.
    names: Vec<String>,
    /// The profiles in the group (a sample views each on its own: names and strictness differ).
    members: Vec<HostProfile>,
}

/// The name the generic connection presents.
const CLIENT_NAME: &str = "toolwire-check";

/// The host profiles of `profiles` other than the generic policy, grouped by policy.
fn host_groups(profiles: &[HostProfile]) -> Vec<HostGroup> {
    let mut groups: Vec<HostGroup> = Vec::new();
    for profile in profiles.iter().filter(|p| !p.is_generic_policy()) {
        // A host that reads a tool's size opt-in is listed tools with it (toolwire publishes
        // it to Claude Code alone), so it is not grouped with one that does not.
        let same = |g: &&mut HostGroup| {
            g.profile.reads == profile.reads
                && g.profile.max_result_bytes == profile.max_result_bytes
                && g.profile.reads_links == profile.reads_links
                && g.profile.reads_size_opt_in() == profile.reads_size_opt_in()
        };
        if let Some(group) = groups.iter_mut().find(same) {
            group.names.push(profile.name.clone());
            group.members.push(profile.clone());
            continue;
        }
        let client_name = profile.client_names.first().unwrap_or(&profile.name).clone();
        groups.push(HostGroup {
            client_name,
            profile: profile.clone(),
            names: vec![profile.name.clone()],
            members: vec![profile.clone()],
        });
    }
    groups
}

/// The built-in host profiles.
pub fn builtin_hosts() -> Vec<HostProfile> {
    HostProfiles::builtin().iter().cloned().collect()
}

/// Runs the audit: first every revision is offered and listed (which revisions the server
/// speaks, the definitions, which tools are read-only at any revision — annotations arrive in
/// 2025-03-26), then each offered revision is connected once per host group and called.
/// Connections never overlap.
pub async fn run(options: &Options, progress: &dyn Progress) -> Result<Report, CheckError> {
    audit(options, progress, false).await
}

/// [`run`], keeping in [`Report::samples`] per tool and revision the first call and what each
/// host profile's model reads of its answer (`toolwire check --format html`).
pub async fn run_with_samples(
    options: &Options,
    progress: &dyn Progress,
) -> Result<Report, CheckError> {
    audit(options, progress, true).await
}

/// The audit behind [`run`] and [`run_with_samples`].
async fn audit(
    options: &Options,
    progress: &dyn Progress,
    keep_samples: bool,
) -> Result<Report, CheckError> {
    let mut report = Report::new(options.endpoint.describe());
    let mut listed: Vec<(McpRevision, Vec<ToolDef>)> = Vec::new();
    for revision in McpRevision::ALL {
        match Session::open(&options.endpoint, revision, options.timeout, CLIENT_NAME).await {
            Ok(Opened::Offered(mut session)) => {
                let tools = list(&mut session, &[], &mut report).await;
                session.close().await;
                report.revisions.push(RevisionStatus::offered(revision));
                listed.push((revision, tools?));
            }
            Ok(Opened::NotOffered(reason)) => {
                report.revisions.push(RevisionStatus::not_offered(revision, reason));
            }
            // Without the right credentials no revision can be audited.
            Err(err @ TransportError::Status { status: 401 | 403, .. }) => return Err(err.into()),
            // A server that ends or answers garbage at a handshake does not speak that revision.
            Err(err @ (TransportError::Closed { .. } | TransportError::Status { .. })) => {
                report.revisions.push(RevisionStatus::not_offered(revision, err.to_string()));
            }
            Err(err) => return Err(err.into()),
        }
    }
    if listed.is_empty() {
        let reasons: Vec<String> = report
            .revisions
            .iter()
            .map(|r| format!("{}: {}", r.revision, r.note.as_deref().unwrap_or("")))
            .collect();
        return Err(CheckError::NothingOffered(reasons.join("; ")));
    }
    let read_only: BTreeSet<String> = listed
        .iter()
        .flat_map(|(_, tools)| tools.iter())
        .filter(|tool| tool.read_only())
        .map(|tool| tool.name.clone())
        .collect();
    let allowed = |tool: &ToolDef| options.allow_writes || read_only.contains(&tool.name);
    let plan = |tools: &[ToolDef]| -> Vec<Vec<Case>> {
        tools
            .iter()
            .map(|tool| cases::for_tool(tool, options.cases.as_deref(), allowed(tool)))
            .collect()
    };
    let groups = host_groups(&options.hosts);
    let mut total = 0;
    for (revision, tools) in &listed {
        let planned = plan(tools);
        for (tool, cases) in tools.iter().zip(&planned) {
            let skipped = cases::skipped(options.cases.as_deref(), allowed(tool), cases);
            report.note_tool(*revision, &tool.name, cases, skipped);
            total += cases.len() as u64;
        }
    }
    progress.planned(total * (1 + groups.len() as u64));

    let connections: Vec<Option<&HostGroup>> =
        std::iter::once(None).chain(groups.iter().map(Some)).collect();
    // The generic connection's answers stand for the profiles that render like it.
    let generic: Vec<HostProfile> =
        options.hosts.iter().filter(|p| p.is_generic_policy()).cloned().collect();
    for (revision, _) in &listed {
        for group in &connections {
            let hosts = group.map(|g| g.names.clone()).unwrap_or_default();
            let client_name = group.map_or(CLIENT_NAME, |g| g.client_name.as_str());
            let opened =
                Session::open(&options.endpoint, *revision, options.timeout, client_name).await;
            let mut session = match opened {
                Ok(Opened::Offered(session)) => session,
                Ok(Opened::NotOffered(reason)) => {
                    report.push(Finding {
                        hosts,
                        ..Finding::revision(
                            *revision,
                            "connection",
                            "initialize",
                            format!("connecting as `{client_name}`: {reason}"),
                        )
                    });
                    continue;
                }
                Err(err) => {
                    report.push(Finding {
                        hosts,
                        ..Finding::revision(
                            *revision,
                            "connection",
                            "initialize",
                            format!("connecting as `{client_name}`: {err}"),
                        )
                    });
                    continue;
                }
            };
            match list(&mut session, &hosts, &mut report).await {
                Ok(tools) => {
                    let planned = plan(&tools);
                    let members = group.map_or(generic.as_slice(), |g| g.members.as_slice());
                    let calls = Calls {
                        tools: &tools,
                        planned: &planned,
                        group: *group,
                        samples: keep_samples.then_some(members),
                    };
                    audit_calls(&mut session, &calls, &mut report, progress).await;
                }
                Err(err) => report.push(Finding {
                    hosts,
                    ..Finding::revision(*revision, "connection", "tools/list", err.to_string())
                }),
            }
            session.close().await;
        }
    }
    let names: Vec<String> = report.tools.iter().map(|row| row.name.clone()).collect();
    samples::order(&mut report.samples, &names, &options.hosts);
    report.finish();
    Ok(report)
}

/// Lists the tools of `session` and checks their definitions; what it finds is seen by the
/// connection of the host profiles `hosts` (none: the generic one).
async fn list(
    session: &mut Session,
    hosts: &[String],
    report: &mut Report,
) -> Result<Vec<ToolDef>, TransportError> {
    let pages = session.list_tools().await?;
    let (tools, findings) = definitions::check(session.revision, &pages);
    for finding in std::mem::take(&mut session.findings).into_iter().chain(findings) {
        report.push(Finding { hosts: hosts.to_vec(), ..finding });
    }
    Ok(tools)
}

/// The calls one session makes.
struct Calls<'a> {
    /// The tools as the session listed them.
    tools: &'a [ToolDef],
    /// The cases of each tool.
    planned: &'a [Vec<Case>],
    /// The host profiles the connection presents, `None` for the generic client.
    group: Option<&'a HostGroup>,
    /// When samples are kept: the profiles whose models this connection's answers show.
    samples: Option<&'a [HostProfile]>,
}

/// Makes the planned calls of one session and checks every answer.
async fn audit_calls(
    session: &mut Session,
    calls: &Calls<'_>,
    report: &mut Report,
    progress: &dyn Progress,
) {
    let revision = session.revision;
    let group = calls.group;
    let hosts: Vec<String> = group.map(|g| g.names.clone()).unwrap_or_default();
    for (tool, cases) in calls.tools.iter().zip(calls.planned) {
        for (index, case) in cases.iter().enumerate() {
            progress.step(&format!("{} {} {}", revision.as_str(), tool.name, case.label));
            let answer = session.call(&tool.name, case.arguments.as_ref()).await;
            // The first call of a tool is its sample.
            if let Some(members) = calls.samples
                && index == 0
            {
                samples::record(&mut report.samples, revision, tool, case, &answer, members);
            }
            let context =
                results::Context { revision, tool, case, host: group.map(|g| &g.profile) };
            let findings = match &answer {
                Ok(answer) => results::check(&context, answer),
                Err(err) => vec![Finding::tool(
                    revision,
                    &tool.name,
                    "call",
                    format!("tools/call {}", case.label),
                    format!("no answer: {err}"),
                )],
            };
            for finding in findings {
                report.push(Finding { hosts: hosts.clone(), ..finding });
            }
            report.calls += 1;
        }
    }
    for finding in session.stray_findings() {
        report.push(finding);
    }
}
