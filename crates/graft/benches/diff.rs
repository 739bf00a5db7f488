//! `graft::diff` natively (`cargo bench -p graft --bench diff`): the 50k-node model
//! against a copy that differs in 1% of its nodes (every 200th node has another op, and
//! every 200th, offset by 100, a metadata entry added), and against a copy with every
//! node and intermediate value renamed (nothing to match by name). No peer has a
//! model diff; decoding both files is measured beside it for scale.

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use graft::ir::{StringPair, ValueDef};

fn bench(c: &mut Criterion) {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target/corpus"));
    let path = corpus.join("generated/large_50k.onnx");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("missing {}", path.display());
        return;
    };
    let bytes = bytes::Bytes::from(bytes);
    let a = graft::import(bytes.clone())
        .expect("large_50k imports")
        .model;
    let main = a.graph.expect("a main graph");

    let mut changed = a.clone();
    let nodes = changed.graph(main).nodes.clone();
    let mut differing = 0;
    for (k, &n) in nodes.iter().enumerate() {
        let node = &mut changed.nodes[n];
        if k % 200 == 0 {
            let other = match node.op_type() {
                "Add" => "Sub",
                "Mul" => "Div",
                "Relu" => "Sigmoid",
                _ => "Identity",
            };
            if other != "Identity" {
                node.op_type = Some(other.to_string());
                differing += 1;
            }
        } else if k % 200 == 100 {
            node.metadata_props.push(StringPair::new("edited", "yes"));
            differing += 1;
        }
    }
    let d = graft::diff::diff(&a, &changed);
    let counts = d.counts();
    eprintln!(
        "{} nodes, {differing} differ: {} changed, {} added, {} removed",
        nodes.len(),
        counts.nodes_changed,
        counts.nodes_added,
        counts.nodes_removed
    );

    let mut renamed = a.clone();
    let live: Vec<_> = renamed.live_nodes().collect();
    for (k, &n) in live.iter().enumerate() {
        renamed.nodes[n].name = Some(format!("fresh_{k}"));
    }
    let outputs: Vec<_> = renamed
        .graph(main)
        .outputs
        .iter()
        .filter_map(|o| o.value)
        .collect();
    let values: Vec<_> = renamed.values.iter().map(|(v, _)| v).collect();
    for v in values {
        if matches!(renamed.value(v).def, ValueDef::Node(_)) && !outputs.contains(&v) {
            renamed.values[v].name = format!("fresh_v{}", v.index());
        }
    }

    let mut group = c.benchmark_group("diff_50k");
    group.sample_size(10);
    group.bench_function("one_percent_changed", |b| {
        b.iter(|| graft::diff::diff(&a, &changed))
    });
    group.bench_function("all_renamed", |b| {
        b.iter(|| graft::diff::diff(&a, &renamed))
    });
    group.bench_function("decode_both", |b| {
        b.iter(|| {
            (
                graft::import(bytes.clone()).expect("imports"),
                graft::import(bytes.clone()).expect("imports"),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
