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

fn errors(m: &Model) -> usize {
    let all = graft::check::check(m);
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
