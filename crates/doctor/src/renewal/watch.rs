//! The renewal watch's memory: when the next readiness check is due (daily, and at once after
//! a change the user made), the latest readiness of each name, and which results are news.
//!
//! A check runs often and finds the same problem many times; a person wants to hear of it once,
//! and to hear when it is gone. So the watch remembers the problem each name was last told
//! about and turns a check's results into [`Notice`]s: one when a name's problem appears or
//! becomes another problem, one when it clears, none otherwise. A check that could not ask DNS
//! changes nothing. Pure: the caller passes the clock's now (the platform's clock in the
//! demo), so the schedule is tested without waiting.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Readiness, RenewalState};

/// How often the watch checks when nothing else asks it to.
pub const CHECK_EVERY: TimeDelta = TimeDelta::days(1);

/// What a check's results say that a person should hear.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// A renewal that will fail (new, or failing for another reason than before).
    Problem {
        hostname: String,
        title: String,
        body: String,
    },
    /// A renewal that was going to fail will pass now.
    Fixed {
        hostname: String,
        title: String,
        body: String,
    },
}

#[derive(Debug, Clone, Default)]
struct Known {
    /// The problem last told about; `None` when the name was last found ready.
    told: Option<String>,
    latest: Option<Readiness>,
}

/// The watch over one account's live names.
#[derive(Debug, Clone, Default)]
pub struct RenewalWatch {
    last_check: Option<DateTime<Utc>>,
    change_pending: bool,
    names: BTreeMap<String, Known>,
}

impl RenewalWatch {
    pub fn new() -> Self {
        Self::default()
    }

    /// A watch that remembers the problems an earlier run told about ([`Self::told`]), so an
    /// open problem found again after a restart is not news; one fixed meanwhile says so.
    pub fn remembering(told: BTreeMap<String, String>) -> Self {
        Self {
            names: told
                .into_iter()
                .map(|(hostname, problem)| {
                    (
                        hostname,
                        Known {
                            told: Some(problem),
                            latest: None,
                        },
                    )
                })
                .collect(),
            ..Self::default()
        }
    }

    /// The problem each name was last told about, by hostname: what a restart must not tell
    /// again (hostnames and causes only, nothing secret).
    pub fn told(&self) -> BTreeMap<String, String> {
        self.names
            .iter()
            .filter_map(|(hostname, known)| Some((hostname.clone(), known.told.clone()?)))
            .collect()
    }

    /// Whether a check is due at `now`: none yet, a day since the last, a change the user
    /// made since, or a clock that went back (the demo's reset).
    pub fn is_due(&self, now: DateTime<Utc>) -> bool {
        match self.last_check {
            None => true,
            Some(last) => self.change_pending || now >= last + CHECK_EVERY || now < last,
        }
    }

    /// When the next daily check is due (`None` before the first).
    pub fn next_check(&self) -> Option<DateTime<Utc>> {
        self.last_check.map(|last| last + CHECK_EVERY)
    }

    /// The user changed something (added, verified or removed a domain, edited DNS): check
    /// again at the next chance.
    pub fn changed(&mut self) {
        self.change_pending = true;
    }

    /// The latest readiness of every name the last check covered.
    pub fn latest(&self) -> impl Iterator<Item = &Readiness> {
        self.names
            .values()
            .filter_map(|known| known.latest.as_ref())
    }

    /// Takes in a check made at `now` over every live name (a name missing from `results` is
    /// no longer live and is forgotten quietly) and returns what is news.
    pub fn record(&mut self, results: &[Readiness], now: DateTime<Utc>) -> Vec<Notice> {
        self.last_check = Some(now);
        self.change_pending = false;
        self.names
            .retain(|hostname, _| results.iter().any(|result| &result.hostname == hostname));
        let mut notices = Vec::new();
        for result in results {
            let known = self.names.entry(result.hostname.clone()).or_default();
            match result.state {
                RenewalState::Unknown => {}
                RenewalState::AtRisk => {
                    let problem = result.problem().map(str::to_owned);
                    if problem.is_some() && known.told != problem {
                        notices.push(Notice::Problem {
                            hostname: result.hostname.clone(),
                            title: format!("Renewal of {} will fail", result.hostname),
                            body: result
                                .finding
                                .as_ref()
                                .map(|finding| finding.detail.clone())
                                .or_else(|| problem.clone())
                                .unwrap_or_default(),
                        });
                        known.told = problem;
                    }
                }
                RenewalState::Ready => {
                    if known.told.take().is_some() {
                        notices.push(Notice::Fixed {
                            hostname: result.hostname.clone(),
                            title: format!("Renewal of {} fixed", result.hostname),
                            body: format!(
                                "DNS lets the CA renew {}'s certificate again; it renews from {}.",
                                result.hostname,
                                crate::checks::renewal::day(result.renews_at, None)
                            ),
                        });
                    }
                }
            }
            // An unknown result keeps the last answer that meant something.
            if result.state != RenewalState::Unknown || known.latest.is_none() {
                known.latest = Some(result.clone());
            } else if let Some(latest) = &mut known.latest {
                latest.note = result.note.clone();
            }
        }
        notices
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Finding, FindingCode, Severity};

    fn at(hours: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap() + TimeDelta::hours(hours)
    }

    fn result(hostname: &str, state: RenewalState, cause: &str, now: DateTime<Utc>) -> Readiness {
        Readiness {
            hostname: hostname.to_owned(),
            state,
            expires_at: at(24 * 60),
            renews_at: at(24 * 30),
            checked_at: now,
            cause: (state == RenewalState::AtRisk).then(|| cause.to_owned()),
            finding: (state == RenewalState::AtRisk).then(|| Finding {
                code: FindingCode::RenewalAtRisk,
                severity: Severity::Error,
                title: "will not renew".into(),
                // the dates move as the renewal nears; the cause is what identifies it
                detail: format!("{hostname} at {now}: that renewal will fail: {cause}"),
                evidence: Vec::new(),
                fix: None,
                cached_until: None,
            }),
            note: (state == RenewalState::Unknown).then(|| "no server answered".to_owned()),
        }
    }

    #[test]
    fn checks_daily_and_at_once_after_a_change() {
        let mut watch = RenewalWatch::new();
        assert!(watch.is_due(at(0)), "the first check is due at once");
        watch.record(&[], at(0));
        assert!(!watch.is_due(at(23)));
        assert!(watch.is_due(at(24)));
        assert_eq!(watch.next_check(), Some(at(24)));
        watch.changed();
        assert!(watch.is_due(at(1)), "a change asks for a check now");
        watch.record(&[], at(1));
        assert!(!watch.is_due(at(2)));
        assert!(watch.is_due(at(0)), "a clock set back (reset) checks again");
    }

    #[test]
    fn a_problem_is_told_once_not_at_every_check() {
        let mut watch = RenewalWatch::new();
        let mut told = Vec::new();
        for day in 0..5 {
            let now = at(24 * day);
            told.extend(watch.record(
                &[
                    result("shop.example.com", RenewalState::AtRisk, "CAA", now),
                    result("www.example.com", RenewalState::Ready, "", now),
                ],
                now,
            ));
        }
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(matches!(
            &told[0],
            Notice::Problem { hostname, body, .. }
                if hostname == "shop.example.com" && body.contains("CAA")
        ));
    }

    #[test]
    fn another_cause_is_news_and_a_fix_says_so_once() {
        let mut watch = RenewalWatch::new();
        watch.record(
            &[result("a.example", RenewalState::AtRisk, "CAA", at(0))],
            at(0),
        );
        let changed = watch.record(
            &[result(
                "a.example",
                RenewalState::AtRisk,
                "CNAME moved",
                at(24),
            )],
            at(24),
        );
        assert!(matches!(&changed[..], [Notice::Problem { body, .. }] if body.contains("CNAME")));
        let fixed = watch.record(
            &[result("a.example", RenewalState::Ready, "", at(48))],
            at(48),
        );
        assert!(matches!(&fixed[..], [Notice::Fixed { hostname, .. }] if hostname == "a.example"));
        let again = watch.record(
            &[result("a.example", RenewalState::Ready, "", at(72))],
            at(72),
        );
        assert!(again.is_empty(), "{again:?}");
        // the same problem coming back after a fix is news again
        let back = watch.record(
            &[result("a.example", RenewalState::AtRisk, "CAA", at(96))],
            at(96),
        );
        assert_eq!(back.len(), 1);
    }

    #[test]
    fn a_check_that_could_not_ask_dns_changes_nothing() {
        let mut watch = RenewalWatch::new();
        watch.record(
            &[result("a.example", RenewalState::AtRisk, "CAA", at(0))],
            at(0),
        );
        let blind = watch.record(
            &[result("a.example", RenewalState::Unknown, "", at(24))],
            at(24),
        );
        assert!(blind.is_empty());
        let latest: Vec<&Readiness> = watch.latest().collect();
        assert_eq!(
            latest[0].state,
            RenewalState::AtRisk,
            "the last real answer stays"
        );
        assert_eq!(latest[0].note.as_deref(), Some("no server answered"));
        // nor does it count as fixed afterwards
        let still = watch.record(
            &[result("a.example", RenewalState::AtRisk, "CAA", at(48))],
            at(48),
        );
        assert!(still.is_empty(), "{still:?}");
    }

    #[test]
    fn a_remembered_problem_is_not_told_again_and_its_fix_is() {
        let mut first = RenewalWatch::new();
        let told = first.record(
            &[
                result("a.example", RenewalState::AtRisk, "CAA", at(0)),
                result("b.example", RenewalState::AtRisk, "CNAME moved", at(0)),
                result("c.example", RenewalState::Ready, "", at(0)),
            ],
            at(0),
        );
        assert_eq!(told.len(), 2);
        let memory = first.told();
        assert_eq!(
            memory.keys().collect::<Vec<_>>(),
            ["a.example", "b.example"]
        );
        // the next run starts from the memory: a.example is still open, b.example was fixed
        let mut next = RenewalWatch::remembering(memory);
        let news = next.record(
            &[
                result("a.example", RenewalState::AtRisk, "CAA", at(30)),
                result("b.example", RenewalState::Ready, "", at(30)),
                result("c.example", RenewalState::Ready, "", at(30)),
            ],
            at(30),
        );
        assert!(
            matches!(&news[..], [Notice::Fixed { hostname, .. }] if hostname == "b.example"),
            "{news:?}"
        );
        assert_eq!(next.told().keys().collect::<Vec<_>>(), ["a.example"]);
    }

    #[test]
    fn a_name_no_longer_live_is_forgotten_quietly() {
        let mut watch = RenewalWatch::new();
        watch.record(
            &[result("a.example", RenewalState::AtRisk, "CAA", at(0))],
            at(0),
        );
        assert!(watch.record(&[], at(24)).is_empty());
        assert_eq!(watch.latest().count(), 0);
    }
}
