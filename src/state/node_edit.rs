//! Node editing: the node and terminal editors' edits (names, attributes, inputs, outputs, types, initializers, adding and deleting nodes) and the text pane.

use super::*;

impl Session {
    /// Applies the edit `make` builds from `node`'s graph path and index.
    pub(super) fn edit_node(
        &mut self,
        what: &str,
        node: NodeId,
        slot: Slot,
        make: impl FnOnce(&Model, String, usize) -> Option<graft::edit::Edit>,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> bool {
        let Some(model) = self.open.as_ref().map(|o| &o.model) else {
            return false;
        };
        let Some((graph, index)) = node_ref(model, node) else {
            self.error = Some(format!("{what}: the node is not in a graph Graft can edit"));
            return false;
        };
        let Some(edit) = make(model, graph, index) else {
            return false;
        };
        let at = FieldAt {
            target: Target::Node(node),
            slot,
        };
        self.edit_at(Some(at), what, edit, focus)
    }

    /// Renames a node (`""` removes the name).
    pub fn rename_node(&mut self, node: NodeId, to: &str) -> bool {
        let to = to.trim().to_string();
        self.edit_node(
            "Renaming the node",
            node,
            Slot::Name,
            |_, graph, node| Some(graft::edit::Edit::RenameNode { graph, node, to }),
            move |_| Some(node),
        )
    }

    /// Sets attributes of a node from ONNX text (`alpha = 0.5`).
    pub fn set_attribute(&mut self, node: NodeId, text: &str) -> bool {
        let attribute = text.trim().to_string();
        self.edit_node(
            "Setting the attribute",
            node,
            Slot::Attribute,
            |_, graph, node| {
                Some(graft::edit::Edit::SetAttribute {
                    graph,
                    node,
                    attribute,
                })
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
            |_, graph, node| Some(graft::edit::Edit::RemoveAttribute { graph, node, name }),
            move |_| Some(node),
        )
    }

    /// Connects input `index` of `node` to the value named `value` (`""` disconnects).
    pub fn connect(&mut self, node: NodeId, index: usize, value: &str) -> bool {
        let value = value.trim().to_string();
        self.edit_node(
            "Connecting the input",
            node,
            Slot::Input(index),
            |_, graph, node| {
                Some(graft::edit::Edit::SetInput {
                    graph,
                    node,
                    index,
                    value,
                })
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
            |m, graph, _| {
                let v = m.node(node).outputs.get(index).copied().flatten()?;
                Some(graft::edit::Edit::RenameValue {
                    graph,
                    from: m.value(v).name.clone(),
                    to,
                })
            },
            move |_| Some(node),
        )
    }

    /// Deletes nodes (all of one graph); with `reconnect`, a node with one input and
    /// one output is passed through.
    pub fn delete_nodes(&mut self, nodes: &[NodeId], reconnect: bool) -> bool {
        let Some(model) = self.open.as_ref().map(|o| &o.model) else {
            return false;
        };
        let refs: Vec<(String, usize)> = nodes.iter().filter_map(|&n| node_ref(model, n)).collect();
        let Some((graph, _)) = refs.first().cloned() else {
            return false;
        };
        if refs.len() != nodes.len() || refs.iter().any(|(g, _)| *g != graph) {
            self.error = Some("Deleting: the selected nodes are not all in one graph".into());
            return false;
        }
        let what = if nodes.len() == 1 {
            "Deleting the node".to_string()
        } else {
            format!("Deleting {} nodes", nodes.len())
        };
        let edit = graft::edit::Edit::DeleteNodes {
            graph,
            nodes: refs.into_iter().map(|(_, k)| k).collect(),
            reconnect,
        };
        self.edit(&what, edit, |_| None)
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
            |m, graph, _| {
                let input = m
                    .node(node)
                    .outputs
                    .iter()
                    .flatten()
                    .next()
                    .map(|v| m.value(*v).name.clone());
                Some(graft::edit::Edit::AddNode {
                    graph,
                    op_type: op,
                    domain: String::new(),
                    inputs: input.into_iter().collect(),
                    outputs: Vec::new(),
                    attributes: String::new(),
                    defaults: true,
                    name: String::new(),
                    at: None,
                })
            },
            |m| m.nodes.iter().last().map(|(id, _)| id),
        )
    }

    /// Applies the edit `make` builds from the path of `value`'s graph and its name.
    pub(super) fn edit_value(
        &mut self,
        what: &str,
        value: graft::ir::ValueId,
        slot: Slot,
        make: impl FnOnce(String, String) -> graft::edit::Edit,
    ) -> bool {
        let Some(model) = self.open.as_ref().map(|o| &o.model) else {
            return false;
        };
        let Some(v) = model.values.get(value) else {
            return false;
        };
        let Some(graph) = graft::edit::graph_path(model, v.graph) else {
            self.error = Some(format!(
                "{what}: the value is not in a graph Graft can edit"
            ));
            return false;
        };
        let edit = make(graph, v.name.clone());
        let at = FieldAt {
            target: Target::Value(value),
            slot,
        };
        self.edit_at(Some(at), what, edit, |_| None)
    }

    /// Renames a graph input or output (or any value); every reader follows.
    pub fn rename_value(&mut self, value: graft::ir::ValueId, to: &str) -> bool {
        let to = to.trim().to_string();
        self.edit_value("Renaming the value", value, Slot::Name, |graph, from| {
            graft::edit::Edit::RenameValue { graph, from, to }
        })
    }

    /// Sets the stated type of a graph input or output (`float[batch, 4]`).
    pub fn set_value_type(&mut self, value: graft::ir::ValueId, ty: &str) -> bool {
        let ty = ty.trim().to_string();
        self.edit_value("Setting the type", value, Slot::Type, |graph, name| {
            graft::edit::Edit::SetType { graph, name, ty }
        })
    }

    pub fn remove_graph_input(&mut self, value: graft::ir::ValueId) -> bool {
        self.edit_value("Removing the input", value, Slot::Action, |graph, name| {
            graft::edit::Edit::RemoveInput { graph, name }
        })
    }

    pub fn remove_graph_output(&mut self, value: graft::ir::ValueId) -> bool {
        self.edit_value("Removing the output", value, Slot::Action, |graph, name| {
            graft::edit::Edit::RemoveOutput { graph, name }
        })
    }

    /// Makes output `index` of `node` an output of the node's graph.
    pub fn add_graph_output(&mut self, node: NodeId, index: usize) -> bool {
        self.edit_node(
            "Adding the graph output",
            node,
            Slot::Output(index),
            |m, graph, _| {
                let v = m.node(node).outputs.get(index).copied().flatten()?;
                Some(graft::edit::Edit::AddOutput {
                    graph,
                    value: m.value(v).name.clone(),
                })
            },
            move |_| Some(node),
        )
    }

    /// Replaces the data of the initializer `value` by an `.npy` file's array.
    pub fn set_initializer(&mut self, value: graft::ir::ValueId, npy: &[u8]) -> bool {
        let npy_base64 = graft::edit::base64_encode(npy);
        self.edit_value(
            "Replacing the initializer",
            value,
            Slot::Action,
            |graph, name| graft::edit::Edit::SetInitializer {
                graph,
                name,
                npy_base64,
            },
        )
    }

    /// Adds an input to the graph `value` belongs to (`ty` as ONNX text).
    pub fn add_graph_input(&mut self, beside: graft::ir::ValueId, name: &str, ty: &str) -> bool {
        let (name, ty) = (name.trim().to_string(), ty.trim().to_string());
        self.edit_value("Adding the input", beside, Slot::NewInput, |graph, _| {
            graft::edit::Edit::AddInput { graph, name, ty }
        })
    }

    /// Applies edited ONNX text to the whole model (`function` `None`) or to one
    /// function (its index); a parse error is refused with its line.
    pub fn apply_text(&mut self, function: Option<usize>, text: &str) -> bool {
        let edit = match function {
            None => graft::edit::Edit::ReplaceModel {
                text: text.to_string(),
            },
            Some(i) => {
                let Some(key) = self.function_key(i) else {
                    return false;
                };
                graft::edit::Edit::ReplaceFunction {
                    function: key.to_string(),
                    text: text.to_string(),
                }
            }
        };
        self.edit("The text", edit, |_| None)
    }

    /// The default-domain operators the palette offers (at the model's opset), with
    /// the first line of each one's documentation.
    pub fn palette(&self) -> Vec<(String, String)> {
        let Some(model) = self.open.as_ref().map(|o| &o.model) else {
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
