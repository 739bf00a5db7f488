//! The session: which model is open, its summary, what is loading, and the error to
//! show. [`Session`] is plain Rust (the open/replace rules live here); [`AppState`] is
//! the reactive handle the components share, and the only place that starts browser
//! work through `platform`.

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use graft::hash::FxMap;
use graft::ir::{NodeId, Touched};
use graft::view::svg::{self, Detail};
use graft::view::{ItemId, ItemKind, Progress, Rect, Scene, Snapshot, View};
use graft::{Diagnostic, ExportOptions, Model, Severity, Summary};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::platform::{self, LoadedFile, PickedFiles};

mod inline;

pub use inline::InlineView;

/// A model shipped with the app, served from `examples/`, with what it shows and
/// one or two things to try on it.
#[derive(Debug)]
pub struct Example {
    pub file: &'static str,
    pub label: &'static str,
    pub about: &'static str,
    pub try_this: &'static [&'static str],
}

pub const EXAMPLES: &[Example] = &[
    Example {
        file: "functions_and_control_flow.onnx",
        label: "Functions and control flow",
        about: "Two calls of a local function, ScaledTanh, with different compile-time \
                values of alpha, and an If whose branches are graphs of their own. Calls \
                and branches open in place.",
        try_this: &[
            "Click + on the call act1 to see ScaledTanh's body with alpha bound to 0.5.",
            "Select act1 and set alpha to 0.2 in its editor: a new overload, alpha_0p2, \
             appears on the canvas and in the library. Ctrl+Z takes it back.",
        ],
    },
    Example {
        file: "function_library.onnx",
        label: "Function library: overloads and defaults",
        about: "A library of functions with attribute defaults and existing overloads \
                (ONNX IR 10): the library panel lists each with its calls.",
        try_this: &[
            "Open a function in the library and jump to one of its calls.",
            "Press \"Specialize all calls\" and watch each call get its overload.",
        ],
    },
    Example {
        file: "live_specialization.onnx",
        label: "Live specialization: a 280-node function",
        about: "One call of a 280-node function whose body depends on its attributes: \
                specializing it folds what becomes constant.",
        try_this: &[
            "Select the call and change one of its attributes: the overload is built and \
             drawn as you type.",
        ],
    },
    Example {
        file: "silero_vad.onnx",
        label: "silero-vad: nested Ifs",
        about: "A voice-activity model whose If branches hold further Ifs.",
        try_this: &["Press e to expand everything, then c to collapse it again."],
    },
    Example {
        file: "transformer_24.onnx",
        label: "Transformer, 24 layers (torch-style names)",
        about: "Node names like /model/layers.3/attn/MatMul become nested groups.",
        try_this: &["Search for a node of layer 7 and jump to it."],
    },
    Example {
        file: "transformer_1000.onnx",
        label: "Large: 21,000 nodes, 1,000 layers",
        about: "A big model: groups are laid out as you open them, and the minimap \
                shows where you are.",
        try_this: &[
            "Press e: expanding everything runs in pieces, with a progress bar and \
                     Cancel.",
        ],
    },
    Example {
        file: "mlp.onnx",
        label: "MLP",
        about: "A tiny multi-layer perceptron, 4 → 16 → 16 → 3.",
        try_this: &[
            "Select the Softmax and add a Sigmoid after it from the palette; then look \
             at the History tab and export the edit log.",
            "Drop this model file onto the inline zone of another model to inline it \
             (its input x bound to a value of that model).",
        ],
    },
];

/// The example opened when the page loads.
pub const STARTUP_EXAMPLE: &str = "functions_and_control_flow.onnx";

const EXAMPLES_URL: &str = "examples";

/// The name a download gets when the model has none.
const DEFAULT_FILE_NAME: &str = "model.onnx";

pub fn example(file: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.file == file)
}

/// Where the open model came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Example(&'static str),
    Files,
}

/// A model that opened.
#[derive(Debug)]
pub struct OpenModel {
    /// The model file's name.
    pub name: String,
    pub origin: Origin,
    pub model: Model,
    pub summary: Arc<Summary>,
    /// The laid-out graph (`None` for a model without a graph).
    pub scene: Option<Scene>,
    /// Which state of the model this is: new for every open, edit and preview; undo
    /// brings an earlier one back with its serial. Item ids mean something only
    /// together with it.
    pub serial: u64,
    /// Nodes the checker reports an error at (drawn with a badge).
    pub problem_nodes: FxMap<NodeId, ()>,
    /// What inference found on `model` (the view shows it on edges); brought up to
    /// date after each edit with what the edit touched.
    pub inferred: Arc<graft::infer::Inferred>,
    /// The checker's findings on `model`, brought up to date the same way.
    pub checked: graft::check::Checked,
    /// What the importer (and opening) found that still holds: shown with the
    /// checker's findings until an edit fixes it (`check::import_finding_holds`).
    pub imported: Arc<Vec<Diagnostic>>,
}

/// The nodes `summary`'s errors point at.
fn problem_nodes(summary: &Summary) -> FxMap<NodeId, ()> {
    summary
        .diagnostics
        .iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .filter_map(|d| d.at.node)
        .map(|n| (n, ()))
        .collect()
}

/// How the items of one state of the model map into the next (an edit or an undo):
/// the app carries its selection through it.
#[derive(Debug)]
struct Moves {
    from: u64,
    to: u64,
    items: FxMap<ItemId, ItemId>,
    /// What to select afterwards instead (an outline selects its new call).
    focus: Option<ItemId>,
}

fn next_serial() -> u64 {
    static SERIAL: AtomicU64 = AtomicU64::new(1);
    SERIAL.fetch_add(1, Ordering::Relaxed)
}

/// Identifies one load; only the latest one may replace the open model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u64);

#[derive(Debug)]
struct Pending {
    ticket: Ticket,
    what: String,
}

/// A change of many groups (expand all, one level more or less) being laid out in
/// pieces, so the page stays responsive and the user can cancel.
#[derive(Debug)]
struct Work {
    /// Which run this is: a piece scheduled for an earlier run does nothing.
    run: u64,
    what: &'static str,
    /// The scene as it was, for Cancel.
    before: Snapshot,
    /// Group layouts to do, as counted by the first piece.
    total: usize,
    remaining: usize,
}

/// What a piece of [`Session::work_step`] left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// More pieces to do.
    More,
    /// Laid out and placed: the new picture is ready.
    Finished,
    /// The run was cancelled or its model replaced.
    Gone,
}

/// How far a [`Work`] has come, for the progress bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkStatus {
    pub run: u64,
    pub what: &'static str,
    pub done: usize,
    pub total: usize,
}

#[derive(Debug, Default)]
pub struct Session {
    open: Option<OpenModel>,
    error: Option<String>,
    /// The last refused edit made from an editor's field, shown beside that field.
    field_error: Option<FieldError>,
    pending: Option<Pending>,
    issued: u64,
    work: Option<Work>,
    runs: u64,
    /// The inline being set up in the dialog.
    draft: Option<inline::Draft>,
    /// The edits made to the open model: undo, redo, and the log `graft apply`
    /// replays.
    edits: graft::edit::History,
    /// Functions the user keeps in the library even when no call is left
    /// (specialization removes other generics it leaves uncalled).
    kept: std::collections::BTreeSet<graft::ir::FunctionKey>,
    /// How the last edit or undo moved the items.
    moves: Option<Moves>,
    /// How many models have been opened (not edited): the canvas fits each new one.
    opened: u64,
}

impl Session {
    pub fn open(&self) -> Option<&OpenModel> {
        self.open.as_ref()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Why the last edit made from `field` of `target`'s editor was refused, if it was.
    pub fn field_error(&self, target: Target, field: &Slot) -> Option<&str> {
        let e = self.field_error.as_ref()?;
        (e.at.target == target && e.at.slot == *field).then_some(e.message.as_str())
    }

    /// What is loading, e.g. `Opening mlp.onnx…`.
    pub fn pending(&self) -> Option<&str> {
        self.pending.as_ref().map(|p| p.what.as_str())
    }

    /// Starts a load; a later `begin` makes this one stale.
    pub fn begin(&mut self, what: impl Into<String>) -> Ticket {
        self.issued += 1;
        let ticket = Ticket(self.issued);
        self.pending = Some(Pending {
            ticket,
            what: what.into(),
        });
        ticket
    }

    /// Ends a load with the files it read (or why it could not read them). The model
    /// among them replaces the open one; if it does not open, the open model stays and
    /// the error is shown. A stale load changes nothing.
    pub fn finish(
        &mut self,
        ticket: Ticket,
        files: Result<Vec<LoadedFile>, String>,
        origin: Origin,
    ) {
        if self.pending.as_ref().is_none_or(|p| p.ticket != ticket) {
            return;
        }
        self.pending = None;
        match files.and_then(|files| open_files(files, origin)) {
            Ok(open) => {
                self.open = Some(open);
                self.error = None;
                self.work = None;
                self.draft = None;
                self.edits = graft::edit::History::default();
                self.kept.clear();
                self.moves = None;
                self.opened += 1;
            }
            Err(message) => self.error = Some(message),
        }
    }

    /// Expands or collapses a group of the graph and lays out again (one group and
    /// its ancestors: small enough to do at once).
    pub fn toggle(&mut self, item: ItemId) -> bool {
        if self.work.is_some() {
            return false;
        }
        let Some(open) = self.open.as_mut() else {
            return false;
        };
        let Some(scene) = open.scene.as_mut() else {
            return false;
        };
        let changed = scene.toggle(&open.model, item);
        changed && scene.layout(&open.model, &mut || false).is_ok()
    }

    /// Expands every group (`depth` levels) or collapses all (`depth` 0). The layout
    /// is started, not finished: go on with [`Session::work_step`].
    pub fn expand_to_depth(&mut self, depth: usize) -> Option<u64> {
        let what = if depth == 0 {
            "Collapsing"
        } else {
            "Expanding"
        };
        self.start_work(what, |scene, model| {
            if depth == 0 {
                scene.collapse_all();
            } else {
                scene.expand_to_depth(model, depth, EXPAND_LIMIT);
            }
        })
    }

    /// Opens (`deeper`) or closes one level of groups; continued like
    /// [`Session::expand_to_depth`].
    pub fn step_level(&mut self, deeper: bool) -> Option<u64> {
        let what = if deeper {
            "Opening a level"
        } else {
            "Closing a level"
        };
        self.start_work(what, |scene, model| {
            if deeper {
                scene.expand_one_level(model);
            } else {
                scene.collapse_one_level(model);
            }
        })
    }

    /// Applies `change` to the scene and starts laying it out. Returns the run's
    /// number, or `None` when there is nothing to do or another run is going on.
    fn start_work(
        &mut self,
        what: &'static str,
        change: impl FnOnce(&mut Scene, &Model),
    ) -> Option<u64> {
        if self.work.is_some() {
            return None;
        }
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        let before = scene.snapshot();
        change(scene, &open.model);
        self.runs += 1;
        self.work = Some(Work {
            run: self.runs,
            what,
            before,
            total: 0,
            remaining: 0,
        });
        Some(self.runs)
    }

    /// Lays out the next piece of run `run` until `pause` says stop.
    pub fn work_step(&mut self, run: u64, pause: &mut dyn FnMut() -> bool) -> Step {
        let Some(work) = self.work.as_mut().filter(|w| w.run == run) else {
            return Step::Gone;
        };
        let Some((model, scene)) = self
            .open
            .as_mut()
            .and_then(|o| o.scene.as_mut().map(|s| (&o.model, s)))
        else {
            self.work = None;
            return Step::Gone;
        };
        match scene.layout_some(model, pause, &mut || false) {
            Ok(Progress::Pending { remaining }) => {
                work.total = work.total.max(remaining + 1);
                work.remaining = remaining;
                Step::More
            }
            Ok(Progress::Done) => {
                self.work = None;
                Step::Finished
            }
            Err(_) => {
                self.cancel_work();
                Step::Gone
            }
        }
    }

    /// Stops the running layout and puts the graph back as it was before it.
    pub fn cancel_work(&mut self) {
        let Some(work) = self.work.take() else {
            return;
        };
        if let Some(scene) = self.open.as_mut().and_then(|o| o.scene.as_mut()) {
            scene.restore(work.before);
        }
    }

    pub fn work(&self) -> Option<WorkStatus> {
        self.work.as_ref().map(|w| WorkStatus {
            run: w.run,
            what: w.what,
            done: w.total.saturating_sub(w.remaining),
            total: w.total,
        })
    }

    /// Opens what is needed for `item` to be drawn; returns its box.
    pub fn reveal(&mut self, item: ItemId) -> Option<Rect> {
        if self.work.is_some() {
            return None;
        }
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        if scene.reveal(&open.model, item) {
            scene.layout(&open.model, &mut || false).ok()?;
        }
        scene.rect(item)
    }

    /// Items matching `query` in every graph, function body and subgraph.
    pub fn search(&mut self, query: &str) -> Vec<SearchHit> {
        let Some(open) = self.open.as_mut() else {
            return Vec::new();
        };
        let Some(scene) = open.scene.as_mut() else {
            return Vec::new();
        };
        let found = scene.view.search(&open.model, query, SEARCH_ITEM_LIMIT);
        hits(&scene.view, found)
    }

    /// Every call of the `index`-th local function, at any depth.
    pub fn call_sites(&mut self, index: usize) -> Vec<SearchHit> {
        let Some(open) = self.open.as_mut() else {
            return Vec::new();
        };
        let Some(&f) = open.model.functions.get(index) else {
            return Vec::new();
        };
        let Some(scene) = open.scene.as_mut() else {
            return Vec::new();
        };
        let found = scene.view.calls_of(&open.model, f, SEARCH_ITEM_LIMIT);
        hits(&scene.view, found)
    }

    /// Where `item` sits: the index of each group on the way down from the root, then
    /// its own, joined by dots (`0.3.1`). Stable for a model: group contents are built
    /// the same way each time.
    pub fn item_path(&self, item: ItemId) -> Option<String> {
        let view = &self.open.as_ref()?.scene.as_ref()?.view;
        let mut parts = Vec::new();
        let mut id = item;
        while let Some(parent) = view.item(id)?.parent {
            let k = view
                .item(parent)?
                .children
                .as_ref()?
                .iter()
                .position(|&c| c == id)?;
            parts.push(k.to_string());
            id = parent;
        }
        parts.reverse();
        Some(parts.join("."))
    }

    /// The paths of the expanded groups, parents first.
    pub fn expanded_paths(&self) -> Vec<String> {
        let Some(view) = self
            .open
            .as_ref()
            .and_then(|o| o.scene.as_ref())
            .map(|s| &s.view)
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut stack: Vec<(ItemId, String)> = vec![(view.root(), String::new())];
        while let Some((id, path)) = stack.pop() {
            let Some(item) = view.item(id) else { continue };
            let is_root = id == view.root();
            if !(is_root || item.is_group && item.expanded) {
                continue;
            }
            if !is_root {
                out.push(path.clone());
            }
            for (k, &c) in item
                .children
                .as_deref()
                .unwrap_or(&[])
                .iter()
                .enumerate()
                .rev()
            {
                let p = if path.is_empty() {
                    k.to_string()
                } else {
                    format!("{path}.{k}")
                };
                stack.push((c, p));
            }
        }
        out
    }

    /// The item at `path` (building group contents on the way).
    fn item_at(&mut self, path: &str) -> Option<ItemId> {
        let open = self.open.as_mut()?;
        let scene = open.scene.as_mut()?;
        let mut id = scene.view.root();
        for part in path.split('.').filter(|p| !p.is_empty()) {
            let k: usize = part.parse().ok()?;
            id = *scene.view.children(&open.model, id).get(k)?;
        }
        Some(id)
    }

    /// Opens the groups at `open` (paths) and returns the item at `selected`: a shared
    /// view restored.
    pub fn restore_view(&mut self, open: &[String], selected: Option<&str>) -> Option<ItemId> {
        let mut changed = false;
        for path in open {
            let Some(item) = self.item_at(path) else {
                continue;
            };
            let Some(o) = self.open.as_mut() else { break };
            let Some(scene) = o.scene.as_mut() else { break };
            if scene
                .view
                .item(item)
                .is_some_and(|i| i.is_group && !i.expanded)
            {
                changed |= scene.set_expanded(&o.model, item, true);
            }
        }
        if changed
            && let Some(o) = self.open.as_mut()
            && let Some(scene) = o.scene.as_mut()
        {
            let _ = scene.layout(&o.model, &mut || false);
        }
        selected.and_then(|p| self.item_at(p))
    }

    /// The checker's and importer's problems, errors first: severity, message,
    /// location, and whether it points at a node (to jump to).
    pub fn problems(&self) -> Vec<Problem> {
        let Some(open) = self.open.as_ref() else {
            return Vec::new();
        };
        let mut list: Vec<(usize, &graft::Diagnostic)> =
            open.summary.diagnostics.iter().enumerate().collect();
        list.sort_by_key(|(_, d)| d.severity != graft::Severity::Error);
        list.into_iter()
            .map(|(index, d)| Problem {
                index,
                error: d.severity == graft::Severity::Error,
                code: d.code.to_string(),
                message: d.message.clone(),
                location: d.location.clone(),
                at_node: d.at.node.is_some(),
            })
            .collect()
    }

    /// The item of the node the `index`-th diagnostic points at (its group contents
    /// built on the way).
    pub fn problem_item(&mut self, index: usize) -> Option<ItemId> {
        let open = self.open.as_mut()?;
        let node = open.summary.diagnostics.get(index)?.at.node?;
        let scene = open.scene.as_mut()?;
        let found = scene.view.find(
            &open.model,
            SEARCH_ITEM_LIMIT,
            |item| matches!(item.kind, ItemKind::Node { node: n, .. } if n == node),
        );
        found.first().copied()
    }

    /// The model's local functions, for the function library.
    pub fn function_library(&self) -> Vec<FunctionInfo> {
        let Some(open) = self.open.as_ref() else {
            return Vec::new();
        };
        let model = &open.model;
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
                }
            })
            .collect()
    }

    /// Applies an edit to the open model. On success the canvas shows the result,
    /// with the groups open that were open before (and the node `focus` finds
    /// selected), and the edit goes into the history (undo, redo, the log); on an
    /// error nothing changes and the error is shown.
    fn edit(
        &mut self,
        what: &str,
        edit: graft::edit::Edit,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> bool {
        self.edit_at(None, what, edit, focus)
    }

    /// [`Session::edit`] made from an editor's field (`at`): a refusal is shown beside
    /// that field, in the core's words (it names what is wrong), not in the banner.
    fn edit_at(
        &mut self,
        at: Option<FieldAt>,
        what: &str,
        edit: graft::edit::Edit,
        focus: impl FnOnce(&Model) -> Option<NodeId>,
    ) -> bool {
        if self.draft.is_some() || self.work.is_some() {
            return false;
        }
        let Some(open) = self.open.as_mut() else {
            return false;
        };
        let mut model = std::mem::take(&mut open.model);
        let touched = match self
            .edits
            .apply_checked(&mut model, edit, &mut open.checked)
        {
            Ok(touched) => touched,
            Err(e) => {
                open.model = model;
                match at {
                    Some(at) => {
                        self.field_error = Some(FieldError {
                            at: at.refined(&e.field),
                            message: e.message,
                        })
                    }
                    None => self.error = Some(format!("{what}: {e}")),
                }
                return false;
            }
        };
        self.field_error = None;
        let focus = focus(&model);
        self.show_edited(model, &touched, focus, true);
        self.error = None;
        true
    }

    /// Shows `model`, the open one after an edit, undo or redo that `touched`
    /// describes: inference and the checker redo only what it touched; an edit of
    /// attributes alone rewrites the edited boxes in place and lays out only the groups
    /// holding them, anything else builds the view again with the groups open that
    /// were open.
    /// `checked_current`: the open model's check is already that of `model`.
    fn show_edited(
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
        let in_place = touched.attributes_only()
            && before
                .scene
                .as_mut()
                .is_some_and(|scene| scene.refresh_nodes(&model, &touched.nodes));
        let (next, items) = if in_place && let Some(mut scene) = before.scene.take() {
            scene.view.inferred = Some(inferred.clone());
            let _ = scene.layout(&model, &mut || false);
            let items = (0..scene.view.items.len())
                .filter_map(|i| ItemId::try_from(i).ok())
                .map(|i| (i, i))
                .collect();
            let next = edited_model(&before, model, summary, Some(scene), inferred, checked);
            (next, items)
        } else {
            open_edited(&before, model, summary, inferred, checked)
        };
        let focus = focus.and_then(|node| {
            let view = &next.scene.as_ref()?.view;
            let found = view
                .items
                .iter()
                .position(|i| matches!(i.kind, ItemKind::Node { node: n, .. } if n == node))?;
            ItemId::try_from(found).ok()
        });
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
        if self.draft.is_some() || self.work.is_some() {
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
        if self.draft.is_some() || self.work.is_some() {
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

    /// The serial of the open model and `items` (of the model state `from`) as they
    /// are in it: carried through the last edit or undo, else nothing.
    pub fn carry(&self, from: u64, items: &[ItemId]) -> (u64, Vec<ItemId>) {
        let Some(open) = self.open.as_ref() else {
            return (0, Vec::new());
        };
        if open.serial == from {
            return (from, items.to_vec());
        }
        let carried = match &self.moves {
            Some(m) if m.from == from && m.to == open.serial => match m.focus {
                Some(focus) => vec![focus],
                None => items
                    .iter()
                    .filter_map(|i| m.items.get(i).copied())
                    .collect(),
            },
            _ => Vec::new(),
        };
        (open.serial, carried)
    }

    /// How many models have been opened so far (edits do not count).
    pub fn opened(&self) -> u64 {
        self.opened
    }

    /// The nodes among `items` (each once, in order).
    pub fn selected_nodes(&self, items: &[ItemId]) -> Vec<NodeId> {
        let Some(scene) = self.open.as_ref().and_then(|o| o.scene.as_ref()) else {
            return Vec::new();
        };
        let mut nodes = Vec::new();
        for &item in items {
            if let Some(ItemKind::Node { node, .. }) = scene.kind(item)
                && !nodes.contains(node)
            {
                nodes.push(*node);
            }
        }
        nodes
    }

    /// Applies the edit `make` builds from `node`'s graph path and index.
    fn edit_node(
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
    fn edit_value(
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

    /// Why `text` cannot name a new function (`DOMAIN.NAME`), or `None` if it can.
    pub fn new_function_problem(&self, text: &str) -> Option<String> {
        let model = &self.open.as_ref()?.model;
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
        let key = match graft::library::new_function_key(&open.model, name) {
            Ok(key) => key,
            Err(e) => {
                self.error = Some(format!("Outlining {}: {e}", name.trim()));
                return false;
            }
        };
        let refs: Vec<(String, usize)> = nodes
            .iter()
            .filter_map(|&n| node_ref(&open.model, n))
            .collect();
        let Some((graph, _)) = refs.first().cloned() else {
            return false;
        };
        if refs.len() != nodes.len() || refs.iter().any(|(g, _)| *g != graph) {
            self.error = Some(format!(
                "Outlining {key}: the selected nodes are not all in one graph"
            ));
            return false;
        }
        let edit = graft::edit::Edit::Outline {
            graph,
            nodes: refs.iter().map(|(_, k)| *k).collect(),
            function: key.to_string(),
        };
        self.edit(&format!("Outlining {key}"), edit, |m| {
            graft::library::call_sites(m, &key).first().copied()
        })
    }

    /// Sets compile-time attributes on a call (ONNX text, `alpha = 0.2`; empty: keep
    /// the call's values) and specializes it into an overload (undoable).
    pub fn specialize_call(&mut self, node: graft::ir::NodeId, attributes: &str) -> bool {
        let Some(edit) = self.specialize_edit(node, attributes.trim().to_string()) else {
            return false;
        };
        self.edit("Specializing the call", edit, |_| None)
    }

    /// Checks a value typed into the call editor for attribute `name` of `node`'s
    /// function (parses, and has the declared type).
    pub fn check_call_attribute(
        &self,
        node: graft::ir::NodeId,
        name: &str,
        value: &str,
    ) -> Result<graft::ir::Attribute, String> {
        let model = &self.open.as_ref().ok_or("no model")?.model;
        let ty =
            generic_of(model, node).and_then(|f| graft::specialize::attribute_type(model, f, name));
        graft::specialize::parse_call_attribute(name, value, ty)
    }

    /// Sets one compile-time attribute of a call and specializes it (undoable); an
    /// invalid value is refused with its error.
    pub fn set_call_attribute(&mut self, node: graft::ir::NodeId, name: &str, value: &str) -> bool {
        let attribute = match self.check_call_attribute(node, name, value) {
            Ok(a) => a,
            Err(e) => {
                self.error = Some(format!("{name} = {value}: {e}"));
                return false;
            }
        };
        let Some(open) = self.open.as_ref() else {
            return false;
        };
        let text = graft::text::print_attributes(&open.model, &[attribute]);
        let Some(edit) = self.specialize_edit(node, text) else {
            return false;
        };
        let at = FieldAt {
            target: Target::Node(node),
            slot: Slot::CallAttribute(name.to_string()),
        };
        self.edit_at(Some(at), "Specializing the call", edit, |_| None)
    }

    /// The edit that specializes `node` with `attributes` (ONNX text), keeping what
    /// the call editor keeps.
    fn specialize_edit(&self, node: NodeId, attributes: String) -> Option<graft::edit::Edit> {
        let (graph, node) = node_ref(&self.open.as_ref()?.model, node)?;
        let keep = self.call_keep(node_id_of(self, &graph, node)?);
        Some(graft::edit::Edit::Specialize {
            graph,
            node,
            attributes,
            keep,
        })
    }

    /// The call editor's options: besides the kept functions, the call's generic stays
    /// (the editor binds it again on the next change), even when this was its last
    /// call.
    fn call_keep(&self, node: NodeId) -> Vec<String> {
        let mut keep = self.kept_keys();
        if let Some(open) = self.open.as_ref()
            && let Some(f) = generic_of(&open.model, node)
        {
            keep.push(open.model.function(f).key().to_string());
        }
        keep
    }

    fn kept_keys(&self) -> Vec<String> {
        self.kept.iter().map(ToString::to_string).collect()
    }

    /// Specializes every call of the `index`-th function whose attributes are all
    /// constant (the library panel's action; undoable).
    pub fn library_specialize_all(&mut self, index: usize) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        let edit = graft::edit::Edit::SpecializeAll {
            function: key.to_string(),
            keep: self.kept_keys(),
        };
        self.edit(&format!("Specializing the calls of {key}"), edit, |_| None)
    }

    /// Whether the `index`-th function stays in the library when no call is left.
    pub fn library_kept(&self, index: usize) -> bool {
        self.function_key(index)
            .is_some_and(|key| self.kept.contains(&key))
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
        let Some((graph, node)) = self.open.as_ref().and_then(|o| node_ref(&o.model, node)) else {
            return false;
        };
        let edit = graft::edit::Edit::UseOverload {
            graph,
            node,
            overload: overload.to_string(),
        };
        self.edit("Choosing the overload", edit, |_| None)
    }

    /// Replaces a standard-op node by its function body (undoable).
    pub fn expand_standard(&mut self, node: graft::ir::NodeId) -> bool {
        let Some(op) = self
            .open
            .as_ref()
            .map(|o| o.model.node(node).op_type().to_string())
        else {
            return false;
        };
        let Some((graph, node)) = self.open.as_ref().and_then(|o| node_ref(&o.model, node)) else {
            return false;
        };
        let edit = graft::edit::Edit::ExpandStandard { graph, node };
        self.edit(&format!("Expanding {op}"), edit, |_| None)
    }

    fn function_key(&self, index: usize) -> Option<graft::ir::FunctionKey> {
        let model = &self.open.as_ref()?.model;
        model.functions.get(index).map(|&f| model.function(f).key())
    }

    /// Inlines every call of the `index`-th function (the library panel's action).
    pub fn library_inline_all(&mut self, index: usize) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        let edit = graft::edit::Edit::InlineCalls {
            function: key.to_string(),
        };
        self.edit(&format!("Inlining the calls of {key}"), edit, |_| None)
    }

    /// Deletes the `index`-th function; refused while something calls it.
    pub fn library_delete(&mut self, index: usize) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        let edit = graft::edit::Edit::DeleteFunction {
            function: key.to_string(),
        };
        self.edit(&format!("Deleting {key}"), edit, |_| None)
    }

    /// Renames the `index`-th function to `DOMAIN.NAME`; every call follows.
    pub fn library_rename(&mut self, index: usize, to: &str) -> bool {
        let Some(key) = self.function_key(index) else {
            return false;
        };
        if !to.trim().contains('.') {
            self.error = Some(format!("Renaming {key}: give the new name as DOMAIN.NAME"));
            return false;
        }
        let edit = graft::edit::Edit::RenameFunction {
            function: key.to_string(),
            to: to.trim().to_string(),
        };
        self.edit(&format!("Renaming {key}"), edit, |_| None)
    }

    /// The SVG elements of the graph inside `view` (layout coordinates) at `zoom`
    /// (screen pixels per layout unit).
    pub fn graph_svg(&self, view: Rect, detail: Detail, selected: &[ItemId]) -> String {
        let Some(open) = self.open.as_ref() else {
            return String::new();
        };
        let Some(scene) = open.scene.as_ref() else {
            return String::new();
        };
        svg::region(scene, &open.model, view, detail, selected, &|item| {
            if self.is_new(item) {
                Some("g-new")
            } else if item.problem.is_some()
                || matches!(item.kind, ItemKind::Node { node, .. } if open.problem_nodes.contains_key(&node))
            {
                Some("g-bad")
            } else {
                None
            }
        })
    }

    /// The minimap picture and how many items are drawn in all.
    pub fn graph_overview(&self) -> Option<(String, usize)> {
        let scene = self.open.as_ref()?.scene.as_ref()?;
        Some((svg::overview(scene, MINIMAP_DEPTH), scene.placed.len()))
    }

    /// Width and height of the laid-out graph.
    pub fn graph_size(&self) -> Option<(f32, f32)> {
        let scene = self.open.as_ref()?.scene.as_ref()?;
        Some((scene.width, scene.height))
    }

    /// The whole graph as it is drawn (expanded groups open) as an SVG document.
    pub fn graph_document(&self) -> Option<(String, String)> {
        let open = self.open.as_ref()?;
        let scene = open.scene.as_ref()?;
        let stem = open.name.strip_suffix(".onnx").unwrap_or(&open.name);
        Some((format!("{stem}.svg"), svg::document(scene, &open.model)))
    }

    /// What the properties panel shows for `item`.
    pub fn properties(&self, item: ItemId) -> Option<Properties> {
        let open = self.open.as_ref()?;
        let model = &open.model;
        let it = open.scene.as_ref()?.view.item(item)?;
        let view = &open.scene.as_ref()?.view;
        let value_name = |v: &Option<graft::ir::ValueId>| match v {
            None => "(none)".to_string(),
            Some(v) => match view.type_text(*v) {
                Some(ty) => format!("{}: {ty}", model.value(*v).name),
                None => format!("{} (type unknown)", model.value(*v).name),
            },
        };
        let mut p = Properties {
            title: it.title.clone(),
            name: it.subtitle.clone(),
            problem: it.problem.clone(),
            ..Properties::default()
        };
        match &it.kind {
            ItemKind::Node { node, callee } => {
                let n = model.node(*node);
                p.kind = if callee.is_some() {
                    "function call".into()
                } else if it.is_group {
                    "control flow".into()
                } else {
                    "operator".into()
                };
                p.domain = graft::ir::normalize_domain(n.domain()).to_string();
                p.inputs = n.inputs.iter().map(value_name).collect();
                p.outputs = n.outputs.iter().map(value_name).collect();
                p.attributes = it
                    .attrs
                    .iter()
                    .map(|a| {
                        let source = match a.source {
                            graft::view::AttrSource::Given => "",
                            graft::view::AttrSource::Call => "from the call",
                            graft::view::AttrSource::Default => "default",
                            graft::view::AttrSource::Unset => "not set",
                        };
                        (a.name.clone(), a.value.clone(), source)
                    })
                    .collect();
                let name_of = |v: &Option<graft::ir::ValueId>| {
                    v.map(|v| model.value(v).name.clone()).unwrap_or_default()
                };
                p.editor = Some(NodeEditor {
                    node: *node,
                    name: n.name().to_string(),
                    inputs: n.inputs.iter().map(name_of).collect(),
                    initializers: n
                        .inputs
                        .iter()
                        .map(|v| {
                            v.filter(|&v| {
                                let g = model.graph(model.value(v).graph);
                                g.initializers.iter().any(|i| i.value == Some(v))
                            })
                        })
                        .collect(),
                    outputs: n.outputs.iter().map(name_of).collect(),
                    attributes: n
                        .attributes
                        .iter()
                        .map(|a| {
                            (
                                a.name().to_string(),
                                graft::text::print_attributes(model, std::slice::from_ref(a)),
                            )
                        })
                        .collect(),
                });
                if callee.is_some() {
                    p.call = call_editor(model, *node);
                } else {
                    p.standard_body = graft::library::body_kind(model, *node).map(|k| (*node, k));
                }
                p.doc = match callee {
                    Some(f) => model.function(*f).doc_string.clone().unwrap_or_default(),
                    None => {
                        let version = model.opset_version(n.domain()).unwrap_or(i64::MAX);
                        graft::schema::lookup(n.domain(), n.op_type(), version)
                            .map(|s| s.doc.trim().to_string())
                            .unwrap_or_default()
                    }
                };
            }
            ItemKind::In { value } | ItemKind::Out { value } => {
                p.kind = if matches!(it.kind, ItemKind::In { .. }) {
                    "input".into()
                } else {
                    "output".into()
                };
                p.name = model.value(*value).name.clone();
                let input = matches!(it.kind, ItemKind::In { .. });
                let graph = model.graph(model.value(*value).graph);
                let list = if input { &graph.inputs } else { &graph.outputs };
                if let Some(info) = list.iter().find(|i| i.value == Some(*value)) {
                    p.terminal = Some(TerminalEditor {
                        value: *value,
                        name: p.name.clone(),
                        ty: info
                            .ty
                            .as_ref()
                            .filter(|t| t.value.is_some())
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                        input,
                    });
                }
            }
            ItemKind::Subgraph { attribute, .. } => {
                p.kind = format!("subgraph ({attribute})");
            }
            ItemKind::Namespace { path, .. } => {
                p.kind = "namespace".into();
                p.name = path.clone();
            }
            ItemKind::Section { .. } => p.kind = "section".into(),
            ItemKind::Graph { .. } => p.kind = "graph".into(),
        }
        Some(p)
    }

    pub fn set_error(&mut self, message: String) {
        self.error = Some(message);
    }

    pub fn dismiss_error(&mut self) {
        self.error = None;
    }

    /// The open model encoded by the core, and the file name to save it under. A
    /// download is one file, so external data is embedded (from the data files
    /// dropped with the model); without them the export says which is missing.
    pub fn export(&self) -> Result<(String, Vec<u8>), String> {
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let options = ExportOptions {
            embed_external: !open.model.external_locations().is_empty(),
            ..ExportOptions::default()
        };
        let bytes = graft::export(&open.model, &options)
            .map_err(|e| format!("Export of {} failed: {e}", open.name))?;
        let name = if open.name.is_empty() {
            DEFAULT_FILE_NAME.to_string()
        } else {
            open.name.clone()
        };
        Ok((name, bytes))
    }
}

/// At most this many items are built by "expand all" (deeply nested calls multiply).
const EXPAND_LIMIT: usize = 200_000;
/// Search builds at most this many items while looking into unopened groups.
const SEARCH_ITEM_LIMIT: usize = 300_000;
/// The minimap shows boxes down to this many levels below the root.
const MINIMAP_DEPTH: u32 = 3;
/// At most this many search results are listed.
const SEARCH_RESULTS: usize = 200;

/// One search result.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    pub item: ItemId,
    pub title: String,
    pub subtitle: String,
    /// The groups it sits in, outermost first.
    pub path: String,
}

/// One problem in the problems list.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Its index in the summary's diagnostics.
    pub index: usize,
    pub error: bool,
    pub code: String,
    pub message: String,
    pub location: String,
    pub at_node: bool,
}

/// One local function in the function library.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionInfo {
    /// Position in the model's function list.
    pub index: usize,
    pub domain: String,
    pub name: String,
    pub overload: String,
    /// Declared attributes with their defaults.
    pub attributes: Vec<(String, String)>,
    pub doc: String,
}

/// Search results for `found`: title, name, and the groups each sits in.
fn hits(view: &View, found: Vec<ItemId>) -> Vec<SearchHit> {
    found
        .into_iter()
        .take(SEARCH_RESULTS)
        .filter_map(|id| {
            let item = view.item(id)?;
            let mut path = Vec::new();
            let mut current = item.parent;
            while let Some(p) = current {
                let parent = view.item(p)?;
                if parent.parent.is_some() {
                    path.push(if parent.subtitle.is_empty() {
                        parent.title.clone()
                    } else {
                        format!("{} {}", parent.title, parent.subtitle)
                    });
                }
                current = parent.parent;
            }
            path.reverse();
            Some(SearchHit {
                item: id,
                title: item.title.clone(),
                subtitle: item.subtitle.clone(),
                path: path.join(" › "),
            })
        })
        .collect()
}

/// What the properties panel shows for one item.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Properties {
    /// For a call of a local function: what its compile-time attribute editor shows.
    pub call: Option<CallEditor>,
    pub title: String,
    pub kind: String,
    pub name: String,
    /// For a call the rules of `graft::calls` reject: what is wrong, with its code.
    pub problem: Option<String>,
    pub domain: String,
    pub attributes: Vec<(String, String, &'static str)>,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    /// The operator's documentation from the schema registry.
    pub doc: String,
    /// For a standard operator with a function body: where the body comes from
    /// (`Expand` replaces the node by it).
    pub standard_body: Option<(graft::ir::NodeId, graft::library::BodyKind)>,
    /// For a node: what its editor shows.
    pub editor: Option<NodeEditor>,
    /// For a graph input or output: what its editor shows.
    pub terminal: Option<TerminalEditor>,
}

/// A graph input's or output's editable parts.
#[derive(Clone, Debug, PartialEq)]
pub struct TerminalEditor {
    pub value: graft::ir::ValueId,
    pub name: String,
    /// The stated type as ONNX text (`float[batch,4]`), empty when none is stated.
    pub ty: String,
    pub input: bool,
}

/// A node's editable parts: its name, input and output value names, attributes as
/// ONNX text, and the operators the palette offers where it stands.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeEditor {
    pub node: NodeId,
    pub name: String,
    /// The value each input reads (`""`: omitted).
    pub inputs: Vec<String>,
    /// For each input, the value when it is an initializer (its data can be replaced
    /// from an `.npy` file).
    pub initializers: Vec<Option<graft::ir::ValueId>>,
    pub outputs: Vec<String>,
    /// Name and value as ONNX text (`alpha = 0.5`).
    pub attributes: Vec<(String, String)>,
}

/// A call's compile-time attributes: the generic function's declared attributes,
/// each with its default and the call's value.
#[derive(Clone, Debug, PartialEq)]
pub struct CallEditor {
    pub node: graft::ir::NodeId,
    /// `domain.name` of the generic function.
    pub function: String,
    /// The overload the call uses (`""`: the generic).
    pub overload: String,
    /// Every overload of the function in the model (`""`: the generic), to choose from.
    pub overloads: Vec<String>,
    /// Name, default (`None`: no default), the call's value (`None`: not given).
    pub attributes: Vec<(String, Option<String>, Option<String>)>,
}

/// The generic function `node` calls (the call may name an overload of it).
fn generic_of(model: &Model, node: graft::ir::NodeId) -> Option<graft::ir::FunctionId> {
    let n = model.nodes.get(node)?;
    model.find_function(&graft::ir::FunctionKey {
        domain: graft::ir::normalize_domain(n.domain()).to_string(),
        name: n.op_type().to_string(),
        overload: String::new(),
    })
}

/// The attribute editor of the call `node`: declared attributes come from the generic
/// function (the call may already use an overload of it).
fn call_editor(model: &Model, node: graft::ir::NodeId) -> Option<CallEditor> {
    let n = model.node(node);
    let generic = graft::ir::FunctionKey {
        domain: graft::ir::normalize_domain(n.domain()).to_string(),
        name: n.op_type().to_string(),
        overload: String::new(),
    };
    let f = model.function(model.find_function(&generic)?);
    let text = |a: &graft::ir::Attribute| match &a.kind {
        graft::ir::AttrKind::Value(v) => graft::view::attr_text(model, v),
        graft::ir::AttrKind::Ref { name, .. } => format!("@{name}"),
        graft::ir::AttrKind::Raw(_) => "?".into(),
    };
    // The call's own values, else those its overload was made with.
    let bound = model
        .find_function(&graft::ir::FunctionKey {
            overload: n.overload().to_string(),
            ..generic.clone()
        })
        .filter(|_| !n.overload().is_empty())
        .map(|o| graft::specialize::binding_of(model, o))
        .unwrap_or_default();
    let given = |name: &str| {
        n.attributes
            .iter()
            .chain(&bound)
            .find(|a| a.name() == name)
            .map(text)
    };
    let mut attributes: Vec<(String, Option<String>, Option<String>)> = f
        .attribute
        .iter()
        .map(|a| (a.clone(), None, given(a)))
        .collect();
    attributes.extend(
        f.attribute_proto
            .iter()
            .map(|a| (a.name().to_string(), Some(text(a)), given(a.name()))),
    );
    let overloads = model
        .functions
        .iter()
        .map(|&g| model.function(g).key())
        .filter(|k| k.domain == generic.domain && k.name == generic.name)
        .map(|k| k.overload)
        .collect();
    Some(CallEditor {
        node,
        overloads,
        function: if generic.domain.is_empty() {
            generic.name.clone()
        } else {
            format!("{}.{}", generic.domain, generic.name)
        },
        overload: n.overload().to_string(),
        attributes,
    })
}

/// Opens the model among `files`; the others are its external-data files.
fn open_files(files: Vec<LoadedFile>, origin: Origin) -> Result<OpenModel, String> {
    let (name, model, imported) = load_model(files)?;
    let checked = graft::check::Checked::new(&model);
    Ok(open_model(name, origin, model, Arc::new(imported), checked))
}

/// The summary of `model` with the importer's findings that hold and the checker's.
fn summary_of(model: &Model, imported: &[Diagnostic], checked: &graft::check::Checked) -> Summary {
    let mut diagnostics = imported.to_vec();
    diagnostics.extend(checked.diagnostics().iter().cloned());
    Summary::of(model, &diagnostics)
}

/// Imports the model among `files` and attaches the others as its external data.
/// Returns its file name, the model and the importer's diagnostics.
fn load_model(mut files: Vec<LoadedFile>) -> Result<(String, Model, Vec<Diagnostic>), String> {
    let index = model_file(&files).ok_or("No file was given.")?;
    let main = files.remove(index);
    let imported = graft::import(main.bytes).map_err(|e| format!("{}: {e}", main.name))?;
    let mut model = imported.model;
    let mut diagnostics = imported.diagnostics;
    for data in files {
        if !attach(&mut model, &data) {
            diagnostics.push(Diagnostic::new(
                Severity::Warning,
                "app.unused-file",
                format!(
                    "{} was opened with the model, but no tensor of {} keeps its data there",
                    data.name, main.name
                ),
                String::new(),
            ));
        }
    }
    Ok((main.name, model, diagnostics))
}

/// What an editor edits: a node, or a value (a graph input or output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Node(NodeId),
    Value(graft::ir::ValueId),
}

/// A field of an editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    Name,
    Input(usize),
    Output(usize),
    /// The attribute row (set or remove).
    Attribute,
    /// "Add after…".
    Add,
    Type,
    NewInput,
    /// A call's compile-time attribute, by name.
    CallAttribute(String),
    /// A button of the editor (remove, replace data).
    Action,
}

/// The field an edit came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldAt {
    pub target: Target,
    pub slot: Slot,
}

impl FieldAt {
    /// Where the core's [`graft::edit::Field`] puts the error, within this editor: a
    /// specialization refused for one attribute goes beside that attribute.
    fn refined(self, field: &graft::edit::Field) -> FieldAt {
        match (&self.slot, field) {
            (Slot::CallAttribute(_), graft::edit::Field::Attribute(name)) if !name.is_empty() => {
                FieldAt {
                    slot: Slot::CallAttribute(name.clone()),
                    ..self
                }
            }
            _ => self,
        }
    }
}

/// A refused edit and the field it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub at: FieldAt,
    pub message: String,
}

/// A model ready to show: its view built and laid out.
/// The view of `model` with the types inference found where the model states none.
fn typed_view(model: &Model, inferred: &Arc<graft::infer::Inferred>) -> Option<View> {
    let mut view = View::of_model(model)?;
    view.inferred = Some(inferred.clone());
    Some(view)
}

fn open_model(
    name: String,
    origin: Origin,
    model: Model,
    imported: Arc<Vec<Diagnostic>>,
    checked: graft::check::Checked,
) -> OpenModel {
    let summary = Arc::new(summary_of(&model, &imported, &checked));
    let inferred = Arc::new(graft::infer::infer(&model));
    let scene = typed_view(&model, &inferred).and_then(|view| {
        let mut scene = Scene::new(view);
        scene.layout(&model, &mut || false).ok().map(|_| scene)
    });
    OpenModel {
        name,
        origin,
        model,
        problem_nodes: problem_nodes(&summary),
        summary,
        scene,
        serial: next_serial(),
        inferred,
        checked,
        imported,
    }
}

/// The model after an edit, its view built again with the groups open that were open
/// in `before`; returns it and which item became which.
fn open_edited(
    before: &OpenModel,
    model: Model,
    summary: Arc<Summary>,
    inferred: Arc<graft::infer::Inferred>,
    checked: graft::check::Checked,
) -> (OpenModel, FxMap<ItemId, ItemId>) {
    let mut items = FxMap::default();
    let scene = typed_view(&model, &inferred).and_then(|view| {
        let mut scene = Scene::new(view);
        if let Some(old) = before.scene.as_ref() {
            items = scene.follow(&model, &old.view);
        }
        scene.layout(&model, &mut || false).ok().map(|_| scene)
    });
    let open = edited_model(before, model, summary, scene, inferred, checked);
    (open, items)
}

/// `model`, edited from `before`'s, with what was worked out for it.
fn edited_model(
    before: &OpenModel,
    model: Model,
    summary: Arc<Summary>,
    scene: Option<Scene>,
    inferred: Arc<graft::infer::Inferred>,
    checked: graft::check::Checked,
) -> OpenModel {
    OpenModel {
        name: before.name.clone(),
        origin: before.origin,
        model,
        problem_nodes: problem_nodes(&summary),
        summary,
        scene,
        serial: next_serial(),
        inferred,
        checked,
        imported: before.imported.clone(),
    }
}

/// A node as an edit names it: its graph's path and its index there.
fn node_ref(model: &Model, node: NodeId) -> Option<(String, usize)> {
    let n = model.nodes.get(node)?;
    let path = graft::edit::graph_path(model, n.graph)?;
    let k = model.graph(n.graph).nodes.iter().position(|&x| x == node)?;
    Some((path, k))
}

/// The node an edit's (path, index) names in the open model.
fn node_id_of(session: &Session, path: &str, index: usize) -> Option<NodeId> {
    let model = &session.open.as_ref()?.model;
    let g = graft::edit::resolve_path(model, path).ok()?;
    model.graph(g).nodes.get(index).copied()
}

/// Which file is the model: the first `.onnx` one, else the first.
fn model_file(files: &[LoadedFile]) -> Option<usize> {
    let is_onnx = |f: &LoadedFile| f.name.to_ascii_lowercase().ends_with(".onnx");
    files
        .iter()
        .position(is_onnx)
        .or_else(|| (!files.is_empty()).then_some(0))
}

/// Attaches a data file under its own name and under every external location that ends
/// in that name (a model may refer to `weights/model.data`; a browser only gives the
/// file name). Returns whether the model refers to it.
fn attach(model: &mut Model, data: &LoadedFile) -> bool {
    let locations: Vec<String> = model
        .external_locations()
        .into_iter()
        .filter(|l| l.rsplit(['/', '\\']).next() == Some(data.name.as_str()))
        .collect();
    model.attach_external(data.name.clone(), data.bytes.clone());
    for location in &locations {
        model.attach_external(location.clone(), data.bytes.clone());
    }
    !locations.is_empty()
}

/// The reactive session the components share (through context).
#[derive(Clone, Copy)]
pub struct AppState {
    session: RwSignal<Session>,
    pub summary: Memo<Option<Arc<Summary>>>,
    /// The open model's file name.
    pub name: Memo<Option<String>>,
    /// The bundled example that is open, if the open model is one.
    pub example: Memo<Option<&'static str>>,
    pub error: Memo<Option<String>>,
    pub pending: Memo<Option<String>>,
    /// The open model's functions, as `domain.name:overload`, in file order.
    pub functions: Memo<Vec<String>>,
    /// A layout being done in pieces (expand all…), for the progress bar.
    pub work: RwSignal<Option<WorkStatus>>,
    /// The inline dialog's contents while one is set up.
    pub inline: Memo<Option<InlineView>>,
    pub can_undo: Memo<bool>,
    pub can_redo: Memo<bool>,
    /// The history panel's lines: the edits in force, then the undone ones.
    pub history: Memo<(Vec<String>, Vec<String>)>,
    /// How many models have been opened (edits do not count).
    pub opened: Memo<u64>,
    /// The items selected on the canvas, the one whose properties show last.
    pub selection: RwSignal<Vec<ItemId>>,
    /// Presentation mode: the panels hidden, text larger.
    pub presenting: RwSignal<bool>,
    /// The view the page's URL fragment named when it loaded, until it is restored
    /// on the first model drawn.
    pub initial_view: StoredValue<Option<String>>,
    /// The model state (`OpenModel::serial`) the selection's item ids belong to.
    selection_of: StoredValue<u64>,
}

impl AppState {
    pub fn new() -> Self {
        let session = RwSignal::new(Session::default());
        Self {
            session,
            summary: Memo::new(move |_| session.with(|s| s.open().map(|o| o.summary.clone()))),
            name: Memo::new(move |_| session.with(|s| s.open().map(|o| o.name.clone()))),
            example: Memo::new(move |_| {
                session.with(|s| match s.open().map(|o| o.origin) {
                    Some(Origin::Example(file)) => Some(file),
                    _ => None,
                })
            }),
            error: Memo::new(move |_| session.with(|s| s.error().map(str::to_string))),
            pending: Memo::new(move |_| session.with(|s| s.pending().map(str::to_string))),
            work: RwSignal::new(None),
            inline: Memo::new(move |_| session.with(Session::inline_view)),
            can_undo: Memo::new(move |_| session.with(Session::can_undo)),
            can_redo: Memo::new(move |_| session.with(Session::can_redo)),
            history: Memo::new(move |_| session.with(Session::history)),
            opened: Memo::new(move |_| session.with(Session::opened)),
            selection: RwSignal::new(Vec::new()),
            presenting: RwSignal::new(false),
            initial_view: StoredValue::new(None),
            selection_of: StoredValue::new(0),
            functions: Memo::new(move |_| {
                session.with(|s| {
                    s.open().map_or_else(Vec::new, |o| {
                        let m = &o.model;
                        m.functions
                            .iter()
                            .map(|&f| m.function(f).key().to_string())
                            .collect()
                    })
                })
            }),
        }
    }

    /// Changes the session; the selection follows the open model's items (through an
    /// edit or undo), or is cleared when the model was replaced otherwise.
    fn change<R>(self, f: impl FnOnce(&mut Session) -> R) -> Option<R> {
        let result = self.session.try_update(f);
        let from = self.selection_of.get_value();
        let (serial, items) = self
            .session
            .with_untracked(|s| self.selection.with_untracked(|sel| s.carry(from, sel)));
        if serial != from {
            self.selection_of.set_value(serial);
            self.selection.set(items);
        }
        result
    }

    /// Selects `items` (of the open model), the one whose properties show last.
    pub fn select(self, items: Vec<ItemId>) {
        let serial = self
            .session
            .with_untracked(|s| s.open().map_or(0, |o| o.serial));
        self.selection_of.set_value(serial);
        self.selection.set(items);
    }

    /// The nodes among the selected items.
    pub fn selected_nodes(self) -> Vec<NodeId> {
        let items = self.selection.get();
        self.session.with(|s| s.selected_nodes(&items))
    }

    /// Whether `item` is a node (and so can be outlined).
    pub fn is_node(self, item: ItemId) -> bool {
        self.session
            .with_untracked(|s| !s.selected_nodes(&[item]).is_empty())
    }

    /// Why `text` cannot name a new function, or `None`.
    pub fn new_function_problem(self, text: &str) -> Option<String> {
        self.session.with(|s| s.new_function_problem(text))
    }

    /// Outlines the selected nodes into the new function `name` (undoable). Whether it
    /// was done; an error shows in the banner.
    pub fn outline(self, name: String) -> bool {
        let items = self.selection.get_untracked();
        self.change(|s| s.outline(&items, &name)).unwrap_or(false)
    }

    /// The open model as ONNX text, or its `function`-th function.
    /// The open model (or its `function`-th function) as ONNX text, with the
    /// checker's errors at nodes printed there, each as `line N: message (code)`.
    pub fn text(self, function: Option<usize>) -> Option<(String, Vec<String>)> {
        self.session.with(|s| {
            let open = s.open()?;
            let model = &open.model;
            let f = match function {
                None => None,
                Some(i) => Some(*model.functions.get(i)?),
            };
            let (text, lines) = graft::text::print_with_lines(model, f);
            let mut problems: Vec<(usize, String)> = open
                .checked
                .diagnostics()
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .filter_map(|d| {
                    let line = graft::text::line_of(model, &lines, d.at.node?)?;
                    Some((line, format!("line {line}: {} ({})", d.message, d.code)))
                })
                .collect();
            problems.sort();
            Some((text, problems.into_iter().map(|(_, p)| p).collect()))
        })
    }

    pub fn open_example(self, file: &'static str) {
        let Some(ticket) = self
            .session
            .try_update(|s| s.begin(format!("Opening {file}…")))
        else {
            return;
        };
        spawn_local(async move {
            let url = format!("{EXAMPLES_URL}/{file}");
            let files = platform::fetch_bytes(&url)
                .await
                .map(|bytes| {
                    vec![LoadedFile {
                        name: file.to_string(),
                        bytes,
                    }]
                })
                .map_err(|e| format!("{file}: {e}"));
            let started = platform::now_ms();
            self.change(|s| s.finish(ticket, files, Origin::Example(file)));
            platform::publish_timing("open_ms", platform::now_ms() - started);
        });
    }

    /// Opens the model at `url` (fetched from the page's own origin).
    pub fn open_url(self, url: String) {
        let name = url.rsplit('/').next().unwrap_or(&url).to_string();
        let Some(ticket) = self
            .session
            .try_update(|s| s.begin(format!("Opening {name}…")))
        else {
            return;
        };
        spawn_local(async move {
            let files = platform::fetch_bytes(&url)
                .await
                .map(|bytes| {
                    vec![LoadedFile {
                        name: name.clone(),
                        bytes,
                    }]
                })
                .map_err(|e| format!("{name}: {e}"));
            let started = platform::now_ms();
            self.change(|s| s.finish(ticket, files, Origin::Files));
            platform::publish_timing("open_ms", platform::now_ms() - started);
        });
    }

    /// Opens the example whose file name is `file`, if there is one.
    pub fn open_example_named(self, file: &str) {
        if let Some(example) = example(file) {
            self.open_example(example.file);
        }
    }

    pub fn open_files(self, picked: PickedFiles) {
        if picked.is_empty() {
            return;
        }
        let what = format!("Opening {}…", picked.names());
        let Some(ticket) = self.session.try_update(|s| s.begin(what)) else {
            return;
        };
        spawn_local(async move {
            let files = picked.read().await;
            let started = platform::now_ms();
            self.change(|s| s.finish(ticket, files, Origin::Files));
            platform::publish_timing("open_ms", platform::now_ms() - started);
        });
    }

    /// Reads the picked or dropped files and opens the inline dialog for the model
    /// among them.
    pub fn begin_inline(self, picked: PickedFiles) {
        if picked.is_empty() {
            return;
        }
        spawn_local(async move {
            let result = picked
                .read()
                .await
                .and_then(|files| self.change(|s| s.begin_inline(files)).unwrap_or(Ok(())));
            if let Err(message) = result {
                self.change(|s| s.set_error(message));
            }
        });
    }

    pub fn inline_bind(self, index: usize, value: Option<String>) {
        self.change(|s| s.inline_bind(index, value));
    }

    pub fn inline_expose(self, index: usize, exposed: bool) {
        self.change(|s| s.inline_expose(index, exposed));
    }

    pub fn inline_prefix(self, prefix: String) {
        self.change(|s| s.inline_prefix(prefix));
    }

    pub fn inline_as_function(self, function: Option<String>) {
        self.change(|s| s.inline_as_function(function));
    }

    pub fn inline_candidates(self, index: usize) -> Vec<graft::inline::Candidate> {
        self.session.with_untracked(|s| s.inline_candidates(index))
    }

    /// Apply; an error stays in the dialog (it is the draft's own).
    pub fn apply_inline(self) {
        self.change(|s| {
            let _ = s.apply_inline();
        });
    }

    pub fn cancel_inline(self) {
        self.change(Session::cancel_inline);
    }

    /// Undoes the last edit; publishes `undo_ms` as [`AppState::node_edit`] does.
    pub fn undo(self) {
        self.timed("undo_ms", Session::undo);
    }

    /// Redoes the last undone edit; publishes `redo_ms`.
    pub fn redo(self) {
        self.timed("redo_ms", Session::redo);
    }

    /// Undoes or redoes until `done` edits are in force (the history panel's click).
    pub fn go_to_step(self, done: usize) {
        self.change(|s| {
            while s.history().0.len() > done && s.undo() {}
            while s.history().0.len() < done && s.redo() {}
        });
    }

    /// Downloads the edit log (`MODEL.edits.json`), which `graft apply` replays.
    pub fn export_log(self) {
        let (name, log) = self.session.with_untracked(|s| {
            let base = s
                .open()
                .map_or("model", |o| o.name.trim_end_matches(".onnx"))
                .to_string();
            (format!("{base}.edits.json"), s.edit_log())
        });
        if let Err(e) = platform::download_text(&name, &log, "application/json") {
            self.change(|s| s.set_error(format!("Export of {name} failed: {e}")));
        }
    }

    pub fn export(self) {
        let result = self.session.with_untracked(Session::export);
        let saved = result.and_then(|(name, bytes)| {
            platform::download(&name, &bytes).map_err(|e| format!("Export of {name} failed: {e}"))
        });
        if let Err(message) = saved {
            self.change(|s| s.set_error(message));
        }
    }

    pub fn dismiss_error(self) {
        self.change(Session::dismiss_error);
    }

    pub fn toggle(self, item: ItemId) {
        let started = platform::now_ms();
        self.change(|s| {
            s.toggle(item);
        });
        platform::publish_timing("toggle_ms", platform::now_ms() - started);
    }

    /// Expands every group `depth` levels deep; 0 collapses everything. Laid out in
    /// pieces; `done` runs when the new picture is drawn (not after Cancel).
    pub fn expand_to_depth(self, depth: usize, done: impl Fn() + 'static) {
        let run = self
            .session
            .try_update_untracked(|s| s.expand_to_depth(depth))
            .flatten();
        self.drive(run, platform::now_ms(), Rc::new(done));
    }

    /// Opens (`deeper`) or closes one level of groups, in pieces like
    /// [`AppState::expand_to_depth`].
    pub fn step_level(self, deeper: bool) {
        let run = self
            .session
            .try_update_untracked(|s| s.step_level(deeper))
            .flatten();
        self.drive(run, platform::now_ms(), Rc::new(|| ()));
    }

    /// Lays out one piece of run `run` (about a frame's worth), then yields to the
    /// browser and goes on; the progress bar shows how far it is. The drawn picture
    /// changes only at the end, so nothing is redrawn in between.
    fn drive(self, run: Option<u64>, started: f64, done: Rc<dyn Fn()>) {
        let Some(run) = run else {
            return;
        };
        let budget = platform::work_budget_ms();
        let deadline = platform::now_ms() + budget;
        let step = self
            .session
            .try_update_untracked(|s| s.work_step(run, &mut || platform::now_ms() >= deadline))
            .unwrap_or(Step::Gone);
        match step {
            Step::More => {
                self.work.set(self.session.with_untracked(Session::work));
                platform::soon(move || self.drive(Some(run), started, done));
            }
            Step::Finished => {
                self.work.set(None);
                // Redraw with the new placement.
                self.change(|_| ());
                platform::publish_timing("expand_ms", platform::now_ms() - started);
                done();
            }
            Step::Gone => {
                if self.work.get_untracked().is_some_and(|w| w.run == run) {
                    self.work.set(None);
                }
            }
        }
    }

    /// Cancel: the graph goes back to how it was before the running expand.
    pub fn cancel_work(self) {
        self.change(Session::cancel_work);
        self.work.set(None);
    }

    pub fn reveal(self, item: ItemId) -> Option<Rect> {
        self.session.try_update(|s| s.reveal(item)).flatten()
    }

    pub fn search(self, query: &str) -> Vec<SearchHit> {
        // Search may build group contents: that changes nothing drawn, so no update.
        self.session
            .try_update_untracked(|s| s.search(query))
            .unwrap_or_default()
    }

    pub fn call_sites(self, index: usize) -> Vec<SearchHit> {
        self.session
            .try_update_untracked(|s| s.call_sites(index))
            .unwrap_or_default()
    }

    pub fn check_call_attribute(
        self,
        node: graft::ir::NodeId,
        name: &str,
        value: &str,
    ) -> Result<(), String> {
        self.session
            .with(|s| s.check_call_attribute(node, name, value).map(drop))
    }

    /// Sets one attribute of a call from the call editor and specializes it; timed as
    /// `specialize_call` is.
    pub fn set_call_attribute(self, node: graft::ir::NodeId, name: String, value: String) {
        let started = platform::now_ms();
        self.change(|s| {
            s.set_call_attribute(node, &name, &value);
        });
        platform::publish_timing("specialize_edit_ms", platform::now_ms() - started);
        platform::after_next_paint(move || {
            platform::publish_timing("specialize_ms", platform::now_ms() - started);
        });
    }

    /// Specializes the call with `attributes` (the call editor). Publishes
    /// `specialize_edit_ms` (the model edited, checked, its view built and laid out)
    /// and `specialize_ms` (from the edit to the redrawn canvas painted: the frame
    /// after the edit has run its style, layout and paint).
    pub fn specialize_call(self, node: graft::ir::NodeId, attributes: String) {
        let started = platform::now_ms();
        self.change(|s| {
            s.specialize_call(node, &attributes);
        });
        platform::publish_timing("specialize_edit_ms", platform::now_ms() - started);
        platform::after_next_paint(move || {
            platform::publish_timing("specialize_ms", platform::now_ms() - started);
        });
    }

    /// Runs a node edit; publishes `edit_ms`, from the edit to the redrawn canvas
    /// painted (apply, infer, check, view, layout, draw).
    fn node_edit(self, f: impl FnOnce(&mut Session) -> bool) {
        self.timed("edit_ms", f);
    }

    /// Runs `f` and publishes `name`: the time from here to the next frame painted.
    fn timed(self, name: &'static str, f: impl FnOnce(&mut Session) -> bool) {
        let started = platform::now_ms();
        self.change(f);
        platform::after_next_paint(move || {
            platform::publish_timing(name, platform::now_ms() - started);
        });
    }

    /// Why the last edit from `slot` of `target`'s editor was refused (tracked).
    pub fn field_error(self, target: Target, slot: Slot) -> Option<String> {
        self.session
            .with(|s| s.field_error(target, &slot).map(str::to_string))
    }

    pub fn rename_node(self, node: NodeId, to: String) {
        self.node_edit(|s| s.rename_node(node, &to));
    }

    pub fn set_attribute(self, node: NodeId, text: String) {
        self.node_edit(|s| s.set_attribute(node, &text));
    }

    pub fn remove_attribute(self, node: NodeId, name: String) {
        self.node_edit(|s| s.remove_attribute(node, &name));
    }

    pub fn connect(self, node: NodeId, index: usize, value: String) {
        self.node_edit(|s| s.connect(node, index, &value));
    }

    pub fn rename_output(self, node: NodeId, index: usize, to: String) {
        self.node_edit(|s| s.rename_output(node, index, &to));
    }

    /// Deletes the selected nodes (the Delete key, the editor's button).
    pub fn delete_selected(self, reconnect: bool) {
        let nodes = self.selected_nodes();
        if nodes.is_empty() {
            return;
        }
        self.node_edit(|s| s.delete_nodes(&nodes, reconnect));
    }

    pub fn add_after(self, node: NodeId, op: String) {
        self.node_edit(|s| s.add_after(node, &op));
    }

    pub fn rename_value(self, value: graft::ir::ValueId, to: String) {
        self.node_edit(|s| s.rename_value(value, &to));
    }

    pub fn set_value_type(self, value: graft::ir::ValueId, ty: String) {
        self.node_edit(|s| s.set_value_type(value, &ty));
    }

    pub fn remove_terminal(self, value: graft::ir::ValueId, input: bool) {
        self.node_edit(|s| {
            if input {
                s.remove_graph_input(value)
            } else {
                s.remove_graph_output(value)
            }
        });
    }

    pub fn add_graph_output(self, node: NodeId, index: usize) {
        self.node_edit(|s| s.add_graph_output(node, index));
    }

    /// Reads the picked `.npy` file and replaces the initializer's data with it.
    pub fn set_initializer(self, value: graft::ir::ValueId, picked: PickedFiles) {
        if picked.is_empty() {
            return;
        }
        spawn_local(async move {
            match picked.read().await {
                Ok(files) => {
                    if let Some(file) = files.first() {
                        let bytes = file.bytes.clone();
                        self.node_edit(|s| s.set_initializer(value, &bytes));
                    }
                }
                Err(e) => {
                    self.change(|s| s.set_error(format!("Reading the .npy file: {e}")));
                }
            }
        });
    }

    pub fn add_graph_input(self, beside: graft::ir::ValueId, name: String, ty: String) {
        self.node_edit(|s| s.add_graph_input(beside, &name, &ty));
    }

    pub fn problems(self) -> Vec<Problem> {
        self.session.with(Session::problems)
    }

    pub fn problem_item(self, index: usize) -> Option<ItemId> {
        self.session
            .try_update_untracked(|s| s.problem_item(index))
            .flatten()
    }

    /// Applies edited text (the text pane); returns the error when it is refused.
    pub fn apply_text(self, function: Option<usize>, text: String) -> Result<(), String> {
        let applied = self
            .change(|s| s.apply_text(function, &text))
            .unwrap_or(false);
        if applied {
            Ok(())
        } else {
            Err(self
                .session
                .with_untracked(|s| s.error().map(str::to_string))
                .unwrap_or_else(|| "not applied".into()))
        }
    }

    /// The view as a URL fragment: the bundled example (when one is open), the open
    /// groups, the selection and the camera (`x,y,zoom`); empty for a model opened
    /// from a file (its address would not bring it back).
    pub fn view_fragment(self, camera: (f64, f64, f64)) -> String {
        let selected = self.selection.with(|s| s.last().copied());
        let from_url = platform::query_parameter("model").is_some();
        self.session.with(|s| {
            let mut parts = Vec::new();
            match s.open().map(|o| o.origin) {
                Some(Origin::Example(file)) => parts.push(format!("example={file}")),
                // A file from this machine cannot be shared by its address.
                _ if !from_url => return String::new(),
                _ => {}
            }
            let open = s.expanded_paths();
            if !open.is_empty() {
                parts.push(format!("open={}", open.join("_")));
            }
            if let Some(path) = selected.and_then(|i| s.item_path(i)) {
                parts.push(format!("sel={path}"));
            }
            parts.push(format!(
                "cam={:.1},{:.1},{:.3}",
                camera.0, camera.1, camera.2
            ));
            parts.join("&")
        })
    }

    /// Restores the open groups and the selection a fragment names (see
    /// [`AppState::view_fragment`]); returns its camera.
    pub fn restore_fragment(self, fragment: &str) -> Option<(f64, f64, f64)> {
        let field = |key: &str| {
            fragment
                .split('&')
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        };
        let open: Vec<String> = field("open")
            .map(|o| o.split('_').map(str::to_string).collect())
            .unwrap_or_default();
        let sel = field("sel");
        let selected = self
            .change(|s| s.restore_view(&open, sel.as_deref()))
            .flatten();
        if let Some(item) = selected {
            self.select(vec![item]);
        }
        let cam = field("cam")?;
        let mut it = cam.split(',').map(|x| x.parse::<f64>().ok());
        Some((it.next()??, it.next()??, it.next()??))
    }

    /// The operator palette: name and first line of documentation.
    pub fn palette(self) -> Vec<(String, String)> {
        self.session.with_untracked(Session::palette)
    }

    pub fn expand_standard(self, node: graft::ir::NodeId) {
        self.change(|s| {
            s.expand_standard(node);
        });
    }

    pub fn use_overload(self, node: graft::ir::NodeId, overload: String) {
        self.change(|s| {
            s.use_overload(node, &overload);
        });
    }

    pub fn library_inline_all(self, index: usize) {
        self.change(|s| {
            s.library_inline_all(index);
        });
    }

    pub fn library_specialize_all(self, index: usize) {
        self.change(|s| {
            s.library_specialize_all(index);
        });
    }

    pub fn library_kept(self, index: usize) -> bool {
        self.session.with(|s| s.library_kept(index))
    }

    pub fn library_keep(self, index: usize, keep: bool) {
        self.session.update(|s| s.library_keep(index, keep));
    }

    pub fn library_delete(self, index: usize) {
        self.change(|s| {
            s.library_delete(index);
        });
    }

    pub fn library_rename(self, index: usize, to: String) {
        self.change(|s| {
            s.library_rename(index, &to);
        });
    }

    pub fn function_library(self) -> Vec<FunctionInfo> {
        self.session.with(Session::function_library)
    }

    pub fn graph_svg(self, view: Rect, detail: Detail, selected: &[ItemId]) -> String {
        self.session.with(|s| s.graph_svg(view, detail, selected))
    }

    pub fn graph_overview(self) -> Option<(String, usize)> {
        self.session.with(Session::graph_overview)
    }

    pub fn graph_size(self) -> Option<(f32, f32)> {
        self.session.with(Session::graph_size)
    }

    pub fn properties(self, item: ItemId) -> Option<Properties> {
        self.session.with(|s| s.properties(item))
    }

    pub fn export_png(self) {
        let Some((name, text)) = self.session.with_untracked(Session::graph_document) else {
            return;
        };
        let (w, h) = self.graph_size().unwrap_or((1.0, 1.0));
        let name = name.trim_end_matches(".svg").to_string() + ".png";
        // The document has a 16 px margin on each side (svg::document).
        let result = platform::download_png(&name, &text, f64::from(w) + 32.0, f64::from(h) + 32.0);
        if let Err(e) = result {
            self.change(|s| s.set_error(format!("Export of {name} failed: {e}")));
        }
    }

    pub fn export_svg(self) {
        let Some((name, text)) = self.session.with_untracked(Session::graph_document) else {
            return;
        };
        if let Err(e) = platform::download_text(&name, &text, "image/svg+xml") {
            self.change(|s| s.set_error(format!("Export of {name} failed: {e}")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn example_file(name: &str) -> LoadedFile {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/examples/").to_string() + name;
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        LoadedFile {
            name: name.to_string(),
            bytes: bytes.into(),
        }
    }

    fn junk(name: &str) -> LoadedFile {
        LoadedFile {
            name: name.to_string(),
            bytes: bytes::Bytes::from_static(&[0xff; 64]),
        }
    }

    pub(super) fn open(session: &mut Session, files: Vec<LoadedFile>) {
        let ticket = session.begin("test");
        session.finish(ticket, Ok(files), Origin::Files);
    }

    /// A model file made from ONNX text.
    fn text_file(name: &str, text: &str) -> LoadedFile {
        let model = graft::text::parse_model(text).expect("parses").model;
        let bytes = graft::export(&model, &graft::ExportOptions::default()).expect("exports");
        LoadedFile {
            name: name.to_string(),
            bytes: bytes.into(),
        }
    }

    #[test]
    fn properties_show_inferred_types_and_mark_unknown_ones() {
        let mut session = Session::default();
        let text = r#"<ir_version: 10, opset_import: ["": 18, "custom": 1]>
main (float[2,3] x) => (y) {
  t = Relu(x)
  u = custom.Thing(t)
  y = Relu(u)
}
"#;
        open(&mut session, vec![text_file("typed.onnx", text)]);
        let scene = session
            .open()
            .and_then(|o| o.scene.as_ref())
            .expect("scene");
        let node_item = |op: &str, k: usize| {
            let model = &session.open().expect("open").model;
            let items: Vec<ItemId> = (0..scene.view.items.len() as ItemId)
                .filter(|&i| {
                    matches!(scene.view.item(i).map(|it| &it.kind),
                        Some(ItemKind::Node { node, .. }) if model.node(*node).op_type() == op)
                })
                .collect();
            items[k]
        };
        // t is inferred from Relu; u comes out of an op nothing knows.
        let relu = session
            .properties(node_item("Relu", 0))
            .expect("properties");
        assert_eq!(relu.outputs, ["t: float[2,3]"]);
        let thing = session
            .properties(node_item("Thing", 0))
            .expect("properties");
        assert_eq!(thing.inputs, ["t: float[2,3]"]);
        assert_eq!(thing.outputs, ["u (type unknown)"]);
    }

    #[test]
    fn a_call_the_rules_reject_shows_its_problem() {
        let mut session = Session::default();
        let text = r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[4] x) => (float[4] y) {
  [bad] y = local.F <alpha = 0.5, beta = 1.0> (x)
}
<domain: "local", opset_import: ["": 18]>
F <alpha> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}
"#;
        open(&mut session, vec![text_file("bad-call.onnx", text)]);
        let scene = session
            .open()
            .and_then(|o| o.scene.as_ref())
            .expect("scene");
        let call = (0..scene.view.items.len() as ItemId)
            .find(|&i| {
                matches!(
                    scene.view.item(i).map(|it| &it.kind),
                    Some(ItemKind::Node {
                        callee: Some(_),
                        ..
                    })
                )
            })
            .expect("the call is drawn");
        session.toggle(call);
        let props = session.properties(call).expect("properties");
        let problem = props.problem.unwrap_or_default();
        assert!(
            problem.contains("check.call-undeclared-attribute") && problem.contains("\"beta\""),
            "{problem}"
        );
    }

    #[test]
    fn importer_warnings_stay_in_the_problems_until_fixed() {
        let mut session = Session::default();
        let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) <float[4] ghost> {
  a = Relu(x)
  y = Neg(a)
}"#;
        open(&mut session, vec![text_file("stray.onnx", text)]);
        let stray = |s: &Session| {
            s.problems()
                .iter()
                .filter(|p| p.code == "import.stray-value-info")
                .count()
        };
        assert_eq!(stray(&session), 1);
        let model = &session.open().unwrap().model;
        let a = model.values.iter().find(|(_, v)| v.name == "a").unwrap().0;
        assert!(session.rename_value(a, "act"));
        assert_eq!(stray(&session), 1, "an unrelated edit keeps it");
        assert!(session.undo());
        assert_eq!(stray(&session), 1);
        // The model as text without the entry: fixed, and gone from the list.
        let fixed = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) {
  a = Relu(x)
  y = Neg(a)
}"#;
        assert!(session.apply_text(None, fixed));
        assert_eq!(stray(&session), 0);
    }

    #[test]
    fn a_bad_file_keeps_the_open_model_and_says_why() {
        let mut session = Session::default();
        open(&mut session, vec![example_file("mlp.onnx")]);
        assert_eq!(session.open().map(|o| o.name.as_str()), Some("mlp.onnx"));
        assert_eq!(session.error(), None);

        open(&mut session, vec![junk("random.bin")]);
        assert_eq!(session.open().map(|o| o.name.as_str()), Some("mlp.onnx"));
        let error = session.error().unwrap_or_default();
        assert!(error.starts_with("random.bin: "), "{error}");

        open(
            &mut session,
            vec![example_file("functions_and_control_flow.onnx")],
        );
        assert_eq!(session.error(), None, "a model that opens clears the error");
    }

    #[test]
    fn expand_all_goes_in_pieces_and_cancel_puts_the_graph_back() {
        let mut session = Session::default();
        open(&mut session, vec![example_file("transformer_24.onnx")]);
        let placed = |s: &Session| {
            let scene = s.open().and_then(|o| o.scene.as_ref()).expect("scene");
            scene
                .placed
                .iter()
                .map(|p| (p.item, p.rect.x, p.rect.y))
                .collect::<Vec<_>>()
        };
        let before = placed(&session);

        let run = session.expand_to_depth(usize::MAX).expect("a run starts");
        assert_eq!(session.step_level(true), None, "one run at a time");
        assert!(!session.toggle(0), "no toggling while a run lays out");
        assert_eq!(session.work_step(run, &mut || true), Step::More);
        assert_eq!(session.work_step(run, &mut || true), Step::More);
        let status = session.work().expect("running");
        assert_eq!(status.done, 2, "{status:?}");
        assert!(status.total > 10, "{status:?}");
        assert_eq!(
            placed(&session),
            before,
            "the old picture stays until the end"
        );
        session.cancel_work();
        assert_eq!(session.work(), None);
        assert_eq!(placed(&session), before, "cancel puts the graph back");
        assert_eq!(
            session.work_step(run, &mut || true),
            Step::Gone,
            "a stale piece does nothing"
        );

        let run = session.expand_to_depth(usize::MAX).expect("a new run");
        let mut pieces = 0;
        while session.work_step(run, &mut || true) == Step::More {
            pieces += 1;
        }
        assert!(pieces > 10);
        assert!(placed(&session).len() > before.len(), "everything expanded");
        let run = session.expand_to_depth(0).expect("collapse all");
        assert_eq!(
            session.work_step(run, &mut || true),
            Step::Finished,
            "cached: one piece"
        );
        assert_eq!(placed(&session).len(), before.len());
    }

    #[test]
    fn library_actions_are_undoable_edits_and_refusals_change_nothing() {
        let mut session = Session::default();
        open(
            &mut session,
            vec![example_file("functions_and_control_flow.onnx")],
        );
        let text = |s: &Session| graft::text::print_model(&s.open().unwrap().model);
        let keys = |s: &Session| -> Vec<String> {
            s.function_library()
                .iter()
                .map(|f| format!("{}.{}", f.domain, f.name))
                .collect()
        };
        let before = text(&session);
        let original_keys = keys(&session);
        assert_eq!(original_keys.len(), 1);

        assert!(
            !session.library_delete(0),
            "a called function is not deleted"
        );
        assert!(session.error().unwrap_or_default().contains("still called"));
        assert_eq!(text(&session), before);
        assert!(!session.can_undo());

        assert!(session.library_rename(0, "renamed.Block"));
        assert_eq!(keys(&session), ["renamed.Block"]);
        assert!(session.undo());
        assert_eq!(text(&session), before);

        assert!(session.library_inline_all(0));
        assert!(
            keys(&session).is_empty(),
            "inlined everywhere, then removed"
        );
        let errors = session
            .open()
            .unwrap()
            .summary
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        assert_eq!(errors, 0);
        assert!(session.undo());
        assert_eq!(keys(&session), original_keys);
    }

    #[test]
    fn a_call_is_specialized_from_its_attribute_editor_and_undone() {
        let mut session = Session::default();
        open(
            &mut session,
            vec![example_file("functions_and_control_flow.onnx")],
        );
        let find = |s: &Session| {
            let m = &s.open().unwrap().model;
            graft::specialize::find_node(m, "act1").expect("the call act1")
        };
        let node = find(&session);
        let editor = call_editor(&session.open().unwrap().model, node).expect("a call");
        assert_eq!(editor.function, "graft.examples.ScaledTanh");
        assert_eq!(editor.overload, "");
        assert_eq!(
            editor.attributes,
            [(
                "alpha".to_string(),
                Some("1.0".to_string()),
                Some("0.5".to_string())
            )]
        );
        let before = graft::text::print_model(&session.open().unwrap().model);

        assert!(
            !session.specialize_call(node, "alpha = "),
            "a bad value is refused"
        );
        assert!(session.error().is_some());
        assert!(session.specialize_call(node, "alpha = 0.2"));
        let model = &session.open().unwrap().model;
        let node = find(&session);
        assert_eq!(model.node(node).overload(), "alpha_0p2");
        let editor = call_editor(model, node).expect("still a call of the generic");
        assert_eq!(editor.overload, "alpha_0p2");
        assert_eq!(
            editor.overloads,
            ["", "alpha_0p2"],
            "the generic stays: act2 calls it"
        );
        // The other call takes the same overload from the list, then undo.
        let other = graft::specialize::find_node(model, "act2").expect("act2");
        assert!(session.use_overload(other, "alpha_0p2"));
        let model = &session.open().unwrap().model;
        assert_eq!(model.node(other).overload(), "alpha_0p2");
        let errors = graft::check::check(model)
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        assert_eq!(errors, 0);
        assert!(session.undo(), "undo the overload choice");
        assert!(session.undo(), "undo the specialization");
        assert_eq!(
            graft::text::print_model(&session.open().unwrap().model),
            before
        );
    }

    /// The first built item showing the node named `name`.
    fn item_of(session: &Session, name: &str) -> ItemId {
        let open = session.open().expect("a model");
        let view = &open.scene.as_ref().expect("a scene").view;
        let found = view.items.iter().position(|i| {
            matches!(i.kind, ItemKind::Node { node, .. } if open.model.node(node).name() == name)
        });
        ItemId::try_from(found.unwrap_or_else(|| panic!("no item for {name}"))).unwrap()
    }

    fn serial(session: &Session) -> u64 {
        session.open().map_or(0, |o| o.serial)
    }

    #[test]
    fn outline_makes_the_selection_a_function_and_selects_its_call() {
        let mut session = Session::default();
        open(
            &mut session,
            vec![example_file("functions_and_control_flow.onnx")],
        );
        let text = |s: &Session| graft::text::print_model(&s.open().unwrap().model);
        let before = text(&session);
        let from = serial(&session);
        let items = [
            item_of(&session, "fc2/MatMul"),
            item_of(&session, "fc2/Add"),
        ];
        assert_eq!(session.selected_nodes(&items).len(), 2);

        // Names are checked as typed; a bad one is refused and changes nothing.
        assert_eq!(session.new_function_problem("my.Fc2"), None);
        for bad in [
            "Fc2",
            "my.2x",
            ".Fc2",
            "ai.onnx.Fc2",
            "my..x.Fc2",
            "graft.examples.ScaledTanh",
        ] {
            assert!(session.new_function_problem(bad).is_some(), "{bad}");
        }
        assert!(!session.outline(&items, "Fc2"));
        assert!(session.error().unwrap_or_default().contains("DOMAIN.NAME"));
        assert_eq!(text(&session), before);
        assert!(!session.can_undo());

        assert!(session.outline(&items, "my.Fc2"));
        let keys: Vec<String> = session
            .function_library()
            .iter()
            .map(|f| format!("{}.{}", f.domain, f.name))
            .collect();
        assert!(keys.contains(&"my.Fc2".to_string()), "{keys:?}");
        let model = &session.open().unwrap().model;
        let errors = graft::check::check(model)
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        assert_eq!(errors, 0);
        // The selection becomes the new call, a collapsed group.
        let (now, carried) = session.carry(from, &items);
        assert_eq!(now, serial(&session));
        assert_eq!(carried.len(), 1);
        let scene = session.open().unwrap().scene.as_ref().unwrap();
        let call = scene.view.item(carried[0]).expect("the call's item");
        assert!(call.is_group && !call.expanded);
        assert!(matches!(
            call.kind,
            ItemKind::Node {
                callee: Some(_),
                ..
            }
        ));
        assert!(session.toggle(carried[0]), "the call expands");

        assert!(session.undo());
        assert_eq!(text(&session), before);
    }

    #[test]
    fn edits_undo_redo_and_the_log_replays_to_the_same_model() {
        let text = |s: &Session| graft::text::print_model(&s.open().unwrap().model);
        let mut session = Session::default();
        let file = example_file("functions_and_control_flow.onnx");
        let original = graft::import(file.bytes.clone()).unwrap().model;
        open(&mut session, vec![file]);
        assert!(!session.can_redo());
        assert!(session.library_rename(0, "my.Block"));
        assert!(session.library_specialize_all(0));
        let after = text(&session);
        assert!(session.undo());
        assert!(session.can_redo());
        assert_eq!(session.history().0.len(), 1);
        assert_eq!(session.history().1.len(), 1);
        assert!(session.redo());
        assert_eq!(text(&session), after);
        assert!(!session.redo(), "nothing left to redo");
        // A new edit after an undo drops the undone one.
        assert!(session.undo());
        assert!(session.library_inline_all(0));
        assert!(!session.can_redo());
        let (done, undone) = session.history();
        assert_eq!(done.len(), 2, "{done:?}");
        assert!(undone.is_empty());
        let mut replayed = original;
        graft::edit::replay(&mut replayed, &session.edit_log()).unwrap();
        assert_eq!(graft::text::print_model(&replayed), text(&session));
    }

    #[test]
    fn node_edits_work_in_the_main_graph_a_function_body_and_a_subgraph() {
        let text = |s: &Session| graft::text::print_model(&s.open().unwrap().model);
        let mut session = Session::default();
        open(
            &mut session,
            vec![example_file("functions_and_control_flow.onnx")],
        );
        let before = text(&session);
        let model = &session.open().unwrap().model;
        let owner_kind = |n: NodeId| match model.graph(model.node(n).graph).owner {
            graft::ir::GraphOwner::Model => 0,
            graft::ir::GraphOwner::Function(_) => 1,
            graft::ir::GraphOwner::Node(_) => 2,
            graft::ir::GraphOwner::Training(_) => 3,
        };
        let pick = |kind: usize| {
            model
                .graphs
                .iter()
                .flat_map(|(_, g)| g.nodes.iter().copied())
                .find(|&n| owner_kind(n) == kind && !model.node(n).outputs.is_empty())
                .unwrap_or_else(|| panic!("no node of kind {kind}"))
        };
        let nodes = [pick(0), pick(1), pick(2)];
        for (k, node) in nodes.into_iter().enumerate() {
            assert!(
                session.rename_node(node, &format!("renamed{k}")),
                "{:?}",
                session.error()
            );
            // An attribute the op does not have would make the model invalid.
            let count = session.history().0.len();
            assert!(!session.set_attribute(node, "note = 1"));
            // Shown beside the field it came from, not in the banner.
            let error = session
                .field_error(Target::Node(node), &Slot::Attribute)
                .unwrap_or_default();
            assert!(error.contains("check.attribute-unknown"), "{error}");
            assert!(session.error().is_none());
            assert!(
                session
                    .field_error(Target::Node(node), &Slot::Name)
                    .is_none()
            );
            assert_eq!(session.history().0.len(), count);
            assert!(
                session.rename_output(node, 0, &format!("value{k}")),
                "{:?}",
                session.error()
            );
            assert!(text(&session).contains(&format!("value{k}")));
        }
        // Refused: a name already used; nothing changes, nothing is recorded.
        let count = session.history().0.len();
        let edited = text(&session);
        // value2 is in a subgraph of the main graph: the same scope tree.
        assert!(!session.rename_output(nodes[0], 0, "value2"));
        let error = session.field_error(Target::Node(nodes[0]), &Slot::Output(0));
        assert!(error.unwrap_or_default().contains("already used"));
        assert_eq!(text(&session), edited);
        assert_eq!(session.history().0.len(), count);
        // Add after, delete with reconnect, in the main graph; undo everything.
        assert!(session.add_after(nodes[0], "Sigmoid"));
        let added = session
            .open()
            .unwrap()
            .model
            .nodes
            .iter()
            .last()
            .map(|(id, _)| id)
            .unwrap();
        assert!(session.delete_nodes(&[added], true));
        while session.undo() {}
        assert_eq!(text(&session), before);
        assert!(!session.palette().is_empty());
    }

    #[test]
    fn graph_inputs_and_outputs_are_edited_and_undone() {
        let text = |s: &Session| graft::text::print_model(&s.open().unwrap().model);
        let mut session = Session::default();
        open(&mut session, vec![example_file("mlp.onnx")]);
        let before = text(&session);
        let model = &session.open().unwrap().model;
        let main = model.graph.unwrap();
        let x = model.graph(main).inputs[0].value.unwrap();
        let relu = model
            .nodes
            .iter()
            .find(|(_, n)| n.op_type() == "Relu")
            .map(|(id, _)| id)
            .unwrap();
        assert!(session.rename_value(x, "features"));
        assert!(text(&session).contains("float[batch,4] features"));
        assert!(text(&session).contains("Gemm(features,"));
        assert!(session.set_value_type(x, "float[N, 4]"));
        assert!(text(&session).contains("float[N,4] features"));
        assert!(
            !session.set_value_type(x, "float["),
            "a type that does not parse"
        );
        assert!(session.add_graph_input(x, "extra", "float[3]"));
        let extra = session.open().unwrap().model.graph(main).inputs[1]
            .value
            .unwrap();
        assert!(session.remove_graph_input(extra));
        assert!(!session.remove_graph_input(x), "x is read");
        assert!(session.add_graph_output(relu, 0));
        let outputs = session.open().unwrap().model.graph(main).outputs.len();
        assert_eq!(outputs, 2);
        let added = session.open().unwrap().model.graph(main).outputs[1]
            .value
            .unwrap();
        assert!(session.remove_graph_output(added));
        while session.undo() {}
        assert_eq!(text(&session), before);
    }

    #[test]
    fn outline_across_two_graphs_is_refused_and_changes_nothing() {
        let mut session = Session::default();
        open(
            &mut session,
            vec![example_file("functions_and_control_flow.onnx")],
        );
        assert!(session.toggle(item_of(&session, "act1")));
        let before = graft::text::print_model(&session.open().unwrap().model);
        // One node of the main graph, one of the function body the call shows.
        let items = [item_of(&session, "fc1/Add"), item_of(&session, "scale")];
        assert!(!session.outline(&items, "my.Mixed"));
        let error = session.error().unwrap_or_default();
        assert!(error.contains("not all in one graph"), "{error}");
        assert_eq!(
            graft::text::print_model(&session.open().unwrap().model),
            before
        );
        assert!(!session.can_undo());
    }

    #[test]
    fn an_edit_keeps_open_groups_open_and_the_selection_on_its_items() {
        let mut session = Session::default();
        open(
            &mut session,
            vec![example_file("functions_and_control_flow.onnx")],
        );
        let call = item_of(&session, "act1");
        assert!(session.toggle(call));
        let from = serial(&session);
        let node = graft::specialize::find_node(&session.open().unwrap().model, "act1").unwrap();
        assert!(session.specialize_call(node, "alpha = 0.3"));
        let (_, carried) = session.carry(from, &[call]);
        assert_eq!(carried.len(), 1, "the call is still selected");
        let open_now = session.open().unwrap();
        let scene = open_now.scene.as_ref().unwrap();
        let item = scene.view.item(carried[0]).unwrap();
        assert!(item.expanded, "the call stays open");
        assert_eq!(item.badge.as_deref(), Some("graft.examples:alpha_0p3"));
        assert!(
            scene.placed.iter().any(|p| {
                scene
                    .view
                    .item(p.item)
                    .is_some_and(|i| i.parent == Some(carried[0]))
            }),
            "its specialized body is placed"
        );
        // Undo: the call, open, with the generic body again.
        let from = serial(&session);
        assert!(session.undo());
        let (_, carried) = session.carry(from, &carried);
        assert_eq!(carried, [call]);
        let scene = session.open().unwrap().scene.as_ref().unwrap();
        assert!(scene.view.item(call).unwrap().expanded);
        // A model opened from scratch: nothing carries over.
        let from = serial(&session);
        open(&mut session, vec![example_file("mlp.onnx")]);
        assert!(session.carry(from, &[call]).1.is_empty());
    }

    #[test]
    fn the_big_example_call_is_edited_again_and_again_and_stays_open() {
        let mut session = Session::default();
        open(&mut session, vec![example_file("live_specialization.onnx")]);
        let mut selected = vec![item_of(&session, "tower")];
        assert!(session.toggle(selected[0]));
        let node = graft::specialize::find_node(&session.open().unwrap().model, "tower").unwrap();
        for (k, mode) in ["0", "1", "0", "1"].into_iter().enumerate() {
            let from = serial(&session);
            assert!(
                session.specialize_call(node, &format!("mode = {mode}")),
                "{:?}",
                session.error()
            );
            selected = session.carry(from, &selected).1;
            assert_eq!(selected.len(), 1, "edit {k}: the call stays selected");
            let open = session.open().unwrap();
            let scene = open.scene.as_ref().unwrap();
            let call = scene.view.item(selected[0]).unwrap();
            assert!(call.expanded, "edit {k}: the call stays open");
            let drawn = scene
                .placed
                .iter()
                .filter(|p| {
                    scene
                        .view
                        .item(p.item)
                        .is_some_and(|i| i.parent == Some(selected[0]))
                })
                .count();
            // 205 nodes and the X, Y terminals: every If folded into one branch.
            assert_eq!(drawn, 207, "edit {k}");
            let editor =
                call_editor(&open.model, node).expect("the generic stays: tower_default calls it");
            assert_eq!(
                editor.overloads.len(),
                2,
                "edit {k}: {:?}",
                editor.overloads
            );
        }
    }

    #[test]
    fn only_the_latest_load_lands() {
        let mut session = Session::default();
        let first = session.begin("first");
        let second = session.begin("second");
        session.finish(second, Ok(vec![example_file("mlp.onnx")]), Origin::Files);
        session.finish(
            first,
            Ok(vec![example_file("functions_and_control_flow.onnx")]),
            Origin::Files,
        );
        assert_eq!(session.open().map(|o| o.name.as_str()), Some("mlp.onnx"));
        assert_eq!(session.pending(), None);
    }

    #[test]
    fn the_onnx_file_is_the_model_and_strays_are_reported() {
        let mut session = Session::default();
        open(
            &mut session,
            vec![junk("weights.bin"), example_file("mlp.onnx")],
        );
        let open_model = session.open().expect("the .onnx file opens");
        assert_eq!(open_model.name, "mlp.onnx");
        assert!(
            open_model
                .summary
                .diagnostics
                .iter()
                .any(|d| d.code == "app.unused-file" && d.message.contains("weights.bin")),
            "{:?}",
            open_model.summary.diagnostics
        );
    }

    #[test]
    fn export_reencodes_under_the_original_name() {
        let mut session = Session::default();
        assert!(session.export().is_err(), "nothing to export yet");
        let input = example_file("functions_and_control_flow.onnx");
        open(&mut session, vec![input.clone()]);
        let (name, bytes) = session.export().expect("export");
        assert_eq!(name, "functions_and_control_flow.onnx");
        let again = graft::import(bytes.into()).expect("the export imports");
        let original = graft::import(input.bytes).expect("the input imports");
        assert_eq!(
            Summary::of(&again.model, &again.diagnostics),
            Summary::of(&original.model, &original.diagnostics)
        );
    }
}
