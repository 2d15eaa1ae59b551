//! Domain Desk's application layer: what the window (`src-tauri`'s commands) and the command
//! line (`domain-desk <subcommand>`) share, without Tauri, tested with plain `cargo test`.
//!
//! The front ends parse, call one function here and report in their own way (a channel to
//! the window, a progress line on the terminal); the rules and the workflows live once:
//! - signing in to the accounts kept on this computer ([`accounts`]: a key proved, kept,
//!   opened and forgotten), their list ([`settings`], [`accounts_file`]) and their rules
//!   ([`account_rules`]: entry names, where a key may be sent, demo account ids), their keys
//!   in the OS keyring ([`secrets`], behind [`secrets::SecretStore`]), the app's folders
//!   ([`paths`]);
//! - the offline demo's service ([`demo_service`]) and the doctor's options against it
//!   ([`doctor_options`]);
//! - renewal readiness ([`renewal`]) and the watch over every account ([`renewal_watch`]);
//! - the update policy ([`updates`]); what closing the window does while domains wait
//!   ([`background`]), with what the Linux session offers (`session_bus`: a tray host, the
//!   Secret Service's provider);
//! - the workflows both front ends run: importing a file ([`import`]), exporting a project's
//!   domains ([`export`]) and "set up automatically, then verify" ([`auto_setup`]).

pub mod account_rules;
pub mod accounts;
pub mod accounts_file;
pub mod auto_setup;
pub mod background;
pub mod demo_service;
pub mod doctor_options;
mod error;
pub mod export;
pub mod import;
pub mod paths;
pub mod renewal;
pub mod renewal_watch;
pub mod secrets;
#[cfg(target_os = "linux")]
pub mod session_bus;
pub mod settings;
pub mod updates;

pub use error::{Error, Result};
