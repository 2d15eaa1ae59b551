//! Names, addresses and numbers in presentation form, written without the formatting
//! machinery: each answer holds its server's address and tens of names, and `format!` cost
//! more than reading the answer. One definition shared by the record presentation
//! (`answer.rs`), the wire reader (`wire.rs`) and the question writer (`query.rs`), with a
//! plain name's wire form (which the writer sends and the reader matches); it imports
//! nothing of theirs.

use std::net::{Ipv4Addr, SocketAddr};

/// A label of letters, digits, `-` and `_` only, not starting with `-`: its presentation is
/// its bytes, unescaped (hickory writes a leading `-` as `\-`; the fuzzer found the reader
/// and hickory disagreeing on `-ostmaster` in a SOA).
pub(crate) fn is_plain_label(label: &[u8]) -> bool {
    label.first() != Some(&b'-') && label.iter().all(|byte| is_plain_byte(*byte))
}

/// A byte a plain label may hold: a letter, a digit, `-` or `_`. The one definition the
/// presentation, the wire reader's table and the question writer share.
pub(crate) const fn is_plain_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_'
}

/// Appends a label that [`is_plain_label`], lowercase.
pub(crate) fn push_plain_label(text: &mut String, label: &[u8]) {
    // A plain label is ASCII, so it is always UTF-8; copied as one slice (a char at a time
    // cost two hundred instructions a label), then lowercased in place.
    let from = text.len();
    match std::str::from_utf8(label) {
        Ok(label) => text.push_str(label),
        Err(_) => text.push_str(&String::from_utf8_lossy(label)),
    }
    text[from..].make_ascii_lowercase();
}

/// `address:port` as `SocketAddr`'s `Display` writes it; an IPv4 one without the formatting
/// machinery, which cost more than a DNS question's parsing (each answer names its server).
pub(crate) fn server_text(server: SocketAddr) -> String {
    match server {
        SocketAddr::V4(v4) => {
            let mut text = String::with_capacity(21);
            push_ipv4(&mut text, *v4.ip());
            text.push(':');
            push_decimal(&mut text, u32::from(v4.port()));
            text
        }
        SocketAddr::V6(v6) => v6.to_string(),
    }
}

pub(crate) fn ipv4_text(address: Ipv4Addr) -> String {
    let mut text = String::with_capacity(15);
    push_ipv4(&mut text, address);
    text
}

fn push_ipv4(text: &mut String, address: Ipv4Addr) {
    for (index, octet) in address.octets().into_iter().enumerate() {
        if index > 0 {
            text.push('.');
        }
        push_decimal(text, u32::from(octet));
    }
}

pub(crate) fn push_decimal(text: &mut String, mut value: u32) {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    loop {
        start -= 1;
        // a digit: 0-9
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    text.extend(digits[start..].iter().map(|digit| char::from(*digit)));
}

/// Lowercase, without the trailing dot.
pub fn normalise_name(name: &str) -> String {
    trimmed(name).to_ascii_lowercase()
}

/// `name` without surrounding space and the trailing dot: what [`normalise_name`] lowercases.
fn trimmed(name: &str) -> &str {
    let name = name.trim();
    name.strip_suffix('.').unwrap_or(name)
}

/// True when `normalised == normalise_name(name)`, without making the normalised copy: the
/// checks compare names of records with names they were given many times per hostname.
pub(crate) fn is_normalised(normalised: &str, name: &str) -> bool {
    let name = trimmed(name);
    // ASCII lowercasing leaves every other byte (and so the length) as it is
    normalised.len() == name.len()
        && normalised
            .bytes()
            .zip(name.bytes())
            .all(|(normal, byte)| normal == byte.to_ascii_lowercase())
}

/// A plain name on the wire, written in one pass; `None` for any other name.
pub(super) fn plain_wire_name(name: &str) -> Option<Vec<u8>> {
    // the root's byte and one length byte per label: the text's length plus two
    let encoded_length = name.len() + 2;
    if name.is_empty() || encoded_length > MAX_NAME_LENGTH {
        return None;
    }
    let mut encoded = Vec::with_capacity(encoded_length);
    // where the label being copied keeps its length byte, filled in when it ends
    let mut length_at = 0;
    encoded.push(0);
    for &byte in name.as_bytes() {
        let first = encoded.len() == length_at + 1;
        if byte == b'.' {
            encoded[length_at] = label_length(encoded.len() - length_at - 1)?;
            length_at = encoded.len();
            encoded.push(0);
        } else if is_plain_byte(byte) && !(byte == b'-' && first) {
            encoded.push(byte);
        } else {
            return None;
        }
    }
    encoded[length_at] = label_length(encoded.len() - length_at - 1)?;
    encoded.push(0);
    Some(encoded)
}

/// A label's length byte: 1–63, else `None`.
fn label_length(length: usize) -> Option<u8> {
    if (1..=MAX_LABEL_LENGTH).contains(&length) {
        u8::try_from(length).ok()
    } else {
        None
    }
}

/// The longest label and the longest name on the wire (RFC 1035 §2.3.4).
const MAX_LABEL_LENGTH: usize = 63;
const MAX_NAME_LENGTH: usize = 255;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_as_display_writes_them() {
        for server in [
            "0.0.0.0:0",
            "127.0.0.1:53",
            "255.255.255.255:65535",
            "10.20.3.4:5353",
            "192.0.2.10:1",
            "[::1]:53",
            "[2001:db8::1]:8053",
        ] {
            let server: SocketAddr = server.parse().unwrap();
            assert_eq!(server_text(server), server.to_string());
        }
        for address in ["0.0.0.0", "1.2.3.4", "100.64.10.255", "192.0.2.10"] {
            let address: Ipv4Addr = address.parse().unwrap();
            assert_eq!(ipv4_text(address), address.to_string());
        }
    }

    #[test]
    fn a_name_is_matched_as_its_normalised_copy_would_be() {
        let names = [
            "www.example.com",
            "WWW.Example.COM.",
            " www.example.com. ",
            "www.example.com..",
            "www.example.co",
            "www.example.comm",
            "b\u{fc}cher.example",
            "B\u{dc}CHER.example",
            ".",
            "",
            "xn--bcher-kva.example",
        ];
        for normalised in names.map(normalise_name) {
            for name in names {
                assert_eq!(
                    is_normalised(&normalised, name),
                    normalised == normalise_name(name),
                    "{normalised:?} against {name:?}"
                );
            }
        }
        // a normalised name is only ever lowercase: an uppercase "normalised" side never matches
        assert!(!is_normalised("WWW.example.com", "www.example.com"));
    }
}
