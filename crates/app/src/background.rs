//! What closing the window does while domains still wait for DNS or a certificate: quit, or
//! keep watching in the background — from the tray when a tray host shows the icon, else
//! with one notification that says the app is still running and how to come back.
//!
//! GNOME without the AppIndicator extension shows no tray: a window hidden there would leave
//! a process the user cannot see or end. The window asks [`close_action`] and does what it
//! says; whether a tray is shown is asked of the session bus (`session_bus::tray_host` on
//! Linux; the other systems always have one).

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a tray host would show the app's icon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrayHost {
    Shown,
    /// No StatusNotifierItem host on the session: an icon would be shown nowhere.
    Missing,
}

/// What closing the main window does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseAction {
    /// Nothing to wait for, or the user chose so, or the user was already told once this run
    /// how a window without a tray comes back: the app quits.
    Quit,
    /// The window hides and the tray keeps watching.
    KeepWatching,
    /// The window hides with no tray to show it: the desktop notification says so, once.
    KeepWatchingAndTell(Notice),
}

/// A desktop notification's title and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub title: String,
    pub body: String,
}

/// The watch in the background for one run of the window: remembers whether the user was
/// told, so the notification is sent once and a second close quits as usual.
#[derive(Debug, Default)]
pub struct Background {
    told: AtomicBool,
}

impl Background {
    /// Decides what closing the window does. `pending` is how many domains still wait.
    pub fn close_action(
        &self,
        pending: usize,
        watch_after_close: bool,
        tray: TrayHost,
    ) -> CloseAction {
        let told = self.told.load(Ordering::SeqCst);
        let action = close_action(pending, watch_after_close, tray, told);
        if matches!(action, CloseAction::KeepWatchingAndTell(_)) {
            self.told.store(true, Ordering::SeqCst);
        }
        action
    }
}

/// The rule behind [`Background::close_action`]; `told` is whether this run already said how
/// to come back without a tray.
pub fn close_action(
    pending: usize,
    watch_after_close: bool,
    tray: TrayHost,
    told: bool,
) -> CloseAction {
    if pending == 0 || !watch_after_close {
        return CloseAction::Quit;
    }
    match (tray, told) {
        (TrayHost::Shown, _) => CloseAction::KeepWatching,
        // Opened again from the menu after being told: closing now quits, as the notice said.
        (TrayHost::Missing, true) => CloseAction::Quit,
        (TrayHost::Missing, false) => CloseAction::KeepWatchingAndTell(keeps_watching(pending)),
    }
}

/// The one notification of a window hidden without a tray.
pub fn keeps_watching(pending: usize) -> Notice {
    let domains = if pending == 1 {
        "1 domain".to_owned()
    } else {
        format!("{pending} domains")
    };
    Notice {
        title: "Domain Desk is still running".into(),
        body: format!(
            "Domain Desk keeps watching {domains} and tells you when each is live. Open it \
             from the menu to stop."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_keeps_watching_only_while_something_is_pending_and_the_setting_allows() {
        assert_eq!(
            close_action(0, true, TrayHost::Shown, false),
            CloseAction::Quit
        );
        assert_eq!(
            close_action(2, true, TrayHost::Shown, false),
            CloseAction::KeepWatching
        );
        assert_eq!(
            close_action(2, false, TrayHost::Shown, false),
            CloseAction::Quit
        );
        assert_eq!(
            close_action(0, true, TrayHost::Missing, false),
            CloseAction::Quit
        );
    }

    #[test]
    fn without_a_tray_the_first_close_tells_how_to_come_back_and_the_next_one_quits() {
        let background = Background::default();
        let CloseAction::KeepWatchingAndTell(notice) =
            background.close_action(3, true, TrayHost::Missing)
        else {
            panic!("the first close without a tray keeps watching and tells");
        };
        assert_eq!(
            notice.body,
            "Domain Desk keeps watching 3 domains and tells you when each is live. Open it \
             from the menu to stop."
        );
        assert_eq!(
            background.close_action(3, true, TrayHost::Missing),
            CloseAction::Quit,
            "told once: opened again from the menu, closing quits"
        );
        // A tray that appeared meanwhile is used as usual.
        assert_eq!(
            background.close_action(3, true, TrayHost::Shown),
            CloseAction::KeepWatching
        );
    }

    #[test]
    fn the_notice_counts_domains_in_words() {
        assert!(keeps_watching(1).body.contains("watching 1 domain and"));
        assert!(keeps_watching(12).body.contains("watching 12 domains"));
    }
}
