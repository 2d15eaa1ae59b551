//! Issue 61, a calm window, met at the smallest supported size (900×600): nothing on screen
//! moves unless the user moved it (a click on a row scrolls nothing, the details' head stays
//! while their body scrolls, the page itself has nothing to scroll), the domains table stays
//! one Tab stop whatever its list shows, a dialog gives the focus back to what opened it, and
//! a name breaks after its dots and hyphens only, never inside a label.

use fantoccini::key::Key;

use super::harness::{App, Deadline};
use super::{PRO_SITE, add_domains, focused, key, open_project, resize, row, start_demo};

/// A name long enough to wrap in the table's Hostname column and in the details' title.
const LONG: &str = "cname-target-with-long-name.pages-mirror.example.net";

/// Waits two animation frames: whatever a click scheduled for the next frame has been drawn.
async fn frames(app: &App) {
    app.script_async(
        "const done = arguments[0];
         requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
    )
    .await;
}

/// Where everything that can scroll is, and where the row `hostname` is on screen.
async fn positions(app: &App, hostname: &str) -> serde_json::Value {
    app.client
        .execute(
            "const top = (e) => e ? Math.round(e.getBoundingClientRect().top) : null;
             const scroll = (e) => e ? e.scrollTop : null;
             return { page: document.scrollingElement.scrollTop, main: scroll(document.getElementById('main')),
                      list: scroll(document.getElementById('domains-viewport')),
                      details: scroll(document.getElementById('detail-body')),
                      row: top(document.querySelector(`.vt-row[data-hostname=\"${arguments[0]}\"]`)) };",
            vec![serde_json::json!(hostname)],
        )
        .await
        .expect("reading the scroll positions")
}

/// Adds `hostname` to the project `name` through the app's own command, then Refresh.
async fn add_one(app: &App, name: &str, hostname: &str) {
    let added = app
        .client
        .execute_async(
            "const [name, hostname, done] = arguments;
             const invoke = window.__TAURI__.core.invoke;
             (async () => {
               const projectId = (await invoke('projects_list')).find((p) => p.name === name).id;
               await invoke('domain_add', { projectId, hostname, redirectTo: null });
               return hostname;
             })().then(done, (err) => done(JSON.stringify(err)));",
            vec![serde_json::json!(name), serde_json::json!(hostname)],
        )
        .await
        .expect("adding a domain");
    assert_eq!(added, serde_json::json!(hostname), "{added}");
    app.click("#domains-refresh").await;
    app.find(&row(hostname)).await;
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn a_calm_window_nothing_moves_the_grid_stays_one_tab_stop_and_names_break_between_labels() {
    let app = App::launch("calm_window").await;
    start_demo(&app).await;
    open_project(&app, PRO_SITE, "Pro site").await;
    add_domains(&app, "Pro site", 28).await;
    add_one(&app, "Pro site", LONG).await;
    resize(&app, 900, 600).await;

    // One scroll area per region: the page and the main area have nothing to scroll; the
    // table's list does.
    let areas = app
        .script(
            "const main = document.getElementById('main');
             const list = document.getElementById('domains-viewport');
             return { page: document.scrollingElement.scrollHeight - innerHeight,
                      main: main.scrollHeight - main.clientHeight, list: list.scrollHeight - list.clientHeight };",
        )
        .await;
    assert!(
        areas["page"].as_i64().is_some_and(|n| n <= 0)
            && areas["main"].as_i64().is_some_and(|n| n <= 0)
            && areas["list"].as_i64().is_some_and(|n| n > 0),
        "at 900×600 only the list scrolls: {areas}"
    );

    // A click on a row shows its details and moves nothing: not the page, not the main area,
    // not the list, not the row under the pointer.
    const CLICKED: &str = "site01.example.net";
    let before = positions(&app, CLICKED).await;
    app.click(&format!("{} .host", row(CLICKED))).await;
    app.wait_attr("#detail-panel", "data-hostname", CLICKED)
        .await;
    frames(&app).await;
    frames(&app).await;
    let after = positions(&app, CLICKED).await;
    let keys = ["page", "main", "list", "row"];
    if keys.iter().any(|k| before[k] != after[k]) {
        app.fail(format!(
            "a click on a row moved the window: before {before}, after {after}"
        ))
        .await;
    }
    app.screenshot("61-calm-900x600-row-clicked").await;

    // The details' head (the name, the status, the actions) stays where it is while their
    // body scrolls beneath it.
    let head = app
        .script_async(
            "const done = arguments[0];
             const body = document.getElementById('detail-body');
             const at = () => ['detail-title', 'detail-status', 'verify-button', 'detail-remove']
               .map((id) => Math.round(document.getElementById(id).getBoundingClientRect().top));
             const first = at();
             body.scrollTop = body.scrollHeight;
             requestAnimationFrame(() => requestAnimationFrame(() =>
               done({ scrolled: body.scrollTop, first, then: at(), panel: Math.round(body.getBoundingClientRect().top) })));",
        )
        .await;
    assert!(
        head["scrolled"].as_f64().is_some_and(|s| s > 0.0) && head["first"] == head["then"],
        "the details' body scrolls and their head stays: {head}"
    );

    // The grid is one Tab stop whatever is drawn: the clicked row keeps it when the list is
    // scrolled to its end, far from that row, and Tab from the filter lands on it.
    app.script(
        "const list = document.getElementById('domains-viewport');
         list.scrollTop = list.scrollHeight;
         return true;",
    )
    .await;
    frames(&app).await;
    frames(&app).await;
    let stops = app
        .script(
            "const grid = document.getElementById('domains-grid');
             const list = document.getElementById('domains-viewport').getBoundingClientRect();
             const stops = [...grid.querySelectorAll('[tabindex]')].filter((e) => e.tabIndex >= 0);
             return { stops: stops.map((e) => e.dataset.hostname ?? e.id ?? e.className),
                      out_of_view: stops.every((e) => e.getBoundingClientRect().bottom <= list.top) };",
        )
        .await;
    assert_eq!(
        stops["stops"],
        serde_json::json!([CLICKED]),
        "one Tab stop in the grid, on the active row: {stops}"
    );
    assert_eq!(
        stops["out_of_view"],
        serde_json::json!(true),
        "the check needs the active row scrolled out of view: {stops}"
    );
    app.script("document.getElementById('domain-filter').focus(); return true;")
        .await;
    let mut presses = 0;
    key(&app, &Key::Tab, &mut presses).await;
    let landed = app
        .script(
            "const e = document.activeElement;
             return e.closest('#domains-grid') ? (e.dataset.hostname ?? 'in the grid') : (e.id || e.tagName);",
        )
        .await;
    assert_eq!(
        landed,
        serde_json::json!(CLICKED),
        "Tab from the filter reaches the grid's active row"
    );

    // Names break after their dots and hyphens only: in the table's Hostname column and the
    // details of a name too long for either, every label of a value (what lies between two
    // dots, hyphens or spaces) is on one line, no <wbr> stands but after a dot or a hyphen,
    // and no value may break anywhere (`word-break: break-all`).
    app.type_into("#domain-filter", "cname-target").await;
    app.wait_contains("#domain-count", "1 of 29 domains").await;
    app.click(&format!("{} .host", row(LONG))).await;
    app.wait_attr("#detail-panel", "data-hostname", LONG).await;
    let broken = app
        .script(
            "const values = [...document.querySelectorAll(
               '.vt-window .host-name, .vt-window .role, #detail-title, #detail-panel .rec-value code, #detail-panel .rec-note, #record-plan td.value, #domain-reason, #domain-advice')];
             const problems = [];
             let wrapped = 0;
             for (const value of values) {
               if (getComputedStyle(value).wordBreak === 'break-all') problems.push(`${value.id || value.className}: word-break: break-all`);
               const lines = new Set();
               const walker = document.createTreeWalker(value, NodeFilter.SHOW_TEXT);
               for (let text = walker.nextNode(); text; text = walker.nextNode()) {
                 if (!text.data.trim()) continue;
                 for (const label of text.data.matchAll(/[^\\s.\\-]+[.\\-]?/g)) {
                   const range = document.createRange();
                   range.setStart(text, label.index);
                   range.setEnd(text, label.index + label[0].length);
                   const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                   for (const t of tops) lines.add(t);
                   if (tops.size > 1) problems.push(`“${label[0]}” of ${value.id || value.className} is cut across ${tops.size} lines`);
                 }
               }
               if (lines.size > 1) wrapped += 1;
               for (const wbr of value.querySelectorAll('wbr')) {
                 const before = wbr.previousSibling?.textContent ?? '';
                 if (!/[.-]$/.test(before)) problems.push(`a break opportunity after “${before}” in ${value.id || value.className}`);
               }
             }
             return { values: values.length, wrapped, problems };",
        )
        .await;
    app.screenshot("61-calm-900x600-long-name").await;
    assert!(
        broken["values"].as_u64().is_some_and(|n| n >= 5)
            && broken["wrapped"].as_u64().is_some_and(|n| n >= 2),
        "the check needs names that wrap: {broken}"
    );
    if broken["problems"] != serde_json::json!([]) {
        app.fail(format!("a value breaks inside a label: {broken}"))
            .await;
    }
    app.close().await;
}

/// Waits until the focused element is `id` (by `focused`: its id, or its class).
async fn wait_focus(app: &App, id: &str, after: &str) {
    let deadline = Deadline::after(super::harness::WAIT);
    loop {
        let now = focused(app).await;
        if now == id {
            return;
        }
        if deadline.passed() {
            app.fail(format!(
                "after {after} the focus should be back on {id}; it is on {now:?}"
            ))
            .await;
        }
        Deadline::next_look().await;
    }
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn a_dialog_gives_the_focus_back_to_the_control_that_opened_it() {
    let app = App::launch("focus_returns").await;
    start_demo(&app).await;
    open_project(&app, PRO_SITE, "Pro site").await;
    add_one(&app, "Pro site", "shop.example.com").await;
    add_one(&app, "Pro site", "blog.example.com").await;
    resize(&app, 900, 600).await;

    // Add domain, then Escape: back on Add domain.
    app.click("#add-domain-button").await;
    app.find("#add-hostname").await;
    let mut presses = 0;
    key(&app, &Key::Escape, &mut presses).await;
    wait_focus(&app, "add-domain-button", "Add domain closed").await;

    // Add domain's Open Demo DNS closes one dialog and opens another: closing Demo DNS gives
    // the focus back to what opened the first (it went nowhere, and once to Export…).
    app.click("#add-domain-button").await;
    app.type_into("#add-hostname", "focus.example.com").await;
    app.wait_contains("#add-hostname-message", "subdomain of example.com")
        .await;
    app.click("#add-submit").await;
    app.click("#add-open-demo-dns").await;
    app.wait_displayed("#demo-dns-close").await;
    // Demo DNS keeps its size whatever the zone holds: its Close stays under the pointer.
    let close_at = || async {
        app.script(
            "const b = document.getElementById('demo-dns-close').getBoundingClientRect();
             return [Math.round(b.left), Math.round(b.top), document.querySelectorAll('#dns-records tbody tr').length];",
        )
        .await
    };
    app.wait_text("#dns-records tbody", "the zone's records", |t| {
        !t.is_empty()
    })
    .await;
    let records = app.text("#dns-records tbody").await;
    let first = close_at().await;
    app.choose("#dns-zone", "example.co.uk").await;
    app.wait_text("#dns-records tbody", "another zone's records", |t| {
        !t.is_empty() && t != records
    })
    .await;
    let second = close_at().await;
    assert_eq!(
        (&first[0], &first[1]),
        (&second[0], &second[1]),
        "Close stays where it was: {first} → {second}"
    );
    app.click("#demo-dns-close").await;
    wait_focus(
        &app,
        "add-domain-button",
        "Demo DNS (opened from Add domain) closed",
    )
    .await;

    // The details' Redirect…, cancelled: back on Redirect….
    app.click(&format!("{} .host", row("blog.example.com")))
        .await;
    app.wait_attr("#detail-panel", "data-hostname", "blog.example.com")
        .await;
    app.click("#detail-redirect").await;
    app.click("#redirect-cancel").await;
    wait_focus(&app, "detail-redirect", "Redirect… cancelled").await;

    // Remove… takes the domain and its panel away: the focus goes to the table's row, not
    // to the page.
    app.click("#detail-remove").await;
    app.click("#confirm-ok").await;
    app.wait_gone(&row("blog.example.com")).await;
    let deadline = Deadline::after(super::harness::WAIT);
    loop {
        let at = app
            .script(
                "const e = document.activeElement;
                 return e.closest('#domains-grid') ? e.dataset.hostname ?? null : (e.id || e.tagName);",
            )
            .await;
        if at.as_str().is_some_and(|h| h.ends_with(".example.com")) {
            break;
        }
        if deadline.passed() {
            app.fail(format!(
                "after Remove… the focus should be on a row of the table; it is on {at}"
            ))
            .await;
        }
        Deadline::next_look().await;
    }
    app.screenshot("61-focus-after-remove").await;
    app.close().await;
}

/// Scrolls the details' body (only it) so that `css` is at its top, for a screenshot.
async fn show(app: &App, css: &str) {
    app.client
        .execute(
            "const target = document.querySelector(arguments[0]);
             const body = document.getElementById('detail-body');
             body.scrollTop += target.getBoundingClientRect().top - body.getBoundingClientRect().top;
             return true;",
            vec![serde_json::json!(css)],
        )
        .await
        .expect("scrolling the details");
}

/// Screenshots `{name}-{width}x{height}-{light|dark}` at the largest and the smallest size
/// the window keeps its rules at; the window is left at 900×600, light.
async fn shots(app: &App, name: &str) {
    for (width, height) in [(1400, 900), (900, 600)] {
        resize(app, width, height).await;
        for shade in ["dark", "light"] {
            app.script(&format!(
                "document.documentElement.dataset.theme = '{shade}'; return true;"
            ))
            .await;
            app.screenshot(&format!("{name}-{width}x{height}-{shade}"))
                .await;
        }
    }
}

/// Connection failures say what was found and the next step, never the transport's or the
/// platform's raw words; the record card names the record actually in the way once the app
/// has read the zone, and a verified domain's record is in place, not "to create".
/// Screenshots `61-*` at 1400×900 and 900×600, light and dark.
#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn connection_failures_and_the_record_card_say_what_was_found() {
    let app = App::launch("calm_words").await;
    app.wait_contains("#first-run-title", "Welcome to Domain Desk")
        .await;
    // `.invalid` never exists: the resolver's "Name or service not known", in words.
    app.type_into("#connect-base-url", "https://api.no-such-platform.invalid")
        .await;
    app.type_into("#connect-api-key", "dd_not_a_real_key_61")
        .await;
    app.click("#connect-submit").await;
    let said = app.wait_contains("#first-run-error", "No host named").await;
    assert!(
        said.starts_with("No host named api.no-such-platform.invalid exists")
            && said.contains("Check the platform’s address")
            && !said.contains("internet connection")
            && !said.contains("dd_not_a_real_key_61"),
        "{said}"
    );
    shots(&app, "61-connect-no-such-host").await;
    app.type_into("#connect-base-url", "http://api.example.com")
        .await;
    app.click("#connect-submit").await;
    let said = app
        .wait_contains("#first-run-error", "The API key was not sent")
        .await;
    assert!(said.contains("Use https://"), "{said}");
    shots(&app, "61-connect-plain-http").await;

    start_demo(&app).await;
    // A stopped clock: a verified domain stays verified while it is photographed.
    app.choose("#clock-speed", "0").await;
    open_project(&app, PRO_SITE, "Pro site").await;
    add_one(&app, "Pro site", "shop.example.com").await;
    app.click(&row("shop.example.com")).await;
    // Domain Desk's look at the zone (Demo DNS) finds the old host's A record: named, by value.
    let warnings = app
        .wait_contains("#record-warnings", "The A record “192.0.2.10” at “shop”")
        .await;
    assert!(
        !warnings.contains("An A or AAAA record at"),
        "the general warning gave way: {warnings}"
    );
    // "3600 s" never breaks between number and unit.
    assert_eq!(app.text("#record-ttl").await, "3600\u{a0}s");
    // The plan beside the card says the same: that record, marked remove.
    app.wait_contains(r#"#record-plan tr[data-action="remove"]"#, "192.0.2.10")
        .await;
    show(&app, "#detail-record-title").await;
    shots(&app, "61-record-card-found").await;

    add_one(&app, "Pro site", "www.example.com").await;
    app.click(&row("www.example.com")).await;
    app.click("#verify-button").await;
    app.wait_attr(&row("www.example.com"), "data-status", "issuing")
        .await;
    app.wait_text("#detail-record-title", "“DNS record in place”", |t| {
        t == "DNS record in place"
    })
    .await;
    assert!(!app.exists("#record-warnings").await);
    assert!(!app.exists("#record-plan").await);
    // Domain Desk's look at the zone, when it comes, does not put "At Demo DNS …: Open Demo
    // DNS" back under a record already in place.
    let line = app.text("#detail-provider-line").await;
    assert!(line.starts_with("The platform found this record"), "{line}");
    show(&app, "#detail-record-title").await;
    shots(&app, "61-record-in-place").await;
    app.close().await;
}
