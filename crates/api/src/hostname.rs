//! What counts as a custom domain's hostname, and how it is written.
//!
//! The contract stores names as lowercase A-labels, shows the Unicode form beside them, and
//! decides apex versus subdomain with the Public Suffix List (so `example.co.uk` is an apex and
//! `shop.example.co.uk` is not). The client validates as the user types with the same code the
//! service uses to refuse, so the two never disagree.

use std::fmt;
use std::net::IpAddr;

use psl::Psl;

use crate::{Error, Result};

/// A validated custom-domain hostname in lowercase ASCII (A-label) form, without a trailing dot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hostname {
    ascii: String,
    /// Length in bytes of the registrable domain at the end of `ascii`.
    registrable_len: usize,
}

impl Hostname {
    /// Parses what a person typed: any case, Unicode or Punycode, with or without a trailing dot.
    pub fn parse(input: &str) -> Result<Self> {
        let trimmed = input.trim();
        let trimmed = trimmed.strip_suffix('.').unwrap_or(trimmed);
        if trimmed.is_empty() {
            return Err(invalid("Enter a hostname such as www.example.com."));
        }
        if trimmed.chars().any(char::is_whitespace) {
            return Err(invalid("A hostname cannot contain spaces."));
        }
        if trimmed.contains('*') {
            return Err(invalid(
                "Wildcard names are not supported; add each hostname on its own.",
            ));
        }
        let bare = trimmed.trim_start_matches('[').trim_end_matches(']');
        if bare.parse::<IpAddr>().is_ok() {
            return Err(invalid(
                "An IP address is not a domain; enter the hostname that points to it.",
            ));
        }
        if trimmed.contains("..") || trimmed.starts_with('.') {
            return Err(invalid(
                "A hostname cannot have an empty label (two dots in a row).",
            ));
        }
        let ascii = idna::domain_to_ascii_strict(trimmed).map_err(|_| {
            invalid(
                "Use only letters, digits and hyphens in each label, \
                 no hyphen at the start or end of a label, \
                 at most 63 characters a label and 253 in all.",
            )
        })?;
        if ascii
            .split('.')
            .any(|label| label.is_empty() || label.len() > 63)
        {
            return Err(invalid(
                "Each label of a hostname must have 1 to 63 characters.",
            ));
        }
        if ascii.len() > 253 {
            return Err(invalid("A hostname can have at most 253 characters."));
        }
        if ascii
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(invalid(
                "The last label of a hostname cannot be all digits.",
            ));
        }
        let suffix = psl::List
            .suffix(ascii.as_bytes())
            .ok_or_else(|| invalid("This is not a hostname under a known top-level domain."))?;
        if !suffix.is_known() {
            return Err(invalid(
                "This name is not under a known top-level domain, so no certificate can be issued for it.",
            ));
        }
        let registrable_len = match psl::List.domain(ascii.as_bytes()) {
            Some(domain) => domain.as_bytes().len(),
            None => {
                return Err(invalid(
                    "This is a public suffix that anyone can register under; enter your own domain within it.",
                ));
            }
        };
        Ok(Self {
            ascii,
            registrable_len,
        })
    }

    /// The lowercase A-label form, as stored and sent.
    pub fn as_str(&self) -> &str {
        &self.ascii
    }

    /// The Unicode form for display (`bücher.example.com`).
    pub fn unicode(&self) -> String {
        idna::domain_to_unicode(&self.ascii).0
    }

    /// The registrable domain (`example.co.uk` for `shop.example.co.uk`).
    pub fn registrable_domain(&self) -> &str {
        &self.ascii[self.ascii.len() - self.registrable_len..]
    }

    /// True when the name is a registrable domain itself, with no subdomain part.
    pub fn is_apex(&self) -> bool {
        self.ascii.len() == self.registrable_len
    }

    /// The name relative to its registrable domain, as DNS providers ask for it: `shop`, `a.b`,
    /// or `@` for an apex.
    pub fn relative_name(&self) -> &str {
        if self.is_apex() {
            "@"
        } else {
            &self.ascii[..self.ascii.len() - self.registrable_len - 1]
        }
    }

    /// True when this name is `domain` or lies under it.
    pub fn is_within(&self, domain: &str) -> bool {
        let domain = domain.trim_end_matches('.').to_ascii_lowercase();
        self.ascii == domain || self.ascii.ends_with(&format!(".{domain}"))
    }
}

impl fmt::Display for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ascii)
    }
}

impl std::str::FromStr for Hostname {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}

fn invalid(message: &str) -> Error {
    Error::InvalidHostname(message.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(input: &str) -> Hostname {
        Hostname::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"))
    }

    #[test]
    fn normalises_case_and_trailing_dot() {
        assert_eq!(ok("WWW.Example.COM.").as_str(), "www.example.com");
    }

    #[test]
    fn converts_unicode_to_a_labels_and_back() {
        let name = ok("Bücher.example.com");
        assert_eq!(name.as_str(), "xn--bcher-kva.example.com");
        assert_eq!(name.unicode(), "bücher.example.com");
        assert_eq!(
            ok("xn--bcher-kva.example.com").unicode(),
            "bücher.example.com"
        );
    }

    #[test]
    fn apex_follows_the_public_suffix_list() {
        assert!(ok("example.co.uk").is_apex());
        assert!(!ok("shop.example.co.uk").is_apex());
        assert_eq!(ok("shop.example.co.uk").relative_name(), "shop");
        assert_eq!(ok("a.b.example.com").relative_name(), "a.b");
        assert_eq!(ok("example.com").relative_name(), "@");
        assert_eq!(ok("a.b.example.com").registrable_domain(), "example.com");
        // a private suffix: each user's site is its own apex
        assert!(ok("someone.github.io").is_apex());
    }

    #[test]
    fn refuses_what_the_contract_refuses() {
        let too_long_label = format!("{}.example.com", "x".repeat(70));
        let too_long_name = format!("{}example.com", "abcdefghi.".repeat(26));
        for bad in [
            "",
            "exa mple.com",
            "-bad-.example.com",
            "a..b.com",
            "*.example.com",
            "127.0.0.1",
            "::1",
            "[::1]",
            "com",
            "co.uk",
            "under_score.example.com",
            "example.invalidtld",
            ".example.com",
            too_long_label.as_str(),
            too_long_name.as_str(),
        ] {
            assert!(Hostname::parse(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn within_matches_whole_labels() {
        let name = ok("shop.example.com");
        assert!(name.is_within("example.com"));
        assert!(name.is_within("EXAMPLE.com."));
        assert!(!name.is_within("ample.com"));
    }
}
