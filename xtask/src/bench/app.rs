//! The desktop app: launch time to first paint and memory, with an empty project and one with
//! 5,000 domains, driven through WebDriver; where the launch's time goes (the processes' start
//! times from `/proc`, the page's Navigation and Paint Timing and the UI's `dd:` User Timing
//! marks, `ui/lib/perf.js`); and frame times from the page's own `requestAnimationFrame`
//! timestamps while the 5,000-row table scrolls and while a filter is typed.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};

use super::processes::{
    Server, add_domains, expect, free_port, project_with_deploy, serve_in_memory,
};
use super::report::{Table, goal};
use super::tools::{build_release_app, ensure_apt};

/// Domains in the big project the window opens.
const APP_DOMAINS: usize = 5000;

/// The processes that make up the running app: the app itself (`app_comm`, see [`comm_of`])
/// and the WebKit processes it starts (not the WebDriver that drives it).
fn is_app_process(comm: &str, app_comm: &str) -> bool {
    comm == app_comm || (comm.starts_with("WebKit") && !comm.starts_with("WebKitWebDriver"))
}

/// The command name Linux gives a process started from `binary`: its file name, cut to 15
/// bytes. `BENCH_APP_BINARY` may name a copy called anything, so the app is found by this
/// name and not by "domain-desk".
fn comm_of(binary: &Path) -> String {
    let name = binary
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.bytes().take(15).map(char::from).collect()
}

/// Every process below `ancestor` (not itself): pid, command name and start time in clock
/// ticks since boot (`/proc/<pid>/stat`, field 22).
fn processes_below(ancestor: u32) -> Result<Vec<(u32, String, u64)>> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // the command name is in parentheses and may hold spaces; the parent follows the state
        let Some((_, after)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        let ppid = fields.get(1).and_then(|p| p.parse::<u32>().ok());
        // field 22 of the line, the 20th after the command name
        let start = fields
            .get(19)
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0);
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if let Some(ppid) = ppid {
            parents.push((pid, ppid, comm.trim().to_owned(), start));
        }
    }
    let mut below = vec![ancestor];
    let mut changed = true;
    while changed {
        changed = false;
        for (pid, ppid, _, _) in &parents {
            if below.contains(ppid) && !below.contains(pid) {
                below.push(*pid);
                changed = true;
            }
        }
    }
    Ok(parents
        .into_iter()
        .filter(|(pid, ..)| *pid != ancestor && below.contains(pid))
        .map(|(pid, _, comm, start)| (pid, comm, start))
        .collect())
}

/// Seconds since boot, the clock of the processes' start times (`/proc/uptime`, 10 ms steps).
fn uptime_seconds() -> Result<f64> {
    let text = std::fs::read_to_string("/proc/uptime")?;
    text.split_whitespace()
        .next()
        .and_then(|s| s.parse().ok())
        .context("unreadable /proc/uptime")
}

/// Clock ticks per second of `/proc/<pid>/stat`'s start times.
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8_lossy(&out.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// When the newest process below `ancestor` whose name starts with `prefix` started, in
/// seconds since boot.
fn newest_start(ancestor: u32, prefix: &str) -> Option<f64> {
    let ticks = clock_ticks();
    processes_below(ancestor)
        .ok()?
        .into_iter()
        .filter(|(_, comm, _)| comm.starts_with(prefix))
        .map(|(_, _, start)| start as f64 / ticks)
        .max_by(f64::total_cmp)
}

/// The 1-minute load average now.
fn load_now() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// KiB as MB (10^6 bytes), the one unit the memory figures are printed in.
fn mb(kib: u64) -> f64 {
    kib as f64 * 1024.0 / 1e6
}

/// RSS and PSS in KiB, summed over every process of the app below `ancestor` (the app's own
/// and all of WebKit's: web, network and GPU processes), and their names.
fn app_memory(ancestor: u32, app_comm: &str) -> Result<(u64, u64, Vec<String>)> {
    let (mut rss, mut pss, mut names) = (0, 0, Vec::new());
    let mut app_seen = false;
    for (pid, comm, _) in processes_below(ancestor)? {
        if !is_app_process(&comm, app_comm) {
            continue;
        }
        app_seen |= comm == app_comm;
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
            .with_context(|| format!("reading the memory of {comm} ({pid})"))?;
        let field = |name: &str| {
            rollup
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .unwrap_or(0)
        };
        println!(
            "      {comm} ({pid}): RSS {:.0} MB, PSS {:.0} MB",
            mb(field("Rss:")),
            mb(field("Pss:"))
        );
        rss += field("Rss:");
        pss += field("Pss:");
        names.push(comm);
    }
    if !app_seen {
        bail!("the app's own process ({app_comm}) was not found below the driver");
    }
    names.sort();
    Ok((rss, pss, names))
}

/// A WebDriver session with the app, spoken over plain HTTP with curl.
struct WebDriver {
    base: String,
    session: String,
}

impl WebDriver {
    fn launch(driver: &str, app: &Path) -> Result<Self> {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": app},
        }}});
        let answer = expect("POST", &format!("{driver}/session"), None, Some(&caps), 200)?;
        let session = answer["value"]["sessionId"]
            .as_str()
            .context("WebDriver answered without a session id")?
            .to_owned();
        let webdriver = Self {
            base: format!("{driver}/session/{session}"),
            session,
        };
        expect(
            "POST",
            &format!("{}/timeouts", webdriver.base),
            None,
            Some(&json!({"script": 120_000})),
            200,
        )?;
        Ok(webdriver)
    }

    fn script(&self, script: &str, asynchronous: bool) -> Result<Value> {
        self.script_with(script, asynchronous, json!([]))
    }

    fn script_with(&self, script: &str, asynchronous: bool, args: Value) -> Result<Value> {
        let kind = if asynchronous { "async" } else { "sync" };
        let answer = expect(
            "POST",
            &format!("{}/execute/{kind}", self.base),
            None,
            Some(&json!({"script": script, "args": args})),
            200,
        )?;
        Ok(answer["value"].clone())
    }

    /// Polls `condition` (a JS expression) until it holds.
    fn wait_for(&self, condition: &str, what: &str) -> Result<()> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(120) {
            if self.script(&format!("return Boolean({condition});"), false)? == Value::Bool(true) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bail!("the window did not show {what} within 120 s")
    }

    fn close(self) -> Result<()> {
        expect("DELETE", &self.base, None, None, 200)
            .map(|_| ())
            .with_context(|| format!("closing WebDriver session {}", self.session))
    }
}

/// What one timed launch measured.
struct Launch {
    /// The 1-minute load average when the launch was measured.
    load: String,
    /// Milestones from the launch request, in ms, in the order they are listed.
    steps: Vec<(&'static str, f64)>,
    first_paint_ms: f64,
    domains_painted_ms: f64,
    rows: u64,
    rss_kib: u64,
    pss_kib: u64,
    processes: usize,
}

impl Launch {
    fn figure(&self) -> String {
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
    fn breakdown(&self) -> String {
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
const PAINT_SCRIPT: &str = r#"
const want = arguments[0];
const done = arguments[arguments.length - 1];
const fcp = () => {
  const entries = performance.getEntriesByType('paint');
  const entry = entries.find((e) => e.name === 'first-contentful-paint') || entries[0];
  return entry ? performance.timeOrigin + entry.startTime : null;
};
const shown = () => {
  const rows = document.querySelectorAll('#domains-grid .vt-row[data-index]').length;
  const empty = document.getElementById('domains-empty');
  const total = (document.getElementById('domain-count') || {}).textContent || '';
  if (want === 0) {
    return empty && !empty.hidden && empty.textContent.startsWith('No custom domains') ? { rows, total } : null;
  }
  return rows > 0 && total.startsWith(`${want} domain`) ? { rows, total } : null;
};
const check = () => {
  const view = shown();
  if (!view) return setTimeout(check, 5);
  requestAnimationFrame(() => setTimeout(() => {
    const origin = performance.timeOrigin;
    const at = (t) => (t > 0 ? origin + t : null);
    const nav = performance.getEntriesByType('navigation')[0] || {};
    const marks = {};
    for (const m of performance.getEntriesByType('mark')) {
      if (m.name.startsWith('dd:') && !(m.name in marks)) marks[m.name] = origin + m.startTime;
    }
    done({
      painted: Date.now(), first_paint: fcp(), rows: view.rows, total: view.total,
      time_origin: origin, response_end: at(nav.responseEnd),
      dom_content_loaded: at(nav.domContentLoadedEventEnd), load_end: at(nav.loadEventEnd), marks,
    });
  }, 0));
};
check();
"#;

fn timed_launch(
    driver: &str,
    app: &Path,
    ancestor: u32,
    label: &str,
    domains: usize,
) -> Result<(WebDriver, Launch)> {
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

/// Frame times from the page's `requestAnimationFrame` timestamps, in ms.
#[derive(Debug, PartialEq)]
struct Frames {
    frames: usize,
    p50: f64,
    p99: f64,
    max: f64,
    /// Share of frames longer than one 60 Hz frame (16.7 ms) and than two (33.3 ms, at least
    /// one frame dropped).
    over_one: f64,
    over_two: f64,
    /// Every timestamp was a whole millisecond (WebKit's here): a frame on time at 60 Hz then
    /// reads 16 or 17 ms, and 17 says only that it took under 18.
    whole_ms: bool,
}

/// 60 Hz.
const FRAME_MS: f64 = 1000.0 / 60.0;

impl Frames {
    /// From consecutive timestamps; the nearest-rank percentiles of the gaps between them.
    fn from_timestamps(timestamps: &[f64]) -> Option<Self> {
        Self::from_recordings(std::slice::from_ref(&timestamps.to_vec()))
    }

    /// From several recordings of consecutive timestamps: the gaps within each (never the
    /// pause between two recordings), pooled.
    fn from_recordings(recordings: &[Vec<f64>]) -> Option<Self> {
        let mut gaps: Vec<f64> = recordings
            .iter()
            .flat_map(|timestamps| timestamps.windows(2).map(|w| w[1] - w[0]))
            .collect();
        if gaps.is_empty() {
            return None;
        }
        gaps.sort_by(f64::total_cmp);
        let rank =
            |p: f64| gaps[((p * gaps.len() as f64).ceil() as usize).clamp(1, gaps.len()) - 1];
        let share = |limit: f64| {
            // a timestamp's resolution and the display's jitter put an on-time frame at
            // 16.6–16.8 ms; a tenth of a millisecond over is still on time
            gaps.iter().filter(|&&g| g > limit + 0.1).count() as f64 / gaps.len() as f64
        };
        Some(Self {
            frames: gaps.len(),
            p50: rank(0.50),
            p99: rank(0.99),
            max: gaps[gaps.len() - 1],
            over_one: share(FRAME_MS),
            over_two: share(2.0 * FRAME_MS),
            whole_ms: recordings.iter().flatten().all(|t| t.fract() == 0.0),
        })
    }

    /// The 60 fps goal on the 99th percentile. With whole-millisecond timestamps a p99 that
    /// reads 17 ms is on time only as far as the timestamps can tell, and says so.
    fn goal(&self) -> String {
        let text = "p99 ≤ 16.7 ms, 60 fps";
        if self.p99 <= FRAME_MS + 0.1 {
            goal(true, text)
        } else if self.whole_ms && self.p99 <= FRAME_MS.ceil() {
            format!(
                "met only at the timestamps' 1 ms resolution (goal {text}; p99 reads 17 ms, which a 16.7 ms frame also reads)"
            )
        } else {
            goal(false, text)
        }
    }

    fn figure(&self) -> String {
        format!(
            "{} frames: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; {:.1} % over 16.7 ms, {:.1} % over 33.3 ms",
            self.frames,
            self.p50,
            self.p99,
            self.max,
            self.over_one * 100.0,
            self.over_two * 100.0
        )
    }
}

fn timestamps(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// Frames with nothing to do: the floor of this display and machine.
const IDLE_SCRIPT: &str = r#"
const frames = arguments[0];
const done = arguments[arguments.length - 1];
const times = [];
const started = performance.now();
const finish = () => done({
  times, visibility: document.visibilityState, focus: document.hasFocus(),
  elapsed: performance.now() - started,
});
const tick = (t) => {
  times.push(t);
  if (times.length > frames || performance.now() - started > 10000) return finish();
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"#;

/// Scrolls the table's viewport by `step` px in every frame for `frames` frames (each frame
/// brings new rows into view), then back to the top.
const SCROLL_SCRIPT: &str = r#"
const [frames, step] = arguments;
const done = arguments[arguments.length - 1];
const viewport = document.getElementById('domains-viewport');
// the table's own work per frame: its paint(), timed from outside (removed at the end)
const table = document.getElementById('domains-table');
const paint = table.paint;
const script = [];
table.paint = function timed(force) {
  const t0 = performance.now();
  const result = paint.call(this, force);
  script.push(performance.now() - t0);
  return result;
};
const times = [];
const started = performance.now();
const tick = (t) => {
  times.push(t);
  if (times.length > frames || performance.now() - started > 30000) {
    const end = viewport.scrollTop;
    const first = document.querySelector('#domains-grid .vt-row[data-index]');
    delete table.paint;
    viewport.scrollTop = 0;
    return done({ times, script, end, first_row: first ? Number(first.dataset.index) : null });
  }
  viewport.scrollTop += step;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"#;

/// Starts recording frames, and for each keystroke in the box with id `arguments[0]` the time
/// from the input event to the next frame's callback (the handler's work plus the wait for
/// the frame).
const RECORD_START_SCRIPT: &str = r#"
const rec = { frames: [], keys: [], shown: [], at: [], on: true };
window.__ddRecording = rec;
const tick = (t) => { if (!rec.on) return; rec.frames.push(t); requestAnimationFrame(tick); };
requestAnimationFrame(tick);
const box = document.getElementById(arguments[0]);
const table = document.getElementById('domains-table');
rec.stop = () => box.removeEventListener('input', listener);
const listener = (e) => {
  if (!rec.on) return;
  const at = e.timeStamp;
  rec.at.push(at);
  const value = box.value;
  requestAnimationFrame(() => rec.keys.push(performance.now() - at));
  if (box.id !== 'domain-filter') return;
  // the animation frame in which the table holds this key's query (a later key supersedes it)
  const check = () => {
    if (box.value !== value) return;
    if (table.filteredBy === value) rec.shown.push(performance.now() - at);
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
};
box.addEventListener('input', listener);
return true;
"#;

const RECORD_STOP_SCRIPT: &str = r#"
const done = arguments[arguments.length - 1];
const rec = window.__ddRecording;
requestAnimationFrame(() => requestAnimationFrame(() => {
  rec.on = false;
  rec.stop();
  done({ at: rec.at, frames: rec.frames, keys: rec.keys, shown: rec.shown, count: document.getElementById('domain-count')?.textContent ?? null });
}));
"#;

/// The floor for typing: a plain text box beside the filter, with no listener of the page's
/// own, so typing into it costs only WebDriver's keystroke and WebKit drawing the box.
const FLOOR_BOX_SCRIPT: &str = r#"
const box = document.createElement('input');
box.id = 'bench-floor-box';
box.type = 'search';
box.autocomplete = 'off';
document.getElementById('domain-filter').after(box);
return true;
"#;

const FLOOR_BOX_REMOVE_SCRIPT: &str = r#"
document.getElementById('bench-floor-box')?.remove();
return true;
"#;

/// What typing into the filter measured.
struct Typing {
    frames: Frames,
    keys: usize,
    key_median_ms: f64,
    key_max_ms: f64,
    /// From each key to the animation frame in which the table holds its query: (keys,
    /// median, max in ms); none for a box the table does not follow.
    shown: Option<(usize, f64, f64)>,
    /// Frames late for 60 Hz, and how many of them a key's input event arrived in.
    late: (usize, usize),
}

/// Frame times while scrolling through the 5,000 rows, while typing into a plain box (the
/// floor) and while typing a filter, key by key, and deleting it again; an idle run first for
/// the floor of the frames themselves.
fn frame_times(webdriver: &WebDriver, display: &crate::session::Display) -> Result<FrameTimes> {
    let idle = webdriver.script_with(IDLE_SCRIPT, true, json!([SCROLL_FRAMES / 2]))?;
    println!(
        "    idle: {} frames in {:.0} ms; page {}, focus {}",
        timestamps(&idle["times"]).len(),
        idle["elapsed"].as_f64().unwrap_or(0.0),
        idle["visibility"],
        idle["focus"]
    );
    let idle = Frames::from_timestamps(&timestamps(&idle["times"])).context("no idle frames")?;
    let scrolled =
        webdriver.script_with(SCROLL_SCRIPT, true, json!([SCROLL_FRAMES, SCROLL_STEP]))?;
    println!(
        "    scrolled to {} px, first row drawn {}",
        scrolled["end"], scrolled["first_row"]
    );
    let scroll = Frames::from_timestamps(&timestamps(&scrolled["times"]))
        .context("no frames while scrolling")?;
    let mut script = timestamps(&scrolled["script"]);
    script.sort_by(f64::total_cmp);
    let paint_ms = (
        script.len(),
        script.get(script.len() / 2).copied().unwrap_or(0.0),
        script.last().copied().unwrap_or(0.0),
    );

    // The floor and the filter take turns, a round each, so that whatever the machine does
    // meanwhile falls on both alike; the box stays beside the filter throughout.
    // The X keyboard needs the app's window on an X display (under Wayland alone there is
    // none): without it those rows say why they were not measured.
    let x_window = app_window(display).map_err(|error| format!("{error:#}"));
    if let Err(why) = &x_window {
        println!("    typing through the X server's keyboard not measured: {why}");
    }
    webdriver.script(FLOOR_BOX_SCRIPT, false)?;
    let mut floor = Vec::with_capacity(TYPING_ROUNDS);
    let mut filter = Vec::with_capacity(TYPING_ROUNDS);
    let mut x_floor = Vec::with_capacity(TYPING_ROUNDS);
    let mut x_filter = Vec::with_capacity(TYPING_ROUNDS);
    for _ in 0..TYPING_ROUNDS {
        floor.push(type_into(webdriver, "bench-floor-box")?);
        filter.push(type_into(webdriver, "domain-filter")?);
        if let Ok(window) = &x_window {
            x_floor.push(type_through_x(
                webdriver,
                display,
                window,
                "bench-floor-box",
            )?);
            x_filter.push(type_through_x(webdriver, display, window, "domain-filter")?);
        }
    }
    webdriver.script(FLOOR_BOX_REMOVE_SCRIPT, false)?;
    let floor = Typing::from_rounds(&floor).context("no frames while typing into the box")?;
    let typing = Typing::from_rounds(&filter).context("no frames while typing the filter")?;
    println!(
        "    {TYPING_ROUNDS} rounds each, taking turns: {} frames in the box, {} in the filter",
        floor.frames.frames, typing.frames.frames
    );
    let through_x = match x_window {
        Ok(window) => {
            let floor = Typing::from_rounds(&x_floor)
                .context("no frames while typing into the box through X")?;
            let filter = Typing::from_rounds(&x_filter)
                .context("no frames while typing the filter through X")?;
            // Last, as it replaces the app's page: the same window with a document holding one
            // text box and nothing else, typed through the X server's keyboard — what typing
            // costs this machine's WebKit with no page around the box at all.
            webdriver.script(BARE_PAGE_SCRIPT, false)?;
            let mut bare = Vec::with_capacity(TYPING_ROUNDS);
            for _ in 0..TYPING_ROUNDS {
                bare.push(type_through_x(
                    webdriver,
                    display,
                    &window,
                    "bench-floor-box",
                )?);
            }
            let bare_page =
                Typing::from_rounds(&bare).context("no frames while typing into the bare page")?;
            Ok(TypedThroughX {
                floor,
                filter,
                bare_page,
            })
        }
        Err(why) => Err(why),
    };
    Ok(FrameTimes {
        idle,
        scroll: Scroll {
            frames: scroll,
            paint_ms,
        },
        webdriver_floor: floor,
        webdriver_filter: typing,
        through_x,
    })
}

/// What [`frame_times`] measured.
struct FrameTimes {
    idle: Frames,
    scroll: Scroll,
    /// Typed through WebDriver: the plain box beside the filter, and the filter.
    webdriver_floor: Typing,
    webdriver_filter: Typing,
    /// Typed through the X server's keyboard, or why not.
    through_x: std::result::Result<TypedThroughX, String>,
}

/// Typed through the X server's keyboard.
struct TypedThroughX {
    /// The plain box beside the filter.
    floor: Typing,
    filter: Typing,
    /// A document with one text box and nothing else, in the same window.
    bare_page: Typing,
}

/// The app's window on the X display, for `xdotool`.
fn app_window(display: &crate::session::Display) -> Result<String> {
    let mut cmd = Command::new("xdotool");
    cmd.args(["search", "--onlyvisible", "--name", "^Domain Desk$"]);
    display.apply(&mut cmd);
    let out = cmd.output().context("could not run xdotool")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .map(str::to_owned)
        .context("the app's window was not found on an X display")
}

/// Replaces the app's page with a document holding one text box and nothing else.
const BARE_PAGE_SCRIPT: &str = r#"
document.open();
document.write('<!doctype html><html><head><meta charset="utf-8"></head><body><input id="bench-floor-box" type="search" autocomplete="off"></body></html>');
document.close();
return true;
"#;

/// One round of typing: the page's frame timestamps, and for each key the time to the next
/// frame and (in the filter) to the frame that draws the filtered table, in ms.
struct Round {
    frames: Vec<f64>,
    keys: Vec<f64>,
    shown: Vec<f64>,
    /// Each key's input event (its timestamp, on the frames' clock).
    inputs: Vec<f64>,
}

/// Frames late for 60 Hz (over 17 ms when the timestamps are whole milliseconds, where an
/// on-time frame reads 16 or 17; else over 16.8 ms), and how many of them had a key's input
/// event arrive within them: `(late, late with a key)`.
fn late_frames_with_input(frames: &[f64], inputs: &[f64], whole_ms: bool) -> (usize, usize) {
    let limit = if whole_ms {
        FRAME_MS.ceil()
    } else {
        FRAME_MS + 0.1
    };
    frames
        .windows(2)
        .filter(|w| w[1] - w[0] > limit)
        .fold((0, 0), |(late, with_key), w| {
            let key = inputs.iter().any(|&at| w[0] < at && at <= w[1]);
            (late + 1, with_key + usize::from(key))
        })
}

impl Typing {
    /// The rounds pooled: frame gaps within each round, key times over all.
    fn from_rounds(rounds: &[Round]) -> Option<Self> {
        let recordings: Vec<Vec<f64>> = rounds.iter().map(|r| r.frames.clone()).collect();
        let mut key_ms: Vec<f64> = rounds.iter().flat_map(|r| r.keys.clone()).collect();
        key_ms.sort_by(f64::total_cmp);
        let mut shown_ms: Vec<f64> = rounds.iter().flat_map(|r| r.shown.clone()).collect();
        shown_ms.sort_by(f64::total_cmp);
        let shown = (!shown_ms.is_empty()).then(|| {
            (
                shown_ms.len(),
                shown_ms[shown_ms.len() / 2],
                shown_ms[shown_ms.len() - 1],
            )
        });
        let frames = Frames::from_recordings(&recordings)?;
        let late = rounds
            .iter()
            .map(|r| late_frames_with_input(&r.frames, &r.inputs, frames.whole_ms))
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        Some(Self {
            shown,
            late,
            frames,
            keys: key_ms.len(),
            key_median_ms: key_ms.get(key_ms.len() / 2).copied().unwrap_or(0.0),
            key_max_ms: key_ms.last().copied().unwrap_or(0.0),
        })
    }
}

/// Types [`FILTER_TEXT`] into the box with id `id` through the X server's keyboard (XTEST,
/// as a user's keyboard arrives) and deletes it again, recording the page's frames
/// throughout. The box is focused by a script before the recording starts, so nothing of
/// WebDriver's runs in the page while the keys arrive.
fn type_through_x(
    webdriver: &WebDriver,
    display: &crate::session::Display,
    window: &str,
    id: &str,
) -> Result<Round> {
    let xdotool = |args: &[&str]| -> Result<()> {
        let mut cmd = Command::new("xdotool");
        cmd.args(args);
        display.apply(&mut cmd);
        let status = cmd.status().context("xdotool")?;
        ensure!(status.success(), "xdotool {args:?} failed: {status}");
        Ok(())
    };
    xdotool(&["windowfocus", "--sync", window])?;
    webdriver.script(
        &format!(
            "const box = document.getElementById({}); box.focus(); box.value = ''; return document.activeElement === box;",
            serde_json::to_string(id)?
        ),
        false,
    )?;
    webdriver.script_with(RECORD_START_SCRIPT, false, json!([id]))?;
    // one xdotool for the whole round, so no process starts between keys; `key` rather than
    // `type`, whose delay is halved between a key's press and release
    let delay = KEY_INTERVAL.as_millis().to_string();
    let typed: Vec<String> = FILTER_TEXT
        .chars()
        .map(|c| match c {
            '-' => "minus".to_owned(),
            c => c.to_string(),
        })
        .chain(std::iter::repeat_n(
            "BackSpace".to_owned(),
            FILTER_TEXT.chars().count(),
        ))
        .collect();
    let mut args = vec!["key", "--delay", &delay];
    args.extend(typed.iter().map(String::as_str));
    xdotool(&args)?;
    std::thread::sleep(KEY_INTERVAL);
    stop_recording(webdriver, id, true)
}

/// Types [`FILTER_TEXT`] into the box with id `id` key by key and deletes it again, recording
/// the page's frames throughout.
fn type_into(webdriver: &WebDriver, id: &str) -> Result<Round> {
    let found = expect(
        "POST",
        &format!("{}/element", webdriver.base),
        None,
        Some(&json!({"using": "css selector", "value": format!("#{id}")})),
        200,
    )?;
    let element = found["value"]
        .as_object()
        .and_then(|o| o.values().next())
        .and_then(Value::as_str)
        .with_context(|| format!("#{id} was not found"))?
        .to_owned();
    webdriver.script_with(RECORD_START_SCRIPT, false, json!([id]))?;
    let backspace = "\u{E003}".to_owned();
    let round = FILTER_TEXT
        .chars()
        .map(String::from)
        .chain(std::iter::repeat_n(backspace, FILTER_TEXT.chars().count()));
    for key in round {
        expect(
            "POST",
            &format!("{}/element/{element}/value", webdriver.base),
            None,
            Some(&json!({"text": key})),
            200,
        )?;
        // a fast typist: about eight keys a second
        std::thread::sleep(KEY_INTERVAL);
    }
    stop_recording(webdriver, id, false)
}

/// Ends a round's recording in the box with id `id`: its frames, keys and inputs, appended
/// raw to the file named by `BENCH_APP_DUMP` if set (as `x:<id>` when typed through X).
fn stop_recording(webdriver: &WebDriver, id: &str, through_x: bool) -> Result<Round> {
    let recorded = webdriver.script(RECORD_STOP_SCRIPT, true)?;
    let how = if through_x { " through X" } else { "" };
    if id == "domain-filter" {
        println!(
            "    typed into #{id}{how} and deleted it: {}",
            recorded["count"]
        );
    }
    if let Ok(dump) = std::env::var("BENCH_APP_DUMP") {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dump)?;
        let label = if through_x {
            format!("x:{id}")
        } else {
            id.to_owned()
        };
        writeln!(f, "{}", json!({"id": label, "rec": recorded}))?;
    }
    Ok(Round {
        frames: timestamps(&recorded["frames"]),
        keys: timestamps(&recorded["keys"]),
        shown: timestamps(&recorded["shown"]),
        inputs: timestamps(&recorded["at"]),
    })
}

/// What scrolling measured: the frames, and the table's paint() calls (count, median and
/// longest script time in ms).
struct Scroll {
    frames: Frames,
    paint_ms: (usize, f64, f64),
}

/// Frames scrolled, and px per frame (five rows of 56 px: new rows in every frame).
const SCROLL_FRAMES: usize = 600;
const SCROLL_STEP: usize = 280;
/// Typed into the filter key by key, then deleted with as many backspaces; every prefix up to
/// "site-" matches all 5,000 rows.
const FILTER_TEXT: &str = "site-42";
/// How many times the filter (and the floor's box) is typed and deleted: eight rounds give
/// about 800 frames each, so the p99 is the eighth slowest frame, not one stray one.
const TYPING_ROUNDS: usize = 8;
/// The pause between keys: a fast typist, about eight keys a second.
const KEY_INTERVAL: Duration = Duration::from_millis(120);

fn unix_millis() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64() * 1000.0)
}

pub(super) fn app(work: &Path, table: &mut Table) -> Result<()> {
    crate::prereqs::ensure(crate::prereqs::Purpose::Test)?;
    ensure_apt(&["curl"])?;
    let binary = build_release_app()?;
    let logs = work.join("logs");
    std::fs::create_dir_all(&logs)?;

    let (service, key) = serve_in_memory(&binary, &[], &logs.join("app-service.log"))?;
    let base = service.base_url();
    let mut project_ids = Vec::new();
    for name in ["bench-empty", "bench-5000"] {
        project_ids.push(project_with_deploy(&base, &key, name)?);
    }
    println!("\n==> adding {APP_DOMAINS} domains to bench-5000");
    add_domains(
        &base,
        &key,
        &project_ids[1],
        APP_DOMAINS,
        &work.join("add-domains.curl"),
    )?;

    // tauri-driver under a display and a private D-Bus session with a keyring
    let display = crate::session::Display::ensure()?;
    let sandbox = crate::session::Sandbox::new()?;
    let tauri_driver =
        crate::session::find_on_path("tauri-driver").context("tauri-driver is not installed")?;
    let driver_port = free_port()?;
    let native_port = free_port()?;
    let mut cmd = sandbox.command(tauri_driver.as_os_str());
    cmd.args(["--port", &driver_port.to_string()])
        .args(["--native-port", &native_port.to_string()]);
    display.apply(&mut cmd);
    // BENCH_APP_ENV="NAME=value,…": the app inherits these through the drivers (to compare,
    // say, WEBKIT_DISABLE_COMPOSITING_MODE=1)
    for pair in std::env::var("BENCH_APP_ENV")
        .unwrap_or_default()
        .split(',')
    {
        if let Some((name, value)) = pair.split_once('=') {
            println!("    the app runs with {name}={value}");
            cmd.env(name.trim(), value.trim());
        }
    }
    // its own process group, so stopping it also stops the WebKitWebDriver and app it starts
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let driver = DriverGroup(Server::spawn(
        "tauri-driver",
        &mut cmd,
        driver_port,
        &logs.join("tauri-driver.log"),
    )?);
    let driver_url = driver.0.base.clone();
    let ancestor = driver.0.child.id();

    // 1. sign in and open the empty project, so the next launch resumes there
    println!("\n==> signing the window in");
    let setup = WebDriver::launch(&driver_url, &binary)?;
    setup.wait_for(
        "document.getElementById('connect-form')",
        "the first-run form",
    )?;
    setup.script(
        &format!(
            "document.getElementById('connect-base-url').value = {};\
             document.getElementById('connect-api-key').value = {};\
             document.getElementById('connect-form').requestSubmit(); return true;",
            serde_json::to_string(&base)?,
            serde_json::to_string(&key)?
        ),
        false,
    )?;
    // opens a project from the list and waits until the app has saved it as the one to
    // resume, so the next launch opens straight into it
    let open_project = |webdriver: &WebDriver, name: &str, id: &str| -> Result<()> {
        webdriver.wait_for(
            &format!("document.querySelector('[data-testid=\"project-{name}\"]')"),
            "the project list",
        )?;
        webdriver.script(
            &format!(
                "document.querySelector('[data-testid=\"project-{name}\"]').click(); return true;"
            ),
            false,
        )?;
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(120) {
            let saved = webdriver.script(
                "const done = arguments[arguments.length - 1];\
                 window.__TAURI__.core.invoke('settings_get').then((s) => done(s.last_project), () => done(null));",
                true,
            )?;
            if saved.as_str() == Some(id) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!("the app did not keep {name} as the project to resume")
    };
    open_project(&setup, "bench-empty", &project_ids[0])?;
    setup.close()?;

    // 2. a launch straight into the empty project; then open the big one for the next launch
    println!("\n==> launching into the empty project");
    let (webdriver, empty) = timed_launch(&driver_url, &binary, ancestor, "empty project", 0)?;
    webdriver.script(
        "document.getElementById('back-to-projects').click(); return true;",
        false,
    )?;
    open_project(&webdriver, "bench-5000", &project_ids[1])?;
    webdriver.close()?;

    // 3. launches straight into 5,000 domains: a launch's time moves by a few hundred ms from
    //    one to the next (WebKit's start), so the figure is the median launch; the frames are
    //    measured in the last one
    let launches: usize = super::processes::env_number("BENCH_APP_LAUNCHES", 5).max(1);
    let mut big_launches = Vec::with_capacity(launches);
    let mut last_webdriver: Option<WebDriver> = None;
    for number in 1..=launches {
        println!(
            "\n==> launching into the project with {APP_DOMAINS} domains ({number} of {launches})"
        );
        if let Some(previous) = last_webdriver.take() {
            previous.close()?;
        }
        let (webdriver, launch) =
            timed_launch(&driver_url, &binary, ancestor, "5,000 domains", APP_DOMAINS)?;
        big_launches.push(launch);
        last_webdriver = Some(webdriver);
    }
    let webdriver = last_webdriver.context("no launch")?;
    let every_launch: Vec<f64> = big_launches.iter().map(|l| l.domains_painted_ms).collect();
    big_launches.sort_by(|a, b| a.domains_painted_ms.total_cmp(&b.domains_painted_ms));
    let slowest_ms = big_launches.last().map_or(0.0, |l| l.domains_painted_ms);
    let big = big_launches.swap_remove(big_launches.len() / 2);
    println!("\n==> frame times: idle, scrolling, typing a filter");
    let FrameTimes {
        idle,
        scroll,
        webdriver_floor: floor,
        webdriver_filter: typing,
        through_x,
    } = frame_times(&webdriver, &display)?;
    let frames_load = load_now();
    // memory again after the scrolling and typing rounds, over the same processes
    let (after_rss, after_pss, after_names) = app_memory(ancestor, &comm_of(&binary))?;
    webdriver.close()?;
    drop(driver);
    drop(service);

    table.add(
        "app: launch",
        "empty project",
        empty.figure(),
        String::new(),
    );
    table.add(
        "app: launch",
        "project with 5,000 domains",
        big.figure(),
        format!(
            "×{:.2} time, ×{:.2} PSS of the empty one",
            big.domains_painted_ms / empty.domains_painted_ms.max(1.0),
            big.pss_kib as f64 / empty.pss_kib.max(1) as f64
        ),
    );
    table.add(
        "app: launch",
        "5,000 domains: where the time goes",
        big.breakdown(),
        String::new(),
    );
    table.add(
        "app: launch",
        &format!("5,000 domains: every launch ({launches}, in order)"),
        format!(
            "Domains painted {} ms; the figures above are the median launch's",
            every_launch
                .iter()
                .map(|ms| format!("{ms:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        String::new(),
    );
    table.add(
        "app: launch",
        "goals, 5,000 domains",
        format!(
            "Domains painted {:.0} ms (median of {launches} launches; slowest {slowest_ms:.0} ms), PSS {:.0} MB at paint, {:.0} MB after scrolling and typing",
            big.domains_painted_ms,
            mb(big.pss_kib),
            mb(after_pss)
        ),
        format!(
            "{}; {}",
            goal(
                big.domains_painted_ms <= 1000.0,
                "≤ 1.0 s to the painted rows"
            ),
            goal(
                mb(big.pss_kib.max(after_pss)) <= 300.0,
                "≤ 300 MB PSS, at paint and after the rounds"
            )
        ),
    );
    table.add(
        "app: memory",
        "5,000 domains, after the scrolling and typing rounds",
        format!(
            "{:.0} MB RSS / {:.0} MB PSS over {} processes ({}); at paint {:.0} MB PSS",
            mb(after_rss),
            mb(after_pss),
            after_names.len(),
            after_names.join(", "),
            mb(big.pss_kib)
        ),
        String::new(),
    );
    table.add(
        "app: frames",
        "idle (nothing to do), 5,000 domains open",
        format!("{}; load {frames_load}", idle.figure()),
        String::new(),
    );
    table.add(
        "app: frames",
        &format!("scrolling 5,000 rows, {SCROLL_STEP} px a frame"),
        format!(
            "{}; the table's paint() script time median {:.1} ms, max {:.1} ms over {} calls; load {frames_load}",
            scroll.frames.figure(),
            scroll.paint_ms.1,
            scroll.paint_ms.2,
            scroll.paint_ms.0
        ),
        scroll.frames.goal(),
    );
    let typed = |typing: &Typing| {
        format!(
            "{}; {} frames late, {} of them with a key's input event in them; key to next frame median {:.1} ms, max {:.1} ms over {} keys{}; load {frames_load}",
            typing.frames.figure(),
            typing.late.0,
            typing.late.1,
            typing.key_median_ms,
            typing.key_max_ms,
            typing.keys,
            typing
                .shown
                .map(|(keys, median, max)| format!(
                    "; key to the frame that draws the filtered table median {median:.1} ms, max {max:.1} ms over {keys} keys"
                ))
                .unwrap_or_default()
        )
    };
    table.add(
        "app: frames",
        &format!(
            "floor: typing \"{FILTER_TEXT}\" into a plain box beside the filter (no listener) and deleting it, {TYPING_ROUNDS} rounds taking turns with the filter, a key per 120 ms"
        ),
        typed(&floor),
        String::new(),
    );
    table.add(
        "app: frames",
        &format!(
            "typing \"{FILTER_TEXT}\" in the filter and deleting it, {TYPING_ROUNDS} rounds taking turns with the floor, a key per 120 ms"
        ),
        typed(&typing),
        format!(
            "p99 {:+.1} ms against the floor; {}",
            typing.frames.p99 - floor.frames.p99,
            typing.frames.goal()
        ),
    );
    let Ok(TypedThroughX {
        floor: x_floor,
        filter: x_typing,
        bare_page,
    }) = through_x
    else {
        let why = through_x.err().unwrap_or_default();
        table.add(
            "app: frames",
            "typing through the X server's keyboard (the floor, the filter, the bare page)",
            format!("not measured: {why}"),
            String::new(),
        );
        return Ok(());
    };
    table.add(
        "app: frames",
        &format!(
            "floor through the X server's keyboard (XTEST, as a user's keys arrive): typing \"{FILTER_TEXT}\" into the plain box and deleting it, {TYPING_ROUNDS} rounds taking turns with the filter"
        ),
        typed(&x_floor),
        String::new(),
    );
    table.add(
        "app: frames",
        &format!(
            "typing \"{FILTER_TEXT}\" in the filter through the X server's keyboard and deleting it, {TYPING_ROUNDS} rounds taking turns with the floor"
        ),
        typed(&x_typing),
        format!(
            "p99 {:+.1} ms against the floor; {}",
            x_typing.frames.p99 - x_floor.frames.p99,
            x_typing.frames.goal()
        ),
    );
    table.add(
        "app: frames",
        &format!(
            "bare page, the machine's floor: the same window with a document of one text box and nothing else, \"{FILTER_TEXT}\" typed through the X server's keyboard and deleted, {TYPING_ROUNDS} rounds after the app's"
        ),
        typed(&bare_page),
        format!(
            "the filter's p99 {:+.1} ms against it; {}",
            x_typing.frames.p99 - bare_page.frames.p99,
            bare_page.frames.goal()
        ),
    );
    Ok(())
}

/// tauri-driver in its own process group: the whole group (driver, WebKitWebDriver, app) is
/// stopped by the group's id when dropped.
struct DriverGroup(Server);

impl Drop for DriverGroup {
    fn drop(&mut self) {
        // tauri-driver may outlive SIGTERM, so the group gets SIGKILL after a moment (`--`:
        // procps kill reads `-<pid>` alone as a signal number)
        let group = format!("-{}", self.0.child.id());
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &group])
            .stderr(Stdio::null())
            .status();
        std::thread::sleep(Duration::from_millis(500));
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_times_are_the_gaps_between_timestamps() {
        // 99 frames on time and one that took three frame slots
        let mut at = 0.0;
        let mut stamps = vec![at];
        for i in 0..100 {
            at += if i == 50 { 50.0 } else { 16.7 };
            stamps.push(at);
        }
        let frames = Frames::from_timestamps(&stamps).unwrap();
        assert_eq!(frames.frames, 100);
        assert!((frames.p50 - 16.7).abs() < 1e-9);
        assert!((frames.p99 - 16.7).abs() < 1e-9);
        assert!((frames.max - 50.0).abs() < 1e-9);
        assert!((frames.over_one - 0.01).abs() < 1e-9);
        assert!((frames.over_two - 0.01).abs() < 1e-9);
        assert_eq!(Frames::from_timestamps(&[1.0]), None);
    }

    #[test]
    fn recordings_pool_their_gaps_but_not_the_pause_between_them() {
        // two rounds of 50 on-time frames, the second starting two seconds after the first
        let round =
            |start: f64| -> Vec<f64> { (0..=50).map(|i| start + f64::from(i) * 16.7).collect() };
        let frames = Frames::from_recordings(&[round(0.0), round(2835.0)]).unwrap();
        assert_eq!(frames.frames, 100);
        assert!((frames.max - 16.7).abs() < 1e-9, "{}", frames.max);
        assert_eq!(frames.over_one, 0.0);
        assert_eq!(Frames::from_recordings(&[vec![1.0], vec![]]), None);
    }

    #[test]
    fn a_p99_of_17_ms_is_on_time_only_at_whole_millisecond_resolution() {
        // whole-ms timestamps, as WebKit gives them here: 16.7 ms frames read 16 or 17
        let whole: Vec<f64> = (0..=100).map(|i| (f64::from(i) * 16.7).floor()).collect();
        let frames = Frames::from_timestamps(&whole).unwrap();
        assert!(frames.whole_ms);
        assert!((frames.p99 - 17.0).abs() < 1e-9);
        assert!(
            frames
                .goal()
                .starts_with("met only at the timestamps' 1 ms resolution"),
            "{}",
            frames.goal()
        );
        // fine timestamps: 17 ms is late
        let fine: Vec<f64> = (0..=100).map(|i| f64::from(i) * 17.0 + 0.25).collect();
        assert!(
            Frames::from_timestamps(&fine)
                .unwrap()
                .goal()
                .starts_with("MISSED")
        );
        // whole-ms timestamps, 18 ms: late whatever the resolution
        let late: Vec<f64> = (0..=100).map(|i| f64::from(i) * 18.0).collect();
        assert!(
            Frames::from_timestamps(&late)
                .unwrap()
                .goal()
                .starts_with("MISSED")
        );
        let on_time: Vec<f64> = (0..=100).map(|i| f64::from(i) * 16.0).collect();
        assert!(
            Frames::from_timestamps(&on_time)
                .unwrap()
                .goal()
                .starts_with("met (goal")
        );
    }

    #[test]
    fn a_late_frame_counts_a_key_only_when_its_input_event_falls_within_it() {
        // whole ms: 16 and 17 are on time, 18 is late
        let frames = [0.0, 16.0, 33.0, 51.0, 67.0, 86.0, 100.0];
        // a key just before the 51 ms frame, one in an on-time frame, none in the 86 ms one
        let inputs = [50.0, 60.0];
        assert_eq!(late_frames_with_input(&frames, &inputs, true), (2, 1));
        // a key exactly at a late frame's start belongs to the frame before it
        assert_eq!(late_frames_with_input(&frames, &[33.0], true), (2, 0));
        // fine timestamps: 17 ms is late too
        assert_eq!(late_frames_with_input(&frames, &inputs, false), (3, 1));
    }

    #[test]
    fn the_99th_percentile_is_the_nearest_rank() {
        // 98 on time, two long: the 99th of 100 gaps is a long one
        let mut stamps = vec![0.0];
        for i in 0..100 {
            let gap = if i >= 98 { 40.0 } else { 16.6 };
            stamps.push(stamps[i] + gap);
        }
        let frames = Frames::from_timestamps(&stamps).unwrap();
        assert!((frames.p99 - 40.0).abs() < 1e-9);
        assert!((frames.over_one - 0.02).abs() < 1e-9);
    }

    #[test]
    fn only_the_app_and_its_webkit_processes_count() {
        let app = comm_of(Path::new("/tmp/domain-desk-before-the-change"));
        assert_eq!(app, "domain-desk-bef");
        assert!(is_app_process("domain-desk-bef", &app));
        assert!(!is_app_process("domain-desk", &app));
        assert!(is_app_process("WebKitWebProces", &app));
        assert!(is_app_process("WebKitNetworkPr", &app));
        assert!(!is_app_process("WebKitWebDriver", &app));
        assert!(!is_app_process("tauri-driver", &app));
    }
}
