//! Names of the rate-limit headers, shared so that the service sets exactly what the client
//! reads.

pub const LIMIT: &str = "x-ratelimit-limit";
pub const REMAINING: &str = "x-ratelimit-remaining";
pub const RESET: &str = "x-ratelimit-reset";
/// IETF draft `RateLimit-Policy`, e.g. `"minute";q=300;w=60, "day";q=10000;w=86400`.
pub const IETF_POLICY: &str = "ratelimit-policy";
/// IETF draft `RateLimit`, e.g. `"minute";r=12;t=30`.
pub const IETF_RATELIMIT: &str = "ratelimit";
pub const RETRY_AFTER: &str = "retry-after";
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
