//! Problems: the importer's and the checker's findings, listed and linked to their nodes.

use super::*;

impl Session {
    /// The checker's and importer's problems, errors first: severity, message,
    /// location, and whether it points at a node (to jump to).
    pub fn problems(&self) -> Vec<Problem> {
        let Some(open) = self.open.as_ref() else {
            return Vec::new();
        };
        let mut list: Vec<(usize, &graft::Diagnostic)> =
            open.summary().diagnostics.iter().enumerate().collect();
        list.sort_by_key(|(_, d)| d.severity != graft::Severity::Error);
        list.into_iter()
            .map(|(index, d)| Problem {
                index,
                error: d.severity == graft::Severity::Error,
                code: d.code.to_string(),
                message: d.message.clone(),
                location: d.location.clone(),
                at_node: d.at.node.is_some(),
            })
            .collect()
    }

    /// The item of the node the `index`-th diagnostic points at (its group contents
    /// built on the way).
    pub fn problem_item(&mut self, index: usize) -> Option<ItemId> {
        let open = self.open.as_mut()?;
        let node = open.summary().diagnostics.get(index)?.at.node?;
        let scene = open.scene.as_mut()?;
        let found = scene.view.find(
            open.doc.model(),
            SEARCH_ITEM_LIMIT,
            |item| matches!(item.kind, ItemKind::Node { node: n, .. } if n == node),
        );
        found.first().copied()
    }
}
