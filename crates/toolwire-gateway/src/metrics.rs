//! The gateway's Prometheus metrics: counters and histograms fed by the call path (through
//! [`CallObserver`]), app endpoints and the listener, written in the Prometheus text format
//! (version 0.0.4) by a small encoder here.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use toolwire_mcp::{CallObserver, CallOutcome, CallRecord, OffloadRecord};
use toolwire_store::StoreError;

/// Upper bounds of the call duration histogram, in seconds.
const DURATION_BUCKETS: [f64; 12] =
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];
/// Upper bounds of the result size histogram, in bytes.
const SIZE_BUCKETS: [f64; 9] =
    [256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262_144.0, 1_048_576.0, 4_194_304.0, 16_777_216.0];

/// The label of calls to tools that do not exist (their names are not labels: unbounded).
const UNKNOWN_TOOL: &str = "(unknown)";

#[derive(Debug, Clone, Default)]
struct Histogram {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, bounds: &[f64], value: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; bounds.len()];
        }
        for (count, bound) in self.counts.iter_mut().zip(bounds) {
            if value <= *bound {
                *count += 1;
            }
        }
        self.sum += value;
        self.count += 1;
    }
}

#[derive(Debug, Default)]
struct Families {
    /// By tool, revision and outcome (nested, so that a call finds its count by `&str`).
    calls: BTreeMap<String, BTreeMap<&'static str, BTreeMap<String, u64>>>,
    duration: BTreeMap<String, Histogram>,
    size: BTreeMap<String, Histogram>,
    offloads: BTreeMap<String, u64>,
    offload_bytes: BTreeMap<String, u64>,
    store_errors: BTreeMap<&'static str, u64>,
    legacy: BTreeMap<String, u64>,
    app_errors: BTreeMap<(String, &'static str), u64>,
}

/// Every metric of one gateway process.
#[derive(Debug, Default)]
pub struct Metrics {
    families: Mutex<Families>,
    connections: AtomicI64,
}

static GLOBAL: LazyLock<Arc<Metrics>> = LazyLock::new(Arc::default);

/// The process's metrics (one gateway per process).
pub fn global() -> &'static Arc<Metrics> {
    &GLOBAL
}

/// Holds one open connection in the gauge until dropped.
#[derive(Debug)]
pub struct ConnectionGuard(Arc<Metrics>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    fn lock(&self) -> MutexGuard<'_, Families> {
        // A panic elsewhere while counting leaves counts that are still worth showing.
        self.families.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts an accepted connection until the guard is dropped.
    pub fn connection(self: &Arc<Self>) -> ConnectionGuard {
        self.connections.fetch_add(1, Ordering::Relaxed);
        ConnectionGuard(self.clone())
    }

    /// Counts a failed exchange with an app endpoint.
    pub fn app_error(&self, tool: &str, kind: &'static str) {
        *self.lock().app_errors.entry((tool.to_owned(), kind)).or_default() += 1;
    }

    /// Counts a store failure outside a call (the readiness probe).
    pub fn store_error(&self, error: &StoreError) {
        *self.lock().store_errors.entry(error.kind()).or_default() += 1;
    }

    /// The text exposition, with `sessions` open at this moment.
    pub fn render(&self, sessions: usize) -> String {
        let f = self.lock();
        let mut out = String::new();
        counter(
            &mut out,
            "toolwire_calls_total",
            "tools/call requests by tool, revision and outcome.",
            f.calls
                .iter()
                .flat_map(|(tool, revisions)| {
                    revisions.iter().flat_map(move |(revision, outcomes)| {
                        outcomes.iter().map(move |(outcome, n)| {
                            (
                                vec![
                                    ("tool", tool.as_str()),
                                    ("revision", *revision),
                                    ("outcome", outcome.as_str()),
                                ],
                                *n,
                            )
                        })
                    })
                })
                .collect(),
        );
        histograms(
            &mut out,
            "toolwire_call_duration_seconds",
            "Time from request to rendered result, by tool.",
            &DURATION_BUCKETS,
            &f.duration,
        );
        histograms(
            &mut out,
            "toolwire_result_bytes",
            "Bytes of the rendered result, by tool.",
            &SIZE_BUCKETS,
            &f.size,
        );
        counter(
            &mut out,
            "toolwire_offloads_total",
            "Over-limit results handed to the store, by tool.",
            by_tool(&f.offloads),
        );
        counter(
            &mut out,
            "toolwire_offload_bytes_total",
            "Bytes of over-limit results handed to the store, by tool.",
            by_tool(&f.offload_bytes),
        );
        counter(
            &mut out,
            "toolwire_store_errors_total",
            "Result store failures by kind.",
            f.store_errors.iter().map(|(kind, n)| (vec![("kind", *kind)], *n)).collect(),
        );
        counter(
            &mut out,
            "toolwire_legacy_results_total",
            "Results that came from hand-built legacy strings, by tool.",
            by_tool(&f.legacy),
        );
        counter(
            &mut out,
            "toolwire_app_errors_total",
            "Failed exchanges with app endpoints, by tool and kind.",
            f.app_errors
                .iter()
                .map(|((tool, kind), n)| (vec![("tool", tool.as_str()), ("kind", *kind)], *n))
                .collect(),
        );
        family(&mut out, "toolwire_open_connections", "gauge", "HTTP connections open now.");
        sample(
            &mut out,
            "toolwire_open_connections",
            &[],
            self.connections.load(Ordering::Relaxed) as f64,
        );
        family(&mut out, "toolwire_open_sessions", "gauge", "MCP sessions open now.");
        sample(&mut out, "toolwire_open_sessions", &[], sessions as f64);
        out
    }
}

impl CallObserver for Metrics {
    fn call(&self, record: &CallRecord<'_>) {
        let tool =
            if record.outcome == CallOutcome::UnknownTool { UNKNOWN_TOOL } else { record.tool };
        let mut f = self.lock();
        update(&mut f.calls, tool, |revisions| {
            let outcomes = revisions.entry(record.revision.as_str()).or_default();
            update(outcomes, record.outcome.as_str(), |n| *n += 1);
        });
        let seconds = record.duration.as_secs_f64();
        update(&mut f.duration, tool, |h| h.observe(&DURATION_BUCKETS, seconds));
        if record.outcome.rendered() {
            update(&mut f.size, tool, |h| h.observe(&SIZE_BUCKETS, record.bytes as f64));
        }
        if record.legacy {
            update(&mut f.legacy, tool, |n| *n += 1);
        }
    }

    fn offload(&self, record: &OffloadRecord<'_>) {
        let mut f = self.lock();
        *f.offloads.entry(record.tool.to_owned()).or_default() += 1;
        *f.offload_bytes.entry(record.tool.to_owned()).or_default() += record.bytes as u64;
        if let Some(error) = record.store_error {
            *f.store_errors.entry(error.kind()).or_default() += 1;
        }
    }
}

/// `change` applied to the value under `key`, inserted empty the first time: the key is copied
/// only then, not on every call.
fn update<V: Default>(map: &mut BTreeMap<String, V>, key: &str, change: impl FnOnce(&mut V)) {
    match map.get_mut(key) {
        Some(value) => change(value),
        None => change(map.entry(key.to_owned()).or_default()),
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// Counts keyed by tool, as samples.
fn by_tool(counts: &BTreeMap<String, u64>) -> Vec<(Vec<(&'static str, &str)>, u64)> {
    counts.iter().map(|(tool, n)| (vec![("tool", tool.as_str())], *n)).collect()
}

/// A counter family and its samples (label pairs, count).
fn counter(out: &mut String, name: &str, help: &str, samples: Vec<(Vec<(&str, &str)>, u64)>) {
    family(out, name, "counter", help);
    for (labels, n) in samples {
        sample(out, name, &labels, n as f64);
    }
}

fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], value: f64) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (key, value)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{key}=\"{}\"", escape(value));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {}", number(value));
}

fn histograms(
    out: &mut String,
    name: &str,
    help: &str,
    bounds: &[f64],
    by_tool: &BTreeMap<String, Histogram>,
) {
    family(out, name, "histogram", help);
    let bucket = format!("{name}_bucket");
    for (tool, h) in by_tool {
        for (bound, count) in bounds.iter().zip(&h.counts) {
            sample(out, &bucket, &[("tool", tool), ("le", &number(*bound))], *count as f64);
        }
        sample(out, &bucket, &[("tool", tool), ("le", "+Inf")], h.count as f64);
        sample(out, &format!("{name}_sum"), &[("tool", tool)], h.sum);
        sample(out, &format!("{name}_count"), &[("tool", tool)], h.count as f64);
    }
}

/// A label value as the text format wants it: `\`, `"` and newlines escaped.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use toolwire_core::McpRevision;

    use super::*;

    #[test]
    fn calls_offloads_and_gauges_are_written_in_the_text_format() {
        let metrics = Arc::new(Metrics::default());
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
        metrics.offload(&OffloadRecord {
            tool: "catalog_export",
            bytes: 70_000,
            store_error: None,
        });
        metrics.app_error("orders", "timeout");
        let held = metrics.connection();
        let text = metrics.render(2);
        for line in [
            "toolwire_calls_total{tool=\"catalog_get\",revision=\"2025-06-18\",outcome=\"success\"} 2",
            "toolwire_calls_total{tool=\"(unknown)\",revision=\"2025-06-18\",outcome=\"unknown_tool\"} 1",
            "toolwire_call_duration_seconds_bucket{tool=\"catalog_get\",le=\"0.1\"} 0",
            "toolwire_call_duration_seconds_bucket{tool=\"catalog_get\",le=\"0.25\"} 1",
            "toolwire_call_duration_seconds_bucket{tool=\"catalog_get\",le=\"+Inf\"} 2",
            "toolwire_call_duration_seconds_sum{tool=\"catalog_get\"} 0.75",
            "toolwire_result_bytes_bucket{tool=\"catalog_get\",le=\"4096\"} 1",
            "toolwire_result_bytes_count{tool=\"catalog_get\"} 2",
            "toolwire_offloads_total{tool=\"catalog_export\"} 1",
            "toolwire_offload_bytes_total{tool=\"catalog_export\"} 70000",
            "toolwire_legacy_results_total{tool=\"legacy_echo\"} 1",
            "toolwire_app_errors_total{tool=\"orders\",kind=\"timeout\"} 1",
            "toolwire_open_connections 1",
            "toolwire_open_sessions 2",
            "# TYPE toolwire_call_duration_seconds histogram",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line} in\n{text}");
        }
        drop(held);
        assert!(metrics.render(0).contains("toolwire_open_connections 0\n"));
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
