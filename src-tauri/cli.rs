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
    /// Which platform and account, and how to print: before or after the subcommand.
    #[command(flatten)]
    pub api: ApiArgs,
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
    Accounts,
    /// The account's projects.
    Projects {
        #[command(subcommand)]
        command: ProjectsCommand,
    },
    /// A project's custom domains: list, add, inspect, verify, remove, primary, redirect,
    /// move, import and export.
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
    },
}

/// Runs a headless subcommand with the connection flags `api` (given before or after it) and
/// turns its outcome into the process's exit status.
pub fn run(command: Command, api: ApiArgs) -> ExitCode {
    crate::logs::to_stderr(match command {
        // hickory_net: the sockets and streams that were hickory_proto's before 0.26.
        Command::Serve(_) => "info,hickory_server=warn,hickory_proto=warn,hickory_net=warn",
        // hickory's DNSSEC handle (in hickory_net since 0.26) warns about each odd answer it
        // validates; the doctor's report says what matters.
        _ => "warn,hickory_proto=error,hickory_net=error",
    });
    // The user's own folders, private, before anything is kept there; without a home folder
    // nothing is kept anywhere shared (`/tmp`) instead. The doctor keeps nothing.
    if !matches!(command, Command::Doctor(_) | Command::Serve(_))
        && let Err(err) =
            domain_desk_app::paths::AppPaths::from_os().and_then(|paths| paths.prepare())
    {
        report_error(&err);
        return ExitCode::from(2);
    }
    match command {
        Command::Info => {
            let paths = match domain_desk_app::paths::AppPaths::from_os() {
                Ok(paths) => paths,
                Err(err) => {
                    report_error(&err);
                    return ExitCode::from(2);
                }
            };
            println!("domain-desk {}", env!("CARGO_PKG_VERSION"));
            println!("data: {}", paths.data_dir.display());
            println!("logs: {}", paths.log_dir.display());
            ExitCode::SUCCESS
        }
        Command::Doctor(args) => doctor::run(args, &api),
        Command::Login(args) => on_runtime(accounts::login(args, api.json)),
        Command::Logout { account } => finish(accounts::logout(&account)),
        Command::Accounts => finish(accounts::list(api.json)),
        Command::Projects { command } => on_runtime(async move {
            let pool = connect::shared_pool();
            let connection = connect::connect(&api, &pool).await?;
            match command {
                ProjectsCommand::List => domains::projects(&connection, api.json).await,
            }
        }),
        Command::Domains { command, project } => on_runtime(async move {
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Each `Example:` in the help is a command line the program accepts, flags before the
    /// subcommand included (`domain-desk --local domains add …` once was refused).
    #[test]
    fn every_example_in_the_help_parses() {
        fn examples(command: &mut clap::Command, found: &mut Vec<String>) {
            let help = command.render_long_help().to_string();
            for line in help.lines() {
                let line = line.trim_start();
                let example = line.strip_prefix("Example: ").unwrap_or(line);
                if example.starts_with("domain-desk ") {
                    // A shell redirection is not the program's.
                    let example = example.split(" > ").next().unwrap_or(example);
                    found.push(example.trim().to_owned());
                }
            }
            for sub in command.get_subcommands_mut() {
                examples(sub, found);
            }
        }
        let mut found = Vec::new();
        examples(&mut Cli::command(), &mut found);
        found.sort();
        found.dedup();
        assert!(found.len() >= 14, "{found:?}");
        for example in &found {
            if let Err(err) = Cli::try_parse_from(example.split_whitespace()) {
                panic!("`{example}` from the help does not parse:\n{err}");
            }
        }
    }

    /// The connection flags go before the subcommand or after it, and mean the same.
    #[test]
    fn connection_flags_go_before_or_after_the_subcommand() {
        let parse = |line: &str| Cli::try_parse_from(line.split_whitespace()).unwrap();
        for line in [
            "domain-desk --local --plan business --local-api 127.0.0.1:9 --json --no-wait projects list",
            "domain-desk projects list --local --plan business --local-api 127.0.0.1:9 --json --no-wait",
            "domain-desk --local projects --plan business list --local-api 127.0.0.1:9 --json --no-wait",
        ] {
            let api = parse(line).api;
            assert!(api.local && api.json && api.no_wait, "{line}");
            assert_eq!(api.plan, "business", "{line}");
            assert_eq!(api.local_api.to_string(), "127.0.0.1:9", "{line}");
        }
        let cli = parse("domain-desk --account acc_1@api.example.com domains list -p shop");
        assert_eq!(cli.api.account.as_deref(), Some("acc_1@api.example.com"));
        assert!(parse("domain-desk --json accounts").api.json);
        assert!(
            Cli::try_parse_from([
                "domain-desk",
                "--local",
                "--account",
                "a",
                "projects",
                "list"
            ])
            .is_err(),
            "--local and --account name two different accounts"
        );
    }
}
