//! Tauri commands: each a few lines that hand over to a library crate.

pub mod app;
