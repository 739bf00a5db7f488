//! The flat layout pipeline, with optional pins (used by the compound layout to
//! keep a group's border ports on a rank of their own at the top or bottom).

use crate::{Cancel, Cancelled, Graph, Layout, Options, order, position, rank, route};

pub(crate) const PIN_NONE: u8 = 0;
/// A source kept on a rank of its own above everything else.
pub(crate) const PIN_TOP: u8 = 1;
/// A sink kept on a rank of its own below everything else.
pub(crate) const PIN_BOTTOM: u8 = 2;

fn clean(x: f32, default: f32) -> f32 {
    if x.is_finite() { x.max(0.0) } else { default }
}

/// Options with non-finite or negative lengths replaced.
pub(crate) fn sanitize(o: &Options) -> Options {
    let d = Options::default();
    Options {
        node_sep: clean(o.node_sep, d.node_sep),
        rank_sep: clean(o.rank_sep, d.rank_sep),
        stub_min_consumers: o.stub_min_consumers,
        stub_min_span: o.stub_min_span,
        margin: clean(o.margin, d.margin),
    }
}

/// Lays out `g`; `pins[v]` (if present) is one of the `PIN_*` values, and
/// `stub[e]` (if present) makes edge `e` a stub whatever its source's fan-out
/// (the compound layout uses it for values shared widely across groups).
pub(crate) fn layout_pinned(
    g: &Graph,
    opts: &Options,
    pins: &[u8],
    stub: &[bool],
    cc: &mut Cancel,
) -> Result<Layout, Cancelled> {
    let o = sanitize(opts);
    cc.check()?;
    let widths: Vec<f32> = g.nodes.iter().map(|b| clean(b.width, 0.0)).collect();
    let heights: Vec<f32> = g.nodes.iter().map(|b| clean(b.height, 0.0)).collect();
    let r = rank::rank(g, &o, pins, stub, cc)?;
    cc.check()?;
    let mut v = order::build(g, &o, &r, &widths, cc)?;
    cc.check()?;
    let crossings = order::reduce(&mut v, cc)?;
    cc.check()?;
    let x = position::assign(&v, &o, cc)?;
    cc.check()?;
    Ok(route::build(g, &o, &r, &v, &x, &heights, crossings))
}
