//! Where Domain Desk keeps its data and logs, from each OS's conventions.
//!
//! The window and the command line must agree on these folders, and the command line has no
//! Tauri path resolver, so both read them from here. The layout matches Tauri's own
//! `app_data_dir` and `app_log_dir` for the app's identifier.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::{Error, Result};

/// The bundle identifier from `tauri.conf.json` (`the_identifier_is_the_bundles` in
/// the shell holds them together).
pub const IDENTIFIER: &str = "dev.domaindesk.app";

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AppPaths {
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
}

/// The folders the OS names for this user (`dirs`), which [`AppPaths`] is made from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserFolders {
    pub data: Option<PathBuf>,
    pub data_local: Option<PathBuf>,
    pub home: Option<PathBuf>,
}

impl UserFolders {
    pub fn from_os() -> Self {
        Self {
            data: dirs::data_dir(),
            data_local: dirs::data_local_dir(),
            home: dirs::home_dir(),
        }
    }
}

impl AppPaths {
    pub fn from_os() -> Result<Self> {
        Self::from_folders(UserFolders::from_os())
    }

    /// The app's folders inside the user's `folders`; [`Error::NoHomeFolder`] when the OS
    /// names none, never a shared folder such as `/tmp` instead, where another user could
    /// read the app's files or plant their own.
    pub fn from_folders(folders: UserFolders) -> Result<Self> {
        let log_base = if cfg!(target_os = "macos") {
            folders.home.map(|home| home.join("Library/Logs"))
        } else {
            folders.data_local.map(|local| local.join(IDENTIFIER))
        };
        let (Some(data), Some(log_base)) = (folders.data, log_base) else {
            return Err(Error::NoHomeFolder);
        };
        let log_dir = if cfg!(target_os = "macos") {
            log_base.join(IDENTIFIER)
        } else {
            log_base.join("logs")
        };
        Ok(Self {
            data_dir: data.join(IDENTIFIER),
            log_dir,
        })
    }

    /// Creates the data and log folders, the user's alone ([`private_dir`]).
    pub fn prepare(&self) -> Result<()> {
        private_dir(&self.data_dir)?;
        private_dir(&self.log_dir)?;
        Ok(())
    }

    /// Where the request queues of every Domain Desk process share each key's budget.
    pub fn queue_dir(&self) -> PathBuf {
        self.data_dir.join("queue")
    }

    /// The local service's database for the offline demo.
    pub fn demo_database(&self) -> PathBuf {
        self.data_dir.join("local-service.sqlite3")
    }
}

/// Creates `dir` (and its parents, as usual) readable by the user alone: mode 0700 on unix, an
/// existing folder more open than that tightened. Elsewhere the user's profile folder already
/// keeps other users out.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(err) => return Err(err),
        }
        let mode = std::fs::metadata(dir)?.permissions().mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & 0o700))?;
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window's folders are Tauri's, named by the bundle's identifier: this copy of it
    /// must be the one `tauri.conf.json` gives, or the command line and the window would keep
    /// their data in different places.
    /// With no home folder (no `HOME`, no entry in the user database) there is nowhere of the
    /// user's own to keep data: the app refuses to start rather than use a shared folder such
    /// as `/tmp`, where another user could read or plant its files.
    #[test]
    fn without_a_home_folder_the_app_refuses_to_start() {
        let err = AppPaths::from_folders(UserFolders::default()).unwrap_err();
        assert!(err.to_string().contains("home folder"), "{err}");
        let only_home = UserFolders {
            home: Some("/home/ada".into()),
            ..UserFolders::default()
        };
        assert!(AppPaths::from_folders(only_home).is_err());
        let all = UserFolders {
            data: Some("/home/ada/.local/share".into()),
            data_local: Some("/home/ada/.local/share".into()),
            home: Some("/home/ada".into()),
        };
        let paths = AppPaths::from_folders(all).unwrap();
        assert_eq!(
            paths.data_dir,
            Path::new("/home/ada/.local/share").join(IDENTIFIER)
        );
    }

    /// The data and log folders are the user's alone, made so and tightened when they were
    /// made more open by an earlier version.
    #[cfg(unix)]
    #[test]
    fn the_data_and_log_folders_are_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let paths = AppPaths {
            data_dir: dir.path().join("share/dev.domaindesk.app"),
            log_dir: dir.path().join("share/dev.domaindesk.app/logs"),
        };
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        paths.prepare().unwrap();
        assert_eq!(mode(&paths.data_dir), 0o700);
        assert_eq!(mode(&paths.log_dir), 0o700);
        std::fs::set_permissions(&paths.data_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&paths.log_dir, std::fs::Permissions::from_mode(0o775)).unwrap();
        paths.prepare().unwrap();
        assert_eq!(mode(&paths.data_dir), 0o700);
        assert_eq!(mode(&paths.log_dir), 0o700);
    }
}
