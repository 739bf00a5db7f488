//! Folding a specialized body: nodes of the default domain whose inputs are all small
//! known constants become `Constant`s (int64/int32/float/double/bool; arithmetic,
//! comparisons, logic, Cast, Shape, Reshape, Concat, Unsqueeze, Squeeze, Gather,
//! Identity), an `If` with a known condition becomes its taken branch, and nodes
//! whose outputs nothing reads are removed.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    AttrKind, AttrValue, Attribute, DimValue, GraphId, Model, Names, Node, NodeId, Tensor,
    TypeValue, ValueDef, ValueId, dtype,
};

/// Results above this many elements are left alone.
const MAX_ELEMENTS: usize = 4096;

#[derive(Default)]
pub(super) struct Stats {
    pub folded_nodes: usize,
    pub folded_ifs: usize,
    pub removed_nodes: usize,
}

#[derive(Clone, Debug, PartialEq)]
enum Data {
    I64(Vec<i64>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

#[derive(Clone, Debug, PartialEq)]
struct Const {
    dims: Vec<i64>,
    data: Data,
}

impl Data {
    fn len(&self) -> usize {
        match self {
            Data::I64(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::Bool(v) => v.len(),
        }
    }

    /// The elements at `idx`, in order.
    fn pick(&self, idx: &[usize]) -> Option<Data> {
        fn take<T: Copy>(v: &[T], idx: &[usize]) -> Option<Vec<T>> {
            idx.iter().map(|&i| v.get(i).copied()).collect()
        }
        Some(match self {
            Data::I64(v) => Data::I64(take(v, idx)?),
            Data::I32(v) => Data::I32(take(v, idx)?),
            Data::F32(v) => Data::F32(take(v, idx)?),
            Data::F64(v) => Data::F64(take(v, idx)?),
            Data::Bool(v) => Data::Bool(take(v, idx)?),
        })
    }

    fn as_f64(&self) -> Vec<f64> {
        match self {
            Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::F64(v) => v.clone(),
            Data::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        }
    }

    fn as_i64(&self) -> Vec<i64> {
        match self {
            Data::I64(v) => v.clone(),
            Data::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
            Data::F32(v) => v.iter().map(|&x| x as i64).collect(),
            Data::F64(v) => v.iter().map(|&x| x as i64).collect(),
            Data::Bool(v) => v.iter().map(|&x| i64::from(x)).collect(),
        }
    }
}

impl Const {
    fn count(&self) -> Option<usize> {
        self.dims.iter().try_fold(1usize, |acc, &d| {
            usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
        })
    }

    fn from_tensor(t: &Tensor) -> Option<Const> {
        if t.is_external() || t.segment.is_some() {
            return None;
        }
        let c = Const {
            dims: t.dims.clone(),
            data: Data::I64(Vec::new()),
        };
        let n = c.count().filter(|&n| n <= MAX_ELEMENTS)?;
        let raw = t.raw_data.as_deref();
        let chunks = |size: usize| raw.map(|r| r.chunks_exact(size));
        let data = match t.data_type() {
            dtype::INT64 => Data::I64(match chunks(8) {
                Some(c) => c
                    .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                    .collect(),
                None => t.int64_data.clone(),
            }),
            dtype::INT32 => Data::I32(match chunks(4) {
                Some(c) => c
                    .map(|b| i32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
                    .collect(),
                None => t.int32_data.clone(),
            }),
            dtype::FLOAT => Data::F32(match chunks(4) {
                Some(c) => c
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
                    .collect(),
                None => t.float_data.clone(),
            }),
            dtype::DOUBLE => Data::F64(match chunks(8) {
                Some(c) => c
                    .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                    .collect(),
                None => t.double_data.clone(),
            }),
            dtype::BOOL => Data::Bool(match raw {
                Some(r) => r.iter().map(|&b| b != 0).collect(),
                None => t.int32_data.iter().map(|&b| b != 0).collect(),
            }),
            _ => return None,
        };
        (data.len() == n).then_some(Const { data, ..c })
    }

    fn to_tensor(&self) -> Tensor {
        // Named "" as onnx.parser names attribute tensors (the text's default).
        let mut t = Tensor {
            dims: self.dims.clone(),
            name: Some(String::new()),
            ..Tensor::default()
        };
        match &self.data {
            Data::I64(v) => {
                t.data_type = Some(dtype::INT64);
                t.int64_data = v.clone();
            }
            Data::I32(v) => {
                t.data_type = Some(dtype::INT32);
                t.int32_data = v.clone();
            }
            Data::F32(v) => {
                t.data_type = Some(dtype::FLOAT);
                t.float_data = v.clone();
            }
            Data::F64(v) => {
                t.data_type = Some(dtype::DOUBLE);
                t.double_data = v.clone();
            }
            Data::Bool(v) => {
                t.data_type = Some(dtype::BOOL);
                t.int32_data = v.iter().map(|&b| i32::from(b)).collect();
            }
        }
        t
    }
}

/// Folds the body `graph` and the subgraphs below it.
pub(super) fn fold(model: &mut Model, graph: GraphId) -> Stats {
    let mut stats = Stats::default();
    let mut known = HashMap::new();
    fold_graph(model, graph, graph, &mut known, &mut stats);
    remove_dead(model, graph, &mut stats);
    stats
}

fn fold_graph(
    model: &mut Model,
    root: GraphId,
    g: GraphId,
    known: &mut HashMap<ValueId, Const>,
    stats: &mut Stats,
) {
    let mut i = 0;
    while let Some(&n) = model.graph(g).nodes.get(i) {
        i += 1;
        let node = model.node(n);
        if node.domain() != "" {
            continue;
        }
        if node.op_type() == "Constant" {
            if let (Some(c), Some(Some(out))) = (constant_value(node), node.outputs.first()) {
                known.insert(*out, c);
            }
            continue;
        }
        let taken = (node.op_type() == "If")
            .then(|| {
                node.inputs
                    .first()
                    .copied()
                    .flatten()
                    .and_then(|v| known.get(&v))
            })
            .flatten()
            .filter(|cond| cond.data.len() == 1)
            .and_then(|cond| branch(node, cond.data.as_f64().first().is_some_and(|&x| x != 0.0)));
        if let Some(branch) = taken
            && inline_branch(model, root, n, branch)
        {
            stats.folded_ifs += 1;
            // The branch's nodes now stand where the If was: fold them next.
            i -= 1;
            continue;
        }
        let node = model.node(n);
        let inputs: Option<Vec<&Const>> = node
            .inputs
            .iter()
            .map(|i| i.and_then(|v| known.get(&v)))
            .collect();
        let result = match inputs {
            Some(inputs) if node.outputs.len() == 1 => eval(model, node, &inputs),
            _ if node.op_type() == "Shape" => static_shape(model, node),
            _ => None,
        };
        if let (Some(c), Some(&Some(out))) = (result, model.node(n).outputs.first())
            && c.count().is_some_and(|k| k <= MAX_ELEMENTS)
        {
            let node = &mut model.nodes[n];
            node.op_type = Some("Constant".into());
            node.inputs.clear();
            node.outputs.truncate(1);
            node.attributes = vec![Attribute {
                name: Some("value".into()),
                doc_string: None,
                kind: AttrKind::Value(AttrValue::Tensor(Box::new(c.to_tensor()))),
            }];
            known.insert(out, c);
            stats.folded_nodes += 1;
            continue;
        }
        let subgraphs: Vec<GraphId> = model.node(n).subgraphs().collect();
        for sub in subgraphs {
            fold_graph(model, root, sub, known, stats);
        }
    }
}

fn constant_value(node: &Node) -> Option<Const> {
    let a = node.attributes.first()?;
    let scalar = |data| Const {
        dims: Vec::new(),
        data,
    };
    let vector = |data: Data| Const {
        dims: vec![data.len() as i64],
        data,
    };
    match (a.name(), a.value()?) {
        ("value", AttrValue::Tensor(t)) => Const::from_tensor(t),
        ("value_int", AttrValue::Int(i)) => Some(scalar(Data::I64(vec![*i]))),
        ("value_float", AttrValue::Float(f)) => Some(scalar(Data::F32(vec![*f]))),
        ("value_ints", AttrValue::Ints(v)) => Some(vector(Data::I64(v.clone()))),
        ("value_floats", AttrValue::Floats(v)) => Some(vector(Data::F32(v.clone()))),
        _ => None,
    }
}

fn branch(node: &Node, taken: bool) -> Option<GraphId> {
    let name = if taken { "then_branch" } else { "else_branch" };
    match node.attributes.iter().find(|a| a.name() == name)?.value()? {
        AttrValue::Graph(g) => Some(*g),
        _ => None,
    }
}

/// Replaces If node `n` by the nodes of `branch`: the branch's values move to the If's
/// graph with names fresh in the body `root`, the producer of each branch output
/// writes the If's output directly (or an `Identity` copies it). False (and nothing
/// changed) when the branch cannot be moved: it has inputs or initializers.
fn inline_branch(model: &mut Model, root: GraphId, n: NodeId, branch: GraphId) -> bool {
    let b = model.graph(branch).clone();
    if !b.inputs.is_empty() || !b.initializers.is_empty() || !b.sparse_initializers.is_empty() {
        return false;
    }
    let if_node = model.node(n).clone();
    let g = if_node.graph;
    // Names in use in the body, but for those inside the If's own branches (the taken
    // one moves, the other goes).
    let in_branches = |x: GraphId| {
        model
            .scope_chain(x)
            .any(|c| matches!(model.graph(c).owner, crate::ir::GraphOwner::Node(m) if m == n))
    };
    let mut names = Names::default();
    for x in model.scope_tree(root).filter(|&x| !in_branches(x)) {
        let graph = model.graph(x);
        let outputs = graph
            .nodes
            .iter()
            .flat_map(|&m| model.node(m).outputs.iter().flatten());
        for &v in graph
            .inputs
            .iter()
            .filter_map(|i| i.value.as_ref())
            .chain(outputs)
        {
            names.claim(&model.value(v).name);
        }
    }
    let moved: HashSet<NodeId> = b.nodes.iter().copied().collect();
    let mut made = b.nodes.clone();
    for &m in &b.nodes {
        model.nodes[m].graph = g;
        for v in model.nodes[m].outputs.clone().into_iter().flatten() {
            let value = &mut model.values[v];
            value.graph = g;
            let name = names.fresh(&value.name);
            model.values[v].name = name;
        }
    }
    let branch_outputs: Vec<Option<ValueId>> = b.outputs.iter().map(|o| o.value).collect();
    for (slot, out) in if_node.outputs.iter().enumerate() {
        let (Some(out), Some(Some(src))) = (*out, branch_outputs.get(slot)) else {
            continue;
        };
        let src = *src;
        let once = branch_outputs.iter().filter(|&&o| o == Some(src)).count() == 1;
        let producer = match model.value(src).def {
            ValueDef::Node(p) if moved.contains(&p) && once => Some(p),
            _ => None,
        };
        if let Some(p) = producer {
            for o in model.nodes[p].outputs.iter_mut() {
                if *o == Some(src) {
                    *o = Some(out);
                }
            }
            model.values[out].def = ValueDef::Node(p);
            let users: Vec<NodeId> = b
                .nodes
                .iter()
                .flat_map(|&m| {
                    std::iter::once(m).chain(
                        model
                            .node(m)
                            .subgraphs()
                            .flat_map(|sub| model.nodes_under(sub)),
                    )
                })
                .collect();
            for u in users {
                for i in model.nodes[u].inputs.iter_mut() {
                    if *i == Some(src) {
                        *i = Some(out);
                    }
                }
            }
        } else {
            let id = model.nodes.push(Node {
                graph: g,
                op_type: Some("Identity".into()),
                domain: None,
                overload: None,
                name: None,
                inputs: vec![Some(src)],
                outputs: vec![Some(out)],
                attributes: Vec::new(),
                doc_string: None,
                metadata_props: Vec::new(),
                device_configurations: Vec::new(),
            });
            model.values[out].def = ValueDef::Node(id);
            made.push(id);
        }
    }
    let nodes = &mut model.graphs[g].nodes;
    if let Some(at) = nodes.iter().position(|&m| m == n) {
        nodes.splice(at..=at, made);
    }
    true
}

/// Evaluates a default-domain node on constant inputs.
fn eval(model: &Model, node: &Node, inputs: &[&Const]) -> Option<Const> {
    let int_attr = |name: &str| {
        node.attributes
            .iter()
            .find(|a| a.name() == name)
            .and_then(|a| match a.value() {
                Some(AttrValue::Int(i)) => Some(*i),
                _ => None,
            })
    };
    let ints_attr = |name: &str| {
        node.attributes
            .iter()
            .find(|a| a.name() == name)
            .and_then(|a| match a.value() {
                Some(AttrValue::Ints(v)) => Some(v.clone()),
                _ => None,
            })
    };
    let _ = model;
    match (node.op_type(), inputs) {
        ("Identity", [a]) => Some((*a).clone()),
        (op @ ("Add" | "Sub" | "Mul" | "Div"), [a, b]) => arith(op, a, b),
        (op @ ("Equal" | "Greater" | "Less" | "GreaterOrEqual" | "LessOrEqual"), [a, b]) => {
            compare(op, a, b)
        }
        (op @ ("And" | "Or" | "Xor"), [a, b]) => {
            let (dims, idx) = broadcast(&a.dims, &b.dims)?;
            let (Data::Bool(x), Data::Bool(y)) = (&a.data, &b.data) else {
                return None;
            };
            let out = idx
                .iter()
                .map(|&(i, j)| {
                    let (p, q) = (*x.get(i)?, *y.get(j)?);
                    Some(match op {
                        "And" => p && q,
                        "Or" => p || q,
                        _ => p != q,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Const {
                dims,
                data: Data::Bool(out),
            })
        }
        ("Not", [a]) => match &a.data {
            Data::Bool(x) => Some(Const {
                dims: a.dims.clone(),
                data: Data::Bool(x.iter().map(|b| !b).collect()),
            }),
            _ => None,
        },
        ("Neg", [a]) => Some(Const {
            dims: a.dims.clone(),
            data: match &a.data {
                Data::I64(v) => {
                    Data::I64(v.iter().map(|x| x.checked_neg()).collect::<Option<_>>()?)
                }
                Data::I32(v) => {
                    Data::I32(v.iter().map(|x| x.checked_neg()).collect::<Option<_>>()?)
                }
                Data::F32(v) => Data::F32(v.iter().map(|x| -x).collect()),
                Data::F64(v) => Data::F64(v.iter().map(|x| -x).collect()),
                Data::Bool(_) => return None,
            },
        }),
        ("Cast", [a]) => {
            let data = match int_attr("to")? {
                t if t == i64::from(dtype::INT64) => Data::I64(a.data.as_i64()),
                t if t == i64::from(dtype::INT32) => Data::I32(
                    a.data
                        .as_i64()
                        .into_iter()
                        .map(|x| i32::try_from(x).ok())
                        .collect::<Option<_>>()?,
                ),
                t if t == i64::from(dtype::FLOAT) => {
                    Data::F32(a.data.as_f64().into_iter().map(|x| x as f32).collect())
                }
                t if t == i64::from(dtype::DOUBLE) => Data::F64(a.data.as_f64()),
                t if t == i64::from(dtype::BOOL) => {
                    Data::Bool(a.data.as_f64().into_iter().map(|x| x != 0.0).collect())
                }
                _ => return None,
            };
            Some(Const {
                dims: a.dims.clone(),
                data,
            })
        }
        ("Shape", [a]) => shape_of(&a.dims, int_attr("start"), int_attr("end")),
        ("Reshape", [a, shape]) => {
            let Data::I64(s) = &shape.data else {
                return None;
            };
            let allowzero = int_attr("allowzero").unwrap_or(0) != 0;
            let mut dims: Vec<i64> = s
                .iter()
                .enumerate()
                .map(|(k, &d)| {
                    if d == 0 && !allowzero {
                        a.dims.get(k).copied().unwrap_or(-2)
                    } else {
                        d
                    }
                })
                .collect();
            let total = a.count()? as i64;
            let known = dims
                .iter()
                .filter(|&&d| d != -1)
                .try_fold(1i64, |acc, &d| acc.checked_mul(d))?;
            if dims.iter().filter(|&&d| d == -1).count() == 1 && known > 0 {
                for d in dims.iter_mut().filter(|d| **d == -1) {
                    *d = total / known;
                }
            }
            let c = Const {
                dims,
                data: a.data.clone(),
            };
            (c.dims.iter().all(|&d| d >= 0) && c.count()? as i64 == total).then_some(c)
        }
        ("Unsqueeze", [a, axes]) => unsqueeze(a, &axes.data.as_i64()),
        ("Unsqueeze", [a]) => unsqueeze(a, &ints_attr("axes")?),
        ("Squeeze", [a, axes]) => squeeze(a, Some(axes.data.as_i64())),
        ("Squeeze", [a]) => squeeze(a, ints_attr("axes")),
        ("Concat", parts) if !parts.is_empty() => concat(parts, int_attr("axis")?),
        ("Gather", [data, indices]) => gather(data, indices, int_attr("axis").unwrap_or(0)),
        _ => None,
    }
}

/// `Shape` of a value whose type in the body states every dimension.
fn static_shape(model: &Model, node: &Node) -> Option<Const> {
    let v = node.inputs.first().copied().flatten()?;
    let graph = model.graph(model.value(v).graph);
    let info = graph
        .inputs
        .iter()
        .chain(&graph.value_info)
        .chain(&graph.outputs)
        .find(|i| i.value == Some(v))?;
    let Some(TypeValue::Tensor(t)) = info.ty.as_ref()?.value.as_ref() else {
        return None;
    };
    let dims: Vec<i64> = t
        .shape
        .as_ref()?
        .dims
        .iter()
        .map(|d| match d.value {
            Some(DimValue::Value(x)) => Some(x),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let attr = |name: &str| {
        node.attributes
            .iter()
            .find(|a| a.name() == name)
            .and_then(|a| match a.value() {
                Some(AttrValue::Int(i)) => Some(*i),
                _ => None,
            })
    };
    shape_of(&dims, attr("start"), attr("end"))
}

fn shape_of(dims: &[i64], start: Option<i64>, end: Option<i64>) -> Option<Const> {
    let r = dims.len() as i64;
    let clamp = |x: i64| (if x < 0 { x + r } else { x }).clamp(0, r) as usize;
    let (s, e) = (clamp(start.unwrap_or(0)), clamp(end.unwrap_or(r)));
    let out = dims.get(s..e.max(s))?.to_vec();
    Some(Const {
        dims: vec![out.len() as i64],
        data: Data::I64(out),
    })
}

/// Numpy broadcasting: the result dims and, per result element, the source indices.
/// Result dims and, per result element, the index into each operand.
type Broadcast = (Vec<i64>, Vec<(usize, usize)>);

fn broadcast(a: &[i64], b: &[i64]) -> Option<Broadcast> {
    let r = a.len().max(b.len());
    let pad = |d: &[i64]| {
        let mut v = vec![1i64; r - d.len()];
        v.extend_from_slice(d);
        v
    };
    let (pa, pb) = (pad(a), pad(b));
    let dims: Vec<i64> = pa
        .iter()
        .zip(&pb)
        .map(|(&x, &y)| match (x, y) {
            _ if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let total = dims.iter().try_fold(1usize, |acc, &d| {
        usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    })?;
    if total > MAX_ELEMENTS {
        return None;
    }
    let strides = |d: &[i64]| {
        let mut s = vec![0usize; r];
        let mut acc = 1usize;
        for k in (0..r).rev() {
            s[k] = if d[k] == 1 { 0 } else { acc };
            acc *= d[k].max(1) as usize;
        }
        s
    };
    let (sa, sb) = (strides(&pa), strides(&pb));
    let mut idx = Vec::with_capacity(total);
    for flat in 0..total {
        let (mut rem, mut i, mut j) = (flat, 0, 0);
        for k in (0..r).rev() {
            let d = dims[k].max(1) as usize;
            let coord = rem % d;
            rem /= d;
            i += coord * sa[k];
            j += coord * sb[k];
        }
        idx.push((i, j));
    }
    Some((dims, idx))
}

fn arith(op: &str, a: &Const, b: &Const) -> Option<Const> {
    let (dims, idx) = broadcast(&a.dims, &b.dims)?;
    fn go<T: Copy>(
        x: &[T],
        y: &[T],
        idx: &[(usize, usize)],
        f: impl Fn(T, T) -> Option<T>,
    ) -> Option<Vec<T>> {
        idx.iter()
            .map(|&(i, j)| f(*x.get(i)?, *y.get(j)?))
            .collect()
    }
    let data = match (&a.data, &b.data) {
        (Data::I64(x), Data::I64(y)) => Data::I64(go(x, y, &idx, |p, q| match op {
            "Add" => p.checked_add(q),
            "Sub" => p.checked_sub(q),
            "Mul" => p.checked_mul(q),
            _ => p.checked_div(q),
        })?),
        (Data::I32(x), Data::I32(y)) => Data::I32(go(x, y, &idx, |p, q| match op {
            "Add" => p.checked_add(q),
            "Sub" => p.checked_sub(q),
            "Mul" => p.checked_mul(q),
            _ => p.checked_div(q),
        })?),
        (Data::F32(x), Data::F32(y)) => Data::F32(go(x, y, &idx, |p, q| {
            Some(match op {
                "Add" => p + q,
                "Sub" => p - q,
                "Mul" => p * q,
                _ => p / q,
            })
        })?),
        (Data::F64(x), Data::F64(y)) => Data::F64(go(x, y, &idx, |p, q| {
            Some(match op {
                "Add" => p + q,
                "Sub" => p - q,
                "Mul" => p * q,
                _ => p / q,
            })
        })?),
        _ => return None,
    };
    Some(Const { dims, data })
}

fn compare(op: &str, a: &Const, b: &Const) -> Option<Const> {
    if std::mem::discriminant(&a.data) != std::mem::discriminant(&b.data) {
        return None;
    }
    let (dims, idx) = broadcast(&a.dims, &b.dims)?;
    // Exact for every supported type: integers compare as i64, floats as f64.
    let float = matches!(a.data, Data::F32(_) | Data::F64(_));
    let out = if float {
        let (x, y) = (a.data.as_f64(), b.data.as_f64());
        idx.iter()
            .map(|&(i, j)| Some(cmp(op, x.get(i)?, y.get(j)?)))
            .collect::<Option<Vec<_>>>()?
    } else {
        let (x, y) = (a.data.as_i64(), b.data.as_i64());
        idx.iter()
            .map(|&(i, j)| Some(cmp(op, x.get(i)?, y.get(j)?)))
            .collect::<Option<Vec<_>>>()?
    };
    Some(Const {
        dims,
        data: Data::Bool(out),
    })
}

fn cmp<T: PartialOrd>(op: &str, x: &T, y: &T) -> bool {
    match op {
        "Equal" => x == y,
        "Greater" => x > y,
        "Less" => x < y,
        "GreaterOrEqual" => x >= y,
        _ => x <= y,
    }
}

fn unsqueeze(a: &Const, axes: &[i64]) -> Option<Const> {
    let r = (a.dims.len() + axes.len()) as i64;
    let mut norm: Vec<i64> = axes
        .iter()
        .map(|&x| if x < 0 { x + r } else { x })
        .collect();
    norm.sort_unstable();
    if norm.iter().any(|&x| x < 0 || x >= r) || norm.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let mut rest = a.dims.iter();
    let dims = (0..r)
        .map(|k| {
            if norm.contains(&k) {
                Some(1)
            } else {
                rest.next().copied()
            }
        })
        .collect::<Option<_>>()?;
    Some(Const {
        dims,
        data: a.data.clone(),
    })
}

fn squeeze(a: &Const, axes: Option<Vec<i64>>) -> Option<Const> {
    let r = a.dims.len() as i64;
    let dims = match axes {
        None => a.dims.iter().copied().filter(|&d| d != 1).collect(),
        Some(axes) => {
            let norm: Vec<i64> = axes
                .iter()
                .map(|&x| if x < 0 { x + r } else { x })
                .collect();
            if norm
                .iter()
                .any(|&x| usize::try_from(x).ok().and_then(|x| a.dims.get(x)).copied() != Some(1))
            {
                return None;
            }
            a.dims
                .iter()
                .enumerate()
                .filter(|(k, _)| !norm.contains(&(*k as i64)))
                .map(|(_, &d)| d)
                .collect()
        }
    };
    Some(Const {
        dims,
        data: a.data.clone(),
    })
}

fn concat(parts: &[&Const], axis: i64) -> Option<Const> {
    let first = parts.first()?;
    let r = first.dims.len();
    let axis = usize::try_from(if axis < 0 { axis + r as i64 } else { axis }).ok()?;
    if axis >= r {
        return None;
    }
    let outer = product(&first.dims[..axis])?;
    let mut dims = first.dims.clone();
    dims[axis] = 0;
    for p in parts {
        let same = p.dims.len() == r
            && p.dims
                .iter()
                .enumerate()
                .all(|(k, &d)| k == axis || d == first.dims[k])
            && std::mem::discriminant(&p.data) == std::mem::discriminant(&first.data);
        if !same {
            return None;
        }
        dims[axis] += p.dims[axis];
    }
    let mut idx_per_part = Vec::new();
    for p in parts {
        let chunk = p.count()? / outer.max(1);
        idx_per_part.push(chunk);
    }
    let mut data: Option<Data> = None;
    for o in 0..outer {
        for (p, &chunk) in parts.iter().zip(&idx_per_part) {
            let idx: Vec<usize> = (o * chunk..(o + 1) * chunk).collect();
            let piece = p.data.pick(&idx)?;
            data = Some(match (data, piece) {
                (None, piece) => piece,
                (Some(Data::I64(mut x)), Data::I64(y)) => {
                    x.extend(y);
                    Data::I64(x)
                }
                (Some(Data::I32(mut x)), Data::I32(y)) => {
                    x.extend(y);
                    Data::I32(x)
                }
                (Some(Data::F32(mut x)), Data::F32(y)) => {
                    x.extend(y);
                    Data::F32(x)
                }
                (Some(Data::F64(mut x)), Data::F64(y)) => {
                    x.extend(y);
                    Data::F64(x)
                }
                (Some(Data::Bool(mut x)), Data::Bool(y)) => {
                    x.extend(y);
                    Data::Bool(x)
                }
                _ => return None,
            });
        }
    }
    let data = data.unwrap_or_else(|| first.data.pick(&[]).unwrap_or(Data::I64(Vec::new())));
    let c = Const { dims, data };
    (c.count()? == c.data.len()).then_some(c)
}

/// The number of elements `dims` spans (`None` on a negative dim or overflow).
fn product(dims: &[i64]) -> Option<usize> {
    dims.iter().try_fold(1usize, |acc, &d| {
        usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    })
}

fn gather(data: &Const, indices: &Const, axis: i64) -> Option<Const> {
    let r = data.dims.len() as i64;
    let axis = usize::try_from(if axis < 0 { axis + r } else { axis }).ok()?;
    let n = *data.dims.get(axis)?;
    let outer = product(&data.dims[..axis])?;
    let inner = product(&data.dims[axis + 1..])?;
    let picks: Vec<usize> = indices
        .data
        .as_i64()
        .into_iter()
        .map(|i| {
            let i = if i < 0 { i + n } else { i };
            (0..n).contains(&i).then_some(i as usize)
        })
        .collect::<Option<_>>()?;
    let size = outer.checked_mul(picks.len())?.checked_mul(inner)?;
    if size > MAX_ELEMENTS {
        return None;
    }
    // In bounds of `data`: outer * n * inner is its element count.
    let n = usize::try_from(n).ok()?;
    let mut idx = Vec::with_capacity(size);
    for o in 0..outer {
        for &p in &picks {
            for k in 0..inner {
                idx.push((o * n + p) * inner + k);
            }
        }
    }
    if matches!(indices.data, Data::F32(_) | Data::F64(_) | Data::Bool(_)) {
        return None;
    }
    let mut dims = data.dims[..axis].to_vec();
    dims.extend_from_slice(&indices.dims);
    dims.extend_from_slice(&data.dims[axis + 1..]);
    Some(Const {
        dims,
        data: data.data.pick(&idx)?,
    })
}

/// Removes nodes whose outputs nothing reads, in every graph of the body, until none
/// is left.
fn remove_dead(model: &mut Model, root: GraphId, stats: &mut Stats) {
    loop {
        let mut used: HashSet<ValueId> = HashSet::new();
        let graphs: Vec<GraphId> = model.scope_tree(root).collect();
        for &g in &graphs {
            let graph = model.graph(g);
            used.extend(graph.outputs.iter().filter_map(|o| o.value));
            for &n in &graph.nodes {
                let node = model.node(n);
                used.extend(node.inputs.iter().flatten());
            }
        }
        let mut changed = false;
        for g in graphs {
            let before = model.graph(g).nodes.len();
            let nodes = std::mem::take(&mut model.graphs[g].nodes);
            let kept: Vec<NodeId> = nodes
                .into_iter()
                .filter(|&n| {
                    model
                        .node(n)
                        .outputs
                        .iter()
                        .flatten()
                        .any(|v| used.contains(v))
                })
                .collect();
            changed |= kept.len() != before;
            stats.removed_nodes += before - kept.len();
            model.graphs[g].nodes = kept;
        }
        if !changed {
            break;
        }
    }
}
