//! RFC 3339 timestamps in UTC that remember how many fractional digits their source had, so
//! that a parsed timestamp renders exactly as it came in ("seconds unless the source had a
//! fraction").

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
        let seconds = self.at.to_rfc3339_opts(SecondsFormat::Secs, true);
        if self.fraction_digits == 0 {
            return f.write_str(&seconds);
        }
        let nanos = format!("{:09}", self.at.timestamp_subsec_nanos());
        let base = seconds.trim_end_matches('Z');
        write!(f, "{base}.{}Z", &nanos[..usize::from(self.fraction_digits)])
    }
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

    #[test]
    fn refuses_non_timestamps() {
        assert_eq!(Timestamp::parse("yesterday"), Err(TimestampError("yesterday".into())));
    }
}
