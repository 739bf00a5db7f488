//! The document and its history: every edit goes through here (checked, undoable), and undo and redo.

use super::*;

impl Session {
    /// Applies a change to the open model. On success the canvas shows the result,
    /// with the groups open that were open before (and the node `focus` finds
    /// selected), and the change goes into the history (undo, redo, the log, as its
    /// record); on an error nothing changes and the error is shown.
    pub(super) fn edit(
        &mut self,
        what: &str,
        change: graft::edit::Change,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> bool {
        self.edit_made(None, what, |_| Ok(Some(change)), focus)
    }

    /// [`Session::edit`] of the change `make` builds from the open model (`None`:
    /// nothing to do), made from an editor's field (`at`): a value that does not read
    /// and a refusal are shown beside that field, in the core's words (they name
    /// what is wrong), not in the banner.
    pub(super) fn edit_made(
        &mut self,
        at: Option<FieldAt>,
        what: &str,
        make: impl FnOnce(&Model) -> Result<Option<graft::edit::Change>, graft::edit::EditError>,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> bool {
        if self.draft.is_some() || self.work.is_some() || self.pending().is_some() {
            return false;
        }
        let Some(open) = self.open.as_mut() else {
            return false;
        };
        let mut model = std::mem::take(&mut open.model);
        let made = match make(&model) {
            Ok(Some(change)) => self
                .edits
                .apply_change(&mut model, &change, &mut open.checked),
            Ok(None) => {
                open.model = model;
                return false;
            }
            Err(e) => Err(e),
        };
        let touched = match made {
            Ok(touched) => touched,
            Err(e) => {
                open.model = model;
                self.refuse(at, what, e);
                return false;
            }
        };
        self.field_error = None;
        let focus = focus(&model);
        self.show_edited(model, &touched, focus, true);
        self.error = None;
        true
    }

    /// Shows why an edit was refused: beside the field it came from, else in the
    /// banner.
    pub(super) fn refuse(&mut self, at: Option<FieldAt>, what: &str, e: graft::edit::EditError) {
        match at {
            Some(at) => {
                self.field_error = Some(FieldError {
                    at: at.refined(&e.field),
                    message: e.message,
                })
            }
            None => self.error = Some(format!("{what}: {e}")),
        }
    }

    /// Shows `model`, the open one after an edit, undo or redo that `touched`
    /// describes: inference and the checker redo only what it touched; an edit of
    /// attributes alone rewrites the edited boxes in place and lays out only the groups
    /// holding them, anything else builds the view again with the groups open that
    /// were open.
    /// `checked_current`: the open model's check is already that of `model`.
    pub(super) fn show_edited(
        &mut self,
        model: Model,
        touched: &Touched,
        focus: Option<NodeId>,
        checked_current: bool,
    ) {
        self.field_error = None;
        let Some(mut before) = self.open.take() else {
            return;
        };
        // The view shares the inference; let go of it so the update needs no copy.
        if let Some(scene) = before.scene.as_mut() {
            scene.view.inferred = None;
        }
        let mut inferred = Arc::try_unwrap(std::mem::take(&mut before.inferred))
            .unwrap_or_else(|shared| (*shared).clone());
        inferred.update_touched(&model, touched);
        let inferred = Arc::new(inferred);
        let mut checked = std::mem::take(&mut before.checked);
        if !checked_current {
            checked.update(&model, touched);
        }
        if before
            .imported
            .iter()
            .any(|d| !graft::check::import_finding_holds(&model, d))
        {
            let holding = before.imported.iter();
            let holding = holding.filter(|d| graft::check::import_finding_holds(&model, d));
            before.imported = Arc::new(holding.cloned().collect());
        }
        let summary = Arc::new(summary_of(&model, &before.imported, &checked));
        let in_place = touched.labels_only()
            && before
                .scene
                .as_mut()
                .is_some_and(|scene| scene.refresh_nodes(&model, &touched.nodes));
        let (mut next, items) = if in_place && let Some(mut scene) = before.scene.take() {
            scene.view.inferred = Some(inferred.clone());
            let _ = scene.layout(&model, &mut || false);
            let items = (0..scene.view.items.len())
                .filter_map(|i| ItemId::try_from(i).ok())
                .map(|i| (i, i))
                .collect();
            let next = edited_model(&before, model, summary, Some(scene), inferred, checked);
            (next, items)
        } else {
            let renumbered = touched.ids == graft::ir::Ids::Renumbered;
            open_edited(&before, model, summary, inferred, checked, renumbered)
        };
        let focus = focus.and_then(|node| {
            let view = &next.scene.as_ref()?.view;
            let found = view
                .items
                .iter()
                .position(|i| matches!(i.kind, ItemKind::Node { node: n, .. } if n == node))?;
            ItemId::try_from(found).ok()
        });
        if touched.ids != graft::ir::Ids::Kept {
            next.ids_from = next.serial;
        }
        self.moves = Some(Moves {
            from: before.serial,
            to: next.serial,
            items,
            focus,
        });
        self.open = Some(next);
    }

    /// Undoes the last edit.
    pub fn undo(&mut self) -> bool {
        if self.draft.is_some() || self.work.is_some() || self.pending().is_some() {
            return false;
        }
        let Some(open) = self.open.as_mut() else {
            return false;
        };
        let mut model = std::mem::take(&mut open.model);
        let Some((_, touched)) = self.edits.undo(&mut model) else {
            open.model = model;
            return false;
        };
        self.show_edited(model, &touched, None, false);
        true
    }

    /// Applies the last undone edit again.
    pub fn redo(&mut self) -> bool {
        if self.draft.is_some() || self.work.is_some() || self.pending().is_some() {
            return false;
        }
        let Some(open) = self.open.as_mut() else {
            return false;
        };
        let mut model = std::mem::take(&mut open.model);
        match self.edits.redo(&mut model) {
            Ok(Some((_, touched))) => {
                self.show_edited(model, &touched, None, false);
                true
            }
            Ok(None) => {
                open.model = model;
                false
            }
            Err(e) => {
                open.model = model;
                self.error = Some(format!("Redo: {e}"));
                false
            }
        }
    }

    pub fn can_undo(&self) -> bool {
        self.edits.can_undo() && self.draft.is_none()
    }

    pub fn can_redo(&self) -> bool {
        self.edits.can_redo() && self.draft.is_none()
    }

    /// The history: the edits in force (oldest first), then the undone ones (the next
    /// to redo first), each as one line.
    pub fn history(&self) -> (Vec<String>, Vec<String>) {
        let line = |e: &graft::edit::Edit| graft::edit::describe(e);
        (
            self.edits.log().into_iter().map(line).collect(),
            self.edits.undone().iter().rev().map(line).collect(),
        )
    }

    /// The edit log as JSON (`graft apply LOG MODEL -o OUT` replays it).
    pub fn edit_log(&self) -> String {
        self.edits.log_json()
    }

    /// The stamps of the edits in force (`History::stamps`), and the JSON of each
    /// edit from `from` on.
    pub fn log_stamps(&self) -> Vec<u64> {
        self.edits.stamps()
    }

    pub fn log_from(&self, from: usize) -> Vec<String> {
        let log = self.edits.log();
        let edits = log.get(from..).unwrap_or_default();
        edits
            .iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .collect()
    }

    /// Applies an edit log (as [`Session::edit_log`] writes it) to the open model,
    /// each edit undoable, as a kept session is restored, and shows `note` (if any)
    /// in the banner. An edit the model refuses stops it, said there too, the edits
    /// before it kept: what can be had back of a session is.
    pub fn restore(&mut self, log: &str, note: String) {
        if !note.is_empty() {
            self.error = Some(note);
        }
        let mut edits = match read_log(log) {
            Ok(edits) => edits,
            Err((_, e)) => {
                self.error = Some(format!("The kept edits do not read: {e}"));
                return;
            }
        };
        let total = edits.len();
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let mut model = std::mem::take(&mut open.model);
        let mut applied = 0;
        let mut refused = None;
        for edit in edits.drain(..) {
            match self
                .edits
                .apply_checked(&mut model, edit, &mut open.checked)
            {
                Ok(_) => applied += 1,
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        if applied == 0 {
            open.model = model;
        } else {
            self.show_edited(model, &Touched::whole(), None, true);
        }
        if let Some(e) = refused {
            self.error = Some(format!(
                "Only {applied} of the {total} kept edits could be applied again: {e}"
            ));
        }
    }

    /// Applies an edit log to the open model, all of it or none (`__graftApply`),
    /// each edit undoable. Refused: why, and which edit (from 0) when one is at fault;
    /// the model is as it was.
    pub fn apply_log(&mut self, log: &str) -> Result<usize, (Option<usize>, String)> {
        if self.draft.is_some() || self.work.is_some() || self.pending().is_some() {
            return Err((
                None,
                "The editor is busy (an open, an inline or a layout in progress).".into(),
            ));
        }
        let edits = read_log(log)?;
        let open = self
            .open
            .as_mut()
            .ok_or((None, "No model is open.".to_string()))?;
        let mut model = std::mem::take(&mut open.model);
        match self.edits.apply_all(&mut model, edits, &mut open.checked) {
            Ok(0) => {
                open.model = model;
                Ok(0)
            }
            Ok(applied) => {
                self.show_edited(model, &Touched::whole(), None, true);
                self.error = None;
                Ok(applied)
            }
            Err((at, e)) => {
                open.model = model;
                Err((Some(at), format!("edit {} of the log: {e}", at + 1)))
            }
        }
    }
}

/// The edits of a JSON edit log (an array, as `graft apply` reads); one that does
/// not read is named by its position (from 0).
fn read_log(log: &str) -> Result<Vec<graft::edit::Edit>, (Option<usize>, String)> {
    let items: Vec<serde_json::Value> = serde_json::from_str(log)
        .map_err(|e| (None, format!("the log is not a JSON array of edits: {e}")))?;
    items
        .into_iter()
        .enumerate()
        .map(|(k, item)| {
            serde_json::from_value(item).map_err(|e| {
                (
                    Some(k),
                    format!("edit {} of the log does not read: {e}", k + 1),
                )
            })
        })
        .collect()
}
