//! Calls and specialization: a call's compile-time attributes, checked as typed, and specializing it into an overload.

use super::properties::generic_of;
use super::*;

use graft::edit::Change;

impl Session {
    /// Sets compile-time attributes on a call (ONNX text, `alpha = 0.2`, each read with
    /// the type the function declares; empty: keep the call's values) and specializes
    /// it into an overload (undoable).
    pub fn specialize_call(&mut self, node: NodeId, attributes: &str) -> bool {
        let attributes = attributes.trim();
        let keep = self.call_keep(node);
        self.edit_made(
            None,
            "Specializing the call",
            |m| {
                let attributes = if attributes.is_empty() {
                    Vec::new()
                } else {
                    graft::edit::read_attributes(m, node, attributes)?
                };
                Ok(Some(Change::Specialize {
                    node,
                    attributes,
                    keep,
                }))
            },
            |_| None,
        )
    }

    /// Checks a value typed into the call editor for attribute `name` of `node`'s
    /// function (parses, and has the declared type).
    pub fn check_call_attribute(
        &self,
        node: NodeId,
        name: &str,
        value: &str,
    ) -> Result<graft::ir::Attribute, String> {
        let model = &self.open.as_ref().ok_or("no model")?.model();
        let ty =
            generic_of(model, node).and_then(|f| graft::specialize::attribute_type(model, f, name));
        graft::specialize::parse_call_attribute(name, value, ty)
    }

    /// Sets one compile-time attribute of a call and specializes it (undoable); an
    /// invalid value is refused, its error shown at that attribute.
    pub fn set_call_attribute(&mut self, node: NodeId, name: &str, value: &str) -> bool {
        let at = FieldAt {
            target: Target::Node(node),
            slot: Slot::CallAttribute(name.to_string()),
        };
        let attribute = self.check_call_attribute(node, name, value);
        let keep = self.call_keep(node);
        self.edit_made(
            Some(at),
            "Specializing the call",
            |_| {
                let attribute = attribute.map_err(|message| {
                    graft::edit::EditError::new(
                        graft::edit::Field::Attribute(name.to_string()),
                        message,
                    )
                })?;
                Ok(Some(Change::Specialize {
                    node,
                    attributes: vec![attribute],
                    keep,
                }))
            },
            |_| None,
        )
    }

    /// The call editor's options: besides the kept functions, the call's generic stays
    /// (the editor binds it again on the next change), even when this was its last
    /// call.
    pub(super) fn call_keep(&self, node: NodeId) -> Vec<graft::ir::FunctionKey> {
        let mut keep = self.kept_keys();
        if let Some(open) = self.open.as_ref()
            && let Some(f) = generic_of(open.doc.model(), node)
        {
            keep.push(open.doc.model().function(f).key());
        }
        keep
    }
}
