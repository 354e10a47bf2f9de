//! The store several nodes share: Redis (`redis://…`), with Redis's own expiry (`SET … PX`), so
//! there is nothing to sweep. One reconnecting connection serves every call; when Redis goes away
//! and comes back, calls work again without restarting toolwire.
//!
//! Quotas hold across every node: each scope (all records, one principal) has a sorted set of
//! `<id>:<size>` members scored by expiry and a byte counter, updated by one Lua script with the
//! record's `SET`, so check and write are atomic. Members past their expiry are pruned (and their
//! bytes given back) before each check; both keys expire with the scope's last record.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisError};

use crate::quota::{Quota, QuotaScope, exceeded};
use crate::record::{Record, RecordId};
use crate::store::{Clock, ResultStore, StoreError, StoreFuture, system_clock};

/// Every key toolwire writes starts with this.
pub const KEY_PREFIX: &str = "toolwire:result:";
/// Prefix of the quota keys (`…all`, `…all:bytes`, `…p:<principal>`, `…p:<principal>:bytes`).
pub(crate) const USAGE_PREFIX: &str = "toolwire:usage:";

/// The Lua function both writing scripts start with: drops the members of a scope's set that
/// expired by `now` and gives their bytes back; returns the scope's bytes in use.
macro_rules! prune_function {
    () => {
        r"
local now, size = ARGV[3], tonumber(ARGV[6])
local function prune(set, sum)
  local gone = redis.call('ZRANGEBYSCORE', set, '-inf', now)
  if #gone > 0 then
    local freed = 0
    for _, member in ipairs(gone) do freed = freed + tonumber(string.match(member, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
    redis.call('DECRBY', sum, freed)
  end
  return tonumber(redis.call('GET', sum) or '0')
end
local function count(scopes)
  for _, pair in ipairs(scopes) do
    redis.call('ZADD', pair[1], ARGV[4], ARGV[5])
    redis.call('INCRBY', pair[2], size)
    local last = redis.call('ZRANGE', pair[1], -1, -1, 'WITHSCORES')[2]
    redis.call('PEXPIREAT', pair[1], last)
    redis.call('PEXPIREAT', pair[2], last)
  end
end
"
    };
}

/// Prunes expired members of both scopes, checks both quotas, stores the record (`NX`) and
/// counts it. Returns `{0, used}` (total quota), `{1, used}` (principal quota), `{2, 0}` (id
/// taken) or `{3, 0}` (stored).
const PUT_SCRIPT: &str = concat!(
    prune_function!(),
    r"
local all = prune(KEYS[2], KEYS[3])
if all + size > tonumber(ARGV[7]) then return {0, all} end
local mine = prune(KEYS[4], KEYS[5])
if mine + size > tonumber(ARGV[8]) then return {1, mine} end
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {2, 0} end
count({{KEYS[2], KEYS[3]}, {KEYS[4], KEYS[5]}})
return {3, 0}
"
);

/// Like `PUT_SCRIPT`, in place of a live record whose member (`ARGV[9]`) and size (`ARGV[10]`)
/// are given back when it is stored: `{4, 0}` when the record is not the bytes the caller read
/// (`ARGV[11]`) any more — gone, or written by another node since (compare and set).
const REPLACE_SCRIPT: &str = concat!(
    prune_function!(),
    r"
if redis.call('GET', KEYS[1]) ~= ARGV[11] then return {4, 0} end
local old = tonumber(ARGV[10])
local function without_old(set, sum)
  local used = prune(set, sum)
  if redis.call('ZSCORE', set, ARGV[9]) then used = used - old end
  return used
end
local all = without_old(KEYS[2], KEYS[3])
if all + size > tonumber(ARGV[7]) then return {0, all} end
local mine = without_old(KEYS[4], KEYS[5])
if mine + size > tonumber(ARGV[8]) then return {1, mine} end
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'XX') then return {4, 0} end
for _, pair in ipairs({{KEYS[2], KEYS[3]}, {KEYS[4], KEYS[5]}}) do
  if redis.call('ZREM', pair[1], ARGV[9]) == 1 then redis.call('DECRBY', pair[2], old) end
end
count({{KEYS[2], KEYS[3]}, {KEYS[4], KEYS[5]}})
return {3, 0}
"
);

/// Deletes the record and gives its bytes back to both scopes (only when it was there).
const DELETE_SCRIPT: &str = r"
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
for _, pair in ipairs({{KEYS[2], KEYS[3]}, {KEYS[4], KEYS[5]}}) do
  if redis.call('ZREM', pair[1], ARGV[1]) == 1 then redis.call('DECRBY', pair[2], ARGV[2]) end
end
return 1
";

/// The Redis store.
#[derive(Clone)]
pub struct RedisStore {
    url: String,
    connection: ConnectionManager,
    quota: Quota,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("url", &self.url).finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to `url` (`redis://[user:password@]host[:port][/db]` or `rediss://…`). Fails
    /// when Redis cannot be reached now; later outages only fail the calls made during them.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, None, Quota::default()).await
    }

    /// Connects to `url` with `quota` (which every node sharing the Redis should agree on).
    pub async fn connect_with_quota(url: &str, quota: Quota) -> Result<Self, StoreError> {
        Self::connect_with(url, None, quota).await
    }

    /// Like [`RedisStore::connect`]; for `rediss://`, `ca_pem` (PEM CA certificates), when
    /// given, is trusted instead of the system roots. TLS uses the process's default rustls
    /// crypto provider, which the program installs.
    pub async fn connect_with_ca(url: &str, ca_pem: Option<&[u8]>) -> Result<Self, StoreError> {
        Self::connect_with(url, ca_pem, Quota::default()).await
    }

    /// Connects with both a CA (see [`RedisStore::connect_with_ca`]) and a quota.
    pub async fn connect_with(
        url: &str,
        ca_pem: Option<&[u8]>,
        quota: Quota,
    ) -> Result<Self, StoreError> {
        let shown = hide_password(url);
        // TCP_NODELAY: a command is one small write that must not wait for a delayed ACK.
        let info = redis::IntoConnectionInfo::into_connection_info(url)
            .map_err(|source| StoreError::RedisUrl { url: shown.clone(), source })?
            .set_tcp_settings(redis::io::tcp::TcpSettings::default().set_nodelay(true));
        let client = match ca_pem {
            Some(pem) => Client::build_with_tls(
                info,
                redis::TlsCertificates { client_tls: None, root_cert: Some(pem.to_vec()) },
            ),
            None => Client::open(info),
        }
        .map_err(|source| StoreError::RedisUrl { url: shown.clone(), source })?;
        // Few, short reconnection attempts: a call during an outage should fail within about a
        // second with a clear error rather than hang; the next call tries again.
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(200))
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(10)));
        let connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|source| StoreError::Redis { url: shown.clone(), source })?;
        Ok(Self { url: shown, connection, quota, clock: system_clock() })
    }

    /// The same store reading time from `clock` instead of the system clock: the TTL of a new
    /// record, the quota's pruning and the expiry check of `get` use it (Redis itself still
    /// expires keys by its own clock).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    fn error(&self, source: RedisError) -> StoreError {
        StoreError::Redis { url: self.url.clone(), source }
    }

    /// Runs a command, once more when the connection had dropped: the first call after Redis
    /// came back meets the dead connection and starts the reconnection; the second uses the new
    /// one. Every command used here is safe to repeat.
    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        match cmd.query_async(&mut connection).await {
            Ok(value) => Ok(value),
            Err(err) if err.is_unrecoverable_error() || err.is_io_error() => {
                cmd.query_async(&mut connection).await.map_err(|err| self.error(err))
            }
            Err(err) => Err(self.error(err)),
        }
    }
}

fn key(id: RecordId) -> String {
    format!("{KEY_PREFIX}{id}")
}

/// The record key and the four quota keys of `principal`, in the scripts' `KEYS` order.
fn keys(id: RecordId, principal: &str) -> [String; 5] {
    [
        key(id),
        format!("{USAGE_PREFIX}all"),
        format!("{USAGE_PREFIX}all:bytes"),
        format!("{USAGE_PREFIX}p:{principal}"),
        format!("{USAGE_PREFIX}p:{principal}:bytes"),
    ]
}

fn eval(script: &str, keys: &[String]) -> redis::Cmd {
    let mut cmd = redis::cmd("EVAL");
    cmd.arg(script).arg(keys.len()).arg(keys);
    cmd
}

/// The URL as it may appear in logs and errors: a password is replaced by `***`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let userinfo = &rest[..at];
            let user = userinfo.split_once(':').map_or("", |(user, _)| user);
            let hidden = if userinfo.contains(':') { format!("{user}:***") } else { "***".into() };
            format!("{scheme}://{hidden}{}", &rest[at..])
        }
        None => url.to_owned(),
    }
}

/// A record as the writing scripts take it: its encoded form, and what its quota members say.
struct Written {
    bytes: Vec<u8>,
    principal: String,
    size: u64,
    ttl: u64,
    now: i64,
    expires: i64,
}

impl Written {
    /// `record` encoded at `now`; refused when it has already expired.
    fn of(record: Record, now: chrono::DateTime<chrono::Utc>) -> Result<Self, StoreError> {
        let ttl = record.millis_left_at(now);
        if ttl == 0 {
            return Err(StoreError::AlreadyExpired { expires: record.expires.to_string() });
        }
        let bytes = record.encode();
        let size = record.size();
        let expires = record.expires.datetime().timestamp_millis();
        // The encoded form replaces the record: its bytes are held once from here on.
        let Record { principal, .. } = record;
        Ok(Self { bytes, principal, size, ttl, now: now.timestamp_millis(), expires })
    }

    /// `script` writing this record under `id`, with the arguments both scripts share.
    fn script(&self, script: &str, id: RecordId, quota: &Quota) -> redis::Cmd {
        let mut cmd = eval(script, &keys(id, &self.principal));
        cmd.arg(&self.bytes)
            .arg(self.ttl)
            .arg(self.now)
            .arg(self.expires)
            .arg(format!("{id}:{}", self.size))
            .arg(self.size)
            .arg(quota.total)
            .arg(quota.per_principal);
        cmd
    }
}

impl RedisStore {
    /// A writing script's outcome, with its two quota refusals as errors.
    fn outcome(&self, outcome: i64, used: i64, size: u64) -> Result<i64, StoreError> {
        let used = u64::try_from(used).unwrap_or(0);
        match outcome {
            0 => Err(exceeded(QuotaScope::Total, size, used, self.quota.total)),
            1 => Err(exceeded(QuotaScope::Principal, size, used, self.quota.per_principal)),
            other => Ok(other),
        }
    }
}

impl ResultStore for RedisStore {
    fn put(&self, record: Record) -> StoreFuture<'_, RecordId> {
        Box::pin(async move {
            let written = Written::of(record, self.clock.now())?;
            loop {
                let id = RecordId::generate().map_err(StoreError::Random)?;
                let cmd = written.script(PUT_SCRIPT, id, &self.quota);
                let (outcome, used): (i64, i64) = self.query(&cmd).await?;
                match self.outcome(outcome, used, written.size)? {
                    // NX: a (astronomically unlikely) id collision never overwrites a record.
                    2 => continue,
                    _ => return Ok(id),
                }
            }
        })
    }

    fn replace<'a>(
        &'a self,
        id: RecordId,
        current: &'a Record,
        record: Record,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let written = Written::of(record, self.clock.now())?;
            let bytes: Option<Vec<u8>> = self.query(redis::cmd("GET").arg(key(id))).await?;
            let Some(bytes) = bytes else { return Ok(false) };
            let Some(old) = Record::decode(&bytes) else { return Ok(false) };
            // Expired by our clock though Redis still has it (skew), or another principal's: a
            // record keeps its principal, whose scope counts its bytes. Not the record the
            // caller read: another writer came first.
            if old.is_expired_at(self.clock.now())
                || old.principal != written.principal
                || old != *current
            {
                return Ok(false);
            }
            let old_size = old.size();
            let mut cmd = written.script(REPLACE_SCRIPT, id, &self.quota);
            // The script writes only while the record is still these bytes.
            cmd.arg(format!("{id}:{old_size}")).arg(old_size).arg(bytes);
            let (outcome, used): (i64, i64) = self.query(&cmd).await?;
            Ok(self.outcome(outcome, used, written.size)? == 3)
        })
    }

    fn get(&self, id: RecordId) -> StoreFuture<'_, Option<Record>> {
        Box::pin(async move {
            let bytes: Option<Vec<u8>> = self.query(redis::cmd("GET").arg(key(id))).await?;
            let Some(bytes) = bytes else { return Ok(None) };
            let record = Record::decode(&bytes).ok_or(StoreError::Corrupt { id })?;
            // Redis expires keys itself; this check covers clock skew between Redis and us.
            Ok((!record.is_expired_at(self.clock.now())).then_some(record))
        })
    }

    fn delete(&self, id: RecordId) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            let bytes: Option<Vec<u8>> = self.query(redis::cmd("GET").arg(key(id))).await?;
            let Some(bytes) = bytes else { return Ok(false) };
            let Some(record) = Record::decode(&bytes) else {
                // Not a record of ours: nothing was counted for it.
                let removed: i64 = self.query(redis::cmd("DEL").arg(key(id))).await?;
                return Ok(removed > 0);
            };
            let size = record.size();
            let mut cmd = eval(DELETE_SCRIPT, &keys(id, &record.principal));
            cmd.arg(format!("{id}:{size}")).arg(size);
            let removed: i64 = self.query(&cmd).await?;
            Ok(removed > 0)
        })
    }

    fn sweep(&self) -> StoreFuture<'_, usize> {
        Box::pin(async { Ok(0) })
    }

    fn backend(&self) -> &'static str {
        "redis"
    }
}

#[cfg(test)]
mod tests {
    use super::hide_password;

    #[test]
    fn passwords_never_show() {
        assert_eq!(hide_password("redis://127.0.0.1:6379/0"), "redis://127.0.0.1:6379/0");
        assert_eq!(hide_password("redis://:s3cret@host:6379"), "redis://:***@host:6379");
        assert_eq!(hide_password("redis://me:s3cret@host/2"), "redis://me:***@host/2");
        assert_eq!(hide_password("rediss://token@host"), "rediss://***@host");
        assert_eq!(hide_password("not a url"), "not a url");
    }
}
