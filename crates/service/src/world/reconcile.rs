//! Carrying out the certificate lifecycle on the world: reconciling every domain whose
//! certificate is in flight with the store and the clock (issuance, failure at the deadline,
//! renewal, retried hourly after a failure with its cause shown in the API), the CA's checks
//! before it issues or renews (the name still points here, DNSSEC validates, CAA allows it),
//! Verify and Re-verify, and the background task that reconciles while the clock runs.
//!
//! The decisions are [`super::lifecycle`]'s; this file does what they say, with DNS, the CA
//! and the database, so `mod.rs` is left with starting and stopping the world's servers.
//!
//! Allowed cycle with `super`: this file is more of `LocalWorld`'s own methods (`impl
//! LocalWorld`, split from `mod.rs` by job), and `mod.rs` starts the background task defined
//! here; the lifecycle's decisions, which both read, stay in `lifecycle.rs` and import neither.
//!
//! It is longer than the house's 500 lines (about 510 of code, its tests are in the service's
//! `tests/service/world*`): each step of carrying out the lifecycle (advancing a certificate,
//! the CA's checks, DNS-01, saving a certificate, Verify) is a method of `LocalWorld` over the
//! same world state. Split by step, each file would be one more `impl LocalWorld` that imports
//! `mod.rs` and is imported by it: one allowed cycle would become several. The decisions are
//! pure and apart already (`lifecycle.rs`).

use std::collections::HashMap;
use std::sync::PoisonError;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain_desk_api::caa::evaluate;
use domain_desk_api::{
    Certificate, CertificateError, CertificateErrorCode, CertificateStatus, CertificateValidation,
    Domain, DomainStatus, Hostname, ValidationMethod, VerificationErrorCode,
};
use rusqlite::Transaction;

use super::lifecycle::{self, Attempt, CertificateAction, Due, VerifyOutcome};
use super::{LocalWorld, RENEW_BEFORE};
use crate::Result;
use crate::ca::IssuedCertificate;
use crate::dns::Signatures;
use crate::store::domains;
use crate::verify::delegation::DelegationProblem;

/// What the CA's checks before an issuance or a renewal answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Check {
    /// Everything passed; the name was validated by `method`.
    Passed(ValidationMethod),
    /// A check failed with this cause.
    Failed(CertificateError),
    /// The delegation is there, and the CA's DNS-01 token was just published (or is not
    /// visible through it yet): look again at `until`. `cause` is what to report if it never
    /// shows.
    Waiting {
        until: DateTime<Utc>,
        cause: CertificateError,
    },
}

/// A DNS-01 token as ACME makes them: 43 characters of base64url (RFC 8555 §8.4).
fn new_token() -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut rng = rand::thread_rng();
    (0..43)
        .map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())]))
        .collect()
}

/// How often the background task looks for due work while nothing else wakes it (real time).
const BACKGROUND_TICK: Duration = Duration::from_secs(1);

impl LocalWorld {
    /// Marks the lifecycles out of date: the next request reconciles.
    pub fn mark_changed(&self) {
        self.dirty.store(true, Ordering::SeqCst);
    }

    fn is_due(&self) -> bool {
        let generation = *self.clock.subscribe().borrow();
        self.dirty.load(Ordering::SeqCst)
            || generation != self.clock_generation.load(Ordering::SeqCst)
            || self.clock.now().timestamp_micros() >= self.next_due_micros.load(Ordering::SeqCst)
    }

    /// Brings certificate lifecycles up to date with the store and the clock: issuance when
    /// its time is up, failure at the deadline, renewal before expiry. Without `force`, does
    /// nothing unless the clock was changed, a verification started issuance, or something is
    /// due.
    pub async fn reconcile(&self, force: bool) -> Result<()> {
        if !force && !self.is_due() {
            return Ok(());
        }
        let _one_at_a_time = self.reconciling.lock().await;
        if !force && !self.is_due() {
            return Ok(());
        }
        self.dirty.store(false, Ordering::SeqCst);
        self.clock_generation
            .store(*self.clock.subscribe().borrow(), Ordering::SeqCst);
        let now = self.clock.now();
        let mut next_due: Option<DateTime<Utc>> = None;
        let mut due_at = |at: DateTime<Utc>| {
            next_due = Some(next_due.map_or(at, |current| current.min(at)));
        };

        if let Some(at) = self.demo_event(now).await? {
            due_at(at);
        }
        let all_domains = self.store.read(all_domains).await?;
        for domain in &all_domains {
            if let Some(at) = self.advance(domain, now).await? {
                due_at(at);
            }
        }
        self.next_due_micros.store(
            next_due.map_or(i64::MAX, |at| at.timestamp_micros()),
            Ordering::SeqCst,
        );
        self.reconciled.send_modify(|count| *count += 1);
        Ok(())
    }

    /// Carries out what [`lifecycle`] decides for `domain` at `now`: an issuing certificate is
    /// attempted when its issuance time has passed and fails at the deadline; an issued one is
    /// renewed from [`RENEW_BEFORE`] before expiry and fails at expiry without a renewal (the
    /// domain stops being served). Returns when to look again.
    async fn advance(&self, domain: &Domain, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
        let attempt = match lifecycle::due(domain, now, self.timings) {
            Due::Never => return Ok(None),
            Due::At(at) => return Ok(Some(at)),
            Due::Now(attempt) => attempt,
        };
        if let Attempt::Renewal { .. } = attempt {
            let retry_at = self.lock_renewal_retry().get(&domain.hostname).copied();
            if let Some(at) = retry_at.filter(|at| now < *at) {
                return Ok(Some(at));
            }
        }
        let check = match self.check_issuance(domain, attempt, now).await {
            Check::Passed(method) => Ok(method),
            Check::Failed(cause) => Err(cause),
            Check::Waiting { until, cause } => {
                let bound = match attempt {
                    Attempt::Issuance { deadline, .. } => deadline,
                    Attempt::Renewal { expires_at } => expires_at,
                };
                if now < bound {
                    let until = until.min(bound);
                    match attempt {
                        // not a first attempt that passed any more: issued when it passes
                        Attempt::Issuance { .. } => {
                            self.lock_failures().insert(domain.hostname.clone(), cause);
                        }
                        // a wait for the token, not a failing renewal: no error to show
                        Attempt::Renewal { .. } => {
                            self.lock_renewal_retry()
                                .insert(domain.hostname.clone(), until);
                        }
                    }
                    return Ok(Some(until));
                }
                Err(cause)
            }
        };
        let first_attempt = !self.lock_failures().contains_key(&domain.hostname);
        match lifecycle::after_check(attempt, domain, check, now, first_attempt) {
            CertificateAction::Issue {
                issued_at,
                started_at,
                status,
                method,
            } => {
                let issued = self.issue_and_keep(&domain.hostname, issued_at).await?;
                self.zones.withdraw_validation_token(&domain.hostname, now);
                let certificate = Certificate {
                    status: CertificateStatus::Issued,
                    started_at,
                    issued_at: Some(issued.issued_at),
                    expires_at: Some(issued.expires_at),
                    error: None,
                    renews_at: Some(issued.expires_at - RENEW_BEFORE),
                    validation: CertificateValidation {
                        method: Some(method),
                        dns_record: domain.certificate.validation.dns_record.clone(),
                    },
                };
                self.save_certificate(&domain.hostname, status, certificate)
                    .await?;
                match attempt {
                    Attempt::Issuance { .. } => {
                        self.lock_failures().remove(&domain.hostname);
                        tracing::info!(hostname = %domain.hostname, ?method, ?status, "certificate issued");
                    }
                    Attempt::Renewal { .. } => {
                        self.lock_renewal_retry().remove(&domain.hostname);
                        tracing::info!(hostname = %domain.hostname, ?method, "certificate renewed");
                    }
                }
                Ok(Some(issued.expires_at - RENEW_BEFORE))
            }
            CertificateAction::Fail {
                certificate,
                status,
            } => {
                self.lock_renewal_retry().remove(&domain.hostname);
                self.zones.withdraw_validation_token(&domain.hostname, now);
                if let (Attempt::Issuance { .. }, Some(cause)) = (attempt, &certificate.error) {
                    tracing::info!(hostname = %domain.hostname, code = ?cause.code, "certificate failed at the deadline");
                }
                self.save_certificate(&domain.hostname, status, certificate)
                    .await?;
                Ok(None)
            }
            CertificateAction::Retry { at, cause } => {
                if let Some(cause) = cause {
                    self.lock_failures().insert(domain.hostname.clone(), cause);
                }
                Ok(Some(at))
            }
            CertificateAction::RenewalFailing { at, certificate } => {
                self.lock_renewal_retry()
                    .insert(domain.hostname.clone(), at);
                // One write per change of cause, not one per hourly attempt.
                if certificate.error != domain.certificate.error {
                    if let Some(cause) = &certificate.error {
                        tracing::info!(hostname = %domain.hostname, code = ?cause.code, "certificate renewal failed; retrying");
                    }
                    self.save_certificate(&domain.hostname, domain.status, certificate)
                        .await?;
                }
                Ok(Some(at))
            }
        }
    }

    /// The demo's seeded CAA event ([`super::renewal_demo`]): adds the record once its time
    /// has come; otherwise returns when it is due.
    async fn demo_event(&self, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
        let due = *self
            .demo_event
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(at) = due else {
            return Ok(None);
        };
        if now < at {
            return Ok(Some(at));
        }
        let zones = self.zones.clone();
        let added = tokio::task::spawn_blocking(move || {
            zones.add_record(
                super::renewal_demo::EVENT_ZONE,
                &super::renewal_demo::event_record(),
                now,
            )
        })
        .await?;
        if let Err(error) = added {
            // Already there, or the zone is gone: the story cannot happen; do not try again.
            tracing::warn!(%error, "the demo's CAA event could not add its record");
        } else {
            tracing::info!(
                zone = super::renewal_demo::EVENT_ZONE,
                "demo event: a CAA record now allows only another CA"
            );
        }
        self.store
            .write(|tx| super::renewal_demo::event_done(tx))
            .await?;
        *self
            .demo_event
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        Ok(None)
    }

    fn lock_renewal_retry(&self) -> std::sync::MutexGuard<'_, HashMap<String, DateTime<Utc>>> {
        self.renewal_retry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn lock_failures(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, CertificateError>> {
        self.last_failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// What the CA checks before it issues, the first time and at every renewal alike: that
    /// it can validate the name, its zone's DNSSEC validates when the service signs its
    /// zones, and CAA (RFC 8659, through the platform resolver; a wildcard's from its parent,
    /// with `issuewild`) allows this CA.
    ///
    /// Validation: a wildcard, and the renewal of a certificate validated by DNS, only by DNS
    /// (the delegation); any other through the routing record (`http`), and by DNS when the
    /// routing record does not pass but the delegation does. A name that never passed its
    /// routing record (still pending) is told what its delegation lacks; one that did and no
    /// longer points here, `dns_changed` as before.
    async fn check_issuance(&self, domain: &Domain, attempt: Attempt, now: DateTime<Utc>) -> Check {
        let hostname = domain.hostname.as_str();
        let name = match Hostname::parse_domain(hostname) {
            Ok(name) => name,
            Err(error) => {
                return Check::Failed(CertificateError {
                    code: CertificateErrorCode::DnsChanged,
                    message: error.to_string(),
                });
            }
        };
        let by_dns_only = name.is_wildcard()
            || (matches!(attempt, Attempt::Renewal { .. })
                && domain.certificate.validation.method == Some(ValidationMethod::Dns));
        let method = if by_dns_only {
            match self.dns01(&name, now).await {
                Check::Passed(method) => method,
                other => return other,
            }
        } else {
            match self.verifier.verify(&name).await {
                Ok(()) => ValidationMethod::Http,
                Err(routing) => match self.dns01(&name, now).await {
                    Check::Passed(method) => method,
                    Check::Failed(cause)
                        if cause.code == CertificateErrorCode::DelegationMissing
                            && domain.status != DomainStatus::PendingVerification =>
                    {
                        return Check::Failed(
                            if routing.code == VerificationErrorCode::DnsLookupFailed {
                                CertificateError {
                                    code: CertificateErrorCode::DnsLookupFailed,
                                    message: routing.message,
                                }
                            } else {
                                CertificateError {
                                    code: CertificateErrorCode::DnsChanged,
                                    message: format!(
                                        "{hostname} no longer points at the platform: {}",
                                        routing.message
                                    ),
                                }
                            },
                        );
                    }
                    other => return other,
                },
            }
        };
        if let Err(cause) = self.check_dnssec(hostname) {
            return Check::Failed(cause);
        }
        let relevant = match self.verifier.relevant_caa(name.wildcard_base()).await {
            Ok(relevant) => relevant,
            Err(failed) => {
                return Check::Failed(CertificateError {
                    code: CertificateErrorCode::DnsLookupFailed,
                    message: format!(
                        "The CA could not look up CAA records for {hostname}: {}",
                        failed.0
                    ),
                });
            }
        };
        let decision = evaluate(&relevant.records, self.ca.identity(), name.is_wildcard());
        if decision.allowed {
            return Check::Passed(method);
        }
        let at = relevant
            .found_at
            .unwrap_or_else(|| name.wildcard_base().to_owned());
        let tag = if name.is_wildcard() {
            "issuewild"
        } else {
            "issue"
        };
        Check::Failed(CertificateError {
            code: CertificateErrorCode::CaaForbidsIssuance,
            message: format!(
                "CAA records at {at} forbid the platform's CA ({}): {}. Add `0 {tag} \"{}\"` there or remove the records.",
                self.ca.identity(),
                decision.reason,
                self.ca.identity()
            ),
        })
    }

    /// ACME DNS-01 through the delegation: `_acme-challenge.<name>` must CNAME to the
    /// name's target in the validation zone, where the CA publishes its token as TXT (once
    /// per attempt) and then looks for it through the platform's resolver, which sees it only
    /// after the propagation delay.
    async fn dns01(&self, name: &Hostname, now: DateTime<Utc>) -> Check {
        let expected = self.validation_target(name);
        match self.verifier.delegation(name, &expected).await {
            Ok(()) => {}
            Err(DelegationProblem::Missing(message)) => {
                return Check::Failed(CertificateError {
                    code: CertificateErrorCode::DelegationMissing,
                    message: format!(
                        "The certificate for {name} can only be validated by DNS here: {message}"
                    ),
                });
            }
            Err(DelegationProblem::LookupFailed(message)) => {
                return Check::Failed(CertificateError {
                    code: CertificateErrorCode::DnsLookupFailed,
                    message,
                });
            }
        }
        let (token, published_at) = match self.zones.validation_token(name.as_str()) {
            Some(published) => published,
            None => {
                let token = new_token();
                self.zones
                    .publish_validation_token(&expected, name.as_str(), &token, now);
                (token, now)
            }
        };
        match self.verifier.challenge_txt(name, &expected).await {
            Ok(values) if values.contains(&token) => Check::Passed(ValidationMethod::Dns),
            Ok(_) => {
                let visible_at = published_at + self.propagation_delay;
                Check::Waiting {
                    until: if visible_at > now {
                        visible_at
                    } else {
                        now + lifecycle::RETRY_EVERY
                    },
                    cause: CertificateError {
                        code: CertificateErrorCode::DelegationMissing,
                        message: format!(
                            "The CA's DNS-01 token for {name} is not visible at {expected} through {} yet.",
                            name.acme_challenge_fqdn()
                        ),
                    },
                }
            }
            Err(failed) => Check::Failed(CertificateError {
                code: CertificateErrorCode::DnsLookupFailed,
                message: format!(
                    "The CA could not look up the DNS-01 token for {name}: {}",
                    failed.0
                ),
            }),
        }
    }

    /// Publishes a DNS-01 token for `name` unless one is published: called when a Verify
    /// starts an issuance by DNS, so the token has propagated when the CA looks.
    pub(super) fn publish_token(&self, name: &Hostname) {
        if self.zones.validation_token(name.as_str()).is_none() {
            let expected = self.validation_target(name);
            self.zones.publish_validation_token(
                &expected,
                name.as_str(),
                &new_token(),
                self.clock.now(),
            );
        }
    }

    /// The delegation's value for `name`: `<name without *.>.<validation zone>`.
    pub fn validation_target(&self, name: &Hostname) -> String {
        domains::validation_target(name.as_str(), &self.validation_zone)
    }

    /// A validating CA's resolver refuses a signed zone whose signatures no longer validate
    /// (SERVFAIL): the zone holding `hostname` must not have expired signatures.
    fn check_dnssec(&self, hostname: &str) -> std::result::Result<(), CertificateError> {
        let Some(signing) = &self.signing else {
            return Ok(());
        };
        let zone = self
            .zones
            .zone_names()
            .into_iter()
            .filter(|zone| hostname == zone || hostname.ends_with(&format!(".{zone}")))
            .max_by_key(String::len);
        match zone {
            Some(zone) if signing.signatures(&zone) == Signatures::Expired => {
                Err(CertificateError {
                    code: CertificateErrorCode::DnssecInvalid,
                    message: format!(
                        "DNSSEC for {zone} does not validate (its signatures have expired), so \
                         the CA cannot trust the answers for {hostname}. Have the DNS provider \
                         sign the zone again, or turn DNSSEC off at the registrar."
                    ),
                })
            }
            _ => Ok(()),
        }
    }

    async fn issue_and_keep(
        &self,
        hostname: &str,
        now: DateTime<Utc>,
    ) -> Result<IssuedCertificate> {
        let (ca, store, certificates) = (
            self.ca.clone(),
            self.store.clone(),
            self.certificates.clone(),
        );
        let hostname = hostname.to_owned();
        let loaded =
            tokio::task::spawn_blocking(move || certificates.issue(&ca, &store, &hostname, now))
                .await??;
        Ok(loaded.issued)
    }

    async fn save_certificate(
        &self,
        hostname: &str,
        status: DomainStatus,
        certificate: Certificate,
    ) -> Result<()> {
        let hostname = hostname.to_owned();
        self.store
            .write(move |tx| domains::set_certificate(tx, &hostname, status, &certificate))
            .await
    }

    /// Verify or Re-verify: look the records up through the platform resolver, let `record`
    /// write the result in one transaction (with what [`lifecycle::after_verification`]
    /// decides, through [`record_verification`], and whatever the caller commits with it, such
    /// as the request's answer), and start a fresh issuance attempt when it passes.
    /// `record` returns its value and whether it started a fresh attempt.
    pub async fn verify<T, F>(&self, hostname: &Hostname, record: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>, VerifyOutcome, DateTime<Utc>) -> Result<(T, bool)>
            + Send
            + 'static,
    {
        let routing = self.verifier.verify(hostname).await;
        // The delegation matters when the routing record cannot validate the name.
        let by_dns = routing.is_err() || hostname.is_wildcard();
        let delegated = by_dns
            && self
                .verifier
                .delegation(hostname, &self.validation_target(hostname))
                .await
                .is_ok();
        let outcome = VerifyOutcome { routing, delegated };
        let now = self.clock.now();
        let one_at_a_time = self.reconciling.lock().await;
        let (value, fresh_attempt) = self.store.write(move |tx| record(tx, outcome, now)).await?;
        if fresh_attempt {
            self.lock_failures().remove(hostname.as_str());
            if by_dns && delegated {
                self.publish_token(hostname);
            }
        }
        drop(one_at_a_time);
        self.mark_changed();
        self.reconcile(true).await?;
        Ok(value)
    }
}

/// Writes a verification of `domain` that DNS answered with `outcome`, as
/// [`lifecycle::after_verification`] decides it, in `tx` (for the `record` step of
/// [`LocalWorld::verify`]); returns whether a fresh issuance attempt started.
pub fn record_verification(
    tx: &Transaction<'_>,
    domain: &Domain,
    outcome: &VerifyOutcome,
    now: DateTime<Utc>,
) -> Result<bool> {
    let change = lifecycle::after_verification(domain, outcome, now);
    domains::set_verification(tx, &domain.hostname, change.status, &change.verification)?;
    let Some(fresh) = change.fresh_certificate else {
        return Ok(false);
    };
    domains::set_certificate(tx, &domain.hostname, change.status, &fresh)?;
    Ok(true)
}

fn all_domains(conn: &rusqlite::Connection) -> Result<Vec<Domain>> {
    let mut all = Vec::new();
    for status in [CertificateStatus::Issuing, CertificateStatus::Issued] {
        all.extend(domains::with_certificate_status(conn, status)?);
    }
    Ok(all)
}

/// Reconciles when the clock changes or a deadline comes due, until stopped.
pub(super) async fn background(
    world: std::sync::Weak<LocalWorld>,
    stopped: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(stopped);
    let Some(mut changes) = world.upgrade().map(|world| world.clock.subscribe()) else {
        return;
    };
    loop {
        tokio::select! {
            () = &mut stopped => return,
            _ = changes.changed() => {}
            () = tokio::time::sleep(BACKGROUND_TICK) => {}
        }
        let Some(world) = world.upgrade() else {
            return;
        };
        if let Err(error) = world.reconcile(false).await {
            tracing::error!(%error, "reconciling certificates and the edge failed");
        }
    }
}
