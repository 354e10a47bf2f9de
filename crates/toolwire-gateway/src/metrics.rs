//! The gateway's Prometheus metrics: counters and histograms fed by the call path (through
//! [`CallObserver`]), app endpoints and the listener, written by `prometheus-client` in the
//! Prometheus text format (version 0.0.4). One [`Metrics`] per gateway: nothing is shared by the
//! process, so two gateways in one process count apart.
//!
//! The series, by the names scrapers see: `toolwire_calls_total{tool,revision,outcome}`,
//! `toolwire_call_duration_seconds{tool}` and `toolwire_result_bytes{tool}` (histograms),
//! `toolwire_offloads_total{tool}`, `toolwire_offload_bytes_total{tool}`,
//! `toolwire_store_errors_total{kind}`, `toolwire_legacy_results_total{tool}`,
//! `toolwire_app_errors_total{tool,kind}`, `toolwire_upstream_calls_total{upstream,outcome}`,
//! `toolwire_upstream_restarts_total{upstream}`, `toolwire_upstream_repairs_total{upstream}`,
//! `toolwire_tasks_total{tool,event}` (created, and how tasks ended: completed, failed,
//! cancelled, input_required, expired), and the gauges `toolwire_upstream_up{upstream}`,
//! `toolwire_tasks_running`, `toolwire_open_connections` and `toolwire_open_sessions`.
//!
//! Bucket bounds of a million and more are written as the Go and Python clients write them
//! (`le="1.048576e+06"`); the encoder this replaced wrote `le="1048576"`. Same number, and
//! Prometheus 3 reads both as one series; a query on the old spelling needs the new one.

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use toolwire_mcp::{CallObserver, CallOutcome, CallRecord, OffloadRecord, TaskRecord};
use toolwire_store::StoreError;

/// The `Content-Type` of [`Metrics::render`]'s text.
pub(crate) const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Upper bounds of the call duration histogram, in seconds.
const DURATION_BUCKETS: [f64; 12] =
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];
/// Upper bounds of the result size histogram, in bytes.
const SIZE_BUCKETS: [f64; 9] =
    [256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262_144.0, 1_048_576.0, 4_194_304.0, 16_777_216.0];

/// The label of calls to tools that do not exist (their names are not labels: unbounded).
const UNKNOWN_TOOL: &str = "(unknown)";

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: String,
    revision: &'static str,
    outcome: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AppErrorLabels {
    tool: String,
    kind: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TaskLabels {
    tool: String,
    event: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UpstreamLabel {
    upstream: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UpstreamCallLabels {
    upstream: String,
    outcome: &'static str,
}

type Histograms = Family<ToolLabel, Histogram, fn() -> Histogram>;

/// A family written with its `# HELP` and `# TYPE` lines even before its first sample (the
/// registry leaves out an empty family): a scraper sees every family from the start, as it
/// always has here.
#[derive(Debug)]
struct Described<M>(M);

impl<M: EncodeMetric> EncodeMetric for Described<M> {
    fn encode(&self, encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        self.0.encode(encoder)
    }

    fn metric_type(&self) -> MetricType {
        self.0.metric_type()
    }
}

/// Every metric of one gateway.
#[derive(Debug)]
pub struct Metrics {
    /// What `/metrics` writes, in this order: the handles below, registered once.
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    duration: Histograms,
    size: Histograms,
    offloads: Family<ToolLabel, Counter>,
    offload_bytes: Family<ToolLabel, Counter>,
    store_errors: Family<KindLabel, Counter>,
    legacy: Family<ToolLabel, Counter>,
    app_errors: Family<AppErrorLabels, Counter>,
    upstream_calls: Family<UpstreamCallLabels, Counter>,
    upstream_restarts: Family<UpstreamLabel, Counter>,
    upstream_repairs: Family<UpstreamLabel, Counter>,
    upstream_up: Family<UpstreamLabel, Gauge>,
    tasks: Family<TaskLabels, Counter>,
    tasks_running: Gauge,
    connections: Gauge,
    sessions: Gauge,
}

/// Holds one open connection in the gauge until dropped.
#[derive(Debug)]
pub struct ConnectionGuard(Gauge);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Every family registered, with no samples yet.
    pub fn new() -> Self {
        let metrics = Self {
            registry: Registry::default(),
            calls: Family::default(),
            duration: Family::new_with_constructor(|| Histogram::new(DURATION_BUCKETS)),
            size: Family::new_with_constructor(|| Histogram::new(SIZE_BUCKETS)),
            offloads: Family::default(),
            offload_bytes: Family::default(),
            store_errors: Family::default(),
            legacy: Family::default(),
            app_errors: Family::default(),
            upstream_calls: Family::default(),
            upstream_restarts: Family::default(),
            upstream_repairs: Family::default(),
            upstream_up: Family::default(),
            tasks: Family::default(),
            tasks_running: Gauge::default(),
            connections: Gauge::default(),
            sessions: Gauge::default(),
        };
        metrics.registered()
    }

    /// `self` with every handle in its registry. Help texts end without a period: the
    /// registry adds one. Counter names end without `_total`: the encoder adds it.
    fn registered(mut self) -> Self {
        let r = &mut self.registry;
        r.register(
            "toolwire_calls",
            "tools/call requests by tool, revision and outcome",
            Described(self.calls.clone()),
        );
        r.register(
            "toolwire_call_duration_seconds",
            "Time from request to rendered result, by tool",
            Described(self.duration.clone()),
        );
        r.register(
            "toolwire_result_bytes",
            "Bytes of the rendered result, by tool",
            Described(self.size.clone()),
        );
        r.register(
            "toolwire_offloads",
            "Over-limit results handed to the store, by tool",
            Described(self.offloads.clone()),
        );
        r.register(
            "toolwire_offload_bytes",
            "Bytes of over-limit results handed to the store, by tool",
            Described(self.offload_bytes.clone()),
        );
        r.register(
            "toolwire_store_errors",
            "Result store failures by kind",
            Described(self.store_errors.clone()),
        );
        r.register(
            "toolwire_legacy_results",
            "Results that came from hand-built legacy strings, by tool",
            Described(self.legacy.clone()),
        );
        r.register(
            "toolwire_app_errors",
            "Failed exchanges with app endpoints, by tool and kind",
            Described(self.app_errors.clone()),
        );
        r.register(
            "toolwire_upstream_calls",
            "Calls sent to upstream MCP servers, by upstream and outcome",
            Described(self.upstream_calls.clone()),
        );
        r.register(
            "toolwire_upstream_restarts",
            "Connections to an upstream MCP server opened again after it was lost or refused",
            Described(self.upstream_restarts.clone()),
        );
        r.register(
            "toolwire_upstream_repairs",
            "Upstream results whose empty array was read as the empty object the tool declares",
            Described(self.upstream_repairs.clone()),
        );
        r.register(
            "toolwire_upstream_up",
            "Whether the gateway is connected to the upstream MCP server now (1) or not (0)",
            Described(self.upstream_up.clone()),
        );
        r.register(
            "toolwire_tasks",
            "Tasks created and how they ended, by tool and event",
            Described(self.tasks.clone()),
        );
        r.register(
            "toolwire_tasks_running",
            "Tasks this node runs in the background now",
            self.tasks_running.clone(),
        );
        r.register(
            "toolwire_open_connections",
            "HTTP connections open now",
            self.connections.clone(),
        );
        r.register("toolwire_open_sessions", "MCP sessions open now", self.sessions.clone());
        self
    }

    /// Counts an accepted connection until the guard is dropped.
    pub fn connection(&self) -> ConnectionGuard {
        self.connections.inc();
        ConnectionGuard(self.connections.clone())
    }

    /// Counts a failed exchange with an app endpoint.
    pub fn app_error(&self, tool: &str, kind: &'static str) {
        self.app_errors.get_or_create(&AppErrorLabels { tool: tool.to_owned(), kind }).inc();
    }

    /// Counts a call sent to `upstream` and how it ended (`ok`, `tool_error`,
    /// `invalid_arguments`, `unavailable`).
    pub fn upstream_call(&self, upstream: &str, outcome: &'static str) {
        let labels = UpstreamCallLabels { upstream: upstream.to_owned(), outcome };
        self.upstream_calls.get_or_create(&labels).inc();
    }

    /// Counts a connection to `upstream` opened again.
    pub fn upstream_restart(&self, upstream: &str) {
        self.upstream_restarts
            .get_or_create(&UpstreamLabel { upstream: upstream.to_owned() })
            .inc();
    }

    /// Counts an `[]` from `upstream` read as `{}`.
    pub fn upstream_repair(&self, upstream: &str) {
        self.upstream_repairs.get_or_create(&UpstreamLabel { upstream: upstream.to_owned() }).inc();
    }

    /// Sets whether the gateway is connected to `upstream` now.
    pub fn upstream_up(&self, upstream: &str, up: bool) {
        let label = UpstreamLabel { upstream: upstream.to_owned() };
        self.upstream_up.get_or_create(&label).set(i64::from(up));
    }

    /// Counts a store failure outside a call (the readiness probe).
    pub fn store_error(&self, error: &StoreError) {
        self.store_errors.get_or_create(&KindLabel { kind: error.kind() }).inc();
    }

    /// The text exposition, with `sessions` open at this moment.
    pub fn render(&self, sessions: usize) -> String {
        self.sessions.set(i64::try_from(sessions).unwrap_or(i64::MAX));
        let mut out = String::new();
        // Only the writer can fail, and writing to a `String` does not.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }
}

impl CallObserver for Metrics {
    fn call(&self, record: &CallRecord<'_>) {
        let tool =
            if record.outcome == CallOutcome::UnknownTool { UNKNOWN_TOOL } else { record.tool };
        let labels = CallLabels {
            tool: tool.to_owned(),
            revision: record.revision.as_str(),
            outcome: record.outcome.as_str().to_owned(),
        };
        self.calls.get_or_create(&labels).inc();
        let by_tool = ToolLabel { tool: labels.tool };
        self.duration.get_or_create(&by_tool).observe(record.duration.as_secs_f64());
        if record.outcome.rendered() {
            self.size.get_or_create(&by_tool).observe(record.bytes as f64);
        }
        if record.legacy {
            self.legacy.get_or_create(&by_tool).inc();
        }
    }

    fn offload(&self, record: &OffloadRecord<'_>) {
        let by_tool = ToolLabel { tool: record.tool.to_owned() };
        self.offloads.get_or_create(&by_tool).inc();
        self.offload_bytes.get_or_create(&by_tool).inc_by(record.bytes as u64);
        if let Some(error) = record.store_error {
            self.store_error(error);
        }
    }

    fn task(&self, record: &TaskRecord<'_>) {
        let labels = TaskLabels { tool: record.tool.to_owned(), event: record.event.as_str() };
        self.tasks.get_or_create(&labels).inc();
        self.tasks_running.set(i64::try_from(record.running).unwrap_or(i64::MAX));
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use toolwire_core::McpRevision;

    use super::*;

    #[test]
    fn calls_offloads_and_gauges_are_written_in_the_text_format() {
        let metrics = Metrics::new();
        let call = |tool, outcome, bytes, ms| CallRecord {
            tool,
            source: "demo",
            revision: McpRevision::V2025_06_18,
            outcome,
            bytes,
            offloaded: false,
            legacy: tool == "legacy_echo",
            duration: Duration::from_millis(ms),
        };
        metrics.call(&call("catalog_get", CallOutcome::Success, 300, 250));
        metrics.call(&call("catalog_get", CallOutcome::Success, 5000, 500));
        metrics.call(&call("legacy_echo", CallOutcome::Success, 10, 1));
        metrics.call(&call("x\"\n", CallOutcome::UnknownTool, 0, 0));
        metrics.call(&call("boom", CallOutcome::InternalError, 0, 7));
        metrics.offload(&OffloadRecord {
            tool: "catalog_export",
            bytes: 70_000,
            store_error: None,
        });
        metrics.app_error("orders", "timeout");
        metrics.app_error("or\"d\\e\nrs", "unavailable");
        metrics.upstream_call("shop", "ok");
        metrics.upstream_call("shop", "unavailable");
        metrics.upstream_restart("shop");
        metrics.upstream_repair("shop");
        metrics.upstream_up("shop", true);
        metrics.upstream_up("drupal", false);
        let task = |event| TaskRecord { tool: "slow", event, running: 1 };
        metrics.task(&task(toolwire_mcp::TaskEvent::Created));
        metrics.task(&task(toolwire_mcp::TaskEvent::Expired));
        let held = metrics.connection();
        let text = metrics.render(2);
        for line in [
            "toolwire_calls_total{tool=\"catalog_get\",revision=\"2025-06-18\",outcome=\"success\"} 2",
            "toolwire_calls_total{tool=\"(unknown)\",revision=\"2025-06-18\",outcome=\"unknown_tool\"} 1",
            "toolwire_call_duration_seconds_bucket{tool=\"catalog_get\",le=\"0.1\"} 0",
            "toolwire_call_duration_seconds_bucket{tool=\"catalog_get\",le=\"0.25\"} 1",
            "toolwire_call_duration_seconds_bucket{tool=\"catalog_get\",le=\"+Inf\"} 2",
            "toolwire_call_duration_seconds_sum{tool=\"catalog_get\"} 0.75",
            "toolwire_call_duration_seconds_count{tool=\"boom\"} 1",
            "toolwire_result_bytes_bucket{tool=\"catalog_get\",le=\"4096\"} 1",
            "toolwire_result_bytes_count{tool=\"catalog_get\"} 2",
            "toolwire_offloads_total{tool=\"catalog_export\"} 1",
            "toolwire_offload_bytes_total{tool=\"catalog_export\"} 70000",
            "toolwire_legacy_results_total{tool=\"legacy_echo\"} 1",
            "toolwire_app_errors_total{tool=\"orders\",kind=\"timeout\"} 1",
            "toolwire_app_errors_total{tool=\"or\\\"d\\\\e\\nrs\",kind=\"unavailable\"} 1",
            "toolwire_upstream_calls_total{upstream=\"shop\",outcome=\"ok\"} 1",
            "toolwire_upstream_calls_total{upstream=\"shop\",outcome=\"unavailable\"} 1",
            "toolwire_upstream_restarts_total{upstream=\"shop\"} 1",
            "toolwire_upstream_repairs_total{upstream=\"shop\"} 1",
            "toolwire_upstream_up{upstream=\"shop\"} 1",
            "toolwire_upstream_up{upstream=\"drupal\"} 0",
            "toolwire_tasks_total{tool=\"slow\",event=\"created\"} 1",
            "toolwire_tasks_total{tool=\"slow\",event=\"expired\"} 1",
            "toolwire_tasks_running 1",
            "toolwire_open_connections 1",
            "toolwire_open_sessions 2",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line} in\n{text}");
        }
        // A call that failed inside the gateway has no result to measure.
        assert!(!text.contains("toolwire_result_bytes_count{tool=\"boom\"}"), "{text}");
        drop(held);
        assert!(metrics.render(0).contains("\ntoolwire_open_connections 0\n"));
    }

    #[test]
    fn every_family_is_described_as_before_any_sample() {
        let families: Vec<String> = Metrics::new()
            .render(0)
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(String::from)
            .collect();
        assert_eq!(
            families,
            [
                "# HELP toolwire_calls_total tools/call requests by tool, revision and outcome.",
                "# TYPE toolwire_calls_total counter",
                "# HELP toolwire_call_duration_seconds Time from request to rendered result, by tool.",
                "# TYPE toolwire_call_duration_seconds histogram",
                "# HELP toolwire_result_bytes Bytes of the rendered result, by tool.",
                "# TYPE toolwire_result_bytes histogram",
                "# HELP toolwire_offloads_total Over-limit results handed to the store, by tool.",
                "# TYPE toolwire_offloads_total counter",
                "# HELP toolwire_offload_bytes_total Bytes of over-limit results handed to the store, by tool.",
                "# TYPE toolwire_offload_bytes_total counter",
                "# HELP toolwire_store_errors_total Result store failures by kind.",
                "# TYPE toolwire_store_errors_total counter",
                "# HELP toolwire_legacy_results_total Results that came from hand-built legacy strings, by tool.",
                "# TYPE toolwire_legacy_results_total counter",
                "# HELP toolwire_app_errors_total Failed exchanges with app endpoints, by tool and kind.",
                "# TYPE toolwire_app_errors_total counter",
                "# HELP toolwire_upstream_calls_total Calls sent to upstream MCP servers, by upstream and outcome.",
                "# TYPE toolwire_upstream_calls_total counter",
                "# HELP toolwire_upstream_restarts_total Connections to an upstream MCP server opened again after it was lost or refused.",
                "# TYPE toolwire_upstream_restarts_total counter",
                "# HELP toolwire_upstream_repairs_total Upstream results whose empty array was read as the empty object the tool declares.",
                "# TYPE toolwire_upstream_repairs_total counter",
                "# HELP toolwire_upstream_up Whether the gateway is connected to the upstream MCP server now (1) or not (0).",
                "# TYPE toolwire_upstream_up gauge",
                "# HELP toolwire_tasks_total Tasks created and how they ended, by tool and event.",
                "# TYPE toolwire_tasks_total counter",
                "# HELP toolwire_tasks_running Tasks this node runs in the background now.",
                "# TYPE toolwire_tasks_running gauge",
                "# HELP toolwire_open_connections HTTP connections open now.",
                "# TYPE toolwire_open_connections gauge",
                "# HELP toolwire_open_sessions MCP sessions open now.",
                "# TYPE toolwire_open_sessions gauge",
            ]
        );
    }
}
