//! The questions of one doctor run, shared by all its checks and hostnames.
//!
//! Many checks ask the same thing (every name under `example.com` climbs through
//! `example.com` and `com` for CAA; every hostname needs the platform target's addresses), so
//! identical questions to the same server are asked once per run, even when they are asked
//! concurrently, and in-flight questions are bounded so a batch of thousands of hostnames
//! does not exhaust the machine's sockets. The log of questions actually sent lets the
//! benchmark repeat exactly the same lookups with `dig`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hickory_proto::rr::RecordType;
use tokio::sync::{OnceCell, Semaphore};

use super::answer::{Answer, AnswerStatus};
use super::presentation::normalise_name;
use super::query::QueryOptions;
use super::source::{DnsSource, NetworkSource};
use super::wire_query::{ByQuestion, WireQuery};

/// The most answers [`QueryEngine::reserve`] makes room for ahead of time.
const RESERVE_AT_MOST: usize = 1 << 16;

/// One question's answer, shared by every check that asks it (answers are never changed).
type Slot = Arc<Asked>;

/// A question of the run: when it went over the wire, and its answer once it came.
#[derive(Default)]
struct Asked {
    /// 0 until the question is sent; then one more than the number of questions sent before
    /// it. The run's log of questions is read from these, in order, when it is asked for: a
    /// log kept as the questions went out cost a lock and a copy of the question each.
    sent_as: AtomicU64,
    answer: OnceCell<Arc<Answer>>,
}

/// The run's answers by question.
type Cache = ByQuestion<Slot>;

/// Asks questions with per-run de-duplication and a bound on questions in flight. Cheap to
/// clone; clones share the cache.
#[derive(Clone)]
pub struct QueryEngine {
    inner: Arc<Inner>,
}

struct Inner {
    base: QueryOptions,
    source: Arc<dyn DnsSource>,
    cache: Mutex<Cache>,
    /// Questions sent so far.
    sent: AtomicU64,
    in_flight: Semaphore,
}

impl QueryEngine {
    /// `base` gives the timeout and attempts; `max_in_flight` bounds concurrent questions.
    pub fn new(base: QueryOptions, max_in_flight: usize) -> Self {
        Self::with_source(base, max_in_flight, Arc::new(NetworkSource::new()))
    }

    /// As [`new`](Self::new), with answers from `source` (a recorder or a replay).
    pub fn with_source(
        base: QueryOptions,
        max_in_flight: usize,
        source: Arc<dyn DnsSource>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                base,
                source,
                cache: Mutex::new(Cache::default()),
                sent: AtomicU64::new(0),
                in_flight: Semaphore::new(max_in_flight.max(1)),
            }),
        }
    }

    /// Asks `server`; `recursive` sets the RD flag (clear it for authoritative servers).
    pub async fn ask(
        &self,
        server: SocketAddr,
        recursive: bool,
        name: &str,
        record_type: RecordType,
    ) -> Arc<Answer> {
        self.ask_with(server, recursive, false, name, record_type)
            .await
    }

    /// As [`ask`](Self::ask), with the CD flag under the caller's control.
    pub async fn ask_with(
        &self,
        server: SocketAddr,
        recursive: bool,
        checking_disabled: bool,
        name: &str,
        record_type: RecordType,
    ) -> Arc<Answer> {
        let key = WireQuery {
            server,
            name: normalise_name(name),
            record_type,
            recursion_desired: recursive,
            checking_disabled,
        };
        let slot = {
            // A poisoned lock only means another task panicked mid-insert; the map is still
            // a valid cache.
            let mut cache = self
                .inner
                .cache
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match cache.get(&key) {
                Some(slot) => Arc::clone(slot),
                None => Arc::clone(cache.entry(key.clone()).or_default()),
            }
        };
        Arc::clone(slot.answer.get_or_init(|| self.send(key, &slot)).await)
    }

    async fn send(&self, key: WireQuery, slot: &Asked) -> Arc<Answer> {
        let Ok(_permit) = self.inner.in_flight.acquire().await else {
            return Arc::new(Answer::failed(
                key.server.to_string(),
                &key.name,
                <&'static str>::from(key.record_type),
                AnswerStatus::Failed,
                "the doctor is shutting down".to_owned(),
                0,
            ));
        };
        let sent_as = self.inner.sent.fetch_add(1, Ordering::Relaxed) + 1;
        slot.sent_as.store(sent_as, Ordering::Relaxed);
        let options = QueryOptions {
            recursion_desired: key.recursion_desired,
            checking_disabled: key.checking_disabled,
            ..self.inner.base
        };
        let answer = self.inner.source.answer(&key, options).await;
        tracing::debug!(
            server = %key.server,
            name = %key.name,
            record_type = %key.record_type,
            status = %answer.status,
            elapsed_ms = answer.elapsed_ms,
            "DNS question"
        );
        answer
    }

    /// Makes room in the run's cache for `questions` more answers (a batch knows roughly how
    /// many it will ask), so that it is not rehashed again and again as it fills. A hint only,
    /// capped so that a huge batch does not allocate ahead of its answers.
    pub fn reserve(&self, questions: usize) {
        self.inner
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .reserve(questions.min(RESERVE_AT_MOST));
    }

    /// Every question sent over the wire so far, in the order sent.
    pub fn wire_queries(&self) -> Vec<WireQuery> {
        let cache = self
            .inner
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut sent: Vec<(u64, &WireQuery)> = cache
            .iter()
            .filter_map(|(question, slot)| {
                let sent_as = slot.sent_as.load(Ordering::Relaxed);
                (sent_as > 0).then_some((sent_as, question))
            })
            .collect();
        sent.sort_unstable_by_key(|(sent_as, _)| *sent_as);
        sent.into_iter()
            .map(|(_, question)| question.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capacity(engine: &QueryEngine) -> usize {
        engine.inner.cache.lock().unwrap().capacity()
    }

    #[tokio::test]
    async fn the_log_holds_each_question_sent_once_in_the_order_sent() {
        use crate::dns::source::Replayer;
        let engine = QueryEngine::with_source(
            QueryOptions::default(),
            8,
            Arc::new(Replayer::new(ByQuestion::default())),
        );
        let server: SocketAddr = "127.0.0.1:53".parse().unwrap();
        let asked = [
            ("b.example", RecordType::A),
            ("a.example", RecordType::A),
            ("B.Example.", RecordType::A),
            ("a.example", RecordType::CAA),
            ("a.example", RecordType::A),
            ("c.example", RecordType::TXT),
        ];
        for (name, record_type) in asked {
            engine.ask(server, true, name, record_type).await;
        }
        let log: Vec<(String, RecordType)> = engine
            .wire_queries()
            .into_iter()
            .map(|question| (question.name, question.record_type))
            .collect();
        let expected = [
            ("b.example", RecordType::A),
            ("a.example", RecordType::A),
            ("a.example", RecordType::CAA),
            ("c.example", RecordType::TXT),
        ]
        .map(|(name, record_type)| (name.to_owned(), record_type));
        assert_eq!(log, expected);
    }

    #[test]
    fn a_batch_makes_room_for_its_questions_up_to_a_cap() {
        let engine = QueryEngine::new(QueryOptions::default(), 8);
        engine.reserve(8_000);
        assert!(capacity(&engine) >= 8_000, "{}", capacity(&engine));
        let engine = QueryEngine::new(QueryOptions::default(), 8);
        engine.reserve(usize::MAX / 1024);
        assert!(capacity(&engine) >= RESERVE_AT_MOST);
        assert!(
            capacity(&engine) < 4 * RESERVE_AT_MOST,
            "{}",
            capacity(&engine)
        );
    }
}
