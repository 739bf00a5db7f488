#!/usr/bin/env python3
"""onnxruntime outputs of models before and after meaning-preserving edits.

usage: edit_numerics.py DIR

DIR holds pairs NAME.orig.onnx and NAME.edited.onnx, written by the edit property
test (tests/edits.rs): the edited one went through renames, Identity probes, new
outputs and delete-with-reconnect of an Identity. Both run with the same seeded
random inputs (fed by position, since a rename may change an input's name); the
original's outputs must equal the edited model's first outputs (rtol=1e-5,
atol=1e-6, NaN equal to NaN). A pair whose original onnxruntime cannot run is
skipped and said so. Prints one line per pair; exit 1 on any mismatch or failure.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).parent))
from library_numerics import feeds  # noqa: E402

FORK = multiprocessing.get_context("fork")
ort.set_default_logger_severity(3)


def same(a, b) -> bool:
    """Equal outputs: tensors (numbers within tolerance, NaN equal to NaN, anything
    else exactly), sequences element by element, maps key by key."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(
            same(a[k], b[k]) for k in a
        )
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b))
        )
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if np.issubdtype(a.dtype, np.number):
        return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(np.array_equal(a, b))


def session(path: Path) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def outputs(path: Path, inputs: list[np.ndarray]):
    """The outputs of the model at `path` for `inputs` (fed by position)."""
    s = session(path)
    names = [i.name for i in s.get_inputs()]
    return s.run(None, dict(zip(names, inputs)))


def isolated(fn, *args):
    """fn(*args) in a forked child, so that a crash of onnxruntime (random inputs can
    make a kernel divide by zero) is a result, not the end of the run: ("ok", value),
    ("error", message) or ("crash", exit code)."""
    reader, writer = FORK.Pipe(duplex=False)

    def child():
        try:
            writer.send(("ok", fn(*args)))
        except Exception as e:  # reported, not raised: the child must end cleanly
            writer.send(("error", str(e).splitlines()[0] if str(e) else repr(e)))

    process = FORK.Process(target=child)
    process.start()
    writer.close()
    try:
        result = reader.recv()
    except EOFError:
        result = None
    process.join()
    return result or ("crash", process.exitcode)


def main() -> int:
    directory = Path(sys.argv[1])
    checked = skipped = failed = 0
    for original in sorted(directory.glob("*.orig.onnx")):
        name = original.name[: -len(".orig.onnx")]
        edited = directory / f"{name}.edited.onnx"
        inputs = list(feeds(onnx.load(str(original))).values())
        status, want = isolated(outputs, original, inputs)
        if status != "ok":
            print(f"{name}: skipped, the original does not run ({status}): {want}")
            skipped += 1
            continue
        status, got = isolated(outputs, edited, inputs)
        if status != "ok":
            print(f"{name}: FAILED, the edited model does not run ({status}): {got}")
            failed += 1
            continue
        bad = [k for k, w in enumerate(want) if k >= len(got) or not same(w, got[k])]
        if bad:
            print(f"{name}: FAILED, outputs {bad} differ")
            failed += 1
        else:
            print(f"{name}: ok ({len(want)} outputs equal, {len(got) - len(want)} added)")
            checked += 1
    print(f"edit numerics: {checked} pairs equal, {skipped} skipped, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
