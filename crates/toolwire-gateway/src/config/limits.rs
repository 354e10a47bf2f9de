//! `[limits]`: the size limit of a result per MCP revision, which the output mapper renders with.

use std::collections::BTreeMap;

use toolwire_core::Target;

use super::{ConfigError, Refuse};

/// `[limits]`: bytes per target, keyed by the target name (`mcp-2025-06-18`), or `mcp` for
/// every MCP revision at once (a revision's own key wins).
pub type LimitsConfig = BTreeMap<String, u64>;

/// The keys of `[limits]`, for [`super::keys`]: `mcp`, and `"<target>"` standing for the name
/// of each MCP target.
pub(super) const KEYS: &[&str] = &[ALL_MCP_LIMIT, "\"<target>\""];

/// The `[limits]` key standing for every MCP revision.
const ALL_MCP_LIMIT: &str = "mcp";

/// `[limits]`: every MCP revision starts at the default; `mcp` sets them all, a revision's own
/// key (its target name) sets that one. The gateway serves MCP only, so other targets are refused.
pub(super) fn resolve(
    given: &LimitsConfig,
    error: Refuse,
) -> Result<BTreeMap<Target, u64>, ConfigError> {
    let mcp: Vec<Target> =
        Target::ALL.into_iter().filter(|t| matches!(t, Target::Mcp(_))).collect();
    let mut limits: BTreeMap<Target, u64> =
        mcp.iter().map(|t| (*t, DEFAULT_MAPPER_LIMIT)).collect();
    for (name, &limit) in given {
        let key = format!("limits.{name}");
        let targets: Vec<Target> = match mcp.iter().find(|t| t.name() == name) {
            Some(target) => vec![*target],
            None if name == ALL_MCP_LIMIT => {
                mcp.iter().filter(|t| !given.contains_key(t.name())).copied().collect()
            }
            None => {
                let names: Vec<&str> = mcp.iter().map(|t| t.name()).collect();
                return Err(error(
                    &key,
                    format!(
                        "`{name}` is not an MCP target; expected {ALL_MCP_LIMIT} (every revision) or one of {}",
                        names.join(", ")
                    ),
                ));
            }
        };
        if limit < MIN_LIMIT {
            return Err(error(
                &key,
                format!("{limit} is below the smallest limit, {MIN_LIMIT} bytes"),
            ));
        }
        for target in targets {
            limits.insert(target, limit);
        }
    }
    Ok(limits)
}

/// The default size limit of a target, as a config value.
const DEFAULT_MAPPER_LIMIT: u64 = toolwire_core::DEFAULT_LIMIT as u64;
/// The smallest `[limits]` value: what an offload stub needs.
const MIN_LIMIT: u64 = toolwire_core::MIN_OFFLOAD_LIMIT as u64;
