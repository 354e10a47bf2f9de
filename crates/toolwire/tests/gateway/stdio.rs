//! The gateway over stdio: every revision, the demo tools, nothing but JSON-RPC on stdout.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::gateway::{REVISIONS, StdioClient, scenario};

#[test]
fn every_revision_over_stdio() {
    for revision in REVISIONS {
        let mut client = StdioClient::start(revision);
        let published = scenario::tools_list(&mut client);
        scenario::demo_calls(&mut client, &published);
    }
}
