//! Two gateways in one process share nothing: each counts its own calls in its own metrics, and
//! each has its own places for large work, so one whose places are all taken does not hold up
//! the other.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolwire_gateway::Metrics;
use toolwire_mcp::work::Work;
use toolwire_mcp::{
    CallContext, Gateway, GatewayConfig, McpServer, Registry, ToolResult, ToolSpec,
};

#[derive(Deserialize, JsonSchema)]
struct NoInput {}

/// A gateway with one tool, `big`, whose result is large enough to render off the async
/// workers, counting in `metrics` and placing large work within `work`.
fn gateway(metrics: &Arc<Metrics>, work: &Work) -> McpServer {
    let mut tools = Registry::new();
    tools
        .register(
            ToolSpec::new("big", "Answers about 70 KB."),
            |_input: NoInput, _cx: CallContext| async move {
                ToolResult::success(json!({"items": vec!["x".repeat(1000); 70]}))
            },
        )
        .unwrap();
    let mut config = GatewayConfig::in_memory().unwrap();
    config.observer = Some(metrics.clone());
    config.work = work.clone();
    McpServer::new(Gateway::new(tools, config))
}

/// Connects to `server` over an in-memory stream, initializes on 2025-06-18 and calls `big`:
/// the `tools/call` answer.
async fn call_big(server: McpServer) -> Value {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(theirs)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(ours);
    let mut lines = BufReader::new(read).lines();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "big", "arguments": {}}}),
    ];
    for message in messages {
        write.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    loop {
        let line = lines.next_line().await.unwrap().expect("the server closed the stream");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            return message;
        }
    }
}

/// How many items the structured result of `big` carries (0 for an error).
fn items(answer: &Value) -> usize {
    answer["result"]["structuredContent"]["items"].as_array().map_or(0, Vec::len)
}

/// The sample `series` in `metrics`' exposition, 0 when absent.
fn sample(metrics: &Metrics, series: &str) -> f64 {
    metrics
        .render(0)
        .lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

const BIG_CALLS: &str =
    "toolwire_calls_total{tool=\"big\",revision=\"2025-06-18\",outcome=\"success\"}";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_keep_their_own_metrics_and_work_limits() {
    let one = NonZeroUsize::MIN;
    let (metrics_a, work_a) = (Arc::new(Metrics::new()), Work::new(one));
    let (metrics_b, work_b) = (Arc::new(Metrics::new()), Work::new(one));

    // Gateway A's only place on the blocking pool is taken until `release` is sent.
    let (taken, is_taken) = tokio::sync::oneshot::channel();
    let (release, wait) = std::sync::mpsc::channel::<()>();
    let holder = tokio::spawn({
        let work_a = work_a.clone();
        async move {
            work_a
                .off_workers(move || {
                    let _ = taken.send(());
                    let _ = wait.recv();
                })
                .await
        }
    });
    is_taken.await.unwrap();

    // B renders its large result at once: A's limits are not B's.
    let answer =
        tokio::time::timeout(Duration::from_secs(20), call_big(gateway(&metrics_b, &work_b)))
            .await
            .expect("gateway B waited on gateway A's work limits");
    assert_eq!(items(&answer), 70);
    assert_eq!(sample(&metrics_b, BIG_CALLS), 1.0);
    assert_eq!(sample(&metrics_a, BIG_CALLS), 0.0, "B's call was counted in A's metrics");

    // A's own call waits for A's place, and goes on once it is free.
    let mut in_a = tokio::spawn(call_big(gateway(&metrics_a, &work_a)));
    let waited = tokio::time::timeout(Duration::from_millis(500), &mut in_a).await;
    assert!(waited.is_err(), "gateway A rendered a large result without a free place");
    release.send(()).unwrap();
    holder.await.unwrap().unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(20), in_a).await.unwrap().unwrap();
    assert_eq!(items(&answer), 70);
    assert_eq!(sample(&metrics_a, BIG_CALLS), 1.0);
    assert_eq!(sample(&metrics_b, BIG_CALLS), 1.0, "A's call was counted in B's metrics");
}

#[test]
fn connections_are_counted_by_the_gateway_that_accepted_them() {
    let (a, b) = (Metrics::new(), Metrics::new());
    let held = a.connection();
    assert_eq!(sample(&a, "toolwire_open_connections"), 1.0);
    assert_eq!(sample(&b, "toolwire_open_connections"), 0.0);
    drop(held);
    assert_eq!(sample(&a, "toolwire_open_connections"), 0.0);
}
