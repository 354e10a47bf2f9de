//! The gateway tests: `toolwire serve` started as a process and spoken to over Streamable HTTP
//! and stdio, one module per concern (transport, auth, app tools, operations, …). One test
//! crate, so one test binary is compiled and linked for all of them.

#[path = "../support/gateway/mod.rs"]
mod gateway;

mod annotations;
mod apps;
mod config_docs;
mod console;
mod deep;
mod hardening;
mod hosts;
mod http;
mod oauth;
mod openapi;
mod ops;
mod stdio;
mod store_outage;
mod tasks;
mod tasks_relay;
mod transport;
mod upstreams;
mod upstreams_hostile;
mod upstreams_park;
