//! Values a run of the model gives: the inputs a run needs (their types with symbolic
//! dimensions filled in, seeded random contents), and what a tensor holds in numbers
//! (statistics, a histogram, a 2-D slice) for showing. The run itself happens outside
//! the core (the app hands the model to onnxruntime-web); tensors travel as
//! [`Tensor`]s with their bytes in `raw_data`, little-endian, as ONNX stores them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

pub use crate::edit::npy_bytes;
use crate::ir::{
    DimValue, GraphId, GraphOwner, Model, NodeId, Tensor, TypeValue, ValueId, ValueInfo, dtype,
};

/// One graph input a run must be given: its name, element type and dimensions (a
/// number, a symbol, or unknown; `None` when not even the rank is declared).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputSpec {
    pub name: String,
    pub data_type: i32,
    pub dims: Option<Vec<DimSpec>>,
}

/// A dimension of an input as the model declares it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DimSpec {
    Fixed(i64),
    /// A symbolic dimension, by name: the user gives its size.
    Symbol(String),
    /// Neither a number nor a name: the user gives its size under the input's name
    /// and position (`x[0]`).
    Unknown(String),
}

impl DimSpec {
    /// The name the user's size is kept under, unless the dimension is fixed.
    pub fn symbol(&self) -> Option<&str> {
        match self {
            DimSpec::Fixed(_) => None,
            DimSpec::Symbol(s) | DimSpec::Unknown(s) => Some(s),
        }
    }
}

/// The inputs the main graph must be given: its inputs that are not initializers
/// (an input with an initializer of the same name has a default and is left out).
pub fn input_specs(model: &Model) -> Result<Vec<InputSpec>, String> {
    let Some(graph) = model.graph else {
        return Err("the model has no graph".into());
    };
    specs_of(model, graph)
}

fn specs_of(model: &Model, graph: GraphId) -> Result<Vec<InputSpec>, String> {
    let g = model.graph(graph);
    let initialized: std::collections::HashSet<_> =
        g.initializers.iter().filter_map(|i| i.value).collect();
    let mut specs = Vec::new();
    for input in &g.inputs {
        let Some(value) = input.value else { continue };
        if initialized.contains(&value) {
            continue;
        }
        let name = model.value(value).name.clone();
        let tensor = match input.ty.as_ref().and_then(|t| t.value.as_ref()) {
            Some(TypeValue::Tensor(t)) => t,
            Some(_) => {
                return Err(format!(
                    "input {name:?} is not a tensor: only tensor inputs can be given"
                ));
            }
            None => return Err(format!("input {name:?} has no type")),
        };
        let data_type = tensor.elem_type.unwrap_or(dtype::UNDEFINED);
        if dtype::name(data_type).is_none() || data_type == dtype::UNDEFINED {
            return Err(format!("input {name:?} has no element type"));
        }
        let dims = tensor.shape.as_ref().map(|shape| {
            shape
                .dims
                .iter()
                .enumerate()
                .map(|(i, d)| match &d.value {
                    // Some exporters write -1 for a dimension they do not know.
                    Some(DimValue::Value(v)) if *v >= 0 => DimSpec::Fixed(*v),
                    Some(DimValue::Param(p)) if !p.is_empty() => DimSpec::Symbol(p.clone()),
                    _ => DimSpec::Unknown(format!("{name}[{i}]")),
                })
                .collect()
        });
        specs.push(InputSpec {
            name,
            data_type,
            dims,
        });
    }
    Ok(specs)
}

/// The size of every dimension of `spec`, symbols taken from `sizes` (a symbol not
/// given is 1). An input without a declared shape has none to fill in.
pub fn resolve_dims(spec: &InputSpec, sizes: &BTreeMap<String, i64>) -> Result<Vec<i64>, String> {
    let dims = spec.dims.as_ref().ok_or_else(|| {
        format!(
            "input {:?} declares no shape: give it as an .npy file",
            spec.name
        )
    })?;
    dims.iter()
        .map(|d| {
            let n = match d {
                DimSpec::Fixed(n) => *n,
                DimSpec::Symbol(s) | DimSpec::Unknown(s) => sizes.get(s).copied().unwrap_or(1),
            };
            if n < 0 {
                Err(format!(
                    "input {:?}: dimension {} is {n}; a size is 0 or more",
                    spec.name,
                    d.symbol().unwrap_or("?")
                ))
            } else {
                Ok(n)
            }
        })
        .collect()
}

/// A copy of a model that gives a node's outputs as graph outputs, so a runtime can
/// show them: `outputs` pairs each output of the node (by index) with its name in
/// `model`.
pub struct Probe {
    pub model: Model,
    pub outputs: Vec<(usize, String)>,
}

/// A copy of `model` whose main graph also outputs what `node` computes. `calls` are
/// the calls of local functions from the main graph down to the body `node` is in
/// (empty when it is in the main graph): the copy has them inlined
/// (`library::inline_call`, which keeps the body's nodes in order), and the node is
/// found again as the copy of its body node. A node inside an If, Loop or Scan body
/// is refused (a runtime gives no value from inside a subgraph), naming it.
pub fn probe(model: &Model, calls: &[NodeId], node: NodeId) -> Result<Probe, String> {
    let main = model.graph.ok_or("the model has no graph")?;
    let named = |m: &Model, n: NodeId| {
        let node = m.node(n);
        if node.name().is_empty() {
            node.op_type().to_string()
        } else {
            node.name().to_string()
        }
    };
    let first = calls.first().copied().unwrap_or(node);
    if model.live_node(first).is_none_or(|n| n.graph != main) {
        return Err(format!(
            "{} is inside an If, Loop or Scan body: onnxruntime gives no values from there",
            model
                .live_node(node)
                .map_or("the node".into(), |_| named(model, node))
        ));
    }
    let mut copy = model.clone();
    let mut here = first;
    for (k, _) in calls.iter().enumerate() {
        let next = calls.get(k + 1).copied().unwrap_or(node);
        let body = model
            .nodes
            .get(next)
            .map(|n| n.graph)
            .ok_or("no such node")?;
        let position = model
            .graph(body)
            .nodes
            .iter()
            .position(|&n| n == next)
            .ok_or("the node is not in its graph")?;
        if !matches!(model.graph(body).owner, GraphOwner::Function(_)) {
            return Err(format!(
                "{} is inside an If, Loop or Scan body: onnxruntime gives no values from there",
                named(model, node)
            ));
        }
        let report = crate::library::inline_call(&mut copy, here).map_err(|e| {
            format!(
                "{} cannot be inlined to reach its body: {e}",
                named(&copy, here)
            )
        })?;
        here = *report
            .nodes
            .get(position)
            .ok_or("the inlined body lost a node")?;
    }
    let outputs: Vec<(usize, String)> = expose(&mut copy, &[here]).pop().unwrap_or_default();
    if outputs.is_empty() {
        return Err(format!("{} has no outputs", named(&copy, here)));
    }
    Ok(Probe {
        model: copy,
        outputs,
    })
}

/// Makes every output of `nodes` (nodes of the main graph) an output of the main graph,
/// so a runtime gives them; for each node, its outputs' indices and names. Each new
/// output gets the type inference finds (a graph output must have one); a value whose
/// type cannot be inferred (an operator without a schema) goes without, which
/// onnxruntime accepts: such a copy is for running, never saved.
pub fn expose(model: &mut Model, nodes: &[NodeId]) -> Vec<Vec<(usize, String)>> {
    let Some(main) = model.graph else {
        return vec![Vec::new(); nodes.len()];
    };
    let inferred = crate::infer::infer(model);
    let mut shown: std::collections::HashSet<ValueId> = model
        .graph(main)
        .outputs
        .iter()
        .filter_map(|o| o.value)
        .collect();
    let mut out = Vec::with_capacity(nodes.len());
    for &n in nodes {
        let mut names = Vec::new();
        if model.nodes.get(n).is_some_and(|node| node.graph == main) {
            let values: Vec<(usize, ValueId)> = model
                .node(n)
                .outputs
                .iter()
                .enumerate()
                .filter_map(|(k, v)| Some((k, (*v)?)))
                .collect();
            for (k, v) in values {
                if shown.insert(v) {
                    let ty = inferred.get(v);
                    model.graphs[main].outputs.push(ValueInfo {
                        value: Some(v),
                        ty,
                        ..ValueInfo::default()
                    });
                }
                names.push((k, model.value(v).name.clone()));
            }
        }
        out.push(names);
    }
    out
}

/// NumPy's name for an element type (onnxruntime-web uses the same names), for the
/// types both can hold.
pub fn numpy_name(data_type: i32) -> Option<&'static str> {
    NUMPY_NAMES
        .iter()
        .find(|(t, _)| *t == data_type)
        .map(|(_, n)| *n)
}

/// The element type NumPy (or onnxruntime-web) calls `name`.
pub fn from_numpy_name(name: &str) -> Option<i32> {
    NUMPY_NAMES
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(t, _)| *t)
}

const NUMPY_NAMES: &[(i32, &str)] = &[
    (dtype::FLOAT, "float32"),
    (dtype::UINT8, "uint8"),
    (dtype::INT8, "int8"),
    (dtype::UINT16, "uint16"),
    (dtype::INT16, "int16"),
    (dtype::INT32, "int32"),
    (dtype::INT64, "int64"),
    (dtype::BOOL, "bool"),
    (dtype::FLOAT16, "float16"),
    (dtype::DOUBLE, "float64"),
    (dtype::UINT32, "uint32"),
    (dtype::UINT64, "uint64"),
];

/// The most elements a random input gets (4 GB of float32 would stop the page).
pub const MAX_RANDOM_ELEMENTS: u64 = 64 << 20;

/// A tensor of `data_type` and `dims` with seeded random contents: floats drawn from a
/// standard normal distribution, integers from 0 to 9, booleans half true. The same
/// seed gives the same tensor on every machine.
pub fn random_tensor(data_type: i32, dims: &[i64], seed: u64) -> Result<Tensor, String> {
    let count = element_count_within(dims, "a random input")?;
    let mut rng = SplitMix(seed);
    let mut bytes = Vec::new();
    let mut put = |f: &mut dyn FnMut(&mut SplitMix, &mut Vec<u8>)| {
        for _ in 0..count {
            f(&mut rng, &mut bytes);
        }
    };
    match data_type {
        dtype::FLOAT => put(&mut |r, b| b.extend((r.normal() as f32).to_le_bytes())),
        dtype::DOUBLE => put(&mut |r, b| b.extend(r.normal().to_le_bytes())),
        dtype::FLOAT16 => {
            put(&mut |r, b| b.extend(half::f16::from_f32(r.normal() as f32).to_le_bytes()))
        }
        dtype::INT64 => put(&mut |r, b| b.extend((r.below(10) as i64).to_le_bytes())),
        dtype::INT32 => put(&mut |r, b| b.extend((r.below(10) as i32).to_le_bytes())),
        dtype::INT16 => put(&mut |r, b| b.extend((r.below(10) as i16).to_le_bytes())),
        dtype::INT8 => put(&mut |r, b| b.push(r.below(10) as u8)),
        dtype::UINT64 => put(&mut |r, b| b.extend(r.below(10).to_le_bytes())),
        dtype::UINT32 => put(&mut |r, b| b.extend((r.below(10) as u32).to_le_bytes())),
        dtype::UINT16 => put(&mut |r, b| b.extend((r.below(10) as u16).to_le_bytes())),
        dtype::UINT8 => put(&mut |r, b| b.push(r.below(10) as u8)),
        dtype::BOOL => put(&mut |r, b| b.push(r.below(2) as u8)),
        other => {
            return Err(format!(
                "a random {} input is not supported: give it as an .npy file",
                dtype::name(other).unwrap_or("?")
            ));
        }
    }
    Ok(Tensor {
        dims: dims.to_vec(),
        data_type: Some(data_type),
        raw_data: Some(Bytes::from(bytes)),
        ..Tensor::default()
    })
}

/// A tensor of `dims` whose every element is `value` (a scalar input when `dims` is
/// empty), of element type `data_type`; `value` must be one the type holds (see
/// [`parse_fill`]).
pub fn filled_tensor(data_type: i32, dims: &[i64], value: f64) -> Result<Tensor, String> {
    let count = element_count_within(dims, "an input")?;
    let one: Vec<u8> = match data_type {
        dtype::FLOAT => (value as f32).to_le_bytes().to_vec(),
        dtype::DOUBLE => value.to_le_bytes().to_vec(),
        dtype::FLOAT16 => half::f16::from_f64(value).to_le_bytes().to_vec(),
        dtype::INT64 => (value as i64).to_le_bytes().to_vec(),
        dtype::INT32 => (value as i32).to_le_bytes().to_vec(),
        dtype::INT16 => (value as i16).to_le_bytes().to_vec(),
        dtype::INT8 => vec![value as i8 as u8],
        dtype::UINT64 => (value as u64).to_le_bytes().to_vec(),
        dtype::UINT32 => (value as u32).to_le_bytes().to_vec(),
        dtype::UINT16 => (value as u16).to_le_bytes().to_vec(),
        dtype::UINT8 | dtype::BOOL => vec![value as u8],
        other => {
            return Err(format!(
                "a {} input cannot be filled with a number: give it as an .npy file",
                dtype::name(other).unwrap_or("?")
            ));
        }
    };
    Ok(Tensor {
        dims: dims.to_vec(),
        data_type: Some(data_type),
        raw_data: Some(Bytes::from(one.repeat(count))),
        ..Tensor::default()
    })
}

/// The number `text` names for an input of element type `data_type`, or why it is
/// not one: an integer type takes a whole number in its range, bool `true`, `false`,
/// 1 or 0, a float type any number (`nan` and `inf` too).
pub fn parse_fill(text: &str, data_type: i32) -> Result<f64, String> {
    let text = text.trim();
    let type_name = dtype::name(data_type).unwrap_or("?");
    if data_type == dtype::BOOL {
        return match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(1.0),
            "false" | "0" => Ok(0.0),
            _ => Err(format!("`{text}` is not a bool: type true, false, 1 or 0")),
        };
    }
    let range = match data_type {
        dtype::FLOAT | dtype::DOUBLE | dtype::FLOAT16 => None,
        dtype::INT64 => Some((i64::MIN as f64, i64::MAX as f64)),
        dtype::INT32 => Some((f64::from(i32::MIN), f64::from(i32::MAX))),
        dtype::INT16 => Some((f64::from(i16::MIN), f64::from(i16::MAX))),
        dtype::INT8 => Some((f64::from(i8::MIN), f64::from(i8::MAX))),
        dtype::UINT64 => Some((0.0, u64::MAX as f64)),
        dtype::UINT32 => Some((0.0, f64::from(u32::MAX))),
        dtype::UINT16 => Some((0.0, f64::from(u16::MAX))),
        dtype::UINT8 => Some((0.0, f64::from(u8::MAX))),
        _ => {
            return Err(format!(
                "a {type_name} input cannot be filled with a number: give it as an .npy file"
            ));
        }
    };
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if let Some((lo, hi)) = range {
        if value.fract() != 0.0 {
            return Err(format!(
                "`{text}` is not a whole number, as {type_name} needs"
            ));
        }
        if !(lo..=hi).contains(&value) {
            return Err(format!(
                "`{text}` is out of {type_name}'s range, {lo} to {hi}"
            ));
        }
    }
    Ok(value)
}

/// The value an input's name makes obvious, with why: `sr` (an integer) is a sample
/// rate, 16000; a mask keeps every position (1); a recurrent state or a cache starts
/// at zero; token type ids are one segment (0). `None` when the name says nothing,
/// and the input is random.
pub fn default_fill(name: &str, data_type: i32) -> Option<(f64, &'static str)> {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let integer = !matches!(
        data_type,
        dtype::FLOAT | dtype::DOUBLE | dtype::FLOAT16 | dtype::BFLOAT16 | dtype::BOOL
    ) && dtype::name(data_type).is_some();
    let float = matches!(data_type, dtype::FLOAT | dtype::DOUBLE | dtype::FLOAT16);
    let has = |w: &str| words.contains(&w);
    if integer
        && (matches!(lower.as_str(), "sr" | "samplerate")
            || lower.contains("sample_rate")
            || lower.contains("sampling_rate"))
    {
        return Some((
            16000.0,
            "from its name, a sample rate: 16000 Hz, what speech models take",
        ));
    }
    if (integer || data_type == dtype::BOOL || float) && (has("mask") || lower.ends_with("mask")) {
        return Some((1.0, "from its name, a mask: 1 keeps every position"));
    }
    if integer && lower.contains("token_type_ids") {
        return Some((0.0, "from its name, token types: 0, one segment"));
    }
    if float
        && (["state", "states", "hidden", "h0", "c0", "cache", "past"]
            .iter()
            .any(|w| has(w))
            || matches!(lower.as_str(), "h" | "c"))
    {
        return Some((
            0.0,
            "from its name, a recurrent state or a cache: it starts at zero",
        ));
    }
    None
}

/// How many elements `dims` holds, refused above [`MAX_RANDOM_ELEMENTS`].
fn element_count_within(dims: &[i64], what: &str) -> Result<usize, String> {
    dims.iter()
        .try_fold(1u64, |acc, &d| {
            u64::try_from(d).ok().and_then(|d| acc.checked_mul(d))
        })
        .filter(|&c| c <= MAX_RANDOM_ELEMENTS)
        .map(|c| c as usize)
        .ok_or_else(|| {
            format!("{dims:?} is too large for {what} (at most {MAX_RANDOM_ELEMENTS} elements)")
        })
}

/// SplitMix64: a small seeded generator, the same sequence on every machine.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64().checked_rem(n).unwrap_or(0)
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// An IEEE half as a double.
pub fn half(bits: u16) -> f64 {
    half::f16::from_bits(bits).to_f64()
}

/// The elements as little-endian bytes of the element type, or for strings each with
/// its length, however the tensor stores them (`raw_data`, read or left in `model`'s
/// file, the typed fields, or a data file of `model`); `None` when they cannot be had
/// (a missing data file, a segment, an external or unread tensor without its model).
pub fn elements<'t>(model: Option<&Model>, t: &'t Tensor) -> Option<Cow<'t, [u8]>> {
    if t.segment.is_some() {
        return None;
    }
    if let Some(ext) = t.external_ref() {
        let bytes = crate::external::resolve(model?, t, &ext).ok()?;
        return Some(Cow::Owned(bytes.to_vec()));
    }
    if t.unread.is_some() {
        let bytes = crate::external::raw(model?, t).ok()??;
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

/// The elements of a tensor that carries them as numbers, in C order (see
/// [`numbers_in`]).
pub fn numbers(t: &Tensor) -> Result<Vec<f64>, String> {
    numbers_in(None, t)
}

/// The elements of a tensor as numbers, in C order (an external tensor's read from
/// `model`'s data file). Strings and types without a numeric reading (complex, 4-bit
/// and 8-bit floats) are refused with their name.
pub fn numbers_in(model: Option<&Model>, t: &Tensor) -> Result<Vec<f64>, String> {
    let data_type = t.data_type();
    let unsupported = || {
        format!(
            "{} values cannot be shown as numbers",
            dtype::name(data_type).unwrap_or("untyped")
        )
    };
    let size = match data_type {
        dtype::FLOAT | dtype::INT32 | dtype::UINT32 => 4,
        dtype::DOUBLE | dtype::INT64 | dtype::UINT64 => 8,
        dtype::FLOAT16 | dtype::BFLOAT16 | dtype::INT16 | dtype::UINT16 => 2,
        dtype::INT8 | dtype::UINT8 | dtype::BOOL => 1,
        _ => return Err(unsupported()),
    };
    let bytes = elements(model, t).ok_or("the tensor's elements cannot be read")?;
    if bytes.len() % size != 0 {
        return Err(format!(
            "{} bytes do not divide into {size}-byte elements",
            bytes.len()
        ));
    }
    let read = |c: &[u8]| -> f64 {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        let [b0, b1, b2, b3, ..] = b;
        match data_type {
            dtype::FLOAT => f64::from(f32::from_le_bytes([b0, b1, b2, b3])),
            dtype::DOUBLE => f64::from_le_bytes(b),
            dtype::FLOAT16 => half(u16::from_le_bytes([b0, b1])),
            dtype::BFLOAT16 => f64::from(f32::from_bits(
                u32::from(u16::from_le_bytes([b0, b1])) << 16,
            )),
            dtype::INT64 => i64::from_le_bytes(b) as f64,
            dtype::UINT64 => u64::from_le_bytes(b) as f64,
            dtype::INT32 => f64::from(i32::from_le_bytes([b0, b1, b2, b3])),
            dtype::UINT32 => f64::from(u32::from_le_bytes([b0, b1, b2, b3])),
            dtype::INT16 => f64::from(i16::from_le_bytes([b0, b1])),
            dtype::UINT16 => f64::from(u16::from_le_bytes([b0, b1])),
            dtype::INT8 => f64::from(b0 as i8),
            _ => f64::from(b0),
        }
    };
    Ok(bytes.chunks_exact(size).map(read).collect())
}

/// How many bars a histogram has.
pub const HISTOGRAM_BINS: usize = 24;

/// What a tensor holds, summed up for showing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub data_type: String,
    pub dims: Vec<i64>,
    pub count: u64,
    /// Over the finite elements (`None` when there is none).
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub mean: Option<f64>,
    pub std: Option<f64>,
    pub nan: u64,
    pub inf: u64,
    /// Counts of the finite elements in [`HISTOGRAM_BINS`] equal bins from `min` to
    /// `max` (one bin when they are equal).
    pub histogram: Vec<u64>,
    /// A 2-D slice (the last two dimensions at index 0 of the others), at most
    /// [`HEAT_SIDE`] on a side, each cell a block of rows and columns.
    pub heat: Option<Heat>,
}

impl Stats {
    /// The largest absolute finite value.
    pub fn max_abs(&self) -> Option<f64> {
        Some(self.min?.abs().max(self.max?.abs()))
    }
}

/// A 2-D slice of a tensor, row by row, with the range its colours span.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Heat {
    pub rows: usize,
    pub cols: usize,
    /// How many rows and columns of the slice each shown cell stands for (it shows
    /// the block's value of largest magnitude): each axis has its own, so a
    /// [40, 6625] slice shows its 40 rows.
    pub row_step: usize,
    pub col_step: usize,
    pub values: Vec<f64>,
    /// The values the colour scale runs from and to: the 2nd and 98th percentiles of
    /// the shown finite values, so a few outliers do not wash the map out; made
    /// symmetric about zero when the values have both signs.
    pub lo: f64,
    pub hi: f64,
    /// Whether some shown values lie outside `lo..=hi` (drawn in the end colours).
    pub clipped: bool,
}

impl Heat {
    /// Where `v` falls on the palette, 0 (blue) through 0.5 (white) to 1 (red):
    /// values of both signs centre zero on white; values of one sign use the half of
    /// the palette from white. `None` for NaN and Inf.
    pub fn shade(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        let span = self.hi - self.lo;
        let t = if span > 0.0 {
            ((v - self.lo) / span).clamp(0.0, 1.0)
        } else {
            0.5
        };
        Some(if self.lo >= 0.0 && span > 0.0 {
            0.5 + t / 2.0
        } else if self.hi <= 0.0 && span > 0.0 {
            t / 2.0
        } else {
            t
        })
    }
}

/// The most rows or columns a heat map shows.
pub const HEAT_SIDE: usize = 48;

/// The statistics of `t`.
pub fn stats(t: &Tensor) -> Result<Stats, String> {
    let values = numbers(t)?;
    let expected = t.element_count();
    if expected != Some(values.len() as u64) {
        return Err(format!(
            "the tensor holds {} elements, its shape {:?} needs {}",
            values.len(),
            t.dims,
            expected.map_or("more than can be counted".to_string(), |e| e.to_string())
        ));
    }
    Ok(stats_of(t.data_type(), &t.dims, &values))
}

fn stats_of(data_type: i32, dims: &[i64], values: &[f64]) -> Stats {
    let (mut nan, mut inf, mut n) = (0u64, 0u64, 0u64);
    let (mut min, mut max, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
    for &v in values {
        if v.is_nan() {
            nan += 1;
        } else if v.is_infinite() {
            inf += 1;
        } else {
            n += 1;
            min = min.min(v);
            max = max.max(v);
            sum += v;
        }
    }
    let mean = (n > 0).then(|| sum / n as f64);
    let std = mean.map(|m| {
        let sq: f64 = values
            .iter()
            .filter(|v| v.is_finite())
            .map(|v| (v - m) * (v - m))
            .sum();
        (sq / n as f64).sqrt()
    });
    let mut histogram = Vec::new();
    if n > 0 {
        let bins = if max > min { HISTOGRAM_BINS } else { 1 };
        histogram = vec![0u64; bins];
        let width = (max - min) / bins as f64;
        for &v in values.iter().filter(|v| v.is_finite()) {
            let i = if width > 0.0 {
                (((v - min) / width) as usize).min(bins - 1)
            } else {
                0
            };
            histogram[i] += 1;
        }
    }
    Stats {
        data_type: dtype::name(data_type).unwrap_or("?").to_string(),
        dims: dims.to_vec(),
        count: values.len() as u64,
        min: (n > 0).then_some(min),
        max: (n > 0).then_some(max),
        mean,
        std,
        nan,
        inf,
        histogram,
        heat: heat(dims, values),
    }
}

fn heat(dims: &[i64], values: &[f64]) -> Option<Heat> {
    let [.., r, c] = dims else { return None };
    let (rows, cols) = (usize::try_from(*r).ok()?, usize::try_from(*c).ok()?);
    if rows < 2 || cols < 2 || rows.checked_mul(cols).is_none_or(|n| values.len() < n) {
        return None;
    }
    let (row_step, col_step) = (rows.div_ceil(HEAT_SIDE), cols.div_ceil(HEAT_SIDE));
    let (shown_rows, shown_cols) = (rows.div_ceil(row_step), cols.div_ceil(col_step));
    // Each cell stands for a block of `row_step` × `col_step` elements and shows the
    // one of largest magnitude (a NaN or an Inf if the block has one), so a peak
    // between sampled columns (a softmax's winning class) is not lost.
    let mut out = vec![0.0f64; shown_rows * shown_cols];
    let mut seen = vec![false; shown_rows * shown_cols];
    for i in 0..rows {
        let row = &values[i * cols..(i + 1) * cols];
        for (j, &v) in row.iter().enumerate() {
            let k = (i / row_step) * shown_cols + j / col_step;
            let keep = &mut out[k];
            if !seen[k] || (keep.is_finite() && (!v.is_finite() || v.abs() > keep.abs())) {
                *keep = v;
                seen[k] = true;
            }
        }
    }
    let mut finite: Vec<f64> = out.iter().copied().filter(|v| v.is_finite()).collect();
    finite.sort_by(f64::total_cmp);
    let at = |q: f64| {
        finite
            .get(((finite.len().saturating_sub(1)) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let (mut lo, mut hi) = (at(0.02), at(0.98));
    if lo < 0.0 && hi > 0.0 {
        let m = lo.abs().max(hi);
        (lo, hi) = (-m, m);
    }
    let clipped = finite
        .first()
        .zip(finite.last())
        .is_some_and(|(&a, &b)| a < lo || b > hi);
    Some(Heat {
        rows: shown_rows,
        cols: shown_cols,
        row_step,
        col_step,
        values: out,
        lo,
        hi,
        clipped,
    })
}

/// The largest absolute difference between two tensors of the same element type and
/// shape, element by element (NaN against a number counts as infinite; NaN against
/// NaN as equal). External tensors are read from their models' data files.
pub fn max_abs_difference(
    a_model: Option<&Model>,
    a: &Tensor,
    b_model: Option<&Model>,
    b: &Tensor,
) -> Result<f64, String> {
    if a.data_type() != b.data_type() {
        return Err(format!(
            "the element types differ: {} and {}",
            dtype::name(a.data_type()).unwrap_or("?"),
            dtype::name(b.data_type()).unwrap_or("?")
        ));
    }
    if a.dims != b.dims {
        return Err(format!("the shapes differ: {:?} and {:?}", a.dims, b.dims));
    }
    let (x, y) = (numbers_in(a_model, a)?, numbers_in(b_model, b)?);
    if x.len() != y.len() {
        return Err(format!("{} elements against {}", x.len(), y.len()));
    }
    Ok(x.iter().zip(&y).fold(0f64, |m, (p, q)| {
        let d = match (p.is_nan(), q.is_nan()) {
            (true, true) => 0.0,
            (false, false) if p == q => 0.0,
            (false, false) => (p - q).abs(),
            _ => f64::INFINITY,
        };
        m.max(d)
    }))
}
