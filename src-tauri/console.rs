//! Where a subcommand's output goes on Windows.
//!
//! The Windows release binary uses the GUI subsystem, so opening the app from the Start menu
//! or Explorer shows no console window. Such a process starts with no standard handles;
//! before a subcommand prints, it attaches to the console of the terminal it was started from
//! (or opens one when there is none). Elsewhere standard output already works, so this
//! module is Windows-only and the rest of the program calls [`attach`] unconditionally.

/// Gives the process a console to print to when it has none (Windows release builds).
#[cfg(windows)]
pub fn attach() {
    // Printing is best effort: with no console at all the subcommand still runs and its exit
    // status still tells the outcome.
    let _ = consolex::attach();
}

#[cfg(not(windows))]
pub fn attach() {}
