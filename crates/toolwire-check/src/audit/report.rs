//! The audit's outcome: findings merged across connections and grouped by kind (one line per
//! kind, with the tools, revisions and hosts it covers), a table tool × revision with ✓/✗/⚠,
//! the reasons, a summary line, and the same as JSON for CI.

use std::fmt::Write as _;

use serde::Serialize;
use toolwire_core::McpRevision;

use super::cases::Case;
use super::samples::Sample;
use super::{Finding, Severity};

/// Whether the server speaks one revision.
#[derive(Debug, Clone, Serialize)]
pub struct RevisionStatus {
    /// The revision.
    pub revision: &'static str,
    /// The server speaks it.
    pub offered: bool,
    /// Why not, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl RevisionStatus {
    /// A revision the server speaks.
    pub fn offered(revision: McpRevision) -> Self {
        Self { revision: revision.as_str(), offered: true, note: None }
    }

    /// A revision it does not speak, and why.
    pub fn not_offered(revision: McpRevision, note: String) -> Self {
        Self { revision: revision.as_str(), offered: false, note: Some(note) }
    }
}

/// One tool at one revision.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The revision.
    pub revision: &'static str,
    /// The cases called (by the generic client).
    pub called: Vec<String>,
    /// Why it was not called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// How many errors concern it.
    pub errors: usize,
    /// How many warnings concern it.
    pub warnings: usize,
}

/// One tool, at the revisions that list it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRow {
    /// The tool name.
    pub name: String,
    /// One cell per revision that lists it.
    pub revisions: Vec<Cell>,
}

/// Findings of one kind: the same severity, check, message and place, over the tools, revisions
/// and hosts that showed it.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// What it breaks.
    pub severity: Severity,
    /// The check that found it: `official-schema`, `strict-client`, `wire-contract`, …
    pub kind: &'static str,
    /// What is wrong; where a finding names its revision, the group names all of its revisions.
    pub message: String,
    /// Where: the request and a JSON pointer, its indexes as `*` (`/tools/*/outputSchema`).
    pub at: String,
    /// The tools it concerns; empty when it concerns the server.
    pub tools: Vec<String>,
    /// The revisions it was seen at.
    pub revisions: Vec<&'static str>,
    /// The host profiles whose connections showed it; empty when every connection did.
    pub hosts: Vec<String>,
    /// The findings it stands for.
    pub count: usize,
}

/// Stands for the finding's revision in a message while findings are grouped.
const REVISION_SLOT: &str = "\u{0}";

/// Severity, check, message and place of a group, its revisions as [`REVISION_SLOT`].
type GroupKey = (Severity, &'static str, String, String);

/// The grouping key of `finding`: its severity, check, message and place, with its revision
/// and the indexes of its place left out.
fn group_key(finding: &Finding) -> GroupKey {
    (
        finding.severity,
        finding.check,
        finding.message.replace(finding.revision, REVISION_SLOT),
        any_index(&finding.at).replace(finding.revision, REVISION_SLOT),
    )
}

/// `at` with every index of its JSON pointer as `*` (`tools/list /tools/*/outputSchema`,
/// `tools/call minimal /content/*/type`): the group names its tools, one tool sits at different
/// places in different revisions' listings, and the same block repeated is one kind of finding.
fn any_index(at: &str) -> String {
    at.split('/')
        .map(|segment| {
            if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
                "*"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The groups of `findings` (already in report order): errors first, each in the order its
/// first finding appears.
fn group(findings: &[Finding]) -> Vec<Group> {
    let mut keyed: Vec<(GroupKey, Group)> = Vec::new();
    for finding in findings {
        let key = group_key(finding);
        let index = match keyed.iter().position(|(k, _)| *k == key) {
            Some(index) => index,
            None => {
                let group = Group {
                    severity: finding.severity,
                    kind: finding.check,
                    message: String::new(),
                    at: String::new(),
                    tools: Vec::new(),
                    revisions: Vec::new(),
                    hosts: finding.hosts.clone(),
                    count: 0,
                };
                keyed.push((key, group));
                keyed.len() - 1
            }
        };
        let Some((_, group)) = keyed.get_mut(index) else {
            continue;
        };
        if let Some(tool) = &finding.tool
            && !group.tools.contains(tool)
        {
            group.tools.push(tool.clone());
        }
        if !group.revisions.contains(&finding.revision) {
            group.revisions.push(finding.revision);
        }
        // No hosts: every connection showed it, so the group holds for every host.
        if finding.hosts.is_empty() {
            group.hosts.clear();
        } else if !group.hosts.is_empty() {
            for host in &finding.hosts {
                if !group.hosts.contains(host) {
                    group.hosts.push(host.clone());
                }
            }
        }
        group.count += 1;
    }
    let mut groups: Vec<Group> = keyed
        .into_iter()
        .map(|((_, _, message, at), mut group)| {
            group.revisions.sort_unstable();
            let revisions = group.revisions.join(", ");
            group.message = message.replace(REVISION_SLOT, &revisions);
            group.at = at.replace(REVISION_SLOT, &revisions);
            group
        })
        .collect();
    groups.sort_by_key(|g| g.severity);
    groups
}

/// Counts for the summary line.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Findings graded an error.
    pub errors: usize,
    /// Findings graded a warning.
    pub warnings: usize,
    /// Lines of grouped findings.
    pub groups: usize,
    /// Tools listed at any revision.
    pub tools: usize,
    /// Revisions the server speaks.
    pub revisions: usize,
    /// Tool × revision cells with an error.
    pub failing_cells: usize,
    /// Cells in all.
    pub cells: usize,
    /// `tools/call` requests made.
    pub calls: u64,
}

/// The whole audit.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The server, as given.
    pub server: String,
    /// Each revision, offered or not.
    pub revisions: Vec<RevisionStatus>,
    /// Each listed tool.
    pub tools: Vec<ToolRow>,
    /// Every finding, tool by tool, revision by revision.
    pub findings: Vec<Finding>,
    /// The findings grouped by kind, errors first.
    pub groups: Vec<Group>,
    /// `tools/call` requests made.
    pub calls: u64,
    /// The counts.
    pub summary: Summary,
    /// Per tool and revision the first call and what each host's model reads of it; kept only
    /// when asked for (`--format html`), so the JSON report is unchanged otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<Sample>,
}

impl Report {
    /// An empty report for `server`.
    pub fn new(server: String) -> Self {
        Self {
            server,
            revisions: Vec::new(),
            tools: Vec::new(),
            findings: Vec::new(),
            groups: Vec::new(),
            calls: 0,
            summary: Summary::default(),
            samples: Vec::new(),
        }
    }

    /// Adds a finding; one already seen on another connection only gains that connection's
    /// hosts (none: seen by the generic client, so it holds for every host).
    pub fn push(&mut self, finding: Finding) {
        let same = |f: &&mut Finding| {
            f.revision == finding.revision
                && f.tool == finding.tool
                && f.check == finding.check
                && f.at == finding.at
                && f.message == finding.message
        };
        match self.findings.iter_mut().find(same) {
            Some(existing) if existing.hosts.is_empty() => {}
            Some(existing) if finding.hosts.is_empty() => existing.hosts.clear(),
            Some(existing) => {
                for host in finding.hosts {
                    if !existing.hosts.contains(&host) {
                        existing.hosts.push(host);
                    }
                }
            }
            None => self.findings.push(finding),
        }
    }

    /// Records that the generic client saw `tool` at `revision` and what it called.
    pub fn note_tool(
        &mut self,
        revision: McpRevision,
        tool: &str,
        cases: &[Case],
        skipped: Option<String>,
    ) {
        let cell = Cell {
            revision: revision.as_str(),
            called: cases.iter().map(|c| c.label.clone()).collect(),
            skipped,
            errors: 0,
            warnings: 0,
        };
        match self.tools.iter_mut().find(|row| row.name == tool) {
            Some(row) => row.revisions.push(cell),
            None => self.tools.push(ToolRow { name: tool.to_owned(), revisions: vec![cell] }),
        }
    }

    /// Orders the findings (server-wide first, then tool by tool in listing order, each by
    /// revision), groups and counts them.
    pub fn finish(&mut self) {
        let order = |f: &Finding| {
            let tool = f.tool.as_ref().map_or(0, |name| {
                self.tools.iter().position(|row| &row.name == name).map_or(usize::MAX, |i| i + 1)
            });
            (tool, f.revision)
        };
        let mut keyed: Vec<((usize, &str), Finding)> =
            self.findings.drain(..).map(|f| (order(&f), f)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        self.findings = keyed.into_iter().map(|(_, f)| f).collect();
        self.groups = group(&self.findings);
        let count = |severity: Severity, tool: Option<&str>, revision: Option<&str>| {
            self.findings
                .iter()
                .filter(|f| f.severity == severity)
                .filter(|f| tool.is_none_or(|t| f.tool.as_deref() == Some(t)))
                .filter(|f| revision.is_none_or(|r| f.revision == r))
                .count()
        };
        let mut tools = std::mem::take(&mut self.tools);
        for row in &mut tools {
            for cell in &mut row.revisions {
                cell.errors = count(Severity::Error, Some(&row.name), Some(cell.revision));
                cell.warnings = count(Severity::Warning, Some(&row.name), Some(cell.revision));
            }
        }
        self.tools = tools;
        let cells = self.tools.iter().flat_map(|row| &row.revisions);
        self.summary = Summary {
            errors: count(Severity::Error, None, None),
            warnings: count(Severity::Warning, None, None),
            groups: self.groups.len(),
            tools: self.tools.len(),
            revisions: self.revisions.iter().filter(|r| r.offered).count(),
            failing_cells: cells.clone().filter(|c| c.errors > 0).count(),
            cells: cells.count(),
            calls: self.calls,
        };
    }

    /// Whether a finding is an error: a client fails or a model loses a fact.
    pub fn has_errors(&self) -> bool {
        self.summary.errors > 0
    }

    /// Whether a finding is a warning.
    pub fn has_warnings(&self) -> bool {
        self.summary.warnings > 0
    }

    /// The table, the reasons and the summary line, as printed on a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "toolwire check {}", self.server);
        for status in self.revisions.iter().filter(|r| !r.offered) {
            let _ = writeln!(
                out,
                "  {} not offered: {}",
                status.revision,
                status.note.as_deref().unwrap_or("")
            );
        }
        let offered: Vec<&str> =
            self.revisions.iter().filter(|r| r.offered).map(|r| r.revision).collect();
        let width = self.tools.iter().map(|row| row.name.chars().count()).max().unwrap_or(0).max(4);
        let _ = write!(out, "\n{:width$}", "tool");
        for revision in &offered {
            let _ = write!(out, "  {revision:<10}");
        }
        out.push('\n');
        for row in &self.tools {
            let _ = write!(out, "{:width$}", row.name);
            for revision in &offered {
                let mark = match row.revisions.iter().find(|c| c.revision == *revision) {
                    None => "·".to_owned(),
                    Some(cell) if cell.errors > 0 => format!("✗ {}", cell.errors),
                    Some(cell) if cell.warnings > 0 => format!("⚠ {}", cell.warnings),
                    Some(cell) if cell.skipped.is_some() => "✓ (listed)".to_owned(),
                    Some(_) => "✓".to_owned(),
                };
                let _ = write!(out, "  {mark:<10}");
            }
            let trimmed = out.trim_end().len();
            out.truncate(trimmed);
            out.push('\n');
        }
        let skipped: Vec<String> = self
            .tools
            .iter()
            .filter_map(|row| {
                row.revisions
                    .iter()
                    .find_map(|c| c.skipped.as_ref())
                    .map(|why| format!("{}: {why}", row.name))
            })
            .collect();
        if !skipped.is_empty() {
            out.push('\n');
            for line in skipped {
                let _ = writeln!(out, "  {line}");
            }
        }
        if !self.groups.is_empty() {
            out.push('\n');
            for group in &self.groups {
                let mark = match group.severity {
                    Severity::Error => "✗",
                    Severity::Warning => "⚠",
                };
                let subject = if group.tools.is_empty() {
                    "server".to_owned()
                } else {
                    format!("tools: {}", group.tools.join(", "))
                };
                let _ = write!(
                    out,
                    "{mark} {} [{}] {}: {} ({subject}; revisions: {}",
                    group.severity.as_str(),
                    group.kind,
                    group.at,
                    group.message,
                    group.revisions.join(", ")
                );
                if !group.hosts.is_empty() {
                    let _ = write!(out, "; hosts: {}", group.hosts.join(", "));
                }
                out.push_str(")\n");
            }
        }
        let s = &self.summary;
        let found = match (s.errors, s.warnings) {
            (0, 0) => "nothing found".to_owned(),
            (errors, warnings) => {
                format!("{}, {}", plural(errors, "error"), plural(warnings, "warning"))
            }
        };
        let _ = writeln!(
            out,
            "\n{found}: {} × {}, {} of {} cells failing, {} call{}",
            plural(s.tools, "tool"),
            plural(s.revisions, "revision"),
            s.failing_cells,
            s.cells,
            s.calls,
            if s.calls == 1 { "" } else { "s" },
        );
        out
    }
}

/// `count noun`, with an `s` unless there is one.
fn plural(count: usize, noun: &str) -> String {
    if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn finding(revision: McpRevision, tool: &str, at: &str, hosts: &[&str]) -> Finding {
        let message = format!("`x` does not exist in {}", revision.as_str());
        Finding {
            hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
            ..Finding::tool(revision, tool, "wire-contract", at, message).warning()
        }
    }

    #[test]
    fn findings_of_one_kind_are_one_group_over_tools_revisions_and_hosts() {
        let early = McpRevision::V2024_11_05;
        let later = McpRevision::V2025_03_26;
        let mut report = Report::new("s".to_owned());
        for tool in ["a", "b"] {
            report.note_tool(early, tool, &[], None);
        }
        report.push(finding(early, "a", "tools/list /tools/0/x", &["vscode"]));
        report.push(finding(later, "b", "tools/list /tools/1/x", &["codex"]));
        report.push(finding(later, "a", "tools/list /tools/0/x", &["codex"]));
        report.push(Finding::tool(later, "b", "call", "tools/call minimal", "no answer"));
        report.finish();
        assert_eq!(
            serde_json::to_value(&report.groups).ok(),
            Some(json!([
                {"severity": "error", "kind": "call", "message": "no answer",
                 "at": "tools/call minimal", "tools": ["b"], "revisions": ["2025-03-26"],
                 "hosts": [], "count": 1},
                {"severity": "warning", "kind": "wire-contract",
                 "message": "`x` does not exist in 2024-11-05, 2025-03-26",
                 "at": "tools/list /tools/*/x", "tools": ["a", "b"],
                 "revisions": ["2024-11-05", "2025-03-26"], "hosts": ["vscode", "codex"], "count": 3}
            ]))
        );
        assert_eq!(
            (report.summary.errors, report.summary.warnings, report.summary.groups),
            (1, 3, 2)
        );
        // A finding every connection showed holds for every host: the group names none.
        report.push(finding(early, "b", "tools/list /tools/1/x", &[]));
        report.finish();
        assert_eq!(report.groups[1].hosts, Vec::<String>::new());
        assert_eq!(report.groups[1].count, 4);
    }
}
