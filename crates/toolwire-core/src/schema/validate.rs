//! Checking data against a compiled schema, reporting the first mismatch by instance path.

use serde_json::Value;

use super::Violation;

/// Checks `data`; the first error becomes the violation.
pub(crate) fn check(validator: &jsonschema::Validator, data: &Value) -> Result<(), Violation> {
    // The yes-or-no walk keeps no locations and stops at nothing to report: data that passes,
    // nearly all of it, is walked once that way; only a failure is walked again for its error.
    if validator.is_valid(data) {
        return Ok(());
    }
    match validator.validate(data) {
        Ok(()) => Ok(()),
        Err(error) => Err(Violation {
            path: error.instance_path().as_str().to_owned(),
            message: error.to_string(),
        }),
    }
}
