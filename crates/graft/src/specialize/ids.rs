//! Overload ids from bound values (`alpha_0p2`, `to_7`, `h_<fnv64>` when long).

use super::Env;
use crate::ir::{AttrValue, Model, is_identifier};

/// The overload id for `env`: readable (`alpha_0p2`, `to_7`, `a_1__b_m2`) when every
/// value has a short spelling, else `h_` and a 64-bit FNV-1a hash of the canonical
/// text; `default` when nothing is bound. A generic that is itself an overload
/// prefixes its id.
pub(crate) fn overload_id(model: &Model, generic: &str, env: &Env) -> String {
    let mut parts = Vec::new();
    let mut canonical = String::new();
    let mut readable = true;
    for (name, value) in env {
        canonical.push_str(&format!("{name}:{}=", value.attr_type().name()));
        canonical.push_str(&canonical_value(model, value));
        canonical.push(';');
        match short(value) {
            Some(text) if is_identifier(name) => parts.push(format!("{name}_{text}")),
            _ => readable = false,
        }
    }
    let mut id = if env.is_empty() {
        "default".to_string()
    } else {
        parts.join("__")
    };
    if !readable || id.len() > 40 || !is_identifier(&id) {
        id = format!("h_{:016x}", fnv1a(canonical.as_bytes()));
    }
    if generic.is_empty() {
        id
    } else {
        format!("{generic}__{id}")
    }
}

/// An identifier-safe spelling of a short value.
fn short(value: &AttrValue) -> Option<String> {
    let num = |s: String| s.replace('-', "m").replace('.', "p");
    let float = |f: f32| f.is_finite().then(|| num(format!("{f}")));
    let list = |items: Vec<Option<String>>| {
        (items.len() <= 4)
            .then(|| items.into_iter().collect::<Option<Vec<_>>>())
            .flatten()
            .map(|v| v.join("_"))
    };
    match value {
        AttrValue::Int(i) => Some(num(i.to_string())),
        AttrValue::Float(f) => float(*f),
        AttrValue::String(s) => std::str::from_utf8(s)
            .ok()
            .filter(|s| !s.is_empty() && s.len() <= 16)
            .filter(|s| s.chars().all(|c| c.is_ascii_alphanumeric()))
            .map(str::to_string),
        AttrValue::Ints(v) => list(v.iter().map(|i| Some(num(i.to_string()))).collect()),
        AttrValue::Floats(v) => list(v.iter().map(|&f| float(f)).collect()),
        _ => None,
    }
    .filter(|s| !s.is_empty())
}

/// A text that is equal for equal values (graphs by their printed form).
fn canonical_value(model: &Model, value: &AttrValue) -> String {
    match value {
        AttrValue::Graph(g) => crate::text::print_graph(model, *g),
        AttrValue::Graphs(gs) => gs
            .iter()
            .map(|&g| crate::text::print_graph(model, g))
            .collect::<Vec<_>>()
            .join("\n"),
        AttrValue::Float(f) => format!("{:08x}", f.to_bits()),
        AttrValue::Floats(v) => v.iter().map(|f| format!("{:08x},", f.to_bits())).collect(),
        other => format!("{other:?}"),
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
