//! A hostile or broken server can answer NXDOMAIN with the SOA of a zone that is no ancestor
//! of the question, beside NSEC3 records. hickory's NSEC3 closest-encloser proof walked from
//! the question up to that SOA and, never meeting it, looped without end, allocating
//! (RUSTSEC-2026-0118): one such answer hung the diagnosis and ate memory. The doctor must
//! still report, within its own time limit, and say that DNSSEC does not hold.
//!
//! The server here writes its answers byte by byte, without hickory, so that what it sends
//! does not depend on the DNS library whose bug it provokes.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use domain_desk_doctor::{FindingCode, diagnose};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{ServerTasks, options, udp_and_tcp_on};
use crate::{finding, host};

/// The name asked about, in a zone the server claims to deny it from.
const QUESTION: &str = "www.victim-shop.com";
/// The zone whose SOA and NSEC3 records come back: not an ancestor of `QUESTION`.
const UNRELATED_ZONE: &str = "unrelated.example.";

/// The root's key the test trusts: algorithm 13 (ECDSA P-256 with SHA-256), the public key
/// being the curve's generator point (a valid point; nothing is ever signed with it).
const ROOT_KEY: [u8; 64] = [
    0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
    0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96,
    0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
    0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5,
];

const TYPE_SOA: u16 = 6;
const TYPE_OPT: u16 = 41;
const TYPE_RRSIG: u16 = 46;
const TYPE_DNSKEY: u16 = 48;
const TYPE_NSEC3: u16 = 50;

/// `text` in wire form ("." is the root).
fn wire_name(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for label in text
        .trim_end_matches('.')
        .split('.')
        .filter(|label| !label.is_empty())
    {
        out.push(u8::try_from(label.len()).unwrap());
        out.extend_from_slice(label.as_bytes());
    }
    out.push(0);
    out
}

fn record(owner: &[u8], record_type: u16, ttl: u32, data: &[u8]) -> Vec<u8> {
    let mut out = owner.to_vec();
    out.extend_from_slice(&record_type.to_be_bytes());
    out.extend_from_slice(&1u16.to_be_bytes()); // IN
    out.extend_from_slice(&ttl.to_be_bytes());
    out.extend_from_slice(&u16::try_from(data.len()).unwrap().to_be_bytes());
    out.extend_from_slice(data);
    out
}

fn dnskey_data() -> Vec<u8> {
    let mut data = vec![0x01, 0x01, 3, 13]; // flags 257 (zone key, SEP), protocol 3, ECDSA P-256
    data.extend_from_slice(&ROOT_KEY);
    data
}

/// RFC 4034 appendix B.
fn key_tag(dnskey: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (index, byte) in dnskey.iter().enumerate() {
        sum += if index % 2 == 0 {
            u32::from(*byte) << 8
        } else {
            u32::from(*byte)
        };
    }
    sum += (sum >> 16) & 0xffff;
    (sum & 0xffff) as u16
}

/// A signature that claims the root's key over `covered` at `owner`, dated around now; its
/// bytes are zeros, so it never verifies.
fn rrsig(owner: &[u8], covered: u16, labels: u8, signer: &str) -> Vec<u8> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as u32;
    let mut data = covered.to_be_bytes().to_vec();
    data.extend_from_slice(&[13, labels]);
    data.extend_from_slice(&300u32.to_be_bytes());
    data.extend_from_slice(&(now + 86_400).to_be_bytes());
    data.extend_from_slice(&(now - 3_600).to_be_bytes());
    data.extend_from_slice(&key_tag(&dnskey_data()).to_be_bytes());
    data.extend_from_slice(&wire_name(signer));
    data.extend_from_slice(&[0; 64]);
    record(owner, TYPE_RRSIG, 300, &data)
}

/// The answer to the question at the start of `request` (None for what is not a question).
fn answer(request: &[u8]) -> Option<Vec<u8>> {
    if request.len() < 12 {
        return None;
    }
    let mut end = 12;
    while let Some(&length) = request.get(end) {
        end += 1 + usize::from(length);
        if length == 0 {
            break;
        }
    }
    let question = request.get(12..end + 4)?;
    let qname = &question[..question.len() - 4];
    let qtype = u16::from_be_bytes([question[question.len() - 4], question[question.len() - 3]]);
    let with_edns = u16::from_be_bytes([request[10], request[11]]) > 0;

    let mut answers = Vec::new();
    let mut authority = Vec::new();
    let rcode;
    if qtype == TYPE_DNSKEY && qname == [0] {
        rcode = 0;
        answers.push(record(&[0], TYPE_DNSKEY, 300, &dnskey_data()));
        answers.push(rrsig(&[0], TYPE_DNSKEY, 0, "."));
    } else {
        rcode = 3; // NXDOMAIN
        let zone = wire_name(UNRELATED_ZONE);
        let mut soa = wire_name("ns.unrelated.example.");
        soa.extend(wire_name("hostmaster.unrelated.example."));
        for value in [1u32, 7_200, 3_600, 1_209_600, 300] {
            soa.extend_from_slice(&value.to_be_bytes());
        }
        authority.push(record(&zone, TYPE_SOA, 300, &soa));
        authority.push(rrsig(&zone, TYPE_SOA, 2, UNRELATED_ZONE));
        let hashed = wire_name(&format!(
            "0123456789abcdefghijklmnopqrstuv.{UNRELATED_ZONE}"
        ));
        let mut nsec3 = vec![1, 0, 0, 0, 0, 20]; // SHA-1, no flags, 0 iterations, no salt
        nsec3.extend_from_slice(&[0xff; 20]); // the next hashed owner: covers everything
        nsec3.extend_from_slice(&[0, 1, 0x40]); // window 0: A
        authority.push(record(&hashed, TYPE_NSEC3, 300, &nsec3));
        authority.push(rrsig(&hashed, TYPE_NSEC3, 3, UNRELATED_ZONE));
    }

    let mut reply = request[..2].to_vec(); // the question's ID
    let recursion_desired = request[2] & 0x01;
    reply.push(0x80 | 0x04 | recursion_desired); // QR, AA, RD as asked
    reply.push(0x80 | rcode); // RA
    reply.extend_from_slice(&1u16.to_be_bytes());
    reply.extend_from_slice(&u16::try_from(answers.len()).unwrap().to_be_bytes());
    reply.extend_from_slice(&u16::try_from(authority.len()).unwrap().to_be_bytes());
    reply.extend_from_slice(&u16::from(with_edns).to_be_bytes());
    reply.extend_from_slice(question);
    for part in answers.iter().chain(&authority) {
        reply.extend_from_slice(part);
    }
    if with_edns {
        // OPT: 1232-byte payload, the DO bit set.
        reply.extend_from_slice(&[0]);
        reply.extend_from_slice(&TYPE_OPT.to_be_bytes());
        reply.extend_from_slice(&1232u16.to_be_bytes());
        reply.extend_from_slice(&[0, 0, 0x80, 0, 0, 0]);
    }
    Some(reply)
}

/// Answers every question on one loopback port, over UDP and TCP, as `answer` says.
struct CrossZoneDenialServer {
    address: SocketAddr,
    _tasks: ServerTasks,
}

impl CrossZoneDenialServer {
    async fn start() -> Self {
        let (udp, tcp, address) = udp_and_tcp_on("127.0.0.1").await;
        let udp_task = tokio::spawn(async move {
            let mut buffer = vec![0u8; 4096];
            while let Ok((length, peer)) = udp.recv_from(&mut buffer).await {
                if let Some(reply) = answer(&buffer[..length]) {
                    let _ = udp.send_to(&reply, peer).await;
                }
            }
        });
        let tcp_task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = tcp.accept().await {
                tokio::spawn(async move {
                    loop {
                        let mut length = [0u8; 2];
                        if stream.read_exact(&mut length).await.is_err() {
                            return;
                        }
                        let mut request = vec![0u8; usize::from(u16::from_be_bytes(length))];
                        if stream.read_exact(&mut request).await.is_err() {
                            return;
                        }
                        let Some(reply) = answer(&request) else {
                            return;
                        };
                        let mut framed = u16::try_from(reply.len()).unwrap().to_be_bytes().to_vec();
                        framed.extend_from_slice(&reply);
                        if stream.write_all(&framed).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Self {
            address,
            _tasks: ServerTasks(vec![udp_task, tcp_task]),
        }
    }
}

/// Two worker threads: a validation spinning without an await on one would still leave the
/// other to fire the deadline below.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_zone_nsec3_denial_gets_a_finding_within_the_time_limit() {
    let server = CrossZoneDenialServer::start().await;
    let mut options = options(&[server.address]).with_tls_probe(false);
    options.dnssec = true;
    options.trust_anchor = Some(format!(
        ". 300 IN DNSKEY 257 3 13 {}",
        base64::engine::general_purpose::STANDARD.encode(ROOT_KEY)
    ));
    // The doctor's own bounds on validation: its walk 8 timeouts, hickory's validator 4,
    // and the other checks' questions besides.
    let limit = options.timeout * 16;
    let run = tokio::spawn(async move { diagnose(&[QUESTION], &options).await });
    let report = tokio::time::timeout(limit, run)
        .await
        .expect("the diagnosis ran past the doctor's time limit")
        .expect("the diagnosis panicked")
        .expect("the diagnosis failed");
    let host = host(&report, QUESTION);
    let dnssec = finding(host, FindingCode::DnssecBogus);
    assert!(dnssec.title.contains(QUESTION), "{dnssec:#?}");
}
