//! The kernel settings a benchmark may change, put back after every part whatever became of it.
//!
//! `doctor_bench` raises `net.core.rmem_default` for adnshost's runs and puts it back when it
//! ends, but not when it is killed, hangs past its bound or aborts (a signal, or a panic while
//! panicking, skips destructors). A raised default then gives every later socket on the machine
//! the larger buffer, the doctor's included. So the bench reads the settings before each part
//! and writes back any that changed after it; and while a part runs, the values read are kept
//! in a file, so a bench run that was itself killed is undone by the next one.

use std::path::{Path, PathBuf};

/// The settings read and put back (the socket buffers' defaults and caps).
const SETTINGS: &[&str] = &[
    "/proc/sys/net/core/rmem_default",
    "/proc/sys/net/core/rmem_max",
    "/proc/sys/net/core/wmem_default",
    "/proc/sys/net/core/wmem_max",
];

/// The settings as read before a part; dropping this puts back any that changed.
pub(super) struct KernelSettings {
    saved: Vec<(PathBuf, String)>,
    /// Holds `saved` while the part runs.
    file: PathBuf,
}

impl KernelSettings {
    /// Reads the settings (after putting back any a killed run left changed, as its file says).
    pub(super) fn save(work: &Path) -> Self {
        let settings: Vec<PathBuf> = SETTINGS.iter().map(PathBuf::from).collect();
        Self::save_these(&work.join("kernel-settings"), &settings)
    }

    fn save_these(file: &Path, settings: &[PathBuf]) -> Self {
        put_back_left_over(file);
        let saved: Vec<(PathBuf, String)> = settings
            .iter()
            .filter_map(|path| {
                let value = std::fs::read_to_string(path).ok()?;
                Some((path.clone(), value.trim().to_owned()))
            })
            .collect();
        let text: String = saved
            .iter()
            .map(|(path, value)| format!("{}={value}\n", path.display()))
            .collect();
        if let Err(err) = std::fs::write(file, text) {
            eprintln!(
                "xtask bench: could not keep the kernel settings in {}: {err}",
                file.display()
            );
        }
        Self {
            saved,
            file: file.to_owned(),
        }
    }
}

impl Drop for KernelSettings {
    fn drop(&mut self) {
        for (path, value) in &self.saved {
            put_back(path, value);
        }
        let _ = std::fs::remove_file(&self.file);
    }
}

/// Puts back the settings a killed run's file holds, then removes the file.
fn put_back_left_over(file: &Path) {
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    for line in text.lines() {
        if let Some((path, value)) = line.split_once('=') {
            put_back(Path::new(path), value);
        }
    }
    let _ = std::fs::remove_file(file);
}

/// Writes `value` to the setting at `path` when it reads otherwise, and says so.
fn put_back(path: &Path, value: &str) {
    let Ok(now) = std::fs::read_to_string(path) else {
        return;
    };
    if now.trim() == value {
        return;
    }
    match std::fs::write(path, value) {
        Ok(()) => eprintln!(
            "xtask bench: put {} back to {value} (a benchmark left it at {})",
            path.display(),
            now.trim()
        ),
        Err(err) => eprintln!(
            "xtask bench: could not put {} back to {value} (it reads {}): {err}",
            path.display(),
            now.trim()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-kernel-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_changed_setting_is_put_back_after_the_part() {
        let dir = scratch("part");
        let setting = dir.join("rmem_default");
        std::fs::write(&setting, "212992\n").unwrap();
        let file = dir.join("kept");
        {
            let _guard = KernelSettings::save_these(&file, std::slice::from_ref(&setting));
            assert!(file.exists(), "the values are kept while the part runs");
            std::fs::write(&setting, "16777216").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&setting).unwrap(), "212992");
        assert!(!file.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_killed_runs_settings_are_put_back_by_the_next_run() {
        let dir = scratch("killed");
        let setting = dir.join("rmem_default");
        let file = dir.join("kept");
        // a run that was killed: its file is still there, the setting still raised
        std::fs::write(&file, format!("{}=212992\n", setting.display())).unwrap();
        std::fs::write(&setting, "16777216").unwrap();
        let guard = KernelSettings::save_these(&file, std::slice::from_ref(&setting));
        assert_eq!(std::fs::read_to_string(&setting).unwrap(), "212992");
        assert_eq!(guard.saved, vec![(setting.clone(), "212992".to_owned())]);
        drop(guard);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
