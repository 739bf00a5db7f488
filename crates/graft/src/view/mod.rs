//! The view model: the tree of items the viewer draws, built from the IR.
//!
//! - The root is one graph (the main graph, or one function's body). Its children are
//!   the graph's inputs and outputs (as terminals) and its nodes.
//! - A node that calls a model-local function, or that has GRAPH/GRAPHS attributes
//!   (If, Loop, Scan), is a **group**. Expanded, a call shows the function body
//!   *specialized by that call*: attribute references show the call's value, or the
//!   function's default marked as such. A control-flow node shows one group per
//!   subgraph.
//! - Big flat graphs get **namespace groups** from torch's module scopes (node
//!   metadata `pkg.torch.onnx.name_scopes`) or else node-name paths
//!   (`/model/layers.3/attn/MatMul`), and any group with more than [`SECTION`] children
//!   is split into **sections** of consecutive children, so no single layout is huge.
//! - Every group's inside is self-contained: values it reads from outside appear as
//!   input terminals inside it (a function's formal inputs, a subgraph's outer-scope
//!   references), values read outside appear as output terminals. Edges therefore
//!   always join siblings, and each group can be laid out on its own.
//!
//! Group contents are built on first expansion, so a model with a function called a
//! thousand times costs nothing until a call is opened.

mod build;
mod follow;
pub mod kind;
pub mod modules;
pub mod panel;
pub mod scene;
pub mod svg;

use std::sync::Arc;

use crate::hash::FxMap;
use crate::ir::{FunctionId, GraphId, Model, NodeId, ValueId};

pub use crate::text::attr_text;
pub use follow::Followed;
pub use graft_layout::{Point, Rect, Route};
pub use scene::{Progress, Scene, Snapshot};

/// More direct children than this and a group is split into sections.
pub const SECTION: usize = 1000;
/// A graph with more nodes than this gets namespace groups from node-name paths.
pub const NAMESPACE_MIN_NODES: usize = 64;

/// An index into [`View::items`].
pub type ItemId = u32;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// The root: one graph.
    Graph { graph: GraphId },
    /// A value entering the group: a graph input, a formal input of a function, or a
    /// value an enclosing scope (or another part of the same graph) defines.
    In { value: ValueId },
    /// A value leaving the group: a graph output, or a value used outside the group.
    Out { value: ValueId },
    /// A node; a group when it calls a local function or has subgraphs.
    Node {
        node: NodeId,
        callee: Option<FunctionId>,
    },
    /// One subgraph of a control-flow node (`then_branch`, `body`, ...).
    Subgraph {
        node: NodeId,
        attribute: String,
        graph: GraphId,
    },
    /// Nodes of one graph whose names share a path prefix.
    Namespace { graph: GraphId, path: String },
    /// A run of consecutive children of a group too big to lay out as one.
    Section { graph: GraphId, index: u32 },
}

/// Where an attribute value shown on a node comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AttrSource {
    /// Written on the node.
    Given,
    /// A reference inside a function body, resolved to the value the call passes.
    Call,
    /// A reference the call leaves unset: the function's default.
    Default,
    /// A reference neither the call nor the function sets: the attribute is absent.
    Unset,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AttrLine {
    pub name: String,
    pub value: String,
    pub source: AttrSource,
}

#[derive(Clone, Debug)]
pub struct Item {
    pub parent: Option<ItemId>,
    pub kind: ItemKind,
    /// The main label: op type, value name, or group name.
    pub title: String,
    /// The node name, or a count for sections and namespaces.
    pub subtitle: String,
    /// Domain and overload of a node outside the default domain (`com.x.f:ov`).
    pub badge: Option<String>,
    pub attrs: Vec<AttrLine>,
    /// Inputs that are initializers: shown in the box, not as edges.
    pub weights: Vec<String>,
    pub is_group: bool,
    pub expanded: bool,
    /// Built on first expansion; empty for leaves.
    pub children: Option<Vec<ItemId>>,
    /// Values this item reads from its siblings or from outside its parent.
    pub consumes: Vec<ValueId>,
    /// Values this item makes available to its siblings.
    pub produces: Vec<ValueId>,
    /// The call context the item is shown in (index into the view's contexts).
    pub(crate) ctx: u32,
    /// For namespace and section groups: the nodes they hold, in graph order.
    pub(crate) nodes: Vec<NodeId>,
    /// For namespace groups: how many path components the group's prefix has.
    pub(crate) depth: u32,
    /// For a call: what `crate::calls` finds wrong with it (`message [code]`), known
    /// once the call is expanded (or at once for a call of a missing function). Its
    /// body is still shown, bound as far as the rules allow.
    pub problem: Option<String>,
}

/// The attribute values a function body sees at one call site.
#[derive(Clone, Debug, Default)]
pub(crate) struct Context {
    /// (attribute name, shown value, source) the call provides, or the defaults.
    pub attrs: Vec<(String, String, AttrSource)>,
}

/// The tree of displayable items of one model.
#[derive(Debug)]
pub struct View {
    pub items: Vec<Item>,
    pub(crate) contexts: Vec<Context>,
    /// Per graph: how many of its nodes read each value, by value index (built on
    /// first need).
    pub(crate) readers: FxMap<GraphId, Vec<u32>>,
    /// Scratch marks by value index for building groups (see `build.rs`), with the
    /// last stamp used and per-value counts.
    pub(crate) marks: Vec<u32>,
    pub(crate) stamp: u32,
    pub(crate) reads_inside: Vec<u32>,
    /// Local functions by key.
    pub(crate) functions: crate::ir::FunctionIndex,
    /// Initializer values -> (graph, index in its initializers).
    pub(crate) initializers: FxMap<ValueId, (GraphId, usize)>,
    /// The type of each value whose type the model states (graph inputs, outputs,
    /// value_info), as text: `float[1,8]`.
    pub types: FxMap<ValueId, String>,
    /// What inference found, for the values the model does not type itself (written
    /// out only for what is shown).
    pub inferred: Option<Arc<crate::infer::Inferred>>,
}

impl View {
    /// The view of the model's main graph (root expanded), or `None` without one.
    pub fn of_model(model: &Model) -> Option<View> {
        model.graph.map(|g| View::of_graph(model, g))
    }

    /// The view of one function's body, as if it were called with its defaults.
    pub fn of_function(model: &Model, f: FunctionId) -> View {
        let mut view = View::empty(model);
        let ctx = view.defaults_context(model, f);
        let body = model.function(f).body;
        let title = model.function(f).key().to_string();
        view.push_root(model, body, title, ctx);
        view
    }

    fn of_graph(model: &Model, g: GraphId) -> View {
        let mut view = View::empty(model);
        let title = model.graph(g).name.clone().unwrap_or_default();
        view.push_root(model, g, title, 0);
        view
    }

    fn empty(model: &Model) -> View {
        let functions = crate::ir::FunctionIndex::new(model);
        let mut initializers = FxMap::default();
        let mut types = FxMap::default();
        for (g, graph) in model.graphs.iter() {
            for (k, init) in graph.initializers.iter().enumerate() {
                if let Some(v) = init.value {
                    initializers.insert(v, (g, k));
                }
            }
            let infos = graph
                .inputs
                .iter()
                .chain(&graph.outputs)
                .chain(&graph.value_info);
            for info in infos {
                if let (Some(v), Some(ty)) = (info.value, &info.ty) {
                    types.entry(v).or_insert_with(|| ty.to_string());
                }
            }
        }
        View {
            items: Vec::new(),
            contexts: vec![Context::default()],
            readers: Default::default(),
            marks: Vec::new(),
            stamp: 0,
            reads_inside: Vec::new(),
            functions,
            initializers,
            types,
            inferred: None,
        }
    }

    /// The type of `v` as text: as the model states it, else as inference found it
    /// ([`View::inferred`]), else `None`.
    pub fn type_text(&self, v: ValueId) -> Option<String> {
        match self.types.get(&v) {
            Some(t) => Some(t.clone()),
            None => self.inferred.as_ref()?.get(v).map(|t| t.to_string()),
        }
    }

    pub fn root(&self) -> ItemId {
        0
    }

    pub fn item(&self, id: ItemId) -> Option<&Item> {
        self.items.get(id as usize)
    }

    /// The children of a group, building them if this is the first time.
    pub fn children(&mut self, model: &Model, id: ItemId) -> &[ItemId] {
        if self
            .item(id)
            .is_some_and(|i| i.is_group && i.children.is_none())
        {
            let children = self.build_children(model, id);
            if let Some(item) = self.items.get_mut(id as usize) {
                item.children = Some(children);
            }
        }
        self.item(id)
            .and_then(|i| i.children.as_deref())
            .unwrap_or(&[])
    }

    /// Expands or collapses a group (building its children when first expanded).
    /// Returns whether anything changed.
    pub fn set_expanded(&mut self, model: &Model, id: ItemId, expanded: bool) -> bool {
        let Some(item) = self.item(id) else {
            return false;
        };
        if !item.is_group || item.expanded == expanded || id == self.root() {
            return false;
        }
        if expanded {
            self.children(model, id);
        }
        if let Some(item) = self.items.get_mut(id as usize) {
            item.expanded = expanded;
        }
        true
    }

    /// Expands every group down to `depth` levels below the root (0: only the root),
    /// building what is needed. `usize::MAX` expands everything; item counts grow
    /// with what is opened, never beyond `limit` items.
    pub fn expand_to_depth(&mut self, model: &Model, depth: usize, limit: usize) {
        let mut stack = vec![(self.root(), 0usize)];
        while let Some((id, level)) = stack.pop() {
            if self.items.len() >= limit {
                break;
            }
            if level > 0 && level <= depth {
                self.set_expanded(model, id, true);
            }
            let open = self.item(id).is_some_and(|i| i.expanded);
            if open && level < depth {
                let children = self.children(model, id).to_vec();
                stack.extend(children.into_iter().rev().map(|c| (c, level + 1)));
            }
        }
    }

    /// Whether `id` is drawn: every ancestor is expanded.
    pub fn is_visible(&self, id: ItemId) -> bool {
        let mut current = self.item(id).and_then(|i| i.parent);
        while let Some(p) = current {
            match self.item(p) {
                Some(item) if item.expanded => current = item.parent,
                _ => return false,
            }
        }
        true
    }

    /// Expands every ancestor of `id` so that it is drawn. Returns whether anything
    /// changed.
    pub fn reveal(&mut self, model: &Model, id: ItemId) -> bool {
        let mut changed = false;
        let mut current = self.item(id).and_then(|i| i.parent);
        while let Some(p) = current {
            changed |= self.set_expanded(model, p, true);
            current = self.item(p).and_then(|i| i.parent);
        }
        changed
    }

    /// Items whose title or subtitle contains `needle` (case insensitive), in tree
    /// order, looking into every group (unopened ones are built on the way, up to
    /// `limit` items).
    pub fn search(&mut self, model: &Model, needle: &str, limit: usize) -> Vec<ItemId> {
        let needle = needle.to_lowercase();
        if needle.is_empty() {
            return Vec::new();
        }
        self.find(model, limit, |item| {
            item.title.to_lowercase().contains(&needle)
                || item.subtitle.to_lowercase().contains(&needle)
        })
    }

    /// Every call of local function `f`, at any depth.
    pub fn calls_of(&mut self, model: &Model, f: FunctionId, limit: usize) -> Vec<ItemId> {
        self.find(
            model,
            limit,
            |item| matches!(item.kind, ItemKind::Node { callee: Some(c), .. } if c == f),
        )
    }

    /// Items (other than the root) for which `pred` holds, in tree order, building
    /// group contents on the way while fewer than `limit` items exist.
    pub fn find(
        &mut self,
        model: &Model,
        limit: usize,
        pred: impl Fn(&Item) -> bool,
    ) -> Vec<ItemId> {
        let mut found = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(id) = stack.pop() {
            let Some(item) = self.item(id) else { continue };
            if id != self.root() && pred(item) {
                found.push(id);
            }
            if item.is_group && (item.children.is_some() || self.items.len() < limit) {
                let children = self.children(model, id).to_vec();
                stack.extend(children.into_iter().rev());
            }
        }
        found
    }
}
