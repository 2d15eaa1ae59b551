//! Certification Authority Authorization (RFC 8659) as pure logic: parsing CAA records from
//! their presentation form and deciding whether a given CA may issue.
//!
//! Both the local service's certificate authority (which refuses to issue) and the DNS doctor
//! (which explains why and says which record to add) must reach the same verdict from the same
//! records, so the rules live here once, with no I/O. Callers do the DNS climb themselves with
//! their own lookups: for each name from [`climb`], ask for CAA (a CNAME at the name is
//! followed by ordinary resolution), and the first non-empty RRset is the *relevant RRset* that
//! [`evaluate`] judges. When the climb finds nothing at all, any CA may issue.
//!
//! It is longer than the house's 500 lines only with its tests (about 370 of code, 280 of
//! tests): the cases the CA and the doctor must judge alike stay beside the one evaluator they
//! share.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{Error, Result};

/// The Issuer Critical Flag: bit 0 of the flags octet (the most significant bit, value 128).
pub const CRITICAL_FLAG: u8 = 0b1000_0000;

/// One CAA resource record: `flags tag "value"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub struct CaaRecord {
    pub flags: u8,
    /// The property tag as written (`issue`, `issuewild`, `iodef`, or anything else);
    /// compared case-insensitively.
    pub tag: String,
    /// The property value, unquoted.
    pub value: String,
}

impl CaaRecord {
    pub fn new(flags: u8, tag: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            flags,
            tag: tag.into(),
            value: value.into(),
        }
    }

    /// `0 issue "<ca>"` (or `issuewild` for a wildcard): the record that authorises one CA.
    pub fn authorizing(ca_identity: &str, wildcard: bool) -> Self {
        let tag = if wildcard { "issuewild" } else { "issue" };
        Self::new(
            0,
            tag,
            ca_identity.trim_end_matches('.').to_ascii_lowercase(),
        )
    }

    /// Parses the presentation form: `0 issue "letsencrypt.org"`, `128 tbs "Unknown"`,
    /// `0 issue ";"`. An unquoted single-token value is accepted as well.
    pub fn parse(presentation: &str) -> Result<Self> {
        let text = presentation.trim();
        let (flags_text, rest) = split_token(text)
            .ok_or_else(|| invalid("A CAA record needs flags, a tag and a value."))?;
        let flags: u8 = flags_text
            .parse()
            .map_err(|_| invalid("The CAA flags must be a number from 0 to 255."))?;
        let (tag, rest) = split_token(rest)
            .ok_or_else(|| invalid("A CAA record needs a tag and a value after the flags."))?;
        if tag.is_empty() || tag.len() > 15 || !tag.bytes().all(|byte| byte.is_ascii_alphanumeric())
        {
            return Err(invalid(
                "A CAA tag has 1 to 15 letters or digits (issue, issuewild, iodef).",
            ));
        }
        let value = parse_value(rest.trim())?;
        Ok(Self::new(flags, tag, value))
    }

    /// True when the Issuer Critical Flag is set: a CA that does not understand the tag must
    /// not issue.
    pub fn is_critical(&self) -> bool {
        self.flags & CRITICAL_FLAG != 0
    }

    /// The meaning of the record's tag and value.
    pub fn property(&self) -> CaaProperty {
        if self.tag.eq_ignore_ascii_case("issue") {
            CaaProperty::Issue(IssueValue::parse(&self.value))
        } else if self.tag.eq_ignore_ascii_case("issuewild") {
            CaaProperty::IssueWild(IssueValue::parse(&self.value))
        } else if self.tag.eq_ignore_ascii_case("iodef") {
            CaaProperty::Iodef(self.value.clone())
        } else {
            CaaProperty::Unknown
        }
    }

    /// The presentation form, quoted and escaped: `0 issue "letsencrypt.org"`.
    pub fn to_presentation(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for CaaRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} \"", self.flags, self.tag)?;
        for ch in self.value.chars() {
            match ch {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                ch => write!(f, "{ch}")?,
            }
        }
        f.write_str("\"")
    }
}

impl FromStr for CaaRecord {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}

/// What a CAA record means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaaProperty {
    /// Who may issue for the name (and, without `issuewild`, for wildcards under it).
    Issue(IssueValue),
    /// Who may issue wildcard certificates; when present it overrides `issue` for wildcards.
    IssueWild(IssueValue),
    /// Where to report refused requests; does not restrict issuance.
    Iodef(String),
    /// A tag this evaluator does not know: ignored unless the record is critical.
    Unknown,
}

/// The value of an `issue` or `issuewild` property: `issuer-domain-name *(";" parameter)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct IssueValue {
    /// The CA's domain, lowercase; `None` for an empty issuer (`";"`), which authorises nobody,
    /// and for a value that does not follow the grammar (RFC 8659 treats it the same way).
    pub issuer: Option<String>,
    /// `tag=value` parameters after the issuer, such as `account=230123`.
    pub parameters: Vec<(String, String)>,
    /// True when the value did not follow the grammar.
    pub malformed: bool,
}

impl IssueValue {
    /// Parses an issue value; never fails, because a malformed value has a defined meaning.
    pub fn parse(value: &str) -> Self {
        match parse_issue_value(value) {
            Some((issuer, parameters)) => Self {
                issuer,
                parameters,
                malformed: false,
            },
            None => Self {
                issuer: None,
                parameters: Vec::new(),
                malformed: true,
            },
        }
    }

    /// True when this value names `ca_identity` (case and a trailing dot aside).
    pub fn authorizes(&self, ca_identity: &str) -> bool {
        let wanted = ca_identity.trim().trim_end_matches('.');
        self.issuer
            .as_deref()
            .is_some_and(|issuer| issuer.eq_ignore_ascii_case(wanted))
    }
}

/// The verdict of [`evaluate`] with its reason and the records that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CaaDecision {
    pub allowed: bool,
    pub reason: CaaReason,
    /// The records the verdict rests on (the authorising record, the restricting ones, or the
    /// unknown critical one); empty when nothing restricts issuance.
    pub deciding_records: Vec<CaaRecord>,
}

/// Why a CA may or may not issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CaaReason {
    /// The relevant RRset is empty: no CAA anywhere on the climb.
    NoCaaRecords,
    /// CAA records exist but none restricts issuance (only `iodef` or unknown, non-critical
    /// tags; or only `issuewild` for a non-wildcard name).
    NoRestriction,
    /// An `issue` (or `issuewild`) record names the CA.
    Authorized { tag: String },
    /// `issue` (or `issuewild`) records exist and none names the CA. `authorized_issuers` lists
    /// the CAs they do name; empty means the records forbid every CA (`";"`).
    NotAuthorized {
        tag: String,
        authorized_issuers: Vec<String>,
    },
    /// A record with the critical flag has a tag the CA does not understand.
    UnknownCriticalProperty { tag: String },
}

impl fmt::Display for CaaReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaaReason::NoCaaRecords => f.write_str("no CAA records apply, so any CA may issue"),
            CaaReason::NoRestriction => {
                f.write_str("the CAA records present do not restrict issuance")
            }
            CaaReason::Authorized { tag } => write!(f, "a CAA {tag} record names this CA"),
            CaaReason::NotAuthorized {
                tag,
                authorized_issuers,
            } if authorized_issuers.is_empty() => {
                write!(f, "the CAA {tag} records allow no CA at all")
            }
            CaaReason::NotAuthorized {
                tag,
                authorized_issuers,
            } => write!(
                f,
                "the CAA {tag} records allow only {}",
                authorized_issuers.join(", ")
            ),
            CaaReason::UnknownCriticalProperty { tag } => write!(
                f,
                "a CAA record with the critical flag has the unknown tag {tag:?}"
            ),
        }
    }
}

/// Decides whether the CA known as `ca_identity` may issue, given the relevant RRset (the
/// first non-empty CAA RRset found climbing from the name; pass `&[]` when the climb found
/// none). `wildcard` is true for a `*.name` certificate, whose relevant RRset is the one of
/// `name`.
///
/// RFC 8659 §4: an unknown tag with the critical flag forbids issuance; `issuewild` records,
/// when present, alone decide for wildcards; otherwise `issue` records decide; with neither,
/// CAA does not restrict issuance.
pub fn evaluate(relevant_rrset: &[CaaRecord], ca_identity: &str, wildcard: bool) -> CaaDecision {
    if relevant_rrset.is_empty() {
        return decision(true, CaaReason::NoCaaRecords, Vec::new());
    }
    if let Some(critical) = relevant_rrset
        .iter()
        .find(|record| record.is_critical() && record.property() == CaaProperty::Unknown)
    {
        return decision(
            false,
            CaaReason::UnknownCriticalProperty {
                tag: critical.tag.clone(),
            },
            vec![critical.clone()],
        );
    }

    let issue: Vec<(&CaaRecord, IssueValue)> = relevant_rrset
        .iter()
        .filter_map(|record| match record.property() {
            CaaProperty::Issue(value) => Some((record, value)),
            _ => None,
        })
        .collect();
    let issuewild: Vec<(&CaaRecord, IssueValue)> = relevant_rrset
        .iter()
        .filter_map(|record| match record.property() {
            CaaProperty::IssueWild(value) => Some((record, value)),
            _ => None,
        })
        .collect();
    let (tag, governing) = if wildcard && !issuewild.is_empty() {
        ("issuewild", issuewild)
    } else {
        ("issue", issue)
    };
    if governing.is_empty() {
        return decision(true, CaaReason::NoRestriction, Vec::new());
    }
    if let Some((record, _)) = governing
        .iter()
        .find(|(_, value)| value.authorizes(ca_identity))
    {
        return decision(
            true,
            CaaReason::Authorized {
                tag: tag.to_owned(),
            },
            vec![(*record).clone()],
        );
    }
    let mut authorized_issuers: Vec<String> = governing
        .iter()
        .filter_map(|(_, value)| value.issuer.clone())
        .collect();
    authorized_issuers.sort();
    authorized_issuers.dedup();
    decision(
        false,
        CaaReason::NotAuthorized {
            tag: tag.to_owned(),
            authorized_issuers,
        },
        governing
            .into_iter()
            .map(|(record, _)| record.clone())
            .collect(),
    )
}

/// The names whose CAA RRsets are consulted, in order: the name itself, then each parent up
/// to the top-level domain (RFC 8659 §3 climbs to, but not including, the root). A leading
/// `*.` is dropped, since a wildcard's relevant RRset is its parent's.
///
/// `climb("a.b.example.com")` yields `a.b.example.com`, `b.example.com`, `example.com`, `com`.
pub fn climb(name: &str) -> Vec<String> {
    let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
    let name = name.strip_prefix("*.").unwrap_or(&name);
    let mut names = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        names.push(rest.to_owned());
        rest = match rest.split_once('.') {
            Some((_, parent)) => parent,
            None => "",
        };
    }
    names
}

fn decision(allowed: bool, reason: CaaReason, deciding_records: Vec<CaaRecord>) -> CaaDecision {
    CaaDecision {
        allowed,
        reason,
        deciding_records,
    }
}

fn invalid(message: &str) -> Error {
    Error::InvalidCaaRecord(message.to_owned())
}

/// Splits off the first whitespace-delimited token.
fn split_token(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    Some(match text.find(char::is_whitespace) {
        Some(end) => (&text[..end], &text[end..]),
        None => (text, ""),
    })
}

/// The value: one quoted character-string with `\"`, `\\` and `\DDD` escapes, or one bare
/// token.
fn parse_value(text: &str) -> Result<String> {
    if text.is_empty() {
        return Err(invalid(
            "A CAA record needs a value, such as \"letsencrypt.org\".",
        ));
    }
    let Some(quoted) = text.strip_prefix('"') else {
        if text.chars().any(char::is_whitespace) {
            return Err(invalid(
                "Put a CAA value that contains spaces in double quotes.",
            ));
        }
        return Ok(text.to_owned());
    };
    let mut bytes = Vec::with_capacity(quoted.len());
    let mut chars = quoted.char_indices();
    while let Some((index, ch)) = chars.next() {
        match ch {
            '"' => {
                if !quoted[index + 1..].trim().is_empty() {
                    return Err(invalid("Nothing may follow the quoted CAA value."));
                }
                return String::from_utf8(bytes)
                    .map_err(|_| invalid("The CAA value is not valid UTF-8."));
            }
            '\\' => {
                let (_, escaped) = chars
                    .next()
                    .ok_or_else(|| invalid("The CAA value ends in the middle of an escape."))?;
                if let Some(first) = escaped.to_digit(10) {
                    let mut code = first;
                    for _ in 0..2 {
                        let digit = chars
                            .next()
                            .and_then(|(_, ch)| ch.to_digit(10))
                            .ok_or_else(|| invalid("A \\DDD escape needs three digits."))?;
                        code = code * 10 + digit;
                    }
                    let byte = u8::try_from(code)
                        .map_err(|_| invalid("A \\DDD escape must be 255 or less."))?;
                    bytes.push(byte);
                } else {
                    let mut buffer = [0u8; 4];
                    bytes.extend_from_slice(escaped.encode_utf8(&mut buffer).as_bytes());
                }
            }
            ch => {
                let mut buffer = [0u8; 4];
                bytes.extend_from_slice(ch.encode_utf8(&mut buffer).as_bytes());
            }
        }
    }
    Err(invalid("The CAA value has no closing double quote."))
}

/// RFC 8659 §4.2 grammar: `[*WSP [issuer-domain-name *WSP] [";" *WSP [parameters *WSP]]]`,
/// parameters `tag *WSP "=" *WSP value` separated by `;`. `None` when malformed.
#[allow(clippy::type_complexity)]
fn parse_issue_value(value: &str) -> Option<(Option<String>, Vec<(String, String)>)> {
    let is_wsp = |ch: char| ch == ' ' || ch == '\t';
    let (issuer_part, parameter_part) = match value.split_once(';') {
        Some((issuer, parameters)) => (issuer, Some(parameters)),
        None => (value, None),
    };
    let issuer_text = issuer_part.trim_matches(is_wsp);
    let issuer = if issuer_text.is_empty() {
        None
    } else if is_issuer_domain_name(issuer_text) {
        Some(issuer_text.to_ascii_lowercase())
    } else {
        return None;
    };
    let mut parameters = Vec::new();
    if let Some(parameter_part) = parameter_part {
        if parameter_part.trim_matches(is_wsp).is_empty() {
            return Some((issuer, parameters));
        }
        for parameter in parameter_part.split(';') {
            let (tag, value) = parameter.split_once('=')?;
            let tag = tag.trim_matches(is_wsp);
            let value = value.trim_matches(is_wsp);
            let tag_ok = !tag.is_empty() && tag.bytes().all(|byte| byte.is_ascii_alphanumeric());
            // value = *(%x21-3A / %x3C-7E): printable, no space, no semicolon.
            let value_ok = value
                .bytes()
                .all(|byte| (0x21..=0x7e).contains(&byte) && byte != b';');
            if !tag_ok || !value_ok {
                return None;
            }
            parameters.push((tag.to_owned(), value.to_owned()));
        }
    }
    Some((issuer, parameters))
}

/// `label *("." label)`, label = `(ALPHA / DIGIT) *( *("-") (ALPHA / DIGIT))`.
fn is_issuer_domain_name(text: &str) -> bool {
    let text = text.strip_suffix('.').unwrap_or(text);
    !text.is_empty()
        && text.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(lines: &[&str]) -> Vec<CaaRecord> {
        lines
            .iter()
            .map(|line| CaaRecord::parse(line).unwrap_or_else(|e| panic!("{line}: {e}")))
            .collect()
    }

    #[test]
    fn parses_presentation_form() {
        let record = CaaRecord::parse("0 issue \"letsencrypt.org\"").unwrap();
        assert_eq!(record, CaaRecord::new(0, "issue", "letsencrypt.org"));
        assert!(!record.is_critical());
        let critical = CaaRecord::parse("128 tbs \"Unknown\"").unwrap();
        assert!(critical.is_critical());
        assert_eq!(critical.property(), CaaProperty::Unknown);
        let bare = CaaRecord::parse("  0   ISSUE   letsencrypt.org ").unwrap();
        assert_eq!(bare.value, "letsencrypt.org");
        assert!(matches!(bare.property(), CaaProperty::Issue(_)));
        let escaped = CaaRecord::parse(r#"0 iodef "mailto:a\"b\\c\059d""#).unwrap();
        assert_eq!(escaped.value, "mailto:a\"b\\c;d");
    }

    #[test]
    fn presentation_round_trips() {
        for line in [
            "0 issue \"letsencrypt.org\"",
            "128 tissue \"x\"",
            "0 issue \";\"",
            "0 iodef \"mailto:security@example.com\"",
            "0 issue \"ca1.example.net; account=230123\"",
        ] {
            let record = CaaRecord::parse(line).unwrap();
            assert_eq!(record.to_presentation(), line);
            assert_eq!(CaaRecord::parse(&record.to_presentation()).unwrap(), record);
        }
    }

    #[test]
    fn refuses_malformed_records_with_a_reason() {
        for bad in [
            "",
            "issue \"letsencrypt.org\"",
            "256 issue \"x\"",
            "0",
            "0 issue",
            "0 is-sue \"x\"",
            "0 thistagiswaytoolong \"x\"",
            "0 issue \"unterminated",
            "0 issue \"x\" trailing",
            "0 issue two words",
            "0 issue \"\\25\"",
            "0 issue \"\\999\"",
        ] {
            match CaaRecord::parse(bad) {
                Err(Error::InvalidCaaRecord(message)) => assert!(!message.is_empty()),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn issue_values_follow_the_grammar() {
        let plain = IssueValue::parse("ca1.example.net");
        assert_eq!(plain.issuer.as_deref(), Some("ca1.example.net"));
        assert!(!plain.malformed);
        let with_parameters = IssueValue::parse("ca1.example.net; account=230123; policy=ev");
        assert_eq!(
            with_parameters.parameters,
            vec![
                ("account".to_owned(), "230123".to_owned()),
                ("policy".to_owned(), "ev".to_owned())
            ]
        );
        let nobody = IssueValue::parse(";");
        assert_eq!(nobody.issuer, None);
        assert!(!nobody.malformed);
        assert_eq!(IssueValue::parse("").issuer, None);
        assert_eq!(
            IssueValue::parse(" Ca1.Example.NET ").issuer.as_deref(),
            Some("ca1.example.net")
        );
        for bad in [
            "not a domain",
            "ca1.example.net; account",
            "ca1..example.net",
            "-ca.example",
        ] {
            let value = IssueValue::parse(bad);
            assert!(value.malformed, "{bad:?}");
            assert_eq!(value.issuer, None);
        }
    }

    // RFC 8659 §4.1: issue for ca1 plus iodef records; only ca1 may issue.
    #[test]
    fn rfc_example_issue_with_iodef() {
        let set = records(&[
            "0 issue \"ca1.example.net\"",
            "0 iodef \"mailto:security@example.com\"",
            "0 iodef \"https://iodef.example.com/\"",
        ]);
        let yes = evaluate(&set, "ca1.example.net", false);
        assert!(yes.allowed);
        assert_eq!(
            yes.reason,
            CaaReason::Authorized {
                tag: "issue".into()
            }
        );
        assert_eq!(yes.deciding_records, vec![set[0].clone()]);
        let no = evaluate(&set, "ca2.example.org", false);
        assert!(!no.allowed);
        assert_eq!(
            no.reason,
            CaaReason::NotAuthorized {
                tag: "issue".into(),
                authorized_issuers: vec!["ca1.example.net".into()]
            }
        );
        // Without issuewild, issue also governs wildcards.
        assert!(evaluate(&set, "ca1.example.net", true).allowed);
        assert!(!evaluate(&set, "ca2.example.org", true).allowed);
    }

    // RFC 8659 §4.2: `issue ";"` forbids every CA.
    #[test]
    fn rfc_example_empty_issuer_forbids_all() {
        let set = records(&["0 issue \";\""]);
        for ca in ["ca1.example.net", "letsencrypt.org"] {
            let verdict = evaluate(&set, ca, false);
            assert!(!verdict.allowed);
            assert_eq!(
                verdict.reason,
                CaaReason::NotAuthorized {
                    tag: "issue".into(),
                    authorized_issuers: vec![]
                }
            );
        }
    }

    // RFC 8659 §4.2: parameters after the issuer do not stop the issuer matching.
    #[test]
    fn rfc_example_issue_with_account_parameter() {
        let set = records(&["0 issue \"ca1.example.net; account=230123\""]);
        assert!(evaluate(&set, "ca1.example.net", false).allowed);
        assert!(evaluate(&set, "CA1.example.net.", false).allowed);
        assert!(!evaluate(&set, "ca2.example.org", false).allowed);
    }

    // RFC 8659 §4.2: several issue records authorise each CA they name.
    #[test]
    fn several_issue_records_authorise_each_named_ca() {
        let set = records(&["0 issue \"ca1.example.net\"", "0 issue \"ca2.example.org\""]);
        assert!(evaluate(&set, "ca1.example.net", false).allowed);
        assert!(evaluate(&set, "ca2.example.org", false).allowed);
        let other = evaluate(&set, "ca3.example.com", false);
        assert_eq!(
            other.reason,
            CaaReason::NotAuthorized {
                tag: "issue".into(),
                authorized_issuers: vec!["ca1.example.net".into(), "ca2.example.org".into()]
            }
        );
        assert_eq!(other.deciding_records.len(), 2);
    }

    // RFC 8659 §4.3: issuewild, when present, alone decides for wildcards.
    #[test]
    fn rfc_example_issuewild_overrides_issue_for_wildcards() {
        let set = records(&[
            "0 issue \"ca1.example.net\"",
            "0 issuewild \"ca2.example.org\"",
        ]);
        assert!(evaluate(&set, "ca1.example.net", false).allowed);
        assert!(!evaluate(&set, "ca2.example.org", false).allowed);
        assert!(evaluate(&set, "ca2.example.org", true).allowed);
        let wildcard_ca1 = evaluate(&set, "ca1.example.net", true);
        assert!(!wildcard_ca1.allowed);
        assert_eq!(
            wildcard_ca1.reason,
            CaaReason::NotAuthorized {
                tag: "issuewild".into(),
                authorized_issuers: vec!["ca2.example.org".into()]
            }
        );

        let no_wildcards = records(&["0 issue \"ca1.example.net\"", "0 issuewild \";\""]);
        assert!(evaluate(&no_wildcards, "ca1.example.net", false).allowed);
        assert!(!evaluate(&no_wildcards, "ca1.example.net", true).allowed);
    }

    #[test]
    fn issuewild_alone_does_not_restrict_plain_names() {
        let set = records(&["0 issuewild \";\""]);
        let verdict = evaluate(&set, "ca1.example.net", false);
        assert!(verdict.allowed);
        assert_eq!(verdict.reason, CaaReason::NoRestriction);
        assert!(!evaluate(&set, "ca1.example.net", true).allowed);
    }

    // RFC 8659 §4.5: an unknown tag with the critical flag forbids issuance even to a CA that
    // an issue record names.
    #[test]
    fn rfc_example_unknown_critical_tag_forbids() {
        let set = records(&["0 issue \"ca1.example.net\"", "128 tbs \"Unknown\""]);
        let verdict = evaluate(&set, "ca1.example.net", false);
        assert!(!verdict.allowed);
        assert_eq!(
            verdict.reason,
            CaaReason::UnknownCriticalProperty { tag: "tbs".into() }
        );
        assert_eq!(verdict.deciding_records, vec![set[1].clone()]);
        // a known tag with the critical flag is simply understood
        let known = records(&["128 issue \"ca1.example.net\""]);
        assert!(evaluate(&known, "ca1.example.net", false).allowed);
        // an unknown tag without it is ignored
        let ignored = records(&["0 tbs \"Unknown\""]);
        assert_eq!(
            evaluate(&ignored, "ca1.example.net", false).reason,
            CaaReason::NoRestriction
        );
    }

    #[test]
    fn only_iodef_does_not_restrict() {
        let set = records(&["0 iodef \"mailto:security@example.com\""]);
        let verdict = evaluate(&set, "letsencrypt.org", false);
        assert!(verdict.allowed);
        assert_eq!(verdict.reason, CaaReason::NoRestriction);
        assert!(verdict.deciding_records.is_empty());
    }

    #[test]
    fn empty_relevant_set_allows() {
        let verdict = evaluate(&[], "letsencrypt.org", true);
        assert!(verdict.allowed);
        assert_eq!(verdict.reason, CaaReason::NoCaaRecords);
    }

    // RFC 8659 §4.2: a malformed issue value is treated like an empty issuer.
    #[test]
    fn malformed_issue_value_authorises_nobody() {
        let set = records(&["0 issue \"letsencrypt.org account\""]);
        let verdict = evaluate(&set, "letsencrypt.org", false);
        assert!(!verdict.allowed);
        assert_eq!(
            verdict.reason,
            CaaReason::NotAuthorized {
                tag: "issue".into(),
                authorized_issuers: vec![]
            }
        );
    }

    #[test]
    fn tags_match_case_insensitively() {
        let set = records(&["0 IsSuE \"letsencrypt.org\""]);
        assert!(evaluate(&set, "letsencrypt.org", false).allowed);
        assert!(!evaluate(&set, "other-ca.example", false).allowed);
    }

    // RFC 8659 §3: the climb goes from the name to the top-level domain, not the root.
    #[test]
    fn climb_lists_the_name_and_every_parent() {
        assert_eq!(
            climb("A.B.Example.com."),
            vec!["a.b.example.com", "b.example.com", "example.com", "com"]
        );
        assert_eq!(
            climb("*.example.co.uk"),
            vec!["example.co.uk", "co.uk", "uk"]
        );
        assert!(climb("").is_empty());
    }

    #[test]
    fn authorizing_record_is_what_the_fix_says() {
        assert_eq!(
            CaaRecord::authorizing("LetsEncrypt.org.", false).to_presentation(),
            "0 issue \"letsencrypt.org\""
        );
        assert_eq!(
            CaaRecord::authorizing("letsencrypt.org", true).to_presentation(),
            "0 issuewild \"letsencrypt.org\""
        );
    }

    #[test]
    fn reasons_read_as_sentences_and_serialise_tagged() {
        let reason = CaaReason::NotAuthorized {
            tag: "issue".into(),
            authorized_issuers: vec!["other-ca.example".into()],
        };
        assert_eq!(
            reason.to_string(),
            "the CAA issue records allow only other-ca.example"
        );
        assert_eq!(
            serde_json::to_value(&reason).unwrap(),
            serde_json::json!({"kind": "not_authorized", "tag": "issue",
                               "authorized_issuers": ["other-ca.example"]})
        );
    }
}
