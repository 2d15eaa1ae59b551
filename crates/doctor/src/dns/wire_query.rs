//! The vocabulary the engine, the sources and the capture share: a question as it goes over
//! the wire, and a map keyed by one. Defined apart from all three so that none imports
//! another for it.

use std::collections::HashMap;
use std::net::SocketAddr;

use hickory_proto::rr::RecordType;

/// A question that went over the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WireQuery {
    pub server: SocketAddr,
    pub name: String,
    pub record_type: RecordType,
    pub recursion_desired: bool,
    pub checking_disabled: bool,
}

/// Something by question. Names in questions come from the network (CNAME targets, NS
/// names), so the hash is seeded per map, as the standard one is; foldhash's is several times
/// cheaper than SipHash on these short keys, which every question hashes.
pub type ByQuestion<T> = HashMap<WireQuery, T, foldhash::fast::RandomState>;
