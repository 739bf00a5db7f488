//! The session natively: opening, editing, undo, problems, the inline dialog.

use super::*;

mod compare;
mod edits;
mod page;
mod run;
use graft::view::panel::call_editor;

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
        let model = &session.open().expect("open").model();
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
    let model = session.open().unwrap().model();
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
    session.apply_text(None, fixed).unwrap();
    assert_eq!(stray(&session), 0);
    // Text that does not parse is refused typed, at its line and column, for the
    // text pane; the model and the banner are as they were.
    let before = session.edit_log();
    let refused = session
        .apply_text(None, &fixed.replace("Neg(a)", "Neg(a"))
        .unwrap_err();
    let field = refused.edit_error().map(|e| e.field.clone());
    assert!(
        matches!(field, Some(graft::edit::Field::Text { line: 5, .. })),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("line 5, column"), "{refused}");
    assert_eq!(session.edit_log(), before);
    assert_eq!(session.error(), None);
    // A function that is gone is said so.
    let gone = session
        .apply_text(Some(9), "f (x) => (y) { y = Neg(x) }")
        .unwrap_err();
    assert!(
        gone.to_string().contains("no longer in the model"),
        "{gone}"
    );
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
    let text = |s: &Session| graft::text::print_model(s.open().unwrap().model());
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
        .summary()
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
        let m = s.open().unwrap().model();
        graft::specialize::find_node(m, "act1").expect("the call act1")
    };
    let node = find(&session);
    let editor = call_editor(session.open().unwrap().model(), node).expect("a call");
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
    let before = graft::text::print_model(session.open().unwrap().model());

    assert!(
        !session.specialize_call(node, "alpha = "),
        "a bad value is refused"
    );
    assert!(session.error().is_some());
    // The call editor's field: a value of the wrong type, in the user's terms, at
    // that attribute.
    assert!(!session.set_call_attribute(node, "alpha", "abc"));
    let error = session.field_error(Target::Node(node), &Slot::CallAttribute("alpha".into()));
    let error = error.unwrap_or_default();
    assert!(
        error.contains("alpha expects a float; `abc` is not one"),
        "{error}"
    );
    assert_eq!(
        graft::text::print_model(session.open().unwrap().model()),
        before
    );
    assert!(session.specialize_call(node, "alpha = 0.2"));
    let model = session.open().unwrap().model();
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
    let model = session.open().unwrap().model();
    assert_eq!(model.node(other).overload(), "alpha_0p2");
    let errors = graft::check::check(model)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    assert_eq!(errors, 0);
    assert!(session.undo(), "undo the overload choice");
    assert!(session.undo(), "undo the specialization");
    assert_eq!(
        graft::text::print_model(session.open().unwrap().model()),
        before
    );
}

/// The first built item showing the node named `name`.
pub(super) fn item_of(session: &Session, name: &str) -> ItemId {
    let open = session.open().expect("a model");
    let view = &open.scene.as_ref().expect("a scene").view;
    let found = view.items.iter().position(
        |i| matches!(i.kind, ItemKind::Node { node, .. } if open.doc.model().node(node).name() == name),
    );
    ItemId::try_from(found.unwrap_or_else(|| panic!("no item for {name}"))).unwrap()
}

fn serial(session: &Session) -> u64 {
    session.open().map_or(0, |o| o.serial())
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
fn a_cancelled_load_leaves_the_open_model_as_it_was() {
    let mut session = Session::default();
    open(&mut session, vec![example_file("mlp.onnx")]);
    let serial = session.open().map(|o| o.serial());
    let ticket = session.begin("Opening silero_vad.onnx…");
    assert!(session.progress(ticket, "Decoding silero_vad.onnx…".into()));
    let mut loading = Loading::decode(
        ModelFile::Read(vec![example_file("silero_vad.onnx")]),
        Vec::new(),
        Origin::Files,
    )
    .expect("silero_vad decodes");
    loading.check();
    session.cancel_open();
    assert_eq!(session.pending(), None);
    assert!(
        !session.progress(ticket, "Inferring…".into()),
        "a cancelled load hears that it is no longer current"
    );
    loading.infer();
    session.finish_open(ticket, Ok(loading.lay_out()));
    let open = session.open().expect("the model stays open");
    assert_eq!(
        (open.name.as_str(), Some(open.serial())),
        ("mlp.onnx", serial)
    );
    assert_eq!(session.error(), None);
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
            .summary()
            .diagnostics
            .iter()
            .any(|d| d.code == "app.unused-file" && d.message.contains("weights.bin")),
        "{:?}",
        open_model.summary().diagnostics
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

/// A session that opened `files` with the data files `sources`, stage by stage as the
/// app's engine does.
fn open_staged(files: ModelFile, sources: DataSources) -> Session {
    let mut session = Session::default();
    let ticket = session.begin("test");
    let opened = Loading::decode(files, sources, Origin::Files).map(|mut loading| {
        loading.check();
        loading.infer();
        loading.lay_out()
    });
    session.finish_open(ticket, opened);
    session
}

/// A data file read a range at a time, counting the bytes read.
struct Ranges {
    file: Vec<u8>,
    read: std::cell::Cell<u64>,
}

impl graft::external::ReadRange for Ranges {
    fn len(&self) -> u64 {
        self.file.len() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<bytes::Bytes, String> {
        self.read.set(self.read.get() + (end - start));
        Ok(bytes::Bytes::copy_from_slice(
            &self.file[start as usize..end as usize],
        ))
    }
}

#[test]
fn a_data_file_opened_with_its_model_is_read_only_when_an_export_needs_it() {
    let model = text_file(
        "weights.onnx",
        r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) <float[4] w = ["location": "w.bin", "offset": "8", "length": "16"]> {
  y = Mul(x, w)
}"#,
    );
    let mut file = vec![0u8; 8];
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    file.extend_from_slice(&[7; 4096]);
    let source = std::rc::Rc::new(Ranges {
        file,
        read: std::cell::Cell::new(0),
    });
    let session = open_staged(
        ModelFile::Read(vec![model]),
        vec![("w.bin".into(), source.clone())],
    );
    let open = session.open().expect("opened");
    assert_eq!(open.summary().external_files, [("w.bin".to_string(), true)]);
    assert!(session.problems().iter().all(|p| !p.error));
    assert_eq!(source.read.get(), 0, "opening reads none of the data file");
    let (_, bytes) = session.export().expect("exports");
    assert_eq!(source.read.get(), 16, "the export reads the tensor's bytes");
    let exported = graft::import(bytes::Bytes::from(bytes))
        .expect("imports")
        .model;
    assert!(exported.external_locations().is_empty());
}

#[test]
fn a_chosen_model_is_opened_without_reading_its_weights() {
    let mut model = graft::text::parse_model(
        r#"<ir_version: 10, opset_import: ["": 18]>
main (float[N, 1024] x) => (float[N, 2048] y) <float[1024, 2048] w = {0.0}> {
  y = MatMul(x, w)
}"#,
    )
    .expect("parses")
    .model;
    // 8 MB: jumped over, not read through (the first read is a megabyte).
    let weights: Vec<u8> = (0..1024 * 2048)
        .flat_map(|i| (i as f32 / 1000.0).to_le_bytes())
        .collect();
    let graph = model.graph.unwrap();
    model.graphs[graph].initializers[0].tensor.raw_data = Some(weights.into());
    let file = LoadedFile {
        name: "weights.onnx".into(),
        bytes: graft::export(&model, &graft::ExportOptions::default())
            .unwrap()
            .into(),
    };
    let source = std::rc::Rc::new(Ranges {
        file: file.bytes.to_vec(),
        read: std::cell::Cell::new(0),
    });
    let session = open_staged(
        ModelFile::Source(file.name.clone(), source.clone()),
        Vec::new(),
    );
    assert!(session.problems().iter().all(|p| !p.error));
    let read = source.read.get();
    assert!(
        read * 4 < file.bytes.len() as u64,
        "opening read {read} of {} bytes",
        file.bytes.len()
    );
    // The export reads them back: the same bytes as the model read whole exports.
    let (_, bytes) = session.export().expect("exports");
    let whole = graft::import(file.bytes.clone()).expect("imports").model;
    let expected = graft::export(&whole, &graft::ExportOptions::default()).unwrap();
    assert!(bytes == expected, "the export differs");
}

/// The MLP example's text with a node `layer1/Relu2` added after `layer1/Relu`: applied
/// as text, it replaces the model, and its ids are those of a new model.
pub(super) fn mlp_with_relu2(session: &Session) -> String {
    let text = graft::text::print_model(session.open().expect("a model").model());
    let relu = r#"["layer1/Relu"] "layer1.out" = Relu("layer1.linear")"#;
    assert!(text.contains(relu), "the MLP example changed");
    text.replace(
        relu,
        &format!("{relu}\n   [\"layer1/Relu2\"] \"layer1.out2\" = Relu(\"layer1.out\")"),
    )
}

/// Every handler that takes a node or value id, given one from before an undone
/// inline (whose undo cut the arenas back): none panics, none changes the model or
/// the history, and each says the node or value is no longer in the model. (Ids from
/// before an undone replacement may name another node that is live; the engine
/// refuses those by the model state the request names: see `engine::tests`; the
/// node and terminal editors' edits name nodes by address and are refused when made
/// on any other state than the open one.)
#[test]
fn ids_from_before_an_undone_inline_are_refused_by_every_handler() {
    let mut s = Session::default();
    open(&mut s, vec![example_file("mlp.onnx")]);
    let host = graft::text::print_model(s.open().unwrap().model());
    s.begin_inline(vec![example_file("mlp.onnx")]).unwrap();
    s.apply_inline().unwrap();
    let model = s.open().unwrap().model();
    let (node, value) = (
        model.nodes.iter().last().unwrap().0,
        model.values.iter().last().unwrap().0,
    );
    let (nodes, values) = (model.nodes.len(), model.values.len());
    assert!(s.undo());
    let model = s.open().unwrap().model();
    assert!(model.nodes.len() < nodes && model.values.len() < values);
    assert!(model.live_node(node).is_none() && model.live_value(value).is_none());

    type Handler = Box<dyn Fn(&mut Session) -> bool>;
    let handlers: Vec<(&str, Handler)> = vec![
        (
            "delete_nodes",
            Box::new(move |s| s.delete_nodes(&[node], true)),
        ),
        (
            "set_initializer",
            Box::new(move |s| s.set_initializer(value, b"not npy")),
        ),
    ];
    for (what, handler) in handlers {
        assert!(!handler(&mut s), "{what}: refused");
        assert_eq!(
            graft::text::print_model(s.open().unwrap().model()),
            host,
            "{what}: the model is unchanged"
        );
        assert!(s.history().0.is_empty(), "{what}: nothing in the history");
        let said = s
            .error()
            .map(str::to_string)
            .or_else(|| s.field_error.as_ref().map(|f| f.message.clone()))
            .unwrap_or_default();
        assert!(
            said.contains("no longer in the model") || said.contains("is not in the model"),
            "{what}: {said:?}"
        );
        s.dismiss_error();
        s.field_error = None;
    }
    // A check of a value for the stale call does not panic: it says the node is gone.
    let said = s.check_call_attribute(node, "alpha", "1").unwrap_err();
    assert!(said.contains("no longer in the model"), "{said}");
    // Redo brings the inlined model back, and the id names its node again.
    assert!(s.redo());
    assert!(s.open().unwrap().model().live_node(node).is_some());
}

/// A restarted engine gets its session back: the edit log of one session, applied
/// to the same model freshly opened, gives the same model and history, each edit
/// undoable; a log the model refuses part way keeps the edits before and says so.
#[test]
fn the_kept_edit_log_restores_the_session_on_the_model_opened_again() {
    let mut s = Session::default();
    open(&mut s, vec![example_file("mlp.onnx")]);
    let softmax = s.open().unwrap().model().nodes.iter().last().unwrap().0;
    assert!(s.rename_node(softmax, "renamed"));
    s.apply_text(None, &mlp_with_relu2(&s)).unwrap();
    s.begin_inline(vec![example_file("mlp.onnx")]).unwrap();
    s.apply_inline().unwrap();
    let edited = graft::text::print_model(s.open().unwrap().model());
    let log = s.edit_log();

    let mut again = Session::default();
    open(&mut again, vec![example_file("mlp.onnx")]);
    again.restore(&log, "restarted".into());
    assert_eq!(
        graft::text::print_model(again.open().unwrap().model()),
        edited
    );
    assert_eq!(again.history(), s.history());
    assert_eq!(again.error(), Some("restarted"));
    assert!(again.undo() && again.undo() && again.undo() && !again.can_undo());

    // A log whose second edit names a node the model does not have: the first is
    // kept, the banner says where it stopped.
    let mut other = Session::default();
    open(&mut other, vec![example_file("mlp.onnx")]);
    let refused = r#"[{"edit":"rename_node","graph":"main","node":5,"to":"renamed"},
                      {"edit":"rename_node","graph":"main","node":99,"to":"gone"}]"#;
    other.restore(refused, "restarted".into());
    let said = other.error().unwrap_or_default().to_string();
    assert!(said.starts_with("Only 1 of the 2 kept edits"), "{said}");
    assert_eq!(other.history().0.len(), 1);
    other.restore("not a log", "restarted".into());
    assert!(other.error().unwrap_or_default().contains("do not read"));
}

/// A value crossing module boundaries has a terminal at each; search lists it once,
/// with its other places.
#[test]
fn search_lists_a_value_once_with_its_other_places() {
    let mut session = Session::default();
    open(&mut session, vec![example_file("torch_transformer.onnx")]);
    let hits = session.search("x");
    let x: Vec<_> = hits.iter().filter(|h| h.title == "x").collect();
    assert_eq!(x.len(), 1, "{hits:#?}");
    assert_eq!(x[0].also.len(), 3, "{hits:#?}");
}
