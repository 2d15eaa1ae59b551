//! The local service's settings: where it listens, the platform's names, and every timing
//! (ban, propagation, issuance, deadline). All timings are virtual: they are measured on the
//! service's [`Clock`](crate::Clock).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use chrono::TimeDelta;

/// Where the state lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// A SQLite file, created on first use; survives restarts and kill -9.
    File(PathBuf),
    /// A private in-memory database, for tests; gone when the service stops.
    Memory,
}

#[derive(Debug, Clone)]
pub struct ServiceSettings {
    pub storage: Storage,
    /// The HTTP API and `/_local` (default 127.0.0.1:8787).
    pub api_addr: SocketAddr,
    /// The authoritative DNS server, UDP and TCP (default 127.0.0.1:8853).
    pub dns_addr: SocketAddr,
    /// The TLS edge (default 127.0.0.1:8443).
    pub edge_https_addr: SocketAddr,
    /// The plain-HTTP edge that redirects to TLS (default 127.0.0.1:8080).
    pub edge_http_addr: SocketAddr,
    /// Speed of the virtual clock at start (1 = real time, 0 = frozen).
    pub clock_speed: f64,
    /// The domain every project's default address lives under.
    pub platform_domain: String,
    /// The name customers point their CNAME or ALIAS at.
    pub platform_dns_target: String,
    /// What CAA records must name for the local CA to issue.
    pub ca_identity: String,
    /// A key is banned after MORE than this many requests while rate limited.
    pub ban_threshold: u32,
    pub ban_duration: TimeDelta,
    /// How long an `Idempotency-Key` is remembered.
    pub idempotency_ttl: TimeDelta,
    /// Largest request body accepted (`413 payload_too_large` above).
    pub max_body_bytes: usize,
    /// How late the platform's resolver sees DNS changes.
    pub dns_propagation_delay: TimeDelta,
    /// The customer zones' SOA MINIMUM (and SOA TTL): how long a resolver, the platform's
    /// among them, keeps a negative answer from them (RFC 2308). Whole seconds.
    pub dns_soa_minimum: TimeDelta,
    /// The platform's resolver keeps an NXDOMAIN or NODATA answer for its zone's negative TTL
    /// (the SOA minimum), as real resolvers do: a Verify pressed before the record existed
    /// keeps failing until then, and says until when. Off, it reads the zones at every
    /// question (as of the propagation delay).
    pub dns_negative_cache: bool,
    /// How long the CA takes to issue once verification passed.
    pub certificate_issuance_time: TimeDelta,
    /// No certificate this long after the start: the attempt fails.
    pub certificate_deadline: TimeDelta,
    /// How long the TXT record offered to prove control of a name another account holds
    /// stays good.
    pub ownership_challenge_ttl: TimeDelta,
    /// Domain Connect templates (the standard's JSON) the local DNS provider supports besides
    /// the platform's own.
    pub domain_connect_templates: Vec<String>,
    /// Answer repeated `GET`s from memory while no write happened since (see
    /// `http::fast::read_cache`); off only to measure the database path alone.
    pub read_cache: bool,
    /// How the API and the edge hold up against clients that open connections and keep them.
    pub connections: ConnectionLimits,
    /// How much history the service keeps and how far the demo zones may grow, so that use
    /// alone cannot fill the disk or memory.
    pub history: HistoryLimits,
    /// Sign the zones the DNS server answers for (`serve --sign-zones`): DNSKEY at each apex,
    /// RRSIGs for questions with DO, and the key published as a trust anchor in
    /// `/_local/info` (see `dns::signing`).
    pub sign_zones: bool,
}

/// Bounds on everything that grows with use and is not bounded by the platform's own rules
/// (domains per project are, by the plan). Past a history bound the oldest entries are
/// dropped: history is a convenience, and refusing new work because of old history would be
/// worse. The demo DNS provider's zones and live records cannot be dropped (they are the
/// user's data), so past those bounds a new one is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryLimits {
    /// Deploys kept per project, newest first; older ones and their files are dropped. The
    /// edge serves the newest successful deploy, which is always kept.
    pub deploys_per_project: usize,
    /// Deleted DNS records kept in the zones' history (the platform resolver's delayed view
    /// reads them until the propagation delay has passed); the oldest deletions are forgotten
    /// beyond this.
    pub removed_dns_records: usize,
    /// Remembered `Idempotency-Key` answers, over all keys; besides the time they are kept
    /// (`idempotency_ttl`), the oldest are forgotten beyond this. Checked every
    /// [`HistoryLimits::IDEMPOTENCY_TRIM_EVERY`] keyed requests, so the table holds at most
    /// this many plus that many.
    pub idempotency_answers: usize,
    /// Customer zones the demo DNS provider holds; adding one more is refused
    /// (`422 validation_failed`).
    pub dns_zones: usize,
    /// Live records in one customer zone; adding one more is refused
    /// (`422 validation_failed`) until one is deleted.
    pub records_per_zone: usize,
}

impl HistoryLimits {
    /// How many keyed `POST`s may arrive between two checks of [`Self::idempotency_answers`],
    /// whatever the bound. A check finds the bound in the rowid tree (no walk over the kept
    /// answers) and forgets the excess in small batches, each its own trip to the single
    /// writer, so keyed `POST`s never queue behind one long delete.
    pub const IDEMPOTENCY_TRIM_EVERY: u64 = 256;
}

impl Default for HistoryLimits {
    fn default() -> Self {
        Self {
            deploys_per_project: 50,
            removed_dns_records: 10_000,
            idempotency_answers: 100_000,
            dns_zones: 1_000,
            records_per_zone: 10_000,
        }
    }
}

/// Limits on the connections of each listener (the API, the TLS edge, the plain-HTTP edge), so
/// that slow or idle clients cannot hold the service. These are real time, not the virtual
/// clock: they protect the process, not the platform's behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections served at once per listener. Further clients wait in the system's accept
    /// queue until one closes, so one client opening many cannot use up the process's file
    /// descriptors.
    pub max_connections: usize,
    /// How long a client may take to send a request's line and headers (HTTP/1.1), counted
    /// from when the server waits for them, so also how long an idle keep-alive connection
    /// stays open. A Slowloris client that trickles headers is closed after this.
    pub header_read_timeout: Duration,
    /// A connection on which no byte is read or written this long is closed: a body sent too
    /// slowly, an answer never read, an idle HTTP/2 connection. Longer than the longest
    /// injected latency (60 s), so a slowed-down answer is never cut.
    pub idle_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: 512,
            header_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(120),
        }
    }
}

pub const DEFAULT_PLATFORM_DOMAIN: &str = "pages.local-platform.test";

/// The demo zones' SOA MINIMUM (and TTL), in seconds: how long the platform's resolver keeps a
/// negative answer (RFC 2308). `dns::DEFAULT_SOA_MINIMUM` is this one.
pub const DEFAULT_SOA_MINIMUM: u32 = 300;

/// The label under the platform domain of the zone DNS validation is delegated to.
pub const VALIDATION_ZONE_LABEL: &str = "acme";

impl ServiceSettings {
    /// The zone the platform's DNS server serves for DNS validation, `acme.<platform domain>`:
    /// customers point `_acme-challenge.<name>` at `<name>.<this zone>`, where the CA publishes
    /// its DNS-01 TXT token.
    pub fn validation_zone(&self) -> String {
        format!(
            "{VALIDATION_ZONE_LABEL}.{}",
            self.platform_domain
                .trim_end_matches('.')
                .to_ascii_lowercase()
        )
    }
}

impl Default for ServiceSettings {
    fn default() -> Self {
        let loopback = |port| SocketAddr::from(([127, 0, 0, 1], port));
        Self {
            storage: Storage::Memory,
            api_addr: loopback(8787),
            dns_addr: loopback(8853),
            edge_https_addr: loopback(8443),
            edge_http_addr: loopback(8080),
            clock_speed: 1.0,
            platform_domain: DEFAULT_PLATFORM_DOMAIN.to_owned(),
            platform_dns_target: format!("cname.{DEFAULT_PLATFORM_DOMAIN}"),
            ca_identity: "letsencrypt.org".to_owned(),
            ban_threshold: 10,
            ban_duration: TimeDelta::minutes(15),
            idempotency_ttl: TimeDelta::hours(24),
            max_body_bytes: 2 * 1024 * 1024,
            dns_propagation_delay: TimeDelta::seconds(60),
            dns_soa_minimum: TimeDelta::seconds(i64::from(DEFAULT_SOA_MINIMUM)),
            dns_negative_cache: true,
            certificate_issuance_time: TimeDelta::minutes(2),
            certificate_deadline: TimeDelta::minutes(30),
            ownership_challenge_ttl: TimeDelta::days(7),
            domain_connect_templates: Vec::new(),
            read_cache: true,
            connections: ConnectionLimits::default(),
            history: HistoryLimits::default(),
            sign_zones: false,
        }
    }
}
