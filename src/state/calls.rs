//! Calls and specialization: a call's compile-time attributes, checked as typed, and specializing it into an overload.

use super::properties::generic_of;
use super::*;

impl Session {
    /// Sets compile-time attributes on a call (ONNX text, `alpha = 0.2`; empty: keep
    /// the call's values) and specializes it into an overload (undoable).
    pub fn specialize_call(&mut self, node: graft::ir::NodeId, attributes: &str) -> bool {
        let Some(edit) = self.specialize_edit(node, attributes.trim().to_string()) else {
            return false;
        };
        self.edit("Specializing the call", edit, |_| None)
    }

    /// Checks a value typed into the call editor for attribute `name` of `node`'s
    /// function (parses, and has the declared type).
    pub fn check_call_attribute(
        &self,
        node: graft::ir::NodeId,
        name: &str,
        value: &str,
    ) -> Result<graft::ir::Attribute, String> {
        let model = &self.open.as_ref().ok_or("no model")?.model;
        let ty =
            generic_of(model, node).and_then(|f| graft::specialize::attribute_type(model, f, name));
        graft::specialize::parse_call_attribute(name, value, ty)
    }

    /// Sets one compile-time attribute of a call and specializes it (undoable); an
    /// invalid value is refused with its error.
    pub fn set_call_attribute(&mut self, node: graft::ir::NodeId, name: &str, value: &str) -> bool {
        let attribute = match self.check_call_attribute(node, name, value) {
            Ok(a) => a,
            Err(e) => {
                self.error = Some(format!("{name} = {value}: {e}"));
                return false;
            }
        };
        let Some(open) = self.open.as_ref() else {
            return false;
        };
        let text = graft::text::print_attributes(&open.model, &[attribute]);
        let Some(edit) = self.specialize_edit(node, text) else {
            return false;
        };
        let at = FieldAt {
            target: Target::Node(node),
            slot: Slot::CallAttribute(name.to_string()),
        };
        self.edit_at(Some(at), "Specializing the call", edit, |_| None)
    }

    /// The edit that specializes `node` with `attributes` (ONNX text), keeping what
    /// the call editor keeps.
    pub(super) fn specialize_edit(
        &self,
        node: NodeId,
        attributes: String,
    ) -> Option<graft::edit::Edit> {
        let (graph, node) = node_ref(&self.open.as_ref()?.model, node)?;
        let keep = self.call_keep(node_id_of(self, &graph, node)?);
        Some(graft::edit::Edit::Specialize {
            graph,
            node,
            attributes,
            keep,
        })
    }

    /// The call editor's options: besides the kept functions, the call's generic stays
    /// (the editor binds it again on the next change), even when this was its last
    /// call.
    pub(super) fn call_keep(&self, node: NodeId) -> Vec<String> {
        let mut keep = self.kept_keys();
        if let Some(open) = self.open.as_ref()
            && let Some(f) = generic_of(&open.model, node)
        {
            keep.push(open.model.function(f).key().to_string());
        }
        keep
    }
}
