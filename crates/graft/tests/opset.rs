//! Opset conversion, data-driven: every `tests/opset/*.onnxtxt` file starts with a line
//! `# target: N`, then a model in ONNX text at its old version, then a line
//! `# ==== expected ====` and the report and printed model after
//! `graft::opset::convert`. `UPDATE_EXPECT=1 cargo test -p graft --test opset`
//! rewrites the expectations. Every result must pass `graft::check::check` without
//! errors. A file with `# expect-error` expects the conversion to fail (its expected
//! part is the error) and the model to stay exactly as it was.
//!
//! `numerics_match_onnxruntime` writes each fixture's model before and after
//! conversion under `target/interop/opset/` and runs `tests/interop/opset_numerics.py`
//! on them (onnxruntime, rtol 1e-5), unless the fixture says `# numerics: skip`.

use std::path::{Path, PathBuf};
use std::process::Command;

use graft::opset::{ConvertError, convert};
use graft::text::{parse_model, print_model};
use graft::{ExportOptions, Severity};

mod support;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/opset");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "onnxtxt"))
        .collect();
    files.sort();
    files
}

struct Fixture {
    file: support::Fixture,
    target: i64,
    expect_error: bool,
    numerics: bool,
}

fn load(path: &Path) -> Fixture {
    let file = support::Fixture::read(path);
    let input = &file.input;
    let target = input
        .lines()
        .find_map(|l| l.strip_prefix("# target:"))
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}: no `# target: N` line", path.display()));
    Fixture {
        target,
        expect_error: input.lines().any(|l| l.trim() == "# expect-error"),
        numerics: !input.lines().any(|l| l.starts_with("# numerics: skip")),
        file,
    }
}

fn model(f: &Fixture) -> graft::Model {
    parse_model(&f.file.input)
        .unwrap_or_else(|e| panic!("{}: {e}", f.file.path.display()))
        .model
}

/// The printed result of converting a fixture, and the problems found on the way.
fn run(f: &Fixture) -> (String, Vec<String>) {
    let mut problems = Vec::new();
    let mut m = model(f);
    let before = print_model(&m);
    match convert(&mut m, f.target) {
        Ok(report) => {
            if f.expect_error {
                problems.push("conversion succeeded, an error was expected".into());
            }
            for d in graft::check::check(&m) {
                if d.severity >= Severity::Error {
                    problems.push(format!("check: {d}"));
                }
            }
            (format!("# report: {report}\n{}", print_model(&m)), problems)
        }
        Err(e) => {
            if !f.expect_error {
                problems.push(format!("conversion failed: {e}"));
            }
            if print_model(&m) != before {
                problems.push("a failed conversion changed the model".into());
            }
            (format!("# error: {e}\n"), problems)
        }
    }
}

#[test]
fn conversion_snapshots() {
    let mut failures = Vec::new();
    for path in files() {
        let f = load(&path);
        let (actual, problems) = run(&f);
        let name = path.display().to_string();
        failures.extend(problems.into_iter().map(|p| format!("{name}: {p}")));
        failures.extend(f.file.check(&actual, "the result"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const SQUEEZE_11: &str = r#"
<ir_version: 7, opset_import: ["" : 11]>
main (float[2,1,3] x) => (float[2,3] y, float[2,3] z) {
   s = Squeeze <axes = [1]> (x)
   y = Identity(s)
   z = Softmax <axis = 0> (s)
}
"#;

#[test]
fn a_missing_adapter_is_named_and_changes_nothing() {
    // Scan 8 → 9 changed the meaning of its inputs; there is no adapter.
    let text = r#"
<ir_version: 4, opset_import: ["" : 8]>
main (float[1,2] x, float[1,3,2] s) => (float[1,2] y, float[1,3,2] o) {
   r = Relu(x)
   y, o = Scan <num_scan_inputs = 1, body = b (float[2] a, float[2] e) => (float[2] c, float[2] d) {
      c = Add(a, e)
      d = Identity(c)
   }> (, r, s)
}
"#;
    let mut m = parse_model(text).unwrap().model;
    let before = print_model(&m);
    let err = convert(&mut m, 13).unwrap_err();
    assert_eq!(
        err,
        ConvertError::NoAdapter {
            op: "Scan".into(),
            from: 8,
            to: 9
        }
    );
    assert_eq!(print_model(&m), before);
    assert_eq!(m.opset_version(""), Some(8));
}

#[test]
fn a_failing_adapter_changes_nothing_either() {
    // The Squeeze converts first, then Softmax 13 -> 12 on axis 0 of unknown rank cannot.
    let text = r#"
<ir_version: 8, opset_import: ["" : 13]>
main (float[2,1,3] x) => (float[2,3] z) <int64[1] ax = {1}> {
   s = Squeeze (x, ax)
   z = Softmax <axis = 0> (s)
}
"#;
    let mut m = parse_model(text).unwrap().model;
    let before = print_model(&m);
    let err = convert(&mut m, 11).unwrap_err();
    assert!(
        matches!(&err, ConvertError::Unsupported { op, .. } if op == "Softmax"),
        "{err}"
    );
    assert_eq!(print_model(&m), before);
}

#[test]
fn bad_targets_are_refused() {
    let mut m = parse_model(SQUEEZE_11).unwrap().model;
    assert!(matches!(
        convert(&mut m, 0),
        Err(ConvertError::Target { .. })
    ));
    assert!(matches!(
        convert(&mut m, 1000),
        Err(ConvertError::Target { .. })
    ));
}

#[test]
fn convert_graphs_converts_one_function_body() {
    let text = r#"
<ir_version: 10, opset_import: ["" : 18, "lib" : 1]>
main (float[2,1] x) => (float[2] y) {
   y = lib.f(x)
}

<domain: "lib", opset_import: ["" : 11]>
f (X) => (Y) {
   Y = Squeeze <axes = [1]> (X)
}
"#;
    let mut m = parse_model(text).unwrap().model;
    let f = m.functions[0];
    let body = m.function(f).body;
    let report = graft::opset::convert_graphs(&mut m, &[body], 11, 18).unwrap();
    assert_eq!(report.changed_count(), 1);
    let node = m.graph(body).nodes.last().copied().unwrap();
    assert_eq!(m.node(node).inputs.len(), 2);
    assert_eq!(m.graph(body).nodes.len(), 2, "a Constant node in the body");
}

fn python() -> PathBuf {
    std::env::var_os("GRAFT_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/venv/bin/python"))
}

#[test]
fn numerics_match_onnxruntime() {
    let python = python();
    if !python.exists() {
        assert!(
            std::env::var_os("GRAFT_REQUIRE_CORPUS").is_none(),
            "no Python at {}",
            python.display()
        );
        eprintln!("skipped: no Python at {}", python.display());
        return;
    }
    let work = root().join("target/interop/opset");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let options = ExportOptions::default();
    let mut count = 0;
    for path in files() {
        let f = load(&path);
        if f.expect_error || !f.numerics {
            continue;
        }
        let original = model(&f);
        let mut converted = original.clone();
        convert(&mut converted, f.target).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        for (suffix, m) in [("orig", &original), ("conv", &converted)] {
            let bytes = graft::export(m, &options).unwrap();
            std::fs::write(work.join(format!("{stem}.{suffix}.onnx")), bytes).unwrap();
        }
        count += 1;
    }
    assert!(count > 0);
    let out = Command::new(&python)
        .arg(root().join("tests/interop/opset_numerics.py"))
        .arg(&work)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("{count} pairs agree")), "{text}");
}

#[test]
fn every_schema_change_from_7_to_23_has_an_adapter() {
    // Known gaps: Scan 9 (scan axes replaced the batch axis), GroupNormalization 21
    // (scale and bias per channel instead of per group).
    let known = [("Scan", 9), ("GroupNormalization", 21)];
    let mut missing = Vec::new();
    for op in graft::schema::ops("") {
        let history = graft::schema::history("", op);
        for s in history.iter().skip(1) {
            let v = s.since_version;
            if (8..=23).contains(&v)
                && !graft::opset::has_adapter(op, v)
                && !known.contains(&(op, v))
            {
                missing.push(format!("{op} {v}"));
            }
        }
    }
    assert!(missing.is_empty(), "no adapter for: {}", missing.join(", "));
}
