//! The mapper's settings ([`MapperConfig`]) and what one render is for ([`RenderContext`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::DEFAULT_LIMIT;
use crate::grammar;
use crate::host::{HostProfile, Reads};
use crate::identity::Names;
use crate::layout::{DataSchema, Declared};
use crate::meta::Query;
use crate::schema::{ToolOutput, ValidationMode};
use crate::target::{Shape, Target};
use crate::timestamp::Timestamp;

/// Why a configuration was refused.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The prefix breaks the `_meta` label grammar.
    #[error(
        "`_meta` prefix `{0}` is not one or more dot-separated labels (letters, digits, `-`; each starting with a letter and ending with a letter or digit)"
    )]
    MalformedPrefix(String),
    /// The prefix is reserved (for MCP, or toolwire's own `legacy` namespace).
    #[error("`_meta` prefix `{0}` is reserved")]
    ReservedPrefix(String),
}

/// The mapper's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapperConfig {
    pub(super) names: Arc<Names>,
    /// Bytes per target; a target without an entry has no limit.
    pub(super) limits: BTreeMap<Target, usize>,
    pub(super) validation: ValidationMode,
}

impl Default for MapperConfig {
    fn default() -> Self {
        let limits = Target::ALL
            .into_iter()
            .filter(|target| !matches!(target, Target::A2a(_)))
            .map(|target| (target, DEFAULT_LIMIT))
            .collect();
        Self {
            names: Arc::new(Names {
                prefix: grammar::DEFAULT_PREFIX.to_owned(),
                server_name: "toolwire".to_owned(),
                server_version: env!("CARGO_PKG_VERSION").to_owned(),
            }),
            limits,
            validation: ValidationMode::Enforce,
        }
    }
}

impl MapperConfig {
    /// With another `_meta` prefix (`com.acme` gives `com.acme/generatedAt`); refuses a prefix
    /// outside the label grammar or a reserved one.
    pub fn with_prefix(mut self, prefix: &str) -> Result<Self, ConfigError> {
        if !grammar::is_prefix(prefix) {
            return Err(ConfigError::MalformedPrefix(prefix.to_owned()));
        }
        if grammar::is_mcp_reserved(prefix) || prefix == grammar::LEGACY_NAMESPACE {
            return Err(ConfigError::ReservedPrefix(prefix.to_owned()));
        }
        prefix.clone_into(&mut Arc::make_mut(&mut self.names).prefix);
        Ok(self)
    }

    /// With a size limit for `target` (`None`: no limit).
    pub fn with_limit(mut self, target: Target, limit: Option<usize>) -> Self {
        match limit {
            Some(bytes) => self.limits.insert(target, bytes),
            None => self.limits.remove(&target),
        };
        self
    }

    /// With the `serverInfo` that 2026-07-28 results carry.
    pub fn with_server_info(mut self, name: &str, version: &str) -> Self {
        let names = Arc::make_mut(&mut self.names);
        name.clone_into(&mut names.server_name);
        version.clone_into(&mut names.server_version);
        self
    }

    /// With a validation mode.
    pub fn with_validation(mut self, mode: ValidationMode) -> Self {
        self.validation = mode;
        self
    }

    /// The size limit of `target`.
    pub fn limit(&self, target: Target) -> Option<usize> {
        self.limits.get(&target).copied()
    }

    /// The `_meta` prefix.
    pub fn prefix(&self) -> &str {
        &self.names.prefix
    }

    /// The server name results carry (`serverInfo.name`).
    pub fn server_name(&self) -> &str {
        &self.names.server_name
    }

    /// The server version results carry (`serverInfo.version`).
    pub fn server_version(&self) -> &str {
        &self.names.server_version
    }

    /// The validation mode.
    pub fn validation(&self) -> ValidationMode {
        self.validation
    }
}

/// What the mapper needs to know about the tool and the caller for one render.
#[derive(Debug, Clone)]
pub struct RenderContext<'a> {
    pub(crate) tool_name: &'a str,
    pub(super) now: Timestamp,
    pub(crate) output: Option<&'a ToolOutput>,
    pub(super) input_schema: Option<&'a Value>,
    pub(super) query: Option<Query>,
    pub(super) task_id: &'a str,
    pub(super) context_id: &'a str,
    pub(super) request_state: Option<&'a str>,
    pub(super) host: Option<&'a HostProfile>,
}

impl<'a> RenderContext<'a> {
    /// A context for a call of `tool_name` rendered at `now` (the generation time unless the
    /// result has its own); A2A ids default to `task-1` / `context-1`.
    pub fn new(tool_name: &'a str, now: Timestamp) -> Self {
        Self {
            tool_name,
            now,
            output: None,
            input_schema: None,
            query: None,
            task_id: "task-1",
            context_id: "context-1",
            request_state: None,
            host: None,
        }
    }

    /// The sealed `requestState` an input-required result carries on 2026-07-28 (sealing binds
    /// it to the tool, caller and arguments, so it is made by the caller, not here).
    pub fn request_state(mut self, sealed: &'a str) -> Self {
        self.request_state = Some(sealed);
        self
    }

    /// The host the result is for (DESIGN §11); without it: the `generic` rendering.
    pub fn host(mut self, profile: &'a HostProfile) -> Self {
        self.host = Some(profile);
        self
    }

    /// Whether the host reads only `structuredContent` when present.
    pub(super) fn structured_reader(&self) -> bool {
        self.host.is_some_and(|h| h.reads == Reads::Structured)
    }

    /// Whether the host is shown the tool's `outputSchema` (the `generic` rendering is).
    pub(super) fn host_sees_output_schema(&self) -> bool {
        self.host.is_none_or(HostProfile::sees_output_schema)
    }

    /// Whether the host reads the data once, from `structuredContent` when it is sent.
    pub(super) fn reads_each_fact_once(&self) -> bool {
        self.host.is_some_and(HostProfile::reads_each_fact_once)
    }

    /// Whether the host can follow links.
    pub(super) fn reads_links(&self) -> bool {
        self.host.is_none_or(|h| h.reads_links)
    }

    /// The tool's declared output (schema and shape); without it: data shape, no schema.
    pub fn output(mut self, output: &'a ToolOutput) -> Self {
        self.output = Some(output);
        self
    }

    /// The tool's published input schema (echoed as `input_schema` by the envelope shape on
    /// `invalid_arguments`).
    pub fn input_schema(mut self, schema: &'a Value) -> Self {
        self.input_schema = Some(schema);
        self
    }

    /// The call to echo in an offload stub.
    pub fn query(mut self, query: Query) -> Self {
        self.query = Some(query);
        self
    }

    /// The A2A task id.
    pub fn task_id(mut self, id: &'a str) -> Self {
        self.task_id = id;
        self
    }

    /// The A2A context id.
    pub fn context_id(mut self, id: &'a str) -> Self {
        self.context_id = id;
        self
    }

    pub(super) fn declared(&self) -> Declared {
        match self.output {
            None => Declared { shape: Shape::Data, schema: DataSchema::None },
            Some(output) => Declared {
                shape: output.shape(),
                schema: match output.declared() {
                    None => DataSchema::None,
                    Some(_) if output.root_is_object() => DataSchema::ObjectRoot,
                    Some(_) => DataSchema::OtherRoot,
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_checked() {
        assert_eq!(
            MapperConfig::default().with_prefix("com..acme"),
            Err(ConfigError::MalformedPrefix("com..acme".into()))
        );
        assert_eq!(
            MapperConfig::default().with_prefix("io.modelcontextprotocol"),
            Err(ConfigError::ReservedPrefix("io.modelcontextprotocol".into()))
        );
        assert_eq!(
            MapperConfig::default().with_prefix("com.acme").map(|c| c.prefix().to_owned()),
            Ok("com.acme".into())
        );
    }

    #[test]
    fn limits_are_kept_per_target() {
        let legacy_only = MapperConfig::default().with_limit(Target::Legacy, Some(5000));
        assert_eq!(legacy_only.limit(Target::Legacy), Some(5000));
        for target in Target::ALL.into_iter().skip(1) {
            let expected = match target {
                Target::A2a(_) => None,
                _ => Some(DEFAULT_LIMIT),
            };
            assert_eq!(legacy_only.limit(target), expected, "{target}");
        }
        let a2a = Target::A2a(crate::target::A2aVersion::V1_0);
        let unlimited =
            MapperConfig::default().with_limit(Target::Legacy, None).with_limit(a2a, Some(9000));
        assert_eq!((unlimited.limit(Target::Legacy), unlimited.limit(a2a)), (None, Some(9000)));
    }
}
