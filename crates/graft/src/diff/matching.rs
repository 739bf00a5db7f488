//! Matching the nodes and values of one graph of A with one graph of B.
//!
//! In order: nodes by name (same op and domain); graph inputs and outputs by name, then
//! by position; initializers by name, then by content; values by name. Then the pairs
//! propagate: a value pair pairs its producers when they do the same op, and its
//! consumers at the same input slot when one candidate on each side has the same
//! signature (op, domain, attributes and the inputs already paired). What is left is
//! paired by a structural hash of each node and its unpaired producers, a few hops
//! deep, and the propagation runs again. Everything iterates in file order, so the
//! result is deterministic.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use crate::hash::{FxHasher, FxMap};
use crate::ir::{FunctionIndex, GraphId, Model, NodeId, ValueDef, ValueId};

/// What the matcher needs of one model, computed once.
pub(super) struct Side<'m> {
    pub model: &'m Model,
    pub index: FunctionIndex,
    /// The nodes that read each value, with the input slot (by value index).
    consumers: Vec<Vec<(NodeId, u32)>>,
    /// Op, domain, arity and attributes (graphs by kind only), by node index.
    sig: Vec<u64>,
    /// Op and domain, by node index.
    weak: Vec<u64>,
}

impl<'m> Side<'m> {
    pub fn new(model: &'m Model) -> Self {
        let mut consumers = vec![Vec::new(); model.values.len()];
        let mut sig = vec![0; model.nodes.len()];
        let mut weak = vec![0; model.nodes.len()];
        for n in model.live_nodes() {
            let node = model.node(n);
            for (k, v) in node.inputs.iter().enumerate() {
                if let Some(v) = v
                    && let Some(list) = consumers.get_mut(v.index())
                {
                    list.push((n, k as u32));
                }
            }
            let mut h = FxHasher::default();
            node.op_type().hash(&mut h);
            node.domain().hash(&mut h);
            weak[n.index()] = h.finish();
            node.inputs.len().hash(&mut h);
            node.outputs.len().hash(&mut h);
            let mut attrs: Vec<u64> = node
                .attributes
                .iter()
                .map(|a| super::content::attribute(model, a))
                .collect();
            attrs.sort_unstable();
            attrs.hash(&mut h);
            sig[n.index()] = h.finish();
        }
        Self {
            model,
            index: FunctionIndex::new(model),
            consumers,
            sig,
            weak,
        }
    }

    pub fn weak(&self, n: NodeId) -> u64 {
        self.weak[n.index()]
    }

    pub fn consumers(&self, v: ValueId) -> &[(NodeId, u32)] {
        self.consumers.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// The node that computes `v` in `graph`, and which of its outputs `v` is.
    fn producer(&self, v: ValueId, graph: GraphId) -> Option<(NodeId, usize)> {
        let ValueDef::Node(p) = self.model.value(v).def else {
            return None;
        };
        let node = self.model.node(p);
        if node.graph != graph {
            return None;
        }
        let k = node.outputs.iter().position(|&o| o == Some(v))?;
        Some((p, k))
    }
}

/// Nodes and values paired so far, both ways; one per scope tree (a subgraph reads its
/// enclosing graphs' values through it).
#[derive(Default)]
pub(super) struct Pairing {
    pub nodes_ab: FxMap<NodeId, NodeId>,
    pub nodes_ba: FxMap<NodeId, NodeId>,
    pub values_ab: FxMap<ValueId, ValueId>,
    pub values_ba: FxMap<ValueId, ValueId>,
}

pub(super) struct Matcher<'s, 'm> {
    pub a: &'s Side<'m>,
    pub b: &'s Side<'m>,
    pub p: &'s mut Pairing,
    pub ga: GraphId,
    pub gb: GraphId,
    values: VecDeque<(ValueId, ValueId)>,
    nodes: Vec<(NodeId, NodeId)>,
}

/// Pairs, in order of the A side, the keys that occur once on each side.
fn unique_pairs<T: Copy>(a: &[(u64, T)], b: &[(u64, T)]) -> Vec<(T, T)> {
    let mut count: FxMap<u64, (u32, Option<T>, u32, Option<T>)> = FxMap::default();
    for &(k, n) in a {
        let e = count.entry(k).or_insert((0, None, 0, None));
        e.0 += 1;
        e.1 = Some(n);
    }
    for &(k, n) in b {
        let e = count.entry(k).or_insert((0, None, 0, None));
        e.2 += 1;
        e.3 = Some(n);
    }
    a.iter()
        .filter_map(|(k, _)| match count[k] {
            (1, Some(x), 1, Some(y)) => Some((x, y)),
            _ => None,
        })
        .collect()
}

impl<'s, 'm> Matcher<'s, 'm> {
    pub fn new(
        a: &'s Side<'m>,
        b: &'s Side<'m>,
        p: &'s mut Pairing,
        ga: GraphId,
        gb: GraphId,
    ) -> Self {
        Self {
            a,
            b,
            p,
            ga,
            gb,
            values: VecDeque::new(),
            nodes: Vec::new(),
        }
    }

    /// Matches the two graphs' nodes and values into the pairing.
    pub fn run(&mut self) {
        let (am, bm) = (self.a.model, self.b.model);
        let (ga, gb) = (am.graph(self.ga), bm.graph(self.gb));

        // Nodes by name.
        let names_b = unique_names(gb.nodes.iter().map(|&n| (bm.node(n).name(), n)));
        let names_a = unique_names(ga.nodes.iter().map(|&n| (am.node(n).name(), n)));
        for &na in &ga.nodes {
            let x = am.node(na);
            if names_a.get(x.name()).copied().flatten() != Some(na) {
                continue;
            }
            if let Some(Some(nb)) = names_b.get(x.name()) {
                let y = bm.node(*nb);
                if x.op_type() == y.op_type() && x.domain() == y.domain() {
                    self.pair_nodes(na, *nb);
                }
            }
        }

        // The interface: by name, then what is left by position.
        let ins =
            |g: &crate::ir::Graph| g.inputs.iter().filter_map(|i| i.value).collect::<Vec<_>>();
        let outs =
            |g: &crate::ir::Graph| g.outputs.iter().filter_map(|i| i.value).collect::<Vec<_>>();
        self.pair_lists(&ins(ga), &ins(gb), true);
        self.pair_lists(&outs(ga), &outs(gb), true);
        let inits = |g: &crate::ir::Graph| {
            g.initializers
                .iter()
                .filter_map(|i| i.value)
                .collect::<Vec<_>>()
        };
        self.pair_lists(&inits(ga), &inits(gb), false);
        // Initializers left: by content.
        let content = |side: &Side, g: &crate::ir::Graph, paired: &FxMap<ValueId, ValueId>| {
            g.initializers
                .iter()
                .filter_map(|i| Some((i.value?, &i.tensor)))
                .filter(|(v, _)| !paired.contains_key(v))
                .map(|(v, t)| (super::content::tensor(side.model, t), v))
                .collect::<Vec<_>>()
        };
        let (ca, cb) = (
            content(self.a, ga, &self.p.values_ab),
            content(self.b, gb, &self.p.values_ba),
        );
        for (x, y) in unique_pairs(&ca, &cb) {
            self.pair_values(x, y);
        }
        // Values the nodes compute, by name.
        let computed = |m: &Model, g: &crate::ir::Graph| {
            g.nodes
                .iter()
                .flat_map(|&n| m.node(n).outputs.iter().flatten().copied())
                .collect::<Vec<_>>()
        };
        self.pair_lists(&computed(am, ga), &computed(bm, gb), false);

        // Every paired value the graph reads (its enclosing graphs' included) seeds the
        // propagation.
        let mut seeded = crate::hash::FxSet::default();
        for &na in &ga.nodes {
            for v in am.node(na).inputs.iter().flatten() {
                if let Some(&w) = self.p.values_ab.get(v)
                    && seeded.insert(*v)
                {
                    self.values.push_back((*v, w));
                }
            }
        }
        self.propagate();
        for _ in 0..8 {
            if !self.structural() {
                break;
            }
            self.propagate();
        }
    }

    /// Pairs values of the same name; with `by_position`, then what is left in order.
    fn pair_lists(&mut self, a: &[ValueId], b: &[ValueId], by_position: bool) {
        let (am, bm) = (self.a.model, self.b.model);
        let names_b = unique_names(b.iter().map(|&v| (bm.value(v).name.as_str(), v)));
        for &va in a {
            if let Some(Some(vb)) = names_b.get(am.value(va).name.as_str()) {
                self.pair_values(va, *vb);
            }
        }
        if by_position {
            let left_a: Vec<_> = a
                .iter()
                .filter(|v| !self.p.values_ab.contains_key(v))
                .copied()
                .collect();
            let left_b: Vec<_> = b
                .iter()
                .filter(|v| !self.p.values_ba.contains_key(v))
                .copied()
                .collect();
            for (va, vb) in left_a.into_iter().zip(left_b) {
                self.pair_values(va, vb);
            }
        }
    }

    fn pair_values(&mut self, va: ValueId, vb: ValueId) {
        if self.p.values_ab.contains_key(&va) || self.p.values_ba.contains_key(&vb) {
            return;
        }
        self.p.values_ab.insert(va, vb);
        self.p.values_ba.insert(vb, va);
        self.values.push_back((va, vb));
    }

    fn unmatched_a(&self, n: NodeId) -> bool {
        !self.p.nodes_ab.contains_key(&n)
    }

    fn unmatched_b(&self, n: NodeId) -> bool {
        !self.p.nodes_ba.contains_key(&n)
    }

    fn pair_nodes(&mut self, na: NodeId, nb: NodeId) {
        if !self.unmatched_a(na) || !self.unmatched_b(nb) {
            return;
        }
        self.p.nodes_ab.insert(na, nb);
        self.p.nodes_ba.insert(nb, na);
        let (x, y) = (self.a.model.node(na), self.b.model.node(nb));
        for (oa, ob) in x.outputs.iter().zip(&y.outputs) {
            if let (Some(oa), Some(ob)) = (oa, ob) {
                self.pair_values(*oa, *ob);
            }
        }
        // Unpaired inputs at the same slot, computed by the same op at the same output:
        // pair their producers.
        for (ia, ib) in x.inputs.iter().zip(&y.inputs) {
            let (Some(ia), Some(ib)) = (ia, ib) else {
                continue;
            };
            if self.p.values_ab.contains_key(ia) || self.p.values_ba.contains_key(ib) {
                continue;
            }
            self.pair_producers(*ia, *ib);
        }
    }

    fn pair_producers(&mut self, va: ValueId, vb: ValueId) {
        if let (Some((pa, ka)), Some((pb, kb))) =
            (self.a.producer(va, self.ga), self.b.producer(vb, self.gb))
            && ka == kb
            && self.unmatched_a(pa)
            && self.unmatched_b(pb)
            && self.a.weak(pa) == self.b.weak(pb)
        {
            self.nodes.push((pa, pb));
        }
    }

    fn propagate(&mut self) {
        loop {
            if let Some((na, nb)) = self.nodes.pop() {
                self.pair_nodes(na, nb);
                continue;
            }
            let Some((va, vb)) = self.values.pop_front() else {
                break;
            };
            self.pair_producers(va, vb);
            self.pair_consumers(va, vb);
        }
    }

    fn pair_consumers(&mut self, va: ValueId, vb: ValueId) {
        let ca: Vec<(NodeId, u32)> = self
            .a
            .consumers(va)
            .iter()
            .filter(|(n, _)| self.a.model.node(*n).graph == self.ga && self.unmatched_a(*n))
            .copied()
            .collect();
        if ca.is_empty() {
            return;
        }
        let cb: Vec<(NodeId, u32)> = self
            .b
            .consumers(vb)
            .iter()
            .filter(|(n, _)| self.b.model.node(*n).graph == self.gb && self.unmatched_b(*n))
            .copied()
            .collect();
        if cb.is_empty() {
            return;
        }
        let weak_a: Vec<(u64, NodeId)> = ca
            .iter()
            .map(|&(n, k)| (mix(self.a.weak(n), u64::from(k)), n))
            .collect();
        let weak_b: Vec<(u64, NodeId)> = cb
            .iter()
            .map(|&(n, k)| (mix(self.b.weak(n), u64::from(k)), n))
            .collect();
        if ca.len() > 1 || cb.len() > 1 {
            let strong_a: Vec<(u64, NodeId)> =
                ca.iter().map(|&(n, k)| (self.strong_a(n, k), n)).collect();
            let strong_b: Vec<(u64, NodeId)> =
                cb.iter().map(|&(n, k)| (self.strong_b(n, k), n)).collect();
            self.nodes.extend(unique_pairs(&strong_a, &strong_b));
        }
        self.nodes.extend(unique_pairs(&weak_a, &weak_b));
    }

    /// A consumer's signature with its inputs as paired (by their B ids) or not.
    fn strong_a(&self, n: NodeId, slot: u32) -> u64 {
        let mut h = FxHasher::default();
        (self.a.sig[n.index()], slot).hash(&mut h);
        for v in &self.a.model.node(n).inputs {
            v.and_then(|v| self.p.values_ab.get(&v))
                .map(|w| w.index())
                .hash(&mut h);
        }
        h.finish()
    }

    fn strong_b(&self, n: NodeId, slot: u32) -> u64 {
        let mut h = FxHasher::default();
        (self.b.sig[n.index()], slot).hash(&mut h);
        for v in &self.b.model.node(n).inputs {
            v.filter(|v| self.p.values_ba.contains_key(v))
                .map(|w| w.index())
                .hash(&mut h);
        }
        h.finish()
    }

    /// Pairs unmatched nodes by a structural hash: their signature and, a few hops up,
    /// their unpaired producers' (paired inputs by their B ids). A group of equal hashes
    /// that is as large on both sides is paired in file order. Whether anything paired.
    fn structural(&mut self) -> bool {
        let ua: Vec<NodeId> = self
            .a
            .model
            .graph(self.ga)
            .nodes
            .iter()
            .copied()
            .filter(|&n| self.unmatched_a(n))
            .collect();
        let ub: Vec<NodeId> = self
            .b
            .model
            .graph(self.gb)
            .nodes
            .iter()
            .copied()
            .filter(|&n| self.unmatched_b(n))
            .collect();
        if ua.is_empty() || ub.is_empty() {
            return false;
        }
        let ha = self.hashes(&ua, true);
        let hb = self.hashes(&ub, false);
        let mut groups: FxMap<u64, (Vec<NodeId>, Vec<NodeId>)> = FxMap::default();
        let mut order = Vec::new();
        for &n in &ua {
            let g = groups.entry(ha[&n]).or_default();
            if g.0.is_empty() {
                order.push(ha[&n]);
            }
            g.0.push(n);
        }
        for &n in &ub {
            if let Some(g) = groups.get_mut(&hb[&n]) {
                g.1.push(n);
            }
        }
        let before = self.p.nodes_ab.len();
        for key in order {
            let (xs, ys) = &groups[&key];
            if xs.len() == ys.len() {
                self.nodes
                    .extend(xs.iter().copied().zip(ys.iter().copied()));
            }
        }
        let pending = !self.nodes.is_empty();
        self.propagate();
        pending && self.p.nodes_ab.len() > before
    }

    fn hashes(&self, nodes: &[NodeId], a_side: bool) -> FxMap<NodeId, u64> {
        let side = if a_side { self.a } else { self.b };
        let graph = if a_side { self.ga } else { self.gb };
        let paired = |v: ValueId| -> Option<usize> {
            if a_side {
                self.p.values_ab.get(&v).map(|w| w.index())
            } else {
                self.p.values_ba.contains_key(&v).then_some(v.index())
            }
        };
        let mut h: FxMap<NodeId, u64> = nodes.iter().map(|&n| (n, side.sig[n.index()])).collect();
        for _ in 0..4 {
            let next: FxMap<NodeId, u64> = nodes
                .iter()
                .map(|&n| {
                    let mut x = FxHasher::default();
                    h[&n].hash(&mut x);
                    for v in &side.model.node(n).inputs {
                        match v {
                            None => 0u8.hash(&mut x),
                            Some(v) => match (paired(*v), side.producer(*v, graph)) {
                                (Some(w), _) => (1u8, w).hash(&mut x),
                                (None, Some((p, k))) => {
                                    (2u8, h.get(&p).copied().unwrap_or(0), k).hash(&mut x)
                                }
                                (None, None) => 3u8.hash(&mut x),
                            },
                        }
                    }
                    (n, x.finish())
                })
                .collect();
            h = next;
        }
        h
    }
}

fn mix(a: u64, b: u64) -> u64 {
    let mut h = FxHasher::default();
    (a, b).hash(&mut h);
    h.finish()
}

/// Names that occur once (`Some`) or more (`None`); empty names are left out.
fn unique_names<'a, T: Copy>(
    items: impl Iterator<Item = (&'a str, T)>,
) -> FxMap<&'a str, Option<T>> {
    let mut map: FxMap<&str, Option<T>> = FxMap::default();
    for (name, item) in items {
        if name.is_empty() {
            continue;
        }
        map.entry(name)
            .and_modify(|e| *e = None)
            .or_insert(Some(item));
    }
    map
}

/// One side of a finished match, for finding inlined and outlined calls.
pub(super) struct Looking<'s, 'm> {
    pub side: &'s Side<'m>,
    pub graph: GraphId,
    pub nodes: &'s FxMap<NodeId, NodeId>,
    pub values: &'s FxMap<ValueId, ValueId>,
}

/// A call on the `from` side that no node matched, with the unmatched nodes of the `to`
/// side that compute its outputs from (the counterparts of) its inputs alone.
pub(super) struct Region {
    pub call: NodeId,
    pub nodes: Vec<NodeId>,
}

/// Calls of `from` inlined in `to`: each unmatched call whose outputs' counterparts (by
/// pairing, or through a matched reader at the same slot, or the graph output at the
/// same position) are computed by unmatched nodes that read only its inputs'
/// counterparts. `claimed` collects the `to` nodes so explained.
pub(super) fn inlined(
    from: &Looking,
    to: &Looking,
    claimed: &mut crate::hash::FxSet<NodeId>,
) -> Vec<Region> {
    let (fm, tm) = (from.side.model, to.side.model);
    let mut found = Vec::new();
    for &c in &fm.graph(from.graph).nodes {
        if from.nodes.contains_key(&c) || from.side.index.callee(fm, c).is_none() {
            continue;
        }
        let call = fm.node(c);
        let counterpart = |o: ValueId| -> Option<ValueId> {
            if let Some(&w) = from.values.get(&o) {
                return Some(w);
            }
            for &(n, k) in from.side.consumers(o) {
                if let Some(&m) = from.nodes.get(&n)
                    && let Some(Some(w)) = tm.node(m).inputs.get(k as usize)
                {
                    return Some(*w);
                }
            }
            let j = fm
                .graph(from.graph)
                .outputs
                .iter()
                .position(|i| i.value == Some(o))?;
            tm.graph(to.graph).outputs.get(j)?.value
        };
        let outs: Vec<ValueId> = call
            .outputs
            .iter()
            .flatten()
            .filter_map(|&o| counterpart(o))
            .collect();
        if outs.is_empty() {
            continue;
        }
        let ins: Vec<ValueId> = call
            .inputs
            .iter()
            .flatten()
            .filter_map(|i| from.values.get(i).copied())
            .collect();
        let mut region = Vec::new();
        let mut seen = crate::hash::FxSet::default();
        let mut stack: Vec<ValueId> = outs.clone();
        let mut clean = true;
        while let Some(v) = stack.pop() {
            if ins.contains(&v) {
                continue;
            }
            match to.side.producer(v, to.graph) {
                Some((p, _)) if !to.nodes.contains_key(&p) && !claimed.contains(&p) => {
                    if seen.insert(p) {
                        region.push(p);
                        stack.extend(tm.node_reads(p));
                    }
                }
                _ => {
                    clean = false;
                    break;
                }
            }
        }
        if !clean || region.is_empty() {
            continue;
        }
        let position: FxMap<NodeId, usize> = tm
            .graph(to.graph)
            .nodes
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i))
            .collect();
        region.sort_by_key(|n| position.get(n).copied().unwrap_or(usize::MAX));
        claimed.extend(region.iter().copied());
        found.push(Region {
            call: c,
            nodes: region,
        });
    }
    found
}
