//! Properties: what the panel shows for an item, from the core's view-models
//! (`graft::view::panel`), and the call editor's check of a typed value.

use super::*;

pub use graft::view::panel::{NodeEditor, Properties, TerminalEditor};

impl Session {
    /// What the properties panel shows for `item`.
    pub fn properties(&self, item: ItemId) -> Option<Properties> {
        let open = self.open.as_ref()?;
        graft::view::panel::properties(open.doc.model(), &open.scene.as_ref()?.view, item)
    }

    /// Checks a value typed into the call editor for attribute `name` of the call
    /// `node`, by the rule its edit reads it with (the type the generic declares).
    pub fn check_call_attribute(
        &self,
        node: NodeId,
        name: &str,
        value: &str,
    ) -> Result<(), String> {
        let model = self.open.as_ref().ok_or("no model")?.model();
        graft::edit::read_attributes(model, node, &format!("{name} = {value}"))
            .map(drop)
            .map_err(|e| e.message)
    }
}
