//! The files of one crate and which imports which: the module tree read from its root file
//! (`mod x;` declarations followed to `x.rs` or `x/mod.rs`), each file's internal paths
//! resolved to the file that defines what they name, and the rings among them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::allowed::{KNOWN, allowed_modules};
use super::lexer::{declared_children, lex, without_test_items};
use super::paths::{ModPath, absolute, internal_paths};
use super::rings::{Edges, rings};

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
pub(super) struct Graph {
    files: Vec<File>,
    by_module: BTreeMap<ModPath, usize>,
}

impl Graph {
    /// Reads the module tree that starts at `entry`, files read through `read`.
    pub(super) fn read(entry: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Result<Self> {
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
    pub(super) fn problems(&self, root: &Path) -> Vec<String> {
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
