//! The reactive handle the components share: `AppState` talks to the engine (the
//! session in a Web Worker, `engine.rs`) in messages. Each action is a request; the
//! engine's updates land in signals, one per part (the document, the messages, the
//! selection, the drawing…), so a component re-renders only when its part changed.
//! What asks for an answer (search, the text, a check as the user types) takes a
//! callback. Timings that end at a paint (`edit_ms`…) are measured here, from the
//! request to the frame painted after the update that finished it. The requests are
//! grouped by what they serve: `handle/canvas.rs`, `edits.rs`, `compare.rs`, `run.rs`.

use std::cell::RefCell;
use std::collections::HashMap;

use super::protocol::{
    self, Answer, Document, Draft, Envelope, Messages, Request, SceneInfo, Viewport,
};
use super::*;

mod canvas;
mod compare;
mod edits;
mod run;

/// What waits for a request to end: a callback with its answer, and a timing.
#[derive(Default)]
struct Waiting {
    answers: HashMap<u64, Box<dyn FnOnce(Answer)>>,
    /// The timing's name and when the request was sent.
    timings: HashMap<u64, (&'static str, f64)>,
    /// Run when the request's work ends (an expand's fit).
    done: HashMap<u64, Box<dyn FnOnce()>>,
    /// Timings that end at the paint of the next drawing (an expand's, drawn after
    /// its fit).
    next_drawing: Vec<(&'static str, f64)>,
}

/// The page's end of the engine: the worker, the next sequence number, and what
/// waits for an answer.
struct Link {
    worker: Option<platform::EngineWorker>,
    seq: u64,
    /// The last `Select` sent: the engine's selection is taken only from updates
    /// that handled it.
    selected_at: u64,
    /// The last Cancel of an open: the banner goes at once, and an update sent before
    /// the engine took the Cancel does not bring it back.
    cancelled_at: u64,
    waiting: Waiting,
    /// Which engine is running (one more for each restart).
    generation: u64,
    /// When the running engine was started after a stop (`platform::now_ms`).
    started_at: f64,
    /// The last open sent, and the open that the open model came from (with its
    /// files), and its edit log: what a restarted engine is given.
    sent_open: Option<(Request, Option<PickedFiles>)>,
    kept_open: Option<(Request, Option<PickedFiles>)>,
    /// Each edit's JSON.
    kept_log: Vec<String>,
    /// How many models the engine had opened when `kept_open` was taken.
    kept_opened: u64,
}

/// An engine that stops this soon after a restart is not started again.
const RESTART_AFTER_MS: f64 = 5000.0;

thread_local! {
    static LINK: RefCell<Link> = RefCell::new(Link {
        worker: None,
        seq: 0,
        selected_at: 0,
        cancelled_at: 0,
        waiting: Waiting::default(),
        generation: 0,
        started_at: f64::NEG_INFINITY,
        sent_open: None,
        kept_open: None,
        kept_log: Vec::new(),
        kept_opened: 0,
    });
}

/// Where the page remembers the sizes given to symbolic dimensions.
const RUN_SIZES_KEY: &str = "graft.runSizes";

/// The sizes of symbolic dimensions given on earlier visits, by symbol.
fn remembered_sizes() -> std::collections::BTreeMap<String, i64> {
    platform::remembered(RUN_SIZES_KEY)
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

/// The reactive session the components share (through context).
#[derive(Clone, Copy)]
pub struct AppState {
    document: RwSignal<Document>,
    pub summary: Memo<Option<Arc<Summary>>>,
    /// The open model's file name.
    pub name: Memo<Option<String>>,
    /// The bundled example that is open, if the open model is one.
    pub example: Memo<Option<&'static str>>,
    messages: RwSignal<Messages>,
    pub error: Memo<Option<String>>,
    pub pending: Memo<Option<String>>,
    /// The open model's functions, as `domain.name:overload`, in file order.
    pub functions: Memo<Vec<String>>,
    /// A layout being done in pieces (expand all…), for the progress bar.
    pub work: RwSignal<Option<WorkStatus>>,
    draft: RwSignal<Option<Draft>>,
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
    /// How many of the selected items are nodes.
    selected_nodes: RwSignal<usize>,
    properties: RwSignal<Option<Properties>>,
    palette: RwSignal<Vec<(String, String)>>,
    compare: RwSignal<Option<CompareView>>,
    side: RwSignal<bool>,
    scene: RwSignal<SceneInfo>,
    /// The drawing of the part on screen, and of the other model beside it.
    svg: RwSignal<String>,
    other_svg: RwSignal<String>,
    /// Which model (`opened`) the drawing is of.
    pub drawn: RwSignal<u64>,
    /// The Run tab's contents.
    pub run: RwSignal<Option<RunView>>,
    /// Presentation mode: the panels hidden, text larger.
    pub presenting: RwSignal<bool>,
    /// The view the page's URL fragment named when it loaded, until it is restored
    /// on the first model drawn.
    pub initial_view: StoredValue<Option<String>>,
    /// An item another tab links to: the Graph tab shows, selects it and centres on it.
    pub goto: RwSignal<Option<ItemId>>,
}

impl AppState {
    /// The handle, and the engine started in its worker.
    pub fn new() -> Self {
        let document = RwSignal::new(Document::default());
        let messages = RwSignal::new(Messages::default());
        let draft = RwSignal::new(None::<Draft>);
        let state = Self {
            document,
            summary: Memo::new(move |_| document.with(|d| d.summary.clone().map(Arc::new))),
            name: Memo::new(move |_| document.with(|d| d.name.clone())),
            example: Memo::new(move |_| {
                document.with(|d| d.example.as_deref().and_then(example).map(|e| e.file))
            }),
            messages,
            error: Memo::new(move |_| messages.with(|m| m.error.clone())),
            pending: Memo::new(move |_| messages.with(|m| m.pending.clone())),
            functions: Memo::new(move |_| document.with(|d| d.functions.clone())),
            work: RwSignal::new(None),
            draft,
            inline: Memo::new(move |_| draft.with(|d| d.as_ref().map(|d| d.view.clone()))),
            can_undo: Memo::new(move |_| document.with(|d| d.can_undo)),
            can_redo: Memo::new(move |_| document.with(|d| d.can_redo)),
            history: Memo::new(move |_| document.with(|d| d.history.clone())),
            opened: Memo::new(move |_| document.with(|d| d.opened)),
            selection: RwSignal::new(Vec::new()),
            selected_nodes: RwSignal::new(0),
            properties: RwSignal::new(None),
            palette: RwSignal::new(Vec::new()),
            compare: RwSignal::new(None),
            side: RwSignal::new(false),
            scene: RwSignal::new(SceneInfo::default()),
            svg: RwSignal::new(String::new()),
            other_svg: RwSignal::new(String::new()),
            drawn: RwSignal::new(0),
            run: RwSignal::new(None),
            presenting: RwSignal::new(false),
            initial_view: StoredValue::new(None),
            goto: RwSignal::new(None),
        };
        // A panic of the page's own code goes on; the banner names it and its place.
        platform::on_page_panic(move |text| {
            messages.set(Messages {
                error: Some(format!("Something went wrong on the page ({text}).")),
                ..Messages::default()
            });
        });
        if platform::query_parameter("faults").is_some() {
            platform::expose("__graftEngineFault", move || {
                state.send(Request::Fault);
            });
        }
        if let Err(message) = state.start_engine() {
            messages.set(Messages {
                error: Some(message),
                ..Messages::default()
            });
        }
        state
    }

    /// Starts an engine in its worker, and gives it the sizes of symbolic dimensions
    /// given on earlier visits.
    fn start_engine(self) -> Result<(), String> {
        let generation = LINK.with(|l| {
            let mut l = l.borrow_mut();
            l.generation += 1;
            l.generation
        });
        let worker = platform::EngineWorker::start(
            move |message| self.receive(message),
            move |message| self.engine_stopped(generation, message),
        )?;
        LINK.with(|l| l.borrow_mut().worker = Some(worker));
        for (symbol, size) in remembered_sizes() {
            self.send(Request::SetRunSize(symbol, size));
        }
        Ok(())
    }

    /// The engine of `generation` stopped (a panic, or a trap in its code): a new
    /// one is started and given the kept session: the open model is opened again
    /// from where it came from and its edit log applied, so no edit is lost (the
    /// undone edits, the open groups and the selection are). An engine that stops
    /// again within a few seconds of its start is not restarted. A late word of an
    /// engine already replaced (its panic's message) only adds to the banner.
    fn engine_stopped(self, generation: u64, message: String) {
        let (current, started_at) = LINK.with(|l| {
            let l = l.borrow();
            (l.generation, l.started_at)
        });
        let say = |text: String| {
            self.messages.set(Messages {
                error: Some(text),
                ..Messages::default()
            });
        };
        if generation != current {
            let said = self.messages.with_untracked(|m| m.error.clone());
            if let Some(said) = said.filter(|s| !s.contains(&message)) {
                say(format!("{said} ({message})"));
            }
            return;
        }
        let (kept, log) = LINK.with(|l| {
            let mut l = l.borrow_mut();
            if let Some(worker) = l.worker.take() {
                worker.terminate();
            }
            l.waiting = Waiting::default();
            // The new engine's updates describe its own log from the start, and its
            // first open is taken as a new one (the session kept goes on).
            l.kept_opened = 0;
            (l.kept_open.clone(), std::mem::take(&mut l.kept_log))
        });
        let again_soon = platform::now_ms() - started_at < RESTART_AFTER_MS;
        super::keep::engine_stopped(kept.is_some() && !again_soon);
        let Some((open, files)) = kept.filter(|_| !again_soon) else {
            say(format!(
                "The engine stopped ({message}). Reload the page to go on; the open model is lost."
            ));
            return;
        };
        LINK.with(|l| l.borrow_mut().started_at = platform::now_ms());
        // The new engine counts model states afresh: what the page holds of the old
        // one's (ids, items) must not pass for the new one's.
        self.document.update(|d| d.serial = 0);
        if let Err(e) = self.start_engine() {
            say(format!(
                "The engine stopped ({message}) and could not start again: {e}"
            ));
            return;
        }
        self.send_with(open, files);
        let edits = log.len();
        let note = format!(
            "The engine stopped ({message}) and was started again: the model is open again \
             with its {edits} edit(s). Undone edits and the open groups were not kept."
        );
        say(note.clone());
        self.send(Request::Restore {
            log: format!("[{}]", log.join(",")),
            note,
        });
    }

    /// The open that brought the open model (with its files) and its edit log, each
    /// edit's JSON: what a session keeps.
    pub(super) fn kept(self) -> Option<(Request, Option<PickedFiles>, Vec<String>)> {
        LINK.with(|l| {
            let l = l.borrow();
            let (open, files) = l.kept_open.clone()?;
            Some((open, files, l.kept_log.clone()))
        })
    }

    /// Opens `open` (with `files`) and applies `log` (each edit's JSON) once it is in.
    pub(super) fn open_with_log(self, open: Request, files: Option<PickedFiles>, log: &[String]) {
        self.send_with(open, files);
        self.send(Request::Restore {
            log: format!("[{}]", log.join(",")),
            note: String::new(),
        });
    }

    /// Applies an edit log (JSON) to the open model, all of it or none; `then` hears
    /// how many edits, or why not (and which edit, from 0).
    pub fn apply_log(
        self,
        log: String,
        then: impl FnOnce(Result<usize, (Option<usize>, String)>) + 'static,
    ) {
        self.ask(Request::ApplyLog(log), move |answer| {
            if let Answer::Logged(result) = answer {
                then(result);
            }
        });
    }

    /// `then` hears the open model's bytes, as Export saves them, or why not.
    pub fn model_bytes(self, then: impl FnOnce(Result<Vec<u8>, String>) + 'static) {
        self.ask(Request::ModelBytes, move |answer| {
            if let Answer::Model { error, bytes } = answer {
                then(error.map_or(Ok(bytes), Err));
            }
        });
    }

    /// Sends `request` (with `files`); its sequence number.
    fn send_with(self, request: Request, files: Option<PickedFiles>) -> u64 {
        LINK.with(|l| {
            let mut l = l.borrow_mut();
            l.seq += 1;
            let envelope = Envelope {
                seq: l.seq,
                budget: platform::work_budget_ms(),
                serial: self.document.with_untracked(|d| d.serial),
                request,
            };
            if matches!(
                envelope.request,
                Request::Select(_) | Request::ShiftSelect(_) | Request::SelectFromOther(_)
            ) {
                l.selected_at = l.seq;
            }
            if matches!(
                envelope.request,
                Request::OpenExample { .. } | Request::OpenUrl(_) | Request::OpenFiles
            ) {
                l.sent_open = Some((envelope.request.clone(), files.clone()));
            }
            match (&l.worker, serde_json::to_string(&envelope)) {
                (Some(worker), Ok(json)) => worker.post(&json, files),
                (_, Err(e)) => platform::log_error(&format!("cannot send a request: {e}")),
                (None, _) => {}
            }
            l.seq
        })
    }

    fn send(self, request: Request) -> u64 {
        self.send_with(request, None)
    }

    /// Sends `request`; `name` is published once the frame after its work is painted.
    fn send_timed(self, name: &'static str, request: Request) -> u64 {
        let started = platform::now_ms();
        let seq = self.send(request);
        LINK.with(|l| l.borrow_mut().waiting.timings.insert(seq, (name, started)));
        seq
    }

    /// Sends `request` and calls `then` with its answer.
    fn ask(self, request: Request, then: impl FnOnce(Answer) + 'static) {
        let seq = self.send(request);
        LINK.with(|l| l.borrow_mut().waiting.answers.insert(seq, Box::new(then)));
    }

    /// An update from the engine: each part that came lands in its signal; then the
    /// answer, the timings and what waited for the requests that ended.
    fn receive(self, mut message: platform::FromEngine) {
        let mut update: protocol::Update = match serde_json::from_str(&message.json) {
            Ok(u) => u,
            Err(e) => {
                platform::log_error(&format!("unreadable update from the engine: {e}"));
                return;
            }
        };
        for (name, ms) in &update.timings {
            platform::publish_timing(name, *ms);
        }
        if let Some(d) = update.document {
            // A model opened: it is the one the last open sent brought.
            let new = LINK.with(|l| {
                let mut l = l.borrow_mut();
                let new = d.opened != l.kept_opened;
                if new {
                    l.kept_opened = d.opened;
                    l.kept_open = l.sent_open.clone();
                }
                new
            });
            self.document.set(d);
            if new {
                super::keep::opened(self);
            }
        }
        if let Some(change) = update.log {
            LINK.with(|l| {
                let log = &mut l.borrow_mut().kept_log;
                log.truncate(change.keep);
                log.extend(change.add);
            });
            super::keep::changed(self);
        }
        if let Some(p) = update.palette {
            self.palette.set(p);
        }
        if let Some(mut m) = update.messages {
            if update.seq < LINK.with(|l| l.borrow().cancelled_at) {
                m.pending = None;
            }
            self.messages.set(m);
        }
        if let Some(d) = update.draft {
            self.draft.set(d);
        }
        if let Some(c) = update.compare {
            self.compare.set(c);
        }
        if let Some(s) = update.side_by_side {
            self.side.set(s);
        }
        if let Some(w) = update.work {
            self.work.set(w);
        }
        if let Some(s) = update.scene {
            self.scene.set(s);
        }
        if let Some(r) = update.run {
            self.run.set(r);
        }
        let selected_at = LINK.with(|l| l.borrow().selected_at);
        if let Some(s) = update.selection
            && update.seq >= selected_at
        {
            if self.selection.with_untracked(|items| *items != s.items) {
                self.selection.set(s.items);
            }
            self.selected_nodes.set(s.nodes);
        }
        if let Some(p) = update.properties {
            self.properties.set(p);
        }
        // An expand that ends in a fit (`expand_to_depth`'s `done`) is drawn once, at
        // the fitted camera, not first at the old one.
        let refits = LINK.with(|l| {
            let w = &l.borrow().waiting;
            update.done.iter().any(|seq| w.done.contains_key(seq))
        });
        let mut painted = Vec::new();
        if let Some(svg) = message.svg.filter(|_| !refits) {
            self.svg.set(svg);
            painted = LINK.with(|l| std::mem::take(&mut l.borrow_mut().waiting.next_drawing));
        }
        if let Some(other) = message.other {
            self.other_svg.set(other);
        }
        if let Some(opened) = update.drawn {
            self.drawn.set(opened);
        }
        if let (Some((_, answer)), Some(bytes)) = (&mut update.answer, &mut message.bytes) {
            self.save(answer, bytes);
            if let Answer::Model { bytes: model, .. } = answer {
                *model = std::mem::take(bytes);
            }
        }
        let (answer, timings, done) = LINK.with(|l| {
            let mut l = l.borrow_mut();
            let w = &mut l.waiting;
            let answer = update
                .answer
                .and_then(|(seq, a)| Some((w.answers.remove(&seq)?, a)));
            let mut timings: Vec<_> = update
                .done
                .iter()
                .filter_map(|seq| w.timings.remove(seq))
                .collect();
            if refits {
                w.next_drawing.append(&mut timings);
            }
            timings.append(&mut painted);
            let done: Vec<_> = update
                .done
                .iter()
                .filter_map(|seq| w.done.remove(seq))
                .collect();
            (answer, timings, done)
        });
        if let Some((then, answer)) = answer {
            then(answer);
        }
        for (name, started) in timings {
            platform::after_next_paint(move || {
                platform::publish_timing(name, platform::now_ms() - started);
            });
        }
        for f in done {
            f();
        }
    }

    /// Saves a download the engine answered with.
    fn save(self, answer: &Answer, bytes: &[u8]) {
        let result = match answer {
            Answer::Download { name, mime } => platform::download_as(name, mime, bytes)
                .map_err(|e| format!("Export of {name} failed: {e}")),
            Answer::Png {
                name,
                width,
                height,
            } => platform::download_png(name, &String::from_utf8_lossy(bytes), *width, *height)
                .map_err(|e| format!("Export of {name} failed: {e}")),
            _ => Ok(()),
        };
        if let Err(message) = result {
            let pending = self.messages.with_untracked(|m| m.pending.clone());
            self.messages.set(Messages {
                error: Some(message),
                pending,
                field: None,
            });
        }
    }

    /// The open model's state (`OpenModel::serial`): new after every open, edit, undo
    /// and redo (tracked).
    pub fn serial(self) -> u64 {
        self.document.with(|d| d.serial)
    }

    /// Selects `items` (of the open model), the one whose properties show last.
    pub fn select(self, items: Vec<ItemId>) {
        self.selection.set(items.clone());
        self.send(Request::Select(items));
    }

    /// Shift+click on `item`: a node joins the selection or leaves it.
    pub fn shift_select(self, item: ItemId) {
        self.send(Request::ShiftSelect(item));
    }

    /// How many of the selected items are nodes (tracked).
    pub fn selected_node_count(self) -> usize {
        self.selected_nodes.get()
    }

    /// The open model (or its `function`-th function) as ONNX text, with the
    /// checker's errors at nodes printed there, each as `line N: message (code)`.
    pub fn text(
        self,
        function: Option<usize>,
        then: impl FnOnce(Option<(String, Vec<String>)>) + 'static,
    ) {
        self.ask(Request::Text(function), move |a| {
            if let Answer::Text(t) = a {
                then(t);
            }
        });
    }

    /// Opens a bundled example. The address then names it alone: a `?model=` the
    /// page was opened with goes, so a reload opens what is open (with its view).
    pub fn open_example(self, file: &'static str) {
        platform::drop_query_parameter("model");
        self.send(Request::OpenExample {
            file: file.to_string(),
            url: platform::absolute_url(&format!("{EXAMPLES_URL}/{file}")),
        });
    }

    /// Opens the model at `url` (fetched from the page's own origin).
    pub fn open_url(self, url: String) {
        self.send(Request::OpenUrl(platform::absolute_url(&url)));
    }

    /// Opens the example whose file name is `file`, if there is one.
    pub fn open_example_named(self, file: &str) {
        if let Some(example) = example(file) {
            self.open_example(example.file);
        }
    }

    /// Opens files from this machine (the address then names no model, as for an
    /// example).
    pub fn open_files(self, picked: PickedFiles) {
        if !picked.is_empty() {
            platform::drop_query_parameter("model");
            self.send_with(Request::OpenFiles, Some(picked));
        }
    }

    /// Stops the open in progress; the model that was open stays as it was. The
    /// progress goes at once.
    pub fn cancel_open(self) {
        let seq = self.send(Request::CancelOpen);
        LINK.with(|l| l.borrow_mut().cancelled_at = seq);
        if self.messages.with_untracked(|m| m.pending.is_some()) {
            self.messages.update(|m| m.pending = None);
        }
    }

    /// Undoes the last edit; publishes `undo_ms`, to the frame painted.
    pub fn undo(self) {
        self.send_timed("undo_ms", Request::Undo);
    }

    /// Redoes the last undone edit; publishes `redo_ms`.
    pub fn redo(self) {
        self.send_timed("redo_ms", Request::Redo);
    }

    /// Undoes or redoes until `done` edits are in force (the history panel's click).
    pub fn go_to_step(self, done: usize) {
        self.send(Request::GoToStep(done));
    }

    /// Downloads the edit log (`MODEL.edits.json`), which `graft apply` replays.
    pub fn export_log(self) {
        self.send(Request::ExportLog);
    }

    pub fn export(self) {
        self.send(Request::Export);
    }

    pub fn dismiss_error(self) {
        self.send(Request::DismissError);
    }

    /// A node edit; publishes `edit_ms`, from the edit to the redrawn canvas painted
    /// (apply, infer, check, view, layout, draw, and the messages between).
    fn node_edit(self, request: Request) {
        self.send_timed("edit_ms", request);
    }

    /// The checker's and importer's problems (tracked).
    pub fn problems(self) -> Vec<Problem> {
        self.document.with(|d| d.problems.clone())
    }

    /// The item the `index`-th problem jumps to, for `then`.
    pub fn problem_item(self, index: usize, then: impl FnOnce(ItemId) + 'static) {
        self.ask(Request::ProblemItem(index), move |a| {
            if let Answer::Item(Some(item)) = a {
                then(item);
            }
        });
    }

    /// Applies edited text (the text pane); `then` hears the error when it is refused.
    pub fn apply_text(
        self,
        function: Option<usize>,
        text: String,
        then: impl FnOnce(Result<(), graft::host::EngineError>) + 'static,
    ) {
        self.ask(Request::ApplyText(function, text), move |a| {
            if let Answer::Applied(r) = a {
                then(r);
            }
        });
    }

    /// The operator palette: name and first line of documentation (tracked).
    pub fn palette(self) -> Vec<(String, String)> {
        self.palette.get()
    }

    /// The function library (tracked).
    pub fn function_library(self) -> Vec<FunctionInfo> {
        self.document.with(|d| d.library.clone())
    }

    /// The properties of the last selected item (tracked).
    pub fn properties(self) -> Option<Properties> {
        self.properties.get()
    }

    /// The first model is drawn: the engine warms its layout code up.
    pub fn warm(self) {
        self.send(Request::Warm);
    }
}
