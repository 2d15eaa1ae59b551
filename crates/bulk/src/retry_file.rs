//! The retry file an import leaves beside the imported file, with the rows to import again
//! and, as comments, the rows left out and why. It starts with its own mark
//! ([`RETRY_FILE_MARK`]), so that only a file Domain Desk wrote is ever replaced or removed
//! at its path, and never the file being imported; it is written atomically and is its
//! owner's alone (`domain_desk_api::private_file`).

use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::cells;
use crate::error::{Error, Result};
use crate::rows::{Row, RowProblem, to_csv};

pub use crate::cells::RETRY_FILE_MARK;

/// Where the rows to import again go, beside the imported file: `FILE.failed.csv`.
pub fn retry_path(imported: &Path) -> PathBuf {
    let mut name = imported.as_os_str().to_owned();
    name.push(".failed.csv");
    PathBuf::from(name)
}

/// What [`write_retry_file`] left at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryFile {
    /// The rows to import again.
    Written,
    /// Nothing to retry, and a file an earlier run left there (listing rows now done) was
    /// removed.
    Removed,
    /// Nothing to retry, and no file was there.
    Absent,
}

/// Whether the retry file may go to `path`: not the file being imported (`input`, `None` for
/// standard input), and nothing there but a retry file Domain Desk wrote. Checked before an
/// import sends anything, and again by [`write_retry_file`].
pub fn check_retry_path(path: &Path, input: Option<&Path>) -> Result<()> {
    let io = |source| Error::File {
        path: path.to_owned(),
        source,
    };
    if let Some(input) = input
        && same_file(path, input).map_err(io)?
    {
        return Err(Error::RetryFileIsInput(path.to_owned()));
    }
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(io(err)),
        // A link is never one we wrote: reading through it would judge another file.
        Ok(metadata) if !metadata.file_type().is_file() => {
            Err(Error::NotOurRetryFile(path.to_owned()))
        }
        Ok(_) => {
            let mut start = Vec::with_capacity(RETRY_FILE_MARK.len());
            std::fs::File::open(path)
                .and_then(|file| {
                    file.take(RETRY_FILE_MARK.len() as u64)
                        .read_to_end(&mut start)
                })
                .map_err(io)?;
            if start == RETRY_FILE_MARK.as_bytes() {
                Ok(())
            } else {
                Err(Error::NotOurRetryFile(path.to_owned()))
            }
        }
    }
}

/// Whether `a` and `b` are one file (the same path written two ways, or a hard link).
fn same_file(a: &Path, b: &Path) -> std::io::Result<bool> {
    let (a_meta, b_meta) = match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(err), _) | (_, Err(err)) if err.kind() != std::io::ErrorKind::NotFound => {
            return Err(err);
        }
        _ => return Ok(false),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if a_meta.dev() == b_meta.dev() && a_meta.ino() == b_meta.ino() {
            return Ok(true);
        }
    }
    let _ = (a_meta, b_meta);
    Ok(std::fs::canonicalize(a)? == std::fs::canonicalize(b)?)
}

/// Makes the retry file at `path` say what the run that just ended left to do: `rows` in the
/// import format, then the rows left out as invalid (`skipped`), each under a comment line
/// saying what is wrong (a line without a hostname is only the comment, with the line as it
/// was), or no file at all when there are none, so a file left by an earlier, interrupted run
/// never lists rows that are now done.
///
/// Refused ([`check_retry_path`]) when `path` is the imported file `input` or holds anything
/// but a retry file Domain Desk wrote. The file is written atomically, its owner's alone
/// ([`crate::file::write_atomically`]).
pub fn write_retry_file(
    path: &Path,
    input: Option<&Path>,
    rows: &[Row],
    skipped: &[RowProblem],
) -> Result<RetryFile> {
    check_retry_path(path, input)?;
    let io = |source| Error::File {
        path: path.to_owned(),
        source,
    };
    if !rows.is_empty() || !skipped.is_empty() {
        let mut text = format!("{RETRY_FILE_MARK}\n");
        text.push_str(&to_csv(rows));
        for problem in skipped {
            text.push_str(&cells::comment(&format!(
                "line {}: {}",
                problem.line, problem.message
            )));
            match &problem.hostname {
                Some(hostname) => text.push_str(&cells::line([
                    hostname.as_str(),
                    problem.redirect_to.as_deref().unwrap_or(""),
                ])),
                None => text.push_str(&cells::comment(&format!("as written: {}", problem.value))),
            }
        }
        crate::file::write_atomically(path, text.as_bytes()).map_err(io)?;
        return Ok(RetryFile::Written);
    }
    match std::fs::remove_file(path) {
        Ok(()) => Ok(RetryFile::Removed),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(RetryFile::Absent),
        Err(err) => Err(io(err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::tests::hosts;
    use crate::rows::{Format, parse, read};

    /// A run with rows left writes them; the next run with none removes the file, and one
    /// more run finds nothing to remove.
    #[test]
    fn the_retry_file_goes_when_nothing_is_left_to_retry() {
        let dir = tempfile::tempdir().unwrap();
        let path = retry_path(&dir.path().join("domains.csv"));
        let left = parse("a.example.com\nb.example.com\n", Format::Csv).unwrap();
        assert_eq!(
            write_retry_file(&path, None, &left, &[]).unwrap(),
            RetryFile::Written
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!("{RETRY_FILE_MARK}\nhostname,redirect_to\na.example.com,\nb.example.com,\n")
        );
        assert_eq!(
            write_retry_file(&path, None, &[], &[]).unwrap(),
            RetryFile::Removed
        );
        assert!(!path.exists());
        assert_eq!(
            write_retry_file(&path, None, &[], &[]).unwrap(),
            RetryFile::Absent
        );
    }

    /// Rows left out as invalid go to the retry file under a comment saying why; a line
    /// without a hostname only as a comment; the file reads back as the rows it can.
    #[test]
    fn the_retry_file_lists_the_rows_left_out_with_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = retry_path(&dir.path().join("domains.csv"));
        let (rows, problems) = read(
            "ok.example.com\nnot a host,x.example.com\n,y\n",
            Format::Csv,
        );
        assert_eq!(rows.len(), 2);
        let skipped = vec![
            RowProblem {
                line: 2,
                hostname: Some("not a host".into()),
                redirect_to: Some("x.example.com".into()),
                value: "not a host".into(),
                message: "not a valid hostname".into(),
            },
            problems[0].clone(),
        ];
        assert_eq!(
            write_retry_file(&path, None, &[], &skipped).unwrap(),
            RetryFile::Written
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!(
                "{RETRY_FILE_MARK}\nhostname,redirect_to\n# line 2: not a valid hostname\nnot a host,x.example.com\n# line 3: the hostname is empty\n\"# as written: ,y\"\n"
            )
        );
        let again = parse(&text, Format::Csv).unwrap();
        assert_eq!(
            hosts(&again),
            vec![(4, "not a host", Some("x.example.com"))]
        );
    }

    /// Every cell of `text` as a spreadsheet splits it at each of `delimiters` (a comma, or
    /// as some locales do a semicolon): none may start a formula.
    fn assert_no_cell_starts_a_formula(text: &str, delimiters: &[u8]) {
        for &delimiter in delimiters {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .delimiter(delimiter)
                .from_reader(text.as_bytes());
            for record in reader.records() {
                let record = record.unwrap();
                for cell in &record {
                    assert!(
                        !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                        "a spreadsheet runs {cell:?} (delimiter {:?}) in:\n{text}",
                        delimiter as char
                    );
                }
            }
        }
    }

    /// Rows and comments that a spreadsheet would run as formulas are written inert, as OWASP
    /// advises for CSV (a single quote first, the cell quoted), and read back as written.
    #[test]
    fn a_retry_file_holds_no_cell_a_spreadsheet_would_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = retry_path(&dir.path().join("domains.csv"));
        let hostile = [
            "=HYPERLINK(\"http://evil.test\",\"x\")",
            "+1+1",
            "-2+3",
            "@SUM(A1:A2)",
        ];
        let rows: Vec<Row> = hostile
            .iter()
            .enumerate()
            .map(|(i, h)| Row {
                line: i as u64 + 1,
                hostname: (*h).to_owned(),
                redirect_to: Some(format!("={i}")),
            })
            .collect();
        let skipped = vec![
            RowProblem {
                line: 7,
                hostname: Some("=cmd|' /C calc'!A0".into()),
                redirect_to: Some("@x".into()),
                value: "=cmd|' /C calc'!A0".into(),
                message: "not a valid hostname: =cmd, or ;=cmd".into(),
            },
            RowProblem {
                line: 8,
                hostname: None,
                redirect_to: None,
                value: ",=1+1;+2".into(),
                message: "the hostname is empty".into(),
            },
        ];
        write_retry_file(&path, None, &rows, &skipped).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_no_cell_starts_a_formula(&text, b",;");
        assert!(text.contains("\n\"'-2+3\",\"'=2\"\n"), "{text}");
        let (again, problems) = read(&text, Format::Csv);
        assert!(problems.is_empty(), "{problems:?}");
        let mut expected: Vec<(String, Option<String>)> = rows
            .iter()
            .map(|r| (r.hostname.clone(), r.redirect_to.clone()))
            .collect();
        expected.push(("=cmd|' /C calc'!A0".into(), Some("@x".into())));
        assert_eq!(
            again
                .iter()
                .map(|r| (r.hostname.clone(), r.redirect_to.clone()))
                .collect::<Vec<_>>(),
            expected
        );
        // A tab or a carriage return first is neutralised as well.
        let text = to_csv(&[Row {
            line: 1,
            hostname: "\tx".into(),
            redirect_to: Some("\r=y".into()),
        }]);
        // (A line break inside a cell makes a semicolon reading of a comma file meaningless.)
        assert_no_cell_starts_a_formula(&text, b",");
        assert_eq!(text, "hostname,redirect_to\n\"'\tx\",\"'\r=y\"\n");
    }

    /// The file being imported is never the retry file: neither replaced by the rows left nor
    /// removed when none are left.
    #[test]
    fn the_retry_file_never_replaces_or_removes_the_imported_file() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("rows.csv");
        let written = "hostname\na.example.com\n";
        std::fs::write(&input, written).unwrap();
        let left = parse("a.example.com\n", Format::Csv).unwrap();
        for left in [&left[..], &[]] {
            let err = write_retry_file(&input, Some(&input), left, &[]).unwrap_err();
            assert!(matches!(err, Error::RetryFileIsInput(_)), "{err}");
            assert!(err.to_string().contains("rows.csv"), "{err}");
            assert_eq!(std::fs::read_to_string(&input).unwrap(), written);
        }
        // The same file named another way, or through a hard link.
        let other_name = dir.path().join(".").join("rows.csv");
        let err = write_retry_file(&other_name, Some(&input), &left, &[]).unwrap_err();
        assert!(matches!(err, Error::RetryFileIsInput(_)), "{err}");
        #[cfg(unix)]
        {
            let linked = dir.path().join("linked.csv");
            std::fs::hard_link(&input, &linked).unwrap();
            let err = write_retry_file(&linked, Some(&input), &[], &[]).unwrap_err();
            assert!(matches!(err, Error::RetryFileIsInput(_)), "{err}");
        }
        // Without being told which file is imported, it is still not a retry file.
        assert!(write_retry_file(&input, None, &[], &[]).is_err());
        assert_eq!(std::fs::read_to_string(&input).unwrap(), written);
    }

    /// A file that Domain Desk did not write (no retry file's first line) is never replaced
    /// nor removed at the retry file's path, nor is a symbolic link planted there followed.
    #[test]
    fn only_a_retry_file_domain_desk_wrote_is_replaced_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "mine\n").unwrap();
        let left = parse("a.example.com\n", Format::Csv).unwrap();
        let err = write_retry_file(&notes, None, &left, &[]).unwrap_err();
        assert!(err.to_string().contains("notes.txt"), "{err}");
        assert!(write_retry_file(&notes, None, &[], &[]).is_err());
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine\n");
        #[cfg(unix)]
        {
            let link = dir.path().join("rows.csv.failed.csv");
            std::os::unix::fs::symlink(&notes, &link).unwrap();
            assert!(write_retry_file(&link, None, &left, &[]).is_err());
            assert!(write_retry_file(&link, None, &[], &[]).is_err());
            assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine\n");
            assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        }
    }

    /// The retry file is created readable by its owner alone, and nothing is left beside it.
    #[cfg(unix)]
    #[test]
    fn the_retry_file_is_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = retry_path(&dir.path().join("domains.csv"));
        let left = parse("a.example.com\n", Format::Csv).unwrap();
        write_retry_file(&path, None, &left, &[]).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [path.file_name().unwrap()]);
    }
}
