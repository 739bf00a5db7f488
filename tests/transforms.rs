//! Transforms never turn a clean model into one the checker rejects: over the
//! acceptance cases and the corpus, specialize-all, inline-functions, expand-standard,
//! inlining the model into itself (as nodes and as a function), outlining its first two
//! nodes and opset conversion each either refuse (leaving the model as it was; a refused call
//! names the checker's code) or give a model whose checker verdict is no worse: no
//! errors when the input had none.
//!
//! `cargo xtask test` runs a sample of the corpus (every 5th model);
//! `GRAFT_TRANSFORMS_ALL=1` runs all of it.

use std::path::Path;

use bytes::Bytes;
use graft::Model;
use graft::inline::{InlineOptions, Mode, inline_model};
use graft::library::{Which, expand_standard_ops, inline_calls, outline};
use graft::specialize::specialize_all;
use graft_tests::corpus;

fn errors(model: &Model) -> Vec<String> {
    graft::check::check(model)
        .into_iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

/// Runs every transform on `model` (named `what`); problems go to `problems`.
/// Returns how many transforms refused.
fn transforms(model: &Model, what: &str, problems: &mut Vec<String>) -> usize {
    let clean = errors(model).is_empty();
    let before = graft::text::print_model(model);
    let mut refused = 0;
    type Pass = fn(&mut Model) -> Result<(), String>;
    let passes: [(&str, Pass); 7] = [
        ("specialize-all", |m| {
            specialize_all(m).map(|_| ()).map_err(|e| e.to_string())
        }),
        ("inline-functions", |m| {
            inline_calls(m, &Which::All)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }),
        ("expand-standard", |m| {
            expand_standard_ops(m, None)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }),
        ("inline the model into itself", |m| {
            let guest = m.clone();
            let opts = InlineOptions {
                expose_all: true,
                ..InlineOptions::default()
            };
            inline_model(m, &guest, &opts)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }),
        ("inline the model into itself as a function", |m| {
            let guest = m.clone();
            let opts = InlineOptions {
                expose_all: true,
                mode: Mode::Function {
                    domain: "graft.test".into(),
                    name: "Guest".into(),
                },
                ..InlineOptions::default()
            };
            inline_model(m, &guest, &opts)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }),
        ("outline the first two nodes", |m| {
            let Some(g) = m.graph else { return Ok(()) };
            let nodes: Vec<_> = m.graph(g).nodes.iter().take(2).copied().collect();
            if nodes.len() < 2 {
                return Ok(());
            }
            outline(m, &nodes, "graft.test", "Outlined")
                .map(|_| ())
                .map_err(|e| e.to_string())
        }),
        ("convert --opset 21", |m| {
            if m.opset_version("").is_some_and(|v| v < 21) {
                graft::opset::convert(m, 21)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            } else {
                Ok(())
            }
        }),
    ];
    for (name, pass) in passes {
        let mut work = model.clone();
        match pass(&mut work) {
            Err(e) => {
                refused += 1;
                if graft::text::print_model(&work) != before {
                    problems.push(format!(
                        "{what}: {name} refused ({e}) but changed the model"
                    ));
                }
                if e.contains("[check.call-") && !e.contains("node ") {
                    problems.push(format!("{what}: {name} does not name the call: {e}"));
                }
            }
            Ok(()) if clean => {
                let after = errors(&work);
                if !after.is_empty() {
                    problems.push(format!(
                        "{what}: {name} made a clean model invalid: {}",
                        after.join("; ")
                    ));
                }
            }
            Ok(()) => {}
        }
    }
    refused
}

#[test]
fn every_transform_refuses_or_keeps_a_clean_model_clean() {
    let mut problems = Vec::new();
    let mut runs = 0;
    for (what, section) in corpus::case_sections() {
        let Ok(parsed) = graft::text::parse_model(&section) else {
            continue;
        };
        transforms(&parsed.model, &what, &mut problems);
        runs += 1;
    }
    assert!(runs >= 50, "only {runs} acceptance cases parsed");
    if let Some(dir) = corpus::dir() {
        let all = std::env::var_os("GRAFT_TRANSFORMS_ALL").is_some();
        let mut refusals = 0;
        let mut models = 0;
        for (k, path) in corpus::models(&dir).into_iter().enumerate() {
            if !all && k % 5 != 0 {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let Ok(imported) = graft::import(Bytes::from(bytes)) else {
                continue;
            };
            // Big models cost minutes in a debug build; their transforms are covered
            // by the smaller ones and by the benchmarks.
            if imported.model.nodes.len() > 5_000 {
                continue;
            }
            refusals += transforms(&imported.model, &name(&path), &mut problems);
            models += 1;
        }
        eprintln!("transforms: {models} corpus models, {refusals} refusals");
        assert!(models > 0, "no corpus model was run");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
