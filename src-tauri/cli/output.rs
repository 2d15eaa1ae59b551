//! What the command line prints and the exit status it ends with.
//!
//! Exit statuses mean the same in every subcommand, so scripts can branch on them:
//! 0 done; 1 a domain is not live or a check failed; 2 a usage mistake; 3 the key was refused
//! or is missing; 4 rate limited, and waiting was refused with `--no-wait` (or the key is
//! banned).

use std::process::ExitCode;

use domain_desk_api::{Domain, wire_name};
use unicode_width::UnicodeWidthStr;

/// A subcommand's failure: what to print and the status to exit with.
#[derive(Debug)]
pub struct Failure {
    pub status: u8,
    pub message: String,
}

pub const CHECK_FAILED: u8 = 1;
pub const USAGE: u8 = 2;
pub const AUTH: u8 = 3;
pub const RATE_LIMITED: u8 = 4;

impl Failure {
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            status: USAGE,
            message: message.into(),
        }
    }

    pub fn check(message: impl Into<String>) -> Self {
        Self {
            status: CHECK_FAILED,
            message: message.into(),
        }
    }

    pub fn auth(message: impl Into<String>) -> Self {
        Self {
            status: AUTH,
            message: message.into(),
        }
    }

    pub fn rate_limited(message: impl Into<String>) -> Self {
        Self {
            status: RATE_LIMITED,
            message: message.into(),
        }
    }

    pub fn exit(self) -> ExitCode {
        if !self.message.is_empty() {
            report_error(&self.message);
        }
        ExitCode::from(self.status)
    }
}

impl From<domain_desk_client::Error> for Failure {
    fn from(err: domain_desk_client::Error) -> Self {
        let message = err.to_string();
        if err.is_unauthorized() {
            Failure::auth(message)
        } else if err.is_rate_limited() || err.is_banned() {
            Failure::rate_limited(message)
        } else if matches!(err, domain_desk_client::Error::InvalidInput(_)) {
            Failure::usage(message)
        } else if let domain_desk_client::Error::BrowserNotOpened { url, .. } = &err {
            Failure::check(format!("{message} Open this link yourself:\n  {url}"))
        } else {
            Failure::check(message)
        }
    }
}

impl From<domain_desk_app::Error> for Failure {
    fn from(err: domain_desk_app::Error) -> Self {
        use domain_desk_app::Error;
        match err {
            Error::Api(err) => err.into(),
            Error::InvalidInput(message) => Failure::usage(message),
            Error::Keyring(_) | Error::KeyDestination { .. } => Failure::auth(err.to_string()),
            other => Failure::check(other.to_string()),
        }
    }
}

impl From<crate::Error> for Failure {
    fn from(err: crate::Error) -> Self {
        match err {
            crate::Error::App(err) => err.into(),
            crate::Error::InvalidInput(message) => Failure::usage(message),
            other => Failure::check(other.to_string()),
        }
    }
}

impl From<domain_desk_bulk::Error> for Failure {
    fn from(err: domain_desk_bulk::Error) -> Self {
        match err {
            domain_desk_bulk::Error::Client(err) => err.into(),
            other => Failure::check(other.to_string()),
        }
    }
}

pub type Outcome = Result<(), Failure>;

/// Prints a failure on standard error, named for the program.
pub fn report_error(err: &dyn std::fmt::Display) {
    eprintln!("domain-desk: {err}");
}

/// Prints `value` as indented JSON on standard output.
pub fn print_json(value: &impl serde::Serialize) -> Outcome {
    let text = serde_json::to_string_pretty(value)
        .map_err(|err| Failure::check(format!("could not write JSON: {err}")))?;
    println!("{text}");
    Ok(())
}

/// Columns padded to their widest cell, two spaces apart. Widths are measured in terminal
/// columns (a CJK character or an emoji takes two, a combining mark none), so hostnames in any
/// script line up.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(width) = widths.get_mut(i) {
                *width = (*width).max(cell.width());
            }
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                out.push_str(cell);
            } else {
                out.push_str(cell);
                out.push_str(&" ".repeat(widths[i].saturating_sub(cell.width()) + 2));
            }
        }
        out.trim_end().to_owned()
    };
    let mut out = line(header.to_vec());
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

/// Text from the network, made safe for a terminal: control characters (escape sequences
/// included), line separators and bidirectional controls are shown escaped rather than acted
/// on. One escaping for every terminal line the program prints: the doctor's
/// ([`domain_desk_doctor::escape::terminal`]).
pub fn inert(value: &str) -> String {
    domain_desk_doctor::escape::terminal(value)
}

/// The record to create, as one line: `CNAME shop → target (TTL 3600)`.
pub fn record_line(domain: &Domain) -> String {
    let record = &domain.dns_record;
    format!(
        "{} {} → {} (TTL {})",
        wire_name(&record.record_type),
        inert(&record.name),
        inert(&record.value),
        record.ttl
    )
}

/// Seconds as `1h02m`, `3m05s`, `12s`.
pub fn duration(duration: std::time::Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 3600 {
        format!("{}h{:02}m", secs / 3600, (secs % 3600) / 60)
    } else if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{secs}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_columns_and_escape_nothing_they_are_not_given() {
        let text = table(
            &["A", "BB"],
            &[
                vec!["long cell".into(), "x".into()],
                vec!["y".into(), "z".into()],
            ],
        );
        assert_eq!(text, "A          BB\nlong cell  x\ny          z\n");
    }

    /// Wide characters take two columns: the column after a Unicode hostname starts where
    /// it starts after an ASCII one.
    #[test]
    fn columns_line_up_after_wide_unicode_hostnames() {
        let text = table(
            &["HOSTNAME", "STATUS"],
            &[
                vec!["www.example.com".into(), "live".into()],
                vec!["例え.テスト.jp".into(), "pending".into()],
                vec!["café.example".into(), "live".into()],
                vec!["👍.example".into(), "live".into()],
            ],
        );
        let columns: Vec<usize> = text
            .lines()
            .map(|line| {
                let status = line.rfind("  ").expect("two columns") + 2;
                line[..status].width()
            })
            .collect();
        assert_eq!(columns, [17; 5], "{text}");
        assert!(text.contains("例え.テスト.jp   pending"), "{text}");
    }

    #[test]
    fn terminal_escapes_from_the_network_are_shown_not_obeyed() {
        assert_eq!(inert("ok\u{1b}[2Jx\n"), "ok\\027[2Jx\\010");
    }

    /// "Trojan Source": a bidirectional override in a hostname or a message from the API
    /// would reorder what the terminal shows; each is shown as its escape, as the doctor's
    /// report shows them.
    #[test]
    fn bidirectional_controls_are_shown_not_obeyed() {
        let controls = ('\u{202a}'..='\u{202e}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(['\u{200e}', '\u{200f}', '\u{061c}']);
        for control in controls {
            let shown = inert(&format!("a{control}b"));
            assert_eq!(shown, format!("a\\u{{{:x}}}b", u32::from(control)));
        }
        assert_eq!(inert("shop.example.com"), "shop.example.com");
        assert_eq!(inert("例え.テスト.jp"), "例え.テスト.jp");
    }

    #[test]
    fn durations_read_like_a_clock() {
        use std::time::Duration;
        assert_eq!(duration(Duration::from_secs(12)), "12s");
        assert_eq!(duration(Duration::from_secs(185)), "3m05s");
        assert_eq!(duration(Duration::from_secs(3720)), "1h02m");
    }
}
