//! Numeric keywords compare numbers exactly: no `f64` rounding lets a value just past a limit
//! through (DESIGN §12). Checked on written cases and, by property, against a reference that
//! compares decimal strings digit by digit.

use std::cmp::Ordering;

use proptest::prelude::*;
use serde_json::Value;
use toolwire_core::{Shape, ToolOutput, ToolResult};

fn number(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("{text} is not JSON: {err}"))
}

/// Whether `value` passes a data schema `{"type": "object", "properties": {"n": {keyword: limit}}}`.
fn passes(keyword: &str, limit: &str, value: &str) -> bool {
    let schema = number(&format!(
        r#"{{"type": "object", "properties": {{"n": {{"{keyword}": {limit}}}}}}}"#
    ));
    let output = ToolOutput::from_declaration(&schema, Shape::Data)
        .unwrap_or_else(|err| panic!("{schema} refused: {err}"));
    let data = number(&format!(r#"{{"n": {value}}}"#));
    output.check(&ToolResult::success(data)).is_ok()
}

#[test]
fn a_value_just_past_the_maximum_fails() {
    assert!(!passes("maximum", "100", "100.0000000000000000001"));
    assert!(passes("maximum", "100", "100.0000000000000000000"));
    assert!(passes("maximum", "100", "99.99999999999999999999"));
    assert!(!passes("exclusiveMaximum", "100", "100.00000000000000000000"));
    assert!(passes("exclusiveMaximum", "100", "99.9999999999999999999999"));
}

#[test]
fn a_value_just_below_the_minimum_fails() {
    assert!(!passes("minimum", "0", "-0.0000000000000000000001"));
    assert!(!passes("minimum", "1", "0.99999999999999999999"));
    assert!(passes("minimum", "1", "1.000000000000000000001"));
    assert!(!passes("exclusiveMinimum", "1", "1.000000000000000000000"));
    assert!(passes("exclusiveMinimum", "1", "1.000000000000000000001"));
}

#[test]
fn limits_and_values_past_u64_compare_exactly() {
    assert!(!passes("maximum", "18446744073709551615", "18446744073709551616"));
    assert!(passes("maximum", "18446744073709551616", "18446744073709551616"));
    assert!(!passes("maximum", "0.1", "0.10000000000000000001"));
    assert!(!passes("minimum", "-9223372036854775808", "-9223372036854775809"));
    assert!(!passes("maximum", "1e2", "1.00000000000000000001e2"));
}

#[test]
fn draft_4_boolean_exclusive_bounds_are_exact() {
    let schema = number(
        r#"{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
            "properties": {"n": {"maximum": 100, "exclusiveMaximum": true,
                                 "minimum": 0, "exclusiveMinimum": false}}}"#,
    );
    let output =
        ToolOutput::from_declaration(&schema, Shape::Data).unwrap_or_else(|err| panic!("{err}"));
    let check =
        |value: &str| output.check(&ToolResult::success(number(&format!(r#"{{"n": {value}}}"#))));
    assert!(check("99.99999999999999999999").is_ok());
    assert!(check("0").is_ok());
    let Err(violation) = check("100.00000000000000000000") else { panic!("accepted") };
    assert_eq!(violation.path, "/n");
    assert_eq!(
        violation.message,
        "100.00000000000000000000 is greater than or equal to the maximum of 100"
    );
}

#[test]
fn multiple_of_is_exact() {
    assert!(passes("multipleOf", "0.01", "19.99"));
    assert!(!passes("multipleOf", "0.01", "19.990000000000000000001"));
    assert!(!passes("multipleOf", "3", "9.0000000000000000001"));
    assert!(passes("multipleOf", "3", "900000000000000000000000000000"));
    assert!(!passes("multipleOf", "3", "900000000000000000000000000001"));
}

/// A decimal as sign, digits without leading zeros and a power of ten: value = ±digits·10^exp.
fn decimal(text: &str) -> (bool, Vec<u8>, i64) {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exp) = match rest.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let mut exp = exp - frac.len() as i64;
    while digits.first() == Some(&0) {
        digits.remove(0);
    }
    while digits.last() == Some(&0) {
        digits.pop();
        exp += 1;
    }
    (negative && !digits.is_empty(), digits, exp)
}

/// The reference: compares two decimal strings exactly.
fn reference_cmp(a: &str, b: &str) -> Ordering {
    let (a_neg, a_digits, a_exp) = decimal(a);
    let (b_neg, b_digits, b_exp) = decimal(b);
    let magnitude = || {
        if a_digits.is_empty() || b_digits.is_empty() {
            return a_digits.len().cmp(&b_digits.len());
        }
        let a_top = a_digits.len() as i64 + a_exp;
        let b_top = b_digits.len() as i64 + b_exp;
        if a_top != b_top {
            return a_top.cmp(&b_top);
        }
        let longest = a_digits.len().max(b_digits.len());
        let pad = |d: &[u8]| d.iter().copied().chain(std::iter::repeat(0)).take(longest).collect();
        let (a, b): (Vec<u8>, Vec<u8>) = (pad(&a_digits), pad(&b_digits));
        a.cmp(&b)
    };
    match (a_neg, b_neg) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude(),
        (true, true) => magnitude().reverse(),
    }
}

fn decimal_text() -> impl Strategy<Value = String> {
    (any::<bool>(), "[0-9]{1,3}", proptest::option::of("[0-9]{1,25}"), 0u8..4).prop_map(
        |(negative, int, frac, style)| {
            let int = int.trim_start_matches('0');
            let int = if int.is_empty() { "0" } else { int };
            let mut text = String::new();
            if negative {
                text.push('-');
            }
            text.push_str(int);
            if let Some(frac) = frac {
                text.push('.');
                text.push_str(&frac);
            }
            if style == 3 {
                text.push_str("e1");
            }
            text
        },
    )
}

/// Integers of every size, around the length where an `i64` no longer holds them, and `-0`.
fn integer_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        (-1000i64..1000).prop_map(|n| n.to_string()),
        "-?[1-9][0-9]{15,22}",
        Just("-0".to_owned()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn integer_bounds_agree_with_the_reference(limit in integer_text(), value in integer_text()) {
        let order = reference_cmp(&value, &limit);
        prop_assert_eq!(passes("maximum", &limit, &value), order != Ordering::Greater);
        prop_assert_eq!(passes("minimum", &limit, &value), order != Ordering::Less);
        prop_assert_eq!(passes("exclusiveMaximum", &limit, &value), order == Ordering::Less);
        prop_assert_eq!(passes("exclusiveMinimum", &limit, &value), order == Ordering::Greater);
    }

    #[test]
    fn bounds_agree_with_the_reference(limit in decimal_text(), value in decimal_text()) {
        let order = reference_cmp(&value, &limit);
        prop_assert_eq!(passes("maximum", &limit, &value), order != Ordering::Greater);
        prop_assert_eq!(passes("minimum", &limit, &value), order != Ordering::Less);
        prop_assert_eq!(passes("exclusiveMaximum", &limit, &value), order == Ordering::Less);
        prop_assert_eq!(passes("exclusiveMinimum", &limit, &value), order == Ordering::Greater);
    }

    #[test]
    fn near_limits_agree_with_the_reference(
        int in 0u32..1000,
        tail in "[0-9]{18,24}",
        below in any::<bool>(),
    ) {
        // Values that differ from the limit only past f64's 17 significant digits.
        let limit = format!("{int}");
        let value = if below && int > 0 {
            format!("{}.{}", int - 1, "9".repeat(tail.len()))
        } else {
            format!("{int}.{tail}")
        };
        let order = reference_cmp(&value, &limit);
        prop_assert_eq!(passes("maximum", &limit, &value), order != Ordering::Greater);
        prop_assert_eq!(passes("minimum", &limit, &value), order != Ordering::Less);
    }

    #[test]
    fn multiple_of_agrees_with_integer_arithmetic(
        value in -10_000_000i64..10_000_000,
        divisor in 1i64..100_000,
        tail in "[0-9]{0,20}",
    ) {
        // Both scaled by 10^-6; a nonzero tail past the sixth decimal never divides.
        let show = |n: i64| format!("{}{}.{:06}", if n < 0 { "-" } else { "" }, n.abs() / 1_000_000, n.abs() % 1_000_000);
        let tail_zero = tail.bytes().all(|b| b == b'0');
        let expected = value % divisor == 0 && tail_zero;
        let written = format!("{}{tail}", show(value));
        prop_assert_eq!(passes("multipleOf", &show(divisor), &written), expected, "{} / {}", written, show(divisor));
    }
}

#[test]
fn the_reference_compares_decimals() {
    assert_eq!(reference_cmp("100.0000000000000000001", "100"), Ordering::Greater);
    assert_eq!(reference_cmp("1e1", "10.0"), Ordering::Equal);
    assert_eq!(reference_cmp("-0.5", "0"), Ordering::Less);
    assert_eq!(reference_cmp("-0.0", "0"), Ordering::Equal);
    assert_eq!(reference_cmp("-2", "-10"), Ordering::Greater);
}
