//! `Retry-After` and `Date` come from whatever answers the client: any value parses or is
//! refused without a panic, a delay is exactly its digits (saturating), and a date printed back
//! in the preferred IMF-fixdate form parses to the same instant.
#![no_main]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use domain_desk_client::headers::{self, RetryAfter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let retry_after = headers::parse_retry_after(text);
    let trimmed = text.trim_matches([' ', '\t']);
    match retry_after {
        Some(RetryAfter::Delay(delay)) => {
            assert!(!trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()));
            let exact = trimmed.parse::<u64>().unwrap_or(u64::MAX);
            assert_eq!(delay, Duration::from_secs(exact));
        }
        Some(RetryAfter::At(at)) => {
            assert_eq!(headers::parse_http_date(text), Some(at));
        }
        None => {}
    }
    if let Some(at) = headers::parse_http_date(text) {
        let printed = httpdate::fmt_http_date(at);
        assert_eq!(headers::parse_http_date(&printed), Some(at), "{printed}");
        let _ = headers::unix_seconds(at);
    }
    if let Some(retry_after) = retry_after {
        // Measured from any server time, before or after the epoch: no panic, no overflow.
        for server_now in [
            UNIX_EPOCH,
            SystemTime::now(),
            UNIX_EPOCH + Duration::from_secs(253_402_300_799),
        ] {
            let _ = retry_after.delay_from(server_now);
        }
    }
});
