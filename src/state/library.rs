//! The function library: the functions listed, and its actions (outline, specialize all, inline all, rename, delete, keep, choose an overload, expand a standard op).

use super::*;

impl Session {
    /// The model's local functions, for the function library.
    pub fn function_library(&self) -> Vec<FunctionInfo> {
        let Some(open) = self.open.as_ref() else {
            return Vec::new();
        };
        let model = open.doc.model();
        model
            .functions
            .iter()
            .enumerate()
            .map(|(index, &f)| {
                let func = model.function(f);
                let key = func.key();
                let mut attributes: Vec<(String, String)> = func
                    .attribute
                    .iter()
                    .map(|a| (a.clone(), "no default".to_string()))
                    .collect();
                attributes.extend(func.attribute_proto.iter().map(|a| {
                    let default = match &a.kind {
                        graft::ir::AttrKind::Value(v) => {
                            format!("= {}", graft::view::attr_text(model, v))
                        }
                        _ => "?".to_string(),
                    };
                    (a.name().to_string(), default)
                }));
                FunctionInfo {
                    index,
                    domain: key.domain.clone(),
                    name: key.name.clone(),
                    overload: key.overload.clone(),
                    attributes,
                    doc: func.doc_string.clone().unwrap_or_default(),
                    kept: self.kept.contains(&key),
                }
            })
            .collect()
    }

    /// Why `text` cannot name a new function (`DOMAIN.NAME`), or `None` if it can.
    pub fn new_function_problem(&self, text: &str) -> Option<String> {
        let model = self.open.as_ref()?.model();
        graft::library::new_function_key(model, text)
            .err()
            .map(|e| e.to_string())
    }

    /// Moves the nodes among `items` into a new function `DOMAIN.NAME` called where
    /// they were (undoable); the new call is selected.
    pub fn outline(&mut self, items: &[ItemId], name: &str) -> bool {
        let nodes = self.selected_nodes(items);
        let Some(open) = self.open.as_ref() else {
            return false;
        };
        let key = match graft::library::new_function_key(open.doc.model(), name) {
            Ok(key) => key,
            Err(e) => {
                self.error = Some(format!("Outlining {}: {e}", name.trim()));
                return false;
            }
        };
        let edit = graft::edit::Change::Outline {
            nodes,
            function: key.clone(),
        };
        self.edit(&format!("Outlining {key}"), edit, |m| {
            graft::library::call_sites(m, &key).first().copied()
        })
    }

    /// Specializes every call of the `index`-th function whose attributes are all
    /// constant (the library panel's action; undoable).
    pub fn library_specialize_all(&mut self, index: usize) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        let edit = graft::edit::Change::SpecializeAll {
            function: Some(key.clone()),
            keep: self.kept_keys(),
        };
        self.edit(&format!("Specializing the calls of {key}"), edit, |_| None)
    }

    /// Keeps the `index`-th function in the library when no call is left, or not.
    pub fn library_keep(&mut self, index: usize, keep: bool) {
        if let Some(key) = self.function_key(index) {
            if keep {
                self.kept.insert(key);
            } else {
                self.kept.remove(&key);
            }
        }
    }

    /// Points a call at another existing overload of its function (undoable).
    pub fn use_overload(&mut self, node: graft::ir::NodeId, overload: &str) -> bool {
        let edit = graft::edit::Change::UseOverload {
            node,
            overload: overload.to_string(),
        };
        self.edit("Choosing the overload", edit, |_| None)
    }

    /// Replaces a standard-op node by its function body (undoable).
    pub fn expand_standard(&mut self, node: graft::ir::NodeId) -> bool {
        let Some(model) = self.open.as_ref().map(|o| o.doc.model()) else {
            return false;
        };
        // A node no longer in the model is refused by the edit, naming the node.
        let op = model
            .live_node(node)
            .map_or("the node", |n| n.op_type())
            .to_string();
        let edit = graft::edit::Change::ExpandStandard { node };
        self.edit(&format!("Expanding {op}"), edit, |_| None)
    }

    pub(super) fn function_key(&self, index: usize) -> Option<graft::ir::FunctionKey> {
        let model = self.open.as_ref()?.model();
        model.functions.get(index).map(|&f| model.function(f).key())
    }

    /// Inlines every call of the `index`-th function (the library panel's action).
    pub fn library_inline_all(&mut self, index: usize) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        let edit = graft::edit::Change::InlineCalls {
            function: Some(key.clone()),
        };
        self.edit(&format!("Inlining the calls of {key}"), edit, |_| None)
    }

    /// Deletes the `index`-th function; refused while something calls it.
    pub fn library_delete(&mut self, index: usize) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        let edit = graft::edit::Change::DeleteFunction {
            function: key.clone(),
        };
        self.edit(&format!("Deleting {key}"), edit, |_| None)
    }

    /// Renames the `index`-th function to `DOMAIN.NAME`; every call follows.
    pub fn library_rename(&mut self, index: usize, to: &str) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        let to = match self
            .open
            .as_ref()
            .map(|o| graft::library::new_function_key(o.doc.model(), to))
        {
            Some(Ok(to)) => to,
            Some(Err(e)) => {
                self.error = Some(format!("Renaming {key}: {e}"));
                return false;
            }
            None => return false,
        };
        let edit = graft::edit::Change::RenameFunction {
            function: key.clone(),
            to,
        };
        self.edit(&format!("Renaming {key}"), edit, |_| None)
    }

    pub(super) fn kept_keys(&self) -> Vec<graft::ir::FunctionKey> {
        self.kept.iter().cloned().collect()
    }
}
