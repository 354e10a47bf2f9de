//! RFC 3339 timestamps in UTC that remember how many fractional digits their source had, so
//! that a parsed timestamp renders exactly as it came in ("seconds unless the source had a
//! fraction").

use std::cell::Cell;
use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};

/// A point in time, rendered as RFC 3339 in UTC with `Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp {
    at: DateTime<Utc>,
    fraction_digits: u8,
}

/// A string that is not an RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an RFC 3339 timestamp")]
pub struct TimestampError(pub String);

impl Timestamp {
    /// A timestamp rendered with whole seconds (the fraction is dropped).
    pub fn from_datetime(at: DateTime<Utc>) -> Self {
        Self::with_fraction_digits(at, 0)
    }

    /// A timestamp at whole seconds since the Unix epoch; `None` when out of range.
    pub fn from_unix_seconds(seconds: i64) -> Option<Self> {
        DateTime::from_timestamp(seconds, 0).map(Self::from_datetime)
    }

    /// A timestamp rendered with `digits` (at most 9) fractional digits; the rendered form is
    /// what counts, so the instant is truncated to that precision.
    pub fn with_fraction_digits(at: DateTime<Utc>, digits: u8) -> Self {
        let digits = digits.min(9);
        let step = 10u32.pow(9 - u32::from(digits));
        let nanos = at.timestamp_subsec_nanos() % 1_000_000_000;
        let truncated = nanos - nanos % step;
        let at = DateTime::from_timestamp(at.timestamp(), truncated).unwrap_or(at);
        Self { at, fraction_digits: digits }
    }

    /// Parses RFC 3339 (any offset; converted to UTC), keeping the number of fractional digits.
    pub fn parse(text: &str) -> Result<Self, TimestampError> {
        let parsed =
            DateTime::parse_from_rfc3339(text).map_err(|_| TimestampError(text.to_owned()))?;
        let digits = text
            .find(['.', ','])
            .map(|dot| text[dot + 1..].bytes().take_while(u8::is_ascii_digit).count())
            .unwrap_or(0);
        Ok(Self::with_fraction_digits(parsed.with_timezone(&Utc), digits.min(9) as u8))
    }

    /// The instant.
    pub fn datetime(&self) -> DateTime<Utc> {
        self.at
    }

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.at.timestamp()
    }

    /// How many fractional digits the timestamp renders with (0 to 9): with the instant, what
    /// makes it round-trip exactly.
    pub fn fraction_digits(&self) -> u8 {
        self.fraction_digits
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.written() {
            Some(text) => f.write_str(text.as_str()),
            None => self.fmt_with_chrono(f),
        }
    }
}

impl Timestamp {
    /// Writes the RFC 3339 text into `out` in one piece, without going through a formatter
    /// (what `Display` writes; a log line's time, written on every line).
    pub fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self.written() {
            Some(text) => out.write_str(text.as_str()),
            None => write!(out, "{self}"),
        }
    }
}

/// Serialized as its RFC 3339 text, a JSON string, written without the formatter.
impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.written() {
            Some(text) => serializer.serialize_str(text.as_str()),
            None => serializer.collect_str(self),
        }
    }
}

/// A timestamp's text, on the stack: `YYYY-MM-DDTHH:MM:SS`, `.` and up to nine digits, `Z`.
struct Written {
    bytes: [u8; 30],
    len: usize,
}

impl Written {
    fn as_str(&self) -> &str {
        // Only ASCII digits and separators are written into it.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl Timestamp {
    /// The text, for the years [`seconds_text`] writes (else chrono writes it).
    fn written(&self) -> Option<Written> {
        let seconds = seconds_text(self.at.timestamp())?;
        let mut bytes = [0u8; 30];
        bytes[..19].copy_from_slice(&seconds);
        let mut len = 19;
        if self.fraction_digits > 0 {
            let digits = usize::from(self.fraction_digits);
            bytes[19] = b'.';
            let mut nanos = self.at.timestamp_subsec_nanos() % 1_000_000_000;
            for at in (20..29).rev() {
                bytes[at] = b'0' + (nanos % 10) as u8;
                nanos /= 10;
            }
            len = 20 + digits;
        }
        bytes[len] = b'Z';
        Some(Written { bytes, len: len + 1 })
    }

    /// The years [`seconds_text`] leaves out, written by chrono.
    fn fmt_with_chrono(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seconds = self.at.to_rfc3339_opts(SecondsFormat::Secs, true);
        if self.fraction_digits == 0 {
            return f.write_str(&seconds);
        }
        let nanos = format!("{:09}", self.at.timestamp_subsec_nanos());
        let base = seconds.trim_end_matches('Z');
        write!(f, "{base}.{}Z", &nanos[..usize::from(self.fraction_digits)])
    }
}

/// `YYYY-MM-DDTHH:MM:SS` of a time `seconds` after 1970-01-01T00:00:00 UTC, for the years 0000
/// to 9999 (`None` outside them). Every result and log line carries the current second, often
/// several times: the last second written on a thread is kept, and the others are worked out
/// with integer arithmetic (a fraction of what a general date formatter costs).
pub(crate) fn seconds_text(seconds: i64) -> Option<[u8; 19]> {
    thread_local! {
        static LAST: Cell<Option<(i64, [u8; 19])>> = const { Cell::new(None) };
    }
    if let Some((last, text)) = LAST.get()
        && last == seconds
    {
        return Some(text);
    }
    let text = civil_text(seconds)?;
    LAST.set(Some((seconds, text)));
    Some(text)
}

/// [`seconds_text`], worked out.
fn civil_text(seconds: i64) -> Option<[u8; 19]> {
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400) as u64;
    let (year, month, day) = civil_date(days);
    let year = u64::try_from(year).ok().filter(|year| *year <= 9999)?;
    let mut text = *b"0000-00-00T00:00:00";
    let mut put = |at: usize, value: u64, width: usize| {
        let mut value = value;
        for i in (at..at + width).rev() {
            text[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, year, 4);
    put(5, month, 2);
    put(8, day, 2);
    put(11, of_day / 3600, 2);
    put(14, of_day / 60 % 60, 2);
    put(17, of_day % 60, 2);
    Some(text)
}

/// The proleptic Gregorian (year, month, day) of a day counted from 1970-01-01.
fn civil_date(days: i64) -> (i64, u64, u64) {
    // Counted in 400-year eras from 0000-03-01, so that the leap day ends a year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let of_era = z.rem_euclid(146_097);
    let year_of_era = (of_era - of_era / 1460 + of_era / 36_524 - of_era / 146_096) / 365;
    let of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * of_year + 2) / 153;
    let day = (of_year - (153 * shifted_month + 2) / 5 + 1) as u64;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 } as u64;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_source_precision() {
        for text in [
            "2026-11-29T10:00:00Z",
            "2026-11-29T10:00:00.5Z",
            "2026-11-29T10:00:00.120Z",
            "2026-11-29T10:00:00.123456789Z",
        ] {
            assert_eq!(Timestamp::parse(text).map(|t| t.to_string()), Ok(text.to_owned()));
        }
        let digits = ["2026-11-29T10:00:00Z", "2026-11-29T10:00:00.120Z"]
            .map(|text| Timestamp::parse(text).map(|t| t.fraction_digits()));
        assert_eq!(digits, [Ok(0), Ok(3)]);
    }

    #[test]
    fn converts_offsets_to_utc() {
        assert_eq!(
            Timestamp::parse("2026-11-29T12:00:00+02:00").map(|t| t.to_string()),
            Ok("2026-11-29T10:00:00Z".to_owned())
        );
    }

    /// A timestamp as chrono writes it.
    struct Chrono(Timestamp);

    impl fmt::Display for Chrono {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt_with_chrono(f)
        }
    }

    #[test]
    fn writes_what_chrono_writes() {
        let instants = [
            (-62_167_219_200, 0),
            (-1, 999_999_999),
            (0, 0),
            (951_782_400, 5),
            (951_868_799, 120_000_000),
            (1_796_169_599, 123_456_789),
            (4_107_542_400, 1),
            (253_402_300_799, 999_000_000),
            (253_402_300_800, 0),
            (-62_167_219_201, 0),
        ];
        for (seconds, nanos) in instants {
            let Some(at) = DateTime::from_timestamp(seconds, nanos) else { panic!("{seconds}") };
            for digits in 0..=9 {
                let timestamp = Timestamp::with_fraction_digits(at, digits);
                let chrono = Chrono(timestamp).to_string();
                assert_eq!(timestamp.to_string(), chrono, "{seconds}.{nanos} with {digits} digits");
                let mut written = String::new();
                assert_eq!(timestamp.write_to(&mut written).map(|()| written), Ok(chrono.clone()));
                // Serialized, the same text as a JSON string (the edge years through chrono).
                assert_eq!(
                    serde_json::to_string(&timestamp).ok(),
                    Some(format!("\"{chrono}\"")),
                    "{seconds}.{nanos} with {digits} digits"
                );
            }
        }
        for (seconds, text) in [
            (0, "1970-01-01T00:00:00"),
            (951_782_400, "2000-02-29T00:00:00"),
            (951_868_799, "2000-02-29T23:59:59"),
            (1_796_169_599, "2026-12-01T23:59:59"),
            (4_107_542_400, "2100-03-01T00:00:00"),
            (253_402_300_799, "9999-12-31T23:59:59"),
            (-1, "1969-12-31T23:59:59"),
        ] {
            let written = seconds_text(seconds).map(|t| String::from_utf8_lossy(&t).into_owned());
            assert_eq!(written.as_deref(), Some(text), "{seconds}");
        }
        assert_eq!(seconds_text(253_402_300_800), None, "year 10000");
        assert_eq!(seconds_text(-62_167_219_201), None, "year -1");
    }

    #[test]
    fn refuses_non_timestamps() {
        assert_eq!(Timestamp::parse("yesterday"), Err(TimestampError("yesterday".into())));
    }
}
