//! Tensors as text: the literal `type[dims] name = {values}` in ONNX syntax, and the
//! annotation keys for what it cannot say (raw bytes it cannot write as values, fields
//! other than the type's, presence of the name...).

use super::print::Printer;
use super::values::{self, Field};
use super::write::*;
use crate::ir::*;

/// How a tensor name is written after its type.
#[derive(Copy, Clone)]
pub(super) enum TName<'a> {
    /// Initializer: the value's name, always written (quoted if need be).
    Value(&'a str),
    /// Attribute tensor in an attribute list: only a plain identifier can be written.
    Attr,
    /// Tensor inside an annotation: any name can be written.
    Ann,
}

fn typed_empty(t: &Tensor) -> bool {
    t.float_data.is_empty()
        && t.int32_data.is_empty()
        && t.string_data.is_empty()
        && t.int64_data.is_empty()
        && t.double_data.is_empty()
        && t.uint64_data.is_empty()
}

/// Whether the tensor's values are raw bytes that text writes as values.
pub(super) fn raw_form(t: &Tensor) -> bool {
    match (&t.raw_data, valid_dtype(t.data_type)) {
        (Some(r), Some(d)) => {
            typed_empty(t)
                && t.data_location != Some(DATA_LOCATION_EXTERNAL)
                && values::raw_printable(d, r)
        }
        _ => false,
    }
}

pub(super) fn external_form(t: &Tensor) -> bool {
    t.data_location == Some(DATA_LOCATION_EXTERNAL)
        && !t.external_data.is_empty()
        && pairs_standard(&t.external_data)
        && t.raw_data.is_none()
        && typed_empty(t)
        && valid_dtype(t.data_type).is_some()
}

impl Printer<'_> {
    /// A tensor inside an annotation: the literal, or `{tensor: literal, extras}`.
    pub(super) fn ann_tensor(&mut self, t: &Tensor, attribute: bool) {
        let mut x = Rec::default();
        let text = self.capture(|p| p.tensor(t, TName::Ann, false, attribute, &mut x));
        if x.is_empty() {
            self.out.push_str(&text);
        } else {
            self.out.push_str("{tensor: ");
            self.out.push_str(&text);
            self.out.push_str(", ");
            self.out.push_str(&x.s);
            self.out.push('}');
        }
    }

    /// `{values: ..., indices: ..., dims: [...]}`; `value_name`: for a sparse
    /// initializer, the name of the value it defines (`Some(None)`: no name).
    pub(super) fn sparse(&mut self, s: &SparseTensor, value_name: Option<Option<&str>>) {
        let mut r = Rec::default();
        if let Some(v) = &s.values {
            let text = match value_name {
                Some(name) => self.capture(|p| {
                    let mut x = Rec::default();
                    let lit = p.capture(|p| match name {
                        Some(n) => p.tensor(v, TName::Value(n), false, false, &mut x),
                        None => p.tensor(v, TName::Value(""), false, false, &mut x),
                    });
                    if name.is_none() {
                        x.key("name").push_str("none");
                    }
                    if x.is_empty() {
                        p.out.push_str(&lit);
                    } else {
                        p.out.push_str("{tensor: ");
                        p.out.push_str(&lit);
                        p.out.push_str(", ");
                        p.out.push_str(&x.s);
                        p.out.push('}');
                    }
                }),
                None => self.capture(|p| p.ann_tensor(v, true)),
            };
            r.key("values").push_str(&text);
        }
        if let Some(i) = &s.indices {
            let attribute = value_name.is_none();
            let text = self.capture(|p| p.ann_tensor(i, attribute));
            r.key("indices").push_str(&text);
        }
        if !s.dims.is_empty() {
            write_ints(r.key("dims"), &s.dims);
        }
        self.out.push_str(&r.finish());
    }

    /// Writes `type[dims] [name] [=] data`; what the syntax cannot say goes to `x`.
    /// `attribute`: an attribute's tensor (its own raw default applies).
    pub(super) fn tensor(
        &mut self,
        t: &Tensor,
        name: TName<'_>,
        eq: bool,
        attribute: bool,
        x: &mut Rec,
    ) {
        let h = self.hidden > 0;
        let dtype = valid_dtype(t.data_type);
        let written_type = dtype.unwrap_or(dtype::FLOAT);
        if dtype.is_none() {
            match t.data_type {
                Some(d) => values::write_i64(x.key("data_type"), i64::from(d)),
                None => x.key("data_type").push_str("none"),
            }
        }
        self.out
            .push_str(dtype::name(written_type).unwrap_or("float"));
        if !t.dims.is_empty() {
            self.out.push('[');
            for (i, d) in t.dims.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                values::write_i64(&mut self.out, *d);
            }
            self.out.push(']');
        }
        // The name.
        match name {
            TName::Value(n) => {
                self.out.push(' ');
                write_name(&mut self.out, n, h);
            }
            TName::Attr | TName::Ann => {
                let default = if self.defaults.tensor_name_none {
                    None
                } else {
                    Some("")
                };
                let writable = |n: &str| match name {
                    TName::Attr => crate::ir::is_identifier(n),
                    _ => !n.is_empty(),
                };
                match t.name.as_deref() {
                    Some(n) if !n.is_empty() && writable(n) => {
                        self.out.push(' ');
                        if matches!(name, TName::Attr) {
                            // After a type in an attribute, onnx reads any identifier
                            // as the name, and cannot read a quoted one.
                            self.out.push_str(n);
                        } else {
                            write_name(&mut self.out, n, h);
                        }
                    }
                    other => {
                        if other != default {
                            write_ann_opt_str(x.key("name"), other);
                        }
                        // Without a name, onnx reads `type [` in an attribute as a
                        // type: the `=` makes it a tensor.
                        if matches!(name, TName::Attr) && dtype.is_some() && external_form(t) {
                            self.out.push_str(" =");
                        }
                    }
                }
            }
        }
        if eq {
            self.out.push_str(" =");
        }
        // The data.
        let mut raw = false;
        let default = if attribute {
            self.defaults.attribute_raw_data
        } else {
            self.defaults.raw_data
        };
        let default_raw = default && values::unit(written_type).is_some();
        if dtype.is_some() && external_form(t) {
            self.out.push(' ');
            self.out.push('[');
            let pairs = &t.external_data;
            for (i, p) in pairs.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                write_onnx_str(&mut self.out, p.key(), h);
                self.out.push_str(": ");
                write_onnx_str(&mut self.out, p.value(), h);
            }
            self.out.push(']');
        } else {
            self.out.push_str(" {");
            let mut consumed = None;
            if let Some(unread) = t.unread {
                // The bytes stay in the model's file: their range is written, and read
                // back, so that the text of a model opened that way (the app's chosen
                // files) edits without losing them.
                let range = x.key("unread");
                range.push('[');
                values::write_i64(range, unread.offset as i64);
                range.push_str(", ");
                values::write_i64(range, unread.len as i64);
                range.push(']');
            } else if raw_form(t) {
                raw = true;
                if let Some(r) = &t.raw_data {
                    values::write_raw(&mut self.out, written_type, r);
                }
            } else if let Some(field) = dtype.and_then(values::field)
                && self.field_printable(t, field)
            {
                self.write_field(t, field);
                consumed = Some(field);
            }
            self.out.push('}');
            if !raw {
                if let Some(r) = &t.raw_data {
                    write_ann_bytes(x.key("raw_data"), r);
                }
                self.explicit_fields(t, consumed, x);
            }
            let explicit = !raw && t.raw_data.is_some();
            if raw != (default_raw && !explicit) {
                x.key("raw").push_str(if raw { "true" } else { "false" });
            }
            if let Some(l) = t.data_location {
                values::write_i64(x.key("data_location"), i64::from(l));
            }
            if !t.external_data.is_empty() {
                write_ann_pairs(x.key("external_data"), &t.external_data);
            }
        }
        if let Some(d) = &t.doc_string {
            write_ann_str(x.key("doc_string"), d);
        }
        if let Some(s) = &t.segment {
            let mut sr = Rec::default();
            if let Some(b) = s.begin {
                values::write_i64(sr.key("begin"), b);
            }
            if let Some(e) = s.end {
                values::write_i64(sr.key("end"), e);
            }
            x.key("segment").push_str(&sr.finish());
        }
        if !t.metadata_props.is_empty() {
            write_ann_pairs(x.key("metadata_props"), &t.metadata_props);
        }
    }

    pub(super) fn field_printable(&self, t: &Tensor, field: Field) -> bool {
        match field {
            Field::Float => t.float_data.iter().all(|f| values::f32_printable(*f)),
            Field::Double => t.double_data.iter().all(|f| values::f64_printable(*f)),
            Field::String => t.string_data.iter().all(|s| onnx_text(s)),
            _ => true,
        }
    }

    pub(super) fn write_field(&mut self, t: &Tensor, field: Field) {
        let h = self.hidden > 0;
        let out = &mut self.out;
        macro_rules! each {
            ($v:expr, $f:expr) => {
                for (i, x) in $v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    $f(&mut *out, x);
                }
            };
        }
        match field {
            Field::Int32 => each!(t.int32_data, |o, &v: &i32| values::write_i64(
                o,
                i64::from(v)
            )),
            Field::Int64 => each!(t.int64_data, |o, &v: &i64| values::write_i64(o, v)),
            Field::Uint64 => each!(t.uint64_data, |o, &v: &u64| values::write_u64(o, v)),
            Field::Float => each!(t.float_data, |o, &v: &f32| values::write_f32(o, v, false)),
            Field::Double => each!(t.double_data, |o, &v: &f64| values::write_f64(o, v, false)),
            Field::String => each!(t.string_data, |o: &mut String, s: &bytes::Bytes| {
                write_onnx_str(o, &String::from_utf8_lossy(s), h)
            }),
        }
    }

    /// Typed fields that the braces did not write.
    pub(super) fn explicit_fields(&self, t: &Tensor, consumed: Option<Field>, x: &mut Rec) {
        let skip = |f: Field| consumed == Some(f);
        if !t.float_data.is_empty() && !skip(Field::Float) {
            if t.float_data.iter().all(|f| values::f32_printable(*f)) {
                write_list(x.key("float_data"), &t.float_data, |o, &v| {
                    values::write_f32(o, v, true)
                });
            } else {
                write_list(x.key("float_bits"), &t.float_data, |o, v| {
                    values::write_u64(o, u64::from(v.to_bits()))
                });
            }
        }
        if !t.int32_data.is_empty() && !skip(Field::Int32) {
            write_list(x.key("int32_data"), &t.int32_data, |o, &v| {
                values::write_i64(o, i64::from(v))
            });
        }
        if !t.string_data.is_empty() && !skip(Field::String) {
            write_list(x.key("string_data"), &t.string_data, |o, s| {
                write_ann_bytes(o, s)
            });
        }
        if !t.int64_data.is_empty() && !skip(Field::Int64) {
            write_ints(x.key("int64_data"), &t.int64_data);
        }
        if !t.double_data.is_empty() && !skip(Field::Double) {
            if t.double_data.iter().all(|f| values::f64_printable(*f)) {
                write_list(x.key("double_data"), &t.double_data, |o, &v| {
                    values::write_f64(o, v, true)
                });
            } else {
                write_list(x.key("double_bits"), &t.double_data, |o, v| {
                    values::write_u64(o, v.to_bits())
                });
            }
        }
        if !t.uint64_data.is_empty() && !skip(Field::Uint64) {
            write_list(x.key("uint64_data"), &t.uint64_data, |o, &v| {
                values::write_u64(o, v)
            });
        }
    }
}
