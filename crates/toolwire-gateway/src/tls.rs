//! TLS for the gateway's own HTTP clients (app endpoints and upstream MCP servers over
//! `https://`, the OAuth issuer): a rustls client configuration built with the ring provider named
//! explicitly, handed to reqwest whole. A library must not install a process-wide rustls provider (rustls's documentation), and
//! these clients do not need one: they work whether or not the process installed a default.
//!
//! The `toolwire` binary installs ring as the process default once, at start, for what still
//! takes the default: the Redis store's `rediss://` connections and `toolwire check`'s client. An
//! application embedding the gateway with a `rediss://` store installs a provider itself.

use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use rustls_platform_verifier::BuilderVerifierExt as _;

/// A client configuration that checks the server's certificate against `roots` only when given
/// (a tool's `ca_file`), else against the system's roots (as reqwest would by itself). Fails
/// when a given root is not a usable CA certificate, or the system has no roots at all.
pub(crate) fn client_config(
    roots: Option<&[CertificateDer<'static>]>,
) -> Result<ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder =
        ClientConfig::builder_with_provider(provider).with_safe_default_protocol_versions()?;
    let mut config = match roots {
        Some(roots) => {
            let mut store = RootCertStore::empty();
            for root in roots {
                store.add(root.clone())?;
            }
            builder.with_root_certificates(store).with_no_client_auth()
        }
        None => builder.with_platform_verifier()?.with_no_client_auth(),
    };
    // What reqwest offers with its own configuration: it is built for HTTP/1.1 only.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// The reqwest client of an app endpoint or an upstream MCP server: a 3xx is an answer (never
/// followed, so secret headers and the body never reach another host), a proxy only when
/// configured (proxy environment variables are ignored), and `roots` instead of the system roots
/// when given. The error says what was wrong, for the caller to name its tool or upstream.
pub(crate) fn reqwest_client(
    connect_timeout: std::time::Duration,
    proxy: Option<&str>,
    roots: Option<&[CertificateDer<'static>]>,
) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .redirect(reqwest::redirect::Policy::none());
    builder = match proxy {
        Some(proxy) => builder.proxy(reqwest::Proxy::all(proxy).map_err(|e| e.to_string())?),
        None => builder.no_proxy(),
    };
    // The TLS configuration names its provider: no process-wide default is needed.
    let tls = client_config(roots).map_err(|e| format!("TLS: {e}"))?;
    builder.tls_backend_preconfigured(tls).build().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_names_its_provider_and_refuses_a_bad_root() {
        let Ok(config) = client_config(Some(&[])) else { panic!("no configuration") };
        assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
        // No process default was needed, and none was installed on the way.
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
        let garbage = CertificateDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x00]);
        assert!(client_config(Some(&[garbage])).is_err());
    }
}
