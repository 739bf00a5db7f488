//! Element types from the schema's type constraints, and the operators whose output
//! type an attribute decides.

use super::{Ctx, Ty, attr_value};
use crate::ir::{AttrValue, Node, TensorType, Type, TypeValue, dtype};
use crate::schema::{OpSchema, ParamOption};

/// The element code of a type name (`float`, `int64`, …).
pub(crate) fn elem_code(name: &str) -> Option<i32> {
    (0..29).find(|&c| dtype::name(c) == Some(name))
}

/// A schema type string (`tensor(float)`, `seq(tensor(int64))`, …) as a type without
/// shape.
pub(crate) fn parse_type_str(s: &str) -> Option<Ty> {
    if let Some(inner) = s.strip_prefix("tensor(").and_then(|r| r.strip_suffix(')')) {
        return elem_code(inner).map(|e| Ty::tensor(e, None));
    }
    parse_ir(s).map(Ty::Other)
}

fn parse_ir(s: &str) -> Option<Type> {
    let s = s.trim();
    let wrap = |value| {
        Some(Type {
            value: Some(value),
            denotation: None,
        })
    };
    if let Some(inner) = s.strip_prefix("tensor(").and_then(|r| r.strip_suffix(')')) {
        return wrap(TypeValue::Tensor(TensorType {
            elem_type: Some(elem_code(inner)?),
            shape: None,
        }));
    }
    if let Some(inner) = s
        .strip_prefix("sparse_tensor(")
        .and_then(|r| r.strip_suffix(')'))
    {
        return wrap(TypeValue::SparseTensor(TensorType {
            elem_type: Some(elem_code(inner)?),
            shape: None,
        }));
    }
    if let Some(inner) = s.strip_prefix("seq(").and_then(|r| r.strip_suffix(')')) {
        return wrap(TypeValue::Sequence(Some(Box::new(parse_ir(inner)?))));
    }
    if let Some(inner) = s
        .strip_prefix("optional(")
        .and_then(|r| r.strip_suffix(')'))
    {
        return wrap(TypeValue::Optional(Some(Box::new(parse_ir(inner)?))));
    }
    if let Some(inner) = s.strip_prefix("map(").and_then(|r| r.strip_suffix(')')) {
        let (k, v) = inner.split_once(',')?;
        return wrap(TypeValue::Map {
            key_type: Some(elem_code(k.trim())?),
            value_type: Some(Box::new(parse_ir(v)?)),
        });
    }
    None
}

/// A type as a binding of a type parameter: the shape dropped.
fn kind(t: &Ty) -> Option<Ty> {
    match t {
        Ty::Tensor { elem: 0, .. } => None,
        Ty::Tensor { elem, .. } => Some(Ty::tensor(*elem, None)),
        Ty::Other(o) => Some(Ty::Other(o.clone())),
    }
}

fn to_ir(t: &Ty) -> Option<Type> {
    match t {
        Ty::Tensor { elem: 0, .. } => None,
        Ty::Tensor { elem, .. } => Some(Type {
            value: Some(TypeValue::Tensor(TensorType {
                elem_type: Some(*elem),
                shape: None,
            })),
            denotation: None,
        }),
        Ty::Other(o) => Some(o.clone()),
    }
}

fn formal(
    params: &[crate::schema::FormalParameter],
    k: usize,
) -> Option<&crate::schema::FormalParameter> {
    params.get(k).or_else(|| {
        params
            .last()
            .filter(|p| p.option == ParamOption::Variadic && k >= params.len())
    })
}

/// The output types (without shapes) of a node of a standard operator.
pub(crate) fn output_types(
    schema: &OpSchema,
    node: &Node,
    ctx: &Ctx,
    ins: &[Option<&Ty>],
) -> Vec<Option<Ty>> {
    let mut bound: Vec<(&str, Ty)> = Vec::new();
    for (k, t) in ins.iter().enumerate() {
        let (Some(p), Some(t)) = (formal(&schema.inputs, k), t) else {
            continue;
        };
        if schema.type_constraint(&p.type_str).is_some()
            && !bound.iter().any(|(n, _)| *n == p.type_str)
            && let Some(b) = kind(t)
        {
            bound.push((p.type_str.as_str(), b));
        }
    }
    let n = node.outputs.len();
    (0..n)
        .map(|k| {
            if let Some(t) = special(schema, node, ctx, ins, k) {
                return Some(t);
            }
            let p = formal(&schema.outputs, k)?;
            match schema.type_constraint(&p.type_str) {
                Some(tc) => bound
                    .iter()
                    .find(|(n, _)| *n == p.type_str)
                    .map(|(_, t)| t.clone())
                    .or_else(|| match tc.allowed.as_slice() {
                        [only] => parse_type_str(only),
                        _ => None,
                    }),
                None => parse_type_str(&p.type_str),
            }
        })
        .collect()
}

/// The attribute `to`/`dtype`: an element code (Cast-1 spells it as a string).
fn attr_dtype(node: &Node, name: &str, ctx: &Ctx) -> Option<i32> {
    match attr_value(node, name, ctx)? {
        AttrValue::Int(i) => i32::try_from(*i).ok().filter(|&c| c > 0),
        AttrValue::String(s) => {
            let s = std::str::from_utf8(s).ok()?.to_ascii_lowercase();
            elem_code(&s)
        }
        _ => None,
    }
}

/// Operators whose output type is not a function of the input types alone.
fn special(schema: &OpSchema, node: &Node, ctx: &Ctx, ins: &[Option<&Ty>], k: usize) -> Option<Ty> {
    let input_elem = |i: usize| {
        ins.get(i)
            .copied()
            .flatten()
            .map(Ty::elem)
            .filter(|&e| e != 0)
    };
    let t = |e: i32| Some(Ty::tensor(e, None));
    let has = |name: &str| attr_value(node, name, ctx).is_some();
    if schema.domain == "ai.onnx.ml" {
        return match (schema.name.as_str(), k) {
            ("LabelEncoder", 0) => match attr_value(node, "values_tensor", ctx) {
                Some(AttrValue::Tensor(v)) => t(v.data_type()),
                _ if has("values_int64s") => t(dtype::INT64),
                _ if has("values_strings") => t(dtype::STRING),
                _ if has("values_floats") => t(dtype::FLOAT),
                _ => None,
            },
            ("LinearClassifier" | "SVMClassifier" | "TreeEnsembleClassifier", 0) => {
                if has("classlabels_ints") || has("classlabels_int64s") {
                    t(dtype::INT64)
                } else if has("classlabels_strings") {
                    t(dtype::STRING)
                } else {
                    None
                }
            }
            ("LinearClassifier" | "SVMClassifier" | "TreeEnsembleClassifier", 1) => t(dtype::FLOAT),
            _ => None,
        };
    }
    if !schema.domain.is_empty() {
        return None;
    }
    match (schema.name.as_str(), k) {
        ("Cast", 0) => t(attr_dtype(node, "to", ctx)?),
        ("Constant", 0) => {
            let e = match node.attributes.first().map(|a| a.name())? {
                "value" => match attr_value(node, "value", ctx)? {
                    AttrValue::Tensor(t) => t.data_type(),
                    _ => return None,
                },
                "sparse_value" => match attr_value(node, "sparse_value", ctx)? {
                    AttrValue::SparseTensor(t) => t.values.as_ref()?.data_type(),
                    _ => return None,
                },
                "value_float" | "value_floats" => dtype::FLOAT,
                "value_int" | "value_ints" => dtype::INT64,
                "value_string" | "value_strings" => dtype::STRING,
                _ => return None,
            };
            t(e)
        }
        ("ConstantOfShape", 0) => match attr_value(node, "value", ctx) {
            Some(AttrValue::Tensor(v)) => t(v.data_type()),
            _ => t(dtype::FLOAT),
        },
        ("RandomNormal" | "RandomUniform", 0) => {
            t(attr_dtype(node, "dtype", ctx).unwrap_or(dtype::FLOAT))
        }
        ("RandomNormalLike" | "RandomUniformLike" | "EyeLike" | "Bernoulli", 0) => {
            t(attr_dtype(node, "dtype", ctx).or_else(|| input_elem(0))?)
        }
        ("Multinomial", 0) => t(attr_dtype(node, "dtype", ctx).unwrap_or(dtype::INT32)),
        ("QuantizeLinear", 0) => t(attr_dtype(node, "output_dtype", ctx)
            .or_else(|| input_elem(2))
            .unwrap_or(dtype::UINT8)),
        ("DequantizeLinear", 0) => {
            t(attr_dtype(node, "output_dtype", ctx).or_else(|| input_elem(1))?)
        }
        ("SequenceEmpty", 0) => {
            let e = attr_dtype(node, "dtype", ctx).unwrap_or(dtype::FLOAT);
            Some(Ty::Other(seq_of(Ty::tensor(e, None))?))
        }
        ("SequenceConstruct" | "SplitToSequence", 0) => {
            Some(Ty::Other(seq_of(Ty::tensor(input_elem(0)?, None))?))
        }
        ("SequenceAt" | "ConcatFromSequence", 0) => match ins.first().copied().flatten()? {
            Ty::Other(Type {
                value: Some(TypeValue::Sequence(Some(inner))),
                ..
            }) => match &inner.value {
                Some(TypeValue::Tensor(tt)) => t(tt.elem_type?),
                _ => Some(Ty::Other((**inner).clone())),
            },
            _ => None,
        },
        ("OptionalGetElement", 0) => match ins.first().copied().flatten()? {
            Ty::Other(Type {
                value: Some(TypeValue::Optional(Some(inner))),
                ..
            }) => match &inner.value {
                Some(TypeValue::Tensor(tt)) => t(tt.elem_type?),
                _ => Some(Ty::Other((**inner).clone())),
            },
            tensor @ Ty::Tensor { .. } => Some(tensor.clone()),
            _ => None,
        },
        ("Optional", 0) => {
            let inner = match attr_value(node, "type", ctx) {
                Some(AttrValue::TypeProto(tp)) => tp.clone(),
                _ => to_ir(ins.first().copied().flatten()?)?,
            };
            Some(Ty::Other(Type {
                value: Some(TypeValue::Optional(Some(Box::new(inner)))),
                denotation: None,
            }))
        }
        ("Shape" | "Size", 0) => t(dtype::INT64),
        ("BitCast", 0) => t(attr_dtype(node, "to", ctx)?),
        ("BlackmanWindow" | "HammingWindow" | "HannWindow" | "MelWeightMatrix", 0) => {
            t(attr_dtype(node, "output_datatype", ctx).unwrap_or(dtype::FLOAT))
        }
        // The state's type is the past state's, or the query's when there is none.
        ("LinearAttention", 1) => t(input_elem(3).or_else(|| input_elem(0))?),
        ("LayerNormalization", 1 | 2) => {
            t(attr_dtype(node, "stash_type", ctx).unwrap_or(dtype::FLOAT))
        }
        _ => None,
    }
}

fn seq_of(t: Ty) -> Option<Type> {
    Some(Type {
        value: Some(TypeValue::Sequence(Some(Box::new(to_ir(&t)?)))),
        denotation: None,
    })
}
