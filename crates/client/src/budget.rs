//! What the key may still send, per window, as this client knows it.
//!
//! The platform counts two fixed windows per key (the minute and the UTC day) and reports in
//! each response only the one that binds. This module keeps an estimate for both: seeded from
//! the plan table, decremented on every send (so requests in flight already count), corrected
//! by each answer, and rolled over locally when a window's reset passes. Reset times arrive as
//! Unix timestamps on the platform's clock; they are turned into local instants by measuring
//! from the response's own `Date` header, so a skewed (or sped-up) platform clock does not
//! matter. All estimates err on the side of "less left, later reset": a too-early rollover
//! would be a 429.
//!
//! Pacing lives here too: the binding window's remaining budget is spread evenly up to its
//! reset instead of being burst and then waited out.

use std::time::Duration;

use domain_desk_api::{Limits, RateWindow};
use tokio::time::Instant;

/// Whether the next counted request may go now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    Ready,
    /// Not before this instant (the pacing gap, or a window's reset when it is used up).
    Wait(Instant),
}

/// One window's estimate.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    pub kind: RateWindow,
    pub limit: u64,
    /// Admissions left for this client: the platform's last word minus everything sent since.
    pub remaining: u64,
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
            remaining: limit,
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
    /// Counted requests sent so far; a request's sequence number is this count after it.
    sends: u64,
    /// Counted requests sent and not yet answered.
    in_flight: u64,
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
            sends: 0,
            in_flight: 0,
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

    pub fn sends(&self) -> u64 {
        self.sends
    }

    /// Starts the next window for every window whose reset has passed. Requests still in
    /// flight may land in the new window, so they are counted against it. A window whose
    /// reset was only provisional (never reported by the platform) starts over unknown.
    pub fn roll(&mut self, now: Instant) {
        let in_flight = self.in_flight;
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
            window.remaining = window.limit.saturating_sub(in_flight);
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

    /// Counts a request as it leaves; returns its sequence number.
    pub fn record_send(&mut self, now: Instant) -> u64 {
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
        self.sends += 1;
        self.in_flight += 1;
        self.minute.remaining = self.minute.remaining.saturating_sub(1);
        self.day.remaining = self.day.remaining.saturating_sub(1);
        self.sends
    }

    /// A counted request got its answer (or gave up).
    pub fn record_done(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// Folds in what a response said. `seq` is the request's sequence number (for an
    /// uncounted request, the count of sends before it); everything sent after it is not in
    /// the platform's `remaining` yet and is subtracted.
    pub fn observe(&mut self, observation: Observation, seq: u64, received: Instant) {
        let kind = observation
            .window
            .unwrap_or_else(|| self.identify(&observation));
        let sent_after = self.sends.saturating_sub(seq);
        let until_reset_local = self.to_local(observation.until_reset.unwrap_or_else(|| {
            Duration::from_secs(self.window(kind).length_secs().unsigned_abs())
        }));
        let reset_at = received + until_reset_local;
        let remaining = observation.remaining.saturating_sub(sent_after);
        let window = self.window_mut(kind);
        match window.reset_unix {
            Some(known) if observation.reset_unix < known => {
                // An answer from a window this client has already rolled past.
            }
            Some(known) if observation.reset_unix == known => {
                window.limit = observation.limit;
                window.remaining = window.remaining.min(remaining);
                window.reset_at = Some(window.reset_at.map_or(reset_at, |at| at.min(reset_at)));
                window.learned = true;
            }
            _ => {
                window.limit = observation.limit;
                window.remaining = remaining;
                window.reset_unix = Some(observation.reset_unix);
                window.reset_at = Some(reset_at);
                window.learned = true;
            }
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
        window.remaining = 0;
        if window.reset_unix.is_none() {
            window.reset_at = Some(retry_at);
        }
    }

    /// Requests of a class that keeps `day_reserve` of the day for interactive work may go
    /// now, or when?
    pub fn pace(&mut self, now: Instant, last_send: Option<Instant>, day_reserve: u64) -> Pace {
        self.roll(now);
        let minute_left = self.minute.remaining;
        let day_left = self.day.remaining.saturating_sub(day_reserve);
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
        let (left, reset) = if (minute_left, minute_reset) <= (day_left, day_reset) {
            (minute_left, minute_reset)
        } else {
            (day_left, day_reset)
        };
        let Some(last) = last_send else {
            return Pace::Ready;
        };
        let gap = reset.saturating_duration_since(now) / u32::try_from(left).unwrap_or(u32::MAX);
        let next = last + gap;
        if now >= next {
            Pace::Ready
        } else {
            Pace::Wait(next)
        }
    }

    fn reset_or_full_window(&self, window: &Window, now: Instant) -> Instant {
        window.reset_at.unwrap_or_else(|| {
            now + self.to_local(Duration::from_secs(window.length_secs().unsigned_abs()))
        })
    }

    /// The binding window as the platform would name it, for the meter.
    pub fn binding(&self) -> RateWindow {
        if self.day.remaining < self.minute.remaining {
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
            until_reset: Some(Duration::from_secs(until_reset)),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn in_flight_requests_count_against_the_platforms_remaining() {
        let mut budget = pro();
        let now = Instant::now();
        let first = budget.record_send(now);
        budget.record_send(now);
        budget.record_send(now);
        // The first answer says 299 left; two more left after it and are not in that number.
        budget.observe(observed(300, 299, 1_000_060, 30), first, now);
        assert_eq!(budget.minute.remaining, 297);
        assert_eq!(budget.minute.reset_at, Some(now + Duration::from_secs(30)));
    }

    #[tokio::test(start_paused = true)]
    async fn another_client_on_the_key_lowers_the_estimate() {
        let mut budget = pro();
        let now = Instant::now();
        let seq = budget.record_send(now);
        budget.observe(observed(300, 299, 1_000_060, 30), seq, now);
        let seq = budget.record_send(now);
        // Someone else sent 50 in between.
        budget.observe(observed(300, 248, 1_000_060, 30), seq, now);
        assert_eq!(budget.minute.remaining, 248);
    }

    #[tokio::test(start_paused = true)]
    async fn the_trio_is_assigned_to_the_window_it_describes() {
        let mut budget = pro();
        let now = Instant::now();
        let seq = budget.record_send(now);
        budget.observe(observed(10_000, 5, 2_000_000, 3_600), seq, now);
        assert_eq!(budget.day.remaining, 5);
        assert_eq!(budget.minute.remaining, 299);
        assert_eq!(budget.binding(), RateWindow::Day);
        // An Enterprise-like custom limit: neither seeded limit matches, the reset decides.
        let mut custom = pro();
        let seq = custom.record_send(now);
        custom.observe(observed(777, 700, 1_000_060, 40), seq, now);
        assert_eq!(custom.minute.limit, 777);
        assert_eq!(custom.minute.remaining, 700);
    }

    #[tokio::test(start_paused = true)]
    async fn the_earliest_reset_estimate_wins_within_a_window() {
        let mut budget = pro();
        let start = Instant::now();
        let seq = budget.record_send(start);
        // Date has whole seconds, so each answer's estimate is late by up to a second.
        budget.observe(observed(300, 299, 1_000_060, 31), seq, start);
        tokio::time::advance(Duration::from_millis(500)).await;
        let seq = budget.record_send(Instant::now());
        budget.observe(observed(300, 298, 1_000_060, 30), seq, Instant::now());
        assert_eq!(
            budget.minute.reset_at,
            Some(start + Duration::from_millis(30_500))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn stale_answers_from_a_rolled_window_are_ignored() {
        let mut budget = pro();
        let start = Instant::now();
        let seq = budget.record_send(start);
        budget.record_done();
        budget.observe(observed(300, 0, 1_000_060, 1), seq, start);
        let late_seq = budget.record_send(start);
        tokio::time::advance(Duration::from_secs(2)).await;
        budget.roll(Instant::now());
        assert_eq!(budget.minute.reset_unix, Some(1_000_120));
        assert_eq!(
            budget.minute.remaining, 299,
            "the late request may land here"
        );
        budget.record_done();
        budget.observe(observed(300, 0, 1_000_060, 0), late_seq, Instant::now());
        assert_eq!(budget.minute.remaining, 299);
    }

    #[tokio::test(start_paused = true)]
    async fn pacing_spreads_the_rest_of_the_window_evenly() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        let seq = budget.record_send(start);
        budget.observe(observed(60, 30, 1_000_060, 30), seq, start);
        // 30 left over 30 s: one a second.
        assert_eq!(
            budget.pace(start, Some(start), 0),
            Pace::Wait(start + Duration::from_secs(1))
        );
        assert_eq!(budget.pace(start, None, 0), Pace::Ready);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(budget.pace(Instant::now(), Some(start), 0), Pace::Ready);
    }

    #[tokio::test(start_paused = true)]
    async fn an_exhausted_window_waits_for_its_reset_then_rolls_over() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        let seq = budget.record_send(start);
        budget.record_done();
        budget.observe(observed(60, 0, 1_000_060, 12), seq, start);
        let reset = start + Duration::from_secs(12);
        assert_eq!(budget.pace(start, Some(start), 0), Pace::Wait(reset));
        tokio::time::advance(Duration::from_secs(12)).await;
        assert_eq!(budget.pace(Instant::now(), Some(start), 0), Pace::Ready);
        assert_eq!(budget.minute.remaining, 60);
        assert_eq!(
            budget.minute.reset_at,
            Some(reset + Duration::from_secs(60))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_day_reserve_holds_back_background_work_only() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 1.0);
        let start = Instant::now();
        let seq = budget.record_send(start);
        budget.observe(observed(1_000, 40, 2_000_000, 5_000), seq, start);
        let day_reset = start + Duration::from_secs(5_000);
        assert_eq!(budget.pace(start, None, 50), Pace::Wait(day_reset));
        assert_eq!(budget.pace(start, None, 0), Pace::Ready);
    }

    #[tokio::test(start_paused = true)]
    async fn a_fast_platform_clock_shrinks_local_waits() {
        let mut budget = Budget::new(Plan::Free.default_limits(), 60.0);
        let start = Instant::now();
        let seq = budget.record_send(start);
        budget.observe(observed(60, 0, 1_000_060, 30), seq, start);
        assert_eq!(
            budget.pace(start, Some(start), 0),
            Pace::Wait(start + Duration::from_millis(500))
        );
    }
}
