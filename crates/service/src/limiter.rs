//! The rate limiter: two fixed windows per API key (the clock's minute and the UTC day), both
//! must have room, and a ban for keys that keep sending while limited.
//!
//! All decisions for all keys go through one mutex, so admission is exact under any
//! concurrency: a window never admits more than its limit. A rejected request consumes
//! nothing. Everything is read from the virtual [`Clock`](crate::Clock)'s time passed in.
//!
//! The window counters live in memory (a restart gives every key fresh windows); bans are also
//! written to the database by the caller so they survive a restart.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::{Limits, RateWindow, WindowStatus};

const MINUTE: i64 = 60;
const DAY: i64 = 86_400;

/// How the ban works: more than `threshold` requests while limited bans for `duration`.
#[derive(Debug, Clone, Copy)]
pub struct BanPolicy {
    pub threshold: u32,
    pub duration: TimeDelta,
}

/// Both windows of one key at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    pub minute: WindowStatus,
    pub day: WindowStatus,
}

impl Snapshot {
    /// The window the headers describe: fewer remaining; on a tie, the one resetting first.
    pub fn binding(&self) -> (RateWindow, WindowStatus) {
        let minute = (RateWindow::Minute, self.minute);
        let day = (RateWindow::Day, self.day);
        if self.minute.remaining != self.day.remaining {
            if self.minute.remaining < self.day.remaining {
                minute
            } else {
                day
            }
        } else if self.day.reset < self.minute.reset {
            day
        } else {
            minute
        }
    }
}

/// The limiter's answer for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Admitted; the snapshot is after this request consumed its unit.
    Admitted(Snapshot),
    /// `429`: no room. `retry_after` is whole seconds (rounded up) until a request will be
    /// admitted; `window` is the exhausted window that keeps the key waiting longest.
    Limited {
        snapshot: Snapshot,
        retry_after: u64,
        window: RateWindow,
    },
    /// `403 key_banned`. `newly` is true for the request that caused the ban.
    Banned {
        snapshot: Snapshot,
        until: DateTime<Utc>,
        retry_after: u64,
        newly: bool,
    },
}

#[derive(Debug, Default, Clone)]
struct KeyState {
    minute_index: i64,
    minute_used: u64,
    day_index: i64,
    day_used: u64,
    /// Set by a 429: until this instant, requests count towards the ban.
    limited_until: Option<DateTime<Utc>>,
    requests_while_limited: u32,
    banned_until: Option<DateTime<Utc>>,
}

impl KeyState {
    /// Starts new windows when `now` has left the stored ones (also when the clock was set
    /// back), and forgets a ban or a limited period that is over.
    fn roll(&mut self, now: DateTime<Utc>) {
        let (minute_index, day_index) = indices(now);
        if minute_index != self.minute_index {
            self.minute_index = minute_index;
            self.minute_used = 0;
        }
        if day_index != self.day_index {
            self.day_index = day_index;
            self.day_used = 0;
        }
        if self.banned_until.is_some_and(|until| now >= until) {
            self.banned_until = None;
        }
        if self.limited_until.is_some_and(|until| now >= until) {
            self.limited_until = None;
            self.requests_while_limited = 0;
        }
    }

    fn snapshot(&self, limits: &Limits) -> Snapshot {
        Snapshot {
            minute: WindowStatus {
                limit: limits.per_minute,
                remaining: limits.per_minute.saturating_sub(self.minute_used),
                reset: (self.minute_index + 1) * MINUTE,
            },
            day: WindowStatus {
                limit: limits.per_day,
                remaining: limits.per_day.saturating_sub(self.day_used),
                reset: (self.day_index + 1) * DAY,
            },
        }
    }
}

fn indices(now: DateTime<Utc>) -> (i64, i64) {
    let secs = now.timestamp();
    (secs.div_euclid(MINUTE), secs.div_euclid(DAY))
}

/// Whole seconds from `now` until the Unix time `at`, rounded up, at least 1.
pub fn seconds_until(now: DateTime<Utc>, at: DateTime<Utc>) -> u64 {
    let micros = (at - now).num_microseconds().unwrap_or(i64::MAX);
    let secs = micros.div_euclid(1_000_000) + i64::from(micros.rem_euclid(1_000_000) != 0);
    u64::try_from(secs.max(1)).unwrap_or(1)
}

fn unix(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

#[derive(Debug)]
pub struct RateLimiter {
    policy: BanPolicy,
    keys: Mutex<HashMap<String, KeyState>>,
}

impl RateLimiter {
    pub fn new(policy: BanPolicy) -> Self {
        Self {
            policy,
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Runs `f` on `key`'s state at the time `clock` reads while the lock is held, and returns
    /// that time with the result.
    fn with_key<T>(
        &self,
        key: &str,
        clock: impl FnOnce() -> DateTime<Utc>,
        f: impl FnOnce(&mut KeyState, DateTime<Utc>) -> T,
    ) -> (T, DateTime<Utc>) {
        // The map holds plain counters; a panic elsewhere cannot leave it half-updated in a
        // way that matters more than a lost count, so a poisoned lock is used as is.
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        let now = clock();
        let state = keys.entry(key.to_owned()).or_default();
        state.roll(now);
        (f(state, now), now)
    }

    /// Decides one counted request: admit (consuming one unit of both windows), limit, or ban.
    pub fn admit(&self, key: &str, limits: &Limits, now: DateTime<Utc>) -> Admission {
        self.admit_now(key, limits, || now).0
    }

    /// [`admit`](Self::admit) at the time `clock` reads inside the limiter's lock; returns
    /// that time too. Requests are then decided in the clock's order: one that read the
    /// clock before a window's edge can never be decided after one that read it past the
    /// edge, which would start the old window again from zero and admit more than the limit.
    pub fn admit_now(
        &self,
        key: &str,
        limits: &Limits,
        clock: impl FnOnce() -> DateTime<Utc>,
    ) -> (Admission, DateTime<Utc>) {
        let policy = self.policy;
        self.with_key(key, clock, |state, now| {
            if let Some(until) = state.banned_until {
                return Admission::Banned {
                    snapshot: state.snapshot(limits),
                    until,
                    retry_after: seconds_until(now, until),
                    newly: false,
                };
            }
            let minute_room = state.minute_used < limits.per_minute;
            let day_room = state.day_used < limits.per_day;
            if minute_room && day_room {
                state.minute_used += 1;
                state.day_used += 1;
                return Admission::Admitted(state.snapshot(limits));
            }
            let snapshot = state.snapshot(limits);
            if state.limited_until.is_some() {
                state.requests_while_limited += 1;
                if state.requests_while_limited > policy.threshold {
                    let until = now + policy.duration;
                    state.banned_until = Some(until);
                    state.limited_until = None;
                    state.requests_while_limited = 0;
                    return Admission::Banned {
                        snapshot,
                        until,
                        retry_after: seconds_until(now, until),
                        newly: true,
                    };
                }
            }
            // The request will be admitted once every exhausted window has reset.
            let (window, reset) = if !day_room {
                (RateWindow::Day, snapshot.day.reset)
            } else {
                (RateWindow::Minute, snapshot.minute.reset)
            };
            let free_at = unix(reset);
            if state.limited_until.is_none() {
                state.requests_while_limited = 0;
            }
            state.limited_until = Some(free_at);
            Admission::Limited {
                snapshot,
                retry_after: seconds_until(now, free_at),
                window,
            }
        })
    }

    /// The key's windows without counting a request; `Err(until)` while it is banned.
    pub fn peek(
        &self,
        key: &str,
        limits: &Limits,
        now: DateTime<Utc>,
    ) -> Result<Snapshot, (Snapshot, DateTime<Utc>)> {
        self.peek_now(key, limits, || now).0
    }

    /// [`peek`](Self::peek) at the time `clock` reads inside the limiter's lock.
    #[allow(clippy::type_complexity)]
    pub fn peek_now(
        &self,
        key: &str,
        limits: &Limits,
        clock: impl FnOnce() -> DateTime<Utc>,
    ) -> (Result<Snapshot, (Snapshot, DateTime<Utc>)>, DateTime<Utc>) {
        self.with_key(key, clock, |state, _| match state.banned_until {
            Some(until) => Err((state.snapshot(limits), until)),
            None => Ok(state.snapshot(limits)),
        })
    }

    /// Restores a ban read back from the database at start-up.
    pub fn restore_ban(&self, key: &str, until: DateTime<Utc>) {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.entry(key.to_owned()).or_default().banned_until = Some(until);
    }

    /// Forgets every key's windows and bans (`POST /_local/reset`).
    pub fn clear(&self) {
        self.keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn limits(per_minute: u64, per_day: u64) -> Limits {
        Limits {
            per_minute,
            per_day,
            max_domains_per_project: 0,
        }
    }

    fn limiter() -> RateLimiter {
        RateLimiter::new(BanPolicy {
            threshold: 10,
            duration: TimeDelta::minutes(15),
        })
    }

    #[test]
    fn rounds_retry_after_up() {
        let now = at("2026-01-01T00:00:10.2Z");
        assert_eq!(seconds_until(now, at("2026-01-01T00:01:00Z")), 50);
        assert_eq!(seconds_until(now, at("2026-01-01T00:00:10.2Z")), 1);
        assert_eq!(
            seconds_until(at("2026-01-01T00:00:10Z"), at("2026-01-01T00:01:00Z")),
            50
        );
    }

    #[test]
    fn tie_goes_to_the_window_resetting_first() {
        let snapshot = Snapshot {
            minute: WindowStatus {
                limit: 5,
                remaining: 3,
                reset: 60,
            },
            day: WindowStatus {
                limit: 9,
                remaining: 3,
                reset: 86_400,
            },
        };
        assert_eq!(snapshot.binding().0, RateWindow::Minute);
    }

    #[test]
    fn day_window_binds_when_it_has_less_left() {
        let limiter = limiter();
        let now = at("2026-01-01T23:59:00Z");
        let l = limits(10, 3);
        let Admission::Admitted(s) = limiter.admit("k", &l, now) else {
            panic!()
        };
        assert_eq!(s.binding().0, RateWindow::Day);
        assert_eq!(s.binding().1.remaining, 2);
        assert_eq!(s.binding().1.reset, at("2026-01-02T00:00:00Z").timestamp());
    }

    #[test]
    fn rejected_requests_consume_nothing() {
        let limiter = limiter();
        let now = at("2026-01-01T00:00:30Z");
        let l = limits(2, 100);
        assert!(matches!(
            limiter.admit("k", &l, now),
            Admission::Admitted(_)
        ));
        assert!(matches!(
            limiter.admit("k", &l, now),
            Admission::Admitted(_)
        ));
        for _ in 0..5 {
            assert!(matches!(
                limiter.admit("k", &l, now),
                Admission::Limited { .. }
            ));
        }
        let snapshot = limiter.peek("k", &l, now).unwrap();
        assert_eq!(snapshot.day.remaining, 98);
    }

    #[test]
    fn keys_are_counted_apart() {
        let limiter = limiter();
        let now = at("2026-01-01T00:00:30Z");
        let l = limits(1, 100);
        assert!(matches!(
            limiter.admit("a", &l, now),
            Admission::Admitted(_)
        ));
        assert!(matches!(
            limiter.admit("b", &l, now),
            Admission::Admitted(_)
        ));
    }
}
