//! Files someone else wrote, read with a bound: the signing-key file here, and for the gateway
//! and the command line the configuration file, the files it names and the files named on the
//! command line. A device, a FIFO or a directory is refused before it is read (`/dev/zero`
//! would never end, a FIFO waits for a writer), and a file over the bound before any of it is
//! held.

use std::io::{Error, ErrorKind, Read as _};
use std::path::Path;

/// The bytes of the regular file at `path`, at most `limit` of them; the error says what was
/// wrong, without the path (the caller names it).
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    let not_regular = || Error::new(ErrorKind::InvalidInput, "not a regular file");
    let over = || {
        Error::new(
            ErrorKind::FileTooLarge,
            format!("over the limit of {limit} bytes ({} MiB)", limit / (1024 * 1024)),
        )
    };
    // Checked before opening: opening a FIFO blocks until something writes to it.
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(not_regular());
    }
    if metadata.len() > limit {
        return Err(over());
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    // A file that grew while it was read.
    if bytes.len() as u64 > limit {
        return Err(over());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_over_the_limit_and_other_kinds_are_refused_before_they_are_read() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read_limited(&path, 5).ok(), Some(b"12345".to_vec()));
        let over = read_limited(&path, 4).err().map(|e| e.to_string());
        assert_eq!(over.as_deref(), Some("over the limit of 4 bytes (0 MiB)"));
        let dir_error = read_limited(dir.path(), 4).err().map(|e| e.to_string());
        assert_eq!(dir_error.as_deref(), Some("not a regular file"));
        let device = read_limited(Path::new("/dev/zero"), 4).err().map(|e| e.to_string());
        assert_eq!(device.as_deref(), Some("not a regular file"));
        assert!(read_limited(&dir.path().join("missing"), 4).is_err());
    }
}
