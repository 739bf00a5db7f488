//! Deterministic generators of ONNX-like graphs, for tests and benchmarks.
//!
//! * [`transformer`]: a decoder-only transformer export: embedding, blocks of
//!   decomposed RMS norm, attention (Q/K/V projections, `Shape → Gather →
//!   Unsqueeze → Concat → Reshape` side chains, rotary embedding, KV-cache
//!   outputs, softmax), residual adds and a gated MLP, then a head. With
//!   `shared_mask` one attention mask and one cos/sin pair feed every block (as in
//!   real LLM exports); without it each block has its own constants.
//! * [`resnet`]: a bottleneck ResNet (stem, blocks with skips and projection
//!   shortcuts every fourth block, head).
//! * [`grouped_transformer`]: the transformer as a [`Tree`] with one group per
//!   `blocks_per_group` blocks, for the compound layout.
//! * [`to_json`] writes `{"nodes":[[w,h],...],"edges":[[from,to],...]}`.
//!
//! Node sizes come from [`text_width`] of the op name, like a real viewer's boxes.

use crate::{Edge, Graph, NodeBox, Tree, text_width};
use std::fmt::Write;

/// Font size the synthetic node labels are measured with.
const FONT_PX: f32 = 12.0;

struct Gen {
    g: Graph,
    /// Block of each node (0 = outside any block).
    block: Vec<u32>,
    cur: u32,
}

type Out = (u32, u16);

fn o(x: u32) -> Out {
    (x, 0)
}

fn node_box(op: &str) -> NodeBox {
    let width = (text_width(op, FONT_PX) + 24.0).round();
    let height = match op {
        "MatMul" | "Conv" | "Gemm" => 40.0,
        _ => 28.0,
    };
    NodeBox { width, height }
}

impl Gen {
    fn new() -> Gen {
        Gen {
            g: Graph::default(),
            block: Vec::new(),
            cur: 0,
        }
    }

    fn len(&self) -> usize {
        self.g.nodes.len()
    }

    fn op(&mut self, name: &str, inputs: &[Out]) -> u32 {
        let id = self.g.nodes.len() as u32;
        self.g.nodes.push(node_box(name));
        self.block.push(self.cur);
        for (i, &(src, port)) in inputs.iter().enumerate() {
            self.g.edges.push(Edge {
                from: src,
                to: id,
                from_port: port,
                to_port: i as u16,
            });
        }
        id
    }

    fn konst(&mut self) -> u32 {
        self.op("Constant", &[])
    }

    /// RMS norm, decomposed as exporters emit it.
    fn norm(&mut self, x: u32) -> u32 {
        let two = self.konst();
        let p = self.op("Pow", &[o(x), o(two)]);
        let m = self.op("ReduceMean", &[o(p)]);
        let eps = self.konst();
        let a = self.op("Add", &[o(m), o(eps)]);
        let s = self.op("Sqrt", &[o(a)]);
        let d = self.op("Div", &[o(x), o(s)]);
        let w = self.konst();
        self.op("Mul", &[o(d), o(w)])
    }

    /// `Reshape(x, Concat(Unsqueeze(Gather(Shape(of), i)), c, c))`.
    fn reshape(&mut self, x: u32, of: u32) -> u32 {
        let sh = self.op("Shape", &[o(of)]);
        let i = self.konst();
        let g = self.op("Gather", &[o(sh), o(i)]);
        let u = self.op("Unsqueeze", &[o(g)]);
        let c1 = self.konst();
        let c2 = self.konst();
        let cc = self.op("Concat", &[o(u), o(c1), o(c2)]);
        self.op("Reshape", &[o(x), o(cc)])
    }

    /// Rotary embedding: `x * cos + rotate_half(x) * sin`.
    fn rotary(&mut self, x: u32, cos: u32, sin: u32) -> u32 {
        let mc = self.op("Mul", &[o(x), o(cos)]);
        let s1 = self.op("Slice", &[o(x)]);
        let s2 = self.op("Slice", &[o(x)]);
        let ng = self.op("Neg", &[o(s2)]);
        let c = self.op("Concat", &[o(ng), o(s1)]);
        let ms = self.op("Mul", &[o(c), o(sin)]);
        self.op("Add", &[o(mc), o(ms)])
    }

    fn block(&mut self, h: u32, shared: Option<(u32, u32, u32)>) -> u32 {
        let n1 = self.norm(h);
        let q = self.op("MatMul", &[o(n1)]);
        let k = self.op("MatMul", &[o(n1)]);
        let v = self.op("MatMul", &[o(n1)]);
        let q = self.reshape(q, n1);
        let k = self.reshape(k, n1);
        let v = self.reshape(v, n1);
        let q = self.op("Transpose", &[o(q)]);
        let k = self.op("Transpose", &[o(k)]);
        let v = self.op("Transpose", &[o(v)]);
        let (mask, cos, sin) = match shared {
            Some(s) => s,
            None => {
                let m = self.konst();
                let c = self.konst();
                let s = self.konst();
                (m, c, s)
            }
        };
        let q = self.rotary(q, cos, sin);
        let k = self.rotary(k, cos, sin);
        self.op("Identity", &[o(k)]); // present.key
        self.op("Identity", &[o(v)]); // present.value
        let kt = self.op("Transpose", &[o(k)]);
        let s = self.op("MatMul", &[o(q), o(kt)]);
        let scale = self.konst();
        let s = self.op("Div", &[o(s), o(scale)]);
        let s = self.op("Add", &[o(s), o(mask)]);
        let p = self.op("Softmax", &[o(s)]);
        let a = self.op("MatMul", &[o(p), o(v)]);
        let a = self.op("Transpose", &[o(a)]);
        let a = self.reshape(a, a);
        let proj = self.op("MatMul", &[o(a)]);
        let h2 = self.op("Add", &[o(h), o(proj)]);
        let n2 = self.norm(h2);
        let gate = self.op("MatMul", &[o(n2)]);
        let up = self.op("MatMul", &[o(n2)]);
        let sg = self.op("Sigmoid", &[o(gate)]);
        let sw = self.op("Mul", &[o(gate), o(sg)]);
        let m = self.op("Mul", &[o(sw), o(up)]);
        let dn = self.op("MatMul", &[o(m)]);
        self.op("Add", &[o(h2), o(dn)])
    }

    fn transformer(n_nodes: usize, shared_mask: bool, blocks_per_group: usize) -> Gen {
        let mut g = Gen::new();
        let ids = g.op("input_ids", &[]);
        let emb = g.op("Gather", &[o(ids)]);
        let shared = if shared_mask {
            let am = g.op("attention_mask", &[]);
            let c = g.op("Cast", &[o(am)]);
            let u = g.op("Unsqueeze", &[o(c)]);
            let one = g.konst();
            let sub = g.op("Sub", &[o(one), o(u)]);
            let big = g.konst();
            let mask = g.op("Mul", &[o(sub), o(big)]);
            let pos = g.op("position_ids", &[]);
            let inv = g.konst();
            let f = g.op("MatMul", &[o(pos), o(inv)]);
            let cos = g.op("Cos", &[o(f)]);
            let sin = g.op("Sin", &[o(f)]);
            Some((mask, cos, sin))
        } else {
            None
        };
        const TAIL: usize = 12;
        let bpg = blocks_per_group.max(1);
        let mut h = emb;
        let mut blocks = 0usize;
        let mut last = 0usize;
        while blocks == 0 || g.len() + last + TAIL <= n_nodes {
            g.cur = (blocks / bpg) as u32 + 1;
            let before = g.len();
            h = g.block(h, shared);
            last = g.len() - before;
            blocks += 1;
        }
        g.cur = 0;
        let n = g.norm(h);
        let logits = g.op("MatMul", &[o(n)]);
        g.op("logits", &[o(logits)]);
        g
    }
}

/// A transformer-like DAG with about `n_nodes` nodes (at least one block).
pub fn transformer(n_nodes: usize, shared_mask: bool) -> Graph {
    Gen::transformer(n_nodes, shared_mask, 1).g
}

/// A bottleneck-ResNet-like DAG with about `n_nodes` nodes (at least one block).
pub fn resnet(n_nodes: usize) -> Graph {
    let mut g = Gen::new();
    let x = g.op("input", &[]);
    let c = g.op("Conv", &[o(x)]);
    let b = g.op("BatchNormalization", &[o(c)]);
    let r = g.op("Relu", &[o(b)]);
    let mut x = g.op("MaxPool", &[o(r)]);
    const TAIL: usize = 4;
    let mut blocks = 0usize;
    let mut last = 0usize;
    while blocks == 0 || g.len() + last + TAIL <= n_nodes {
        let before = g.len();
        let down = blocks.is_multiple_of(4);
        let mut y = x;
        for i in 0..3 {
            let c = g.op("Conv", &[o(y)]);
            let b = g.op("BatchNormalization", &[o(c)]);
            y = if i < 2 { g.op("Relu", &[o(b)]) } else { b };
        }
        let skip = if down {
            let c = g.op("Conv", &[o(x)]);
            g.op("BatchNormalization", &[o(c)])
        } else {
            x
        };
        let a = g.op("Add", &[o(y), o(skip)]);
        x = g.op("Relu", &[o(a)]);
        last = g.len() - before;
        blocks += 1;
    }
    let p = g.op("GlobalAveragePool", &[o(x)]);
    let f = g.op("Flatten", &[o(p)]);
    let m = g.op("Gemm", &[o(f)]);
    g.op("output", &[o(m)]);
    g.g
}

/// The transformer of [`transformer`] as a compound graph: item 0 is the root,
/// items `1..=groups` are groups of `blocks_per_group` consecutive blocks (with
/// collapsed size 180×36), then one leaf per node (node `i` is item
/// `1 + groups + i`). Embedding, shared inputs and head sit in the root.
pub fn grouped_transformer(
    n_nodes: usize,
    shared_mask: bool,
    blocks_per_group: usize,
) -> (Tree, Vec<Edge>) {
    let gen_ = Gen::transformer(n_nodes, shared_mask, blocks_per_group);
    let groups = gen_.block.iter().copied().max().unwrap_or(0) as usize;
    let n = gen_.g.nodes.len();
    let total = 1 + groups + n;
    let mut parent = vec![0u32; total];
    let mut size = vec![NodeBox::default(); total];
    let mut is_group = vec![false; total];
    is_group[0] = true;
    for gi in 1..=groups {
        is_group[gi] = true;
        size[gi] = NodeBox {
            width: 180.0,
            height: 36.0,
        };
    }
    for i in 0..n {
        let item = 1 + groups + i;
        parent[item] = gen_.block[i];
        size[item] = gen_.g.nodes[i];
    }
    let off = (1 + groups) as u32;
    let edges = gen_
        .g
        .edges
        .iter()
        .map(|e| Edge {
            from: e.from + off,
            to: e.to + off,
            ..*e
        })
        .collect();
    (
        Tree {
            parent,
            size,
            is_group,
        },
        edges,
    )
}

/// `{"nodes":[[w,h],...],"edges":[[from,to],...]}` (ports are left out).
pub fn to_json(g: &Graph) -> String {
    let num = |x: f32| if x.is_finite() { x } else { 0.0 };
    let mut s = String::with_capacity(16 + g.nodes.len() * 12 + g.edges.len() * 14);
    s.push_str("{\"nodes\":[");
    for (i, b) in g.nodes.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "[{},{}]", num(b.width), num(b.height));
    }
    s.push_str("],\"edges\":[");
    for (i, e) in g.edges.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "[{},{}]", e.from, e.to);
    }
    s.push_str("]}");
    s
}
