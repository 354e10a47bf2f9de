//! Exact numeric keywords. jsonschema compares numbers through `f64`, so with serde_json's
//! `arbitrary_precision` a value such as `100.0000000000000000001` passes `maximum: 100` and
//! reaches the tool as written. These keywords replace `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf` with comparisons on the decimal
//! text itself, keeping jsonschema's messages, so error paths and wording stay as they were.

use std::cmp::Ordering;

use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError, ValidationOptions};
use num_bigint::BigUint;
use serde_json::{Map, Number, Value};

/// The schema-compiling options with every numeric keyword compared exactly.
pub fn exact_numbers(options: ValidationOptions<'_>) -> ValidationOptions<'_> {
    options
        .with_keyword("minimum", |parent: &Map<String, Value>, value: &Value, _: Location| {
            bound(parent, value, Bound::Minimum)
        })
        .with_keyword("maximum", |parent: &Map<String, Value>, value: &Value, _: Location| {
            bound(parent, value, Bound::Maximum)
        })
        .with_keyword(
            "exclusiveMinimum",
            |parent: &Map<String, Value>, value: &Value, _: Location| {
                bound(parent, value, Bound::ExclusiveMinimum)
            },
        )
        .with_keyword(
            "exclusiveMaximum",
            |parent: &Map<String, Value>, value: &Value, _: Location| {
                bound(parent, value, Bound::ExclusiveMaximum)
            },
        )
        .with_keyword("multipleOf", |_: &Map<String, Value>, value: &Value, _: Location| {
            multiple_of(value)
        })
}

type Boxed = Box<dyn for<'i> Keyword<'i>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

fn not_a_number(keyword: &str, value: &Value) -> ValidationError<'static> {
    ValidationError::schema(format!("{value} is not a number (`{keyword}`)"))
}

fn bound(
    parent: &Map<String, Value>,
    value: &Value,
    bound: Bound,
) -> Result<Boxed, ValidationError<'static>> {
    let keyword = match bound {
        Bound::Minimum => "minimum",
        Bound::Maximum => "maximum",
        Bound::ExclusiveMinimum => "exclusiveMinimum",
        Bound::ExclusiveMaximum => "exclusiveMaximum",
    };
    let limit = match value {
        Value::Number(limit) => limit,
        // Draft 4: `exclusiveMinimum`/`exclusiveMaximum` are booleans that make `minimum`/
        // `maximum` strict; that keyword does the checking.
        Value::Bool(_) if bound != Bound::Minimum && bound != Bound::Maximum => {
            return Ok(Box::new(Always));
        }
        other => return Err(not_a_number(keyword, other)),
    };
    let draft4_strict = |modifier: &str| parent.get(modifier) == Some(&Value::Bool(true));
    let bound = match bound {
        Bound::Minimum if draft4_strict("exclusiveMinimum") => Bound::ExclusiveMinimum,
        Bound::Maximum if draft4_strict("exclusiveMaximum") => Bound::ExclusiveMaximum,
        other => other,
    };
    Ok(Box::new(Limit {
        bound,
        limit: Decimal::parse(limit),
        small: small_integer(limit),
        shown: limit.to_string(),
    }))
}

fn multiple_of(value: &Value) -> Result<Boxed, ValidationError<'static>> {
    let Value::Number(number) = value else { return Err(not_a_number("multipleOf", value)) };
    let divisor = Decimal::parse(number);
    if divisor.negative || divisor.digits.is_empty() {
        return Err(ValidationError::schema(format!(
            "{number} is not a positive number (`multipleOf`)"
        )));
    }
    Ok(Box::new(MultipleOf { divisor, shown: number.to_string() }))
}

/// A keyword with nothing to check (draft 4's boolean modifiers).
struct Always;

impl<'i> Keyword<'i> for Always {
    fn validate(&self, _: &'i Value) -> Result<(), ValidationError<'i>> {
        Ok(())
    }

    fn is_valid(&self, _: &'i Value) -> bool {
        true
    }
}

struct Limit {
    bound: Bound,
    limit: Decimal,
    /// The limit when it is an integer written without a fraction or exponent: compared with
    /// such an instance as `i64`, exactly and without building a [`Decimal`].
    small: Option<i64>,
    shown: String,
}

impl<'i> Keyword<'i> for Limit {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        let message = match self.bound {
            Bound::Minimum => "is less than the minimum of",
            Bound::Maximum => "is greater than the maximum of",
            Bound::ExclusiveMinimum => "is less than or equal to the minimum of",
            Bound::ExclusiveMaximum => "is greater than or equal to the maximum of",
        };
        Err(ValidationError::custom(format!("{instance} {message} {}", self.shown)))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        let Value::Number(number) = instance else { return true };
        let order = match (self.small, small_integer(number)) {
            (Some(limit), Some(value)) => value.cmp(&limit),
            _ => Decimal::parse(number).cmp(&self.limit),
        };
        match self.bound {
            Bound::Minimum => order != Ordering::Less,
            Bound::Maximum => order != Ordering::Greater,
            Bound::ExclusiveMinimum => order == Ordering::Greater,
            Bound::ExclusiveMaximum => order == Ordering::Less,
        }
    }
}

struct MultipleOf {
    divisor: Decimal,
    shown: String,
}

impl<'i> Keyword<'i> for MultipleOf {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        Err(ValidationError::custom(format!("{instance} is not a multiple of {}", self.shown)))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        let Value::Number(number) = instance else { return true };
        Decimal::parse(number).is_multiple_of(&self.divisor)
    }
}

/// `number` as an `i64` when its text is an integer without fraction or exponent that fits:
/// then the integer is exactly the number written.
fn small_integer(number: &Number) -> Option<i64> {
    let text = number.as_str();
    if text.len() > 18 || text.bytes().any(|b| !(b.is_ascii_digit() || b == b'-')) {
        return None;
    }
    text.parse().ok()
}

/// A JSON number as `±digits × 10^exponent`, the digits without leading or trailing zeros
/// (zero has no digits and is never negative).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

/// Exponents are clamped here: a number written with a larger one is past anything a limit
/// can tell apart, and the clamp keeps the arithmetic below free of overflow.
const EXPONENT_CLAMP: i64 = 1 << 48;

impl Decimal {
    /// From serde_json's number; with `arbitrary_precision` its text is exactly as written.
    fn parse(number: &Number) -> Self {
        Self::from_text(number.as_str())
    }

    fn from_text(text: &str) -> Self {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
            Some((mantissa, exponent)) => (mantissa, parse_exponent(exponent)),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let frac_len = i64::try_from(frac.len()).unwrap_or(EXPONENT_CLAMP);
        let mut exponent = exponent - frac_len.min(EXPONENT_CLAMP);
        let all = int.bytes().chain(frac.bytes()).filter(u8::is_ascii_digit);
        let mut digits: Vec<u8> = all.map(|b| b - b'0').skip_while(|&d| d == 0).collect();
        while digits.last() == Some(&0) {
            digits.pop();
            exponent += 1;
        }
        if digits.is_empty() {
            exponent = 0;
        }
        Self { negative: negative && !digits.is_empty(), digits, exponent }
    }

    /// The position just above the leading digit: `digits.len() + exponent`.
    fn top(&self) -> i64 {
        i64::try_from(self.digits.len()).unwrap_or(EXPONENT_CLAMP) + self.exponent
    }

    fn cmp_magnitude(&self, other: &Self) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        self.top().cmp(&other.top()).then_with(|| {
            // Same leading position: digit by digit, a missing digit counting as 0 (and the
            // last digit of each is nonzero, so the longer one is larger when all else ties).
            self.digits.cmp(&other.digits)
        })
    }

    /// Whether `self = k × divisor` for an integer `k`; `divisor` is positive.
    fn is_multiple_of(&self, divisor: &Self) -> bool {
        if self.digits.is_empty() {
            return true;
        }
        // self / divisor = (a / b) × 10^shift with a, b the digit strings. a has no trailing
        // zero, so for a negative shift b × 10^-shift can never divide a.
        let shift = self.exponent - divisor.exponent;
        if shift < 0 {
            return false;
        }
        let b = to_biguint(&divisor.digits);
        let mut remainder = BigUint::ZERO;
        for &digit in &self.digits {
            remainder = (remainder * 10u32 + digit) % &b;
        }
        let scale = BigUint::from(10u32).modpow(&BigUint::from(shift.unsigned_abs()), &b);
        (remainder * scale % &b) == BigUint::ZERO
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn parse_exponent(text: &str) -> i64 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .fold(0i64, |acc, d| (acc * 10 + i64::from(d - b'0')).min(EXPONENT_CLAMP));
    if negative { -magnitude } else { magnitude }
}

fn to_biguint(digits: &[u8]) -> BigUint {
    digits.iter().fold(BigUint::ZERO, |acc, &d| acc * 10u32 + d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        Decimal::from_text(text)
    }

    #[test]
    fn decimals_normalize() {
        assert_eq!(d("100"), Decimal { negative: false, digits: vec![1], exponent: 2 });
        assert_eq!(d("-0.00"), d("0"));
        assert_eq!(d("1.50e1"), Decimal { negative: false, digits: vec![1, 5], exponent: 0 });
        assert_eq!(d("1E-2"), d("0.01"));
    }

    #[test]
    fn decimals_compare_exactly() {
        assert_eq!(d("100.0000000000000000001").cmp(&d("100")), Ordering::Greater);
        assert_eq!(d("-100.0000000000000000001").cmp(&d("-100")), Ordering::Less);
        assert_eq!(d("99.9").cmp(&d("1e2")), Ordering::Less);
        assert_eq!(d("1e99999999999999999999").cmp(&d("1e400")), Ordering::Greater);
    }

    #[test]
    fn multiples_are_exact() {
        assert!(d("19.99").is_multiple_of(&d("0.01")));
        assert!(!d("0.3").is_multiple_of(&d("0.2")));
        assert!(!d("1e30").is_multiple_of(&d("7e29")));
        assert!(d("1e300000").is_multiple_of(&d("8")));
        assert!(!d("1.5").is_multiple_of(&d("1")));
    }
}
