//! The queue's clock: Tokio instants (which paused test time drives) mapped to wall-clock time
//! for what leaves the process — the meter's countdowns, HTTP-dates, the ledger shared with
//! other processes.
//!
//! The mapping is read once, when the queue starts: an instant is the origin plus the elapsed
//! span, so a test on paused Tokio time sees wall-clock times that move with it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};
use tokio::time::Instant;

#[derive(Debug, Clone, Copy)]
pub(crate) struct WallClock {
    origin: Instant,
    wall: SystemTime,
}

impl WallClock {
    pub fn now() -> Self {
        Self::at(Instant::now(), SystemTime::now())
    }

    /// A clock on which `origin` is `wall`.
    pub fn at(origin: Instant, wall: SystemTime) -> Self {
        Self { origin, wall }
    }

    pub fn system_time(&self, at: Instant) -> SystemTime {
        if at >= self.origin {
            self.wall + at.duration_since(self.origin)
        } else {
            self.wall - self.origin.duration_since(at)
        }
    }

    pub fn utc(&self, at: Instant) -> DateTime<Utc> {
        DateTime::<Utc>::from(self.system_time(at))
    }

    /// The instant of a wall-clock time (the origin for any time before the origin that
    /// Tokio's instants cannot hold).
    pub fn instant(&self, at: SystemTime) -> Instant {
        match at.duration_since(self.wall) {
            Ok(after) => self.origin + after,
            Err(before) => self
                .origin
                .checked_sub(before.duration())
                .unwrap_or(self.origin),
        }
    }

    /// Wall-clock microseconds since the Unix epoch, as the shared ledger keeps times.
    pub fn micros(&self, at: Instant) -> i64 {
        unix_micros(self.system_time(at))
    }

    /// The instant of wall-clock microseconds since the Unix epoch.
    pub fn instant_at_micros(&self, us: i64) -> Instant {
        self.instant(from_unix_micros(us))
    }
}

/// Microseconds since the Unix epoch (negative before it): how the shared ledger keeps times.
pub(crate) fn unix_micros(at: SystemTime) -> i64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_micros()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_micros()).unwrap_or(i64::MAX),
    }
}

/// The inverse of [`unix_micros`].
pub(crate) fn from_unix_micros(us: i64) -> SystemTime {
    if us >= 0 {
        UNIX_EPOCH + Duration::from_micros(us.unsigned_abs())
    } else {
        UNIX_EPOCH - Duration::from_micros(us.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[tokio::test(start_paused = true)]
    async fn instants_and_wall_times_map_both_ways() {
        let origin = Instant::now();
        let wall = UNIX_EPOCH + Duration::from_secs(1_900_000_000);
        let clock = WallClock::at(origin, wall);
        let later = origin + Duration::from_millis(1_500);
        assert_eq!(
            clock.system_time(later),
            wall + Duration::from_millis(1_500)
        );
        assert_eq!(clock.instant(wall + Duration::from_millis(1_500)), later);
        assert_eq!(clock.micros(later), 1_900_000_001_500_000);
        assert_eq!(clock.instant_at_micros(1_900_000_001_500_000), later);
        assert_eq!(
            clock.utc(later).to_rfc3339(),
            "2030-03-17T17:46:41.500+00:00"
        );
        tokio::time::advance(Duration::from_secs(3)).await;
        let earlier = Instant::now() - Duration::from_secs(1);
        assert_eq!(clock.system_time(earlier), wall + Duration::from_secs(2));
    }
}
