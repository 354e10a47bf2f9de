//! Work placement (DESIGN §12): parsing an app answer and validating and rendering a result of
//! [`LARGE`] bytes or more run on tokio's blocking pool, behind the places of one [`Work`] (one
//! per gateway, held by its `GatewayConfig`). A small call then never waits on the async workers
//! behind a large one, and only as many large jobs as there are places hold their working memory
//! at once.
//!
//! A large answer's memory lasts longer than its parsing: its data waits to be rendered, its v1
//! bytes to be stored. So a call also takes a place among the [large calls](Work::admit_large)
//! before it reads a large answer, and keeps it until the call ends ([`CallPlaces`]): the
//! answers of the calls that wait stay with their apps, unread, instead of piling up here.
//!
//! Nothing here is shared by the process: two gateways in one process have their own places,
//! and what a call holds travels with the call's [`CallContext`](crate::CallContext).

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use toolwire_core::{Part, ResourceContents, ToolResult};

/// From this many bytes of JSON on, work leaves the async workers.
pub const LARGE: usize = 64 * 1024;

/// Why work sent to the blocking pool brought no answer.
#[derive(Debug, thiserror::Error)]
#[error("the blocking task failed: {0}")]
pub struct WorkError(String);

/// The work limits of one gateway: how many large jobs run on the blocking pool at once, and
/// how many calls hold a large answer at once. Cheap to clone: clones share the places.
#[derive(Debug, Clone)]
pub struct Work {
    /// Places on the blocking pool.
    off_workers: Arc<Semaphore>,
    /// Places among the calls that read a large answer.
    large_calls: Arc<Semaphore>,
}

impl Default for Work {
    /// One place of each kind per core the process may use.
    fn default() -> Self {
        Self::new(std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN))
    }
}

impl Work {
    /// Limits with `places` large jobs on the blocking pool and `places` calls holding a large
    /// answer at once.
    pub fn new(places: NonZeroUsize) -> Self {
        Self {
            off_workers: Arc::new(Semaphore::new(places.get())),
            large_calls: Arc::new(Semaphore::new(places.get())),
        }
    }

    /// Waits for a place among the large calls before a large answer is read, and leaves it with
    /// `call`, which keeps it until the call ends. A call takes one place however often it asks.
    pub async fn admit_large(&self, call: &CallPlaces) -> Result<(), WorkError> {
        if call.holds() {
            return Ok(());
        }
        let permit = Arc::clone(&self.large_calls)
            .acquire_owned()
            .await
            .map_err(|e| WorkError(format!("no place: {e}")))?;
        call.keep(permit);
        Ok(())
    }

    /// Runs `work` on the blocking pool once one of these places is free.
    pub async fn off_workers<T, F>(&self, work: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let permit = Arc::clone(&self.off_workers)
            .acquire_owned()
            .await
            .map_err(|e| WorkError(format!("no permit: {e}")))?;
        tokio::task::spawn_blocking(move || {
            let answer = work();
            drop(permit);
            answer
        })
        .await
        .map_err(|e| WorkError(e.to_string()))
    }

    /// Runs `work` here when `large` is false, else as [`Work::off_workers`] does.
    pub async fn placed<T, F>(&self, large: bool, work: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        // Boxed, the rare path does not make every caller's future the size of its own.
        if large { Box::pin(self.off_workers(work)).await } else { Ok(work()) }
    }
}

/// The places one call holds among the large calls: made with the call, carried by its
/// [`CallContext`](crate::CallContext) (clones share them), given back when the last clone is
/// dropped — the server keeps one until the result is rendered and sent.
#[derive(Debug, Clone, Default)]
pub struct CallPlaces(Arc<Mutex<Option<OwnedSemaphorePermit>>>);

impl CallPlaces {
    /// Whether the call holds a place.
    pub fn holds(&self) -> bool {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }

    fn keep(&self, permit: OwnedSemaphorePermit) {
        // Two parts of one call racing for a place: the second one is given back here.
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(permit);
    }

    /// Gives back the place the call holds, if any: before it waits on something that may
    /// take long (a client asked for input). A later large answer asks again.
    pub fn give_back(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
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
        let work = Work::default();
        let free = || work.large_calls.available_permits();
        let all = free();
        let call = CallPlaces::default();
        let context = call.clone();
        assert!(work.admit_large(&context).await.is_ok());
        assert_eq!(free(), all - 1, "the call holds it");
        assert!(work.admit_large(&call).await.is_ok());
        assert_eq!(free(), all - 1, "one place per call");
        drop(context);
        assert_eq!(free(), all - 1, "kept while any part of the call lives");
        drop(call);
        assert_eq!(free(), all, "given back when the call ends");

        let call = CallPlaces::default();
        assert!(work.admit_large(&call).await.is_ok());
        call.give_back();
        assert!(!call.holds());
        assert_eq!(free(), all, "given back before a wait");
        let other = CallPlaces::default();
        assert!(work.admit_large(&other).await.is_ok());
        assert_eq!(free(), all - 1, "calls hold places of their own");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_off_the_workers_answers() {
        let work = Work::default();
        let answer = work.off_workers(|| 6 * 7).await.ok();
        assert_eq!(answer, Some(42));
        assert_eq!(work.placed(false, || 1).await.ok(), Some(1));
    }
}
