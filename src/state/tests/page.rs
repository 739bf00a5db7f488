//! The page's side of the node and terminal editors, for the tests: each field
//! sends one edit in the log's vocabulary (`Request::Edit`), addressed as the
//! editor shows it (the node's graph path and index, a value's name), from the field
//! a refusal shows at. These build the same edits `graph/node_editor.rs` builds.

use super::*;

use graft::edit::Edit;

impl Session {
    /// The graph path and index the node editor of `node` shows.
    fn address(&self, node: NodeId) -> (String, usize) {
        let model = self.open().expect("a model").model();
        let Ok(n) = graft::edit::live_node(model, node) else {
            return (String::new(), usize::MAX);
        };
        let graph = graft::edit::graph_path(model, n.graph).unwrap_or_default();
        let index = model.graph(n.graph).nodes.iter().position(|&x| x == node);
        (graph, index.unwrap_or(usize::MAX))
    }

    /// The graph path and name the terminal editor of `value` shows.
    fn value_address(&self, value: graft::ir::ValueId) -> (String, String) {
        let model = self.open().expect("a model").model();
        let v = graft::edit::live_value(model, value).expect("a live value");
        let graph = graft::edit::graph_path(model, v.graph).unwrap_or_default();
        (graph, v.name.clone())
    }

    fn node_field(&mut self, node: NodeId, slot: Slot, edit: Edit) -> bool {
        let at = FieldAt {
            target: Target::Node(node),
            slot,
        };
        self.apply_edit(edit, Some(at))
    }

    fn value_field(&mut self, value: graft::ir::ValueId, slot: Slot, edit: Edit) -> bool {
        let at = FieldAt {
            target: Target::Value(value),
            slot,
        };
        self.apply_edit(edit, Some(at))
    }

    fn output_name(&self, node: NodeId, k: usize) -> String {
        let model = self.open().expect("a model").model();
        let output = model
            .nodes
            .get(node)
            .and_then(|n| n.outputs.get(k).copied());
        output
            .flatten()
            .map_or_else(String::new, |v| model.value(v).name.clone())
    }

    pub fn rename_node(&mut self, node: NodeId, to: &str) -> bool {
        let (graph, index) = self.address(node);
        let to = to.trim().into();
        let edit = Edit::RenameNode {
            graph,
            node: index,
            to,
        };
        self.node_field(node, Slot::Name, edit)
    }

    pub fn set_attribute(&mut self, node: NodeId, text: &str) -> bool {
        let (graph, index) = self.address(node);
        let attribute = text.trim().into();
        let edit = Edit::SetAttribute {
            graph,
            node: index,
            attribute,
        };
        self.node_field(node, Slot::Attribute, edit)
    }

    pub fn rename_output(&mut self, node: NodeId, k: usize, to: &str) -> bool {
        let ((graph, _), from) = (self.address(node), self.output_name(node, k));
        let to = to.trim().into();
        let edit = Edit::RenameValue { graph, from, to };
        self.node_field(node, Slot::Output(k), edit)
    }

    pub fn add_graph_output(&mut self, node: NodeId, k: usize) -> bool {
        let ((graph, _), value) = (self.address(node), self.output_name(node, k));
        let edit = Edit::AddOutput { graph, value };
        self.node_field(node, Slot::Output(k), edit)
    }

    pub fn add_after(&mut self, node: NodeId, op: &str) -> bool {
        let ((graph, _), input) = (self.address(node), self.output_name(node, 0));
        let edit = Edit::AddNode {
            graph,
            op_type: op.trim().into(),
            domain: String::new(),
            inputs: vec![input],
            outputs: Vec::new(),
            attributes: String::new(),
            defaults: true,
            name: String::new(),
            at: None,
        };
        self.node_field(node, Slot::Add, edit)
    }

    pub fn set_doc_string(&mut self, node: NodeId, doc: &str) -> bool {
        let (graph, index) = self.address(node);
        let doc = doc.trim().into();
        let edit = Edit::SetDocString {
            graph,
            node: Some(index),
            doc,
        };
        self.node_field(node, Slot::Named("doc".into()), edit)
    }

    pub fn rename_value(&mut self, value: graft::ir::ValueId, to: &str) -> bool {
        let (graph, from) = self.value_address(value);
        let to = to.trim().into();
        let edit = Edit::RenameValue { graph, from, to };
        self.value_field(value, Slot::Name, edit)
    }

    pub fn set_value_type(&mut self, value: graft::ir::ValueId, ty: &str) -> bool {
        let (graph, name) = self.value_address(value);
        let ty = ty.trim().into();
        let edit = Edit::SetType { graph, name, ty };
        self.value_field(value, Slot::Type, edit)
    }

    pub fn remove_graph_input(&mut self, value: graft::ir::ValueId) -> bool {
        let (graph, name) = self.value_address(value);
        let edit = Edit::RemoveInput { graph, name };
        self.value_field(value, Slot::Action, edit)
    }

    pub fn remove_graph_output(&mut self, value: graft::ir::ValueId) -> bool {
        let (graph, name) = self.value_address(value);
        let edit = Edit::RemoveOutput { graph, name };
        self.value_field(value, Slot::Action, edit)
    }

    pub fn add_graph_input(&mut self, beside: graft::ir::ValueId, name: &str, ty: &str) -> bool {
        let (graph, _) = self.value_address(beside);
        let (name, ty) = (name.trim().into(), ty.trim().into());
        let edit = Edit::AddInput { graph, name, ty };
        self.value_field(beside, Slot::NewInput, edit)
    }
}
