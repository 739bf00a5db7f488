//! The plan: everything inlining will add, built against the unchanged host (every
//! check and every fallible step happens here), then [`Staged::apply`] appends it.

use std::collections::HashSet;

use super::names;
use super::opsets::{merge_opsets, normalized};
use super::types;
use super::{InlineError, InlineOptions, InlineReport, Mode};
use crate::hash::{FxBuild, FxMap};
use crate::ir::Names;
use crate::ir::{
    AttrKind, AttrValue, Attribute, Function, FunctionId, FunctionKey, Graph, GraphId, GraphOwner,
    Initializer, Model, Node, NodeId, OpsetId, SparseInitializer, SparseTensor, StringPair, Tensor,
    TensorAnnotation, Type, Value, ValueDef, ValueId, ValueInfo, normalize_domain,
};

/// What the target graph is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Main,
    Body(FunctionId),
    Subgraph,
}

/// Where a guest graph sits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Origin {
    /// The main graph or a subgraph nested in it.
    Main,
    /// A function body or a subgraph nested in one.
    Function(FunctionId),
    /// Training graphs and anything else not brought along.
    Other,
}

/// Everything inlining adds, with the ids it will have in the host.
pub(super) struct Staged {
    graphs: Vec<Graph>,
    nodes: Vec<Node>,
    values: Vec<Value>,
    functions: Vec<Function>,
    target: GraphId,
    /// Constant nodes (weights in a function body) go before the rest.
    front: Vec<NodeId>,
    body: Vec<NodeId>,
    inputs: Vec<ValueInfo>,
    outputs: Vec<ValueInfo>,
    value_info: Vec<ValueInfo>,
    initializers: Vec<Initializer>,
    sparse: Vec<SparseInitializer>,
    quant: Vec<TensorAnnotation>,
    graph_metadata: Vec<StringPair>,
    /// The function whose body holds the target, if any, and its new opset imports.
    target_function: Option<(FunctionId, Vec<OpsetId>)>,
    opset_import: Vec<OpsetId>,
    ir_version: Option<i64>,
    model_metadata: Vec<StringPair>,
    new_functions: Vec<FunctionId>,
    report: InlineReport,
}

impl Staged {
    /// Appends everything to the host. Cannot fail: all checks were made.
    pub(super) fn apply(self, host: &mut Model) -> (InlineReport, Rewind) {
        let t = &host.graphs[self.target];
        let rewind = Rewind {
            arenas: [
                host.graphs.len(),
                host.nodes.len(),
                host.values.len(),
                host.function_arena.len(),
            ],
            target: self.target,
            lists: [
                t.nodes.len(),
                t.inputs.len(),
                t.outputs.len(),
                t.value_info.len(),
                t.initializers.len(),
                t.sparse_initializers.len(),
                t.quantization_annotation.len(),
                t.metadata_props.len(),
            ],
            function: self.target_function.as_ref().map(|(f, _)| {
                let function = &host.function_arena[*f];
                (
                    *f,
                    function.opset_import.clone(),
                    function.metadata_props.len(),
                )
            }),
            opset_import: host.opset_import.clone(),
            ir_version: host.ir_version,
            model_metadata: host.metadata_props.len(),
            functions: host.functions.len(),
        };
        host.graphs.reserve(self.graphs.len());
        for g in self.graphs {
            host.graphs.push(g);
        }
        host.nodes.reserve(self.nodes.len());
        for n in self.nodes {
            host.nodes.push(n);
        }
        host.values.reserve(self.values.len());
        for v in self.values {
            host.values.push(v);
        }
        for f in self.functions {
            host.function_arena.push(f);
        }
        let t = &mut host.graphs[self.target];
        t.nodes.extend(self.front);
        t.nodes.extend(self.body);
        t.inputs.extend(self.inputs);
        t.outputs.extend(self.outputs);
        t.value_info.extend(self.value_info);
        t.initializers.extend(self.initializers);
        t.sparse_initializers.extend(self.sparse);
        t.quantization_annotation.extend(self.quant);
        match self.target_function {
            Some((f, opsets)) => {
                let function = &mut host.function_arena[f];
                function.opset_import = opsets;
                function.metadata_props.extend(self.graph_metadata);
            }
            None => t.metadata_props.extend(self.graph_metadata),
        }
        host.opset_import = self.opset_import;
        host.ir_version = self.ir_version;
        host.metadata_props.extend(self.model_metadata);
        host.functions.extend(self.new_functions);
        (self.report, rewind)
    }
}

/// What undoes [`Staged::apply`]: it only appends (to the arenas, to the target
/// graph's lists, to the function list and metadata) and replaces the opset imports
/// and the IR version, so undo is truncating to the lengths before and putting those
/// back. Nothing is copied but the opset imports.
#[derive(Clone, Debug)]
pub(super) struct Rewind {
    /// Graphs, nodes, values, functions.
    arenas: [usize; 4],
    target: GraphId,
    /// The target graph's nodes, inputs, outputs, value_info, initializers, sparse
    /// initializers, quantization annotations and metadata.
    lists: [usize; 8],
    /// The function whose body holds the target: its opset imports and metadata length.
    function: Option<(FunctionId, Vec<OpsetId>, usize)>,
    opset_import: Vec<OpsetId>,
    ir_version: Option<i64>,
    model_metadata: usize,
    functions: usize,
}

impl Rewind {
    /// Puts `host` back as it was before the apply (it must be as the apply left it).
    pub(super) fn undo(self, host: &mut Model) {
        let [graphs, nodes, values, functions] = self.arenas;
        if let Some(t) = host.graphs.get_mut(self.target) {
            let [n, i, o, vi, init, sparse, quant, meta] = self.lists;
            t.nodes.truncate(n);
            t.inputs.truncate(i);
            t.outputs.truncate(o);
            t.value_info.truncate(vi);
            t.initializers.truncate(init);
            t.sparse_initializers.truncate(sparse);
            t.quantization_annotation.truncate(quant);
            t.metadata_props.truncate(meta);
        }
        if let Some((f, opsets, meta)) = self.function
            && let Some(function) = host.function_arena.get_mut(f)
        {
            function.opset_import = opsets;
            function.metadata_props.truncate(meta);
        }
        host.graphs.truncate(graphs);
        host.nodes.truncate(nodes);
        host.values.truncate(values);
        host.function_arena.truncate(functions);
        host.opset_import = self.opset_import;
        host.ir_version = self.ir_version;
        host.metadata_props.truncate(self.model_metadata);
        host.functions.truncate(self.functions);
    }
}

/// Builds the plan; the host is only read.
pub(super) fn plan(
    host: &Model,
    guest: &Model,
    opts: &InlineOptions,
) -> Result<Staged, InlineError> {
    let host_main = host.graph.ok_or(InlineError::NoGraph("host"))?;
    let guest_main = guest.graph.ok_or(InlineError::NoGraph("guest"))?;
    let target = opts.target.unwrap_or(host_main);
    let kind = match host.graphs.get(target).map(|g| g.owner) {
        None => return Err(InlineError::UnsupportedTarget("no such graph".into())),
        Some(GraphOwner::Model) => Kind::Main,
        Some(GraphOwner::Function(f)) => Kind::Body(f),
        Some(GraphOwner::Node(_)) => Kind::Subgraph,
        Some(GraphOwner::Training(_)) => {
            return Err(InlineError::UnsupportedTarget("a training graph".into()));
        }
    };
    let prefix = opts
        .prefix
        .clone()
        .or_else(|| {
            guest
                .graph(guest_main)
                .name
                .clone()
                .filter(|n| !n.is_empty())
        })
        .unwrap_or_else(|| "guest".into());
    let mut p = Planner::new(host, guest, opts, target, kind, guest_main, prefix);
    p.run()?;
    Ok(p.staged)
}

struct Planner<'h, 'g, 'o> {
    host: &'h Model,
    guest: &'g Model,
    opts: &'o InlineOptions,
    kind: Kind,
    guest_main: GraphId,
    prefix: String,
    origins: Vec<Origin>,
    graph_map: Vec<Option<GraphId>>,
    node_map: Vec<Option<NodeId>>,
    value_map: Vec<Option<ValueId>>,
    function_map: Vec<Option<FunctionId>>,
    /// Guest functions that clashed, by key, with their new name.
    renamed: FxMap<FunctionKey, String>,
    dims: FxMap<String, String>,
    /// The guest main graph's weights: value -> (sparse, index in its list).
    weights: FxMap<ValueId, (bool, usize)>,
    value_names: Names,
    node_names: Names,
    base_graph: usize,
    base_node: usize,
    base_value: usize,
    base_function: usize,
    staged: Staged,
}

impl<'h, 'g, 'o> Planner<'h, 'g, 'o> {
    fn new(
        host: &'h Model,
        guest: &'g Model,
        opts: &'o InlineOptions,
        target: GraphId,
        kind: Kind,
        guest_main: GraphId,
        prefix: String,
    ) -> Self {
        // Every value name of the target's scope tree: its outermost graph and
        // everything nested in it.
        // A training graph sees the main graph's names too.
        let roots: Vec<GraphId> = host
            .graphs
            .iter()
            .map(|(g, _)| host.scope_root(g))
            .collect();
        let root = host.scope_root(target);
        let seen = match host.graph(root).owner {
            GraphOwner::Training(_) => host.graph,
            _ => None,
        };
        let taken = host
            .values
            .iter()
            .filter(|(_, v)| {
                let r = roots.get(v.graph.index()).copied();
                r == Some(root) || (r.is_some() && r == seen)
            })
            .map(|(_, v)| v.name.as_str());
        let node_taken = host.nodes.iter().filter_map(|(_, n)| n.name.as_deref());
        let target_function = host
            .enclosing_function(target)
            .map(|f| (f, host.function(f).opset_import.clone()));
        Self {
            host,
            guest,
            opts,
            kind,
            guest_main,
            prefix,
            origins: origins(guest),
            graph_map: vec![None; guest.graphs.len()],
            node_map: vec![None; guest.nodes.len()],
            value_map: vec![None; guest.values.len()],
            function_map: vec![None; guest.function_arena.len()],
            renamed: FxMap::default(),
            dims: FxMap::default(),
            weights: {
                let g = guest.graph(guest_main);
                let dense = g.initializers.iter().map(|i| (false, i.value));
                let sparse = g.sparse_initializers.iter().map(|i| (true, i.value));
                let mut weights = FxMap::default();
                for (k, (is_sparse, v)) in dense.enumerate().chain(sparse.enumerate()) {
                    if let Some(v) = v {
                        weights.entry(v).or_insert((is_sparse, k));
                    }
                }
                weights
            },
            value_names: {
                let mut fresh = Names::taking(taken);
                fresh.reserve(guest.values.len());
                fresh
            },
            node_names: {
                let mut fresh = Names::taking(node_taken);
                fresh.reserve(guest.nodes.len());
                fresh
            },
            base_graph: host.graphs.len(),
            base_node: host.nodes.len(),
            base_value: host.values.len(),
            base_function: host.function_arena.len(),
            staged: Staged {
                graphs: Vec::new(),
                nodes: Vec::new(),
                values: Vec::new(),
                functions: Vec::new(),
                target,
                front: Vec::new(),
                body: Vec::new(),
                inputs: Vec::new(),
                outputs: Vec::new(),
                value_info: Vec::new(),
                initializers: Vec::new(),
                sparse: Vec::new(),
                quant: Vec::new(),
                graph_metadata: Vec::new(),
                target_function,
                opset_import: Vec::new(),
                ir_version: host.ir_version,
                model_metadata: Vec::new(),
                new_functions: Vec::new(),
                report: InlineReport::default(),
            },
        }
    }

    fn function_mode(&self) -> bool {
        matches!(self.opts.mode, Mode::Function { .. })
    }

    fn target(&self) -> GraphId {
        self.staged.target
    }

    fn run(&mut self) -> Result<(), InlineError> {
        self.opsets()?;
        let bindings = self.bindings()?;
        let exposures = self.exposures()?;
        self.functions();
        self.dims();
        self.map_ids(&bindings);
        self.copy()?;
        if self.function_mode() {
            self.function_call(&bindings)?;
        } else {
            self.main_graph(&bindings)?;
        }
        self.expose(&exposures);
        self.metadata();
        self.ir_version();
        Ok(())
    }

    // ---- checks -------------------------------------------------------------------

    /// Opset imports of the result (host, and the function holding the target).
    fn opsets(&mut self) -> Result<(), InlineError> {
        let guest_opsets = normalized(&self.guest.opset_import);
        let mut extra = Vec::new();
        if let Mode::Function { domain, .. } = &self.opts.mode {
            extra.push(OpsetId {
                domain: Some(normalize_domain(domain).to_string()),
                version: Some(1),
            });
        }
        // Inside a function body the function's own default-domain version is in
        // force (inline_model converted one side to match it); the model's stays.
        let for_model: Vec<OpsetId> = if self.staged.target_function.is_some() {
            guest_opsets
                .iter()
                .filter(|o| !o.normalized_domain().is_empty())
                .cloned()
                .collect()
        } else {
            guest_opsets.clone()
        };
        self.staged.opset_import = merge_opsets(
            &self.host.opset_import,
            &for_model,
            &extra,
            &self.opts.domain_versions,
        )?;
        if let Some((_, own)) = &self.staged.target_function {
            let merged = merge_opsets(own, &guest_opsets, &extra, &self.opts.domain_versions)?;
            if let Some((_, own)) = &mut self.staged.target_function {
                *own = merged;
            }
        }
        Ok(())
    }

    /// Guest input value -> host value, checked: names exist, bound once, the host value
    /// is visible in the target, and the types agree.
    fn bindings(&self) -> Result<FxMap<ValueId, ValueId>, InlineError> {
        let guest = self.guest;
        let g = guest.graph(self.guest_main);
        let known = || {
            g.inputs
                .iter()
                .filter_map(|vi| vi.value.map(|v| guest.value(v).name.clone()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // Host values visible in the target: its graph and the enclosing ones,
        // innermost first.
        let chain: Vec<GraphId> = self.host.scope_chain(self.target()).collect();
        let wanted: HashSet<&str, FxBuild> =
            self.opts.bindings.iter().map(|(_, h)| h.as_str()).collect();
        let mut visible: FxMap<&str, (usize, ValueId)> = FxMap::default();
        if !wanted.is_empty() {
            for (id, v) in self.host.values.iter() {
                if v.def == ValueDef::Undefined || !wanted.contains(v.name.as_str()) {
                    continue;
                }
                let Some(depth) = chain.iter().position(|&c| c == v.graph) else {
                    continue;
                };
                let entry = visible.entry(v.name.as_str()).or_insert((depth, id));
                if depth < entry.0 {
                    *entry = (depth, id);
                }
            }
        }
        let mut out = FxMap::default();
        for (input, host_name) in &self.opts.bindings {
            let info = g
                .inputs
                .iter()
                .find(|vi| vi.value.is_some_and(|v| guest.value(v).name == *input));
            let (Some(info), Some(gv)) = (info, info.and_then(|i| i.value)) else {
                return Err(InlineError::UnknownGuestInput {
                    name: input.clone(),
                    known: known(),
                });
            };
            let Some(&(depth, hv)) = visible.get(host_name.as_str()) else {
                return Err(InlineError::HostValueNotFound {
                    input: input.clone(),
                    name: host_name.clone(),
                });
            };
            if !self.defined_before_target(&chain, depth, hv) {
                return Err(InlineError::DefinedLater {
                    input: input.clone(),
                    name: host_name.clone(),
                });
            }
            if out.insert(gv, hv).is_some() {
                return Err(InlineError::DuplicateBinding(input.clone()));
            }
            if let (Some(gt), Some(ht)) = (&info.ty, types::host_type(self.host, hv))
                && !types::compatible(gt, &ht)
            {
                return Err(InlineError::TypeMismatch {
                    input: input.clone(),
                    value: host_name.clone(),
                    guest: gt.to_string(),
                    host: ht.to_string(),
                });
            }
        }
        Ok(out)
    }

    /// Whether a value of the enclosing graph `chain[depth]` is defined before the node
    /// that holds the target there (the guest's nodes go at the end of the target, so
    /// every value of the target itself qualifies).
    fn defined_before_target(&self, chain: &[GraphId], depth: usize, value: ValueId) -> bool {
        let ValueDef::Node(def) = self.host.value(value).def else {
            return true;
        };
        let (Some(&outer), Some(&inner)) = (
            chain.get(depth),
            depth.checked_sub(1).and_then(|d| chain.get(d)),
        ) else {
            return true;
        };
        let GraphOwner::Node(holder) = self.host.graph(inner).owner else {
            return true;
        };
        let nodes = &self.host.graph(outer).nodes;
        match (
            nodes.iter().position(|&n| n == def),
            nodes.iter().position(|&n| n == holder),
        ) {
            (Some(d), Some(h)) => d < h,
            _ => true,
        }
    }

    /// The guest output slots to expose, each with a chosen name (claimed here).
    fn exposures(&mut self) -> Result<Vec<(usize, Option<String>)>, InlineError> {
        let guest = self.guest;
        let outputs = &guest.graph(self.guest_main).outputs;
        let name_of = |vi: &ValueInfo| vi.value.map(|v| guest.value(v).name.as_str());
        let mut out = Vec::new();
        if self.opts.expose_all {
            out.extend((0..outputs.len()).map(|i| (i, None)));
        }
        for (name, as_name) in &self.opts.expose {
            let Some(slot) = outputs.iter().position(|vi| name_of(vi) == Some(name)) else {
                return Err(InlineError::UnknownGuestOutput {
                    name: name.clone(),
                    known: outputs
                        .iter()
                        .filter_map(name_of)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            };
            out.push((slot, as_name.clone()));
        }
        if let (Kind::Subgraph, Some((slot, _))) = (self.kind, out.first()) {
            let name = outputs
                .get(*slot)
                .and_then(name_of)
                .unwrap_or("")
                .to_string();
            return Err(InlineError::CannotExpose(name));
        }
        for (_, as_name) in &out {
            if as_name.as_deref() == Some("") {
                return Err(InlineError::EmptyName);
            }
            if let Some(n) = as_name
                && !self.value_names.claim(n)
            {
                return Err(InlineError::NameTaken(n.clone()));
            }
        }
        Ok(out)
    }

    // ---- functions, dims, ids -----------------------------------------------------

    /// Which guest functions are deduplicated, renamed or added as they are.
    fn functions(&mut self) {
        let (host, guest) = (self.host, self.guest);
        let host_keys: FxMap<FunctionKey, FunctionId> = host
            .functions
            .iter()
            .map(|&f| (host.function(f).key(), f))
            .collect();
        let guest_keys: FxMap<FunctionKey, FunctionId> = guest
            .functions
            .iter()
            .map(|&f| (guest.function(f).key(), f))
            .collect();
        // Identical text to the host function with the same id...
        let mut same: FxMap<FunctionId, FunctionId> = FxMap::default();
        for &f in &guest.functions {
            if let Some(&h) = host_keys.get(&guest.function(f).key())
                && crate::text::print_function(host, h) == crate::text::print_function(guest, f)
            {
                same.insert(f, h);
            }
        }
        // ...and every guest function it calls deduplicated too.
        if !same.is_empty() {
            let mut calls: FxMap<FunctionId, Vec<FunctionId>> = FxMap::default();
            for (_, n) in guest.nodes.iter() {
                if let Some(Origin::Function(caller)) = self.origins.get(n.graph.index())
                    && let Some(&callee) = guest_keys.get(&call_key(n))
                {
                    calls.entry(*caller).or_default().push(callee);
                }
            }
            loop {
                let drop: Vec<FunctionId> = same
                    .keys()
                    .copied()
                    .filter(|f| {
                        calls
                            .get(f)
                            .is_some_and(|cs| cs.iter().any(|c| !same.contains_key(c)))
                    })
                    .collect();
                if drop.is_empty() {
                    break;
                }
                for f in drop {
                    same.remove(&f);
                }
            }
        }
        let mut used: HashSet<FunctionKey, FxBuild> =
            host_keys.keys().chain(guest_keys.keys()).cloned().collect();
        let mut next = self.base_function;
        for &f in &guest.functions {
            let key = guest.function(f).key();
            if let Some(&h) = same.get(&f) {
                self.function_map[f.index()] = Some(h);
                self.staged.report.functions_deduplicated.push(key);
                continue;
            }
            let mut final_key = key.clone();
            if host_keys.contains_key(&key) {
                let mut k = 2usize;
                loop {
                    let candidate = FunctionKey {
                        name: format!("{}_{k}", key.name),
                        ..key.clone()
                    };
                    if !used.contains(&candidate) {
                        final_key = candidate;
                        break;
                    }
                    k += 1;
                }
                used.insert(final_key.clone());
                self.renamed.insert(key.clone(), final_key.name.clone());
                self.staged
                    .report
                    .functions_renamed
                    .push((key, final_key.clone()));
            }
            self.function_map[f.index()] = Some(FunctionId::from_index(next));
            self.staged.new_functions.push(FunctionId::from_index(next));
            self.staged.report.functions_added.push(final_key);
            next += 1;
        }
        if let Mode::Function { domain, name } = &self.opts.mode {
            let mut key = FunctionKey {
                domain: normalize_domain(domain).to_string(),
                name: name.clone(),
                overload: String::new(),
            };
            let mut k = 2usize;
            while used.contains(&key) {
                key.name = format!("{name}_{k}");
                k += 1;
            }
            self.staged.new_functions.push(FunctionId::from_index(next));
            self.staged.report.function = Some(key);
        }
    }

    /// New names for the guest's symbolic dims.
    fn dims(&mut self) {
        let mut fresh = Names::taking(names::model_dim_params(self.host));
        let stem = names::identifier(&self.prefix);
        let mut seen: Vec<&str> = names::model_dim_params(self.guest);
        seen.sort_unstable();
        seen.dedup();
        for d in seen {
            let new = fresh.fresh(&format!("{stem}_{d}"));
            self.staged
                .report
                .dims_renamed
                .push((d.to_string(), new.clone()));
            self.dims.insert(d.to_string(), new);
        }
    }

    /// Host ids for every guest graph, node and value that comes along.
    fn map_ids(&mut self, bindings: &FxMap<ValueId, ValueId>) {
        let guest = self.guest;
        let mut next_graph = self.base_graph;
        let mut copied = vec![false; guest.graphs.len()];
        for (g, _) in guest.graphs.iter() {
            let keep = match self.origins.get(g.index()) {
                Some(Origin::Main) => true,
                Some(Origin::Function(f)) => self.is_new_function(*f),
                _ => false,
            };
            if !keep {
                continue;
            }
            copied[g.index()] = true;
            self.graph_map[g.index()] = if g == self.guest_main && !self.function_mode() {
                Some(self.target())
            } else {
                next_graph += 1;
                Some(GraphId::from_index(next_graph - 1))
            };
        }
        let mut next_node = self.base_node;
        for (g, graph) in guest.graphs.iter() {
            if !copied[g.index()] {
                continue;
            }
            for &n in &graph.nodes {
                if let Some(slot) = self.node_map.get_mut(n.index()) {
                    *slot = Some(NodeId::from_index(next_node));
                    next_node += 1;
                }
            }
        }
        self.staged.graphs.reserve(next_graph - self.base_graph);
        self.staged.nodes.reserve(next_node - self.base_node);
        let mut next_value = self.base_value;
        for (v, value) in guest.values.iter() {
            // In function mode the body keeps its formal; the binding is the call's
            // argument.
            if let Some(&h) = bindings.get(&v).filter(|_| !self.function_mode()) {
                self.value_map[v.index()] = Some(h);
            } else if copied.get(value.graph.index()) == Some(&true) {
                self.value_map[v.index()] = Some(ValueId::from_index(next_value));
                next_value += 1;
            }
        }
        self.staged.values.reserve(next_value - self.base_value);
    }

    fn is_new_function(&self, f: FunctionId) -> bool {
        self.function_map
            .get(f.index())
            .copied()
            .flatten()
            .is_some_and(|h| h.index() >= self.base_function)
    }

    // ---- copying ------------------------------------------------------------------

    /// Stages every mapped graph, node, value and function.
    fn copy(&mut self) -> Result<(), InlineError> {
        let guest = self.guest;
        let rename_main = !self.function_mode();
        // Function mode keeps the guest's names (the body is its own scope), except
        // where a subgraph value shadows a name of an enclosing graph (§4: shadowing
        // must not survive): that one gets a fresh name among all the guest's names.
        let mut by_graph: FxMap<GraphId, HashSet<&str, FxBuild>> = FxMap::default();
        let mut unshadow = None;
        if !rename_main {
            for (_, value) in guest.values.iter() {
                by_graph
                    .entry(value.graph)
                    .or_default()
                    .insert(value.name.as_str());
            }
            unshadow = Some(Names::taking(
                guest.values.iter().map(|(_, v)| v.name.as_str()),
            ));
        }
        for (v, value) in guest.values.iter() {
            let Some(id) = self.value_map[v.index()] else {
                continue;
            };
            if id.index() < self.base_value {
                continue; // bound to a host value
            }
            let main = self.origins.get(value.graph.index()) == Some(&Origin::Main);
            let shadows = || {
                guest.scope_chain(value.graph).skip(1).any(|outer| {
                    by_graph
                        .get(&outer)
                        .is_some_and(|n| n.contains(value.name.as_str()))
                })
            };
            let name = if rename_main && main {
                let base = prefixed(&self.prefix, &value.name);
                self.value_names.fresh_owned(base)
            } else if let Some(fresh) = unshadow.as_mut().filter(|_| main && shadows()) {
                fresh.fresh(&value.name)
            } else {
                value.name.clone()
            };
            let def = match value.def {
                ValueDef::Node(n) => {
                    self.node_map[n.index()].map_or(ValueDef::Undefined, ValueDef::Node)
                }
                other => other,
            };
            self.staged.values.push(Value {
                name,
                graph: self.graph_map[value.graph.index()].unwrap_or(self.target()),
                def,
            });
        }
        for (g, graph) in guest.graphs.iter() {
            if self.graph_map[g.index()].is_none() {
                continue;
            }
            for &n in &graph.nodes {
                let node = self.copy_node(n)?;
                self.staged.nodes.push(node);
            }
            if g == self.guest_main && !self.function_mode() {
                continue; // its lists go into the target (main_graph)
            }
            let staged = self.copy_graph(g)?;
            self.staged.graphs.push(staged);
        }
        for &f in &guest.functions {
            if !self.is_new_function(f) {
                continue;
            }
            let function = guest.function(f);
            let body = self.graph_map[function.body.index()].unwrap_or(self.target());
            let mut copy = function.clone();
            copy.body = body;
            copy.domain = copy.domain.map(|d| normalize_domain(&d).to_string());
            if let Some(new) = self.renamed.get(&function.key()) {
                copy.name = Some(new.clone());
            }
            copy.opset_import = normalized(&function.opset_import);
            copy.attribute_proto = function
                .attribute_proto
                .iter()
                .map(|a| self.copy_attribute(a))
                .collect::<Result<_, _>>()?;
            self.staged.functions.push(copy);
        }
        Ok(())
    }

    fn owner(&self, owner: GraphOwner) -> GraphOwner {
        match owner {
            GraphOwner::Node(n) => self.node_map[n.index()].map_or(owner, GraphOwner::Node),
            GraphOwner::Function(f) => {
                self.function_map[f.index()].map_or(owner, GraphOwner::Function)
            }
            other => other,
        }
    }

    fn value(&self, v: Option<ValueId>) -> Option<ValueId> {
        v.and_then(|v| self.value_map.get(v.index()).copied().flatten())
    }

    fn value_info(&self, vi: &ValueInfo) -> ValueInfo {
        ValueInfo {
            value: self.value(vi.value),
            ty: vi.ty.as_ref().map(|t| self.ty(t)),
            doc_string: vi.doc_string.clone(),
            metadata_props: vi.metadata_props.clone(),
        }
    }

    fn ty(&self, ty: &Type) -> Type {
        let mut ty = ty.clone();
        names::for_each_dim_param(&mut ty, &mut |p| {
            if let Some(new) = self.dims.get(p.as_str()) {
                *p = new.clone();
            }
        });
        ty
    }

    /// The name a mapped value has (host or staged).
    fn name_of(&self, v: ValueId) -> &str {
        match v.index().checked_sub(self.base_value) {
            Some(i) => self.staged.values.get(i).map_or("", |v| v.name.as_str()),
            None => self.host.value(v).name.as_str(),
        }
    }

    fn copy_graph(&self, g: GraphId) -> Result<Graph, InlineError> {
        let guest = self.guest;
        let graph = guest.graph(g);
        let mut out = Graph::new(self.owner(graph.owner));
        out.name = graph.name.clone();
        out.doc_string = graph.doc_string.clone();
        out.nodes = graph
            .nodes
            .iter()
            .filter_map(|n| self.node_map[n.index()])
            .collect();
        out.inputs = graph.inputs.iter().map(|vi| self.value_info(vi)).collect();
        out.outputs = graph.outputs.iter().map(|vi| self.value_info(vi)).collect();
        out.value_info = graph
            .value_info
            .iter()
            .map(|vi| self.value_info(vi))
            .collect();
        for init in &graph.initializers {
            out.initializers.push(Initializer {
                value: self.value(init.value),
                tensor: self.tensor(&init.tensor, init.value)?,
            });
        }
        for init in &graph.sparse_initializers {
            out.sparse_initializers.push(SparseInitializer {
                value: self.value(init.value),
                tensor: self.sparse(&init.tensor, init.value)?,
            });
        }
        out.quantization_annotation = graph
            .quantization_annotation
            .iter()
            .map(|a| self.annotation(g, a))
            .collect();
        out.metadata_props = graph.metadata_props.clone();
        Ok(out)
    }

    fn copy_node(&mut self, n: NodeId) -> Result<Node, InlineError> {
        let node = self.guest.node(n);
        let mut op_type = node.op_type.clone();
        if !self.renamed.is_empty()
            && let Some(new) = self.renamed.get(&call_key(node))
        {
            op_type = Some(new.clone());
        }
        let main = self.origins.get(node.graph.index()) == Some(&Origin::Main);
        let name = match node.name.as_deref() {
            Some(name) if !name.is_empty() && main && !self.function_mode() => {
                Some(self.node_names.fresh_owned(prefixed(&self.prefix, name)))
            }
            other => other.map(str::to_string),
        };
        Ok(Node {
            graph: self.graph_map[node.graph.index()].unwrap_or(self.target()),
            op_type,
            domain: node
                .domain
                .as_deref()
                .map(|d| normalize_domain(d).to_string()),
            overload: node.overload.clone(),
            name,
            inputs: node.inputs.iter().map(|&v| self.value(v)).collect(),
            outputs: node.outputs.iter().map(|&v| self.value(v)).collect(),
            attributes: node
                .attributes
                .iter()
                .map(|a| self.copy_attribute(a))
                .collect::<Result<_, _>>()?,
            doc_string: node.doc_string.clone(),
            metadata_props: node.metadata_props.clone(),
            device_configurations: node.device_configurations.clone(),
        })
    }

    fn copy_attribute(&self, a: &Attribute) -> Result<Attribute, InlineError> {
        let graph = |g: GraphId| {
            self.graph_map
                .get(g.index())
                .copied()
                .flatten()
                .unwrap_or(g)
        };
        let mut out = a.clone();
        match &mut out.kind {
            AttrKind::Value(v) => match v {
                AttrValue::Graph(g) => *g = graph(*g),
                AttrValue::Graphs(gs) => gs.iter_mut().for_each(|g| *g = graph(*g)),
                AttrValue::Tensor(t) => **t = self.tensor(t, None)?,
                AttrValue::Tensors(ts) => {
                    for t in ts.iter_mut() {
                        *t = self.tensor(t, None)?;
                    }
                }
                AttrValue::SparseTensor(t) => **t = self.sparse(t, None)?,
                AttrValue::SparseTensors(ts) => {
                    for t in ts.iter_mut() {
                        *t = self.sparse(t, None)?;
                    }
                }
                AttrValue::TypeProto(t) => *t = self.ty(t),
                AttrValue::TypeProtos(ts) => ts.iter_mut().for_each(|t| *t = self.ty(t)),
                _ => {}
            },
            AttrKind::Raw(raw) => {
                if let Some(g) = &mut raw.g {
                    *g = graph(*g);
                }
                raw.graphs.iter_mut().for_each(|g| *g = graph(*g));
            }
            AttrKind::Ref { .. } => {}
        }
        Ok(out)
    }

    /// A tensor with external data, or with `raw_data` left in the guest's file, made
    /// in-memory (a slice of the attached file).
    fn tensor(&self, t: &Tensor, value: Option<ValueId>) -> Result<Tensor, InlineError> {
        let tensor = || {
            value
                .map(|v| self.guest.value(v).name.clone())
                .or_else(|| t.name.clone())
                .unwrap_or_default()
        };
        if t.unread.is_some() {
            let raw = crate::external::raw(self.guest, t).map_err(|reason| {
                InlineError::MissingExternalData {
                    tensor: tensor(),
                    reason,
                }
            })?;
            return Ok(Tensor {
                raw_data: raw,
                unread: None,
                ..t.clone()
            });
        }
        if !t.is_external() {
            return Ok(t.clone());
        }
        let tensor = tensor();
        let ext = t
            .external_ref()
            .ok_or_else(|| InlineError::MissingExternalData {
                tensor: tensor.clone(),
                reason: "no location is given".into(),
            })?;
        let bytes = crate::external::resolve(self.guest, t, &ext)
            .map_err(|reason| InlineError::MissingExternalData { tensor, reason })?;
        Ok(Tensor {
            raw_data: Some(bytes),
            external_data: Vec::new(),
            data_location: None,
            ..t.clone()
        })
    }

    fn sparse(
        &self,
        t: &SparseTensor,
        value: Option<ValueId>,
    ) -> Result<SparseTensor, InlineError> {
        Ok(SparseTensor {
            values: t
                .values
                .as_ref()
                .map(|v| self.tensor(v, value))
                .transpose()?,
            indices: t
                .indices
                .as_ref()
                .map(|v| self.tensor(v, value))
                .transpose()?,
            dims: t.dims.clone(),
        })
    }

    /// A quantization annotation with its tensor names following the renamed values.
    fn annotation(&self, g: GraphId, a: &TensorAnnotation) -> TensorAnnotation {
        let rename = |name: &str| -> String {
            for graph in self.guest.scope_chain(g) {
                let found = self
                    .guest
                    .values
                    .iter()
                    .find(|(_, v)| v.graph == graph && v.name == name);
                if let Some((v, _)) = found {
                    return self
                        .value(Some(v))
                        .map_or(name.to_string(), |h| self.name_of(h).to_string());
                }
            }
            name.to_string()
        };
        TensorAnnotation {
            tensor_name: a.tensor_name.as_deref().map(rename),
            quant_parameter_tensor_names: a
                .quant_parameter_tensor_names
                .iter()
                .map(|p| StringPair {
                    key: p.key.clone(),
                    value: p.value.as_deref().map(rename),
                })
                .collect(),
        }
    }

    // ---- new nodes and values -----------------------------------------------------

    fn new_value(&mut self, name: String, def: ValueDef) -> ValueId {
        let id = ValueId::from_index(self.base_value + self.staged.values.len());
        self.staged.values.push(Value {
            name,
            graph: self.target(),
            def,
        });
        id
    }

    fn new_node(
        &mut self,
        graph: GraphId,
        op: &str,
        domain: &str,
        inputs: Vec<Option<ValueId>>,
        outputs: Vec<Option<ValueId>>,
        attributes: Vec<Attribute>,
    ) -> NodeId {
        let id = NodeId::from_index(self.base_node + self.staged.nodes.len());
        self.staged.nodes.push(Node {
            graph,
            op_type: Some(op.to_string()),
            domain: Some(domain.to_string()),
            overload: None,
            name: None,
            inputs,
            outputs,
            attributes,
            doc_string: None,
            metadata_props: Vec::new(),
            device_configurations: Vec::new(),
        });
        for v in self
            .staged
            .nodes
            .last()
            .map(|n| n.outputs.clone())
            .unwrap_or_default()
            .into_iter()
            .flatten()
        {
            if let Some(value) = v
                .index()
                .checked_sub(self.base_value)
                .and_then(|i| self.staged.values.get_mut(i))
            {
                value.def = ValueDef::Node(id);
            }
        }
        id
    }

    /// A new host graph input for guest input `gv` of `g`, named fresh from `base`,
    /// typed as the guest states it, and reported as where guest input `name` went.
    fn host_input(&mut self, g: &Graph, gv: ValueId, base: &str, name: &str) -> ValueId {
        let host_name = self.value_names.fresh(base);
        let hv = self.new_value(host_name.clone(), ValueDef::Input);
        let ty = g
            .inputs
            .iter()
            .find(|vi| vi.value == Some(gv))
            .and_then(|vi| vi.ty.as_ref())
            .map(|t| self.ty(t));
        self.staged.inputs.push(ValueInfo {
            value: Some(hv),
            ty,
            ..ValueInfo::default()
        });
        self.staged
            .report
            .inputs_added
            .push((name.to_string(), host_name));
        hv
    }

    /// A weight in the target: an initializer, or a `Constant` node in a function body.
    fn place_weight(&mut self, value: ValueId, weight: Weight) {
        if let Kind::Body(_) = self.kind {
            let attribute = match weight {
                Weight::Dense(t) => Attribute {
                    name: Some("value".into()),
                    doc_string: None,
                    kind: AttrKind::Value(AttrValue::Tensor(t)),
                },
                Weight::Sparse(t) => Attribute {
                    name: Some("sparse_value".into()),
                    doc_string: None,
                    kind: AttrKind::Value(AttrValue::SparseTensor(t)),
                },
            };
            let node = self.new_node(
                self.target(),
                "Constant",
                "",
                Vec::new(),
                vec![Some(value)],
                vec![attribute],
            );
            self.staged.front.push(node);
            return;
        }
        self.staged
            .report
            .initializers_added
            .push(self.name_of(value).to_string());
        match weight {
            Weight::Dense(tensor) => self.staged.initializers.push(Initializer {
                value: Some(value),
                tensor: *tensor,
            }),
            Weight::Sparse(tensor) => self.staged.sparse.push(SparseInitializer {
                value: Some(value),
                tensor: *tensor,
            }),
        }
    }

    /// The initializer (dense or sparse) of the guest main graph that defines `v`.
    fn guest_weight(&self, v: ValueId) -> Result<Option<Weight>, InlineError> {
        let g = self.guest.graph(self.guest_main);
        let Some(&(sparse, at)) = self.weights.get(&v) else {
            return Ok(None);
        };
        if let Some(i) = g.initializers.get(at).filter(|_| !sparse) {
            return Ok(Some(Weight::Dense(Box::new(
                self.tensor(&i.tensor, Some(v))?,
            ))));
        }
        if let Some(i) = g.sparse_initializers.get(at).filter(|_| sparse) {
            return Ok(Some(Weight::Sparse(Box::new(
                self.sparse(&i.tensor, Some(v))?,
            ))));
        }
        Ok(None)
    }

    fn set_def(&mut self, v: ValueId, def: ValueDef) {
        if let Some(value) = v
            .index()
            .checked_sub(self.base_value)
            .and_then(|i| self.staged.values.get_mut(i))
        {
            value.def = def;
        }
    }

    fn is_ir3(&self) -> bool {
        self.guest.ir_version.is_some_and(|v| v <= 3)
    }

    /// Whether the result is an IR <= 3 model too (both are), where every initializer
    /// of the main graph must also be a graph input.
    fn result_is_ir3(&self) -> bool {
        self.is_ir3() && self.host.ir_version.is_some_and(|v| v <= 3)
    }

    /// Nodes mode: the guest main graph's lists into the target.
    fn main_graph(&mut self, bindings: &FxMap<ValueId, ValueId>) -> Result<(), InlineError> {
        let guest = self.guest;
        let g = guest.graph(self.guest_main);
        let mut weights_done: HashSet<ValueId, FxBuild> = HashSet::default();
        for vi in &g.inputs {
            let Some(gv) = vi.value else { continue };
            if bindings.contains_key(&gv) {
                weights_done.insert(gv);
                continue;
            }
            let Some(hv) = self.value(Some(gv)) else {
                continue;
            };
            let weight = self.guest_weight(gv)?;
            weights_done.insert(gv);
            let as_input = match (&weight, self.kind) {
                (None, Kind::Main) => true,
                (None, _) => return Err(InlineError::UnboundInput(guest.value(gv).name.clone())),
                (Some(_), Kind::Main) => !self.is_ir3() || self.result_is_ir3(),
                (Some(_), _) => false,
            };
            if as_input {
                let mut info = self.value_info(vi);
                info.value = Some(hv);
                self.staged.inputs.push(info);
                let added = (guest.value(gv).name.clone(), self.name_of(hv).to_string());
                self.staged.report.inputs_added.push(added);
            } else {
                self.set_def(hv, ValueDef::Initializer);
            }
            if let Some(w) = weight {
                self.place_weight(hv, w);
            }
        }
        let weights: Vec<ValueId> = g
            .initializers
            .iter()
            .filter_map(|i| i.value)
            .chain(g.sparse_initializers.iter().filter_map(|i| i.value))
            .filter(|v| !weights_done.contains(v))
            .collect();
        for gv in weights {
            if !weights_done.insert(gv) {
                continue;
            }
            if let (Some(hv), Some(w)) = (self.value(Some(gv)), self.guest_weight(gv)?) {
                self.place_weight(hv, w);
            }
        }
        for &n in &g.nodes {
            if let Some(h) = self.node_map[n.index()] {
                self.staged.body.push(h);
            }
        }
        for vi in &g.value_info {
            if vi.value.is_some_and(|v| bindings.contains_key(&v)) {
                continue;
            }
            let info = self.value_info(vi);
            self.staged.value_info.push(info);
        }
        let quant: Vec<TensorAnnotation> = g
            .quantization_annotation
            .iter()
            .map(|a| self.annotation(self.guest_main, a))
            .collect();
        self.staged.quant.extend(quant);
        Ok(())
    }

    /// Function mode: the staged body becomes a function; one call in the target.
    fn function_call(&mut self, bindings: &FxMap<ValueId, ValueId>) -> Result<(), InlineError> {
        let guest = self.guest;
        let g = guest.graph(self.guest_main);
        let Some(body_id) = self.graph_map[self.guest_main.index()] else {
            return Ok(());
        };
        let Some(body_index) = body_id.index().checked_sub(self.base_graph) else {
            return Ok(());
        };
        // Formal inputs: the guest inputs, then every weight that is not one.
        let mut formals: Vec<ValueId> = g.inputs.iter().filter_map(|vi| vi.value).collect();
        let mut is_formal: HashSet<ValueId, FxBuild> = formals.iter().copied().collect();
        for v in g
            .initializers
            .iter()
            .filter_map(|i| i.value)
            .chain(g.sparse_initializers.iter().filter_map(|i| i.value))
        {
            if is_formal.insert(v) {
                formals.push(v);
            }
        }
        let mut args = Vec::with_capacity(formals.len());
        let mut body_inputs = Vec::with_capacity(formals.len());
        for &gv in &formals {
            let Some(bv) = self.value(Some(gv)) else {
                continue;
            };
            let name = guest.value(gv).name.clone();
            body_inputs.push(bv);
            let arg = if let Some(&h) = bindings.get(&gv) {
                h
            } else {
                self.set_def(bv, ValueDef::Input);
                let base = prefixed(&self.prefix, &name);
                // A guest input with a same-named initializer is optional (IR >= 4):
                // in the main graph it stays so, as a graph input with that default.
                let optional_input = self.kind == Kind::Main
                    && !self.is_ir3()
                    && g.inputs.iter().any(|vi| vi.value == Some(gv));
                match self.guest_weight(gv)? {
                    Some(w) if optional_input => {
                        let hv = self.host_input(g, gv, &base, &name);
                        self.place_weight(hv, w);
                        hv
                    }
                    Some(w) => {
                        let host_name = self.value_names.fresh(&base);
                        let hv = self.new_value(host_name, ValueDef::Initializer);
                        self.place_weight(hv, w);
                        hv
                    }
                    None if self.kind == Kind::Main => self.host_input(g, gv, &base, &name),
                    None => return Err(InlineError::UnboundInput(name)),
                }
            };
            args.push(Some(arg));
        }
        // Outputs: a formal input or a repeated value goes through an Identity.
        let mut body_names: HashSet<&str, FxBuild> = HashSet::default();
        for (_, v) in guest.values.iter() {
            if self.origins.get(v.graph.index()) == Some(&Origin::Main) {
                body_names.insert(v.name.as_str());
            }
        }
        let mut fresh = Names::taking(body_names);
        let mut body_outputs = Vec::new();
        let mut seen: Vec<ValueId> = Vec::new();
        for vi in &g.outputs {
            let Some(mut bv) = self.value(vi.value) else {
                continue;
            };
            if let Some(pos) = formals.iter().position(|f| Some(*f) == vi.value) {
                bv = body_inputs.get(pos).copied().unwrap_or(bv);
            }
            if body_inputs.contains(&bv) || seen.contains(&bv) {
                let name = fresh.fresh(self.name_of(bv));
                let out = self.new_value(name, ValueDef::Undefined);
                if let Some(v) = self.staged.values.last_mut() {
                    v.graph = body_id;
                }
                let node = self.new_node(
                    body_id,
                    "Identity",
                    "",
                    vec![Some(bv)],
                    vec![Some(out)],
                    Vec::new(),
                );
                if let Some(b) = self.staged.graphs.get_mut(body_index) {
                    b.nodes.push(node);
                }
                bv = out;
            }
            seen.push(bv);
            body_outputs.push(ValueInfo {
                value: Some(bv),
                ..ValueInfo::default()
            });
        }
        // Formals are untyped; from IR 10 a function's value_info can keep the types
        // the guest stated for its inputs and outputs.
        let typed = self.guest.ir_version.max(self.host.ir_version).unwrap_or(0) >= 10;
        let mut formal_types = Vec::new();
        if typed {
            let stated = g.inputs.iter().chain(&g.outputs);
            for vi in stated {
                if let (Some(ty), Some(v)) = (&vi.ty, self.value(vi.value))
                    && !formal_types.iter().any(|t: &ValueInfo| t.value == Some(v))
                {
                    formal_types.push(ValueInfo {
                        value: Some(v),
                        ty: Some(self.ty(ty)),
                        ..ValueInfo::default()
                    });
                }
            }
        }
        let function_id = self.staged.new_functions.last().copied();
        if let Some(b) = self.staged.graphs.get_mut(body_index) {
            b.value_info.extend(formal_types);
            if let Some(f) = function_id {
                b.owner = GraphOwner::Function(f);
            }
            b.inputs = body_inputs
                .iter()
                .map(|&v| ValueInfo {
                    value: Some(v),
                    ..ValueInfo::default()
                })
                .collect();
            b.outputs = body_outputs;
            b.initializers.clear();
            b.sparse_initializers.clear();
            b.quantization_annotation.clear();
        }
        // The function and the call.
        let Some(key) = self.staged.report.function.clone() else {
            return Ok(());
        };
        let domain = match &self.opts.mode {
            Mode::Function { domain, .. } => domain.clone(),
            Mode::Nodes => String::new(),
        };
        // A FunctionProto has one doc string and one metadata list: the guest model's
        // and its main graph's both go there (graph keys that clash become `graph/KEY`).
        let doc_string = match (guest.doc_string.as_deref(), g.doc_string.as_deref()) {
            (Some(m), Some(d)) if !m.is_empty() && !d.is_empty() && m != d => {
                Some(format!("{m}\n\n{d}"))
            }
            (Some(m), _) if !m.is_empty() => Some(m.to_string()),
            (_, d) => d.map(str::to_string),
        };
        let mut metadata_props = guest.metadata_props.clone();
        for pair in &g.metadata_props {
            match metadata_props.iter().find(|p| p.key == pair.key) {
                Some(p) if p.value == pair.value => {}
                Some(_) => metadata_props.push(StringPair {
                    key: Some(format!("graph/{}", pair.key())),
                    value: pair.value.clone(),
                }),
                None => metadata_props.push(pair.clone()),
            }
        }
        self.staged.functions.push(Function {
            name: Some(key.name.clone()),
            domain: Some(domain.clone()),
            overload: None,
            body: body_id,
            attribute: Vec::new(),
            attribute_proto: Vec::new(),
            doc_string,
            opset_import: normalized(&guest.opset_import),
            metadata_props,
        });
        let mut outputs = Vec::new();
        for vi in &g.outputs {
            let name = vi
                .value
                .map(|v| guest.value(v).name.clone())
                .unwrap_or_default();
            let host_name = self.value_names.fresh(&prefixed(&self.prefix, &name));
            outputs.push(Some(self.new_value(host_name, ValueDef::Undefined)));
        }
        let call = self.new_node(self.target(), &key.name, &domain, args, outputs, Vec::new());
        let call_name = self.node_names.fresh(&self.prefix.clone());
        if let Some(n) = self.staged.nodes.last_mut() {
            n.name = Some(call_name);
        }
        self.staged.body.push(call);
        Ok(())
    }

    /// Host values for the guest outputs; exposed ones become graph outputs.
    fn expose(&mut self, exposures: &[(usize, Option<String>)]) {
        let guest = self.guest;
        let g = guest.graph(self.guest_main);
        // The host value of each guest output slot.
        let mut slots: Vec<Option<ValueId>> =
            g.outputs.iter().map(|vi| self.value(vi.value)).collect();
        if self.function_mode() {
            let call = self.staged.body.last().copied();
            let outs = call
                .and_then(|c| c.index().checked_sub(self.base_node))
                .and_then(|i| self.staged.nodes.get(i))
                .map(|n| n.outputs.clone())
                .unwrap_or_default();
            slots = outs;
        }
        let mut exposed: HashSet<ValueId, FxBuild> = HashSet::default();
        for (slot, as_name) in exposures {
            let (Some(vi), Some(Some(v))) = (g.outputs.get(*slot), slots.get(*slot).copied())
            else {
                continue;
            };
            let out_name = vi
                .value
                .map(|v| guest.value(v).name.clone())
                .unwrap_or_default();
            let staged_index = v.index().checked_sub(self.base_value);
            let direct = !exposed.contains(&v)
                && staged_index
                    .and_then(|i| self.staged.values.get(i))
                    .is_some_and(|value| {
                        matches!(value.def, ValueDef::Node(_)) && value.graph == self.target()
                    });
            let out = if direct {
                if let (Some(name), Some(value)) = (
                    as_name,
                    staged_index.and_then(|i| self.staged.values.get_mut(i)),
                ) {
                    let old = std::mem::replace(&mut value.name, name.clone());
                    // Quantization annotations name tensors: they follow the rename.
                    for a in &mut self.staged.quant {
                        if a.tensor_name.as_deref() == Some(old.as_str()) {
                            a.tensor_name = Some(name.clone());
                        }
                        for p in &mut a.quant_parameter_tensor_names {
                            if p.value.as_deref() == Some(old.as_str()) {
                                p.value = Some(name.clone());
                            }
                        }
                    }
                }
                v
            } else {
                let name = match as_name {
                    Some(n) => n.clone(),
                    None => self.value_names.fresh(&prefixed(&self.prefix, &out_name)),
                };
                let out = self.new_value(name, ValueDef::Undefined);
                let node = self.new_node(
                    self.target(),
                    "Identity",
                    "",
                    vec![Some(v)],
                    vec![Some(out)],
                    Vec::new(),
                );
                self.staged.body.push(node);
                out
            };
            exposed.insert(out);
            let ty = match self.kind {
                Kind::Main => vi.ty.as_ref().map(|t| self.ty(t)),
                _ => None,
            };
            self.staged.outputs.push(ValueInfo {
                value: Some(out),
                ty,
                doc_string: vi.doc_string.clone(),
                metadata_props: vi.metadata_props.clone(),
            });
            self.staged
                .report
                .outputs_added
                .push(self.name_of(out).to_string());
        }
        for (vi, v) in g.outputs.iter().zip(&slots) {
            let name = vi
                .value
                .map(|v| guest.value(v).name.clone())
                .unwrap_or_default();
            let host = v.map(|v| self.name_of(v).to_string()).unwrap_or_default();
            self.staged.report.outputs.push((name, host));
            // An output not exposed keeps its stated type as value_info (a value the
            // host computes, not one it hands out).
            if let (Kind::Main, false, Some(v), Some(ty)) =
                (self.kind, self.function_mode(), *v, &vi.ty)
                && !exposed.contains(&v)
                && v.index()
                    .checked_sub(self.base_value)
                    .and_then(|i| self.staged.values.get(i))
                    .is_some_and(|value| matches!(value.def, ValueDef::Node(_)))
                && !self.staged.value_info.iter().any(|x| x.value == Some(v))
            {
                let ty = self.ty(ty);
                self.staged.value_info.push(ValueInfo {
                    value: Some(v),
                    ty: Some(ty),
                    doc_string: vi.doc_string.clone(),
                    metadata_props: vi.metadata_props.clone(),
                });
            }
        }
        self.staged.report.nodes = self
            .staged
            .front
            .iter()
            .chain(&self.staged.body)
            .copied()
            .collect();
    }

    /// Model and main-graph metadata and doc strings of the guest (nodes mode).
    fn metadata(&mut self) {
        if self.function_mode() {
            return;
        }
        let guest = self.guest;
        let g = guest.graph(self.guest_main);
        let prefix = self.prefix.clone();
        // Keys stay unique (onnx.checker rejects duplicates): an entry the host has
        // already, with the same value, is not added again; a clashing key becomes
        // `<prefix>/key` (then `_2`, `_3`… until free).
        let merge = |have: &[StringPair], add: &[StringPair], doc: Option<&str>| {
            let mut out: Vec<StringPair> = Vec::new();
            let put = |out: &mut Vec<StringPair>, key: String, value: Option<String>| {
                let same = |p: &&StringPair| p.key.as_deref() == Some(key.as_str());
                match have.iter().chain(out.iter()).find(same) {
                    None => out.push(StringPair {
                        key: Some(key),
                        value,
                    }),
                    Some(p) if p.value == value => {}
                    Some(_) => {
                        let base = if key.starts_with(&format!("{prefix}/")) {
                            key
                        } else {
                            format!("{prefix}/{key}")
                        };
                        let mut candidate = base.clone();
                        let mut k = 2;
                        loop {
                            let taken = have
                                .iter()
                                .chain(out.iter())
                                .find(|p| p.key.as_deref() == Some(candidate.as_str()));
                            match taken {
                                None => {
                                    out.push(StringPair {
                                        key: Some(candidate),
                                        value,
                                    });
                                    break;
                                }
                                Some(p) if p.value == value => break,
                                Some(_) => {
                                    candidate = format!("{base}_{k}");
                                    k += 1;
                                }
                            }
                        }
                    }
                }
            };
            for pair in add {
                put(&mut out, pair.key().to_string(), pair.value.clone());
            }
            if let Some(doc) = doc.filter(|d| !d.is_empty()) {
                put(
                    &mut out,
                    format!("{prefix}/doc_string"),
                    Some(doc.to_string()),
                );
            }
            out
        };
        self.staged.model_metadata = merge(
            &self.host.metadata_props,
            &guest.metadata_props,
            guest.doc_string.as_deref(),
        );
        let have = match &self.staged.target_function {
            Some((f, _)) => &self.host.function(*f).metadata_props,
            None => &self.host.graph(self.target()).metadata_props,
        };
        self.staged.graph_metadata = merge(have, &g.metadata_props, g.doc_string.as_deref());
    }

    fn ir_version(&mut self) {
        let ir = match (self.host.ir_version, self.guest.ir_version) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let overloads = self
            .host
            .functions
            .iter()
            .map(|&f| self.host.function(f))
            .chain(self.staged.functions.iter())
            .any(|f| f.overload.as_deref().is_some_and(|o| !o.is_empty()));
        // Model-local functions need IR 8, overloads IR 10.
        let functions = !self.host.functions.is_empty() || !self.staged.functions.is_empty();
        self.staged.ir_version = if overloads {
            Some(ir.unwrap_or(10).max(10))
        } else if functions {
            Some(ir.unwrap_or(8).max(8))
        } else {
            ir
        };
    }
}

/// `prefix/name`, built without the formatting machinery (it runs once per copied
/// value and node).
fn prefixed(prefix: &str, name: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + 1 + name.len());
    out.push_str(prefix);
    out.push('/');
    out.push_str(name);
    out
}

enum Weight {
    Dense(Box<Tensor>),
    Sparse(Box<SparseTensor>),
}

/// Where each guest graph sits.
fn origins(model: &Model) -> Vec<Origin> {
    model
        .graphs
        .iter()
        .map(|(g, _)| {
            let mut current = g;
            for _ in 0..=model.graphs.len() {
                match model.graph(current).owner {
                    GraphOwner::Model => return Origin::Main,
                    GraphOwner::Function(f) => return Origin::Function(f),
                    GraphOwner::Training(_) => return Origin::Other,
                    GraphOwner::Node(n) => match model.nodes.get(n) {
                        Some(node) => current = node.graph,
                        None => return Origin::Other,
                    },
                }
            }
            Origin::Other
        })
        .collect()
}

/// The function id a node would call.
fn call_key(node: &Node) -> FunctionKey {
    FunctionKey {
        domain: node.domain().to_string(),
        name: node.op_type().to_string(),
        overload: node.overload().to_string(),
    }
}
