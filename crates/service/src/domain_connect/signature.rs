//! Signed synchronous requests: the service provider signs the apply URL's query string
//! (RSA-SHA256, PKCS #1 v1.5, base64 in `sig`) and publishes the public key in DNS as TXT
//! records at `{key}.{syncPubKeyDomain}`, in pieces `p=<order>,a=RS256,d=<base64>` whose `d`
//! parts, in order, are the key's SubjectPublicKeyInfo (DER). A template that names
//! `syncPubKeyDomain` is applied only with a signature that verifies.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};

/// The query string the signature covers: the request's own, less its `sig` and `key`
/// parameters (which the service provider appends after signing), bytes otherwise as sent.
pub fn signed_message(raw_query: &str) -> String {
    raw_query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            !pair.is_empty() && name != "sig" && name != "key"
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The public key (SubjectPublicKeyInfo DER) from the TXT values at the key's name.
pub fn public_key_from_txt(values: &[String]) -> Option<Vec<u8>> {
    let mut pieces: Vec<(u32, String)> = Vec::new();
    for value in values {
        let mut order = None;
        let mut data = None;
        let mut algorithm_ok = true;
        for field in value.split(',') {
            match field.trim().split_once('=') {
                Some(("p", p)) => order = p.trim().parse::<u32>().ok(),
                Some(("a", a)) => algorithm_ok = a.trim().eq_ignore_ascii_case("RS256"),
                Some(("d", d)) => data = Some(d.trim().to_owned()),
                _ => {}
            }
        }
        if let (Some(order), Some(data), true) = (order, data, algorithm_ok) {
            pieces.push((order, data));
        }
    }
    if pieces.is_empty() {
        return None;
    }
    pieces.sort_by_key(|(order, _)| *order);
    let joined: String = pieces.into_iter().map(|(_, data)| data).collect();
    STANDARD.decode(joined.as_bytes()).ok()
}

/// Reads one DER element's header at `input`: its tag, and its content and what follows.
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let len = rest[..count]
            .iter()
            .fold(0usize, |len, &byte| (len << 8) | usize::from(byte));
        (len, &rest[count..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

/// The RSAPublicKey (PKCS #1) inside a SubjectPublicKeyInfo.
fn rsa_public_key(spki: &[u8]) -> Option<&[u8]> {
    let (0x30, info, _) = der_element(spki)? else {
        return None;
    };
    let (0x30, _algorithm, rest) = der_element(info)? else {
        return None;
    };
    let (0x03, bits, _) = der_element(rest)? else {
        return None;
    };
    let (&0, key) = bits.split_first()? else {
        return None;
    };
    Some(key)
}

/// Why a signature was not accepted, in words for the refusal page.
pub fn verify(message: &str, signature: &str, spki: &[u8]) -> Result<(), &'static str> {
    let signature = [&STANDARD, &URL_SAFE, &URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(signature.trim().as_bytes()).ok())
        .ok_or("the signature is not base64")?;
    let key = rsa_public_key(spki).ok_or("the published key is not an RSA public key")?;
    ring::signature::UnparsedPublicKey::new(&ring::signature::RSA_PKCS1_2048_8192_SHA256, key)
        .verify(message.as_bytes(), &signature)
        .map_err(|_| "the signature does not match the request and the published key")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig_and_key_are_left_out_of_the_signed_message() {
        assert_eq!(
            signed_message("domain=example.com&host=shop&redirect_uri=x&sig=abc%3D&key=_dck1"),
            "domain=example.com&host=shop&redirect_uri=x"
        );
        assert_eq!(signed_message("a=1&key=k&b=2"), "a=1&b=2");
    }

    #[test]
    fn key_pieces_join_in_order() {
        let values = vec![
            "p=2,a=RS256,d=ZGU=".to_owned(),
            "p=1,a=RS256,d=YWJj".to_owned(),
        ];
        assert_eq!(public_key_from_txt(&values).unwrap(), b"abcde".to_vec());
        assert_eq!(
            public_key_from_txt(&["p=1,a=ES256,d=YWJj".to_owned()]),
            None
        );
        assert_eq!(public_key_from_txt(&["v=spf1 -all".to_owned()]), None);
    }

    #[test]
    fn garbage_is_not_a_key() {
        assert!(verify("m", "AAAA", b"not der").is_err());
        assert!(verify("m", "***", b"").is_err());
    }
}
