//! The edits adapters make on the node being converted: its attributes and inputs, new
//! constants (an initializer in the main graph, a `Constant` node elsewhere), new nodes
//! before or after it, fresh names, and what is known of a value (constant contents,
//! element type, rank).

use std::collections::HashSet;

use bytes::Bytes;

use super::{ConvertError, ConvertReport, is_main};
use crate::ir::{
    AttrKind, AttrValue, Attribute, GraphId, Initializer, Model, Node, NodeId, Tensor, TypeValue,
    Value, ValueDef, ValueId, dtype,
};

pub(crate) struct Ctx<'a> {
    pub model: &'a mut Model,
    /// The version everything converts to: nodes an adapter adds must be valid there.
    pub to: i64,
    /// Every value name of the model: new names avoid all of them, so they clash with
    /// nothing in any scope and shadow nothing.
    names: crate::ir::Names,
    /// The node being converted.
    pub node: NodeId,
    /// Nodes to place before and after it.
    pub before: Vec<NodeId>,
    pub after: Vec<NodeId>,
    pub report: ConvertReport,
    /// Values nodes stopped reading (constants that became attributes).
    pub dropped: Vec<ValueId>,
}

/// An attribute with a value.
pub(crate) fn attribute(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: Some(name.to_string()),
        doc_string: None,
        kind: AttrKind::Value(value),
    }
}

/// A 1-D int64 tensor.
pub(crate) fn int64s(values: Vec<i64>) -> Tensor {
    Tensor {
        dims: vec![values.len() as i64],
        data_type: Some(dtype::INT64),
        int64_data: values,
        ..Tensor::default()
    }
}

/// A float tensor of the given dims.
pub(crate) fn floats(dims: Vec<i64>, values: Vec<f32>) -> Tensor {
    Tensor {
        dims,
        data_type: Some(dtype::FLOAT),
        float_data: values,
        ..Tensor::default()
    }
}

/// The integers of an int64 or int32 tensor stored in the model.
pub(crate) fn tensor_ints(t: &Tensor) -> Option<Vec<i64>> {
    if t.is_external() {
        return None;
    }
    let raw = t.raw_data.as_ref();
    match t.data_type() {
        dtype::INT64 => match raw {
            Some(r) => Some(chunks::<8>(r).map(i64::from_le_bytes).collect()),
            None => Some(t.int64_data.clone()),
        },
        dtype::INT32 => match raw {
            Some(r) => Some(
                chunks::<4>(r)
                    .map(|b| i64::from(i32::from_le_bytes(b)))
                    .collect(),
            ),
            None => Some(t.int32_data.iter().map(|&v| i64::from(v)).collect()),
        },
        _ => None,
    }
}

/// The numbers of a float or double tensor stored in the model, as f32.
pub(crate) fn tensor_floats(t: &Tensor) -> Option<Vec<f32>> {
    if t.is_external() {
        return None;
    }
    let raw = t.raw_data.as_ref();
    match t.data_type() {
        dtype::FLOAT => match raw {
            Some(r) => Some(chunks::<4>(r).map(f32::from_le_bytes).collect()),
            None => Some(t.float_data.clone()),
        },
        dtype::DOUBLE => match raw {
            Some(r) => Some(
                chunks::<8>(r)
                    .map(|b| f64::from_le_bytes(b) as f32)
                    .collect(),
            ),
            None => Some(t.double_data.iter().map(|&v| v as f32).collect()),
        },
        _ => None,
    }
}

fn chunks<const N: usize>(bytes: &Bytes) -> impl Iterator<Item = [u8; N]> + '_ {
    bytes
        .chunks_exact(N)
        .map(|c| <[u8; N]>::try_from(c).unwrap_or([0; N]))
}

/// The tensor a value always holds: an initializer that is not a graph input, or the
/// `value` of a `Constant` node.
pub(crate) fn const_tensor(model: &Model, v: ValueId) -> Option<&Tensor> {
    let value = model.values.get(v)?;
    match value.def {
        ValueDef::Initializer => model
            .graphs
            .get(value.graph)?
            .initializers
            .iter()
            .find(|i| i.value == Some(v))
            .map(|i| &i.tensor),
        ValueDef::Node(n) => {
            let node = model.nodes.get(n)?;
            if node.op_type() != "Constant" || !node.domain().is_empty() {
                return None;
            }
            node.attributes
                .iter()
                .find_map(|a| match (a.name(), a.value()) {
                    ("value", Some(AttrValue::Tensor(t))) => Some(&**t),
                    _ => None,
                })
        }
        _ => None,
    }
}

/// The element type of a value, when its graph states it or it is a constant.
pub(crate) fn elem_type(model: &Model, v: ValueId) -> Option<i32> {
    if let Some(t) = const_tensor(model, v) {
        return t.data_type;
    }
    tensor_type(model, v).and_then(|t| t.elem_type)
}

/// The rank of a value, when its graph states its shape or it is a constant.
pub(crate) fn rank(model: &Model, v: ValueId) -> Option<usize> {
    if let Some(t) = const_tensor(model, v) {
        return Some(t.dims.len());
    }
    tensor_type(model, v)
        .and_then(|t| t.shape.as_ref())
        .map(|s| s.dims.len())
}

fn tensor_type(model: &Model, v: ValueId) -> Option<&crate::ir::TensorType> {
    let graph = model.graphs.get(model.values.get(v)?.graph)?;
    graph
        .inputs
        .iter()
        .chain(&graph.outputs)
        .chain(&graph.value_info)
        .filter(|vi| vi.value == Some(v))
        .find_map(|vi| match vi.ty.as_ref().and_then(|t| t.value.as_ref()) {
            Some(TypeValue::Tensor(t)) => Some(t),
            _ => None,
        })
}

impl<'a> Ctx<'a> {
    pub fn new(model: &'a mut Model, to: i64) -> Self {
        let names = crate::ir::Names::taking(model.values.iter().map(|(_, v)| v.name.as_str()))
            .first_suffix(1);
        Ctx {
            model,
            to,
            names,
            node: NodeId::from_index(0),
            before: Vec::new(),
            after: Vec::new(),
            report: ConvertReport::default(),
            dropped: Vec::new(),
        }
    }

    pub fn begin(&mut self, node: NodeId) {
        self.node = node;
        self.before.clear();
        self.after.clear();
    }

    pub fn node(&self) -> &Node {
        self.model.node(self.node)
    }

    pub fn node_mut(&mut self) -> &mut Node {
        &mut self.model.nodes[self.node]
    }

    pub fn graph(&self) -> GraphId {
        self.node().graph
    }

    /// An error about the node being converted.
    pub fn fail(&self, reason: impl Into<String>) -> ConvertError {
        let node = self.node();
        let name = match (node.name(), node.outputs.iter().flatten().next()) {
            ("", Some(&v)) => format!("producing {}", self.model.value(v).name),
            (name, _) => name.to_string(),
        };
        ConvertError::Unsupported {
            op: node.op_type().to_string(),
            node: name,
            reason: reason.into(),
        }
    }

    /// A name no value of the model has.
    pub fn fresh(&mut self, hint: &str) -> String {
        self.names.fresh(hint)
    }

    /// A name hint from the node's first output.
    pub fn hint(&self, suffix: &str) -> String {
        let base = self
            .node()
            .outputs
            .iter()
            .flatten()
            .next()
            .map(|&v| self.model.value(v).name.clone())
            .unwrap_or_else(|| self.node().op_type().to_lowercase());
        format!("{base}_{suffix}")
    }

    // ---- attributes ----

    pub fn attr(&self, name: &str) -> Option<&Attribute> {
        self.node().attributes.iter().find(|a| a.name() == name)
    }

    /// Removes and returns the attribute `name`; a reference to a function attribute
    /// cannot be moved into an input, so it is an error.
    pub fn take_attr(&mut self, name: &str) -> Result<Option<AttrValue>, ConvertError> {
        let Some(i) = self.node().attributes.iter().position(|a| a.name() == name) else {
            return Ok(None);
        };
        match &self.node().attributes.get(i).map(|a| &a.kind) {
            Some(AttrKind::Value(v)) => {
                let v = v.clone();
                self.node_mut().attributes.remove(i);
                Ok(Some(v))
            }
            _ => Err(self.fail(format!(
                "attribute {name} is a reference or malformed, not a value"
            ))),
        }
    }

    pub fn take_ints(&mut self, name: &str) -> Result<Option<Vec<i64>>, ConvertError> {
        match self.take_attr(name)? {
            None => Ok(None),
            Some(AttrValue::Ints(v)) => Ok(Some(v)),
            Some(AttrValue::Int(v)) => Ok(Some(vec![v])),
            Some(_) => Err(self.fail(format!("attribute {name} is not ints"))),
        }
    }

    pub fn take_float(&mut self, name: &str) -> Result<Option<f32>, ConvertError> {
        match self.take_attr(name)? {
            None => Ok(None),
            Some(AttrValue::Float(v)) => Ok(Some(v)),
            Some(_) => Err(self.fail(format!("attribute {name} is not a float"))),
        }
    }

    pub fn int_attr(&self, name: &str) -> Option<i64> {
        match self.attr(name)?.value()? {
            AttrValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn string_attr(&self, name: &str) -> Option<String> {
        match self.attr(name)?.value()? {
            AttrValue::String(v) => Some(String::from_utf8_lossy(v).into_owned()),
            _ => None,
        }
    }

    /// Sets (or replaces) an attribute.
    pub fn set_attr(&mut self, name: &str, value: AttrValue) {
        let node = self.node_mut();
        match node.attributes.iter_mut().find(|a| a.name() == name) {
            Some(a) => a.kind = AttrKind::Value(value),
            None => node.attributes.push(attribute(name, value)),
        }
    }

    pub fn remove_attr(&mut self, name: &str) {
        self.node_mut().attributes.retain(|a| a.name() != name);
    }

    // ---- inputs ----

    pub fn input(&self, i: usize) -> Option<ValueId> {
        self.node().inputs.get(i).copied().flatten()
    }

    /// Sets input `i`, padding with absent inputs, and drops trailing absent ones.
    pub fn set_input(&mut self, i: usize, value: Option<ValueId>) {
        let inputs = &mut self.model.nodes[self.node].inputs;
        if inputs.len() <= i {
            inputs.resize(i + 1, None);
        }
        if let Some(slot) = inputs.get_mut(i) {
            let old = std::mem::replace(slot, value);
            self.dropped.extend(old);
        }
        let inputs = &mut self.model.nodes[self.node].inputs;
        while inputs.last() == Some(&None) {
            inputs.pop();
        }
    }

    /// Keeps the first `n` inputs.
    pub fn truncate_inputs(&mut self, n: usize) {
        let inputs = &mut self.model.nodes[self.node].inputs;
        let old: Vec<ValueId> = inputs.iter().skip(n).flatten().copied().collect();
        inputs.truncate(n);
        self.dropped.extend(old);
    }

    /// Removes the initializers and `Constant` nodes of `dropped` that nothing reads
    /// any more.
    pub fn remove_unused_constants(&mut self) {
        if self.dropped.is_empty() {
            return;
        }
        let mut used: HashSet<ValueId> = HashSet::new();
        for (_, g) in self.model.graphs.iter() {
            used.extend(g.outputs.iter().filter_map(|o| o.value));
            for &n in &g.nodes {
                used.extend(self.model.node(n).inputs.iter().flatten());
            }
        }
        let dropped = std::mem::take(&mut self.dropped);
        for v in dropped {
            if used.contains(&v) || self.const_tensor(v).is_none() {
                continue;
            }
            let Some(value) = self.model.values.get(v) else {
                continue;
            };
            let graph = value.graph;
            match value.def {
                ValueDef::Initializer => self.model.graphs[graph]
                    .initializers
                    .retain(|i| i.value != Some(v)),
                ValueDef::Node(n) if self.model.node(n).outputs.len() == 1 => {
                    self.model.graphs[graph].nodes.retain(|&m| m != n);
                }
                _ => {}
            }
        }
    }

    /// Input `i` as the integers of a constant; `None` when the input is absent.
    pub fn const_ints_input(&self, i: usize, what: &str) -> Result<Option<Vec<i64>>, ConvertError> {
        let Some(v) = self.input(i) else {
            return Ok(None);
        };
        self.const_tensor(v)
            .and_then(tensor_ints)
            .map(Some)
            .ok_or_else(|| self.fail(format!("{what} is not a constant")))
    }

    /// Input `i` as the numbers of a float constant; `None` when the input is absent.
    pub fn const_floats_input(
        &self,
        i: usize,
        what: &str,
    ) -> Result<Option<Vec<f32>>, ConvertError> {
        let Some(v) = self.input(i) else {
            return Ok(None);
        };
        self.const_tensor(v)
            .and_then(tensor_floats)
            .map(Some)
            .ok_or_else(|| self.fail(format!("{what} is not a float constant")))
    }

    /// See [`const_tensor`].
    pub fn const_tensor(&self, v: ValueId) -> Option<&Tensor> {
        const_tensor(self.model, v)
    }

    /// See [`elem_type`].
    pub fn elem_type(&self, v: ValueId) -> Option<i32> {
        elem_type(self.model, v)
    }

    /// See [`rank`].
    pub fn rank(&self, v: ValueId) -> Option<usize> {
        rank(self.model, v)
    }

    /// Whether any node of the model reads `v` or a graph outputs it.
    pub fn is_used(&self, v: ValueId) -> bool {
        self.model.graphs.iter().any(|(_, g)| {
            g.outputs.iter().any(|o| o.value == Some(v))
                || g.nodes
                    .iter()
                    .any(|&n| self.model.node(n).inputs.contains(&Some(v)))
        })
    }

    // ---- new values and nodes ----

    /// A constant for the node to read: an initializer of the main graph (IR >= 4,
    /// where initializers need not be inputs), else a `Constant` node placed before it.
    pub fn add_const(&mut self, suffix: &str, tensor: Tensor) -> ValueId {
        let graph = self.graph();
        let name = self.fresh(&self.hint(suffix));
        if is_main(self.model, graph) && self.model.ir_version.unwrap_or(0) >= 4 {
            let value = self.model.values.push(Value {
                name,
                graph,
                def: ValueDef::Initializer,
            });
            self.model.graphs[graph].initializers.push(Initializer {
                value: Some(value),
                tensor,
            });
            self.report.initializers += 1;
            value
        } else {
            let mut tensor = tensor;
            tensor.name = Some(name.clone());
            let (_, outs) = self.add_node(
                "Constant",
                Vec::new(),
                vec![attribute("value", AttrValue::Tensor(Box::new(tensor)))],
                &[name],
                true,
            );
            outs.into_iter().next().unwrap_or(ValueId::from_index(0))
        }
    }

    /// A new default-domain node in the node's graph, before or after it, with outputs
    /// of the given (already fresh) names.
    pub fn add_node(
        &mut self,
        op: &str,
        inputs: Vec<Option<ValueId>>,
        attributes: Vec<Attribute>,
        outputs: &[String],
        before: bool,
    ) -> (NodeId, Vec<ValueId>) {
        let graph = self.graph();
        // The domain spelled as the converted node spells it ("" or absent).
        let domain = self.node().domain.clone();
        let id = self.model.nodes.push(Node {
            graph,
            op_type: Some(op.to_string()),
            domain,
            overload: None,
            name: None,
            inputs,
            outputs: Vec::new(),
            attributes,
            doc_string: None,
            metadata_props: Vec::new(),
            device_configurations: Vec::new(),
        });
        let values: Vec<ValueId> = outputs
            .iter()
            .map(|name| {
                self.model.values.push(Value {
                    name: name.clone(),
                    graph,
                    def: ValueDef::Node(id),
                })
            })
            .collect();
        self.model.nodes[id].outputs = values.iter().map(|&v| Some(v)).collect();
        if before {
            self.before.push(id);
        } else {
            self.after.push(id);
        }
        self.report.added.push(id);
        (id, values)
    }

    /// A new node before the current one with one fresh output.
    pub fn add_before(
        &mut self,
        op: &str,
        inputs: Vec<Option<ValueId>>,
        attributes: Vec<Attribute>,
        suffix: &str,
    ) -> ValueId {
        let name = self.fresh(&self.hint(suffix));
        let (_, outs) = self.add_node(op, inputs, attributes, &[name], true);
        outs.into_iter().next().unwrap_or(ValueId::from_index(0))
    }

    /// A scalar constant of element type `elem` (of the value `like`) holding `x`:
    /// a float or double constant directly, another known type through `Cast`, an
    /// unknown one through `CastLike` (opset 15 on); else an error.
    pub fn typed_scalar(
        &mut self,
        suffix: &str,
        x: f32,
        like: ValueId,
    ) -> Result<ValueId, ConvertError> {
        match self.elem_type(like) {
            Some(dtype::FLOAT) => Ok(self.add_const(suffix, floats(Vec::new(), vec![x]))),
            Some(dtype::DOUBLE) => Ok(self.add_const(
                suffix,
                Tensor {
                    data_type: Some(dtype::DOUBLE),
                    double_data: vec![f64::from(x)],
                    ..Tensor::default()
                },
            )),
            Some(t) => {
                let c = self.add_const(suffix, floats(Vec::new(), vec![x]));
                Ok(self.add_before(
                    "Cast",
                    vec![Some(c)],
                    vec![attribute("to", AttrValue::Int(i64::from(t)))],
                    &format!("{suffix}_cast"),
                ))
            }
            None if self.to >= 15 => {
                let c = self.add_const(suffix, floats(Vec::new(), vec![x]));
                Ok(self.add_before(
                    "CastLike",
                    vec![Some(c), Some(like)],
                    Vec::new(),
                    &format!("{suffix}_cast"),
                ))
            }
            None => Err(self.fail(format!(
                "the element type of {} is unknown, so {suffix} cannot be typed (state it in value_info, or convert to opset 15 or later)",
                self.model.value(like).name
            ))),
        }
    }
}
