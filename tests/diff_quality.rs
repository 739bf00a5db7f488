//! How well `graft::diff` matches, over the corpus:
//!
//! - **renames:** each model against itself with every node name and every intermediate
//!   value name replaced by a fresh one. A node counts as matched when the diff pairs
//!   it with its true twin (the copy keeps node ids, so the twin is the same id). At
//!   least 99% must be, model by model.
//! - **inline recognition:** each model with local functions against its
//!   `inline-functions` result. Every call outside function bodies must be reported as
//!   inlined, with no node added or removed around it.
//!
//! `--nocapture` prints the table that BENCHMARKS.md quotes.

use std::path::Path;

use bytes::Bytes;
use graft::Model;
use graft::diff::diff;
use graft::ir::{GraphOwner, ValueDef};
use graft_tests::corpus;

fn corpus_models() -> Vec<(String, Model)> {
    let Some(dir) = corpus::dir() else {
        eprintln!("no corpus (run `cargo xtask corpus`): nothing measured");
        return Vec::new();
    };
    let mut out = Vec::new();
    for path in corpus::models(&dir) {
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        if !(rel.starts_with("real") || rel.starts_with("generated")) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(imported) = graft::import(Bytes::from(bytes)) else {
            continue;
        };
        let mut model = imported.model;
        let beside = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for location in model.external_locations() {
            if let Ok(data) = std::fs::read(beside.join(&location)) {
                model.attach_external(location, Bytes::from(data));
            }
        }
        out.push((rel, model));
    }
    out
}

/// `model` with fresh node names and fresh names for every value a node computes
/// that is no graph's output.
fn renamed(model: &Model) -> Model {
    let mut copy = model.clone();
    let outputs: std::collections::HashSet<_> = copy
        .graphs
        .iter()
        .flat_map(|(_, g)| g.outputs.iter().filter_map(|o| o.value))
        .collect();
    let live: Vec<_> = copy.live_nodes().collect();
    for (k, &n) in live.iter().enumerate() {
        copy.nodes[n].name = Some(format!("fresh_node_{k}"));
    }
    let values: Vec<_> = copy.values.iter().map(|(v, _)| v).collect();
    for (k, v) in values.into_iter().enumerate() {
        if matches!(copy.value(v).def, ValueDef::Node(_)) && !outputs.contains(&v) {
            copy.values[v].name = format!("fresh_value_{k}");
        }
    }
    copy
}

#[test]
fn renamed_copies_match_their_twins() {
    let mut failures = Vec::new();
    println!("| model | nodes | matched to their twin |");
    println!("|---|---:|---:|");
    for (what, model) in corpus_models() {
        let live = model.live_nodes().count();
        if live == 0 {
            continue;
        }
        let copy = renamed(&model);
        let d = diff(&model, &copy);
        let mut twins = 0;
        for g in &d.graphs {
            // A function body compared with another's (an overload's generic) has no
            // twin to count.
            if let (GraphOwner::Function(fa), GraphOwner::Function(fb)) =
                (model.graph(g.a).owner, copy.graph(g.b).owner)
                && fa != fb
            {
                continue;
            }
            twins += g.pairs.iter().filter(|(a, b)| a == b).count();
        }
        let share = twins as f64 / live as f64;
        println!("| {what} | {live} | {:.2}% |", share * 100.0);
        if share < 0.99 {
            failures.push(format!("{what}: {twins} of {live}"));
        }
    }
    assert!(failures.is_empty(), "under 99% matched: {failures:?}");
}

#[test]
fn inlined_calls_are_recognized() {
    let mut failures = Vec::new();
    println!("| model | calls | reported inlined | nodes added or removed |");
    println!("|---|---:|---:|---:|");
    for (what, model) in corpus_models() {
        if model.functions.is_empty() {
            continue;
        }
        let Some(main) = model.graph else { continue };
        let index = graft::ir::FunctionIndex::new(&model);
        let calls = model
            .nodes_under(main)
            .filter(|&n| index.callee(&model, n).is_some())
            .count();
        if calls == 0 {
            continue;
        }
        let mut inlined = model.clone();
        if graft::library::inline_calls(&mut inlined, &graft::library::Which::All).is_err() {
            continue;
        }
        let d = diff(&model, &inlined);
        let c = d.counts();
        println!(
            "| {what} | {calls} | {} | {} |",
            c.calls_inlined,
            c.nodes_added + c.nodes_removed
        );
        if c.calls_inlined != calls || c.nodes_added + c.nodes_removed != 0 {
            failures.push(format!(
                "{what}: {} of {calls} inlined, {} added, {} removed\n{}",
                c.calls_inlined,
                c.nodes_added,
                c.nodes_removed,
                d.report(&model, &inlined)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
