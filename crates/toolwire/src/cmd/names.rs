//! Flags whose values are names (`--target`, `--phase`, `--shape`, `--format`): parsed with the
//! type's own `FromStr`, so a flag and a config file refuse a bad name with the same words, and
//! listed in `--help`.

use std::ffi::OsStr;
use std::marker::PhantomData;
use std::str::FromStr;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use toolwire_core::names::UnknownName;
use toolwire_core::{Phase, Shape, Target, TargetError};

/// A clap value parser for `T` through `FromStr`, showing `names` as the possible values.
#[derive(Clone)]
pub(crate) struct ByName<T> {
    names: Vec<&'static str>,
    parsed: PhantomData<fn() -> T>,
}

impl<T> ByName<T> {
    /// Lists `names` in `--help`.
    pub(crate) fn new(names: impl IntoIterator<Item = &'static str>) -> Self {
        Self { names: names.into_iter().collect(), parsed: PhantomData }
    }
}

impl<T> TypedValueParser for ByName<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        StringValueParser::new().try_map(|text| text.parse::<T>()).parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.names.iter().map(PossibleValue::new)))
    }
}

/// `--target`: the canonical names are listed; any `mcp-<YYYY-MM-DD>` date is accepted and maps
/// to the newest revision not later than it.
pub(crate) fn target() -> ByName<Target> {
    ByName::new(Target::ALL.iter().map(|t| t.name()))
}

/// `--phase`.
pub(crate) fn phase() -> ByName<Phase> {
    ByName::new(Phase::ALL.iter().map(|p| p.as_str()))
}

/// `--shape`.
pub(crate) fn shape() -> ByName<Shape> {
    ByName::new(Shape::ALL.iter().map(|s| s.as_str()))
}

/// The one-line diagnostic for a name a flag refused (`--target: unknown target `json`; …`),
/// the form every other bad flag takes (the reason names the value and the choices); `None`
/// for any other clap error.
pub(crate) fn refused_value(err: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let Some(ContextValue::String(arg)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    let reason = std::error::Error::source(err)?;
    if !(reason.is::<UnknownName>() || reason.is::<TargetError>()) {
        return None;
    }
    // `--target <TARGET>` → `--target`.
    let flag = arg.split(' ').next().unwrap_or(arg);
    Some(format!("{flag}: {reason}"))
}
