"""What one edit costs when the checks and shapes are recomputed by onnx, as
onnx-modifier does on save: the 50k-node model is loaded, node 100 of its graph (the
node `cargo bench -p graft --bench edit` and the browser benchmark edit) is renamed,
then `onnx.checker.check_model` and `onnx.shape_inference.infer_shapes` run on it.
onnx has no incremental mode, so the edit's kind does not matter; the model's ops
(Mul, Add, Tanh) have no attributes onnx.checker would accept, so this one renames. Prints the best and median of REPEATS
runs in ms (the load is not timed).

usage: edit_bench.py MODEL [--repeats R]
"""

import argparse
import statistics
import time

import onnx
from onnx import shape_inference


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    model = onnx.load(args.model)
    node = model.graph.node[100]
    times = []
    for r in range(args.repeats):
        node.name = f"b20/renamed_{r}"
        start = time.perf_counter()
        onnx.checker.check_model(model)
        inferred = shape_inference.infer_shapes(model)
        times.append((time.perf_counter() - start) * 1000)
        assert len(inferred.graph.node) == len(model.graph.node)
    print(
        f"onnx {onnx.__version__}: rename node 100 ({node.op_type}) of "
        f"{len(model.graph.node)} nodes, then check_model + infer_shapes: "
        f"best {min(times):.1f} ms, median {statistics.median(times):.1f} ms "
        f"over {args.repeats} runs"
    )


if __name__ == "__main__":
    main()
