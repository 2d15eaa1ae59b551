//! Our own layered layout: one column per layer (registry, nameservers, answers, the chain's
//! names, addresses with TLS at each), left to right, and in each column the nodes in rows,
//! each placed level with the nodes that lead to it where there is room (a chain reads as a
//! straight line), never overlapping. Columns are as wide as their longest text, and all of them
//! narrower, the widest first, when the picture would not fit its width; a text then breaks
//! onto a second line (a name after a dot or a hyphen, never inside a label), and what still
//! does not fit is shortened in the middle (the full text is in the node's `<title>`).
//!
//! Text widths are computed from DejaVu Sans's advance widths (the font the SVG names
//! first; Verdana, its fallback, has nearly the same), not measured: there is no font here.

use super::graph::{Graph, Layer};

/// Font sizes, in SVG user units (pixels at 1:1).
pub const TITLE_SIZE: f64 = 13.0;
pub const WORDS_SIZE: f64 = 12.0;
pub const HEADING_SIZE: f64 = 15.0;
/// DejaVu Sans's advance width of each printable ASCII character (space to `~`), in its
/// units of 1/2048 em, read from the font's `hmtx` table.
const ASCII_WIDTHS: [u16; 95] = [
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087, 2048,
    1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235,
    1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024, 1024,
    1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253, 1300,
    1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
];
const UNITS_PER_EM: f64 = 2048.0;
/// Any other character: the symbols the picture uses (✓ ✗ ◷ →) are 0.84–0.87 em, `…` 1 em;
/// a letter of another script is rarely wider.
const OTHER_WIDTH: f64 = 1.0;
/// Bold text (the heading) is this much wider.
pub const BOLD: f64 = 1.1;

fn character_width(character: char) -> f64 {
    let code = u32::from(character);
    if (32..127).contains(&code) {
        f64::from(ASCII_WIDTHS[(code - 32) as usize]) / UNITS_PER_EM
    } else {
        OTHER_WIDTH
    }
}

/// The height of a line of a node's title, and of its verdict.
pub const TITLE_LINE: f64 = 16.0;
pub const WORDS_LINE: f64 = 15.0;
/// Above the first line and below the last, inside a node.
pub const NODE_PADDING: f64 = 6.0;
/// The most lines a title, or a verdict, is broken into.
const MAX_LINES: usize = 2;
const ROW_GAP: f64 = 10.0;
const COLUMN_GAP: f64 = 24.0;
pub const MARGIN: f64 = 12.0;
pub const PADDING: f64 = 8.0;
/// The picture's heading and the columns' headings above the first row.
pub const TOP: f64 = 62.0;
/// The legend below the last row.
pub const LEGEND_HEIGHT: f64 = 30.0;
const MIN_COLUMN: f64 = 84.0;
const MAX_COLUMN: f64 = 240.0;
/// The width the picture is laid out for: it fits the Diagnose panel at the smallest window
/// (900×600) without being scaled down, so its 12 px text stays 12 px.
pub const WIDTH: f64 = 780.0;

#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// The title, broken after dots, hyphens and spaces into lines that fit.
    pub title: Vec<String>,
    /// The verdict's symbol and words, broken at spaces.
    pub words: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub layer: Layer,
    pub x: f64,
    pub width: f64,
}

#[derive(Debug, Clone)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub columns: Vec<Column>,
    /// One per node of the graph, in its order.
    pub places: Vec<Place>,
}

/// The width `text` takes at `size`.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().map(character_width).sum::<f64>() * size
}

/// `text` shortened in the middle to fit `width` at `size` (the ends of a name are what tell
/// names apart: `cname.pa…exmaple.net`).
pub fn fit_middle(text: &str, width: f64, size: f64) -> String {
    if text_width(text, size) <= width {
        return text.to_owned();
    }
    let characters: Vec<char> = text.chars().collect();
    let room = width / size - OTHER_WIDTH;
    // Take from each end in turn while the two halves fit.
    let (mut head, mut tail, mut used) = (0, 0, 0.0);
    while head + tail < characters.len() {
        let (next, from_head) = if tail <= head {
            (characters[characters.len() - 1 - tail], false)
        } else {
            (characters[head], true)
        };
        let width = character_width(next);
        if used + width > room {
            break;
        }
        used += width;
        if from_head {
            head += 1;
        } else {
            tail += 1;
        }
    }
    let start: String = characters[..head].iter().collect();
    let end: String = characters[characters.len() - tail..].iter().collect();
    format!("{start}…{end}")
}

/// `text` shortened at its end to fit `width` at `size`.
pub fn fit_end(text: &str, width: f64, size: f64) -> String {
    if text_width(text, size) <= width {
        return text.to_owned();
    }
    let room = width / size - OTHER_WIDTH;
    let mut used = 0.0;
    let start: String = text
        .chars()
        .take_while(|character| {
            used += character_width(*character);
            used <= room
        })
        .collect();
    format!("{start}…")
}

/// The widest cap under which the columns fit `room`: each column is its natural width or
/// the cap, whichever is narrower (never below the least a column may be).
fn cap_to_fit(natural: &[f64], room: f64) -> f64 {
    let total = |cap: f64| -> f64 { natural.iter().map(|width| width.min(cap)).sum() };
    if total(MAX_COLUMN) <= room {
        return MAX_COLUMN;
    }
    let (mut low, mut high) = (MIN_COLUMN, MAX_COLUMN);
    for _ in 0..40 {
        let middle = (low + high) / 2.0;
        if total(middle) <= room {
            low = middle;
        } else {
            high = middle;
        }
    }
    low
}

/// `text` in at most [`MAX_LINES`] lines of `width` at `size`, broken after any of `breaks`
/// (a name after its dots and hyphens, never inside a label, where it can be); what still
/// does not fit is shortened on the last line, in the middle for a name, at the end for words.
pub fn wrap(text: &str, width: f64, size: f64, breaks: &[char], middle: bool) -> Vec<String> {
    if text_width(text, size) <= width {
        return vec![text.to_owned()];
    }
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    for character in text.chars() {
        piece.push(character);
        if breaks.contains(&character) {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    let mut lines = Vec::new();
    let mut rest = pieces.as_slice();
    while lines.len() + 1 < MAX_LINES && !rest.is_empty() {
        let mut line = String::new();
        let mut taken = 0;
        for piece in rest {
            let candidate = format!("{line}{piece}");
            if text_width(candidate.trim_end(), size) > width {
                break;
            }
            line = candidate;
            taken += 1;
        }
        if taken == 0 {
            // Not even one piece fits: the line takes what fits of it, character by character.
            let mut used = 0.0;
            let head: String = rest[0]
                .chars()
                .take_while(|character| {
                    used += character_width(*character) * size;
                    used <= width
                })
                .collect();
            let tail: String = rest[0].chars().skip(head.chars().count()).collect();
            lines.push(head);
            let mut remaining: Vec<String> = vec![tail];
            remaining.extend(rest[1..].iter().cloned());
            let last = remaining.concat();
            lines.push(shorten(last.trim_end(), width, size, middle));
            return lines;
        }
        lines.push(line.trim_end().to_owned());
        rest = &rest[taken..];
    }
    if !rest.is_empty() {
        let last = rest.concat();
        lines.push(shorten(last.trim(), width, size, middle));
    }
    lines
}

fn shorten(text: &str, width: f64, size: f64, middle: bool) -> String {
    if middle {
        fit_middle(text, width, size)
    } else {
        fit_end(text, width, size)
    }
}

/// The title's and the verdict's lines for a node `width` wide.
fn lines_of(node: &super::graph::Node, width: f64) -> (Vec<String>, Vec<String>) {
    let room = width - 2.0 * PADDING;
    // A label breaks at its spaces ("system resolver" / "127.0.0.53"); a name, or a label
    // that does not fit so, after its dots and hyphens as well.
    let at_spaces = wrap(&node.title, room, TITLE_SIZE, &[' '], true);
    let whole = at_spaces.join(" ") == node.title
        && at_spaces
            .iter()
            .all(|line| text_width(line, TITLE_SIZE) <= room);
    let title = if whole {
        at_spaces
    } else {
        wrap(&node.title, room, TITLE_SIZE, &['.', '-', ' '], true)
    };
    // A time stays on one line with its zone ("12:45 UTC").
    let line = node.verdict_line().replace(" UTC", "\u{a0}UTC");
    let words = if line.is_empty() {
        Vec::new()
    } else {
        wrap(&line, room, WORDS_SIZE, &[' '], false)
    };
    (title, words)
}

/// The height of a node with these lines.
pub fn height_of(title: usize, words: usize) -> f64 {
    2.0 * NODE_PADDING + title as f64 * TITLE_LINE + words as f64 * WORDS_LINE
}

pub fn layout(graph: &Graph) -> Layout {
    let mut layers: Vec<Layer> = graph.nodes.iter().map(|node| node.layer).collect();
    layers.sort();
    layers.dedup();
    let column_of = |layer: Layer| layers.binary_search(&layer).unwrap_or(0);

    let natural: Vec<f64> = layers
        .iter()
        .map(|layer| {
            let widest = graph
                .nodes
                .iter()
                .filter(|node| node.layer == *layer)
                .map(|node| {
                    text_width(&node.title, TITLE_SIZE)
                        .max(text_width(&node.verdict_line(), WORDS_SIZE))
                })
                .fold(text_width(layer.heading(), WORDS_SIZE), f64::max);
            (widest + 2.0 * PADDING).clamp(MIN_COLUMN, MAX_COLUMN)
        })
        .collect();
    let gaps = COLUMN_GAP * layers.len().saturating_sub(1) as f64;
    // A pixel a column kept for rounding its width up.
    let room = WIDTH - 2.0 * MARGIN - gaps - layers.len() as f64;
    let cap = cap_to_fit(&natural, room);
    let mut columns = Vec::with_capacity(layers.len());
    let mut x = MARGIN;
    for (layer, width) in layers.iter().zip(&natural) {
        // Whole pixels, rounded up: a text measured to fit still fits.
        let width = width.min(cap).max(MIN_COLUMN).ceil();
        columns.push(Column {
            layer: *layer,
            x,
            width,
        });
        x += width + COLUMN_GAP;
    }
    let width = (x - COLUMN_GAP + MARGIN).max(WIDTH);

    let mut places: Vec<Place> = graph
        .nodes
        .iter()
        .map(|node| {
            let column = &columns[column_of(node.layer)];
            let (title, words) = lines_of(node, column.width);
            Place {
                x: column.x,
                y: TOP,
                width: column.width,
                height: height_of(title.len(), words.len()),
                title,
                words,
            }
        })
        .collect();

    // Rows: column by column, each node level with the mean of what leads to it.
    let mut placed = vec![false; graph.nodes.len()];
    let by_column = |column: usize| -> Vec<usize> {
        (0..graph.nodes.len())
            .filter(|&node| column_of(graph.nodes[node].layer) == column)
            .collect()
    };
    for column in 0..layers.len() {
        let wanted: Vec<(usize, Option<f64>)> = by_column(column)
            .into_iter()
            .map(|node| {
                let from: Vec<f64> = graph
                    .edges
                    .iter()
                    .filter(|edge| edge.to == node && placed[edge.from])
                    .map(|edge| places[edge.from].y + places[edge.from].height / 2.0)
                    .collect();
                (node, mean(&from))
            })
            .collect();
        place_column(&wanted, &mut places);
        for (node, _) in wanted {
            placed[node] = true;
        }
    }
    // The registry level with the nameservers it leads to.
    if layers.first() == Some(&Layer::Registry) {
        let wanted: Vec<(usize, Option<f64>)> = by_column(0)
            .into_iter()
            .map(|node| {
                let to: Vec<f64> = graph
                    .edges
                    .iter()
                    .filter(|edge| edge.from == node)
                    .map(|edge| places[edge.to].y + places[edge.to].height / 2.0)
                    .collect();
                (node, mean(&to))
            })
            .collect();
        place_column(&wanted, &mut places);
    }
    let bottom = places
        .iter()
        .map(|place| place.y + place.height)
        .fold(TOP, f64::max);
    Layout {
        width,
        height: bottom + ROW_GAP + LEGEND_HEIGHT + MARGIN,
        columns,
        places,
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Places one column's nodes: those with a wanted centre in its order, as close to it as
/// the rows above allow, then those without one below them, in the graph's order.
fn place_column(wanted: &[(usize, Option<f64>)], places: &mut [Place]) {
    let mut order: Vec<&(usize, Option<f64>)> = wanted.iter().collect();
    // Stable: nodes without a wanted place keep their order, after the others.
    order.sort_by(|a, b| match (a.1, b.1) {
        (Some(a), Some(b)) => a.total_cmp(&b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let mut next = TOP;
    for (node, want) in order {
        let place = &mut places[*node];
        let top = want.map_or(next, |want| (want - place.height / 2.0).round().max(next));
        place.y = top;
        next = top + place.height + ROW_GAP;
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::half_moved;
    use super::super::graph::graph;
    use super::*;

    #[test]
    fn long_names_are_shortened_in_the_middle() {
        assert_eq!(fit_middle("short.example", 200.0, 12.0), "short.example");
        let shown = fit_middle("cname.pages.exmaple.net.very-long.example", 120.0, 12.0);
        assert!(shown.contains('…') && shown.starts_with("cname") && shown.ends_with("example"));
        assert!(text_width(&shown, 12.0) <= 120.0);
        assert!(text_width(&fit_end("a long verdict", 60.0, 12.0), 12.0) <= 60.0);
        assert!(fit_end("a long verdict", 60.0, 12.0).ends_with('…'));
        // a name breaks after its dots, never inside a label
        assert_eq!(
            wrap(
                "cname.pages.exmaple.net",
                100.0,
                13.0,
                &['.', '-', ' '],
                true
            ),
            ["cname.pages.", "exmaple.net"]
        );
        let lines = wrap(
            "a-very-long-label-for-a-nameserver.of-a-provider-with-a-long-name.example.net",
            120.0,
            13.0,
            &['.', '-', ' '],
            true,
        );
        assert_eq!(lines.len(), 2);
        assert!(
            lines[1].contains('…') && lines[1].ends_with(".net"),
            "{lines:?}"
        );
        assert!(lines.iter().all(|line| text_width(line, 13.0) <= 120.0));
        // a hostname of 20 characters is about 127 px at 12 px
        let width = text_width("edge.platform.net.ex", 12.0);
        assert!((115.0..135.0).contains(&width), "{width}");
    }

    #[test]
    fn nodes_never_overlap_and_the_picture_fits_its_width() {
        let graph = graph(&half_moved());
        let layout = layout(&graph);
        assert_eq!(layout.width, WIDTH);
        for (a, first) in layout.places.iter().enumerate() {
            assert!(first.x + first.width <= layout.width - MARGIN + 0.01);
            for second in &layout.places[a + 1..] {
                let apart = first.x + first.width <= second.x
                    || second.x + second.width <= first.x
                    || first.y + first.height <= second.y
                    || second.y + second.height <= first.y;
                assert!(apart, "{first:?} {second:?}");
            }
        }
        // the columns are in the order of the path
        let layers: Vec<Layer> = layout.columns.iter().map(|column| column.layer).collect();
        assert_eq!(
            layers,
            [
                Layer::Registry,
                Layer::Nameservers,
                Layer::Answers,
                Layer::Names(0),
                Layer::Addresses,
            ]
        );
    }
}
