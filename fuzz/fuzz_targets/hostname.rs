//! Any text a user types or an API body carries: parsing never panics, and what it accepts
//! is stable (parsing the stored form gives the same name back).
#![no_main]

use domain_desk_api::Hostname;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(name) = Hostname::parse(text) {
        let again = Hostname::parse(name.as_str()).expect("the stored form parses");
        assert_eq!(again, name);
        assert!(name.as_str().len() <= 253);
        let _ = name.unicode();
        assert!(name.as_str().ends_with(name.registrable_domain()));
        let _ = name.relative_name();
    }
});
