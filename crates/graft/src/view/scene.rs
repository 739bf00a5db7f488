//! The laid-out picture: absolute boxes and edge routes of everything visible.
//!
//! Each expanded group is laid out on its own (its direct children, by
//! `graft_layout::layout`), bottom-up, and the result is cached. Expanding or
//! collapsing a group drops only the cached layouts of its ancestors (their child
//! changed size); siblings and cousins keep theirs, so nothing else moves relative to
//! its group.

use std::sync::Arc;

use graft_layout::{Edge, Graph, Layout, NodeBox, Options, Point, Rect, Route, text_width};

use super::{Item, ItemId, ItemKind, View};
use crate::hash::FxMap;
use crate::ir::{Model, ValueId};

/// Font sizes (px) the boxes are measured for; the drawing uses the same.
pub const TITLE_PX: f32 = 12.0;
pub const TEXT_PX: f32 = 10.0;
/// Height of one text line inside a box.
pub const LINE: f32 = 14.0;
/// Padding around a group's contents and height of its header.
pub const PAD: f32 = 12.0;
pub const HEADER: f32 = 26.0;
/// At most this many attribute / weight lines are drawn in a node box.
pub const MAX_LINES: usize = 4;

/// One visible item with its absolute box.
#[derive(Clone, Debug)]
pub struct Placed {
    pub item: ItemId,
    pub rect: Rect,
    /// Nesting depth below the root (the root's children are 1).
    pub depth: u32,
}

/// One visible edge with its absolute route.
#[derive(Clone, Debug)]
pub struct PlacedEdge {
    pub value: ValueId,
    pub from: ItemId,
    pub to: ItemId,
    pub route: Route,
}

/// Where a [`Scene::layout_some`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Everything is laid out and placed.
    Done,
    /// Paused with this many group layouts still to do.
    Pending { remaining: usize },
}

/// A scene's expansion state and layouts, see [`Scene::snapshot`].
#[derive(Clone, Debug)]
pub struct Snapshot {
    expanded: Vec<bool>,
    cache: FxMap<ItemId, Arc<Inner>>,
}

/// The inner layout of one expanded group, relative to its content origin.
#[derive(Debug)]
struct Inner {
    children: Vec<ItemId>,
    edges: Vec<(usize, usize, ValueId)>,
    layout: Layout,
}

#[derive(Debug)]
pub struct Scene {
    pub view: View,
    pub options: Options,
    cache: FxMap<ItemId, Arc<Inner>>,
    pub placed: Vec<Placed>,
    pub edges: Vec<PlacedEdge>,
    /// Index into `placed` by item.
    index: FxMap<ItemId, usize>,
    pub width: f32,
    pub height: f32,
    /// How many group layouts the last [`Scene::layout`] computed (the rest came
    /// from the cache).
    pub last_layouts: u32,
}

impl Scene {
    pub fn new(view: View) -> Scene {
        Scene {
            view,
            options: Options::default(),
            cache: FxMap::default(),
            placed: Vec::new(),
            edges: Vec::new(),
            index: FxMap::default(),
            width: 0.0,
            height: 0.0,
            last_layouts: 0,
        }
    }

    /// Expands or collapses `item` and drops the cached layouts it invalidates. Call
    /// [`Scene::layout`] afterwards.
    pub fn set_expanded(&mut self, model: &Model, item: ItemId, expanded: bool) -> bool {
        let changed = self.view.set_expanded(model, item, expanded);
        if changed {
            self.invalidate_ancestors(item);
        }
        changed
    }

    pub fn toggle(&mut self, model: &Model, item: ItemId) -> bool {
        let expanded = self.view.item(item).is_some_and(|i| i.expanded);
        self.set_expanded(model, item, !expanded)
    }

    /// Expands what is needed for `item` to be visible.
    pub fn reveal(&mut self, model: &Model, item: ItemId) -> bool {
        let mut current = self.view.item(item).and_then(|i| i.parent);
        let mut changed = false;
        while let Some(p) = current {
            changed |= self.set_expanded(model, p, true);
            current = self.view.item(p).and_then(|i| i.parent);
        }
        changed
    }

    /// Opens the groups that are open in `old`, a view of the model before an edit
    /// (see [`View::follow`]), and drops the cached layouts that changes. Returns which
    /// item became which. Call [`Scene::layout`] afterwards.
    pub fn follow(&mut self, model: &Model, old: &View, by_name: bool) -> FxMap<ItemId, ItemId> {
        let followed = self.view.follow(model, old, by_name);
        for &item in &followed.changed {
            self.invalidate_ancestors(item);
        }
        followed.items
    }

    /// Expands every group to `depth` levels (see [`View::expand_to_depth`]) and drops
    /// every cached layout that changed.
    pub fn expand_to_depth(&mut self, model: &Model, depth: usize, limit: usize) {
        self.view.expand_to_depth(model, depth, limit);
        // Groups that were expanded keep their cache only if their children did not
        // change size; simplest correct rule: recompute all ancestors of expanded
        // groups, which `layout` does for anything not cached.
        self.cache.clear();
    }

    /// Opens one more level: every drawn group that is collapsed is expanded. Returns
    /// how many were.
    pub fn expand_one_level(&mut self, model: &Model) -> usize {
        let closed: Vec<ItemId> = self
            .placed
            .iter()
            .map(|p| p.item)
            .filter(|&id| {
                self.view
                    .item(id)
                    .is_some_and(|i| i.is_group && !i.expanded)
            })
            .collect();
        for &id in &closed {
            self.set_expanded(model, id, true);
        }
        closed.len()
    }

    /// Closes the deepest open level: every expanded group with no expanded group
    /// inside it is collapsed (the root stays open). Returns how many were.
    pub fn collapse_one_level(&mut self, model: &Model) -> usize {
        let open: Vec<ItemId> = self
            .placed
            .iter()
            .map(|p| p.item)
            .filter(|&id| {
                let Some(item) = self.view.item(id) else {
                    return false;
                };
                item.is_group
                    && item.expanded
                    && !matches!(item.kind, ItemKind::Subgraph { .. })
                    && !item.children.as_deref().unwrap_or(&[]).iter().any(|&c| {
                        self.view.item(c).is_some_and(|ci| {
                            ci.expanded && !matches!(ci.kind, ItemKind::Subgraph { .. })
                        })
                    })
            })
            .collect();
        for &id in &open {
            self.set_expanded(model, id, false);
        }
        open.len()
    }

    /// Collapses every group except the root. The branches of a control-flow node
    /// stay open inside it, so expanding an If again shows both branches.
    pub fn collapse_all(&mut self) {
        for item in self.view.items.iter_mut().skip(1) {
            if !matches!(item.kind, ItemKind::Subgraph { .. }) {
                item.expanded = false;
            }
        }
        // Every group that held an open group is now laid out with it closed, and
        // only the root is drawn: nothing cached still holds (a group opened again
        // later is laid out then, with its groups closed).
        self.cache.clear();
    }

    /// After an edit that only set or removed attributes of `nodes`: rewrites their
    /// boxes in place ([`View::refresh_nodes`]) and drops the cached layouts of the
    /// groups holding them. Returns `false` when the view must be built again instead.
    /// Call [`Scene::layout`] afterwards.
    pub fn refresh_nodes(&mut self, model: &Model, nodes: &[crate::ir::NodeId]) -> bool {
        let Some(items) = self.view.refresh_nodes(model, nodes) else {
            return false;
        };
        for item in items {
            self.invalidate_ancestors(item);
        }
        true
    }

    fn invalidate_ancestors(&mut self, item: ItemId) {
        let mut current = self.view.item(item).and_then(|i| i.parent);
        while let Some(p) = current {
            self.cache.remove(&p);
            current = self.view.item(p).and_then(|i| i.parent);
        }
    }

    /// Lays out every visible expanded group that is not cached, then places
    /// everything absolutely. Cancellable between group layouts and inside them.
    pub fn layout(
        &mut self,
        model: &Model,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<(), graft_layout::Cancelled> {
        self.last_layouts = 0;
        loop {
            if let Progress::Done = self.layout_some(model, &mut || false, cancel)? {
                return Ok(());
            }
        }
    }

    /// Like [`Scene::layout`], but stops between two group layouts when `pause`
    /// says so and reports how many groups remain; call again to go on (what is done
    /// stays cached). The app uses it to keep the page responsive during expand-all.
    /// Items are placed only when everything is laid out: until then the previous
    /// placement stays drawable.
    pub fn layout_some(
        &mut self,
        model: &Model,
        pause: &mut dyn FnMut() -> bool,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<Progress, graft_layout::Cancelled> {
        // Expanded groups in post-order (children before parents), iteratively.
        let mut order = Vec::new();
        let mut stack = vec![(self.view.root(), false)];
        while let Some((id, done)) = stack.pop() {
            if done {
                if !self.cache.contains_key(&id) {
                    order.push(id);
                }
                continue;
            }
            let open = self.view.item(id).is_some_and(|i| i.is_group && i.expanded);
            if !open {
                continue;
            }
            stack.push((id, true));
            let children = self.view.children(model, id).to_vec();
            stack.extend(children.into_iter().map(|c| (c, false)));
        }
        for (k, &id) in order.iter().enumerate() {
            if cancel() {
                return Err(graft_layout::Cancelled);
            }
            if k > 0 && pause() {
                return Ok(Progress::Pending {
                    remaining: order.len() - k,
                });
            }
            let inner = self.layout_group(model, id, cancel)?;
            self.cache.insert(id, Arc::new(inner));
            self.last_layouts += 1;
        }
        self.place();
        Ok(Progress::Done)
    }

    /// The expansion state and cached layouts, to return to with
    /// [`Scene::restore`] (e.g. when an expand-all is cancelled). Cheap: layouts are
    /// shared, not copied.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            expanded: self.view.items.iter().map(|i| i.expanded).collect(),
            cache: self.cache.clone(),
        }
    }

    /// Returns to a [`Scene::snapshot`] taken of this scene: groups expanded since
    /// are collapsed again and the earlier placement comes back.
    pub fn restore(&mut self, snapshot: Snapshot) {
        for (k, item) in self.view.items.iter_mut().enumerate() {
            item.expanded = snapshot.expanded.get(k).copied().unwrap_or(false);
        }
        self.cache = snapshot.cache;
        self.place();
    }

    fn layout_group(
        &mut self,
        model: &Model,
        id: ItemId,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<Inner, graft_layout::Cancelled> {
        let children = self.view.children(model, id).to_vec();
        let mut producer: FxMap<ValueId, usize> = FxMap::default();
        for (k, &c) in children.iter().enumerate() {
            if let Some(item) = self.view.item(c) {
                for &v in &item.produces {
                    producer.entry(v).or_insert(k);
                }
            }
        }
        let mut nodes = Vec::with_capacity(children.len());
        let mut edges = Vec::new();
        let mut value_edges = Vec::new();
        for (k, &c) in children.iter().enumerate() {
            let Some(item) = self.view.item(c) else {
                nodes.push(NodeBox {
                    width: 1.0,
                    height: 1.0,
                });
                continue;
            };
            let (width, height) = self.size(c, item);
            nodes.push(NodeBox { width, height });
            for (to_port, &v) in item.consumes.iter().enumerate() {
                if let Some(&from) = producer.get(&v)
                    && from != k
                {
                    let from_port = self
                        .view
                        .item(children[from])
                        .and_then(|p| p.produces.iter().position(|&x| x == v))
                        .unwrap_or(0);
                    edges.push(Edge {
                        from: from as u32,
                        to: k as u32,
                        from_port: port(from_port),
                        to_port: port(to_port),
                    });
                    value_edges.push((from, k, v));
                }
            }
        }
        let layout = graft_layout::layout(&Graph { nodes, edges }, &self.options, cancel)?;
        Ok(Inner {
            children,
            edges: value_edges,
            layout,
        })
    }

    /// The box size of an item: its inner layout plus frame when expanded, else
    /// what its text needs.
    fn size(&self, id: ItemId, item: &Item) -> (f32, f32) {
        if item.is_group
            && item.expanded
            && let Some(inner) = self.cache.get(&id)
        {
            return (
                (inner.layout.width + 2.0 * PAD).max(text_width(&item.title, TITLE_PX) + 60.0),
                inner.layout.height + HEADER + PAD,
            );
        }
        box_size(item)
    }

    fn place(&mut self) {
        self.placed.clear();
        self.edges.clear();
        self.index.clear();
        let root = self.view.root();
        let Some(inner) = self.cache.get(&root) else {
            self.width = 0.0;
            self.height = 0.0;
            return;
        };
        self.width = inner.layout.width;
        self.height = inner.layout.height;
        // (group, absolute content origin, depth of its children)
        let mut stack = vec![(root, Point { x: 0.0, y: 0.0 }, 1u32)];
        while let Some((group, origin, depth)) = stack.pop() {
            let Some(inner) = self.cache.get(&group) else {
                continue;
            };
            for (k, &child) in inner.children.iter().enumerate() {
                let Some(r) = inner.layout.nodes.get(k) else {
                    continue;
                };
                let rect = Rect {
                    x: r.x + origin.x,
                    y: r.y + origin.y,
                    w: r.w,
                    h: r.h,
                };
                self.index.insert(child, self.placed.len());
                self.placed.push(Placed {
                    item: child,
                    rect,
                    depth,
                });
                if self.cache.contains_key(&child)
                    && self.view.item(child).is_some_and(|i| i.expanded)
                {
                    let inner_origin = Point {
                        x: rect.x + PAD,
                        y: rect.y + HEADER,
                    };
                    stack.push((child, inner_origin, depth + 1));
                }
            }
            for (e, &(from, to, value)) in inner.edges.iter().enumerate() {
                let Some(route) = inner.layout.routes.get(e) else {
                    continue;
                };
                self.edges.push(PlacedEdge {
                    value,
                    from: inner.children[from],
                    to: inner.children[to],
                    route: shift(route, origin),
                });
            }
        }
    }

    /// The absolute box of a visible item.
    pub fn rect(&self, item: ItemId) -> Option<Rect> {
        self.index
            .get(&item)
            .and_then(|&i| self.placed.get(i))
            .map(|p| p.rect)
    }

    /// Visible items intersecting `view` (absolute coordinates).
    pub fn items_in(&self, view: Rect) -> impl Iterator<Item = &Placed> {
        self.placed.iter().filter(move |p| intersects(p.rect, view))
    }

    /// Visible edges with a point inside `view`, or crossing it.
    pub fn edges_in(&self, view: Rect) -> impl Iterator<Item = &PlacedEdge> {
        self.edges
            .iter()
            .filter(move |e| intersects(route_bounds(&e.route), view))
    }

    /// The kind of the item, for callers that only hold an id.
    pub fn kind(&self, item: ItemId) -> Option<&ItemKind> {
        self.view.item(item).map(|i| &i.kind)
    }
}

fn port(k: usize) -> u16 {
    u16::try_from(k).unwrap_or(u16::MAX)
}

/// What a collapsed item's text needs.
pub fn box_size(item: &Item) -> (f32, f32) {
    match item.kind {
        // Titles are drawn bold: about a tenth wider than the regular metrics.
        ItemKind::In { .. } | ItemKind::Out { .. } => (
            (text_width(&item.title, TITLE_PX) * 1.1 + 16.0).clamp(40.0, 480.0),
            20.0,
        ),
        _ => {
            let mut w = text_width(&item.title, TITLE_PX) * 1.1 + 20.0;
            let mut h = 22.0;
            if item.is_group {
                w += 18.0; // the expand marker
            }
            if !item.subtitle.is_empty() {
                w = w.max(text_width(&item.subtitle, TEXT_PX) + 16.0);
                h += LINE;
            }
            if let Some(b) = &item.badge {
                w = w.max(text_width(b, TEXT_PX) + 16.0);
                h += LINE;
            }
            let lines = item
                .attrs
                .iter()
                .map(|a| text_width(&a.name, TEXT_PX) + text_width(&a.value, TEXT_PX) + 24.0)
                .chain(item.weights.iter().map(|t| text_width(t, TEXT_PX) + 16.0))
                .take(MAX_LINES);
            for lw in lines {
                w = w.max(lw);
                h += LINE;
            }
            (w.clamp(56.0, 480.0), h + 4.0)
        }
    }
}

fn intersects(a: Rect, b: Rect) -> bool {
    a.x <= b.x + b.w && b.x <= a.x + a.w && a.y <= b.y + b.h && b.y <= a.y + a.h
}

fn route_bounds(route: &Route) -> Rect {
    let points: Vec<Point> = match route {
        Route::Curve(p) => p.clone(),
        Route::Stub {
            source_stub,
            target_stub,
        } => source_stub.iter().chain(target_stub).copied().collect(),
    };
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for p in &points {
        x0 = x0.min(p.x);
        y0 = y0.min(p.y);
        x1 = x1.max(p.x);
        y1 = y1.max(p.y);
    }
    if points.is_empty() {
        return Rect {
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0,
        };
    }
    Rect {
        x: x0,
        y: y0,
        w: x1 - x0,
        h: y1 - y0,
    }
}

fn shift(route: &Route, by: Point) -> Route {
    let m = |p: &Point| Point {
        x: p.x + by.x,
        y: p.y + by.y,
    };
    match route {
        Route::Curve(points) => Route::Curve(points.iter().map(m).collect()),
        Route::Stub {
            source_stub,
            target_stub,
        } => Route::Stub {
            source_stub: [m(&source_stub[0]), m(&source_stub[1])],
            target_stub: [m(&target_stub[0]), m(&target_stub[1])],
        },
    }
}
