//! Type and shape inference on `generated/large_50k.onnx` (`cargo bench -p graft --bench
//! infer`): a full `infer` against `Inferred::update` after a one-node edit. The model
//! is a chain of 10,000 five-node blocks (Mul, Add, Tanh, Add, Mul), each reading the
//! previous block's output, so a change of an output's shape reaches every later node.
//! Each update iteration makes a real edit (toggling it back every other iteration).

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use graft::Model;
use graft::infer::{Inferred, infer};
use graft::ir::{Node, NodeId, Value, ValueDef};

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus"))
        });
    dir.join(".complete").exists().then_some(dir)
}

/// The node at `pos` in the main graph.
fn node_at(model: &Model, pos: usize) -> Option<NodeId> {
    model.graph(model.graph?).nodes.get(pos).copied()
}

/// Benchmarks toggling node `n`'s operator between `a` and `b`, updating after each.
fn toggle(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    label: &str,
    model: &mut Model,
    inferred: &mut Inferred,
    n: NodeId,
    (a, b): (&str, &str),
) {
    let mut flip = false;
    let mut recomputed = 0;
    group.bench_function(label, |bench| {
        bench.iter(|| {
            flip = !flip;
            model.nodes[n].op_type = Some(if flip { b } else { a }.to_string());
            let u = inferred.update(model, &[n]);
            recomputed = recomputed.max(u.nodes);
            u
        })
    });
    model.nodes[n].op_type = Some(a.to_string());
    inferred.update(model, &[n]);
    eprintln!("{label}: up to {recomputed} nodes recomputed per update");
}

fn bench(c: &mut Criterion) {
    let Some(dir) = corpus() else {
        eprintln!("no corpus: run `cargo xtask corpus` (or `cargo xtask bench`)");
        return;
    };
    let path = dir.join("generated/large_50k.onnx");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("missing {}", path.display());
        return;
    };
    let Ok(imported) = graft::import(bytes.into()) else {
        eprintln!("{}: cannot import", path.display());
        return;
    };
    let mut model = imported.model;
    let mut group = c.benchmark_group("infer");
    group.sample_size(20);
    group.bench_function("full/large_50k", |b| b.iter(|| infer(&model)));
    let mut inferred = infer(&model);
    // Local: the first block's Tanh becomes a Sigmoid (same type), early in the graph,
    // so the walk still passes every later node.
    if let Some(n) = node_at(&model, 2) {
        let label = "update-local/large_50k";
        toggle(
            &mut group,
            label,
            &mut model,
            &mut inferred,
            n,
            ("Tanh", "Sigmoid"),
        );
    }
    // Far: a block's first Mul becomes a Transpose of its [1, 8] input ([8, 1]), which
    // broadcasts to [8, 8] through every later block: 10% of the graph (block 9,000), and
    // all of it (block 0).
    for (block, label) in [
        (9_000, "update-far-10pc/large_50k"),
        (0, "update-far-all/large_50k"),
    ] {
        if let Some(n) = node_at(&model, block * 5) {
            toggle(
                &mut group,
                label,
                &mut model,
                &mut inferred,
                n,
                ("Mul", "Transpose"),
            );
        }
    }
    // The builder: a node appended at the end, reading the last output. The same node
    // is appended and taken off again each iteration (taking it off is not measured).
    if let Some(g) = model.graph
        && let Some(last) = model.graph(g).outputs.first().and_then(|o| o.value)
    {
        let out = model.values.push(Value {
            name: "appended".to_string(),
            graph: g,
            def: ValueDef::Input,
        });
        let n = model.nodes.push(Node {
            graph: g,
            op_type: Some("Tanh".to_string()),
            domain: None,
            overload: None,
            name: None,
            inputs: vec![Some(last)],
            outputs: vec![Some(out)],
            attributes: Vec::new(),
            doc_string: None,
            metadata_props: Vec::new(),
            device_configurations: Vec::new(),
        });
        model.values[out].def = ValueDef::Node(n);
        group.bench_function("update-append/large_50k", |bench| {
            bench.iter_batched_ref(
                || (),
                |()| {
                    model.graphs[g].nodes.push(n);
                    let u = inferred.update(&model, &[n]);
                    model.graphs[g].nodes.pop();
                    u
                },
                criterion::BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
