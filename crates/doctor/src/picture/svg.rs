//! The picture as a self-contained SVG: no script, no external font or image, every text
//! escaped for XML after [`terminal`] has made its control characters visible (XML 1.0
//! cannot carry most of them even as references).
//!
//! Colours are presentation attributes of the theme asked for; [`Theme::System`] adds a
//! `<style>` that switches to the dark set under `prefers-color-scheme: dark`. Every element
//! also carries a class (`ddp-node ddp-wrong`, `ddp-edge ddp-stale` …), so a page that shows
//! the SVG inline — the app's window, whose CSP allows no `<style>` inside — colours it from
//! its own stylesheet. A verdict is never told by colour alone: each node says it with a
//! symbol and words, each edge with its dash pattern, and the legend names both.

use std::fmt::Write;

use chrono::SecondsFormat;

use super::graph::{Graph, Verdict, graph};
use super::layout::{
    self, BOLD, HEADING_SIZE, LEGEND_HEIGHT, MARGIN, NODE_PADDING, PADDING, TITLE_LINE, TITLE_SIZE,
    TOP, WORDS_LINE, WORDS_SIZE, fit_end, text_width,
};
use crate::escape::terminal;
use crate::report::HostReport;

/// Which colours the SVG draws with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    Light,
    Dark,
    /// The light set, and the dark one when the reader's system asks for it.
    #[default]
    System,
}

/// One colour set.
struct Palette {
    background: &'static str,
    surface: &'static str,
    text: &'static str,
    muted: &'static str,
    rule: &'static str,
    right: &'static str,
    wrong: &'static str,
    stale: &'static str,
    lame: &'static str,
    neutral: &'static str,
}

// The app's own colours (ui/styles.css), which keep 4.5:1 on their backgrounds.
const LIGHT: Palette = Palette {
    background: "#f6f7f9",
    surface: "#ffffff",
    text: "#1d2129",
    muted: "#5b6472",
    rule: "#d8dde6",
    right: "#17722f",
    wrong: "#c4271d",
    stale: "#8a5c00",
    lame: "#a3420b",
    neutral: "#5b6472",
};

const DARK: Palette = Palette {
    background: "#121418",
    surface: "#1a1d23",
    text: "#e8eaef",
    muted: "#9aa3b2",
    rule: "#2e333d",
    right: "#4ac26b",
    wrong: "#ff7b72",
    stale: "#d29922",
    lame: "#f0883e",
    neutral: "#9aa3b2",
};

impl Palette {
    fn of(&self, verdict: Verdict) -> &'static str {
        match verdict {
            Verdict::Right => self.right,
            Verdict::Wrong => self.wrong,
            Verdict::Stale(_) => self.stale,
            Verdict::Lame => self.lame,
            Verdict::Neutral => self.neutral,
        }
    }
}

const VERDICTS: [Verdict; 5] = [
    Verdict::Right,
    Verdict::Wrong,
    Verdict::Stale(chrono::DateTime::<chrono::Utc>::MIN_UTC),
    Verdict::Lame,
    Verdict::Neutral,
];

/// The dash pattern that tells an edge's verdict without colour.
fn dashes(verdict: Verdict) -> Option<&'static str> {
    match verdict {
        Verdict::Right | Verdict::Neutral => None,
        Verdict::Wrong => Some("7 4"),
        Verdict::Stale(_) => Some("2 4"),
        Verdict::Lame => Some("9 3 2 3"),
    }
}

/// `text` for XML: control characters made visible first, then `& < > " '` escaped.
fn xml(text: &str) -> String {
    let visible = terminal(text);
    let mut out = String::with_capacity(visible.len());
    for character in visible.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// The rules that switch to the dark colours, by the classes every element carries.
fn dark_rules(palette: &Palette) -> String {
    let mut css = format!(
        ".ddp-bg{{fill:{}}}.ddp-box{{fill:{}}}.ddp-text{{fill:{}}}.ddp-muted{{fill:{}}}.ddp-rule{{stroke:{}}}",
        palette.background, palette.surface, palette.text, palette.muted, palette.rule
    );
    for verdict in VERDICTS {
        let class = verdict.class();
        let colour = palette.of(verdict);
        let _ = write!(
            css,
            ".ddp-node.ddp-{class} .ddp-box,.ddp-edge.ddp-{class},.ddp-key.ddp-{class} line{{stroke:{colour}}}\
             .ddp-node.ddp-{class} .ddp-words,.ddp-arrow.ddp-{class},.ddp-key.ddp-{class} text{{fill:{colour}}}"
        );
    }
    css
}

/// The host's path as an SVG that reads at 900×600: laid out [`layout::WIDTH`] wide, text
/// at 12 px and more, long names shortened with the whole name in a `<title>`.
pub fn to_svg(host: &HostReport, theme: Theme) -> String {
    let graph = graph(host);
    let laid = layout::layout(&graph);
    let palette = match theme {
        Theme::Dark => &DARK,
        Theme::Light | Theme::System => &LIGHT,
    };
    let mut out = String::new();
    let (width, height) = (laid.width, laid.height);
    // Writing to a String cannot fail; the results are ignored for that reason.
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ddp\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" aria-labelledby=\"ddp-title ddp-desc\" \
         font-family=\"DejaVu Sans, Verdana, system-ui, sans-serif\">"
    );
    let _ = write!(
        out,
        "<title id=\"ddp-title\">The path a lookup of {} takes</title><desc id=\"ddp-desc\">{}</desc>",
        xml(&host.hostname),
        super::text::to_text_diagram(host)
            .lines()
            .map(xml)
            .collect::<Vec<_>>()
            .join("\n")
    );
    if theme == Theme::System {
        let _ = write!(
            out,
            "<style>@media (prefers-color-scheme: dark){{{}}}</style>",
            dark_rules(&DARK)
        );
    }
    out.push_str("<defs>");
    for verdict in VERDICTS {
        let class = verdict.class();
        let _ = write!(
            out,
            "<marker id=\"ddp-arrow-{class}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
             markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path class=\"ddp-arrow ddp-{class}\" \
             d=\"M0 0L10 5L0 10z\" fill=\"{}\"/></marker>",
            palette.of(verdict)
        );
    }
    out.push_str("</defs>");
    let _ = write!(
        out,
        "<rect class=\"ddp-bg\" width=\"{width}\" height=\"{height}\" fill=\"{}\"/>",
        palette.background
    );
    let _ = write!(
        out,
        "<text class=\"ddp-text\" x=\"{MARGIN}\" y=\"{}\" font-size=\"{HEADING_SIZE}\" font-weight=\"bold\" fill=\"{}\">{}</text>",
        MARGIN + HEADING_SIZE,
        palette.text,
        xml(&fit_end(
            &format!("The path a lookup of {} takes", host.hostname),
            width - 2.0 * MARGIN,
            HEADING_SIZE * BOLD
        ))
    );
    for column in &laid.columns {
        let _ = write!(
            out,
            "<text class=\"ddp-muted\" x=\"{}\" y=\"{}\" font-size=\"{WORDS_SIZE}\" fill=\"{}\">{}</text>",
            column.x,
            TOP - 10.0,
            palette.muted,
            xml(&fit_end(column.layer.heading(), column.width, WORDS_SIZE))
        );
    }
    draw_edges(&mut out, &graph, &laid, palette);
    draw_nodes(&mut out, &graph, &laid, palette);
    draw_legend(&mut out, height - MARGIN - LEGEND_HEIGHT / 2.0, palette);
    out.push_str("</svg>");
    out
}

fn draw_edges(out: &mut String, graph: &Graph, laid: &layout::Layout, palette: &Palette) {
    out.push_str("<g class=\"ddp-edges\" fill=\"none\" stroke-width=\"1.6\">");
    for edge in &graph.edges {
        let (from, to) = (&laid.places[edge.from], &laid.places[edge.to]);
        let (x1, y1) = (from.x + from.width, from.y + from.height / 2.0);
        let (x2, y2) = (to.x - 1.0, to.y + to.height / 2.0);
        let bend = ((x2 - x1) / 2.0).max(12.0).round();
        let class = edge.verdict.class();
        let _ = write!(
            out,
            "<path class=\"ddp-edge ddp-{class}\" d=\"M{x1} {y1}C{} {y1} {} {y2} {x2} {y2}\" stroke=\"{}\"{} marker-end=\"url(#ddp-arrow-{class})\"><title>{} → {}: {}</title></path>",
            x1 + bend,
            x2 - bend,
            palette.of(edge.verdict),
            dashes(edge.verdict)
                .map(|pattern| format!(" stroke-dasharray=\"{pattern}\""))
                .unwrap_or_default(),
            xml(&graph.nodes[edge.from].title),
            xml(&graph.nodes[edge.to].title),
            verdict_word(edge.verdict)
        );
    }
    out.push_str("</g>");
}

fn draw_nodes(out: &mut String, graph: &Graph, laid: &layout::Layout, palette: &Palette) {
    out.push_str("<g class=\"ddp-nodes\">");
    for (node, place) in graph.nodes.iter().zip(&laid.places) {
        let class = node.verdict.class();
        let colour = palette.of(node.verdict);
        let until = match node.verdict {
            Verdict::Stale(until) => format!(
                " data-until=\"{}\"",
                until.to_rfc3339_opts(SecondsFormat::Secs, true)
            ),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "<g class=\"ddp-node ddp-{class}\" data-verdict=\"{class}\"{until}><title>{}</title>\
             <rect class=\"ddp-box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"{}\" stroke=\"{colour}\" stroke-width=\"{}\"/>",
            node.tooltip
                .iter()
                .map(|line| xml(line))
                .collect::<Vec<_>>()
                .join("\n"),
            place.x,
            place.y,
            place.width,
            place.height,
            palette.surface,
            if node.verdict == Verdict::Neutral {
                1
            } else {
                2
            },
        );
        let x = place.x + PADDING;
        let mut top = place.y + NODE_PADDING;
        for line in &place.title {
            let _ = write!(
                out,
                "<text class=\"ddp-text\" x=\"{x}\" y=\"{}\" font-size=\"{TITLE_SIZE}\" fill=\"{}\">{}</text>",
                top + 12.5,
                palette.text,
                xml(line)
            );
            top += TITLE_LINE;
        }
        if !place.words.is_empty() {
            let _ = write!(
                out,
                "<text class=\"ddp-words\" x=\"{x}\" y=\"{}\" font-size=\"{WORDS_SIZE}\" fill=\"{colour}\">",
                top + 11.5
            );
            for (index, line) in place.words.iter().enumerate() {
                if index == 0 {
                    out.push_str(&xml(line));
                } else {
                    let _ = write!(
                        out,
                        "<tspan x=\"{x}\" dy=\"{WORDS_LINE}\">{}</tspan>",
                        xml(line)
                    );
                }
            }
            out.push_str("</text>");
        }
        out.push_str("</g>");
    }
    out.push_str("</g>");
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Right => "right",
        Verdict::Wrong => "wrong",
        Verdict::Stale(_) => "stale (a cache holds an old answer)",
        Verdict::Lame => "lame (does not serve the zone)",
        Verdict::Neutral => "on the way",
    }
}

/// What the symbols, colours and dashes mean, in one row.
fn draw_legend(out: &mut String, y: f64, palette: &Palette) {
    out.push_str("<g class=\"ddp-legend\">");
    let mut x = MARGIN;
    for (verdict, words) in [
        (Verdict::Right, "✓ right"),
        (Verdict::Wrong, "✗ wrong"),
        (VERDICTS[2], "◷ stale: a cache holds an old answer"),
        (Verdict::Lame, "✗ lame: does not serve the zone"),
    ] {
        let class = verdict.class();
        let colour = palette.of(verdict);
        let _ = write!(
            out,
            "<g class=\"ddp-key ddp-{class}\"><line x1=\"{x}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"2\"{}/>\
             <text x=\"{}\" y=\"{}\" font-size=\"{WORDS_SIZE}\" fill=\"{colour}\">{}</text></g>",
            y,
            x + 24.0,
            y,
            dashes(verdict)
                .map(|pattern| format!(" stroke-dasharray=\"{pattern}\""))
                .unwrap_or_default(),
            x + 30.0,
            y + 4.0,
            xml(words)
        );
        x += (30.0 + text_width(words, WORDS_SIZE) + 18.0).round();
    }
    out.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;

    /// A small well-formedness check: every tag closes in order, attributes are quoted, and
    /// no `<` or `&` stands raw in text (an unescaped name would break one of these).
    fn assert_well_formed(svg: &str) {
        let mut open: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            assert_text(&rest[..start]);
            let end = rest[start..].find('>').expect("a tag closes") + start;
            let tag = &rest[start + 1..end];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop().as_deref(), Some(name), "{svg}");
            } else {
                let self_closing = tag.ends_with('/');
                let tag = tag.trim_end_matches('/');
                let name = tag.split_whitespace().next().expect("a tag name");
                assert!(
                    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                    "{name}"
                );
                assert_attributes(&tag[name.len()..]);
                if !self_closing {
                    open.push(name.to_owned());
                }
            }
            rest = &rest[end + 1..];
        }
        assert_text(rest);
        assert!(open.is_empty(), "unclosed: {open:?}");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    }

    fn assert_text(text: &str) {
        assert!(!text.contains('>'), "a raw > in {text:?}");
        let mut rest = text;
        while let Some(at) = rest.find('&') {
            let entity = &rest[at..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|known| entity.starts_with(known)),
                "a raw & in {text:?}"
            );
            rest = &rest[at + 1..];
        }
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "a control character in {text:?}"
        );
    }

    fn assert_attributes(attributes: &str) {
        let mut rest = attributes.trim();
        while !rest.is_empty() {
            let (name, after) = rest.split_once("=\"").expect("name=\"value\"");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'),
                "{name:?}"
            );
            let (value, after) = after.split_once('"').expect("a closing quote");
            assert_text(value);
            assert!(!value.contains('<'));
            rest = after.trim_start();
        }
    }

    #[test]
    fn the_svg_is_well_formed_in_every_theme() {
        for theme in [Theme::Light, Theme::Dark, Theme::System] {
            for host in [half_moved(), misspelt_target()] {
                let svg = to_svg(&host, theme);
                assert_well_formed(&svg);
                assert!(svg.contains("viewBox=\"0 0 780 "), "{svg}");
            }
        }
        let system = to_svg(&half_moved(), Theme::System);
        assert!(system.contains("@media (prefers-color-scheme: dark)"));
        assert!(!to_svg(&half_moved(), Theme::Light).contains("<style>"));
        assert!(to_svg(&half_moved(), Theme::Dark).contains("fill=\"#121418\""));
    }

    #[test]
    fn hostile_names_are_escaped() {
        let mut host = misspelt_target();
        host.hostname = "<script>alert(1)</script>.example.com".to_owned();
        host.views[1].source.label = "\"onload=\"x & <b>\u{1b}[2J".to_owned();
        if let Some(chain) = host.views[1].chain.as_mut() {
            chain.links[0].target = "<script>".to_owned();
            chain.end = crate::report::ChainEnd::NoSuchName {
                name: "<script>".to_owned(),
            };
        }
        let svg = to_svg(&host, Theme::System);
        assert_well_formed(&svg);
        assert!(svg.contains("&lt;script&gt;"), "{svg}");
        assert!(!svg.contains("<script"), "{svg}");
        assert!(!svg.contains("<b>"));
        assert!(
            svg.contains("&quot;onload=&quot;x &amp; &lt;b&gt;\\027[2J"),
            "{svg}"
        );
    }

    #[test]
    fn a_lame_server_is_drawn_lame_and_a_cache_stale_until_its_time() {
        let svg = to_svg(&half_moved(), Theme::Light);
        let nodes = &svg[svg.find("<g class=\"ddp-nodes\">").unwrap()..];
        let node = |title: &str| -> &str {
            let at = nodes
                .find(&format!("<title>{title}"))
                .unwrap_or_else(|| panic!("{title} in {svg}"));
            let start = nodes[..at].rfind("<g class=\"ddp-node").unwrap();
            let end = nodes[at..].find("</g>").unwrap() + at;
            &nodes[start..end]
        };
        let lame = node("ns2.other.net");
        assert!(lame.contains("ddp-node ddp-lame"), "{lame}");
        assert!(lame.contains(">✗ lame: REFUSED<"), "{lame}");
        let stale = node("Google 8.8.8.8");
        assert!(stale.contains("ddp-node ddp-stale"), "{stale}");
        assert!(
            stale.contains("data-until=\"2026-11-26T12:45:00Z\"")
                && stale.contains(">◷ stale until")
                && stale.contains("12:45\u{a0}UTC<"),
            "{stale}"
        );
        let right = node("ns1.example.com: serves");
        assert!(right.contains("✓ serves, serial 7"), "{right}");
        // the edges say it without colour too
        assert!(svg.contains("class=\"ddp-edge ddp-lame\""));
        assert!(svg.contains("stroke-dasharray=\"9 3 2 3\""));
    }

    #[test]
    fn no_such_name_sits_on_the_target_node() {
        let svg = to_svg(&misspelt_target(), Theme::Light);
        let nodes = &svg[svg.find("<g class=\"ddp-nodes\">").unwrap()..];
        let missing: Vec<&str> = nodes
            .split("<g class=\"ddp-node ")
            .filter(|node| {
                node.split("class=\"ddp-words\"")
                    .nth(1)
                    .is_some_and(|words| words.contains("no such name"))
            })
            .collect();
        // one node, the target's, reached by both servers
        assert_eq!(missing.len(), 1, "{svg}");
        assert!(
            missing[0].contains("<title>cname.pages.exmaple.net\n"),
            "{}",
            missing[0]
        );
        assert!(missing[0].contains("✗ no such name"), "{}", missing[0]);
        assert!(missing[0].starts_with("ddp-wrong"), "{}", missing[0]);
    }

    #[test]
    fn long_names_are_shortened_with_the_whole_name_in_the_title() {
        let mut host = half_moved();
        let long = "a-very-long-label-for-a-nameserver.of-a-provider-with-a-long-name.example.net";
        host.delegation.as_mut().unwrap().nameservers[1].name = long.to_owned();
        let svg = to_svg(&host, Theme::Light);
        assert_well_formed(&svg);
        assert!(svg.contains(&format!("<title>{long}: lame")), "{svg}");
        assert!(svg.contains('…'));
        // every font is 12 px or more
        for (at, _) in svg.match_indices("font-size=\"") {
            let size: f64 = svg[at + 11..].split('"').next().unwrap().parse().unwrap();
            assert!(size >= 12.0);
        }
    }
}
