//! The function library (inline calls, outline, rename, delete unused) over the
//! acceptance fixtures 31-60 and small models.
//!
//! A fixture section may have `# inline-calls:` lines; each is one run on a fresh copy
//! of that section's model, steps separated by ` ; `:
//!
//! - `all`: every call of every local function; `function D.N[:O]`: the calls of one
//!   function; `name D.N`: the calls of every overload of D.N;
//! - `call K`: the K-th node of the main graph; `call D.N[:O] K`: the K-th node of that
//!   function's body.
//!
//! The result is the printed model, compared with
//! `tests/library/NN[-k].expected.onnxtxt` (k counts the runs of the file;
//! `UPDATE_EXPECT=1` rewrites them), or `error: MESSAGE`, and then the model must print
//! exactly as before. Every successful result passes the checker without errors and
//! survives export then import.

mod support;

use graft::Model;
use graft::ir::FunctionKey;
use graft::library::{
    LibraryError, Which, call_sites, delete_unused, inline_call, inline_calls, new_function_key,
    outline, rename_function,
};
use support::{case_number, check_clean, expected_path, fixtures, sections, snapshot};

fn key(text: &str) -> Result<FunctionKey, String> {
    let (path, overload) = match text.split_once(':') {
        Some((p, o)) => (p, o),
        None => (text, ""),
    };
    let (domain, name) = path.rsplit_once('.').ok_or(format!("bad key {text}"))?;
    Ok(FunctionKey {
        domain: domain.into(),
        name: name.into(),
        overload: overload.into(),
    })
}

fn step(model: &mut Model, text: &str) -> Result<Result<(), String>, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let result = match words.as_slice() {
        ["all"] => inline_calls(model, &Which::All).map(|_| ()),
        ["function", k] => inline_calls(model, &Which::Key(key(k)?)).map(|_| ()),
        ["name", k] => {
            let k = key(k)?;
            inline_calls(
                model,
                &Which::Name {
                    domain: k.domain,
                    name: k.name,
                },
            )
            .map(|_| ())
        }
        ["call", k] => {
            let k: usize = k.parse().map_err(|_| "bad index")?;
            let g = model.graph.ok_or("no graph")?;
            let n = *model.graph(g).nodes.get(k).ok_or("no such node")?;
            inline_call(model, n).map(|_| ())
        }
        ["call", f, k] => {
            let k: usize = k.parse().map_err(|_| "bad index")?;
            let f = model.find_function(&key(f)?).ok_or("no such function")?;
            let body = model.function(f).body;
            let n = *model.graph(body).nodes.get(k).ok_or("no such node")?;
            inline_call(model, n).map(|_| ())
        }
        _ => return Err(format!("bad step {text:?}")),
    };
    Ok(result.map_err(|e| e.to_string()))
}

/// Runs one line; the printed result or `error: ...`.
fn run(text: &str, line: &str) -> Result<String, String> {
    let mut model = graft::text::parse_model(text)
        .map_err(|e| e.to_string())?
        .model;
    for s in line.split(" ; ") {
        let before = graft::text::print_model(&model);
        if let Err(e) = step(&mut model, s)? {
            if graft::text::print_model(&model) != before {
                return Err(format!("the model changed although the edit failed: {e}"));
            }
            return Ok(format!("error: {e}\n"));
        }
        check_clean(&model)?;
    }
    Ok(graft::text::print_model(&model))
}

#[test]
fn fixtures_inline_calls_as_expected() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for path in fixtures() {
        let nn = case_number(&path);
        let src = std::fs::read_to_string(&path).expect("fixture is UTF-8");
        let mut k = 0;
        for section in sections(&src) {
            let lines: Vec<&str> = section
                .text
                .lines()
                .filter_map(|l| l.strip_prefix("# inline-calls:"))
                .map(str::trim)
                .collect();
            for line in lines {
                k += 1;
                runs += 1;
                let file = expected_path("library", &nn, k);
                let what = format!("{nn} {} [{line}]", section.label);
                match run(&section.text, line) {
                    Ok(got) => failures.extend(snapshot(&file, &got, &what)),
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
    }
    println!("inline-calls: {runs} runs");
    assert!(runs > 0);
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

fn model(text: &str) -> Model {
    graft::text::parse_model(text).expect("parses").model
}

const CHAIN: &str = r#"<ir_version: 10, opset_import: ["": 17]>
main (float[4] x) => (float[4] y, float[4] w) {
  t = Relu(x)
  u = Neg(t)
  s = Sigmoid(x)
  v = Abs(u)
  w = Mul(s, t)
  y = Add(v, t)
}
"#;

fn nodes_by_op(model: &Model, ops: &[&str]) -> Vec<graft::ir::NodeId> {
    let g = model.graph.expect("graph");
    model
        .graph(g)
        .nodes
        .iter()
        .copied()
        .filter(|&n| ops.contains(&model.node(n).op_type()))
        .collect()
}

#[test]
fn outline_then_inline_gives_the_graph_back() {
    let mut m = model(CHAIN);
    let g = m.graph.expect("graph");
    // Outlining may move nodes that do not depend on the selection before the call:
    // compare the graphs as sets of lines.
    let lines = |m: &Model| {
        let mut l: Vec<String> = graft::text::print_graph(m, g)
            .lines()
            .map(str::to_string)
            .collect();
        l.sort();
        l
    };
    let before = lines(&m);
    let selection = nodes_by_op(&m, &["Neg", "Abs"]);
    let key = outline(&mut m, &selection, "local", "NegAbs").expect("outlines");
    check_clean(&m).expect("valid after outline");
    let text = graft::text::print_model(&m);
    assert!(text.contains("v = local.NegAbs(t)"), "{text}");
    assert!(text.contains("NegAbs (t) => (v)"), "{text}");
    assert_eq!(call_sites(&m, &key).len(), 1);
    inline_calls(&mut m, &Which::All).expect("inlines");
    check_clean(&m).expect("valid after inline");
    assert!(m.functions.is_empty());
    assert_eq!(lines(&m), before);
}

#[test]
fn outline_keeps_topological_order_and_rejects_non_convex() {
    // Neg and Mul around Sigmoid, which does not depend on them: the call goes where
    // Neg was, Sigmoid stays before it.
    let mut m = model(CHAIN);
    let selection = nodes_by_op(&m, &["Neg", "Mul"]);
    outline(&mut m, &selection, "local", "Pair").expect("outlines");
    check_clean(&m).expect("valid");

    // Relu -> Neg -> Abs -> Add: selecting Relu and Add without Neg/Abs leaves and
    // re-enters.
    let mut m = model(CHAIN);
    let before = graft::text::print_model(&m);
    let selection = nodes_by_op(&m, &["Relu", "Add"]);
    let err = outline(&mut m, &selection, "local", "Bad").expect_err("not convex");
    assert!(err.to_string().contains("not convex"), "{err}");
    assert_eq!(graft::text::print_model(&m), before);
    assert!(outline(&mut m, &[], "local", "F").is_err());
    assert!(outline(&mut m, &selection[..1], "", "F").is_err());
    assert!(outline(&mut m, &selection[..1], "local", "not ok").is_err());
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn a_new_function_name_is_domain_dot_name_and_new() {
    let mut m = model(CHAIN);
    let ok = new_function_key(&m, " my.lib.Block ").expect("valid");
    assert_eq!((ok.domain.as_str(), ok.name.as_str()), ("my.lib", "Block"));
    let refused = |m: &Model, text: &str| new_function_key(m, text).expect_err(text);
    assert!(matches!(
        refused(&m, "Block"),
        LibraryError::NotQualified(_)
    ));
    assert!(matches!(refused(&m, "my.2nd"), LibraryError::BadName(_)));
    assert!(matches!(refused(&m, "my."), LibraryError::BadName(_)));
    assert!(matches!(refused(&m, ".Block"), LibraryError::DefaultDomain));
    assert!(matches!(
        refused(&m, "ai.onnx.Block"),
        LibraryError::DefaultDomain
    ));
    assert!(matches!(
        refused(&m, "my..lib.Block"),
        LibraryError::BadDomain(_)
    ));
    assert!(matches!(
        refused(&m, "my-lib.Block"),
        LibraryError::BadDomain(_)
    ));
    assert!(matches!(
        refused(&m, "ai.onnx.ml.Scaler"),
        LibraryError::StandardOperator(_)
    ));
    let selection = nodes_by_op(&m, &["Neg", "Abs"]);
    outline(&mut m, &selection, "my.lib", "Block").expect("outlines");
    assert!(matches!(
        refused(&m, "my.lib.Block"),
        LibraryError::FunctionExists(_)
    ));
    // outline applies the same rules.
    let selection = nodes_by_op(&m, &["Sigmoid"]);
    let before = graft::text::print_model(&m);
    assert!(outline(&mut m, &selection, "my-lib", "S").is_err());
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn outline_inside_a_function_forwards_references() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y) {
  y = local.F <a = 0.5> (x)
}
<domain: "local", opset_import: ["": 17]>
F <a> (x) => (y) {
  t = LeakyRelu <alpha: float = @a> (x)
  y = Neg(t)
}
"#;
    let mut m = model(text);
    let f = m.functions[0];
    let body = m.function(f).body;
    let first = m.graph(body).nodes[0];
    outline(&mut m, &[first], "inner", "Act").expect("outlines");
    check_clean(&m).expect("valid");
    let printed = graft::text::print_model(&m);
    assert!(printed.contains("inner.Act <a: float = @a>"), "{printed}");
    inline_calls(&mut m, &Which::All).expect("inlines");
    check_clean(&m).expect("valid");
    let printed = graft::text::print_model(&m);
    assert!(printed.contains("LeakyRelu <alpha = 0.5>"), "{printed}");
}

#[test]
fn rename_moves_every_call_and_imports_the_domain() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y) {
  t = local.F(x)
  y = local.G(t)
}
<domain: "local", opset_import: ["": 17]>
F (x) => (y) { y = Neg(x) }
<domain: "local", opset_import: ["": 17, "local": 1]>
G (x) => (y) { y = local.F(x) }
"#;
    let mut m = model(text);
    let old = key("local.F").expect("key");
    let new = rename_function(&mut m, &old, "lib", "Negate").expect("renames");
    check_clean(&m).expect("valid");
    assert_eq!(call_sites(&m, &new).len(), 2);
    assert!(call_sites(&m, &old).is_empty());
    let before = graft::text::print_model(&m);
    let g = key("local.G").expect("key");
    assert!(rename_function(&mut m, &g, "lib", "Negate").is_err());
    assert!(rename_function(&mut m, &old, "lib", "X").is_err());
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn delete_unused_follows_calls() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y) {
  y = local.A(x)
}
<domain: "local", opset_import: ["": 17, "local": 1]>
A (x) => (y) { y = local.B(x) }
<domain: "local", opset_import: ["": 17]>
B (x) => (y) { y = Neg(x) }
<domain: "local", opset_import: ["": 17, "local": 1]>
U (x) => (y) { y = local.V(x) }
<domain: "local", opset_import: ["": 17]>
V (x) => (y) { y = Abs(x) }
"#;
    let mut m = model(text);
    let removed = delete_unused(&mut m);
    let names: Vec<String> = removed.iter().map(|k| k.to_string()).collect();
    assert_eq!(names, ["local.U", "local.V"]);
    check_clean(&m).expect("valid");
    assert_eq!(m.functions.len(), 2);
}

#[test]
fn errors_leave_the_model_unchanged() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y, float[4] z) {
  y = local.F <k = 2> (x)
  z = local.F(x)
}
<domain: "local", opset_import: ["": 17]>
F <k> (x) => (y) {
  t = Neg(x)
  y = LeakyRelu <alpha: float = @k> (t)
}
"#;
    let mut m = model(text);
    let before = graft::text::print_model(&m);
    let counts = (m.nodes.len(), m.values.len(), m.graphs.len());
    let err = inline_calls(&mut m, &Which::All).expect_err("INT for FLOAT");
    assert!(err.to_string().contains("is int at the call"), "{err}");
    let g = m.graph.expect("graph");
    let first = m.graph(g).nodes[0];
    assert!(inline_call(&mut m, first).is_err());
    let missing = key("local.Nope").expect("key");
    assert!(inline_calls(&mut m, &Which::Key(missing)).is_err());
    assert_eq!(graft::text::print_model(&m), before);
    assert_eq!((m.nodes.len(), m.values.len(), m.graphs.len()), counts);
    // The second call alone is fine (the reference is dropped; LeakyRelu's default).
    let second = m.graph(g).nodes[1];
    let report = inline_call(&mut m, second).expect("inlines");
    assert_eq!(report.nodes.len(), 2);
    assert!(report.removed.is_empty(), "the first call still uses F");
}

/// A model with one function called `calls` times in a chain.
pub fn many_calls(calls: usize) -> String {
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 17, \"local\": 1]>\nmain (float[4] x0) => (float[4] y) {\n",
    );
    for k in 0..calls {
        text.push_str(&format!(
            "  x{} = local.Block <alpha = 0.{}> (x{k})\n",
            k + 1,
            k % 9 + 1
        ));
    }
    text.push_str(&format!("  y = Identity(x{calls})\n}}\n"));
    text.push_str(
        "<domain: \"local\", opset_import: [\"\": 17]>\nBlock <alpha: float = 0.2> (x) => (y) {\n",
    );
    let mut prev = "x".to_string();
    for k in 0..39 {
        let op = ["Relu", "Neg", "Abs", "Sigmoid"][k % 4];
        text.push_str(&format!("  t{k} = {op}({prev})\n"));
        prev = format!("t{k}");
    }
    text.push_str(&format!(
        "  y = LeakyRelu <alpha: float = @alpha> ({prev})\n}}\n"
    ));
    text
}

#[test]
fn two_hundred_fifty_calls_inline_quickly() {
    let mut m = model(&many_calls(250));
    let start = std::time::Instant::now();
    let report = inline_calls(&mut m, &Which::All).expect("inlines");
    let took = start.elapsed();
    assert_eq!(report.calls, 250);
    assert_eq!(report.removed.len(), 1);
    let g = m.graph.expect("graph");
    assert_eq!(m.graph(g).nodes.len(), 250 * 40 + 1);
    check_clean(&m).expect("valid");
    println!("250 calls inlined in {took:?}");
    // Generous for a debug build on a shared machine; the bench measures release.
    assert!(took.as_secs() < 5, "took {took:?}");
}
