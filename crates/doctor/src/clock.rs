//! The clock a run judges time by: whether a DNSSEC signature or a certificate is valid, and
//! the report's own timestamp, all depend on "now". Against a real platform that is this
//! computer's wall clock; against the local service, whose clock can run fast (`serve
//! --clock-speed 600`) or be moved forward, it is the platform's clock, or a healthy zone
//! signed at the platform's time would look not yet valid (or long expired) to the doctor.
//!
//! The front ends read the platform's clock (`GET /_local/clock`) just before the run; the
//! doctor carries it forward at its speed from the moment it was read.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which clock a run judges time by.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunClock {
    /// This computer's clock (a real platform's time is real time).
    #[default]
    Wall,
    /// The platform's clock, as the local service reported it.
    Platform {
        /// The platform's time when it was read.
        now: DateTime<Utc>,
        /// How fast it runs: 1 is real time, 600 makes ten minutes pass in a second, 0 stops it.
        speed: f64,
        /// This computer's time when it was read.
        read_at: DateTime<Utc>,
    },
}

impl PartialEq for RunClock {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (RunClock::Wall, RunClock::Wall) => true,
            (
                RunClock::Platform {
                    now,
                    speed,
                    read_at,
                },
                RunClock::Platform {
                    now: other_now,
                    speed: other_speed,
                    read_at: other_read_at,
                },
            ) => {
                now == other_now
                    && speed.to_bits() == other_speed.to_bits()
                    && read_at == other_read_at
            }
            _ => false,
        }
    }
}

// Speeds compare by their bits, so equality is an equivalence.
impl Eq for RunClock {}

impl RunClock {
    /// The platform's clock, read just now as `now` running at `speed`.
    pub fn platform(now: DateTime<Utc>, speed: f64) -> Self {
        RunClock::Platform {
            now,
            speed,
            read_at: Utc::now(),
        }
    }

    /// The time by this clock at the wall-clock instant `wall`.
    pub fn at(&self, wall: DateTime<Utc>) -> DateTime<Utc> {
        match *self {
            RunClock::Wall => wall,
            RunClock::Platform {
                now,
                speed,
                read_at,
            } => {
                let speed = if speed.is_finite() && speed > 0.0 {
                    speed
                } else {
                    0.0
                };
                let elapsed_ms = (wall - read_at).num_milliseconds() as f64 * speed;
                // Bounded so that a silly speed cannot overflow chrono's range.
                let elapsed_ms = elapsed_ms.clamp(-1e15, 1e15) as i64;
                now + chrono::Duration::milliseconds(elapsed_ms)
            }
        }
    }

    /// The time by this clock now.
    pub fn now(&self) -> DateTime<Utc> {
        self.at(Utc::now())
    }

    /// Whether this is the platform's clock.
    pub fn is_platform(&self) -> bool {
        matches!(self, RunClock::Platform { .. })
    }

    /// For a person: which clock the times of a report are by.
    pub fn describe(&self) -> String {
        match *self {
            RunClock::Wall => "this computer's clock".to_owned(),
            RunClock::Platform { speed: 1.0, .. } => {
                "the platform's clock, running at real time".to_owned()
            }
            RunClock::Platform { speed: 0.0, .. } => "the platform's clock, stopped".to_owned(),
            RunClock::Platform { speed, .. } => {
                format!(
                    "the platform's clock, running {}× real time",
                    trim_speed(speed)
                )
            }
        }
    }
}

fn trim_speed(speed: f64) -> String {
    let text = format!("{speed:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A time for a person, not ISO: `1 Jan 2020, 00:00 UTC`.
pub fn human_time(at: DateTime<Utc>) -> String {
    at.format("%-d %b %Y, %H:%M UTC").to_string()
}

/// A time within the next day as its hour (`12:45 UTC`), else as [`human_time`]: how long a
/// cache holds an answer reads best as the time on the clock.
pub fn time_of_day_or_date(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    if (at - now).num_hours().abs() < 20 {
        at.format("%H:%M UTC").to_string()
    } else {
        human_time(at)
    }
}

/// How far `at` is from `now`, for a person: `3 days ago`, `in 5 hours`, `just now`.
pub fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (at - now).num_seconds();
    let magnitude = seconds.unsigned_abs();
    let (count, unit) = if magnitude < 60 {
        return "just now".to_owned();
    } else if magnitude < 3600 {
        (magnitude / 60, "minute")
    } else if magnitude < 2 * 86_400 {
        (magnitude / 3600, "hour")
    } else if magnitude < 2 * 365 * 86_400 {
        (magnitude / 86_400, "day")
    } else {
        (magnitude / (365 * 86_400), "year")
    };
    let plural = if count == 1 { "" } else { "s" };
    if seconds < 0 {
        format!("{count} {unit}{plural} ago")
    } else {
        format!("in {count} {unit}{plural}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn the_platforms_clock_runs_on_at_its_speed_from_when_it_was_read() {
        let read_at = at("2026-11-26T10:00:00Z");
        let clock = RunClock::Platform {
            now: at("2026-11-29T10:00:00Z"),
            speed: 600.0,
            read_at,
        };
        // one wall-clock second later: ten platform minutes
        assert_eq!(
            clock.at(read_at + chrono::Duration::seconds(1)),
            at("2026-11-29T10:10:00Z")
        );
        let stopped = RunClock::Platform {
            now: at("2026-11-29T10:00:00Z"),
            speed: 0.0,
            read_at,
        };
        assert_eq!(
            stopped.at(read_at + chrono::Duration::hours(5)),
            at("2026-11-29T10:00:00Z")
        );
        let wall = at("2026-11-26T10:00:07Z");
        assert_eq!(RunClock::Wall.at(wall), wall);
        // nonsense speeds stop the clock rather than overflow it
        for speed in [f64::NAN, f64::INFINITY, -3.0, 1e300] {
            let odd = RunClock::Platform {
                now: at("2026-11-29T10:00:00Z"),
                speed,
                read_at,
            };
            let _ = odd.at(read_at + chrono::Duration::days(3650));
        }
    }

    #[test]
    fn the_clock_says_which_it_is() {
        assert_eq!(RunClock::Wall.describe(), "this computer's clock");
        let clock = RunClock::platform(Utc::now(), 600.0);
        assert_eq!(
            clock.describe(),
            "the platform's clock, running 600× real time"
        );
        assert!(clock.is_platform() && !RunClock::Wall.is_platform());
        assert_eq!(clock, clock);
        assert_ne!(clock, RunClock::Wall);
        let json = serde_json::to_value(clock).unwrap();
        assert_eq!(json["kind"], "platform");
        assert_eq!(json["speed"], 600.0);
        assert_eq!(serde_json::from_value::<RunClock>(json).unwrap(), clock);
    }

    #[test]
    fn times_for_people() {
        let now = at("2026-11-26T10:00:00Z");
        assert_eq!(
            human_time(at("2020-01-01T00:00:00Z")),
            "1 Jan 2020, 00:00 UTC"
        );
        assert_eq!(relative(at("2020-01-01T00:00:00Z"), now), "6 years ago");
        assert_eq!(
            relative(now + chrono::Duration::hours(5), now),
            "in 5 hours"
        );
        assert_eq!(relative(now - chrono::Duration::days(3), now), "3 days ago");
        assert_eq!(
            relative(now + chrono::Duration::seconds(20), now),
            "just now"
        );
        assert_eq!(
            relative(now - chrono::Duration::minutes(1), now),
            "1 minute ago"
        );
    }
}
