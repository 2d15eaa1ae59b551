//! `cargo xtask bench [service|queue|doctor|app|all]`: the performance figures, printed as one
//! table and saved with the machine they ran on.
//!
//! Every figure is a ratio taken from one run on one machine, so the peers run right beside
//! ours under the same conditions: the local service against Prism, json-server and WireMock
//! serving the same routes (all driven by wrk on loopback), the client's queue against the
//! window-aligned optimum and a naive client, the doctor against `dig -f`, `adnshost` and the
//! server's `dnsperf` ceiling. The tools are installed here, at pinned versions
//! (apt for wrk and dig, npm into `target/bench-tools/` for the peers), so a fresh machine
//! needs nothing but `cargo xtask bench`. Benchmarks are not part of `cargo xtask test`.
//!
//! One file per benchmark (`service`, `queue`, `doctor`, `app`); this one runs them. What
//! they share is beside them and imports none of them: `report.rs` the table, `tools.rs` the
//! peers and tools installed, `processes.rs` processes started and the API called.

use anyhow::{Result, bail};

use crate::steps::root;

mod app;
mod dns;
mod doctor;
mod kernel;
mod processes;
mod queue;
mod report;
mod service;
mod tools;

use app::app;
use doctor::doctor;
use kernel::KernelSettings;
use queue::queue;
use report::{Table, machine};
use service::service;

const USAGE: &str = "usage: cargo xtask bench [service|queue|doctor|app|all]

environment:
  BENCH_SECONDS      length of each measured wrk run (default 10)
  BENCH_CONNECTIONS  open connections wrk keeps (default 32)
  BENCH_DOCTOR_HOSTS hostnames the doctor diagnoses in one batch (default 1000)
  BENCH_DOCTOR_BINARY run this doctor_bench build instead of building the release one
  BENCH_DOCTOR_TIMEOUT seconds the doctor benchmark may take before it is stopped (default 1200)
  BENCH_APP_BINARY   measure this domain-desk binary instead of building the release one
  BENCH_APP_ENV      NAME=value,… set for the app in the app benchmark (through its drivers)
  BENCH_APP_LAUNCHES launches into the 5,000-domain project (default 5; the median is the figure)
  BENCH_BARE_AXUM    use this bare_axum build (the service's ceiling) instead of building it
  BENCH_DNS_NAMES    names in the DNS server benchmark (default 1000, 7 questions each)";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Service,
    Queue,
    Doctor,
    App,
}

pub fn run(args: &[String]) -> Result<()> {
    let parts = match args.first().map(String::as_str) {
        None | Some("all") => vec![Part::Service, Part::Queue, Part::Doctor, Part::App],
        Some("service") => vec![Part::Service],
        Some("queue") => vec![Part::Queue],
        Some("doctor") => vec![Part::Doctor],
        Some("app") => vec![Part::App],
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return Ok(());
        }
        Some(other) => bail!("unknown benchmark `{other}`\n\n{USAGE}"),
    };
    let work = root().join("target/bench");
    std::fs::create_dir_all(&work)?;
    let mut table = Table::default();
    let mut failures = Vec::new();
    for part in parts {
        // Whatever a part changes in the kernel's settings is put back after it, even when it
        // failed or its benchmark was killed.
        let _settings = KernelSettings::save(&work);
        let outcome = match part {
            Part::Service => service(&work, &mut table),
            Part::Queue => queue(&mut table),
            Part::Doctor => doctor(&mut table),
            Part::App => app(&work, &mut table),
        };
        if let Err(err) = outcome {
            eprintln!("xtask bench: {part:?} failed: {err:#}");
            failures.push(format!("{part:?}: {err:#}"));
        }
    }
    let report = table.report(&machine());
    let saved = work.join("report.md");
    std::fs::write(&saved, &report)?;
    println!("\n{report}");
    println!("(saved to {})", saved.display());
    if !failures.is_empty() {
        bail!("some benchmarks failed:\n  {}", failures.join("\n  "));
    }
    Ok(())
}
