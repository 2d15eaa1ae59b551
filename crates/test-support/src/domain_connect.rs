//! A third-party Domain Connect template that asks for signed requests, and the TXT records
//! that publish its signing key: shared by the client's signature tests and the browser
//! end-to-end test, so both exercise the same template and key.

/// A template that asks for signed requests, its key published under `example.net`.
pub const SIGNED_TEMPLATE: &str = r#"{
    "providerId": "signed.example", "providerName": "Signed Example", "serviceId": "site",
    "serviceName": "Site", "version": 1, "syncPubKeyDomain": "example.net",
    "syncRedirectDomain": "localhost",
    "records": [{"type": "TXT", "host": "_site", "data": "site=%token%", "ttl": 300}]
}"#;

/// The public key (base64 DER) of `crates/client/tests/data/dc-test-signing-key.pk8`.
pub const SIGNING_PUBLIC_KEY: &str =
    include_str!("../../client/tests/data/dc-test-signing-key.pub.b64");

/// The values of the two TXT records at `_dck1.example.net` that publish
/// [`SIGNING_PUBLIC_KEY`] split in two, as providers publish long keys (`p=` orders them).
pub fn signing_key_txt() -> [String; 2] {
    let key = SIGNING_PUBLIC_KEY.trim();
    let (first, second) = key.split_at(key.len() / 2);
    [
        format!("p=1,a=RS256,d={first}"),
        format!("p=2,a=RS256,d={second}"),
    ]
}
