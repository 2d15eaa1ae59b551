//! What counts as a custom domain's hostname, and how it is written.
//!
//! The contract stores names as lowercase A-labels, shows the Unicode form beside them, and
//! decides apex versus subdomain with the Public Suffix List (so `example.co.uk` is an apex and
//! `shop.example.co.uk` is not). The client validates as the user types with the same code the
//! service uses to refuse, so the two never disagree.

use std::fmt;
use std::net::IpAddr;

use crate::{Error, Result};

/// A validated custom-domain hostname in lowercase ASCII (A-label) form, without a trailing dot.
///
/// [`Hostname::parse`] refuses wildcards, so every name it gives can be asked of DNS and
/// served as it is. A domain may also be a wildcard (`*.shop.example.com`): only
/// [`Hostname::parse_domain`] gives one, and [`Hostname::is_wildcard`] tells it apart.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hostname {
    ascii: String,
    /// Length in bytes of the registrable domain at the end of `ascii`.
    registrable_len: usize,
    /// `ascii` starts with `*.`: a single `*` as the leftmost label.
    wildcard: bool,
}

/// The label the ACME DNS-01 challenge is asked at (RFC 8555 §8.4).
pub const ACME_CHALLENGE_LABEL: &str = "_acme-challenge";

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
        let suffix = domain_desk_public_suffix::lookup(&ascii)
            .ok_or_else(|| invalid("This is not a hostname under a known top-level domain."))?;
        if !suffix.known {
            return Err(invalid(
                "This name is not under a known top-level domain, so no certificate can be issued for it.",
            ));
        }
        let registrable_len = match suffix.registrable_len {
            Some(len) => len,
            None => {
                return Err(invalid(
                    "This is a public suffix that anyone can register under; enter your own domain within it.",
                ));
            }
        };
        Ok(Self {
            ascii,
            registrable_len,
            wildcard: false,
        })
    }

    /// Parses a custom domain as [`Hostname::parse`] does, and also accepts a wildcard: a
    /// single `*` as the leftmost label (`*.example.com`, `*.shop.example.com`) over a name
    /// that is not itself a public suffix (so `*.com` and `*.co.uk` are refused). Any other
    /// `*` (`a.*.example.com`, `*.*.example.com`, `*x.example.com`) is refused.
    pub fn parse_domain(input: &str) -> Result<Self> {
        let trimmed = input.trim();
        let Some(base) = trimmed.strip_prefix("*.") else {
            if trimmed.contains('*') {
                return Err(invalid(WILDCARD_FORM));
            }
            return Self::parse(trimmed);
        };
        if base.contains('*') {
            return Err(invalid(WILDCARD_FORM));
        }
        let base = Self::parse(base).map_err(|error| match error {
            Error::InvalidHostname(message) if message.starts_with("This is a public suffix") => {
                invalid(
                    "A wildcard must be under your own domain (*.example.com), not directly under a public suffix.",
                )
            }
            other => other,
        })?;
        // The contract's first part (and its acceptance walk-through) refuses `*.example.com`
        // as `invalid_hostname`; its second part lists it among the wildcards it takes. Both
        // hold for a wildcard one label below the registrable domain or deeper, which is what
        // is taken here (see docs/api-v1-additions.md).
        if base.ascii.len() == base.registrable_len {
            return Err(invalid(
                "A wildcard is taken one label below your domain or deeper (*.shop.example.com), not for the whole domain (*.example.com): add its names one by one, or a wildcard under one of them.",
            ));
        }
        let ascii = format!("*.{}", base.ascii);
        if ascii.len() > 253 {
            return Err(invalid("A hostname can have at most 253 characters."));
        }
        Ok(Self {
            ascii,
            registrable_len: base.registrable_len,
            wildcard: true,
        })
    }

    /// True for a wildcard domain (`*.shop.example.com`), which only
    /// [`Hostname::parse_domain`] gives.
    pub fn is_wildcard(&self) -> bool {
        self.wildcard
    }

    /// The name a wildcard stands over (`shop.example.com` for `*.shop.example.com`); the
    /// name itself for any other.
    pub fn wildcard_base(&self) -> &str {
        if self.wildcard {
            &self.ascii[2..]
        } else {
            &self.ascii
        }
    }

    /// True when `name` (lowercase, no trailing dot) is one label under this wildcard's base,
    /// as a wildcard certificate covers it (RFC 6125 §6.4.3); false for any other hostname.
    pub fn covers(&self, name: &str) -> bool {
        self.wildcard
            && name
                .strip_suffix(self.wildcard_base())
                .and_then(|head| head.strip_suffix('.'))
                .is_some_and(|label| !label.is_empty() && !label.contains('.'))
    }

    /// Where the ACME DNS-01 challenge for this name is asked: `_acme-challenge.shop.example.com`
    /// for `shop.example.com` and for `*.shop.example.com` alike (RFC 8555 §8.4).
    pub fn acme_challenge_fqdn(&self) -> String {
        format!("{ACME_CHALLENGE_LABEL}.{}", self.wildcard_base())
    }

    /// [`Hostname::acme_challenge_fqdn`] relative to the registrable domain, as DNS providers
    /// ask for it: `_acme-challenge.shop`, or `_acme-challenge` for an apex (and for
    /// `*.example.com`).
    pub fn acme_challenge_name(&self) -> String {
        let base = self.wildcard_base();
        if base.len() == self.registrable_len {
            ACME_CHALLENGE_LABEL.to_owned()
        } else {
            format!(
                "{ACME_CHALLENGE_LABEL}.{}",
                &base[..base.len() - self.registrable_len - 1]
            )
        }
    }

    /// The lowercase A-label form, as stored and sent.
    pub fn as_str(&self) -> &str {
        &self.ascii
    }

    /// The Unicode form for display (`bücher.example.com`).
    pub fn unicode(&self) -> String {
        if self.wildcard {
            format!("*.{}", idna::domain_to_unicode(self.wildcard_base()).0)
        } else {
            idna::domain_to_unicode(&self.ascii).0
        }
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
    /// or `@` for an apex; `*.shop` for `*.shop.example.com`, `*` for `*.example.com`.
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

const WILDCARD_FORM: &str =
    "A wildcard is a single * as the leftmost label, such as *.example.com or *.shop.example.com.";

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
    fn wildcards_only_through_parse_domain_and_only_leftmost() {
        assert!(Hostname::parse("*.example.com").is_err());
        // not for a whole registrable domain: the contract's first part refuses it
        assert!(Hostname::parse_domain("*.example.com").is_err());
        assert!(Hostname::parse_domain("*.example.co.uk").is_err());
        let wildcard = Hostname::parse_domain("*.Shop.Example.com.").unwrap();
        assert_eq!(wildcard.as_str(), "*.shop.example.com");
        assert!(wildcard.is_wildcard() && !wildcard.is_apex());
        assert_eq!(wildcard.relative_name(), "*.shop");
        assert_eq!(wildcard.wildcard_base(), "shop.example.com");
        assert_eq!(wildcard.registrable_domain(), "example.com");
        assert_eq!(wildcard.acme_challenge_name(), "_acme-challenge.shop");
        assert_eq!(
            wildcard.acme_challenge_fqdn(),
            "_acme-challenge.shop.example.com"
        );
        assert!(wildcard.covers("a.shop.example.com"));
        assert!(!wildcard.covers("a.b.shop.example.com"));
        assert!(!wildcard.covers("shop.example.com"));
        assert!(!wildcard.covers("ashop.example.com"));
        assert_eq!(
            Hostname::parse_domain("*.bücher.example.com")
                .unwrap()
                .unicode(),
            "*.bücher.example.com"
        );
        let plain = Hostname::parse_domain("shop.example.com").unwrap();
        assert!(!plain.is_wildcard());
        assert_eq!(plain.acme_challenge_name(), "_acme-challenge.shop");
        assert_eq!(
            Hostname::parse("example.com")
                .unwrap()
                .acme_challenge_name(),
            "_acme-challenge"
        );
        for bad in [
            "*",
            "*.",
            "*.com",
            "*.co.uk",
            "*.github.io",
            "a.*.example.com",
            "*.*.example.com",
            "*shop.example.com",
            "**.example.com",
            "shop.*",
            "*.127.0.0.1",
        ] {
            assert!(Hostname::parse_domain(bad).is_err(), "accepted {bad:?}");
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
