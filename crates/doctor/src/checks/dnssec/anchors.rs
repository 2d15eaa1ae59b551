//! The trust anchors a DNSSEC validation starts from: IANA's root keys, or a file of DNSKEY
//! and DS records the caller gives (for a private or test zone).
//!
//! hickory's `TrustAnchors` holds keys, while anchors are often published as DS records
//! (IANA's root anchor is): a DS anchor becomes the keys of its owner's DNSKEY RRset, as the
//! first server gives it, whose digest it matches, or an error when none does.
//!
//! It is longer than the house's 500 lines with its tests (about 320 of code, 190 of tests): it
//! is one job, the anchors a validation starts from, read from a file line by line (DS and
//! DNSKEY in their text forms) and turned into keys; its tests check both forms against IANA's
//! root anchor (its DS and KSK-2017). The walk that starts from them is apart already
//! (`walk.rs`), as is its connection (`tcp.rs`).

use std::net::SocketAddr;
use std::time::Duration;

use futures::StreamExt;
use hickory_net::xfer::DnsHandle;
use hickory_proto::dnssec::rdata::{DNSKEY, DNSSECRData, DS};
use hickory_proto::dnssec::{DigestType, PublicKey, TrustAnchors};
use hickory_proto::op::{DnsRequestOptions, Query};
use hickory_proto::rr::{LowerName, Name, RData, RecordType};

use super::tcp::{CheckingDisabled, connect};

/// A trust anchor file as read, before any question: the keys given as DNSKEY records, and
/// the DS records whose keys must be fetched from a server (IANA publishes the root's anchor
/// as DS).
#[derive(Clone)]
pub struct AnchorFile {
    keys: TrustAnchors,
    /// How many DNSKEY records `keys` was read from (hickory's count covers the root's only).
    dnskey_count: usize,
    ds: Vec<(Name, DS)>,
    /// The owner of the file's first record.
    first_owner: Option<Name>,
}

impl AnchorFile {
    /// The owners of the DS records, each once, in the file's order.
    pub fn ds_owners(&self) -> Vec<Name> {
        let mut owners: Vec<Name> = Vec::new();
        for (owner, _) in &self.ds {
            if !owners.contains(owner) {
                owners.push(owner.clone());
            }
        }
        owners
    }

    /// The owner of the file's first record: where validation starts.
    pub fn first_owner(&self) -> Option<&Name> {
        self.first_owner.as_ref()
    }

    /// How many DNSKEY and DS records the file holds.
    pub fn counts(&self) -> (usize, usize) {
        (self.dnskey_count, self.ds.len())
    }
}

/// Reads a trust anchor in zone-file form: DNSKEY and DS records, `;` comments allowed. Each
/// line is checked (and DNSKEY lines written canonically) before hickory's parser sees it,
/// which asserts on some malformed input instead of returning an error.
pub fn read_anchor_file(text: &str) -> Result<AnchorFile, String> {
    let mut canonical = String::new();
    let mut dnskey_count = 0;
    let mut ds = Vec::new();
    let mut first_owner = None;
    for (number, line) in text.lines().enumerate() {
        let line = line.split(';').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let at_line =
            |problem: String| format!("line {} of the trust anchor: {problem}", number + 1);
        let read = anchor_line(line).map_err(at_line)?;
        if first_owner.is_none() {
            first_owner = Some(match &read {
                AnchorLine::Ds(owner, _) => owner.clone(),
                AnchorLine::Dnskey(text) => {
                    let owner = text.split_whitespace().next().unwrap_or(".");
                    Name::from_ascii(owner)
                        .map_err(|error| at_line(format!("{owner:?} is not a DNS name: {error}")))?
                }
            });
        }
        match read {
            AnchorLine::Dnskey(text) => {
                canonical.push_str(&text);
                canonical.push('\n');
                dnskey_count += 1;
            }
            AnchorLine::Ds(owner, record) => ds.push((owner, record)),
        }
    }
    if canonical.is_empty() && ds.is_empty() {
        return Err("the trust anchor holds no DNSKEY or DS record".to_owned());
    }
    let keys = if canonical.is_empty() {
        TrustAnchors::empty()
    } else {
        canonical
            .parse()
            .map_err(|error| format!("the trust anchor is not DNSKEY records: {error}"))?
    };
    Ok(AnchorFile {
        keys,
        dnskey_count,
        ds,
        first_owner,
    })
}

/// The name whose DNSKEY records validation starts from, as the doctor asks it: the trust
/// anchor's first owner, or the root for IANA's keys (and for a file that does not read,
/// which `diagnose` refuses before this is asked).
pub fn anchor_owner(text: Option<&str>) -> String {
    let owner = text
        .and_then(|text| read_anchor_file(text).ok())
        .and_then(|file| file.first_owner().map(Name::to_ascii))
        .unwrap_or_default();
    match owner.trim_end_matches('.') {
        "" => ".".to_owned(),
        owner => owner.to_owned(),
    }
}

/// The trust anchors of a run: IANA's root keys without `text`; with it, its DNSKEY records
/// and, for its DS records, the keys of each DS owner that `server` hands out (asked with
/// checking disabled) whose digest a DS matches. An owner none of whose keys matches is an
/// error, not an anchor that would make every answer bogus.
pub async fn trust_anchors(
    text: Option<&str>,
    server: SocketAddr,
    timeout: Duration,
) -> Result<TrustAnchors, String> {
    let Some(text) = text else {
        return Ok(TrustAnchors::default());
    };
    let file = read_anchor_file(text)?;
    let mut anchors = file.keys.clone();
    for owner in file.ds_owners() {
        let ds: Vec<DS> = file
            .ds
            .iter()
            .filter(|(of, _)| *of == owner)
            .map(|(_, record)| record.clone())
            .collect();
        let keys = fetch_dnskeys(server, &owner, timeout).await?;
        let matching = keys_matching(&owner, &ds, &keys);
        if matching.is_empty() {
            let tags: Vec<String> = ds
                .iter()
                .map(|record| record.key_tag().to_string())
                .collect();
            return Err(format!(
                "no DNSKEY of {owner} that {server} gives ({} key{}) matches the trust anchor's \
                 DS (key tag {}): the anchor is for other keys, or the server answers for \
                 another zone",
                keys.len(),
                if keys.len() == 1 { "" } else { "s" },
                tags.join(", ")
            ));
        }
        // Trusted for its owner only, as hickory's validator reads an anchor.
        for key in matching {
            anchors.insert_with_name(key.public_key(), LowerName::from(&owner));
        }
    }
    Ok(anchors)
}

/// The keys among `keys` (the DNSKEY RRset of `owner`) that one of `ds` names: same key tag
/// and algorithm, a zone key, and the digest of owner and key equal to the DS digest.
pub fn keys_matching<'k>(owner: &Name, ds: &[DS], keys: &'k [DNSKEY]) -> Vec<&'k DNSKEY> {
    keys.iter()
        .filter(|key| {
            let Ok(tag) = key.calculate_key_tag() else {
                return false;
            };
            ds.iter().any(|record| {
                record.key_tag() == tag
                    && record.algorithm() == key.public_key().algorithm()
                    && record.covers(owner, key).unwrap_or(false)
            })
        })
        .collect()
}

/// The DNSKEY RRset of `owner` as `server` gives it, asked over TCP with checking disabled.
async fn fetch_dnskeys(
    server: SocketAddr,
    owner: &Name,
    timeout: Duration,
) -> Result<Vec<DNSKEY>, String> {
    let asked = tokio::time::timeout(timeout * 2, async {
        let (exchange, background) = connect(server, timeout).await?;
        let mut request = DnsRequestOptions::default();
        request.use_edns = true;
        let answer = CheckingDisabled(exchange)
            .lookup(Query::query(owner.clone(), RecordType::DNSKEY), request)
            .next()
            .await;
        background.abort();
        match answer {
            Some(Ok(response)) => Ok(response
                .answers
                .iter()
                .filter_map(|record| match &record.data {
                    RData::DNSSEC(DNSSECRData::DNSKEY(key)) => Some(key.clone()),
                    _ => None,
                })
                .collect()),
            Some(Err(error)) => Err(error.to_string()),
            None => Err("no answer".to_owned()),
        }
    })
    .await;
    match asked {
        Ok(Ok(keys)) => Ok(keys),
        Ok(Err(error)) => Err(format!(
            "cannot fetch the DNSKEY records of {owner} from {server} for the trust anchor's \
             DS: {error}"
        )),
        Err(_) => Err(format!(
            "cannot fetch the DNSKEY records of {owner} from {server} for the trust anchor's \
             DS: no answer in time"
        )),
    }
}

/// One line of a trust anchor file.
enum AnchorLine {
    /// Written canonically for hickory's parser.
    Dnskey(String),
    Ds(Name, DS),
}

fn anchor_line(line: &str) -> Result<AnchorLine, String> {
    let is_ds = line
        .split_whitespace()
        .any(|token| token.eq_ignore_ascii_case("DS"));
    if is_ds {
        ds_line(line).map(|(owner, ds)| AnchorLine::Ds(owner, ds))
    } else {
        dnskey_line(line).map(AnchorLine::Dnskey)
    }
}

/// The owner name and what stands between it and the record type (`[ttl] [IN]`), checked.
fn owner_and_class<'l>(head: &[&'l str], record_type: &str) -> Result<&'l str, String> {
    let owner = head.first().ok_or("the record has no owner name")?;
    let fits_name = owner.ends_with('.')
        && owner
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'_'));
    if !fits_name {
        return Err(format!("{owner:?} is not a fully qualified owner name"));
    }
    for token in &head[1..] {
        let ttl = token.bytes().all(|byte| byte.is_ascii_digit());
        if !ttl && !token.eq_ignore_ascii_case("IN") {
            return Err(format!("unexpected {token:?} before {record_type}"));
        }
    }
    Ok(owner)
}

/// `owner [ttl] [IN] DS key-tag algorithm digest-type digest…` (the digest in hex, maybe in
/// several parts, as IANA and `ldns-key2ds` write it).
fn ds_line(line: &str) -> Result<(Name, DS), String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens
        .iter()
        .position(|token| token.eq_ignore_ascii_case("DS"))
        .ok_or("not a DS record")?;
    let owner = owner_and_class(&tokens[..at], "DS")?;
    let [key_tag, algorithm, digest_type, digest @ ..] = &tokens[at + 1..] else {
        return Err("a DS needs key tag, algorithm, digest type and digest".to_owned());
    };
    if digest.is_empty() {
        return Err("a DS needs key tag, algorithm, digest type and digest".to_owned());
    };
    let key_tag: u16 = key_tag
        .parse()
        .map_err(|_| format!("the key tag {key_tag:?} is not a number from 0 to 65535"))?;
    let algorithm_number: u8 = algorithm
        .parse()
        .map_err(|_| format!("the algorithm {algorithm:?} is not a number"))?;
    let algorithm = hickory_proto::dnssec::Algorithm::from_u8(algorithm_number);
    if !algorithm.is_supported() {
        return Err(format!(
            "algorithm {algorithm_number} is not one the doctor can verify"
        ));
    }
    let (digest_type, length) = match digest_type.parse::<u8>() {
        Ok(1) => (DigestType::SHA1, 20),
        Ok(2) => (DigestType::SHA256, 32),
        Ok(4) => (DigestType::SHA384, 48),
        _ => {
            return Err(format!(
                "the digest type {digest_type:?} is not 1 (SHA-1), 2 (SHA-256) or 4 (SHA-384)"
            ));
        }
    };
    let hex = digest.concat();
    if !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return Err("the digest is not hexadecimal".to_owned());
    }
    if hex.len() != length * 2 {
        return Err(format!(
            "the digest has {} hexadecimal digits; digest type {} needs {}",
            hex.len(),
            u8::from(digest_type),
            length * 2
        ));
    }
    let digest = (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| "the digest is not hexadecimal".to_owned())?;
    let owner = Name::from_ascii(owner.to_ascii_lowercase())
        .map_err(|error| format!("{owner:?} is not a DNS name: {error}"))?;
    Ok((owner, DS::new(key_tag, algorithm, digest_type, digest)))
}

/// `owner [ttl] [IN] DNSKEY flags protocol algorithm key…` as `owner IN DNSKEY flags protocol
/// algorithm key`.
fn dnskey_line(line: &str) -> Result<String, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens
        .iter()
        .position(|token| token.eq_ignore_ascii_case("DNSKEY"))
        .ok_or("not a DNSKEY or DS record")?;
    let (head, tail) = (&tokens[..at], &tokens[at + 1..]);
    let owner = owner_and_class(head, "DNSKEY")?;
    let [flags, protocol, algorithm, key @ ..] = tail else {
        return Err("a DNSKEY needs flags, protocol, algorithm and key".to_owned());
    };
    for (what, value) in [
        ("flags", flags),
        ("protocol", protocol),
        ("algorithm", algorithm),
    ] {
        value
            .parse::<u16>()
            .map_err(|_| format!("the {what} {value:?} is not a number"))?;
    }
    // hickory asserts that the algorithm is one it supports: ask first.
    let number: u8 = algorithm
        .parse()
        .map_err(|_| format!("the algorithm {algorithm:?} is not a number"))?;
    if !hickory_proto::dnssec::Algorithm::from_u8(number).is_supported() {
        return Err(format!(
            "algorithm {number} is not one the doctor can verify"
        ));
    }
    if *protocol != "3" {
        return Err(format!("the protocol must be 3, not {protocol}"));
    }
    let key = key.concat();
    let base64 = !key.is_empty()
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'='));
    if !base64 {
        return Err("the key is not base64".to_owned());
    }
    Ok(format!(
        "{} IN DNSKEY {flags} {protocol} {algorithm} {key}",
        owner.to_ascii_lowercase()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = ". IN DNSKEY 257 3 13 E8YqmMDyI37QeXB7H3ZZfst4ez+/9DvWZC7JFUXmGISWzkKQB3p/9TVzpj7iF3mPBxqlWBh6yBZcUe70JyRixw==";

    #[tokio::test]
    async fn trust_anchors_are_dnskey_or_ds_records_or_the_root_keys() {
        let nowhere: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let quick = Duration::from_millis(200);
        assert_eq!(trust_anchors(None, nowhere, quick).await.unwrap().len(), 2);
        assert_eq!(
            trust_anchors(Some(KEY), nowhere, quick)
                .await
                .unwrap()
                .len(),
            1
        );
        // as ldns-keygen writes it: lowercase class, a comment after the key
        let ldns = format!(
            "{} ;{{id = 43349 (ksk), size = 256b}}",
            KEY.replace(" IN ", " in 3600 ")
        );
        assert_eq!(read_anchor_file(&ldns).unwrap().counts(), (1, 0));
        assert!(
            matches!(read_anchor_file(""), Err(message) if message.contains("no DNSKEY or DS"))
        );
        for (bad, why) in [
            ("not a record", "not a DNSKEY or DS record"),
            ("example.com IN DNSKEY 257 3 13 abc=", "fully qualified"),
            (". IN DNSKEY 257 3 thirteen abc=", "algorithm"),
            (". IN DNSKEY 257 3 13 ***", "not base64"),
            (". ch DNSKEY 257 3 13 abc=", "unexpected \"ch\""),
        ] {
            match read_anchor_file(&format!("; anchors\n{bad}\n")) {
                Err(message) => {
                    assert!(
                        message.contains(why) && message.contains("line 2"),
                        "{bad}: {message}"
                    )
                }
                Ok(_) => panic!("{bad} was accepted"),
            }
        }
        // well-formed but not a usable key: an answer either way, never a panic
        for odd in [
            ". IN DNSKEY 257 3 13 abc=",
            ". IN DNSKEY 257 3 250 AAAA",
            ". IN DNSKEY 99999 3 13 AAAA",
        ] {
            let _ = read_anchor_file(odd).map(|file| file.counts());
        }
    }

    #[test]
    fn validation_starts_at_the_anchors_first_owner() {
        assert_eq!(anchor_owner(None), ".");
        assert_eq!(anchor_owner(Some(KEY)), ".");
        assert_eq!(anchor_owner(Some("not an anchor")), ".");
        let zones = KEY.replacen(". IN", "Example.COM. IN", 1)
            + "\n"
            + &KEY.replacen(". IN", "example.net. IN", 1);
        assert_eq!(anchor_owner(Some(&zones)), "example.com");
        let ds = "; first a comment\nexample.org. IN DS 1 13 2 0000000000000000000000000000000000000000000000000000000000000000";
        assert_eq!(anchor_owner(Some(ds)), "example.org");
    }

    /// IANA's root anchor as published (root-anchors.xml, in zone-file form): one DS.
    const IANA_DS: &str =
        ". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D";

    #[test]
    fn ds_anchors_are_read_with_their_digest_checked() {
        let file = read_anchor_file(IANA_DS).unwrap();
        assert_eq!(file.counts(), (0, 1));
        assert_eq!(file.ds_owners(), [Name::root()]);
        // the digest in parts and lowercase, a TTL, a comment, beside a DNSKEY
        let mixed = format!(
            "{KEY}\nexample.com. 3600 in ds 2371 13 2 {} {} ; the KSK\n",
            "c988ec423e3880eb8dd8a46fe06ca230", "ee23fb5f3eb0fa8e4b9ce1d4e1e6e9f0"
        );
        let file = read_anchor_file(&mixed).unwrap();
        assert_eq!(file.counts(), (1, 1));
        assert_eq!(
            file.ds_owners(),
            [Name::from_ascii("example.com.").unwrap()]
        );
        let digest = "E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D";
        for (bad, why) in [
            (
                ". IN DS".to_owned(),
                "needs key tag, algorithm, digest type and digest",
            ),
            (". IN DS 20326 8 2".to_owned(), "needs key tag"),
            (format!(". IN DS 70000 8 2 {digest}"), "key tag \"70000\""),
            (format!(". IN DS -1 8 2 {digest}"), "key tag"),
            (format!(". IN DS 20326 RSASHA256 2 {digest}"), "algorithm"),
            (format!(". IN DS 20326 250 2 {digest}"), "algorithm 250"),
            (format!(". IN DS 20326 8 3 {digest}"), "digest type \"3\""),
            (
                format!(". IN DS 20326 8 2 {}", &digest[1..]),
                "63 hexadecimal digits",
            ),
            (format!(". IN DS 20326 8 1 {digest}"), "needs 40"),
            (
                format!(". IN DS 20326 8 2 {}zz", &digest[2..]),
                "not hexadecimal",
            ),
            (
                format!(". IN DS 20326 8 2 {}é", &digest[1..]),
                "not hexadecimal",
            ),
            (
                format!("example.com IN DS 20326 8 2 {digest}"),
                "fully qualified",
            ),
            (
                format!(". CH DS 20326 8 2 {digest}"),
                "unexpected \"CH\" before DS",
            ),
        ] {
            match read_anchor_file(&format!("{KEY}\n{bad}")) {
                Err(message) => assert!(
                    message.contains(why) && message.contains("line 2"),
                    "{bad}: {message}"
                ),
                Ok(_) => panic!("{bad} was accepted"),
            }
        }
    }

    /// IANA's KSK-2017 as a DNSKEY (the key hickory ships as a root anchor) with the flags
    /// the root zone publishes it with.
    fn ksk_2017() -> DNSKEY {
        let anchors = TrustAnchors::default();
        (0..anchors.len())
            .filter_map(|index| anchors.get(index))
            .map(|key| DNSKEY::with_flags(257, key.clone()))
            .find(|key| key.calculate_key_tag().ok() == Some(20326))
            .expect("hickory ships KSK-2017")
    }

    #[test]
    fn a_ds_anchor_keeps_only_the_keys_its_digest_names() {
        let root = Name::root();
        let key = ksk_2017();
        let other = DNSKEY::with_flags(
            257,
            hickory_proto::dnssec::PublicKeyBuf::new(
                vec![7; 64],
                hickory_proto::dnssec::Algorithm::ECDSAP256SHA256,
            ),
        );
        let keys = [other.clone(), key.clone()];
        // IANA's published DS picks KSK-2017 out of the root's keys
        let iana = read_anchor_file(IANA_DS).unwrap();
        let ds = iana.ds[0].1.clone();
        assert_eq!(
            keys_matching(&root, std::slice::from_ref(&ds), &keys),
            [&key]
        );
        // a DS for another owner, another digest, another tag or another algorithm: nothing
        let elsewhere = Name::from_ascii("example.com.").unwrap();
        assert!(keys_matching(&elsewhere, std::slice::from_ref(&ds), &keys).is_empty());
        let mut digest = ds.digest().to_vec();
        digest[0] ^= 1;
        let wrong_digest = DS::new(ds.key_tag(), ds.algorithm(), ds.digest_type(), digest);
        let wrong_tag = DS::new(
            ds.key_tag().wrapping_add(1),
            ds.algorithm(),
            ds.digest_type(),
            ds.digest().to_vec(),
        );
        let wrong_algorithm = DS::new(
            ds.key_tag(),
            hickory_proto::dnssec::Algorithm::RSASHA512,
            ds.digest_type(),
            ds.digest().to_vec(),
        );
        for wrong in [wrong_digest, wrong_tag, wrong_algorithm] {
            assert!(keys_matching(&root, &[wrong], &keys).is_empty());
        }
        // the key without the zone flag is never a DS's key
        let not_zone = DNSKEY::with_flags(1, key.public_key().clone());
        assert!(keys_matching(&root, &[ds], &[not_zone]).is_empty());
    }

    #[tokio::test]
    async fn a_ds_anchor_with_no_server_to_give_its_keys_is_a_clear_error() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let closed = listener.local_addr().unwrap();
        drop(listener);
        let Err(error) = trust_anchors(Some(IANA_DS), closed, Duration::from_millis(300)).await
        else {
            panic!("anchored without the DS owner's keys");
        };
        assert!(
            error.starts_with(&format!(
                "cannot fetch the DNSKEY records of . from {closed} for the trust anchor's DS"
            )),
            "{error}"
        );
    }
}
