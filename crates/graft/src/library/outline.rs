//! Outlining: selected nodes of one graph become a new local function and one call.
//!
//! The selected nodes move (ids kept) into the new body; the values they read from
//! outside become formal inputs (first use first), the values they produce that
//! anything outside reads (or that are graph outputs) become formal outputs, and the
//! call's outputs keep the original value ids so every reader follows. Attribute
//! references in the selection are declared by the new function and forwarded by the
//! call. The selection must be convex: no path leaves it and comes back.

use std::collections::HashSet;

use super::{LibraryError, import_domain};
use crate::hash::{FxBuild, FxMap};
use crate::ir::{
    AttrKind, Attribute, Function, FunctionId, FunctionKey, Graph, GraphOwner, Model, Node, NodeId,
    ValueDef, ValueId, ValueInfo, normalize_domain,
};

use crate::ir::{Names, is_identifier};

/// Reads `DOMAIN.NAME` (the name after the last dot) as the key of a new function of
/// `model`, with the rules [`outline`] applies: the app checks a name as it is typed.
pub fn new_function_key(model: &Model, text: &str) -> Result<FunctionKey, LibraryError> {
    let text = text.trim();
    let (domain, name) = text
        .rsplit_once('.')
        .ok_or_else(|| LibraryError::NotQualified(text.to_string()))?;
    check_new_key(model, domain, name)
}

/// The key of a new function `domain`.`name`: the name an identifier, the domain
/// dot-separated identifiers other than the default domain, no standard operator of
/// that name, no local function with that key yet.
fn check_new_key(model: &Model, domain: &str, name: &str) -> Result<FunctionKey, LibraryError> {
    if !is_identifier(name) {
        return Err(LibraryError::BadName(name.to_string()));
    }
    let domain = normalize_domain(domain);
    if domain.is_empty() {
        return Err(LibraryError::DefaultDomain);
    }
    if !domain.split('.').all(is_identifier) {
        return Err(LibraryError::BadDomain(domain.to_string()));
    }
    let key = FunctionKey {
        domain: domain.to_string(),
        name: name.to_string(),
        overload: String::new(),
    };
    if !crate::schema::history(domain, name).is_empty() {
        return Err(LibraryError::StandardOperator(key));
    }
    if model.find_function(&key).is_some() {
        return Err(LibraryError::FunctionExists(key));
    }
    Ok(key)
}

/// Makes a new function of `domain`.`name` from `nodes` (all of one graph) and replaces
/// them by one call placed where the first of them was. On error the model is unchanged.
pub fn outline(
    model: &mut Model,
    nodes: &[NodeId],
    domain: &str,
    name: &str,
) -> Result<FunctionKey, LibraryError> {
    let key = check_new_key(model, domain, name)?;
    let domain = key.domain.as_str();
    let first = *nodes
        .first()
        .ok_or_else(|| LibraryError::Outline("no nodes selected".into()))?;
    let g = model
        .live_node(first)
        .ok_or(LibraryError::NoNode(first))?
        .graph;
    let selected: HashSet<NodeId, FxBuild> = nodes.iter().copied().collect();
    for &n in nodes {
        match model.live_node(n) {
            None => return Err(LibraryError::NoNode(n)),
            Some(node) if node.graph != g => {
                return Err(LibraryError::Outline(
                    "the selected nodes are not all in one graph".into(),
                ));
            }
            _ => {}
        }
    }
    let order: Vec<NodeId> = model.graph(g).nodes.clone();
    if order.iter().filter(|n| selected.contains(n)).count() != selected.len() {
        return Err(LibraryError::Outline(
            "a selected node is not in its graph's node list".into(),
        ));
    }

    // Producers among the graph's nodes, and convexity.
    let mut producer: FxMap<ValueId, NodeId> = FxMap::default();
    for &n in &order {
        for &v in model.node(n).outputs.iter().flatten() {
            producer.insert(v, n);
        }
    }
    let mut tainted: HashSet<NodeId, FxBuild> = HashSet::default();
    let mut node_reads: FxMap<NodeId, Vec<ValueId>> = FxMap::default();
    for &n in &order {
        let r = model.node_reads(n);
        let from = |v: &ValueId| producer.get(v).copied();
        if selected.contains(&n) {
            if let Some(v) = r
                .iter()
                .find(|v| from(v).is_some_and(|p| tainted.contains(&p)))
            {
                return Err(LibraryError::Outline(format!(
                    "the selection is not convex: {:?} depends on the selection and feeds it again",
                    model.value(*v).name
                )));
            }
        } else if r
            .iter()
            .any(|v| from(v).is_some_and(|p| selected.contains(&p) || tainted.contains(&p)))
        {
            tainted.insert(n);
        }
        node_reads.insert(n, r);
    }

    // Formal inputs (first use first) and outputs (production order).
    let mut inputs: Vec<ValueId> = Vec::new();
    let mut seen: HashSet<ValueId, FxBuild> = HashSet::default();
    let selected_order: Vec<NodeId> = order
        .iter()
        .copied()
        .filter(|n| selected.contains(n))
        .collect();
    for n in &selected_order {
        for &v in node_reads.get(n).into_iter().flatten() {
            let inside = producer.get(&v).is_some_and(|p| selected.contains(p));
            if !inside && seen.insert(v) {
                inputs.push(v);
            }
        }
    }
    let mut used_outside: HashSet<ValueId, FxBuild> = model
        .graph(g)
        .outputs
        .iter()
        .filter_map(|o| o.value)
        .collect();
    for n in order.iter().filter(|n| !selected.contains(n)) {
        used_outside.extend(node_reads.get(n).into_iter().flatten().copied());
    }
    let mut outputs: Vec<ValueId> = Vec::new();
    let mut internal: Vec<ValueId> = Vec::new();
    for n in &selected_order {
        for &v in model.node(*n).outputs.iter().flatten() {
            if used_outside.contains(&v) {
                outputs.push(v);
            } else {
                internal.push(v);
            }
        }
    }
    // Attribute references the selection makes (to forward from the caller).
    let mut refs: Vec<(String, crate::ir::AttrType)> = Vec::new();
    for &n in &selected_order {
        for m in std::iter::once(n).chain(model.nodes_within(n)) {
            for a in &model.node(m).attributes {
                if let AttrKind::Ref { name, ty } = &a.kind
                    && !refs.iter().any(|(r, _)| r == name)
                {
                    refs.push((name.clone(), *ty));
                }
            }
        }
    }
    let root = model.scope_root(g);
    let enclosing = match model.graph(root).owner {
        GraphOwner::Function(h) => Some(h),
        _ => None,
    };
    let opset_import = match enclosing {
        Some(h) => model.function(h).opset_import.clone(),
        None => model.opset_import.clone(),
    };

    // Nothing fails from here on.
    let f = FunctionId::from_index(model.function_arena.len());
    let body = model.graphs.push(Graph::new(GraphOwner::Function(f)));
    let mut names = Names::default();
    for &v in &internal {
        names.fresh(&model.value(v).name);
    }
    let mut map: FxMap<ValueId, ValueId> = FxMap::default();
    let mut body_inputs = Vec::new();
    for &v in &inputs {
        let name = names.fresh(&model.value(v).name);
        let formal = model.values.push(crate::ir::Value {
            name,
            graph: body,
            def: ValueDef::Input,
        });
        map.insert(v, formal);
        body_inputs.push(ValueInfo {
            value: Some(formal),
            ..ValueInfo::default()
        });
    }
    let mut body_outputs = Vec::new();
    for &v in &outputs {
        let name = names.fresh(&model.value(v).name);
        let def = model.value(v).def;
        let inner = model.values.push(crate::ir::Value {
            name,
            graph: body,
            def,
        });
        map.insert(v, inner);
        body_outputs.push(ValueInfo {
            value: Some(inner),
            ..ValueInfo::default()
        });
    }
    for &v in &internal {
        model.values[v].graph = body;
    }
    // Rewire the moved nodes and everything under them.
    for &n in &selected_order {
        model.nodes[n].graph = body;
        let all: Vec<NodeId> = std::iter::once(n).chain(model.nodes_within(n)).collect();
        for m in all {
            let node = &mut model.nodes[m];
            for v in node
                .inputs
                .iter_mut()
                .chain(node.outputs.iter_mut())
                .flatten()
            {
                if let Some(&to) = map.get(v) {
                    *v = to;
                }
            }
        }
    }
    let internal_set: HashSet<ValueId, FxBuild> = internal.iter().copied().collect();
    let value_info = std::mem::take(&mut model.graphs[g].value_info);
    let (moved, kept): (Vec<ValueInfo>, Vec<ValueInfo>) = value_info
        .into_iter()
        .partition(|vi| vi.value.is_some_and(|v| internal_set.contains(&v)));
    model.graphs[g].value_info = kept;
    {
        let b = &mut model.graphs[body];
        b.nodes = selected_order.clone();
        b.inputs = body_inputs;
        b.outputs = body_outputs;
        b.value_info = moved;
    }
    let call = model.nodes.push(Node {
        graph: g,
        op_type: Some(name.to_string()),
        domain: Some(domain.to_string()),
        overload: None,
        name: None,
        inputs: inputs.iter().map(|&v| Some(v)).collect(),
        outputs: outputs.iter().map(|&v| Some(v)).collect(),
        attributes: refs
            .iter()
            .map(|(name, ty)| Attribute {
                name: Some(name.clone()),
                doc_string: None,
                kind: AttrKind::Ref {
                    name: name.clone(),
                    ty: *ty,
                },
            })
            .collect(),
        doc_string: None,
        metadata_props: Vec::new(),
        device_configurations: Vec::new(),
    });
    for &v in &outputs {
        model.values[v].def = ValueDef::Node(call);
    }
    // The call where the first selected node was: the outside nodes after it that do
    // not depend on the selection go before the call, those that do after it.
    let at = order
        .iter()
        .position(|n| selected.contains(n))
        .unwrap_or(order.len());
    let mut new_order: Vec<NodeId> = order[..at].to_vec();
    let rest: Vec<NodeId> = order[at..]
        .iter()
        .copied()
        .filter(|n| !selected.contains(n))
        .collect();
    new_order.extend(rest.iter().copied().filter(|n| !tainted.contains(n)));
    new_order.push(call);
    new_order.extend(rest.iter().copied().filter(|n| tainted.contains(n)));
    model.graphs[g].nodes = new_order;

    let pushed = model.function_arena.push(Function {
        name: Some(name.to_string()),
        domain: Some(domain.to_string()),
        overload: None,
        body,
        attribute: refs.into_iter().map(|(name, _)| name).collect(),
        attribute_proto: Vec::new(),
        doc_string: None,
        opset_import,
        metadata_props: Vec::new(),
    });
    debug_assert_eq!(pushed, f);
    model.functions.push(f);
    import_domain(&mut model.opset_import, domain, Some(1));
    if let Some(h) = enclosing {
        import_domain(&mut model.function_arena[h].opset_import, domain, Some(1));
    }
    if model.ir_version.is_some_and(|v| v < 8) {
        model.ir_version = Some(8);
    }
    Ok(key)
}
