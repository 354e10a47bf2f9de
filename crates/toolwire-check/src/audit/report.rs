//! The audit's outcome: findings merged across connections, a table tool × revision with ✓/✗,
//! the reasons, a summary line, and the same as JSON for CI.

use std::fmt::Write as _;

use serde::Serialize;
use toolwire_core::McpRevision;

use super::Finding;
use super::cases::Case;

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
    /// How many findings concern it.
    pub violations: usize,
}

/// One tool, at the revisions that list it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRow {
    /// The tool name.
    pub name: String,
    /// One cell per revision that lists it.
    pub revisions: Vec<Cell>,
}

/// Counts for the summary line.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Findings in all.
    pub violations: usize,
    /// Tools listed at any revision.
    pub tools: usize,
    /// Revisions the server speaks.
    pub revisions: usize,
    /// Tool × revision cells with a finding.
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
    /// `tools/call` requests made.
    pub calls: u64,
    /// The counts.
    pub summary: Summary,
}

impl Report {
    /// An empty report for `server`.
    pub fn new(server: String) -> Self {
        Self {
            server,
            revisions: Vec::new(),
            tools: Vec::new(),
            findings: Vec::new(),
            calls: 0,
            summary: Summary::default(),
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
            violations: 0,
        };
        match self.tools.iter_mut().find(|row| row.name == tool) {
            Some(row) => row.revisions.push(cell),
            None => self.tools.push(ToolRow { name: tool.to_owned(), revisions: vec![cell] }),
        }
    }

    /// Orders the findings (server-wide first, then tool by tool in listing order, each by
    /// revision) and counts.
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
        for row in &mut self.tools {
            for cell in &mut row.revisions {
                cell.violations = self
                    .findings
                    .iter()
                    .filter(|f| f.tool.as_deref() == Some(&row.name) && f.revision == cell.revision)
                    .count();
            }
        }
        let cells = self.tools.iter().flat_map(|row| &row.revisions);
        self.summary = Summary {
            violations: self.findings.len(),
            tools: self.tools.len(),
            revisions: self.revisions.iter().filter(|r| r.offered).count(),
            failing_cells: cells.clone().filter(|c| c.violations > 0).count(),
            cells: cells.count(),
            calls: self.calls,
        };
    }

    /// Whether anything was found.
    pub fn has_violations(&self) -> bool {
        !self.findings.is_empty()
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
                    Some(cell) if cell.violations > 0 => format!("✗ {}", cell.violations),
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
        if !self.findings.is_empty() {
            out.push('\n');
            for finding in &self.findings {
                let subject = finding.tool.as_deref().unwrap_or("(server)");
                let _ = write!(
                    out,
                    "✗ {subject} @ {} [{}] {}: {}",
                    finding.revision, finding.check, finding.at, finding.message
                );
                if !finding.hosts.is_empty() {
                    let _ = write!(out, " (hosts: {})", finding.hosts.join(", "));
                }
                out.push('\n');
            }
        }
        let s = &self.summary;
        let _ = writeln!(
            out,
            "\n{}: {} tool{} × {} revision{}, {} of {} cells failing, {} call{}",
            match s.violations {
                0 => "no violations".to_owned(),
                1 => "1 violation".to_owned(),
                n => format!("{n} violations"),
            },
            s.tools,
            if s.tools == 1 { "" } else { "s" },
            s.revisions,
            if s.revisions == 1 { "" } else { "s" },
            s.failing_cells,
            s.cells,
            s.calls,
            if s.calls == 1 { "" } else { "s" },
        );
        out
    }
}
