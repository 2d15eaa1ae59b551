//! Integration tests of the local service: the API contract driven through the router (and a
//! few over real loopback), on a frozen virtual clock.

mod common;

mod auth;
mod bounds;
mod concurrency;
mod contract_regressions;
mod dns_robustness;
mod domain_config;
mod domain_connect;
mod domains;
mod errors;
mod faults;
mod idempotency;
mod limiter_exactness;
mod local;
mod negative_cache;
mod openapi;
mod pagination;
mod persistence;
mod projects;
mod rate_limits;
mod running;
mod world;
