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

mod loading;
mod runs;
#[cfg(test)]
mod tests;
mod update;

use loading::*;
use runs::*;

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
        Request::Edit { edit: e, at } => {
            // Its synchronous part: the model edited, checked, its view built and laid out.
            let started = platform::now_ms();
            change(|s| s.apply_edit(e, at));
            platform::publish_timing("edit_sync_ms", platform::now_ms() - started);
            None
        }
        Request::DeleteSelected(reconnect) => {
            let nodes = with(|e| e.session.selected_nodes(&e.selection));
            if !nodes.is_empty() {
                change(|s| s.delete_nodes(&nodes, reconnect));
            }
            None
        }
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
            Some(Answer::Applied(change(|s| s.apply_text(function, &text))))
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
        Request::LibraryKeep(i, keep) => {
            change(|s| s.library_keep(i, keep));
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
