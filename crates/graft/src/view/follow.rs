//! Carrying what the user opened across an edit: the view of the edited model opens
//! the groups that were open before, and says which item became which (the app keeps
//! its selection through it).
//!
//! Items are matched by what they show, under matched parents: the same node (a call
//! still matches when it now names another overload), value terminal, subgraph,
//! namespace or section. Item ids are positions in one view and mean nothing in
//! another; node, value and graph ids survive an edit (every core edit keeps the ids
//! of what it does not remove).

use crate::hash::FxMap;
use crate::ir::Model;

use super::{ItemId, ItemKind, View};

/// What [`View::follow`] did.
#[derive(Debug, Default)]
pub struct Followed {
    /// Item of the old view -> the item showing the same thing in this one.
    pub items: FxMap<ItemId, ItemId>,
    /// Items of this view whose expansion changed.
    pub changed: Vec<ItemId>,
}

/// What an item shows, as far as matching goes: its kind, without the callee.
fn place(kind: &ItemKind) -> ItemKind {
    match kind {
        ItemKind::Node { node, .. } => ItemKind::Node {
            node: *node,
            callee: None,
        },
        other => other.clone(),
    }
}

impl View {
    /// Opens and closes the groups of this view as they are in `old` (a view of the
    /// model before an edit), and matches the items. Only groups open in `old` are
    /// looked into: what an edit removed simply no longer matches, and inside a group
    /// that was closed nothing is built.
    pub fn follow(&mut self, model: &Model, old: &View) -> Followed {
        let mut out = Followed::default();
        let (Some(o), Some(n)) = (old.item(old.root()), self.item(self.root())) else {
            return out;
        };
        if place(&o.kind) != place(&n.kind) {
            return out;
        }
        let mut stack = vec![(old.root(), self.root())];
        while let Some((o, n)) = stack.pop() {
            out.items.insert(o, n);
            let Some(before) = old.item(o) else {
                continue;
            };
            let group = self.item(n).is_some_and(|i| i.is_group);
            if !before.is_group || !group {
                continue;
            }
            if n != self.root() && self.set_expanded(model, n, before.expanded) {
                out.changed.push(n);
            }
            let Some(old_children) = before.children.as_deref().filter(|_| before.expanded) else {
                continue;
            };
            let mut by_place: FxMap<ItemKind, ItemId> = FxMap::default();
            for c in self.children(model, n).to_vec() {
                if let Some(item) = self.items.get(c as usize) {
                    by_place.entry(place(&item.kind)).or_insert(c);
                }
            }
            for &oc in old_children {
                if let Some(&nc) = old.item(oc).and_then(|i| by_place.get(&place(&i.kind))) {
                    stack.push((oc, nc));
                }
            }
        }
        out
    }
}
