//! Graft's checker against onnx.checker over the whole corpus: where onnx rejects a
//! model, Graft must report an error; where Graft reports an error onnx accepts, the
//! rule must be one of Graft's documented stricter rules (`graft::check::CODES`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use bytes::Bytes;
use graft::Severity;
use graft_tests::corpus;

/// Codes whose rule onnx.checker does not enforce.
fn stricter(code: &str) -> bool {
    graft::check::CODES
        .iter()
        .any(|(c, rule)| *c == code && rule.contains("stricter"))
}

#[test]
fn verdicts_agree_with_onnx_checker() {
    let Some(dir) = corpus::dir() else { return };
    let out = corpus::root().join("target/interop/checker_verdicts.json");
    let _ = std::fs::create_dir_all(out.parent().unwrap_or(&dir));
    let status = Command::new(corpus::python())
        .arg(corpus::root().join("tests/interop/checker_verdicts.py"))
        .arg(&dir)
        .arg(&out)
        .status()
        .expect("python runs");
    assert!(status.success(), "checker_verdicts.py failed");
    let text = std::fs::read_to_string(&out).expect("verdicts written");
    let verdicts = parse_verdicts(&text);
    assert!(verdicts.len() > 100, "only {} verdicts", verdicts.len());

    let mut failures = Vec::new();
    let mut stricter_differences: BTreeMap<&'static str, usize> = BTreeMap::new();
    let (mut agree, mut stricter_count, mut expected_found) = (0, 0, 0);
    for (rel, onnx_error) in &verdicts {
        let bytes = std::fs::read(dir.join(rel))
            .map(Bytes::from)
            .expect("corpus file");
        let Ok(mut imported) = graft::import(bytes) else {
            failures.push(format!("{rel}: Graft cannot import it"));
            continue;
        };
        // As the CLI opens it: the data files beside it attached (onnx.checker reads
        // them by path too).
        let beside = dir
            .join(rel)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        for location in imported.model.external_locations() {
            if let Ok(data) = std::fs::read(beside.join(&location)) {
                imported.model.attach_external(location, Bytes::from(data));
            }
        }
        let errors: Vec<_> = graft::check::check(&imported.model)
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        // The deliberately invalid models name the rule they break.
        if let Some(code) = imported
            .model
            .doc_string
            .as_deref()
            .and_then(|d| d.strip_prefix("expect: "))
        {
            if errors.iter().any(|d| d.code == code) {
                expected_found += 1;
            } else {
                failures.push(format!(
                    "{rel}: expected {code}, Graft reports {:?}",
                    errors.iter().map(|d| d.code).collect::<Vec<_>>()
                ));
            }
        }
        match (onnx_error, errors.is_empty()) {
            (None, true) | (Some(_), false) => agree += 1,
            (Some(e), true) => failures.push(format!(
                "{rel}: onnx.checker rejects it ({e}), Graft finds no error"
            )),
            (None, false) => {
                let lenient: Vec<_> = errors.iter().filter(|d| !stricter(d.code)).collect();
                if lenient.is_empty() {
                    stricter_count += 1;
                    for d in &errors {
                        *stricter_differences.entry(d.code).or_default() += 1;
                    }
                } else {
                    failures.push(format!(
                        "{rel}: onnx.checker accepts it, Graft reports {} error(s), e.g. {}",
                        lenient.len(),
                        lenient[0]
                    ));
                }
            }
        }
    }
    println!(
        "checker agreement: {agree} agree, {stricter_count} stricter in Graft {stricter_differences:?}, {} differ; {expected_found} invalid models report their rule",
        failures.len()
    );
    assert!(
        expected_found >= 20,
        "only {expected_found} invalid models were recognised"
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The script writes a flat JSON object of path → null or message.
fn parse_verdicts(text: &str) -> BTreeMap<String, Option<String>> {
    let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
    value
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().map(str::to_string)))
                .collect()
        })
        .unwrap_or_default()
}

/// One model made invalid the way a user's edit can make it.
struct Mutation {
    original: std::path::PathBuf,
    edit: graft::edit::Edit,
    file: std::path::PathBuf,
}

/// The edits that break a model the way onnx's full check sees through shape
/// inference, for one model: every axis, axes and perm attribute of the main graph
/// set out of its input's range, every node fed by one kind of type and giving
/// another (a sequence from a tensor, a map, …) deleted with reconnect, and every
/// graph output retyped to another element type.
fn mutations_of(model: &graft::Model) -> Vec<graft::edit::Edit> {
    use graft::edit::Edit;
    let Some(g) = model.graph else {
        return Vec::new();
    };
    let inferred = graft::infer::infer(model);
    let ty = |v: Option<graft::ir::ValueId>| v.and_then(|v| inferred.get(v));
    let rank = |v| {
        ty(v).and_then(|t| match t.value? {
            graft::ir::TypeValue::Tensor(t) => Some(t.shape?.dims.len() as i64),
            _ => None,
        })
    };
    let kind = |v| {
        ty(v)
            .and_then(|t| t.value)
            .map(|t| std::mem::discriminant(&t))
    };
    let graph = model.graph(g);
    let outputs: Vec<_> = graph.outputs.iter().filter_map(|o| o.value).collect();
    let mut edits = Vec::new();
    for (k, &n) in graph.nodes.iter().enumerate() {
        let node = model.node(n);
        let r = rank(node.inputs.first().copied().flatten());
        for a in &node.attributes {
            let Some(r) = r else { break };
            let attribute = match (a.name(), node.op_type()) {
                ("axis", _) => format!("axis = {}", r + 2),
                ("axes", "Squeeze" | "Unsqueeze") | ("axes", _)
                    if node.op_type().starts_with("Reduce")
                        || matches!(node.op_type(), "Squeeze" | "Unsqueeze") =>
                {
                    format!("axes = [{}]", -(r + 3))
                }
                ("perm", "Transpose") => {
                    let perm: Vec<String> = (0..r).map(|p| (p + 1).to_string()).collect();
                    format!("perm = [{}]", perm.join(", "))
                }
                _ => continue,
            };
            edits.push(Edit::SetAttribute {
                graph: "main".into(),
                node: k,
                attribute,
            });
        }
        let (Some(input), Some(output)) = (
            node.inputs.first().copied().flatten(),
            node.outputs.first().copied().flatten(),
        ) else {
            continue;
        };
        if outputs.contains(&output)
            && node.outputs.len() == 1
            && kind(Some(input)).is_some()
            && kind(Some(output)).is_some()
            && kind(Some(input)) != kind(Some(output))
        {
            edits.push(Edit::DeleteNodes {
                graph: "main".into(),
                nodes: vec![k],
                reconnect: true,
            });
        }
    }
    for info in graph.outputs.iter().take(2) {
        let (Some(o), Some(graft::ir::TypeValue::Tensor(t))) =
            (info.value, info.ty.clone().and_then(|t| t.value))
        else {
            continue;
        };
        let to = if t.elem_type == Some(graft::ir::dtype::INT64) {
            "float"
        } else {
            "int64"
        };
        let shape = t.shape.map_or("[]".to_string(), |s| {
            let dims: Vec<String> = s
                .dims
                .iter()
                .map(|d| match &d.value {
                    Some(graft::ir::DimValue::Value(v)) => v.to_string(),
                    Some(graft::ir::DimValue::Param(p)) => p.clone(),
                    None => "?".into(),
                })
                .collect();
            if dims.is_empty() {
                String::new()
            } else {
                format!("[{}]", dims.join(","))
            }
        });
        edits.push(Edit::SetType {
            graph: "main".into(),
            name: model.value(o).name.clone(),
            ty: format!("{to}{shape}"),
        });
    }
    edits
}

/// Errors Graft finds in a model: the checker's and inference's, as `graft check`.
fn graft_errors(model: &graft::Model) -> Vec<graft::Diagnostic> {
    let mut all = graft::check::check(model);
    all.extend(graft::infer::infer(model).diagnostics);
    all.retain(|d| d.severity == Severity::Error);
    all
}

/// Models mutated as a user's edits can break them, against onnx's full check: every
/// mutation onnx.checker.check_model(full_check=True) rejects, `graft check` rejects
/// too, and the edit that makes it is refused by the document host (the app's and
/// `graft apply`'s door). Only models onnx's full check accepts are mutated.
#[test]
fn mutations_onnx_full_check_rejects_graft_rejects_and_refuses() {
    let Some(dir) = corpus::dir() else { return };
    let out = corpus::root().join("target/interop/mutations");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("mutation folder");
    let mut mutations = Vec::new();
    for path in corpus::models(&dir) {
        let rel = path.strip_prefix(&dir).unwrap_or(&path);
        if rel.starts_with("invalid")
            || std::fs::metadata(&path).map_or(true, |m| m.len() > 2_000_000)
        {
            continue;
        }
        let Ok(imported) = graft::import(Bytes::from(std::fs::read(&path).expect("read"))) else {
            continue;
        };
        let model = imported.model;
        if !model.external_locations().is_empty() || !graft_errors(&model).is_empty() {
            continue;
        }
        for edit in mutations_of(&model) {
            let mut m = model.clone();
            if graft::edit::apply(&mut m, &edit).is_err() {
                continue;
            }
            let Ok(bytes) = graft::export(&m, &Default::default()) else {
                continue;
            };
            let file = out.join(format!("{}.onnx", mutations.len()));
            std::fs::write(&file, bytes).expect("write mutation");
            mutations.push(Mutation {
                original: path.clone(),
                edit,
                file,
            });
        }
    }
    let manifest: Vec<serde_json::Value> = mutations
        .iter()
        .map(|m| serde_json::json!({"original": m.original, "mutated": m.file}))
        .collect();
    let manifest_path = out.join("manifest.json");
    std::fs::write(
        &manifest_path,
        serde_json::Value::Array(manifest).to_string(),
    )
    .expect("manifest");
    let verdicts_path = out.join("verdicts.json");
    let status = Command::new(corpus::python())
        .arg(corpus::root().join("tests/interop/mutation_verdicts.py"))
        .arg(&manifest_path)
        .arg(&verdicts_path)
        .status()
        .expect("python runs");
    assert!(status.success(), "mutation_verdicts.py failed");
    let verdicts: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&verdicts_path).expect("verdicts"))
            .expect("JSON");
    assert_eq!(verdicts.len(), mutations.len());

    let (mut tried, mut by_onnx, mut by_graft, mut refused) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (m, verdict) in mutations.iter().zip(&verdicts) {
        if verdict["original_ok"] != serde_json::Value::Bool(true) {
            continue;
        }
        tried += 1;
        let mutated =
            graft::import(Bytes::from(std::fs::read(&m.file).expect("read"))).expect("imports");
        let graft_rejects = !graft_errors(&mutated.model).is_empty();
        by_graft += usize::from(graft_rejects);
        let Some(onnx_error) = verdict["error"].as_str() else {
            continue;
        };
        by_onnx += 1;
        let original =
            graft::import(Bytes::from(std::fs::read(&m.original).expect("read"))).expect("imports");
        let mut host = graft::host::Host::open(original.model, original.diagnostics);
        let is_refused = host
            .apply(graft::host::Command::Edit(m.edit.clone()))
            .is_err();
        refused += usize::from(is_refused);
        if !graft_rejects || !is_refused {
            failures.push(format!(
                "{} with {:?}: onnx's full check rejects it ({onnx_error}); graft check {}, the host {}",
                m.original.display(),
                m.edit,
                if graft_rejects { "rejects it" } else { "finds no error" },
                if is_refused { "refuses the edit" } else { "applies the edit" },
            ));
        }
    }
    println!(
        "mutations: {tried} tried, {by_onnx} rejected by onnx's full check, {by_graft} rejected by graft check, {refused} of onnx's refused as edits"
    );
    assert!(
        tried > 200 && by_onnx > 100,
        "too few mutations: {tried} tried, {by_onnx} rejected by onnx"
    );
    assert!(
        failures.is_empty(),
        "{} mutations onnx rejects and Graft lets through:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
