//! Fuzzes the reader of a Streamable HTTP answer's event stream (the SSE rules):
//! nothing panics, the events do not depend on how the stream is cut into chunks (CR, LF and
//! CRLF split anywhere), and no event holds more bytes than the stream did.
//!
//! Input: the first byte chooses the chunk sizes; the rest is the stream, which the audited
//! server controls.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::sse::EventStream;

fuzz_target!(|data: &[u8]| {
    let Some((&seed, stream)) = data.split_first() else { return };
    let whole = EventStream::default().feed(stream);
    let mut reader = EventStream::default();
    let mut chunked = Vec::new();
    let mut rest = stream;
    let mut size = usize::from(seed % 7) + 1;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        chunked.extend(reader.feed(chunk));
        rest = tail;
        size = size % 7 + 1;
    }
    assert_eq!(whole, chunked, "cut every {} bytes", seed % 7 + 1);
    let read: usize = whole.iter().map(Vec::len).sum();
    assert!(read <= stream.len(), "{read} bytes of events from {} bytes", stream.len());
});
