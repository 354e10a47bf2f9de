//! Shared test support: a real `redis-server` on a free loopback port, a clock the tests move
//! on by hand, records, and the behaviour suites every store must pass.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use toolwire_core::Timestamp;
use toolwire_store::{Clock, Record, RecordId, ResultStore};

/// A clock that stands still until the test moves it on: expiry is tested by moving time, not
/// by waiting for it.
#[derive(Debug)]
pub(crate) struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    /// A clock at the current system time, to the millisecond (the precision of records).
    pub(crate) fn start() -> Arc<Self> {
        let now = Timestamp::with_fraction_digits(Utc::now(), 3).datetime();
        Arc::new(Self(Mutex::new(now)))
    }

    /// Moves the clock `millis` on.
    pub(crate) fn advance(&self, millis: i64) {
        *self.0.lock().unwrap() += chrono::Duration::milliseconds(millis);
    }

    /// The time `millis` after the clock's now, with millisecond precision.
    pub(crate) fn in_millis(&self, millis: i64) -> Timestamp {
        Timestamp::with_fraction_digits(self.now() + chrono::Duration::milliseconds(millis), 3)
    }

    /// A record for `principal` made now and living `millis` by this clock.
    pub(crate) fn record(&self, bytes: Vec<u8>, principal: &str, millis: i64) -> Record {
        Record::new(bytes, "application/json", principal, self.in_millis(0), self.in_millis(millis))
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

/// What a test says when `redis-server` is not installed.
pub(crate) const REDIS_MISSING: &str = "redis-server is not installed: these tests need a real Redis; install redis-server \
     (apt install redis-server), as scripts/test does";

/// Starts `command` (a `redis-server`); a missing binary fails with [`REDIS_MISSING`].
pub(crate) fn spawn_redis_server(command: &mut Command) -> Result<Child, String> {
    command.spawn().map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => format!("{REDIS_MISSING} ({err})"),
        _ => format!("cannot start redis-server: {err}"),
    })
}

/// A `redis-server` started for one test, killed when dropped.
pub(crate) struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
}

/// A free loopback port (bound to port 0, then released).
pub(crate) fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

impl RedisServer {
    /// Starts a server on a free port.
    pub(crate) fn start() -> Self {
        Self::start_on(free_port())
    }

    /// Starts a server on `port` (no persistence) and waits until it answers PING.
    pub(crate) fn start_on(port: u16) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut server = Self { child: None, port, dir };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let mut command = Command::new("redis-server");
        command
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = spawn_redis_server(&mut command).unwrap_or_else(|message| panic!("{message}"));
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
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The milliseconds left before Redis expires `key` itself (`PTTL`: -2 when there is no
    /// such key, -1 when it never expires).
    pub(crate) fn pttl(&self, key: &str) -> i64 {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(stream, "*2\r\n$4\r\nPTTL\r\n${}\r\n{key}\r\n", key.len()).unwrap();
        let mut reply = Vec::new();
        let mut byte = [0u8; 1];
        while !reply.ends_with(b"\r\n") {
            stream.read_exact(&mut byte).unwrap();
            reply.push(byte[0]);
        }
        let reply = String::from_utf8(reply).unwrap();
        let number = reply.strip_prefix(':').unwrap_or_else(|| panic!("PTTL answered {reply:?}"));
        number.trim_end().parse().unwrap()
    }

    /// The port.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server (the port stays this server's: [`RedisServer::restart`] reuses it).
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port.
    pub(crate) fn restart(&mut self) {
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
pub(crate) fn in_millis(millis: i64) -> Timestamp {
    Timestamp::with_fraction_digits(Utc::now() + chrono::Duration::milliseconds(millis), 3)
}

/// A record for `principal` living `millis`.
pub(crate) fn record(bytes: Vec<u8>, principal: &str, millis: i64) -> Record {
    Record::new(bytes, "application/json", principal, in_millis(0), in_millis(millis))
}

/// Bytes of `len` from a small deterministic generator seeded with `seed`.
pub(crate) fn pattern(seed: u64, len: usize) -> Vec<u8> {
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
pub(crate) async fn behaviour_suite(store: &dyn ResultStore) {
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

    // Replace puts a record in the place of a live one (a task's state moving on), more than
    // 1 MiB across the redb chunks and back to a few bytes, and never creates one.
    let first = record(b"working".to_vec(), "p", 3_600_000);
    let task = store.put(first.clone()).await.unwrap();
    let mut current = first;
    for bytes in [pattern(7, (1 << 20) + 5), b"completed".to_vec()] {
        let next = record(bytes, "p", 3_600_000);
        assert!(store.replace(task, &current, next.clone()).await.unwrap(), "{}", store.backend());
        assert_eq!(store.get(task).await.unwrap(), Some(next.clone()));
        current = next;
    }
    // Compare and set: a writer holding what it read before another writer came first stores
    // nothing (a cancel on one node against a result on another), large records too.
    let stale = record(b"working".to_vec(), "p", 3_600_000);
    let cancelled = record(b"cancelled".to_vec(), "p", 3_600_000);
    assert!(!store.replace(task, &stale, cancelled).await.unwrap(), "{}", store.backend());
    assert_eq!(store.get(task).await.unwrap(), Some(current.clone()));
    let large = record(pattern(9, (1 << 20) + 5), "p", 3_600_000);
    assert!(store.replace(task, &current, large.clone()).await.unwrap());
    let read_before = current;
    assert!(!store.replace(task, &read_before, stale.clone()).await.unwrap());
    assert_eq!(store.get(task).await.unwrap(), Some(large));
    assert!(!store.replace(unknown, &stale, record(b"x".to_vec(), "p", 60_000)).await.unwrap());
    assert_eq!(store.get(unknown).await.unwrap(), None);
    assert!(store.delete(task).await.unwrap());
    assert!(!store.replace(task, &stale, record(b"x".to_vec(), "p", 60_000)).await.unwrap());
    assert_eq!(store.get(task).await.unwrap(), None);

    // A record that has already expired is refused.
    let stale = record(b"x".to_vec(), "p", -60_000);
    let err = store.put(stale.clone()).await.unwrap_err();
    assert_eq!(err.to_string(), format!("record already expired at {}", stale.expires));
    // The sweep leaves live records alone.
    store.sweep().await.unwrap();
    assert!(store.get(id).await.unwrap().is_some());
    assert!(store.get(empty_id).await.unwrap().is_some());
}

/// Expiry on a store reading `clock`: a short-lived record is there until the clock reaches its
/// expiry and never after, sweep or no sweep; the sweep removes exactly the expired record.
pub(crate) async fn expiry_suite(store: &dyn ResultStore, clock: &ManualClock) {
    let long = store.put(clock.record(b"long".to_vec(), "p", 3_600_000)).await.unwrap();
    let short = clock.record(b"short".to_vec(), "p", 2000);
    let short_id = store.put(short.clone()).await.unwrap();
    assert_eq!(store.get(short_id).await.unwrap(), Some(short));
    clock.advance(1999);
    assert!(store.get(short_id).await.unwrap().is_some(), "{}: expired early", store.backend());
    clock.advance(1);
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
        assert!(!store.delete(short_id).await.unwrap());
    }
    assert_eq!(store.get(short_id).await.unwrap(), None);
    assert!(store.get(long).await.unwrap().is_some());
    // An expired record is never brought back by a replace.
    let working = clock.record(b"working".to_vec(), "p", 1000);
    let fading = store.put(working.clone()).await.unwrap();
    clock.advance(1000);
    let later = clock.record(b"completed".to_vec(), "p", 60_000);
    assert!(!store.replace(fading, &working, later).await.unwrap(), "{}", store.backend());
    assert_eq!(store.get(fading).await.unwrap(), None);
    // What expired by the clock is refused by the clock.
    let stale = clock.record(b"x".to_vec(), "p", 0);
    assert!(matches!(
        store.put(stale).await,
        Err(toolwire_store::StoreError::AlreadyExpired { .. })
    ));
}

/// 64 tasks put and read 1 MiB records at once; every record comes back intact.
pub(crate) async fn concurrency_suite(store: std::sync::Arc<dyn ResultStore>) {
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
