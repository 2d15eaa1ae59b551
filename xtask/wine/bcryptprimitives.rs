//! A stand-in for Windows' `bcryptprimitives.dll`, used only to run the Windows build under
//! Wine in `cargo xtask windows`.
//!
//! Rust's standard library for Windows draws its random numbers from `ProcessPrng` in
//! `bcryptprimitives.dll`, which Debian's Wine 8 does not ship, so every Rust program fails to
//! load there. This file is compiled with `rustc` for the Windows target next to the `.exe`
//! under test and forwards to `RtlGenRandom` (`SystemFunction036` in advapi32), which Wine has.
//! It is not part of the workspace and never ships.
#![no_std]
#![crate_type = "cdylib"]

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[link(name = "advapi32")]
unsafe extern "system" {
    fn SystemFunction036(buf: *mut u8, len: u32) -> u8;
}

/// Fills `len` bytes at `buf` with random bytes; returns TRUE as the real function does.
///
/// # Safety
/// `buf` must be valid for writes of `len` bytes, as for the real `ProcessPrng`.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn ProcessPrng(mut buf: *mut u8, mut len: usize) -> i32 {
    while len > 0 {
        let chunk = len.min(u32::MAX as usize);
        // SAFETY: the caller promises `buf` is writable for `len` bytes; chunk <= len.
        if unsafe { SystemFunction036(buf, chunk as u32) } == 0 {
            return 0;
        }
        // SAFETY: advancing within the caller's buffer.
        buf = unsafe { buf.add(chunk) };
        len -= chunk;
    }
    1
}
