//! The control plane under `/_local`: loopback only, no API key, never rate limited.
//! The demo DNS provider's endpoints belong to the DNS world and are added with it.

pub mod clock;
pub mod dns;
pub mod faults;
pub mod info;
pub mod reset;
