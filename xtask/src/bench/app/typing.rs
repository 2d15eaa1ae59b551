//! Typing "site-42" and deleting it, key by key, through WebDriver or through the X server's
//! keyboard (`xdotool`, XTEST), into the filter, a plain box beside it or a bare page, with
//! the page's frames recorded throughout.

use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};

use super::frames::{Frames, late_frames_with_input, timestamps};
use super::webdriver::WebDriver;
use crate::bench::processes::expect;

/// Starts recording frames, and for each keystroke in the box with id `arguments[0]` the time
/// from the input event to the next frame's callback (the handler's work plus the wait for
/// the frame).
pub(super) const RECORD_START_SCRIPT: &str = include_str!("record-start.js");

pub(super) const RECORD_STOP_SCRIPT: &str = include_str!("record-stop.js");

/// The floor for typing: a plain text box beside the filter, with no listener of the page's
/// own, so typing into it costs only WebDriver's keystroke and WebKit drawing the box.
pub(super) const FLOOR_BOX_SCRIPT: &str = include_str!("floor-box.js");

pub(super) const FLOOR_BOX_REMOVE_SCRIPT: &str = include_str!("floor-box-remove.js");

/// What typing into the filter measured.
pub(super) struct Typing {
    pub(super) frames: Frames,
    pub(super) keys: usize,
    pub(super) key_median_ms: f64,
    pub(super) key_max_ms: f64,
    /// From each key to the animation frame in which the table holds its query: (keys,
    /// median, max in ms); none for a box the table does not follow.
    pub(super) shown: Option<(usize, f64, f64)>,
    /// Frames late for 60 Hz, and how many of them a key's input event arrived in.
    pub(super) late: (usize, usize),
}

/// Typed through the X server's keyboard.
pub(super) struct TypedThroughX {
    /// The plain box beside the filter.
    pub(super) floor: Typing,
    pub(super) filter: Typing,
    /// A document with one text box and nothing else, in the same window.
    pub(super) bare_page: Typing,
}

/// The app's window on the X display, for `xdotool`.
pub(super) fn app_window(display: &crate::session::Display) -> Result<String> {
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
pub(super) const BARE_PAGE_SCRIPT: &str = include_str!("bare-page.js");

/// One round of typing: the page's frame timestamps, and for each key the time to the next
/// frame and (in the filter) to the frame that draws the filtered table, in ms.
pub(super) struct Round {
    pub(super) frames: Vec<f64>,
    pub(super) keys: Vec<f64>,
    pub(super) shown: Vec<f64>,
    /// Each key's input event (its timestamp, on the frames' clock).
    pub(super) inputs: Vec<f64>,
}

impl Typing {
    /// The rounds pooled: frame gaps within each round, key times over all.
    pub(super) fn from_rounds(rounds: &[Round]) -> Option<Self> {
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
pub(super) fn type_through_x(
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
pub(super) fn type_into(webdriver: &WebDriver, id: &str) -> Result<Round> {
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
pub(super) fn stop_recording(webdriver: &WebDriver, id: &str, through_x: bool) -> Result<Round> {
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

/// Typed into the filter key by key, then deleted with as many backspaces; every prefix up to
/// "site-" matches all 5,000 rows.
pub(super) const FILTER_TEXT: &str = "site-42";
/// How many times the filter (and the floor's box) is typed and deleted: eight rounds give
/// about 800 frames each, so the p99 is the eighth slowest frame, not one stray one.
pub(super) const TYPING_ROUNDS: usize = 8;
/// The pause between keys: a fast typist, about eight keys a second.
pub(super) const KEY_INTERVAL: Duration = Duration::from_millis(120);
