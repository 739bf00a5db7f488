//! Pieces of ONNX text and of annotations, written into a `String`: names, strings,
//! lists, records, types. `h` says that the text goes on a `#@` line (strings use
//! Graft's escapes there).

use super::parse::is_type_word;
use super::values;
use crate::ir::*;

/// A record being written: `key: value, ...` (braces added by [`Rec::finish`]).
#[derive(Default)]
pub(super) struct Rec {
    pub s: String,
}

impl Rec {
    pub fn key(&mut self, k: &str) -> &mut String {
        if !self.s.is_empty() {
            self.s.push_str(", ");
        }
        self.s.push_str(k);
        self.s.push_str(": ");
        &mut self.s
    }

    pub fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    pub fn finish(&self) -> String {
        format!("{{{}}}", self.s)
    }
}

/// A name as ONNX text writes it: bare when it is an identifier that is not a type
/// word, quoted otherwise.
pub(super) fn write_name(out: &mut String, s: &str, h: bool) {
    if crate::ir::is_identifier(s) && !is_type_word(s) {
        out.push_str(s);
    } else {
        write_onnx_str(out, s, h);
    }
}

/// A string in ONNX syntax: `\` before `"` and `\`, everything else as it is. On a
/// `#@` line (`h`, inside an annotation) Graft's escapes are used instead, so that a
/// line break does not end the line (for other strings both spell the same).
pub(super) fn write_onnx_str(out: &mut String, s: &str, h: bool) {
    if h {
        write_ann_str(out, s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// A string in an annotation (Graft's escapes; any bytes).
pub(super) fn write_ann_bytes(out: &mut String, b: &[u8]) {
    out.push('"');
    let mut rest = b;
    while !rest.is_empty() {
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s, 0),
            Err(e) => {
                let (v, _) = rest.split_at(e.valid_up_to());
                let bad = e.error_len().unwrap_or(rest.len() - e.valid_up_to());
                (std::str::from_utf8(v).unwrap_or(""), bad)
            }
        };
        for c in valid.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                }
                c => out.push(c),
            }
        }
        let after = valid.len();
        for &byte in rest.get(after..after + bad).unwrap_or(&[]) {
            out.push_str(&format!("\\x{byte:02x}"));
        }
        rest = rest.get(after + bad..).unwrap_or(&[]);
    }
    out.push('"');
}

pub(super) fn write_ann_str(out: &mut String, s: &str) {
    write_ann_bytes(out, s.as_bytes());
}

pub(super) fn write_ann_opt_str(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => write_ann_str(out, s),
        None => out.push_str("none"),
    }
}

pub(super) fn write_ann_opt_int(out: &mut String, v: Option<i64>) {
    match v {
        Some(v) => values::write_i64(out, v),
        None => out.push_str("none"),
    }
}

pub(super) fn write_list<T>(out: &mut String, items: &[T], mut f: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        f(out, item);
    }
    out.push(']');
}

pub(super) fn write_ann_pairs(out: &mut String, pairs: &[StringPair]) {
    write_list(out, pairs, |out, p| {
        write_ann_opt_str(out, p.key.as_deref());
        out.push_str(": ");
        write_ann_opt_str(out, p.value.as_deref());
    });
}

pub(super) fn pairs_standard(pairs: &[StringPair]) -> bool {
    pairs.iter().all(|p| p.key.is_some() && p.value.is_some())
}

pub(super) fn write_onnx_pairs(out: &mut String, pairs: &[StringPair], h: bool) {
    write_list(out, pairs, |out, p| {
        write_onnx_str(out, p.key(), h);
        out.push_str(": ");
        write_onnx_str(out, p.value(), h);
    });
}

pub(super) fn opsets_standard(o: &[OpsetId]) -> bool {
    o.iter().all(|o| o.domain.is_some() && o.version.is_some())
}

pub(super) fn write_opsets(out: &mut String, o: &[OpsetId], h: bool) {
    write_list(out, o, |out, o| {
        write_onnx_str(out, o.domain.as_deref().unwrap_or(""), h);
        out.push_str(" : ");
        values::write_i64(out, o.version.unwrap_or(0));
    });
}

pub(super) fn write_ann_opsets(out: &mut String, o: &[OpsetId]) {
    write_list(out, o, |out, o| {
        write_ann_opt_str(out, o.domain.as_deref());
        out.push_str(": ");
        write_ann_opt_int(out, o.version);
    });
}

pub(super) fn write_ints(out: &mut String, v: &[i64]) {
    write_list(out, v, |out, &v| values::write_i64(out, v));
}

/// Bytes that an ONNX string literal can hold: UTF-8 without control characters
/// other than tab and line breaks (onnx.parser stops reading at a NUL).
pub(super) fn onnx_text(b: &[u8]) -> bool {
    std::str::from_utf8(b).is_ok_and(|s| {
        !s.chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    })
}

pub(super) fn valid_dtype(d: Option<i32>) -> Option<i32> {
    d.filter(|d| (1..=28).contains(d))
}

/// A domain ONNX text can write before an operator: dotted identifiers.
pub(super) fn domain_writable(d: &str) -> bool {
    !d.is_empty() && d.split('.').all(crate::ir::is_identifier)
}

/// A graph name a GRAPH attribute can carry: onnx.parser reads a type word or a float
/// word there as something else.
pub(super) fn attr_graph_name(s: &str) -> bool {
    crate::ir::is_identifier(s) && !is_type_word(s) && !values::is_float_word(s)
}

// ----- types -----

pub(super) fn shape_writable(s: &Shape) -> bool {
    s.dims.iter().all(|d| d.denotation.is_none())
}

/// Whether ONNX type syntax writes this type exactly.
pub(super) fn type_exact(t: &Type) -> bool {
    t.denotation.is_none() && type_structure(t, true)
}

/// Whether ONNX type syntax can write this type, denotations left out (`exact`: none
/// may be present).
pub(super) fn type_structure(t: &Type, exact: bool) -> bool {
    if exact && t.denotation.is_some() {
        return false;
    }
    let tensor = |tt: &TensorType| {
        valid_dtype(tt.elem_type).is_some()
            && tt
                .shape
                .as_ref()
                .is_none_or(|s| !exact || shape_writable(s))
    };
    match &t.value {
        None => false,
        Some(TypeValue::Tensor(tt)) | Some(TypeValue::SparseTensor(tt)) => tensor(tt),
        Some(TypeValue::Sequence(e)) | Some(TypeValue::Optional(e)) => {
            e.as_deref().is_some_and(|e| type_structure(e, exact))
        }
        Some(TypeValue::Map {
            key_type,
            value_type,
        }) => {
            valid_dtype(*key_type).is_some()
                && value_type
                    .as_deref()
                    .is_some_and(|v| type_structure(v, exact))
        }
        Some(TypeValue::Opaque { domain, name }) => match (domain, name) {
            (None, None) => true,
            (None, Some(n)) => domain_writable(n),
            (Some(d), Some(n)) => domain_writable(d) && crate::ir::is_identifier(n),
            (Some(_), None) => false,
        },
    }
}

pub(super) fn write_shape(out: &mut String, shape: &Option<Shape>, h: bool) {
    match shape {
        None => out.push_str("[]"),
        Some(s) if s.dims.is_empty() => {}
        Some(s) => {
            out.push('[');
            for (i, d) in s.dims.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match &d.value {
                    Some(DimValue::Value(v)) => values::write_i64(out, *v),
                    Some(DimValue::Param(p)) => {
                        if crate::ir::is_identifier(p) {
                            out.push_str(p);
                        } else {
                            write_onnx_str(out, p, h);
                        }
                    }
                    None => out.push('?'),
                }
            }
            out.push(']');
        }
    }
}

/// Writes a type in ONNX syntax (check [`type_structure`] first).
pub(super) fn write_type(out: &mut String, t: &Type, h: bool) {
    let elem = |d: Option<i32>| dtype::name(d.unwrap_or(0)).unwrap_or("undefined");
    match &t.value {
        Some(TypeValue::Tensor(tt)) => {
            out.push_str(elem(tt.elem_type));
            write_shape(out, &tt.shape, h);
        }
        Some(TypeValue::SparseTensor(tt)) => {
            out.push_str("sparse_tensor(");
            out.push_str(elem(tt.elem_type));
            write_shape(out, &tt.shape, h);
            out.push(')');
        }
        Some(TypeValue::Sequence(e)) | Some(TypeValue::Optional(e)) => {
            out.push_str(if matches!(t.value, Some(TypeValue::Sequence(_))) {
                "seq("
            } else {
                "optional("
            });
            if let Some(e) = e {
                write_type(out, e, h);
            }
            out.push(')');
        }
        Some(TypeValue::Map {
            key_type,
            value_type,
        }) => {
            out.push_str("map(");
            out.push_str(elem(*key_type));
            out.push_str(", ");
            if let Some(v) = value_type {
                write_type(out, v, h);
            }
            out.push(')');
        }
        Some(TypeValue::Opaque { domain, name }) => {
            out.push_str("opaque(");
            if let Some(d) = domain {
                out.push_str(d);
                out.push_str(", ");
            }
            if let Some(n) = name {
                out.push_str(n);
            }
            out.push(')');
        }
        None => {}
    }
}

pub(super) fn write_elem_type(out: &mut String, d: Option<i32>) {
    match d {
        Some(d) => match valid_dtype(Some(d)).and_then(dtype::name) {
            Some(name) => out.push_str(name),
            None => values::write_i64(out, i64::from(d)),
        },
        None => out.push_str("none"),
    }
}

/// A type in an annotation: ONNX syntax when exact, a record otherwise.
pub(super) fn write_ann_type(out: &mut String, t: &Type) {
    if type_exact(t) {
        write_type(out, t, true);
        return;
    }
    let mut r = Rec::default();
    let tensor_type = |out: &mut String, tt: &TensorType| {
        let mut r = Rec::default();
        if tt.elem_type.is_some() {
            write_elem_type(r.key("elem_type"), tt.elem_type);
        }
        if let Some(s) = &tt.shape {
            write_list(r.key("shape"), &s.dims, |out, d| {
                if d.denotation.is_some() {
                    let mut dr = Rec::default();
                    match &d.value {
                        Some(DimValue::Value(v)) => values::write_i64(dr.key("value"), *v),
                        Some(DimValue::Param(p)) => write_ann_str(dr.key("param"), p),
                        None => {}
                    }
                    if let Some(den) = &d.denotation {
                        write_ann_str(dr.key("denotation"), den);
                    }
                    out.push_str(&dr.finish());
                    return;
                }
                match &d.value {
                    Some(DimValue::Value(v)) => values::write_i64(out, *v),
                    Some(DimValue::Param(p)) => write_ann_str(out, p),
                    None => out.push('?'),
                }
            });
        }
        out.push_str(&r.finish());
    };
    let opt_type = |out: &mut String, e: &Option<Box<Type>>| match e {
        Some(e) => write_ann_type(out, e),
        None => out.push_str("none"),
    };
    match &t.value {
        None => {}
        Some(TypeValue::Tensor(tt)) => tensor_type(r.key("tensor"), tt),
        Some(TypeValue::SparseTensor(tt)) => tensor_type(r.key("sparse_tensor"), tt),
        Some(TypeValue::Sequence(e)) => opt_type(r.key("sequence"), e),
        Some(TypeValue::Optional(e)) => opt_type(r.key("optional"), e),
        Some(TypeValue::Map {
            key_type,
            value_type,
        }) => {
            let mut mr = Rec::default();
            if key_type.is_some() {
                write_elem_type(mr.key("key_type"), *key_type);
            }
            if value_type.is_some() {
                opt_type(mr.key("value_type"), value_type);
            }
            r.key("map").push_str(&mr.finish());
        }
        Some(TypeValue::Opaque { domain, name }) => {
            let mut or = Rec::default();
            if let Some(d) = domain {
                write_ann_str(or.key("domain"), d);
            }
            if let Some(n) = name {
                write_ann_str(or.key("name"), n);
            }
            r.key("opaque").push_str(&or.finish());
        }
    }
    if let Some(d) = &t.denotation {
        write_ann_str(r.key("denotation"), d);
    }
    out.push_str(&r.finish());
}

/// The same type with every denotation removed.
pub(super) fn strip_denotations(t: &Type) -> Type {
    let shape = |s: &Option<Shape>| {
        s.as_ref().map(|s| Shape {
            dims: s
                .dims
                .iter()
                .map(|d| Dim {
                    value: d.value.clone(),
                    denotation: None,
                })
                .collect(),
        })
    };
    let inner = |e: &Option<Box<Type>>| e.as_deref().map(|e| Box::new(strip_denotations(e)));
    Type {
        denotation: None,
        value: t.value.as_ref().map(|v| match v {
            TypeValue::Tensor(tt) => TypeValue::Tensor(TensorType {
                elem_type: tt.elem_type,
                shape: shape(&tt.shape),
            }),
            TypeValue::SparseTensor(tt) => TypeValue::SparseTensor(TensorType {
                elem_type: tt.elem_type,
                shape: shape(&tt.shape),
            }),
            TypeValue::Sequence(e) => TypeValue::Sequence(inner(e)),
            TypeValue::Optional(e) => TypeValue::Optional(inner(e)),
            TypeValue::Map {
                key_type,
                value_type,
            } => TypeValue::Map {
                key_type: *key_type,
                value_type: inner(value_type),
            },
            other => other.clone(),
        }),
    }
}

/// `index: text` in an index map record.
pub(super) fn index_entry(r: &mut Rec, index: usize, text: &str) {
    if !r.s.is_empty() {
        r.s.push_str(", ");
    }
    values::write_u64(&mut r.s, index as u64);
    r.s.push_str(": ");
    r.s.push_str(text);
}

pub(super) fn write_node_device(out: &mut String, c: &NodeDeviceConfiguration) {
    let mut r = Rec::default();
    if let Some(id) = &c.configuration_id {
        write_ann_str(r.key("configuration_id"), id);
    }
    if !c.sharding_spec.is_empty() {
        write_list(r.key("sharding_spec"), &c.sharding_spec, |out, s| {
            let mut sr = Rec::default();
            if let Some(n) = &s.tensor_name {
                write_ann_str(sr.key("tensor_name"), n);
            }
            if !s.device.is_empty() {
                write_ints(sr.key("device"), &s.device);
            }
            if !s.index_to_device_group_map.is_empty() {
                write_list(
                    sr.key("index_to_device_group_map"),
                    &s.index_to_device_group_map,
                    |out, e| {
                        let mut er = Rec::default();
                        if let Some(k) = e.key {
                            values::write_i64(er.key("key"), k);
                        }
                        if !e.value.is_empty() {
                            write_ints(er.key("value"), &e.value);
                        }
                        out.push_str(&er.finish());
                    },
                );
            }
            if !s.sharded_dim.is_empty() {
                write_list(sr.key("sharded_dim"), &s.sharded_dim, |out, d| {
                    let mut dr = Rec::default();
                    if let Some(a) = d.axis {
                        values::write_i64(dr.key("axis"), a);
                    }
                    if !d.simple_sharding.is_empty() {
                        write_list(dr.key("simple_sharding"), &d.simple_sharding, |out, s| {
                            let mut ssr = Rec::default();
                            match &s.dim {
                                Some(DimValue::Value(v)) => {
                                    values::write_i64(ssr.key("dim_value"), *v)
                                }
                                Some(DimValue::Param(p)) => write_ann_str(ssr.key("dim_param"), p),
                                None => {}
                            }
                            if let Some(n) = s.num_shards {
                                values::write_i64(ssr.key("num_shards"), n);
                            }
                            out.push_str(&ssr.finish());
                        });
                    }
                    out.push_str(&dr.finish());
                });
            }
            out.push_str(&sr.finish());
        });
    }
    if let Some(s) = c.pipeline_stage {
        values::write_i64(r.key("pipeline_stage"), i64::from(s));
    }
    out.push_str(&r.finish());
}
