//! `toolwire render`: stdin (v1, legacy envelope, anything) → the rendered result for one
//! target: an MCP `CallToolResult`, the legacy envelope text, or an A2A `Task`, as compact JSON
//! plus one newline; with `--html`, the console's view of it (every target, and what each host
//! profile's model reads) as one self-contained HTML file.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;
use toolwire_core::host::HostProfiles;
use toolwire_core::preview::{PreviewError, Previewer};
use toolwire_core::{
    MapperConfig, McpRevision, NeedsOffload, OutputMapper, RenderContext, RenderError, Rendered,
    ToolResult,
};
use toolwire_core::{Phase, Shape, Target, Timestamp, ToolOutput, parse_any};

use super::{Failure, InputArgs, print_line, read_stdin};

/// The flags of `toolwire render`.
#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// legacy, mcp-<YYYY-MM-DD> (an unknown date maps to the newest revision not later than it),
    /// a2a-0.3 or a2a-1.0. With `--html`: an MCP revision sets the one the host views are
    /// rendered for (default the newest).
    #[arg(long, value_parser = super::names::target(), required_unless_present = "html")]
    target: Option<Target>,
    /// Write the console's view of the result as one self-contained HTML file on stdout: the
    /// wire of every target and, side by side, what each host profile's model reads.
    #[arg(long)]
    html: bool,
    /// compat (both formats; the legacy envelope stays the first text block) or spec.
    #[arg(long, env = "TOOLWIRE_PHASE", default_value = "compat", value_parser = super::names::phase())]
    phase: Phase,
    /// The size limit in bytes for the target (default 262144 for legacy and MCP, none for A2A).
    #[arg(long)]
    limit: Option<usize>,
    /// The `_meta` prefix (default dev.toolwire).
    #[arg(long)]
    prefix: Option<String>,
    /// The render time (RFC 3339): sets generatedAt and the A2A timestamps only.
    #[arg(long)]
    now: Option<String>,
    /// The tool name (the A2A artifact name).
    #[arg(long, default_value = "result")]
    tool: String,
    /// The A2A task id.
    #[arg(long, default_value = "task-1")]
    task_id: String,
    /// The A2A context id.
    #[arg(long, default_value = "context-1")]
    context_id: String,
    /// A file with the tool's output declaration (typed outputs or a JSON Schema).
    #[arg(long)]
    output_schema: Option<PathBuf>,
    /// The structured shape.
    #[arg(long, default_value = "data", value_parser = super::names::shape())]
    shape: Shape,
    /// Store a result over the limit in this data directory (redb) and render the stub with
    /// its link, instead of exiting 3.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// The principal whose link reads the stored result.
    #[arg(long, value_name = "P", default_value = "local")]
    principal: String,
    /// How long the link and the stored result live, in seconds (at most 2592000, 30 days).
    #[arg(long, value_name = "SECONDS", default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..=toolwire_gateway::MAX_LINK_TTL_SECS))]
    link_ttl: u64,
    #[command(flatten)]
    input: InputArgs,
    /// Render for this host's profile (generic, claude-code, vscode, codex, …): what its model
    /// reads, its size cap, whether it follows links.
    #[arg(long, value_name = "NAME", default_value = toolwire_core::host::GENERIC)]
    host: String,
}

/// Runs the command.
pub(crate) fn run(args: &RenderArgs) -> Result<(), Failure> {
    let (phase, shape) = (args.phase, args.shape);
    let now = match &args.now {
        Some(text) => {
            Timestamp::parse(text).map_err(|err| Failure::input(format!("--now: {err}")))?
        }
        None => current_time()?,
    };
    let mut config = MapperConfig::default();
    if let Some(prefix) = &args.prefix {
        config =
            config.with_prefix(prefix).map_err(|err| Failure::input(format!("--prefix: {err}")))?;
    }
    let limited = match args.target {
        Some(target) if !args.html => vec![target],
        _ => Target::ALL.to_vec(),
    };
    if let Some(limit) = args.limit {
        for target in limited {
            config = config.with_limit(target, Some(limit));
        }
    }
    let output = read_output(args.output_schema.as_ref(), shape)?;
    if args.html {
        return html(args, &OutputMapper::new(config), &output, now);
    }
    let Some(target) = args.target else {
        return Err(Failure::input("render: --target is required without --html"));
    };
    let hosts = HostProfiles::builtin();
    let host = hosts.by_name(&args.host).ok_or_else(|| {
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        Failure::input(format!(
            "--host: unknown host `{}`; expected {}",
            args.host,
            names.join(", ")
        ))
    })?;

    let result = read_result(args)?;

    let mapper = OutputMapper::new(config);
    let ctx = RenderContext::new(&args.tool, now)
        .output(&output)
        .task_id(&args.task_id)
        .context_id(&args.context_id)
        .host(host);
    let rendered = mapper.render(&result, target, phase, &ctx).map_err(|err| match err {
        // Over a limit too small to offload into: still "over the limit without a store".
        RenderError::LimitTooSmall { .. } => Failure { code: 3, message: format!("render: {err}") },
        other => Failure::input(format!("render: {other}")),
    })?;
    let output = match rendered {
        Rendered::Complete(output) => output,
        Rendered::NeedsOffload(needs) => match &args.data_dir {
            Some(dir) => super::read::offload_into(dir, needs, &args.principal, args.link_ttl)?.0,
            None => return Err(over_limit(&needs, target)),
        },
    };
    for warning in output.warnings() {
        eprintln!("toolwire: warning: {warning}");
    }
    print_line(output.json())
}

/// The result read from standard input.
fn read_result(args: &RenderArgs) -> Result<ToolResult, Failure> {
    let input = read_stdin(args.input.max_input)?;
    parse_any(strip_one_newline(&input)).map_err(|err| Failure::input(format!("render: {err}")))
}

/// `--html`: the preview of the result for every target and built-in host profile, as one
/// HTML file. A result over a limit is stored in `--data-dir` (its link then shows in every
/// render that needs it); without one it is the same failure as for one target.
fn html(
    args: &RenderArgs,
    mapper: &OutputMapper,
    output: &ToolOutput,
    now: Timestamp,
) -> Result<(), Failure> {
    let revision = match args.target {
        Some(Target::Mcp(revision)) => revision,
        Some(other) => {
            return Err(Failure::input(format!(
                "--target {other}: with --html, give an MCP revision (the host views' revision)"
            )));
        }
        None => McpRevision::NEWEST,
    };
    let result = read_result(args)?;
    let hosts = HostProfiles::builtin();
    let previewer =
        Previewer::new(mapper, args.phase, RenderContext::new(&args.tool, now).output(output));
    let failed = |err: PreviewError| match err {
        PreviewError::Render(RenderError::LimitTooSmall { .. }) => {
            Failure { code: 3, message: format!("render: {err}") }
        }
        other => Failure::input(format!("render: {other}")),
    };
    let preview = match previewer.preview(&result, &hosts, revision, None) {
        Err(PreviewError::NeedsOffload(needs)) => {
            let Some(dir) = &args.data_dir else {
                return Err(over_limit(&needs, Target::Mcp(revision)));
            };
            let (_, link) = super::read::offload_into(dir, *needs, &args.principal, args.link_ttl)?;
            let Some(link) = link else {
                return Err(Failure::check("render: the result could not be stored"));
            };
            previewer.preview(&result, &hosts, revision, Some(&link)).map_err(failed)?
        }
        other => other.map_err(failed)?,
    };
    let mut preview = serde_json::to_value(&preview)
        .map_err(|err| Failure::check(format!("render: cannot write the preview: {err}")))?;
    if let serde_json::Value::Object(fields) = &mut preview {
        fields.insert("label".into(), args.tool.clone().into());
    }
    let data = serde_json::json!({"title": format!("toolwire render {}", args.tool), "previews": [preview]});
    print_line(&toolwire_gateway::console::offline_html(&data))
}

/// What happens to a result over the limit without a result store (`--data-dir`): it cannot be
/// offloaded, so exit 3 with the size and the limit.
fn over_limit(needs: &NeedsOffload, target: Target) -> Failure {
    Failure {
        code: 3,
        message: format!(
            "render: result of {} bytes exceeds the limit of {} bytes for {target}; no --data-dir to store it",
            needs.size(),
            needs.limit()
        ),
    }
}

/// The declared output from `--output-schema`, or none in the given shape.
fn read_output(path: Option<&PathBuf>, shape: Shape) -> Result<ToolOutput, Failure> {
    let Some(path) = path else {
        return Ok(ToolOutput::none(shape));
    };
    let text = super::read_named_file("--output-schema", path)?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|err| {
        Failure::input(format!("--output-schema {}: not JSON: {err}", path.display()))
    })?;
    ToolOutput::from_declaration(&doc, shape)
        .map_err(|err| Failure::input(format!("--output-schema {}: {err}", path.display())))
}

/// Now, to the second.
fn current_time() -> Result<Timestamp, Failure> {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|elapsed| i64::try_from(elapsed.as_secs()).ok())
        .and_then(Timestamp::from_unix_seconds);
    seconds.ok_or_else(|| Failure::input("render: the system clock is before 1970"))
}

/// The input minus one trailing `\r\n` or `\n`.
fn strip_one_newline(input: &[u8]) -> &[u8] {
    input.strip_suffix(b"\r\n").or_else(|| input.strip_suffix(b"\n")).unwrap_or(input)
}
