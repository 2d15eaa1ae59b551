//! The house keeps a file to one job and about [`MAX_CODE_LINES`] lines of code; a file that is
//! longer says why in its `//!` (as `crates/client/src/queue.rs` does), in a paragraph that
//! starts with [`WHY`]. This check finds the Rust files that are longer and do not say it, so
//! a file that grows past the mark is either split or explained in the same commit.
//!
//! A line of code is a line that is neither blank nor a `//` comment (doc comments included):
//! what a reader has to read as code.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The most lines of code a file has without saying why.
pub const MAX_CODE_LINES: usize = 500;

/// How the `//!` paragraph that says why begins.
pub const WHY: &str = "It is longer than the house's 500 lines";

/// Folders never searched.
const SKIPPED: &[&str] = &["target", "node_modules", ".git", "corpus", "artifacts"];

/// Checks every Rust file of the workspace at `root`.
pub fn check(root: &Path) -> Result<()> {
    let mut files = Vec::new();
    rust_files(root, &mut files)?;
    let mut long = 0;
    let mut silent = Vec::new();
    for file in &files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let lines = code_lines(&text);
        if lines <= MAX_CODE_LINES {
            continue;
        }
        long += 1;
        if !says_why(&text) {
            let shown = file.strip_prefix(root).unwrap_or(file);
            silent.push(format!("  {} ({lines} lines of code)", shown.display()));
        }
    }
    if !silent.is_empty() {
        bail!(
            "files over {MAX_CODE_LINES} lines of code whose //! does not say why (a paragraph \
             starting \"{WHY}\"), or split them:\n{}",
            silent.join("\n")
        );
    }
    println!(
        "long files: {long} of {} Rust files are over {MAX_CODE_LINES} lines of code, each says why",
        files.len()
    );
    Ok(())
}

/// The lines of `text` that are neither blank nor a `//` comment.
pub fn code_lines(text: &str) -> usize {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("//"))
        .count()
}

/// Whether the module's `//!` doc holds the paragraph that says why the file is long.
pub fn says_why(text: &str) -> bool {
    let doc: String = text
        .lines()
        .map(str::trim_start)
        .filter_map(|line| line.strip_prefix("//!"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    doc.contains(WHY)
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("reading the folder {}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        if entry.file_type()?.is_dir() {
            if !SKIPPED.iter().any(|skipped| name == *skipped) {
                rust_files(&path, files)?;
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_file(doc: &str) -> String {
        let mut text = doc.to_owned();
        text.push_str("\n// a comment is not code\n\n");
        for i in 0..=MAX_CODE_LINES {
            text.push_str(&format!("const C{i}: u32 = {i};\n"));
        }
        text
    }

    #[test]
    fn blank_lines_and_comments_are_not_code() {
        assert_eq!(code_lines("//! doc\n\n  // note\nfn f() {}\n   \n}\n"), 2);
    }

    #[test]
    fn the_why_may_wrap_across_doc_lines() {
        let doc = "//! Why it exists.\n//!\n//! It is longer than the house's\n//! 500 lines (about 501 of code): one table.";
        assert!(says_why(&long_file(doc)));
        assert!(!says_why(&long_file(
            "//! Why it exists, and nothing about its length."
        )));
        // Said in a plain comment it is not the module's doc.
        assert!(!says_why(&long_file(
            "// It is longer than the house's 500 lines"
        )));
    }

    #[test]
    fn a_long_file_that_does_not_say_why_fails_the_check() {
        let root = std::env::temp_dir().join(format!("xtask-long-files-{}", std::process::id()));
        let src = root.join("crates/some/src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("short.rs"), "//! Short.\nfn f() {}\n").unwrap();
        std::fs::write(src.join("long.rs"), long_file("//! Long, silent.")).unwrap();
        let err = check(&root).unwrap_err().to_string();
        assert!(
            err.contains("crates/some/src/long.rs (501 lines of code)"),
            "{err}"
        );
        assert!(!err.contains("short.rs"), "{err}");
        std::fs::write(
            src.join("long.rs"),
            long_file("//! Long.\n//!\n//! It is longer than the house's 500 lines: one table."),
        )
        .unwrap();
        check(&root).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
    }
}
