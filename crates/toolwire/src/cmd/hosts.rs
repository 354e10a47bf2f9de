//! `toolwire hosts`: the built-in host profiles (DESIGN §11), as a table or as JSON, so that
//! scripts can go through every profile (and every `clientInfo.name` that selects one) without
//! keeping a list of their own.

use std::fmt::Write as _;

use toolwire_core::host::HostProfiles;

use super::check::Format;
use super::{Failure, print_line};

/// The arguments of `toolwire hosts`.
#[derive(Debug, clap::Args)]
pub(crate) struct HostsArgs {
    /// `text` (a table) or `json` (an array of profiles, keyed as `[[hosts]]` is).
    #[arg(long, default_value = "text", value_parser = super::names::ByName::<Format>::new(Format::ALL.iter().map(|f| f.as_str())))]
    pub format: Format,
}

/// Runs the command.
pub(crate) fn run(args: &HostsArgs) -> Result<(), Failure> {
    let hosts = HostProfiles::builtin();
    let profiles: Vec<_> = hosts.iter().collect();
    if args.format == Format::Json {
        let json = serde_json::to_string(&profiles)
            .map_err(|err| Failure::input(format!("cannot write the profiles as JSON: {err}")))?;
        return print_line(&json);
    }
    let mut table = String::from("profile\treads\tmax_result_bytes\treads_links\tclient_names");
    for profile in profiles {
        let cap = profile.max_result_bytes.map_or_else(|| "-".to_owned(), |cap| cap.to_string());
        let clients = if profile.client_names.is_empty() {
            "(any other)".to_owned()
        } else {
            profile.client_names.join(", ")
        };
        let _ = write!(
            table,
            "\n{}\t{}\t{cap}\t{}\t{clients}",
            profile.name, profile.reads, profile.reads_links
        );
    }
    print_line(&table)
}
