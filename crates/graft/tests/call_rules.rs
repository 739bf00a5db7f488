//! Every call rule of the checker, driven through every pass that looks inside a call:
//! the checker, specialize (one call), specialize-all, inline-functions, the view's
//! expanded call and inference. Each case is a model whose call `bad` breaks one rule
//! (of the call, or of the function it calls); every pass must give the checker's
//! code, and every pass but the checker's function rules must name the call node.
//! The model must also be left as it was by a pass that refuses.

use graft::Model;
use graft::ir::{AttrKind, NodeId, RawAttribute};
use graft::library::{Which, inline_calls};
use graft::specialize::{find_node, specialize, specialize_all};
use graft::view::{ItemKind, View};

const HEAD: &str = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>"#;

/// A function with one float attribute `alpha` (no default) used by LeakyRelu.
const F: &str = r#"<domain: "local", opset_import: ["": 17]>
F <alpha> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}"#;

struct Case {
    name: &'static str,
    code: &'static str,
    text: String,
    /// Changes the imported model where the text format cannot say it.
    tweak: Option<fn(&mut Model)>,
    /// The problem is the callee's: the checker reports it at the function.
    at_function: bool,
}

fn case(name: &'static str, code: &'static str, main: &str, functions: &str) -> Case {
    Case {
        name,
        code,
        text: format!("{HEAD}\nmain (float[4] x) => (float[4] y) {{\n{main}\n}}\n{functions}\n"),
        tweak: None,
        at_function: false,
    }
}

fn cases() -> Vec<Case> {
    let two_outputs = r#"<domain: "local", opset_import: ["": 17]>
G (x) => (y) {
  y = Relu(x)
}"#;
    let needs_b = r#"<domain: "local", opset_import: ["": 17]>
H (a, b) => (y) {
  y = Add(a, b)
}"#;
    let takes_graph = r#"<domain: "local", opset_import: ["": 17]>
B <body> (c) => (y) {
  y = If <then_branch: graph = @body, else_branch: graph = @body> (c)
}"#;
    let mut out = vec![
        case(
            "too many inputs",
            "check.call-arity",
            "  [bad] y = local.F <alpha = 0.5> (x, x)",
            F,
        ),
        case(
            "too many outputs",
            "check.call-arity",
            "  [bad] y, z2 = local.G (x)",
            two_outputs,
        ),
        case(
            "undeclared attribute",
            "check.call-undeclared-attribute",
            "  [bad] y = local.F <alpha = 0.5, beta = 1.0> (x)",
            F,
        ),
        case(
            "attribute of the wrong type",
            "check.call-attribute-type",
            "  [bad] y = local.F <alpha = 2> (x)",
            F,
        ),
        case(
            "required attribute left unbound",
            "check.call-missing-required-attribute",
            "  [bad] y = local.C (x)",
            r#"<domain: "local", opset_import: ["": 17]>
C <t> (x) => (y) {
  y = Cast <to: int = @t> (x)
}"#,
        ),
        case(
            "required input omitted",
            "check.call-required-input-missing",
            "  [bad] y = local.H (x, \"\")",
            needs_b,
        ),
        case(
            "graph passed in reads the caller's names",
            "check.call-graph-captures",
            "  c = Constant <value = bool {1}> ()\n  [bad] y = local.B <body = g () => (float[4] r) { r = Identity(x) }> (c)",
            takes_graph,
        ),
        case(
            "no such function",
            "check.call-missing-function",
            "  [bad] y = local.Nope (x)",
            F,
        ),
        case(
            "two functions with one id",
            "check.function-duplicate",
            "  [bad] y = local.F <alpha = 0.5> (x)",
            &format!("{F}\n{F}"),
        ),
        case(
            "an attribute both with and without a default",
            "check.function-attribute-both",
            "  [bad] y = local.F <alpha = 0.5> (x)",
            r#"<domain: "local", opset_import: ["": 17]>
F <alpha, alpha: float = 0.25> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}"#,
        ),
        case(
            "an output nothing produces",
            "check.function-output-unproduced",
            "  [bad] y, z = local.U <alpha = 0.5> (x)",
            r#"<domain: "local", opset_import: ["": 17]>
U <alpha> (x) => (y, z) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}"#,
        ),
    ];
    for c in &mut out[8..] {
        c.at_function = true;
    }
    let mut untyped = case(
        "a reference without a type",
        "check.attribute-malformed",
        "  [bad] y = local.F <alpha = 0.5> (x)",
        F,
    );
    untyped.at_function = true;
    untyped.tweak = Some(|m: &mut Model| {
        let body = m.function(m.functions[0]).body;
        let n = m.graph(body).nodes[0];
        m.nodes[n].attributes[0].kind = AttrKind::Raw(Box::new(RawAttribute {
            ref_attr_name: Some("alpha".into()),
            ..RawAttribute::default()
        }));
    });
    out.push(untyped);
    out
}

fn load(c: &Case) -> Model {
    let mut m = graft::text::parse_model(&c.text)
        .unwrap_or_else(|e| panic!("{}: {}", c.name, e.message))
        .model;
    if let Some(tweak) = c.tweak {
        tweak(&mut m);
    }
    m
}

fn bad(m: &Model) -> NodeId {
    find_node(m, "bad").expect("the case names its call bad")
}

/// A refusal: the code and the call node are named, and the model is unchanged.
fn refused<E: std::fmt::Display>(
    c: &Case,
    pass: &str,
    before: &str,
    after: &Model,
    result: Result<impl std::fmt::Debug, E>,
) {
    let err = match result {
        Ok(r) => panic!("{}: {pass} accepted the call: {r:?}", c.name),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains(c.code),
        "{}: {pass} said {err:?}, not {}",
        c.name,
        c.code
    );
    assert!(
        err.contains("\"bad\""),
        "{}: {pass} does not name the call: {err}",
        c.name
    );
    assert_eq!(
        graft::text::print_model(after),
        before,
        "{}: {pass} changed the model",
        c.name
    );
}

#[test]
fn every_pass_gives_the_checker_s_code_and_names_the_call() {
    for c in cases() {
        let m = load(&c);
        let before = graft::text::print_model(&m);
        let call = bad(&m);

        let found = graft::check::check(&m);
        let d = found
            .iter()
            .find(|d| d.code == c.code)
            .unwrap_or_else(|| panic!("{}: the checker misses {}: {found:?}", c.name, c.code));
        if !c.at_function {
            assert_eq!(d.at.node, Some(call), "{}: {d}", c.name);
        }

        let mut work = m.clone();
        let r = specialize(&mut work, call, &[]);
        refused(&c, "specialize", &before, &work, r);
        let mut work = m.clone();
        let r = specialize_all(&mut work);
        refused(&c, "specialize-all", &before, &work, r);
        let mut work = m.clone();
        let r = inline_calls(&mut work, &Which::All);
        refused(&c, "inline-functions", &before, &work, r);

        let mut view = View::of_model(&m).expect("a main graph");
        let root = view.root();
        let item = view
            .children(&m, root)
            .to_vec()
            .into_iter()
            .find(|&i| matches!(view.item(i).map(|x| &x.kind), Some(ItemKind::Node { node, .. }) if *node == call))
            .expect("the call is drawn");
        view.set_expanded(&m, item, true);
        let problem = view.item(item).and_then(|i| i.problem.clone());
        assert!(
            problem.as_deref().is_some_and(|p| p.contains(c.code)),
            "{}: the view marks {problem:?}",
            c.name
        );

        let inferred = graft::infer::infer(&m);
        let d = inferred
            .diagnostics
            .iter()
            .find(|d| d.code == c.code)
            .unwrap_or_else(|| {
                panic!(
                    "{}: inference misses {}: {:?}",
                    c.name, c.code, inferred.diagnostics
                )
            });
        assert!(d.message.contains("\"bad\""), "{}: {d}", c.name);
    }
}

#[test]
fn a_second_call_with_equal_values_reuses_the_overload() {
    let text = format!(
        "{HEAD}\nmain (float[4] x) => (float[4] y) {{\n  [first] a = local.F <alpha = 0.5> (x)\n  [second] y = local.F <alpha = 0.5> (a)\n}}\n{F}\n"
    );
    let mut m = graft::text::parse_model(&text).expect("parses").model;
    let first = find_node(&m, "first").expect("first");
    specialize(&mut m, first, &[]).expect("first");
    let second = find_node(&m, "second").expect("second");
    let report = specialize(&mut m, second, &[]).expect("second");
    assert!(report.calls[0].reused, "{report:?}");
    let got = graft::text::print_model(&m);
    assert!(got.contains("[second] y = local.F:alpha_0p5"), "{got}");
    assert!(!got.contains("alpha_0p5_2"), "{got}");
}

#[test]
fn a_short_call_lists_every_output_after_specializing() {
    let text = format!(
        "{HEAD}\nmain (float[4] x) => (float[4] y) {{\n  [call] y = local.P <alpha = 0.5> (x)\n}}\n{}\n",
        r#"<domain: "local", opset_import: ["": 17]>
P <alpha> (x) => (y, z) {
  y = LeakyRelu <alpha: float = @alpha> (x)
  z = Relu(x)
}"#
    );
    let mut m = graft::text::parse_model(&text).expect("parses").model;
    let call = find_node(&m, "call").expect("call");
    specialize(&mut m, call, &[]).expect("specializes");
    assert_eq!(m.node(call).outputs.len(), 2);
    assert_eq!(m.node(call).outputs[1], None);
    let got = graft::text::print_model(&m);
    assert!(got.contains("y, \"\" = local.P:alpha_0p5"), "{got}");
    assert!(
        graft::check::check(&m)
            .iter()
            .all(|d| d.severity != graft::Severity::Error),
        "{:?}",
        graft::check::check(&m)
    );
}
