//! The window's process returns the memory it frees at once.
//!
//! mimalloc, the binary's allocator (for the doctor's and the service's speed, see `main.rs`),
//! keeps memory it has freed before handing it back to the system: a page for 10 ms after
//! it empties, its arenas' pages ten times that, and the pages of a thread that ends until
//! another thread takes them over; and it only hands memory back while it is being called.
//! The window's process frees a burst at a launch (a project's list of thousands of domains,
//! read from the API and passed to the page) and then mostly waits, so that memory stayed in
//! the process. Measured at 5,000 domains (`cargo xtask bench app`,
//! docs/benchmarks-history.md), the process held 103–109 MB of PSS at paint with mimalloc's
//! defaults and 90 MB with freed memory returned at once. The command line keeps the
//! defaults: its batches are short and fast, and end.

/// `mi_option_abandoned_page_purge` in mimalloc 2's `mimalloc.h`: purge what a thread that
/// ends leaves. Default off.
const ABANDONED_PAGE_PURGE: libmimalloc_sys::mi_option_t = 12;
/// `mi_option_purge_delay` in mimalloc 2's `mimalloc.h`: milliseconds a freed page waits
/// before it is returned. Default 10.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Has mimalloc return freed memory to the system at once, and the pages of threads that end.
pub fn return_freed_memory_at_once() {
    // SAFETY: setting an option is a plain store mimalloc reads at its next purge; both
    // options are mimalloc 2's own, numbered as its header numbers them (checked by the
    // tests against their documented defaults).
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
        libmimalloc_sys::mi_option_set_enabled(ABANDONED_PAGE_PURGE, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(unsafe_code)]
    fn option(option: libmimalloc_sys::mi_option_t) -> std::ffi::c_long {
        // SAFETY: reading an option is a plain load.
        unsafe { libmimalloc_sys::mi_option_get(option) }
    }

    /// The numbers name the options meant: before the window sets them they read their
    /// documented defaults (a mimalloc that renumbered its options fails here), after it
    /// they read what it set.
    #[test]
    fn the_options_set_are_the_purge_delay_and_the_abandoned_pages_purge() {
        assert_eq!(
            option(PURGE_DELAY),
            10,
            "mimalloc 2's purge delay defaults to 10 ms"
        );
        assert_eq!(option(ABANDONED_PAGE_PURGE), 0, "off by default");
        return_freed_memory_at_once();
        assert_eq!(option(PURGE_DELAY), 0);
        assert_eq!(option(ABANDONED_PAGE_PURGE), 1);
    }
}
