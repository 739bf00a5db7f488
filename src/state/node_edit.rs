//! Node editing: the node and terminal editors' edits (names, attributes, inputs, outputs, types, initializers, adding and deleting nodes) and the text pane.

use super::*;

use graft::edit::{Change, EditError};
use graft::ir::ValueId;

impl Session {
    /// Applies the change `make` builds for `node` (by ids, its values read from what
    /// the user typed); a value that does not read, or a refusal, shows at the field.
    pub(super) fn edit_node(
        &mut self,
        what: &str,
        node: NodeId,
        slot: Slot,
        make: impl FnOnce(&Model) -> Result<Option<Change>, EditError>,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> bool {
        let at = FieldAt {
            target: Target::Node(node),
            slot,
        };
        // `make` reads the node: it is looked up through the checked door first.
        let make = |m: &Model| {
            graft::edit::live_node(m, node)?;
            make(m)
        };
        self.edit_made(Some(at), what, make, focus)
    }

    /// Renames a node (`""` removes the name).
    pub fn rename_node(&mut self, node: NodeId, to: &str) -> bool {
        let to = to.trim().to_string();
        self.edit_node(
            "Renaming the node",
            node,
            Slot::Name,
            |_| Ok(Some(Change::RenameNode { node, to })),
            move |_| Some(node),
        )
    }

    /// Sets attributes of a node from ONNX text (`alpha = 0.5`), each value read with
    /// the type the node declares for it.
    pub fn set_attribute(&mut self, node: NodeId, text: &str) -> bool {
        self.edit_node(
            "Setting the attribute",
            node,
            Slot::Attribute,
            |m| {
                let attributes = graft::edit::read_attributes(m, node, text.trim())?;
                Ok(Some(Change::SetAttributes { node, attributes }))
            },
            move |_| Some(node),
        )
    }

    pub fn remove_attribute(&mut self, node: NodeId, name: &str) -> bool {
        let name = name.to_string();
        self.edit_node(
            "Removing the attribute",
            node,
            Slot::Attribute,
            |_| Ok(Some(Change::RemoveAttribute { node, name })),
            move |_| Some(node),
        )
    }

    /// Connects input `index` of `node` to the value named `value` (`""` disconnects).
    pub fn connect(&mut self, node: NodeId, index: usize, value: &str) -> bool {
        let value = value.trim();
        self.edit_node(
            "Connecting the input",
            node,
            Slot::Input(index),
            |m| {
                let graph = m.node(node).graph;
                let value = (!value.is_empty())
                    .then(|| graft::edit::visible_value(m, graph, value))
                    .transpose()?;
                Ok(Some(Change::SetInput { node, index, value }))
            },
            move |_| Some(node),
        )
    }

    /// Renames output `index` of `node`; every reader follows.
    pub fn rename_output(&mut self, node: NodeId, index: usize, to: &str) -> bool {
        let to = to.trim().to_string();
        self.edit_node(
            "Renaming the value",
            node,
            Slot::Output(index),
            |m| {
                let value = m.node(node).outputs.get(index).copied().flatten();
                Ok(value.map(|value| Change::RenameValue { value, to }))
            },
            move |_| Some(node),
        )
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

    /// Adds an `op` node after `node`, reading its first output, with the schema's
    /// attribute defaults written out; the new node is selected.
    pub fn add_after(&mut self, node: NodeId, op: &str) -> bool {
        let op = op.trim().to_string();
        if op.is_empty() {
            return false;
        }
        self.edit_node(
            &format!("Adding {op}"),
            node,
            Slot::Add,
            |m| {
                let input = m.node(node).outputs.iter().flatten().next().copied();
                Ok(Some(Change::AddNode {
                    graph: m.node(node).graph,
                    op_type: op,
                    domain: String::new(),
                    inputs: input.into_iter().map(Some).collect(),
                    outputs: Vec::new(),
                    attributes: Vec::new(),
                    defaults: true,
                    name: String::new(),
                    at: None,
                }))
            },
            |m| m.nodes.iter().last().map(|(id, _)| id),
        )
    }

    /// Applies the change `make` builds from `value` and its graph; a value that does
    /// not read, or a refusal, shows at the field.
    pub(super) fn edit_value(
        &mut self,
        what: &str,
        value: ValueId,
        slot: Slot,
        make: impl FnOnce(graft::ir::GraphId) -> Result<Change, EditError>,
    ) -> bool {
        let at = FieldAt {
            target: Target::Value(value),
            slot,
        };
        self.edit_made(
            Some(at),
            what,
            |m| make(graft::edit::live_value(m, value)?.graph).map(Some),
            |_| None,
        )
    }

    /// Renames a graph input or output (or any value); every reader follows.
    pub fn rename_value(&mut self, value: ValueId, to: &str) -> bool {
        let to = to.trim().to_string();
        self.edit_value("Renaming the value", value, Slot::Name, |_| {
            Ok(Change::RenameValue { value, to })
        })
    }

    /// Sets the stated type of a graph input or output (`float[batch, 4]`).
    pub fn set_value_type(&mut self, value: ValueId, ty: &str) -> bool {
        self.edit_value("Setting the type", value, Slot::Type, |graph| {
            let ty = graft::edit::read_type(ty.trim())?;
            Ok(Change::SetType { graph, value, ty })
        })
    }

    pub fn remove_graph_input(&mut self, value: ValueId) -> bool {
        self.edit_value("Removing the input", value, Slot::Action, |graph| {
            Ok(Change::RemoveInput { graph, value })
        })
    }

    pub fn remove_graph_output(&mut self, value: ValueId) -> bool {
        self.edit_value("Removing the output", value, Slot::Action, |graph| {
            Ok(Change::RemoveOutput { graph, value })
        })
    }

    /// Makes output `index` of `node` an output of the node's graph.
    pub fn add_graph_output(&mut self, node: NodeId, index: usize) -> bool {
        self.edit_node(
            "Adding the graph output",
            node,
            Slot::Output(index),
            |m| {
                let graph = m.node(node).graph;
                let value = m.node(node).outputs.get(index).copied().flatten();
                Ok(value.map(|value| Change::AddOutput { graph, value }))
            },
            move |_| Some(node),
        )
    }

    /// Replaces the data of the initializer `value` by an `.npy` file's array.
    pub fn set_initializer(&mut self, value: ValueId, npy: &[u8]) -> bool {
        self.edit_value("Replacing the initializer", value, Slot::Action, |graph| {
            Ok(Change::SetInitializer {
                graph,
                value,
                npy: npy.into(),
            })
        })
    }

    /// Adds an input to the graph `value` belongs to (`ty` as ONNX text; empty: no
    /// type).
    pub fn add_graph_input(&mut self, beside: ValueId, name: &str, ty: &str) -> bool {
        let (name, ty) = (name.trim().to_string(), ty.trim());
        self.edit_value("Adding the input", beside, Slot::NewInput, |graph| {
            let ty = (!ty.is_empty())
                .then(|| graft::edit::read_type(ty))
                .transpose()?;
            Ok(Change::AddInput { graph, name, ty })
        })
    }

    /// Applies edited ONNX text to the whole model (`function` `None`) or to one
    /// function (its index); a parse error is refused with its line.
    pub fn apply_text(&mut self, function: Option<usize>, text: &str) -> bool {
        let change = match function {
            None => Change::ReplaceModel {
                text: text.to_string(),
            },
            Some(i) => {
                let Some(function) = self.function_key(i) else {
                    return false;
                };
                Change::ReplaceFunction {
                    function,
                    text: text.to_string(),
                }
            }
        };
        self.edit("The text", change, |_| None)
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
