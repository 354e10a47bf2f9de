//! The `toolwire` binary: the command line of the `toolwire` library.

fn main() -> std::process::ExitCode {
    toolwire::run()
}
