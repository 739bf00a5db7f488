//! `graft::host`: the door property. Random commands (edits by record and by ids,
//! logs, restores, undo, redo, steps of the history, replacements by text), with ids
//! taken from any earlier state (deleted nodes, nodes past an undone compound edit,
//! ids of a replaced model) and indices out of range. No command panics; a refused
//! one leaves the exported bytes and the history as they were; an accepted one never
//! leaves the model worse by the checker; and after every command what the host
//! derives (the check, inference, the summary) equals a fresh run on its model.

mod common;

use graft::edit::{Change, Edit};
use graft::host::{Command, EngineError, Host};
use graft::ir::{Model, NodeId, ValueId};

/// The shared model with one standard op more (Softsign, a function in the standard,
/// for `ExpandStandard`) between the Relu and the call.
fn model_text() -> String {
    common::MODEL.replace(
        "  z = local.Scale <alpha = 2.0> (b)",
        "  s = Softsign(b)\n  z = local.Scale <alpha = 2.0> (s)",
    )
}

const GRAPHS: [&str; 5] = [
    "main",
    "main/2.then_branch",
    "fn:local.Scale",
    "main/7.body",
    "fn:nowhere.None",
];
const VALUES: [&str; 8] = ["x", "a", "b", "s", "t1", "m", "ghost", ""];

/// The state a front saw: its serial, and the ids live in it.
struct Seen {
    serial: u64,
    /// Each live node with its op.
    nodes: Vec<(NodeId, String)>,
    values: Vec<ValueId>,
}

fn seen(host: &Host) -> Seen {
    let m = host.model();
    Seen {
        serial: host.serial(),
        nodes: m
            .nodes
            .iter()
            .filter(|(n, _)| m.live_node(*n).is_some())
            .map(|(n, node)| (n, node.op_type().to_string()))
            .collect(),
        values: m
            .values
            .iter()
            .map(|(v, _)| v)
            .filter(|v| m.live_value(*v).is_some())
            .collect(),
    }
}

fn pick<'a, T>(rng: &mut fastrand::Rng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.usize(..items.len())])
}

/// A random edit record: a graph that may not exist, a node index that may be out
/// of range, values that may not be there.
fn record(rng: &mut fastrand::Rng) -> Edit {
    let graph = pick(rng, &GRAPHS).unwrap().to_string();
    let node = rng.usize(..7);
    let value = |rng: &mut fastrand::Rng| pick(rng, &VALUES).unwrap().to_string();
    match rng.u8(..9) {
        0 => Edit::RenameNode {
            graph,
            node,
            to: format!("n{}", rng.u8(..4)),
        },
        1 => Edit::SetAttribute {
            graph,
            node,
            attribute: pick(rng, &["alpha = 0.5", "axis = 7", "alpha = [1", "to = 1"])
                .unwrap()
                .to_string(),
        },
        2 => Edit::DeleteNodes {
            graph,
            nodes: vec![node],
            reconnect: rng.bool(),
        },
        3 => Edit::RenameValue {
            graph,
            from: value(rng),
            to: value(rng),
        },
        4 => Edit::SetInput {
            graph,
            node,
            index: rng.usize(..3),
            value: value(rng),
        },
        5 => Edit::ExpandStandard { graph, node },
        6 => Edit::Specialize {
            graph,
            node,
            attributes: "alpha = 3.0".into(),
            keep: Vec::new(),
        },
        7 => Edit::AddNode {
            graph,
            op_type: pick(rng, &["Relu", "Neg", "Nope"]).unwrap().to_string(),
            domain: String::new(),
            inputs: vec![value(rng)],
            outputs: Vec::new(),
            attributes: String::new(),
            defaults: false,
            name: String::new(),
            at: None,
        },
        _ => Edit::InlineCalls {
            function: String::new(),
        },
    }
}

/// A random change by ids from a state seen earlier (maybe long gone), with the node
/// it names (if it names one) and that node's op then.
fn change(rng: &mut fastrand::Rng, states: &[Seen]) -> Option<(Command, Option<(NodeId, String)>)> {
    let state = pick(rng, states)?;
    let (node, op) = pick(rng, &state.nodes)?.clone();
    let value = *pick(rng, &state.values)?;
    let change = match rng.u8(..6) {
        0 => Change::RenameNode {
            node,
            to: format!("r{}", rng.u8(..4)),
        },
        1 => Change::DeleteNodes {
            nodes: vec![node],
            reconnect: rng.bool(),
        },
        2 => Change::RenameValue {
            value,
            to: format!("v{}", rng.u8(..4)),
        },
        3 => Change::SetInput {
            node,
            index: rng.usize(..3),
            value: Some(value),
        },
        4 => Change::ExpandStandard { node },
        _ => Change::Specialize {
            node,
            attributes: Vec::new(),
            keep: Vec::new(),
        },
    };
    // A rename of a value names no node.
    let named = (!matches!(change, Change::RenameValue { .. })).then_some((node, op));
    let command = Command::Change {
        change,
        on: state.serial,
    };
    Some((command, named))
}

fn bytes(host: &Host) -> Vec<u8> {
    graft::export(host.model(), &Default::default()).unwrap()
}

/// Errors by the checker and by inference (what onnx's full check finds).
fn errors(m: &Model) -> usize {
    let mut all = graft::check::check(m);
    all.extend(graft::infer::infer(m).diagnostics);
    all.iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .count()
}

#[test]
fn random_commands_with_stale_ids_never_panic_and_a_refusal_changes_nothing() {
    let opened = graft::text::parse_model(&model_text()).unwrap().model;
    let at_open = errors(&opened);
    let text = graft::text::print_model(&opened);
    let (mut accepted, mut refused, mut stale) = (0, 0, 0);
    for seed in 0..48u64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut host = Host::open(opened.clone(), Vec::new());
        let mut states = vec![seen(&host)];
        for step in 0..40 {
            let mut named = None;
            let command = match rng.u8(..12) {
                0 | 1 => Command::Undo,
                2 => Command::Redo,
                3 => Command::GoTo(rng.usize(..6)),
                4 => Command::Log((0..rng.usize(1..4)).map(|_| record(&mut rng)).collect()),
                5 => Command::Restore((0..rng.usize(1..4)).map(|_| record(&mut rng)).collect()),
                6 => Command::Edit(Edit::ReplaceModel {
                    text: match rng.u8(..3) {
                        0 => text.clone(),
                        // The same model with one node more in front: every id of
                        // the state before names another node.
                        1 => model_text()
                            .replace("  a = Mul(x, w)", "  x1 = Identity(x)\n  a = Mul(x1, w)"),
                        _ => "<ir_version: 10>\nmain (x) => (".into(),
                    },
                }),
                7 | 8 => Command::Edit(record(&mut rng)),
                _ => match change(&mut rng, &states) {
                    Some((command, node)) => {
                        named = node;
                        command
                    }
                    None => continue,
                },
            };
            let what = format!("seed {seed}, step {step}: {command:?}");
            let (before, serial, history) = (bytes(&host), host.serial(), host.history());
            // The op of the node a change names, now: it must be the one it had
            // when the change was made, or the change must be refused.
            let now = named
                .as_ref()
                .and_then(|(node, _)| host.model().live_node(*node));
            let now = now.map(|n| n.op_type().to_string());
            match host.apply(command) {
                Ok(applied) => {
                    accepted += 1;
                    if let Some((_, op)) = &named {
                        assert_eq!(now.as_ref(), Some(op), "{what}: named another node");
                    }
                    if applied.edits == 0 {
                        assert_eq!(bytes(&host), before, "{what}: nothing applied");
                    }
                    assert!(errors(host.model()) <= at_open, "{what}: worse");
                }
                Err(e) => {
                    refused += 1;
                    stale += usize::from(e == EngineError::Stale);
                    assert!(!e.to_string().is_empty(), "{what}");
                    assert_eq!(bytes(&host), before, "{what}: refused ({e}) yet changed");
                    assert_eq!(host.serial(), serial, "{what}");
                    assert_eq!(host.history(), history, "{what}");
                }
            }
            common::derived_is_current(&host, &what);
            if host.serial() != states.last().unwrap().serial {
                states.push(seen(&host));
            }
        }
        let _ = host.apply(Command::GoTo(0));
        assert_eq!(
            graft::text::print_model(host.model()),
            text,
            "seed {seed}: back to the start"
        );
    }
    // The test reaches every outcome it is about.
    assert!(
        accepted > 300 && refused > 300 && stale > 10,
        "{accepted} {refused} {stale}"
    );
}

/// A log `graft apply` reads, as the app writes it today (its `.edits.json`): it
/// replays through the door, and so does the host's own log of it.
#[test]
fn an_edit_log_written_by_the_app_replays() {
    let log = r#"[
  { "edit": "rename_value", "graph": "main", "from": "a", "to": "act" },
  { "edit": "set_attribute", "graph": "main", "node": 4, "attribute": "alpha = 0.5" },
  { "edit": "rename_node", "graph": "main/2.then_branch", "node": 0, "to": "negate" },
  { "edit": "specialize", "graph": "main", "node": 4, "attributes": "", "keep": [] },
  { "edit": "delete_nodes", "graph": "main", "nodes": [3], "reconnect": true }
]"#;
    let opened = graft::text::parse_model(&model_text()).unwrap().model;
    let mut host = Host::open(opened.clone(), Vec::new());
    let edits = graft::host::read_log(log).unwrap();
    let applied = host.apply(Command::Log(edits)).unwrap();
    assert_eq!(applied.edits, 5);
    let printed = graft::text::print_model(host.model());
    assert!(printed.contains("act = Mul"), "{printed}");
    assert!(printed.contains("[negate] t1 = Neg(b)"), "{printed}");
    assert!(
        printed.contains("z = local.Scale:alpha_0p5(b)"),
        "{printed}"
    );
    assert!(!printed.contains("Softsign"), "{printed}");
    let mut again = Host::open(opened, Vec::new());
    let edits = graft::host::read_log(&host.log_json()).unwrap();
    again.apply(Command::Log(edits)).unwrap();
    assert_eq!(bytes(&again), bytes(&host));

    let e = graft::host::read_log(r#"[{ "edit": "rename_value" }]"#).unwrap_err();
    assert_eq!(e.index(), Some(0), "{e}");
    let bad = r#"[{ "edit": "rename_node", "graph": "main", "node": 0, "to": "a" },
                  { "edit": "rename_node", "graph": "main", "node": 40, "to": "b" }]"#;
    let e = host
        .apply(Command::Log(graft::host::read_log(bad).unwrap()))
        .unwrap_err();
    assert_eq!(e.index(), Some(1), "{e}");
    assert!(e.to_string().starts_with("edit 2 of the log: "), "{e}");
}

/// What onnx's full check finds through shape inference the door refuses, naming
/// the rule in the user's terms: an axis out of its input's range (Softmax
/// `axis = 7` on a rank-2 input), a perm that is not one, and a delete with reconnect
/// that feeds a tensor to an output stated a sequence. The model is unchanged.
#[test]
fn edits_onnx_full_check_rejects_are_refused() {
    let text = r#"<ir_version: 8, opset_import: ["" : 18]>
mlp (float[N, 4] x) => (float[N, 4] y, seq(float[N, 4]) s) {
  h = Relu(x)
  y = Softmax <axis = 1> (h)
  t = Transpose <perm = [1, 0]> (h)
  u = Transpose <perm = [1, 0]> (t)
  s = SequenceConstruct(u)
}"#;
    let model = graft::text::parse_model(text).unwrap().model;
    let mut host = Host::open(model, Vec::new());
    let before = bytes(&host);
    let refused = |host: &mut Host, edit: Edit| match host.apply(Command::Edit(edit)) {
        Err(EngineError::Refused(e)) => e.message,
        other => panic!("not refused: {other:?}"),
    };
    let set = |node: usize, attribute: &str| Edit::SetAttribute {
        graph: "main".into(),
        node,
        attribute: attribute.into(),
    };
    let axis = refused(&mut host, set(1, "axis = 7"));
    assert!(axis.contains("axis must be in [-2, 1]"), "{axis}");
    let perm = refused(&mut host, set(2, "perm = [0, 0]"));
    assert!(perm.contains("not a permutation of 0..2"), "{perm}");
    let delete = Edit::DeleteNodes {
        graph: "main".into(),
        nodes: vec![4],
        reconnect: true,
    };
    let kind = refused(&mut host, delete);
    assert!(
        kind.contains("is stated a sequence but what produces it gives a tensor"),
        "{kind}"
    );
    let retype = Edit::SetType {
        graph: "main".into(),
        name: "y".into(),
        ty: "int64[N, 4]".into(),
    };
    let ty = refused(&mut host, retype);
    assert!(ty.contains("stated int64 but inferred float"), "{ty}");
    assert_eq!(bytes(&host), before, "a refusal changed the model");
    assert!(!host.can_undo() && !host.can_redo());
    // In range, the same edits apply; a log with one bad edit applies none.
    host.apply(Command::Edit(set(1, "axis = -2"))).unwrap();
    let log = vec![set(1, "axis = 0"), set(1, "axis = 2")];
    let e = host.apply(Command::Log(log)).unwrap_err();
    assert_eq!(e.index(), Some(1));
    assert_eq!(host.history().0.len(), 1);
    common::derived_is_current(&host, "after a refused log");
}

/// onnxruntime's logreg_iris: deleting ZipMap with reconnect would feed the
/// probabilities tensor to the output stated `seq(map(int64, float))`. onnx's full
/// check and onnxruntime reject that model, so the edit is refused.
#[test]
fn deleting_zipmap_with_reconnect_is_refused() {
    let Some(dir) = common::corpus() else { return };
    let path = dir.join("real/onnxruntime/onnxruntime/datasets/logreg_iris.onnx");
    let model = common::load(&path).expect("logreg_iris in the corpus");
    let zipmap = {
        let g = model.graph(model.graph.unwrap());
        g.nodes
            .iter()
            .position(|&n| model.node(n).op_type() == "ZipMap")
            .expect("a ZipMap")
    };
    let mut host = Host::open(model, Vec::new());
    let before = bytes(&host);
    let delete = Edit::DeleteNodes {
        graph: "main".into(),
        nodes: vec![zipmap],
        reconnect: true,
    };
    let e = host.apply(Command::Edit(delete)).unwrap_err();
    assert!(e.to_string().contains("stated a sequence"), "{e}");
    assert_eq!(bytes(&host), before);
}

#[test]
fn undo_of_a_reconnecting_delete_keeps_inference_current() {
    let text = r#"<ir_version: 8, opset_import: ["" : 18]>
g (float[N, 4] x) => (float[N, 4] y) {
  h = Relu(x)
  u = Transpose <perm = [1, 0]> (h)
  y = Transpose <perm = [1, 0]> (u)
}"#;
    let model = graft::text::parse_model(text).unwrap().model;
    let mut host = Host::open(model, Vec::new());
    let delete = Edit::DeleteNodes {
        graph: "main".into(),
        nodes: vec![2],
        reconnect: true,
    };
    host.apply(Command::Edit(delete)).unwrap();
    common::derived_is_current(&host, "after the delete");
    host.apply(Command::Undo).unwrap();
    common::derived_is_current(&host, "after its undo");
}

/// Messages in the user's terms: a bare word as a value says what a value looks
/// like (it was "expected `=>` between inputs and outputs"); the history names the
/// node by its op and name (it said "node 5"); a file that is not a model says so.
#[test]
fn messages_name_what_the_user_sees() {
    let e = graft::text::parse_attributes("alpha = abc").unwrap_err();
    assert!(e.message.starts_with("`abc` is not a value"), "{e:?}");
    assert_eq!((e.line, e.column), (1, 9));
    let text = r#"<ir_version: 8, opset_import: ["" : 18]>
g (float[N, 4] x) => (float[N, 4] y) {
  h = Relu(x)
  [head] y = Softmax <axis = 1> (h)
}"#;
    let model = graft::text::parse_model(text).unwrap().model;
    let mut host = Host::open(model, Vec::new());
    let set = Edit::SetAttribute {
        graph: "main".into(),
        node: 1,
        attribute: "axis = -1".into(),
    };
    host.apply(Command::Edit(set)).unwrap();
    let delete = Edit::DeleteNodes {
        graph: "main".into(),
        nodes: vec![0],
        reconnect: true,
    };
    host.apply(Command::Edit(delete)).unwrap();
    host.apply(Command::Undo).unwrap();
    let (done, undone) = host.history();
    assert_eq!(done, ["Set axis = -1 on Softmax \"head\""]);
    assert_eq!(undone, ["Delete node 0 (Relu) (reconnected)"]);
    let e = graft::import(bytes::Bytes::from_static(&[0x0c, 0x0d, 0x0e])).unwrap_err();
    assert!(
        e.to_string().starts_with("this file is not an ONNX model"),
        "{e}"
    );
}
