#!/usr/bin/env python3
"""onnxruntime outputs of models against their fully inlined copies (`graft
inline-functions`), for the function library.

usage: library_numerics.py [--graft PATH] [--corpus DIR] [--fixtures]

For each model: run it in onnxruntime with seeded random inputs, inline every local
function with the graft binary, run the result, compare every output
(rtol=1e-5, atol=1e-6). semantics.md §5: onnxruntime runs the generic function
instead of an overload called inside a function body, so for overloads.onnx the
original's numbers are not an oracle; there the inlined copy is run alone and the
script says so. Prints one line per model; exit 1 on any mismatch or failure.

With --fixtures it also runs the snapshots of `crates/graft/tests/library/` (the
results of the `# inline-calls:` lines of fixtures 31-60, read back with `graft parse`,
what is left of local calls expanded by specialize_numerics.py's small inliner) against
their fixture section's `# reference:` lines, as `cases.py` runs the originals: with
specialize_numerics.py --fixtures, every acceptance case with references is checked
original = specialized = inlined.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[2]


def feeds(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Seeded inputs of each input's element type (symbolic or unknown dims are 2)."""
    rng = np.random.default_rng(0)
    inits = {i.name for i in model.graph.initializer}
    out = {}
    for i in model.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        dims = [d.dim_value if d.dim_value > 0 else 2 for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if dtype == np.bool_:
            out[i.name] = np.asarray(rng.random(dims) > 0.5)
        elif np.issubdtype(dtype, np.integer):
            out[i.name] = rng.integers(0, 3, dims).astype(dtype)
        elif dtype == np.object_:
            out[i.name] = np.array(rng.choice(["a", "b"], dims), dtype=object)
        else:
            out[i.name] = rng.standard_normal(dims).astype(dtype)
    return out


def run(path: Path, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def fixtures(graft: str, tmp: str) -> int:
    """Failures among the snapshots of inlined fixtures checked by reference."""
    sys.path.insert(0, str(Path(__file__).parent))
    import cases
    from specialize_numerics import run_snapshot

    failures = runs = 0
    snapshots = ROOT / "crates/graft/tests/library"
    for path in sorted(cases.CASES.glob("*.onnxtxt")):
        nn = path.name[:2]
        k = 0  # runs are numbered per file (tests/library.rs)
        for section in cases.read_fixture(path):
            for line in section.headers.get("inline-calls", []):
                k += 1
                name = nn if k == 1 else f"{nn}-{k}"
                snap = snapshots / f"{name}.expected.onnxtxt"
                if not section.headers.get("reference") or not snap.exists():
                    continue
                if snap.read_text().startswith("error:"):
                    continue
                runs += 1
                failures += run_snapshot(graft, tmp, section, f"{name}.inlined", line, snap)
    print(f"inlined fixtures: {runs} runs checked by reference, {failures} failed")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graft", default=str(ROOT / "target" / "debug" / "graft"))
    corpus = os.environ.get("GRAFT_CORPUS", str(ROOT / "target" / "corpus"))
    parser.add_argument("--corpus", default=corpus)
    parser.add_argument("--fixtures", action="store_true")
    args = parser.parse_args()
    generated = Path(args.corpus) / "generated"
    models = [
        (generated / "called_300.onnx", True),
        (generated / "nested_functions.onnx", True),
        (generated / "control_flow.onnx", True),
        (generated / "overloads.onnx", False),
        (ROOT / "assets/examples/function_library.onnx", True),
        (ROOT / "assets/examples/functions_and_control_flow.onnx", True),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.fixtures:
            failed += fixtures(args.graft, tmp)
        for path, oracle in models:
            inlined = Path(tmp) / f"{path.stem}.inlined.onnx"
            done = subprocess.run(
                [args.graft, "inline-functions", str(path), "-o", str(inlined)],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                print(f"FAIL {path.name}: graft: {done.stderr.strip()}")
                failed += 1
                continue
            model = onnx.load(path)
            inputs = feeds(model)
            try:
                after = run(inlined, inputs)
                left = len(onnx.load(inlined).functions)
                if not oracle:
                    print(
                        f"ran  {path.name}: inlined copy only ({len(after)} outputs, "
                        f"{left} functions left); onnxruntime mishandles overloads called "
                        "inside function bodies, so the original is no oracle (semantics.md §5)"
                    )
                    continue
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"FAIL {path.name}: onnxruntime on the inlined copy: {str(e).splitlines()[0]}")
                failed += 1
                continue
            try:
                before = run(path, inputs)
            except Exception as e:  # noqa: BLE001 - the original is no oracle
                print(
                    f"ran  {path.name}: inlined copy only ({len(after)} outputs, {left} functions "
                    f"left); onnxruntime cannot run the original: {str(e).splitlines()[0]}"
                )
                continue
                print(f"FAIL {path.name}: onnxruntime: {str(e).splitlines()[0]}")
                failed += 1
                continue
            ok = len(before) == len(after) and all(
                np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(before, after)
            )
            print(f"{'ok  ' if ok else 'FAIL'} {path.name}: {len(after)} outputs, {left} functions left")
            failed += 0 if ok else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
