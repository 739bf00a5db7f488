//! The session natively: opening, editing, undo, problems, the inline dialog.

use super::*;
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
fn outline_makes_the_selection_a_function_and_selects_its_call() {
    let mut session = Session::default();
    open(
        &mut session,
        vec![example_file("functions_and_control_flow.onnx")],
    );
    let text = |s: &Session| graft::text::print_model(s.open().unwrap().model());
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
    let model = session.open().unwrap().model();
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
    let text = |s: &Session| graft::text::print_model(s.open().unwrap().model());
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
    let text = |s: &Session| graft::text::print_model(s.open().unwrap().model());
    let mut session = Session::default();
    open(
        &mut session,
        vec![example_file("functions_and_control_flow.onnx")],
    );
    let before = text(&session);
    let model = session.open().unwrap().model();
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
        .model()
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
    let text = |s: &Session| graft::text::print_model(s.open().unwrap().model());
    let mut session = Session::default();
    open(&mut session, vec![example_file("mlp.onnx")]);
    let before = text(&session);
    let model = session.open().unwrap().model();
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
    let extra = session.open().unwrap().model().graph(main).inputs[1]
        .value
        .unwrap();
    assert!(session.remove_graph_input(extra));
    assert!(!session.remove_graph_input(x), "x is read");
    assert!(session.add_graph_output(relu, 0));
    let outputs = session.open().unwrap().model().graph(main).outputs.len();
    assert_eq!(outputs, 2);
    let added = session.open().unwrap().model().graph(main).outputs[1]
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
    let before = graft::text::print_model(session.open().unwrap().model());
    // One node of the main graph, one of the function body the call shows.
    let items = [item_of(&session, "fc1/Add"), item_of(&session, "scale")];
    assert!(!session.outline(&items, "my.Mixed"));
    let error = session.error().unwrap_or_default();
    assert!(error.contains("not all in one graph"), "{error}");
    assert_eq!(
        graft::text::print_model(session.open().unwrap().model()),
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
    let node = graft::specialize::find_node(session.open().unwrap().model(), "act1").unwrap();
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
    let node = graft::specialize::find_node(session.open().unwrap().model(), "tower").unwrap();
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
            call_editor(open.doc.model(), node).expect("the generic stays: tower_default calls it");
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

#[test]
fn compare_with_the_model_as_opened_shows_what_a_specialization_folded() {
    let mut session = Session::default();
    open(&mut session, vec![example_file("live_specialization.onnx")]);
    let node = graft::specialize::find_node(session.open().unwrap().model(), "tower").unwrap();
    assert!(
        session.specialize_call(node, "mode = 1"),
        "{:?}",
        session.error()
    );
    let printed = graft::text::print_model(session.open().unwrap().model());
    assert!(session.compare_with_step(0));
    // Going back to the step and forth again leaves the model as it was.
    assert_eq!(
        graft::text::print_model(session.open().unwrap().model()),
        printed
    );
    assert!(session.can_undo());

    let shown = session.comparison().expect("a comparison");
    assert!(!shown.same, "{}", shown.summary);
    let texts: Vec<String> = shown
        .rows
        .iter()
        .map(|r| format!("{} {}", r.sign, r.text))
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("+ function ") && t.contains("(compared with ")),
        "{texts:#?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("~ \"tower\" (Tower) overload")),
        "{texts:#?}"
    );
    let folded = shown
        .rows
        .iter()
        .filter(|r| r.sign == "-" && r.text.ends_with("(If)"))
        .count();
    assert!(folded > 0, "the folded Ifs are listed: {texts:#?}");

    // The call is marked on the canvas, and a folded node's row jumps to a call.
    let tower = item_of(&session, "tower");
    let row = shown
        .rows
        .iter()
        .position(|r| r.sign == "-" && r.text.ends_with("(If)"))
        .unwrap();
    assert!(session.compare_item(row).is_some());
    let open = session.open().unwrap();
    let scene = open.scene.as_ref().unwrap();
    let item = scene.view.item(tower).unwrap();
    let mark = session.compare_mark(item).expect("the call is marked");
    assert_eq!(mark.class, "g-changed");
    // Collapsed, it says how much changed in its body.
    let note = mark.note.expect("a note");
    assert!(note.ends_with(" changed inside"), "{note}");

    // Side by side: the model as opened is drawn beside; opening its call shows the
    // folded nodes ghosted, and the open model's selection is highlighted there.
    assert!(session.set_side_by_side(true));
    let everything = Rect {
        x: -1e6,
        y: -1e6,
        w: 2e6,
        h: 2e6,
    };
    let svg = session.other_svg(everything, Detail::Full, &[]);
    let before_name = svg.split("data-name=\"tower\"").next().unwrap();
    let id: ItemId = before_name
        .rsplit("data-item=\"")
        .next()
        .and_then(|rest| rest.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("the other model's tower is drawn");
    assert_eq!(session.matched_in_open(id), Some(tower));
    assert!(session.toggle_other(id));
    let expanded = |s: &Session, item: ItemId| {
        let scene = s.open().unwrap().scene.as_ref().unwrap();
        scene.view.item(item).unwrap().expanded
    };
    assert!(
        expanded(&session, tower),
        "the matched call opens on the open model's side too"
    );
    let svg = session.other_svg(everything, Detail::Full, &[tower]);
    assert!(
        svg.matches("g-removed").count() >= 15,
        "the folded Constants, Equal and Ifs"
    );
    assert!(svg.contains("g-hit"), "the counterpart of the selection");
    // Closing it on the open model's side closes it beside.
    assert!(session.toggle(tower));
    assert!(!expanded(&session, tower));
    let svg = session.other_svg(everything, Detail::Full, &[tower]);
    assert_eq!(
        svg.matches("g-removed").count(),
        0,
        "the body is closed beside"
    );
    assert!(session.toggle(tower));

    // Undo: the diff is made again, and the models are the same.
    assert!(session.undo());
    session.refresh_compare();
    assert!(session.comparison().unwrap().same);
    assert!(
        session.side_by_side(),
        "the other drawing stays across the edit"
    );
    session.close_compare();
    assert!(session.comparison().is_none());
    assert!(!session.side_by_side());
}

#[test]
fn compare_with_a_file_and_a_bad_file_changes_nothing() {
    let mut session = Session::default();
    let base = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) {
  [a] t = Relu(x)
  [b] y = Neg(t)
}"#;
    open(&mut session, vec![text_file("base.onnx", base)]);
    let other = base.replace("[b] y = Neg(t)", "[b] y = Neg(t)\n  [c] z = Abs(t)");
    let other = other.replace("=> (float[4] y)", "=> (float[4] y, float[4] z)");
    session
        .compare_with_files(ModelFile::Read(vec![text_file("other.onnx", &other)]))
        .expect("compares");
    let shown = session.comparison().expect("a comparison");
    assert_eq!(shown.label, "other.onnx");
    let texts: Vec<String> = shown
        .rows
        .iter()
        .map(|r| format!("{} {}", r.sign, r.text))
        .collect();
    // The open model lacks what the file has: from the file's side, removed.
    assert!(texts.contains(&"- \"c\" (Abs)".to_string()), "{texts:?}");
    assert!(texts.contains(&"- output \"z\"".to_string()), "{texts:?}");

    // A file that is no model: an error, and the comparison stays as it was.
    let before = session.comparison();
    assert!(
        session
            .compare_with_files(ModelFile::Read(vec![junk("junk.onnx")]))
            .is_err()
    );
    assert_eq!(session.comparison(), before);
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

/// A run of the open model's plan, "computed" by `outputs` (the runtime is the
/// browser's; natively the test stands in for it).
fn finish_with(
    session: &mut Session,
    plan: run::RunPlan,
    outputs: Vec<(String, graft::ir::Tensor)>,
) -> RunOutcome {
    session.finish_run(plan, Ok((1.5, "test".into(), outputs)), true)
}

#[test]
fn a_run_plans_seeded_inputs_with_the_sizes_given_and_sums_up_the_outputs() {
    let mut session = Session::default();
    open(&mut session, vec![example_file("mlp.onnx")]);
    let view = session.run_view().expect("the Run tab");
    assert_eq!(view.inputs.len(), 1);
    assert_eq!(view.inputs[0].name, "x");
    assert_eq!(view.inputs[0].declared, "float[batch,4]");
    assert_eq!(view.sizes, vec![("batch".to_string(), 1)]);
    session.set_run_size("batch", 3);
    let plan = session.plan_run().expect("a plan");
    assert!(session.run_view().expect("view").running);
    assert_eq!(plan.inputs[0].1.dims, vec![3, 4]);
    assert_eq!(plan.outputs, vec!["probs".to_string()]);
    // The plan's bytes are the model as exported.
    assert_eq!(plan.model, session.export().expect("exports").1);
    let again = {
        let p = session.plan_run().expect("a plan");
        p.inputs[0].1.clone()
    };
    assert_eq!(
        plan.inputs[0].1, again,
        "the same seed gives the same input"
    );
    let probs = graft::values::random_tensor(graft::ir::dtype::FLOAT, &[3, 3], 1).unwrap();
    let outcome = finish_with(&mut session, plan, vec![("probs".into(), probs.clone())]);
    let RunOutcome::Ok(outputs) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(outputs[0].dtype, "float32");
    assert_eq!(outputs[0].shape, vec![3, 3]);
    assert_eq!(
        outputs[0].data.as_deref(),
        Some(&graft::values::numbers(&probs).unwrap()[..])
    );
    let view = session.run_view().expect("view");
    assert!(!view.running && !view.stale && view.has_previous);
    let last = view.last.expect("the last run");
    assert_eq!(last.outputs[0].1, graft::values::stats(&probs));
    // An edit makes the run stale; the last run's inputs can be given again.
    let node = session
        .open()
        .unwrap()
        .model()
        .nodes
        .iter()
        .next()
        .unwrap()
        .0;
    assert!(session.rename_node(node, "renamed"));
    assert!(session.run_view().expect("view").stale);
    session.reuse_run_inputs();
    let view = session.run_view().expect("view");
    assert_eq!(view.inputs[0].given.as_deref(), Some("the last run's"));
    assert!(
        view.sizes.is_empty(),
        "a given input's symbols are bound by it"
    );
    // Another model: its inputs are its own; the sizes are remembered.
    open(
        &mut session,
        vec![example_file("functions_and_control_flow.onnx")],
    );
    let view = session.run_view().expect("view");
    assert!(view.last.is_none() && view.inputs[0].given.is_none());
    assert_eq!(view.sizes, vec![("batch".to_string(), 3)]);
}

#[test]
fn a_given_input_of_the_wrong_type_or_shape_is_refused_by_name() {
    let mut session = Session::default();
    open(&mut session, vec![example_file("mlp.onnx")]);
    let ints = graft::values::random_tensor(graft::ir::dtype::INT64, &[1, 4], 0).unwrap();
    let npy = graft::values::npy_bytes(&ints).unwrap();
    let e = session.give_run_input("x", "ints.npy", &npy).unwrap_err();
    assert!(
        e.contains("ints.npy") && e.contains("int64") && e.contains("float"),
        "{e}"
    );
    let e = session.give_run_input("x", "x.npy", b"junk").unwrap_err();
    assert!(e.contains("x.npy") && e.contains(".npy"), "{e}");
    let wide = graft::values::random_tensor(graft::ir::dtype::FLOAT, &[2, 5], 0).unwrap();
    let npy = graft::values::npy_bytes(&wide).unwrap();
    session
        .give_run_input("x", "wide.npy", &npy)
        .expect("the type fits");
    let e = session.plan_run().err().expect("the shape does not fit");
    assert!(
        e.contains("Input x") && e.contains("dimension 1") && e.contains("4"),
        "{e}"
    );
    let view = session.run_view().expect("view");
    assert_eq!(view.error.as_deref(), Some(e.as_str()));
    assert!(!view.running);
    // A failed run keeps the model and says why.
    session.clear_run_input("x");
    let plan = session.plan_run().expect("a plan");
    let serial = session.open().unwrap().serial();
    let outcome = session.finish_run(plan, Err("node Gemm_0: bad".into()), true);
    assert_eq!(
        outcome,
        RunOutcome::Error("The run failed: node Gemm_0: bad".into())
    );
    assert_eq!(session.open().unwrap().serial(), serial);
    assert!(
        session
            .run_view()
            .unwrap()
            .error
            .unwrap()
            .contains("Gemm_0")
    );
}

#[test]
fn the_graph_is_coloured_by_each_nodes_largest_value_until_an_edit() {
    let mut session = Session::default();
    open(&mut session, vec![example_file("mlp.onnx")]);
    let e = session.plan_overlay().err().expect("no run yet");
    assert!(e.contains("Run the model first"), "{e}");
    let plan = session.plan_run().expect("a plan");
    let probs = graft::values::random_tensor(graft::ir::dtype::FLOAT, &[1, 3], 1).unwrap();
    finish_with(&mut session, plan, vec![("probs".into(), probs)]);
    let (plan, nodes) = session.plan_overlay().expect("an overlay plan");
    let model = session.open().unwrap().model();
    let main = model.graph.unwrap();
    assert_eq!(nodes.len(), model.graph(main).nodes.len());
    assert!(plan.outputs.contains(&"probs".to_string()));
    // Each node's output holds k everywhere: node k gets max |x| = 10^k.
    let got: Vec<(String, graft::ir::Tensor)> = nodes
        .iter()
        .enumerate()
        .flat_map(|(k, (_, names))| {
            names.iter().map(move |n| {
                let v = 10f32.powi(k as i32);
                (
                    n.clone(),
                    graft::ir::Tensor {
                        dims: vec![2],
                        data_type: Some(graft::ir::dtype::FLOAT),
                        raw_data: Some(bytes::Bytes::from(
                            [v, -v]
                                .iter()
                                .flat_map(|x| x.to_le_bytes())
                                .collect::<Vec<_>>(),
                        )),
                        ..graft::ir::Tensor::default()
                    },
                )
            })
        })
        .collect();
    let stamp = plan.stamp;
    session.finish_overlay(Colouring::MaxAbs, stamp, nodes.clone(), Ok(got));
    let legend = session.run_view().unwrap().overlay.expect("a legend");
    assert_eq!((legend.lo, legend.nodes), (1.0, nodes.len()));
    let scene = session.open().unwrap().scene.as_ref().unwrap();
    let class_of = |node: NodeId| {
        let item = (0..scene.view.items.len() as ItemId)
            .find(|&i| matches!(scene.view.item(i).map(|it| &it.kind), Some(ItemKind::Node { node: n, .. }) if *n == node))
            .expect("drawn");
        session
            .overlay_mark(scene.view.item(item).unwrap())
            .map(|m| m.class)
    };
    assert_eq!(class_of(nodes[0].0), Some(HEAT_CLASSES[0]));
    assert_eq!(
        class_of(nodes[nodes.len() - 1].0),
        Some(HEAT_CLASSES[HEAT_CLASSES.len() - 1])
    );
    // Saved as Model Explorer node data and read back: the same colours.
    let (file, json) = session.node_data_json().expect("node data");
    assert_eq!(file, "mlp.node-data.json");
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
    let graph = session
        .open()
        .unwrap()
        .model()
        .graph(main)
        .name
        .clone()
        .unwrap();
    let results = parsed[&graph]["results"]
        .as_object()
        .expect("the main graph's results");
    assert_eq!(results.len(), nodes.len());
    assert_eq!(parsed[&graph]["name"], "max |x|");
    let e = session.load_node_data(
        "other.json",
        r#"{"g": {"results": {"nope": {"value": 1}}}}"#,
    );
    assert!(e.unwrap_err().contains("none of its 1 results"));
    assert_eq!(
        session.run_view().unwrap().overlay.unwrap().label,
        "max |x|"
    );
    session
        .load_node_data("mlp.node-data.json", &json)
        .expect("read back");
    let back = session.run_view().unwrap().overlay.expect("a legend");
    assert_eq!(
        (back.by, back.lo, back.hi, back.nodes),
        (Colouring::Imported, legend.lo, legend.hi, legend.nodes)
    );
    // An edit: the colours are of a model that is no more.
    let first = nodes[0].0;
    assert!(session.rename_node(first, "renamed"));
    assert!(session.run_view().unwrap().overlay.is_none());
    let scene = session.open().unwrap().scene.as_ref().unwrap();
    let item = (0..scene.view.items.len() as ItemId)
        .find(|&i| matches!(scene.view.item(i).map(|it| &it.kind), Some(ItemKind::Node { node: n, .. }) if *n == first))
        .unwrap();
    assert!(
        session
            .overlay_mark(scene.view.item(item).unwrap())
            .is_none()
    );
}

#[test]
fn a_selected_node_or_value_is_probed_inside_calls_but_not_inside_branches() {
    let mut session = Session::default();
    open(
        &mut session,
        vec![example_file("functions_and_control_flow.onnx")],
    );
    let find = |session: &Session, f: &dyn Fn(&graft::view::Item, &graft::Model) -> bool| {
        let open = session.open().unwrap();
        let scene = open.scene.as_ref().unwrap();
        (0..scene.view.items.len() as ItemId)
            .find(|&i| scene.view.item(i).is_some_and(|it| f(it, open.doc.model())))
    };
    let named = |name: &'static str| move |it: &graft::view::Item, m: &graft::Model| matches!(it.kind, ItemKind::Node { node, .. } if m.node(node).name() == name);
    let act1 = find(&session, &named("act1")).expect("act1");
    let e = session.plan_probe(act1).err().expect("no run yet");
    assert!(e.contains("Run the model"), "{e}");
    let plan = session.plan_run().expect("a plan");
    let outputs = vec![
        (
            "probs".to_string(),
            graft::values::random_tensor(graft::ir::dtype::FLOAT, &[1, 3], 1).unwrap(),
        ),
        (
            "gate".to_string(),
            graft::values::random_tensor(graft::ir::dtype::FLOAT, &[], 1).unwrap(),
        ),
    ];
    finish_with(&mut session, plan, outputs);
    // Inside the expanded call: its Tanh, one output, named anew in the inlined copy.
    session.toggle(act1);
    let tanh = find(&session, &named("tanh")).expect("act1's tanh drawn");
    let (plan, outputs) = session.plan_probe(tanh).expect("a probe");
    assert_eq!(outputs.len(), 1);
    assert_eq!(plan.outputs, vec![outputs[0].1.clone()]);
    assert_eq!(plan.inputs.len(), 1, "the last run's input");
    // A graph output: its producer, that output alone.
    let probs = find(
        &session,
        &|it, m| matches!(it.kind, ItemKind::Out { value } if m.value(value).name == "probs"),
    )
    .expect("the output probs");
    let (_, outputs) = session.plan_probe(probs).expect("a probe");
    assert_eq!(outputs, vec![(0, "probs".to_string())]);
    // Inside an If branch: refused by name.
    let gate = find(&session, &named("gate/if")).expect("the If");
    session.toggle(gate);
    let relu = find(&session, &named("then/relu")).or_else(|| find(&session, &named("else/tanh")));
    if let Some(inner) = relu {
        let e = session.plan_probe(inner).err().expect("refused");
        assert!(e.contains("If, Loop or Scan"), "{e}");
    } else {
        panic!("the If's branches are not drawn after opening it");
    }
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
/// refuses those by the model state the request names: see `engine::tests`.)
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
            "expand_standard",
            Box::new(move |s| s.expand_standard(node)),
        ),
        ("use_overload", Box::new(move |s| s.use_overload(node, ""))),
        (
            "specialize_call",
            Box::new(move |s| s.specialize_call(node, "alpha = 0.5")),
        ),
        (
            "specialize_call, no attributes",
            Box::new(move |s| s.specialize_call(node, "")),
        ),
        (
            "set_call_attribute",
            Box::new(move |s| s.set_call_attribute(node, "alpha", "1")),
        ),
        (
            "rename_node",
            Box::new(move |s| s.rename_node(node, "stale_rename")),
        ),
        (
            "set_attribute",
            Box::new(move |s| s.set_attribute(node, "alpha = 1.0")),
        ),
        (
            "remove_attribute",
            Box::new(move |s| s.remove_attribute(node, "alpha")),
        ),
        ("connect", Box::new(move |s| s.connect(node, 0, "x"))),
        (
            "rename_output",
            Box::new(move |s| s.rename_output(node, 0, "y")),
        ),
        ("add_after", Box::new(move |s| s.add_after(node, "Relu"))),
        (
            "add_graph_output",
            Box::new(move |s| s.add_graph_output(node, 0)),
        ),
        (
            "delete_nodes",
            Box::new(move |s| s.delete_nodes(&[node], true)),
        ),
        (
            "rename_value",
            Box::new(move |s| s.rename_value(value, "z")),
        ),
        (
            "set_value_type",
            Box::new(move |s| s.set_value_type(value, "float[1]")),
        ),
        (
            "remove_graph_input",
            Box::new(move |s| s.remove_graph_input(value)),
        ),
        (
            "remove_graph_output",
            Box::new(move |s| s.remove_graph_output(value)),
        ),
        (
            "add_graph_input",
            Box::new(move |s| s.add_graph_input(value, "q", "float[1]")),
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
    // A read of the stale call does not panic: with no function found, the value
    // is read untyped.
    assert!(s.check_call_attribute(node, "alpha", "1").is_ok());
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
    assert!(s.apply_text(None, &mlp_with_relu2(&s)));
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

#[test]
fn onnxruntime_node_errors_name_the_node() {
    let raw = "Error: failed to call OrtRun(). ERROR_CODE: 2, ERROR_MESSAGE: Non-zero status code returned while running Pad node. Name:'/Pad_1' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/pad.cc:342 Status onnxruntime::PadBase::HandleDimValueZero Cannot use 'reflect' mode to pad dimension with a value of 0";
    let (name, op, why) = super::run::ort_node_error(raw).expect("parsed");
    assert_eq!((name.as_str(), op.as_str()), ("/Pad_1", "Pad"));
    assert!(why.starts_with("Cannot use 'reflect' mode"), "{why}");
    assert!(!why.contains(".cc:"), "{why}");
    assert_eq!(super::run::ort_node_error("out of memory"), None);
}

#[test]
fn inputs_are_filled_with_a_typed_value_or_the_one_their_name_makes_obvious() {
    let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[N] x, int64 sr, float[2] state) => (float[N] y) {
  [relu_0] y = Relu(x)
}"#;
    let mut session = Session::default();
    open(&mut session, vec![text_file("vad.onnx", text)]);
    let input = |s: &Session, name: &str| {
        let view = s.run_view().expect("view");
        view.inputs.into_iter().find(|i| i.name == name).unwrap()
    };
    let planned = |s: &mut Session, name: &str| {
        let plan = s.plan_run().expect("a plan");
        let (_, t) = plan.inputs.into_iter().find(|(n, _)| n == name).unwrap();
        (t.dims.clone(), graft::values::numbers(&t).unwrap())
    };
    // silero_vad's way: `sr` is a sample rate and `state` starts at zero, and the
    // Run tab says so; `x` says nothing and is random.
    let sr = input(&session, "sr");
    assert_eq!(sr.fill.as_deref(), Some("16000"));
    assert!(sr.why.unwrap().contains("sample rate"));
    assert_eq!(input(&session, "state").fill.as_deref(), Some("0"));
    assert_eq!(input(&session, "x").fill, None);
    assert_eq!(planned(&mut session, "sr"), (vec![], vec![16000.0]));
    assert_eq!(planned(&mut session, "state"), (vec![2], vec![0.0, 0.0]));
    // A typed value fills every element, with the symbols' sizes.
    session.set_run_size("N", 3);
    session.set_run_fill("x", "2.5");
    let x = input(&session, "x");
    assert_eq!((x.fill.as_deref(), x.why), (Some("2.5"), None));
    assert_eq!(planned(&mut session, "x"), (vec![3], vec![2.5; 3]));
    // A value the type cannot hold is refused, and the input keeps its value.
    session.set_run_fill("sr", "1.5");
    assert_eq!(
        session.run_view().unwrap().error.as_deref(),
        Some("Input sr: `1.5` is not a whole number, as int64 needs.")
    );
    assert_eq!(input(&session, "sr").fill.as_deref(), Some("16000"));
    // "use random" sets the default aside; an empty field brings it back.
    session.clear_run_input("sr");
    assert_eq!(input(&session, "sr").fill, None);
    session.set_run_fill("sr", " ");
    assert_eq!(input(&session, "sr").fill.as_deref(), Some("16000"));
    // A run that fails inside a node names it, and the Run tab links to it while
    // that error shows.
    let plan = session.plan_run().expect("a plan");
    let message = "Non-zero status code returned while running Relu node. Name:'relu_0' Status Message: bad input";
    session.finish_run(plan, Err(message.into()), false);
    let view = session.run_view().unwrap();
    assert_eq!(
        view.error.as_deref(),
        Some("The run failed at node \"relu_0\" (Relu): bad input")
    );
    assert_eq!(view.failed_at.as_deref(), Some("relu_0"));
    session.set_run_fill("x", "abc");
    assert_eq!(session.run_view().unwrap().failed_at, None);
}
