//! What the caller decides about a doctor run: which servers to ask, what the platform's DNS
//! target and CA are, and how long to wait.
//!
//! The doctor knows nothing of the local service: when it is pointed at it, the caller passes
//! the service's DNS address as a resolver and its `platform_dns_target` as the target.

use std::net::SocketAddr;
use std::time::Duration;

use crate::clock::RunClock;

/// Well-known public resolvers asked beside the system resolver when no resolver is given.
pub const PUBLIC_RESOLVERS: [(&str, &str); 3] = [
    ("Cloudflare", "1.1.1.1:53"),
    ("Google", "8.8.8.8:53"),
    ("Quad9", "9.9.9.9:53"),
];

/// The CA identity most platforms (and the local service by default) use.
pub const DEFAULT_CA_IDENTITY: &str = "letsencrypt.org";

/// Hostnames a batch diagnoses at once, unless the caller says otherwise.
///
/// Enough that the bound on questions in flight (256), not the number of hostnames under way,
/// is what limits a batch: a hostname waits on a chain of round trips (SOA, then its
/// nameservers, then its records and the CAA climb) with only a few questions out at a time,
/// so with 32 hostnames the doctor sat idle, waiting for answers, for a tenth to a seventh of a
/// 1,000-hostname batch against the local service. With 96 it waits for almost nothing and
/// the batch takes 6-12 % less time; 128 and 200 were no faster, and 200 cost more CPU per
/// question (a larger working set). Measured with `doctor_bench --doctor-only`, 2026-11-26.
pub const DEFAULT_CONCURRENCY: usize = 96;

/// Serialisable so that a capture can carry the options of its run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DoctorOptions {
    /// The platform DNS target customers point their names at.
    pub target: String,
    /// What CAA records must name for the platform's CA to issue.
    pub ca_identity: String,
    /// Servers to ask instead of the system and public resolvers. When not empty the run is
    /// offline: no other server is contacted, not even the zone's nameservers.
    pub resolvers: Vec<SocketAddr>,
    /// Ask the system resolver (online runs only).
    pub use_system_resolver: bool,
    /// Public resolvers to ask (online runs only).
    pub public_resolvers: Vec<(String, SocketAddr)>,
    /// How long one question may take.
    pub timeout: Duration,
    /// UDP attempts per question.
    pub attempts: u8,
    /// Hostnames diagnosed at once in a batch.
    pub concurrency: usize,
    /// DNS questions in flight at once.
    pub max_in_flight: usize,
    /// Probe the edge over TLS once DNS is right.
    pub tls_probe: bool,
    /// Where the edge listens, when not at the hostname's own address on port 443 (the local
    /// service's edge, for example).
    pub edge: Option<SocketAddr>,
    /// Extra trusted roots for the probe, PEM (the local service's CA certificate).
    pub extra_roots_pem: Option<String>,
    /// The port a zone's nameservers are asked on in an online run: 53, except where a test
    /// runs its nameservers on loopback.
    pub nameserver_port: u16,
    /// The hostnames the platform says are attached to a project (lowercase A-labels), when
    /// the caller knows them: a name that points at the platform but is not among them is
    /// `dangling_cname`. `None`: not known, not judged.
    pub attached_hostnames: Option<std::collections::BTreeSet<String>>,
    /// The names the platform holds a certificate for (lowercase A-labels), when the caller
    /// knows them: such a name whose DNS would now refuse issuance is `renewal_at_risk`,
    /// dated by its certificate. `None`: not known, not judged.
    #[serde(default)]
    pub live_certificates:
        Option<std::collections::BTreeMap<String, crate::live_certificate::LiveCertificate>>,
    /// Validate DNSSEC from the trust anchor down to each name, through the first resolver
    /// (with checking disabled).
    #[serde(default)]
    pub dnssec: bool,
    /// DNSKEY or DS records in zone-file form that replace IANA's root keys as the trust
    /// anchor (a private root, or a test's); the keys a DS names are fetched from the first
    /// server before the run.
    #[serde(default)]
    pub trust_anchor: Option<String>,
    /// The clock every judgement of time is made by: signature validity, certificate expiry
    /// and the report's timestamp. The platform's clock against the local service (whose
    /// clock may run fast), this computer's against a real platform.
    #[serde(default)]
    pub clock: RunClock,
    /// The zone the platform's DNS validation delegates to (`acme.<platform domain>`), when
    /// the caller knows it: each name's `_acme-challenge` CNAME must then name
    /// `<name without *.>.<validation zone>` exactly. `None`: the value is not judged, only
    /// whether the record is there where it is needed.
    #[serde(default)]
    pub validation_zone: Option<String>,
    /// Names for the given resolvers, by their role ("the demo's DNS server"), used in the
    /// report instead of their address.
    #[serde(default)]
    pub resolver_labels: std::collections::BTreeMap<SocketAddr, String>,
}

impl DoctorOptions {
    /// Defaults for an online run against `target`.
    pub fn new(target: impl Into<String>) -> Self {
        Self {
            target: target.into(),
            ca_identity: DEFAULT_CA_IDENTITY.to_owned(),
            resolvers: Vec::new(),
            use_system_resolver: true,
            public_resolvers: PUBLIC_RESOLVERS
                .iter()
                .filter_map(|(label, address)| {
                    address
                        .parse()
                        .ok()
                        .map(|address| ((*label).to_owned(), address))
                })
                .collect(),
            timeout: Duration::from_millis(1500),
            attempts: 2,
            concurrency: DEFAULT_CONCURRENCY,
            max_in_flight: 256,
            tls_probe: true,
            edge: None,
            extra_roots_pem: None,
            nameserver_port: 53,
            attached_hostnames: None,
            live_certificates: None,
            dnssec: false,
            trust_anchor: None,
            clock: RunClock::Wall,
            validation_zone: None,
            resolver_labels: std::collections::BTreeMap::new(),
        }
    }

    /// Judge time by `clock`.
    pub fn with_clock(mut self, clock: RunClock) -> Self {
        self.clock = clock;
        self
    }

    /// Calls the given resolver at `address` by its role in the report.
    pub fn with_resolver_label(mut self, address: SocketAddr, label: impl Into<String>) -> Self {
        self.resolver_labels.insert(address, label.into());
        self
    }

    /// Ask only these servers (offline mode).
    pub fn with_resolvers(mut self, resolvers: impl IntoIterator<Item = SocketAddr>) -> Self {
        self.resolvers = resolvers.into_iter().collect();
        self
    }

    pub fn with_ca_identity(mut self, ca_identity: impl Into<String>) -> Self {
        self.ca_identity = ca_identity.into();
        self
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn with_tls_probe(mut self, enabled: bool) -> Self {
        self.tls_probe = enabled;
        self
    }

    pub fn with_edge(mut self, edge: Option<SocketAddr>) -> Self {
        self.edge = edge;
        self
    }

    /// True when only the given resolvers are asked.
    pub fn is_offline(&self) -> bool {
        !self.resolvers.is_empty()
    }
}
