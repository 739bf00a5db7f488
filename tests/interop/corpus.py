#!/usr/bin/env python3
"""Generate Graft's interop test corpus.

usage: corpus.py OUT_DIR

Layout under OUT_DIR (see /work/shared/spec/test-models.md for where each source comes from):

  backend/<folder>/...        copies of onnx's backend test data folders
                              (simple, pytorch-converted, pytorch-operator, light)
  node/<case>/model.onnx      the node test models written by onnx's case generators
                              (plus their test_data_set_0/*.pb), layout as onnx writes it
  real/<package>/<path>.onnx  real models found inside wheels (silero-vad, rapidocr,
                              onnx-asr) and onnxruntime's own datasets
  generated/*.onnx            models built here with fixed seeds
  corrupt/*                   files that are not valid models
  invalid/*.onnx              models that decode but break one rule each (doc_string
                              "expect: <check code>")

The run is deterministic (fixed seeds, no timestamps) and idempotent: every step keeps a
stamp under OUT_DIR/.steps holding a hash of the code that produced it, and is skipped
when that stamp still matches. OUT_DIR/.complete holds the hash of this whole file; when
it matches, the script prints "corpus up to date" and exits at once. When a download
failed, .complete is still written (so tests run on what is present) but marked
incomplete, so the next run tries again.

Only the standard library and the packages in requirements.txt are used. The only
network access is `pip download` of the three wheels named in REAL_WHEELS (PyPI); a
failed download prints a warning and the rest of the corpus is still written.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import onnx
from onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    TensorProto,
    TypeProto,
    ValueInfoProto,
    helper,
    numpy_helper,
)

BACKEND_FOLDERS = ["simple", "pytorch-converted", "pytorch-operator", "light"]

# (folder name under real/, pip requirement)
REAL_WHEELS = [
    ("silero-vad", "silero-vad==6.2.3"),
    ("rapidocr-onnxruntime", "rapidocr-onnxruntime==1.4.4"),
    ("onnx-asr", "onnx-asr==0.12.0"),
]

OPSET = 18
LOCAL_DOMAIN = "graft.test"
PRODUCER = "graft-corpus"


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------


def _write_bytes(path: Path, data: bytes) -> None:
    """Write atomically: a half-written file never carries the final name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _save(model: ModelProto, path: Path) -> None:
    _write_bytes(path, model.SerializeToString())


def _vi(name: str, elem: int, shape) -> ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _opsets(*extra: tuple[str, int]):
    return [helper.make_opsetid("", OPSET)] + [helper.make_opsetid(d, v) for d, v in extra]


def _model(graph: GraphProto, ir_version: int = 10, functions=(), extra_opsets=(), **kw) -> ModelProto:
    m = helper.make_model(
        graph,
        opset_imports=_opsets(*extra_opsets),
        functions=list(functions),
        producer_name=PRODUCER,
        **kw,
    )
    m.ir_version = ir_version
    return m


def _f32(rng: np.random.Generator, shape, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)).astype(np.float32)


def _init(name: str, arr: np.ndarray) -> TensorProto:
    return numpy_helper.from_array(np.ascontiguousarray(arr), name)


# Hand-written protobuf wire encoding, for the files protobuf python cannot produce.


def _varint(n: int) -> bytes:
    assert n >= 0
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint((field << 3) | wire)


def _len_field(field: int, payload: bytes) -> bytes:
    return _key(field, 2) + _varint(len(payload)) + payload


def _varint_field(field: int, n: int) -> bytes:
    return _key(field, 0) + _varint(n)


def _residual_model(blocks: int, seed: int, name: str, doc: str) -> ModelProto:
    """`blocks` residual blocks Mul/Add/Tanh/Add/Mul on [1,8], five nodes each (also the
    scale benchmark's 200k-node model, scale_models.py)."""
    d = 8
    rng = np.random.default_rng(seed)
    scales = _f32(rng, (blocks, d), 0.5)
    biases = _f32(rng, (blocks, d), 0.1)
    nodes = []
    inits = [_init("half", np.array(0.5, dtype=np.float32))]
    cur = "x"
    for i in range(blocks):
        s, b = f"b{i}.s", f"b{i}.b"
        inits += [_init(s, scales[i]), _init(b, biases[i])]
        nxt = "y" if i == blocks - 1 else f"b{i}.out"
        nodes += [
            helper.make_node("Mul", [cur, s], [f"b{i}.m"], name=f"b{i}/Mul"),
            helper.make_node("Add", [f"b{i}.m", b], [f"b{i}.a"], name=f"b{i}/Add"),
            helper.make_node("Tanh", [f"b{i}.a"], [f"b{i}.t"], name=f"b{i}/Tanh"),
            helper.make_node("Add", [cur, f"b{i}.t"], [f"b{i}.r"], name=f"b{i}/Residual"),
            helper.make_node("Mul", [f"b{i}.r", "half"], [nxt], name=f"b{i}/Halve"),
        ]
        cur = nxt
    graph = helper.make_graph(
        nodes, name, [_vi("x", TensorProto.FLOAT, [1, d])],
        [_vi("y", TensorProto.FLOAT, [1, d])], initializer=inits,
    )
    return _model(graph, doc_string=doc)


HELPERS = [_write_bytes, _save, _vi, _opsets, _model, _f32, _init, _varint, _key, _len_field, _varint_field,
           _residual_model]


# --------------------------------------------------------------------------------------
# backend/, node/, real/
# --------------------------------------------------------------------------------------


def _onnx_data_dir() -> Path:
    return Path(onnx.__file__).parent / "backend" / "test" / "data"


def step_backend(out: Path) -> bool:
    src = _onnx_data_dir()
    for folder in BACKEND_FOLDERS:
        shutil.copytree(src / folder, out / folder)
    return True


def step_node(out: Path) -> bool:
    """Run onnx's node test case generators through onnx's own writer.

    `backend-test-tools generate-data` (onnx.backend.test.cmd_tools.generate_data) writes
    OUTPUT/<case.kind>/<case.name>/{model.onnx,test_data_set_0/*.pb} for the cases that
    `model_test.collect_testcases()` returns; in onnx 1.23 that is only the model cases, so
    the same writer is pointed at the node cases. The node cases all have kind "node", so
    writing to OUT's parent puts them under OUT (= OUT_DIR/node).
    """
    import argparse as _argparse
    import types

    import onnx.backend.test.case.node as node_cases
    import onnx.backend.test.cmd_tools as cmd_tools

    tmp_root = out.parent / (out.name + ".gen")
    if tmp_root.exists():
        shutil.rmtree(tmp_root)
    cmd_tools.model_test = types.SimpleNamespace(collect_testcases=node_cases.collect_testcases)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cmd_tools.generate_data(_argparse.Namespace(output=str(tmp_root)))
    kinds = sorted(p.name for p in tmp_root.iterdir())
    assert kinds == ["node"], kinds
    os.replace(tmp_root / "node", out)
    shutil.rmtree(tmp_root)
    return True


def step_real(out: Path) -> bool:
    ok = True
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="graft-wheels-") as td:
        for folder, req in REAL_WHEELS:
            dl = Path(td) / folder
            dl.mkdir()
            cmd = [
                sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                "--disable-pip-version-check", "--no-input", "-q", "-d", str(dl), req,
            ]
            r = subprocess.run(cmd, capture_output=True, text=True)
            wheels = sorted(dl.glob("*.whl"))
            if r.returncode != 0 or not wheels:
                ok = False
                tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
                print(f"WARNING: corpus: pip download {req} failed (exit {r.returncode}); "
                      f"real/{folder} will be missing. {' | '.join(tail)}", file=sys.stderr)
                continue
            for whl in wheels:
                with zipfile.ZipFile(whl) as z:
                    for name in sorted(z.namelist()):
                        if name.endswith(".onnx"):
                            _write_bytes(out / folder / name, z.read(name))
    import importlib.util

    spec = importlib.util.find_spec("onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        print("WARNING: corpus: onnxruntime not installed; real/onnxruntime missing", file=sys.stderr)
        ok = False
    else:
        ds = Path(list(spec.submodule_search_locations)[0]) / "datasets"
        for f in sorted(ds.glob("*.onnx")):
            _write_bytes(out / "onnxruntime" / "onnxruntime" / "datasets" / f.name, f.read_bytes())
    return ok


# --------------------------------------------------------------------------------------
# generated/
# --------------------------------------------------------------------------------------


def gen_large_10k(out: Path) -> bool:
    """10,002 nodes: 3,334 blocks of MatMul/Add/Relu with 96x96 float32 weights (~123 MB),
    and the same model saved with all tensors in one external data file."""
    d, blocks = 96, 3334
    rng = np.random.default_rng(10_000)
    weights = _f32(rng, (blocks, d, d), math.sqrt(2.0 / d))
    biases = _f32(rng, (blocks, d), 0.01)
    nodes, inits = [], []
    cur = "x"
    for i in range(blocks):
        w, b = f"blk{i}.weight", f"blk{i}.bias"
        inits += [_init(w, weights[i]), _init(b, biases[i])]
        mm, add = f"blk{i}.mm", f"blk{i}.add"
        nxt = "y" if i == blocks - 1 else f"blk{i}.out"
        nodes += [
            helper.make_node("MatMul", [cur, w], [mm], name=f"blk{i}/MatMul"),
            helper.make_node("Add", [mm, b], [add], name=f"blk{i}/Add"),
            helper.make_node("Relu", [add], [nxt], name=f"blk{i}/Relu"),
        ]
        cur = nxt
    graph = helper.make_graph(
        nodes, "large_10k", [_vi("x", TensorProto.FLOAT, [1, d])],
        [_vi("y", TensorProto.FLOAT, [1, d])], initializer=inits,
    )
    model = _model(graph, doc_string="10k-node MLP stack with >100 MB of float32 weights")
    _save(model, out / "large_10k.onnx")
    # external-data twin. onnx.save appends to an existing .data file: save into an empty
    # temporary folder, then move both files into place.
    with tempfile.TemporaryDirectory(dir=out, prefix=".ext-") as td:
        name = "large_10k_external.onnx"
        onnx.save_model(
            model, os.path.join(td, name), save_as_external_data=True,
            all_tensors_to_one_file=True, location=name + ".data", size_threshold=0,
        )
        os.replace(os.path.join(td, name + ".data"), out / (name + ".data"))
        os.replace(os.path.join(td, name), out / name)
    return True


def gen_large_50k(out: Path) -> bool:
    """50,000 small nodes: 10,000 residual blocks Mul/Add/Tanh/Add/Mul on [1,8]."""
    _save(_residual_model(10_000, 50_000, "large_50k", "50k small nodes"), out / "large_50k.onnx")
    return True


def _transformer(n_layers: int, seed: int, name: str) -> ModelProto:
    """A decoder-like stack of n_layers x 41 nodes. Every layer reads the graph-wide
    tensors attention_mask (graph input), rope_sin / rope_cos, attn_scale and the reshape
    shapes (initializers)."""
    S, D, H, F = 32, 64, 4, 128
    hd = D // H
    rng = np.random.default_rng(seed)
    pos = np.arange(S, dtype=np.float64)[:, None]
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    ang = pos * inv_freq[None, :]
    cos = np.concatenate([np.cos(ang), np.cos(ang)], axis=1).astype(np.float32)
    sin = np.concatenate([np.sin(ang), np.sin(ang)], axis=1).astype(np.float32)
    inits = [
        _init("rope_cos", cos),
        _init("rope_sin", sin),
        _init("attn_scale", np.array(1.0 / math.sqrt(hd), dtype=np.float32)),
        _init("shape_heads", np.array([1, S, H, hd], dtype=np.int64)),
        _init("shape_model", np.array([1, S, D], dtype=np.int64)),
    ]
    nodes = []
    N = helper.make_node

    def rope(p: str, t: str) -> str:
        nodes.extend([
            N("Mul", [t, "rope_cos"], [f"{p}_cos"], name=f"{p}/MulCos"),
            N("Split", [t], [f"{p}_h1", f"{p}_h2"], name=f"{p}/Split", axis=-1, num_outputs=2),
            N("Neg", [f"{p}_h2"], [f"{p}_nh2"], name=f"{p}/Neg"),
            N("Concat", [f"{p}_nh2", f"{p}_h1"], [f"{p}_rot"], name=f"{p}/Concat", axis=-1),
            N("Mul", [f"{p}_rot", "rope_sin"], [f"{p}_sin"], name=f"{p}/MulSin"),
            N("Add", [f"{p}_cos", f"{p}_sin"], [f"{p}_emb"], name=f"{p}/Add"),
        ])
        return f"{p}_emb"

    x = "hidden_in"
    for l in range(n_layers):
        p = f"layer{l}"
        w = {k: _f32(rng, shp, 1.0 / math.sqrt(shp[0])) for k, shp in
             [("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)), ("wo", (D, D)), ("w1", (D, F)), ("w2", (F, D))]}
        for k, arr in w.items():
            inits.append(_init(f"{p}.{k}", arr))
        inits += [
            _init(f"{p}.ln1_g", np.ones(D, np.float32)), _init(f"{p}.ln1_b", np.zeros(D, np.float32)),
            _init(f"{p}.ln2_g", np.ones(D, np.float32)), _init(f"{p}.ln2_b", np.zeros(D, np.float32)),
            _init(f"{p}.b1", _f32(rng, (F,), 0.02)), _init(f"{p}.b2", _f32(rng, (D,), 0.02)),
            _init(f"{p}.ls", np.full(D, 0.5, np.float32)),
        ]
        start = len(nodes)
        nodes.append(N("LayerNormalization", [x, f"{p}.ln1_g", f"{p}.ln1_b"], [f"{p}.ln1"], name=f"{p}/ln1", axis=-1))
        for t in "qkv":
            nodes.append(N("MatMul", [f"{p}.ln1", f"{p}.w{t}"], [f"{p}.{t}"], name=f"{p}/{t}_proj"))
        for t in "qkv":
            nodes.append(N("Reshape", [f"{p}.{t}", "shape_heads"], [f"{p}.{t}_r"], name=f"{p}/{t}_reshape"))
        for t in "qkv":
            nodes.append(N("Transpose", [f"{p}.{t}_r"], [f"{p}.{t}_t"], name=f"{p}/{t}_transpose", perm=[0, 2, 1, 3]))
        q = rope(f"{p}.q_rope", f"{p}.q_t")
        k = rope(f"{p}.k_rope", f"{p}.k_t")
        nodes.extend([
            N("Transpose", [k], [f"{p}.kT"], name=f"{p}/kT", perm=[0, 1, 3, 2]),
            N("MatMul", [q, f"{p}.kT"], [f"{p}.scores"], name=f"{p}/scores"),
            N("Mul", [f"{p}.scores", "attn_scale"], [f"{p}.scaled"], name=f"{p}/scale"),
            N("Add", [f"{p}.scaled", "attention_mask"], [f"{p}.masked"], name=f"{p}/mask"),
            N("Softmax", [f"{p}.masked"], [f"{p}.probs"], name=f"{p}/softmax", axis=-1),
            N("MatMul", [f"{p}.probs", f"{p}.v_t"], [f"{p}.ctx"], name=f"{p}/ctx"),
            N("Transpose", [f"{p}.ctx"], [f"{p}.ctx_t"], name=f"{p}/ctx_transpose", perm=[0, 2, 1, 3]),
            N("Reshape", [f"{p}.ctx_t", "shape_model"], [f"{p}.ctx_r"], name=f"{p}/ctx_reshape"),
            N("MatMul", [f"{p}.ctx_r", f"{p}.wo"], [f"{p}.attn"], name=f"{p}/o_proj"),
            N("Add", [x, f"{p}.attn"], [f"{p}.h"], name=f"{p}/residual1"),
            N("LayerNormalization", [f"{p}.h", f"{p}.ln2_g", f"{p}.ln2_b"], [f"{p}.ln2"], name=f"{p}/ln2", axis=-1),
            N("MatMul", [f"{p}.ln2", f"{p}.w1"], [f"{p}.f1"], name=f"{p}/up"),
            N("Add", [f"{p}.f1", f"{p}.b1"], [f"{p}.f1b"], name=f"{p}/up_bias"),
            N("Sigmoid", [f"{p}.f1b"], [f"{p}.sig"], name=f"{p}/sigmoid"),
            N("Mul", [f"{p}.f1b", f"{p}.sig"], [f"{p}.silu"], name=f"{p}/silu"),
            N("MatMul", [f"{p}.silu", f"{p}.w2"], [f"{p}.f2"], name=f"{p}/down"),
            N("Add", [f"{p}.f2", f"{p}.b2"], [f"{p}.f2b"], name=f"{p}/down_bias"),
            N("Mul", [f"{p}.f2b", f"{p}.ls"], [f"{p}.f2s"], name=f"{p}/layer_scale"),
        ])
        out_name = "hidden_out" if l == n_layers - 1 else f"{p}.out"
        nodes.append(N("Add", [f"{p}.h", f"{p}.f2s"], [out_name], name=f"{p}/residual2"))
        assert len(nodes) - start == 41, len(nodes) - start
        x = out_name
    graph = helper.make_graph(
        nodes, name,
        [_vi("hidden_in", TensorProto.FLOAT, [1, S, D]), _vi("attention_mask", TensorProto.FLOAT, [1, 1, S, S])],
        [_vi("hidden_out", TensorProto.FLOAT, [1, S, D])],
        initializer=inits,
    )
    return _model(graph, doc_string=f"{n_layers}-layer transformer-like stack sharing mask and rope tables")


def gen_shared(out: Path) -> bool:
    m = _transformer(24, 984, "shared_984")
    assert len(m.graph.node) == 984
    _save(m, out / "shared_984.onnx")
    m = _transformer(73, 3000, "shared_3k")
    assert len(m.graph.node) == 2993
    _save(m, out / "shared_3k.onnx")
    return True


def _aref(name: str, ref: str, t=AttributeProto.FLOAT) -> AttributeProto:
    return helper.make_attribute_ref(name, t, ref_attr_name=ref)


def gen_nested_functions(out: Path) -> bool:
    """Local functions calling local functions, attribute references and defaults (IR 10).

    ScaleShift<alpha = 2.0, beta>(X) = X * alpha + beta
    Block<gain = 0.5, slope>(X)      = ScaleShift<beta = gain>(LeakyRelu<alpha = @slope>(
                                          ScaleShift<alpha = @gain, beta = 1.0>(X)))
    Stack<depth_gain>(X)             = h1 + Block<gain = @depth_gain, slope = 0.2>(h1)
                                       where h1 = Block<slope = 0.1>(X)
    main: Y = Stack<depth_gain = 0.25>(X) + Block<gain = 3.0, slope = 0.3>(X)
              + Block<gain = 1.0>(X)      (slope absent: LeakyRelu uses its own default)
    """
    N = helper.make_node
    D = LOCAL_DOMAIN
    f_opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(D, 1)]

    alpha_default = helper.make_attribute("alpha", 2.0, doc_string="default scale")
    scale_shift = helper.make_function(
        D, "ScaleShift", ["X"], ["Y"],
        [
            N("Constant", [], ["a"], value_float=0.0),
            N("Constant", [], ["b"], value_float=0.0),
            N("Mul", ["X", "a"], ["m"]),
            N("Add", ["m", "b"], ["Y"]),
        ],
        f_opsets, attributes=["beta"], attribute_protos=[alpha_default],
        doc_string="X * alpha + beta (alpha defaults to 2.0)",
    )
    del scale_shift.node[0].attribute[:]
    scale_shift.node[0].attribute.append(_aref("value_float", "alpha"))
    del scale_shift.node[1].attribute[:]
    scale_shift.node[1].attribute.append(_aref("value_float", "beta"))

    n1 = N("ScaleShift", ["X"], ["t"], domain=D, beta=1.0)
    n1.attribute.append(_aref("alpha", "gain"))
    n2 = N("LeakyRelu", ["t"], ["r"])
    n2.attribute.append(_aref("alpha", "slope"))
    n3 = N("ScaleShift", ["r"], ["Y"], domain=D)
    n3.attribute.append(_aref("beta", "gain"))
    block = helper.make_function(
        D, "Block", ["X"], ["Y"], [n1, n2, n3], f_opsets, attributes=["slope"],
        attribute_protos=[helper.make_attribute("gain", 0.5)],
        doc_string="two ScaleShift calls around a LeakyRelu",
    )

    s1 = N("Block", ["X"], ["h1"], domain=D, slope=0.1)
    s2 = N("Block", ["h1"], ["h2"], domain=D, slope=0.2)
    s2.attribute.append(_aref("gain", "depth_gain"))
    stack = helper.make_function(
        D, "Stack", ["X"], ["Y"], [s1, s2, N("Add", ["h1", "h2"], ["Y"])], f_opsets,
        attributes=["depth_gain"], doc_string="Block(Block(X)) with a skip",
    )

    graph = helper.make_graph(
        [
            N("Stack", ["X"], ["y1"], name="stack", domain=D, depth_gain=0.25),
            N("Block", ["X"], ["y2"], name="block_explicit", domain=D, gain=3.0, slope=0.3),
            N("Block", ["X"], ["y3"], name="block_no_slope", domain=D, gain=1.0),
            N("Add", ["y1", "y2"], ["y12"], name="add12"),
            N("Add", ["y12", "y3"], ["Y"], name="add123"),
        ],
        "nested_functions", [_vi("X", TensorProto.FLOAT, [2, 3])], [_vi("Y", TensorProto.FLOAT, [2, 3])],
    )
    m = _model(graph, 10, [scale_shift, block, stack], [(D, 1)])
    _save(m, out / "nested_functions.onnx")
    return True


def gen_overloads(out: Path) -> bool:
    """Two overloads of graft.test.Act (IR 10), both called from the main graph."""
    N = helper.make_node
    D = LOCAL_DOMAIN
    f_opsets = [helper.make_opsetid("", OPSET)]
    relu = helper.make_function(D, "Act", ["X"], ["Y"], [N("Relu", ["X"], ["Y"])], f_opsets,
                                overload="relu", doc_string="Act, overload relu")
    negabs = helper.make_function(
        D, "Act", ["X"], ["Y"], [N("Abs", ["X"], ["a"]), N("Neg", ["a"], ["Y"])], f_opsets,
        overload="neg_abs", doc_string="Act, overload neg_abs",
    )
    graph = helper.make_graph(
        [
            N("Act", ["X"], ["y1"], name="act_relu", domain=D, overload="relu"),
            N("Act", ["X"], ["y2"], name="act_neg_abs", domain=D, overload="neg_abs"),
            N("Add", ["y1", "y2"], ["Y"], name="sum"),
        ],
        "overloads", [_vi("X", TensorProto.FLOAT, [4])], [_vi("Y", TensorProto.FLOAT, [4])],
    )
    _save(_model(graph, 10, [relu, negabs], [(D, 1)]), out / "overloads.onnx")
    return True


def gen_control_flow(out: Path) -> bool:
    """If, Loop and Scan whose bodies read outer-scope values (the Loop body holds an If
    that reads values two scopes out), and a local function whose body has an If reading
    the function's input and a body value."""
    N = helper.make_node
    D = LOCAL_DOMAIN
    F = TensorProto.FLOAT
    B = TensorProto.BOOL

    if_main = N(
        "If", ["cond"], ["if_out"], name="if_outer",
        then_branch=helper.make_graph([N("Add", ["W", "X"], ["then_out"], name="then_add")],
                                      "then_body", [], [_vi("then_out", F, [4])]),
        else_branch=helper.make_graph([N("Sub", ["W", "X"], ["else_out"], name="else_sub")],
                                      "else_body", [], [_vi("else_out", F, [4])]),
    )
    inner_if = N(
        "If", ["cond"], ["v_sel"], name="loop_if",
        then_branch=helper.make_graph([N("Mul", ["v_add", "X"], ["v_t"], name="loop_then_mul")],
                                      "loop_then", [], [_vi("v_t", F, [4])]),
        else_branch=helper.make_graph([N("Sub", ["v_add", "X"], ["v_e"], name="loop_else_sub")],
                                      "loop_else", [], [_vi("v_e", F, [4])]),
    )
    loop_body = helper.make_graph(
        [
            N("Identity", ["cond_in"], ["cond_out"], name="loop_cond"),
            N("Add", ["v_in", "W"], ["v_add"], name="loop_add_outer"),
            inner_if,
            N("Tanh", ["v_sel"], ["v_out"], name="loop_tanh"),
        ],
        "loop_body",
        [_vi("iter", TensorProto.INT64, []), _vi("cond_in", B, []), _vi("v_in", F, [4])],
        [_vi("cond_out", B, []), _vi("v_out", F, [4])],
    )
    loop = N("Loop", ["trip", "", "X"], ["loop_out"], name="loop", body=loop_body)
    scan_body = helper.make_graph(
        [
            N("Add", ["s_in", "row"], ["s_out"], name="scan_acc"),
            N("Mul", ["s_out", "W"], ["scan_y"], name="scan_mul_outer"),
        ],
        "scan_body", [_vi("s_in", F, [4]), _vi("row", F, [4])], [_vi("s_out", F, [4]), _vi("scan_y", F, [4])],
    )
    scan = N("Scan", ["X", "rows"], ["scan_state", "scan_ys"], name="scan", body=scan_body, num_scan_inputs=1)

    fn = helper.make_function(
        D, "Select", ["C", "X"], ["Y"],
        [
            N("Mul", ["X", "X"], ["sq"]),
            N(
                "If", ["C"], ["Y"],
                then_branch=helper.make_graph([N("Add", ["X", "sq"], ["ft"])], "fn_then", [], [_vi("ft", F, None)]),
                else_branch=helper.make_graph([N("Abs", ["X"], ["fe"])], "fn_else", [], [_vi("fe", F, None)]),
            ),
        ],
        [helper.make_opsetid("", OPSET)], doc_string="If inside a function reading the function's input",
    )
    graph = helper.make_graph(
        [
            N("Mul", ["X", "two"], ["W"], name="make_W"),
            if_main, loop, scan,
            N("Select", ["cond", "X"], ["sel_out"], name="select", domain=D),
        ],
        "control_flow",
        [_vi("X", F, [4]), _vi("cond", B, []), _vi("rows", F, [3, 4])],
        [_vi("if_out", F, [4]), _vi("loop_out", F, [4]), _vi("scan_state", F, [4]),
         _vi("scan_ys", F, [3, 4]), _vi("sel_out", F, [4])],
        initializer=[_init("two", np.array(2.0, np.float32)), _init("trip", np.array(3, np.int64))],
    )
    _save(_model(graph, 10, [fn], [(D, 1)]), out / "control_flow.onnx")
    return True


def gen_called_300(out: Path) -> bool:
    """graft.test.Step called 300 times in a chain, with a varying attribute."""
    N = helper.make_node
    D = LOCAL_DOMAIN
    c = N("Constant", [], ["k"])
    c.attribute.append(_aref("value_float", "shift"))
    step = helper.make_function(
        D, "Step", ["X"], ["Y"], [c, N("Add", ["X", "k"], ["s"]), N("Tanh", ["s"], ["Y"])],
        [helper.make_opsetid("", OPSET)], attribute_protos=[helper.make_attribute("shift", 0.0)],
    )
    nodes = []
    cur = "X"
    for i in range(300):
        nxt = "Y" if i == 299 else f"s{i}"
        kw = {} if i % 3 == 0 else {"shift": float(i % 3) / 10.0}
        nodes.append(N("Step", [cur], [nxt], name=f"step{i}", domain=D, **kw))
        cur = nxt
    graph = helper.make_graph(nodes, "called_300", [_vi("X", TensorProto.FLOAT, [8])],
                              [_vi("Y", TensorProto.FLOAT, [8])])
    _save(_model(graph, 10, [step], [(D, 1)]), out / "called_300.onnx")
    return True


def _ss(k: str, v: str):
    return onnx.StringStringEntryProto(key=k, value=v)


def gen_metadata_everything(out: Path) -> bool:
    """Sets as many ModelProto/GraphProto/NodeProto/TensorProto/... fields as possible.
    It is not meant to pass onnx.checker; it loads with onnx.load."""
    F = TensorProto.FLOAT
    md = lambda where: [_ss("where", where), _ss("note", f"metadata on {where} \u2713")]  # noqa: E731

    def tensor(name, dt, dims, **fields) -> TensorProto:
        t = TensorProto(name=name, data_type=dt, dims=dims, **fields)
        return t

    # -- tensors using every typed field, and raw_data for every data type --------------
    typed = [
        tensor("t_float", F, [4], float_data=[1.5, -0.0, float("nan"), float("inf")],
               doc_string="float_data with -0.0, NaN, inf", metadata_props=md("tensor")),
        tensor("t_int32", TensorProto.INT32, [3], int32_data=[-1, 0, 2147483647]),
        tensor("t_int64", TensorProto.INT64, [3], int64_data=[-(2**63), 0, 2**63 - 1]),
        tensor("t_double", TensorProto.DOUBLE, [3], double_data=[math.pi, -0.0, float("-inf")]),
        tensor("t_uint64", TensorProto.UINT64, [2], uint64_data=[0, 2**64 - 1]),
        tensor("t_uint32", TensorProto.UINT32, [2], uint64_data=[7, 2**32 - 1]),
        tensor("t_string", TensorProto.STRING, [3], string_data=[b"hello", b"", b"\xff\x00bytes"]),
        tensor("t_float16", TensorProto.FLOAT16, [2], int32_data=[0x3C00, 0xC000]),
        tensor("t_bfloat16", TensorProto.BFLOAT16, [2], int32_data=[0x3F80, 0x7FC0]),
        tensor("t_bool", TensorProto.BOOL, [3], int32_data=[1, 0, 1]),
        tensor("t_complex64", TensorProto.COMPLEX64, [2], float_data=[1.0, 2.0, -3.0, 4.0]),
        tensor("t_complex128", TensorProto.COMPLEX128, [1], double_data=[0.5, -0.25]),
        tensor("t_segment", F, [10], float_data=[1.0, 2.0, 3.0],
               segment=TensorProto.Segment(begin=3, end=6), doc_string="segment 3..6 of a 10-element tensor"),
        tensor("t_scalar", F, [], raw_data=np.array(7.0, np.float32).tobytes()),
        tensor("t_empty", F, [0, 3], raw_data=b""),
        tensor("t_location", F, [1], raw_data=np.array([1.0], np.float32).tobytes(),
               data_location=TensorProto.DEFAULT),
    ]
    bits = {TensorProto.UINT4: 4, TensorProto.INT4: 4, TensorProto.FLOAT4E2M1: 4,
            TensorProto.UINT2: 2, TensorProto.INT2: 2, TensorProto.FLOAT6E2M3: 6, TensorProto.FLOAT6E3M2: 6}
    sizes = {TensorProto.DOUBLE: 8, TensorProto.INT64: 8, TensorProto.UINT64: 8, TensorProto.COMPLEX64: 8,
             TensorProto.COMPLEX128: 16, TensorProto.FLOAT: 4, TensorProto.INT32: 4, TensorProto.UINT32: 4,
             TensorProto.INT16: 2, TensorProto.UINT16: 2, TensorProto.FLOAT16: 2, TensorProto.BFLOAT16: 2}
    rng = np.random.default_rng(11)
    for name, dt in TensorProto.DataType.items():
        if dt in (TensorProto.UNDEFINED, TensorProto.STRING):
            continue
        n = 5
        nbytes = (n * bits[dt] + 7) // 8 if dt in bits else n * sizes.get(dt, 1)
        typed.append(tensor(f"raw_{name.lower()}", dt, [n], raw_data=rng.bytes(nbytes)))

    def sparse(name: str, coo_2d: bool) -> onnx.SparseTensorProto:
        vals = tensor(name + "_values", F, [3], float_data=[1.0, 2.0, 3.0])
        if coo_2d:
            idx = tensor(name + "_indices", TensorProto.INT64, [3, 2], int64_data=[0, 1, 2, 2, 3, 0])
        else:
            idx = tensor(name + "_indices", TensorProto.INT64, [3], int64_data=[1, 10, 12])
        return onnx.SparseTensorProto(values=vals, indices=idx, dims=[4, 4])

    # -- types ----------------------------------------------------------------------------
    def ttype(elem, dims=None, denotation=None) -> TypeProto:
        tp = TypeProto()
        tp.tensor_type.elem_type = elem
        if dims is not None:
            tp.tensor_type.shape.SetInParent()
            for d in dims:
                dim = tp.tensor_type.shape.dim.add()
                if isinstance(d, int):
                    dim.dim_value = d
                elif isinstance(d, str):
                    dim.dim_param = d
                elif isinstance(d, tuple):
                    dim.dim_value, dim.denotation = d
        if denotation:
            tp.denotation = denotation
        return tp

    seq_t = TypeProto()
    seq_t.sequence_type.elem_type.CopyFrom(ttype(F, ["n"]))
    map_t = TypeProto()
    map_t.map_type.key_type = TensorProto.INT64
    map_t.map_type.value_type.CopyFrom(ttype(TensorProto.STRING, []))
    opt_t = TypeProto()
    opt_t.optional_type.elem_type.CopyFrom(seq_t)
    sparse_t = TypeProto()
    sparse_t.sparse_tensor_type.elem_type = F
    sparse_t.sparse_tensor_type.shape.dim.add().dim_value = 4
    sparse_t.sparse_tensor_type.shape.dim.add().dim_param = "M"
    opaque_t = TypeProto()
    opaque_t.opaque_type.domain = "graft.test"
    opaque_t.opaque_type.name = "Handle"
    opaque_empty = TypeProto()
    opaque_empty.opaque_type.SetInParent()
    unknown_dim = ttype(F, [2])
    unknown_dim.tensor_type.shape.dim.add()  # a dimension with neither value nor param

    def vinfo(name, tp=None, doc=None, meta=False) -> ValueInfoProto:
        v = ValueInfoProto(name=name)
        if tp is not None:
            v.type.CopyFrom(tp)
        if doc:
            v.doc_string = doc
        if meta:
            v.metadata_props.extend(md("value_info " + name))
        return v

    x_type = ttype(F, [("N"), (4, "DATA_CHANNEL")], denotation="TENSOR")
    x_type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"

    # -- a small subgraph for graph attributes -------------------------------------------
    def subgraph(name: str) -> GraphProto:
        g = helper.make_graph([helper.make_node("Identity", ["sg_in"], [name + "_out"], name=name + "_id")],
                              name, [vinfo("sg_in", ttype(F, [1]))], [vinfo(name + "_out", ttype(F, [1]))])
        g.doc_string = f"subgraph {name}"
        return g

    # -- one attribute of every kind -----------------------------------------------------
    small = tensor("attr_t", F, [2], float_data=[0.5, 0.25])
    attrs = [
        AttributeProto(name="f", type=AttributeProto.FLOAT, f=0.1, doc_string="float attribute"),
        AttributeProto(name="f_zero", type=AttributeProto.FLOAT, f=0.0),
        AttributeProto(name="i", type=AttributeProto.INT, i=-(2**63)),
        AttributeProto(name="s", type=AttributeProto.STRING, s="text \u2713 \x00".encode()),
        AttributeProto(name="s_empty", type=AttributeProto.STRING, s=b""),
        AttributeProto(name="t", type=AttributeProto.TENSOR, t=small),
        AttributeProto(name="g", type=AttributeProto.GRAPH, g=subgraph("attr_g")),
        AttributeProto(name="sparse_tensor", type=AttributeProto.SPARSE_TENSOR, sparse_tensor=sparse("attr_sp", True)),
        AttributeProto(name="tp", type=AttributeProto.TYPE_PROTO, tp=map_t),
        AttributeProto(name="floats", type=AttributeProto.FLOATS, floats=[1.0, -2.5, float("nan")]),
        AttributeProto(name="ints", type=AttributeProto.INTS, ints=[1, -1, 2**40]),
        AttributeProto(name="ints_empty", type=AttributeProto.INTS, doc_string="empty list: only the type says INTS"),
        AttributeProto(name="strings", type=AttributeProto.STRINGS, strings=[b"a", b"", b"c"]),
        AttributeProto(name="tensors", type=AttributeProto.TENSORS, tensors=[small, typed[1]]),
        AttributeProto(name="graphs", type=AttributeProto.GRAPHS, graphs=[subgraph("gs0"), subgraph("gs1")]),
        AttributeProto(name="sparse_tensors", type=AttributeProto.SPARSE_TENSORS,
                       sparse_tensors=[sparse("attr_sps0", False), sparse("attr_sps1", True)]),
        AttributeProto(name="type_protos", type=AttributeProto.TYPE_PROTOS, type_protos=[seq_t, opt_t, opaque_t]),
    ]

    # -- IR 11 device configuration --------------------------------------------------------
    shard = onnx.ShardingSpecProto(
        tensor_name="X", device=[0, 1],
        index_to_device_group_map=[onnx.IntIntListEntryProto(key=0, value=[0, 1])],
        sharded_dim=[onnx.ShardedDimProto(axis=0, simple_sharding=[
            onnx.SimpleShardedDimProto(dim_param="N", num_shards=2),
            onnx.SimpleShardedDimProto(dim_value=4, num_shards=2),
        ])],
    )
    node_cfg = onnx.NodeDeviceConfigurationProto(configuration_id="mesh2", sharding_spec=[shard], pipeline_stage=1)

    everything = NodeProto(
        name="every_attr", op_type="Everything", domain=LOCAL_DOMAIN, input=["X", "", "t_float"], output=["E", ""],
        attribute=attrs, doc_string="a node with an attribute of every type", metadata_props=md("node"),
        device_configurations=[node_cfg],
    )
    call = NodeProto(name="call_fn", op_type="Fn", domain=LOCAL_DOMAIN, overload="v1", input=["X"], output=["Fo"],
                     attribute=[AttributeProto(name="beta", type=AttributeProto.FLOAT, f=1.0)])
    relu = NodeProto(name="relu_ai_onnx", op_type="Relu", domain="ai.onnx", input=["X"], output=["R"],
                     doc_string="domain spelled 'ai.onnx'")
    add = NodeProto(name="", op_type="Add", input=["Fo", "R"], output=["Y"])

    fn_const = NodeProto(op_type="Constant", output=["a"],
                         attribute=[_aref("value_float", "alpha")])
    fn = FunctionProto(
        name="Fn", domain=LOCAL_DOMAIN, overload="v1", input=["X"], output=["Y"], attribute=["beta"],
        attribute_proto=[AttributeProto(name="alpha", type=AttributeProto.FLOAT, f=0.5, doc_string="default")],
        node=[fn_const, NodeProto(op_type="Mul", input=["X", "a"], output=["Y"], metadata_props=md("function node"))],
        doc_string="function with every FunctionProto field",
        opset_import=[helper.make_opsetid("", OPSET)],
        value_info=[vinfo("a", ttype(F, []))], metadata_props=md("function"),
    )

    graph = GraphProto(
        name="metadata_everything",
        node=[everything, call, relu, add],
        initializer=typed,
        sparse_initializer=[sparse("sp_init", False), sparse("sp_init2d", True)],
        doc_string="graph doc string",
        input=[vinfo("X", x_type, "input doc", True)],
        output=[vinfo("Y", ttype(F, ["N", 4]), "output doc", True), vinfo("E", ttype(F), "unknown rank")],
        value_info=[
            vinfo("R", ttype(F, ["N", 4]), "value_info doc", True),
            vinfo("vi_seq", seq_t), vinfo("vi_map", map_t), vinfo("vi_opt", opt_t),
            vinfo("vi_sparse", sparse_t), vinfo("vi_opaque", opaque_t), vinfo("vi_opaque_empty", opaque_empty),
            vinfo("vi_scalar", ttype(F, [])), vinfo("vi_unknown_dim", unknown_dim),
            vinfo("vi_no_type"),
        ],
        quantization_annotation=[onnx.TensorAnnotation(
            tensor_name="R",
            quant_parameter_tensor_names=[_ss("SCALE_TENSOR", "t_scalar"), _ss("ZERO_POINT_TENSOR", "raw_int8")],
        )],
        metadata_props=md("graph"),
    )

    init_graph = GraphProto(
        name="training_init",
        node=[NodeProto(op_type="Constant", output=["t_float_init"], attribute=[
            AttributeProto(name="value", type=AttributeProto.TENSOR, t=tensor("", F, [4], float_data=[0, 0, 0, 0]))])],
        output=[vinfo("t_float_init", ttype(F, [4]))], doc_string="initialization",
    )
    algo_graph = GraphProto(
        name="training_algorithm",
        node=[NodeProto(op_type="Mul", input=["t_float", "lr"], output=["t_float_new"])],
        initializer=[tensor("lr", F, [], float_data=[0.01])],
        output=[vinfo("t_float_new", ttype(F, [4]))], doc_string="algorithm",
    )
    training = onnx.TrainingInfoProto(
        initialization=init_graph, algorithm=algo_graph,
        initialization_binding=[_ss("t_float", "t_float_init")],
        update_binding=[_ss("t_float", "t_float_new")],
    )

    model = ModelProto(
        ir_version=11,
        opset_import=[helper.make_opsetid("", OPSET), helper.make_opsetid(LOCAL_DOMAIN, 1),
                      helper.make_opsetid("ai.onnx.ml", 3)],
        producer_name=PRODUCER, producer_version="1.0", domain="org.graft.test", model_version=42,
        doc_string="model doc string \u2713", graph=graph, metadata_props=md("model"),
        training_info=[training], functions=[fn],
        configuration=[
            onnx.DeviceConfigurationProto(name="mesh2", num_devices=2, device=["cpu:0", "cpu:1"]),
            onnx.DeviceConfigurationProto(name="single", num_devices=1, device=["cpu:0"]),
        ],
    )
    data = model.SerializeToString()
    assert onnx.load_model_from_string(data) == model
    _write_bytes(out / "metadata_everything.onnx", data)
    return True


# field 99, wire type 0 (varint): key = 99 << 3 | 0 = 792 = varint bytes 0x98 0x06;
# value 42 = 0x2A. So the first node's serialized bytes end with the three bytes 98 06 2A.
UNKNOWN_FIELD_BYTES = bytes([0x98, 0x06, 0x2A])


def gen_unknown_field(out: Path) -> bool:
    """A valid Relu/Neg model whose first NodeProto carries field 99 (varint 42), a field
    onnx.proto does not define. The model is put together by hand on the wire:
      ModelProto fields 1-6 | field 7 (graph) | fields 8+ ,
      graph = field 1 (node) for each node, node 0's bytes followed by 98 06 2A,
              then the graph's other fields.
    This is byte-for-byte what protobuf would write if it could hold the unknown field."""
    N = helper.make_node
    graph = helper.make_graph(
        [N("Relu", ["x"], ["r"], name="relu"), N("Neg", ["r"], ["y"], name="neg")],
        "unknown_field", [_vi("x", TensorProto.FLOAT, [3])], [_vi("y", TensorProto.FLOAT, [3])],
    )
    model = _model(graph, 10, doc_string="node 'relu' carries unknown field 99")
    node_bytes = [n.SerializeToString() for n in model.graph.node]
    node_bytes[0] += UNKNOWN_FIELD_BYTES
    g_rest = GraphProto()
    g_rest.CopyFrom(model.graph)
    del g_rest.node[:]
    graph_bytes = b"".join(_len_field(1, nb) for nb in node_bytes) + g_rest.SerializeToString()
    head = ModelProto()
    head.CopyFrom(model)
    head.ClearField("graph")
    tail = ModelProto()
    for f in ("opset_import", "metadata_props", "training_info", "functions", "configuration"):
        tail.ClearField(f)
        getattr(tail, f).extend(getattr(head, f))
        head.ClearField(f)
    data = head.SerializeToString() + _len_field(7, graph_bytes) + tail.SerializeToString()
    parsed = onnx.load_model_from_string(data)
    assert parsed.SerializeToString() == data, "spliced bytes are not canonical"
    assert parsed.graph.node[0].SerializeToString().endswith(UNKNOWN_FIELD_BYTES)
    assert parsed != model  # protobuf equality sees the unknown field
    _write_bytes(out / "unknown_field.onnx", data)
    return True


# --------------------------------------------------------------------------------------
# corrupt/
# --------------------------------------------------------------------------------------


def deep_if_model_bytes(depth: int) -> bytes:
    """A model whose graph nests `depth` If nodes, each then_branch holding the next level.

    Built on the wire without recursion: level k (1..depth) is the graph
      node { input "c"  output "y<k>"  op_type "If"
             attribute { name "then_branch"  g <level k-1>  type GRAPH }
             attribute { name "else_branch"  g <Identity(x) -> e<k>>  type GRAPH } }
      name "g<k>"  output { name "y<k>" }
    and level 0 is Identity(x) -> y0. Level `depth` is the main graph (inputs c, x). Every
    message's length prefix depends only on the length of what it holds, so the lengths are
    computed inside-out and the bytes written outside-in as a list of pieces."""
    F, B = TensorProto.FLOAT, TensorProto.BOOL
    leaf = GraphProto(name="g0", node=[NodeProto(op_type="Identity", input=["x"], output=["y0"])],
                      output=[ValueInfoProto(name="y0")]).SerializeToString()
    pres: list[bytes] = []
    posts: list[bytes] = []
    inner_len = len(leaf)
    for k in range(1, depth + 1):
        then_pre = _len_field(1, b"then_branch") + _key(6, 2) + _varint(inner_len)
        then_post = _varint_field(20, AttributeProto.GRAPH)
        then_len = len(then_pre) + inner_len + len(then_post)
        else_graph = GraphProto(name=f"e{k}", node=[NodeProto(op_type="Identity", input=["x"], output=[f"e{k}"])],
                                output=[ValueInfoProto(name=f"e{k}")])
        else_attr = _len_field(5, AttributeProto(name="else_branch", type=AttributeProto.GRAPH,
                                                 g=else_graph).SerializeToString())
        node_head = NodeProto(input=["c"], output=[f"y{k}"], op_type="If").SerializeToString()
        attr_key = _key(5, 2) + _varint(then_len)
        node_len = len(node_head) + len(attr_key) + then_len + len(else_attr)
        if k == depth:
            rest = GraphProto(name="main", input=[_vi("c", B, []), _vi("x", F, [1])],
                              output=[_vi(f"y{k}", F, [1])])
        else:
            rest = GraphProto(name=f"g{k}", output=[ValueInfoProto(name=f"y{k}")])
        pre = _key(1, 2) + _varint(node_len) + node_head + attr_key + then_pre
        post = then_post + else_attr + rest.SerializeToString()
        pres.append(pre)
        posts.append(post)
        inner_len = len(pre) + inner_len + len(post)
    head = ModelProto(ir_version=8, producer_name=PRODUCER).SerializeToString()
    tail = ModelProto(opset_import=[helper.make_opsetid("", OPSET)]).SerializeToString()
    pieces = [head, _key(7, 2), _varint(inner_len)]
    pieces += reversed(pres)
    pieces.append(leaf)
    pieces += posts
    pieces.append(tail)
    return b"".join(pieces)


def step_corrupt(out: Path) -> bool:
    out.mkdir(parents=True)
    rng = np.random.default_rng(4096)
    # a valid model with weights, cut in half (the cut falls inside the weights)
    w = _f32(rng, (32, 32))
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "to_truncate",
                          [_vi("x", TensorProto.FLOAT, [1, 32])], [_vi("y", TensorProto.FLOAT, [1, 32])],
                          initializer=[_init("w", w)])
    full = _model(g, 10).SerializeToString()
    _write_bytes(out / "truncated.onnx", full[: len(full) // 2])
    _write_bytes(out / "random.bin", np.random.default_rng(1234).bytes(4096))
    _write_bytes(out / "tensor.pb", _init("not_a_model", _f32(rng, (4, 4))).SerializeToString())
    _write_bytes(out / "empty.onnx", b"")
    # ir_version 10, then field 7 (graph, length-delimited) declaring 2^40 bytes,
    # followed by only a few real bytes.
    huge = _varint_field(1, 10) + _key(7, 2) + _varint(1 << 40) + _len_field(2, b"truncated")
    _write_bytes(out / "huge_length.onnx", huge)
    _write_bytes(out / "deep_nesting.onnx", deep_if_model_bytes(10_000))
    return True


# --------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------


def step_invalid(out: Path) -> bool:
    """Models that decode but break one rule each (the checker agreement test's data).

    Each model's doc_string is "expect: <code>", the check.* code Graft must report.
    Some rules onnx.checker enforces too; the others are Graft's stricter rules
    (semantics.md section 5), which onnx.checker accepts.
    """
    N = helper.make_node
    D = LOCAL_DOMAIN
    out.mkdir(parents=True, exist_ok=True)
    x = [_vi("X", TensorProto.FLOAT, [2])]
    y = [_vi("Y", TensorProto.FLOAT, [2])]

    def write(name, code, nodes, functions=(), ir_version=10, extra_opsets=((D, 1),), inputs=x, outputs=y, opsets=None):
        graph = helper.make_graph(nodes, name, inputs, outputs)
        m = _model(graph, ir_version, list(functions), list(extra_opsets))
        if opsets is not None:
            del m.opset_import[:]
            m.opset_import.extend(opsets)
        m.doc_string = f"expect: {code}"
        _save(m, out / f"{name}.onnx")

    def fn(name, inputs, outputs, nodes, attributes=(), attribute_protos=(), overload=None, opsets=None):
        return helper.make_function(
            D, name, inputs, outputs, nodes,
            opsets or [helper.make_opsetid("", OPSET), helper.make_opsetid(D, 1)],
            attributes=list(attributes), attribute_protos=list(attribute_protos), overload=overload,
        )

    # Rules onnx.checker enforces as well.
    write("undefined_input", "check.undefined-name", [N("Add", ["X", "nowhere"], ["Y"])])
    write("not_topological", "check.topological-order", [N("Relu", ["t"], ["Y"]), N("Neg", ["X"], ["t"])])
    write("defined_twice", "check.ssa", [N("Relu", ["X"], ["t"]), N("Neg", ["X"], ["t"]), N("Abs", ["t"], ["Y"])])
    write("unknown_op", "check.unknown-op", [N("Frobnicate", ["X"], ["Y"])])
    write("op_newer_than_opset", "check.unknown-op", [N("Gelu", ["X"], ["Y"])])
    write("required_attribute_missing", "check.attribute-required", [N("Cast", ["X"], ["Y"])])
    write("attribute_wrong_type", "check.attribute-type", [N("LeakyRelu", ["X"], ["Y"], alpha=1)])
    write("attribute_unknown", "check.attribute-unknown", [N("Relu", ["X"], ["Y"], slope=0.5)])
    write("too_many_inputs", "check.input-arity", [N("Relu", ["X", "X"], ["Y"])])
    write("domain_not_imported", "check.opset-missing", [N("Thing", ["X"], ["Y"], domain="not.imported")])

    # Graft's stricter rules.
    act = fn("Act", ["X"], ["Y"], [N("Relu", ["X"], ["Y"])], overload="relu")
    write("overload_below_ir10", "check.ir-version-field",
          [N("Act", ["X"], ["Y"], domain=D, overload="relu")], [act], ir_version=9)
    write("call_to_missing_overload", "check.call-missing-function",
          [N("Act", ["X"], ["Y"], domain=D, overload="gelu")], [act])
    scale = fn("Scale", ["X"], ["Y"], [N("Constant", [], ["a"]), N("Mul", ["X", "a"], ["Y"])], attributes=["alpha"])
    scale.node[0].attribute.append(_aref("value_float", "alpha"))
    write("undeclared_attribute_at_call", "check.call-undeclared-attribute",
          [N("Scale", ["X"], ["Y"], domain=D, alpha=2.0, beta=1.0)], [scale])
    write("reference_type_mismatch", "check.call-attribute-type",
          [N("Scale", ["X"], ["Y"], domain=D, alpha=2)], [scale])
    ref_node = N("LeakyRelu", ["X"], ["Y"])
    ref_node.attribute.append(_aref("alpha", "alpha"))
    write("reference_in_main_graph", "check.ref-outside-function", [ref_node])
    unproduced = fn("Unproduced", ["X"], ["Y", "Z"], [N("Relu", ["X"], ["Y"])])
    write("function_output_unproduced", "check.function-output-unproduced",
          [N("Unproduced", ["X"], ["Y", "z"], domain=D)], [unproduced])
    write("call_with_too_many_inputs", "check.call-arity",
          [N("Act", ["X", "X"], ["Y"], domain=D, overload="relu")], [act])
    ping = fn("Ping", ["X"], ["Y"], [N("Pong", ["X"], ["Y"], domain=D)])
    pong = fn("Pong", ["X"], ["Y"], [N("Ping", ["X"], ["Y"], domain=D)])
    write("mutual_recursion", "check.function-recursion", [N("Ping", ["X"], ["Y"], domain=D)], [ping, pong])
    both = fn("Both", ["X"], ["Y"], [N("Relu", ["X"], ["Y"])], attributes=["alpha"],
              attribute_protos=[helper.make_attribute("alpha", 1.0)])
    write("attribute_declared_twice", "check.function-attribute-both", [N("Both", ["X"], ["Y"], domain=D)], [both])
    cast = fn("CastTo", ["X"], ["Y"], [N("Cast", ["X"], ["Y"])], attributes=["to"])
    cast.node[0].attribute.append(_aref("to", "to", AttributeProto.INT))
    write("required_reference_unbound", "check.call-missing-required-attribute",
          [N("CastTo", ["X"], ["Y"], domain=D)], [cast])
    add = fn("Plus", ["A", "B"], ["Y"], [N("Add", ["A", "B"], ["Y"])])
    write("call_omits_required_input", "check.call-required-input-missing",
          [N("Plus", ["X"], ["Y"], domain=D)], [add])
    pick = fn("Pick", ["C"], ["Y"], [N("If", ["C"], ["Y"])], attributes=["yes", "no"])
    pick.node[0].attribute.append(_aref("then_branch", "yes", AttributeProto.GRAPH))
    pick.node[0].attribute.append(_aref("else_branch", "no", AttributeProto.GRAPH))
    branch = lambda name: helper.make_graph(  # noqa: E731
        [N("Identity", ["X"], [name])], name, [], [_vi(name, TensorProto.FLOAT, [2])])
    write("graph_attribute_captures_caller", "check.call-graph-captures",
          [N("Pick", ["C"], ["Y"], domain=D, yes=branch("y1"), no=branch("y2"))], [pick],
          inputs=[_vi("X", TensorProto.FLOAT, [2]), _vi("C", TensorProto.BOOL, [])])
    return True


GENERATED = [gen_large_10k, gen_large_50k, gen_shared, gen_nested_functions, gen_overloads,
             gen_control_flow, gen_called_300, gen_metadata_everything, gen_unknown_field]


def _step_key(fns) -> str:
    h = hashlib.sha256()
    for v in (onnx.__version__, np.__version__, sys.version_info[:2]):
        h.update(repr(v).encode())
    for f in list(fns) + HELPERS:
        h.update(inspect.getsource(f).encode())
    return h.hexdigest()


def _run_dir_step(root: Path, name: str, fn, extra=()) -> bool:
    """A step that produces the whole folder root/name: built beside it, then swapped in."""
    stamp = root / ".steps" / name
    key = _step_key([fn, *extra])
    final = root / name
    if stamp.exists() and stamp.read_text() == key and final.exists():
        return True
    t0 = time.monotonic()
    work = root / f".{name}.tmp"
    if work.exists():
        shutil.rmtree(work)
    ok = fn(work)
    if final.exists():
        shutil.rmtree(final)
    os.replace(work, final)
    if ok:
        _write_bytes(stamp, key.encode())
    elif stamp.exists():
        stamp.unlink()
    print(f"corpus: {name}: {time.monotonic() - t0:.1f} s{'' if ok else ' (incomplete)'}")
    return ok


def _run_gen_step(root: Path, fn) -> bool:
    """A generator writing one or more files into root/generated (each file atomically)."""
    name = "generated." + fn.__name__[len("gen_"):]
    stamp = root / ".steps" / name
    key = _step_key([fn, _transformer, _aref, _ss, deep_if_model_bytes])
    if stamp.exists() and stamp.read_text() == key:
        return True
    t0 = time.monotonic()
    out = root / "generated"
    out.mkdir(parents=True, exist_ok=True)
    ok = fn(out)
    if ok:
        _write_bytes(stamp, key.encode())
    print(f"corpus: {name}: {time.monotonic() - t0:.1f} s")
    return ok


def summary(root: Path) -> str:
    def count(p: Path, pattern="*.onnx") -> int:
        return sum(1 for _ in p.rglob(pattern)) if p.exists() else 0

    parts = []
    for top, subs in [("backend", BACKEND_FOLDERS), ("real", [f for f, _ in REAL_WHEELS] + ["onnxruntime"])]:
        inner = ", ".join(f"{s} {count(root / top / s)}" for s in subs)
        parts.append(f"{top} {count(root / top)} ({inner})")
    parts.insert(1, f"node {count(root / 'node')}")
    parts.append(f"generated {count(root / 'generated')}")
    parts.append(f"corrupt {count(root / 'corrupt', '*')}")
    parts.append(f"invalid {count(root / 'invalid')}")
    return "corpus (.onnx files; corrupt: all files): " + ", ".join(parts)


# A transformer exported by torch's dynamo exporter: its nodes carry the module
# metadata (`namespace`, `pkg.torch.onnx.name_scopes`, `…class_hierarchy`,
# `…stack_trace`). torch is a 5.5 GB install, so it is not in requirements.txt: the
# export runs in the interpreter GRAFT_TORCH_PYTHON names (default: this one), and is
# skipped, saying so, where that interpreter lacks the pinned torch and onnxscript.
TORCH_PINS = {"torch": "2.15.0", "onnxscript": "0.7.2"}
TORCH_MODEL = "generated/torch_dynamo_transformer.onnx"
TORCH_EXPORT = """
import sys
import torch

torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, num_layers=3, enable_nested_tensor=False)
        self.head = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.enc(x))


model = Net().eval()
program = torch.onnx.export(model, (torch.randn(1, 5, 16),), dynamo=True)
program.save(sys.argv[1])
"""


def torch_dynamo(root: Path) -> None:
    """Writes TORCH_MODEL when it is missing and the pinned torch is at hand."""
    path = root / TORCH_MODEL
    if path.exists():
        return
    python = os.environ.get("GRAFT_TORCH_PYTHON", sys.executable)
    probe = "import torch, onnxscript; print(torch.__version__.split('+')[0], onnxscript.__version__)"
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    want = f"{TORCH_PINS['torch']} {TORCH_PINS['onnxscript']}"
    if found.returncode != 0 or found.stdout.strip() != want:
        have = found.stdout.strip() or "no torch"
        print(f"corpus: skipping {TORCH_MODEL}: {python} has {have}, the corpus pins torch=="
              f"{TORCH_PINS['torch']} onnxscript=={TORCH_PINS['onnxscript']} "
              "(set GRAFT_TORCH_PYTHON to an interpreter that has them)")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # The script sits in a fixed folder (the stack traces the exporter records name
    # it), so that the same machine writes the same bytes.
    work = root / ".torch"
    work.mkdir(parents=True, exist_ok=True)
    (work / "transformer.py").write_text(TORCH_EXPORT)
    out = work / "model.onnx"
    done = subprocess.run([python, "transformer.py", "model.onnx"], cwd=work,
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"corpus: WARNING: the torch export failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return
    shutil.move(str(out), path)
    print(f"corpus: wrote {TORCH_MODEL}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    args = ap.parse_args()
    root: Path = args.out_dir.resolve()
    root.mkdir(parents=True, exist_ok=True)
    torch_dynamo(root)
    self_hash = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    complete = root / ".complete"
    if complete.exists() and complete.read_text().strip() == self_hash:
        print("corpus up to date")
        print(summary(root))
        return 0
    if complete.exists():
        complete.unlink()
    t0 = time.monotonic()
    ok = True
    ok &= _run_dir_step(root, "backend", step_backend)
    ok &= _run_dir_step(root, "node", step_node)
    ok &= _run_dir_step(root, "real", step_real)
    for fn in GENERATED:
        ok &= _run_gen_step(root, fn)
    ok &= _run_dir_step(root, "corrupt", step_corrupt, [deep_if_model_bytes])
    ok &= _run_dir_step(root, "invalid", step_invalid, [_aref])
    print(f"corpus: done in {time.monotonic() - t0:.1f} s")
    print(summary(root))
    if ok:
        _write_bytes(complete, (self_hash + "\n").encode())
    else:
        # The stamp is still written, so that the tests run on what is present (the Rust
        # harness looks for .complete), but with content that never matches: the next run
        # retries the missing parts (steps already done are skipped by their own stamps).
        _write_bytes(complete, f"incomplete {self_hash}\n".encode())
        print("WARNING: corpus incomplete (see warnings above); the next run retries the missing parts",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
