//! What the diff compares by content: attribute fingerprints and tensor payloads.
//!
//! Two tensors are equal when their element type, dims and elements are, however each
//! file stores them (`raw_data`, the typed fields, or external data). A graph-valued
//! attribute is fingerprinted by its kind alone: its graph is compared as a subgraph.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use crate::hash::FxHasher;
use crate::ir::{AttrKind, AttrValue, Attribute, Model, Tensor, dtype};

/// A fingerprint of an attribute's name and value.
pub(super) fn attribute(model: &Model, a: &Attribute) -> u64 {
    let mut h = FxHasher::default();
    a.name().hash(&mut h);
    kind(model, &a.kind, &mut h);
    h.finish()
}

/// A fingerprint of an attribute's value alone.
pub(super) fn attribute_value(model: &Model, a: &Attribute) -> u64 {
    let mut h = FxHasher::default();
    kind(model, &a.kind, &mut h);
    h.finish()
}

fn kind(model: &Model, kind: &AttrKind, h: &mut FxHasher) {
    match kind {
        AttrKind::Value(v) => {
            0u8.hash(h);
            value(model, v, h);
        }
        AttrKind::Ref { name, ty } => {
            1u8.hash(h);
            name.hash(h);
            ty.hash(h);
        }
        // Malformed attributes are rare: their debug text is fingerprint enough.
        AttrKind::Raw(raw) => {
            2u8.hash(h);
            format!("{raw:?}").hash(h);
        }
    }
}

fn value(model: &Model, v: &AttrValue, h: &mut FxHasher) {
    v.attr_type().hash(h);
    match v {
        AttrValue::Float(f) => f.to_bits().hash(h),
        AttrValue::Int(i) => i.hash(h),
        AttrValue::String(s) => s.hash(h),
        AttrValue::Tensor(t) => tensor(model, t).hash(h),
        AttrValue::Graph(_) | AttrValue::Graphs(_) => {}
        AttrValue::SparseTensor(t) => format!("{t:?}").hash(h),
        AttrValue::TypeProto(t) => t.to_string().hash(h),
        AttrValue::Floats(v) => v.iter().for_each(|f| f.to_bits().hash(h)),
        AttrValue::Ints(v) => v.hash(h),
        AttrValue::Strings(v) => v.hash(h),
        AttrValue::Tensors(v) => v.iter().for_each(|t| tensor(model, t).hash(h)),
        AttrValue::SparseTensors(v) => format!("{v:?}").hash(h),
        AttrValue::TypeProtos(v) => v.iter().for_each(|t| t.to_string().hash(h)),
    }
}

/// A fingerprint of a tensor's element type, dims and elements (an external tensor
/// whose data file is missing is fingerprinted by its reference).
pub(super) fn tensor(model: &Model, t: &Tensor) -> u64 {
    let mut h = FxHasher::default();
    t.data_type().hash(&mut h);
    t.dims.hash(&mut h);
    match elements(model, t) {
        Some(bytes) => bytes.hash(&mut h),
        None => format!("{:?}{:?}", t.external_data, t.string_data).hash(&mut h),
    }
    h.finish()
}

/// The elements as little-endian bytes of the element type, or for strings each with
/// its length; `None` when they cannot be had (a missing data file, a segment).
fn elements<'t>(model: &Model, t: &'t Tensor) -> Option<Cow<'t, [u8]>> {
    if t.segment.is_some() {
        return None;
    }
    if let Some(ext) = t.external_ref() {
        let bytes = crate::external::resolve(model, t, &ext).ok()?;
        return Some(Cow::Owned(bytes.to_vec()));
    }
    if let Some(raw) = &t.raw_data {
        return Some(Cow::Borrowed(raw));
    }
    let mut out = Vec::new();
    if t.data_type() == dtype::STRING {
        for s in &t.string_data {
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s);
        }
        return Some(Cow::Owned(out));
    }
    out.extend(t.float_data.iter().flat_map(|v| v.to_le_bytes()));
    out.extend(t.int64_data.iter().flat_map(|v| v.to_le_bytes()));
    out.extend(t.double_data.iter().flat_map(|v| v.to_le_bytes()));
    out.extend(t.uint64_data.iter().flat_map(|v| v.to_le_bytes()));
    // int32_data carries every element type narrower than 32 bits, one per entry.
    let width = match t.data_type() {
        dtype::INT8 | dtype::UINT8 | dtype::BOOL => 1,
        dtype::INT16 | dtype::UINT16 | dtype::FLOAT16 | dtype::BFLOAT16 => 2,
        dtype::INT32 => 4,
        // 8-bit floats and packed 4-bit types: compared as stored.
        _ => 4,
    };
    for v in &t.int32_data {
        out.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    Some(Cow::Owned(out))
}

/// The elements as numbers, for the numeric element types.
fn numbers(model: &Model, t: &Tensor) -> Option<Vec<f64>> {
    let bytes = elements(model, t)?;
    let read = |size: usize, f: &dyn Fn(&[u8]) -> f64| -> Vec<f64> {
        bytes.chunks_exact(size).map(f).collect()
    };
    let arr = |b: &[u8], n: usize| -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&b[..n]);
        a
    };
    Some(match t.data_type() {
        dtype::FLOAT => read(4, &|b| {
            f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }),
        dtype::DOUBLE => read(8, &|b| f64::from_le_bytes(arr(b, 8))),
        dtype::INT64 => read(8, &|b| i64::from_le_bytes(arr(b, 8)) as f64),
        dtype::UINT64 => read(8, &|b| u64::from_le_bytes(arr(b, 8)) as f64),
        dtype::INT32 => read(4, &|b| {
            f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }),
        dtype::UINT32 => read(4, &|b| {
            f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }),
        dtype::INT16 => read(2, &|b| f64::from(i16::from_le_bytes([b[0], b[1]]))),
        dtype::UINT16 => read(2, &|b| f64::from(u16::from_le_bytes([b[0], b[1]]))),
        dtype::INT8 => read(1, &|b| f64::from(b[0] as i8)),
        dtype::UINT8 | dtype::BOOL => read(1, &|b| f64::from(b[0])),
        dtype::FLOAT16 => read(2, &|b| half(u16::from_le_bytes([b[0], b[1]]))),
        dtype::BFLOAT16 => read(2, &|b| {
            f64::from(f32::from_bits(
                u32::from(u16::from_le_bytes([b[0], b[1]])) << 16,
            ))
        }),
        _ => return None,
    })
}

/// An IEEE half as a double.
fn half(bits: u16) -> f64 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// The largest absolute difference between two numeric tensors of the same element type
/// and dims (NaN against a number counts as infinite; NaN against NaN as equal).
pub(super) fn max_abs_diff(
    a_model: &Model,
    a: &Tensor,
    b_model: &Model,
    b: &Tensor,
) -> Option<f64> {
    if a.data_type() != b.data_type() || a.dims != b.dims {
        return None;
    }
    let (x, y) = (numbers(a_model, a)?, numbers(b_model, b)?);
    if x.len() != y.len() {
        return None;
    }
    Some(x.iter().zip(&y).fold(0f64, |m, (p, q)| {
        let d = match (p.is_nan(), q.is_nan()) {
            (true, true) => 0.0,
            (false, false) if p == q => 0.0,
            (false, false) => (p - q).abs(),
            _ => f64::INFINITY,
        };
        m.max(d)
    }))
}

/// `float[64,3]`: a tensor's element type and dims.
pub(super) fn tensor_type(t: &Tensor) -> String {
    let dims: Vec<String> = t.dims.iter().map(i64::to_string).collect();
    format!(
        "{}[{}]",
        dtype::name(t.data_type()).unwrap_or("?"),
        dims.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_read_as_ieee() {
        assert_eq!(half(0x3c00), 1.0);
        assert_eq!(half(0xc000), -2.0);
        assert_eq!(half(0x0001), 2f64.powi(-24));
        assert!(half(0x7c00).is_infinite());
        assert!(half(0x7e00).is_nan());
    }

    #[test]
    fn a_tensor_is_the_same_however_it_is_stored() {
        let model = Model::default();
        let fields = Tensor {
            dims: vec![2],
            data_type: Some(dtype::FLOAT),
            float_data: vec![1.0, -2.5],
            ..Tensor::default()
        };
        let raw = Tensor {
            dims: vec![2],
            data_type: Some(dtype::FLOAT),
            raw_data: Some(
                [1.0f32, -2.5]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect::<Vec<u8>>()
                    .into(),
            ),
            ..Tensor::default()
        };
        assert_eq!(tensor(&model, &fields), tensor(&model, &raw));
        let other = Tensor {
            float_data: vec![1.0, -2.0],
            ..fields.clone()
        };
        assert_ne!(tensor(&model, &fields), tensor(&model, &other));
        assert_eq!(max_abs_diff(&model, &fields, &model, &other), Some(0.5));
        assert_eq!(max_abs_diff(&model, &fields, &model, &raw), Some(0.0));
    }
}
