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
        request: Request::CheckCallAttribute(
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
fn requests_by_id(value: graft::ir::ValueId) -> Vec<Request> {
    vec![
        Request::SetInitializer(value),
        Request::ApplyText(Some(0), String::new()),
        Request::LibraryKeep(0, true),
    ]
}

/// Each request by id made on the state `made_on` is refused before any handler
/// runs, said in the banner, and a read of ids gets an empty answer.
fn assert_refused(e: &mut Engine, made_on: u64, node: NodeId, value: graft::ir::ValueId) {
    for request in requests_by_id(value) {
        assert_eq!(request.names(), Names::EditIds, "{request:?}");
        assert!(e.current(made_on, request.clone()).is_err(), "{request:?}");
        assert_eq!(e.session.error(), Some(STALE), "{request:?}");
        e.session.dismiss_error();
    }
    // An edit by address, made on any other state, is refused too.
    let edit = Request::Edit {
        edit: graft::edit::Edit::RenameNode {
            graph: "main".into(),
            node: 0,
            to: "stale_rename".into(),
        },
        at: None,
    };
    assert_eq!(edit.names(), Names::Addresses);
    assert_eq!(e.current(made_on, edit), Err(None));
    assert_eq!(e.session.error(), Some(super::update::MOVED));
    e.session.dismiss_error();
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
    e.session.apply_text(None, &text).unwrap();
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
    let set = Request::SetInitializer(out2);
    assert_eq!(e.current(now, set.clone()), Ok(set));
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
    let set = Request::SetInitializer(value);
    assert_eq!(e.current(inlined, set.clone()), Ok(set));

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
/// node id or by address (the editors' edits) made on any earlier state of the
/// model, sent in any order, never
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
        // Every state seen: its serial and, for each node id live in it, its op and
        // its address (graph path and index) as the node editor showed it.
        type Seen = (NodeId, String, (String, usize));
        let mut states: Vec<(u64, Vec<Seen>)> = Vec::new();
        let snapshot = |e: &Engine| {
            let open = e.session.open().unwrap();
            let m = open.doc.model();
            let ops = m
                .nodes
                .iter()
                .filter(|(n, _)| m.live_node(*n).is_some())
                .map(|(n, node)| {
                    let graph = graft::edit::graph_path(m, node.graph).unwrap_or_default();
                    let index = m.graph(node.graph).nodes.iter().position(|&x| x == n);
                    (n, node.op_type().to_string(), (graph, index.unwrap_or(0)))
                })
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
                        let _ = e.session.apply_text(None, &text);
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
                    // A request by id or by address from some state seen, maybe long
                    // gone.
                    let (made_on, ops) = &states[dice.below(states.len())];
                    let Some((node, op, (graph, index))) = ops.get(dice.below(ops.len())).cloned()
                    else {
                        continue;
                    };
                    let edit = |edit| Request::Edit { edit, at: None };
                    let request = match dice.below(5) {
                        0 => edit(graft::edit::Edit::RenameNode {
                            graph: graph.clone(),
                            node: index,
                            to: format!("r{step}"),
                        }),
                        1 => edit(graft::edit::Edit::Specialize {
                            graph: graph.clone(),
                            node: index,
                            attributes: String::new(),
                            keep: Vec::new(),
                        }),
                        2 => edit(graft::edit::Edit::SetAttribute {
                            graph: graph.clone(),
                            node: index,
                            attribute: "alpha = 0.5".into(),
                        }),
                        3 => edit(graft::edit::Edit::ExpandStandard {
                            graph: graph.clone(),
                            node: index,
                        }),
                        _ => edit(graft::edit::Edit::SetDocString {
                            graph: graph.clone(),
                            node: Some(index),
                            doc: format!("d{step}"),
                        }),
                    };
                    e.session.dismiss_error();
                    let Ok(request) = e.current(*made_on, request) else {
                        continue;
                    };
                    let Request::Edit { edit, at } = request else {
                        unreachable!("{request:?}")
                    };
                    let m = e.session.open().unwrap().model();
                    let now = graft::edit::resolve_path(m, &graph)
                        .ok()
                        .and_then(|g| m.graph(g).nodes.get(index).copied())
                        .and_then(|n| m.live_node(n))
                        .map(|n| n.op_type().to_string());
                    let applied = e.session.apply_edit(edit, at);
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
