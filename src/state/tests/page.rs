//! The page's side of the node and terminal editors, the call editor and the
//! library, for the tests: each field or button sends one edit in the log's
//! vocabulary (`Request::Edit`), addressed as the panel shows it (the node's graph
//! path and index, a value's name, a function's key), from the field a refusal
//! shows at. These build the same edits `graph/node_editor.rs`, `properties.rs` and
//! `library.rs` build.

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

    pub fn use_overload(&mut self, node: NodeId, overload: &str) -> bool {
        let (graph, node) = self.address(node);
        let overload = overload.into();
        self.apply_edit(
            Edit::UseOverload {
                graph,
                node,
                overload,
            },
            None,
        )
    }

    /// The key the library panel shows for its `index`-th function.
    fn library_key(&self, index: usize) -> String {
        let library = self.function_library();
        library
            .get(index)
            .map(|f| f.key.clone())
            .unwrap_or_default()
    }

    pub fn library_inline_all(&mut self, index: usize) -> bool {
        let function = self.library_key(index);
        self.apply_edit(Edit::InlineCalls { function }, None)
    }

    pub fn library_delete(&mut self, index: usize) -> bool {
        let function = self.library_key(index);
        self.apply_edit(Edit::DeleteFunction { function }, None)
    }

    pub fn library_rename(&mut self, index: usize, to: &str) -> bool {
        let (function, to) = (self.library_key(index), to.trim().into());
        self.apply_edit(Edit::RenameFunction { function, to }, None)
    }

    pub fn library_specialize_all(&mut self, index: usize) -> bool {
        let function = self.library_key(index);
        let library = self.function_library();
        let keep = library.iter().filter(|f| f.kept).map(|f| f.key.clone());
        let keep = keep.collect();
        self.apply_edit(Edit::SpecializeAll { function, keep }, None)
    }

    /// The call editor's Specialize button (`attributes` empty) or an attribute's
    /// field (`at`): the call's generic and the functions the library keeps stay.
    fn specialize(&mut self, node: NodeId, attributes: String, at: Option<FieldAt>) -> bool {
        let (graph, index) = self.address(node);
        let model = self.open().expect("a model").model();
        let generic = model
            .live_node(node)
            .and_then(|_| graft::view::panel::call_editor(model, node))
            .map(|c| c.function);
        let library = self.function_library();
        let keep = library.iter().filter(|f| f.kept).map(|f| f.key.clone());
        let keep = keep.chain(generic).collect();
        let edit = Edit::Specialize {
            graph,
            node: index,
            attributes,
            keep,
        };
        self.apply_edit(edit, at)
    }

    pub fn specialize_call(&mut self, node: NodeId, attributes: &str) -> bool {
        self.specialize(node, attributes.trim().into(), None)
    }

    pub fn set_call_attribute(&mut self, node: NodeId, name: &str, value: &str) -> bool {
        let at = FieldAt {
            target: Target::Node(node),
            slot: Slot::CallAttribute(name.into()),
        };
        self.specialize(node, format!("{name} = {value}"), Some(at))
    }
}
