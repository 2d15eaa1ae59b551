//! Opening a web page in the user's browser. `$BROWSER` wins when it is set — the convention
//! that command-line tools share (git, Python's `webbrowser`, gh): a list of commands
//! separated by `:`, each run with the URL in place of `%s` or after its last word, the first
//! that starts being used. It is how a user on a headless machine or with two browsers picks
//! one, and how the end-to-end test hands the Domain Connect consent page to a browser it
//! drives. Without it, the desktop's default handler opens the page (the `open` crate).

use std::process::{Command, Stdio};

/// Opens `url` without waiting for the browser to close.
pub fn open_url(url: &str) -> Result<(), String> {
    match std::env::var("BROWSER") {
        Ok(value) if !value.trim().is_empty() => open_with(&value, url),
        _ => open::that_detached(url).map_err(|err| err.to_string()),
    }
}

/// Runs the first command of `browser` (a `$BROWSER` value) that starts.
fn open_with(browser: &str, url: &str) -> Result<(), String> {
    let mut failures = Vec::new();
    for words in browser_commands(browser, url) {
        let (program, args) = words.split_first().expect("commands are never empty");
        let started = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match started {
            Ok(mut child) => {
                // Reaped when it exits, so that a browser that returns at once leaves no
                // zombie behind, and one that stays open does not hold anyone up.
                std::thread::spawn(move || child.wait());
                return Ok(());
            }
            Err(err) => failures.push(format!("{program}: {err}")),
        }
    }
    Err(format!(
        "no command in $BROWSER started ({})",
        failures.join("; ")
    ))
}

/// The commands a `$BROWSER` value names for `url`, each split into words; `%s` in a word
/// stands for the URL (`%%` for a `%`), and a command without `%s` gets the URL as its last
/// argument. Empty entries are skipped.
fn browser_commands(browser: &str, url: &str) -> Vec<Vec<String>> {
    browser
        .split(':')
        .filter_map(|entry| {
            let words: Vec<&str> = entry.split_whitespace().collect();
            if words.is_empty() {
                return None;
            }
            let mut placed = false;
            let mut command: Vec<String> = words
                .iter()
                .map(|word| {
                    let (expanded, had_url) = expand(word, url);
                    placed |= had_url;
                    expanded
                })
                .collect();
            if !placed {
                command.push(url.to_owned());
            }
            Some(command)
        })
        .collect()
}

/// `word` with `%s` replaced by `url` and `%%` by `%`; whether the URL went in.
fn expand(word: &str, url: &str) -> (String, bool) {
    let mut out = String::with_capacity(word.len());
    let mut placed = false;
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('s')) => {
                chars.next();
                out.push_str(url);
                placed = true;
            }
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            _ => out.push(c),
        }
    }
    (out, placed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "http://127.0.0.1:8787/v2/apply?a=1&b=%41";

    #[test]
    fn the_url_goes_after_a_command_without_a_placeholder() {
        assert_eq!(
            browser_commands("firefox --new-tab", URL),
            vec![vec!["firefox", "--new-tab", URL]]
        );
    }

    #[test]
    fn a_placeholder_takes_the_url_where_it_stands() {
        assert_eq!(
            browser_commands("w3m -o open=%s --x%%", URL),
            vec![vec!["w3m", "-o", &format!("open={URL}"), "--x%"]]
        );
    }

    #[test]
    fn entries_are_separated_by_colons_and_empty_ones_skipped() {
        assert_eq!(
            browser_commands(" :chromium: :lynx %s:", URL),
            vec![vec!["chromium", URL], vec!["lynx", URL]]
        );
    }

    #[test]
    fn the_first_command_that_starts_is_used() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-browser");
        // `true` starts and exits at once; the missing one is skipped.
        assert_eq!(
            open_with(&format!("{}:true", missing.display()), URL),
            Ok(())
        );
        let error = open_with(&missing.display().to_string(), URL).unwrap_err();
        assert!(error.contains("no-such-browser"), "{error}");
    }
}
