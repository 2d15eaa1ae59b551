//! What to tell the user about a newer version, decided without Tauri so it is tested plainly.
//!
//! The updater plugin fetches the signed feed and checks the package's minisign signature
//! (`update_check` in `src-tauri/commands/desktop.rs`); this module decides what follows: announce
//! a version once, with its notes, and say how to get it — "Install and restart" where the
//! app installs itself (the Windows installer, the macOS app), the package manager where a
//! package manager installed it (`.deb`, `.rpm`), the download page otherwise.

use serde::Serialize;

/// How this copy was installed, as the bundler marked the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    Deb,
    Rpm,
    AppImage,
    WindowsInstaller,
    MacApp,
    /// Built from source, or a bundle this version does not know.
    Other,
}

/// How the user gets the new version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HowToUpdate {
    /// The app downloads, checks and installs the package, then starts again.
    InstallAndRestart,
    /// The system's package manager updates it: `command` says how.
    PackageManager { command: String },
    /// No way this app knows: the release page.
    Download,
}

/// A newer version, to be shown once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpdateNotice {
    pub version: String,
    /// What changed, as the release wrote it (plain text: the window escapes it).
    pub notes: String,
    pub how: HowToUpdate,
}

/// The longest release notes shown; the rest is on the release page.
const MAX_NOTES: usize = 2000;

/// The notice for `version` found in the feed, or `None` when it was announced before.
/// The feed's check already refused anything not newer than the running version.
pub fn notice(
    version: &str,
    notes: Option<&str>,
    installed: Installed,
    already_announced: Option<&str>,
) -> Option<UpdateNotice> {
    if already_announced == Some(version) {
        return None;
    }
    let mut notes = notes.unwrap_or("").trim().to_owned();
    if notes.chars().count() > MAX_NOTES {
        notes = notes.chars().take(MAX_NOTES).collect::<String>() + "…";
    }
    let how = match installed {
        Installed::WindowsInstaller | Installed::MacApp => HowToUpdate::InstallAndRestart,
        Installed::Deb => HowToUpdate::PackageManager {
            command: "sudo apt update && sudo apt install --only-upgrade domain-desk".into(),
        },
        Installed::Rpm => HowToUpdate::PackageManager {
            command: "sudo dnf upgrade domain-desk".into(),
        },
        Installed::AppImage | Installed::Other => HowToUpdate::Download,
    };
    Some(UpdateNotice {
        version: version.to_owned(),
        notes,
        how,
    })
}

/// Whether the updater may replace this copy itself.
pub fn installs_itself(installed: Installed) -> bool {
    matches!(installed, Installed::WindowsInstaller | Installed::MacApp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_version_is_announced_once() {
        let first = notice("0.2.0", Some("Faster diagnose."), Installed::Deb, None).unwrap();
        assert_eq!(first.version, "0.2.0");
        assert_eq!(first.notes, "Faster diagnose.");
        assert!(notice("0.2.0", None, Installed::Deb, Some("0.2.0")).is_none());
        // A later version is announced even though an earlier one was.
        assert!(notice("0.3.0", None, Installed::Deb, Some("0.2.0")).is_some());
    }

    #[test]
    fn packages_update_through_their_package_manager() {
        let deb = notice("0.2.0", None, Installed::Deb, None).unwrap();
        assert!(
            matches!(&deb.how, HowToUpdate::PackageManager { command } if command.contains("apt"))
        );
        let rpm = notice("0.2.0", None, Installed::Rpm, None).unwrap();
        assert!(
            matches!(&rpm.how, HowToUpdate::PackageManager { command } if command.contains("dnf"))
        );
        for installed in [Installed::WindowsInstaller, Installed::MacApp] {
            let n = notice("0.2.0", None, installed, None).unwrap();
            assert_eq!(n.how, HowToUpdate::InstallAndRestart);
            assert!(installs_itself(installed));
        }
        assert!(!installs_itself(Installed::Deb));
        assert_eq!(
            notice("0.2.0", None, Installed::Other, None).unwrap().how,
            HowToUpdate::Download
        );
    }

    #[test]
    fn long_notes_are_cut() {
        let long = "x".repeat(5000);
        let n = notice("0.2.0", Some(&long), Installed::Other, None).unwrap();
        assert_eq!(n.notes.chars().count(), MAX_NOTES + 1);
    }
}
