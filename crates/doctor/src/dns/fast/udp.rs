//! UDP sockets shared by the questions of one doctor run.
//!
//! Opening a socket for every question costs more system calls than the question itself
//! (socket, bind, connect, registering with the reactor and leaving it, close); at thousands
//! of questions a second that, not the server, set the doctor's pace. Questions to one server
//! share a socket instead and are told apart by their message ID (and, by the caller, their
//! question section), as `dnsperf` and adns do. One task per socket reads the answers and hands
//! each to the question with its ID.
//!
//! A socket is retired after [`QUESTIONS_PER_SOCKET`] questions and a new one (a new source
//! port) takes over, so a forged answer must still guess the port as well as the ID
//! (RFC 5452 §4, §9.2); a retired socket closes once its last question is answered or gives up.
//! All sockets close when the run's [`UdpSockets`] is dropped and their questions are done.
//!
//! A waiting question's inbox lives in its socket's table, under the lock the reader takes
//! anyway: handing over an answer is a push and a wake, with no channel to allocate per
//! question (at tens of thousands of questions a second, a channel each was a measurable share
//! of the doctor's time).
//!
//! Questions are not sent one system call each: [`Ticket::send`] puts the datagram in its
//! socket's outbox and the socket's task sends everything waiting there at once, with one
//! `sendmmsg` on Linux (a datagram at a time elsewhere). The questions of a batch become ready
//! together (the answers that free them arrive together), so one call carries tens of them; a
//! call each was the largest single part of the doctor's CPU, and each woke the server anew.
//! A datagram that cannot be sent reaches its question as [`Failure::Send`].
//!
//! Answers are read the same way: when the socket is readable its task takes every datagram
//! waiting, up to 32 a call with `recvmmsg` on Linux (one `recv` each elsewhere), and hands
//! them out under one lock. The buffers they are read into are the run's, shared by its
//! sockets (a socket's task holds one only while it reads), so a run with many servers does
//! not hold two megabytes for each.
//!
//! It is longer than the house's 500 lines with its tests (about 430 of code, 250 of tests): a
//! socket's table of waiting questions, its outbox and its reader task work under the one lock
//! described above, and its tests drive them together.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::net::UdpSocket;
use tokio::sync::Notify;

/// Questions one socket carries before a fresh one (a new source port) takes over.
pub const QUESTIONS_PER_SOCKET: usize = 256;

/// Answers queued for one question before the reader drops more (a flood of forged copies).
const QUEUED_PER_QUESTION: usize = 8;

/// What the reader hands a question: a datagram with its ID, or what went wrong.
pub type Delivery = Result<Vec<u8>, Failure>;

/// Why a question got no datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Its own datagram could not be sent (the error, for a person).
    Send(String),
    /// The socket failed (the server refused the port, say): every question on it hears it.
    Socket(String),
}

/// Datagrams given to the kernel in one `sendmmsg` at most.
const SENT_AT_ONCE: usize = 64;

/// Datagrams taken from the kernel in one `recvmmsg` at most.
#[cfg(target_os = "linux")]
const RECEIVED_AT_ONCE: usize = 32;

/// What the reader waits for: answers, or the error the kernel keeps for the socket (an ICMP
/// "port unreachable", which the next read returns). (Tokio's `try_io` takes one interest
/// only; `async_io` takes both, as its own `recv` does.)
#[cfg(target_os = "linux")]
const ANSWERS: tokio::io::Interest = tokio::io::Interest::READABLE.add(tokio::io::Interest::ERROR);

/// The longest datagram UDP carries: a slot this long never cuts an answer short.
const LONGEST_DATAGRAM: usize = 65_535;

/// Receive buffers ([`RECEIVED_AT_ONCE`] slots of [`LONGEST_DATAGRAM`] each) shared by the
/// run's sockets: a socket's task takes one while it reads and puts it back, so a run holds
/// one for each thread reading at the same moment, not one for each socket.
#[cfg(target_os = "linux")]
type Buffers = Arc<Mutex<Vec<Vec<u8>>>>;

/// The shared sockets of one run, one current socket per server. Cheap to share behind an
/// `Arc`; dropping it retires every socket.
#[derive(Default)]
pub struct UdpSockets {
    /// By server (a fast hash: the servers are the run's own few, and every question looks
    /// its server up).
    current: Mutex<HashMap<SocketAddr, Arc<SharedSocket>, foldhash::fast::RandomState>>,
    /// The receive buffers of the run's sockets.
    #[cfg(target_os = "linux")]
    buffers: Buffers,
}

impl std::fmt::Debug for UdpSockets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UdpSockets").finish_non_exhaustive()
    }
}

struct SharedSocket {
    socket: UdpSocket,
    /// The questions waiting for an answer, by message ID (IDs are random: a fast hash is as
    /// good as a keyed one here, and a forged ID only misses).
    waiting: Mutex<HashMap<u16, Inbox, foldhash::fast::RandomState>>,
    /// IDs handed out so far (the socket retires at [`QUESTIONS_PER_SOCKET`]).
    handed_out: Mutex<usize>,
    retired: AtomicBool,
    /// Woken when a question leaves a retired socket, so its reader can close it.
    question_left: Notify,
    /// Datagrams waiting to be sent by the socket's task.
    outbox: Mutex<Outbox>,
    /// Woken when the outbox gets its first datagram since it was last sent.
    send_waiting: Notify,
    /// The run's receive buffers.
    #[cfg(target_os = "linux")]
    buffers: Buffers,
    /// Reads that returned datagrams (for the tests: a batch arrives in few).
    #[cfg(test)]
    reads: std::sync::atomic::AtomicUsize,
}

/// Datagrams to send, one after the other in one buffer (no allocation per datagram).
#[derive(Default)]
struct Outbox {
    bytes: Vec<u8>,
    /// Each datagram's ID and its end in `bytes` (it starts where the one before it ends).
    datagrams: Vec<(u16, usize)>,
}

impl Outbox {
    fn push(&mut self, id: u16, datagram: &[u8]) {
        self.bytes.extend_from_slice(datagram);
        self.datagrams.push((id, self.bytes.len()));
    }

    /// The datagrams, in the order queued, with their IDs.
    fn iter(&self) -> impl Iterator<Item = (u16, &[u8])> {
        let mut start = 0;
        self.datagrams.iter().map(move |&(id, end)| {
            let datagram = &self.bytes[start..end];
            start = end;
            (id, datagram)
        })
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.datagrams.clear();
    }
}

/// What has arrived for one question and is not yet read, and who to wake when more does.
#[derive(Default)]
struct Inbox {
    /// The oldest delivery not yet read. Nearly every question gets exactly one, and it waits
    /// here: a queue of its own would cost an allocation per question.
    first: Option<Delivery>,
    /// Any that came after it (copies, late answers to an earlier attempt), oldest first.
    later: VecDeque<Delivery>,
    waker: Option<Waker>,
}

impl Inbox {
    /// Queues `delivery` (unless [`QUEUED_PER_QUESTION`] are already waiting: copies are
    /// flooding in, and the extra ones are dropped) and wakes the question.
    fn push(&mut self, delivery: Delivery) {
        if self.first.is_none() && self.later.is_empty() {
            self.first = Some(delivery);
        } else if usize::from(self.first.is_some()) + self.later.len() < QUEUED_PER_QUESTION {
            self.later.push_back(delivery);
        }
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }

    /// The oldest delivery not yet read.
    fn pop(&mut self) -> Option<Delivery> {
        self.first.take().or_else(|| self.later.pop_front())
    }
}

/// One question's place on a shared socket: its ID, and the answers that carry that ID. The
/// ID is free again when this is dropped.
pub struct Ticket {
    socket: Arc<SharedSocket>,
    id: u16,
}

impl UdpSockets {
    pub fn new() -> Self {
        Self::default()
    }

    /// A place for one question to `server`: on its current socket, or on a fresh one when
    /// there is none or it has carried its share. Must be called within a Tokio runtime.
    pub fn ticket(&self, server: SocketAddr) -> std::io::Result<Ticket> {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let socket = match current.entry(server) {
                Entry::Occupied(entry) => Arc::clone(entry.get()),
                Entry::Vacant(entry) => Arc::clone(entry.insert(SharedSocket::open(
                    server,
                    #[cfg(target_os = "linux")]
                    Arc::clone(&self.buffers),
                )?)),
            };
            match socket.ticket() {
                Some(ticket) => return Ok(ticket),
                None => {
                    // full: retire it (its reader closes it once its questions are done)
                    socket.retire();
                    current.remove(&server);
                }
            }
        }
    }
}

impl Drop for UdpSockets {
    fn drop(&mut self) {
        let current = self
            .current
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for (_, socket) in current.drain() {
            socket.retire();
        }
    }
}

impl SharedSocket {
    /// Binds a socket on an ephemeral port, connected to `server` (so the kernel drops
    /// datagrams from anyone else), and starts its reader.
    fn open(
        server: SocketAddr,
        #[cfg(target_os = "linux")] buffers: Buffers,
    ) -> std::io::Result<Arc<Self>> {
        let socket = std::net::UdpSocket::bind(local_address_for(server))?;
        socket.connect(server)?;
        socket.set_nonblocking(true)?;
        let shared = Arc::new(Self {
            socket: UdpSocket::from_std(socket)?,
            waiting: Mutex::new(HashMap::default()),
            handed_out: Mutex::new(0),
            retired: AtomicBool::new(false),
            question_left: Notify::new(),
            outbox: Mutex::default(),
            send_waiting: Notify::new(),
            #[cfg(target_os = "linux")]
            buffers,
            #[cfg(test)]
            reads: std::sync::atomic::AtomicUsize::new(0),
        });
        tokio::spawn(read_answers(Arc::clone(&shared)));
        Ok(shared)
    }

    /// A fresh ID on this socket, or `None` once it has carried its share.
    fn ticket(self: &Arc<Self>) -> Option<Ticket> {
        let mut handed_out = self
            .handed_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *handed_out >= QUESTIONS_PER_SOCKET {
            return None;
        }
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        // At most QUESTIONS_PER_SOCKET of the 65,536 IDs are ever taken: this ends quickly.
        let id = loop {
            let id: u16 = rand::random();
            if !waiting.contains_key(&id) {
                break id;
            }
        };
        waiting.insert(id, Inbox::default());
        *handed_out += 1;
        Some(Ticket {
            socket: Arc::clone(self),
            id,
        })
    }

    fn retire(&self) {
        self.retired.store(true, Ordering::Release);
        self.question_left.notify_one();
    }

    fn is_done(&self) -> bool {
        self.retired.load(Ordering::Acquire)
            && self
                .waiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_empty()
    }

    /// Reads every datagram waiting on the socket, [`RECEIVED_AT_ONCE`] a `recvmmsg` at
    /// most, and hands each to the question with its ID (anything else is dropped), until
    /// the kernel has none left; returns that `WouldBlock`, or the socket's error (an ICMP
    /// "port unreachable", say), which the caller hands to every waiting question.
    #[cfg(target_os = "linux")]
    fn receive_waiting(&self) -> std::io::Error {
        let mut buffer = self
            .buffers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_else(|| vec![0u8; RECEIVED_AT_ONCE * LONGEST_DATAGRAM]);
        let mut lengths = Vec::with_capacity(RECEIVED_AT_ONCE);
        let error = loop {
            match receive_many(&self.socket, &mut buffer, &mut lengths) {
                Ok(_) => {
                    #[cfg(test)]
                    self.reads.fetch_add(1, Ordering::Relaxed);
                    let slots = buffer.chunks_exact(LONGEST_DATAGRAM);
                    self.deliver(slots.zip(&lengths).map(|(slot, &length)| &slot[..length]));
                }
                Err(error) => break error,
            }
        };
        self.buffers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(buffer);
        error
    }

    /// Hands each datagram to the question with its ID, under one lock; anything else (too
    /// short to carry an ID, an ID nobody waits for) is dropped.
    fn deliver<'a>(&self, datagrams: impl Iterator<Item = &'a [u8]>) {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        for datagram in datagrams {
            let Some(id) = datagram
                .get(..2)
                .map(|id| u16::from_be_bytes([id[0], id[1]]))
            else {
                continue;
            };
            if let Some(inbox) = waiting.get_mut(&id) {
                inbox.push(Ok(datagram.to_vec()));
            }
        }
    }

    /// The socket failed (an ICMP "port unreachable", say): every waiting question hears it.
    fn fail_all(&self, error: &std::io::Error) {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        for inbox in waiting.values_mut() {
            inbox.push(Err(Failure::Socket(error.to_string())));
        }
    }

    /// Queues `datagram` (carrying `id`) for the socket's task to send.
    fn queue(&self, id: u16, datagram: &[u8]) {
        let mut outbox = self.outbox.lock().unwrap_or_else(PoisonError::into_inner);
        let first = outbox.datagrams.is_empty();
        outbox.push(id, datagram);
        drop(outbox);
        if first {
            self.send_waiting.notify_one();
        }
    }

    /// Sends every queued datagram; `spare` is an empty outbox, swapped for the full one so
    /// that questions can queue more meanwhile (and left empty again for the next time).
    async fn send_queued(&self, spare: &mut Outbox) {
        std::mem::swap(
            spare,
            &mut self.outbox.lock().unwrap_or_else(PoisonError::into_inner),
        );
        let datagrams: Vec<(u16, &[u8])> = spare.iter().collect();
        let mut sent = 0;
        while sent < datagrams.len() {
            let end = datagrams.len().min(sent + SENT_AT_ONCE);
            match self.send_some(&datagrams[sent..end]).await {
                Ok(count) => sent += count.max(1),
                Err(error) => {
                    // the first of them could not be sent: its question hears why
                    self.fail_one(datagrams[sent].0, &error);
                    sent += 1;
                }
            }
        }
        drop(datagrams);
        spare.clear();
    }

    /// Sends the first of `datagrams` (and as many after it as the kernel takes at once);
    /// how many were sent, never 0 when `Ok`.
    #[cfg(target_os = "linux")]
    async fn send_some(&self, datagrams: &[(u16, &[u8])]) -> std::io::Result<usize> {
        loop {
            self.socket.writable().await?;
            match self.socket.try_io(tokio::io::Interest::WRITABLE, || {
                send_many(&self.socket, datagrams)
            }) {
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => continue,
                result => return result,
            }
        }
    }

    /// As on Linux, a datagram at a time (no `sendmmsg`).
    #[cfg(not(target_os = "linux"))]
    async fn send_some(&self, datagrams: &[(u16, &[u8])]) -> std::io::Result<usize> {
        self.socket.send(datagrams[0].1).await?;
        Ok(1)
    }

    /// The datagram with `id` could not be sent: its question (if still waiting) hears it.
    fn fail_one(&self, id: u16, error: &std::io::Error) {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(inbox) = waiting.get_mut(&id) {
            inbox.push(Err(Failure::Send(error.to_string())));
        }
    }
}

/// `datagrams` in one `sendmmsg` on `socket` (connected: no address each); how many the kernel
/// took (at least the first when `Ok`; an error is the first one's).
#[cfg(target_os = "linux")]
fn send_many(socket: &UdpSocket, datagrams: &[(u16, &[u8])]) -> std::io::Result<usize> {
    use std::io::IoSlice;
    use std::os::fd::AsRawFd;

    use nix::sys::socket::{MsgFlags, MultiHeaders, SockaddrStorage, sendmmsg};

    let slices: Vec<[IoSlice<'_>; 1]> = datagrams
        .iter()
        .map(|(_, datagram)| [IoSlice::new(datagram)])
        .collect();
    let addresses: Vec<Option<SockaddrStorage>> = vec![None; slices.len()];
    let mut headers = MultiHeaders::<SockaddrStorage>::preallocate(slices.len(), None);
    let sent = sendmmsg(
        socket.as_raw_fd(),
        &mut headers,
        &slices,
        &addresses,
        [],
        MsgFlags::empty(),
    )?;
    Ok(sent.count())
}

/// The datagrams waiting on `socket` in one `recvmmsg`, one a slot of `buffer`
/// ([`LONGEST_DATAGRAM`] each, so none is cut short), their lengths into `lengths`; how many.
#[cfg(target_os = "linux")]
fn receive_many(
    socket: &UdpSocket,
    buffer: &mut [u8],
    lengths: &mut Vec<usize>,
) -> std::io::Result<usize> {
    use std::io::IoSliceMut;
    use std::os::fd::AsRawFd;

    use nix::sys::socket::{MsgFlags, MultiHeaders, recvmmsg};

    let mut slots: Vec<[IoSliceMut<'_>; 1]> = buffer
        .chunks_exact_mut(LONGEST_DATAGRAM)
        .map(|slot| [IoSliceMut::new(slot)])
        .collect();
    // connected: the kernel only passes on the server's datagrams, so no address each
    let mut headers = MultiHeaders::<()>::preallocate(slots.len(), None);
    let received = recvmmsg(
        socket.as_raw_fd(),
        &mut headers,
        slots.iter_mut(),
        MsgFlags::empty(),
        None,
    )?;
    lengths.clear();
    lengths.extend(received.map(|message| message.bytes));
    Ok(lengths.len())
}

/// Where a socket asking `server` binds: loopback for a loopback server (so nothing outside
/// the machine can answer), else any address of the server's family; an ephemeral port.
pub(crate) fn local_address_for(server: SocketAddr) -> SocketAddr {
    match server.ip() {
        IpAddr::V4(ip) if ip.is_loopback() => (Ipv4Addr::LOCALHOST, 0).into(),
        IpAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, 0).into(),
        IpAddr::V6(ip) if ip.is_loopback() => (Ipv6Addr::LOCALHOST, 0).into(),
        IpAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, 0).into(),
    }
}

/// The socket's task: sends what is queued and reads the answers, until the socket is retired
/// and its last question has left.
async fn read_answers(socket: Arc<SharedSocket>) {
    let mut spare = Outbox::default();
    let mut reader = Reader::default();
    loop {
        if socket.is_done() {
            return;
        }
        tokio::select! {
            () = socket.send_waiting.notified() => socket.send_queued(&mut spare).await,
            () = reader.receive(&socket) => {}
            () = socket.question_left.notified() => {}
        }
    }
}

/// How a socket's task reads answers.
#[derive(Default)]
struct Reader {
    /// Elsewhere than on Linux: the task's own buffer, which `recv` waits with.
    #[cfg(not(target_os = "linux"))]
    buffer: Vec<u8>,
}

impl Reader {
    /// Hands out the answers as they arrive, every one waiting each time the socket is
    /// readable; returns when the socket fails, once its error has reached every question.
    #[cfg(target_os = "linux")]
    async fn receive(&mut self, socket: &SharedSocket) {
        // Tokio waits again when the reading ends in `WouldBlock`: the kernel had no more.
        let failed = socket
            .socket
            .async_io::<()>(ANSWERS, || Err(socket.receive_waiting()))
            .await;
        if let Err(error) = failed {
            socket.fail_all(&error);
        }
    }

    /// As on Linux, a datagram at a time (no `recvmmsg`).
    #[cfg(not(target_os = "linux"))]
    async fn receive(&mut self, socket: &SharedSocket) {
        self.buffer.resize(LONGEST_DATAGRAM, 0);
        match socket.socket.recv(&mut self.buffer).await {
            Ok(length) => {
                #[cfg(test)]
                socket.reads.fetch_add(1, Ordering::Relaxed);
                socket.deliver(std::iter::once(&self.buffer[..length]));
            }
            Err(error) => socket.fail_all(&error),
        }
    }
}

impl Ticket {
    /// The message ID this question must carry.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// Queues `datagram` for sending, with the other questions' ready at the same time; if it
    /// cannot be sent, [`next`](Self::next) says so ([`Failure::Send`]).
    pub fn send(&self, datagram: &[u8]) {
        self.socket.queue(self.id, datagram);
    }

    /// The next datagram carrying this question's ID (or the socket's error); `None` never
    /// happens while the ticket lives, as its inbox stays in the socket's table until then.
    pub async fn next(&mut self) -> Option<Delivery> {
        std::future::poll_fn(|context| self.poll_next(context)).await
    }

    fn poll_next(&self, context: &mut Context<'_>) -> Poll<Option<Delivery>> {
        let mut waiting = self
            .socket
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(inbox) = waiting.get_mut(&self.id) else {
            return Poll::Ready(None);
        };
        match inbox.pop() {
            Some(delivery) => Poll::Ready(Some(delivery)),
            None => {
                match &mut inbox.waker {
                    Some(waker) => waker.clone_from(context.waker()),
                    None => inbox.waker = Some(context.waker().clone()),
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.socket
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
        if self.socket.retired.load(Ordering::Acquire) {
            self.socket.question_left.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that echoes every datagram back.
    async fn echo_server() -> SocketAddr {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let address = socket.local_addr().unwrap();
        tokio::spawn(async move {
            let mut buffer = vec![0u8; 512];
            while let Ok((length, from)) = socket.recv_from(&mut buffer).await {
                let _ = socket.send_to(&buffer[..length], from).await;
            }
        });
        address
    }

    fn datagram(id: u16, body: &[u8]) -> Vec<u8> {
        let mut bytes = id.to_be_bytes().to_vec();
        bytes.extend_from_slice(body);
        bytes
    }

    #[test]
    fn an_inbox_hands_out_its_deliveries_oldest_first_and_holds_a_few_at_most() {
        let delivery = |n: u8| -> Delivery { Ok(vec![n]) };
        let mut inbox = Inbox::default();
        inbox.push(delivery(1));
        inbox.push(delivery(2));
        assert_eq!(inbox.pop(), Some(delivery(1)));
        inbox.push(delivery(3));
        assert_eq!(inbox.pop(), Some(delivery(2)));
        inbox.push(delivery(4));
        assert_eq!(inbox.pop(), Some(delivery(3)));
        assert_eq!(inbox.pop(), Some(delivery(4)));
        assert_eq!(inbox.pop(), None);

        for n in 0..20 {
            inbox.push(delivery(n));
        }
        let kept: Vec<Delivery> = std::iter::from_fn(|| inbox.pop()).collect();
        let held = u8::try_from(QUEUED_PER_QUESTION).unwrap();
        let expected: Vec<Delivery> = (0..held).map(delivery).collect();
        assert_eq!(kept, expected, "the first {QUEUED_PER_QUESTION}, in order");
    }

    #[tokio::test]
    async fn each_question_gets_the_datagram_with_its_id() {
        let server = echo_server().await;
        let sockets = UdpSockets::new();
        // more than one `sendmmsg` carries: all queued before the socket's task runs
        let count = SENT_AT_ONCE * 2 + 22;
        let mut tickets: Vec<Ticket> = (0..count)
            .map(|_| sockets.ticket(server).unwrap())
            .collect();
        let ids: std::collections::HashSet<u16> = tickets.iter().map(Ticket::id).collect();
        assert_eq!(ids.len(), count, "IDs on one socket are distinct");
        for (n, ticket) in tickets.iter().enumerate() {
            ticket.send(&datagram(ticket.id(), format!("q{n}").as_bytes()));
        }
        for (n, ticket) in tickets.iter_mut().enumerate().rev() {
            let answer = ticket.next().await.unwrap().unwrap();
            assert_eq!(answer, datagram(ticket.id(), format!("q{n}").as_bytes()));
        }
    }

    #[tokio::test]
    async fn a_socket_retires_after_its_share_and_closes_when_its_questions_are_done() {
        let server = echo_server().await;
        let sockets = UdpSockets::new();
        let first: Vec<Ticket> = (0..QUESTIONS_PER_SOCKET)
            .map(|_| sockets.ticket(server).unwrap())
            .collect();
        let first_socket = Arc::clone(&first[0].socket);
        let mut next = sockets.ticket(server).unwrap();
        assert!(
            !Arc::ptr_eq(&first_socket, &next.socket),
            "question {} goes out on a fresh socket (a new source port)",
            QUESTIONS_PER_SOCKET + 1
        );
        assert_ne!(
            first_socket.socket.local_addr().unwrap(),
            next.socket.socket.local_addr().unwrap()
        );
        // the retired socket still answers its own questions
        let mut last = first.into_iter().last().unwrap();
        last.send(&datagram(last.id(), b"late"));
        assert_eq!(
            last.next().await.unwrap().unwrap(),
            datagram(last.id(), b"late")
        );
        next.send(&datagram(next.id(), b"new"));
        assert_eq!(
            next.next().await.unwrap().unwrap(),
            datagram(next.id(), b"new")
        );
        drop(last); // the other 255 were dropped with `first`
        // its reader lets go of it once the last question left
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        while Arc::strong_count(&first_socket) > 1 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the retired socket's reader did not stop"
            );
            tokio::task::yield_now().await;
        }
        drop(next);
        let current = Arc::clone(sockets.current.lock().unwrap().get(&server).unwrap());
        drop(sockets);
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        while Arc::strong_count(&current) > 1 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "dropping the run's sockets did not stop the reader"
            );
            tokio::task::yield_now().await;
        }
    }

    /// As the app runs the doctor: questions on several threads at once, each waiting on its
    /// own inbox while the readers, on any thread, fill them, over sockets that retire as
    /// they go. At most 64 in flight, as the doctor bounds them, so the echo server's own
    /// socket never overflows (with 600 at once it dropped some, with or without inboxes).
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn questions_on_many_threads_each_get_their_own_answer() {
        let server = echo_server().await;
        let sockets = Arc::new(UdpSockets::new());
        let in_flight = Arc::new(tokio::sync::Semaphore::new(64));
        let mut tasks = Vec::new();
        for n in 0..QUESTIONS_PER_SOCKET * 3 {
            let sockets = Arc::clone(&sockets);
            let in_flight = Arc::clone(&in_flight);
            tasks.push(tokio::spawn(async move {
                let _permit = in_flight.acquire().await.unwrap();
                let mut ticket = sockets.ticket(server).unwrap();
                let body = format!("question {n}");
                ticket.send(&datagram(ticket.id(), body.as_bytes()));
                let answer = ticket.next().await.unwrap().unwrap();
                assert_eq!(answer, datagram(ticket.id(), body.as_bytes()));
            }));
        }
        for task in tasks {
            tokio::time::timeout(std::time::Duration::from_secs(10), task)
                .await
                .expect("every question is answered")
                .unwrap();
        }
    }

    #[tokio::test]
    async fn copies_past_the_queue_are_dropped_and_the_first_ones_are_read_in_order() {
        let server = echo_server().await;
        let sockets = UdpSockets::new();
        let mut flooded = sockets.ticket(server).unwrap();
        let mut marker = sockets.ticket(server).unwrap();
        let copies = QUEUED_PER_QUESTION + 4;
        for n in 0..copies {
            let copy = datagram(flooded.id(), format!("copy{n}").as_bytes());
            flooded.send(&copy);
        }
        // the echo comes back in order: once the marker is answered, every copy has arrived
        marker.send(&datagram(marker.id(), b"marker"));
        assert_eq!(
            marker.next().await.unwrap().unwrap(),
            datagram(marker.id(), b"marker")
        );
        for n in 0..QUEUED_PER_QUESTION {
            assert_eq!(
                flooded.next().await.unwrap().unwrap(),
                datagram(flooded.id(), format!("copy{n}").as_bytes())
            );
        }
        let mut context = Context::from_waker(Waker::noop());
        assert!(
            flooded.poll_next(&mut context).is_pending(),
            "the {} copies past the queue were dropped",
            copies - QUEUED_PER_QUESTION
        );
    }

    #[tokio::test]
    async fn an_unknown_id_reaches_nobody_and_a_refused_port_reaches_everyone() {
        let server = echo_server().await;
        let sockets = UdpSockets::new();
        let mut ticket = sockets.ticket(server).unwrap();
        let other = ticket.id().wrapping_add(1);
        ticket.send(&datagram(other, b"stray"));
        ticket.send(&datagram(ticket.id(), b"mine"));
        assert_eq!(
            ticket.next().await.unwrap().unwrap(),
            datagram(ticket.id(), b"mine"),
            "the stray datagram with another ID was not delivered"
        );

        // nothing listens on this port: the kernel's ICMP error reaches the waiting questions
        let closed = {
            let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            socket.local_addr().unwrap()
        };
        let mut first = sockets.ticket(closed).unwrap();
        let mut second = sockets.ticket(closed).unwrap();
        first.send(&datagram(first.id(), b"hello"));
        let wait = std::time::Duration::from_secs(5);
        let heard = tokio::time::timeout(wait, first.next()).await.unwrap();
        assert!(matches!(heard, Some(Err(_))), "{heard:?}");
        let heard = tokio::time::timeout(wait, second.next()).await.unwrap();
        assert!(matches!(heard, Some(Err(_))), "{heard:?}");
    }

    /// Answers that arrived together are read together (a few reads, not one each) and each
    /// reaches its own question whole, however long. Datagrams in the same batch that are too
    /// short to carry an ID (empty, one byte) or carry an ID nobody waits for reach nobody and
    /// stop nobody else's.
    #[tokio::test]
    async fn a_batch_of_answers_read_at_once_each_reaches_its_own_question() {
        let server = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let sockets = UdpSockets::new();
        let count = 40;
        let mut tickets: Vec<Ticket> = (0..count)
            .map(|_| sockets.ticket(server.local_addr().unwrap()).unwrap())
            .collect();
        for ticket in &tickets {
            ticket.send(&datagram(ticket.id(), b"question"));
        }
        let mut buffer = [0u8; 64];
        let mut asker = None;
        for _ in 0..count {
            asker = Some(server.recv_from(&mut buffer).await.unwrap().1);
        }
        let asker = asker.unwrap();
        let ids: std::collections::HashSet<u16> = tickets.iter().map(Ticket::id).collect();
        let stranger = (0..=u16::MAX).find(|id| !ids.contains(id)).unwrap();
        let answer = |n: usize, id: u16| match n {
            // longer than any answer asked with EDNS: a slot holds the longest datagram
            3 => datagram(id, &[b'x'; 60_000]),
            _ => datagram(id, format!("answer {n}").as_bytes()),
        };
        // all of it sent before the socket's task runs again (no await in between)
        let mut sent: usize = 0;
        for (n, ticket) in tickets.iter().enumerate() {
            let junk: &[u8] = match n % 4 {
                0 => &[],
                1 => &[7],
                2 => &datagram(stranger, b"not yours"),
                _ => &datagram(stranger, &[b'y'; 1_000]),
            };
            server.try_send_to(junk, asker).unwrap();
            server.try_send_to(&answer(n, ticket.id()), asker).unwrap();
            sent += 2;
        }
        let wait = std::time::Duration::from_secs(5);
        for (n, ticket) in tickets.iter_mut().enumerate() {
            let heard = tokio::time::timeout(wait, ticket.next()).await.unwrap();
            assert_eq!(heard, Some(Ok(answer(n, ticket.id()))), "question {n}");
        }
        let reads = tickets[0].socket.reads.load(Ordering::Relaxed);
        // many a read, as many as a read takes
        #[cfg(target_os = "linux")]
        assert!(
            reads * 8 <= sent && reads <= sent.div_ceil(RECEIVED_AT_ONCE),
            "{sent} datagrams took {reads} reads, {RECEIVED_AT_ONCE} at most a read"
        );
    }

    /// A datagram the kernel refuses (too long for UDP) fails its own question only, as a
    /// failure to send; the ones queued before and after it in the same batch still go out.
    #[tokio::test]
    async fn a_datagram_that_cannot_be_sent_fails_only_its_own_question() {
        let server = echo_server().await;
        let sockets = UdpSockets::new();
        let mut before = sockets.ticket(server).unwrap();
        let mut too_long = sockets.ticket(server).unwrap();
        let mut after = sockets.ticket(server).unwrap();
        before.send(&datagram(before.id(), b"before"));
        too_long.send(&datagram(too_long.id(), &[0u8; 70_000]));
        after.send(&datagram(after.id(), b"after"));
        let wait = std::time::Duration::from_secs(5);
        let heard = tokio::time::timeout(wait, too_long.next()).await.unwrap();
        assert!(matches!(heard, Some(Err(Failure::Send(_)))), "{heard:?}");
        for (ticket, body) in [(&mut before, &b"before"[..]), (&mut after, &b"after"[..])] {
            let heard = tokio::time::timeout(wait, ticket.next()).await.unwrap();
            assert_eq!(heard, Some(Ok(datagram(ticket.id(), body))));
        }
    }
}
