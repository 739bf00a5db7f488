//! Three models built with `graft::builder`, written to a directory:
//! `cargo run -p graft --example builder_models -- OUT_DIR`.
//!
//! `tests/interop/spox_side_by_side.py` builds the same three in spox and checks that
//! onnxruntime gives the same outputs:
//! - `mlp.onnx`: x float[N, 4] → MatMul + Add → Relu → MatMul + Add → Softmax;
//! - `if.onnx`: an If on `ReduceSum(x) > 0` whose branches read `x` from outside;
//! - `inline.onnx`: the MLP inlined twice, after a Relu, plus a constant.

use graft::builder::{Body, BuildError, Builder, opset18::Ops, tensor_f32, tensor_i64};
use graft::ir::Model;

/// Deterministic weights, the same formula as the spox side.
fn weights(rows: i64, cols: i64, seed: f32) -> graft::ir::Tensor {
    let data: Vec<f32> = (0..rows * cols)
        .map(|k| ((k as f32 + seed) * 0.37).sin() * 0.5)
        .collect();
    tensor_f32(&[rows, cols], &data)
}

fn mlp() -> Result<Model, BuildError> {
    let b = Builder::new();
    let ops = Ops::new(&b);
    let x = b.input("x", "float[N, 4]")?;
    let w1 = b.initializer("w1", weights(4, 8, 1.0))?;
    let b1 = b.initializer("b1", weights(1, 8, 2.0))?;
    let w2 = b.initializer("w2", weights(8, 4, 3.0))?;
    let b2 = b.initializer("b2", weights(1, 4, 4.0))?;
    let h = ops.relu(&ops.add(&ops.matmul(&x, &w1)?, &b1)?)?;
    let logits = ops.add(&ops.matmul(&h, &w2)?, &b2)?;
    let y = ops.softmax(&logits).axis(-1).out()?;
    b.build(&[("x", &x)], &[("y", &y)])
}

fn if_model() -> Result<Model, BuildError> {
    let b = Builder::new();
    let ops = Ops::new(&b);
    let x = b.input("x", "float[N, 3]")?;
    let total = ops.reduce_sum(&x).keepdims(0).out()?;
    let zero = b.constant(tensor_f32(&[], &[0.0]))?;
    let cond = ops.greater(&total, &zero)?;
    let (t, e) = (ops.clone(), ops.clone());
    let y = ops
        .if_(&cond)
        .then_branch(Body::new(move |_| {
            let two = t.builder().constant(tensor_f32(&[], &[2.0]))?;
            Ok(vec![t.mul(&x, &two)?])
        }))
        .else_branch(Body::new(move |_| Ok(vec![e.neg(&x)?])))
        .out()?;
    let axes = b.constant(tensor_i64(&[1], &[1]))?;
    let s = ops.reduce_sum(&y).axes(&axes).keepdims(1).out()?;
    b.build(&[("x", &x)], &[("y", &y), ("s", &s)])
}

fn inline_model(guest: &Model) -> Result<Model, BuildError> {
    let b = Builder::new();
    let ops = Ops::new(&b);
    let x = b.input("x", "float[N, 4]")?;
    let a = ops.relu(&x)?;
    let first = b.inline(guest, &[("x", &a)])?;
    let second = b.inline(guest, &[("x", &first[0])])?;
    let one = b.constant(tensor_f32(&[], &[1.0]))?;
    let y = ops.add(&second[0], &one)?;
    b.build(&[("x", &x)], &[("y", &y)])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: builder_models OUT_DIR")?;
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir)?;
    let mlp = mlp()?;
    let models = [
        ("mlp.onnx", mlp.clone()),
        ("if.onnx", if_model()?),
        ("inline.onnx", inline_model(&mlp)?),
    ];
    for (name, model) in models {
        let bytes = graft::export(&model, &graft::ExportOptions::default())?;
        std::fs::write(dir.join(name), bytes)?;
        println!("wrote {}", dir.join(name).display());
    }
    Ok(())
}
