//! Compound (nested) layout: a tree of groups, each laid out on its own.
//!
//! * The *layout unit* of a group is its direct children: leaves and collapsed
//!   groups at their own size, expanded groups as boxes sized by their inner
//!   layout (plus a [`GROUP_HEADER`]).
//! * An edge is lifted to the lowest common ancestor (LCA) of its endpoints; in
//!   that group's unit it joins the two children that contain the endpoints.
//! * A value that enters a group from outside gets an *input port* on the group's
//!   top border; inside the group it is a zero-size node pinned to a rank of its
//!   own at the top, with edges to the children that consume it. Likewise values
//!   leaving a group get output ports and pinned nodes at the bottom. A group's
//!   ports are ordered by the x of those border nodes, so they line up.
//! * The absolute route of an edge is the chain of its pieces (up through the
//!   source's groups, across the LCA unit, down through the target's groups),
//!   joined by short curves through the group borders. If any piece is a stub,
//!   the whole edge is drawn as a stub pair at its visible endpoints.
//! * Units are laid out bottom-up (reverse pre-order of the expanded groups,
//!   collected with an explicit stack) and cached per group. Expanding or
//!   collapsing a group drops the caches of its ancestors only, so one toggle
//!   costs the group itself (unless cached) and its ancestors; everything else
//!   keeps its relative position.
//!
//! Edges whose one endpoint is an ancestor of the other are ignored (never drawn).

use crate::flat::{PIN_BOTTOM, PIN_NONE, PIN_TOP, layout_pinned, sanitize};
use crate::rank::{NONE, csr};
use crate::route::{curve_to, stub};
use crate::{Cancel, Cancelled, Edge, Graph, Layout, NodeBox, Options, Point, Rect, Route};

/// Height of the title bar of an expanded group, above its inner layout.
pub const GROUP_HEADER: f32 = 24.0;

/// A tree of items: leaves and groups. Item 0 is the root group; `parent[i]` is
/// the parent of item `i > 0` (`parent[0]` is ignored).
///
/// Malformed trees are repaired, not rejected: a parent that is out of range, not
/// a group, or part of a cycle makes the item a child of the root.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    pub parent: Vec<u32>,
    /// Leaf size, or the collapsed size of a group.
    pub size: Vec<NodeBox>,
    pub is_group: Vec<bool>,
}

/// A cached inner layout of one group.
#[derive(Clone, Debug)]
struct Unit {
    layout: Layout,
    /// Input value index → port slot on the group's top border (by x).
    in_slot: Vec<u32>,
    /// Output value index → port slot on the bottom border.
    out_slot: Vec<u32>,
}

/// A value entering or leaving a group: (producing item, output port).
type Value = (u32, u16);

/// Per-group value lists; a value's index is its rank by first use (edge index).
#[derive(Clone, Debug, Default)]
struct Values {
    start: Vec<u32>,
    /// Each group's values sorted, with their index in order of first use.
    sorted: Vec<(Value, u32)>,
}

impl Values {
    /// From `(group, value, edge)` entries.
    fn build(n: usize, mut t: Vec<(u32, Value, u32)>) -> Values {
        t.sort_unstable();
        t.dedup_by(|b, a| a.0 == b.0 && a.1 == b.1);
        let (start, idx) = csr(n, t.iter().enumerate().map(|(i, x)| (x.0, i as u32)));
        let mut sorted = vec![((0u32, 0u16), 0u32); t.len()];
        let mut by_edge: Vec<u32> = Vec::new();
        for gi in 0..n {
            let (s, e) = (start[gi] as usize, start[gi + 1] as usize);
            if s == e {
                continue;
            }
            by_edge.clear();
            by_edge.extend_from_slice(&idx[s..e]);
            by_edge.sort_unstable_by_key(|&i| t[i as usize].2);
            for (j, &i) in by_edge.iter().enumerate() {
                sorted[i as usize] = (t[i as usize].1, j as u32);
            }
        }
        Values { start, sorted }
    }

    fn count(&self, g: usize) -> usize {
        (self.start[g + 1] - self.start[g]) as usize
    }

    /// Index of `v` within group `g`'s list.
    fn index(&self, g: usize, v: Value) -> Option<u32> {
        let s = &self.sorted[self.start[g] as usize..self.start[g + 1] as usize];
        s.binary_search_by(|x| x.0.cmp(&v)).ok().map(|i| s[i].1)
    }
}

/// A nested graph with per-group cached layouts. See the module docs.
#[derive(Clone, Debug)]
pub struct Compound {
    parent: Vec<u32>,
    size: Vec<NodeBox>,
    is_group: Vec<bool>,
    child_start: Vec<u32>,
    children: Vec<u32>,
    /// Index of each item among its parent's children.
    local: Vec<u32>,
    edges: Vec<Edge>,
    /// Distinct consumers of each item (for the stub rule across groups).
    fanout: Vec<u32>,
    /// Per edge: LCA group and the LCA's children containing each end (`NONE`:
    /// ignored edge).
    e_lca: Vec<u32>,
    e_ca: Vec<u32>,
    e_cb: Vec<u32>,
    ins: Values,
    outs: Values,
    /// Per group, sorted edge indices: edges lifted to it, entering it, leaving it.
    lca_start: Vec<u32>,
    lca_edges: Vec<u32>,
    inb_start: Vec<u32>,
    inb_edges: Vec<u32>,
    outb_start: Vec<u32>,
    outb_edges: Vec<u32>,
    expanded: Vec<bool>,
    cache: Vec<Option<Box<Unit>>>,
    opts: Option<Options>,
    relayouts: u32,
    /// Absolute rectangles of the last layout; valid where `shown == generation`.
    abs: Vec<Rect>,
    shown: Vec<u32>,
    generation: u32,
    /// The last `layout()` succeeded (a cancelled one leaves nothing to read).
    valid: bool,
}

fn clean_box(b: NodeBox) -> NodeBox {
    let c = |x: f32| if x.is_finite() { x.max(0.0) } else { 0.0 };
    NodeBox {
        width: c(b.width),
        height: c(b.height),
    }
}

fn offset(route: &Route, dx: f32, dy: f32) -> Route {
    let m = |p: &Point| Point {
        x: p.x + dx,
        y: p.y + dy,
    };
    match route {
        Route::Curve(pts) => Route::Curve(pts.iter().map(m).collect()),
        Route::Stub {
            source_stub,
            target_stub,
        } => Route::Stub {
            source_stub: [m(&source_stub[0]), m(&source_stub[1])],
            target_stub: [m(&target_stub[0]), m(&target_stub[1])],
        },
    }
}

fn first_point(r: &Route) -> Option<Point> {
    match r {
        Route::Curve(p) => p.first().copied(),
        Route::Stub { source_stub, .. } => Some(source_stub[0]),
    }
}

fn last_point(r: &Route) -> Option<Point> {
    match r {
        Route::Curve(p) => p.last().copied(),
        Route::Stub { target_stub, .. } => Some(target_stub[1]),
    }
}

impl Compound {
    /// Builds the compound graph; all groups start collapsed except the root.
    /// Edges with an endpoint out of range are ignored.
    pub fn new(tree: Tree, edges: Vec<Edge>) -> Compound {
        let n = tree.parent.len().max(1);
        let mut is_group: Vec<bool> = (0..n)
            .map(|i| tree.is_group.get(i).copied().unwrap_or(false))
            .collect();
        is_group[0] = true;
        let size: Vec<NodeBox> = (0..n)
            .map(|i| clean_box(tree.size.get(i).copied().unwrap_or_default()))
            .collect();
        let mut parent: Vec<u32> = (0..n)
            .map(|i| {
                let p = tree.parent.get(i).copied().unwrap_or(0);
                if i == 0 || p as usize >= n || p as usize == i || !is_group[p as usize] {
                    0
                } else {
                    p
                }
            })
            .collect();
        // Break cycles (iterative walks up) and compute depths.
        let mut depth = vec![0u32; n];
        let mut state = vec![0u8; n]; // 0 new, 1 on the current walk, 2 done
        state[0] = 2;
        let mut walk: Vec<u32> = Vec::new();
        for i in 1..n {
            if state[i] != 0 {
                continue;
            }
            walk.clear();
            let mut x = i;
            while state[x] == 0 {
                state[x] = 1;
                walk.push(x as u32);
                x = parent[x] as usize;
            }
            if state[x] == 1 {
                parent[x] = 0;
            }
            for &w in walk.iter().rev() {
                let w = w as usize;
                depth[w] = depth[parent[w] as usize] + 1;
                state[w] = 2;
            }
        }
        let (child_start, children) = csr(n, (1..n).map(|i| (parent[i], i as u32)));
        let mut local = vec![0u32; n];
        for g in 0..n {
            for (j, &c) in children[child_start[g] as usize..child_start[g + 1] as usize]
                .iter()
                .enumerate()
            {
                local[c as usize] = j as u32;
            }
        }

        let m = edges.len();
        let mut fanout = vec![0u32; n];
        {
            let valid = edges
                .iter()
                .filter(|e| (e.from as usize) < n && (e.to as usize) < n)
                .map(|e| (e.from, e.to));
            let (start, to) = csr(n, valid);
            let mut seen = vec![NONE; n];
            for a in 0..n {
                for &b in &to[start[a] as usize..start[a + 1] as usize] {
                    if seen[b as usize] != a as u32 {
                        seen[b as usize] = a as u32;
                        fanout[a] += 1;
                    }
                }
            }
        }
        let mut e_lca = vec![NONE; m];
        let mut e_ca = vec![NONE; m];
        let mut e_cb = vec![NONE; m];
        let mut in_t: Vec<(u32, Value, u32)> = Vec::new();
        let mut out_t: Vec<(u32, Value, u32)> = Vec::new();
        let mut inb: Vec<(u32, u32)> = Vec::new();
        let mut outb: Vec<(u32, u32)> = Vec::new();
        for (i, e) in edges.iter().enumerate() {
            let (a, b) = (e.from as usize, e.to as usize);
            if a >= n || b >= n {
                continue;
            }
            if a == b {
                if a != 0 {
                    e_lca[i] = parent[a];
                    e_ca[i] = a as u32;
                    e_cb[i] = a as u32;
                }
                continue;
            }
            let (mut x, mut y) = (a, b);
            while depth[x] > depth[y] {
                x = parent[x] as usize;
            }
            while depth[y] > depth[x] {
                y = parent[y] as usize;
            }
            if x == y {
                continue; // one end contains the other
            }
            while parent[x] != parent[y] {
                x = parent[x] as usize;
                y = parent[y] as usize;
            }
            let l = parent[x];
            e_lca[i] = l;
            e_ca[i] = x as u32;
            e_cb[i] = y as u32;
            let val: Value = (e.from, e.from_port);
            let mut z = b;
            while z as u32 != l {
                if is_group[z] {
                    in_t.push((z as u32, val, i as u32));
                    if z != b {
                        inb.push((z as u32, i as u32));
                    }
                }
                z = parent[z] as usize;
            }
            let mut z = a;
            while z as u32 != l {
                if is_group[z] {
                    out_t.push((z as u32, val, i as u32));
                    if z != a {
                        outb.push((z as u32, i as u32));
                    }
                }
                z = parent[z] as usize;
            }
        }
        let ins = Values::build(n, in_t);
        let outs = Values::build(n, out_t);
        let (lca_start, lca_edges) = csr(
            n,
            e_lca
                .iter()
                .enumerate()
                .filter(|(_, l)| **l != NONE)
                .map(|(i, &l)| (l, i as u32)),
        );
        let (inb_start, inb_edges) = csr(n, inb.iter().copied());
        let (outb_start, outb_edges) = csr(n, outb.iter().copied());
        let mut expanded = vec![false; n];
        expanded[0] = true;
        Compound {
            parent,
            size,
            is_group,
            child_start,
            children,
            local,
            edges,
            fanout,
            e_lca,
            e_ca,
            e_cb,
            ins,
            outs,
            lca_start,
            lca_edges,
            inb_start,
            inb_edges,
            outb_start,
            outb_edges,
            expanded,
            cache: vec![None; n],
            opts: None,
            relayouts: 0,
            abs: vec![Rect::default(); n],
            shown: vec![0; n],
            generation: 0,
            valid: false,
        }
    }

    fn kids(&self, g: usize) -> &[u32] {
        &self.children[self.child_start[g] as usize..self.child_start[g + 1] as usize]
    }

    fn is_open_group(&self, g: usize) -> bool {
        self.is_group[g] && self.expanded[g]
    }

    /// Expands or collapses `group` (the root, leaves and unknown items are
    /// ignored). Drops the cached layouts of its ancestors; its own cache is kept,
    /// so expanding it again is free.
    pub fn set_expanded(&mut self, group: u32, expanded: bool) {
        let g = group as usize;
        if g == 0 || g >= self.parent.len() || !self.is_group[g] || self.expanded[g] == expanded {
            return;
        }
        self.expanded[g] = expanded;
        let mut x = g;
        while x != 0 {
            x = self.parent[x] as usize;
            self.cache[x] = None;
        }
    }

    pub fn is_expanded(&self, group: u32) -> bool {
        let g = group as usize;
        g < self.parent.len() && self.is_group[g] && self.expanded[g]
    }

    /// How many unit layouts the last [`Compound::layout`] call computed.
    pub fn relayout_count(&self) -> u32 {
        self.relayouts
    }

    /// Items currently drawn: the children of expanded groups, recursively
    /// (pre-order). Reflects the expanded flags now, even before `layout()`. The
    /// iterator owns its items (it does not borrow the `Compound`).
    pub fn visible(&self) -> impl Iterator<Item = u32> + use<> {
        let mut out = Vec::new();
        let mut stack = vec![0u32];
        while let Some(g) = stack.pop() {
            let kids = self.kids(g as usize);
            for &c in kids {
                out.push(c);
            }
            for &c in kids.iter().rev() {
                if self.is_open_group(c as usize) {
                    stack.push(c);
                }
            }
        }
        out.into_iter()
    }

    /// Absolute rectangle of an item drawn by the last `layout()` (item 0, the
    /// root, is the whole drawing). `None` for hidden items, and for everything
    /// when the last `layout()` was cancelled.
    pub fn rect(&self, item: u32) -> Option<Rect> {
        let i = item as usize;
        if self.valid && i < self.abs.len() && self.shown[i] == self.generation {
            Some(self.abs[i])
        } else {
            None
        }
    }

    /// The size an item takes in its parent's unit.
    fn box_of(&self, c: usize) -> NodeBox {
        if self.is_open_group(c)
            && let Some(u) = &self.cache[c]
        {
            return NodeBox {
                width: u.layout.width.max(self.size[c].width),
                height: u.layout.height + GROUP_HEADER,
            };
        }
        self.size[c]
    }

    /// The child of `g` that contains (or is) `x`.
    fn child_toward(&self, g: usize, mut x: usize) -> usize {
        while self.parent[x] as usize != g {
            x = self.parent[x] as usize;
        }
        x
    }

    fn value(&self, e: usize) -> Value {
        (self.edges[e].from, self.edges[e].from_port)
    }

    /// Port of edge `e` on the top of child `c` (its input port).
    fn port_in(&self, c: usize, e: usize) -> u16 {
        if !self.is_group[c] {
            return self.edges[e].to_port;
        }
        let Some(i) = self.ins.index(c, self.value(e)) else {
            return 0;
        };
        let slot = match (&self.cache[c], self.expanded[c]) {
            (Some(u), true) => u.in_slot[i as usize],
            _ => i,
        };
        slot.min(u16::MAX as u32) as u16
    }

    /// Port of edge `e` on the bottom of child `c` (its output port).
    fn port_out(&self, c: usize, e: usize) -> u16 {
        if !self.is_group[c] {
            return self.edges[e].from_port;
        }
        let Some(i) = self.outs.index(c, self.value(e)) else {
            return 0;
        };
        let slot = match (&self.cache[c], self.expanded[c]) {
            (Some(u), true) => u.out_slot[i as usize],
            _ => i,
        };
        slot.min(u16::MAX as u32) as u16
    }

    fn lca_list(&self, g: usize) -> &[u32] {
        &self.lca_edges[self.lca_start[g] as usize..self.lca_start[g + 1] as usize]
    }
    fn inb_list(&self, g: usize) -> &[u32] {
        &self.inb_edges[self.inb_start[g] as usize..self.inb_start[g + 1] as usize]
    }
    fn outb_list(&self, g: usize) -> &[u32] {
        &self.outb_edges[self.outb_start[g] as usize..self.outb_start[g + 1] as usize]
    }

    /// The flat graph, pins and forced stubs of group `g`'s unit. Edge order:
    /// lifted edges, then incoming border edges, then outgoing border edges (each
    /// by edge index). An edge carrying a value that feeds at least
    /// `min_consumers` items anywhere is a stub in every unit it passes.
    fn unit_graph(&self, g: usize, min_consumers: u32) -> (Graph, Vec<u8>, Vec<bool>) {
        let kids = self.kids(g);
        let k = kids.len();
        let nin = if g == 0 { 0 } else { self.ins.count(g) };
        let nout = if g == 0 { 0 } else { self.outs.count(g) };
        let mut nodes = Vec::with_capacity(k + nin + nout);
        for &c in kids {
            nodes.push(self.box_of(c as usize));
        }
        nodes.resize(k + nin + nout, NodeBox::default());
        let mut pins = vec![PIN_NONE; k];
        pins.resize(k + nin, PIN_TOP);
        pins.resize(k + nin + nout, PIN_BOTTOM);
        let lca = self.lca_list(g);
        let inb = self.inb_list(g);
        let outb = self.outb_list(g);
        let total = lca.len() + inb.len() + outb.len();
        let mut edges = Vec::with_capacity(total);
        let mut stubs = Vec::with_capacity(total);
        let wide = |e: usize| {
            min_consumers > 0 && self.fanout[self.edges[e].from as usize] >= min_consumers
        };
        for &e in lca.iter().chain(inb).chain(outb) {
            stubs.push(wide(e as usize));
        }
        for &e in lca {
            let e = e as usize;
            let (ca, cb) = (self.e_ca[e] as usize, self.e_cb[e] as usize);
            edges.push(Edge {
                from: self.local[ca],
                to: self.local[cb],
                from_port: self.port_out(ca, e),
                to_port: self.port_in(cb, e),
            });
        }
        for &e in inb {
            let e = e as usize;
            let vi = self.ins.index(g, self.value(e)).unwrap_or(0);
            let c = self.child_toward(g, self.edges[e].to as usize);
            edges.push(Edge {
                from: (k as u32) + vi,
                to: self.local[c],
                from_port: 0,
                to_port: self.port_in(c, e),
            });
        }
        for &e in outb {
            let e = e as usize;
            let vo = self.outs.index(g, self.value(e)).unwrap_or(0);
            let c = self.child_toward(g, self.edges[e].from as usize);
            edges.push(Edge {
                from: self.local[c],
                to: (k + nin) as u32 + vo,
                from_port: self.port_out(c, e),
                to_port: 0,
            });
        }
        (Graph { nodes, edges }, pins, stubs)
    }

    /// Lays out every expanded, visible group whose cached layout is missing,
    /// children before parents, then places all visible items.
    pub fn layout(
        &mut self,
        opts: &Options,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<(), Cancelled> {
        let opts = sanitize(opts);
        if self.opts != Some(opts) {
            self.cache.iter_mut().for_each(|c| *c = None);
            self.opts = Some(opts);
        }
        self.relayouts = 0;
        self.valid = false;
        let mut cc = Cancel::new(cancel);
        cc.check()?;
        // Expanded visible groups in pre-order; reversed, children come first.
        let mut pre: Vec<u32> = Vec::new();
        let mut stack = vec![0u32];
        while let Some(g) = stack.pop() {
            pre.push(g);
            for &c in self.kids(g as usize) {
                if self.is_open_group(c as usize) {
                    stack.push(c);
                }
            }
        }
        for &g in pre.iter().rev() {
            let g = g as usize;
            if self.cache[g].is_some() {
                continue;
            }
            let (graph, pins, stubs) = self.unit_graph(g, opts.stub_min_consumers);
            let layout = layout_pinned(&graph, &opts, &pins, &stubs, &mut cc)?;
            let k = self.kids(g).len();
            let nin = if g == 0 { 0 } else { self.ins.count(g) };
            let nout = if g == 0 { 0 } else { self.outs.count(g) };
            let slots = |from: usize, count: usize| -> Vec<u32> {
                let mut idx: Vec<u32> = (0..count as u32).collect();
                idx.sort_by(|&a, &b| {
                    let xa = layout.nodes[from + a as usize].x;
                    let xb = layout.nodes[from + b as usize].x;
                    xa.total_cmp(&xb).then(a.cmp(&b))
                });
                let mut slot = vec![0u32; count];
                for (s, &i) in idx.iter().enumerate() {
                    slot[i as usize] = s as u32;
                }
                slot
            };
            let in_slot = slots(k, nin);
            let out_slot = slots(k + nin, nout);
            self.cache[g] = Some(Box::new(Unit {
                layout,
                in_slot,
                out_slot,
            }));
            self.relayouts += 1;
        }

        // Absolute positions of everything visible.
        self.generation = self.generation.wrapping_add(1).max(1);
        let gen_ = self.generation;
        let root = &self.cache[0].as_ref().expect("root laid out").layout;
        self.abs[0] = Rect {
            x: 0.0,
            y: 0.0,
            w: root.width,
            h: root.height,
        };
        self.shown[0] = gen_;
        let mut stack = vec![0u32];
        while let Some(g) = stack.pop() {
            let g = g as usize;
            let (ox, oy) = self.origin(g);
            let (s, e) = (
                self.child_start[g] as usize,
                self.child_start[g + 1] as usize,
            );
            for j in s..e {
                let c = self.children[j] as usize;
                let r = self.cache[g].as_ref().expect("laid out").layout.nodes[j - s];
                self.abs[c] = Rect {
                    x: r.x + ox,
                    y: r.y + oy,
                    w: r.w,
                    h: r.h,
                };
                self.shown[c] = gen_;
                if self.is_open_group(c) {
                    stack.push(c as u32);
                }
            }
        }
        self.valid = true;
        Ok(())
    }

    /// Top-left of group `g`'s inner layout in absolute coordinates.
    fn origin(&self, g: usize) -> (f32, f32) {
        if g == 0 {
            return (0.0, 0.0);
        }
        let r = self.abs[g];
        let inner_w = self.cache[g].as_ref().map_or(r.w, |u| u.layout.width);
        (r.x + (r.w - inner_w) * 0.5, r.y + GROUP_HEADER)
    }

    /// The item drawn for `x`: its highest collapsed ancestor, or itself.
    fn vis(&self, x: usize) -> usize {
        let mut v = x;
        let mut z = x;
        while z != 0 {
            z = self.parent[z] as usize;
            if z != 0 && !self.expanded[z] {
                v = z;
            }
        }
        v
    }

    /// The route of edge `e` within group `g`'s unit (`idx`: its unit edge
    /// index), in absolute coordinates.
    fn piece(&self, g: usize, idx: usize) -> Option<Route> {
        if g != 0 && self.shown[g] != self.generation {
            return None;
        }
        let u = self.cache[g].as_ref()?;
        let r = u.layout.routes.get(idx)?;
        let (ox, oy) = self.origin(g);
        Some(offset(r, ox, oy))
    }

    /// Absolute routes of every visible edge, by edge index, as of the last
    /// `layout()` (call it again after changing expanded flags; empty after a
    /// cancelled one).
    pub fn routes(&self) -> Vec<(u32, Route)> {
        let mut out = Vec::new();
        if !self.valid {
            return out;
        }
        let Some(opts) = self.opts else {
            return out;
        };
        let mut pieces: Vec<Route> = Vec::new();
        let mut path: Vec<usize> = Vec::new();
        for e in 0..self.edges.len() {
            let g = self.e_lca[e];
            if g == NONE {
                continue;
            }
            let g = g as usize;
            let (a, b) = (self.edges[e].from as usize, self.edges[e].to as usize);
            let (va, vb) = (self.vis(a), self.vis(b));
            if (a == b && va != a) || (a != b && va == vb) {
                continue;
            }
            if self.shown[va] != self.generation || self.shown[vb] != self.generation {
                continue;
            }
            pieces.clear();
            let mut ok = true;
            // Up from the source through its groups.
            let mut x = va;
            while ok && self.parent[x] as usize != g {
                let p = self.parent[x] as usize;
                let list = self.outb_list(p);
                let base = self.lca_list(p).len() + self.inb_list(p).len();
                match list.binary_search(&(e as u32)) {
                    Ok(i) => match self.piece(p, base + i) {
                        Some(r) => pieces.push(r),
                        None => ok = false,
                    },
                    Err(_) => ok = false,
                }
                x = p;
            }
            // Across the LCA.
            if ok {
                match self.lca_list(g).binary_search(&(e as u32)) {
                    Ok(i) => match self.piece(g, i) {
                        Some(r) => pieces.push(r),
                        None => ok = false,
                    },
                    Err(_) => ok = false,
                }
            }
            // Down into the target's groups.
            if ok && a != b {
                path.clear();
                let mut z = vb;
                while z != g {
                    path.push(z);
                    z = self.parent[z] as usize;
                }
                // path = [vb, ..., cb]; groups to enter are all but vb, top first.
                for &q in path[1..].iter().rev() {
                    let base = self.lca_list(q).len();
                    match self.inb_list(q).binary_search(&(e as u32)) {
                        Ok(i) => match self.piece(q, base + i) {
                            Some(r) => pieces.push(r),
                            None => {
                                ok = false;
                                break;
                            }
                        },
                        Err(_) => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
            if !ok || pieces.is_empty() {
                continue;
            }
            out.push((e as u32, join(&opts, &pieces)));
        }
        out
    }
}

/// Joins route pieces into one: curves are chained with a connecting curve where
/// they do not meet; if any piece is a stub the whole edge becomes a stub pair.
fn join(o: &Options, pieces: &[Route]) -> Route {
    if pieces.len() == 1 {
        return pieces[0].clone();
    }
    let start = first_point(&pieces[0]);
    let end = last_point(&pieces[pieces.len() - 1]);
    let any_stub = pieces.iter().any(|p| matches!(p, Route::Stub { .. }));
    let any_empty = pieces
        .iter()
        .any(|p| matches!(p, Route::Curve(v) if v.is_empty()));
    if any_stub || any_empty {
        return match (start, end) {
            (Some(s), Some(t)) => stub(o, s, t),
            _ => Route::Curve(Vec::new()),
        };
    }
    let total: usize = pieces
        .iter()
        .map(|p| match p {
            Route::Curve(v) => v.len() + 3,
            Route::Stub { .. } => 0,
        })
        .sum();
    let mut pts: Vec<Point> = Vec::with_capacity(total);
    for p in pieces {
        if let Route::Curve(v) = p {
            match pts.last() {
                None => pts.extend_from_slice(v),
                Some(&last) => {
                    let q = v[0];
                    if (q.x - last.x).abs() > 1e-3 || (q.y - last.y).abs() > 1e-3 {
                        curve_to(&mut pts, q);
                    }
                    pts.extend_from_slice(&v[1..]);
                }
            }
        }
    }
    Route::Curve(pts)
}
