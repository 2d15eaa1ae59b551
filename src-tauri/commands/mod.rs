//! Tauri commands: each a few lines that hand over to a library crate or to the shell's own
//! accounts controller ([`crate::accounts::Accounts`], held as Tauri state).

pub mod app;
pub mod bulk;
pub mod demo;
pub mod desktop;
pub mod diagnose;
pub mod domain_connect;
pub mod domains;
pub mod projects;
pub mod renewal;
pub mod session;
pub mod system;
