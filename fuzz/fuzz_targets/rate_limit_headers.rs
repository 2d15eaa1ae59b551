//! The `X-RateLimit-*` trio and the IETF `RateLimit` / `RateLimit-Policy` fields come from
//! whatever answers the client: any header values parse or are refused without a panic, the
//! trio is read only when all three are plain integers, and an IETF item printed back parses
//! to the same item.
#![no_main]

use domain_desk_api::rate_limit::{IETF_POLICY, IETF_RATELIMIT, LIMIT, REMAINING, RESET};
use domain_desk_client::headers::{self, IetfItem};
use http::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;

fn printed(item: &IetfItem) -> String {
    // An RFC 9651 String: `\` and `"` escaped.
    let name = item.name.replace('\\', "\\\\").replace('"', "\\\"");
    let mut text = format!("\"{name}\"");
    for (key, value) in &item.params {
        text.push_str(&format!(";{key}={value}"));
    }
    text
}

fn is_plain_integer(value: &str, signed: bool) -> bool {
    let value = value.trim_matches([' ', '\t']);
    let digits = if signed {
        value.strip_prefix('-').unwrap_or(value)
    } else {
        value
    };
    !digits.is_empty() && digits.len() <= 19 && digits.bytes().all(|b| b.is_ascii_digit())
}

fuzz_target!(|data: &[u8]| {
    // Five values separated by newlines: Limit, Remaining, Reset, RateLimit, RateLimit-Policy.
    let fields: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let names = [LIMIT, REMAINING, RESET, IETF_RATELIMIT, IETF_POLICY];
    let mut map = HeaderMap::new();
    for (name, value) in names.iter().zip(&fields) {
        if let Ok(value) = HeaderValue::from_bytes(value) {
            map.insert(HeaderName::from_static(name), value);
        }
    }

    if let Some(trio) = headers::parse_rate_limit_headers(&map) {
        let text = |name: &str| map.get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
        assert!(is_plain_integer(text(LIMIT), false));
        assert!(is_plain_integer(text(REMAINING), false));
        assert!(is_plain_integer(text(RESET), true));
        assert_eq!(
            text(LIMIT).trim_matches([' ', '\t']).parse::<u64>().ok(),
            Some(trio.limit)
        );
    }

    for items in [
        headers::parse_ietf_ratelimit_header(&map),
        headers::parse_ietf_policy_header(&map),
    ] {
        for item in items {
            let _ = item.window();
            let again = headers::parse_ietf_items(&printed(&item));
            assert_eq!(again, vec![item.clone()], "{}", printed(&item));
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = headers::parse_ietf_items(text);
    }
});
