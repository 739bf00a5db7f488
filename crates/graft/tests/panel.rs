//! `graft::view::panel`: the properties panel's view-models (a node with its editor
//! and inferred types, a call with its compile-time attribute editor, a graph input
//! with its type editor), and item paths that find the same item again.

use std::sync::Arc;

use graft::ir::Model;
use graft::view::panel::{self, CallEditor, TerminalEditor};
use graft::view::{ItemId, ItemKind, View};

const MODEL: &str = r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[N, 3] x, bool c) => (float[N, 3] y, float[N, 3] z) <float[3] w = {1, 2, 3}> {
  a = Mul(x, w)
  b = LeakyRelu <alpha = 0.2> (a)
  y = If(c) <
    then_branch = t () => (t_out) { t_out = Neg(b) },
    else_branch = e () => (e_out) { e_out = Identity(b) }
  >
  z = local.Scale <alpha = 2.0> (b)
}
<domain: "local", opset_import: ["": 18]>
Scale <beta, alpha: float = 1.0> (p) => (q) {
  k = Constant <value_float: float = @alpha> ()
  q = Mul(p, k)
}
"#;

fn view(model: &Model) -> View {
    let mut view = View::of_model(model).unwrap();
    view.inferred = Some(Arc::new(graft::infer::infer(model)));
    view
}

/// The item of `view` (built so far) that shows the node named `name` or the value
/// `name` as an input terminal.
fn find(model: &Model, view: &View, name: &str) -> ItemId {
    (0..view.items.len())
        .map(|i| ItemId::try_from(i).unwrap())
        .find(|&i| match view.item(i).unwrap().kind {
            ItemKind::Node { node, .. } => {
                let n = model.node(node);
                n.outputs
                    .iter()
                    .flatten()
                    .any(|&v| model.value(v).name == name)
            }
            ItemKind::In { value } => model.value(value).name == name,
            _ => false,
        })
        .unwrap_or_else(|| panic!("no item for {name}"))
}

#[test]
fn a_node_shows_its_types_attributes_and_editor() {
    let model = graft::text::parse_model(MODEL).unwrap().model;
    let view = view(&model);
    let item = find(&model, &view, "b");
    let p = panel::properties(&model, &view, item).unwrap();
    assert_eq!(p.title, "LeakyRelu");
    assert_eq!(
        p.kind, "activation",
        "what kind of op it is, as its colour says"
    );
    assert_eq!(p.inputs, ["a: float[N,3]"]);
    assert_eq!(p.outputs, ["b: float[N,3]"]);
    assert_eq!(p.attributes, [("alpha".to_string(), "0.2".to_string(), "")]);
    assert!(p.doc.contains("LeakyRelu"), "{}", p.doc);
    let editor = p.editor.unwrap();
    assert_eq!(editor.inputs, ["a"]);
    assert_eq!(editor.initializers, [None]);
    assert_eq!(
        editor.attributes,
        [("alpha".to_string(), "alpha = 0.2".to_string())]
    );
    assert!(p.call.is_none());
    // The Mul reads the initializer w: its data can be replaced.
    let mul = find(&model, &view, "a");
    let editor = panel::properties(&model, &view, mul)
        .unwrap()
        .editor
        .unwrap();
    assert_eq!(editor.inputs, ["x", "w"]);
    assert!(editor.initializers[0].is_none() && editor.initializers[1].is_some());
}

#[test]
fn a_call_shows_its_compile_time_attributes() {
    let model = graft::text::parse_model(MODEL).unwrap().model;
    let view = view(&model);
    let item = find(&model, &view, "z");
    let p = panel::properties(&model, &view, item).unwrap();
    assert_eq!(p.kind, "function call");
    let ItemKind::Node { node, .. } = view.item(item).unwrap().kind else {
        panic!("a node");
    };
    assert_eq!(
        p.call,
        Some(CallEditor {
            node,
            function: "local.Scale".into(),
            overload: String::new(),
            overloads: vec![String::new()],
            attributes: vec![
                ("beta".into(), None, None),
                ("alpha".into(), Some("1.0".into()), Some("2.0".into())),
            ],
        })
    );
    assert_eq!(
        graft::specialize::generic_of(&model, node),
        Some(model.functions[0])
    );
    // Specialized (the generic kept, as the app's call editor keeps it): the call
    // names its overload, and still edits the generic's attributes, with the values
    // the overload was made with.
    let mut special = model.clone();
    let options = graft::specialize::SpecializeOptions {
        keep: vec![model.function(model.functions[0]).key()],
        only: None,
    };
    graft::specialize::specialize_with(&mut special, node, &[], &options).unwrap();
    let main = special.graph.unwrap();
    let call = *special.graph(main).nodes.last().unwrap();
    let editor = panel::call_editor(&special, call).unwrap();
    assert_eq!(editor.overload, "alpha_2");
    assert_eq!(editor.overloads, ["", "alpha_2"]);
    assert_eq!(editor.attributes[1].2.as_deref(), Some("2.0"));
}

#[test]
fn a_graph_input_offers_its_type() {
    let model = graft::text::parse_model(MODEL).unwrap().model;
    let view = view(&model);
    let item = find(&model, &view, "x");
    let p = panel::properties(&model, &view, item).unwrap();
    assert_eq!(p.kind, "input");
    let TerminalEditor {
        name, ty, input, ..
    } = p.terminal.unwrap();
    assert_eq!(
        (name.as_str(), ty.as_str(), input),
        ("x", "float[N,3]", true)
    );
}

#[test]
fn item_paths_find_the_same_item_in_a_fresh_view() {
    let model = graft::text::parse_model(MODEL).unwrap().model;
    let mut first = view(&model);
    // Open the If and its then branch.
    let root = first.root();
    let if_item = find(&model, &first, "y");
    let branch = first.children(&model, if_item)[0];
    first.children(&model, branch);
    first.items[if_item as usize].expanded = true;
    first.items[branch as usize].expanded = true;
    let neg = find(&model, &first, "t_out");
    let path = panel::item_path(&first, neg).unwrap();
    assert_eq!(path.split('.').count(), 3, "{path}");
    assert_eq!(panel::item_path(&first, root).as_deref(), Some(""));
    // The If (the fifth item: two inputs, two outputs before the nodes) and both
    // its branches (a branch opens with its If).
    let open = panel::expanded_paths(&first);
    assert_eq!(open, ["4", "4.0", "4.1"]);
    assert!(path.starts_with(&open[1]), "{path} under {open:?}");
    let mut fresh = view(&model);
    let again = panel::item_at(&mut fresh, &model, &path).unwrap();
    assert_eq!(
        fresh.item(again).unwrap().kind,
        first.item(neg).unwrap().kind
    );
    assert_eq!(panel::item_at(&mut fresh, &model, "99"), None);
}
