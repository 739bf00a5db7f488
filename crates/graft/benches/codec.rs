//! Import, check and export of the large generated models (`cargo xtask bench`, which also
//! measures Python onnx on the same files). Each figure includes the file I/O, as
//! `onnx.load` / `onnx.save` do; files are opened the way the CLI opens them (mapped).

use std::path::PathBuf;

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus"))
        });
    dir.join(".complete").exists().then_some(dir)
}

fn map(path: &std::path::Path) -> Option<Bytes> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: read-only mapping of a corpus file nothing writes during the benchmark.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    Some(Bytes::from_owner(map))
}

fn codec(c: &mut Criterion) {
    let Some(dir) = corpus() else {
        eprintln!("no corpus: run `cargo xtask corpus` (or `cargo xtask bench`)");
        return;
    };
    let mut group = c.benchmark_group("codec");
    group.sample_size(10);
    for name in ["large_10k", "large_50k"] {
        let path = dir.join(format!("generated/{name}.onnx"));
        let Some(bytes) = map(&path) else {
            eprintln!("missing {}", path.display());
            continue;
        };
        group.bench_function(format!("import/{name}"), |b| {
            b.iter(|| {
                map(&path)
                    .and_then(|b| graft::import(b).ok())
                    .map(|i| i.model.nodes.len())
            })
        });
        let model = match graft::import(bytes) {
            Ok(i) => i.model,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                continue;
            }
        };
        group.bench_function(format!("check/{name}"), |b| {
            b.iter(|| graft::check::check(&model).len())
        });
        let out = std::env::temp_dir().join(format!("graft-bench-{name}.onnx"));
        group.bench_function(format!("export/{name}"), |b| {
            b.iter(|| {
                let bytes = graft::export(&model, &graft::ExportOptions::default()).ok();
                bytes.map(|b| std::fs::write(&out, b).is_ok())
            })
        });
        let _ = std::fs::remove_file(&out);
    }
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
