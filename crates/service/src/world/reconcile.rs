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

use std::collections::HashMap;
use std::sync::PoisonError;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain_desk_api::caa::evaluate;
use domain_desk_api::{
    Certificate, CertificateError, CertificateErrorCode, CertificateStatus, Domain, DomainStatus,
    Hostname, VerificationError, VerificationErrorCode,
};
use rusqlite::Transaction;

use super::lifecycle::{self, Attempt, CertificateAction, Due};
use super::{LocalWorld, RENEW_BEFORE};
use crate::Result;
use crate::ca::IssuedCertificate;
use crate::dns::Signatures;
use crate::store::domains;

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
        let check = self.check_issuance(&domain.hostname).await;
        let first_attempt = !self.lock_failures().contains_key(&domain.hostname);
        match lifecycle::after_check(attempt, domain, check, now, first_attempt) {
            CertificateAction::Issue {
                issued_at,
                started_at,
                status,
            } => {
                let issued = self.issue_and_keep(&domain.hostname, issued_at).await?;
                let certificate = Certificate {
                    status: CertificateStatus::Issued,
                    started_at,
                    issued_at: Some(issued.issued_at),
                    expires_at: Some(issued.expires_at),
                    error: None,
                    renews_at: Some(issued.expires_at - RENEW_BEFORE),
                };
                self.save_certificate(&domain.hostname, status, certificate)
                    .await?;
                match attempt {
                    Attempt::Issuance { .. } => {
                        self.lock_failures().remove(&domain.hostname);
                        tracing::info!(hostname = %domain.hostname, "certificate issued; domain live");
                    }
                    Attempt::Renewal { .. } => {
                        self.lock_renewal_retry().remove(&domain.hostname);
                        tracing::info!(hostname = %domain.hostname, "certificate renewed");
                    }
                }
                Ok(Some(issued.expires_at - RENEW_BEFORE))
            }
            CertificateAction::Fail { certificate } => {
                self.lock_renewal_retry().remove(&domain.hostname);
                if let (Attempt::Issuance { .. }, Some(cause)) = (attempt, &certificate.error) {
                    tracing::info!(hostname = %domain.hostname, code = ?cause.code, "certificate failed at the deadline");
                }
                self.save_certificate(&domain.hostname, DomainStatus::Verified, certificate)
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

    /// What the CA checks before it issues, the first time and at every renewal alike: the
    /// name still points at the platform, its zone's DNSSEC validates when the service signs
    /// its zones, and CAA (RFC 8659, through the platform resolver) allows this CA.
    async fn check_issuance(&self, hostname: &str) -> std::result::Result<(), CertificateError> {
        let name = Hostname::parse(hostname).map_err(|error| CertificateError {
            code: CertificateErrorCode::DnsChanged,
            message: error.to_string(),
        })?;
        if let Err(error) = self.verifier.verify(&name).await {
            return Err(if error.code == VerificationErrorCode::DnsLookupFailed {
                CertificateError {
                    code: CertificateErrorCode::DnsLookupFailed,
                    message: error.message,
                }
            } else {
                CertificateError {
                    code: CertificateErrorCode::DnsChanged,
                    message: format!(
                        "{hostname} no longer points at the platform: {}",
                        error.message
                    ),
                }
            });
        }
        self.check_dnssec(hostname)?;
        let relevant = self
            .verifier
            .relevant_caa(hostname)
            .await
            .map_err(|failed| CertificateError {
                code: CertificateErrorCode::DnsLookupFailed,
                message: format!(
                    "The CA could not look up CAA records for {hostname}: {}",
                    failed.0
                ),
            })?;
        let decision = evaluate(&relevant.records, self.ca.identity(), false);
        if decision.allowed {
            return Ok(());
        }
        let at = relevant.found_at.unwrap_or_else(|| hostname.to_owned());
        Err(CertificateError {
            code: CertificateErrorCode::CaaForbidsIssuance,
            message: format!(
                "CAA records at {at} forbid the platform's CA ({}): {}. Add `0 issue \"{}\"` there or remove the records.",
                self.ca.identity(),
                decision.reason,
                self.ca.identity()
            ),
        })
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
        F: FnOnce(
                &Transaction<'_>,
                Result<(), VerificationError>,
                DateTime<Utc>,
            ) -> Result<(T, bool)>
            + Send
            + 'static,
    {
        let outcome = self.verifier.verify(hostname).await;
        let now = self.clock.now();
        let one_at_a_time = self.reconciling.lock().await;
        let (value, fresh_attempt) = self.store.write(move |tx| record(tx, outcome, now)).await?;
        if fresh_attempt {
            self.lock_failures().remove(hostname.as_str());
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
    outcome: &std::result::Result<(), VerificationError>,
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
