//! DNS answers come from any server a customer's domain names, or from anyone who can send a
//! datagram to the doctor's port: the doctor's own wire reader (its fast path for plain
//! answers) never panics, and wherever it decides (reads an answer, or ignores the datagram)
//! it decides exactly as hickory's decoding and presentation would. Only the doctor's public
//! functions are called, so the target follows the doctor through hickory upgrades.
//!
//! Input: one byte `n`, the `n` bytes of the question's name, its type (two bytes, big
//! endian), then the datagram; the question's ID is the datagram's own (and one other, which
//! both readers must ignore).
#![no_main]

use domain_desk_doctor::dns::{decode_datagram, read_datagram};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&length, rest)) = data.split_first() else {
        return;
    };
    let Some((name, rest)) = rest.split_at_checked(usize::from(length)) else {
        return;
    };
    let Ok(name) = std::str::from_utf8(name) else {
        return;
    };
    let Some((record_type, datagram)) = rest.split_at_checked(2) else {
        return;
    };
    let record_type = u16::from_be_bytes([record_type[0], record_type[1]]);
    let id = datagram
        .get(..2)
        .map_or(0, |id| u16::from_be_bytes([id[0], id[1]]));
    for id in [id, id ^ 0x0100] {
        let read = read_datagram(datagram, id, name, record_type);
        let decoded = decode_datagram(datagram, id, name, record_type);
        assert_eq!(read, decoded, "the wire reader and hickory disagree");
    }
});
