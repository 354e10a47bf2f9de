//! The gateway over Streamable HTTP: every revision on one endpoint, the demo tools, the error
//! channels, stored results, tokens and links bound to principals.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod gateway;

use gateway::{HttpClient, REVISIONS, Server, scenario};

#[test]
fn every_revision_on_one_endpoint() {
    let server = Server::start(None, &[]);
    for revision in REVISIONS {
        let mut client = HttpClient::connect(&server.url, revision, None);
        let published = scenario::tools_list(&mut client);
        scenario::demo_calls(&mut client, &published);
    }
    let log = server.stderr();
    assert!(
        log.contains("tools/call tool=catalog_export revision=\"2026-07-28\" outcome=success"),
        "{log}"
    );
    assert!(log.contains("offloaded=true"), "{log}");
    assert!(log.contains("legacy_results=5"), "{log}");
}
