//! The CSV this crate writes (exports and retry files) is opened in spreadsheets, which run a
//! cell that starts with `=`, `+`, `-` or `@` (or a tab or a carriage return before one) as a
//! formula: a hostname someone typed, or a platform's message, could then fetch a URL or run a
//! command on the machine of whoever opens the file. Every cell is written as OWASP advises
//! for CSV: such a cell gets a single quote first and is quoted, and the import reader takes
//! that quote away again ([`restore`]), so a file we wrote reads back as it was.
//!
//! Cells are written by hand rather than with `csv::Writer`, which can quote a field only when
//! RFC 4180 needs it or always; here a cell is quoted when RFC 4180 needs it, when it was
//! neutralised, or when it holds a `;` (the cell separator of spreadsheets in many locales).

/// The first line of every retry file, a comment line: what tells a file Domain Desk wrote,
/// which it may replace or remove, from any other.
pub const RETRY_FILE_MARK: &str = "# Domain Desk retry file: the rows to import again";

/// The first characters a spreadsheet reads as the start of a formula.
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// One CSV line of `cells`, ending in `\n`.
pub(crate) fn line<'a>(cells: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, cell) in cells.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_cell(&mut out, cell);
    }
    out.push('\n');
    out
}

/// A comment line of a retry file: `# text`, as one quoted cell when a spreadsheet would
/// otherwise split it into cells (one of which could start a formula). The import reader
/// skips both forms.
pub(crate) fn comment(text: &str) -> String {
    let text = format!("# {}", text.replace(['\n', '\r'], " "));
    if text.contains([',', ';', '"', '\t']) {
        format!("\"{}\"\n", text.replace('"', "\"\""))
    } else {
        text + "\n"
    }
}

fn push_cell(out: &mut String, cell: &str) {
    let neutralised = cell.starts_with(FORMULA_START);
    if neutralised || cell.contains([',', ';', '"', '\n', '\r']) {
        out.push('"');
        if neutralised {
            out.push('\'');
        }
        out.push_str(&cell.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(cell);
    }
}

/// A cell as [`line`] was given it: the single quote a neutralised cell got is taken away
/// (a hostname never starts with `'`, so no cell that was typed so loses anything it needs).
pub(crate) fn restore(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_START) => rest,
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cells_that_need_it_are_quoted() {
        assert_eq!(line(["a.example.com", ""]), "a.example.com,\n");
        assert_eq!(line(["a,b", "say \"hi\""]), "\"a,b\",\"say \"\"hi\"\"\"\n");
        assert_eq!(line(["a;=b"]), "\"a;=b\"\n");
        assert_eq!(line(["=1+1", "-x"]), "\"'=1+1\",\"'-x\"\n");
        assert_eq!(restore("'=1+1"), "=1+1");
        assert_eq!(restore("'plain"), "'plain");
        assert_eq!(comment("line 2: bad"), "# line 2: bad\n");
        assert_eq!(comment("as written: ,=1"), "\"# as written: ,=1\"\n");
    }
}
