//! Shared test support: a real `redis-server` on a free loopback port, records, and the one
//! behaviour suite every store must pass.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;
use toolwire_core::Timestamp;
use toolwire_store::{Record, RecordId, ResultStore};

/// A `redis-server` started for one test, killed when dropped.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
}

/// A free loopback port (bound to port 0, then released).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

impl RedisServer {
    /// Starts a server on a free port.
    pub fn start() -> Self {
        Self::start_on(free_port())
    }

    /// Starts a server on `port` (no persistence) and waits until it answers PING.
    pub fn start_on(port: u16) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut server = Self { child: None, port, dir };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(err) => panic!(
                "cannot start redis-server ({err}): these tests need a real Redis; install it \
                 with `apt-get install redis-server` (scripts/test does this)"
            ),
        };
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.answers_ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server on port {} did not answer PING within 10 s", self.port);
    }

    fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else { return false };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
        if stream.write_all(b"PING\r\n").is_err() {
            return false;
        }
        let mut reply = [0u8; 7];
        stream.read_exact(&mut reply).is_ok() && &reply == b"+PONG\r\n"
    }

    /// The URL of the server.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server (the port stays this server's: [`RedisServer::restart`] reuses it).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A timestamp `millis` from now, with millisecond precision.
pub fn in_millis(millis: i64) -> Timestamp {
    Timestamp::with_fraction_digits(Utc::now() + chrono::Duration::milliseconds(millis), 3)
}

/// A record for `principal` living `millis`.
pub fn record(bytes: Vec<u8>, principal: &str, millis: i64) -> Record {
    Record::new(bytes, "application/json", principal, in_millis(0), in_millis(millis))
}

/// Bytes of `len` from a small deterministic generator seeded with `seed`.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

/// The behaviour every store shares (DESIGN §6).
pub async fn behaviour_suite(store: &dyn ResultStore) {
    // What is put is read back exactly: every byte value, the MIME type, the principal, both
    // timestamps with their precision.
    let all_bytes: Vec<u8> = (0..=255u8).collect();
    let original = Record::new(
        all_bytes.clone(),
        "application/octet-stream",
        "ünïcode principal",
        Timestamp::parse("2026-11-29T10:00:00.123Z").unwrap(),
        in_millis(3_600_000),
    );
    let id = store.put(original.clone()).await.unwrap();
    assert_eq!(store.get(id).await.unwrap(), Some(original.clone()));

    // Empty bytes are a record too.
    let empty = record(Vec::new(), "p", 3_600_000);
    let empty_id = store.put(empty.clone()).await.unwrap();
    assert_eq!(store.get(empty_id).await.unwrap(), Some(empty));

    // Ids are fresh each time, and unknown ids are simply absent.
    let again = store.put(original.clone()).await.unwrap();
    assert_ne!(again, id);
    let unknown = RecordId::parse("0123456789abcdef0123456789abcdef").unwrap();
    assert_eq!(store.get(unknown).await.unwrap(), None);

    // Delete removes exactly one record and says whether there was one.
    assert!(store.delete(again).await.unwrap());
    assert_eq!(store.get(again).await.unwrap(), None);
    assert!(!store.delete(again).await.unwrap());
    assert_eq!(store.get(id).await.unwrap(), Some(original));

    // A record that has already expired is refused.
    let stale = record(b"x".to_vec(), "p", -1);
    let err = store.put(stale.clone()).await.unwrap_err();
    assert_eq!(err.to_string(), format!("record already expired at {}", stale.expires));

    // A short-lived record is there until it expires and never after, sweep or no sweep.
    let short = record(b"short".to_vec(), "p", 2000);
    let short_id = store.put(short.clone()).await.unwrap();
    assert_eq!(store.get(short_id).await.unwrap(), Some(short));
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(
        store.get(short_id).await.unwrap(),
        None,
        "{}: expired record returned",
        store.backend()
    );
    let swept = store.sweep().await.unwrap();
    if store.backend() == "redis" {
        assert_eq!(swept, 0, "Redis expires keys itself");
    } else {
        assert_eq!(swept, 1, "{}: the sweep removes exactly the expired record", store.backend());
    }
    assert_eq!(store.get(short_id).await.unwrap(), None);
    assert!(!store.delete(short_id).await.unwrap());
    // The sweep left the live records alone.
    assert!(store.get(id).await.unwrap().is_some());
    assert!(store.get(empty_id).await.unwrap().is_some());
}

/// 64 tasks put and read 1 MiB records at once; every record comes back intact.
pub async fn concurrency_suite(store: std::sync::Arc<dyn ResultStore>) {
    let mut tasks = Vec::new();
    for n in 0..64u64 {
        let store = std::sync::Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let bytes = pattern(n, 1 << 20);
            let id = store.put(record(bytes.clone(), &format!("p{n}"), 600_000)).await.unwrap();
            let back = store.get(id).await.unwrap().expect("record just stored");
            assert_eq!(back.principal, format!("p{n}"));
            assert!(back.bytes == bytes, "record {n} came back changed");
            (id, n)
        }));
    }
    let mut stored = Vec::new();
    for task in tasks {
        stored.push(task.await.unwrap());
    }
    // Read everything again once all writers are done: no record overwrote another.
    for (id, n) in stored {
        let back = store.get(id).await.unwrap().expect("record still there");
        assert!(back.bytes == pattern(n, 1 << 20), "record {n} changed after the others");
    }
}
