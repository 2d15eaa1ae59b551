//! The platform resolver's negative cache (RFC 2308). A real platform's resolver that was told
//! "no such name" (NXDOMAIN) or "no such record" (NODATA) keeps that answer for the zone's
//! negative TTL — the lesser of the SOA record's TTL and its MINIMUM field — and gives it
//! again, its SOA's TTL counting down, even after the record was created. That is the most
//! common "I fixed it and it still says missing", so the platform's resolver view here does
//! the same, on the service clock, and the verifier says until when
//! (`verify::Verifier::with_negative_cache`).
//!
//! Only the resolver view ([`super::ZoneView::Delayed`]) has one: the live view, what `dig`
//! asks, answers every question from the zones. Entries are keyed by the question's name and
//! type. The cache is bounded: a new entry past its capacity first makes the expired entries
//! go, then the one closest to expiring, so questions for random names cost a bounded amount
//! of memory.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};
use hickory_proto::rr::{RData, Record, RecordType};

use super::answer::Resolution;

/// The most negative answers the platform's resolver keeps.
pub const DEFAULT_CAPACITY: usize = 10_000;

/// Negative answers by question, each until its zone's negative TTL has passed.
#[derive(Debug)]
pub struct NegativeCache {
    capacity: usize,
    entries: Mutex<Entries>,
}

/// A question: its name (lowercase A-labels, no final dot) and type.
type Key = (String, u16);

#[derive(Debug, Default)]
struct Entries {
    by_question: HashMap<Key, Entry>,
    /// The same entries by the instant they expire, soonest first.
    by_expiry: BTreeSet<(DateTime<Utc>, Key)>,
}

#[derive(Debug)]
struct Entry {
    nxdomain: bool,
    /// The SOA of the answer as it was given, with its TTL in full.
    soa: Record,
    cached_at: DateTime<Utc>,
    until: DateTime<Utc>,
}

fn key(name: &str, qtype: RecordType) -> Key {
    (
        name.trim_end_matches('.').to_ascii_lowercase(),
        u16::from(qtype),
    )
}

/// The negative TTL of an answer whose authority section holds `soa` (RFC 2308 §5).
fn negative_ttl(soa: &Record) -> u32 {
    match &soa.data {
        RData::SOA(data) => soa.ttl.min(data.minimum),
        _ => 0,
    }
}

impl NegativeCache {
    /// A cache that keeps at most `capacity` answers.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Mutex::new(Entries::default()),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        // Entries change by whole inserts and removals under the lock; a panic elsewhere
        // cannot leave one half-written.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The negative answer kept for `name`/`qtype` at `now`, its SOA's TTL the seconds left
    /// (rounded up); `None` when none is kept. An expired entry is forgotten, and so is one
    /// cached after `now` (the clock was set back), which would otherwise outlive its TTL.
    pub fn answer(&self, name: &str, qtype: RecordType, now: DateTime<Utc>) -> Option<Resolution> {
        let key = key(name, qtype);
        let mut entries = self.entries();
        let entry = entries.by_question.get(&key)?;
        if now >= entry.until || now < entry.cached_at {
            let until = entry.until;
            entries.by_question.remove(&key);
            entries.by_expiry.remove(&(until, key));
            return None;
        }
        // positive here: `now` is before `until`
        let left = (entry.until - now).num_microseconds().unwrap_or(i64::MAX);
        let seconds =
            u32::try_from(left / 1_000_000 + i64::from(left % 1_000_000 != 0)).unwrap_or(u32::MAX);
        let mut soa = entry.soa.clone();
        soa.ttl = seconds.min(soa.ttl);
        Some(Resolution::Answer {
            answers: Vec::new(),
            nxdomain: entry.nxdomain,
            soa: Box::new(soa),
        })
    }

    /// Keeps `resolution`, the answer to `name`/`qtype` given at `now`, when it is negative
    /// (no records: NXDOMAIN or NODATA) and its zone's negative TTL is not zero. An answer
    /// with records, even one whose CNAME chain ends in NXDOMAIN, is not kept.
    pub fn remember(
        &self,
        name: &str,
        qtype: RecordType,
        resolution: &Resolution,
        now: DateTime<Utc>,
    ) {
        let Resolution::Answer {
            answers,
            nxdomain,
            soa,
        } = resolution
        else {
            return;
        };
        let ttl = negative_ttl(soa);
        if !answers.is_empty() || ttl == 0 || self.capacity == 0 {
            return;
        }
        let key = key(name, qtype);
        let until = now + TimeDelta::seconds(i64::from(ttl));
        let mut entries = self.entries();
        if let Some(kept) = entries.by_question.get(&key) {
            if now < kept.until && now >= kept.cached_at {
                // another thread's answer to the same question came first
                return;
            }
            let old = (kept.until, key.clone());
            entries.by_expiry.remove(&old);
            entries.by_question.remove(&key);
        }
        if entries.by_question.len() >= self.capacity {
            // Full: every expired entry goes (they expire soonest), then the entries closest
            // to expiring until there is room.
            while let Some((first_until, _)) = entries.by_expiry.first() {
                if *first_until > now && entries.by_question.len() < self.capacity {
                    break;
                }
                if let Some((_, oldest)) = entries.by_expiry.pop_first() {
                    entries.by_question.remove(&oldest);
                }
            }
        }
        entries.by_expiry.insert((until, key.clone()));
        entries.by_question.insert(
            key,
            Entry {
                nxdomain: *nxdomain,
                soa: (**soa).clone(),
                cached_at: now,
                until,
            },
        );
    }

    /// How many answers are kept (expired ones included until they are asked for or pushed
    /// out).
    pub fn len(&self) -> usize {
        self.entries().by_question.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every answer (the zones were reset to the seed).
    pub fn clear(&self) {
        let mut entries = self.entries();
        entries.by_question.clear();
        entries.by_expiry.clear();
    }
}

#[cfg(test)]
mod tests {
    use hickory_proto::rr::Name;
    use std::net::Ipv4Addr;

    use hickory_proto::rr::rdata::{A, SOA};

    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    fn soa(ttl: u32, minimum: u32) -> Box<Record> {
        let name = |text: &str| Name::from_ascii(text).unwrap();
        Box::new(Record::from_rdata(
            name("example.com."),
            ttl,
            RData::SOA(SOA::new(
                name("ns1.example.net."),
                name("hostmaster.example.net."),
                7,
                3600,
                600,
                604_800,
                minimum,
            )),
        ))
    }

    fn nxdomain(ttl: u32, minimum: u32) -> Resolution {
        Resolution::Answer {
            answers: Vec::new(),
            nxdomain: true,
            soa: soa(ttl, minimum),
        }
    }

    /// The kept answer's SOA TTL, or `None` when nothing is kept.
    fn ttl_left(cache: &NegativeCache, name: &str, now: DateTime<Utc>) -> Option<u32> {
        match cache.answer(name, RecordType::A, now)? {
            Resolution::Answer { soa, .. } => Some(soa.ttl),
            Resolution::Refused => None,
        }
    }

    #[test]
    fn a_negative_answer_is_kept_for_the_lesser_of_the_soa_ttl_and_minimum_counting_down() {
        let cache = NegativeCache::new(10);
        let now = at("2026-01-01T12:40:00Z");
        cache.remember("www.example.com.", RecordType::A, &nxdomain(3600, 300), now);
        // by name case-insensitively and without the final dot, and by type
        assert_eq!(ttl_left(&cache, "WWW.example.com", now), Some(300));
        assert_eq!(
            cache.answer("www.example.com", RecordType::AAAA, now),
            None,
            "another type is another question"
        );
        let later = now + TimeDelta::milliseconds(120_500);
        assert_eq!(ttl_left(&cache, "www.example.com", later), Some(180));
        let Some(Resolution::Answer {
            answers,
            nxdomain: no_such_name,
            ..
        }) = cache.answer("www.example.com", RecordType::A, later)
        else {
            panic!("kept");
        };
        assert!(answers.is_empty() && no_such_name);
        let last = now + TimeDelta::seconds(299);
        assert_eq!(ttl_left(&cache, "www.example.com", last), Some(1));
        assert_eq!(
            ttl_left(&cache, "www.example.com", now + TimeDelta::seconds(300)),
            None
        );
        assert!(cache.is_empty(), "an expired answer is forgotten");

        // a short SOA TTL shortens it
        cache.remember("short.example.com", RecordType::A, &nxdomain(60, 300), now);
        assert_eq!(ttl_left(&cache, "short.example.com", now), Some(60));
    }

    #[test]
    fn answers_with_records_and_a_zero_negative_ttl_are_not_kept() {
        let cache = NegativeCache::new(10);
        let now = at("2026-01-01T12:40:00Z");
        let record = Record::from_rdata(
            Name::from_ascii("www.example.com.").unwrap(),
            60,
            RData::A(A(Ipv4Addr::new(192, 0, 2, 1))),
        );
        let positive = Resolution::Answer {
            answers: vec![record],
            nxdomain: true,
            soa: soa(300, 300),
        };
        cache.remember("www.example.com", RecordType::A, &positive, now);
        cache.remember("www.example.com", RecordType::A, &Resolution::Refused, now);
        cache.remember("zero.example.com", RecordType::A, &nxdomain(300, 0), now);
        assert!(cache.is_empty());
    }

    #[test]
    fn a_clock_set_back_forgets_what_was_cached_after_it() {
        let cache = NegativeCache::new(10);
        let now = at("2026-01-01T12:40:00Z");
        cache.remember("www.example.com", RecordType::A, &nxdomain(300, 300), now);
        let earlier = now - TimeDelta::hours(1);
        assert_eq!(ttl_left(&cache, "www.example.com", earlier), None);
        assert!(cache.is_empty());
    }

    #[test]
    fn the_cache_never_holds_more_than_its_capacity() {
        let cache = NegativeCache::new(100);
        let start = at("2026-01-01T12:40:00Z");
        for n in 0..1_000 {
            let now = start + TimeDelta::milliseconds(n);
            cache.remember(
                &format!("random-{n}.example.com"),
                RecordType::A,
                &nxdomain(300, 300),
                now,
            );
            assert!(cache.len() <= 100, "{} after {n}", cache.len());
        }
        assert_eq!(cache.len(), 100);
        let now = start + TimeDelta::seconds(1);
        // the newest are kept, the ones closest to expiring went first
        assert!(ttl_left(&cache, "random-999.example.com", now).is_some());
        assert_eq!(ttl_left(&cache, "random-0.example.com", now), None);
        assert_eq!(ttl_left(&cache, "random-899.example.com", now), None);
        assert!(ttl_left(&cache, "random-900.example.com", now).is_some());
        // past the TTL every entry is expired: when full, they all go
        let much_later = start + TimeDelta::hours(1);
        cache.remember(
            "fresh.example.com",
            RecordType::A,
            &nxdomain(300, 300),
            much_later,
        );
        assert_eq!(cache.len(), 1);
        assert_eq!(ttl_left(&cache, "fresh.example.com", much_later), Some(300));

        let none = NegativeCache::new(0);
        none.remember("www.example.com", RecordType::A, &nxdomain(300, 300), start);
        assert!(none.is_empty());
    }
}
