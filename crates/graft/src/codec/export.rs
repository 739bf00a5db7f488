//! IR → ModelProto. Deterministic: the same IR always gives the same bytes, and an IR
//! that came from an import gives back every field that was read.

use super::proto as pb;
use crate::ir::*;

/// Where an external tensor's bytes go in the export (`None`: keep its reference).
pub(super) type Relocate<'m> = &'m dyn Fn(&Tensor) -> Option<Payload>;

/// An external tensor's payload as exported.
pub(super) enum Payload {
    /// In the model, as `raw_data`.
    Embed(bytes::Bytes),
    /// In another data file, at another range.
    Moved {
        location: String,
        offset: u64,
        length: u64,
    },
}

pub(super) struct Exporter<'m> {
    pub model: &'m Model,
    /// The first tensor whose bytes could not be read from the model's file.
    pub unread_failure: std::cell::RefCell<Option<super::ExportError>>,
    /// The payloads left in the model's file, read beforehand, by offset.
    pub unread: crate::hash::FxMap<u64, bytes::Bytes>,
    /// Moves the payload of external tensors; `None` keeps references.
    pub relocate: Option<Relocate<'m>>,
}

impl Exporter<'_> {
    pub fn model(&self) -> pb::ModelProto {
        let m = self.model;
        pb::ModelProto {
            ir_version: m.ir_version,
            opset_import: m.opset_import.iter().map(opset).collect(),
            producer_name: m.producer_name.clone(),
            producer_version: m.producer_version.clone(),
            domain: m.domain.clone(),
            model_version: m.model_version,
            doc_string: m.doc_string.clone(),
            graph: m.graph.map(|g| self.graph(g)),
            metadata_props: pairs(&m.metadata_props),
            training_info: m
                .training_info
                .iter()
                .map(|t| pb::TrainingInfoProto {
                    initialization: t.initialization.map(|g| self.graph(g)),
                    algorithm: t.algorithm.map(|g| self.graph(g)),
                    initialization_binding: pairs(&t.initialization_binding),
                    update_binding: pairs(&t.update_binding),
                })
                .collect(),
            functions: m.functions.iter().map(|&f| self.function(f)).collect(),
            configuration: m
                .configuration
                .iter()
                .map(|c| pb::DeviceConfigurationProto {
                    name: c.name.clone(),
                    num_devices: c.num_devices,
                    device: c.device.clone(),
                })
                .collect(),
        }
    }

    fn name(&self, v: ValueId) -> String {
        self.model.values[v].name.clone()
    }

    fn opt_name(&self, v: Option<ValueId>) -> String {
        v.map(|v| self.name(v)).unwrap_or_default()
    }

    fn function(&self, id: FunctionId) -> pb::FunctionProto {
        let f = &self.model.function_arena[id];
        let body = &self.model.graphs[f.body];
        pb::FunctionProto {
            name: f.name.clone(),
            input: body
                .inputs
                .iter()
                .map(|vi| self.opt_name(vi.value))
                .collect(),
            output: body
                .outputs
                .iter()
                .map(|vi| self.opt_name(vi.value))
                .collect(),
            attribute: f.attribute.clone(),
            attribute_proto: f
                .attribute_proto
                .iter()
                .map(|a| self.attribute(a))
                .collect(),
            node: body.nodes.iter().map(|&n| self.node(n)).collect(),
            doc_string: f.doc_string.clone(),
            opset_import: f.opset_import.iter().map(opset).collect(),
            domain: f.domain.clone(),
            overload: f.overload.clone(),
            value_info: body
                .value_info
                .iter()
                .map(|vi| self.value_info(vi))
                .collect(),
            metadata_props: pairs(&f.metadata_props),
        }
    }

    fn graph(&self, id: GraphId) -> pb::GraphProto {
        let g = &self.model.graphs[id];
        pb::GraphProto {
            node: g.nodes.iter().map(|&n| self.node(n)).collect(),
            name: g.name.clone(),
            initializer: g
                .initializers
                .iter()
                .map(|i| {
                    let mut t = self.tensor(&i.tensor);
                    t.name = i.value.map(|v| self.name(v));
                    t
                })
                .collect(),
            sparse_initializer: g
                .sparse_initializers
                .iter()
                .map(|s| {
                    let mut t = self.sparse(&s.tensor);
                    if let (Some(values), Some(v)) = (t.values.as_mut(), s.value) {
                        values.name = Some(self.name(v));
                    }
                    t
                })
                .collect(),
            doc_string: g.doc_string.clone(),
            input: g.inputs.iter().map(|vi| self.value_info(vi)).collect(),
            output: g.outputs.iter().map(|vi| self.value_info(vi)).collect(),
            value_info: g.value_info.iter().map(|vi| self.value_info(vi)).collect(),
            quantization_annotation: g
                .quantization_annotation
                .iter()
                .map(|a| pb::TensorAnnotation {
                    tensor_name: a.tensor_name.clone(),
                    quant_parameter_tensor_names: pairs(&a.quant_parameter_tensor_names),
                })
                .collect(),
            metadata_props: pairs(&g.metadata_props),
        }
    }

    fn value_info(&self, vi: &ValueInfo) -> pb::ValueInfoProto {
        pb::ValueInfoProto {
            name: vi.value.map(|v| self.name(v)),
            r#type: vi.ty.as_ref().map(ty),
            doc_string: vi.doc_string.clone(),
            metadata_props: pairs(&vi.metadata_props),
        }
    }

    fn node(&self, id: NodeId) -> pb::NodeProto {
        let n = &self.model.nodes[id];
        pb::NodeProto {
            input: n.inputs.iter().map(|&v| self.opt_name(v)).collect(),
            output: n.outputs.iter().map(|&v| self.opt_name(v)).collect(),
            name: n.name.clone(),
            op_type: n.op_type.clone(),
            domain: n.domain.clone(),
            overload: n.overload.clone(),
            attribute: n.attributes.iter().map(|a| self.attribute(a)).collect(),
            doc_string: n.doc_string.clone(),
            metadata_props: pairs(&n.metadata_props),
            device_configurations: n
                .device_configurations
                .iter()
                .map(node_device_configuration)
                .collect(),
        }
    }

    fn attribute(&self, a: &Attribute) -> pb::AttributeProto {
        let mut p = pb::AttributeProto {
            name: a.name.clone(),
            doc_string: a.doc_string.clone(),
            ..Default::default()
        };
        match &a.kind {
            AttrKind::Ref { name, ty } => {
                p.ref_attr_name = Some(name.clone());
                p.r#type = Some(ty.to_proto());
            }
            AttrKind::Value(v) => {
                p.r#type = Some(v.attr_type().to_proto());
                match v {
                    AttrValue::Float(f) => p.f = Some(*f),
                    AttrValue::Int(i) => p.i = Some(*i),
                    AttrValue::String(s) => p.s = Some(s.clone()),
                    AttrValue::Tensor(t) => p.t = Some(self.tensor(t)),
                    AttrValue::Graph(g) => p.g = Some(self.graph(*g)),
                    AttrValue::SparseTensor(s) => p.sparse_tensor = Some(self.sparse(s)),
                    AttrValue::TypeProto(t) => p.tp = Some(ty(t)),
                    AttrValue::Floats(v) => p.floats = v.clone(),
                    AttrValue::Ints(v) => p.ints = v.clone(),
                    AttrValue::Strings(v) => p.strings = v.clone(),
                    AttrValue::Tensors(v) => p.tensors = v.iter().map(|t| self.tensor(t)).collect(),
                    AttrValue::Graphs(v) => p.graphs = v.iter().map(|&g| self.graph(g)).collect(),
                    AttrValue::SparseTensors(v) => {
                        p.sparse_tensors = v.iter().map(|s| self.sparse(s)).collect()
                    }
                    AttrValue::TypeProtos(v) => p.type_protos = v.iter().map(ty).collect(),
                }
            }
            AttrKind::Raw(r) => {
                p.ref_attr_name = r.ref_attr_name.clone();
                p.r#type = r.r#type;
                p.f = r.f;
                p.i = r.i;
                p.s = r.s.clone();
                p.t = r.t.as_ref().map(|t| self.tensor(t));
                p.g = r.g.map(|g| self.graph(g));
                p.sparse_tensor = r.sparse_tensor.as_ref().map(|s| self.sparse(s));
                p.tp = r.tp.as_ref().map(ty);
                p.floats = r.floats.clone();
                p.ints = r.ints.clone();
                p.strings = r.strings.clone();
                p.tensors = r.tensors.iter().map(|t| self.tensor(t)).collect();
                p.graphs = r.graphs.iter().map(|&g| self.graph(g)).collect();
                p.sparse_tensors = r.sparse_tensors.iter().map(|s| self.sparse(s)).collect();
                p.type_protos = r.type_protos.iter().map(ty).collect();
            }
        }
        p
    }

    /// Reads the payload of `t` left in the model's file into `p`, or records why it
    /// cannot be read.
    fn read_unread(&self, t: &Tensor, p: &mut pb::TensorProto) {
        match crate::external::raw(self.model, t) {
            Ok(bytes) => p.raw_data = bytes,
            Err(reason) => {
                let tensor = t.name.clone().unwrap_or_else(|| "an initializer".into());
                self.unread_failure
                    .borrow_mut()
                    .get_or_insert(super::ExportError::Unread { tensor, reason });
            }
        }
    }

    fn tensor(&self, t: &Tensor) -> pb::TensorProto {
        let mut p = pb::TensorProto {
            dims: t.dims.clone(),
            data_type: t.data_type,
            segment: t.segment.as_ref().map(|s| pb::tensor_proto::Segment {
                begin: s.begin,
                end: s.end,
            }),
            float_data: t.float_data.clone(),
            int32_data: t.int32_data.clone(),
            string_data: t.string_data.clone(),
            int64_data: t.int64_data.clone(),
            name: t.name.clone(),
            doc_string: t.doc_string.clone(),
            raw_data: t.raw_data.clone(),
            external_data: pairs(&t.external_data),
            data_location: t.data_location,
            double_data: t.double_data.clone(),
            uint64_data: t.uint64_data.clone(),
            metadata_props: pairs(&t.metadata_props),
        };
        if let Some(unread) = t.unread {
            let read = self.unread.get(&unread.offset);
            match read.filter(|b| b.len() as u64 == unread.len) {
                Some(bytes) => p.raw_data = Some(bytes.clone()),
                None => self.read_unread(t, &mut p),
            }
        }
        match self.relocate.and_then(|relocate| relocate(t)) {
            Some(Payload::Embed(data)) => {
                p.raw_data = Some(data);
                p.external_data.clear();
                p.data_location = None;
            }
            Some(Payload::Moved {
                location,
                offset,
                length,
            }) => {
                // The other entries (a checksum, say) still hold: the bytes are the same.
                p.external_data.retain(|e| {
                    !matches!(e.key.as_deref(), Some("location" | "offset" | "length"))
                });
                for (key, value) in [
                    ("location", location),
                    ("offset", offset.to_string()),
                    ("length", length.to_string()),
                ] {
                    p.external_data.push(pb::StringStringEntryProto {
                        key: Some(key.into()),
                        value: Some(value),
                    });
                }
            }
            None => {}
        }
        p
    }

    fn sparse(&self, s: &SparseTensor) -> pb::SparseTensorProto {
        pb::SparseTensorProto {
            values: s.values.as_ref().map(|t| self.tensor(t)),
            indices: s.indices.as_ref().map(|t| self.tensor(t)),
            dims: s.dims.clone(),
        }
    }
}

fn opset(o: &OpsetId) -> pb::OperatorSetIdProto {
    pb::OperatorSetIdProto {
        domain: o.domain.clone(),
        version: o.version,
    }
}

fn pairs(p: &[StringPair]) -> Vec<pb::StringStringEntryProto> {
    p.iter()
        .map(|e| pb::StringStringEntryProto {
            key: e.key.clone(),
            value: e.value.clone(),
        })
        .collect()
}

fn shape(s: &Shape) -> pb::TensorShapeProto {
    use pb::tensor_shape_proto::dimension::Value as V;
    pb::TensorShapeProto {
        dim: s
            .dims
            .iter()
            .map(|d| pb::tensor_shape_proto::Dimension {
                value: d.value.as_ref().map(|v| match v {
                    DimValue::Value(v) => V::DimValue(*v),
                    DimValue::Param(p) => V::DimParam(p.clone()),
                }),
                denotation: d.denotation.clone(),
            })
            .collect(),
    }
}

fn ty(t: &Type) -> pb::TypeProto {
    use pb::type_proto as tp;
    let boxed = |t: &Option<Box<Type>>| t.as_ref().map(|t| Box::new(ty(t)));
    pb::TypeProto {
        denotation: t.denotation.clone(),
        value: t.value.as_ref().map(|v| match v {
            TypeValue::Tensor(t) => tp::Value::TensorType(tp::Tensor {
                elem_type: t.elem_type,
                shape: t.shape.as_ref().map(shape),
            }),
            TypeValue::SparseTensor(t) => tp::Value::SparseTensorType(tp::SparseTensor {
                elem_type: t.elem_type,
                shape: t.shape.as_ref().map(shape),
            }),
            TypeValue::Sequence(e) => tp::Value::SequenceType(Box::new(tp::Sequence {
                elem_type: boxed(e),
            })),
            TypeValue::Optional(e) => tp::Value::OptionalType(Box::new(tp::Optional {
                elem_type: boxed(e),
            })),
            TypeValue::Map {
                key_type,
                value_type,
            } => tp::Value::MapType(Box::new(tp::Map {
                key_type: *key_type,
                value_type: boxed(value_type),
            })),
            TypeValue::Opaque { domain, name } => tp::Value::OpaqueType(tp::Opaque {
                domain: domain.clone(),
                name: name.clone(),
            }),
        }),
    }
}

fn node_device_configuration(c: &NodeDeviceConfiguration) -> pb::NodeDeviceConfigurationProto {
    use pb::simple_sharded_dim_proto::Dim as D;
    pb::NodeDeviceConfigurationProto {
        configuration_id: c.configuration_id.clone(),
        pipeline_stage: c.pipeline_stage,
        sharding_spec: c
            .sharding_spec
            .iter()
            .map(|s| pb::ShardingSpecProto {
                tensor_name: s.tensor_name.clone(),
                device: s.device.clone(),
                index_to_device_group_map: s
                    .index_to_device_group_map
                    .iter()
                    .map(|e| pb::IntIntListEntryProto {
                        key: e.key,
                        value: e.value.clone(),
                    })
                    .collect(),
                sharded_dim: s
                    .sharded_dim
                    .iter()
                    .map(|d| pb::ShardedDimProto {
                        axis: d.axis,
                        simple_sharding: d
                            .simple_sharding
                            .iter()
                            .map(|s| pb::SimpleShardedDimProto {
                                dim: s.dim.as_ref().map(|d| match d {
                                    DimValue::Value(v) => D::DimValue(*v),
                                    DimValue::Param(p) => D::DimParam(p.clone()),
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
