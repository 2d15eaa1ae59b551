//! `domain-desk serve`: the local platform headless (the API, its DNS server and its TLS
//! edge) until Ctrl-C or SIGTERM, listening on loopback unless told otherwise.

use std::process::ExitCode;

use domain_desk_service::{ConnectionLimits, HistoryLimits};

use super::output::report_error;

/// `domain-desk serve`: flags and defaults as the API contract gives them.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The SQLite database file (default: the app's data folder).
    #[arg(long, value_name = "FILE", conflicts_with = "memory")]
    pub data: Option<std::path::PathBuf>,
    /// Keep everything in memory (for tests): nothing survives a stop.
    #[arg(long)]
    pub memory: bool,
    /// Address of the HTTP API and `/_local`.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    pub api: std::net::SocketAddr,
    /// Address of the DNS server (UDP and TCP).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8853")]
    pub dns: std::net::SocketAddr,
    /// Address of the TLS edge.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8443")]
    pub edge_https: std::net::SocketAddr,
    /// Address of the plain-HTTP edge (redirects to TLS).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub edge_http: std::net::SocketAddr,
    /// Speed of the virtual clock: 0 freezes it, 60 makes a minute pass in a second.
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    pub clock_speed: f64,
    /// Read every GET from the database, never from the answers kept in memory while
    /// nothing changed (to measure the database path on its own).
    #[arg(long)]
    pub no_read_cache: bool,
    /// Sign the demo zones with DNSSEC (one key made at start): /_local/info then holds the
    /// trust anchor for `doctor --trust-anchor`, and PUT /_local/dns/ZONE/dnssec
    /// {"signatures": "expired"} breaks a zone so the doctor shows dnssec_bogus.
    #[arg(long)]
    pub sign_zones: bool,
    /// Allow an --api address other than loopback. The control plane (`/_local`, no key) and
    /// the demo keys are then reachable from the network: only on a network you trust.
    #[arg(long)]
    pub allow_remote: bool,
    /// Connections served at once on each listener (API, TLS edge, HTTP edge); further
    /// clients wait until one closes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          default_value_t = ConnectionLimits::default().max_connections as u32)]
    pub max_connections: u32,
    /// Seconds a client may take to send a request's headers; also how long an idle
    /// keep-alive connection stays open.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..),
          default_value_t = ConnectionLimits::default().header_read_timeout.as_secs())]
    pub header_timeout: u64,
    /// Seconds without a byte read or written after which a connection is closed.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..),
          default_value_t = ConnectionLimits::default().idle_timeout.as_secs())]
    pub idle_timeout: u64,
    /// Deploys kept per project; older ones and their files are dropped.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          default_value_t = HistoryLimits::default().deploys_per_project as u32)]
    pub keep_deploys: u32,
    /// Deleted DNS records kept for the platform resolver's delayed view; the oldest
    /// deletions are forgotten beyond this.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          default_value_t = HistoryLimits::default().removed_dns_records as u32)]
    pub keep_dns_history: u32,
    /// Idempotency-Key answers remembered over all keys (besides 24 hours at most); the
    /// oldest are forgotten beyond this.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          default_value_t = HistoryLimits::default().idempotency_answers as u32)]
    pub keep_idempotency_answers: u32,
    /// Zones the demo DNS provider holds; one more is refused (422).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          default_value_t = HistoryLimits::default().dns_zones as u32)]
    pub max_dns_zones: u32,
    /// Live records in one demo zone; one more is refused (422) until one is deleted.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          default_value_t = HistoryLimits::default().records_per_zone as u32)]
    pub max_zone_records: u32,
}

impl ServeArgs {
    /// The connection limits the flags ask for.
    pub fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections as usize,
            header_read_timeout: std::time::Duration::from_secs(self.header_timeout),
            idle_timeout: std::time::Duration::from_secs(self.idle_timeout),
        }
    }

    /// The history bounds the flags ask for.
    pub fn history_limits(&self) -> HistoryLimits {
        HistoryLimits {
            deploys_per_project: self.keep_deploys as usize,
            removed_dns_records: self.keep_dns_history as usize,
            idempotency_answers: self.keep_idempotency_answers as usize,
            dns_zones: self.max_dns_zones as usize,
            records_per_zone: self.max_zone_records as usize,
        }
    }
}

/// Runs the service with `args` until it is stopped; the outcome as the exit status.
pub fn run(mut args: ServeArgs) -> ExitCode {
    if check_exposure(&args).is_err() {
        return ExitCode::FAILURE;
    }
    if !args.memory && args.data.is_none() {
        match domain_desk_app::paths::AppPaths::from_os() {
            Ok(paths) => args.data = Some(paths.demo_database()),
            Err(err) => {
                report_error(&err);
                return ExitCode::FAILURE;
            }
        }
    }
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            report_error(&err);
            ExitCode::FAILURE
        }
    }
}

/// `serve` listens on loopback unless told otherwise: another --api address is refused
/// without --allow-remote, and warned about with it.
fn check_exposure(args: &ServeArgs) -> Result<(), ()> {
    if args.api.ip().is_loopback() {
        return Ok(());
    }
    if !args.allow_remote {
        eprintln!(
            "domain-desk serve: refusing to listen on {}: the control plane (/_local, no API key) \
             and the demo keys would be reachable from the network. Use a loopback address \
             (127.0.0.1 or [::1]), or add --allow-remote on a network you trust.",
            args.api
        );
        return Err(());
    }
    eprintln!(
        "domain-desk serve: WARNING: listening on {} with --allow-remote: anyone who can reach it \
         can read the demo keys and drive the control plane (/_local).",
        args.api
    );
    Ok(())
}

fn serve(args: ServeArgs) -> Result<(), domain_desk_service::Error> {
    use domain_desk_service::{Service, ServiceSettings, Storage};
    let connections = args.connection_limits();
    let history = args.history_limits();
    let storage = if args.memory {
        Storage::Memory
    } else {
        // `run` filled in the data folder's database when none was given.
        Storage::File(args.data.unwrap_or_default())
    };
    let settings = ServiceSettings {
        connections,
        history,
        storage: storage.clone(),
        api_addr: args.api,
        dns_addr: args.dns,
        edge_https_addr: args.edge_https,
        edge_http_addr: args.edge_http,
        clock_speed: args.clock_speed,
        read_cache: !args.no_read_cache,
        sign_zones: args.sign_zones,
        ..ServiceSettings::default()
    };
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let service = Service::spawn(settings).await?;
        let info = service.info();
        println!("Domain Desk local platform");
        match &storage {
            Storage::File(path) => println!("  data        {}", path.display()),
            Storage::Memory => println!("  data        in memory (gone when stopped)"),
        }
        println!("  api         http://{}", info.api);
        let optional = |addr: &Option<String>| addr.clone().unwrap_or_else(|| "not running".into());
        println!("  dns         {}", optional(&info.dns));
        println!("  edge https  {}", optional(&info.edge_https));
        println!("  edge http   {}", optional(&info.edge_http));
        println!(
            "  platform    {} (DNS target {})",
            info.platform_domain, info.platform_dns_target
        );
        println!("demo API keys:");
        for (plan, key) in &info.demo_keys {
            println!("  {plan:<11} {key}");
        }
        println!("Ctrl-C stops.");
        service.run_until(shutdown_signal()).await
    })
}

/// Resolves on Ctrl-C, or on SIGTERM where there is one.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("stopping");
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::super::{Cli, Command};
    use super::*;

    fn serve_args(flags: &[&str]) -> Result<ServeArgs, clap::Error> {
        let args = ["domain-desk", "serve"].iter().chain(flags);
        match Cli::try_parse_from(args)?.command {
            Some(Command::Serve(args)) => Ok(args),
            other => panic!("not serve: {other:?}"),
        }
    }

    #[test]
    fn serve_refuses_a_non_loopback_api_without_allow_remote() {
        assert!(check_exposure(&serve_args(&[]).unwrap()).is_ok());
        assert!(check_exposure(&serve_args(&["--api", "[::1]:8787"]).unwrap()).is_ok());
        for exposed in ["0.0.0.0:8787", "192.168.1.5:8787", "[::]:8787"] {
            let refused = serve_args(&["--api", exposed]).unwrap();
            assert!(check_exposure(&refused).is_err(), "{exposed}");
            let allowed = serve_args(&["--api", exposed, "--allow-remote"]).unwrap();
            assert!(check_exposure(&allowed).is_ok(), "{exposed}");
        }
    }

    #[test]
    fn serve_limits_default_to_the_service_defaults() {
        let args = serve_args(&[]).unwrap();
        assert_eq!(args.connection_limits(), ConnectionLimits::default());
        assert_eq!(args.history_limits(), HistoryLimits::default());
    }

    #[test]
    fn serve_limits_come_from_the_flags() {
        let args = serve_args(&[
            "--max-connections",
            "64",
            "--header-timeout",
            "5",
            "--idle-timeout",
            "45",
        ])
        .unwrap();
        assert_eq!(
            args.connection_limits(),
            ConnectionLimits {
                max_connections: 64,
                header_read_timeout: std::time::Duration::from_secs(5),
                idle_timeout: std::time::Duration::from_secs(45),
            }
        );
        assert!(serve_args(&["--max-connections", "0"]).is_err());
        let args = serve_args(&[
            "--keep-deploys",
            "5",
            "--keep-dns-history",
            "100",
            "--keep-idempotency-answers",
            "1000",
            "--max-dns-zones",
            "7",
            "--max-zone-records",
            "70",
        ])
        .unwrap();
        assert_eq!(
            args.history_limits(),
            HistoryLimits {
                deploys_per_project: 5,
                removed_dns_records: 100,
                idempotency_answers: 1000,
                dns_zones: 7,
                records_per_zone: 70,
            }
        );
        assert!(serve_args(&["--keep-deploys", "0"]).is_err());
        assert!(serve_args(&["--header-timeout", "0"]).is_err());
    }

    #[test]
    fn serve_help_shows_the_connection_limits() {
        let mut cli = Cli::command();
        let help = cli
            .find_subcommand_mut("serve")
            .expect("serve")
            .render_long_help()
            .to_string();
        for flag in [
            "--max-connections",
            "--header-timeout",
            "--idle-timeout",
            "--keep-deploys",
            "--keep-dns-history",
            "--keep-idempotency-answers",
            "--max-dns-zones",
            "--max-zone-records",
        ] {
            assert!(help.contains(flag), "serve --help lacks {flag}:\n{help}");
        }
        let history = HistoryLimits::default();
        for bound in [
            history.deploys_per_project,
            history.removed_dns_records,
            history.idempotency_answers,
            history.dns_zones,
            history.records_per_zone,
        ] {
            let shown = format!("[default: {bound}]");
            assert!(help.contains(&shown), "serve --help lacks {shown}:\n{help}");
        }
    }
}
