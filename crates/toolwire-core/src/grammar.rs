//! The MCP `_meta` key grammar (prefix labels and names) and the reserved-prefix rules.
//!
//! Extension namespaces are `_meta` prefixes without the trailing `/`; extension keys are `_meta`
//! names. The same rules back the strict constructors, the forgiving parsers (which route what
//! fails here to `legacy/extra`) and `toolwire validate`.

/// The `_meta` prefix toolwire renders its own keys under unless configured otherwise.
pub const DEFAULT_PREFIX: &str = "dev.toolwire";

/// The namespace the legacy parser keeps unmapped `_meta` keys in.
pub const LEGACY_NAMESPACE: &str = "legacy";

/// True when `label` is one `_meta` prefix label: starts with a letter, ends with a letter or
/// digit, and holds only letters, digits and `-` in between.
pub fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

/// True when `prefix` (without the trailing `/`) is one or more dot-separated labels.
pub fn is_prefix(prefix: &str) -> bool {
    !prefix.is_empty() && prefix.split('.').all(is_label)
}

/// True when `name` is a non-empty `_meta` name: begins and ends with an alphanumeric character,
/// with alphanumerics, `-`, `_` or `.` in between.
pub fn is_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// True when a well-formed prefix is reserved by MCP: its second label is `modelcontextprotocol`
/// or `mcp` (2025-11-25 and later), or any label but the last is (the 2025-06-18 wording, which
/// covers a first label `modelcontextprotocol`/`mcp`).
pub fn is_mcp_reserved(prefix: &str) -> bool {
    let labels: Vec<&str> = prefix.split('.').collect();
    let reserved = |l: &str| l == "modelcontextprotocol" || l == "mcp";
    labels.get(1).is_some_and(|l| reserved(l))
        || labels.iter().take(labels.len().saturating_sub(1)).any(|l| reserved(l))
}

/// Splits a full `_meta` key into `(prefix, name)`; keys without `/` have no prefix.
pub fn split_key(key: &str) -> (Option<&str>, &str) {
    match key.rfind('/') {
        Some(i) => (Some(&key[..i]), &key[i + 1..]),
        None => (None, key),
    }
}

/// Why a full `_meta` key breaks the grammar or uses a reserved prefix, or `None` when it is
/// fine. The keys the protocol itself defines (`progressToken` and the OpenTelemetry keys) pass.
pub fn meta_key_problem(key: &str) -> Option<String> {
    if matches!(key, "progressToken" | "traceparent" | "tracestate" | "baggage") {
        return None;
    }
    let (prefix, name) = split_key(key);
    if !name.is_empty() && !is_name(name) {
        return Some(format!("`_meta` key `{key}`: name `{name}` breaks the `_meta` name grammar"));
    }
    if let Some(prefix) = prefix {
        if !is_prefix(prefix) {
            return Some(format!(
                "`_meta` key `{key}`: prefix `{prefix}/` breaks the label grammar"
            ));
        }
        if is_mcp_reserved(prefix) {
            return Some(format!("`_meta` key `{key}`: prefix `{prefix}/` is reserved for MCP"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_names() {
        assert!(is_prefix("dev.toolwire"));
        assert!(is_prefix("com.acme-pay.x1"));
        assert!(!is_prefix("1com.acme"));
        assert!(!is_prefix("com.acme-"));
        assert!(!is_prefix("com..acme"));
        assert!(!is_prefix(""));
        assert!(is_name("ledger"));
        assert!(is_name("a.b_c-d"));
        assert!(!is_name("_ledger"));
        assert!(!is_name("ledger."));
        assert!(!is_name(""));
    }

    #[test]
    fn reserved_prefixes() {
        for p in [
            "io.modelcontextprotocol",
            "dev.mcp",
            "org.modelcontextprotocol.api",
            "com.mcp.tools",
            "modelcontextprotocol.io",
            "mcp.dev",
            "api.modelcontextprotocol.org",
        ] {
            assert!(is_mcp_reserved(p), "{p}");
        }
        for p in ["com.example.mcp", "dev.toolwire", "mcp"] {
            assert!(!is_mcp_reserved(p), "{p}");
        }
    }

    #[test]
    fn whole_keys() {
        assert_eq!(meta_key_problem("dev.toolwire/generatedAt"), None);
        assert_eq!(meta_key_problem("io.modelcontextprotocol/serverInfo"), Some("`_meta` key `io.modelcontextprotocol/serverInfo`: prefix `io.modelcontextprotocol/` is reserved for MCP".into()));
        assert!(meta_key_problem("bad key").is_some());
        assert_eq!(meta_key_problem("progressToken"), None);
    }
}
