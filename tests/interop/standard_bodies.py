#!/usr/bin/env python3
"""Standard operators expanded into their function bodies by `graft inline-functions
--standard`, against the operator itself, in onnxruntime.

usage: standard_bodies.py [--graft PATH] [--out DIR]

Each case is one node of a standard operator (attributes, opset, input types and
shapes) in a one-node model. The script checks the model with onnx.checker, expands
it with graft, checks that no node of the operator is left and that the result passes
onnx.checker (full), then runs both in onnxruntime on seeded random inputs and
compares every output (rtol=1e-5, atol=1e-5; exact for integers and bools). When
onnxruntime cannot run the original at that opset, the case is reported as skipped
with the reason; the script fails if fewer than 80% of the cases ran against the
original. Prints one line per case; exit 1 on any mismatch or failure.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnx.helper as oh
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[2]
F, I64, B = onnx.TensorProto.FLOAT, onnx.TensorProto.INT64, onnx.TensorProto.BOOL
X4 = [("X", F, [2, 3, 4, 5])]


def case(op, opset, inputs, n_out=1, values=None, outputs=None, **attrs):
    """One case: `inputs` are (name, elem type, shape) or None for an omitted input;
    `values` fixes some inputs to given arrays (fed, not initializers)."""
    return {
        "op": op,
        "opset": opset,
        "inputs": inputs,
        "outputs": outputs or [f"Y{k}" for k in range(n_out)],
        "values": values or {},
        "attrs": attrs,
    }


CASES = [
    case("Softplus", 18, X4),
    case("Softplus", 22, X4),
    case("Softsign", 18, X4),
    case("Elu", 18, X4),
    case("Elu", 22, X4, alpha=0.3),
    case("Selu", 18, X4),
    case("Selu", 18, X4, alpha=1.5, gamma=0.7),
    case("HardSigmoid", 18, X4, alpha=0.3, beta=0.4),
    case("HardSigmoid", 22, X4),
    case("HardSwish", 14, X4),
    case("HardSwish", 22, X4),
    case("LeakyRelu", 16, X4),
    case("LeakyRelu", 16, X4, alpha=0.2),
    case("ThresholdedRelu", 18, X4, alpha=0.4),
    case("Shrink", 18, X4),
    case("Shrink", 18, X4, bias=0.5, lambd=0.3),
    case("Relu", 18, X4),
    case("Mish", 18, X4),
    case("PRelu", 16, [("X", F, [2, 3, 4, 5]), ("slope", F, [5])]),
    case("GreaterOrEqual", 16, [("A", F, [3, 4]), ("B", F, [4])]),
    case("LessOrEqual", 12, [("A", I64, [3, 4]), ("B", I64, [3, 4])]),
    case("MeanVarianceNormalization", 13, X4),
    case("MeanVarianceNormalization", 18, X4, axes=[1, 3]),
    case("ReduceL1", 18, [("X", F, [2, 3, 4]), ("axes", I64, [1])], values={"axes": np.array([1])}),
    case("ReduceL2", 18, [("X", F, [2, 3, 4]), ("axes", I64, [2])], values={"axes": np.array([0, 2])}, keepdims=0),
    case("ReduceLogSumExp", 18, [("X", F, [2, 3, 4])]),
    case("ReduceLogSum", 18, [("X", F, [2, 3, 4]), ("axes", I64, [1])], values={"axes": np.array([-1])}),
    case("ReduceSumSquare", 18, [("X", F, [2, 3, 4]), ("axes", I64, [1])], values={"axes": np.array([1])}, keepdims=0),
    case("Range", 11, [("start", F, []), ("limit", F, []), ("delta", F, [])],
         values={"start": np.array(1.0, np.float32), "limit": np.array(9.5, np.float32),
                 "delta": np.array(1.5, np.float32)}),
    case("Range", 11, [("start", I64, []), ("limit", I64, []), ("delta", I64, [])],
         values={"start": np.array(10), "limit": np.array(-3), "delta": np.array(-4)}),
    case("DynamicQuantizeLinear", 11, [("x", F, [3, 4])], n_out=3),
    case("HannWindow", 17, [("size", I64, [])], values={"size": np.array(10)}),
    case("HammingWindow", 17, [("size", I64, [])], values={"size": np.array(9)}, periodic=0),
    case("BlackmanWindow", 17, [("size", I64, [])], values={"size": np.array(8)}),
    case("AffineGrid", 20, [("theta", F, [2, 2, 3]), ("size", I64, [4])],
         values={"size": np.array([2, 1, 3, 4])}),
    case("AffineGrid", 20, [("theta", F, [1, 3, 4]), ("size", I64, [5])],
         values={"size": np.array([1, 1, 2, 3, 4])}, align_corners=1),
    case("Swish", 24, X4, alpha=0.5),
]

NUMPY = {F: np.float32, I64: np.int64, B: np.bool_}


def model_of(c) -> onnx.ModelProto:
    inputs, names = [], []
    for spec in c["inputs"]:
        if spec is None:
            names.append("")
            continue
        name, elem, shape = spec
        names.append(name)
        inputs.append(oh.make_tensor_value_info(name, elem, shape))
    node = oh.make_node(c["op"], names, c["outputs"], **c["attrs"])
    outputs = [onnx.ValueInfoProto(name=o) for o in c["outputs"]]
    graph = oh.make_graph([node], c["op"].lower(), inputs, outputs)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", c["opset"])])
    model.ir_version = 10
    # Graph outputs need a type: that of what onnxruntime computes (ranks kept, dims
    # left free), else what onnx infers.
    try:
        results = run(model, feeds(c))
    except Exception:  # noqa: BLE001 - fall back to inference
        results = None
    inferred = onnx.shape_inference.infer_shapes(model)
    for k, (out, inf) in enumerate(zip(model.graph.output, inferred.graph.output)):
        if results is not None:
            elem = oh.np_dtype_to_tensor_dtype(results[k].dtype)
            dims = [f"d{k}_{i}" for i in range(results[k].ndim)]
            out.type.CopyFrom(oh.make_tensor_type_proto(elem, dims))
        else:
            out.type.CopyFrom(inf.type)
    return model


def feeds(c) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    out = {}
    for spec in c["inputs"]:
        if spec is None:
            continue
        name, elem, shape = spec
        if name in c["values"]:
            out[name] = np.asarray(c["values"][name]).astype(NUMPY[elem])
        elif elem == F:
            out[name] = (rng.standard_normal(shape) * 2).astype(np.float32)
        elif elem == I64:
            out[name] = rng.integers(-3, 4, shape).astype(np.int64)
        else:
            out[name] = rng.random(shape) > 0.5
    return out


def run(model: onnx.ModelProto, inputs) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if np.issubdtype(a.dtype, np.floating):
        return bool(np.allclose(a, b, rtol=1e-5, atol=1e-5, equal_nan=True))
    return bool(np.array_equal(a, b))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graft", default=str(ROOT / "target" / "debug" / "graft"))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    failed = skipped = equal = 0
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(args.out or tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        for k, c in enumerate(CASES):
            label = f"{c['op']}-{c['opset']} {c['attrs'] or ''}".strip()
            model = model_of(c)
            onnx.checker.check_model(model)
            src = out_dir / f"{k:02d}-{c['op']}.onnx"
            dst = out_dir / f"{k:02d}-{c['op']}.expanded.onnx"
            onnx.save(model, src)
            done = subprocess.run(
                [args.graft, "inline-functions", str(src), "-o", str(dst), "--op", c["op"]],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                print(f"FAIL {label}: graft: {done.stderr.strip()}")
                failed += 1
                continue
            expanded = onnx.load(dst)
            try:
                onnx.checker.check_model(expanded, full_check=True)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"FAIL {label}: onnx.checker: {str(e).splitlines()[0]}")
                failed += 1
                continue
            left = [n.op_type for n in expanded.graph.node if n.op_type == c["op"]]
            if left:
                print(f"FAIL {label}: {len(left)} {c['op']} node(s) left")
                failed += 1
                continue
            inputs = feeds(c)
            try:
                after = run(expanded, inputs)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"FAIL {label}: onnxruntime on the expansion: {str(e).splitlines()[0]}")
                failed += 1
                continue
            try:
                before = run(model, inputs)
            except Exception as e:  # noqa: BLE001 - the original is no oracle here
                print(f"skip {label}: onnxruntime cannot run the original: {str(e).splitlines()[0][:120]}")
                skipped += 1
                continue
            ok = len(before) == len(after) and all(same(a, b) for a, b in zip(before, after))
            nodes = len(expanded.graph.node)
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {nodes} nodes")
            if ok:
                equal += 1
            else:
                failed += 1
    total = len(CASES)
    print(f"standard bodies: {total} cases, {equal} equal, {skipped} skipped, {failed} failed")
    if equal < 0.8 * total:
        print("too few cases ran against the original")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
