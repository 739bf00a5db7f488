//! Horizontal coordinates: Brandes–Köpf.
//!
//! 1. *Type-1 conflicts*: a segment that crosses an inner segment (dummy to
//!    dummy) is marked, so long edges stay straight.
//! 2. *Vertical alignment*, four times (aligning with upper or lower neighbours,
//!    scanning ranks left-to-right or right-to-left): each node joins the block of
//!    its median neighbour unless that would cross an earlier alignment.
//! 3. *Horizontal compaction* on the block graph (an edge from each block to the
//!    block right of it in some rank, weighted by the needed separation): longest
//!    path from the left, then each block moves right as far as its right
//!    neighbours allow. The block graph is acyclic because alignments never cross.
//! 4. *Balancing*: the four results are shifted onto the narrowest one and every
//!    node takes the mean of its two median candidates, which keeps separations
//!    (order statistics preserve them).
//! 5. *Straightening* (see `refine`): block compaction lets long, repetitive
//!    graphs (a transformer's blocks) drift sideways rank after rank. A spine per
//!    connected component (the top-to-bottom path through the most real nodes) is
//!    made vertical, then a few sweeps place each rank as close as separations
//!    allow to where its edges would be vertical (port to port), exactly, by
//!    weighted isotonic regression.
//!
//! All linear (up to small sorts) in nodes plus segments; no recursion.

use crate::order::Virt;
use crate::rank::csr;
use crate::{Cancel, Cancelled, Options};

struct Ctx<'a> {
    v: &'a Virt,
    /// Up / down segment lists, each node's sorted by the neighbour's position.
    up_sorted: Vec<u32>,
    dn_sorted: Vec<u32>,
    marked: Vec<bool>,
    node_sep: f32,
    edge_sep: f32,
}

impl Ctx<'_> {
    fn sep(&self, a: usize, b: usize) -> f32 {
        let v = self.v;
        let half = |x: usize| {
            if x >= v.n {
                self.edge_sep * 0.5
            } else {
                self.node_sep * 0.5
            }
        };
        (v.width[a] + v.width[b]) * 0.5 + half(a) + half(b)
    }

    /// One alignment; returns x (centres) per virtual node.
    fn align(&self, up: bool, left: bool, cc: &mut Cancel) -> Result<Vec<f32>, Cancelled> {
        let v = self.v;
        let nv = v.nv;
        let nr = v.nranks;
        let hpos = |x: usize| -> i64 {
            let p = v.pos[x] as i64;
            if left {
                p
            } else {
                v.layer(v.vrank[x] as usize).len() as i64 - 1 - p
            }
        };
        let mut root: Vec<u32> = (0..nv as u32).collect();
        let mut align: Vec<u32> = root.clone();
        for step in 1..nr {
            let r = if up { step } else { nr - 1 - step };
            let layer = &v.order[v.layer(r)];
            let len = layer.len();
            let mut last: i64 = -1;
            for j in 0..len {
                let x = if left { layer[j] } else { layer[len - 1 - j] } as usize;
                let nb = if up {
                    &self.up_sorted[v.up(x)]
                } else {
                    &self.dn_sorted[v.dn(x)]
                };
                let d = nb.len();
                if d == 0 {
                    continue;
                }
                let meds = [(d - 1) / 2, d / 2];
                let count = if meds[0] == meds[1] { 1 } else { 2 };
                for &m in &meds[..count] {
                    if align[x] as usize != x {
                        break;
                    }
                    let idx = if left { m } else { d - 1 - m };
                    let s = nb[idx] as usize;
                    let u = if up { v.seg_up[s] } else { v.seg_dn[s] } as usize;
                    let hu = hpos(u);
                    if !self.marked[s] && last < hu {
                        align[u] = x as u32;
                        root[x] = root[u];
                        align[x] = root[x];
                        last = hu;
                    }
                }
            }
            cc.tick(len as u32)?;
        }

        // Block graph: each block to the block right of it (in scan order).
        let mut bf: Vec<u32> = Vec::with_capacity(nv);
        let mut bt: Vec<u32> = Vec::with_capacity(nv);
        let mut bw: Vec<f32> = Vec::with_capacity(nv);
        for r in 0..nr {
            let layer = &v.order[v.layer(r)];
            let len = layer.len();
            for j in 1..len {
                let (w, x) = if left {
                    (layer[j - 1], layer[j])
                } else {
                    (layer[len - j], layer[len - 1 - j])
                };
                let (w, x) = (w as usize, x as usize);
                bf.push(root[w]);
                bt.push(root[x]);
                bw.push(self.sep(w, x));
            }
        }
        let (out_start, out_e) = csr(nv, bf.iter().enumerate().map(|(i, &f)| (f, i as u32)));
        let mut indeg = vec![0u32; nv];
        for &t in &bt {
            indeg[t as usize] += 1;
        }
        let mut topo: Vec<u32> = Vec::with_capacity(nv);
        for b in 0..nv {
            if root[b] as usize == b && indeg[b] == 0 {
                topo.push(b as u32);
            }
        }
        // Kahn's order; pass 1 (longest path from the left) rides along.
        let mut xs = vec![0.0f32; nv];
        let mut head = 0;
        while head < topo.len() {
            let b = topo[head] as usize;
            head += 1;
            let xb = xs[b];
            for &e in &out_e[out_start[b] as usize..out_start[b + 1] as usize] {
                let e = e as usize;
                let t = bt[e] as usize;
                let want = xb + bw[e];
                if xs[t] < want {
                    xs[t] = want;
                }
                indeg[t] -= 1;
                if indeg[t] == 0 {
                    topo.push(t as u32);
                }
            }
        }
        debug_assert_eq!(
            topo.len(),
            (0..nv).filter(|&b| root[b] as usize == b).count(),
            "block graph must be acyclic"
        );
        cc.tick(nv as u32)?;
        // Pass 2: blocks move right as far as their right neighbours allow.
        for &b in topo.iter().rev() {
            let b = b as usize;
            let outs = &out_e[out_start[b] as usize..out_start[b + 1] as usize];
            if outs.is_empty() {
                continue;
            }
            let mut m = f32::INFINITY;
            for &e in outs {
                let e = e as usize;
                m = m.min(xs[bt[e] as usize] - bw[e]);
            }
            if m > xs[b] {
                xs[b] = m;
            }
        }
        let sign = if left { 1.0 } else { -1.0 };
        let x: Vec<f32> = (0..nv).map(|i| sign * xs[root[i] as usize]).collect();
        Ok(x)
    }
}

/// x centre of every virtual node.
pub(crate) fn assign(v: &Virt, o: &Options, cc: &mut Cancel) -> Result<Vec<f32>, Cancelled> {
    let nv = v.nv;
    if nv == 0 {
        return Ok(Vec::new());
    }
    let mut up_sorted = v.up_seg.clone();
    let mut dn_sorted = v.dn_seg.clone();
    for x in 0..nv {
        let s = &mut up_sorted[v.up(x)];
        if s.len() > 1 {
            s.sort_unstable_by_key(|&k| v.pos[v.seg_up[k as usize] as usize]);
        }
        let s = &mut dn_sorted[v.dn(x)];
        if s.len() > 1 {
            s.sort_unstable_by_key(|&k| v.pos[v.seg_dn[k as usize] as usize]);
        }
    }

    // Type-1 conflicts.
    let mut marked = vec![false; v.seg_up.len()];
    for r in 0..v.nranks.saturating_sub(1) {
        let upper_len = v.layer(r).len();
        let lower = &v.order[v.layer(r + 1)];
        if upper_len == 0 || lower.is_empty() {
            continue;
        }
        let mut k0 = 0u32;
        let mut l = 0usize;
        for l1 in 0..lower.len() {
            let w = lower[l1] as usize;
            let mut inner: Option<u32> = None;
            if w >= v.n {
                for k in v.up(w) {
                    let u = v.seg_up[v.up_seg[k] as usize];
                    if u as usize >= v.n {
                        inner = Some(v.pos[u as usize]);
                    }
                }
            }
            if l1 + 1 == lower.len() || inner.is_some() {
                let k1 = inner.unwrap_or(upper_len as u32 - 1);
                while l <= l1 {
                    let z = lower[l] as usize;
                    for k in v.up(z) {
                        let s = v.up_seg[k] as usize;
                        let u = v.seg_up[s] as usize;
                        let p = v.pos[u];
                        if (p < k0 || p > k1) && !(u >= v.n && z >= v.n) {
                            marked[s] = true;
                        }
                    }
                    l += 1;
                }
                k0 = k1;
            }
        }
        cc.tick(lower.len() as u32)?;
    }

    let node_sep = o.node_sep;
    let ctx = Ctx {
        v,
        up_sorted,
        dn_sorted,
        marked,
        node_sep,
        edge_sep: node_sep * 0.5,
    };
    let dirs = [(true, true), (true, false), (false, true), (false, false)];
    let mut xs: Vec<Vec<f32>> = Vec::with_capacity(4);
    for &(up, left) in &dirs {
        xs.push(ctx.align(up, left, cc)?);
        cc.check()?;
    }

    // Balance: align all four to the narrowest, then average the two medians.
    let mut lo = [f32::INFINITY; 4];
    let mut hi = [f32::NEG_INFINITY; 4];
    for (i, x) in xs.iter().enumerate() {
        for k in 0..nv {
            let h = v.width[k] * 0.5;
            lo[i] = lo[i].min(x[k] - h);
            hi[i] = hi[i].max(x[k] + h);
        }
    }
    let mut narrow = 0;
    for i in 1..4 {
        if hi[i] - lo[i] < hi[narrow] - lo[narrow] {
            narrow = i;
        }
    }
    for (i, x) in xs.iter_mut().enumerate() {
        let left = dirs[i].1;
        let delta = if left {
            lo[narrow] - lo[i]
        } else {
            hi[narrow] - hi[i]
        };
        if delta != 0.0 {
            for k in x.iter_mut() {
                *k += delta;
            }
        }
    }
    let mut out = vec![0.0f32; nv];
    for k in 0..nv {
        let mut c = [xs[0][k], xs[1][k], xs[2][k], xs[3][k]];
        c.sort_unstable_by(f32::total_cmp);
        out[k] = (c[1] + c[2]) * 0.5;
    }
    drop(xs);
    cc.check()?;
    refine(&ctx, &mut out, cc)?;
    Ok(out)
}

/// Straightening passes after Brandes–Köpf.
///
/// Each pass walks the ranks (down or up) and gives every node a desired x where
/// its edges to the previous rank would be vertical (port to port), weighted
/// (dummy–dummy segments most, so long edges stay straight); then it places the
/// rank as close to those wishes as the separations allow, exactly, by weighted
/// isotonic regression (pool adjacent violators) on `x_i - offset_i`. This removes
/// the slow sideways drift that block compaction shows on long deep graphs.
fn refine(ctx: &Ctx, x: &mut [f32], cc: &mut Cancel) -> Result<(), Cancelled> {
    let v = ctx.v;
    let nr = v.nranks;
    if nr < 2 {
        return Ok(());
    }
    let nv = v.nv;
    // The spine of each connected component: a top-to-bottom path through the
    // most real nodes. It is held on one vertical line, so branches that leave and
    // rejoin it cannot drift sideways from block to block.
    let mut score = vec![0u32; nv];
    let mut pred = vec![u32::MAX; nv];
    let mut comp: Vec<u32> = (0..nv as u32).collect();
    fn find(comp: &mut [u32], mut a: usize) -> usize {
        while comp[a] as usize != a {
            let up = comp[comp[a] as usize];
            comp[a] = up;
            a = up as usize;
        }
        a
    }
    for r in 0..nr {
        for &z in &v.order[v.layer(r)] {
            let z = z as usize;
            let mut best = 0u32;
            for k in v.up(z) {
                let u = v.seg_up[v.up_seg[k] as usize] as usize;
                if pred[z] == u32::MAX || score[u] > best {
                    best = score[u];
                    pred[z] = u as u32;
                }
                let (a, b) = (find(&mut comp, u), find(&mut comp, z));
                if a != b {
                    let (lo, hi) = (a.min(b), a.max(b));
                    comp[hi] = lo as u32;
                }
            }
            score[z] = best + u32::from(z < v.n);
        }
    }
    let mut end = vec![u32::MAX; nv];
    for z in 0..nv {
        let c = find(&mut comp, z);
        if end[c] == u32::MAX || score[z] > score[end[c] as usize] {
            end[c] = z as u32;
        }
    }
    // Undo the sideways drift of the start positions along the main spine (the
    // component with the longest spine): shift each rank so that spine is straight.
    // A uniform shift per rank keeps every separation.
    let mut main = u32::MAX;
    for c in 0..nv {
        let e = end[c];
        if e != u32::MAX && (main == u32::MAX || score[e as usize] > score[main as usize]) {
            main = e;
        }
    }
    if main != u32::MAX {
        let mut shift = vec![f32::NAN; nr];
        let mut z = main;
        let anchor = x[main as usize];
        while z != u32::MAX {
            shift[v.vrank[z as usize] as usize] = anchor - x[z as usize];
            z = pred[z as usize];
        }
        let mut last = f32::NAN;
        for k in 0..nr {
            if shift[k].is_nan() {
                shift[k] = last;
            } else {
                last = shift[k];
            }
        }
        let mut last = 0.0;
        for k in (0..nr).rev() {
            if shift[k].is_nan() {
                shift[k] = last;
            } else {
                last = shift[k];
            }
        }
        for z in 0..nv {
            x[z] += shift[v.vrank[z] as usize];
        }
    }
    let mut spine_sum = vec![(0.0f64, 0u32); nv];
    let mut on_spine = vec![false; nv];
    for c in 0..nv {
        let mut z = end[c];
        while z != u32::MAX {
            on_spine[z as usize] = true;
            spine_sum[c].0 += x[z as usize] as f64;
            spine_sum[c].1 += 1;
            z = pred[z as usize];
        }
    }
    let spine_x: Vec<f64> = (0..nv)
        .map(|z| {
            let (s, k) = spine_sum[find(&mut comp, z)];
            if k > 0 { s / k as f64 } else { 0.0 }
        })
        .collect();
    drop(spine_sum);
    drop(score);
    drop(pred);
    cc.tick(nv as u32)?;
    const SPINE: f64 = 1e6;

    // Priorities: the spine above everything, then long edges (dummy to dummy,
    // so they stay straight, as Brandes–Köpf blocks would), then ordinary edges.
    let seg_w = |s: usize| -> f64 {
        match (v.seg_up[s] as usize >= v.n, v.seg_dn[s] as usize >= v.n) {
            (true, true) => 1000.0,
            (false, false) => 1.0,
            _ => 2.0,
        }
    };
    let off_up = |s: usize| v.seg_fu[s] * v.width[v.seg_up[s] as usize];
    let off_dn = |s: usize| v.seg_fd[s] * v.width[v.seg_dn[s] as usize];
    // (look up, look down, walk downwards)
    let passes = [
        (true, false, true),
        (false, true, false),
        (true, false, true),
        (true, true, false),
    ];
    let mut want: Vec<(f64, f64)> = Vec::new(); // (target - offset, weight)
    let mut offs: Vec<f64> = Vec::new();
    let mut blocks: Vec<(f64, f64, u32)> = Vec::new(); // (sum w, sum w*t, count)
    for &(look_up, look_dn, downwards) in &passes {
        for step in 0..nr {
            let r = if downwards { step } else { nr - 1 - step };
            let layer = &v.order[v.layer(r)];
            let len = layer.len();
            if len == 0 {
                continue;
            }
            want.clear();
            offs.clear();
            let mut off = 0.0f64;
            for (i, &z) in layer.iter().enumerate() {
                let z = z as usize;
                if i > 0 {
                    off += ctx.sep(layer[i - 1] as usize, z) as f64;
                }
                offs.push(off);
                let mut sw = 0.0f64;
                let mut swt = 0.0f64;
                if look_up {
                    for k in v.up(z) {
                        let s = v.up_seg[k] as usize;
                        let w = seg_w(s);
                        let t = x[v.seg_up[s] as usize] + off_up(s) - off_dn(s);
                        sw += w;
                        swt += w * t as f64;
                    }
                }
                if look_dn {
                    for k in v.dn(z) {
                        let s = v.dn_seg[k] as usize;
                        let w = seg_w(s);
                        let t = x[v.seg_dn[s] as usize] + off_dn(s) - off_up(s);
                        sw += w;
                        swt += w * t as f64;
                    }
                }
                if on_spine[z] {
                    sw += SPINE;
                    swt += SPINE * spine_x[z];
                }
                let (t, w) = if sw > 0.0 {
                    (swt / sw, sw)
                } else {
                    (x[z] as f64, 1e-3)
                };
                want.push((t - off, w));
            }
            // Pool adjacent violators: block means must not decrease.
            blocks.clear();
            for &(t, w) in &want {
                blocks.push((w, w * t, 1));
                while blocks.len() > 1 {
                    let b = blocks[blocks.len() - 1];
                    let a = blocks[blocks.len() - 2];
                    if a.1 / a.0 > b.1 / b.0 {
                        blocks.pop();
                        let top = blocks.last_mut().expect("two blocks");
                        *top = (a.0 + b.0, a.1 + b.1, a.2 + b.2);
                    } else {
                        break;
                    }
                }
            }
            let mut i = 0usize;
            for &(sw, swt, count) in &blocks {
                let y = swt / sw;
                for _ in 0..count {
                    x[layer[i] as usize] = (y + offs[i]) as f32;
                    i += 1;
                }
            }
            cc.tick(len as u32)?;
        }
    }
    Ok(())
}
