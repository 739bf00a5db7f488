//! The view-models of the panels beside the canvas, pure functions of the model and
//! its [`View`]: what the properties panel shows for an item (with the node, terminal
//! and call editors it offers), and where an item sits ([`item_path`], stable for a
//! model, the form a shared link keeps).

use super::{ItemId, ItemKind, View};
use crate::ir::{Model, NodeId};

/// What the properties panel shows for `item` of `view` (a view of `model`).
pub fn properties(model: &Model, view: &View, item: ItemId) -> Option<Properties> {
    let it = view.item(item)?;
    let value_name = |v: &Option<crate::ir::ValueId>| match v {
        None => "(none)".to_string(),
        Some(v) => match view.type_text(*v) {
            Some(ty) => format!("{}: {ty}", model.value(*v).name),
            None => format!("{} (type unknown)", model.value(*v).name),
        },
    };
    let mut p = Properties {
        title: it.title.clone(),
        name: it.subtitle.clone(),
        problem: it.problem.clone(),
        ..Properties::default()
    };
    match &it.kind {
        ItemKind::Node { node, callee } => {
            let n = model.node(*node);
            p.kind = if callee.is_some() {
                "function call".into()
            } else if it.is_group {
                "control flow".into()
            } else {
                crate::view::kind::op_kind(n.domain(), n.op_type())
                    .map_or("operator", |k| k.label())
                    .into()
            };
            p.domain = crate::ir::normalize_domain(n.domain()).to_string();
            p.inputs = n.inputs.iter().map(value_name).collect();
            p.outputs = n.outputs.iter().map(value_name).collect();
            p.attributes = it
                .attrs
                .iter()
                .map(|a| {
                    let source = match a.source {
                        crate::view::AttrSource::Given => "",
                        crate::view::AttrSource::Call => "from the call",
                        crate::view::AttrSource::Default => "default",
                        crate::view::AttrSource::Unset => "not set",
                    };
                    (a.name.clone(), a.value.clone(), source)
                })
                .collect();
            let name_of = |v: &Option<crate::ir::ValueId>| {
                v.map(|v| model.value(v).name.clone()).unwrap_or_default()
            };
            // Edits name the node by its graph's path and its index there: a node
            // that has none (a training graph's, which the view does not draw) gets
            // no editor, rather than an address that would name another node.
            let index = model.graph(n.graph).nodes.iter().position(|x| x == node);
            let address = crate::edit::graph_path(model, n.graph).zip(index);
            p.editor = address.map(|(graph, index)| NodeEditor {
                node: *node,
                graph,
                index,
                doc_string: n.doc_string.clone().unwrap_or_default(),
                name: n.name().to_string(),
                inputs: n.inputs.iter().map(name_of).collect(),
                initializers: n
                    .inputs
                    .iter()
                    .map(|v| {
                        v.filter(|&v| {
                            let g = model.graph(model.value(v).graph);
                            g.initializers.iter().any(|i| i.value == Some(v))
                        })
                    })
                    .collect(),
                outputs: n.outputs.iter().map(name_of).collect(),
                attributes: n
                    .attributes
                    .iter()
                    .map(|a| {
                        let text = body_summary(model, a).unwrap_or_else(|| {
                            crate::text::print_attributes(model, std::slice::from_ref(a))
                        });
                        (a.name().to_string(), text)
                    })
                    .collect(),
                bodies: n
                    .attributes
                    .iter()
                    .filter(|a| body_summary(model, a).is_some())
                    .map(|a| a.name().to_string())
                    .collect(),
            });
            if callee.is_some() {
                p.call = call_editor(model, *node);
            } else {
                p.standard_body = crate::library::body_kind(model, *node).map(|k| (*node, k));
            }
            p.metadata = n
                .metadata_props
                .iter()
                .map(|e| {
                    let (k, v) = (e.key.as_deref(), e.value.as_deref());
                    (k.unwrap_or("").to_string(), v.unwrap_or("").to_string())
                })
                .collect();
            if let Some(path) = super::modules::module_path(n) {
                p.modules = path
                    .modules
                    .iter()
                    .map(|m| match &m.class {
                        Some(class) => format!("{} · {class}", m.scope),
                        None => m.scope.clone(),
                    })
                    .collect();
            }
            p.source = n
                .metadata_props
                .iter()
                .find(|e| e.key.as_deref() == Some(super::modules::TORCH_STACK_TRACE))
                .and_then(|e| e.value.as_deref())
                .and_then(super::modules::source_line);
            p.doc = match callee {
                Some(f) => model.function(*f).doc_string.clone().unwrap_or_default(),
                None => {
                    let version = model.opset_version(n.domain()).unwrap_or(i64::MAX);
                    crate::schema::lookup(n.domain(), n.op_type(), version)
                        .map(|s| s.doc.trim().to_string())
                        .unwrap_or_default()
                }
            };
        }
        ItemKind::In { value } | ItemKind::Out { value } => {
            p.kind = if matches!(it.kind, ItemKind::In { .. }) {
                "input".into()
            } else {
                "output".into()
            };
            p.name = model.value(*value).name.clone();
            let input = matches!(it.kind, ItemKind::In { .. });
            let graph = model.graph(model.value(*value).graph);
            let list = if input { &graph.inputs } else { &graph.outputs };
            let path = crate::edit::graph_path(model, model.value(*value).graph);
            if let Some(info) = list.iter().find(|i| i.value == Some(*value))
                && let Some(path) = path
            {
                p.terminal = Some(TerminalEditor {
                    value: *value,
                    graph: path,
                    name: p.name.clone(),
                    ty: info
                        .ty
                        .as_ref()
                        .filter(|t| t.value.is_some())
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                    input,
                });
            }
        }
        ItemKind::Subgraph { attribute, .. } => {
            p.kind = format!("subgraph ({attribute})");
        }
        ItemKind::Namespace { path, .. } => {
            p.kind = "namespace".into();
            p.name = path.clone();
        }
        ItemKind::Section { .. } => p.kind = "section".into(),
        ItemKind::Graph { .. } => p.kind = "graph".into(),
    }
    Some(p)
}

/// What the properties panel shows for one item.
#[derive(Clone, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Properties {
    /// For a call of a local function: what its compile-time attribute editor shows.
    pub call: Option<CallEditor>,
    pub title: String,
    pub kind: String,
    pub name: String,
    /// For a call the rules of `crate::calls` reject: what is wrong, with its code.
    pub problem: Option<String>,
    pub domain: String,
    #[serde(deserialize_with = "crate::interned::triples")]
    pub attributes: Vec<(String, String, &'static str)>,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    /// The operator's documentation from the schema registry.
    pub doc: String,
    /// For a standard operator with a function body: where the body comes from
    /// (`Expand` replaces the node by it).
    pub standard_body: Option<(crate::ir::NodeId, crate::library::BodyKind)>,
    /// For a node: what its editor shows.
    pub editor: Option<NodeEditor>,
    /// For a graph input or output: what its editor shows.
    pub terminal: Option<TerminalEditor>,
    /// For a node: its metadata entries (key, value), in file order.
    pub metadata: Vec<(String, String)>,
    /// For a node that records its module path (`super::modules`): each module,
    /// outermost first, as `path · qualified class`.
    pub modules: Vec<String>,
    /// For a node with a torch stack trace: its innermost frame and code line.
    pub source: Option<String>,
}

/// A graph input's or output's editable parts.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TerminalEditor {
    pub value: crate::ir::ValueId,
    /// The path of its graph, as an edit names it (`crate::edit::graph_path`).
    pub graph: String,
    pub name: String,
    /// The stated type as ONNX text (`float[batch,4]`), empty when none is stated.
    pub ty: String,
    pub input: bool,
}

/// A node's editable parts: its name, input and output value names, attributes as
/// ONNX text, and the operators the palette offers where it stands.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NodeEditor {
    pub node: NodeId,
    /// Where an edit finds it: the path of its graph (`crate::edit::graph_path`) and
    /// its index there.
    pub graph: String,
    pub index: usize,
    /// The node's own doc string (`doc` is its operator's).
    pub doc_string: String,
    pub name: String,
    /// The value each input reads (`""`: omitted).
    pub inputs: Vec<String>,
    /// For each input, the value when it is an initializer (its data can be replaced
    /// from an `.npy` file).
    pub initializers: Vec<Option<crate::ir::ValueId>>,
    pub outputs: Vec<String>,
    /// Name and value as ONNX text (`alpha = 0.5`); a body (an If's branch, a
    /// Loop's or Scan's body) as a summary, not its text (weights and all).
    pub attributes: Vec<(String, String)>,
    /// The attributes that are bodies (opened in place on the canvas).
    pub bodies: Vec<String>,
}

/// A body attribute in one line: `then_branch: a body of 12 nodes, inputs (),
/// outputs (y)`; `None` for an attribute that is not a graph.
fn body_summary(model: &Model, a: &crate::ir::Attribute) -> Option<String> {
    use crate::ir::{AttrKind, AttrValue};
    let one = |g: crate::ir::GraphId| {
        let Some(graph) = model.graphs.get(g) else {
            return "a missing body".to_string();
        };
        let names = |list: &[crate::ir::ValueInfo]| {
            let names: Vec<&str> = list
                .iter()
                .filter_map(|i| i.value)
                .map(|v| model.value(v).name.as_str())
                .collect();
            names.join(", ")
        };
        format!(
            "a body of {} node{}, inputs ({}), outputs ({})",
            graph.nodes.len(),
            if graph.nodes.len() == 1 { "" } else { "s" },
            names(&graph.inputs),
            names(&graph.outputs)
        )
    };
    let text = match &a.kind {
        AttrKind::Value(AttrValue::Graph(g)) => one(*g),
        AttrKind::Value(AttrValue::Graphs(list)) => {
            let each: Vec<String> = list.iter().map(|&g| one(g)).collect();
            format!("{} bodies: {}", list.len(), each.join("; "))
        }
        _ => return None,
    };
    Some(format!("{}: {text}", a.name()))
}

/// A call's compile-time attributes: the generic function's declared attributes,
/// each with its default and the call's value.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CallEditor {
    pub node: crate::ir::NodeId,
    /// `domain.name` of the generic function.
    pub function: String,
    /// The overload the call uses (`""`: the generic).
    pub overload: String,
    /// Every overload of the function in the model (`""`: the generic), to choose from.
    pub overloads: Vec<String>,
    /// Name, default (`None`: no default), the call's value (`None`: not given).
    pub attributes: Vec<(String, Option<String>, Option<String>)>,
}

/// The attribute editor of the call `node`: declared attributes come from the generic
/// function (the call may already use an overload of it).
pub fn call_editor(model: &Model, node: crate::ir::NodeId) -> Option<CallEditor> {
    let n = model.node(node);
    let generic = crate::ir::FunctionKey {
        domain: crate::ir::normalize_domain(n.domain()).to_string(),
        name: n.op_type().to_string(),
        overload: String::new(),
    };
    let f = model.function(model.find_function(&generic)?);
    let text = |a: &crate::ir::Attribute| match &a.kind {
        crate::ir::AttrKind::Value(v) => crate::view::attr_text(model, v),
        crate::ir::AttrKind::Ref { name, .. } => format!("@{name}"),
        crate::ir::AttrKind::Raw(_) => "?".into(),
    };
    // The call's own values, else those its overload was made with.
    let bound = model
        .find_function(&crate::ir::FunctionKey {
            overload: n.overload().to_string(),
            ..generic.clone()
        })
        .filter(|_| !n.overload().is_empty())
        .map(|o| crate::specialize::binding_of(model, o))
        .unwrap_or_default();
    let given = |name: &str| {
        n.attributes
            .iter()
            .chain(&bound)
            .find(|a| a.name() == name)
            .map(text)
    };
    let mut attributes: Vec<(String, Option<String>, Option<String>)> = f
        .attribute
        .iter()
        .map(|a| (a.clone(), None, given(a)))
        .collect();
    attributes.extend(
        f.attribute_proto
            .iter()
            .map(|a| (a.name().to_string(), Some(text(a)), given(a.name()))),
    );
    let overloads = model
        .functions
        .iter()
        .map(|&g| model.function(g).key())
        .filter(|k| k.domain == generic.domain && k.name == generic.name)
        .map(|k| k.overload)
        .collect();
    Some(CallEditor {
        node,
        overloads,
        function: if generic.domain.is_empty() {
            generic.name.clone()
        } else {
            format!("{}.{}", generic.domain, generic.name)
        },
        overload: n.overload().to_string(),
        attributes,
    })
}

/// Where `item` sits: the index of each group on the way down from the root, then its
/// own, joined by dots (`0.3.1`). Stable for a model: group contents are built the
/// same way each time.
pub fn item_path(view: &View, item: ItemId) -> Option<String> {
    let mut parts = Vec::new();
    let mut id = item;
    while let Some(parent) = view.item(id)?.parent {
        let k = view
            .item(parent)?
            .children
            .as_ref()?
            .iter()
            .position(|&c| c == id)?;
        parts.push(k.to_string());
        id = parent;
    }
    parts.reverse();
    Some(parts.join("."))
}

/// The paths ([`item_path`]) of the expanded groups, parents first.
pub fn expanded_paths(view: &View) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<(ItemId, String)> = vec![(view.root(), String::new())];
    while let Some((id, path)) = stack.pop() {
        let Some(item) = view.item(id) else { continue };
        let is_root = id == view.root();
        if !(is_root || item.is_group && item.expanded) {
            continue;
        }
        if !is_root {
            out.push(path.clone());
        }
        for (k, &c) in item
            .children
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .rev()
        {
            let p = if path.is_empty() {
                k.to_string()
            } else {
                format!("{path}.{k}")
            };
            stack.push((c, p));
        }
    }
    out
}

/// The item at `path` ([`item_path`]), building group contents on the way.
pub fn item_at(view: &mut View, model: &Model, path: &str) -> Option<ItemId> {
    let mut id = view.root();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let k: usize = part.parse().ok()?;
        id = *view.children(model, id).get(k)?;
    }
    Some(id)
}
