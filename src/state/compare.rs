//! Comparing the open model with another: the model as opened, an earlier step of its
//! history, or a file. The diff (`graft::diff`, the open model as B) colours the
//! canvas (added, changed, inlined nodes; groups with changes inside) and lists every
//! change; a listed change jumps to its node, opening the groups it sits in. After an
//! edit, undo or redo the diff is made again against the same other model.

use graft::diff::{At, Diff, NodeChange};
use graft::ir::{FunctionId, GraphOwner};

use super::*;

/// The other model and what the diff found.
#[derive(Debug)]
pub(super) struct Comparison {
    pub(super) label: String,
    pub(super) other: Model,
    /// The open model's serial the diff was made against.
    serial: u64,
    marks: FxMap<NodeId, &'static str>,
    /// Changes inside each node's subgraphs, at any depth.
    inside_nodes: FxMap<NodeId, usize>,
    /// Changes in each function's body: its calls are marked.
    inside_functions: FxMap<FunctionId, usize>,
    rows: Vec<ChangeRow>,
    same: bool,
    counts: graft::diff::Counts,
    /// The other model's nodes as the diff sees them: removed, changed, inlined.
    marks_other: FxMap<NodeId, &'static str>,
    /// Matched nodes: the open model's to the other's, and back.
    pub(super) to_other: FxMap<NodeId, NodeId>,
    from_other: FxMap<NodeId, NodeId>,
    /// The other model drawn beside the open one (side by side), when asked for.
    scene: Option<Scene>,
}

/// One listed change.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChangeRow {
    /// `+` added, `-` removed, `~` changed, `=` renamed, `>` inlined, `<` outlined.
    #[serde(deserialize_with = "graft::interned::deserialize")]
    pub sign: graft::interned::Static,
    pub text: String,
    /// The graph it is in.
    pub path: String,
    jump: Jump,
}

impl ChangeRow {
    pub fn jumps(&self) -> bool {
        self.jump != Jump::Nowhere
    }
}

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Jump {
    Node(NodeId),
    /// A change in a function body no call shows: to a call of it.
    Call(FunctionId),
    Nowhere,
}

/// What the compare panel shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CompareView {
    pub label: String,
    pub same: bool,
    pub summary: String,
    pub rows: Vec<ChangeRow>,
}

impl Comparison {
    fn new(label: String, other: Model, open: &OpenModel) -> Self {
        let b = open.doc.model();
        let d = graft::diff::diff(&other, b);
        let mut c = Comparison {
            label,
            serial: open.serial(),
            marks: FxMap::default(),
            inside_nodes: FxMap::default(),
            inside_functions: FxMap::default(),
            rows: Vec::new(),
            same: d.same_up_to_names(),
            counts: d.counts(),
            other: Model::default(),
            marks_other: FxMap::default(),
            to_other: FxMap::default(),
            from_other: FxMap::default(),
            scene: None,
        };
        c.read(&d, &other, b);
        c.other = other;
        c
    }

    fn read(&mut self, d: &Diff, a: &Model, b: &Model) {
        for line in d.lines(a, b) {
            let graph = line.graph.map(|k| d.graphs[k].b);
            // A change no node of B shows goes to its graph's owner.
            let owner = || match graph.map(|g| b.graph(g).owner) {
                Some(GraphOwner::Node(n)) => Jump::Node(n),
                Some(GraphOwner::Function(f)) => Jump::Call(f),
                _ => Jump::Nowhere,
            };
            let jump = match line.at {
                At::NodeB(n) => Jump::Node(n),
                At::FunctionB(f) => Jump::Call(f),
                At::Graph => owner(),
                At::Model => Jump::Nowhere,
            };
            self.rows.push(ChangeRow {
                sign: line.sign,
                text: line.text,
                path: graph
                    .map(|g| graft::diag::Location::graph(g).describe(b))
                    .unwrap_or_default(),
                jump,
            });
        }
        for g in &d.graphs {
            for &(na, nb) in &g.pairs {
                self.to_other.insert(nb, na);
                self.from_other.insert(na, nb);
            }
        }
        for g in d.changed_graphs() {
            // Marks on both sides: the open model's (B) and the other's (A).
            for n in &g.nodes {
                match n {
                    NodeChange::Added(nb) => {
                        self.marks.insert(*nb, "g-added");
                    }
                    NodeChange::Removed(na) => {
                        self.marks_other.insert(*na, "g-removed");
                    }
                    NodeChange::Changed {
                        a: na,
                        b: nb,
                        fields,
                        ..
                    } if !fields.is_empty() => {
                        self.marks.insert(*nb, "g-changed");
                        self.marks_other.insert(*na, "g-changed");
                    }
                    NodeChange::Changed { .. } => {}
                    NodeChange::Inlined { call, nodes } | NodeChange::Outlined { nodes, call } => {
                        let (call_side, nodes_side) = if matches!(n, NodeChange::Inlined { .. }) {
                            (&mut self.marks_other, &mut self.marks)
                        } else {
                            (&mut self.marks, &mut self.marks_other)
                        };
                        call_side.insert(*call, "g-inlined");
                        for &x in nodes {
                            nodes_side.insert(x, "g-inlined");
                        }
                    }
                }
            }
            // Groups holding a change: the owners up the scope chain, and every call
            // of a function whose body changed.
            let count = g.nodes.len() + g.values.len() + g.fields.len();
            let mut current = g.b;
            loop {
                match b.graph(current).owner {
                    GraphOwner::Node(n) => {
                        *self.inside_nodes.entry(n).or_default() += count;
                        current = b.node(n).graph;
                    }
                    GraphOwner::Function(f) => {
                        *self.inside_functions.entry(f).or_default() += count;
                        break;
                    }
                    _ => break,
                }
            }
        }
    }

    fn mark(&self, item: &graft::view::Item) -> Option<svg::Mark> {
        let ItemKind::Node { node, callee } = &item.kind else {
            return None;
        };
        let inside = self.inside_nodes.get(node).copied().unwrap_or(0)
            + callee
                .and_then(|f| self.inside_functions.get(&f).copied())
                .unwrap_or(0);
        let class = self
            .marks
            .get(node)
            .copied()
            .or((inside > 0).then_some("g-inside"))?;
        Some(svg::Mark {
            class,
            note: (inside > 0).then(|| format!("{inside} changed inside")),
        })
    }
}

impl Session {
    /// Compares the open model with the one it was `step` edits in (0: as opened).
    pub fn compare_with_step(&mut self, step: usize) -> bool {
        if self.draft.is_some() || self.work.is_some() {
            return false;
        }
        let Some(open) = self.open.as_mut() else {
            return false;
        };
        let from = open.serial();
        let other = match open.doc.model_at(step) {
            Ok(other) => other,
            Err(e) => {
                // Never seen (redo is exact): the model is shown as it stands.
                self.error = Some(format!("Compare: {e}"));
                self.show_edited(from, &Touched::whole(), None);
                return false;
            }
        };
        let label = if step == 0 {
            "the model as opened".to_string()
        } else {
            format!("step {step} of the history")
        };
        self.compare = Some(Comparison::new(label, other, open));
        true
    }

    /// Compares the open model with the model among `files` (a chosen file: read as
    /// it is decoded, its weights left in it, as when it is opened).
    pub fn compare_with_files(&mut self, files: ModelFile) -> Result<(), String> {
        let (name, other, _) = files.load(Vec::new())?;
        let open = self
            .open
            .as_ref()
            .ok_or("Open a model to compare with first.")?;
        self.compare = Some(Comparison::new(name, other, open));
        Ok(())
    }

    pub fn close_compare(&mut self) {
        self.compare = None;
    }

    /// Makes the diff again when the open model changed since.
    pub(super) fn refresh_compare(&mut self) {
        let (Some(c), Some(open)) = (self.compare.as_ref(), self.open.as_ref()) else {
            return;
        };
        if c.serial != open.serial()
            && self.draft.is_none()
            && let Some(c) = self.compare.take()
        {
            let mut next = Comparison::new(c.label, c.other, open);
            next.scene = c.scene;
            self.compare = Some(next);
        }
    }

    pub fn comparison(&self) -> Option<CompareView> {
        let c = self.compare.as_ref()?;
        let n = &c.counts;
        let summary = format!(
            "{} added, {} removed, {} changed, {} renamed, {} inlined nodes; functions {} added, {} removed",
            n.nodes_added,
            n.nodes_removed,
            n.nodes_changed,
            n.nodes_renamed,
            n.calls_inlined + n.calls_outlined,
            n.functions_added,
            n.functions_removed,
        );
        Some(CompareView {
            label: c.label.clone(),
            same: c.same,
            summary,
            rows: c.rows.clone(),
        })
    }

    /// The canvas class of `item` in the comparison (none during an inline preview,
    /// whose nodes the diff did not see).
    pub(super) fn compare_mark(&self, item: &graft::view::Item) -> Option<svg::Mark> {
        if self.draft.is_some() {
            return None;
        }
        self.compare.as_ref()?.mark(item)
    }

    /// Shows the other model beside the open one, or stops.
    pub fn set_side_by_side(&mut self, on: bool) -> bool {
        let Some(c) = self.compare.as_mut() else {
            return false;
        };
        if !on {
            c.scene = None;
            return true;
        }
        if c.scene.is_none() {
            let Some(view) = View::of_model(&c.other) else {
                self.error = Some("The other model has no graph to show.".into());
                return false;
            };
            let mut scene = Scene::new(view);
            if scene.layout(&c.other, &mut || false).is_err() {
                return false;
            }
            c.scene = Some(scene);
        }
        true
    }

    pub fn side_by_side(&self) -> bool {
        self.compare.as_ref().is_some_and(|c| c.scene.is_some())
    }

    /// Expands or collapses a group of the other model's drawing, and its matched
    /// group in the open model's, so the two drawings line up.
    pub fn toggle_other(&mut self, item: ItemId) -> bool {
        let Some(c) = self.compare.as_mut() else {
            return false;
        };
        let Some(scene) = c.scene.as_mut() else {
            return false;
        };
        let changed = scene.toggle(&c.other, item) && scene.layout(&c.other, &mut || false).is_ok();
        if changed {
            self.mirror_toggle(false, item);
        }
        changed
    }

    /// Side by side: gives the group matched with `item` (of the open model's drawing
    /// when `from_open`, else of the other's) on the other side the state `item` now
    /// has, opening what it sits in. A group matches through its node (a call, a
    /// control-flow node) and, for a subgraph or a namespace, its attribute or path.
    pub(super) fn mirror_toggle(&mut self, from_open: bool, item: ItemId) {
        let (Some(c), Some(open)) = (self.compare.as_mut(), self.open.as_mut()) else {
            return;
        };
        let (Some(other_scene), Some(open_scene)) = (c.scene.as_mut(), open.scene.as_mut()) else {
            return;
        };
        let model = open.doc.model();
        let (from, to, to_model, map) = if from_open {
            (open_scene, other_scene, &c.other, &c.to_other)
        } else {
            (other_scene, open_scene, model, &c.from_other)
        };
        let Some(source) = from.view.item(item) else {
            return;
        };
        let expanded = source.expanded;
        let wanted = match &source.kind {
            ItemKind::Node { node, .. } => map.get(node).map(|&n| (n, None)),
            ItemKind::Subgraph {
                node, attribute, ..
            } => map.get(node).map(|&n| (n, Some(attribute.clone()))),
            _ => None,
        };
        let namespace = match &source.kind {
            ItemKind::Namespace { path, .. } => Some(path.clone()),
            _ => None,
        };
        if wanted.is_none() && namespace.is_none() {
            return;
        }
        let found = to.view.find(to_model, SEARCH_ITEM_LIMIT, |i| {
            match (&i.kind, &wanted, &namespace) {
                (ItemKind::Node { node, .. }, Some((n, None)), _) => node == n,
                (
                    ItemKind::Subgraph {
                        node, attribute, ..
                    },
                    Some((n, Some(a))),
                    _,
                ) => node == n && attribute == a,
                (ItemKind::Namespace { path, .. }, _, Some(p)) => path == p,
                _ => false,
            }
        });
        let Some(&target) = found.first() else {
            return;
        };
        if to.view.item(target).is_some_and(|t| t.expanded == expanded) {
            return;
        }
        if expanded {
            to.reveal(to_model, target);
        }
        if to.set_expanded(to_model, target, expanded) {
            let _ = to.layout(to_model, &mut || false);
        }
    }

    /// The item of the open model matched with the other model's `item`.
    pub fn matched_in_open(&mut self, item: ItemId) -> Option<ItemId> {
        let c = self.compare.as_ref()?;
        let ItemKind::Node { node, .. } = c.scene.as_ref()?.view.item(item)?.kind else {
            return None;
        };
        let node = *c.from_other.get(&node)?;
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        let found = scene.view.find(
            open.doc.model(),
            SEARCH_ITEM_LIMIT,
            |i| matches!(i.kind, ItemKind::Node { node: n, .. } if n == node),
        );
        found.first().copied()
    }

    /// The other model's drawing in `view`, its items matched with the `selected`
    /// ones of the open model highlighted; what the diff found marked (removed nodes
    /// ghosted).
    pub fn other_svg(&self, view: Rect, detail: Detail, selected: &[ItemId]) -> String {
        let (Some(c), Some(open)) = (self.compare.as_ref(), self.open.as_ref()) else {
            return String::new();
        };
        let Some(scene) = c.scene.as_ref() else {
            return String::new();
        };
        let nodes: Vec<NodeId> = open
            .scene
            .as_ref()
            .map(|s| {
                selected
                    .iter()
                    .filter_map(|&i| match s.view.item(i)?.kind {
                        ItemKind::Node { node, .. } => c.to_other.get(&node).copied(),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let hits: Vec<ItemId> = scene
            .placed
            .iter()
            .map(|p| p.item)
            .filter(|&i| {
                matches!(scene.view.item(i).map(|x| &x.kind), Some(ItemKind::Node { node, .. }) if nodes.contains(node))
            })
            .collect();
        svg::region(
            scene,
            &c.other,
            view,
            detail,
            &hits,
            &|item| match item.kind {
                ItemKind::Node { node, .. } => {
                    c.marks_other.get(&node).map(|&m| svg::Mark::class(m))
                }
                _ => None,
            },
        )
    }

    /// The item a listed change jumps to, opening what it sits in.
    pub fn compare_item(&mut self, index: usize) -> Option<ItemId> {
        let jump = self.compare.as_ref()?.rows.get(index)?.jump;
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        let found = scene
            .view
            .find(open.doc.model(), SEARCH_ITEM_LIMIT, |item| {
                match (&item.kind, jump) {
                    (ItemKind::Node { node, .. }, Jump::Node(n)) => *node == n,
                    (
                        ItemKind::Node {
                            callee: Some(f), ..
                        },
                        Jump::Call(g),
                    ) => *f == g,
                    _ => false,
                }
            });
        found.first().copied()
    }
}
