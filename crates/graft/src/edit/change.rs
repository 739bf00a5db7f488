//! [`Change`]: an edit as the app makes it, by ids with typed values; and the two
//! conversions at the edge: [`Edit::resolve`] (a log record read against a model)
//! and [`Change::record`] (the record a change leaves in the log).

use std::sync::Arc;

use super::apply::{err, node_at, version_in_force};
use super::npy::{base64_decode, base64_encode};
use super::path::{graph_path, parse_key, resolve_path};
use super::{Edit, EditError, Field};
use crate::inline::{InlineOptions, Mode};
use crate::ir::{AttrType, Attribute, FunctionKey, GraphId, Model, NodeId, Type, ValueId};

/// One change to a model, addressed by ids, with typed values: what a UI makes (it
/// holds the ids of what it shows). Its serialized form, for the log and `graft
/// apply`, is an [`Edit`]. Each variant is the [`Edit`] of the same name; see there.
#[derive(Clone, Debug)]
pub enum Change {
    /// Sets (adds or replaces) attributes of a node.
    SetAttributes {
        node: NodeId,
        attributes: Vec<Attribute>,
    },
    RemoveAttribute {
        node: NodeId,
        name: String,
    },
    RenameValue {
        value: ValueId,
        to: String,
    },
    RenameNode {
        node: NodeId,
        to: String,
    },
    /// Deletes nodes, all of one graph.
    DeleteNodes {
        nodes: Vec<NodeId>,
        reconnect: bool,
    },
    AddNode {
        graph: GraphId,
        op_type: String,
        domain: String,
        inputs: Vec<Option<ValueId>>,
        /// New names; generated from the op when empty.
        outputs: Vec<String>,
        attributes: Vec<Attribute>,
        defaults: bool,
        name: String,
        at: Option<usize>,
    },
    SetInput {
        node: NodeId,
        index: usize,
        value: Option<ValueId>,
    },
    AddInput {
        graph: GraphId,
        name: String,
        ty: Option<Type>,
    },
    RemoveInput {
        graph: GraphId,
        value: ValueId,
    },
    AddOutput {
        graph: GraphId,
        value: ValueId,
    },
    RemoveOutput {
        graph: GraphId,
        value: ValueId,
    },
    /// The stated type of an input or output of `graph`.
    SetType {
        graph: GraphId,
        value: ValueId,
        ty: Type,
    },
    /// Replaces an initializer's value with an `.npy` file's array (the file's bytes).
    SetInitializer {
        graph: GraphId,
        value: ValueId,
        npy: Arc<[u8]>,
    },
    Specialize {
        node: NodeId,
        attributes: Vec<Attribute>,
        keep: Vec<FunctionKey>,
    },
    SpecializeAll {
        function: Option<FunctionKey>,
        keep: Vec<FunctionKey>,
    },
    UseOverload {
        node: NodeId,
        overload: String,
    },
    ExpandStandard {
        node: NodeId,
    },
    /// Renames a function; `to`'s overload is ignored.
    RenameFunction {
        function: FunctionKey,
        to: FunctionKey,
    },
    DeleteFunction {
        function: FunctionKey,
    },
    /// Inlines `guest` as `options` say (`options.target` `None`: the main graph).
    InlineModel {
        guest: std::rc::Rc<Model>,
        options: InlineOptions,
    },
    InlineCalls {
        function: Option<FunctionKey>,
    },
    /// Outlines nodes of one graph into a new function (its overload is ignored).
    Outline {
        nodes: Vec<NodeId>,
        function: FunctionKey,
    },
    ReplaceModel {
        text: String,
    },
    ReplaceFunction {
        function: FunctionKey,
        text: String,
    },
    SetDocString {
        of: Documented,
        doc: String,
    },
}

/// What carries a doc string that [`Change::SetDocString`] sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Documented {
    Model,
    Graph(GraphId),
    Function(crate::ir::FunctionId),
    Node(NodeId),
}

/// Reads attribute text for node `n` (`alpha = 0.5`, or `alpha: float = @a` in a
/// function body), each value with the type the node declares for it (its schema's,
/// or the local function's), so that a bad value reads "alpha expects a float; `abc`
/// is not one", at that attribute. Text that sets several attributes, or one the op
/// does not declare, is read as ONNX text.
pub fn read_attributes(model: &Model, n: NodeId, text: &str) -> Result<Vec<Attribute>, EditError> {
    live_node(model, n)?;
    let typed = text.split_once('=').and_then(|(name, value)| {
        let name = name.trim();
        let ty = crate::ir::is_identifier(name)
            .then(|| declared_type(model, n, name))
            .flatten()?;
        let parsed = crate::specialize::parse_call_attribute(name, value, Some(ty));
        Some((name, ty, parsed))
    });
    let as_text = crate::text::parse_attributes(text);
    match (typed, as_text) {
        (Some((_, _, Ok(a))), _) => Ok(vec![a]),
        // Several attributes (each checked by the checker after the edit), or the one
        // with the declared type in a form only the plain reading takes.
        (Some((name, ty, Err(_))), Ok(list))
            if list.len() > 1
                || list.iter().any(|a| {
                    a.name() != name || a.value().map(crate::ir::AttrValue::attr_type) == Some(ty)
                }) =>
        {
            Ok(list)
        }
        (Some((name, _, Err(message))), _) => Err(err(Field::Attribute(name.to_string()), message)),
        (None, Ok(list)) if list.is_empty() => {
            Err(err(attribute_named(text), "no attribute given"))
        }
        (None, Ok(list)) => Ok(list),
        (None, Err(e)) => Err(err(attribute_named(text), attribute_error(text, &e))),
    }
}

/// Reads a type as ONNX text (`float[N, 3]`).
pub fn read_type(text: &str) -> Result<Type, EditError> {
    crate::text::parse_type(text)
        .map_err(|e| err(Field::Type, format!("type {text:?}: {}", e.message)))
}

/// The value named `name` visible from `graph` (defined there or in an enclosing
/// graph, innermost first).
pub fn visible_value(model: &Model, graph: GraphId, name: &str) -> Result<ValueId, EditError> {
    find_value(model, graph, name, Field::Value)
}

/// Attribute text as ONNX text, with no declared types (a new node's, a
/// specialization's).
fn read_plain_attributes(text: &str) -> Result<Vec<Attribute>, EditError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    crate::text::parse_attributes(text)
        .map_err(|e| err(attribute_named(text), attribute_error(text, &e)))
}

/// The attribute a text like `alpha = 0.5` (or `alpha: float = @a`) sets, for an error.
fn attribute_named(text: &str) -> Field {
    let name = text.split(['=', ':', ',']).next().unwrap_or("").trim();
    Field::Attribute(name.to_string())
}

/// What is wrong with attribute text, in the user's terms: the parser reads it
/// inside a wrapper, so its messages about what follows the text are left out.
fn attribute_error(text: &str, e: &crate::text::ParseError) -> String {
    format!(
        "{text:?} is not an attribute as ONNX text (name = value): {}",
        e.message
    )
}

/// What a node id that names nothing live gets.
const NO_NODE: &str = "the node is no longer in the model (an undo, a redo or a \
                       replacement removed it)";

/// The node `n` names, through the checked door ([`Model::live_node`]): every id
/// that comes from outside is looked up here before anything reads it.
pub fn live_node(model: &Model, n: NodeId) -> Result<&crate::ir::Node, EditError> {
    model.live_node(n).ok_or_else(|| err(Field::Node, NO_NODE))
}

/// The value `v` names, through the checked door ([`Model::live_value`]).
pub fn live_value(model: &Model, v: ValueId) -> Result<&crate::ir::Value, EditError> {
    model.live_value(v).ok_or_else(|| {
        err(
            Field::Value,
            "the value is no longer in the model (an undo, a redo or a replacement removed it)",
        )
    })
}

/// The type node `n` declares for attribute `name`: its schema's, or for a call of a
/// local function, the function's.
fn declared_type(model: &Model, n: NodeId, name: &str) -> Option<AttrType> {
    let node = model.live_node(n)?;
    let index = crate::ir::FunctionIndex::new(model);
    if let Some(f) = index.callee(model, n) {
        // An overload has its attributes bound: they are declared by the generic.
        let f = crate::specialize::generic_of(model, n).unwrap_or(f);
        return crate::specialize::attribute_type(model, f, name);
    }
    let version = version_in_force(model, node.graph, node.domain())?;
    let schema = crate::schema::lookup(node.domain(), node.op_type(), version)?;
    schema
        .attributes
        .iter()
        .find(|a| a.name == name)
        .map(|a| a.ty)
}

/// The value named `name` visible from `g` (innermost first).
fn find_value(model: &Model, g: GraphId, name: &str, field: Field) -> Result<ValueId, EditError> {
    for scope in model.scope_chain(g) {
        if let Some(v) = model
            .defined_in(scope)
            .find(|&v| model.value(v).name == name)
        {
            return Ok(v);
        }
    }
    Err(err(
        field,
        format!("no value {name:?} is visible in this graph"),
    ))
}

/// The value named `name` among `g`'s inputs, outputs or initializers (`what` says
/// which, for the error).
fn find_in(
    model: &Model,
    list: &[crate::ir::ValueInfo],
    name: &str,
    what: &str,
) -> Result<ValueId, EditError> {
    list.iter()
        .filter_map(|i| i.value)
        .find(|&v| model.value(v).name == name)
        .ok_or_else(|| err(Field::Value, format!("the graph has no {what} {name:?}")))
}

fn keys(list: &[String]) -> Vec<FunctionKey> {
    list.iter().map(|k| parse_key(k)).collect()
}

fn optional_key(text: &str) -> Option<FunctionKey> {
    (!text.is_empty()).then(|| parse_key(text))
}

impl Edit {
    /// The change this record names in `model` as it is now: paths, indices and names
    /// resolved to ids, text read into typed values. Refused (naming the field) when
    /// something it names is not there or its text does not read.
    pub fn resolve(&self, model: &Model) -> Result<Change, EditError> {
        let node = |graph: &str, k: usize| node_at(model, resolve_path(model, graph)?, k);
        let nodes = |graph: &str, list: &[usize]| {
            let g = resolve_path(model, graph)?;
            list.iter()
                .map(|&k| node_at(model, g, k))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(match self {
            Edit::SetAttribute {
                graph,
                node: k,
                attribute,
            } => {
                let n = node(graph, *k)?;
                Change::SetAttributes {
                    node: n,
                    attributes: read_attributes(model, n, attribute)?,
                }
            }
            Edit::RemoveAttribute {
                graph,
                node: k,
                name,
            } => Change::RemoveAttribute {
                node: node(graph, *k)?,
                name: name.clone(),
            },
            Edit::RenameValue { graph, from, to } => Change::RenameValue {
                value: find_value(model, resolve_path(model, graph)?, from, Field::Value)?,
                to: to.clone(),
            },
            Edit::RenameNode { graph, node: k, to } => Change::RenameNode {
                node: node(graph, *k)?,
                to: to.clone(),
            },
            Edit::DeleteNodes {
                graph,
                nodes: list,
                reconnect,
            } => Change::DeleteNodes {
                nodes: nodes(graph, list)?,
                reconnect: *reconnect,
            },
            Edit::AddNode {
                graph,
                op_type,
                domain,
                inputs,
                outputs,
                attributes,
                defaults,
                name,
                at,
            } => {
                let g = resolve_path(model, graph)?;
                let inputs = inputs.iter().enumerate().map(|(k, i)| {
                    (!i.is_empty())
                        .then(|| find_value(model, g, i, Field::Input(k)))
                        .transpose()
                });
                Change::AddNode {
                    graph: g,
                    op_type: op_type.clone(),
                    domain: domain.clone(),
                    inputs: inputs.collect::<Result<_, _>>()?,
                    outputs: outputs.clone(),
                    attributes: read_plain_attributes(attributes)?,
                    defaults: *defaults,
                    name: name.clone(),
                    at: *at,
                }
            }
            Edit::SetInput {
                graph,
                node: k,
                index,
                value,
            } => {
                let g = resolve_path(model, graph)?;
                Change::SetInput {
                    node: node_at(model, g, *k)?,
                    index: *index,
                    value: (!value.is_empty())
                        .then(|| find_value(model, g, value, Field::Input(*index)))
                        .transpose()?,
                }
            }
            Edit::AddInput { graph, name, ty } => {
                let g = resolve_path(model, graph)?;
                let function = matches!(model.graph(g).owner, crate::ir::GraphOwner::Function(_));
                Change::AddInput {
                    graph: g,
                    name: name.clone(),
                    ty: (!ty.is_empty() && !function)
                        .then(|| read_type(ty))
                        .transpose()?,
                }
            }
            Edit::RemoveInput { graph, name } => {
                let g = resolve_path(model, graph)?;
                Change::RemoveInput {
                    graph: g,
                    value: find_in(model, &model.graph(g).inputs, name, "input")?,
                }
            }
            Edit::AddOutput { graph, value } => {
                let g = resolve_path(model, graph)?;
                Change::AddOutput {
                    graph: g,
                    value: find_value(model, g, value, Field::Value)?,
                }
            }
            Edit::RemoveOutput { graph, name } => {
                let g = resolve_path(model, graph)?;
                Change::RemoveOutput {
                    graph: g,
                    value: find_in(model, &model.graph(g).outputs, name, "output")?,
                }
            }
            Edit::SetType { graph, name, ty } => {
                let g = resolve_path(model, graph)?;
                let graph = model.graph(g);
                let value = find_in(model, &graph.inputs, name, "input")
                    .or_else(|_| find_in(model, &graph.outputs, name, "input or output"))?;
                Change::SetType {
                    graph: g,
                    value,
                    ty: read_type(ty)?,
                }
            }
            Edit::SetInitializer {
                graph,
                name,
                npy_base64,
            } => {
                let g = resolve_path(model, graph)?;
                let list: Vec<_> = model
                    .graph(g)
                    .initializers
                    .iter()
                    .map(|i| i.value)
                    .collect();
                let value = list
                    .into_iter()
                    .flatten()
                    .find(|&v| model.value(v).name == *name)
                    .ok_or_else(|| {
                        err(
                            Field::Value,
                            format!("the graph has no initializer {name:?}"),
                        )
                    })?;
                let bytes = base64_decode(npy_base64)
                    .map_err(|e| err(Field::Data, format!("npy_base64: {e}")))?;
                Change::SetInitializer {
                    graph: g,
                    value,
                    npy: bytes.into(),
                }
            }
            Edit::Specialize {
                graph,
                node: k,
                attributes,
                keep,
            } => {
                let n = node(graph, *k)?;
                Change::Specialize {
                    node: n,
                    // Each read with the type the generic declares, as the call editor
                    // shows it; empty: the call's own values.
                    attributes: match attributes.trim().is_empty() {
                        true => Vec::new(),
                        false => read_attributes(model, n, attributes)?,
                    },
                    keep: keys(keep),
                }
            }
            Edit::SpecializeAll { function, keep } => Change::SpecializeAll {
                function: optional_key(function),
                keep: keys(keep),
            },
            Edit::UseOverload {
                graph,
                node: k,
                overload,
            } => Change::UseOverload {
                node: node(graph, *k)?,
                overload: overload.clone(),
            },
            Edit::ExpandStandard { graph, node: k } => Change::ExpandStandard {
                node: node(graph, *k)?,
            },
            // The new key with the rules of any new function (`DOMAIN.NAME`, no
            // standard op, not taken), as the library's rename field checks it.
            Edit::RenameFunction { function, to } => Change::RenameFunction {
                function: parse_key(function),
                to: crate::library::new_function_key(model, to.split(':').next().unwrap_or(""))
                    .map_err(|e| err(Field::NewName, e.to_string()))?,
            },
            Edit::DeleteFunction { function } => Change::DeleteFunction {
                function: parse_key(function),
            },
            Edit::InlineModel {
                graph,
                guest_base64,
                bindings,
                expose,
                expose_all,
                prefix,
                function,
                domain_versions,
            } => {
                let g = resolve_path(model, graph)?;
                let bytes = base64_decode(guest_base64)
                    .map_err(|e| err(Field::Data, format!("guest_base64: {e}")))?;
                let guest = crate::import(bytes::Bytes::from(bytes))
                    .map_err(|e| err(Field::Data, format!("the guest model: {e}")))?
                    .model;
                let mode = match optional_key(function) {
                    None => Mode::Nodes,
                    Some(key) => Mode::Function {
                        domain: key.domain,
                        name: key.name,
                    },
                };
                Change::InlineModel {
                    guest: std::rc::Rc::new(guest),
                    options: InlineOptions {
                        bindings: bindings.clone(),
                        expose: expose
                            .iter()
                            .map(|(o, n)| (o.clone(), (!n.is_empty()).then(|| n.clone())))
                            .collect(),
                        expose_all: *expose_all,
                        prefix: (!prefix.is_empty()).then(|| prefix.clone()),
                        target: (Some(g) != model.graph).then_some(g),
                        mode,
                        domain_versions: domain_versions.clone(),
                    },
                }
            }
            Edit::InlineCalls { function } => Change::InlineCalls {
                function: optional_key(function),
            },
            Edit::Outline {
                graph,
                nodes: list,
                function,
            } => Change::Outline {
                nodes: nodes(graph, list)?,
                function: parse_key(function),
            },
            Edit::ReplaceModel { text } => Change::ReplaceModel { text: text.clone() },
            Edit::ReplaceFunction { function, text } => Change::ReplaceFunction {
                function: parse_key(function),
                text: text.clone(),
            },
            Edit::SetDocString {
                graph,
                node: k,
                doc,
            } => {
                let of = if graph.is_empty() {
                    Documented::Model
                } else {
                    let g = resolve_path(model, graph)?;
                    match (k, model.graph(g).owner) {
                        (Some(k), _) => Documented::Node(node_at(model, g, *k)?),
                        (None, crate::ir::GraphOwner::Function(f)) => Documented::Function(f),
                        (None, _) => Documented::Graph(g),
                    }
                };
                Change::SetDocString {
                    of,
                    doc: doc.clone(),
                }
            }
        })
    }
}

impl Change {
    /// The record of this change for the log, addressed as `model` is now (before the
    /// change applies). Refused when an id names nothing that is in the model now (a
    /// deleted node, a value no graph defines, a graph no path reaches).
    pub fn record(&self, model: &Model) -> Result<Edit, EditError> {
        let path = |g: GraphId| {
            model
                .graphs
                .get(g)
                .and_then(|_| graph_path(model, g))
                .ok_or_else(|| {
                    err(
                        Field::Graph,
                        "the graph is not in the model (or not one Graft edits)",
                    )
                })
        };
        let node = |n: NodeId| {
            let graph = live_node(model, n)?.graph;
            let p = path(graph)?;
            let k = model.graph(graph).nodes.iter().position(|&x| x == n);
            let k = k.ok_or_else(|| err(Field::Node, NO_NODE))?;
            Ok::<_, EditError>((p, k))
        };
        let nodes = |list: &[NodeId]| {
            let mut graph = None;
            let mut out = Vec::new();
            for &n in list {
                let (p, k) = node(n)?;
                if graph.get_or_insert_with(|| p.clone()) != &p {
                    return Err(err(Field::Node, "the nodes are not all in one graph"));
                }
                out.push(k);
            }
            let graph = graph.ok_or_else(|| err(Field::Node, "no node given"))?;
            Ok((graph, out))
        };
        // A value by name, checked to be visible from `g` (defined there or outside).
        let value = |g: GraphId, v: ValueId, field: Field| {
            let name = model
                .values
                .get(v)
                .map(|x| x.name.clone())
                .ok_or_else(|| err(field.clone(), "no such value"))?;
            match find_value(model, g, &name, field.clone()) {
                Ok(found) if found == v => Ok(name),
                _ => Err(err(field, format!("{name:?} is not visible in this graph"))),
            }
        };
        let attributes = |list: &[Attribute]| crate::text::print_attributes(model, list);
        let key = |k: &FunctionKey| k.to_string();
        let base = |k: &FunctionKey| match k.domain.as_str() {
            "" => k.name.clone(),
            d => format!("{d}.{}", k.name),
        };
        Ok(match self {
            Change::SetAttributes {
                node: n,
                attributes: a,
            } => {
                let (graph, node) = node(*n)?;
                Edit::SetAttribute {
                    graph,
                    node,
                    attribute: attributes(a),
                }
            }
            Change::RemoveAttribute { node: n, name } => {
                let (graph, node) = node(*n)?;
                Edit::RemoveAttribute {
                    graph,
                    node,
                    name: name.clone(),
                }
            }
            Change::RenameValue { value: v, to } => {
                let g = model
                    .values
                    .get(*v)
                    .map(|x| x.graph)
                    .ok_or_else(|| err(Field::Value, "no such value"))?;
                Edit::RenameValue {
                    graph: path(g)?,
                    from: value(g, *v, Field::Value)?,
                    to: to.clone(),
                }
            }
            Change::RenameNode { node: n, to } => {
                let (graph, node) = node(*n)?;
                Edit::RenameNode {
                    graph,
                    node,
                    to: to.clone(),
                }
            }
            Change::DeleteNodes {
                nodes: list,
                reconnect,
            } => {
                let (graph, nodes) = nodes(list)?;
                Edit::DeleteNodes {
                    graph,
                    nodes,
                    reconnect: *reconnect,
                }
            }
            Change::AddNode {
                graph,
                op_type,
                domain,
                inputs,
                outputs,
                attributes: a,
                defaults,
                name,
                at,
            } => Edit::AddNode {
                graph: path(*graph)?,
                op_type: op_type.clone(),
                domain: domain.clone(),
                inputs: inputs
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        v.map_or(Ok(String::new()), |v| value(*graph, v, Field::Input(k)))
                    })
                    .collect::<Result<_, _>>()?,
                outputs: outputs.clone(),
                attributes: attributes(a),
                defaults: *defaults,
                name: name.clone(),
                at: *at,
            },
            Change::SetInput {
                node: n,
                index,
                value: v,
            } => {
                let (graph, node) = node(*n)?;
                let g = model.node(*n).graph;
                Edit::SetInput {
                    graph,
                    node,
                    index: *index,
                    value: v.map_or(Ok(String::new()), |v| value(g, v, Field::Input(*index)))?,
                }
            }
            Change::AddInput { graph, name, ty } => Edit::AddInput {
                graph: path(*graph)?,
                name: name.clone(),
                ty: ty.as_ref().map(crate::text::print_type).unwrap_or_default(),
            },
            Change::RemoveInput { graph, value: v } => Edit::RemoveInput {
                graph: path(*graph)?,
                name: value(*graph, *v, Field::Value)?,
            },
            Change::AddOutput { graph, value: v } => Edit::AddOutput {
                graph: path(*graph)?,
                value: value(*graph, *v, Field::Value)?,
            },
            Change::RemoveOutput { graph, value: v } => Edit::RemoveOutput {
                graph: path(*graph)?,
                name: value(*graph, *v, Field::Value)?,
            },
            Change::SetType {
                graph,
                value: v,
                ty,
            } => Edit::SetType {
                graph: path(*graph)?,
                name: value(*graph, *v, Field::Value)?,
                ty: crate::text::print_type(ty),
            },
            Change::SetInitializer {
                graph,
                value: v,
                npy,
            } => Edit::SetInitializer {
                graph: path(*graph)?,
                name: value(*graph, *v, Field::Value)?,
                npy_base64: base64_encode(npy),
            },
            Change::Specialize {
                node: n,
                attributes: a,
                keep,
            } => {
                let (graph, node) = node(*n)?;
                Edit::Specialize {
                    graph,
                    node,
                    attributes: attributes(a),
                    keep: keep.iter().map(key).collect(),
                }
            }
            Change::SpecializeAll { function, keep } => Edit::SpecializeAll {
                function: function.as_ref().map(key).unwrap_or_default(),
                keep: keep.iter().map(key).collect(),
            },
            Change::UseOverload { node: n, overload } => {
                let (graph, node) = node(*n)?;
                Edit::UseOverload {
                    graph,
                    node,
                    overload: overload.clone(),
                }
            }
            Change::ExpandStandard { node: n } => {
                let (graph, node) = node(*n)?;
                Edit::ExpandStandard { graph, node }
            }
            Change::RenameFunction { function, to } => Edit::RenameFunction {
                function: key(function),
                to: base(to),
            },
            Change::DeleteFunction { function } => Edit::DeleteFunction {
                function: key(function),
            },
            Change::InlineModel { guest, options } => {
                let bytes = crate::export(
                    guest,
                    &crate::ExportOptions {
                        embed_external: true,
                        ..crate::ExportOptions::default()
                    },
                )
                .map_err(|e| err(Field::Data, format!("the guest cannot be recorded: {e}")))?;
                let graph = match options.target {
                    Some(g) => path(g)?,
                    None => "main".to_string(),
                };
                Edit::InlineModel {
                    graph,
                    guest_base64: base64_encode(&bytes),
                    bindings: options.bindings.clone(),
                    expose: options
                        .expose
                        .iter()
                        .map(|(o, n)| (o.clone(), n.clone().unwrap_or_default()))
                        .collect(),
                    expose_all: options.expose_all,
                    prefix: options.prefix.clone().unwrap_or_default(),
                    function: match &options.mode {
                        Mode::Nodes => String::new(),
                        Mode::Function { domain, name } => format!("{domain}.{name}"),
                    },
                    domain_versions: options.domain_versions.clone(),
                }
            }
            Change::InlineCalls { function } => Edit::InlineCalls {
                function: function.as_ref().map(key).unwrap_or_default(),
            },
            Change::Outline {
                nodes: list,
                function,
            } => {
                let (graph, nodes) = nodes(list)?;
                Edit::Outline {
                    graph,
                    nodes,
                    function: base(function),
                }
            }
            Change::ReplaceModel { text } => Edit::ReplaceModel { text: text.clone() },
            Change::ReplaceFunction { function, text } => Edit::ReplaceFunction {
                function: key(function),
                text: text.clone(),
            },
            Change::SetDocString { of, doc } => {
                let (graph, node) = match *of {
                    Documented::Model => (String::new(), None),
                    Documented::Graph(g) => (path(g)?, None),
                    Documented::Function(f) => {
                        let body = model.function_arena.get(f).map(|f| f.body);
                        let body = body.ok_or_else(|| err(Field::Function, "no such function"))?;
                        (path(body)?, None)
                    }
                    Documented::Node(n) => {
                        let (p, k) = node(n)?;
                        (p, Some(k))
                    }
                };
                Edit::SetDocString {
                    graph,
                    node,
                    doc: doc.clone(),
                }
            }
        })
    }
}
