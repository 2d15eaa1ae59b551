//! Linux: what the user's desktop session offers, asked of its D-Bus session bus — whether a
//! tray host shows status icons ([`tray_host`]) and which program serves the Secret Service
//! ([`secret_service_provider`]).
//!
//! Both are questions to the bus daemon itself (who owns a name), not to the program behind
//! the name, so they answer in a few milliseconds and never start a service by activation.
//! The `dbus` crate is the one the keyring's Secret Service store and the window's toolkit
//! already link (libdbus), so asking costs no new dependency.

use std::time::Duration;

use dbus::blocking::Connection;

use crate::background::TrayHost;

/// How long the bus daemon may take to answer; it answers from memory.
const TIMEOUT: Duration = Duration::from_millis(500);

/// The name a StatusNotifierItem host's watcher owns (KDE Plasma, GNOME's AppIndicator
/// extension, waybar, and most panels that show "app indicators").
pub const STATUS_NOTIFIER_WATCHER: &str = "org.kde.StatusNotifierWatcher";

/// The name a Secret Service owns (GNOME Keyring, KWallet's ksecretd, KeePassXC).
pub const SECRET_SERVICE: &str = "org.freedesktop.secrets";

/// The session bus of this login, when there is one.
pub fn session() -> Option<Connection> {
    match Connection::new_session() {
        Ok(connection) => Some(connection),
        Err(err) => {
            tracing::info!(%err, "no D-Bus session bus");
            None
        }
    }
}

/// Whether a tray host would show the app's status icon: a StatusNotifierWatcher owns its
/// name and says a host is registered with it. No session bus, no watcher, or a watcher with
/// no host (the panel that showed icons has gone) is [`TrayHost::Missing`].
pub fn tray_host(bus: Option<&Connection>) -> TrayHost {
    let Some(bus) = bus else {
        return TrayHost::Missing;
    };
    if owner(bus, STATUS_NOTIFIER_WATCHER).is_none() {
        return TrayHost::Missing;
    }
    use dbus::blocking::stdintf::org_freedesktop_dbus::Properties as _;
    let watcher = bus.with_proxy(STATUS_NOTIFIER_WATCHER, "/StatusNotifierWatcher", TIMEOUT);
    match watcher.get::<bool>(STATUS_NOTIFIER_WATCHER, "IsStatusNotifierHostRegistered") {
        Ok(false) => TrayHost::Missing,
        // A watcher that does not answer the property still owns the name: trusted.
        Ok(true) | Err(_) => TrayHost::Shown,
    }
}

/// The program that serves the Secret Service on the bus, in words ("GNOME Keyring"), or
/// `None` when nobody owns [`SECRET_SERVICE`] (the bus may still be able to start one).
pub fn secret_service_provider(bus: Option<&Connection>) -> Option<String> {
    let bus = bus?;
    let unique = owner(bus, SECRET_SERVICE)?;
    let pid = process_of(bus, &unique);
    let command = pid
        .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).ok())
        .unwrap_or_default();
    Some(provider_name(command.trim()).to_owned())
}

/// A Secret Service's process name (`/proc/PID/comm`, at most 15 bytes) in words.
pub fn provider_name(command: &str) -> &str {
    match command {
        c if c.starts_with("gnome-keyring") => "GNOME Keyring",
        c if c.starts_with("kwalletd") || c.starts_with("ksecretd") => "KWallet",
        c if c.starts_with("keepassxc") => "KeePassXC",
        "" => "a Secret Service",
        other => other,
    }
}

/// The unique connection name that owns `name`, if any.
fn owner(bus: &Connection, name: &str) -> Option<String> {
    let daemon = bus.with_proxy("org.freedesktop.DBus", "/org/freedesktop/DBus", TIMEOUT);
    let (owner,): (String,) = daemon
        .method_call("org.freedesktop.DBus", "GetNameOwner", (name,))
        .ok()?;
    Some(owner)
}

fn process_of(bus: &Connection, unique: &str) -> Option<u32> {
    let daemon = bus.with_proxy("org.freedesktop.DBus", "/org/freedesktop/DBus", TIMEOUT);
    let (pid,): (u32,) = daemon
        .method_call(
            "org.freedesktop.DBus",
            "GetConnectionUnixProcessID",
            (unique,),
        )
        .ok()?;
    Some(pid)
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead as _, BufReader};
    use std::process::{Child, Command, Stdio};

    use dbus::channel::Channel;

    use super::*;

    /// A private session bus of the test's own (`dbus-daemon --session`), ended on drop: no
    /// service files but the system's, and nobody owns a name until the test says so.
    struct PrivateBus {
        daemon: Child,
        address: String,
    }

    impl PrivateBus {
        fn start() -> Option<PrivateBus> {
            let mut daemon = Command::new("dbus-daemon")
                .args(["--session", "--nofork", "--print-address=1"])
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .ok()?;
            let mut address = String::new();
            BufReader::new(daemon.stdout.take()?)
                .read_line(&mut address)
                .ok()?;
            Some(PrivateBus {
                daemon,
                address: address.trim().to_owned(),
            })
        }

        fn connect(&self) -> Connection {
            let mut channel = Channel::open_private(&self.address).expect("connect to the bus");
            channel.register().expect("register on the bus");
            Connection::from(channel)
        }
    }

    impl Drop for PrivateBus {
        fn drop(&mut self) {
            let _ = self.daemon.kill();
            let _ = self.daemon.wait();
        }
    }

    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    fn bus_or_skip() -> Option<PrivateBus> {
        let bus = PrivateBus::start();
        if bus.is_none() {
            eprintln!("skipped: dbus-daemon is not installed (apt-get install dbus)");
        }
        bus
    }

    #[test]
    fn no_session_bus_means_no_tray_and_no_secret_service() {
        assert_eq!(tray_host(None), TrayHost::Missing);
        assert_eq!(secret_service_provider(None), None);
    }

    /// GNOME without the AppIndicator extension: a session bus where nobody owns the
    /// watcher's name. Once a watcher owns it, the tray is shown.
    #[test]
    fn the_tray_is_shown_only_while_a_status_notifier_watcher_owns_its_name() {
        let Some(bus) = bus_or_skip() else { return };
        let app = bus.connect();
        assert_eq!(tray_host(Some(&app)), TrayHost::Missing);

        let panel = bus.connect();
        panel
            .request_name(STATUS_NOTIFIER_WATCHER, false, false, true)
            .expect("the panel takes the watcher's name");
        // This watcher serves no property: owning the name is enough.
        assert_eq!(tray_host(Some(&app)), TrayHost::Shown);

        panel
            .release_name(STATUS_NOTIFIER_WATCHER)
            .expect("the panel goes");
        assert_eq!(tray_host(Some(&app)), TrayHost::Missing);
    }

    /// A KWallet-less session with GNOME Keyring's secret service on the bus: found, and named.
    /// Without it (and before the bus starts it) nobody owns the name.
    #[test]
    fn the_secret_service_on_the_bus_is_found_and_named() {
        let Some(bus) = bus_or_skip() else { return };
        let app = bus.connect();
        assert_eq!(secret_service_provider(Some(&app)), None);

        // The keyring daemon's process name, as /proc shows it, is what names the provider;
        // here this test's own process owns the name, so it is named by this process.
        let keyring = bus.connect();
        keyring
            .request_name(SECRET_SERVICE, false, false, true)
            .expect("take the Secret Service's name");
        let own = std::fs::read_to_string("/proc/self/comm").expect("/proc/self/comm");
        assert_eq!(
            secret_service_provider(Some(&app)).as_deref(),
            Some(provider_name(own.trim()))
        );
    }

    /// The real daemon: gnome-keyring-daemon's secrets component, started on the private bus
    /// (no KWallet anywhere), is found as GNOME Keyring.
    #[test]
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    fn a_running_gnome_keyring_is_found_as_gnome_keyring() {
        let Some(bus) = bus_or_skip() else { return };
        let runtime = tempfile::tempdir().expect("a runtime folder");
        let Ok(mut daemon) = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env("XDG_DATA_HOME", runtime.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        else {
            eprintln!("skipped: gnome-keyring-daemon is not installed");
            return;
        };
        let app = bus.connect();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut found = None;
        while found.is_none() && std::time::Instant::now() < deadline {
            found = secret_service_provider(Some(&app));
            if found.is_none() {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let _ = daemon.kill();
        let _ = daemon.wait();
        assert_eq!(found.as_deref(), Some("GNOME Keyring"));
    }

    #[test]
    fn providers_are_named_in_words() {
        assert_eq!(provider_name("gnome-keyring-d"), "GNOME Keyring");
        assert_eq!(provider_name("kwalletd6"), "KWallet");
        assert_eq!(provider_name("ksecretd"), "KWallet");
        assert_eq!(provider_name("keepassxc"), "KeePassXC");
        assert_eq!(provider_name(""), "a Secret Service");
    }
}
