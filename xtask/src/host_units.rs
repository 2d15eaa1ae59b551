//! The cross builds take the host units (proc macros, build scripts and what they depend on)
//! the build of every test has already compiled, instead of compiling them again.
//!
//! A cross build compiles its host units into its own target folder (`target/cross/debug`),
//! and they are the same units, with the same hashes, as the native build's in
//! `target/debug`: measured with a `RUSTC_WRAPPER` logging each rustc's CPU, the Windows
//! build spent 148 core-seconds on host units from nothing and 60 in a folder seeded from the
//! native build (the rest differ in features). The cross builds keep their own folder, so
//! they never hold the native build's lock; the compiled files are hard links, no copy of
//! gigabytes, and the files cargo rewrites in place are copies (see [`seed`]).
//!
//! `cargo xtask test` marks the build of every test as done ([`mark_built`]); `.ci/run`'s
//! cross builds wait for that mark ([`wait_for_build`]), then take what they lack ([`seed`]).
//!
//! The fuzz build cannot take them: it runs with `RUSTC_BOOTSTRAP=1` (for `-Zsanitizer`), and
//! build scripts that watch that variable (proc-macro2's) run again, so everything built on
//! them is compiled again.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::steps::root;

/// Written by `cargo xtask test` once the build of every test is done.
fn marker() -> PathBuf {
    root().join("target/debug/.xtask-every-test-built")
}

/// The build of every test is starting: a cross build waiting for it must wait for this one.
pub fn clear_mark() {
    let _ = std::fs::remove_file(marker());
}

/// The build of every test is done: its host units are there to take.
pub fn mark_built() -> Result<()> {
    let marker = marker();
    std::fs::create_dir_all(marker.parent().unwrap_or(Path::new(".")))?;
    std::fs::write(&marker, b"").with_context(|| format!("write {}", marker.display()))
}

/// Waits until the build of every test is done (`.ci/run` stops the cross builds when the
/// run ends first).
pub fn wait_for_build() {
    let marker = marker();
    if !marker.exists() {
        println!("==> waiting for the build of every test, to take its host units");
    }
    while !marker.exists() {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Puts into `to` (a cross build's `target/cross/debug`) every unit of `from` (the native
/// `target/debug`) that `to` lacks, in `deps`, `build` and `.fingerprint`. The workspace's
/// own crates are left out: their native units carry the lints' variables (`lint_build`), so
/// a cross build would rebuild them, and it must never write into a file it shares with the
/// native build. Cargo's lock file is not in those folders.
///
/// The compiled files of `deps` (gigabytes, replaced whole when rebuilt) are hard links;
/// `build` and `.fingerprint` (about 250 MB) are copied. Cargo rewrites a fingerprint, and a
/// build script its output, in place: through a link, a unit the cross build rebuilt would
/// change the native build's files, and the native build would rebuild in turn.
pub fn seed(from: &Path, to: &Path) -> Result<u64> {
    let mut linked = 0;
    for (folder, how) in [
        ("deps", Seed::Link),
        ("build", Seed::Copy),
        (".fingerprint", Seed::Copy),
    ] {
        let Ok(entries) = std::fs::read_dir(from.join(folder)) else {
            continue;
        };
        std::fs::create_dir_all(to.join(folder))?;
        for entry in entries.flatten() {
            if is_workspace_unit(&entry.file_name().to_string_lossy()) {
                continue;
            }
            linked += seed_tree(&entry.path(), &to.join(folder).join(entry.file_name()), how)?;
        }
    }
    Ok(linked)
}

/// Whether a unit's file or folder (`libdomain_desk_api-….rlib`, `domain-desk-…`,
/// `xtask-…`) is one of the workspace's crates.
fn is_workspace_unit(name: &str) -> bool {
    let name = name.strip_prefix("lib").unwrap_or(name);
    ["domain-desk", "domain_desk", "xtask"]
        .iter()
        .any(|crate_name| name.starts_with(crate_name))
}

/// How a folder's files reach the cross build's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seed {
    /// A hard link (a copy where none can be made): for files that are only ever replaced.
    Link,
    /// A copy: for files cargo or a build script may rewrite in place.
    Copy,
}

/// Puts the files under `from` at the same places under `to`, leaving what `to` already
/// has. The count put.
fn seed_tree(from: &Path, to: &Path, how: Seed) -> Result<u64> {
    let meta = std::fs::symlink_metadata(from)?;
    if meta.is_dir() {
        std::fs::create_dir_all(to)?;
        let mut linked = 0;
        for entry in std::fs::read_dir(from)?.flatten() {
            linked += seed_tree(&entry.path(), &to.join(entry.file_name()), how)?;
        }
        return Ok(linked);
    }
    if !meta.is_file() || to.exists() {
        return Ok(0);
    }
    if how == Seed::Copy {
        return std::fs::copy(from, to)
            .map(|_| 1)
            .with_context(|| format!("copy {} to {}", from.display(), to.display()));
    }
    match std::fs::hard_link(from, to) {
        Ok(()) => Ok(1),
        // the other cross build seeding at the same time
        Err(err) if err.kind() == ErrorKind::AlreadyExists => Ok(0),
        Err(_) => std::fs::copy(from, to)
            .map(|_| 1)
            .with_context(|| format!("copy {} to {}", from.display(), to.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_links_the_dependencies_units_and_leaves_the_workspaces_and_what_is_there() {
        let dir = std::env::temp_dir().join(format!("xtask-host-units-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (native, cross) = (dir.join("debug"), dir.join("cross/debug"));
        let write = |path: &Path, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(&native.join("deps/libsyn-1a.rlib"), "syn");
        write(&native.join("deps/libdomain_desk_api-2b.rlib"), "api");
        write(&native.join("build/serde-3c/build-script-build"), "script");
        write(&native.join(".fingerprint/serde-3c/lib-serde"), "fp");
        write(
            &native.join(".fingerprint/domain-desk-4d/bin-domain-desk"),
            "fp",
        );
        write(&native.join(".fingerprint/xtask-5e/bin-xtask"), "fp");
        write(&native.join(".cargo-lock"), "");
        write(&native.join("deps/libserde-3c.rlib"), "serde");

        // into a cross folder that does not exist yet, as on a fresh clone
        let fresh = dir.join("fresh/debug");
        assert_eq!(seed(&native, &fresh).unwrap(), 4);
        assert!(fresh.join("deps/libsyn-1a.rlib").is_file());

        write(&cross.join("deps/libsyn-1a.rlib"), "the cross build's own");
        assert_eq!(seed(&native, &cross).unwrap(), 3);
        let read = |path: &str| std::fs::read_to_string(cross.join(path)).ok();
        assert_eq!(
            read("build/serde-3c/build-script-build").as_deref(),
            Some("script")
        );
        assert_eq!(
            read(".fingerprint/serde-3c/lib-serde").as_deref(),
            Some("fp")
        );
        assert_eq!(
            read("deps/libsyn-1a.rlib").as_deref(),
            Some("the cross build's own"),
            "what the cross build has is left as it is"
        );
        for left_out in [
            "deps/libdomain_desk_api-2b.rlib",
            ".fingerprint/domain-desk-4d/bin-domain-desk",
            ".fingerprint/xtask-5e/bin-xtask",
            ".cargo-lock",
        ] {
            assert_eq!(read(left_out), None, "{left_out}");
        }
        assert_eq!(seed(&native, &cross).unwrap(), 0, "nothing twice");

        // A fingerprint or a build script's output rewritten in place by the cross build
        // leaves the native build's as it was; a compiled file is the native one, linked.
        std::fs::write(cross.join(".fingerprint/serde-3c/lib-serde"), "rebuilt").unwrap();
        std::fs::write(cross.join("build/serde-3c/build-script-build"), "rebuilt").unwrap();
        let native_read = |path: &str| std::fs::read_to_string(native.join(path)).unwrap();
        assert_eq!(native_read(".fingerprint/serde-3c/lib-serde"), "fp");
        assert_eq!(native_read("build/serde-3c/build-script-build"), "script");
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            let inode = |path: &Path| std::fs::metadata(path).unwrap().ino();
            assert_eq!(
                inode(&cross.join("deps/libserde-3c.rlib")),
                inode(&native.join("deps/libserde-3c.rlib"))
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
