//! put + get of 1 KiB and 1 MiB records on the memory, redb and Redis stores (a real
//! `redis-server` on a free loopback port, started here). Each iteration times one put and one
//! get; the record is deleted afterwards, outside the timing, so the stores do not grow.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolwire_core::Timestamp;
use toolwire_store::{MemoryStore, Record, RedbStore, RedisStore, ResultStore};

struct Redis(Child);

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_redis() -> (Redis, String) {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server is needed for this benchmark: apt-get install redis-server");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    (Redis(child), format!("redis://127.0.0.1:{port}/"))
}

fn record(bytes: &[u8]) -> Record {
    let now = Utc::now();
    Record::new(
        bytes.to_vec(),
        "application/json",
        "bench",
        Timestamp::from_datetime(now),
        Timestamp::from_unix_seconds(now.timestamp() + 3600).unwrap(),
    )
}

fn put_get(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (_redis, url) = start_redis();
    let stores: Vec<(&str, Arc<dyn ResultStore>)> = runtime.block_on(async {
        vec![
            ("memory", Arc::new(MemoryStore::new()) as Arc<dyn ResultStore>),
            ("redb", Arc::new(RedbStore::open(dir.path()).await.unwrap())),
            ("redis", Arc::new(RedisStore::connect(&url).await.unwrap())),
        ]
    });
    let mut group = c.benchmark_group("put_get");
    for (label, size) in [("1KiB", 1024usize), ("1MiB", 1 << 20)] {
        let bytes: Vec<u8> = (0..size).map(|n| (n % 251) as u8).collect();
        group.throughput(Throughput::Bytes(size as u64));
        for (name, store) in &stores {
            group.bench_with_input(BenchmarkId::new(*name, label), &bytes, |b, bytes| {
                b.iter_custom(|iters| {
                    runtime.block_on(async {
                        let mut timed = Duration::ZERO;
                        for _ in 0..iters {
                            let record = record(bytes);
                            let start = Instant::now();
                            let id = store.put(record).await.unwrap();
                            let back = store.get(id).await.unwrap().unwrap();
                            timed += start.elapsed();
                            assert_eq!(back.bytes.len(), bytes.len());
                            store.delete(id).await.unwrap();
                        }
                        timed
                    })
                });
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4));
    targets = put_get
}
criterion_main!(benches);
