//! Parsers for the headers the queue paces itself by: `Retry-After`, `Date`, the
//! `X-RateLimit-*` trio and the IETF draft `RateLimit` / `RateLimit-Policy` fields.
//!
//! These read outside input, so they live apart, take plain `&str`s, never panic and answer
//! `None` for anything they do not understand. A wrong guess here would either waste the plan
//! (pausing too long) or earn a ban (not pausing), so the rules are strict: digits only where
//! the RFCs say digits, and the three HTTP-date forms of RFC 9110 §5.6.7 and nothing else.
//! The IETF fields are Structured Fields (RFC 9651), read by the `sfv` crate, one list member
//! at a time, so one malformed member does not hide the others.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use domain_desk_api::RateWindow;
use domain_desk_api::rate_limit::{IETF_POLICY, IETF_RATELIMIT, LIMIT, REMAINING, RESET};
use reqwest::header::HeaderMap;

/// The value of a `Retry-After` header (RFC 9110 §10.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    /// `delay-seconds`: a non-negative decimal integer.
    Delay(Duration),
    /// An HTTP-date: IMF-fixdate, RFC 850 or asctime.
    At(SystemTime),
}

impl RetryAfter {
    /// How long to wait, measured from `server_now` (the response's `Date`, or the local clock
    /// when the response had none). A date in the past means "now".
    pub fn delay_from(self, server_now: SystemTime) -> Duration {
        match self {
            RetryAfter::Delay(delay) => delay,
            RetryAfter::At(at) => at.duration_since(server_now).unwrap_or(Duration::ZERO),
        }
    }
}

/// Parses a `Retry-After` value. Delay-seconds too large for a `u64` saturate rather than
/// fail: a huge wait is still a wait.
pub fn parse_retry_after(value: &str) -> Option<RetryAfter> {
    let value = trim_ows(value);
    if value.is_empty() {
        return None;
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(RetryAfter::Delay(Duration::from_secs(
            parse_digits_saturating(value),
        )));
    }
    parse_http_date(value).map(RetryAfter::At)
}

/// Parses an HTTP-date in any of its three forms:
/// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`.
pub fn parse_http_date(value: &str) -> Option<SystemTime> {
    let value = trim_ows(value);
    if value.is_empty() || !value.is_ascii() {
        return None;
    }
    httpdate::parse_http_date(value).ok()
}

/// Whole seconds since the Unix epoch, for comparing with `X-RateLimit-Reset`.
pub fn unix_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// The three `X-RateLimit-*` headers of one response. They describe the window that binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitHeaders {
    pub limit: u64,
    pub remaining: u64,
    /// Unix timestamp (seconds, platform clock) at which the window resets.
    pub reset: i64,
}

/// Reads the `X-RateLimit-*` trio; `None` unless all three are present and are integers
/// (`Limit` and `Remaining` non-negative).
pub fn parse_rate_limit_headers(headers: &HeaderMap) -> Option<RateLimitHeaders> {
    let limit = parse_non_negative(header_str(headers, LIMIT)?)?;
    let remaining = parse_non_negative(header_str(headers, REMAINING)?)?;
    let reset = parse_integer(header_str(headers, RESET)?)?;
    Some(RateLimitHeaders {
        limit,
        remaining,
        reset,
    })
}

/// A `Date` header, if present and well formed.
pub fn parse_date_header(headers: &HeaderMap) -> Option<SystemTime> {
    parse_http_date(header_str(headers, "date")?)
}

pub fn parse_retry_after_header(headers: &HeaderMap) -> Option<RetryAfter> {
    parse_retry_after(header_str(
        headers,
        domain_desk_api::rate_limit::RETRY_AFTER,
    )?)
}

/// One item of the IETF draft fields: `"minute";r=12;t=30` or `"day";q=10000;w=86400`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IetfItem {
    /// The policy name (`minute`, `day`, or whatever the server calls it).
    pub name: String,
    /// Integer parameters in order: `r` remaining, `t` seconds to reset, `q` quota, `w` window.
    pub params: Vec<(String, i64)>,
}

impl IetfItem {
    pub fn param(&self, key: &str) -> Option<i64> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// The window this item speaks of, when its name or its `w` says so.
    pub fn window(&self) -> Option<RateWindow> {
        match self.name.to_ascii_lowercase().as_str() {
            "minute" => Some(RateWindow::Minute),
            "day" => Some(RateWindow::Day),
            _ => match self.param("w") {
                Some(60) => Some(RateWindow::Minute),
                Some(86_400) => Some(RateWindow::Day),
                _ => None,
            },
        }
    }
}

/// Parses a list of IETF items (a Structured Field List of strings or tokens with integer
/// parameters, RFC 9651). Members that do not parse as an Item whose value is a string or a
/// token are skipped; an empty result means nothing usable. Non-integer parameters are
/// ignored.
pub fn parse_ietf_items(value: &str) -> Vec<IetfItem> {
    split_outside_quotes(value, ',')
        .into_iter()
        .filter_map(parse_ietf_item)
        .collect()
}

/// The IETF `RateLimit` field of a response, parsed.
pub fn parse_ietf_ratelimit_header(headers: &HeaderMap) -> Vec<IetfItem> {
    header_str(headers, IETF_RATELIMIT)
        .map(parse_ietf_items)
        .unwrap_or_default()
}

/// The IETF `RateLimit-Policy` field of a response, parsed.
pub fn parse_ietf_policy_header(headers: &HeaderMap) -> Vec<IetfItem> {
    header_str(headers, IETF_POLICY)
        .map(parse_ietf_items)
        .unwrap_or_default()
}

/// One list member, as an RFC 9651 Item: a string or token with parameters.
fn parse_ietf_item(member: &str) -> Option<IetfItem> {
    let item: sfv::Item = sfv::Parser::new(trim_ows(member)).parse().ok()?;
    let name = match &item.bare_item {
        sfv::BareItem::String(name) => name.as_str().to_owned(),
        sfv::BareItem::Token(name) => name.as_str().to_owned(),
        _ => return None,
    };
    let params = item
        .params
        .iter()
        .filter_map(|(key, value)| Some((key.as_str().to_owned(), i64::from(value.as_integer()?))))
        .collect();
    Some(IetfItem { name, params })
}

/// Splits on `separator` except inside double-quoted strings.
fn split_outside_quotes(value: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut in_quotes = false;
    let mut escaped = false;
    for (index, c) in value.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            c if c == separator && !in_quotes => {
                parts.push(&value[start..index]);
                start = index + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&value[start..]);
    parts
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name)?.to_str().ok()
}

/// Optional whitespace around a field value: spaces and tabs only.
fn trim_ows(value: &str) -> &str {
    value.trim_matches([' ', '\t'])
}

fn parse_digits_saturating(digits: &str) -> u64 {
    digits.bytes().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    })
}

/// A non-negative decimal integer of at most 19 digits; nothing else (no sign, no spaces
/// inside, no fraction).
fn parse_non_negative(value: &str) -> Option<u64> {
    let value = trim_ows(value);
    if value.is_empty() || value.len() > 19 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

/// A decimal integer with an optional leading minus (directly before the digits: `- 24` is
/// not a number).
fn parse_integer(value: &str) -> Option<i64> {
    let value = trim_ows(value);
    let (negative, digits) = match value.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    if digits.starts_with([' ', '\t']) {
        return None;
    }
    let magnitude = i64::try_from(parse_non_negative(digits)?).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderName, HeaderValue};

    fn at(unix: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(unix)
    }

    /// 1994-11-06T08:49:37Z, the RFC's own example.
    const RFC_EXAMPLE: u64 = 784_111_777;

    #[test]
    fn retry_after_delay_seconds() {
        assert_eq!(
            parse_retry_after("120"),
            Some(RetryAfter::Delay(Duration::from_secs(120)))
        );
        assert_eq!(
            parse_retry_after(" 0\t"),
            Some(RetryAfter::Delay(Duration::ZERO))
        );
        assert_eq!(
            parse_retry_after("99999999999999999999999"),
            Some(RetryAfter::Delay(Duration::from_secs(u64::MAX)))
        );
    }

    #[test]
    fn retry_after_imf_fixdate() {
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(RetryAfter::At(at(RFC_EXAMPLE)))
        );
    }

    #[test]
    fn retry_after_rfc850_date() {
        assert_eq!(
            parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT"),
            Some(RetryAfter::At(at(RFC_EXAMPLE)))
        );
    }

    #[test]
    fn retry_after_asctime_date() {
        assert_eq!(
            parse_retry_after("Sun Nov  6 08:49:37 1994"),
            Some(RetryAfter::At(at(RFC_EXAMPLE)))
        );
    }

    #[test]
    fn retry_after_rejects_what_is_neither_form() {
        for bad in [
            "",
            "  ",
            "-5",
            "+5",
            "1.5",
            "5s",
            "soon",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "2026-11-21T10:00:00Z",
            "Sün, 06 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_retry_after(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn retry_after_date_is_measured_from_the_servers_now() {
        let value = parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT").unwrap();
        assert_eq!(
            value.delay_from(at(RFC_EXAMPLE)),
            Duration::from_secs(30),
            "30 s after the Date header, whatever the local clock says"
        );
        assert_eq!(
            value.delay_from(at(RFC_EXAMPLE + 100)),
            Duration::ZERO,
            "a date in the past means now"
        );
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    #[test]
    fn rate_limit_trio_is_read_when_complete() {
        let map = headers(&[
            ("X-RateLimit-Limit", "300"),
            ("X-RateLimit-Remaining", "12"),
            ("X-RateLimit-Reset", "1795000000"),
        ]);
        assert_eq!(
            parse_rate_limit_headers(&map),
            Some(RateLimitHeaders {
                limit: 300,
                remaining: 12,
                reset: 1_795_000_000
            })
        );
    }

    #[test]
    fn rate_limit_trio_with_a_bad_member_is_ignored() {
        for (limit, remaining, reset) in [
            ("300", "-1", "1795000000"),
            ("300", "1.0", "1795000000"),
            ("x", "1", "1795000000"),
            ("300", "1", "tomorrow"),
            ("300", "1", "99999999999999999999"),
        ] {
            let map = headers(&[
                ("x-ratelimit-limit", limit),
                ("x-ratelimit-remaining", remaining),
                ("x-ratelimit-reset", reset),
            ]);
            assert_eq!(
                parse_rate_limit_headers(&map),
                None,
                "{limit} {remaining} {reset}"
            );
        }
        let missing = headers(&[("x-ratelimit-limit", "1"), ("x-ratelimit-remaining", "1")]);
        assert_eq!(parse_rate_limit_headers(&missing), None);
    }

    #[test]
    fn date_header_in_any_form() {
        let map = headers(&[("date", "Sun, 06 Nov 1994 08:49:37 GMT")]);
        assert_eq!(parse_date_header(&map), Some(at(RFC_EXAMPLE)));
        assert_eq!(parse_date_header(&headers(&[("date", "yesterday")])), None);
        assert_eq!(parse_date_header(&HeaderMap::new()), None);
    }

    #[test]
    fn ietf_fields_parse_names_and_integer_parameters() {
        let items = parse_ietf_items(r#""minute";q=300;w=60, "day";q=10000;w=86400"#);
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].name, "minute");
        assert_eq!(items[0].param("q"), Some(300));
        assert_eq!(items[0].window(), Some(RateWindow::Minute));
        assert_eq!(items[1].param("w"), Some(86_400));
        assert_eq!(items[1].window(), Some(RateWindow::Day));

        let current = parse_ietf_items(r#""minute";r=12;t=30"#);
        assert_eq!(current[0].param("r"), Some(12));
        assert_eq!(current[0].param("t"), Some(30));

        let token = parse_ietf_items("burst;r=1;t=5;x=\"text\"");
        assert_eq!(token[0].name, "burst");
        assert_eq!(token[0].params, vec![("r".into(), 1), ("t".into(), 5)]);
        assert_eq!(token[0].window(), None);
    }

    #[test]
    fn ietf_fields_skip_garbage_without_panicking() {
        for junk in [
            "",
            ",,,",
            "\"unterminated;r=1",
            "1abc;r=2",
            ";;;",
            "\"a\\\"b\";r=1",
            "é;r=1",
        ] {
            let items = parse_ietf_items(junk);
            assert!(
                items.iter().all(|i| !i.name.is_empty()),
                "{junk:?} -> {items:?}"
            );
        }
        let mixed = parse_ietf_items(r#"1bad;r=1, "good";r=2"#);
        assert_eq!(mixed.len(), 1);
        assert_eq!(mixed[0].name, "good");
    }

    #[test]
    fn ietf_members_follow_rfc_9651() {
        // escapes inside strings are undone; a later parameter with the same key wins
        let items = parse_ietf_items(r#""a\"b";r=1;r=2, "c\\d";t=3"#);
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(items[0].name, "a\"b");
        assert_eq!(items[0].params, vec![("r".into(), 2)]);
        assert_eq!(items[1].name, "c\\d");
        // a member that is not a string or token, an inner list, or a key that is not
        // lowercase is not an item the queue can use
        for unusable in ["5;r=1", "(a b);r=1", "?1;r=1", "\"m\";R=1", "\"m\";r=1.5x"] {
            assert_eq!(parse_ietf_items(unusable), vec![], "{unusable:?}");
        }
        // a decimal or a boolean parameter is skipped, its integer neighbours kept
        let mixed = parse_ietf_items(r#""minute";r=1.5;t=30;x=?1"#);
        assert_eq!(mixed[0].params, vec![("t".into(), 30)]);
    }

    #[test]
    fn a_minus_sign_apart_from_its_digits_is_not_a_number() {
        // Found by the `rate_limit_headers` fuzz target: "- 24" was read as -24.
        assert_eq!(parse_integer("-\t 24"), None);
        assert_eq!(parse_integer(" - 24"), None);
        assert_eq!(parse_integer(" -24\t"), Some(-24));
        assert_eq!(parse_integer("\t24 "), Some(24));
    }

    #[test]
    fn random_input_never_panics() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let alphabet: Vec<char> = "0123456789 ,;=\"\\-+.:abcdefGMTSunNov\té日\u{0}"
            .chars()
            .collect();
        for _ in 0..20_000 {
            let len = rng.gen_range(0..40);
            let text: String = (0..len)
                .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
                .collect();
            let _ = parse_retry_after(&text);
            let _ = parse_ietf_items(&text);
            let _ = parse_http_date(&text);
            let _ = parse_integer(&text);
        }
    }

    #[test]
    fn unix_seconds_round_trips_both_sides_of_the_epoch() {
        assert_eq!(unix_seconds(at(RFC_EXAMPLE)), RFC_EXAMPLE as i64);
        assert_eq!(unix_seconds(UNIX_EPOCH - Duration::from_secs(5)), -5);
    }
}
