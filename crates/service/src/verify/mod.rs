//! The verifier: decides whether a custom domain points at the platform, by asking the
//! platform's resolver view of DNS through a real resolver (hickory-resolver), as the platform
//! would. The CA uses the same lookups for its CAA climb and its last "still points here" check.
//!
//! Each check builds a fresh resolver with its cache off: the resolver view already answers as
//! of `clock - propagation delay`, and a cache running on the wall clock would hide clock jumps.
//! The resolver view keeps negative answers itself, on the service clock
//! (`dns::negative_cache`); with [`Verifier::with_negative_cache`] a `record_missing` says so,
//! with when the answer was cached and when the resolver asks again (`cached_at`,
//! `cached_until`), read from the SOA's remaining TTL in the negative answer.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::caa::{CaaRecord, climb};
use domain_desk_api::txt::txt_text;
use domain_desk_api::{FoundRecord, Hostname, VerificationError, VerificationErrorCode};
use hickory_net::runtime::TokioRuntimeProvider;
use hickory_net::{DnsError, NetError, NoRecords};
use hickory_proto::op::ResponseCode;
use hickory_proto::rr::{Name, RData, Record, RecordType};
use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::{Resolver, TokioResolver};

use crate::clock::Clock;
use crate::dns::records::caa_from_rdata;

/// How long one DNS question may take on loopback before the check gives up.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(2);

/// A lookup the resolver could not complete (timeout, SERVFAIL): not an answer either way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupFailed(pub String);

/// What one name's CAA climb found: the relevant RRset and the name it was found at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelevantCaa {
    /// The first name of the climb that had CAA records; `None` when none had any.
    pub found_at: Option<String>,
    pub records: Vec<CaaRecord>,
}

/// Looks DNS up through a resolver pointed at one server (the platform resolver view).
#[derive(Debug, Clone)]
pub struct Verifier {
    resolver_address: SocketAddr,
    /// The platform DNS target, lowercase without the final dot.
    dns_target: String,
    /// How long one question may take before the check gives up.
    timeout: Duration,
    /// When the resolver view keeps negative answers: the clock it keeps them on.
    negative_cache: Option<Clock>,
}

/// A negative answer (NXDOMAIN or NODATA) as it came, with its SOA's TTL and minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Negative {
    nxdomain: bool,
    /// The SOA record's TTL in the answer: from a cache, the seconds it has left.
    ttl: u32,
    /// The SOA's MINIMUM field, which a cache leaves as it was: the negative TTL in full.
    minimum: u32,
}

/// The records answering a question, or the negative answer when there are none.
struct Answer {
    records: Vec<Record>,
    negative: Option<Negative>,
}

impl Verifier {
    pub fn new(resolver_address: SocketAddr, dns_target: &str) -> Self {
        Self {
            resolver_address,
            dns_target: dns_target.trim_end_matches('.').to_ascii_lowercase(),
            timeout: LOOKUP_TIMEOUT,
            negative_cache: None,
        }
    }

    /// The same verifier for a resolver view that keeps negative answers on `clock`: a
    /// missing record's error then says when the answer was cached and until when.
    pub fn with_negative_cache(mut self, clock: Clock) -> Self {
        self.negative_cache = Some(clock);
        self
    }

    /// The same verifier with another per-question timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn dns_target(&self) -> &str {
        &self.dns_target
    }

    /// A resolver that asks only our server, over UDP and (for truncated answers) TCP, and
    /// caches nothing.
    fn resolver(&self) -> Result<TokioResolver, LookupFailed> {
        let port = self.resolver_address.port();
        let [mut udp, mut tcp] = [ConnectionConfig::udp(), ConnectionConfig::tcp()];
        (udp.port, tcp.port) = (port, port);
        let server = NameServerConfig::new(self.resolver_address.ip(), true, vec![udp, tcp]);
        let config = ResolverConfig::from_name_servers(vec![server]);
        let mut options = ResolverOpts::default();
        options.cache_size = 0;
        options.timeout = self.timeout;
        options.attempts = 1;
        options.use_hosts_file = ResolveHosts::Never;
        options.preserve_intermediates = true;
        options.edns0 = true;
        Resolver::builder_with_config(config, TokioRuntimeProvider::default())
            .with_options(options)
            .build()
            .map_err(|error| LookupFailed(format!("no resolver: {error}")))
    }

    /// The records answering `name`/`record_type` (CNAME chains included), or nothing when the
    /// name or type does not exist (or lies outside the zones the platform's DNS knows).
    pub async fn lookup(
        &self,
        name: &str,
        record_type: RecordType,
    ) -> Result<Vec<Record>, LookupFailed> {
        Ok(self.answer(name, record_type).await?.records)
    }

    /// [`Self::lookup`], keeping the negative answer's SOA when there are no records.
    async fn answer(&self, name: &str, record_type: RecordType) -> Result<Answer, LookupFailed> {
        let fqdn = Name::from_ascii(format!("{}.", name.trim_end_matches('.')))
            .map_err(|error| LookupFailed(format!("{name} is not a DNS name: {error}")))?;
        match self.resolver()?.lookup(fqdn, record_type).await {
            Ok(lookup) => Ok(Answer {
                records: lookup.answers().to_vec(),
                negative: None,
            }),
            Err(error) if is_negative(&error) => Ok(Answer {
                records: Vec::new(),
                negative: negative(&error),
            }),
            Err(error) => Err(LookupFailed(error.to_string())),
        }
    }

    /// `record_missing` for `name`: `plain` as it is, or, when the resolver view keeps
    /// negative answers and `negative` is one, the sentence that says when it was cached and
    /// when the resolver asks again, then `add` (what to add if it is not there yet).
    fn missing(
        &self,
        name: &str,
        plain: String,
        add: String,
        negative: Option<Negative>,
    ) -> VerificationError {
        let (Some(clock), Some(negative)) = (&self.negative_cache, negative) else {
            return failure(VerificationErrorCode::RecordMissing, plain, Vec::new());
        };
        let now = clock.now();
        let until = now + TimeDelta::seconds(i64::from(negative.ttl.min(negative.minimum)));
        let cached_at = (until - TimeDelta::seconds(i64::from(negative.minimum))).min(now);
        let answer = if negative.nxdomain {
            "no such name"
        } else {
            "no such record"
        };
        let (at_text, until_text) = cache_times(cached_at, until);
        let mut error = failure(
            VerificationErrorCode::RecordMissing,
            format!(
                "The platform's resolver cached '{answer}' for {name} at {at_text} and asks again \
                 at {until_text}. {add} if you have not, and Verify again after {until_text}."
            ),
            Vec::new(),
        );
        error.cached_at = Some(cached_at);
        error.cached_until = Some(until);
        error
    }

    /// The TXT values at `name` itself (each record's strings joined), as the platform's
    /// resolver sees them: what an ownership challenge is read from.
    pub async fn txt_values(&self, name: &str) -> Result<Vec<String>, LookupFailed> {
        Ok(self
            .lookup(name, RecordType::TXT)
            .await?
            .iter()
            .filter(|record| owned_by(record, name))
            .filter_map(|record| match &record.data {
                RData::TXT(txt) => Some(txt_text(txt.txt_data.iter())),
                _ => None,
            })
            .collect())
    }

    /// Checks that `hostname` points at the platform: a subdomain by a CNAME equal to the
    /// target with no A/AAAA beside it, an apex by A/AAAA answers equal to the target's, a
    /// wildcard by a random label under it (`delegation.rs`).
    pub async fn verify(&self, hostname: &Hostname) -> Result<(), VerificationError> {
        let outcome = if hostname.is_wildcard() {
            self.verify_wildcard(hostname).await
        } else if hostname.is_apex() {
            self.verify_apex(hostname.as_str()).await
        } else {
            self.verify_subdomain(hostname.as_str()).await
        };
        outcome.unwrap_or_else(|LookupFailed(cause)| {
            Err(failure(
                VerificationErrorCode::DnsLookupFailed,
                format!("The platform's resolver got no answer for {hostname} ({cause}); try again in a moment."),
                Vec::new(),
            ))
        })
    }

    async fn verify_subdomain(
        &self,
        name: &str,
    ) -> Result<Result<(), VerificationError>, LookupFailed> {
        let cname_answer = self.answer(name, RecordType::CNAME).await?;
        let cnames: Vec<String> = cname_answer
            .records
            .iter()
            .filter(|record| owned_by(record, name))
            .filter_map(|record| match &record.data {
                RData::CNAME(target) => Some(hostname_text(&target.0)),
                _ => None,
            })
            .collect();
        let mut beside = Vec::new();
        for record_type in [RecordType::A, RecordType::AAAA] {
            beside.extend(
                self.lookup(name, record_type)
                    .await?
                    .iter()
                    .filter(|record| owned_by(record, name))
                    .filter_map(found_address),
            );
        }
        let target = &self.dns_target;
        let cname_found = || {
            cnames
                .iter()
                .map(|value| FoundRecord {
                    record_type: "CNAME".to_owned(),
                    value: value.clone(),
                })
                .collect::<Vec<_>>()
        };
        Ok(match cnames.first() {
            Some(value) if value != target => Err(failure(
                VerificationErrorCode::CnameMismatch,
                format!("{name} has a CNAME to {value}, but it must point to {target} exactly."),
                [cname_found(), beside].concat(),
            )),
            Some(_) if !beside.is_empty() => Err(failure(
                VerificationErrorCode::ConflictingRecord,
                format!("{name} has A/AAAA records beside its CNAME; delete them."),
                [cname_found(), beside].concat(),
            )),
            Some(_) => Ok(()),
            None if !beside.is_empty() => {
                let values: Vec<&str> = beside.iter().map(|found| found.value.as_str()).collect();
                Err(failure(
                    VerificationErrorCode::ConflictingRecord,
                    format!(
                        "{name} has {} {}, which blocks the CNAME to {target}; delete it and add the CNAME.",
                        if beside.len() == 1 {
                            "the record"
                        } else {
                            "the records"
                        },
                        values.join(", ")
                    ),
                    beside,
                ))
            }
            None => Err(self.missing(
                name,
                format!("{name} has no CNAME record yet; add a CNAME to {target}."),
                format!("Add a CNAME to {target}"),
                cname_answer.negative,
            )),
        })
    }

    async fn verify_apex(&self, name: &str) -> Result<Result<(), VerificationError>, LookupFailed> {
        let (expected, _) = self.addresses(&self.dns_target.clone()).await?;
        let (found, negative) = self.addresses(name).await?;
        let target = &self.dns_target;
        if found.is_empty() {
            return Ok(Err(self.missing(
                name,
                format!(
                    "{name} has no A or AAAA answer; add an ALIAS (or ANAME) record to {target} at the apex."
                ),
                format!("Add an ALIAS (or ANAME) record to {target} at the apex"),
                negative,
            )));
        }
        if found == expected {
            return Ok(Ok(()));
        }
        let found_records: Vec<FoundRecord> = found
            .iter()
            .map(|address| FoundRecord {
                record_type: if address.is_ipv4() { "A" } else { "AAAA" }.to_owned(),
                value: address.to_string(),
            })
            .collect();
        let values: Vec<String> = found.iter().map(IpAddr::to_string).collect();
        Ok(Err(failure(
            VerificationErrorCode::ConflictingRecord,
            format!(
                "{name} answers {}, not the addresses of {target}; replace the A/AAAA records at the apex with an ALIAS record to {target}.",
                values.join(", ")
            ),
            found_records,
        )))
    }

    /// The sorted, deduplicated A and AAAA answers for a name, and the A question's negative
    /// answer when it had none.
    async fn addresses(&self, name: &str) -> Result<(Vec<IpAddr>, Option<Negative>), LookupFailed> {
        let mut addresses = Vec::new();
        let mut first_negative = None;
        for record_type in [RecordType::A, RecordType::AAAA] {
            let answer = self.answer(name, record_type).await?;
            first_negative = first_negative.or(answer.negative);
            addresses.extend(
                answer
                    .records
                    .iter()
                    .filter_map(|record| match &record.data {
                        RData::A(a) => Some(IpAddr::V4(a.0)),
                        RData::AAAA(aaaa) => Some(IpAddr::V6(aaaa.0)),
                        _ => None,
                    }),
            );
        }
        addresses.sort();
        addresses.dedup();
        Ok((addresses, first_negative))
    }

    /// RFC 8659 §3: from the name towards the root, ask for CAA (ordinary resolution follows
    /// a CNAME at the name); the first non-empty answer is the relevant RRset.
    pub async fn relevant_caa(&self, hostname: &str) -> Result<RelevantCaa, LookupFailed> {
        for name in climb(hostname) {
            let records: Vec<CaaRecord> = self
                .lookup(&name, RecordType::CAA)
                .await?
                .iter()
                .filter_map(|record| caa_from_rdata(&record.data))
                .collect();
            if !records.is_empty() {
                return Ok(RelevantCaa {
                    found_at: Some(name),
                    records,
                });
            }
        }
        Ok(RelevantCaa {
            found_at: None,
            records: Vec::new(),
        })
    }
}

/// NXDOMAIN, NODATA, and REFUSED (a name outside every zone the platform's DNS serves, such as
/// a top-level domain on the CAA climb) all mean "no records here". (hickory 0.26 reports
/// REFUSED as an error response code, no longer as "no records found".)
fn is_negative(error: &NetError) -> bool {
    matches!(
        error,
        NetError::Dns(
            DnsError::NoRecordsFound(NoRecords {
                response_code: ResponseCode::NoError | ResponseCode::NXDomain,
                ..
            }) | DnsError::ResponseCode(ResponseCode::Refused)
        )
    )
}

/// The SOA of an NXDOMAIN or NODATA answer; `None` for REFUSED or an answer without one.
fn negative(error: &NetError) -> Option<Negative> {
    let NetError::Dns(DnsError::NoRecordsFound(NoRecords {
        response_code,
        soa: Some(soa),
        ..
    })) = error
    else {
        return None;
    };
    Some(Negative {
        nxdomain: *response_code == ResponseCode::NXDomain,
        ttl: soa.ttl,
        minimum: soa.data.minimum,
    })
}

/// When a negative answer was cached and when the resolver asks again, as the error says
/// them: hours and minutes (UTC), the first rounded down and the second up, so "again at"
/// is never before the answer expires; with the date when the two fall on different days.
fn cache_times(cached_at: DateTime<Utc>, until: DateTime<Utc>) -> (String, String) {
    let whole_minute = |time: DateTime<Utc>| {
        time.timestamp()
            .div_euclid(60)
            .checked_mul(60)
            .and_then(|seconds| DateTime::from_timestamp(seconds, 0))
            .unwrap_or(time)
    };
    let at = whole_minute(cached_at);
    let again = match whole_minute(until) {
        minute if minute < until => minute + TimeDelta::minutes(1),
        minute => minute,
    };
    let format = if at.date_naive() == again.date_naive() {
        "%H:%M UTC"
    } else {
        "%Y-%m-%d %H:%M UTC"
    };
    (
        at.format(format).to_string(),
        again.format(format).to_string(),
    )
}

fn owned_by(record: &Record, name: &str) -> bool {
    hostname_text(&record.name) == name.trim_end_matches('.').to_ascii_lowercase()
}

fn hostname_text(name: &Name) -> String {
    name.to_ascii().trim_end_matches('.').to_ascii_lowercase()
}

fn found_address(record: &Record) -> Option<FoundRecord> {
    match &record.data {
        RData::A(a) => Some(FoundRecord {
            record_type: "A".to_owned(),
            value: a.0.to_string(),
        }),
        RData::AAAA(aaaa) => Some(FoundRecord {
            record_type: "AAAA".to_owned(),
            value: aaaa.0.to_string(),
        }),
        _ => None,
    }
}

fn failure(
    code: VerificationErrorCode,
    message: String,
    found: Vec<FoundRecord>,
) -> VerificationError {
    VerificationError {
        code,
        message,
        found,
        cached_at: None,
        cached_until: None,
    }
}

pub mod delegation;

#[cfg(test)]
mod tests;
