#!/usr/bin/env python3
"""The inline verification tier (issue 5): `graft inline` results against the models run
separately and chained, in onnxruntime.

usage: inline_verify.py --graft BIN --corpus DIR --examples DIR --out DIR

For each pair below, `graft inline HOST GUEST -o OUT [--bind ...]` writes the result
and prints where each guest input and output went. Then:

1. the result passes `onnx.checker.check_model(full_check=True)` and `graft check`;
2. the result runs in onnxruntime on generated inputs;
3. the host runs alone on the same inputs, with the host values the guest is bound to
   as extra outputs; its outputs equal the result's outputs of the same names;
4. the guest runs alone, fed the host values it is bound to and the result's new
   graph inputs; each of its outputs equals the result value it became.

Nothing is written outside OUT. Exit status 1 with a message per failed pair.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

ort.set_default_logger_severity(3)
from onnx import helper

# (name, host, guest, bindings, extra CLI arguments); paths relative to the corpus
# ("corpus:") or the bundled examples ("examples:"). The second inline of "twice" is
# into the result of the first.
PAIRS = [
    # silero-vad's nested Ifs read outer values: as a guest, unbound (new inputs).
    ("silero_into_mlp", "examples:mlp.onnx", "examples:silero_vad.onnx", [], []),
    # The same guest twice, sharing the host's inputs: every output equals the host's.
    (
        "silero_into_silero",
        "examples:silero_vad.onnx",
        "examples:silero_vad.onnx",
        ["input=input", "state=state", "sr=sr"],
        ["--prefix", "vad2"],
    ),
    (
        "silero_twice",
        "out:silero_into_silero.onnx",
        "examples:silero_vad.onnx",
        ["input=input", "state=state", "sr=sr"],
        ["--prefix", "vad3"],
    ),
    # A chain: the guest reads a host value in the middle of the host.
    ("mlp_reads_mlp_input", "examples:mlp.onnx", "examples:mlp.onnx", ["x=x"], []),
    # Function calls and an If in the host; the guest with its own function library.
    (
        "functions_into_functions",
        "examples:functions_and_control_flow.onnx",
        "examples:functions_and_control_flow.onnx",
        ["x=x"],
        ["--prefix", "copy"],
    ),
    # As a local function plus one call.
    (
        "mlp_as_function",
        "examples:functions_and_control_flow.onnx",
        "examples:mlp.onnx",
        [],
        ["--as-function", "guests.Mlp"],
    ),
    # Two real networks at different opsets reading the same image.
    (
        "squeezenet_into_resnet",
        "corpus:backend/light/light_resnet50.onnx",
        "corpus:backend/light/light_squeezenet.onnx",
        [],
        ["--prefix", "sq"],
    ),
]

DIM = 2
# Shapes for inputs whose symbolic dims need real sizes, by the input's own name (the
# part after the last `/`): silero-vad takes 512 samples at 16 kHz.
SHAPES = {"input": [1, 512], "state": [2, 1, 128]}


def resolve(spec: str, corpus: str, examples: str, out: str) -> str:
    kind, _, rel = spec.partition(":")
    base = {"corpus": corpus, "examples": examples, "out": out}[kind]
    return os.path.join(base, rel)


def feed_for(vi: onnx.ValueInfoProto, seed: int) -> np.ndarray:
    t = vi.type.tensor_type
    dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
    shape = [d.dim_value if d.HasField("dim_value") else DIM for d in t.shape.dim]
    own = vi.name.rsplit("/", 1)[-1]
    if own in SHAPES and len(SHAPES[own]) == len(shape):
        shape = SHAPES[own]
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        # Sample rates and small counts: silero-vad's `sr` must be 16000 or 8000.
        if vi.name.endswith("sr"):
            return np.array(16000, dtype=dtype).reshape(shape)
        return rng.integers(0, 3, size=shape).astype(dtype)
    return rng.standard_normal(size=shape).astype(dtype)


def session(model: onnx.ModelProto) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def with_outputs(model: onnx.ModelProto, names: list[str]) -> onnx.ModelProto:
    """The model with `names` added as graph outputs (type left to onnxruntime)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            m.graph.output.append(onnx.ValueInfoProto(name=n))
    return m


def fed_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """Graph inputs without a same-named initializer (those keep their default)."""
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def close(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)


def verify(name, host_path, guest_path, binds, extra, graft, out) -> list[str]:
    result_path = os.path.join(out, f"{name}.onnx")
    args = [graft, "inline", host_path, guest_path, "-o", result_path]
    for b in binds:
        args += ["--bind", b]
    run = subprocess.run(args + extra, capture_output=True, text=True)
    if run.returncode != 0:
        return [f"graft inline failed: {run.stderr.strip()}"]
    inputs: dict[str, str] = {}
    outputs: dict[str, str] = {}
    new_inputs: set[str] = set()
    for line in run.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in ("input", "output") and " = " in rest:
            g, _, h = rest.partition(" = ")
            if h.endswith(" (new graph input)"):
                h = h[: -len(" (new graph input)")]
                new_inputs.add(g)
            (inputs if kind == "input" else outputs)[g] = h
    problems = []
    check = subprocess.run([graft, "check", result_path], capture_output=True, text=True)
    if check.returncode != 0:
        problems.append(f"graft check: {check.stdout.strip()} {check.stderr.strip()}")
    try:
        onnx.checker.check_model(result_path, full_check=True)
    except Exception as e:  # the verdict is the result
        problems.append(f"onnx.checker: {str(e).splitlines()[0]}")

    result = onnx.load(result_path)
    host = onnx.load(host_path)
    guest = onnx.load(guest_path)
    feeds = {vi.name: feed_for(vi, k) for k, vi in enumerate(fed_inputs(result))}
    got = dict(
        zip(
            [o.name for o in result.graph.output],
            session(result).run(None, feeds),
        )
    )
    # The host alone, with the values the guest reads as extra outputs.
    bound = sorted({h for g, h in inputs.items() if g not in new_inputs})
    host_run = with_outputs(host, bound)
    host_feeds = {vi.name: feeds[vi.name] for vi in fed_inputs(host) if vi.name in feeds}
    host_names = [o.name for o in host_run.graph.output]
    host_values = dict(zip(host_names, session(host_run).run(None, host_feeds)))
    for o in host.graph.output:
        if o.name in got and not close(host_values[o.name], got[o.name]):
            problems.append(f"host output {o.name} differs")
    # The guest alone, fed what it was bound to or the new inputs' values.
    guest_feeds = {}
    for vi in fed_inputs(guest):
        target = inputs.get(vi.name)
        if target is None:
            problems.append(f"guest input {vi.name} went nowhere")
            continue
        guest_feeds[vi.name] = feeds[target] if target in feeds else host_values[target]
    guest_values = dict(
        zip([o.name for o in guest.graph.output], session(guest).run(None, guest_feeds))
    )
    for g, h in outputs.items():
        if h not in got:
            problems.append(f"guest output {g} -> {h} is not a result output")
        elif not close(guest_values[g], got[h]):
            problems.append(f"guest output {g} differs from result {h}")
    if not outputs:
        problems.append("no guest output was reported")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graft", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--examples", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failed = False
    for name, host, guest, binds, extra in PAIRS:
        host_path = resolve(host, args.corpus, args.examples, args.out)
        guest_path = resolve(guest, args.corpus, args.examples, args.out)
        try:
            problems = verify(name, host_path, guest_path, binds, extra, args.graft, args.out)
        except Exception as e:  # a crash is a failure of this pair, not of the run
            problems = [f"{type(e).__name__}: {str(e)[:500]}"]
        status = "ok" if not problems else "FAILED"
        print(f"{name}: {status}")
        for p in problems:
            print(f"  {p}")
        failed |= bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
