#!/usr/bin/env python3
"""Opset adapters against the ONNX backend node tests (issue 5).

usage: opset_backend.py --graft BIN --node DIR --out DIR [--to 21]

Every node test in DIR (`test_*/model.onnx` with `test_data_set_0/{input,output}_*.pb`)
whose default-domain opset is below the target is converted with
`graft convert MODEL -o OUT --opset TO` and run in onnxruntime on the test's inputs; its
outputs must equal the test's expected outputs (the tolerance onnx's own backend tests
use: rtol 1e-3, atol 1e-7), and it must pass `onnx.checker` (full) whenever the
original does. Tests that onnxruntime cannot run as they are, and tests
with non-tensor inputs, are skipped. A test graft refuses (an op without an adapter)
is listed, not failed: the converter says so by design. Exit status 1 when a converted
model fails the checker, does not load, or computes other numbers.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

ort.set_default_logger_severity(4)


def default_opset(model: onnx.ModelProto) -> int | None:
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


def tensors(pattern: str) -> list[np.ndarray] | None:
    out = []
    for path in sorted(glob.glob(pattern), key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0])):
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        if not t.name and t.data_type == 0:
            return None  # a sequence or optional value, not a tensor
        try:
            out.append(numpy_helper.to_array(t))
        except Exception:
            return None  # not a TensorProto after all
    return out


def run(path: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in s.get_inputs()]
    return s.run(None, dict(zip(names, inputs)))


def same(expected: list[np.ndarray], got: list[np.ndarray]) -> bool:
    if len(expected) != len(got):
        return False
    for e, g in zip(expected, got):
        g = np.asarray(g)
        if e.shape != g.shape:
            return False
        if e.dtype.kind in "fc":
            if not np.allclose(e, g, rtol=1e-3, atol=1e-7, equal_nan=True):
                return False
        elif not np.array_equal(e, g):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graft", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--to", type=int, default=21)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    converted, refused, skipped, failures = [], [], [], []
    for model_path in sorted(glob.glob(os.path.join(args.node, "test_*", "model.onnx"))):
        name = os.path.basename(os.path.dirname(model_path))
        model = onnx.load(model_path)
        version = default_opset(model)
        if version is None or version >= args.to:
            continue
        data = os.path.join(os.path.dirname(model_path), "test_data_set_0")
        inputs = tensors(os.path.join(data, "input_*.pb"))
        expected = tensors(os.path.join(data, "output_*.pb"))
        if inputs is None or expected is None:
            skipped.append(f"{name}: non-tensor data")
            continue
        try:
            if not same(expected, run(model_path, inputs)):
                skipped.append(f"{name}: onnxruntime disagrees with the test as written")
                continue
        except Exception:
            skipped.append(f"{name}: onnxruntime cannot run it as written")
            continue
        out = os.path.join(args.out, f"{name}.onnx")
        r = subprocess.run(
            [args.graft, "convert", model_path, "-o", out, "--opset", str(args.to)],
            capture_output=True,
            text=True,
        )
        if r.returncode == 1 and "adapter" in r.stderr:
            refused.append(f"{name} (opset {version}): {r.stderr.strip()}")
            continue
        if r.returncode != 0:
            failures.append(f"{name}: graft convert failed: {r.stderr.strip()}")
            continue
        try:
            # onnx's own checker rejects a few backend tests as written (test_mvn):
            # then only the numbers are compared.
            try:
                onnx.checker.check_model(model_path, full_check=True)
                original_checks = True
            except Exception:
                original_checks = False
            if original_checks:
                onnx.checker.check_model(out, full_check=True)
            if same(expected, run(out, inputs)):
                converted.append(name)
            else:
                failures.append(f"{name} (opset {version} -> {args.to}): other numbers")
        except Exception as e:
            failures.append(f"{name} (opset {version} -> {args.to}): {str(e).splitlines()[0][:300]}")
    print(f"converted and equal: {len(converted)}; refused (no adapter): {len(refused)}; "
          f"skipped: {len(skipped)}; failed: {len(failures)}")
    for line in refused:
        print(f"  refused {line}")
    for line in failures:
        print(f"  FAILED {line}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
