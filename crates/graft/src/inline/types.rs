//! Types for bindings: what a host value is known to be, and whether a guest input's
//! type accepts it.

use crate::ir::{Model, Shape, TensorType, Type, TypeValue, ValueId};

/// The type the host states for a value: its graph's input, output or `value_info`
/// entry, or the tensor of its initializer. `None` when nothing says.
pub(super) fn host_type(model: &Model, value: ValueId) -> Option<Type> {
    let graph = model.graph(model.value(value).graph);
    let stated = graph
        .inputs
        .iter()
        .chain(&graph.outputs)
        .chain(&graph.value_info)
        .filter(|vi| vi.value == Some(value))
        .find_map(|vi| vi.ty.clone());
    if stated.is_some() {
        return stated;
    }
    let tensor = |elem: Option<i32>, dims: &[i64]| Type {
        value: Some(TypeValue::Tensor(TensorType {
            elem_type: elem,
            shape: Some(Shape {
                dims: dims
                    .iter()
                    .map(|&d| crate::ir::Dim {
                        value: Some(crate::ir::DimValue::Value(d)),
                        denotation: None,
                    })
                    .collect(),
            }),
        })),
        denotation: None,
    };
    if let Some(init) = graph.initializers.iter().find(|i| i.value == Some(value)) {
        return Some(tensor(init.tensor.data_type, &init.tensor.dims));
    }
    graph
        .sparse_initializers
        .iter()
        .find(|i| i.value == Some(value))
        .map(|s| {
            let elem = s.tensor.values.as_ref().and_then(|v| v.data_type);
            let mut ty = tensor(elem, &s.tensor.dims);
            if let Some(TypeValue::Tensor(t)) = ty.value.take() {
                ty.value = Some(TypeValue::SparseTensor(t));
            }
            ty
        })
}

/// Whether a value of type `host` may stand where the guest expects `guest`: element
/// types equal when both are known, ranks equal when both are known, fixed dims equal
/// when both are fixed. Unknown and symbolic parts are compatible with anything.
pub(super) fn compatible(guest: &Type, host: &Type) -> bool {
    let inner = |g: &Option<Box<Type>>, h: &Option<Box<Type>>| match (g, h) {
        (Some(g), Some(h)) => compatible(g, h),
        _ => true,
    };
    match (&guest.value, &host.value) {
        (None, _) | (_, None) => true,
        (Some(TypeValue::Tensor(g)), Some(TypeValue::Tensor(h)))
        | (Some(TypeValue::SparseTensor(g)), Some(TypeValue::SparseTensor(h))) => {
            tensors_compatible(g, h)
        }
        (Some(TypeValue::Sequence(g)), Some(TypeValue::Sequence(h)))
        | (Some(TypeValue::Optional(g)), Some(TypeValue::Optional(h))) => inner(g, h),
        (
            Some(TypeValue::Map {
                key_type: gk,
                value_type: gv,
            }),
            Some(TypeValue::Map {
                key_type: hk,
                value_type: hv,
            }),
        ) => known_equal(*gk, *hk) && inner(gv, hv),
        (Some(TypeValue::Opaque { .. }), Some(TypeValue::Opaque { .. })) => {
            guest.value == host.value
        }
        _ => false,
    }
}

fn known_equal(a: Option<i32>, b: Option<i32>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) if a != 0 && b != 0 => a == b,
        _ => true,
    }
}

fn tensors_compatible(g: &TensorType, h: &TensorType) -> bool {
    if !known_equal(g.elem_type, h.elem_type) {
        return false;
    }
    let (Some(gs), Some(hs)) = (&g.shape, &h.shape) else {
        return true;
    };
    gs.dims.len() == hs.dims.len()
        && gs.dims.iter().zip(&hs.dims).all(|(a, b)| {
            use crate::ir::DimValue::Value;
            match (&a.value, &b.value) {
                (Some(Value(x)), Some(Value(y))) => x == y,
                _ => true,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Dim, DimValue, dtype};

    fn t(elem: i32, dims: &[Option<i64>]) -> Type {
        Type {
            value: Some(TypeValue::Tensor(TensorType {
                elem_type: Some(elem),
                shape: Some(Shape {
                    dims: dims
                        .iter()
                        .map(|d| Dim {
                            value: Some(match d {
                                Some(v) => DimValue::Value(*v),
                                None => DimValue::Param("N".into()),
                            }),
                            denotation: None,
                        })
                        .collect(),
                }),
            })),
            denotation: None,
        }
    }

    #[test]
    fn compatibility_rules() {
        let f4 = t(dtype::FLOAT, &[Some(4)]);
        assert!(compatible(&f4, &t(dtype::FLOAT, &[None])));
        assert!(!compatible(&f4, &t(dtype::INT64, &[Some(4)])));
        assert!(!compatible(&f4, &t(dtype::FLOAT, &[Some(3)])));
        assert!(!compatible(&f4, &t(dtype::FLOAT, &[Some(4), Some(1)])));
        assert!(compatible(&f4, &Type::default()));
    }
}
