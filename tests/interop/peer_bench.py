#!/usr/bin/env python3
"""Peer measurements for BENCHMARKS.md: what the onnx Python package takes for the same files.

usage: peer_bench.py FILE [FILE...] --json OUT [--runs 5]

For each file:
  load_s          median of RUNS `onnx.load(path)` calls, file already in the page cache
                  (load_external_data=False for models whose tensors use external data,
                  so only the .onnx file itself is read, as Graft does)
  save_s          median of RUNS `onnx.save(model, tmp)` of the loaded model to a temporary
                  file in /tmp (removed afterwards)
  check_s         median of RUNS `onnx.checker.check_model(path, full_check=False)`; the path
                  form is used for every file because it is the one that works for external
                  data (the C++ checker reads and parses the file itself)
  peak_rss_bytes  VmHWM of a fresh Python subprocess that only imports onnx and loads the
                  file (the same way as load_s); the VmHWM of a subprocess that only imports
                  onnx is printed for reference
  file_bytes      size of the .onnx file (without any external data file)

OUT is written as JSON: {file: {load_s, save_s, check_s, peak_rss_bytes, file_bytes}}, with
the file names as given on the command line. A file the checker rejects still gets its
check_s (time to rejection) and an extra "check_error" entry.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import AttributeProto, GraphProto, ModelProto, TensorProto

CHILD = r"""
import sys
import onnx
if sys.argv[1] != "-":
    onnx.load(sys.argv[1], load_external_data=sys.argv[2] == "1")
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmHWM:"):
            print(int(line.split()[1]) * 1024)
"""


def _graph_tensors(g: GraphProto):
    yield from g.initializer
    for sp in g.sparse_initializer:
        yield sp.values
        yield sp.indices
    for n in g.node:
        yield from _node_tensors(n.attribute)


def _node_tensors(attrs):
    for a in attrs:
        if a.type == AttributeProto.TENSOR:
            yield a.t
        elif a.type == AttributeProto.TENSORS:
            yield from a.tensors
        elif a.type == AttributeProto.GRAPH:
            yield from _graph_tensors(a.g)
        elif a.type == AttributeProto.GRAPHS:
            for g in a.graphs:
                yield from _graph_tensors(g)


def uses_external_data(m: ModelProto) -> bool:
    tensors = list(_graph_tensors(m.graph))
    for f in m.functions:
        for n in f.node:
            tensors.extend(_node_tensors(n.attribute))
    return any(t.data_location == TensorProto.EXTERNAL for t in tensors)


def _median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def child_peak_rss(path: str, load_external: bool) -> int:
    r = subprocess.run(
        [sys.executable, "-c", CHILD, path, "1" if load_external else "0"],
        capture_output=True, text=True, check=True,
    )
    return int(r.stdout.strip().splitlines()[-1])


def measure(path: str, runs: int) -> dict:
    with open(path, "rb") as f:  # warm the page cache
        while f.read(1 << 24):
            pass
    external = uses_external_data(onnx.load(path, load_external_data=False))
    load_external = not external

    model = None

    def do_load():
        nonlocal model
        model = onnx.load(path, load_external_data=load_external)

    load_s = _median_time(do_load, runs)

    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir="/tmp")
    os.close(fd)
    try:
        save_s = _median_time(lambda: onnx.save(model, tmp), runs)
    finally:
        os.unlink(tmp)

    check_error = None

    def do_check():
        nonlocal check_error
        try:
            onnx.checker.check_model(path, full_check=False)
        except Exception as e:  # keep the time to rejection, report why
            check_error = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"

    check_s = _median_time(do_check, runs)
    result = {
        "load_s": load_s,
        "save_s": save_s,
        "check_s": check_s,
        "peak_rss_bytes": child_peak_rss(path, load_external),
        "file_bytes": os.path.getsize(path),
    }
    if check_error:
        result["check_error"] = check_error
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description="peer measurements with the onnx Python package")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--json", required=True, dest="out")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    base = subprocess.run([sys.executable, "-c", CHILD, "-", "0"], capture_output=True, text=True, check=True)
    print(f"peer_bench: onnx {onnx.__version__}; VmHWM of a child that only imports onnx: "
          f"{int(base.stdout.strip()) / 2**20:.1f} MiB")
    results = {}
    for path in args.files:
        r = measure(path, args.runs)
        results[path] = r
        extra = f"  check_error: {r['check_error']}" if "check_error" in r else ""
        print(f"{path}: {r['file_bytes'] / 2**20:.1f} MiB  load {r['load_s'] * 1e3:.1f} ms  "
              f"save {r['save_s'] * 1e3:.1f} ms  check {r['check_s'] * 1e3:.1f} ms  "
              f"peak RSS {r['peak_rss_bytes'] / 2**20:.1f} MiB{extra}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
