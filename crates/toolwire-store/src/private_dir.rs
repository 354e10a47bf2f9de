//! The data directory is private to the user running toolwire (DESIGN §12): created 0700, its
//! files 0600, whatever the umask. Stored results and signing keys are secrets.

use std::fs::{DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of the data directory.
pub(crate) const DIR_MODE: u32 = 0o700;
/// Mode of every file toolwire writes in it.
pub(crate) const FILE_MODE: u32 = 0o600;

/// Creates `dir` (and missing parents) with mode 0700; an existing directory is left as it is
/// (it may be shared on purpose, and is the operator's).
pub(crate) fn create(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)
}

/// Makes sure `path` exists with mode 0600: created so when missing, narrowed when an older
/// version left it readable by others.
pub(crate) fn restrict_file(path: &Path) -> io::Result<()> {
    let file = OpenOptions::new().read(true).write(true).create(true).mode(FILE_MODE).open(path)?;
    let mode = file.metadata()?.permissions().mode() & 0o777;
    if mode != FILE_MODE {
        file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
    }
    Ok(())
}
