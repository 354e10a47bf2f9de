//! `[[hosts]]`: host profiles added to, or replacing, the built-in ones (DESIGN §11).

use std::path::Path;

use toolwire_core::host::{HostProfile, HostProfiles};

use super::ConfigError;

/// The keys of `[[hosts]]` (the fields of [`HostProfile`]), for [`super::keys`].
pub(super) const KEYS: &[&str] =
    &["name", "client_names", "reads", "max_result_bytes", "reads_links", "strict_structured"];

/// The built-in host profiles with the `[[hosts]]` entries applied; a cap below what an
/// offload stub needs is refused.
pub(super) fn resolve(
    entries: Vec<HostProfile>,
    file: Option<&Path>,
) -> Result<HostProfiles, ConfigError> {
    let mut hosts = HostProfiles::builtin();
    for (i, entry) in entries.into_iter().enumerate() {
        let error = |message: String| ConfigError {
            file: file.map(Path::to_owned),
            key: format!("hosts[{i}]"),
            message,
        };
        if entry.name.is_empty() {
            return Err(error("`name` must not be empty".into()));
        }
        if let Some(cap) = entry.max_result_bytes
            && cap < toolwire_core::MIN_OFFLOAD_LIMIT
        {
            return Err(error(format!(
                "`max_result_bytes` = {cap} is below {} bytes, the least an offload stub needs",
                toolwire_core::MIN_OFFLOAD_LIMIT
            )));
        }
        hosts.insert(entry);
    }
    Ok(hosts)
}
