//! What a compound edit changed, as its undo record: a pass runs on the model, and
//! instead of the model before it, the record keeps what undo needs to put it back.
//! Passes only append to the arenas (ids are never reused) or change entries in place,
//! so that is: how long each arena was, the entries that changed (as they were), and
//! the model's own fields (the function list, opset imports, metadata…). Tensor
//! payloads are shared either way.

use crate::ir::{Arena, ArenaId, Graph, GraphId, Model};

/// The arena entries a pass changed, as they were, and the arena's length before.
#[derive(Clone, Debug)]
struct Changed<I, T> {
    len: usize,
    old: Vec<(I, T)>,
}

impl<I: ArenaId, T: PartialEq> Changed<I, T> {
    /// The entries of `before` that `after` no longer has as they were.
    fn between(before: Arena<I, T>, after: &Arena<I, T>) -> Self {
        let len = before.len();
        let old = before
            .into_items()
            .into_iter()
            .enumerate()
            .map(|(i, item)| (I::from_index(i), item))
            .filter(|(id, item)| after.get(*id) != Some(item))
            .collect();
        Changed { len, old }
    }

    /// Puts `arena` back as it was: what was appended goes, what changed comes back.
    fn restore(self, arena: &mut Arena<I, T>) {
        arena.truncate(self.len);
        for (id, item) in self.old {
            match arena.get_mut(id) {
                Some(slot) => *slot = item,
                // Only if the pass shrank the arena (none does): in id order.
                None => {
                    arena.push(item);
                }
            }
        }
    }
}

/// A changed graph's big lists that the pass left alone are not kept twice: the
/// record holds them empty, and undo takes them from the graph as it is.
#[derive(Clone, Copy, Debug, Default)]
struct Unchanged {
    initializers: bool,
    value_info: bool,
    sparse_initializers: bool,
}

impl Unchanged {
    /// Empties in `old` the lists `now` has alike.
    fn slim(old: &mut Graph, now: &Graph) -> Self {
        let mut same = Unchanged::default();
        if old.initializers == now.initializers {
            old.initializers = Vec::new();
            same.initializers = true;
        }
        if old.value_info == now.value_info {
            old.value_info = Vec::new();
            same.value_info = true;
        }
        if old.sparse_initializers == now.sparse_initializers {
            old.sparse_initializers = Vec::new();
            same.sparse_initializers = true;
        }
        same
    }

    /// Moves into `old` the lists it left out, from `now`.
    fn fill(self, old: &mut Graph, now: &mut Graph) {
        if self.initializers {
            old.initializers = std::mem::take(&mut now.initializers);
        }
        if self.value_info {
            old.value_info = std::mem::take(&mut now.value_info);
        }
        if self.sparse_initializers {
            old.sparse_initializers = std::mem::take(&mut now.sparse_initializers);
        }
    }
}

/// What undoes a compound edit.
#[derive(Clone, Debug)]
pub(crate) struct ModelDiff {
    /// The model before, without its arenas: its own fields.
    head: Model,
    graphs: Changed<GraphId, Graph>,
    /// For each changed graph (in the order of `graphs.old`), what of it was left out.
    slim: Vec<(GraphId, Unchanged)>,
    nodes: Changed<crate::ir::NodeId, crate::ir::Node>,
    values: Changed<crate::ir::ValueId, crate::ir::Value>,
    functions: Changed<crate::ir::FunctionId, crate::ir::Function>,
}

impl ModelDiff {
    /// What changed from `before` to `after`.
    pub(crate) fn between(mut before: Model, after: &Model) -> Self {
        let mut graphs = Changed::between(std::mem::take(&mut before.graphs), &after.graphs);
        let slim = graphs
            .old
            .iter_mut()
            .map(|(id, old)| {
                let now = after.graphs.get(*id);
                (
                    *id,
                    now.map_or_else(Unchanged::default, |now| Unchanged::slim(old, now)),
                )
            })
            .collect();
        let nodes = Changed::between(std::mem::take(&mut before.nodes), &after.nodes);
        let values = Changed::between(std::mem::take(&mut before.values), &after.values);
        let functions = Changed::between(
            std::mem::take(&mut before.function_arena),
            &after.function_arena,
        );
        ModelDiff {
            head: before,
            graphs,
            slim,
            nodes,
            values,
            functions,
        }
    }

    /// Puts `model` back as it was before the edit.
    pub(crate) fn restore(self, model: &mut Model) {
        let mut graphs = std::mem::take(&mut model.graphs);
        let mut old_graphs = self.graphs;
        for ((id, old), (slim_id, same)) in old_graphs.old.iter_mut().zip(&self.slim) {
            debug_assert_eq!(id, slim_id);
            if let Some(now) = graphs.get_mut(*id) {
                same.fill(old, now);
            }
        }
        let mut nodes = std::mem::take(&mut model.nodes);
        let mut values = std::mem::take(&mut model.values);
        let mut functions = std::mem::take(&mut model.function_arena);
        old_graphs.restore(&mut graphs);
        self.nodes.restore(&mut nodes);
        self.values.restore(&mut values);
        self.functions.restore(&mut functions);
        *model = self.head;
        model.graphs = graphs;
        model.nodes = nodes;
        model.values = values;
        model.function_arena = functions;
    }
}
