//! What the demo DNS provider accepts as a record, and how a stored record becomes DNS data.
//!
//! Values are checked and normalised when they are added (an A record must be an IPv4 address,
//! a CNAME a hostname, a CAA record its presentation form) so the server never meets a value it
//! cannot encode and the provider's list shows each value the way a provider would.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use domain_desk_api::caa::CaaRecord;
use domain_desk_api::local::ZoneRecordType;
use hickory_proto::rr::rdata::{A, AAAA, CNAME, TXT};
use hickory_proto::rr::{Name, RData, Record};
use hickory_proto::serialize::binary::BinDecodable;

use crate::{Error, Result};

/// The TTL a record gets when the request names none (what the platform asks customers for).
pub const DEFAULT_TTL: u32 = 3600;

/// The largest TTL accepted: RFC 2181 caps it at 2^31 - 1; a week is plenty for a demo.
pub const MAX_TTL: u32 = 604_800;

/// Checks a record's value for its type and returns the normalised presentation form.
pub fn normalise_value(record_type: ZoneRecordType, value: &str) -> Result<String> {
    let value = value.trim();
    match record_type {
        ZoneRecordType::A => Ipv4Addr::from_str(value)
            .map(|address| address.to_string())
            .map_err(|_| {
                invalid(format!(
                    "An A record needs an IPv4 address such as 192.0.2.1, not {value:?}."
                ))
            }),
        ZoneRecordType::Aaaa => Ipv6Addr::from_str(value)
            .map(|address| address.to_string())
            .map_err(|_| {
                invalid(format!(
                    "An AAAA record needs an IPv6 address such as 2001:db8::1, not {value:?}."
                ))
            }),
        ZoneRecordType::Cname | ZoneRecordType::Alias => {
            normalise_hostname(value).ok_or_else(|| {
                invalid(format!(
                    "A {} record needs a hostname such as target.example.net, not {value:?}.",
                    record_type.as_str()
                ))
            })
        }
        ZoneRecordType::Caa => CaaRecord::parse(value)
            .map(|record| record.to_presentation())
            .map_err(|error| invalid(format!("Invalid CAA record: {error}"))),
        ZoneRecordType::Txt => {
            if value.is_empty() {
                Err(invalid("A TXT record needs some text.".to_owned()))
            } else if value.len() > 2048 {
                Err(invalid(
                    "A TXT record can hold at most 2048 characters here.".to_owned(),
                ))
            } else {
                Ok(value.trim_matches('"').to_owned())
            }
        }
    }
}

/// Lowercase, no trailing dot, every label 1 to 63 letters, digits, hyphens or underscores.
pub fn normalise_hostname(value: &str) -> Option<String> {
    let name = value.trim().trim_end_matches('.').to_ascii_lowercase();
    let valid = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
                && !label.starts_with('-')
                && !label.ends_with('-')
        });
    valid.then_some(name)
}

/// Normalises a record name given relative to `zone` (`shop`, `@`, or the full name with or
/// without a trailing dot) to the relative form the provider stores (`shop`, `@`).
pub fn normalise_relative_name(zone: &str, name: &str) -> Result<String> {
    let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty() || name == "@" || name == zone {
        return Ok("@".to_owned());
    }
    let relative = name
        .strip_suffix(&format!(".{zone}"))
        .unwrap_or(&name)
        .to_owned();
    // A wildcard record (RFC 4592): a single `*` as the leftmost label, `*` or `*.shop`.
    let below_wildcard = match relative.strip_prefix('*') {
        Some("") => None,
        Some(rest) => Some(rest.strip_prefix('.').unwrap_or("*")),
        None => Some(relative.as_str()),
    };
    if below_wildcard.is_some_and(|rest| rest.contains('*')) {
        return Err(invalid_name(
            "A wildcard record's name has a single * as its leftmost label (* or *.shop); no other * is allowed.".to_owned(),
        ));
    }
    if below_wildcard.is_some_and(|rest| normalise_hostname(rest).is_none()) {
        return Err(invalid_name(format!(
            "{relative:?} is not a valid record name: use letters, digits, hyphens and underscores, labels separated by dots."
        )));
    }
    if relative.len() + zone.len() + 1 > 253 {
        return Err(invalid_name(
            "The record's full name is longer than 253 characters.".to_owned(),
        ));
    }
    Ok(relative)
}

/// The absolute owner name (`shop.example.com`) of a relative name in `zone`.
pub fn absolute_name(zone: &str, relative: &str) -> String {
    if relative == "@" {
        zone.to_owned()
    } else {
        format!("{relative}.{zone}")
    }
}

/// A DNS name from a normalised hostname (a fully qualified `Name`).
pub fn dns_name(hostname: &str) -> Result<Name> {
    Name::from_ascii(format!("{hostname}."))
        .map_err(|error| invalid(format!("{hostname:?} is not a DNS name: {error}")))
}

/// The wire record for a stored value of a record type that is served as itself (not ALIAS,
/// which the server flattens). `owner` and the value are normalised already.
pub fn to_record(
    owner: &Name,
    record_type: ZoneRecordType,
    value: &str,
    ttl: u32,
) -> Result<Record> {
    let rdata = match record_type {
        ZoneRecordType::A => RData::A(A(Ipv4Addr::from_str(value).map_err(|_| stored(value))?)),
        ZoneRecordType::Aaaa => {
            RData::AAAA(AAAA(Ipv6Addr::from_str(value).map_err(|_| stored(value))?))
        }
        ZoneRecordType::Cname => RData::CNAME(CNAME(dns_name(value)?)),
        ZoneRecordType::Txt => RData::TXT(TXT::new(
            value
                .as_bytes()
                .chunks(255)
                .map(|chunk| String::from_utf8_lossy(chunk).into_owned())
                .collect(),
        )),
        ZoneRecordType::Caa => return caa_record(owner, value, ttl),
        ZoneRecordType::Alias => {
            return Err(Error::Internal(
                "an ALIAS record is flattened, never served as itself".to_owned(),
            ));
        }
    };
    Ok(Record::from_rdata(owner.clone(), ttl, rdata))
}

/// Builds a CAA record byte for byte from its presentation form (flags, tag, value), so tags
/// and flags unknown to the DNS library (a critical unknown tag, for one) are served as written.
fn caa_record(owner: &Name, presentation: &str, ttl: u32) -> Result<Record> {
    let caa = CaaRecord::parse(presentation).map_err(|_| stored(presentation))?;
    let tag = caa.tag.as_bytes();
    let value = caa.value.as_bytes();
    let rdata_len = 2 + tag.len() + value.len();
    let rdata_len = u16::try_from(rdata_len).map_err(|_| stored(presentation))?;
    let tag_len = u8::try_from(tag.len()).map_err(|_| stored(presentation))?;
    // A whole resource record in wire form with the root as owner: name, type 257 (CAA),
    // class IN, TTL, RDLENGTH, then flags, tag length, tag and value.
    let mut wire = vec![0u8];
    wire.extend_from_slice(&257u16.to_be_bytes());
    wire.extend_from_slice(&1u16.to_be_bytes());
    wire.extend_from_slice(&ttl.to_be_bytes());
    wire.extend_from_slice(&rdata_len.to_be_bytes());
    wire.push(caa.flags);
    wire.push(tag_len);
    wire.extend_from_slice(tag);
    wire.extend_from_slice(value);
    let mut record = Record::from_bytes(&wire).map_err(|error| {
        Error::Internal(format!(
            "CAA record {presentation:?} did not encode: {error}"
        ))
    })?;
    record.name = owner.clone();
    Ok(record)
}

/// Presentation form of a CAA record received over DNS, for the CA's evaluation.
pub fn caa_from_rdata(rdata: &RData) -> Option<CaaRecord> {
    match rdata {
        RData::CAA(caa) => {
            let flags = if caa.issuer_critical { 0b1000_0000 } else { 0 };
            // The three tags RFC 8659 defines in lowercase (tags match case-insensitively), any
            // other as written, as hickory up to 0.25 read them (0.26 keeps every tag as sent).
            let tag = match caa.tag.to_ascii_lowercase() {
                known if matches!(known.as_str(), "issue" | "issuewild" | "iodef") => known,
                _ => caa.tag.clone(),
            };
            Some(CaaRecord::new(
                flags,
                tag,
                String::from_utf8_lossy(&caa.value).into_owned(),
            ))
        }
        _ => None,
    }
}

fn invalid(message: String) -> Error {
    Error::validation("value", message)
}

fn invalid_name(message: String) -> Error {
    Error::validation("name", message)
}

fn stored(value: &str) -> Error {
    Error::Internal(format!("a stored record value no longer parses: {value:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_for_their_type() {
        assert_eq!(
            normalise_value(ZoneRecordType::A, " 192.0.2.1 ").unwrap(),
            "192.0.2.1"
        );
        assert!(normalise_value(ZoneRecordType::A, "2001:db8::1").is_err());
        assert!(normalise_value(ZoneRecordType::A, "shop.example.com").is_err());
        assert_eq!(
            normalise_value(ZoneRecordType::Aaaa, "2001:DB8::1").unwrap(),
            "2001:db8::1"
        );
        assert!(normalise_value(ZoneRecordType::Aaaa, "192.0.2.1").is_err());
        assert_eq!(
            normalise_value(ZoneRecordType::Cname, "Edge.Example.NET.").unwrap(),
            "edge.example.net"
        );
        assert!(normalise_value(ZoneRecordType::Cname, "not a name").is_err());
        assert!(normalise_value(ZoneRecordType::Alias, "").is_err());
        assert_eq!(
            normalise_value(ZoneRecordType::Caa, "0 issue letsencrypt.org").unwrap(),
            "0 issue \"letsencrypt.org\""
        );
        assert!(normalise_value(ZoneRecordType::Caa, "issue letsencrypt.org").is_err());
        assert!(normalise_value(ZoneRecordType::Txt, "").is_err());
    }

    #[test]
    fn names_are_made_relative_to_the_zone() {
        assert_eq!(normalise_relative_name("example.com", "@").unwrap(), "@");
        assert_eq!(
            normalise_relative_name("example.com", "example.com.").unwrap(),
            "@"
        );
        assert_eq!(
            normalise_relative_name("example.com", "Shop").unwrap(),
            "shop"
        );
        assert_eq!(
            normalise_relative_name("example.com", "a.b.example.com").unwrap(),
            "a.b"
        );
        assert_eq!(
            normalise_relative_name("example.com", "_acme-challenge").unwrap(),
            "_acme-challenge"
        );
        assert_eq!(
            normalise_relative_name("example.com", "*.Shop").unwrap(),
            "*.shop"
        );
        assert_eq!(
            normalise_relative_name("example.com", "*.example.com").unwrap(),
            "*"
        );
        for bad in ["a.*", "*.*", "*x", "x*.shop", "**"] {
            assert!(
                normalise_relative_name("example.com", bad).is_err(),
                "{bad}"
            );
        }
        assert!(normalise_relative_name("example.com", "a..b").is_err());
    }

    #[test]
    fn caa_records_keep_unknown_critical_tags() {
        let owner = dns_name("example.org").unwrap();
        let record = to_record(&owner, ZoneRecordType::Caa, "128 tbs \"Unknown\"", 60).unwrap();
        let caa = caa_from_rdata(&record.data).unwrap();
        assert_eq!(caa, CaaRecord::new(128, "tbs", "Unknown"));
        assert_eq!(record.name, owner);
        let record = to_record(
            &owner,
            ZoneRecordType::Caa,
            "0 issuewild \"ca.example\"",
            60,
        )
        .unwrap();
        assert_eq!(
            caa_from_rdata(&record.data).unwrap(),
            CaaRecord::new(0, "issuewild", "ca.example")
        );
    }
}
