//! The engine: the session in a dedicated Web Worker. It takes the page's requests one
//! at a time (`protocol::Request`), runs them on the [`Session`] (open, decode, check,
//! infer, edit, view build, layout, drawing the SVG of the part on screen) and sends
//! back what changed (`protocol::Update`). Long work (an open in stages, an expand in
//! pieces) yields to the worker's event loop between its pieces, so a Cancel sent by
//! the page is taken between two of them; the page's thread never runs any of it.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use graft::host::STALE;

use super::protocol::{
    Answer, Document, Draft, Envelope, LogChange, Messages, Names, Request, SceneInfo, Selection,
    Update, Viewport,
};
use super::*;

/// The session and what the engine knows of the page: its selection, the region it
/// shows, and a fingerprint of each part last sent (a part is sent again only when it
/// changed).
#[derive(Default)]
struct Engine {
    session: Session,
    selection: Vec<ItemId>,
    /// The model state (`OpenModel::serial`) the selection's item ids belong to.
    selection_of: u64,
    viewport: Option<Viewport>,
    /// The last request handled.
    seq: u64,
    /// Requests whose work ended since the last update.
    done: Vec<u64>,
    /// Whether the request being handled ends later (an open, a file read, work in
    /// pieces): it is done when that ends.
    deferred: bool,
    sent: FxMap<&'static str, u64>,
    /// An edit log to apply once the open in progress is in (`Request::Restore`).
    restore: Option<(String, String)>,
    /// The stamps of the edit log the page has (`Update::log`).
    log_sent: Vec<u64>,
}

thread_local! {
    static ENGINE: RefCell<Engine> = RefCell::new(Engine::default());
    /// onnxruntime-web, once the user has run something.
    static RUNTIME: RefCell<Option<std::rc::Rc<platform::Runtime>>> = const { RefCell::new(None) };
    /// The work budget the page asked for (tests set a small one).
    static BUDGET: std::cell::Cell<Option<f64>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` on the engine.
fn with<R>(f: impl FnOnce(&mut Engine) -> R) -> R {
    ENGINE.with(|e| f(&mut e.borrow_mut()))
}

/// Runs `f` on the session, then carries the selection and the comparison along.
fn change<R>(f: impl FnOnce(&mut Session) -> R) -> R {
    with(|e| {
        let r = f(&mut e.session);
        e.session.refresh_compare();
        e.carry();
        r
    })
}

/// How long one piece of long work may run before the engine yields.
fn budget_ms() -> f64 {
    BUDGET.with(std::cell::Cell::get).unwrap_or(30.0)
}

/// The worker's entry point: listens for the page's requests.
pub fn run() {
    platform::worker_listen(|json, files| {
        let envelope: Envelope = match serde_json::from_str(&json) {
            Ok(e) => e,
            Err(e) => {
                platform::log_error(&format!("engine: unreadable request: {e}"));
                return;
            }
        };
        BUDGET.with(|b| b.set(envelope.budget));
        handle(
            envelope.seq,
            envelope.serial,
            envelope.request,
            PickedFiles::from_files(files),
        );
    });
}

/// Handles one request, made on the model state `serial`, and sends the update.
fn handle(seq: u64, serial: u64, request: Request, files: PickedFiles) {
    let document = !request.leaves_document();
    with(|e| {
        e.seq = seq;
        e.deferred = false;
    });
    let request = match with(|e| e.current(serial, request)) {
        Ok(request) => request,
        Err(answer) => {
            with(|e| e.done.push(seq));
            send(answer.map(|a| (seq, a)), document, None);
            return;
        }
    };
    let answer = match request {
        Request::OpenExample { file, url } => {
            let name = file.clone();
            open_with(format!("Opening {file}…"), move |ticket| async move {
                let origin = match example(&name) {
                    Some(e) => Origin::Example(e.file),
                    None => Origin::Files,
                };
                let files = fetch(ticket, name.clone(), &url).await.map(ModelFile::Read);
                load(seq, ticket, &name, origin, files, Beside::Url(url)).await;
            });
            None
        }
        Request::OpenUrl(url) => {
            let name = url.rsplit('/').next().unwrap_or(&url).to_string();
            open_with(format!("Opening {name}…"), move |ticket| async move {
                let files = fetch(ticket, name.clone(), &url).await.map(ModelFile::Read);
                load(seq, ticket, &name, Origin::Files, files, Beside::Url(url)).await;
            });
            None
        }
        Request::OpenFiles => {
            if !files.is_empty() {
                let names = files.names();
                // Only the model is read now; its data files are read a tensor at a
                // time when an export or a comparison needs the bytes.
                let mut files = files;
                let sources = files.take_data_files(is_model_name);
                // The model is read as it is decoded, its weights left in the file
                // until something needs them.
                let model = files
                    .into_source()
                    .map(|(name, source)| ModelFile::Source(name, source))
                    .ok_or_else(|| "No file was given.".to_string());
                open_with(format!("Opening {names}…"), move |ticket| async move {
                    load(
                        seq,
                        ticket,
                        &names,
                        Origin::Files,
                        model,
                        Beside::Files(sources),
                    )
                    .await;
                });
            }
            None
        }
        Request::CancelOpen => {
            change(Session::cancel_open);
            None
        }
        Request::BeginInline => {
            read_then(seq, files, |files| change(|s| s.begin_inline(files)));
            None
        }
        Request::InlineBind(i, v) => edit(|s| s.inline_bind(i, v)),
        Request::InlineExpose(i, on) => edit(|s| s.inline_expose(i, on)),
        Request::InlinePrefix(p) => edit(|s| s.inline_prefix(p)),
        Request::InlineAsFunction(f) => edit(|s| s.inline_as_function(f)),
        Request::ApplyInline => {
            change(|s| {
                let _ = s.apply_inline();
            });
            None
        }
        Request::CancelInline => {
            change(Session::cancel_inline);
            None
        }
        Request::Undo => {
            change(Session::undo);
            None
        }
        Request::Redo => {
            change(Session::redo);
            None
        }
        Request::GoToStep(done) => {
            change(|s| s.go_to_step(done));
            None
        }
        Request::DismissError => {
            change(Session::dismiss_error);
            None
        }
        Request::Export => match with(|e| e.session.export()) {
            Ok((name, bytes)) => {
                send_download(seq, &name, "application/octet-stream", bytes);
                return;
            }
            Err(message) => {
                change(|s| s.set_error(message));
                None
            }
        },
        Request::ExportLog => {
            let (name, log) = with(|e| {
                let s = &e.session;
                let base = s
                    .open()
                    .map_or("model", |o| o.name.trim_end_matches(".onnx"))
                    .to_string();
                (format!("{base}.edits.json"), s.edit_log())
            });
            send_download(seq, &name, "application/json", log.into_bytes());
            return;
        }
        Request::ExportSvg => {
            if let Some((name, text)) = with(|e| e.session.graph_document()) {
                send_download(seq, &name, "image/svg+xml", text.into_bytes());
                return;
            }
            None
        }
        Request::ExportPng => {
            let document = with(|e| {
                let (name, text) = e.session.graph_document()?;
                let (w, h) = e.session.graph_size().unwrap_or((1.0, 1.0));
                Some((name, text, w, h))
            });
            if let Some((name, text, w, h)) = document {
                // The document has a 16 px margin on each side (svg::document).
                let answer = Answer::Png {
                    name: name.trim_end_matches(".svg").to_string() + ".png",
                    width: f64::from(w) + 32.0,
                    height: f64::from(h) + 32.0,
                };
                send(Some((seq, answer)), false, Some(text.into_bytes()));
                return;
            }
            None
        }
        Request::Toggle(item) => {
            let started = platform::now_ms();
            change(|s| s.toggle(item));
            platform::publish_timing("toggle_ms", platform::now_ms() - started);
            None
        }
        Request::ExpandToDepth(depth) => {
            let run = change(|s| s.expand_to_depth(depth));
            drive(seq, run);
            None
        }
        Request::StepLevel(deeper) => {
            let run = change(|s| s.step_level(deeper));
            drive(seq, run);
            None
        }
        Request::CancelWork => {
            change(Session::cancel_work);
            None
        }
        Request::Select(items) => {
            with(|e| {
                e.selection = items;
                e.selection_of = serial;
                e.carry();
            });
            None
        }
        Request::ShiftSelect(item) => {
            with(|e| {
                if e.session.selected_nodes(&[item]).is_empty() {
                    return;
                }
                let mut items: Vec<ItemId> = e
                    .selection
                    .iter()
                    .copied()
                    .filter(|&i| !e.session.selected_nodes(&[i]).is_empty())
                    .collect();
                match items.iter().position(|&i| i == item) {
                    Some(k) => {
                        items.remove(k);
                    }
                    None => items.push(item),
                }
                e.selection = items;
            });
            None
        }
        Request::Reveal(item) => {
            let rect = change(|s| s.reveal(item));
            Some(Answer::Rect(rect.map(|r| (r.x, r.y, r.w, r.h))))
        }
        Request::Search(query) => Some(Answer::Hits(with(|e| e.session.search(&query)))),
        Request::CallSites(index) => Some(Answer::Hits(with(|e| e.session.call_sites(index)))),
        Request::CheckCallAttribute(node, name, value) => Some(Answer::Problem(with(|e| {
            e.session.check_call_attribute(node, &name, &value).err()
        }))),
        Request::SetCallAttribute(node, name, value) => {
            let started = platform::now_ms();
            change(|s| s.set_call_attribute(node, &name, &value));
            platform::publish_timing("specialize_edit_ms", platform::now_ms() - started);
            None
        }
        Request::SpecializeCall(node, attributes) => {
            let started = platform::now_ms();
            change(|s| s.specialize_call(node, &attributes));
            platform::publish_timing("specialize_edit_ms", platform::now_ms() - started);
            None
        }
        Request::RenameNode(node, to) => edit(|s| s.rename_node(node, &to)),
        Request::SetAttribute(node, text) => edit(|s| s.set_attribute(node, &text)),
        Request::RemoveAttribute(node, name) => edit(|s| s.remove_attribute(node, &name)),
        Request::Connect(node, index, value) => edit(|s| s.connect(node, index, &value)),
        Request::RenameOutput(node, index, to) => edit(|s| s.rename_output(node, index, &to)),
        Request::DeleteSelected(reconnect) => {
            let nodes = with(|e| e.session.selected_nodes(&e.selection));
            if !nodes.is_empty() {
                change(|s| s.delete_nodes(&nodes, reconnect));
            }
            None
        }
        Request::AddAfter(node, op) => edit(|s| s.add_after(node, &op)),
        Request::RenameValue(value, to) => edit(|s| s.rename_value(value, &to)),
        Request::SetValueType(value, ty) => edit(|s| s.set_value_type(value, &ty)),
        Request::RemoveTerminal(value, input) => edit(|s| {
            if input {
                s.remove_graph_input(value)
            } else {
                s.remove_graph_output(value)
            }
        }),
        Request::AddGraphOutput(node, index) => edit(|s| s.add_graph_output(node, index)),
        Request::SetInitializer(value) => {
            read_then(seq, files, move |files| {
                if let Some(file) = files.first() {
                    let bytes = file.bytes.clone();
                    change(|s| s.set_initializer(value, &bytes));
                }
                Ok(())
            });
            None
        }
        Request::AddGraphInput(beside, name, ty) => edit(|s| s.add_graph_input(beside, &name, &ty)),
        Request::CompareWithStep(step) => {
            change(|s| s.compare_with_step(step));
            None
        }
        Request::CompareWithFiles => {
            // Like an open: the file is read as it is decoded, its weights left in it.
            if let Some((name, source)) = files.into_source() {
                let compared = change(|s| s.compare_with_files(ModelFile::Source(name, source)));
                if let Err(message) = compared {
                    change(|s| s.set_error(message));
                }
            }
            None
        }
        Request::SetSideBySide(on) => {
            change(|s| s.set_side_by_side(on));
            None
        }
        Request::ToggleOther(item) => {
            change(|s| s.toggle_other(item));
            None
        }
        Request::SelectFromOther(item) => {
            with(|e| {
                if let Some(found) = e.session.matched_in_open(item) {
                    e.selection = vec![found];
                    e.selection_of = e.session.open().map_or(0, |o| o.serial());
                }
            });
            None
        }
        Request::CloseCompare => {
            change(Session::close_compare);
            None
        }
        Request::CompareItem(index) => Some(Answer::Item(with(|e| e.session.compare_item(index)))),
        Request::ProblemItem(index) => Some(Answer::Item(with(|e| e.session.problem_item(index)))),
        Request::Text(function) => Some(Answer::Text(with(|e| text(&e.session, function)))),
        Request::ApplyText(function, text) => {
            let applied = change(|s| s.apply_text(function, &text));
            Some(Answer::Applied(if applied {
                Ok(())
            } else {
                Err(with(|e| e.session.error().map(str::to_string))
                    .unwrap_or_else(|| "not applied".into()))
            }))
        }
        Request::NewFunctionProblem(text) => Some(Answer::Problem(with(|e| {
            e.session.new_function_problem(&text)
        }))),
        Request::Outline(name) => {
            let items = with(|e| e.selection.clone());
            Some(Answer::Done(change(|s| s.outline(&items, &name))))
        }
        Request::RestoreView(open, selected) => {
            let item = change(|s| s.restore_view(&open, selected.as_deref()));
            if let Some(item) = item {
                with(|e| {
                    e.selection = vec![item];
                    e.selection_of = e.session.open().map_or(0, |o| o.serial());
                });
            }
            None
        }
        Request::ExpandStandard(node) => {
            change(|s| s.expand_standard(node));
            None
        }
        Request::UseOverload(node, overload) => {
            change(|s| s.use_overload(node, &overload));
            None
        }
        Request::LibraryInlineAll(i) => {
            change(|s| s.library_inline_all(i));
            None
        }
        Request::LibrarySpecializeAll(i) => {
            change(|s| s.library_specialize_all(i));
            None
        }
        Request::LibraryKeep(i, keep) => {
            change(|s| s.library_keep(i, keep));
            None
        }
        Request::LibraryDelete(i) => {
            change(|s| s.library_delete(i));
            None
        }
        Request::LibraryRename(i, to) => {
            change(|s| s.library_rename(i, &to));
            None
        }
        Request::Viewport(viewport) => {
            with(|e| e.viewport = Some(viewport));
            None
        }
        Request::Warm => {
            crate::warm::start_once();
            None
        }
        Request::Run {
            given,
            example,
            data,
            bridge,
            ort,
        } => {
            with(|e| e.deferred = true);
            wasm_bindgen_futures::spawn_local(run_model(seq, given, example, data, bridge, ort));
            None
        }
        Request::SetRunSize(symbol, size) => edit(|s| s.set_run_size(&symbol, size)),
        Request::SetRunSeed(seed) => edit(|s| s.set_run_seed(seed)),
        Request::GiveRunInput(name) => {
            read_then(seq, files, move |files| match files.first() {
                Some(file) => change(|s| s.give_run_input(&name, &file.name, &file.bytes)),
                None => Ok(()),
            });
            None
        }
        Request::ClearRunInput(name) => edit(|s| s.clear_run_input(&name)),
        Request::SetRunFill(name, text) => edit(|s| s.set_run_fill(&name, &text)),
        Request::RunCompare { bridge, ort } => {
            with(|e| e.deferred = true);
            wasm_bindgen_futures::spawn_local(async move {
                run_compare(&bridge, &ort).await;
                with(|e| e.done.push(seq));
                send(None, false, None);
            });
            None
        }
        Request::Colour { by: None, .. } => {
            change(Session::clear_overlay);
            None
        }
        Request::Colour {
            by: Some(by),
            bridge,
            ort,
        } => {
            with(|e| e.deferred = true);
            wasm_bindgen_futures::spawn_local(async move {
                colour(by, &bridge, &ort).await;
                with(|e| e.done.push(seq));
                send(None, false, None);
            });
            None
        }
        Request::ExportNodeData => match with(|e| e.session.node_data_json()) {
            Ok((name, text)) => {
                send_download(seq, &name, "application/json", text.into_bytes());
                return;
            }
            Err(message) => {
                change(|s| s.fail_run(message));
                None
            }
        },
        Request::ImportNodeData => {
            read_then(seq, files, |files| match files.first() {
                Some(file) => {
                    let text = String::from_utf8_lossy(&file.bytes).into_owned();
                    change(|s| s.load_node_data(&file.name, &text))
                }
                None => Ok(()),
            });
            None
        }
        Request::Probe { item, bridge, ort } => {
            with(|e| e.deferred = true);
            wasm_bindgen_futures::spawn_local(async move {
                let values = probe(item, &bridge, &ort).await;
                with(|e| e.done.push(seq));
                send(Some((seq, Answer::Values(values))), false, None);
            });
            None
        }
        Request::ReuseRunInputs => edit(Session::reuse_run_inputs),
        Request::Restore { log, note } => {
            // Sent right after the open it belongs to: kept until that open is in.
            if with(|e| e.session.pending().is_some()) {
                with(|e| e.restore = Some((log, note)));
            } else {
                change(|s| s.restore(&log, note));
            }
            None
        }
        Request::ApplyLog(log) => Some(Answer::Logged(change(|s| s.apply_log(&log)))),
        Request::ModelBytes => {
            let (error, bytes) = match with(|e| e.session.export()) {
                Ok((_, bytes)) => (None, bytes),
                Err(message) => (Some(message), Vec::new()),
            };
            with(|e| e.done.push(seq));
            send(
                Some((
                    seq,
                    Answer::Model {
                        error,
                        bytes: Vec::new(),
                    },
                )),
                false,
                Some(bytes),
            );
            return;
        }
        Request::Fault => panic!("the page asked the engine to stop (a test of the restart)"),
    };
    with(|e| {
        if !e.deferred {
            e.done.push(seq);
        }
    });
    send(answer.map(|a| (seq, a)), document, None);
}

/// Runs a change that answers nothing.
fn edit<R>(f: impl FnOnce(&mut Session) -> R) -> Option<Answer> {
    change(f);
    None
}

/// The open model (or its `function`-th function) as ONNX text, with the checker's
/// errors at nodes, each as `line N: message (code)`.
fn text(s: &Session, function: Option<usize>) -> Option<(String, Vec<String>)> {
    let open = s.open()?;
    let model = open.doc.model();
    let f = match function {
        None => None,
        Some(i) => Some(*model.functions.get(i)?),
    };
    let (text, lines) = graft::text::print_with_lines(model, f);
    let mut problems: Vec<(usize, String)> = open
        .doc
        .checked()
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
}

impl Engine {
    /// `request` as it applies to the open model, when it was made on the state
    /// `serial`; else what to answer instead. View items of an earlier state are
    /// carried through the last edit or undo (a selection is carried later, with the
    /// rest of the selection); an edit by node, value or function ids made before the
    /// ids were renumbered or cut back is refused, said in the banner; a read of
    /// them gets an empty answer (the page asks again for the new state).
    fn current(&mut self, serial: u64, request: Request) -> Result<Request, Option<Answer>> {
        let Some(open) = self.session.open() else {
            return Ok(request);
        };
        if serial == open.serial() {
            return Ok(request);
        }
        let stale = !open.doc.ids_hold(serial);
        let item = |i: ItemId| self.session.carry_item(serial, i).ok_or(None);
        match request.names() {
            Names::Nothing => Ok(request),
            Names::Items => match request {
                Request::Select(_) => Ok(request),
                Request::Toggle(i) => Ok(Request::Toggle(item(i)?)),
                Request::ShiftSelect(i) => Ok(Request::ShiftSelect(item(i)?)),
                Request::Reveal(i) => item(i)
                    .map(Request::Reveal)
                    .map_err(|_| Some(Answer::Rect(None))),
                Request::Probe {
                    item: i,
                    bridge,
                    ort,
                } => Ok(Request::Probe {
                    item: item(i).map_err(|_| Some(Answer::Values(Err(STALE.into()))))?,
                    bridge,
                    ort,
                }),
                other => Ok(other),
            },
            Names::ReadIds if stale => Err(Some(match request {
                Request::CallSites(_) => Answer::Hits(Vec::new()),
                Request::CheckCallAttribute(..) => Answer::Problem(None),
                Request::Text(_) => Answer::Text(None),
                _ => Answer::Item(None),
            })),
            Names::EditIds if stale => {
                self.session.set_error(STALE.to_string());
                Err(match request {
                    Request::ApplyText(..) => Some(Answer::Applied(Err(STALE.into()))),
                    _ => None,
                })
            }
            Names::ReadIds | Names::EditIds => Ok(request),
        }
    }

    /// Carries the selection through the last edit or undo (or clears it when the
    /// model was replaced otherwise).
    fn carry(&mut self) {
        let (serial, items) = self.session.carry(self.selection_of, &self.selection);
        if serial != self.selection_of {
            self.selection_of = serial;
            self.selection = items;
        }
    }

    /// Whether `part` (serialized) differs from what was last sent of it; records it.
    fn changed(&mut self, part: &'static str, value: &impl serde::Serialize) -> bool {
        let mut h = std::hash::DefaultHasher::new();
        serde_json::to_string(value)
            .unwrap_or_default()
            .hash(&mut h);
        let hash = h.finish();
        self.sent.insert(part, hash) != Some(hash)
    }

    /// The update for what changed: every part the page shows, each only when it
    /// differs from what was sent (the document's parts only when `document`).
    fn update(
        &mut self,
        answer: Option<(u64, Answer)>,
        document: bool,
    ) -> (Update, [Option<String>; 2]) {
        let mut u = Update {
            seq: self.seq,
            done: std::mem::take(&mut self.done),
            answer,
            timings: platform::take_timings(),
            ..Update::default()
        };
        let stamp = {
            let s = &self.session;
            s.open().map_or((0, 0), |o| (o.serial(), s.opened()))
        };
        let stamps = self.session.log_stamps();
        if stamps != self.log_sent {
            let keep = stamps
                .iter()
                .zip(&self.log_sent)
                .take_while(|(a, b)| a == b)
                .count();
            u.log = Some(LogChange {
                keep,
                add: self.session.log_from(keep),
            });
            self.log_sent = stamps;
        }
        if self.changed("stamp", &stamp) | document {
            let s = &self.session;
            let doc = Document {
                serial: stamp.0,
                opened: s.opened(),
                name: s.open().map(|o| o.name.clone()),
                example: match s.open().map(|o| o.origin) {
                    Some(Origin::Example(file)) => Some(file.to_string()),
                    _ => None,
                },
                summary: s.open().map(|o| (**o.summary()).clone()),
                functions: s.open().map_or_else(Vec::new, |o| {
                    let m = o.doc.model();
                    m.functions
                        .iter()
                        .map(|&f| m.function(f).key().to_string())
                        .collect()
                }),
                can_undo: s.can_undo(),
                can_redo: s.can_redo(),
                history: s.history(),
                problems: s.problems(),
                library: s.function_library(),
            };
            let palette = s.palette();
            let side = s.side_by_side();
            let compare = s.comparison();
            let draft = s.inline_view().map(|view| Draft {
                candidates: (0..view.inputs.len())
                    .map(|i| s.inline_candidates(i))
                    .collect(),
                view,
            });
            let (a, b, c, d, e) = (
                self.changed("document", &doc),
                self.changed("palette", &palette),
                self.changed("side", &side),
                self.changed("compare", &compare),
                self.changed("draft", &draft),
            );
            u.document = a.then_some(doc);
            u.palette = b.then_some(palette);
            u.side_by_side = c.then_some(side);
            u.compare = d.then_some(compare);
            u.draft = e.then_some(draft);
        }
        // The Run tab's view (statistics, histograms, a comparison's list) is built
        // only when what it depends on changed: not on every pan or zoom.
        let run_key = {
            let (version, stamp, with) = self.session.run_key();
            (version, stamp, with.map(str::to_string))
        };
        let run = self
            .changed("run-key", &run_key)
            .then(|| self.session.run_view());
        let s = &self.session;
        let messages = Messages {
            error: s.error().map(str::to_string),
            pending: s.pending().map(str::to_string),
            field: s.field_error.clone(),
        };
        let work = s.work();
        let nodes = s.selected_nodes(&self.selection).len();
        let selection = Selection {
            serial: self.selection_of,
            items: self.selection.clone(),
            nodes,
        };
        let properties = self.selection.last().and_then(|&item| s.properties(item));
        let scene = SceneInfo {
            size: s.graph_size(),
            overview: s.graph_overview(),
            open_paths: Some(s.expanded_paths())
                .filter(|p| p.len() <= LINK_GROUPS)
                .unwrap_or_default(),
            selected_path: self.selection.last().and_then(|&i| s.item_path(i)),
        };
        let drawings = match self.viewport {
            Some(v) if v.opened == s.opened() && s.work().is_none() => Some([
                s.graph_svg(v.rect(), v.detail, &self.selection),
                if s.side_by_side() {
                    s.other_svg(v.rect(), v.detail, &self.selection)
                } else {
                    String::new()
                },
            ]),
            _ => None,
        };
        if self.changed("messages", &messages) {
            u.messages = Some(messages);
        }
        if self.changed("work", &work) {
            u.work = Some(work);
        }
        if let Some(run) = run
            && self.changed("run", &run)
        {
            u.run = Some(run);
        }
        if self.changed("selection", &selection) {
            u.selection = Some(selection);
        }
        if self.changed("properties", &properties) {
            u.properties = Some(properties);
        }
        if self.changed("scene", &scene) {
            u.scene = Some(scene);
        }
        let mut svgs = [None, None];
        if let Some([main, other]) = drawings {
            let opened = self.session.opened();
            let drawn = self.changed("drawn", &opened);
            if self.changed("svg", &main) | drawn {
                svgs[0] = Some(main);
            }
            if self.changed("other", &other) | drawn {
                svgs[1] = Some(other);
            }
            if svgs.iter().any(Option::is_some) {
                u.drawn = Some(opened);
            }
        }
        (u, svgs)
    }
}

/// Sends the update for what changed, with `bytes` beside it (a download).
fn send(answer: Option<(u64, Answer)>, document: bool, bytes: Option<Vec<u8>>) {
    let (update, [svg, other]) = with(|e| e.update(answer, document));
    match serde_json::to_string(&update) {
        Ok(json) => platform::worker_post(&json, svg, other, bytes),
        Err(e) => platform::log_error(&format!("engine: cannot send an update: {e}")),
    }
}

/// Sends what changed, during long work (no request just handled).
fn progress() {
    send(None, false, None);
}

/// Answers request `seq` with a file to save.
fn send_download(seq: u64, name: &str, mime: &str, bytes: Vec<u8>) {
    with(|e| e.done.push(seq));
    let answer = Answer::Download {
        name: name.to_string(),
        mime: mime.to_string(),
    };
    send(Some((seq, answer)), false, Some(bytes));
}

/// Starts a load showing `what`, and runs `task` with its ticket. The warm-up stops:
/// it never competes with a real open.
fn open_with<F: std::future::Future<Output = ()> + 'static>(
    what: String,
    task: impl FnOnce(Ticket) -> F,
) {
    crate::warm::stop();
    with(|e| e.deferred = true);
    let ticket = change(|s| s.begin(what));
    wasm_bindgen_futures::spawn_local(task(ticket));
}

/// Reads `files`, then runs `then` on them; an error shows in the banner. Request
/// `seq` is done once `then` has run.
fn read_then(
    seq: u64,
    files: PickedFiles,
    then: impl FnOnce(Vec<LoadedFile>) -> Result<(), String> + 'static,
) {
    if files.is_empty() {
        return;
    }
    // Done when the files are in, not now.
    with(|e| e.deferred = true);
    wasm_bindgen_futures::spawn_local(async move {
        let result = files.read(&mut |_, _| true).await.and_then(then);
        if let Err(message) = result {
            change(|s| s.set_error(message));
        }
        with(|e| e.done.push(seq));
        send(None, true, None);
    });
}

/// Fetches `url` as the file `name` for the load `ticket`, showing the bytes read.
async fn fetch(ticket: Ticket, name: String, url: &str) -> Result<Vec<LoadedFile>, String> {
    let bytes = platform::fetch_bytes(url, &mut read_progress(ticket, &name))
        .await
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(vec![LoadedFile { name, bytes }])
}

/// The progress of reading `what` for the load `ticket`: it shows the bytes read (at
/// most every 50 ms), and stops the read once the load is cancelled or replaced.
fn read_progress(ticket: Ticket, what: &str) -> impl FnMut(u64, u64) -> bool + use<> {
    let what = what.to_string();
    let mut shown = f64::NEG_INFINITY;
    move |done, total| {
        let now = platform::now_ms();
        if now - shown < 50.0 && done < total {
            return with(|e| e.session.is_current(ticket));
        }
        shown = now;
        let note = format!(
            "Reading {what}: {} of {}…",
            crate::format::bytes(done),
            crate::format::bytes(total)
        );
        let current = change(|s| s.progress(ticket, note));
        progress();
        current
    }
}

/// Opens the model among `files` for the load `ticket` (request `seq`) in stages
/// (decode, check, infer, lay out), each a turn of the worker's event loop, so that a
/// Cancel or a later open stops it between two of them and the open model stays as
/// it was. The model opens, or its error shows, once all are done.
async fn load(
    seq: u64,
    ticket: Ticket,
    name: &str,
    origin: Origin,
    files: Result<ModelFile, String>,
    beside: Beside,
) {
    let started = platform::now_ms();
    let opened = stages(ticket, name, origin, files, beside).await;
    // A kept log belongs to this open: applied if it opened, else dropped.
    let restore = with(|e| e.restore.take());
    if let Some(opened) = opened {
        let shown = platform::now_ms();
        let fine = change(|s| {
            s.finish_open(ticket, opened);
            s.error().is_none()
        });
        if let Some((log, note)) = restore.filter(|_| fine) {
            change(|s| s.restore(&log, note));
        }
        platform::publish_timing("open_show_ms", platform::now_ms() - shown);
        platform::publish_timing("open_ms", platform::now_ms() - started);
    }
    with(|e| e.done.push(seq));
    send(None, true, None);
}

/// Where the data files of a model being opened come from: given with it (files
/// from this machine), or fetched from beside its URL.
enum Beside {
    Files(DataSources),
    Url(String),
}

/// The stages of [`load`]; `None` when the load stopped being current. Each stage's
/// time is published (`open_decode_ms`…) for the browser benchmark.
async fn stages(
    ticket: Ticket,
    name: &str,
    origin: Origin,
    files: Result<ModelFile, String>,
    beside: Beside,
) -> Option<Result<OpenModel, String>> {
    fn timed<T>(stage: &str, f: impl FnOnce() -> T) -> T {
        let started = platform::now_ms();
        let out = f();
        platform::publish_timing(&format!("open_{stage}_ms"), platform::now_ms() - started);
        out
    }
    if !stage(ticket, format!("Decoding {name}…")).await {
        return None;
    }
    let (sources, url) = match beside {
        Beside::Files(sources) => (sources, None),
        Beside::Url(url) => (Vec::new(), Some(url)),
    };
    let decoded = timed("decode", || {
        files.and_then(|files| Loading::decode(files, sources, origin))
    });
    let mut loading = match decoded {
        Ok(loading) => loading,
        Err(message) => return Some(Err(message)),
    };
    // A model fetched from the page's origin has its data files beside it there, as
    // on disk: each is read now (one the server does not have is left missing, and
    // the checker says which).
    if let Some(url) = url {
        let base = &url[..url.rfind('/').map_or(0, |k| k + 1)];
        for location in loading.model.external_locations() {
            if !stage(ticket, format!("Reading {location}…")).await {
                return None;
            }
            let read = &mut read_progress(ticket, &location);
            if let Ok(bytes) = platform::fetch_bytes(&format!("{base}{location}"), read).await {
                loading.model.attach_external(location, bytes);
            }
        }
    }
    let nodes = crate::format::count(loading.nodes() as u64);
    if !stage(ticket, format!("Checking {nodes} nodes…")).await {
        return None;
    }
    timed("check", || loading.check());
    if !stage(ticket, format!("Inferring the types of {nodes} nodes…")).await {
        return None;
    }
    timed("infer", || loading.infer());
    if !stage(ticket, format!("Laying out {name}…")).await {
        return None;
    }
    Some(Ok(timed("layout", || loading.lay_out())))
}

/// Shows `what` as the load's progress and yields a turn, so that a Cancel sent
/// meanwhile is taken. False when the load is no longer current.
async fn stage(ticket: Ticket, what: String) -> bool {
    if !change(|s| s.progress(ticket, what)) {
        return false;
    }
    progress();
    platform::next_turn().await;
    with(|e| e.session.is_current(ticket))
}

/// Runs the open model for request `seq` (see [`Request::Run`]): gives the inputs
/// fetched from `given` (and the example's, the first time), loads onnxruntime-web
/// the first time, runs, and answers with the outcome. The page hears that the run
/// started (the Run tab shows it) before the runtime loads.
async fn run_model(
    seq: u64,
    given: Vec<(String, String)>,
    example: Vec<(String, String)>,
    data: bool,
    bridge: String,
    ort: String,
) {
    let example = if with(|e| e.session.wants_example_inputs()) {
        example
    } else {
        Vec::new()
    };
    let mut failed = None;
    for (name, url) in example.into_iter().chain(given) {
        let label = url.rsplit('/').next().unwrap_or(&url).to_string();
        let given = match platform::fetch_bytes(&url, &mut |_, _| true).await {
            Ok(bytes) => change(|s| s.give_run_input(&name, &label, &bytes)),
            Err(e) => Err(format!("{label}: {e}")),
        };
        if let Err(e) = given {
            failed = Some(format!("Input {name}: {e}"));
            break;
        }
    }
    let plan = match failed {
        Some(message) => Err(message),
        None => change(Session::plan_run),
    };
    let outcome = match plan {
        Err(message) => {
            change(|s| s.fail_run(message.clone()));
            RunOutcome::Error(message)
        }
        Ok(plan) => {
            progress();
            let started = platform::now_ms();
            let result = async {
                let runtime = runtime(&bridge, &ort).await?;
                let (ms, outputs) = runtime
                    .run(&plan.key, &plan.model, &plan.inputs, &plan.outputs)
                    .await?;
                Ok((ms, runtime.version.clone(), outputs))
            }
            .await;
            platform::publish_timing("run_engine_ms", platform::now_ms() - started);
            change(|s| s.finish_run(plan, result, data))
        }
    };
    with(|e| e.done.push(seq));
    send(Some((seq, Answer::Run(outcome))), false, None);
}

/// Runs the open model and the one it is compared with on the same inputs, one after
/// the other, and records each pair's largest difference.
async fn run_compare(bridge: &str, ort: &str) {
    let plan = match change(Session::plan_compare) {
        Ok(plan) => plan,
        Err(message) => {
            change(|s| s.fail_run(message));
            return;
        }
    };
    change(Session::start_extra_run);
    progress();
    let result = match run_plan(&plan.current, bridge, ort).await {
        Ok(current) => run_plan(&plan.other, bridge, ort)
            .await
            .map(|other| (current, other)),
        Err(e) => Err(e),
    };
    change(|s| s.finish_compare(plan, result));
}

/// Runs the open model with every node's outputs exposed, and colours the graph by
/// `by`.
async fn colour(by: super::run::Colouring, bridge: &str, ort: &str) {
    let (plan, nodes) = match with(|e| e.session.plan_overlay()) {
        Ok(p) => p,
        Err(message) => {
            change(|s| s.fail_run(message));
            return;
        }
    };
    change(Session::start_extra_run);
    progress();
    let result = run_plan(&plan, bridge, ort).await;
    change(|s| s.finish_overlay(by, plan.stamp, nodes, result));
}

/// What `item` computes on the last run's inputs, each output summed up.
async fn probe(item: ItemId, bridge: &str, ort: &str) -> super::run::ValuesShown {
    let (plan, outputs) = with(|e| e.session.plan_probe(item))?;
    let got = run_plan(&plan, bridge, ort)
        .await
        .map_err(|e| format!("The run failed: {e}"))?;
    Ok(outputs
        .into_iter()
        .map(|(_, name)| {
            let stats = got
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| "onnxruntime gave no value".to_string())
                .and_then(|(_, t)| graft::values::stats(t));
            (name, stats)
        })
        .collect())
}

/// Runs `plan` in onnxruntime-web (loaded the first time); its outputs by name.
async fn run_plan(
    plan: &super::run::RunPlan,
    bridge: &str,
    ort: &str,
) -> Result<super::run::Named, String> {
    let runtime = runtime(bridge, ort).await?;
    let (_, got) = runtime
        .run(&plan.key, &plan.model, &plan.inputs, &plan.outputs)
        .await?;
    Ok(got)
}

/// onnxruntime-web, loaded the first time it is needed.
async fn runtime(bridge: &str, ort: &str) -> Result<std::rc::Rc<platform::Runtime>, String> {
    if let Some(r) = RUNTIME.with(|r| r.borrow().clone()) {
        return Ok(r);
    }
    let loaded = std::rc::Rc::new(platform::Runtime::load(bridge, ort).await?);
    RUNTIME.with(|r| *r.borrow_mut() = Some(loaded.clone()));
    Ok(loaded)
}

/// How often long work tells the page how far it is (ms).
const PROGRESS_MS: f64 = 100.0;

/// Lays out run `run` (request `seq`) in pieces of a work budget each, yielding
/// between them so that a Cancel is taken; the page hears the progress after each
/// piece, and the new picture once it is done.
fn drive(seq: u64, run: Option<u64>) {
    let Some(run) = run else {
        return;
    };
    with(|e| e.deferred = true);
    wasm_bindgen_futures::spawn_local(async move {
        // The page hears the progress at most every PROGRESS_MS: each update repaints
        // its progress bar, and that is the page's own time.
        let mut told = platform::now_ms();
        let finished = loop {
            let deadline = platform::now_ms() + budget_ms();
            let step = with(|e| {
                e.session
                    .work_step(run, &mut || platform::now_ms() >= deadline)
            });
            match step {
                Step::More => {
                    if platform::now_ms() - told >= PROGRESS_MS {
                        progress();
                        told = platform::now_ms();
                    }
                    platform::next_turn().await;
                }
                Step::Finished => break true,
                Step::Gone => break false,
            }
        };
        with(|e| {
            e.carry();
            if finished {
                e.done.push(seq);
            }
        });
        send(None, false, None);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::tests::{example_file, open};

    /// The update as the page reads it: its JSON read back.
    fn read_back(update: &Update) -> Update {
        let json = serde_json::to_string(update).expect("serializes");
        serde_json::from_str(&json).expect("reads back")
    }

    fn engine_with(example: &str) -> Engine {
        let mut e = Engine::default();
        open(&mut e.session, vec![example_file(example)]);
        e
    }

    #[test]
    fn the_first_update_carries_every_part_and_reads_back_equal() {
        let mut e = engine_with("functions_and_control_flow.onnx");
        let (update, drawings) = e.update(None, true);
        let page = read_back(&update);
        let doc = page.document.as_ref().expect("the document");
        assert_eq!(doc.name.as_deref(), Some("functions_and_control_flow.onnx"));
        assert_eq!(
            doc.summary.as_ref(),
            e.session.open().map(|o| &**o.summary())
        );
        assert_eq!(doc.library, e.session.function_library());
        assert_eq!(doc.problems, e.session.problems());
        assert!(!page.palette.expect("the palette").is_empty());
        assert_eq!(page.scene.expect("the scene").size, e.session.graph_size());
        // No region asked for yet: nothing is drawn.
        assert_eq!(drawings, [None, None]);
        assert_eq!(page.drawn, None);
    }

    #[test]
    fn only_what_changed_is_sent_again() {
        let mut e = engine_with("functions_and_control_flow.onnx");
        let _ = e.update(None, true);
        let (again, _) = e.update(None, true);
        assert!(again.document.is_none() && again.scene.is_none() && again.messages.is_none());
        assert!(
            again.run.is_none(),
            "the Run tab is not sent again unchanged"
        );
        e.session.set_run_seed(7);
        let (seeded, _) = e.update(None, false);
        assert_eq!(seeded.run.flatten().map(|r| r.seed), Some(7));
        e.viewport = Some(Viewport {
            x: -100.0,
            y: -100.0,
            w: 5000.0,
            h: 5000.0,
            detail: Detail::Full,
            opened: e.session.opened(),
        });
        let (drawn, [svg, other]) = e.update(None, false);
        assert_eq!(drawn.drawn, Some(e.session.opened()));
        assert!(svg.expect("the drawing").contains("act1"));
        assert_eq!(other.as_deref(), Some(""));
        let (same, drawings) = e.update(None, false);
        assert_eq!(
            drawings,
            [None, None],
            "an unchanged drawing is not sent again"
        );
        assert_eq!(same.drawn, None);
    }

    #[test]
    fn the_selection_and_its_properties_follow_an_edit() {
        let mut e = engine_with("mlp.onnx");
        let scene = e
            .session
            .open()
            .and_then(|o| o.scene.as_ref())
            .expect("scene");
        let item = (0..scene.view.items.len() as ItemId)
            .find(|&i| {
                matches!(
                    scene.view.item(i).map(|it| &it.kind),
                    Some(ItemKind::Node { .. })
                )
            })
            .expect("a node");
        e.selection = vec![item];
        e.selection_of = e.session.open().map_or(0, |o| o.serial());
        let (first, _) = e.update(None, false);
        let props = read_back(&first).properties.flatten().expect("properties");
        let node = props.editor.as_ref().expect("a node editor").node;
        assert!(e.session.rename_node(node, "renamed_here"));
        e.carry();
        let (after, _) = e.update(None, true);
        let page = read_back(&after);
        let selection = page.selection.expect("the selection, carried");
        assert_eq!(selection.nodes, 1);
        assert_eq!(selection.serial, e.session.open().map_or(0, |o| o.serial()));
        let props = page.properties.flatten().expect("its properties");
        assert_eq!(props.name, "renamed_here");
        assert!(page.document.expect("the document").can_undo);
    }

    #[test]
    fn static_labels_read_back_as_the_same_strings() {
        let mut e = engine_with("live_specialization.onnx");
        let (update, _) = e.update(None, true);
        let page = read_back(&update);
        let codes: Vec<&str> = page
            .document
            .and_then(|d| d.summary)
            .map(|s| s.diagnostics.iter().map(|d| d.code).collect())
            .unwrap_or_default();
        let expected: Vec<&str> = e
            .session
            .open()
            .map(|o| o.summary().diagnostics.iter().map(|d| d.code).collect())
            .unwrap_or_default();
        assert_eq!(codes, expected);
        let request = Envelope {
            seq: 7,
            budget: Some(0.0),
            serial: 3,
            request: Request::SetCallAttribute(
                serde_json::from_str("3").expect("a node id"),
                "mode".into(),
                "1".into(),
            ),
        };
        let json = serde_json::to_string(&request).expect("serializes");
        let back: Envelope = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back.request, request.request);
    }

    #[test]
    fn a_part_changed_to_nothing_reads_back_as_changed() {
        let update = Update {
            properties: Some(None),
            work: Some(None),
            ..Update::default()
        };
        let page = read_back(&update);
        assert_eq!(page.properties, Some(None));
        assert_eq!(page.work, Some(None));
        assert_eq!(page.draft, None, "an absent part stays unchanged");
    }

    /// Every request that names nodes, values or functions by id, with these.
    fn requests_by_id(node: NodeId, value: graft::ir::ValueId) -> Vec<Request> {
        vec![
            Request::SetCallAttribute(node, "alpha".into(), "1".into()),
            Request::SpecializeCall(node, "alpha = 0.5".into()),
            Request::RenameNode(node, "stale_rename".into()),
            Request::SetAttribute(node, "alpha = 1.0".into()),
            Request::RemoveAttribute(node, "alpha".into()),
            Request::Connect(node, 0, "x".into()),
            Request::RenameOutput(node, 0, "y".into()),
            Request::AddAfter(node, "Relu".into()),
            Request::RenameValue(value, "z".into()),
            Request::SetValueType(value, "float[1]".into()),
            Request::RemoveTerminal(value, true),
            Request::AddGraphOutput(node, 0),
            Request::SetInitializer(value),
            Request::AddGraphInput(value, "q".into(), "float[1]".into()),
            Request::ApplyText(Some(0), String::new()),
            Request::ExpandStandard(node),
            Request::UseOverload(node, String::new()),
            Request::LibraryInlineAll(0),
            Request::LibrarySpecializeAll(0),
            Request::LibraryKeep(0, true),
            Request::LibraryDelete(0),
            Request::LibraryRename(0, "a.b".into()),
        ]
    }

    /// Each request by id made on the state `made_on` is refused before any handler
    /// runs, said in the banner, and a read of ids gets an empty answer.
    fn assert_refused(e: &mut Engine, made_on: u64, node: NodeId, value: graft::ir::ValueId) {
        for request in requests_by_id(node, value) {
            assert_eq!(request.names(), Names::EditIds, "{request:?}");
            assert!(e.current(made_on, request.clone()).is_err(), "{request:?}");
            assert_eq!(e.session.error(), Some(STALE), "{request:?}");
            e.session.dismiss_error();
        }
        let reads = [
            (
                Request::CheckCallAttribute(node, "alpha".into(), "1".into()),
                Answer::Problem(None),
            ),
            (Request::CallSites(0), Answer::Hits(Vec::new())),
            (Request::Text(Some(0)), Answer::Text(None)),
        ];
        for (request, answer) in reads {
            assert_eq!(e.current(made_on, request), Err(Some(answer)));
            assert_eq!(e.session.error(), None, "a read says nothing");
        }
    }

    #[test]
    fn requests_from_before_an_undone_replacement_are_refused_and_the_selection_dropped() {
        let mut e = engine_with("mlp.onnx");
        let original = graft::text::print_model(e.session.open().unwrap().model());
        let text = crate::state::tests::mlp_with_relu2(&e.session);
        assert!(e.session.apply_text(None, &text));
        e.carry();
        let applied = e.session.open().unwrap().serial();
        let item = crate::state::tests::item_of(&e.session, "layer1/Relu2");
        let gemm = crate::state::tests::item_of(&e.session, "layer2/Gemm");
        e.selection = vec![gemm, item];
        e.selection_of = applied;
        let relu2 = e.session.selected_nodes(&[item])[0];
        let out2 = e.session.open().unwrap().model().node(relu2).outputs[0].unwrap();

        assert!(e.session.undo());
        e.carry();
        // The selection follows the nodes by what they show: layer2/Gemm stays
        // selected under its old id, layer1/Relu2 is gone (and not replaced by the
        // node that now has its id).
        let named = |e: &Engine| {
            let nodes = e.session.selected_nodes(&e.selection);
            let model = e.session.open().unwrap().model();
            nodes
                .iter()
                .map(|&n| model.node(n).name().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(named(&e), ["layer2/Gemm"]);
        let model = e.session.open().unwrap().model();
        assert_eq!(
            model.live_node(relu2).map(|n| n.name()),
            Some("layer2/Gemm"),
            "the old id names another node now: only the state it was made on tells"
        );
        // Selected alone and undone, it is gone: nothing is selected, the editor
        // closes in the same update.
        assert!(e.session.redo());
        e.carry();
        let item = crate::state::tests::item_of(&e.session, "layer1/Relu2");
        e.selection = vec![item];
        e.selection_of = e.session.open().unwrap().serial();
        let (update, _) = e.update(None, true);
        assert!(read_back(&update).properties.flatten().is_some());
        let applied = e.session.open().unwrap().serial();
        assert!(e.session.undo());
        e.carry();
        assert!(e.selection.is_empty(), "{:?}", e.selection);
        let (update, _) = e.update(None, true);
        assert_eq!(read_back(&update).properties, Some(None));
        assert_refused(&mut e, applied, relu2, out2);
        assert_eq!(
            graft::text::print_model(e.session.open().unwrap().model()),
            original
        );
        assert!(e.session.can_redo(), "the redo is kept");
        // Made on the state the page now has, the same request goes through.
        let now = e.session.open().unwrap().serial();
        let rename = Request::RenameNode(relu2, "renamed".into());
        assert_eq!(e.current(now, rename.clone()), Ok(rename));
    }

    #[test]
    fn requests_from_before_an_undone_inline_are_refused() {
        let mut e = engine_with("mlp.onnx");
        e.session
            .begin_inline(vec![example_file("mlp.onnx")])
            .unwrap();
        e.session.apply_inline().unwrap();
        e.carry();
        let inlined = e.session.open().unwrap().serial();
        let item = crate::state::tests::item_of(&e.session, "mlp/layer1/Relu");
        e.selection = vec![item];
        e.selection_of = inlined;
        let node = e.session.selected_nodes(&e.selection)[0];
        let value = e.session.open().unwrap().model().node(node).outputs[0].unwrap();
        // A request made on the inlined model, before the undo, still applies to it.
        let expand = Request::ExpandStandard(node);
        assert_eq!(e.current(inlined, expand.clone()), Ok(expand));

        assert!(e.session.undo());
        e.carry();
        assert!(
            e.selection.is_empty(),
            "the selected node went with the undo"
        );
        assert_refused(&mut e, inlined, node, value);
        // The view's items of the inlined state are carried through the undo, or
        // dropped: a toggle of one that is gone does nothing.
        assert_eq!(e.current(inlined, Request::Toggle(item)), Err(None));
    }

    /// The page's copy of the edit log, kept by the changes each update carries,
    /// is the engine's log after edits, undo, a new edit (the undone one replaced)
    /// and another open; an unchanged log is not sent again.
    #[test]
    fn the_page_keeps_the_edit_log_from_its_changes_alone() {
        let mut e = engine_with("mlp.onnx");
        let mut copy: Vec<String> = Vec::new();
        let mut follow = |e: &mut Engine| {
            let (update, _) = e.update(None, true);
            let sent = read_back(&update).log;
            if let Some(change) = &sent {
                copy.truncate(change.keep);
                copy.extend(change.add.iter().cloned());
            }
            assert_eq!(copy, e.session.log_from(0));
            sent
        };
        let nodes: Vec<NodeId> = {
            let m = e.session.open().unwrap().model();
            m.graph(m.graph.unwrap()).nodes.clone()
        };
        follow(&mut e);
        assert!(e.session.rename_node(nodes[0], "a"));
        assert_eq!(follow(&mut e).map(|c| (c.keep, c.add.len())), Some((0, 1)));
        assert!(e.session.rename_node(nodes[1], "b"));
        assert_eq!(follow(&mut e).map(|c| (c.keep, c.add.len())), Some((1, 1)));
        assert_eq!(follow(&mut e), None, "nothing new: nothing sent");
        assert!(e.session.undo());
        assert_eq!(follow(&mut e).map(|c| (c.keep, c.add.len())), Some((1, 0)));
        assert!(e.session.rename_node(nodes[2], "c"));
        assert_eq!(follow(&mut e).map(|c| (c.keep, c.add.len())), Some((1, 1)));
        open(&mut e.session, vec![example_file("mlp.onnx")]);
        assert_eq!(follow(&mut e).map(|c| (c.keep, c.add.len())), Some((0, 0)));
    }

    /// A seeded generator, so a failure replays by seed.
    struct Dice(fastrand::Rng);

    impl Dice {
        fn below(&mut self, n: usize) -> usize {
            self.0.usize(..n.max(1))
        }
    }

    /// The engine's property under undo, redo, inlines and replacements: requests by
    /// node id made on any earlier state of the model, sent in any order, never
    /// panic, never name another node than the one they were made on (an accepted
    /// request's node has the op it had then), and never leave the model worse by
    /// the checker; undoing everything gives back the model as opened.
    #[test]
    fn stale_requests_in_any_order_never_name_another_node() {
        for seed in 1..=12u64 {
            let mut dice = Dice(fastrand::Rng::with_seed(seed));
            let mut e = engine_with("mlp.onnx");
            let opened = graft::text::print_model(e.session.open().unwrap().model());
            let errors = |e: &Engine| {
                let open = e.session.open().unwrap();
                let checked = open.doc.checked().diagnostics().iter();
                checked
                    .filter(|d| d.severity == graft::Severity::Error)
                    .count()
            };
            let at_open = errors(&e);
            // Every state seen: its serial and the op of each node id live in it.
            let mut states: Vec<(u64, Vec<(NodeId, String)>)> = Vec::new();
            let snapshot = |e: &Engine| {
                let open = e.session.open().unwrap();
                let m = open.doc.model();
                let ops = m
                    .nodes
                    .iter()
                    .filter(|(n, _)| m.live_node(*n).is_some())
                    .map(|(n, node)| (n, node.op_type().to_string()))
                    .collect();
                (open.serial(), ops)
            };
            states.push(snapshot(&e));
            for step in 0..40 {
                let what = format!("seed {seed}, step {step}");
                match dice.below(9) {
                    0 => {
                        e.session.undo();
                    }
                    1 => {
                        e.session.redo();
                    }
                    2 => {
                        let text = graft::text::print_model(e.session.open().unwrap().model());
                        let relu = r#"["layer1/Relu"] "layer1.out" = Relu("layer1.linear")"#;
                        if text.contains(relu) && !text.contains("layer1.out2") {
                            let text = crate::state::tests::mlp_with_relu2(&e.session);
                            e.session.apply_text(None, &text);
                        }
                    }
                    3 => {
                        if e.session.open().unwrap().model().nodes.len() < 40 {
                            let _ = e.session.begin_inline(vec![example_file("mlp.onnx")]);
                            let _ = e.session.apply_inline();
                            e.session.cancel_inline();
                        }
                    }
                    _ => {
                        // A request by id from some state seen, maybe long gone.
                        let (made_on, ops) = &states[dice.below(states.len())];
                        let Some((node, op)) = ops.get(dice.below(ops.len())).cloned() else {
                            continue;
                        };
                        let request = match dice.below(4) {
                            0 => Request::RenameNode(node, format!("r{step}")),
                            1 => Request::ExpandStandard(node),
                            2 => Request::SetAttribute(node, "alpha = 0.5".into()),
                            _ => Request::AddAfter(node, "Relu".into()),
                        };
                        e.session.dismiss_error();
                        let Ok(request) = e.current(*made_on, request) else {
                            continue;
                        };
                        let now = e.session.open().unwrap().model().live_node(node);
                        let now = now.map(|n| n.op_type().to_string());
                        let applied = match request {
                            Request::RenameNode(n, to) => e.session.rename_node(n, &to),
                            Request::ExpandStandard(n) => e.session.expand_standard(n),
                            Request::SetAttribute(n, t) => e.session.set_attribute(n, &t),
                            Request::AddAfter(n, op) => e.session.add_after(n, &op),
                            other => unreachable!("{other:?}"),
                        };
                        if applied {
                            assert_eq!(now.as_deref(), Some(op.as_str()), "{what}: {node:?}");
                        }
                    }
                }
                e.carry();
                assert!(errors(&e) <= at_open, "{what}: the model got worse");
                let state = snapshot(&e);
                if states.last().map(|s| s.0) != Some(state.0) {
                    states.push(state);
                }
            }
            while e.session.undo() {}
            assert_eq!(
                graft::text::print_model(e.session.open().unwrap().model()),
                opened,
                "seed {seed}: undoing everything"
            );
        }
    }
}
