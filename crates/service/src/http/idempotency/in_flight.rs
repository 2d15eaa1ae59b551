//! The `Idempotency-Key`s whose first request is still running, and when expired answers are
//! due to be forgotten: the part of the idempotency layer that the HTTP state owns
//! ([`crate::http::state::AppState::idempotency_in_flight`]). It imports nothing of the state
//! or of the middleware ([`super`]) that uses it, so neither is in a ring with the other.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};

use crate::store::idempotency::AnswerKey;

/// How often (in service-clock time) expired answers are purged.
const PURGE_EVERY: chrono::TimeDelta = chrono::TimeDelta::minutes(1);

/// The `(API key, Idempotency-Key)` pairs whose first request is still running, by the name
/// their answer is remembered under.
#[derive(Debug, Default)]
pub struct InFlight {
    running: Mutex<HashSet<AnswerKey>>,
    /// When expired answers were last purged.
    last_purge: Mutex<Option<DateTime<Utc>>>,
    /// Keyed requests since the last purge: a frozen or slow clock must not let the table
    /// grow past its bound ([`crate::HistoryLimits::idempotency_answers`]).
    since_purge: std::sync::atomic::AtomicU64,
    /// A purge is running (in batches): the next one waits its turn rather than running beside it.
    pub(super) purging: std::sync::atomic::AtomicBool,
}

/// Holds a pair in [`InFlight`] until dropped (also when the request is cancelled).
pub(super) struct Running {
    in_flight: Arc<InFlight>,
    pair: AnswerKey,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.in_flight
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.pair);
    }
}

impl InFlight {
    pub(super) fn start(self: &Arc<Self>, pair: AnswerKey) -> Option<Running> {
        let fresh = self
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(pair);
        fresh.then(|| Running {
            in_flight: self.clone(),
            pair,
        })
    }

    /// How many requests with an `Idempotency-Key` are running now.
    pub fn len(&self) -> usize {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True once per [`PURGE_EVERY`] or per `trim_every` keyed requests, whichever comes
    /// first: time to forget expired answers and those past the bound.
    pub(super) fn purge_due(&self, now: DateTime<Utc>, trim_every: u64) -> bool {
        use std::sync::atomic::Ordering;
        let mut last = self
            .last_purge
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let requests = self.since_purge.fetch_add(1, Ordering::Relaxed) + 1;
        match *last {
            Some(at) if now >= at && now - at < PURGE_EVERY && requests < trim_every => false,
            _ => {
                *last = Some(now);
                self.since_purge.store(0, Ordering::Relaxed);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_runs_once_at_a_time() {
        let in_flight = Arc::new(InFlight::default());
        let pair = AnswerKey::new("hash", "key-1");
        let first = in_flight.start(pair).expect("first copy runs");
        assert!(in_flight.start(pair).is_none(), "second copy refused");
        assert!(in_flight.start(AnswerKey::new("hash", "key-2")).is_some());
        assert!(
            in_flight.start(AnswerKey::new("other", "key-1")).is_some(),
            "keys are scoped per API key"
        );
        drop(first);
        assert!(
            in_flight.start(pair).is_some(),
            "free again once the first ended"
        );
    }
}
