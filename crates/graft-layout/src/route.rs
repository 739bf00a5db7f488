//! Final geometry: rank heights and y, node rectangles, edge routes.
//!
//! A rank is as tall as its tallest node; nodes are centred on it. A route is a
//! polyline from the source's port (bottom side, ports spread evenly) through each
//! dummy (entering and leaving its rank vertically, so it clears the rank's nodes)
//! to the target's port (top side), turned into a cubic Bézier spline whose control
//! points make every joint vertical (so the spline is smooth).

use crate::order::Virt;
use crate::rank::{NONE, Ranked, SELF_LOOP};
use crate::{Graph, Layout, Options, Point, Rect, Route, Stats};

/// Length of a stub.
pub(crate) fn stub_len(o: &Options) -> f32 {
    (o.rank_sep * 0.5).clamp(4.0, 16.0)
}

/// A stub pair from a producer's port down and into a consumer's port.
pub(crate) fn stub(o: &Options, from: Point, to: Point) -> Route {
    let l = stub_len(o);
    Route::Stub {
        source_stub: [
            from,
            Point {
                x: from.x,
                y: from.y + l,
            },
        ],
        target_stub: [
            Point {
                x: to.x,
                y: to.y - l,
            },
            to,
        ],
    }
}

/// Appends the spline segment from the last point of `out` to `q`, with vertical
/// tangents at both ends.
pub(crate) fn curve_to(out: &mut Vec<Point>, q: Point) {
    let Some(&p) = out.last() else {
        // No start point: the curve begins at `q`.
        out.push(q);
        return;
    };
    let dy = (q.y - p.y) * 0.5;
    out.push(Point {
        x: p.x,
        y: p.y + dy,
    });
    out.push(Point {
        x: q.x,
        y: q.y - dy,
    });
    out.push(q);
}

/// The x of port `port` of `count` spread along a side of `r`.
fn port_x(r: &Rect, port: u16, count: u32) -> f32 {
    let c = count.max(1) as f32;
    r.x + r.w * ((port as f32).min(c - 1.0) + 0.5) / c
}

pub(crate) fn bottom_port(r: &Rect, port: u16, count: u32) -> Point {
    Point {
        x: port_x(r, port, count),
        y: r.y + r.h,
    }
}

pub(crate) fn top_port(r: &Rect, port: u16, count: u32) -> Point {
    Point {
        x: port_x(r, port, count),
        y: r.y,
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    g: &Graph,
    o: &Options,
    r: &Ranked,
    v: &Virt,
    x: &[f32],
    heights: &[f32],
    crossings: u64,
) -> Layout {
    let n = g.nodes.len();
    let nr = v.nranks;
    let mut rank_h = vec![0.0f32; nr];
    for i in 0..n {
        let k = v.vrank[i] as usize;
        rank_h[k] = rank_h[k].max(heights[i]);
    }
    let mut top = vec![0.0f32; nr];
    let mut y = o.margin;
    for k in 0..nr {
        top[k] = y;
        y += rank_h[k] + o.rank_sep;
    }
    let height = if nr > 0 {
        top[nr - 1] + rank_h[nr - 1] + o.margin
    } else {
        2.0 * o.margin
    };
    let mut left = f32::INFINITY;
    let mut right = f32::NEG_INFINITY;
    for i in 0..v.nv {
        left = left.min(x[i] - v.width[i] * 0.5);
        right = right.max(x[i] + v.width[i] * 0.5);
    }
    let (shift, width) = if v.nv > 0 {
        (o.margin - left, right - left + 2.0 * o.margin)
    } else {
        (0.0, 2.0 * o.margin)
    };

    let nodes: Vec<Rect> = (0..n)
        .map(|i| {
            let k = v.vrank[i] as usize;
            Rect {
                x: x[i] + shift - v.width[i] * 0.5,
                y: top[k] + (rank_h[k] - heights[i]) * 0.5,
                w: v.width[i],
                h: heights[i],
            }
        })
        .collect();

    let mut stubs = 0u32;
    let mut pts: Vec<Point> = Vec::new();
    let routes: Vec<Route> = g
        .edges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let p = r.edge_pair[i];
            if p == NONE {
                return Route::Curve(Vec::new());
            }
            let (f, t) = (e.from as usize, e.to as usize);
            let start = bottom_port(&nodes[f], e.from_port, r.n_out[f]);
            let end = top_port(&nodes[t], e.to_port, r.n_in[t]);
            if p == SELF_LOOP {
                return self_loop(o, &nodes[f], start, end);
            }
            let le = r.pair_le[p as usize] as usize;
            if v.le_stub[le] {
                stubs += 1;
                return stub(o, start, end);
            }
            let rev = r.pair_rev[p as usize];
            // In layout direction: from the upper node's bottom to the lower's top.
            let (a, b) = if rev {
                (
                    bottom_port(&nodes[t], e.to_port, r.n_in[t]),
                    top_port(&nodes[f], e.from_port, r.n_out[f]),
                )
            } else {
                (start, end)
            };
            pts.clear();
            pts.push(a);
            let first = v.le_dummy[le];
            if first != NONE {
                let count = r.rank[r.le_to[le] as usize] - r.rank[r.le_from[le] as usize] - 1;
                for d in first..first + count {
                    let d = d as usize;
                    let k = v.vrank[d] as usize;
                    let dx = x[d] + shift;
                    pts.push(Point { x: dx, y: top[k] });
                    if rank_h[k] > 0.0 {
                        pts.push(Point {
                            x: dx,
                            y: top[k] + rank_h[k],
                        });
                    }
                }
            }
            pts.push(b);
            let mut out = Vec::with_capacity(1 + 3 * (pts.len() - 1));
            out.push(pts[0]);
            for &q in &pts[1..] {
                curve_to(&mut out, q);
            }
            if rev {
                out.reverse();
            }
            Route::Curve(out)
        })
        .collect();

    Layout {
        width,
        height,
        nodes,
        routes,
        stats: Stats {
            ranks: nr as u32,
            dummies: v.dummies(),
            crossings,
            stubs,
        },
    }
}

/// A small loop around the right side of the node, from its output port down,
/// around and into its input port from above.
fn self_loop(o: &Options, r: &Rect, start: Point, end: Point) -> Route {
    let d = (o.rank_sep * 0.4).clamp(6.0, 20.0);
    let side = r.x + r.w + (o.node_sep * 0.5).clamp(6.0, 20.0);
    Route::Curve(vec![
        start,
        Point {
            x: start.x,
            y: start.y + d,
        },
        Point {
            x: side,
            y: start.y + d,
        },
        Point {
            x: side,
            y: r.y + r.h * 0.5,
        },
        Point {
            x: side,
            y: end.y - d,
        },
        Point {
            x: end.x,
            y: end.y - d,
        },
        end,
    ])
}
