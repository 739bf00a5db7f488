"""onnx's full check on mutated models, for the checker mutation test.

usage: mutation_verdicts.py MANIFEST.json OUT.json

MANIFEST is a list of {"original": path, "mutated": path}. Writes, in the same order,
{"original_ok": bool, "error": null | "first line of the error"}: original_ok says
whether onnx.checker.check_model(original, full_check=True) accepts the original (a
mutation of a model onnx already rejects says nothing), error is the full check's
verdict on the mutated model.
"""

import json
import pathlib
import sys

import onnx
import onnx.checker


def verdict(path: str):
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return None
    except Exception as e:  # the checker and inference raise several kinds
        lines = str(e).strip().splitlines()
        return lines[0] if lines else type(e).__name__


def main() -> int:
    manifest = json.loads(pathlib.Path(sys.argv[1]).read_text())
    originals = {}
    out = []
    for m in manifest:
        original = m["original"]
        if original not in originals:
            originals[original] = verdict(original) is None
        out.append({"original_ok": originals[original], "error": verdict(m["mutated"])})
    pathlib.Path(sys.argv[2]).write_text(json.dumps(out))
    bad = sum(1 for v in out if v["original_ok"] and v["error"] is not None)
    print(f"mutation_verdicts: {len(out)} mutations, {bad} rejected by onnx's full check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
