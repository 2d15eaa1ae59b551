//! The command line: the same crates as the window, driven headless. Subcommands print to
//! standard output, which is the one place the workspace allows it.
//!
//! This file holds the list of subcommands (the clap definitions) and dispatches to them:
//! it sets up logging once, gives each its runtime and turns its outcome into the exit
//! status. Each subcommand lives in `cli/`, one file per job: `serve.rs`, `doctor.rs`,
//! `accounts.rs` (login, logout, accounts), `domains.rs` and `bulk.rs` (projects and domains,
//! import and export), over `connect.rs` (which account) and `output.rs` (tables, exit
//! statuses).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod accounts;
mod bulk;
mod connect;
mod doctor;
mod domains;
mod output;
mod serve;

pub use connect::ApiArgs;
pub use doctor::DoctorArgs;
pub use domains::{DomainsCommand, ProjectsCommand};
pub use output::report_error;
pub use serve::ServeArgs;

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

/// Runs a headless subcommand and turns its outcome into the process's exit status.
pub fn run(command: Command) -> ExitCode {
    crate::logs::to_stderr(match command {
        Command::Serve(_) => "info,hickory_server=warn,hickory_proto=warn",
        // hickory's DNSSEC handle warns about each odd answer it validates; the doctor's
        // report says what matters.
        _ => "warn,hickory_proto=error",
    });
    match command {
        Command::Info => {
            let paths = crate::paths::AppPaths::from_os();
            println!("domain-desk {}", env!("CARGO_PKG_VERSION"));
            println!("data: {}", paths.data_dir.display());
            println!("logs: {}", paths.log_dir.display());
            ExitCode::SUCCESS
        }
        Command::Doctor(args) => doctor::run(args),
        Command::Login(args) => on_runtime(accounts::login(args)),
        Command::Logout { account } => finish(accounts::logout(&account)),
        Command::Accounts { json } => finish(accounts::list(json)),
        Command::Projects { command, api } => on_runtime(async move {
            let pool = connect::shared_pool();
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
            let pool = connect::shared_pool();
            let connection = connect::connect(&api, &pool).await?;
            let project = domains::find_project(&connection.client, &project).await?;
            domains::run(&connection, &project, command, api.json, api.no_wait).await
        }),
        Command::Serve(args) => serve::run(args),
    }
}

fn finish(outcome: output::Outcome) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.exit(),
    }
}

/// Runs a command that talks to the platform on a runtime of its own.
fn on_runtime(command: impl std::future::Future<Output = output::Outcome>) -> ExitCode {
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => finish(runtime.block_on(command)),
        Err(err) => output::Failure::check(err.to_string()).exit(),
    }
}
