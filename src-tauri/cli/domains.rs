//! `domain-desk projects …` and `domain-desk domains …`: the window's Domains view on the
//! command line, each subcommand a call or two into the client. This file holds the clap
//! definitions and the dispatch; each job has its file: `domains/add.rs` (add, the www pair,
//! `--auto`), `domains/list.rs` (list, inspect, renewal readiness), `domains/change.rs`
//! (verify, remove, primary, redirect, move), `domains/show.rs` (how a domain is printed),
//! and `bulk.rs` (import, export).

use domain_desk_api::Project;
use domain_desk_client::{Client, PairTarget};

use super::connect::Connection;
use super::output::{Failure, Outcome, inert, print_json, table};

mod add;
mod change;
mod list;
mod show;

#[derive(Debug, clap::Subcommand)]
pub enum ProjectsCommand {
    /// Every project of the account.
    ///
    /// Example: domain-desk projects list
    List,
}

#[derive(Debug, clap::Subcommand)]
pub enum DomainsCommand {
    /// The project's domains with their status, the DNS record each needs, and for a live
    /// domain whether its certificate's next renewal would pass with DNS as it is now.
    ///
    /// Example: domain-desk domains list --project shop
    List,
    /// Add a domain (a wildcard such as *.shop.example.com too); prints the DNS records to
    /// create at the domain's DNS provider, and for a name served elsewhere today the
    /// `_acme-challenge` record that gets its certificate before the switch.
    ///
    /// Example: domain-desk domains add www.example.com --project shop
    ///
    /// Example: domain-desk domains add example.com --with-www --project shop
    Add {
        hostname: String,
        /// Make it a 301 redirect to this domain of the project.
        #[arg(long, value_name = "HOSTNAME")]
        redirect_to: Option<String>,
        /// Add the apex and its www name together, www redirecting (301) to the apex
        /// (HOSTNAME is either of them).
        #[arg(long, conflicts_with_all = ["redirect_to", "auto"])]
        with_www: bool,
        /// With the www name: the apex redirects to www instead (implies --with-www).
        #[arg(long, conflicts_with_all = ["redirect_to", "auto"])]
        www_primary: bool,
        /// Create the DNS record through the domain's DNS provider when it supports Domain
        /// Connect: it names the host of the provider's consent page and asks (y/N) before
        /// the page opens in the browser, then the domain is verified.
        #[arg(long)]
        auto: bool,
        /// With --auto: open the provider's consent page without asking (for scripts; when
        /// standard input is not a terminal, --auto refuses to go on without it).
        #[arg(long, requires = "auto")]
        yes: bool,
    },
    /// Everything the window's detail panel shows: the record to create, the verification's
    /// evidence, the certificate and its renewal. Exits with status 1 when the domain is not
    /// live, or when its certificate's renewal will fail with DNS as it is now.
    ///
    /// Example: domain-desk domains inspect www.example.com --project shop
    Inspect { hostname: String },
    /// Check the DNS record now. Exits with status 1 when verification fails, and says why.
    ///
    /// Example: domain-desk domains verify www.example.com --project shop
    Verify { hostname: String },
    /// Remove a domain from the project.
    ///
    /// Example: domain-desk domains remove old.example.com --project shop
    Remove { hostname: String },
    /// Make a domain the project's primary domain (the others redirect or alias to it).
    ///
    /// Example: domain-desk domains primary www.example.com --project shop
    Primary { hostname: String },
    /// Make a domain 301-redirect to another domain of the project, or stop with --none.
    ///
    /// Example: domain-desk domains redirect example.com --to www.example.com --project shop
    Redirect {
        hostname: String,
        #[arg(long, value_name = "HOSTNAME", required_unless_present = "none")]
        to: Option<String>,
        /// Stop redirecting.
        #[arg(long, conflicts_with = "to")]
        none: bool,
    },
    /// Move a domain to another project of the account without a gap: its status and
    /// certificate are kept and the platform serves the other project's site under it at once.
    ///
    /// Example: domain-desk domains move shop.example.com --to blog --project shop
    Move {
        hostname: String,
        /// The project to move it to, by id or by name.
        #[arg(long, value_name = "PROJECT")]
        to: String,
    },
    /// Add every row of a CSV (`hostname[,redirect_to]`) or JSON lines file (wildcards too),
    /// paced by the plan's rate limits; safe to run again after any interruption.
    ///
    /// Example: domain-desk domains import domains.csv --project shop
    Import(super::bulk::ImportArgs),
    /// Every domain with its status and the DNS record to create, as CSV, JSON or a BIND zone
    /// fragment (with each `_acme-challenge` delegation).
    ///
    /// Example: domain-desk domains export --project shop --format zone > records.zone
    Export(super::bulk::ExportArgs),
}

/// Finds a project by id or by exact name.
pub async fn find_project(client: &Client, wanted: &str) -> Result<Project, Failure> {
    let projects = client.projects().await?;
    let mut matches = projects
        .iter()
        .filter(|p| p.id == wanted || p.name == wanted);
    match (matches.next(), matches.next()) {
        (Some(project), None) => Ok(project.clone()),
        (Some(_), Some(_)) => Err(Failure::usage(format!(
            "More than one project is named {}; give its id (`domain-desk projects list`).",
            inert(wanted)
        ))),
        (None, _) => Err(Failure::usage(format!(
            "No project {} in this account; `domain-desk projects list` shows them.",
            inert(wanted)
        ))),
    }
}

pub async fn projects(connection: &Connection, json: bool) -> Outcome {
    let projects = connection.client.projects().await?;
    if json {
        return print_json(&domain_desk_api::ProjectList {
            projects,
            next_cursor: None,
        });
    }
    let rows: Vec<Vec<String>> = projects
        .iter()
        .map(|p| {
            vec![
                inert(&p.id),
                inert(&p.name),
                inert(p.primary_domain.as_deref().unwrap_or("—")),
                inert(&p.url),
            ]
        })
        .collect();
    print!("{}", table(&["ID", "NAME", "PRIMARY DOMAIN", "URL"], &rows));
    Ok(())
}

/// Runs a `domains` subcommand on `project`.
pub async fn run(
    connection: &Connection,
    project: &Project,
    command: DomainsCommand,
    json: bool,
    no_wait: bool,
) -> Outcome {
    match command {
        DomainsCommand::List => list::list(connection, project, json).await,
        DomainsCommand::Add {
            hostname,
            redirect_to,
            with_www,
            www_primary,
            auto,
            yes,
        } => {
            let www = match (with_www, www_primary) {
                (_, true) => Some(PairTarget::Www),
                (true, false) => Some(PairTarget::Apex),
                (false, false) => None,
            };
            let request = add::AddRequest {
                hostname,
                redirect_to,
                auto,
                yes,
                www,
            };
            add::add(connection, project, request, json, no_wait).await
        }
        DomainsCommand::Inspect { hostname } => {
            list::inspect(connection, project, &hostname, json).await
        }
        DomainsCommand::Verify { hostname } => {
            change::verify(connection, project, &hostname, json, no_wait).await
        }
        DomainsCommand::Remove { hostname } => {
            change::remove(connection, project, &hostname, json, no_wait).await
        }
        DomainsCommand::Primary { hostname } => {
            change::primary(connection, project, &hostname, json, no_wait).await
        }
        DomainsCommand::Redirect {
            hostname,
            to,
            none: _,
        } => change::redirect(connection, project, &hostname, to.as_deref(), json, no_wait).await,
        DomainsCommand::Move { hostname, to } => {
            let to = find_project(&connection.client, &to).await?;
            change::move_to(connection, project, &hostname, &to, json, no_wait).await
        }
        DomainsCommand::Import(args) => {
            super::bulk::import(connection, project, args, json, no_wait).await
        }
        DomainsCommand::Export(args) => super::bulk::export(connection, project, args).await,
    }
}
