//! The viewer's work on large models (`cargo bench -p graft --bench view`): opening
//! (the view of the main graph, laid out with groups collapsed) and expanding every
//! group (building all group contents and laying out each, bottom-up).

use std::path::PathBuf;

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use graft::view::{Scene, View};

fn files() -> Vec<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target/corpus"));
    vec![
        manifest.join("../../assets/examples/transformer_1000.onnx"),
        corpus.join("generated/shared_3k.onnx"),
        corpus.join("generated/large_50k.onnx"),
    ]
}

fn view(c: &mut Criterion) {
    let mut group = c.benchmark_group("view");
    group.sample_size(10);
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
        // Each iteration includes dropping the scene (conservative).
        group.bench_function(format!("open/{name}"), |b| {
            b.iter(|| {
                let mut scene = Scene::new(View::of_model(&model).expect("graph"));
                let _ = scene.layout(&model, &mut || false);
                scene
            })
        });
        group.bench_function(format!("expand-all/{name}"), |b| {
            b.iter(|| {
                let mut scene = Scene::new(View::of_model(&model).expect("graph"));
                scene.expand_to_depth(&model, usize::MAX, 10_000_000);
                let _ = scene.layout(&model, &mut || false);
                scene
            })
        });
    }
    group.finish();
}

criterion_group!(benches, view);
criterion_main!(benches);
