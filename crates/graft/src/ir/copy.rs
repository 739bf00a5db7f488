//! The one deep copy of graphs and nodes the passes share: inlining a call copies the
//! callee's body into the caller (fresh names), specializing copies it into a new
//! function (names kept). Attribute references are bound as the copy goes; subgraphs
//! are copied under their new nodes, reading the copies of outer values.

use super::{
    AttrKind, AttrValue, Attribute, Graph, GraphId, GraphOwner, Initializer, Model, Names, Node,
    NodeId, SparseInitializer, Value, ValueDef, ValueId, ValueInfo,
};
use crate::hash::FxMap;

/// A source value and its copy (`None`: the absent name).
pub type ValueMap = FxMap<ValueId, Option<ValueId>>;

/// One deep copy in progress.
pub struct Copier<'a> {
    /// Source values and their copies. A value not in it is read as it is (a value of
    /// an enclosing scope that the copy shares).
    pub map: ValueMap,
    /// Fresh names for the copies, or `None` to keep the source's names (the copy is
    /// a scope of its own).
    names: Option<&'a mut Names>,
    /// What a reference `@name` is bound to; `None` drops the attribute, so the op's
    /// own default applies.
    bind: &'a dyn Fn(&str) -> Option<AttrKind>,
}

impl<'a> Copier<'a> {
    pub fn new(names: Option<&'a mut Names>, bind: &'a dyn Fn(&str) -> Option<AttrKind>) -> Self {
        Self {
            map: ValueMap::default(),
            names,
            bind,
        }
    }

    /// New values in `into` for the values `source` defines that the map lacks:
    /// inputs, weights, node outputs (defined by their node's copy).
    pub fn define(&mut self, model: &mut Model, source: GraphId, into: GraphId) {
        let defined: Vec<ValueId> = model.defined_in(source).collect();
        for v in defined {
            if self.map.contains_key(&v) {
                continue;
            }
            let old = &model.values[v];
            let def = match old.def {
                ValueDef::Node(_) => ValueDef::Undefined,
                other => other,
            };
            let name = match self.names.as_deref_mut() {
                Some(names) => names.fresh(&old.name),
                None => old.name.clone(),
            };
            let id = model.values.push(Value {
                name,
                graph: into,
                def,
            });
            self.map.insert(v, Some(id));
        }
    }

    /// A copy of node `n` in graph `into` (its name prefixed `prefix/` when given):
    /// values through the map, references bound, subgraphs copied under it. Its
    /// outputs' values (defined already) are made its own.
    pub fn node(
        &mut self,
        model: &mut Model,
        n: NodeId,
        into: GraphId,
        prefix: Option<&str>,
    ) -> NodeId {
        let old = model.node(n).clone();
        let map = &self.map;
        let mapped = |v: &mut Option<ValueId>| {
            if let Some(s) = *v {
                *v = map.get(&s).copied().unwrap_or(Some(s));
            }
        };
        let mut inputs = old.inputs;
        inputs.iter_mut().for_each(mapped);
        let mut outputs = old.outputs;
        outputs.iter_mut().for_each(mapped);
        let name = match (prefix, old.name) {
            (Some(p), Some(name)) if !name.is_empty() => Some(format!("{p}/{name}")),
            (_, name) => name,
        };
        let id = model.nodes.push(Node {
            graph: into,
            op_type: old.op_type,
            domain: old.domain,
            overload: old.overload,
            name,
            inputs,
            outputs,
            attributes: Vec::new(),
            doc_string: old.doc_string,
            metadata_props: old.metadata_props,
            device_configurations: old.device_configurations,
        });
        for k in 0..model.nodes[id].outputs.len() {
            if let Some(Some(v)) = model.nodes[id].outputs.get(k).copied() {
                model.values[v].def = ValueDef::Node(id);
            }
        }
        // (Collected in place: the old list's allocation is reused.)
        let attributes = old
            .attributes
            .into_iter()
            .filter_map(|a| {
                let kind = match &a.kind {
                    AttrKind::Ref { name, .. } => (self.bind)(name)?,
                    _ => a.kind,
                };
                Some(Attribute {
                    name: a.name,
                    doc_string: a.doc_string,
                    kind: self.graphs_in(model, kind, id),
                })
            })
            .collect();
        model.nodes[id].attributes = attributes;
        id
    }

    /// `kind` with every graph it holds copied under the new node `owner`.
    fn graphs_in(&mut self, model: &mut Model, kind: AttrKind, owner: NodeId) -> AttrKind {
        let owner = GraphOwner::Node(owner);
        match kind {
            AttrKind::Value(AttrValue::Graph(g)) => {
                AttrKind::Value(AttrValue::Graph(self.graph(model, g, owner)))
            }
            AttrKind::Value(AttrValue::Graphs(gs)) => AttrKind::Value(AttrValue::Graphs(
                gs.into_iter()
                    .map(|g| self.graph(model, g, owner))
                    .collect(),
            )),
            AttrKind::Raw(mut raw) => {
                raw.g = raw.g.map(|g| self.graph(model, g, owner));
                raw.graphs = std::mem::take(&mut raw.graphs)
                    .into_iter()
                    .map(|g| self.graph(model, g, owner))
                    .collect();
                AttrKind::Raw(raw)
            }
            other => other,
        }
    }

    /// A copy of graph `source`, owned by `owner`, with every field.
    pub fn graph(&mut self, model: &mut Model, source: GraphId, owner: GraphOwner) -> GraphId {
        let mut old = model.graph(source).clone();
        let nodes = std::mem::take(&mut old.nodes);
        let id = model.graphs.push(Graph::new(owner));
        self.define(model, source, id);
        let map = &self.map;
        let info = |vi: &ValueInfo| ValueInfo {
            value: vi
                .value
                .map(|v| map.get(&v).copied().flatten().unwrap_or(v)),
            ..vi.clone()
        };
        let value = |v: Option<ValueId>| v.and_then(|v| map.get(&v).copied().flatten());
        let mut graph = Graph {
            inputs: old.inputs.iter().map(info).collect(),
            outputs: old.outputs.iter().map(info).collect(),
            value_info: old.value_info.iter().map(info).collect(),
            initializers: old
                .initializers
                .iter()
                .map(|i| Initializer {
                    value: value(i.value),
                    tensor: i.tensor.clone(),
                })
                .collect(),
            sparse_initializers: old
                .sparse_initializers
                .iter()
                .map(|i| SparseInitializer {
                    value: value(i.value),
                    tensor: i.tensor.clone(),
                })
                .collect(),
            nodes: Vec::new(),
            owner,
            ..old
        };
        graph.nodes = nodes
            .iter()
            .map(|&n| self.node(model, n, id, None))
            .collect();
        model.graphs[id] = graph;
        id
    }
}
