//! Servers that answer nonsense: random bytes, answers to another question or with another
//! id, the question echoed back, truncation followed by a TCP stream that is garbage, closes,
//! or stalls, odd response codes, records of the wrong type, and a CNAME to itself. The
//! doctor ends every time, quickly, with findings that say something is wrong and never
//! that the record is correct.

use std::net::SocketAddr;
use std::time::Duration;

use domain_desk_doctor::dns::{AnswerStatus, QueryOptions, query};
use domain_desk_doctor::{FindingCode, Severity, diagnose};
use hickory_proto::op::{Message, MessageType, ResponseCode};
use hickory_proto::rr::rdata::{A, CNAME};
use hickory_proto::rr::{Name, RData, Record, RecordType};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{ServerTasks, options, udp_and_tcp_on};
use crate::{codes, host};

/// What the server does with every question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nonsense {
    RandomBytes,
    WrongId,
    OtherQuestion,
    EchoQuestion,
    TruncatedThenTcpGarbage,
    TruncatedThenTcpClosed,
    TruncatedThenTcpStalls,
    NotImplemented,
    WrongType,
    CnameToItself,
}

const ALL: [Nonsense; 10] = [
    Nonsense::RandomBytes,
    Nonsense::WrongId,
    Nonsense::OtherQuestion,
    Nonsense::EchoQuestion,
    Nonsense::TruncatedThenTcpGarbage,
    Nonsense::TruncatedThenTcpClosed,
    Nonsense::TruncatedThenTcpStalls,
    Nonsense::NotImplemented,
    Nonsense::WrongType,
    Nonsense::CnameToItself,
];

/// The answer to `query` that `nonsense` calls for, over UDP.
fn udp_answer(nonsense: Nonsense, query: &Message, seed: u8) -> Vec<u8> {
    let mut reply = Message::new(
        query.metadata.id,
        MessageType::Response,
        query.metadata.op_code,
    );
    reply.metadata.authoritative = true;
    reply.add_queries(query.queries.clone());
    let asked = query.queries.first().cloned();
    match nonsense {
        Nonsense::RandomBytes => {
            return (0..(37 + usize::from(seed)))
                .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
                .collect();
        }
        Nonsense::WrongId => {
            reply.metadata.id = query.metadata.id.wrapping_add(1);
        }
        Nonsense::OtherQuestion => {
            let mut other = asked.clone().unwrap();
            other.set_name(Name::from_ascii("somewhere.else.example.").unwrap());
            reply.queries = vec![other];
        }
        Nonsense::EchoQuestion => return query.to_vec().unwrap(),
        Nonsense::TruncatedThenTcpGarbage
        | Nonsense::TruncatedThenTcpClosed
        | Nonsense::TruncatedThenTcpStalls => {
            reply.metadata.truncation = true;
        }
        Nonsense::NotImplemented => {
            reply.metadata.response_code = ResponseCode::NotImp;
        }
        Nonsense::WrongType => {
            // Whatever was asked, an A record; asked for A, a CNAME beside it (never valid).
            if let Some(asked) = &asked {
                reply.add_answer(Record::from_rdata(
                    asked.name().clone(),
                    300,
                    RData::A(A::new(203, 0, 113, seed)),
                ));
                if asked.query_type() == RecordType::A {
                    reply.add_answer(Record::from_rdata(
                        asked.name().clone(),
                        300,
                        RData::CNAME(CNAME(Name::from_ascii("elsewhere.example.").unwrap())),
                    ));
                }
            }
        }
        Nonsense::CnameToItself => {
            if let Some(asked) = &asked {
                reply.add_answer(Record::from_rdata(
                    asked.name().clone(),
                    300,
                    RData::CNAME(CNAME(asked.name().clone())),
                ));
            }
        }
    }
    reply.to_vec().unwrap()
}

/// A UDP and TCP server on one loopback port that answers every question with `nonsense`.
struct NonsenseServer {
    address: SocketAddr,
    _tasks: ServerTasks,
}

impl NonsenseServer {
    async fn start(nonsense: Nonsense) -> Self {
        let (udp, tcp, address) = udp_and_tcp_on("127.0.0.1").await;
        let udp_task = tokio::spawn(async move {
            let mut buffer = vec![0u8; 65_535];
            let mut seed = 0u8;
            loop {
                let Ok((length, from)) = udp.recv_from(&mut buffer).await else {
                    return;
                };
                let Ok(query) = Message::from_vec(&buffer[..length]) else {
                    continue;
                };
                seed = seed.wrapping_add(1);
                let _ = udp.send_to(&udp_answer(nonsense, &query, seed), from).await;
            }
        });
        let tcp_task = tokio::spawn(async move {
            let mut held = Vec::new();
            loop {
                let Ok((mut stream, _)) = tcp.accept().await else {
                    return;
                };
                match nonsense {
                    Nonsense::TruncatedThenTcpClosed => drop(stream),
                    Nonsense::TruncatedThenTcpGarbage => {
                        let _ = stream
                            .write_all(&[0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8])
                            .await;
                        let _ = stream.shutdown().await;
                    }
                    Nonsense::TruncatedThenTcpStalls => {
                        // Read the question, promise 512 bytes, send 10, and wait forever.
                        let mut question = [0u8; 512];
                        let _ = stream.read(&mut question).await;
                        let _ = stream
                            .write_all(&[0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
                            .await;
                        held.push(stream);
                    }
                    _ => drop(stream),
                }
            }
        });
        Self {
            address,
            _tasks: ServerTasks(vec![udp_task, tcp_task]),
        }
    }
}

/// Far more than the doctor needs with a 300 ms timeout; reaching it means it hung.
const NO_HANG: Duration = Duration::from_secs(20);

fn quick_options(server: SocketAddr) -> domain_desk_doctor::DoctorOptions {
    let mut options = options(&[server]).with_timeout(Duration::from_millis(300));
    options.attempts = 1;
    options
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_nonsense_ends_in_findings_without_a_hang() {
    for nonsense in ALL {
        let server = NonsenseServer::start(nonsense).await;
        let report = tokio::time::timeout(
            NO_HANG,
            diagnose(
                &["www.example.com", "example.com"],
                &quick_options(server.address),
            ),
        )
        .await
        .unwrap_or_else(|_| panic!("{nonsense:?}: the doctor hung"))
        .unwrap_or_else(|err| {
            panic!("{nonsense:?}: the doctor failed instead of reporting: {err}")
        });
        for name in ["www.example.com", "example.com"] {
            let report = host(&report, name);
            let errors = codes(report, Severity::Error);
            assert!(
                !errors.is_empty(),
                "{nonsense:?}: {name} has no error finding: {:#?}",
                report.findings
            );
            assert!(
                !report
                    .findings
                    .iter()
                    .any(|f| f.code == FindingCode::RecordCorrect),
                "{nonsense:?}: {name} was found correct"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_nonsense_answer_gets_a_status_that_says_so() {
    let quick = QueryOptions {
        timeout: Duration::from_millis(300),
        attempts: 1,
        ..QueryOptions::default()
    };
    for (nonsense, expected) in [
        // Nothing that is not the answer to this question is taken for one.
        (Nonsense::RandomBytes, AnswerStatus::Timeout),
        (Nonsense::WrongId, AnswerStatus::Timeout),
        (Nonsense::OtherQuestion, AnswerStatus::Timeout),
        (Nonsense::EchoQuestion, AnswerStatus::Timeout),
        (Nonsense::TruncatedThenTcpGarbage, AnswerStatus::Failed),
        (Nonsense::TruncatedThenTcpClosed, AnswerStatus::Failed),
        (Nonsense::TruncatedThenTcpStalls, AnswerStatus::Timeout),
        (Nonsense::NotImplemented, AnswerStatus::OtherRcode),
    ] {
        let server = NonsenseServer::start(nonsense).await;
        let answer = tokio::time::timeout(
            NO_HANG,
            query::ask(server.address, "www.example.com", RecordType::CNAME, quick),
        )
        .await
        .unwrap_or_else(|_| panic!("{nonsense:?}: the query hung"));
        assert_eq!(answer.status, expected, "{nonsense:?}: {answer:?}");
        assert!(answer.answers.is_empty(), "{nonsense:?}: {answer:?}");
        if expected != AnswerStatus::OtherRcode {
            assert!(
                answer.error.as_deref().is_some_and(|e| !e.is_empty()),
                "{nonsense:?}: no explanation"
            );
        }
    }
}
