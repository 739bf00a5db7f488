//! Fresh names: the one generator every pass uses for a name no other one in its
//! scope has (values of a scope tree, node names, function names, symbolic dims).

use std::collections::HashSet;

use super::{GraphId, Model};
use crate::hash::{FxBuild, FxMap};

/// Names in use, and the next suffix to try for each base.
///
/// A name is remembered by its 64-bit hash: a collision can only make a free name look
/// taken (another suffix is tried), never a taken one look free, and it spares a copy
/// of every name.
#[derive(Clone, Debug)]
pub struct Names {
    taken: HashSet<u64, FxBuild>,
    next: FxMap<String, usize>,
    /// The first suffix tried: `base_2` by default.
    first: usize,
}

impl Default for Names {
    fn default() -> Self {
        Self {
            taken: HashSet::default(),
            next: FxMap::default(),
            first: 2,
        }
    }
}

fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher as _;
    FxBuild::default().hash_one(name)
}

impl Names {
    /// These names taken.
    pub fn taking<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut out = Self::default();
        for name in names {
            out.taken.insert(name_hash(name));
        }
        out
    }

    /// Every value name of the scope tree under `root` taken (for a training graph,
    /// the main graph's tree too: it sees those names).
    pub fn of_tree(model: &Model, root: GraphId) -> Self {
        let mut names = Names::default();
        let seen = match model.graph(root).owner {
            super::GraphOwner::Training(_) => model.graph,
            _ => None,
        };
        for g in model
            .scope_tree(root)
            .chain(seen.into_iter().flat_map(|m| model.scope_tree(m)))
        {
            let graph = model.graph(g);
            let infos = graph
                .inputs
                .iter()
                .chain(&graph.outputs)
                .chain(&graph.value_info)
                .map(|i| i.value);
            let weights = graph
                .initializers
                .iter()
                .map(|i| i.value)
                .chain(graph.sparse_initializers.iter().map(|s| s.value));
            for v in infos.chain(weights).flatten() {
                names.taken.insert(name_hash(&model.value(v).name));
            }
            for &n in &graph.nodes {
                let node = model.node(n);
                for v in node.inputs.iter().chain(&node.outputs).flatten() {
                    names.taken.insert(name_hash(&model.value(*v).name));
                }
            }
        }
        names
    }

    /// Suffixes start at `first` (`base_1` for 1) instead of 2.
    pub fn first_suffix(mut self, first: usize) -> Self {
        self.first = first;
        self
    }

    /// Room for `n` more names without rehashing.
    pub fn reserve(&mut self, n: usize) {
        self.taken.reserve(n);
    }

    /// Claims `name` as it is; false when it is already taken.
    pub fn claim(&mut self, name: &str) -> bool {
        self.taken.insert(name_hash(name))
    }

    /// Whether `name` is taken.
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(&name_hash(name))
    }

    /// `base` if free, else `base_2`, `base_3`, … (the first free one), now taken. An
    /// empty base is `v`.
    pub fn fresh(&mut self, base: &str) -> String {
        if !base.is_empty() && self.claim(base) {
            return base.to_string();
        }
        self.suffixed(base)
    }

    /// [`Names::fresh`] for a name already built (no copy when it is free).
    pub fn fresh_owned(&mut self, base: String) -> String {
        if !base.is_empty() && self.claim(&base) {
            return base;
        }
        self.suffixed(&base)
    }

    fn suffixed(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "v" } else { base };
        // Most bases collide once (`x` taken, `x_2` free): they are not remembered, so
        // a whole model's names do not each cost a key. A base that collides again
        // remembers where its suffixes stand, so a batch of copies stays linear.
        let first = self.first;
        let k = match self.next.get_mut(base) {
            Some(k) => k,
            None => {
                let candidate = format!("{base}_{first}");
                if self.taken.insert(name_hash(&candidate)) {
                    return candidate;
                }
                self.next.entry(base.to_string()).or_insert(first + 1)
            }
        };
        loop {
            let candidate = format!("{base}_{k}");
            *k += 1;
            if self.taken.insert(name_hash(&candidate)) {
                return candidate;
            }
        }
    }
}

/// Whether `text` is an identifier: a letter or `_`, then letters, digits and `_`.
pub fn is_identifier(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `MatMul` → `matmul`, `ReduceSum` → `reduce_sum`, `If` → `if_`: the constructor
/// names of the generated operator sets (also the base of output names).
pub fn snake_case(op: &str) -> String {
    let op = op.replace("MatMul", "Matmul");
    let chars: Vec<char> = op.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    if is_keyword(&out) {
        out.push('_');
    }
    out
}

/// A Rust keyword (a generated name gets a `_` after it).
pub fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}

#[cfg(test)]
mod tests {
    use super::Names;

    #[test]
    fn fresh_skips_taken_and_generated_names() {
        let mut names = Names::taking(["g/t", "g/t_2"]);
        assert_eq!(names.fresh("g/t"), "g/t_3");
        assert_eq!(names.fresh("g/t"), "g/t_4");
        assert_eq!(names.fresh("g/u"), "g/u");
        assert!(!names.claim("g/u"));
        assert_eq!(names.fresh(""), "v_2");
        let mut ones = Names::taking(["x"]).first_suffix(1);
        assert_eq!(ones.fresh("x"), "x_1");
    }
}
