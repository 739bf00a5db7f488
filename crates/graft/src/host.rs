//! The document host: one open model, its edit history, and what is worked out from
//! them (inference, the checker's findings, the importer's findings that still hold,
//! the summary). Every change goes through one door, [`Host::apply`], and the host
//! alone keeps what it derives current: what a command touched decides what is
//! worked out again. The queries return plain data. The app's worker, `graft apply`
//! and the tests drive it the same way (after rust-analyzer's `AnalysisHost`).
//!
//! ```
//! use graft::edit::Edit;
//! use graft::host::{Command, EngineError, Host};
//!
//! let text = "<ir_version: 8, opset_import: [\"\" : 18]>\n\
//!     g (float[N] x) => (y) { a = Relu(x) y = Neg(a) }";
//! let mut host = Host::open(graft::text::parse_model(text).unwrap().model, Vec::new());
//! let rename = Edit::RenameValue { graph: "main".into(), from: "a".into(), to: "act".into() };
//! host.apply(Command::Edit(rename)).unwrap();
//! assert_eq!(host.history().0, ["Rename a → act"]);
//! // A refused command changes nothing and says why, in the user's terms.
//! let bad = Edit::RenameNode { graph: "main".into(), node: 9, to: "n".into() };
//! assert!(matches!(host.apply(Command::Edit(bad)), Err(EngineError::Refused(_))));
//! host.apply(Command::Undo).unwrap();
//! assert_eq!(host.apply(Command::Undo).unwrap_err(), EngineError::NothingToUndo);
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::check::Checked;
use crate::diag::{Diagnostic, Severity};
use crate::edit::{Change, Edit, EditError, History};
use crate::infer::Inferred;
use crate::ir::{Ids, Model, Touched};
use crate::summary::Summary;

/// What a front asks of the host. Every command either applies whole or is refused
/// with the model unchanged.
#[derive(Debug)]
pub enum Command {
    /// One edit as the log records it (graphs by path, nodes by index, values by
    /// name), as `graft apply` and a script give it.
    Edit(Edit),
    /// One edit by ids, as a front that shows the model makes it, taken from state
    /// `on` ([`Host::serial`]). Refused ([`EngineError::Stale`]) when the ids of that
    /// state may since name other things ([`Host::ids_hold`]); each id is then
    /// checked here (`Model::live_node` and the rest). Its record goes in the log.
    Change {
        change: Change,
        on: u64,
    },
    /// A log: every edit or none. A refused one is named by its position.
    Log(Vec<Edit>),
    /// A kept log brought back: as many of its edits as apply, in order; the first
    /// refused one and the rest are left out ([`Applied::refused`]).
    Restore(Vec<Edit>),
    Undo,
    Redo,
    /// Undoes or redoes until this many edits are in force.
    GoTo(usize),
}

/// What a command did.
#[derive(Debug, Default)]
pub struct Applied {
    /// What it touched in the model (the app redraws from it).
    pub touched: Touched,
    /// How many edits it applied (or undid, or redid).
    pub edits: usize,
    /// For [`Command::Restore`]: the edit (its position) that was refused, and why.
    pub refused: Option<(usize, EditError)>,
}

/// Why a command was refused; the model and the history are as they were. It
/// reaches a front as it is (the page gets it serialized), so the front can show it
/// beside the field at fault.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EngineError {
    /// The edit cannot apply; the error names its field.
    #[error("{0}")]
    Refused(EditError),
    /// Edit `index` (from 0) of a log cannot apply.
    #[error("edit {} of the log: {error}", .index + 1)]
    InLog { index: usize, error: EditError },
    /// A log that is not a JSON array of edits, or one of its edits (from 0) that does
    /// not read.
    #[error("{message}")]
    Unreadable {
        index: Option<usize>,
        message: String,
    },
    #[error("There is nothing to undo.")]
    NothingToUndo,
    #[error("There is nothing to redo.")]
    NothingToRedo,
    /// Ids given for one state of the model that may since name other things.
    #[error("{STALE}")]
    Stale,
}

impl EngineError {
    /// The edit error at fault, when one edit is.
    pub fn edit_error(&self) -> Option<&EditError> {
        match self {
            EngineError::Refused(e) | EngineError::InLog { error: e, .. } => Some(e),
            _ => None,
        }
    }

    /// The position in a log of the edit at fault.
    pub fn index(&self) -> Option<usize> {
        match self {
            EngineError::InLog { index, .. } => Some(*index),
            EngineError::Unreadable { index, .. } => *index,
            _ => None,
        }
    }
}

/// What a command by ids from a state whose ids no longer hold is told.
pub const STALE: &str = "Not done: the request was made on the model as it was before the \
                         last undo, redo or replacement, and the ids it names may now name \
                         something else. Nothing was changed; try again.";

/// The open document. See the module documentation.
#[derive(Debug)]
pub struct Host {
    model: Model,
    history: History,
    inferred: Arc<Inferred>,
    checked: Checked,
    imported: Arc<Vec<Diagnostic>>,
    summary: Arc<Summary>,
    serial: u64,
    ids_from: u64,
}

/// A new state's serial: never repeated, across every host (a preview's too).
fn next_serial() -> u64 {
    static SERIAL: AtomicU64 = AtomicU64::new(1);
    SERIAL.fetch_add(1, Ordering::Relaxed)
}

impl Host {
    /// Opens `model`, with what the importer found (`imported`): checks and infers it.
    pub fn open(model: Model, imported: Vec<Diagnostic>) -> Host {
        let checked = Checked::new(&model);
        let inferred = Arc::new(crate::infer::infer(&model));
        Host::from_parts(model, Arc::new(imported), checked, inferred)
    }

    /// Opens `model` with its check and inference already worked out (an open in
    /// stages runs them one at a time).
    pub fn from_parts(
        model: Model,
        imported: Arc<Vec<Diagnostic>>,
        checked: Checked,
        inferred: Arc<Inferred>,
    ) -> Host {
        let summary = Arc::new(summary_of(&model, &imported, &checked));
        let serial = next_serial();
        Host {
            model,
            history: History::default(),
            inferred,
            checked,
            imported,
            summary,
            serial,
            ids_from: serial,
        }
    }

    /// The one write door. On success the model, the history and everything derived
    /// are current; on an error all of them are as they were.
    pub fn apply(&mut self, command: Command) -> Result<Applied, EngineError> {
        let (applied, current) = match command {
            Command::Edit(edit) => {
                let touched = self.held(|h, m, c| h.apply_checked(m, edit, c));
                (Applied::one(touched.map_err(EngineError::Refused)?), true)
            }
            Command::Change { change, on } => {
                if on < self.ids_from {
                    return Err(EngineError::Stale);
                }
                let touched = self.held(|h, m, c| h.apply_change(m, &change, c));
                (Applied::one(touched.map_err(EngineError::Refused)?), true)
            }
            Command::Log(edits) => {
                let undone = self.history.undone().to_vec();
                let total = edits.len();
                for (index, edit) in edits.into_iter().enumerate() {
                    if let Err(error) = self.held(|h, m, c| h.apply_checked(m, edit, c)) {
                        for _ in 0..index {
                            self.take_back();
                        }
                        self.history.keep_undone(undone);
                        return Err(EngineError::InLog { index, error });
                    }
                }
                (Applied::many(total), true)
            }
            Command::Restore(edits) => {
                let mut applied = Applied::many(0);
                for (k, edit) in edits.into_iter().enumerate() {
                    if let Err(e) = self.held(|h, m, c| h.apply_checked(m, edit, c)) {
                        applied.refused = Some((k, e));
                        break;
                    }
                    applied.edits += 1;
                }
                (applied, true)
            }
            Command::Undo => {
                let model = &mut self.model;
                let (_, touched) = self.history.undo(model).ok_or(EngineError::NothingToUndo)?;
                (Applied::one(touched), false)
            }
            Command::Redo => match self.history.redo(&mut self.model) {
                Ok(Some((_, touched))) => (Applied::one(touched), false),
                Ok(None) => return Err(EngineError::NothingToRedo),
                Err(e) => return Err(EngineError::Refused(e)),
            },
            Command::GoTo(step) => {
                let model = &mut self.model;
                let mut moved = 0;
                while self.history.log().len() > step && self.history.undo(model).is_some() {
                    moved += 1;
                }
                while self.history.log().len() < step {
                    match self.history.redo(model) {
                        Ok(Some(_)) => moved += 1,
                        // Redo is exact, so this is not seen; the model stands where
                        // it got to, and is brought up to date as that.
                        Ok(None) | Err(_) => break,
                    }
                }
                (Applied::many(moved), false)
            }
        };
        if applied.edits > 0 {
            self.derive(&applied.touched, current);
        }
        Ok(applied)
    }

    /// Applies one edit with `apply` (which holds it to the checker) and keeps it only
    /// when inference finds no new error either: what onnx's full check finds through
    /// shape inference (a stated type against what produces it, an axis out of range)
    /// is refused like any invalid edit. On success the check and inference are
    /// current; on a refusal the model, the history and both are as they were.
    fn held(
        &mut self,
        apply: impl FnOnce(&mut History, &mut Model, &mut Checked) -> Result<Touched, EditError>,
    ) -> Result<Touched, EditError> {
        let errors = |i: &Inferred| {
            let errors = i.diagnostics.iter();
            errors.filter(|d| d.severity == Severity::Error).count()
        };
        let before = errors(&self.inferred);
        let undone = self.history.undone().to_vec();
        let touched = apply(&mut self.history, &mut self.model, &mut self.checked)?;
        let old = (before > 0).then(|| self.inferred.diagnostics.clone());
        let inferred = Arc::make_mut(&mut self.inferred);
        inferred.update_touched(&self.model, &touched);
        if errors(inferred) <= before {
            return Ok(touched);
        }
        let old = old.unwrap_or_default();
        let first = inferred
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .find(|d| {
                !old.iter()
                    .any(|o| o.code == d.code && o.message == d.message)
            })
            .cloned();
        self.take_back();
        self.history.keep_undone(undone);
        Err(crate::edit::invalid(first.as_ref()))
    }

    /// Takes back the last edit [`Host::held`] kept, with the check and inference.
    fn take_back(&mut self) {
        if let Some(touched) = self.history.take_back(&mut self.model) {
            self.checked.update(&self.model, &touched);
            Arc::make_mut(&mut self.inferred).update_touched(&self.model, &touched);
        }
    }

    /// Brings what is derived up to date with what a command touched (`current`: the
    /// check and inference already are).
    fn derive(&mut self, touched: &Touched, current: bool) {
        if !current {
            Arc::make_mut(&mut self.inferred).update_touched(&self.model, touched);
            self.checked.update(&self.model, touched);
        }
        if self
            .imported
            .iter()
            .any(|d| !crate::check::import_finding_holds(&self.model, d))
        {
            let holding = self.imported.iter();
            let holding = holding.filter(|d| crate::check::import_finding_holds(&self.model, d));
            self.imported = Arc::new(holding.cloned().collect());
        }
        self.summary = Arc::new(summary_of(&self.model, &self.imported, &self.checked));
        self.serial = next_serial();
        if touched.ids != Ids::Kept {
            self.ids_from = self.serial;
        }
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Types and shapes inference found (shared: a view shows them on its edges; a
    /// command updates them in place when the host holds the only share, else a copy).
    pub fn inferred(&self) -> &Arc<Inferred> {
        &self.inferred
    }

    /// The checker's findings, kept current.
    pub fn checked(&self) -> &Checked {
        &self.checked
    }

    /// What the importer found that still holds.
    pub fn imported(&self) -> &Arc<Vec<Diagnostic>> {
        &self.imported
    }

    /// The summary, with every finding that holds: the importer's and the checker's.
    pub fn summary(&self) -> &Arc<Summary> {
        &self.summary
    }

    /// Which state of the model this is: new after every command that changed it.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// Whether ids taken from state `serial` still name the same things now: not
    /// when the model was replaced or its arenas cut back since.
    pub fn ids_hold(&self, serial: u64) -> bool {
        serial >= self.ids_from
    }

    pub fn can_undo(&self) -> bool {
        self.history.can_undo()
    }

    pub fn can_redo(&self) -> bool {
        self.history.can_redo()
    }

    /// The history: the edits in force (oldest first), then the undone ones (the next
    /// to redo first), each as one line.
    pub fn history(&self) -> (Vec<String>, Vec<String>) {
        self.history.lines()
    }

    /// The edit log as JSON (`graft apply LOG MODEL` replays it).
    pub fn log_json(&self) -> String {
        self.history.log_json()
    }

    /// The stamps of the edits in force (`History::stamps`): a copy of the log is
    /// kept current from the edits past the first stamp that differs.
    pub fn log_stamps(&self) -> Vec<u64> {
        self.history.stamps()
    }

    /// The JSON of each edit in force from position `from` on.
    pub fn log_from(&self, from: usize) -> Vec<String> {
        let log = self.history.log();
        let edits = log.get(from..).unwrap_or_default();
        edits
            .iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .collect()
    }

    /// The model as it was with `step` edits in force (0: as opened). Undo and redo
    /// are exact, so it is worked out by undoing to there and redoing back; the host
    /// ends as it was.
    pub fn model_at(&mut self, step: usize) -> Result<Model, EngineError> {
        let back = self.history.log().len().saturating_sub(step);
        let mut undone = 0;
        while undone < back && self.history.undo(&mut self.model).is_some() {
            undone += 1;
        }
        let then = self.model.clone();
        for _ in 0..undone {
            if let Err(e) = self.history.redo(&mut self.model) {
                // Not seen (redo is exact): the model stands where it got to.
                self.derive(&Touched::whole(), false);
                return Err(EngineError::Refused(e));
            }
        }
        Ok(then)
    }

    /// Lends the model out, for a preview that changes it in place (an inline shown
    /// live while its dialog is open) and gives it back as it was lent with
    /// [`Lent::give_back`]. No command can reach the lent host.
    pub fn lend(mut self) -> (Model, Lent) {
        let model = std::mem::take(&mut self.model);
        (model, Lent(self))
    }

    /// The model, for a host that is done with (a preview's).
    pub fn into_model(self) -> Model {
        self.model
    }
}

/// A host whose model is lent out ([`Host::lend`]).
#[derive(Debug)]
pub struct Lent(Host);

impl Lent {
    /// The host again, with its model back (as it was lent: what was derived from it
    /// is kept).
    pub fn give_back(self, model: Model) -> Host {
        Host { model, ..self.0 }
    }

    /// What the lent host derived (its check, inference and findings).
    pub fn host(&self) -> &Host {
        &self.0
    }
}

impl Applied {
    fn one(touched: Touched) -> Applied {
        Applied {
            touched,
            edits: 1,
            refused: None,
        }
    }

    fn many(edits: usize) -> Applied {
        Applied {
            touched: Touched::whole(),
            edits,
            refused: None,
        }
    }
}

/// The summary of `model` with the importer's findings that hold and the checker's.
fn summary_of(model: &Model, imported: &[Diagnostic], checked: &Checked) -> Summary {
    let mut diagnostics = imported.to_vec();
    diagnostics.extend(checked.diagnostics().iter().cloned());
    Summary::of(model, &diagnostics)
}

/// The edits of a JSON edit log (an array, as `graft apply` reads); one that does
/// not read is named by its position.
pub fn read_log(json: &str) -> Result<Vec<Edit>, EngineError> {
    let items: Vec<serde_json::Value> =
        serde_json::from_str(json).map_err(|e| EngineError::Unreadable {
            index: None,
            message: format!("the log is not a JSON array of edits: {e}"),
        })?;
    items
        .into_iter()
        .enumerate()
        .map(|(k, item)| {
            serde_json::from_value(item).map_err(|e| EngineError::Unreadable {
                index: Some(k),
                message: format!("edit {} of the log does not read: {e}", k + 1),
            })
        })
        .collect()
}
