//! Clippy's lints in the one build of the tests, instead of a build of their own.
//!
//! `cargo clippy` is `cargo check` with `RUSTC_WORKSPACE_WRAPPER` set to `clippy-driver` and
//! its arguments in `CLIPPY_ARGS`; the driver lints the workspace's crates whatever cargo asks
//! it to emit. Check mode builds every dependency a second time (metadata only, a build cargo
//! keeps apart from the real one), which on a fresh machine is minutes of the run. With the
//! same two variables set for every cargo command of `cargo xtask test`, the build of the
//! tests is linted as `cargo clippy --workspace --all-targets -- -D warnings` lints it (the
//! same targets: libraries, binaries, tests and examples; the workspace has no benches), and
//! the dependencies are built once. The variables are part of each workspace crate's
//! fingerprint, so every later step of the run (the app for schemathesis, the end-to-end
//! tests, the keyring tests) must see them too, or it would rebuild the workspace's crates:
//! once [`enable`]d, every cargo command xtask starts carries them ([`apply`]). The fuzz
//! build, with its own workspace and sanitizer, and `cargo install` of the tools go without
//! them ([`clear`]).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The variable that makes cargo run a workspace crate's compilation through the driver.
const WRAPPER: &str = "RUSTC_WORKSPACE_WRAPPER";
/// The driver's own arguments, as `cargo clippy -- -D warnings` passes them.
const ARGS: &str = "CLIPPY_ARGS";
/// How `cargo clippy` joins the arguments after `--`.
const SEPARATOR: &str = "__CLIPPY_HACKERY__";

/// `clippy-driver` of the toolchain that builds (beside `rustc` in its sysroot), or the name
/// for the `PATH` to find when the sysroot has none.
pub fn driver() -> PathBuf {
    let sysroot = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned());
    let name = format!("clippy-driver{}", std::env::consts::EXE_SUFFIX);
    sysroot
        .map(|root| PathBuf::from(root).join("bin").join(&name))
        .filter(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The two variables, with every warning an error (`-D warnings`).
pub fn variables(driver: PathBuf) -> [(&'static str, OsString); 2] {
    [
        (WRAPPER, driver.into_os_string()),
        (ARGS, format!("-D{SEPARATOR}warnings{SEPARATOR}").into()),
    ]
}

/// The variables once [`enable`]d.
static ENABLED: OnceLock<[(&str, OsString); 2]> = OnceLock::new();

/// From now on every cargo command xtask starts ([`apply`]) lints the workspace's crates.
pub fn enable() {
    ENABLED.get_or_init(|| variables(driver()));
}

/// Gives `cmd` the variables when they are [`enable`]d: every cargo command of the run, and
/// a command that starts cargo itself (the end-to-end tests' sandbox, `keyctl session`).
pub fn apply(cmd: &mut Command) -> &mut Command {
    if let Some(variables) = ENABLED.get() {
        cmd.envs(variables.iter().map(|(name, value)| (name, value)));
    }
    cmd
}

/// A command that builds without the lints (another workspace, such as the fuzz crate's).
pub fn clear(cmd: &mut Command) -> &mut Command {
    cmd.env_remove(WRAPPER).env_remove(ARGS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate of its own with one lint Clippy denies (`len_zero`) and nothing rustc warns of.
    fn linted_crate(dir: &std::path::Path, body: &str) {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"linted\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(dir.join("src/main.rs"), body).unwrap();
    }

    fn build(dir: &std::path::Path, with_lints: bool) -> std::process::Output {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.current_dir(dir)
            .args(["build", "--quiet", "--offline"])
            .env("CARGO_TARGET_DIR", dir.join("target"));
        clear(&mut cmd);
        if with_lints {
            cmd.envs(variables(driver()));
        }
        cmd.output().unwrap()
    }

    #[test]
    fn a_build_with_the_variables_fails_on_a_clippy_lint_and_still_builds_clean_code() {
        let dir = std::env::temp_dir().join(format!("xtask-lint-build-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let lint = "fn main() {\n    let v: Vec<String> = std::env::args().collect();\n    if v.len() == 0 {\n        println!(\"empty\");\n    }\n}\n";
        linted_crate(&dir, lint);
        assert!(build(&dir, false).status.success(), "rustc alone builds it");
        let linted = build(&dir, true);
        let stderr = String::from_utf8_lossy(&linted.stderr);
        assert!(!linted.status.success(), "{stderr}");
        assert!(stderr.contains("clippy::len_zero"), "{stderr}");

        linted_crate(
            &dir,
            "fn main() {\n    let v: Vec<String> = std::env::args().collect();\n    if v.is_empty() {\n        println!(\"empty\");\n    }\n}\n",
        );
        let clean = build(&dir, true);
        assert!(
            clean.status.success(),
            "{}",
            String::from_utf8_lossy(&clean.stderr)
        );
        // The driver built a real binary, not only checked it.
        assert!(
            dir.join("target/debug")
                .join(format!("linted{}", std::env::consts::EXE_SUFFIX))
                .exists()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
