//! Tensor values in ONNX text: `{values}` into the type's field (with a fast path
//! straight over the text for numbers), `[external data]`, and the defaults and
//! annotation keys that turn values into `raw_data` or add what the syntax lacks.

use super::ParseError;
use super::annot::TensorExtras;
use super::lexer::{LexError, ListStop};
use super::parse::{PResult, Parser};
use super::values::{self, Field};
use crate::ir::*;

impl Parser<'_> {
    /// The data after a tensor type: `{values}`, `[external data]` or nothing. Returns
    /// the tensor and whether its values were written in braces.
    pub fn tensor_value(&mut self, ty: Option<&Type>) -> PResult<(Tensor, bool)> {
        let at = self.peek()?.start;
        let Some(TypeValue::Tensor(tt)) = ty.and_then(|t| t.value.as_ref()) else {
            return Err(self.error_at(
                at,
                "a tensor value needs a tensor type, e.g. `float[2] w = {1, 2}`",
            ));
        };
        let Some(shape) = &tt.shape else {
            return Err(self.error_at(
                at,
                "a tensor value needs a known shape: `float` for a scalar, `float[2, 3]` otherwise",
            ));
        };
        let mut dims = Vec::with_capacity(shape.dims.len());
        for d in &shape.dims {
            match d.value {
                Some(DimValue::Value(v)) => dims.push(v),
                _ => {
                    return Err(self.error_at(at, "a tensor value's dimensions must be numbers"));
                }
            }
        }
        let data_type = tt.elem_type.unwrap_or(0);
        let mut t = Tensor {
            dims,
            data_type: Some(data_type),
            ..Tensor::default()
        };
        if self.eat(b'{')? {
            self.tensor_elements(&mut t, at)?;
            return Ok((t, true));
        }
        if self.eat(b'[')? {
            t.data_location = Some(DATA_LOCATION_EXTERNAL);
            t.external_data = self.pairs()?;
            self.expect(b']', "to close the external data")?;
        }
        Ok((t, false))
    }

    /// The values after `{`, and the closing `}`.
    fn tensor_elements(&mut self, t: &mut Tensor, at: usize) -> PResult<()> {
        let data_type = t.data_type();
        let Some(field) = values::field(data_type) else {
            if self.eat(b'}')? {
                return Ok(());
            }
            return Err(self.error_at(
                at,
                format!("values of element type {data_type} cannot be written in text"),
            ));
        };
        let mut after_element = false;
        if field != Field::String
            && self.look_len == 0
            && self.in_annotation == 0
            && self.lex.visible()
        {
            match self.fast_elements(t, field)? {
                ListStop::Closed => return Ok(()),
                ListStop::BeforeElement => {}
                ListStop::AfterElement => after_element = true,
            }
        } else if self.eat(b'}')? {
            return Ok(());
        }
        loop {
            if !after_element {
                self.tensor_element(t, field)?;
            }
            after_element = false;
            if !self.eat(b',')? {
                break;
            }
        }
        self.expect(b'}', "to close the tensor values")
    }

    fn tensor_element(&mut self, t: &mut Tensor, field: Field) -> PResult<()> {
        match field {
            Field::Int32 => {
                let p = self.peek()?.start;
                let v = self.int_lit("an integer value")?;
                let v = i32::try_from(v).map_err(|_| {
                    self.error_at(
                        p,
                        format!("{v} does not fit this element type (32-bit field)"),
                    )
                })?;
                t.int32_data.push(v);
            }
            Field::Int64 => t.int64_data.push(self.int_lit("an integer value")?),
            Field::Uint64 => t.uint64_data.push(self.u64_lit("an integer value")?),
            Field::Float => t.float_data.push(self.f32_lit("a float value")?),
            Field::Double => t.double_data.push(self.f64_lit("a double value")?),
            Field::String => t.string_data.push(self.bytes_lit("a string value")?),
        }
        Ok(())
    }

    /// Numbers read straight from the text (see [`Lexer::number_list`]).
    fn fast_elements(&mut self, t: &mut Tensor, field: Field) -> PResult<ListStop> {
        let int_only = |text: &str, pos: usize| {
            if text.bytes().all(|c| c.is_ascii_digit()) {
                Ok(())
            } else {
                Err(LexError {
                    pos,
                    message: "expected an integer value".into(),
                })
            }
        };
        let bad = |pos: usize, message: &str| LexError {
            pos,
            message: message.into(),
        };
        let result = match field {
            Field::Float => self.lex.number_list(|neg, text, pos| {
                let v = values::parse_f32(neg, text)
                    .ok_or_else(|| bad(pos, "not a valid float (or out of range)"))?;
                t.float_data.push(v);
                Ok(())
            }),
            Field::Double => self.lex.number_list(|neg, text, pos| {
                let v = values::parse_f64(neg, text)
                    .ok_or_else(|| bad(pos, "not a valid double (or out of range)"))?;
                t.double_data.push(v);
                Ok(())
            }),
            Field::Int32 => self.lex.number_list(|neg, text, pos| {
                int_only(text, pos)?;
                let v = values::parse_i64(neg, text)
                    .ok_or_else(|| bad(pos, "this integer does not fit in 64 bits"))?;
                let v = i32::try_from(v).map_err(|_| {
                    bad(
                        pos,
                        &format!("{v} does not fit this element type (32-bit field)"),
                    )
                })?;
                t.int32_data.push(v);
                Ok(())
            }),
            Field::Int64 => self.lex.number_list(|neg, text, pos| {
                int_only(text, pos)?;
                let v = values::parse_i64(neg, text)
                    .ok_or_else(|| bad(pos, "this integer does not fit in 64 bits"))?;
                t.int64_data.push(v);
                Ok(())
            }),
            Field::Uint64 => self.lex.number_list(|neg, text, pos| {
                int_only(text, pos)?;
                let v = values::parse_u64(neg, text)
                    .ok_or_else(|| bad(pos, "this integer does not fit in 64 bits"))?;
                t.uint64_data.push(v);
                Ok(())
            }),
            Field::String => Ok(ListStop::BeforeElement),
        };
        result.map_err(|e| ParseError::at(self.src, e.pos, e.message))
    }

    /// Applies the file's defaults and an annotation's tensor keys to a tensor read in
    /// standard syntax.
    /// `attribute`: the tensor is an attribute's (its own raw default applies).
    pub fn finish_tensor(
        &self,
        t: &mut Tensor,
        braces: bool,
        attribute: bool,
        extras: Option<&TensorExtras>,
        at: usize,
    ) -> PResult<()> {
        let written_type = t.data_type();
        let default = if attribute {
            self.defaults.attribute_raw_data
        } else {
            self.defaults.raw_data
        };
        let default_raw = default && braces && values::unit(written_type).is_some();
        // Explicit `raw_data` bytes are the raw data: the default does not apply.
        let explicit = extras.is_some_and(|x| x.raw_data.is_some());
        let raw = extras
            .and_then(|x| x.raw)
            .unwrap_or(default_raw && !explicit);
        if raw {
            if !braces {
                return Err(self.error_at(at, "`raw: true` needs values written in braces"));
            }
            values::encode_raw(t).map_err(|m| self.error_at(at, m))?;
        }
        let Some(x) = extras else {
            return Ok(());
        };
        if let Some(n) = &x.name {
            t.name.clone_from(n);
        }
        if let Some(d) = x.data_type {
            t.data_type = d;
        }
        if let Some(r) = &x.raw_data {
            if t.raw_data.is_some() {
                return Err(
                    self.error_at(at, "`raw_data` bytes and `raw: true` exclude each other")
                );
            }
            t.raw_data = Some(r.clone());
        }
        t.float_data.extend_from_slice(&x.float_data);
        t.float_data
            .extend(x.float_bits.iter().map(|&b| f32::from_bits(b)));
        t.int32_data.extend_from_slice(&x.int32_data);
        t.string_data.extend(x.string_data.iter().cloned());
        t.int64_data.extend_from_slice(&x.int64_data);
        t.double_data.extend_from_slice(&x.double_data);
        t.double_data
            .extend(x.double_bits.iter().map(|&b| f64::from_bits(b)));
        t.uint64_data.extend_from_slice(&x.uint64_data);
        if x.doc_string.is_some() {
            t.doc_string.clone_from(&x.doc_string);
        }
        if x.segment.is_some() {
            t.segment.clone_from(&x.segment);
        }
        t.metadata_props.extend(x.metadata_props.iter().cloned());
        if let Some(l) = x.data_location {
            t.data_location = l;
        }
        if let Some(e) = &x.external_data {
            t.external_data.clone_from(e);
        }
        if let Some(u) = x.unread {
            if t.raw_data.is_some() {
                return Err(self.error_at(at, "`unread` and raw data exclude each other"));
            }
            t.unread = Some(u);
        }
        Ok(())
    }
}
