//! The command line: the same crates as the window, driven headless. Subcommands print to
//! standard output, which is the one place the workspace allows it.
//!
//! The argument definitions (clap derives, with each flag's help text) are most of its code
//! and a third of it is its tests; the account and domain commands live in `cli/`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use domain_desk_service::{ConnectionLimits, HistoryLimits};

mod accounts;
mod bulk;
mod connect;
mod domains;
mod output;

pub use connect::ApiArgs;
pub use domains::{DomainsCommand, ProjectsCommand};

/// Domain Desk: attach custom domains to hosted projects.
#[derive(Debug, Parser)]
#[command(name = "domain-desk", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the version and where data and logs are kept.
    Info,
    /// Run the local platform headless: the API, its DNS server and its TLS edge.
    Serve(ServeArgs),
    /// Diagnose custom domains' DNS: find the mistake, show the evidence, say the fix.
    /// Exits with status 1 when any finding is an error.
    Doctor(DoctorArgs),
    /// Keep an account's API key in the OS keyring and make it the default account (the
    /// window sees it too).
    ///
    /// Example: domain-desk login --base-url https://api.example.com
    Login(accounts::LoginArgs),
    /// Forget an account kept on this computer and delete its key.
    ///
    /// Example: domain-desk logout acc_123@api.example.com
    Logout {
        #[arg(value_name = "ACCOUNT_ID")]
        account: String,
    },
    /// The accounts kept on this computer; `*` marks the default.
    ///
    /// Example: domain-desk accounts
    Accounts {
        #[arg(long)]
        json: bool,
    },
    /// The account's projects.
    Projects {
        #[command(subcommand)]
        command: ProjectsCommand,
        #[command(flatten)]
        api: ApiArgs,
    },
    /// A project's custom domains: list, add, inspect, verify, remove, primary, redirect,
    /// import and export.
    ///
    /// Exit status: 0 done, 1 a domain is not live or a check failed, 2 a usage mistake,
    /// 3 the key was refused or is missing, 4 rate limited and waiting was refused
    /// (--no-wait) or the key is banned.
    #[command(
        after_help = "Examples:\n  domain-desk domains list --project shop\n  domain-desk --local domains add www.example.com --project shop\n  domain-desk domains import domains.csv --project shop\n  domain-desk domains export --project shop --format zone"
    )]
    Domains {
        #[command(subcommand)]
        command: DomainsCommand,
        /// The project, by id or by name.
        #[arg(
            long,
            short,
            global = true,
            env = "DOMAIN_DESK_PROJECT",
            value_name = "PROJECT"
        )]
        project: Option<String>,
        #[command(flatten)]
        api: ApiArgs,
    },
}

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

/// `domain-desk doctor`: see `domain_desk_doctor::diagnose`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Hostnames to diagnose (Unicode or Punycode).
    #[arg(value_name = "HOSTNAME", required_unless_present_any = ["file", "replay"])]
    pub hostnames: Vec<String>,
    /// Read more hostnames from a file, one per line (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
    /// Ask only this DNS server (repeatable). Offline mode: no public or system resolver,
    /// no other nameserver is contacted.
    #[arg(long = "resolver", value_name = "ADDR")]
    pub resolvers: Vec<std::net::SocketAddr>,
    /// The platform DNS target names must point at. Default with --resolver: what the local
    /// service's /_local/info says (or its default target when it cannot be reached).
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,
    /// What CAA records must name for the platform's CA (default: from /_local/info, else
    /// letsencrypt.org).
    #[arg(long = "ca", value_name = "NAME")]
    pub ca_identity: Option<String>,
    /// The local service's API, asked for /_local/info when --resolver is given.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    pub local_api: std::net::SocketAddr,
    /// Where the TLS edge listens, when not at the hostname's address on port 443.
    #[arg(long, value_name = "ADDR")]
    pub edge: Option<std::net::SocketAddr>,
    /// Skip the TLS probe of the edge.
    #[arg(long)]
    pub no_tls: bool,
    /// How long one DNS question may take, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1500)]
    pub timeout_ms: u64,
    /// Hostnames diagnosed at once.
    #[arg(long, value_name = "N", default_value_t = domain_desk_doctor::options::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Print the report as JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the report as Markdown for a support ticket.
    #[arg(long)]
    pub markdown: bool,
    /// Validate DNSSEC from the root's trust anchor down to each name (through the first
    /// resolver, with checking disabled): dnssec_valid, dnssec_unsigned_ok or dnssec_bogus.
    #[arg(long)]
    pub dnssec: bool,
    /// DNSKEY or DS records in zone-file form to trust instead of IANA's root keys (a private
    /// root); the keys a DS names are fetched from the first resolver. Implies --dnssec.
    #[arg(long, value_name = "FILE")]
    pub trust_anchor: Option<std::path::PathBuf>,
    /// Also write every DNS question, answer and TLS certificate chain seen into FILE (a
    /// versioned JSON capture that `--replay` reads).
    #[arg(long, value_name = "FILE", conflicts_with = "replay")]
    pub capture: Option<std::path::PathBuf>,
    /// Re-run the analysis of a capture with no network, giving the report it gave; the
    /// hostnames and options are the capture's.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["hostnames", "file", "resolvers", "target", "ca_identity", "edge", "no_tls", "dnssec", "trust_anchor"])]
    pub replay: Option<std::path::PathBuf>,
}

/// Runs a headless subcommand and turns its outcome into the process's exit status.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Info => {
            let paths = crate::paths::AppPaths::from_os();
            println!("domain-desk {}", env!("CARGO_PKG_VERSION"));
            println!("data: {}", paths.data_dir.display());
            println!("logs: {}", paths.log_dir.display());
            ExitCode::SUCCESS
        }
        Command::Doctor(args) => doctor(args),
        Command::Login(args) => on_runtime(accounts::login(args)),
        Command::Logout { account } => finish(accounts::logout(&account)),
        Command::Accounts { json } => finish(accounts::list(json)),
        Command::Projects { command, api } => on_runtime(async move {
            let pool = shared_pool();
            let connection = connect::connect(&api, &pool).await?;
            match command {
                ProjectsCommand::List => domains::projects(&connection, api.json).await,
            }
        }),
        Command::Domains {
            command,
            project,
            api,
        } => on_runtime(async move {
            let project = project.ok_or_else(|| {
                output::Failure::usage(
                    "Name the project with --project (id or name); `domain-desk projects list` shows them.",
                )
            })?;
            let pool = shared_pool();
            let connection = connect::connect(&api, &pool).await?;
            let project = domains::find_project(&connection.client, &project).await?;
            domains::run(&connection, &project, command, api.json, api.no_wait).await
        }),
        Command::Serve(args) => match check_exposure(&args).and_then(|()| {
            serve(args).map_err(|err| {
                report_error(&err);
            })
        }) {
            Ok(()) => ExitCode::SUCCESS,
            Err(()) => ExitCode::FAILURE,
        },
    }
}

/// The request queues of this process, sharing each key's budget with the window and other
/// commands on this computer (through the data folder).
fn shared_pool() -> domain_desk_client::ClientPool {
    domain_desk_client::ClientPool::with_data_dir(crate::paths::AppPaths::from_os().queue_dir())
}

fn finish(outcome: output::Outcome) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.exit(),
    }
}

/// Runs a command that talks to the platform on a runtime of its own, logging warnings to
/// standard error.
fn on_runtime(command: impl std::future::Future<Output = output::Outcome>) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => finish(runtime.block_on(command)),
        Err(err) => output::Failure::check(err.to_string()).exit(),
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

fn doctor(args: DoctorArgs) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                // hickory's DNSSEC handle warns about each odd answer it validates; the report
                // says what matters.
                tracing_subscriber::EnvFilter::new("warn,hickory_proto=error")
            }),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let mut hostnames = args.hostnames.clone();
    if let Some(file) = &args.file {
        let text = if file.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin())
        } else {
            std::fs::read_to_string(file)
        };
        match text {
            Ok(text) => hostnames.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|line| !line.is_empty() && !line.starts_with('#'))
                    .map(str::to_owned),
            ),
            Err(err) => {
                report_error(&format!("cannot read {}: {err}", file.display()));
                return ExitCode::from(2);
            }
        }
    }
    // One thread: the doctor waits on the network, and a batch of 1,000 hostnames ran in
    // 122 ms on one thread against 150 ms on a thread per core, where every answer woke
    // another thread (`cargo xtask bench doctor` runs it the same way).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            report_error(&err);
            return ExitCode::from(2);
        }
    };
    let outcome = runtime.block_on(async {
        if let Some(file) = &args.replay {
            let capture = domain_desk_doctor::Capture::load(file)?;
            return domain_desk_doctor::replay(&capture).await;
        }
        let options = doctor_options(&args).await?;
        match &args.capture {
            Some(file) => domain_desk_doctor::diagnose_into_file(&hostnames, &options, file).await,
            None => domain_desk_doctor::diagnose(&hostnames, &options).await,
        }
    });
    let report = match outcome {
        Ok(report) => report,
        Err(err) => {
            report_error(&err);
            return ExitCode::from(2);
        }
    };
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(err) => {
                report_error(&err);
                return ExitCode::from(2);
            }
        }
    } else if args.markdown {
        print!("{}", report.to_markdown());
    } else {
        print!("{}", report.to_text());
    }
    if report.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The doctor's options from the flags. With `--resolver` the run is offline and the target,
/// CA, edge and CA certificate default to what the local service's `/_local/info` says, or
/// to the service's defaults when it does not answer; with --dnssec and no --trust-anchor
/// the anchor is the one a service started with --sign-zones publishes. The doctor itself
/// knows nothing of the service.
async fn doctor_options(
    args: &DoctorArgs,
) -> Result<domain_desk_doctor::DoctorOptions, domain_desk_doctor::Error> {
    let offline = !args.resolvers.is_empty();
    let needs_info = offline
        && (args.target.is_none()
            || args.ca_identity.is_none()
            || !args.no_tls
            || (args.dnssec && args.trust_anchor.is_none()));
    let info = if needs_info && args.local_api.ip().is_loopback() {
        local_info(args.local_api).await
    } else {
        None
    };
    let service_defaults = domain_desk_service::ServiceSettings::default();
    let target = match (&args.target, &info) {
        (Some(target), _) => target.clone(),
        (None, Some(info)) => info.platform_dns_target.clone(),
        (None, None) if offline => service_defaults.platform_dns_target.clone(),
        (None, None) => {
            return Err(domain_desk_doctor::Error::InvalidOptions(
                "Give the platform DNS target with --target NAME (or point --resolver at the local service).".to_owned(),
            ));
        }
    };
    let ca_identity = args
        .ca_identity
        .clone()
        .or_else(|| info.as_ref().map(|info| info.ca_identity.clone()))
        .unwrap_or_else(|| domain_desk_doctor::DEFAULT_CA_IDENTITY.to_owned());
    let mut options = domain_desk_doctor::DoctorOptions::new(target)
        .with_resolvers(args.resolvers.iter().copied())
        .with_ca_identity(ca_identity)
        .with_timeout(std::time::Duration::from_millis(args.timeout_ms))
        .with_tls_probe(!args.no_tls)
        .with_edge(args.edge.or_else(|| {
            info.as_ref()
                .and_then(|info| info.edge_https.as_deref())
                .and_then(|edge| edge.parse().ok())
        }));
    options.concurrency = args.concurrency.max(1);
    options.dnssec = args.dnssec || args.trust_anchor.is_some();
    if let Some(file) = &args.trust_anchor {
        options.trust_anchor = Some(std::fs::read_to_string(file).map_err(|err| {
            domain_desk_doctor::Error::InvalidOptions(format!(
                "cannot read the trust anchor {}: {err}",
                file.display()
            ))
        })?);
    }
    if let Some(info) = &info {
        options.attached_hostnames = local_attached_hostnames(args.local_api, info).await;
        if options.dnssec && options.trust_anchor.is_none() {
            options.trust_anchor = info.dnssec_trust_anchor.clone();
        }
    }
    options.extra_roots_pem = info.and_then(|info| info.ca_certificate_pem);
    Ok(options)
}

/// Every hostname attached to a project on the local service (all demo accounts), so the
/// doctor can tell a dangling CNAME; `None` when the service does not answer in full. The
/// window's Diagnose panel asks the same in the offline demo.
pub(crate) async fn local_attached_hostnames(
    api: std::net::SocketAddr,
    info: &domain_desk_api::local::LocalInfo,
) -> Option<std::collections::BTreeSet<String>> {
    use domain_desk_api::{DomainList, ProjectList};
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(2))
        .no_proxy()
        .build()
        .ok()?;
    async fn pages<T: serde::de::DeserializeOwned>(
        client: &reqwest::Client,
        url: &str,
        key: &str,
        cursor: impl Fn(&T) -> Option<String>,
    ) -> Option<Vec<T>> {
        let mut found = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let mut request = client.get(url).bearer_auth(key);
            if let Some(cursor) = &next {
                request = request.query(&[("cursor", cursor)]);
            }
            let page: T = request
                .send()
                .await
                .ok()?
                .error_for_status()
                .ok()?
                .json()
                .await
                .ok()?;
            next = cursor(&page);
            found.push(page);
            if next.is_none() {
                return Some(found);
            }
        }
    }
    let mut attached = std::collections::BTreeSet::new();
    for key in info.demo_keys.values() {
        let projects: Vec<ProjectList> = pages(
            &client,
            &format!("http://{api}/v1/projects"),
            key,
            |page: &ProjectList| page.next_cursor.clone(),
        )
        .await?;
        for project in projects.iter().flat_map(|page| &page.projects) {
            let domains: Vec<DomainList> = pages(
                &client,
                &format!("http://{api}/v1/projects/{}/domains", project.id),
                key,
                |page: &DomainList| page.next_cursor.clone(),
            )
            .await?;
            attached.extend(
                domains
                    .iter()
                    .flat_map(|page| &page.domains)
                    .map(|domain| domain.hostname.clone()),
            );
        }
    }
    Some(attached)
}

/// `GET /_local/info` from the local service, if one answers on loopback within a second.
async fn local_info(api: std::net::SocketAddr) -> Option<domain_desk_api::local::LocalInfo> {
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(1))
        .no_proxy()
        .build()
        .ok()?;
    let response = client
        .get(format!("http://{api}/_local/info"))
        .send()
        .await
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    response.json().await.ok()
}

fn serve(args: ServeArgs) -> Result<(), domain_desk_service::Error> {
    use domain_desk_service::{Service, ServiceSettings, Storage};
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new("info,hickory_server=warn,hickory_proto=warn")
            }),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let connections = args.connection_limits();
    let history = args.history_limits();
    let storage = if args.memory {
        Storage::Memory
    } else {
        Storage::File(
            args.data
                .unwrap_or_else(|| crate::paths::AppPaths::from_os().demo_database()),
        )
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

pub fn report_error(err: &dyn std::fmt::Display) {
    eprintln!("domain-desk: {err}");
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    fn serve_args(flags: &[&str]) -> Result<ServeArgs, clap::Error> {
        let args = ["domain-desk", "serve"].iter().chain(flags);
        match Cli::try_parse_from(args)?.command {
            Some(Command::Serve(args)) => Ok(args),
            other => panic!("not serve: {other:?}"),
        }
    }

    fn doctor_args(flags: &[&str]) -> Result<DoctorArgs, clap::Error> {
        let args = ["domain-desk", "doctor"].iter().chain(flags);
        match Cli::try_parse_from(args)?.command {
            Some(Command::Doctor(args)) => Ok(args),
            other => panic!("not doctor: {other:?}"),
        }
    }

    #[test]
    fn doctor_replays_a_capture_alone_and_captures_a_live_run() {
        let replay = doctor_args(&["--replay", "seen.json"]).unwrap();
        assert_eq!(
            replay.replay.as_deref(),
            Some(std::path::Path::new("seen.json"))
        );
        let capture = doctor_args(&["--capture", "seen.json", "www.example.com"]).unwrap();
        assert_eq!(capture.hostnames, ["www.example.com"]);
        assert!(capture.capture.is_some());
        // a replay takes its hostnames and options from the capture, never from flags
        for flags in [
            &["--replay", "seen.json", "www.example.com"][..],
            &["--replay", "seen.json", "--resolver", "127.0.0.1:53"][..],
            &["--replay", "seen.json", "--target", "edge.example.net"][..],
            &["--replay", "seen.json", "--capture", "again.json"][..],
            &["--replay", "seen.json", "--trust-anchor", "root.key"][..],
        ] {
            assert!(doctor_args(flags).is_err(), "{flags:?}");
        }
        assert!(doctor_args(&["--capture", "seen.json"]).is_err());
    }

    #[tokio::test]
    async fn a_trust_anchor_file_turns_dnssec_on_and_a_missing_one_is_an_error() {
        let directory = tempfile::tempdir().unwrap();
        let anchor = directory.path().join("root.key");
        std::fs::write(&anchor, ". IN DNSKEY 257 3 13 AAAA\n").unwrap();
        let path = anchor.to_string_lossy().into_owned();
        let args = doctor_args(&[
            "--target",
            "edge.example.net",
            "--trust-anchor",
            &path,
            "a.example.com",
        ])
        .unwrap();
        let options = doctor_options(&args).await.unwrap();
        assert!(options.dnssec);
        assert_eq!(
            options.trust_anchor.as_deref(),
            Some(". IN DNSKEY 257 3 13 AAAA\n")
        );
        let plain = doctor_args(&["--target", "edge.example.net", "a.example.com"]).unwrap();
        assert!(!doctor_options(&plain).await.unwrap().dnssec);
        let missing = directory
            .path()
            .join("none.key")
            .to_string_lossy()
            .into_owned();
        let args = doctor_args(&[
            "--target",
            "edge.example.net",
            "--trust-anchor",
            &missing,
            "a.example.com",
        ])
        .unwrap();
        match doctor_options(&args).await {
            Err(error) => assert!(error.to_string().contains("none.key"), "{error}"),
            Ok(_) => panic!("a missing trust anchor was accepted"),
        }
    }

    /// `doctor --resolver <service> --dnssec` against `serve --sign-zones` validates from the
    /// key the service publishes; a --trust-anchor file still wins, and an unsigned service
    /// leaves IANA's keys.
    #[tokio::test]
    async fn the_doctor_takes_a_signing_services_trust_anchor() {
        use domain_desk_service::{Service, ServiceSettings, Storage};
        let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        let start = |sign_zones| async move {
            let service = Service::bind(ServiceSettings {
                storage: Storage::Memory,
                api_addr: loopback,
                dns_addr: loopback,
                edge_https_addr: loopback,
                edge_http_addr: loopback,
                clock_speed: 0.0,
                sign_zones,
                ..ServiceSettings::default()
            })
            .await
            .unwrap();
            let info = service.info().await.unwrap();
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            tokio::spawn(service.run(async {
                let _ = stopped.await;
            }));
            (info, stop)
        };
        let (signed, _stop_signed) = start(true).await;
        let (unsigned, _stop_unsigned) = start(false).await;
        let anchor = signed.dnssec_trust_anchor.clone().unwrap();
        let args = |info: &domain_desk_api::local::LocalInfo, extra: &[&str]| {
            let dns = info.dns.clone().unwrap();
            let mut flags = vec!["--resolver", &dns, "--local-api", &info.api, "--no-tls"];
            flags.extend_from_slice(extra);
            flags.push("www.example.com");
            doctor_args(&flags).unwrap()
        };
        let options = doctor_options(&args(&signed, &["--dnssec"])).await.unwrap();
        assert!(options.dnssec);
        assert_eq!(options.trust_anchor.as_deref(), Some(anchor.as_str()));
        // without --dnssec the anchor is not used
        let options = doctor_options(&args(&signed, &[])).await.unwrap();
        assert_eq!(options.trust_anchor, None);
        // a file given wins
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("mine.key");
        std::fs::write(&file, ". IN DNSKEY 257 3 13 AAAA\n").unwrap();
        let path = file.to_string_lossy().into_owned();
        let options = doctor_options(&args(&signed, &["--trust-anchor", &path]))
            .await
            .unwrap();
        assert_eq!(
            options.trust_anchor.as_deref(),
            Some(". IN DNSKEY 257 3 13 AAAA\n")
        );
        let options = doctor_options(&args(&unsigned, &["--dnssec"]))
            .await
            .unwrap();
        assert!(options.dnssec);
        assert_eq!(options.trust_anchor, None);
    }

    #[test]
    fn serve_signs_zones_only_when_asked() {
        assert!(!serve_args(&[]).unwrap().sign_zones);
        assert!(serve_args(&["--sign-zones"]).unwrap().sign_zones);
    }

    /// The doctor's list of attached names, from a local service with one attached domain.
    #[tokio::test]
    async fn the_local_services_attached_hostnames_are_listed_for_the_doctor() {
        use domain_desk_service::{ServiceSettings, Storage};
        let service = domain_desk_test_support::start_with(ServiceSettings {
            storage: Storage::Memory,
            clock_speed: 0.0,
            ..domain_desk_test_support::loopback_settings()
        })
        .await;
        let info = service.info().clone();
        let api = service.api_addr();
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let key = &info.demo_keys["pro"];
        let post = |path: String, body: serde_json::Value| {
            let request = http
                .post(format!("http://{api}{path}"))
                .bearer_auth(key)
                .json(&body);
            async move {
                let response = request.send().await.unwrap();
                assert!(
                    response.status().is_success(),
                    "{path}: {}",
                    response.status()
                );
                response.json::<serde_json::Value>().await.unwrap()
            }
        };
        assert_eq!(
            local_attached_hostnames(api, &info).await,
            Some(Default::default())
        );
        let project = post("/v1/projects".into(), serde_json::json!({"name": "p"})).await;
        let id = project["id"].as_str().unwrap();
        post(
            format!("/v1/projects/{id}/deploys"),
            serde_json::json!({"files": {"index.html": "x"}}),
        )
        .await;
        post(
            format!("/v1/projects/{id}/domains"),
            serde_json::json!({"hostname": "www.example.com"}),
        )
        .await;
        let attached = local_attached_hostnames(api, &info).await.unwrap();
        assert_eq!(
            attached.into_iter().collect::<Vec<_>>(),
            ["www.example.com"]
        );
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
