//! Output targets (the legacy envelope, each MCP revision, each A2A version), phases and
//! structured shapes.

use std::fmt;

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
    /// lookup accept). A string that is not a `YYYY-MM-DD` date, or a date before the oldest
    /// revision, is an error.
    pub fn nearest_older(date: &str) -> Result<Self, TargetError> {
        if !is_date(date) {
            return Err(TargetError::NotADate(date.to_owned()));
        }
        // ISO dates compare correctly as strings.
        Self::ALL
            .into_iter()
            .rev()
            .find(|r| r.as_str() <= date)
            .ok_or_else(|| TargetError::TooOld(date.to_owned()))
    }

    /// Whether the revision is stateless (no `initialize` handshake): the revision table's
    /// [`stateless`](crate::revision::McpCaps::stateless) column.
    pub fn is_stateless(self) -> bool {
        crate::revision::McpCaps::of(self).stateless
    }
}

fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && digits(5..7) && digits(8..10)) {
        return false;
    }
    let month = (b[5] - b'0') * 10 + (b[6] - b'0');
    let day = (b[8] - b'0') * 10 + (b[9] - b'0');
    (1..=12).contains(&month) && (1..=31).contains(&day)
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

/// Where a rendered result goes.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

impl Phase {
    /// Parses `compat` or `spec`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "compat" => Some(Phase::Compat),
            "spec" => Some(Phase::Spec),
            _ => None,
        }
    }
}

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

impl Shape {
    /// Parses `data` or `envelope`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "data" => Some(Shape::Data),
            "envelope" => Some(Shape::Envelope),
            _ => None,
        }
    }
}

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
}
