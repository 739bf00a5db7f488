//! What the diff compares by content: attribute fingerprints and tensor payloads.
//!
//! Two tensors are equal when their element type, dims and elements are, however each
//! file stores them (`raw_data`, the typed fields, or external data). A graph-valued
//! attribute is fingerprinted by its kind alone: its graph is compared as a subgraph.

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
    match crate::values::elements(Some(model), t) {
        Some(bytes) => bytes.hash(&mut h),
        None => format!("{:?}{:?}", t.external_data, t.string_data).hash(&mut h),
    }
    h.finish()
}

/// The largest absolute difference between two numeric tensors of the same element type
/// and dims (`values::max_abs_difference`); `None` when they cannot be compared.
pub(super) fn max_abs_diff(
    a_model: &Model,
    a: &Tensor,
    b_model: &Model,
    b: &Tensor,
) -> Option<f64> {
    crate::values::max_abs_difference(Some(a_model), a, Some(b_model), b).ok()
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
        use crate::values::half;
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
