//! What the release workflow must hold beyond what actionlint checks, because a mistake there
//! hands the release's secrets or its build to someone else:
//!
//! - every `uses:` names its action by a full commit SHA (a tag can be moved to other code;
//!   a commit cannot), with the version in a trailing comment for the reader;
//! - no step that runs `tauri build` (or `cargo xtask bundle`, which runs it) can read
//!   `TAURI_SIGNING_PRIVATE_KEY`, from its own `env:`, its job's or the workflow's: every
//!   build script and package of the build would read it too. Signing is a step of its own;
//! - nothing is fetched with `npx`, which runs whatever the registry serves for a name: the
//!   Tauri CLI comes from `tools/release` with `npm ci`, checked against its lock file's
//!   integrity.
//!
//! The workflows are read as an indentation tree, which is all GitHub's workflow files need
//! here (block mappings and sequences, `|` and `>` scalars); `cargo xtask actionlint` runs the
//! same check before actionlint.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// The workflow files under `dir` (`.yml`, `.yaml`), sorted.
pub fn files(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("read {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Checks every workflow under `dir`; the error lists each problem with its file and line.
pub fn check(dir: &Path) -> Result<()> {
    let files = files(dir)?;
    let mut found = Vec::new();
    for file in &files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("read {}", file.display()))?;
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        found.extend(problems(&text).into_iter().map(|p| format!("{name}:{p}")));
    }
    if !found.is_empty() {
        bail!("the workflows:\n  {}", found.join("\n  "));
    }
    Ok(())
}

/// One line of the file, and the lines indented below it.
struct Node {
    /// 1-based line number.
    line: usize,
    indent: usize,
    /// The line without its indentation and without a leading `- `; the lines below a
    /// sequence item (its other keys) are its children.
    text: String,
    /// Whether the line began with `- `.
    item: bool,
    children: Vec<usize>,
    parent: Option<usize>,
}

fn parse(text: &str) -> Vec<Node> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = raw.len() - trimmed.len();
        let (item, text) = match trimmed.strip_prefix("- ") {
            Some(rest) => (true, rest.trim_start()),
            None => (trimmed == "-", trimmed),
        };
        while open.last().is_some_and(|&i| nodes[i].indent >= indent) {
            open.pop();
        }
        let parent = open.last().copied();
        let index = nodes.len();
        nodes.push(Node {
            line: number + 1,
            indent,
            text: text.to_owned(),
            item,
            children: Vec::new(),
            parent,
        });
        if let Some(p) = parent {
            nodes[p].children.push(index);
        }
        open.push(index);
    }
    nodes
}

/// The text of a node and of every line below it.
fn subtree(nodes: &[Node], index: usize) -> String {
    let mut text = nodes[index].text.clone();
    for &child in &nodes[index].children {
        text.push('\n');
        text.push_str(&subtree(nodes, child));
    }
    text
}

fn key_is(node: &Node, key: &str) -> bool {
    node.text
        .strip_prefix(key)
        .is_some_and(|rest| rest.starts_with(':'))
}

/// Whether a step's text runs `tauri build`: a word naming the Tauri CLI followed by `build`
/// (`tauri build`, `"$TAURI_CLI" build`, `npx @tauri-apps/cli@2 build`), or `xtask bundle`.
fn runs_tauri_build(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
        .map(|w| w.trim_matches(['"', '\'', '`']).to_ascii_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|pair| {
        (pair[0].contains("tauri") && pair[1] == "build")
            || (pair[0] == "xtask" && pair[1] == "bundle")
    })
}

const SIGNING_KEY: &str = "TAURI_SIGNING_PRIVATE_KEY";

/// Every problem in one workflow file, as `line: what`.
pub fn problems(text: &str) -> Vec<String> {
    let nodes = parse(text);
    let mut found = Vec::new();
    for (index, node) in nodes.iter().enumerate() {
        if key_is(node, "uses") {
            if let Some(problem) = unpinned(&node.text["uses:".len()..]) {
                found.push(format!("{}: {problem}", node.line));
            }
        }
        if key_is(node, "run") {
            let script = subtree(&nodes, index);
            let npx = script
                .split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
                .any(|w| w.trim_matches(['"', '\'']) == "npx");
            if npx {
                found.push(format!(
                    "{}: runs npx, which fetches an unpinned package: install it from a lock file with `npm ci`",
                    node.line
                ));
            }
        }
        // A step: an item of a `steps:` sequence.
        let is_step = node.item && node.parent.is_some_and(|p| key_is(&nodes[p], "steps"));
        if !is_step || !runs_tauri_build(&subtree(&nodes, index)) {
            continue;
        }
        if subtree(&nodes, index).contains(SIGNING_KEY) {
            found.push(format!(
                "{}: a step that runs `tauri build` has {SIGNING_KEY}: sign in a step of its own",
                node.line
            ));
        }
        // The job's and the workflow's `env:` reach every step.
        let mut ancestor = node.parent;
        while let Some(a) = ancestor {
            let env_in = |children: &[usize]| {
                children
                    .iter()
                    .any(|&c| key_is(&nodes[c], "env") && subtree(&nodes, c).contains(SIGNING_KEY))
            };
            if env_in(&nodes[a].children) {
                found.push(format!(
                    "{}: the step at line {} runs `tauri build` under this env with {SIGNING_KEY}: give the key to the signing step alone",
                    nodes[a].line, node.line
                ));
            }
            ancestor = nodes[a].parent;
        }
        let top: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect();
        for &t in &top {
            if key_is(&nodes[t], "env") && subtree(&nodes, t).contains(SIGNING_KEY) {
                found.push(format!(
                    "{}: the workflow's env has {SIGNING_KEY}, which the step at line {} that runs `tauri build` reads",
                    nodes[t].line, node.line
                ));
            }
        }
    }
    found
}

/// Why a `uses:` value is not pinned, or `None` when it is (`owner/repo[/path]@<40 hex> #
/// vX`, or a local `./action`).
fn unpinned(value: &str) -> Option<String> {
    let (reference, comment) = match value.split_once(" #") {
        Some((reference, comment)) => (reference.trim(), Some(comment.trim())),
        None => (value.trim(), None),
    };
    let reference = reference.trim_matches(['"', '\'']);
    if reference.starts_with("./") {
        return None;
    }
    let Some((action, version)) = reference.rsplit_once('@') else {
        return Some(format!(
            "{reference} names no version: pin it to a commit SHA"
        ));
    };
    if action.starts_with("docker://") {
        return (!version.starts_with("sha256:") || version.len() != "sha256:".len() + 64)
            .then(|| format!("{reference}: pin the image to its sha256 digest"));
    }
    let sha = version.len() == 40
        && version
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !sha {
        return Some(format!(
            "{reference} is not pinned to a commit SHA (40 hex digits)"
        ));
    }
    if comment.is_none_or(|c| c.is_empty()) {
        return Some(format!(
            "{reference}: say the version the SHA is in a trailing comment (`# v4.2.2`)"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "11d5960a326750d5838078e36cf38b85af677262";

    #[test]
    fn the_project_workflows_pin_their_actions_and_keep_the_signing_key_out_of_the_build() {
        check(&crate::steps::root().join(".github/workflows")).unwrap();
    }

    #[test]
    fn an_action_named_by_tag_or_branch_is_refused() {
        let text = format!(
            "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/checkout@main\n      - uses: actions/checkout\n      - uses: actions/checkout@{SHA} # v4.4.0\n      - uses: actions/checkout@{SHA}\n      - uses: ./local-action\n      - name: x\n        uses: \"actions/cache@{}\" # v4\n",
            &SHA[..7]
        );
        let found = problems(&text);
        let lines: Vec<&str> = found.iter().map(|p| p.split(':').next().unwrap()).collect();
        assert_eq!(lines, ["4", "5", "6", "8", "11"], "{found:#?}");
    }

    #[test]
    fn the_signing_key_in_a_build_step_or_its_jobs_env_is_refused() {
        let in_step = "jobs:\n  mac:\n    steps:\n      - name: Build\n        env:\n          TAURI_SIGNING_PRIVATE_KEY: ${{ secrets.K }}\n        run: >\n          npx --yes \"$TAURI_CLI\" build --ci\n";
        assert!(
            problems(in_step)
                .iter()
                .any(|p| p.starts_with("4: a step that runs `tauri build`")),
            "{:?}",
            problems(in_step)
        );
        let in_job = "jobs:\n  linux:\n    env:\n      TAURI_SIGNING_PRIVATE_KEY: x\n    steps:\n      - run: cargo xtask bundle\n";
        assert!(
            problems(in_job)
                .iter()
                .any(|p| p.starts_with("2: the step at line 6")),
            "{:?}",
            problems(in_job)
        );
        let in_workflow = "env:\n  TAURI_SIGNING_PRIVATE_KEY: x\njobs:\n  a:\n    steps:\n      - run: tools/release/node_modules/.bin/tauri build\n";
        assert!(
            problems(in_workflow)
                .iter()
                .any(|p| p.starts_with("1: the workflow's env")),
            "{:?}",
            problems(in_workflow)
        );
        let apart = "jobs:\n  mac:\n    steps:\n      - run: tools/release/node_modules/.bin/tauri build --ci\n      - name: Sign\n        env:\n          TAURI_SIGNING_PRIVATE_KEY: ${{ secrets.K }}\n        run: tools/release/node_modules/.bin/tauri signer sign x\n";
        assert_eq!(problems(apart), Vec::<String>::new());
    }

    #[test]
    fn npx_is_refused() {
        let text = "jobs:\n  a:\n    steps:\n      - run: |\n          echo\n          npx --yes @tauri-apps/cli@2 signer sign x\n";
        assert_eq!(problems(text).len(), 1, "{:?}", problems(text));
    }
}
