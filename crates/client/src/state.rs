//! What the queue looks like from outside, for the window's rate-limit meter.
//!
//! Published through a `tokio::sync::watch` channel whenever it changes. The top-level
//! `limit`/`remaining`/`reset`/`window` fields describe the binding window (the one the meter
//! shows); `minute` and `day` give both. Times are the local wall clock, so a countdown shown
//! to the user is right even when the platform's clock is skewed or sped up.

use chrono::{DateTime, Utc};
use domain_desk_api::RateWindow;
use serde::{Deserialize, Serialize};

/// The three classes of work, strictly ordered: interactive first, bulk last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Someone is waiting for it in the window or on the command line.
    Interactive,
    /// Polling and refreshing that nobody is staring at.
    Background,
    /// Large jobs (imports, mass verification).
    Bulk,
}

impl Priority {
    pub const ALL: [Priority; 3] = [Priority::Interactive, Priority::Background, Priority::Bulk];

    pub(crate) fn index(self) -> usize {
        match self {
            Priority::Interactive => 0,
            Priority::Background => 1,
            Priority::Bulk => 2,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowState {
    pub limit: u64,
    /// Requests this client may still send in the window (in-flight ones already deducted).
    pub remaining: u64,
    /// Unix seconds on the local clock; `None` until the platform has told us.
    pub reset: Option<i64>,
    /// `false` while the numbers are the plan table's rather than the platform's.
    pub learned: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedCounts {
    pub interactive: usize,
    pub background: usize,
    pub bulk: usize,
}

impl QueuedCounts {
    pub fn total(&self) -> usize {
        self.interactive + self.background + self.bulk
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueState {
    /// The binding window; `None` until the platform has reported one.
    pub window: Option<RateWindow>,
    pub limit: Option<u64>,
    pub remaining: Option<u64>,
    /// Unix seconds, local clock.
    pub reset: Option<i64>,
    pub minute: WindowState,
    pub day: WindowState,
    /// Nothing is sent before this (after a 429 or during a ban).
    pub paused_until: Option<DateTime<Utc>>,
    pub banned_until: Option<DateTime<Utc>>,
    /// One request is testing the water after a pause; the rest wait for its answer.
    pub probing: bool,
    pub queued: QueuedCounts,
    pub in_flight: usize,
    /// Requests answered 429 since the queue started (ideally zero).
    pub rate_limited_total: u64,
    /// The part of the day kept for interactive work, while it is kept; `None` when background
    /// and bulk work may use the whole day.
    pub held_back: Option<HeldBack>,
}

/// Requests of the day that background and bulk work leave for interactive work, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldBack {
    pub requests: u64,
    pub reason: HeldBackReason,
    /// When the reserve lapses unless interactive work comes again (local clock); `None` while
    /// interactive work is waiting.
    pub until: Option<DateTime<Utc>>,
    /// Background or bulk work is waiting on the reserve right now (the day has no more than
    /// it left).
    pub blocking: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeldBackReason {
    /// Interactive requests are queued.
    InteractiveWaiting,
    /// Interactive work was asked for within `QueueConfig::interactive_recent`.
    InteractiveRecent,
}
