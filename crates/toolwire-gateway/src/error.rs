//! What stops the gateway from starting or serving, with the exit code the command line gives it.

/// The gateway did not start or stopped on an error: the exit code and the one line saying
/// what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    /// 1 the gateway could not run (a port taken, a store that does not open), 2 bad
    /// configuration.
    pub code: u8,
    /// One line saying what is wrong and where.
    pub message: String,
}

impl Failure {
    /// Exit 1: the gateway could not run.
    pub fn check(message: impl Into<String>) -> Self {
        Self { code: 1, message: message.into() }
    }

    /// Exit 2: a bad configuration.
    pub fn input(message: impl Into<String>) -> Self {
        Self { code: 2, message: message.into() }
    }
}
