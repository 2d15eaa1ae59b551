//! CAA values come from DNS, that is from anyone: parsing and evaluating never panic, and a
//! parsed record prints back to a form that parses to the same record.
#![no_main]

use domain_desk_api::caa::{self, CaaRecord};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let records: Vec<CaaRecord> = text
        .lines()
        .filter_map(|l| CaaRecord::parse(l).ok())
        .collect();
    for record in &records {
        let again = CaaRecord::parse(&record.to_presentation()).expect("printed form parses");
        assert_eq!(&again, record);
    }
    let _ = caa::evaluate(&records, "letsencrypt.org", false);
    let _ = caa::evaluate(&records, "letsencrypt.org", true);
    let _ = caa::climb(text);
});
