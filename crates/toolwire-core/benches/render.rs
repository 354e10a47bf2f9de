//! Render benchmarks: the mapper beside the naive path a hand-written server takes (serialize
//! the data to a string for the text block, clone the value into the structured slot, build the
//! whole result as a `serde_json::Value`, serialize it). Both produce byte-identical output,
//! asserted before measuring.
//!
//! `cargo bench -p toolwire-core --bench render`

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use toolwire_core::{OutputMapper, RenderContext, Rendered};
use toolwire_core::{Phase, Target, Timestamp, ToolResult};

const NOW: &str = "2026-11-29T10:00:00Z";

/// Object data of about `bytes` bytes: `{"product-0": {…}, "product-1": {…}, …}`.
fn object_data(bytes: usize) -> Value {
    let mut map = Map::new();
    let mut len = 2;
    let mut i = 0;
    while len < bytes {
        let key = format!("product-{i}");
        let value = record(i);
        len += key.len() + 4 + to_string(&value).len();
        map.insert(key, value);
        i += 1;
    }
    Value::Object(map)
}

/// List data of about `bytes` bytes: `[{…}, {…}, …]`.
fn list_data(bytes: usize) -> Value {
    let mut list = Vec::new();
    let mut len = 2;
    let mut i = 0;
    while len < bytes {
        let value = record(i);
        len += to_string(&value).len() + 1;
        list.push(value);
        i += 1;
    }
    Value::Array(list)
}

fn record(i: usize) -> Value {
    json!({
        "id": i,
        "name": format!("Chair \"Model {i}\" — oak"),
        "price": 49.95,
        "stock": i % 17,
        "tags": ["furniture", "wood"],
        "active": !i.is_multiple_of(3)
    })
}

fn to_string(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The hand-written server's legacy envelope.
fn naive_envelope(data: &Value) -> Value {
    json!({"success": true, "data": data.clone(), "_meta": {"generatedAt": NOW}})
}

/// The hand-written server's `CallToolResult`.
fn naive(data: &Value, target: Target, phase: Phase) -> String {
    match target {
        Target::Legacy => to_string(&naive_envelope(data)),
        Target::Mcp(revision) => {
            let text = match phase {
                Phase::Compat => to_string(&naive_envelope(data)),
                _ => to_string(data),
            };
            let newest = revision.as_str() == "2026-07-28";
            let structured = if data.is_object() || newest {
                data.clone()
            } else {
                json!({"result": data.clone()})
            };
            let mut meta = json!({"dev.toolwire/generatedAt": NOW});
            let mut result = Map::new();
            if newest {
                result.insert("resultType".into(), json!("complete"));
                if let Value::Object(meta) = &mut meta {
                    meta.insert(
                        "io.modelcontextprotocol/serverInfo".into(),
                        json!({"name": "toolwire", "version": env!("CARGO_PKG_VERSION")}),
                    );
                }
            }
            result.insert("content".into(), json!([{"type": "text", "text": text}]));
            result.insert("structuredContent".into(), structured);
            result.insert("_meta".into(), meta);
            to_string(&Value::Object(result))
        }
        Target::A2a(_) => String::new(),
        _ => String::new(),
    }
}

fn mapped(
    mapper: &OutputMapper,
    result: &ToolResult,
    target: Target,
    phase: Phase,
    ctx: &RenderContext<'_>,
) -> String {
    match mapper.render(result, target, phase, ctx) {
        Ok(Rendered::Complete(out)) => out.into_json(),
        _ => String::new(),
    }
}

fn bench(c: &mut Criterion) {
    let now = match Timestamp::parse(NOW) {
        Ok(now) => now,
        Err(err) => panic!("{err}"),
    };
    let cases = [
        ("mcp-2025-06-18 compat", Target::parse("mcp-2025-06-18"), Phase::Compat),
        ("mcp-2025-06-18 spec", Target::parse("mcp-2025-06-18"), Phase::Spec),
        ("mcp-2026-07-28 compat", Target::parse("mcp-2026-07-28"), Phase::Compat),
        ("legacy", Target::parse("legacy"), Phase::Compat),
    ];
    let sizes = [("1KiB", 1024), ("64KiB", 64 * 1024), ("1MiB", 1024 * 1024)];
    for (shape, make) in [("object", object_data as fn(usize) -> Value), ("list", list_data)] {
        for (size_name, bytes) in sizes {
            let data = make(bytes);
            let result = ToolResult::success(data.clone());
            let mut group = c.benchmark_group(format!("render/{shape}/{size_name}"));
            group.throughput(Throughput::Bytes(to_string(&data).len() as u64));
            group.sample_size(if bytes >= 1024 * 1024 { 20 } else { 60 });
            group.measurement_time(Duration::from_secs(3));
            group.warm_up_time(Duration::from_secs(1));
            for (name, target, phase) in &cases {
                let Ok(target) = *target else { panic!("bad target {name}") };
                // No limit: the benchmark measures rendering, not offloading.
                let mapper = OutputMapper::new(
                    toolwire_core::MapperConfig::default().with_limit(target, None),
                );
                let ctx = RenderContext::new("result", now);
                let ours = mapped(&mapper, &result, target, *phase, &ctx);
                let theirs = naive(&data, target, *phase);
                assert!(!ours.is_empty(), "{name}: no output");
                assert_eq!(ours, theirs, "{name}: the naive path must be byte-identical");
                group.bench_function(BenchmarkId::new("mapper", name), |b| {
                    b.iter(|| mapped(&mapper, black_box(&result), target, *phase, &ctx));
                });
                group.bench_function(BenchmarkId::new("naive", name), |b| {
                    b.iter(|| naive(black_box(&data), target, *phase));
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
