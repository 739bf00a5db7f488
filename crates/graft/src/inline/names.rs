//! Fresh names: value names unique in a whole scope tree, node names unique in the
//! model, function names unique among function ids, symbolic dims unique in the model.

use std::collections::HashSet;

use crate::hash::FxBuild;
use crate::ir::{DimValue, GraphId, GraphOwner, Model, Type, TypeValue};

/// Names already in use (borrowed from the host) plus the names generated so far.
///
/// Generated names are remembered by their 64-bit hash, not their text: a hash
/// collision can only make a free name look taken (the next suffix is used instead),
/// never let a name be given twice, and it saves a copy of every generated name.
pub(super) struct Fresh<'h> {
    taken: HashSet<&'h str, FxBuild>,
    made: HashSet<u64, FxBuild>,
}

fn hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    FxBuild::default().hash_one(name)
}

impl<'h> Fresh<'h> {
    pub(super) fn new(taken: HashSet<&'h str, FxBuild>) -> Self {
        Self {
            taken,
            made: HashSet::default(),
        }
    }

    /// Claims `name` as it is; false when it is already in use.
    pub(super) fn claim(&mut self, name: &str) -> bool {
        // One hash of the name: `insert` says whether it was new.
        !self.taken.contains(name) && self.made.insert(hash(name))
    }

    /// Room for `n` more generated names without rehashing.
    pub(super) fn reserve(&mut self, n: usize) {
        self.made.reserve(n);
    }

    /// `base` if free, else `base_2`, `base_3`, ... (the first free one), claimed.
    pub(super) fn fresh(&mut self, base: &str) -> String {
        if self.claim(base) {
            return base.to_string();
        }
        let mut k = 2usize;
        loop {
            let candidate = format!("{base}_{k}");
            if self.claim(&candidate) {
                return candidate;
            }
            k += 1;
        }
    }

    /// [`Fresh::fresh`] for a name already built (no copy when it is free).
    pub(super) fn fresh_owned(&mut self, base: String) -> String {
        if self.claim(&base) {
            return base;
        }
        self.fresh(&base)
    }
}

/// The outermost graph of `graph`'s scope chain: the main graph, or a function body
/// (training graphs hang off the main graph).
pub(super) fn root(model: &Model, graph: GraphId) -> GraphId {
    let mut current = graph;
    // The chain is bounded by the number of graphs (each step goes to a distinct
    // enclosing graph in a well-formed model; the bound guards a malformed one).
    for _ in 0..=model.graphs.len() {
        match model.parent_graph(current) {
            Some(parent) if parent != current => current = parent,
            _ => break,
        }
    }
    current
}

/// For every graph of `model`, its root (see [`root`]), computed once.
pub(super) fn roots(model: &Model) -> Vec<GraphId> {
    model.graphs.iter().map(|(g, _)| root(model, g)).collect()
}

/// Whether `graph` is inside a function body (at any depth), and which function.
pub(super) fn enclosing_function(model: &Model, graph: GraphId) -> Option<crate::ir::FunctionId> {
    match model.graph(root(model, graph)).owner {
        GraphOwner::Function(f) => Some(f),
        _ => None,
    }
}

/// Every `dim_param` in a type, mutably.
pub(super) fn for_each_dim_param(ty: &mut Type, f: &mut dyn FnMut(&mut String)) {
    match &mut ty.value {
        Some(TypeValue::Tensor(t)) | Some(TypeValue::SparseTensor(t)) => {
            if let Some(shape) = &mut t.shape {
                for d in &mut shape.dims {
                    if let Some(DimValue::Param(p)) = &mut d.value {
                        f(p);
                    }
                }
            }
        }
        Some(TypeValue::Sequence(Some(inner))) | Some(TypeValue::Optional(Some(inner))) => {
            for_each_dim_param(inner, f);
        }
        Some(TypeValue::Map {
            value_type: Some(inner),
            ..
        }) => for_each_dim_param(inner, f),
        _ => {}
    }
}

/// Every `dim_param` of a type, read only.
pub(super) fn dim_params<'a>(ty: &'a Type, out: &mut Vec<&'a str>) {
    match &ty.value {
        Some(TypeValue::Tensor(t)) | Some(TypeValue::SparseTensor(t)) => {
            if let Some(shape) = &t.shape {
                for d in &shape.dims {
                    if let Some(DimValue::Param(p)) = &d.value {
                        out.push(p);
                    }
                }
            }
        }
        Some(TypeValue::Sequence(Some(inner))) | Some(TypeValue::Optional(Some(inner))) => {
            dim_params(inner, out);
        }
        Some(TypeValue::Map {
            value_type: Some(inner),
            ..
        }) => dim_params(inner, out),
        _ => {}
    }
}

/// Every `dim_param` named in the value infos of every graph of a model.
pub(super) fn model_dim_params(model: &Model) -> Vec<&str> {
    let mut out = Vec::new();
    for (_, g) in model.graphs.iter() {
        for vi in g.inputs.iter().chain(&g.outputs).chain(&g.value_info) {
            if let Some(ty) = &vi.ty {
                dim_params(ty, &mut out);
            }
        }
    }
    out
}

/// `text` with every character that is not `[A-Za-z0-9_]` replaced by `_`, and a
/// leading `_` when it would start with a digit (or be empty): an identifier, which the
/// text format writes bare.
pub(super) fn identifier(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_skips_taken_and_generated_names() {
        let taken: HashSet<&str, FxBuild> = ["g/t", "g/t_2"].into_iter().collect();
        let mut names = Fresh::new(taken);
        assert_eq!(names.fresh("g/t"), "g/t_3");
        assert_eq!(names.fresh("g/t"), "g/t_4");
        assert_eq!(names.fresh("g/u"), "g/u");
        assert!(!names.claim("g/u"));
    }

    #[test]
    fn identifiers() {
        assert_eq!(identifier("my model/v1"), "my_model_v1");
        assert_eq!(identifier("1x"), "_1x");
        assert_eq!(identifier(""), "_");
    }
}
