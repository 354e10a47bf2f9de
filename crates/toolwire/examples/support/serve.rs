//! What the benchmark servers share: serving an axum app until Ctrl-C, with the socket option
//! toolwire's own listener sets.

/// Serves `app` on `listener` until Ctrl-C. Every accepted socket has Nagle off, as toolwire's
/// do: a benchmark server must not lose to it.
pub(crate) async fn until_ctrl_c(
    listener: tokio::net::TcpListener,
    app: axum::Router,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
