//! Throughput of the text format on large printed models: `print_model` of an
//! imported model and `parse_model` of its text (`cargo bench -p graft --bench text`).
//! Criterion reports MB/s against the size of the text.

use std::path::PathBuf;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus"))
        });
    dir.join(".complete").exists().then_some(dir)
}

fn text(c: &mut Criterion) {
    let Some(dir) = corpus() else {
        eprintln!("no corpus: run `cargo xtask corpus` (or `cargo xtask bench`)");
        return;
    };
    let mut group = c.benchmark_group("text");
    group.sample_size(10);
    for name in ["large_50k", "shared_3k"] {
        let path = dir.join(format!("generated/{name}.onnx"));
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("missing {}", path.display());
            continue;
        };
        let model = match graft::import(Bytes::from(bytes)) {
            Ok(i) => i.model,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                continue;
            }
        };
        let printed = graft::text::print_model(&model);
        eprintln!(
            "{name}: {} nodes, text {:.1} MB",
            model.nodes.len(),
            printed.len() as f64 / 1e6
        );
        group.throughput(Throughput::Bytes(printed.len() as u64));
        group.bench_function(format!("print/{name}"), |b| {
            b.iter(|| graft::text::print_model(&model).len())
        });
        group.bench_function(format!("parse/{name}"), |b| {
            b.iter(|| {
                graft::text::parse_model(&printed)
                    .map(|p| p.model.nodes.len())
                    .unwrap_or(0)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, text);
criterion_main!(benches);
