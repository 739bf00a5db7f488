//! Attributes: typed values, references to a function's attributes, and (for malformed
//! input) a raw form that keeps every field as it came.

use bytes::Bytes;

use super::data::{SparseTensor, Tensor, Type};
use super::ids::GraphId;

/// `AttributeProto.AttributeType`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrType {
    Float,
    Int,
    String,
    Tensor,
    Graph,
    SparseTensor,
    TypeProto,
    Floats,
    Ints,
    Strings,
    Tensors,
    Graphs,
    SparseTensors,
    TypeProtos,
}

impl AttrType {
    pub fn from_proto(code: i32) -> Option<Self> {
        use AttrType::*;
        Some(match code {
            1 => Float,
            2 => Int,
            3 => String,
            4 => Tensor,
            5 => Graph,
            11 => SparseTensor,
            13 => TypeProto,
            6 => Floats,
            7 => Ints,
            8 => Strings,
            9 => Tensors,
            10 => Graphs,
            12 => SparseTensors,
            14 => TypeProtos,
            _ => return None,
        })
    }

    pub fn to_proto(self) -> i32 {
        use AttrType::*;
        match self {
            Float => 1,
            Int => 2,
            String => 3,
            Tensor => 4,
            Graph => 5,
            SparseTensor => 11,
            TypeProto => 13,
            Floats => 6,
            Ints => 7,
            Strings => 8,
            Tensors => 9,
            Graphs => 10,
            SparseTensors => 12,
            TypeProtos => 14,
        }
    }

    /// Every attribute type.
    pub const ALL: [AttrType; 14] = [
        AttrType::Float,
        AttrType::Int,
        AttrType::String,
        AttrType::Tensor,
        AttrType::Graph,
        AttrType::SparseTensor,
        AttrType::TypeProto,
        AttrType::Floats,
        AttrType::Ints,
        AttrType::Strings,
        AttrType::Tensors,
        AttrType::Graphs,
        AttrType::SparseTensors,
        AttrType::TypeProtos,
    ];

    /// The type ONNX text spells `name` (`float`, `ints`, …).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The spelling ONNX text uses.
    pub fn name(self) -> &'static str {
        use AttrType::*;
        match self {
            Float => "float",
            Int => "int",
            String => "string",
            Tensor => "tensor",
            Graph => "graph",
            SparseTensor => "sparse_tensor",
            TypeProto => "type_proto",
            Floats => "floats",
            Ints => "ints",
            Strings => "strings",
            Tensors => "tensors",
            Graphs => "graphs",
            SparseTensors => "sparse_tensors",
            TypeProtos => "type_protos",
        }
    }
}

/// A well-formed attribute value: the `type` field and exactly the one value field that
/// type names.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    Float(f32),
    Int(i64),
    String(Bytes),
    Tensor(Box<Tensor>),
    Graph(GraphId),
    SparseTensor(Box<SparseTensor>),
    TypeProto(Type),
    Floats(Vec<f32>),
    Ints(Vec<i64>),
    Strings(Vec<Bytes>),
    Tensors(Vec<Tensor>),
    Graphs(Vec<GraphId>),
    SparseTensors(Vec<SparseTensor>),
    TypeProtos(Vec<Type>),
}

impl AttrValue {
    pub fn attr_type(&self) -> AttrType {
        match self {
            AttrValue::Float(_) => AttrType::Float,
            AttrValue::Int(_) => AttrType::Int,
            AttrValue::String(_) => AttrType::String,
            AttrValue::Tensor(_) => AttrType::Tensor,
            AttrValue::Graph(_) => AttrType::Graph,
            AttrValue::SparseTensor(_) => AttrType::SparseTensor,
            AttrValue::TypeProto(_) => AttrType::TypeProto,
            AttrValue::Floats(_) => AttrType::Floats,
            AttrValue::Ints(_) => AttrType::Ints,
            AttrValue::Strings(_) => AttrType::Strings,
            AttrValue::Tensors(_) => AttrType::Tensors,
            AttrValue::Graphs(_) => AttrType::Graphs,
            AttrValue::SparseTensors(_) => AttrType::SparseTensors,
            AttrValue::TypeProtos(_) => AttrType::TypeProtos,
        }
    }
}

/// Every field of an `AttributeProto` whose fields do not form one well-formed value
/// (no `type`, an unknown type, a missing or extra value field). Kept so that export
/// writes it back unchanged; the importer reports it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawAttribute {
    pub ref_attr_name: Option<String>,
    pub r#type: Option<i32>,
    pub f: Option<f32>,
    pub i: Option<i64>,
    pub s: Option<Bytes>,
    pub t: Option<Tensor>,
    pub g: Option<GraphId>,
    pub sparse_tensor: Option<SparseTensor>,
    pub tp: Option<Type>,
    pub floats: Vec<f32>,
    pub ints: Vec<i64>,
    pub strings: Vec<Bytes>,
    pub tensors: Vec<Tensor>,
    pub graphs: Vec<GraphId>,
    pub sparse_tensors: Vec<SparseTensor>,
    pub type_protos: Vec<Type>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AttrKind {
    /// A value.
    Value(AttrValue),
    /// `ref_attr_name`: inside a function body, the value of the calling node's
    /// attribute `name`, bound at the call site.
    Ref { name: String, ty: AttrType },
    /// Fields that do not form a value or a reference; see [`RawAttribute`].
    Raw(Box<RawAttribute>),
}

/// An attribute of a node (or a declared attribute with default of a function).
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Option<String>,
    pub doc_string: Option<String>,
    pub kind: AttrKind,
}

impl Attribute {
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }

    pub fn value(&self) -> Option<&AttrValue> {
        match &self.kind {
            AttrKind::Value(v) => Some(v),
            _ => None,
        }
    }

    /// Graphs held by this attribute, in order.
    pub fn graphs(&self) -> impl Iterator<Item = GraphId> + '_ {
        let (one, many): (Option<GraphId>, &[GraphId]) = match &self.kind {
            AttrKind::Value(AttrValue::Graph(g)) => (Some(*g), &[]),
            AttrKind::Value(AttrValue::Graphs(gs)) => (None, gs),
            AttrKind::Raw(raw) => (raw.g, &raw.graphs),
            _ => (None, &[]),
        };
        one.into_iter().chain(many.iter().copied())
    }

    /// Whether this attribute holds a graph.
    pub fn has_graphs(&self) -> bool {
        self.graphs().next().is_some()
    }

    /// Replaces every graph id this attribute holds by `map(id)`.
    pub fn map_graphs(&mut self, map: impl Fn(GraphId) -> GraphId) {
        match &mut self.kind {
            AttrKind::Value(AttrValue::Graph(g)) => *g = map(*g),
            AttrKind::Value(AttrValue::Graphs(gs)) => gs.iter_mut().for_each(|g| *g = map(*g)),
            AttrKind::Raw(raw) => {
                raw.g = raw.g.map(&map);
                raw.graphs.iter_mut().for_each(|g| *g = map(*g));
            }
            _ => {}
        }
    }
}

impl RawAttribute {
    /// A typed value or reference when the fields form one (a single value field
    /// matching `type`, or none for a list; a reference with no value field); the raw
    /// fields otherwise. The importer and the text parser both classify with this.
    pub fn into_kind(self) -> Result<AttrKind, Box<RawAttribute>> {
        let raw = self;
        let present = [
            raw.f.is_some(),
            raw.i.is_some(),
            raw.s.is_some(),
            raw.t.is_some(),
            raw.g.is_some(),
            raw.sparse_tensor.is_some(),
            raw.tp.is_some(),
            !raw.floats.is_empty(),
            !raw.ints.is_empty(),
            !raw.strings.is_empty(),
            !raw.tensors.is_empty(),
            !raw.graphs.is_empty(),
            !raw.sparse_tensors.is_empty(),
            !raw.type_protos.is_empty(),
        ];
        let count = present.iter().filter(|&&p| p).count();
        let Some(ty) = raw.r#type.and_then(AttrType::from_proto) else {
            return Err(Box::new(raw));
        };
        let slot = match ty {
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
        if let Some(name) = &raw.ref_attr_name {
            return if count == 0 {
                Ok(AttrKind::Ref {
                    name: name.clone(),
                    ty,
                })
            } else {
                Err(Box::new(raw))
            };
        }
        // A single value must be there; a list may be empty.
        if !((count == 1 && present.get(slot).copied().unwrap_or(false))
            || (count == 0 && slot >= 7))
        {
            return Err(Box::new(raw));
        }
        // The presence check above guarantees the value field is set.
        let r = raw;
        Ok(AttrKind::Value(match ty {
            AttrType::Float => AttrValue::Float(r.f.unwrap_or_default()),
            AttrType::Int => AttrValue::Int(r.i.unwrap_or_default()),
            AttrType::String => AttrValue::String(r.s.unwrap_or_default()),
            AttrType::Tensor => AttrValue::Tensor(Box::new(r.t.unwrap_or_default())),
            AttrType::Graph => match r.g {
                Some(g) => AttrValue::Graph(g),
                None => return Err(Box::new(r)),
            },
            AttrType::SparseTensor => {
                AttrValue::SparseTensor(Box::new(r.sparse_tensor.unwrap_or_default()))
            }
            AttrType::TypeProto => AttrValue::TypeProto(r.tp.unwrap_or_default()),
            AttrType::Floats => AttrValue::Floats(r.floats),
            AttrType::Ints => AttrValue::Ints(r.ints),
            AttrType::Strings => AttrValue::Strings(r.strings),
            AttrType::Tensors => AttrValue::Tensors(r.tensors),
            AttrType::Graphs => AttrValue::Graphs(r.graphs),
            AttrType::SparseTensors => AttrValue::SparseTensors(r.sparse_tensors),
            AttrType::TypeProtos => AttrValue::TypeProtos(r.type_protos),
        }))
    }
}
