//! The `graft` binary as a user runs it: exit codes, one-line errors, JSON keys, and
//! lossless conversion.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn graft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_graft"))
        .args(args)
        .output()
        .expect("the graft binary runs")
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("graft-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Exit code 2 and exactly one line on stderr, naming the file.
fn assert_clean_failure(out: &Output, mentions: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "stderr: {stderr}");
    assert!(
        stderr.starts_with("graft: ") && stderr.contains(mentions),
        "stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
}

#[test]
fn bad_inputs_give_one_line_and_exit_code_2() {
    let missing = temp("does-not-exist.onnx");
    assert_clean_failure(
        &graft(&["info", missing.to_str().unwrap_or("")]),
        "cannot read",
    );

    let model = std::fs::read(examples().join("mlp.onnx")).expect("example");
    let cases: [(&str, Vec<u8>, &str); 4] = [
        (
            "truncated.onnx",
            model[..model.len() / 2].to_vec(),
            "is not an ONNX model, or it is damaged",
        ),
        (
            "random.onnx",
            (0..4096u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            "is not an ONNX model, or it is damaged",
        ),
        // A TensorProto { dims: [2], data_type: 1 }: a protobuf, not a model.
        (
            "tensor.pb",
            vec![0x08, 0x02, 0x10, 0x01],
            "not an ONNX model",
        ),
        ("empty.onnx", Vec::new(), "not an ONNX model"),
    ];
    for (name, bytes, message) in cases {
        let path = temp(name);
        std::fs::write(&path, bytes).expect("write");
        let out = graft(&["info", path.to_str().unwrap_or("")]);
        assert_clean_failure(&out, message);
        let out = graft(&[
            "convert",
            path.to_str().unwrap_or(""),
            "-o",
            temp("out.onnx").to_str().unwrap_or(""),
        ]);
        assert_clean_failure(&out, name);
    }
}

#[test]
fn info_json_has_the_documented_keys() {
    let path = examples().join("functions_and_control_flow.onnx");
    let out = graft(&["info", path.to_str().unwrap_or(""), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    for key in [
        "ir_version",
        "opset_import",
        "producer_name",
        "nodes_total",
        "nodes_main",
        "functions",
        "overloads",
        "initializers",
        "initializer_bytes",
        "external_tensors",
        "max_subgraph_depth",
        "diagnostics",
    ] {
        assert!(json.get(key).is_some(), "missing key {key} in {json}");
    }
    assert_eq!(json["ir_version"], 10);
    assert_eq!(json["functions"], 1);
    assert_eq!(json["nodes_main"], 14);
    assert_eq!(json["nodes_total"], 22);
    assert_eq!(json["max_subgraph_depth"], 1);
}

#[test]
fn convert_is_lossless_and_deterministic() {
    for name in ["functions_and_control_flow.onnx", "mlp.onnx"] {
        let input = examples().join(name);
        let output = temp(name);
        let out = graft(&[
            "convert",
            input.to_str().unwrap_or(""),
            "-o",
            output.to_str().unwrap_or(""),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Both examples were written by onnx, which serializes in field order as prost
        // does: an unedited model comes back byte for byte.
        assert_eq!(
            std::fs::read(&input).ok(),
            std::fs::read(&output).ok(),
            "{name}"
        );
    }
}

#[test]
fn print_then_parse_gives_back_the_model() {
    for name in ["functions_and_control_flow.onnx", "mlp.onnx"] {
        let input = examples().join(name);
        let out = graft(&["print", input.to_str().unwrap_or("")]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = temp(&format!("{name}.onnxtxt"));
        std::fs::write(&text, &out.stdout).expect("write text");
        let back = temp(&format!("back-{name}"));
        let out = graft(&[
            "parse",
            text.to_str().unwrap_or(""),
            "-o",
            back.to_str().unwrap_or(""),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Lossless text, deterministic export: the same bytes onnx wrote.
        assert_eq!(
            std::fs::read(&input).ok(),
            std::fs::read(&back).ok(),
            "{name}"
        );
    }
}

#[test]
fn print_one_function_and_report_a_missing_one() {
    let input = examples().join("functions_and_control_flow.onnx");
    let path = input.to_str().unwrap_or("");
    let listed = graft(&["check", path]);
    assert!(listed.status.success());
    let missing = graft(&["print", path, "--function", "nowhere.F"]);
    assert_clean_failure(&missing, "has no function nowhere.F");
    let stderr = String::from_utf8_lossy(&missing.stderr);
    // The message lists the functions there are; print the first of them.
    let known = stderr
        .rsplit("(it has: ")
        .next()
        .unwrap_or("")
        .trim_end()
        .trim_end_matches(')');
    let first = known.split(", ").next().unwrap_or("");
    let out = graft(&["print", path, "--function", first]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("=>") && text.contains('{'), "{text}");
}

#[test]
fn a_parse_error_points_at_line_and_column() {
    let text = temp("broken.onnxtxt");
    std::fs::write(&text, "<ir_version: 10, opset_import: [\"\" : 18]>\ng (float[2] x) => (float[2] y) {\n  y = Relu(x\n}\n").expect("write");
    let out = graft(&[
        "parse",
        text.to_str().unwrap_or(""),
        "-o",
        temp("broken.onnx").to_str().unwrap_or(""),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("broken.onnxtxt:4:1:") || stderr.contains("broken.onnxtxt:3:"),
        "{stderr}"
    );
    assert!(stderr.contains('^'), "a caret under the column: {stderr}");
}

#[test]
fn render_draws_collapsed_and_expanded_views() {
    let model = examples().join("functions_and_control_flow.onnx");
    let model = model.to_str().unwrap_or("");
    let collapsed = temp("collapsed.svg");
    let out = graft(&["render", model, "-o", collapsed.to_str().unwrap_or("")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&collapsed).expect("written");
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains(">ScaledTanh<") && !svg.contains("value_float"));

    let expanded = temp("expanded.svg");
    let out = graft(&[
        "render",
        model,
        "-o",
        expanded.to_str().unwrap_or(""),
        "--expand",
        "all",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let svg = std::fs::read_to_string(&expanded).expect("written");
    // Each call's body shows that call's attribute value.
    assert!(
        svg.contains("value_float = 0.5<"),
        "the call with alpha = 0.5"
    );
    assert!(
        svg.contains("value_float = 1.0 (default)<"),
        "the call without"
    );
    assert!(svg.contains(">then_branch<") && svg.contains(">else_branch<"));

    let function = temp("function.svg");
    let out = graft(&[
        "render",
        model,
        "-o",
        function.to_str().unwrap_or(""),
        "--function",
        "graft.examples.ScaledTanh",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let svg = std::fs::read_to_string(&function).expect("written");
    assert!(svg.contains("value_float = 1.0 (default)<"));

    let bad = graft(&["render", model, "-o", "/tmp/x.svg", "--expand", "lots"]);
    assert_clean_failure(&bad, "--expand");
}

/// A model written from ONNX text with `graft parse`.
fn model_from_text(name: &str, text: &str) -> PathBuf {
    let txt = temp(&format!("{name}.onnxtxt"));
    std::fs::write(&txt, text).expect("write text");
    let onnx = temp(&format!("{name}.onnx"));
    let out = graft(&[
        "parse",
        txt.to_str().unwrap_or(""),
        "-o",
        onnx.to_str().unwrap_or(""),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    onnx
}

#[test]
fn convert_opset_rewrites_nodes_and_reports() {
    let input = model_from_text(
        "opset7",
        "<ir_version: 7, opset_import: [\"\" : 7]>\nmain (float[2,1] x) => (float[2] y) {\n   y = Squeeze <axes = [1]> (x)\n}\n",
    );
    let output = temp("opset13.onnx");
    let out = graft(&[
        "convert",
        input.to_str().unwrap_or(""),
        "-o",
        output.to_str().unwrap_or(""),
        "--opset",
        "13",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("Squeeze 1"), "{stderr}");
    let printed = graft(&["print", output.to_str().unwrap_or("")]);
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(text.contains("\"\" : 13"), "{text}");
    assert!(text.contains("y = Squeeze(x, y_axes)"), "{text}");
}

#[test]
fn convert_opset_without_adapter_fails_with_exit_code_1() {
    let input = model_from_text(
        "groupnorm",
        "<ir_version: 8, opset_import: [\"\" : 18]>\nmain (float[1,4,2] x, float[2] s, float[2] b) => (float[1,4,2] y) {\n   y = GroupNormalization <num_groups = 2> (x, s, b)\n}\n",
    );
    let output = temp("groupnorm23.onnx");
    let _ = std::fs::remove_file(&output);
    let out = graft(&[
        "convert",
        input.to_str().unwrap_or(""),
        "-o",
        output.to_str().unwrap_or(""),
        "--opset",
        "23",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("GroupNormalization"), "{stderr}");
    assert!(!output.exists());
}

#[test]
fn inline_binds_exposes_and_fails_cleanly() {
    let host = temp("inline-host.onnxtxt");
    std::fs::write(
        &host,
        "<ir_version: 10, opset_import: [\"\": 17]>\nhost (float[4] x) => (float[4] y) {\n  t = Relu(x)\n  y = Neg(t)\n}\n",
    )
    .expect("write host");
    let guest = temp("inline-guest.onnxtxt");
    std::fs::write(
        &guest,
        "<ir_version: 10, opset_import: [\"\": 17]>\nguest (float[4] a, float[4] c) => (float[4] b) {\n  t = Add(a, c)\n  b = Abs(t)\n}\n",
    )
    .expect("write guest");
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    // Text out; c is unbound and becomes a host input; b is exposed under a name.
    let out_text = temp("inline-out.onnxtxt");
    let out = graft(&[
        "inline",
        &s(&host),
        &s(&guest),
        "-o",
        &s(&out_text),
        "--bind",
        "a=t",
        "--expose",
        "b=z",
        "--prefix",
        "g",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&out_text).expect("output written");
    assert!(
        text.contains("float[4] \"g/c\") => (float[4] y, float[4] z)"),
        "{text}"
    );
    assert!(text.contains("\"g/t\" = Add(t, \"g/c\")"), "{text}");
    // Protobuf out, as a function: the result checks clean.
    let out_onnx = temp("inline-out.onnx");
    let out = graft(&[
        "inline",
        &s(&host),
        &s(&guest),
        "-o",
        &s(&out_onnx),
        "--bind",
        "a=x",
        "--bind",
        "c=t",
        "--as-function",
        "lib.Guest",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = graft(&["check", &s(&out_onnx)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // An error: one line, exit code 1, nothing written.
    let nothing = temp("inline-nothing.onnx");
    let out = graft(&[
        "inline",
        &s(&host),
        &s(&guest),
        "-o",
        &s(&nothing),
        "--bind",
        "a=nope",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("\"nope\""), "{stderr}");
    assert!(!nothing.exists());
}

#[test]
fn inline_converts_an_older_guest_and_says_where_everything_went() {
    let host = temp("inline-conv-host.onnxtxt");
    std::fs::write(
        &host,
        "<ir_version: 8, opset_import: [\"\": 17]>\nhost (float[1,3] x) => (float[1,3] y) {\n  y = Relu(x)\n}\n",
    )
    .expect("write host");
    let guest = temp("inline-conv-guest.onnxtxt");
    std::fs::write(
        &guest,
        "<ir_version: 7, opset_import: [\"\": 12]>\nguest (float[1,3] a, float[3] c) => (float[3] b) {\n  s = Squeeze <axes = [0]> (a)\n  b = Add(s, c)\n}\n",
    )
    .expect("write guest");
    let out_path = temp("inline-conv-out.onnxtxt");
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    let out = graft(&[
        "inline",
        &s(&host),
        &s(&guest),
        "-o",
        &s(&out_path),
        "--bind",
        "a=y",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "guest converted from opset 12 to 17: rewrote 1 nodes (Squeeze 1), added 0 nodes and 1 initializers",
            "input a = y",
            "input c = guest/c (new graph input)",
            "output b = guest/b",
            "added 2 nodes",
        ]
    );
    let text = std::fs::read_to_string(&out_path).expect("written");
    assert!(text.contains("Squeeze(y, \"guest/s_axes\")"), "{text}");

    // --opset on the result: down to 12 the Squeeze takes its attribute again.
    let down = temp("inline-conv-12.onnxtxt");
    let out = graft(&[
        "inline",
        &s(&host),
        &s(&guest),
        "-o",
        &s(&down),
        "--bind",
        "a=y",
        "--opset",
        "12",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&down).expect("written");
    assert!(text.contains("\"\" : 12"), "{text}");
    assert!(text.contains("Squeeze <axes = [0]>"), "{text}");
}

const LIBRARY: &str = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y, float[4] z) {
  y = local.F <k = 0.5> (x)
  z = local.G(x)
}
<domain: "local", opset_import: ["": 17]>
F <k> (x) => (y) {
  t = Neg(x)
  y = LeakyRelu <alpha: float = @k> (t)
}
<domain: "local", opset_import: ["": 17]>
G (x) => (y) {
  y = Abs(x)
}
"#;

#[test]
fn inline_functions_expands_calls_and_fails_cleanly() {
    let model = model_from_text("library", LIBRARY);
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();

    let all = temp("library-all.onnxtxt");
    let out = graft(&["inline-functions", &s(&model), "-o", &s(&all)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["inlined 2 calls", "removed local.F", "removed local.G"]
    );
    let text = std::fs::read_to_string(&all).expect("written");
    assert!(text.contains("LeakyRelu <alpha = 0.5> (t)"), "{text}");
    assert!(!text.contains("local.F"), "{text}");

    let one = temp("library-one.onnx");
    let out = graft(&[
        "inline-functions",
        &s(&model),
        "-o",
        &s(&one),
        "--function",
        "local.G",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = graft(&["print", &s(&one)]);
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(
        text.contains("z = Abs(x)") && text.contains("local.F"),
        "{text}"
    );

    // An unknown function: one line, exit 1, nothing written.
    let none = temp("library-none.onnx");
    let out = graft(&[
        "inline-functions",
        &s(&model),
        "-o",
        &s(&none),
        "--function",
        "local.H",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no local function local.H"), "{stderr}");
    assert!(!none.exists());
}

#[test]
fn outline_makes_a_function_and_fails_cleanly() {
    let model = model_from_text(
        "outline",
        r#"<ir_version: 10, opset_import: ["": 17]>
main (float[4] x) => (float[4] y) {
  t = Relu(x)
  u = Neg(t)
  y = Add(u, t)
}
"#,
    );
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    let result = temp("outlined.onnx");
    let out = graft(&[
        "outline",
        &s(&model),
        "--nodes",
        "1,2",
        "--name",
        "lib.NegAdd",
        "-o",
        &s(&result),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "outlined 2 nodes into lib.NegAdd\n"
    );
    let printed = graft(&["print", &s(&result)]);
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(
        text.contains("y = lib.NegAdd(t)") && text.contains("\"lib\" : 1"),
        "{text}"
    );
    let check = graft(&["check", &s(&result)]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // Relu and Add without Neg is not convex.
    let bad = temp("outlined-bad.onnxtxt");
    let out = graft(&[
        "outline",
        &s(&model),
        "--nodes",
        "0,2",
        "--name",
        "lib.X",
        "-o",
        &s(&bad),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not convex"), "{stderr}");
    assert!(!bad.exists());
}

#[test]
fn specialize_a_call_or_all_and_fail_cleanly() {
    let model = temp("spec-in.onnxtxt");
    std::fs::write(
        &model,
        "<ir_version: 8, opset_import: [\"\": 17, \"local\": 1]>\nmain (float[4] x) => (float[4] y, int64[4] z) {\n  y = local.LRelu <alpha = 0.5> (x)\n  z = local.CastTo <t = 7> (x)\n}\n<domain: \"local\", opset_import: [\"\": 17]>\nLRelu <alpha: float = 0.3> (x) => (y) {\n  y = LeakyRelu <alpha: float = @alpha> (x)\n}\n<domain: \"local\", opset_import: [\"\": 17]>\nCastTo <t> (x) => (y) {\n  y = Cast <to: int = @t> (x)\n}\n",
    )
    .expect("write model");
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    // One call, with its attribute overridden; text out.
    let out_text = temp("spec-out.onnxtxt");
    let out = graft(&[
        "specialize",
        &s(&model),
        "-o",
        &s(&out_text),
        "--node",
        "y",
        "--attr",
        "alpha=0.2",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("call y -> local.LRelu:alpha_0p2 (new)"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&out_text).expect("output written");
    assert!(text.contains("ir_version: 10"), "{text}");
    assert!(text.contains("y = local.LRelu:alpha_0p2(x)"), "{text}");
    assert!(text.contains("LeakyRelu <alpha = 0.2> (x)"), "{text}");
    // Every call; protobuf out that checks clean.
    let out_onnx = temp("spec-out.onnx");
    let out = graft(&["specialize", &s(&model), "-o", &s(&out_onnx), "--all"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("call z -> local.CastTo:t_7 (new)"),
        "{stdout}"
    );
    assert!(stdout.contains("removed local.CastTo"), "{stdout}");
    let out = graft(&["check", &s(&out_onnx)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Errors: one line, exit code 1, nothing written.
    for (args, mentions) in [
        (
            vec!["--node", "y", "--attr", "alpha=2"],
            "is int at the call",
        ),
        (
            vec!["--node", "y", "--attr", "beta=1.0"],
            "no attribute \"beta\"",
        ),
        (vec!["--node", "nope"], "\"nope\""),
        (vec!["--node", "y", "--attr", "alpha=="], "--attr"),
    ] {
        let nothing = temp("spec-nothing.onnx");
        let mut full = vec!["specialize", model.to_str().unwrap_or(""), "-o"];
        let n = s(&nothing);
        full.push(&n);
        full.extend(args);
        let out = graft(&full);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(mentions), "{stderr}");
        assert!(!nothing.exists());
    }
}

#[test]
fn specialize_one_function_keeping_its_generic() {
    let model = temp("spec-keep-in.onnxtxt");
    std::fs::write(
        &model,
        "<ir_version: 10, opset_import: [\"\": 17, \"local\": 1]>\nmain (float[4] x) => (float[4] y, float[4] w) {\n  y = local.F <alpha = 0.2> (x)\n  w = local.H <beta = 2.0> (x)\n}\n<domain: \"local\", opset_import: [\"\": 17]>\nF <alpha> (x) => (y) {\n  y = LeakyRelu <alpha: float = @alpha> (x)\n}\n<domain: \"local\", opset_import: [\"\": 17]>\nH <beta> (x) => (y) {\n  b = Constant <value_float: float = @beta> ()\n  y = Mul(x, b)\n}\n",
    )
    .expect("write model");
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    let out_text = temp("spec-keep-out.onnxtxt");
    let run = |extra: &[&str]| {
        let mut args = vec!["specialize", &s(&model), "-o", &s(&out_text), "--all"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        args.extend(extra.iter().map(|a| a.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = graft(&refs);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8_lossy(&out.stdout).to_string(),
            std::fs::read_to_string(&out_text).expect("output written"),
        )
    };
    // Only H's call; H goes once uncalled.
    let (stdout, text) = run(&["--function", "local.H"]);
    assert!(
        stdout.contains("call w -> local.H:beta_2 (new)"),
        "{stdout}"
    );
    assert!(stdout.contains("removed local.H"), "{stdout}");
    assert!(text.contains("local.F <alpha = 0.2> (x)"), "{text}");
    // Kept, the generic stays.
    let (stdout, text) = run(&["--function", "local.H", "--keep", "local.H"]);
    assert!(!stdout.contains("removed local.H"), "{stdout}");
    assert!(text.contains("\nH <beta>"), "{text}");
}

#[test]
fn infer_writes_value_info_and_summarizes() {
    let input = model_from_text(
        "infer",
        "<ir_version: 8, opset_import: [\"\" : 18]>\nmain (float[N,4] x) => (y) <float[N,5] r> {\n   r = Relu(x)\n   s = Shape(r)\n   y = Reshape(x, s)\n}\n",
    );
    // Text out: the intermediate gets a value_info, the output its type, the stated
    // (wrong) type stays and is reported.
    let text = temp("inferred.onnxtxt");
    let out = graft(&[
        "infer",
        input.to_str().unwrap_or(""),
        "-o",
        text.to_str().unwrap_or(""),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("warning[infer.shape-mismatch]"), "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("4 values: 4 typed, 4 with a shape, 0 unknown; 2 value_info written, 1 findings"),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&text).expect("output");
    assert!(written.contains("=> (float[N,5] y)"), "{written}");
    assert!(written.contains("float[N,5] r, int64[2] s"), "{written}");
    // Protobuf out reads back.
    let onnx = temp("inferred.onnx");
    let out = graft(&[
        "infer",
        input.to_str().unwrap_or(""),
        "-o",
        onnx.to_str().unwrap_or(""),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let out = graft(&["print", onnx.to_str().unwrap_or("")]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("int64[2] s"));
    // An unreadable model: exit code 2, one line.
    let missing = temp("missing-for-infer.onnx");
    assert_clean_failure(
        &graft(&[
            "infer",
            missing.to_str().unwrap_or(""),
            "-o",
            onnx.to_str().unwrap_or(""),
        ]),
        "cannot read",
    );
}

#[test]
fn apply_replays_an_edit_log() {
    let input = model_from_text(
        "apply",
        "<ir_version: 8, opset_import: [\"\" : 18]>\nmain (float[N,4] x) => (y) {\n   a = Relu(x)\n   y = Neg(a)\n}\n",
    );
    let log = temp("apply-log.json");
    std::fs::write(
        &log,
        r#"[{"edit": "rename_value", "graph": "main", "from": "a", "to": "act"},
            {"edit": "add_node", "graph": "main", "op_type": "Sigmoid", "inputs": ["act"], "outputs": ["gate"]},
            {"edit": "add_output", "graph": "main", "value": "gate"}]"#,
    )
    .expect("log written");
    let text = temp("applied.onnxtxt");
    let out = graft(&[
        "apply",
        log.to_str().unwrap_or(""),
        input.to_str().unwrap_or(""),
        "-o",
        text.to_str().unwrap_or(""),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 edits applied"));
    let written = std::fs::read_to_string(&text).expect("output");
    assert!(written.contains("gate = Sigmoid(act)"), "{written}");
    assert!(written.contains("=> (y, float[N,4] gate)"), "{written}");
    // A refused edit: exit 1, its position named, nothing written.
    std::fs::write(
        &log,
        r#"[{"edit": "rename_value", "graph": "main", "from": "nope", "to": "b"}]"#,
    )
    .expect("log written");
    let none = temp("not-applied.onnx");
    let _ = std::fs::remove_file(&none);
    let out = graft(&[
        "apply",
        log.to_str().unwrap_or(""),
        input.to_str().unwrap_or(""),
        "-o",
        none.to_str().unwrap_or(""),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("edit 1 of the log"));
    assert!(!none.exists());
}

#[test]
fn transforms_refuse_what_check_rejects_naming_the_call() {
    let bad = model_from_text(
        "undeclared",
        r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x) => (float[4] y) {
  a = local.F <alpha = 0.5> (x)
  [second] y = local.F <alpha = 0.5, beta = 2.0> (a)
}
<domain: "local", opset_import: ["": 17]>
F <alpha> (x) => (y) {
  y = LeakyRelu <alpha: float = @alpha> (x)
}
"#,
    );
    let bad = bad.to_str().unwrap_or("");
    let check = graft(&["check", bad]);
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("check.call-undeclared-attribute"));
    for args in [
        vec!["specialize", "--all"],
        vec!["specialize", "--node", "second"],
        vec!["inline-functions"],
    ] {
        let out_path = temp(&format!("refused-{}.onnx", args.join("-")));
        let mut full = vec![args[0], bad, "-o", out_path.to_str().unwrap_or("")];
        full.extend(&args[1..]);
        let out = graft(&full);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("[check.call-undeclared-attribute]")
                && stderr.contains("node \"second\"")
                && stderr.contains("\"beta\""),
            "{args:?}: {stderr}"
        );
        assert!(!out_path.exists(), "{args:?} wrote {}", out_path.display());
    }
}

#[test]
fn external_data_is_checked_and_moved_beside_an_output_elsewhere() {
    let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) <float[4] w = ["location": "ext-w.bin", "offset": "8", "length": "16"]> {
  y = Mul(x, w)
}"#;
    let mut data = vec![0xAAu8; 8];
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data.extend_from_slice(&[0xBB; 100]);
    std::fs::write(temp("ext-w.bin"), &data).expect("data file");
    let model = model_from_text("ext", text);
    let path = model.to_str().unwrap_or("");
    assert_eq!(graft(&["check", path]).status.code(), Some(0));

    // Written to another directory: the model's bytes (only those) go beside it.
    let other = temp("elsewhere");
    std::fs::create_dir_all(&other).expect("dir");
    let out = other.join("moved.onnx");
    let outs = out.to_str().unwrap_or("");
    let run = graft(&["convert", path, "-o", outs]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let moved = std::fs::read(other.join("moved.onnx.data")).expect("new data file");
    assert_eq!(moved, data[8..24]);
    let check = graft(&["check", outs]);
    assert_eq!(check.status.code(), Some(0), "{check:?}");

    // Without its data file the model fails the check, and cannot be written elsewhere.
    std::fs::remove_file(temp("ext-w.bin")).expect("remove");
    let check = graft(&["check", path]);
    assert_eq!(check.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(stdout.contains("check.external-data"), "{stdout}");
    let again = other.join("again.onnx");
    let refused = graft(&["convert", path, "-o", again.to_str().unwrap_or("")]);
    assert_clean_failure(&refused, "ext-w.bin");
    assert!(!again.exists() && !other.join("again.onnx.data").exists());
}

#[test]
fn diff_reports_changes_with_exit_codes_and_json() {
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    let model = model_from_text("diff-a", LIBRARY);

    // Against itself: exit 0.
    let out = graft(&["diff", &s(&model), &s(&model)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // Against its inlined form: exit 1, the calls reported as inlined.
    let inlined = temp("diff-b.onnxtxt");
    let out = graft(&["inline-functions", &s(&model), "-o", &s(&inlined)]);
    assert!(out.status.success());
    let out = graft(&["diff", &s(&model), &s(&inlined)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("- function local.F"), "{stdout}");
    assert!(stdout.contains(" inlined as "), "{stdout}");
    assert!(stdout.contains("0 added, 0 removed, 0 changed"), "{stdout}");

    let out = graft(&["diff", "--json", &s(&model), &s(&inlined)]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["same_up_to_names"], false);
    assert_eq!(json["counts"]["calls_inlined"], 2, "{json}");
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["counts", "functions", "graphs", "model", "same_up_to_names"]
    );
    assert_eq!(json["graphs"][0]["nodes"][0]["change"], "inlined", "{json}");

    // An unreadable side: exit 2, one line.
    let missing = temp("diff-missing.onnx");
    assert_clean_failure(
        &graft(&["diff", &s(&model), &s(&missing)]),
        "diff-missing.onnx",
    );
}

/// What onnx's full check finds through shape inference, `graft check` finds, and
/// `graft apply` refuses to write: Softmax `axis = 7` on a rank-2 input.
#[test]
fn check_and_apply_refuse_an_axis_out_of_range() {
    let source = "<ir_version: 8, opset_import: [\"\" : 18]>\nmlp (float[N,4] x) => (float[N,4] y) {\n   h = Relu(x)\n   y = Softmax <axis = AXIS> (h)\n}\n";
    let bad = model_from_text("axis-7", &source.replace("AXIS", "7"));
    let check = graft(&["check", bad.to_str().unwrap_or("")]);
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("[infer.attribute-range]") && stdout.contains("axis must be in [-2, 1]"),
        "{stdout}"
    );
    let good = model_from_text("axis-1", &source.replace("AXIS", "1"));
    let log = temp("axis-log.json");
    std::fs::write(
        &log,
        r#"[{"edit": "set_attribute", "graph": "main", "node": 1, "attribute": "axis = 7"}]"#,
    )
    .expect("log written");
    let out_path = temp("axis-7-applied.onnx");
    let _ = std::fs::remove_file(&out_path);
    let out = graft(&[
        "apply",
        log.to_str().unwrap_or(""),
        good.to_str().unwrap_or(""),
        "-o",
        out_path.to_str().unwrap_or(""),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("edit 1 of the log") && stderr.contains("axis must be in [-2, 1]"),
        "{stderr}"
    );
    assert!(!out_path.exists());
}
