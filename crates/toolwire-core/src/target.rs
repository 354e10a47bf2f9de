//! Output targets (the legacy envelope, each MCP revision, each A2A version), phases and
//! structured shapes.

use std::fmt;
use std::str::FromStr;

/// An MCP protocol revision toolwire renders for.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum McpRevision {
    /// 2024-11-05.
    V2024_11_05,
    /// 2025-03-26.
    V2025_03_26,
    /// 2025-06-18.
    V2025_06_18,
    /// 2025-11-25.
    V2025_11_25,
    /// 2026-07-28, the first stateless revision.
    V2026_07_28,
}

impl McpRevision {
    /// Every revision, oldest first.
    pub const ALL: [McpRevision; 5] = [
        McpRevision::V2024_11_05,
        McpRevision::V2025_03_26,
        McpRevision::V2025_06_18,
        McpRevision::V2025_11_25,
        McpRevision::V2026_07_28,
    ];

    /// The newest revision (what previews and listings show when no revision is asked for).
    pub const NEWEST: McpRevision = Self::ALL[Self::ALL.len() - 1];

    /// The revision's date string.
    pub fn as_str(self) -> &'static str {
        match self {
            McpRevision::V2024_11_05 => "2024-11-05",
            McpRevision::V2025_03_26 => "2025-03-26",
            McpRevision::V2025_06_18 => "2025-06-18",
            McpRevision::V2025_11_25 => "2025-11-25",
            McpRevision::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision with exactly this date (what the gateway accepts).
    pub fn exact(date: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == date)
    }

    /// The newest known revision not later than `date` (what `render --target` and the library
    /// lookup accept). A string that is not a `YYYY-MM-DD` date, a day no calendar has
    /// (`2025-02-31`), or a date before the oldest revision, is an error.
    pub fn nearest_older(date: &str) -> Result<Self, TargetError> {
        check_date(date)?;
        // ISO dates compare correctly as strings.
        Self::ALL
            .into_iter()
            .rev()
            .find(|r| r.as_str() <= date)
            .ok_or_else(|| TargetError::TooOld(date.to_owned()))
    }
}

/// Checks that `text` is a `YYYY-MM-DD` day of the Gregorian calendar.
fn check_date(text: &str) -> Result<(), TargetError> {
    let not_a_date = || TargetError::NotADate(text.to_owned());
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(not_a_date());
    }
    let number = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0u32, |n, d| d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0')))
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return Err(not_a_date());
    };
    if !(1..=12).contains(&month) || day == 0 {
        return Err(not_a_date());
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if day > days {
        return Err(TargetError::NoSuchDay { date: text.to_owned(), days });
    }
    Ok(())
}

/// An A2A protocol version.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum A2aVersion {
    /// 0.3 (JSON Schema, `kind` discriminators).
    V0_3,
    /// 1.0 (proto-first).
    V1_0,
}

/// Where a rendered result goes. Ordered as [`Target::ALL`] (so it can key a map); spoken by
/// its [name](Target::name) in `Display`, `FromStr` and serde.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// The legacy `{"success": …}` envelope string.
    Legacy,
    /// An MCP `CallToolResult` for a revision.
    Mcp(McpRevision),
    /// An A2A `Task` for a version.
    A2a(A2aVersion),
}

/// A target name toolwire cannot use.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Not one of the target names.
    #[error("unknown target `{0}`; expected legacy, mcp-<YYYY-MM-DD>, a2a-0.3 or a2a-1.0")]
    Unknown(String),
    /// `mcp-` followed by something that is not a date.
    #[error("`{0}` is not a date (YYYY-MM-DD)")]
    NotADate(String),
    /// A `YYYY-MM-DD` date past the end of its month.
    #[error("`{date}` is not a date: its month has {days} days")]
    NoSuchDay {
        /// The date given.
        date: String,
        /// How many days its month has.
        days: u32,
    },
    /// A date before the oldest MCP revision.
    #[error("`{0}` is older than the oldest MCP revision (2024-11-05)")]
    TooOld(String),
}

impl Target {
    /// Every target, in documentation order.
    pub const ALL: [Target; 8] = [
        Target::Legacy,
        Target::Mcp(McpRevision::V2024_11_05),
        Target::Mcp(McpRevision::V2025_03_26),
        Target::Mcp(McpRevision::V2025_06_18),
        Target::Mcp(McpRevision::V2025_11_25),
        Target::Mcp(McpRevision::V2026_07_28),
        Target::A2a(A2aVersion::V0_3),
        Target::A2a(A2aVersion::V1_0),
    ];

    /// Parses a target name; an unknown MCP date maps to the newest revision not later than it.
    pub fn parse(name: &str) -> Result<Self, TargetError> {
        match name {
            "legacy" => Ok(Target::Legacy),
            "a2a-0.3" => Ok(Target::A2a(A2aVersion::V0_3)),
            "a2a-1.0" => Ok(Target::A2a(A2aVersion::V1_0)),
            _ => match name.strip_prefix("mcp-") {
                Some(date) => McpRevision::nearest_older(date).map(Target::Mcp),
                None => Err(TargetError::Unknown(name.to_owned())),
            },
        }
    }

    /// The target's name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Legacy => "legacy",
            Target::Mcp(McpRevision::V2024_11_05) => "mcp-2024-11-05",
            Target::Mcp(McpRevision::V2025_03_26) => "mcp-2025-03-26",
            Target::Mcp(McpRevision::V2025_06_18) => "mcp-2025-06-18",
            Target::Mcp(McpRevision::V2025_11_25) => "mcp-2025-11-25",
            Target::Mcp(McpRevision::V2026_07_28) => "mcp-2026-07-28",
            Target::A2a(A2aVersion::V0_3) => "a2a-0.3",
            Target::A2a(A2aVersion::V1_0) => "a2a-1.0",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = TargetError;

    /// As [`Target::parse`].
    fn from_str(name: &str) -> Result<Self, TargetError> {
        Self::parse(name)
    }
}

impl serde::Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::names::deserialize(deserializer)
    }
}

/// Which formats a result goes out in.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Phase {
    /// Both formats: the legacy envelope stays the first text block.
    #[default]
    Compat,
    /// The spec format only.
    Spec,
}

crate::named!(Phase, "phase", { Compat => "compat", Spec => "spec" });

/// The shape of a tool's structured result.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Shape {
    /// The data itself.
    #[default]
    Data,
    /// `{"success", "message", "data"}` for bridges whose clients expect that envelope.
    Envelope,
}

crate::named!(Shape, "shape", { Data => "data", Envelope => "envelope" });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_name_parses_to_itself() {
        for target in Target::ALL {
            assert_eq!(Target::parse(target.name()), Ok(target));
        }
    }

    #[test]
    fn unknown_dates_map_to_the_nearest_older_revision() {
        assert_eq!(Target::parse("mcp-2025-07-01"), Ok(Target::Mcp(McpRevision::V2025_06_18)));
        assert_eq!(Target::parse("mcp-2030-01-01"), Ok(Target::Mcp(McpRevision::V2026_07_28)));
        assert_eq!(Target::parse("mcp-2025-03-25"), Ok(Target::Mcp(McpRevision::V2024_11_05)));
    }

    #[test]
    fn non_dates_and_too_old_dates_are_errors() {
        assert_eq!(Target::parse("mcp-latest"), Err(TargetError::NotADate("latest".into())));
        assert_eq!(
            Target::parse("mcp-2025-13-01"),
            Err(TargetError::NotADate("2025-13-01".into()))
        );
        assert_eq!(Target::parse("mcp-2020-01-01"), Err(TargetError::TooOld("2020-01-01".into())));
        assert_eq!(Target::parse("json"), Err(TargetError::Unknown("json".into())));
    }

    #[test]
    fn days_past_the_end_of_their_month_are_refused() {
        for (date, days) in [("2025-02-31", 28), ("2025-04-31", 30), ("2023-02-29", 28)] {
            let refused = Target::parse(&format!("mcp-{date}")).map_err(|e| e.to_string());
            assert_eq!(refused, Err(format!("`{date}` is not a date: its month has {days} days")));
        }
        assert_eq!(
            Target::parse("mcp-2025-01-00"),
            Err(TargetError::NotADate("2025-01-00".into()))
        );
        assert_eq!(
            McpRevision::nearest_older("2100-02-29"),
            Err(TargetError::NoSuchDay { date: "2100-02-29".into(), days: 28 })
        );
        // Leap days of leap years are dates (this one merely predates every revision).
        assert_eq!(Target::parse("mcp-2024-02-29"), Err(TargetError::TooOld("2024-02-29".into())));
        assert_eq!(Target::parse("mcp-2028-02-29"), Ok(Target::Mcp(McpRevision::V2026_07_28)));
        assert_eq!(Target::parse("mcp-2025-12-31"), Ok(Target::Mcp(McpRevision::V2025_11_25)));
    }

    proptest::proptest! {
        #[test]
        fn calendar_days_are_chronos(y in 0i32..10_000, m in 1u32..=12, d in 1u32..=31) {
            let date = format!("{y:04}-{m:02}-{d:02}");
            let real = chrono::NaiveDate::from_ymd_opt(y, m, d).is_some();
            let refused =
                matches!(McpRevision::nearest_older(&date), Err(TargetError::NoSuchDay { .. }));
            proptest::prop_assert_eq!(real, !refused, "{}", date);
        }
    }

    #[test]
    fn names_round_trip_through_display_from_str_and_serde() {
        assert!(Target::ALL.is_sorted(), "the order is the documentation order");
        for target in Target::ALL {
            assert_eq!(target.to_string().parse::<Target>(), Ok(target));
            let json = serde_json::to_string(&target).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", target.name()));
            assert_eq!(serde_json::from_str::<Target>(&json).ok(), Some(target));
        }
        for phase in Phase::ALL.iter().copied() {
            assert_eq!(phase.to_string().parse::<Phase>(), Ok(phase));
            let json = serde_json::to_string(&phase).unwrap_or_default();
            assert_eq!(serde_json::from_str::<Phase>(&json).ok(), Some(phase));
        }
        for shape in Shape::ALL.iter().copied() {
            assert_eq!(shape.to_string().parse::<Shape>(), Ok(shape));
            let json = serde_json::to_string(&shape).unwrap_or_default();
            assert_eq!(serde_json::from_str::<Shape>(&json).ok(), Some(shape));
        }
        assert_eq!(Phase::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>(), ["compat", "spec"]);
        assert_eq!(Shape::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(), ["data", "envelope"]);
    }

    #[test]
    fn bad_names_say_what_was_given_and_what_is_accepted() {
        let phase = "both".parse::<Phase>().map_err(|e| e.to_string());
        assert_eq!(phase, Err("unknown phase `both`; expected compat or spec".into()));
        let shape = "Data".parse::<Shape>().map_err(|e| e.to_string());
        assert_eq!(shape, Err("unknown shape `Data`; expected data or envelope".into()));
        let target =
            serde_json::from_str::<Target>("\"mcp-2025-02-30\"").map_err(|e| e.to_string());
        assert_eq!(
            target,
            Err("`2025-02-30` is not a date: its month has 28 days at line 1 column 16".into())
        );
        let number = serde_json::from_str::<Phase>("1").map_err(|e| e.to_string());
        assert_eq!(
            number,
            Err("invalid type: integer `1`, expected a name at line 1 column 1".into())
        );
    }
}
