//! What one UDP loop remembers: the answers it gave, by question, while the zones do not
//! change.

use std::collections::HashMap;
use std::net::SocketAddr;

use super::one_question::answer_udp;
use crate::dns::handler::ZoneHandler;

/// Most answers a UDP loop remembers; past it, it forgets them all and starts again.
const ANSWER_CACHE_ENTRIES: usize = 16_384;

/// The longest question (without its id) whose answer is remembered.
const MAX_CACHED_QUESTION: usize = 512;

/// The answers one UDP loop has given, by question (the message without its id), each valid
/// while the zones' [`ZoneStore::generation`](crate::dns::ZoneStore::generation) is the one they were computed at: a repeated
/// question is answered by copying bytes and writing its id, as NSD answers from precompiled
/// data. Only for a handler whose answers depend on the question and the zones alone (the
/// live view, unsigned); the others compute every answer.
#[derive(Default)]
pub(super) struct AnswerCache {
    generation: u64,
    answers: HashMap<Box<[u8]>, Box<[u8]>>,
}

impl AnswerCache {
    /// Writes the answer to `question` into `answer`; false when it gets none.
    pub(super) fn answer(
        &mut self,
        handler: &ZoneHandler,
        question: &[u8],
        from: SocketAddr,
        answer: &mut Vec<u8>,
    ) -> bool {
        answer.clear();
        let fixed = handler.answers_by_question_alone();
        let (Some(id), Some(key), true) = (question.get(..2), question.get(2..), fixed) else {
            return answer_udp(handler, question, from, answer);
        };
        // Read before answering: a change while answering leaves it stale, found next time.
        let generation = handler.generation();
        if generation != self.generation {
            self.answers.clear();
            self.generation = generation;
        }
        if let Some(known) = self.answers.get(key) {
            answer.extend_from_slice(known);
            if let Some(answer_id) = answer.get_mut(..2) {
                answer_id.copy_from_slice(id);
            }
            return true;
        }
        if !answer_udp(handler, question, from, answer) {
            return false;
        }
        if key.len() <= MAX_CACHED_QUESTION {
            if self.answers.len() >= ANSWER_CACHE_ENTRIES {
                self.answers.clear();
            }
            self.answers.insert(key.into(), answer.as_slice().into());
        }
        true
    }
}
