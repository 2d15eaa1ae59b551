//! The desktop app logs to a file that rolls daily in the app's log folder. The writer's guard
//! lives in Tauri's managed state so the last lines are flushed when the app exits.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::{EnvFilter, fmt, prelude::*};

use crate::{Error, Result};

/// Keeps the background log writer alive; dropping it flushes the file.
pub struct LogGuard(#[allow(dead_code)] WorkerGuard);

pub fn init(log_dir: &Path) -> Result<LogGuard> {
    std::fs::create_dir_all(log_dir)?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("domain-desk")
        .filename_suffix("log")
        .max_log_files(14)
        .build(log_dir)
        .map_err(|e| Error::Logging(e.to_string()))?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_from_env("DOMAIN_DESK_LOG")
        .unwrap_or_else(|_| EnvFilter::new("info,domain_desk=debug"));
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt::layer().with_writer(writer).with_ansi(false))
        .try_init()
        .map_err(|e| Error::Logging(e.to_string()))?;
    Ok(LogGuard(guard))
}
