//! Crash safety of `domain-desk serve --data FILE`, the real binary: writers create projects,
//! deploys (20 files each) and domains as fast as they can; the service is killed with
//! SIGKILL in the middle of it, restarted on the same file, and killed again, three times.
//! Afterwards every acknowledged write is there, a replayed `Idempotency-Key` gives the first
//! answer back instead of a second project, and nothing is half-written: the database passes
//! SQLite's integrity and foreign-key checks and every deploy has all of its files or does
//! not exist.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

const WRITERS: usize = 8;
const FILES_PER_DEPLOY: usize = 20;
/// Acknowledged writes per cycle before the kill.
const ACKS_BEFORE_KILL: usize = 120;
const CYCLES: usize = 3;

/// One running `domain-desk serve`; SIGKILLed when dropped.
struct Served {
    process: domain_desk_test_support::Served,
    base: String,
}

impl Served {
    fn start(data: &Path) -> Served {
        let process = domain_desk_test_support::Served::start(
            Command::new(env!("CARGO_BIN_EXE_domain-desk"))
                .args(["serve", "--data"])
                .arg(data)
                .args(domain_desk_test_support::LOOPBACK_ARGS)
                .stderr(Stdio::null()),
        )
        .expect("the service starts and prints its addresses");
        Served {
            base: process.base_url(),
            process,
        }
    }

    /// kill -9: no shutdown, no flush, nothing.
    fn kill(self) {
        self.process.kill();
    }
}

/// What the service acknowledged (answered 201 to).
#[derive(Default)]
struct Acked {
    /// project id → (name, idempotency key)
    projects: BTreeMap<String, (String, String)>,
    /// project id → deploy id and the files sent
    deploys: BTreeMap<String, (String, BTreeMap<String, String>)>,
    /// (project id, hostname)
    domains: BTreeSet<(String, String)>,
}

fn files(tag: &str) -> BTreeMap<String, String> {
    (0..FILES_PER_DEPLOY)
        .map(|i| (format!("page-{i}.html"), format!("<p>{tag} page {i}</p>")))
        .collect()
}

async fn enterprise_key(http: &reqwest::Client, base: &str) -> String {
    let info: Value = http
        .get(format!("{base}/_local/info"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    info["demo_keys"]["enterprise"].as_str().unwrap().to_owned()
}

/// POST with an Idempotency-Key; `Some(body)` only for a 201.
async fn create(
    http: &reqwest::Client,
    url: String,
    key: &str,
    idempotency: &str,
    body: Value,
) -> Option<Value> {
    let response = http
        .post(url)
        .bearer_auth(key)
        .header("idempotency-key", idempotency)
        .json(&body)
        .send()
        .await
        .ok()?;
    if response.status().as_u16() != 201 {
        return None;
    }
    // An answer cut off by the kill is not an acknowledgement.
    response.json().await.ok()
}

/// Writers loop until the kill; each acknowledged write is recorded.
async fn write_load(
    base: &str,
    key: &str,
    cycle: usize,
    acked: &Arc<Mutex<Acked>>,
    count: &Arc<AtomicUsize>,
    progress: &Arc<Notify>,
    stop: &Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut writers = Vec::new();
    for writer in 0..WRITERS {
        let (base, key) = (base.to_owned(), key.to_owned());
        let (acked, count, stop) = (acked.clone(), count.clone(), stop.clone());
        let progress = progress.clone();
        let ack = move || {
            count.fetch_add(1, Ordering::AcqRel);
            progress.notify_one();
        };
        writers.push(tokio::spawn(async move {
            let http = domain_desk_test_support::http_client_builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap();
            for i in 0.. {
                if stop.load(Ordering::Acquire) {
                    return;
                }
                let tag = format!("c{cycle}-w{writer}-{i}");
                let name = format!("crash {tag}");
                let idem = format!("project-{tag}");
                let Some(project) = create(
                    &http,
                    format!("{base}/v1/projects"),
                    &key,
                    &idem,
                    json!({"name": name}),
                )
                .await
                else {
                    continue;
                };
                let id = project["id"].as_str().unwrap().to_owned();
                assert_eq!(project["name"], name.as_str());
                acked
                    .lock()
                    .unwrap()
                    .projects
                    .insert(id.clone(), (name, idem));
                ack();

                let sent = files(&tag);
                let Some(deploy) = create(
                    &http,
                    format!("{base}/v1/projects/{id}/deploys"),
                    &key,
                    &format!("deploy-{tag}"),
                    json!({"files": sent}),
                )
                .await
                else {
                    continue;
                };
                assert_eq!(deploy["file_count"], FILES_PER_DEPLOY);
                let deploy_id = deploy["id"].as_str().unwrap().to_owned();
                acked
                    .lock()
                    .unwrap()
                    .deploys
                    .insert(id.clone(), (deploy_id, sent));
                ack();

                let hostname = format!("{tag}.example.com");
                if create(
                    &http,
                    format!("{base}/v1/projects/{id}/domains"),
                    &key,
                    &format!("domain-{tag}"),
                    json!({"hostname": hostname}),
                )
                .await
                .is_some()
                {
                    acked.lock().unwrap().domains.insert((id, hostname));
                    ack();
                }
            }
        }));
    }
    writers
}

/// What is in the file, read with SQLite directly: integrity, foreign keys, and every deploy
/// of this test whole.
fn check_file(data: &Path, acked: &Acked) {
    let conn = rusqlite::Connection::open(data).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let broken_references: i64 = conn
        .query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(broken_references, 0);

    let mut deploys = conn
        .prepare(
            "SELECT d.id, d.project_id, COUNT(f.path) FROM deploys d \
             JOIN projects p ON p.id = d.project_id \
             LEFT JOIN deploy_files f ON f.deploy_id = d.id \
             WHERE p.name LIKE 'crash %' GROUP BY d.id",
        )
        .unwrap();
    let rows = deploys
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (deploy, project, count) = row.unwrap();
        assert_eq!(
            count, FILES_PER_DEPLOY as i64,
            "deploy {deploy} of {project} is half-written"
        );
    }
    for (project, (deploy, sent)) in &acked.deploys {
        let mut stmt = conn
            .prepare("SELECT path, content FROM deploy_files WHERE deploy_id = ?1")
            .unwrap();
        let stored: BTreeMap<String, String> = stmt
            .query_map([deploy], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(&stored, sent, "files of project {project}'s deploy");
    }
    // One project per name: no write happened twice.
    let duplicates: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM (SELECT name FROM projects WHERE name LIKE 'crash %' \
             GROUP BY name HAVING COUNT(*) > 1)",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(duplicates, 0);
}

/// Every project of the account, following the pages.
async fn all_projects(http: &reqwest::Client, base: &str, key: &str) -> Vec<Value> {
    let mut projects = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(cursor) => format!("{base}/v1/projects?limit=1000&cursor={cursor}"),
            None => format!("{base}/v1/projects?limit=1000"),
        };
        let page: Value = http
            .get(url)
            .bearer_auth(key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        projects.extend(page["projects"].as_array().unwrap().iter().cloned());
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return projects,
        }
    }
}

/// Through the API of a restarted service: every acknowledged project, deploy and domain.
async fn check_api(base: &str, key: &str, acked: &Acked) {
    let http = domain_desk_test_support::http_client();
    let listed: BTreeMap<String, Value> = all_projects(&http, base, key)
        .await
        .into_iter()
        .map(|p| (p["id"].as_str().unwrap().to_owned(), p))
        .collect();
    for (id, (name, _)) in &acked.projects {
        let project = listed
            .get(id)
            .unwrap_or_else(|| panic!("acknowledged project {id} ({name}) is gone"));
        assert_eq!(project["name"], name.as_str());
    }
    for (id, (deploy, _)) in &acked.deploys {
        assert_eq!(
            listed[id]["last_deploy"]["id"],
            deploy.as_str(),
            "acknowledged deploy of {id}"
        );
        assert_eq!(listed[id]["last_deploy"]["status"], "succeeded");
    }
    for (id, hostname) in &acked.domains {
        let response = http
            .get(format!("{base}/v1/projects/{id}/domains/{hostname}"))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status().as_u16(),
            200,
            "acknowledged domain {hostname} is gone"
        );
    }
}

/// The same Idempotency-Key and body again after the crash: the first answer, not a second
/// project.
async fn check_replays(base: &str, key: &str, acked: &Acked) {
    let http = domain_desk_test_support::http_client();
    for (id, (name, idem)) in acked.projects.iter().take(40) {
        let response = http
            .post(format!("{base}/v1/projects"))
            .bearer_auth(key)
            .header("idempotency-key", idem)
            .json(&json!({"name": name}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 201);
        assert_eq!(
            response
                .headers()
                .get("idempotent-replayed")
                .and_then(|v| v.to_str().ok()),
            Some("true")
        );
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["id"], id.as_str());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_writes_survive_kill_9_and_nothing_is_half_written() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("platform.db");
    let acked = Arc::new(Mutex::new(Acked::default()));

    for cycle in 0..CYCLES {
        let served = Served::start(&data);
        let http = domain_desk_test_support::http_client();
        let key = enterprise_key(&http, &served.base).await;
        if cycle > 0 {
            // What earlier cycles had acknowledged survived the kill.
            let snapshot = std::mem::take(&mut *acked.lock().unwrap());
            check_api(&served.base, &key, &snapshot).await;
            *acked.lock().unwrap() = snapshot;
        }
        let count = Arc::new(AtomicUsize::new(0));
        let progress = Arc::new(Notify::new());
        let stop = Arc::new(AtomicBool::new(false));
        let writers = write_load(&served.base, &key, cycle, &acked, &count, &progress, &stop).await;
        let waited = tokio::time::timeout(Duration::from_secs(120), async {
            while count.load(Ordering::Acquire) < ACKS_BEFORE_KILL {
                progress.notified().await;
            }
        })
        .await;
        assert!(waited.is_ok(), "the write load made no progress");
        // Writers are mid-request now: kill -9 under them.
        served.kill();
        stop.store(true, Ordering::Release);
        for writer in writers {
            writer.await.unwrap();
        }
    }

    let acked = std::mem::take(&mut *acked.lock().unwrap());
    assert!(acked.projects.len() >= CYCLES * ACKS_BEFORE_KILL / 3);
    check_file(&data, &acked);
    let served = Served::start(&data);
    let http = domain_desk_test_support::http_client();
    let key = enterprise_key(&http, &served.base).await;
    check_api(&served.base, &key, &acked).await;
    check_replays(&served.base, &key, &acked).await;
    check_file(&data, &acked);
}

/// A request that was sent: its key and body, and the answer's bytes if one came back.
struct Sent {
    name: String,
    idempotency_key: String,
    answer: Option<Vec<u8>>,
}

/// Eight writers create projects, each with a key of its own, and note every key *before*
/// sending it; the service is SIGKILLed five times under them. Then every key that was sent —
/// answered, cut off, or never received — is sent again with its body: an answered one must
/// replay its first answer byte for byte, and in the end every name exists exactly once. This
/// is what an action and its remembered answer committed together guarantee.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_key_sent_acts_once_across_repeated_kill_9() {
    const KILLS: usize = 12;
    const ANSWERS_BEFORE_KILL: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("platform.db");
    let sent: Arc<Mutex<Vec<Sent>>> = Arc::new(Mutex::new(Vec::new()));

    for cycle in 0..KILLS {
        let served = Served::start(&data);
        let key = enterprise_key(&domain_desk_test_support::http_client(), &served.base).await;
        let answered = Arc::new(AtomicUsize::new(0));
        let progress = Arc::new(Notify::new());
        let stop = Arc::new(AtomicBool::new(false));
        let mut writers = Vec::new();
        for writer in 0..WRITERS {
            let (base, key) = (served.base.clone(), key.clone());
            let (sent, answered, progress, stop) = (
                sent.clone(),
                answered.clone(),
                progress.clone(),
                stop.clone(),
            );
            writers.push(tokio::spawn(async move {
                let http = domain_desk_test_support::http_client_builder()
                    .timeout(Duration::from_secs(10))
                    .build()
                    .unwrap();
                for i in 0.. {
                    if stop.load(Ordering::Acquire) {
                        return;
                    }
                    let name = format!("once k{cycle}-w{writer}-{i}");
                    let idempotency_key = format!("once-k{cycle}-w{writer}-{i}");
                    let index = {
                        let mut sent = sent.lock().unwrap();
                        sent.push(Sent {
                            name: name.clone(),
                            idempotency_key: idempotency_key.clone(),
                            answer: None,
                        });
                        sent.len() - 1
                    };
                    let response = http
                        .post(format!("{base}/v1/projects"))
                        .bearer_auth(&key)
                        .header("idempotency-key", &idempotency_key)
                        .json(&json!({ "name": name }))
                        .send()
                        .await;
                    let Ok(response) = response else { continue };
                    if response.status().as_u16() != 201 {
                        continue;
                    }
                    let Ok(bytes) = response.bytes().await else {
                        continue;
                    };
                    sent.lock().unwrap()[index].answer = Some(bytes.to_vec());
                    answered.fetch_add(1, Ordering::AcqRel);
                    progress.notify_one();
                }
            }));
        }
        let waited = tokio::time::timeout(Duration::from_secs(120), async {
            while answered.load(Ordering::Acquire) < ANSWERS_BEFORE_KILL {
                progress.notified().await;
            }
        })
        .await;
        assert!(waited.is_ok(), "the write load made no progress");
        // Land the kill at a different point of the requests' lives each cycle.
        std::thread::sleep(Duration::from_millis(3 * cycle as u64));
        served.kill();
        stop.store(true, Ordering::Release);
        for writer in writers {
            writer.await.unwrap();
        }
    }

    let sent = std::mem::take(&mut *sent.lock().unwrap());
    let unanswered = sent.iter().filter(|s| s.answer.is_none()).count();
    assert!(sent.len() >= KILLS * ANSWERS_BEFORE_KILL);
    let served = Served::start(&data);
    let http = domain_desk_test_support::http_client();
    let key = enterprise_key(&http, &served.base).await;
    for request in &sent {
        let response = http
            .post(format!("{}/v1/projects", served.base))
            .bearer_auth(&key)
            .header("idempotency-key", &request.idempotency_key)
            .json(&json!({ "name": request.name }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 201, "{}", request.name);
        let replayed = response
            .headers()
            .get("idempotent-replayed")
            .and_then(|v| v.to_str().ok())
            == Some("true");
        let bytes = response.bytes().await.unwrap();
        if let Some(first) = &request.answer {
            assert!(replayed, "{} was answered but not replayed", request.name);
            assert_eq!(&bytes[..], &first[..], "replay of {} differs", request.name);
        }
    }
    let mut per_name: BTreeMap<String, usize> = BTreeMap::new();
    for project in all_projects(&http, &served.base, &key).await {
        let name = project["name"].as_str().unwrap();
        if name.starts_with("once ") {
            *per_name.entry(name.to_owned()).or_default() += 1;
        }
    }
    for request in &sent {
        assert_eq!(
            per_name.get(&request.name).copied().unwrap_or(0),
            1,
            "{} exists {} times",
            request.name,
            per_name.get(&request.name).copied().unwrap_or(0)
        );
    }
    // The figures, for a reader of the test's output.
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "{} keys sent over {KILLS} kills, {unanswered} without an answer; each acted once",
            sent.len()
        );
    }
}
