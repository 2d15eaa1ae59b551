//! The doctor against a real DNS hierarchy instead of the in-process test server: NSD serves
//! a root zone, the `com` and `net` top-level domains, the customer's zone and the platform's
//! zone, each from its own loopback address on port 53, and Unbound resolves iteratively from
//! that root as the system resolver (`/etc/resolv.conf` bind-mounted to point at it). Every
//! zone is signed with `ldns-signzone` and Unbound validates from the test root's key. A
//! healthy CNAME into the platform's zone must come out without an error and without a
//! warning beyond the public resolvers, which cannot be reached; the mistakes only a real
//! server shows (a wildcard, a record under the doubled name, Cloudflare's addresses, a stale
//! AAAA, an expired signature, a wrong DS) must each be named; capture then replay must give
//! the same report; and a live name whose parent zone gains a CAA record naming another CA
//! must be `renewal_at_risk` while an unchanged live name is not.
//!
//! It all runs in a private network and mount namespace (`unshare --net --mount`), where the
//! only interface is loopback: no question can leave the machine, and port 53 is free. The
//! test re-executes this test binary inside the namespace, where
//! [`inside_the_namespace`] does the work. Without root or a working `unshare` it says why
//! and skips, except under `CI=true`, where it fails; without `nsd`, `unbound` or `ldnsutils`
//! it fails (`cargo xtask test` installs them).
//!
//! It is longer than the house's 500 lines (about 1,530, all tests): ten stories (about 820)
//! run in turn inside one namespace against the one `Hierarchy` it starts (about 410: NSD,
//! Unbound, signing, editing zones), three of them editing its zones as they go; beside them
//! the zone files (about 155) and the re-execution into the namespace (about 145). Split, each
//! file would need the hierarchy and the namespace again; the in-process servers' tests are
//! the other files of `tests/doctor/`.

use std::collections::BTreeMap;
use std::fs;
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use domain_desk_doctor::dns::{AnswerStatus, QueryOptions, query};
use domain_desk_doctor::renewal::{LiveCertificate, RenewalState, check_renewals};
use domain_desk_doctor::report::{ChangeAction, NameserverState, SourceKind};
use domain_desk_doctor::{
    DoctorOptions, FindingCode, Severity, diagnose, diagnose_at, diagnose_capturing, replay,
};
use hickory_proto::rr::RecordType;

use crate::{finding, host};

/// Set in the re-executed test binary: it runs inside the namespace.
const INSIDE: &str = "DOMAIN_DESK_DOCTOR_IN_NAMESPACE";
/// The whole re-executed run, servers included.
const OUTER_LIMIT: Duration = Duration::from_secs(120);
/// How long each server may take to answer after its start.
const READY_LIMIT: Duration = Duration::from_secs(15);

const ROOT: &str = "127.0.0.2";
const TLD: &str = "127.0.0.3";
const CUSTOMER: &str = "127.0.0.4";
const PLATFORM: &str = "127.0.0.5";
const RESOLVER: &str = "127.0.0.6";
/// A second DNS provider: `ns.other.net`, half of a move and a server that refuses a zone.
const OTHER: &str = "127.0.0.7";
/// A nameserver that takes questions over UDP and TCP and never answers.
const SILENT: &str = "127.0.0.8";
const TARGET: &str = "edge.platform.net";

#[test]
fn a_healthy_cname_against_nsd_and_unbound() {
    if let Some(reason) = missing_prerequisite() {
        if std::env::var("CI").is_ok_and(|value| value == "true") {
            panic!("the real-server test cannot run under CI: {reason}");
        }
        skip(&reason);
        return;
    }
    for program in [
        "nsd",
        "unbound",
        "ldns-keygen",
        "ldns-signzone",
        "ldns-key2ds",
        "ip",
        "mount",
    ] {
        assert!(
            program_path(program).is_some(),
            "{program} is not installed: apt-get install nsd unbound ldnsutils iproute2 (cargo xtask test \
             installs them)"
        );
    }
    let logs = tempfile::tempdir().unwrap();
    let out = logs.path().join("out");
    // One open file for both streams: they share its offset and do not overwrite each other.
    let output_file = fs::File::create(&out).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new("unshare")
        .args(["--net", "--mount", "--"])
        .arg(&exe)
        .args([
            "real_servers::inside_the_namespace",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(INSIDE, "1")
        .stdin(Stdio::null())
        .stdout(output_file.try_clone().unwrap())
        .stderr(output_file)
        // Its own process group, so that a run past its time ends with every server in it.
        .process_group(0)
        .spawn()
        .unwrap();
    let status = wait_bounded(&mut child, OUTER_LIMIT);
    let output = fs::read_to_string(&out).unwrap_or_default();
    let output: String = output
        .chars()
        .filter(|character| !character.is_control() || *character == '\n')
        .collect();
    match status {
        Some(status) if status.success() && output.contains("1 passed") => {}
        Some(status) => panic!("inside the namespace: {status}\n{output}"),
        None => panic!(
            "inside the namespace: no result within {} s\n{output}",
            OUTER_LIMIT.as_secs()
        ),
    }
}

/// Waits for `child`; past `limit`, ends its process group and returns `None`.
fn wait_bounded(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // The child has not been reaped, so its process group still exists and is its own.
    let group = format!("-{}", child.id());
    let _ = Command::new("kill")
        .args(["-s", "TERM", "--", &group])
        .status();
    let grace = Instant::now();
    while grace.elapsed() < Duration::from_secs(5) {
        if child.try_wait().ok().flatten().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = Command::new("kill")
        .args(["-s", "KILL", "--", &group])
        .status();
    let _ = child.wait();
    None
}

/// A figure BENCHMARKS.md quotes, seen with `--nocapture` inside the namespace.
#[allow(clippy::print_stdout)]
fn figure(text: &str) {
    println!("{text}");
}

#[allow(clippy::print_stderr)]
fn skip(reason: &str) {
    eprintln!("skipping the real-server test: {reason}");
}

/// Why the test cannot run here, if it cannot: only root and a working `unshare` are reasons
/// to skip. Missing servers are a failure (`cargo xtask test` installs them).
fn missing_prerequisite() -> Option<String> {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0");
    if !root {
        return Some("it needs root, for a network namespace and port 53".to_owned());
    }
    let namespace = Command::new("unshare")
        .args(["--net", "--mount", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !namespace.is_ok_and(|status| status.success()) {
        return Some("unshare --net --mount does not work here".to_owned());
    }
    None
}

/// `program` on the PATH, or in the system directories root's PATH usually has.
fn program_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|directory| directory.join(program))
        .find(|candidate| candidate.is_file())
}

/// Runs only when re-executed by [`a_healthy_cname_against_nsd_and_unbound`]; in a normal
/// run it returns at once.
#[tokio::test]
async fn inside_the_namespace() {
    if std::env::var_os(INSIDE).is_none() {
        return;
    }
    assert_private_network();
    let mut hierarchy = Hierarchy::start().await;
    tokio::time::timeout(Duration::from_secs(60), async {
        diagnose_against(&hierarchy).await;
        mistakes_only_nsd_can_show(&hierarchy).await;
        dnssec_failures_seen_through_a_validating_resolver(&hierarchy).await;
        dnssec_validated_by_the_doctor(&hierarchy).await;
        dnssec_from_a_ds_trust_anchor(&hierarchy).await;
        dnssec_causes_named(&hierarchy).await;
        a_fix_still_propagating(&mut hierarchy).await;
        a_name_created_after_a_resolver_asked(&mut hierarchy).await;
        the_path_from_the_registry_down(&hierarchy).await;
        a_live_name_whose_parent_gains_a_forbidding_caa(&mut hierarchy).await;
    })
    .await
    .expect("the diagnoses end within a minute");
    drop(hierarchy);
}

/// Nothing but loopback, and no route: a question to any other address fails on this
/// machine, before a packet is sent.
fn assert_private_network() {
    // Not /sys/class/net: sysfs shows the namespace of whoever mounted it.
    let links = Command::new("ip")
        .args(["-o", "link", "show"])
        .output()
        .unwrap();
    let interfaces: Vec<String> = String::from_utf8_lossy(&links.stdout)
        .lines()
        .filter_map(|line| line.split(": ").nth(1).map(str::to_owned))
        .collect();
    assert_eq!(interfaces, ["lo"], "not in a private network namespace");
    run("ip", &["link", "set", "lo", "up"]);
    let routes = Command::new("ip").args(["route", "show"]).output().unwrap();
    assert!(routes.stdout.is_empty(), "a route leaves loopback");
}

fn run(program: &str, args: &[&str]) {
    let status = Command::new(program_path(program).unwrap())
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "{program} {args:?}: {status}");
}

async fn diagnose_against(hierarchy: &Hierarchy) {
    // What `domain-desk doctor --target edge.platform.net --no-tls NAME` runs: the system
    // resolver, the public resolvers and the zone's own nameservers.
    let options = DoctorOptions::new(TARGET).with_tls_probe(false);
    let (report, capture) = diagnose_capturing(&["www.example.com", "wrong.example.com"], &options)
        .await
        .unwrap();
    // An online run replays as well: the zone's nameservers, found on the way, are in the
    // capture with the system resolver's answers.
    assert_eq!(replay(&capture).await.unwrap(), report);
    let text = report.to_text();
    let context = format!("{text}\n{}", hierarchy.logs());

    let www = host(&report, "www.example.com");
    finding(www, FindingCode::RecordCorrect);
    let kinds: Vec<SourceKind> = www.views.iter().map(|view| view.source.kind).collect();
    assert_eq!(kinds[..2], [SourceKind::Authoritative, SourceKind::System]);
    assert_eq!(www.views[0].source.address, format!("{CUSTOMER}:53"));
    assert_eq!(www.views[1].source.address, format!("{RESOLVER}:53"));
    // the nameserver stops at the CNAME, Unbound follows it: they agree all the same
    assert_eq!(www.views[0].records.len(), 1, "{context}");
    assert!(www.views[1].records.len() > 1, "{context}");
    assert_eq!(www.views[0].agrees, Some(true), "{context}");
    assert_eq!(www.views[1].agrees, Some(true), "{context}");
    for found in &www.findings {
        let unreachable_public = found.code == FindingCode::ServerTimeout
            && www.views.iter().any(|view| {
                view.source.kind == SourceKind::Public
                    && found.title.starts_with(&view.source.label)
            });
        assert!(
            found.severity > Severity::Warning || unreachable_public,
            "{:?} {}\n{context}",
            found.code,
            found.title
        );
    }

    // The CNAME leads to the old host, which serves the name today: said plainly, as a
    // warning whose fix (the CNAME to the platform) waits for the certificate.
    let wrong = host(&report, "wrong.example.com");
    assert!(
        !wrong
            .findings
            .iter()
            .any(|found| found.code == FindingCode::CnameMismatch),
        "{context}"
    );
    let live = finding(wrong, FindingCode::LiveElsewhere);
    assert_eq!(live.severity, Severity::Warning);
    assert!(
        live.title
            .contains("is served today by 127.0.0.20, not the platform"),
        "{context}"
    );
    let changes = &live.fix.as_ref().expect("the switch's fix").changes;
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Remove
                && change.value.contains("old-host.example.com")),
        "{context}"
    );
    assert!(
        !wrong
            .findings
            .iter()
            .any(|found| found.code == FindingCode::PropagationPending),
        "{context}"
    );
    // the command line's exit status counts the errors: the other host's CNAME is none
    assert_eq!(
        report.errors,
        wrong
            .findings
            .iter()
            .filter(|found| found.severity == Severity::Error)
            .count(),
        "{context}"
    );
    assert!(
        !wrong
            .findings
            .iter()
            .any(|found| found.severity == Severity::Error
                && found.code != FindingCode::ServerTimeout),
        "{context}"
    );
}

/// A customer who has just replaced the old host's A record with the CNAME: the zone's
/// nameserver has the CNAME, Unbound still hands out the A record it cached, and the doctor
/// says so as a warning with the time left, not as an error.
async fn a_fix_still_propagating(hierarchy: &mut Hierarchy) {
    let resolver: SocketAddr = format!("{RESOLVER}:53").parse().unwrap();
    for record_type in [RecordType::A, RecordType::AAAA] {
        query::ask(
            resolver,
            "moved.example.com",
            record_type,
            QueryOptions::default(),
        )
        .await;
    }
    hierarchy.edit_zone("customer", "example.com", |text| {
        text.replace(MOVED_BEFORE, &moved_after())
            .replace(" 1 3600 600 ", " 2 3600 600 ")
    });
    hierarchy
        .wait_for(
            CUSTOMER,
            "moved.example.com",
            RecordType::A,
            false,
            |answer| answer.cname_of("moved.example.com").is_some(),
        )
        .await;

    let options = DoctorOptions::new(TARGET).with_tls_probe(false);
    let report = diagnose(&["moved.example.com"], &options).await.unwrap();
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());
    let moved = host(&report, "moved.example.com");
    finding(moved, FindingCode::RecordCorrect);
    let pending = finding(moved, FindingCode::PropagationPending);
    assert_eq!(pending.severity, Severity::Warning);
    assert_eq!(moved.views[0].agrees, Some(true), "{context}");
    assert_eq!(moved.views[1].agrees, Some(false), "{context}");
    assert!(
        moved.views[1]
            .cache_expires_in_seconds
            .is_some_and(|seconds| seconds <= 300),
        "{context}"
    );
    assert!(!report.has_errors(), "{context}");
}

/// Zones signed by `ldns-signzone` and validated by Unbound from the test root's key: an
/// expired signature and a DS that matches no key make Unbound answer SERVFAIL, and the same
/// question with checking disabled (CD) gets the answer, which the doctor reports as a
/// DNSSEC failure rather than a broken server. The signed `example.com` stays healthy (the
/// other checks of this run assert it). Given the hierarchy's trust anchor, the doctor
/// validates the failing names itself and the failure names its one cause.
async fn dnssec_failures_seen_through_a_validating_resolver(hierarchy: &Hierarchy) {
    let options = DoctorOptions::new(TARGET).with_tls_probe(false);
    let names = ["www.expired.com", "www.wrongds.com", "www.example.com"];
    let report = diagnose(&names, &options).await.unwrap();
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());
    for broken in ["www.expired.com", "www.wrongds.com"] {
        let failure = finding(host(&report, broken), FindingCode::DnssecFailure);
        assert_eq!(failure.severity, Severity::Error, "{context}");
        assert!(
            failure
                .detail
                .starts_with(&format!("system resolver {RESOLVER}:53 answers SERVFAIL")),
            "{context}"
        );
        assert!(
            failure.evidence.iter().any(|shown| shown.note.as_deref()
                == Some("asked again with DNSSEC checking disabled (CD)")
                && shown.status == AnswerStatus::NoError),
            "{context}"
        );
    }
    let fine = host(&report, "www.example.com");
    assert!(
        !fine.findings.iter().any(|found| matches!(
            found.code,
            FindingCode::DnssecFailure | FindingCode::Servfail
        )),
        "{context}"
    );

    // Given this hierarchy's trust anchor, the doctor validates the names the resolver fails
    // for, even without --dnssec, and the failure names its one cause and its fix.
    let mut anchored = options.clone();
    anchored.trust_anchor =
        Some(fs::read_to_string(hierarchy.directory.path().join("root.anchor")).unwrap());
    let report = diagnose(&names, &anchored).await.unwrap();
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());
    let expired = finding(host(&report, "www.expired.com"), FindingCode::DnssecFailure);
    assert!(
        expired.detail.contains("expired on 1 Jan 2020, 00:00 UTC")
            && expired.detail.ends_with(&format!(
                "system resolver {RESOLVER}:53 answers SERVFAIL, but answers with validation \
                 turned off."
            ))
            && !expired.detail.contains("DS record"),
        "{context}"
    );
    assert!(
        expired
            .fix
            .as_ref()
            .is_some_and(|fix| fix.summary.contains("sign the zone again")),
        "{context}"
    );
    let wrong = finding(host(&report, "www.wrongds.com"), FindingCode::DnssecFailure);
    assert!(
        wrong
            .title
            .ends_with("the DS record of wrongds.com matches none of its keys")
            && !wrong.detail.contains("expired"),
        "{context}"
    );
    // the others are not validated: no DNSSEC finding of the doctor's own
    assert!(
        !host(&report, "www.example.com")
            .findings
            .iter()
            .any(|found| matches!(
                found.code,
                FindingCode::DnssecValid | FindingCode::DnssecBogus
            )),
        "{context}"
    );
}

/// The doctor's own validation from the test root's key (`--trust-anchor`), through Unbound
/// with checking disabled: the signed chain is valid, a zone without a DS at its parent is
/// unsigned and fine, an expired signature and a wrong DS are bogus. With IANA's root keys
/// instead, the test root itself is not trusted. A capture keeps the verdicts for a replay.
async fn dnssec_validated_by_the_doctor(hierarchy: &Hierarchy) {
    let anchor = fs::read_to_string(hierarchy.directory.path().join("root.anchor")).unwrap();
    let mut options = DoctorOptions::new(TARGET).with_tls_probe(false);
    options.dnssec = true;
    options.trust_anchor = Some(anchor);
    let names = [
        "www.example.com",
        "www.plain.com",
        "www.expired.com",
        "www.wrongds.com",
    ];
    let (report, capture) = diagnose_capturing(&names, &options).await.unwrap();
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());
    assert_eq!(
        finding(host(&report, "www.example.com"), FindingCode::DnssecValid).severity,
        Severity::Ok,
        "{context}"
    );
    assert_eq!(
        finding(
            host(&report, "www.plain.com"),
            FindingCode::DnssecUnsignedOk
        )
        .severity,
        Severity::Info,
        "{context}"
    );
    for broken in ["www.expired.com", "www.wrongds.com"] {
        let bogus = finding(host(&report, broken), FindingCode::DnssecBogus);
        assert_eq!(bogus.severity, Severity::Error, "{context}");
        // Unbound's SERVFAIL, cured by CD, is the same cause: its evidence joins this finding.
        assert!(
            bogus
                .detail
                .contains("answers SERVFAIL, but answers with validation turned off"),
            "{context}"
        );
        assert!(
            !host(&report, broken)
                .findings
                .iter()
                .any(|found| found.code == FindingCode::DnssecFailure),
            "{context}"
        );
        // the fix for this cause alone
        let fix = &bogus.fix.as_ref().unwrap().summary;
        let wanted = if broken == "www.wrongds.com" {
            "remove the DS record"
        } else {
            "sign the zone again"
        };
        assert!(fix.contains(wanted), "{fix}\n{context}");
    }
    assert_eq!(capture.dnssec.len(), names.len(), "{context}");
    assert_eq!(replay(&capture).await.unwrap(), report, "{context}");

    // IANA's keys do not sign this test root: nothing here validates from them.
    options.trust_anchor = None;
    let report = diagnose(&["www.example.com"], &options).await.unwrap();
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());
    finding(host(&report, "www.example.com"), FindingCode::DnssecBogus);
    assert!(
        !host(&report, "www.example.com")
            .findings
            .iter()
            .any(|found| found.code == FindingCode::DnssecValid),
        "{context}"
    );
}

/// `--trust-anchor` with the test root's DS (as `ldns-key2ds` writes it) instead of its
/// DNSKEY: the root's keys are fetched through Unbound and the one the DS names becomes the
/// anchor, so the verdicts are those of the DNSKEY anchor. A DS that names none of the
/// root's keys (one digit changed) refuses the run with a clear error.
async fn dnssec_from_a_ds_trust_anchor(hierarchy: &Hierarchy) {
    let ds = fs::read_to_string(hierarchy.directory.path().join("root.ds")).unwrap();
    assert!(
        ds.split_whitespace()
            .any(|token| token.eq_ignore_ascii_case("DS")),
        "{ds}"
    );
    let mut options = DoctorOptions::new(TARGET).with_tls_probe(false);
    options.dnssec = true;
    options.trust_anchor = Some(ds.clone());
    let names = ["www.example.com", "www.plain.com", "www.wrongds.com"];
    let report = diagnose(&names, &options).await.unwrap();
    let context = format!("{}\n{ds}\n{}", report.to_text(), hierarchy.logs());
    finding(host(&report, "www.example.com"), FindingCode::DnssecValid);
    finding(
        host(&report, "www.plain.com"),
        FindingCode::DnssecUnsignedOk,
    );
    finding(host(&report, "www.wrongds.com"), FindingCode::DnssecBogus);
    assert!(!report.hosts.is_empty(), "{context}");

    // the digest's last hexadecimal digit changed: no key of the root matches
    let digest_end = ds.trim_end().len() - 1;
    let last = &ds[digest_end..digest_end + 1];
    let changed = if last == "0" { "1" } else { "0" };
    let wrong = format!("{}{changed}\n", &ds[..digest_end]);
    options.trust_anchor = Some(wrong.clone());
    match diagnose(&["www.example.com"], &options).await {
        Err(domain_desk_doctor::Error::InvalidOptions(message)) => assert!(
            message.starts_with(&format!("no DNSKEY of . that {RESOLVER}:53 gives (1 key)"))
                && message.contains("matches the trust anchor's DS"),
            "{message}\n{wrong}"
        ),
        other => panic!("a DS matching no key was accepted: {other:?}\n{wrong}"),
    }
}

/// Zones served as written, without signatures.
const UNSIGNED: [&str; 6] = [
    "quiet.com",
    "shop.net",
    "moving.com",
    "moving.com-other",
    "lame.com",
    "other.net",
];

/// The key tag of an `ldns-keygen` key (its basename ends `+algorithm+tag`).
fn key_tag(basename: &str) -> u16 {
    basename.rsplit('+').next().unwrap().parse().unwrap()
}

/// Each DNSSEC failure named by its one cause, with its evidence, and the fix for that cause
/// alone: the expired signature with its expiry and signer, the DS with the key tags on both
/// sides, the RRset without its signature; and a signed name whose CNAME leads into an
/// unsigned zone is valid, not "not signed".
async fn dnssec_causes_named(hierarchy: &Hierarchy) {
    let anchor = fs::read_to_string(hierarchy.directory.path().join("root.anchor")).unwrap();
    let mut options = DoctorOptions::new(TARGET).with_tls_probe(false);
    options.dnssec = true;
    options.trust_anchor = Some(anchor);
    let names = [
        "www.expired.com",
        "www.wrongds.com",
        "www.missing.com",
        "www.good.com",
    ];
    let report = diagnose(&names, &options).await.unwrap();
    let text = report.to_text();
    let context = format!("{text}\n{}", hierarchy.logs());
    let tag_of = |file: &str| {
        key_tag(
            &hierarchy
                .keys
                .iter()
                .find(|(zone, _)| zone == file)
                .unwrap()
                .1,
        )
    };

    let expired = finding(host(&report, "www.expired.com"), FindingCode::DnssecBogus);
    assert!(expired.title.contains("has expired"), "{context}");
    assert!(
        expired.detail.contains(&format!(
            "made by expired.com with key {}, expired on 1 Jan 2020, 00:00 UTC (",
            tag_of("expired.com")
        )),
        "{context}"
    );
    assert!(!expired.detail.contains("DS record"), "{context}");
    let fix = &expired.fix.as_ref().unwrap().summary;
    assert!(
        fix.starts_with("Have the DNS provider of expired.com sign the zone again")
            && !fix.contains("DS"),
        "{context}"
    );

    let wrong = finding(host(&report, "www.wrongds.com"), FindingCode::DnssecBogus);
    assert!(
        wrong
            .title
            .ends_with("the DS record of wrongds.com matches none of its keys"),
        "{context}"
    );
    let (parent_tag, published) = (key_tag(&hierarchy.stranger), tag_of("wrongds.com"));
    assert!(
        wrong.detail.contains(&format!(
            "com holds a DS record for wrongds.com naming key tag {parent_tag}, but wrongds.com \
             publishes the key with tag {published}"
        )),
        "{context}"
    );
    assert!(!wrong.detail.contains("expired"), "{context}");
    let fix = &wrong.fix.as_ref().unwrap().summary;
    assert!(
        fix.contains(&format!(
            "replace the DS record (key tag {parent_tag}) with the DS of the zone's current key \
             (tag {published})"
        )) && !fix.contains("sign the zone"),
        "{context}"
    );

    let missing = finding(host(&report, "www.missing.com"), FindingCode::DnssecBogus);
    assert!(
        missing
            .title
            .ends_with("www.missing.com CNAME has no signature"),
        "{context}"
    );
    assert!(
        missing
            .detail
            .starts_with("missing.com is signed (its parent's DS names its key), but www.missing.com CNAME comes without its signature"),
        "{context}"
    );

    let good = host(&report, "www.good.com");
    let valid = finding(good, FindingCode::DnssecValid);
    assert_eq!(valid.severity, Severity::Ok, "{context}");
    assert_eq!(
        valid.title, "DNSSEC validates for www.good.com; its target www.shop.net is not signed",
        "{context}"
    );
    assert!(
        valid
            .detail
            .contains("leads to www.shop.net, in shop.net, a zone that is not signed"),
        "{context}"
    );
    assert!(
        !good.findings.iter().any(|found| matches!(
            found.code,
            FindingCode::DnssecUnsignedOk | FindingCode::DnssecBogus
        )),
        "{context}"
    );
    // times for people, and the clock they are by
    assert!(!text.contains("2020-01-01T"), "{context}");
    assert!(text.contains("by this computer's clock"), "{context}");
}

/// Records holding the mistakes of [`mistakes_only_nsd_can_show`].
const MISTAKES: &str = "\
example.com. IN A 127.0.0.10
example.com. IN AAAA 2001:db8::99
proxied.example.com. IN A 104.16.132.229
proxied.example.com. IN AAAA 2606:4700::6810:84e5
appended.example.com.example.com. IN CNAME edge.platform.net.
*.shops.example.com. IN CNAME old-host.example.com.
";

/// The findings that need a real server's behaviour: a wildcard (RFC 4592 synthesis), a
/// record under the doubled name, Cloudflare's addresses, an apex whose AAAA was left behind.
async fn mistakes_only_nsd_can_show(hierarchy: &Hierarchy) {
    let options = DoctorOptions::new(TARGET).with_tls_probe(false);
    let names = [
        "example.com",
        "proxied.example.com",
        "appended.example.com",
        "eu.shops.example.com",
    ];
    let report = diagnose(&names, &options).await.unwrap();
    let context = format!("{}\n{}", report.to_markdown(), hierarchy.logs());

    let apex = host(&report, "example.com");
    let aaaa = finding(apex, FindingCode::AaaaMismatch);
    assert_eq!(aaaa.severity, Severity::Error);
    assert!(aaaa.detail.contains("2001:db8::99"), "{context}");
    let changes = &aaaa.fix.as_ref().unwrap().changes;
    assert_eq!(
        changes
            .iter()
            .map(|change| (
                change.action,
                change.record_type.as_str(),
                change.value.as_str()
            ))
            .collect::<Vec<_>>(),
        [
            (ChangeAction::Remove, "AAAA", "2001:db8::99"),
            (ChangeAction::Add, "AAAA", "2001:db8::10")
        ],
        "{context}"
    );
    assert!(
        !apex
            .findings
            .iter()
            .any(|found| found.code == FindingCode::ApexAddressMismatch),
        "{context}"
    );

    let proxied = host(&report, "proxied.example.com");
    let behind = finding(proxied, FindingCode::ProxiedByCloudflare);
    assert!(
        behind.detail.contains("104.16.132.229 in 104.16.0.0/13"),
        "{context}"
    );
    assert!(behind.detail.contains("2606:4700::/32"), "{context}");
    assert!(
        !proxied
            .findings
            .iter()
            .any(|found| found.code == FindingCode::ConflictingRecord),
        "the proxy's addresses are not blamed as the customer's A record\n{context}"
    );

    let appended = finding(
        host(&report, "appended.example.com"),
        FindingCode::ZoneAppended,
    );
    assert!(
        appended.title.contains("appended.example.com.example.com"),
        "{context}"
    );

    let shadowed = host(&report, "eu.shops.example.com");
    let shadow = finding(shadowed, FindingCode::WildcardShadow);
    assert!(shadow.title.contains("*.shops.example.com"), "{context}");
    assert!(
        !shadowed
            .findings
            .iter()
            .any(|found| found.code == FindingCode::CnameMismatch),
        "{context}"
    );
    let add = &shadow.fix.as_ref().unwrap().changes[0];
    assert_eq!(
        (add.name.as_str(), add.record_type.as_str()),
        ("eu.shops", "CNAME")
    );

    // A wildcard at the apex: its address is not blamed on shop as an A record of its own,
    // and it does not pass for a record made under the doubled name.
    let names = ["shop.wild.com", "a.b.wild.com"];
    let report = diagnose(&names, &options).await.unwrap();
    let context = format!("{}\n{}", report.to_markdown(), hierarchy.logs());
    let shop = host(&report, "shop.wild.com");
    let shadow = finding(shop, FindingCode::WildcardShadow);
    assert!(shadow.title.contains("*.wild.com"), "{context}");
    assert!(
        !shop
            .findings
            .iter()
            .any(|found| found.code == FindingCode::ConflictingRecord),
        "{context}"
    );
    let below = host(&report, "a.b.wild.com");
    finding(below, FindingCode::RecordMissing);
    assert!(
        !below
            .findings
            .iter()
            .any(|found| found.code == FindingCode::ZoneAppended),
        "a.b.wild.com.wild.com is the wildcard's answer, not a record of the customer's\n{context}"
    );
}

/// A name the platform holds a certificate for, whose parent zone gains a CAA record that
/// names another CA after issuance: the doctor says the renewal will fail, dated by the
/// certificate, with the fix at the parent; a live name whose DNS did not change is not at
/// risk; and the same changed name diagnosed as never issued gets the CAA finding alone. The
/// readiness core (`check_renewals`) reads the same run the same way.
async fn a_live_name_whose_parent_gains_a_forbidding_caa(hierarchy: &mut Hierarchy) {
    hierarchy.edit_zone("customer", "renew.com", |text| {
        text.replace(" 1 3600 600 ", " 2 3600 600 ")
            + "renew.com. IN CAA 0 issue \"other-ca.example\"\n"
    });
    hierarchy
        .wait_for(CUSTOMER, "renew.com", RecordType::CAA, false, |answer| {
            answer.records_of_type("CAA").next().is_some()
        })
        .await;
    let certificate = LiveCertificate {
        expires_at: "2027-02-24T10:00:00Z".parse().unwrap(),
        renews_at: Some("2027-01-25T10:00:00Z".parse().unwrap()),
        validated_by_dns: false,
    };
    let live: BTreeMap<String, LiveCertificate> = [
        ("www.renew.com".to_owned(), certificate),
        ("www.example.com".to_owned(), certificate),
    ]
    .into();
    let now: chrono::DateTime<chrono::Utc> = "2026-12-01T00:00:00Z".parse().unwrap();
    let mut options = DoctorOptions::new(TARGET).with_tls_probe(false);
    options.live_certificates = Some(live.clone());
    let report = diagnose_at(&["www.renew.com", "www.example.com"], &options, now)
        .await
        .unwrap();
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());

    let changed = host(&report, "www.renew.com");
    let at_risk = finding(changed, FindingCode::RenewalAtRisk);
    assert_eq!(at_risk.severity, Severity::Error, "{context}");
    assert_eq!(
        at_risk.detail,
        "www.renew.com's certificate expires on 24 Feb 2027; the platform renews it from 25 \
         Jan; that renewal will fail: the CAA record at renew.com now allows only \
         other-ca.example.",
        "{context}"
    );
    let fix = at_risk.fix.as_ref().expect("a fix");
    assert!(
        fix.changes
            .iter()
            .any(|change| change.action == ChangeAction::Add
                && change.zone == "renew.com"
                && change.name == "@"
                && change.value == "0 issue \"letsencrypt.org\""),
        "{context}"
    );
    let unchanged = host(&report, "www.example.com");
    assert!(
        !unchanged
            .findings
            .iter()
            .any(|found| found.code == FindingCode::RenewalAtRisk),
        "{context}"
    );
    finding(unchanged, FindingCode::CaaAllowsIssuance);

    // The same name, never issued: the CAA finding, and no renewal to speak of.
    options.live_certificates = None;
    let never = diagnose(&["www.renew.com"], &options).await.unwrap();
    let never_host = host(&never, "www.renew.com");
    finding(never_host, FindingCode::CaaForbidsIssuance);
    assert!(
        !never_host
            .findings
            .iter()
            .any(|found| found.code == FindingCode::RenewalAtRisk),
        "{context}"
    );

    let readiness = check_renewals(&live, &options, now).await.unwrap();
    let states: Vec<(&str, RenewalState)> = readiness
        .iter()
        .map(|ready| (ready.hostname.as_str(), ready.state))
        .collect();
    assert_eq!(
        states,
        [
            ("www.example.com", RenewalState::Ready),
            ("www.renew.com", RenewalState::AtRisk)
        ],
        "{context}"
    );
    assert_eq!(
        readiness[1].cause.as_deref(),
        Some("the CAA record at renew.com now allows only other-ca.example")
    );
}

/// A name a resolver asked for before it existed: Unbound keeps its NXDOMAIN for the zone's
/// negative TTL (300 s here), so the doctor says the record is there and when the resolver
/// will see it, not that it is missing.
async fn a_name_created_after_a_resolver_asked(hierarchy: &mut Hierarchy) {
    let resolver: SocketAddr = format!("{RESOLVER}:53").parse().unwrap();
    for record_type in [RecordType::A, RecordType::AAAA] {
        let primed = query::ask(
            resolver,
            "fresh.example.com",
            record_type,
            QueryOptions::default(),
        )
        .await;
        assert_eq!(primed.status, AnswerStatus::NxDomain, "{primed:?}");
    }
    hierarchy.edit_zone("customer", "example.com", |text| {
        format!("{text}fresh.example.com. IN CNAME {TARGET}.\n")
            .replace(" 2 3600 600 ", " 3 3600 600 ")
    });
    hierarchy
        .wait_for(
            CUSTOMER,
            "fresh.example.com",
            RecordType::A,
            false,
            |answer| answer.cname_of("fresh.example.com").is_some(),
        )
        .await;
    let options = DoctorOptions::new(TARGET).with_tls_probe(false);
    let before = chrono::Utc::now();
    let report = diagnose(&["fresh.example.com"], &options).await.unwrap();
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());
    let fresh = host(&report, "fresh.example.com");
    finding(fresh, FindingCode::RecordCorrect);
    let cached = finding(fresh, FindingCode::NegativeCached);
    assert_eq!(cached.severity, Severity::Warning, "{context}");
    assert!(
        cached.title.starts_with(&format!(
            "system resolver {RESOLVER}:53 still answers \"no such name\""
        )),
        "{context}"
    );
    let until = cached.cached_until.expect("the time the cache expires");
    assert!(
        until > before && until <= before + chrono::TimeDelta::seconds(301),
        "{until} {context}"
    );
    assert!(
        !fresh.findings.iter().any(|found| matches!(
            found.code,
            FindingCode::RecordMissing | FindingCode::PropagationPending
        )),
        "{context}"
    );
    // the JSON carries the time as RFC 3339
    let json = serde_json::to_value(fresh).unwrap();
    let listed = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|found| found["code"] == "negative_cached")
        .unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(listed["cached_until"].as_str().unwrap()).is_ok(),
        "{listed}"
    );
}

/// The delegation as the registry publishes it, and every server it names: a move between
/// providers left half done (each copy answers differently), a server the registry names that
/// refuses the zone, and a registry whose NS set is not the zone's own; a healthy zone has
/// none of it.
async fn the_path_from_the_registry_down(hierarchy: &Hierarchy) {
    let options = DoctorOptions::new(TARGET).with_tls_probe(false);
    let names = ["www.moving.com", "www.lame.com", "www.example.com"];
    let started = Instant::now();
    let report = diagnose(&names, &options).await.unwrap();
    // The figure BENCHMARKS.md quotes (printed, not asserted: tests check correctness).
    figure(&format!(
        "delegation walk: {} names in {} ms ({:?} ms per name)",
        names.len(),
        started.elapsed().as_millis(),
        report
            .hosts
            .iter()
            .map(|host| host.elapsed_ms)
            .collect::<Vec<_>>()
    ));
    let context = format!("{}\n{}", report.to_text(), hierarchy.logs());

    let moving = host(&report, "www.moving.com");
    let delegation = moving.delegation.as_ref().expect("a delegation");
    assert_eq!(delegation.parent_zone, "com", "{context}");
    assert_eq!(
        delegation.registry_nameservers,
        ["ns.other.net", "ns1.example.com"],
        "{context}"
    );
    assert!(
        delegation
            .glue
            .iter()
            .any(|glue| glue.name == "ns1.example.com" && glue.value == CUSTOMER),
        "{context}"
    );
    let split = finding(moving, FindingCode::NameserversDisagree);
    assert_eq!(split.severity, Severity::Error, "{context}");
    assert!(
        split
            .detail
            .contains(&format!("ns1.example.com says CNAME {TARGET}"))
            && split.detail.contains("ns.other.net says A 192.0.2.50"),
        "{context}"
    );
    assert!(
        split
            .fix
            .as_ref()
            .unwrap()
            .summary
            .starts_with("Finish the move at the registrar"),
        "{context}"
    );
    assert!(report.has_errors(), "{context}");
    // both copies were asked directly
    let asked: Vec<&str> = moving
        .views
        .iter()
        .filter(|view| view.source.kind == SourceKind::Authoritative)
        .map(|view| view.source.address.as_str())
        .collect();
    assert_eq!(
        asked,
        [format!("{OTHER}:53"), format!("{CUSTOMER}:53")],
        "{context}"
    );

    let lame = host(&report, "www.lame.com");
    let refused = finding(lame, FindingCode::LameNameserver);
    assert_eq!(refused.severity, Severity::Warning, "{context}");
    assert_eq!(
        refused.title, "ns.other.net does not serve lame.com",
        "{context}"
    );
    assert!(refused.detail.contains("REFUSED"), "{context}");
    assert!(
        refused
            .fix
            .as_ref()
            .unwrap()
            .summary
            .starts_with("Remove ns.other.net from lame.com's nameservers at the registrar"),
        "{context}"
    );
    let mismatch = finding(lame, FindingCode::DelegationMismatch);
    assert!(
        mismatch.detail.contains("delegates lame.com to ns.other.net, ns1.example.com; the zone itself lists ns1.example.com"),
        "{context}"
    );
    finding(lame, FindingCode::RecordCorrect);
    assert!(
        !lame
            .findings
            .iter()
            .any(|found| found.code == FindingCode::NameserversDisagree),
        "{context}"
    );

    // A server that never answers costs one wait (UDP, then TCP), not one per question.
    let _silent = SilentServer::start(SILENT).await;
    let started = Instant::now();
    let quiet_report = diagnose(&["www.quiet.com"], &options).await.unwrap();
    figure(&format!(
        "a silent nameserver: {} ms for the name",
        started.elapsed().as_millis()
    ));
    let quiet_context = format!("{}\n{}", quiet_report.to_text(), hierarchy.logs());
    let quiet = host(&quiet_report, "www.quiet.com");
    let silent = finding(quiet, FindingCode::LameNameserver);
    assert_eq!(
        silent.title, "ns2.quiet.com does not serve quiet.com",
        "{quiet_context}"
    );
    assert!(
        silent.detail.contains("no answer over UDP or TCP"),
        "{quiet_context}"
    );
    assert_eq!(silent.severity, Severity::Warning, "{quiet_context}");
    finding(quiet, FindingCode::RecordCorrect);
    // asked for the SOA and the NS set only: not for the name's records
    assert!(
        !quiet
            .views
            .iter()
            .any(|view| view.source.address == format!("{SILENT}:53")),
        "{quiet_context}"
    );

    let healthy = host(&report, "www.example.com");
    assert!(
        !healthy.findings.iter().any(|found| matches!(
            found.code,
            FindingCode::LameNameserver
                | FindingCode::DelegationMismatch
                | FindingCode::NameserversDisagree
                | FindingCode::NegativeCached
        )),
        "{context}"
    );
    let served: Vec<_> = healthy
        .delegation
        .as_ref()
        .unwrap()
        .nameservers
        .iter()
        .map(|server| (server.name.as_str(), server.state))
        .collect();
    assert_eq!(
        served,
        [("ns1.example.com", NameserverState::Serves)],
        "{context}"
    );
}

/// Reads questions over UDP and takes TCP connections on port 53 of `address`, and answers
/// none of them. Ends when dropped.
struct SilentServer {
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl SilentServer {
    async fn start(address: &str) -> Self {
        let at: SocketAddr = format!("{address}:53").parse().unwrap();
        let udp = tokio::net::UdpSocket::bind(at).await.unwrap();
        let tcp = tokio::net::TcpListener::bind(at).await.unwrap();
        let tasks = vec![
            tokio::spawn(async move {
                let mut buffer = [0u8; 1500];
                while udp.recv_from(&mut buffer).await.is_ok() {}
            }),
            tokio::spawn(async move {
                let mut held = Vec::new();
                while let Ok((stream, _)) = tcp.accept().await {
                    held.push(stream);
                }
            }),
        ];
        Self { tasks }
    }
}

impl Drop for SilentServer {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

const MOVED_BEFORE: &str = "moved.example.com. IN A 192.0.2.10\n";

fn moved_after() -> String {
    format!("moved.example.com. IN CNAME {TARGET}.\n")
}

/// The zones, as NSD reads them. Every server's name has glue in its parent.
fn zones() -> Vec<(&'static str, &'static str, String)> {
    let soa = |apex: &str, ns: &str| {
        let mailbox = if apex == "." {
            "hostmaster.root."
        } else {
            "hostmaster"
        };
        format!(
            "$TTL 300\n$ORIGIN {apex}\n@ IN SOA {ns} {mailbox} 1 3600 600 86400 300\n@ IN NS {ns}\n"
        )
    };
    vec![
        (
            "root",
            ".",
            soa(".", "ns.root.")
                + &format!(
                    "ns.root. IN A {ROOT}\ncom. IN NS ns.tld.\nnet. IN NS ns.tld.\nns.tld. IN A {TLD}\n"
                ),
        ),
        (
            "com",
            "com",
            soa("com.", "ns.tld.")
                + &format!(
                    "example.com. IN NS ns1.example.com.\nns1.example.com. IN A {CUSTOMER}\n\
                     expired.com. IN NS ns1.example.com.\n\
                     wrongds.com. IN NS ns1.example.com.\n\
                     wild.com. IN NS ns1.example.com.\n\
                     plain.com. IN NS ns1.example.com.\n\
                     renew.com. IN NS ns1.example.com.\n\
                     missing.com. IN NS ns1.example.com.\n\
                     good.com. IN NS ns1.example.com.\n\
                     moving.com. IN NS ns1.example.com.\nmoving.com. IN NS ns.other.net.\n\
                     lame.com. IN NS ns1.example.com.\nlame.com. IN NS ns.other.net.\n\
                     quiet.com. IN NS ns1.example.com.\nquiet.com. IN NS ns2.quiet.com.\n\
                     ns2.quiet.com. IN A {SILENT}\n"
                ),
        ),
        (
            "net",
            "net",
            soa("net.", "ns.tld.")
                + &format!(
                    "platform.net. IN NS ns1.platform.net.\nns1.platform.net. IN A {PLATFORM}\n\
                     shop.net. IN NS ns1.example.com.\n\
                     other.net. IN NS ns.other.net.\nns.other.net. IN A {OTHER}\n"
                ),
        ),
        (
            "example.com",
            "example.com",
            soa("example.com.", "ns1.example.com.")
                + &format!(
                    "ns1.example.com. IN A {CUSTOMER}\n\
                     www.example.com. IN CNAME {TARGET}.\n\
                     wrong.example.com. IN CNAME old-host.example.com.\n\
                     old-host.example.com. IN A 127.0.0.20\n"
                )
                + MISTAKES
                + MOVED_BEFORE,
        ),
        (
            "expired.com",
            "expired.com",
            soa("expired.com.", "ns1.example.com.")
                + &format!("www.expired.com. IN CNAME {TARGET}.\n"),
        ),
        (
            "wrongds.com",
            "wrongds.com",
            soa("wrongds.com.", "ns1.example.com.")
                + &format!("www.wrongds.com. IN CNAME {TARGET}.\n"),
        ),
        (
            "wild.com",
            "wild.com",
            soa("wild.com.", "ns1.example.com.")
                + "*.wild.com. IN A 127.0.0.30\nb.wild.com. IN TXT \"here\"\n",
        ),
        (
            "plain.com",
            "plain.com",
            soa("plain.com.", "ns1.example.com.") + &format!("www.plain.com. IN CNAME {TARGET}.\n"),
        ),
        (
            "renew.com",
            "renew.com",
            soa("renew.com.", "ns1.example.com.") + &format!("www.renew.com. IN CNAME {TARGET}.\n"),
        ),
        (
            "missing.com",
            "missing.com",
            soa("missing.com.", "ns1.example.com.")
                + &format!("www.missing.com. IN CNAME {TARGET}.\n"),
        ),
        (
            "good.com",
            "good.com",
            soa("good.com.", "ns1.example.com.") + "www.good.com. IN CNAME www.shop.net.\n",
        ),
        (
            "shop.net",
            "shop.net",
            soa("shop.net.", "ns1.example.com.") + "www.shop.net. IN A 127.0.0.10\n",
        ),
        // Halfway through a move: the registry lists one server of each provider; the old
        // provider's copy still has the old site's address.
        (
            "moving.com",
            "moving.com",
            soa("moving.com.", "ns1.example.com.")
                + "@ IN NS ns.other.net.\n"
                + &format!("www.moving.com. IN CNAME {TARGET}.\n"),
        ),
        (
            "moving.com-other",
            "moving.com",
            soa("moving.com.", "ns.other.net.")
                + "@ IN NS ns1.example.com.\nwww.moving.com. IN A 192.0.2.50\n",
        ),
        // The registry names ns.other.net, which does not have the zone; the zone itself
        // lists only ns1.example.com.
        (
            "lame.com",
            "lame.com",
            soa("lame.com.", "ns1.example.com.") + &format!("www.lame.com. IN CNAME {TARGET}.\n"),
        ),
        (
            "quiet.com",
            "quiet.com",
            soa("quiet.com.", "ns1.example.com.")
                + &format!(
                    "@ IN NS ns2.quiet.com.\nns2.quiet.com. IN A {SILENT}\n\
                     www.quiet.com. IN CNAME {TARGET}.\n"
                ),
        ),
        (
            "other.net",
            "other.net",
            soa("other.net.", "ns.other.net.") + &format!("ns.other.net. IN A {OTHER}\n"),
        ),
        (
            "platform.net",
            "platform.net",
            soa("platform.net.", "ns1.platform.net.")
                + &format!(
                    "ns1.platform.net. IN A {PLATFORM}\n\
                     {TARGET}. IN A 127.0.0.10\n\
                     {TARGET}. IN AAAA 2001:db8::10\n"
                ),
        ),
    ]
}

/// A server process, ended when dropped.
struct Process {
    name: String,
    child: Child,
}

impl Process {
    fn spawn(name: &str, program: &str, args: &[&str], log: &Path) -> Self {
        let log = fs::File::create(log).unwrap();
        let child = Command::new(program_path(program).unwrap())
            .args(args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|error| panic!("{program}: {error}"));
        Self {
            name: name.to_owned(),
            child,
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        // TERM lets NSD stop the server processes it forked.
        let _ = Command::new("kill")
            .args(["-s", "TERM", &self.child.id().to_string()])
            .status();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// NSD for the root, the top-level domains, the customer's and the platform's zones, and
/// Unbound as the system resolver. The servers stop when it is dropped, before its files go.
struct Hierarchy {
    servers: Vec<Process>,
    directory: tempfile::TempDir,
    /// Each zone file's signing key (an `ldns-keygen` basename in the directory).
    keys: Vec<(String, String)>,
    /// The key whose DS `com` holds for `wrongds.com`, which the zone does not publish.
    stranger: String,
}

impl Hierarchy {
    async fn start() -> Self {
        let directory = tempfile::tempdir().unwrap();
        let dir = directory.path().to_owned();
        let mut hierarchy = Self {
            servers: Vec::new(),
            directory,
            keys: Vec::new(),
            stranger: String::new(),
        };
        hierarchy.sign_all();
        for (name, address, zones) in [
            ("root", ROOT, &["root"][..]),
            ("tld", TLD, &["com", "net"][..]),
            (
                "customer",
                CUSTOMER,
                &[
                    "example.com",
                    "expired.com",
                    "wrongds.com",
                    "wild.com",
                    "plain.com",
                    "renew.com",
                    "missing.com",
                    "good.com",
                    "shop.net",
                    "moving.com",
                    "lame.com",
                    "quiet.com",
                ][..],
            ),
            ("platform", PLATFORM, &["platform.net"][..]),
            ("other", OTHER, &["other.net", "moving.com-other"][..]),
        ] {
            hierarchy.start_nsd(name, address, zones);
        }
        for (address, apex) in [
            (ROOT, "."),
            (TLD, "com"),
            (TLD, "net"),
            (CUSTOMER, "example.com"),
            (PLATFORM, "platform.net"),
            (OTHER, "other.net"),
        ] {
            hierarchy.ready(address, apex, false).await;
        }
        hierarchy.start_unbound();
        hierarchy.ready(RESOLVER, "www.example.com", true).await;
        let resolv = dir.join("resolv.conf");
        fs::write(&resolv, format!("nameserver {RESOLVER}\n")).unwrap();
        run(
            "mount",
            &["--bind", &resolv.to_string_lossy(), "/etc/resolv.conf"],
        );
        hierarchy
    }

    fn start_nsd(&mut self, name: &str, address: &str, zone_files: &[&str]) {
        let dir = self.directory.path();
        let own = dir.join(name);
        fs::create_dir(&own).unwrap();
        let path = |file: &str| own.join(file).to_string_lossy().into_owned();
        let mut config = format!(
            "server:\n  ip-address: {address}\n  port: 53\n  do-ip6: no\n  username: \"\"\n  \
             chroot: \"\"\n  zonesdir: \"{}\"\n  database: \"\"\n  pidfile: \"{}\"\n  \
             zonelistfile: \"{}\"\n  xfrdfile: \"{}\"\n  xfrdir: \"{}\"\n  logfile: \"{}\"\n  \
             server-count: 1\n  verbosity: 1\nremote-control:\n  control-enable: no\n",
            dir.display(),
            path("nsd.pid"),
            path("zone.list"),
            path("xfrd.state"),
            own.display(),
            path("log"),
        );
        for file in zone_files {
            let apex = zones()
                .into_iter()
                .find(|(candidate, _, _)| candidate == file)
                .map(|(_, apex, _)| apex)
                .unwrap();
            config.push_str(&format!(
                "zone:\n  name: \"{apex}\"\n  zonefile: \"{file}.zone.signed\"\n"
            ));
        }
        let conf = own.join("nsd.conf");
        fs::write(&conf, config).unwrap();
        self.servers.push(Process::spawn(
            &format!("nsd {name}"),
            "nsd",
            &["-d", "-c", &conf.to_string_lossy()],
            &own.join("stderr"),
        ));
    }

    fn start_unbound(&mut self) {
        let dir = self.directory.path();
        let hints = dir.join("root.hints");
        fs::write(
            &hints,
            format!(". 3600000 NS ns.root.\nns.root. 3600000 A {ROOT}\n"),
        )
        .unwrap();
        let conf = dir.join("unbound.conf");
        fs::write(
            &conf,
            format!(
                "server:\n  interface: {RESOLVER}\n  port: 53\n  do-ip6: no\n  \
                 do-daemonize: no\n  username: \"\"\n  chroot: \"\"\n  directory: \"{dir}\"\n  \
                 pidfile: \"{dir}/unbound.pid\"\n  logfile: \"{dir}/unbound.log\"\n  \
                 use-syslog: no\n  verbosity: 1\n  num-threads: 1\n  \
                 access-control: 127.0.0.0/8 allow\n  do-not-query-localhost: no\n  \
                 root-hints: \"{hints}\"\n  module-config: \"validator iterator\"\n  \
                 trust-anchor-file: \"{dir}/root.anchor\"\n  val-log-level: 2\n\
                 remote-control:\n  control-enable: no\n",
                dir = dir.display(),
                hints = hints.display(),
            ),
        )
        .unwrap();
        self.servers.push(Process::spawn(
            "unbound",
            "unbound",
            &["-d", "-c", &conf.to_string_lossy()],
            &dir.join("unbound.stderr"),
        ));
    }

    /// Writes every zone and signs it with `ldns-signzone` (one ECDSA key per zone, flagged
    /// as a key-signing key and signing everything), children first so that each parent
    /// holds its children's DS records when it is signed. `expired.com` is signed with
    /// signatures that ended in 2020; `wrongds.com`'s DS at `com` is that of a key the zone
    /// does not hold, as after a provider move; `missing.com` loses the signature over one
    /// CNAME; `shop.net` is not signed at all (and has no DS at `net`). The root's key is
    /// Unbound's trust anchor.
    fn sign_all(&mut self) {
        let dir = self.directory.path().to_owned();
        let mut texts: Vec<(&str, &str, String)> = zones().into_iter().collect();
        let keygen = |apex: &str| {
            let output = Command::new(program_path("ldns-keygen").unwrap())
                .args(["-a", "ECDSAP256SHA256", "-k", apex])
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(output.status.success(), "ldns-keygen {apex}: {output:?}");
            String::from_utf8(output.stdout).unwrap().trim().to_owned()
        };
        let ds = |key: &str| fs::read_to_string(dir.join(format!("{key}.ds"))).unwrap();
        for (file, apex, _) in &texts {
            self.keys.push(((*file).to_owned(), keygen(apex)));
        }
        let key_of = |keys: &[(String, String)], file: &str| {
            keys.iter()
                .find(|(zone, _)| zone == file)
                .map(|(_, key)| key.clone())
                .unwrap()
        };
        let stranger = keygen("wrongds.com");
        self.stranger = stranger.clone();
        let parents = [
            (
                "com",
                [
                    "example.com",
                    "expired.com",
                    "wild.com",
                    "missing.com",
                    "good.com",
                ]
                .as_slice(),
            ),
            ("net", ["platform.net"].as_slice()),
            ("root", ["com", "net"].as_slice()),
        ];
        for (parent, children) in parents {
            let mut extra: String = children
                .iter()
                .map(|child| ds(&key_of(&self.keys, child)))
                .collect();
            if parent == "com" {
                extra.push_str(&ds(&stranger));
            }
            let entry = texts
                .iter_mut()
                .find(|(file, _, _)| *file == parent)
                .unwrap();
            entry.2.push_str(&extra);
        }
        for (file, _, text) in &texts {
            fs::write(dir.join(format!("{file}.zone")), text).unwrap();
            if UNSIGNED.contains(file) {
                fs::write(dir.join(format!("{file}.zone.signed")), text).unwrap();
                continue;
            }
            self.sign(file, &key_of(&self.keys, file), *file == "expired.com");
        }
        // missing.com: the signature over www.missing.com's CNAME taken out after signing
        let signed = dir.join("missing.com.zone.signed");
        let text = fs::read_to_string(&signed).unwrap();
        let kept: String = text
            .lines()
            .filter(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                !(fields.first() == Some(&"www.missing.com.")
                    && fields
                        .windows(2)
                        .any(|pair| pair[0] == "RRSIG" && pair[1] == "CNAME"))
            })
            .map(|line| format!("{line}\n"))
            .collect();
        assert!(kept.len() < text.len(), "no RRSIG over the CNAME in {text}");
        fs::write(&signed, kept).unwrap();
        let root_key_file = format!("{}.key", key_of(&self.keys, "root"));
        let root_key = fs::read_to_string(dir.join(&root_key_file)).unwrap();
        fs::write(dir.join("root.anchor"), root_key).unwrap();
        // The same anchor as IANA publishes the root's: a DS (SHA-256), by ldns-key2ds.
        let output = Command::new(program_path("ldns-key2ds").unwrap())
            .args(["-n", "-2", &root_key_file])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "ldns-key2ds: {output:?}");
        fs::write(dir.join("root.ds"), output.stdout).unwrap();
    }

    /// Signs `{file}.zone` into `{file}.zone.signed` with `key`; `expired`: with signatures
    /// valid only in 2019.
    fn sign(&self, file: &str, key: &str, expired: bool) {
        let apex = zones()
            .into_iter()
            .find(|(candidate, _, _)| *candidate == file)
            .map(|(_, apex, _)| apex)
            .unwrap();
        let mut args: Vec<String> = Vec::new();
        if expired {
            args.extend(["-i", "20190101000000", "-e", "20200101000000"].map(str::to_owned));
        }
        args.extend([
            "-f".to_owned(),
            format!("{file}.zone.signed"),
            "-o".to_owned(),
            apex.to_owned(),
            format!("{file}.zone"),
            key.to_owned(),
        ]);
        let output = Command::new(program_path("ldns-signzone").unwrap())
            .args(&args)
            .current_dir(self.directory.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "ldns-signzone {args:?}: {output:?}"
        );
    }

    /// Waits until `address` answers for `name`, or fails with the servers' logs.
    async fn ready(&mut self, address: &str, name: &str, recursive: bool) {
        self.wait_for(address, name, RecordType::SOA, recursive, |answer| {
            answer.status == AnswerStatus::NoError
        })
        .await;
    }

    /// Writes the zone file `file` of the NSD instance `server` anew and has it reload.
    fn edit_zone(&mut self, server: &str, file: &str, edit: impl Fn(&str) -> String) {
        let path = self.directory.path().join(format!("{file}.zone"));
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, edit(&text)).unwrap();
        let key = self
            .keys
            .iter()
            .find(|(zone, _)| zone == file)
            .map(|(_, key)| key.clone())
            .unwrap();
        self.sign(file, &key, false);
        let name = format!("nsd {server}");
        let process = self
            .servers
            .iter()
            .find(|process| process.name == name)
            .unwrap();
        run("kill", &["-s", "HUP", &process.child.id().to_string()]);
    }

    /// Waits until `address` gives an answer that `accept`s, or fails with the logs.
    async fn wait_for(
        &mut self,
        address: &str,
        name: &str,
        record_type: RecordType,
        recursive: bool,
        accept: impl Fn(&domain_desk_doctor::dns::Answer) -> bool,
    ) {
        let server: SocketAddr = format!("{address}:53").parse().unwrap();
        let options = QueryOptions {
            timeout: Duration::from_millis(500),
            attempts: 1,
            recursion_desired: recursive,
            checking_disabled: false,
        };
        let started = Instant::now();
        loop {
            let answer = query::ask(server, name, record_type, options).await;
            if accept(&answer) {
                return;
            }
            let ended = self.servers.iter_mut().find_map(|process| {
                let status = process.child.try_wait().ok().flatten()?;
                Some(format!("{} ended: {status}", process.name))
            });
            if let Some(ended) = ended {
                panic!("{ended}\n{}", self.logs());
            }
            assert!(
                started.elapsed() < READY_LIMIT,
                "{address} does not answer for {name}: {answer:?}\n{}",
                self.logs()
            );
            // A server that is still starting: ask again shortly.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Every log the servers wrote, for a failure's message.
    fn logs(&self) -> String {
        let mut text = String::new();
        let mut files = Vec::new();
        for entry in walk(self.directory.path()) {
            let name = entry.to_string_lossy();
            if name.ends_with("log") || name.ends_with("stderr") {
                files.push(entry);
            }
        }
        files.sort();
        for file in files {
            text.push_str(&format!(
                "--- {}\n{}\n",
                file.display(),
                fs::read_to_string(&file).unwrap_or_default()
            ));
        }
        text.chars()
            .filter(|character| !character.is_control() || *character == '\n')
            .collect()
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}
