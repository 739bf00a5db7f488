//! Specializing calls into overloads (semantics.md §2-§3) over the acceptance fixtures
//! 31-60.
//!
//! A section of a fixture may have `# specialize:` lines; each line is one run on a
//! fresh copy of that section's model: steps separated by ` ; ` are applied one after
//! the other, each either `all` (`specialize_all`) or `node NAME [ATTRS]` (specialize
//! the call named NAME, a node name or an output name, after setting ATTRS, written as
//! between a node's `<` and `>`).
//!
//! The result is the printed model, compared with
//! `tests/specialize/NN[-label][-k].expected.onnxtxt` (`UPDATE_EXPECT=1` rewrites them),
//! or `error: MESSAGE` when a step fails, and then the model must print exactly as
//! before. Every successful result adds no checker error, survives export
//! then import, and names only identifier-safe overloads.

mod support;

use std::path::{Path, PathBuf};

use graft::Model;
use graft::specialize::{
    SpecializeOptions, SpecializeReport, find_node, specialize, specialize_all,
    specialize_all_with, specialize_with, use_overload,
};
use support::{case_number, check_clean, fixtures, sections, snapshot, survives_round_trip};

fn step(model: &mut Model, text: &str) -> Result<Result<SpecializeReport, String>, String> {
    let text = text.trim();
    if text == "all" {
        return Ok(specialize_all(model).map_err(|e| e.to_string()));
    }
    let rest = text
        .strip_prefix("node ")
        .ok_or(format!("bad step {text:?}"))?;
    let (name, attrs) = rest.split_once(' ').unwrap_or((rest, ""));
    let attrs = if attrs.trim().is_empty() {
        Vec::new()
    } else {
        graft::text::parse_attributes(attrs).map_err(|e| e.to_string())?
    };
    let node = find_node(model, name).ok_or(format!("no node {name:?}"))?;
    Ok(specialize(model, node, &attrs).map_err(|e| e.to_string()))
}

fn run(text: &str, line: &str) -> Result<String, String> {
    let mut model = graft::text::parse_model(text)
        .map_err(|e| e.to_string())?
        .model;
    for s in line.split(" ; ") {
        let before = graft::text::print_model(&model);
        let errors_before = errors(&model);
        match step(&mut model, s)? {
            Ok(report) => verify(&model, &errors_before, &report)?,
            Err(e) => {
                if graft::text::print_model(&model) != before {
                    return Err(format!(
                        "the model changed although specializing failed: {e}"
                    ));
                }
                return Ok(format!("error: {e}\n"));
            }
        }
    }
    Ok(graft::text::print_model(&model))
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn errors(model: &Model) -> Vec<(String, String)> {
    graft::check::check(model)
        .iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .map(|d| (d.code.to_string(), d.message.clone()))
        .collect()
}

/// A successful step adds no checker error (a fixture may hold an invalid call that
/// the step leaves alone), round-trips, and names identifier-safe overloads.
fn verify(
    model: &Model,
    before: &[(String, String)],
    report: &SpecializeReport,
) -> Result<(), String> {
    let errors: Vec<String> = errors(model)
        .into_iter()
        .filter(|e| !before.contains(e))
        .map(|(code, message)| format!("{code}: {message}"))
        .collect();
    if !errors.is_empty() {
        return Err(format!(
            "checker errors:\n{}\n{}",
            errors.join("\n"),
            graft::text::print_model(model)
        ));
    }
    survives_round_trip(model)?;
    for &f in &model.functions {
        let key = model.function(f).key();
        if !key.overload.is_empty() && !is_identifier(&key.overload) {
            return Err(format!(
                "overload id {:?} is not an identifier",
                key.overload
            ));
        }
    }
    for call in &report.calls {
        if model.find_function(&call.overload).is_none() {
            return Err(format!(
                "report names {}, which is not there",
                call.overload
            ));
        }
    }
    if !report.calls.is_empty() && model.ir_version.unwrap_or(0) < 10 {
        return Err("overloads written below IR 10".into());
    }
    Ok(())
}

fn expected_path(nn: &str, label: &str, k: usize) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specialize");
    let mut name = nn.to_string();
    if label != "main" {
        name.push('-');
        name.push_str(label);
    }
    if k > 1 {
        name.push_str(&format!("-{k}"));
    }
    dir.join(format!("{name}.expected.onnxtxt"))
}

#[test]
fn fixtures_specialize_as_expected() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for path in fixtures() {
        let nn = case_number(&path);
        if nn.parse::<u32>().map_or(true, |n| n <= 30) {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("fixture is UTF-8");
        let applies = src.contains("# expect-specialize:");
        let mut lines_in_case = 0;
        for section in sections(&src) {
            let lines: Vec<&str> = section
                .text
                .lines()
                .filter_map(|l| l.strip_prefix("# specialize:"))
                .map(str::trim)
                .collect();
            lines_in_case += lines.len();
            for (i, line) in lines.iter().enumerate() {
                runs += 1;
                let file = expected_path(&nn, &section.label, i + 1);
                let what = format!("{nn}/{} [{line}]", section.label);
                match run(&section.text, line) {
                    Ok(got) => failures.extend(snapshot(&file, &got, &what)),
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
        if applies && lines_in_case == 0 {
            failures.push(format!(
                "{nn}: expect-specialize but no `# specialize:` line"
            ));
        }
    }
    println!("specialize: {runs} runs");
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

fn model(text: &str) -> Model {
    graft::text::parse_model(text).expect("parses").model
}

/// Specializes the call that makes `output` in `text`; the printed result.
fn specialize_text(text: &str, output: &str) -> (String, SpecializeReport) {
    let mut m = model(text);
    let before = errors(&m);
    let node = find_node(&m, output).expect("call exists");
    let report = specialize(&mut m, node, &[]).expect("specializes");
    verify(&m, &before, &report).expect("valid result");
    (graft::text::print_model(&m), report)
}

#[test]
fn shape_and_arithmetic_fold_and_the_if_takes_its_branch() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[2,3] x) => (float[3,2] y) {
  y = local.F <n = 3> (x)
}
<domain: "local", opset_import: ["": 17]>
F <n> (x) => (y) {
  n = Constant <value_int: int = @n> ()
  axes = Constant <value_ints = [0]> ()
  n1 = Unsqueeze(n, axes)
  two = Constant <value_ints = [2]> ()
  shape = Concat <axis = 0> (n1, two)
  s = Shape(shape)
  zero = Constant <value_int = 0> ()
  first = Gather(s, zero)
  prod = Mul(first, n)
  six = Constant <value_int = 6> ()
  eq = Equal(prod, six)
  gt = Greater(n, zero)
  both = And(eq, gt)
  no = Not(both)
  sq = Squeeze(n1, axes)
  fl = Cast <to = 1> (sq)
  half = Constant <value_float = 0.5> ()
  h = Mul(fl, half)
  hh = Div(h, half)
  three = Constant <value_float = 3.0> ()
  same = Equal(hh, three)
  ok = Or(no, same)
  y = If(ok) <
    then_branch = then_g () => (float[3,2] r) { t = Reshape(x, shape)
      r = Identity(t) },
    else_branch = else_g () => (float[2,3] r) { r = Neg(x) }
  >
}
"#;
    let (got, report) = specialize_text(text, "y");
    assert_eq!(report.folded_ifs, 1, "{got}");
    assert!(!got.contains("If("), "{got}");
    assert!(
        got.contains("shape = Constant <value = int64[2] {3, 2}> ()"),
        "{got}"
    );
    assert!(got.contains("t = Reshape(x, shape)"), "{got}");
    assert!(got.contains("y = Identity(t)"), "{got}");
    // Everything else was only there to compute the condition.
    assert!(!got.contains("Gather") && !got.contains("Not"), "{got}");
}

#[test]
fn branch_values_get_fresh_names_in_the_body() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y, float[4] u) {
  y, u = local.F <k = 1> (x)
}
<domain: "local", opset_import: ["": 17]>
F <k> (x) => (y, u) {
  t = Relu(x)
  c = Constant <value_int: int = @k> ()
  one = Constant <value_int = 1> ()
  b = Equal(c, one)
  y = If(b) <
    then_branch = then_g () => (float[4] r) { t = Neg(x)
      r = Abs(t) },
    else_branch = else_g () => (float[4] r) { r = Identity(x) }
  >
  u = Identity(t)
}
"#;
    let (got, _) = specialize_text(text, "y");
    assert!(got.contains("t_2 = Neg(x)"), "{got}");
    assert!(got.contains("y = Abs(t_2)"), "{got}");
    assert!(got.contains("u = Identity(t)"), "{got}");
}

#[test]
fn a_call_inside_a_body_can_be_specialized_but_not_one_bound_to_a_reference() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y) {
  y = local.G <a = 0.5> (x)
}
<domain: "local", opset_import: ["": 17]>
F <alpha> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}
<domain: "local", opset_import: ["": 17, "local": 1]>
G <a> (x) => (y) {
  t = local.F <alpha = 0.25> (x)
  y = local.F <alpha: float = @a> (t)
}
"#;
    let (got, report) = specialize_text(text, "t");
    assert_eq!(report.calls.len(), 1);
    assert!(got.contains("t = local.F:alpha_0p25(x)"), "{got}");
    assert!(
        got.contains("F <alpha> (x)"),
        "the generic F is still called: {got}"
    );
    let mut m = model(text);
    let before = graft::text::print_model(&m);
    // The call writing G's y is bound to G's own attribute.
    let body = m.function(m.functions[1]).body;
    let call = *m.graph(body).nodes.last().expect("node");
    let err = specialize(&mut m, call, &[]).expect_err("refused");
    assert!(err.to_string().contains("refers to \"a\""), "{err}");
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn long_values_get_a_stable_hashed_id_and_equal_ones_share_it() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[8] x) => (float[8] y, float[8] z) {
  y = local.F <w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> (x)
  z = local.F <w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> (x)
}
<domain: "local", opset_import: ["": 17]>
F <w> (x) => (y) {
  c = Constant <value_floats: floats = @w> ()
  y = Add(x, c)
}
"#;
    let mut m = model(text);
    let report = specialize_all(&mut m).expect("specializes");
    assert_eq!(report.calls.len(), 2);
    assert!(!report.calls[0].reused && report.calls[1].reused);
    let id = &report.calls[0].overload.overload;
    assert!(id.starts_with("h_") && id.len() == 18, "{id}");
    assert_eq!(report.calls[1].overload.overload, *id);
    // Same input, same id.
    let mut again = model(text);
    let second = specialize_all(&mut again).expect("specializes");
    assert_eq!(second.calls[0].overload.overload, *id);
    assert_eq!(m.functions.len(), 1, "the generic is gone");
}

#[test]
fn specializing_an_overload_again_changes_nothing_unless_attributes_are_given() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y, float[4] z) {
  y = local.F <alpha = 0.5> (x)
  z = local.F(x)
}
<domain: "local", opset_import: ["": 17]>
F <alpha: float = 0.3> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}
"#;
    let mut m = model(text);
    let y = find_node(&m, "y").expect("call");
    specialize(&mut m, y, &[]).expect("specializes");
    let once = graft::text::print_model(&m);
    let report = specialize(&mut m, y, &[]).expect("no-op");
    assert!(report.calls.is_empty());
    assert_eq!(graft::text::print_model(&m), once);
    // New attributes re-bind from the generic (kept: z calls it); the old overload goes.
    let attrs = graft::text::parse_attributes("alpha = 0.125").expect("attrs");
    let report = specialize(&mut m, y, &attrs).expect("re-binds");
    let got = graft::text::print_model(&m);
    assert!(got.contains("y = local.F:alpha_0p125(x)"), "{got}");
    assert_eq!(report.removed.len(), 1, "{report:?}");
    assert_eq!(report.removed[0].overload, "alpha_0p5");
    // Once the generic is gone there is nothing to re-bind from.
    let z = find_node(&m, "z").expect("call");
    specialize(&mut m, z, &[]).expect("specializes");
    let before = graft::text::print_model(&m);
    let err = specialize(&mut m, y, &attrs).expect_err("no generic");
    assert!(err.to_string().contains("no local.F left"), "{err}");
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn an_overload_with_the_same_id_but_another_body_is_not_reused() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y, float[4] z) {
  y = local.F <alpha = 0.5> (x)
  z = local.F:alpha_0p5(x)
}
<domain: "local", opset_import: ["": 17]>
F <alpha> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}
<domain: "local", overload: "alpha_0p5", opset_import: ["": 17]>
F (x) => (y) {
  y = Neg(x)
}
"#;
    let (got, report) = specialize_text(text, "y");
    assert!(got.contains("y = local.F:alpha_0p5_2(x)"), "{got}");
    assert!(!report.calls[0].reused);
    // An equal one (written by hand or by an earlier run) is reused.
    let equal = text.replace("y = Neg(x)", "y = LeakyRelu <alpha = 0.5> (x)");
    let (got, report) = specialize_text(&equal, "y");
    assert!(got.contains("y = local.F:alpha_0p5(x)"), "{got}");
    assert!(report.calls[0].reused);
}

#[test]
fn a_very_deep_chain_of_calls_is_refused_and_leaves_the_model_alone() {
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 17, \"local\": 1]>\nmain (float[4] x) => (float[4] y) {\n  y = local.F0 <a = 0.5> (x)\n}\n",
    );
    let depth = 250;
    for k in 0..depth {
        text.push_str(&format!(
            "<domain: \"local\", opset_import: [\"\": 17, \"local\": 1]>\nF{k} <a> (x) => (y) {{\n  y = local.F{} <a: float = @a> (x)\n}}\n",
            k + 1
        ));
    }
    text.push_str(&format!(
        "<domain: \"local\", opset_import: [\"\": 17]>\nF{depth} <a> (x) => (y) {{\n  y = LeakyRelu <alpha: float = @a> (x)\n}}\n"
    ));
    let mut m = model(&text);
    let before = graft::text::print_model(&m);
    let err = specialize_all(&mut m).expect_err("too deep");
    assert!(err.to_string().contains("nest more than"), "{err}");
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn a_call_can_switch_to_an_existing_overload_and_back() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y, float[4] z) {
  y = local.Scale <alpha = 0.2> (x)
  z = local.Scale <alpha = 0.7> (x)
}
<domain: "local", opset_import: ["": 17]>
Scale <alpha> (x) => (y) {
  a = Constant <value_float: float = @alpha> ()
  y = Mul(x, a)
}
"#;
    let mut m = model(text);
    let y = find_node(&m, "y").expect("call y");
    let z = find_node(&m, "z").expect("call z");
    specialize(&mut m, y, &[]).expect("specializes");
    let overload = m.node(y).overload().to_string();
    assert_eq!(overload, "alpha_0p2");

    // z takes y's overload: its own alpha is dropped (the overload has it bound).
    use_overload(&mut m, z, &overload).expect("switches");
    assert_eq!(m.node(z).overload(), "alpha_0p2");
    assert!(m.node(z).attributes.is_empty());
    let errors: Vec<_> = graft::check::check(&m)
        .into_iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");

    // A missing overload is an error and changes nothing.
    let before = graft::text::print_model(&m);
    assert!(matches!(
        use_overload(&mut m, z, "nope"),
        Err(graft::specialize::SpecializeError::NoOverload { .. })
    ));
    assert_eq!(graft::text::print_model(&m), before);

    // Back to the generic: the call no longer names an overload.
    use_overload(&mut m, z, "").expect("back to the generic");
    assert_eq!(m.node(z).overload(), "");
}

/// Case 57's model: F called from main and from G's body, H called once.
const CASE_57: &str = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y, float[4] z, float[4] w) {
  y = local.F <alpha = 0.2> (x)
  z = local.G <a = 0.5> (x)
  w = local.H <beta = 2.0> (x)
}
<domain: "local", opset_import: ["": 17]>
F <alpha> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}
<domain: "local", opset_import: ["": 17, "local": 1]>
G <a> (x) => (y) {
  y = local.F <alpha: float = @a> (x)
}
<domain: "local", opset_import: ["": 17]>
H <beta> (x) => (y) {
  b = Constant <value_float: float = @beta> ()
  y = Mul(x, b)
}
"#;

fn function_keys(m: &Model) -> Vec<String> {
    m.functions
        .iter()
        .map(|&f| m.function(f).key().to_string())
        .collect()
}

fn key(domain: &str, name: &str) -> graft::ir::FunctionKey {
    graft::ir::FunctionKey {
        domain: domain.into(),
        name: name.into(),
        overload: String::new(),
    }
}

#[test]
fn a_kept_generic_stays_after_its_last_call_is_specialized() {
    let model = || graft::text::parse_model(CASE_57).expect("parses").model;
    // Without keep, H goes with its only call (case 57).
    let mut m = model();
    let w = find_node(&m, "w").expect("w");
    let report = specialize(&mut m, w, &[]).expect("specializes");
    assert!(report.removed.iter().any(|k| k.name == "H"), "{report:?}");
    assert!(!function_keys(&m).contains(&"local.H".to_string()));
    // Kept (shown in the library), it stays.
    let mut m = model();
    let keep = SpecializeOptions {
        keep: vec![key("local", "H")],
        ..Default::default()
    };
    let report = specialize_with(&mut m, w, &[], &keep).expect("specializes");
    assert!(report.removed.is_empty(), "{report:?}");
    let keys = function_keys(&m);
    assert!(keys.contains(&"local.H".to_string()), "{keys:?}");
    assert!(keys.iter().any(|k| k.starts_with("local.H:")), "{keys:?}");
    check_clean(&m).expect("clean");
}

#[test]
fn specialize_all_of_one_function_leaves_the_others() {
    let mut m = graft::text::parse_model(CASE_57).expect("parses").model;
    let only = SpecializeOptions {
        only: Some(key("local", "H")),
        ..Default::default()
    };
    let report = specialize_all_with(&mut m, &only).expect("specializes");
    assert_eq!(report.calls.len(), 1, "{report:?}");
    assert!(report.calls.iter().all(|c| c.overload.name == "H"));
    let printed = graft::text::print_model(&m);
    assert!(printed.contains("local.F <alpha = 0.2> (x)"), "{printed}");
    assert!(printed.contains("local.G <a = 0.5> (x)"), "{printed}");
    check_clean(&m).expect("clean");
}

#[test]
fn call_attribute_values_are_checked_against_the_declared_type() {
    use graft::ir::{AttrType, AttrValue};
    use graft::specialize::{attribute_type, parse_call_attribute};
    let m = graft::text::parse_model(CASE_57).expect("parses").model;
    let f = m.find_function(&key("local", "H")).expect("H");
    // No default: the type comes from the body's reference.
    assert_eq!(attribute_type(&m, f, "beta"), Some(AttrType::Float));
    assert_eq!(attribute_type(&m, f, "gamma"), None);
    let two = parse_call_attribute("beta", "2", Some(AttrType::Float)).expect("2 is a float");
    assert_eq!(two.value(), Some(&AttrValue::Float(2.0)));
    for bad in ["abc", "[1, 2]", "\"x\"", "", "1, gamma = 2"] {
        let err = parse_call_attribute("beta", bad, Some(AttrType::Float));
        assert!(err.is_err(), "{bad:?} accepted: {err:?}");
    }
    // In the user's terms, not the parser's view of a wrapper text.
    let err = parse_call_attribute("beta", "abc", Some(AttrType::Float)).unwrap_err();
    assert_eq!(err, "beta expects a float; `abc` is not one");
    let err = parse_call_attribute("beta", "[1, 2]", Some(AttrType::Float)).unwrap_err();
    assert_eq!(err, "beta expects a float; `[1, 2]` is not one");
    let err = parse_call_attribute("axes", "0.5", Some(AttrType::Ints)).unwrap_err();
    assert_eq!(err, "axes expects a list of ints; `0.5` is not one");
    let axes = parse_call_attribute("axes", "[0, 1]", None).expect("untyped list");
    assert_eq!(axes.value(), Some(&AttrValue::Ints(vec![0, 1])));
}

#[test]
fn re_specializing_keeps_the_values_set_before() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y) {
  y = local.F (x)
}
<domain: "local", opset_import: ["": 17]>
F <mode: int = 0, gain: float = 1.0> (x) => (y) {
  g = Constant <value_float: float = @gain> ()
  m = Constant <value_int: int = @mode> ()
  mf = Cast <to = 1> (m)
  t = Mul(x, g)
  y = Add(t, mf)
}
"#;
    let mut m = graft::text::parse_model(text).expect("parses").model;
    let y = find_node(&m, "y").expect("y");
    let set = |text: &str| graft::text::parse_attributes(text).expect("attribute");
    // The generic is kept (as the app's call editor does) so it can be bound again.
    let keep = SpecializeOptions {
        keep: vec![key("local", "F")],
        ..Default::default()
    };
    specialize_with(&mut m, y, &set("mode = 1"), &keep).expect("mode");
    specialize_with(&mut m, y, &set("gain = 2.0"), &keep).expect("gain");
    let overload = m.node(y).overload().to_string();
    let f = m
        .find_function(&graft::ir::FunctionKey {
            overload: overload.clone(),
            ..key("local", "F")
        })
        .expect("the overload");
    let bound = graft::text::print_attributes(&m, &graft::specialize::binding_of(&m, f));
    assert_eq!(bound, "gain = 2.0, mode = 1", "{overload}");
    let printed = graft::text::print_function(&m, f);
    // mode = 1 folded through the Cast.
    assert!(
        printed.contains("mf = Constant <value = float {1}>"),
        "{printed}"
    );
    // The first overload went once nothing called it; the generic stays.
    assert_eq!(m.functions.len(), 2, "{}", graft::text::print_model(&m));
    check_clean(&m).expect("clean");
}
