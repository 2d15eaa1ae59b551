//! When N more requests can all have been sent: from the key's windows, not from the last few
//! seconds' rate. [`crate::Client::wait_for`] asks it of the queue's picture of the key (the
//! command line's `--no-wait`, a bulk import's ETA).
//!
//! The platform counts requests in windows aligned to its clock's minute and day. The earliest
//! the remaining requests can all be sent is found by walking those windows: spend what is
//! left of the current minute (and day), then a full minute's worth at each minute boundary,
//! and a new day's worth at each day boundary. A rate measured over the last seconds would
//! promise a Free import of 1,000 rows in a few seconds and then stall at the first window.

use std::time::Duration;

use crate::state::QueueState;

/// What the walk needs to know about the key's budget, in the local clock's seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowBudget {
    pub minute_limit: u64,
    pub minute_remaining: u64,
    /// Unix seconds (local clock) at which the minute window resets.
    pub minute_reset: f64,
    pub day_limit: u64,
    pub day_remaining: u64,
    pub day_reset: f64,
    /// Platform seconds per local second (the local service may run its clock fast).
    pub clock_speed: f64,
}

impl WindowBudget {
    /// The queue's picture of the key, with windows the platform has not reported yet taken to
    /// start now.
    pub fn from_queue(state: &QueueState, now: f64, clock_speed: f64) -> Self {
        let speed = if clock_speed > 0.0 { clock_speed } else { 1.0 };
        let reset = |reset: Option<i64>, length: f64| {
            reset
                .map(|r| r as f64)
                .filter(|r| *r > now)
                .unwrap_or(now + length / speed)
        };
        Self {
            minute_limit: state.minute.limit,
            minute_remaining: state.minute.remaining,
            minute_reset: reset(state.minute.reset, 60.0),
            day_limit: state.day.limit,
            day_remaining: state.day.remaining,
            day_reset: reset(state.day.reset, 86_400.0),
            clock_speed: speed,
        }
    }

    /// The earliest time after `now` by which `requests` more can have been sent.
    pub fn earliest_done(&self, requests: u64, now: f64) -> Duration {
        let minute = 60.0 / self.clock_speed;
        let day = 86_400.0 / self.clock_speed;
        if self.minute_limit == 0 || self.day_limit == 0 {
            return Duration::MAX;
        }
        let mut at = now;
        let mut left = requests;
        let mut in_minute = self.minute_remaining;
        let mut in_day = self.day_remaining;
        let mut minute_reset = self.minute_reset.max(now);
        let mut day_reset = self.day_reset.max(now);
        // Each pass ends a minute or a day; bounded so a nonsense budget cannot spin.
        for _ in 0..10_000_000u32 {
            let now_sent = left.min(in_minute).min(in_day);
            left -= now_sent;
            in_minute -= now_sent;
            in_day -= now_sent;
            if left == 0 {
                return Duration::from_secs_f64((at - now).max(0.0));
            }
            if in_day == 0 && day_reset <= minute_reset {
                at = day_reset;
                day_reset += day;
                in_day = self.day_limit;
                minute_reset = at + minute;
                in_minute = self.minute_limit;
            } else if in_day == 0 {
                // The minute turns over but the day has nothing left: jump to the day.
                minute_reset = day_reset;
            } else {
                at = minute_reset;
                minute_reset += minute;
                in_minute = self.minute_limit;
                if at >= day_reset {
                    day_reset += day;
                    in_day = self.day_limit;
                }
            }
        }
        Duration::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(minute_remaining: u64, day_remaining: u64) -> WindowBudget {
        WindowBudget {
            minute_limit: 60,
            minute_remaining,
            minute_reset: 30.0,
            day_limit: 1_000,
            day_remaining,
            day_reset: 50_000.0,
            clock_speed: 1.0,
        }
    }

    #[test]
    fn within_the_current_minute_is_now() {
        assert_eq!(budget(60, 1_000).earliest_done(60, 0.0), Duration::ZERO);
    }

    #[test]
    fn each_further_minute_starts_at_a_boundary() {
        // 60 now, 60 at t=30, 60 at t=90, the last 20 at t=150.
        assert_eq!(
            budget(60, 1_000).earliest_done(200, 0.0),
            Duration::from_secs(150)
        );
        // Half a window left: 30 now, then 60 per minute from t=30.
        assert_eq!(
            budget(30, 1_000).earliest_done(91, 0.0),
            Duration::from_secs(30 + 60)
        );
    }

    #[test]
    fn an_exhausted_day_waits_for_the_day_boundary() {
        // 10 left today: they go now, the other 5 when the day turns over at t=50,000.
        assert_eq!(
            budget(60, 10).earliest_done(15, 0.0),
            Duration::from_secs(50_000)
        );
    }

    #[test]
    fn a_fast_platform_clock_shortens_the_windows() {
        let mut fast = budget(0, 1_000);
        fast.clock_speed = 20.0;
        fast.minute_reset = 1.0;
        // 0 now; 60 at t=1, 60 at t=4, the last 30 at t=7.
        assert_eq!(fast.earliest_done(150, 0.0), Duration::from_secs(7));
    }

    #[test]
    fn no_limit_means_never() {
        let mut none = budget(0, 0);
        none.minute_limit = 0;
        assert_eq!(none.earliest_done(1, 0.0), Duration::MAX);
    }
}
