//! Property tests: round trips through the v1 form, and no panics on arbitrary input.

mod support;

use proptest::collection::vec;
use proptest::prelude::*;
use toolwire_core::{Part, Provenance, ToolResult, legacy, parse_any, v1};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The generator only makes valid results: a success or a failure, never both, never null
    /// data, failures without data, always native.
    #[test]
    fn generated_results_are_valid(result in support::arb_result()) {
        prop_assert!(result.is_success() != result.is_failure());
        prop_assert!(result.data().is_none_or(|d| !d.is_null()));
        prop_assert!(result.is_success() || result.data().is_none());
        prop_assert_eq!(result.provenance(), &Provenance::Native);
    }

    /// parse(serialize(r)) == r, and serializing again gives the same bytes.
    #[test]
    fn v1_round_trip(result in support::arb_result()) {
        let bytes = v1::to_vec(&result);
        let parsed = v1::parse(&bytes);
        prop_assert_eq!(parsed.as_ref(), Ok(&result));
        let any = parse_any(&bytes);
        prop_assert_eq!(any.as_ref(), Ok(&result));
        if let Ok(parsed) = parsed {
            prop_assert_eq!(v1::to_vec(&parsed), bytes);
        }
    }

    /// Arbitrary bytes: a result or an error, never a panic; and what parses has a v1 form
    /// that is a fixed point.
    #[test]
    fn parse_any_never_panics_on_bytes(bytes in vec(any::<u8>(), 0..512)) {
        if let Ok(result) = parse_any(&bytes) {
            assert_v1_fixed_point(&result)?;
        }
        if let Ok(result) = v1::parse(&bytes) {
            assert_v1_fixed_point(&result)?;
        }
    }

    /// Bytes close to valid documents reach the deep paths of both parsers: a v1 document or a
    /// legacy-looking envelope with one byte changed, removed or inserted.
    #[test]
    fn parse_any_never_panics_on_damaged_documents(
        result in support::arb_result(),
        legacy_shape in any::<bool>(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        edit in 0u8..3,
    ) {
        let mut bytes = if legacy_shape {
            let v1_text = v1::to_string(&result);
            v1_text.replacen(r#""format":"toolwire.result.v1""#, r#""success":true"#, 1).into_bytes()
        } else {
            v1::to_vec(&result)
        };
        let i = at.index(bytes.len() + 1);
        match edit {
            0 if i < bytes.len() => bytes[i] = byte,
            1 if i < bytes.len() => { bytes.remove(i); }
            _ => bytes.insert(i, byte),
        }
        if let Ok(result) = parse_any(&bytes) {
            assert_v1_fixed_point(&result)?;
        }
    }

    /// The legacy parser never fails; what is not an object stays the exact input.
    #[test]
    fn legacy_parse_never_panics_and_passes_non_objects_through(text in any::<String>()) {
        let parsed = legacy::parse(&text);
        assert_v1_fixed_point(&parsed)?;
        if !text.trim_start().starts_with('{') {
            prop_assert_eq!(parsed.provenance(), &Provenance::Passthrough(text.clone()));
            prop_assert_eq!(parsed.parts(), &[Part::text(text.as_str())]);
        }
    }
}

/// The v1 form of any parsed result parses back to a result with the same v1 form: nothing a
/// forgiving parser kept is lost on the way to storage.
fn assert_v1_fixed_point(result: &ToolResult) -> Result<(), TestCaseError> {
    let bytes = v1::to_vec(result);
    let again = v1::parse(&bytes).map_err(|err| TestCaseError::fail(err.to_string()))?;
    prop_assert_eq!(v1::to_vec(&again), bytes);
    Ok(())
}
