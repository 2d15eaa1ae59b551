//! The Public Suffix List as data: its rules read once into a table, and the list's own
//! algorithm over it (<https://github.com/publicsuffix/list/wiki/Format#algorithm>).
//!
//! The `psl` crate compiles the list into code, a generated match over every rule (2.5 MB of
//! source). Each build compiled that match again: about 6 core-seconds in each debug build,
//! and in the fuzz build (AddressSanitizer, coverage) 120 at opt-level 3 or 34 at opt-level 0,
//! where its quarter of a million coverage counters, scanned after every input, took most of
//! the `hostname` and `links` targets' time. Here the list is 10,000 lines of text
//! (`data/rules.txt`, the rules `psl` is generated from) and a lookup of one table entry per
//! label of the name. `psl` stays the oracle: the tests hold every rule of the list to it.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Rule names by hash: a seeded hash several times cheaper than SipHash on names this short.
type RuleTable = HashMap<Box<str>, u8, foldhash::fast::RandomState>;

/// The list's rules, as `psl` 2.1.247 ships them.
const RULES: &str = include_str!("../data/rules.txt");

/// What the list says of a name (a set of these bits: one name may be all three, as
/// `kawasaki.jp` is the name of `*.kawasaki.jp` and `!city.kawasaki.jp` is an exception).
const NAMED: u8 = 1;
/// `*.name`: every label under the name is a public suffix.
const WILDCARD: u8 = 2;
/// `!name`: the name is not a public suffix although a wildcard says so.
const EXCEPTION: u8 = 4;

/// Every rule's name (without `*.` or `!`) with its kinds, each internationalised name also
/// in its ASCII form, as hostnames reach the lookups.
fn rules() -> &'static RuleTable {
    static RULE_TABLE: OnceLock<RuleTable> = OnceLock::new();
    RULE_TABLE.get_or_init(|| {
        let mut table = RuleTable::with_capacity_and_hasher(11_000, Default::default());
        for line in RULES.lines().map(str::trim) {
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            let (name, kind) = if let Some(name) = line.strip_prefix('!') {
                (name, EXCEPTION)
            } else if let Some(name) = line.strip_prefix("*.") {
                (name, WILDCARD)
            } else {
                (line, NAMED)
            };
            *table.entry(name.into()).or_default() |= kind;
            if !name.is_ascii() {
                if let Ok(ascii) = idna::domain_to_ascii(name) {
                    *table.entry(ascii.into()).or_default() |= kind;
                }
            }
        }
        table
    })
}

/// The public suffix at the end of `name`: its length in bytes (with the final dot of a name
/// that has one) and whether a rule of the list names it (`false`: only the implicit `*`
/// rule, the name's last label). `None` when that length is 0 (an empty name).
fn public_suffix(name: &str) -> Option<(usize, bool)> {
    let (bare, final_dot) = match name.strip_suffix('.') {
        Some(bare) => (bare, 1),
        None => (name, 0),
    };
    let rules = rules();
    // The implicit `*`: the last label.
    let last_label_start = bare.rfind('.').map_or(0, |dot| dot + 1);
    let mut found = (bare.len() - last_label_start, false);
    // Each suffix of labels from the right, longest last: the longest rule that matches
    // prevails, an exception over every other.
    let mut start = last_label_start;
    let mut shorter_len = 0;
    loop {
        let suffix = &bare[start..];
        let kind = rules.get(suffix).copied().unwrap_or(0);
        // the label before `suffix`, if any
        let before = (start > 0).then(|| bare[..start - 1].rfind('.').map_or(0, |dot| dot + 1));
        if kind & EXCEPTION != 0 {
            // The exception's name less its first label.
            found = (shorter_len, true);
            break;
        }
        if kind & NAMED != 0 {
            found = (suffix.len(), true);
        }
        if kind & WILDCARD != 0 {
            if let Some(before) = before {
                found = (bare.len() - before, true);
            }
        }
        let Some(before) = before else { break };
        shorter_len = suffix.len();
        start = before;
    }
    let (len, known) = found;
    let len = len + final_dot;
    (len > 0).then_some((len, known))
}

/// What the list says of a hostname's end, from one lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suffix {
    /// Whether a rule of the list names the public suffix (a suffix no rule names is only the
    /// name's last label, taken by the list's implicit `*` rule).
    pub known: bool,
    /// The length in bytes of the registrable domain at the end of the name (the public
    /// suffix and one label before it); `None` when the name is a public suffix itself.
    pub registrable_len: Option<usize>,
}

/// The public suffix of `ascii` and its registrable domain: `None` when the name has no
/// public suffix.
pub fn lookup(ascii: &str) -> Option<Suffix> {
    let (suffix_len, known) = public_suffix(ascii)?;
    Some(Suffix {
        known,
        registrable_len: registrable_len_over(ascii, suffix_len),
    })
}

/// What the list says of a hostname's public suffix: `None` when the name has none,
/// otherwise whether a rule of the list names it.
pub fn suffix_is_known(ascii: &str) -> Option<bool> {
    lookup(ascii).map(|suffix| suffix.known)
}

/// The length in bytes of the registrable domain at the end of `ascii`, or `None` when the
/// name is a public suffix itself or has none.
pub fn registrable_len(ascii: &str) -> Option<usize> {
    lookup(ascii)?.registrable_len
}

/// The registrable domain's length over a public suffix of `suffix_len` bytes at the end of
/// `ascii`.
fn registrable_len_over(ascii: &str, suffix_len: usize) -> Option<usize> {
    // At least a label of one byte and a dot before the suffix.
    if ascii.len() < suffix_len + 2 {
        return None;
    }
    let before_suffix = &ascii.as_bytes()[..ascii.len() - suffix_len - 1];
    let label = before_suffix.rsplit(|byte| *byte == b'.').next()?;
    Some(label.len() + 1 + suffix_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_suffix_is_known_and_an_unlisted_one_is_not() {
        assert_eq!(suffix_is_known("shop.example.co.uk"), Some(true));
        assert_eq!(suffix_is_known("example.com"), Some(true));
        assert_eq!(suffix_is_known("example.notarealtld"), Some(false));
    }

    #[test]
    fn the_registrable_domain_is_the_suffix_and_one_label() {
        assert_eq!(
            registrable_len("www.example.co.uk"),
            Some("example.co.uk".len())
        );
        assert_eq!(registrable_len("example.com"), Some("example.com".len()));
        assert_eq!(registrable_len("co.uk"), None);
        // a private rule of the list: anyone can register under github.io
        assert_eq!(registrable_len("github.io"), None);
        assert_eq!(registrable_len("me.github.io"), Some("me.github.io".len()));
    }

    /// `psl`'s answers, as the hostname rules used them before.
    fn psl_says(name: &str) -> (Option<bool>, Option<usize>) {
        use psl::Psl;
        (
            psl::List.suffix(name.as_bytes()).map(|s| s.is_known()),
            psl::List
                .domain(name.as_bytes())
                .map(|d| d.as_bytes().len()),
        )
    }

    /// Every rule of the list, in both forms, alone and under one to three labels (`www`
    /// and `city` among them, the labels of the list's exceptions), and names at the edges
    /// (empty labels, a final dot, an unlisted top-level domain): the table and the list's
    /// algorithm answer as `psl` does. Except where `psl` departs from the algorithm: a name
    /// that a wildcard makes a public suffix (`ex.futurecms.at`, by `*.futurecms.at`) when a
    /// longer rule also ends in it (`*.ex.futurecms.at`); `psl` then answers as though the
    /// wildcard were not there. Each such name is checked to be that case.
    #[test]
    fn every_rule_answers_as_psl_does_but_where_psl_misses_a_wildcard() {
        let mut names = vec![
            String::new(),
            ".".into(),
            "..".into(),
            "com.".into(),
            "example.com.".into(),
            "a..com".into(),
            "..com".into(),
            ".com".into(),
            "example.notarealtld".into(),
            "notarealtld".into(),
        ];
        for line in RULES.lines().map(str::trim) {
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            let name = line.trim_start_matches('!').trim_start_matches("*.");
            let mut forms = vec![name.to_owned()];
            forms.extend(
                idna::domain_to_ascii(name)
                    .ok()
                    .filter(|ascii| ascii != name),
            );
            for form in forms {
                for under in ["", "a.", "www.", "city.", "b.a.", "c.b.a.", "x.www."] {
                    names.push(format!("{under}{form}"));
                }
            }
        }
        let mut departures = Vec::new();
        for name in &names {
            let ours = (suffix_is_known(name), registrable_len(name));
            if ours == psl_says(name) {
                continue;
            }
            let wildcard_above = name
                .split_once('.')
                .is_some_and(|(_, parent)| rules().get(parent).is_some_and(|k| k & WILDCARD != 0));
            // `*.name` itself, or any rule under the name
            let longer_rule_ends_in_it = rules()
                .get(name.as_str())
                .is_some_and(|kind| kind & WILDCARD != 0)
                || rules()
                    .keys()
                    .any(|rule| rule.len() > name.len() && rule.ends_with(&format!(".{name}")));
            assert!(
                wildcard_above && longer_rule_ends_in_it && ours == (Some(true), None),
                "{name:?}: ours {ours:?}, psl {:?}",
                psl_says(name)
            );
            departures.push(name.clone());
        }
        assert!(names.len() > 70_000, "{} names", names.len());
        // 22 names of the list today; a new list may bring more, never a different kind.
        assert!(departures.len() < 100, "{departures:?}");
    }

    #[test]
    fn wildcards_and_their_exceptions() {
        // `*.ck` and `!www.ck`
        assert_eq!(
            registrable_len("shop.example.ck"),
            Some("shop.example.ck".len())
        );
        assert_eq!(registrable_len("example.ck"), None);
        assert_eq!(registrable_len("www.ck"), Some("www.ck".len()));
        assert_eq!(registrable_len("a.www.ck"), Some("www.ck".len()));
    }

    #[test]
    fn internationalised_rules_match_in_their_ascii_form() {
        // `公司.cn`
        assert_eq!(
            registrable_len("shop.xn--55qx5d.cn"),
            Some("shop.xn--55qx5d.cn".len())
        );
        assert_eq!(registrable_len("xn--55qx5d.cn"), None);
    }
}
