//! What the parser reads, before names are resolved: the IR's records, with names as
//! text and subgraphs as nested syntax. `build.rs` turns it into the IR in the
//! importer's order, so that text and protobuf give the same arenas.

use std::borrow::Cow;

use bytes::Bytes;

use crate::ir::{
    DeviceConfiguration, NodeDeviceConfiguration, OpsetId, SparseTensor, StringPair, Tensor,
    TensorAnnotation, Type,
};

pub(super) type Name<'a> = Cow<'a, str>;

/// A model: its header fields live in `model` (graph and arenas still empty).
pub(super) struct AstModel<'a> {
    pub model: crate::ir::Model,
    pub graph: Option<AstGraph<'a>>,
    pub functions: Vec<AstFunction<'a>>,
    pub training_info: Vec<AstTraining<'a>>,
    pub configuration: Vec<DeviceConfiguration>,
}

#[derive(Default)]
pub(super) struct AstGraph<'a> {
    pub name: Option<String>,
    pub doc_string: Option<String>,
    pub inputs: Vec<AstInfo<'a>>,
    pub outputs: Vec<AstInfo<'a>>,
    pub value_info: Vec<AstInfo<'a>>,
    pub initializers: Vec<(Option<Name<'a>>, Tensor)>,
    pub sparse_initializers: Vec<(Option<Name<'a>>, SparseTensor)>,
    pub nodes: Vec<AstNode<'a>>,
    pub quantization_annotation: Vec<TensorAnnotation>,
    pub metadata_props: Vec<StringPair>,
}

/// A value-info entry; `info.value` is filled in when the name is resolved.
pub(super) type AstInfo<'a> = crate::ir::NamedInfo<Name<'a>>;

#[derive(Default)]
pub(super) struct AstNode<'a> {
    pub op_type: Option<String>,
    pub domain: Option<String>,
    pub overload: Option<String>,
    pub name: Option<String>,
    pub inputs: Vec<Name<'a>>,
    pub outputs: Vec<Name<'a>>,
    pub attributes: Vec<AstAttr<'a>>,
    pub doc_string: Option<String>,
    pub metadata_props: Vec<StringPair>,
    pub device_configurations: Vec<NodeDeviceConfiguration>,
}

/// An attribute in field form; the builder classifies it as a value, a reference or a
/// malformed attribute, exactly as the importer does.
#[derive(Default)]
pub(super) struct AstAttr<'a> {
    pub name: Option<String>,
    pub doc_string: Option<String>,
    pub ref_attr_name: Option<String>,
    pub r#type: Option<i32>,
    pub f: Option<f32>,
    pub i: Option<i64>,
    pub s: Option<Bytes>,
    pub t: Option<Box<Tensor>>,
    pub g: Option<Box<AstGraph<'a>>>,
    pub sparse_tensor: Option<Box<SparseTensor>>,
    pub tp: Option<Type>,
    pub floats: Vec<f32>,
    pub ints: Vec<i64>,
    pub strings: Vec<Bytes>,
    pub tensors: Vec<Tensor>,
    pub graphs: Vec<AstGraph<'a>>,
    pub sparse_tensors: Vec<SparseTensor>,
    pub type_protos: Vec<Type>,
}

#[derive(Default)]
pub(super) struct AstFunction<'a> {
    pub name: Option<String>,
    pub domain: Option<String>,
    pub overload: Option<String>,
    pub doc_string: Option<String>,
    pub opset_import: Vec<OpsetId>,
    pub metadata_props: Vec<StringPair>,
    pub attribute: Vec<String>,
    pub attribute_proto: Vec<AstAttr<'a>>,
    pub inputs: Vec<Name<'a>>,
    pub outputs: Vec<Name<'a>>,
    pub value_info: Vec<AstInfo<'a>>,
    pub nodes: Vec<AstNode<'a>>,
}

#[derive(Default)]
pub(super) struct AstTraining<'a> {
    pub initialization: Option<AstGraph<'a>>,
    pub algorithm: Option<AstGraph<'a>>,
    pub initialization_binding: Vec<StringPair>,
    pub update_binding: Vec<StringPair>,
}
