//! `domains list` and `domains inspect`: the project's domains, and one domain as the
//! window's detail panel shows it, each live domain with its renewal readiness (DNS questions
//! only, `domain_desk_app::renewal`).

use std::collections::BTreeMap;

use domain_desk_api::{Domain, DomainStatus, Project, wire_name};
use domain_desk_doctor::renewal::{Readiness, RenewalState};

use super::super::connect::Connection;
use super::super::output::{Failure, Outcome, inert, print_json, record_line, table};
use super::show::{domain_name, not_live_fails, print_detail};

pub async fn list(connection: &Connection, project: &Project, json: bool) -> Outcome {
    let domains = connection.client.domains(&project.id).await?;
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

pub async fn inspect(
    connection: &Connection,
    project: &Project,
    hostname: &str,
    json: bool,
) -> Outcome {
    let domain = connection
        .client
        .domain(&project.id, &domain_name(hostname)?)
        .await?;
    let renewal = renewal_readiness(connection, std::slice::from_ref(&domain)).await;
    let readiness = renewal.get(&domain.hostname);
    if json {
        let mut value = serde_json::to_value(&domain)
            .map_err(|err| Failure::check(format!("could not write the domain as JSON: {err}")))?;
        value["renewal"] = serde_json::to_value(readiness).unwrap_or_default();
        print_json(&value)?;
    } else {
        print_detail(&domain);
        print_renewal(&domain, readiness);
    }
    not_live_fails(&domain)?;
    renewal_fails(readiness)
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
