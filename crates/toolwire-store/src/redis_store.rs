//! The store several nodes share: Redis (`redis://…`), with Redis's own expiry (`SET … PX`), so
//! there is nothing to sweep. One reconnecting connection serves every call; when Redis goes away
//! and comes back, calls work again without restarting toolwire.

use std::time::Duration;

use chrono::Utc;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisError};

use crate::record::{Record, RecordId};
use crate::store::{ResultStore, StoreError, StoreFuture};

/// Every key toolwire writes starts with this.
pub const KEY_PREFIX: &str = "toolwire:result:";

/// The Redis store.
#[derive(Clone)]
pub struct RedisStore {
    url: String,
    connection: ConnectionManager,
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
        Self::connect_with_ca(url, None).await
    }

    /// Like [`RedisStore::connect`]; for `rediss://`, `ca_pem` (PEM CA certificates), when
    /// given, is trusted instead of the system roots. TLS uses the process's default rustls
    /// crypto provider, which the program installs.
    pub async fn connect_with_ca(url: &str, ca_pem: Option<&[u8]>) -> Result<Self, StoreError> {
        let shown = hide_password(url);
        let client = match ca_pem {
            Some(pem) => Client::build_with_tls(
                url,
                redis::TlsCertificates { client_tls: None, root_cert: Some(pem.to_vec()) },
            ),
            None => Client::open(url),
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
        Ok(Self { url: shown, connection })
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

impl ResultStore for RedisStore {
    fn put(&self, record: Record) -> StoreFuture<'_, RecordId> {
        Box::pin(async move {
            let ttl = record.millis_left_at(Utc::now());
            if ttl == 0 {
                return Err(StoreError::AlreadyExpired { expires: record.expires.to_string() });
            }
            let bytes = record.encode();
            loop {
                let id = RecordId::generate().map_err(StoreError::Random)?;
                // NX: a (astronomically unlikely) id collision never overwrites a record.
                let stored: Option<String> = self
                    .query(redis::cmd("SET").arg(key(id)).arg(&bytes).arg("PX").arg(ttl).arg("NX"))
                    .await?;
                if stored.is_some() {
                    return Ok(id);
                }
            }
        })
    }

    fn get(&self, id: RecordId) -> StoreFuture<'_, Option<Record>> {
        Box::pin(async move {
            let bytes: Option<Vec<u8>> = self.query(redis::cmd("GET").arg(key(id))).await?;
            let Some(bytes) = bytes else { return Ok(None) };
            let record = Record::decode(&bytes).ok_or(StoreError::Corrupt { id })?;
            // Redis expires keys itself; this check covers clock skew between Redis and us.
            Ok((!record.is_expired()).then_some(record))
        })
    }

    fn delete(&self, id: RecordId) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            let removed: i64 = self.query(redis::cmd("DEL").arg(key(id))).await?;
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
