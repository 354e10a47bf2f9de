//! The HTTP listener (DESIGN §12 "Transport"): every accepted socket gets `TCP_NODELAY` (a
//! Streamable HTTP answer is small writes that Nagle's algorithm would hold back for the
//! client's delayed ACK), open connections are capped, a client must send a request's headers
//! within a timeout, and shutdown drains: stop accepting, let requests in flight finish within
//! the grace period, then close whatever is left. A second signal ends at once.
//!
//! The accept loop is written here rather than taken from `axum::serve`: axum sets neither a
//! header read timeout nor a cap on open connections (a connection over the cap is closed at
//! once, before a byte is read). The drain itself is hyper-util's [`GracefulShutdown`], which
//! closes each watched connection once its request in flight is answered.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::config::Transport;
use super::metrics::Metrics;

/// Accepts one connection and prepares its socket the way every served socket is.
pub(crate) async fn accept(listener: &TcpListener) -> io::Result<(TcpStream, SocketAddr)> {
    let (stream, peer) = listener.accept().await?;
    stream.set_nodelay(true)?;
    Ok((stream, peer))
}

/// Ctrl-C and SIGTERM, listened for from creation on: a signal that arrives before anyone
/// waits is kept, not lost (nor left to the default action, which kills the process).
pub(crate) struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Starts listening (inside the runtime).
    pub(crate) fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                term: signal(SignalKind::terminate()).ok(),
                interrupt: signal(SignalKind::interrupt()).ok(),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// The next Ctrl-C or SIGTERM.
    pub(crate) async fn recv(&mut self) {
        #[cfg(unix)]
        {
            async fn one(signal: &mut Option<tokio::signal::unix::Signal>) {
                match signal {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                () = one(&mut self.term) => {}
                () = one(&mut self.interrupt) => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        tracing::info!("shutting down");
    }
}

/// What [`serve`] is told by the process.
pub(crate) struct Control {
    /// The first signal drains, the second ends.
    pub signals: Signals,
    /// Cancelled when the drain begins: requests in flight go on, idle connections close.
    pub drain: CancellationToken,
    /// Cancelled when serving ends (rmcp's sessions and streams stop with it).
    pub stop: CancellationToken,
    /// The gateway's metrics, which count the open connections.
    pub metrics: Arc<Metrics>,
}

/// Serves `app` on `listener` until a shutdown signal, then drains (see the module docs).
pub(crate) async fn serve(
    listener: TcpListener,
    app: axum::Router,
    limits: &Transport,
    control: Control,
) {
    let Control { mut signals, drain, stop, metrics } = control;
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let mut full = false;
    let mut heartbeat = heartbeat(limits.header_read_timeout);
    {
        loop {
            tokio::select! {
                () = signals.recv() => break,
                Some(_) = connections.join_next() => {}
                _ = heartbeat.tick() => {}
                accepted = accept(&listener) => {
                    let stream = match accepted {
                        Ok((stream, _)) => stream,
                        Err(error) => {
                            // Out of descriptors or a connection reset before accept: wait a
                            // moment instead of spinning, and keep serving.
                            tracing::warn!(%error, "could not accept a connection");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                        if !full {
                            tracing::warn!(
                                max_connections = limits.max_connections,
                                "connection cap reached; new connections are closed until some end"
                            );
                        }
                        full = true;
                        drop(stream);
                        continue;
                    };
                    full = false;
                    let app = app.clone();
                    let watcher = graceful.watcher();
                    let timeout = limits.header_read_timeout;
                    let counted = metrics.connection();
                    connections.spawn(async move {
                        connection(stream, app, timeout, watcher).await;
                        drop((slot, counted));
                    });
                }
            }
        }
    }
    drop(listener);
    let open = connections.len();
    tracing::info!(open, grace_ms = limits.shutdown_grace.as_millis() as u64, "draining");
    // Streams that never end by themselves (a session's `GET`) end on `drain`; each connection
    // closes once its request in flight is answered.
    drain.cancel();
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.shutdown_grace) => {
            tracing::warn!(open = connections.len(), "shutdown grace over; closing what is left");
        }
        () = signals.recv() => {
            tracing::warn!(open = connections.len(), "second signal; closing at once");
        }
    }
    stop.cancel();
    connections.shutdown().await;
}

/// A timer that always expires within half the header read timeout, so that the header timer
/// hyper arms for each request a keep-alive connection waits for is never the runtime's
/// earliest. tokio wakes its I/O driver (an eventfd write, and a return of the next
/// `epoll_wait` with nothing to do) whenever a timer is armed that expires before every timer
/// pending at its last park; with only calls' longer timeouts pending, as when every connection
/// waits for an app, that was once per request.
fn heartbeat(header_read_timeout: Duration) -> tokio::time::Interval {
    let period = (header_read_timeout / 2).max(Duration::from_millis(1));
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    interval
}

/// One HTTP/1.1 connection, until the client closes it, its headers time out, or the drain
/// (`watcher`'s shutdown) closes it once its request in flight (if any) is answered.
async fn connection(
    stream: TcpStream,
    app: axum::Router,
    header_read_timeout: Duration,
    watcher: Watcher,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_read_timeout);
    let served = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
    if let Err(error) = watcher.watch(served).await {
        tracing::debug!(%error, "connection ended");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_sockets_have_nodelay() -> io::Result<()> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let client = TcpStream::connect(address);
        let (accepted, client) = tokio::join!(accept(&listener), client);
        let (accepted, _) = accepted?;
        let _client = client?;
        assert!(accepted.nodelay()?, "an accepted socket has TCP_NODELAY off");
        Ok(())
    }
}
