//! Short, readable one-line texts for attribute values: node boxes, the properties
//! panel and the diff's lines show them.

use crate::ir::{AttrValue, Model, Tensor};

/// At most this many list elements are shown before an ellipsis.
const LIST: usize = 6;
/// Strings are cut after this many characters.
const CHARS: usize = 32;

/// A one-line text for an attribute value: `3`, `0.5`, `[1, 2, 3]`, `"relu"`,
/// `float[64,3]`, `graph (12 nodes)`.
pub fn attr_text(model: &Model, value: &AttrValue) -> String {
    match value {
        AttrValue::Float(f) => float(*f),
        AttrValue::Int(i) => i.to_string(),
        AttrValue::String(s) => quoted(&String::from_utf8_lossy(s)),
        AttrValue::Tensor(t) => tensor(t),
        AttrValue::Graph(g) => graph(model, *g),
        AttrValue::SparseTensor(t) => sparse(t),
        AttrValue::TypeProto(t) => t.to_string(),
        AttrValue::Floats(v) => list(v.iter().map(|f| float(*f)), v.len()),
        AttrValue::Ints(v) => list(v.iter().map(|i| i.to_string()), v.len()),
        AttrValue::Strings(v) => list(
            v.iter().map(|s| quoted(&String::from_utf8_lossy(s))),
            v.len(),
        ),
        AttrValue::Tensors(v) => list(v.iter().map(tensor), v.len()),
        AttrValue::Graphs(v) => list(v.iter().map(|g| graph(model, *g)), v.len()),
        AttrValue::SparseTensors(v) => list(v.iter().map(sparse), v.len()),
        AttrValue::TypeProtos(v) => list(v.iter().map(|t| t.to_string()), v.len()),
    }
}

fn sparse(t: &crate::ir::SparseTensor) -> String {
    match &t.values {
        Some(values) => format!("sparse {}", tensor(values)),
        None => "sparse".to_string(),
    }
}

fn float(f: f32) -> String {
    // Rust's shortest round-trip form, as the text format prints it.
    let s = f.to_string();
    if f.is_finite() && !s.contains('.') && !s.contains('e') {
        format!("{s}.0")
    } else {
        s
    }
}

fn quoted(s: &str) -> String {
    let mut chars = s.chars();
    let head: String = chars.by_ref().take(CHARS).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

fn list(items: impl Iterator<Item = String>, len: usize) -> String {
    let shown: Vec<String> = items.take(LIST).collect();
    if len > LIST {
        format!("[{}, … {len} items]", shown.join(", "))
    } else {
        format!("[{}]", shown.join(", "))
    }
}

fn tensor(t: &Tensor) -> String {
    let ty = crate::ir::dtype::name(t.data_type()).unwrap_or("?");
    let dims: Vec<String> = t.dims.iter().map(|d| d.to_string()).collect();
    let scalar = t.dims.is_empty() || t.element_count() == Some(1);
    if scalar && let Some(v) = first_value(t) {
        return format!("{ty} {v}");
    }
    format!("{ty}[{}]", dims.join(","))
}

/// The single value of a one-element tensor stored in a typed field or raw data.
fn first_value(t: &Tensor) -> Option<String> {
    if let Some(f) = t.float_data.first() {
        return Some(float(*f));
    }
    if let Some(i) = t.int64_data.first() {
        return Some(i.to_string());
    }
    if let Some(i) = t.int32_data.first() {
        return Some(i.to_string());
    }
    let raw = t.raw_data.as_deref()?;
    match t.data_type() {
        1 => raw
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(|b| float(f32::from_le_bytes(b))),
        7 => raw
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .map(|b| i64::from_le_bytes(b).to_string()),
        6 => raw
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(|b| i32::from_le_bytes(b).to_string()),
        _ => None,
    }
}

fn graph(model: &Model, g: crate::ir::GraphId) -> String {
    let n = model.graphs.get(g).map_or(0, |g| g.nodes.len());
    format!("graph ({n} nodes)")
}
