//! Expanding one call of a local function into its caller (semantics.md §3).
//!
//! `Engine::expand` first checks the call (arity, attributes, omitted inputs, graphs
//! passed in), then copies the body: it never fails once it starts changing the model.
//! The engine keeps the names of each scope tree it has inlined into, so a batch of
//! calls costs one scan of each caller's names, not one per call.

use std::collections::HashSet;

use super::{InlineCallReport, LibraryError, import_domain, remove_uncalled};
use crate::calls::CallBinding;
use crate::hash::{FxBuild, FxMap};
use crate::ir::{
    AttrKind, AttrValue, Attribute, Function, FunctionId, FunctionIndex, Graph, GraphId,
    GraphOwner, Model, Names, Node, NodeId, ValueDef, ValueId, ValueInfo,
};

pub(crate) struct Engine {
    pub(crate) functions: FunctionIndex,
    /// What binding a call needs of each callee, found once.
    callees: crate::calls::Callees,
    names: FxMap<GraphId, Names>,
    /// How many names a scope tree is expected to gain (room made up front).
    pub(crate) expected_names: usize,
}

/// Expands one call (semantics.md §3). The callee is removed when nothing calls it any
/// more. On error the model is unchanged.
pub fn inline_call(model: &mut Model, call: NodeId) -> Result<InlineCallReport, LibraryError> {
    let node = model.nodes.get(call).ok_or(LibraryError::NoNode(call))?;
    let graph = node.graph;
    let position = model
        .graphs
        .get(graph)
        .and_then(|g| g.nodes.iter().position(|&n| n == call))
        .ok_or(LibraryError::NoNode(call))?;
    let mut engine = Engine::new(model);
    let f = engine
        .functions
        .callee(model, call)
        .ok_or_else(|| LibraryError::NotACall {
            node: call,
            op: node.op_type().to_string(),
        })?;
    if super::reaches_itself(model, &engine.functions, f) {
        return Err(LibraryError::Recursion(model.function(f).key()));
    }
    CallBinding::bind(model, call, f).check(model, &engine.functions)?;
    super::align_bodies(model, &[f])?;
    let (nodes, added_domains) = engine.expand_reporting(model, call, f)?;
    model.graphs[graph]
        .nodes
        .splice(position..=position, nodes.iter().copied());
    let candidates: HashSet<FunctionId, FxBuild> = std::iter::once(f).collect();
    let removed = remove_uncalled(model, &candidates);
    Ok(InlineCallReport {
        nodes,
        added_domains,
        removed,
    })
}

/// What a copy maps: old value to new (`None`: the absent name).
type ValueMap = FxMap<ValueId, Option<ValueId>>;

impl Engine {
    pub(crate) fn new(model: &Model) -> Self {
        Self {
            functions: FunctionIndex::new(model),
            callees: crate::calls::Callees::default(),
            names: FxMap::default(),
            expected_names: 0,
        }
    }

    /// Checks and expands `call` (of `f`); the nodes that replace it (not yet placed in
    /// its graph's node list).
    pub(crate) fn expand(
        &mut self,
        model: &mut Model,
        call: NodeId,
        f: FunctionId,
    ) -> Result<Vec<NodeId>, LibraryError> {
        self.expand_reporting(model, call, f)
            .map(|(nodes, _)| nodes)
    }

    fn expand_reporting(
        &mut self,
        model: &mut Model,
        call: NodeId,
        f: FunctionId,
    ) -> Result<(Vec<NodeId>, Vec<String>), LibraryError> {
        let binding = CallBinding::bind_with(model, call, f, &mut self.callees);
        binding.check_with(model, &self.functions, &mut self.callees)?;
        let graph = model.node(call).graph;
        let root = model.scope_root(graph);
        let mut names = match self.names.remove(&root) {
            Some(names) => names,
            None => {
                let mut names = Names::of_tree(model, root);
                names.reserve(self.expected_names);
                names
            }
        };
        // The copy reads the function while it adds to the model: lend it out of the
        // arena (no clone) and put it back.
        let placeholder = Function {
            name: None,
            domain: None,
            overload: None,
            body: model.function(f).body,
            attribute: Vec::new(),
            attribute_proto: Vec::new(),
            doc_string: None,
            opset_import: Vec::new(),
            metadata_props: Vec::new(),
        };
        let function = std::mem::replace(&mut model.function_arena[f], placeholder);
        let (nodes, function) = Copier {
            model: &mut *model,
            names: &mut names,
            call,
            binding,
            function,
        }
        .run();
        model.function_arena[f] = function;
        self.names.insert(root, names);

        // The function's domains the caller lacks.
        let imports = model.function(f).opset_import.clone();
        let mut added = Vec::new();
        let target = match model.graph(root).owner {
            GraphOwner::Function(h) => &mut model.function_arena[h].opset_import,
            _ => &mut model.opset_import,
        };
        for o in &imports {
            if import_domain(target, o.normalized_domain(), o.version) {
                added.push(o.normalized_domain().to_string());
            }
        }
        // Calls inside a function body need the callee's domain in the model too.
        if matches!(model.graph(root).owner, GraphOwner::Function(_)) {
            for o in &imports {
                let domain = o.normalized_domain();
                if self.functions.has_domain(domain) {
                    import_domain(&mut model.opset_import, domain, o.version);
                }
            }
        }
        Ok((nodes, added))
    }
}

/// The parts of a function body an expansion reads more than once.
struct BodyParts {
    inputs: Vec<Option<ValueId>>,
    outputs: Vec<Option<ValueId>>,
    nodes: Vec<NodeId>,
    has_value_info: bool,
}

/// One expansion: copies the body into the call's graph.
struct Copier<'a> {
    model: &'a mut Model,
    names: &'a mut Names,
    call: NodeId,
    /// The call's attributes bound (checked before the copy starts).
    binding: CallBinding,
    function: Function,
}

impl Copier<'_> {
    /// The nodes that replace the call, and the function (given back).
    fn run(mut self) -> (Vec<NodeId>, Function) {
        let model = &*self.model;
        let call = model.node(self.call).clone();
        let graph = call.graph;
        let body_id = self.function.body;
        // What the copy needs of the body (not the whole graph: its value infos' types
        // are copied only where they are used).
        let source = model.graph(body_id);
        let body = BodyParts {
            inputs: source.inputs.iter().map(|i| i.value).collect(),
            outputs: source.outputs.iter().map(|i| i.value).collect(),
            nodes: source.nodes.clone(),
            has_value_info: !source.value_info.is_empty(),
        };
        let mut map = ValueMap::default();
        map.reserve(body.nodes.len() * 2 + body.inputs.len());
        for (k, formal) in body.inputs.iter().enumerate() {
            if let Some(v) = *formal {
                map.insert(v, call.inputs.get(k).copied().flatten());
            }
        }
        // Outputs: the call's output value takes the place of the body value that
        // produces it; a repeated or pass-through output goes through an Identity.
        let mut identities: Vec<(ValueId, ValueId)> = Vec::new();
        for (k, out) in body.outputs.iter().enumerate() {
            let (Some(v), Some(target)) = (*out, call.outputs.get(k).copied().flatten()) else {
                continue;
            };
            match map.entry(v) {
                std::collections::hash_map::Entry::Occupied(_) => identities.push((v, target)),
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(Some(target));
                }
            }
        }
        // Fresh values for everything else the body defines.
        let prefix = call.name.clone().filter(|n| !n.is_empty());
        self.define(body_id, graph, &mut map);
        let mut nodes = Vec::with_capacity(body.nodes.len() + identities.len());
        for &b in &body.nodes {
            nodes.push(self.copy_node(b, graph, &call, &mut map, prefix.as_deref()));
        }
        for (v, target) in identities {
            let source = map.get(&v).copied().flatten();
            let id = self.model.nodes.push(Node {
                graph,
                op_type: Some("Identity".into()),
                domain: Some(String::new()),
                overload: None,
                name: None,
                inputs: vec![source],
                outputs: vec![Some(target)],
                attributes: Vec::new(),
                doc_string: None,
                metadata_props: Vec::new(),
                device_configurations: Vec::new(),
            });
            self.model.values[target].def = ValueDef::Node(id);
            nodes.push(id);
        }
        // Types the body's value_info gives its inner values.
        if body.has_value_info {
            let mut infos = Vec::new();
            for info in &self.model.graph(body_id).value_info {
                let Some(Some(v)) = info.value.and_then(|v| map.get(&v).copied()) else {
                    continue;
                };
                if self.model.values[v].graph == graph
                    && !call.outputs.contains(&Some(v))
                    && !call.inputs.contains(&Some(v))
                {
                    let mut info = info.clone();
                    info.value = Some(v);
                    infos.push(info);
                }
            }
            self.model.graphs[graph].value_info.extend(infos);
        }
        (nodes, self.function)
    }

    /// New values (fresh names) in `into` for the values `source` defines that `map`
    /// does not map yet: inputs, weights, node outputs.
    fn define(&mut self, source: GraphId, into: GraphId, map: &mut ValueMap) {
        let graph = self.model.graph(source);
        let mut defined: Vec<ValueId> = Vec::new();
        defined.extend(graph.inputs.iter().filter_map(|i| i.value));
        defined.extend(graph.initializers.iter().filter_map(|i| i.value));
        defined.extend(graph.sparse_initializers.iter().filter_map(|i| i.value));
        for &n in &graph.nodes {
            defined.extend(self.model.node(n).outputs.iter().flatten());
        }
        for v in defined {
            if map.contains_key(&v) {
                continue;
            }
            let old = &self.model.values[v];
            let def = match old.def {
                ValueDef::Node(_) => ValueDef::Undefined,
                other => other,
            };
            let name = self.names.fresh(&old.name);
            let id = self.model.values.push(crate::ir::Value {
                name,
                graph: into,
                def,
            });
            map.insert(v, Some(id));
        }
    }

    fn copy_node(
        &mut self,
        n: NodeId,
        into: GraphId,
        call: &Node,
        map: &mut ValueMap,
        prefix: Option<&str>,
    ) -> NodeId {
        let old = self.model.node(n).clone();
        let mapped = |map: &ValueMap, v: &Option<ValueId>| match v {
            Some(v) => map.get(v).copied().unwrap_or(Some(*v)),
            None => None,
        };
        let mut inputs = old.inputs;
        for v in &mut inputs {
            *v = mapped(map, v);
        }
        let mut outputs = old.outputs;
        for v in &mut outputs {
            *v = mapped(map, v);
        }
        let name = match (prefix, old.name) {
            (Some(p), Some(name)) if !name.is_empty() => Some(format!("{p}/{name}")),
            (_, name) => name,
        };
        let id = self.model.nodes.push(Node {
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
        for k in 0..self.model.nodes[id].outputs.len() {
            if let Some(Some(v)) = self.model.nodes[id].outputs.get(k).copied() {
                self.model.values[v].def = ValueDef::Node(id);
            }
        }
        // (Collected in place: the old list's allocation is reused.)
        let attributes = old
            .attributes
            .into_iter()
            .filter_map(|a| {
                let kind = match &a.kind {
                    // An unbound reference is dropped.
                    AttrKind::Ref { name, .. } => self.binding.get(name)?.clone(),
                    _ => a.kind,
                };
                Some(Attribute {
                    name: a.name,
                    doc_string: a.doc_string,
                    kind: self.copy_graphs(kind, id, call, map),
                })
            })
            .collect();
        self.model.nodes[id].attributes = attributes;
        id
    }

    /// `kind` with every graph it holds copied under the new node `owner`.
    fn copy_graphs(
        &mut self,
        kind: AttrKind,
        owner: NodeId,
        call: &Node,
        map: &mut ValueMap,
    ) -> AttrKind {
        match kind {
            AttrKind::Value(AttrValue::Graph(g)) => {
                AttrKind::Value(AttrValue::Graph(self.copy_graph(g, owner, call, map)))
            }
            AttrKind::Value(AttrValue::Graphs(gs)) => AttrKind::Value(AttrValue::Graphs(
                gs.into_iter()
                    .map(|g| self.copy_graph(g, owner, call, map))
                    .collect(),
            )),
            AttrKind::Raw(mut raw) => {
                raw.g = raw.g.map(|g| self.copy_graph(g, owner, call, map));
                raw.graphs = std::mem::take(&mut raw.graphs)
                    .into_iter()
                    .map(|g| self.copy_graph(g, owner, call, map))
                    .collect();
                AttrKind::Raw(raw)
            }
            other => other,
        }
    }

    fn copy_graph(
        &mut self,
        source: GraphId,
        owner: NodeId,
        call: &Node,
        map: &mut ValueMap,
    ) -> GraphId {
        let old = self.model.graph(source).clone();
        let id = self.model.graphs.push(Graph::new(GraphOwner::Node(owner)));
        self.define(source, id, map);
        let info = |map: &ValueMap, vi: &ValueInfo| {
            let mut vi = vi.clone();
            vi.value = vi
                .value
                .map(|v| map.get(&v).copied().flatten().unwrap_or(v));
            vi
        };
        let mut graph = Graph::new(GraphOwner::Node(owner));
        graph.name = old.name.clone();
        graph.doc_string = old.doc_string.clone();
        graph.inputs = old.inputs.iter().map(|vi| info(map, vi)).collect();
        graph.outputs = old.outputs.iter().map(|vi| info(map, vi)).collect();
        graph.value_info = old.value_info.iter().map(|vi| info(map, vi)).collect();
        graph.initializers = old
            .initializers
            .iter()
            .map(|i| crate::ir::Initializer {
                value: i.value.and_then(|v| map.get(&v).copied().flatten()),
                tensor: i.tensor.clone(),
            })
            .collect();
        graph.sparse_initializers = old
            .sparse_initializers
            .iter()
            .map(|i| crate::ir::SparseInitializer {
                value: i.value.and_then(|v| map.get(&v).copied().flatten()),
                tensor: i.tensor.clone(),
            })
            .collect();
        graph.quantization_annotation = old.quantization_annotation.clone();
        graph.metadata_props = old.metadata_props.clone();
        graph.nodes = old
            .nodes
            .iter()
            .map(|&n| self.copy_node(n, id, call, map, None))
            .collect();
        self.model.graphs[id] = graph;
        id
    }
}
