//! The fuzz targets of `fuzz/` (cargo-fuzz, libFuzzer with AddressSanitizer): built once,
//! then each run for a bounded number of inputs, as many at once as there are cores. Inside
//! `cargo xtask test` the runs are a regression check with a fixed seed and input count;
//! `cargo xtask fuzz` explores with a fresh seed for a while.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::steps::{cargo, root, step};

/// Seconds each fuzz target runs at most when exploring.
const FUZZ_SECONDS: u32 = 20;

/// Seconds a regression run may take before it counts as hung: its input count decides, and
/// on a fresh corpus with a slow machine 300,000 inputs of `dns_wire` took 150 s (a cold CI
/// once failed at a 120 s guard). Each input is bounded by `-timeout=10` besides.
const REGRESSION_GUARD_SECONDS: u32 = 900;

/// Inside `cargo xtask test` the fuzz runs are a regression check, so they are reproducible:
/// a fixed libFuzzer seed and a fixed number of inputs (7 to 150 s each here), and the same
/// inputs give the same verdict on every machine. `cargo xtask fuzz` explores with a fresh
/// seed every time.
const REGRESSION_SEED: u32 = 20261121;
const REGRESSION_RUNS: u32 = 300_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuzzMode {
    Regression,
    Explore,
}

/// cargo-fuzz, installed when missing, and every target built (nothing to do when built).
pub fn build() -> Result<()> {
    ensure_cargo_fuzz()?;
    let mut build = fuzz_command(&root().join("fuzz"));
    build.arg("build");
    step("build the fuzz targets", &mut build)
}

pub fn run(mode: FuzzMode) -> Result<()> {
    build()?;
    let fuzz_dir = root().join("fuzz");
    let targets = fuzz_targets(&fuzz_dir)?;
    // Each libFuzzer run is one thread: as many run at once as the machine has cores, each
    // line of their output marked with its target.
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(targets.len());
    let queue = std::sync::Mutex::new(targets.into_iter());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..workers {
            // Beside the main line (inside `cargo xtask test`), each worker is in the same job.
            crate::steps::spawn_alike(scope, || {
                loop {
                    let next = queue
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .next();
                    let Some(target) = next else { break };
                    let result = fuzz_one(&fuzz_dir, &target, mode);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((target, result));
                }
            })
            .context("cannot start a fuzzing thread")?;
        }
        Ok(())
    })?;
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut ran = Vec::new();
    for (target, result) in results {
        ran.push((target, result?));
    }
    // On the terminal also when the runs were beside the main line: the run's figures.
    println!("\n==> fuzzing: inputs run per target");
    for (target, inputs) in &ran {
        println!("  {target:<24} {inputs:>10}");
    }
    if mode == FuzzMode::Regression {
        check_inputs_run(&ran, u64::from(REGRESSION_RUNS))?;
    }
    Ok(())
}

/// One bounded run of `target`: the number of inputs libFuzzer ran.
fn fuzz_one(fuzz_dir: &Path, target: &str, mode: FuzzMode) -> Result<u64> {
    let corpus = fuzz_dir.join("corpus").join(target);
    std::fs::create_dir_all(&corpus)?;
    let mut cmd = fuzz_command(fuzz_dir);
    cmd.args(["run", target]).arg(&corpus);
    let seeds = fuzz_dir.join("seeds").join(target);
    if seeds.is_dir() {
        // A second corpus folder is only read: libFuzzer writes new finds to the first.
        cmd.arg(&seeds);
    }
    cmd.arg("--").arg("-rss_limit_mb=2048").arg("-timeout=10");
    match mode {
        // the run count decides; the time is only a guard against a hang
        FuzzMode::Regression => cmd
            .arg(format!("-seed={REGRESSION_SEED}"))
            .arg(format!("-runs={REGRESSION_RUNS}"))
            .arg(format!("-max_total_time={REGRESSION_GUARD_SECONDS}")),
        FuzzMode::Explore => cmd.arg(format!("-max_total_time={FUZZ_SECONDS}")),
    };
    let output = step_reading_stderr(&format!("fuzz `{target}` ({mode:?})"), target, &mut cmd)?;
    let inputs = inputs_run(&output).with_context(|| {
        format!("fuzz `{target}`: libFuzzer did not say how many inputs it ran")
    })?;
    crate::steps::note(&format!("fuzz `{target}`: {inputs} inputs"));
    Ok(inputs)
}

/// Like [`step`], with the command's standard error shown as it comes (each line after
/// `[label]`, as runs side by side mix their lines) and also returned.
fn step_reading_stderr(title: &str, label: &str, cmd: &mut Command) -> Result<String> {
    crate::steps::timed(title, || read_stderr(title, label, cmd))
}

fn read_stderr(title: &str, label: &str, cmd: &mut Command) -> Result<String> {
    let mut child = crate::steps::spawn_in_job(cmd.stderr(Stdio::piped()))
        .with_context(|| format!("could not start: {title}"))?;
    let mut text = String::new();
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            let line = line?;
            crate::steps::note_error(&format!("[{label}] {line}"));
            text.push_str(&line);
            text.push('\n');
        }
    }
    let status = crate::steps::wait_in_job(child)?;
    if !status.success() {
        bail!("{title} failed ({status})");
    }
    Ok(text)
}

/// The number of inputs libFuzzer reports at the end of a run: `Done 300000 runs in 18 second(s)`.
fn inputs_run(stderr: &str) -> Option<u64> {
    stderr.lines().rev().find_map(|line| {
        line.trim()
            .strip_prefix("Done ")?
            .split_once(" runs in ")?
            .0
            .parse()
            .ok()
    })
}

/// Every target ran at least `asked` inputs.
fn check_inputs_run(ran: &[(String, u64)], asked: u64) -> Result<()> {
    let short: Vec<String> = ran
        .iter()
        .filter(|(_, inputs)| *inputs < asked)
        .map(|(target, inputs)| format!("`{target}` ran {inputs}"))
        .collect();
    if !short.is_empty() {
        bail!(
            "fuzzing ran fewer inputs than the {asked} asked (the time guard stopped it): {}",
            short.join(", ")
        );
    }
    Ok(())
}

/// The `[[bin]]` names of the fuzz crate, so a new target is fuzzed without editing this.
fn fuzz_targets(fuzz_dir: &Path) -> Result<Vec<String>> {
    let manifest = std::fs::read_to_string(fuzz_dir.join("Cargo.toml"))?;
    let mut targets = Vec::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
            continue;
        }
        let name = line
            .strip_prefix("name")
            .and_then(|rest| rest.trim().strip_prefix('='));
        if let (true, Some(name)) = (in_bin, name) {
            targets.push(name.trim().trim_matches('"').to_owned());
        }
    }
    if targets.is_empty() {
        bail!("no [[bin]] targets in fuzz/Cargo.toml");
    }
    Ok(targets)
}

/// cargo-fuzz needs unstable `-Z` flags: `RUSTC_BOOTSTRAP=1` allows them on the stable
/// toolchain, so CI needs no nightly.
fn fuzz_command(fuzz_dir: &Path) -> Command {
    let mut cmd = cargo();
    // Its own workspace, built with a sanitizer: not linted as the workspace's build is.
    crate::lint_build::clear(&mut cmd);
    cmd.current_dir(fuzz_dir)
        .arg("fuzz")
        .env("RUSTC_BOOTSTRAP", "1");
    cmd
}

fn ensure_cargo_fuzz() -> Result<()> {
    let present = cargo()
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if present {
        return Ok(());
    }
    step(
        "install cargo-fuzz",
        crate::steps::cargo_install().args(["cargo-fuzz", "--locked"]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inputs_run_are_read_from_libfuzzers_last_words() {
        let stderr = "INFO: Seed: 20261121\n#2\tINITED cov: 10 ft: 10 corp: 1/1b\n\
            #300000\tDONE   cov: 412 ft: 1290 corp: 180/9Kb lim: 4096 exec/s: 15000 rss: 80Mb\n\
            Done 300000 runs in 20 second(s)\n";
        assert_eq!(inputs_run(stderr), Some(300_000));
        assert_eq!(inputs_run("==1== ERROR: libFuzzer: deadly signal\n"), None);
    }

    #[test]
    fn a_target_stopped_by_the_time_guard_fails_the_check() {
        let full = [
            ("dns_message".to_owned(), 300_000),
            ("hostname".to_owned(), 300_000),
        ];
        assert!(check_inputs_run(&full, 300_000).is_ok());
        let short = [
            ("dns_message".to_owned(), 300_000),
            ("hostname".to_owned(), 120_431),
        ];
        let err = check_inputs_run(&short, 300_000).unwrap_err().to_string();
        assert!(err.contains("`hostname` ran 120431"), "{err}");
    }
}
