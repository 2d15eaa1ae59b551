//! A capture: everything one doctor run saw, in one JSON file, so that support can re-run the
//! analysis on a customer's view with no network (`domain-desk doctor --capture FILE HOST…`,
//! then `--replay FILE`).
//!
//! # Format (version 1)
//!
//! One JSON object:
//!
//! | field | meaning |
//! |---|---|
//! | `format` | always `"domain-desk-doctor-capture"`: a file without it is not a capture |
//! | `version` | `1`; a reader refuses versions it does not know |
//! | `doctor_version` | the version of the doctor that wrote it (for people; not checked) |
//! | `captured_at` | RFC 3339, by the run's clock (`options.clock`: this computer's, or the platform's); a replay judges certificate expiry at this instant |
//! | `hostnames` | the names diagnosed, as given |
//! | `options` | the run's options (target, CA identity, resolvers, timeouts, TLS probe, attached hostnames …) |
//! | `servers` | the servers asked for every name (`label`, `address`, `kind`, `recursive`) |
//! | `exchanges` | every DNS question sent: `server` (`address:port`), `name`, `type`, `recursion_desired`, `checking_disabled`, `asked_at`, and the `answer` (status, flags, answer and authority records with TTLs, elapsed time) |
//! | `tls` | every TLS connection to the edge: `hostname`, `address`, `connected_at`, and either `chain` (the certificate chain the server sent, base64 DER, leaf first) with `trust_error`, `http_status`, `location`, or `error` |
//! | `dnssec` | with `--dnssec`: each validation, `hostname`, `resolver`, `checked_at`, `verdict` (`secure`, `signed_to_unsigned`, `insecure`, `broken`, `bogus`, `unknown`) and its `reason` (for `broken`, the one `cause` with its evidence: `signature_expired`, `ds_matches_no_key`, `signature_missing` …) |
//! | `elapsed_ms`, `host_elapsed_ms` | how long the run and each name took, so the replayed report is the same |
//!
//! It holds what public DNS and the edge showed, plus the options; no key or secret.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::dns::{Answer, ByQuestion, Exchange};
use crate::options::DoctorOptions;
use crate::report::Source;
use crate::tls_probe::{TlsExchange, TlsOutcome};
use crate::{Error, Result};

/// The `format` every capture carries.
pub const CAPTURE_FORMAT: &str = "domain-desk-doctor-capture";
/// The version this doctor writes and reads.
pub const CAPTURE_VERSION: u32 = 1;

/// One doctor run's view of the world (see the module's documentation for the format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    pub format: String,
    pub version: u32,
    pub doctor_version: String,
    pub captured_at: DateTime<Utc>,
    pub hostnames: Vec<String>,
    pub options: DoctorOptions,
    pub servers: Vec<Source>,
    pub exchanges: Vec<Exchange>,
    pub tls: Vec<TlsExchange>,
    /// DNSSEC verdicts, when the run validated (absent in captures of runs that did not).
    #[serde(default)]
    pub dnssec: Vec<crate::checks::dnssec::recording::DnssecExchange>,
    pub elapsed_ms: u64,
    pub host_elapsed_ms: Vec<u64>,
}

impl Capture {
    /// Reads a capture, with a clear error for a file that is not one, is of another
    /// version, or is damaged.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|error| Error::CaptureCorrupt(format!("it is not valid JSON ({error})")))?;
        if value.get("format").and_then(|format| format.as_str()) != Some(CAPTURE_FORMAT) {
            return Err(Error::NotACapture);
        }
        let version = value.get("version").and_then(|version| version.as_u64());
        if version != Some(u64::from(CAPTURE_VERSION)) {
            return Err(Error::CaptureVersion {
                found: value
                    .get("version")
                    .map(|version| version.to_string())
                    .unwrap_or_else(|| "none".to_owned()),
                supported: CAPTURE_VERSION,
            });
        }
        let capture: Capture = serde_json::from_value(value)
            .map_err(|error| Error::CaptureCorrupt(error.to_string()))?;
        capture.check()?;
        Ok(capture)
    }

    pub fn to_json(&self) -> String {
        // A capture is made of strings, numbers and maps with string keys: it always
        // serialises.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads the capture file at `path`.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|error| Error::CaptureFile {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
        Self::from_json(&text)
    }

    /// Writes the capture to `path`: atomically, readable by its owner alone, replacing (never
    /// following) a link planted there. A capture holds a customer's DNS and hostnames.
    pub fn save(&self, path: &Path) -> Result<()> {
        domain_desk_api::private_file::write_atomically(path, self.to_json().as_bytes()).map_err(
            |error| Error::CaptureFile {
                path: path.display().to_string(),
                message: error.to_string(),
            },
        )
    }

    /// The recorded answers by question, for a replay.
    pub fn answers(&self) -> Result<ByQuestion<Arc<Answer>>> {
        self.exchanges
            .iter()
            .map(|exchange| Ok((exchange.question()?, Arc::new(exchange.answer.clone()))))
            .collect()
    }

    /// What the parser alone cannot see: lengths that must agree, addresses that must parse.
    fn check(&self) -> Result<()> {
        if self.host_elapsed_ms.len() != self.hostnames.len() {
            return Err(Error::CaptureCorrupt(format!(
                "it names {} hostnames but holds the timings of {}",
                self.hostnames.len(),
                self.host_elapsed_ms.len()
            )));
        }
        if self.servers.is_empty() {
            return Err(Error::CaptureCorrupt("it names no DNS server".to_owned()));
        }
        for server in &self.servers {
            server.address.parse::<SocketAddr>().map_err(|_| {
                Error::CaptureCorrupt(format!(
                    "the server address {:?} is not an address",
                    server.address
                ))
            })?;
        }
        for exchange in &self.tls {
            if let TlsOutcome::Connected { chain, .. } = &exchange.outcome {
                crate::tls_probe::decode_chain(chain).map_err(Error::CaptureCorrupt)?;
            }
        }
        self.answers().map(|_| ())
    }
}
