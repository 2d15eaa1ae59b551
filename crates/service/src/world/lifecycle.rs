//! What a domain's state should become: the certificate lifecycle's decisions as pure
//! functions of the domain, what DNS (or the CA's checks) answered, and the clock's now.
//!
//! A certificate is validated through the routing record (`http`) or through the delegation
//! (`dns`: `_acme-challenge.<name>` CNAME to the platform's validation zone). The delegation
//! lets it be issued before traffic moves: a Verify whose routing fails while the delegation
//! passes starts issuance and leaves the domain `pending_verification` (issuance never makes a
//! pending domain live; only a Verify whose routing passes does, at once when the certificate
//! is already issued).
//!
//! It exists apart from [`super::LocalWorld`], which asks DNS, issues certificates and writes
//! the results, so that every rule (when issuance is due, what a passed or failed check leads
//! to, when a renewal is tried and when it gives up) is read in one place and unit-tested
//! without sockets, a database or a running clock. Nothing here does I/O.
//!
//! It is longer than the house's 500 lines only with its tests (about 180 of code, 340 of
//! tests): the rules are tested case by case here, with the times given by hand.

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::{
    Certificate, CertificateError, CertificateStatus, Domain, DomainStatus, ValidationMethod,
    Verification, VerificationError,
};

pub use crate::ca::RENEW_BEFORE;

/// How often a failing issuance attempt is retried (virtual time) before its deadline.
pub const RETRY_EVERY: TimeDelta = TimeDelta::minutes(1);

/// How often a failing renewal is tried again (virtual time) until the certificate expires:
/// a fix made in DNS is picked up by the next attempt, within the hour.
pub const RENEWAL_RETRY_EVERY: TimeDelta = TimeDelta::hours(1);

/// The lifecycle's timings, from the service's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    /// How long the CA takes from a passed verification to the first issuance attempt.
    pub issuance_time: TimeDelta,
    /// How long after the start an issuance that keeps failing gives up.
    pub deadline: TimeDelta,
}

/// What a Verify or Re-verify writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerificationChange {
    /// The domain's status after the check.
    pub status: DomainStatus,
    /// The check's time and its error, if any.
    pub verification: Verification,
    /// A fresh issuance attempt, when the check passed and no certificate is issued or being
    /// issued; `None` leaves the certificate as it is.
    pub fresh_certificate: Option<Certificate>,
}

/// What a Verify found: the routing record's check, and whether the delegation passes
/// (asked only when it matters: the routing failed, or the name is a wildcard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyOutcome {
    pub routing: Result<(), VerificationError>,
    pub delegated: bool,
}

impl VerifyOutcome {
    /// The routing record's outcome alone (no delegation).
    pub fn routing(routing: Result<(), VerificationError>) -> Self {
        Self {
            routing,
            delegated: false,
        }
    }
}

/// A verification of `domain` that DNS answered with `outcome` at `now`. A passing routing
/// record makes the domain `Verified`, or `Live` at once when its certificate is already
/// issued (by DNS validation before the switch) or it was live; it starts issuance unless a
/// certificate is issued or being issued. A failing routing record records its error and
/// leaves the status; when the delegation passes it still starts issuance (validated by DNS).
pub fn after_verification(
    domain: &Domain,
    outcome: &VerifyOutcome,
    now: DateTime<Utc>,
) -> VerificationChange {
    let verification = Verification {
        checked_at: Some(now),
        error: outcome.routing.as_ref().err().cloned(),
    };
    let in_flight = matches!(
        domain.certificate.status,
        CertificateStatus::Issued | CertificateStatus::Issuing
    );
    let status = match (&outcome.routing, domain.certificate.status) {
        (Err(_), _) => domain.status,
        (Ok(()), CertificateStatus::Issued) => DomainStatus::Live,
        (Ok(()), _) if domain.status == DomainStatus::Live => DomainStatus::Live,
        (Ok(()), _) => DomainStatus::Verified,
    };
    let starts = !in_flight && (outcome.routing.is_ok() || outcome.delegated);
    VerificationChange {
        status,
        verification,
        fresh_certificate: starts.then(|| Certificate {
            status: CertificateStatus::Issuing,
            started_at: Some(now),
            issued_at: None,
            expires_at: None,
            error: None,
            renews_at: None,
            validation: domain.certificate.validation.clone(),
        }),
    }
}

/// When a domain's certificate next needs the CA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Nothing in flight: no certificate, or one that failed.
    Never,
    /// Nothing to do before this time.
    At(DateTime<Utc>),
    /// The CA's checks are due now; [`after_check`] says what their answer leads to.
    Now(Attempt),
}

/// An attempt the CA makes, with the times that bound it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// An issuing certificate whose issuance time is up; it fails at `deadline`.
    Issuance {
        ready_at: DateTime<Utc>,
        deadline: DateTime<Utc>,
    },
    /// An issued certificate inside its renewal window; it fails at `expires_at`.
    Renewal { expires_at: DateTime<Utc> },
}

/// Whether `domain`'s certificate needs the CA at `now`: issuance once the issuance time has
/// passed since it started, renewal from [`RENEW_BEFORE`] before expiry.
pub fn due(domain: &Domain, now: DateTime<Utc>, timings: Timings) -> Due {
    match domain.certificate.status {
        CertificateStatus::Issuing => {
            let started = domain.certificate.started_at.unwrap_or(now);
            let ready_at = started + timings.issuance_time;
            if now < ready_at {
                return Due::At(ready_at);
            }
            Due::Now(Attempt::Issuance {
                ready_at,
                deadline: started + timings.deadline,
            })
        }
        CertificateStatus::Issued => {
            let Some(expires_at) = domain.certificate.expires_at else {
                return Due::Never;
            };
            let renew_at = expires_at - RENEW_BEFORE;
            if now < renew_at {
                return Due::At(renew_at);
            }
            Due::Now(Attempt::Renewal { expires_at })
        }
        CertificateStatus::None | CertificateStatus::Failed => Due::Never,
    }
}

/// What the CA does once its checks answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CertificateAction {
    /// Issue a certificate dated `issued_at`, validated by `method`, and save it as `Issued`
    /// (keeping `started_at`); the domain becomes `status`. Its renewal is due
    /// [`RENEW_BEFORE`] before it expires.
    Issue {
        issued_at: DateTime<Utc>,
        started_at: Option<DateTime<Utc>>,
        status: DomainStatus,
        method: ValidationMethod,
    },
    /// Give up: save this `Failed` certificate; the domain becomes `status` (back to
    /// `Verified`, or still `PendingVerification`) and is no longer served.
    Fail {
        certificate: Certificate,
        status: DomainStatus,
    },
    /// Ask again at `at`. An issuance remembers its `cause`, so that the next pass knows it
    /// is not the first attempt.
    Retry {
        at: DateTime<Utc>,
        cause: Option<CertificateError>,
    },
    /// A renewal attempt failed while the certificate is still valid: save `certificate`
    /// (still `Issued`, with the attempt's cause as its error, so the API shows it) and try
    /// again at `at`.
    RenewalFailing {
        at: DateTime<Utc>,
        certificate: Certificate,
    },
}

/// The outcome of `attempt` for `domain` whose checks answered `check` at `now` (on a pass,
/// how the CA validated the name). `first_attempt` is whether no earlier attempt of this
/// issuance failed: passing at the first attempt, the CA finished when the issuance time was
/// up (the clock may have jumped well past it); after failed attempts, now. An issuance makes
/// a verified domain live; a pending one (issued by DNS before its routing record passes)
/// stays pending until a Verify.
pub fn after_check(
    attempt: Attempt,
    domain: &Domain,
    check: Result<ValidationMethod, CertificateError>,
    now: DateTime<Utc>,
    first_attempt: bool,
) -> CertificateAction {
    let pending = domain.status == DomainStatus::PendingVerification;
    let failed = |cause| CertificateAction::Fail {
        certificate: Certificate {
            status: CertificateStatus::Failed,
            started_at: domain.certificate.started_at,
            issued_at: None,
            expires_at: None,
            error: Some(cause),
            renews_at: None,
            validation: domain.certificate.validation.clone(),
        },
        status: if pending {
            DomainStatus::PendingVerification
        } else {
            DomainStatus::Verified
        },
    };
    match (attempt, check) {
        (Attempt::Issuance { ready_at, .. }, Ok(method)) => CertificateAction::Issue {
            issued_at: if first_attempt { ready_at } else { now },
            started_at: domain.certificate.started_at,
            status: if pending {
                DomainStatus::PendingVerification
            } else {
                DomainStatus::Live
            },
            method,
        },
        (Attempt::Issuance { deadline, .. }, Err(cause)) if now >= deadline => failed(cause),
        (Attempt::Issuance { deadline, .. }, Err(cause)) => CertificateAction::Retry {
            at: (now + RETRY_EVERY).min(deadline),
            cause: Some(cause),
        },
        (Attempt::Renewal { .. }, Ok(method)) => CertificateAction::Issue {
            issued_at: now,
            started_at: Some(now),
            status: domain.status,
            method,
        },
        (Attempt::Renewal { expires_at }, Err(cause)) if now >= expires_at => failed(cause),
        (Attempt::Renewal { expires_at }, Err(cause)) => CertificateAction::RenewalFailing {
            at: (now + RENEWAL_RETRY_EVERY).min(expires_at),
            certificate: Certificate {
                error: Some(cause),
                ..domain.certificate.clone()
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain_desk_api::{
        CertificateErrorCode, DnsRecord, DnsRecordType, DomainRole, VerificationErrorCode,
    };

    fn at(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap() + TimeDelta::minutes(minutes)
    }

    const TIMINGS: Timings = Timings {
        issuance_time: TimeDelta::minutes(2),
        deadline: TimeDelta::minutes(10),
    };

    fn domain(status: DomainStatus, certificate: Certificate) -> Domain {
        Domain {
            hostname: "shop.example.com".into(),
            unicode_hostname: "shop.example.com".into(),
            project_id: "p1".into(),
            apex: false,
            role: DomainRole::Primary,
            redirect: None,
            status,
            dns_record: DnsRecord {
                record_type: DnsRecordType::Cname,
                name: "shop".into(),
                value: "pages.test".into(),
                ttl: 60,
            },
            verification: Verification::default(),
            certificate,
            created_at: at(-60),
        }
    }

    fn issuing(started: i64) -> Certificate {
        Certificate {
            status: CertificateStatus::Issuing,
            started_at: Some(at(started)),
            issued_at: None,
            expires_at: None,
            error: None,
            renews_at: None,
            validation: Default::default(),
        }
    }

    fn issued(expires_in_days: i64) -> Certificate {
        Certificate {
            status: CertificateStatus::Issued,
            started_at: Some(at(-5)),
            issued_at: Some(at(-3)),
            expires_at: Some(at(0) + TimeDelta::days(expires_in_days)),
            error: None,
            renews_at: Some(at(0) + TimeDelta::days(expires_in_days) - RENEW_BEFORE),
            validation: Default::default(),
        }
    }

    fn caa_forbids() -> CertificateError {
        CertificateError {
            code: CertificateErrorCode::CaaForbidsIssuance,
            message: "CAA forbids".into(),
        }
    }

    fn passed() -> VerifyOutcome {
        VerifyOutcome::routing(Ok(()))
    }

    fn delegated(routing: Result<(), VerificationError>) -> VerifyOutcome {
        VerifyOutcome {
            routing,
            delegated: true,
        }
    }

    fn record_missing() -> VerificationError {
        VerificationError {
            code: VerificationErrorCode::RecordMissing,
            message: "no CNAME".into(),
            found: Vec::new(),
            cached_at: None,
            cached_until: None,
        }
    }

    #[test]
    fn a_passed_verification_verifies_and_starts_issuance() {
        let pending = domain(DomainStatus::PendingVerification, Certificate::default());
        let change = after_verification(&pending, &passed(), at(0));
        assert_eq!(change.status, DomainStatus::Verified);
        assert_eq!(change.verification.checked_at, Some(at(0)));
        assert_eq!(change.verification.error, None);
        assert_eq!(change.fresh_certificate, Some(issuing(0)));
    }

    #[test]
    fn a_passed_verification_keeps_a_live_domain_and_its_certificate() {
        let live = domain(DomainStatus::Live, issued(60));
        let change = after_verification(&live, &passed(), at(0));
        assert_eq!(change.status, DomainStatus::Live);
        assert_eq!(change.fresh_certificate, None);

        let already_issuing = domain(DomainStatus::Verified, issuing(-1));
        let change = after_verification(&already_issuing, &passed(), at(0));
        assert_eq!(change.status, DomainStatus::Verified);
        assert_eq!(change.fresh_certificate, None);
    }

    #[test]
    fn a_passed_verification_after_a_failed_certificate_starts_again() {
        let failed = Certificate {
            status: CertificateStatus::Failed,
            error: Some(caa_forbids()),
            ..issuing(-20)
        };
        let change = after_verification(&domain(DomainStatus::Verified, failed), &passed(), at(0));
        assert_eq!(change.fresh_certificate, Some(issuing(0)));
    }

    #[test]
    fn a_failed_verification_records_its_error_and_changes_nothing_else() {
        let live = domain(DomainStatus::Live, issued(60));
        let change =
            after_verification(&live, &VerifyOutcome::routing(Err(record_missing())), at(0));
        assert_eq!(change.status, DomainStatus::Live);
        assert_eq!(change.verification.error, Some(record_missing()));
        assert_eq!(change.fresh_certificate, None);
    }

    #[test]
    fn a_failing_routing_record_with_the_delegation_starts_issuance_and_stays_pending() {
        let pending = domain(DomainStatus::PendingVerification, Certificate::default());
        let change = after_verification(&pending, &delegated(Err(record_missing())), at(0));
        assert_eq!(change.status, DomainStatus::PendingVerification);
        assert_eq!(change.verification.error, Some(record_missing()));
        assert_eq!(change.fresh_certificate, Some(issuing(0)));
        // without the delegation nothing starts
        let change = after_verification(
            &pending,
            &VerifyOutcome::routing(Err(record_missing())),
            at(0),
        );
        assert_eq!(change.fresh_certificate, None);
    }

    #[test]
    fn the_first_passing_routing_record_makes_a_domain_with_its_certificate_live_at_once() {
        let ready = domain(DomainStatus::PendingVerification, issued(90));
        let change = after_verification(&ready, &passed(), at(0));
        assert_eq!(change.status, DomainStatus::Live);
        assert_eq!(change.fresh_certificate, None);
        // still failing: pending, the certificate kept
        let change = after_verification(&ready, &delegated(Err(record_missing())), at(0));
        assert_eq!(change.status, DomainStatus::PendingVerification);
        assert_eq!(change.fresh_certificate, None);
    }

    #[test]
    fn issuance_by_dns_leaves_a_pending_domain_pending_and_a_failure_too() {
        let pending = domain(DomainStatus::PendingVerification, issuing(0));
        let attempt = Attempt::Issuance {
            ready_at: at(2),
            deadline: at(10),
        };
        assert_eq!(
            after_check(attempt, &pending, Ok(ValidationMethod::Dns), at(2), true),
            CertificateAction::Issue {
                issued_at: at(2),
                started_at: Some(at(0)),
                status: DomainStatus::PendingVerification,
                method: ValidationMethod::Dns,
            }
        );
        match after_check(attempt, &pending, Err(caa_forbids()), at(10), false) {
            CertificateAction::Fail { status, .. } => {
                assert_eq!(status, DomainStatus::PendingVerification);
            }
            other => panic!("fails at the deadline, not {other:?}"),
        }
    }

    #[test]
    fn issuance_is_due_once_the_issuance_time_is_up() {
        let verified = domain(DomainStatus::Verified, issuing(0));
        assert_eq!(due(&verified, at(1), TIMINGS), Due::At(at(2)));
        let attempt = Attempt::Issuance {
            ready_at: at(2),
            deadline: at(10),
        };
        assert_eq!(due(&verified, at(2), TIMINGS), Due::Now(attempt));
        assert_eq!(due(&verified, at(500), TIMINGS), Due::Now(attempt));
    }

    #[test]
    fn renewal_is_due_thirty_days_before_expiry() {
        let live = domain(DomainStatus::Live, issued(90));
        let renew_at = at(0) + TimeDelta::days(60);
        assert_eq!(due(&live, at(0), TIMINGS), Due::At(renew_at));
        assert_eq!(
            due(&live, renew_at, TIMINGS),
            Due::Now(Attempt::Renewal {
                expires_at: at(0) + TimeDelta::days(90)
            })
        );
    }

    #[test]
    fn nothing_is_due_without_a_certificate_in_flight() {
        for certificate in [
            Certificate::default(),
            Certificate {
                status: CertificateStatus::Failed,
                ..issuing(0)
            },
            Certificate {
                expires_at: None,
                ..issued(90)
            },
        ] {
            let domain = domain(DomainStatus::Verified, certificate);
            assert_eq!(due(&domain, at(1000), TIMINGS), Due::Never);
        }
    }

    #[test]
    fn a_first_attempt_that_passes_is_dated_when_the_issuance_time_was_up() {
        let verified = domain(DomainStatus::Verified, issuing(0));
        let Due::Now(attempt) = due(&verified, at(300), TIMINGS) else {
            panic!("due");
        };
        assert_eq!(
            after_check(
                attempt,
                &verified,
                Ok(ValidationMethod::Http),
                at(300),
                true
            ),
            CertificateAction::Issue {
                issued_at: at(2),
                started_at: Some(at(0)),
                status: DomainStatus::Live,
                method: ValidationMethod::Http,
            }
        );
        // after failed attempts, the CA finished now
        assert_eq!(
            after_check(
                attempt,
                &verified,
                Ok(ValidationMethod::Http),
                at(300),
                false
            ),
            CertificateAction::Issue {
                issued_at: at(300),
                started_at: Some(at(0)),
                status: DomainStatus::Live,
                method: ValidationMethod::Http,
            }
        );
    }

    #[test]
    fn a_failing_issuance_retries_until_its_deadline_then_fails() {
        let verified = domain(DomainStatus::Verified, issuing(0));
        let attempt = Attempt::Issuance {
            ready_at: at(2),
            deadline: at(10),
        };
        assert_eq!(
            after_check(attempt, &verified, Err(caa_forbids()), at(2), true),
            CertificateAction::Retry {
                at: at(3),
                cause: Some(caa_forbids()),
            }
        );
        // the last retry falls on the deadline, not past it
        let just_before = at(10) - TimeDelta::seconds(30);
        assert_eq!(
            after_check(attempt, &verified, Err(caa_forbids()), just_before, false),
            CertificateAction::Retry {
                at: at(10),
                cause: Some(caa_forbids()),
            }
        );
        assert_eq!(
            after_check(attempt, &verified, Err(caa_forbids()), at(10), false),
            CertificateAction::Fail {
                certificate: Certificate {
                    status: CertificateStatus::Failed,
                    started_at: Some(at(0)),
                    issued_at: None,
                    expires_at: None,
                    error: Some(caa_forbids()),
                    renews_at: None,
                    validation: Default::default(),
                },
                status: DomainStatus::Verified,
            }
        );
    }

    #[test]
    fn a_renewal_that_passes_starts_and_issues_now_keeping_the_status() {
        let live = domain(DomainStatus::Live, issued(20));
        let attempt = Attempt::Renewal {
            expires_at: at(0) + TimeDelta::days(20),
        };
        assert_eq!(
            after_check(attempt, &live, Ok(ValidationMethod::Dns), at(0), true),
            CertificateAction::Issue {
                issued_at: at(0),
                started_at: Some(at(0)),
                status: DomainStatus::Live,
                method: ValidationMethod::Dns,
            }
        );
    }

    #[test]
    fn a_failing_renewal_shows_its_cause_and_retries_hourly_until_expiry_then_fails() {
        let live = domain(DomainStatus::Live, issued(20));
        let expires_at = at(0) + TimeDelta::days(20);
        let attempt = Attempt::Renewal { expires_at };
        assert_eq!(
            after_check(attempt, &live, Err(caa_forbids()), at(0), true),
            CertificateAction::RenewalFailing {
                at: at(60),
                certificate: Certificate {
                    error: Some(caa_forbids()),
                    ..issued(20)
                },
            }
        );
        // the last retry falls on the expiry, not past it
        assert_eq!(
            after_check(
                attempt,
                &live,
                Err(caa_forbids()),
                expires_at - TimeDelta::minutes(10),
                false
            ),
            CertificateAction::RenewalFailing {
                at: expires_at,
                certificate: Certificate {
                    error: Some(caa_forbids()),
                    ..issued(20)
                },
            }
        );
        let certificate = match after_check(attempt, &live, Err(caa_forbids()), expires_at, true) {
            CertificateAction::Fail { certificate, .. } => certificate,
            other => panic!("fails at expiry, not {other:?}"),
        };
        assert_eq!(certificate.status, CertificateStatus::Failed);
        assert_eq!(certificate.started_at, Some(at(-5)));
        assert_eq!(certificate.error, Some(caa_forbids()));
    }
}
