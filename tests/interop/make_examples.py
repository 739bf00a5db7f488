#!/usr/bin/env python3
"""Write the example models bundled with the Graft app.

usage: make_examples.py OUT_DIR

  OUT_DIR/functions_and_control_flow.onnx  a small, readable model with a local function
      whose attribute has a default, calls to it, an If whose two branches read outer
      values, doc strings and metadata
  OUT_DIR/mlp.onnx  a tiny MLP (4 -> 16 -> 16 -> 3) with seeded weights
  OUT_DIR/function_library.onnx  two overloads of one function, defaults, a reference
      passed on to a nested call
  OUT_DIR/transformer_24.onnx, transformer_1000.onnx  decoder stacks with torch-style
      names and a shared mask
  OUT_DIR/inputs/<model>/<input>.npy  meaningful inputs for the app's Run tab: an
      audio chunk (a synthetic vowel) for silero_vad.onnx (which must be there), a
      sequence and its causal mask for the transformers
  OUT_DIR/live_specialization.onnx  a local function of 280 nodes whose compile-time
      attribute `mode` picks one branch of each of its 12 If nodes (about 205 nodes once
      specialized), called twice; the app's edit-to-redraw benchmark edits it

The bytes are deterministic (fixed seed; weights rounded to multiples of 1/64, which
float32 holds exactly). Each model is checked with onnx.checker.check_model(full_check=True)
and run in onnxruntime against a NumPy reference before it is written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

PRODUCER = "graft-examples"
PRODUCER_VERSION = "1"
DOMAIN = "graft.examples"
OPSET = 18
IR_VERSION = 10
F = TensorProto.FLOAT


def _weights(rng: np.random.Generator, shape, scale: float) -> np.ndarray:
    w = rng.standard_normal(shape) * scale
    return (np.round(w * 64) / 64 + 0.0).astype(np.float32)  # + 0.0 turns -0.0 into 0.0


def _meta(model: onnx.ModelProto, description: str) -> None:
    for k, v in [("author", PRODUCER), ("description", description), ("license", "CC0-1.0")]:
        e = model.metadata_props.add()
        e.key, e.value = k, v


def _node(op, inputs, outputs, name, doc, **attrs):
    return helper.make_node(op, inputs, outputs, name=name, doc_string=doc, **attrs)


# --------------------------------------------------------------------------------------


def scaled_tanh_function() -> onnx.FunctionProto:
    """ScaledTanh<alpha = 1.0>(X) = tanh(alpha * X) / alpha"""
    const = helper.make_node("Constant", [], ["alpha_value"], name="alpha",
                             doc_string="the alpha attribute as a tensor")
    const.attribute.append(helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT,
                                                     ref_attr_name="alpha"))
    return helper.make_function(
        DOMAIN, "ScaledTanh", ["X"], ["Y"],
        [
            const,
            helper.make_node("Mul", ["X", "alpha_value"], ["scaled"], name="scale"),
            helper.make_node("Tanh", ["scaled"], ["squashed"], name="tanh"),
            helper.make_node("Div", ["squashed", "alpha_value"], ["Y"], name="unscale"),
        ],
        [helper.make_opsetid("", OPSET)],
        attribute_protos=[helper.make_attribute("alpha", 1.0, doc_string="steepness; defaults to 1.0")],
        doc_string="tanh(alpha * X) / alpha: a tanh that keeps slope 1 at the origin.",
    )


def functions_and_control_flow() -> tuple[onnx.ModelProto, callable]:
    rng = np.random.default_rng(2024)
    W1, b1 = _weights(rng, (8, 16), 0.35), _weights(rng, (16,), 0.1)
    W2, b2 = _weights(rng, (16, 8), 0.25), _weights(rng, (8,), 0.1)
    W3, b3 = _weights(rng, (8, 3), 0.35), _weights(rng, (3,), 0.1)
    gain = np.array(1.5, np.float32)
    zero = np.array(0.0, np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in [
        (W1, "fc1.weight"), (b1, "fc1.bias"), (W2, "fc2.weight"), (b2, "fc2.bias"),
        (W3, "head.weight"), (b3, "head.bias"), (gain, "gate.gain"), (zero, "zero"),
    ]]
    inits[6].doc_string = "gain applied in the positive branch"

    then_branch = helper.make_graph(
        [
            _node("Mul", ["residual", "gate.gain"], ["amplified"], "then/amplify",
                  "reads 'residual' and 'gate.gain' from the outer graph"),
            _node("Relu", ["amplified"], ["then_out"], "then/relu", "keep the positive part"),
        ],
        "positive_branch", [], [helper.make_tensor_value_info("then_out", F, ["batch", 8])],
        doc_string="taken when the mean activation is positive",
    )
    else_branch = helper.make_graph(
        [
            _node("Sub", ["residual", "mean"], ["centered"], "else/center",
                  "reads 'residual' and 'mean' from the outer graph"),
            _node("Tanh", ["centered"], ["else_out"], "else/tanh", "squash the centered values"),
        ],
        "negative_branch", [], [helper.make_tensor_value_info("else_out", F, ["batch", 8])],
        doc_string="taken otherwise",
    )
    nodes = [
        _node("MatMul", ["x", "fc1.weight"], ["fc1.mm"], "fc1/MatMul", "first projection 8 -> 16"),
        _node("Add", ["fc1.mm", "fc1.bias"], ["fc1.out"], "fc1/Add", "bias"),
        helper.make_node("ScaledTanh", ["fc1.out"], ["act1"], name="act1", domain=DOMAIN, alpha=0.5,
                         doc_string="call with alpha = 0.5"),
        _node("MatMul", ["act1", "fc2.weight"], ["fc2.mm"], "fc2/MatMul", "second projection 16 -> 8"),
        _node("Add", ["fc2.mm", "fc2.bias"], ["fc2.out"], "fc2/Add", "bias"),
        _node("Add", ["x", "fc2.out"], ["residual"], "residual", "skip connection"),
        _node("ReduceMean", ["residual"], ["mean"], "gate/mean", "mean over everything", keepdims=0),
        _node("Greater", ["mean", "zero"], ["is_positive"], "gate/compare", "scalar condition"),
        _node("If", ["is_positive"], ["gated"], "gate/if", "choose a branch on the sign of the mean",
              then_branch=then_branch, else_branch=else_branch),
        _node("Cast", ["is_positive"], ["gate"], "gate/cast", "which branch ran, as 0.0 or 1.0", to=F),
        helper.make_node("ScaledTanh", ["gated"], ["act2"], name="act2", domain=DOMAIN,
                         doc_string="call with the default alpha"),
        _node("MatMul", ["act2", "head.weight"], ["head.mm"], "head/MatMul", "classifier 8 -> 3"),
        _node("Add", ["head.mm", "head.bias"], ["logits"], "head/Add", "bias"),
        _node("Softmax", ["logits"], ["probs"], "head/Softmax", "class probabilities", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "gated_residual_block",
        [helper.make_tensor_value_info("x", F, ["batch", 8], doc_string="8 input features")],
        [helper.make_tensor_value_info("probs", F, ["batch", 3], doc_string="probabilities of 3 classes"),
         helper.make_tensor_value_info("gate", F, [], doc_string="1.0 if the positive branch ran")],
        initializer=inits,
        doc_string="A residual block whose output goes through one of two branches, then a classifier.",
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(DOMAIN, 1)],
        functions=[scaled_tanh_function()], producer_name=PRODUCER, producer_version=PRODUCER_VERSION,
        doc_string="Example: a local function with an attribute default, and an If reading outer values.",
        model_version=1, domain="org.graft.examples",
    )
    model.ir_version = IR_VERSION
    _meta(model, "gated residual block with a local function and an If")

    def st(v, alpha=1.0):
        return np.tanh(alpha * v) / alpha

    def reference(x: np.ndarray):
        residual = x + (st(x @ W1 + b1, 0.5) @ W2 + b2)
        mean = residual.mean()
        pos = mean > 0
        gated = np.maximum(residual * gain, 0) if pos else np.tanh(residual - mean)
        logits = st(gated) @ W3 + b3
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return [e / e.sum(axis=-1, keepdims=True), np.array(float(pos), np.float32)]

    return model, reference


def mlp() -> tuple[onnx.ModelProto, callable]:
    rng = np.random.default_rng(7)
    sizes = [4, 16, 16, 3]
    params = []
    nodes = []
    inits = []
    cur = "x"
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        W = _weights(rng, (n_in, n_out), (2.0 / n_in) ** 0.5)
        b = _weights(rng, (n_out,), 0.1)
        params.append((W, b))
        inits += [numpy_helper.from_array(W, f"layer{i}.weight"), numpy_helper.from_array(b, f"layer{i}.bias")]
        last = i == len(sizes) - 2
        out = "logits" if last else f"layer{i}.linear"
        nodes.append(_node("Gemm", [cur, f"layer{i}.weight", f"layer{i}.bias"], [out], f"layer{i}/Gemm",
                           f"linear {n_in} -> {n_out}"))
        if not last:
            nodes.append(_node("Relu", [out], [f"layer{i}.out"], f"layer{i}/Relu", "activation"))
            cur = f"layer{i}.out"
    nodes.append(_node("Softmax", ["logits"], ["probs"], "Softmax", "class probabilities", axis=-1))
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", F, ["batch", 4], doc_string="4 input features")],
        [helper.make_tensor_value_info("probs", F, ["batch", 3], doc_string="probabilities of 3 classes")],
        initializer=inits, doc_string="A tiny multi-layer perceptron, 4 -> 16 -> 16 -> 3.",
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name=PRODUCER,
                              producer_version=PRODUCER_VERSION, doc_string="Example: a tiny MLP with seeded weights.",
                              model_version=1)
    model.ir_version = IR_VERSION
    _meta(model, "tiny MLP with seeded weights")

    def reference(x: np.ndarray):
        h = x
        for i, (W, b) in enumerate(params):
            h = h @ W + b
            if i < len(params) - 1:
                h = np.maximum(h, 0)
        e = np.exp(h - h.max(axis=-1, keepdims=True))
        return [e / e.sum(axis=-1, keepdims=True)]

    return model, reference


def function_library() -> onnx.ModelProto:
    """Local functions with two overloads of one name (IR 10), attribute defaults, and a
    function that passes its own attribute on to a call (a reference)."""
    lib = "lib.activations"

    def act(overload: str, body_op: str, doc: str) -> onnx.FunctionProto:
        slope = helper.make_node("Constant", [], ["slope_value"], name="slope")
        slope.attribute.append(helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT,
                                                         ref_attr_name="slope"))
        f = helper.make_function(
            lib, "Act", ["X"], ["Y"],
            [slope,
             helper.make_node("Mul", ["X", "slope_value"], ["scaled"], name="scale"),
             helper.make_node(body_op, ["scaled"], ["Y"], name="activate")],
            [helper.make_opsetid("", OPSET)],
            attribute_protos=[helper.make_attribute("slope", 1.0, doc_string="input scale")],
            doc_string=doc,
        )
        f.overload = overload
        return f

    fast = act("fast", "Relu", "Act, fast overload: relu(slope * X)")
    smooth = act("smooth", "Softplus", "Act, smooth overload: softplus(slope * X)")
    first = helper.make_node("Act", ["X"], ["h"], name="act", domain=lib)
    first.overload = "fast"
    first.attribute.append(helper.make_attribute_ref("slope", onnx.AttributeProto.FLOAT,
                                                     ref_attr_name="gain"))
    block = helper.make_function(
        lib, "Block", ["X"], ["Y"],
        [first, helper.make_node("Add", ["h", "X"], ["Y"], name="residual")],
        [helper.make_opsetid("", OPSET), helper.make_opsetid(lib, 1)],
        attribute_protos=[helper.make_attribute("gain", 2.0, doc_string="passed to Act as slope")],
        doc_string="A residual block: X + Act:fast<slope = gain>(X)",
    )
    calls = []
    b1 = helper.make_node("Block", ["x"], ["b1"], name="block1", domain=lib,
                          doc_string="gain = 0.5 given")
    b1.attribute.append(helper.make_attribute("gain", 0.5))
    calls.append(b1)
    calls.append(helper.make_node("Block", ["b1"], ["b2"], name="block2", domain=lib,
                                  doc_string="gain left to its default, 2.0"))
    s = helper.make_node("Act", ["b2"], ["y"], name="smooth_out", domain=lib)
    s.overload = "smooth"
    calls.append(s)
    graph = helper.make_graph(
        calls, "function_library",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["n", 4])],
    )
    model = helper.make_model(
        graph, functions=[fast, smooth, block],
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(lib, 1)],
        producer_name=PRODUCER, producer_version="1", ir_version=10,
        doc_string="Example: a function library with overloads, defaults and a reference passed on.",
    )
    _meta(model, "function overloads (IR 10), attribute defaults, nested calls")
    return model


TOWER_STAGES = 12
TOWER_WIDTH = 16


def tower_biases() -> list[np.ndarray]:
    rng = np.random.default_rng(200)
    return [_weights(rng, (TOWER_WIDTH,), 0.5) for _ in range(TOWER_STAGES)]


def tower_function() -> onnx.FunctionProto:
    """Tower<mode: int = 0, gain: float = 1.0>(X): 12 stages, each a gated residual
    whose last part is an If on `mode == 1` (sharp: relu, scale, tanh; smooth:
    softsign, sigmoid). Specializing a call folds every If into one branch."""
    def const_ref(out, attr, kind, ref):
        n = helper.make_node("Constant", [], [out], name=out)
        n.attribute.append(helper.make_attribute_ref(attr, kind, ref_attr_name=ref))
        return n

    nodes = [
        const_ref("mode_value", "value_int", onnx.AttributeProto.INT, "mode"),
        helper.make_node("Constant", [], ["one"], name="one", value_int=1),
        helper.make_node("Equal", ["mode_value", "one"], ["sharp"], name="is_sharp"),
        const_ref("gain_value", "value_float", onnx.AttributeProto.FLOAT, "gain"),
    ]
    x = "X"
    for k, bias in enumerate(tower_biases()):
        p = f"s{k}_"

        def n(op, ins, out, **attrs):
            nodes.append(helper.make_node(op, ins, [p + out], name=p + out, **attrs))

        n("Constant", [], "bias", value=numpy_helper.from_array(bias, p + "bias"))
        n("Mul", [x, "gain_value"], "scaled")
        n("Add", [p + "scaled", p + "bias"], "shifted")
        n("Tanh", [p + "shifted"], "tanh")
        n("Sigmoid", [p + "shifted"], "gate")
        n("Mul", [p + "tanh", p + "gate"], "gated")
        n("Sub", [p + "shifted", p + "gated"], "rest")
        n("Abs", [p + "rest"], "size")
        n("Neg", [p + "size"], "neg")
        n("Exp", [p + "neg"], "decay")
        n("Mul", [p + "decay", p + "gated"], "mix")

        def branch(name, ops):
            body = [helper.make_node(op, ins, [p + name + "_" + out], name=p + name + "_" + out, **a)
                    for op, ins, out, a in ops]
            out = body[-1].output[0]
            return helper.make_graph(body, p + name, [], [helper.make_tensor_value_info(out, F, None)])

        q = lambda name, v: p + name + "_" + v  # noqa: E731
        sharp = branch("sharp", [
            ("Constant", [], "k", {"value_float": 1.5}),
            ("Relu", [p + "mix"], "relu", {}),
            ("Mul", [q("sharp", "relu"), q("sharp", "k")], "scaled", {}),
            ("Tanh", [q("sharp", "scaled")], "tanh", {}),
            ("Sub", [q("sharp", "tanh"), q("sharp", "relu")], "out", {}),
        ])
        smooth = branch("smooth", [
            ("Constant", [], "k", {"value_float": 0.5}),
            ("Softsign", [p + "mix"], "soft", {}),
            ("Mul", [q("smooth", "soft"), q("smooth", "k")], "scaled", {}),
            ("Sigmoid", [q("smooth", "scaled")], "sig", {}),
            ("Sub", [q("smooth", "sig"), q("smooth", "k")], "out", {}),
        ])
        n("If", ["sharp"], "branch", then_branch=sharp, else_branch=smooth)
        out = "Y" if k == TOWER_STAGES - 1 else p + "out"
        nodes.append(helper.make_node("Add", [x, p + "branch"], [out], name=p + "residual"))
        x = out
    return helper.make_function(
        DOMAIN, "Tower", ["X"], ["Y"], nodes, [helper.make_opsetid("", OPSET)],
        attribute_protos=[
            helper.make_attribute("mode", 0, doc_string="1: the sharp branch of every stage, else the smooth one"),
            helper.make_attribute("gain", 1.0, doc_string="input scale of every stage"),
        ],
        doc_string=f"{TOWER_STAGES} gated residual stages; `mode` picks the branch of each stage's If.",
    )


def live_specialization() -> tuple[onnx.ModelProto, callable]:
    f = tower_function()
    tower = helper.make_node("Tower", ["x"], ["a"], name="tower", domain=DOMAIN, mode=1,
                             doc_string="mode = 1: the sharp branches")
    default = helper.make_node("Tower", ["x"], ["b"], name="tower_default", domain=DOMAIN,
                               doc_string="the defaults: the smooth branches")
    graph = helper.make_graph(
        [tower, default, helper.make_node("Add", ["a", "b"], ["y"], name="sum")],
        "live_specialization",
        [helper.make_tensor_value_info("x", F, ["batch", TOWER_WIDTH])],
        [helper.make_tensor_value_info("y", F, ["batch", TOWER_WIDTH])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(DOMAIN, 1)],
        functions=[f], producer_name=PRODUCER, producer_version=PRODUCER_VERSION,
        doc_string="Example: a 280-node local function whose attribute `mode` reshapes its body.",
    )
    model.ir_version = IR_VERSION
    _meta(model, "a large local function to specialize live")
    biases = tower_biases()

    def tower_ref(x, mode=0, gain=1.0):
        for b in biases:
            shifted = x * gain + b
            gated = np.tanh(shifted) / (1 + np.exp(-shifted))
            mix = np.exp(-np.abs(shifted - gated)) * gated
            if mode == 1:
                relu = np.maximum(mix, 0)
                branch = np.tanh(relu * 1.5) - relu
            else:
                branch = 1 / (1 + np.exp(-(mix / (1 + np.abs(mix)) * 0.5))) - 0.5
            x = x + branch
        return x

    def reference(x: np.ndarray):
        return [tower_ref(x, mode=1) + tower_ref(x)]

    return model, reference


def transformer_layers(layers: int, name: str) -> onnx.ModelProto:
    """A decoder-style stack exported the way torch names nodes
    (`/model/layers.N/self_attn/...`), with one attention mask and one rotary table read
    by every layer, shape side chains, and weights shared by all layers (so a large
    stack stays a small file)."""
    rng = np.random.default_rng(7)
    d = 8
    inits = [
        helper.make_tensor(n, onnx.TensorProto.FLOAT, list(a.shape), a.flatten().tolist())
        for n, a in [("wq", _weights(rng, (d, d), 0.3)), ("wk", _weights(rng, (d, d), 0.3)),
                     ("wv", _weights(rng, (d, d), 0.3)), ("wo", _weights(rng, (d, d), 0.3)),
                     ("w1", _weights(rng, (d, 2 * d), 0.3)), ("w2", _weights(rng, (2 * d, d), 0.3)),
                     ("rope", _weights(rng, (1, d), 0.5)), ("scale", np.array([0.35], np.float32)),
                     ("ln_scale", np.ones((d,), np.float32))]
    ]
    inits.append(helper.make_tensor("last", onnx.TensorProto.INT64, [1], [1]))
    nodes = []
    h = "hidden_in"
    for i in range(layers):
        p = f"/model/layers.{i}"
        a, m = f"{p}/self_attn", f"{p}/mlp"

        def n(op, ins, outs, path, **attrs):
            nodes.append(helper.make_node(op, ins, outs, name=f"{path}/{outs[0].split('.')[-1]}", **attrs))

        n("LayerNormalization", [h, "ln_scale"], [f"l{i}.ln1"], p, axis=-1)
        for proj in "qkv":
            n("MatMul", [f"l{i}.ln1", f"w{proj}"], [f"l{i}.{proj}"], a)
        n("Mul", [f"l{i}.q", "rope"], [f"l{i}.q_rot"], a)
        n("Mul", [f"l{i}.k", "rope"], [f"l{i}.k_rot"], a)
        n("Shape", [f"l{i}.k_rot"], [f"l{i}.kshape"], a)
        n("Gather", [f"l{i}.kshape", "last"], [f"l{i}.kdim"], a, axis=0)
        n("Reshape", [f"l{i}.k_rot", f"l{i}.kshape"], [f"l{i}.k_flat"], a)
        n("Transpose", [f"l{i}.k_flat"], [f"l{i}.kT"], a, perm=[1, 0])
        n("MatMul", [f"l{i}.q_rot", f"l{i}.kT"], [f"l{i}.scores"], a)
        n("Mul", [f"l{i}.scores", "scale"], [f"l{i}.scaled"], a)
        n("Add", [f"l{i}.scaled", "attention_mask"], [f"l{i}.masked"], a)
        n("Softmax", [f"l{i}.masked"], [f"l{i}.probs"], a, axis=-1)
        n("MatMul", [f"l{i}.probs", f"l{i}.v"], [f"l{i}.ctx"], a)
        n("MatMul", [f"l{i}.ctx", "wo"], [f"l{i}.attn_out"], a)
        n("Add", [h, f"l{i}.attn_out"], [f"l{i}.res1"], p)
        n("LayerNormalization", [f"l{i}.res1", "ln_scale"], [f"l{i}.ln2"], p, axis=-1)
        n("MatMul", [f"l{i}.ln2", "w1"], [f"l{i}.up"], m)
        n("Relu", [f"l{i}.up"], [f"l{i}.act"], m)
        n("MatMul", [f"l{i}.act", "w2"], [f"l{i}.down"], m)
        n("Add", [f"l{i}.res1", f"l{i}.down"], [f"l{i}.out"], p)
        h = f"l{i}.out"
    nodes.append(helper.make_node("Identity", [h], ["hidden_out"], name="/model/norm/Identity"))
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("hidden_in", onnx.TensorProto.FLOAT, ["seq", d]),
         helper.make_tensor_value_info("attention_mask", onnx.TensorProto.FLOAT, ["seq", "seq"])],
        [helper.make_tensor_value_info("hidden_out", onnx.TensorProto.FLOAT, ["seq", d])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name=PRODUCER, producer_version="1", ir_version=10)
    _meta(model, f"{layers}-layer decoder stack with torch-style node names and a shared mask")
    return model


def run_once(name: str, model: onnx.ModelProto, feeds: dict) -> None:
    """Checks the model and runs it once in onnxruntime (no reference to compare)."""
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    outs = sess.run(None, feeds)
    assert all(np.all(np.isfinite(o)) for o in outs), name


def verify(name: str, model: onnx.ModelProto, reference, inputs: list[np.ndarray]) -> None:
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for x in inputs:
        got = sess.run(None, {"x": x})
        want = reference(x.astype(np.float64))
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            assert g.shape == np.shape(w), (name, g.shape, np.shape(w))
            assert np.allclose(g, w, rtol=1e-4, atol=1e-5), (name, g, w)


def write_if_changed(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_bytes() == data:
        print(f"{path}: unchanged ({len(data)} bytes)")
    else:
        path.write_bytes(data)
        print(f"{path}: written ({len(data)} bytes)")


def npy(array: np.ndarray) -> bytes:
    import io
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def example_inputs(out: Path, transformer_feeds: dict) -> None:
    """Inputs a person would run the examples on; silero_vad's are run once here."""
    t = np.arange(512) / 16000.0
    # A vowel-like chunk: a 140 Hz voice with harmonics shaped by two formants.
    voice = sum((1.0 / k) * np.exp(-((140 * k - 700) / 300) ** 2)
                * np.sin(2 * np.pi * 140 * k * t) for k in range(1, 30))
    voice += sum(0.5 / k * np.exp(-((140 * k - 1200) / 300) ** 2) * np.sin(2 * np.pi * 140 * k * t)
                 for k in range(1, 30))
    audio = (0.5 * voice / np.max(np.abs(voice))).astype(np.float32).reshape(1, 512)
    silero = {"input": audio, "state": np.zeros((2, 1, 128), np.float32),
              "sr": np.array(16000, np.int64)}
    sess = ort.InferenceSession(str(out / "silero_vad.onnx"), providers=["CPUExecutionProvider"])
    prob, state = sess.run(None, silero)
    assert prob.shape == (1, 1) and np.isfinite(prob).all() and state.shape == (2, 1, 128)
    for name, array in silero.items():
        write_if_changed(out / "inputs" / "silero_vad" / f"{name}.npy", npy(array))
    for model in ["transformer_24", "transformer_1000"]:
        for name, array in transformer_feeds.items():
            write_if_changed(out / "inputs" / model / f"{name}.npy", npy(array))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: make_examples.py OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)

    model, ref = functions_and_control_flow()
    xs = [np.full((1, 8), 1.0, np.float32), np.full((1, 8), -1.0, np.float32),
          (np.arange(16, dtype=np.float32).reshape(2, 8) - 8) / 4]
    verify("functions_and_control_flow", model, ref, xs)
    gates = {float(ref(x.astype(np.float64))[1]) for x in xs}
    assert gates == {0.0, 1.0}, f"the inputs must take both If branches, got {gates}"
    assert len(model.graph.node) + sum(len(a.g.node) for n in model.graph.node for a in n.attribute
                                       if a.type == onnx.AttributeProto.GRAPH) + len(model.functions[0].node) >= 20

    mlp_model, mlp_ref = mlp()
    verify("mlp", mlp_model, mlp_ref, [np.array([[0.5, -1.0, 2.0, 0.25]], np.float32),
                                       np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)])

    live, live_ref = live_specialization()
    verify("live_specialization", live, live_ref,
           [np.linspace(-2, 2, 32, dtype=np.float32).reshape(2, TOWER_WIDTH)])
    body = live.functions[0].node
    assert len(body) + sum(len(a.g.node) for n in body for a in n.attribute
                           if a.type == onnx.AttributeProto.GRAPH) == 280

    library = function_library()
    # onnxruntime 1.32 does not resolve overloaded calls ("Act(-1) is not a registered
    # function"), so the library is checked, not run.
    onnx.checker.check_model(library, full_check=True)
    seq = 5
    feeds = {"hidden_in": np.linspace(-1, 1, seq * 8, dtype=np.float32).reshape(seq, 8),
             "attention_mask": np.triu(np.full((seq, seq), -1e4, np.float32), 1)}
    small = transformer_layers(24, "decoder_24_layers")
    run_once("transformer_24", small, feeds)
    large = transformer_layers(1000, "decoder_1000_layers")
    assert len(large.graph.node) > 20_000
    run_once("transformer_1000", large, feeds)

    for name, m in [("functions_and_control_flow.onnx", model), ("mlp.onnx", mlp_model),
                    ("function_library.onnx", library), ("live_specialization.onnx", live),
                    ("transformer_24.onnx", small),
                    ("transformer_1000.onnx", large)]:
        write_if_changed(out / name, m.SerializeToString())
    example_inputs(out, feeds)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
