//! No two files of one crate import each other, directly or around a ring, unless one of them
//! says why. A ring of files is a room with no door: none can be read, tested or moved without
//! the others, and "which comes first" has no answer. Crates cannot form rings (cargo
//! refuses); modules can, silently, so this checks them.
//!
//! What counts as an import of file B by file A: any path in A (in a `use` or in code) that
//! names an item defined in B, from `crate::`, `super::`, `self::`, a child module or a name
//! A imported. Paths are followed through re-exports, so `crate::dns::Answer` counts as an
//! import of `dns/answer.rs`, not of the `dns/mod.rs` that re-exports it; declaring a child
//! (`mod x;`) is not an import. `#[cfg(test)]` items (the `tests` module) are left out: a test
//! may compare its file with a sibling.
//!
//! The reason, when a ring is meant, is a line of the importing file's `//!`:
//!
//! ```text
//! //! Allowed cycle with `crate::http::state`: <why, in words>
//! ```
//!
//! which lets that file's imports of the named modules stand; the ring must still be broken
//! somewhere else if it has other edges. The check reads source text (a small lexer, no
//! compiler), which is enough for the paths this workspace writes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The marker that opens an allowed cycle's reason in a `//!` line.
const MARKER: &str = "Allowed cycle with";

/// Imports that close a ring in files whose owner is changing them in a separate piece of
/// work, so the marker cannot go in the file itself yet: the file (from the workspace root),
/// the module it imports back, and why. Printed on every run, so none is forgotten; an entry
/// whose import is gone allows nothing.
const KNOWN: &[(&str, &str, &str)] = &[];

/// Checks every library and binary target of the workspace at `root`.
pub fn check(root: &Path) -> Result<()> {
    for (file, module, why) in KNOWN {
        println!("known ring, allowed for now: {file} imports {module} back: {why}");
    }
    let mut problems = Vec::new();
    let mut targets = 0;
    for entry in entry_files(root)? {
        targets += 1;
        let graph = Graph::read(&entry, &|path: &Path| std::fs::read_to_string(path).ok())
            .with_context(|| format!("reading the modules of {}", entry.display()))?;
        problems.extend(graph.problems(root));
    }
    if !problems.is_empty() {
        bail!(
            "files that import each other (break the ring, or give the reason in a `//!` line \
             `{MARKER} `crate::…`: why`):\n{}",
            problems.join("\n")
        );
    }
    println!("no module cycles in {targets} targets");
    Ok(())
}

/// The root files of the workspace's libraries and binaries: `src/lib.rs` and `src/main.rs`
/// of each member, or the paths its manifest gives.
fn entry_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut members = vec![root.to_path_buf(), root.join("xtask")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .context("listing crates/")?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.join("Cargo.toml").is_file())
        .collect();
    crates.sort();
    members.extend(crates);
    let mut entries = Vec::new();
    for member in members {
        let manifest = std::fs::read_to_string(member.join("Cargo.toml"))
            .with_context(|| format!("reading {}", member.join("Cargo.toml").display()))?;
        let mut paths = manifest_paths(&manifest);
        if paths.is_empty() {
            paths = ["src/lib.rs", "src/main.rs"].map(String::from).to_vec();
        }
        entries.extend(
            paths
                .iter()
                .map(|path| member.join(path))
                .filter(|path| path.is_file()),
        );
    }
    Ok(entries)
}

/// The `path = "…"` of a manifest's `[lib]` and `[[bin]]` sections.
fn manifest_paths(manifest: &str) -> Vec<String> {
    let mut in_target = false;
    let mut paths = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_target = line == "[lib]" || line == "[[bin]]";
        } else if in_target && let Some(value) = line.strip_prefix("path") {
            let value = value.trim_start().trim_start_matches('=').trim();
            paths.push(value.trim_matches('"').to_owned());
        }
    }
    paths
}

type ModPath = Vec<String>;

/// One file of the module tree.
struct File {
    path: PathBuf,
    module: ModPath,
    /// Child modules declared with `mod x;`.
    children: BTreeSet<String>,
    /// Names bound by `use`, to the absolute path they stand for (internal paths only).
    bindings: BTreeMap<String, ModPath>,
    /// Every internal path the file names, absolute, with the line it is on.
    paths: Vec<(ModPath, usize)>,
    /// Modules whose imports this file's `//!` allows.
    allowed: Vec<ModPath>,
}

/// The files of one crate and which imports which.
struct Graph {
    files: Vec<File>,
    by_module: BTreeMap<ModPath, usize>,
}

/// An import of one file by another: the line of the first path that makes it.
type Edges = BTreeMap<(usize, usize), usize>;

impl Graph {
    /// Reads the module tree that starts at `entry`, files read through `read`.
    fn read(entry: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Result<Self> {
        let mut graph = Graph {
            files: Vec::new(),
            by_module: BTreeMap::new(),
        };
        let mut texts = Vec::new();
        let mut pending = vec![(entry.to_path_buf(), ModPath::new(), true)];
        while let Some((path, module, owns_dir)) = pending.pop() {
            let text = read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let children = declared_children(&lex(&text));
            let dir = if owns_dir {
                path.parent().map(Path::to_path_buf).unwrap_or_default()
            } else {
                path.with_extension("")
            };
            for name in &children {
                let mut child = module.clone();
                child.push(name.clone());
                let flat = dir.join(format!("{name}.rs"));
                if read(&flat).is_some() {
                    pending.push((flat, child, false));
                } else {
                    pending.push((dir.join(name).join("mod.rs"), child, true));
                }
            }
            graph.by_module.insert(module.clone(), graph.files.len());
            graph.files.push(File {
                path,
                module,
                children: children.into_iter().collect(),
                bindings: BTreeMap::new(),
                paths: Vec::new(),
                allowed: Vec::new(),
            });
            texts.push(text);
        }
        // paths are read once every module is known
        for (index, text) in texts.iter().enumerate() {
            let tokens = without_test_items(&lex(text));
            let file = &graph.files[index];
            let (bindings, paths) = internal_paths(&tokens, &file.module, &file.children);
            let mut allowed = allowed_modules(text, &file.module);
            for (known, module, _) in KNOWN {
                if file.path.ends_with(known) {
                    let segments: Vec<String> = module.split("::").map(str::to_owned).collect();
                    allowed.extend(absolute(
                        &segments,
                        &file.module,
                        &BTreeSet::new(),
                        &BTreeMap::new(),
                    ));
                }
            }
            let file = &mut graph.files[index];
            file.bindings = bindings;
            file.paths = paths;
            file.allowed = allowed;
        }
        Ok(graph)
    }

    /// The file an absolute path names an item of, or `None` for a module itself or a path
    /// outside the crate.
    fn target(&self, path: &[String], depth: usize) -> Option<usize> {
        if depth > 16 {
            return None;
        }
        let mut at = *self.by_module.get(&ModPath::new())?;
        for (index, segment) in path.iter().enumerate() {
            if segment == "*" {
                return Some(at);
            }
            let mut module = self.files[at].module.clone();
            module.push(segment.clone());
            if let Some(next) = self.by_module.get(&module) {
                at = *next;
                continue;
            }
            return match self.files[at].bindings.get(segment) {
                Some(bound) => {
                    let mut followed = bound.clone();
                    followed.extend(path[index + 1..].iter().cloned());
                    self.target(&followed, depth + 1).or(Some(at))
                }
                None => Some(at),
            };
        }
        None
    }

    fn edges(&self) -> Edges {
        let mut edges = Edges::new();
        for (from, file) in self.files.iter().enumerate() {
            for (path, line) in &file.paths {
                let Some(to) = self.target(path, 0) else {
                    continue;
                };
                let allowed = file
                    .allowed
                    .iter()
                    .any(|module| self.by_module.get(module) == Some(&to));
                if to != from && !allowed {
                    edges.entry((from, to)).or_insert(*line);
                }
            }
        }
        edges
    }

    /// One line per ring: its files in order, each with the line that imports the next.
    fn problems(&self, root: &Path) -> Vec<String> {
        let edges = self.edges();
        let name = |index: usize| {
            let path = &self.files[index].path;
            path.strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string()
        };
        let first = |set: &BTreeSet<usize>| {
            *set.iter()
                .min_by_key(|index| &self.files[**index].path)
                .expect("not empty")
        };
        rings(self.files.len(), &edges, first)
            .into_iter()
            .map(|(ring, knot)| {
                let also: Vec<String> = knot
                    .iter()
                    .filter(|index| !ring.contains(index))
                    .map(|index| name(*index))
                    .collect();
                let steps: Vec<String> = ring
                    .iter()
                    .zip(ring.iter().cycle().skip(1))
                    .map(|(from, to)| format!("{}:{}", name(*from), edges[&(*from, *to)]))
                    .collect();
                let mut line = format!("  {} → {}", steps.join(" → "), name(ring[0]));
                if !also.is_empty() {
                    line.push_str(&format!(" (tied in too: {})", also.join(", ")));
                }
                line
            })
            .collect()
    }
}

/// One cycle through each strongly connected set of more than one file (Tarjan's algorithm,
/// then a shortest way back to the set's `first` file).
fn rings(
    count: usize,
    edges: &Edges,
    first: impl Fn(&BTreeSet<usize>) -> usize,
) -> Vec<(Vec<usize>, BTreeSet<usize>)> {
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (from, to) in edges.keys() {
        next[*from].push(*to);
    }
    let components = strongly_connected(&next);
    let mut rings = Vec::new();
    for component in components.into_iter().filter(|set| set.len() > 1) {
        let start = first(&component);
        // breadth-first from start's successors, within the set, back to start
        let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        'search: while let Some(at) = queue.pop_front() {
            for &to in &next[at] {
                if !component.contains(&to) {
                    continue;
                }
                if to == start {
                    came_from.insert(usize::MAX, at);
                    break 'search;
                }
                if let std::collections::btree_map::Entry::Vacant(entry) = came_from.entry(to) {
                    entry.insert(at);
                    queue.push_back(to);
                }
            }
        }
        let mut ring = Vec::new();
        let mut at = came_from[&usize::MAX];
        while at != start {
            ring.push(at);
            at = came_from[&at];
        }
        ring.push(start);
        ring.reverse();
        rings.push((ring, component));
    }
    rings
}

fn strongly_connected(next: &[Vec<usize>]) -> Vec<BTreeSet<usize>> {
    struct Walk<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        found: Vec<BTreeSet<usize>>,
    }
    fn visit(walk: &mut Walk<'_>, node: usize) {
        walk.index[node] = Some(walk.counter);
        walk.low[node] = walk.counter;
        walk.counter += 1;
        walk.stack.push(node);
        walk.on_stack[node] = true;
        for &to in walk.next[node].clone().iter() {
            match walk.index[to] {
                None => {
                    visit(walk, to);
                    walk.low[node] = walk.low[node].min(walk.low[to]);
                }
                Some(index) if walk.on_stack[to] => walk.low[node] = walk.low[node].min(index),
                Some(_) => {}
            }
        }
        if Some(walk.low[node]) == walk.index[node] {
            let mut set = BTreeSet::new();
            while let Some(member) = walk.stack.pop() {
                walk.on_stack[member] = false;
                set.insert(member);
                if member == node {
                    break;
                }
            }
            walk.found.push(set);
        }
    }
    let mut walk = Walk {
        next,
        index: vec![None; next.len()],
        low: vec![0; next.len()],
        on_stack: vec![false; next.len()],
        stack: Vec::new(),
        counter: 0,
        found: Vec::new(),
    };
    for node in 0..next.len() {
        if walk.index[node].is_none() {
            visit(&mut walk, node);
        }
    }
    walk.found
}

/// The modules a file's `//!` lines allow it to import back: on a line that starts with
/// [`MARKER`], the backquoted paths (joined by `,` or `and`), then `:` and a reason of three
/// words or more.
fn allowed_modules(text: &str, module: &[String]) -> Vec<ModPath> {
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

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
    /// Where a line starts: the index of the token's line.
    Line(usize),
}

/// The tokens of `text` that matter here, comments, strings and characters left out, with a
/// line marker before the first token of each line.
fn lex(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut marked = 0;
    let mut at = 0;
    let mut mark = |tokens: &mut Vec<Token>, line: usize| {
        if marked != line {
            tokens.push(Token::Line(line));
            marked = line;
        }
    };
    while at < chars.len() {
        let here = chars[at];
        let next = chars.get(at + 1).copied();
        match here {
            '\n' => {
                line += 1;
                at += 1;
            }
            '/' if next == Some('/') => {
                while at < chars.len() && chars[at] != '\n' {
                    at += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while at < chars.len() {
                    if chars[at] == '/' && chars.get(at + 1) == Some(&'*') {
                        depth += 1;
                        at += 2;
                    } else if chars[at] == '*' && chars.get(at + 1) == Some(&'/') {
                        depth -= 1;
                        at += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if chars[at] == '\n' {
                            line += 1;
                        }
                        at += 1;
                    }
                }
            }
            '"' => {
                at += 1;
                while at < chars.len() && chars[at] != '"' {
                    if chars[at] == '\\' {
                        at += 1;
                    }
                    if chars.get(at) == Some(&'\n') {
                        line += 1;
                    }
                    at += 1;
                }
                at += 1;
            }
            'r' | 'b' if raw_string_start(&chars, at).is_some() => {
                let (hashes, body) = raw_string_start(&chars, at).expect("checked");
                at = body;
                loop {
                    if at >= chars.len() {
                        break;
                    }
                    if chars[at] == '"'
                        && (1..=hashes).all(|offset| chars.get(at + offset) == Some(&'#'))
                    {
                        at += 1 + hashes;
                        break;
                    }
                    if chars[at] == '\n' {
                        line += 1;
                    }
                    at += 1;
                }
            }
            'b' if next == Some('"') || next == Some('\'') => at += 1,
            '\'' => {
                // a character ('x', '\n', '\u{..}') or a lifetime ('a)
                if next == Some('\\') {
                    at += 3;
                    while at < chars.len() && chars[at] != '\'' {
                        at += 1;
                    }
                    at += 1;
                } else if chars.get(at + 2) == Some(&'\'') {
                    at += 3;
                } else {
                    at += 1;
                }
            }
            ':' if next == Some(':') => {
                mark(&mut tokens, line);
                tokens.push(Token::PathSep);
                at += 2;
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = at;
                while at < chars.len() && (chars[at].is_alphanumeric() || chars[at] == '_') {
                    at += 1;
                }
                mark(&mut tokens, line);
                let word: String = chars[start..at].iter().collect();
                // r#ident
                if word == "r" && chars.get(at) == Some(&'#') {
                    at += 1;
                    continue;
                }
                tokens.push(Token::Ident(word));
            }
            c if c.is_whitespace() => at += 1,
            c if c.is_ascii_digit() => {
                while at < chars.len() && (chars[at].is_alphanumeric() || chars[at] == '_') {
                    at += 1;
                }
            }
            c => {
                mark(&mut tokens, line);
                tokens.push(Token::Punct(c));
                at += 1;
            }
        }
    }
    tokens
}

/// For a raw string (`r"`, `r#"`, `br#"`) at `at`: its number of `#` and where its body starts.
fn raw_string_start(chars: &[char], at: usize) -> Option<(usize, usize)> {
    if at > 0 && (chars[at - 1].is_alphanumeric() || chars[at - 1] == '_') {
        return None;
    }
    let mut index = at;
    if chars[index] == 'b' {
        index += 1;
    }
    if chars.get(index) != Some(&'r') {
        return None;
    }
    index += 1;
    let mut hashes = 0;
    while chars.get(index) == Some(&'#') {
        hashes += 1;
        index += 1;
    }
    (chars.get(index) == Some(&'"')).then_some((hashes, index + 1))
}

fn ident(token: Option<&Token>) -> Option<&str> {
    match token {
        Some(Token::Ident(word)) => Some(word),
        _ => None,
    }
}

/// The tokens without line markers, each with its line.
fn with_lines(tokens: &[Token]) -> Vec<(&Token, usize)> {
    let mut line = 0;
    let mut out = Vec::new();
    for token in tokens {
        match token {
            Token::Line(number) => line = *number,
            other => out.push((other, line)),
        }
    }
    out
}

/// The `mod name;` declarations of a file (not inline modules, not `#[cfg(test)]` ones). No
/// target of the workspace uses `#[path]`, which this does not follow.
fn declared_children(tokens: &[Token]) -> Vec<String> {
    let tokens: Vec<&Token> = with_lines(tokens).into_iter().map(|(t, _)| t).collect();
    let mut children = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        if **token != Token::Ident("mod".into()) {
            continue;
        }
        let (Some(name), Some(Token::Punct(';'))) = (
            ident(tokens.get(at + 1).copied()),
            tokens.get(at + 2).copied(),
        ) else {
            continue;
        };
        let attributes = attributes_before(&tokens, at);
        if attributes.iter().any(|attribute| is_cfg_test(attribute)) {
            continue;
        }
        children.push(name.to_owned());
    }
    children
}

/// The attributes (`#[…]`, as their identifiers) right before the item whose keyword is at
/// `at`, across visibility (`pub`, `pub(crate)`).
fn attributes_before(tokens: &[&Token], at: usize) -> Vec<Vec<String>> {
    let mut index = at;
    // visibility
    while index > 0 {
        match tokens[index - 1] {
            Token::Ident(word) if word == "pub" => index -= 1,
            Token::Punct(')') => {
                // pub(crate), pub(super), pub(in path)
                let mut open = index - 1;
                while open > 0 && *tokens[open] != Token::Punct('(') {
                    open -= 1;
                }
                if open > 0 && ident(Some(tokens[open - 1])) == Some("pub") {
                    index = open - 1;
                } else {
                    break;
                }
            }
            _ => break,
        }
    }
    let mut attributes = Vec::new();
    while index > 0 && *tokens[index - 1] == Token::Punct(']') {
        let mut open = index - 1;
        let mut depth = 0;
        loop {
            match tokens[open] {
                Token::Punct(']') => depth += 1,
                Token::Punct('[') => depth -= 1,
                _ => {}
            }
            if depth == 0 || open == 0 {
                break;
            }
            open -= 1;
        }
        if open == 0 || *tokens[open - 1] != Token::Punct('#') {
            break;
        }
        let words = tokens[open..index]
            .iter()
            .filter_map(|token| ident(Some(token)).map(str::to_owned))
            .collect();
        attributes.push(words);
        index = open - 1;
    }
    attributes
}

fn is_cfg_test(attribute: &[String]) -> bool {
    attribute.first().map(String::as_str) == Some("cfg")
        && attribute.iter().any(|word| word == "test")
        && !attribute.iter().any(|word| word == "not")
}

/// The tokens without the items marked `#[cfg(test)]`.
fn without_test_items(tokens: &[Token]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        if tokens[at] == Token::Punct('#') && starts_cfg_test(&tokens[at..]) {
            at = end_of_item(tokens, at);
            continue;
        }
        out.push(tokens[at].clone());
        at += 1;
    }
    out
}

/// The index after the item whose attributes start at `at`: the attributes, then the item to
/// its `;` outside any bracket or to the `}` that closes its block.
fn end_of_item(tokens: &[Token], mut at: usize) -> usize {
    let mut depth = 0i32;
    while at < tokens.len() {
        match &tokens[at] {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']') => depth -= 1,
            Token::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            Token::Punct(';') if depth == 0 => return at + 1,
            _ => {}
        }
        at += 1;
    }
    at
}

fn starts_cfg_test(tokens: &[Token]) -> bool {
    let words: Vec<&Token> = tokens
        .iter()
        .filter(|token| !matches!(token, Token::Line(_)))
        .take(6)
        .collect();
    matches!(
        words.as_slice(),
        [Token::Punct('#'), Token::Punct('['), Token::Ident(cfg), Token::Punct('('), Token::Ident(test), Token::Punct(')')]
            if cfg.as_str() == "cfg" && test.as_str() == "test"
    )
}

/// A `use` tree's leaves: the path of each and the name it binds (`None` for a glob).
fn use_leaves(
    tokens: &[(&Token, usize)],
    mut at: usize,
    prefix: ModPath,
    leaves: &mut Vec<(ModPath, Option<String>)>,
) -> usize {
    let mut path = prefix;
    loop {
        match tokens.get(at).map(|(token, _)| *token) {
            Some(Token::PathSep) => at += 1,
            Some(Token::Ident(word)) if word == "as" => {
                let alias = ident(tokens.get(at + 1).map(|(token, _)| *token)).map(str::to_owned);
                if let Some(last) = leaves.last_mut() {
                    last.1 = alias.filter(|alias| alias != "_");
                }
                at += 2;
            }
            Some(Token::Ident(word)) => {
                path.push(word.clone());
                at += 1;
                // a leaf ends at `,`, `}`, `;` or `as`
                match tokens.get(at).map(|(token, _)| *token) {
                    Some(Token::PathSep) => {}
                    _ => {
                        let mut leaf = path.clone();
                        let name = if word == "self" {
                            leaf.pop();
                            leaf.last().cloned()
                        } else {
                            Some(word.clone())
                        };
                        leaves.push((leaf, name));
                    }
                }
            }
            Some(Token::Punct('*')) => {
                let mut glob = path.clone();
                glob.push("*".to_owned());
                leaves.push((glob, None));
                at += 1;
            }
            Some(Token::Punct('{')) => {
                at += 1;
                loop {
                    at = use_leaves(tokens, at, path.clone(), leaves);
                    match tokens.get(at).map(|(token, _)| *token) {
                        Some(Token::Punct(',')) => at += 1,
                        Some(Token::Punct('}')) => {
                            at += 1;
                            break;
                        }
                        _ => return at,
                    }
                    if tokens.get(at).map(|(token, _)| *token) == Some(&Token::Punct('}')) {
                        at += 1;
                        break;
                    }
                }
            }
            _ => return at,
        }
    }
}

/// An absolute module path for `segments` written in `module`, or `None` when it leaves the
/// crate (another crate, the standard library).
fn absolute(
    segments: &[String],
    module: &[String],
    children: &BTreeSet<String>,
    bindings: &BTreeMap<String, ModPath>,
) -> Option<ModPath> {
    let (first, rest) = segments.split_first()?;
    let mut base: ModPath = match first.as_str() {
        "crate" => ModPath::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut base = module.to_vec();
            base.pop()?;
            let mut rest = rest;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            return Some(base);
        }
        name if children.contains(name) => {
            let mut base = module.to_vec();
            base.push(name.to_owned());
            base
        }
        name => bindings.get(name)?.clone(),
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The file's `use` bindings and every internal path it names, absolute.
#[allow(clippy::type_complexity)]
fn internal_paths(
    tokens: &[Token],
    module: &[String],
    children: &BTreeSet<String>,
) -> (BTreeMap<String, ModPath>, Vec<(ModPath, usize)>) {
    let tokens = with_lines(tokens);
    let mut bindings = BTreeMap::new();
    let mut paths = Vec::new();
    // `use` statements first: later paths may start with a name they bind
    let mut uses = Vec::new();
    for (at, (token, line)) in tokens.iter().enumerate() {
        if **token == Token::Ident("use".into()) {
            let mut leaves = Vec::new();
            use_leaves(&tokens, at + 1, ModPath::new(), &mut leaves);
            uses.push((leaves, *line));
        }
    }
    // twice, so that a use that starts from another use's name resolves in either order
    for _ in 0..2 {
        for (leaves, _) in &uses {
            for (leaf, name) in leaves {
                if let (Some(name), Some(path)) =
                    (name, absolute(leaf, module, children, &bindings))
                {
                    bindings.insert(name.clone(), path);
                }
            }
        }
    }
    for (leaves, line) in &uses {
        for (leaf, _) in leaves {
            if let Some(path) = absolute(leaf, module, children, &bindings) {
                paths.push((path, *line));
            }
        }
    }
    // paths in code: `a::b…` not after `::` and not inside a `use`
    let mut at = 0;
    while at < tokens.len() {
        if *tokens[at].0 == Token::Ident("use".into()) {
            while at < tokens.len() && *tokens[at].0 != Token::Punct(';') {
                at += 1;
            }
            continue;
        }
        let after_sep = at > 0 && *tokens[at - 1].0 == Token::PathSep;
        if let (Token::Ident(_), false) = (tokens[at].0, after_sep) {
            let mut segments = Vec::new();
            let mut index = at;
            while let Some(word) = ident(tokens.get(index).map(|(token, _)| *token)) {
                segments.push(word.to_owned());
                if tokens.get(index + 1).map(|(token, _)| *token) == Some(&Token::PathSep) {
                    index += 2;
                } else {
                    break;
                }
            }
            if segments.len() > 1
                && let Some(path) = absolute(&segments, module, children, &bindings)
            {
                paths.push((path, tokens[at].1));
            }
            at = index + 1;
            continue;
        }
        at += 1;
    }
    (bindings, paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rings in a crate made of `files` (path → text), `lib.rs` its root.
    fn rings_in(files: &[(&str, &str)]) -> Vec<String> {
        let files: BTreeMap<PathBuf, String> = files
            .iter()
            .map(|(path, text)| (PathBuf::from("src").join(path), (*text).to_owned()))
            .collect();
        let graph = Graph::read(Path::new("src/lib.rs"), &|path: &Path| {
            files.get(path).cloned()
        })
        .unwrap();
        graph.problems(Path::new("src"))
    }

    #[test]
    fn two_files_that_import_each_other_are_a_ring() {
        let rings = rings_in(&[
            ("lib.rs", "pub mod answer;\nmod wire;\n"),
            (
                "answer.rs",
                "//! Answers.\nuse super::wire::WireAnswer;\npub struct Answer;\n",
            ),
            (
                "wire.rs",
                "use crate::answer::Answer;\npub struct WireAnswer;\n",
            ),
        ]);
        assert_eq!(rings, ["  answer.rs:2 → wire.rs:1 → answer.rs"]);
    }

    #[test]
    fn a_ring_of_three_through_code_paths_and_re_exports_is_found() {
        let rings = rings_in(&[
            ("lib.rs", "pub mod dns;\n"),
            (
                "dns/mod.rs",
                "pub mod engine;\npub mod exchange;\npub mod source;\n\
                 pub use engine::{WireQuery, QueryEngine};\n",
            ),
            (
                "dns/engine.rs",
                "use super::source::DnsSource;\npub struct WireQuery;\n",
            ),
            (
                "dns/source.rs",
                "fn f() { let _ = super::exchange::Exchange::new(); }\npub trait DnsSource {}\n",
            ),
            // through the re-export in dns/mod.rs, to engine.rs
            (
                "dns/exchange.rs",
                "/* crate::dns::source::X */\nuse crate::dns::WireQuery;\npub struct Exchange;\n",
            ),
        ]);
        assert_eq!(
            rings,
            ["  dns/engine.rs:1 → dns/source.rs:1 → dns/exchange.rs:2 → dns/engine.rs"]
        );
    }

    #[test]
    fn one_way_imports_tests_comments_and_strings_are_not_rings() {
        let rings = rings_in(&[
            (
                "lib.rs",
                "pub mod answer;\nmod wire;\nmod error;\npub use error::Error;\n",
            ),
            ("error.rs", "pub struct Error;\n"),
            (
                "answer.rs",
                "// wire::read is mentioned here only\npub struct Answer;\n\
                 const S: &str = \"crate::wire::read\";\nfn f() -> crate::Error { todo!() }\n\
                 #[cfg(test)]\nmod tests {\n    use crate::wire::read;\n}\n",
            ),
            (
                "wire.rs",
                "use crate::answer::Answer;\nuse crate::{Error};\npub fn read() {}\n",
            ),
        ]);
        assert!(rings.is_empty(), "{rings:?}");
    }

    #[test]
    fn a_reason_in_the_module_doc_allows_the_import_it_names() {
        let files = |doc: &str| {
            [
                ("lib.rs", "pub mod state;\npub mod cache;\n".to_owned()),
                (
                    "state.rs",
                    "use crate::cache::Cache;\npub struct State;\n".to_owned(),
                ),
                (
                    "cache.rs",
                    format!("{doc}\nuse crate::state::State;\npub struct Cache;\n"),
                ),
            ]
        };
        let rings = |doc: &str| {
            let files = files(doc);
            let files: Vec<(&str, &str)> = files
                .iter()
                .map(|(path, text)| (*path, text.as_str()))
                .collect();
            rings_in(&files)
        };
        assert!(
            rings("//! Allowed cycle with `crate::state`: the cache is a part of the state.")
                .is_empty()
        );
        // no reason, or another module named: still a ring
        assert_eq!(rings("//! Allowed cycle with `crate::state`:").len(), 1);
        assert_eq!(
            rings("//! Allowed cycle with `crate::other`: a reason of some words.").len(),
            1
        );
        assert_eq!(rings("//! The cache.").len(), 1);
        // several paths, `super`, and backquotes in the reason
        assert!(
            rings(
                "//! Allowed cycle with `crate::other`, `super::state` and `crate::x`: the \
                 `State` holds it."
            )
            .is_empty()
        );
    }

    #[test]
    fn a_manifest_names_its_targets_paths() {
        let manifest = "[package]\nname = \"x\"\n\n[lib]\nname = \"x_lib\"\npath = \
                        \"src-tauri/lib.rs\"\n\n[[bin]]\nname = \"x\"\npath = \"src-tauri/main.rs\"\n\n\
                        [dependencies]\npath-clean = { path = \"../p\" }\n";
        assert_eq!(
            manifest_paths(manifest),
            ["src-tauri/lib.rs", "src-tauri/main.rs"]
        );
    }
}
