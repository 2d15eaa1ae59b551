//! The vocabulary of keyring stores: which one keeps the keys on this computer, in words for
//! the About panel. Imported by the per-platform choice (`linux.rs`) and by its caller
//! ([`super::KeyStore::install`]), and importing neither.

use serde::Serialize;

/// Where API keys are kept on this computer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyStore {
    MacosKeychain,
    WindowsCredentialManager,
    /// GNOME Keyring, KWallet or another Secret Service on the session bus.
    SecretService,
    /// The Linux kernel's keyutils: kept for the login session only.
    KernelKeyutils,
    /// The keyring crate's own choice on other systems.
    PlatformDefault,
}

impl KeyStore {
    /// A sentence for the About panel.
    pub fn describe(self) -> &'static str {
        match self {
            KeyStore::MacosKeychain => "the macOS Keychain",
            KeyStore::WindowsCredentialManager => "the Windows Credential Manager",
            KeyStore::SecretService => "the Secret Service (your desktop's keyring)",
            KeyStore::KernelKeyutils => {
                "the kernel keyring (no Secret Service is running: keys last until you log out)"
            }
            KeyStore::PlatformDefault => "the system keyring",
        }
    }
}
