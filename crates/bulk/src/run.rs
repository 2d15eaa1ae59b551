//! Sending a checked import through the key's paced queue, and what came of each row.
//!
//! Every row goes through the same rate-limit-aware queue as the rest of the app, at bulk
//! priority, so a click in the window still goes first and no row earns a 429 the queue could
//! have avoided. Rows are filed under one job: cancelling withdraws every row not yet sent,
//! and rows on the wire finish and are counted. Domains go before the redirects that point at
//! them.
//!
//! When the platform cannot be reached (the local service stopped, the network went away),
//! the queue's own few retries soon run out; rather than call every row "not done", the run
//! waits for the platform to come back ([`Reconnect`]): one row at a time tries again, after
//! 1 s, 2 s, 4 s … (at most 30 s apart), while the others wait, and the progress says so. Once
//! it answers, every row goes on; after [`RunOptions::reconnect_for`] without an answer the
//! rows left are not done. Stopping the run ends the wait at once. Each row keeps its
//! `Idempotency-Key`, so a row sent again is never added twice.

use std::future::Future;
use std::time::Duration;

use domain_desk_api::{AddDomain, ErrorCode};
use domain_desk_client::{AddedDomain, Client};
use futures::StreamExt;
use serde::Serialize;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::plan::{ImportPlan, PlannedRow, PresentRow};
use crate::rows::Row;

/// Rows handed to the queue at once; the queue decides when each is sent.
const ROWS_QUEUED_AT_ONCE: usize = 64;

/// How a run is paced and reported.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Platform seconds per local second, for the ETA (1 for the real platform).
    pub clock_speed: f64,
    /// How long rows wait for a platform that cannot be reached before they are not done,
    /// counted from the first failure of an outage; zero gives up at once.
    pub reconnect_for: Duration,
    /// The wall clock the ETA reads the key's windows at ([`Client::wait_for`]): the
    /// computer's, or a frozen one in a test.
    pub now: fn() -> chrono::DateTime<chrono::Utc>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            clock_speed: 1.0,
            reconnect_for: DEFAULT_RECONNECT_FOR,
            now: chrono::Utc::now,
        }
    }
}

/// Two minutes: a service restarted or a laptop's network back within that finds the import
/// still going.
pub const DEFAULT_RECONNECT_FOR: Duration = Duration::from_secs(120);

/// The longest wait between two tries while the platform cannot be reached.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(30);

/// Where a run stands, after each answered row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// Rows to send in this run.
    pub total: usize,
    /// Rows answered (in any way) so far.
    pub answered: usize,
    pub created: usize,
    pub already_present: usize,
    pub refused: usize,
    pub failed: usize,
    pub elapsed: Duration,
    /// Rows answered per second since the run started.
    pub rate: f64,
    /// When the rest can be done: the later of the plan's windows and the pace so far.
    pub eta: Option<Duration>,
    /// The platform cannot be reached and rows wait for it; `None` while it answers.
    pub reconnecting: Option<Reconnecting>,
}

/// Rows wait for a platform that does not answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reconnecting {
    /// Since the first connection failure of this outage.
    pub unreachable_for: Duration,
    /// Tries since then that found it still unreachable.
    pub attempts: u32,
    /// Until the next try.
    pub next_try_in: Duration,
    /// Until the rows still waiting are given up as not done.
    pub gives_up_in: Duration,
    /// Why the last try failed.
    pub error: String,
}

/// A row the platform refused, with its reason; sending it again as it is will not help.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedRow {
    pub line: u64,
    pub hostname: String,
    pub redirect_to: Option<String>,
    pub code: Option<ErrorCode>,
    pub reason: String,
}

/// A row with no answer (network, platform errors after the retries, rate limited, or not
/// sent because the run was stopped): importing it again may succeed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnfinishedRow {
    pub line: u64,
    pub hostname: String,
    pub redirect_to: Option<String>,
    pub reason: String,
    /// The platform's rate limit (or a ban) stopped it, not the network or the platform.
    pub rate_limited: bool,
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Added by this run.
    pub created: Vec<String>,
    /// Already in the project: found before sending, added by an earlier run whose answer was
    /// lost (the platform replayed it), or attached meanwhile.
    pub already_present: Vec<PresentRow>,
    pub refused: Vec<RefusedRow>,
    pub unfinished: Vec<UnfinishedRow>,
    /// The run was stopped before every row was sent.
    pub stopped: bool,
    /// 429 answers the queue met during the run (ideally none).
    pub rate_limited: u64,
    /// Rows left out before sending because they cannot be imported as written
    /// ([`crate::plan::Invalid::Skip`]).
    pub skipped: Vec<crate::rows::RowProblem>,
}

impl Summary {
    /// Every row worth importing again (refused and unfinished), in the import format.
    pub fn rows_to_retry(&self) -> Vec<Row> {
        let refused = self.refused.iter().map(|r| Row {
            line: r.line,
            hostname: r.hostname.clone(),
            redirect_to: r.redirect_to.clone(),
        });
        let unfinished = self.unfinished.iter().map(|r| Row {
            line: r.line,
            hostname: r.hostname.clone(),
            redirect_to: r.redirect_to.clone(),
        });
        let mut rows: Vec<Row> = refused.chain(unfinished).collect();
        rows.sort_by_key(|r| r.line);
        rows
    }

    /// `true` when every row is in the project now.
    pub fn complete(&self) -> bool {
        self.refused.is_empty() && self.unfinished.is_empty() && !self.stopped
    }
}

enum Outcome {
    Created,
    Present {
        replayed: bool,
    },
    Refused {
        code: Option<ErrorCode>,
        reason: String,
    },
    Unfinished {
        reason: String,
        rate_limited: bool,
    },
}

/// Sends `plan` to `project_id`; `progress` is called after every answer; `stop` resolving
/// (Ctrl-C, the window's Cancel) withdraws the rows not yet sent.
pub async fn run(
    client: &Client,
    project_id: &str,
    plan: ImportPlan,
    options: RunOptions,
    mut progress: impl FnMut(&Progress),
    stop: impl Future<Output = ()>,
) -> Summary {
    let job = client.new_job();
    let rows_client = client.bulk().in_job(job);
    let total = plan.to_send.len();
    let started = Instant::now();
    let mut summary = Summary {
        already_present: plan.already_present,
        skipped: plan.skipped,
        ..Summary::default()
    };
    let rate_limited_before = client.state().borrow().rate_limited_total;
    let mut counts = Progress {
        total,
        answered: 0,
        created: 0,
        already_present: 0,
        refused: 0,
        failed: 0,
        elapsed: Duration::ZERO,
        rate: 0.0,
        eta: None,
        reconnecting: None,
    };
    let reconnect = Reconnect::new(options.reconnect_for);
    let mut outage = reconnect.subscribe();
    let (domains, redirects): (Vec<PlannedRow>, Vec<PlannedRow>) = plan
        .to_send
        .into_iter()
        .partition(|r| r.redirect_to.is_none());
    let mut stop = std::pin::pin!(stop);
    let mut stopped = false;
    for phase in [domains, redirects] {
        if stopped {
            for row in phase {
                summary.unfinished.push(unfinished(
                    &row,
                    "not done: the import was stopped before it was sent",
                ));
            }
            continue;
        }
        let rows_client = &rows_client;
        let reconnect = &reconnect;
        let mut answers = futures::stream::iter(phase)
            .map(|row| async move {
                let answer = send_row(rows_client, project_id, &row, reconnect).await;
                (row, answer)
            })
            .buffer_unordered(ROWS_QUEUED_AT_ONCE);
        loop {
            let waiting = outage.borrow().since.is_some() && !stopped;
            let next = tokio::select! {
                next = answers.next() => next,
                () = &mut stop, if !stopped => {
                    stopped = true;
                    // Rows waiting for the platform give up; rows not yet sent come back as
                    // cancelled; rows on the wire finish.
                    reconnect.stop();
                    let _ = client.cancel_job(job).await;
                    continue;
                }
                changed = outage.changed() => {
                    if changed.is_ok() {
                        counts.reconnecting = reconnect.progress();
                        progress(&counts);
                    }
                    continue;
                }
                // While rows wait, the countdown moves every second.
                () = tokio::time::sleep(Duration::from_secs(1)), if waiting => {
                    counts.reconnecting = reconnect.progress();
                    progress(&counts);
                    continue;
                }
            };
            let Some((row, answer)) = next else { break };
            let outcome = match answer {
                Ok(added) if added.replayed => Outcome::Present { replayed: true },
                Ok(_) => Outcome::Created,
                Err(err) if err.code() == Some(ErrorCode::DomainAlreadyAttached) => {
                    Outcome::Present { replayed: false }
                }
                Err(err) if err.is_cancelled() => Outcome::Unfinished {
                    reason: "not done: the import was stopped before it was sent".into(),
                    rate_limited: false,
                },
                Err(err)
                    if err.status().is_some_and(|s| (400..500).contains(&s))
                        && !err.is_rate_limited()
                        && !err.is_banned() =>
                {
                    Outcome::Refused {
                        code: err.code(),
                        reason: err.to_string(),
                    }
                }
                Err(err) => Outcome::Unfinished {
                    rate_limited: err.is_rate_limited() || err.is_banned(),
                    reason: err.to_string(),
                },
            };
            match outcome {
                Outcome::Created => {
                    counts.created += 1;
                    summary.created.push(row.hostname);
                }
                Outcome::Present { replayed } => {
                    counts.already_present += 1;
                    summary.already_present.push(PresentRow {
                        line: row.line,
                        hostname: row.hostname,
                        differs: None,
                        added_by_earlier_run: replayed,
                    });
                }
                Outcome::Refused { code, reason } => {
                    counts.refused += 1;
                    summary.refused.push(RefusedRow {
                        line: row.line,
                        hostname: row.hostname,
                        redirect_to: row.redirect_to,
                        code,
                        reason,
                    });
                }
                Outcome::Unfinished {
                    reason,
                    rate_limited,
                } => {
                    counts.failed += 1;
                    summary.unfinished.push(UnfinishedRow {
                        rate_limited,
                        ..unfinished(&row, &reason)
                    });
                }
            }
            counts.answered += 1;
            counts.reconnecting = reconnect.progress();
            counts.elapsed = started.elapsed();
            counts.rate = counts.answered as f64 / counts.elapsed.as_secs_f64().max(1e-3);
            counts.eta = eta(client, &counts, options);
            progress(&counts);
        }
    }
    summary.stopped = stopped;
    summary.already_present.sort_by_key(|r| r.line);
    summary.refused.sort_by_key(|r| r.line);
    summary.unfinished.sort_by_key(|r| r.line);
    summary.rate_limited = client
        .state()
        .borrow()
        .rate_limited_total
        .saturating_sub(rate_limited_before);
    summary
}

/// Sends one row; while the platform cannot be reached, waits for it with the other rows
/// (see [`Reconnect`]).
async fn send_row(
    client: &Client,
    project_id: &str,
    row: &PlannedRow,
    reconnect: &Reconnect,
) -> domain_desk_client::Result<AddedDomain> {
    let body = AddDomain {
        hostname: row.hostname.clone(),
        redirect_to: row.redirect_to.clone(),
    };
    loop {
        let probe = match reconnect.turn().await {
            Turn::Send { probe } => probe,
            Turn::Stopped => return Err(domain_desk_client::Error::Cancelled),
            Turn::GiveUp(err) => return Err(err),
        };
        let answer = client
            .add_domain_once(project_id, &body, &row.idempotency_key)
            .await;
        match answer {
            Err(err) if err.is_network() && reconnect.failed(&err, probe) => {}
            answer => {
                if !matches!(&answer, Err(err) if err.is_network() || err.is_cancelled()) {
                    reconnect.answered();
                }
                return answer;
            }
        }
    }
}

/// Where an outage stands, shared by every row of a run (they all run on the run's task).
#[derive(Debug, Clone)]
struct Outage {
    /// The first connection failure of the current outage; `None` while the platform answers.
    since: Option<Instant>,
    /// Tries since then that failed.
    attempts: u32,
    /// When the next row may try.
    next_try: Instant,
    /// A row is trying now; the others wait for its answer.
    probing: bool,
    /// The outage lasted past the run's patience: rows left are not done.
    gave_up: bool,
    /// The run was stopped: rows waiting are not sent.
    stopped: bool,
    /// The last connection failure.
    error: Option<domain_desk_client::Error>,
}

/// Rows waiting for a platform that cannot be reached: the first failure starts an outage;
/// from then on one row at a time tries again, with exponential backoff, until one gets an
/// answer (all go on) or `patience` has passed (all give up).
struct Reconnect {
    state: watch::Sender<Outage>,
    patience: Duration,
}

enum Turn {
    Send { probe: bool },
    Stopped,
    GiveUp(domain_desk_client::Error),
}

impl Reconnect {
    fn new(patience: Duration) -> Self {
        let (state, _) = watch::channel(Outage {
            since: None,
            attempts: 0,
            next_try: Instant::now(),
            probing: false,
            gave_up: false,
            stopped: false,
            error: None,
        });
        Self { state, patience }
    }

    fn subscribe(&self) -> watch::Receiver<Outage> {
        self.state.subscribe()
    }

    /// Waits until this row may be sent: at once while the platform answers; during an
    /// outage, when its turn to try comes.
    async fn turn(&self) -> Turn {
        let mut changes = self.state.subscribe();
        loop {
            let wake_at = {
                let outage = changes.borrow_and_update();
                if outage.stopped {
                    return Turn::Stopped;
                }
                if outage.gave_up {
                    return Turn::GiveUp(
                        outage
                            .error
                            .clone()
                            .unwrap_or(domain_desk_client::Error::Cancelled),
                    );
                }
                if outage.since.is_none() {
                    return Turn::Send { probe: false };
                }
                (!outage.probing).then_some(outage.next_try)
            };
            if wake_at.is_some_and(|at| at <= Instant::now()) {
                let mut claimed = false;
                self.state.send_if_modified(|outage| {
                    claimed = outage.since.is_some()
                        && !outage.probing
                        && !outage.stopped
                        && !outage.gave_up;
                    outage.probing |= claimed;
                    claimed
                });
                if claimed {
                    return Turn::Send { probe: true };
                }
                continue;
            }
            let changed = async {
                if changes.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            match wake_at {
                Some(at) => tokio::select! {
                    () = changed => {}
                    () = tokio::time::sleep_until(at) => {}
                },
                None => changed.await,
            }
        }
    }

    /// A row could not reach the platform; `true`: wait and try it again (its next turn says
    /// whether the run gave up meanwhile), `false`: give it up now (no patience).
    fn failed(&self, err: &domain_desk_client::Error, probe: bool) -> bool {
        if self.patience.is_zero() {
            return false;
        }
        let now = Instant::now();
        let patience = self.patience;
        self.state.send_modify(|outage| {
            let since = *outage.since.get_or_insert(now);
            if probe || outage.attempts == 0 {
                outage.attempts += 1;
                let backoff = Duration::from_secs(1)
                    .saturating_mul(1 << (outage.attempts - 1).min(16))
                    .min(MAX_RECONNECT_DELAY);
                // The last try comes when patience runs out, not after.
                outage.next_try = (now + backoff).min(since + patience);
                outage.probing = false;
            }
            outage.error = Some(err.clone());
            if now.duration_since(since) >= patience {
                outage.gave_up = true;
                tracing::warn!(%err, "the platform did not answer for {patience:?}; the rows left are not done");
            }
        });
        true
    }

    /// The platform answered (whatever it said): the outage, if any, is over.
    fn answered(&self) {
        self.state.send_if_modified(|outage| {
            let was_out = outage.since.is_some() && !outage.gave_up;
            if was_out {
                outage.since = None;
                outage.attempts = 0;
                outage.probing = false;
                outage.error = None;
            }
            was_out
        });
    }

    fn stop(&self) {
        self.state.send_modify(|outage| outage.stopped = true);
    }

    /// The outage as the progress shows it.
    fn progress(&self) -> Option<Reconnecting> {
        let outage = self.state.borrow();
        let since = outage
            .since
            .filter(|_| !outage.gave_up && !outage.stopped)?;
        let now = Instant::now();
        Some(Reconnecting {
            unreachable_for: now.duration_since(since),
            attempts: outage.attempts,
            next_try_in: outage.next_try.saturating_duration_since(now),
            gives_up_in: (since + self.patience).saturating_duration_since(now),
            error: outage
                .error
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
        })
    }
}

fn unfinished(row: &PlannedRow, reason: &str) -> UnfinishedRow {
    UnfinishedRow {
        line: row.line,
        hostname: row.hostname.clone(),
        redirect_to: row.redirect_to.clone(),
        reason: reason.to_owned(),
        rate_limited: false,
    }
}

/// The later of what the plan's windows allow and what the pace of the whole run so far
/// (not its last seconds) says, for the rows not yet answered.
fn eta(client: &Client, progress: &Progress, options: RunOptions) -> Option<Duration> {
    let left = progress.total.saturating_sub(progress.answered) as u64;
    if left == 0 {
        return Some(Duration::ZERO);
    }
    // The queue's remaining budget already leaves out the requests on the wire.
    let in_flight = client.state().borrow().in_flight as u64;
    let windows = client.wait_for(
        left.saturating_sub(in_flight),
        (options.now)(),
        options.clock_speed,
    );
    let pace = Duration::from_secs_f64(left as f64 / progress.rate.max(1e-9));
    let eta = windows.max(pace);
    (eta != Duration::MAX).then_some(eta)
}
