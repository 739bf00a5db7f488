//! Wire format → IR in one pass, without an intermediate protobuf tree.
//!
//! Best effort: anything the wire format allows becomes IR, and what is odd (undefined
//! names, malformed attributes, fields a newer ONNX added) becomes a diagnostic. Only
//! bytes that are not a protobuf of the right shape are errors.
//!
//! Names are resolved by lexical scope. Protobuf writers put a graph's nodes before its
//! inputs and initializers, so a graph is read in two steps: its fields (nodes kept
//! with borrowed names and attribute byte ranges), then definitions, inputs and
//! attributes in scope order. Subgraphs are read in the second step, when every name
//! of the enclosing graph is known.

use super::wire::{
    DecodeError, Input, MAX_DEPTH, Result, Wire, push_fixed32, push_fixed64, push_varints,
};
use crate::diag::Diagnostic;
use crate::ir::*;

pub(super) struct Importer<'a> {
    input: Input<'a>,
    model: Model,
    /// Names visible at the current point (`ir::Resolver`: ONNX's scope rules).
    scopes: Resolver,
    depth: u32,
    /// Diagnostics whose location is described once the IR is complete.
    pending: Vec<Found>,
}

/// The nodes of one graph or function body, read from its fields and waiting for
/// their scope: each node is in the arena already; its names and attribute byte ranges
/// sit in shared lists (one allocation per graph, not per node).
#[derive(Default)]
struct PendingNodes<'a> {
    /// Per node: its id and where its inputs, outputs and attributes end in the lists.
    nodes: Vec<(NodeId, u32, u32, u32)>,
    inputs: Vec<&'a str>,
    outputs: Vec<&'a str>,
    attributes: Vec<(usize, usize)>,
}

/// A `ValueInfoProto` read, its name not yet resolved.
type PendingInfo<'a> = NamedInfo<&'a str>;

/// Decodes a `ModelProto`.
pub(super) fn decode(bytes: &bytes::Bytes) -> Result<(Model, Vec<Diagnostic>)> {
    let mut importer = Importer {
        input: Input { bytes },
        model: Model::default(),
        scopes: Resolver::default(),
        depth: 0,
        pending: Vec::new(),
    };
    importer.model(0, bytes.len())?;
    let Importer { model, pending, .. } = importer;
    let diagnostics = pending
        .into_iter()
        .map(|(severity, code, message, at)| Diagnostic::at(&model, severity, code, message, at))
        .collect();
    Ok((model, diagnostics))
}

impl<'a> Importer<'a> {
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(DecodeError::Malformed(format!(
                "recursion limit reached: messages nest more than {MAX_DEPTH} deep"
            )));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn unknown(&mut self, message: &'static str, field: u32, wire: Wire) {
        self.model.unknown_fields.push(UnknownField {
            message,
            field,
            wire_type: wire.wire_type(),
        });
    }

    fn str(&self, s: usize, e: usize) -> Result<&'a str> {
        self.input.str(s, e, "a string field")
    }

    fn string(&self, s: usize, e: usize) -> Result<String> {
        self.input.string(s, e, "a string field")
    }

    fn model(&mut self, start: usize, end: usize) -> Result<()> {
        let mut fields = self.input.fields(start, end);
        let mut graph = None;
        let mut functions = Vec::new();
        let mut training = Vec::new();
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Varint(v)) => self.model.ir_version = Some(v as i64),
                (8, Wire::Len(s, e)) => {
                    let o = self.opset(s, e)?;
                    self.model.opset_import.push(o);
                }
                (2, Wire::Len(s, e)) => self.model.producer_name = Some(self.string(s, e)?),
                (3, Wire::Len(s, e)) => self.model.producer_version = Some(self.string(s, e)?),
                (4, Wire::Len(s, e)) => self.model.domain = Some(self.string(s, e)?),
                (5, Wire::Varint(v)) => self.model.model_version = Some(v as i64),
                (6, Wire::Len(s, e)) => self.model.doc_string = Some(self.string(s, e)?),
                (7, Wire::Len(s, e)) => {
                    if graph.replace((s, e)).is_some() {
                        self.unknown("ModelProto (graph given twice)", number, wire);
                    }
                }
                (14, Wire::Len(s, e)) => {
                    let p = self.pair(s, e)?;
                    self.model.metadata_props.push(p);
                }
                (20, Wire::Len(s, e)) => training.push((s, e)),
                (25, Wire::Len(s, e)) => functions.push((s, e)),
                (26, Wire::Len(s, e)) => {
                    let c = self.device_configuration(s, e)?;
                    self.model.configuration.push(c);
                }
                _ => self.unknown("ModelProto", number, wire),
            }
        }
        if graph.is_none() && functions.is_empty() {
            return Err(DecodeError::NotAModel);
        }
        // Functions first: they see nothing of the main graph.
        for (s, e) in functions {
            let id = self.function(s, e)?;
            self.model.functions.push(id);
        }
        if let Some((s, e)) = graph {
            let id = self.graph(s, e, GraphOwner::Model)?;
            self.model.graph = Some(id);
        }
        for (i, (s, e)) in training.into_iter().enumerate() {
            let info = self.training_info(i, s, e)?;
            self.model.training_info.push(info);
        }
        Ok(())
    }

    fn training_info(&mut self, index: usize, start: usize, end: usize) -> Result<TrainingInfo> {
        self.enter()?;
        // Training graphs may read the main graph's values (its initializers).
        let saved = self.scopes.enter_training();
        let mut info = TrainingInfo::default();
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => {
                    info.initialization = Some(self.graph(s, e, GraphOwner::Training(index))?)
                }
                (2, Wire::Len(s, e)) => {
                    info.algorithm = Some(self.graph(s, e, GraphOwner::Training(index))?)
                }
                (3, Wire::Len(s, e)) => info.initialization_binding.push(self.pair(s, e)?),
                (4, Wire::Len(s, e)) => info.update_binding.push(self.pair(s, e)?),
                _ => self.unknown("TrainingInfoProto", number, wire),
            }
        }
        self.scopes.restore(saved);
        self.leave();
        Ok(info)
    }

    fn function(&mut self, start: usize, end: usize) -> Result<FunctionId> {
        self.enter()?;
        let id = FunctionId::from_index(self.model.function_arena.len());
        let body = self.model.graphs.push(Graph::new(GraphOwner::Function(id)));
        let mut function = Function {
            name: None,
            domain: None,
            overload: None,
            body,
            attribute: Vec::new(),
            attribute_proto: Vec::new(),
            doc_string: None,
            opset_import: Vec::new(),
            metadata_props: Vec::new(),
        };
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let mut nodes = PendingNodes::default();
        let mut value_info = Vec::new();
        let mut attribute_proto = Vec::new();
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => function.name = Some(self.string(s, e)?),
                (4, Wire::Len(s, e)) => inputs.push(self.str(s, e)?),
                (5, Wire::Len(s, e)) => outputs.push(self.str(s, e)?),
                (6, Wire::Len(s, e)) => function.attribute.push(self.string(s, e)?),
                (11, Wire::Len(s, e)) => attribute_proto.push((s, e)),
                (7, Wire::Len(s, e)) => self.pending_node(body, s, e, &mut nodes)?,
                (8, Wire::Len(s, e)) => function.doc_string = Some(self.string(s, e)?),
                (9, Wire::Len(s, e)) => function.opset_import.push(self.opset(s, e)?),
                (10, Wire::Len(s, e)) => function.domain = Some(self.string(s, e)?),
                (13, Wire::Len(s, e)) => function.overload = Some(self.string(s, e)?),
                (12, Wire::Len(s, e)) => value_info.push(self.value_info(s, e)?),
                (14, Wire::Len(s, e)) => function.metadata_props.push(self.pair(s, e)?),
                _ => self.unknown("FunctionProto", number, wire),
            }
        }
        let saved = self.scopes.enter_function();
        for name in inputs {
            let value = self.define(body, name, ValueDef::Input);
            self.model.graphs[body].inputs.push(ValueInfo {
                value: Some(value),
                ..ValueInfo::default()
            });
        }
        self.nodes(body, nodes)?;
        for name in outputs {
            let value = self.resolve(body, name, "function output");
            self.model.graphs[body].outputs.push(ValueInfo {
                value: Some(value),
                ..ValueInfo::default()
            });
        }
        let value_info = self.resolve_infos(body, value_info, "value_info");
        self.model.graphs[body].value_info = value_info;
        for (s, e) in attribute_proto {
            let a = self.attribute(s, e, GraphOwner::Function(id), body, None)?;
            function.attribute_proto.push(a);
        }
        self.scopes.restore(saved);
        self.leave();
        Ok(self.model.function_arena.push(function))
    }

    fn graph(&mut self, start: usize, end: usize, owner: GraphOwner) -> Result<GraphId> {
        self.enter()?;
        let id = self.model.graphs.push(Graph::new(owner));
        let mut nodes = PendingNodes::default();
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let mut value_info = Vec::new();
        let mut initializers = Vec::new();
        let mut sparse_initializers = Vec::new();
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => self.pending_node(id, s, e, &mut nodes)?,
                (2, Wire::Len(s, e)) => self.model.graphs[id].name = Some(self.string(s, e)?),
                (5, Wire::Len(s, e)) => {
                    self.enter()?;
                    let (name, tensor) = self.tensor(s, e, true)?;
                    self.leave();
                    initializers.push((name, tensor));
                }
                (15, Wire::Len(s, e)) => {
                    let (name, tensor) = self.sparse(s, e, true)?;
                    sparse_initializers.push((name, tensor));
                }
                (10, Wire::Len(s, e)) => {
                    self.model.graphs[id].doc_string = Some(self.string(s, e)?)
                }
                (11, Wire::Len(s, e)) => inputs.push(self.value_info(s, e)?),
                (12, Wire::Len(s, e)) => outputs.push(self.value_info(s, e)?),
                (13, Wire::Len(s, e)) => value_info.push(self.value_info(s, e)?),
                (14, Wire::Len(s, e)) => {
                    let a = self.annotation(s, e)?;
                    self.model.graphs[id].quantization_annotation.push(a);
                }
                (16, Wire::Len(s, e)) => {
                    let p = self.pair(s, e)?;
                    self.model.graphs[id].metadata_props.push(p);
                }
                _ => self.unknown("GraphProto", number, wire),
            }
        }

        self.scopes.enter_graph();
        let mut graph_inputs = Vec::with_capacity(inputs.len());
        for PendingInfo { name, mut info } in inputs {
            info.value = name.map(|n| self.define(id, n, ValueDef::Input));
            graph_inputs.push(info);
        }
        let mut graph_initializers = Vec::with_capacity(initializers.len());
        for (name, tensor) in initializers {
            let value = name.map(|n| self.define_initializer(id, n));
            graph_initializers.push(Initializer { value, tensor });
        }
        let mut graph_sparse = Vec::with_capacity(sparse_initializers.len());
        for (name, tensor) in sparse_initializers {
            let value = name.map(|n| self.define_initializer(id, n));
            graph_sparse.push(SparseInitializer { value, tensor });
        }
        {
            let g = &mut self.model.graphs[id];
            g.inputs = graph_inputs;
            g.initializers = graph_initializers;
            g.sparse_initializers = graph_sparse;
        }
        self.nodes(id, nodes)?;
        let outputs = self.resolve_infos(id, outputs, "graph output");
        let value_info = self.resolve_infos(id, value_info, "value_info");
        let g = &mut self.model.graphs[id];
        g.outputs = outputs;
        g.value_info = value_info;
        self.scopes.leave_graph(owner);
        self.leave();
        Ok(id)
    }

    /// Defines every node's outputs (so subgraphs and out-of-order nodes can refer to
    /// any name of the graph), then reads attributes and resolves inputs.
    fn nodes(&mut self, graph: GraphId, pending: PendingNodes<'a>) -> Result<()> {
        self.scopes.reserve(pending.outputs.len());
        self.model.values.reserve(pending.outputs.len());
        let mut start = 0;
        for &(id, _, outputs_end, _) in &pending.nodes {
            let end = outputs_end as usize;
            let outputs = pending.outputs[start..end]
                .iter()
                .map(|&name| {
                    (!name.is_empty()).then(|| self.define(graph, name, ValueDef::Node(id)))
                })
                .collect();
            self.model.nodes[id].outputs = outputs;
            start = end;
        }
        // Attributes are one message below the node, which is one below the graph.
        self.enter()?;
        let (mut inputs_start, mut attributes_start) = (0, 0);
        for &(id, inputs_end, _, attributes_end) in &pending.nodes {
            let (inputs_end, attributes_end) = (inputs_end as usize, attributes_end as usize);
            let spans = &pending.attributes[attributes_start..attributes_end];
            let mut attrs = Vec::with_capacity(spans.len());
            for &(s, e) in spans {
                attrs.push(self.attribute(s, e, GraphOwner::Node(id), graph, Some(id))?);
            }
            let inputs = pending.inputs[inputs_start..inputs_end]
                .iter()
                .map(|&name| (!name.is_empty()).then(|| self.resolve(graph, name, "node input")))
                .collect();
            let node = &mut self.model.nodes[id];
            node.attributes = attrs;
            node.inputs = inputs;
            (inputs_start, attributes_start) = (inputs_end, attributes_end);
        }
        self.leave();
        self.model.graphs[graph].nodes = pending.nodes.iter().map(|n| n.0).collect();
        Ok(())
    }

    fn pending_node(
        &mut self,
        graph: GraphId,
        start: usize,
        end: usize,
        pending: &mut PendingNodes<'a>,
    ) -> Result<()> {
        self.enter()?;
        let mut node = Node {
            graph,
            op_type: None,
            domain: None,
            overload: None,
            name: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            attributes: Vec::new(),
            doc_string: None,
            metadata_props: Vec::new(),
            device_configurations: Vec::new(),
        };
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => pending.inputs.push(self.str(s, e)?),
                (2, Wire::Len(s, e)) => pending.outputs.push(self.str(s, e)?),
                (3, Wire::Len(s, e)) => node.name = Some(self.string(s, e)?),
                (4, Wire::Len(s, e)) => node.op_type = Some(self.string(s, e)?),
                (7, Wire::Len(s, e)) => node.domain = Some(self.string(s, e)?),
                (8, Wire::Len(s, e)) => node.overload = Some(self.string(s, e)?),
                (5, Wire::Len(s, e)) => pending.attributes.push((s, e)),
                (6, Wire::Len(s, e)) => node.doc_string = Some(self.string(s, e)?),
                (9, Wire::Len(s, e)) => node.metadata_props.push(self.pair(s, e)?),
                (10, Wire::Len(s, e)) => node
                    .device_configurations
                    .push(self.node_device_configuration(s, e)?),
                _ => self.unknown("NodeProto", number, wire),
            }
        }
        self.leave();
        let id = self.model.nodes.push(node);
        let end = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        pending.nodes.push((
            id,
            end(pending.inputs.len()),
            end(pending.outputs.len()),
            end(pending.attributes.len()),
        ));
        Ok(())
    }

    fn attribute(
        &mut self,
        start: usize,
        end: usize,
        owner: GraphOwner,
        graph: GraphId,
        node: Option<NodeId>,
    ) -> Result<Attribute> {
        self.enter()?;
        let mut name = None;
        let mut doc_string = None;
        let mut raw = RawAttribute::default();
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => name = Some(self.string(s, e)?),
                (21, Wire::Len(s, e)) => raw.ref_attr_name = Some(self.string(s, e)?),
                (13, Wire::Len(s, e)) => doc_string = Some(self.string(s, e)?),
                (20, Wire::Varint(v)) => raw.r#type = Some(v as i32),
                (2, Wire::Fixed32(v)) => raw.f = Some(f32::from_bits(v)),
                (3, Wire::Varint(v)) => raw.i = Some(v as i64),
                (4, Wire::Len(s, e)) => raw.s = Some(self.input.bytes(s, e)),
                (5, Wire::Len(s, e)) => {
                    self.enter()?;
                    let t = self.tensor(s, e, false)?.1;
                    self.leave();
                    if raw.t.replace(t).is_some() {
                        self.unknown("AttributeProto (t given twice)", number, wire);
                    }
                }
                (6, Wire::Len(s, e)) => {
                    let g = self.graph(s, e, owner)?;
                    if raw.g.replace(g).is_some() {
                        self.unknown("AttributeProto (g given twice)", number, wire);
                    }
                }
                (22, Wire::Len(s, e)) => raw.sparse_tensor = Some(self.sparse(s, e, false)?.1),
                (14, Wire::Len(s, e)) => raw.tp = Some(self.ty(s, e)?),
                (7, w) if push_fixed32(&self.input, w, &mut raw.floats)? => {}
                (8, w) if push_varints(&self.input, w, &mut raw.ints, |v| v as i64)? => {}
                (9, Wire::Len(s, e)) => raw.strings.push(self.input.bytes(s, e)),
                (10, Wire::Len(s, e)) => {
                    self.enter()?;
                    let t = self.tensor(s, e, false)?.1;
                    self.leave();
                    raw.tensors.push(t);
                }
                (11, Wire::Len(s, e)) => {
                    let g = self.graph(s, e, owner)?;
                    raw.graphs.push(g);
                }
                (23, Wire::Len(s, e)) => raw.sparse_tensors.push(self.sparse(s, e, false)?.1),
                (15, Wire::Len(s, e)) => raw.type_protos.push(self.ty(s, e)?),
                _ => self.unknown("AttributeProto", number, wire),
            }
        }
        self.leave();
        let kind = self.attribute_kind(name.as_deref(), raw, graph, node);
        Ok(Attribute {
            name,
            doc_string,
            kind,
        })
    }

    /// A tensor, and (for initializers) its name taken out to live on the value.
    fn tensor(
        &mut self,
        start: usize,
        end: usize,
        take_name: bool,
    ) -> Result<(Option<&'a str>, Tensor)> {
        let mut t = Tensor::default();
        let mut name = None;
        let mut fields = self.input.fields(start, end);
        let input = &self.input;
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, w) if push_varints(input, w, &mut t.dims, |v| v as i64)? => {}
                (2, Wire::Varint(v)) => t.data_type = Some(v as i32),
                (3, Wire::Len(s, e)) => {
                    let mut seg = Segment::default();
                    let mut f = input.fields(s, e);
                    while let Some((n, w)) = f.next_field()? {
                        match (n, w) {
                            (1, Wire::Varint(v)) => seg.begin = Some(v as i64),
                            (2, Wire::Varint(v)) => seg.end = Some(v as i64),
                            _ => self.model.unknown_fields.push(UnknownField {
                                message: "TensorProto.Segment",
                                field: n,
                                wire_type: w.wire_type(),
                            }),
                        }
                    }
                    t.segment = Some(seg);
                }
                (4, w) if push_fixed32(input, w, &mut t.float_data)? => {}
                (5, w) if push_varints(input, w, &mut t.int32_data, |v| v as i32)? => {}
                (6, Wire::Len(s, e)) => t.string_data.push(input.bytes(s, e)),
                (7, w) if push_varints(input, w, &mut t.int64_data, |v| v as i64)? => {}
                (8, Wire::Len(s, e)) => name = Some(input.str(s, e, "a tensor name")?),
                (12, Wire::Len(s, e)) => t.doc_string = Some(input.string(s, e, "a doc string")?),
                (9, Wire::Len(s, e)) => t.raw_data = Some(input.bytes(s, e)),
                (13, Wire::Len(s, e)) => {
                    t.external_data
                        .push(pair(input, s, e, &mut self.model.unknown_fields)?)
                }
                (14, Wire::Varint(v)) => t.data_location = Some(v as i32),
                (10, w) if push_fixed64(input, w, &mut t.double_data)? => {}
                (11, w) if push_varints(input, w, &mut t.uint64_data, |v| v)? => {}
                (16, Wire::Len(s, e)) => {
                    t.metadata_props
                        .push(pair(input, s, e, &mut self.model.unknown_fields)?)
                }
                _ => self.model.unknown_fields.push(UnknownField {
                    message: "TensorProto",
                    field: number,
                    wire_type: wire.wire_type(),
                }),
            }
        }
        if !take_name {
            t.name = name.map(str::to_owned);
        }
        Ok((name.filter(|_| take_name), t))
    }

    fn sparse(
        &mut self,
        start: usize,
        end: usize,
        take_name: bool,
    ) -> Result<(Option<&'a str>, SparseTensor)> {
        self.enter()?;
        let mut st = SparseTensor::default();
        let mut name = None;
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => {
                    self.enter()?;
                    let (n, t) = self.tensor(s, e, take_name)?;
                    self.leave();
                    name = n;
                    st.values = Some(t);
                }
                (2, Wire::Len(s, e)) => {
                    self.enter()?;
                    st.indices = Some(self.tensor(s, e, false)?.1);
                    self.leave();
                }
                (3, w) if push_varints(&self.input, w, &mut st.dims, |v| v as i64)? => {}
                _ => self.unknown("SparseTensorProto", number, wire),
            }
        }
        self.leave();
        Ok((name, st))
    }

    fn value_info(&mut self, start: usize, end: usize) -> Result<PendingInfo<'a>> {
        self.enter()?;
        let mut name = None;
        let mut info = ValueInfo::default();
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => name = Some(self.str(s, e)?),
                (2, Wire::Len(s, e)) => info.ty = Some(self.ty(s, e)?),
                (3, Wire::Len(s, e)) => info.doc_string = Some(self.string(s, e)?),
                (4, Wire::Len(s, e)) => info.metadata_props.push(self.pair(s, e)?),
                _ => self.unknown("ValueInfoProto", number, wire),
            }
        }
        self.leave();
        Ok(PendingInfo { name, info })
    }

    fn ty(&mut self, start: usize, end: usize) -> Result<Type> {
        self.enter()?;
        let mut t = Type::default();
        let mut fields = self.input.fields(start, end);
        while let Some((number, wire)) = fields.next_field()? {
            match (number, wire) {
                (1, Wire::Len(s, e)) => t.value = Some(TypeValue::Tensor(self.tensor_type(s, e)?)),
                (8, Wire::Len(s, e)) => {
                    t.value = Some(TypeValue::SparseTensor(self.tensor_type(s, e)?))
                }
                (4, Wire::Len(s, e)) => {
                    t.value = Some(TypeValue::Sequence(self.elem_type(
                        s,
                        e,
                        "TypeProto.Sequence",
                    )?))
                }
                (9, Wire::Len(s, e)) => {
                    t.value = Some(TypeValue::Optional(self.elem_type(
                        s,
                        e,
                        "TypeProto.Optional",
                    )?))
                }
                (5, Wire::Len(s, e)) => {
                    self.enter()?;
                    let mut key_type = None;
                    let mut value_type = None;
                    let mut f = self.input.fields(s, e);
                    while let Some((n, w)) = f.next_field()? {
                        match (n, w) {
                            (1, Wire::Varint(v)) => key_type = Some(v as i32),
                            (2, Wire::Len(s, e)) => value_type = Some(Box::new(self.ty(s, e)?)),
                            _ => self.unknown("TypeProto.Map", n, w),
                        }
                    }
                    self.leave();
                    t.value = Some(TypeValue::Map {
                        key_type,
                        value_type,
                    });
                }
                (7, Wire::Len(s, e)) => {
                    self.enter()?;
                    let mut domain = None;
                    let mut name = None;
                    let mut f = self.input.fields(s, e);
                    while let Some((n, w)) = f.next_field()? {
                        match (n, w) {
                            (1, Wire::Len(s, e)) => domain = Some(self.string(s, e)?),
                            (2, Wire::Len(s, e)) => name = Some(self.string(s, e)?),
                            _ => self.unknown("TypeProto.Opaque", n, w),
                        }
                    }
                    self.leave();
                    t.value = Some(TypeValue::Opaque { domain, name });
                }
                (6, Wire::Len(s, e)) => t.denotation = Some(self.string(s, e)?),
                _ => self.unknown("TypeProto", number, wire),
            }
        }
        self.leave();
        Ok(t)
    }

    fn elem_type(
        &mut self,
        start: usize,
        end: usize,
        message: &'static str,
    ) -> Result<Option<Box<Type>>> {
        self.enter()?;
        let mut elem = None;
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Len(s, e)) => elem = Some(Box::new(self.ty(s, e)?)),
                _ => self.unknown(message, n, w),
            }
        }
        self.leave();
        Ok(elem)
    }

    fn tensor_type(&mut self, start: usize, end: usize) -> Result<TensorType> {
        self.enter()?;
        let mut t = TensorType::default();
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Varint(v)) => t.elem_type = Some(v as i32),
                (2, Wire::Len(s, e)) => t.shape = Some(self.shape(s, e)?),
                _ => self.unknown("TypeProto.Tensor", n, w),
            }
        }
        self.leave();
        Ok(t)
    }

    fn shape(&mut self, start: usize, end: usize) -> Result<Shape> {
        self.enter()?;
        let mut shape = Shape::default();
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Len(s, e)) => {
                    let mut dim = Dim::default();
                    let mut d = self.input.fields(s, e);
                    while let Some((n, w)) = d.next_field()? {
                        match (n, w) {
                            (1, Wire::Varint(v)) => dim.value = Some(DimValue::Value(v as i64)),
                            (2, Wire::Len(s, e)) => {
                                dim.value = Some(DimValue::Param(self.string(s, e)?))
                            }
                            (3, Wire::Len(s, e)) => dim.denotation = Some(self.string(s, e)?),
                            _ => self.unknown("TensorShapeProto.Dimension", n, w),
                        }
                    }
                    shape.dims.push(dim);
                }
                _ => self.unknown("TensorShapeProto", n, w),
            }
        }
        self.leave();
        Ok(shape)
    }

    fn opset(&mut self, start: usize, end: usize) -> Result<OpsetId> {
        let mut o = OpsetId::default();
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Len(s, e)) => o.domain = Some(self.string(s, e)?),
                (2, Wire::Varint(v)) => o.version = Some(v as i64),
                _ => self.unknown("OperatorSetIdProto", n, w),
            }
        }
        Ok(o)
    }

    fn pair(&mut self, start: usize, end: usize) -> Result<StringPair> {
        pair(&self.input, start, end, &mut self.model.unknown_fields)
    }

    fn annotation(&mut self, start: usize, end: usize) -> Result<TensorAnnotation> {
        let mut a = TensorAnnotation::default();
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Len(s, e)) => a.tensor_name = Some(self.string(s, e)?),
                (2, Wire::Len(s, e)) => a.quant_parameter_tensor_names.push(self.pair(s, e)?),
                _ => self.unknown("TensorAnnotation", n, w),
            }
        }
        Ok(a)
    }

    fn device_configuration(&mut self, start: usize, end: usize) -> Result<DeviceConfiguration> {
        let mut c = DeviceConfiguration::default();
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Len(s, e)) => c.name = Some(self.string(s, e)?),
                (2, Wire::Varint(v)) => c.num_devices = Some(v as i32),
                (3, Wire::Len(s, e)) => c.device.push(self.string(s, e)?),
                _ => self.unknown("DeviceConfigurationProto", n, w),
            }
        }
        Ok(c)
    }

    fn node_device_configuration(
        &mut self,
        start: usize,
        end: usize,
    ) -> Result<NodeDeviceConfiguration> {
        self.enter()?;
        let mut c = NodeDeviceConfiguration::default();
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Len(s, e)) => c.configuration_id = Some(self.string(s, e)?),
                (2, Wire::Len(s, e)) => c.sharding_spec.push(self.sharding_spec(s, e)?),
                (3, Wire::Varint(v)) => c.pipeline_stage = Some(v as i32),
                _ => self.unknown("NodeDeviceConfigurationProto", n, w),
            }
        }
        self.leave();
        Ok(c)
    }

    fn sharding_spec(&mut self, start: usize, end: usize) -> Result<ShardingSpec> {
        self.enter()?;
        let mut spec = ShardingSpec::default();
        let mut f = self.input.fields(start, end);
        while let Some((n, w)) = f.next_field()? {
            match (n, w) {
                (1, Wire::Len(s, e)) => spec.tensor_name = Some(self.string(s, e)?),
                (2, w) if push_varints(&self.input, w, &mut spec.device, |v| v as i64)? => {}
                (3, Wire::Len(s, e)) => {
                    let mut entry = IntIntList::default();
                    let mut g = self.input.fields(s, e);
                    while let Some((n, w)) = g.next_field()? {
                        match (n, w) {
                            (1, Wire::Varint(v)) => entry.key = Some(v as i64),
                            (2, w)
                                if push_varints(&self.input, w, &mut entry.value, |v| {
                                    v as i64
                                })? => {}
                            _ => self.unknown("IntIntListEntryProto", n, w),
                        }
                    }
                    spec.index_to_device_group_map.push(entry);
                }
                (4, Wire::Len(s, e)) => {
                    let mut dim = ShardedDim::default();
                    let mut g = self.input.fields(s, e);
                    while let Some((n, w)) = g.next_field()? {
                        match (n, w) {
                            (1, Wire::Varint(v)) => dim.axis = Some(v as i64),
                            (2, Wire::Len(s, e)) => {
                                let mut simple = SimpleShardedDim::default();
                                let mut h = self.input.fields(s, e);
                                while let Some((n, w)) = h.next_field()? {
                                    match (n, w) {
                                        (1, Wire::Varint(v)) => {
                                            simple.dim = Some(DimValue::Value(v as i64))
                                        }
                                        (2, Wire::Len(s, e)) => {
                                            simple.dim = Some(DimValue::Param(self.string(s, e)?))
                                        }
                                        (3, Wire::Varint(v)) => simple.num_shards = Some(v as i64),
                                        _ => self.unknown("SimpleShardedDimProto", n, w),
                                    }
                                }
                                dim.simple_sharding.push(simple);
                            }
                            _ => self.unknown("ShardedDimProto", n, w),
                        }
                    }
                    spec.sharded_dim.push(dim);
                }
                _ => self.unknown("ShardingSpecProto", n, w),
            }
        }
        self.leave();
        Ok(spec)
    }
}

fn pair(
    input: &Input<'_>,
    start: usize,
    end: usize,
    unknown: &mut Vec<UnknownField>,
) -> Result<StringPair> {
    let mut p = StringPair::default();
    let mut f = input.fields(start, end);
    while let Some((n, w)) = f.next_field()? {
        match (n, w) {
            (1, Wire::Len(s, e)) => p.key = Some(input.string(s, e, "a key")?),
            (2, Wire::Len(s, e)) => p.value = Some(input.string(s, e, "a value")?),
            _ => unknown.push(UnknownField {
                message: "StringStringEntryProto",
                field: n,
                wire_type: w.wire_type(),
            }),
        }
    }
    Ok(p)
}

impl<'a> Resolving for Importer<'a> {
    fn resolving(&mut self) -> (&mut Arena<ValueId, Value>, &mut Resolver, &mut Vec<Found>) {
        (&mut self.model.values, &mut self.scopes, &mut self.pending)
    }
}
