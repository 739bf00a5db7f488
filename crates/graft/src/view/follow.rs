//! Carrying what the user opened across an edit: the view of the edited model opens
//! the groups that were open before, and says which item became which (the app keeps
//! its selection through it).
//!
//! Items are matched by what they show, under matched parents: the same node (a call
//! still matches when it now names another overload), value terminal, subgraph,
//! namespace or section. Item ids are positions in one view and mean nothing in
//! another; node, value and graph ids survive an edit (every core edit keeps the ids
//! of what it does not remove), but not a replacement of the model (a text Apply and
//! its undo), after which items match by what they show.

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

/// What an item shows, as far as matching goes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// Its kind, without the callee (ids kept across the edit).
    Place(ItemKind),
    /// What it says: a kind's tag with its title and subtitle (a node's op and name, a
    /// value's name, a subgraph's attribute, a namespace's path), for a model whose
    /// ids were all replaced.
    Shown(u8, String, String),
}

/// How `item` is matched: by `place`, or (`by_name`) by what it shows.
fn key(item: &super::Item, by_name: bool) -> Key {
    if !by_name {
        return Key::Place(match &item.kind {
            ItemKind::Node { node, .. } => ItemKind::Node {
                node: *node,
                callee: None,
            },
            other => other.clone(),
        });
    }
    let (tag, title, subtitle) = match &item.kind {
        ItemKind::Graph { .. } => (0, "", ""),
        ItemKind::In { .. } => (1, item.title.as_str(), ""),
        ItemKind::Out { .. } => (2, item.title.as_str(), ""),
        ItemKind::Node { .. } => (3, item.title.as_str(), item.subtitle.as_str()),
        ItemKind::Subgraph { attribute, .. } => (4, attribute.as_str(), ""),
        ItemKind::Namespace { path, .. } => (5, path.as_str(), ""),
        ItemKind::Section { index, .. } => {
            return Key::Shown(6, index.to_string(), String::new());
        }
    };
    Key::Shown(tag, title.to_string(), subtitle.to_string())
}

impl View {
    /// Opens and closes the groups of this view as they are in `old` (a view of the
    /// model before an edit), and matches the items. Only groups open in `old` are
    /// looked into: what an edit removed simply no longer matches, and inside a group
    /// that was closed nothing is built.
    ///
    /// `by_name`: the model was replaced (its ids name other things), so items match
    /// by what they show instead, and only where that is unique among the siblings:
    /// an unnamed node beside another of its op matches nothing rather than the
    /// wrong one.
    pub fn follow(&mut self, model: &Model, old: &View, by_name: bool) -> Followed {
        let mut out = Followed::default();
        let (Some(o), Some(n)) = (old.item(old.root()), self.item(self.root())) else {
            return out;
        };
        if key(o, by_name) != key(n, by_name) {
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
            // `None`: shown by more than one child (matched only by place).
            let mut by_key: FxMap<Key, Option<ItemId>> = FxMap::default();
            for c in self.children(model, n).to_vec() {
                if let Some(item) = self.items.get(c as usize) {
                    by_key
                        .entry(key(item, by_name))
                        .and_modify(|e| {
                            if by_name {
                                *e = None;
                            }
                        })
                        .or_insert(Some(c));
                }
            }
            let mut seen: FxMap<Key, usize> = FxMap::default();
            if by_name {
                for &oc in old_children {
                    if let Some(i) = old.item(oc) {
                        *seen.entry(key(i, true)).or_default() += 1;
                    }
                }
            }
            for &oc in old_children {
                let Some(k) = old.item(oc).map(|i| key(i, by_name)) else {
                    continue;
                };
                if seen.get(&k).is_some_and(|&count| count > 1) {
                    continue;
                }
                if let Some(&Some(nc)) = by_key.get(&k) {
                    stack.push((oc, nc));
                }
            }
        }
        out
    }
}
