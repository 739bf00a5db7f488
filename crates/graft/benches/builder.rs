//! Building a model with `graft::builder` (`cargo bench -p graft --bench builder`):
//! an MLP of `layers` blocks (MatMul, Add, Relu; 4x4 weights as initializers) on a
//! `float[N, 4]` input, from an empty builder to the checked model.
//! `tests/interop/builder_bench.py` builds the same model with spox and times it.

use criterion::{Criterion, criterion_group, criterion_main};
use graft::builder::{BuildError, Builder, opset18::Ops, tensor_f32};

fn mlp(layers: usize) -> Result<graft::Model, BuildError> {
    let b = Builder::new();
    let ops = Ops::new(&b);
    let x = b.input("x", "float[N, 4]")?;
    let w = b.initializer("w", tensor_f32(&[4, 4], &[0.1; 16]))?;
    let bias = b.initializer("bias", tensor_f32(&[4], &[0.01; 4]))?;
    let mut h = x;
    for _ in 0..layers {
        h = ops.relu(&ops.add(&ops.matmul(&h, &w)?, &bias)?)?;
    }
    b.build(&[("x", &x)], &[("y", &h)])
}

fn builder(c: &mut Criterion) {
    let mut group = c.benchmark_group("builder");
    group.sample_size(10);
    for layers in [100, 1000] {
        group.bench_function(format!("mlp/{}_nodes", layers * 3), |b| {
            b.iter(|| mlp(layers).map(|m| m.nodes.len()))
        });
    }
    group.finish();
}

criterion_group!(benches, builder);
criterion_main!(benches);
