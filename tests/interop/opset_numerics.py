"""Opset conversion keeps the numbers: for every `NAME.orig.onnx` in the directory
given, runs it and `NAME.conv.onnx` (the same model after `graft::opset::convert`) in
onnxruntime on the same seeded random inputs and compares every output (rtol 1e-5).
Written by `crates/graft/tests/opset.rs` (`numerics_match_onnxruntime`), which runs this.
Prints `N pairs agree` and exits 0, or lists the disagreements and exits 1."""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

TYPES = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.BOOL: np.bool_,
}


def feeds(model, rng):
    inits = {i.name for i in model.graph.initializer}
    out = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        t = inp.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 2 for d in t.shape.dim]
        dtype = TYPES[t.elem_type]
        if dtype == np.bool_:
            out[inp.name] = np.asarray(rng.random(shape) > 0.5)
        elif np.issubdtype(dtype, np.integer):
            out[inp.name] = np.asarray(rng.integers(0, 3, shape)).astype(dtype)
        else:
            out[inp.name] = np.asarray(rng.standard_normal(shape) * 2).astype(dtype)
    return out


def run(path, inputs):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def main():
    work = Path(sys.argv[1])
    failures = []
    pairs = 0
    for orig in sorted(work.glob("*.orig.onnx")):
        name = orig.name[: -len(".orig.onnx")]
        conv = work / f"{name}.conv.onnx"
        pairs += 1
        try:
            onnx.checker.check_model(onnx.load(str(conv)), full_check=True)
            inputs = feeds(onnx.load(str(orig)), np.random.default_rng(7))
            a = run(orig, inputs)
            b = run(conv, inputs)
        except Exception as e:  # noqa: BLE001 - every failure is reported by name
            failures.append(f"{name}: {type(e).__name__}: {e}")
            continue
        if len(a) != len(b):
            failures.append(f"{name}: {len(a)} outputs before, {len(b)} after")
            continue
        for i, (x, y) in enumerate(zip(a, b)):
            if x.shape != y.shape or not np.allclose(x, y, rtol=1e-5, atol=1e-6):
                failures.append(f"{name}: output {i} differs\n{x}\n{y}")
    for f in failures:
        print(f)
    if failures:
        return 1
    print(f"{pairs} pairs agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
