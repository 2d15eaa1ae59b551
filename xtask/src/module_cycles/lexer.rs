//! The small lexer the check reads source text with (no compiler): identifiers, `::` and
//! punctuation with their lines, comments, strings and characters left out; and what it needs
//! of items — the `mod x;` a file declares and its `#[cfg(test)]` items, which are left out.

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Ident(String),
    PathSep,
    Punct(char),
    /// Where a line starts: the index of the token's line.
    Line(usize),
}

/// The tokens of `text` that matter here, comments, strings and characters left out, with a
/// line marker before the first token of each line.
pub(super) fn lex(text: &str) -> Vec<Token> {
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

pub(super) fn ident(token: Option<&Token>) -> Option<&str> {
    match token {
        Some(Token::Ident(word)) => Some(word),
        _ => None,
    }
}

/// The tokens without line markers, each with its line.
pub(super) fn with_lines(tokens: &[Token]) -> Vec<(&Token, usize)> {
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
pub(super) fn declared_children(tokens: &[Token]) -> Vec<String> {
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
pub(super) fn without_test_items(tokens: &[Token]) -> Vec<Token> {
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
