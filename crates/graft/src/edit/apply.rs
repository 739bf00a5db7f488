//! Applying edits and undoing them.

use std::collections::HashSet;

use super::npy::npy_tensor;
use super::{Change, EditError, Field};
use crate::ir::{
    Attribute, GraphId, GraphOwner, Ids, Initializer, Model, Node, NodeId, Tensor, Touched, Value,
    ValueDef, ValueId, ValueInfo,
};

/// What undoes one edit: the parts of the model it changed, as they were.
#[derive(Clone, Debug)]
pub struct Undo(Vec<Restore>);

#[derive(Clone, Debug)]
pub(super) enum Restore {
    Nodes(GraphId, Vec<NodeId>),
    NodeInputs(NodeId, Vec<Option<ValueId>>),
    NodeAttributes(NodeId, Vec<Attribute>),
    NodeName(NodeId, Option<String>),
    ValueName(ValueId, String),
    Inputs(GraphId, Vec<ValueInfo>),
    Outputs(GraphId, Vec<ValueInfo>),
    ValueInfo(GraphId, Vec<ValueInfo>),
    Initializers(GraphId, Vec<Initializer>),
    /// What a compound edit changed ([`super::diff::ModelDiff`]).
    Diff(Box<super::diff::ModelDiff>),
    /// What an inlined model appended ([`crate::inline::InlineUndo`]).
    Inline(crate::inline::InlineUndo),
    Model(Box<Model>),
    Doc(super::change::Documented, Option<String>),
}

impl Undo {
    /// What the edit touched; `model` is the model with the edit applied.
    pub fn touched(&self, model: &Model) -> Touched {
        self.touched_between(model, false)
    }

    /// What undoing the edit will touch; `model` is the model with the edit applied,
    /// before the undo.
    pub fn touched_by_undo(&self, model: &Model) -> Touched {
        self.touched_between(model, true)
    }

    fn touched_between(&self, model: &Model, undoing: bool) -> Touched {
        let mut t = Touched::default();
        let mut lists: Vec<GraphId> = Vec::new();
        let mut other: Vec<NodeId> = Vec::new();
        for r in &self.0 {
            match r {
                // The first record of a graph's list is its state before the edit.
                Restore::Nodes(g, recorded) if !lists.contains(g) => {
                    lists.push(*g);
                    let current = model.graphs.get(*g).map_or(&[][..], |x| &x.nodes);
                    let (before, after) = if undoing {
                        (current, recorded.as_slice())
                    } else {
                        (recorded.as_slice(), current)
                    };
                    t.node_list(*g, before, after);
                }
                Restore::Nodes(..) => {}
                Restore::NodeAttributes(n, _) => {
                    t.node(*n);
                    t.attributes.push(*n);
                }
                Restore::Doc(super::change::Documented::Node(n), _) => {
                    t.node(*n);
                    t.attributes.push(*n);
                }
                Restore::Doc(..) => {}
                Restore::NodeName(n, _) => {
                    t.node(*n);
                    t.renamed.push(*n);
                }
                Restore::NodeInputs(n, _) => {
                    t.node(*n);
                    other.push(*n);
                }
                Restore::ValueName(v, _) => t.values.push(*v),
                Restore::Outputs(g, recorded) | Restore::ValueInfo(g, recorded) => {
                    t.graph(*g);
                    // A value that stops or starts being an output (or in value_info)
                    // loses or gains its stated type: its producer is worked out again.
                    let current = model.graphs.get(*g).map_or(&[][..], |x| {
                        if matches!(r, Restore::Outputs(..)) {
                            &x.outputs
                        } else {
                            &x.value_info
                        }
                    });
                    for v in recorded.iter().chain(current).filter_map(|o| o.value) {
                        if let Some(crate::ir::ValueDef::Node(p)) =
                            model.values.get(v).map(|x| x.def)
                        {
                            other.push(p);
                            t.node(p);
                        }
                    }
                }
                Restore::Inputs(g, _) | Restore::Initializers(g, _) => t.graph(*g),
                Restore::Model(_) => {
                    t.whole = true;
                    t.ids = Ids::Renumbered;
                }
                Restore::Diff(_) | Restore::Inline(_) => {
                    t.whole = true;
                    if undoing && t.ids == Ids::Kept {
                        t.ids = Ids::CutBack;
                    }
                }
            }
        }
        t.attributes
            .retain(|n| !other.contains(n) && !t.removed.contains(n));
        t.attributes.dedup();
        t.renamed
            .retain(|n| !other.contains(n) && !t.removed.contains(n));
        t.renamed.dedup();
        t
    }
}

pub(super) fn undo(model: &mut Model, undo: Undo) {
    for r in undo.0.into_iter().rev() {
        match r {
            Restore::Nodes(g, list) => model.graphs[g].nodes = list,
            Restore::NodeInputs(n, list) => model.nodes[n].inputs = list,
            Restore::NodeAttributes(n, list) => model.nodes[n].attributes = list,
            Restore::NodeName(n, name) => model.nodes[n].name = name,
            Restore::Doc(of, doc) => *doc_of(model, of) = doc,
            Restore::ValueName(v, name) => model.values[v].name = name,
            Restore::Inputs(g, list) => model.graphs[g].inputs = list,
            Restore::Outputs(g, list) => model.graphs[g].outputs = list,
            Restore::ValueInfo(g, list) => model.graphs[g].value_info = list,
            Restore::Initializers(g, list) => model.graphs[g].initializers = list,
            Restore::Diff(d) => d.restore(model),
            Restore::Inline(u) => u.undo(model),
            Restore::Model(m) => *model = *m,
        }
    }
}

pub(super) fn err(field: Field, message: impl Into<String>) -> EditError {
    EditError::new(field, message)
}

pub(super) fn node_at(model: &Model, g: GraphId, k: usize) -> Result<NodeId, EditError> {
    model.graph(g).nodes.get(k).copied().ok_or_else(|| {
        err(
            Field::Node,
            format!(
                "the graph has no node {k} (it has {})",
                model.graph(g).nodes.len()
            ),
        )
    })
}

/// Every name used in the scope tree that holds `g`.
fn names_in_tree(model: &Model, g: GraphId) -> HashSet<String> {
    let mut names = HashSet::new();
    for sub in model.scope_tree(model.scope_root(g)) {
        names.extend(model.defined_in(sub).map(|v| model.value(v).name.clone()));
        for &n in &model.graph(sub).nodes {
            for v in model.node(n).inputs.iter().flatten() {
                names.insert(model.value(*v).name.clone());
            }
        }
    }
    names
}

/// Whether `name` is defined or read anywhere in the tree of `g`'s scope root (one
/// pass, nothing collected: a rename on a 50k-node graph stays cheap).
fn name_in_tree(model: &Model, g: GraphId, name: &str) -> bool {
    model.scope_tree(model.scope_root(g)).any(|sub| {
        model.defined_in(sub).any(|v| model.value(v).name == name)
            || model.graph(sub).nodes.iter().any(|&n| {
                model
                    .node(n)
                    .inputs
                    .iter()
                    .flatten()
                    .any(|&v| model.value(v).name == name)
            })
    })
}

fn check_new_name(model: &Model, g: GraphId, name: &str) -> Result<(), EditError> {
    if name.is_empty() {
        return Err(err(
            Field::NewName,
            "a value needs a name (\"\" is an absent value in ONNX)",
        ));
    }
    if name_in_tree(model, g, name) {
        return Err(err(
            Field::NewName,
            format!("the name {name:?} is already used in this scope"),
        ));
    }
    Ok(())
}

/// Where in `g` the value `v` is computed (`None`: not by a node of `g`).
fn producer_position(model: &Model, g: GraphId, v: ValueId) -> Option<usize> {
    match model.value(v).def {
        ValueDef::Node(n) if model.node(n).graph == g => {
            model.graph(g).nodes.iter().position(|&x| x == n)
        }
        _ => None,
    }
}

/// The nodes of the tree under `g`'s root that read `v`.
fn readers(model: &Model, g: GraphId, v: ValueId) -> Vec<NodeId> {
    let mut out = Vec::new();
    for sub in model.scope_tree(model.scope_root(g)) {
        for &n in &model.graph(sub).nodes {
            if model.node(n).inputs.contains(&Some(v)) {
                out.push(n);
            }
        }
    }
    out
}

/// The type a new output of `g` for value `v` states: none in a function body (ONNX
/// has no types there); else what inference knows (the stated type first). The main
/// graph's outputs need an element type, so knowing none there is a refusal.
fn output_type(
    model: &Model,
    g: GraphId,
    v: ValueId,
) -> Result<Option<crate::ir::Type>, EditError> {
    let root = model.scope_root(g);
    if matches!(model.graph(root).owner, GraphOwner::Function(_)) {
        return Ok(None);
    }
    let ty = crate::infer::infer(model).get(v);
    if model.graph(g).owner == GraphOwner::Model
        && let Some(missing) = crate::check::incomplete_io(ty.as_ref())
    {
        return Err(err(
            Field::Value,
            format!(
                "{:?} cannot be a model output: a model output needs a type, and inference \
             does not know this value's ({missing})",
                model.value(v).name
            ),
        ));
    }
    Ok(ty)
}

/// The opset version of `domain` in force in graph `g`: the enclosing function's
/// import, else the model's.
pub(super) fn version_in_force(model: &Model, g: GraphId, domain: &str) -> Option<i64> {
    let domain = crate::ir::normalize_domain(domain);
    match model.graph(model.scope_root(g)).owner {
        GraphOwner::Function(f) => model
            .function(f)
            .opset_import
            .iter()
            .find(|o| o.normalized_domain() == domain)
            .and_then(|o| o.version)
            .or_else(|| model.opset_version(domain)),
        _ => model.opset_version(domain),
    }
}

/// Applies a change whose ids name what is in the model (as [`Change::record`] and
/// [`Edit::resolve`] make sure).
pub(super) fn apply(model: &mut Model, change: &Change) -> Result<Undo, EditError> {
    let mut undo = Vec::new();
    match change {
        Change::SetAttributes {
            node: n,
            attributes,
        } => {
            if attributes.is_empty() {
                return Err(err(Field::Attribute(String::new()), "no attribute given"));
            }
            let old = model.node(*n).attributes.clone();
            let mut new = old.clone();
            for a in attributes {
                match new.iter_mut().find(|b| b.name() == a.name()) {
                    Some(slot) => *slot = a.clone(),
                    None => new.push(a.clone()),
                }
            }
            undo.push(Restore::NodeAttributes(*n, old));
            model.nodes[*n].attributes = new;
        }
        Change::RemoveAttribute { node: n, name } => {
            let old = model.node(*n).attributes.clone();
            if !old.iter().any(|a| a.name() == name) {
                return Err(err(
                    Field::Attribute(name.clone()),
                    format!("the node has no attribute {name:?}"),
                ));
            }
            undo.push(Restore::NodeAttributes(*n, old));
            model.nodes[*n].attributes.retain(|a| a.name() != name);
        }
        Change::RenameValue { value: v, to } => {
            if model.value(*v).name == *to {
                return Ok(Undo(undo));
            }
            check_new_name(model, model.value(*v).graph, to)?;
            undo.push(Restore::ValueName(*v, model.value(*v).name.clone()));
            model.values[*v].name = to.clone();
        }
        Change::RenameNode { node: n, to } => {
            undo.push(Restore::NodeName(*n, model.node(*n).name.clone()));
            model.nodes[*n].name = (!to.is_empty()).then(|| to.clone());
        }
        Change::DeleteNodes { nodes, reconnect } => {
            let mut ids: Vec<NodeId> = Vec::new();
            for &n in nodes {
                if !ids.contains(&n) {
                    ids.push(n);
                }
            }
            let Some(&first) = ids.first() else {
                return Err(err(Field::Node, "no node to delete"));
            };
            let g = model.node(first).graph;
            if *reconnect {
                // Later deletions first, so that a chain of pass-throughs resolves.
                let mut order = ids.clone();
                let position = |n: &NodeId| model.graph(g).nodes.iter().position(|x| x == n);
                order.sort_by_key(position);
                for &n in order.iter().rev() {
                    let node = model.node(n);
                    let ins: Vec<ValueId> = node.inputs.iter().flatten().copied().collect();
                    let outs: Vec<ValueId> = node.outputs.iter().flatten().copied().collect();
                    let ([input], [output]) = (ins.as_slice(), outs.as_slice()) else {
                        continue;
                    };
                    let (input, output) = (*input, *output);
                    for r in readers(model, g, output) {
                        undo.push(Restore::NodeInputs(r, model.node(r).inputs.clone()));
                        for slot in &mut model.nodes[r].inputs {
                            if *slot == Some(output) {
                                *slot = Some(input);
                            }
                        }
                    }
                    let outputs = &model.graph(g).outputs;
                    if outputs.iter().any(|o| o.value == Some(output)) {
                        undo.push(Restore::Outputs(g, outputs.clone()));
                        for o in &mut model.graphs[g].outputs {
                            if o.value == Some(output) {
                                o.value = Some(input);
                            }
                        }
                    }
                }
            }
            // The deleted nodes' outputs lose their value_info entries (an entry for
            // a value nothing defines would be stray).
            let gone = |v: Option<ValueId>| {
                v.is_some_and(
                    |v| matches!(model.value(v).def, ValueDef::Node(p) if ids.contains(&p)),
                )
            };
            if model.graph(g).value_info.iter().any(|i| gone(i.value)) {
                let list = model.graph(g).value_info.clone();
                let kept = list.iter().filter(|i| !gone(i.value)).cloned().collect();
                undo.push(Restore::ValueInfo(g, list));
                model.graphs[g].value_info = kept;
            }
            undo.push(Restore::Nodes(g, model.graph(g).nodes.clone()));
            model.graphs[g].nodes.retain(|n| !ids.contains(n));
        }
        Change::AddNode { .. } => add_node(model, &mut undo, change)?,
        Change::SetInput {
            node: n,
            index,
            value,
        } => {
            let g = model.node(*n).graph;
            if let Some(v) = *value
                && let Some(p) = producer_position(model, g, v)
            {
                let k = model.graph(g).nodes.iter().position(|x| x == n);
                if k.is_some_and(|k| p >= k) {
                    return Err(err(
                        Field::Input(*index),
                        format!(
                            "{:?} is computed by node {p}, not before this node: connecting it would break the order",
                            model.value(v).name
                        ),
                    ));
                }
            }
            let old = model.node(*n).inputs.clone();
            let mut new = old.clone();
            if new.len() <= *index {
                new.resize(index + 1, None);
            }
            new[*index] = *value;
            while new.last() == Some(&None) {
                new.pop();
            }
            undo.push(Restore::NodeInputs(*n, old));
            model.nodes[*n].inputs = new;
        }
        Change::AddInput { graph: g, name, ty } => {
            let g = *g;
            check_new_name(model, g, name)?;
            let function = matches!(model.graph(g).owner, GraphOwner::Function(_));
            let v = model.values.push(Value {
                name: name.clone(),
                graph: g,
                def: ValueDef::Input,
            });
            undo.push(Restore::Inputs(g, model.graph(g).inputs.clone()));
            model.graphs[g].inputs.push(ValueInfo {
                value: Some(v),
                ty: if function { None } else { ty.clone() },
                ..ValueInfo::default()
            });
        }
        Change::RemoveInput { graph: g, value: v } => {
            let g = *g;
            let name = &model.value(*v).name;
            let k = model
                .graph(g)
                .inputs
                .iter()
                .position(|i| i.value == Some(*v))
                .ok_or_else(|| err(Field::Value, format!("the graph has no input {name:?}")))?;
            let used = readers(model, g, *v);
            if !used.is_empty() || model.graph(g).outputs.iter().any(|o| o.value == Some(*v)) {
                return Err(err(
                    Field::Value,
                    format!(
                        "input {name:?} is still read ({} nodes); disconnect them first",
                        used.len()
                    ),
                ));
            }
            undo.push(Restore::Inputs(g, model.graph(g).inputs.clone()));
            model.graphs[g].inputs.remove(k);
        }
        Change::AddOutput { graph: g, value: v } => {
            let g = *g;
            if model.graph(g).outputs.iter().any(|o| o.value == Some(*v)) {
                let name = &model.value(*v).name;
                return Err(err(Field::Value, format!("{name:?} is already an output")));
            }
            let ty = output_type(model, g, *v)?;
            undo.push(Restore::Outputs(g, model.graph(g).outputs.clone()));
            model.graphs[g].outputs.push(ValueInfo {
                value: Some(*v),
                ty,
                ..ValueInfo::default()
            });
        }
        Change::RemoveOutput { graph: g, value: v } => {
            let g = *g;
            let k = model
                .graph(g)
                .outputs
                .iter()
                .position(|o| o.value == Some(*v))
                .ok_or_else(|| {
                    let name = &model.value(*v).name;
                    err(Field::Value, format!("the graph has no output {name:?}"))
                })?;
            undo.push(Restore::Outputs(g, model.graph(g).outputs.clone()));
            model.graphs[g].outputs.remove(k);
        }
        Change::SetType {
            graph: g,
            value: v,
            ty,
        } => {
            let g = *g;
            if matches!(model.graph(g).owner, GraphOwner::Function(_)) {
                return Err(err(
                    Field::Type,
                    "a function's inputs and outputs carry no type in ONNX",
                ));
            }
            let is = |i: &ValueInfo| i.value == Some(*v);
            if let Some(k) = model.graph(g).inputs.iter().position(is) {
                undo.push(Restore::Inputs(g, model.graph(g).inputs.clone()));
                model.graphs[g].inputs[k].ty = Some(ty.clone());
            } else if let Some(k) = model.graph(g).outputs.iter().position(is) {
                undo.push(Restore::Outputs(g, model.graph(g).outputs.clone()));
                model.graphs[g].outputs[k].ty = Some(ty.clone());
            } else {
                let name = &model.value(*v).name;
                return Err(err(
                    Field::Value,
                    format!("the graph has no input or output {name:?}"),
                ));
            }
        }
        Change::SetInitializer {
            graph: g,
            value: v,
            npy,
        } => {
            let g = *g;
            let k = model
                .graph(g)
                .initializers
                .iter()
                .position(|i| i.value == Some(*v))
                .ok_or_else(|| {
                    let name = &model.value(*v).name;
                    err(
                        Field::Value,
                        format!("the graph has no initializer {name:?}"),
                    )
                })?;
            let tensor =
                npy_tensor(npy).map_err(|e| err(Field::Data, format!("the .npy file: {e}")))?;
            undo.push(Restore::Initializers(
                g,
                model.graph(g).initializers.clone(),
            ));
            let old = &mut model.graphs[g].initializers[k].tensor;
            *old = Tensor {
                doc_string: old.doc_string.take(),
                metadata_props: std::mem::take(&mut old.metadata_props),
                ..tensor
            };
        }
        Change::SetDocString { of, doc } => {
            let to = (!doc.is_empty()).then(|| doc.clone());
            let old = std::mem::replace(doc_of(model, *of), to);
            undo.push(Restore::Doc(*of, old));
        }
        Change::Specialize { .. }
        | Change::SpecializeAll { .. }
        | Change::UseOverload { .. }
        | Change::ExpandStandard { .. }
        | Change::RenameFunction { .. }
        | Change::DeleteFunction { .. }
        | Change::InlineModel { .. }
        | Change::InlineCalls { .. }
        | Change::Outline { .. }
        | Change::ReplaceModel { .. }
        | Change::ReplaceFunction { .. } => super::compound::apply(model, change, &mut undo)?,
    }
    Ok(Undo(undo))
}

/// The doc string `of` names (resolved and recorded, so it is in the model).
fn doc_of(model: &mut Model, of: super::change::Documented) -> &mut Option<String> {
    use super::change::Documented;
    match of {
        Documented::Model => &mut model.doc_string,
        Documented::Graph(g) => &mut model.graphs[g].doc_string,
        Documented::Function(f) => &mut model.function_arena[f].doc_string,
        Documented::Node(n) => &mut model.nodes[n].doc_string,
    }
}

fn add_node(model: &mut Model, undo: &mut Vec<Restore>, change: &Change) -> Result<(), EditError> {
    let Change::AddNode {
        graph: g,
        op_type,
        domain,
        inputs,
        outputs,
        attributes,
        defaults,
        name,
        at,
    } = change
    else {
        return Ok(());
    };
    let g = *g;
    if op_type.is_empty() {
        return Err(err(Field::Op, "a node needs an op_type"));
    }
    let domain = crate::ir::normalize_domain(domain);
    let version = version_in_force(model, g, domain);
    let is_function = model.functions.iter().any(|&f| {
        let func = model.function(f);
        crate::ir::normalize_domain(func.domain.as_deref().unwrap_or("")) == domain
            && func.name.as_deref() == Some(op_type.as_str())
    });
    let Some(version) = version else {
        return Err(err(
            Field::Op,
            format!("the model does not import domain {domain:?}; {op_type} cannot be used"),
        ));
    };
    let schema = crate::schema::lookup(domain, op_type, version);
    let known_domain = crate::schema::domains().any(|d| d == domain);
    if schema.is_none() && known_domain && !is_function {
        return Err(err(
            Field::Op,
            format!("no operator {op_type} in domain {domain:?} at opset {version}"),
        ));
    }
    let mut attrs = attributes.clone();
    if *defaults && let Some(s) = schema {
        for a in &s.attributes {
            if let Some(d) = &a.default
                && !attrs.iter().any(|b| b.name() == a.name)
            {
                attrs.push(Attribute {
                    name: Some(a.name.clone()),
                    doc_string: None,
                    kind: crate::ir::AttrKind::Value(d.clone()),
                });
            }
        }
    }
    let mut after = 0;
    for v in inputs.iter().flatten() {
        if let Some(p) = producer_position(model, g, *v) {
            after = after.max(p + 1);
        }
    }
    let position = match *at {
        Some(k) if k < after => {
            return Err(err(
                Field::Node,
                format!(
                    "position {k} comes before the node that computes one of the inputs ({})",
                    after - 1
                ),
            ));
        }
        Some(k) if k > model.graph(g).nodes.len() => {
            return Err(err(
                Field::Node,
                format!("position {k} is past the end of the graph"),
            ));
        }
        Some(k) => k,
        None => after,
    };
    let taken = names_in_tree(model, g);
    let mut out_names = Vec::new();
    if outputs.is_empty() {
        let count = schema.map_or(1, |s| s.min_outputs.max(1));
        let base = crate::ir::snake_case(op_type);
        let base = base.trim_end_matches('_');
        let mut names = crate::ir::Names::taking(taken.iter().map(String::as_str));
        for k in 0..count {
            out_names.push(if count == 1 {
                names.fresh(base)
            } else {
                names.fresh_owned(format!("{base}_out{k}"))
            });
        }
    } else {
        for o in outputs {
            if o.is_empty() {
                out_names.push(String::new());
                continue;
            }
            if taken.contains(o) || out_names.contains(o) {
                return Err(err(
                    Field::NewName,
                    format!("the name {o:?} is already used in this scope"),
                ));
            }
            out_names.push(o.clone());
        }
    }
    let n = model.nodes.push(Node {
        graph: g,
        op_type: Some(op_type.to_string()),
        domain: (!domain.is_empty()).then(|| domain.to_string()),
        overload: None,
        name: (!name.is_empty()).then(|| name.to_string()),
        inputs: inputs.clone(),
        outputs: Vec::new(),
        attributes: attrs,
        doc_string: None,
        metadata_props: Vec::new(),
        device_configurations: Vec::new(),
    });
    let mut outs = Vec::new();
    for o in out_names {
        if o.is_empty() {
            outs.push(None);
            continue;
        }
        outs.push(Some(model.values.push(Value {
            name: o,
            graph: g,
            def: ValueDef::Node(n),
        })));
    }
    model.nodes[n].outputs = outs;
    undo.push(Restore::Nodes(g, model.graph(g).nodes.clone()));
    model.graphs[g].nodes.insert(position, n);
    Ok(())
}
