//! The DNS server takes packets from anyone: malformed, truncated, oversized, lying about
//! their counts, compression loops, answers instead of questions, TCP streams cut short or
//! promising more than they send. After each, and after all of them, it keeps answering
//! proper questions over UDP and TCP; whatever it sends back to a bad packet is a well-formed
//! DNS message with the packet's id (never a crash, never an echo storm).

use std::net::SocketAddr;
use std::time::Duration;

use domain_desk_service::{Running, Service};
use hickory_proto::op::{Edns, Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::{Name, RecordType};
use rand::{Rng, SeedableRng};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

/// How long a proper question may take to be answered (loopback; generous for CI).
const ANSWER_WITHIN: Duration = Duration::from_secs(5);
/// How long to wait for an answer the server may rightly never send.
const MAYBE_ANSWER_WITHIN: Duration = Duration::from_millis(200);

async fn dns_server() -> (Running, SocketAddr) {
    let service = Service::spawn(crate::common::loopback_settings())
        .await
        .expect("the service starts");
    let dns = service.dns_addr().expect("the DNS server runs");
    (service, dns)
}

fn question(id: u16, name: &str, record_type: RecordType, edns: bool) -> Vec<u8> {
    let mut message = Message::new(id, MessageType::Query, OpCode::Query);
    message.add_query(Query::query(Name::from_ascii(name).unwrap(), record_type));
    if edns {
        let mut opt = Edns::new();
        opt.set_max_payload(1232);
        message.set_edns(opt);
    }
    message.to_vec().unwrap()
}

/// A proper question over UDP gets the SOA of a seeded zone.
async fn still_answers_udp(server: SocketAddr, id: u16) {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    socket
        .send_to(&question(id, "example.com.", RecordType::SOA, true), server)
        .await
        .unwrap();
    let mut buffer = vec![0u8; 65_535];
    let (length, _) = tokio::time::timeout(ANSWER_WITHIN, socket.recv_from(&mut buffer))
        .await
        .expect("the server still answers over UDP")
        .unwrap();
    let answer = Message::from_vec(&buffer[..length]).unwrap();
    assert_eq!(answer.id, id);
    assert_eq!(answer.response_code, ResponseCode::NoError);
    assert_eq!(answer.answers.len(), 1, "{answer:?}");
}

async fn still_answers_tcp(server: SocketAddr, id: u16) {
    let mut stream = TcpStream::connect(server).await.unwrap();
    let query = question(id, "example.com.", RecordType::SOA, false);
    let mut framed = (query.len() as u16).to_be_bytes().to_vec();
    framed.extend_from_slice(&query);
    stream.write_all(&framed).await.unwrap();
    let answer = tokio::time::timeout(ANSWER_WITHIN, async {
        let mut length = [0u8; 2];
        stream.read_exact(&mut length).await.unwrap();
        let mut body = vec![0u8; usize::from(u16::from_be_bytes(length))];
        stream.read_exact(&mut body).await.unwrap();
        Message::from_vec(&body).unwrap()
    })
    .await
    .expect("the server still answers over TCP");
    assert_eq!(answer.id, id);
    assert_eq!(answer.answers.len(), 1);
}

/// Sends one bad datagram; whatever comes back must be a DNS response with its id.
async fn send_bad_datagram(server: SocketAddr, what: &str, packet: &[u8]) -> Option<Message> {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    socket.send_to(packet, server).await.unwrap();
    let mut buffer = vec![0u8; 65_535];
    let received = tokio::time::timeout(MAYBE_ANSWER_WITHIN, socket.recv_from(&mut buffer))
        .await
        .ok()?;
    let (length, _) = received.unwrap();
    let reply = Message::from_vec(&buffer[..length])
        .unwrap_or_else(|err| panic!("{what}: a reply that is not DNS ({err})"));
    assert_eq!(reply.message_type, MessageType::Response, "{what}");
    if packet.len() >= 2 {
        assert_eq!(
            reply.id,
            u16::from_be_bytes([packet[0], packet[1]]),
            "{what}"
        );
    }
    Some(reply)
}

/// The packets a careless or hostile client sends.
fn bad_packets() -> Vec<(String, Vec<u8>)> {
    let good = question(0x4242, "shop.example.com.", RecordType::A, true);
    let mut packets = Vec::new();
    packets.push(("empty".to_owned(), Vec::new()));
    // Every truncation of a proper question, down to one byte.
    for cut in 1..good.len() {
        packets.push((format!("first {cut} bytes"), good[..cut].to_vec()));
    }
    // Counts that promise more than the packet holds.
    for (offset, what) in [
        (4, "QDCOUNT"),
        (6, "ANCOUNT"),
        (8, "NSCOUNT"),
        (10, "ARCOUNT"),
    ] {
        let mut lying = good.clone();
        lying[offset] = 0xff;
        lying[offset + 1] = 0xff;
        packets.push((format!("{what} 65535"), lying));
    }
    // A name that points at itself (compression loop), and one pointing past the end.
    let mut header = good[..12].to_vec();
    header[4..6].copy_from_slice(&1u16.to_be_bytes());
    header[6..12].fill(0);
    let mut looped = header.clone();
    looped.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1]);
    packets.push(("compression loop".to_owned(), looped));
    let mut beyond = header.clone();
    beyond.extend_from_slice(&[0xc0, 0xff, 0, 1, 0, 1]);
    packets.push(("pointer past the end".to_owned(), beyond));
    // A label longer than 63 and a name longer than 255.
    let mut long_label = header.clone();
    long_label.push(64);
    long_label.extend(std::iter::repeat_n(b'a', 64));
    long_label.extend_from_slice(&[0, 0, 1, 0, 1]);
    packets.push(("64-byte label".to_owned(), long_label));
    let mut long_name = header.clone();
    for _ in 0..10 {
        long_name.push(63);
        long_name.extend(std::iter::repeat_n(b'b', 63));
    }
    long_name.extend_from_slice(&[0, 0, 1, 0, 1]);
    packets.push(("640-byte name".to_owned(), long_name));
    // A response instead of a question: answering it would make two servers ping-pong.
    let mut response = good.clone();
    response[2] |= 0x80;
    packets.push(("QR=1".to_owned(), response));
    // Opcodes nobody serves here, and a zone transfer.
    for opcode in [1u8, 2, 4, 5, 15] {
        let mut odd = good.clone();
        odd[2] = (odd[2] & 0x87) | (opcode << 3);
        packets.push((format!("opcode {opcode}"), odd));
    }
    packets.push((
        "AXFR over UDP".to_owned(),
        question(7, "example.com.", RecordType::AXFR, false),
    ));
    packets.push((
        "ANY".to_owned(),
        question(8, "example.com.", RecordType::ANY, false),
    ));
    // Trailing garbage after a proper question, and a 64 KiB datagram of it.
    let mut trailing = good.clone();
    trailing.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    packets.push(("trailing bytes".to_owned(), trailing));
    // Random bytes, reproducibly.
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for size in [3usize, 12, 13, 40, 512, 4096, 65_000] {
        let bytes: Vec<u8> = (0..size).map(|_| rng.r#gen()).collect();
        packets.push((format!("{size} random bytes"), bytes));
    }
    // Random flips of a proper question.
    for flip in 0..64 {
        let mut flipped = good.clone();
        let at = rng.gen_range(0..flipped.len());
        flipped[at] ^= 1 << (flip % 8);
        packets.push((format!("flip {flip}"), flipped));
    }
    packets
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_truncated_udp_packets_never_stop_the_answers() {
    let (_service, server) = dns_server().await;
    still_answers_udp(server, 1).await;
    for (index, (what, packet)) in bad_packets().into_iter().enumerate() {
        let reply = send_bad_datagram(server, &what, &packet).await;
        if what == "QR=1" {
            // Answering an answer would let two servers ping-pong forever.
            assert!(reply.is_none(), "a response was answered: {reply:?}");
        }
        if what.starts_with("first ") || what == "empty" {
            if let Some(reply) = reply {
                assert_ne!(reply.response_code, ResponseCode::NoError, "{what}");
            }
        }
        // A proper question now and then between the bad ones.
        if index % 8 == 0 {
            still_answers_udp(server, 1000 + index as u16).await;
        }
    }
    still_answers_udp(server, 2).await;
    still_answers_tcp(server, 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_garbage_does_not_stop_the_answers() {
    let (_service, server) = dns_server().await;
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for _ in 0..5_000 {
        let size = rng.gen_range(0..600);
        let bytes: Vec<u8> = (0..size).map(|_| rng.r#gen()).collect();
        socket.send_to(&bytes, server).await.unwrap();
    }
    still_answers_udp(server, 4).await;
    still_answers_tcp(server, 5).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tcp_streams_never_stop_the_answers() {
    let (_service, server) = dns_server().await;
    let good = question(0x5151, "example.com.", RecordType::SOA, false);
    let mut streams: Vec<(String, Vec<u8>, bool)> = vec![
        // (what, bytes, close the write side after sending)
        ("nothing, then close".into(), Vec::new(), true),
        ("half a length prefix".into(), vec![0x00], true),
        (
            "a prefix promising 512 bytes, 10 sent, then close".into(),
            [&[0x02, 0x00][..], &good[..10]].concat(),
            true,
        ),
        ("a zero length prefix".into(), vec![0x00, 0x00], true),
        (
            "a garbage message".into(),
            [&[0x00, 0x10][..], &[0xab; 16][..]].concat(),
            true,
        ),
        (
            "a truncated question in a matching frame".into(),
            [&(8u16).to_be_bytes()[..], &good[..8]].concat(),
            true,
        ),
    ];
    // One that promises more and then just stays open, idle.
    streams.push((
        "a prefix promising 512 bytes, 10 sent, left open".into(),
        [&[0x02, 0x00][..], &good[..10]].concat(),
        false,
    ));
    let mut held_open = Vec::new();
    for (what, bytes, close) in streams {
        let mut stream = TcpStream::connect(server).await.unwrap();
        stream.write_all(&bytes).await.unwrap();
        if close {
            stream.shutdown().await.unwrap();
            // Whatever comes back is either nothing or well-formed DNS.
            let mut answer = Vec::new();
            let read = tokio::time::timeout(ANSWER_WITHIN, stream.read_to_end(&mut answer)).await;
            assert!(read.is_ok(), "{what}: the server kept a closed stream open");
            if answer.len() >= 2 {
                let length = usize::from(u16::from_be_bytes([answer[0], answer[1]]));
                let body = answer.get(2..2 + length).expect("a whole frame");
                let reply = Message::from_vec(body)
                    .unwrap_or_else(|err| panic!("{what}: a reply that is not DNS ({err})"));
                assert_eq!(reply.message_type, MessageType::Response, "{what}");
            }
        } else {
            held_open.push(stream);
        }
        still_answers_tcp(server, 6).await;
        still_answers_udp(server, 7).await;
    }
    // Many idle connections at once do not block new ones.
    for _ in 0..50 {
        held_open.push(TcpStream::connect(server).await.unwrap());
    }
    still_answers_tcp(server, 8).await;
    still_answers_udp(server, 9).await;
}
