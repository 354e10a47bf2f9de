//! The `toolwire check` tests: the audit client against small servers with one planted defect
//! each, and against toolwire's own gateway (the table, JSON and the HTML page).

#[path = "../support/gateway/mod.rs"]
mod gateway;

mod fixtures;
mod html;
mod own_gateway;
