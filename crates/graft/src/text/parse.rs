//! Recursive descent over ONNX text, following `onnx/defs/parser.cc` rule by rule so
//! that what onnx.parser accepts reads to the same fields here (presence included:
//! a node's domain is always set, an attribute tensor's name is set even when
//! empty). Graft's `#@` annotations are read in `annot.rs`; this file calls them at
//! the places an annotation may stand: before the model, a function, a node, a
//! value-info entry, and before a graph's `{`.

use std::borrow::Cow;

use bytes::Bytes;

use super::ParseError;
use super::annot::{AttrExtras, ItemAnn, NodeAnn};
use super::ast::*;
use super::lexer::{Lexer, Tk, Token, graft_string, onnx_string};
use super::values;
use crate::ir::*;

pub(super) type PResult<T> = Result<T, ParseError>;

/// How deep graphs may nest (a GRAPH attribute inside a node inside a graph...).
pub const MAX_GRAPH_DEPTH: u32 = 64;
/// How deep other constructs may nest (types, annotation records).
const MAX_NESTING: u32 = 64;
/// Tokens the parser looks ahead at most (an annotation is `{`, a key and `:`).
const LOOKAHEAD: usize = 4;

/// Field defaults a file may set in its first annotation (see the module docs).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Defaults {
    /// A node written without a domain has no domain field (onnx.parser sets `""`).
    pub node_domain_none: bool,
    /// An attribute tensor written without a name has no name field.
    pub tensor_name_none: bool,
    /// Initializer values written in braces are stored as `raw_data`.
    pub raw_data: bool,
    /// Attribute tensor values written in braces are stored as `raw_data`.
    pub attribute_raw_data: bool,
}

pub(super) struct Parser<'a> {
    pub src: &'a str,
    pub(super) lex: Lexer<'a>,
    /// Tokens read ahead: a ring of `look_len` tokens from `look_head`.
    look: [Token; LOOKAHEAD],
    look_head: usize,
    pub(super) look_len: usize,
    pub extensions: bool,
    /// Inside an annotation (its tokens must be on `#@` lines).
    pub in_annotation: u32,
    graph_depth: u32,
    nesting: u32,
    pub defaults: Defaults,
}

/// One attribute value as written.
pub(super) enum Single<'a> {
    Float(f32),
    Int(i64),
    Str(Bytes),
    /// The tensor, and whether its values were written in braces.
    Tensor(Box<Tensor>, bool),
    Graph(Box<AstGraph<'a>>),
    Type(Box<Type>),
    Ref(String),
}

impl Single<'_> {
    fn attr_type(&self) -> Option<AttrType> {
        Some(match self {
            Single::Float(_) => AttrType::Float,
            Single::Int(_) => AttrType::Int,
            Single::Str(_) => AttrType::String,
            Single::Tensor(..) => AttrType::Tensor,
            Single::Graph(_) => AttrType::Graph,
            Single::Type(_) => AttrType::TypeProto,
            Single::Ref(_) => return None,
        })
    }
}

/// The element type name of a data type in text (`float`, `int64`...).
pub(super) fn dtype_by_name(name: &str) -> Option<i32> {
    (1..=28).find(|&d| dtype::name(d) == Some(name))
}

/// Identifiers that start a type where a type may stand.
pub(super) fn is_type_word(name: &str) -> bool {
    dtype_by_name(name).is_some()
        || matches!(
            name,
            "seq" | "map" | "optional" | "sparse_tensor" | "opaque"
        )
}

fn singleton(t: AttrType) -> AttrType {
    use AttrType::*;
    match t {
        Floats => Float,
        Ints => Int,
        Strings => String,
        Tensors => Tensor,
        Graphs => Graph,
        SparseTensors => SparseTensor,
        TypeProtos => TypeProto,
        other => other,
    }
}

fn list_of(t: AttrType) -> AttrType {
    use AttrType::*;
    match t {
        Float => Floats,
        Int => Ints,
        String => Strings,
        Tensor => Tensors,
        Graph => Graphs,
        SparseTensor => SparseTensors,
        TypeProto => TypeProtos,
        other => other,
    }
}

/// The position of the `k`-th attribute written in the list once the annotation's
/// `raw_attrs` are placed at their indices.
fn slot(k: usize, taken: &[usize]) -> usize {
    let mut free = 0;
    let mut i = 0;
    loop {
        if !taken.contains(&i) {
            if free == k {
                return i;
            }
            free += 1;
        }
        i += 1;
    }
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, extensions: bool) -> Self {
        Self {
            src,
            lex: Lexer::new(src, extensions),
            look: [Token {
                kind: Tk::Eof,
                start: 0,
                end: 0,
                hidden: false,
            }; LOOKAHEAD],
            look_head: 0,
            look_len: 0,
            extensions,
            in_annotation: 0,
            graph_depth: 0,
            nesting: 0,
            defaults: Defaults::default(),
        }
    }

    // ----- errors and tokens -----

    pub fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        ParseError::at(self.src, pos, message.into())
    }

    #[inline]
    pub fn peek(&mut self) -> PResult<Token> {
        self.peek_at(0)
    }

    /// The `n`-th token ahead (`n < LOOKAHEAD`).
    #[inline]
    pub fn peek_at(&mut self, n: usize) -> PResult<Token> {
        let n = n.min(LOOKAHEAD - 1);
        if self.look_len <= n {
            self.fill(n)?;
        }
        Ok(self.look[(self.look_head + n) % LOOKAHEAD])
    }

    #[inline(never)]
    fn fill(&mut self, n: usize) -> PResult<()> {
        while self.look_len <= n {
            let t = self
                .lex
                .next()
                .map_err(|e| ParseError::at(self.src, e.pos, e.message))?;
            self.look[(self.look_head + self.look_len) % LOOKAHEAD] = t;
            self.look_len += 1;
        }
        Ok(())
    }

    pub fn bump(&mut self) -> PResult<Token> {
        let t = self.peek()?;
        self.look_head = (self.look_head + 1) % LOOKAHEAD;
        self.look_len -= 1;
        if self.extensions && t.kind != Tk::Eof {
            if self.in_annotation == 0 && t.hidden {
                return Err(self.error_at(
                    t.start,
                    "a `#@` line holds only an annotation `{key: value, ...}` for the item after it",
                ));
            }
            if self.in_annotation > 0 && !t.hidden {
                return Err(self.error_at(
                    t.start,
                    "this annotation continues on a line without `#@`: start each of its lines with `#@`",
                ));
            }
        }
        Ok(t)
    }

    pub fn text(&self, t: &Token) -> &'a str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    pub fn describe(&self, t: &Token) -> String {
        match t.kind {
            Tk::Eof => "the end of the text".into(),
            Tk::Str { .. } => "a string".into(),
            Tk::Int | Tk::Float => format!("the number `{}`", self.text(t)),
            Tk::Ident => format!("`{}`", self.text(t)),
            Tk::Punct(c) => format!("`{}`", char::from(c)),
        }
    }

    pub fn unexpected(&self, t: &Token, expected: &str) -> ParseError {
        self.error_at(
            t.start,
            format!("expected {expected}, found {}", self.describe(t)),
        )
    }

    pub fn eat(&mut self, c: u8) -> PResult<bool> {
        if self.peek()?.is(c) {
            self.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    pub fn expect(&mut self, c: u8, context: &str) -> PResult<()> {
        let t = self.peek()?;
        if t.is(c) {
            self.bump()?;
            return Ok(());
        }
        Err(self.unexpected(&t, &format!("`{}` {context}", char::from(c))))
    }

    /// `=>`, written without space between the two characters.
    fn expect_arrow(&mut self) -> PResult<()> {
        let t = self.peek()?;
        let next = self.peek_at(1)?;
        if t.is(b'=') && next.is(b'>') && next.start == t.end {
            self.bump()?;
            self.bump()?;
            return Ok(());
        }
        Err(self.unexpected(&t, "`=>` between inputs and outputs"))
    }

    pub fn at_eof(&mut self) -> PResult<bool> {
        Ok(self.peek()?.kind == Tk::Eof)
    }

    pub fn enter_nesting(&mut self, at: usize) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(self.error_at(
                at,
                format!("types or annotations nest more than {MAX_NESTING} deep"),
            ));
        }
        Ok(())
    }

    pub fn leave_nesting(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    // ----- names and literals -----

    pub fn ident(&mut self, what: &str) -> PResult<&'a str> {
        let t = self.peek()?;
        if t.kind != Tk::Ident {
            return Err(self.unexpected(&t, what));
        }
        self.bump()?;
        Ok(self.text(&t))
    }

    fn opt_ident(&mut self) -> PResult<Option<&'a str>> {
        if self.peek()?.kind == Tk::Ident {
            let t = self.bump()?;
            return Ok(Some(self.text(&t)));
        }
        Ok(None)
    }

    /// The value of a string token (ONNX escapes, or Graft's on a `#@` line).
    pub fn string_token(&self, t: &Token) -> PResult<Cow<'a, str>> {
        let escaped = matches!(t.kind, Tk::Str { escaped: true });
        let text = self.text(t);
        if !t.hidden {
            return Ok(onnx_string(text, escaped));
        }
        match graft_string(text, escaped) {
            Ok(Cow::Borrowed(b)) => std::str::from_utf8(b)
                .map(Cow::Borrowed)
                .map_err(|_| self.error_at(t.start, "this text must be valid UTF-8")),
            Ok(Cow::Owned(b)) => String::from_utf8(b).map(Cow::Owned).map_err(|_| {
                self.error_at(
                    t.start,
                    "this text must be valid UTF-8 (no \\x escapes of non-UTF-8 bytes)",
                )
            }),
            Err((offset, message)) => Err(self.error_at(t.start + offset, message)),
        }
    }

    pub fn bytes_token(&self, t: &Token) -> PResult<Bytes> {
        let escaped = matches!(t.kind, Tk::Str { escaped: true });
        let text = self.text(t);
        if !t.hidden {
            return Ok(Bytes::from(onnx_string(text, escaped).into_owned()));
        }
        graft_string(text, escaped)
            .map(|b| Bytes::from(b.into_owned()))
            .map_err(|(offset, message)| self.error_at(t.start + offset, message))
    }

    pub fn str_lit(&mut self, what: &str) -> PResult<Cow<'a, str>> {
        let t = self.peek()?;
        if !matches!(t.kind, Tk::Str { .. }) {
            return Err(self.unexpected(&t, what));
        }
        self.bump()?;
        self.string_token(&t)
    }

    pub fn bytes_lit(&mut self, what: &str) -> PResult<Bytes> {
        let t = self.peek()?;
        if !matches!(t.kind, Tk::Str { .. }) {
            return Err(self.unexpected(&t, what));
        }
        self.bump()?;
        self.bytes_token(&t)
    }

    /// A name: an identifier or a quoted string.
    pub fn quotable(&mut self, what: &str) -> PResult<Name<'a>> {
        let t = self.peek()?;
        match t.kind {
            Tk::Ident => {
                self.bump()?;
                Ok(Cow::Borrowed(self.text(&t)))
            }
            Tk::Str { .. } => {
                self.bump()?;
                self.string_token(&t)
            }
            _ => Err(self.unexpected(&t, what)),
        }
    }

    /// An optional name (empty when absent).
    fn opt_quotable(&mut self) -> PResult<Name<'a>> {
        let t = self.peek()?;
        if matches!(t.kind, Tk::Ident | Tk::Str { .. }) {
            return self.quotable("a name");
        }
        Ok(Cow::Borrowed(""))
    }

    pub fn int_lit(&mut self, what: &str) -> PResult<i64> {
        let negative = self.eat(b'-')?;
        let t = self.peek()?;
        if t.kind != Tk::Int {
            return Err(self.unexpected(&t, what));
        }
        self.bump()?;
        values::parse_i64(negative, self.text(&t))
            .ok_or_else(|| self.error_at(t.start, "this integer does not fit in 64 bits"))
    }

    pub fn u64_lit(&mut self, what: &str) -> PResult<u64> {
        let negative = self.eat(b'-')?;
        let t = self.peek()?;
        if t.kind != Tk::Int {
            return Err(self.unexpected(&t, what));
        }
        self.bump()?;
        values::parse_u64(negative, self.text(&t))
            .ok_or_else(|| self.error_at(t.start, "this integer does not fit in 64 bits"))
    }

    pub fn f32_lit(&mut self, what: &str) -> PResult<f32> {
        let negative = self.eat(b'-')?;
        let t = self.peek()?;
        let text = self.text(&t);
        let ok = matches!(t.kind, Tk::Int | Tk::Float)
            || (t.kind == Tk::Ident && values::is_float_word(text));
        if !ok {
            return Err(self.unexpected(&t, what));
        }
        self.bump()?;
        values::parse_f32(negative, text)
            .ok_or_else(|| self.error_at(t.start, "not a valid float (or out of range)"))
    }

    pub fn f64_lit(&mut self, what: &str) -> PResult<f64> {
        let negative = self.eat(b'-')?;
        let t = self.peek()?;
        let text = self.text(&t);
        let ok = matches!(t.kind, Tk::Int | Tk::Float)
            || (t.kind == Tk::Ident && values::is_float_word(text));
        if !ok {
            return Err(self.unexpected(&t, what));
        }
        self.bump()?;
        values::parse_f64(negative, text)
            .ok_or_else(|| self.error_at(t.start, "not a valid double (or out of range)"))
    }

    /// `"key": "value", ...` (at least one pair).
    pub fn pairs(&mut self) -> PResult<Vec<StringPair>> {
        let mut out = Vec::new();
        loop {
            let key = self.str_lit("a string key")?.into_owned();
            self.expect(b':', "between key and value")?;
            let value = self.str_lit("a string value")?.into_owned();
            out.push(StringPair::new(key, value));
            if !self.eat(b',')? {
                return Ok(out);
            }
        }
    }

    /// `[ "domain" : version, ... ]`.
    fn opset_list(&mut self) -> PResult<Vec<OpsetId>> {
        self.expect(b'[', "to open the opset list")?;
        let mut out = Vec::new();
        if self.eat(b']')? {
            return Ok(out);
        }
        loop {
            let domain = self.str_lit("an opset domain string")?.into_owned();
            self.expect(b':', "between opset domain and version")?;
            let version = self.int_lit("an opset version")?;
            out.push(OpsetId {
                domain: Some(domain),
                version: Some(version),
            });
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b']', "to close the opset list")?;
        Ok(out)
    }

    // ----- model -----

    pub fn model(&mut self) -> PResult<AstModel<'a>> {
        let ann = if self.at_annotation()? {
            Some(self.model_annotation()?)
        } else {
            None
        };
        let mut model = Model::default();
        if self.eat(b'<')? {
            self.model_header(&mut model)?;
        }
        let graph = self.top_graph()?;
        let mut functions = Vec::new();
        while !self.at_eof()? {
            functions.push(self.function(false)?);
        }
        let mut ast = AstModel {
            model,
            graph: Some(graph),
            functions,
            training_info: Vec::new(),
            configuration: Vec::new(),
        };
        if let Some(ann) = ann {
            if let Some(o) = ann.opset_import {
                ast.model.opset_import = o;
            }
            if let Some(m) = ann.metadata_props {
                ast.model.metadata_props = m;
            }
            if ann.no_graph {
                ast.graph = None;
            }
            ast.training_info = ann.training_info;
            ast.configuration = ann.configuration;
        }
        Ok(ast)
    }

    fn model_header(&mut self, model: &mut Model) -> PResult<()> {
        loop {
            let at = self.peek()?;
            let key = self.ident("a model header key")?;
            self.expect(b':', "after the header key")?;
            match key {
                "ir_version" => model.ir_version = Some(self.int_lit("the IR version")?),
                "opset_import" => {
                    let o = self.opset_list()?;
                    model.opset_import.extend(o);
                }
                "producer_name" => {
                    model.producer_name = Some(self.str_lit("a string")?.into_owned())
                }
                "producer_version" => {
                    model.producer_version = Some(self.str_lit("a string")?.into_owned())
                }
                "domain" => model.domain = Some(self.str_lit("a string")?.into_owned()),
                "model_version" => model.model_version = Some(self.int_lit("an integer")?),
                "doc_string" => model.doc_string = Some(self.str_lit("a string")?.into_owned()),
                "metadata_props" => {
                    self.expect(b'[', "to open the metadata list")?;
                    if !self.eat(b']')? {
                        let p = self.pairs()?;
                        model.metadata_props.extend(p);
                        self.expect(b']', "to close the metadata list")?;
                    }
                }
                _ => {
                    return Err(self.error_at(
                        at.start,
                        format!(
                            "unknown model header key `{key}` (expected ir_version, opset_import, producer_name, producer_version, domain, model_version, doc_string or metadata_props)"
                        ),
                    ));
                }
            }
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b'>', "to close the model header")
    }

    // ----- graphs -----

    pub fn top_graph(&mut self) -> PResult<AstGraph<'a>> {
        let name = self.quotable("a graph name")?.into_owned();
        self.graph_rest(Some(name))
    }

    pub fn graph_rest(&mut self, name: Option<String>) -> PResult<AstGraph<'a>> {
        let at = self.peek()?.start;
        self.graph_depth += 1;
        if self.graph_depth > MAX_GRAPH_DEPTH {
            return Err(self.error_at(at, format!("graphs nest more than {MAX_GRAPH_DEPTH} deep")));
        }
        let mut g = AstGraph {
            name,
            ..AstGraph::default()
        };
        self.graph_head(&mut g, at)?;
        self.expect(b'{', "to open the graph's nodes")?;
        while !self.eat(b'}')? {
            g.nodes.push(self.node()?);
        }
        self.graph_depth -= 1;
        Ok(g)
    }

    /// Inputs, outputs, the `<...>` list and the annotation of a graph. Kept out of
    /// `graph_rest` so that the frames of nested graphs stay small.
    #[inline(never)]
    fn graph_head(&mut self, g: &mut AstGraph<'a>, at: usize) -> PResult<()> {
        if self.eat(b'(')? && !self.eat(b')')? {
            loop {
                let ann = self.item_annotation()?;
                let (name, ty) = self.value_info()?;
                if self.eat(b'=')? {
                    let (mut t, braces) = self.tensor_value(ty.as_ref())?;
                    self.finish_tensor(&mut t, braces, false, None, at)?;
                    g.initializers.push((Some(name.clone()), t));
                }
                g.inputs.push(self.info(Some(name), ty, ann, at)?);
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b')', "to close the graph inputs")?;
        }
        self.expect_arrow()?;
        self.expect(b'(', "to open the graph outputs")?;
        if !self.eat(b')')? {
            loop {
                let ann = self.item_annotation()?;
                let (name, ty) = self.value_info()?;
                g.outputs.push(self.info(Some(name), ty, ann, at)?);
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b')', "to close the graph outputs")?;
        }
        if self.eat(b'<')? && !self.eat(b'>')? {
            loop {
                let ann = self.item_annotation()?;
                let start = self.peek()?.start;
                let (name, ty) = self.value_info()?;
                if self.eat(b'=')? {
                    let (mut t, braces) = self.tensor_value(ty.as_ref())?;
                    let mut name = Some(name);
                    if let Some(ann) = ann {
                        if ann.ty.is_some() {
                            return Err(self.error_at(
                                start,
                                "`type` annotates a value info, not an initializer",
                            ));
                        }
                        if let Some(n) = ann.name {
                            name = n.map(Cow::Owned);
                        }
                        let mut extras = ann.tensor;
                        extras.doc_string = ann.doc_string;
                        extras.metadata_props = ann.metadata_props;
                        self.finish_tensor(&mut t, braces, false, Some(&extras), start)?;
                    } else {
                        self.finish_tensor(&mut t, braces, false, None, start)?;
                    }
                    g.initializers.push((name, t));
                } else {
                    g.value_info.push(self.info(Some(name), ty, ann, start)?);
                }
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b'>', "to close the value_info and initializer list")?;
        }
        if self.at_annotation()? {
            let ann = self.graph_annotation()?;
            if let Some(n) = ann.name {
                g.name = n;
            }
            g.doc_string = ann.doc_string;
            g.metadata_props = ann.metadata_props;
            g.sparse_initializers = ann.sparse_initializers;
            g.quantization_annotation = ann.quantization_annotation;
        }
        Ok(())
    }

    /// A value-info entry with its annotation applied.
    fn info(
        &self,
        name: Option<Name<'a>>,
        ty: Option<Type>,
        ann: Option<ItemAnn>,
        at: usize,
    ) -> PResult<AstInfo<'a>> {
        let mut info = AstInfo {
            name,
            info: ValueInfo {
                ty,
                ..ValueInfo::default()
            },
        };
        if let Some(ann) = ann {
            if !ann.tensor.is_empty() {
                return Err(self.error_at(
                    at,
                    "tensor keys annotate an initializer (`type name = value`), not a value info",
                ));
            }
            if let Some(n) = ann.name {
                info.name = n.map(Cow::Owned);
            }
            if let Some(t) = ann.ty {
                info.info.ty = t;
            }
            info.info.doc_string = ann.doc_string;
            info.info.metadata_props = ann.metadata_props;
        }
        Ok(info)
    }

    /// `[type] name`.
    fn value_info(&mut self) -> PResult<(Name<'a>, Option<Type>)> {
        let ty = if self.next_is_type()? {
            Some(self.parse_type()?)
        } else {
            None
        };
        let name = self.quotable("a value name")?;
        Ok((name, ty))
    }

    pub fn next_is_type(&mut self) -> PResult<bool> {
        let t = self.peek()?;
        Ok(t.kind == Tk::Ident && is_type_word(self.text(&t)))
    }

    // ----- types -----

    pub fn parse_type(&mut self) -> PResult<Type> {
        let t = self.peek()?;
        self.enter_nesting(t.start)?;
        let id = self.ident("a type")?;
        let value = if let Some(elem) = dtype_by_name(id) {
            TypeValue::Tensor(TensorType {
                elem_type: Some(elem),
                shape: self.opt_shape()?,
            })
        } else {
            match id {
                "seq" | "optional" => {
                    self.expect(b'(', "after the type keyword")?;
                    let inner = Box::new(self.parse_type()?);
                    self.expect(b')', "to close the type")?;
                    if id == "seq" {
                        TypeValue::Sequence(Some(inner))
                    } else {
                        TypeValue::Optional(Some(inner))
                    }
                }
                "map" => {
                    self.expect(b'(', "after `map`")?;
                    let k = self.peek()?;
                    let key = dtype_by_name(self.ident("a map key type")?).ok_or_else(|| {
                        self.error_at(k.start, "a map key must be a primitive type")
                    })?;
                    self.expect(b',', "after the map key type")?;
                    let value = Box::new(self.parse_type()?);
                    self.expect(b')', "to close the map type")?;
                    TypeValue::Map {
                        key_type: Some(key),
                        value_type: Some(value),
                    }
                }
                "sparse_tensor" => {
                    self.expect(b'(', "after `sparse_tensor`")?;
                    let e = self.peek()?;
                    let elem = dtype_by_name(self.ident("an element type")?).ok_or_else(|| {
                        self.error_at(
                            e.start,
                            "a sparse tensor's element must be a primitive type",
                        )
                    })?;
                    let shape = self.opt_shape()?;
                    self.expect(b')', "to close the sparse tensor type")?;
                    TypeValue::SparseTensor(TensorType {
                        elem_type: Some(elem),
                        shape,
                    })
                }
                "opaque" => {
                    self.expect(b'(', "after `opaque`")?;
                    let mut domain = None;
                    let mut name = None;
                    if !self.eat(b')')? {
                        let mut first = self.ident("an opaque type name")?.to_owned();
                        while self.eat(b'.')? {
                            first.push('.');
                            first.push_str(self.ident("a name part")?);
                        }
                        if self.eat(b',')? {
                            domain = Some(first);
                            name = Some(self.ident("an opaque type name")?.to_owned());
                        } else {
                            name = Some(first);
                        }
                        self.expect(b')', "to close the opaque type")?;
                    }
                    TypeValue::Opaque { domain, name }
                }
                _ => {
                    return Err(self.error_at(
                        t.start,
                        format!("`{id}` is not a type (expected an element type such as float, or seq, map, optional, sparse_tensor, opaque)"),
                    ));
                }
            }
        };
        self.leave_nesting();
        Ok(Type {
            value: Some(value),
            denotation: None,
        })
    }

    /// `[dims]` after an element type: none for a scalar (rank 0), `[]` for unknown rank.
    fn opt_shape(&mut self) -> PResult<Option<Shape>> {
        if !self.eat(b'[')? {
            return Ok(Some(Shape::default()));
        }
        if self.eat(b']')? {
            return Ok(None);
        }
        let mut shape = Shape::default();
        loop {
            let t = self.peek()?;
            let value = match t.kind {
                Tk::Punct(b'?') => {
                    self.bump()?;
                    None
                }
                Tk::Str { .. } | Tk::Ident => {
                    Some(DimValue::Param(self.quotable("a dimension")?.into_owned()))
                }
                _ => Some(DimValue::Value(self.int_lit("a dimension")?)),
            };
            shape.dims.push(Dim {
                value,
                denotation: None,
            });
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b']', "to close the shape")?;
        Ok(Some(shape))
    }

    // ----- nodes -----

    fn node(&mut self) -> PResult<AstNode<'a>> {
        let ann = self.opt_node_annotation()?;
        let at = self.peek()?.start;
        let mut n = AstNode::default();
        self.node_head(&mut n)?;
        let (taken, extras): (Vec<usize>, &[(usize, AttrExtras)]) = match &ann {
            Some(a) => (a.raw_attrs.iter().map(|(i, _)| *i).collect(), &a.attrs),
            None => (Vec::new(), &[]),
        };
        let mut attributes = Vec::new();
        if self.peek()?.is(b'<') {
            attributes = self.attr_list(&taken, extras)?;
        }
        self.node_inputs(&mut n)?;
        if attributes.is_empty() && self.peek()?.is(b'<') {
            attributes = self.attr_list(&taken, extras)?;
        }
        n.attributes = attributes;
        if let Some(ann) = ann {
            self.apply_node_annotation(&mut n, *ann, at)?;
        }
        Ok(n)
    }

    #[inline(never)]
    fn opt_node_annotation(&mut self) -> PResult<Option<Box<NodeAnn<'a>>>> {
        if self.at_annotation()? {
            return Ok(Some(Box::new(self.node_annotation()?)));
        }
        Ok(None)
    }

    /// `[name] outputs = domain.op:overload`.
    #[inline(never)]
    fn node_head(&mut self, n: &mut AstNode<'a>) -> PResult<()> {
        if self.eat(b'[')? {
            n.name = Some(self.opt_quotable()?.into_owned());
            self.expect(b']', "to close the node name")?;
        }
        n.outputs = self.id_list()?;
        self.expect(b'=', "after the node's outputs")?;
        let mut op = self.opt_ident()?.unwrap_or("");
        let mut domain = String::new();
        while self.eat(b'.')? {
            if !domain.is_empty() {
                domain.push('.');
            }
            domain.push_str(op);
            op = self.ident("an operator name")?;
        }
        n.domain = if domain.is_empty() && self.defaults.node_domain_none {
            None
        } else {
            Some(domain)
        };
        n.op_type = Some(op.to_owned());
        if self.eat(b':')? {
            n.overload = Some(self.ident("an overload name")?.to_owned());
        }
        Ok(())
    }

    #[inline(never)]
    fn node_inputs(&mut self, n: &mut AstNode<'a>) -> PResult<()> {
        self.expect(b'(', "to open the node's inputs")?;
        n.inputs = self.id_list()?;
        self.expect(b')', "to close the node's inputs")
    }

    #[inline(never)]
    fn apply_node_annotation(
        &self,
        n: &mut AstNode<'a>,
        ann: NodeAnn<'a>,
        at: usize,
    ) -> PResult<()> {
        if let Some(d) = ann.domain {
            n.domain = d;
        }
        if let Some(o) = ann.op_type {
            n.op_type = o;
        }
        if let Some(o) = ann.overload {
            n.overload = o;
        }
        n.doc_string = ann.doc_string;
        n.metadata_props = ann.metadata_props;
        n.device_configurations = ann.device_configurations;
        n.attributes = self.merge_attrs(
            std::mem::take(&mut n.attributes),
            ann.raw_attrs,
            &ann.attrs,
            at,
        )?;
        Ok(())
    }

    /// Places annotated (`raw_attrs`) attributes at their indices among the written
    /// ones, and checks that every `attrs` index names an attribute.
    pub fn merge_attrs(
        &self,
        written: Vec<AstAttr<'a>>,
        mut raw: Vec<(usize, AstAttr<'a>)>,
        extras: &[(usize, AttrExtras)],
        at: usize,
    ) -> PResult<Vec<AstAttr<'a>>> {
        let total = written.len() + raw.len();
        for (i, _) in &raw {
            if *i >= total {
                return Err(self.error_at(
                    at,
                    format!("raw_attrs index {i} is past the {total} attributes"),
                ));
            }
        }
        for (i, _) in extras {
            if *i >= total || raw.iter().any(|(r, _)| r == i) {
                return Err(self.error_at(
                    at,
                    format!("attrs index {i} does not name a written attribute"),
                ));
            }
        }
        if raw.is_empty() {
            return Ok(written);
        }
        raw.sort_by_key(|(i, _)| *i);
        let mut out = Vec::with_capacity(total);
        let mut written = written.into_iter();
        let mut raw = raw.into_iter().peekable();
        for i in 0..total {
            if raw.peek().is_some_and(|(r, _)| *r == i) {
                if let Some((_, a)) = raw.next() {
                    out.push(a);
                }
            } else if let Some(a) = written.next() {
                out.push(a);
            }
        }
        Ok(out)
    }

    /// A list of names as onnx reads node inputs and outputs: `""` (or nothing before a
    /// comma) is the empty name; a trailing comma is allowed.
    fn id_list(&mut self) -> PResult<Vec<Name<'a>>> {
        let mut out = Vec::new();
        match self.list_id()? {
            None => return Ok(out),
            Some(id) => out.push(id),
        }
        while self.eat(b',')? {
            match self.list_id()? {
                None => break,
                Some(id) => out.push(id),
            }
        }
        Ok(out)
    }

    fn list_id(&mut self) -> PResult<Option<Name<'a>>> {
        let t = self.peek()?;
        match t.kind {
            Tk::Ident | Tk::Str { .. } => Ok(Some(self.quotable("a name")?)),
            Tk::Punct(b',') => Ok(Some(Cow::Borrowed(""))),
            _ => Ok(None),
        }
    }

    // ----- attributes -----

    fn attr_list(
        &mut self,
        taken: &[usize],
        extras: &[(usize, AttrExtras)],
    ) -> PResult<Vec<AstAttr<'a>>> {
        self.expect(b'<', "to open the attributes")?;
        let mut out = Vec::new();
        loop {
            let name = self.ident("an attribute name")?.to_owned();
            let index = slot(out.len(), taken);
            let x = extras.iter().find(|(i, _)| *i == index).map(|(_, x)| x);
            out.push(self.attr_after_name(name, x)?);
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b'>', "to close the attributes")?;
        Ok(out)
    }

    /// `[: type] = value` after an attribute's name.
    pub fn attr_after_name(
        &mut self,
        name: String,
        extras: Option<&AttrExtras>,
    ) -> PResult<AstAttr<'a>> {
        let declared = self.declared_type()?;
        let at = self.peek()?.start;
        let mut a = AstAttr {
            name: Some(name),
            ..AstAttr::default()
        };
        if self.peek()?.is(b'[') {
            self.attr_list_value(&mut a, declared, extras, at)?;
        } else {
            let v = self.single_value(declared)?;
            self.store_single(&mut a, v, declared, extras, at)?;
        }
        if let Some(x) = extras {
            a.doc_string.clone_from(&x.doc_string);
        }
        Ok(a)
    }

    /// `[: type] =` before an attribute value.
    #[inline(never)]
    fn declared_type(&mut self) -> PResult<Option<AttrType>> {
        let mut declared = None;
        if self.eat(b':')? {
            let t = self.peek()?;
            let tname = self.ident("an attribute type")?;
            declared = Some(AttrType::from_name(tname).ok_or_else(|| {
                self.error_at(t.start, format!("`{tname}` is not an attribute type"))
            })?);
        }
        self.expect(b'=', "before the attribute value")?;
        Ok(declared)
    }

    #[inline(never)]
    fn store_single(
        &self,
        a: &mut AstAttr<'a>,
        v: Single<'a>,
        declared: Option<AttrType>,
        extras: Option<&AttrExtras>,
        at: usize,
    ) -> PResult<()> {
        if let Some(ty) = declared {
            a.r#type = Some(ty.to_proto());
        }
        match v {
            Single::Float(f) => a.f = Some(f),
            Single::Int(i) => a.i = Some(i),
            Single::Str(s) => a.s = Some(s),
            Single::Tensor(mut t, braces) => {
                self.finish_tensor(
                    &mut t,
                    braces,
                    true,
                    extras.and_then(|x| x.tensor.as_ref()),
                    at,
                )?;
                a.t = Some(t);
            }
            Single::Graph(g) => a.g = Some(g),
            Single::Type(t) => a.tp = Some(*t),
            Single::Ref(r) => a.ref_attr_name = Some(r),
        }
        if let Some(ty) = v_type(a) {
            a.r#type = Some(ty);
        }
        Ok(())
    }

    fn attr_list_value(
        &mut self,
        a: &mut AstAttr<'a>,
        declared: Option<AttrType>,
        extras: Option<&AttrExtras>,
        at: usize,
    ) -> PResult<()> {
        self.expect(b'[', "to open the list")?;
        if self.eat(b']')? {
            match declared {
                None => {
                    return Err(self.error_at(
                        at,
                        "an empty list needs its type: write `name: ints = []` (or floats, strings...)",
                    ));
                }
                Some(t) if singleton(t) == t => {
                    return Err(self.error_at(
                        at,
                        format!("a {} attribute cannot be an empty list", t.name()),
                    ));
                }
                Some(t) => a.r#type = Some(t.to_proto()),
            }
            return Ok(());
        }
        let mut elem = declared.map(singleton);
        loop {
            let p = self.peek()?.start;
            let v = self.single_value(elem)?;
            let ty = v
                .attr_type()
                .ok_or_else(|| self.error_at(p, "a list cannot hold an attribute reference"))?;
            elem = Some(ty);
            match v {
                Single::Float(f) => a.floats.push(f),
                Single::Int(i) => a.ints.push(i),
                Single::Str(s) => a.strings.push(s),
                Single::Tensor(mut t, braces) => {
                    let x = extras.and_then(|x| {
                        x.tensors
                            .iter()
                            .find(|(i, _)| *i == a.tensors.len())
                            .map(|(_, t)| t)
                    });
                    self.finish_tensor(&mut t, braces, true, x, p)?;
                    a.tensors.push(*t);
                }
                Single::Graph(g) => a.graphs.push(*g),
                Single::Type(t) => a.type_protos.push(*t),
                Single::Ref(_) => {}
            }
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b']', "to close the list")?;
        a.r#type = elem.map(|t| list_of(t).to_proto());
        Ok(())
    }

    /// One attribute value, as onnx's `ParseSingleAttributeValue` reads it.
    fn single_value(&mut self, expected: Option<AttrType>) -> PResult<Single<'a>> {
        let t = self.peek()?;
        let graph = t.kind == Tk::Ident && {
            let text = self.text(&t);
            !is_type_word(text) && !values::is_float_word(text)
        };
        let value = if graph {
            self.bump()?;
            let name = self.text(&t).to_owned();
            // A graph goes on with its inputs; a bare word alone is a value mistyped.
            if !self.peek()?.is(b'(') {
                return Err(self.error_at(
                    t.start,
                    format!(
                        "`{name}` is not a value: write a number (2, 0.5), a string in quotes (\"{name}\"), a list ([1, 2]) or a graph (name (inputs) => (outputs) {{ … }})"
                    ),
                ));
            }
            Single::Graph(Box::new(self.graph_rest(Some(name))?))
        } else {
            self.plain_value(expected)?
        };
        if let (Some(e), Some(got)) = (expected, value.attr_type())
            && e != got
        {
            let hint = if e == AttrType::Tensor && got == AttrType::TypeProto {
                " (after a tensor's type come its name, an identifier, and its values: \
                 `float[2] w {1, 2}`; a quoted name cannot stand there)"
            } else {
                ""
            };
            return Err(self.error_at(
                t.start,
                format!(
                    "the attribute is declared {} but the value is {}{hint}",
                    e.name(),
                    got.name()
                ),
            ));
        }
        Ok(value)
    }

    /// An attribute value other than a graph: a type, a tensor, a reference or a
    /// literal.
    #[inline(never)]
    fn plain_value(&mut self, expected: Option<AttrType>) -> PResult<Single<'a>> {
        let t = self.peek()?;
        Ok(match t.kind {
            Tk::Ident if is_type_word(self.text(&t)) => {
                let ty = self.parse_type()?;
                let next = self.peek()?;
                if next.is(b'{') || next.is(b'=') || next.kind == Tk::Ident {
                    let name = match next.kind {
                        Tk::Ident => {
                            self.bump()?;
                            Some(self.text(&next).to_owned())
                        }
                        _ if self.defaults.tensor_name_none => None,
                        _ => Some(String::new()),
                    };
                    self.eat(b'=')?;
                    let (mut tensor, braces) = self.tensor_value(Some(&ty))?;
                    tensor.name = name;
                    Single::Tensor(Box::new(tensor), braces)
                } else {
                    Single::Type(Box::new(ty))
                }
            }
            Tk::Ident => Single::Float(self.f32_lit("a float")?),
            Tk::Punct(b'@') => {
                self.bump()?;
                Single::Ref(
                    self.quotable("the referenced attribute's name")?
                        .into_owned(),
                )
            }
            Tk::Str { .. } => {
                self.bump()?;
                Single::Str(self.bytes_token(&t)?)
            }
            _ => {
                let negative = self.eat(b'-')?;
                let n = self.peek()?;
                let text = self.text(&n);
                match n.kind {
                    Tk::Int if expected != Some(AttrType::Float) => {
                        self.bump()?;
                        Single::Int(values::parse_i64(negative, text).ok_or_else(|| {
                            self.error_at(n.start, "this integer does not fit in 64 bits")
                        })?)
                    }
                    Tk::Int | Tk::Float => {
                        self.bump()?;
                        Single::Float(values::parse_f32(negative, text).ok_or_else(|| {
                            self.error_at(n.start, "not a valid float (or out of range)")
                        })?)
                    }
                    Tk::Ident if negative && values::is_float_word(text) => {
                        self.bump()?;
                        Single::Float(values::parse_f32(true, text).unwrap_or(f32::NAN))
                    }
                    _ => return Err(self.unexpected(&n, "an attribute value")),
                }
            }
        })
    }

    // ----- functions -----

    pub fn function(&mut self, standalone: bool) -> PResult<AstFunction<'a>> {
        let ann = if self.at_annotation()? {
            Some(self.function_annotation(standalone)?)
        } else {
            None
        };
        let at = self.peek()?.start;
        let mut f = AstFunction::default();
        if self.eat(b'<')? {
            loop {
                let k = self.peek()?;
                let key = self.ident("a function header key")?;
                self.expect(b':', "after the header key")?;
                match key {
                    "opset_import" => {
                        let o = self.opset_list()?;
                        f.opset_import.extend(o);
                    }
                    "doc_string" => f.doc_string = Some(self.str_lit("a string")?.into_owned()),
                    "domain" => f.domain = Some(self.str_lit("a string")?.into_owned()),
                    "overload" => f.overload = Some(self.str_lit("a string")?.into_owned()),
                    _ => {
                        return Err(self.error_at(
                            k.start,
                            format!("unknown function header key `{key}` (expected domain, overload, opset_import or doc_string)"),
                        ));
                    }
                }
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b'>', "to close the function header")?;
        }
        f.name = Some(self.quotable("a function name")?.into_owned());
        let empty = super::annot::FunctionAnn::default();
        let a = ann.as_ref().unwrap_or(&empty);
        let taken: Vec<usize> = a.raw_attrs.iter().map(|(i, _)| *i).collect();
        let mut written = Vec::new();
        if self.eat(b'<')? {
            loop {
                let id = self.quotable("an attribute name")?.into_owned();
                let n = self.peek()?;
                if n.is(b':') || n.is(b'=') {
                    let index = slot(written.len(), &taken);
                    let x = a.attrs.iter().find(|(i, _)| *i == index).map(|(_, x)| x);
                    written.push(self.attr_after_name(id, x)?);
                } else {
                    f.attribute.push(id);
                }
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b'>', "to close the attribute declarations")?;
        }
        let mut typed = Vec::new();
        f.inputs = self.formals(&mut typed, "inputs")?;
        self.expect_arrow()?;
        f.outputs = self.formals(&mut typed, "outputs")?;
        f.value_info = typed;
        if self.eat(b'<')? && !self.eat(b'>')? {
            loop {
                let ann = self.item_annotation()?;
                let start = self.peek()?.start;
                let (name, ty) = self.value_info()?;
                f.value_info.push(self.info(Some(name), ty, ann, start)?);
                if !self.eat(b',')? {
                    break;
                }
            }
            self.expect(b'>', "to close the value_info list")?;
        }
        self.expect(b'{', "to open the function's nodes")?;
        self.graph_depth += 1;
        while !self.eat(b'}')? {
            f.nodes.push(self.node()?);
        }
        self.graph_depth -= 1;
        if let Some(ann) = ann {
            if let Some(n) = ann.name {
                f.name = n;
            }
            if let Some(o) = ann.opset_import {
                f.opset_import = o;
            }
            f.metadata_props = ann.metadata_props;
            f.attribute_proto = self.merge_attrs(written, ann.raw_attrs, &ann.attrs, at)?;
        } else {
            f.attribute_proto = written;
        }
        Ok(f)
    }

    /// A function's formal inputs or outputs: `([type] name, ...)`; typed ones add a
    /// value_info entry.
    fn formals(&mut self, typed: &mut Vec<AstInfo<'a>>, what: &str) -> PResult<Vec<Name<'a>>> {
        self.expect(b'(', &format!("to open the function's {what}"))?;
        let mut out = Vec::new();
        if self.eat(b')')? {
            return Ok(out);
        }
        loop {
            let (name, ty) = self.value_info()?;
            if let Some(ty) = ty {
                typed.push(AstInfo {
                    name: Some(name.clone()),
                    info: ValueInfo {
                        ty: Some(ty),
                        ..ValueInfo::default()
                    },
                });
            }
            out.push(name);
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b')', &format!("to close the function's {what}"))?;
        Ok(out)
    }
}

/// The attribute type that the one value field set on `a` implies.
fn v_type(a: &AstAttr<'_>) -> Option<i32> {
    let t = if a.ref_attr_name.is_some() {
        return a.r#type;
    } else if a.f.is_some() {
        AttrType::Float
    } else if a.i.is_some() {
        AttrType::Int
    } else if a.s.is_some() {
        AttrType::String
    } else if a.t.is_some() {
        AttrType::Tensor
    } else if a.g.is_some() {
        AttrType::Graph
    } else if a.tp.is_some() {
        AttrType::TypeProto
    } else {
        return a.r#type;
    };
    Some(t.to_proto())
}
