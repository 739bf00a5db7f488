//! Inlining a model into itself (`cargo bench -p graft --bench inline`): the guest's
//! inputs become new graph inputs and its outputs new graph outputs, every guest name
//! prefixed, as `graft inline FILE FILE` does. Timed from the two imported models to
//! the result in memory; the host copy each iteration needs is made outside the
//! timing. `tests/interop/inline_bench.py` measures onnx.compose and spox on the same
//! files.
//!
//! `preview/…`: what the app's inline dialog does on each change of a choice, the
//! bundled MLP inlined into the model: the old way (a copy of the host, then the
//! inline) against the new one (undo the last preview, then the inline again).

use std::path::PathBuf;

use bytes::Bytes;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use graft::inline::{InlineOptions, inline_model, inline_model_undoable};

/// The large corpus models, imported, with their file stems (a missing one is
/// reported and left out).
fn models() -> Vec<(String, graft::Model)> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target/corpus"));
    let mut out = Vec::new();
    for name in ["large_10k", "large_50k"] {
        let path = corpus.join(format!("generated/{name}.onnx"));
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("missing {}", path.display());
            continue;
        };
        if let Ok(imported) = graft::import(Bytes::from(bytes)) {
            out.push((name.to_string(), imported.model));
        }
    }
    out
}

fn inline(c: &mut Criterion) {
    let mut group = c.benchmark_group("inline");
    group.sample_size(20);
    for (name, model) in models() {
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

fn preview(c: &mut Criterion) {
    let mut group = c.benchmark_group("preview");
    group.sample_size(20);
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let guest = std::fs::read(manifest.join("../../assets/examples/mlp.onnx"))
        .map(|b| {
            graft::import(Bytes::from(b))
                .expect("the MLP imports")
                .model
        })
        .expect("the bundled MLP");
    for (name, host) in models() {
        let options = |k: usize| InlineOptions {
            prefix: Some(format!("guest{k}")),
            ..InlineOptions::default()
        };
        group.bench_function(format!("copy/{name}"), |b| {
            let mut k = 0;
            b.iter(|| {
                k += 1;
                let mut model = host.clone();
                inline_model(&mut model, &guest, &options(k)).expect("inlines");
                model
            })
        });
        group.bench_function(format!("in_place/{name}"), |b| {
            let mut model = host.clone();
            let mut shown = inline_model_undoable(&mut model, &guest, &options(0))
                .expect("inlines")
                .1;
            let mut k = 0;
            b.iter(|| {
                k += 1;
                shown.clone().undo(&mut model);
                shown = inline_model_undoable(&mut model, &guest, &options(k))
                    .expect("inlines")
                    .1;
            })
        });
    }
    group.finish();
}

criterion_group!(benches, inline, preview);
criterion_main!(benches);
