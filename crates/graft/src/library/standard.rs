//! Standard operators that have a function body: expanding a call of one into the ops
//! its body is made of (semantics.md §3 applied to a schema's function).
//!
//! - The body is onnx's: the static `FunctionProto` the registry stores for the highest
//!   opset not above the caller's (onnx's `get_function_with_opset_version`), or, for
//!   operators whose body depends on the call (input types, which inputs are given,
//!   attribute values), what [`super::builders`] writes for this call site.
//! - Expansion reuses the local-function inliner: each body becomes a temporary local
//!   function under a domain no one uses, the chosen nodes call it, and
//!   [`super::inline_calls`] expands them (binding attributes, renaming into the
//!   caller's scope, converting the body to the model's opset) and removes the
//!   temporary functions. Attributes the call omits take the schema's defaults.
//! - A node whose attribute refers to an enclosing function's attribute is refused
//!   (specialize the function first): its value is not known at the call. The pass
//!   over a whole model (`expand_standard_ops`) leaves such nodes, and those whose
//!   built body lacks a type it needs, as they are and lists them in the report;
//!   expanding one node (`expand_standard`) is an error for them.
//! - A body is expanded one level: the ops it is made of stay as they are.
//! - Errors leave the model as it was.

use bytes::Bytes;

use super::builders::{CallSite, context_dependent_body};
use super::{LibraryError, Which, inline_calls};
use crate::hash::FxMap;
use crate::ir::{
    AttrKind, Attribute, FunctionId, GraphOwner, Model, NodeId, OpsetId, normalize_domain,
};
use crate::schema::{self, OpSchema};

/// What an expansion did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StandardReport {
    /// How many nodes were replaced by their bodies.
    pub expanded: usize,
    /// The operators expanded, sorted, each once.
    pub ops: Vec<String>,
    /// Nodes the pass left as they are, and why (an attribute bound to the enclosing
    /// function's, a built body missing a type it needs).
    pub skipped: Vec<String>,
}

/// Where a standard node's body comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BodyKind {
    /// The schema's static function body.
    Static,
    /// Built for the call site (a context-dependent function).
    Built,
}

/// Whether `node` is a default-domain operator Graft can expand, and how. `None` for
/// other nodes, function calls and operators without a body at the caller's opset.
pub fn body_kind(model: &Model, node: NodeId) -> Option<BodyKind> {
    let n = model.nodes.get(node)?;
    if !normalize_domain(n.domain()).is_empty() || n.op_type.is_none() {
        return None;
    }
    let version = scope_version(model, node)?;
    let schema = schema::lookup("", n.op_type(), version)?;
    if schema.function_body_for_opset(version).is_some() {
        Some(BodyKind::Static)
    } else if schema.has_context_dependent_function
        && context_dependent_body(&site(model, node, schema, version, None)).is_some()
    {
        Some(BodyKind::Built)
    } else {
        None
    }
}

/// Replaces one standard-op node by its function body.
pub fn expand_standard(model: &mut Model, node: NodeId) -> Result<StandardReport, LibraryError> {
    let n = model.live_node(node).ok_or(LibraryError::NoNode(node))?;
    if body_kind(model, node).is_none() {
        return Err(LibraryError::NoStandardBody {
            op: n.op_type().to_string(),
            version: scope_version(model, node).unwrap_or(0),
        });
    }
    let inferred = crate::infer::infer(model);
    expand(model, &[node], &inferred)
}

/// Replaces every node of the chosen standard operators (`None`: every operator that
/// has a body) by its function body, in every graph, subgraph and function body.
pub fn expand_standard_ops(
    model: &mut Model,
    ops: Option<&[String]>,
) -> Result<StandardReport, LibraryError> {
    let inferred = crate::infer::infer(model);
    let mut nodes = Vec::new();
    let mut skipped = Vec::new();
    for root in model.all_roots() {
        for g in model.scope_tree(root) {
            for &n in &model.graph(g).nodes {
                let op = model.node(n).op_type();
                if !ops.is_none_or(|ops| ops.iter().any(|o| o == op))
                    || body_kind(model, n).is_none()
                {
                    continue;
                }
                // In a function body, an optional input fed by a formal parameter is
                // present at some calls and not at others: its expansion would differ.
                if let Some(formal) = optional_formal(model, n) {
                    skipped.push(format!(
                        "{op}: its optional input {formal:?} is a parameter of the function it is in, which a call may omit"
                    ));
                    continue;
                }
                // A node whose body cannot be had is left, not the pass refused.
                match source(model, n, Some(&inferred)) {
                    Ok(_) => nodes.push(n),
                    Err(e) => {
                        let name = model.node(n).name();
                        let at = if name.is_empty() {
                            String::new()
                        } else {
                            format!(" ({name})")
                        };
                        skipped.push(format!("{op}{at}: {e}"));
                    }
                }
            }
        }
    }
    let mut report = expand(model, &nodes, &inferred)?;
    report.skipped = skipped;
    Ok(report)
}

/// The name of a formal input of the function whose body holds node `n` that `n`
/// reads in an optional slot of its schema, if any.
fn optional_formal(model: &Model, n: NodeId) -> Option<String> {
    let node = model.node(n);
    let f = model.enclosing_function(node.graph)?;
    let function = model.function(f);
    let formals = &model.graph(function.body).inputs;
    let version = crate::calls::version_in(function, node.domain())?;
    let schema = crate::schema::lookup(node.domain(), node.op_type(), version)?;
    node.inputs.iter().enumerate().find_map(|(slot, input)| {
        let v = (*input)?;
        let optional = schema
            .inputs
            .get(slot)
            .is_some_and(|p| p.option == crate::schema::ParamOption::Optional);
        (optional && formals.iter().any(|i| i.value == Some(v)))
            .then(|| model.value(v).name.clone())
    })
}

/// The body of a standard-op node as a model holding one function (the registry's or
/// the built one, not yet converted to the caller's opset).
pub fn standard_body(model: &Model, node: NodeId) -> Result<Model, LibraryError> {
    let inferred = crate::infer::infer(model);
    let (source, schema) = source(model, node, Some(&inferred))?;
    body_of(source, schema)
}

/// The body `source` holds, as a model with one function, with the schema's defaults.
fn body_of(source: Source, schema: &OpSchema) -> Result<Model, LibraryError> {
    let op = schema.name.clone();
    let mut body = match source {
        Source::Static { bytes, opset } => {
            let mut body = decode_function(bytes).map_err(|reason| LibraryError::StandardBody {
                op: op.clone(),
                reason,
            })?;
            if let Some(&f) = body.functions.first()
                && body.function(f).opset_import.is_empty()
            {
                body.function_arena[f].opset_import.push(OpsetId {
                    domain: Some(String::new()),
                    version: Some(opset),
                });
            }
            body
        }
        Source::Built(text) => {
            crate::text::parse_function(&text)
                .map_err(|e| LibraryError::StandardBody {
                    op: op.clone(),
                    reason: format!("the built body does not parse: {e}"),
                })?
                .model
        }
    };
    let Some(&f) = body.functions.first() else {
        return Err(LibraryError::StandardBody {
            op,
            reason: "the body holds no function".to_string(),
        });
    };
    with_schema_defaults(&mut body, f, schema);
    Ok(body)
}

/// Where a node's body comes from.
enum Source {
    Static { bytes: &'static [u8], opset: i64 },
    Built(String),
}

/// Where `node`'s body comes from; a built body sees the element types the model
/// states, else those `inferred` finds.
fn source(
    model: &Model,
    node: NodeId,
    inferred: Option<&crate::infer::Inferred>,
) -> Result<(Source, &'static OpSchema), LibraryError> {
    let n = model.live_node(node).ok_or(LibraryError::NoNode(node))?;
    let op = n.op_type().to_string();
    let version = scope_version(model, node).unwrap_or(0);
    let no_body = || LibraryError::NoStandardBody {
        op: op.clone(),
        version,
    };
    if !normalize_domain(n.domain()).is_empty() || n.op_type.is_none() {
        return Err(no_body());
    }
    let schema = schema::lookup("", &op, version).ok_or_else(no_body)?;
    if let Some(a) = n
        .attributes
        .iter()
        .find(|a| matches!(a.kind, AttrKind::Ref { .. }))
    {
        return Err(LibraryError::StandardBody {
            op,
            reason: format!(
                "attribute {:?} refers to the enclosing function's attribute; specialize the function first",
                a.name()
            ),
        });
    }
    if let Some(b) = schema.function_body_for_opset(version) {
        return Ok((
            Source::Static {
                bytes: &b.bytes,
                opset: b.opset_version,
            },
            schema,
        ));
    }
    let text = context_dependent_body(&site(model, node, schema, version, inferred))
        .ok_or_else(no_body)?
        .map_err(|reason| LibraryError::StandardBody {
            op: op.clone(),
            reason,
        })?;
    Ok((Source::Built(text), schema))
}

/// Expands `nodes` (standard ops with bodies) all at once, on a copy.
fn expand(
    model: &mut Model,
    nodes: &[NodeId],
    inferred: &crate::infer::Inferred,
) -> Result<StandardReport, LibraryError> {
    if nodes.is_empty() {
        return Ok(StandardReport::default());
    }
    for &n in nodes {
        let scope = model.scope_root(model.node(n).graph);
        if let GraphOwner::Function(f) = model.graph(scope).owner {
            let own = model.function(f).opset_import.iter().find_map(|o| {
                (o.normalized_domain().is_empty())
                    .then_some(o.version)
                    .flatten()
            });
            if own.is_some() && own != model.opset_version("") {
                return Err(LibraryError::StandardBody {
                    op: model.node(n).op_type().to_string(),
                    reason: format!(
                        "it is in the body of {}, which imports another version of the default domain than the model; convert the model first",
                        model.function(f).key()
                    ),
                });
            }
        }
    }
    let domain = unused_domain(model);
    let mut work = model.clone();
    // One temporary function per distinct body: static bodies by operator, built ones
    // by their text.
    let mut made: FxMap<(String, i64, Option<String>), String> = FxMap::default();
    let mut ops: Vec<String> = Vec::new();
    for &n in nodes {
        let op = work.node(n).op_type().to_string();
        let (source, schema) = source(&work, n, Some(inferred))?;
        let key = match &source {
            Source::Static { opset, .. } => (op.clone(), *opset, None),
            Source::Built(text) => (op.clone(), 0, Some(text.clone())),
        };
        let next = made.len();
        let overload = made
            .entry(key)
            .or_insert_with(|| format!("b{next}"))
            .clone();
        if made.len() > next {
            let body = body_of(source, schema)?;
            let (functions, _) = work.absorb(body);
            if let Some(&f) = functions.first() {
                let function = &mut work.function_arena[f];
                function.domain = Some(domain.clone());
                function.name = Some(op.clone());
                function.overload = Some(overload.clone());
                work.functions.push(f);
            }
        }
        let node = &mut work.nodes[n];
        node.domain = Some(domain.clone());
        node.overload = Some(overload);
        ops.push(op);
    }
    let first_new = work.nodes.len();
    inline_calls(&mut work, &Which::Domain(domain))?;
    prune_new(&mut work, first_new);
    *model = work;
    ops.sort();
    ops.dedup();
    Ok(StandardReport {
        expanded: nodes.len(),
        ops,
        skipped: Vec::new(),
    })
}

/// Removes the nodes an expansion added (ids from `first_new` on) whose outputs
/// nothing reads: the parts of a body computing outputs the call does not name
/// (LayerNormalization's `Mean` when only `Y` is used). Nodes that were there
/// before are never touched.
fn prune_new(model: &mut Model, first_new: usize) {
    let graphs: Vec<_> = model.scope_trees(model.all_roots()).collect();
    loop {
        let mut used: std::collections::HashSet<crate::ir::ValueId, crate::hash::FxBuild> =
            Default::default();
        for &g in &graphs {
            let graph = model.graph(g);
            used.extend(graph.outputs.iter().filter_map(|o| o.value));
            for &n in &graph.nodes {
                used.extend(model.node(n).inputs.iter().flatten());
            }
        }
        let mut changed = false;
        for &g in &graphs {
            let dead = |n: &NodeId| {
                n.index() >= first_new
                    && !model
                        .node(*n)
                        .outputs
                        .iter()
                        .flatten()
                        .any(|v| used.contains(v))
            };
            if model.graph(g).nodes.iter().any(dead) {
                let kept: Vec<NodeId> = model
                    .graph(g)
                    .nodes
                    .iter()
                    .copied()
                    .filter(|n| !dead(n))
                    .collect();
                model.graphs[g].nodes = kept;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// The version of the default domain the node's scope imports: the enclosing
/// function's, else the model's.
fn scope_version(model: &Model, node: NodeId) -> Option<i64> {
    let scope = model.scope_root(model.nodes.get(node)?.graph);
    let own = match model.graph(scope).owner {
        GraphOwner::Function(f) => model.function(f).opset_import.iter().find_map(|o| {
            (o.normalized_domain().is_empty())
                .then_some(o.version)
                .flatten()
        }),
        _ => None,
    };
    own.or_else(|| model.opset_version(""))
}

/// What a builder sees of the call.
fn site<'a>(
    model: &'a Model,
    node: NodeId,
    schema: &'a OpSchema,
    opset: i64,
    inferred: Option<&crate::infer::Inferred>,
) -> CallSite<'a> {
    let n = model.node(node);
    let elem_type = |v: crate::ir::ValueId| {
        crate::opset::edit::elem_type(model, v).or_else(|| match inferred?.get(v)?.value? {
            crate::ir::TypeValue::Tensor(t) => t.elem_type,
            _ => None,
        })
    };
    CallSite {
        op: &schema.name,
        opset,
        attributes: &n.attributes,
        inputs: n.inputs.iter().map(|v| v.map(elem_type)).collect(),
    }
}

/// Declared attributes the schema gives a default become attributes with that default,
/// so that a call omitting them gets the schema's value (as onnx's function expansion
/// does), not nothing.
fn with_schema_defaults(body: &mut Model, f: FunctionId, schema: &OpSchema) {
    let function = &mut body.function_arena[f];
    let mut plain = Vec::new();
    for name in std::mem::take(&mut function.attribute) {
        match schema.attribute(&name).and_then(|a| a.default.clone()) {
            Some(value) => function.attribute_proto.push(Attribute {
                name: Some(name),
                doc_string: None,
                kind: AttrKind::Value(value),
            }),
            None => plain.push(name),
        }
    }
    function.attribute = plain;
}

/// A domain no function, call or opset import of the model uses.
fn unused_domain(model: &Model) -> String {
    let used = |d: &str| {
        model
            .opset_import
            .iter()
            .any(|o| o.normalized_domain() == d)
            || model
                .functions
                .iter()
                .any(|&f| normalize_domain(model.function(f).domain.as_deref().unwrap_or("")) == d)
            || model.nodes.iter().any(|(_, n)| n.domain() == d)
    };
    let mut domain = "graft.standard".to_string();
    let mut k = 2;
    while used(&domain) {
        domain = format!("graft.standard{k}");
        k += 1;
    }
    domain
}

/// A model holding the one function `bytes` (a serialized `FunctionProto`) encodes.
fn decode_function(bytes: &[u8]) -> Result<Model, String> {
    // ModelProto { ir_version (1) = 10, functions (25) = bytes }.
    let mut wrapped = vec![0x08, 10, 0xca, 0x01];
    let mut len = bytes.len();
    loop {
        let low = (len & 0x7f) as u8;
        len >>= 7;
        if len == 0 {
            wrapped.push(low);
            break;
        }
        wrapped.push(low | 0x80);
    }
    wrapped.extend_from_slice(bytes);
    crate::codec::import(Bytes::from(wrapped))
        .map(|imported| imported.model)
        .map_err(|e| format!("the registry's body does not decode: {e}"))
}
