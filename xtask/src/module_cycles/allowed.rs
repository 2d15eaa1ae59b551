//! What lets an import that closes a ring stand: a reason in the importing file's `//!`
//! ([`MARKER`]), or an entry in [`KNOWN`] for a file that cannot take the marker yet.

use std::collections::{BTreeMap, BTreeSet};

use super::paths::{ModPath, absolute};

/// The marker that opens an allowed cycle's reason in a `//!` line.
pub(super) const MARKER: &str = "Allowed cycle with";

/// Imports that close a ring in files whose owner is changing them in a separate piece of
/// work, so the marker cannot go in the file itself yet: the file (from the workspace root),
/// the module it imports back, and why. Printed on every run, so none is forgotten; an entry
/// whose import is gone allows nothing.
pub(super) const KNOWN: &[(&str, &str, &str)] = &[];

/// The modules a file's `//!` lines allow it to import back: on a line that starts with
/// [`MARKER`], the backquoted paths (joined by `,` or `and`), then `:` and a reason of three
/// words or more.
pub(super) fn allowed_modules(text: &str, module: &[String]) -> Vec<ModPath> {
    let mut allowed = Vec::new();
    for line in text.lines() {
        let Some(doc) = line.trim_start().strip_prefix("//!") else {
            continue;
        };
        let Some(mut rest) = doc.trim().strip_prefix(MARKER) else {
            continue;
        };
        let mut paths = Vec::new();
        loop {
            rest = rest.trim_start();
            if let Some(more) = rest.strip_prefix(',').or_else(|| rest.strip_prefix("and ")) {
                rest = more;
            } else if let Some(quoted) = rest.strip_prefix('`') {
                let Some((path, more)) = quoted.split_once('`') else {
                    break;
                };
                paths.push(path);
                rest = more;
            } else {
                break;
            }
        }
        let Some(reason) = rest.strip_prefix(':') else {
            continue;
        };
        if reason.split_whitespace().count() < 3 {
            continue;
        }
        for path in paths {
            let segments: Vec<String> = path.split("::").map(str::to_owned).collect();
            allowed.extend(absolute(
                &segments,
                module,
                &BTreeSet::new(),
                &BTreeMap::new(),
            ));
        }
    }
    allowed
}
