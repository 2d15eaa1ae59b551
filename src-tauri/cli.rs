//! The command line: the same crates as the window, driven headless. Subcommands print to
//! standard output, which is the one place the workspace allows it.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Domain Desk: attach custom domains to hosted projects.
#[derive(Debug, Parser)]
#[command(name = "domain-desk", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the version and where data and logs are kept.
    Info,
}

/// Runs a headless subcommand and turns its outcome into the process's exit status.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Info => {
            let paths = crate::paths::AppPaths::from_os();
            println!("domain-desk {}", env!("CARGO_PKG_VERSION"));
            println!("data: {}", paths.data_dir.display());
            println!("logs: {}", paths.log_dir.display());
            ExitCode::SUCCESS
        }
    }
}

pub fn report_error(err: &dyn std::fmt::Display) {
    eprintln!("domain-desk: {err}");
}
