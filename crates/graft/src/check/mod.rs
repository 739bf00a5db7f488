//! The checker: every rule onnx.checker enforces that Graft's IR can express, plus the
//! rules it misses that `semantics.md` §5 lists (overloads below IR 10, dangling calls,
//! undeclared or mistyped attributes at calls, `ref_attr_name` outside functions,
//! unproduced function outputs, call arity, recursion, shadowing, local functions
//! shadowing standard ops).
//!
//! Each diagnostic has a stable code (`check.*`, listed in [`CODES`]) and points at the
//! graph, node and attribute or input where the problem is. The checker reads the model
//! only; it is cheap enough to run after every edit.

mod calls;
mod graph;

pub(crate) use graph::incomplete_io;

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Location, Severity};
use crate::hash::{FxBuild, FxMap};
use crate::ir::{FunctionId, FunctionIndex, GraphId, Model, NodeId, Touched, ValueId};
use crate::schema;

/// Every code the checker emits, with the rule in one line. "stricter" marks rules
/// onnx.checker does not enforce.
pub const CODES: &[(&str, &str)] = &[
    ("check.ir-version-missing", "the model has no ir_version"),
    (
        "check.metadata-duplicate-key",
        "the model's metadata_props has a key twice (onnx.checker rejects it)",
    ),
    (
        "check.ir-version-field",
        "a field is used that the model's IR version does not have (stricter for overloads and attribute defaults)",
    ),
    (
        "check.opset-duplicate",
        "a domain is imported twice (ai.onnx and \"\" are one domain)",
    ),
    (
        "check.opset-missing",
        "a node's domain is not in the opset_import in force",
    ),
    ("check.graph-missing", "the model has no graph"),
    (
        "check.value-info",
        "a main-graph input, output or value_info without a name or a complete type",
    ),
    ("check.ssa", "a name is defined twice in one graph"),
    (
        "check.external-data",
        "an initializer's external data file is missing or shorter than its range",
    ),
    (
        "check.undefined-name",
        "a name is used where nothing defines it",
    ),
    (
        "check.topological-order",
        "a node uses a value that a later node defines",
    ),
    (
        "check.shadowing",
        "a subgraph defines a name an enclosing scope already has (stricter)",
    ),
    (
        "check.unknown-op",
        "no schema for the op at the imported version, and no local function",
    ),
    (
        "check.input-arity",
        "too few or too many inputs for the schema",
    ),
    (
        "check.output-arity",
        "too few or too many outputs for the schema",
    ),
    (
        "check.required-input-missing",
        "a required input is given as \"\" (stricter)",
    ),
    (
        "check.attribute-unknown",
        "an attribute the op's schema does not declare",
    ),
    ("check.attribute-type", "an attribute of the wrong type"),
    (
        "check.attribute-required",
        "a required attribute is missing",
    ),
    (
        "check.attribute-duplicate",
        "an attribute is given twice on one node",
    ),
    (
        "check.attribute-malformed",
        "an attribute whose fields do not form one value",
    ),
    (
        "check.ref-outside-function",
        "ref_attr_name outside a function body (stricter)",
    ),
    (
        "check.ref-undeclared",
        "ref_attr_name names an attribute the function does not declare",
    ),
    (
        "check.function-duplicate",
        "two functions with the same (domain, name, overload)",
    ),
    (
        "check.function-attribute-both",
        "a function attribute is both in attribute and attribute_proto (stricter)",
    ),
    (
        "check.function-output-unproduced",
        "a function output nothing in the body produces (stricter)",
    ),
    (
        "check.function-output-is-input",
        "a function output that is one of its inputs (inliners must insert an Identity)",
    ),
    (
        "check.function-recursion",
        "functions call each other in a cycle (stricter)",
    ),
    (
        "check.function-shadows-op",
        "a local function in domain \"\" named like a standard op: runtimes run the op (stricter)",
    ),
    (
        "check.call-missing-function",
        "a call to a local function domain with no matching (name, overload) (stricter)",
    ),
    (
        "check.call-arity",
        "a call with more inputs or outputs than the function declares (stricter)",
    ),
    (
        "check.call-undeclared-attribute",
        "a call passes an attribute the function does not declare (stricter)",
    ),
    (
        "check.call-attribute-type",
        "a call's attribute type differs from the references in the body (stricter)",
    ),
    (
        "check.function-opset-incompatible",
        "a function body op whose schema differs between the function's opset and the model's",
    ),
    (
        "check.call-required-input-missing",
        "a call omits an input the body uses where an op requires one (stricter)",
    ),
    (
        "check.call-graph-captures",
        "a GRAPH attribute passed to a function reads names of the caller's scope (stricter)",
    ),
    (
        "check.call-missing-required-attribute",
        "a reference the call leaves unbound, with no default, where the op requires the attribute (stricter)",
    ),
];

/// Checks the whole model.
pub fn check(model: &Model) -> Vec<Diagnostic> {
    Checked::new(model).diagnostics
}

/// Whether a finding of the importer still holds for `model`, after edits: a stray
/// `value_info` until its entry goes, a malformed attribute until it is replaced or
/// its node deleted, unknown fields always (they came with the file). The importer's
/// name errors go: the checker finds them again, kept current, as
/// `check.undefined-name` and `check.ssa`. Any other finding stays.
pub fn import_finding_holds(model: &Model, d: &Diagnostic) -> bool {
    let detail = d.at.detail.as_deref().unwrap_or("");
    match d.code {
        "import.stray-value-info" => {
            d.at.graph
                .and_then(|g| model.graphs.get(g))
                .is_some_and(|g| {
                    g.value_info.iter().filter_map(|i| i.value).any(|v| {
                        let value = model.value(v);
                        value.def == crate::ir::ValueDef::Undefined
                            && detail == format!("value_info {:?}", value.name)
                    })
                })
        }
        "import.malformed-attribute" => d.at.node.is_some_and(|n| {
            let Some(node) = model.nodes.get(n) else {
                return false;
            };
            model.graph(node.graph).nodes.contains(&n)
                && node.attributes.iter().any(|a| {
                    matches!(a.kind, crate::ir::AttrKind::Raw(_))
                        && detail == format!("attribute {:?}", a.name())
                })
        }),
        "import.undefined-name" | "import.duplicate-name" => false,
        _ => true,
    }
}

/// Where a diagnostic came from: the model's own rules (metadata, opsets, functions,
/// recursion), one graph's rules (names, value_info, outputs), or one node's (its
/// inputs' order and definitions, its schema or callee).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Scope {
    Model,
    Graph(GraphId),
    Node(NodeId),
}

/// The checker's findings, each with the part of the model it is about, so that after
/// an edit only what the edit touched is checked again ([`Checked::update`]).
#[derive(Clone, Debug, Default)]
pub struct Checked {
    diagnostics: Vec<Diagnostic>,
    scopes: Vec<Scope>,
}

/// What a [`Checked::update`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rechecked {
    /// Graphs whose own rules ran again.
    pub graphs: usize,
    /// Nodes checked again.
    pub nodes: usize,
    /// Whether the whole model was checked again.
    pub full: bool,
}

impl Checked {
    /// Checks the whole model.
    pub fn new(model: &Model) -> Checked {
        let mut checker = Checker::new(model);
        checker.model_level();
        checker.called_domains_imported();
        for &f in &model.functions {
            checker.function(f);
        }
        checker.recursion();
        let mut graphs: Vec<GraphId> = model.graph.into_iter().collect();
        for t in &model.training_info {
            graphs.extend(t.initialization);
            graphs.extend(t.algorithm);
        }
        for &f in &model.functions {
            graphs.push(model.function(f).body);
        }
        for g in graphs {
            checker.graph_tree(g);
        }
        Checked {
            diagnostics: checker.out,
            scopes: checker.scopes,
        }
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// How many of the findings are errors.
    pub fn errors(&self) -> usize {
        let errors = self.diagnostics.iter();
        errors.filter(|d| d.severity == Severity::Error).count()
    }

    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }

    /// Checks `model` again after a change that `touched` describes (`self` was the
    /// check of the model before it). Gives the diagnostics a fresh [`check`] gives,
    /// possibly in another order: those of untouched parts are kept, and these are
    /// found again:
    ///
    /// - the rules of each graph whose node list, inputs, outputs or initializers
    ///   changed, or that defines a renamed value, and of every graph below it (names
    ///   there may now shadow);
    /// - the rules of each touched node, of every node that reads an output of a touched
    ///   or removed node or a renamed value (its definition, order or message may have
    ///   changed), and of everything in a touched node's subgraphs (their locations
    ///   name it).
    ///
    /// The model's own rules depend only on what a primitive edit never changes
    /// (metadata, opsets, ir_version, functions). It checks the whole model again
    /// when `touched` is whole, when it touches a function body (calls of it are
    /// checked against its signature), or when the model has training graphs.
    pub fn update(&mut self, model: &Model, touched: &Touched) -> Rechecked {
        if touched.is_empty() {
            return Rechecked {
                graphs: 0,
                nodes: 0,
                full: false,
            };
        }
        if touched.whole || !model.training_info.is_empty() || touched.in_function(model) {
            *self = Checked::new(model);
            return Rechecked {
                graphs: model.graphs.len(),
                nodes: model.nodes.len(),
                full: true,
            };
        }
        let mut rule_graphs: Vec<GraphId> = Vec::new();
        let mut nodes: Vec<NodeId> = Vec::new();
        // Values whose readers are checked again, by the graph that defines them.
        let mut changed: FxMap<GraphId, Vec<ValueId>> = FxMap::default();
        let valid_graph = |g: GraphId| model.graphs.get(g).is_some();
        for &g in touched.graphs.iter().filter(|&&g| valid_graph(g)) {
            rule_graphs.extend(model.scope_tree(g));
        }
        for &v in &touched.values {
            if let Some(value) = model.values.get(v) {
                rule_graphs.extend(model.scope_tree(value.graph));
                changed.entry(value.graph).or_default().push(v);
            }
        }
        // What was found in a removed node's subgraphs goes, and is not looked for again
        // (the checker walks only the nodes in a graph's list).
        let mut gone: FxMap<Scope, ()> = FxMap::default();
        for &n in touched.nodes.iter().chain(&touched.removed) {
            let Some(node) = model.nodes.get(n) else {
                continue;
            };
            changed
                .entry(node.graph)
                .or_default()
                .extend(node.outputs.iter().flatten());
            let removed = touched.removed.contains(&n);
            for sub in node.subgraphs() {
                if !valid_graph(sub) {
                    continue;
                }
                if removed {
                    gone.extend(model.scope_tree(sub).map(|g| (Scope::Graph(g), ())));
                    gone.extend(model.nodes_under(sub).map(|m| (Scope::Node(m), ())));
                } else {
                    rule_graphs.extend(model.scope_tree(sub));
                    nodes.extend(model.nodes_under(sub));
                }
            }
        }
        nodes.extend(touched.nodes.iter().copied());
        for (g, values) in changed {
            if !valid_graph(g) {
                continue;
            }
            let values: FxMap<ValueId, ()> = values.into_iter().map(|v| (v, ())).collect();
            nodes.extend(model.nodes_under(g).filter(|&n| {
                model
                    .node(n)
                    .inputs
                    .iter()
                    .flatten()
                    .any(|v| values.contains_key(v))
            }));
        }
        let rule_set: FxMap<GraphId, ()> = rule_graphs.iter().map(|&g| (g, ())).collect();
        let node_set: FxMap<NodeId, ()> = nodes
            .iter()
            .chain(&touched.removed)
            .map(|&n| (n, ()))
            .collect();
        let mut kept = Vec::with_capacity(self.diagnostics.len());
        let mut kept_scopes = Vec::with_capacity(self.scopes.len());
        for (d, scope) in std::mem::take(&mut self.diagnostics)
            .into_iter()
            .zip(std::mem::take(&mut self.scopes))
        {
            let stale = gone.contains_key(&scope)
                || match scope {
                    Scope::Model => false,
                    Scope::Graph(g) => rule_set.contains_key(&g),
                    Scope::Node(n) => node_set.contains_key(&n),
                };
            if !stale {
                kept.push(d);
                kept_scopes.push(scope);
            }
        }
        let mut checker = Checker::new(model);
        checker.out = kept;
        checker.scopes = kept_scopes;
        let mut by_graph: FxMap<GraphId, Positions> = FxMap::default();
        for &g in rule_set
            .keys()
            .filter(|&&g| !gone.contains_key(&Scope::Graph(g)))
        {
            let position = by_graph.entry(g).or_insert_with(|| positions(model, g));
            checker.graph_rules(g, position);
        }
        let mut rechecked = 0;
        for &n in node_set
            .keys()
            .filter(|&&n| !gone.contains_key(&Scope::Node(n)))
        {
            let Some(node) = model.nodes.get(n) else {
                continue;
            };
            let g = node.graph;
            if !valid_graph(g) {
                continue;
            }
            let position = by_graph.entry(g).or_insert_with(|| positions(model, g));
            // A removed node is checked no more; its diagnostics went with it.
            if let Some(&i) = position.get(&n) {
                checker.node_rules(g, i, n, position);
                rechecked += 1;
            }
        }
        self.diagnostics = checker.out;
        self.scopes = checker.scopes;
        Rechecked {
            graphs: rule_set.len(),
            nodes: rechecked,
            full: false,
        }
    }
}

/// Each node of a graph by its position in the graph's list.
pub(crate) type Positions = HashMap<NodeId, usize, FxBuild>;

fn positions(model: &Model, g: GraphId) -> Positions {
    model
        .graph(g)
        .nodes
        .iter()
        .enumerate()
        .map(|(i, &n)| (n, i))
        .collect()
}

pub(crate) struct Checker<'m> {
    pub model: &'m Model,
    pub out: Vec<Diagnostic>,
    /// The scope of each diagnostic in `out`.
    scopes: Vec<Scope>,
    /// The scope the rules running now report in.
    scope: Scope,
    /// Functions by key: what a node calls.
    pub functions: FunctionIndex,
    /// Opset version by (enclosing function, domain as spelled).
    opset_cache: HashMap<(Option<FunctionId>, &'m str), Option<i64>, FxBuild>,
    /// Schema in force by (domain, op, version).
    schema_cache: SchemaCache<'m>,
}

type SchemaCache<'m> = HashMap<(&'m str, &'m str, i64), Option<&'static schema::OpSchema>, FxBuild>;

impl<'m> Checker<'m> {
    fn new(model: &'m Model) -> Self {
        Self {
            model,
            out: Vec::new(),
            scopes: Vec::new(),
            scope: Scope::Model,
            functions: FunctionIndex::new(model),
            opset_cache: HashMap::default(),
            schema_cache: HashMap::default(),
        }
    }

    pub fn report(
        &mut self,
        severity: Severity,
        code: &'static str,
        message: String,
        at: Location,
    ) {
        self.out
            .push(Diagnostic::at(self.model, severity, code, message, at));
        self.scopes.push(self.scope);
    }

    pub fn error(&mut self, code: &'static str, message: String, at: Location) {
        self.report(Severity::Error, code, message, at);
    }

    pub fn ir_version(&self) -> i64 {
        self.model.ir_version.unwrap_or(0)
    }

    fn model_level(&mut self) {
        let model = self.model;
        if model.ir_version.is_none() {
            self.error(
                "check.ir-version-missing",
                "the model has no ir_version".into(),
                Location::default(),
            );
        }
        if model.graph.is_none() {
            self.error(
                "check.graph-missing",
                "the model has no graph".into(),
                Location::default(),
            );
        }
        let mut keys = HashSet::new();
        for p in &model.metadata_props {
            if !keys.insert(p.key()) {
                self.error(
                    "check.metadata-duplicate-key",
                    format!("metadata_props has the key {:?} more than once", p.key()),
                    Location::default(),
                );
            }
        }
        let mut seen = HashSet::new();
        for o in &model.opset_import {
            if !seen.insert(o.normalized_domain().to_string()) {
                self.error(
                    "check.opset-duplicate",
                    format!(
                        "domain {:?} is imported more than once",
                        o.domain.as_deref().unwrap_or("")
                    ),
                    Location::default().with("opset_import"),
                );
            }
        }
        for &f in &model.functions {
            let function = model.function(f);
            let key = function.key();
            let at = Location::graph(function.body);
            if !key.overload.is_empty() && self.ir_version() < 10 {
                self.error(
                    "check.ir-version-field",
                    format!("function {key} has an overload id, which needs ir_version >= 10 (the model has {})", self.ir_version()),
                    at.clone(),
                );
            }
            if !function.attribute_proto.is_empty() && self.ir_version() < 9 {
                self.error(
                    "check.ir-version-field",
                    format!("function {key} declares attribute defaults, which need ir_version >= 9 (the model has {})", self.ir_version()),
                    at.clone(),
                );
            }
            if self.ir_version() < 8 {
                self.error(
                    "check.ir-version-field",
                    format!(
                        "model-local functions need ir_version >= 8 (the model has {})",
                        self.ir_version()
                    ),
                    at.clone(),
                );
            }
            if key.domain.is_empty() && !crate::schema::history("", &key.name).is_empty() {
                self.report(
                    Severity::Warning,
                    "check.function-shadows-op",
                    format!("local function {key} has the name of a standard operator; onnxruntime runs the standard operator instead"),
                    at,
                );
            }
        }
    }

    /// The model imports the domain of every local function that a function body calls
    /// (runtimes resolve calls inside bodies against the model's imports too; calls in
    /// the main graph are checked against the model's imports where they stand).
    fn called_domains_imported(&mut self) {
        let model = self.model;
        if self.functions.is_empty() {
            return;
        }
        let mut reported = HashSet::new();
        for (id, node) in model.nodes.iter() {
            if model.enclosing_function(node.graph).is_none() {
                continue;
            }
            let Some(callee) = self.functions.callee(model, id) else {
                continue;
            };
            let domain = model.function(callee).key().domain;
            if model.opset_version(&domain).is_none() && reported.insert(domain.clone()) {
                self.error(
                    "check.opset-missing",
                    format!("local function domain {domain:?} is called but not in the model's opset_import"),
                    Location::node(node.graph, id),
                );
            }
        }
    }

    /// The rules of one function, whoever calls it ([`crate::calls::function_problems`]).
    fn function(&mut self, id: FunctionId) {
        for p in crate::calls::function_problems(self.model, &self.functions, id) {
            self.report(p.severity, p.code, p.message, p.at);
        }
    }

    /// Functions that call each other in a cycle, directly, mutually, or from inside a
    /// subgraph of a body.
    fn recursion(&mut self) {
        let model = self.model;
        for cycle in crate::calls::call_cycles(model, &self.functions) {
            let Some(&first) = cycle.first() else {
                continue;
            };
            let body = model.function(first).body;
            self.error(
                "check.function-recursion",
                format!(
                    "functions call each other in a cycle: {}",
                    crate::calls::cycle_text(model, &cycle)
                ),
                Location::graph(body),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every code the checker can emit is documented in `CODES`.
    #[test]
    fn every_emitted_code_is_listed() {
        let sources = [
            include_str!("mod.rs"),
            include_str!("graph.rs"),
            include_str!("calls.rs"),
        ];
        let mut seen = 0;
        for source in sources {
            // Every string literal that is a code: a quote, `check.`, lowercase and dashes.
            for (at, _) in source.match_indices("\"check.") {
                let code: String = source[at + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '.' || *c == '-')
                    .collect();
                if code.len() <= "check.".len() {
                    continue;
                }
                seen += 1;
                assert!(
                    super::CODES.iter().any(|(c, _)| *c == code),
                    "{code} is emitted but not listed in CODES"
                );
            }
        }
        assert!(
            seen > super::CODES.len(),
            "found only {seen} codes in the sources"
        );
    }
}
