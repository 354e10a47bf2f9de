//! A JSON-RPC peer over an in-memory stream to an [`McpServer`] running in process: every test
//! sees the exact wire JSON.

use rmcp::ServiceExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolwire_mcp::McpServer;

/// The client end of one connection.
pub(crate) struct Peer {
    reader: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    next_id: u64,
}

impl Peer {
    /// Serves `server` on a fresh in-memory stream and returns its client end (not initialized).
    pub(crate) fn connect(server: McpServer) -> Self {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(async move {
            if let Ok(running) = server.serve((server_read, server_write)).await {
                let _ = running.waiting().await;
            }
        });
        let (read, writer) = tokio::io::split(client_io);
        Peer { reader: BufReader::new(read), writer, next_id: 1 }
    }

    /// Sends one message.
    pub(crate) async fn send(&mut self, message: Value) {
        self.writer.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }

    /// Sends a request and returns its answer (skipping notifications).
    pub(crate) async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.reader.read_line(&mut line).await.unwrap() > 0, "closed");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The next message the server sends, whatever it is (a notification, an answer).
    #[allow(dead_code)] // not every test file reads unrequested messages
    pub(crate) async fn next_message(&mut self) -> Value {
        let mut line = String::new();
        assert!(self.reader.read_line(&mut line).await.unwrap() > 0, "closed");
        serde_json::from_str(&line).unwrap()
    }

    /// The `initialize` handshake on `revision`; returns the `initialize` result.
    #[allow(dead_code)] // not every test file initializes as the default client
    pub(crate) async fn initialize(&mut self, revision: &str) -> Value {
        self.initialize_as(revision, "t").await
    }

    /// The `initialize` handshake on `revision` as the client `client_name` (the host profile
    /// the server picks from it); returns the `initialize` result.
    pub(crate) async fn initialize_as(&mut self, revision: &str, client_name: &str) -> Value {
        let init = self
            .request(
                "initialize",
                json!({"protocolVersion": revision, "capabilities": {},
                       "clientInfo": {"name": client_name, "version": "1"}}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        init["result"].clone()
    }
}
