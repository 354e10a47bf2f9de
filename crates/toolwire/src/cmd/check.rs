//! `toolwire check <URL>` / `toolwire check -- <command> <args…>`: audits an MCP server at every
//! revision it offers and for every host profile (DESIGN §13), prints the table (or JSON with
//! `--format json`, or one self-contained HTML page with `--format html`: per tool and revision
//! the first call's answer and what each host's model reads of it, DESIGN §18) on stdout.
//!
//! Exit 0 when nothing or only warnings were found, 1 on an error (on a warning too with
//! `--strict`), 2 for a bad flag, an unreadable cases file, or a server that cannot be reached or
//! speaks no known revision.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use super::{Failure, print_line};
use toolwire_check::audit::report::Report;
use toolwire_check::audit::samples::{self, Sample};
use toolwire_check::audit::transport::Endpoint;
use toolwire_check::audit::{self as check, Options, Progress, cases};

/// The arguments of `toolwire check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The server's Streamable HTTP endpoint, e.g. `http://127.0.0.1:8080/mcp`.
    pub url: Option<String>,
    /// A server to start and speak to over stdio, after `--`: `toolwire check -- python server.py`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    /// A bearer token sent as `Authorization: Bearer <TOKEN>` (HTTP).
    #[arg(long, env = "TOOLWIRE_CHECK_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// An extra HTTP header, `Name: value`; repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// A JSON file of cases (`[{"tool", "arguments", "expect": "success"|"error"|"any"}]`):
    /// they replace the cases generated from the input schema of each tool they name.
    #[arg(long, value_name = "FILE")]
    pub cases: Option<PathBuf>,
    /// Also call tools not annotated `readOnlyHint: true` with generated cases.
    #[arg(long)]
    pub allow_writes: bool,
    /// Check results for these host profiles only (repeatable); `none` for no host profiles.
    #[arg(long = "host", value_name = "NAME")]
    pub hosts: Vec<String>,
    /// `text` (a table), `json`, or `html` (one self-contained page: each tool's first call
    /// per revision and what each host's model reads of it).
    #[arg(long, default_value = "text", value_parser = formats())]
    pub format: Format,
    /// Seconds to wait for one answer.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub timeout: u64,
    /// Exit 1 on warnings too, not only on errors.
    #[arg(long)]
    pub strict: bool,
}

/// How the report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// A table.
    Text,
    /// The report as JSON.
    Json,
    /// One self-contained HTML page of the calls and what each host's model reads.
    Html,
}

toolwire_core::named!(Format, "format", { Text => "text", Json => "json", Html => "html" });

/// `--format`.
fn formats() -> super::names::ByName<Format> {
    super::names::ByName::new(Format::ALL.iter().map(|f| f.as_str()))
}

/// Runs the command.
pub(crate) fn run(args: CheckArgs) -> Result<(), Failure> {
    let format = args.format;
    let strict = args.strict;
    let options = options(args)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| Failure::input(format!("cannot start the runtime: {err}")))?;
    let bar = Bar::new();
    // Only the HTML page shows the calls: the other reports stay as they were.
    let report = if format == Format::Html {
        runtime.block_on(check::run_with_samples(&options, &bar))
    } else {
        runtime.block_on(check::run(&options, &bar))
    };
    bar.done();
    let report = report.map_err(|err| Failure::input(err.to_string()))?;
    let cannot_write =
        |err: serde_json::Error| Failure::check(format!("cannot write the report: {err}"));
    match format {
        Format::Json => print_line(&serde_json::to_string_pretty(&report).map_err(cannot_write)?)?,
        Format::Text => print_line(report.to_text().trim_end())?,
        Format::Html => {
            let data = page_data(&report).map_err(cannot_write)?;
            print_line(&toolwire_gateway::console::offline_html(&data))?;
        }
    }
    let s = &report.summary;
    let plural = |count: usize, noun: &str| match count {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    };
    if report.has_errors() {
        return Err(Failure::check(plural(s.errors, "error")));
    }
    if strict && report.has_warnings() {
        return Err(Failure::check(format!("{} (--strict)", plural(s.warnings, "warning"))));
    }
    Ok(())
}

/// The offline console's data (`{"title", "previews"}`): one preview per sample, shaped like
/// the console's call preview, with the findings about that tool at that revision.
fn page_data(report: &Report) -> Result<Value, serde_json::Error> {
    let previews: Vec<Value> =
        report.samples.iter().map(|sample| preview(report, sample)).collect::<Result<_, _>>()?;
    Ok(json!({"title": format!("toolwire check {}", report.server), "previews": previews}))
}

/// One sample as the console's call preview: the answer as the revision's wire, the host views.
fn preview(report: &Report, sample: &Sample) -> Result<Value, serde_json::Error> {
    let revision = sample.revision;
    // A JSON-RPC error (or no answer) is shown as what came instead of a result.
    let wire = match (&sample.result, &sample.error) {
        (Some(result), _) => result.clone(),
        (None, Some(error)) => json!({"error": error}),
        (None, None) => Value::Null,
    };
    let findings: Vec<Value> = report
        .findings
        .iter()
        .filter(|f| f.revision == revision && f.tool.as_deref() == Some(sample.tool.as_str()))
        .map(|f| {
            json!({"severity": f.severity, "kind": f.check, "message": f.message, "at": f.at,
                   "hosts": f.hosts})
        })
        .collect();
    Ok(json!({
        "label": format!("{} · MCP {revision}", sample.tool),
        "tool": sample.tool,
        "case": sample.case,
        "arguments": sample.arguments,
        "outcome": if sample.failed() { "error" } else { "success" },
        "hostRevision": revision,
        "wires": [{
            "id": format!("mcp-{revision}"),
            "label": format!("MCP {revision}"),
            "bytes": wire.to_string().len(),
            "limit": Value::Null,
            "offloaded": samples::offloaded(&wire),
            "isError": sample.failed(),
            "warnings": [],
            "json": wire,
        }],
        "hosts": serde_json::to_value(&sample.hosts)?,
        "findings": findings,
    }))
}

fn options(args: CheckArgs) -> Result<Options, Failure> {
    let endpoint = match (args.url, args.command.split_first()) {
        (Some(_), Some(_)) => {
            return Err(Failure::input("give a URL or a command after `--`, not both"));
        }
        (None, None) => {
            return Err(Failure::input("give the server's URL or a command after `--`"));
        }
        (Some(url), None) => {
            let mut headers = Vec::new();
            for header in &args.headers {
                let Some((name, value)) = header.split_once(':') else {
                    return Err(Failure::input(format!(
                        "--header `{header}`: expected `Name: value`"
                    )));
                };
                let name = name.trim();
                if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
                    return Err(Failure::input(format!(
                        "--header `{header}`: `{name}` is not a header name"
                    )));
                }
                headers.push((name.to_owned(), value.trim().to_owned()));
            }
            if let Some(token) = &args.token {
                headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
            }
            Endpoint::Http { url, headers }
        }
        (None, Some((program, rest))) => {
            if args.token.is_some() || !args.headers.is_empty() {
                return Err(Failure::input(
                    "--token and --header are for HTTP servers, not commands",
                ));
            }
            Endpoint::Command { program: program.clone(), args: rest.to_vec() }
        }
    };
    let cases = match &args.cases {
        Some(path) => {
            let shown = path.display();
            let text = super::read_named_file("--cases", path)?;
            Some(
                cases::parse_file(&text)
                    .map_err(|err| Failure::input(format!("--cases {shown}: {err}")))?,
            )
        }
        None => None,
    };
    let builtin = check::builtin_hosts();
    let hosts = if args.hosts.is_empty() {
        builtin
    } else if args.hosts == ["none"] {
        Vec::new()
    } else {
        let mut chosen = Vec::new();
        for name in &args.hosts {
            let Some(profile) = builtin.iter().find(|p| &p.name == name) else {
                let known: Vec<&str> = builtin.iter().map(|p| p.name.as_str()).collect();
                return Err(Failure::input(format!(
                    "--host: unknown host `{name}`; known: {}",
                    known.join(", ")
                )));
            };
            chosen.push(profile.clone());
        }
        chosen
    };
    Ok(Options {
        endpoint,
        timeout: Duration::from_secs(args.timeout.max(1)),
        cases,
        allow_writes: args.allow_writes,
        hosts,
    })
}

/// A progress bar on standard error, only when it is a terminal.
struct Bar(Option<ProgressBar>);

impl Bar {
    fn new() -> Self {
        if !std::io::stderr().is_terminal() {
            return Self(None);
        }
        let bar = ProgressBar::new(0);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} calls  {msg}") {
            bar.set_style(style);
        }
        Self(Some(bar))
    }

    fn done(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn planned(&self, total: u64) {
        if let Some(bar) = &self.0 {
            bar.inc_length(total);
        }
    }

    fn step(&self, what: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(what.to_owned());
            bar.inc(1);
        }
    }
}
