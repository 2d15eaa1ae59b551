//! Checking an import before anything is sent: every row a hostname the platform can take,
//! no duplicates, redirects to a domain the project will have, room in the plan — and which
//! rows are already done.
//!
//! A plan that passes is the list of rows to send, in an order the platform accepts (domains
//! before the redirects that point at them), each with the `Idempotency-Key` derived from what
//! the row asks for. Running the same import again derives the same keys, so a row whose
//! answer was lost in a crash is answered from the platform's memory instead of acting twice.

use std::collections::HashMap;
use std::fmt;

use domain_desk_api::{Account, Domain, DomainRole, Hostname, Project};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::rows::{Row, RowProblem};

/// A row ready to send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedRow {
    pub line: u64,
    /// Lowercase A-label form.
    pub hostname: String,
    pub redirect_to: Option<String>,
    pub idempotency_key: String,
}

impl PlannedRow {
    /// The row as it would be written in an import file.
    pub fn as_row(&self) -> Row {
        Row {
            line: self.line,
            hostname: self.hostname.clone(),
            redirect_to: self.redirect_to.clone(),
        }
    }
}

/// A row the project already has: nothing is sent for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PresentRow {
    pub line: u64,
    pub hostname: String,
    /// Set when the project has the domain with another redirect than the row asks for.
    pub differs: Option<String>,
    /// The platform answered from an earlier run's request with the same key: that run
    /// added it, and its answer was lost.
    pub added_by_earlier_run: bool,
}

/// What to send, and what needs nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportPlan {
    pub to_send: Vec<PlannedRow>,
    pub already_present: Vec<PresentRow>,
    /// Rows left out because they cannot be imported as written ([`Invalid::Skip`]); empty
    /// otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<RowProblem>,
}

/// What an import does with rows that cannot be imported as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Invalid {
    /// Refuse the whole file, sending nothing ([`Refusal::Rows`]).
    #[default]
    Refuse,
    /// Leave them out and import the valid rows; they are listed in [`ImportPlan::skipped`].
    Skip,
}

/// Why an import is refused before anything is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// Lines that cannot be imported as written; `valid` rows could be imported without them
    /// ([`Invalid::Skip`]).
    Rows {
        problems: Vec<RowProblem>,
        valid: u64,
    },
    /// The account's plan has no custom domains.
    NoCustomDomains { plan: String },
    /// The rows would take the project past its plan's domains.
    TooManyDomains {
        existing: u64,
        new: u64,
        limit: u64,
        plan: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Rows { problems, .. } => {
                write!(f, "{} line(s) cannot be imported:", problems.len())?;
                for problem in problems {
                    write!(f, "\n  {problem}")?;
                }
                write!(f, "\nNothing was sent.")
            }
            Refusal::NoCustomDomains { plan } => write!(
                f,
                "The {plan} plan has no custom domains; upgrade the account to add them. Nothing was sent."
            ),
            Refusal::TooManyDomains {
                existing,
                new,
                limit,
                plan,
            } => write!(
                f,
                "The project has {existing} domain(s) and the file adds {new}: the {plan} plan allows {limit} a project. Nothing was sent."
            ),
        }
    }
}

/// The `Idempotency-Key` of a row: the same for the same account, project, hostname and
/// redirect, whoever runs the import and however often.
pub fn idempotency_key(
    account_id: &str,
    project_id: &str,
    hostname: &str,
    redirect_to: Option<&str>,
) -> String {
    let mut hash = Sha256::new();
    for part in [
        "domain-desk import v1",
        account_id,
        project_id,
        hostname,
        redirect_to.unwrap_or(""),
    ] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    let digest = hash.finalize();
    let hex: String = digest.iter().take(20).map(|b| format!("{b:02x}")).collect();
    format!("import-{hex}")
}

fn row_problem(row: &Row, message: String) -> RowProblem {
    RowProblem {
        line: row.line,
        hostname: Some(row.hostname.clone()),
        redirect_to: row.redirect_to.clone(),
        value: row.hostname.clone(),
        message,
    }
}

/// Checks `rows` against the project as it is now; see the module documentation. Any invalid
/// row refuses the whole file.
pub fn plan(
    rows: &[Row],
    account: &Account,
    project: &Project,
    existing: &[Domain],
) -> Result<ImportPlan, Refusal> {
    plan_with(rows, &[], account, project, existing, Invalid::Refuse)
}

/// As [`plan`], with the lines of the file that could not be read (`unreadable`, from
/// [`crate::rows::read`]) counted among the invalid rows, and `invalid` saying whether invalid
/// rows refuse the file or are left out.
/// Left out, a row takes nothing with it but the rows that depend on it: a redirect to a
/// hostname whose own row is invalid is itself invalid ("neither a domain of the project nor
/// a row of this file").
pub fn plan_with(
    rows: &[Row],
    unreadable: &[RowProblem],
    account: &Account,
    project: &Project,
    existing: &[Domain],
    invalid: Invalid,
) -> Result<ImportPlan, Refusal> {
    if !account.plan.allows_custom_domains() {
        return Err(Refusal::NoCustomDomains {
            plan: account.plan.as_str().to_owned(),
        });
    }
    let existing_by_name: HashMap<&str, &Domain> =
        existing.iter().map(|d| (d.hostname.as_str(), d)).collect();
    let mut problems = unreadable.to_vec();
    let mut first_line: HashMap<String, u64> = HashMap::new();
    // (row, ascii hostname, ascii redirect target)
    let mut checked: Vec<(&Row, String, Option<String>)> = Vec::new();
    for row in rows {
        let problem = |message: String| row_problem(row, message);
        // A wildcard (`*.shop.example.com`) is a domain like any other, with no redirect.
        let (hostname, wildcard) = match Hostname::parse_domain(&row.hostname) {
            Ok(h) => (h.as_str().to_owned(), h.is_wildcard()),
            Err(err) => {
                problems.push(problem(err.to_string()));
                continue;
            }
        };
        if let Some(earlier) = first_line.get(&hostname) {
            problems.push(problem(format!("a duplicate of line {earlier}")));
            continue;
        }
        first_line.insert(hostname.clone(), row.line);
        let redirect_to = match row.redirect_to.as_deref() {
            None => None,
            Some(_) if wildcard => {
                problems.push(problem(
                    "a wildcard cannot redirect; leave redirect_to empty".into(),
                ));
                continue;
            }
            Some(to) => {
                let lowered = to.trim_end_matches('.').to_ascii_lowercase();
                if lowered == project.default_address {
                    Some(lowered)
                } else {
                    match Hostname::parse_domain(to) {
                        Ok(target) if target.is_wildcard() => {
                            problems.push(problem(format!(
                                "redirect_to: {} is a wildcard, which cannot be a redirect's target",
                                target.as_str()
                            )));
                            continue;
                        }
                        Ok(target) if target.as_str() == hostname => {
                            problems.push(problem("a domain cannot redirect to itself".into()));
                            continue;
                        }
                        Ok(target) => Some(target.as_str().to_owned()),
                        Err(err) => {
                            problems.push(problem(format!("redirect_to: {err}")));
                            continue;
                        }
                    }
                }
            }
        };
        checked.push((row, hostname, redirect_to));
    }
    // Redirect targets: the default address, or a domain that does not itself redirect,
    // already in the project or added by a row of this file.
    let file_roles: HashMap<&str, bool> = checked
        .iter()
        .map(|(_, h, to)| (h.as_str(), to.is_some()))
        .collect();
    for (row, _, redirect_to) in &checked {
        let Some(to) = redirect_to else { continue };
        if *to == project.default_address {
            continue;
        }
        let redirects = match (
            existing_by_name.get(to.as_str()),
            file_roles.get(to.as_str()),
        ) {
            (Some(domain), _) => domain.role == DomainRole::Redirect,
            (None, Some(redirects)) => *redirects,
            (None, None) => {
                problems.push(row_problem(
                    row,
                    format!(
                        "redirects to {to}, which is neither a domain of the project nor a row of this file"
                    ),
                ));
                continue;
            }
        };
        if redirects {
            problems.push(row_problem(
                row,
                format!(
                    "redirects to {to}, which redirects itself; point it at the domain {to} leads to (no chains)"
                ),
            ));
        }
    }
    problems.sort_by_key(|p| p.line);
    if !problems.is_empty() {
        let bad: std::collections::HashSet<u64> = problems.iter().map(|p| p.line).collect();
        checked.retain(|(row, _, _)| !bad.contains(&row.line));
        if invalid == Invalid::Refuse {
            return Err(Refusal::Rows {
                problems,
                valid: checked.len() as u64,
            });
        }
    }

    let mut to_send = Vec::new();
    let mut already_present = Vec::new();
    for (row, hostname, redirect_to) in checked {
        if let Some(domain) = existing_by_name.get(hostname.as_str()) {
            let has = domain.redirect.as_ref().map(|r| r.to.as_str());
            let differs = (has != redirect_to.as_deref()).then(|| match has {
                Some(to) => format!("the project has it redirecting to {to}"),
                None => "the project has it without a redirect".to_owned(),
            });
            already_present.push(PresentRow {
                line: row.line,
                hostname,
                differs,
                added_by_earlier_run: false,
            });
            continue;
        }
        let idempotency_key =
            idempotency_key(&account.id, &project.id, &hostname, redirect_to.as_deref());
        to_send.push(PlannedRow {
            line: row.line,
            hostname,
            redirect_to,
            idempotency_key,
        });
    }
    let limit = account.limits.max_domains_per_project;
    let new = to_send.len() as u64;
    let existing_count = existing.len() as u64;
    if existing_count + new > limit {
        return Err(Refusal::TooManyDomains {
            existing: existing_count,
            new,
            limit,
            plan: account.plan.as_str().to_owned(),
        });
    }
    // Domains first, then the redirects that point at them; the file's order otherwise.
    to_send.sort_by_key(|r| r.redirect_to.is_some());
    Ok(ImportPlan {
        to_send,
        already_present,
        skipped: problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain_desk_api::Plan;

    fn account(plan: Plan) -> Account {
        Account {
            id: "acc_1".into(),
            name: "Test".into(),
            plan,
            limits: plan.default_limits(),
        }
    }

    fn project() -> Project {
        serde_json::from_value(serde_json::json!({
            "id": "prj_1", "name": "p", "default_address": "p-abc.platform.test",
            "primary_domain": null, "url": "https://p-abc.platform.test",
            "last_deploy": null, "created_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    fn row(line: u64, hostname: &str, redirect_to: Option<&str>) -> Row {
        Row {
            line,
            hostname: hostname.into(),
            redirect_to: redirect_to.map(Into::into),
        }
    }

    fn problems(result: Result<ImportPlan, Refusal>) -> Vec<String> {
        match result {
            Err(Refusal::Rows { problems, .. }) => {
                problems.iter().map(ToString::to_string).collect()
            }
            other => panic!("expected row problems, got {other:?}"),
        }
    }

    #[test]
    fn keys_depend_on_every_part_of_the_row_and_nothing_else() {
        let key = idempotency_key("a", "p", "shop.example.com", None);
        assert_eq!(key, idempotency_key("a", "p", "shop.example.com", None));
        assert!(key.starts_with("import-") && key.len() == 47);
        for other in [
            idempotency_key("b", "p", "shop.example.com", None),
            idempotency_key("a", "q", "shop.example.com", None),
            idempotency_key("a", "p", "www.example.com", None),
            idempotency_key("a", "p", "shop.example.com", Some("x.example.com")),
            // Parts are length-prefixed: moving a boundary changes the key.
            idempotency_key("ap", "", "shop.example.com", None),
        ] {
            assert_ne!(key, other);
        }
    }

    #[test]
    fn a_wildcard_row_is_planned_but_never_redirects_nor_is_redirected_to() {
        let rows = [
            row(2, "*.Shop.Example.com", None),
            row(3, "*.blog.example.com", Some("shop.example.com")),
            row(4, "www.example.com", Some("*.shop.example.com")),
            row(5, "shop.example.com", None),
        ];
        let shown = problems(plan(&rows, &account(Plan::Pro), &project(), &[]));
        assert_eq!(shown.len(), 2, "{shown:#?}");
        assert!(shown[0].starts_with("line 3: *.blog.example.com: a wildcard cannot redirect"));
        assert!(
            shown[1].contains("*.shop.example.com is a wildcard"),
            "{shown:#?}"
        );

        let fine = plan(
            &[rows[0].clone(), rows[3].clone()],
            &account(Plan::Pro),
            &project(),
            &[],
        )
        .expect("a wildcard row is valid");
        let planned: Vec<&str> = fine.to_send.iter().map(|r| r.hostname.as_str()).collect();
        assert_eq!(planned, ["*.shop.example.com", "shop.example.com"]);
    }

    #[test]
    fn bad_rows_are_all_reported_with_their_lines() {
        let rows = [
            row(2, "shop.example.com", None),
            row(3, "*.example.com", None),
            row(4, "SHOP.example.com.", None),
            row(5, "not a host", None),
            row(6, "www.example.com", Some("www.example.com")),
            row(7, "old.example.com", Some("nowhere.example.com")),
            row(8, "a.example.com", Some("old2.example.com")),
            row(9, "old2.example.com", Some("shop.example.com")),
        ];
        let shown = problems(plan(&rows, &account(Plan::Pro), &project(), &[]));
        assert_eq!(shown.len(), 6, "{shown:#?}");
        assert!(
            shown[0].starts_with("line 3: *.example.com: A wildcard is taken one label below"),
            "{shown:#?}"
        );
        assert_eq!(shown[1], "line 4: SHOP.example.com.: a duplicate of line 2");
        assert!(shown[2].starts_with("line 5: not a host:"));
        assert_eq!(
            shown[3],
            "line 6: www.example.com: a domain cannot redirect to itself"
        );
        assert!(shown[4].contains("nowhere.example.com, which is neither"));
        assert!(shown[5].contains("no chains"));
    }

    /// Refused, the file's problems come with how many rows are valid; left out, the valid
    /// rows are planned and the invalid ones (unreadable lines too) listed, a redirect to an
    /// invalid row among them.
    #[test]
    fn invalid_rows_refuse_the_file_or_are_left_out() {
        let rows = [
            row(1, "a.example.com", None),
            row(2, "not a host", None),
            row(3, "b.example.com", Some("not a host")),
            row(5, "c.example.com", Some("a.example.com")),
            row(6, "a.example.com", None),
        ];
        let unreadable = [RowProblem {
            line: 4,
            hostname: None,
            redirect_to: None,
            value: "x,y,z".into(),
            message: "3 columns".into(),
        }];
        let refused = plan_with(
            &rows,
            &unreadable,
            &account(Plan::Pro),
            &project(),
            &[],
            Invalid::Refuse,
        );
        match refused {
            Err(Refusal::Rows { problems, valid }) => {
                assert_eq!(
                    problems.iter().map(|p| p.line).collect::<Vec<_>>(),
                    vec![2, 3, 4, 6]
                );
                assert_eq!(valid, 2);
                assert_eq!(problems[2].value, "x,y,z");
            }
            other => panic!("{other:?}"),
        }
        let plan = plan_with(
            &rows,
            &unreadable,
            &account(Plan::Pro),
            &project(),
            &[],
            Invalid::Skip,
        )
        .unwrap();
        let sent: Vec<&str> = plan.to_send.iter().map(|r| r.hostname.as_str()).collect();
        assert_eq!(sent, vec!["a.example.com", "c.example.com"]);
        assert_eq!(
            plan.skipped.iter().map(|p| p.line).collect::<Vec<_>>(),
            vec![2, 3, 4, 6]
        );
    }

    #[test]
    fn free_is_refused_and_the_plan_limit_counts_existing_domains() {
        let rows: Vec<Row> = (0..251)
            .map(|i| row(i + 1, &format!("d{i}.example.com"), None))
            .collect();
        assert!(matches!(
            plan(&rows, &account(Plan::Free), &project(), &[]),
            Err(Refusal::NoCustomDomains { .. })
        ));
        match plan(&rows, &account(Plan::Business), &project(), &[]) {
            Err(Refusal::TooManyDomains {
                existing: 0,
                new: 251,
                limit: 250,
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
        assert!(plan(&rows[..250], &account(Plan::Business), &project(), &[]).is_ok());
    }

    #[test]
    fn present_rows_are_not_sent_and_redirects_go_last() {
        let existing: Domain = serde_json::from_value(serde_json::json!({
            "hostname": "shop.example.com", "unicode_hostname": "shop.example.com",
            "project_id": "prj_1", "apex": false, "role": "primary", "redirect": null,
            "status": "live",
            "dns_record": {"type": "CNAME", "name": "shop", "value": "t.platform.test", "ttl": 3600},
            "verification": {"checked_at": null, "error": null},
            "certificate": {"status": "none", "started_at": null, "issued_at": null, "expires_at": null, "error": null},
            "created_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap();
        let rows = [
            row(1, "old.example.com", Some("new.example.com")),
            row(2, "shop.example.com", None),
            row(3, "new.example.com", None),
            row(4, "legacy.example.com", Some("p-abc.platform.test")),
        ];
        let plan = plan(&rows, &account(Plan::Pro), &project(), &[existing]).unwrap();
        assert_eq!(plan.already_present.len(), 1);
        assert_eq!(plan.already_present[0].differs, None);
        let order: Vec<&str> = plan.to_send.iter().map(|r| r.hostname.as_str()).collect();
        assert_eq!(
            order,
            vec!["new.example.com", "old.example.com", "legacy.example.com"]
        );
    }
}
