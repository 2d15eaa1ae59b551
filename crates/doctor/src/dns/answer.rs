//! One server's answer to one question, kept in a serialisable form so that every finding can
//! show its evidence: which server, which records, which TTLs.

use std::borrow::Cow;
use std::fmt;

use domain_desk_api::caa::CaaRecord;
use hickory_proto::op::{Message, ResponseCode};
use hickory_proto::rr::{Name, RData, Record, RecordType};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::presentation::{
    ipv4_text, is_normalised, is_plain_label, normalise_name, push_plain_label,
};

/// How a question ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// NOERROR: records, or none (NODATA).
    NoError,
    /// NXDOMAIN: the name does not exist.
    NxDomain,
    /// SERVFAIL: the server could not answer (often DNSSEC or a broken delegation).
    ServFail,
    /// REFUSED: the server will not answer for this name (not its zone, or no recursion).
    Refused,
    /// Any other response code; the answer's `error` names it.
    OtherRcode,
    /// No answer within the time allowed.
    Timeout,
    /// The server could not be reached, or sent something that is not a DNS answer.
    Failed,
}

impl AnswerStatus {
    /// The label `dig` would print.
    pub fn label(self) -> &'static str {
        match self {
            AnswerStatus::NoError => "NOERROR",
            AnswerStatus::NxDomain => "NXDOMAIN",
            AnswerStatus::ServFail => "SERVFAIL",
            AnswerStatus::Refused => "REFUSED",
            AnswerStatus::OtherRcode => "error",
            AnswerStatus::Timeout => "timeout",
            AnswerStatus::Failed => "unreachable",
        }
    }

    /// True when the server answered the question (positively or negatively).
    pub fn is_answer(self) -> bool {
        matches!(self, AnswerStatus::NoError | AnswerStatus::NxDomain)
    }
}

impl fmt::Display for AnswerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A resource record in presentation form, the way a DNS provider shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
pub struct DnsRecord {
    /// Owner name, lowercase, without the trailing dot.
    pub name: String,
    /// The type's mnemonic: nearly always a static one, so no allocation for it per record.
    #[serde(rename = "type")]
    pub record_type: Cow<'static, str>,
    pub ttl: u32,
    /// An address, a hostname without the trailing dot, `0 issue "letsencrypt.org"`, text.
    pub value: String,
}

impl DnsRecord {
    pub fn from_record(record: &Record) -> Self {
        Self {
            name: name_text(&record.name),
            record_type: Cow::Borrowed(<&'static str>::from(record.record_type())),
            ttl: record.ttl,
            value: present(&record.data),
        }
    }

    /// True when the record is of `record_type` and owned by `name` (any case, dot or not).
    pub fn is(&self, name: &str, record_type: &str) -> bool {
        self.record_type == record_type && is_normalised(&self.name, name)
    }

    /// The CAA record this is, when it is one.
    pub fn caa(&self) -> Option<CaaRecord> {
        if self.record_type == "CAA" {
            CaaRecord::parse(&self.value).ok()
        } else {
            None
        }
    }
}

impl fmt::Display for DnsRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}. {} IN {} {}",
            self.name, self.ttl, self.record_type, self.value
        )
    }
}

/// One server's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Answer {
    /// `address:port` of the server asked.
    pub server: String,
    pub question: String,
    pub question_type: Cow<'static, str>,
    pub status: AnswerStatus,
    /// What went wrong, for a person, when the status is not an answer.
    pub error: Option<String>,
    /// The AA flag: the server answered from its own zone data.
    pub authoritative: bool,
    /// True when the UDP answer was truncated and the question was asked again over TCP.
    pub via_tcp: bool,
    pub answers: Vec<DnsRecord>,
    /// The authority section: the SOA of a negative answer, or a referral.
    pub authority: Vec<DnsRecord>,
    /// The additional section's address records: a referral's glue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional: Vec<DnsRecord>,
    pub elapsed_ms: u64,
}

impl Answer {
    pub(crate) fn failed(
        server: String,
        question: &str,
        question_type: &'static str,
        status: AnswerStatus,
        error: String,
        elapsed_ms: u64,
    ) -> Self {
        Self {
            server,
            question: normalise_name(question),
            question_type: Cow::Borrowed(question_type),
            status,
            error: Some(error),
            authoritative: false,
            via_tcp: false,
            answers: Vec::new(),
            authority: Vec::new(),
            additional: Vec::new(),
            elapsed_ms,
        }
    }

    pub(crate) fn from_message(
        server: String,
        question: &str,
        question_type: &'static str,
        message: &Message,
        via_tcp: bool,
        elapsed_ms: u64,
    ) -> Self {
        let mut answer = Self::answered(
            server,
            normalise_name(question),
            question_type,
            message.metadata.response_code,
            message.metadata.authoritative,
            message.answers.iter().map(DnsRecord::from_record).collect(),
            message
                .authorities
                .iter()
                .map(DnsRecord::from_record)
                .collect(),
        )
        .taking(via_tcp, elapsed_ms);
        answer.additional = message
            .additionals
            .iter()
            .filter(|record| matches!(record.record_type(), RecordType::A | RecordType::AAAA))
            .map(DnsRecord::from_record)
            .collect();
        answer
    }

    /// `question` is in [`normalise_name`]'s form.
    pub(crate) fn answered(
        server: String,
        question: String,
        question_type: &'static str,
        response_code: ResponseCode,
        authoritative: bool,
        answers: Vec<DnsRecord>,
        authority: Vec<DnsRecord>,
    ) -> Self {
        let (status, error) = match response_code {
            ResponseCode::NoError => (AnswerStatus::NoError, None),
            ResponseCode::NXDomain => (AnswerStatus::NxDomain, None),
            ResponseCode::ServFail => (
                AnswerStatus::ServFail,
                Some("the server answered SERVFAIL".to_owned()),
            ),
            ResponseCode::Refused => (
                AnswerStatus::Refused,
                Some("the server refused to answer".to_owned()),
            ),
            other => (
                AnswerStatus::OtherRcode,
                Some(format!("the server answered {other}")),
            ),
        };
        Self {
            server,
            question,
            question_type: Cow::Borrowed(question_type),
            status,
            error,
            authoritative,
            via_tcp: false,
            answers,
            authority,
            additional: Vec::new(),
            elapsed_ms: 0,
        }
    }

    pub(super) fn taking(mut self, via_tcp: bool, elapsed_ms: u64) -> Self {
        self.via_tcp = via_tcp;
        self.elapsed_ms = elapsed_ms;
        self
    }

    /// Records of `record_type` owned by `name`.
    pub fn records<'a>(
        &'a self,
        name: &'a str,
        record_type: &'a str,
    ) -> impl Iterator<Item = &'a DnsRecord> + 'a {
        self.answers
            .iter()
            .filter(move |record| record.is(name, record_type))
    }

    /// Records of `record_type` anywhere in the answer section (after a CNAME chain, too).
    pub fn records_of_type<'a>(
        &'a self,
        record_type: &'a str,
    ) -> impl Iterator<Item = &'a DnsRecord> + 'a {
        self.answers
            .iter()
            .filter(move |record| record.record_type == record_type)
    }

    /// The CNAME owned by `name`, if the answer holds one.
    pub fn cname_of(&self, name: &str) -> Option<&DnsRecord> {
        self.answers
            .iter()
            .find(|record| record.record_type == "CNAME" && is_normalised(&record.name, name))
    }

    /// The end of the CNAME chain that starts at the question, or the question itself.
    pub fn chain_end(&self) -> String {
        let mut current = self.question.clone();
        for _ in 0..16 {
            match self.cname_of(&current) {
                Some(record) => current = record.value.clone(),
                None => break,
            }
        }
        current
    }

    /// The SOA record of a negative answer or of an answer at a zone apex.
    pub fn soa(&self) -> Option<&DnsRecord> {
        self.answers
            .iter()
            .chain(self.authority.iter())
            .find(|record| record.record_type == "SOA")
    }

    /// How long a resolver may cache this negative answer (RFC 2308: the smaller of the SOA's
    /// TTL and its minimum field).
    pub fn negative_ttl(&self) -> Option<u32> {
        let soa = self.soa()?;
        let minimum = soa
            .value
            .split_whitespace()
            .nth(6)
            .and_then(|field| field.parse::<u32>().ok())?;
        Some(minimum.min(soa.ttl))
    }

    /// The largest TTL in the answer section: how long until every cached copy has expired.
    pub fn max_ttl(&self) -> Option<u32> {
        if self.answers.is_empty() {
            self.negative_ttl()
        } else {
            self.answers.iter().map(|record| record.ttl).max()
        }
    }
}

/// A name from the wire in the doctor's form ([`normalise_name`]'s), in one allocation: the
/// answers of a batch hold tens of thousands of names. Labels of letters, digits, `-` and `_`
/// (nearly all) are copied as they are; any other byte takes hickory's presentation, which
/// escapes it.
fn name_text(name: &Name) -> String {
    if !name.iter().all(is_plain_label) {
        let mut text = name.to_ascii();
        if text.ends_with('.') {
            text.pop();
        }
        text.make_ascii_lowercase();
        return text;
    }
    let mut text = String::with_capacity(name.len());
    for label in name.iter() {
        if !text.is_empty() {
            text.push('.');
        }
        push_plain_label(&mut text, label);
    }
    text
}

fn present(data: &RData) -> String {
    match data {
        RData::A(address) => ipv4_text(address.0),
        RData::AAAA(address) => address.0.to_string(),
        RData::CNAME(name) => name_text(&name.0),
        RData::NS(name) => name_text(&name.0),
        RData::PTR(name) => name_text(&name.0),
        RData::MX(mx) => format!(
            "{} {}",
            mx.preference,
            normalise_name(&mx.exchange.to_ascii())
        ),
        RData::CAA(caa) => CaaRecord::new(
            caa.flags(),
            caa.tag.as_str(),
            String::from_utf8_lossy(&caa.value).into_owned(),
        )
        .to_presentation(),
        RData::SOA(soa) => format!(
            "{} {} {} {} {} {} {}",
            normalise_name(&soa.mname.to_ascii()),
            normalise_name(&soa.rname.to_ascii()),
            soa.serial,
            soa.refresh,
            soa.retry,
            soa.expire,
            soa.minimum
        ),
        RData::TXT(txt) => txt
            .txt_data
            .iter()
            .map(|part| character_string(part))
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// A TXT character-string in presentation form (RFC 1035 section 5.1), as `dig` shows it:
/// quoted, `"` and `\` escaped, control characters and bytes that are not UTF-8 as `\DDD`
/// (bidirectional controls as `\u{202e}`, as everywhere in the doctor's output). Readable text,
/// UTF-8 included, stays as it is.
fn character_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for character in chunk.valid().chars() {
            if matches!(character, '"' | '\\') {
                out.push('\\');
                out.push(character);
            } else {
                out.push_str(&crate::escape::terminal(character.encode_utf8(&mut [0; 4])));
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\{byte:03}"));
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_wire_read_as_normalised_names() {
        for name in [
            "Example.COM.",
            ".",
            "xn--bcher-kva.Example.",
            "a\\.b.example.",
            "_dmarc.x.y.",
            "*.Wild.example.",
            "Site-9.EXAMPLE.com",
            "x.",
        ] {
            let parsed = Name::from_ascii(name).unwrap();
            assert_eq!(
                name_text(&parsed),
                normalise_name(&parsed.to_ascii()),
                "{name}"
            );
        }
        assert_eq!(
            name_text(&Name::from_ascii("WWW.Example.com.").unwrap()),
            "www.example.com"
        );
        // bytes from the wire that no text form gives: a dot, a space, UTF-8, a 0 byte
        for labels in [
            vec![&b"a.b"[..], b"example"],
            vec![b"a b", b"example"],
            vec!["b\u{fc}cher".as_bytes(), b"example"],
            vec![b"nul\0", b"Example"],
        ] {
            let parsed = Name::from_labels(labels.iter().map(|l| l.to_vec())).unwrap();
            assert_eq!(
                name_text(&parsed),
                normalise_name(&parsed.to_ascii()),
                "{labels:?}"
            );
        }
    }

    #[test]
    fn record_types_read_as_their_mnemonics() {
        use hickory_proto::rr::RecordType;
        for record_type in [
            RecordType::A,
            RecordType::CAA,
            RecordType::Unknown(65_280),
            RecordType::OPT,
        ] {
            assert_eq!(
                <&'static str>::from(record_type).to_owned(),
                record_type.to_string()
            );
        }
    }

    #[test]
    fn txt_values_are_in_presentation_form() {
        assert_eq!(character_string(b"v=spf1 -all"), "\"v=spf1 -all\"");
        assert_eq!(
            character_string(b"say \"hi\" \\ \x1b[31m\r\n\xff caf\xc3\xa9"),
            "\"say \\\"hi\\\" \\\\ \\027[31m\\013\\010\\255 caf\u{e9}\""
        );
    }
}
