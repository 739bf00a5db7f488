"""The builder side by side with spox: the same three models built with
`graft::builder` (crates/graft/examples/builder_models.rs) and with spox must agree in
onnxruntime.

usage: spox_side_by_side.py --example PATH_TO_builder_models_BINARY [--out DIR]

The models: a small MLP, a model with an If whose branches read an outer value, and a
model that inlines the MLP twice. Each pair passes onnx.checker (full_check) and gives
the same outputs on inputs of several batch sizes, with both branches of the If taken.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort


def weights(rows, cols, seed):
    """The same formula as the Rust side, in float32."""
    k = np.arange(rows * cols, dtype=np.float32)
    w = np.sin((k + np.float32(seed)) * np.float32(0.37)) * np.float32(0.5)
    return w.astype(np.float32).reshape(rows, cols)


def spox_models():
    import spox.opset.ai.onnx.v18 as op
    from spox import Tensor, argument, build, inline

    def mlp():
        x = argument(Tensor(np.float32, ("N", 4)))
        w1, b1 = op.const(weights(4, 8, 1.0)), op.const(weights(1, 8, 2.0))
        w2, b2 = op.const(weights(8, 4, 3.0)), op.const(weights(1, 4, 4.0))
        h = op.relu(op.add(op.matmul(x, w1), b1))
        y = op.softmax(op.add(op.matmul(h, w2), b2), axis=-1)
        return build(inputs={"x": x}, outputs={"y": y})

    def if_model():
        x = argument(Tensor(np.float32, ("N", 3)))
        total = op.reduce_sum(x, keepdims=0)
        cond = op.greater(total, op.const(np.float32(0.0)))
        (y,) = op.if_(
            cond,
            then_branch=lambda: [op.mul(x, op.const(np.float32(2.0)))],
            else_branch=lambda: [op.neg(x)],
        )
        s = op.reduce_sum(y, op.const(np.array([1], dtype=np.int64)), keepdims=1)
        return build(inputs={"x": x}, outputs={"y": y, "s": s})

    def inline_model(guest):
        x = argument(Tensor(np.float32, ("N", 4)))
        a = op.relu(x)
        first = inline(guest)(x=a)["y"]
        second = inline(guest)(x=first)["y"]
        y = op.add(second, op.const(np.float32(1.0)))
        return build(inputs={"x": x}, outputs={"y": y})

    m = mlp()
    return {"mlp": m, "if": if_model(), "inline": inline_model(m)}


def inputs_for(name, rng):
    width = 3 if name == "if" else 4
    cases = []
    for batch in (1, 3, 7):
        x = rng.standard_normal((batch, width)).astype(np.float32)
        cases.append(x)
    if name == "if":
        cases.append(np.abs(cases[1]) + 0.1)  # then branch
        cases.append(-np.abs(cases[1]) - 0.1)  # else branch
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--example", required=True)
    ap.add_argument("--out")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="graft-spox-")
    os.makedirs(out, exist_ok=True)
    subprocess.run([args.example, out], check=True, stdout=subprocess.DEVNULL)
    spox = spox_models()
    rng = np.random.default_rng(7)
    failures = 0
    for name, theirs in spox.items():
        ours = onnx.load(os.path.join(out, f"{name}.onnx"))
        onnx.checker.check_model(ours, full_check=True)
        onnx.checker.check_model(theirs, full_check=True)
        s_ours = ort.InferenceSession(ours.SerializeToString())
        s_theirs = ort.InferenceSession(theirs.SerializeToString())
        names_ours = [o.name for o in ours.graph.output]
        names_theirs = [o.name for o in theirs.graph.output]
        if names_ours != names_theirs:
            print(f"{name}: outputs differ: {names_ours} vs spox {names_theirs}")
            failures += 1
            continue
        runs = 0
        for x in inputs_for(name, rng):
            a = s_ours.run(None, {"x": x})
            b = s_theirs.run(None, {"x": x})
            for n, p, q in zip(names_ours, a, b):
                if p.shape != q.shape or not np.allclose(p, q, rtol=1e-5, atol=1e-6):
                    print(f"{name}: output {n} differs for x of shape {x.shape}")
                    failures += 1
            runs += 1
        print(
            f"{name}: graft {len(ours.graph.node)} nodes (IR {ours.ir_version}, "
            f"opsets {[(o.domain, o.version) for o in ours.opset_import]}), "
            f"spox {len(theirs.graph.node)} nodes: {runs} runs agree"
            if not failures
            else f"{name}: see above"
        )
    if failures:
        print(f"FAILED: {failures} differences")
        sys.exit(1)
    print("graft::builder and spox agree on all three models")


if __name__ == "__main__":
    main()
