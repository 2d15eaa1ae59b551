//! The per-key scheduler: one task that owns the budget and the transport, and decides when
//! each request leaves.
//!
//! Every caller (the window, background polling, bulk jobs, the command line) sends its
//! request here through a channel and waits on a oneshot for the answer. The task:
//! - keeps three FIFO queues, served strictly by priority; while interactive work waits or
//!   happened recently, background and bulk work leave a share of the day budget to it (and
//!   the state says so); when nobody is clicking they may use the whole day;
//! - paces counted requests so the binding window's remaining budget is spread up to its
//!   reset while the queue outlasts it, and sends what fits at once ([`crate::budget`]);
//! - sends identical GETs once and gives every caller the same answer;
//! - on a 429 pauses the whole key until Retry-After (else the reset, else a bounded
//!   backoff), then lets exactly one request probe before opening again, and sends nothing
//!   while paused: a key that keeps sending while limited gets banned;
//! - retries network errors and 5xx answers of requests that are safe to repeat (idempotent
//!   methods, and POSTs, which all carry an `Idempotency-Key`) with full-jitter exponential
//!   backoff, within a key-wide retry budget;
//! - drops queued work whose callers went away or whose job was cancelled;
//! - with a data directory, shares the key's budget, requests on the wire and pauses with
//!   the key's queues in other processes ([`crate::ledger`]);
//! - publishes its state on a watch channel for the rate-limit meter.
//!
//! This file is the actor only, in mini-redis's shape: the [`Handle`] every caller holds, the
//! messages it sends, the task's state and its decisions. What it knows is kept and reasoned
//! about in pure, unit-tested modules: what an answer says ([`crate::answers`]: observations
//! of the windows, 429, ban and retry waits), the window estimates and the pacing
//! ([`crate::budget`]), the clock ([`crate::clock`]) and the ledger shared with other
//! processes ([`crate::ledger`]).
//!
//! It is longer than the house's 500 lines on purpose: the decisions above act on the one
//! state the task owns, and split across files they would pass that state around or lock it.
//! Within it, what belongs together is a type of its own: `Pause` (the pause, ban and probe),
//! `Retries` (the retry tokens and the backoffs), `Shared` (the ledger and its lock); the
//! state the meter shows is published from beside the fields it reads. Its tests are in
//! `tests/suite/scheduler.rs`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use domain_desk_api::RateWindow;
use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::answers::{self, Outcome};
use crate::budget::{Budget, Pace};
use crate::clock::WallClock;
use crate::config::{QueueConfig, RetryPolicy};
use crate::error::{Error, Result};
use crate::headers::unix_seconds;
use crate::ledger::{self, Lease, Ledger, SharedBudget, SharedWindow};
use crate::state::{HeldBack, HeldBackReason, Priority, QueueState, QueuedCounts, WindowState};
use crate::transport::{ApiRequest, Transport, TransportError, WireResponse};

/// Groups queued requests so that a whole job can be cancelled at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub u64);

type Reply = oneshot::Sender<Result<WireResponse>>;

/// The messages the task takes.
enum Command {
    Submit {
        request: ApiRequest,
        priority: Priority,
        job: Option<JobId>,
        reply: Reply,
    },
    /// Withdraw every queued request of the job; requests already on the wire finish.
    CancelJob(JobId),
    /// The platform's clock was changed (the local service's clock was sped up, slowed down
    /// or moved) and then read: Unix milliseconds on it, and its speed from there. `done`
    /// hears once the queue's published state shows it.
    FollowPlatformClock {
        now_ms: i64,
        speed: f64,
        done: oneshot::Sender<()>,
    },
}

/// How often the whole queue is checked for callers that went away.
const SWEEP_INTERVAL: Duration = Duration::from_millis(250);

/// The path of the one uncounted endpoint, whose body reports both windows.
pub(crate) const RATE_LIMIT_PATH: &str = "/v1/rate_limit";

/// The handle to a key's scheduler: cheap to clone, what [`crate::Client`] holds. The task
/// runs as long as a handle exists (and then finishes what was queued).
#[derive(Clone)]
pub(crate) struct Handle {
    commands: mpsc::Sender<Command>,
    state: watch::Receiver<QueueState>,
}

impl Handle {
    /// Starts the scheduler task on the current Tokio runtime.
    pub fn spawn(config: QueueConfig, transport: Arc<dyn Transport>) -> Result<Self> {
        let shared = config
            .shared_budget
            .as_deref()
            .map(SharedBudget::open)
            .transpose()?;
        let (commands, command_rx) = mpsc::channel(1024);
        let (state_tx, state) = watch::channel(QueueState::default());
        let mut scheduler = Scheduler::new(config, transport, state_tx);
        scheduler.shared.budget = shared;
        tokio::spawn(scheduler.run(command_rx));
        Ok(Self { commands, state })
    }

    /// Queues a request and waits for the platform's answer. Dropping the future withdraws
    /// the request if it has not been sent.
    pub async fn submit(
        &self,
        request: ApiRequest,
        priority: Priority,
        job: Option<JobId>,
    ) -> Result<WireResponse> {
        let (reply, answer) = oneshot::channel();
        self.command(Command::Submit {
            request,
            priority,
            job,
            reply,
        })
        .await?;
        answer.await.map_err(|_| Error::QueueClosed)?
    }

    pub async fn cancel_job(&self, job: JobId) -> Result<()> {
        self.command(Command::CancelJob(job)).await
    }

    /// Returns once the state the meter reads ([`Handle::state`]) shows the clock followed.
    pub async fn follow_platform_clock(&self, now_ms: i64, speed: f64) -> Result<()> {
        let (done, followed) = oneshot::channel();
        self.command(Command::FollowPlatformClock {
            now_ms,
            speed,
            done,
        })
        .await?;
        followed.await.map_err(|_| Error::QueueClosed)
    }

    async fn command(&self, command: Command) -> Result<()> {
        self.commands
            .send(command)
            .await
            .map_err(|_| Error::QueueClosed)
    }

    /// Both handles lead to the same task.
    pub fn same_queue(&self, other: &Handle) -> bool {
        self.commands.same_channel(&other.commands)
    }

    /// How many handles to the task exist, this one included.
    pub fn handles(&self) -> usize {
        self.commands.strong_count()
    }

    pub fn is_running(&self) -> bool {
        !self.commands.is_closed()
    }

    pub fn state(&self) -> watch::Receiver<QueueState> {
        self.state.clone()
    }
}

struct Waiter {
    job: Option<JobId>,
    reply: Reply,
}

struct Entry {
    request: ApiRequest,
    priority: Priority,
    waiters: Vec<Waiter>,
    /// Queued by the scheduler itself (the start-up sync); kept without waiters.
    internal: bool,
    /// Failed sends so far (network errors and 5xx).
    failures: u32,
    /// 429 answers so far.
    rate_limited: u32,
    /// On the wire or waiting out a retry backoff: not in any queue.
    in_flight: bool,
}

impl Entry {
    fn has_waiters(&self) -> bool {
        self.internal || self.waiters.iter().any(|w| !w.reply.is_closed())
    }
}

struct Completion {
    id: u64,
    counted: bool,
    result: std::result::Result<WireResponse, TransportError>,
}

struct Scheduler {
    config: QueueConfig,
    transport: Arc<dyn Transport>,
    budget: Budget,
    entries: HashMap<u64, Entry>,
    queues: [VecDeque<u64>; 3],
    /// GET path to the entry that will answer it.
    coalesced: HashMap<String, u64>,
    in_flight: FuturesUnordered<BoxFuture<'static, Completion>>,
    next_id: u64,
    /// The schedule slot of the last counted request (see `Pace::Ready`).
    last_send: Option<Instant>,
    /// The slot `dispatch` chose for the request it is about to send.
    next_slot: Option<Instant>,
    /// Counted requests waiting in the queues (not on the wire, not in a retry backoff).
    queued_counted: u64,
    /// Counted work has waited without a break since the last counted send: a delay since
    /// then was the scheduler's own, not idleness (see `Budget::pace`).
    backlogged: bool,
    /// When a caller last submitted interactive work: the day reserve is kept while this is
    /// recent (`QueueConfig::interactive_recent`).
    last_interactive: Option<Instant>,
    /// When queued entries were last checked for callers that went away (the heads of the
    /// queues are checked every time; the rest only so often, as a queue can be long).
    last_sweep: Option<Instant>,
    pause: Pause,
    /// Factor (0.85 to 1) on the next pacing gap, drawn after each send; see `Budget::pace`.
    pace_jitter: f64,
    retries: Retries,
    rng: StdRng,
    clock: WallClock,
    state_tx: watch::Sender<QueueState>,
    shared: Shared,
}

impl Scheduler {
    /// Publishes the state the rate-limit meter shows, read from the fields above, on the
    /// watch channel (only when it changed).
    fn publish(&mut self, now: Instant) {
        let clock = self.clock;
        let local_reset = |at: Option<Instant>| at.map(|at| unix_seconds(clock.system_time(at)));
        let budget = &self.budget;
        let window_state = |w: &crate::budget::Window| WindowState {
            limit: w.limit,
            remaining: budget.remaining(w.kind),
            reset: local_reset(w.reset_at),
            learned: w.learned,
        };
        let minute = window_state(&self.budget.minute);
        let day = window_state(&self.budget.day);
        let learned = minute.learned || day.learned;
        let binding = self.budget.binding();
        let shown = if binding == RateWindow::Day {
            day
        } else {
            minute
        };
        let queued_in = |p: Priority| self.queues[p.index()].len();
        let delayed_in = |p: Priority| {
            self.retries
                .delayed
                .iter()
                .filter(|(_, id)| self.entries.get(id).is_some_and(|e| e.priority == p))
                .count()
        };
        let held_back = self
            .day_reserve(Priority::Bulk, now)
            .map(|(requests, reason)| HeldBack {
                requests,
                reason,
                until: match reason {
                    HeldBackReason::InteractiveRecent => {
                        self.reserve_until().map(|at| clock.utc(at))
                    }
                    HeldBackReason::InteractiveWaiting => None,
                },
                blocking: (self.queues[Priority::Background.index()].len()
                    + self.queues[Priority::Bulk.index()].len()
                    > 0)
                    && self.budget.remaining(RateWindow::Day) <= requests,
            });
        let state = QueueState {
            window: learned.then_some(binding),
            limit: learned.then_some(shown.limit),
            remaining: learned.then_some(shown.remaining),
            reset: if learned { shown.reset } else { None },
            minute,
            day,
            paused_until: self
                .pause
                .until
                .filter(|until| *until > now)
                .map(|until| clock.utc(until)),
            banned_until: self
                .pause
                .banned_until
                .filter(|until| *until > now)
                .map(|until| clock.utc(until)),
            probing: self.pause.probing.is_some(),
            queued: QueuedCounts {
                interactive: queued_in(Priority::Interactive) + delayed_in(Priority::Interactive),
                background: queued_in(Priority::Background) + delayed_in(Priority::Background),
                bulk: queued_in(Priority::Bulk) + delayed_in(Priority::Bulk),
            },
            in_flight: self.in_flight.len(),
            rate_limited_total: self.pause.rate_limited_total,
            held_back,
        };
        self.state_tx.send_if_modified(|current| {
            if *current == state {
                false
            } else {
                *current = state;
                true
            }
        });
    }
}

/// The key's pause after a 429 or a ban, and the probe that ends it: while paused nothing
/// leaves; then exactly one request goes, and nothing else until it is answered.
#[derive(Debug, Default)]
struct Pause {
    until: Option<Instant>,
    banned_until: Option<Instant>,
    /// The next request to leave after a pause is a probe.
    probe_required: bool,
    /// The probe on the wire; nothing else leaves until it is answered.
    probing: Option<u64>,
    /// 429 answers in a row, for the backoff when the platform gives no hint.
    consecutive_rate_limited: u32,
    rate_limited_total: u64,
}

impl Pause {
    /// Pauses until `until` at least (a pause is never shortened), then probes.
    fn extend(&mut self, until: Instant) {
        self.until = Some(self.until.map_or(until, |t| t.max(until)));
        self.probe_required = true;
    }

    /// The end of the pause while it holds at `now`; a pause or ban that ran out is lifted.
    fn holding(&mut self, now: Instant) -> Option<Instant> {
        if let Some(until) = self.until {
            if now < until {
                return Some(until);
            }
            self.until = None;
        }
        if self.banned_until.is_some_and(|until| until <= now) {
            self.banned_until = None;
        }
        None
    }

    /// Whether the probe keeps a request from leaving beside `in_flight` others: while the
    /// probe is out, and while one is due and others are still on the wire.
    fn blocks(&self, in_flight: usize) -> bool {
        self.probing.is_some() || (self.probe_required && in_flight > 0)
    }

    /// `id` leaves; true when it is the probe.
    fn on_send(&mut self, id: u64) -> bool {
        let probe = self.probe_required;
        if probe {
            self.probe_required = false;
            self.probing = Some(id);
        }
        probe
    }

    fn on_answer(&mut self, id: u64) {
        if self.probing == Some(id) {
            self.probing = None;
        }
    }
}

/// Attempts again after a failure: the key-wide retry budget (tokens earned by first sends,
/// spent by retries, so a failing platform is not hammered) and the entries waiting out a
/// backoff.
struct Retries {
    tokens: f64,
    /// Entries waiting out a retry backoff, with the instant they may go again.
    delayed: Vec<(Instant, u64)>,
}

impl Retries {
    /// A first send earns part of a token, up to the budget.
    fn earn(&mut self, policy: &RetryPolicy) {
        self.tokens = (self.tokens + policy.budget_ratio).min(policy.budget_tokens);
    }

    /// When the first backoff runs out.
    fn next_due(&self) -> Option<Instant> {
        self.delayed.iter().map(|(at, _)| *at).min()
    }

    /// The entries whose backoff has run out at `now`, earliest first, no longer delayed.
    fn take_due(&mut self, now: Instant) -> Vec<(Instant, u64)> {
        let mut due = Vec::new();
        self.delayed.retain(|&(at, id)| {
            if at <= now {
                due.push((at, id));
                false
            } else {
                true
            }
        });
        due.sort();
        due
    }
}

/// When a failed request may go again.
enum RetryWait {
    /// Full-jitter exponential backoff on its failures so far.
    Backoff,
    /// When the platform said.
    Told(Duration),
}

/// The key's ledger shared with the queues of other processes, when the queue has a data
/// directory ([`crate::ledger`]).
struct Shared {
    budget: Option<SharedBudget>,
    /// The ledger while this queue holds its lock (inside `dispatch` and `on_completion`).
    held: Option<Ledger>,
    /// Tells this queue's leases from another queue's in the same process.
    queue_tag: u64,
}

impl Scheduler {
    fn new(
        config: QueueConfig,
        transport: Arc<dyn Transport>,
        state_tx: watch::Sender<QueueState>,
    ) -> Self {
        let mut rng = match config.jitter_seed {
            Some(seed) => StdRng::seed_from_u64(seed),
            None => StdRng::from_entropy(),
        };
        let queue_tag = rng.r#gen();
        Self {
            budget: Budget::new(config.limits, config.platform_clock_speed),
            retries: Retries {
                tokens: config.retry.budget_tokens,
                delayed: Vec::new(),
            },
            config,
            transport,
            entries: HashMap::new(),
            queues: Default::default(),
            coalesced: HashMap::new(),
            in_flight: FuturesUnordered::new(),
            next_id: 0,
            last_send: None,
            next_slot: None,
            queued_counted: 0,
            backlogged: false,
            last_interactive: None,
            last_sweep: None,
            pause: Pause::default(),
            pace_jitter: 1.0,
            rng,
            clock: WallClock::now(),
            state_tx,
            shared: Shared {
                budget: None,
                held: None,
                queue_tag,
            },
        }
    }

    async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        if self.config.sync_on_start {
            let mut request = ApiRequest::get(RATE_LIMIT_PATH);
            request.counted = false;
            self.insert(request, Priority::Interactive, None, true);
        }
        let mut accepting = true;
        loop {
            let wake = self.dispatch(Instant::now());
            self.publish(Instant::now());
            if !accepting && self.entries.is_empty() && self.in_flight.is_empty() {
                break;
            }
            tokio::select! {
                Some(done) = self.in_flight.next(), if !self.in_flight.is_empty() => {
                    self.on_completion(done);
                }
                command = commands.recv(), if accepting => match command {
                    Some(command) => self.on_command(command),
                    None => accepting = false,
                },
                () = sleep_until_or_forever(wake) => {}
            }
        }
        tracing::debug!("request queue stopped");
    }

    fn on_command(&mut self, command: Command) {
        match command {
            Command::Submit {
                request,
                priority,
                job,
                reply,
            } => self.submit(request, priority, job, reply),
            Command::CancelJob(job) => self.cancel_job(job),
            // Taken as read now, the latest it can have been read: resets err late.
            Command::FollowPlatformClock {
                now_ms,
                speed,
                done,
            } => {
                let now = Instant::now();
                self.budget.follow_platform_clock(now_ms, now, speed);
                self.publish(now);
                // The caller may have stopped waiting; the queue goes on either way.
                let _ = done.send(());
            }
        }
    }

    fn submit(
        &mut self,
        request: ApiRequest,
        priority: Priority,
        job: Option<JobId>,
        reply: Reply,
    ) {
        if priority == Priority::Interactive {
            self.last_interactive = Some(Instant::now());
        }
        if let Some(id) = request
            .coalescing_key()
            .and_then(|key| self.coalesced.get(key))
            .copied()
            && let Some(entry) = self.entries.get_mut(&id)
        {
            entry.waiters.push(Waiter { job, reply });
            if priority < entry.priority {
                let from = entry.priority;
                entry.priority = priority;
                if !entry.in_flight {
                    self.queues[from.index()].retain(|queued| *queued != id);
                    self.queues[priority.index()].push_back(id);
                }
            }
            tracing::trace!(path = %request.path, "coalesced with an identical GET");
            return;
        }
        let id = self.insert(request, priority, job, false);
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.waiters.push(Waiter { job, reply });
        }
    }

    fn insert(
        &mut self,
        request: ApiRequest,
        priority: Priority,
        _job: Option<JobId>,
        internal: bool,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        if let Some(key) = request.coalescing_key() {
            self.coalesced.insert(key.to_owned(), id);
        }
        if request.counted {
            self.queued_counted += 1;
        }
        self.entries.insert(
            id,
            Entry {
                request,
                priority,
                waiters: Vec::new(),
                internal,
                failures: 0,
                rate_limited: 0,
                in_flight: false,
            },
        );
        self.queues[priority.index()].push_back(id);
        id
    }

    fn cancel_job(&mut self, job: JobId) {
        let mut emptied = Vec::new();
        for (id, entry) in &mut self.entries {
            if entry.in_flight {
                // Sent: the platform may act on it, so its callers get the answer.
                continue;
            }
            let (cancelled, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut entry.waiters)
                .into_iter()
                .partition(|w| w.job == Some(job));
            entry.waiters = kept;
            for waiter in cancelled {
                let _ = waiter.reply.send(Err(Error::Cancelled));
            }
            if !entry.in_flight && !entry.has_waiters() {
                emptied.push(*id);
            }
        }
        for id in emptied {
            self.remove(id);
        }
    }

    /// Forgets a queued entry (cancelled, abandoned or answered).
    fn remove(&mut self, id: u64) -> Option<Entry> {
        let entry = self.entries.remove(&id)?;
        if !entry.in_flight && entry.request.counted {
            self.queued_counted = self.queued_counted.saturating_sub(1);
            self.backlogged &= self.queued_counted > 0;
        }
        if !entry.in_flight {
            // Only an entry that is not on the wire is in a queue: an answered request does
            // not scan a queue of thousands.
            self.queues[entry.priority.index()].retain(|queued| *queued != id);
        }
        self.retries.delayed.retain(|(_, delayed)| *delayed != id);
        if let Some(key) = entry.request.coalescing_key()
            && self.coalesced.get(key) == Some(&id)
        {
            self.coalesced.remove(key);
        }
        Some(entry)
    }

    /// Queued entries whose every caller has gone away are not worth sending.
    fn drop_abandoned(&mut self) {
        let abandoned: Vec<u64> = self
            .entries
            .iter()
            .filter(|(_, entry)| !entry.in_flight && !entry.has_waiters())
            .map(|(id, _)| *id)
            .collect();
        for id in abandoned {
            tracing::debug!("dropping a queued request nobody waits for");
            self.remove(id);
        }
    }

    /// Backoffs that have run out go back to the front of their queue.
    fn release_delayed(&mut self, now: Instant) {
        for (_, id) in self.retries.take_due(now).into_iter().rev() {
            if let Some(entry) = self.entries.get_mut(&id) {
                entry.in_flight = false;
                if entry.request.counted {
                    self.queued_counted += 1;
                }
                self.queues[entry.priority.index()].push_front(id);
            }
        }
    }

    /// Sends whatever may go now; returns when to look again (`None`: on the next event).
    /// With a shared budget, decides under the ledger's lock.
    fn dispatch(&mut self, now: Instant) -> Option<Instant> {
        if self.queued_counted > 0 {
            self.shared_begin(now);
        }
        let wake = self.dispatch_locked(now);
        self.shared_end(now);
        wake
    }

    fn dispatch_locked(&mut self, now: Instant) -> Option<Instant> {
        self.release_delayed(now);
        if self
            .last_sweep
            .is_none_or(|at| now.duration_since(at) >= SWEEP_INTERVAL)
        {
            self.last_sweep = Some(now);
            self.drop_abandoned();
        }
        let wake = self.retries.next_due();
        loop {
            let Some(priority) = Priority::ALL
                .into_iter()
                .find(|p| !self.queues[p.index()].is_empty())
            else {
                return wake;
            };
            if let Some(until) = self.pause.holding(now) {
                return earliest(wake, until);
            }
            if self.pause.blocks(self.in_flight.len())
                || self.in_flight.len() >= self.config.max_in_flight.max(1)
            {
                return wake;
            }
            let Some(&id) = self.queues[priority.index()].front() else {
                return wake;
            };
            if !self.entries.get(&id).is_some_and(Entry::has_waiters) {
                tracing::debug!("dropping a queued request nobody waits for");
                self.remove(id);
                continue;
            }
            let counted = self.entries.get(&id).is_some_and(|e| e.request.counted);
            if counted {
                let reserve = self.day_reserve(priority, now);
                match self.budget.pace(
                    now,
                    self.last_send,
                    self.queued_counted.max(1),
                    reserve.map_or(0, |(held, _)| held),
                    self.pace_jitter,
                    self.backlogged,
                ) {
                    Pace::Wait(at) => {
                        // A reserve kept because of recent clicks lapses on its own: look
                        // again then.
                        let lapse = reserve
                            .filter(|(_, why)| *why == HeldBackReason::InteractiveRecent)
                            .and_then(|_| self.reserve_until())
                            .filter(|lapse| *lapse > now);
                        return earliest(wake, lapse.map_or(at, |lapse| lapse.min(at)));
                    }
                    Pace::Ready(slot) => self.next_slot = Some(slot),
                }
            }
            self.queues[priority.index()].pop_front();
            self.send(id, now);
        }
    }

    /// The part of the day that work of `priority` leaves for interactive work, and why:
    /// only while interactive work waits or was asked for recently. A bulk job nobody
    /// interrupts may use the whole day.
    fn day_reserve(&self, priority: Priority, now: Instant) -> Option<(u64, HeldBackReason)> {
        if priority == Priority::Interactive {
            return None;
        }
        let reason = if !self.queues[Priority::Interactive.index()].is_empty() {
            HeldBackReason::InteractiveWaiting
        } else if self
            .last_interactive
            .is_some_and(|at| now.duration_since(at) < self.config.interactive_recent)
        {
            HeldBackReason::InteractiveRecent
        } else {
            return None;
        };
        let share = self.config.interactive_day_reserve.clamp(0.0, 1.0);
        let held = (self.budget.day.limit as f64 * share).ceil() as u64;
        (held > 0).then_some((held, reason))
    }

    /// When the reserve lapses unless interactive work comes again.
    fn reserve_until(&self) -> Option<Instant> {
        self.last_interactive
            .map(|at| at + self.config.interactive_recent)
    }

    fn send(&mut self, id: u64, now: Instant) {
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        entry.in_flight = true;
        let counted = entry.request.counted;
        if counted {
            self.queued_counted = self.queued_counted.saturating_sub(1);
            self.backlogged = self.queued_counted > 0;
            self.last_send = Some(self.next_slot.take().unwrap_or(now));
            self.budget.record_send(now);
            if let Some(ledger) = self.shared.held.as_mut() {
                ledger.in_flight.push(Lease {
                    pid: std::process::id(),
                    queue: self.shared.queue_tag,
                    id,
                    expires_us: self.clock.micros(now + ledger::LEASE),
                });
            }
            self.pace_jitter = self.rng.gen_range(0.85..=1.0);
        }
        if entry.failures == 0 && entry.rate_limited == 0 {
            self.retries.earn(&self.config.retry);
        }
        if self.pause.on_send(id) {
            tracing::debug!(path = %entry.request.path, "probing after a pause");
        }
        tracing::trace!(method = %entry.request.method, path = %entry.request.path, "sending");
        let response = self.transport.send(&entry.request);
        self.in_flight.push(Box::pin(async move {
            Completion {
                id,
                counted,
                result: response.await,
            }
        }));
    }

    fn on_completion(&mut self, done: Completion) {
        let now = Instant::now();
        self.shared_begin(now);
        self.on_completion_locked(done, now);
        self.shared_end(now);
    }

    /// Takes the shared ledger's lock and folds what the key's other queues know into the
    /// budget: their lowest reports, their resets, every request on the wire, their pause.
    fn shared_begin(&mut self, now: Instant) {
        let Some(shared) = self.shared.budget.as_mut() else {
            return;
        };
        let Some(mut ledger) = shared.lock() else {
            return;
        };
        ledger.drop_stale(self.clock.micros(now));
        for (kind, window) in [
            (RateWindow::Minute, ledger.minute),
            (RateWindow::Day, ledger.day),
        ] {
            let Some(window) = window else { continue };
            self.budget.merge(&window.import(kind, &self.clock));
        }
        self.budget.roll(now);
        self.budget.set_in_flight(ledger.in_flight.len() as u64);
        if let Some(until) = ledger
            .paused_until_us
            .map(|us| self.clock.instant_at_micros(us))
            .filter(|until| *until > now)
            && self.pause.until.is_none_or(|mine| mine < until)
        {
            tracing::debug!("another process on this key was rate limited: pausing");
            self.pause.until = Some(until);
        }
        self.shared.held = Some(ledger);
    }

    /// Writes this queue's view back to the shared ledger and lets go of its lock.
    fn shared_end(&mut self, now: Instant) {
        let Some(mut ledger) = self.shared.held.take() else {
            return;
        };
        let clock = self.clock;
        ledger.minute = Some(SharedWindow::export(&self.budget.minute, &clock));
        ledger.day = Some(SharedWindow::export(&self.budget.day, &clock));
        ledger.extend_pause(
            self.pause.until.map(|until| clock.micros(until)),
            clock.micros(now),
        );
        if let Some(shared) = self.shared.budget.as_mut() {
            shared.unlock(&ledger);
        }
    }

    fn on_completion_locked(&mut self, done: Completion, now: Instant) {
        if done.counted {
            self.budget.record_done();
            if let Some(ledger) = self.shared.held.as_mut() {
                ledger.release(std::process::id(), self.shared.queue_tag, done.id);
            }
        }
        self.pause.on_answer(done.id);
        match done.result {
            Ok(response) => {
                let reports_both_windows = self
                    .entries
                    .get(&done.id)
                    .is_some_and(|e| e.request.path == RATE_LIMIT_PATH);
                self.learn(&response, now, reports_both_windows);
                let outcome = answers::classify(&response);
                if outcome == Outcome::RateLimited {
                    self.on_rate_limited(done.id, response, now);
                    return;
                }
                self.pause.consecutive_rate_limited = 0;
                match outcome {
                    Outcome::Banned => self.on_banned(&response, now),
                    Outcome::ServerError if self.retry(done.id, now, RetryWait::Backoff) => {
                        return;
                    }
                    Outcome::KeyInUse => {
                        // Asked again when told, the earlier attempt's answer is replayed
                        // instead of acting twice. Retry-After is in the platform's seconds.
                        let wait = self
                            .budget
                            .to_local(answers::in_use_wait(&response, self.clock.system_time(now)));
                        if self.retry(done.id, now, RetryWait::Told(wait)) {
                            return;
                        }
                    }
                    Outcome::RateLimited | Outcome::ServerError | Outcome::Final => {}
                }
                self.finish(done.id, Ok(response));
            }
            Err(err) => {
                tracing::debug!(error = %err, "request failed on the wire");
                if !(err.is_retryable() && self.retry(done.id, now, RetryWait::Backoff)) {
                    self.finish(done.id, Err(err.into()));
                }
            }
        }
    }

    /// Hands the answer to every caller waiting for it, once the state shows what it taught
    /// the queue: a caller may read the windows the moment its answer is back (`--no-wait`
    /// asks whether the next request would wait), on another thread than the queue's, before
    /// the run loop publishes again.
    fn finish(&mut self, id: u64, result: Result<WireResponse>) {
        let Some(entry) = self.remove(id) else {
            return;
        };
        self.publish(Instant::now());
        for waiter in entry.waiters {
            let _ = waiter.reply.send(result.clone());
        }
    }

    /// Schedules another attempt after a network error, a 5xx or a key in use, when the
    /// request is safe to repeat and both its own attempts and the key's retry budget allow.
    fn retry(&mut self, id: u64, now: Instant, wait: RetryWait) -> bool {
        let policy = &self.config.retry;
        let Some(entry) = self.entries.get_mut(&id) else {
            return false;
        };
        entry.failures += 1;
        if !entry.request.is_retryable() || !entry.has_waiters() {
            return false;
        }
        if entry.failures >= policy.max_attempts {
            tracing::debug!(path = %entry.request.path, attempts = entry.failures, "giving up: attempts used");
            return false;
        }
        if self.retries.tokens < 1.0 {
            tracing::debug!(path = %entry.request.path, "giving up: retry budget spent");
            return false;
        }
        self.retries.tokens -= 1.0;
        let delay = match wait {
            RetryWait::Backoff => {
                let ceiling = policy
                    .base_delay
                    .saturating_mul(1u32 << (entry.failures - 1).min(20))
                    .min(policy.max_delay);
                ceiling.mul_f64(self.rng.r#gen::<f64>())
            }
            RetryWait::Told(wait) => wait,
        };
        tracing::debug!(path = %entry.request.path, ?delay, "retrying");
        self.retries.delayed.push((now + delay, id));
        true
    }

    fn on_rate_limited(&mut self, id: u64, response: WireResponse, now: Instant) {
        self.pause.consecutive_rate_limited += 1;
        self.pause.rate_limited_total += 1;
        let pause = answers::rate_limited_pause(
            &response,
            self.clock.system_time(now),
            self.pause.consecutive_rate_limited,
            self.config.max_pause_without_hint,
        );
        let wait = pause.wait;
        let until = now + self.budget.to_local(wait);
        self.pause.extend(until);
        let window = pause.window.unwrap_or_else(|| self.budget.binding());
        self.budget.exhaust(window, until);
        tracing::warn!(?wait, ?window, "rate limited: pausing the key");
        let Some(entry) = self.entries.get_mut(&id) else {
            return;
        };
        entry.rate_limited += 1;
        if entry.rate_limited >= self.config.max_rate_limited_attempts.max(1) {
            self.finish(id, Ok(response));
        } else {
            entry.in_flight = false;
            if entry.request.counted {
                self.queued_counted += 1;
            }
            self.queues[entry.priority.index()].push_front(id);
        }
    }

    fn on_banned(&mut self, response: &WireResponse, now: Instant) {
        let wait = answers::ban_wait(
            response,
            self.clock.system_time(now),
            self.config.max_pause_without_hint,
        );
        let until = now + self.budget.to_local(wait);
        tracing::error!(?wait, "the API key is banned: pausing the key");
        self.pause.banned_until = Some(until);
        self.pause.extend(until);
    }

    /// Updates the budget from a response's headers (and from `/v1/rate_limit`'s body).
    fn learn(&mut self, response: &WireResponse, now: Instant, reports_both_windows: bool) {
        let local_now = unix_seconds(self.clock.system_time(now));
        for observation in answers::observations(response, reports_both_windows, local_now) {
            self.budget.observe(observation, now);
        }
    }
}

fn earliest(a: Option<Instant>, b: Instant) -> Option<Instant> {
    Some(a.map_or(b, |a| a.min(b)))
}

async fn sleep_until_or_forever(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
