//! Output-schema validation cost beside `serde_json::from_slice` of the same bytes.
//!
//! The data is a product listing (entity handles, strings, numbers, arrays) near 1 KiB and
//! 64 KiB; `check` is what every call pays, the parse is what reading the same data costs.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwire_core::{Shape, ToolOutput, ToolResult};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "products": {"type": "array", "items": {"$ref": "#/$defs/product"}},
            "total": {"type": "integer", "minimum": 0}
        },
        "required": ["products", "total"],
        "$defs": {"product": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^product:"},
                "name": {"type": "string", "minLength": 1},
                "price": {"type": "number", "minimum": 0},
                "stock": {"type": "integer"},
                "active": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["id", "name", "price"]
        }}
    })
}

/// A listing whose compact JSON is at least `size` bytes.
fn listing(size: usize) -> Vec<u8> {
    let mut products = Vec::new();
    loop {
        let n = products.len();
        products.push(json!({
            "id": format!("product:{n}"),
            "name": format!("Desk lamp model {n}"),
            "price": 19.99 + n as f64,
            "stock": n * 3,
            "active": n % 2 == 0,
            "tags": ["lighting", "office"]
        }));
        let bytes = serde_json::to_vec(&json!({"products": products, "total": products.len()}))
            .unwrap_or_default();
        if bytes.len() >= size {
            return bytes;
        }
    }
}

fn bench(c: &mut Criterion) {
    let output = match ToolOutput::from_declaration(&schema(), Shape::Data) {
        Ok(output) => output,
        Err(err) => panic!("schema refused: {err}"),
    };
    for (label, size) in [("1KiB", 1024), ("64KiB", 64 * 1024)] {
        let bytes = listing(size);
        let value: Value = serde_json::from_slice(&bytes).unwrap_or_default();
        let result = ToolResult::success(value);
        assert_eq!(output.check(&result), Ok(()));
        let mut group = c.benchmark_group(format!("output_schema/{label}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("serde_json::from_slice", |b| {
            b.iter(|| serde_json::from_slice::<Value>(black_box(&bytes)))
        });
        group.bench_function("ToolOutput::check", |b| b.iter(|| output.check(black_box(&result))));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
