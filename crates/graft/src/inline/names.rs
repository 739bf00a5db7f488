//! What inlining a model needs for fresh names (the generator is `ir::Names`):
//! symbolic dims of a model and identifiers from a prefix.

use crate::ir::{DimValue, Model, Type, TypeValue};

/// Every `dim_param` in a type, mutably.
pub(super) fn for_each_dim_param(ty: &mut Type, f: &mut dyn FnMut(&mut String)) {
    match &mut ty.value {
        Some(TypeValue::Tensor(t)) | Some(TypeValue::SparseTensor(t)) => {
            if let Some(shape) = &mut t.shape {
                for d in &mut shape.dims {
                    if let Some(DimValue::Param(p)) = &mut d.value {
                        f(p);
                    }
                }
            }
        }
        Some(TypeValue::Sequence(Some(inner))) | Some(TypeValue::Optional(Some(inner))) => {
            for_each_dim_param(inner, f);
        }
        Some(TypeValue::Map {
            value_type: Some(inner),
            ..
        }) => for_each_dim_param(inner, f),
        _ => {}
    }
}

/// Every `dim_param` of a type, read only.
pub(super) fn dim_params<'a>(ty: &'a Type, out: &mut Vec<&'a str>) {
    match &ty.value {
        Some(TypeValue::Tensor(t)) | Some(TypeValue::SparseTensor(t)) => {
            if let Some(shape) = &t.shape {
                for d in &shape.dims {
                    if let Some(DimValue::Param(p)) = &d.value {
                        out.push(p);
                    }
                }
            }
        }
        Some(TypeValue::Sequence(Some(inner))) | Some(TypeValue::Optional(Some(inner))) => {
            dim_params(inner, out);
        }
        Some(TypeValue::Map {
            value_type: Some(inner),
            ..
        }) => dim_params(inner, out),
        _ => {}
    }
}

/// Every `dim_param` named in the value infos of every graph of a model.
pub(super) fn model_dim_params(model: &Model) -> Vec<&str> {
    let mut out = Vec::new();
    for (_, g) in model.graphs.iter() {
        for vi in g.inputs.iter().chain(&g.outputs).chain(&g.value_info) {
            if let Some(ty) = &vi.ty {
                dim_params(ty, &mut out);
            }
        }
    }
    out
}

/// `text` with every character that is not `[A-Za-z0-9_]` replaced by `_`, and a
/// leading `_` when it would start with a digit (or be empty): an identifier, which the
/// text format writes bare.
pub(super) fn identifier(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert_eq!(identifier("my model/v1"), "my_model_v1");
        assert_eq!(identifier("1x"), "_1x");
        assert_eq!(identifier(""), "_");
    }
}
