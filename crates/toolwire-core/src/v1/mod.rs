//! The v1 serialized form (`toolwire.result.v1`) and its successor v2 (`toolwire.result.v2`
//! = v1 + an optional `inputRequired` `{requests, state, summary}`, DESIGN §10): the writer and
//! the strict parser of both. The writer emits v1 whenever v1 can hold the result, v2 only for
//! a result that asks for input; v1 documents stay readable.
//!
//! Results that leave the process and are read back (stored large results, app answers) carry
//! this form. The writer emits compact JSON with the fields in the order DESIGN §2 shows and
//! leaves out what is absent or empty; the data value is serialized once, straight from the
//! result. The parser refuses what the form does not allow — an unknown format version, an
//! error next to non-null data, an unknown key, a value of the wrong type, malformed base64 —
//! and names the JSON path of the problem. Extension namespaces and keys are taken as written:
//! the form carries what a forgiving parser kept (the `legacy` namespace included).
//!
//! Grown by adding: every part may carry `"audience"`, a non-empty list of `"user"` and
//! `"assistant"` written after the part's other members and only when set, so documents
//! written before it read the same.

mod read;
mod write;

pub use crate::form::V1Error;
pub(crate) use read::parse_members;
pub use read::{parse, parse_owned, parse_value};
pub(crate) use write::to_vec_generated_at;
pub use write::{to_string, to_vec};

/// The format marker of version 1.
pub const FORMAT: &str = "toolwire.result.v1";

/// The format marker of version 2 (v1 + `inputRequired`).
pub const FORMAT_V2: &str = "toolwire.result.v2";

/// What every toolwire format marker starts with; a document whose `format` starts with it
/// claims to be a toolwire result of some version.
pub const FORMAT_PREFIX: &str = "toolwire.result.";
