//! `domain-desk projects …` and `domain-desk domains …`: the window's Domains view on the
//! command line, each subcommand a call or two into the client. `list` and `inspect` add each
//! live domain's renewal readiness (DNS questions only, `domain_desk_app::renewal`).

use std::collections::BTreeMap;
use std::io::IsTerminal;

use domain_desk_api::{AddDomain, Domain, DomainStatus, Hostname, Project, wire_name};
use domain_desk_client::Client;
use domain_desk_doctor::renewal::{Readiness, RenewalState};

use super::connect::{Connection, refuse_to_wait};
use super::output::{Failure, Outcome, inert, print_json, record_line, table};

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
    /// Add a domain; prints the DNS record to create at the domain's DNS provider.
    ///
    /// Example: domain-desk domains add www.example.com --project shop
    Add {
        hostname: String,
        /// Make it a 301 redirect to this domain of the project.
        #[arg(long, value_name = "HOSTNAME")]
        redirect_to: Option<String>,
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
    /// Add every row of a CSV (`hostname[,redirect_to]`) or JSON lines file, paced by the
    /// plan's rate limits; safe to run again after any interruption.
    ///
    /// Example: domain-desk domains import domains.csv --project shop
    Import(super::bulk::ImportArgs),
    /// Every domain with its status and the DNS record to create, as CSV, JSON or a BIND zone
    /// fragment.
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

fn hostname(input: &str) -> Result<String, Failure> {
    Hostname::parse(input)
        .map(|h| h.as_str().to_owned())
        .map_err(|err| Failure::usage(err.to_string()))
}

/// Runs a `domains` subcommand on `project`.
pub async fn run(
    connection: &Connection,
    project: &Project,
    command: DomainsCommand,
    json: bool,
    no_wait: bool,
) -> Outcome {
    let client = &connection.client;
    match command {
        DomainsCommand::List => {
            let domains = client.domains(&project.id).await?;
            let renewal = renewal_readiness(connection, &domains).await;
            if json {
                return print_json(&serde_json::json!({
                    "domains": domains,
                    "next_cursor": null,
                    "renewal": renewal,
                }));
            }
            let rows: Vec<Vec<String>> = domains
                .iter()
                .map(|d| {
                    vec![
                        inert(&d.unicode_hostname),
                        wire_name(&d.role),
                        wire_name(&d.status),
                        wire_name(&d.certificate.status),
                        renewal_cell(renewal.get(&d.hostname)),
                        record_line(d),
                    ]
                })
                .collect();
            print!(
                "{}",
                table(
                    &[
                        "DOMAIN",
                        "ROLE",
                        "STATUS",
                        "CERTIFICATE",
                        "RENEWAL",
                        "DNS RECORD TO CREATE"
                    ],
                    &rows
                )
            );
            Ok(())
        }
        DomainsCommand::Add {
            hostname: name,
            redirect_to,
            auto,
            yes,
        } => {
            let body = AddDomain {
                hostname: hostname(&name)?,
                redirect_to,
            };
            // Before anything is added: can the go-ahead be had?
            let go_ahead = if auto {
                Some(go_ahead(yes, std::io::stdin().is_terminal())?)
            } else {
                None
            };
            refuse_to_wait(connection, 1, no_wait).await?;
            let domain = client.add_domain(&project.id, &body).await?;
            if !json {
                println!(
                    "Added {} to {}.",
                    inert(&domain.unicode_hostname),
                    inert(&project.name)
                );
            }
            if let Some(go_ahead) = go_ahead {
                return set_up_automatically(connection, project, &domain, json, go_ahead).await;
            }
            let warnings = preflight_warnings(connection, &domain).await;
            if json {
                return print_json(&domain);
            }
            print_preflight(&warnings);
            println!(
                "Create this record at the domain's DNS provider, then run `domain-desk domains verify {}`:",
                domain.hostname
            );
            print_record(&domain);
            Ok(())
        }
        DomainsCommand::Inspect { hostname: name } => {
            let domain = client.domain(&project.id, &hostname(&name)?).await?;
            let renewal = renewal_readiness(connection, std::slice::from_ref(&domain)).await;
            let readiness = renewal.get(&domain.hostname);
            if json {
                let mut value = serde_json::to_value(&domain).map_err(|err| {
                    Failure::check(format!("could not write the domain as JSON: {err}"))
                })?;
                value["renewal"] = serde_json::to_value(readiness).unwrap_or_default();
                print_json(&value)?;
            } else {
                print_detail(&domain);
                print_renewal(&domain, readiness);
            }
            not_live_fails(&domain)?;
            renewal_fails(readiness)
        }
        DomainsCommand::Verify { hostname: name } => {
            refuse_to_wait(connection, 1, no_wait).await?;
            let domain = client.verify_domain(&project.id, &hostname(&name)?).await?;
            if json {
                print_json(&domain)?;
            } else {
                print_detail(&domain);
            }
            match &domain.verification.error {
                Some(error) => Err(Failure::check(format!(
                    "verification failed: {}",
                    inert(&error.message)
                ))),
                None => Ok(()),
            }
        }
        DomainsCommand::Remove { hostname: name } => {
            refuse_to_wait(connection, 1, no_wait).await?;
            let name = hostname(&name)?;
            let removed = client.remove_domain_reporting(&project.id, &name).await?;
            if json {
                return print_json(&serde_json::json!({
                    "removed": name,
                    "dangling_record": removed.dangling_record,
                }));
            }
            println!("Removed {name}.");
            if let Some(record) = &removed.dangling_record {
                println!(
                    "Its DNS record still points at the platform: delete it at the DNS provider now, or whoever attaches {name} to their project takes it over:"
                );
                println!(
                    "  {} {} → {}",
                    inert(&record.record_type),
                    inert(&record.fqdn),
                    inert(&record.value)
                );
            }
            Ok(())
        }
        DomainsCommand::Primary { hostname: name } => {
            refuse_to_wait(connection, 2, no_wait).await?;
            let name = hostname(&name)?;
            let config = client.make_primary(&project.id, &name).await?;
            if json {
                return print_json(&config);
            }
            println!("{name} is the primary domain of {}.", inert(&project.name));
            Ok(())
        }
        DomainsCommand::Redirect {
            hostname: name,
            to,
            none: _,
        } => {
            refuse_to_wait(connection, 2, no_wait).await?;
            let name = hostname(&name)?;
            let to = to.as_deref().map(hostname).transpose()?;
            let config = client.redirect(&project.id, &name, to.as_deref()).await?;
            if json {
                return print_json(&config);
            }
            match to {
                Some(to) => println!("{name} now redirects (301) to {to}."),
                None => println!("{name} no longer redirects."),
            }
            Ok(())
        }
        DomainsCommand::Import(args) => {
            super::bulk::import(connection, project, args, json, no_wait).await
        }
        DomainsCommand::Export(args) => super::bulk::export(connection, project, args).await,
    }
}

/// How `domains add --auto` has the user's go-ahead to open the provider's consent page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoAhead {
    /// `--yes`: given on the command line.
    Given,
    /// Asked on the terminal (y/N), once the provider's host is known.
    Ask,
}

/// `--yes`, else a question on the terminal; without a terminal to ask on, a refusal: the
/// page's address comes from an unsigned DNS record, so it never opens unasked.
fn go_ahead(yes: bool, terminal: bool) -> Result<GoAhead, Failure> {
    match (yes, terminal) {
        (true, _) => Ok(GoAhead::Given),
        (false, true) => Ok(GoAhead::Ask),
        (false, false) => Err(Failure::usage(
            "--auto asks before it opens the DNS provider's consent page in your browser, and standard input is not a terminal: add --yes to open it without asking.",
        )),
    }
}

/// Whether an answer to "[y/N]" is yes.
fn said_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// `domains add --auto`: Domain Connect when the provider offers it (its consent page's host
/// named, and opened once the user says yes), then Verify
/// ([`domain_desk_app::auto_setup`], as the window's Set up automatically does); the manual
/// steps otherwise.
async fn set_up_automatically(
    connection: &Connection,
    project: &Project,
    domain: &Domain,
    json: bool,
    go_ahead: GoAhead,
) -> Outcome {
    use domain_desk_app::auto_setup::{self, CONSENT_WAIT, SetUp};
    use domain_desk_client::domain_connect::Consent;
    let discovery = connection.domain_connect()?;
    let done = auto_setup::set_up_then_verify(
        &connection.client,
        &discovery,
        &project.id,
        &domain.hostname,
        async |consent: &Consent| {
            eprintln!(
                "{}'s consent page for {} is at {}.",
                inert(&consent.provider),
                inert(&domain.unicode_hostname),
                inert(&consent.host)
            );
            if go_ahead == GoAhead::Ask {
                eprint!("Open it in your browser? [y/N] ");
                let answer = tokio::task::spawn_blocking(|| {
                    let mut line = String::new();
                    std::io::stdin().read_line(&mut line).map(|_| line)
                })
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
                if !said_yes(&answer) {
                    return None;
                }
            }
            Some(consent.host.clone())
        },
        |url| {
            eprintln!("Opening the DNS provider's consent page in your browser:\n  {url}");
            crate::browser::open_url(url)
        },
        CONSENT_WAIT,
    )
    .await?;
    match done {
        SetUp::Declined => {
            if json {
                return print_json(domain);
            }
            println!("Nothing was opened. Create the record by hand:");
            print_record(domain);
            Ok(())
        }
        SetUp::NotOffered { reason } => {
            if json {
                return print_json(domain);
            }
            println!("{reason}");
            print_record(domain);
            Ok(())
        }
        SetUp::Refused {
            provider,
            error,
            description,
        } => Err(Failure::check(format!(
            "{} did not write the record ({}{}); create it by hand:\n  {}",
            inert(&provider),
            inert(&error),
            if description.is_empty() {
                String::new()
            } else {
                format!(": {}", inert(&description))
            },
            record_line(domain)
        ))),
        SetUp::Applied {
            provider,
            domain: verified,
        } => {
            if json {
                print_json(&verified)?;
            } else {
                println!("{} wrote the record.", inert(&provider));
                print_detail(&verified);
            }
            match &verified.verification.error {
                None => Ok(()),
                Some(error) => Err(Failure::check(format!(
                    "not verified yet: {} DNS changes can take a while to reach the platform; run `domain-desk domains verify {}` in a minute.",
                    inert(&error.message),
                    domain.hostname
                ))),
            }
        }
    }
}

/// The doctor's quick look at a name just added (the window's pre-flight, one code path:
/// [`domain_desk_doctor::preflight`]): what would stand in the way. Empty when DNS could not
/// be asked (said on standard error: the name is added all the same).
async fn preflight_warnings(
    connection: &Connection,
    domain: &Domain,
) -> Vec<domain_desk_doctor::Finding> {
    let platform = match domain_desk_app::renewal::platform(
        connection.local.as_ref(),
        std::slice::from_ref(domain),
    )
    .await
    {
        Ok(platform) => platform,
        Err(err) => {
            eprintln!(
                "The DNS pre-flight could not run: {}",
                inert(&err.to_string())
            );
            return Vec::new();
        }
    };
    match domain_desk_doctor::preflight::check(&domain.hostname, &platform.options).await {
        Ok(found) => found.warnings,
        Err(err) => {
            eprintln!(
                "The DNS pre-flight could not run: {}",
                inert(&err.to_string())
            );
            Vec::new()
        }
    }
}

fn print_preflight(warnings: &[domain_desk_doctor::Finding]) {
    if warnings.is_empty() {
        return;
    }
    println!("Before you create the record:");
    for warning in warnings {
        println!("  ⚠ {}", inert(&warning.title));
        match &warning.fix {
            Some(fix) => println!("    {}", inert(&fix.summary)),
            None => println!("    {}", inert(&warning.detail)),
        }
    }
}

/// The renewal readiness of the live domains among `domains`; empty when DNS could not be
/// asked (said on standard error: the rest of the answer stands).
async fn renewal_readiness(
    connection: &Connection,
    domains: &[Domain],
) -> BTreeMap<String, Readiness> {
    match domain_desk_app::renewal::readiness(connection.local.as_ref(), domains).await {
        Ok(found) => found,
        Err(err) => {
            eprintln!(
                "The renewal check could not run: {}",
                inert(&err.to_string())
            );
            BTreeMap::new()
        }
    }
}

fn renewal_cell(readiness: Option<&Readiness>) -> String {
    let word = domain_desk_app::renewal::state_word(readiness);
    match readiness {
        Some(ready) if ready.state == RenewalState::AtRisk => {
            format!("{word} ({})", ready.renews_at.format("%-d %b %Y"))
        }
        _ => word.to_owned(),
    }
}

fn renewal_fails(readiness: Option<&Readiness>) -> Outcome {
    match readiness {
        Some(ready) if ready.state == RenewalState::AtRisk => {
            // The explanation above says why; the status is for scripts.
            Err(Failure::check(""))
        }
        _ => Ok(()),
    }
}

fn print_renewal(domain: &Domain, readiness: Option<&Readiness>) {
    let Some(ready) = readiness else {
        if domain.status == DomainStatus::Live {
            println!("renewal      not checked");
        }
        return;
    };
    println!(
        "renewal      {}, from {} (checked {})",
        domain_desk_app::renewal::state_word(Some(ready)),
        ready.renews_at.format("%-d %b %Y"),
        ready.checked_at.format("%-d %b %Y %H:%M UTC")
    );
    if let Some(note) = &ready.note {
        println!("  {}", inert(note));
    }
    let Some(finding) = &ready.finding else {
        return;
    };
    println!("  {}", inert(&finding.detail));
    if let Some(fix) = &finding.fix {
        println!("  fix: {}", inert(&fix.summary));
        for change in &fix.changes {
            println!(
                "    {} {} {} {} (zone {})",
                wire_name(&change.action),
                inert(&change.name),
                inert(&change.record_type),
                inert(&change.value),
                inert(&change.zone)
            );
        }
        for step in &fix.steps {
            println!("    - {}", inert(step));
        }
    }
}

fn not_live_fails(domain: &Domain) -> Outcome {
    if domain.status == DomainStatus::Live {
        Ok(())
    } else {
        // The detail above says why; the status is for scripts.
        Err(Failure::check(""))
    }
}

fn print_record(domain: &Domain) {
    let record = &domain.dns_record;
    println!("  type   {}", wire_name(&record.record_type));
    println!("  name   {}", inert(&record.name));
    println!("  value  {}", inert(&record.value));
    println!("  ttl    {}", record.ttl);
    if domain.apex {
        println!(
            "  An apex cannot hold a CNAME: use your provider's ALIAS, ANAME or CNAME flattening. Without one, make www the primary domain and redirect the apex to it."
        );
    }
}

fn print_detail(domain: &Domain) {
    println!("{}", inert(&domain.unicode_hostname));
    if domain.unicode_hostname != domain.hostname {
        println!("  ({})", domain.hostname);
    }
    println!("status       {}", wire_name(&domain.status));
    println!("role         {}", wire_name(&domain.role));
    if let Some(redirect) = &domain.redirect {
        println!("redirects    {} {}", redirect.status, inert(&redirect.to));
    }
    println!("DNS record to create:");
    print_record(domain);
    let verification = &domain.verification;
    match (&verification.checked_at, &verification.error) {
        (None, _) => println!("verification not checked yet"),
        (Some(at), None) => println!("verification passed at {at}"),
        (Some(at), Some(error)) => {
            println!("verification failed at {at}: {}", wire_name(&error.code));
            println!("  {}", inert(&error.message));
            for found in &error.found {
                println!(
                    "  found {} {}",
                    inert(&found.record_type),
                    inert(&found.value)
                );
            }
        }
    }
    let certificate = &domain.certificate;
    print!("certificate  {}", wire_name(&certificate.status));
    if let Some(issued) = certificate.issued_at {
        print!(", issued {issued}");
    }
    if let Some(expires) = certificate.expires_at {
        print!(", expires {expires}");
    }
    println!();
    if let Some(error) = &certificate.error {
        println!("  {}: {}", wire_name(&error.code), inert(&error.message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_asks_on_a_terminal_and_refuses_without_one_unless_yes() {
        assert_eq!(go_ahead(false, true).unwrap(), GoAhead::Ask);
        assert_eq!(go_ahead(true, true).unwrap(), GoAhead::Given);
        assert_eq!(go_ahead(true, false).unwrap(), GoAhead::Given);
        let refused = go_ahead(false, false).unwrap_err();
        assert_eq!(
            refused.status,
            super::super::output::USAGE,
            "a usage mistake"
        );
        assert!(refused.message.contains("--yes"), "{}", refused.message);
    }

    #[test]
    fn only_y_or_yes_opens_the_page() {
        for yes in ["y\n", "Y", "yes\r\n", " YES "] {
            assert!(said_yes(yes), "{yes:?}");
        }
        for no in ["", "\n", "n", "no", "yeah", "ok", "y es"] {
            assert!(!said_yes(no), "{no:?}");
        }
    }
}
