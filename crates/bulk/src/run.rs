//! Sending a checked import through the key's paced queue, and what came of each row.
//!
//! Every row goes through the same rate-limit-aware queue as the rest of the app, at bulk
//! priority, so a click in the window still goes first and no row earns a 429 the queue could
//! have avoided. Rows are filed under one job: cancelling withdraws every row not yet sent,
//! and rows on the wire finish and are counted. Domains go before the redirects that point at
//! them.

use std::future::Future;
use std::time::{Duration, Instant};

use domain_desk_api::{AddDomain, ErrorCode};
use domain_desk_client::Client;
use futures::StreamExt;
use serde::Serialize;

use crate::eta::WindowBudget;
use crate::plan::{ImportPlan, PlannedRow, PresentRow};
use crate::rows::Row;

/// Rows handed to the queue at once; the queue decides when each is sent.
const ROWS_QUEUED_AT_ONCE: usize = 64;

/// How a run is paced and reported.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Platform seconds per local second, for the ETA (1 for the real platform).
    pub clock_speed: f64,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self { clock_speed: 1.0 }
    }
}

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
    };
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
        let mut answers = futures::stream::iter(phase)
            .map(|row| async move {
                let body = AddDomain {
                    hostname: row.hostname.clone(),
                    redirect_to: row.redirect_to.clone(),
                };
                let answer = rows_client
                    .add_domain_once(project_id, &body, &row.idempotency_key)
                    .await;
                (row, answer)
            })
            .buffer_unordered(ROWS_QUEUED_AT_ONCE);
        loop {
            let next = tokio::select! {
                next = answers.next() => next,
                () = &mut stop, if !stopped => {
                    stopped = true;
                    // Rows not yet sent come back as cancelled; rows on the wire finish.
                    let _ = client.cancel_job(job).await;
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
    let now = chrono::Utc::now().timestamp_millis() as f64 / 1000.0;
    let state = client.state().borrow().clone();
    // The queue's remaining budget already leaves out the requests on the wire.
    let windows = WindowBudget::from_queue(&state, now, options.clock_speed)
        .earliest_done(left.saturating_sub(state.in_flight as u64), now);
    let pace = Duration::from_secs_f64(left as f64 / progress.rate.max(1e-9));
    let eta = windows.max(pace);
    (eta != Duration::MAX).then_some(eta)
}
