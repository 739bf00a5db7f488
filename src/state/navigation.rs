//! Navigation and links: search, call sites, item paths for URLs, and carrying the selection across model states.

use super::*;

impl Session {
    /// Items matching `query` in every graph, function body and subgraph.
    pub fn search(&mut self, query: &str) -> Vec<SearchHit> {
        let Some(open) = self.open.as_mut() else {
            return Vec::new();
        };
        let Some(scene) = open.scene.as_mut() else {
            return Vec::new();
        };
        let found = scene
            .view
            .search(open.doc.model(), query, SEARCH_ITEM_LIMIT);
        hits(&scene.view, found)
    }

    /// Every call of the `index`-th local function, at any depth.
    pub fn call_sites(&mut self, index: usize) -> Vec<SearchHit> {
        let Some(open) = self.open.as_mut() else {
            return Vec::new();
        };
        let Some(&f) = open.doc.model().functions.get(index) else {
            return Vec::new();
        };
        let Some(scene) = open.scene.as_mut() else {
            return Vec::new();
        };
        let found = scene.view.calls_of(open.doc.model(), f, SEARCH_ITEM_LIMIT);
        hits(&scene.view, found)
    }

    /// Where `item` sits (`graft::view::panel::item_path`): `0.3.1`.
    pub fn item_path(&self, item: ItemId) -> Option<String> {
        let view = &self.open.as_ref()?.scene.as_ref()?.view;
        graft::view::panel::item_path(view, item)
    }

    /// The paths of the expanded groups, parents first.
    pub fn expanded_paths(&self) -> Vec<String> {
        self.open
            .as_ref()
            .and_then(|o| o.scene.as_ref())
            .map(|s| graft::view::panel::expanded_paths(&s.view))
            .unwrap_or_default()
    }

    /// The item at `path` (building group contents on the way).
    pub(super) fn item_at(&mut self, path: &str) -> Option<ItemId> {
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        graft::view::panel::item_at(&mut scene.view, open.doc.model(), path)
    }

    /// Opens the groups at `open` (paths) and returns the item at `selected`: a shared
    /// view restored.
    pub fn restore_view(&mut self, open: &[String], selected: Option<&str>) -> Option<ItemId> {
        let mut changed = false;
        for path in open {
            let Some(item) = self.item_at(path) else {
                continue;
            };
            let Some(o) = self.open.as_mut() else { break };
            let Some(scene) = o.scene.as_mut() else { break };
            if scene
                .view
                .item(item)
                .is_some_and(|i| i.is_group && !i.expanded)
            {
                changed |= scene.set_expanded(o.doc.model(), item, true);
            }
        }
        if changed
            && let Some(o) = self.open.as_mut()
            && let Some(scene) = o.scene.as_mut()
        {
            let _ = scene.layout(o.doc.model(), &mut || false);
        }
        selected.and_then(|p| self.item_at(p))
    }

    /// The serial of the open model and `items` (of the model state `from`) as they
    /// are in it: carried through the last edit or undo, else nothing.
    pub fn carry(&self, from: u64, items: &[ItemId]) -> (u64, Vec<ItemId>) {
        let Some(open) = self.open.as_ref() else {
            return (0, Vec::new());
        };
        if open.serial() == from {
            return (from, items.to_vec());
        }
        let carried = match &self.moves {
            Some(m) if m.from == from && m.to == open.serial() => match m.focus {
                Some(focus) => vec![focus],
                None => items
                    .iter()
                    .filter_map(|i| m.items.get(i).copied())
                    .collect(),
            },
            _ => Vec::new(),
        };
        (open.serial(), carried)
    }

    /// The item `item` of the model state `from` is in the open one: itself, or
    /// carried through the last edit or undo (not moved to a focus); `None` when that
    /// state is further back or the item is gone.
    pub fn carry_item(&self, from: u64, item: ItemId) -> Option<ItemId> {
        let open = self.open.as_ref()?;
        if open.serial() == from {
            return Some(item);
        }
        match &self.moves {
            Some(m) if m.from == from && m.to == open.serial() => m.items.get(&item).copied(),
            _ => None,
        }
    }

    /// How many models have been opened so far (edits do not count).
    pub fn opened(&self) -> u64 {
        self.opened
    }

    /// The nodes among `items` (each once, in order).
    pub fn selected_nodes(&self, items: &[ItemId]) -> Vec<NodeId> {
        let Some(scene) = self.open.as_ref().and_then(|o| o.scene.as_ref()) else {
            return Vec::new();
        };
        let mut nodes = Vec::new();
        for &item in items {
            if let Some(ItemKind::Node { node, .. }) = scene.kind(item)
                && !nodes.contains(node)
            {
                nodes.push(*node);
            }
        }
        nodes
    }
}
