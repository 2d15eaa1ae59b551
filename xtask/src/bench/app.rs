//! The desktop app: launch time to first paint and memory, with an empty project and one with
//! 5,000 domains, driven through WebDriver; where the launch's time goes (the processes' start
//! times from `/proc`, the page's Navigation and Paint Timing and the UI's `dd:` User Timing
//! marks, `ui/lib/perf.js`); and frame times from the page's own `requestAnimationFrame`
//! timestamps while the 5,000-row table scrolls and while a filter is typed, and on bare pages
//! (one text box; 5,000 plain rows) for the machine's own floor.
//!
//! This file sets the run up and writes its rows; beside it, one file per job: `procfs.rs`
//! (the app's processes, their start times and memory), `webdriver.rs` (the session),
//! `launch.rs` (one timed launch), `frames.rs` (frame statistics, idle and scrolling),
//! `typing.rs` (keys through WebDriver or `xdotool`), and the JavaScript each runs in the page
//! in `.js` files loaded with `include_str!`.
//!
//! It is longer than the house's 500 lines (about 600 of code): what is left after those jobs
//! is the run itself, the service with 5,000 domains and the driver it starts, the measurement
//! of each launch and scroll into [`Measured`] rows, and the report of those rows as the
//! tables of `BENCHMARKS.md` (`report`, `report_frames`), which read the same rows and the
//! same run settings; split further, those rows and settings would be handed between files
//! that are only ever read together.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use domain_desk_test_support::Served;
use serde_json::json;

use super::processes::{Server, add_domains, free_port, project_with_deploy};
use super::report::{Table, goal};
use super::tools::{build_platform_stand_in, build_release_app, ensure_apt};

mod frames;
mod launch;
mod procfs;
mod typing;
mod webdriver;

use frames::{
    BARE_SCROLL_PAGE_SCRIPT, Frames, IDLE_SCRIPT, SCROLL_FRAMES, SCROLL_SCRIPT, SCROLL_STEP,
    Scroll, timestamps,
};
use launch::{Launch, timed_launch};
use procfs::{app_memory, comm_of, load_now, mb};
use typing::{
    BARE_PAGE_SCRIPT, FILTER_TEXT, FLOOR_BOX_REMOVE_SCRIPT, FLOOR_BOX_SCRIPT, TYPING_ROUNDS,
    TypedThroughX, Typing, app_window, type_into, type_through_x,
};
use webdriver::WebDriver;

/// Domains in the big project the window opens.
const APP_DOMAINS: usize = 5000;

/// Frame times while scrolling through the 5,000 rows, while typing into a plain box (the
/// floor) and while typing a filter, key by key, and deleting it again; an idle run first for
/// the floor of the frames themselves, and last the bare pages (one text box typed into; 5,000
/// plain rows scrolled) for the machine's floor.
///
/// `memory_after_rounds` runs once the app's own rounds are over (scrolling, and typing into the
/// filter and the box beside it), while the app's page is still the window's: the last rounds,
/// the bare page's, replace the app's document, so a reading after them would not be the app's.
fn frame_times<M>(
    webdriver: &WebDriver,
    display: &crate::session::Display,
    memory_after_rounds: impl FnOnce() -> Result<M>,
) -> Result<(FrameTimes, M)> {
    let idle = webdriver.script_with(IDLE_SCRIPT, true, json!([SCROLL_FRAMES / 2]))?;
    println!(
        "    idle: {} frames in {:.0} ms; page {}, focus {}",
        timestamps(&idle["times"]).len(),
        idle["elapsed"].as_f64().unwrap_or(0.0),
        idle["visibility"],
        idle["focus"]
    );
    let idle = Frames::from_timestamps(&timestamps(&idle["times"])).context("no idle frames")?;
    let scrolled = scroll_box(webdriver, "domains-viewport")?;
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
    let memory = memory_after_rounds()?;
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
    // Last of all, as it replaces whatever page is there: scrolling a page of plain rows.
    let bare_page = webdriver.script(BARE_SCROLL_PAGE_SCRIPT, false)?;
    let bare_scrolled = scroll_box(webdriver, "bare-viewport")?;
    println!(
        "    bare page of {} px in a box of {} px scrolled to {} px",
        bare_page["content"], bare_page["height"], bare_scrolled["end"]
    );
    if bare_scrolled["end"].as_f64().unwrap_or(0.0) < 1.0 {
        bail!("the bare page did not scroll: {bare_page}");
    }
    let bare_scroll = Frames::from_timestamps(&timestamps(&bare_scrolled["times"]))
        .context("no frames while scrolling the bare page")?;
    let frames = FrameTimes {
        idle,
        scroll: Scroll {
            frames: scroll,
            paint_ms,
        },
        bare_scroll,
        webdriver_floor: floor,
        webdriver_filter: typing,
        through_x,
    };
    Ok((frames, memory))
}

/// Scrolls the page's box with id `id` by [`SCROLL_STEP`] px a frame for [`SCROLL_FRAMES`]
/// frames ([`SCROLL_SCRIPT`]) and answers what the script recorded.
fn scroll_box(webdriver: &WebDriver, id: &str) -> Result<serde_json::Value> {
    webdriver.script_with(SCROLL_SCRIPT, true, json!([SCROLL_FRAMES, SCROLL_STEP, id]))
}

/// What [`frame_times`] measured.
struct FrameTimes {
    idle: Frames,
    scroll: Scroll,
    /// Scrolling a page of plain rows in the same window: the machine's floor.
    bare_scroll: Frames,
    /// Typed through WebDriver: the plain box beside the filter, and the filter.
    webdriver_floor: Typing,
    webdriver_filter: Typing,
    /// Typed through the X server's keyboard, or why not.
    through_x: std::result::Result<TypedThroughX, String>,
}

pub(super) fn app(work: &Path, table: &mut Table) -> Result<()> {
    crate::prereqs::ensure(crate::prereqs::Purpose::Test)?;
    ensure_apt(&["curl"])?;
    let binary = build_release_app()?;
    let logs = work.join("logs");
    std::fs::create_dir_all(&logs)?;
    let stand_in = build_platform_stand_in()?;
    let (service, key, project_ids) = service_with_projects(&stand_in, work, &logs)?;
    let base = service.base_url();
    let display = crate::session::Display::ensure()?;
    let (_sandbox, driver) = start_driver(&display, &logs)?;
    let driver_url = driver.0.base.clone();
    let ancestor = driver.0.child.id();
    let measured = measure(
        &driver_url,
        &binary,
        ancestor,
        &display,
        &base,
        &key,
        &project_ids,
    )?;
    drop(driver);
    drop(service);
    report(table, &measured);
    Ok(())
}

/// The platform's stand-in, `stand_in` (see [`build_platform_stand_in`]), with the two projects
/// the window opens: an empty one, and one with [`APP_DOMAINS`] domains; the service, its
/// Enterprise key and the projects' ids.
fn service_with_projects(
    stand_in: &Path,
    work: &Path,
    logs: &Path,
) -> Result<(Served, String, Vec<String>)> {
    let log = logs.join("app-service.log");
    let service = Served::start(
        Command::new(stand_in)
            .args(["127.0.0.1:0", "--clock-speed", "1"])
            .stderr(std::fs::File::create(&log)?),
    )
    .with_context(|| {
        format!(
            "the platform's stand-in did not start; see {}",
            log.display()
        )
    })?;
    let key = service
        .demo_key("enterprise")
        .context("no enterprise demo key in the stand-in's banner")?
        .to_owned();
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
    Ok((service, key, project_ids))
}

/// tauri-driver under `display` and a private D-Bus session with a keyring (the sandbox,
/// which must outlive it), in its own process group.
fn start_driver(
    display: &crate::session::Display,
    logs: &Path,
) -> Result<(crate::session::Sandbox, DriverGroup)> {
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
    Ok((sandbox, driver))
}

/// Everything [`app`] measures, for [`report`].
struct Measured {
    empty: Launch,
    /// The median launch into the big project, every launch's time in order, the slowest.
    big: Launch,
    every_launch: Vec<f64>,
    slowest_ms: f64,
    frames: FrameTimes,
    frames_load: String,
    /// RSS and PSS after the app's scrolling and typing rounds, on the app's page (before the
    /// bare page replaces it), and the processes they were read on.
    after: (u64, u64, Vec<String>),
    /// PSS once the window has then rested for [`AT_REST`], over the same processes.
    at_rest_pss: u64,
    /// The window's frames while it rested: longer than a tick of its clock.
    at_rest_frames: Frames,
}

/// How long the window rests after the rounds before its memory is read once more: what of
/// the rounds' growth is garbage the web process has not yet collected, and what it keeps.
const AT_REST: Duration = Duration::from_secs(20);

/// The most frames recorded at rest: more than 60 Hz gives in [`AT_REST`], so the run lasts
/// all of it.
const AT_REST_FRAMES: u64 = 1_500;

/// Signs the window in, launches into the empty project once and into the big one
/// `BENCH_APP_LAUNCHES` times, then measures frames and memory in the last launch.
fn measure(
    driver_url: &str,
    binary: &Path,
    ancestor: u32,
    display: &crate::session::Display,
    base: &str,
    key: &str,
    project_ids: &[String],
) -> Result<Measured> {
    // 1. sign in and open the empty project, so the next launch resumes there
    println!("\n==> signing the window in");
    let setup = WebDriver::launch(driver_url, binary)?;
    setup.wait_for(
        "document.getElementById('connect-form')",
        "the first-run form",
    )?;
    setup.script(
        &format!(
            "document.getElementById('connect-base-url').value = {};\
             document.getElementById('connect-api-key').value = {};\
             document.getElementById('connect-form').requestSubmit(); return true;",
            serde_json::to_string(base)?,
            serde_json::to_string(key)?
        ),
        false,
    )?;
    open_project(&setup, "bench-empty", &project_ids[0])?;
    setup.close()?;

    // 2. a launch straight into the empty project; then open the big one for the next launch
    println!("\n==> launching into the empty project");
    let (webdriver, empty) = timed_launch(driver_url, binary, ancestor, "empty project", 0)?;
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
            timed_launch(driver_url, binary, ancestor, "5,000 domains", APP_DOMAINS)?;
        big_launches.push(launch);
        last_webdriver = Some(webdriver);
    }
    let webdriver = last_webdriver.context("no launch")?;
    let every_launch: Vec<f64> = big_launches.iter().map(|l| l.domains_painted_ms).collect();
    big_launches.sort_by(|a, b| a.domains_painted_ms.total_cmp(&b.domains_painted_ms));
    let slowest_ms = big_launches.last().map_or(0.0, |l| l.domains_painted_ms);
    let big = big_launches.swap_remove(big_launches.len() / 2);
    println!("\n==> frame times: idle, scrolling, typing a filter");
    // memory again after the app's scrolling and typing rounds, over the same processes, and
    // once more after a rest, both on the app's page
    let memory_after_rounds = || {
        let after = app_memory(ancestor, &comm_of(binary))?;
        println!(
            "\n==> the window at rest for {} s, its frames recorded",
            AT_REST.as_secs()
        );
        let rest = webdriver.script_with(
            IDLE_SCRIPT,
            true,
            json!([AT_REST_FRAMES, AT_REST.as_millis() as u64]),
        )?;
        let (_, at_rest_pss, _) = app_memory(ancestor, &comm_of(binary))?;
        let at_rest_frames =
            Frames::from_timestamps(&timestamps(&rest["times"])).context("no frames at rest")?;
        Ok((after, at_rest_pss, at_rest_frames))
    };
    let (frames, ((after_rss, after_pss, after_names), at_rest_pss, at_rest_frames)) =
        frame_times(&webdriver, display, memory_after_rounds)?;
    let frames_load = load_now();
    webdriver.close()?;
    Ok(Measured {
        empty,
        big,
        every_launch,
        slowest_ms,
        frames,
        frames_load,
        after: (after_rss, after_pss, after_names),
        at_rest_pss,
        at_rest_frames,
    })
}

/// The table's rows for what [`measure`] found.
fn report(table: &mut Table, measured: &Measured) {
    let Measured {
        empty,
        big,
        every_launch,
        slowest_ms,
        frames,
        frames_load,
        after: (after_rss, after_pss, after_names),
        at_rest_pss,
        at_rest_frames,
    } = measured;
    let (after_rss, after_pss) = (*after_rss, *after_pss);
    let launches = every_launch.len();
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
            "{:.0} MB RSS / {:.0} MB PSS over {} processes ({}); at paint {:.0} MB PSS; {:.0} MB PSS after {} s more at rest",
            mb(after_rss),
            mb(after_pss),
            after_names.len(),
            after_names.join(", "),
            mb(big.pss_kib),
            mb(*at_rest_pss),
            AT_REST.as_secs()
        ),
        String::new(),
    );
    report_frames(table, frames, frames_load);
    table.add(
        "app: frames",
        &format!(
            "at rest after the rounds ({} s, through a tick of the window's clock: it ticks every 15 s and redraws the times on screen), 5,000 domains open",
            AT_REST.as_secs()
        ),
        at_rest_frames.figure(),
        String::new(),
    );
}

/// The frame rows: idle, scrolling, and typing through WebDriver and the X keyboard.
fn report_frames(table: &mut Table, frames: &FrameTimes, frames_load: &str) {
    let FrameTimes {
        idle,
        scroll,
        bare_scroll,
        webdriver_floor: floor,
        webdriver_filter: typing,
        through_x,
    } = frames;
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
    table.add(
        "app: frames",
        &format!(
            "bare page, the machine's floor for scrolling: the same window with a document of 5,000 plain rows as tall as the table's and nothing else, scrolled {SCROLL_STEP} px a frame after every other round"
        ),
        bare_scroll.figure(),
        format!(
            "the table's p99 {:+.1} ms against it; {}",
            scroll.frames.p99 - bare_scroll.p99,
            bare_scroll.goal()
        ),
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
        typed(floor),
        String::new(),
    );
    table.add(
        "app: frames",
        &format!(
            "typing \"{FILTER_TEXT}\" in the filter and deleting it, {TYPING_ROUNDS} rounds taking turns with the floor, a key per 120 ms"
        ),
        typed(typing),
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
        let why = through_x.as_ref().err().cloned().unwrap_or_default();
        table.add(
            "app: frames",
            "typing through the X server's keyboard (the floor, the filter, the bare page)",
            format!("not measured: {why}"),
            String::new(),
        );
        return;
    };
    table.add(
        "app: frames",
        &format!(
            "floor through the X server's keyboard (XTEST, as a user's keys arrive): typing \"{FILTER_TEXT}\" into the plain box and deleting it, {TYPING_ROUNDS} rounds taking turns with the filter"
        ),
        typed(x_floor),
        String::new(),
    );
    table.add(
        "app: frames",
        &format!(
            "typing \"{FILTER_TEXT}\" in the filter through the X server's keyboard and deleting it, {TYPING_ROUNDS} rounds taking turns with the floor"
        ),
        typed(x_typing),
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
        typed(bare_page),
        format!(
            "the filter's p99 {:+.1} ms against it; {}",
            x_typing.frames.p99 - bare_page.frames.p99,
            bare_page.frames.goal()
        ),
    );
}

/// Opens the project `name` from the list and waits until the app has saved it (`id`) as the
/// one to resume, so the next launch opens straight into it.
fn open_project(webdriver: &WebDriver, name: &str, id: &str) -> Result<()> {
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
