//! One question to one server over UDP (on a socket of its own, or on the run's shared sockets,
//! see [`super::fast::udp`]), asked again over TCP when the UDP answer comes back truncated,
//! all within a deadline. The question is written directly (`encode_request`); the answer is
//! read by the wire reader when it is a plain one (`super::fast::wire`), else as a
//! hickory-proto message.
//!
//! It is longer than the house's 500 lines with its tests (about 390 of code, 140 of tests): one
//! exchange, UDP then TCP under one deadline, is read as a whole.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hickory_proto::op::{Message, MessageType, ResponseCode};
use hickory_proto::rr::{Name, RecordType};
use hickory_proto::serialize::binary::{BinDecodable, BinDecoder};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

use super::answer::{Answer, AnswerStatus};
use super::fast::udp::{Failure, Ticket, UdpSockets, local_address_for};
use super::fast::wire::{self, Question, WireAnswer};
use super::presentation::{normalise_name, plain_wire_name, server_text};

/// An answer as it was read: by the wire reader, or decoded by hickory.
enum Reply {
    Wire(WireAnswer),
    Decoded(Message),
}

impl Reply {
    /// A FORMERR without an OPT record: an old server that does not know EDNS (the wire
    /// reader never reads one).
    fn refuses_edns(&self) -> bool {
        matches!(self, Reply::Decoded(message) if message.metadata.response_code == ResponseCode::FormErr && message.edns.is_none())
    }

    /// Truncated (the wire reader never reads a truncated answer).
    fn truncated(&self) -> bool {
        matches!(self, Reply::Decoded(message) if message.metadata.truncation)
    }

    /// Truncated by a server that answered without an OPT record.
    fn truncated_without_edns(&self) -> bool {
        matches!(self, Reply::Decoded(message) if message.metadata.truncation && message.edns.is_none())
    }
}

/// The EDNS payload size offered (the DNS flag day 2020 value: no fragmentation).
const UDP_PAYLOAD: u16 = 1232;

/// How a question is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QueryOptions {
    /// How long one UDP attempt, or the TCP exchange, may take.
    pub timeout: Duration,
    /// UDP attempts before giving up (a lost datagram is retried once by default).
    pub attempts: u8,
    /// The RD flag: set for recursive resolvers, clear for authoritative servers.
    pub recursion_desired: bool,
    /// The CD flag: asks a validating resolver to skip DNSSEC validation, which tells a
    /// DNSSEC failure apart from a broken server.
    pub checking_disabled: bool,
}

impl Default for QueryOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_millis(1500),
            attempts: 2,
            recursion_desired: true,
            checking_disabled: false,
        }
    }
}

/// Asks `server` for `name`/`record_type` on a socket of its own. Never fails: a timeout, an
/// unreachable server or a malformed answer is an [`Answer`] whose status says so.
pub async fn ask(
    server: SocketAddr,
    name: &str,
    record_type: RecordType,
    options: QueryOptions,
) -> Answer {
    ask_on(None, server, name, record_type, options).await
}

/// As [`ask`], over the run's shared UDP sockets (see [`UdpSockets`]).
pub async fn ask_shared(
    sockets: &UdpSockets,
    server: SocketAddr,
    name: &str,
    record_type: RecordType,
    options: QueryOptions,
) -> Answer {
    ask_on(Some(sockets), server, name, record_type, options).await
}

async fn ask_on(
    sockets: Option<&UdpSockets>,
    server: SocketAddr,
    name: &str,
    record_type: RecordType,
    options: QueryOptions,
) -> Answer {
    let started = Instant::now();
    let elapsed = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let type_label = <&'static str>::from(record_type);
    let failed = |status: AnswerStatus, error: String, elapsed_ms: u64| {
        Answer::failed(
            server_text(server),
            name,
            type_label,
            status,
            error,
            elapsed_ms,
        )
    };

    let normalised = normalise_name(name);
    // A plain name's answers can be matched by the wire reader; any other's by hickory only.
    let (query_name, plain) = match plain_wire_name(&normalised) {
        Some(encoded) => (encoded, true),
        None => match hickory_wire_name(&normalised) {
            Ok(encoded) => (encoded, false),
            Err(error) => {
                return failed(
                    AnswerStatus::Failed,
                    format!("{name:?} is not a DNS name: {error}"),
                    0,
                );
            }
        },
    };
    let mut channel = match UdpChannel::open(sockets, server).await {
        Ok(channel) => channel,
        Err(error) => return failed(AnswerStatus::Failed, error, elapsed()),
    };
    let id = channel.id();
    let encode = |with_edns| encode_request(id, &query_name, record_type, options, with_edns);
    let mut bytes = encode(true);
    let question = plain.then(|| Question::new(id, normalised, u16::from(record_type)));

    let mut udp = channel
        .exchange(&bytes, question.as_ref(), record_type, options)
        .await;
    // An old server that does not know EDNS answers FORMERR without an OPT record (RFC 6891
    // §7): ask it again the old way.
    if matches!(&udp, Ok(reply) if reply.refuses_edns()) {
        bytes = encode(false);
        udp = channel
            .exchange(&bytes, question.as_ref(), record_type, options)
            .await;
    }
    drop(channel);
    // A server that answered without EDNS is asked over TCP without it too.
    if matches!(&udp, Ok(reply) if reply.truncated_without_edns()) {
        bytes = encode(false);
    }
    let (reply, via_tcp) = match udp {
        Ok(reply) if reply.truncated() => {
            match tokio::time::timeout(options.timeout, ask_tcp(server, &bytes, id)).await {
                Ok(Ok(message)) => (Reply::Decoded(message), true),
                Ok(Err(error)) => {
                    return failed(
                        AnswerStatus::Failed,
                        format!("the answer was truncated and TCP failed: {error}"),
                        elapsed(),
                    );
                }
                Err(_) => {
                    return failed(
                        AnswerStatus::Timeout,
                        "the answer was truncated and TCP timed out".to_owned(),
                        elapsed(),
                    );
                }
            }
        }
        Ok(reply) => (reply, false),
        // A zone's own server that is silent over UDP may still answer over TCP (a firewall
        // that drops UDP): it is asked once more there before it is called silent. A
        // resolver's silence is not worth the second wait.
        Err(UdpFailure::Timeout) if !options.recursion_desired => {
            match tokio::time::timeout(options.timeout, ask_tcp(server, &bytes, id)).await {
                Ok(Ok(message)) => (Reply::Decoded(message), true),
                Ok(Err(error)) => {
                    return failed(
                        AnswerStatus::Timeout,
                        format!(
                            "no answer over UDP within {} ms ({} tries), and over TCP: {error}",
                            options.timeout.as_millis(),
                            options.attempts.max(1)
                        ),
                        elapsed(),
                    );
                }
                Err(_) => {
                    return failed(
                        AnswerStatus::Timeout,
                        format!(
                            "no answer over UDP or TCP within {} ms",
                            options.timeout.as_millis()
                        ),
                        elapsed(),
                    );
                }
            }
        }
        Err(UdpFailure::Timeout) => {
            return failed(
                AnswerStatus::Timeout,
                format!(
                    "no answer within {} ms ({} tries)",
                    options.timeout.as_millis(),
                    options.attempts.max(1)
                ),
                elapsed(),
            );
        }
        Err(UdpFailure::Io(error)) => {
            return failed(AnswerStatus::Failed, error, elapsed());
        }
    };
    match reply {
        Reply::Wire(answer) => {
            // Only a question the wire reader can match gets a wire answer; its name is the
            // normalised one, taken back rather than made again.
            let asked = question.map_or_else(|| normalise_name(name), Question::into_name);
            Answer::from_wire(server_text(server), asked, type_label, answer, elapsed())
        }
        Reply::Decoded(message) => Answer::from_message(
            server_text(server),
            name,
            type_label,
            &message,
            via_tcp,
            elapsed(),
        ),
    }
}

/// A name as it goes on the wire (RFC 1035 §3.1), as `ask_on` writes it: each label after
/// its length, then the root.
///
/// `name` is normalised (see [`normalise_name`]). Nearly every name the doctor asks is plain:
/// labels of letters, digits, `-` and `_`, none starting with `-`, within the lengths DNS
/// allows; such a name is written directly ([`plain_wire_name`]), since hickory's parser
/// (escapes, a `Name` of labels) cost a tenth of a question's CPU. Any other name goes
/// through hickory's parser ([`hickory_wire_name`]), which accepts or refuses it exactly as
/// before (`a_name_is_written_as_hickory_writes_it` holds the two together).
#[cfg(test)]
fn wire_name(name: &str) -> Result<Vec<u8>, String> {
    plain_wire_name(name).map_or_else(|| hickory_wire_name(name), Ok)
}

/// Any name on the wire, through hickory's parser.
fn hickory_wire_name(name: &str) -> Result<Vec<u8>, String> {
    let mut parsed = Name::from_ascii(name).map_err(|error| error.to_string())?;
    parsed.set_fqdn(true);
    let mut encoded = Vec::with_capacity(parsed.len() + 1);
    for label in parsed.iter() {
        // a parsed Name's labels are 1–63 bytes
        encoded.push(u8::try_from(label.len()).unwrap_or(63));
        encoded.extend_from_slice(label);
    }
    encoded.push(0);
    Ok(encoded)
}

/// The name a request asks about, as hickory reads it: for matching an answer that the wire
/// reader left to hickory.
fn request_name(request: &[u8]) -> Option<Name> {
    let mut decoder = BinDecoder::new(request.get(12..)?);
    Name::read(&mut decoder).ok()
}

/// The question as it goes on the wire (RFC 1035 §4.1, with an OPT record per RFC 6891 §6.1.2
/// when `with_edns`). Written directly rather than through a hickory `Message`, whose general
/// encoder cost more than the rest of asking; `the_request_is_what_hickory_would_encode` holds
/// it to hickory's bytes.
fn encode_request(
    id: u16,
    name: &[u8],
    record_type: RecordType,
    options: QueryOptions,
    with_edns: bool,
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(12 + name.len() + 4 + 11);
    bytes.extend_from_slice(&id.to_be_bytes());
    // QR 0 (a query), OPCODE 0 (QUERY), AA 0, TC 0, RD; then RA 0, Z 0, AD 0, CD, RCODE 0
    bytes.push(u8::from(options.recursion_desired));
    bytes.push(if options.checking_disabled { 0x10 } else { 0 });
    let additional = u16::from(with_edns);
    for count in [1u16, 0, 0, additional] {
        bytes.extend_from_slice(&count.to_be_bytes());
    }
    bytes.extend_from_slice(name);
    bytes.extend_from_slice(&u16::from(record_type).to_be_bytes());
    bytes.extend_from_slice(&1u16.to_be_bytes()); // class IN
    if with_edns {
        bytes.push(0); // the root name
        bytes.extend_from_slice(&u16::from(RecordType::OPT).to_be_bytes());
        bytes.extend_from_slice(&UDP_PAYLOAD.to_be_bytes()); // the class holds the payload size
        bytes.extend_from_slice(&[0, 0, 0, 0]); // extended RCODE 0, version 0, no DO flag
        bytes.extend_from_slice(&0u16.to_be_bytes()); // no options
    }
    bytes
}

enum UdpFailure {
    Timeout,
    Io(String),
}

/// Where one question's datagrams go: a socket of its own, or its place on a shared one.
enum UdpChannel {
    Own {
        socket: UdpSocket,
        id: u16,
        server: SocketAddr,
        buffer: Vec<u8>,
    },
    Shared {
        ticket: Ticket,
        server: SocketAddr,
    },
}

impl UdpChannel {
    async fn open(sockets: Option<&UdpSockets>, server: SocketAddr) -> Result<Self, String> {
        if let Some(sockets) = sockets {
            let ticket = sockets
                .ticket(server)
                .map_err(|error| format!("could not open a UDP socket to {server}: {error}"))?;
            return Ok(Self::Shared { ticket, server });
        }
        let socket = UdpSocket::bind(local_address_for(server))
            .await
            .map_err(|error| format!("could not open a UDP socket: {error}"))?;
        socket
            .connect(server)
            .await
            .map_err(|error| format!("cannot reach {server}: {error}"))?;
        Ok(Self::Own {
            socket,
            id: rand::random(),
            server,
            buffer: vec![0u8; 65_535],
        })
    }

    fn id(&self) -> u16 {
        match self {
            Self::Own { id, .. } => *id,
            Self::Shared { ticket, .. } => ticket.id(),
        }
    }

    fn server(&self) -> SocketAddr {
        match self {
            Self::Own { server, .. } | Self::Shared { server, .. } => *server,
        }
    }

    /// Sends `request` (on a shared socket: queues it, and a failure to send comes back
    /// from [`receive`](Self::receive)).
    async fn send(&self, request: &[u8]) -> std::io::Result<()> {
        match self {
            Self::Own { socket, .. } => socket.send(request).await.map(drop),
            Self::Shared { ticket, .. } => {
                ticket.send(request);
                Ok(())
            }
        }
    }

    /// The next datagram that may answer this question.
    async fn receive(&mut self) -> Result<Vec<u8>, Failure> {
        match self {
            Self::Own { socket, buffer, .. } => {
                let length = socket
                    .recv(buffer)
                    .await
                    .map_err(|error| Failure::Socket(error.to_string()))?;
                Ok(buffer[..length].to_vec())
            }
            Self::Shared { ticket, .. } => ticket
                .next()
                .await
                .unwrap_or_else(|| Err(Failure::Socket("the socket closed".to_owned()))),
        }
    }

    /// Sends `request` and waits for its answer, sending again after each silent timeout.
    /// `question` is the request's question when the wire reader can match its answers.
    async fn exchange(
        &mut self,
        request: &[u8],
        question: Option<&Question>,
        record_type: RecordType,
        options: QueryOptions,
    ) -> Result<Reply, UdpFailure> {
        let server = self.server();
        let id = self.id();
        // read from the request only if an answer needs hickory to match it
        let mut name = None;
        for _ in 0..options.attempts.max(1) {
            self.send(request)
                .await
                .map_err(|error| UdpFailure::Io(format!("cannot send to {server}: {error}")))?;
            let deadline = tokio::time::Instant::now() + options.timeout;
            loop {
                let datagram = match tokio::time::timeout_at(deadline, self.receive()).await {
                    Err(_) => break,
                    Ok(Err(Failure::Send(error))) => {
                        return Err(UdpFailure::Io(format!("cannot send to {server}: {error}")));
                    }
                    Ok(Err(Failure::Socket(error))) => {
                        return Err(UdpFailure::Io(format!("{server} is unreachable: {error}")));
                    }
                    Ok(Ok(datagram)) => datagram,
                };
                // Anything that is not the answer to this question (a late answer to an
                // earlier attempt is fine, a forged or garbled datagram is not) is ignored.
                if let Some(question) = question {
                    match wire::read(&datagram, question) {
                        wire::Read::Answer(answer) => return Ok(Reply::Wire(answer)),
                        wire::Read::NotOurs => continue,
                        wire::Read::Other => {}
                    }
                }
                if !wire::may_decode(&datagram) {
                    continue;
                }
                let Ok(message) = Message::from_vec(&datagram) else {
                    continue;
                };
                if message.metadata.id != id
                    || message.metadata.message_type != MessageType::Response
                {
                    continue;
                }
                let name = name.get_or_insert_with(|| request_name(request));
                if name
                    .as_ref()
                    .is_some_and(|name| wire::answers_question(&message, name, record_type))
                {
                    return Ok(Reply::Decoded(message));
                }
            }
        }
        Err(UdpFailure::Timeout)
    }
}

async fn ask_tcp(server: SocketAddr, request: &[u8], id: u16) -> Result<Message, String> {
    let mut stream = TcpStream::connect(server)
        .await
        .map_err(|error| format!("cannot connect to {server} over TCP: {error}"))?;
    let length = u16::try_from(request.len()).map_err(|_| "question too long".to_owned())?;
    let mut framed = Vec::with_capacity(request.len() + 2);
    framed.extend_from_slice(&length.to_be_bytes());
    framed.extend_from_slice(request);
    stream
        .write_all(&framed)
        .await
        .map_err(|error| format!("cannot send over TCP: {error}"))?;
    let mut length = [0u8; 2];
    stream
        .read_exact(&mut length)
        .await
        .map_err(|error| format!("no TCP answer: {error}"))?;
    let mut body = vec![0u8; usize::from(u16::from_be_bytes(length))];
    stream
        .read_exact(&mut body)
        .await
        .map_err(|error| format!("the TCP answer was cut short: {error}"))?;
    let message = Message::from_vec(&body).map_err(|error| format!("not a DNS answer: {error}"))?;
    if message.metadata.id != id {
        return Err("the TCP answer was for another question".to_owned());
    }
    Ok(message)
}

#[cfg(test)]
mod tests {
    use hickory_proto::op::{Edns, OpCode, Query};

    use super::*;

    /// What hickory's own encoder writes for the same question.
    fn hickory_request(
        id: u16,
        name: &Name,
        record_type: RecordType,
        options: QueryOptions,
        with_edns: bool,
    ) -> Vec<u8> {
        let mut message = Message::new(id, MessageType::Query, OpCode::Query);
        message.metadata.recursion_desired = options.recursion_desired;
        message.metadata.checking_disabled = options.checking_disabled;
        message.add_query(Query::query(name.clone(), record_type));
        if with_edns {
            let mut edns = Edns::new();
            edns.set_max_payload(UDP_PAYLOAD).set_version(0);
            message.set_edns(edns);
        }
        message.to_vec().unwrap()
    }

    #[test]
    fn the_request_is_what_hickory_would_encode() {
        let names = [
            ".",
            "example.com.",
            "_dmarc.Example.COM.",
            "xn--bcher-kva.example.",
            "a.b.c.d.e.f.g.h.example.org.",
            &format!("{}.example.net.", "x".repeat(63)),
        ];
        for text in names {
            let name = Name::from_ascii(text).unwrap();
            let encoded = wire_name(&normalise_name(text)).unwrap();
            for record_type in [
                RecordType::A,
                RecordType::CAA,
                RecordType::DNSKEY,
                RecordType::Unknown(65_280),
            ] {
                for (recursion_desired, checking_disabled) in
                    [(true, false), (false, false), (true, true), (false, true)]
                {
                    let options = QueryOptions {
                        recursion_desired,
                        checking_disabled,
                        ..QueryOptions::default()
                    };
                    for with_edns in [true, false] {
                        let id = 0xbeef;
                        assert_eq!(
                            encode_request(id, &encoded, record_type, options, with_edns),
                            hickory_request(
                                id,
                                &Name::from_ascii(normalise_name(text)).unwrap(),
                                record_type,
                                options,
                                with_edns
                            ),
                            "{name} {record_type} rd={recursion_desired} cd={checking_disabled} edns={with_edns}"
                        );
                    }
                }
            }
        }
    }

    /// Every name, plain or not, accepted or refused, comes out of [`wire_name`] as out of
    /// hickory's parser: the same bytes, or a refusal.
    #[test]
    fn a_name_is_written_as_hickory_writes_it() {
        let label63 = "a".repeat(63);
        let label64 = "a".repeat(64);
        // 3 × (63 + 1) + 61 = 253 characters: 255 on the wire, the longest name
        let longest = format!("{label63}.{label63}.{label63}.{}", "b".repeat(61));
        let too_long = format!("{longest}c");
        let names = [
            "",
            "com",
            "example.com",
            "www.example.com",
            "_acme-challenge.www.example.com",
            "_443._tcp.example.com",
            "a-b.c_d.e1.9z",
            "xn--bcher-kva.example",
            "-leading.example.com",
            "trailing-.example.com",
            "*.example.com",
            "a..b",
            ".example.com",
            "example.com.",
            "ex ample.com",
            "ex\\.ample.com",
            "ex\\065mple.com",
            "bücher.example",
            "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p",
            &label63,
            &label64,
            &format!("{label63}.example"),
            &format!("{label64}.example"),
            &longest,
            &too_long,
        ];
        for name in names {
            let hickory = Name::from_ascii(name).map(|mut parsed| {
                parsed.set_fqdn(true);
                let mut encoded = Vec::new();
                for label in parsed.iter() {
                    encoded.push(u8::try_from(label.len()).unwrap());
                    encoded.extend_from_slice(label);
                }
                encoded.push(0);
                encoded
            });
            match (wire_name(name), hickory) {
                (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{name:?}"),
                (Err(_), Err(_)) => {}
                (ours, theirs) => panic!("{name:?}: ours {ours:?}, hickory's {theirs:?}"),
            }
        }
        // The question the asker makes for a plain name is the one the wire reader would read
        // back from the request (up to the reader's 250 bytes; past them it reads no answer
        // and hickory matches it).
        for name in names {
            let Some(encoded) = plain_wire_name(name) else {
                continue;
            };
            let request =
                encode_request(9, &encoded, RecordType::AAAA, QueryOptions::default(), true);
            let known = wire::Question::new(9, name.to_owned(), u16::from(RecordType::AAAA));
            match wire::Question::of_request(&request) {
                Some(read) => assert_eq!(read, known, "{name:?}"),
                None => assert!(name.len() > 249, "{name:?}"),
            }
        }
        // the name a request asks about reads back as the name it was written from
        let request = encode_request(
            7,
            &wire_name("www.example.com").unwrap(),
            RecordType::CAA,
            QueryOptions::default(),
            true,
        );
        assert_eq!(
            request_name(&request),
            Some(Name::from_ascii("www.example.com.").unwrap())
        );
    }
}
