//! Properties: what the panel shows for an item, and the node, terminal and call editors it offers.

use super::*;

impl Session {
    /// What the properties panel shows for `item`.
    pub fn properties(&self, item: ItemId) -> Option<Properties> {
        let open = self.open.as_ref()?;
        let model = &open.model;
        let it = open.scene.as_ref()?.view.item(item)?;
        let view = &open.scene.as_ref()?.view;
        let value_name = |v: &Option<graft::ir::ValueId>| match v {
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
                    "operator".into()
                };
                p.domain = graft::ir::normalize_domain(n.domain()).to_string();
                p.inputs = n.inputs.iter().map(value_name).collect();
                p.outputs = n.outputs.iter().map(value_name).collect();
                p.attributes = it
                    .attrs
                    .iter()
                    .map(|a| {
                        let source = match a.source {
                            graft::view::AttrSource::Given => "",
                            graft::view::AttrSource::Call => "from the call",
                            graft::view::AttrSource::Default => "default",
                            graft::view::AttrSource::Unset => "not set",
                        };
                        (a.name.clone(), a.value.clone(), source)
                    })
                    .collect();
                let name_of = |v: &Option<graft::ir::ValueId>| {
                    v.map(|v| model.value(v).name.clone()).unwrap_or_default()
                };
                p.editor = Some(NodeEditor {
                    node: *node,
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
                            (
                                a.name().to_string(),
                                graft::text::print_attributes(model, std::slice::from_ref(a)),
                            )
                        })
                        .collect(),
                });
                if callee.is_some() {
                    p.call = call_editor(model, *node);
                } else {
                    p.standard_body = graft::library::body_kind(model, *node).map(|k| (*node, k));
                }
                p.doc = match callee {
                    Some(f) => model.function(*f).doc_string.clone().unwrap_or_default(),
                    None => {
                        let version = model.opset_version(n.domain()).unwrap_or(i64::MAX);
                        graft::schema::lookup(n.domain(), n.op_type(), version)
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
                if let Some(info) = list.iter().find(|i| i.value == Some(*value)) {
                    p.terminal = Some(TerminalEditor {
                        value: *value,
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
}

/// What the properties panel shows for one item.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Properties {
    /// For a call of a local function: what its compile-time attribute editor shows.
    pub call: Option<CallEditor>,
    pub title: String,
    pub kind: String,
    pub name: String,
    /// For a call the rules of `graft::calls` reject: what is wrong, with its code.
    pub problem: Option<String>,
    pub domain: String,
    pub attributes: Vec<(String, String, &'static str)>,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    /// The operator's documentation from the schema registry.
    pub doc: String,
    /// For a standard operator with a function body: where the body comes from
    /// (`Expand` replaces the node by it).
    pub standard_body: Option<(graft::ir::NodeId, graft::library::BodyKind)>,
    /// For a node: what its editor shows.
    pub editor: Option<NodeEditor>,
    /// For a graph input or output: what its editor shows.
    pub terminal: Option<TerminalEditor>,
}

/// A graph input's or output's editable parts.
#[derive(Clone, Debug, PartialEq)]
pub struct TerminalEditor {
    pub value: graft::ir::ValueId,
    pub name: String,
    /// The stated type as ONNX text (`float[batch,4]`), empty when none is stated.
    pub ty: String,
    pub input: bool,
}

/// A node's editable parts: its name, input and output value names, attributes as
/// ONNX text, and the operators the palette offers where it stands.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeEditor {
    pub node: NodeId,
    pub name: String,
    /// The value each input reads (`""`: omitted).
    pub inputs: Vec<String>,
    /// For each input, the value when it is an initializer (its data can be replaced
    /// from an `.npy` file).
    pub initializers: Vec<Option<graft::ir::ValueId>>,
    pub outputs: Vec<String>,
    /// Name and value as ONNX text (`alpha = 0.5`).
    pub attributes: Vec<(String, String)>,
}

/// A call's compile-time attributes: the generic function's declared attributes,
/// each with its default and the call's value.
#[derive(Clone, Debug, PartialEq)]
pub struct CallEditor {
    pub node: graft::ir::NodeId,
    /// `domain.name` of the generic function.
    pub function: String,
    /// The overload the call uses (`""`: the generic).
    pub overload: String,
    /// Every overload of the function in the model (`""`: the generic), to choose from.
    pub overloads: Vec<String>,
    /// Name, default (`None`: no default), the call's value (`None`: not given).
    pub attributes: Vec<(String, Option<String>, Option<String>)>,
}

/// The generic function `node` calls (the call may name an overload of it).
pub(super) fn generic_of(model: &Model, node: graft::ir::NodeId) -> Option<graft::ir::FunctionId> {
    let n = model.nodes.get(node)?;
    model.find_function(&graft::ir::FunctionKey {
        domain: graft::ir::normalize_domain(n.domain()).to_string(),
        name: n.op_type().to_string(),
        overload: String::new(),
    })
}

/// The attribute editor of the call `node`: declared attributes come from the generic
/// function (the call may already use an overload of it).
pub(super) fn call_editor(model: &Model, node: graft::ir::NodeId) -> Option<CallEditor> {
    let n = model.node(node);
    let generic = graft::ir::FunctionKey {
        domain: graft::ir::normalize_domain(n.domain()).to_string(),
        name: n.op_type().to_string(),
        overload: String::new(),
    };
    let f = model.function(model.find_function(&generic)?);
    let text = |a: &graft::ir::Attribute| match &a.kind {
        graft::ir::AttrKind::Value(v) => graft::view::attr_text(model, v),
        graft::ir::AttrKind::Ref { name, .. } => format!("@{name}"),
        graft::ir::AttrKind::Raw(_) => "?".into(),
    };
    // The call's own values, else those its overload was made with.
    let bound = model
        .find_function(&graft::ir::FunctionKey {
            overload: n.overload().to_string(),
            ..generic.clone()
        })
        .filter(|_| !n.overload().is_empty())
        .map(|o| graft::specialize::binding_of(model, o))
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
