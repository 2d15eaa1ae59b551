//! Apex or subdomain: from the Public Suffix List (bundled, so it works offline) and from the
//! SOA servers return, and so whether the customer needs a CNAME or an ALIAS/ANAME record.
//!
//! The list alone is not enough: a subdomain delegated as its own zone has an SOA and NS at
//! its name, where a CNAME is not allowed either.

use domain_desk_api::Hostname;

use crate::report::{ChangeAction, Finding, FindingCode, NameKind, RecordChange, Severity};

/// Classifies `hostname`; `soa_zone` is the owner of the SOA record a server returned for a
/// question at the name (the zone it lives in), when one did.
pub fn classify(hostname: &Hostname, soa_zone: Option<&str>) -> NameKind {
    let name = hostname.as_str();
    let registrable = hostname.registrable_domain().to_owned();
    let zone = soa_zone
        .map(|zone| zone.trim_end_matches('.').to_ascii_lowercase())
        .filter(|zone| is_within(name, zone));
    let zone_apex = zone.as_deref().map(|zone| zone == name);
    let registrable_apex = hostname.is_apex();
    let zone = zone.unwrap_or_else(|| registrable.clone());
    let public_suffix = registrable
        .split_once('.')
        .map(|(_, suffix)| suffix.to_owned())
        .unwrap_or_default();
    NameKind {
        apex: registrable_apex || zone_apex == Some(true),
        registrable_apex,
        zone_apex,
        public_suffix,
        registrable_domain: registrable,
        relative_name: relative_name(name, &zone),
        zone,
    }
}

/// The record the platform asks for at this name.
pub fn expected_record(kind: &NameKind, target: &str) -> RecordChange {
    RecordChange {
        action: ChangeAction::Add,
        zone: kind.zone.clone(),
        name: kind.relative_name.clone(),
        record_type: if kind.apex { "ALIAS" } else { "CNAME" }.to_owned(),
        value: target.to_owned(),
        ttl: Some(3600),
    }
}

/// A finding that states the kind of name, with the reason.
pub fn finding(hostname: &Hostname, kind: &NameKind, target: &str) -> Finding {
    let name = hostname.as_str();
    let (title, detail) = if kind.registrable_apex {
        (
            format!("{name} is an apex domain: it needs an ALIAS (or ANAME) record"),
            format!(
                "{name} is a registrable domain under the public suffix {}. A CNAME is not \
                 allowed at a zone apex, so point it at {target} with an ALIAS or ANAME record \
                 (some providers call it CNAME flattening).",
                kind.public_suffix
            ),
        )
    } else if kind.zone_apex == Some(true) {
        (
            format!("{name} is the apex of its own DNS zone: it needs an ALIAS (or ANAME) record"),
            format!(
                "{name} is a subdomain of {} but is delegated as a zone of its own (it has an \
                 SOA record), and a CNAME is not allowed at a zone apex.",
                kind.registrable_domain
            ),
        )
    } else {
        (
            format!("{name} is a subdomain: it needs a CNAME record"),
            format!(
                "{name} lies under the registrable domain {} (zone {}); create a CNAME named \
                 {} pointing at {target}.",
                kind.registrable_domain, kind.zone, kind.relative_name
            ),
        )
    };
    Finding {
        code: FindingCode::NameKind,
        severity: Severity::Info,
        title,
        detail,
        evidence: Vec::new(),
        fix: None,
        cached_until: None,
    }
}

/// `name` relative to `zone` as a DNS provider's form wants it: `@`, `shop`, `a.b`; the full
/// name with a final dot when it is not under the zone.
pub fn relative_name(name: &str, zone: &str) -> String {
    let name = name.trim_end_matches('.');
    match under_zone(name, zone.trim_end_matches('.')) {
        Some("") => "@".to_owned(),
        Some(prefix) => prefix.to_ascii_lowercase(),
        None => {
            let mut absolute = name.to_ascii_lowercase();
            absolute.push('.');
            absolute
        }
    }
}

/// True when `name` is `zone` or lies under it (whole labels).
pub fn is_within(name: &str, zone: &str) -> bool {
    let zone = zone.trim_end_matches('.');
    zone.is_empty() || under_zone(name.trim_end_matches('.'), zone).is_some()
}

/// What `name` has before `zone` (whole labels, ASCII case ignored, neither with a trailing
/// dot): `Some("")` for the zone itself, `Some("a.b")` for `a.b.zone`, `None` outside it.
/// Compared in place: the checks ask this for every hostname, and building `".zone"` and
/// lowercase copies first cost more than the comparison.
pub(crate) fn under_zone<'a>(name: &'a str, zone: &str) -> Option<&'a str> {
    let split = name.len().checked_sub(zone.len())?;
    let (head, tail) = (name.get(..split)?, name.get(split..)?);
    if !tail.eq_ignore_ascii_case(zone) {
        return None;
    }
    if head.is_empty() {
        return Some("");
    }
    head.strip_suffix('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str) -> Hostname {
        Hostname::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    #[test]
    fn two_label_public_suffixes() {
        let apex = classify(&host("example.co.uk"), None);
        assert!(apex.apex && apex.registrable_apex);
        assert_eq!(apex.public_suffix, "co.uk");
        assert_eq!(apex.relative_name, "@");
        let sub = classify(&host("shop.example.co.uk"), None);
        assert!(!sub.apex);
        assert_eq!(sub.registrable_domain, "example.co.uk");
        assert_eq!(sub.relative_name, "shop");
        let au = classify(&host("www.example.com.au"), None);
        assert!(!au.apex);
        assert_eq!(au.registrable_domain, "example.com.au");
        assert!(classify(&host("example.com.au"), None).apex);
    }

    #[test]
    fn wildcard_and_exception_rules() {
        // `*.kawasaki.jp` makes every label under kawasaki.jp a public suffix, except
        // `city.kawasaki.jp`, which is registrable itself.
        let wildcard = classify(&host("shop.example.kawasaki.jp"), None);
        assert_eq!(wildcard.registrable_domain, "shop.example.kawasaki.jp");
        assert!(wildcard.apex);
        let exception = classify(&host("www.city.kawasaki.jp"), None);
        assert_eq!(exception.registrable_domain, "city.kawasaki.jp");
        assert!(!exception.apex);
        assert!(classify(&host("city.kawasaki.jp"), None).apex);
    }

    #[test]
    fn private_suffixes_make_each_site_an_apex() {
        let pages = classify(&host("someone.github.io"), None);
        assert!(pages.apex);
        assert_eq!(pages.public_suffix, "github.io");
        assert!(!classify(&host("www.someone.github.io"), None).apex);
    }

    #[test]
    fn not_the_last_two_labels() {
        // "the last two labels" would call example.co.uk a subdomain of co.uk
        assert!(classify(&host("example.co.uk"), None).apex);
        assert!(!classify(&host("a.b.example.com"), None).apex);
        assert_eq!(
            classify(&host("a.b.example.com"), None).relative_name,
            "a.b"
        );
    }

    #[test]
    fn soa_reveals_a_delegated_subdomain_zone() {
        let delegated = classify(&host("shop.example.com"), Some("shop.example.com."));
        assert!(delegated.apex);
        assert!(!delegated.registrable_apex);
        assert_eq!(delegated.zone_apex, Some(true));
        assert_eq!(delegated.relative_name, "@");
        let inside = classify(&host("a.shop.example.com"), Some("shop.example.com"));
        assert!(!inside.apex);
        assert_eq!(inside.zone, "shop.example.com");
        assert_eq!(inside.relative_name, "a");
        // an SOA from an unrelated zone (a CNAME target's) says nothing about the name
        let unrelated = classify(&host("www.example.com"), Some("platform.test"));
        assert_eq!(unrelated.zone, "example.com");
        assert_eq!(unrelated.zone_apex, None);
    }

    #[test]
    fn expected_record_follows_the_kind() {
        let apex = classify(&host("example.co.uk"), None);
        let record = expected_record(&apex, "edge.platform.test");
        assert_eq!(
            (record.record_type.as_str(), record.name.as_str()),
            ("ALIAS", "@")
        );
        let sub = classify(&host("shop.example.co.uk"), None);
        let record = expected_record(&sub, "edge.platform.test");
        assert_eq!(
            (record.record_type.as_str(), record.name.as_str()),
            ("CNAME", "shop")
        );
    }

    #[test]
    fn relative_names() {
        assert_eq!(relative_name("example.com.", "example.com"), "@");
        assert_eq!(relative_name("A.B.example.com", "example.com"), "a.b");
        assert_eq!(relative_name("other.net", "example.com"), "other.net.");
        assert!(!is_within("ample.com", "example.com"));
    }

    #[test]
    fn a_name_under_a_zone_is_told_by_whole_labels_and_any_case() {
        assert_eq!(under_zone("example.com", "example.com"), Some(""));
        assert_eq!(under_zone("WWW.Example.COM", "example.com"), Some("WWW"));
        assert_eq!(under_zone("a.b.example.com", "EXAMPLE.com"), Some("a.b"));
        assert_eq!(under_zone("ample.com", "example.com"), None);
        assert_eq!(under_zone("myexample.com", "example.com"), None);
        assert_eq!(under_zone("com", "example.com"), None);
        assert_eq!(under_zone("example.net", "example.com"), None);
        // a multi-byte character just before the zone is not a place to split
        assert_eq!(under_zone("é.com", "é.com"), Some(""));
        assert_eq!(under_zone("aé.com", ".com"), None);
        assert!(is_within("www.example.com.", "example.com."));
        assert!(is_within("anything", ""));
        assert!(!is_within("example.com", "www.example.com"));
        assert_eq!(relative_name("www.example.com.", "Example.com."), "www");
        assert_eq!(relative_name("Other.NET", ""), "other.net.");
    }
}
