//! Names and record values are untrusted text: served with escape sequences, carriage
//! returns, line feeds, pipes and backticks, they reach neither the terminal nor the Markdown
//! raw, forge no line and break no table or code span.

use domain_desk_doctor::{Report, diagnose};

use crate::support::{TARGET, ZoneServer, Zones, options};

/// Everything a hostile zone can put in one value.
const HOSTILE: &str = "\u{1b}[31mred\u{1b}[0m\r\nERROR forged line | cell | `tick` ``two``\u{202e}";

async fn hostile_report() -> Report {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        // A known provider: its name, nameservers and worded steps are rendered too.
        .nameservers("example.com", &["amy.ns.cloudflare.com"])
        // A CNAME elsewhere, to a name made of hostile bytes.
        .cname_raw(
            "evil.example.com",
            &[
                b"\x1b[31mred\r\nERROR forged line",
                b"|cell|`tick`",
                b"example",
                b"net",
            ],
        )
        // The right CNAME, with a hostile TXT record beside it.
        .cname("txt.example.com", TARGET)
        .txt("txt.example.com", HOSTILE)
        .caa(
            "example.com",
            0,
            "issue",
            &format!("letsencrypt.org; x={HOSTILE}"),
        );
    let server = ZoneServer::start(&zones).await;
    let hostile_input = format!("bad{HOSTILE}.example.com");
    diagnose(
        &[
            "evil.example.com",
            "txt.example.com",
            hostile_input.as_str(),
        ],
        &options(&[server.address]),
    )
    .await
    .unwrap()
}

/// No control character but the line feeds the renderer writes itself, and no line the
/// hostile value forged.
fn assert_inert(output: &str) {
    for (number, line) in output.lines().enumerate() {
        assert!(
            !line.chars().any(|character| character.is_control()
                || ('\u{202a}'..='\u{202e}').contains(&character)),
            "line {number} holds a control character: {line:?}"
        );
        assert!(
            !line
                .trim_start_matches(|character: char| !character.is_alphanumeric())
                .starts_with("ERROR forged"),
            "line {number} was forged: {line:?}\n{output}"
        );
    }
}

/// GitHub Flavored Markdown splits table cells at each `|` not preceded by a backslash.
fn cells(row: &str) -> usize {
    let bytes = row.as_bytes();
    let pipes = (0..bytes.len())
        .filter(|&index| bytes[index] == b'|' && (index == 0 || bytes[index - 1] != b'\\'))
        .count();
    pipes.saturating_sub(1)
}

/// Every table keeps its column count; every fenced block closes where the renderer closes
/// it; outside them, every run of backticks that is not escaped opens a code span that a run
/// of the same length closes on the same line.
fn assert_markdown_structure(markdown: &str) {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut index = 0;
    let mut tables = 0;
    while index < lines.len() {
        let line = lines[index];
        if line.starts_with("```") {
            let fence = line;
            assert!(fence.bytes().all(|byte| byte == b'`'), "{fence:?}");
            let close = lines[index + 1..]
                .iter()
                .position(|candidate| candidate.starts_with(fence))
                .map(|offset| index + 1 + offset)
                .unwrap_or_else(|| panic!("fence at line {index} never closes"));
            assert_eq!(lines[close], fence, "line {close}");
            assert_eq!(
                lines[close + 1],
                "</details>",
                "the block closed early: line {close}"
            );
            index = close + 1;
            continue;
        }
        if line.starts_with('|') {
            let header = cells(line);
            assert!(lines[index + 1].starts_with("|---"), "{line:?}");
            assert_eq!(cells(lines[index + 1]), header);
            let mut row = index + 2;
            while row < lines.len() && lines[row].starts_with('|') {
                assert_eq!(
                    cells(lines[row]),
                    header,
                    "row {row} of the table at line {index}: {:?}",
                    lines[row]
                );
                assert!(lines[row].ends_with(" |"), "{:?}", lines[row]);
                row += 1;
            }
            tables += 1;
            index = row;
            continue;
        }
        assert_code_spans_close(line);
        index += 1;
    }
    assert!(
        tables >= 3,
        "the fix and view tables are there:\n{markdown}"
    );
}

fn assert_code_spans_close(line: &str) {
    let bytes = line.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 2,
            b'`' => {
                let run = bytes[index..]
                    .iter()
                    .take_while(|&&byte| byte == b'`')
                    .count();
                let fence = "`".repeat(run);
                let rest = &line[index + run..];
                let mut search = 0;
                let close = loop {
                    let Some(found) = rest[search..].find(&fence) else {
                        panic!("an unclosed code span in {line:?}");
                    };
                    let at = search + found;
                    let longer = rest[at + run..].starts_with('`')
                        || (at > 0 && rest.as_bytes()[at - 1] == b'`');
                    if !longer {
                        break at;
                    }
                    search = at + rest[at..].bytes().take_while(|&byte| byte == b'`').count();
                };
                index += run + close + run;
            }
            _ => index += 1,
        }
    }
}

#[tokio::test]
async fn hostile_values_reach_the_terminal_inert() {
    let report = hostile_report().await;
    let text = report.to_text();
    assert_inert(&text);
    // the values are still shown, escaped
    assert!(text.contains("\\027[31mred"), "{text}");
    assert!(text.contains("TXT \"\\027[31mred"), "{text}");
}

#[tokio::test]
async fn hostile_values_keep_the_markdown_intact() {
    let report = hostile_report().await;
    let markdown = report.to_markdown();
    assert_inert(&markdown);
    assert_markdown_structure(&markdown);
    // the TXT beside the CNAME is named to keep (not removed behind the customer's back),
    // escaped in its cell
    assert!(
        markdown.contains(
            "| keep | example.com | txt | TXT | ```\"\\027[31mred\\027[0m\\013\\010ERROR forged line \\| cell \\| `tick` ``two``\\u{202e}\"``` |"
        ),
        "{markdown}"
    );
}

/// Keys whose strings are enums or dates, and the CAA verdict the renderers do not print.
const NOT_TEXT: [&str; 8] = [
    "code",
    "record_name",
    "severity",
    "status",
    "kind",
    "action",
    "generated_at",
    "decision",
];

/// Puts the hostile text in front of every string of the report that is free text.
fn poison(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => text.insert_str(0, HOSTILE),
        serde_json::Value::Array(items) => items.iter_mut().for_each(poison),
        serde_json::Value::Object(fields) => fields
            .iter_mut()
            .filter(|(key, _)| !NOT_TEXT.contains(&key.as_str()))
            .for_each(|(_, field)| poison(field)),
        _ => {}
    }
}

/// Every text field of a report, not only those the test zones fill: a field a renderer
/// forgets to escape shows up here.
#[tokio::test]
async fn every_text_field_of_a_report_is_rendered_inert() {
    let mut json = serde_json::to_value(hostile_report().await).unwrap();
    json["hosts"][0]["tls"] = serde_json::json!({
        "address": "192.0.2.1:443",
        "connected": true,
        "error": "handshake",
        "certificate": {
            "subject": "CN=www.example.com",
            "issuer": "CN=Issuer",
            "names": ["www.example.com", "*.example.com"],
            "not_before": null,
            "not_after": null,
            "covers_hostname": true,
            "trusted": false,
            "trust_error": "unknown issuer"
        },
        "http_status": 301,
        "location": "https://example.com/"
    });
    poison(&mut json);
    let report: Report = serde_json::from_value(json).unwrap();
    assert_inert(&report.to_text());
    let markdown = report.to_markdown();
    assert_inert(&markdown);
    assert_markdown_structure(&markdown);
    assert!(markdown.contains("### TLS at the edge"), "{markdown}");
    assert!(markdown.contains("- DNS provider: "), "{markdown}");
    assert!(
        markdown.contains("At Cloudflare"),
        "the provider's steps are there:\n{markdown}"
    );
}
