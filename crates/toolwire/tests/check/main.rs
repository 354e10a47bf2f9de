//! The `toolwire check` tests: the audit client against small servers with one planted defect
//! each, and against toolwire's own gateway.

#[path = "../support/gateway/mod.rs"]
mod gateway;

mod fixtures;
mod own_gateway;
