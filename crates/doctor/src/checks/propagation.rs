//! Where servers disagree: the zone's own nameservers have the new records, resolvers still
//! hand out their cached copy until its TTL runs out. Shown with the time left.

use std::borrow::Cow;
use std::collections::BTreeSet;

use chrono::{DateTime, TimeDelta, Utc};

use crate::checks::{evidence, human_duration};
use crate::clock::time_of_day_or_date;
use crate::dns::presentation::normalise_name;
use crate::dns::{Answer, AnswerStatus, DnsRecord};
use crate::report::{Finding, FindingCode, Fix, Severity, Source, SourceKind, SourceView};

/// One server's A and AAAA answers for the hostname.
pub struct ServerView<'a> {
    pub source: &'a Source,
    pub a: &'a Answer,
    pub aaaa: &'a Answer,
}

/// What a server says about the name itself, without TTLs: equal signatures mean the servers
/// agree.
///
/// Only records owned by the name count. The zone's own nameserver stops at a CNAME into
/// another zone while a resolver follows it and adds the target's addresses; what lies beyond
/// the CNAME is the target's zone's to answer (it may even give each resolver other
/// addresses), and the records check and the target lookup judge it. For the same reason the
/// response code counts only when the name has no CNAME: after a CNAME it speaks of the
/// chain's end.
///
/// `hostname` is normalised (see [`normalise_name`]). The records are borrowed; a value is
/// copied only to lowercase it, which names as read from the wire never need.
fn signature<'a>(
    hostname: &str,
    view: &ServerView<'a>,
) -> (Option<AnswerStatus>, BTreeSet<(&'a str, Cow<'a, str>)>) {
    let own: BTreeSet<(&str, Cow<'_, str>)> = view
        .a
        .answers
        .iter()
        .chain(view.aaaa.answers.iter())
        .filter(|record| record.name == hostname)
        .map(|record| {
            let value = if record.value.bytes().any(|byte| byte.is_ascii_uppercase()) {
                Cow::Owned(record.value.to_ascii_lowercase())
            } else {
                Cow::Borrowed(record.value.as_str())
            };
            (&*record.record_type, value)
        })
        .collect();
    let has_cname = own.iter().any(|(record_type, _)| *record_type == "CNAME");
    ((!has_cname).then_some(view.a.status), own)
}

/// The views, each marked as agreeing or not with the reference (the first authoritative
/// server that answered, else the first server that answered), and the findings about the
/// resolvers that disagree, judged at `now`: a resolver that still holds a negative answer for
/// a name the reference answers is `negative_cached` (one finding each, with the time its
/// cache expires, RFC 2308); resolvers that hold an older positive answer are
/// `propagation_pending`, with the time the last copy expires. The zone's own servers are not
/// caches: when they disagree among themselves, [`super::nameservers`] says so.
pub fn check(
    hostname: &str,
    views: &[ServerView<'_>],
    now: DateTime<Utc>,
) -> (Vec<SourceView>, Vec<Finding>) {
    let name = normalise_name(hostname);
    let answered = |view: &&ServerView<'_>| view.a.status.is_answer();
    let reference = views
        .iter()
        .filter(answered)
        .find(|view| view.source.kind == SourceKind::Authoritative)
        .or_else(|| views.iter().find(answered));
    let reference_signature = reference.map(|view| signature(&name, view));
    let reference_has_records = reference_signature
        .as_ref()
        .is_some_and(|(_, records)| !records.is_empty());
    let mut disagreeing = Vec::new();
    let mut negative = Vec::new();
    let source_views = views
        .iter()
        .map(|view| {
            let own = signature(&name, view);
            let agrees = match (&reference_signature, view.a.status.is_answer()) {
                (Some(wanted), true) => Some(&own == wanted),
                _ => None,
            };
            let expires = view.a.max_ttl().max(view.aaaa.max_ttl());
            let is_reference = reference.is_some_and(|reference| std::ptr::eq(reference, view));
            if agrees == Some(false)
                && !is_reference
                && view.source.kind != SourceKind::Authoritative
            {
                if own.1.is_empty() && reference_has_records {
                    negative.push(view);
                } else {
                    disagreeing.push((view, expires));
                }
            }
            SourceView {
                source: view.source.clone(),
                status: view.a.status,
                error: view.a.error.clone(),
                records: {
                    // The CNAME chain comes back in both the A and the AAAA answer: each
                    // record once, in the order first seen (copied once, not twice). A
                    // server's answers are a handful of records: a scan beats a hash set.
                    let mut records: Vec<DnsRecord> =
                        Vec::with_capacity(view.a.answers.len() + view.aaaa.answers.len());
                    for record in view.a.answers.iter().chain(view.aaaa.answers.iter()) {
                        if !records.contains(record) {
                            records.push(record.clone());
                        }
                    }
                    records
                },
                cache_expires_in_seconds: expires,
                agrees,
                chain: Some(crate::chain::of(
                    &name,
                    view.a,
                    view.aaaa,
                    view.a.authoritative,
                )),
                elapsed_ms: view.a.elapsed_ms.max(view.aaaa.elapsed_ms),
            }
        })
        .collect();
    let Some(reference) = reference else {
        return (source_views, Vec::new());
    };
    let mut findings: Vec<Finding> = negative
        .iter()
        .map(|view| negative_cached(hostname, reference, view, now))
        .collect();
    if disagreeing.is_empty() {
        return (source_views, findings);
    }
    let longest = disagreeing
        .iter()
        .filter_map(|(_, expires)| *expires)
        .max()
        .unwrap_or(0);
    let mut shown = vec![evidence(
        &reference.source.label,
        reference.a,
        Some("reference answer".to_owned()),
    )];
    shown.extend(disagreeing.iter().map(|(view, expires)| {
        evidence(
            &view.source.label,
            view.a,
            expires.map(|seconds| format!("cached for up to {}", human_duration(seconds))),
        )
    }));
    let until = now + TimeDelta::seconds(i64::from(longest));
    findings.push(Finding {
        code: FindingCode::PropagationPending,
        severity: Severity::Warning,
        title: format!(
            "Servers disagree about {hostname}: {} of {} still give another answer",
            disagreeing.len(),
            views.len()
        ),
        detail: format!(
            "{} says one thing and the others still hold an older answer in their caches. \
             Every cached copy expires within {} (by {}); after that all servers agree.",
            reference.source.label,
            human_duration(longest),
            time_of_day_or_date(until, now)
        ),
        evidence: shown,
        fix: Some(Fix {
            summary: format!(
                "Nothing to change: wait {} and check again.",
                human_duration(longest)
            ),
            changes: Vec::new(),
            steps: Vec::new(),
        }),
        cached_until: Some(until),
    });
    (source_views, findings)
}

/// A resolver that answers "no such name" (or no record) for a name the reference server
/// answers: it cached the negative answer before the record existed, and keeps it for the
/// zone's negative TTL (the SOA in its answer, counting down).
fn negative_cached(
    hostname: &str,
    reference: &ServerView<'_>,
    view: &ServerView<'_>,
    now: DateTime<Utc>,
) -> Finding {
    let what = if view.a.status == AnswerStatus::NxDomain {
        "no such name"
    } else {
        "no record"
    };
    let remaining = view.a.negative_ttl().max(view.aaaa.negative_ttl());
    let until = remaining.map(|seconds| now + TimeDelta::seconds(i64::from(seconds)));
    let when = match (remaining, until) {
        (Some(seconds), Some(until)) => format!(
            "until {} (in {})",
            time_of_day_or_date(until, now),
            human_duration(seconds)
        ),
        _ => "until its cached copy expires".to_owned(),
    };
    Finding {
        code: FindingCode::NegativeCached,
        severity: Severity::Warning,
        title: format!(
            "{} still answers \"{what}\" for {hostname} from its cache, {when}",
            view.source.label
        ),
        detail: format!(
            "{} has the record, but {} asked before it existed and keeps that answer for the \
             zone's negative-caching time (the SOA's minimum, RFC 2308). Nothing is wrong with \
             the record: {} answers with it {when}.",
            reference.source.label, view.source.label, view.source.label
        ),
        evidence: vec![
            evidence(
                &reference.source.label,
                reference.a,
                Some("reference answer".to_owned()),
            ),
            evidence(
                &view.source.label,
                view.a,
                remaining.map(|seconds| {
                    format!("negative answer cached for {}", human_duration(seconds))
                }),
            ),
        ],
        fix: Some(Fix {
            summary: match until {
                Some(until) => format!(
                    "Nothing to change: wait until {} and check again.",
                    time_of_day_or_date(until, now)
                ),
                None => "Nothing to change: wait for the cached answer to expire.".to_owned(),
            },
            changes: Vec::new(),
            steps: Vec::new(),
        }),
        cached_until: until,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dns::DnsRecord;

    fn record(name: &str, record_type: &str, value: &str) -> DnsRecord {
        DnsRecord {
            name: name.to_owned(),
            record_type: record_type.to_owned().into(),
            ttl: 300,
            value: value.to_owned(),
        }
    }

    fn answer(question_type: &str, answers: Vec<DnsRecord>) -> Answer {
        Answer {
            server: "192.0.2.53:53".to_owned(),
            question: "www.example.com".to_owned(),
            question_type: question_type.to_owned().into(),
            status: AnswerStatus::NoError,
            error: None,
            authoritative: false,
            via_tcp: false,
            answers,
            authority: Vec::new(),
            additional: Vec::new(),
            elapsed_ms: 1,
        }
    }

    #[test]
    fn a_server_shows_the_chain_once_and_its_records_in_the_order_seen() {
        let cname = record("www.example.com", "CNAME", "edge.example.net");
        let a = answer(
            "A",
            vec![cname.clone(), record("edge.example.net", "A", "192.0.2.1")],
        );
        let aaaa = answer(
            "AAAA",
            vec![
                cname.clone(),
                record("edge.example.net", "AAAA", "2001:db8::1"),
            ],
        );
        let source = Source {
            label: "resolver".to_owned(),
            address: "192.0.2.53:53".to_owned(),
            kind: SourceKind::Given,
            recursive: true,
        };
        let views = [ServerView {
            source: &source,
            a: &a,
            aaaa: &aaaa,
        }];
        let (shown, findings) = check("www.example.com", &views, Utc::now());
        assert!(findings.is_empty());
        assert_eq!(
            shown[0].records,
            vec![
                cname,
                record("edge.example.net", "A", "192.0.2.1"),
                record("edge.example.net", "AAAA", "2001:db8::1"),
            ]
        );
    }
}
