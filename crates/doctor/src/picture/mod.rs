//! The picture: the path a lookup of the name takes, drawn from the report — the registry
//! (the parent zone's servers), the nameservers it delegates to (each serving, lame or
//! silent), what each server answers, the CNAME chain's names, the target, its addresses and
//! TLS at each (on the address's node: a connection goes to an address, and the certificate
//! there is its verdict) — every node and edge marked by its verdict: right, wrong, stale
//! until a cache expires, or lame.
//!
//! One graph ([`graph`]) feeds both drawings: an SVG for the window and `domain-desk doctor
//! --svg` ([`to_svg`], laid out by the `layout` module: columns by layer, rows by order, no
//! crate and no browser-side library), and a text diagram for tickets, which render no SVG
//! ([`to_text_diagram`]). Both say each verdict in a word or a symbol, never by colour alone,
//! and both put a "no such name" on the name the chain ends at, not on the name asked.
//!
//! Every name and value in the report comes from the network: each goes through
//! [`crate::escape::terminal`] (control characters shown, not sent), and in the SVG through
//! XML escaping as well.

mod graph;
mod layout;
mod svg;
mod text;

pub use graph::Verdict;
pub use svg::{Theme, to_svg};
pub use text::to_text_diagram;

#[cfg(test)]
pub(crate) mod fixtures;
