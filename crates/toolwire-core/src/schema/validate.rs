//! Checking data against a compiled schema, reporting the first mismatch by instance path.

use serde_json::Value;

use super::Violation;

/// Checks `data`; the first error becomes the violation.
pub(crate) fn check(validator: &jsonschema::Validator, data: &Value) -> Result<(), Violation> {
    match validator.validate(data) {
        Ok(()) => Ok(()),
        Err(error) => Err(Violation {
            path: error.instance_path().as_str().to_owned(),
            message: error.to_string(),
        }),
    }
}
