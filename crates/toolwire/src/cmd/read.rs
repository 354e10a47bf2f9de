//! `toolwire read URI --data-dir DIR [--principal P]`: prints the data of a stored result (the
//! `contents[0].text` of its `resources/read`), `null` when it has none. Every refusal — a bad
//! or tampered link, an expired one, another principal's, a missing record — exits 1 with
//! `not found`.

use std::path::PathBuf;

use chrono::Utc;
use toolwire_core::McpRevision;
use toolwire_store::{
    KEYS_FILE, KeyError, KeySet, LinkSigner, RESULTS_FILE, ReadError, RedbOptions, RedbStore,
    StoreError, StoredResults,
};

use super::{Failure, print_line};

/// The arguments of `toolwire read`.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
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
pub fn run(args: ReadArgs) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| Failure::check(format!("cannot start the runtime: {err}")))?;
    let data = runtime.block_on(read(&args))?;
    print_line(&data)
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
