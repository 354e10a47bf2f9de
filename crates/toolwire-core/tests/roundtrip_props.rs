//! Property tests: round trips through the v1 form and no panics on arbitrary input.

mod support;

use proptest::prelude::*;
use toolwire_core::Provenance;

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
}
