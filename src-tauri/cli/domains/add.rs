//! `domains add`: one name, or an apex with its www name (`--with-www`, one redirecting to the
//! other: `Client::add_www_pair`), then the records to create. The doctor's quick look
//! (`domain_desk_doctor::preflight`, the window's pre-flight) says what stands in the way;
//! for a name that is live on another host today it also gives the `_acme-challenge`
//! delegation, so the certificate is issued before the switch, and for a wildcard, whose
//! certificate only DNS validation can get, both records always. `--auto` sets the record up
//! through the DNS provider's Domain Connect, then verifies (`domain_desk_app::auto_setup`).

use std::io::IsTerminal;

use domain_desk_api::{AddDomain, Domain, Project};
use domain_desk_client::PairTarget;
use domain_desk_doctor::preflight::Preflight;

use super::super::connect::{Connection, refuse_to_wait};
use super::super::output::{Failure, Outcome, inert, print_json, record_line};
use super::show::{domain_name, print_delegation, print_detail, print_record};

/// What `domains add` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddRequest {
    pub hostname: String,
    pub redirect_to: Option<String>,
    pub auto: bool,
    pub yes: bool,
    /// `--with-www` / `--www-primary`: the pair, and which of it the other redirects to.
    pub www: Option<PairTarget>,
}

pub async fn add(
    connection: &Connection,
    project: &Project,
    request: AddRequest,
    json: bool,
    no_wait: bool,
) -> Outcome {
    if let Some(target) = request.www {
        return add_pair(
            connection,
            project,
            &request.hostname,
            target,
            json,
            no_wait,
        )
        .await;
    }
    let body = AddDomain {
        hostname: domain_name(&request.hostname)?,
        redirect_to: request
            .redirect_to
            .as_deref()
            .map(domain_name)
            .transpose()?,
    };
    // Before anything is added: can the go-ahead be had?
    let go_ahead = if request.auto {
        Some(go_ahead(request.yes, std::io::stdin().is_terminal())?)
    } else {
        None
    };
    refuse_to_wait(connection, 1, no_wait).await?;
    let domain = connection.client.add_domain(&project.id, &body).await?;
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
    let preflight = preflight(connection, &domain).await;
    if json {
        return print_json(&domain);
    }
    print_next_steps(&domain, preflight.as_ref());
    Ok(())
}

/// `--with-www` / `--www-primary`: both names, the target first, then the records of each.
async fn add_pair(
    connection: &Connection,
    project: &Project,
    hostname: &str,
    target: PairTarget,
    json: bool,
    no_wait: bool,
) -> Outcome {
    let names = domain_desk_client::www_pair(hostname, target)
        .map_err(|err| Failure::usage(err.to_string()))?;
    refuse_to_wait(connection, 2, no_wait).await?;
    let added = connection
        .client
        .add_www_pair(&project.id, &names.target, target)
        .await?;
    let (target_check, redirect_check) = tokio::join!(
        preflight(connection, &added.target),
        preflight(connection, &added.redirect)
    );
    if json {
        return print_json(&serde_json::json!({
            "domains": [&added.target, &added.redirect],
        }));
    }
    let (to, from) = (
        &added.target.unicode_hostname,
        &added.redirect.unicode_hostname,
    );
    println!(
        "{} {} and {} to {}: {} redirects (301) to {}.",
        if added.target_was_there || added.redirect_was_there {
            "Kept"
        } else {
            "Added"
        },
        inert(to),
        inert(from),
        inert(&project.name),
        inert(from),
        inert(to)
    );
    for (domain, check) in [
        (&added.target, target_check),
        (&added.redirect, redirect_check),
    ] {
        println!();
        println!("{}:", inert(&domain.unicode_hostname));
        print_next_steps(domain, check.as_ref());
    }
    Ok(())
}

/// The records to create for a domain just added, and in what order: the routing record
/// alone; or, for a name live elsewhere today and for a wildcard, the `_acme-challenge`
/// delegation first (the certificate is issued through it while the old host serves), then
/// the routing record.
fn print_next_steps(domain: &Domain, preflight: Option<&Preflight>) {
    let elsewhere = preflight.map_or(&[][..], |found| found.live_elsewhere.as_slice());
    let wildcard = domain.hostname.starts_with("*.");
    let has_delegation = !domain.certificate.validation.dns_record.value.is_empty();
    if let Some(found) = preflight {
        // "Served today by …" is said below, with the steps.
        let warnings: Vec<domain_desk_doctor::Finding> = found
            .warnings
            .iter()
            .filter(|warning| {
                !(has_delegation && warning.code == domain_desk_doctor::FindingCode::LiveElsewhere)
            })
            .cloned()
            .collect();
        print_preflight(&warnings);
    }
    let name = inert(&shell_word(&domain.hostname));
    if !has_delegation || (elsewhere.is_empty() && !wildcard) {
        println!(
            "Create this record at the domain's DNS provider, then run `domain-desk domains verify {}`:",
            name
        );
        print_record(domain);
        return;
    }
    if wildcard {
        println!(
            "A wildcard's certificate is issued only by DNS validation: create both records, then run `domain-desk domains verify {}`.",
            name
        );
        println!("1. The delegation for the certificate:");
        print_delegation(domain);
        println!("2. The routing record:");
        print_record(domain);
        return;
    }
    println!(
        "{} is served today by {}, not the platform. To switch without a gap:",
        inert(&domain.unicode_hostname),
        inert(&elsewhere.join(", "))
    );
    println!(
        "1. Create this record now and run `domain-desk domains verify {}`: the certificate is issued through it while the site stays where it is (verify still says the routing record is missing).",
        name
    );
    print_delegation(domain);
    println!(
        "2. When `domain-desk domains inspect {}` shows the certificate issued, switch the name with this record and verify again: it is live at once.",
        name
    );
    print_record(domain);
}

/// A hostname as a shell takes it in a command to copy: a wildcard quoted, so the shell does
/// not expand its `*`.
fn shell_word(hostname: &str) -> String {
    if hostname.contains('*') {
        format!("'{hostname}'")
    } else {
        hostname.to_owned()
    }
}

/// The doctor's quick look at a name just added (the window's pre-flight, one code path:
/// [`domain_desk_doctor::preflight`]): what would stand in the way, and whether the name is
/// live elsewhere. `None` when DNS could not be asked (said on standard error: the name is
/// added all the same).
async fn preflight(connection: &Connection, domain: &Domain) -> Option<Preflight> {
    let not_run = |err: String| {
        eprintln!("The DNS pre-flight could not run: {}", inert(&err));
    };
    let platform = match domain_desk_app::renewal::platform(
        connection.local.as_ref(),
        std::slice::from_ref(domain),
    )
    .await
    {
        Ok(platform) => platform,
        Err(err) => {
            not_run(err.to_string());
            return None;
        }
    };
    match domain_desk_doctor::preflight::check(&domain.hostname, &platform.options).await {
        Ok(found) => Some(found),
        Err(err) => {
            not_run(err.to_string());
            None
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
            super::super::super::output::USAGE,
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
