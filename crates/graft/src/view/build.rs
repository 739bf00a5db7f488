//! Building items: the root, the inside of each kind of group, and node boxes.

use std::borrow::Cow;

use crate::hash::{FxBuild, FxMap};
use crate::ir::{AttrKind, FunctionId, GraphId, Model, Node, NodeId, ValueDef, ValueId};

use super::{
    AttrLine, AttrSource, Context, Item, ItemId, ItemKind, NAMESPACE_MIN_NODES, SECTION, View,
};
use crate::text::attr_text;

type Set<T> = std::collections::HashSet<T, FxBuild>;

impl View {
    fn push(&mut self, item: Item) -> ItemId {
        let id = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
        self.items.push(item);
        id
    }

    fn blank(parent: Option<ItemId>, kind: ItemKind, title: String, ctx: u32) -> Item {
        Item {
            parent,
            kind,
            title,
            subtitle: String::new(),
            badge: None,
            attrs: Vec::new(),
            weights: Vec::new(),
            is_group: false,
            expanded: false,
            children: Some(Vec::new()),
            consumes: Vec::new(),
            produces: Vec::new(),
            ctx,
            nodes: Vec::new(),
            depth: 0,
            problem: None,
        }
    }

    pub(super) fn push_root(&mut self, model: &Model, graph: GraphId, title: String, ctx: u32) {
        let mut root = View::blank(None, ItemKind::Graph { graph }, title, ctx);
        root.is_group = true;
        root.expanded = true;
        root.children = None;
        root.subtitle = format!("{} nodes", model.graph(graph).nodes.len());
        self.push(root);
        self.children(model, 0);
    }

    /// The context a function body is shown in when no call is involved: its
    /// declared defaults.
    pub(super) fn defaults_context(&mut self, model: &Model, f: FunctionId) -> u32 {
        let func = model.function(f);
        let mut attrs = Vec::new();
        for name in &func.attribute {
            attrs.push((name.clone(), format!("@{name}"), AttrSource::Unset));
        }
        for a in &func.attribute_proto {
            let text = match &a.kind {
                AttrKind::Value(v) => attr_text(model, v),
                _ => "?".to_string(),
            };
            attrs.push((a.name().to_string(), text, AttrSource::Default));
        }
        self.push_context(Context { attrs })
    }

    fn push_context(&mut self, ctx: Context) -> u32 {
        let id = u32::try_from(self.contexts.len()).unwrap_or(u32::MAX);
        self.contexts.push(ctx);
        id
    }

    /// The context of a call: each declared attribute of the callee with the value the
    /// call binds (`crate::calls`: references resolved in the caller's context), else
    /// its default, else unset. The call's item is marked with its first problem.
    fn call_context(
        &mut self,
        model: &Model,
        item: ItemId,
        call: NodeId,
        f: FunctionId,
        outer: u32,
    ) -> u32 {
        let func = model.function(f);
        let binding = crate::calls::CallBinding::bind(model, call, f);
        let problem = match binding.check(model, &self.functions) {
            Err(e) => Some(format!("{} [{}]", e.message, e.code)),
            Ok(()) => None,
        };
        if let Some(it) = self.items.get_mut(item as usize) {
            it.problem = problem;
        }
        let declared = func
            .attribute
            .iter()
            .map(String::as_str)
            .chain(func.attribute_proto.iter().map(|a| a.name()));
        let mut attrs = Vec::new();
        for name in declared {
            if attrs.iter().any(|(n, _, _)| n == name) {
                continue;
            }
            let bound = binding.attrs.iter().find(|b| b.name == name);
            let shown = match bound.map(|b| (&b.kind, b.source)) {
                Some((AttrKind::Value(v), crate::calls::Source::Call)) => {
                    (attr_text(model, v), AttrSource::Call)
                }
                Some((AttrKind::Value(v), crate::calls::Source::Default)) => {
                    (attr_text(model, v), AttrSource::Default)
                }
                Some((AttrKind::Ref { name: r, .. }, _)) => self.resolve_ref(outer, r),
                Some((AttrKind::Raw(_), _)) => ("?".to_string(), AttrSource::Call),
                None => (format!("@{name}"), AttrSource::Unset),
            };
            attrs.push((name.to_string(), shown.0, shown.1));
        }
        self.push_context(Context { attrs })
    }

    fn resolve_ref(&self, ctx: u32, name: &str) -> (String, AttrSource) {
        self.contexts
            .get(ctx as usize)
            .and_then(|c| c.attrs.iter().find(|(n, _, _)| n == name))
            .map(|(_, v, s)| (v.clone(), *s))
            .unwrap_or_else(|| (format!("@{name}"), AttrSource::Unset))
    }

    pub(super) fn build_children(&mut self, model: &Model, id: ItemId) -> Vec<ItemId> {
        let Some(item) = self.item(id) else {
            return Vec::new();
        };
        let (kind, ctx, depth) = (item.kind.clone(), item.ctx, item.depth);
        let consumes = item.consumes.clone();
        let produces = item.produces.clone();
        match kind {
            ItemKind::Graph { graph } => {
                let g = model.graph(graph);
                let initializers: Set<ValueId> =
                    g.initializers.iter().filter_map(|i| i.value).collect();
                let ins: Vec<ValueId> = g
                    .inputs
                    .iter()
                    .filter_map(|i| i.value)
                    .filter(|v| !initializers.contains(v))
                    .collect();
                let outs: Vec<ValueId> = g.outputs.iter().filter_map(|o| o.value).collect();
                let nodes = g.nodes.clone();
                self.scope_children(model, id, graph, &nodes, ins, outs, ctx, 0)
            }
            ItemKind::Node {
                node,
                callee: Some(f),
            } => {
                let inner = self.call_context(model, id, node, f, ctx);
                let body = model.function(f).body;
                let g = model.graph(body);
                let ins: Vec<ValueId> = g.inputs.iter().filter_map(|i| i.value).collect();
                let outs: Vec<ValueId> = g.outputs.iter().filter_map(|o| o.value).collect();
                let nodes = g.nodes.clone();
                self.scope_children(model, id, body, &nodes, ins, outs, inner, 0)
            }
            ItemKind::Node { node, callee: None } => {
                let mut out = Vec::new();
                for a in &model.node(node).attributes {
                    let graphs: Vec<GraphId> = a.graphs().collect();
                    let many = graphs.len() > 1;
                    for (k, graph) in graphs.into_iter().enumerate() {
                        let label = if many {
                            format!("{}[{k}]", a.name())
                        } else {
                            a.name().to_string()
                        };
                        out.push(self.subgraph_item(model, id, node, label, graph, ctx));
                    }
                }
                out
            }
            ItemKind::Subgraph { graph, .. } => {
                let g = model.graph(graph);
                let mut ins: Vec<ValueId> = g.inputs.iter().filter_map(|i| i.value).collect();
                // Outer-scope values read inside: input terminals of the group.
                for v in consumes {
                    if !ins.contains(&v) {
                        ins.push(v);
                    }
                }
                let outs: Vec<ValueId> = g.outputs.iter().filter_map(|o| o.value).collect();
                let nodes = g.nodes.clone();
                self.scope_children(model, id, graph, &nodes, ins, outs, ctx, 0)
            }
            ItemKind::Namespace { graph, .. } | ItemKind::Section { graph, .. } => {
                let nodes = self.item(id).map(|i| i.nodes.clone()).unwrap_or_default();
                let sectioned = matches!(kind, ItemKind::Section { .. });
                let mut out = self.terminals(model, id, &consumes, true, ctx);
                out.extend(self.node_set_children(model, id, graph, &nodes, ctx, depth, sectioned));
                out.extend(self.terminals(model, id, &produces, false, ctx));
                out
            }
            ItemKind::In { .. } | ItemKind::Out { .. } => Vec::new(),
        }
    }

    /// The inside of a scope (graph, body, subgraph): input terminals, the nodes
    /// (grouped), output terminals.
    #[allow(clippy::too_many_arguments)]
    fn scope_children(
        &mut self,
        model: &Model,
        parent: ItemId,
        graph: GraphId,
        nodes: &[NodeId],
        ins: Vec<ValueId>,
        outs: Vec<ValueId>,
        ctx: u32,
        depth: u32,
    ) -> Vec<ItemId> {
        let mut out = self.terminals(model, parent, &ins, true, ctx);
        out.extend(self.node_set_children(model, parent, graph, nodes, ctx, depth, false));
        out.extend(self.terminals(model, parent, &outs, false, ctx));
        out
    }

    fn terminals(
        &mut self,
        model: &Model,
        parent: ItemId,
        values: &[ValueId],
        input: bool,
        ctx: u32,
    ) -> Vec<ItemId> {
        values
            .iter()
            .map(|&value| {
                let name = model.value(value).name.clone();
                let kind = if input {
                    ItemKind::In { value }
                } else {
                    ItemKind::Out { value }
                };
                let mut item = View::blank(Some(parent), kind, name, ctx);
                if input {
                    item.produces.push(value);
                } else {
                    item.consumes.push(value);
                }
                self.push(item)
            })
            .collect()
    }

    /// Nodes of one graph as items: namespace groups from name paths when the graph
    /// is big, sections when there are too many.
    #[allow(clippy::too_many_arguments)]
    fn node_set_children(
        &mut self,
        model: &Model,
        parent: ItemId,
        graph: GraphId,
        nodes: &[NodeId],
        ctx: u32,
        depth: u32,
        in_section: bool,
    ) -> Vec<ItemId> {
        let use_namespaces = depth > 0 || nodes.len() > NAMESPACE_MIN_NODES;
        let (entries, depth) = if use_namespaces {
            partition(model, nodes, depth)
        } else {
            (nodes.iter().map(|&n| Entry::Node(n)).collect(), depth)
        };
        if !in_section && entries.len() > SECTION {
            let mut out = Vec::new();
            for (index, chunk) in entries.chunks(SECTION).enumerate() {
                let members: Vec<NodeId> = chunk.iter().flat_map(|e| e.nodes()).copied().collect();
                let title = format!("section {}", index + 1);
                let kind = ItemKind::Section {
                    graph,
                    index: index as u32,
                };
                out.push(self.set_item(model, parent, graph, kind, title, members, ctx, depth));
            }
            return out;
        }
        let mut out = Vec::new();
        for entry in entries {
            match entry {
                Entry::Node(n) => out.push(self.node_item(model, parent, n, ctx)),
                Entry::Namespace(path, members) => {
                    // A module's group: its path and class; else the last component.
                    let level = path.split('/').count() - 1;
                    let module = members.iter().find_map(|&m| {
                        let modules = super::modules::module_path(model.node(m))?.modules;
                        modules.get(level).map(super::modules::Module::label)
                    });
                    let title = module
                        .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_string());
                    let kind = ItemKind::Namespace {
                        graph,
                        path: path.clone(),
                    };
                    let next = path.split('/').count() as u32;
                    out.push(self.set_item(model, parent, graph, kind, title, members, ctx, next));
                }
            }
        }
        out
    }

    /// A namespace or section group over `members`, with what it reads and what it
    /// makes available outside.
    #[allow(clippy::too_many_arguments)]
    fn set_item(
        &mut self,
        model: &Model,
        parent: ItemId,
        graph: GraphId,
        kind: ItemKind,
        title: String,
        members: Vec<NodeId>,
        ctx: u32,
        depth: u32,
    ) -> ItemId {
        // Dense marks by value index instead of sets: a 50k-node graph's sections and
        // namespaces are built on every edit that changes structure.
        let (produced, seen) = self.stamps(model);
        let mut inside_reads = std::mem::take(&mut self.reads_inside);
        for &n in &members {
            for &v in model.node(n).outputs.iter().flatten() {
                self.marks[v.index()] = produced;
                inside_reads[v.index()] = 0;
            }
        }
        let mut consumes = Vec::new();
        let mut reads = Vec::new();
        for &n in &members {
            model.node_reads_into(n, &mut reads);
            for &v in &reads {
                let mark = &mut self.marks[v.index()];
                if *mark == produced {
                    inside_reads[v.index()] += 1;
                } else if *mark != seen && !is_weight(model, v) {
                    *mark = seen;
                    consumes.push(v);
                }
            }
        }
        let graph_outputs: Set<ValueId> = model
            .graph(graph)
            .outputs
            .iter()
            .filter_map(|o| o.value)
            .collect();
        let readers = self.readers(model, graph);
        let mut produces = Vec::new();
        for &n in &members {
            for &v in model.node(n).outputs.iter().flatten() {
                // Read by a node outside the group: fewer readers inside than in all.
                let outside = graph_outputs.contains(&v)
                    || inside_reads[v.index()] < readers.get(v.index()).copied().unwrap_or(0);
                if outside {
                    produces.push(v);
                }
            }
        }
        self.reads_inside = inside_reads;
        let mut item = View::blank(Some(parent), kind, title, ctx);
        item.subtitle = format!("{} nodes", members.len());
        item.is_group = true;
        item.children = None;
        item.consumes = consumes;
        item.produces = produces;
        item.nodes = members;
        item.depth = depth;
        self.push(item)
    }

    /// How many nodes of `graph` read each value (by value index; reads inside a node's
    /// subgraphs count as reads by that node). Built on first need.
    fn readers(&mut self, model: &Model, graph: GraphId) -> &[u32] {
        self.readers.entry(graph).or_insert_with(|| {
            let mut counts = vec![0u32; model.values.len()];
            let mut reads = Vec::new();
            for &n in &model.graph(graph).nodes {
                model.node_reads_into(n, &mut reads);
                for v in &reads {
                    if let Some(c) = counts.get_mut(v.index()) {
                        *c += 1;
                    }
                }
            }
            counts
        })
    }

    /// Two fresh stamps for [`View::marks`] (one per use), the marks as long as the
    /// model's values.
    fn stamps(&mut self, model: &Model) -> (u32, u32) {
        let n = model.values.len();
        if self.marks.len() < n {
            self.marks.resize(n, 0);
            self.reads_inside.resize(n, 0);
        }
        if self.stamp >= u32::MAX - 2 {
            self.marks.fill(0);
            self.stamp = 0;
        }
        self.stamp += 2;
        (self.stamp - 1, self.stamp)
    }

    fn node_item(&mut self, model: &Model, parent: ItemId, n: NodeId, ctx: u32) -> ItemId {
        let item = self.node_item_unpushed(model, parent, n, ctx);
        self.push(item)
    }

    /// After an edit that only set or removed attributes of `nodes`: writes the boxes
    /// showing them again in place. Returns the items rewritten, or `None` when one of
    /// them is a group (a call, a node with subgraphs: its contents depend on the
    /// attributes) or would now read or make other values; rebuild the view then.
    pub fn refresh_nodes(&mut self, model: &Model, nodes: &[NodeId]) -> Option<Vec<ItemId>> {
        let mut changed = Vec::new();
        for (id, item) in self.items.iter().enumerate() {
            if let ItemKind::Node { node, .. } = item.kind
                && nodes.contains(&node)
            {
                if item.is_group {
                    return None;
                }
                changed.push(ItemId::try_from(id).ok()?);
            }
        }
        let mut fresh = Vec::with_capacity(changed.len());
        for &id in &changed {
            let old = &self.items[id as usize];
            let (parent, ctx) = (old.parent?, old.ctx);
            let ItemKind::Node { node, .. } = old.kind else {
                return None;
            };
            let new = self.node_item_unpushed(model, parent, node, ctx);
            let old = &self.items[id as usize];
            // A renamed node keeps its place only when its namespace path (all its
            // path components but its own name) is what it was.
            let moved = new.subtitle != old.subtitle && {
                let n = model.node(node);
                let (mut was, mut is) = (Vec::new(), Vec::new());
                components_named(n, &old.subtitle, &mut was);
                components(n, &mut is);
                was.pop();
                is.pop();
                was != is
            };
            if moved
                || new.is_group
                || new.kind != old.kind
                || new.consumes != old.consumes
                || new.produces != old.produces
            {
                return None;
            }
            fresh.push(new);
        }
        for (&id, new) in changed.iter().zip(fresh) {
            let old = &mut self.items[id as usize];
            old.title = new.title;
            old.subtitle = new.subtitle;
            old.badge = new.badge;
            old.attrs = new.attrs;
            old.weights = new.weights;
        }
        Some(changed)
    }

    fn node_item_unpushed(&mut self, model: &Model, parent: ItemId, n: NodeId, ctx: u32) -> Item {
        let node = model.node(n);
        let domain = crate::ir::normalize_domain(node.domain());
        let (callee, problem) = match crate::calls::resolve(model, &self.functions, n) {
            crate::calls::Resolved::Function(f) => (Some(f), None),
            crate::calls::Resolved::Missing => {
                let p = crate::calls::missing_function(model, n);
                (None, Some(format!("{} [{}]", p.message, p.code)))
            }
            crate::calls::Resolved::NotACall => (None, None),
        };
        let has_graphs = node.has_subgraphs();
        let mut item = View::blank(
            Some(parent),
            ItemKind::Node { node: n, callee },
            node.op_type().to_string(),
            ctx,
        );
        item.subtitle = node.name().to_string();
        item.problem = problem;
        if !domain.is_empty() || !node.overload().is_empty() {
            let mut badge = domain.to_string();
            if !node.overload().is_empty() {
                badge.push(':');
                badge.push_str(node.overload());
            }
            item.badge = Some(badge);
        }
        for a in &node.attributes {
            if a.has_graphs() {
                continue;
            }
            let (value, source) = match &a.kind {
                AttrKind::Value(v) => (attr_text(model, v), AttrSource::Given),
                AttrKind::Ref { name, .. } => self.resolve_ref(ctx, name),
                AttrKind::Raw(_) => ("(malformed)".to_string(), AttrSource::Given),
            };
            item.attrs.push(AttrLine {
                name: a.name().to_string(),
                value,
                source,
            });
        }
        let mut seen: Set<ValueId> = Set::default();
        for v in model.node_reads(n) {
            if is_weight(model, v) {
                item.weights.push(self.weight_text(model, v));
            } else if seen.insert(v) {
                item.consumes.push(v);
            }
        }
        item.produces = node.outputs.iter().flatten().copied().collect();
        if callee.is_some() || has_graphs {
            item.is_group = true;
            item.children = None;
        }
        item
    }

    fn weight_text(&self, model: &Model, v: ValueId) -> String {
        let value = model.value(v);
        let dims = self
            .initializers
            .get(&v)
            .and_then(|&(g, k)| model.graph(g).initializers.get(k))
            .map(|i| {
                let dims: Vec<String> = i.tensor.dims.iter().map(|d| d.to_string()).collect();
                format!(" ⟨{}⟩", dims.join("×"))
            })
            .unwrap_or_default();
        format!("{}{dims}", value.name)
    }

    fn subgraph_item(
        &mut self,
        model: &Model,
        parent: ItemId,
        node: NodeId,
        attribute: String,
        graph: GraphId,
        ctx: u32,
    ) -> ItemId {
        let g = model.graph(graph);
        let mut item = View::blank(
            Some(parent),
            ItemKind::Subgraph {
                node,
                attribute: attribute.clone(),
                graph,
            },
            attribute,
            ctx,
        );
        item.subtitle = format!("{} nodes", g.nodes.len());
        item.is_group = true;
        item.expanded = true;
        item.children = None;
        let mut seen: Set<ValueId> = Set::default();
        item.consumes = model
            .free_values(graph)
            .filter(|&v| seen.insert(v))
            .collect();
        item.produces = Vec::new();
        self.push(item)
    }
}

/// One entry of a partition of nodes by name path.
enum Entry {
    Node(NodeId),
    Namespace(String, Vec<NodeId>),
}

impl Entry {
    fn nodes(&self) -> &[NodeId] {
        match self {
            Entry::Node(n) => std::slice::from_ref(n),
            Entry::Namespace(_, members) => members,
        }
    }
}

/// Appends a node's namespace path to `out`, the node's own name last: from the
/// module path it records (`super::modules`) when it has one, else from its name
/// split at `/`.
fn components<'m>(node: &'m Node, out: &mut Vec<Cow<'m, str>>) {
    components_named(node, node.name(), out);
}

/// [`components`] of `node` as if it were named `name`.
fn components_named<'m>(node: &'m Node, name: &'m str, out: &mut Vec<Cow<'m, str>>) {
    match super::modules::module_path(node) {
        Some(path) => out.extend(path.components().into_iter().map(Cow::Owned)),
        None => out.extend(name.split('/').filter(|c| !c.is_empty()).map(Cow::Borrowed)),
    }
}

/// Where nodes that record no module and read nothing (Constants) go when others of
/// `nodes` record modules: into the namespace of their readers (the components they
/// all share), so that a module's constants sit inside it. Empty otherwise.
fn borrowed_components(model: &Model, nodes: &[NodeId]) -> FxMap<NodeId, Vec<String>> {
    let mut out: FxMap<NodeId, Vec<String>> = FxMap::default();
    let records = |n: &Node| {
        n.metadata_props.iter().any(|p| {
            matches!(
                p.key.as_deref(),
                Some(super::modules::TORCH_NAME_SCOPES | super::modules::NAMESPACE)
            )
        })
    };
    let orphans = nodes.iter().copied().filter(|&n| {
        let node = model.node(n);
        node.inputs.iter().all(Option::is_none) && !records(node)
    });
    let mut made: FxMap<ValueId, NodeId> = FxMap::default();
    for n in orphans {
        for &v in model.node(n).outputs.iter().flatten() {
            made.insert(v, n);
        }
    }
    if made.is_empty() || !nodes.iter().any(|&n| records(model.node(n))) {
        return out;
    }
    for &n in nodes {
        let node = model.node(n);
        let read = node.inputs.iter().flatten().filter_map(|v| made.get(v));
        let read: Vec<NodeId> = read.copied().collect();
        if read.is_empty() {
            continue;
        }
        let Some(path) = super::modules::module_path(node) else {
            continue;
        };
        let mut own = path.components();
        own.pop();
        for orphan in read {
            match out.get_mut(&orphan) {
                None => {
                    out.insert(orphan, own.clone());
                }
                // Readers in different modules: the part of the path they share.
                Some(shared) => {
                    let same = shared.iter().zip(&own).take_while(|(a, b)| a == b).count();
                    shared.truncate(same);
                }
            }
        }
    }
    out
}

/// Groups nodes by the path component at `depth` of their names (in order of first
/// appearance). A component shared by every node is skipped (its prefix adds no
/// structure). Returns the entries and the depth used.
fn partition(model: &Model, nodes: &[NodeId], mut depth: u32) -> (Vec<Entry>, u32) {
    // Each node's path components, split once, all in one list (one allocation, not
    // one per node: the main graph of a big model is partitioned on every rebuild).
    let mut flat: Vec<Cow<str>> = Vec::with_capacity(nodes.len() * 2);
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(nodes.len());
    let borrowed = borrowed_components(model, nodes);
    for &n in nodes {
        let start = flat.len();
        match borrowed.get(&n) {
            Some(path) => {
                flat.extend(path.iter().cloned().map(Cow::Owned));
                flat.push(Cow::Borrowed(model.node(n).name()));
            }
            None => components(model.node(n), &mut flat),
        }
        spans.push((start, flat.len()));
    }
    // The namespace of a node at depth `d`: its first d+1 components, if it has a
    // further one (the last component is the node's own name, not a namespace).
    let key = |k: usize, d: u32| -> Option<&[Cow<str>]> {
        let (start, end) = spans[k];
        let p = &flat[start..end];
        (p.len() > d as usize + 1).then(|| &p[..=d as usize])
    };
    // Skip levels every node shares (bounded: names are finite).
    for _ in 0..64 {
        let first = key(0, depth);
        let shared = first.is_some() && (0..nodes.len()).all(|k| key(k, depth) == first);
        if shared && nodes.len() > 1 {
            depth += 1;
        } else {
            break;
        }
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut index: FxMap<&[Cow<str>], usize> = FxMap::default();
    for (k, &n) in nodes.iter().enumerate() {
        match key(k, depth) {
            None => entries.push(Entry::Node(n)),
            Some(path) => match index.get(path) {
                Some(&i) => {
                    if let Some(Entry::Namespace(_, members)) = entries.get_mut(i) {
                        members.push(n);
                    }
                }
                None => {
                    index.insert(path, entries.len());
                    entries.push(Entry::Namespace(path.join("/"), vec![n]));
                }
            },
        }
    }
    // A namespace of one node is just that node.
    let entries = entries
        .into_iter()
        .map(|e| match e {
            Entry::Namespace(_, members) if members.len() == 1 => Entry::Node(members[0]),
            e => e,
        })
        .collect();
    (entries, depth)
}

fn is_weight(model: &Model, v: ValueId) -> bool {
    matches!(model.value(v).def, ValueDef::Initializer)
}
