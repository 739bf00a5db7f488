//! `graft::edit`: every edit kind in the main graph, a function body and an If body;
//! each is checked for its effect, undo gives back the very model (printed text and
//! checker verdict), redo gives the edited one again, and the JSON log replays to the
//! same model. Refused edits change nothing.

mod common;

use graft::edit::{Edit, History, base64_encode, replay};
use graft::host::{Command, Host};
use graft::ir::Model;

use common::MODEL;

fn model() -> Model {
    graft::text::parse_model(MODEL).unwrap().model
}

fn text(m: &Model) -> String {
    graft::text::print_model(m)
}

fn errors(m: &Model) -> Vec<String> {
    graft::check::check(m)
        .into_iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

/// Applies `edit` and checks `expect` appears in the result; then undo, redo and
/// replay.
fn round(edit: Edit, expect: &[&str]) -> Model {
    round_on(model(), edit, expect)
}

fn round_on(start: Model, edit: Edit, expect: &[&str]) -> Model {
    let before = text(&start);
    let before_errors = errors(&start);
    // Through the document host's door, which keeps inference and the checks
    // current with what each command touched.
    let mut host = Host::open(start.clone(), Vec::new());
    host.apply(Command::Edit(edit.clone()))
        .unwrap_or_else(|e| panic!("{edit:?}: {e}"));
    common::derived_is_current(&host, &format!("{edit:?}"));
    let after = text(host.model());
    for e in expect {
        assert!(after.contains(e), "{edit:?}: no {e:?} in\n{after}");
    }
    assert_ne!(before, after, "{edit:?} changed nothing");
    host.apply(Command::Undo).unwrap();
    common::derived_is_current(&host, &format!("undo {edit:?}"));
    assert_eq!(text(host.model()), before, "{edit:?}: undo");
    assert_eq!(errors(host.model()), before_errors, "{edit:?}: undo");
    host.apply(Command::Redo).unwrap();
    common::derived_is_current(&host, &format!("redo {edit:?}"));
    assert_eq!(text(host.model()), after, "{edit:?}: redo");
    let log = host.log_json();
    let m = host.into_model();
    // The same edit made as the app makes it: by ids with typed values; its record
    // in the log replays to the same model.
    let mut typed = start.clone();
    let change = edit.resolve(&typed).unwrap();
    let mut checked = graft::check::Checked::new(&typed);
    let mut h2 = History::default();
    h2.apply_change(&mut typed, &change, &mut checked)
        .unwrap_or_else(|e| panic!("{change:?}: {e}"));
    assert_eq!(text(&typed), after, "{change:?}");
    let mut again = start.clone();
    replay(&mut again, &h2.log_json()).unwrap();
    assert_eq!(
        text(&again),
        after,
        "{change:?}: replay of {}",
        h2.log_json()
    );
    let mut again = start;
    replay(&mut again, &log).unwrap();
    assert_eq!(text(&again), after, "{edit:?}: replay of {log}");
    m
}

/// Changes by id: what the log records for them, and ids that name nothing in the
/// model (now) refused at their field, changing nothing.
#[test]
fn changes_by_id_record_their_edit_and_refuse_stale_ids() {
    use graft::edit::{Change, Field, read_attributes, read_type};
    let mut m = model();
    let main = m.graph.unwrap();
    let nodes = m.graph(main).nodes.clone();
    let mut checked = graft::check::Checked::new(&m);
    let mut h = History::default();
    // A typed value: read with the type the call declares, then applied by id.
    let scale = nodes[3];
    let e = read_attributes(&m, scale, "alpha = abc").unwrap_err();
    assert_eq!(e.field, Field::Attribute("alpha".into()));
    assert!(e.message.contains("alpha expects a float"), "{e}");
    let attributes = read_attributes(&m, scale, "alpha = 0.5").unwrap();
    h.apply_change(
        &mut m,
        &Change::SetAttributes {
            node: scale,
            attributes,
        },
        &mut checked,
    )
    .unwrap();
    let ty = read_type("float[M, 3]").unwrap();
    assert_eq!(read_type("float[M,").unwrap_err().field, Field::Type);
    let x = m.graph(main).inputs[0].value.unwrap();
    h.apply_change(
        &mut m,
        &Change::SetType {
            graph: main,
            value: x,
            ty,
        },
        &mut checked,
    )
    .unwrap();
    // A value in the If's then branch, renamed by id: the record names its graph.
    let then = graft::edit::resolve_path(&m, "main/2.then_branch").unwrap();
    let t1 = m.node(m.graph(then).nodes[0]).outputs[0].unwrap();
    h.apply_change(
        &mut m,
        &Change::RenameValue {
            value: t1,
            to: "neg".into(),
        },
        &mut checked,
    )
    .unwrap();
    let relu = nodes[1];
    h.apply_change(
        &mut m,
        &Change::DeleteNodes {
            nodes: vec![relu],
            reconnect: true,
        },
        &mut checked,
    )
    .unwrap();
    let log: Vec<Edit> = h.log().into_iter().cloned().collect();
    assert_eq!(
        log,
        [
            Edit::SetAttribute {
                graph: "main".into(),
                node: 3,
                attribute: "alpha = 0.5".into()
            },
            Edit::SetType {
                graph: "main".into(),
                name: "x".into(),
                ty: "float[M,3]".into()
            },
            Edit::RenameValue {
                graph: "main/2.then_branch".into(),
                from: "t1".into(),
                to: "neg".into()
            },
            Edit::DeleteNodes {
                graph: "main".into(),
                nodes: vec![1],
                reconnect: true
            },
        ]
    );
    // Stale ids: the deleted node, a value of the then branch used in the main graph.
    let before = text(&m);
    let refused = [
        (
            Change::RenameNode {
                node: relu,
                to: "r".into(),
            },
            Field::Node,
        ),
        (
            Change::SetInput {
                node: nodes[0],
                index: 0,
                value: Some(t1),
            },
            Field::Input(0),
        ),
        (
            Change::AddOutput {
                graph: main,
                value: t1,
            },
            Field::Value,
        ),
        (
            Change::DeleteNodes {
                nodes: vec![nodes[0], m.graph(then).nodes[0]],
                reconnect: false,
            },
            Field::Node,
        ),
    ];
    for (change, field) in refused {
        let e = h.apply_change(&mut m, &change, &mut checked).unwrap_err();
        assert_eq!(e.field, field, "{change:?}: {e}");
        assert_eq!(text(&m), before, "{change:?}");
    }
    assert_eq!(h.log().len(), 4);
}

/// `edit` is refused (by `History` and by `replay`) because it would add the error
/// `code`; the model is unchanged.
fn refused_because(edit: Edit, code: &str) {
    let mut m = model();
    let before = text(&m);
    let mut h = History::default();
    let e = h.apply(&mut m, edit.clone()).unwrap_err().to_string();
    assert!(
        e.contains("would leave the model invalid") && e.contains(code),
        "{edit:?}: {e}"
    );
    assert_eq!(text(&m), before, "{edit:?}");
    assert!(!h.can_undo());
    let json = serde_json::to_string(std::slice::from_ref(&edit)).unwrap();
    let e = replay(&mut m, &json).unwrap_err().to_string();
    assert!(e.contains(code), "{edit:?}: {e}");
    assert_eq!(text(&m), before, "{edit:?}");
}

const GRAPHS: [&str; 3] = ["main", "fn:local.Scale", "main/2.then_branch"];

#[test]
fn attributes_everywhere() {
    for g in GRAPHS {
        // An attribute the schema does not declare would make the model invalid:
        // refused, naming the checker's finding, and nothing changes.
        refused_because(
            Edit::SetAttribute {
                graph: g.into(),
                node: 0,
                attribute: "note = \"x\"".into(),
            },
            "check.attribute-unknown",
        );
    }
    round(
        Edit::SetAttribute {
            graph: "main".into(),
            node: 3,
            attribute: "alpha = 0.5".into(),
        },
        &["local.Scale <alpha = 0.5> (b)"],
    );
    round(
        Edit::RemoveAttribute {
            graph: "main".into(),
            node: 3,
            name: "alpha".into(),
        },
        &["z = local.Scale(b)"],
    );
    round(
        Edit::RemoveAttribute {
            graph: "fn:local.Scale".into(),
            node: 0,
            name: "value_float".into(),
        },
        &["k = Constant()"],
    );
}

#[test]
fn renames_follow_every_reference() {
    // `b` is read in the main graph and in both branches.
    let m = round(
        Edit::RenameValue {
            graph: "main".into(),
            from: "b".into(),
            to: "hidden".into(),
        },
        &[
            "hidden = Relu(a)",
            "t1 = Neg(hidden)",
            "e_out = Identity(hidden)",
            "(hidden)",
        ],
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    round(
        Edit::RenameValue {
            graph: "fn:local.Scale".into(),
            from: "p".into(),
            to: "input".into(),
        },
        &["(input) => (q)", "m = Mul(input, k)"],
    );
    round(
        Edit::RenameValue {
            graph: "main/2.then_branch".into(),
            from: "t1".into(),
            to: "neg".into(),
        },
        &["neg = Neg(b)", "t_out = Abs(neg)"],
    );
    // A graph input, and a name visible from a body.
    round(
        Edit::RenameValue {
            graph: "main".into(),
            from: "x".into(),
            to: "image".into(),
        },
        &["float[N,3] image", "a = Mul(image, w)"],
    );
    for g in GRAPHS {
        round(
            Edit::RenameNode {
                graph: g.into(),
                node: 0,
                to: "first".into(),
            },
            &["[first]"],
        );
    }
}

#[test]
fn refused_edits_change_nothing() {
    let mut m = model();
    let before = text(&m);
    let refused = [
        Edit::RenameValue {
            graph: "main".into(),
            from: "a".into(),
            to: "b".into(),
        },
        // Names are unique over the scope tree: t1 lives in a branch.
        Edit::RenameValue {
            graph: "main".into(),
            from: "a".into(),
            to: "t1".into(),
        },
        Edit::RenameValue {
            graph: "main".into(),
            from: "nope".into(),
            to: "x2".into(),
        },
        Edit::SetAttribute {
            graph: "main".into(),
            node: 9,
            attribute: "a = 1".into(),
        },
        Edit::SetAttribute {
            graph: "main".into(),
            node: 0,
            attribute: "a = ".into(),
        },
        Edit::SetAttribute {
            graph: "main/7.body".into(),
            node: 0,
            attribute: "a = 1".into(),
        },
        Edit::SetAttribute {
            graph: "fn:local.Nope".into(),
            node: 0,
            attribute: "a = 1".into(),
        },
        // b is computed by node 1: node 0 cannot read it.
        Edit::SetInput {
            graph: "main".into(),
            node: 0,
            index: 0,
            value: "b".into(),
        },
        Edit::AddNode {
            graph: "main".into(),
            op_type: "NoSuchOp".into(),
            domain: String::new(),
            inputs: vec![],
            outputs: vec![],
            attributes: String::new(),
            defaults: false,
            name: String::new(),
            at: None,
        },
        Edit::AddNode {
            graph: "main".into(),
            op_type: "Relu".into(),
            domain: String::new(),
            inputs: vec!["b".into()],
            outputs: vec![],
            attributes: String::new(),
            defaults: false,
            name: String::new(),
            at: Some(0),
        },
        Edit::RemoveInput {
            graph: "main".into(),
            name: "x".into(),
        },
        Edit::SetType {
            graph: "main".into(),
            name: "x".into(),
            ty: "float[".into(),
        },
        Edit::SetType {
            graph: "fn:local.Scale".into(),
            name: "p".into(),
            ty: "float".into(),
        },
        Edit::SetInitializer {
            graph: "main".into(),
            name: "w".into(),
            npy_base64: base64_encode(b"not npy"),
        },
        Edit::Specialize {
            graph: "main".into(),
            node: 0,
            attributes: String::new(),
            keep: vec![],
        },
        Edit::Outline {
            graph: "main".into(),
            nodes: vec![],
            function: "local.Out".into(),
        },
    ];
    for e in refused {
        let r = graft::edit::apply(&mut m, &e);
        assert!(r.is_err(), "{e:?} was applied");
        assert_eq!(text(&m), before, "{e:?} changed the model");
    }
    // A bad log stops at the bad edit, with its position.
    let log = r#"[{"edit": "rename_node", "graph": "main", "node": 0, "to": "n"},
                  {"edit": "rename_node", "graph": "main", "node": 99, "to": "n"}]"#;
    let e = replay(&mut m, log).unwrap_err().to_string();
    assert!(e.contains("edit 2 of the log"), "{e}");
    assert_eq!(text(&m), before, "a log applies whole or not at all");
}

#[test]
fn replay_holds_each_edit_to_inference_as_the_host_does() {
    // Softmax's axis out of its input's rank: onnx's full check rejects it through
    // shape inference, and so does a replayed log, naming the edit.
    let mut m = graft::text::parse_model(
        r#"<ir_version: 10, opset_import: ["": 18]>
main (float[2,3] x) => (float[2,3] y) {
  [sm] y = Softmax <axis = 1> (x)
}"#,
    )
    .unwrap()
    .model;
    let before = text(&m);
    let log = r#"[{"edit": "rename_node", "graph": "main", "node": 0, "to": "soft"},
                  {"edit": "set_attribute", "graph": "main", "node": 0, "attribute": "axis = 7"}]"#;
    let e = replay(&mut m, log).unwrap_err().to_string();
    assert!(e.contains("edit 2 of the log") && e.contains("axis"), "{e}");
    assert_eq!(text(&m), before);
    let ok = r#"[{"edit": "set_attribute", "graph": "main", "node": 0, "attribute": "axis = -1"}]"#;
    assert_eq!(replay(&mut m, ok), Ok(1));
}

#[test]
fn delete_add_and_connect_everywhere() {
    // Deleting a used node would leave a dangling reference: refused.
    refused_because(
        Edit::DeleteNodes {
            graph: "main".into(),
            nodes: vec![1],
            reconnect: false,
        },
        "check.undefined-name",
    );
    // Reconnected, the readers of b read a: in the branches too.
    let m = round(
        Edit::DeleteNodes {
            graph: "main".into(),
            nodes: vec![1],
            reconnect: true,
        },
        &[
            "t1 = Neg(a)",
            "e_out = Identity(a)",
            "local.Scale <alpha = 2.0> (a)",
        ],
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    let m = round(
        Edit::DeleteNodes {
            graph: "fn:local.Scale".into(),
            nodes: vec![2],
            reconnect: true,
        },
        &["=> (m)"],
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    round(
        Edit::DeleteNodes {
            graph: "main/2.then_branch".into(),
            nodes: vec![1],
            reconnect: true,
        },
        &["=> (t1)"],
    );
    // Adding a node from the registry, attribute defaults written out.
    for (g, input) in [
        ("main", "b"),
        ("fn:local.Scale", "m"),
        ("main/2.then_branch", "t1"),
    ] {
        let m = round(
            Edit::AddNode {
                graph: g.into(),
                op_type: "LeakyRelu".into(),
                domain: String::new(),
                inputs: vec![input.into()],
                outputs: vec![],
                attributes: String::new(),
                defaults: true,
                name: String::new(),
                at: None,
            },
            &[&format!("leaky_relu = LeakyRelu <alpha = 0.01> ({input})")],
        );
        assert!(errors(&m).is_empty(), "{g}: {:?}", errors(&m));
    }
    // Connecting inputs: the branch reads x instead of b; then disconnects.
    round(
        Edit::SetInput {
            graph: "main/2.then_branch".into(),
            node: 0,
            index: 0,
            value: "x".into(),
        },
        &["t1 = Neg(x)"],
    );
    round(
        Edit::SetInput {
            graph: "fn:local.Scale".into(),
            node: 1,
            index: 1,
            value: "p".into(),
        },
        &["m = Mul(p, p)"],
    );
    // Disconnecting an input the callee's body needs: refused.
    refused_because(
        Edit::SetInput {
            graph: "main".into(),
            node: 3,
            index: 0,
            value: "".into(),
        },
        "check.call-required-input-missing",
    );
}

#[test]
fn graph_inputs_outputs_and_types() {
    round(
        Edit::AddInput {
            graph: "main".into(),
            name: "extra".into(),
            ty: "float[N]".into(),
        },
        &["float[N] extra"],
    );
    round(
        Edit::AddInput {
            graph: "fn:local.Scale".into(),
            name: "p2".into(),
            ty: String::new(),
        },
        &["(p, p2) => (q)"],
    );
    round(
        Edit::AddOutput {
            graph: "main".into(),
            value: "a".into(),
        },
        &["=> (float[N,3] y, float[N,3] z, float[N,3] a)"],
    );
    round(
        Edit::AddOutput {
            graph: "fn:local.Scale".into(),
            value: "m".into(),
        },
        &["=> (q, m)"],
    );
    round(
        Edit::AddOutput {
            graph: "main/2.else_branch".into(),
            value: "b".into(),
        },
        &["=> (e_out, float[N,3] b)"],
    );
    round(
        Edit::RemoveOutput {
            graph: "main".into(),
            name: "z".into(),
        },
        &["=> (float[N,3] y) <"],
    );
    round(
        Edit::RemoveOutput {
            graph: "main/2.then_branch".into(),
            name: "t_out".into(),
        },
        &["t () => ()"],
    );
    // Make the batch dimension another symbol; fix it; change the element type.
    round(
        Edit::SetType {
            graph: "main".into(),
            name: "x".into(),
            ty: "float[batch, 3]".into(),
        },
        &["float[batch,3] x"],
    );
    round(
        Edit::SetType {
            graph: "main".into(),
            name: "x".into(),
            ty: "float[8, 3]".into(),
        },
        &["float[8,3] x"],
    );
    // Another element type would contradict the outputs' stated float: onnx's full
    // check rejects that model, so the edit is refused and changes nothing.
    let m = model();
    let mut host = Host::open(m.clone(), Vec::new());
    let e = host
        .apply(Command::Edit(Edit::SetType {
            graph: "main".into(),
            name: "x".into(),
            ty: "double[8, 3]".into(),
        }))
        .unwrap_err();
    assert!(
        e.to_string().contains("stated float but inferred double"),
        "{e}"
    );
    assert_eq!(text(host.model()), text(&m));
    round(
        Edit::SetType {
            graph: "main".into(),
            name: "y".into(),
            ty: "float[M, 3]".into(),
        },
        &["=> (float[M,3] y, float[N,3] z)"],
    );
    // An unused input can go.
    let mut m = model();
    graft::edit::apply(
        &mut m,
        &Edit::AddInput {
            graph: "main".into(),
            name: "u".into(),
            ty: "float".into(),
        },
    )
    .unwrap();
    graft::edit::apply(
        &mut m,
        &Edit::RemoveInput {
            graph: "main".into(),
            name: "u".into(),
        },
    )
    .unwrap();
    assert_eq!(text(&m), text(&model()));
}

/// A `.npy` file as numpy writes it (version 1.0, C order).
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn initializers_from_npy() {
    let data: Vec<u8> = [4.0f32, 5.0, 6.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let m = round(
        Edit::SetInitializer {
            graph: "main".into(),
            name: "w".into(),
            npy_base64: base64_encode(&npy("<f4", "(3,)", &data)),
        },
        &["float[3] w = {4, 5, 6}"],
    );
    assert!(errors(&m).is_empty());
    // The data must match the shape.
    let mut m = model();
    let bad = npy("<f4", "(4,)", &data);
    assert!(
        graft::edit::apply(
            &mut m,
            &Edit::SetInitializer {
                graph: "main".into(),
                name: "w".into(),
                npy_base64: base64_encode(&bad)
            }
        )
        .is_err()
    );
    let t = graft::edit::npy_tensor(&npy(
        "<i8",
        "(2, 1)",
        &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
    ))
    .unwrap();
    assert_eq!(t.dims, [2, 1]);
    assert_eq!(t.data_type, Some(graft::ir::dtype::INT64));
}

#[test]
fn compound_edits_are_single_steps() {
    let m = round(
        Edit::Specialize {
            graph: "main".into(),
            node: 3,
            attributes: "alpha = 3.0".into(),
            keep: vec!["local.Scale".into()],
        },
        &["local.Scale:alpha_3(b)", "\nScale <alpha"],
    );
    // Specialized again, the call names an overload (its alpha bound): the value is
    // read with the type the generic declares, as the call editor shows it, so `4`
    // is the float 4.0.
    let m = round_on(
        m,
        Edit::Specialize {
            graph: "main".into(),
            node: 3,
            attributes: "alpha = 4".into(),
            keep: vec!["local.Scale".into()],
        },
        &["local.Scale:alpha_4(b)"],
    );
    let call = m.graph(m.graph.unwrap()).nodes[3];
    let overload = graft::specialize::generic_of(&m, call).map(|g| m.function(g).key());
    assert_eq!(overload.map(|k| k.name), Some("Scale".to_string()));
    let overload = graft::ir::FunctionIndex::new(&m).callee(&m, call).unwrap();
    let bound = graft::specialize::binding_of(&m, overload);
    assert_eq!(graft::text::print_attributes(&m, &bound), "alpha = 4.0");
    round(
        Edit::SpecializeAll {
            function: String::new(),
            keep: vec![],
        },
        &["local.Scale:alpha_2(b)"],
    );
    round(
        Edit::RenameFunction {
            function: "local.Scale".into(),
            to: "lib.Times".into(),
        },
        &["lib.Times <alpha = 2.0> (b)"],
    );
    // The new key follows the rules of any new function, in the log as in the app.
    for bad in ["Times", ".Times", "lib.9x"] {
        let mut m = model();
        let rename = Edit::RenameFunction {
            function: "local.Scale".into(),
            to: bad.into(),
        };
        let e = graft::edit::apply(&mut m, &rename).unwrap_err();
        assert_eq!(e.field, graft::edit::Field::NewName, "{bad}: {e}");
        assert_eq!(text(&m), text(&model()), "{bad}");
    }
    // A standard op with a function body, added to the branch first.
    let mut m = model();
    graft::edit::apply(
        &mut m,
        &Edit::AddNode {
            graph: "main/2.then_branch".into(),
            op_type: "LeakyRelu".into(),
            domain: String::new(),
            inputs: vec!["t1".into()],
            outputs: vec!["leaky".into()],
            attributes: String::new(),
            defaults: false,
            name: String::new(),
            at: None,
        },
    )
    .unwrap();
    graft::edit::apply(
        &mut m,
        &Edit::AddOutput {
            graph: "main/2.then_branch".into(),
            value: "leaky".into(),
        },
    )
    .unwrap();
    let m = round_on(
        m,
        Edit::ExpandStandard {
            graph: "main/2.then_branch".into(),
            node: 1,
        },
        &["leaky = Where("],
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    // The guest: the fixture itself, inlined into the else branch, bound to b.
    let guest = graft::export(&model(), &graft::ExportOptions::default()).unwrap();
    let m = round(
        Edit::InlineModel {
            graph: "main/2.else_branch".into(),
            guest_base64: base64_encode(&guest),
            bindings: vec![("x".into(), "b".into()), ("c".into(), "c".into())],
            expose: vec![],
            expose_all: false,
            prefix: "g".into(),
            function: "local.Guest".into(),
            domain_versions: vec![],
        },
        &["local.Guest"],
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    let mut m = model();
    graft::edit::apply(
        &mut m,
        &Edit::Specialize {
            graph: "main".into(),
            node: 3,
            attributes: String::new(),
            keep: vec!["local.Scale".into()],
        },
    )
    .unwrap();
    round_on(
        m,
        Edit::DeleteFunction {
            function: "local.Scale".into(),
        },
        &["Scale:alpha_2"],
    );
    round(
        Edit::InlineCalls {
            function: "local.Scale".into(),
        },
        &["Mul(b,"],
    );
    let m = round(
        Edit::Outline {
            graph: "main".into(),
            nodes: vec![0, 1],
            function: "local.Front".into(),
        },
        &["local.Front"],
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    // A session: several edits, undo some, redo one; the log replays to the result.
    let mut m = model();
    let mut h = History::default();
    h.apply(
        &mut m,
        Edit::RenameValue {
            graph: "main".into(),
            from: "a".into(),
            to: "scaled".into(),
        },
    )
    .unwrap();
    h.apply(
        &mut m,
        Edit::AddNode {
            graph: "main".into(),
            op_type: "Sigmoid".into(),
            domain: String::new(),
            inputs: vec!["scaled".into()],
            outputs: vec!["gate".into()],
            attributes: String::new(),
            defaults: false,
            name: "g".into(),
            at: None,
        },
    )
    .unwrap();
    h.apply(
        &mut m,
        Edit::AddOutput {
            graph: "main".into(),
            value: "gate".into(),
        },
    )
    .unwrap();
    h.apply(
        &mut m,
        Edit::SetAttribute {
            graph: "main".into(),
            node: 4,
            attribute: "alpha = 0.25".into(),
        },
    )
    .unwrap();
    h.undo(&mut m).unwrap();
    h.undo(&mut m).unwrap();
    h.redo(&mut m).unwrap();
    assert_eq!(h.log().len(), 3);
    let mut again = model();
    replay(&mut again, &h.log_json()).unwrap();
    assert_eq!(text(&again), text(&m));
    assert!(text(&m).contains("z, float[N,3] gate)"), "{}", text(&m));
}

#[test]
fn text_replaces_the_model_or_one_function() {
    let edited = text(&model()).replace("b = Relu(a)", "b = Sigmoid(a)");
    let m = round(Edit::ReplaceModel { text: edited }, &["b = Sigmoid(a)"]);
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    let m0 = model();
    let f = m0.functions[0];
    let body = graft::text::print_function(&m0, f).replace("q = Relu(m)", "q = Tanh(m)");
    let m = round(
        Edit::ReplaceFunction {
            function: "local.Scale".into(),
            text: body,
        },
        &["q = Tanh(m)"],
    );
    assert!(errors(&m).is_empty(), "{:?}", errors(&m));
    // Text that does not parse is refused at its line.
    let mut m = model();
    let before = text(&m);
    let e = graft::edit::apply(
        &mut m,
        &Edit::ReplaceModel {
            text: "<ir_version: 10>\ng () => () {\n  y = \n}".into(),
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("line "), "{e}");
    assert_eq!(text(&m), before);
}

/// Random edits, undos and redos (seeded) on the corpus's smaller models: after each,
/// what the document host keeps current (inference, the checks, the summary) equals
/// fresh runs.
#[test]
fn corpus_edits_keep_inference_and_checks_current() {
    let Some(dir) = common::corpus() else {
        eprintln!("no corpus: skipped");
        return;
    };
    let files = common::small_models(&dir, 2_000_000);
    let mut rng = fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d);
    let mut next = move |n: usize| rng.usize(..n.max(1));
    let (mut applied, mut refused, mut undos, mut redos) = (0, 0, 0, 0);
    for path in &files {
        let Some(m) = common::load(path) else {
            continue;
        };
        let mut host = Host::open(m, Vec::new());
        for step in 0..10 {
            let what = format!("{} step {step}", path.display());
            let roll = next(10);
            if roll == 0 && host.can_undo() {
                host.apply(Command::Undo).unwrap();
                common::derived_is_current(&host, &format!("{what}: undo"));
                undos += 1;
                continue;
            }
            if roll == 1 && host.can_redo() {
                if host.apply(Command::Redo).is_ok() {
                    common::derived_is_current(&host, &format!("{what}: redo"));
                    redos += 1;
                }
                continue;
            }
            let m = host.model();
            // A graph outside functions with nodes, and a node of it.
            let graphs: Vec<graft::ir::GraphId> = m
                .graphs
                .iter()
                .filter(|(g, graph)| {
                    !graph.nodes.is_empty()
                        && graft::edit::graph_path(m, *g).is_some_and(|p| !p.starts_with("fn:"))
                })
                .map(|(g, _)| g)
                .collect();
            if graphs.is_empty() {
                break;
            }
            let g = graphs[next(graphs.len())];
            let gp = graft::edit::graph_path(m, g).unwrap();
            let nodes = &m.graph(g).nodes;
            let k = next(nodes.len());
            let node = m.node(nodes[k]);
            let out_name = node
                .outputs
                .iter()
                .flatten()
                .next()
                .map(|&v| m.value(v).name.clone());
            let in_name = node
                .inputs
                .iter()
                .flatten()
                .next()
                .map(|&v| m.value(v).name.clone());
            let edit = match roll {
                2 | 3 => Edit::DeleteNodes {
                    graph: gp,
                    nodes: vec![k],
                    reconnect: roll == 2,
                },
                4 => match out_name {
                    Some(from) => Edit::RenameValue {
                        graph: gp,
                        from,
                        to: format!("renamed_{step}"),
                    },
                    None => continue,
                },
                5 => Edit::RenameNode {
                    graph: gp,
                    node: k,
                    to: format!("node_{step}"),
                },
                6 if !node.inputs.is_empty() => Edit::SetInput {
                    graph: gp,
                    node: k,
                    index: next(node.inputs.len()),
                    value: in_name.filter(|_| next(2) == 0).unwrap_or_default(),
                },
                7 => match out_name.or(in_name) {
                    Some(v) => Edit::AddNode {
                        graph: gp,
                        op_type: ["Relu", "Identity", "Shape"][next(3)].into(),
                        domain: String::new(),
                        inputs: vec![v],
                        outputs: Vec::new(),
                        attributes: String::new(),
                        defaults: false,
                        name: String::new(),
                        at: None,
                    },
                    None => continue,
                },
                _ => {
                    let Some(a) = node.attributes.iter().find(|a| {
                        matches!(
                            a.kind,
                            graft::ir::AttrKind::Value(graft::ir::AttrValue::Int(_))
                        )
                    }) else {
                        continue;
                    };
                    Edit::SetAttribute {
                        graph: gp,
                        node: k,
                        attribute: format!("{} = {}", a.name(), next(3)),
                    }
                }
            };
            match host.apply(Command::Edit(edit.clone())) {
                Ok(_) => {
                    common::derived_is_current(&host, &format!("{what}: {edit:?}"));
                    applied += 1;
                }
                Err(_) => refused += 1,
            }
        }
    }
    eprintln!(
        "{} models: {applied} edits, {refused} refused, {undos} undos, {redos} redos",
        files.len()
    );
    assert!(applied > 1000, "too few edits ran: {applied}");
}

/// `m`'s view, every group open, laid out afresh.
fn fresh(m: &Model) -> graft::view::Scene {
    let mut scene = graft::view::Scene::new(graft::view::View::of_model(m).unwrap());
    scene.expand_to_depth(m, usize::MAX, 10_000);
    scene.layout(m, &mut || false).unwrap();
    scene
}

/// An attribute edit rewrites the edited boxes in place and lays out only the groups
/// holding them; the picture equals a view built afresh. An edit of anything else is
/// not done in place.
#[test]
fn attribute_edits_redraw_in_place_as_a_fresh_view() {
    use graft::view::svg;
    let leaky = MODEL.replace("b = Relu(a)", "b = LeakyRelu(a)");
    let mut m = graft::text::parse_model(&leaky).unwrap().model;
    let mut scene = fresh(&m);
    let mut h = History::default();
    for (node, attribute) in [(1, "alpha = 0.5"), (1, "alpha = 0.000123456789")] {
        let edit = Edit::SetAttribute {
            graph: "main".into(),
            node,
            attribute: attribute.into(),
        };
        let touched = h.apply(&mut m, edit).unwrap();
        assert!(touched.attributes_only());
        assert!(scene.refresh_nodes(&m, &touched.nodes));
        scene.layout(&m, &mut || false).unwrap();
        assert!(scene.last_layouts >= 1);
        assert_eq!(svg::document(&scene, &m), svg::document(&fresh(&m), &m));
    }
    let (_, touched) = h.undo(&mut m).unwrap();
    assert!(scene.refresh_nodes(&m, &touched.nodes));
    scene.layout(&m, &mut || false).unwrap();
    assert_eq!(svg::document(&scene, &m), svg::document(&fresh(&m), &m));
    assert!(svg::document(&scene, &m).contains("0.5"));
    // The If's branches and the call's body depend on attributes: built again.
    let touched = h
        .apply(
            &mut m,
            Edit::SetAttribute {
                graph: "main".into(),
                node: 3,
                attribute: "alpha = 3.0".into(),
            },
        )
        .unwrap();
    assert!(!scene.refresh_nodes(&m, &touched.nodes));
    // A rename changes only what its box says: in place too.
    let mut scene = fresh(&m);
    let rename = Edit::RenameNode {
        graph: "main".into(),
        node: 1,
        to: "relu".into(),
    };
    let touched = h.apply(&mut m, rename).unwrap();
    assert!(!touched.attributes_only() && touched.labels_only());
    assert!(scene.refresh_nodes(&m, &touched.nodes));
    scene.layout(&m, &mut || false).unwrap();
    assert_eq!(svg::document(&scene, &m), svg::document(&fresh(&m), &m));
}

/// In a graph grouped by node-name paths, a rename within its namespace redraws in
/// place, as a fresh view would; a rename into another namespace builds the view
/// again.
#[test]
fn a_rename_within_its_namespace_redraws_in_place() {
    use graft::view::svg;
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 18]>\nmain (float[N] v0) => (float[N] v80) {\n",
    );
    for k in 1..=80 {
        text.push_str(&format!("  v{k} = Relu(v{})\n", k - 1));
    }
    text.push('}');
    let mut m = graft::text::parse_model(&text).unwrap().model;
    let main = m.graph.unwrap();
    for (k, &n) in m.graph(main).nodes.clone().iter().enumerate() {
        let block = if k < 40 { "blk1" } else { "blk2" };
        m.nodes[n].name = Some(format!("{block}/relu_{k}"));
    }
    let mut scene = fresh(&m);
    let mut h = History::default();
    let rename = |to: &str| Edit::RenameNode {
        graph: "main".into(),
        node: 3,
        to: to.into(),
    };
    let touched = h.apply(&mut m, rename("blk1/renamed")).unwrap();
    assert!(touched.labels_only());
    assert!(scene.refresh_nodes(&m, &touched.nodes));
    scene.layout(&m, &mut || false).unwrap();
    let drawn = svg::document(&scene, &m);
    assert!(drawn.contains("blk1/renamed"));
    assert_eq!(drawn, svg::document(&fresh(&m), &m));
    let touched = h.apply(&mut m, rename("blk2/moved")).unwrap();
    assert!(!scene.refresh_nodes(&m, &touched.nodes));
}

/// The checked door for ids from outside (`Model::live_node`, `live_value`): an id
/// is live while what it names is reachable, through owning nodes still in their
/// graphs, from the main graph or a library function. `Touched::ids` says when ids
/// from before a change may name nothing (an undone compound edit cut the arenas
/// back) or something else (a replaced model), and every entry point refuses a dead
/// id, naming it, instead of indexing with it.
#[test]
fn ids_from_outside_go_through_the_checked_door() {
    use graft::edit::{Change, Field};
    use graft::ir::Ids;
    let mut m = model();
    let original = text(&m);
    let main = m.graph.unwrap();
    let nodes = m.graph(main).nodes.clone();
    let mut checked = graft::check::Checked::new(&m);
    let mut h = History::default();
    let then = graft::edit::resolve_path(&m, "main/2.then_branch").unwrap();
    let neg = m.graph(then).nodes[0];
    let t1 = m.node(neg).outputs[0].unwrap();
    assert!(m.live_node(neg).is_some() && m.live_value(t1).is_some());

    // Deleting the If (its output first): its branches' nodes and values are in the
    // arena but no longer in the model.
    let y = m.node(nodes[2]).outputs[0].unwrap();
    let unused = Change::RemoveOutput {
        graph: main,
        value: y,
    };
    h.apply_change(&mut m, &unused, &mut checked).unwrap();
    let deleted = Change::DeleteNodes {
        nodes: vec![nodes[2]],
        reconnect: false,
    };
    let touched = h.apply_change(&mut m, &deleted, &mut checked).unwrap();
    assert_eq!(touched.ids, Ids::Kept);
    assert!(m.nodes.get(neg).is_some(), "still in the arena");
    assert!(m.live_node(neg).is_none() && m.live_value(t1).is_none());
    let e = graft::edit::read_attributes(&m, neg, "alpha = 1.0").unwrap_err();
    assert_eq!(e.field, Field::Node);
    assert!(e.message.contains("no longer in the model"), "{e}");
    let rename = Change::RenameNode {
        node: neg,
        to: "x".into(),
    };
    let e = h.apply_change(&mut m, &rename, &mut checked).unwrap_err();
    assert!(e.message.contains("no longer in the model"), "{e}");
    let (_, touched) = h.undo(&mut m).unwrap();
    assert_eq!(touched.ids, Ids::Kept);
    assert!(m.live_node(neg).is_some(), "the undo brings it back");
    h.undo(&mut m).unwrap();

    // Specializing the call adds an overload; its undo cuts the arenas back.
    let specialize = Change::Specialize {
        node: nodes[3],
        attributes: graft::edit::read_attributes(&m, nodes[3], "alpha = 3.0").unwrap(),
        keep: vec![],
    };
    let touched = h.apply_change(&mut m, &specialize, &mut checked).unwrap();
    assert_eq!(touched.ids, Ids::Kept, "a compound edit only adds ids");
    let last = m.nodes.iter().last().unwrap().0;
    assert!(
        m.live_node(last).is_some(),
        "a node of the new overload's body"
    );
    let arena = m.nodes.len();
    let (_, touched) = h.undo(&mut m).unwrap();
    assert_eq!(touched.ids, Ids::CutBack);
    assert!(m.nodes.len() < arena && m.live_node(last).is_none());
    assert_eq!(text(&m), original);
    for call in [
        graft::specialize::specialize(&mut m, last, &[])
            .map(|_| ())
            .err()
            .map(|e| e.to_string()),
        graft::specialize::use_overload(&mut m, last, "")
            .err()
            .map(|e| e.to_string()),
        graft::library::expand_standard(&mut m, last)
            .err()
            .map(|e| e.to_string()),
        graft::library::inline_call(&mut m, last)
            .err()
            .map(|e| e.to_string()),
    ] {
        let said = call.expect("refused");
        assert!(said.contains("node"), "{said}");
    }
    assert_eq!(text(&m), original, "the refusals changed nothing");
    let e = graft::edit::read_attributes(&m, last, "alpha = 0.5").unwrap_err();
    assert_eq!(e.field, Field::Node);
    let (_, touched) = h.redo(&mut m).unwrap().unwrap();
    assert_eq!(touched.ids, Ids::Kept);

    // A replaced model renumbers its ids, applied and undone.
    let replace = Change::ReplaceModel {
        text: original.clone(),
    };
    let touched = h.apply_change(&mut m, &replace, &mut checked).unwrap();
    assert_eq!(touched.ids, Ids::Renumbered);
    let (_, touched) = h.undo(&mut m).unwrap();
    assert_eq!(touched.ids, Ids::Renumbered);
}

/// `History::apply_all`, as the page's `__graftApply` uses it: all the edits or none.
/// A refused one names its position; the model (its exported bytes), the check and
/// the redo list are as they were.
#[test]
fn a_log_applies_whole_or_not_at_all() {
    let mut m = model();
    let mut h = History::default();
    let mut checked = graft::check::Checked::new(&m);
    let rename = |from: &str, to: &str| Edit::RenameValue {
        graph: "main".into(),
        from: from.into(),
        to: to.into(),
    };
    h.apply_checked(&mut m, rename("a", "a1"), &mut checked)
        .unwrap();
    h.undo(&mut m).unwrap();
    let bytes = graft::export(&m, &Default::default()).unwrap();
    let diagnostics = checked.diagnostics().len();
    // The second edit's name is taken by the first one's.
    let log = vec![rename("a", "a2"), rename("b", "a2"), rename("b", "b2")];
    let (at, e) = h.apply_all(&mut m, log, &mut checked).unwrap_err();
    assert_eq!(at, 1, "{e}");
    assert_eq!(graft::export(&m, &Default::default()).unwrap(), bytes);
    assert_eq!(checked.diagnostics().len(), diagnostics);
    assert!(!h.can_undo());
    assert_eq!(h.undone().len(), 1, "the redo list is kept");
    let applied = h
        .apply_all(
            &mut m,
            vec![rename("a", "a2"), rename("b", "b2")],
            &mut checked,
        )
        .unwrap();
    assert_eq!(applied, 2);
    let printed = text(&m);
    assert!(
        printed.contains("a2 = Mul") && printed.contains("b2 = Relu"),
        "{printed}"
    );
    assert_eq!(h.log().len(), 2);
    assert!(!h.can_redo());
}

/// The doc string of the model, the main graph, an If body, a function and nodes
/// in each: set, undone, redone and replayed; `""` removes one; a node past the
/// graph's end is refused at `node`.
#[test]
fn doc_strings_of_the_model_a_graph_a_function_and_a_node() {
    let doc = |graph: &str, node: Option<usize>, doc: &str| Edit::SetDocString {
        graph: graph.into(),
        node,
        doc: doc.into(),
    };
    let places = [
        ("", None),
        ("main", None),
        ("main/2.then_branch", None),
        ("fn:local.Scale", None),
        ("main", Some(1)),
        ("main/2.then_branch", Some(0)),
        ("fn:local.Scale", Some(1)),
    ];
    for (k, (graph, node)) in places.into_iter().enumerate() {
        let said = format!("what place {k} does");
        let documented = round(doc(graph, node, &said), &[&said]);
        // The doc string is where the edit names it, and nowhere else.
        let text = text(&documented);
        assert_eq!(text.matches(&said).count(), 1, "{text}");
        let bytes = graft::export(&documented, &Default::default()).unwrap();
        let kept = graft::import(bytes.into()).unwrap().model;
        assert!(graft::text::print_model(&kept).contains(&said));
        round_on(documented, doc(graph, node, ""), &[]);
    }
    let described = |edit: &Edit| graft::edit::describe_in(&model(), edit);
    assert_eq!(described(&doc("", None, "x")), "Document the model");
    assert_eq!(
        described(&doc("main", Some(1), "x")),
        "Document node 1 (Relu)"
    );
    let mut m = model();
    let e = graft::edit::apply(&mut m, &doc("main", Some(9), "x")).unwrap_err();
    assert_eq!(e.field, graft::edit::Field::Node, "{e}");
    assert_eq!(text(&m), text(&model()));
}
