//! The DNS server's fast path over UDP: an optimised twin of hickory-server's `Server`, which
//! answers with the same [`ZoneHandler`](super::ZoneHandler) and must answer exactly as it
//! would (the tests beside it, `tests.rs`, and the socket tests in `dns/tests.rs`).
//!
//! It exists for speed: hickory-server's `Server` spawns a task per packet and hands each
//! answer to a separate sending task through a channel, which cost more CPU than answering
//! itself. Ours are one thread per core on the same socket, each receiving a batch of
//! questions in one system call, answering them inline (the handler never waits) and sending
//! the answers in one call (`udp_loops.rs`). Each remembers the answers it gave by question,
//! as NSD answers from precompiled data, and forgets them all when the zones change
//! (`answer_cache.rs`). One question is answered as hickory-server would (`one_question.rs`).

mod answer_cache;
mod one_question;
mod udp_loops;

pub(super) use udp_loops::UdpLoops;

#[cfg(test)]
mod tests;
