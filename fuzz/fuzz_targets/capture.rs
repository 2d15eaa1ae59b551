//! A capture file comes from a customer (`domain-desk doctor --replay FILE`): any bytes are
//! read or refused with the doctor's error, never a panic; a capture that is read gives its
//! answers for a replay, and written out again it reads back as the same capture.
#![no_main]

use domain_desk_doctor::Capture;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(capture) = Capture::from_json(text) else {
        return;
    };
    let answers = capture
        .answers()
        .expect("a capture that was read has its answers");
    assert!(answers.len() <= capture.exchanges.len());
    let again = Capture::from_json(&capture.to_json()).expect("a capture written reads back");
    assert_eq!(again, capture);
});
