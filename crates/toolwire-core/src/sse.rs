//! The event stream of a Streamable HTTP answer, read as it arrives: the `data` of each complete
//! event, under the SSE rules (WHATWG HTML, "Server-sent events", parsing an event stream).
//!
//! Hand-written rather than rmcp's `sse-stream` (0.2): that parser fails the whole stream on
//! lines the SSE rules say to ignore or accept (a field it does not know, a field line without
//! a colon such as a bare `data`, a second `event` line, a `retry` that is not a number), drops
//! the rest of the chunk after such an error, and bounds neither a line nor an event. An audit
//! must read what any conforming client reads (and so must a gateway), and a hostile server must not grow its buffers:
//! here every byte is scanned once, and the caller bounds the bytes fed in (which bounds both
//! buffers) and the events taken out. Shared by `toolwire check`'s audit and the gateway's calls
//! to Streamable HTTP upstreams; the `sse_stream` fuzz target reaches it here.

/// The byte order mark one stream may start with.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// An event stream being read: the unfinished line and the data of the unfinished event.
#[derive(Debug, Default)]
pub struct EventStream {
    /// The bytes of the line whose end has not arrived yet.
    line: Vec<u8>,
    /// The data buffer of the event being read: each `data` line's value and a line feed.
    data: Vec<u8>,
    /// The last chunk ended in a carriage return: a line feed starting the next one belongs to
    /// that line end (CRLF split across chunks).
    after_cr: bool,
    /// A line has ended already (a byte order mark may only start the first one).
    started: bool,
}

impl EventStream {
    /// Reads `bytes`, the next part of the stream; returns the data of every event it completes,
    /// in order. Events without `data` lines are not dispatched, as the SSE rules say.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut events = Vec::new();
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            bytes = bytes.strip_prefix(b"\n").unwrap_or(bytes);
        }
        while let Some(end) = bytes.iter().position(|&byte| byte == b'\n' || byte == b'\r') {
            let event = if self.line.is_empty() {
                self.end_line(&bytes[..end])
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&bytes[..end]);
                let event = self.end_line(&line);
                // Keeps the allocation for the next split line.
                line.clear();
                self.line = line;
                event
            };
            events.extend(event);
            let carriage_return = bytes[end] == b'\r';
            bytes = &bytes[end + 1..];
            if carriage_return {
                match bytes.strip_prefix(b"\n") {
                    Some(rest) => bytes = rest,
                    None => self.after_cr = bytes.is_empty(),
                }
            }
        }
        self.line.extend_from_slice(bytes);
        events
    }

    /// One complete line (without its end); the event's data when the line is the blank line
    /// that ends an event with data.
    fn end_line(&mut self, mut line: &[u8]) -> Option<Vec<u8>> {
        if !self.started {
            self.started = true;
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        if line.is_empty() {
            if self.data.is_empty() {
                return None;
            }
            // The last data line's line feed is not part of the data.
            self.data.pop();
            return Some(std::mem::take(&mut self.data));
        }
        let (field, value) = match line.iter().position(|&byte| byte == b':') {
            // A comment.
            Some(0) => return None,
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        // `event`, `id` and `retry` matter to reconnecting clients; neither reader reconnects.
        if field == b"data" {
            self.data.extend_from_slice(value);
            self.data.push(b'\n');
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of `stream` fed in the pieces cut at `cuts`.
    fn read(stream: &[u8], cuts: &[usize]) -> Vec<String> {
        let mut reader = EventStream::default();
        let mut events = Vec::new();
        let mut from = 0;
        for &to in cuts.iter().chain(std::iter::once(&stream.len())) {
            events.extend(reader.feed(&stream[from..to]));
            from = to;
        }
        events.into_iter().map(|data| String::from_utf8_lossy(&data).into_owned()).collect()
    }

    /// A stream with LF line ends: a byte order mark, a comment, fields the audit ignores, an
    /// event of two data lines, one without data, bare `data` lines, an unknown field and an
    /// unfinished event.
    const FRAMED: &str = "\u{feff}: a comment\nevent: message\nid: 1\nretry: soon\n\
        data: {\"a\":1,\ndata:  \"b\": \"x\"}\n\nid: 2\n\ndata\ndata\n\ndata:last\n\
        unknown: field\n\ndata: never dispatched";

    fn expected() -> Vec<String> {
        vec!["{\"a\":1,\n \"b\": \"x\"}".to_owned(), "\n".to_owned(), "last".to_owned()]
    }

    #[test]
    fn lf_crlf_and_lone_cr_framing_give_the_same_events() {
        let lf = FRAMED.as_bytes().to_vec();
        let crlf = FRAMED.replace('\n', "\r\n").into_bytes();
        let cr = FRAMED.replace('\n', "\r").into_bytes();
        for stream in [&lf, &crlf, &cr] {
            assert_eq!(read(stream, &[]), expected(), "{}", String::from_utf8_lossy(stream));
        }
    }

    #[test]
    fn every_cut_of_the_stream_gives_the_same_events() {
        let crlf = FRAMED.replace('\n', "\r\n").into_bytes();
        let cr = FRAMED.replace('\n', "\r").into_bytes();
        for stream in [&crlf, &cr] {
            for cut in 0..=stream.len() {
                assert_eq!(read(stream, &[cut]), expected(), "cut at {cut}");
            }
            let every_byte: Vec<usize> = (1..stream.len()).collect();
            assert_eq!(read(stream, &every_byte), expected());
        }
    }

    #[test]
    fn a_carriage_return_then_an_empty_chunk_still_joins_the_line_feed() {
        let mut reader = EventStream::default();
        assert!(reader.feed(b"data: 1\r").is_empty());
        assert!(reader.feed(b"").is_empty());
        assert!(reader.feed(b"\n").is_empty());
        assert_eq!(reader.feed(b"\r\n"), vec![b"1".to_vec()]);
    }

    #[test]
    fn a_byte_order_mark_is_dropped_only_at_the_start() {
        assert_eq!(read(b"\xEF\xBB\xBFdata: 1\n\n", &[1, 2]), ["1"]);
        assert_eq!(read(b"data: 1\n\n\xEF\xBB\xBFdata: 2\n\n", &[]), ["1"]);
    }
}
