//! Small enums spoken by name (phases, shapes, validation modes, …): the error for a name that is
//! none of them, and the one macro giving such an enum `Display`, `FromStr` and serde with the
//! same names, so flags, config files and code agree on the spelling.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

#[doc(hidden)]
pub use serde;

/// A name that is not one of the accepted ones.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} `{value}`; expected {}", OneOf(self.expected))]
pub struct UnknownName {
    /// What was being named (`phase`, `shape`, …).
    pub kind: &'static str,
    /// The name given.
    pub value: String,
    /// The accepted names.
    pub expected: &'static [&'static str],
}

impl UnknownName {
    /// `value` is not a `kind`; `expected` are the names that are.
    pub fn new(kind: &'static str, value: &str, expected: &'static [&'static str]) -> Self {
        Self { kind, value: value.to_owned(), expected }
    }
}

/// `a`, `a or b`, `a, b or c`.
struct OneOf(&'static [&'static str]);

impl fmt::Display for OneOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self.0.len().saturating_sub(1);
        for (i, name) in self.0.iter().enumerate() {
            match i {
                0 => {}
                _ if i == last => f.write_str(" or ")?,
                _ => f.write_str(", ")?,
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// Deserializes a value from its name through `FromStr`, so a bad name fails with the type's
/// own error (what it was, what is accepted) wherever it is read.
pub fn deserialize<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    struct Name<T>(PhantomData<T>);

    impl<T> serde::de::Visitor<'_> for Name<T>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a name")
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
            text.parse().map_err(E::custom)
        }
    }

    deserializer.deserialize_str(Name(PhantomData))
}

/// Gives an enum of unit variants its names: `ALL`, `as_str`, `Display`, `FromStr` (failing with
/// [`UnknownName`]) and serde, all with the same names.
///
/// ```
/// #[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// pub enum Colour {
///     /// Red.
///     Red,
///     /// Blue.
///     Blue,
/// }
/// toolwire_core::named!(Colour, "colour", { Red => "red", Blue => "blue" });
///
/// assert_eq!("blue".parse::<Colour>(), Ok(Colour::Blue));
/// assert_eq!(Colour::Red.to_string(), "red");
/// let err = "green".parse::<Colour>().map(|_| ()).map_err(|e| e.to_string());
/// assert_eq!(err, Err("unknown colour `green`; expected red or blue".to_owned()));
/// ```
#[macro_export]
macro_rules! named {
    ($ty:ident, $kind:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in documentation order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The value's name, as flags and config files spell it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::names::UnknownName;

            fn from_str(text: &str) -> ::std::result::Result<Self, Self::Err> {
                match text {
                    $($name => Ok($ty::$variant),)+
                    _ => Err($crate::names::UnknownName::new($kind, text, &[$($name),+])),
                }
            }
        }

        impl $crate::names::serde::Serialize for $ty {
            fn serialize<S: $crate::names::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::names::serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::names::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                $crate::names::deserialize(deserializer)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_read_as_a_list() {
        let err = |expected| UnknownName::new("mode", "x", expected).to_string();
        assert_eq!(err(&["a"]), "unknown mode `x`; expected a");
        assert_eq!(err(&["a", "b"]), "unknown mode `x`; expected a or b");
        assert_eq!(err(&["a", "b", "c"]), "unknown mode `x`; expected a, b or c");
    }
}
