//! Stub selection, dummy chains and crossing reduction.
//!
//! Layout edges that are stubs (widely shared source, or spanning more than
//! `stub_min_span` ranks) are dropped here. The others become *segments* between
//! adjacent ranks, long ones through a chain of dummy nodes (ids `n..nv`, one
//! consecutive run per layout edge). The initial order of each rank is the
//! discovery order of an iterative DFS from the sources (children in port order).
//! Then barycenter sweeps alternate down and up; each sweep sorts a rank by the
//! mean position of its neighbours in the previous rank (ports shift a neighbour's
//! position by a fraction, so outputs keep their order). After every sweep the
//! crossings are counted with the Barth–Jünger–Mutzel accumulator tree; the best
//! order is kept and the loop stops after two sweeps without improvement.

use crate::rank::{NONE, Ranked, csr};
use crate::{Cancel, Cancelled, Graph, Options};

/// The layered ("virtual") graph: real nodes, dummies, segments and the order.
pub(crate) struct Virt {
    /// Real nodes (`0..n`); dummies are `n..nv`.
    pub n: usize,
    pub nv: usize,
    pub nranks: usize,
    pub vrank: Vec<u32>,
    pub width: Vec<f32>,
    /// Per layout edge: drawn as a stub.
    pub le_stub: Vec<bool>,
    /// Per layout edge: its first dummy (`NONE` if it spans one rank or is a stub).
    pub le_dummy: Vec<u32>,
    /// Segments: upper and lower end, and the port fraction at each end (offset
    /// from the node's centre as a fraction of its width).
    pub seg_up: Vec<u32>,
    pub seg_dn: Vec<u32>,
    pub seg_fu: Vec<f32>,
    pub seg_fd: Vec<f32>,
    /// Segments leaving each node downwards / arriving from above (CSR).
    pub dn_start: Vec<u32>,
    pub dn_seg: Vec<u32>,
    pub up_start: Vec<u32>,
    pub up_seg: Vec<u32>,
    /// Ranks: `order[layer_start[r]..layer_start[r + 1]]`, left to right.
    pub layer_start: Vec<u32>,
    pub order: Vec<u32>,
    /// Index of each node within its rank.
    pub pos: Vec<u32>,
}

impl Virt {
    #[inline]
    pub fn layer(&self, r: usize) -> std::ops::Range<usize> {
        self.layer_start[r] as usize..self.layer_start[r + 1] as usize
    }
    #[inline]
    pub fn dn(&self, v: usize) -> std::ops::Range<usize> {
        self.dn_start[v] as usize..self.dn_start[v + 1] as usize
    }
    #[inline]
    pub fn up(&self, v: usize) -> std::ops::Range<usize> {
        self.up_start[v] as usize..self.up_start[v + 1] as usize
    }
    pub fn dummies(&self) -> u32 {
        (self.nv - self.n) as u32
    }
}

/// Where a port sits across its side, as a fraction of the node's width from its
/// centre (-0.5..0.5).
fn port_frac(port: u16, count: u32) -> f32 {
    if count <= 1 {
        0.0
    } else {
        (port.min((count - 1).min(u16::MAX as u32) as u16) as f32 + 0.5) / count as f32 - 0.5
    }
}

/// How much a port shifts a neighbour's position in the barycenter (within ±0.4,
/// so ports never reorder whole nodes).
const PORT_WEIGHT: f32 = 0.8;

pub(crate) fn build(
    g: &Graph,
    o: &Options,
    r: &Ranked,
    widths: &[f32],
    cc: &mut Cancel,
) -> Result<Virt, Cancelled> {
    let n = g.nodes.len();
    let nle = r.le_from.len();
    let nranks = r.nranks as usize;

    let mut le_stub = vec![false; nle];
    let mut le_dummy = vec![NONE; nle];
    let mut vrank = r.rank.clone();
    let mut nsegs = 0usize;
    for le in 0..nle {
        let (a, b) = (r.le_from[le] as usize, r.le_to[le] as usize);
        let span = r.rank[b] - r.rank[a];
        let long = o.stub_min_span > 0 && span > o.stub_min_span;
        if r.le_wide[le] || long {
            le_stub[le] = true;
            continue;
        }
        nsegs += span as usize;
        if span > 1 {
            le_dummy[le] = vrank.len() as u32;
            for k in r.rank[a] + 1..r.rank[b] {
                vrank.push(k);
            }
        }
    }
    let nv = vrank.len();
    let mut width = Vec::with_capacity(nv);
    width.extend_from_slice(widths);
    width.resize(nv, 0.0);
    cc.check()?;

    // Segments, chain by chain.
    let mut seg_up = Vec::with_capacity(nsegs);
    let mut seg_dn = Vec::with_capacity(nsegs);
    let mut seg_fu = Vec::with_capacity(nsegs);
    let mut seg_fd = Vec::with_capacity(nsegs);
    for le in 0..nle {
        if le_stub[le] {
            continue;
        }
        let (a, b) = (r.le_from[le], r.le_to[le]);
        let e = &g.edges[r.le_first_edge[le] as usize];
        let rev = r.pair_rev[r.edge_pair[r.le_first_edge[le] as usize] as usize];
        let fo = port_frac(e.from_port, r.n_out[e.from as usize]);
        let fi = port_frac(e.to_port, r.n_in[e.to as usize]);
        let (fa, fb) = if rev { (fi, fo) } else { (fo, fi) };
        let mut prev = a;
        let mut fprev = fa;
        if le_dummy[le] != NONE {
            let first = le_dummy[le];
            let count = r.rank[b as usize] - r.rank[a as usize] - 1;
            for d in first..first + count {
                seg_up.push(prev);
                seg_dn.push(d);
                seg_fu.push(fprev);
                seg_fd.push(0.0);
                prev = d;
                fprev = 0.0;
            }
        }
        seg_up.push(prev);
        seg_dn.push(b);
        seg_fu.push(fprev);
        seg_fd.push(fb);
    }
    let (dn_start, mut dn_seg) = csr(nv, seg_up.iter().enumerate().map(|(s, &u)| (u, s as u32)));
    let (up_start, up_seg) = csr(nv, seg_dn.iter().enumerate().map(|(s, &d)| (d, s as u32)));
    // Children in port order, for the initial DFS.
    for v in 0..n {
        let s = &mut dn_seg[dn_start[v] as usize..dn_start[v + 1] as usize];
        if s.len() > 1 {
            s.sort_by(|&x, &y| seg_fu[x as usize].total_cmp(&seg_fu[y as usize]));
        }
    }
    cc.check()?;

    // Initial order: DFS discovery order from the sources, node order.
    let mut layer_start = vec![0u32; nranks + 1];
    for &k in &vrank {
        layer_start[k as usize + 1] += 1;
    }
    for i in 0..nranks {
        layer_start[i + 1] += layer_start[i];
    }
    let mut fill: Vec<u32> = layer_start[..nranks].to_vec();
    let mut order = vec![0u32; nv];
    let mut pos = vec![0u32; nv];
    let mut seen = vec![false; nv];
    let mut stack: Vec<u32> = Vec::new();
    let mut place = |v: usize, order: &mut Vec<u32>, pos: &mut Vec<u32>| {
        let k = vrank[v] as usize;
        let at = fill[k];
        fill[k] += 1;
        order[at as usize] = v as u32;
        pos[v] = at - layer_start[k];
    };
    for root in 0..nv {
        if seen[root] || up_start[root] != up_start[root + 1] {
            continue;
        }
        stack.push(root as u32);
        while let Some(v) = stack.pop() {
            let v = v as usize;
            if seen[v] {
                continue;
            }
            seen[v] = true;
            place(v, &mut order, &mut pos);
            for &s in dn_seg[dn_start[v] as usize..dn_start[v + 1] as usize]
                .iter()
                .rev()
            {
                let w = seg_dn[s as usize];
                if !seen[w as usize] {
                    stack.push(w);
                }
            }
            cc.tick(1)?;
        }
    }
    // Every node hangs below some source; this only guards the invariant.
    for v in 0..nv {
        if !seen[v] {
            seen[v] = true;
            place(v, &mut order, &mut pos);
        }
    }

    Ok(Virt {
        n,
        nv,
        nranks,
        vrank,
        width,
        le_stub,
        le_dummy,
        seg_up,
        seg_dn,
        seg_fu,
        seg_fd,
        dn_start,
        dn_seg,
        up_start,
        up_seg,
        layer_start,
        order,
        pos,
    })
}

/// Reusable buffers of the crossing count and the sweeps.
#[derive(Default)]
struct Scratch {
    tree: Vec<u32>,
    buf: Vec<u32>,
    keys: Vec<(f32, u32, u32)>,
}

/// Crossings between all pairs of adjacent ranks (Barth–Jünger–Mutzel).
fn count_crossings(v: &Virt, s: &mut Scratch, cc: &mut Cancel) -> Result<u64, Cancelled> {
    let mut total = 0u64;
    for r in 0..v.nranks.saturating_sub(1) {
        let lower = v.layer(r + 1).len();
        if lower < 2 {
            continue;
        }
        let first = lower.next_power_of_two();
        let size = 2 * first - 1;
        s.tree.clear();
        s.tree.resize(size, 0);
        let base = first - 1;
        let upper = v.layer(r);
        let work = upper.len();
        for &u in &v.order[upper] {
            s.buf.clear();
            for k in v.dn(u as usize) {
                s.buf.push(v.pos[v.seg_dn[v.dn_seg[k] as usize] as usize]);
            }
            if s.buf.len() > 1 {
                s.buf.sort_unstable();
            }
            for &p in &s.buf {
                let mut i = p as usize + base;
                s.tree[i] += 1;
                while i > 0 {
                    if i % 2 == 1 {
                        total += s.tree[i + 1] as u64;
                    }
                    i = (i - 1) / 2;
                    s.tree[i] += 1;
                }
            }
        }
        cc.tick(work as u32)?;
    }
    Ok(total)
}

/// One barycenter sweep: downwards orders each rank by its upper neighbours,
/// upwards by its lower neighbours.
fn sweep(v: &mut Virt, down: bool, s: &mut Scratch, cc: &mut Cancel) -> Result<(), Cancelled> {
    let nr = v.nranks;
    for step in 1..nr {
        let r = if down { step } else { nr - 1 - step };
        let adj = if down { r - 1 } else { r + 1 };
        let range = v.layer(r);
        let len = range.len();
        if len < 2 {
            continue;
        }
        let scale = v.layer(adj).len() as f32 / len as f32;
        s.keys.clear();
        for (i, &x) in v.order[range.clone()].iter().enumerate() {
            let x = x as usize;
            let mut sum = 0.0f32;
            let mut cnt = 0u32;
            if down {
                for k in v.up(x) {
                    let sg = v.up_seg[k] as usize;
                    sum += v.pos[v.seg_up[sg] as usize] as f32 + PORT_WEIGHT * v.seg_fu[sg];
                    cnt += 1;
                }
            } else {
                for k in v.dn(x) {
                    let sg = v.dn_seg[k] as usize;
                    sum += v.pos[v.seg_dn[sg] as usize] as f32 + PORT_WEIGHT * v.seg_fd[sg];
                    cnt += 1;
                }
            }
            let key = if cnt > 0 {
                sum / cnt as f32
            } else {
                i as f32 * scale
            };
            s.keys.push((key, i as u32, x as u32));
        }
        s.keys
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let base = range.start;
        for (j, &(_, _, x)) in s.keys.iter().enumerate() {
            v.order[base + j] = x;
            v.pos[x as usize] = j as u32;
        }
        cc.tick(len as u32)?;
    }
    Ok(())
}

fn set_pos(v: &mut Virt) {
    for r in 0..v.nranks {
        let range = v.layer(r);
        let base = range.start;
        for i in range {
            v.pos[v.order[i] as usize] = (i - base) as u32;
        }
    }
}

/// Crossing reduction; returns the crossings of the order it keeps.
pub(crate) fn reduce(v: &mut Virt, cc: &mut Cancel) -> Result<u64, Cancelled> {
    if v.nranks < 2 {
        return Ok(0);
    }
    let mut s = Scratch::default();
    let mut best = count_crossings(v, &mut s, cc)?;
    let mut best_order = v.order.clone();
    let max_sweeps = if v.nv > 20_000 {
        8
    } else if v.nv > 2_000 {
        12
    } else {
        24
    };
    let mut fails = 0;
    for it in 0..max_sweeps {
        if best == 0 {
            break;
        }
        sweep(v, it % 2 == 0, &mut s, cc)?;
        let c = count_crossings(v, &mut s, cc)?;
        if c < best {
            best = c;
            best_order.copy_from_slice(&v.order);
            fails = 0;
        } else {
            fails += 1;
            if fails >= 2 {
                break;
            }
        }
        cc.check()?;
    }
    v.order.copy_from_slice(&best_order);
    set_pos(v);
    Ok(best)
}
