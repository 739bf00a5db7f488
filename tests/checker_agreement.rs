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
