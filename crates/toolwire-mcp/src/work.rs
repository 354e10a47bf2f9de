//! Work placement (DESIGN §12): parsing an app answer and validating and rendering a result of
//! [`LARGE`] bytes or more run on tokio's blocking pool, behind one semaphore shared by the
//! process. A small call then never waits on the async workers behind a large one, and only as
//! many large jobs as there are cores hold their working memory at once.
//!
//! A large answer's memory lasts longer than its parsing: its data waits to be rendered, its v1
//! bytes to be stored. So a call also takes a place among the [large calls](admit_large) before
//! it reads a large answer, and keeps it until the call ends ([`for_the_call`]): the answers of
//! the calls that wait stay with their apps, unread, instead of piling up here.

use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use toolwire_core::{Part, ResourceContents, ToolResult};

/// From this many bytes of JSON on, work leaves the async workers.
pub const LARGE: usize = 64 * 1024;

/// Why work sent to the blocking pool brought no answer.
#[derive(Debug, thiserror::Error)]
#[error("the blocking task failed: {0}")]
pub struct WorkError(String);

fn permits() -> Arc<Semaphore> {
    static PERMITS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    PERMITS.get_or_init(|| Arc::new(Semaphore::new(cores()))).clone()
}

tokio::task_local! {
    /// The places among the large calls that the call running in this task holds.
    static HELD: std::cell::RefCell<Vec<OwnedSemaphorePermit>>;
}

fn large_calls() -> Arc<Semaphore> {
    static LARGE_CALLS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    LARGE_CALLS.get_or_init(|| Arc::new(Semaphore::new(cores()))).clone()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Runs one call with room for what must last until it ends: the place [`admit_large`] takes.
pub async fn for_the_call<F: Future>(call: F) -> F::Output {
    HELD.scope(std::cell::RefCell::new(Vec::new()), call).await
}

/// A place among the large calls that the caller holds itself (outside [`for_the_call`]).
#[derive(Debug)]
#[must_use = "the place is given back when this is dropped"]
pub struct LargePlace {
    _permit: Option<OwnedSemaphorePermit>,
}

/// Waits for a place among the large calls, one per core, before a large answer is read. Inside
/// [`for_the_call`] the place lasts until the call ends (the returned value is empty); outside
/// it, until the returned value is dropped. A call takes one place however often it asks.
pub async fn admit_large() -> Result<LargePlace, WorkError> {
    if HELD.try_with(|held| !held.borrow().is_empty()).unwrap_or(false) {
        return Ok(LargePlace { _permit: None });
    }
    let permit =
        large_calls().acquire_owned().await.map_err(|e| WorkError(format!("no place: {e}")))?;
    let mut permit = Some(permit);
    let kept = HELD.try_with(|held| held.borrow_mut().extend(permit.take())).is_ok();
    Ok(LargePlace { _permit: if kept { None } else { permit } })
}

/// Gives back the place this call holds among the large calls, if any: before it waits on
/// something that may take long (a client asked for input). A later large answer asks again.
pub fn give_back_large() {
    let _ = HELD.try_with(|held| held.borrow_mut().clear());
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
    // Boxed, the rare path does not make every caller's future the size of its own.
    if large { Box::pin(off_workers(work)).await } else { Ok(work()) }
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

    #[tokio::test]
    async fn a_large_call_keeps_its_place_until_it_ends() {
        let free = || large_calls().available_permits();
        let all = free();
        for_the_call(async {
            drop(admit_large().await);
            assert_eq!(free(), all - 1, "the call holds it, not the returned value");
            drop(admit_large().await);
            assert_eq!(free(), all - 1, "one place per call");
        })
        .await;
        assert_eq!(free(), all, "given back when the call ends");
        for_the_call(async {
            drop(admit_large().await);
            give_back_large();
            assert_eq!(free(), all, "given back before a wait");
        })
        .await;
        let outside = admit_large().await;
        assert!(outside.is_ok());
        assert_eq!(free(), all - 1, "outside a call the returned value holds it");
        drop(outside);
        assert_eq!(free(), all);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_off_the_workers_answers() {
        let answer = off_workers(|| 6 * 7).await.ok();
        assert_eq!(answer, Some(42));
        assert_eq!(placed(false, || 1).await.ok(), Some(1));
    }
}
