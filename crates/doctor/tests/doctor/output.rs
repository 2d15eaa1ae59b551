//! The report's renderings and the batch mode.

use domain_desk_doctor::{Report, diagnose, diagnose_logged};

use crate::support::{TARGET, ZoneServer, Zones, options};

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        .cname("www.example.com", TARGET)
        .a("shop.example.com", "192.0.2.10");
    for index in 0..150 {
        zones.cname(&format!("site{index}.example.com"), TARGET);
    }
    zones
}

#[tokio::test]
async fn markdown_carries_findings_fixes_and_evidence() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["shop.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let markdown = report.to_markdown();
    assert!(markdown.starts_with("# DNS doctor report"));
    assert!(
        markdown.contains("## shop.example.com — WARNING"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| remove | example.com | shop | A | `192.0.2.10` |"),
        "{markdown}"
    );
    assert!(markdown.contains(&format!(
        "| add | example.com | shop | CNAME | `{TARGET}` |"
    )));
    assert!(markdown.contains("shop.example.com. 300 IN A 192.0.2.10"));
    assert!(markdown.contains("### CAA climb"));
}

#[tokio::test]
async fn json_round_trips_with_stable_names() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["shop.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    let finding = json["hosts"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["code"] == "live_elsewhere")
        .unwrap();
    assert_eq!(finding["severity"], "warning");
    assert_eq!(finding["fix"]["changes"][0]["action"], "remove");
    assert_eq!(finding["fix"]["changes"][0]["type"], "A");
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back, report);
}

#[tokio::test]
async fn a_batch_keeps_the_order_given_and_asks_shared_questions_once() {
    let server = ZoneServer::start(&world()).await;
    let names: Vec<String> = (0..150)
        .map(|index| format!("site{index}.example.com"))
        .collect();
    let mut opts = options(&[server.address]);
    opts.concurrency = 16;
    let (report, questions) = diagnose_logged(&names, &opts).await.unwrap();
    let order: Vec<&str> = report
        .hosts
        .iter()
        .map(|host| host.hostname.as_str())
        .collect();
    assert_eq!(order, names.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!report.has_errors(), "{}", report.to_markdown());
    let shared = questions
        .iter()
        .filter(|question| {
            question.name == "example.com"
                && question.record_type == hickory_proto::rr::RecordType::CAA
        })
        .count();
    assert_eq!(
        shared, 1,
        "the climb through example.com is asked once per run"
    );
}

#[tokio::test]
async fn the_diagnosis_runs_in_a_spawned_task() {
    // Tauri commands and background tasks need a `Send + 'static` future.
    let server = ZoneServer::start(&world()).await;
    let names = vec!["www.example.com".to_owned()];
    let opts = options(&[server.address]);
    let report = tokio::spawn(async move { diagnose(&names, &opts).await })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(report.hosts.len(), 1);
}

#[tokio::test]
async fn each_server_answers_as_its_chain_in_markdown_and_text() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(
        &["www.example.com", "gone.example.com"],
        &options(&[server.address]),
    )
    .await
    .unwrap();
    let markdown = report.to_markdown();
    // the answer link by link, in the table and in the diagram's fenced block
    let chain = format!("www.example.com → {TARGET} → 192.0.2.1, 2001:db8::1");
    assert!(markdown.contains(&format!("| `{chain}` |")), "{markdown}");
    assert!(
        markdown.contains("<details open><summary>The path a lookup takes</summary>"),
        "{markdown}"
    );
    assert!(markdown.contains(&format!(": {chain} ✓\n")), "{markdown}");
    // a missing name is missing at the name itself, which is where the chain ends
    assert!(
        markdown.contains("| `gone.example.com: no such name` |"),
        "{markdown}"
    );
    let text = report.to_text();
    assert!(text.contains("  the path a lookup takes:\n"), "{text}");
    assert!(text.contains(&format!(": {chain} ✓\n")), "{text}");
    assert!(
        text.contains(": gone.example.com: no such name ✗\n"),
        "{text}"
    );
}
