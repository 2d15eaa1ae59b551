//! Where answers come from: the network, or a capture. The engine asks one [`DnsSource`] for
//! every question, so the same analysis runs against live servers, records what they said
//! ([`Recorder`]), or replays a recording with no network at all ([`Replayer`]).

use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;

use super::answer::{Answer, AnswerStatus};
use super::exchange::Exchange;
use super::fast::udp::UdpSockets;
use super::query::{self, QueryOptions};
use super::wire_query::{ByQuestion, WireQuery};

/// Answers one question. Never fails: trouble is an [`Answer`] whose status says so.
pub trait DnsSource: Send + Sync {
    fn answer<'a>(
        &'a self,
        question: &'a WireQuery,
        options: QueryOptions,
    ) -> BoxFuture<'a, Arc<Answer>>;
}

/// Asks the server over UDP (TCP after truncation), on UDP sockets shared by the run's
/// questions ([`UdpSockets`]).
#[derive(Debug, Default)]
pub struct NetworkSource {
    sockets: UdpSockets,
}

impl NetworkSource {
    pub fn new() -> Self {
        Self::default()
    }
}

impl DnsSource for NetworkSource {
    fn answer<'a>(
        &'a self,
        question: &'a WireQuery,
        options: QueryOptions,
    ) -> BoxFuture<'a, Arc<Answer>> {
        Box::pin(async move {
            Arc::new(
                query::ask_shared(
                    &self.sockets,
                    question.server,
                    &question.name,
                    question.record_type,
                    options,
                )
                .await,
            )
        })
    }
}

/// Passes every question to another source and keeps each question and answer, with the time
/// it was asked.
pub struct Recorder {
    inner: Arc<dyn DnsSource>,
    exchanges: Mutex<Vec<Exchange>>,
    /// The run's clock: each exchange is stamped with its time.
    clock: crate::clock::RunClock,
}

impl Recorder {
    pub fn new(inner: Arc<dyn DnsSource>, clock: crate::clock::RunClock) -> Self {
        Self {
            inner,
            exchanges: Mutex::new(Vec::new()),
            clock,
        }
    }

    /// Everything recorded so far, in the order the answers came.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.exchanges
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl DnsSource for Recorder {
    fn answer<'a>(
        &'a self,
        question: &'a WireQuery,
        options: QueryOptions,
    ) -> BoxFuture<'a, Arc<Answer>> {
        Box::pin(async move {
            let asked_at = self.clock.now();
            let answer = self.inner.answer(question, options).await;
            self.exchanges
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Exchange::new(question, asked_at, Answer::clone(&answer)));
            answer
        })
    }
}

/// Answers from a capture only. A question the capture does not hold (asked by a newer
/// doctor, say) is answered as a failure that says so, never by the network.
pub struct Replayer {
    answers: ByQuestion<Arc<Answer>>,
}

impl Replayer {
    pub fn new(answers: ByQuestion<Arc<Answer>>) -> Self {
        Self { answers }
    }
}

impl DnsSource for Replayer {
    fn answer<'a>(
        &'a self,
        question: &'a WireQuery,
        _options: QueryOptions,
    ) -> BoxFuture<'a, Arc<Answer>> {
        let answer = self.answers.get(question).cloned().unwrap_or_else(|| {
            Arc::new(Answer::failed(
                question.server.to_string(),
                &question.name,
                <&'static str>::from(question.record_type),
                AnswerStatus::Failed,
                "the capture holds no answer to this question".to_owned(),
                0,
            ))
        });
        Box::pin(std::future::ready(answer))
    }
}
