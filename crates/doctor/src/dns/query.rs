//! One question to one server: a hickory-proto message over UDP, asked again over TCP when
//! the UDP answer comes back truncated, all within a deadline.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

use hickory_proto::op::{Edns, Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::{Name, RecordType};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

use super::answer::{Answer, AnswerStatus, normalise_name};

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

/// Asks `server` for `name`/`record_type`. Never fails: a timeout, an unreachable server or a
/// malformed answer is an [`Answer`] whose status says so.
pub async fn ask(
    server: SocketAddr,
    name: &str,
    record_type: RecordType,
    options: QueryOptions,
) -> Answer {
    let started = Instant::now();
    let elapsed = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let type_label = record_type.to_string();
    let failed = |status: AnswerStatus, error: String, elapsed_ms: u64| {
        Answer::failed(
            server.to_string(),
            name,
            &type_label,
            status,
            error,
            elapsed_ms,
        )
    };

    let query_name = match Name::from_ascii(normalise_name(name)) {
        Ok(mut parsed) => {
            parsed.set_fqdn(true);
            parsed
        }
        Err(error) => {
            return failed(
                AnswerStatus::Failed,
                format!("{name:?} is not a DNS name: {error}"),
                0,
            );
        }
    };
    let id: u16 = rand::random();
    let encoded = build_request(id, query_name.clone(), record_type, options, true)
        .to_vec()
        .and_then(|with_edns| {
            build_request(id, query_name.clone(), record_type, options, false)
                .to_vec()
                .map(|plain| (with_edns, plain))
        });
    let (bytes, plain_bytes) = match encoded {
        Ok(encoded) => encoded,
        Err(error) => {
            return failed(
                AnswerStatus::Failed,
                format!("could not encode the question: {error}"),
                0,
            );
        }
    };

    let mut udp = ask_udp(server, &bytes, id, &query_name, record_type, options).await;
    // An old server that does not know EDNS answers FORMERR without an OPT record (RFC 6891
    // §7): ask it again the old way.
    if matches!(&udp, Ok(message) if message.response_code() == ResponseCode::FormErr && message.extensions().is_none())
    {
        udp = ask_udp(server, &plain_bytes, id, &query_name, record_type, options).await;
    }
    let bytes = match &udp {
        Ok(message) if message.extensions().is_none() => plain_bytes,
        _ => bytes,
    };
    let (message, via_tcp) = match udp {
        Ok(message) if message.truncated() => {
            match tokio::time::timeout(options.timeout, ask_tcp(server, &bytes, id)).await {
                Ok(Ok(message)) => (message, true),
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
        Ok(message) => (message, false),
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
    Answer::from_message(
        server.to_string(),
        name,
        &type_label,
        &message,
        via_tcp,
        elapsed(),
    )
}

fn build_request(
    id: u16,
    name: Name,
    record_type: RecordType,
    options: QueryOptions,
    with_edns: bool,
) -> Message {
    let mut message = Message::new();
    message
        .set_id(id)
        .set_message_type(MessageType::Query)
        .set_op_code(OpCode::Query)
        .set_recursion_desired(options.recursion_desired)
        .set_checking_disabled(options.checking_disabled)
        .add_query(Query::query(name, record_type));
    if with_edns {
        let mut edns = Edns::new();
        edns.set_max_payload(UDP_PAYLOAD).set_version(0);
        message.set_edns(edns);
    }
    message
}

enum UdpFailure {
    Timeout,
    Io(String),
}

async fn ask_udp(
    server: SocketAddr,
    request: &[u8],
    id: u16,
    name: &Name,
    record_type: RecordType,
    options: QueryOptions,
) -> Result<Message, UdpFailure> {
    let local: SocketAddr = match server.ip() {
        IpAddr::V4(ip) if ip.is_loopback() => (Ipv4Addr::LOCALHOST, 0).into(),
        IpAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, 0).into(),
        IpAddr::V6(ip) if ip.is_loopback() => (Ipv6Addr::LOCALHOST, 0).into(),
        IpAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, 0).into(),
    };
    let socket = UdpSocket::bind(local)
        .await
        .map_err(|error| UdpFailure::Io(format!("could not open a UDP socket: {error}")))?;
    socket
        .connect(server)
        .await
        .map_err(|error| UdpFailure::Io(format!("cannot reach {server}: {error}")))?;
    let mut buffer = vec![0u8; 65_535];
    for _ in 0..options.attempts.max(1) {
        socket
            .send(request)
            .await
            .map_err(|error| UdpFailure::Io(format!("cannot send to {server}: {error}")))?;
        let deadline = tokio::time::Instant::now() + options.timeout;
        loop {
            let received = tokio::time::timeout_at(deadline, socket.recv(&mut buffer)).await;
            let length = match received {
                Err(_) => break,
                Ok(Err(error)) => {
                    return Err(UdpFailure::Io(format!("{server} is unreachable: {error}")));
                }
                Ok(Ok(length)) => length,
            };
            // Anything that is not the answer to this question (a late answer to an earlier
            // attempt is fine, a forged or garbled datagram is not) is ignored.
            let Ok(message) = Message::from_vec(&buffer[..length]) else {
                continue;
            };
            if message.id() == id
                && message.message_type() == MessageType::Response
                && answers_question(&message, name, record_type)
            {
                return Ok(message);
            }
        }
    }
    Err(UdpFailure::Timeout)
}

fn answers_question(message: &Message, name: &Name, record_type: RecordType) -> bool {
    match message.query() {
        // Name equality is case-insensitive, as DNS compares names.
        Some(query) => query.query_type() == record_type && query.name() == name,
        // Some servers leave the question out of an error answer.
        None => true,
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
    if message.id() != id {
        return Err("the TCP answer was for another question".to_owned());
    }
    Ok(message)
}
