//! The document and its history: every edit, undo, redo and log goes through the open
//! model's `graft::host::Host` (checked, undoable; it keeps what is derived current),
//! and the scene is redrawn from what the command touched.

use graft::host::{Command, EngineError};

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
        if self.busy() {
            return false;
        }
        let Some(open) = self.open.as_ref() else {
            return false;
        };
        let change = match make(open.doc.model()) {
            Ok(Some(change)) => change,
            Ok(None) => return false,
            Err(e) => {
                self.refuse(at, what, e);
                return false;
            }
        };
        // The engine let the request in only while its ids hold (`Host::ids_hold`),
        // so they are the open state's.
        let on = open.serial();
        self.edit_command(at, what, Command::Change { change, on }, focus)
    }

    /// Sends one edit's `command` through the door; a refusal shows beside the
    /// field it came from (`at`), else in the banner.
    pub(super) fn edit_command(
        &mut self,
        at: Option<FieldAt>,
        what: &str,
        command: Command,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> bool {
        if self.busy() {
            return false;
        }
        match self.command(command, focus) {
            Ok(_) => {
                self.error = None;
                true
            }
            Err(e) => {
                match e {
                    EngineError::Refused(e) => self.refuse(at, what, e),
                    e => self.error = Some(format!("{what}: {e}")),
                }
                false
            }
        }
    }

    /// Whether an open, an inline dialog or work in pieces holds the document: no
    /// command reaches it then.
    pub(super) fn busy(&self) -> bool {
        self.draft.is_some() || self.work.is_some() || self.pending().is_some()
    }

    /// Sends `command` through the open document's door and, when it changed the
    /// model, shows the result: the canvas with the groups open that were open
    /// before (and the node `focus` finds selected). On an error nothing changes.
    pub(super) fn command(
        &mut self,
        command: Command,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> Result<graft::host::Applied, EngineError> {
        let Some(open) = self.open.as_mut() else {
            return Err(EngineError::Refused(graft::edit::EditError::new(
                graft::edit::Field::Edit,
                "No model is open.",
            )));
        };
        let from = open.serial();
        // The view shares the inference; let go of it so the update needs no copy.
        let shared = open.scene.as_mut().and_then(|s| s.view.inferred.take());
        let applied = open.doc.apply(command);
        match &applied {
            Ok(applied) if applied.edits > 0 => {
                drop(shared);
                self.field_error = None;
                let focus = focus(open.doc.model());
                self.show_edited(from, &applied.touched, focus);
            }
            _ => {
                if let Some(scene) = open.scene.as_mut() {
                    scene.view.inferred = shared;
                }
            }
        }
        applied
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

    /// Shows the open model after a command that `touched` it, from state `from`: an
    /// edit of attributes or names alone rewrites the edited boxes in place and lays
    /// out only the groups holding them, anything else builds the view again with the
    /// groups open that were open.
    pub(super) fn show_edited(&mut self, from: u64, touched: &Touched, focus: Option<NodeId>) {
        self.field_error = None;
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let model = open.doc.model();
        let in_place = touched.labels_only()
            && open
                .scene
                .as_mut()
                .is_some_and(|scene| scene.refresh_nodes(model, &touched.nodes));
        let items = if in_place && let Some(scene) = open.scene.as_mut() {
            scene.view.inferred = Some(open.doc.inferred().clone());
            let _ = scene.layout(model, &mut || false);
            (0..scene.view.items.len())
                .filter_map(|i| ItemId::try_from(i).ok())
                .map(|i| (i, i))
                .collect()
        } else {
            let renumbered = touched.ids == graft::ir::Ids::Renumbered;
            let before = open.scene.take();
            let (scene, items) =
                open_edited(before.as_ref().map(|s| &s.view), &open.doc, renumbered);
            open.scene = scene;
            items
        };
        open.problem_nodes = problem_nodes(open.doc.summary());
        let focus = focus.and_then(|node| {
            let view = &open.scene.as_ref()?.view;
            let found = view
                .items
                .iter()
                .position(|i| matches!(i.kind, ItemKind::Node { node: n, .. } if n == node))?;
            ItemId::try_from(found).ok()
        });
        self.moves = Some(Moves {
            from,
            to: open.serial(),
            items,
            focus,
        });
    }

    /// Undoes the last edit.
    pub fn undo(&mut self) -> bool {
        !self.busy() && self.command(Command::Undo, |_| None).is_ok()
    }

    /// Applies the last undone edit again.
    pub fn redo(&mut self) -> bool {
        if self.busy() {
            return false;
        }
        match self.command(Command::Redo, |_| None) {
            Ok(_) => true,
            Err(EngineError::NothingToRedo) => false,
            Err(e) => {
                self.error = Some(format!("Redo: {e}"));
                false
            }
        }
    }

    /// Undoes or redoes until `done` edits are in force (a step of the history).
    pub fn go_to_step(&mut self, done: usize) {
        if !self.busy() {
            let _ = self.command(Command::GoTo(done), |_| None);
        }
    }

    pub fn can_undo(&self) -> bool {
        self.draft.is_none() && self.open.as_ref().is_some_and(|o| o.doc.can_undo())
    }

    pub fn can_redo(&self) -> bool {
        self.draft.is_none() && self.open.as_ref().is_some_and(|o| o.doc.can_redo())
    }

    /// The history: the edits in force (oldest first), then the undone ones (the next
    /// to redo first), each as one line.
    pub fn history(&self) -> (Vec<String>, Vec<String>) {
        self.document().map(|d| d.history()).unwrap_or_default()
    }

    /// The edit log as JSON (`graft apply LOG MODEL -o OUT` replays it).
    pub fn edit_log(&self) -> String {
        self.document()
            .map_or_else(|| "[]".into(), |d| d.log_json())
    }

    /// The stamps of the edits in force (`History::stamps`), and the JSON of each
    /// edit from `from` on.
    pub fn log_stamps(&self) -> Vec<u64> {
        self.document().map(|d| d.log_stamps()).unwrap_or_default()
    }

    pub fn log_from(&self, from: usize) -> Vec<String> {
        self.document()
            .map(|d| d.log_from(from))
            .unwrap_or_default()
    }

    /// The document whose history is shown: the open one, or while an inline is
    /// previewed, the host's.
    fn document(&self) -> Option<&graft::host::Host> {
        match self.draft.as_ref().and_then(|d| d.lent_host()) {
            Some(host) => Some(host),
            None => self.open.as_ref().map(|o| &o.doc),
        }
    }

    /// Applies an edit log (as [`Session::edit_log`] writes it) to the open model,
    /// each edit undoable, as a kept session is restored, and shows `note` (if any)
    /// in the banner. An edit the model refuses stops it, said there too, the edits
    /// before it kept: what can be had back of a session is.
    pub fn restore(&mut self, log: &str, note: String) {
        if !note.is_empty() {
            self.error = Some(note);
        }
        let edits = match graft::host::read_log(log) {
            Ok(edits) => edits,
            Err(e) => {
                self.error = Some(format!("The kept edits do not read: {e}"));
                return;
            }
        };
        let total = edits.len();
        if let Ok(applied) = self.command(Command::Restore(edits), |_| None)
            && let Some((_, e)) = applied.refused
        {
            self.error = Some(format!(
                "Only {} of the {total} kept edits could be applied again: {e}",
                applied.edits
            ));
        }
    }

    /// Applies an edit log to the open model, all of it or none (`__graftApply`),
    /// each edit undoable. Refused: why, and which edit (from 0) when one is at fault;
    /// the model is as it was.
    pub fn apply_log(&mut self, log: &str) -> Result<usize, (Option<usize>, String)> {
        if self.busy() {
            return Err((
                None,
                "The editor is busy (an open, an inline or a layout in progress).".into(),
            ));
        }
        let refused = |e: EngineError| (e.index(), e.to_string());
        let edits = graft::host::read_log(log).map_err(refused)?;
        if self.open.is_none() {
            return Err((None, "No model is open.".to_string()));
        }
        let applied = self
            .command(Command::Log(edits), |_| None)
            .map_err(refused)?;
        if applied.edits > 0 {
            self.error = None;
        }
        Ok(applied.edits)
    }
}
