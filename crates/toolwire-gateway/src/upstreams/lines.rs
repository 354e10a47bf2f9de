//! A stdio upstream's output as the gateway reads it: one JSON-RPC message per line, each at
//! most a bound. A longer line is never held past the bound; in its place the reader yields an
//! error answer to the request the line answered (its `id`, read from the line's first or last
//! bytes), so the call it was for ends at once instead of at its time limit. A line over the
//! bound whose `id` cannot be found (a notification, an `id` deep inside) is dropped.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

/// The error message of the answer that stands for a line over the bound; the call's error
/// handling recognises it.
pub(super) const OVERSIZED: &str = "the upstream's answer is over the size limit of one message";

/// How many of a line's first bytes are searched for its `id`.
const HEAD_BYTES: usize = 512;
/// How many of a line's last bytes are kept to search for an `id` written last.
const TAIL_BYTES: usize = 96;

/// What is known of a line over the bound while the rest of it is skipped.
struct Over {
    id: Option<Value>,
    tail: Vec<u8>,
}

/// Reads `inner` line by line, each line within `max` bytes (see the module).
pub(super) struct BoundedLines<R> {
    inner: R,
    max: usize,
    line: Vec<u8>,
    over: Option<Over>,
    ready: Vec<u8>,
    at: usize,
    done: bool,
}

impl<R> BoundedLines<R> {
    /// `inner` read in lines of at most `max` bytes.
    pub(super) fn new(inner: R, max: usize) -> Self {
        Self { inner, max, line: Vec::new(), over: None, ready: Vec::new(), at: 0, done: false }
    }

    /// Takes `chunk` in: complete lines within the bound go to `ready`, a line over it is
    /// skipped and stood in for.
    fn take(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() {
            let end = chunk.iter().position(|&b| b == b'\n');
            let (part, rest) = match end {
                Some(at) => (&chunk[..at], &chunk[at + 1..]),
                None => (chunk, &[][..]),
            };
            match &mut self.over {
                Some(over) => keep_tail(&mut over.tail, part),
                None if self.line.len() + part.len() > self.max => {
                    let mut head = std::mem::take(&mut self.line);
                    head.truncate(HEAD_BYTES);
                    head.extend_from_slice(&part[..part.len().min(HEAD_BYTES)]);
                    let mut tail = Vec::new();
                    keep_tail(&mut tail, part);
                    self.over = Some(Over { id: top_level_id(&head), tail });
                }
                None => self.line.extend_from_slice(part),
            }
            if end.is_some() {
                self.end_line();
            }
            chunk = rest;
        }
    }

    /// The line ended: hand it on, or the answer standing for it.
    fn end_line(&mut self) {
        match self.over.take() {
            Some(over) => {
                if let Some(id) = over.id.or_else(|| trailing_id(&over.tail)) {
                    let answer = serde_json::json!({
                        "jsonrpc": "2.0",
                        "id": id,
                        "error": {"code": -32603, "message": OVERSIZED},
                    });
                    self.ready.extend_from_slice(answer.to_string().as_bytes());
                    self.ready.push(b'\n');
                }
            }
            None => {
                self.ready.append(&mut self.line);
                self.ready.push(b'\n');
            }
        }
        // A line near the bound leaves a large buffer behind; it is not kept for the next.
        if self.line.capacity() > HEAD_BYTES * 64 {
            self.line = Vec::new();
        }
    }
}

fn keep_tail(tail: &mut Vec<u8>, part: &[u8]) {
    tail.extend_from_slice(&part[part.len().saturating_sub(TAIL_BYTES)..]);
    let extra = tail.len().saturating_sub(TAIL_BYTES);
    tail.drain(..extra);
}

/// The `id` member of the object `head` begins, when it comes before any nested value ends the
/// head: the scan tracks strings and nesting, so an `"id"` inside the result is not taken.
fn top_level_id(head: &[u8]) -> Option<Value> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut key_start = None;
    for (i, &b) in head.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    // A key is a string followed by `:` (a value `"id"` is not).
                    if depth == 1 && key_start.is_some_and(|start| &head[start..i] == b"id") {
                        let rest = head[i + 1..].trim_ascii_start();
                        if let Some(id) = rest.strip_prefix(b":").and_then(first_value) {
                            return Some(id);
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                key_start = Some(i + 1);
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The `id` written last in the object `tail` ends (`…,"id":7}`).
fn trailing_id(tail: &[u8]) -> Option<Value> {
    let at = tail.windows(5).rposition(|w| w == b"\"id\":")?;
    first_value(&tail[at + 5..])
}

/// The JSON value `text` begins with, if it is a JSON-RPC id (a number or a string).
fn first_value(text: &[u8]) -> Option<Value> {
    let mut values = serde_json::Deserializer::from_slice(text).into_iter::<Value>();
    match values.next()? {
        Ok(id @ (Value::Number(_) | Value::String(_))) => Some(id),
        _ => None,
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for BoundedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.at < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.at);
                buf.put_slice(&this.ready[this.at..this.at + n]);
                this.at += n;
                if this.at == this.ready.len() {
                    this.ready.clear();
                    this.at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.done {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // The end: a last line without its newline goes on as it is.
                    this.done = true;
                    if this.over.take().is_none() {
                        this.ready.append(&mut this.line);
                    }
                }
                Poll::Ready(Ok(())) => {
                    let filled = read.filled().to_vec();
                    this.take(&filled);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::io::AsyncReadExt as _;

    use super::*;

    async fn read_all(input: Vec<u8>, max: usize) -> String {
        let mut reader = BoundedLines::new(&input[..], max);
        let mut out = String::new();
        match reader.read_to_string(&mut out).await {
            Ok(_) => out,
            Err(error) => panic!("{error}"),
        }
    }

    fn answer(id: Value) -> String {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": OVERSIZED}})
            .to_string()
            + "\n"
    }

    #[tokio::test]
    async fn lines_within_the_bound_pass_unchanged() {
        let input = b"{\"a\":1}\n{\"b\":2}\nlast".to_vec();
        assert_eq!(read_all(input, 64).await, "{\"a\":1}\n{\"b\":2}\nlast");
    }

    #[tokio::test]
    async fn a_line_over_the_bound_becomes_an_error_answer_to_its_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}\n",
            "x".repeat(100_000)
        );
        let input = format!("{{\"ok\":1}}\n{big}{{\"ok\":2}}\n").into_bytes();
        let expected = format!("{{\"ok\":1}}\n{}{{\"ok\":2}}\n", answer(json!(7)));
        assert_eq!(read_all(input, 4096).await, expected);
    }

    #[tokio::test]
    async fn the_id_is_found_last_or_as_a_string_and_never_inside_the_result() {
        let pad = "y".repeat(10_000);
        let last = format!("{{\"result\":{{\"id\":99,\"t\":\"{pad}\"}},\"id\":\"r-2\"}}\n");
        assert_eq!(read_all(last.into_bytes(), 1024).await, answer(json!("r-2")));
        let nested = format!("{{\"result\":{{\"id\":99,\"t\":\"{pad}\"}},\"jsonrpc\":\"2.0\"}}\n");
        assert_eq!(read_all(nested.into_bytes(), 1024).await, "", "no id of its own: dropped");
        let escaped = format!("{{\"k\":\"\\\"id\\\":5\",\"m\":\"id\",\"id\":3,\"t\":\"{pad}\"}}\n");
        assert_eq!(read_all(escaped.into_bytes(), 1024).await, answer(json!(3)));
    }
}
