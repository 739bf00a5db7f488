//! Checks of one graph and its subgraphs: names, order, scopes, and each node against
//! its schema or the local function it calls.

use std::collections::HashSet;

use crate::hash::FxBuild;

type Set<T> = HashSet<T, FxBuild>;

use super::{Checker, Positions, Scope, positions};
use crate::diag::{Location, Severity};
use crate::ir::{AttrKind, GraphId, NodeId, ValueDef, ValueId, normalize_domain};
use crate::schema::{self, ParamOption};

use crate::calls::STANDARD_DOMAINS;

impl<'m> Checker<'m> {
    /// Checks `root` and every subgraph below it.
    pub(super) fn graph_tree(&mut self, root: GraphId) {
        let model = self.model;
        for g in model.scope_tree(root) {
            self.graph(g);
        }
    }

    /// The values a graph defines, in definition order.
    fn definitions(&self, g: GraphId) -> Vec<ValueId> {
        let graph = self.model.graph(g);
        let mut out: Vec<ValueId> = graph.inputs.iter().filter_map(|i| i.value).collect();
        let inputs: Set<ValueId> = out.iter().copied().collect();
        out.extend(
            graph
                .initializers
                .iter()
                .filter_map(|i| i.value)
                .chain(graph.sparse_initializers.iter().filter_map(|s| s.value))
                .filter(|v| !inputs.contains(v)),
        );
        for &n in &graph.nodes {
            out.extend(self.model.node(n).outputs.iter().flatten());
        }
        out
    }

    /// Names visible in the graphs enclosing `g` (not `g` itself).
    fn outer_names(&self, g: GraphId) -> Set<&'m str> {
        let model: &'m crate::ir::Model = self.model;
        let mut names = Set::default();
        for outer in model.scope_chain(g).skip(1) {
            for v in self.definitions(outer) {
                names.insert(model.value(v).name.as_str());
            }
        }
        names
    }

    fn graph(&mut self, g: GraphId) {
        let position = positions(self.model, g);
        self.scope = Scope::Graph(g);
        self.graph_names(g);
        if self.model.graph(g).owner == crate::ir::GraphOwner::Model {
            self.main_graph_rules(g);
        }
        self.external_data(g);
        for (i, &n) in self.model.graph(g).nodes.iter().enumerate() {
            self.node_rules(g, i, n, &position);
        }
        self.graph_outputs(g, &position);
    }

    /// A graph's own rules: its names, its value_info (the main graph's), its outputs.
    pub(super) fn graph_rules(&mut self, g: GraphId, position: &Positions) {
        self.scope = Scope::Graph(g);
        self.graph_names(g);
        if self.model.graph(g).owner == crate::ir::GraphOwner::Model {
            self.main_graph_rules(g);
        }
        self.external_data(g);
        self.graph_outputs(g, position);
    }

    /// Initializers whose external data file is missing (not supplied with the
    /// model) or too short for the range they name.
    fn external_data(&mut self, g: GraphId) {
        let model = self.model;
        let graph = model.graph(g);
        let sparse = graph.sparse_initializers.iter().flat_map(|s| {
            let tensors = [s.tensor.values.as_ref(), s.tensor.indices.as_ref()];
            tensors.into_iter().flatten().map(move |t| (s.value, t))
        });
        let dense = graph.initializers.iter().map(|i| (i.value, &i.tensor));
        for (value, tensor) in dense.chain(sparse) {
            let Some(ext) = tensor.external_ref() else {
                continue;
            };
            if let Err(reason) = crate::external::check(model, tensor, &ext) {
                let name = value.map_or("", |v| model.value(v).name.as_str());
                self.error(
                    "check.external-data",
                    format!("initializer {name:?}: its external data cannot be read: {reason}"),
                    Location::graph(g),
                );
            }
        }
    }

    /// SSA and shadowing.
    fn graph_names(&mut self, g: GraphId) {
        let model = self.model;
        let outer = self.outer_names(g);
        let definitions = self.definitions(g);
        let mut defined: Set<&str> =
            Set::with_capacity_and_hasher(definitions.len(), FxBuild::default());
        for v in definitions {
            let name = model.value(v).name.as_str();
            if !defined.insert(name) {
                self.error(
                    "check.ssa",
                    format!("{name:?} is defined more than once in this graph"),
                    Location::graph(g),
                );
            } else if outer.contains(name) {
                self.report(
                    Severity::Warning,
                    "check.shadowing",
                    format!("{name:?} shadows a value of an enclosing graph; rename one of them"),
                    Location::graph(g),
                );
            }
        }
    }

    /// Whether the node computing a value of graph `g` is no longer in its graph (an
    /// edit deleted it without reconnecting its readers).
    fn detached(&self, g: GraphId, p: NodeId, position: &Positions) -> bool {
        let owner = self.model.node(p).graph;
        if owner == g {
            !position.contains_key(&p)
        } else {
            !self.model.graph(owner).nodes.contains(&p)
        }
    }

    /// Node `n`, at position `i` of graph `g`: its inputs defined, and before it; the
    /// node against its schema or callee.
    pub(super) fn node_rules(&mut self, g: GraphId, i: usize, n: NodeId, position: &Positions) {
        let model = self.model;
        self.scope = Scope::Node(n);
        for (k, input) in model.node(n).inputs.iter().enumerate() {
            let Some(v) = *input else { continue };
            let value = model.value(v);
            match value.def {
                ValueDef::Node(p) if self.detached(g, p, position) => self.error(
                    "check.undefined-name",
                    format!("input {k} {:?} is computed by a node that is no longer in the graph", value.name),
                    Location::node(g, n).with(format!("input {k}")),
                ),
                ValueDef::Undefined => self.error(
                    "check.undefined-name",
                    format!("input {k} {:?} is not defined in this scope", value.name),
                    Location::node(g, n).with(format!("input {k}")),
                ),
                ValueDef::Node(p) if position.get(&p).is_some_and(|&j| j >= i) => self.error(
                    "check.topological-order",
                    format!("input {k} {:?} is produced by a node that comes later; nodes must be in topological order", value.name),
                    Location::node(g, n).with(format!("input {k}")),
                ),
                _ => {}
            }
        }
        self.node(g, n);
        self.scope = Scope::Graph(g);
    }

    /// Graph outputs computed by a node no longer in the graph, or not defined.
    fn graph_outputs(&mut self, g: GraphId, position: &Positions) {
        let model = self.model;
        let graph = model.graph(g);
        for (k, output) in graph.outputs.iter().enumerate() {
            if let Some(v) = output.value
                && let ValueDef::Node(p) = model.value(v).def
                && self.detached(g, p, position)
            {
                self.error(
                    "check.undefined-name",
                    format!(
                        "graph output {k} {:?} is computed by a node that is no longer in the graph",
                        model.value(v).name
                    ),
                    Location::graph(g).with(format!("output {k}")),
                );
            }
            if let Some(v) = output.value
                && model.value(v).def == ValueDef::Undefined
                && !matches!(graph.owner, crate::ir::GraphOwner::Function(_))
            {
                self.error(
                    "check.undefined-name",
                    format!("graph output {k} {:?} is not defined", model.value(v).name),
                    Location::graph(g).with(format!("output {k}")),
                );
            }
        }
    }

    /// onnx.checker's rules for the main graph: complete types on inputs, outputs and
    /// value_info; before IR 4, every initializer is also an input.
    fn main_graph_rules(&mut self, g: GraphId) {
        let model = self.model;
        let graph = model.graph(g);
        let lists = [
            ("input", &graph.inputs),
            ("output", &graph.outputs),
            ("value_info", &graph.value_info),
        ];
        for (what, infos) in lists {
            for (k, info) in infos.iter().enumerate() {
                let at = || Location::graph(g).with(format!("{what} {k}"));
                let name = info
                    .value
                    .map(|v| model.value(v).name.as_str())
                    .unwrap_or("");
                if name.is_empty() {
                    self.error("check.value-info", format!("{what} {k} has no name"), at());
                    continue;
                }
                let missing = if what == "value_info" {
                    incomplete(info.ty.as_ref())
                } else {
                    incomplete_io(info.ty.as_ref())
                };
                if let Some(missing) = missing {
                    self.error(
                        "check.value-info",
                        format!("{what} {name:?}: {missing}"),
                        at(),
                    );
                }
            }
        }
        if self.ir_version() < 4 {
            let inputs: HashSet<ValueId> = graph.inputs.iter().filter_map(|i| i.value).collect();
            for init in &graph.initializers {
                if let Some(v) = init.value
                    && !inputs.contains(&v)
                {
                    self.error(
                        "check.ir-version-field",
                        format!("initializer {:?} is not a graph input, which IR versions below 4 require", model.value(v).name),
                        Location::graph(g),
                    );
                }
            }
        }
        if self.ir_version() < 6 && !graph.sparse_initializers.is_empty() {
            self.error(
                "check.ir-version-field",
                format!(
                    "sparse initializers need ir_version >= 6 (the model has {})",
                    self.ir_version()
                ),
                Location::graph(g),
            );
        }
    }

    /// The opset version in force for `domain` at graph `g`, or `None` if not imported.
    fn opset_version(&mut self, g: GraphId, domain: &'m str) -> Option<i64> {
        let scope = self.model.enclosing_function(g);
        if let Some(&v) = self.opset_cache.get(&(scope, domain)) {
            return v;
        }
        let imports = match scope {
            Some(f) => &self.model.function(f).opset_import,
            None => &self.model.opset_import,
        };
        let normalized = normalize_domain(domain);
        let version = imports
            .iter()
            .find(|o| o.normalized_domain() == normalized)
            .map(|o| o.version.unwrap_or(1));
        self.opset_cache.insert((scope, domain), version);
        version
    }

    /// `schema::lookup`, remembered: a model uses few distinct operators many times.
    fn schema(
        &mut self,
        domain: &'m str,
        op: &'m str,
        version: i64,
    ) -> Option<&'static schema::OpSchema> {
        *self
            .schema_cache
            .entry((domain, op, version))
            .or_insert_with(|| schema::lookup(domain, op, version))
    }

    fn node(&mut self, g: GraphId, n: NodeId) {
        let model = self.model;
        let node = model.node(n);
        let at = Location::node(g, n);
        let domain = node.domain();

        if !node.overload().is_empty() && self.ir_version() < 10 {
            self.error(
                "check.ir-version-field",
                format!(
                    "the node calls overload {:?}, which needs ir_version >= 10 (the model has {})",
                    node.overload(),
                    self.ir_version()
                ),
                at.clone(),
            );
        }
        self.attributes_in_context(g, n);

        let version = self.opset_version(g, domain);
        if version.is_none() {
            let scope = if self.model.enclosing_function(g).is_some() {
                "the function's"
            } else {
                "the model's"
            };
            self.error(
                "check.opset-missing",
                format!(
                    "domain {:?} of {} is not in {scope} opset_import",
                    node.domain.as_deref().unwrap_or(""),
                    node.op_type()
                ),
                at.clone(),
            );
        }
        match crate::calls::resolve(model, &self.functions, n) {
            crate::calls::Resolved::Function(callee) => {
                self.call(n, callee);
                return;
            }
            crate::calls::Resolved::Missing => {
                let p = crate::calls::missing_function(model, n);
                self.report(p.severity, p.code, p.message, p.at);
                return;
            }
            crate::calls::Resolved::NotACall => {}
        }
        if !STANDARD_DOMAINS.contains(&domain) {
            return; // A custom domain: nothing to check the node against.
        }
        let Some(version) = version else { return };
        let Some(schema) = self.schema(domain, node.op_type(), version) else {
            self.error(
                "check.unknown-op",
                format!(
                    "{:?} is not an operator of domain {:?} at opset version {version}",
                    node.op_type(),
                    domain
                ),
                at.clone(),
            );
            return;
        };
        // Runtimes evaluate function bodies at the model's version: the op must mean
        // the same there (semantics.md section 1).
        if self.model.enclosing_function(g).is_some()
            && let Some(model_version) = self.model.opset_version(domain)
            && model_version != version
        {
            let at_model = schema::lookup(domain, node.op_type(), model_version);
            if at_model.map(|s| s.since_version) != Some(schema.since_version) {
                self.error(
                    "check.function-opset-incompatible",
                    format!(
                        "{} is {}-{} at the function's opset {version} but {} at the model's opset {model_version}",
                        node.op_type(),
                        schema.name,
                        schema.since_version,
                        at_model.map_or_else(|| "absent".to_string(), |s| format!("{}-{}", s.name, s.since_version)),
                    ),
                    at.clone(),
                );
            }
        }
        self.against_schema(g, n, schema);
    }

    /// Rules about attributes that hold wherever the node is.
    fn attributes_in_context(&mut self, g: GraphId, n: NodeId) {
        let model = self.model;
        let function = self.model.enclosing_function(g);
        let attributes = &model.node(n).attributes;
        for (i, a) in attributes.iter().enumerate() {
            let at = || Location::node(g, n).with(format!("attribute {:?}", a.name()));
            // Nodes carry a handful of attributes: a scan beats a set.
            if attributes[..i].iter().any(|b| b.name() == a.name()) {
                self.error(
                    "check.attribute-duplicate",
                    format!("attribute {:?} is given twice", a.name()),
                    at(),
                );
            }
            match &a.kind {
                AttrKind::Ref { name, .. } => match function {
                    None => self.error(
                        "check.ref-outside-function",
                        format!("attribute {:?} refers to {name:?} (ref_attr_name), which only a function body may do", a.name()),
                        at(),
                    ),
                    Some(f) => {
                        let func = model.function(f);
                        let declared = func.attribute.iter().any(|d| d == name)
                            || func.attribute_proto.iter().any(|d| d.name() == name);
                        if !declared {
                            self.error(
                                "check.ref-undeclared",
                                format!("attribute {:?} refers to {name:?}, which function {} does not declare", a.name(), func.key()),
                                at(),
                            );
                        }
                    }
                },
                // In a function body, the function's rules report it (crate::calls).
                AttrKind::Raw(raw)
                    if function.is_some()
                        && raw.ref_attr_name.is_some()
                        && raw.r#type.is_none() => {}
                AttrKind::Raw(raw) => {
                    let why = if raw.ref_attr_name.is_some() && raw.r#type.is_none() {
                        "a reference (ref_attr_name) without a type".to_string()
                    } else {
                        format!("its type field ({:?}) and value fields do not agree", raw.r#type)
                    };
                    self.error("check.attribute-malformed", format!("attribute {:?} is malformed: {why}", a.name()), at());
                }
                AttrKind::Value(_) => {}
            }
        }
    }

    fn against_schema(&mut self, g: GraphId, n: NodeId, schema: &schema::OpSchema) {
        let node = self.model.node(n);
        let at = Location::node(g, n);
        let op = OpName(schema);
        let (inputs, outputs) = (node.inputs.len(), node.outputs.len());
        if inputs < schema.min_inputs || inputs > schema.max_inputs {
            self.error(
                "check.input-arity",
                format!(
                    "{op} takes {} inputs, the node has {inputs}",
                    range(schema.min_inputs, schema.max_inputs)
                ),
                at.clone(),
            );
        }
        if outputs < schema.min_outputs || outputs > schema.max_outputs {
            self.error(
                "check.output-arity",
                format!(
                    "{op} has {} outputs, the node has {outputs}",
                    range(schema.min_outputs, schema.max_outputs)
                ),
                at.clone(),
            );
        }
        for (k, input) in node.inputs.iter().enumerate() {
            let formal = schema.inputs.get(k).or(schema.inputs.last());
            if input.is_none()
                && let Some(formal) = formal
                && formal.option == ParamOption::Single
            {
                self.error(
                    "check.required-input-missing",
                    format!(
                        "input {k} ({}) of {op} is required but given as \"\"",
                        formal.name
                    ),
                    at.clone().with(format!("input {k}")),
                );
            }
        }
        for a in &node.attributes {
            let at = || at.clone().with(format!("attribute {:?}", a.name()));
            let Some(declared) = schema.attributes.iter().find(|s| s.name == a.name()) else {
                self.error(
                    "check.attribute-unknown",
                    format!("{op} has no attribute {:?}", a.name()),
                    at(),
                );
                continue;
            };
            let given = match &a.kind {
                AttrKind::Value(v) => Some(v.attr_type()),
                AttrKind::Ref { ty, .. } => Some(*ty),
                AttrKind::Raw(_) => None,
            };
            if let Some(given) = given
                && given != declared.ty
            {
                self.error(
                    "check.attribute-type",
                    format!(
                        "attribute {:?} of {op} is {}, not {}",
                        a.name(),
                        declared.ty.name(),
                        given.name()
                    ),
                    at(),
                );
            }
        }
        for declared in schema.attributes.iter().filter(|s| s.required) {
            if !node.attributes.iter().any(|a| a.name() == declared.name) {
                self.error(
                    "check.attribute-required",
                    format!("{op} requires attribute {:?}", declared.name),
                    at.clone(),
                );
            }
        }
    }
}

fn range(min: usize, max: usize) -> String {
    if min == max {
        format!("{min}")
    } else if max >= i32::MAX as usize {
        format!("at least {min}")
    } else {
        format!("{min} to {max}")
    }
}

/// What a main-graph value info's type lacks that onnx.checker requires, if anything.
pub(crate) fn incomplete(ty: Option<&crate::ir::Type>) -> Option<&'static str> {
    use crate::ir::TypeValue;
    let Some(ty) = ty else {
        return Some("it has no type");
    };
    match &ty.value {
        None => Some("its type has no value"),
        Some(TypeValue::Tensor(t)) => t
            .elem_type
            .is_none()
            .then_some("its tensor type has no elem_type"),
        Some(TypeValue::SparseTensor(t)) => {
            if t.elem_type.is_none() {
                Some("its sparse tensor type has no elem_type")
            } else if t.shape.is_none() {
                Some("its sparse tensor type has no shape")
            } else {
                None
            }
        }
        Some(TypeValue::Sequence(e) | TypeValue::Optional(e)) => e
            .as_ref()
            .map_or(Some("its type has no elem_type"), |e| incomplete(Some(e))),
        Some(TypeValue::Map {
            key_type,
            value_type,
        }) => {
            if key_type.is_none() {
                Some("its map type has no key_type")
            } else {
                value_type
                    .as_ref()
                    .map_or(Some("its map type has no value_type"), |v| {
                        incomplete(Some(v))
                    })
            }
        }
        Some(TypeValue::Opaque { .. }) => None,
    }
}

/// What a main-graph input's or output's type lacks that onnx.checker requires: a
/// complete type, and for a tensor a shape (its rank; dimensions may be unknown).
pub(crate) fn incomplete_io(ty: Option<&crate::ir::Type>) -> Option<&'static str> {
    incomplete(ty).or_else(|| match ty?.value.as_ref()? {
        crate::ir::TypeValue::Tensor(t) if t.shape.is_none() => {
            Some("its tensor type has no shape (give its rank, with ? for unknown dimensions)")
        }
        _ => None,
    })
}

/// `Name-version` of a schema, formatted only when a message needs it.
struct OpName<'s>(&'s schema::OpSchema);

impl std::fmt::Display for OpName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.0.name, self.0.since_version)
    }
}
