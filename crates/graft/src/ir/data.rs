//! Leaf data of the IR: tensors, types, and the small records ONNX attaches to things.
//!
//! Every optional protobuf field is an `Option` here, because ONNX is proto2 and a field
//! set to its default is not the same model as an absent one. Tensor payloads are
//! `Bytes` slices of the imported buffer, or ranges of the model's file left unread
//! (`Tensor::unread`).

use bytes::Bytes;

/// A `StringStringEntryProto`: metadata, external-data keys, bindings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StringPair {
    pub key: Option<String>,
    pub value: Option<String>,
}

impl StringPair {
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            key: Some(key.into()),
            value: Some(value.into()),
        }
    }

    pub fn key(&self) -> &str {
        self.key.as_deref().unwrap_or("")
    }

    pub fn value(&self) -> &str {
        self.value.as_deref().unwrap_or("")
    }
}

/// An `OperatorSetIdProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpsetId {
    pub domain: Option<String>,
    pub version: Option<i64>,
}

impl OpsetId {
    /// The domain with `ai.onnx` normalized to `""`.
    pub fn normalized_domain(&self) -> &str {
        normalize_domain(self.domain.as_deref().unwrap_or(""))
    }
}

/// `ai.onnx` and `""` name the same domain. Identity and lookup use `""`; the spelling a
/// model used is kept as written so that export is lossless.
pub fn normalize_domain(domain: &str) -> &str {
    if domain == "ai.onnx" { "" } else { domain }
}

/// Element types of `TensorProto.DataType`.
pub mod dtype {
    pub const UNDEFINED: i32 = 0;
    pub const FLOAT: i32 = 1;
    pub const UINT8: i32 = 2;
    pub const INT8: i32 = 3;
    pub const UINT16: i32 = 4;
    pub const INT16: i32 = 5;
    pub const INT32: i32 = 6;
    pub const INT64: i32 = 7;
    pub const STRING: i32 = 8;
    pub const BOOL: i32 = 9;
    pub const FLOAT16: i32 = 10;
    pub const DOUBLE: i32 = 11;
    pub const UINT32: i32 = 12;
    pub const UINT64: i32 = 13;
    pub const COMPLEX64: i32 = 14;
    pub const COMPLEX128: i32 = 15;
    pub const BFLOAT16: i32 = 16;

    const NAMES: [&str; 29] = [
        "undefined",
        "float",
        "uint8",
        "int8",
        "uint16",
        "int16",
        "int32",
        "int64",
        "string",
        "bool",
        "float16",
        "double",
        "uint32",
        "uint64",
        "complex64",
        "complex128",
        "bfloat16",
        "float8e4m3fn",
        "float8e4m3fnuz",
        "float8e5m2",
        "float8e5m2fnuz",
        "uint4",
        "int4",
        "float4e2m1",
        "float8e8m0",
        "uint2",
        "int2",
        "float6e2m3",
        "float6e3m2",
    ];

    /// The name ONNX text uses for an element type, if the type is known.
    pub fn name(data_type: i32) -> Option<&'static str> {
        usize::try_from(data_type)
            .ok()
            .and_then(|i| NAMES.get(i))
            .copied()
    }

    /// Storage size of one element in bits, for fixed-size types.
    pub fn bits(data_type: i32) -> Option<u64> {
        Some(match data_type {
            FLOAT | INT32 | UINT32 => 32,
            UINT8 | INT8 | BOOL | 17..=20 | 24 => 8,
            UINT16 | INT16 | FLOAT16 | BFLOAT16 => 16,
            INT64 | UINT64 | DOUBLE | COMPLEX64 => 64,
            COMPLEX128 => 128,
            21..=23 => 4,
            25 | 26 => 2,
            27 | 28 => 6,
            _ => return None,
        })
    }
}

/// `TensorProto.DataLocation.EXTERNAL`.
pub const DATA_LOCATION_EXTERNAL: i32 = 1;

/// A `TensorProto`. For an initializer the name lives on the value it defines, and
/// `name` here is `None`; tensors elsewhere (attributes, sparse parts) keep theirs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tensor {
    pub dims: Vec<i64>,
    pub data_type: Option<i32>,
    pub segment: Option<Segment>,
    pub float_data: Vec<f32>,
    pub int32_data: Vec<i32>,
    pub string_data: Vec<Bytes>,
    pub int64_data: Vec<i64>,
    pub name: Option<String>,
    pub doc_string: Option<String>,
    pub raw_data: Option<Bytes>,
    /// `raw_data` left unread in the model's file (then `raw_data` is `None`); read
    /// with `crate::external::raw`.
    pub unread: Option<super::Unread>,
    pub external_data: Vec<StringPair>,
    pub data_location: Option<i32>,
    pub double_data: Vec<f64>,
    pub uint64_data: Vec<u64>,
    pub metadata_props: Vec<StringPair>,
}

/// Where an external tensor's bytes are: a file named relative to the model, a range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalRef {
    pub location: String,
    pub offset: u64,
    pub length: Option<u64>,
}

impl Tensor {
    pub fn data_type(&self) -> i32 {
        self.data_type.unwrap_or(dtype::UNDEFINED)
    }

    /// Number of elements the dims describe (`None` on overflow or negative dims).
    pub fn element_count(&self) -> Option<u64> {
        self.dims.iter().try_fold(1u64, |acc, &d| {
            u64::try_from(d).ok().and_then(|d| acc.checked_mul(d))
        })
    }

    pub fn is_external(&self) -> bool {
        self.data_location == Some(DATA_LOCATION_EXTERNAL)
    }

    /// Whether the tensor has `raw_data`, read or not.
    pub fn has_raw(&self) -> bool {
        self.raw_data.is_some() || self.unread.is_some()
    }

    /// The external-data reference, if this tensor's payload lives in another file.
    pub fn external_ref(&self) -> Option<ExternalRef> {
        if !self.is_external() {
            return None;
        }
        let mut location = None;
        let mut offset = 0;
        let mut length = None;
        for entry in &self.external_data {
            match entry.key() {
                "location" => location = Some(entry.value().to_string()),
                "offset" => offset = entry.value().parse().unwrap_or(0),
                "length" => length = entry.value().parse().ok(),
                _ => {}
            }
        }
        location.map(|location| ExternalRef {
            location,
            offset,
            length,
        })
    }

    /// Bytes of payload the tensor carries or refers to: its size in its element type
    /// (a uint8 tensor stored in `int32_data` is 1 byte an element), the length of
    /// `raw_data` or of the external range, or the strings' bytes.
    pub fn payload_bytes(&self) -> u64 {
        let ext = self.external_ref();
        if let Some(length) = ext.as_ref().and_then(|e| e.length) {
            return length;
        }
        let typed = |tensor: &Self| {
            let bits = dtype::bits(tensor.data_type())?;
            tensor
                .element_count()?
                .checked_mul(bits)
                .map(|b| b.div_ceil(8))
        };
        if ext.is_some() {
            return typed(self).unwrap_or(0);
        }
        let in_fields = !(self.float_data.is_empty()
            && self.int32_data.is_empty()
            && self.int64_data.is_empty()
            && self.double_data.is_empty()
            && self.uint64_data.is_empty());
        if in_fields
            && !self.has_raw()
            && let Some(bytes) = typed(self)
        {
            return bytes;
        }
        let len = |n: usize, size: u64| n as u64 * size;
        self.raw_data.as_ref().map_or(0, |r| r.len() as u64)
            + self.unread.map_or(0, |u| u.len)
            + len(self.float_data.len(), 4)
            + len(self.int32_data.len(), 4)
            + len(self.int64_data.len(), 8)
            + len(self.double_data.len(), 8)
            + len(self.uint64_data.len(), 8)
            + self.string_data.iter().map(|s| s.len() as u64).sum::<u64>()
    }
}

/// `TensorProto.Segment`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segment {
    pub begin: Option<i64>,
    pub end: Option<i64>,
}

/// A `SparseTensorProto`. As with `Tensor`, when it is a sparse initializer the name of
/// `values` lives on the value it defines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparseTensor {
    pub values: Option<Tensor>,
    pub indices: Option<Tensor>,
    pub dims: Vec<i64>,
}

/// A `TypeProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Type {
    pub value: Option<TypeValue>,
    pub denotation: Option<String>,
}

/// The `value` oneof of `TypeProto`.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeValue {
    Tensor(TensorType),
    SparseTensor(TensorType),
    Sequence(Option<Box<Type>>),
    Optional(Option<Box<Type>>),
    Map {
        key_type: Option<i32>,
        value_type: Option<Box<Type>>,
    },
    Opaque {
        domain: Option<String>,
        name: Option<String>,
    },
}

/// `TypeProto.Tensor` and `TypeProto.SparseTensor`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TensorType {
    pub elem_type: Option<i32>,
    pub shape: Option<Shape>,
}

/// A `TensorShapeProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shape {
    pub dims: Vec<Dim>,
}

/// A `TensorShapeProto.Dimension`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dim {
    pub value: Option<DimValue>,
    pub denotation: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DimValue {
    Value(i64),
    Param(String),
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let elem = |t: Option<i32>| dtype::name(t.unwrap_or(0)).unwrap_or("?");
        let shape = |f: &mut std::fmt::Formatter<'_>, s: &Option<Shape>| match s {
            None => Ok(()),
            Some(s) => {
                f.write_str("[")?;
                for (i, d) in s.dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    match &d.value {
                        Some(DimValue::Value(v)) => write!(f, "{v}")?,
                        Some(DimValue::Param(p)) => f.write_str(p)?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str("]")
            }
        };
        match &self.value {
            None => f.write_str("?"),
            Some(TypeValue::Tensor(t)) => {
                f.write_str(elem(t.elem_type))?;
                shape(f, &t.shape)
            }
            Some(TypeValue::SparseTensor(t)) => {
                write!(f, "sparse_tensor({}", elem(t.elem_type))?;
                shape(f, &t.shape)?;
                f.write_str(")")
            }
            Some(TypeValue::Sequence(t)) => match t {
                Some(t) => write!(f, "seq({t})"),
                None => f.write_str("seq(?)"),
            },
            Some(TypeValue::Optional(t)) => match t {
                Some(t) => write!(f, "optional({t})"),
                None => f.write_str("optional(?)"),
            },
            Some(TypeValue::Map {
                key_type,
                value_type,
            }) => {
                write!(f, "map({}, ", elem(*key_type))?;
                match value_type {
                    Some(t) => write!(f, "{t})"),
                    None => f.write_str("?)"),
                }
            }
            Some(TypeValue::Opaque { domain, name }) => write!(
                f,
                "opaque({}.{})",
                domain.as_deref().unwrap_or(""),
                name.as_deref().unwrap_or("")
            ),
        }
    }
}

/// A `TensorAnnotation` (quantization parameters of a tensor).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TensorAnnotation {
    pub tensor_name: Option<String>,
    pub quant_parameter_tensor_names: Vec<StringPair>,
}

/// A `DeviceConfigurationProto` (model level, IR 11).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceConfiguration {
    pub name: Option<String>,
    pub num_devices: Option<i32>,
    pub device: Vec<String>,
}

/// A `NodeDeviceConfigurationProto` (IR 11).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeDeviceConfiguration {
    pub configuration_id: Option<String>,
    pub sharding_spec: Vec<ShardingSpec>,
    pub pipeline_stage: Option<i32>,
}

/// A `ShardingSpecProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShardingSpec {
    pub tensor_name: Option<String>,
    pub device: Vec<i64>,
    pub index_to_device_group_map: Vec<IntIntList>,
    pub sharded_dim: Vec<ShardedDim>,
}

/// An `IntIntListEntryProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntIntList {
    pub key: Option<i64>,
    pub value: Vec<i64>,
}

/// A `ShardedDimProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShardedDim {
    pub axis: Option<i64>,
    pub simple_sharding: Vec<SimpleShardedDim>,
}

/// A `SimpleShardedDimProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimpleShardedDim {
    pub dim: Option<DimValue>,
    pub num_shards: Option<i64>,
}
