//! Capture and replay: a run's questions, answers and certificate chains in one file, and
//! the same report from that file with no server running.

use domain_desk_doctor::{Capture, Error, diagnose_capturing, replay};
use serde_json::Value;

use crate::support::{TARGET, ZoneServer, Zones, options};

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        .nameservers("example.com", &["amy.ns.cloudflare.com"])
        .cname("www.example.com", TARGET)
        .a("shop.example.com", "192.0.2.10")
        .caa("example.com", 0, "issue", "other-ca.example");
    zones
}

async fn captured() -> (domain_desk_doctor::Report, Capture) {
    let server = ZoneServer::start(&world()).await;
    diagnose_capturing(
        &["www.example.com", "shop.example.com", "nope.example.com"],
        &options(&[server.address]),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_replay_with_no_server_gives_the_same_report() {
    let (report, capture) = captured().await;
    // the server is gone: only the file can answer
    assert!(capture.exchanges.len() > 10, "{}", capture.exchanges.len());
    let file = tempfile::NamedTempFile::new().unwrap();
    capture.save(file.path()).unwrap();
    let loaded = Capture::load(file.path()).unwrap();
    assert_eq!(loaded, capture);
    let replayed = replay(&loaded).await.unwrap();
    assert_eq!(replayed, report);
    assert_eq!(replayed.to_markdown(), report.to_markdown());
    assert!(
        report.has_errors(),
        "the capture holds mistakes worth replaying"
    );
}

#[tokio::test]
async fn the_file_says_what_it_is_and_what_each_server_answered() {
    let (_, capture) = captured().await;
    let json: Value = serde_json::from_str(&capture.to_json()).unwrap();
    assert_eq!(json["format"], "domain-desk-doctor-capture");
    assert_eq!(json["version"], 1);
    assert_eq!(json["options"]["target"], TARGET);
    let shop = json["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|exchange| exchange["name"] == "shop.example.com" && exchange["type"] == "A")
        .unwrap();
    assert!(shop["server"].as_str().unwrap().starts_with("127.0.0.1:"));
    assert!(shop["asked_at"].is_string());
    assert_eq!(shop["answer"]["answers"][0]["value"], "192.0.2.10");
}

/// Each way a file can be wrong, and the error that names it.
#[tokio::test]
async fn a_corrupt_or_foreign_file_is_a_clear_error() {
    let (_, capture) = captured().await;
    let good: Value = serde_json::from_str(&capture.to_json()).unwrap();
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut value = good.clone();
        edit(&mut value);
        Capture::from_json(&value.to_string())
    };
    let text = capture.to_json();
    assert!(matches!(
        Capture::from_json(&text[..text.len() / 2]),
        Err(Error::CaptureCorrupt(_))
    ));
    assert!(matches!(
        Capture::from_json(""),
        Err(Error::CaptureCorrupt(_))
    ));
    assert!(matches!(
        Capture::from_json(r#"{"name": "some-package", "version": "1.0.0"}"#),
        Err(Error::NotACapture)
    ));
    assert!(matches!(
        Capture::from_json("[1, 2]"),
        Err(Error::NotACapture)
    ));
    match edited(&|value| value["version"] = 2.into()) {
        Err(error @ Error::CaptureVersion { .. }) => {
            assert!(error.to_string().contains("version 2"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    for (what, edit) in [
        (
            "a missing field",
            Box::new(|value: &mut Value| {
                value.as_object_mut().unwrap().remove("exchanges");
            }) as Box<dyn Fn(&mut Value)>,
        ),
        (
            "an unknown record type",
            Box::new(|value: &mut Value| value["exchanges"][0]["type"] = "NOTATYPE".into()),
        ),
        (
            // found by the `capture` fuzz target: hickory's parser of type names asserts
            // that it is given no lowercase letter (a panic in a debug build)
            "a record type with lowercase letters",
            Box::new(|value: &mut Value| value["exchanges"][0]["type"] = "targetA".into()),
        ),
        (
            "a server that is no address",
            Box::new(|value: &mut Value| value["servers"][0]["address"] = "here".into()),
        ),
        (
            "timings for other hostnames",
            Box::new(|value: &mut Value| value["host_elapsed_ms"] = Value::Array(Vec::new())),
        ),
        (
            "a status that does not exist",
            Box::new(|value: &mut Value| {
                value["exchanges"][0]["answer"]["status"] = "maybe".into()
            }),
        ),
    ] {
        match edited(&edit) {
            Err(Error::CaptureCorrupt(message)) => assert!(!message.is_empty(), "{what}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    let missing = std::path::Path::new("/nonexistent/capture.json");
    match Capture::load(missing) {
        Err(error @ Error::CaptureFile { .. }) => {
            assert!(error.to_string().contains("/nonexistent/capture.json"))
        }
        other => panic!("{other:?}"),
    }
}

/// A question the capture never saw is answered as a failure from the file, never by the
/// network.
#[tokio::test]
async fn a_question_the_capture_lacks_is_not_sent() {
    let (_, mut capture) = captured().await;
    capture.hostnames.push("www.example.com".to_owned());
    capture.host_elapsed_ms.push(0);
    capture
        .exchanges
        .retain(|exchange| exchange.name != "www.example.com");
    let report = replay(&capture).await.unwrap();
    let www = &report.hosts[0];
    assert!(
        www.views
            .iter()
            .all(|view| view.error.as_deref()
                == Some("the capture holds no answer to this question")),
        "{:#?}",
        www.views
    );
}

/// A capture holds a customer's DNS: saved, it is its owner's alone, and a link planted at
/// the path is replaced by the capture, not written through.
#[cfg(unix)]
#[tokio::test]
async fn a_saved_capture_is_the_owners_alone_and_never_written_through_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let (_, capture) = captured().await;
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere.txt");
    std::fs::write(&elsewhere, "not the capture's").unwrap();
    let path = dir.path().join("capture.json");
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();

    capture.save(&path).unwrap();

    assert_eq!(
        std::fs::read_to_string(&elsewhere).unwrap(),
        "not the capture's"
    );
    let saved = std::fs::symlink_metadata(&path).unwrap();
    assert!(saved.file_type().is_file(), "the link was followed");
    assert_eq!(saved.permissions().mode() & 0o777, 0o600);
    assert_eq!(Capture::load(&path).unwrap().hostnames, capture.hostnames);
}
