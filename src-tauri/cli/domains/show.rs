//! How a domain is printed: its records (the routing record and the `_acme-challenge`
//! delegation), the detail panel's text, and the hostname as the subcommands take it.

use domain_desk_api::{Domain, DomainStatus, Hostname, ValidationMethod, wire_name};

use super::super::output::{Failure, Outcome, inert};

/// A domain's hostname as typed (any case, Unicode, a trailing dot; a wildcard such as
/// `*.shop.example.com`), in the lowercase A-label form the platform names it by.
pub fn domain_name(input: &str) -> Result<String, Failure> {
    Hostname::parse_domain(input)
        .map(|h| h.as_str().to_owned())
        .map_err(|err| Failure::usage(err.to_string()))
}

/// Status 1 unless the domain is live; the detail printed before says why.
pub fn not_live_fails(domain: &Domain) -> Outcome {
    if domain.status == DomainStatus::Live {
        Ok(())
    } else {
        Err(Failure::check(""))
    }
}

pub fn print_record(domain: &Domain) {
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

/// The `_acme-challenge` CNAME that lets the platform's CA validate the name by DNS; nothing
/// when the platform names none.
pub fn print_delegation(domain: &Domain) -> bool {
    let record = &domain.certificate.validation.dns_record;
    if record.name.is_empty() || record.value.is_empty() {
        return false;
    }
    println!("  type   {}", inert(&record.record_type));
    println!("  name   {}", inert(&record.name));
    println!("  value  {}", inert(&record.value));
    true
}

/// How the certificate's control of the name was proven, in words.
fn validation_words(method: Option<ValidationMethod>) -> &'static str {
    match method {
        Some(ValidationMethod::Http) => "http (through the routing record)",
        Some(ValidationMethod::Dns) => "dns (through the _acme-challenge record)",
        Some(ValidationMethod::Unknown) => "a method this version of Domain Desk does not know",
        None => "none yet",
    }
}

pub fn print_detail(domain: &Domain) {
    println!("{}", inert(&domain.unicode_hostname));
    if domain.unicode_hostname != domain.hostname {
        println!("  ({})", inert(&domain.hostname));
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
    println!(
        "validation   {}",
        validation_words(certificate.validation.method)
    );
    if domain.status != DomainStatus::Live
        && certificate.status == domain_desk_api::CertificateStatus::Issued
    {
        println!(
            "  Certificate ready: switch the DNS record when you are ready; the domain is live at the next verify."
        );
    }
    let record = &certificate.validation.dns_record;
    if !record.fqdn.is_empty() && !record.value.is_empty() {
        println!(
            "  delegation {} {} → {}",
            inert(&record.record_type),
            inert(&record.fqdn),
            inert(&record.value)
        );
    }
}
