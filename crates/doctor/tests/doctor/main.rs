//! The doctor against real DNS servers on loopback: zones built in code holding each
//! mistake, and servers that fail, time out or truncate.

mod caa;
mod capture;
mod challenge_labels;
mod dnssec_links;
mod failures;
mod hostile;
mod nonsense;
mod nsec3_denial;
mod online;
mod output;
mod path_checks;
mod preflight;
mod providers;
#[cfg(target_os = "linux")]
mod real_servers;
mod records;
mod service;
mod support;
mod switch;

use domain_desk_doctor::{FindingCode, HostReport, Report, Severity};

pub fn host<'a>(report: &'a Report, hostname: &str) -> &'a HostReport {
    report
        .hosts
        .iter()
        .find(|host| host.hostname == hostname)
        .unwrap_or_else(|| panic!("no report for {hostname}"))
}

pub fn codes(host: &HostReport, severity: Severity) -> Vec<FindingCode> {
    host.findings
        .iter()
        .filter(|finding| finding.severity == severity)
        .map(|finding| finding.code)
        .collect()
}

pub fn finding(host: &HostReport, code: FindingCode) -> &domain_desk_doctor::Finding {
    host.findings
        .iter()
        .find(|finding| finding.code == code)
        .unwrap_or_else(|| panic!("{}: no {code:?} in {:#?}", host.hostname, host.findings))
}
