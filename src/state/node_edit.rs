//! Node editing: the node and terminal editors' edits (made on the page in the log's
//! vocabulary, `Session::apply_edit`), deleting the selection, initializers from
//! `.npy` files, and the text pane.

use super::*;

use graft::edit::{Change, Edit};
use graft::host::{Command, EngineError};

impl Session {
    /// Applies one edit the page made in the log's own vocabulary, from the editor
    /// field `at`: a refusal shows at that field, in the core's words. The node the
    /// field is on stays selected; a node the edit adds is selected.
    pub fn apply_edit(&mut self, edit: Edit, at: Option<FieldAt>) -> bool {
        let what = graft::edit::describe(&edit);
        let adds = matches!(edit, Edit::AddNode { .. });
        let on = match &at {
            Some(FieldAt {
                target: Target::Node(n),
                ..
            }) => Some(*n),
            _ => None,
        };
        let focus = move |m: &Model| match adds {
            true => m.nodes.iter().last().map(|(id, _)| id),
            false => on,
        };
        self.edit_command(at, &what, Command::Edit(edit), focus)
    }

    /// Deletes nodes (all of one graph); with `reconnect`, a node with one input and
    /// one output is passed through.
    pub fn delete_nodes(&mut self, nodes: &[NodeId], reconnect: bool) -> bool {
        if nodes.is_empty() {
            return false;
        }
        let what = if nodes.len() == 1 {
            "Deleting the node".to_string()
        } else {
            format!("Deleting {} nodes", nodes.len())
        };
        let change = Change::DeleteNodes {
            nodes: nodes.to_vec(),
            reconnect,
        };
        self.edit(&what, change, |_| None)
    }

    /// Replaces the data of the initializer `value` by an `.npy` file's array (the
    /// file comes with the request, so this edit is made by id).
    pub fn set_initializer(&mut self, value: graft::ir::ValueId, npy: &[u8]) -> bool {
        let at = FieldAt {
            target: Target::Value(value),
            slot: Slot::Action,
        };
        let make = |m: &Model| {
            let graph = graft::edit::live_value(m, value)?.graph;
            Ok(Some(Change::SetInitializer {
                graph,
                value,
                npy: npy.into(),
            }))
        };
        self.edit_made(Some(at), "Replacing the initializer", make, |_| None)
    }

    /// Applies edited ONNX text to the whole model (`function` `None`) or to one
    /// function (its index), as one edit. A refusal is answered as the core gives it
    /// (text that does not parse names its line and column), for the text pane to
    /// show beside the text; the banner is left alone.
    pub fn apply_text(&mut self, function: Option<usize>, text: &str) -> Result<(), EngineError> {
        let refused = |field, message: &str| {
            EngineError::Refused(graft::edit::EditError::new(field, message))
        };
        if self.busy() {
            return Err(refused(
                graft::edit::Field::Edit,
                "The editor is busy (an open, an inline or a layout in progress).",
            ));
        }
        let text = text.to_string();
        let change = match function {
            None => Change::ReplaceModel { text },
            Some(i) => {
                let function = self.function_key(i).ok_or_else(|| {
                    refused(
                        graft::edit::Field::Function,
                        "That function is no longer in the model.",
                    )
                })?;
                Change::ReplaceFunction { function, text }
            }
        };
        // The engine let the request in only while its ids hold.
        let on = self.open.as_ref().map_or(0, |o| o.serial());
        self.command(Command::Change { change, on }, |_| None)?;
        self.error = None;
        Ok(())
    }

    /// The default-domain operators the palette offers (at the model's opset), with
    /// the first line of each one's documentation.
    pub fn palette(&self) -> Vec<(String, String)> {
        let Some(model) = self.open.as_ref().map(|o| o.doc.model()) else {
            return Vec::new();
        };
        let version = model.opset_version("").unwrap_or(1);
        let mut ops: Vec<(String, String)> = graft::schema::ops("")
            .filter_map(|op| graft::schema::lookup("", op, version))
            .filter(|s| !s.deprecated)
            .map(|s| {
                let first = s.doc.trim().lines().next().unwrap_or("").trim().to_string();
                (s.name.clone(), first)
            })
            .collect();
        ops.sort();
        ops
    }
}
