//! Incremental re-inference: after an edit of a few nodes, recompute only the affected
//! cone.
//!
//! Decisions:
//!
//! - **The unit is a node.** A changed node is recomputed, then every later node of its
//!   graph (graphs' node lists are topologically ordered) that reads a *dirty* value. A
//!   value becomes dirty only when its inferred type or small constant actually
//!   changed, so an edit that does not change its outputs stops there.
//! - **Subgraphs.** A node holding subgraphs (If, Loop, Scan, or any node with a graph
//!   attribute) is recomputed when one of its inputs, or an outer value any node of its
//!   subgraphs reads, is dirty; recomputing it infers its subgraphs afresh, as a full
//!   run does. A changed node inside a subgraph is walked in that subgraph first
//!   (deepest graphs first); when one of the subgraph's outputs becomes dirty, the
//!   owning node counts as changed in the parent graph, and so on up.
//! - **Sources.** The main graph's inputs are derived again on every update, and its
//!   initializers compared with their derived types (element type, dimensions, small
//!   constant): a change of a graph input's stated type or of an initializer takes
//!   effect without naming its consumers; the sources that change are dirty. A changed stated type of a node output (its `value_info` or graph
//!   output entry) counts as a change of the node that produces it: name that node.
//! - **Diagnostics** located at a recomputed value (a node's outputs, the values of a
//!   recomputed node's subgraphs, the sources) are dropped and the new ones appended:
//!   the same set as a fresh [`infer`], possibly in another order.
//! - **Fall back to a full [`infer`]** whenever the cone is not clear: a changed node
//!   that does not exist or is in no graph's node list (a removed node), a node in a
//!   function body, a call of a model-local function among the changed or recomputed
//!   nodes (function bodies are inferred per call and merged over calls), a model with
//!   another number of local functions or fewer values than before, a model with
//!   training graphs (they may read the main graph's values; rare enough to keep
//!   simple), or diagnostics edited by the caller.
//! - **Removals** are not edits `update` handles: it falls back when a removed node is
//!   named, but a value that lost its producer (a removed node's outputs, an output
//!   dropped from a node's list) keeps its last type where a fresh run has none. Call
//!   [`infer`] after removals, or [`Inferred::update_touched`], which forgets a removed
//!   node's outputs and recomputes their readers.
//! - Symbols keep their ids across updates (the interning map is kept).

use super::{Ctx, D, Engine, Inferred, Ty, in_function, infer};
use crate::ir::{GraphId, GraphOwner, Model, NodeId, Touched, ValueId};

use crate::hash::FxMap;
use std::collections::BTreeMap;

/// The cone cannot be bounded: infer the whole model.
struct Fallback;

impl Inferred {
    /// Re-infers after `changed` nodes were added to or modified in `model` (`model` is
    /// the edited one; `self` was inferred on the model before the edit). Recomputes
    /// those nodes and, in node order, every node downstream whose inputs' inferred
    /// types (or small constants) changed, and nothing else; values added since start
    /// unknown. Gives what [`infer`] of the edited model gives (diagnostics possibly in
    /// another order); falls back to [`infer`] when it cannot bound the change (see the
    /// module documentation of `infer`).
    ///
    /// ```
    /// use graft::ir::{AttrKind, AttrValue};
    /// let text = "<ir_version: 8, opset_import: [\"\" : 18]>\n\
    ///     g (float[N, 3] x) => (z) { y = Transpose <perm = [0, 1]> (x) z = Relu(y) }";
    /// let mut model = graft::text::parse_model(text).unwrap().model;
    /// let mut inferred = graft::infer::infer(&model);
    /// let g = model.graph.unwrap();
    /// let z = model.graph(g).outputs[0].value.unwrap();
    /// assert_eq!(inferred.get(z).unwrap().to_string(), "float[N,3]");
    /// let n = model.graph(g).nodes[0];
    /// model.nodes[n].attributes[0].kind = AttrKind::Value(AttrValue::Ints(vec![1, 0]));
    /// inferred.update(&model, &[n]);
    /// assert_eq!(inferred.get(z).unwrap().to_string(), "float[3,N]");
    ///     /// ```
    pub fn update(&mut self, model: &Model, changed: &[NodeId]) -> Updated {
        self.cone(model, changed, &[])
    }

    /// The incremental update, or a full run where it falls back.
    fn cone(&mut self, model: &Model, changed: &[NodeId], removed: &[NodeId]) -> Updated {
        let state = std::mem::take(self);
        match incremental(model, state, changed, removed) {
            Ok((inferred, nodes)) => {
                *self = inferred;
                Updated { nodes, full: false }
            }
            Err(Fallback) => self.full(model),
        }
    }

    /// A full run.
    fn full(&mut self, model: &Model) -> Updated {
        *self = infer(model);
        Updated {
            nodes: model.nodes.len(),
            full: true,
        }
    }
}

impl Inferred {
    /// [`Inferred::update`] after a change that `touched` describes (an edit, its undo
    /// or redo): the touched nodes, the nodes owning a touched subgraph (their
    /// subgraph's inputs or outputs changed), and the producers of a touched graph's
    /// outputs (their stated types may have changed) are recomputed; the outputs of
    /// removed nodes lose their types and their readers are recomputed. A whole
    /// change is a full run.
    pub fn update_touched(&mut self, model: &Model, touched: &Touched) -> Updated {
        if touched.whole {
            return self.full(model);
        }
        let mut changed: Vec<NodeId> = touched.nodes.clone();
        for &g in &touched.graphs {
            let Some(graph) = model.graphs.get(g) else {
                continue;
            };
            if let GraphOwner::Node(owner) = graph.owner {
                changed.push(owner);
            }
            for v in graph.outputs.iter().filter_map(|o| o.value) {
                if let Some(crate::ir::ValueDef::Node(p)) = model.values.get(v).map(|x| x.def) {
                    changed.push(p);
                }
            }
        }
        // Diagnostics name values: a renamed one's producer and readers say it again.
        for &v in &touched.values {
            let Some(value) = model.values.get(v) else {
                continue;
            };
            match value.def {
                crate::ir::ValueDef::Node(p) => changed.push(p),
                _ => return self.full(model),
            }
            if model.graphs.get(value.graph).is_some() {
                changed.extend(
                    model
                        .nodes_under(value.graph)
                        .filter(|&n| model.nodes[n].inputs.contains(&Some(v))),
                );
            }
        }
        changed.retain(|&n| {
            model
                .nodes
                .get(n)
                .and_then(|node| model.graphs.get(node.graph))
                .is_some_and(|g| g.nodes.contains(&n))
        });
        // A change inside an If/Loop/Scan body: a full run (the cone walk across
        // subgraph boundaries disagreed with a fresh run on undo in corpus tests).
        let in_subgraph = |n: &NodeId| {
            model
                .nodes
                .get(*n)
                .and_then(|node| model.graphs.get(node.graph))
                .is_some_and(|g| matches!(g.owner, GraphOwner::Node(_)))
        };
        if changed.iter().chain(&touched.removed).any(in_subgraph) {
            return self.full(model);
        }
        changed.sort_unstable();
        changed.dedup();
        self.cone(model, &changed, &touched.removed)
    }
}

/// What an [`Inferred::update`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Updated {
    /// Nodes inferred again (the nodes of a recomputed node's subgraphs included; all
    /// nodes of the model after a full run).
    pub nodes: usize,
    /// Whether the update fell back to a full [`infer`].
    pub full: bool,
}

fn incremental(
    model: &Model,
    state: Inferred,
    changed: &[NodeId],
    removed: &[NodeId],
) -> Result<(Inferred, usize), Fallback> {
    if model.values.len() < state.types.len()
        || state.diag_values.len() != state.diagnostics.len()
        || state.functions != model.functions.len()
        || !model.training_info.is_empty()
    {
        return Err(Fallback);
    }
    for &n in changed {
        let node = model.nodes.get(n).ok_or(Fallback)?;
        if model.graphs.get(node.graph).is_none()
            || in_function(model, node.graph)
            || state.calls.contains_key(&n)
        {
            return Err(Fallback);
        }
    }
    for &n in removed {
        let node = model.nodes.get(n).ok_or(Fallback)?;
        let graph = model.graphs.get(node.graph).ok_or(Fallback)?;
        // A fresh run infers the subgraphs of a removed node on their own.
        let holds_graphs = node.has_subgraphs();
        if in_function(model, node.graph)
            || state.calls.contains_key(&n)
            || graph.nodes.contains(&n)
            || holds_graphs
        {
            return Err(Fallback);
        }
    }
    let mut e = Engine::new(model, state);
    let mut u = Update::new(model);
    u.run(&mut e, changed, removed)?;
    // Drop the diagnostics of recomputed values that were there before the update.
    let mut k = 0;
    let old = u.old_diagnostics;
    let cleared = &u.cleared;
    let is_cleared = |v: ValueId| cleared.get(v.index()).copied().unwrap_or(false);
    let values = std::mem::take(&mut e.diag_values);
    let mut kept_values = Vec::with_capacity(values.len());
    e.diagnostics.retain(|_| {
        let v = values[k];
        let keep = k >= old || !is_cleared(v);
        if keep {
            kept_values.push(v);
        }
        k += 1;
        keep
    });
    e.diag_values = kept_values;
    let nodes = e.nodes_run;
    Ok((e.finish(), nodes))
}

struct Update {
    /// Values whose type or constant changed in this update.
    dirty: Vec<bool>,
    /// Nodes named as changed (or owners of a subgraph whose outputs changed).
    changed: Vec<bool>,
    /// Values recomputed in this update: their earlier diagnostics go.
    cleared: Vec<bool>,
    old_diagnostics: usize,
    /// Nesting depth of every graph (main graph 0).
    depth: Vec<u32>,
}

impl Update {
    fn new(model: &Model) -> Self {
        let depth = model
            .graphs
            .iter()
            .map(|(g, _)| graph_depth(model, g))
            .collect();
        Update {
            dirty: vec![false; model.values.len()],
            changed: vec![false; model.nodes.len()],
            cleared: vec![false; model.values.len()],
            old_diagnostics: 0,
            depth,
        }
    }

    fn depth(&self, g: GraphId) -> u32 {
        self.depth.get(g.index()).copied().unwrap_or(0)
    }

    fn run(
        &mut self,
        e: &mut Engine,
        changed: &[NodeId],
        removed: &[NodeId],
    ) -> Result<(), Fallback> {
        let model = e.model;
        self.old_diagnostics = e.diagnostics.len();
        // Walks to do: (deepest first) graph → first position.
        let mut walks: BTreeMap<(std::cmp::Reverse<u32>, GraphId), usize> = BTreeMap::new();
        let seed = |walks: &mut BTreeMap<_, usize>, depth: u32, g: GraphId, pos: usize| {
            let slot = walks
                .entry((std::cmp::Reverse(depth), g))
                .or_insert(usize::MAX);
            *slot = (*slot).min(pos);
        };
        if let Some(g) = model.graph
            && self.refresh_sources(e, g)
        {
            seed(&mut walks, self.depth(g), g, 0);
        }
        // A removed node's values lose their types; its graph is walked from the start
        // (its readers may be anywhere after where it was).
        for &n in removed {
            if is_call(e, n) {
                return Err(Fallback);
            }
            let before = self.forget(e, n)?;
            if self.mark(e, before) {
                let g = model.nodes[n].graph;
                seed(&mut walks, self.depth(g), g, 0);
            }
        }
        // One pass over each graph with changed nodes finds where its walk starts and
        // that every named node is still in the graph's list.
        let mut named: FxMap<GraphId, usize> = FxMap::default();
        for &n in changed {
            if let Some(c) = self.changed.get_mut(n.index())
                && !std::mem::replace(c, true)
            {
                *named.entry(model.nodes[n].graph).or_insert(0) += 1;
            }
        }
        for (g, count) in named {
            let nodes = &model.graphs[g].nodes;
            let mut first = None;
            let mut found = 0;
            for (i, m) in nodes.iter().enumerate() {
                if self.changed.get(m.index()).copied().unwrap_or(false) {
                    first.get_or_insert(i);
                    found += 1;
                }
            }
            match first {
                Some(pos) if found >= count => seed(&mut walks, self.depth(g), g, pos),
                _ => return Err(Fallback),
            }
        }
        while let Some(((_, g), pos)) = walks.pop_first() {
            self.walk(e, g, pos)?;
            let graph = &model.graphs[g];
            let outputs_dirty = graph
                .outputs
                .iter()
                .filter_map(|o| o.value)
                .any(|v| self.is_dirty(v));
            if let (GraphOwner::Node(owner), true) = (graph.owner, outputs_dirty) {
                let parent = model.nodes[owner].graph;
                if in_function(model, parent) {
                    return Err(Fallback);
                }
                let pos = position(model, parent, owner).ok_or(Fallback)?;
                if let Some(c) = self.changed.get_mut(owner.index()) {
                    *c = true;
                }
                seed(&mut walks, self.depth(parent), parent, pos);
            }
        }
        Ok(())
    }

    fn is_dirty(&self, v: ValueId) -> bool {
        self.dirty.get(v.index()).copied().unwrap_or(false)
    }

    fn clear(&mut self, e: &mut Engine, v: ValueId) {
        let Some(c) = self.cleared.get_mut(v.index()) else {
            return;
        };
        if !std::mem::replace(c, true) && !e.reported.is_empty() {
            for (code, _) in super::CODES {
                e.reported.remove(&(v, *code));
            }
        }
    }

    /// Derives the main graph's inputs and initializers again, as a fresh run does; marks
    /// those that changed. Returns whether any did. An initializer that is no input and
    /// has no stated type is only compared (element type, dimensions, constant): the
    /// common case, and thousands of them in large models.
    fn refresh_sources(&mut self, e: &mut Engine, g: GraphId) -> bool {
        let model = e.model;
        let graph = &model.graphs[g];
        let mut again: FxMap<ValueId, ()> = graph
            .inputs
            .iter()
            .filter_map(|i| i.value)
            .chain(graph.sparse_initializers.iter().filter_map(|i| i.value))
            .map(|v| (v, ()))
            .collect();
        for init in &graph.initializers {
            let Some(v) = init.value else { continue };
            if again.contains_key(&v) {
                continue;
            }
            let t = &init.tensor;
            let stated = e.stated.get(v.index()).copied().flatten().is_some();
            let same = !stated
                && match e.types.get(v.index()) {
                    Some(Some(Ty::Tensor {
                        elem,
                        shape: Some(s),
                    })) => {
                        *elem == t.data_type()
                            && s.len() == t.dims.len()
                            && s.iter().zip(&t.dims).all(|(&a, &b)| a == D::Val(b))
                    }
                    _ => false,
                }
                && e.consts.get(&v) == super::shapes::tensor_consts(t).as_ref();
            if !same {
                again.insert(v, ());
            }
        }
        if again.is_empty() {
            return false;
        }
        let mut before = Vec::with_capacity(again.len());
        for &v in again.keys() {
            self.clear(e, v);
            let t = e.types.get_mut(v.index()).and_then(Option::take);
            before.push((v, t, e.consts.remove(&v)));
        }
        for info in &graph.inputs {
            if let Some(v) = info.value {
                e.set(v, None, None);
            }
        }
        e.run_sources_of(g, |v| again.contains_key(&v));
        self.mark(e, before)
    }

    /// Marks the values whose type or constant differs from `before`.
    fn mark(&mut self, e: &Engine, before: Vec<(ValueId, Option<Ty>, Option<Vec<D>>)>) -> bool {
        let mut any = false;
        for (v, t, c) in before {
            let now = e.types.get(v.index()).and_then(Option::as_ref);
            if now != t.as_ref() || e.consts.get(&v) != c.as_ref() {
                if let Some(d) = self.dirty.get_mut(v.index()) {
                    *d = true;
                }
                any = true;
            }
        }
        any
    }

    /// Walks `g` from node position `pos`, recomputing the nodes in the cone.
    fn walk(&mut self, e: &mut Engine, g: GraphId, pos: usize) -> Result<(), Fallback> {
        let model = e.model;
        let ctx = Ctx {
            opsets: &model.opset_import,
            fallback: &[],
            attrs: None,
        };
        let depth = self.depth(g);
        let nodes = model.graphs[g].nodes.get(pos..).unwrap_or(&[]);
        for &n in nodes {
            let node = &model.nodes[n];
            let needed = self.changed.get(n.index()).copied().unwrap_or(false)
                || node.inputs.iter().flatten().any(|&v| self.is_dirty(v))
                || self.captures_dirty(model, n, depth);
            if needed {
                self.recompute(e, n, &ctx)?;
            }
        }
        Ok(())
    }

    /// Whether a node of `n`'s subgraphs reads a dirty value from outside them (of
    /// depth at most `depth`, the depth of `n`'s graph).
    fn captures_dirty(&self, model: &Model, n: NodeId, depth: u32) -> bool {
        model.graphs_within(n).any(|g| {
            model.graph(g).nodes.iter().any(|&m| {
                model.nodes[m].inputs.iter().flatten().any(|&v| {
                    self.is_dirty(v)
                        && model
                            .values
                            .get(v)
                            .is_some_and(|x| self.depth(x.graph) <= depth)
                })
            })
        })
    }

    /// Infers `n` (and its subgraphs) again; marks its outputs that changed.
    fn recompute(&mut self, e: &mut Engine, n: NodeId, ctx: &Ctx) -> Result<(), Fallback> {
        if is_call(e, n) {
            return Err(Fallback);
        }
        let before = self.forget(e, n)?;
        e.node(n, ctx);
        self.mark(e, before);
        Ok(())
    }

    /// Forgets what is known of `n`'s outputs and of every value of its subgraphs (they
    /// start from nothing, as in a fresh run); returns the outputs as they were.
    #[allow(clippy::type_complexity)]
    fn forget(
        &mut self,
        e: &mut Engine,
        n: NodeId,
    ) -> Result<Vec<(ValueId, Option<Ty>, Option<Vec<D>>)>, Fallback> {
        let model = e.model;
        let node = &model.nodes[n];
        let mut before = Vec::with_capacity(node.outputs.len());
        for &v in node.outputs.iter().flatten() {
            self.clear(e, v);
            let t = e.types.get_mut(v.index()).and_then(Option::take);
            before.push((v, t, e.consts.remove(&v)));
        }
        for g in model.graphs_within(n) {
            let graph = model.graph(g);
            for v in model.defined_in(g) {
                self.clear(e, v);
                if let Some(slot) = e.types.get_mut(v.index()) {
                    *slot = None;
                }
                e.consts.remove(&v);
            }
            if graph.nodes.iter().any(|&m| is_call(e, m)) {
                return Err(Fallback);
            }
        }
        Ok(before)
    }
}

/// Whether `n` calls a model-local function.
fn is_call(e: &Engine, n: NodeId) -> bool {
    if e.calls.contains_key(&n) {
        return true;
    }
    e.functions.callee(e.model, n).is_some()
}

/// The position of `n` in `g`'s node list.
fn position(model: &Model, g: GraphId, n: NodeId) -> Option<usize> {
    model.graphs.get(g)?.nodes.iter().position(|&m| m == n)
}

fn graph_depth(model: &Model, g: GraphId) -> u32 {
    let mut d = 0;
    let mut cur = g;
    // Bounded: a malformed cycle of owners stops.
    for _ in 0..model.graphs.len() {
        match model.graphs.get(cur).map(|x| x.owner) {
            Some(GraphOwner::Node(o)) => match model.nodes.get(o) {
                Some(node) => {
                    cur = node.graph;
                    d += 1;
                }
                None => break,
            },
            _ => break,
        }
    }
    d
}
