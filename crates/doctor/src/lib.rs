//! The DNS doctor: local diagnostics that find why a custom domain is stuck, show the
//! evidence (which server said what, with TTLs) and say the exact record to add or remove.
//!
//! For each hostname it works out whether the name is an apex or a subdomain (Public Suffix
//! List and SOA), asks the zone's own nameservers and the system and public resolvers in
//! parallel (or only the servers the caller names, for offline use against the local
//! service), compares what they say, judges the records as the platform's verification does,
//! climbs the CAA tree to the root as a CA does, and, once DNS is right, looks at the
//! certificate and redirect the edge serves.
//!
//! The app's Diagnose panel and `domain-desk doctor` both call [`diagnose`] and render the
//! same [`Report`]. This crate knows nothing of Tauri or of the local service.

pub mod capture;
pub mod chain;
pub mod checks;
pub mod clock;
mod delegation;
pub mod dns;
pub mod error;
pub mod escape;
mod host;
pub mod live_certificate;
pub mod markdown;
pub mod options;
pub mod picture;
pub mod preflight;
pub mod providers;
pub mod renewal;
pub mod report;
mod servers;
pub mod text;
pub mod tls_probe;

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;

pub use clock::RunClock;
pub use error::{Error, Result};
pub use options::{DEFAULT_CA_IDENTITY, DoctorOptions};
pub use report::{
    CaaClimb, CertificateInfo, Finding, FindingCode, HostReport, NameKind, Report, Severity,
    SourceView, TlsProbe,
};

pub use crate::capture::Capture;
use crate::capture::{CAPTURE_FORMAT, CAPTURE_VERSION};
use crate::checks::dnssec::recording::DnssecSource;
use crate::dns::{
    DnsSource, NetworkSource, QueryEngine, QueryOptions, Recorder, Replayer, WireQuery,
};
use crate::report::Severity as Level;
use crate::servers::Server;
use crate::tls_probe::TlsSource;

/// Diagnoses `hostnames` (a batch, with at most `options.concurrency` at once) and returns
/// the report, hostnames in the order given.
pub async fn diagnose<S: AsRef<str>>(hostnames: &[S], options: &DoctorOptions) -> Result<Report> {
    Ok(diagnose_on_network(hostnames, options).await?.0)
}

/// As [`diagnose`], judging time-bound findings (certificate expiry, renewal dates, DNSSEC
/// signatures) at `now` rather than by `options.clock`: the platform's clock, when it runs
/// its own (the local service's virtual clock).
pub async fn diagnose_at<S: AsRef<str>>(
    hostnames: &[S],
    options: &DoctorOptions,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Report> {
    Ok(diagnose_on_network_at(hostnames, options, now).await?.0)
}

/// As [`diagnose`], also returning every DNS question sent over the wire (for comparisons
/// such as the benchmark against `dig`).
pub async fn diagnose_logged<S: AsRef<str>>(
    hostnames: &[S],
    options: &DoctorOptions,
) -> Result<(Report, Vec<WireQuery>)> {
    let (report, engine) = diagnose_on_network(hostnames, options).await?;
    Ok((report, engine.wire_queries()))
}

/// A run against the network: its report, and the engine that asked its questions.
async fn diagnose_on_network<S: AsRef<str>>(
    hostnames: &[S],
    options: &DoctorOptions,
) -> Result<(Report, QueryEngine)> {
    diagnose_on_network_at(hostnames, options, options.clock.now()).await
}

async fn diagnose_on_network_at<S: AsRef<str>>(
    hostnames: &[S],
    options: &DoctorOptions,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(Report, QueryEngine)> {
    validate(options)?;
    let servers = servers::fixed_servers(options)?;
    let engine = engine_for(options, Arc::new(NetworkSource::new()));
    let dnssec = dnssec_source(options, &servers, false).await?;
    let (report, _) = run(
        hostnames,
        options,
        servers,
        engine.clone(),
        TlsSource::Network,
        dnssec,
        now,
    )
    .await;
    Ok((report, engine))
}

/// As [`diagnose`], also recording every question, answer and certificate chain seen into a
/// [`Capture`] that [`replay`] turns into the same report with no network.
pub async fn diagnose_capturing<S: AsRef<str>>(
    hostnames: &[S],
    options: &DoctorOptions,
) -> Result<(Report, Capture)> {
    validate(options)?;
    let servers = servers::fixed_servers(options)?;
    let recorder = Arc::new(Recorder::new(Arc::new(NetworkSource::new()), options.clock));
    let engine = engine_for(options, recorder.clone());
    let dnssec = dnssec_source(options, &servers, true).await?;
    // By the run's clock: a replay judges certificates at this instant.
    let captured_at = options.clock.now();
    let (report, run) = run(
        hostnames,
        options,
        servers,
        engine,
        TlsSource::Recording(Default::default()),
        dnssec,
        captured_at,
    )
    .await;
    let capture = Capture {
        format: CAPTURE_FORMAT.to_owned(),
        version: CAPTURE_VERSION,
        doctor_version: env!("CARGO_PKG_VERSION").to_owned(),
        captured_at,
        hostnames: hostnames
            .iter()
            .map(|hostname| hostname.as_ref().to_owned())
            .collect(),
        options: options.clone(),
        servers: report.sources.clone(),
        exchanges: recorder.exchanges(),
        tls: run.tls.recorded(),
        dnssec: run
            .dnssec
            .as_ref()
            .map(DnssecSource::recorded)
            .unwrap_or_default(),
        elapsed_ms: report.elapsed_ms,
        host_elapsed_ms: report.hosts.iter().map(|host| host.elapsed_ms).collect(),
    };
    Ok((report, capture))
}

/// As [`diagnose_capturing`], writing the capture to `path` ("Save diagnostics…" in the
/// app): the report is returned once the file is written.
pub async fn diagnose_into_file<S: AsRef<str>>(
    hostnames: &[S],
    options: &DoctorOptions,
    path: &std::path::Path,
) -> Result<Report> {
    let (report, capture) = diagnose_capturing(hostnames, options).await?;
    capture.save(path)?;
    Ok(report)
}

/// Runs the analysis of `capture` again, from its answers alone: no question reaches the
/// network, and the report is the one the capturing run produced.
pub async fn replay(capture: &Capture) -> Result<Report> {
    validate(&capture.options)?;
    let servers = servers::captured_servers(&capture.servers)?;
    let options = &capture.options;
    let engine = engine_for(options, Arc::new(Replayer::new(capture.answers()?)));
    let (mut report, _) = run(
        &capture.hostnames,
        options,
        servers,
        engine,
        TlsSource::Replay(capture.tls.clone()),
        Some(DnssecSource::Replay(capture.dnssec.clone())),
        capture.captured_at,
    )
    .await;
    // Timings are what the capturing run measured, not how fast the file reads.
    report.elapsed_ms = capture.elapsed_ms;
    for (host, elapsed_ms) in report.hosts.iter_mut().zip(&capture.host_elapsed_ms) {
        host.elapsed_ms = *elapsed_ms;
    }
    Ok(report)
}

/// The DNSSEC validation of a run: with the caller's trust anchor or IANA's. The keys a DS
/// anchor names are fetched from the first server, the one validation asks. A run that does
/// not validate every name (`options.dnssec` off) still validates a name a resolver fails
/// for with DNSSEC, to name the cause; its anchors are then a nicety, and anchors that cannot
/// be had only leave that cause unnamed.
async fn dnssec_source(
    options: &DoctorOptions,
    servers: &[Server],
    recording: bool,
) -> Result<Option<DnssecSource>> {
    let Some(first) = servers.first() else {
        return Err(Error::InvalidOptions("no server to ask".to_owned()));
    };
    let anchors = checks::dnssec::anchors::trust_anchors(
        options.trust_anchor.as_deref(),
        first.address,
        options.timeout,
    )
    .await;
    let anchors = match anchors {
        Ok(anchors) => Arc::new(anchors),
        Err(error) if options.dnssec => return Err(Error::InvalidOptions(error)),
        Err(error) => {
            tracing::debug!(
                error,
                "no trust anchor: a DNSSEC failure's cause goes unnamed"
            );
            return Ok(None);
        }
    };
    Ok(Some(if recording {
        DnssecSource::Recording(anchors, Default::default())
    } else {
        DnssecSource::Network(anchors)
    }))
}

fn engine_for(options: &DoctorOptions, source: Arc<dyn DnsSource>) -> QueryEngine {
    QueryEngine::with_source(
        QueryOptions {
            timeout: options.timeout,
            attempts: options.attempts,
            ..QueryOptions::default()
        },
        options.max_in_flight,
        source,
    )
}

/// The analysis itself, whatever the answers' source.
async fn run<S: AsRef<str>>(
    hostnames: &[S],
    options: &DoctorOptions,
    servers: Vec<Server>,
    engine: QueryEngine,
    tls: TlsSource,
    dnssec: Option<DnssecSource>,
    now: chrono::DateTime<chrono::Utc>,
) -> (Report, Arc<host::Run>) {
    let started = Instant::now();
    // A hostname asks about seven questions of one server (SOA, addresses, CNAME, TXT, MX,
    // CAA), and some more for each further server.
    engine.reserve(hostnames.len() * 8 * servers.len().max(1));
    let run = Arc::new(host::Run::new(
        engine,
        tls,
        dnssec,
        now,
        options.clone(),
        servers,
    ));
    // Owned names and a shared `Run` keep the future `Send` for any caller (a Tauri command
    // or a spawned task), which borrowing closures over the stream would not.
    let owned: Vec<String> = hostnames
        .iter()
        .map(|hostname| hostname.as_ref().to_owned())
        .collect();
    let shared = Arc::clone(&run);
    // Unordered: a slow hostname (a silent server) must not hold back the start of the next
    // ones, as an ordered buffer would once the hostnames behind it are done; the report
    // keeps the input's order.
    // Each report goes straight to its place: collecting them in a growing vector and
    // sorting moved every (large) report several times.
    let mut placed: Vec<Option<HostReport>> =
        std::iter::repeat_with(|| None).take(owned.len()).collect();
    let mut reports = futures::stream::iter(owned.into_iter().enumerate())
        .map(move |(index, hostname)| {
            let run = Arc::clone(&shared);
            async move { (index, host::diagnose_host(&run, &hostname).await) }
        })
        .buffer_unordered(options.concurrency.max(1));
    while let Some((index, report)) = reports.next().await {
        placed[index] = Some(report);
    }
    // every index was handed out once, so every place is filled
    let hosts: Vec<HostReport> = placed.into_iter().flatten().collect();
    let count = |level: Level| {
        hosts
            .iter()
            .flat_map(|host| host.findings.iter())
            .filter(|finding| finding.severity == level)
            .count()
    };
    let report = Report {
        generated_at: now,
        clock: options.clock,
        target: run.target.clone(),
        ca_identity: options.ca_identity.clone(),
        offline: options.is_offline(),
        sources: run
            .servers
            .iter()
            .map(|server| server.source.clone())
            .collect(),
        errors: count(Level::Error),
        warnings: count(Level::Warning),
        hosts,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    (report, run)
}

impl Report {
    /// The report as Markdown for a support ticket.
    pub fn to_markdown(&self) -> String {
        markdown::render(self)
    }

    /// The report as plain text for a terminal.
    pub fn to_text(&self) -> String {
        text::render(self)
    }
}

fn validate(options: &DoctorOptions) -> Result<()> {
    let target = options.target.trim().trim_end_matches('.');
    let valid_target = !target.is_empty()
        && target.len() <= 253
        && target.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        });
    if !valid_target {
        return Err(Error::InvalidOptions(format!(
            "The platform target {:?} is not a DNS name.",
            options.target
        )));
    }
    if options.ca_identity.trim().is_empty() {
        return Err(Error::InvalidOptions(
            "The CA identity cannot be empty.".to_owned(),
        ));
    }
    if options.timeout.is_zero() {
        return Err(Error::InvalidOptions(
            "The timeout must be longer than zero.".to_owned(),
        ));
    }
    if options.dnssec
        && let Some(text) = &options.trust_anchor
    {
        checks::dnssec::anchors::read_anchor_file(text).map_err(Error::InvalidOptions)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn options_that_cannot_work_are_refused_before_any_question() {
        let resolver = "127.0.0.1:9".parse().unwrap();
        for (options, wanted) in [
            (
                DoctorOptions::new("not a name").with_resolvers([resolver]),
                "not a DNS name",
            ),
            (
                DoctorOptions::new("").with_resolvers([resolver]),
                "not a DNS name",
            ),
            (
                DoctorOptions::new("edge.example.com")
                    .with_resolvers([resolver])
                    .with_ca_identity(" "),
                "CA identity",
            ),
            (
                DoctorOptions::new("edge.example.com")
                    .with_resolvers([resolver])
                    .with_timeout(std::time::Duration::ZERO),
                "timeout",
            ),
        ] {
            match diagnose(&["www.example.com"], &options).await {
                Err(Error::InvalidOptions(message)) => {
                    assert!(message.contains(wanted), "{message}")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn an_online_run_without_any_server_is_refused() {
        let mut options = DoctorOptions::new("edge.example.com");
        options.use_system_resolver = false;
        options.public_resolvers.clear();
        assert!(matches!(
            diagnose(&["www.example.com"], &options).await,
            Err(Error::InvalidOptions(_))
        ));
    }
}
