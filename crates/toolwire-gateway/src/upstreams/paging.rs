//! Reading an upstream's paginated lists (tools, resources, templates, prompts) within bounds.
//! rmcp's `list_all_*` follow the cursor for as long as the upstream gives one and keep every
//! item; an upstream is an untrusted peer, so the gateway reads page by page and stops at a
//! number of pages, of items and of bytes, keeping the first items and saying so in the log.

use std::future::Future;

use rmcp::service::ServiceError;
use serde::Serialize;

use super::connect::CONNECT_LIMIT;

/// The most pages of one list read in one listing: an upstream whose cursor never ends is read
/// no further.
pub(super) const MAX_PAGES: usize = 200;

/// How much of one list is kept.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    /// The most items.
    pub(super) items: usize,
    /// The most JSON the items may take together.
    pub(super) bytes: usize,
}

/// The items of the paginated list `method` (`tools/list`, …) that `admit` lets in, read
/// through `page` (which asks for the page after a cursor, `None` for the first, and gives its
/// items and the next cursor), within `bounds`, [`MAX_PAGES`] and [`CONNECT_LIMIT`] for the
/// whole listing. A list longer than that is cut with a warning naming the upstream and the
/// method; the first items are kept. The error says which listing failed and why.
pub(super) async fn read<T, F, Fut>(
    upstream: &str,
    method: &'static str,
    bounds: Bounds,
    page: F,
    admit: impl Fn(&T) -> bool,
) -> Result<Vec<T>, String>
where
    T: Serialize,
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    tokio::time::timeout(CONNECT_LIMIT, pages(upstream, method, bounds, page, admit))
        .await
        .map_err(|_| format!("{method}: no answer within {} s", CONNECT_LIMIT.as_secs()))?
        .map_err(|e| format!("{method} failed: {e}"))
}

/// [`read`] without its time limit.
async fn pages<T, F, Fut>(
    upstream: &str,
    what: &'static str,
    bounds: Bounds,
    mut page: F,
    admit: impl Fn(&T) -> bool,
) -> Result<Vec<T>, ServiceError>
where
    T: Serialize,
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut kept = Vec::new();
    let mut bytes = 0usize;
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let (items, next) = page(cursor).await?;
        for item in items.into_iter().filter(|item| admit(item)) {
            bytes = bytes.saturating_add(json_len(&item));
            if kept.len() == bounds.items || bytes > bounds.bytes {
                tracing::warn!(
                    upstream,
                    list = what,
                    kept = kept.len(),
                    max_items = bounds.items,
                    max_bytes = bounds.bytes,
                    "the upstream lists more than the gateway keeps; the first ones are served"
                );
                return Ok(kept);
            }
            kept.push(item);
        }
        cursor = next;
        if cursor.is_none() {
            return Ok(kept);
        }
    }
    tracing::warn!(
        upstream,
        list = what,
        pages = MAX_PAGES,
        "the upstream's list has more pages than are read; the items of the first ones are served"
    );
    Ok(kept)
}

/// The length of `item` as JSON, counted without writing it anywhere; one that cannot be
/// written counts as too large to keep.
fn json_len(item: &impl Serialize) -> usize {
    /// Counts what is written to it.
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, item) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A list of `total` numbers in pages of `size`, the cursor the next index.
    async fn numbers(
        cursor: Option<String>,
        size: usize,
        total: usize,
    ) -> Result<(Vec<usize>, Option<String>), ServiceError> {
        let start: usize = cursor.map_or(0, |c| c.parse().unwrap());
        let end = (start + size).min(total);
        Ok(((start..end).collect(), (end < total).then(|| end.to_string())))
    }

    const WIDE: Bounds = Bounds { items: usize::MAX, bytes: usize::MAX };

    #[tokio::test]
    async fn a_list_within_its_bounds_is_read_whole_and_filtered() {
        let read = pages("u", "things", WIDE, |c| numbers(c, 7, 50), |n| n % 2 == 0).await;
        assert_eq!(read.unwrap(), (0..50).filter(|n| n % 2 == 0).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn a_list_is_cut_at_its_items_bytes_and_pages() {
        let few = Bounds { items: 10, bytes: usize::MAX };
        let read_few = pages("u", "things", few, |c| numbers(c, 7, 50), |_| true).await;
        assert_eq!(read_few.unwrap(), (0..10).collect::<Vec<_>>());
        // Each number below 10 is one byte of JSON.
        let small = Bounds { items: usize::MAX, bytes: 5 };
        let read_small = pages("u", "things", small, |c| numbers(c, 7, 50), |_| true).await;
        assert_eq!(read_small.unwrap(), (0..5).collect::<Vec<_>>());
        // A cursor that never ends: one item a page, the pages counted.
        let endless = pages("u", "things", WIDE, |c| numbers(c, 1, usize::MAX), |_| true).await;
        assert_eq!(endless.unwrap().len(), MAX_PAGES);
    }
}
