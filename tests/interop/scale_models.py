#!/usr/bin/env python3
"""Generate the models of the scale benchmark (`GRAFT_APP_BENCH_SCALE=1 cargo xtask
bench-app`): too big for the test corpus, made only for the browser figures.

usage: scale_models.py OUT_DIR

  scale_200k.onnx              200,000 small nodes: 40,000 residual blocks
                               Mul/Add/Tanh/Add/Mul on [1,8] (large_50k, four times over)
  scale_1g.onnx                10,002 nodes: 3,334 blocks MatMul/Add/Relu with 280x280
                               float32 weights, about 1 GB of them in raw_data
  scale_1g_external.onnx       the same with every tensor in scale_1g_external.onnx.data
  (+ .data)

Deterministic (fixed seeds). A model already present with its stamp (the hash of this
file) is kept. The 1 GB model's file is put together from wire bytes: its header, the
graph without initializers, then each initializer serialized on its own, so protobuf
never builds (or refuses, near its 2 GB limit) one message holding all the weights.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper

from corpus import (_f32, _key, _len_field, _model, _residual_model, _save, _varint, _vi,
                    _write_bytes)

# GraphProto.initializer and ModelProto.graph, by field number (onnx.proto).
GRAPH_INITIALIZER = 5
MODEL_GRAPH = 7


def gen_200k(out: Path) -> None:
    _save(_residual_model(40_000, 200_000, "scale_200k", "200k small nodes"), out / "scale_200k.onnx")


D, BLOCKS = 280, 3334


def _blocks_1g():
    """The graph of the 1 GB model without its initializers, and the initializers as
    (name, dims, seed) in file order: each tensor's data is made when written."""
    nodes, inits = [], []
    cur = "x"
    for i in range(BLOCKS):
        w, b = f"blk{i}.weight", f"blk{i}.bias"
        inits += [(w, (D, D), 2 * i), (b, (D,), 2 * i + 1)]
        mm, add = f"blk{i}.mm", f"blk{i}.add"
        nxt = "y" if i == BLOCKS - 1 else f"blk{i}.out"
        nodes += [
            helper.make_node("MatMul", [cur, w], [mm], name=f"blk{i}/MatMul"),
            helper.make_node("Add", [mm, b], [add], name=f"blk{i}/Add"),
            helper.make_node("Relu", [add], [nxt], name=f"blk{i}/Relu"),
        ]
        cur = nxt
    graph = helper.make_graph(
        nodes, "scale_1g", [_vi("x", TensorProto.FLOAT, [1, D])],
        [_vi("y", TensorProto.FLOAT, [1, D])],
    )
    return graph, inits


def _data(dims, seed: int) -> bytes:
    rng = np.random.default_rng(1_000_000_000 + seed)
    scale = np.sqrt(2.0 / D) if len(dims) == 2 else 0.01
    return _f32(rng, dims, scale).tobytes()


def gen_1g(out: Path) -> None:
    graph, inits = _blocks_1g()
    header = _model(graph, doc_string="10k nodes with 1 GB of float32 weights")
    graph_bytes = header.graph.SerializeToString()
    header.ClearField("graph")
    tensors = []
    for name, dims, seed in inits:
        t = helper.make_tensor(name, TensorProto.FLOAT, dims, _data(dims, seed), raw=True)
        tensors.append(_len_field(GRAPH_INITIALIZER, t.SerializeToString()))
    graph_len = len(graph_bytes) + sum(len(t) for t in tensors)
    path = out / "scale_1g.onnx"
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        f.write(header.SerializeToString())
        # The graph field's key and length, then its bytes: the graph without
        # initializers, then each initializer (a repeated field may follow the rest).
        f.write(_key(MODEL_GRAPH, 2) + _varint(graph_len))
        f.write(graph_bytes)
        for t in tensors:
            f.write(t)
    tmp.replace(path)


def gen_1g_external(out: Path) -> None:
    graph, inits = _blocks_1g()
    name = "scale_1g_external.onnx"
    location = name + ".data"
    data_tmp = out / (location + ".part")
    offset = 0
    with open(data_tmp, "wb") as f:
        for tensor_name, dims, seed in inits:
            data = _data(dims, seed)
            tensor = TensorProto(name=tensor_name, data_type=TensorProto.FLOAT, dims=dims)
            tensor.data_location = TensorProto.EXTERNAL
            for key, value in (("location", location), ("offset", str(offset)),
                               ("length", str(len(data)))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            graph.initializer.append(tensor)
            f.write(data)
            offset += len(data)
    data_tmp.replace(out / location)
    _write_bytes(out / name, _model(graph, doc_string="10k nodes, 1 GB of external weights")
                 .SerializeToString())


MODELS = [("scale_200k.onnx", gen_200k), ("scale_1g.onnx", gen_1g),
          ("scale_1g_external.onnx", gen_1g_external)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    out: Path = ap.parse_args().out_dir.resolve()
    out.mkdir(parents=True, exist_ok=True)
    stamp = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    for name, gen in MODELS:
        mark = out / (name + ".stamp")
        if (out / name).exists() and mark.exists() and mark.read_text().strip() == stamp:
            print(f"{name}: up to date")
            continue
        print(f"{name}: writing", flush=True)
        gen(out)
        _write_bytes(mark, (stamp + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
