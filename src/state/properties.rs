//! Properties: what the panel shows for an item, from the core's view-models
//! (`graft::view::panel`).

use super::*;

pub(super) use graft::view::panel::generic_of;
pub use graft::view::panel::{NodeEditor, Properties, TerminalEditor};

impl Session {
    /// What the properties panel shows for `item`.
    pub fn properties(&self, item: ItemId) -> Option<Properties> {
        let open = self.open.as_ref()?;
        graft::view::panel::properties(open.doc.model(), &open.scene.as_ref()?.view, item)
    }
}
