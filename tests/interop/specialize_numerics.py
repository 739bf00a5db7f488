"""Specialization keeps the numbers: `graft specialize --all` on models with local
functions, then onnxruntime on the original and on the result, same seeded inputs,
every output compared (rtol 1e-5).

onnxruntime runs an overload only when the main graph calls it; called from a function
body it silently runs the generic of the same name (semantics.md §5). So the
specialized model is also expanded here (every call of a local function replaced by
its body, recursively, by this script's own small inliner), and that expansion is the
copy compared; the specialized model itself is run too when no function body calls an
overload. An original whose function bodies call overloads is expanded the same way to
give the reference.

Run (after `cargo build -p graft-cli`):

    /work/main/target/venv/bin/python tests/interop/specialize_numerics.py \
        --graft target/debug/graft [MODEL.onnx ...]

Without models it takes the generated function models of `target/corpus/generated/`
(overloads, nested_functions, called_300, control_flow) and the bundled
`assets/examples/function_library.onnx` and `functions_and_control_flow.onnx`.
With --fixtures it also runs the snapshots of `crates/graft/tests/specialize/` (the
results of the `# specialize:` lines of fixtures 31-60, read back with `graft parse` and
expanded) against their fixture section's `# reference:` lines (runs that set
attributes change the numbers on purpose and are skipped), as `cases.py` does.

Prints one line per model and exits 1 when any disagrees."""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODELS = [
    ROOT / "target/corpus/generated/overloads.onnx",
    ROOT / "target/corpus/generated/nested_functions.onnx",
    ROOT / "target/corpus/generated/called_300.onnx",
    ROOT / "target/corpus/generated/control_flow.onnx",
    ROOT / "assets/examples/function_library.onnx",
    ROOT / "assets/examples/functions_and_control_flow.onnx",
]

TYPES = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.BOOL: np.bool_,
}


def feeds(model, rng):
    inits = {i.name for i in model.graph.initializer}
    out = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        t = inp.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 3 for d in t.shape.dim]
        dtype = TYPES[t.elem_type]
        if dtype == np.bool_:
            out[inp.name] = np.asarray(rng.random(shape) > 0.5)
        elif np.issubdtype(dtype, np.integer):
            out[inp.name] = np.asarray(rng.integers(0, 3, shape)).astype(dtype)
        else:
            out[inp.name] = np.asarray(rng.standard_normal(shape) * 2).astype(dtype)
    return out


def run(model, inputs):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, inputs)


def norm(domain):
    return "" if domain == "ai.onnx" else domain


class Inliner:
    """Expands every call of a local function, binding attribute references (call
    value, else default, else dropped) and renaming body names with a per-call
    prefix (a body is its own scope, so every name in it, subgraphs included, is
    local)."""

    def __init__(self, model):
        self.functions = {
            (norm(f.domain), f.name, f.overload): f for f in model.functions
        }
        self.count = 0

    def callee(self, node):
        return self.functions.get((norm(node.domain), node.op_type, node.overload))

    def graph_nodes(self, nodes):
        out = []
        for node in nodes:
            f = self.callee(node)
            if f is None:
                out.append(self.subgraphs(node))
            else:
                out.extend(self.expand(node, f))
        return out

    def subgraphs(self, node):
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                self.graph(a.g)
            for g in a.graphs:
                self.graph(g)
        return node

    def graph(self, g):
        nodes = self.graph_nodes(list(g.node))
        del g.node[:]
        g.node.extend(nodes)

    def expand(self, call, f):
        self.count += 1
        prefix = f"__c{self.count}_"
        values = {a.name: a for a in f.attribute_proto}
        values.update({a.name: a for a in call.attribute})
        rename = {}
        for k, formal in enumerate(f.input):
            rename[formal] = call.input[k] if k < len(call.input) else ""
        for k, formal in enumerate(f.output):
            actual = call.output[k] if k < len(call.output) else ""
            rename[formal] = actual or f"{prefix}unused_{k}"

        def name(n):
            if n == "":
                return ""
            return rename.get(n, prefix + n)

        def copy_graph(g):
            h = onnx.GraphProto()
            h.CopyFrom(g)
            for vi in list(h.input) + list(h.output) + list(h.value_info):
                vi.name = name(vi.name)
            for t in h.initializer:
                t.name = name(t.name)
            nodes = [copy_node(n) for n in h.node]
            del h.node[:]
            h.node.extend(nodes)
            return h

        def copy_node(n):
            m = onnx.NodeProto()
            m.CopyFrom(n)
            m.name = ""
            del m.input[:]
            m.input.extend(name(i) for i in n.input)
            del m.output[:]
            m.output.extend(name(o) for o in n.output)
            attrs = []
            for a in n.attribute:
                if a.ref_attr_name:
                    if a.ref_attr_name not in values:
                        continue
                    b = onnx.AttributeProto()
                    b.CopyFrom(values[a.ref_attr_name])
                    b.name = a.name
                    attrs.append(b)
                    continue
                b = onnx.AttributeProto()
                b.CopyFrom(a)
                if b.type == onnx.AttributeProto.GRAPH:
                    b.g.CopyFrom(copy_graph(a.g))
                if b.type == onnx.AttributeProto.GRAPHS:
                    del b.graphs[:]
                    b.graphs.extend(copy_graph(g) for g in a.graphs)
                attrs.append(b)
            del m.attribute[:]
            m.attribute.extend(attrs)
            return m

        body = [copy_node(n) for n in f.node]
        # An output that is an input (or listed twice) needs a copy.
        out = []
        for k, formal in enumerate(f.output):
            if formal in f.input and k < len(call.output) and call.output[k]:
                src = rename[formal]
                out.append(helper.make_node("Identity", [src], [call.output[k]]))
        return self.graph_nodes(body) + out


def expand(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    Inliner(m).graph(m.graph)
    del m.functions[:]
    return m


def overload_called_from_body(model):
    return any(n.overload for f in model.functions for n in f.node)


def compare(a, b):
    if len(a) != len(b):
        return f"{len(a)} outputs before, {len(b)} after"
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"output {i}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}"
        if not np.allclose(x, y, rtol=1e-5, atol=1e-6):
            return f"output {i} differs\n{x}\n{y}"
    return None


def run_snapshot(graft, tmp, section, name, line, snap):
    """Reads snapshot `snap` back with `graft parse`, expands what is left of local
    calls and runs it against the section's `# reference:` lines; 1 when it fails."""
    sys.path.insert(0, str(Path(__file__).parent))
    import cases

    onnx_path = Path(tmp) / f"{name}.onnx"
    done = subprocess.run(
        [graft, "parse", str(snap), "-o", str(onnx_path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        print(f"FAIL {name} [{line}]: graft parse: {done.stderr.strip()}")
        return 1
    expanded = expand(onnx.load(str(onnx_path)))
    run_path = Path(tmp) / f"{name}.expanded.onnx"
    onnx.save(expanded, str(run_path))
    problems = cases.run_ort(run_path, expanded, section)
    if problems:
        print(f"FAIL {name} [{line}]: " + "; ".join(problems))
        return 1
    print(f"ok   {name} [{line}]: matches the references")
    return 0


def fixtures(graft, tmp):
    """Failures among the snapshots of specialized fixtures checked by reference."""
    sys.path.insert(0, str(Path(__file__).parent))
    import cases

    failures = 0
    snapshots = ROOT / "crates/graft/tests/specialize"
    for path in sorted(cases.CASES.glob("*.onnxtxt")):
        nn = path.name[:2]
        for section in cases.read_fixture(path):
            if not section.headers.get("reference"):
                continue
            for k, line in enumerate(section.headers.get("specialize", []), start=1):
                name = nn + ("" if section.label == "main" else f"-{section.label}")
                name += "" if k == 1 else f"-{k}"
                snap = snapshots / f"{name}.expected.onnxtxt"
                # Runs that set attributes change the numbers on purpose.
                if "=" in line or not snap.exists() or snap.read_text().startswith("error:"):
                    continue
                failures += run_snapshot(graft, tmp, section, name, line, snap)
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--graft", default=str(ROOT / "target/debug/graft"))
    parser.add_argument("--fixtures", action="store_true")
    parser.add_argument("models", nargs="*", type=Path)
    args = parser.parse_args()
    models = args.models or DEFAULT_MODELS
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.fixtures:
            failures += fixtures(args.graft, tmp)
        for path in models:
            out = Path(tmp) / f"{path.stem}.spec.onnx"
            done = subprocess.run(
                [args.graft, "specialize", str(path), "-o", str(out), "--all"],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                print(f"{path.name}: graft failed: {done.stderr.strip()}")
                failures += 1
                continue
            calls = sum(1 for line in done.stdout.splitlines() if line.startswith("call "))
            original = onnx.load(str(path))
            special = onnx.load(str(out))
            try:
                onnx.checker.check_model(special, full_check=True)
                inputs = feeds(original, np.random.default_rng(7))
                if overload_called_from_body(original):
                    # onnxruntime cannot run it as written: the expansion is the reference.
                    want = run(expand(original), inputs)
                else:
                    want = run(original, inputs)
                problem = compare(want, run(expand(special), inputs))
                direct = "skipped (a body calls an overload)"
                if problem is None and not overload_called_from_body(special):
                    problem = compare(want, run(special, inputs))
                    direct = "equal"
            except Exception as e:  # noqa: BLE001 - every failure is reported by name
                problem = f"{type(e).__name__}: {e}"
            if problem:
                print(f"{path.name}: {problem}")
                failures += 1
            else:
                print(
                    f"{path.name}: {calls} calls specialized, "
                    f"{len(special.functions)} functions; expanded equal, direct {direct}"
                )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
