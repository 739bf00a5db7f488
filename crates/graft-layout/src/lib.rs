//! Layered (Sugiyama-style) layout for nested graphs.
//!
//! The crate knows boxes, ports and edges, not ONNX. It is written for large
//! machine-learning graphs (tens of thousands of nodes) and runs in a browser as
//! wasm: everything works on flat integer arrays (CSR adjacency, no per-node heap
//! objects, no hashing in hot loops), no phase recurses (a 10,000-deep chain lays
//! out on a 1 MiB stack), the result is deterministic, and a long layout can be
//! cancelled between phases and inside long loops.
//!
//! # Flat layout ([`layout`])
//! 1. **Edges**: out-of-range edges are ignored, self loops are
//!    drawn as small loops, parallel edges share one layout edge.
//! 2. **Cycle breaking**: an iterative depth-first search reverses back edges; the
//!    route of a reversed edge still runs from its source to its target.
//! 3. **Ranking**: longest path from the sources, then a *pull-down* pass (reverse
//!    topological order) moves every node to just above its first consumer, and a
//!    *pull-up* pass moves back a node whose inputs outnumber its outputs. Side
//!    chains (constants, shape computations) end up next to their consumer instead
//!    of at the top with long dummy chains.
//! 4. **Stubs**: an edge whose source feeds at least `stub_min_consumers` nodes, or
//!    that spans more than `stub_min_span` ranks, is drawn as a pair of short stubs
//!    ([`Route::Stub`]) and leaves the later phases alone.
//! 5. **Dummies**: the remaining long edges become chains of dummy nodes.
//! 6. **Crossing reduction**: barycenter sweeps down and up with a
//!    Barth–Jünger–Mutzel accumulator-tree crossing count; the best order wins.
//! 7. **Coordinates**: Brandes–Köpf, four alignments balanced, then a
//!    straightening pass (a vertical spine per component, and per-rank weighted
//!    isotonic regression towards vertical edges) that removes the sideways drift
//!    block compaction shows on long repetitive graphs. Ranks get the height of
//!    their tallest node.
//! 8. **Routes**: cubic Bézier splines through the dummies, with
//!    endpoints at ports spread along the node's bottom (outputs) and top (inputs).
//!
//! # Compound layout ([`Compound`])
//! A tree of groups, each laid out on its own (its direct children form one flat
//! layout), bottom-up and cached, so expanding one group lays out only that group
//! and its ancestors.
//!
//! [`synth`] builds ONNX-like test graphs; [`text_width`] measures labels.

#![forbid(unsafe_code)]
// Index loops over several parallel flat arrays read better than zipped iterators.
#![allow(clippy::needless_range_loop)]

mod compound;
mod flat;
mod metrics;
mod order;
mod position;
mod rank;
mod route;
pub mod synth;

pub use compound::{Compound, GROUP_HEADER, Tree};
pub use metrics::text_width;

/// The size of one item of a layout unit (a node, or a group's box).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NodeBox {
    pub width: f32,
    pub height: f32,
}

/// A directed edge. `from_port` is the output index on the source's bottom side,
/// `to_port` the input index on the target's top side; ports only set the x of the
/// endpoint (spread evenly over the side) and help ordering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub from_port: u16,
    pub to_port: u16,
}

/// One layout unit: a group's direct children and the edges between them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    pub nodes: Vec<NodeBox>,
    pub edges: Vec<Edge>,
}

/// Layout parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Horizontal gap between two nodes of a rank (dummies get half of it).
    pub node_sep: f32,
    /// Vertical gap between two ranks.
    pub rank_sep: f32,
    /// A node feeding at least this many distinct nodes gets stubs instead of
    /// edges (0 disables the rule).
    pub stub_min_consumers: u32,
    /// An edge spanning more than this many ranks becomes a stub (0 disables).
    pub stub_min_span: u32,
    /// Empty border around the drawing.
    pub margin: f32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            node_sep: 24.0,
            rank_sep: 40.0,
            stub_min_consumers: 8,
            stub_min_span: 24,
            margin: 16.0,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

/// An axis-aligned rectangle; `x`, `y` is the top-left corner.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// How one edge is drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// Smooth curve: a cubic Bézier spline `[p0, c1, c2, p1, c1, c2, p2, ...]`
    /// (1 + 3k points) from the source's output port to the target's input port,
    /// top to bottom. A reversed (cycle) edge runs from the source's top up to the
    /// target's bottom, so its last point is still at the target. Empty for an edge
    /// with an out-of-range endpoint.
    Curve(Vec<Point>),
    /// Widely shared value or very long edge: no dummy chain; drawn as a short
    /// labelled stub below the producer's port (`source_stub`, going down) and one
    /// above the consumer's port (`target_stub`, ending at the port).
    Stub {
        source_stub: [Point; 2],
        target_stub: [Point; 2],
    },
}

/// The result of [`layout`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub width: f32,
    pub height: f32,
    /// One rectangle per input node, same index.
    pub nodes: Vec<Rect>,
    /// One route per input edge, same index as `Graph::edges`.
    pub routes: Vec<Route>,
    pub stats: Stats,
}

/// What the layout did, for diagnostics and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Number of ranks (layers).
    pub ranks: u32,
    /// Dummy nodes created for long edges.
    pub dummies: u32,
    /// Edge crossings between adjacent ranks after crossing reduction.
    pub crossings: u64,
    /// Edges drawn as [`Route::Stub`].
    pub stubs: u32,
}

/// The layout was cancelled by the caller's callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("layout cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// Lays out one flat graph.
///
/// `cancel` is called between phases and every few thousand steps of the long
/// loops; when it returns `true` the layout stops with `Err(Cancelled)`.
pub fn layout(
    g: &Graph,
    opts: &Options,
    cancel: &mut dyn FnMut() -> bool,
) -> Result<Layout, Cancelled> {
    let mut cc = Cancel::new(cancel);
    flat::layout_pinned(g, opts, &[], &[], &mut cc)
}

/// Steps of work between two calls of the cancel callback inside long loops.
const CANCEL_EVERY: u32 = 4096;

/// The caller's cancel callback with a work budget between calls.
pub(crate) struct Cancel<'a> {
    f: &'a mut dyn FnMut() -> bool,
    budget: u32,
}

impl<'a> Cancel<'a> {
    pub(crate) fn new(f: &'a mut dyn FnMut() -> bool) -> Self {
        Cancel {
            f,
            budget: CANCEL_EVERY,
        }
    }

    /// Asks the callback now (between phases).
    pub(crate) fn check(&mut self) -> Result<(), Cancelled> {
        self.budget = CANCEL_EVERY;
        if (self.f)() { Err(Cancelled) } else { Ok(()) }
    }

    /// Counts `work` steps and asks the callback when the budget is used up.
    #[inline]
    pub(crate) fn tick(&mut self, work: u32) -> Result<(), Cancelled> {
        if work >= self.budget {
            self.check()
        } else {
            self.budget -= work;
            Ok(())
        }
    }
}
