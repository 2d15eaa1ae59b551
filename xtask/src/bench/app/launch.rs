//! One timed launch of the app: from the launch request to the first contentful paint and to
//! the Domains view painted with its rows, where the time went, and the memory at paint.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::json;

use super::procfs::{
    app_memory, comm_of, load_now, mb, newest_start, processes_below, uptime_seconds,
};
use super::webdriver::WebDriver;

/// What one timed launch measured.
pub(super) struct Launch {
    /// The 1-minute load average when the launch was measured.
    pub(super) load: String,
    /// Milestones from the launch request, in ms, in the order they are listed.
    pub(super) steps: Vec<(&'static str, f64)>,
    pub(super) first_paint_ms: f64,
    pub(super) domains_painted_ms: f64,
    pub(super) rows: u64,
    pub(super) rss_kib: u64,
    pub(super) pss_kib: u64,
    pub(super) processes: usize,
}

impl Launch {
    pub(super) fn figure(&self) -> String {
        format!(
            "first paint {:.0} ms, Domains painted {:.0} ms ({} rows drawn); memory at paint {:.0} MB RSS / {:.0} MB PSS over {} processes; load {}",
            self.first_paint_ms,
            self.domains_painted_ms,
            self.rows,
            mb(self.rss_kib),
            mb(self.pss_kib),
            self.processes,
            self.load,
        )
    }

    /// "app process +120 ms, page navigation +480 ms, …".
    pub(super) fn breakdown(&self) -> String {
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|(name, ms)| format!("{name} +{ms:.0}"))
            .collect();
        format!(
            "ms from the launch request: {}; load {}",
            steps.join(", "),
            self.load
        )
    }
}

/// The page's own clock, read as soon as the session exists: when the first contentful paint
/// happened, and (waiting for it) when the Domains view first painted with its rows or its
/// empty note, both as Unix milliseconds.
pub(super) const PAINT_SCRIPT: &str = include_str!("paint.js");

pub(super) fn timed_launch(
    driver: &str,
    app: &Path,
    ancestor: u32,
    label: &str,
    domains: usize,
) -> Result<(WebDriver, Launch)> {
    wait_for_exit(ancestor, &comm_of(app))?;
    let launched = unix_millis();
    let boot_clock = uptime_seconds()?;
    let webdriver = WebDriver::launch(driver, app)?;
    let session_ready = unix_millis();
    let seen = webdriver
        .script_with(PAINT_SCRIPT, true, json!([domains]))
        .with_context(|| format!("{label}: the Domains view never painted"))?;
    let painted = seen["painted"].as_f64().context("no paint time")?;
    let first_paint = seen["first_paint"].as_f64().unwrap_or(painted);
    // a process's start, from seconds since boot to Unix milliseconds
    let started = |prefix: &str| {
        newest_start(ancestor, prefix).map(|at| launched + (at - boot_clock) * 1000.0)
    };
    let mark = |name: &str| seen["marks"][format!("dd:{name}")].as_f64();
    let mut steps = vec![
        ("app process started", started(&comm_of(app))),
        ("web process started", started("WebKitWebProces")),
        ("page navigation start", seen["time_origin"].as_f64()),
        ("page response end", seen["response_end"].as_f64()),
        ("modules loaded", mark("modules-loaded")),
        ("DOMContentLoaded", seen["dom_content_loaded"].as_f64()),
        ("first contentful paint", Some(first_paint)),
        ("WebDriver session ready", Some(session_ready)),
        ("settings answered", mark("settings-answered")),
        ("session answered", mark("session-answered")),
        ("projects asked", mark("projects-requested")),
        ("projects answered", mark("projects-answered")),
        ("domains asked", mark("domains-requested")),
        ("first domains in the table", mark("rows-load")),
        ("first rows rendered", mark("rows-rendered")),
        ("all domains answered", mark("domains-answered")),
        ("Domains painted", Some(painted)),
    ]
    .into_iter()
    .filter_map(|(name, at)| at.map(|at| (name, at - launched)))
    .collect::<Vec<_>>();
    steps.sort_by(|a, b| a.1.total_cmp(&b.1));
    let load = load_now();
    // let the page settle (images, the meter's first event) before reading memory
    std::thread::sleep(Duration::from_secs(3));
    let (rss_kib, pss_kib, names) = app_memory(ancestor, &comm_of(app))?;
    let processes = names.len();
    println!("    {label}: {}", seen);
    Ok((
        webdriver,
        Launch {
            load,
            steps,
            first_paint_ms: first_paint - launched,
            domains_painted_ms: painted - launched,
            rows: seen["rows"].as_u64().unwrap_or(0),
            rss_kib,
            pss_kib,
            processes,
        },
    ))
}

pub(super) fn unix_millis() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64() * 1000.0)
}

/// Waits until the last launch's app process has gone. The app runs one instance at a time: a
/// launch while the last one is still on its way out hands its arguments over to it, and
/// opened no window when that one left without answering, so the WebDriver session waited
/// for a window that never came.
fn wait_for_exit(ancestor: u32, app_comm: &str) -> Result<()> {
    let started = std::time::Instant::now();
    while processes_below(ancestor)?
        .iter()
        .any(|(_, comm, _)| comm == app_comm)
    {
        if started.elapsed() > Duration::from_secs(30) {
            anyhow::bail!("the last launch of the app was still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}
