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

/// Hands each new queue state to `send`, at most once every `gap`: the first change after a
/// quiet spell at once, and the changes that come faster than that as their latest state when
/// the gap is over. The meter shows a state, not a history, and a busy queue changes state two
/// or three times a request: a window that was handed each one of them spent its time (and,
/// in WebKit's web process, its memory) on states nobody could read.
///
/// Returns when the queue is gone.
pub async fn watch_paced(
    mut changes: tokio::sync::watch::Receiver<QueueState>,
    gap: std::time::Duration,
    mut send: impl FnMut(&QueueState),
) {
    loop {
        send(&changes.borrow_and_update());
        let sent = tokio::time::Instant::now();
        if changes.changed().await.is_err() {
            return;
        }
        tokio::time::sleep_until(sent + gap).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use tokio::sync::watch;

    use super::*;

    fn state(in_flight: usize) -> QueueState {
        QueueState {
            in_flight,
            ..QueueState::default()
        }
    }

    /// What `watch_paced` has sent so far, as `in_flight` values.
    fn sent_log() -> (Arc<Mutex<Vec<usize>>>, impl FnMut(&QueueState)) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        (log, move |s: &QueueState| {
            sink.lock().unwrap().push(s.in_flight)
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_changes_reaches_the_window_as_its_latest_state_once_the_gap_is_over() {
        let (tx, rx) = watch::channel(state(0));
        let (log, send) = sent_log();
        let task = tokio::spawn(watch_paced(rx, Duration::from_millis(250), send));
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(*log.lock().unwrap(), [0], "the current state at once");

        // A quiet spell longer than the gap: the next change goes out at once.
        tokio::time::sleep(Duration::from_secs(1)).await;
        tx.send(state(1)).unwrap();
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(*log.lock().unwrap(), [0, 1]);

        // A hundred changes within the gap: nothing more until it is over, then the last one.
        for n in 2..102 {
            tx.send(state(n)).unwrap();
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        assert_eq!(*log.lock().unwrap(), [0, 1], "nothing sent within the gap");
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(
            *log.lock().unwrap(),
            [0, 1, 101],
            "one send when the gap ended, with the latest"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            *log.lock().unwrap(),
            [0, 1, 101],
            "nothing new, nothing sent"
        );

        // Changes every 2 ms for a second: four or five sends, the last of them the last state.
        log.lock().unwrap().clear();
        for n in 1000..1500 {
            tx.send(state(n)).unwrap();
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let sent = log.lock().unwrap().clone();
        assert!((4..=6).contains(&sent.len()), "{sent:?}");
        assert_eq!(sent.last(), Some(&1499));

        drop(tx);
        task.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_state_that_came_during_the_gap_is_never_lost() {
        let (tx, rx) = watch::channel(state(0));
        let (log, send) = sent_log();
        let task = tokio::spawn(watch_paced(rx, Duration::from_millis(250), send));
        tokio::time::sleep(Duration::from_millis(1)).await;
        tx.send(state(7)).unwrap();
        drop(tx);
        // The queue is gone, but its last state still reached the window when the gap ended.
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(*log.lock().unwrap(), [0, 7]);
        task.await.unwrap();
    }
}
