//! ONNX's call rules, written once (semantics.md §2, §5): what a node calls, how a
//! call of a model-local function binds its attributes, and every reason a call or
//! its callee is invalid, each with the checker's code.
//!
//! The checker turns these problems into diagnostics. The passes that look inside a
//! call — specialize, inlining calls, the view's expanded calls, inference — bind the
//! call here and refuse it (or mark it) with the same code, naming the call node, the
//! function and the attribute or input at fault.

use crate::diag::{Location, Severity};
use crate::hash::FxMap;
use crate::ir::{
    AttrKind, AttrType, AttrValue, Function, FunctionId, FunctionIndex, Model, NodeId, ValueDef,
    call_key,
};
use crate::schema;

/// Domains whose ops come from the schema registry (a local function there shadows).
pub const STANDARD_DOMAINS: [&str; 3] = ["", "ai.onnx.ml", "ai.onnx.preview.training"];

/// One broken rule, as the checker reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub at: Location,
}

/// A call refused: the checker's code, the call as a person finds it, and what is
/// wrong (the function and the attribute or input at fault).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{call}: {message} [{code}]")]
pub struct CallError {
    pub code: &'static str,
    pub call: String,
    pub message: String,
}

impl CallError {
    /// The refusal of a call whose function does not exist.
    pub fn missing(model: &Model, call: NodeId) -> Self {
        Self::new(model, call, &missing_function(model, call))
    }

    fn new(model: &Model, call: NodeId, problem: &Problem) -> Self {
        let mut message = problem.message.clone();
        // A problem of the callee points into the function: say where.
        if problem.at.node != Some(call) {
            message.push_str(&format!(" (at {})", problem.at.describe(model)));
        }
        Self {
            code: problem.code,
            call: call_label(model, call),
            message,
        }
    }
}

/// A call as messages name it: `node "name" (Op)`, or for a node without a name its
/// graph's path and its position there: `node #3 (Op) of graph "main"`.
pub fn call_label(model: &Model, n: NodeId) -> String {
    let Some(node) = model.nodes.get(n) else {
        return format!("node {n:?}");
    };
    if !node.name().is_empty() {
        return format!("node {:?} ({})", node.name(), node.op_type());
    }
    let index = model
        .graphs
        .get(node.graph)
        .and_then(|g| g.nodes.iter().position(|&m| m == n))
        .map_or_else(|| "?".to_string(), |i| i.to_string());
    format!(
        "node #{index} ({}) of {}",
        node.op_type(),
        Location::graph(node.graph).describe(model)
    )
}

/// What a node calls.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// An operator: no local function is meant.
    NotACall,
    /// Its domain holds local functions, none with its name and overload.
    Missing,
    Function(FunctionId),
}

/// What node `n` calls: a local function of its key, else nothing when its domain
/// holds no local function (or is a standard domain, whose ops the registry has).
pub fn resolve(model: &Model, index: &FunctionIndex, n: NodeId) -> Resolved {
    if index.is_empty() {
        return Resolved::NotACall;
    }
    if let Some(f) = index.callee(model, n) {
        return Resolved::Function(f);
    }
    match model.nodes.get(n) {
        Some(node) if index.is_call_domain(node) && !STANDARD_DOMAINS.contains(&node.domain()) => {
            Resolved::Missing
        }
        _ => Resolved::NotACall,
    }
}

/// The problem of a call whose function does not exist.
pub fn missing_function(model: &Model, n: NodeId) -> Problem {
    let node = model.node(n);
    Problem {
        code: "check.call-missing-function",
        severity: Severity::Error,
        message: format!("no local function {} exists", call_key(node)),
        at: Location::node(node.graph, n),
    }
}

/// The version `function` imports `domain` at.
pub fn version_in(function: &Function, domain: &str) -> Option<i64> {
    function
        .opset_import
        .iter()
        .find(|o| o.normalized_domain() == domain)
        .and_then(|o| o.version)
}

/// The schema of body node `b` of `function`, at the function's own import.
fn body_schema(model: &Model, function: &Function, b: NodeId) -> Option<&'static schema::OpSchema> {
    let node = model.node(b);
    version_in(function, node.domain())
        .and_then(|v| schema::lookup(node.domain(), node.op_type(), v))
}

/// An attribute reference in a function body: the declared name it refers to, its
/// type, the body node and the node's attribute that hold it.
#[derive(Clone, Debug)]
struct Reference {
    name: String,
    ty: AttrType,
    node: NodeId,
    attribute: String,
}

/// What binding a call needs to know of its callee, found once per function: a pass
/// over many calls keeps one `Callees` (the model must not change meanwhile, but for
/// functions added after their facts were taken).
#[derive(Default)]
pub struct Callees {
    references: FxMap<FunctionId, Vec<Reference>>,
    errors: FxMap<FunctionId, Option<Problem>>,
}

impl Callees {
    /// Every attribute reference in `f`'s body, at any depth.
    fn references(&mut self, model: &Model, f: FunctionId) -> &[Reference] {
        self.references.entry(f).or_insert_with(|| {
            let mut out = Vec::new();
            for b in model.nodes_under(model.function(f).body) {
                for a in &model.node(b).attributes {
                    if let AttrKind::Ref { name, ty } = &a.kind {
                        out.push(Reference {
                            name: name.clone(),
                            ty: *ty,
                            node: b,
                            attribute: a.name().to_string(),
                        });
                    }
                }
            }
            out
        })
    }

    /// The first error of [`function_problems`] for `f`.
    fn error(&mut self, model: &Model, index: &FunctionIndex, f: FunctionId) -> Option<&Problem> {
        self.errors
            .entry(f)
            .or_insert_with(|| {
                function_problems(model, index, f)
                    .into_iter()
                    .find(|p| p.severity == Severity::Error)
            })
            .as_ref()
    }
}

/// What is wrong with function `f` itself, whoever calls it: a key another listed
/// function has, an attribute declared both with and without a default, a default
/// that is no value, a reference in its body without a type, an output nothing
/// produces (and, as a warning, an output that is one of its inputs).
pub fn function_problems(model: &Model, index: &FunctionIndex, f: FunctionId) -> Vec<Problem> {
    let mut out = Vec::new();
    let function = model.function(f);
    let key = function.key();
    let at = Location::graph(function.body);
    let mut report = |severity, code, message: String, at: Location| {
        out.push(Problem {
            code,
            severity,
            message,
            at,
        });
    };
    if index.duplicates().contains(&f) {
        report(
            Severity::Error,
            "check.function-duplicate",
            format!("function {key} is defined more than once"),
            at.clone(),
        );
    }
    for a in &function.attribute_proto {
        let detail = || at.clone().with(format!("attribute {:?}", a.name()));
        if function.attribute.iter().any(|d| d == a.name()) {
            report(
                Severity::Error,
                "check.function-attribute-both",
                format!(
                    "attribute {:?} of function {key} is declared both without and with a default",
                    a.name()
                ),
                detail(),
            );
        }
        if !matches!(a.kind, AttrKind::Value(_)) {
            report(
                Severity::Error,
                "check.attribute-malformed",
                format!(
                    "the default of attribute {:?} of function {key} is not a value",
                    a.name()
                ),
                detail(),
            );
        }
    }
    for b in model.nodes_under(function.body) {
        let node = model.node(b);
        for a in &node.attributes {
            if let AttrKind::Raw(raw) = &a.kind
                && raw.ref_attr_name.is_some()
                && raw.r#type.is_none()
            {
                report(
                    Severity::Error,
                    "check.attribute-malformed",
                    format!(
                        "attribute {:?} of {} in the body of {key} refers to {:?} without a type",
                        a.name(),
                        node.op_type(),
                        raw.ref_attr_name.as_deref().unwrap_or("")
                    ),
                    Location::node(node.graph, b).with(format!("attribute {:?}", a.name())),
                );
            }
        }
    }
    let body = model.graph(function.body);
    for (i, output) in body.outputs.iter().enumerate() {
        let Some(v) = output.value else { continue };
        let name = &model.value(v).name;
        match model.value(v).def {
            ValueDef::Undefined => report(
                Severity::Error,
                "check.function-output-unproduced",
                format!("output {i} {name:?} of function {key} is produced by no node of its body"),
                at.clone().with(format!("output {i}")),
            ),
            ValueDef::Input => report(
                Severity::Warning,
                "check.function-output-is-input",
                format!(
                    "output {i} {name:?} of function {key} is one of its inputs; inlining it needs an Identity"
                ),
                at.clone().with(format!("output {i}")),
            ),
            _ => {}
        }
    }
    out
}

/// Where an attribute a call binds comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The call gives it (a value, or a reference when the caller is a function body).
    Call,
    /// The function's declared default.
    Default,
}

/// One declared attribute a call binds.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub name: String,
    pub kind: AttrKind,
    pub source: Source,
}

/// A call of a local function with its attributes bound (semantics.md §2): each
/// declared attribute takes the call's value, else the declared default; one left
/// unbound drops every reference to it, so the ops' own defaults apply.
#[derive(Clone, Debug)]
pub struct CallBinding {
    pub call: NodeId,
    pub callee: FunctionId,
    /// The bound attributes, in the order the function declares them.
    pub attrs: Vec<Bound>,
    /// What is wrong with the call itself: arity, attributes (undeclared, mistyped,
    /// malformed, required but unbound), omitted inputs the body needs, graphs passed
    /// in that read the caller's names.
    pub problems: Vec<Problem>,
}

impl CallBinding {
    /// Binds call `n` of `callee`, collecting every problem of the call.
    pub fn bind(model: &Model, n: NodeId, callee: FunctionId) -> CallBinding {
        Self::bind_with(model, n, callee, &mut Callees::default())
    }

    /// [`CallBinding::bind`] with what is known of the callees already.
    pub fn bind_with(
        model: &Model,
        n: NodeId,
        callee: FunctionId,
        callees: &mut Callees,
    ) -> CallBinding {
        let node = model.node(n);
        let function = model.function(callee);
        let body = model.graph(function.body);
        let key = function.key();
        let g = node.graph;
        let at = Location::node(g, n);
        let mut problems = Vec::new();
        let mut error = |code, message: String, at: Location| {
            problems.push(Problem {
                code,
                severity: Severity::Error,
                message,
                at,
            });
        };
        let arity = [
            (
                "takes",
                "inputs",
                "passes",
                body.inputs.len(),
                node.inputs.len(),
            ),
            (
                "has",
                "outputs",
                "names",
                body.outputs.len(),
                node.outputs.len(),
            ),
        ];
        for (has, what, gives, formals, given) in arity {
            if given > formals {
                error(
                    "check.call-arity",
                    format!("{key} {has} {formals} {what}, the call {gives} {given}"),
                    at.clone(),
                );
            }
        }
        if let Some(p) = omitted_input(model, n, callee) {
            error(p.code, p.message, p.at);
        }
        for a in &node.attributes {
            for graph in a.graphs() {
                if let Some(v) = model.free_values(graph).next() {
                    error(
                        "check.call-graph-captures",
                        format!(
                            "graph attribute {:?} reads {:?} from the caller's scope, which the function body cannot see",
                            a.name(),
                            model.value(v).name
                        ),
                        at.clone().with(format!("attribute {:?}", a.name())),
                    );
                }
            }
        }

        let references = callees.references(model, callee);
        let declared = |name: &str| {
            function.attribute.iter().any(|d| d == name)
                || function.attribute_proto.iter().any(|d| d.name() == name)
        };
        for a in &node.attributes {
            let at = at.clone().with(format!("attribute {:?}", a.name()));
            if !declared(a.name()) {
                error(
                    "check.call-undeclared-attribute",
                    format!("{key} declares no attribute {:?}", a.name()),
                    at,
                );
                continue;
            }
            let given = match &a.kind {
                AttrKind::Value(v) => v.attr_type(),
                AttrKind::Ref { ty, .. } => *ty,
                AttrKind::Raw(_) => {
                    error(
                        "check.attribute-malformed",
                        format!("attribute {:?} of the call of {key} is malformed", a.name()),
                        at,
                    );
                    continue;
                }
            };
            if let Some(Reference { ty, .. }) = references
                .iter()
                .find(|r| r.name == a.name() && r.ty != given)
            {
                error(
                    "check.call-attribute-type",
                    format!(
                        "attribute {:?} is {} at the call, but {key} uses it as {}",
                        a.name(),
                        given.name(),
                        ty.name()
                    ),
                    at,
                );
            }
        }

        // Declared order: those without a default, then those with one.
        let mut attrs = Vec::new();
        let names = function
            .attribute
            .iter()
            .map(String::as_str)
            .chain(function.attribute_proto.iter().map(|a| a.name()));
        for name in names {
            if attrs.iter().any(|b: &Bound| b.name == name) {
                continue;
            }
            let given = node.attributes.iter().find(|a| a.name() == name);
            let bound = match given {
                Some(a) => Some((a.kind.clone(), Source::Call)),
                None => function
                    .attribute_proto
                    .iter()
                    .find(|d| d.name() == name)
                    .filter(|d| matches!(d.kind, AttrKind::Value(_)))
                    .map(|d| (d.kind.clone(), Source::Default)),
            };
            if let Some((kind, source)) = bound {
                attrs.push(Bound {
                    name: name.to_string(),
                    kind,
                    source,
                });
            }
        }

        // A reference left unbound is dropped, so the op's own default applies; an op
        // that requires the attribute then has none.
        for Reference {
            name,
            node: b,
            attribute,
            ..
        } in references
        {
            if attrs.iter().any(|x| x.name == *name) {
                continue;
            }
            let required = body_schema(model, function, *b).is_some_and(|s| {
                s.attributes
                    .iter()
                    .any(|d| d.name == *attribute && d.required)
            });
            if required {
                error(
                    "check.call-missing-required-attribute",
                    format!(
                        "the call does not set {name:?}, which {key} has no default for, and {} in its body requires {attribute:?}",
                        model.node(*b).op_type()
                    ),
                    at.clone().with(format!("attribute {name:?}")),
                );
            }
        }
        CallBinding {
            call: n,
            callee,
            attrs,
            problems,
        }
    }

    /// What the call binds `name` to, if anything.
    pub fn get(&self, name: &str) -> Option<&AttrKind> {
        self.attrs.iter().find(|b| b.name == name).map(|b| &b.kind)
    }

    /// The value bound to `name`, when it is one.
    pub fn value(&self, name: &str) -> Option<&AttrValue> {
        match self.get(name)? {
            AttrKind::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The first error of the callee ([`function_problems`]) or of the call, as a
    /// refusal; `Ok` when a pass may expand or specialize the call.
    pub fn check(&self, model: &Model, index: &FunctionIndex) -> Result<(), CallError> {
        self.check_with(model, index, &mut Callees::default())
    }

    /// [`CallBinding::check`] with what is known of the callees already.
    pub fn check_with(
        &self,
        model: &Model,
        index: &FunctionIndex,
        callees: &mut Callees,
    ) -> Result<(), CallError> {
        let ambiguous = (!index.duplicates().is_empty())
            .then(|| model.function(self.callee).key())
            .and_then(|key| {
                let other = index
                    .duplicates()
                    .iter()
                    .copied()
                    .find(|&d| model.function(d).key() == key)?;
                Some((key, other))
            });
        if let Some((key, other)) = ambiguous {
            let body = model.function(other).body;
            let problem = Problem {
                code: "check.function-duplicate",
                severity: Severity::Error,
                message: format!(
                    "function {key} is defined more than once, so the call is ambiguous"
                ),
                at: Location::graph(body),
            };
            return Err(CallError::new(model, self.call, &problem));
        }
        let first = callees
            .error(model, index, self.callee)
            .or_else(|| self.problems.iter().find(|p| p.severity == Severity::Error));
        match first {
            Some(p) => Err(CallError::new(model, self.call, p)),
            None => Ok(()),
        }
    }
}

/// The first of: an input the call omits (`""` or a missing trailing one) whose
/// formal the body reads where an op requires a value (semantics.md case 50), or
/// whose formal the function passes through as an output the call names.
fn omitted_input(model: &Model, n: NodeId, callee: FunctionId) -> Option<Problem> {
    let node = model.node(n);
    let function = model.function(callee);
    let body = model.graph(function.body);
    let problem = |k: usize, formal, op: &str| Problem {
        code: "check.call-required-input-missing",
        severity: Severity::Error,
        message: format!(
            "the call omits input {k} ({:?}) of {}, which {op} in its body requires",
            model.value(formal).name,
            function.key(),
        ),
        at: Location::node(node.graph, n).with(format!("input {k}")),
    };
    let absent = body
        .inputs
        .iter()
        .enumerate()
        .filter(|(k, _)| node.inputs.get(*k).copied().flatten().is_none())
        .filter_map(|(k, vi)| vi.value.map(|v| (k, v)));
    for (k, formal) in absent {
        for b in model.nodes_under(function.body) {
            let body_node = model.node(b);
            if !body_node.inputs.contains(&Some(formal)) {
                continue;
            }
            let Some(schema) = body_schema(model, function, b) else {
                continue;
            };
            for (slot, input) in body_node.inputs.iter().enumerate() {
                let required = schema
                    .inputs
                    .get(slot)
                    .or(schema.inputs.last())
                    .is_some_and(|p| p.option == schema::ParamOption::Single);
                if *input == Some(formal) && required {
                    return Some(problem(k, formal, body_node.op_type()));
                }
            }
        }
        // A pass-through of an absent input would be an Identity of nothing.
        let passed_through = body.outputs.iter().enumerate().any(|(j, out)| {
            out.value == Some(formal) && node.outputs.get(j).copied().flatten().is_some()
        });
        if passed_through {
            return Some(problem(
                k,
                formal,
                "an Identity (the output it passes through)",
            ));
        }
    }
    None
}

/// The cycles of calls among the model's functions (directly, mutually, or from a
/// subgraph of a body), each as its functions in call order, found by one depth-first
/// walk: one cycle for each function a walk comes back to (semantics.md §5).
pub fn call_cycles(model: &Model, index: &FunctionIndex) -> Vec<Vec<FunctionId>> {
    let position: FxMap<FunctionId, usize> = model
        .functions
        .iter()
        .enumerate()
        .map(|(i, &f)| (f, i))
        .collect();
    let callees: Vec<Vec<usize>> = model
        .functions
        .iter()
        .map(|&f| {
            index
                .callees_under(model, model.function(f).body)
                .filter_map(|g| position.get(&g).copied())
                .collect()
        })
        .collect();
    // Iterative, with colours: 0 new, 1 on the walk's stack, 2 done.
    let mut colour = vec![0u8; callees.len()];
    let mut cycles = Vec::new();
    let mut reported = vec![false; callees.len()];
    for start in 0..callees.len() {
        if colour[start] != 0 {
            continue;
        }
        colour[start] = 1;
        let mut stack = vec![(start, 0usize)];
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            let Some(&g) = callees[f].get(*next) else {
                colour[f] = 2;
                stack.pop();
                continue;
            };
            *next += 1;
            match colour[g] {
                0 => {
                    colour[g] = 1;
                    stack.push((g, 0));
                }
                1 if !reported[g] => {
                    reported[g] = true;
                    cycles.push(
                        stack
                            .iter()
                            .skip_while(|(h, _)| *h != g)
                            .map(|(h, _)| model.functions[*h])
                            .collect(),
                    );
                }
                _ => {}
            }
        }
    }
    cycles
}

/// A cycle as messages write it: `a -> b -> a`.
pub fn cycle_text(model: &Model, cycle: &[FunctionId]) -> String {
    let mut keys: Vec<String> = cycle
        .iter()
        .map(|&f| model.function(f).key().to_string())
        .collect();
    if let Some(first) = keys.first().cloned() {
        keys.push(first);
    }
    keys.join(" -> ")
}
