//! ModelProto → IR. Best effort: anything the wire format allows becomes IR, and what
//! is odd (undefined names, malformed attributes, fields a newer ONNX added) becomes a
//! diagnostic instead of an error.

use std::collections::HashMap;

use super::proto as pb;
use crate::diag::{Diagnostic, Location, Severity};
use crate::ir::*;

pub(super) struct Importer {
    pub model: Model,
    pub diagnostics: Vec<Diagnostic>,
    /// Names visible at the current point, innermost scope last. A function body starts
    /// a fresh stack: it sees nothing outside itself.
    scopes: Vec<HashMap<String, ValueId>>,
    /// Pending diagnostics whose location is described once the IR is complete.
    pending: Vec<(Severity, &'static str, String, Location)>,
}

impl Importer {
    pub fn new() -> Self {
        Self {
            model: Model::default(),
            diagnostics: Vec::new(),
            scopes: Vec::new(),
            pending: Vec::new(),
        }
    }

    pub fn model(mut self, m: pb::ModelProto) -> (Model, Vec<Diagnostic>) {
        self.model.ir_version = m.ir_version;
        self.model.opset_import = m.opset_import.into_iter().map(opset).collect();
        self.model.producer_name = m.producer_name;
        self.model.producer_version = m.producer_version;
        self.model.domain = m.domain;
        self.model.model_version = m.model_version;
        self.model.doc_string = m.doc_string;
        self.model.metadata_props = pairs(m.metadata_props);
        self.model.configuration = m
            .configuration
            .into_iter()
            .map(|c| DeviceConfiguration {
                name: c.name,
                num_devices: c.num_devices,
                device: c.device,
            })
            .collect();
        // Functions first: they see nothing of the main graph.
        for f in m.functions {
            let id = self.function(f);
            self.model.functions.push(id);
        }
        if let Some(g) = m.graph {
            let id = self.graph(g, GraphOwner::Model);
            self.model.graph = Some(id);
        }
        for (i, t) in m.training_info.into_iter().enumerate() {
            // Training graphs may read the main graph's values (its initializers).
            let main_scope = self.model.graph.map(|g| self.scope_of(g));
            let scopes = std::mem::take(&mut self.scopes);
            self.scopes.extend(main_scope);
            let info = TrainingInfo {
                initialization: t
                    .initialization
                    .map(|g| self.graph(g, GraphOwner::Training(i))),
                algorithm: t.algorithm.map(|g| self.graph(g, GraphOwner::Training(i))),
                initialization_binding: pairs(t.initialization_binding),
                update_binding: pairs(t.update_binding),
            };
            self.scopes = scopes;
            self.model.training_info.push(info);
        }
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        for (severity, code, message, location) in std::mem::take(&mut self.pending) {
            let location = location.describe(&self.model);
            diagnostics.push(Diagnostic::new(severity, code, message, location));
        }
        (self.model, diagnostics)
    }

    fn report(&mut self, severity: Severity, code: &'static str, message: String, at: Location) {
        self.pending.push((severity, code, message, at));
    }

    /// The names a finished graph defines (for training graphs, which read the main one).
    fn scope_of(&self, graph: GraphId) -> HashMap<String, ValueId> {
        let mut scope = HashMap::new();
        for (id, v) in self.model.values.iter() {
            if v.graph == graph && v.def != ValueDef::Undefined {
                scope.entry(v.name.clone()).or_insert(id);
            }
        }
        scope
    }

    fn function(&mut self, f: pb::FunctionProto) -> FunctionId {
        let id = FunctionId::from_index(self.model.function_arena.len());
        let scopes = std::mem::take(&mut self.scopes);
        let body = self.model.graphs.push(Graph::new(GraphOwner::Function(id)));
        self.scopes.push(HashMap::new());
        for name in f.input {
            let value = self.define(body, name, ValueDef::Input);
            self.model.graphs[body].inputs.push(ValueInfo {
                value: Some(value),
                ..ValueInfo::default()
            });
        }
        self.nodes(body, f.node);
        let outputs = f
            .output
            .into_iter()
            .map(|name| ValueInfo {
                value: Some(self.resolve(body, name, "function output")),
                ..ValueInfo::default()
            })
            .collect();
        self.model.graphs[body].outputs = outputs;
        let value_info = self.value_infos(body, f.value_info, "value_info");
        self.model.graphs[body].value_info = value_info;
        let attribute_proto = f
            .attribute_proto
            .into_iter()
            .map(|a| self.attribute(a, GraphOwner::Function(id), body, None))
            .collect();
        self.scopes = scopes;
        self.model.function_arena.push(Function {
            name: f.name,
            domain: f.domain,
            overload: f.overload,
            body,
            attribute: f.attribute,
            attribute_proto,
            doc_string: f.doc_string,
            opset_import: f.opset_import.into_iter().map(opset).collect(),
            metadata_props: pairs(f.metadata_props),
        })
    }

    fn graph(&mut self, g: pb::GraphProto, owner: GraphOwner) -> GraphId {
        let id = self.model.graphs.push(Graph::new(owner));
        self.scopes.push(HashMap::new());

        let mut inputs = Vec::with_capacity(g.input.len());
        for vi in g.input {
            let value = vi.name.map(|n| self.define(id, n, ValueDef::Input));
            inputs.push(value_info(
                value,
                vi.r#type,
                vi.doc_string,
                vi.metadata_props,
            ));
        }
        let mut initializers = Vec::with_capacity(g.initializer.len());
        for mut t in g.initializer {
            let value = t.name.take().map(|n| self.define_initializer(id, n));
            initializers.push(Initializer {
                value,
                tensor: tensor(t),
            });
        }
        let mut sparse_initializers = Vec::with_capacity(g.sparse_initializer.len());
        for mut s in g.sparse_initializer {
            let value = s
                .values
                .as_mut()
                .and_then(|v| v.name.take())
                .map(|n| self.define_initializer(id, n));
            sparse_initializers.push(SparseInitializer {
                value,
                tensor: sparse(s),
            });
        }
        {
            let graph = &mut self.model.graphs[id];
            graph.name = g.name;
            graph.doc_string = g.doc_string;
            graph.inputs = inputs;
            graph.initializers = initializers;
            graph.sparse_initializers = sparse_initializers;
            graph.quantization_annotation = g
                .quantization_annotation
                .into_iter()
                .map(|a| TensorAnnotation {
                    tensor_name: a.tensor_name,
                    quant_parameter_tensor_names: pairs(a.quant_parameter_tensor_names),
                })
                .collect();
            graph.metadata_props = pairs(g.metadata_props);
        }
        self.nodes(id, g.node);
        let outputs = self.value_infos(id, g.output, "graph output");
        let value_info = self.value_infos(id, g.value_info, "value_info");
        let graph = &mut self.model.graphs[id];
        graph.outputs = outputs;
        graph.value_info = value_info;
        self.scopes.pop();
        id
    }

    /// Nodes of one graph: first every node and its outputs (so that subgraphs, and
    /// nodes out of order, can refer to any name the graph defines), then their inputs
    /// and attributes.
    fn nodes(&mut self, graph: GraphId, nodes: Vec<pb::NodeProto>) {
        let mut ids = Vec::with_capacity(nodes.len());
        let mut rest = Vec::with_capacity(nodes.len());
        for n in nodes {
            let id = self.model.nodes.push(Node {
                graph,
                op_type: n.op_type,
                domain: n.domain,
                overload: n.overload,
                name: n.name,
                inputs: Vec::new(),
                outputs: Vec::new(),
                attributes: Vec::new(),
                doc_string: n.doc_string,
                metadata_props: pairs(n.metadata_props),
                device_configurations: n
                    .device_configurations
                    .into_iter()
                    .map(node_device_configuration)
                    .collect(),
            });
            let outputs = n
                .output
                .into_iter()
                .map(|name| {
                    (!name.is_empty()).then(|| self.define(graph, name, ValueDef::Node(id)))
                })
                .collect();
            self.model.nodes[id].outputs = outputs;
            ids.push(id);
            rest.push((n.input, n.attribute));
        }
        for (id, (inputs, attributes)) in ids.iter().copied().zip(rest) {
            let attributes = attributes
                .into_iter()
                .map(|a| self.attribute(a, GraphOwner::Node(id), graph, Some(id)))
                .collect();
            let inputs = inputs
                .into_iter()
                .map(|name| (!name.is_empty()).then(|| self.resolve(graph, name, "node input")))
                .collect();
            let node = &mut self.model.nodes[id];
            node.attributes = attributes;
            node.inputs = inputs;
        }
        self.model.graphs[graph].nodes = ids;
    }

    fn value_infos(
        &mut self,
        graph: GraphId,
        infos: Vec<pb::ValueInfoProto>,
        what: &str,
    ) -> Vec<ValueInfo> {
        infos
            .into_iter()
            .map(|vi| {
                let value = vi.name.map(|n| self.resolve(graph, n, what));
                value_info(value, vi.r#type, vi.doc_string, vi.metadata_props)
            })
            .collect()
    }

    fn define(&mut self, graph: GraphId, name: String, def: ValueDef) -> ValueId {
        let id = self.model.values.push(Value {
            name: name.clone(),
            graph,
            def,
        });
        let duplicate = self
            .scopes
            .last_mut()
            .is_some_and(|scope| match scope.entry(name) {
                std::collections::hash_map::Entry::Occupied(_) => true,
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(id);
                    false
                }
            });
        if duplicate {
            let name = &self.model.values[id].name;
            let message = format!("{name:?} is defined more than once in this graph");
            self.report(
                Severity::Warning,
                "import.duplicate-name",
                message,
                Location {
                    graph: Some(graph),
                    ..Location::default()
                },
            );
        }
        id
    }

    /// An initializer defines its value, or (same name as a graph input) gives that
    /// input a default.
    fn define_initializer(&mut self, graph: GraphId, name: String) -> ValueId {
        if let Some(&existing) = self.scopes.last().and_then(|s| s.get(&name))
            && self.model.values[existing].def == ValueDef::Input
        {
            return existing;
        }
        self.define(graph, name, ValueDef::Initializer)
    }

    fn resolve(&mut self, graph: GraphId, name: String, what: &str) -> ValueId {
        for scope in self.scopes.iter().rev() {
            if let Some(&id) = scope.get(&name) {
                return id;
            }
        }
        self.report(
            Severity::Error,
            "import.undefined-name",
            format!("{what} {name:?} is not defined in this scope"),
            Location {
                graph: Some(graph),
                ..Location::default()
            },
        );
        let id = self.model.values.push(Value {
            name: name.clone(),
            graph,
            def: ValueDef::Undefined,
        });
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, id);
        }
        id
    }

    fn attribute(
        &mut self,
        a: pb::AttributeProto,
        owner: GraphOwner,
        graph: GraphId,
        node: Option<NodeId>,
    ) -> Attribute {
        let present = [
            a.f.is_some(),
            a.i.is_some(),
            a.s.is_some(),
            a.t.is_some(),
            a.g.is_some(),
            a.sparse_tensor.is_some(),
            a.tp.is_some(),
            !a.floats.is_empty(),
            !a.ints.is_empty(),
            !a.strings.is_empty(),
            !a.tensors.is_empty(),
            !a.graphs.is_empty(),
            !a.sparse_tensors.is_empty(),
            !a.type_protos.is_empty(),
        ];
        let count = present.iter().filter(|&&p| p).count();
        let ty = a.r#type.and_then(AttrType::from_proto);
        let well_formed = match (&a.ref_attr_name, ty) {
            (Some(_), Some(_)) => count == 0,
            (None, Some(t)) => {
                let slot = match t {
                    AttrType::Float => 0,
                    AttrType::Int => 1,
                    AttrType::String => 2,
                    AttrType::Tensor => 3,
                    AttrType::Graph => 4,
                    AttrType::SparseTensor => 5,
                    AttrType::TypeProto => 6,
                    AttrType::Floats => 7,
                    AttrType::Ints => 8,
                    AttrType::Strings => 9,
                    AttrType::Tensors => 10,
                    AttrType::Graphs => 11,
                    AttrType::SparseTensors => 12,
                    AttrType::TypeProtos => 13,
                };
                // A list may be empty; a single value must be there.
                (count == 1 && present[slot]) || (count == 0 && slot >= 7)
            }
            _ => false,
        };
        let name = a.name;
        let doc_string = a.doc_string;
        let sub = |this: &mut Self, g: pb::GraphProto| this.graph(g, owner);
        let kind = match (well_formed, a.ref_attr_name, ty) {
            (true, Some(r), Some(t)) => AttrKind::Ref { name: r, ty: t },
            (true, None, Some(t)) => AttrKind::Value(match t {
                AttrType::Float => AttrValue::Float(a.f.unwrap_or_default()),
                AttrType::Int => AttrValue::Int(a.i.unwrap_or_default()),
                AttrType::String => AttrValue::String(a.s.unwrap_or_default()),
                AttrType::Tensor => AttrValue::Tensor(Box::new(tensor(a.t.unwrap_or_default()))),
                AttrType::Graph => AttrValue::Graph(sub(self, a.g.unwrap_or_default())),
                AttrType::SparseTensor => {
                    AttrValue::SparseTensor(Box::new(sparse(a.sparse_tensor.unwrap_or_default())))
                }
                AttrType::TypeProto => AttrValue::TypeProto(ty_of(a.tp.unwrap_or_default())),
                AttrType::Floats => AttrValue::Floats(a.floats),
                AttrType::Ints => AttrValue::Ints(a.ints),
                AttrType::Strings => AttrValue::Strings(a.strings),
                AttrType::Tensors => {
                    AttrValue::Tensors(a.tensors.into_iter().map(tensor).collect())
                }
                AttrType::Graphs => {
                    AttrValue::Graphs(a.graphs.into_iter().map(|g| sub(self, g)).collect())
                }
                AttrType::SparseTensors => {
                    AttrValue::SparseTensors(a.sparse_tensors.into_iter().map(sparse).collect())
                }
                AttrType::TypeProtos => {
                    AttrValue::TypeProtos(a.type_protos.into_iter().map(ty_of).collect())
                }
            }),
            (_, ref_attr_name, _) => {
                let message = format!(
                    "attribute {:?} is malformed (type {:?}, {count} value fields{}); it is kept as it is",
                    name.as_deref().unwrap_or(""),
                    a.r#type,
                    if ref_attr_name.is_some() {
                        ", with ref_attr_name"
                    } else {
                        ""
                    }
                );
                self.report(
                    Severity::Warning,
                    "import.malformed-attribute",
                    message,
                    Location {
                        graph: Some(graph),
                        node,
                        ..Location::default()
                    },
                );
                AttrKind::Raw(Box::new(RawAttribute {
                    ref_attr_name,
                    r#type: a.r#type,
                    f: a.f,
                    i: a.i,
                    s: a.s,
                    t: a.t.map(tensor),
                    g: a.g.map(|g| sub(self, g)),
                    sparse_tensor: a.sparse_tensor.map(sparse),
                    tp: a.tp.map(ty_of),
                    floats: a.floats,
                    ints: a.ints,
                    strings: a.strings,
                    tensors: a.tensors.into_iter().map(tensor).collect(),
                    graphs: a.graphs.into_iter().map(|g| sub(self, g)).collect(),
                    sparse_tensors: a.sparse_tensors.into_iter().map(sparse).collect(),
                    type_protos: a.type_protos.into_iter().map(ty_of).collect(),
                }))
            }
        };
        Attribute {
            name,
            doc_string,
            kind,
        }
    }
}

fn value_info(
    value: Option<ValueId>,
    ty: Option<pb::TypeProto>,
    doc_string: Option<String>,
    metadata_props: Vec<pb::StringStringEntryProto>,
) -> ValueInfo {
    ValueInfo {
        value,
        ty: ty.map(ty_of),
        doc_string,
        metadata_props: pairs(metadata_props),
    }
}

fn opset(o: pb::OperatorSetIdProto) -> OpsetId {
    OpsetId {
        domain: o.domain,
        version: o.version,
    }
}

fn pairs(p: Vec<pb::StringStringEntryProto>) -> Vec<StringPair> {
    p.into_iter()
        .map(|e| StringPair {
            key: e.key,
            value: e.value,
        })
        .collect()
}

pub(super) fn tensor(t: pb::TensorProto) -> Tensor {
    Tensor {
        dims: t.dims,
        data_type: t.data_type,
        segment: t.segment.map(|s| Segment {
            begin: s.begin,
            end: s.end,
        }),
        float_data: t.float_data,
        int32_data: t.int32_data,
        string_data: t.string_data,
        int64_data: t.int64_data,
        name: t.name,
        doc_string: t.doc_string,
        raw_data: t.raw_data,
        external_data: pairs(t.external_data),
        data_location: t.data_location,
        double_data: t.double_data,
        uint64_data: t.uint64_data,
        metadata_props: pairs(t.metadata_props),
    }
}

fn sparse(s: pb::SparseTensorProto) -> SparseTensor {
    SparseTensor {
        values: s.values.map(tensor),
        indices: s.indices.map(tensor),
        dims: s.dims,
    }
}

fn shape(s: pb::TensorShapeProto) -> Shape {
    use pb::tensor_shape_proto::dimension::Value as V;
    Shape {
        dims: s
            .dim
            .into_iter()
            .map(|d| Dim {
                value: d.value.map(|v| match v {
                    V::DimValue(v) => DimValue::Value(v),
                    V::DimParam(p) => DimValue::Param(p),
                }),
                denotation: d.denotation,
            })
            .collect(),
    }
}

fn ty_of(t: pb::TypeProto) -> Type {
    use pb::type_proto::Value as V;
    let boxed = |t: Option<Box<pb::TypeProto>>| t.map(|t| Box::new(ty_of(*t)));
    Type {
        denotation: t.denotation,
        value: t.value.map(|v| match v {
            V::TensorType(t) => TypeValue::Tensor(TensorType {
                elem_type: t.elem_type,
                shape: t.shape.map(shape),
            }),
            V::SparseTensorType(t) => TypeValue::SparseTensor(TensorType {
                elem_type: t.elem_type,
                shape: t.shape.map(shape),
            }),
            V::SequenceType(s) => TypeValue::Sequence(boxed(s.elem_type)),
            V::OptionalType(o) => TypeValue::Optional(boxed(o.elem_type)),
            V::MapType(m) => TypeValue::Map {
                key_type: m.key_type,
                value_type: boxed(m.value_type),
            },
            V::OpaqueType(o) => TypeValue::Opaque {
                domain: o.domain,
                name: o.name,
            },
        }),
    }
}

fn node_device_configuration(c: pb::NodeDeviceConfigurationProto) -> NodeDeviceConfiguration {
    use pb::simple_sharded_dim_proto::Dim as D;
    NodeDeviceConfiguration {
        configuration_id: c.configuration_id,
        pipeline_stage: c.pipeline_stage,
        sharding_spec: c
            .sharding_spec
            .into_iter()
            .map(|s| ShardingSpec {
                tensor_name: s.tensor_name,
                device: s.device,
                index_to_device_group_map: s
                    .index_to_device_group_map
                    .into_iter()
                    .map(|e| IntIntList {
                        key: e.key,
                        value: e.value,
                    })
                    .collect(),
                sharded_dim: s
                    .sharded_dim
                    .into_iter()
                    .map(|d| ShardedDim {
                        axis: d.axis,
                        simple_sharding: d
                            .simple_sharding
                            .into_iter()
                            .map(|s| SimpleShardedDim {
                                dim: s.dim.map(|d| match d {
                                    D::DimValue(v) => DimValue::Value(v),
                                    D::DimParam(p) => DimValue::Param(p),
                                }),
                                num_shards: s.num_shards,
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect(),
    }
}
