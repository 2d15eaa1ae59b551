//! Test modules; `fake_platform` is the in-process stand-in the scheduler tests run against.

mod connection_failures;
mod domain_connect;
mod fake_platform;
mod hostile_server;
mod local_control;
mod local_service;
mod processes;
mod scheduler;
