//! What an over-limit render hands back ([`NeedsOffload`]) and the three ways to finish it: with
//! the stored link, after a failed store, or inline anyway.

use super::stub::StubPlan;
use super::{MAX_INLINE, Output, RenderError};
use crate::error::{ErrorCode, ToolError};
use crate::link::StoredLink;
use crate::result::ToolResult;

/// What a render produced.
#[non_exhaustive]
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
    pub(super) v1: Vec<u8>,
    pub(super) limit: usize,
    pub(super) full: Output,
    // Boxed: an offload is rare and `Rendered` stays small.
    pub(super) plan: Box<StubPlan>,
}

impl NeedsOffload {
    /// The whole result in the v1 form (generation time filled): what to store.
    pub fn v1_bytes(&self) -> &[u8] {
        &self.v1
    }

    /// The rendered size that did not fit.
    pub fn size(&self) -> usize {
        self.full.size()
    }

    /// The target's limit.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The MIME type of [`NeedsOffload::v1_bytes`].
    pub fn mime_type(&self) -> &str {
        "application/json"
    }

    /// Renders the stub that points at `link` (DESIGN §4): E on failure, S cut to 1 KiB or a
    /// one-line note, the link, the size that did not fit, the echoed query cut to 1 KiB, the
    /// timestamps. A success of a tool that publishes an outputSchema becomes a
    /// `result_too_large` failure.
    pub fn finish(self, link: StoredLink) -> Result<Output, RenderError> {
        let size = self.size();
        let plan = &self.plan;
        let mut smallest = usize::MAX;
        for level in 0..3 {
            let stub = plan.stub(&link, size, self.limit, level);
            let is_error = stub.is_failure();
            let (body, stub_size) = plan.render(stub);
            if stub_size <= self.limit {
                let mut output = Output::new(body, stub_size, is_error, self.full.warnings.clone());
                output.offloaded = true;
                return Ok(output);
            }
            smallest = smallest.min(stub_size);
        }
        Err(RenderError::StubTooLarge { target: plan.target, size: smallest, limit: self.limit })
    }

    /// The result when storing failed: a `tool_error` failure "result of N bytes exceeds the
    /// limit of L bytes and could not be stored".
    pub fn store_failed(self) -> Output {
        let plan = &self.plan;
        let message = format!(
            "result of {} bytes exceeds the limit of {} bytes and could not be stored",
            self.size(),
            self.limit
        );
        let mut failure = ToolResult::failure(ToolError::new(ErrorCode::ToolError, message));
        failure.meta.generated_at = Some(plan.generated_at);
        let (body, size) = plan.render(failure);
        Output::new(body, size, true, self.full.warnings)
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
            self.limit
        ));
        Ok(full)
    }
}
