//! The authoritative DNS server: our own request handler, which answers every question from the
//! zone store at the moment it arrives, behind hickory-server's TCP plumbing and our own UDP
//! loop.
//!
//! The UDP loops exist for speed: hickory-server's `Server` spawns a task per packet and
//! hands each answer to a separate sending task through a channel, which cost more CPU than
//! answering itself. Ours are one thread per core on the same socket, each receiving a batch of
//! questions in one system call, answering them inline (the handler never waits) and sending
//! the answers in one call. Each remembers the answers it gave by question, as NSD answers from
//! precompiled data, and forgets them all when the zones change.
//!
//! A zone change is therefore visible to the next query; there is no zone file to reload. The
//! same handler type serves the live view on the public port and, on a second listener, the
//! platform resolver's delayed view that the verifier and the CA query. Only the delayed view
//! may keep negative answers ([`NegativeCache`]), as a resolver does; its questions never take
//! the UDP loops' answer cache, so the live view's fast paths do not look at it.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Waker};
use std::time::Duration;

use chrono::TimeDelta;
use hickory_net::NetError;
use hickory_net::runtime::{Time, TokioTime};
use hickory_net::xfer::Protocol;
use hickory_proto::op::{
    Edns, Header, HeaderCounts, Message, MessageType, Metadata, OpCode, ResponseCode,
};
use hickory_proto::rr::{DNSClass, Record, RecordType};
use hickory_proto::serialize::binary::{BinDecodable, BinDecoder, BinEncoder};
use hickory_server::Server;
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::zone_handler::{MessageResponse, MessageResponseBuilder};
use tokio::net::{TcpListener, UdpSocket};

use super::answer::Resolution;
use super::negative_cache::NegativeCache;
use super::signing::ZoneSigning;
use super::zone::ZoneStore;
use crate::clock::Clock;
use crate::{Error, Result};

/// How long an idle TCP connection stays open.
const TCP_IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Answers queued for sending on one TCP connection: 32, the size hickory-server 0.25 gave
/// every connection (0.26 asks for it; 32 is also hickory-net's default).
const TCP_RESPONSE_BUFFER: usize = 32;

/// The EDNS payload size we offer when the client offers more (the DNS flag day 2020 value).
const MAX_EDNS_PAYLOAD: u16 = 1232;

/// The largest UDP answer for a client that did not offer EDNS (RFC 1035 §4.2.1).
const CLASSIC_UDP_LIMIT: usize = 512;

/// An upper bound of a record's wire size without encoding it: its owner name uncompressed,
/// type, class, TTL and length, and the data — `None` for data whose size is not known
/// without encoding.
fn record_size_bound(record: &Record) -> Option<usize> {
    use hickory_proto::rr::RData;
    let name = record.name.len() + 1;
    let data = match &record.data {
        RData::A(_) => 4,
        RData::AAAA(_) => 16,
        RData::CNAME(target) => target.0.len() + 1,
        RData::NS(target) => target.0.len() + 1,
        RData::SOA(soa) => soa.mname.len() + soa.rname.len() + 2 + 20,
        _ => return None,
    };
    Some(name + 10 + data)
}

/// True when an answer may not fit `limit` bytes; exact (by encoding) only when the cheap
/// upper bound says it might not.
fn may_exceed(metadata: Metadata, answers: &[Record], authority: &[Record], limit: usize) -> bool {
    // header (12) and a generous question section (a full-length name, type and class)
    let mut bound = Some(12 + 255 + 4);
    for record in answers.iter().chain(authority) {
        bound = bound
            .zip(record_size_bound(record))
            .map(|(sum, size)| sum + size);
    }
    match bound {
        Some(bound) if bound <= limit => false,
        _ => encoded_len(metadata, answers, authority) > limit,
    }
}

/// The size of an answer in wire form (no name compression assumed away: an upper bound).
fn encoded_len(metadata: Metadata, answers: &[Record], authority: &[Record]) -> usize {
    let mut message = Message::new(metadata.id, metadata.message_type, metadata.op_code);
    message.metadata = metadata;
    message.answers = answers.to_vec();
    message.authorities = authority.to_vec();
    message.to_vec().map_or(usize::MAX, |bytes| bytes.len())
}

/// Which instant of the zones' history a listener answers from.
#[derive(Clone)]
pub enum ZoneView {
    /// The zones as they are now (the public port: what `dig` sees).
    Live,
    /// The zones as they were `delay()` ago on `clock`: the platform's resolvers, which see
    /// changes only after the propagation delay.
    Delayed {
        clock: Clock,
        delay: Arc<dyn Fn() -> TimeDelta + Send + Sync>,
        /// With one, a negative answer is given again until its zone's negative TTL has
        /// passed on `clock`, even once the record exists (RFC 2308).
        negative_cache: Option<Arc<NegativeCache>>,
    },
}

/// Answers DNS questions from a [`ZoneStore`] in one [`ZoneView`].
#[derive(Clone)]
pub struct ZoneHandler {
    store: ZoneStore,
    view: ZoneView,
    /// With `serve --sign-zones`: DNSKEY at each zone's apex, RRSIGs for a question with DO.
    signing: Option<Arc<ZoneSigning>>,
}

impl ZoneHandler {
    pub fn new(store: ZoneStore, view: ZoneView) -> Self {
        Self {
            store,
            view,
            signing: None,
        }
    }

    /// Signs the zones' answers with `signing`.
    pub fn with_signing(mut self, signing: Option<Arc<ZoneSigning>>) -> Self {
        self.signing = signing;
        self
    }

    /// The answer to `name`/`qtype` in this handler's view: the zones as they are (live), or
    /// as they were `delay` ago, through the negative cache when the view has one.
    fn resolve(&self, name: &str, qtype: RecordType) -> Result<Resolution> {
        let ZoneView::Delayed {
            clock,
            delay,
            negative_cache,
        } = &self.view
        else {
            return self.store.resolve(name, qtype, None);
        };
        let now = clock.now();
        let as_of = now - delay();
        let Some(cache) = negative_cache else {
            return self.store.resolve(name, qtype, Some(as_of));
        };
        if let Some(cached) = cache.answer(name, qtype, now) {
            return Ok(cached);
        }
        let resolution = self.store.resolve(name, qtype, Some(as_of))?;
        cache.remember(name, qtype, &resolution, now);
        Ok(resolution)
    }

    /// The DNSKEY RRset of `zone`'s apex.
    fn dnskey_answer(store: &ZoneStore, signing: &ZoneSigning, zone: &str) -> Result<Resolution> {
        let soa = match store.resolve(zone, RecordType::SOA, None)? {
            Resolution::Answer { soa, .. } => soa,
            Resolution::Refused => return Err(Error::Dns(format!("no SOA for {zone}"))),
        };
        Ok(Resolution::Answer {
            answers: vec![signing.dnskey_record(zone)?],
            nxdomain: false,
            soa,
        })
    }

    /// Every zone served: the platform's and the customers'.
    fn zones(&self) -> Vec<String> {
        let mut zones = self.store.zone_names();
        zones.push(self.store.platform().domain);
        zones
    }

    /// The zone `name` belongs to, among `zones`: the longest that is the name or a parent.
    fn zone_of(zones: &[String], name: &str) -> Option<String> {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        zones
            .iter()
            .filter(|zone| {
                name == **zone
                    || name
                        .strip_suffix(zone.as_str())
                        .is_some_and(|head| head.ends_with('.'))
            })
            .max_by_key(|zone| zone.len())
            .cloned()
    }
}

/// Binds a UDP socket and a TCP listener on the same address. With port 0 it picks a port
/// that is free for both, so `dig` and `dig +tcp` reach the server at one `host:port`.
/// Bytes the kernel may queue for the UDP socket. A burst of questions (a resolver or a batch
/// tool with thousands in flight) arrives faster than any server answers; with the default
/// buffer (about 200 kB, some 800 questions) the rest are dropped and the client waits
/// seconds to retransmit. A queued question costs the kernel about a kilobyte whatever its
/// size, so 32 MB holds some 30,000.
const UDP_BUFFER_BYTES: usize = 32 * 1024 * 1024;

async fn bind_udp(address: std::net::SocketAddr) -> Result<UdpSocket> {
    let udp = UdpSocket::bind(address).await?;
    let socket = socket2::SockRef::from(&udp);
    if !force_receive_buffer(&udp, UDP_BUFFER_BYTES) {
        // Without the privilege, the kernel caps the size at `net.core.rmem_max`.
        if let Err(error) = socket.set_recv_buffer_size(UDP_BUFFER_BYTES) {
            tracing::debug!(%error, "could not enlarge the DNS socket's receive buffer");
        }
    }
    if let Err(error) = socket.set_send_buffer_size(UDP_BUFFER_BYTES) {
        tracing::debug!(%error, "could not enlarge the DNS socket's send buffer");
    }
    Ok(udp)
}

/// `SO_RCVBUFFORCE`: the size asked for even past `net.core.rmem_max`, for a process with
/// `CAP_NET_ADMIN` (as Unbound's `so-rcvbuf` does). False when refused.
#[cfg(target_os = "linux")]
fn force_receive_buffer(udp: &UdpSocket, bytes: usize) -> bool {
    nix::sys::socket::setsockopt(udp, nix::sys::socket::sockopt::RcvBufForce, &bytes).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn force_receive_buffer(_udp: &UdpSocket, _bytes: usize) -> bool {
    false
}

pub async fn bind_dns(address: std::net::SocketAddr) -> Result<(UdpSocket, TcpListener)> {
    if address.port() != 0 {
        let udp = bind_udp(address).await?;
        let tcp = TcpListener::bind(address).await?;
        return Ok((udp, tcp));
    }
    let mut last_error = None;
    for _ in 0..20 {
        let udp = bind_udp(address).await?;
        let chosen = udp.local_addr()?;
        match TcpListener::bind(chosen).await {
            Ok(tcp) => return Ok((udp, tcp)),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error
        .map(Error::Io)
        .unwrap_or_else(|| Error::Dns("no port free for both UDP and TCP".to_owned())))
}

/// Serves DNS on an already bound UDP socket and TCP listener until `shutdown` completes.
pub async fn serve_dns(
    handler: ZoneHandler,
    udp: UdpSocket,
    tcp: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    // Stopped when this function returns or its future is dropped.
    let _udp_loops = UdpLoops::start(&handler, udp.into_std()?)?;
    let mut server = Server::new(handler);
    server.register_listener(tcp, TCP_IDLE_TIMEOUT, TCP_RESPONSE_BUFFER);
    let token = server.shutdown_token().clone();
    tokio::spawn(async move {
        shutdown.await;
        token.cancel();
    });
    server
        .block_until_done()
        .await
        .map_err(|error| Error::Dns(error.to_string()))
}

/// How many UDP loops share the socket: one per core, so a burst is answered on all of them.
fn udp_loop_count() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The largest UDP question we read (hickory's own receive size; EDNS questions are far
/// smaller).
const UDP_RECEIVE_BYTES: usize = hickory_net::udp::MAX_RECEIVE_BUFFER_SIZE;

/// How often a UDP loop waiting for a question looks whether it should stop (it is woken at
/// once on a stop; this is the fallback when the wake-up datagram is lost).
const UDP_STOP_CHECK: Duration = Duration::from_millis(500);

/// Questions received (and answers sent) in one system call (`recvmmsg`/`sendmmsg`).
#[cfg(target_os = "linux")]
const UDP_BATCH: usize = 32;

/// Most answers a UDP loop remembers; past it, it forgets them all and starts again.
const ANSWER_CACHE_ENTRIES: usize = 16_384;

/// The longest question (without its id) whose answer is remembered.
const MAX_CACHED_QUESTION: usize = 512;

/// The UDP loops: one thread per core, each with a blocking handle on the same socket,
/// receiving and answering questions in batches. Dropping this stops them.
struct UdpLoops {
    stop: Arc<AtomicBool>,
    /// Where a datagram wakes a loop waiting for a question.
    wake: SocketAddr,
    count: usize,
}

impl UdpLoops {
    fn start(handler: &ZoneHandler, udp: std::net::UdpSocket) -> Result<Self> {
        udp.set_nonblocking(false)?;
        udp.set_read_timeout(Some(UDP_STOP_CHECK))?;
        let local = udp.local_addr()?;
        let wake = match local.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv4Addr::LOCALHOST.into(), local.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv6Addr::LOCALHOST.into(), local.port())
            }
            _ => local,
        };
        let mut loops = Self {
            stop: Arc::new(AtomicBool::new(false)),
            wake,
            count: 0,
        };
        let handler = Arc::new(handler.clone());
        for index in 0..udp_loop_count() {
            let socket = udp.try_clone()?;
            let (handler, stop) = (Arc::clone(&handler), Arc::clone(&loops.stop));
            std::thread::Builder::new()
                .name(format!("dns-udp-{index}"))
                .spawn(move || serve_udp(&handler, &socket, &stop))?;
            loops.count += 1;
        }
        Ok(loops)
    }
}

impl Drop for UdpLoops {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // A datagram of no bytes wakes a waiting loop, which then sees the stop (a loop may
        // take two in one batch, hence twice as many).
        let any: SocketAddr = if self.wake.is_ipv4() {
            (Ipv4Addr::LOCALHOST, 0).into()
        } else {
            (Ipv6Addr::LOCALHOST, 0).into()
        };
        if let Ok(socket) = std::net::UdpSocket::bind(any) {
            for _ in 0..self.count * 2 {
                let _ = socket.send_to(&[], self.wake);
            }
        }
    }
}

/// Receives questions on `udp` in batches (`recvmmsg`, taking whatever has arrived, at least
/// one) and sends their answers in one call (`sendmmsg`), until `stop`. A receive error (e.g.
/// an ICMP port unreachable reported for an earlier answer) is skipped, not fatal.
#[cfg(target_os = "linux")]
fn serve_udp(handler: &ZoneHandler, udp: &std::net::UdpSocket, stop: &AtomicBool) {
    use std::io::{IoSlice, IoSliceMut};
    use std::os::fd::AsRawFd;

    use nix::errno::Errno;
    use nix::sys::socket::{
        ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage, recvmmsg, sendmmsg,
    };

    let fd = udp.as_raw_fd();
    let mut questions = vec![vec![0_u8; UDP_RECEIVE_BYTES]; UDP_BATCH];
    let mut received = MultiHeaders::<SockaddrStorage>::preallocate(UDP_BATCH, None);
    let mut sent = MultiHeaders::<SockaddrStorage>::preallocate(UDP_BATCH, None);
    let mut arrived: Vec<(usize, Option<SockaddrStorage>)> = Vec::with_capacity(UDP_BATCH);
    let mut answers: Vec<Vec<u8>> = (0..UDP_BATCH).map(|_| Vec::with_capacity(512)).collect();
    let mut to: Vec<Option<SockaddrStorage>> = Vec::with_capacity(UDP_BATCH);
    let mut cache = AnswerCache::default();
    while !stop.load(Ordering::Relaxed) {
        arrived.clear();
        {
            let mut slices: Vec<[IoSliceMut<'_>; 1]> = questions
                .iter_mut()
                .map(|question| [IoSliceMut::new(question)])
                .collect();
            match recvmmsg(
                fd,
                &mut received,
                slices.iter_mut(),
                MsgFlags::MSG_WAITFORONE,
                None,
            ) {
                Ok(messages) => arrived.extend(messages.map(|m| (m.bytes, m.address))),
                // The read timeout: time to look at `stop`.
                Err(Errno::EAGAIN | Errno::EINTR) => continue,
                Err(error) => {
                    tracing::debug!(%error, "DNS UDP receive failed");
                    continue;
                }
            }
        }
        to.clear();
        for (&(length, from), question) in arrived.iter().zip(&questions) {
            let (Some(from), Some(question)) = (from, question.get(..length)) else {
                continue;
            };
            let peer = match (from.as_sockaddr_in(), from.as_sockaddr_in6()) {
                (Some(v4), _) => SocketAddr::V4((*v4).into()),
                (_, Some(v6)) => SocketAddr::V6((*v6).into()),
                _ => continue,
            };
            let Some(answer) = answers.get_mut(to.len()) else {
                break;
            };
            if cache.answer(handler, question, peer, answer) {
                to.push(Some(from));
            }
        }
        let outgoing: Vec<[IoSlice<'_>; 1]> = answers
            .iter()
            .take(to.len())
            .map(|answer| [IoSlice::new(answer)])
            .collect();
        let mut done = 0;
        while let (Some(rest), Some(addresses)) = (outgoing.get(done..), to.get(done..)) {
            if rest.is_empty() {
                break;
            }
            let no_control: [ControlMessage<'_>; 0] = [];
            match sendmmsg(
                fd,
                &mut sent,
                rest,
                addresses,
                no_control,
                MsgFlags::empty(),
            ) {
                Ok(results) => done += results.count().max(1),
                Err(Errno::EINTR) => {}
                Err(error) => {
                    tracing::debug!(%error, "could not send a DNS answer");
                    // The first answer failed: drop it and send the rest.
                    done += 1;
                }
            }
        }
    }
}

/// Receives a question on `udp` and answers it before receiving the next, until `stop`.
#[cfg(not(target_os = "linux"))]
fn serve_udp(handler: &ZoneHandler, udp: &std::net::UdpSocket, stop: &AtomicBool) {
    use std::io::ErrorKind;

    let mut question = vec![0_u8; UDP_RECEIVE_BYTES];
    let mut answer = Vec::with_capacity(512);
    let mut cache = AnswerCache::default();
    while !stop.load(Ordering::Relaxed) {
        match udp.recv_from(&mut question) {
            Ok((length, from)) => {
                let Some(question) = question.get(..length) else {
                    continue;
                };
                if cache.answer(handler, question, from, &mut answer) {
                    if let Err(error) = udp.send_to(&answer, from) {
                        tracing::debug!(%error, to = %from, "could not send a DNS answer");
                    }
                }
            }
            Err(error)
                if matches!(
                    error.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(error) => tracing::debug!(%error, "DNS UDP receive failed"),
        }
    }
}

/// The answers one UDP loop has given, by question (the message without its id), each valid
/// while the zones' [`ZoneStore::generation`] is the one they were computed at: a repeated
/// question is answered by copying bytes and writing its id, as NSD answers from precompiled
/// data. Only for a handler whose answers depend on the question and the zones alone (the
/// live view, unsigned); the others compute every answer.
#[derive(Default)]
struct AnswerCache {
    generation: u64,
    answers: HashMap<Box<[u8]>, Box<[u8]>>,
}

impl AnswerCache {
    /// Writes the answer to `question` into `answer`; false when it gets none.
    fn answer(
        &mut self,
        handler: &ZoneHandler,
        question: &[u8],
        from: SocketAddr,
        answer: &mut Vec<u8>,
    ) -> bool {
        answer.clear();
        let fixed = matches!(handler.view, ZoneView::Live) && handler.signing.is_none();
        let (Some(id), Some(key), true) = (question.get(..2), question.get(2..), fixed) else {
            return answer_udp(handler, question, from, answer);
        };
        // Read before answering: a change while answering leaves it stale, found next time.
        let generation = handler.store.generation();
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

/// Answers one UDP question as hickory-server would, into `answer`: a readable query goes to
/// the handler, a message whose header is readable but whose rest is not gets FORMERR, a
/// response or anything shorter than a header gets nothing (false).
fn answer_udp(
    handler: &ZoneHandler,
    question: &[u8],
    from: SocketAddr,
    answer: &mut Vec<u8>,
) -> bool {
    let header = match Header::read(&mut BinDecoder::new(question)) {
        Ok(header) => header,
        Err(error) => {
            tracing::debug!(%error, %from, "unreadable DNS question");
            return false;
        }
    };
    let request = match Request::from_bytes(question.to_vec(), from, Protocol::Udp) {
        Ok(request) => request,
        Err(_) => {
            let mut response = Message::new(header.id, MessageType::Response, header.op_code);
            response.metadata = Metadata::response_from_request(&header.metadata);
            response.metadata.response_code = ResponseCode::FormErr;
            return match response.to_vec() {
                Ok(bytes) => {
                    *answer = bytes;
                    true
                }
                Err(error) => {
                    tracing::warn!(%error, "could not encode a FORMERR");
                    false
                }
            };
        }
    };
    if request.metadata.message_type == MessageType::Response {
        return false;
    }
    let captured = Captured::default();
    let mut handling = handler.handle_request::<_, TokioTime>(&request, captured.clone());
    // The handler never waits (the zones are in memory and the answer is captured, not sent),
    // so one poll completes it.
    let mut context = Context::from_waker(Waker::noop());
    if handling.as_mut().poll(&mut context).is_pending() {
        tracing::error!("the DNS handler did not answer at once");
        return false;
    }
    match captured.take() {
        Some(bytes) => {
            *answer = bytes;
            true
        }
        None => false,
    }
}

/// The answer to one UDP question, encoded and kept for the loop to send (and remember).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Option<Vec<u8>>>>);

impl Captured {
    fn take(&self) -> Option<Vec<u8>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

#[async_trait::async_trait]
impl ResponseHandler for Captured {
    async fn send_response<'a>(
        &mut self,
        response: MessageResponse<
            '_,
            'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
            impl Iterator<Item = &'a Record> + Send + 'a,
        >,
    ) -> Result<ResponseInfo, NetError> {
        let id = response.metadata().id;
        // At most the EDNS payload, as hickory-server's UDP responses. Without EDNS, 4096 bytes
        // (hickory's receive size; hickory-server 0.26 itself stops at 512): the handler has
        // already emptied, with TC, an answer that may not fit 512 bytes.
        let limit = response
            .edns()
            .map_or(UDP_RECEIVE_BYTES as u16, Edns::max_payload);
        let mut buffer = Vec::with_capacity(512);
        let mut encoder = BinEncoder::new(&mut buffer);
        encoder.set_max_size(limit);
        let info = match response.destructive_emit(&mut encoder) {
            Ok(info) => info,
            Err(error) => {
                tracing::error!(%error, "could not encode a DNS answer");
                let message = Message::error_msg(id, OpCode::Query, ResponseCode::ServFail);
                buffer = message.to_vec()?;
                Header {
                    metadata: message.metadata,
                    counts: HeaderCounts::default(),
                }
                .into()
            }
        };
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(buffer);
        Ok(info)
    }
}

#[async_trait::async_trait]
impl RequestHandler for ZoneHandler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        mut response_handle: R,
    ) -> ResponseInfo {
        let edns = request.edns.as_ref().map(|asked| {
            let mut edns = Edns::new();
            edns.set_version(0);
            edns.set_max_payload(asked.max_payload().clamp(512, MAX_EDNS_PAYLOAD));
            edns
        });
        let mut builder = MessageResponseBuilder::from_message_request(request);
        if let Some(edns) = &edns {
            builder.edns(edns);
        }
        let request_metadata = &request.metadata;
        let refuse = |code: ResponseCode| {
            let mut metadata = Metadata::response_from_request(request_metadata);
            metadata.response_code = code;
            metadata
        };

        let outcome = if request_metadata.message_type != MessageType::Query
            || request_metadata.op_code != OpCode::Query
        {
            Err(refuse(ResponseCode::NotImp))
        } else {
            match request.request_info() {
                Err(_) => Err(refuse(ResponseCode::FormErr)),
                Ok(info) if info.query.query_class() != DNSClass::IN => {
                    Err(refuse(ResponseCode::Refused))
                }
                Ok(info) => {
                    // Its A-labels: hickory displays a name in Unicode, and the zones hold names as
                    // A-labels (`xn--bcher-kva`), which a Unicode name never finds.
                    let name = info.query.name().to_ascii();
                    let zones = self.signing.as_ref().map(|_| self.zones());
                    let apex = zones
                        .as_ref()
                        .and_then(|zones| Self::zone_of(zones, &name))
                        .filter(|zone| *zone == name.trim_end_matches('.').to_ascii_lowercase());
                    let resolution = match (&self.signing, apex) {
                        (Some(signing), Some(zone))
                            if info.query.query_type() == RecordType::DNSKEY =>
                        {
                            Self::dnskey_answer(&self.store, signing, &zone)
                        }
                        _ => self.resolve(&name, info.query.query_type()),
                    };
                    // With DO, each RRset of the answer comes with its RRSIG (a negative
                    // answer has no NSEC proof: it stays unproven).
                    let resolution = match (resolution, &self.signing, &zones) {
                        (
                            Ok(Resolution::Answer {
                                mut answers,
                                nxdomain,
                                soa,
                            }),
                            Some(signing),
                            Some(zones),
                        ) if request
                            .edns
                            .as_ref()
                            .is_some_and(|edns| edns.flags().dnssec_ok) =>
                        {
                            let signatures = signing
                                .sign(&answers, |owner| Self::zone_of(zones, &owner.to_ascii()));
                            answers.extend(signatures);
                            Ok(Resolution::Answer {
                                answers,
                                nxdomain,
                                soa,
                            })
                        }
                        (other, _, _) => other,
                    };
                    match resolution {
                        Ok(Resolution::Refused) => Err(refuse(ResponseCode::Refused)),
                        Ok(Resolution::Answer {
                            answers,
                            nxdomain,
                            soa,
                        }) => Ok((answers, nxdomain, soa)),
                        Err(error) => {
                            tracing::error!(%error, name, "DNS answer failed");
                            Err(refuse(ResponseCode::ServFail))
                        }
                    }
                }
            }
        };

        let sent = match outcome {
            Err(metadata) => {
                let response = builder.build_no_records(metadata);
                response_handle.send_response(response).await
            }
            Ok((answers, nxdomain, soa)) => {
                let mut metadata = Metadata::response_from_request(request_metadata);
                metadata.authoritative = true;
                metadata.recursion_available = false;
                metadata.response_code = if nxdomain {
                    ResponseCode::NXDomain
                } else {
                    ResponseCode::NoError
                };
                let negative: Vec<Record> = if answers.is_empty() || nxdomain {
                    vec![*soa]
                } else {
                    Vec::new()
                };
                if request.protocol() == Protocol::Udp
                    && request.edns.is_none()
                    && may_exceed(metadata, &answers, &negative, CLASSIC_UDP_LIMIT)
                {
                    // RFC 1035 §4.2.1: without EDNS a UDP answer holds at most 512 bytes;
                    // send none of the records, with TC, so the client asks again over TCP.
                    metadata.truncation = true;
                    let response = builder.build_no_records(metadata);
                    response_handle.send_response(response).await
                } else {
                    let response = builder.build(
                        metadata,
                        answers.iter(),
                        std::iter::empty(),
                        negative.iter(),
                        std::iter::empty(),
                    );
                    response_handle.send_response(response).await
                }
            }
        };
        match sent {
            Ok(info) => info,
            Err(error) => {
                tracing::warn!(%error, "could not send a DNS response");
                Header {
                    metadata: refuse(ResponseCode::ServFail),
                    counts: HeaderCounts::default(),
                }
                .into()
            }
        }
    }
}

#[cfg(test)]
mod size_tests {
    use std::net::Ipv4Addr;

    use hickory_proto::rr::rdata::{A, CNAME};
    use hickory_proto::rr::{Name, RData};

    use super::*;

    fn a(name: &str) -> Record {
        Record::from_rdata(
            Name::from_ascii(name).unwrap(),
            60,
            RData::A(A(Ipv4Addr::LOCALHOST)),
        )
    }

    #[test]
    fn the_bound_is_never_below_the_encoded_size() {
        let cname = Record::from_rdata(
            Name::from_ascii("shop.example.com.").unwrap(),
            60,
            RData::CNAME(CNAME(
                Name::from_ascii("cname.pages.local-platform.test.").unwrap(),
            )),
        );
        let answers = vec![cname.clone(), a("cname.pages.local-platform.test.")];
        let bound: usize = answers.iter().map(|r| record_size_bound(r).unwrap()).sum();
        let metadata = Metadata::new(0, MessageType::Query, OpCode::Query);
        let encoded = encoded_len(metadata, &answers, &[]) - 12;
        assert!(bound >= encoded, "bound {bound} < encoded {encoded}");
        assert!(!may_exceed(metadata, &answers, &[], CLASSIC_UDP_LIMIT));
        // many records: over the classic limit, and found so
        let many: Vec<Record> = (0..40)
            .map(|n| a(&format!("host-{n}.example.com.")))
            .collect();
        assert!(encoded_len(metadata, &many, &[]) > CLASSIC_UDP_LIMIT);
        assert!(may_exceed(metadata, &many, &[], CLASSIC_UDP_LIMIT));
    }
}
