"""spox building the model of `crates/graft/benches/builder.rs`: an MLP of LAYERS
blocks (MatMul, Add, Relu; 4x4 weights) on float[N, 4], from nothing to the built
ModelProto. Prints the best and median of REPEATS runs in ms.

usage: builder_bench.py [LAYERS ...] [--repeats R]
"""

import argparse
import statistics
import time

import numpy as np


def build(layers):
    import spox.opset.ai.onnx.v18 as op
    from spox import Tensor, argument
    from spox import build as spox_build

    x = argument(Tensor(np.float32, ("N", 4)))
    w = op.const(np.full((4, 4), 0.1, dtype=np.float32))
    b = op.const(np.full((4,), 0.01, dtype=np.float32))
    h = x
    for _ in range(layers):
        h = op.relu(op.add(op.matmul(h, w), b))
    return spox_build(inputs={"x": x}, outputs={"y": h})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("layers", nargs="*", type=int, default=[100, 1000])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    for layers in args.layers:
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            m = build(layers)
            times.append((time.perf_counter() - t) * 1000)
        print(
            f"spox mlp/{layers * 3}_nodes: best {min(times):.1f} ms, "
            f"median {statistics.median(times):.1f} ms ({len(m.graph.node)} nodes)"
        )


if __name__ == "__main__":
    main()
