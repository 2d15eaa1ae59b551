//! Files Domain Desk writes for the user (exports, retry files, diagnostics captures) hold a
//! project's domains and DNS: they are written so that no one else on the machine can read
//! them, so that a reader never sees half a file, and so that a symbolic link someone
//! planted at the path cannot redirect the write onto another file. This lives in the API
//! crate because every crate that writes such a file depends on it.
//!
//! The text goes to a new file beside the target, created exclusively (`O_EXCL`: never an
//! existing file or a link) and, on unix, with mode 0600; it is then renamed over the path,
//! which replaces a link there rather than following it.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `contents` to `path` atomically, readable by its owner alone on unix.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    // A name no one else picks; a clash (a file planted there) takes the next one.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    for _ in 0..64 {
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let temp: PathBuf = dir.join(temp_name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = match options.open(&temp) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        };
        let written = file
            .write_all(contents)
            .and_then(|()| file.sync_all())
            .and_then(|()| {
                drop(file);
                fs::rename(&temp, path)
            });
        if let Err(err) = written {
            let _ = fs::remove_file(&temp);
            return Err(err);
        }
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("no free temporary name beside {}", path.display()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link planted at the path is replaced by the file, and what it pointed at is left
    /// as it was; the file is its owner's alone and nothing else is left beside it.
    #[cfg(unix)]
    #[test]
    fn a_link_at_the_path_is_replaced_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let path = dir.path().join("export.csv");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        write_atomically(&path, b"hostname\n").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let metadata = path.symlink_metadata().unwrap();
        assert!(metadata.file_type().is_file());
        assert_eq!(metadata.permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "hostname\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_path_without_a_file_name_is_a_clear_error() {
        let err = write_atomically(Path::new("/"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }
}
