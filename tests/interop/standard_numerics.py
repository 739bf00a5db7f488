"""Graft's context-dependent bodies of standard ops compute what onnx's do.

For every case of `crates/graft/src/library/builders/tests.rs` (an op at an opset,
its attributes, which inputs it passes and their element types), this script builds
two models around one call of the op and runs both in onnxruntime on the same seeded
inputs:

(a) the reference: the body onnx builds for the call
    (`OpSchema.get_context_dependent_function_with_opset_version`, at the newest body
    opset at or below the call's), made a model-local function that one node calls,
    inlined by `onnx.inliner.inline_local_functions`;
(b) graft's body: the text graft's builder writes (dumped by the ignored Rust test
    `library::builders::tests::dump_cases`), read by `onnx.parser.parse_function`,
    called and inlined the same way.

With `--graft BIN` it also runs (c): the model with the op node itself, expanded by
`BIN inline-functions M.onnx -o OUT.onnx --standard`, against (a).

Every output is compared: floats with rtol 1e-5, atol 1e-6 (float16 in float32), ints
and bools exactly. A case whose reference onnxruntime cannot run is reported and
skipped. Prints one line per failing or skipped case and a summary; exits 1 when any
case differs or fails.

Run:

    /work/main/target/venv/bin/python tests/interop/standard_numerics.py \
        [--dump DIR] [--graft target/debug/graft] [-k SUBSTRING] [-v]

Without --dump it runs the Rust test to write the cases into a temporary directory
(`cargo test -p graft --lib -j1 dump_cases -- --ignored`, with CARGO_TARGET_DIR as
set in the environment).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnx.defs
import onnx.inliner
import onnx.parser
import onnx.shape_inference
import onnxruntime as ort
from onnx import helper as h

ROOT = Path(__file__).resolve().parents[2]

NP = {
    1: np.float32,
    11: np.float64,
    10: np.float16,
    6: np.int32,
    7: np.int64,
    9: np.bool_,
}
FLOATS = {1, 10, 11}

ort.set_default_logger_severity(4)


def dump_cases(directory):
    """Runs the ignored Rust test that writes the builders' texts and cases.json."""
    env = dict(os.environ, GRAFT_BUILDER_DUMP=str(directory))
    cmd = [
        "cargo", "test", "-p", "graft", "--lib", "-j1", "-q",
        "library::builders::tests::dump_cases", "--", "--ignored", "--exact",
    ]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def body_version(schema, opset):
    versions = [v for v in schema.context_dependent_function_opset_versions if v <= opset]
    return max(versions) if versions else None


def values(rng, elem, shape, scale=1.0, low=-10, high=10):
    if elem in FLOATS:
        return (rng.standard_normal(shape) * scale).astype(NP[elem])
    if elem == 9:
        return rng.integers(0, 2, shape).astype(np.bool_)
    return rng.integers(low, high, shape).astype(NP[elem])


def scalar(elem, v):
    return np.array(v, dtype=NP[elem])


def feeds_for(case, rng):
    """Input arrays per position (None where the call omits one); a list of such
    lists when the op needs several data sets to be covered."""
    op, attrs, types = case["op"], case["attrs"], case["inputs"]
    t0 = types[0]
    if op == "Clip":
        x = values(rng, t0, (3, 4, 5), scale=2.0)
        bounds = [None, scalar(t0, -0.5 if t0 in FLOATS else -3), scalar(t0, 0.7 if t0 in FLOATS else 4)]
        return [[x] + [bounds[i] if i < len(types) and types[i] is not None else None for i in (1, 2)]]
    if op in ("Softmax", "LogSoftmax", "Gelu", "Celu"):
        return [[values(rng, t0, (2, 3, 4), scale=3.0)]]
    if op in ("LayerNormalization", "RMSNormalization"):
        shape = (2, 3, 4)
        axis = attrs.get("axis", -1)
        axis = axis + len(shape) if axis < 0 else axis
        out = [values(rng, t0, shape, scale=2.0) + (1 if t0 in FLOATS else 0)]
        for t in types[1:]:
            out.append(None if t is None else values(rng, t, shape[axis:]))
        return [out]
    if op == "GroupNormalization":
        x = values(rng, t0, (2, 4, 3, 3), scale=2.0)
        n = attrs["num_groups"] if case["opset"] < 21 else 4
        return [[x, values(rng, types[1], (n,)), values(rng, types[2], (n,))]]
    if op == "CastLike":
        x = (rng.standard_normal((3, 4)) * 100).astype(np.float32)
        x[0, 0] = 1e5  # beyond float16
        x[0, 1] = 0.0
        return [[x, np.zeros((1,), dtype=NP[types[1]])]]
    if op == "Range":
        if t0 in FLOATS:
            sets = [(1.0, 10.0, 2.0), (10.0, 1.0, -3.0), (5.0, 5.0, 1.0), (0.5, 7.3, 0.7), (-2.5, 3.0, 0.25)]
        else:
            sets = [(3, 17, 4), (10, -4, -3), (5, 5, 1), (0, 7, 1), (-3, 40, 7)]
        return [[scalar(t0, a), scalar(t0, b), scalar(t0, c)] for a, b, c in sets]
    if op == "DepthToSpace":
        b = attrs["blocksize"]
        return [[values(rng, t0, (2, 2 * b * b, 2, 3), scale=5.0, low=-100, high=100)]]
    if op == "SpaceToDepth":
        b = attrs["blocksize"]
        return [[values(rng, t0, (2, 2, 2 * b, 3 * b), scale=5.0, low=-100, high=100)]]
    if op == "CenterCropPad":
        x = values(rng, t0, (4, 5, 6))
        full = [3, 7, 2]  # crop, pad, crop
        axes = attrs.get("axes")
        target = full if axes is None else [full[a] for a in axes]
        return [[x, np.array(target, dtype=np.int64)]]
    raise ValueError(f"no inputs for {op}")


def op_model(case, arrays):
    """The model with the op node itself (types and shapes from the arrays)."""
    op = case["op"]
    schema = onnx.defs.get_schema(op, case["opset"], "")
    names = [f"in{i}" if a is not None else "" for i, a in enumerate(arrays)]
    while names and names[-1] == "":
        names.pop()
    outputs = [f"out{i}" for i in range(case["outputs"])]
    node = h.make_node(op, names, outputs, **case["attrs"])
    inputs = [
        h.make_tensor_value_info(n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in zip(names, arrays)
        if n
    ]
    graph = h.make_graph([node], "g", inputs, [h.make_value_info(o, onnx.TypeProto()) for o in outputs])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", case["opset"])])
    model.ir_version = 10
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    known = {v.name: v for v in inferred.graph.value_info}
    known.update({v.name: v for v in inferred.graph.output if v.type.HasField("tensor_type")})
    del model.graph.output[:]
    for o in outputs:
        # onnx infers no type for some (GroupNormalization); onnxruntime infers it then.
        model.graph.output.append(known.get(o) or h.make_value_info(o, onnx.TypeProto()))
    return model, schema, node, names


def called(model, function):
    """`model` with its op node replaced by a call of `function` (made local), inlined."""
    fn = onnx.FunctionProto()
    fn.CopyFrom(function)
    fn.name, fn.domain = "Body", "local"
    m = onnx.ModelProto()
    m.CopyFrom(model)
    node = m.graph.node[0]
    node.op_type, node.domain = "Body", "local"
    m.opset_import.append(h.make_opsetid("local", 1))
    m.functions.append(fn)
    own = [o.version for o in fn.opset_import if o.domain in ("", "ai.onnx")]
    convert = bool(own) and own[0] != [o.version for o in m.opset_import if o.domain == ""][0]
    return onnx.inliner.inline_local_functions(m, convert_version=convert)


def run(model, names, arrays):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {n: a for n, a in zip(names, arrays) if n}
    return sess.run(None, feed)


def same(expected, actual):
    if len(expected) != len(actual):
        return f"{len(expected)} outputs against {len(actual)}"
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e.dtype != a.dtype or e.shape != a.shape:
            return f"output {i}: {e.dtype}{list(e.shape)} against {a.dtype}{list(a.shape)}"
        try:
            if e.dtype.kind == "f":
                np.testing.assert_allclose(
                    a.astype(np.float64), e.astype(np.float64), rtol=1e-5, atol=1e-6, equal_nan=True
                )
            else:
                np.testing.assert_array_equal(a, e)
        except AssertionError as err:
            return f"output {i}: " + " ".join(str(err).split())[:300]
    return None


def graft_expand(graft, model, work):
    src, dst = work / "op.onnx", work / "expanded.onnx"
    onnx.save(model, src)
    r = subprocess.run(
        [graft, "inline-functions", str(src), "-o", str(dst), "--standard"],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise RuntimeError(f"graft exited {r.returncode}: {(r.stderr or r.stdout).strip()[:300]}")
    return onnx.load(dst)


def check_case(case, texts, graft, work, rng):
    """None when equal, else ('skip' | 'fail', reason)."""
    data_sets = feeds_for(case, rng)
    ours = onnx.parser.parse_function(texts.read_text())
    for arrays in data_sets:
        model, schema, node, names = op_model(case, arrays)
        version = body_version(schema, case["opset"])
        types = [
            h.make_tensor_type_proto(onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape).SerializeToString()
            if a is not None
            else onnx.TypeProto().SerializeToString()
            for a in arrays[: len(names)]
        ]
        onnx_fn = onnx.FunctionProto.FromString(
            schema.get_context_dependent_function_with_opset_version(version, node.SerializeToString(), types)
        )
        if not onnx_fn.node:
            return ("fail", "onnx builds no body for this call")
        try:
            expected = run(called(model, onnx_fn), names, arrays)
        except Exception as e:  # noqa: BLE001 - onnxruntime raises many kinds
            return ("skip", "onnx's body does not run: " + " ".join(str(e).split())[:200])
        try:
            actual = run(called(model, ours), names, arrays)
        except Exception as e:  # noqa: BLE001
            return ("fail", "graft's body does not run: " + " ".join(str(e).split())[:300])
        diff = same(expected, actual)
        if diff:
            return ("fail", "graft's body: " + diff)
        if graft:
            try:
                expanded = graft_expand(graft, model, work)
                left = [n for n in expanded.graph.node if n.op_type == case["op"] and n.domain in ("", "ai.onnx")]
                if left:
                    return ("fail", "graft inline-functions --standard left the op node")
                actual = run(expanded, names, arrays)
            except Exception as e:  # noqa: BLE001
                return ("fail", "graft inline-functions --standard: " + " ".join(str(e).split())[:300])
            diff = same(expected, actual)
            if diff:
                return ("fail", "graft inline-functions --standard: " + diff)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", type=Path, help="a directory dump_cases wrote (default: run it now)")
    ap.add_argument("--graft", help="also expand with this graft binary (inline-functions --standard)")
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("-v", action="store_true", help="print every case")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        dump = args.dump
        if dump is None:
            dump = work / "dump"
            dump_cases(dump)
        cases = json.loads((dump / "cases.json").read_text())
        cases = [c for c in cases if args.k in c["name"]]
        equal, skipped, failed = 0, 0, 0
        ops = set()
        for i, case in enumerate(cases):
            rng = np.random.default_rng(1000 + i)
            try:
                verdict = check_case(case, dump / case["file"], args.graft, work, rng)
            except Exception as e:  # noqa: BLE001
                verdict = ("fail", f"{type(e).__name__}: " + " ".join(str(e).split())[:300])
            ops.add(case["op"])
            if verdict is None:
                equal += 1
                if args.v:
                    print(f"equal  {case['name']}")
            elif verdict[0] == "skip":
                skipped += 1
                print(f"skip   {case['name']}: {verdict[1]}")
            else:
                failed += 1
                print(f"FAIL   {case['name']}: {verdict[1]}")
        mode = " (and graft inline-functions --standard)" if args.graft else ""
        print(
            f"{len(cases)} cases of {len(ops)} ops{mode}: {equal} equal, {skipped} skipped "
            f"(onnx's own body does not run in onnxruntime), {failed} differ or fail"
        )
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
