//! The Public Suffix List lookups behind two plain functions, so that the list is compiled in
//! this crate alone.
//!
//! `psl`'s lookup is a generated match over every rule of the list (2.5 MB of source), and it
//! is generic over the labels' iterator: each crate that calls it compiles and optimises the
//! whole list again, in its own code. `domain-desk-api` did, and in the fuzz build (opt-level
//! 3, AddressSanitizer, one codegen unit) that one instantiation was 120 of the API crate's
//! 124 s of compiling. Called through these non-generic functions the list is compiled once,
//! here, and a build may give this crate its own optimisation level (`fuzz/Cargo.toml`).

/// What the list says of a hostname's public suffix: `None` when the name has none,
/// otherwise whether a rule of the list names it (a suffix no rule names is only the name's
/// last label, taken by the list's implicit `*` rule).
#[inline(never)]
pub fn suffix_is_known(ascii: &str) -> Option<bool> {
    use psl::Psl;
    psl::List
        .suffix(ascii.as_bytes())
        .map(|suffix| suffix.is_known())
}

/// The length in bytes of the registrable domain at the end of `ascii` (the public suffix
/// and one label before it), or `None` when the name is a public suffix itself or has none.
#[inline(never)]
pub fn registrable_len(ascii: &str) -> Option<usize> {
    use psl::Psl;
    psl::List
        .domain(ascii.as_bytes())
        .map(|domain| domain.as_bytes().len())
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
}
