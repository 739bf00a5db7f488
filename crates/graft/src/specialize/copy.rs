//! The deep copy of a function body that a specialization starts from.

use std::collections::HashMap;

use super::Env;
use crate::ir::{
    AttrKind, AttrValue, Attribute, Graph, GraphId, GraphOwner, Initializer, Model, Node, NodeId,
    Value, ValueDef, ValueId, ValueInfo,
};

/// Deep-copies `src` as a graph owned by `owner`, binding references from `env` (a
/// bound reference keeps the node's attribute name; an unbound one is dropped).
/// `vmap` maps the source's values to the copies (outer values of subgraphs resolve
/// through it).
pub(super) fn clone_graph(
    model: &mut Model,
    src: GraphId,
    owner: GraphOwner,
    env: &Env,
    vmap: &mut HashMap<ValueId, ValueId>,
) -> GraphId {
    let source = model.graph(src).clone();
    let g = model.graphs.push(Graph::new(owner));
    let new_value = |model: &mut Model, v: ValueId, def: ValueDef, vmap: &mut HashMap<_, _>| {
        let copy = model.values.push(Value {
            name: model.value(v).name.clone(),
            graph: g,
            def,
        });
        vmap.insert(v, copy);
        copy
    };
    for i in &source.inputs {
        if let Some(v) = i.value {
            new_value(model, v, ValueDef::Input, vmap);
        }
    }
    for i in &source.initializers {
        if let Some(v) = i.value
            && !vmap.contains_key(&v)
        {
            new_value(model, v, ValueDef::Initializer, vmap);
        }
    }
    for i in &source.sparse_initializers {
        if let Some(v) = i.value
            && !vmap.contains_key(&v)
        {
            new_value(model, v, ValueDef::Initializer, vmap);
        }
    }
    let mut nodes = Vec::with_capacity(source.nodes.len());
    for &n in &source.nodes {
        let old = model.node(n).clone();
        let id = model.nodes.push(Node {
            graph: g,
            inputs: Vec::new(),
            outputs: Vec::new(),
            attributes: Vec::new(),
            ..old.clone()
        });
        let mut attributes = Vec::with_capacity(old.attributes.len());
        for a in &old.attributes {
            let kind = match &a.kind {
                AttrKind::Ref { name, .. } => match env.get(name) {
                    // A graph passed by the caller is closed (checked in `bind`).
                    Some(v) => AttrKind::Value(clone_value(model, v, id, &Env::new(), vmap)),
                    None => continue,
                },
                AttrKind::Value(v) => AttrKind::Value(clone_value(model, v, id, env, vmap)),
                AttrKind::Raw(raw) => {
                    let mut raw = raw.clone();
                    raw.g = raw
                        .g
                        .map(|sub| clone_graph(model, sub, GraphOwner::Node(id), env, vmap));
                    raw.graphs = raw
                        .graphs
                        .iter()
                        .map(|&sub| clone_graph(model, sub, GraphOwner::Node(id), env, vmap))
                        .collect();
                    AttrKind::Raw(raw)
                }
            };
            attributes.push(Attribute { kind, ..a.clone() });
        }
        let inputs = old
            .inputs
            .iter()
            .map(|i| i.map(|v| vmap.get(&v).copied().unwrap_or(v)))
            .collect();
        let outputs = old
            .outputs
            .iter()
            .map(|o| o.map(|v| new_value(model, v, ValueDef::Node(id), vmap)))
            .collect();
        let node = &mut model.nodes[id];
        node.attributes = attributes;
        node.inputs = inputs;
        node.outputs = outputs;
        nodes.push(id);
    }
    let map_info = |i: &ValueInfo| ValueInfo {
        value: i.value.map(|v| vmap.get(&v).copied().unwrap_or(v)),
        ..i.clone()
    };
    let graph = Graph {
        owner,
        nodes,
        inputs: source.inputs.iter().map(map_info).collect(),
        outputs: source.outputs.iter().map(map_info).collect(),
        value_info: source.value_info.iter().map(map_info).collect(),
        initializers: source
            .initializers
            .iter()
            .map(|i| Initializer {
                value: i.value.map(|v| vmap.get(&v).copied().unwrap_or(v)),
                tensor: i.tensor.clone(),
            })
            .collect(),
        sparse_initializers: source
            .sparse_initializers
            .iter()
            .map(|i| crate::ir::SparseInitializer {
                value: i.value.map(|v| vmap.get(&v).copied().unwrap_or(v)),
                tensor: i.tensor.clone(),
            })
            .collect(),
        ..source
    };
    model.graphs[g] = graph;
    g
}

fn clone_value(
    model: &mut Model,
    v: &AttrValue,
    holder: NodeId,
    env: &Env,
    vmap: &mut HashMap<ValueId, ValueId>,
) -> AttrValue {
    match v {
        AttrValue::Graph(sub) => AttrValue::Graph(clone_graph(
            model,
            *sub,
            GraphOwner::Node(holder),
            env,
            vmap,
        )),
        AttrValue::Graphs(subs) => AttrValue::Graphs(
            subs.iter()
                .map(|&sub| clone_graph(model, sub, GraphOwner::Node(holder), env, vmap))
                .collect(),
        ),
        other => other.clone(),
    }
}
