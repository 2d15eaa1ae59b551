//! `domains verify`, `remove`, `primary`, `redirect` and `move`: one change each, a call or
//! two into the client, the answer printed.

use domain_desk_api::Project;

use super::super::connect::{Connection, refuse_to_wait};
use super::super::output::{Failure, Outcome, inert, print_json};
use super::show::{domain_name, print_detail};

pub async fn verify(
    connection: &Connection,
    project: &Project,
    hostname: &str,
    json: bool,
    no_wait: bool,
) -> Outcome {
    refuse_to_wait(connection, 1, no_wait).await?;
    let domain = connection
        .client
        .verify_domain(&project.id, &domain_name(hostname)?)
        .await?;
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

pub async fn remove(
    connection: &Connection,
    project: &Project,
    hostname: &str,
    json: bool,
    no_wait: bool,
) -> Outcome {
    refuse_to_wait(connection, 1, no_wait).await?;
    let name = domain_name(hostname)?;
    let removed = connection
        .client
        .remove_domain_reporting(&project.id, &name)
        .await?;
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

pub async fn primary(
    connection: &Connection,
    project: &Project,
    hostname: &str,
    json: bool,
    no_wait: bool,
) -> Outcome {
    refuse_to_wait(connection, 2, no_wait).await?;
    let name = domain_name(hostname)?;
    let config = connection.client.make_primary(&project.id, &name).await?;
    if json {
        return print_json(&config);
    }
    println!("{name} is the primary domain of {}.", inert(&project.name));
    Ok(())
}

pub async fn redirect(
    connection: &Connection,
    project: &Project,
    hostname: &str,
    to: Option<&str>,
    json: bool,
    no_wait: bool,
) -> Outcome {
    refuse_to_wait(connection, 2, no_wait).await?;
    let name = domain_name(hostname)?;
    let to = to.map(domain_name).transpose()?;
    let config = connection
        .client
        .redirect(&project.id, &name, to.as_deref())
        .await?;
    if json {
        return print_json(&config);
    }
    match to {
        Some(to) => println!("{name} now redirects (301) to {to}."),
        None => println!("{name} no longer redirects."),
    }
    Ok(())
}

/// `domains move HOST --to PROJECT`: the domain changes project without a gap (status,
/// certificate and validation kept; the platform serves it from the target from the same
/// instant).
pub async fn move_to(
    connection: &Connection,
    project: &Project,
    hostname: &str,
    to: &Project,
    json: bool,
    no_wait: bool,
) -> Outcome {
    let name = domain_name(hostname)?;
    if to.id == project.id {
        return Err(Failure::usage(format!(
            "{name} is in {} already; name another project with --to.",
            inert(&project.name)
        )));
    }
    refuse_to_wait(connection, 1, no_wait).await?;
    let domain = connection
        .client
        .move_domain(&project.id, &name, &to.id)
        .await?;
    if json {
        return print_json(&domain);
    }
    let how = if domain.status == domain_desk_api::DomainStatus::Live {
        "it serves that project's site from now on, with its certificate; nothing stopped being served".to_owned()
    } else {
        format!(
            "it is {} there, its certificate {}",
            domain_desk_api::wire_name(&domain.status),
            domain_desk_api::wire_name(&domain.certificate.status)
        )
    };
    println!(
        "Moved {} from {} to {}: {how}.",
        inert(&domain.unicode_hostname),
        inert(&project.name),
        inert(&to.name),
    );
    Ok(())
}
