//! The benchmarks' one table and the machine it was measured on, as `report.md` and the
//! console show them.

use std::fmt::Write as _;
use std::process::Command;

use super::processes::output_of;

#[derive(Default)]
pub(super) struct Table {
    rows: Vec<Row>,
}

pub(super) struct Row {
    part: &'static str,
    subject: String,
    figure: String,
    ratio: String,
}

impl Table {
    pub(super) fn add(&mut self, part: &'static str, subject: &str, figure: String, ratio: String) {
        self.rows.push(Row {
            part,
            subject: subject.to_owned(),
            figure,
            ratio,
        });
    }

    pub(super) fn report(&self, machine: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "| benchmark | subject | figures | ratio |");
        let _ = writeln!(out, "|---|---|---|---|");
        for row in &self.rows {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                row.part, row.subject, row.figure, row.ratio
            );
        }
        let _ = writeln!(out, "\nMachine: {machine}");
        out
    }
}

/// nproc, CPU model, memory, OS and toolchain: what the figures depend on.
pub(super) fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map_or("unknown CPU", |(_, name)| name.trim())
        .to_owned();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory_gib = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    let os = std::fs::read_to_string("/etc/os-release")
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix("PRETTY_NAME="))
        .map_or(std::env::consts::OS.to_owned(), |name| {
            name.trim_matches('"').to_owned()
        });
    let kernel = output_of(Command::new("uname").arg("-r")).unwrap_or_default();
    // other work on the machine skews every figure: say how busy it was
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into());
    let rustc = output_of(Command::new("rustc").arg("-V")).unwrap_or_default();
    format!(
        "nproc {cpus}, {model}, {memory_gib:.1} GiB RAM, {os} (Linux {}), {}; load average {load} at the end",
        kernel.trim(),
        rustc.trim()
    )
}

/// "met" or "MISSED" against a goal, for the ratio column.
pub(super) fn goal(met: bool, text: &str) -> String {
    format!("{} (goal {text})", if met { "met" } else { "MISSED" })
}
