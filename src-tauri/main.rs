//! The `domain-desk` binary: the desktop window with no arguments, a headless tool with a
//! subcommand. Everything it does lives in the library crates; this file only dispatches.
//!
//! The binary keeps the console subsystem on Windows so that subcommands print where they were
//! started; the window opens the same way on every platform.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
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
