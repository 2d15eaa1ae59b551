//! An answer read as the chain it is: the name, each CNAME on the way, and how it ends
//! (addresses, "no such name", no address, or a failure), so that every rendering puts a
//! negative answer on the link it belongs to, not on the name asked.

use crate::dns::presentation::normalise_name;
use crate::dns::{Answer, AnswerStatus};
use crate::report::{AnswerChain, ChainEnd, ChainLink};

/// The most CNAMEs followed: a loop in the answer ends here.
const MAX_LINKS: usize = 16;

/// The chain a server's A and AAAA answers for `name` describe. `authoritative`: the server
/// answers from its own zone, so a CNAME to a name it does not answer for ends the chain
/// out of its zone (the rest is the target zone's to say), not in "no address".
pub fn of(name: &str, a: &Answer, aaaa: &Answer, authoritative: bool) -> AnswerChain {
    let mut links = Vec::new();
    let mut current = normalise_name(name);
    while links.len() < MAX_LINKS {
        let Some(cname) = a.cname_of(&current).or_else(|| aaaa.cname_of(&current)) else {
            break;
        };
        let target = normalise_name(&cname.value);
        links.push(ChainLink {
            name: current.clone(),
            target: target.clone(),
            ttl: cname.ttl,
        });
        current = target;
    }
    let addresses: Vec<String> = a
        .records(&current, "A")
        .chain(aaaa.records(&current, "AAAA"))
        .map(|record| record.value.clone())
        .collect();
    let end = if !addresses.is_empty() {
        ChainEnd::Addresses {
            name: current,
            addresses,
        }
    } else {
        match a.status {
            // After a CNAME, the response code speaks of the chain's end (RFC 6604).
            AnswerStatus::NxDomain => ChainEnd::NoSuchName { name: current },
            AnswerStatus::NoError if !links.is_empty() && authoritative => {
                ChainEnd::OutOfZone { name: current }
            }
            AnswerStatus::NoError => ChainEnd::NoAddress { name: current },
            status => ChainEnd::Failed {
                name: current,
                status,
            },
        }
    };
    AnswerChain { links, end }
}

impl AnswerChain {
    /// `www.example.com → pages.example.net → 192.0.2.7, 2001:db8::7`, or
    /// `www.example.com → pages.exmaple.net: no such name`.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for link in &self.links {
            text.push_str(&link.name);
            text.push_str(" → ");
        }
        text.push_str(self.end.name());
        match &self.end {
            ChainEnd::Addresses { addresses, .. } => {
                text.push_str(" → ");
                text.push_str(&addresses.join(", "));
            }
            ChainEnd::NoSuchName { .. } => text.push_str(": no such name"),
            ChainEnd::NoAddress { .. } => text.push_str(": no address"),
            ChainEnd::OutOfZone { .. } => {
                text.push_str(" (another zone's to answer)");
            }
            ChainEnd::Failed { status, .. } => {
                text.push_str(": ");
                text.push_str(status.label());
            }
        }
        text
    }

    /// True when the chain ends in a negative answer at a name other than the one asked.
    pub fn fails_beyond_the_name(&self) -> bool {
        !self.links.is_empty()
            && matches!(
                self.end,
                ChainEnd::NoSuchName { .. } | ChainEnd::NoAddress { .. }
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dns::DnsRecord;
    use hickory_proto::op::ResponseCode;

    fn answer(
        question: &str,
        kind: &'static str,
        code: ResponseCode,
        records: &[(&str, &'static str, &str)],
    ) -> Answer {
        Answer::answered(
            "192.0.2.53:53".into(),
            question.into(),
            kind,
            code,
            true,
            records
                .iter()
                .map(|(name, record_type, value)| DnsRecord {
                    name: (*name).into(),
                    record_type: (*record_type).into(),
                    ttl: 300,
                    value: (*value).into(),
                })
                .collect(),
            Vec::new(),
        )
    }

    #[test]
    fn a_misspelt_target_puts_no_such_name_on_the_target() {
        let records = [("www.example.com", "CNAME", "cname.pages.exmaple.net")];
        let a = answer("www.example.com", "A", ResponseCode::NXDomain, &records);
        let aaaa = answer("www.example.com", "AAAA", ResponseCode::NXDomain, &records);
        let chain = of("www.example.com", &a, &aaaa, false);
        assert_eq!(chain.links.len(), 1);
        assert_eq!(
            chain.end,
            ChainEnd::NoSuchName {
                name: "cname.pages.exmaple.net".into()
            }
        );
        assert_eq!(
            chain.to_text(),
            "www.example.com → cname.pages.exmaple.net: no such name"
        );
        assert!(chain.fails_beyond_the_name());
    }

    #[test]
    fn addresses_at_the_end_and_a_missing_name_on_the_name() {
        let records = [
            ("www.example.com", "CNAME", "edge.example.net"),
            ("edge.example.net", "A", "192.0.2.7"),
        ];
        let a = answer("www.example.com", "A", ResponseCode::NoError, &records);
        let aaaa = answer(
            "www.example.com",
            "AAAA",
            ResponseCode::NoError,
            &records[..1],
        );
        let chain = of("www.example.com", &a, &aaaa, false);
        assert_eq!(
            chain.to_text(),
            "www.example.com → edge.example.net → 192.0.2.7"
        );
        assert!(!chain.fails_beyond_the_name());

        let none = answer("gone.example.com", "A", ResponseCode::NXDomain, &[]);
        let chain = of("gone.example.com", &none, &none, true);
        assert_eq!(chain.to_text(), "gone.example.com: no such name");
        assert!(!chain.fails_beyond_the_name());

        // an authoritative server stops at a CNAME out of its zone
        let stop = answer("www.example.com", "A", ResponseCode::NoError, &records[..1]);
        let chain = of("www.example.com", &stop, &stop, true);
        assert_eq!(
            chain.end,
            ChainEnd::OutOfZone {
                name: "edge.example.net".into()
            }
        );
    }

    #[test]
    fn a_loop_ends() {
        let records = [
            ("a.example.com", "CNAME", "b.example.com"),
            ("b.example.com", "CNAME", "a.example.com"),
        ];
        let a = answer("a.example.com", "A", ResponseCode::NoError, &records);
        let chain = of("a.example.com", &a, &a, false);
        assert_eq!(chain.links.len(), MAX_LINKS);
    }
}
