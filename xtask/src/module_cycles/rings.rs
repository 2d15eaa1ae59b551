//! Ring finding over the import graph: the strongly connected sets of files (Tarjan's
//! algorithm), and one shortest cycle through each, for the message.

use std::collections::{BTreeMap, BTreeSet};

/// An import of one file by another: the line of the first path that makes it.
pub(super) type Edges = BTreeMap<(usize, usize), usize>;

/// One cycle through each strongly connected set of more than one file (Tarjan's algorithm,
/// then a shortest way back to the set's `first` file).
pub(super) fn rings(
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
