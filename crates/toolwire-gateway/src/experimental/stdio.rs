//! The layer over stdio ([`super`]): a line pump between the process's stdin and stdout and
//! rmcp's transport, an in-process pipe.
//!
//! Each stdin line is read within rmcp's own bound ([`MAX_LINE`]; a longer one is dropped, as
//! rmcp drops it) and goes on to rmcp unchanged, unless it is a 2025-11-25 task request, which
//! is answered here for the stdio principal. The `initialize` request names the client; its
//! answer says the revision, and is, with the answers to `tools/list` (matched by their
//! requests' ids), the only line of rmcp's that is parsed. One writer puts every line on
//! stdout, rmcp's and the pump's, each whole.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
    ReadHalf, WriteHalf,
};
use tokio::sync::mpsc;
use toolwire_mcp::{McpServer, Principal};

use super::{STATUS, Session};

/// The longest line read from stdin: rmcp's bound on a line, which held here before the pump.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// The pipe's buffer between the pump and rmcp, each way.
const PIPE: usize = 64 * 1024;

/// How many lines may wait for stdout before their senders wait.
const QUEUED: usize = 64;

/// How many `tools/list` requests are awaited at once: one rmcp answers without its id (a
/// request it could not read) is forgotten once this many have come after it.
const LISTING: usize = 64;

/// What the pump knows of the session.
#[derive(Debug, Default)]
struct State {
    /// Whether rmcp has answered the `initialize` request.
    answered: bool,
    /// The id of the last `initialize` request, until rmcp answers it.
    initialize: Option<Value>,
    /// Whether the session is one this layer serves (its `initialize` answer said so).
    serves: bool,
    session: Session,
    /// The ids of the `tools/list` requests rmcp has not answered yet.
    listing: Vec<Value>,
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A line for stdout.
enum Out {
    Line(Vec<u8>),
    /// rmcp has stopped writing: the writer stops.
    End,
}

/// The pump between `input` and `output` for `server`, running.
#[derive(Debug)]
pub(crate) struct Pump {
    /// rmcp's end of the pipe, to serve `server` on.
    pub(crate) rmcp: DuplexStream,
    /// Ends once everything rmcp wrote is on `output`.
    pub(crate) written: tokio::task::JoinHandle<()>,
}

/// Starts the pump between `input` and `output` (stdin and stdout) for `server`.
pub(crate) fn pump<R, W>(server: McpServer, input: R, output: W) -> Pump
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (ours, rmcp) = tokio::io::duplex(PIPE);
    let (from_rmcp, to_rmcp) = tokio::io::split(ours);
    let (lines, queued) = mpsc::channel(QUEUED);
    let state = Shared::default();
    let input = BufReader::new(input);
    tokio::spawn(read_input(server.clone(), input, to_rmcp, lines.clone(), Arc::clone(&state)));
    tokio::spawn(read_rmcp(server, BufReader::new(from_rmcp), lines, state));
    let written = tokio::spawn(write_output(output, queued));
    Pump { rmcp, written }
}

/// Stdin's lines: each to rmcp, or answered here; rmcp is told the end of stdin.
async fn read_input<R: AsyncRead + Unpin>(
    server: McpServer,
    mut input: BufReader<R>,
    mut to_rmcp: WriteHalf<DuplexStream>,
    lines: mpsc::Sender<Out>,
    state: Shared,
) {
    let principal = server.gateway().config().default_principal.clone();
    let mut line = Vec::new();
    loop {
        match read_line(&mut input, &mut line).await {
            Read::Line => {}
            Read::Oversized => {
                tracing::error!(
                    max_line_length = MAX_LINE,
                    "an incoming message exceeded the maximum line length; discarded"
                );
                continue;
            }
            Read::End => break,
        }
        match look(&state, &line) {
            Some(request) => {
                let answering = (server.clone(), principal.clone(), lines.clone());
                tokio::spawn(answer(answering, request, Arc::clone(&state)));
            }
            None => {
                if to_rmcp.write_all(&line).await.is_err() {
                    break;
                }
            }
        }
    }
    // rmcp ends the session at the end of its input, as it did at the end of stdin.
    let _ = to_rmcp.shutdown().await;
}

/// What a read of one line came to.
enum Read {
    /// A whole line (with its `\n`) is in the buffer.
    Line,
    /// A line over [`MAX_LINE`] was skipped.
    Oversized,
    /// The end of the input (a last line without `\n` is dropped, as rmcp drops it), or an
    /// error reading it.
    End,
}

/// Reads one line of `input` into `line`, never holding more than [`MAX_LINE`] bytes of it.
async fn read_line<R: AsyncBufRead + Unpin>(input: &mut R, line: &mut Vec<u8>) -> Read {
    line.clear();
    let mut over = false;
    loop {
        let available = match input.fill_buf().await {
            Ok(available) => available,
            Err(error) => {
                tracing::error!(%error, "could not read stdin");
                return Read::End;
            }
        };
        if available.is_empty() {
            return Read::End;
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        if !over && line.len().saturating_add(take) > MAX_LINE {
            over = true;
            *line = Vec::new();
        }
        if !over {
            line.extend_from_slice(&available[..take]);
        }
        input.consume(take);
        if newline.is_some() {
            return if over { Read::Oversized } else { Read::Line };
        }
    }
}

/// The task request `line` is, to answer here; else notes what the pump needs of it (the
/// `initialize` request, a `tools/list` request's id) and `None`: it goes on to rmcp.
fn look(state: &Shared, line: &[u8]) -> Option<Value> {
    let mut state = lock(state);
    if !state.answered && mentions(line, b"\"initialize\"") {
        let message = serde_json::from_slice::<Value>(line).ok()?;
        if message.get("method").and_then(Value::as_str) == Some("initialize") {
            state.initialize = message.get("id").cloned();
            state.session.client = message
                .pointer("/params/clientInfo/name")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        return None;
    }
    if !state.serves {
        return None;
    }
    if mentions(line, b"\"tools/list\"") {
        let message = serde_json::from_slice::<Value>(line).ok()?;
        if let (Some("tools/list"), Some(id)) =
            (message.get("method").and_then(Value::as_str), message.get("id"))
        {
            if state.listing.len() >= LISTING {
                state.listing.remove(0);
            }
            state.listing.push(id.clone());
        }
        return None;
    }
    super::task_request(line)
}

fn mentions(line: &[u8], text: &[u8]) -> bool {
    line.windows(text.len()).any(|window| window == text)
}

/// Answers `request` here: its reply, then the status notifications of the task it created.
async fn answer(
    (server, principal, lines): (McpServer, Principal, mpsc::Sender<Out>),
    request: Value,
    state: Shared,
) {
    let session = lock(&state).session.clone();
    let (reply, created) = super::reply(&server, &request, &principal, &session).await;
    // Remembered before the reply goes: the client may list its tasks as soon as it has it.
    let created = created.map(|task| lock(&state).session.remember(task)).is_some();
    let told = lines.clone();
    // Queued after the reply: the client hears of the task's changes after it has the task.
    if lines.send(Out::Line(line_of(&reply))).await.is_ok() && created {
        super::tell_changes(&server, &reply, &principal, move |task| {
            let told = told.clone();
            let notification = json!({"jsonrpc": "2.0", "method": STATUS, "params": task});
            async move { told.send(Out::Line(line_of(&notification))).await.is_ok() }
        });
    }
}

fn line_of(message: &Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// rmcp's lines, to stdout, the `initialize` and `tools/list` answers completed on the way.
/// rmcp's lines are not bounded here: each is a message the server wrote whole.
async fn read_rmcp(
    server: McpServer,
    mut from_rmcp: BufReader<ReadHalf<DuplexStream>>,
    lines: mpsc::Sender<Out>,
    state: Shared,
) {
    loop {
        let mut line = Vec::new();
        match from_rmcp.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        complete(&server, &state, &mut line);
        if lines.send(Out::Line(line)).await.is_err() {
            return;
        }
    }
    let _ = lines.send(Out::End).await;
}

/// The members of a message that tell an answer and whose it is.
#[derive(Deserialize)]
struct Head {
    id: Option<Value>,
    method: Option<IgnoredAny>,
}

/// `line` from rmcp, completed when it answers the `initialize` request (on 2025-11-25 with
/// tasks: `capabilities.tasks`, and the session is served from then on) or a `tools/list` of a
/// served session (`execution.taskSupport`).
fn complete(server: &McpServer, state: &Shared, line: &mut Vec<u8>) {
    let waiting = {
        let state = lock(state);
        state.initialize.is_some() || !state.listing.is_empty()
    };
    if !waiting {
        return;
    }
    // An answer has an id and no method (a request of the server's has both).
    let Ok(Head { id: Some(id), method: None }) = serde_json::from_slice(line) else { return };
    let initialize = {
        let mut state = lock(state);
        if state.initialize.as_ref() == Some(&id) {
            state.initialize = None;
            state.answered = true;
            true
        } else if let Some(at) = state.listing.iter().position(|listed| *listed == id) {
            state.listing.remove(at);
            false
        } else {
            return;
        }
    };
    let Ok(mut message) = serde_json::from_slice::<Value>(line) else { return };
    let Some(result) = message.get_mut("result") else { return };
    let changed = if initialize {
        let serves = super::with_capability(server, result);
        lock(state).serves = serves;
        serves
    } else {
        super::with_execution(server, result)
    };
    if changed {
        *line = line_of(&message);
    }
}

/// Puts each line on `output` whole, until rmcp has stopped writing.
async fn write_output<W: AsyncWrite + Unpin>(mut output: W, mut queued: mpsc::Receiver<Out>) {
    while let Some(Out::Line(line)) = queued.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_line_over_the_bound_is_skipped_and_the_next_one_read() {
        let mut input = vec![b' '; MAX_LINE];
        input.extend_from_slice(b"\n{}\r\n[1]");
        let mut input = BufReader::new(input.as_slice());
        let mut line = Vec::new();
        assert!(matches!(read_line(&mut input, &mut line).await, Read::Oversized));
        assert!(line.capacity() < MAX_LINE);
        assert!(matches!(read_line(&mut input, &mut line).await, Read::Line));
        assert_eq!(line, b"{}\r\n");
        // A last line without its newline is dropped, as rmcp drops it.
        assert!(matches!(read_line(&mut input, &mut line).await, Read::End));
    }
}
