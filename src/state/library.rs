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
                    key: key.to_string(),
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

    pub(super) fn function_key(&self, index: usize) -> Option<graft::ir::FunctionKey> {
        let model = self.open.as_ref()?.model();
        model.functions.get(index).map(|&f| model.function(f).key())
    }
}
