//! Settings of the client and its queue, with defaults that suit the real platform.

use std::path::{Path, PathBuf};
use std::time::Duration;

use domain_desk_api::{Limits, Plan};

use crate::secret::ApiKey;
use crate::transport::DEFAULT_MAX_RESPONSE_BYTES;

/// Everything needed to talk to the platform with one key.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The platform's root, e.g. `http://127.0.0.1:8787` for the local service (no `/v1`).
    pub base_url: String,
    pub api_key: ApiKey,
    /// How long one HTTP exchange may take before it counts as a network failure.
    pub request_timeout: Duration,
    /// The longest answer body read; longer ones fail with `Error::ResponseTooLarge`.
    pub max_response_bytes: u64,
    /// Where the key's queues in every process on this machine share one budget (the app's
    /// data directory, or the command line's); `None`: this process only. Two processes on one
    /// key must share one, or together they overrun the key's windows.
    pub data_dir: Option<PathBuf>,
    pub queue: QueueConfig,
}

impl ClientConfig {
    pub fn new(base_url: impl Into<String>, api_key: impl Into<ApiKey>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: api_key.into(),
            request_timeout: Duration::from_secs(30),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            data_dir: None,
            queue: QueueConfig::default(),
        }
    }

    /// Shares the key's budget with its queues in other processes through `dir`.
    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// Seeds the budget from this plan's published limits until the platform reports its own.
    pub fn plan(mut self, plan: Plan) -> Self {
        self.queue.limits = plan.default_limits();
        self
    }
}

/// How the per-key scheduler behaves.
#[derive(Debug, Clone)]
pub struct QueueConfig {
    /// The budget before the platform's first answer (the plan table's numbers). Free's by
    /// default: the smallest, so an unknown plan is never overrun.
    pub limits: Limits,
    /// Platform seconds per local second: 1 for the real platform, the local service's clock
    /// speed when it runs fast (60 makes a minute window last a second).
    pub platform_clock_speed: f64,
    /// Share of the day budget that background and bulk work leave for interactive work, while
    /// interactive work waits or was asked for within `interactive_recent`.
    pub interactive_day_reserve: f64,
    /// How long after the last interactive request the day reserve is kept (local time): long
    /// enough to cover someone reading a page before the next click, short enough that a bulk
    /// job left running after they walk away can use the whole day.
    pub interactive_recent: Duration,
    /// Requests on the wire at once, at most.
    pub max_in_flight: usize,
    /// Ask `GET /v1/rate_limit` (which the platform does not count) before the first request,
    /// to learn both windows exactly.
    pub sync_on_start: bool,
    /// A request answered 429 this many times is handed back to its caller as rate limited.
    pub max_rate_limited_attempts: u32,
    /// After a 429 that says neither Retry-After nor Reset: 1 s, 2 s, 4 s … up to this
    /// (platform time).
    pub max_pause_without_hint: Duration,
    pub retry: RetryPolicy,
    /// Seeds the backoff jitter, for reproducible tests; random when `None`.
    pub jitter_seed: Option<u64>,
    /// The key's ledger file, shared with its queues in other processes
    /// ([`QueueConfig::share_budget`]); `Client::new` sets it from `ClientConfig::data_dir`.
    pub shared_budget: Option<PathBuf>,
}

impl QueueConfig {
    /// Shares the budget of `api_key` on `base_url` with every queue of that key that uses
    /// the same `dir`, in this process or another.
    pub fn share_budget(mut self, dir: &Path, base_url: &str, api_key: &ApiKey) -> Self {
        self.shared_budget = Some(crate::ledger::ledger_path(dir, base_url, api_key));
        self
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            limits: Plan::Free.default_limits(),
            platform_clock_speed: 1.0,
            interactive_day_reserve: 0.05,
            interactive_recent: Duration::from_secs(300),
            max_in_flight: 8,
            sync_on_start: true,
            max_rate_limited_attempts: 5,
            max_pause_without_hint: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            jitter_seed: None,
            shared_budget: None,
        }
    }
}

/// Retries after network errors and 5xx answers: exponential backoff with full jitter, at most
/// `max_attempts` sends per request, and a key-wide retry budget so that an outage does not
/// turn every request into several.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Sends per request, the first included.
    pub max_attempts: u32,
    /// The backoff before retry n is uniform in `[0, min(max_delay, base_delay * 2^(n-1))]`.
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// Retries the key may spend before earning more; also the most it can save up.
    pub budget_tokens: f64,
    /// Each new request earns this many retry tokens (0.1: one retry per ten requests).
    pub budget_ratio: f64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(8),
            budget_tokens: 10.0,
            budget_ratio: 0.1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Client, ClientPool};

    /// Everything in this crate that holds a key, printed with `{:?}` and `{:#?}` as a log
    /// line or a panic message would: the key's text never appears.
    #[tokio::test]
    async fn debug_of_everything_holding_a_key_is_redacted() {
        const SECRET: &str = "ddk_live_debug_audit_secret";
        let config = ClientConfig::new("http://127.0.0.1:9", SECRET);
        let transport =
            crate::HttpTransport::new(&config.base_url, &config.api_key, config.request_timeout)
                .unwrap();
        let client = Client::new(config.clone()).unwrap();
        let pool = ClientPool::new();
        let pooled = pool.client(config.clone()).unwrap();
        let insecure = crate::HttpTransport::new(
            "http://api.example.com",
            &config.api_key,
            config.request_timeout,
        )
        .unwrap_err();
        let shown = format!(
            "{config:?} {config:#?} {transport:?} {client:?} {client:#?} {pool:?} {pooled:?} {insecure:?} {insecure}"
        );
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(!shown.contains("debug_audit"), "{shown}");
        assert!(shown.contains("ApiKey(…)"), "{shown}");
    }
}
