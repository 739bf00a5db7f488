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
    Function, FunctionId, FunctionIndex, GraphId, GraphOwner, Model, Names, Node, NodeId, ValueDef,
    ValueId,
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
    let node = model.live_node(call).ok_or(LibraryError::NoNode(call))?;
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
    fn run(self) -> (Vec<NodeId>, Function) {
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
        let mut map = crate::ir::ValueMap::default();
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
        // Fresh values for everything else the body defines, then the nodes.
        let prefix = call.name.clone().filter(|n| !n.is_empty());
        let binding = &self.binding;
        let bind = |name: &str| binding.get(name).cloned();
        let mut copy = crate::ir::Copier::new(Some(&mut *self.names), &bind);
        copy.map = map;
        copy.define(self.model, body_id, graph);
        let mut nodes = Vec::with_capacity(body.nodes.len() + identities.len());
        for &b in &body.nodes {
            nodes.push(copy.node(self.model, b, graph, prefix.as_deref()));
        }
        let map = copy.map;
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
}
