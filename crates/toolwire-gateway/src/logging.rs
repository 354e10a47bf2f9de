//! The gateway's log output: every line goes to standard error (over stdio, standard output
//! carries nothing but JSON-RPC), in the order it was written. Once the gateway serves
//! ([`FlushGuard::gather`]: the start-up lines, the listening address among them, are written
//! as they come), an info line (one per `tools/call`) is gathered in memory and written by a
//! flusher thread a few times a second, so a call does not pay a `write` system call for it.
//! A warning or an error is written at once, after whatever was gathered before it, and the
//! guard that [`init`] returns writes what is left when the gateway stops. Nothing is dropped:
//! when standard error cannot keep up and the buffer reaches [`BUFFER_CAP`], the writing
//! thread writes it out itself, as it would without the buffer.
//!
//! The text format is tracing's default, written by [`Line`], [`Fields`] and [`Clock`]: the
//! same text for a fraction of the work (a log line cost a call about 11k instructions, most of
//! it in the general-purpose field visitor and the timestamp's calendar arithmetic, redone
//! every line).

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use toolwire_core::Timestamp;
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing::{Level, Metadata};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::{Format, FormatEvent, FormatFields, Full, Writer};
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::registry::LookupSpan;

/// How long an info line may wait in memory before it is written.
const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// Gathered bytes past which the writing thread writes them out itself.
const BUFFER_CAP: usize = 1 << 20;

/// Starts logging to standard error with the `TOOLWIRE_LOG` filter (default `info,rmcp=warn`);
/// with `json`, one JSON object per line with the event's fields at the top level. Logging
/// stays buffered until the returned guard is dropped, which writes what is left.
pub(crate) fn init(json: bool) -> FlushGuard {
    let sink = Sink::start();
    let filter = tracing_subscriber::EnvFilter::try_from_env("TOOLWIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    let builder = tracing_subscriber::fmt()
        .with_writer(sink.clone())
        .with_ansi(false)
        .with_env_filter(filter);
    // A subscriber set before (a test's) keeps its place; this sink then only flushes nothing.
    let _ = if json {
        builder.json().flatten_event(true).try_init()
    } else {
        builder.fmt_fields(Fields).event_format(Line::new(Clock)).try_init()
    };
    FlushGuard { sink }
}

/// Writes what is gathered and stops the flusher thread when dropped.
pub(crate) struct FlushGuard {
    sink: Sink,
}

impl FlushGuard {
    /// From now on, info lines and below wait for the flusher.
    pub(crate) fn gather(&self) {
        self.sink.state().gathering = true;
    }
}

impl Drop for FlushGuard {
    fn drop(&mut self) {
        self.sink.stop();
    }
}

/// The writer behind the subscriber: a shared buffer and the thread that empties it.
#[derive(Clone)]
struct Sink {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Wakes the flusher early: the gateway is stopping.
    wake: Condvar,
    flusher: Mutex<Option<JoinHandle<()>>>,
    /// Gathered bytes past which a line is written at once ([`BUFFER_CAP`]).
    cap: usize,
}

#[derive(Default)]
struct State {
    gathered: Vec<u8>,
    /// Whether info lines wait (after start-up).
    gathering: bool,
    /// Every line is written at once: the gateway is stopping, or the flusher could not start.
    stopping: bool,
}

impl Sink {
    fn start() -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            flusher: Mutex::new(None),
            cap: BUFFER_CAP,
        });
        let sink = Sink { shared };
        let flusher = sink.clone();
        // Without the thread (it could not be started) every line is written as it comes.
        let handle = std::thread::Builder::new()
            .name("toolwire-log".to_owned())
            .spawn(move || flusher.flush_periodically())
            .ok();
        if handle.is_none() {
            sink.state().stopping = true;
        }
        *sink.shared.flusher.lock().unwrap_or_else(PoisonError::into_inner) = handle;
        sink
    }

    /// A poisoned lock still holds whole lines: a writer panicked between lines, not inside
    /// one, since appending a line cannot panic halfway.
    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn flush_periodically(&self) {
        let mut state = self.state();
        loop {
            let (next, _) = self
                .shared
                .wake
                .wait_timeout(state, FLUSH_EVERY)
                .unwrap_or_else(PoisonError::into_inner);
            state = next;
            let pending = std::mem::take(&mut state.gathered);
            let stopping = state.stopping;
            // Standard error's lock is taken before the buffer's is let go, so that lines are
            // written in the order they were gathered; a slow standard error then holds the
            // flusher and warnings, while info lines go on gathering.
            let mut out = std::io::stderr().lock();
            drop(state);
            write_out(&mut out, &pending);
            drop(out);
            state = self.state();
            if stopping && state.gathered.is_empty() {
                return;
            }
            if state.gathered.is_empty() {
                state.gathered = reuse(pending);
            }
        }
    }

    /// One line from the subscriber (it writes each event's line in one call).
    fn line(&self, line: &[u8], at_once: bool) {
        let mut state = self.state();
        if at_once
            || !state.gathering
            || state.stopping
            || state.gathered.len() + line.len() > self.shared.cap
        {
            // What was gathered before this line goes first.
            let pending = std::mem::take(&mut state.gathered);
            let mut out = std::io::stderr().lock();
            drop(state);
            write_out(&mut out, &pending);
            write_out(&mut out, line);
            drop(out);
            let mut state = self.state();
            if state.gathered.is_empty() {
                state.gathered = reuse(pending);
            }
        } else {
            state.gathered.extend_from_slice(line);
        }
    }

    fn stop(&self) {
        self.state().stopping = true;
        self.shared.wake.notify_all();
        let handle = self.shared.flusher.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
        let pending = std::mem::take(&mut self.state().gathered);
        write_out(&mut std::io::stderr().lock(), &pending);
    }
}

/// An emptied buffer back for the next lines, unless it grew large.
fn reuse(mut buffer: Vec<u8>) -> Vec<u8> {
    buffer.clear();
    if buffer.capacity() > BUFFER_CAP { Vec::new() } else { buffer }
}

/// Standard error is where the lines go; when it is closed there is nowhere to say so.
fn write_out(out: &mut std::io::StderrLock<'static>, bytes: &[u8]) {
    if !bytes.is_empty() {
        let _ = out.write_all(bytes);
    }
}

/// The writer for one event: its level decides whether its line waits.
pub(crate) struct EventWriter {
    sink: Sink,
    at_once: bool,
}

impl std::io::Write for EventWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.sink.line(buf, self.at_once);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Sink {
    type Writer = EventWriter;

    fn make_writer(&'a self) -> EventWriter {
        EventWriter { sink: self.clone(), at_once: true }
    }

    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> EventWriter {
        EventWriter { sink: self.clone(), at_once: *meta.level() <= Level::WARN }
    }
}

/// A line as tracing's default text format writes it without colours (time, level, target,
/// fields), written directly for an event outside any span; an event inside a span, or for a
/// colour terminal, is left to tracing's formatter.
pub(crate) struct Line<T> {
    timer: T,
    full: Format<Full, T>,
}

impl<T: FormatTime + Clone> Line<T> {
    /// Lines stamped by `timer`.
    pub(crate) fn new(timer: T) -> Self {
        Self { full: Format::default().with_timer(timer.clone()), timer }
    }
}

impl<S, N, T> FormatEvent<S, N> for Line<T>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    T: FormatTime,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        if writer.has_ansi_escapes() || ctx.event_scope().is_some() {
            return self.full.format_event(ctx, writer, event);
        }
        if self.timer.format_time(&mut writer).is_err() {
            writer.write_str("<unknown time>")?;
        }
        let meta = event.metadata();
        writer.write_str(match *meta.level() {
            Level::TRACE => " TRACE ",
            Level::DEBUG => " DEBUG ",
            Level::INFO => "  INFO ",
            Level::WARN => "  WARN ",
            Level::ERROR => " ERROR ",
        })?;
        writer.write_str(meta.target())?;
        writer.write_str(": ")?;
        ctx.format_fields(writer.by_ref(), event)?;
        writer.write_char('\n')
    }
}

/// An event's fields as tracing's default text format writes them: the message first, then
/// `name=value` separated by spaces, a `&str` or a `Debug` value in its `Debug` form, a `%`
/// value in its `Display` form, the message with terminal control characters escaped.
pub(crate) struct Fields;

impl<'w> FormatFields<'w> for Fields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> fmt::Result {
        let mut visitor = FieldWriter { writer, first: true, result: Ok(()) };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct FieldWriter<'w> {
    writer: Writer<'w>,
    first: bool,
    result: fmt::Result,
}

impl FieldWriter<'_> {
    /// The separator and `name=`, or nothing for the message; false when it is the message.
    fn start(&mut self, field: &Field) -> Result<bool, fmt::Error> {
        if !std::mem::take(&mut self.first) {
            self.writer.write_char(' ')?;
        }
        let name = field.name();
        if name == "message" {
            return Ok(false);
        }
        self.writer.write_str(name.strip_prefix("r#").unwrap_or(name))?;
        self.writer.write_char('=')?;
        Ok(true)
    }

    fn write(&mut self, field: &Field, value: Value<'_>) {
        if self.result.is_err() {
            return;
        }
        self.result = self.start(field).and_then(|named| match value {
            Value::Str(text) if named => write_debug_str(&mut self.writer, text),
            Value::Str(text) => self.write_message(format_args!("{text}")),
            Value::Debug(value) if named => write!(self.writer, "{value:?}"),
            Value::Debug(value) => self.write_message(format_args!("{value:?}")),
            Value::U64(n) => write_decimal(&mut self.writer, n, false),
            Value::I64(n) => write_decimal(&mut self.writer, n.unsigned_abs(), n < 0),
            Value::Bool(b) => self.writer.write_str(if b { "true" } else { "false" }),
        });
    }

    fn write_message(&mut self, message: fmt::Arguments<'_>) -> fmt::Result {
        if self.writer.sanitizes_ansi_escapes() {
            Sanitized(&mut self.writer).write_fmt(message)
        } else {
            self.writer.write_fmt(message)
        }
    }
}

/// A field value as the visitor is handed it.
enum Value<'a> {
    Str(&'a str),
    Debug(&'a dyn fmt::Debug),
    U64(u64),
    I64(i64),
    Bool(bool),
}

impl Visit for FieldWriter<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.write(field, Value::Str(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.write(field, Value::U64(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.write(field, Value::I64(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.write(field, Value::Bool(value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.write(field, Value::Debug(value));
    }
}

/// A number in decimal, as `{}` writes it, without the formatter (most fields are numbers).
fn write_decimal(writer: &mut Writer<'_>, mut n: u64, negative: bool) -> fmt::Result {
    // `-` and the 20 digits of `u64::MAX`.
    let mut text = [0u8; 21];
    let mut at = text.len();
    loop {
        at -= 1;
        text[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        text[at] = b'-';
    }
    // Only ASCII digits and `-` were written.
    writer.write_str(std::str::from_utf8(&text[at..]).map_err(|_| fmt::Error)?)
}

/// `text` as `{:?}` writes it, without the formatter when nothing in it needs escaping.
fn write_debug_str(writer: &mut Writer<'_>, text: &str) -> fmt::Result {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\') {
        writer.write_char('"')?;
        writer.write_str(text)?;
        writer.write_char('"')
    } else {
        write!(writer, "{text:?}")
    }
}

/// The characters tracing escapes in a message so that it cannot drive a terminal.
fn is_terminal_control(c: char) -> bool {
    matches!(c, '\x1b' | '\x07' | '\x08' | '\x0c' | '\x7f' | '\u{80}'..='\u{9f}')
}

/// Writes through with terminal control characters escaped, as tracing does.
struct Sanitized<'a, 'w>(&'a mut Writer<'w>);

impl fmt::Write for Sanitized<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        if !text.chars().any(is_terminal_control) {
            return self.0.write_str(text);
        }
        for c in text.chars() {
            match c {
                '\x1b' => self.0.write_str("\\x1b")?,
                '\x07' => self.0.write_str("\\x07")?,
                '\x08' => self.0.write_str("\\x08")?,
                '\x0c' => self.0.write_str("\\x0c")?,
                '\x7f' => self.0.write_str("\\x7f")?,
                '\u{80}'..='\u{9f}' => write!(self.0, "\\u{{{:x}}}", c as u32)?,
                c => self.0.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// The time of a line as tracing's default timer writes it (`2026-12-01T21:31:11.123456Z`,
/// UTC): a [`Timestamp`] with six fraction digits, its date and time of day worked out once per
/// second.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock;

impl FormatTime for Clock {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        let at = since.ok().and_then(|since| {
            let seconds = i64::try_from(since.as_secs()).ok()?;
            chrono::DateTime::from_timestamp(seconds, since.subsec_nanos())
        });
        match at {
            Some(at) => Timestamp::with_fraction_digits(at, 6).write_to(w),
            None => tracing_subscriber::fmt::time::SystemTime.format_time(w),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink_without_flusher(cap: usize) -> Sink {
        Sink {
            shared: Arc::new(Shared {
                state: Mutex::new(State { gathering: true, ..State::default() }),
                wake: Condvar::new(),
                flusher: Mutex::new(None),
                cap,
            }),
        }
    }

    #[test]
    fn start_up_lines_do_not_wait() {
        let sink = sink_without_flusher(BUFFER_CAP);
        sink.state().gathering = false;
        sink.line(b"\n", false);
        assert!(sink.state().gathered.is_empty());
    }

    #[test]
    fn info_lines_wait_and_a_warning_takes_them_out_first() {
        let sink = sink_without_flusher(BUFFER_CAP);
        sink.line(b"one\n", false);
        sink.line(b"two\n", false);
        assert_eq!(sink.state().gathered, b"one\ntwo\n");
        sink.line(b"warned\n", true);
        assert!(sink.state().gathered.is_empty());
    }

    #[test]
    fn a_full_buffer_is_written_by_the_writer() {
        let sink = sink_without_flusher(6);
        sink.line(b"cap\n", false);
        assert_eq!(sink.state().gathered, b"cap\n");
        sink.line(b"cap\n", false);
        assert!(sink.state().gathered.is_empty(), "over the cap, both lines were written");
    }

    /// What a subscriber with `fields` writes for the events of `emit` (no time, no target).
    /// What the subscriber `make` builds writes for the events of `emit`.
    fn written(make: impl FnOnce(Buffer) -> tracing::Dispatch, emit: fn()) -> String {
        let buffer = Buffer::default();
        tracing::dispatcher::with_default(&make(buffer.clone()), emit);
        let bytes = buffer.0.lock().unwrap_or_else(PoisonError::into_inner).clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// A subscriber's output, kept in memory.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The fields of `emit`'s events, written by `Fields` or by tracing's own field writer.
    fn fields_written(custom: bool, emit: fn()) -> String {
        written(
            |out| {
                let builder = tracing_subscriber::fmt()
                    .with_writer(move || out.clone())
                    .with_ansi(false)
                    .without_time()
                    .with_target(false);
                if custom {
                    builder.fmt_fields(Fields).finish().into()
                } else {
                    builder.finish().into()
                }
            },
            emit,
        )
    }

    /// A timer that always writes the same time, or fails.
    #[derive(Clone, Copy)]
    struct Fixed(bool);

    impl FormatTime for Fixed {
        fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
            if self.0 { w.write_str("2026-12-02T02:30:00.123456Z") } else { Err(fmt::Error) }
        }
    }

    #[test]
    fn lines_are_written_as_tracing_writes_them() {
        fn emit() {
            tracing::info!(tool = "catalog_get", bytes = 412_u64, "tools/call");
            tracing::warn!(target: "rmcp::transport", "a warning");
            tracing::error!(reason = %"a\nb", "failed");
            tracing::debug!(n = 1, "debug");
            tracing::trace!("trace");
            tracing::info!(only = true);
            let span = tracing::info_span!("call", id = 7);
            let _entered = span.enter();
            tracing::info!(inner = "yes", "inside a span");
            let nested = tracing::debug_span!("step");
            let _nested = nested.enter();
            tracing::warn!("inside two spans");
        }
        for timer in [Fixed(true), Fixed(false)] {
            let lines = |ours: bool| {
                written(
                    |out| {
                        let builder = tracing_subscriber::fmt()
                            .with_writer(move || out.clone())
                            .with_ansi(false)
                            .with_max_level(Level::TRACE)
                            .fmt_fields(Fields);
                        if ours {
                            builder.event_format(Line::new(timer)).finish().into()
                        } else {
                            builder
                                .event_format(Format::default().with_timer(timer))
                                .finish()
                                .into()
                        }
                    },
                    emit,
                )
            };
            let ours = lines(true);
            assert_eq!(ours, lines(false));
            assert_eq!(ours.lines().count(), 9, "{ours}");
            assert!(
                ours.contains("  INFO call{id=7}: toolwire_gateway::logging::tests: inside a span"),
                "{ours}"
            );
        }
        let ours = written(
            |out| {
                tracing_subscriber::fmt()
                    .with_writer(move || out.clone())
                    .with_ansi(false)
                    .fmt_fields(Fields)
                    .event_format(Line::new(Fixed(true)))
                    .finish()
                    .into()
            },
            || tracing::info!(bytes = 1_u64, "tools/call"),
        );
        assert_eq!(
            ours,
            "2026-12-02T02:30:00.123456Z  INFO toolwire_gateway::logging::tests: tools/call bytes=1\n"
        );
    }

    #[test]
    fn fields_are_written_as_tracing_writes_them() {
        fn emit() {
            let name = std::borrow::Cow::Borrowed("catalog_get");
            tracing::info!(tool = %name, revision = "2025-11-25", outcome = %"success", bytes = 412_u64, offloaded = false, duration_ms = 3_u64, "tools/call");
            tracing::warn!(delta = -7_i64, quoted = "say \"hi\"\n", debugged = ?Some("x"), r#type = "text", "plain");
            tracing::error!(reason = %"a\nb", "bell \x07 escape \x1b[31m c1 \u{9b} done");
            tracing::info!(count = 2, "{} interpolated {:?}", "with", "args\x1b");
            tracing::info!(only = true);
            tracing::info!(zero = 0_u64, max = u64::MAX, min = i64::MIN, ten = 10_i64, "numbers");
            // Longer than a field written in one piece, and a field that only just fits.
            tracing::info!(long = "x".repeat(120).as_str(), fits = "y".repeat(88).as_str());
            tracing::info!(first_and_long = u64::MAX, then = "z".repeat(200).as_str());
        }
        let ours = fields_written(true, emit);
        assert_eq!(ours, fields_written(false, emit));
        assert!(ours.contains(
            "tools/call tool=catalog_get revision=\"2025-11-25\" outcome=success bytes=412 offloaded=false duration_ms=3"
        ), "{ours}");
        assert!(ours.contains("bell \\x07 escape \\x1b[31m c1 \\u{9b} done"), "{ours}");
    }

    #[test]
    fn the_clock_writes_what_tracing_s_timer_writes() {
        // Against tracing's own timer at the same moment (again if a second turned between).
        let format = |timer: &dyn FormatTime| {
            let mut text = String::new();
            timer.format_time(&mut Writer::new(&mut text)).map(|()| text)
        };
        let agreed = (0..5).any(|_| {
            let (ours, theirs) =
                (format(&Clock), format(&tracing_subscriber::fmt::time::SystemTime));
            let (Ok(ours), Ok(theirs)) = (ours, theirs) else { return false };
            ours.len() == theirs.len()
                && ours.get(..20) == theirs.get(..20)
                && ours[20..26].bytes().all(|b| b.is_ascii_digit())
                && ours.ends_with('Z')
        });
        assert!(agreed);
    }
}
