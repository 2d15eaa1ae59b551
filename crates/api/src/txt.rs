//! A TXT record's value as the platform and Domain Connect read it: its character-strings
//! joined, each taken as UTF-8 (a byte that is not becomes U+FFFD). An ownership challenge,
//! a `_domainconnect` discovery record and a template signing key are all read this way, by
//! the local service's verifier and its Domain Connect provider and by the client; one
//! definition keeps them reading the same record alike. (The doctor shows TXT records in
//! presentation form, quoted and escaped, which is another job.)

/// The text of a TXT record whose character-strings are `parts` (hickory's `TXT::txt_data`).
pub fn txt_text<P: AsRef<[u8]>>(parts: impl IntoIterator<Item = P>) -> String {
    parts
        .into_iter()
        .map(|part| String::from_utf8_lossy(part.as_ref()).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strings_are_joined_without_a_separator_and_read_as_utf8() {
        assert_eq!(
            txt_text([&b"v=DKIM1; p=MIIB"[..], b"IjANBg"]),
            "v=DKIM1; p=MIIBIjANBg"
        );
        assert_eq!(txt_text(Vec::<Vec<u8>>::new()), "");
        assert_eq!(
            txt_text([&b"caf\xc3\xa9 "[..], b"\xff"]),
            "caf\u{e9} \u{fffd}"
        );
    }
}
