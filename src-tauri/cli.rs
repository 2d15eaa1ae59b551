//! The command line: the same crates as the window, driven headless. Subcommands print to
//! standard output, which is the one place the workspace allows it.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
        Command::Serve(args) => match serve(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                report_error(&err);
                ExitCode::FAILURE
            }
        },
    }
}

fn serve(args: ServeArgs) -> Result<(), domain_desk_service::Error> {
    use domain_desk_service::{Service, ServiceSettings, Storage};
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let storage = if args.memory {
        Storage::Memory
    } else {
        Storage::File(
            args.data
                .unwrap_or_else(|| crate::paths::AppPaths::from_os().demo_database()),
        )
    };
    let settings = ServiceSettings {
        storage: storage.clone(),
        api_addr: args.api,
        dns_addr: args.dns,
        edge_https_addr: args.edge_https,
        edge_http_addr: args.edge_http,
        clock_speed: args.clock_speed,
        ..ServiceSettings::default()
    };
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let service = Service::bind(settings).await?;
        let info = service.info().await?;
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
        service.run(shutdown_signal()).await
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
