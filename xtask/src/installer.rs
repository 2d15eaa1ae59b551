//! The Windows installer: built with Debian's `makensis` from `xtask/windows/installer.nsi`,
//! then installed silently under Wine, run from where it installed, and uninstalled, checking
//! what stays behind.
//!
//! Our own NSIS script rather than the Tauri bundler's NSIS target: the bundler downloads its
//! NSIS plugin (`nsis_tauri_utils.dll`) from GitHub releases while it builds, which machines
//! limited to the package registries cannot reach.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::root;
use crate::wine::Wine;

/// The marker Tauri reads at run time to know how it was installed (`bundle_type()`); the
/// bundler rewrites it in the binary it packs, and so do we: the updater then knows it may
/// install the new version itself.
const BUNDLE_MARKER: &[u8] = b"__TAURI_BUNDLE_TYPE_VAR_UNK";
const NSIS_MARKER: &[u8] = b"__TAURI_BUNDLE_TYPE_VAR_NSS";

/// The DLL a MinGW build of a WebView2 app loads at start; it must sit beside the program.
const WEBVIEW2_LOADER: &str = "WebView2Loader.dll";

/// How the installer is made: `Release` as shipped (solid lzma); `Test` for CI's walk under
/// Wine, where the program's symbols are stripped and zlib packs it several times faster (the
/// same script, the same steps; only the packing differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    Release,
    Test,
}

/// Builds the installer for `exe` (and the `WebView2Loader.dll` beside it, which a MinGW
/// build cannot start without) and returns its path.
pub fn build(exe: &Path, out_dir: &Path, packing: Packing) -> Result<PathBuf> {
    println!("\n==> Windows installer (makensis)");
    let started = Instant::now();
    let version = crate_version()?;
    let stage = out_dir.join("stage");
    let _ = std::fs::remove_dir_all(&stage);
    std::fs::create_dir_all(&stage)?;
    let mut bytes = std::fs::read(exe).with_context(|| format!("read {}", exe.display()))?;
    let marked = mark_bundle(&mut bytes);
    if marked == 0 {
        bail!(
            "{} does not carry Tauri's bundle-type marker; the updater would not know it was installed",
            exe.display()
        );
    }
    let imports_loader = contains(&bytes, WEBVIEW2_LOADER.as_bytes());
    let staged = stage.join("domain-desk.exe");
    std::fs::write(&staged, &bytes)?;
    drop(bytes);
    if packing == Packing::Test {
        strip(&staged);
    }
    let setup = out_dir.join(format!("Domain-Desk_{version}_x64-setup.exe"));
    let mut cmd = Command::new("makensis");
    cmd.arg("-V2")
        .arg(format!("-DVERSION={version}"))
        .arg(format!("-DSOURCE={}", stage.display()))
        .arg(format!("-DOUTFILE={}", setup.display()))
        .arg(format!(
            "-DICON={}",
            root().join("icons/icon.ico").display()
        ));
    if imports_loader {
        let loader = exe.with_file_name(WEBVIEW2_LOADER);
        if !loader.is_file() {
            bail!(
                "{} loads {WEBVIEW2_LOADER} at start, and the build left none beside it",
                exe.display()
            );
        }
        std::fs::copy(&loader, stage.join(WEBVIEW2_LOADER))?;
        cmd.arg("-DWEBVIEW2_LOADER");
    }
    if packing == Packing::Test {
        cmd.arg("-DCOMPRESSOR=zlib");
    }
    // A bootstrapper put beside the script is shipped inside; otherwise the installer fetches
    // it from Microsoft on a machine that lacks the runtime.
    let bootstrapper = root().join("xtask/windows/MicrosoftEdgeWebview2Setup.exe");
    if bootstrapper.is_file() {
        cmd.arg(format!(
            "-DWEBVIEW2_BOOTSTRAPPER={}",
            bootstrapper.display()
        ));
    }
    cmd.arg(root().join("xtask/windows/installer.nsi"));
    let status = cmd
        .status()
        .context("makensis (apt-get install nsis) could not start")?;
    if !status.success() {
        bail!("makensis failed ({status})");
    }
    let size = std::fs::metadata(&setup)?.len();
    println!(
        "    {} ({:.1} MB{}) in {:.1} s",
        setup.display(),
        size as f64 / 1_048_576.0,
        if imports_loader {
            ", with WebView2Loader.dll"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    );
    Ok(setup)
}

/// Strips the symbols of a test build's program before packing (a debug build is mostly
/// symbols). Without MinGW's `strip` it is packed as it is, only slower.
fn strip(exe: &Path) {
    let status = Command::new("x86_64-w64-mingw32-strip")
        .arg("--strip-all")
        .arg(exe)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        println!("    x86_64-w64-mingw32-strip did not run: packing the program unstripped");
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Rewrites every bundle-type marker in `bytes` to the NSIS one; returns how many.
fn mark_bundle(bytes: &mut [u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i + BUNDLE_MARKER.len() <= bytes.len() {
        if &bytes[i..i + BUNDLE_MARKER.len()] == BUNDLE_MARKER {
            bytes[i..i + BUNDLE_MARKER.len()].copy_from_slice(NSIS_MARKER);
            count += 1;
            i += BUNDLE_MARKER.len();
        } else {
            i += 1;
        }
    }
    count
}

fn crate_version() -> Result<String> {
    let conf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tauri.conf.json"))?)?;
    conf["version"]
        .as_str()
        .map(str::to_owned)
        .context("tauri.conf.json has a version")
}

/// Builds the installer for `exe`, then installs, runs and uninstalls it in the Wine prefix
/// under `target/cross`.
pub fn smoke_test(wine: &Path, exe: &Path, target: &str, packing: Packing) -> Result<()> {
    let prefix = root().join("target/cross/wine-prefix");
    std::fs::create_dir_all(&prefix)?;
    let wine = Wine {
        wine,
        prefix: prefix.clone(),
    };
    crate::wine::install_shim(&wine, target)?;
    // The installer, built from this build, installed, run (`serve` and `doctor` against each
    // other from the installed folder) and uninstalled in the prefix.
    let setup = build(exe, &root().join("target/cross/installer"), packing)?;
    let result = test_under_wine(&wine, &setup, target);
    crate::wine::stop_wineserver(wine.wine, &prefix);
    result
}

/// What a per-user install puts in place, in one prefix.
struct Installed {
    dir: PathBuf,
    shortcut: PathBuf,
    /// Settings, the accounts list, logs, the offline demo (`%APPDATA%\<identifier>`).
    data: PathBuf,
    /// The WebView2 cache and the window's state (`%LOCALAPPDATA%\<identifier>`).
    local_data: PathBuf,
    local_app_data: PathBuf,
}

const UNINSTALL_KEY: &str =
    r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\dev.domaindesk.app";
const SCHEME_KEY: &str = r"HKCU\Software\Classes\domain-desk";
/// Where the installer looks for a per-user WebView2 runtime (its version in `pv`).
const WEBVIEW2_USER_KEY: &str =
    r"HKCU\Software\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}";

impl Installed {
    fn in_prefix(wine: &Wine<'_>) -> Result<Self> {
        let profile = wine.profile()?;
        let local_app_data = profile.join("AppData/Local");
        Ok(Self {
            dir: local_app_data.join("Programs/Domain Desk"),
            shortcut: profile
                .join("AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Domain Desk.lnk"),
            data: profile.join("AppData/Roaming/dev.domaindesk.app"),
            local_data: local_app_data.join("dev.domaindesk.app"),
            local_app_data,
        })
    }

    /// The prefix is kept between runs (creating one takes time and space); a run starts as
    /// on a machine where Domain Desk was never installed.
    fn forget(&self, wine: &Wine<'_>) -> Result<()> {
        for dir in [&self.dir, &self.data, &self.local_data] {
            if dir.exists() {
                std::fs::remove_dir_all(dir)
                    .with_context(|| format!("remove {}", dir.display()))?;
            }
        }
        let _ = std::fs::remove_file(&self.shortcut);
        let _ = std::fs::remove_file(self.local_app_data.join(BOOTSTRAPPER_LOG));
        for key in [UNINSTALL_KEY, SCHEME_KEY, WEBVIEW2_USER_KEY] {
            if wine.reg_exists(key) {
                wine.reg(&["delete", key, "/f"])
                    .with_context(|| format!("reg delete {key}"))?;
            }
        }
        Ok(())
    }

    /// What an uninstall left of the program (the user's data is checked apart).
    fn left_behind(&self, wine: &Wine<'_>) -> Vec<String> {
        let mut left = Vec::new();
        if self.dir.exists() {
            left.push(format!("{}", self.dir.display()));
        }
        if self.shortcut.exists() {
            left.push("the Start menu entry".into());
        }
        if wine.reg_exists(UNINSTALL_KEY) {
            left.push("the Apps & features entry".into());
        }
        if wine.reg_exists(SCHEME_KEY) {
            left.push("the domain-desk:// handler".into());
        }
        left
    }
}

/// Installs `setup` silently, smoke-tests the installed program, uninstalls it, and checks
/// that the program, its Start menu entry and its registry keys are gone while the user's
/// data stays (and goes with `/DELETEDATA`). Then the WebView2 bootstrapper's handling, with
/// a stand-in bootstrapper in an installer of its own.
pub fn test_under_wine(wine: &Wine<'_>, setup: &Path, target: &str) -> Result<()> {
    println!("\n==> Windows installer under Wine: install, run, uninstall");
    let started = Instant::now();
    let installed = Installed::in_prefix(wine)?;
    installed.forget(wine)?;
    // Wine carries no WebView2 runtime, so this install also walks the path of a machine that
    // lacks it and cannot fetch the bootstrapper: the install still succeeds (the command line
    // needs no WebView2) and says so in its details.
    run_ok(wine.command(setup).arg("/S"), "the installer (/S)")?;
    let exe = installed.dir.join("domain-desk.exe");
    let handler = wine.reg_default(&format!(r"{SCHEME_KEY}\shell\open\command"));
    let expected_handler = r#"\Programs\Domain Desk\domain-desk.exe" "%1""#;
    for (what, ok) in [
        ("the program in %LOCALAPPDATA%\\Programs", exe.is_file()),
        (
            "WebView2Loader.dll beside the program, which loads it at start",
            installed.dir.join(WEBVIEW2_LOADER).is_file() || !loads_webview2_loader(&exe),
        ),
        (
            "the uninstaller",
            installed.dir.join("uninstall.exe").is_file(),
        ),
        ("the Start menu entry", installed.shortcut.is_file()),
        ("the Apps & features entry", wine.reg_exists(UNINSTALL_KEY)),
        (
            "the domain-desk:// link handler, opening the installed program with the link",
            handler
                .as_deref()
                .is_some_and(|h| h.ends_with(expected_handler)),
        ),
    ] {
        if !ok {
            bail!("after a silent install, {what} is missing (link handler: {handler:?})");
        }
    }
    println!(
        "    installed per user in {:.1} s: program, WebView2Loader.dll, uninstaller, Start menu entry, Apps & features entry, domain-desk:// → {}",
        started.elapsed().as_secs_f64(),
        handler.unwrap_or_default()
    );

    let info = wine
        .command(&exe)
        .arg("info")
        .stderr(Stdio::inherit())
        .output()
        .context("run the installed domain-desk.exe info")?;
    let text = String::from_utf8_lossy(&info.stdout);
    if !info.status.success() || !text.contains("domain-desk ") {
        // Wine ends a program whose DLLs cannot be found with status 53.
        let hint = if info.status.code() == Some(53) {
            " (Wine's status for a DLL that cannot be found)"
        } else {
            ""
        };
        bail!(
            "the installed domain-desk.exe info: {:?}{hint} {text}",
            info.status
        );
    }
    println!(
        "    installed domain-desk.exe info: {}",
        text.lines().next().unwrap_or_default()
    );
    crate::wine::serve_and_doctor(wine, &exe)?;

    // What the user made: it must survive an uninstall.
    std::fs::create_dir_all(&installed.data)?;
    std::fs::write(
        installed.data.join("settings.json"),
        "{\"settings\":{\"theme\":\"dark\"}}",
    )?;
    std::fs::create_dir_all(installed.local_data.join("EBWebView"))?;

    uninstall(wine, &installed.dir, &[])?;
    let left = installed.left_behind(wine);
    if !left.is_empty() {
        bail!("the uninstaller left behind: {}", left.join(", "));
    }
    if !installed.data.join("settings.json").is_file() || !installed.local_data.is_dir() {
        bail!("the uninstaller removed the user's data without being asked");
    }
    println!(
        "    uninstalled: program folder, Start menu entry, both registry keys gone; %APPDATA%\\dev.domaindesk.app\\settings.json and %LOCALAPPDATA%\\dev.domaindesk.app kept"
    );

    run_ok(wine.command(setup).arg("/S"), "the installer, again")?;
    uninstall(wine, &installed.dir, &["/DELETEDATA"])?;
    if installed.data.exists() || installed.local_data.exists() {
        bail!("uninstall /DELETEDATA left the user's data");
    }
    let left = installed.left_behind(wine);
    if !left.is_empty() {
        bail!("uninstall /DELETEDATA left behind: {}", left.join(", "));
    }
    println!("    reinstalled, then uninstall /DELETEDATA: the user's data gone too");

    webview2_bootstrapper(wine, &installed, setup, target)?;
    println!(
        "    the installer's walk under Wine: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Whether `exe` names `WebView2Loader.dll` (a MinGW build imports it).
fn loads_webview2_loader(exe: &Path) -> bool {
    std::fs::read(exe).is_ok_and(|bytes| contains(&bytes, WEBVIEW2_LOADER.as_bytes()))
}

const BOOTSTRAPPER_LOG: &str = "webview2-bootstrapper-ran.txt";

/// The WebView2 runtime, as Tauri recommends: the evergreen bootstrapper runs silently when
/// the runtime is missing, and not when it is there. Microsoft's bootstrapper cannot be
/// fetched here, so a stand-in that writes down how it was called is built into a small
/// installer of its own (`-DWEBVIEW2_BOOTSTRAPPER`, as a release that embeds it would be).
fn webview2_bootstrapper(
    wine: &Wine<'_>,
    installed: &Installed,
    setup: &Path,
    target: &str,
) -> Result<()> {
    let out_dir = setup
        .parent()
        .context("the installer's folder")?
        .join("webview2-test");
    let stage = out_dir.join("stage");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&stage)?;
    let stand_in = out_dir.join("MicrosoftEdgeWebview2Setup.exe");
    let status = Command::new("rustc")
        .args(["--target", target, "-O", "--edition", "2024"])
        .arg(root().join("xtask/wine/webview2_bootstrapper.rs"))
        .arg("-o")
        .arg(&stand_in)
        .status()
        .context("rustc builds the stand-in bootstrapper")?;
    if !status.success() {
        bail!("could not build {}", stand_in.display());
    }
    // The program in this installer is the stand-in too: only the bootstrapper is looked at.
    std::fs::copy(&stand_in, stage.join("domain-desk.exe"))?;
    let test_setup = out_dir.join("webview2-test-setup.exe");
    step_ok(
        Command::new("makensis")
            .arg("-V2")
            .arg(format!("-DVERSION={}", crate_version()?))
            .arg(format!("-DSOURCE={}", stage.display()))
            .arg(format!("-DOUTFILE={}", test_setup.display()))
            .arg(format!("-DWEBVIEW2_BOOTSTRAPPER={}", stand_in.display()))
            .arg("-DCOMPRESSOR=zlib")
            .arg(root().join("xtask/windows/installer.nsi")),
        "makensis (the bootstrapper's installer)",
    )?;
    let log = installed.local_app_data.join(BOOTSTRAPPER_LOG);
    let _ = std::fs::remove_file(&log);

    run_ok(
        wine.command(&test_setup).arg("/S"),
        "the installer with a bootstrapper, no runtime",
    )?;
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    if calls.trim() != "/silent /install" {
        bail!(
            "with no WebView2 runtime the installer should run its bootstrapper once with /silent /install; it was called: {calls:?}"
        );
    }
    // A runtime present for this user (the key the bootstrapper writes): no second call.
    wine.reg(&[
        "add",
        WEBVIEW2_USER_KEY,
        "/v",
        "pv",
        "/t",
        "REG_SZ",
        "/d",
        "131.0.2903.86",
        "/f",
    ])
    .context("reg add the WebView2 runtime's version")?;
    // Every process of the first run (its bootstrapper among them) gone before the second
    // copies over the same files: in a cold CI run beside the fuzz runs, the second once
    // ended with exit status 1 at once.
    crate::wine::wait_for_wineserver(wine.wine, &wine.prefix);
    run_ok(
        wine.command(&test_setup).arg("/S"),
        "the installer with a bootstrapper, runtime present",
    )?;
    let calls_after = std::fs::read_to_string(&log).unwrap_or_default();
    if calls_after != calls {
        bail!("with WebView2 installed the installer ran the bootstrapper again: {calls_after:?}");
    }
    uninstall(wine, &installed.dir, &["/DELETEDATA"])?;
    installed.forget(wine)?;
    println!(
        "    WebView2: missing → the bootstrapper ran once (/silent /install); present (pv 131.0.2903.86) → not run"
    );
    Ok(())
}

/// Runs the uninstaller silently. NSIS's uninstaller copies itself away and returns at once,
/// so the folder is watched until it is gone.
fn uninstall(wine: &Wine<'_>, install_dir: &Path, extra: &[&str]) -> Result<()> {
    run_ok(
        wine.command(install_dir.join("uninstall.exe"))
            .arg("/S")
            .args(extra),
        "the uninstaller (/S)",
    )?;
    let deadline = Instant::now() + Duration::from_secs(60);
    while install_dir.join("uninstall.exe").exists() || install_dir.join("domain-desk.exe").exists()
    {
        if Instant::now() > deadline {
            bail!("the uninstaller did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // Wine's copy of the uninstaller may still be ending; let the prefix settle.
    crate::wine::wait_for_wineserver(wine.wine, &wine.prefix);
    Ok(())
}

fn run_ok(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("could not start {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

fn step_ok(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("could not start {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_marker_is_rewritten_in_place() {
        let mut bytes = b"xx__TAURI_BUNDLE_TYPE_VAR_UNKyy__TAURI_BUNDLE_TYPE_VAR_UNK".to_vec();
        let len = bytes.len();
        assert_eq!(mark_bundle(&mut bytes), 2);
        assert_eq!(bytes.len(), len);
        assert_eq!(
            bytes,
            b"xx__TAURI_BUNDLE_TYPE_VAR_NSSyy__TAURI_BUNDLE_TYPE_VAR_NSS".to_vec()
        );
        assert_eq!(mark_bundle(&mut b"nothing".to_vec()), 0);
    }
}
