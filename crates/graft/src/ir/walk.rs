//! ONNX's scope rules as walks over the IR, written once for every pass: the
//! subgraphs of a node and of a graph, a scope tree, the chain of enclosing scopes,
//! the values a subgraph reads from outside, and the functions a node may call.
//!
//! A scope tree is a root (the main graph, a training graph or a function body) with
//! every graph its nodes hold through GRAPH/GRAPHS attributes, at any depth. A
//! subgraph sees its own names and those up its scope chain; a function body sees
//! nothing outside itself.

use super::{
    Attribute, FunctionId, FunctionKey, GraphId, GraphOwner, Model, Node, NodeId, Value, ValueDef,
    ValueId, normalize_domain,
};
use crate::hash::FxMap;

impl Node {
    /// The graphs this node's attributes hold, in attribute order.
    pub fn subgraphs(&self) -> impl Iterator<Item = GraphId> + '_ {
        self.attributes.iter().flat_map(Attribute::graphs)
    }

    /// Whether an attribute of this node holds a graph.
    pub fn has_subgraphs(&self) -> bool {
        self.subgraphs().next().is_some()
    }
}

/// Depth-first, in file order, `root` first; see [`Model::scope_tree`].
pub struct ScopeTree<'m> {
    model: &'m Model,
    stack: Vec<GraphId>,
}

impl Iterator for ScopeTree<'_> {
    type Item = GraphId;

    fn next(&mut self) -> Option<GraphId> {
        let g = self.stack.pop()?;
        let before = self.stack.len();
        self.stack.extend(self.model.subgraphs_of(g));
        self.stack[before..].reverse();
        Some(g)
    }
}

impl Model {
    /// The graphs the nodes of `graph` hold (one level down), in file order.
    pub fn subgraphs_of(&self, graph: GraphId) -> impl Iterator<Item = GraphId> + '_ {
        self.graphs[graph]
            .nodes
            .iter()
            .flat_map(|&n| self.nodes[n].subgraphs())
    }

    /// `root` and every graph below it, depth-first in file order, `root` first.
    pub fn scope_tree(&self, root: GraphId) -> ScopeTree<'_> {
        ScopeTree {
            model: self,
            stack: vec![root],
        }
    }

    /// Every graph node `n` holds, at any depth (the scope trees of its subgraphs).
    pub fn graphs_within(&self, n: NodeId) -> impl Iterator<Item = GraphId> + '_ {
        self.nodes[n].subgraphs().flat_map(|s| self.scope_tree(s))
    }

    /// Every node of every graph node `n` holds, at any depth (not `n` itself).
    pub fn nodes_within(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.graphs_within(n)
            .flat_map(|g| self.graphs[g].nodes.iter().copied())
    }

    /// The values graph `g` defines: its inputs, initializers (dense and sparse; one
    /// that is an input's default comes again) and node outputs.
    pub fn defined_in(&self, g: GraphId) -> impl Iterator<Item = ValueId> + '_ {
        let graph = &self.graphs[g];
        graph
            .inputs
            .iter()
            .filter_map(|i| i.value)
            .chain(graph.initializers.iter().filter_map(|i| i.value))
            .chain(graph.sparse_initializers.iter().filter_map(|i| i.value))
            .chain(
                graph
                    .nodes
                    .iter()
                    .flat_map(|&n| self.nodes[n].outputs.iter().flatten().copied()),
            )
    }

    /// The scope trees of several roots, one after the other.
    pub fn scope_trees<'m>(
        &'m self,
        roots: impl IntoIterator<Item = GraphId> + 'm,
    ) -> impl Iterator<Item = GraphId> + 'm {
        roots.into_iter().flat_map(|r| self.scope_tree(r))
    }

    /// Every node of the scope tree under `root`, graph by graph.
    pub fn nodes_under(&self, root: GraphId) -> impl Iterator<Item = NodeId> + '_ {
        self.scope_tree(root)
            .flat_map(|g| self.graphs[g].nodes.iter().copied())
    }

    /// `graph`, then each graph that encloses it lexically, outward. A training graph
    /// is enclosed by the main graph; a function body ends its chain.
    pub fn scope_chain(&self, graph: GraphId) -> impl Iterator<Item = GraphId> + '_ {
        // Bounded by the number of graphs: a malformed owner cycle cannot loop.
        let mut next = Some(graph);
        std::iter::from_fn(move || {
            let g = next?;
            next = self.parent_graph(g).filter(|&p| p != g);
            Some(g)
        })
        .take(self.graphs.len() + 1)
    }

    /// The root of the scope tree that holds `graph`: the main graph, a training graph
    /// (which also sees the main graph) or a function body.
    pub fn scope_root(&self, graph: GraphId) -> GraphId {
        self.scope_chain(graph)
            .find(|&g| !matches!(self.graphs[g].owner, GraphOwner::Node(_)))
            .unwrap_or(graph)
    }

    /// The function whose body holds `graph` at any depth, if any.
    pub fn enclosing_function(&self, graph: GraphId) -> Option<FunctionId> {
        match self.graphs[self.scope_root(graph)].owner {
            GraphOwner::Function(f) => Some(f),
            _ => None,
        }
    }

    /// Whether `inner` is `outer` or lies below it.
    pub fn is_within(&self, inner: GraphId, outer: GraphId) -> bool {
        self.scope_chain(inner).any(|g| g == outer)
    }

    /// The graphs the model runs from: the main graph and the training graphs.
    pub fn model_roots(&self) -> impl Iterator<Item = GraphId> + '_ {
        self.graph.into_iter().chain(
            self.training_info
                .iter()
                .flat_map(|t| t.initialization.into_iter().chain(t.algorithm)),
        )
    }

    /// Every root: the model's roots, then the body of each listed function.
    pub fn all_roots(&self) -> impl Iterator<Item = GraphId> + '_ {
        self.model_roots()
            .chain(self.functions.iter().map(|&f| self.function_arena[f].body))
    }

    /// Every node reachable from a root (removed nodes left in the arenas are not).
    pub fn live_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.all_roots().flat_map(|r| self.nodes_under(r))
    }

    /// What node `n` reads: its inputs, then the outer-scope values its subgraphs read
    /// (what they capture), each once, in that order. The one definition: the view's
    /// edges, outlining and the diff's regions use it.
    pub fn node_reads(&self, n: NodeId) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.node_reads_into(n, &mut out);
        out
    }

    /// [`Model::node_reads`] into `out` (cleared first), so a loop over many nodes
    /// reuses one buffer.
    pub fn node_reads_into(&self, n: NodeId, out: &mut Vec<ValueId>) {
        out.clear();
        let node = &self.nodes[n];
        for &v in node.inputs.iter().flatten() {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        if !node.has_subgraphs() {
            return;
        }
        for g in node.subgraphs() {
            for v in self.free_values(g) {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }

    /// The values that nodes of the scope tree under `graph` read from outside it (its
    /// free values), each as often as it is read. Undefined names are not free values.
    pub fn free_values(&self, graph: GraphId) -> impl Iterator<Item = ValueId> + '_ {
        self.nodes_under(graph)
            .flat_map(|n| self.nodes[n].inputs.iter().flatten().copied())
            .filter(move |&v| {
                let value = &self.values[v];
                value.def != ValueDef::Undefined && !self.is_within(value.graph, graph)
            })
    }
}

/// The model's functions by key, and which domains hold one: what a node calls.
#[derive(Clone, Debug, Default)]
pub struct FunctionIndex {
    by_key: FxMap<FunctionKey, FunctionId>,
    /// Domains (normalized) that hold at least one local function: few.
    domains: Vec<String>,
    /// Functions whose key an earlier listed function has already.
    duplicates: Vec<FunctionId>,
}

impl FunctionIndex {
    pub fn new(model: &Model) -> Self {
        let mut index = Self::default();
        for &f in &model.functions {
            let key = model.function(f).key();
            if index.by_key.contains_key(&key) {
                index.duplicates.push(f);
            } else {
                index.insert(key, f);
            }
        }
        index
    }

    /// The function a key names (the first listed, when several share it).
    pub fn get(&self, key: &FunctionKey) -> Option<FunctionId> {
        self.by_key.get(key).copied()
    }

    pub fn insert(&mut self, key: FunctionKey, f: FunctionId) {
        if !self.domains.contains(&key.domain) {
            self.domains.push(key.domain.clone());
        }
        self.by_key.insert(key, f);
    }

    pub fn remove(&mut self, key: &FunctionKey) -> Option<FunctionId> {
        self.by_key.remove(key)
    }

    /// Whether some local function lives in `domain` (normalized or not).
    pub fn has_domain(&self, domain: &str) -> bool {
        let domain = normalize_domain(domain);
        self.domains.iter().any(|d| d == domain)
    }

    /// Whether `node`'s domain holds local functions, so that it is meant as a call.
    pub fn is_call_domain(&self, node: &Node) -> bool {
        node.op_type.is_some() && self.has_domain(node.domain())
    }

    /// The local function node `n` calls, if any.
    pub fn callee(&self, model: &Model, n: NodeId) -> Option<FunctionId> {
        if self.by_key.is_empty() {
            return None;
        }
        let node = model.nodes.get(n)?;
        if !self.is_call_domain(node) {
            return None;
        }
        self.get(&call_key(node))
    }

    /// Whether the model has no local function.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The local functions the nodes of the scope tree under `root` call, a function
    /// once per call.
    pub fn callees_under<'m>(
        &'m self,
        model: &'m Model,
        root: GraphId,
    ) -> impl Iterator<Item = FunctionId> + 'm {
        model
            .nodes_under(root)
            .filter_map(move |n| self.callee(model, n))
    }

    /// Functions listed after another with the same key.
    pub fn duplicates(&self) -> &[FunctionId] {
        &self.duplicates
    }

    pub fn keys(&self) -> impl Iterator<Item = &FunctionKey> {
        self.by_key.keys()
    }

    /// Every key with its function (the first listed, for a duplicated key).
    pub fn iter(&self) -> impl Iterator<Item = (&FunctionKey, FunctionId)> {
        self.by_key.iter().map(|(k, &f)| (k, f))
    }
}

/// The key of the function a node would call (domain normalized).
pub fn call_key(node: &Node) -> FunctionKey {
    FunctionKey {
        domain: node.domain().to_string(),
        name: node.op_type().to_string(),
        overload: node.overload().to_string(),
    }
}

/// The checked door for ids that come from outside (the page, Python, a lesson): an
/// id is live when it indexes its arena and what it names is still part of the model,
/// reachable from the main graph, a training graph or a function of the library.
/// Undo leaves removed nodes in the arena (and a compound edit's undo shortens it),
/// so an id that once named something may now name nothing: every entry point that
/// takes an id looks it up here first.
impl Model {
    /// Whether `g` is a graph of the model: its chain of owners ends at the main
    /// graph, a training graph or a function in `functions`, and each owning node is
    /// still in its graph and still holds it.
    pub fn live_graph(&self, g: GraphId) -> bool {
        let mut current = g;
        // Each step goes one scope out, so a well-formed chain is shorter than the
        // number of graphs; a longer one is a cycle.
        for _ in 0..=self.graphs.len() {
            let Some(graph) = self.graphs.get(current) else {
                return false;
            };
            match graph.owner {
                GraphOwner::Model => return self.graph == Some(current),
                GraphOwner::Function(f) => {
                    return self.functions.contains(&f)
                        && self
                            .function_arena
                            .get(f)
                            .is_some_and(|x| x.body == current);
                }
                GraphOwner::Training(i) => {
                    return self.training_info.get(i).is_some_and(|t| {
                        t.initialization == Some(current) || t.algorithm == Some(current)
                    });
                }
                GraphOwner::Node(n) => {
                    let Some(node) = self.nodes.get(n) else {
                        return false;
                    };
                    let held = node.subgraphs().any(|s| s == current);
                    let listed = self
                        .graphs
                        .get(node.graph)
                        .is_some_and(|p| p.nodes.contains(&n));
                    if !held || !listed {
                        return false;
                    }
                    current = node.graph;
                }
            }
        }
        false
    }

    /// The node `n`, if it is still in a live graph's node list.
    pub fn live_node(&self, n: NodeId) -> Option<&Node> {
        let node = self.nodes.get(n)?;
        let listed = self.graphs.get(node.graph)?.nodes.contains(&n);
        (listed && self.live_graph(node.graph)).then_some(node)
    }

    /// The value `v`, if its graph is live.
    pub fn live_value(&self, v: ValueId) -> Option<&Value> {
        let value = self.values.get(v)?;
        self.live_graph(value.graph).then_some(value)
    }

    /// The function `f`, if it is in the library.
    pub fn live_function(&self, f: FunctionId) -> Option<&super::Function> {
        self.functions
            .contains(&f)
            .then(|| self.function_arena.get(f))
            .flatten()
    }
}
