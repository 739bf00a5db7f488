//! Inlining an external model (semantics.md §4) over the acceptance fixtures 1-30.
//!
//! Each fixture's host section has one or more `# inline:` lines; each line is one run
//! on a fresh copy of the host: steps separated by ` ; ` are applied one after the
//! other, each step made of words:
//!
//! - `guest LABEL` (the section to inline; default `guest`), `bind A=H`, `expose O` or
//!   `expose O=NAME` (none: every output is exposed, as the CLI does), `prefix P`,
//!   `function DOMAIN.NAME` (function mode), `domain D=V` (pick a version), `nodata`
//!   (do not attach the guest's external data).
//!
//! The result is the printed host, compared with `tests/inline/NN[-k].expected.onnxtxt`
//! (`UPDATE_EXPECT=1` rewrites them), or `error: MESSAGE` when inlining fails, and then
//! the host must print exactly as before. Every successful result passes the checker
//! without errors and survives export then import.

mod support;

use graft::Model;
use graft::inline::{InlineError, InlineOptions, InlineReport, Mode, inline_model};
use support::{
    Section, apply_edit, case_number, expected_path, fixtures, sections, snapshot,
    survives_round_trip,
};

fn parse_section(case: &str, section: &Section) -> Result<Model, String> {
    let mut model = graft::text::parse_model(&section.text)
        .map_err(|e| e.to_string())?
        .model;
    if !section.needs_edit.is_empty() {
        apply_edit(case, &section.label, &mut model)?;
    }
    support::attach_external_data(&section.text, &mut model)?;
    Ok(model)
}

/// One step of an `# inline:` line.
struct Step {
    guest: String,
    opts: InlineOptions,
    no_data: bool,
}

fn read_step(text: &str) -> Result<Step, String> {
    let mut step = Step {
        guest: "guest".into(),
        opts: InlineOptions::default(),
        no_data: false,
    };
    let mut words = text.split_whitespace();
    while let Some(word) = words.next() {
        let mut arg = || words.next().ok_or(format!("{word} needs a value"));
        match word {
            "guest" => step.guest = arg()?.to_string(),
            "bind" => {
                let (a, h) = arg()?.split_once('=').ok_or("bind A=H")?;
                step.opts.bindings.push((a.into(), h.into()));
            }
            "expose" => {
                let a = arg()?;
                step.opts.expose.push(match a.split_once('=') {
                    Some((o, n)) => (o.into(), Some(n.into())),
                    None => (a.into(), None),
                });
            }
            "prefix" => step.opts.prefix = Some(arg()?.into()),
            "function" => {
                let (domain, name) = arg()?.rsplit_once('.').ok_or("function D.N")?;
                step.opts.mode = Mode::Function {
                    domain: domain.into(),
                    name: name.into(),
                };
            }
            "domain" => {
                let (d, v) = arg()?.split_once('=').ok_or("domain D=V")?;
                let v = v.parse().map_err(|_| format!("bad version {v}"))?;
                step.opts.domain_versions.push((d.into(), v));
            }
            "nodata" => step.no_data = true,
            other => return Err(format!("unknown word {other:?}")),
        }
    }
    step.opts.expose_all = step.opts.expose.is_empty();
    Ok(step)
}

/// Runs one `# inline:` line; the printed result or `error: ...`.
fn run(case: &str, parts: &[Section], line: &str) -> Result<String, String> {
    let host_section = parts.first().ok_or("no host")?;
    let mut host = parse_section(case, host_section)?;
    for step_text in line.split(" ; ") {
        let step = read_step(step_text)?;
        let section = parts
            .iter()
            .find(|s| s.label == step.guest)
            .ok_or(format!("no section {}", step.guest))?;
        let mut guest = parse_section(case, section)?;
        if step.no_data {
            guest.external_files.clear();
        }
        let before = graft::text::print_model(&host);
        let bytes = graft::export(&host, &graft::ExportOptions::default());
        match graft::inline::inline_model_undoable(&mut host, &guest, &step.opts) {
            Ok((report, undo)) => {
                verify(&host, &report)?;
                // Its undo gives back the very host.
                let inlined = host.clone();
                undo.undo(&mut host);
                if graft::export(&host, &graft::ExportOptions::default()) != bytes {
                    return Err("undoing the inline does not give back the host".into());
                }
                host = inlined;
            }
            Err(e) => {
                if graft::text::print_model(&host) != before {
                    return Err(format!("the host changed although inlining failed: {e}"));
                }
                return Ok(format!("error: {e}\n"));
            }
        }
    }
    Ok(graft::text::print_model(&host))
}

/// A successful result: no checker error, a round trip through protobuf, a report that
/// names what is there.
fn verify(host: &Model, report: &InlineReport) -> Result<(), String> {
    let errors: Vec<String> = graft::check::check(host)
        .iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if !errors.is_empty() {
        return Err(format!(
            "checker errors:\n{}\n{}",
            errors.join("\n"),
            graft::text::print_model(host)
        ));
    }
    survives_round_trip(host)?;
    let main = host.graph.ok_or("no graph")?;
    for &n in &report.nodes {
        if !host.graph(main).nodes.contains(&n) && host.nodes.get(n).is_none() {
            return Err(format!("report names node {n:?}, which is not there"));
        }
    }
    Ok(())
}

#[test]
fn fixtures_inline_as_expected() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for path in fixtures() {
        let nn = case_number(&path);
        if nn.parse::<u32>().map_or(true, |n| n > 30) {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("fixture is UTF-8");
        let parts = sections(&src);
        let lines: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# inline:"))
            .map(str::trim)
            .collect();
        if lines.is_empty() {
            failures.push(format!("{nn}: no `# inline:` line"));
        }
        for (i, line) in lines.iter().enumerate() {
            runs += 1;
            let file = expected_path("inline", &nn, i + 1);
            let what = format!("{nn} [{line}]");
            match run(&nn, &parts, line) {
                Ok(got) => failures.extend(snapshot(&file, &got, &what)),
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
    }
    println!("inline: {runs} runs");
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

fn model(text: &str) -> Model {
    graft::text::parse_model(text).expect("parses").model
}

const HOST: &str = r#"<ir_version: 10, opset_import: ["": 17]>
host (float[4] x) => (float[4] y) {
  t = Relu(x)
  y = Neg(t)
}
"#;

const GUEST: &str = r#"<ir_version: 10, opset_import: ["": 17]>
guest (float[4] a) => (float[4] b) {
  t = Sigmoid(a)
  b = Abs(t)
}
"#;

fn opts(bindings: &[(&str, &str)]) -> InlineOptions {
    InlineOptions {
        bindings: bindings
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        expose_all: true,
        ..InlineOptions::default()
    }
}

#[test]
fn errors_leave_the_host_unchanged() {
    let guest = model(GUEST);
    let custom = model(
        r#"<ir_version: 10, opset_import: ["": 17, "c": 2]>
guest (float[4] a) => (float[4] b) { b = c.F(a) }
"#,
    );
    // Scan-8 has no adapter to Scan-9: converting this guest to the host's 17 fails.
    let other_opset = model(
        "<ir_version: 3, opset_import: [\"\": 8]>\ng (float[1,2,4] a) => (float[1,2,4] b) {\n  b = Scan <num_scan_inputs = 1, body = body (float[4] s) => (float[4] t) { t = Relu(s) }> (\"\", a)\n}\n",
    );
    let host_text = HOST.replace(r#""": 17]"#, r#""": 17, "c": 1]"#);
    type Case<'a> = (&'a Model, InlineOptions, fn(&InlineError) -> bool);
    let cases: Vec<Case> = vec![
        (&guest, opts(&[("nope", "x")]), |e| {
            matches!(e, InlineError::UnknownGuestInput { .. })
        }),
        (&guest, opts(&[("a", "nope")]), |e| {
            matches!(e, InlineError::HostValueNotFound { .. })
        }),
        (&guest, opts(&[("a", "x"), ("a", "t")]), |e| {
            matches!(e, InlineError::DuplicateBinding(_))
        }),
        (
            &guest,
            InlineOptions {
                expose: vec![("zz".into(), None)],
                ..opts(&[])
            },
            |e| matches!(e, InlineError::UnknownGuestOutput { .. }),
        ),
        (
            &guest,
            InlineOptions {
                expose: vec![("b".into(), Some("y".into()))],
                ..opts(&[])
            },
            |e| matches!(e, InlineError::NameTaken(_)),
        ),
        (&custom, opts(&[]), |e| {
            matches!(e, InlineError::DomainConflict { .. })
        }),
        (&other_opset, opts(&[]), |e| {
            matches!(
                e,
                InlineError::Convert {
                    side: "guest",
                    from: 8,
                    to: 17,
                    ..
                }
            )
        }),
    ];
    for (guest, o, is_expected) in cases {
        let mut host = model(&host_text);
        let before = graft::text::print_model(&host);
        let (nodes, values, graphs) = (host.nodes.len(), host.values.len(), host.graphs.len());
        let err = inline_model(&mut host, guest, &o).expect_err("fails");
        assert!(is_expected(&err), "unexpected error {err}");
        assert_eq!(graft::text::print_model(&host), before);
        assert_eq!(
            (host.nodes.len(), host.values.len(), host.graphs.len()),
            (nodes, values, graphs)
        );
    }
}

#[test]
fn a_guest_with_a_subgraph_target_must_be_fully_bound() {
    let host_text = r#"<ir_version: 10, opset_import: ["": 17]>
host (bool c, float[4] x) => (float[4] y, float[4] late) {
  y = If(c) <
    then_branch = th () => (float[4] r) { r = Relu(x) },
    else_branch = el () => (float[4] r) { r = Neg(x) }
  >
  late = Abs(x)
}
"#;
    let mut host = model(host_text);
    let guest = model(GUEST);
    let main = host.graph.expect("graph");
    let if_node = host.graph(main).nodes[0];
    let then_g = host
        .graphs
        .iter()
        .find(|(_, g)| g.owner == graft::ir::GraphOwner::Node(if_node))
        .map(|(id, _)| id)
        .expect("branch");
    let into = |bindings: &[(&str, &str)], expose_all: bool| InlineOptions {
        target: Some(then_g),
        expose_all,
        ..opts(bindings)
    };
    let err = inline_model(&mut host, &guest, &into(&[], false)).expect_err("unbound");
    assert_eq!(err, InlineError::UnboundInput("a".into()));
    let err = inline_model(&mut host, &guest, &into(&[("a", "x")], true)).expect_err("expose");
    assert!(matches!(err, InlineError::CannotExpose(_)), "{err}");
    // `late` is visible by scope but defined after the If: its branch cannot read it.
    let err = inline_model(&mut host, &guest, &into(&[("a", "late")], false)).expect_err("late");
    assert!(matches!(err, InlineError::DefinedLater { .. }), "{err}");
    // The branch sees x from the enclosing graph; names are fresh in the whole tree.
    let report = inline_model(&mut host, &guest, &into(&[("a", "x")], false)).expect("inlines");
    assert_eq!(report.outputs, [("b".to_string(), "guest/b".to_string())]);
    let text = graft::text::print_model(&host);
    assert!(text.contains("\"guest/t\" = Sigmoid(x)"), "{text}");
    let errors: Vec<String> = graft::check::check(&host)
        .iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn names_are_fresh_in_nested_subgraphs_too() {
    // The host already uses `guest/t` inside a branch: the guest's t must not reuse it.
    let host_text = r#"<ir_version: 10, opset_import: ["": 17]>
host (bool c, float[4] x) => (float[4] y) {
  y = If(c) <
    then_branch = th () => (float[4] r) { "guest/t" = Relu(x)  r = Neg("guest/t") },
    else_branch = el () => (float[4] r) { r = Neg(x) }
  >
}
"#;
    let mut host = model(host_text);
    let report = inline_model(&mut host, &model(GUEST), &opts(&[("a", "x")])).expect("inlines");
    assert_eq!(report.outputs, [("b".to_string(), "guest/b".to_string())]);
    let text = graft::text::print_model(&host);
    assert!(text.contains("\"guest/t_2\" = Sigmoid(x)"), "{text}");
}

#[test]
fn inlining_twice_gives_distinct_names() {
    let mut host = model(HOST);
    let guest = model(GUEST);
    let first = inline_model(&mut host, &guest, &opts(&[("a", "x")])).expect("first");
    let second = inline_model(&mut host, &guest, &opts(&[("a", "guest/b")])).expect("second");
    assert_eq!(first.outputs[0].1, "guest/b");
    assert_eq!(second.outputs[0].1, "guest/b_2");
    let text = graft::text::print_model(&host);
    assert!(
        text.contains("\"guest/t_2\" = Sigmoid(\"guest/b\")"),
        "{text}"
    );
}

#[test]
fn function_mode_makes_one_call_and_keeps_weights_as_initializers() {
    let mut host = model(HOST);
    let guest = model(
        r#"<ir_version: 10, opset_import: ["": 17]>
guest (float[4] a) => (float[4] b, float[4] a2)
  <float[4] W = {1.0, 2.0, 3.0, 4.0}>
{
  b = Mul(a, W)
  a2 = Identity(a)
}
"#,
    );
    let o = InlineOptions {
        mode: Mode::Function {
            domain: "lib".into(),
            name: "Scale".into(),
        },
        ..opts(&[("a", "t")])
    };
    let report = inline_model(&mut host, &guest, &o).expect("inlines");
    assert_eq!(
        report.function.as_ref().map(|k| k.to_string()).as_deref(),
        Some("lib.Scale")
    );
    assert_eq!(report.initializers_added, ["guest/W"]);
    let text = graft::text::print_model(&host);
    assert!(text.contains("lib.Scale(t, \"guest/W\")"), "{text}");
    assert!(text.contains("Scale (a, W) => (b, a2)"), "{text}");
    assert!(
        graft::check::check(&host)
            .iter()
            .all(|d| d.severity != graft::Severity::Error),
        "{text}"
    );
    // Again: the function name is taken, so the second gets a fresh one.
    let report = inline_model(&mut host, &guest, &o).expect("inlines again");
    assert_eq!(report.function.map(|k| k.name).as_deref(), Some("Scale_2"));
}

#[test]
fn ir3_weights_become_initializers() {
    // Case 13 at the host's opset (the fixture itself waits for the converter).
    let mut host = model(HOST);
    let guest = model(
        r#"<ir_version: 3, opset_import: ["": 17]>
guest (float[4] a, float[4] W = {1.0, 2.0, 3.0, 4.0}) => (float[4] b) {
  b = Mul(a, W)
}
"#,
    );
    let report = inline_model(&mut host, &guest, &opts(&[("a", "x")])).expect("inlines");
    assert!(report.inputs_added.is_empty(), "{report:?}");
    assert_eq!(report.initializers_added, ["guest/W"]);
}

#[test]
fn into_a_function_body_weights_become_constants() {
    let mut host = model(
        r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
host (float[4] x) => (float[4] y) {
  y = local.F(x)
}
<domain: "local", opset_import: ["": 17]>
F (u) => (v) {
  v = Neg(u)
}
"#,
    );
    let guest = model(
        r#"<ir_version: 10, opset_import: ["": 17]>
guest (float[4] a, float[4] bias = {1.0, 1.0, 1.0, 1.0}) => (float[4] b)
  <float[4] W = {1.0, 2.0, 3.0, 4.0}>
{
  m = Mul(a, W)
  b = Add(m, bias)
}
"#,
    );
    let f = host.functions[0];
    let body = host.function(f).body;
    let into = |bindings: &[(&str, &str)]| InlineOptions {
        target: Some(body),
        ..opts(bindings)
    };
    let err = inline_model(&mut host, &model(GUEST), &into(&[])).expect_err("unbound");
    assert_eq!(err, InlineError::UnboundInput("a".into()));
    let report = inline_model(&mut host, &guest, &into(&[("a", "v")])).expect("inlines");
    assert_eq!(report.outputs_added, ["guest/b"]);
    let text = graft::text::print_function(&host, f);
    assert!(text.contains("F (u) => (v, \"guest/b\")"), "{text}");
    assert!(text.contains("\"guest/W\" = Constant"), "{text}");
    assert!(text.contains("\"guest/bias\" = Constant"), "{text}");
    let errors: Vec<String> = graft::check::check(&host)
        .iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
}

#[test]
fn a_large_model_inlines_into_itself_quickly() {
    let n = 50_000;
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 17]>\nbig (float[4] v0) => (float[4] out)\n  <float[4] w = {1.0, 2.0, 3.0, 4.0}>\n{\n",
    );
    for i in 1..n {
        text.push_str(&format!("  v{i} = Add(v{}, w)\n", i - 1));
    }
    text.push_str(&format!("  out = Relu(v{})\n}}\n", n - 1));
    let guest = model(&text);
    let mut host = guest.clone();
    let start = std::time::Instant::now();
    let report = inline_model(&mut host, &guest, &opts(&[("v0", "out")])).expect("inlines");
    let took = start.elapsed();
    println!("inlined {n} nodes in {took:?}");
    assert_eq!(report.nodes.len(), n);
    assert_eq!(host.nodes.len(), 2 * n);
    // Generous for an unoptimized build; the release figure is what matters.
    assert!(took.as_secs() < 5, "{took:?}");
}

#[test]
fn a_function_is_deduplicated_only_with_its_callees() {
    // H and the guest's H print the same, but the G they call differ: the guest's H
    // must be kept (renamed) and call the guest's renamed G.
    let lib = |g_op: &str| {
        format!(
            r#"<domain: "local", opset_import: ["": 17]>
G (x) => (y) {{
  y = {g_op}(x)
}}
<domain: "local", opset_import: ["": 17, "local": 1]>
H (x) => (y) {{
  y = local.G(x)
}}
"#
        )
    };
    let mut host = model(&format!(
        "<ir_version: 10, opset_import: [\"\": 17, \"local\": 1]>\nhost (float[4] x) => (float[4] y) {{\n  y = local.H(x)\n}}\n{}",
        lib("Neg")
    ));
    let guest = model(&format!(
        "<ir_version: 10, opset_import: [\"\": 17, \"local\": 1]>\nguest (float[4] a) => (float[4] b) {{\n  b = local.H(a)\n}}\n{}",
        lib("Abs")
    ));
    let report = inline_model(&mut host, &guest, &opts(&[("a", "x")])).expect("inlines");
    assert!(report.functions_deduplicated.is_empty(), "{report:?}");
    let text = graft::text::print_model(&host);
    assert!(text.contains("\"guest/b\" = local.H_2(x)"), "{text}");
    assert!(
        text.contains("H_2 (x) => (y) {\n   y = local.G_2(x)"),
        "{text}"
    );
}

#[test]
fn external_data_is_sliced_not_copied() {
    let mut guest = model(
        r#"<ir_version: 10, opset_import: ["": 17]>
guest (float[4] a) => (float[4] b)
  <float[4] W = ["location": "w.bin", "offset": "4", "length": "16"]>
{
  b = Mul(a, W)
}
"#,
    );
    let file = bytes::Bytes::from((0u8..20).collect::<Vec<u8>>());
    guest.attach_external("w.bin", file.clone());
    let mut host = model(HOST);
    inline_model(&mut host, &guest, &opts(&[("a", "x")])).expect("inlines");
    let main = host.graph.expect("graph");
    let init = &host.graph(main).initializers[0];
    let raw = init.tensor.raw_data.as_ref().expect("in memory");
    assert_eq!(raw.as_ref(), &file[4..20]);
    assert_eq!(
        raw.as_ptr(),
        file[4..].as_ptr(),
        "a slice of the file, not a copy"
    );
    assert!(init.tensor.external_data.is_empty());
}

#[test]
fn quantization_annotations_follow_the_renamed_values() {
    let guest = model(
        r#"<ir_version: 10, opset_import: ["": 17]>
guest (float[4] a) => (float[4] b)
  <float s = {0.5}>
#@ {quantization_annotation: [{tensor_name: "t", quant_parameter_tensor_names: ["SCALE_TENSOR": "s"]}]}
{
  t = Relu(a)
  b = Mul(t, s)
}
"#,
    );
    let mut host = model(HOST);
    inline_model(&mut host, &guest, &opts(&[("a", "x")])).expect("inlines");
    let main = host.graph.expect("graph");
    let q = &host.graph(main).quantization_annotation;
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].tensor_name.as_deref(), Some("guest/t"));
    assert_eq!(q[0].quant_parameter_tensor_names[0].value(), "guest/s");
}

#[test]
fn metadata_keys_stay_unique_when_the_same_guest_comes_twice() {
    let mut host = model(
        "<ir_version: 10, opset_import: [\"\": 17], metadata_props: [\"a\": \"1\", \"guest/b\": \"other\"]>\nhost (float[4] x) => (float[4] y) { y = Abs(x) }\n",
    );
    let guest = model(
        "<ir_version: 10, opset_import: [\"\": 17], doc_string: \"guest doc\", metadata_props: [\"a\": \"2\", \"b\": \"3\"]>\nguest (float[4] a) => (float[4] b) { b = Relu(a) }\n",
    );
    let options = InlineOptions {
        bindings: vec![("a".into(), "x".into())],
        ..InlineOptions::default()
    };
    inline_model(&mut host, &guest, &options).expect("first");
    inline_model(&mut host, &guest, &options).expect("second");
    let pairs: Vec<(String, String)> = host
        .metadata_props
        .iter()
        .map(|p| (p.key().to_string(), p.value().to_string()))
        .collect();
    let mut keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), pairs.len(), "duplicate keys: {pairs:?}");
    let expected: Vec<(String, String)> = [
        ("a", "1"),
        ("guest/b", "other"),
        ("guest/a", "2"),
        ("b", "3"),
        ("guest/doc_string", "guest doc"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(pairs, expected, "the second copy adds nothing new");
    // The checker catches a duplicate key (as onnx.checker does).
    assert!(
        !graft::check::check(&host)
            .iter()
            .any(|d| d.code == "check.metadata-duplicate-key")
    );
    host.metadata_props
        .push(graft::ir::StringPair::new("a", "9"));
    assert!(
        graft::check::check(&host)
            .iter()
            .any(|d| d.code == "check.metadata-duplicate-key")
    );
}

#[test]
fn review_fixes_names_types_ir_and_annotations() {
    // An exposed output renamed by --expose O=NAME: its quantization annotation follows.
    let host = || {
        model(
            "<ir_version: 10, opset_import: [\"\": 17]>\nhost (float[4] x) => (float[4] y) { y = Abs(x) }\n",
        )
    };
    let mut guest = model(
        "<ir_version: 10, opset_import: [\"\": 17]>\nguest (float[4] a) => (float[4] b, float[4] c) <float s = {0.5}> {\n  t = Relu(a)\n  b = Mul(t, s)\n  c = Neg(t)\n}\n",
    );
    let main = guest.graph.expect("graph");
    guest.graphs[main]
        .quantization_annotation
        .push(graft::ir::TensorAnnotation {
            tensor_name: Some("b".into()),
            quant_parameter_tensor_names: vec![graft::ir::StringPair::new("SCALE_TENSOR", "s")],
        });
    let mut h = host();
    let options = InlineOptions {
        bindings: vec![("a".into(), "x".into())],
        expose: vec![("b".into(), Some("Z".into()))],
        ..InlineOptions::default()
    };
    inline_model(&mut h, &guest, &options).expect("inlines");
    let g = h.graph(h.graph.expect("graph"));
    let annotation = &g.quantization_annotation[0];
    assert_eq!(annotation.tensor_name.as_deref(), Some("Z"));
    assert_eq!(
        annotation.quant_parameter_tensor_names[0].value(),
        "guest/s"
    );
    // The output not exposed (c) keeps its stated type as value_info.
    let typed: Vec<&str> = g
        .value_info
        .iter()
        .filter(|vi| vi.ty.is_some())
        .filter_map(|vi| vi.value)
        .map(|v| h.value(v).name.as_str())
        .collect();
    assert_eq!(typed, ["guest/c"]);
    assert!(
        graft::check::check(&h)
            .iter()
            .all(|d| d.severity != graft::Severity::Error)
    );

    // An empty output name is refused, the host unchanged.
    let mut h = host();
    let before = graft::text::print_model(&h);
    let options = InlineOptions {
        bindings: vec![("a".into(), "x".into())],
        expose: vec![("b".into(), Some(String::new()))],
        ..InlineOptions::default()
    };
    assert_eq!(
        inline_model(&mut h, &guest, &options),
        Err(InlineError::EmptyName).map(|()| unreachable!())
    );
    assert_eq!(graft::text::print_model(&h), before);

    // Function mode into an IR 7 host: local functions need IR 8.
    let mut h = model(
        "<ir_version: 7, opset_import: [\"\": 12]>\nhost (float[4] x) => (float[4] y) { y = Abs(x) }\n",
    );
    let guest7 = model(
        "<ir_version: 7, opset_import: [\"\": 12]>\nguest (float[4] a) => (float[4] b) { b = Relu(a) }\n",
    );
    let options = InlineOptions {
        bindings: vec![("a".into(), "x".into())],
        mode: graft::inline::Mode::Function {
            domain: "loc".into(),
            name: "G".into(),
        },
        ..InlineOptions::default()
    };
    inline_model(&mut h, &guest7, &options).expect("inlines");
    assert_eq!(h.ir_version, Some(8));
    assert!(
        graft::check::check(&h)
            .iter()
            .all(|d| d.severity != graft::Severity::Error)
    );
}

#[test]
fn function_mode_keeps_an_optional_guest_input_optional() {
    let mut h = model(
        "<ir_version: 10, opset_import: [\"\": 17]>\nhost (float[4] x) => (float[4] y) { y = Abs(x) }\n",
    );
    let mut guest = model(
        "<ir_version: 10, opset_import: [\"\": 17], doc_string: \"model doc\", metadata_props: [\"k\": \"1\"]>\nguest (float[4] a, float[4] w) => (float[4] b) <float[4] w = {1, 2, 3, 4}> {\n  b = Mul(a, w)\n}\n",
    );
    let main = guest.graph.expect("graph");
    guest.graphs[main].doc_string = Some("graph doc".into());
    guest.graphs[main]
        .metadata_props
        .push(graft::ir::StringPair::new("k", "2"));
    let options = InlineOptions {
        bindings: vec![("a".into(), "x".into())],
        mode: graft::inline::Mode::Function {
            domain: "loc".into(),
            name: "G".into(),
        },
        ..InlineOptions::default()
    };
    let report = inline_model(&mut h, &guest, &options).expect("inlines");
    assert_eq!(
        report.inputs_added,
        [("w".to_string(), "guest/w".to_string())]
    );
    let g = h.graph(h.graph.expect("graph"));
    let input_names: Vec<&str> = g
        .inputs
        .iter()
        .filter_map(|vi| vi.value)
        .map(|v| h.value(v).name.as_str())
        .collect();
    assert_eq!(input_names, ["x", "guest/w"], "a graph input…");
    let init_names: Vec<&str> = g
        .initializers
        .iter()
        .filter_map(|i| i.value)
        .map(|v| h.value(v).name.as_str())
        .collect();
    assert_eq!(init_names, ["guest/w"], "…with its default");
    // The guest's model and graph doc strings and metadata go on the function.
    let f = h.function(h.functions[0]);
    assert_eq!(f.doc_string.as_deref(), Some("model doc\n\ngraph doc"));
    let meta: Vec<(&str, &str)> = f
        .metadata_props
        .iter()
        .map(|p| (p.key(), p.value()))
        .collect();
    assert_eq!(meta, [("k", "1"), ("graph/k", "2")]);
    assert!(
        graft::check::check(&h)
            .iter()
            .all(|d| d.severity != graft::Severity::Error)
    );
}

#[test]
fn function_mode_removes_shadowing_too() {
    let mut h = model(HOST);
    let guest = model(
        r#"<ir_version: 10, opset_import: ["": 17]>
guest (float[4] a) => (float[4] b) {
  n = Constant <value = int64 {3}> ()
  b = Loop(n, "", a) <
    body = loop_body (int64 i, bool cond, float[4] a) => (bool cond_out, float[4] a_out) {
      cond_out = Identity(cond)
      a_out = Add(a, a)
    }
  >
}
"#,
    );
    let options = InlineOptions {
        bindings: vec![("a".into(), "x".into())],
        mode: graft::inline::Mode::Function {
            domain: "loc".into(),
            name: "G".into(),
        },
        ..InlineOptions::default()
    };
    inline_model(&mut h, &guest, &options).expect("inlines");
    let text = graft::text::print_model(&h);
    assert!(
        text.contains("float[4] a_2) => (bool cond_out, float[4] a_out)"),
        "{text}"
    );
    assert!(text.contains("a_out = Add(a_2, a_2)"), "{text}");
    let warnings: Vec<_> = graft::check::check(&h)
        .into_iter()
        .map(|d| d.code)
        .collect();
    assert!(
        !warnings.contains(&"check.shadowing"),
        "{warnings:?}\n{text}"
    );
}

#[test]
fn into_a_function_body_the_function_version_decides() {
    // Model at 17, the function at 12, the guest at 17: the function's body moves to
    // 17; the rest of the model is not touched.
    let host_text = r#"<ir_version: 10, opset_import: ["": 17, "loc": 1]>
host (float[2,3] x) => (float[2] y) {
  y = loc.F(x)
}
<domain: "loc", opset_import: ["": 12]>
F (a) => (b) {
  b = ReduceSum <axes = [1], keepdims = 0> (a)
}
"#;
    let guest = model(
        "<ir_version: 10, opset_import: [\"\": 17]>\nguest (float[2] p) => (float[2] q) { q = Relu(p) }\n",
    );
    let mut h = model(host_text);
    let body = h.function(h.functions[0]).body;
    let options = InlineOptions {
        bindings: vec![("p".into(), "b".into())],
        target: Some(body),
        ..InlineOptions::default()
    };
    let report = inline_model(&mut h, &guest, &options).expect("inlines");
    assert_eq!(report.converted.len(), 1, "{report:?}");
    assert!(report.converted[0].starts_with("host converted from opset 12 to 17"));
    let f = h.function(h.functions[0]);
    assert_eq!(f.opset_import[0].version, Some(17));
    let text = graft::text::print_function(&h, h.functions[0]);
    assert!(
        text.contains("ReduceSum <keepdims = 0> (a, b_axes)"),
        "axes became an input: {text}"
    );
    assert!(
        graft::check::check(&h)
            .iter()
            .all(|d| d.severity != graft::Severity::Error),
        "{:?}",
        graft::check::check(&h)
    );

    // Model at 13, the function at 17, the guest at 13: the guest moves to 17.
    let host_text = host_text
        .replace(r#""": 17, "loc": 1"#, r#""": 13, "loc": 1"#)
        .replace(r#"opset_import: ["": 12]>"#, r#"opset_import: ["": 17]>"#)
        .replace("ReduceSum <axes = [1], keepdims = 0> (a)", "Relu(a)");
    let guest = model(
        "<ir_version: 10, opset_import: [\"\": 13]>\nguest (float[2,3] p) => (float[2,3] q) { q = Relu(p) }\n",
    );
    let mut h = model(&host_text);
    let body = h.function(h.functions[0]).body;
    let options = InlineOptions {
        bindings: vec![("p".into(), "b".into())],
        target: Some(body),
        ..InlineOptions::default()
    };
    let report = inline_model(&mut h, &guest, &options).expect("inlines");
    assert!(
        report.converted[0].starts_with("guest converted from opset 13 to 17"),
        "{report:?}"
    );
    assert_eq!(h.opset_version(""), Some(13), "the model keeps its version");
}
