//! `graft::diff`: ONNX text in, the diff's report out.

mod support;

use graft::Model;
use graft::diff::{Diff, NodeChange, diff};

fn parse(text: &str) -> Model {
    let imported = graft::text::parse_model(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    imported.model
}

fn report(a: &Model, b: &Model) -> (Diff, String) {
    let d = diff(a, b);
    let text = d.report(a, b);
    // Deterministic, and the JSON form is well-formed.
    assert_eq!(diff(a, b), d);
    assert!(d.to_json(a, b).is_object());
    (d, text)
}

fn between(a: &str, b: &str) -> (Diff, String) {
    report(&parse(a), &parse(b))
}

const BASE: &str = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[2,3] x) => (float[2,3] y) <float[3] w = {1.0, 2.0, 3.0}> {
  [add] t = Add(x, w)
  [act] u = LeakyRelu <alpha = 0.1> (t)
  [out] y = Mul(u, u)
}"#;

#[test]
fn a_model_against_itself_has_no_change() {
    let (d, text) = between(BASE, BASE);
    assert!(d.same_up_to_names());
    assert_eq!(
        text,
        "0 added, 0 removed, 0 changed, 0 renamed, 0 inlined, 0 outlined nodes; 0 values renamed, \
         0 types and 0 initializers changed; functions: 0 added, 0 removed, 0 changed\n"
    );
    assert_eq!(d.graphs[0].pairs.len(), 3);
}

#[test]
fn renamed_nodes_and_values_are_the_same_up_to_names() {
    let b = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[2,3] x) => (float[2,3] y) <float[3] w = {1.0, 2.0, 3.0}> {
  [n0] p = Add(x, w)
  [n1] q = LeakyRelu <alpha = 0.1> (p)
  [n2] y = Mul(q, q)
}"#;
    let (d, text) = between(BASE, b);
    assert!(d.same_up_to_names(), "{text}");
    assert_eq!(d.counts().nodes_renamed, 3);
    assert_eq!(d.counts().values_renamed, 2);
    assert!(
        text.contains("= \"act\" (LeakyRelu) renamed \"n1\"\n"),
        "{text}"
    );
    assert!(text.contains("= value \"t\" renamed \"p\"\n"), "{text}");
}

#[test]
fn unnamed_nodes_match_by_structure() {
    // The same graph, nodes unnamed and listed in another order, values renamed.
    let a = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y, float[4] z) {
  a = Relu(x)
  b = Sigmoid(x)
  c = Add(a, b)
  y = Mul(c, a)
  z = Sub(c, b)
}"#;
    let b = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y, float[4] z) {
  s = Sigmoid(x)
  r = Relu(x)
  k = Add(r, s)
  z = Sub(k, s)
  y = Mul(k, r)
}"#;
    let (d, text) = between(a, b);
    assert!(d.same_up_to_names(), "{text}");
    assert_eq!(d.graphs[0].pairs.len(), 5);
}

#[test]
fn an_attribute_change_an_addition_and_a_removal() {
    let b = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[2,3] x) => (float[2,3] y) <float[3] w = {1.0, 2.0, 3.0}> {
  [add] t = Add(x, w)
  [act] u = LeakyRelu <alpha = 0.2> (t)
  [neg] v = Neg(u)
  [out] y = Mul(v, v)
}"#;
    let (d, text) = between(BASE, b);
    assert!(!d.same_up_to_names());
    assert!(
        text.contains("  ~ \"act\" (LeakyRelu) attribute alpha: 0.1 → 0.2\n"),
        "{text}"
    );
    assert!(text.contains("  + \"neg\" (Neg)\n"), "{text}");
    assert!(
        text.contains("  ~ \"out\" (Mul) input 0: u → v\n"),
        "{text}"
    );

    let (back, text) = between(b, BASE);
    assert!(text.contains("  - \"neg\" (Neg)\n"), "{text}");
    assert_eq!(back.counts().nodes_removed, 1);
}

#[test]
fn initializers_compare_by_content_with_the_largest_difference() {
    let b = BASE.replace("{1.0, 2.0, 3.0}", "{1.0, 2.5, 3.0}");
    let (_, text) = between(BASE, &b);
    assert!(
        text.contains("  ~ initializer \"w\" content, max |a-b| 0.5\n"),
        "{text}"
    );
    // A renamed initializer with the same content is found by its content.
    let c = BASE
        .replace("w = {", "weight = {")
        .replace("Add(x, w)", "Add(x, weight)");
    let (d, text) = between(BASE, &c);
    assert!(d.same_up_to_names(), "{text}");
    assert!(text.contains("= value \"w\" renamed \"weight\""), "{text}");
}

#[test]
fn type_and_opset_changes() {
    let b = BASE
        .replace("float[2,3] x", "float[N,3] x")
        .replace("\"\": 18", "\"\": 19");
    let (_, text) = between(BASE, &b);
    assert!(text.contains("~ model opset ai.onnx: 18 → 19\n"), "{text}");
    assert!(
        text.contains("  ~ value \"x\" type: float[2,3] → float[N,3]\n"),
        "{text}"
    );
}

const CALL: &str = r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[4] x) => (float[4] y) {
  [pre] t = Relu(x)
  [call] u = local.Scale <alpha = 2.0> (t)
  [post] y = Neg(u)
}
<domain: "local", opset_import: ["": 18]>
Scale <alpha> (a) => (b) {
  s = Constant <value_float: float = @alpha> ()
  m = Mul(a, s)
  b = Abs(m)
}"#;

#[test]
fn an_inlined_call_is_reported_as_inlined() {
    let a = parse(CALL);
    let mut b = a.clone();
    graft::library::inline_calls(&mut b, &graft::library::Which::All).unwrap();
    let (d, text) = report(&a, &b);
    let c = d.counts();
    assert_eq!(
        (c.calls_inlined, c.nodes_added, c.nodes_removed),
        (1, 0, 0),
        "{text}"
    );
    assert!(
        text.contains("  > \"call\" (Scale) inlined as 3 nodes\n"),
        "{text}"
    );
    // And the reverse direction is an outline.
    let (d, text) = report(&b, &a);
    assert_eq!(d.counts().calls_outlined, 1, "{text}");
    assert_eq!(d.counts().nodes_removed, 0, "{text}");
}

#[test]
fn a_specialization_shows_the_overload_against_its_generic() {
    let a = parse(
        r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[4] x) => (float[4] y) {
  [call] y = local.Pick <mode = 1> (x)
}
<domain: "local", opset_import: ["": 18]>
Pick <mode> (a) => (b) {
  m = Constant <value_int: int = @mode> ()
  one = Constant <value_int = 1> ()
  c = Equal(m, one)
  b = If(c) <then_branch = g1 () => (float[4] r1) {
    r1 = Relu(a)
  }, else_branch = g2 () => (float[4] r2) {
    r2 = Neg(a)
  }>
}"#,
    );
    let mut b = a.clone();
    let call = graft::specialize::find_node(&b, "call").unwrap();
    graft::specialize::specialize(&mut b, call, &[]).unwrap();
    let (d, text) = report(&a, &b);
    assert!(
        text.contains("~ \"call\" (Pick) overload: (none) → mode_1\n"),
        "{text}"
    );
    assert!(
        text.contains("+ function local.Pick:mode_1 (compared with local.Pick)\n"),
        "{text}"
    );
    // The body lost its constants, the test and the If: the taken branch's Relu is
    // what is left.
    let body = d
        .changed_graphs()
        .find(|g| b.graph(g.b).owner != graft::ir::GraphOwner::Model)
        .expect("the overload's body against the generic's");
    let removed: Vec<&str> = body
        .nodes
        .iter()
        .filter_map(|n| match n {
            NodeChange::Removed(x) => Some(a.node(*x).op_type()),
            _ => None,
        })
        .collect();
    assert_eq!(removed, ["Constant", "Constant", "Equal", "If"], "{text}");
}

#[test]
fn subgraphs_are_compared_through_their_nodes() {
    let a = r#"<ir_version: 10, opset_import: ["": 18]>
main (bool c, float[4] x) => (float[4] y) {
  [branch] y = If(c) <then_branch = g1 () => (float[4] r1) {
    [inner] r1 = Relu(x)
  }, else_branch = g2 () => (float[4] r2) {
    r2 = Neg(x)
  }>
}"#;
    let b = a.replace(
        "[inner] r1 = Relu(x)",
        "[inner] r1 = Relu(x)\n    [extra] r9 = Abs(x)",
    );
    let (d, text) = between(a, &b);
    assert_eq!(d.graphs.len(), 3);
    assert!(
        text.contains("node \"branch\" (If) body \"g1\":\n  + \"extra\" (Abs)\n"),
        "{text}"
    );
}

#[test]
fn functions_added_removed_and_changed() {
    let b = CALL
        .replace("Scale <alpha> (a)", "Scale <alpha, beta> (a)")
        .replace(
            "local.Scale <alpha = 2.0>",
            "local.Scale <alpha = 2.0, beta = 1.0>",
        );
    let (d, text) = between(CALL, &b);
    assert_eq!(d.counts().functions_changed, 1, "{text}");
    assert!(
        text.contains("~ function local.Scale attributes: alpha → alpha, beta\n"),
        "{text}"
    );
    assert!(
        text.contains("~ \"call\" (Scale) attribute beta: (none) → 1.0\n"),
        "{text}"
    );
}

/// Every acceptance case's models (valid or not: undefined names, recursion, malformed
/// attributes…): each against itself is the same, and against the next case's model
/// the diff is deterministic, never panics, and its report and JSON are written.
#[test]
fn any_two_models_compare_without_panicking() {
    let mut models = Vec::new();
    for path in support::fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        for section in support::sections(&text) {
            if let Ok(imported) = graft::text::parse_model(&section.text) {
                models.push((
                    format!("{} {}", path.display(), section.label),
                    imported.model,
                ));
            }
        }
    }
    assert!(models.len() >= 60, "{} models", models.len());
    for (what, m) in &models {
        let d = diff(m, m);
        assert!(d.same_up_to_names(), "{what}: {}", d.report(m, m));
        assert_eq!(d.counts(), graft::diff::Counts::default(), "{what}");
    }
    for pair in models.windows(2) {
        let ((_, a), (_, b)) = (&pair[0], &pair[1]);
        report(a, b);
        report(b, a);
    }
}
