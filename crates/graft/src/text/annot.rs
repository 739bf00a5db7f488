//! Graft's annotations: `#@ {key: value, ...}` lines that carry what ONNX text has no
//! syntax for. onnx.parser reads them as comments; Graft applies each to the item
//! after it. The keys of every kind of annotation are listed in `README.md`.

use std::borrow::Cow;

use bytes::Bytes;

use super::ast::*;
use super::lexer::Tk;
use super::parse::{PResult, Parser, dtype_by_name, is_type_word};
use crate::ir::*;

/// Model annotation (first item of a model).
#[derive(Default)]
pub(super) struct ModelAnn<'a> {
    pub no_graph: bool,
    pub opset_import: Option<Vec<OpsetId>>,
    pub metadata_props: Option<Vec<StringPair>>,
    pub training_info: Vec<AstTraining<'a>>,
    pub configuration: Vec<DeviceConfiguration>,
}

/// Graph annotation (before the `{` of its nodes).
#[derive(Default)]
pub(super) struct GraphAnn<'a> {
    pub name: Option<Option<String>>,
    pub doc_string: Option<String>,
    pub metadata_props: Vec<StringPair>,
    pub sparse_initializers: Vec<(Option<Name<'a>>, SparseTensor)>,
    pub quantization_annotation: Vec<TensorAnnotation>,
}

/// Node annotation (before the node).
#[derive(Default)]
pub(super) struct NodeAnn<'a> {
    pub domain: Option<Option<String>>,
    pub op_type: Option<Option<String>>,
    pub overload: Option<Option<String>>,
    pub doc_string: Option<String>,
    pub metadata_props: Vec<StringPair>,
    pub device_configurations: Vec<NodeDeviceConfiguration>,
    /// Extra fields of written attributes, by index in the final attribute list.
    pub attrs: Vec<(usize, AttrExtras)>,
    /// Attributes written in field form, placed at their index.
    pub raw_attrs: Vec<(usize, AstAttr<'a>)>,
}

/// Function annotation (before the function's header).
#[derive(Default)]
pub(super) struct FunctionAnn<'a> {
    pub name: Option<Option<String>>,
    pub opset_import: Option<Vec<OpsetId>>,
    pub metadata_props: Vec<StringPair>,
    pub attrs: Vec<(usize, AttrExtras)>,
    pub raw_attrs: Vec<(usize, AstAttr<'a>)>,
}

#[derive(Default)]
pub(super) struct AttrExtras {
    pub doc_string: Option<String>,
    pub tensor: Option<TensorExtras>,
    pub tensors: Vec<(usize, TensorExtras)>,
}

/// Annotation of a value-info entry or of an initializer in a graph's `<...>` list.
#[derive(Default)]
pub(super) struct ItemAnn {
    pub name: Option<Option<String>>,
    pub doc_string: Option<String>,
    pub metadata_props: Vec<StringPair>,
    pub ty: Option<Option<Type>>,
    /// Tensor keys (initializers only); `name`, `doc_string` and `metadata_props` are
    /// the item's.
    pub tensor: TensorExtras,
}

/// Tensor fields that ONNX text cannot write, and overrides of what it writes.
#[derive(Default)]
pub(super) struct TensorExtras {
    pub name: Option<Option<String>>,
    pub raw: Option<bool>,
    pub raw_data: Option<Bytes>,
    pub float_data: Vec<f32>,
    pub float_bits: Vec<u32>,
    pub int32_data: Vec<i32>,
    pub string_data: Vec<Bytes>,
    pub int64_data: Vec<i64>,
    pub double_data: Vec<f64>,
    pub double_bits: Vec<u64>,
    pub uint64_data: Vec<u64>,
    pub doc_string: Option<String>,
    pub segment: Option<Segment>,
    pub metadata_props: Vec<StringPair>,
    pub data_location: Option<Option<i32>>,
    pub external_data: Option<Vec<StringPair>>,
    pub data_type: Option<Option<i32>>,
    /// `raw_data` left in the model's file (`unread: [offset, length]`).
    pub unread: Option<crate::external::Unread>,
}

impl TensorExtras {
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.raw.is_none()
            && self.raw_data.is_none()
            && self.float_data.is_empty()
            && self.float_bits.is_empty()
            && self.int32_data.is_empty()
            && self.string_data.is_empty()
            && self.int64_data.is_empty()
            && self.double_data.is_empty()
            && self.double_bits.is_empty()
            && self.uint64_data.is_empty()
            && self.doc_string.is_none()
            && self.segment.is_none()
            && self.metadata_props.is_empty()
            && self.data_location.is_none()
            && self.external_data.is_none()
            && self.data_type.is_none()
            && self.unread.is_none()
    }
}

/// A tensor written in an annotation.
struct AnnTensor<'a> {
    written_name: Option<Name<'a>>,
    name_override: Option<Option<String>>,
    tensor: Tensor,
}

impl<'a> Parser<'a> {
    /// An annotation starts here: `{` followed by `key :`.
    pub fn at_annotation(&mut self) -> PResult<bool> {
        if !self.extensions || !self.peek()?.is(b'{') {
            return Ok(false);
        }
        Ok(self.peek_at(1)?.kind == Tk::Ident && self.peek_at(2)?.is(b':'))
    }

    fn annotation<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.in_annotation += 1;
        let r = f(self);
        self.in_annotation -= 1;
        r
    }

    /// `{ key: value, ... }`; `f` reads the value of a key and says whether it knew
    /// the key.
    fn record(
        &mut self,
        what: &str,
        mut f: impl FnMut(&mut Self, &'a str) -> PResult<bool>,
    ) -> PResult<()> {
        let open = self.peek()?;
        self.enter_nesting(open.start)?;
        self.expect(b'{', &format!("to open {what}"))?;
        if !self.eat(b'}')? {
            loop {
                let k = self.peek()?;
                let key = self.ident("a key")?;
                self.expect(b':', "after the key")?;
                if !f(self, key)? {
                    return Err(self.error_at(k.start, format!("unknown key `{key}` in {what}")));
                }
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b'}', &format!("to close {what}"))?;
        }
        self.leave_nesting();
        Ok(())
    }

    fn is_none_word(&mut self) -> PResult<bool> {
        let t = self.peek()?;
        if t.kind == Tk::Ident && self.text(&t) == "none" {
            self.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn ann_str(&mut self) -> PResult<String> {
        Ok(self.str_lit("a string")?.into_owned())
    }

    fn ann_opt_str(&mut self) -> PResult<Option<String>> {
        if self.is_none_word()? {
            return Ok(None);
        }
        Ok(Some(self.ann_str()?))
    }

    fn ann_opt_int(&mut self) -> PResult<Option<i64>> {
        if self.is_none_word()? {
            return Ok(None);
        }
        Ok(Some(self.int_lit("an integer or none")?))
    }

    fn ann_i32(&mut self) -> PResult<i32> {
        let at = self.peek()?.start;
        let v = self.int_lit("an integer")?;
        i32::try_from(v).map_err(|_| self.error_at(at, "this integer does not fit in 32 bits"))
    }

    fn ann_opt_i32(&mut self) -> PResult<Option<i32>> {
        if self.is_none_word()? {
            return Ok(None);
        }
        Ok(Some(self.ann_i32()?))
    }

    fn ann_bool(&mut self) -> PResult<bool> {
        let t = self.peek()?;
        match (t.kind, self.text(&t)) {
            (Tk::Ident, "true") => {
                self.bump()?;
                Ok(true)
            }
            (Tk::Ident, "false") => {
                self.bump()?;
                Ok(false)
            }
            _ => Err(self.unexpected(&t, "true or false")),
        }
    }

    fn ann_index(&mut self) -> PResult<usize> {
        let at = self.peek()?.start;
        let v = self.int_lit("an index")?;
        usize::try_from(v).map_err(|_| self.error_at(at, "an index cannot be negative"))
    }

    fn ann_list<T>(&mut self, mut f: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        self.expect(b'[', "to open the list")?;
        let mut out = Vec::new();
        if self.eat(b']')? {
            return Ok(out);
        }
        loop {
            out.push(f(self)?);
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b']', "to close the list")?;
        Ok(out)
    }

    /// `{index: value, ...}`.
    fn ann_index_map<T>(
        &mut self,
        mut f: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<(usize, T)>> {
        let open = self.peek()?;
        self.enter_nesting(open.start)?;
        self.expect(b'{', "to open the index map")?;
        let mut out = Vec::new();
        if !self.eat(b'}')? {
            loop {
                let i = self.ann_index()?;
                self.expect(b':', "after the index")?;
                out.push((i, f(self)?));
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b'}', "to close the index map")?;
        }
        self.leave_nesting();
        Ok(out)
    }

    /// `["key": "value", ...]`, where either side may be `none` (field not set).
    fn ann_pairs(&mut self) -> PResult<Vec<StringPair>> {
        self.ann_list(|p| {
            let key = p.ann_opt_str()?;
            p.expect(b':', "between key and value")?;
            let value = p.ann_opt_str()?;
            Ok(StringPair { key, value })
        })
    }

    fn ann_opsets(&mut self) -> PResult<Vec<OpsetId>> {
        self.ann_list(|p| {
            let domain = p.ann_opt_str()?;
            p.expect(b':', "between domain and version")?;
            let version = p.ann_opt_int()?;
            Ok(OpsetId { domain, version })
        })
    }

    fn ann_ints(&mut self) -> PResult<Vec<i64>> {
        self.ann_list(|p| p.int_lit("an integer"))
    }

    fn set_default(&mut self, key: &str) -> PResult<()> {
        match key {
            "node_domain" | "tensor_name" => {
                let none = self.is_none_word()?;
                if !none {
                    let t = self.peek()?;
                    if !self.ann_str()?.is_empty() {
                        return Err(self.error_at(t.start, "the default is none or \"\""));
                    }
                }
                if key == "node_domain" {
                    self.defaults.node_domain_none = none;
                } else {
                    self.defaults.tensor_name_none = none;
                }
            }
            "raw_data" => self.defaults.raw_data = self.ann_bool()?,
            _ => self.defaults.attribute_raw_data = self.ann_bool()?,
        }
        Ok(())
    }

    // ----- entry points -----

    pub fn model_annotation(&mut self) -> PResult<ModelAnn<'a>> {
        self.annotation(|p| {
            let mut a = ModelAnn::default();
            p.record("the model annotation", |p, key| {
                match key {
                    "node_domain" | "tensor_name" | "raw_data" | "attribute_raw_data" => {
                        p.set_default(key)?
                    }
                    "graph" => {
                        let t = p.peek()?;
                        if !p.is_none_word()? {
                            return Err(p.unexpected(&t, "none (the model has no graph)"));
                        }
                        a.no_graph = true;
                    }
                    "opset_import" => a.opset_import = Some(p.ann_opsets()?),
                    "metadata_props" => a.metadata_props = Some(p.ann_pairs()?),
                    "training_info" => {
                        a.training_info = p.ann_list(|p| p.ann_training())?;
                    }
                    "configuration" => {
                        a.configuration = p.ann_list(|p| p.ann_device_configuration())?;
                    }
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Ok(a)
        })
    }

    /// The defaults annotation that may open a standalone graph.
    pub fn defaults_annotation(&mut self) -> PResult<()> {
        self.annotation(|p| {
            p.record("the defaults annotation", |p, key| {
                if matches!(
                    key,
                    "node_domain" | "tensor_name" | "raw_data" | "attribute_raw_data"
                ) {
                    p.set_default(key)?;
                    return Ok(true);
                }
                Ok(false)
            })
        })
    }

    pub fn graph_annotation(&mut self) -> PResult<GraphAnn<'a>> {
        self.annotation(|p| {
            let mut a = GraphAnn::default();
            p.record("a graph annotation", |p, key| {
                match key {
                    "name" => a.name = Some(p.ann_opt_str()?),
                    "doc_string" => a.doc_string = Some(p.ann_str()?),
                    "metadata_props" => a.metadata_props = p.ann_pairs()?,
                    "sparse_initializers" => {
                        a.sparse_initializers = p.ann_list(|p| p.ann_sparse(true))?;
                    }
                    "quantization_annotation" => {
                        a.quantization_annotation = p.ann_list(|p| {
                            let mut q = TensorAnnotation::default();
                            p.record("a quantization annotation", |p, key| {
                                match key {
                                    "tensor_name" => q.tensor_name = p.ann_opt_str()?,
                                    "quant_parameter_tensor_names" => {
                                        q.quant_parameter_tensor_names = p.ann_pairs()?
                                    }
                                    _ => return Ok(false),
                                }
                                Ok(true)
                            })?;
                            Ok(q)
                        })?;
                    }
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Ok(a)
        })
    }

    pub fn node_annotation(&mut self) -> PResult<NodeAnn<'a>> {
        self.annotation(|p| {
            let mut a = NodeAnn::default();
            p.record("a node annotation", |p, key| {
                match key {
                    "domain" => a.domain = Some(p.ann_opt_str()?),
                    "op_type" => a.op_type = Some(p.ann_opt_str()?),
                    "overload" => a.overload = Some(p.ann_opt_str()?),
                    "doc_string" => a.doc_string = Some(p.ann_str()?),
                    "metadata_props" => a.metadata_props = p.ann_pairs()?,
                    "device_configurations" => {
                        a.device_configurations = p.ann_list(|p| p.ann_node_device())?;
                    }
                    "attrs" => a.attrs = p.ann_index_map(|p| p.ann_attr_extras())?,
                    "raw_attrs" => a.raw_attrs = p.ann_index_map(|p| p.ann_raw_attr())?,
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Ok(a)
        })
    }

    pub fn function_annotation(&mut self, standalone: bool) -> PResult<FunctionAnn<'a>> {
        self.annotation(|p| {
            let mut a = FunctionAnn::default();
            p.record("a function annotation", |p, key| {
                match key {
                    "node_domain" | "tensor_name" | "raw_data" | "attribute_raw_data"
                        if standalone =>
                    {
                        p.set_default(key)?
                    }
                    "name" => a.name = Some(p.ann_opt_str()?),
                    "opset_import" => a.opset_import = Some(p.ann_opsets()?),
                    "metadata_props" => a.metadata_props = p.ann_pairs()?,
                    "attrs" => a.attrs = p.ann_index_map(|p| p.ann_attr_extras())?,
                    "raw_attrs" => a.raw_attrs = p.ann_index_map(|p| p.ann_raw_attr())?,
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Ok(a)
        })
    }

    /// The annotation of a value-info or initializer entry, if one is here.
    pub fn item_annotation(&mut self) -> PResult<Option<ItemAnn>> {
        if !self.at_annotation()? {
            return Ok(None);
        }
        self.annotation(|p| {
            let mut a = ItemAnn::default();
            p.record("an entry annotation", |p, key| {
                match key {
                    "name" => a.name = Some(p.ann_opt_str()?),
                    "doc_string" => a.doc_string = Some(p.ann_str()?),
                    "metadata_props" => a.metadata_props = p.ann_pairs()?,
                    "type" => a.ty = Some(p.ann_type()?),
                    _ => return p.tensor_key(&mut a.tensor, key),
                }
                Ok(true)
            })?;
            Ok(Some(a))
        })
    }

    // ----- pieces -----

    fn ann_attr_extras(&mut self) -> PResult<AttrExtras> {
        let mut x = AttrExtras::default();
        self.record("attribute extras", |p, key| {
            match key {
                "doc_string" => x.doc_string = Some(p.ann_str()?),
                "tensor" => x.tensor = Some(p.ann_tensor_extras()?),
                "tensors" => x.tensors = p.ann_index_map(|p| p.ann_tensor_extras())?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(x)
    }

    fn ann_tensor_extras(&mut self) -> PResult<TensorExtras> {
        let mut x = TensorExtras::default();
        self.record("tensor extras", |p, key| match key {
            "name" => {
                x.name = Some(p.ann_opt_str()?);
                Ok(true)
            }
            "doc_string" => {
                x.doc_string = Some(p.ann_str()?);
                Ok(true)
            }
            "metadata_props" => {
                x.metadata_props = p.ann_pairs()?;
                Ok(true)
            }
            _ => p.tensor_key(&mut x, key),
        })?;
        Ok(x)
    }

    /// Reads the value of a tensor key (other than name, doc_string, metadata_props).
    fn tensor_key(&mut self, x: &mut TensorExtras, key: &str) -> PResult<bool> {
        match key {
            "raw" => x.raw = Some(self.ann_bool()?),
            "raw_data" => x.raw_data = Some(self.bytes_lit("a byte string")?),
            "float_data" => x.float_data = self.ann_list(|p| p.f32_lit("a float"))?,
            "float_bits" => {
                x.float_bits = self.ann_list(|p| {
                    let at = p.peek()?.start;
                    let v = p.int_lit("bits")?;
                    u32::try_from(v)
                        .map_err(|_| p.error_at(at, "float bits are a 32-bit unsigned integer"))
                })?
            }
            "int32_data" => x.int32_data = self.ann_list(|p| p.ann_i32())?,
            "string_data" => x.string_data = self.ann_list(|p| p.bytes_lit("a byte string"))?,
            "int64_data" => x.int64_data = self.ann_ints()?,
            "double_data" => x.double_data = self.ann_list(|p| p.f64_lit("a double"))?,
            "double_bits" => {
                x.double_bits = self.ann_list(|p| {
                    let at = p.peek()?.start;
                    let neg = p.eat(b'-')?;
                    let t = p.bump()?;
                    if t.kind != Tk::Int || neg {
                        return Err(p.error_at(at, "double bits are a 64-bit unsigned integer"));
                    }
                    p.text(&t)
                        .parse::<u64>()
                        .map_err(|_| p.error_at(at, "double bits are a 64-bit unsigned integer"))
                })?
            }
            "uint64_data" => {
                x.uint64_data = self.ann_list(|p| {
                    let at = p.peek()?.start;
                    let t = p.bump()?;
                    if t.kind != Tk::Int {
                        return Err(p.unexpected(&t, "an unsigned integer"));
                    }
                    p.text(&t)
                        .parse::<u64>()
                        .map_err(|_| p.error_at(at, "this integer does not fit in 64 bits"))
                })?
            }
            "segment" => {
                let mut s = Segment::default();
                self.record("a segment", |p, key| {
                    match key {
                        "begin" => s.begin = p.ann_opt_int()?,
                        "end" => s.end = p.ann_opt_int()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                x.segment = Some(s);
            }
            "data_location" => x.data_location = Some(self.ann_opt_i32()?),
            "external_data" => x.external_data = Some(self.ann_pairs()?),
            "data_type" => x.data_type = Some(self.ann_opt_i32()?),
            "unread" => {
                let at = self.peek()?.start;
                let range = self.ann_ints()?;
                let (&[offset, len], true) = (range.as_slice(), range.iter().all(|&v| v >= 0))
                else {
                    return Err(self.error_at(at, "`unread` is [offset, length], both at least 0"));
                };
                x.unread = Some(crate::external::Unread {
                    offset: offset as u64,
                    len: len as u64,
                });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A tensor in an annotation: `type [name] [=] data`, or `{tensor: ..., extras}`.
    /// `attribute`: an attribute's tensor (not an initializer's part).
    fn ann_tensor(&mut self, attribute: bool) -> PResult<AnnTensor<'a>> {
        let at = self.peek()?.start;
        if self.peek()?.is(b'{') {
            let mut literal = None;
            let mut x = TensorExtras::default();
            self.record("a tensor", |p, key| {
                match key {
                    "tensor" => literal = Some(p.ann_tensor_literal()?),
                    "name" => x.name = Some(p.ann_opt_str()?),
                    "doc_string" => x.doc_string = Some(p.ann_str()?),
                    "metadata_props" => x.metadata_props = p.ann_pairs()?,
                    _ => return p.tensor_key(&mut x, key),
                }
                Ok(true)
            })?;
            let Some((written_name, mut tensor, braces)) = literal else {
                return Err(self.error_at(at, "a tensor record needs its `tensor: type = data`"));
            };
            let name_override = x.name.take();
            self.finish_tensor(&mut tensor, braces, attribute, Some(&x), at)?;
            return Ok(AnnTensor {
                written_name,
                name_override,
                tensor,
            });
        }
        let (written_name, mut tensor, braces) = self.ann_tensor_literal()?;
        self.finish_tensor(&mut tensor, braces, attribute, None, at)?;
        Ok(AnnTensor {
            written_name,
            name_override: None,
            tensor,
        })
    }

    fn ann_tensor_literal(&mut self) -> PResult<(Option<Name<'a>>, Tensor, bool)> {
        let t = self.peek()?;
        if !(t.kind == Tk::Ident && is_type_word(self.text(&t))) {
            return Err(self.unexpected(&t, "a tensor (`type [name] = data`)"));
        }
        let ty = self.parse_type()?;
        let n = self.peek()?;
        let name = match n.kind {
            Tk::Ident | Tk::Str { .. } => Some(self.quotable("a name")?),
            _ => None,
        };
        self.eat(b'=')?;
        let (tensor, braces) = self.tensor_value(Some(&ty))?;
        Ok((name, tensor, braces))
    }

    /// A tensor that keeps its own name (attributes, sparse parts): a name written is
    /// the name, none written follows the file's default.
    fn ann_named_tensor(&mut self, attribute: bool) -> PResult<Tensor> {
        let a = self.ann_tensor(attribute)?;
        let mut t = a.tensor;
        t.name = match a.name_override {
            Some(n) => n,
            None => match a.written_name {
                Some(n) => Some(n.into_owned()),
                None if self.defaults.tensor_name_none => None,
                None => Some(String::new()),
            },
        };
        Ok(t)
    }

    /// `{values: tensor, indices: tensor, dims: [..]}`. For a sparse initializer the
    /// values' name is the value it defines (returned, and not kept on the tensor).
    fn ann_sparse(&mut self, initializer: bool) -> PResult<(Option<Name<'a>>, SparseTensor)> {
        let mut s = SparseTensor::default();
        let mut value_name = None;
        self.record("a sparse tensor", |p, key| {
            match key {
                "values" => {
                    if p.is_none_word()? {
                        s.values = None;
                    } else if initializer {
                        let a = p.ann_tensor(false)?;
                        value_name = match a.name_override {
                            Some(n) => n.map(Cow::Owned),
                            None => a.written_name,
                        };
                        s.values = Some(a.tensor);
                    } else {
                        s.values = Some(p.ann_named_tensor(true)?);
                    }
                }
                "indices" => {
                    s.indices = if p.is_none_word()? {
                        None
                    } else {
                        Some(p.ann_named_tensor(!initializer)?)
                    }
                }
                "dims" => s.dims = p.ann_ints()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok((value_name, s))
    }

    /// A type: ONNX syntax, `none`, or a record for what the syntax cannot say.
    fn ann_type(&mut self) -> PResult<Option<Type>> {
        if self.is_none_word()? {
            return Ok(None);
        }
        if !self.peek()?.is(b'{') {
            return Ok(Some(self.parse_type()?));
        }
        let mut t = Type::default();
        self.record("a type", |p, key| {
            match key {
                "denotation" => t.denotation = Some(p.ann_str()?),
                "tensor" => t.value = Some(TypeValue::Tensor(p.ann_tensor_type()?)),
                "sparse_tensor" => t.value = Some(TypeValue::SparseTensor(p.ann_tensor_type()?)),
                "sequence" => t.value = Some(TypeValue::Sequence(p.ann_type()?.map(Box::new))),
                "optional" => t.value = Some(TypeValue::Optional(p.ann_type()?.map(Box::new))),
                "map" => {
                    let mut key_type = None;
                    let mut value_type = None;
                    p.record("a map type", |p, key| {
                        match key {
                            "key_type" => key_type = p.ann_elem_type()?,
                            "value_type" => value_type = p.ann_type()?.map(Box::new),
                            _ => return Ok(false),
                        }
                        Ok(true)
                    })?;
                    t.value = Some(TypeValue::Map {
                        key_type,
                        value_type,
                    });
                }
                "opaque" => {
                    let mut domain = None;
                    let mut name = None;
                    p.record("an opaque type", |p, key| {
                        match key {
                            "domain" => domain = p.ann_opt_str()?,
                            "name" => name = p.ann_opt_str()?,
                            _ => return Ok(false),
                        }
                        Ok(true)
                    })?;
                    t.value = Some(TypeValue::Opaque { domain, name });
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Some(t))
    }

    /// An element type: its name, its number, or none.
    fn ann_elem_type(&mut self) -> PResult<Option<i32>> {
        let t = self.peek()?;
        if t.kind == Tk::Ident
            && let Some(d) = dtype_by_name(self.text(&t))
        {
            self.bump()?;
            return Ok(Some(d));
        }
        self.ann_opt_i32()
    }

    fn ann_tensor_type(&mut self) -> PResult<TensorType> {
        let mut tt = TensorType::default();
        self.record("a tensor type", |p, key| {
            match key {
                "elem_type" => tt.elem_type = p.ann_elem_type()?,
                "shape" => {
                    tt.shape = if p.is_none_word()? {
                        None
                    } else {
                        Some(Shape {
                            dims: p.ann_list(|p| p.ann_dim())?,
                        })
                    }
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(tt)
    }

    fn ann_dim(&mut self) -> PResult<Dim> {
        let t = self.peek()?;
        let mut d = Dim::default();
        match t.kind {
            Tk::Punct(b'?') => {
                self.bump()?;
            }
            Tk::Str { .. } | Tk::Ident => {
                d.value = Some(DimValue::Param(self.quotable("a dimension")?.into_owned()))
            }
            Tk::Punct(b'{') => {
                self.record("a dimension", |p, key| {
                    match key {
                        "value" => d.value = Some(DimValue::Value(p.int_lit("an integer")?)),
                        "param" => d.value = Some(DimValue::Param(p.ann_str()?)),
                        "denotation" => d.denotation = Some(p.ann_str()?),
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
            }
            _ => d.value = Some(DimValue::Value(self.int_lit("a dimension")?)),
        }
        Ok(d)
    }

    fn ann_graph(&mut self) -> PResult<AstGraph<'a>> {
        let name = self.quotable("a graph name")?.into_owned();
        self.graph_rest(Some(name))
    }

    fn ann_training(&mut self) -> PResult<AstTraining<'a>> {
        let mut t = AstTraining::default();
        self.record("a training_info entry", |p, key| {
            match key {
                "initialization" => {
                    t.initialization = if p.is_none_word()? {
                        None
                    } else {
                        Some(p.ann_graph()?)
                    }
                }
                "algorithm" => {
                    t.algorithm = if p.is_none_word()? {
                        None
                    } else {
                        Some(p.ann_graph()?)
                    }
                }
                "initialization_binding" => t.initialization_binding = p.ann_pairs()?,
                "update_binding" => t.update_binding = p.ann_pairs()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(t)
    }

    fn ann_device_configuration(&mut self) -> PResult<DeviceConfiguration> {
        let mut c = DeviceConfiguration::default();
        self.record("a device configuration", |p, key| {
            match key {
                "name" => c.name = p.ann_opt_str()?,
                "num_devices" => c.num_devices = p.ann_opt_i32()?,
                "device" => c.device = p.ann_list(|p| p.ann_str())?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(c)
    }

    fn ann_node_device(&mut self) -> PResult<NodeDeviceConfiguration> {
        let mut c = NodeDeviceConfiguration::default();
        self.record("a node device configuration", |p, key| {
            match key {
                "configuration_id" => c.configuration_id = p.ann_opt_str()?,
                "pipeline_stage" => c.pipeline_stage = p.ann_opt_i32()?,
                "sharding_spec" => c.sharding_spec = p.ann_list(|p| p.ann_sharding())?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(c)
    }

    fn ann_sharding(&mut self) -> PResult<ShardingSpec> {
        let mut s = ShardingSpec::default();
        self.record("a sharding spec", |p, key| {
            match key {
                "tensor_name" => s.tensor_name = p.ann_opt_str()?,
                "device" => s.device = p.ann_ints()?,
                "index_to_device_group_map" => {
                    s.index_to_device_group_map = p.ann_list(|p| {
                        let mut e = IntIntList::default();
                        p.record("a device group entry", |p, key| {
                            match key {
                                "key" => e.key = p.ann_opt_int()?,
                                "value" => e.value = p.ann_ints()?,
                                _ => return Ok(false),
                            }
                            Ok(true)
                        })?;
                        Ok(e)
                    })?
                }
                "sharded_dim" => {
                    s.sharded_dim = p.ann_list(|p| {
                        let mut d = ShardedDim::default();
                        p.record("a sharded dimension", |p, key| {
                            match key {
                                "axis" => d.axis = p.ann_opt_int()?,
                                "simple_sharding" => {
                                    d.simple_sharding = p.ann_list(|p| {
                                        let mut s = SimpleShardedDim::default();
                                        p.record("a simple sharding", |p, key| {
                                            match key {
                                                "dim_value" => {
                                                    s.dim = Some(DimValue::Value(
                                                        p.int_lit("an integer")?,
                                                    ))
                                                }
                                                "dim_param" => {
                                                    s.dim = Some(DimValue::Param(p.ann_str()?))
                                                }
                                                "num_shards" => s.num_shards = p.ann_opt_int()?,
                                                _ => return Ok(false),
                                            }
                                            Ok(true)
                                        })?;
                                        Ok(s)
                                    })?
                                }
                                _ => return Ok(false),
                            }
                            Ok(true)
                        })?;
                        Ok(d)
                    })?
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(s)
    }

    /// An attribute written field by field (`AttributeProto`'s field names).
    fn ann_raw_attr(&mut self) -> PResult<AstAttr<'a>> {
        let mut a = AstAttr::default();
        self.record("an attribute", |p, key| {
            match key {
                "name" => a.name = p.ann_opt_str()?,
                "doc_string" => a.doc_string = Some(p.ann_str()?),
                "ref_attr_name" => a.ref_attr_name = Some(p.ann_str()?),
                "type" => {
                    let t = p.peek()?;
                    a.r#type = if t.kind == Tk::Ident && p.text(&t) != "none" {
                        p.bump()?;
                        let name = p.text(&t);
                        Some(
                            AttrType::from_name(name)
                                .ok_or_else(|| {
                                    p.error_at(
                                        t.start,
                                        format!("`{name}` is not an attribute type"),
                                    )
                                })?
                                .to_proto(),
                        )
                    } else {
                        p.ann_opt_i32()?
                    };
                }
                "f" => a.f = Some(p.f32_lit("a float")?),
                "f_bits" => {
                    let at = p.peek()?.start;
                    let v = p.int_lit("bits")?;
                    a.f = Some(f32::from_bits(u32::try_from(v).map_err(|_| {
                        p.error_at(at, "float bits are a 32-bit unsigned integer")
                    })?));
                }
                "i" => a.i = Some(p.int_lit("an integer")?),
                "s" => a.s = Some(p.bytes_lit("a byte string")?),
                "t" => a.t = Some(Box::new(p.ann_named_tensor(true)?)),
                "g" => a.g = Some(Box::new(p.ann_graph()?)),
                "sparse_tensor" => a.sparse_tensor = Some(Box::new(p.ann_sparse(false)?.1)),
                "tp" => a.tp = p.ann_type()?,
                "floats" => a.floats = p.ann_list(|p| p.f32_lit("a float"))?,
                "floats_bits" => {
                    a.floats = p.ann_list(|p| {
                        let at = p.peek()?.start;
                        let v = p.int_lit("bits")?;
                        u32::try_from(v)
                            .map(f32::from_bits)
                            .map_err(|_| p.error_at(at, "float bits are a 32-bit unsigned integer"))
                    })?
                }
                "ints" => a.ints = p.ann_ints()?,
                "strings" => a.strings = p.ann_list(|p| p.bytes_lit("a byte string"))?,
                "tensors" => a.tensors = p.ann_list(|p| p.ann_named_tensor(true))?,
                "graphs" => a.graphs = p.ann_list(|p| p.ann_graph())?,
                "sparse_tensors" => {
                    a.sparse_tensors = p.ann_list(|p| Ok(p.ann_sparse(false)?.1))?
                }
                "type_protos" => {
                    a.type_protos = p.ann_list(|p| Ok(p.ann_type()?.unwrap_or_default()))?
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(a)
    }
}
