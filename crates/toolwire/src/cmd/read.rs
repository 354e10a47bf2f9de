//! `toolwire read URI --data-dir DIR [--principal P]`: prints the data of a stored result (the
//! `contents[0].text` of its `resources/read`), `null` when it has none. Every refusal — a bad
//! or tampered link, an expired one, another principal's, a missing record — exits 1 with
//! `not found`.
//!
//! Also the data-directory offload of `toolwire render --data-dir` ([`offload_into`]), so both
//! commands open a data directory the same way.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::Utc;
use toolwire_core::McpRevision;
use toolwire_core::{NeedsOffload, Output, StoredLink};
use toolwire_store::{
    KEYS_FILE, KeyError, KeySet, LinkSigner, OffloadOptions, OpenError, RESULTS_FILE, ReadError,
    RedbOptions, RedbStore, StoreConfig, StoreError, StoredResults,
};

use super::{Failure, print_line};

/// The arguments of `toolwire read`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReadArgs {
    /// The link: `toolwire://results/<id>?exp=…&kid=…&sig=…`.
    pub uri: String,
    /// The data directory that holds `results.redb` and `signing-keys.json`.
    #[arg(long, value_name = "DIR")]
    pub data_dir: PathBuf,
    /// The principal the link was made for.
    #[arg(long, value_name = "P", default_value = "local")]
    pub principal: String,
}

/// Runs the command.
pub(crate) fn run(args: ReadArgs) -> Result<(), Failure> {
    let data = runtime()?.block_on(read(&args))?;
    print_line(&data)
}

/// Stores an over-limit render in the redb store of `dir` (keys from `TOOLWIRE_SIGNING_KEYS`,
/// else `signing-keys.json` there, created when missing) with a link for `principal` living
/// `ttl_seconds`, and returns the stub and its link (none when storing failed). A store that fails while storing gives the DESIGN §4
/// `tool_error` result (and a warning on standard error); a directory that cannot be opened
/// (held by a running server, unreadable keys) is a failure of the command.
pub(crate) fn offload_into(
    dir: &Path,
    needs: NeedsOffload,
    principal: &str,
    ttl_seconds: u64,
) -> Result<(Output, Option<StoredLink>), Failure> {
    runtime()?.block_on(async {
        let config = StoreConfig::Redb {
            data_dir: dir.to_owned(),
            options: RedbOptions::default().sweep_interval(None),
        };
        let results = StoredResults::open(&config, None).await.map_err(|err| match err {
            OpenError::Keys(err) => key_failure(err),
            OpenError::Store(err) => store_failure(err),
            other => Failure::check(other.to_string()),
        })?;
        let options = OffloadOptions::new(principal).ttl(Duration::from_secs(ttl_seconds));
        let offloaded = results
            .offload(needs, &options)
            .await
            .map_err(|err| Failure::input(format!("render: {err}")))?;
        if let Some(err) = offloaded.store_error {
            eprintln!("toolwire: warning: the result could not be stored: {err}");
        }
        Ok((offloaded.output, offloaded.link))
    })
}

/// A small single-threaded runtime: redb runs on its blocking pool.
fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| Failure::check(format!("cannot start the runtime: {err}")))
}

fn not_found() -> Failure {
    Failure::check("not found")
}

async fn read(args: &ReadArgs) -> Result<String, Failure> {
    // Reading never creates a data directory, a database or keys: without them nothing exists.
    if !args.data_dir.join(RESULTS_FILE).is_file() {
        return Err(not_found());
    }
    let keys = match KeySet::from_env().map_err(key_failure)? {
        Some(keys) => keys,
        None => {
            let path = args.data_dir.join(KEYS_FILE);
            if !path.is_file() {
                return Err(not_found());
            }
            KeySet::from_file(&path).map_err(key_failure)?
        }
    };
    // A one-shot reader leaves sweeping to the server.
    let options = RedbOptions::default().sweep_interval(None);
    let store =
        RedbStore::open_with(args.data_dir.clone(), options).await.map_err(store_failure)?;
    let results = StoredResults::new(std::sync::Arc::new(store), LinkSigner::new(keys));
    match results.read(&args.uri, &args.principal, McpRevision::V2025_11_25, Utc::now()).await {
        Ok(read) => Ok(read.data_json().unwrap_or("null").to_owned()),
        Err(ReadError::NotFound { .. }) => Err(not_found()),
        Err(ReadError::Store(err)) => Err(store_failure(err)),
        Err(err) => Err(Failure::check(err.to_string())),
    }
}

fn key_failure(err: KeyError) -> Failure {
    Failure::input(err.to_string())
}

fn store_failure(err: StoreError) -> Failure {
    Failure::check(err.to_string())
}
