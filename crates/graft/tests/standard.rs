//! Expanding standard operators into their function bodies (static bodies from the
//! registry, context-dependent ones from the builders).
//!
//! Each case is a model, the operators to expand (`None`: every one with a body) and
//! the printed result, compared with `tests/standard/NAME.expected.onnxtxt`
//! (`UPDATE_EXPECT=1` rewrites them). Every result passes the checker without errors
//! and survives export then import; numerics against onnxruntime are in
//! `tests/interop/standard_numerics.py`.

mod support;

use graft::Model;
use graft::library::{BodyKind, body_kind, expand_standard, expand_standard_ops};
use support::{check_clean, expected_path, snapshot};

fn model(text: &str) -> Model {
    graft::text::parse_model(text).expect("parses").model
}

const CASES: &[(&str, &str)] = &[
    (
        // A static body written for opset 18, called at 22: converted on the way.
        "softplus-22",
        r#"<ir_version: 10, opset_import: ["": 22]>
main (float[4] x) => (float[4] y) {
  y = Softplus(x)
}
"#,
    ),
    (
        // Elu's alpha: the call's value, and the schema default where it omits it.
        "elu-alpha",
        r#"<ir_version: 8, opset_import: ["": 18]>
main (float[4] x) => (float[4] y, float[4] z) {
  y = Elu <alpha: float = 2.0> (x)
  z = Elu (x)
}
"#,
    ),
    (
        // The body for opset 13 (MVN has bodies for 13 and 18), in a subgraph, next to
        // an outer name the body's names must not take.
        "mvn-in-if",
        r#"<ir_version: 8, opset_import: ["": 15]>
main (bool c, float[1,2,3,4] x) => (float[1,2,3,4] y) {
  X_variance = Identity(x)
  y = If (c) <then_branch = g1 () => (float[1,2,3,4] a) {
    a = MeanVarianceNormalization(X_variance)
  }, else_branch = g2 () => (float[1,2,3,4] b) {
    b = Identity(x)
  }>
}
"#,
    ),
    (
        // Context-dependent: the body is built for this call (its attributes and the
        // input's element type), then converted from the body's opset 18 to 21.
        "layernorm-21",
        r#"<ir_version: 10, opset_import: ["": 21]>
main (float[2,3,4] x, float[4] scale, float[4] bias) => (float[2,3,4] y) {
  y = LayerNormalization <axis: int = -1, epsilon: float = 0.001> (x, scale, bias)
}
"#,
    ),
    (
        // Clip by which bounds the call passes: only max.
        "clip-max-only",
        r#"<ir_version: 10, opset_import: ["": 13]>
main (float[4] x, float hi) => (float[4] y) {
  y = Clip(x, , hi)
}
"#,
    ),
    (
        // A body inside a local function's body.
        "in-function",
        r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[4] x) => (float[4] y) {
  y = local.F(x)
}

<domain: "local", opset_import: ["": 18]>
F (a) => (b) {
  b = ThresholdedRelu <alpha: float = 0.5> (a)
}
"#,
    ),
];

#[test]
fn expansions_as_expected() {
    let mut failures = Vec::new();
    for (name, text) in CASES {
        let mut m = model(text);
        let got = match expand_standard_ops(&mut m, None) {
            Ok(report) if report.expanded > 0 => {
                check_clean(&m).map(|()| graft::text::print_model(&m))
            }
            Ok(_) => Err("nothing expanded".to_string()),
            Err(e) => Err(e.to_string()),
        };
        match got {
            Ok(got) => failures.extend(snapshot(&expected_path("standard", name, 1), &got, name)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn only_the_chosen_ops_and_nodes() {
    let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) {
  t = Softsign(x)
  u = HardSwish(t)
  y = Softsign(u)
}
"#;
    let mut m = model(text);
    let report = expand_standard_ops(&mut m, Some(&["HardSwish".to_string()])).expect("expands");
    assert_eq!(
        (report.expanded, report.ops.as_slice()),
        (1, &["HardSwish".to_string()][..])
    );
    let printed = graft::text::print_model(&m);
    assert_eq!(printed.matches("Softsign").count(), 2, "{printed}");
    assert!(!printed.contains("HardSwish"), "{printed}");
    check_clean(&m).expect("valid");

    let mut m = model(text);
    let g = m.graph.expect("graph");
    let first = m.graph(g).nodes[0];
    assert_eq!(body_kind(&m, first), Some(BodyKind::Static));
    expand_standard(&mut m, first).expect("expands one node");
    let printed = graft::text::print_model(&m);
    assert_eq!(printed.matches("Softsign").count(), 1, "{printed}");
    check_clean(&m).expect("valid");
}

#[test]
fn a_built_body_needs_the_types_it_depends_on() {
    // CastLike's body depends on the target's element type, which `t` does not state.
    let text = r#"<ir_version: 10, opset_import: ["": 19]>
main (float[4] x, t) => (y) {
  y = CastLike(x, t)
}
"#;
    let mut m = model(text);
    let before = graft::text::print_model(&m);
    let g = m.graph.expect("graph");
    let node = m.graph(g).nodes[0];
    let err = expand_standard(&mut m, node).expect_err("needs t's type");
    assert!(
        err.to_string().starts_with("cannot expand CastLike: "),
        "{err}"
    );
    assert_eq!(graft::text::print_model(&m), before);
    // The pass over the model leaves it and says why.
    let report = expand_standard_ops(&mut m, None).expect("the pass runs");
    assert_eq!(report.expanded, 0);
    assert_eq!(report.skipped.len(), 1, "{report:?}");
    assert!(
        report.skipped[0].starts_with("CastLike: cannot expand CastLike: "),
        "{report:?}"
    );
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn a_built_body_uses_inferred_types() {
    // `t` states no type; inference finds int64 from the Cast, so CastLike's body can
    // be built.
    let text = r#"<ir_version: 10, opset_import: ["": 19]>
main (float[4] x, float[4] z) => (int64[4] y) {
  t = Cast <to = 7> (z)
  y = CastLike(x, t)
}
"#;
    let mut m = model(text);
    let report = expand_standard_ops(&mut m, Some(&["CastLike".to_string()])).expect("expands");
    assert_eq!(report.expanded, 1);
    let printed = graft::text::print_model(&m);
    assert!(printed.contains("y = Cast <to = 7> (x)"), "{printed}");
    check_clean(&m).expect("clean");
}

#[test]
fn errors_leave_the_model_unchanged() {
    // Conv has no body; a Ref attribute cannot be expanded before specialization.
    let text = r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[1,1,4,4] x, float[1,1,3,3] w) => (float[1,1,2,2] y) {
  t = Conv(x, w)
  y = local.F <k: float = 1.0> (t)
}

<domain: "local", opset_import: ["": 18]>
F <k> (a) => (b) {
  b = Elu <alpha: float = @k> (a)
}
"#;
    let mut m = model(text);
    let before = graft::text::print_model(&m);
    let g = m.graph.expect("graph");
    let conv = m.graph(g).nodes[0];
    assert_eq!(body_kind(&m, conv), None);
    let err = expand_standard(&mut m, conv).expect_err("Conv has no body");
    assert_eq!(err.to_string(), "Conv has no function body at opset 18");
    let f = m.functions[0];
    let celu = m.graph(m.function(f).body).nodes[0];
    let err = expand_standard(&mut m, celu).expect_err("refers to k");
    assert!(
        err.to_string().contains("specialize the function first"),
        "{err}"
    );
    let report = expand_standard_ops(&mut m, None).expect("the pass runs");
    assert_eq!(
        (report.expanded, report.skipped.len()),
        (0, 1),
        "{report:?}"
    );
    assert_eq!(graft::text::print_model(&m), before);
}
