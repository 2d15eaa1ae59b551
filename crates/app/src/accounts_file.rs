//! The accounts kept on this computer, read and written without Tauri, for the command line.
//!
//! Same file and shape as the window's store (`settings.json` in the data folder:
//! `{"settings": {…}, "accounts": […]}`), so `domain-desk login` and the window's Connect see
//! the same accounts; the window reads the file again before each use. Fields and keys this
//! version does not know are kept. A file that cannot be read is never written over: the
//! command says so and the window sets it aside on its next start.

use std::path::{Path, PathBuf};

use crate::settings::{self, ACCOUNTS_KEY, AccountEntry, SETTINGS_KEY, Settings};
use crate::{Error, Result};

#[derive(Debug)]
pub struct AccountsFile {
    path: PathBuf,
    document: serde_json::Map<String, serde_json::Value>,
}

impl AccountsFile {
    /// The file in `data_dir`; a missing file is an empty list.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join("settings.json");
        let document = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|err| {
                Error::Settings(format!(
                    "{} cannot be read ({err}); start the window once to set it aside",
                    path.display()
                ))
            })?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => serde_json::Map::new(),
            Err(err) => return Err(err.into()),
        };
        Ok(Self { path, document })
    }

    pub fn accounts(&self) -> Result<Vec<AccountEntry>> {
        decode(self.document.get(ACCOUNTS_KEY))
    }

    pub fn settings(&self) -> Result<Settings> {
        decode(self.document.get(SETTINGS_KEY))
    }

    /// Adds the entry (or replaces the one with its id) and makes it the last account used.
    pub fn remember(&mut self, entry: AccountEntry) -> Result<()> {
        let mut list = self.accounts()?;
        let id = entry.id.clone();
        settings::remember_in(&mut list, entry);
        self.set(ACCOUNTS_KEY, &list)?;
        let mut current = self.settings()?;
        current.last_account = Some(id);
        self.set(SETTINGS_KEY, &current)
    }

    /// Drops the entry; `false` when there was none.
    pub fn forget(&mut self, id: &str) -> Result<bool> {
        let mut list = self.accounts()?;
        let before = list.len();
        list.retain(|e| e.id != id);
        let removed = list.len() != before;
        self.set(ACCOUNTS_KEY, &list)?;
        let mut current = self.settings()?;
        if current.last_account.as_deref() == Some(id) {
            current.last_account = None;
        }
        self.set(SETTINGS_KEY, &current)?;
        Ok(removed)
    }

    fn set(&mut self, key: &str, value: &impl serde::Serialize) -> Result<()> {
        let value = serde_json::to_value(value).map_err(|err| Error::Settings(err.to_string()))?;
        self.document.insert(key.to_owned(), value);
        Ok(())
    }

    /// Writes the file whole: a new file beside it (the user's alone), then renamed over it.
    pub fn save(&self) -> Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let bytes = serde_json::to_vec_pretty(&self.document)
            .map_err(|err| Error::Settings(err.to_string()))?;
        domain_desk_api::private_file::write_atomically(&self.path, &bytes)?;
        Ok(())
    }
}

fn decode<T: serde::de::DeserializeOwned + Default>(
    value: Option<&serde_json::Value>,
) -> Result<T> {
    match value {
        None => Ok(T::default()),
        Some(value) => serde_json::from_value(value.clone()).map_err(|err| {
            Error::Settings(format!("the stored settings could not be read: {err}"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::AccountMode;

    fn entry(id: &str) -> AccountEntry {
        AccountEntry {
            id: id.into(),
            label: "label".into(),
            mode: AccountMode::Connected,
            base_url: "https://api.example.com".into(),
            extra: Default::default(),
        }
    }

    #[test]
    fn remembers_forgets_and_keeps_what_it_does_not_know() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"settings":{"theme":"dark","future":1},"window":{"w":3}}"#,
        )
        .unwrap();
        let mut file = AccountsFile::open(dir.path()).unwrap();
        file.remember(entry("acc_1@api.example.com")).unwrap();
        file.save().unwrap();
        let again = AccountsFile::open(dir.path()).unwrap();
        assert_eq!(
            again.accounts().unwrap(),
            vec![entry("acc_1@api.example.com")]
        );
        let settings = again.settings().unwrap();
        assert_eq!(
            settings.last_account.as_deref(),
            Some("acc_1@api.example.com")
        );
        assert_eq!(settings.extra.get("future"), Some(&serde_json::json!(1)));
        let text = std::fs::read_to_string(dir.path().join("settings.json")).unwrap();
        assert!(text.contains("\"window\""), "{text}");
        let mut again = again;
        assert!(again.forget("acc_1@api.example.com").unwrap());
        assert!(!again.forget("acc_1@api.example.com").unwrap());
        assert!(again.accounts().unwrap().is_empty());
        assert_eq!(again.settings().unwrap().last_account, None);
    }

    #[test]
    fn an_unreadable_file_is_an_error_and_stays_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{not json").unwrap();
        let err = AccountsFile::open(dir.path()).unwrap_err();
        assert!(err.to_string().contains("cannot be read"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
    }

    /// The accounts file names the user's platforms and accounts: saved, it is theirs alone,
    /// and a link planted beside it (where the file is staged) is never written through.
    #[cfg(unix)]
    #[test]
    fn the_saved_file_is_the_users_alone_and_no_planted_link_is_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, "untouched").unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.path().join("settings.json.new")).unwrap();
        let mut file = AccountsFile::open(dir.path()).unwrap();
        file.remember(entry("acc_1@api.example.com")).unwrap();
        file.save().unwrap();
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "untouched");
        let saved = std::fs::metadata(dir.path().join("settings.json")).unwrap();
        assert_eq!(saved.permissions().mode() & 0o777, 0o600);
    }
}
