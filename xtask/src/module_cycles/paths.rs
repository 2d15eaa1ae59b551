//! Path resolution: the module paths a file's `use` statements bind and every internal path
//! it names in code, made absolute (from `crate::`, `super::`, `self::`, a child module or a
//! name a `use` bound); paths into other crates are dropped.

use std::collections::{BTreeMap, BTreeSet};

use super::lexer::{Token, ident, with_lines};

pub(super) type ModPath = Vec<String>;

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
pub(super) fn absolute(
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
pub(super) fn internal_paths(
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
