//! The data directory is private (DESIGN §12): created 0700, `results.redb` and
//! `signing-keys.json` 0600 whatever the umask; a key file left empty by a crash is replaced,
//! one with unreadable content is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use toolwire_store::{KEYS_FILE, KeyError, KeySet, RESULTS_FILE, RedbStore};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn the_data_directory_and_its_files_are_private() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    let _store = RedbStore::open(&dir).await.unwrap();
    KeySet::load_or_generate(&dir).unwrap();
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(RESULTS_FILE)), 0o600);
    assert_eq!(mode(&dir.join(KEYS_FILE)), 0o600);
}

#[tokio::test]
async fn a_readable_results_file_from_before_is_narrowed() {
    let dir = tempfile::tempdir().unwrap();
    drop(RedbStore::open(dir.path()).await.unwrap());
    let file = dir.path().join(RESULTS_FILE);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let _store = RedbStore::open(dir.path()).await.unwrap();
    assert_eq!(mode(&file), 0o600);
}

#[test]
fn an_empty_key_file_is_replaced_by_a_new_key() {
    for left in ["", "\n", "  ", r#"{"keys": []}"#] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEYS_FILE);
        std::fs::write(&path, left).unwrap();
        let keys = KeySet::load_or_generate(dir.path()).unwrap();
        assert_eq!(keys.keys().len(), 1);
        assert_eq!(mode(&path), 0o600);
        // What was written is what the next start reads.
        assert_eq!(KeySet::load_or_generate(dir.path()).unwrap(), keys);
        assert!(!dir.path().join("signing-keys.json.new").exists());
    }
}

#[test]
fn a_key_file_with_unreadable_content_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(KEYS_FILE);
    let truncated = r#"{"keys": [{"kid": "k1", "secr"#;
    std::fs::write(&path, truncated).unwrap();
    let err = KeySet::load_or_generate(dir.path()).unwrap_err();
    assert!(matches!(err, KeyError::Json { .. }), "{err:?}");
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    // Left as it was: it may hold the only copy of a key.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), truncated);
}
