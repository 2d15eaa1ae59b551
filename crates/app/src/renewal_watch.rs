//! The renewal watch over every account kept on this computer: what the window's background
//! task (`src-tauri/commands/renewal.rs`) runs at each tick, and what its tests drive with the
//! demo's clock.
//!
//! Each account is watched through its own client (its key's request queue from the app's
//! pool, so one account's listing never spends another's budget), with its own
//! [`RenewalWatch`] (daily checks by the platform's clock, one notice per new problem). The
//! checks ask DNS only; the account's domains are listed through the API only when something
//! may have changed them, and then only the projects concerned:
//! - never listed yet (the first check of an account, or the platform's clock went back);
//! - a change the user made in a project: the window lists that project itself after every
//!   change, and hands its list in ([`Inbox::listed`]), so the watch sends nothing; only when
//!   no fresh list came by the next tick does it list that one project;
//! - a certificate being issued (once a platform minute, until it is live), a certificate in
//!   its renewal window (the platform may have renewed it), or news at the last check (the
//!   platform may have acted): those projects only.
//!
//! A change the user made in DNS (Demo DNS) asks for a check and lists nothing. What the watch
//! told is remembered in `renewal-watch.json` in the app's data folder (hostnames and causes
//! only, nothing secret), so a restart does not tell an open problem again.
//!
//! It is longer than the house's 500 lines with its tests (about 380 of code, 190 of tests): it
//! is one state per account (`AccountWatch`: what was listed and when, what is stale, the news)
//! and `Watcher::tick` deciding from it what to list; its two tests drive that state tick by
//! tick on the demo's clock through one set-up (`Demo`). When a check is due and what is news
//! are apart already (`domain_desk_doctor::renewal::watch`), as is where to ask
//! (`crate::renewal`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::{CertificateStatus, Domain};
use domain_desk_client::{Client, LocalControl};
use domain_desk_doctor::renewal::watch::{Notice, RenewalWatch};
use domain_desk_doctor::renewal::{LiveCertificate, Readiness, RenewalState, check_renewals};
use serde::{Deserialize, Serialize};

use crate::Result;

/// How often (platform time) a project is listed again while a certificate in it is issuing.
const ISSUING_RELIST: TimeDelta = TimeDelta::minutes(1);

/// The file in the data folder that keeps what the watch told.
pub const MEMORY_FILE: &str = "renewal-watch.json";

/// One account the watch covers.
#[derive(Debug, Clone)]
pub struct WatchedAccount {
    /// The account entry's id (as in the settings' account list).
    pub id: String,
    /// How the account switcher names it; notifications name the account with it.
    pub label: String,
    /// The account key's own client (its request queue).
    pub client: Client,
    /// The demo's control plane, for a demo account (its DNS and clock).
    pub local: Option<LocalControl>,
}

/// A notice of one account's watch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AccountNotice {
    pub account_id: String,
    pub account_label: String,
    pub notice: Notice,
}

impl AccountNotice {
    /// The desktop notification's title and body, naming the account.
    pub fn text(&self) -> (String, String) {
        let (title, body) = match &self.notice {
            Notice::Problem { title, body, .. } | Notice::Fixed { title, body, .. } => {
                (title, body)
            }
        };
        (
            format!("{title} · {}", self.account_label),
            format!("Account {}: {body}", self.account_label),
        )
    }
}

/// What the window shows of one account: the latest readiness of its live domains.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AccountRenewals {
    pub account_id: String,
    pub account_label: String,
    pub checked_at: Option<DateTime<Utc>>,
    pub next_check: Option<DateTime<Utc>>,
    pub domains: Vec<Readiness>,
}

impl AccountRenewals {
    /// The hostnames whose renewal will fail.
    pub fn at_risk(&self) -> Vec<&str> {
        self.domains
            .iter()
            .filter(|ready| ready.state == RenewalState::AtRisk)
            .map(|ready| ready.hostname.as_str())
            .collect()
    }
}

/// What the window's commands hand the watch between ticks: the changes the user made and the
/// lists the window fetched. A plain mutex, never held across an await, so a command does not
/// wait for a check in progress.
#[derive(Debug, Default)]
pub struct Inbox {
    inner: Mutex<InboxItems>,
}

#[derive(Debug, Default)]
struct InboxItems {
    /// Counts the changes; a list asked for at count `n` saw every change up to `n`.
    count: u64,
    changes: Vec<Change>,
    lists: Vec<Listed>,
}

#[derive(Debug, Clone)]
struct Change {
    account_id: String,
    /// The project whose domains changed; `None` for a change in DNS only.
    project_id: Option<String>,
    number: u64,
}

#[derive(Debug, Clone)]
struct Listed {
    account_id: String,
    project_id: String,
    /// The change count when the list was asked for.
    asked_at: u64,
    domains: Vec<Domain>,
}

impl Inbox {
    fn lock(&self) -> std::sync::MutexGuard<'_, InboxItems> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The user changed something: the domains of `project_id` (added, verified, removed,
    /// made primary, redirected), or with `None` a DNS record.
    pub fn changed(&self, account_id: &str, project_id: Option<&str>) {
        let mut items = self.lock();
        items.count += 1;
        let number = items.count;
        items.changes.push(Change {
            account_id: account_id.to_owned(),
            project_id: project_id.map(str::to_owned),
            number,
        });
    }

    /// The change count now; pass it to [`Self::listed`] with the list asked for after it.
    pub fn count(&self) -> u64 {
        self.lock().count
    }

    /// The window listed `project_id`'s domains, asking at change count `asked_at`.
    pub fn listed(&self, account_id: &str, project_id: &str, asked_at: u64, domains: &[Domain]) {
        let mut items = self.lock();
        // Only the newest list of a project matters.
        items
            .lists
            .retain(|list| !(list.account_id == account_id && list.project_id == project_id));
        items.lists.push(Listed {
            account_id: account_id.to_owned(),
            project_id: project_id.to_owned(),
            asked_at,
            domains: domains.to_vec(),
        });
    }

    fn take(&self) -> (Vec<Change>, Vec<Listed>) {
        let mut items = self.lock();
        (
            std::mem::take(&mut items.changes),
            std::mem::take(&mut items.lists),
        )
    }
}

#[derive(Debug, Default)]
struct AccountWatch {
    label: String,
    watch: RenewalWatch,
    /// The account's domains by project, as last listed or handed in; `None` before the first
    /// listing.
    projects: Option<BTreeMap<String, Vec<Domain>>>,
    /// When each project's list was taken (platform time).
    listed_at: BTreeMap<String, DateTime<Utc>>,
    /// Projects to list again, with the change that made them stale (0: any newer list).
    stale: BTreeMap<String, Stale>,
    /// Names whose news at the last check may mean the platform acted.
    news: BTreeSet<String>,
    view: AccountRenewals,
}

#[derive(Debug, Clone, Copy)]
struct Stale {
    change: u64,
    /// Ticks this staleness waited for the window's own list.
    waited: u8,
}

/// What the watch told, kept across restarts: per account, the problem of each name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Memory {
    accounts: BTreeMap<String, BTreeMap<String, String>>,
}

/// The watch over every account.
#[derive(Debug, Default)]
pub struct Watcher {
    accounts: BTreeMap<String, AccountWatch>,
    memory: Memory,
    /// Where the memory is kept; `None` keeps it in memory only.
    memory_file: Option<PathBuf>,
}

impl Watcher {
    /// A watcher that keeps its memory in `data_dir` (read now; a file that cannot be read is
    /// set aside and the watch starts with an empty memory).
    pub fn with_memory_in(data_dir: &Path) -> Self {
        let path = data_dir.join(MEMORY_FILE);
        let memory = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|err| {
                tracing::warn!(%err, "the renewal watch's memory cannot be read; starting afresh");
                let _ = std::fs::rename(&path, path.with_extension("json.bad"));
                Memory::default()
            }),
            Err(_) => Memory::default(),
        };
        Self {
            memory,
            memory_file: Some(path),
            ..Self::default()
        }
    }

    /// Stops watching accounts no longer kept on this computer (and forgets what was told).
    pub fn keep_only(&mut self, account_ids: &BTreeSet<String>) {
        self.accounts.retain(|id, _| account_ids.contains(id));
        let before = self.memory.accounts.len();
        self.memory
            .accounts
            .retain(|id, _| account_ids.contains(id));
        if self.memory.accounts.len() != before {
            self.save_memory();
        }
    }

    /// The latest results of `account_id` (empty before its first check).
    pub fn view(&self, account_id: &str) -> Option<&AccountRenewals> {
        self.accounts.get(account_id).map(|watched| &watched.view)
    }

    /// The latest results of every account.
    pub fn views(&self) -> impl Iterator<Item = &AccountRenewals> {
        self.accounts.values().map(|watched| &watched.view)
    }

    /// Takes in what the window handed in since the last tick.
    pub fn take_inbox(&mut self, inbox: &Inbox) {
        let (changes, lists) = inbox.take();
        for change in changes {
            let watched = watched_account(&mut self.accounts, &self.memory, &change.account_id);
            watched.watch.changed();
            if let Some(project) = change.project_id {
                watched.stale.insert(
                    project,
                    Stale {
                        change: change.number,
                        waited: 0,
                    },
                );
            }
        }
        for list in lists {
            let Some(watched) = self.accounts.get_mut(&list.account_id) else {
                continue;
            };
            if let Some(stale) = watched.stale.get(&list.project_id)
                && list.asked_at < stale.change
            {
                // Asked for before the change: it may not show it.
                continue;
            }
            watched.stale.remove(&list.project_id);
            if let Some(projects) = &mut watched.projects {
                projects.insert(list.project_id.clone(), list.domains);
                // dated when the watch next looks at the clock
                watched.listed_at.remove(&list.project_id);
            }
        }
    }

    /// One tick for `account`: checks if a check is due at the platform's clock, listing only
    /// what may have changed. Returns what the user should hear.
    pub async fn tick(&mut self, account: &WatchedAccount) -> Result<Vec<AccountNotice>> {
        let now = match &account.local {
            Some(local) => local.clock().await?.now,
            None => Utc::now(),
        };
        let watched = watched_account(&mut self.accounts, &self.memory, &account.id);
        watched.label.clone_from(&account.label);
        if watched.listed_at.values().any(|at| *at > now) {
            // the platform's clock went back (the demo's reset): nothing listed holds
            watched.projects = None;
            watched.listed_at.clear();
            watched.stale.clear();
        }
        for project in watched.stale.keys() {
            watched.listed_at.entry(project.clone()).or_insert(now);
        }
        if let Some(projects) = &watched.projects {
            for project in projects.keys() {
                watched.listed_at.entry(project.clone()).or_insert(now);
            }
            // A certificate being issued goes live soon: follow it once a platform minute.
            for (project, domains) in projects {
                let issuing = domains
                    .iter()
                    .any(|domain| domain.certificate.status == CertificateStatus::Issuing);
                let listed = watched.listed_at.get(project).copied().unwrap_or(now);
                if issuing && now >= listed + ISSUING_RELIST && !watched.stale.contains_key(project)
                {
                    watched.stale.insert(
                        project.clone(),
                        Stale {
                            change: 0,
                            waited: 1,
                        },
                    );
                    watched.watch.changed();
                }
            }
        }
        if !watched.watch.is_due(now) {
            return Ok(Vec::new());
        }
        // A change the user made in a project: the window lists it itself; wait a tick for
        // its list rather than sending a request of our own.
        if watched.projects.is_some() {
            let mut waiting = false;
            for stale in watched.stale.values_mut() {
                if stale.waited == 0 {
                    stale.waited = 1;
                    waiting = true;
                }
            }
            if waiting {
                return Ok(Vec::new());
            }
        }
        if let Some(projects) = &watched.projects {
            // The platform may have acted on these: renewing, or news at the last check.
            for (project, domains) in projects {
                let acted = domains.iter().any(|domain| {
                    watched.news.contains(&domain.hostname)
                        || LiveCertificate::of(domain).is_some_and(|live| live.renews_at() <= now)
                });
                if acted {
                    watched.stale.entry(project.clone()).or_insert(Stale {
                        change: 0,
                        waited: 1,
                    });
                }
            }
        }
        let client = account.client.background();
        match &mut watched.projects {
            None => {
                let mut all = BTreeMap::new();
                for project in client.projects().await? {
                    let domains = client.domains(&project.id).await?;
                    all.insert(project.id, domains);
                }
                watched.listed_at = all.keys().map(|project| (project.clone(), now)).collect();
                watched.projects = Some(all);
            }
            Some(projects) => {
                for project in watched.stale.keys() {
                    match client.domains(project).await {
                        Ok(domains) => {
                            projects.insert(project.clone(), domains);
                        }
                        Err(err) if err.is_not_found() => {
                            projects.remove(project);
                        }
                        Err(err) => return Err(err.into()),
                    }
                    watched.listed_at.insert(project.clone(), now);
                }
            }
        }
        watched.stale.clear();
        let domains: Vec<Domain> = watched
            .projects
            .iter()
            .flat_map(|projects| projects.values().flatten().cloned())
            .collect();
        let platform = crate::renewal::platform(account.local.as_ref(), &domains).await?;
        let live = domain_desk_doctor::renewal::live_certificates(&domains);
        let results = check_renewals(&live, &platform.options, now).await?;
        let notices = watched.watch.record(&results, now);
        watched.news = notices
            .iter()
            .map(|notice| match notice {
                Notice::Problem { hostname, .. } | Notice::Fixed { hostname, .. } => {
                    hostname.clone()
                }
            })
            .collect();
        watched.view = AccountRenewals {
            account_id: account.id.clone(),
            account_label: account.label.clone(),
            checked_at: Some(now),
            next_check: watched.watch.next_check(),
            domains: watched.watch.latest().cloned().collect(),
        };
        let told = watched.watch.told();
        if self
            .memory
            .accounts
            .get(&account.id)
            .cloned()
            .unwrap_or_default()
            != told
        {
            if told.is_empty() {
                self.memory.accounts.remove(&account.id);
            } else {
                self.memory.accounts.insert(account.id.clone(), told);
            }
            self.save_memory();
        }
        Ok(notices
            .into_iter()
            .map(|notice| AccountNotice {
                account_id: account.id.clone(),
                account_label: account.label.clone(),
                notice,
            })
            .collect())
    }

    fn save_memory(&self) {
        let Some(path) = &self.memory_file else {
            return;
        };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            domain_desk_api::private_file::write_atomically(
                path,
                &serde_json::to_vec_pretty(&self.memory)?,
            )
        };
        if let Err(err) = write() {
            tracing::warn!(%err, "could not keep the renewal watch's memory");
        }
    }
}

/// The watch of `account_id`, made (on first use) remembering what an earlier run told.
fn watched_account<'a>(
    accounts: &'a mut BTreeMap<String, AccountWatch>,
    memory: &Memory,
    account_id: &str,
) -> &'a mut AccountWatch {
    accounts
        .entry(account_id.to_owned())
        .or_insert_with(|| AccountWatch {
            watch: RenewalWatch::remembering(
                memory.accounts.get(account_id).cloned().unwrap_or_default(),
            ),
            ..AccountWatch::default()
        })
}

#[cfg(test)]
mod tests {
    //! Against the local service in this process with its clock stopped: the demo's own story
    //! (the seeded live domain and its CAA event), every account through its own key, and the
    //! requests each step costs as the platform counted them.

    use domain_desk_api::Plan;
    use domain_desk_client::ClientConfig;
    use domain_desk_doctor::renewal::watch::Notice;
    use domain_desk_service::Running;
    use domain_desk_service::world::renewal_demo;

    use super::*;

    struct Demo {
        running: Running,
        local: LocalControl,
    }

    impl Demo {
        async fn start() -> Self {
            let running = domain_desk_test_support::start().await;
            let local = LocalControl::new(&running.base_url()).unwrap();
            local.set_clock_speed(0.0).await.unwrap();
            Self { running, local }
        }

        fn account(&self, plan: Plan) -> WatchedAccount {
            let config =
                ClientConfig::new(self.running.base_url(), self.running.demo_key(plan)).plan(plan);
            WatchedAccount {
                id: crate::account_rules::account_id(plan),
                label: format!("Offline demo · {}", plan.as_str()),
                client: Client::new(config).unwrap(),
                local: Some(self.local.clone()),
            }
        }

        /// Requests the platform counted for `plan`'s key in the current day (platform time).
        fn used(&self, plan: Plan) -> u64 {
            let limits = plan.default_limits();
            let state = self.running.state();
            let snapshot = state
                .limiter()
                .peek(self.running.demo_key(plan), &limits, state.now())
                .unwrap();
            limits.per_day - snapshot.day.remaining
        }

        /// Moves the platform's clock and lets the world catch up (the demo's event fires).
        async fn advance(&self, seconds: f64) {
            self.local.advance_clock(seconds).await.unwrap();
            self.running
                .state()
                .world()
                .unwrap()
                .reconcile(true)
                .await
                .unwrap();
        }
    }

    fn problems(notices: &[AccountNotice]) -> Vec<(&str, &str)> {
        notices
            .iter()
            .filter_map(|told| match &told.notice {
                Notice::Problem { hostname, .. } => {
                    Some((told.account_id.as_str(), hostname.as_str()))
                }
                Notice::Fixed { .. } => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn every_account_is_watched_through_its_own_key_and_a_restart_does_not_tell_again() {
        let demo = Demo::start().await;
        let dir = tempfile::tempdir().unwrap();
        let (pro, business) = (demo.account(Plan::Pro), demo.account(Plan::Business));
        let mut watcher = Watcher::with_memory_in(dir.path());

        // First ticks: each account lists its projects once, on its own key; all is well.
        assert!(watcher.tick(&pro).await.unwrap().is_empty());
        assert!(watcher.tick(&business).await.unwrap().is_empty());
        assert_eq!(demo.used(Plan::Pro), 4, "projects + the 3 seed projects");
        assert_eq!(demo.used(Plan::Business), 4);
        let ready = watcher.view(&business.id).unwrap();
        assert_eq!(ready.domains.len(), 1, "{ready:?}");
        assert_eq!(ready.domains[0].hostname, renewal_demo::HOSTNAME);
        assert_eq!(ready.domains[0].state, RenewalState::Ready);

        // The seeded event: the next daily check warns, naming the account; DNS only.
        demo.advance(renewal_demo::EVENT_AFTER.num_seconds() as f64 + 60.0)
            .await;
        let (pro_before, business_before) = (demo.used(Plan::Pro), demo.used(Plan::Business));
        assert!(watcher.tick(&pro).await.unwrap().is_empty());
        let told = watcher.tick(&business).await.unwrap();
        assert_eq!(
            problems(&told),
            [(business.id.as_str(), renewal_demo::HOSTNAME)]
        );
        let (title, body) = told[0].text();
        assert!(title.contains("Offline demo · business"), "{title}");
        assert!(body.contains("other-ca.example"), "{body}");
        assert_eq!(demo.used(Plan::Pro), pro_before, "no API request");
        assert_eq!(demo.used(Plan::Business), business_before, "no API request");
        assert_eq!(
            watcher.view(&business.id).unwrap().at_risk(),
            [renewal_demo::HOSTNAME]
        );

        // The next day: still at risk, not told again.
        demo.advance(86_400.0).await;
        assert!(watcher.tick(&business).await.unwrap().is_empty());

        // What was told is kept in the data folder, without the key.
        let kept = std::fs::read_to_string(dir.path().join(MEMORY_FILE)).unwrap();
        assert!(kept.contains(renewal_demo::HOSTNAME), "{kept}");
        assert!(!kept.contains(demo.running.demo_key(Plan::Business)));

        // A restart: the open problem is found again and not told again.
        drop(watcher);
        let mut restarted = Watcher::with_memory_in(dir.path());
        assert!(restarted.tick(&pro).await.unwrap().is_empty());
        assert!(restarted.tick(&business).await.unwrap().is_empty());
        assert_eq!(
            restarted.view(&business.id).unwrap().at_risk(),
            [renewal_demo::HOSTNAME]
        );

        // The fix in DNS: a change the user made checks at once, lists nothing, says fixed.
        let records = demo.local.records(renewal_demo::EVENT_ZONE).await.unwrap();
        let caa = records
            .records
            .iter()
            .find(|record| record.value.contains("other-ca.example"))
            .unwrap();
        demo.local
            .delete_record(renewal_demo::EVENT_ZONE, &caa.id)
            .await
            .unwrap();
        let inbox = Inbox::default();
        inbox.changed(&business.id, None);
        restarted.take_inbox(&inbox);
        let before = demo.used(Plan::Business);
        let fixed = restarted.tick(&business).await.unwrap();
        assert!(
            matches!(&fixed[..], [AccountNotice { notice: Notice::Fixed { hostname, .. }, .. }] if hostname == renewal_demo::HOSTNAME),
            "{fixed:?}"
        );
        assert_eq!(
            demo.used(Plan::Business),
            before,
            "a DNS change lists nothing"
        );
        let kept = std::fs::read_to_string(dir.path().join(MEMORY_FILE)).unwrap();
        assert!(!kept.contains(renewal_demo::HOSTNAME), "{kept}");

        // An account no longer kept here is forgotten.
        restarted.keep_only(&BTreeSet::from([pro.id.clone()]));
        assert!(restarted.view(&business.id).is_none());
    }

    #[tokio::test]
    async fn after_a_change_the_watch_takes_the_windows_list_instead_of_asking_again() {
        let demo = Demo::start().await;
        let dir = tempfile::tempdir().unwrap();
        let business = demo.account(Plan::Business);
        let mut watcher = Watcher::with_memory_in(dir.path());
        let inbox = Inbox::default();
        assert!(watcher.tick(&business).await.unwrap().is_empty());
        let project = business
            .client
            .projects()
            .await
            .unwrap()
            .into_iter()
            .find(|project| project.name == renewal_demo::PROJECT_NAME)
            .unwrap()
            .id;

        // The user removes the live domain; the window lists the project again, as it does
        // after every change, and hands the list in.
        business
            .client
            .remove_domain_reporting(&project, renewal_demo::HOSTNAME)
            .await
            .unwrap();
        inbox.changed(&business.id, Some(&project));
        let asked = inbox.count();
        let listed = business.client.domains(&project).await.unwrap();
        inbox.listed(&business.id, &project, asked, &listed);
        let before = demo.used(Plan::Business);
        watcher.take_inbox(&inbox);
        watcher.tick(&business).await.unwrap();
        assert_eq!(
            demo.used(Plan::Business),
            before,
            "the window's list, no request of the watch's own"
        );
        assert!(
            watcher.view(&business.id).unwrap().domains.is_empty(),
            "the check saw the change"
        );

        // A list asked for before the change is not taken for one after it; with no fresh
        // list by the next tick, the watch lists that one project (1 request, not 4).
        inbox.changed(&business.id, Some(&project));
        inbox.listed(&business.id, &project, asked, &listed);
        watcher.take_inbox(&inbox);
        let before = demo.used(Plan::Business);
        watcher.tick(&business).await.unwrap();
        assert_eq!(
            demo.used(Plan::Business),
            before,
            "a tick's wait for the window"
        );
        watcher.tick(&business).await.unwrap();
        assert_eq!(demo.used(Plan::Business), before + 1);
    }
}
