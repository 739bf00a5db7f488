//! Inlining every local function call, and specializing every call into overloads
//! (`cargo bench -p graft --bench library`):
//! `called_300.onnx` of the generated corpus (one function called 250 times), timed
//! from the imported model to the fully inlined one in memory (the copy each
//! iteration needs is made outside the timing). `tests/interop/inliner_bench.py`
//! times `onnx.inliner.inline_local_functions` on the same file.

use std::path::PathBuf;

use bytes::Bytes;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use graft::library::{Which, inline_calls};
use graft::specialize::specialize_all;

fn file() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target/corpus"))
        .join("generated/called_300.onnx")
}

fn library(c: &mut Criterion) {
    let path = file();
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("missing {}", path.display());
        return;
    };
    let Ok(imported) = graft::import(Bytes::from(bytes)) else {
        eprintln!("cannot import {}", path.display());
        return;
    };
    let model = imported.model;
    let mut group = c.benchmark_group("library");
    group.sample_size(30);
    group.bench_function("inline_all/called_300", |b| {
        b.iter_batched(
            || model.clone(),
            |mut m| inline_calls(&mut m, &Which::All).map(|r| r.calls),
            BatchSize::LargeInput,
        )
    });
    // One function of 40 nodes called 250 times (10,001 nodes once inlined); the
    // same text as the `library` test's, written to target/bench for `cargo xtask
    // bench`, which times the peer on it.
    let text = many_calls(250);
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench");
    if std::fs::create_dir_all(&out).is_ok() {
        let _ = std::fs::write(out.join("chain_250x40.onnxtxt"), &text);
    }
    let Ok(chain) = graft::text::parse_model(&text) else {
        return;
    };
    let chain = chain.model;
    group.bench_function("inline_all/chain_250x40", |b| {
        b.iter_batched(
            || chain.clone(),
            |mut m| inline_calls(&mut m, &Which::All).map(|r| r.calls),
            BatchSize::LargeInput,
        )
    });
    // The same 250 calls specialized into overloads (9 distinct values of alpha: 9
    // overloads, each call after the first of its value reusing one).
    group.bench_function("specialize_all/chain_250x40", |b| {
        b.iter_batched(
            || chain.clone(),
            |mut m| specialize_all(&mut m).map(|r| r.calls.len()),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// One function of 40 nodes called `calls` times in a chain.
fn many_calls(calls: usize) -> String {
    let mut text = String::from(
        "<ir_version: 10, opset_import: [\"\": 17, \"local\": 1]>\nmain (float[4] x0) => (float[4] y) {\n",
    );
    for k in 0..calls {
        text.push_str(&format!(
            "  x{} = local.Block <alpha = 0.{}> (x{k})\n",
            k + 1,
            k % 9 + 1
        ));
    }
    text.push_str(&format!("  y = Identity(x{calls})\n}}\n"));
    text.push_str(
        "<domain: \"local\", opset_import: [\"\": 17]>\nBlock <alpha: float = 0.2> (x) => (y) {\n",
    );
    let mut prev = "x".to_string();
    for k in 0..39 {
        let op = ["Relu", "Neg", "Abs", "Sigmoid"][k % 4];
        text.push_str(&format!("  t{k} = {op}({prev})\n"));
        prev = format!("t{k}");
    }
    text.push_str(&format!(
        "  y = LeakyRelu <alpha: float = @alpha> ({prev})\n}}\n"
    ));
    text
}

criterion_group!(benches, library);
criterion_main!(benches);
