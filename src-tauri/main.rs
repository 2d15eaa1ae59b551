//! The `domain-desk` binary: the desktop window with no arguments, a headless tool with a
//! subcommand. Everything it does lives in the library crates; this file only dispatches.
//!
//! Windows release builds use the GUI subsystem (no console window beside the app); the
//! subcommands attach to their terminal's console first (`console.rs`).
#![cfg_attr(
    all(not(debug_assertions), target_os = "windows"),
    windows_subsystem = "windows"
)]

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    if std::env::args_os().len() > 1 {
        // A subcommand or a flag such as --help: its output must reach the terminal.
        domain_desk::console::attach();
    }
    let cli = domain_desk::cli::Cli::parse();
    match cli.command {
        None => match domain_desk::run_window() {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                domain_desk::cli::report_error(&err);
                ExitCode::FAILURE
            }
        },
        Some(command) => domain_desk::cli::run(command),
    }
}
