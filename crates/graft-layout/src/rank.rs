//! Edge preparation, cycle breaking and ranking.
//!
//! * Edges with an endpoint out of range are dropped, self loops are set aside,
//!   parallel edges collapse into one *pair* (original direction).
//! * An iterative DFS (sources first, node order) marks back edges; reversing them
//!   gives the *layout edges* (deduplicated again, since `a→b` and a reversed
//!   `b→a` coincide). The layout-edge graph is acyclic.
//! * Ranks: longest path from the sources; then a pull-down pass in reverse
//!   topological order puts every node with consumers right above its first
//!   consumer (`min(consumer rank) - 1`), and a pull-up pass in topological order
//!   moves a node back up under its last producer when it has more (non-stub)
//!   inputs than outputs, because there the move shortens more edges than it
//!   lengthens. Finally empty ranks are squeezed out and pinned nodes (used by the
//!   compound layout for group borders) get a rank of their own at the top or
//!   bottom.

use crate::flat::{PIN_BOTTOM, PIN_NONE, PIN_TOP};
use crate::{Cancel, Cancelled, Graph, Options};

/// No index (an edge that is ignored, a layout edge without dummies, ...).
pub(crate) const NONE: u32 = u32::MAX;
/// `edge_pair` value of a self loop.
pub(crate) const SELF_LOOP: u32 = u32::MAX - 1;

/// A stable counting sort of `(key, value)` items into `n` buckets: returns the
/// bucket offsets (`n + 1` entries) and the values grouped by key, in input order
/// within each bucket.
pub(crate) fn csr<I>(n: usize, items: I) -> (Vec<u32>, Vec<u32>)
where
    I: Iterator<Item = (u32, u32)> + Clone,
{
    let mut start = vec![0u32; n + 1];
    let mut total = 0usize;
    for (k, _) in items.clone() {
        start[k as usize + 1] += 1;
        total += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill: Vec<u32> = start[..n].to_vec();
    let mut out = vec![0u32; total];
    for (k, v) in items {
        let f = &mut fill[k as usize];
        out[*f as usize] = v;
        *f += 1;
    }
    (start, out)
}

/// The graph after edge preparation and ranking.
pub(crate) struct Ranked {
    /// Per original edge: its pair, [`NONE`] (ignored) or [`SELF_LOOP`].
    pub edge_pair: Vec<u32>,
    /// Whether the pair runs against its layout edge (a broken cycle).
    pub pair_rev: Vec<bool>,
    /// The layout edge of each pair.
    pub pair_le: Vec<u32>,
    /// Layout edges (acyclic), grouped by `le_from`.
    pub le_from: Vec<u32>,
    pub le_to: Vec<u32>,
    /// Whether every edge of the layout edge is a stub whatever its span (its
    /// source is widely shared, or the caller forced it).
    pub le_wide: Vec<bool>,
    /// The first original edge of each layout edge (its ports order the layout).
    pub le_first_edge: Vec<u32>,
    /// Output / input port count per node (max port index + 1).
    pub n_out: Vec<u32>,
    pub n_in: Vec<u32>,
    pub rank: Vec<u32>,
    pub nranks: u32,
}

pub(crate) fn rank(
    g: &Graph,
    o: &Options,
    pins: &[u8],
    forced_stub: &[bool],
    cc: &mut Cancel,
) -> Result<Ranked, Cancelled> {
    let n = g.nodes.len();
    let m = g.edges.len();
    let mut edge_pair = vec![NONE; m];
    let mut n_out = vec![0u32; n];
    let mut n_in = vec![0u32; n];
    for (i, e) in g.edges.iter().enumerate() {
        let (f, t) = (e.from as usize, e.to as usize);
        if f >= n || t >= n {
            continue;
        }
        n_out[f] = n_out[f].max(e.from_port as u32 + 1);
        n_in[t] = n_in[t].max(e.to_port as u32 + 1);
        if f == t {
            edge_pair[i] = SELF_LOOP;
        }
    }
    let normal = g
        .edges
        .iter()
        .enumerate()
        .filter(|(_, e)| (e.from as usize) < n && (e.to as usize) < n && e.from != e.to)
        .map(|(i, e)| (e.from, i as u32));
    let (ostart, oitems) = csr(n, normal);

    // Pairs: distinct (from, to), grouped by `from` (so `pstart` is their CSR).
    let mut mark = vec![NONE; n];
    let mut mark_id = vec![0u32; n];
    let mut pair_from: Vec<u32> = Vec::with_capacity(oitems.len());
    let mut pair_to: Vec<u32> = Vec::with_capacity(oitems.len());
    let mut pstart: Vec<u32> = Vec::with_capacity(n + 1);
    for u in 0..n {
        pstart.push(pair_from.len() as u32);
        for &e in &oitems[ostart[u] as usize..ostart[u + 1] as usize] {
            let t = g.edges[e as usize].to as usize;
            if mark[t] == u as u32 {
                edge_pair[e as usize] = mark_id[t];
            } else {
                let id = pair_from.len() as u32;
                mark[t] = u as u32;
                mark_id[t] = id;
                pair_from.push(u as u32);
                pair_to.push(t as u32);
                edge_pair[e as usize] = id;
            }
        }
        cc.tick(1)?;
    }
    pstart.push(pair_from.len() as u32);
    let np = pair_from.len();
    drop(oitems);
    drop(ostart);
    cc.check()?;

    // Cycle breaking: iterative DFS, sources first; an edge into a node that is on
    // the DFS stack closes a cycle and gets reversed.
    let mut pair_rev = vec![false; np];
    {
        let mut indeg = vec![0u32; n];
        for &t in &pair_to {
            indeg[t as usize] += 1;
        }
        let mut state = vec![0u8; n];
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for pass in 0..2 {
            for root in 0..n {
                if state[root] != 0 || (pass == 0 && indeg[root] != 0) {
                    continue;
                }
                state[root] = 1;
                stack.push((root as u32, pstart[root]));
                while let Some(top) = stack.last_mut() {
                    let v = top.0 as usize;
                    if top.1 < pstart[v + 1] {
                        let p = top.1 as usize;
                        top.1 += 1;
                        let w = pair_to[p] as usize;
                        match state[w] {
                            0 => {
                                state[w] = 1;
                                stack.push((w as u32, pstart[w]));
                            }
                            1 => pair_rev[p] = true,
                            _ => {}
                        }
                    } else {
                        state[v] = 2;
                        stack.pop();
                    }
                    cc.tick(1)?;
                }
            }
        }
    }
    cc.check()?;

    // Layout edges: oriented pairs, deduplicated, grouped by source.
    let oriented = (0..np).map(|p| {
        let a = if pair_rev[p] {
            pair_to[p]
        } else {
            pair_from[p]
        };
        (a, p as u32)
    });
    let (astart, aitems) = csr(n, oriented);
    mark.fill(NONE);
    let mut pair_le = vec![0u32; np];
    let mut le_from: Vec<u32> = Vec::with_capacity(np);
    let mut le_to: Vec<u32> = Vec::with_capacity(np);
    let mut le_start: Vec<u32> = Vec::with_capacity(n + 1);
    for a in 0..n {
        le_start.push(le_from.len() as u32);
        for &p in &aitems[astart[a] as usize..astart[a + 1] as usize] {
            let p = p as usize;
            let b = if pair_rev[p] {
                pair_from[p]
            } else {
                pair_to[p]
            } as usize;
            if mark[b] == a as u32 {
                pair_le[p] = mark_id[b];
            } else {
                let id = le_from.len() as u32;
                mark[b] = a as u32;
                mark_id[b] = id;
                le_from.push(a as u32);
                le_to.push(b as u32);
                pair_le[p] = id;
            }
        }
    }
    le_start.push(le_from.len() as u32);
    let nle = le_from.len();
    drop(aitems);
    drop(astart);

    // A source with many consumers: its edges will be stubs whatever the ranks.
    let min_consumers = o.stub_min_consumers;
    let wide = |u: usize| min_consumers > 0 && pstart[u + 1] - pstart[u] >= min_consumers;
    let mut le_wide = vec![true; nle];
    for (i, &p) in edge_pair.iter().enumerate() {
        if p < SELF_LOOP {
            let le = pair_le[p as usize] as usize;
            let w = forced_stub.get(i).copied().unwrap_or(false)
                || wide(pair_from[p as usize] as usize);
            le_wide[le] = le_wide[le] && w;
        }
    }
    let mut le_first_edge = vec![NONE; nle];
    for (i, &p) in edge_pair.iter().enumerate() {
        if p < SELF_LOOP {
            let le = pair_le[p as usize] as usize;
            if le_first_edge[le] == NONE {
                le_first_edge[le] = i as u32;
            }
        }
    }

    // In-edges CSR (layout edge ids by target).
    let (in_start, in_le) = csr(n, le_to.iter().enumerate().map(|(i, &t)| (t, i as u32)));
    let out_of = |v: usize| le_start[v] as usize..le_start[v + 1] as usize;
    let in_of = |v: usize| &in_le[in_start[v] as usize..in_start[v + 1] as usize];

    // Pins hold only where they cannot contradict an edge.
    let mut pin = vec![PIN_NONE; n];
    for v in 0..n.min(pins.len()) {
        pin[v] = match pins[v] {
            PIN_TOP if in_start[v] == in_start[v + 1] => PIN_TOP,
            PIN_BOTTOM if le_start[v] == le_start[v + 1] => PIN_BOTTOM,
            _ => PIN_NONE,
        };
    }

    // Topological order (Kahn, FIFO, node order among ready nodes).
    let mut indeg: Vec<u32> = (0..n).map(|v| in_start[v + 1] - in_start[v]).collect();
    let mut topo: Vec<u32> = Vec::with_capacity(n);
    for v in 0..n {
        if indeg[v] == 0 {
            topo.push(v as u32);
        }
    }
    let mut head = 0;
    while head < topo.len() {
        let v = topo[head] as usize;
        head += 1;
        for le in out_of(v) {
            let b = le_to[le] as usize;
            indeg[b] -= 1;
            if indeg[b] == 0 {
                topo.push(b as u32);
            }
        }
        cc.tick(1)?;
    }
    debug_assert_eq!(topo.len(), n, "layout edges must be acyclic");
    drop(indeg);

    // Longest path from the sources.
    let mut rank = vec![0u32; n];
    for &v in &topo {
        let v = v as usize;
        let r = rank[v] + 1;
        for le in out_of(v) {
            let b = le_to[le] as usize;
            if rank[b] < r {
                rank[b] = r;
            }
        }
    }
    cc.check()?;

    // Pull-down: right above the first consumer.
    for &v in topo.iter().rev() {
        let v = v as usize;
        if pin[v] != PIN_NONE {
            continue;
        }
        let mut lo = u32::MAX;
        for le in out_of(v) {
            lo = lo.min(rank[le_to[le] as usize]);
        }
        if lo != u32::MAX && lo - 1 > rank[v] {
            rank[v] = lo - 1;
        }
        cc.tick(1)?;
    }
    // Pull-up: back under the last producer where inputs outnumber outputs.
    for &v in &topo {
        let v = v as usize;
        if pin[v] != PIN_NONE {
            continue;
        }
        let ins = in_of(v);
        if ins.is_empty() {
            continue;
        }
        let mut hi = 0u32;
        let mut cin = 0u32;
        for &le in ins {
            hi = hi.max(rank[le_from[le as usize] as usize] + 1);
            cin += u32::from(!le_wide[le as usize]);
        }
        if hi < rank[v] {
            let cout = out_of(v).filter(|&le| !le_wide[le]).count() as u32;
            if cin > cout {
                rank[v] = hi;
            }
        }
        cc.tick(1)?;
    }

    // Squeeze out ranks without free nodes; pinned nodes get their own ranks.
    let maxr = (0..n)
        .filter(|&v| pin[v] == PIN_NONE)
        .map(|v| rank[v])
        .max();
    let has_top = pin.contains(&PIN_TOP) as u32;
    let mut used_ranks = 0u32;
    if let Some(maxr) = maxr {
        let mut map = vec![NONE; maxr as usize + 1];
        for v in 0..n {
            if pin[v] == PIN_NONE {
                map[rank[v] as usize] = 0;
            }
        }
        for slot in map.iter_mut() {
            if *slot == 0 {
                *slot = used_ranks;
                used_ranks += 1;
            }
        }
        for v in 0..n {
            if pin[v] == PIN_NONE {
                rank[v] = map[rank[v] as usize] + has_top;
            }
        }
    }
    let has_bottom = pin.contains(&PIN_BOTTOM) as u32;
    for v in 0..n {
        match pin[v] {
            PIN_TOP => rank[v] = 0,
            PIN_BOTTOM => rank[v] = used_ranks + has_top,
            _ => {}
        }
    }
    let nranks = if n == 0 {
        0
    } else {
        used_ranks + has_top + has_bottom
    };

    Ok(Ranked {
        edge_pair,
        pair_rev,
        pair_le,
        le_from,
        le_to,
        le_wide,
        le_first_edge,
        n_out,
        n_in,
        rank,
        nranks,
    })
}
