//! Edits through the session: outline, node and graph edits in every scope, undo and redo, the log, and what stays open and selected across them.

use super::*;

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
        // The doc string, the edit added last: through the same door, in the log.
        assert!(session.set_doc_string(node, &format!("doc {k}")));
        let model = session.open().unwrap().model();
        assert_eq!(model.node(node).doc_string, Some(format!("doc {k}")));
        let line = session.history().0.last().cloned().unwrap_or_default();
        assert!(line.starts_with("Document "), "{line}");
        assert!(
            session
                .log_from(0)
                .last()
                .unwrap()
                .contains("set_doc_string")
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
