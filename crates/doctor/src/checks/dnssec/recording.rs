//! Where a run's DNSSEC verdicts come from: validation now, validation recorded for a
//! capture, or a capture replayed with no network (as `crate::dns::source` does for plain
//! answers).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use hickory_proto::dnssec::TrustAnchors;
use serde::{Deserialize, Serialize};

use super::{DnssecVerdict, validate};

/// One validation, as a capture keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DnssecExchange {
    pub hostname: String,
    /// The resolver asked (with checking disabled).
    pub resolver: SocketAddr,
    pub checked_at: DateTime<Utc>,
    #[serde(flatten)]
    pub verdict: DnssecVerdict,
}

/// Where verdicts come from: validation now, validation recorded for a capture, or a capture.
pub(crate) enum DnssecSource {
    Network(Arc<TrustAnchors>),
    Recording(Arc<TrustAnchors>, Mutex<Vec<DnssecExchange>>),
    Replay(Vec<DnssecExchange>),
}

impl DnssecSource {
    pub(crate) async fn verdict(
        &self,
        resolver: SocketAddr,
        hostname: &str,
        timeout: Duration,
        now: DateTime<Utc>,
    ) -> DnssecVerdict {
        match self {
            DnssecSource::Network(anchors) => {
                validate(resolver, hostname, Arc::clone(anchors), timeout, now).await
            }
            DnssecSource::Recording(anchors, log) => {
                let checked_at = now;
                let verdict = validate(resolver, hostname, Arc::clone(anchors), timeout, now).await;
                log.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(DnssecExchange {
                        hostname: hostname.to_owned(),
                        resolver,
                        checked_at,
                        verdict: verdict.clone(),
                    });
                verdict
            }
            DnssecSource::Replay(exchanges) => exchanges
                .iter()
                .find(|exchange| exchange.hostname == hostname && exchange.resolver == resolver)
                .map(|exchange| exchange.verdict.clone())
                .unwrap_or_else(|| {
                    DnssecVerdict::Unknown("the capture holds no DNSSEC validation".to_owned())
                }),
        }
    }

    pub(crate) fn recorded(&self) -> Vec<DnssecExchange> {
        match self {
            DnssecSource::Recording(_, log) => {
                log.lock().unwrap_or_else(PoisonError::into_inner).clone()
            }
            DnssecSource::Network(_) | DnssecSource::Replay(_) => Vec::new(),
        }
    }
}
