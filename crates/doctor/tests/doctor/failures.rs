//! Servers that time out, fail, refuse, truncate or disagree give findings, never hangs or
//! panics.

use std::net::SocketAddr;
use std::time::Duration;

use domain_desk_doctor::dns::{AnswerStatus, QueryOptions, query};
use domain_desk_doctor::{FindingCode, Severity, diagnose};
use hickory_proto::rr::RecordType;

use crate::support::{TARGET, ZoneServer, Zones, options};
use crate::{codes, finding, host};

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        .cname("www.example.com", TARGET)
        .servfail("broken.example.com")
        .dnssec_bogus("signed.example.com")
        .cname("signed.example.com", TARGET);
    for index in 0..100 {
        zones.a("big.example.com", &format!("192.0.2.{}", index + 1));
    }
    zones.zone("com").cname("www.example.com", TARGET);
    zones
}

#[tokio::test]
async fn a_large_answer_is_fetched_again_over_tcp() {
    let server = ZoneServer::start(&world()).await;
    let answer = query::ask(
        server.address,
        "big.example.com",
        RecordType::A,
        QueryOptions::default(),
    )
    .await;
    assert_eq!(answer.status, AnswerStatus::NoError);
    assert!(answer.via_tcp, "the 100 A records do not fit in 1232 bytes");
    assert_eq!(answer.answers.len(), 100);
    // and the diagnosis of the name reads them all
    let report = diagnose(&["big.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let big = host(&report, "big.example.com");
    // One of the hundred is the platform's own address: not another host's site, a conflict.
    let conflict = finding(big, FindingCode::ConflictingRecord);
    let removals = conflict.fix.as_ref().unwrap().changes.len();
    assert_eq!(
        removals, 101,
        "100 A records to remove and one CNAME to add"
    );
}

#[tokio::test]
async fn servfail_is_an_error_with_evidence() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["broken.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let broken = host(&report, "broken.example.com");
    let servfail = finding(broken, FindingCode::Servfail);
    assert_eq!(servfail.severity, Severity::Error);
    assert_eq!(servfail.evidence[0].status, AnswerStatus::ServFail);
    finding(broken, FindingCode::NoServerAnswered);
}

#[tokio::test]
async fn servfail_that_checking_disabled_cures_is_dnssec() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["signed.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let signed = host(&report, "signed.example.com");
    let dnssec = finding(signed, FindingCode::DnssecFailure);
    assert!(dnssec.fix.as_ref().unwrap().summary.contains("DS record"));
    assert_eq!(dnssec.evidence.len(), 2);
    assert_eq!(dnssec.evidence[1].status, AnswerStatus::NoError);
}

#[tokio::test]
async fn a_registrable_domain_that_does_not_exist() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["shop.no-such-domain.com"], &options(&[server.address]))
        .await
        .unwrap();
    let shop = host(&report, "shop.no-such-domain.com");
    let missing = finding(shop, FindingCode::DomainNotRegistered);
    assert!(missing.title.contains("no-such-domain.com"));
    assert!(!codes(shop, Severity::Error).contains(&FindingCode::RecordMissing));
}

#[tokio::test]
async fn a_server_that_does_not_serve_the_name() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["www.example.info"], &options(&[server.address]))
        .await
        .unwrap();
    let www = host(&report, "www.example.info");
    finding(www, FindingCode::NotServed);
    assert!(report.has_errors());
}

#[tokio::test(start_paused = true)]
async fn a_silent_server_times_out_into_findings() {
    // A bound socket that never answers: every question times out.
    let silent = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let address = silent.local_addr().unwrap();
    let mut opts = options(&[address]);
    opts.timeout = Duration::from_secs(2);
    let started = tokio::time::Instant::now();
    let report = diagnose(&["www.example.com"], &opts).await.unwrap();
    let waited = started.elapsed();
    let www = host(&report, "www.example.com");
    finding(www, FindingCode::ServerTimeout);
    finding(www, FindingCode::NoServerAnswered);
    assert!(report.has_errors());
    // bounded: a few rounds of (2 attempts x 2 s), not one per question in sequence
    assert!(waited < Duration::from_secs(30), "took {waited:?}");
    drop(silent);
}

#[tokio::test]
async fn one_silent_name_does_not_hold_up_the_others() {
    let mut zones = world();
    zones.silent("slow.example.com");
    let server = ZoneServer::start(&zones).await;
    let mut opts = options(&[server.address]);
    opts.timeout = Duration::from_millis(1000);
    opts.attempts = 1;
    let report = diagnose(&["slow.example.com", "www.example.com"], &opts)
        .await
        .unwrap();
    finding(
        host(&report, "slow.example.com"),
        FindingCode::ServerTimeout,
    );
    assert!(codes(host(&report, "www.example.com"), Severity::Error).is_empty());
    // www finished first; the report keeps the order the names were given in
    let order: Vec<&str> = report.hosts.iter().map(|h| h.hostname.as_str()).collect();
    assert_eq!(order, ["slow.example.com", "www.example.com"]);
}

#[tokio::test]
async fn an_unreachable_server_is_a_finding() {
    // Bind and drop to get a port nothing listens on.
    let address: SocketAddr = {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket.local_addr().unwrap()
    };
    let mut opts = options(&[address]);
    opts.timeout = Duration::from_millis(300);
    opts.attempts = 1;
    let report = diagnose(&["www.example.com"], &opts).await.unwrap();
    finding(
        host(&report, "www.example.com"),
        FindingCode::NoServerAnswered,
    );
}

#[tokio::test]
async fn servers_that_disagree_show_propagation_and_cache_expiry() {
    let mut before = Zones::with_platform();
    before
        .zone("example.com")
        .a("www.example.com", "192.0.2.10");
    let after_zones = world();
    let after = ZoneServer::start(&after_zones).await;
    let stale = ZoneServer::start(&before).await;
    let report = diagnose(
        &["www.example.com"],
        &options(&[after.address, stale.address]),
    )
    .await
    .unwrap();
    let www = host(&report, "www.example.com");
    let pending = finding(www, FindingCode::PropagationPending);
    assert_eq!(pending.severity, Severity::Warning);
    assert!(
        pending.detail.contains("300 s") || pending.detail.contains("5 min"),
        "{}",
        pending.detail
    );
    let agreement: Vec<Option<bool>> = www.views.iter().map(|view| view.agrees).collect();
    assert_eq!(agreement, [Some(true), Some(false)]);
    assert_eq!(www.views[1].cache_expires_in_seconds, Some(300));
}

#[tokio::test]
async fn a_server_without_edns_is_asked_again_the_old_way() {
    let mut zones = world();
    zones.reject_edns();
    let server = ZoneServer::start(&zones).await;
    let answer = query::ask(
        server.address,
        "www.example.com",
        RecordType::A,
        QueryOptions::default(),
    )
    .await;
    assert_eq!(answer.status, AnswerStatus::NoError);
    assert_eq!(answer.answers[0].value, TARGET);
    let report = diagnose(&["www.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    assert!(codes(host(&report, "www.example.com"), Severity::Error).is_empty());
}

/// Offline or behind a firewall: the servers that cannot be reached are said once, together,
/// and what the reachable one said stands — nothing is an error for their silence.
#[tokio::test(start_paused = true)]
async fn unreachable_servers_are_said_once_and_judge_nothing() {
    let server = ZoneServer::start(&world()).await;
    let silent = [
        tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap(),
        tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap(),
    ];
    let mut opts = options(&[
        server.address,
        silent[0].local_addr().unwrap(),
        silent[1].local_addr().unwrap(),
    ]);
    opts.timeout = Duration::from_millis(500);
    opts.attempts = 1;
    let report = diagnose(&["www.example.com"], &opts).await.unwrap();
    let www = host(&report, "www.example.com");
    let timeouts: Vec<_> = www
        .findings
        .iter()
        .filter(|found| found.code == FindingCode::ServerTimeout)
        .collect();
    assert_eq!(timeouts.len(), 1, "{:#?}", www.findings);
    assert_eq!(timeouts[0].severity, Severity::Warning);
    assert!(
        timeouts[0].title.ends_with("could not be reached") && timeouts[0].evidence.len() == 2,
        "{:#?}",
        timeouts[0]
    );
    assert!(
        codes(www, Severity::Error).is_empty(),
        "{:#?}",
        www.findings
    );
    finding(www, FindingCode::RecordCorrect);
    drop(silent);
}
