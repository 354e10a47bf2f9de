//! What an over-limit render hands back ([`NeedsOffload`]) and the three ways to finish it: with
//! the stored link, after a failed store, or inline anyway. A caller that will not send it
//! inline splits it first ([`NeedsOffload::into_stub`]), so that only the v1 bytes are held while
//! the store works.

use super::stub::StubPlan;
use super::{MAX_INLINE, Output, RenderError};
use crate::error::{ErrorCode, ToolError};
use crate::link::StoredLink;
use crate::result::ToolResult;

/// What a render produced.
#[derive(Debug)]
pub enum Rendered {
    /// The result fits (or the target has no limit).
    Complete(Output),
    /// The result is over the limit: store [`NeedsOffload::v1_bytes`] and call
    /// [`NeedsOffload::finish`] with the link.
    NeedsOffload(NeedsOffload),
}

/// A result over its target's limit, waiting for the caller to store it.
#[derive(Debug)]
pub struct NeedsOffload {
    v1: Vec<u8>,
    full: Output,
    stub: PendingStub,
}

/// What finishes an offload once the v1 bytes are taken ([`NeedsOffload::into_stub`]): the stub
/// or the store failure, without the full render.
#[derive(Debug)]
pub struct PendingStub {
    limit: usize,
    size: usize,
    warnings: Vec<String>,
    // Boxed: an offload is rare and `Rendered` stays small.
    plan: Box<StubPlan>,
}

impl NeedsOffload {
    pub(super) fn new(v1: Vec<u8>, limit: usize, full: Output, plan: Box<StubPlan>) -> Self {
        let stub = PendingStub { limit, size: full.size(), warnings: full.warnings.clone(), plan };
        Self { v1, full, stub }
    }

    /// The whole result in the v1 form (generation time filled): what to store.
    pub fn v1_bytes(&self) -> &[u8] {
        &self.v1
    }

    /// The rendered size that did not fit.
    pub fn size(&self) -> usize {
        self.stub.size
    }

    /// The target's limit.
    pub fn limit(&self) -> usize {
        self.stub.limit
    }

    /// The MIME type of [`NeedsOffload::v1_bytes`].
    pub fn mime_type(&self) -> &str {
        "application/json"
    }

    /// The v1 bytes, moved out to be stored, and what finishes the stub. The full render is
    /// dropped, so the result is not held twice while the store works: for a caller that will
    /// not send it inline.
    pub fn into_stub(self) -> (Vec<u8>, PendingStub) {
        (self.v1, self.stub)
    }

    /// Renders the stub that points at `link`: see [`PendingStub::finish`].
    pub fn finish(self, link: StoredLink) -> Result<Output, RenderError> {
        self.stub.finish(link)
    }

    /// The result when storing failed: see [`PendingStub::store_failed`].
    pub fn store_failed(self, why: StoreRefusal) -> Output {
        self.stub.store_failed(why)
    }

    /// The full render, sent inline anyway (`offload_fallback = "inline"`), with a warning;
    /// refused over 15 MiB.
    pub fn inline(self) -> Result<Output, RenderError> {
        let size = self.size();
        if size > MAX_INLINE {
            return Err(RenderError::InlineTooLarge { size });
        }
        let mut full = self.full;
        full.warnings.push(format!(
            "result of {size} bytes exceeds the limit of {} bytes and was sent inline",
            self.stub.limit
        ));
        Ok(full)
    }
}

impl PendingStub {
    /// The rendered size that did not fit.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Renders the stub that points at `link` (DESIGN §4): E on failure, S cut to 1 KiB or a
    /// one-line note, the link, the size that did not fit, the echoed query cut to 1 KiB, the
    /// timestamps. A success of a tool that publishes an outputSchema becomes a
    /// `result_too_large` failure.
    pub fn finish(self, link: StoredLink) -> Result<Output, RenderError> {
        let plan = &self.plan;
        let mut smallest = usize::MAX;
        for level in 0..3 {
            let stub = plan.stub(&link, self.size, self.limit, level);
            let is_error = stub.is_failure();
            let (body, stub_size) = plan.render(stub);
            if stub_size <= self.limit {
                let mut output = Output::new(body, stub_size, is_error, self.warnings);
                output.offloaded = true;
                return Ok(output);
            }
            smallest = smallest.min(stub_size);
        }
        Err(RenderError::StubTooLarge { target: plan.target, size: smallest, limit: self.limit })
    }

    /// The result when storing failed: a `tool_error` failure "result of N bytes exceeds the
    /// limit of L bytes and could not be stored: " and what happened ([`StoreRefusal`]).
    pub fn store_failed(self, why: StoreRefusal) -> Output {
        let plan = &self.plan;
        let message = format!(
            "result of {} bytes exceeds the limit of {} bytes and could not be stored: {why}",
            self.size, self.limit
        );
        let mut failure = ToolResult::failure(ToolError::new(ErrorCode::ToolError, message));
        failure.meta.generated_at = Some(plan.generated_at);
        let (body, size) = plan.render(failure);
        Output::new(body, size, true, self.warnings)
    }
}

/// Why a result could not be stored, as its caller is told: a full quota is not an outage, and
/// only one of them passes by trying again soon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreRefusal {
    /// The store failed or could not be reached.
    Unavailable,
    /// The calling principal's share of the store is full.
    PrincipalQuotaFull,
    /// The store as a whole is full.
    TotalQuotaFull,
}

impl std::fmt::Display for StoreRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unavailable => "the result store is unavailable; try again later",
            Self::PrincipalQuotaFull => {
                "the stored-result quota of this principal is full; space frees as its stored results expire"
            }
            Self::TotalQuotaFull => {
                "the result store is full; space frees as stored results expire"
            }
        })
    }
}
