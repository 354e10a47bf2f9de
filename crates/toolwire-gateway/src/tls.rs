//! TLS for app endpoints (`https://`) and the Redis store (`rediss://`): rustls with the ring
//! crypto provider, installed once for the whole process so reqwest and redis share it. With
//! reqwest's `rustls-no-provider` feature, building any HTTP client before this panics.

/// Installs ring as the process's default rustls provider; later calls change nothing.
pub fn install_crypto_provider() {
    // An error only says a provider is installed already, which is what is wanted.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
