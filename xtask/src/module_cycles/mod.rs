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
//!
//! One job per file: [`lexer`] the tokens, [`paths`] their resolution to module paths,
//! [`graph`] the crate's files and their imports, [`rings`] the rings among them, [`allowed`]
//! the reasons that let a ring stand; this file finds the workspace's targets and reports.

mod allowed;
mod graph;
mod lexer;
mod paths;
mod rings;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use self::allowed::{KNOWN, MARKER};
use self::graph::Graph;

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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

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
