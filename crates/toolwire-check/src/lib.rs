//! toolwire-check: is a wire document right, and is a server's wire right?
//!
//! - [`wire`]: one rendered document against the official schema of its target (embedded from
//!   this crate's `spec/`) and toolwire's wire contract; `toolwire validate` and every golden
//!   test stand on it.
//! - [`audit`]: `toolwire check`, an MCP client that audits any server at every revision it
//!   offers and for every host profile (DESIGN §13).
//!
//! Kept out of the sans-IO core: the auditing client does I/O, and the core never needs to know
//! what the official schemas say, only to render what they accept.

pub mod audit;
pub mod wire;

pub use wire::WireViolation;
