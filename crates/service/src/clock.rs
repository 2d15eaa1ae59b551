//! The service's virtual clock: every timing in the local service (rate-limit windows, bans,
//! idempotency expiry, DNS propagation, certificate issuance and deadlines) reads it.
//!
//! A demo or a test can freeze it (speed 0), run it fast (speed 60 makes a minute pass in a
//! second), set it to any instant, or advance it by a number of seconds. Background tasks that
//! wait for a virtual instant use [`Clock::sleep_until`], which wakes when the instant is
//! reached or when the clock is changed, so nothing waits on the wall clock.
//!
//! Real time between readings is measured with `tokio::time::Instant`, so tests that pause
//! tokio's time also control a running clock.

use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::{Error, Result};

/// The fastest speed accepted: a year passes in about half a minute.
pub const MAX_SPEED: f64 = 1_000_000.0;

/// A shared, cheaply cloneable virtual clock.
#[derive(Clone)]
pub struct Clock {
    inner: Arc<Inner>,
}

struct Inner {
    anchor: Mutex<Anchor>,
    /// Bumped on every `set` and `advance`, so waiters re-read the clock.
    changes: watch::Sender<u64>,
}

/// The virtual time at one real instant, and how fast virtual time runs from there.
#[derive(Clone, Copy)]
struct Anchor {
    virtual_at: DateTime<Utc>,
    real_at: Instant,
    speed: f64,
}

impl Anchor {
    fn now(&self) -> DateTime<Utc> {
        if self.speed == 0.0 {
            return self.virtual_at;
        }
        let real = self.real_at.elapsed().as_secs_f64();
        self.virtual_at
            .checked_add_signed(seconds(real * self.speed))
            .map_or(latest(), |now| now.min(latest()))
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("now", &self.now())
            .field("speed", &self.speed())
            .finish()
    }
}

impl Default for Clock {
    fn default() -> Self {
        Self::real_time()
    }
}

impl Clock {
    /// A clock that starts at the wall clock's time and runs at real speed.
    pub fn real_time() -> Self {
        Self::starting_at(Utc::now(), 1.0)
    }

    /// A clock frozen at `now` (speed 0): it moves only when set or advanced.
    pub fn frozen_at(now: DateTime<Utc>) -> Self {
        Self::starting_at(now, 0.0)
    }

    /// A clock at `now` running at `speed`; an invalid speed is taken as 1.
    pub fn starting_at(now: DateTime<Utc>, speed: f64) -> Self {
        let speed = if valid_speed(speed) { speed } else { 1.0 };
        let (changes, _) = watch::channel(0);
        Self {
            inner: Arc::new(Inner {
                anchor: Mutex::new(Anchor {
                    virtual_at: now,
                    real_at: Instant::now(),
                    speed,
                }),
                changes,
            }),
        }
    }

    fn anchor(&self) -> Anchor {
        // A poisoned lock only means another thread panicked between two plain field writes;
        // the anchor is still a consistent Copy value, so reading it on is sound.
        *self
            .inner
            .anchor
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The current virtual time.
    pub fn now(&self) -> DateTime<Utc> {
        self.anchor().now()
    }

    /// How many virtual seconds pass per real second (0 = frozen).
    pub fn speed(&self) -> f64 {
        self.anchor().speed
    }

    /// Sets the virtual time and speed. Refuses a negative, non-finite or absurd speed, and a
    /// time before 1970 or after 9999.
    pub fn set(&self, now: DateTime<Utc>, speed: f64) -> Result<()> {
        if !valid_speed(speed) {
            return Err(Error::InvalidClock(format!(
                "speed must be a number from 0 to {MAX_SPEED}"
            )));
        }
        if now < DateTime::UNIX_EPOCH || now > latest() {
            return Err(Error::InvalidClock(
                "now must be between 1970-01-01 and 9999-12-31".into(),
            ));
        }
        self.replace(|_| Anchor {
            virtual_at: now,
            real_at: Instant::now(),
            speed,
        });
        Ok(())
    }

    /// Sets the speed, keeping the current virtual time.
    pub fn set_speed(&self, speed: f64) -> Result<()> {
        self.set(self.now(), speed)
    }

    /// Moves the clock forward by `by`. Refuses to move it backwards.
    pub fn advance(&self, by: TimeDelta) -> Result<()> {
        if by < TimeDelta::zero() {
            return Err(Error::InvalidClock(
                "the clock can only be advanced forwards; set it to go back".into(),
            ));
        }
        let mut too_far = false;
        self.replace(|anchor| {
            let now = anchor.now();
            let virtual_at = match now.checked_add_signed(by) {
                Some(next) if next <= latest() => next,
                _ => {
                    too_far = true;
                    now
                }
            };
            Anchor {
                virtual_at,
                real_at: Instant::now(),
                speed: anchor.speed,
            }
        });
        if too_far {
            return Err(Error::InvalidClock(
                "the clock cannot go past 9999-12-31".into(),
            ));
        }
        Ok(())
    }

    /// Moves the clock forward by a number of (possibly fractional) seconds.
    pub fn advance_seconds(&self, secs: f64) -> Result<()> {
        if !secs.is_finite() || !(0.0..=MAX_ADVANCE_SECONDS).contains(&secs) {
            return Err(Error::InvalidClock(format!(
                "seconds must be a number from 0 to {MAX_ADVANCE_SECONDS}"
            )));
        }
        self.advance(seconds(secs))
    }

    fn replace(&self, next: impl FnOnce(&Anchor) -> Anchor) {
        {
            let mut anchor = self
                .inner
                .anchor
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *anchor = next(&anchor);
        }
        self.inner
            .changes
            .send_modify(|generation| *generation += 1);
    }

    /// A receiver that changes whenever the clock is set or advanced (not as it merely runs).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Waits until the virtual time reaches `deadline`, following every change of speed or
    /// time on the way. Returns at once if the deadline has passed.
    pub async fn sleep_until(&self, deadline: DateTime<Utc>) {
        let mut changes = self.subscribe();
        loop {
            let anchor = self.anchor();
            let now = anchor.now();
            if now >= deadline {
                return;
            }
            if anchor.speed == 0.0 {
                if changes.changed().await.is_err() {
                    return;
                }
                continue;
            }
            let virtual_left = (deadline - now).as_seconds_f64();
            let real_left = std::time::Duration::from_secs_f64(
                (virtual_left / anchor.speed).clamp(0.0, MAX_REAL_WAIT_SECONDS),
            );
            tokio::select! {
                _ = tokio::time::sleep(real_left) => {}
                changed = changes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
            }
        }
    }

    /// Waits for `duration` of virtual time.
    pub async fn sleep(&self, duration: TimeDelta) {
        let deadline = self.now() + duration;
        self.sleep_until(deadline).await;
    }
}

/// At most ten years in one advance.
pub const MAX_ADVANCE_SECONDS: f64 = 10.0 * 366.0 * 86_400.0;

/// A real wait is cut into pieces of at most a day, so rounding never oversleeps for long.
const MAX_REAL_WAIT_SECONDS: f64 = 86_400.0;

/// The latest instant the clock shows, far enough from chrono's limit that adding any of the
/// service's durations (at most years) cannot overflow.
pub fn latest() -> DateTime<Utc> {
    DateTime::from_timestamp(253_402_300_799, 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

fn valid_speed(speed: f64) -> bool {
    speed.is_finite() && (0.0..=MAX_SPEED).contains(&speed)
}

/// A `TimeDelta` of fractional seconds, to the microsecond.
pub fn seconds(secs: f64) -> TimeDelta {
    TimeDelta::microseconds((secs * 1_000_000.0).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn frozen_clock_moves_only_when_advanced() {
        let clock = Clock::frozen_at(at("2026-01-01T00:00:00Z"));
        assert_eq!(clock.now(), at("2026-01-01T00:00:00Z"));
        clock.advance_seconds(90.5).unwrap();
        assert_eq!(clock.now(), at("2026-01-01T00:01:30.5Z"));
        assert_eq!(clock.speed(), 0.0);
    }

    #[test]
    fn refuses_bad_speeds_and_backward_advances() {
        let clock = Clock::frozen_at(at("2026-01-01T00:00:00Z"));
        assert!(clock.set(clock.now(), -1.0).is_err());
        assert!(clock.set(clock.now(), f64::NAN).is_err());
        assert!(clock.set(clock.now(), f64::INFINITY).is_err());
        assert!(clock.advance_seconds(-5.0).is_err());
        assert!(clock.advance_seconds(f64::NAN).is_err());
        assert_eq!(clock.now(), at("2026-01-01T00:00:00Z"));
        assert!(clock.set(at("1969-12-31T23:59:59Z"), 1.0).is_err());
        assert!(clock.set(at("+10000-01-01T00:00:00Z"), 1.0).is_err());
        clock.set(at("9999-12-31T00:00:00Z"), 0.0).unwrap();
        assert!(clock.advance_seconds(2.0 * 86_400.0).is_err());
        assert_eq!(clock.now(), at("9999-12-31T00:00:00Z"));
    }

    #[tokio::test(start_paused = true)]
    async fn speed_scales_real_time() {
        let clock = Clock::starting_at(at("2026-01-01T00:00:00Z"), 60.0);
        tokio::time::advance(std::time::Duration::from_secs(2)).await;
        assert_eq!(clock.now(), at("2026-01-01T00:02:00Z"));
    }

    #[tokio::test(start_paused = true)]
    async fn subscribers_see_set_and_advance() {
        let clock = Clock::frozen_at(at("2026-01-01T00:00:00Z"));
        let mut changes = clock.subscribe();
        clock.advance_seconds(1.0).unwrap();
        assert!(changes.has_changed().unwrap());
        changes.mark_unchanged();
        clock.set(at("2027-01-01T00:00:00Z"), 0.0).unwrap();
        assert!(changes.has_changed().unwrap());
    }

    #[tokio::test(start_paused = true)]
    async fn sleep_until_wakes_on_advance_of_a_frozen_clock() {
        let clock = Clock::frozen_at(at("2026-01-01T00:00:00Z"));
        let waiter = {
            let clock = clock.clone();
            tokio::spawn(async move {
                clock.sleep_until(at("2026-01-01T00:30:00Z")).await;
                clock.now()
            })
        };
        tokio::task::yield_now().await;
        clock.advance_seconds(600.0).unwrap();
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        clock.advance_seconds(1200.0).unwrap();
        assert_eq!(waiter.await.unwrap(), at("2026-01-01T00:30:00Z"));
    }

    #[tokio::test(start_paused = true)]
    async fn sleep_until_follows_a_running_clock() {
        let clock = Clock::starting_at(at("2026-01-01T00:00:00Z"), 60.0);
        // 30 virtual minutes at speed 60 take 30 real seconds (paused time auto-advances).
        clock.sleep_until(at("2026-01-01T00:30:00Z")).await;
        assert!(clock.now() >= at("2026-01-01T00:30:00Z"));
        assert!(clock.now() < at("2026-01-01T00:30:01Z"));
    }
}
