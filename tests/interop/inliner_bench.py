#!/usr/bin/env python3
"""Peer timing of inlining every local function call (the library's "inline all").

usage: inliner_bench.py [FILE] [--runs 10]

Times onnx.inliner.inline_local_functions on FILE (default: called_300.onnx of the
generated corpus, or $GRAFT_CORPUS/generated/called_300.onnx), from the loaded
ModelProto to the inlined one; prints the median and the best run in milliseconds and
the node count after inlining. Graft's figure for the same file comes from
`cargo bench -p graft --bench library`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import onnx
import onnx.inliner


def default_file() -> Path:
    corpus = os.environ.get("GRAFT_CORPUS")
    root = Path(corpus) if corpus else Path(__file__).resolve().parents[2] / "target" / "corpus"
    return root / "generated" / "called_300.onnx"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file", nargs="?", type=Path, default=default_file())
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    model = onnx.load(args.file)
    times = []
    result = model
    for _ in range(args.runs):
        start = time.perf_counter()
        result = onnx.inliner.inline_local_functions(model)
        times.append(time.perf_counter() - start)
    print(
        f"{args.file.name}: onnx.inliner.inline_local_functions median "
        f"{statistics.median(times) * 1e3:.1f} ms, best {min(times) * 1e3:.1f} ms "
        f"({len(result.graph.node)} nodes after, {len(result.functions)} functions left)"
    )


if __name__ == "__main__":
    main()
