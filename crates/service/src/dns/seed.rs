//! The demo customer zones the local service starts with, each holding a classic mistake a
//! customer makes when pointing a domain at the platform, so every diagnosis can be shown.
//!
//! | name | record | the mistake |
//! |---|---|---|
//! | `shop.example.com` | `A 192.0.2.10` | a conflicting A record: the old host's address blocks the CNAME |
//! | `www.example.com` | `CNAME <target>` | none: the record the platform asks for |
//! | `blog.example.net` | `CNAME <target>.example.net` | a wrong CNAME: the provider appended the zone to a target written without its final dot |
//! | `example.net` (apex) | `A 192.0.2.20` | an apex without ALIAS: the apex still points at the old host |
//! | `www.example.net` | `A 192.0.2.20` | none yet: the old host serves the www name too, so adding the apex with its www name gives both names the switch without a gap |
//! | `locked.example.org` | `CAA 0 issue "other-ca.example"` | a CAA record forbidding the platform's CA, on the parent of ... |
//! | `www.locked.example.org` | `CNAME <target>` | ... a name that is itself correct: only the climb to the parent finds the CAA |
//! | `example.org` (apex) | `CAA 0 issue "<ca identity>"` | none: the zone allows the platform's CA |
//! | `shop.example.org` | `A 192.0.2.77` | none yet: a site live on another host (an address outside the platform), not attached to any project, to attach without a gap: add it, create the `_acme-challenge.shop` CNAME its `certificate.validation.dns_record` names, Verify (the certificate is issued while the old host still serves), then replace the A record with the routing CNAME and Verify again (live at once) |
//! | `example.co.uk` (apex) | `A 192.0.2.30` | an apex without ALIAS under a two-label public suffix |
//! | `www.example.co.uk` | `CNAME <target>` | none |
//! | `app.example.co.uk` | `CNAME <target>` | none yet: the demo's live domain, until a seeded event adds a CAA record at `example.co.uk` that names another CA (`crate::world::renewal_demo`) |
//!
//! All seed records count as added at the Unix epoch, so the delayed resolver view sees them
//! from the start.

use chrono::{DateTime, Utc};
use domain_desk_api::local::{ZoneRecord, ZoneRecordType};

use super::records::normalise_value;
use super::zone::{StoredRecord, ZoneSnapshot};
use crate::Result;

pub use domain_desk_api::local::DEMO_ZONES;

/// TTL of the seed records: what the platform asks customers for.
const SEED_TTL: u32 = 3600;

/// The seeded name live on another host, not attached to any project.
pub const LIVE_ELSEWHERE: &str = "shop.example.org";

/// The address the other host serves [`LIVE_ELSEWHERE`] at: outside the platform (TEST-NET-1).
pub const LIVE_ELSEWHERE_ADDRESS: &str = "192.0.2.77";

/// The seed zones and records for a platform whose DNS target is `dns_target` and whose CA
/// is known to CAA as `ca_identity`.
pub fn demo_zones(dns_target: &str, ca_identity: &str) -> Result<ZoneSnapshot> {
    let target = dns_target.trim_end_matches('.');
    let seeded_at = DateTime::<Utc>::UNIX_EPOCH;
    let rows: [(&str, &str, &str, ZoneRecordType, String); 12] = [
        (
            "example.com",
            "seed-com-shop-a",
            "shop",
            ZoneRecordType::A,
            "192.0.2.10".to_owned(),
        ),
        (
            "example.com",
            "seed-com-www-cname",
            "www",
            ZoneRecordType::Cname,
            target.to_owned(),
        ),
        (
            "example.net",
            "seed-net-blog-cname",
            "blog",
            ZoneRecordType::Cname,
            format!("{target}.example.net"),
        ),
        (
            "example.net",
            "seed-net-apex-a",
            "@",
            ZoneRecordType::A,
            "192.0.2.20".to_owned(),
        ),
        (
            "example.net",
            "seed-net-www-a",
            "www",
            ZoneRecordType::A,
            "192.0.2.20".to_owned(),
        ),
        (
            "example.org",
            "seed-org-locked-caa",
            "locked",
            ZoneRecordType::Caa,
            "0 issue \"other-ca.example\"".to_owned(),
        ),
        (
            "example.org",
            "seed-org-www-locked-cname",
            "www.locked",
            ZoneRecordType::Cname,
            target.to_owned(),
        ),
        (
            "example.org",
            "seed-org-apex-caa",
            "@",
            ZoneRecordType::Caa,
            format!("0 issue \"{ca_identity}\""),
        ),
        (
            "example.org",
            "seed-org-shop-a",
            "shop",
            ZoneRecordType::A,
            LIVE_ELSEWHERE_ADDRESS.to_owned(),
        ),
        (
            "example.co.uk",
            "seed-couk-apex-a",
            "@",
            ZoneRecordType::A,
            "192.0.2.30".to_owned(),
        ),
        (
            "example.co.uk",
            "seed-couk-www-cname",
            "www",
            ZoneRecordType::Cname,
            target.to_owned(),
        ),
        (
            "example.co.uk",
            "seed-couk-app-cname",
            "app",
            ZoneRecordType::Cname,
            target.to_owned(),
        ),
    ];
    let mut records = Vec::with_capacity(rows.len());
    for (zone, id, name, record_type, value) in rows {
        records.push(StoredRecord {
            zone: zone.to_owned(),
            record: ZoneRecord {
                id: id.to_owned(),
                name: name.to_owned(),
                record_type,
                value: normalise_value(record_type, &value)?,
                ttl: SEED_TTL,
            },
            added_at: seeded_at,
            removed_at: None,
        });
    }
    Ok(ZoneSnapshot {
        zones: DEMO_ZONES
            .iter()
            .map(|zone| ((*zone).to_owned(), seeded_at))
            .collect(),
        records,
    })
}
