//! Work placement (DESIGN §12): parsing an app answer and validating and rendering a result of
//! [`LARGE`] bytes or more run on tokio's blocking pool, behind one semaphore shared by the
//! process. A small call then never waits on the async workers behind a large one, and only as
//! many large jobs as there are cores hold their working memory at once.

use std::sync::{Arc, OnceLock};

use tokio::sync::Semaphore;
use toolwire_core::{Part, ResourceContents, ToolResult};

/// From this many bytes of JSON on, work leaves the async workers.
pub const LARGE: usize = 64 * 1024;

/// Why work sent to the blocking pool brought no answer.
#[derive(Debug, thiserror::Error)]
#[error("the blocking task failed: {0}")]
pub struct WorkError(String);

fn permits() -> Arc<Semaphore> {
    static PERMITS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    PERMITS
        .get_or_init(|| {
            let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            Arc::new(Semaphore::new(cores))
        })
        .clone()
}

/// Runs `work` on the blocking pool once one of the process's permits is free.
pub async fn off_workers<T, F>(work: F) -> Result<T, WorkError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let permit =
        permits().acquire_owned().await.map_err(|e| WorkError(format!("no permit: {e}")))?;
    tokio::task::spawn_blocking(move || {
        let answer = work();
        drop(permit);
        answer
    })
    .await
    .map_err(|e| WorkError(e.to_string()))
}

/// Runs `work` here when `large` is false, else as [`off_workers`] does.
pub async fn placed<T, F>(large: bool, work: F) -> Result<T, WorkError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if large { off_workers(work).await } else { Ok(work()) }
}

/// Whether the result's data and parts come to at least [`LARGE`] bytes of JSON, about (the
/// data's own text is measured; nothing is serialized).
pub fn is_large(result: &ToolResult) -> bool {
    let mut budget = LARGE;
    let parts = result.parts().iter().map(|part| match part {
        Part::Text(text) => text.text.len(),
        Part::Binary(binary) => binary.data.len() / 3 * 4,
        Part::EmbeddedResource(resource) => match &resource.contents {
            ResourceContents::Text(text) => text.len(),
            ResourceContents::Blob(blob) => blob.len() / 3 * 4,
            _ => 0,
        },
        _ => 0,
    });
    for size in parts.chain(result.summary().map(str::len)) {
        if spend(&mut budget, size) {
            return true;
        }
    }
    result.data_json().is_some_and(|data| spend(&mut budget, data.len()))
}

/// Takes `size` from `budget`; true once it is spent.
fn spend(budget: &mut usize, size: usize) -> bool {
    *budget = budget.saturating_sub(size);
    *budget == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn large_means_about_64_kib_of_json() {
        let small = ToolResult::success(json!({"items": vec!["x".repeat(100); 100]}));
        assert!(!is_large(&small));
        let large = ToolResult::success(json!({"items": vec!["x".repeat(1000); 70]}));
        assert!(is_large(&large));
        let many = ToolResult::success(json!((0..20_000).collect::<Vec<u32>>()));
        assert!(is_large(&many));
        let image = ToolResult::builder().part(Part::binary(vec![0u8; 60_000], "image/png"));
        assert!(is_large(&image.build().unwrap_or_else(|_| ToolResult::empty())));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_off_the_workers_answers() {
        let answer = off_workers(|| 6 * 7).await.ok();
        assert_eq!(answer, Some(42));
        assert_eq!(placed(false, || 1).await.ok(), Some(1));
    }
}
