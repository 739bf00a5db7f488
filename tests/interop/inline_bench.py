#!/usr/bin/env python3
"""Peer measurements of inlining a model into itself, for BENCHMARKS.md (issue 5).

usage: inline_bench.py FILE [FILE...] --json OUT [--runs 3]

For each FILE, the model is inlined into a copy of itself: the guest's inputs become
new graph inputs and its outputs new graph outputs, every guest name prefixed. That is
what `graft inline FILE FILE --prefix g` does. Two peers:

  compose   onnx.compose.merge_models(m, m, io_map=[], prefix2="g/")
  spox      spox.inline(m) called twice on fresh arguments, then spox.build

Each is timed from the loaded ModelProto to the merged ModelProto (median of RUNS; the
file is loaded once, outside the timing). Peak memory: VmHWM of a fresh Python process
that imports the libraries, loads the file and merges once; the VmHWM of a process that
only imports and loads is given too, so the merge's own cost can be read off.

OUT is JSON: {file: {compose_s, spox_s, compose_peak_bytes, spox_peak_bytes,
load_peak_bytes, file_bytes}}; a peer that fails gets `<peer>_error` instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import onnx
import onnx.compose


def merge_compose(m: onnx.ModelProto) -> onnx.ModelProto:
    return onnx.compose.merge_models(m, m, io_map=[], prefix2="g/")


def merge_spox(m: onnx.ModelProto) -> onnx.ModelProto:
    import spox

    def arguments(prefix: str) -> dict:
        return {
            prefix + i.name: spox.argument(spox.Type._from_onnx(i.type))
            for i in m.graph.input
        }

    host_args = arguments("")
    guest_args = arguments("g_")
    host_out = spox.inline(m)(**host_args)
    guest_out = spox.inline(m)(
        **{k[len("g_"):]: v for k, v in guest_args.items()}
    )
    outputs = dict(host_out)
    outputs.update({"g_" + k: v for k, v in guest_out.items()})
    return spox.build({**host_args, **guest_args}, outputs)


PEERS = {"compose": merge_compose, "spox": merge_spox}

CHILD = r"""
import sys
sys.path.insert(0, sys.argv[3])
import onnx, onnx.compose
import inline_bench
m = onnx.load(sys.argv[1])
if sys.argv[2] != "-":
    inline_bench.PEERS[sys.argv[2]](m)
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmHWM:"):
            print(int(line.split()[1]) * 1024)
"""


def peak(path: str, peer: str) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, peer, here],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--json", required=True)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = {}
    for path in args.files:
        m = onnx.load(path)
        entry = {
            "file_bytes": os.path.getsize(path),
            "load_peak_bytes": peak(path, "-"),
        }
        for name, merge in PEERS.items():
            try:
                times = []
                for _ in range(args.runs):
                    start = time.perf_counter()
                    merged = merge(m)
                    times.append(time.perf_counter() - start)
                    del merged
                entry[f"{name}_s"] = statistics.median(times)
                entry[f"{name}_peak_bytes"] = peak(path, name)
            except Exception as e:  # a peer that cannot do it is a result too
                entry[f"{name}_error"] = f"{type(e).__name__}: {e}"[:300]
            print(path, name, {k: v for k, v in entry.items() if k.startswith(name)}, flush=True)
        results[path] = entry
    with open(args.json, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
