//! Specializing calls of model-local functions into overloads (semantics.md §2, §3).
//!
//! [`specialize`] binds every attribute reference of the callee's body for one call
//! (the call's value, else the declared default, else the reference is dropped so the
//! op's default applies), recursing into GRAPH attributes and through nested calls
//! (which are specialized in turn), then folds what became constant (`fold.rs`):
//! constants, small int/float/bool arithmetic and shape ops, and an `If` whose
//! condition is now known, which becomes its taken branch. The result is a new
//! function with the callee's domain and name and an overload id derived from the
//! bound values (`alpha_0p2`, `to_7`, or `h_<fnv64>` when long); equal bindings reuse
//! one overload (an existing overload with that id that this run did not make is reused
//! only if it prints the same; otherwise the id takes a `_2`, `_3`… suffix). The call then names the overload and carries no attributes; the model's
//! `ir_version` is raised to 10; generic functions the pass touched are removed once
//! nothing calls them any more. A body whose default-domain version differs from the
//! model's is converted to the model's (runtimes evaluate it there), which is also a
//! reason for `specialize_all` to specialize a call of a function without attributes.
//! A call that already names an overload is re-bound from its generic when given new
//! attributes (the values bound before are not recovered: the overload keeps none) and
//! left alone otherwise.
//!
//! Every entry point works on a copy of the model and writes it back only on success:
//! an error leaves the model as it was. A function body is its own scope, so the cloned
//! body keeps its value names; only values moved out of a folded `If` branch get fresh
//! ones.

mod fold;
mod ids;

pub(crate) use ids::overload_id;

use std::collections::{BTreeMap, HashSet};

use crate::calls::{CallBinding, call_label};
use crate::ir::{
    AttrKind, AttrValue, Attribute, Function, FunctionId, FunctionIndex, FunctionKey, GraphOwner,
    Model, NodeId, normalize_domain,
};

/// What a specialization did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecializeReport {
    /// Every call pointed at an overload, nested calls included, in order.
    pub calls: Vec<SpecializedCall>,
    /// Functions removed because nothing calls them any more.
    pub removed: Vec<FunctionKey>,
    /// Nodes replaced by a `Constant`.
    pub folded_nodes: usize,
    /// `If` nodes replaced by their taken branch.
    pub folded_ifs: usize,
    /// Nodes removed as dead.
    pub removed_nodes: usize,
}

/// Choices a specialization takes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecializeOptions {
    /// Functions kept even when no call is left (the library's "keep shown",
    /// semantics.md case 57); others a run leaves uncalled are removed.
    pub keep: Vec<FunctionKey>,
    /// For [`specialize_all_with`]: only the calls of this function's name (domain and
    /// name; any overload). `None`: every call.
    pub only: Option<FunctionKey>,
}

/// One call and the overload it now names.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecializedCall {
    pub node: NodeId,
    pub overload: FunctionKey,
    /// The overload existed already (an equal binding made it).
    pub reused: bool,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SpecializeError {
    #[error("there is no node {0:?}")]
    NoSuchNode(String),
    #[error("{node} is not a call of a model-local function")]
    NotACall { node: String },
    /// A call the rules of `crate::calls` reject (the checker's code, the call node).
    #[error(transparent)]
    Call(#[from] crate::calls::CallError),
    #[error(
        "{node}: attribute {attribute:?} refers to {reference:?} of the enclosing function; specialize the call of that function instead"
    )]
    ReferenceAtCall {
        node: String,
        attribute: String,
        reference: String,
    },
    #[error(
        "{node} calls {overload}, which declares no attributes, and there is no {generic} left to specialize again from"
    )]
    NoGeneric {
        node: String,
        overload: String,
        generic: String,
    },
    #[error("cannot convert the body of {function} to the model's opset: {reason}")]
    Convert { function: String, reason: String },
    #[error("calls of functions nest more than {0} deep")]
    TooDeep(usize),
    #[error("functions call each other in a cycle: {0} [check.function-recursion]")]
    Recursion(String),
    #[error("{node}: there is no local function {function}")]
    NoOverload { node: String, function: String },
    #[error("{node}: {function} takes {formals} inputs, the call passes {given}")]
    Arity {
        node: String,
        function: String,
        formals: usize,
        given: usize,
    },
}

/// Points a call at another existing overload of its function (`""`: the generic),
/// the library panel's overload list. The call's attributes the chosen function does
/// not declare are dropped (an overload has them bound already). The overload the
/// call leaves stays: other calls, or the library, may still want it.
pub fn use_overload(
    model: &mut Model,
    call: NodeId,
    overload: &str,
) -> Result<(), SpecializeError> {
    let Some(node) = model.live_node(call) else {
        return Err(SpecializeError::NoSuchNode(format!("{call:?}")));
    };
    let label = call_label(model, call);
    let key = FunctionKey {
        domain: crate::ir::normalize_domain(node.domain()).to_string(),
        name: node.op_type().to_string(),
        overload: overload.to_string(),
    };
    let Some(f) = model.find_function(&key) else {
        return Err(SpecializeError::NoOverload {
            node: label,
            function: key.to_string(),
        });
    };
    let function = model.function(f);
    let formals = model.graph(function.body).inputs.len();
    if node.inputs.len() > formals {
        return Err(SpecializeError::Arity {
            node: label,
            function: key.to_string(),
            formals,
            given: node.inputs.len(),
        });
    }
    let declared: Vec<String> = function
        .attribute
        .iter()
        .cloned()
        .chain(
            function
                .attribute_proto
                .iter()
                .map(|a| a.name().to_string()),
        )
        .collect();
    let node = &mut model.nodes[call];
    node.attributes
        .retain(|a| declared.iter().any(|d| d == a.name()));
    node.overload = (!overload.is_empty()).then(|| overload.to_string());
    // onnx wants a call to list every output of the function it calls.
    let outputs = model.graph(model.function(f).body).outputs.len();
    let node = &mut model.nodes[call];
    if node.outputs.len() < outputs {
        node.outputs.resize(outputs, None);
    }
    Ok(())
}

/// Specializes one call, after setting `attrs` on it (replacing same-named ones). A
/// call that already names an overload of a generic function is re-bound from the
/// generic with `attrs` (the old overload is removed once unused).
pub fn specialize(
    model: &mut Model,
    call: NodeId,
    attrs: &[Attribute],
) -> Result<SpecializeReport, SpecializeError> {
    specialize_with(model, call, attrs, &SpecializeOptions::default())
}

/// [`specialize`] with options (`only` does not apply).
pub fn specialize_with(
    model: &mut Model,
    call: NodeId,
    attrs: &[Attribute],
    options: &SpecializeOptions,
) -> Result<SpecializeReport, SpecializeError> {
    let mut work = model.clone();
    let mut s = Specializer::new(&work)?;
    s.keep = options.keep.iter().cloned().collect();
    if work.live_node(call).is_none() {
        return Err(SpecializeError::NoSuchNode(format!("{call:?}")));
    }
    let mut callee = match crate::calls::resolve(&work, &s.functions, call) {
        crate::calls::Resolved::Function(f) => f,
        crate::calls::Resolved::Missing => {
            return Err(crate::calls::CallError::missing(&work, call).into());
        }
        crate::calls::Resolved::NotACall => {
            return Err(SpecializeError::NotACall {
                node: call_label(&work, call),
            });
        }
    };
    // Re-specialization: go back to the generic of the same name.
    let current = work.function(callee).key();
    if !current.overload.is_empty() && !attrs.is_empty() {
        let generic = FunctionKey {
            overload: String::new(),
            ..current.clone()
        };
        if let Some(g) = s.functions.get(&generic) {
            // The values the overload was made with carry over; `attrs` override them.
            let before = binding_of(&work, callee);
            s.touched.insert(current);
            callee = g;
            let node = &mut work.nodes[call];
            node.overload = None;
            for a in before {
                if !node.attributes.iter().any(|b| b.name() == a.name()) {
                    node.attributes.push(a);
                }
            }
        } else if work.function(callee).attribute.is_empty()
            && work.function(callee).attribute_proto.is_empty()
        {
            return Err(SpecializeError::NoGeneric {
                node: call_label(&work, call),
                overload: current.to_string(),
                generic: generic.to_string(),
            });
        }
    }
    // A call of an overload that declares nothing is as specialized as it gets.
    let f = work.function(callee);
    if f.overload.as_deref().is_some_and(|o| !o.is_empty())
        && f.attribute.is_empty()
        && f.attribute_proto.is_empty()
        && attrs.is_empty()
    {
        return Ok(SpecializeReport::default());
    }
    for a in attrs {
        let node = &mut work.nodes[call];
        node.attributes.retain(|b| b.name() != a.name());
        node.attributes.push(a.clone());
    }
    s.call(&mut work, call, callee)?;
    s.finish(&mut work);
    *model = work;
    Ok(s.report)
}

/// Specializes every call whose callee declares attributes and whose attributes are
/// all values: those in the main graph (and its subgraphs and training graphs) first,
/// then those in the bodies of the functions that remain. All or nothing.
pub fn specialize_all(model: &mut Model) -> Result<SpecializeReport, SpecializeError> {
    specialize_all_with(model, &SpecializeOptions::default())
}

/// [`specialize_all`] with options: only the calls of one function, functions kept.
pub fn specialize_all_with(
    model: &mut Model,
    options: &SpecializeOptions,
) -> Result<SpecializeReport, SpecializeError> {
    let mut work = model.clone();
    let mut s = Specializer::new(&work)?;
    s.keep = options.keep.iter().cloned().collect();
    let calls: Vec<NodeId> = work.live_nodes().collect();
    for n in calls {
        // A function body may have been dropped by an earlier step.
        if !s.live(&work, n) {
            continue;
        }
        let callee = match crate::calls::resolve(&work, &s.functions, n) {
            crate::calls::Resolved::Function(f) => f,
            crate::calls::Resolved::Missing
                if options.only.as_ref().is_none_or(|only| {
                    let key = crate::ir::call_key(work.node(n));
                    key.domain == normalize_domain(&only.domain) && key.name == only.name
                }) =>
            {
                return Err(crate::calls::CallError::missing(&work, n).into());
            }
            _ => continue,
        };
        let f = work.function(callee);
        if let Some(only) = &options.only
            && (normalize_domain(f.domain.as_deref().unwrap_or(""))
                != normalize_domain(&only.domain)
                || f.name.as_deref().unwrap_or("") != only.name)
        {
            continue;
        }
        let node = work.node(n);
        let has_attrs = !f.attribute.is_empty()
            || !f.attribute_proto.is_empty()
            || needs_conversion(&work, callee).is_some();
        let all_values = node
            .attributes
            .iter()
            .all(|a| matches!(a.kind, AttrKind::Value(_)));
        if has_attrs && all_values {
            s.call(&mut work, n, callee)?;
        } else {
            // Left as it is, but not when it breaks a call rule: the pass refuses.
            CallBinding::bind_with(&work, n, callee, &mut s.callees).check_with(
                &work,
                &s.functions,
                &mut s.callees,
            )?;
        }
    }
    s.finish(&mut work);
    *model = work;
    Ok(s.report)
}

/// The metadata key under which an overload Graft made records the attribute values
/// it was specialized with (ONNX text, as [`crate::text::parse_attributes`] reads).
pub const BINDING_KEY: &str = "graft.binding";

/// Records `env` on the overload `f`, when every value prints as text (no tensors or
/// graphs), so a later re-specialization starts from the same values.
pub(crate) fn record_binding(model: &mut Model, f: FunctionId, env: &Env) {
    let printable = env.values().all(|v| {
        matches!(
            v,
            AttrValue::Float(_)
                | AttrValue::Int(_)
                | AttrValue::String(_)
                | AttrValue::Floats(_)
                | AttrValue::Ints(_)
                | AttrValue::Strings(_)
        )
    });
    if !printable {
        return;
    }
    let attributes: Vec<Attribute> = env
        .iter()
        .map(|(name, value)| Attribute {
            name: Some(name.clone()),
            doc_string: None,
            kind: AttrKind::Value(value.clone()),
        })
        .collect();
    let text = crate::text::print_attributes(model, &attributes);
    let props = &mut model.function_arena[f].metadata_props;
    props.retain(|p| p.key.as_deref() != Some(BINDING_KEY));
    props.push(crate::ir::StringPair {
        key: Some(BINDING_KEY.to_string()),
        value: Some(text),
    });
}

/// The attribute values overload `f` was specialized with, when Graft recorded them
/// (empty otherwise).
pub fn binding_of(model: &Model, f: FunctionId) -> Vec<Attribute> {
    model
        .function(f)
        .metadata_props
        .iter()
        .find(|p| p.key.as_deref() == Some(BINDING_KEY))
        .and_then(|p| p.value.as_deref())
        .and_then(|text| crate::text::parse_attributes(text).ok())
        .unwrap_or_default()
}

/// The generic function `node` calls (the call may name an overload of it): its
/// declared attributes are the ones a call sets, whichever overload it uses now.
pub fn generic_of(model: &Model, node: NodeId) -> Option<FunctionId> {
    let n = model.live_node(node)?;
    model.find_function(&crate::ir::FunctionKey {
        domain: crate::ir::normalize_domain(n.domain()).to_string(),
        name: n.op_type().to_string(),
        overload: String::new(),
    })
}

/// The type a function's declared attribute takes: its default's, else the type the
/// body's references to it use; `None` when it has neither (nothing to check against).
pub fn attribute_type(model: &Model, f: FunctionId, name: &str) -> Option<crate::ir::AttrType> {
    let function = model.function(f);
    if let Some(v) = function
        .attribute_proto
        .iter()
        .find(|a| a.name() == name)
        .and_then(Attribute::value)
    {
        return Some(v.attr_type());
    }
    model.nodes_under(function.body).find_map(|n| {
        model.node(n).attributes.iter().find_map(|a| match &a.kind {
            AttrKind::Ref { name: r, ty } if r == name => Some(*ty),
            _ => None,
        })
    })
}

/// Checks a value typed into a call's attribute editor: `value` in ONNX text (`0.2`,
/// `[0, 1]`, `"tanh"`) for attribute `name` of type `ty` (when known). Returns the
/// attribute, typed as declared (`2` for a float attribute is `2.0`), or the error.
pub fn parse_call_attribute(
    name: &str,
    value: &str,
    ty: Option<crate::ir::AttrType>,
) -> Result<Attribute, String> {
    let text = match ty {
        Some(ty) => format!("{name}: {} = {value}", ty.name()),
        None => format!("{name} = {value}"),
    };
    // In the user's terms: what the attribute expects and what was typed, not the
    // parser's view of the wrapper text.
    let value = value.trim();
    let refused = || match ty {
        Some(ty) => format!("{name} expects {}; `{value}` is not one", ty_phrase(ty)),
        None => format!("`{value}` is not an attribute value (a number, \"text\", [list], …)"),
    };
    let mut parsed = crate::text::parse_attributes(&text).map_err(|_| refused())?;
    let attribute = match (parsed.pop(), parsed.is_empty()) {
        (Some(a), true) if a.name() == name => a,
        _ => return Err(format!("give one value for {name}")),
    };
    match (ty, attribute.value().map(AttrValue::attr_type)) {
        (Some(want), Some(got)) if want != got => Err(refused()),
        _ => Ok(attribute),
    }
}

/// An attribute type as a person says it: "a float", "an int", "a list of ints".
fn ty_phrase(ty: crate::ir::AttrType) -> String {
    use crate::ir::AttrType::*;
    let name = ty.name();
    match ty {
        Floats | Ints | Strings | Tensors | Graphs | SparseTensors | TypeProtos => {
            format!("a list of {name}")
        }
        Int => "an int".into(),
        _ => format!("a {name}"),
    }
}

/// The node a user names: a node name, else the name of one of its outputs. Searches
/// the main graph, its subgraphs, training graphs and function bodies.
pub fn find_node(model: &Model, name: &str) -> Option<NodeId> {
    let all: Vec<NodeId> = model.live_nodes().collect();
    all.iter()
        .copied()
        .find(|&n| model.node(n).name() == name)
        .or_else(|| {
            all.iter().copied().find(|&n| {
                model
                    .node(n)
                    .outputs
                    .iter()
                    .flatten()
                    .any(|&v| model.value(v).name == name)
            })
        })
}

struct Specializer {
    /// Functions by key (kept current as overloads are added).
    functions: FunctionIndex,
    /// What binding a call needs of each callee, found once.
    callees: crate::calls::Callees,
    /// Functions that may have lost their last call.
    touched: HashSet<FunctionKey>,
    /// Functions never removed for lack of calls.
    keep: HashSet<FunctionKey>,
    /// Overloads this run made or found equal to what it would make.
    made: HashSet<FunctionId>,
    /// How deep nested specialization is (bounded: the recursion uses the stack).
    depth: usize,
    report: SpecializeReport,
}

/// Nested calls deeper than this are refused (onnxruntime refuses 100).
const MAX_CALL_DEPTH: usize = 200;

/// Bound attribute values by declared name; a name missing here is dropped.
pub(crate) type Env = BTreeMap<String, AttrValue>;

impl Specializer {
    fn new(model: &Model) -> Result<Self, SpecializeError> {
        let s = Self {
            functions: FunctionIndex::new(model),
            callees: crate::calls::Callees::default(),
            touched: HashSet::new(),
            keep: HashSet::new(),
            made: HashSet::new(),
            depth: 0,
            report: SpecializeReport::default(),
        };
        s.recursion(model)?;
        Ok(s)
    }

    fn callee(&self, model: &Model, n: NodeId) -> Option<FunctionId> {
        self.functions.callee(model, n)
    }

    /// A node still in a graph of the model (not in a removed function's body).
    fn live(&self, model: &Model, n: NodeId) -> bool {
        model.live_node(n).is_some()
    }

    /// Calls that form a cycle make specialization endless: refuse them first.
    fn recursion(&self, model: &Model) -> Result<(), SpecializeError> {
        match crate::calls::call_cycles(model, &self.functions).first() {
            Some(cycle) => Err(SpecializeError::Recursion(crate::calls::cycle_text(
                model, cycle,
            ))),
            None => Ok(()),
        }
    }

    /// Specializes call `n` of `callee` (whose attributes are already final).
    fn call(
        &mut self,
        model: &mut Model,
        n: NodeId,
        callee: FunctionId,
    ) -> Result<(), SpecializeError> {
        let env = bind(model, &self.functions, &mut self.callees, n, callee)?;
        let generic = model.function(callee).key();
        let base = overload_id(model, &generic.overload, &env);
        // An overload with this id that this run did not make (an earlier run, or the
        // user) is reused only when it prints exactly like the one this binding makes;
        // otherwise the id takes a suffix.
        let mut id = base.clone();
        let mut suffix = 2;
        let mut candidate: Option<FunctionId> = None;
        let mut reused = false;
        loop {
            let key = FunctionKey {
                overload: id.clone(),
                ..generic.clone()
            };
            let Some(existing) = self.functions.get(&key) else {
                break;
            };
            if self.made.contains(&existing) {
                reused = true;
                break;
            }
            let c = match candidate {
                Some(c) => c,
                None => self.build(model, callee, &env, &id)?,
            };
            model.function_arena[c].overload = Some(id.clone());
            if prints_alike(model, c, existing) {
                self.made.insert(existing);
                reused = true;
                break;
            }
            candidate = Some(c);
            id = format!("{base}_{suffix}");
            suffix += 1;
        }
        let key = FunctionKey {
            overload: id.clone(),
            ..generic.clone()
        };
        if !reused {
            let made = match candidate {
                Some(c) => c,
                None => self.build(model, callee, &env, &id)?,
            };
            model.function_arena[made].overload = Some(id.clone());
            record_binding(model, made, &env);
            self.made.insert(made);
            self.functions.insert(key.clone(), made);
            // After the generic and the overloads of the same name made before.
            let same = |f: &FunctionId| {
                let k = model.function(*f).key();
                k.domain == generic.domain && k.name == generic.name
            };
            let at = model
                .functions
                .iter()
                .rposition(same)
                .map_or(model.functions.len(), |i| i + 1);
            model.functions.insert(at, made);
        }
        let outputs = model
            .graph(
                model
                    .function(self.functions.get(&key).unwrap_or(callee))
                    .body,
            )
            .outputs
            .len();
        let node = &mut model.nodes[n];
        node.overload = Some(id);
        node.attributes.clear();
        // onnx wants a call to list every output of the function it calls.
        if node.outputs.len() < outputs {
            node.outputs.resize(outputs, None);
        }
        model.ir_version = Some(model.ir_version.unwrap_or(0).max(10));
        self.touched.insert(generic);
        self.report.calls.push(SpecializedCall {
            node: n,
            overload: key,
            reused,
        });
        Ok(())
    }

    /// The specialized copy of `callee` under `env`, not yet listed in the model.
    /// Nested calls recurse through here, so the depth is bounded.
    fn build(
        &mut self,
        model: &mut Model,
        callee: FunctionId,
        env: &Env,
        id: &str,
    ) -> Result<FunctionId, SpecializeError> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(SpecializeError::TooDeep(MAX_CALL_DEPTH));
        }
        self.depth += 1;
        let built = self.build_body(model, callee, env, id);
        self.depth -= 1;
        built
    }

    fn build_body(
        &mut self,
        model: &mut Model,
        callee: FunctionId,
        env: &Env,
        id: &str,
    ) -> Result<FunctionId, SpecializeError> {
        let generic = model.function(callee).clone();
        let made = model.function_arena.push(Function {
            overload: Some(id.to_string()),
            attribute: Vec::new(),
            attribute_proto: Vec::new(),
            ..generic.clone()
        });
        // A function body is a scope of its own: the copy keeps its value names.
        let bind = |name: &str| env.get(name).map(|v| AttrKind::Value(v.clone()));
        let body = crate::ir::Copier::new(None, &bind).graph(
            model,
            generic.body,
            GraphOwner::Function(made),
        );
        model.function_arena[made].body = body;
        // Nested calls now carry bound values: specialize them in turn.
        for n in model.nodes_under(body).collect::<Vec<_>>() {
            let Some(inner) = self.callee(model, n) else {
                continue;
            };
            let f = model.function(inner);
            if f.attribute.is_empty()
                && f.attribute_proto.is_empty()
                && needs_conversion(model, inner).is_none()
            {
                continue;
            }
            self.call(model, n, inner)?;
        }
        // Runtimes evaluate bodies at the model's default-domain version: convert.
        if let Some((from, to)) = needs_conversion(model, callee) {
            crate::opset::convert_graphs(model, &[body], from, to).map_err(|e| {
                SpecializeError::Convert {
                    function: generic.key().to_string(),
                    reason: e.to_string(),
                }
            })?;
            for o in &mut model.function_arena[made].opset_import {
                if o.normalized_domain().is_empty() {
                    o.version = Some(to);
                }
            }
        }
        let stats = fold::fold(model, body);
        self.report.folded_nodes += stats.folded_nodes;
        self.report.folded_ifs += stats.folded_ifs;
        self.report.removed_nodes += stats.removed_nodes;
        Ok(made)
    }

    /// Removes touched functions that nothing calls any more (repeatedly: removing one
    /// may leave its callees uncalled).
    fn finish(&mut self, model: &mut Model) {
        loop {
            let called = called_keys(model);
            let before = model.functions.len();
            let mut removed = Vec::new();
            model.functions.retain(|&f| {
                let key = model.function_arena[f].key();
                let drop = self.touched.contains(&key)
                    && !called.contains(&key)
                    && !self.keep.contains(&key);
                if drop {
                    removed.push(key);
                }
                !drop
            });
            for key in removed {
                self.functions.remove(&key);
                self.report.removed.push(key);
            }
            if model.functions.len() == before {
                break;
            }
        }
    }
}

/// Whether functions `a` and `b` print the same, but for the binding Graft records
/// (an overload made by an earlier run has it, a fresh copy or a hand-written one not).
fn prints_alike(model: &mut Model, a: FunctionId, b: FunctionId) -> bool {
    let strip = |model: &mut Model, f: FunctionId| {
        let props = &mut model.function_arena[f].metadata_props;
        let all = props.clone();
        props.retain(|p| p.key.as_deref() != Some(BINDING_KEY));
        all
    };
    let (kept_a, kept_b) = (strip(model, a), strip(model, b));
    let same = crate::text::print_function(model, a) == crate::text::print_function(model, b);
    model.function_arena[a].metadata_props = kept_a;
    model.function_arena[b].metadata_props = kept_b;
    same
}

/// The (function, model) default-domain versions when they differ.
fn needs_conversion(model: &Model, f: FunctionId) -> Option<(i64, i64)> {
    let from = model
        .function(f)
        .opset_import
        .iter()
        .find(|o| o.normalized_domain().is_empty())
        .and_then(|o| o.version)?;
    let to = model.opset_version("")?;
    (from != to).then_some((from, to))
}

/// Keys of every function some live node calls.
fn called_keys(model: &Model) -> HashSet<FunctionKey> {
    model
        .live_nodes()
        .map(|n| crate::ir::call_key(model.node(n)))
        .collect()
}

/// The values call `n` binds (semantics.md §2), after checking it against the rules
/// of `crate::calls`; a reference at the call (the caller is itself a function body)
/// cannot be specialized here.
fn bind(
    model: &Model,
    index: &FunctionIndex,
    callees: &mut crate::calls::Callees,
    n: NodeId,
    callee: FunctionId,
) -> Result<Env, SpecializeError> {
    let binding = CallBinding::bind_with(model, n, callee, callees);
    binding.check_with(model, index, callees)?;
    let mut env = Env::new();
    for b in binding.attrs {
        match b.kind {
            AttrKind::Value(v) => {
                env.insert(b.name, v);
            }
            AttrKind::Ref { name, .. } => {
                return Err(SpecializeError::ReferenceAtCall {
                    node: call_label(model, n),
                    attribute: b.name,
                    reference: name,
                });
            }
            // Reported by `check` above.
            AttrKind::Raw(_) => {}
        }
    }
    Ok(env)
}
