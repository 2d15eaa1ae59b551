//! The common answers read straight from the wire into the doctor's records.
//!
//! Nearly every answer in a batch is a plain one: a response to a standard query, its one
//! question, records of the types the checks read most (A, AAAA, CNAME, NS, PTR, and the SOA
//! of a negative answer), names of letters, digits, `-` and `_`, perhaps an empty OPT record.
//! Decoding those into a hickory-proto `Message` first and presenting it afterwards cost
//! about as much CPU as the rest of a question together (a `Name` of labels per name, a
//! record per record, then text). This reader makes the text directly.
//!
//! It is a fast path, not a second decoder: anything it does not read exactly as hickory's
//! decoder and presentation would — another record type, another class, a name with any other
//! byte, an extended response code, EDNS options, a truncated answer, trailing bytes, a
//! malformed message — makes it step aside ([`Read::Other`]), and the caller decodes the
//! datagram with hickory as before. The tests hold the two paths to the same answer.
//!
//! It is longer than the house's 500 lines only with its tests (about 340 of code, 350 of
//! tests), which hold it to hickory answer by answer.

use std::net::Ipv6Addr;

use hickory_proto::op::{Message, MessageType, ResponseCode};
use hickory_proto::rr::{Name, RecordType};

use crate::dns::answer::{Answer, DnsRecord};
use crate::dns::presentation::{ipv4_text, is_plain_byte, push_decimal};

/// What the reader made of a datagram.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// The answer to the question, read in full.
    Answer(WireAnswer),
    /// A response that is not to this question (another ID, another name or type): ignored,
    /// as hickory's path ignores it.
    NotOurs,
    /// Anything else: decode it with hickory.
    Other,
}

/// A plain answer, as [`Answer::from_message`] would read it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct WireAnswer {
    /// The response code: 0 (NOERROR), 2 (SERVFAIL), 3 (NXDOMAIN) or 5 (REFUSED).
    pub rcode: u8,
    pub authoritative: bool,
    pub answers: Vec<DnsRecord>,
    pub authority: Vec<DnsRecord>,
}

impl Answer {
    /// An answer the wire reader read, as [`Self::from_message`] reads it; `question` is
    /// already in [`normalise_name`](crate::dns::presentation::normalise_name)'s form (the wire reader matched the answer's
    /// question to it).
    pub(crate) fn from_wire(
        server: String,
        question: String,
        question_type: &'static str,
        answer: WireAnswer,
        elapsed_ms: u64,
    ) -> Self {
        Self::answered(
            server,
            question,
            question_type,
            ResponseCode::from(0, answer.rcode),
            answer.authoritative,
            answer.answers,
            answer.authority,
        )
        .taking(false, elapsed_ms)
    }
}

/// The question a request asks, for telling its answer apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Question {
    id: u16,
    /// The name as the reader writes names: lowercase, no trailing dot.
    name: String,
    record_type: u16,
}

impl Question {
    /// The question with `id`, `name` (as this module writes names: lowercase, no trailing
    /// dot) and `record_type`, as the asker knows it: reading it back from the request cost
    /// a name's reading for every question.
    pub(crate) fn new(id: u16, name: String, record_type: u16) -> Self {
        Self {
            id,
            name,
            record_type,
        }
    }

    /// The name asked about, back from the question once its answer is in.
    pub(crate) fn into_name(self) -> String {
        self.name
    }

    /// The question of a request this module can match answers to: one question with a
    /// plain name. `None` leaves matching to hickory.
    #[cfg(test)]
    pub(crate) fn of_request(request: &[u8]) -> Option<Self> {
        let id = read_u16(request, 0)?;
        if read_u16(request, 4)? != 1 {
            return None;
        }
        let mut name = String::with_capacity(NAME_CAPACITY);
        let end = read_name(request, 12, &mut name)?;
        Some(Self {
            id,
            name,
            record_type: read_u16(request, end)?,
        })
    }
}

/// Record types read here, by their number.
const A: u16 = 1;
const NS: u16 = 2;
const CNAME: u16 = 5;
const SOA: u16 = 6;
const PTR: u16 = 12;
const AAAA: u16 = 28;
const OPT: u16 = 41;
const CLASS_IN: u16 = 1;

/// Room made for a name's text up front (most are shorter), so that it is not grown byte by
/// byte.
const NAME_CAPACITY: usize = 48;

/// What the doctor makes of `datagram` when it arrives over UDP as the answer to the question
/// with `id` for `name` and `record_type` (its number): this reader's answer when it reads
/// it, else hickory's decoding and presentation, as the doctor's exchange does; `None` for a
/// datagram that is not that answer (it is ignored) or cannot be read. With
/// [`decode_datagram`], what the fuzz target `dns_wire` holds together: for any bytes at all,
/// this reader decides only as hickory's path would.
pub fn read_datagram(datagram: &[u8], id: u16, name: &str, record_type: u16) -> Option<Answer> {
    let normalised = crate::dns::presentation::normalise_name(name);
    // As the doctor asks: only a plain name's answers go through this reader.
    if crate::dns::presentation::plain_wire_name(&normalised).is_some() {
        let question = Question::new(id, normalised.clone(), record_type);
        match read(datagram, &question) {
            Read::Answer(answer) => {
                return Some(Answer::from_wire(
                    READ_FROM.to_owned(),
                    normalised,
                    RecordType::from(record_type).into(),
                    answer,
                    0,
                ));
            }
            Read::NotOurs => return None,
            Read::Other => {}
        }
    }
    decode_datagram(datagram, id, name, record_type)
}

/// Whether hickory's decoder can read `datagram` as far as its question count goes; when not,
/// it need not be asked, as it could only fail. hickory reserves room for every question the
/// header counts before reading one (`Vec::with_capacity` of up to 65,535 `Query`s, megabytes
/// for a 12-byte datagram anyone can send to the doctor's port), so a forged count cost an
/// allocation that size. A question is at least 5 bytes (a name of at least one byte, its
/// type and class), and a header 12: a datagram shorter than that fails in hickory too.
pub(in crate::dns) fn may_decode(datagram: &[u8]) -> bool {
    const HEADER: usize = 12;
    const LEAST_QUESTION: usize = 5;
    let Some(body) = datagram.len().checked_sub(HEADER) else {
        return false;
    };
    let questions = usize::from(u16::from_be_bytes([datagram[4], datagram[5]]));
    questions * LEAST_QUESTION <= body
}

/// Whether a decoded answer is to the question asked (`name`, `record_type`).
pub(in crate::dns) fn answers_question(
    message: &Message,
    name: &Name,
    record_type: RecordType,
) -> bool {
    match message.queries.first() {
        // Name equality is case-insensitive, as DNS compares names.
        Some(query) => query.query_type() == record_type && query.name() == name,
        // Some servers leave the question out of an error answer.
        None => true,
    }
}

/// What hickory's decoding alone makes of `datagram` as the answer to that question (see
/// [`read_datagram`]): the path the doctor takes for any answer this reader steps aside from.
pub fn decode_datagram(datagram: &[u8], id: u16, name: &str, record_type: u16) -> Option<Answer> {
    if !may_decode(datagram) {
        return None;
    }
    let message = Message::from_vec(datagram).ok()?;
    let mut asked = Name::from_ascii(crate::dns::presentation::normalise_name(name)).ok()?;
    asked.set_fqdn(true);
    let record_type = RecordType::from(record_type);
    let ours = message.metadata.id == id
        && message.metadata.message_type == MessageType::Response
        && answers_question(&message, &asked, record_type);
    ours.then(|| {
        Answer::from_message(
            READ_FROM.to_owned(),
            name,
            record_type.into(),
            &message,
            false,
            0,
        )
    })
}

/// The server [`read_datagram`]'s answers name: no server was asked.
const READ_FROM: &str = "0.0.0.0:53";

/// Reads `datagram` as the answer to `question`.
pub(crate) fn read(datagram: &[u8], question: &Question) -> Read {
    read_answer(datagram, question).unwrap_or(Read::Other)
}

fn read_answer(datagram: &[u8], question: &Question) -> Option<Read> {
    let id = read_u16(datagram, 0)?;
    let flags = read_u16(datagram, 2)?;
    let counts = [
        read_u16(datagram, 4)?,
        read_u16(datagram, 6)?,
        read_u16(datagram, 8)?,
        read_u16(datagram, 10)?,
    ];
    let is_response = flags & 0x8000 != 0;
    let opcode = (flags >> 11) & 0xF;
    let truncated = flags & 0x0200 != 0;
    let rcode = u8::try_from(flags & 0xF).ok()?;
    if opcode != 0 || truncated || !matches!(rcode, 0 | 2 | 3 | 5) || counts[0] != 1 {
        return Some(Read::Other);
    }

    let (same_name, mut at) = name_is(datagram, 12, &question.name)?;
    let record_type = read_u16(datagram, at)?;
    at += 4; // type and class
    if id != question.id || !is_response {
        return Some(Read::NotOurs);
    }
    if record_type != question.record_type || !same_name {
        return Some(Read::NotOurs);
    }

    let mut answers = Vec::with_capacity(usize::from(counts[1]));
    for _ in 0..counts[1] {
        let (record, next) = read_record(datagram, at)?;
        answers.push(record);
        at = next;
    }
    let mut authority = Vec::with_capacity(usize::from(counts[2]));
    for _ in 0..counts[2] {
        let (record, next) = read_record(datagram, at)?;
        authority.push(record);
        at = next;
    }
    // The additional section: at most one OPT record, empty, with no extended response code
    // (it would change the response code) and version 0.
    match counts[3] {
        0 => {}
        1 => {
            let root = datagram.get(at)?;
            let record_type = read_u16(datagram, at + 1)?;
            let extended = read_u16(datagram, at + 5)?;
            let length = read_u16(datagram, at + 9)?;
            if *root != 0 || record_type != OPT || extended != 0 || length != 0 {
                return None;
            }
            at += 11;
        }
        _ => return None,
    }
    if at != datagram.len() {
        return None;
    }
    Some(Read::Answer(WireAnswer {
        rcode,
        authoritative: flags & 0x0400 != 0,
        answers,
        authority,
    }))
}

/// One record of a type read here, and where the next one starts.
fn read_record(datagram: &[u8], at: usize) -> Option<(DnsRecord, usize)> {
    let mut name = String::with_capacity(NAME_CAPACITY);
    let at = read_name(datagram, at, &mut name)?;
    let record_type = read_u16(datagram, at)?;
    let class = read_u16(datagram, at + 2)?;
    let ttl = read_u32(datagram, at + 4)?;
    let length = usize::from(read_u16(datagram, at + 8)?);
    let start = at + 10;
    let end = start.checked_add(length)?;
    let data = datagram.get(start..end)?;
    if class != CLASS_IN || data.is_empty() {
        return None;
    }
    let (type_name, value) = match record_type {
        A => {
            let octets: [u8; 4] = data.try_into().ok()?;
            ("A", ipv4_text(octets.into()))
        }
        AAAA => {
            let octets: [u8; 16] = data.try_into().ok()?;
            ("AAAA", Ipv6Addr::from(octets).to_string())
        }
        CNAME | NS | PTR => {
            let mut target = String::with_capacity(NAME_CAPACITY);
            if read_name(datagram, start, &mut target)? != end {
                return None;
            }
            let type_name = match record_type {
                CNAME => "CNAME",
                NS => "NS",
                _ => "PTR",
            };
            (type_name, target)
        }
        SOA => ("SOA", soa_text(datagram, start, end)?),
        _ => return None,
    };
    let record = DnsRecord {
        name,
        record_type: type_name.into(),
        ttl,
        value,
    };
    Some((record, end))
}

/// `mname rname serial refresh retry expire minimum`, as hickory presents an SOA (its
/// refresh, retry and expire are signed).
fn soa_text(datagram: &[u8], start: usize, end: usize) -> Option<String> {
    let mut text = String::with_capacity(2 * NAME_CAPACITY + 60);
    let at = read_name(datagram, start, &mut text)?;
    text.push(' ');
    let at = read_name(datagram, at, &mut text)?;
    if at + 20 != end {
        return None;
    }
    for index in 0..5 {
        let number = read_u32(datagram, at + 4 * index)?;
        text.push(' ');
        if (1..=3).contains(&index) && number > i32::MAX as u32 {
            // hickory's i32: the two's complement, negative
            text.push('-');
            push_decimal(&mut text, number.wrapping_neg());
        } else {
            push_decimal(&mut text, number);
        }
    }
    Some(text)
}

/// Appends the name at `at` to `text` (lowercase, labels joined by dots, no trailing dot) and
/// returns where the name ends in the datagram. `None` for anything but a name of plain labels
/// that hickory would read the same: compression pointers only to earlier names (as hickory
/// requires, so no loop), at most 250 bytes.
fn read_name(datagram: &[u8], at: usize, text: &mut String) -> Option<usize> {
    // The name is put together here, then checked as UTF-8 (it is ASCII) and appended once: a
    // check and a copy per label cost more than the rest of reading it.
    let mut name = [0u8; MAX_NAME_BYTES];
    let (used, end) = read_name_into(datagram, at, &mut name)?;
    text.push_str(std::str::from_utf8(name.get(..used)?).ok()?);
    Some(end)
}

/// As [`read_name`], but only says whether the name at `at` is `expected` (in the form
/// [`read_name`] writes), with where it ends: the question of every answer is compared, never
/// kept, so it is not copied into a string of its own.
fn name_is(datagram: &[u8], at: usize, expected: &str) -> Option<(bool, usize)> {
    let mut name = [0u8; MAX_NAME_BYTES];
    let (used, end) = read_name_into(datagram, at, &mut name)?;
    Some((name.get(..used)? == expected.as_bytes(), end))
}

/// Writes the name at `at` into `name` as [`read_name`] describes; returns how many bytes it
/// wrote and where the name ends in the datagram.
fn read_name_into(
    datagram: &[u8],
    mut at: usize,
    name: &mut [u8; MAX_NAME_BYTES],
) -> Option<(usize, usize)> {
    let mut used = 0;
    let mut end = None;
    let mut name_start = at;
    let mut limit = usize::MAX;
    let mut length = 0usize;
    loop {
        if at >= limit {
            return None;
        }
        let byte = *datagram.get(at)?;
        match byte & 0xC0 {
            0x00 if byte == 0 => return Some((used, end.unwrap_or(at + 1))),
            0x00 => {
                let label = datagram.get(at + 1..at + 1 + usize::from(byte))?;
                // A leading `-` is written escaped (`\-`): not plain, left to hickory.
                if label.first() == Some(&b'-') {
                    return None;
                }
                length += label.len() + 1;
                if length > MAX_NAME_BYTES {
                    return None;
                }
                if used > 0 {
                    *name.get_mut(used)? = b'.';
                    used += 1;
                }
                let copy = name.get_mut(used..used + label.len())?;
                for (slot, byte) in copy.iter_mut().zip(label) {
                    *slot = PLAIN_LOWERCASE[usize::from(*byte)];
                    if *slot == NOT_PLAIN {
                        return None;
                    }
                }
                used += label.len();
                at += 1 + label.len();
            }
            0xC0 => {
                let pointer = usize::from(read_u16(datagram, at)? & 0x3FFF);
                if pointer >= name_start {
                    return None;
                }
                end.get_or_insert(at + 2);
                limit = name_start;
                name_start = pointer;
                at = pointer;
            }
            _ => return None,
        }
    }
}

/// Each byte a plain label may hold (see [`crate::dns::presentation::is_plain_label`]), lowercased; [`NOT_PLAIN`] for
/// any other. One look-up per byte both checks and lowercases it.
const PLAIN_LOWERCASE: [u8; 256] = {
    let mut table = [NOT_PLAIN; 256];
    let mut index = 0;
    while index < table.len() {
        let byte = index as u8;
        if is_plain_byte(byte) {
            table[index] = byte.to_ascii_lowercase();
        }
        index += 1;
    }
    table
};
const NOT_PLAIN: u8 = 0;

/// The longest name read here, in bytes on the wire less the root's: its text (labels and the
/// dots between them) is never longer.
const MAX_NAME_BYTES: usize = 250;

fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let pair = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes([pair[0], pair[1]]))
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let quad = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([quad[0], quad[1], quad[2], quad[3]]))
}

#[cfg(test)]
mod tests {
    use hickory_proto::op::{Edns, Message, MessageType, OpCode, Query, ResponseCode};
    use hickory_proto::rr::rdata::{A as ARecord, AAAA as AaaaRecord, CAA, CNAME as CnameRecord};
    use hickory_proto::rr::rdata::{MX, NS as NsRecord, PTR as PtrRecord, SOA as SoaRecord, TXT};
    use hickory_proto::rr::{Name, RData, Record, RecordType};

    use super::*;

    #[test]
    fn the_table_knows_the_bytes_of_a_plain_label() {
        use crate::dns::presentation::is_plain_byte;
        for byte in 0..=u8::MAX {
            let expected = is_plain_byte(byte).then(|| byte.to_ascii_lowercase());
            let found = Some(PLAIN_LOWERCASE[usize::from(byte)]).filter(|b| *b != NOT_PLAIN);
            assert_eq!(found, expected, "byte {byte}");
        }
    }

    /// `may_decode` says no only where hickory's decoder fails: a header that counts more
    /// questions than the bytes after it can hold, or no whole header. At the boundary (every
    /// question the root's, 5 bytes) hickory decodes and `may_decode` lets it.
    #[test]
    fn may_decode_refuses_only_what_hickory_cannot_decode() {
        let header = |questions: u16| {
            let mut bytes = vec![0x12, 0x34, 0x81, 0x80, 0, 0, 0, 0, 0, 0, 0, 0];
            bytes[4..6].copy_from_slice(&questions.to_be_bytes());
            bytes
        };
        let root_question = [0u8, 0, 1, 0, 1];
        for questions in [1u16, 2, 7] {
            let mut fits = header(questions);
            for _ in 0..questions {
                fits.extend_from_slice(&root_question);
            }
            assert!(Message::from_vec(&fits).is_ok(), "{questions} questions");
            assert!(may_decode(&fits), "{questions} questions");
            let short = &fits[..fits.len() - 1];
            assert!(Message::from_vec(short).is_err(), "{questions} questions");
            assert!(!may_decode(short), "{questions} questions");
        }
        let mut forged = header(u16::MAX);
        forged.extend_from_slice(&root_question);
        assert!(Message::from_vec(&forged).is_err());
        assert!(!may_decode(&forged));
        for length in 0..12 {
            assert!(Message::from_vec(&header(0)[..length]).is_err());
            assert!(!may_decode(&header(0)[..length]), "{length} bytes");
        }
        assert!(may_decode(&header(0)));
    }

    const ID: u16 = 0x4d2c;

    fn name(text: &str) -> Name {
        Name::from_ascii(text).unwrap()
    }

    fn record(owner: &str, ttl: u32, data: RData) -> Record {
        Record::from_rdata(name(owner), ttl, data)
    }

    /// The request for `question`, as the doctor sends it.
    fn request(question: &str, record_type: RecordType) -> Vec<u8> {
        let mut message = Message::new(ID, MessageType::Query, OpCode::Query);
        message.metadata.recursion_desired = true;
        message.add_query(Query::query(name(question), record_type));
        message.to_vec().unwrap()
    }

    struct Reply {
        question: &'static str,
        record_type: RecordType,
        rcode: ResponseCode,
        authoritative: bool,
        answers: Vec<Record>,
        authority: Vec<Record>,
        edns: bool,
    }

    impl Reply {
        fn new(question: &'static str, record_type: RecordType) -> Self {
            Self {
                question,
                record_type,
                rcode: ResponseCode::NoError,
                authoritative: true,
                answers: Vec::new(),
                authority: Vec::new(),
                edns: true,
            }
        }

        fn message(&self) -> Message {
            let mut message = Message::new(ID, MessageType::Response, OpCode::Query);
            message.metadata.authoritative = self.authoritative;
            message.metadata.response_code = self.rcode;
            message.add_query(Query::query(name(self.question), self.record_type));
            message.insert_answers(self.answers.clone());
            message.insert_authorities(self.authority.clone());
            if self.edns {
                let mut edns = Edns::new();
                edns.set_max_payload(1232);
                message.set_edns(edns);
            }
            message
        }

        fn bytes(&self) -> Vec<u8> {
            self.message().to_vec().unwrap()
        }
    }

    /// What the doctor made of `datagram` as the answer to the request before the wire
    /// reader: hickory's decoding and presentation; `None` when it ignored the datagram.
    fn decoded(datagram: &[u8], question: &str, record_type: RecordType) -> Option<Answer> {
        let message = Message::from_vec(datagram).ok()?;
        let mut asked = name(question);
        asked.set_fqdn(true);
        let ours = message.metadata.id == ID
            && message.metadata.message_type == MessageType::Response
            && answers_question(&message, &asked, record_type);
        ours.then(|| {
            Answer::from_message(
                "192.0.2.53:53".to_owned(),
                question,
                record_type.into(),
                &message,
                false,
                1,
            )
        })
    }

    /// The wire reader's answer, or what it says about the datagram.
    fn read_by_wire(
        datagram: &[u8],
        question: &str,
        record_type: RecordType,
    ) -> Result<Answer, Read> {
        let asked = Question::of_request(&request(question, record_type)).unwrap();
        match read(datagram, &asked) {
            Read::Answer(answer) => Ok(Answer::from_wire(
                "192.0.2.53:53".to_owned(),
                crate::dns::presentation::normalise_name(question),
                record_type.into(),
                answer,
                1,
            )),
            other => Err(other),
        }
    }

    /// Wherever the wire reader decides, it decides as hickory's path did.
    fn agrees(datagram: &[u8], question: &str, record_type: RecordType) -> Result<(), String> {
        let before = decoded(datagram, question, record_type);
        match read_by_wire(datagram, question, record_type) {
            Ok(answer) if before.as_ref() == Some(&answer) => Ok(()),
            Ok(answer) => Err(format!("read {answer:?}, hickory {before:?}")),
            Err(Read::NotOurs) if before.is_none() => Ok(()),
            Err(Read::NotOurs) => Err(format!("ignored what hickory read: {before:?}")),
            Err(Read::Other) => Ok(()),
            Err(Read::Answer(_)) => unreachable!(),
        }
    }

    fn soa(mname: &str, serial: u32, refresh: i32) -> RData {
        RData::SOA(SoaRecord::new(
            name(mname),
            name("Hostmaster.Example.com."),
            serial,
            refresh,
            -1,
            i32::MIN,
            u32::MAX,
        ))
    }

    /// Plain answers of every shape the reader reads.
    fn plain_replies() -> Vec<Reply> {
        let mut replies = Vec::new();

        let mut chain = Reply::new("WWW.Example.com.", RecordType::A);
        chain.answers = vec![
            record(
                "www.example.COM.",
                300,
                RData::CNAME(CnameRecord(name("Sites.Platform-Edge.net."))),
            ),
            record(
                "sites.platform-edge.net.",
                60,
                RData::A(ARecord::new(203, 0, 113, 7)),
            ),
            record(
                "sites.platform-edge.net.",
                u32::MAX,
                RData::A(ARecord::new(0, 0, 0, 0)),
            ),
        ];
        replies.push(chain);

        let mut v6 = Reply::new("v6.example.org.", RecordType::AAAA);
        v6.answers = vec![record(
            "v6.example.org.",
            0,
            RData::AAAA(AaaaRecord("2001:db8::1".parse().unwrap())),
        )];
        v6.edns = false;
        replies.push(v6);

        let mut missing = Reply::new("missing1.example.org.", RecordType::CAA);
        missing.rcode = ResponseCode::NXDomain;
        missing.authority = vec![record(
            "example.org.",
            3600,
            soa("ns1.example.org.", 2_026_112_501, 7200),
        )];
        replies.push(missing);

        let mut negative = Reply::new("_acme.example.net.", RecordType::TXT);
        negative.authority = vec![record(".", 86_400, soa(".", u32::MAX, i32::MIN))];
        replies.push(negative);

        let mut referral = Reply::new("deep.sub.example.com.", RecordType::NS);
        referral.authoritative = false;
        referral.authority = vec![
            record(
                "sub.example.com.",
                172_800,
                RData::NS(NsRecord(name("ns1.sub.example.com."))),
            ),
            record(
                "sub.example.com.",
                172_800,
                RData::NS(NsRecord(name("NS2.dns-host.example."))),
            ),
        ];
        replies.push(referral);

        let mut reverse = Reply::new("7.113.0.203.in-addr.arpa.", RecordType::PTR);
        reverse.answers = vec![record(
            "7.113.0.203.in-addr.arpa.",
            300,
            RData::PTR(PtrRecord(name("edge-7.platform.example."))),
        )];
        replies.push(reverse);

        for rcode in [ResponseCode::ServFail, ResponseCode::Refused] {
            let mut failed = Reply::new("down.example.com.", RecordType::A);
            failed.rcode = rcode;
            failed.authoritative = false;
            replies.push(failed);
        }

        let mut root = Reply::new(".", RecordType::SOA);
        root.answers = vec![record(".", 86_400, soa("a.root-servers.net.", 1, 1800))];
        replies.push(root);
        replies
    }

    #[test]
    fn plain_answers_are_read_as_hickory_reads_them() {
        for reply in plain_replies() {
            let datagram = reply.bytes();
            let read = read_by_wire(&datagram, reply.question, reply.record_type);
            let before = decoded(&datagram, reply.question, reply.record_type);
            assert!(before.is_some(), "{}", reply.question);
            assert_eq!(read.ok(), before, "{}", reply.question);
        }
    }

    #[test]
    fn a_label_starting_with_a_hyphen_is_read_as_hickory_writes_it() {
        // Found by the dns_wire fuzz target: `-ostmaster` in a SOA's names.
        let mut reply = Reply::new("missing1.example.org.", RecordType::CAA);
        reply.rcode = ResponseCode::NXDomain;
        reply.authority = vec![record(
            "example.org.",
            900,
            RData::SOA(SoaRecord::new(
                name("ns1.example.net."),
                Name::from_labels([&b"-ostmaster"[..], b"example", b"com"]).unwrap(),
                1,
                2,
                3,
                4,
                5,
            )),
        )];
        let datagram = reply.bytes();
        let before = decoded(&datagram, reply.question, reply.record_type).expect("decoded");
        assert!(
            before.authority[0].value.contains("\\-ostmaster"),
            "{before:?}"
        );
        agrees(&datagram, reply.question, reply.record_type).unwrap();
    }

    #[test]
    fn answers_to_another_question_are_ignored() {
        let reply = &plain_replies()[0];
        let datagram = reply.bytes();
        assert_eq!(
            read_by_wire(&datagram, "www.example.com.", RecordType::AAAA).unwrap_err(),
            Read::NotOurs
        );
        assert_eq!(
            read_by_wire(&datagram, "ww.example.com.", RecordType::A).unwrap_err(),
            Read::NotOurs
        );
        let mut other_id = datagram.clone();
        other_id[1] ^= 1;
        let mut a_query = datagram.clone();
        a_query[2] &= 0x7F;
        for datagram in [other_id, a_query] {
            assert_eq!(
                read_by_wire(&datagram, reply.question, reply.record_type).unwrap_err(),
                Read::NotOurs
            );
            assert_eq!(decoded(&datagram, reply.question, reply.record_type), None);
        }
    }

    #[test]
    fn everything_else_is_left_to_hickory() {
        let mut replies = Vec::new();
        for data in [
            RData::CAA(CAA::new_issue(
                false,
                Some(name("letsencrypt.org.")),
                Vec::new(),
            )),
            RData::TXT(TXT::new(vec!["v=spf1 -all".to_owned()])),
            RData::MX(MX::new(10, name("mail.example.com."))),
            RData::A(ARecord::new(192, 0, 2, 1)),
        ] {
            let mut reply = Reply::new("odd.example.com.", data.record_type());
            reply.answers = vec![record("odd.example.com.", 60, data)];
            replies.push(reply);
        }
        // a label with a byte no plain name has
        let mut odd = Reply::new("odd.example.com.", RecordType::CNAME);
        let target = Name::from_labels(vec![b"a b".to_vec(), b"example".to_vec()]).unwrap();
        odd.answers = vec![record(
            "odd.example.com.",
            60,
            RData::CNAME(CnameRecord(target)),
        )];
        replies.push(odd);
        let mut formerr = Reply::new("odd.example.com.", RecordType::A);
        formerr.rcode = ResponseCode::FormErr;
        formerr.edns = false;
        replies.push(formerr);
        let mut badvers = Reply::new("odd.example.com.", RecordType::A);
        badvers.rcode = ResponseCode::BADVERS;
        replies.push(badvers);

        for (index, reply) in replies.iter().enumerate() {
            let mut datagram = reply.bytes();
            if index == 3 {
                datagram.push(0); // a trailing byte after a plain answer
            }
            assert_eq!(
                read_by_wire(&datagram, reply.question, reply.record_type).unwrap_err(),
                Read::Other,
                "{index}"
            );
        }
        let mut truncated = plain_replies().remove(0).message();
        truncated.metadata.truncation = true;
        let datagram = truncated.to_vec().unwrap();
        assert_eq!(
            read_by_wire(&datagram, "www.example.com.", RecordType::A).unwrap_err(),
            Read::Other
        );
    }

    #[test]
    fn a_pointer_loop_or_a_forward_pointer_is_left_to_hickory() {
        let mut datagram = plain_replies()[0].bytes();
        // the question's name: a pointer to itself
        datagram[12] = 0xC0;
        datagram[13] = 12;
        assert_eq!(
            read_by_wire(&datagram, "www.example.com.", RecordType::A).unwrap_err(),
            Read::Other
        );
        datagram[13] = 40;
        assert_eq!(
            read_by_wire(&datagram, "www.example.com.", RecordType::A).unwrap_err(),
            Read::Other
        );
    }

    /// The public pair the fuzz target `dns_wire` compares: the same answer for a plain
    /// reply, for every cut of it, and for a reply to another ID (ignored by both).
    #[test]
    fn the_public_reader_reads_as_hickory_decodes() {
        for reply in plain_replies() {
            let datagram = reply.bytes();
            let record_type = u16::from(reply.record_type);
            let read = read_datagram(&datagram, ID, reply.question, record_type);
            assert!(read.is_some(), "{}", reply.question);
            assert_eq!(
                read,
                decode_datagram(&datagram, ID, reply.question, record_type)
            );
            assert_eq!(
                read_datagram(&datagram, ID ^ 1, reply.question, record_type),
                None
            );
            for length in 0..datagram.len() {
                let cut = &datagram[..length];
                assert_eq!(
                    read_datagram(cut, ID, reply.question, record_type),
                    decode_datagram(cut, ID, reply.question, record_type),
                    "{} cut at {length}",
                    reply.question
                );
            }
        }
    }

    /// Every cut and every changed byte of every plain answer: where the reader decides
    /// (reads an answer, or ignores the datagram), hickory's path decided the same.
    #[test]
    fn cut_or_changed_answers_are_read_as_hickory_reads_them_or_left_to_it() {
        let mut decided = 0;
        for reply in plain_replies() {
            let datagram = reply.bytes();
            for length in 0..datagram.len() {
                agrees(&datagram[..length], reply.question, reply.record_type)
                    .unwrap_or_else(|error| panic!("{} cut at {length}: {error}", reply.question));
            }
            for at in 0..datagram.len() {
                for value in [0x00, 0x01, 0x3F, 0x40, 0x7F, 0xC0, 0xFF, b'A', b'.', b' '] {
                    let mut changed = datagram.clone();
                    changed[at] = value;
                    agrees(&changed, reply.question, reply.record_type).unwrap_or_else(|error| {
                        panic!("{} with byte {at} = {value:#x}: {error}", reply.question)
                    });
                    if read_by_wire(&changed, reply.question, reply.record_type).is_ok() {
                        decided += 1;
                    }
                }
            }
        }
        assert!(
            decided > 1000,
            "the reader read only {decided} changed answers"
        );
    }
}
