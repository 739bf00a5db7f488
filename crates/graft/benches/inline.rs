//! Inlining a model into itself (`cargo bench -p graft --bench inline`): the guest's
//! inputs become new graph inputs and its outputs new graph outputs, every guest name
//! prefixed, as `graft inline FILE FILE` does. Timed from the two imported models to
//! the result in memory; the host copy each iteration needs is made outside the
//! timing. `tests/interop/inline_bench.py` measures onnx.compose and spox on the same
//! files.

use std::path::PathBuf;

use bytes::Bytes;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use graft::inline::{InlineOptions, inline_model};

fn files() -> Vec<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target/corpus"));
    vec![
        corpus.join("generated/large_10k.onnx"),
        corpus.join("generated/large_50k.onnx"),
    ]
}

fn inline(c: &mut Criterion) {
    let mut group = c.benchmark_group("inline");
    group.sample_size(20);
    for path in files() {
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("missing {}", path.display());
            continue;
        };
        let Ok(imported) = graft::import(Bytes::from(bytes)) else {
            continue;
        };
        let model = imported.model;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let options = InlineOptions {
            expose_all: true,
            prefix: Some("g".into()),
            ..InlineOptions::default()
        };
        group.bench_function(format!("self/{name}"), |b| {
            b.iter_batched(
                || model.clone(),
                |mut host| {
                    inline_model(&mut host, &model, &options).expect("inlines");
                    host
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, inline);
criterion_main!(benches);
