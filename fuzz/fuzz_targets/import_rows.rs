//! An import file is whatever the user picked (a spreadsheet's export, a script's output, a
//! file that is not an import at all): reading it as CSV or as JSON lines never panics, and
//! every row and every problem it reports names a line of the file, in order, once.
#![no_main]

use domain_desk_bulk::rows::{self, Format};
use libfuzzer_sys::fuzz_target;

/// Longer inputs are left out: each line is read on its own, so a longer file only repeats
/// what shorter ones cover, at a cost (a CSV reader per line) that would take the bounded
/// regression run near its time guard.
const MAX_INPUT: usize = 512;

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.lines().count() as u64;
    // Read as a file of this text and no telling name would be: `{` first is JSON lines.
    let (rows, problems) = rows::read(text, Format::detect(None, text));
    let mut seen: Vec<u64> = rows
        .iter()
        .map(|row| row.line)
        .chain(problems.iter().map(|problem| problem.line))
        .collect();
    for line in &seen {
        assert!((1..=lines).contains(line), "line {line} of {lines}");
    }
    let count = seen.len();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), count, "a line read twice");
    assert!(rows.windows(2).all(|pair| pair[0].line < pair[1].line));
    for row in &rows {
        assert!(!row.hostname.is_empty() && row.hostname.trim() == row.hostname);
        if let Some(redirect) = &row.redirect_to {
            assert!(!redirect.is_empty() && redirect.trim() == redirect);
        }
    }
    for problem in &problems {
        assert!(!problem.message.is_empty());
        let _ = problem.to_string();
    }
});
