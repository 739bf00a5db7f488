//! Edits the page asks for: a node's, a call's, the library's, an inline's and an outline's, each one request the engine applies and checks.

use super::*;

impl AppState {
    /// Checks `text` as the name of a new function; `then` hears the problem, if any.
    pub fn new_function_problem(self, text: String, then: impl FnOnce(Option<String>) + 'static) {
        self.ask(Request::NewFunctionProblem(text), move |a| {
            if let Answer::Problem(p) = a {
                then(p);
            }
        });
    }

    /// Outlines the selected nodes into the new function `name` (undoable); `then`
    /// hears whether it was done (an error shows in the banner).
    pub fn outline(self, name: String, then: impl FnOnce(bool) + 'static) {
        self.ask(Request::Outline(name), move |a| {
            then(a == Answer::Done(true))
        });
    }

    /// Opens the inline dialog for the model among the picked or dropped files.
    pub fn begin_inline(self, picked: PickedFiles) {
        if !picked.is_empty() {
            self.send_with(Request::BeginInline, Some(picked));
        }
    }

    pub fn inline_bind(self, index: usize, value: Option<String>) {
        self.send_timed("inline_preview_ms", Request::InlineBind(index, value));
    }

    pub fn inline_expose(self, index: usize, exposed: bool) {
        self.send_timed("inline_preview_ms", Request::InlineExpose(index, exposed));
    }

    pub fn inline_prefix(self, prefix: String) {
        self.send_timed("inline_preview_ms", Request::InlinePrefix(prefix));
    }

    pub fn inline_as_function(self, function: Option<String>) {
        self.send_timed("inline_preview_ms", Request::InlineAsFunction(function));
    }

    /// The host values the `index`-th guest input may be bound to (tracked).
    pub fn inline_candidates(self, index: usize) -> Vec<graft::inline::Candidate> {
        self.draft.with(|d| {
            d.as_ref()
                .and_then(|d| d.candidates.get(index).cloned())
                .unwrap_or_default()
        })
    }

    /// Apply; an error stays in the dialog (it is the draft's own).
    pub fn apply_inline(self) {
        self.send(Request::ApplyInline);
    }

    pub fn cancel_inline(self) {
        self.send(Request::CancelInline);
    }

    /// Checks a value typed for a call's attribute; `then` hears the problem, if any.
    pub fn check_call_attribute(
        self,
        node: graft::ir::NodeId,
        name: String,
        value: String,
        then: impl FnOnce(Option<String>) + 'static,
    ) {
        self.ask(Request::CheckCallAttribute(node, name, value), move |a| {
            if let Answer::Problem(p) = a {
                then(p);
            }
        });
    }

    /// Specializes the call `node` of `graph` (the call editor's address) with
    /// `attributes` (ONNX text; empty: the call's own values), made from the field
    /// `at`. Its generic `function` stays, as do the functions the library keeps: the
    /// editor binds the generic again on the next change. Publishes `specialize_ms`,
    /// from the edit to the redrawn canvas painted (the engine publishes
    /// `edit_sync_ms`, the edit itself).
    pub fn specialize_call(
        self,
        (graph, node): (String, usize),
        function: String,
        attributes: String,
        at: Option<FieldAt>,
    ) {
        let mut keep: Vec<String> = self.document.with_untracked(|d| {
            d.library
                .iter()
                .filter(|f| f.kept)
                .map(|f| f.key.clone())
                .collect()
        });
        keep.push(function);
        let edit = graft::edit::Edit::Specialize {
            graph,
            node,
            attributes,
            keep,
        };
        self.send_timed("specialize_ms", Request::Edit { edit, at });
    }

    /// Why the last edit from `slot` of `target`'s editor was refused (tracked).
    pub fn field_error(self, target: Target, slot: Slot) -> Option<String> {
        self.messages.with(|m| {
            m.field
                .as_ref()
                .filter(|f| f.at.target == target && f.at.slot == slot)
                .map(|f| f.message.clone())
        })
    }

    /// Applies `edit`, made in the log's vocabulary from the editor field `at` (a
    /// refusal shows there; with none, in the banner).
    pub fn edit(self, edit: graft::edit::Edit, at: Option<FieldAt>) {
        self.node_edit(Request::Edit { edit, at });
    }

    /// Deletes the selected nodes (the Delete key, the editor's button).
    pub fn delete_selected(self, reconnect: bool) {
        if self.selected_nodes.get_untracked() > 0 {
            self.node_edit(Request::DeleteSelected(reconnect));
        }
    }

    /// Replaces the initializer's data with the picked `.npy` file (read in the
    /// engine).
    pub fn set_initializer(self, value: graft::ir::ValueId, picked: PickedFiles) {
        if !picked.is_empty() {
            self.send_with(Request::SetInitializer(value), Some(picked));
        }
    }

    pub fn library_keep(self, index: usize, keep: bool) {
        self.send(Request::LibraryKeep(index, keep));
    }
}
