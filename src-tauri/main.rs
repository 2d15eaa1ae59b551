//! The `domain-desk` binary: the desktop window with no arguments or a `domain-desk://` link,
//! a headless tool with a subcommand. Everything it does lives in the library crates; this file only dispatches.
//!
//! Windows release builds use the GUI subsystem (no console window beside the app); the
//! subcommands attach to their terminal's console first (`console.rs`).
#![cfg_attr(
    all(not(debug_assertions), target_os = "windows"),
    windows_subsystem = "windows"
)]

use std::process::ExitCode;

use clap::Parser;

/// mimalloc rather than the system's allocator: the doctor's batch and the local service make
/// many small short-lived allocations, and on Linux glibc's malloc and free cost the doctor
/// 15-25 % of its CPU time (BENCHMARKS.md). Only Rust's allocations use it; the webview's
/// own code keeps the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A `domain-desk://` link opened by the system: the window, which shows it (or hands it
    // to the window already open).
    // The arguments as bytes: a link that is not UTF-8 still opens the window, which says it
    // was refused (`std::env::args` would panic on it).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 2 && domain_desk_api::links::from_args_os(&args).is_some() {
        return window();
    }
    if args.len() > 1 {
        // A subcommand or a flag such as --help: its output must reach the terminal.
        domain_desk::console::attach();
    }
    let cli = domain_desk::cli::Cli::parse();
    match cli.command {
        None => window(),
        Some(command) => domain_desk::cli::run(command, cli.api),
    }
}

fn window() -> ExitCode {
    // The window frees a burst at a launch and then mostly waits: it hands that memory back.
    domain_desk::allocator::return_freed_memory_at_once();
    // SAFETY: nothing has started a thread yet: only argument parsing ran before this.
    #[allow(unsafe_code)]
    unsafe {
        domain_desk::webview::prepare_process()
    };
    match domain_desk::run_window() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            domain_desk::cli::report_error(&err);
            ExitCode::FAILURE
        }
    }
}
