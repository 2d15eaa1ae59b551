//! Keeps `ARCHITECTURE.md` a map that stays true: at most [`MAX_WORDS`] words (a five-minute
//! read), and every path it names exists.
//!
//! A path is anything in backquotes (outside fenced blocks) that contains `/` or ends in
//! `.rs`, `.js`, `.md` or `.toml`; links (`scheme://`), doc-comment markers (`//!`) and
//! commands (with spaces) are not paths. A path from the workspace's root (its first part is
//! a folder there, such as `crates/` or `ui/`) must exist as written. Any other path is read
//! in the part of the map it stands in: in a code-map entry (`- **`crates/client`** — …`), a
//! file or folder of that part whose path ends with it (`queue.rs`, `checks/dnssec/`);
//! elsewhere, one anywhere in the workspace (`world/renewal_demo.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The most words the map may have.
pub const MAX_WORDS: usize = 900;

/// Folders never searched for the paths the map names.
const SKIPPED: &[&str] = &["target", "node_modules", ".git"];

/// Checks `ARCHITECTURE.md` of the workspace at `root`.
pub fn check(root: &Path) -> Result<()> {
    let file = root.join("ARCHITECTURE.md");
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let mut entries = BTreeSet::new();
    walk(root, Path::new(""), &mut entries)?;
    let problems = problems(&text, &entries);
    if !problems.is_empty() {
        bail!("ARCHITECTURE.md:\n{}", problems.join("\n"));
    }
    println!(
        "ARCHITECTURE.md: {} words (at most {MAX_WORDS}), every path it names exists",
        words(&text)
    );
    Ok(())
}

/// Every file and folder under `dir`, relative to the root, less [`SKIPPED`].
fn walk(root: &Path, dir: &Path, entries: &mut BTreeSet<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(root.join(dir))? {
        let entry = entry?;
        let name = entry.file_name();
        if SKIPPED.iter().any(|skipped| name == *skipped) {
            continue;
        }
        let path = dir.join(&name);
        if entry.file_type()?.is_dir() {
            walk(root, &path, entries)?;
        }
        entries.insert(path);
    }
    Ok(())
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// What is wrong with the map `text` in a workspace holding `entries` (relative paths of
/// every file and folder): too many words, and each path that names nothing.
fn problems(text: &str, entries: &BTreeSet<PathBuf>) -> Vec<String> {
    let mut problems = Vec::new();
    let count = words(text);
    if count > MAX_WORDS {
        problems.push(format!(
            "  {count} words, more than {MAX_WORDS}: say less, or move the detail to a module's `//!`"
        ));
    }
    let roots: BTreeSet<&Path> = entries
        .iter()
        .filter(|path| path.components().count() == 1)
        .map(PathBuf::as_path)
        .collect();
    let mut part: Option<PathBuf> = None;
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some(entry) = line.strip_prefix("- **`") {
            part = entry
                .split_once('`')
                .map(|(path, _)| PathBuf::from(path.trim_end_matches('/')));
        } else if !line.starts_with("  ") {
            part = None;
        }
        for path in backquoted(line).filter(|quoted| is_path(quoted)) {
            if !names_something(path, part.as_deref(), &roots, entries) {
                let within = part
                    .as_ref()
                    .map(|part| format!(" (in the entry of {})", part.display()))
                    .unwrap_or_default();
                problems.push(format!(
                    "  line {}: `{path}` names nothing in the workspace{within}",
                    index + 1
                ));
            }
        }
    }
    problems
}

/// The backquoted spans of a line.
fn backquoted(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

fn is_path(quoted: &str) -> bool {
    let looks_like_one = quoted.contains('/')
        || [".rs", ".js", ".md", ".toml"]
            .iter()
            .any(|extension| quoted.ends_with(extension));
    looks_like_one
        && !quoted.contains("://")
        && !quoted.starts_with("//")
        && !quoted.contains(char::is_whitespace)
}

fn names_something(
    path: &str,
    part: Option<&Path>,
    roots: &BTreeSet<&Path>,
    entries: &BTreeSet<PathBuf>,
) -> bool {
    let path = Path::new(path.trim_end_matches('/'));
    let from_root = path
        .components()
        .next()
        .is_some_and(|first| roots.contains(Path::new(first.as_os_str())));
    if from_root && path.components().count() > 1 {
        return entries.contains(path);
    }
    entries
        .iter()
        .filter(|entry| part.is_none_or(|part| entry.starts_with(part)))
        .any(|entry| entry.ends_with(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> BTreeSet<PathBuf> {
        [
            "crates",
            "crates/client",
            "crates/client/src",
            "crates/client/src/queue.rs",
            "crates/doctor",
            "crates/doctor/src",
            "crates/doctor/src/checks",
            "crates/doctor/src/checks/dnssec",
            "crates/service/src/world/renewal_demo.rs",
            "ui",
            "ui/lib",
            "ui/lib/app-state.js",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect()
    }

    #[test]
    fn every_path_the_map_names_is_found_where_it_stands() {
        let map = "# Map\n\n```\n  made/up/ in a diagram\n```\n\n\
                   - **`crates/client`** — `queue.rs` decides; `domain-desk://` links, `//!`\n\
                   \x20 docs, `cargo xtask cycles`.\n\
                   - **`crates/doctor`** — `checks/dnssec/` the chain walk.\n\
                   - **`ui/`** — `lib/` and `app-state.js`.\n\n\
                   SQL lives in `world/renewal_demo.rs` and `crates/client/src`.\n";
        assert_eq!(problems(map, &workspace()), Vec::<String>::new());
    }

    #[test]
    fn a_path_that_names_nothing_fails_with_its_line() {
        let map = "- **`crates/client`** — `eta.rs` and\n  `checks/dnssec/` (the doctor's).\n\
                   \n`crates/client/src/gone.rs`, `ui/lib/app-state.js`, `nowhere.md`.\n";
        assert_eq!(
            problems(map, &workspace()),
            [
                "  line 1: `eta.rs` names nothing in the workspace (in the entry of crates/client)",
                "  line 2: `checks/dnssec/` names nothing in the workspace (in the entry of crates/client)",
                "  line 4: `crates/client/src/gone.rs` names nothing in the workspace",
                "  line 4: `nowhere.md` names nothing in the workspace",
            ]
        );
    }

    #[test]
    fn more_than_the_words_allowed_fails() {
        let long = "word ".repeat(MAX_WORDS + 1);
        let found = problems(&long, &workspace());
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("901 words"), "{found:?}");
        assert!(problems(&"word ".repeat(MAX_WORDS), &workspace()).is_empty());
    }
}
