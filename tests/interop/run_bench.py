#!/usr/bin/env python3
"""The Python side of the in-browser run benchmark (tests/run_bench.rs).

usage: run_bench.py SPEC.json OUT_DIR

SPEC.json is a list of {"name", "path", "feeds": {INPUT: {"shape": [...], "fill": F}}}
where F is "normal" (seeded standard normal float32), a number (every element that
value, of the input's type), or {"file": PATH} (an .npy to use as it is). For each model
this writes OUT_DIR/NAME/model.onnx (with its data file beside it, if any), the inputs
as OUT_DIR/NAME/in0.npy..., onnxruntime's outputs as OUT_DIR/NAME/out0.npy..., and
OUT_DIR/NAME/python.json: the input and output names with their files, and the times
of onnxruntime's session creation, its first run and its best later run (ms).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

TYPES = {1: np.float32, 6: np.int32, 7: np.int64, 9: np.bool_, 11: np.float64}


def feeds_for(model: onnx.ModelProto, spec: dict, rng: np.random.Generator) -> dict:
    inits = {i.name for i in model.graph.initializer}
    feeds = {}
    for i in model.graph.input:
        if i.name in inits:
            continue
        want = spec[i.name]
        fill = want.get("fill", "normal")
        if isinstance(fill, dict):
            feeds[i.name] = np.load(fill["file"])
            continue
        dtype = TYPES[i.type.tensor_type.elem_type]
        shape = tuple(want["shape"])
        if fill == "normal":
            feeds[i.name] = rng.standard_normal(shape).astype(dtype)
        else:
            feeds[i.name] = np.full(shape, fill, dtype)
    return feeds


def main(argv: list[str]) -> int:
    specs = json.loads(Path(argv[0]).read_text())
    out = Path(argv[1])
    for spec in specs:
        rng = np.random.default_rng(0)
        here = out / spec["name"]
        shutil.rmtree(here, ignore_errors=True)
        here.mkdir(parents=True)
        src = Path(spec["path"])
        shutil.copy(src, here / "model.onnx")
        model = onnx.load(str(src), load_external_data=False)
        for t in model.graph.initializer:
            for kv in t.external_data:
                if kv.key == "location" and not (here / kv.value).exists():
                    shutil.copy(src.parent / kv.value, here / kv.value)
        feeds = feeds_for(model, spec["feeds"], rng)
        inputs = []
        for k, (name, array) in enumerate(feeds.items()):
            np.save(here / f"in{k}.npy", array, allow_pickle=False)
            inputs.append([name, f"in{k}.npy"])
        started = time.perf_counter()
        sess = ort.InferenceSession(str(here / "model.onnx"), providers=["CPUExecutionProvider"])
        created = time.perf_counter()
        results = sess.run(None, feeds)
        first = time.perf_counter()
        later = []
        for _ in range(5):
            t = time.perf_counter()
            sess.run(None, feeds)
            later.append(time.perf_counter() - t)
        outputs = []
        for k, (o, r) in enumerate(zip(sess.get_outputs(), results)):
            np.save(here / f"out{k}.npy", np.asarray(r), allow_pickle=False)
            outputs.append([o.name, f"out{k}.npy"])
        (here / "python.json").write_text(json.dumps({
            "inputs": inputs,
            "outputs": outputs,
            "create_ms": (created - started) * 1e3,
            "first_run_ms": (first - created) * 1e3,
            "best_run_ms": min(later) * 1e3,
            "onnxruntime": ort.__version__,
        }))
        print(f"{spec['name']}: session {(created - started) * 1e3:.0f} ms, "
              f"run {(first - created) * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
