//! The rows of an import file, each with the line it came from, so that every problem is
//! reported where the user can find it in their spreadsheet or editor.
//!
//! Two formats: CSV with the columns `hostname[,redirect_to]` (a header row is optional,
//! quoting as RFC 4180, `#` starts a comment line), and JSON lines
//! (`{"hostname": "…", "redirect_to": "…"}` one object a line).
//!
//! The retry file, which an import leaves beside the file with the rows to import again, is
//! `retry_file.rs`.

use std::fmt;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cells;

/// How an import file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Csv,
    JsonLines,
}

impl Format {
    /// The format a file's name says (`.jsonl`, `.ndjson`, `.json` are JSON lines), else what
    /// its first non-blank character says (`{` is JSON lines), else CSV.
    pub fn detect(path: Option<&Path>, text: &str) -> Format {
        let extension = path
            .and_then(Path::extension)
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("jsonl" | "ndjson" | "json") => Format::JsonLines,
            Some("csv" | "txt") => Format::Csv,
            _ if strip_bom(text).trim_start().starts_with('{') => Format::JsonLines,
            _ => Format::Csv,
        }
    }
}

/// One row as written: nothing checked yet beyond the file's syntax.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// 1-based line of the file.
    pub line: u64,
    pub hostname: String,
    pub redirect_to: Option<String>,
}

/// What is wrong with one line. Nothing is sent while any exists, unless the import is told
/// to leave the invalid rows out ([`crate::plan::Invalid::Skip`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowProblem {
    pub line: u64,
    /// The hostname as written, when the line got that far.
    pub hostname: Option<String>,
    /// The redirect as written, when the line has one.
    pub redirect_to: Option<String>,
    /// What the line says, for a table of problems: the hostname, or the line itself when it
    /// has none.
    pub value: String,
    pub message: String,
}

impl fmt::Display for RowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.hostname {
            Some(hostname) => write!(f, "line {}: {hostname}: {}", self.line, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

/// Every row of `text`, or every line that could not be read.
pub fn parse(text: &str, format: Format) -> Result<Vec<Row>, Vec<RowProblem>> {
    let (rows, problems) = read(text, format);
    if problems.is_empty() {
        Ok(rows)
    } else {
        Err(problems)
    }
}

/// The rows of `text` that could be read, and the lines that could not: an import that leaves
/// the invalid rows out goes on with the first and reports the second.
pub fn read(text: &str, format: Format) -> (Vec<Row>, Vec<RowProblem>) {
    let text = strip_bom(text);
    match format {
        Format::Csv => parse_csv(text),
        Format::JsonLines => parse_json_lines(text),
    }
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn non_empty(field: Option<&str>) -> Option<String> {
    field
        .map(|f| cells::restore(f.trim()))
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
}

/// The first CSV record of each line it is given, each line read on its own (a quote left
/// open ends with its line). One reader serves the whole file, started afresh on each line
/// (`seek_raw`): csv compiles its parser, a state machine, for every reader it builds, and a
/// reader per line spent most of a line's time there.
struct LineReader<'a> {
    reader: csv::Reader<std::io::Cursor<&'a [u8]>>,
    record: csv::StringRecord,
}

impl<'a> LineReader<'a> {
    fn new() -> Self {
        Self {
            reader: csv_reader(std::io::Cursor::new(&b""[..])),
            record: csv::StringRecord::new(),
        }
    }

    fn read(&mut self, line: &'a str) -> csv::Result<Option<&csv::StringRecord>> {
        *self.reader.get_mut() = std::io::Cursor::new(line.as_bytes());
        self.reader
            .seek_raw(std::io::SeekFrom::Start(0), csv::Position::new())?;
        Ok(self
            .reader
            .read_record(&mut self.record)?
            .then_some(&self.record))
    }
}

/// How an import's CSV is read: no header row of csv's own (the reader finds one by name),
/// rows of any length, every field trimmed.
fn csv_reader<R: std::io::Read>(input: R) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(input)
}

fn parse_csv(text: &str) -> (Vec<Row>, Vec<RowProblem>) {
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    let mut first = true;
    // With a header, columns are found by name and others ignored (an export reads back in).
    let mut header_redirect_column: Option<Option<usize>> = None;
    // Line by line (a hostname never spans lines), so that every line number is the file's.
    let mut reader = LineReader::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index as u64 + 1;
        // `"# …"`: a comment a retry file quoted so that a spreadsheet keeps it in one cell.
        let start = raw.trim_start();
        if start.is_empty() || start.starts_with('#') || start.starts_with("\"#") {
            continue;
        }
        let record = match reader.read(raw) {
            Ok(Some(record)) => record,
            Err(err) => {
                problems.push(RowProblem {
                    line,
                    hostname: None,
                    redirect_to: None,
                    value: raw.trim().to_owned(),
                    message: format!("not a CSV row: {err}"),
                });
                continue;
            }
            Ok(None) => continue,
        };
        if std::mem::take(&mut first)
            && record
                .get(0)
                .is_some_and(|f| f.eq_ignore_ascii_case("hostname"))
        {
            let find = |name: &str| record.iter().position(|f| f.eq_ignore_ascii_case(name));
            header_redirect_column = Some(find("redirect_to"));
            continue;
        }
        if record.iter().all(str::is_empty) {
            continue;
        }
        let hostname = non_empty(record.get(0));
        let redirect_column = match header_redirect_column {
            Some(column) => column,
            None if record.len() > 2 => {
                problems.push(RowProblem {
                    line,
                    value: hostname.clone().unwrap_or_else(|| raw.trim().to_owned()),
                    hostname,
                    redirect_to: None,
                    message: format!(
                        "{} columns; the columns are hostname and (optionally) redirect_to",
                        record.len()
                    ),
                });
                continue;
            }
            None => Some(1),
        };
        let Some(hostname) = hostname else {
            problems.push(RowProblem {
                line,
                hostname: None,
                redirect_to: redirect_column.and_then(|c| non_empty(record.get(c))),
                value: raw.trim().to_owned(),
                message: "the hostname is empty".into(),
            });
            continue;
        };
        rows.push(Row {
            line,
            hostname,
            redirect_to: redirect_column.and_then(|c| non_empty(record.get(c))),
        });
    }
    (rows, problems)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRow {
    hostname: String,
    #[serde(default)]
    redirect_to: Option<String>,
}

fn parse_json_lines(text: &str) -> (Vec<Row>, Vec<RowProblem>) {
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index as u64 + 1;
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        match serde_json::from_str::<JsonRow>(raw) {
            Ok(row) => match non_empty(Some(&row.hostname)) {
                Some(hostname) => rows.push(Row {
                    line,
                    hostname,
                    redirect_to: non_empty(row.redirect_to.as_deref()),
                }),
                None => problems.push(RowProblem {
                    line,
                    hostname: None,
                    redirect_to: non_empty(row.redirect_to.as_deref()),
                    value: raw.to_owned(),
                    message: "the hostname is empty".into(),
                }),
            },
            Err(err) => problems.push(RowProblem {
                line,
                hostname: None,
                redirect_to: None,
                value: raw.to_owned(),
                message: format!(
                    "not a JSON object with \"hostname\" and optional \"redirect_to\": {err}"
                ),
            }),
        }
    }
    (rows, problems)
}

/// Rows written back in the import format (CSV with a header), so that what failed can be
/// imported again as it is; a cell a spreadsheet would run is written inert ([`cells`]).
pub fn to_csv(rows: &[Row]) -> String {
    let mut text = cells::line(["hostname", "redirect_to"]);
    for row in rows {
        text.push_str(&cells::line([
            row.hostname.as_str(),
            row.redirect_to.as_deref().unwrap_or(""),
        ]));
    }
    text
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn hosts(rows: &[Row]) -> Vec<(u64, &str, Option<&str>)> {
        rows.iter()
            .map(|r| (r.line, r.hostname.as_str(), r.redirect_to.as_deref()))
            .collect()
    }

    /// The file's one reader, given line after line, reads each as a reader of its own would
    /// (which is how lines were read before): several thousand lines of the characters CSV
    /// treats specially, in sequence, so that anything one line leaves behind shows.
    #[test]
    fn one_reader_for_the_file_reads_each_line_as_a_reader_of_its_own() {
        let pieces = [
            "a",
            "b.example",
            ",",
            "\"",
            "\"\"",
            " ",
            "\t",
            "\r",
            "\u{a0}",
            "#",
            "é",
            "\\",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            // xorshift64: the same lines every run
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let lines: Vec<String> = (0..5_000)
            .map(|_| {
                let length = next() % 10;
                (0..length)
                    .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let mut reader = LineReader::new();
        let mut differing = Vec::new();
        for line in &lines {
            let own = csv_reader(line.as_bytes())
                .records()
                .next()
                .transpose()
                .map_err(|err| err.to_string());
            let shared = reader
                .read(line)
                .map(Option::<&csv::StringRecord>::cloned)
                .map_err(|err| err.to_string());
            if own != shared {
                differing.push(format!("{line:?}: own {own:?}, shared {shared:?}"));
            }
        }
        assert!(differing.is_empty(), "{differing:#?}");
    }

    #[test]
    fn csv_with_header_quotes_comments_and_blank_lines() {
        let text = "\u{feff}Hostname,redirect_to\r\n# ours\r\nshop.example.com\r\n\r\n\"www.example.com\" , shop.example.com\r\n";
        let rows = parse(text, Format::Csv).unwrap();
        assert_eq!(
            hosts(&rows),
            vec![
                (3, "shop.example.com", None),
                (5, "www.example.com", Some("shop.example.com"))
            ]
        );
    }

    #[test]
    fn csv_without_header_keeps_the_first_row() {
        let rows = parse("a.example.com\nb.example.com,\n", Format::Csv).unwrap();
        assert_eq!(
            hosts(&rows),
            vec![(1, "a.example.com", None), (2, "b.example.com", None)]
        );
    }

    #[test]
    fn csv_problems_name_their_lines() {
        let problems = parse("a.example.com\n,x.example.com\nb,c,d\n", Format::Csv).unwrap_err();
        let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "line 2: the hostname is empty",
                "line 3: b: 3 columns; the columns are hostname and (optionally) redirect_to"
            ]
        );
    }

    #[test]
    fn with_a_header_columns_are_found_by_name() {
        let text = "hostname,role,redirect_to\nold.example.com,redirect,new.example.com\n";
        let rows = parse(text, Format::Csv).unwrap();
        assert_eq!(
            hosts(&rows),
            vec![(2, "old.example.com", Some("new.example.com"))]
        );
    }

    #[test]
    fn json_lines_rows_and_problems() {
        let text = "{\"hostname\":\"a.example.com\"}\n\n{\"hostname\":\"b.example.com\",\"redirect_to\":\"a.example.com\"}\n{\"host\":\"c\"}\nnot json\n";
        let problems = parse(text, Format::JsonLines).unwrap_err();
        assert_eq!(
            problems.iter().map(|p| p.line).collect::<Vec<_>>(),
            vec![4, 5]
        );
        let rows = parse(
            &text.lines().take(3).collect::<Vec<_>>().join("\n"),
            Format::JsonLines,
        )
        .unwrap();
        assert_eq!(
            hosts(&rows),
            vec![
                (1, "a.example.com", None),
                (3, "b.example.com", Some("a.example.com"))
            ]
        );
    }

    #[test]
    fn format_from_name_then_content() {
        assert_eq!(
            Format::detect(Some(Path::new("x.JSONL")), "a"),
            Format::JsonLines
        );
        assert_eq!(Format::detect(Some(Path::new("x.csv")), "{"), Format::Csv);
        assert_eq!(
            Format::detect(None, "  {\"hostname\":1}"),
            Format::JsonLines
        );
        assert_eq!(Format::detect(None, "hostname\n"), Format::Csv);
    }

    #[test]
    fn failed_rows_written_back_parse_to_the_same_rows() {
        let rows = vec![
            Row {
                line: 1,
                hostname: "a.example.com".into(),
                redirect_to: None,
            },
            Row {
                line: 2,
                hostname: "b,weird".into(),
                redirect_to: Some("a.example.com".into()),
            },
        ];
        let again = parse(&to_csv(&rows), Format::Csv).unwrap();
        assert_eq!(
            again
                .iter()
                .map(|r| (r.hostname.clone(), r.redirect_to.clone()))
                .collect::<Vec<_>>(),
            rows.iter()
                .map(|r| (r.hostname.clone(), r.redirect_to.clone()))
                .collect::<Vec<_>>()
        );
    }
}
