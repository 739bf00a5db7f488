//! The reactive handle the components share: `AppState` wraps the session in signals and runs its actions (timed, for the browser harness).

use std::hash::Hash;

use super::*;

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
    /// Notified when the open model changes (an open, edit, undo, redo or preview):
    /// what only the model and its history feed on tracks this, not the session.
    document: Trigger,
    /// Notified when the banner's error or the pending note changes.
    messages: Trigger,
    /// Notified when the inline dialog's contents change.
    draft: Trigger,
}

/// What the narrow triggers stand for, read off the session before and after a
/// change: a trigger is notified only when its part differs.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    /// The open model's state (`OpenModel::serial`, every edit makes a new one) and
    /// how many models were opened.
    document: (u64, u64),
    messages: u64,
    draft: u64,
}

impl Stamp {
    fn of(s: &Session) -> Stamp {
        let hash = |f: &dyn Fn(&mut std::hash::DefaultHasher)| {
            let mut h = std::hash::DefaultHasher::new();
            f(&mut h);
            std::hash::Hasher::finish(&h)
        };
        Stamp {
            document: (s.open().map_or(0, |o| o.serial), s.opened()),
            messages: hash(&|h| (s.error(), s.pending()).hash(h)),
            draft: hash(&|h| format!("{:?}", s.inline_view()).hash(h)),
        }
    }
}

impl AppState {
    pub fn new() -> Self {
        let session = RwSignal::new(Session::default());
        let (document, messages, draft) = (Trigger::new(), Trigger::new(), Trigger::new());
        // A memo of one concern: it tracks that concern's trigger and reads the
        // session untracked, so that a change elsewhere (a group opened, a message)
        // does not run it again.
        fn of<T: PartialEq + Send + Sync + 'static>(
            trigger: Trigger,
            session: RwSignal<Session>,
            read: impl Fn(&Session) -> T + Send + Sync + 'static,
        ) -> Memo<T> {
            Memo::new(move |_| {
                trigger.track();
                session.with_untracked(&read)
            })
        }
        Self {
            session,
            summary: of(document, session, |s| s.open().map(|o| o.summary.clone())),
            name: of(document, session, |s| s.open().map(|o| o.name.clone())),
            example: of(document, session, |s| match s.open().map(|o| o.origin) {
                Some(Origin::Example(file)) => Some(file),
                _ => None,
            }),
            error: of(messages, session, |s| s.error().map(str::to_string)),
            pending: of(messages, session, |s| s.pending().map(str::to_string)),
            work: RwSignal::new(None),
            inline: of(draft, session, Session::inline_view),
            can_undo: of(document, session, Session::can_undo),
            can_redo: of(document, session, Session::can_redo),
            history: of(document, session, Session::history),
            opened: of(document, session, Session::opened),
            selection: RwSignal::new(Vec::new()),
            presenting: RwSignal::new(false),
            initial_view: StoredValue::new(None),
            selection_of: StoredValue::new(0),
            document,
            messages,
            draft,
            functions: of(document, session, |s| {
                s.open().map_or_else(Vec::new, |o| {
                    let m = &o.model;
                    m.functions
                        .iter()
                        .map(|&f| m.function(f).key().to_string())
                        .collect()
                })
            }),
        }
    }

    /// Changes the session; the selection follows the open model's items (through an
    /// edit or undo), or is cleared when the model was replaced otherwise.
    pub(super) fn change<R>(self, f: impl FnOnce(&mut Session) -> R) -> Option<R> {
        let before = self.session.with_untracked(Stamp::of);
        let result = self.session.try_update(|s| {
            let result = f(s);
            s.refresh_compare();
            result
        });
        let after = self.session.with_untracked(Stamp::of);
        if after.document != before.document {
            self.document.notify();
        }
        if after.messages != before.messages {
            self.messages.notify();
        }
        if after.draft != before.draft {
            self.draft.notify();
        }
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

    /// Starts opening a model (`what` shows meanwhile): its ticket. The layout
    /// warm-up stops, so that it never competes with a real open.
    fn begin(self, what: String) -> Option<Ticket> {
        crate::warm::stop();
        self.change(|s| s.begin(what))
    }

    pub fn open_example(self, file: &'static str) {
        let Some(ticket) = self.begin(format!("Opening {file}…")) else {
            return;
        };
        spawn_local(async move {
            let url = format!("{EXAMPLES_URL}/{file}");
            let files = self.fetch(ticket, file.to_string(), &url).await;
            self.load(ticket, file, Origin::Example(file), files).await;
        });
    }

    /// Opens the model at `url` (fetched from the page's own origin).
    pub fn open_url(self, url: String) {
        let name = url.rsplit('/').next().unwrap_or(&url).to_string();
        let Some(ticket) = self.begin(format!("Opening {name}…")) else {
            return;
        };
        spawn_local(async move {
            let files = self.fetch(ticket, name.clone(), &url).await;
            self.load(ticket, &name, Origin::Files, files).await;
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
        let names = picked.names();
        let Some(ticket) = self.begin(format!("Opening {names}…")) else {
            return;
        };
        spawn_local(async move {
            let started = platform::now_ms();
            let files = picked.read(&mut self.read_progress(ticket, &names)).await;
            platform::publish_timing("open_read_ms", platform::now_ms() - started);
            self.load(ticket, &names, Origin::Files, files).await;
        });
    }

    /// Stops the open in progress; the model that was open stays as it was.
    pub fn cancel_open(self) {
        self.change(Session::cancel_open);
    }

    /// Fetches `url` as the file `name` for the load `ticket`, showing the bytes read.
    async fn fetch(
        self,
        ticket: Ticket,
        name: String,
        url: &str,
    ) -> Result<Vec<LoadedFile>, String> {
        let bytes = platform::fetch_bytes(url, &mut self.read_progress(ticket, &name))
            .await
            .map_err(|e| format!("{name}: {e}"))?;
        Ok(vec![LoadedFile { name, bytes }])
    }

    /// The progress of reading `what` for the load `ticket`: it shows the bytes read
    /// (at most every 50 ms: a fetched body comes in pieces of a few kB), and stops the
    /// read once the load is cancelled or replaced.
    fn read_progress(self, ticket: Ticket, what: &str) -> impl FnMut(u64, u64) -> bool + use<> {
        let what = what.to_string();
        let mut shown = f64::NEG_INFINITY;
        move |done, total| {
            let now = platform::now_ms();
            if now - shown < 50.0 && done < total {
                return self.session.with_untracked(|s| s.is_current(ticket));
            }
            shown = now;
            let note = format!(
                "Reading {what}: {} of {}…",
                crate::format::bytes(done),
                crate::format::bytes(total)
            );
            self.change(|s| s.progress(ticket, note)) == Some(true)
        }
    }

    /// Opens the model among `files` for the load `ticket` in stages (decode, check,
    /// infer, lay out, draw), yielding to the event loop between two of them once a
    /// turn has run a work budget: the banner names each stage beside Cancel, and a
    /// Cancel or a later open stops it between two stages, leaving the open model as it
    /// was. The model opens, or its error shows, once all are done.
    async fn load(
        self,
        ticket: Ticket,
        name: &str,
        origin: Origin,
        files: Result<Vec<LoadedFile>, String>,
    ) {
        let started = platform::now_ms();
        let Some(opened) = self.stages(ticket, name, origin, files).await else {
            return;
        };
        let shown = platform::now_ms();
        self.change(|s| s.finish_open(ticket, opened));
        platform::publish_timing("open_show_ms", platform::now_ms() - shown);
        platform::publish_timing("open_ms", platform::now_ms() - started);
    }

    /// The stages of [`Self::load`]; `None` when the load stopped being current. Each
    /// stage's time is published (`open_decode_ms`…) for the browser benchmark.
    async fn stages(
        self,
        ticket: Ticket,
        name: &str,
        origin: Origin,
        files: Result<Vec<LoadedFile>, String>,
    ) -> Option<Result<OpenModel, String>> {
        fn timed<T>(stage: &str, f: impl FnOnce() -> T) -> T {
            let started = platform::now_ms();
            let out = f();
            platform::publish_timing(&format!("open_{stage}_ms"), platform::now_ms() - started);
            out
        }
        let mut turn = platform::now_ms();
        if !self
            .stage(ticket, format!("Decoding {name}…"), &mut turn)
            .await
        {
            return None;
        }
        let decoded = timed("decode", || {
            files.and_then(|files| Loading::decode(files, origin))
        });
        let mut loading = match decoded {
            Ok(loading) => loading,
            Err(message) => return Some(Err(message)),
        };
        let nodes = crate::format::count(loading.nodes() as u64);
        if !self
            .stage(ticket, format!("Checking {nodes} nodes…"), &mut turn)
            .await
        {
            return None;
        }
        timed("check", || loading.check());
        if !self
            .stage(
                ticket,
                format!("Inferring the types of {nodes} nodes…"),
                &mut turn,
            )
            .await
        {
            return None;
        }
        timed("infer", || loading.infer());
        if !self
            .stage(ticket, format!("Laying out {name}…"), &mut turn)
            .await
        {
            return None;
        }
        let open = timed("layout", || loading.lay_out());
        // The drawing of the opened model runs in the task that shows it: a turn of
        // its own when the stages have used this one's budget.
        if !self
            .stage(ticket, format!("Drawing {name}…"), &mut turn)
            .await
        {
            return None;
        }
        Some(Ok(open))
    }

    /// Shows `what` as the load's progress and, once this turn of the event loop (begun
    /// at `turn`) has run for a piece of work's budget, yields one, so the page paints
    /// it and can take a Cancel; a small model opens in one turn. False when the load
    /// is no longer current.
    async fn stage(self, ticket: Ticket, what: String, turn: &mut f64) -> bool {
        if self.change(|s| s.progress(ticket, what)) != Some(true) {
            return false;
        }
        if platform::now_ms() - *turn < platform::work_budget_ms() {
            return true;
        }
        platform::next_turn().await;
        *turn = platform::now_ms();
        self.session.with_untracked(|s| s.is_current(ticket))
    }

    /// Reads the picked or dropped files and opens the inline dialog for the model
    /// among them.
    pub fn begin_inline(self, picked: PickedFiles) {
        if picked.is_empty() {
            return;
        }
        spawn_local(async move {
            let result = picked
                .read(&mut |_, _| true)
                .await
                .and_then(|files| self.change(|s| s.begin_inline(files)).unwrap_or(Ok(())));
            if let Err(message) = result {
                self.change(|s| s.set_error(message));
            }
        });
    }

    /// A change of the inline dialog's choices; publishes `inline_preview_ms`, from the
    /// change to the preview painted (inline again, check, view, layout, draw).
    fn inline_choice(self, f: impl FnOnce(&mut Session)) {
        self.timed("inline_preview_ms", |s| {
            f(s);
            true
        });
    }

    pub fn inline_bind(self, index: usize, value: Option<String>) {
        self.inline_choice(|s| s.inline_bind(index, value));
    }

    pub fn inline_expose(self, index: usize, exposed: bool) {
        self.inline_choice(|s| s.inline_expose(index, exposed));
    }

    pub fn inline_prefix(self, prefix: String) {
        self.inline_choice(|s| s.inline_prefix(prefix));
    }

    pub fn inline_as_function(self, function: Option<String>) {
        self.inline_choice(|s| s.inline_as_function(function));
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
    pub(super) fn drive(self, run: Option<u64>, started: f64, done: Rc<dyn Fn()>) {
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
        self.change(|s| s.reveal(item)).flatten()
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
    pub(super) fn node_edit(self, f: impl FnOnce(&mut Session) -> bool) {
        self.timed("edit_ms", f);
    }

    /// Runs `f` and publishes `name`: the time from here to the next frame painted.
    pub(super) fn timed(self, name: &'static str, f: impl FnOnce(&mut Session) -> bool) {
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
            match picked.read(&mut |_, _| true).await {
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

    /// Compares the open model with the one `step` edits in (0: as opened).
    /// Publishes `compare_ms`, from the choice to the marks painted.
    pub fn compare_with_step(self, step: usize) {
        self.timed("compare_ms", |s| s.compare_with_step(step));
    }

    /// Compares the open model with a chosen file.
    /// Publishes `compare_ms`, from the choice to the marks painted (the file read,
    /// decoded and compared).
    pub fn compare_with_files(self, picked: PickedFiles) {
        if picked.is_empty() {
            return;
        }
        let started = platform::now_ms();
        spawn_local(async move {
            let result = picked.read(&mut |_, _| true).await.and_then(|files| {
                self.change(|s| s.compare_with_files(files))
                    .unwrap_or(Ok(()))
            });
            match result {
                Ok(()) => platform::after_next_paint(move || {
                    platform::publish_timing("compare_ms", platform::now_ms() - started);
                }),
                Err(message) => {
                    self.change(|s| s.set_error(message));
                }
            }
        });
    }

    /// Shows the other model beside the open one (or stops).
    pub fn set_side_by_side(self, on: bool) {
        self.change(|s| s.set_side_by_side(on));
    }

    pub fn side_by_side(self) -> bool {
        self.session.with(Session::side_by_side)
    }

    /// Expands or collapses a group of the other model's drawing.
    pub fn toggle_other(self, item: ItemId) {
        self.change(|s| s.toggle_other(item));
    }

    /// Selects the open model's node matched with the other model's `item`.
    pub fn select_from_other(self, item: ItemId) {
        if let Some(found) = self
            .session
            .try_update_untracked(|s| s.matched_in_open(item))
            .flatten()
        {
            self.select(vec![found]);
        }
    }

    pub fn other_svg(self, view: Rect, detail: Detail, selected: &[ItemId]) -> String {
        self.session.with(|s| s.other_svg(view, detail, selected))
    }

    pub fn close_compare(self) {
        self.change(Session::close_compare);
    }

    pub fn comparison(self) -> Option<crate::state::CompareView> {
        self.session.with(Session::comparison)
    }

    pub fn compare_item(self, index: usize) -> Option<ItemId> {
        self.session
            .try_update_untracked(|s| s.compare_item(index))
            .flatten()
    }

    /// How many edits are in force (the steps a comparison can go back to).
    pub fn steps(self) -> usize {
        self.session.with(|s| s.history().0.len())
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
        self.change(|s| s.library_keep(index, keep));
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
