//! The Run tab: inputs planned (seeded, given, filled, named defaults), outputs summed up, the colouring, a node's values, and a run's errors.

use super::*;

/// A run of the open model's plan, "computed" by `outputs` (the runtime is the
/// browser's; natively the test stands in for it).
fn finish_with(
    session: &mut Session,
    plan: crate::state::run::RunPlan,
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
fn onnxruntime_node_errors_name_the_node() {
    let raw = "Error: failed to call OrtRun(). ERROR_CODE: 2, ERROR_MESSAGE: Non-zero status code returned while running Pad node. Name:'/Pad_1' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/pad.cc:342 Status onnxruntime::PadBase::HandleDimValueZero Cannot use 'reflect' mode to pad dimension with a value of 0";
    let (name, op, why) = crate::state::run::ort_node_error(raw).expect("parsed");
    assert_eq!((name.as_str(), op.as_str()), ("/Pad_1", "Pad"));
    assert!(why.starts_with("Cannot use 'reflect' mode"), "{why}");
    assert!(!why.contains(".cc:"), "{why}");
    assert_eq!(crate::state::run::ort_node_error("out of memory"), None);
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
    // "use random" sets the default aside, and the tab offers it back; an empty
    // field (what "use 16000, its default" sends) brings it back.
    assert_eq!(input(&session, "sr").default, None);
    session.clear_run_input("sr");
    let sr = input(&session, "sr");
    assert_eq!((sr.fill, sr.default.as_deref()), (None, Some("16000")));
    session.set_run_fill("sr", " ");
    let sr = input(&session, "sr");
    assert_eq!((sr.fill.as_deref(), sr.default), (Some("16000"), None));
    assert_eq!(input(&session, "x").default, None, "no name, no default");
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
