//! Names, record values, certificate fields and error messages come from the network and are
//! untrusted text. Printed raw, a TXT record holding `ESC[2J` clears the reader's terminal, a
//! `\r` or `\n` forges a line of the report, and a `|` or a backtick breaks a Markdown table or
//! code span and lets the rest of the value be read as markup. Every renderer passes each
//! value through one of these functions, and never a value the doctor did not write itself.
//!
//! Control characters are shown in the DNS presentation form (`\027` for ESC, RFC 1035
//! section 5.1), Unicode controls and bidirectional overrides as `\u{202e}`: visible, and
//! inert in any terminal or Markdown renderer.

use std::fmt::Write;

/// True for characters that must never reach a terminal or a document raw: C0 and C1 controls,
/// DEL, the line and paragraph separators, and the bidirectional controls that reorder what
/// is shown ("Trojan Source").
fn is_hazard(character: char) -> bool {
    character.is_control()
        || matches!(
            character,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn push_visible(out: &mut String, character: char) {
    // Writing to a String cannot fail.
    if character.is_ascii() {
        let _ = write!(out, "\\{:03}", u32::from(character));
    } else {
        let _ = write!(out, "\\u{{{:x}}}", u32::from(character));
    }
}

/// `text` for a terminal, on one line: control characters shown as escapes.
pub fn terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        if is_hazard(character) {
            push_visible(&mut out, character);
        } else {
            out.push(character);
        }
    }
    out
}

/// `text` as Markdown prose (a heading, a list item, a paragraph or a table cell) that shows
/// exactly `text`: control characters shown as escapes, and every character Markdown gives
/// meaning to (emphasis, code, links, HTML, table pipes) backslash-escaped.
pub fn markdown(text: &str) -> String {
    let text = terminal(text);
    let mut out = String::with_capacity(text.len() + 8);
    for (index, character) in text.char_indices() {
        let block_marker = index == 0
            && (matches!(character, '-' | '+' | '=')
                || (character.is_ascii_digit() && starts_ordered_list(&text)));
        if block_marker
            || matches!(
                character,
                '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' | '&' | '!'
            )
        {
            out.push('\\');
        }
        out.push(character);
    }
    out
}

/// True when `text` starts like an ordered list item (`1. ` or `1) `).
fn starts_ordered_list(text: &str) -> bool {
    let rest = text.trim_start_matches(|character: char| character.is_ascii_digit());
    rest.starts_with(". ") || rest.starts_with(") ") || rest == "." || rest == ")"
}

/// `text` as an inline code span outside a table, backticks included: the fence is longer
/// than any run of backticks inside.
pub fn code(text: &str) -> String {
    code_span(&terminal(text))
}

/// `text` as an inline code span in a table cell: as [`code`], with `|` escaped (GitHub
/// Flavored Markdown splits cells before it reads code spans, and restores `\|` to `|`).
pub fn code_cell(text: &str) -> String {
    code_span(&terminal(text).replace('|', "\\|"))
}

fn code_span(text: &str) -> String {
    let fence = "`".repeat(longest_backtick_run(text) + 1);
    // A space on each side is stripped by the renderer; it keeps a backtick at either end
    // from joining the fence.
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The fence of a fenced code block holding `content`: backticks, at least three, more than
/// the longest run inside, so no line of the content can close the block.
pub fn code_fence(content: &str) -> String {
    "`".repeat((longest_backtick_run(content) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|character| character != '`')
        .map(str::len)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "\u{1b}[31mred\r\nERROR forged | `tick` \u{202e}\u{9b}2J\u{7f}";

    #[test]
    fn terminal_output_has_no_control_characters() {
        let shown = terminal(HOSTILE);
        assert!(!shown.chars().any(is_hazard), "{shown:?}");
        assert_eq!(
            shown,
            "\\027[31mred\\013\\010ERROR forged | `tick` \\u{202e}\\u{9b}2J\\127"
        );
    }

    #[test]
    fn markdown_prose_escapes_markup() {
        assert_eq!(
            markdown("a|b `c` *d* _e_ [f](g) <h> # & \\"),
            "a\\|b \\`c\\` \\*d\\* \\_e\\_ \\[f\\](g) \\<h\\> \\# \\& \\\\"
        );
        assert_eq!(markdown("- item"), "\\- item");
        assert_eq!(markdown("12. item"), "\\12. item");
        assert_eq!(markdown("12.example.com"), "12.example.com");
        assert_eq!(markdown("www.example.com"), "www.example.com");
        assert!(!markdown(HOSTILE).chars().any(is_hazard));
    }

    #[test]
    fn code_spans_outlast_the_backticks_inside() {
        assert_eq!(code("plain"), "`plain`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a``"), "``` `a`` ```");
        assert_eq!(code_cell("a|b"), "`a\\|b`");
        assert_eq!(code("a|b"), "`a|b`");
        assert_eq!(code_fence("x\n````\n"), "`````");
        assert_eq!(code_fence("x"), "```");
    }
}
