"""onnx.checker's verdict on every corpus model, for the checker agreement test.

usage: checker_verdicts.py CORPUS_DIR OUT.json

Writes {relative path: null | "first line of the checker's error"} for every .onnx file
under CORPUS_DIR except corrupt/. The check is onnx.checker.check_model(path) as users
call it (full_check=False; external data is checked relative to the file).
"""

import json
import pathlib
import sys

import onnx
import onnx.checker


def main() -> int:
    corpus = pathlib.Path(sys.argv[1])
    out = pathlib.Path(sys.argv[2])
    verdicts = {}
    for path in sorted(corpus.rglob("*.onnx")):
        rel = path.relative_to(corpus).as_posix()
        if rel.startswith("corrupt/"):
            continue
        try:
            onnx.checker.check_model(str(path))
            verdicts[rel] = None
        except Exception as e:  # the checker raises ValidationError and others
            message = str(e).strip().splitlines()
            verdicts[rel] = message[0] if message else type(e).__name__
    out.write_text(json.dumps(verdicts, indent=1, sort_keys=True))
    bad = sum(1 for v in verdicts.values() if v is not None)
    print(f"checker_verdicts: {len(verdicts)} models, {bad} rejected by onnx.checker")
    return 0


if __name__ == "__main__":
    sys.exit(main())
