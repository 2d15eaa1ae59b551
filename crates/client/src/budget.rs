//! What the key may still send, per window, as this client knows it.
//!
//! The platform counts two fixed windows per key (the minute and the UTC day) and reports in
//! each response only the one that binds. This module keeps an estimate for both: seeded from
//! the plan table, replaced by the lowest `Remaining` the platform has reported in the current
//! window, and rolled over locally when a window's reset passes. What may still be sent is that
//! number minus the requests in flight: every request the platform processed after the answer
//! that reported the lowest number is still in flight (an answered one would have reported
//! less), so the estimate can only err low, and it recovers as soon as answers arrive, even
//! when the platform processed requests out of order. Reset times arrive as
//! Unix timestamps on the platform's clock; they are turned into local instants by measuring
//! from the response's own `Date` header, so a skewed (or sped-up) platform clock does not
//! matter. All estimates err on the side of "less left, later reset": a too-early rollover
//! would be a 429.
//!
//! Pacing lives here too. While the queued work outlasts what the binding window has left,
//! that remainder is spread evenly up to the reset instead of being burst and then waited out,
//! so a click in the window never waits long for its turn; once what is queued fits in what is
//! left, it goes at once: holding it back would only end the job later (the last window of a
//! bulk job, a single click). Every window is used in full either way, so a long job finishes
//! at the window-aligned optimum: its last window opening.
//!
//! It is longer than the house's 500 lines with its tests (about 320 of code, 350 of tests):
//! the code is one `Budget` over the two windows, and its 20 tests feed it answers and move the
//! clock through the same helpers (`pro`, `observed`, `exchange`), one case each. Reading an
//! answer is apart already (`crate::answers`), and so is the scheduler that spends the budget
//! (`crate::queue`, tested in `tests/suite/scheduler.rs`).

use std::time::Duration;

use domain_desk_api::{Limits, RateWindow};
use tokio::time::Instant;

/// How many pacing gaps a late scheduler may make up by sending back to back.
const CATCH_UP_GAPS: u32 = 4;

/// The paced schedule of a window ends this long (platform time) before its reset: more than
/// a round trip and the error of a reset learned from whole-second headers, so the window's
/// last request is counted in it (see [`Budget::end_margin`]).
const END_MARGIN_PLATFORM: Duration = Duration::from_secs(3);

/// ... and at least this long in local time, a few timer ticks and a busy scheduler's delay.
const END_MARGIN_LOCAL: Duration = Duration::from_millis(10);

/// Whether the next counted request may go now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    /// Go now. The instant is the request's slot in the even schedule: when the scheduler
    /// woke a little late, the slot is the earlier planned instant, so the lateness is made
    /// up by the next gaps instead of slowing the whole run (timers tick in milliseconds, and
    /// a fast platform clock makes gaps only a few milliseconds long).
    Ready(Instant),
    /// Not before this instant (the pacing gap, or a window's reset when it is used up).
    Wait(Instant),
}

/// One window's estimate.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    pub kind: RateWindow,
    pub limit: u64,
    /// The lowest `Remaining` reported in this window (the limit when none was yet).
    pub reported: u64,
    /// The reset this estimate belongs to, on the platform's clock; `None` until learned.
    pub reset_unix: Option<i64>,
    /// The same reset as a local instant, never earlier than the real one.
    pub reset_at: Option<Instant>,
    /// Set once the platform has told us about this window (rather than the plan table).
    pub learned: bool,
}

impl Window {
    fn new(kind: RateWindow, limit: u64) -> Self {
        Self {
            kind,
            limit,
            reported: limit,
            reset_unix: None,
            reset_at: None,
            learned: false,
        }
    }

    /// The window's length on the platform's clock.
    pub fn length_secs(&self) -> i64 {
        match self.kind {
            RateWindow::Minute => 60,
            RateWindow::Day => 86_400,
        }
    }
}

/// What one response says about one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Observation {
    /// Which window, when the response names it (IETF field, `/v1/rate_limit`); otherwise
    /// inferred.
    pub window: Option<RateWindow>,
    pub limit: u64,
    pub remaining: u64,
    pub reset_unix: i64,
    /// When the platform answered, on its clock (the response's `Date`, whole seconds).
    pub answered_unix: Option<i64>,
    /// Time left until the reset on the platform's clock, measured from the response's
    /// `Date` (or given outright by the IETF `t` parameter). `None`: not trustworthy.
    pub until_reset: Option<Duration>,
}

#[derive(Debug, Clone)]
pub(crate) struct Budget {
    pub minute: Window,
    pub day: Window,
    /// Platform seconds per local second (1 for the real platform; the local service's clock
    /// speed when it runs fast).
    speed: f64,
    /// Counted requests sent and not yet answered.
    in_flight: u64,
    /// The second the platform's clock read when last followed
    /// ([`Budget::follow_platform_clock`]): an answer dated before it was given before the
    /// clock moved, and says nothing of the windows since.
    followed_unix: Option<i64>,
}

impl Budget {
    pub fn new(limits: Limits, speed: f64) -> Self {
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        Self {
            minute: Window::new(RateWindow::Minute, limits.per_minute),
            day: Window::new(RateWindow::Day, limits.per_day),
            speed,
            in_flight: 0,
            followed_unix: None,
        }
    }

    /// A span on the platform's clock as local time.
    pub fn to_local(&self, platform: Duration) -> Duration {
        Duration::from_secs_f64((platform.as_secs_f64() / self.speed).min(1e9))
    }

    pub fn window(&self, kind: RateWindow) -> &Window {
        match kind {
            RateWindow::Minute => &self.minute,
            RateWindow::Day => &self.day,
        }
    }

    fn window_mut(&mut self, kind: RateWindow) -> &mut Window {
        match kind {
            RateWindow::Minute => &mut self.minute,
            RateWindow::Day => &mut self.day,
        }
    }

    /// What this client may still send in the window: the platform's lowest report minus
    /// the requests in flight.
    pub fn remaining(&self, kind: RateWindow) -> u64 {
        self.window(kind).reported.saturating_sub(self.in_flight)
    }

    /// Starts the next window for every window whose reset has passed. Requests still in
    /// flight may land in the new window, so they stay counted against it. A window whose
    /// reset was only provisional (never reported by the platform) starts over unknown.
    pub fn roll(&mut self, now: Instant) {
        for kind in [RateWindow::Minute, RateWindow::Day] {
            let length_local = self.to_local(Duration::from_secs(match kind {
                RateWindow::Minute => 60,
                RateWindow::Day => 86_400,
            }));
            let window = self.window_mut(kind);
            let Some(reset_at) = window.reset_at else {
                continue;
            };
            if reset_at > now {
                continue;
            }
            window.reported = window.limit;
            let Some(reset_unix) = window.reset_unix else {
                window.reset_at = None;
                continue;
            };
            let behind = now.duration_since(reset_at).as_secs_f64();
            let periods = (behind / length_local.as_secs_f64().max(1e-9)).floor() as u32 + 1;
            window.reset_at = Some(reset_at + length_local * periods);
            window.reset_unix = Some(reset_unix + window.length_secs() * i64::from(periods));
        }
    }

    /// Counts a request as it leaves.
    pub fn record_send(&mut self, now: Instant) {
        self.roll(now);
        // Until the platform reports a reset, assume the worst: a full window from now.
        for kind in [RateWindow::Minute, RateWindow::Day] {
            let length = self.to_local(Duration::from_secs(
                self.window(kind).length_secs().unsigned_abs(),
            ));
            let window = self.window_mut(kind);
            if window.reset_at.is_none() {
                window.reset_at = Some(now + length);
            }
        }
        self.in_flight += 1;
    }

    /// Requests on the wire as counted elsewhere (every process's, from the shared ledger).
    pub fn set_in_flight(&mut self, in_flight: u64) {
        self.in_flight = in_flight;
    }

    /// Folds in what another queue on the key knows of the window `other` describes: within
    /// the same window the lower remaining and the earlier reset (both err safe), a later
    /// window replaces an earlier one, and while neither knows the window the later
    /// provisional reset is kept.
    pub fn merge(&mut self, other: &Window) {
        let window = self.window_mut(other.kind);
        match (window.reset_unix, other.reset_unix) {
            (Some(mine), Some(theirs)) if mine == theirs => {
                window.limit = other.limit;
                window.reported = window.reported.min(other.reported);
                window.reset_at = match (window.reset_at, other.reset_at) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                window.learned |= other.learned;
            }
            (Some(mine), Some(theirs)) if theirs < mine => {}
            (Some(_), None) => {}
            (None, Some(_)) | (Some(_), Some(_)) => *window = other.clone(),
            (None, None) => {
                window.reported = window.reported.min(other.reported);
                window.reset_at = window.reset_at.max(other.reset_at);
            }
        }
    }

    /// A counted request got its answer (or gave up).
    pub fn record_done(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// Folds in what a response said (after [`Budget::record_done`] for its request).
    pub fn observe(&mut self, observation: Observation, received: Instant) {
        // Answered before the clock was moved on (a request on the wire while it moved): its
        // window is one the clock has left, though it may look like the clock set back.
        if let (Some(followed), Some(answered)) = (self.followed_unix, observation.answered_unix)
            && answered < followed
        {
            return;
        }
        let kind = observation
            .window
            .unwrap_or_else(|| self.identify(&observation));
        // A reset further away than the window is long cannot be right (a `Date` from another
        // clock); assume a full window from now instead, which errs late, the safe side.
        let length = Duration::from_secs(self.window(kind).length_secs().unsigned_abs());
        let until_reset = observation
            .until_reset
            .filter(|left| *left <= length + Duration::from_secs(1))
            .unwrap_or(length);
        let until_reset_local = self.to_local(until_reset);
        let reset_at = received + until_reset_local;
        let remaining = observation.remaining;
        let window = self.window_mut(kind);
        match window.reset_unix {
            Some(known)
                if observation.reset_unix < known
                    && known - observation.reset_unix <= window.length_secs() =>
            {
                // An answer from a window this client has already rolled past. (Further
                // back than one window, the platform's clock was set back: start over from
                // what it says, below.)
            }
            Some(known) if observation.reset_unix == known => {
                window.limit = observation.limit;
                window.reported = window.reported.min(remaining);
                window.reset_at = Some(window.reset_at.map_or(reset_at, |at| at.min(reset_at)));
                window.learned = true;
            }
            _ => {
                window.limit = observation.limit;
                window.reported = remaining;
                window.reset_unix = Some(observation.reset_unix);
                window.reset_at = Some(reset_at);
                window.learned = true;
            }
        }
    }

    /// The platform's clock was read after it changed (the local service's clock was sped
    /// up, slowed down or moved forward): it read `platform_now_ms` (Unix milliseconds) no
    /// later than the local instant `read_by`, and runs at `speed` from there. Each window's
    /// reset, known on the platform's clock, is placed again on the local one from this
    /// reading, so the budget keeps its count and learns when it refills; a window whose reset
    /// the clock has already passed starts over full, as the platform's has. Measured from
    /// `read_by`, the latest the reading can have been taken, a reset errs late, the safe side.
    /// A window whose reset is not known yet is assumed to last a full length from then.
    pub fn follow_platform_clock(&mut self, platform_now_ms: i64, read_by: Instant, speed: f64) {
        if speed.is_finite() && speed > 0.0 {
            self.speed = speed;
        }
        self.followed_unix = Some(platform_now_ms.div_euclid(1000));
        for kind in [RateWindow::Minute, RateWindow::Day] {
            let length = self.window(kind).length_secs();
            let full_window = self.to_local(Duration::from_secs(length.unsigned_abs()));
            let window = self.window_mut(kind);
            let Some(reset_unix) = window.reset_unix else {
                if window.reset_at.is_some() {
                    window.reset_at = Some(read_by + full_window);
                }
                continue;
            };
            let mut left_ms = reset_unix.saturating_mul(1000) - platform_now_ms;
            if left_ms <= 0 {
                let periods = (-left_ms).div_euclid(length * 1000) + 1;
                window.reported = window.limit;
                window.reset_unix = Some(reset_unix + length * periods);
                left_ms += length * 1000 * periods;
            }
            let left = Duration::from_millis(left_ms.unsigned_abs())
                .min(Duration::from_secs(length.unsigned_abs()));
            let left_local = self.to_local(left);
            self.window_mut(kind).reset_at = Some(read_by + left_local);
        }
    }

    /// Which window an unnamed `X-RateLimit-*` trio describes: by its limit when that is
    /// unambiguous, else by how far away its reset is.
    fn identify(&self, observation: &Observation) -> RateWindow {
        let by_minute = observation.limit == self.minute.limit;
        let by_day = observation.limit == self.day.limit;
        match (by_minute, by_day) {
            (true, false) => RateWindow::Minute,
            (false, true) => RateWindow::Day,
            _ => match observation.until_reset {
                Some(left) if left > Duration::from_secs(61) => RateWindow::Day,
                Some(_) => RateWindow::Minute,
                None if observation.limit > self.minute.limit => RateWindow::Day,
                None => RateWindow::Minute,
            },
        }
    }

    /// After a 429 for `kind`: nothing is left in it until it resets, or, when the reset is
    /// not known, until `retry_at` (the end of the pause).
    pub fn exhaust(&mut self, kind: RateWindow, retry_at: Instant) {
        let window = self.window_mut(kind);
        window.reported = 0;
        if window.reset_unix.is_none() {
            window.reset_at = Some(retry_at);
        }
    }

    /// Requests of a class that keeps `day_reserve` of the day for interactive work may go
    /// now, or when? `queued`: counted requests waiting in the queue, this one included; when
    /// they all fit in what the binding window has left, there is nothing to pace.
    /// `backlogged`: counted work has waited without a break since `last_send`, so any delay
    /// since the schedule's slot was the scheduler's own (see the catch-up below). `jitter` (at most 1) shortens the even gap a little: the sends then fall
    /// at varied fractions of the platform's second, so the whole-second reset times they
    /// bring back pin the reset down more tightly, and the window's last request leaves
    /// before the reset instead of on it.
    pub fn pace(
        &mut self,
        now: Instant,
        last_send: Option<Instant>,
        queued: u64,
        day_reserve: u64,
        jitter: f64,
        backlogged: bool,
    ) -> Pace {
        self.roll(now);
        let minute_left = self.remaining(RateWindow::Minute);
        let day_left = self.remaining(RateWindow::Day).saturating_sub(day_reserve);
        let minute_reset = self.reset_or_full_window(&self.minute, now);
        let day_reset = self.reset_or_full_window(&self.day, now);
        if minute_left == 0 || day_left == 0 {
            let mut until = now;
            if minute_left == 0 {
                until = until.max(minute_reset);
            }
            if day_left == 0 {
                until = until.max(day_reset);
            }
            return Pace::Wait(until);
        }
        // The binding window, as the platform defines it: fewer left; on a tie, resets first.
        let (left, reset, kind) = if (minute_left, minute_reset) <= (day_left, day_reset) {
            (minute_left, minute_reset, RateWindow::Minute)
        } else {
            (day_left, day_reset, RateWindow::Day)
        };
        // What is queued fits: send it now, once the platform has told us the window (the plan
        // table's numbers are a guess to pace by, not to burst on).
        let learned = if (minute_left, minute_reset) <= (day_left, day_reset) {
            self.minute.learned
        } else {
            self.day.learned
        };
        let Some(last) = last_send.filter(|_| queued > left || !learned) else {
            return Pace::Ready(now);
        };
        // Spread what is left up to a margin before the reset, not up to the reset itself: a
        // request paced to leave just before it (timers late by a tick, a reset known only to
        // within a round trip) lands in the next window, and the unit it leaves unused costs
        // a long job a whole extra window. Past that point what is left goes at once.
        let deadline = if learned {
            let margin = self.end_margin();
            if reset.saturating_duration_since(now) <= margin {
                return Pace::Ready(now);
            }
            reset - margin
        } else {
            reset
        };
        let gap = (deadline.saturating_duration_since(now)
            / u32::try_from(left).unwrap_or(u32::MAX))
        .mul_f64(jitter.clamp(0.0, 1.0));
        let next = last + gap;
        if now >= next {
            // Up to a few gaps behind (a coarse timer) the schedule catches up with back-to-back
            // sends. Further behind, it depends on why. When the queue ran dry meanwhile (idle),
            // the schedule starts afresh from now. When counted work waited all along, the
            // scheduler itself was late: a busy machine wakes it late again and again, and
            // starting afresh each time sent one request per wake-up, left the window's budget
            // unused at its reset and cost a long job a whole extra window (Business at load
            // 10: 87-90 % of the optimum). Then it catches up in full, within one window.
            let late = now.duration_since(next);
            let window = self.to_local(Duration::from_secs(
                self.window(kind).length_secs().unsigned_abs(),
            ));
            let keep_schedule = late < gap * CATCH_UP_GAPS || (backlogged && late < window);
            Pace::Ready(if keep_schedule { next } else { now })
        } else {
            Pace::Wait(next)
        }
    }

    /// How long before a learned window's reset its budget should be spent: the paced
    /// schedule ends here, and what is still left then is sent at once.
    /// [`END_MARGIN_PLATFORM`] of the platform's time, but at least [`END_MARGIN_LOCAL`] of
    /// local time (a very fast platform clock) and at most a tenth of the minute.
    pub fn end_margin(&self) -> Duration {
        self.to_local(END_MARGIN_PLATFORM)
            .max(END_MARGIN_LOCAL)
            .min(self.to_local(Duration::from_secs(6)))
    }

    fn reset_or_full_window(&self, window: &Window, now: Instant) -> Instant {
        window.reset_at.unwrap_or_else(|| {
            now + self.to_local(Duration::from_secs(window.length_secs().unsigned_abs()))
        })
    }

    /// The binding window as the platform would name it, for the meter.
    pub fn binding(&self) -> RateWindow {
        if self.day.reported < self.minute.reported {
            RateWindow::Day
        } else {
            RateWindow::Minute
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain_desk_api::Plan;

    fn pro() -> Budget {
        Budget::new(Plan::Pro.default_limits(), 1.0)
    }

    fn observed(limit: u64, remaining: u64, reset_unix: i64, until_reset: u64) -> Observation {
        Observation {
            window: None,
            limit,
            remaining,
            reset_unix,
            answered_unix: None,
            until_reset: Some(Duration::from_secs(until_reset)),
        }
    }

    /// One request sent and answered with `observation`, as the scheduler does it.
    fn exchange(budget: &mut Budget, observation: Observation, now: Instant) {
        budget.record_send(now);
        budget.record_done();
        budget.observe(observation, now);
    }

    const MINUTE: RateWindow = RateWindow::Minute;
    const DAY: RateWindow = RateWindow::Day;

    #[tokio::test(start_paused = true)]
    async fn in_flight_requests_count_against_the_platforms_remaining() {
        let mut budget = pro();
        let now = Instant::now();
        budget.record_send(now);
        budget.record_send(now);
        budget.record_send(now);
        // The first answer says 299 left; two more are on the wire and not in that number.
        budget.record_done();
        budget.observe(observed(300, 299, 1_000_060, 30), now);
        assert_eq!(budget.remaining(MINUTE), 297);
        assert_eq!(budget.minute.reset_at, Some(now + Duration::from_secs(30)));
        // Their answers arrive: 298 and 297 left, nothing in flight.
        budget.record_done();
        budget.observe(observed(300, 298, 1_000_060, 30), now);
        budget.record_done();
        budget.observe(observed(300, 297, 1_000_060, 30), now);
        assert_eq!(budget.remaining(MINUTE), 297);
    }

    #[tokio::test(start_paused = true)]
    async fn answers_out_of_order_do_not_lose_budget() {
        let mut budget = pro();
        let now = Instant::now();
        budget.record_send(now);
        budget.record_send(now);
        // The platform processed the second first: its answer (298) arrives first, while the
        // first request (already counted in 298) is still on the wire.
        budget.record_done();
        budget.observe(observed(300, 298, 1_000_060, 30), now);
        assert_eq!(budget.remaining(MINUTE), 297, "erring low while unsure");
        budget.record_done();
        budget.observe(observed(300, 299, 1_000_060, 30), now);
        assert_eq!(
            budget.remaining(MINUTE),
            298,
            "exact again once both are answered"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn another_client_on_the_key_lowers_the_estimate() {
        let mut budget = pro();
        let now = Instant::now();
        exchange(&mut budget, observed(300, 299, 1_000_060, 30), now);
        // Someone else sent 50 in between.
        exchange(&mut budget, observed(300, 248, 1_000_060, 30), now);
        assert_eq!(budget.remaining(MINUTE), 248);
    }

    #[tokio::test(start_paused = true)]
    async fn the_trio_is_assigned_to_the_window_it_describes() {
        let mut budget = pro();
        let now = Instant::now();
        exchange(&mut budget, observed(10_000, 5, 2_000_000, 3_600), now);
        assert_eq!(budget.remaining(DAY), 5);
        assert_eq!(
            budget.remaining(MINUTE),
            300,
            "not reported: still the plan's number"
        );
        assert_eq!(budget.binding(), DAY);
        // An Enterprise-like custom limit: neither seeded limit matches, the reset decides.
        let mut custom = pro();
        exchange(&mut custom, observed(777, 700, 1_000_060, 40), now);
        assert_eq!(custom.minute.limit, 777);
        assert_eq!(custom.remaining(MINUTE), 700);
    }

    #[tokio::test(start_paused = true)]
    async fn the_earliest_reset_estimate_wins_within_a_window() {
        let mut budget = pro();
        let start = Instant::now();
        // Whole seconds, rounded up: each answer's estimate is late by up to a second.
        exchange(&mut budget, observed(300, 299, 1_000_060, 31), start);
        tokio::time::advance(Duration::from_millis(500)).await;
        exchange(
            &mut budget,
            observed(300, 298, 1_000_060, 30),
            Instant::now(),
        );
        assert_eq!(
            budget.minute.reset_at,
            Some(start + Duration::from_millis(30_500))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn stale_answers_from_a_rolled_window_are_ignored() {
        let mut budget = pro();
        let start = Instant::now();
        exchange(&mut budget, observed(300, 0, 1_000_060, 1), start);
        budget.record_send(start);
        tokio::time::advance(Duration::from_secs(2)).await;
        budget.roll(Instant::now());
        assert_eq!(budget.minute.reset_unix, Some(1_000_120));
        assert_eq!(
            budget.remaining(MINUTE),
            299,
            "the late request may land here"
        );
        budget.record_done();
        budget.observe(observed(300, 0, 1_000_060, 0), Instant::now());
        assert_eq!(budget.remaining(MINUTE), 300, "it landed in the old window");
    }

    #[tokio::test(start_paused = true)]
    async fn a_platform_clock_set_back_is_followed() {
        let mut budget = pro();
        let now = Instant::now();
        exchange(&mut budget, observed(300, 10, 1_000_060, 30), now);
        // The clock was set back an hour: a fresh window, far "before" the known one.
        exchange(&mut budget, observed(300, 299, 996_460, 20), now);
        assert_eq!(budget.minute.reset_unix, Some(996_460));
        assert_eq!(budget.remaining(MINUTE), 299);
        assert_eq!(budget.minute.reset_at, Some(now + Duration::from_secs(20)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_faster_clock_moves_the_reset_nearer_and_keeps_the_count() {
        let mut budget = pro();
        let now = Instant::now();
        // At real speed: 10 left, the minute resets at 1_000_060, 30 s from now.
        exchange(&mut budget, observed(300, 10, 1_000_060, 30), now);
        // Five seconds later the clock is sped up to 60×; it read 1_000_035 then.
        let read_by = now + Duration::from_secs(5);
        budget.follow_platform_clock(1_000_035_000, read_by, 60.0);
        assert_eq!(budget.remaining(MINUTE), 10);
        assert_eq!(budget.minute.reset_unix, Some(1_000_060));
        // 25 platform seconds left: 25/60 of a second here.
        assert_eq!(
            budget.minute.reset_at,
            Some(read_by + Duration::from_secs(25).div_f64(60.0))
        );
        // Slowed back to real speed a tenth of a second later, at 1_000_041.
        let read_by = read_by + Duration::from_millis(100);
        budget.follow_platform_clock(1_000_041_000, read_by, 1.0);
        assert_eq!(
            budget.minute.reset_at,
            Some(read_by + Duration::from_secs(19))
        );
        // A speed that is not a speed changes nothing but the reading.
        budget.follow_platform_clock(1_000_041_000, read_by, f64::NAN);
        assert_eq!(
            budget.to_local(Duration::from_secs(60)),
            Duration::from_secs(60)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_clock_moved_past_the_reset_refills_the_window() {
        let mut budget = pro();
        let now = Instant::now();
        exchange(&mut budget, observed(300, 10, 1_000_060, 30), now);
        // Moved forward five minutes and a bit: the platform is 35 s into a later minute.
        budget.follow_platform_clock(1_000_335_000, now, 1.0);
        assert_eq!(budget.remaining(MINUTE), 300);
        assert_eq!(budget.minute.reset_unix, Some(1_000_360));
        assert_eq!(budget.minute.reset_at, Some(now + Duration::from_secs(25)));
        // Exactly on a minute's edge the window that starts there is the current one.
        budget.follow_platform_clock(1_003_660_000, now, 1.0);
        assert_eq!(budget.minute.reset_unix, Some(1_003_720));
        assert_eq!(budget.minute.reset_at, Some(now + Duration::from_secs(60)));
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_given_before_the_clock_moved_on_is_not_taken_for_a_clock_set_back() {
        let mut budget = pro();
        let now = Instant::now();
        exchange(&mut budget, observed(300, 10, 1_000_060, 30), now);
        budget.record_send(now);
        // The clock moves on two minutes while that request is on the wire...
        budget.follow_platform_clock(1_000_150_000, now, 1.0);
        assert_eq!(budget.remaining(MINUTE), 299);
        // ...and its answer, dated before the move, comes after it.
        budget.record_done();
        let mut stale = observed(300, 9, 1_000_060, 29);
        stale.answered_unix = Some(1_000_031);
        budget.observe(stale, now);
        assert_eq!(budget.minute.reset_unix, Some(1_000_180));
        assert_eq!(budget.remaining(MINUTE), 300);
        // An answer dated after it is believed, also one that sets the clock back.
        let mut back = observed(300, 42, 999_960, 20);
        back.answered_unix = Some(1_000_150);
        exchange(&mut budget, back, now);
        assert_eq!(budget.minute.reset_unix, Some(999_960));
        assert_eq!(budget.remaining(MINUTE), 42);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reset_not_yet_reported_is_a_full_window_from_the_reading() {
        let mut budget = pro();
        let now = Instant::now();
        budget.record_send(now);
        assert_eq!(budget.day.reset_at, Some(now + Duration::from_secs(86_400)));
        let read_by = now + Duration::from_secs(1);
        budget.follow_platform_clock(1_000_000_000, read_by, 600.0);
        assert_eq!(
            budget.day.reset_at,
            Some(read_by + Duration::from_secs(144))
        );
        assert_eq!(budget.day.reset_unix, None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reset_further_than_the_window_is_long_is_not_believed() {
        let mut budget = pro();
        let now = Instant::now();
        let mut observation = observed(300, 100, 1_000_060, 3_600);
        observation.window = Some(MINUTE);
        exchange(&mut budget, observation, now);
        assert_eq!(budget.minute.reset_at, Some(now + Duration::from_secs(60)));
    }

    #[tokio::test(start_paused = true)]
    async fn pacing_spreads_the_rest_of_the_window_evenly() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        exchange(&mut budget, observed(60, 30, 1_000_060, 30), start);
        // 30 left over the 27 s before the end margin (3 s before the reset): one every 0.9 s.
        assert_eq!(
            budget.pace(start, Some(start), u64::MAX, 0, 1.0, false),
            Pace::Wait(start + Duration::from_millis(900))
        );
        assert_eq!(
            budget.pace(start, None, u64::MAX, 0, 1.0, false),
            Pace::Ready(start)
        );
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(matches!(
            budget.pace(Instant::now(), Some(start), u64::MAX, 0, 1.0, false),
            Pace::Ready(_)
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn work_that_fits_in_the_window_goes_at_once() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        exchange(&mut budget, observed(60, 30, 1_000_060, 30), start);
        // 30 left: 30 queued all go now, 31 are paced.
        assert_eq!(
            budget.pace(start, Some(start), 30, 0, 1.0, false),
            Pace::Ready(start)
        );
        assert_eq!(
            budget.pace(start, Some(start), 31, 0, 1.0, false),
            Pace::Wait(start + Duration::from_millis(900))
        );
        // Nothing left: even one request waits for the reset.
        exchange(&mut budget, observed(60, 0, 1_000_060, 30), start);
        assert_eq!(
            budget.pace(start, Some(start), 1, 0, 1.0, false),
            Pace::Wait(start + Duration::from_secs(30))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_paced_schedule_ends_a_margin_before_the_reset() {
        // Business at 20x: 3 s windows, a margin of 3 platform seconds (150 ms local).
        let mut budget = Budget::new(Plan::Business.default_limits(), 20.0);
        let start = Instant::now();
        exchange(&mut budget, observed(1_000, 100, 1_000_060, 30), start);
        assert_eq!(budget.end_margin(), Duration::from_millis(150));
        // 100 left over the 1.35 s before the margin (the reset is 1.5 s away).
        assert_eq!(
            budget.pace(start, Some(start), u64::MAX, 0, 1.0, false),
            Pace::Wait(start + Duration::from_micros(13_500))
        );
        // Inside the margin whatever is left goes at once, back to back, although the job
        // outlasts the window: paced, the last of it would land after the reset.
        tokio::time::advance(Duration::from_millis(1_360)).await;
        let late = Instant::now();
        assert_eq!(
            budget.pace(late, Some(late), u64::MAX, 0, 1.0, false),
            Pace::Ready(late)
        );
        // A very fast platform clock still leaves a few timer ticks.
        assert_eq!(
            Budget::new(Plan::Business.default_limits(), 600.0).end_margin(),
            Duration::from_millis(10)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_late_scheduler_with_a_backlog_catches_up_in_full_an_idle_one_starts_afresh() {
        // Business at 20x: 100 left over the 1.35 s before the end margin.
        let mut budget = Budget::new(Plan::Business.default_limits(), 20.0);
        let start = Instant::now();
        exchange(&mut budget, observed(1_000, 100, 1_000_060, 30), start);
        // Woken 148 ms after the last send (a busy machine), over ten gaps late: the gap is
        // now the 1.202 s left before the margin over the 100 left, 12.02 ms.
        tokio::time::advance(Duration::from_millis(148)).await;
        let late = Instant::now();
        // With work waiting all along, the schedule is kept, so the sends that follow go
        // back to back until it has caught up...
        assert_eq!(
            budget.pace(late, Some(start), u64::MAX, 0, 1.0, true),
            Pace::Ready(start + Duration::from_micros(12_020))
        );
        // ... while after a queue that ran dry the same delay was idleness: start from now.
        assert_eq!(
            budget.pace(late, Some(start), u64::MAX, 0, 1.0, false),
            Pace::Ready(late)
        );
        // Late by more than a whole window, even a backlog starts afresh.
        tokio::time::advance(Duration::from_secs(4)).await;
        let much_later = Instant::now();
        exchange(&mut budget, observed(1_000, 100, 1_000_120, 30), much_later);
        assert_eq!(
            budget.pace(much_later, Some(start), u64::MAX, 0, 1.0, true),
            Pace::Ready(much_later)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_exhausted_window_waits_for_its_reset_then_rolls_over() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        exchange(&mut budget, observed(60, 0, 1_000_060, 12), start);
        let reset = start + Duration::from_secs(12);
        assert_eq!(
            budget.pace(start, Some(start), u64::MAX, 0, 1.0, false),
            Pace::Wait(reset)
        );
        tokio::time::advance(Duration::from_secs(12)).await;
        assert!(matches!(
            budget.pace(Instant::now(), Some(start), u64::MAX, 0, 1.0, false),
            Pace::Ready(_)
        ));
        assert_eq!(budget.remaining(MINUTE), 60);
        assert_eq!(
            budget.minute.reset_at,
            Some(reset + Duration::from_secs(60))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_window_without_a_reported_reset_gets_a_provisional_one() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        budget.record_send(start);
        budget.record_done();
        budget.exhaust(MINUTE, start + Duration::from_secs(5));
        assert_eq!(
            budget.pace(start, Some(start), u64::MAX, 0, 1.0, false),
            Pace::Wait(start + Duration::from_secs(5))
        );
        tokio::time::advance(Duration::from_secs(5)).await;
        assert!(matches!(
            budget.pace(Instant::now(), Some(start), u64::MAX, 0, 1.0, false),
            Pace::Ready(_)
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn the_day_reserve_holds_back_background_work_only() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        exchange(&mut budget, observed(1_000, 40, 2_000_000, 5_000), start);
        let day_reset = start + Duration::from_secs(5_000);
        assert_eq!(
            budget.pace(start, None, u64::MAX, 50, 1.0, false),
            Pace::Wait(day_reset)
        );
        assert_eq!(
            budget.pace(start, None, u64::MAX, 0, 1.0, false),
            Pace::Ready(start)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_fast_platform_clock_shrinks_local_waits() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 60.0);
        let start = Instant::now();
        exchange(&mut budget, observed(60, 0, 1_000_060, 30), start);
        assert_eq!(
            budget.pace(start, Some(start), u64::MAX, 0, 1.0, false),
            Pace::Wait(start + Duration::from_millis(500))
        );
    }
}
