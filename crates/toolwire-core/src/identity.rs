//! What a result says about the server that rendered it: the `_meta` prefix and `serverInfo`.
//! The mapper's configuration holds them; the MCP lowering writes them.

/// The names results carry: the `_meta` prefix and `serverInfo`. Shared, so that a result kept
/// for an SDK (`McpOutput`) holds them without copying them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Names {
    /// The `_meta` prefix, e.g. `dev.toolwire`.
    pub(crate) prefix: String,
    /// `serverInfo.name`.
    pub(crate) server_name: String,
    /// `serverInfo.version`.
    pub(crate) server_version: String,
}
