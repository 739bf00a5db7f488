//! What a change of the model touched, so that inference, the checker and the view
//! redo only that part.

use crate::hash::FxMap;

use super::{GraphId, GraphOwner, Model, NodeId, ValueId};

/// The parts of a model one change (an edit, its undo, its redo) touched. Ids are of
/// the model after the change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    /// Nodes added to a graph's list, or whose inputs, attributes or name changed.
    pub nodes: Vec<NodeId>,
    /// Of `nodes`, those whose attributes alone changed (not their inputs or name).
    pub attributes: Vec<NodeId>,
    /// Of `nodes`, those whose name alone changed.
    pub renamed: Vec<NodeId>,
    /// Nodes taken out of their graph's list (they stay in the arena).
    pub removed: Vec<NodeId>,
    /// Graphs whose node list, inputs, outputs or initializers changed.
    pub graphs: Vec<GraphId>,
    /// Values renamed.
    pub values: Vec<ValueId>,
    /// Anything may have changed (a compound edit): redo everything.
    pub whole: bool,
    /// What ids from before the change name after it.
    pub ids: Ids,
}

/// Whether ids from before a change still name the same things after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ids {
    /// Every id names what it named, or nothing (what the change removed).
    #[default]
    Kept,
    /// The arenas were cut back (an undone inline or compound edit): the ids that
    /// remain name what they named, but the next edit reuses the others.
    CutBack,
    /// The model was replaced: an id may now name something else.
    Renumbered,
}

impl Touched {
    /// Everything.
    pub fn whole() -> Touched {
        Touched {
            whole: true,
            ids: Ids::Renumbered,
            ..Touched::default()
        }
    }

    /// Whether nothing was touched.
    pub fn is_empty(&self) -> bool {
        !self.whole
            && self.nodes.is_empty()
            && self.removed.is_empty()
            && self.graphs.is_empty()
            && self.values.is_empty()
    }

    /// A graph's node list went from `before` to `after`: the nodes only in `after`
    /// are added, those only in `before` removed.
    pub fn node_list(&mut self, g: GraphId, before: &[NodeId], after: &[NodeId]) {
        let mark =
            |list: &[NodeId]| -> FxMap<NodeId, ()> { list.iter().map(|&n| (n, ())).collect() };
        let (was, is) = (mark(before), mark(after));
        self.nodes
            .extend(after.iter().filter(|n| !was.contains_key(n)));
        self.removed
            .extend(before.iter().filter(|n| !is.contains_key(n)));
        self.graph(g);
    }

    pub fn node(&mut self, n: NodeId) {
        if !self.nodes.contains(&n) {
            self.nodes.push(n);
        }
    }

    pub fn graph(&mut self, g: GraphId) {
        if !self.graphs.contains(&g) {
            self.graphs.push(g);
        }
    }

    /// Whether the change only set or removed attributes of nodes (graph structure,
    /// names and edges unchanged).
    pub fn attributes_only(&self) -> bool {
        self.nodes_only(|n| self.attributes.contains(n))
    }

    /// Whether the change only set or removed attributes of nodes or renamed nodes:
    /// what their boxes say changed, not the graph's structure or values.
    pub fn labels_only(&self) -> bool {
        self.nodes_only(|n| self.attributes.contains(n) || self.renamed.contains(n))
    }

    /// Whether the change touched only nodes, each as `changed` says.
    fn nodes_only(&self, changed: impl Fn(&NodeId) -> bool) -> bool {
        !self.whole
            && self.removed.is_empty()
            && self.graphs.is_empty()
            && self.values.is_empty()
            && !self.nodes.is_empty()
            && self.nodes.iter().all(changed)
    }

    /// Whether any touched graph, node or value lies in a function body.
    pub fn in_function(&self, model: &Model) -> bool {
        let graph_of_node = |n: &NodeId| model.nodes.get(*n).map(|n| n.graph);
        let graph_of_value = |v: &ValueId| model.values.get(*v).map(|v| v.graph);
        self.graphs
            .iter()
            .copied()
            .map(Some)
            .chain(self.nodes.iter().map(graph_of_node))
            .chain(self.removed.iter().map(graph_of_node))
            .chain(self.values.iter().map(graph_of_value))
            .any(|g| g.is_none_or(|g| in_function(model, g)))
    }
}

/// Whether graph `g` lies in a function body (or is not in the model).
fn in_function(model: &Model, mut g: GraphId) -> bool {
    loop {
        match model.graphs.get(g).map(|graph| graph.owner) {
            Some(GraphOwner::Node(n)) => match model.nodes.get(n) {
                Some(node) => g = node.graph,
                None => return true,
            },
            Some(GraphOwner::Model | GraphOwner::Training(_)) => return false,
            Some(GraphOwner::Function(_)) | None => return true,
        }
    }
}
